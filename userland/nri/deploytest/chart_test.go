package deploytest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"

	"github.com/containerd/nri/pkg/api"

	tgnri "tgroup/userland/nri"
	"tgroup/userland/nri/internal/testbin"
)

// The chart as helm template renders it with each values set of
// deploy/helm/tgroup/ci/ (tests/check.sh step 3f writes one NAME.yaml per set
// into TG_CHART_RENDERED; `helm lint --strict` runs there too).

// serviceMonitor is prometheus-operator's monitoring.coreos.com/v1
// ServiceMonitor, the fields the chart uses (strict: any other is an error).
type serviceMonitor struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
		NamespaceSelector struct {
			MatchNames []string `json:"matchNames"`
		} `json:"namespaceSelector"`
		Endpoints []struct {
			Port        string `json:"port"`
			Interval    string `json:"interval"`
			Relabelings []struct {
				SourceLabels []string `json:"sourceLabels"`
				TargetLabel  string   `json:"targetLabel"`
			} `json:"relabelings"`
		} `json:"endpoints"`
	} `json:"spec"`
}

// rendered is one helm template output, decoded.
type rendered struct {
	name       string
	namespaces []corev1.Namespace
	configMaps []corev1.ConfigMap
	daemonSets []appsv1.DaemonSet
	services   []corev1.Service
	monitors   []serviceMonitor
	netpols    []networkingv1.NetworkPolicy
}

// decode splits a helm template output into documents and decodes each,
// strictly, into the API type its kind names.
func decode(t *testing.T, name string, out []byte) *rendered {
	t.Helper()
	r := &rendered{name: name}
	for i, doc := range strings.Split("\n"+string(out), "\n---") {
		body := strings.TrimSpace(doc)
		if body == "" || strings.Trim(body, "# \n") == "" || !strings.Contains(body, "kind:") {
			continue
		}
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(body), &meta); err != nil {
			t.Fatalf("%s: document %d: %v", name, i, err)
		}
		var into any
		want := ""
		switch meta.Kind {
		case "Namespace":
			r.namespaces = append(r.namespaces, corev1.Namespace{})
			into, want = &r.namespaces[len(r.namespaces)-1], "v1"
		case "ConfigMap":
			r.configMaps = append(r.configMaps, corev1.ConfigMap{})
			into, want = &r.configMaps[len(r.configMaps)-1], "v1"
		case "DaemonSet":
			r.daemonSets = append(r.daemonSets, appsv1.DaemonSet{})
			into, want = &r.daemonSets[len(r.daemonSets)-1], "apps/v1"
		case "Service":
			r.services = append(r.services, corev1.Service{})
			into, want = &r.services[len(r.services)-1], "v1"
		case "NetworkPolicy":
			r.netpols = append(r.netpols, networkingv1.NetworkPolicy{})
			into, want = &r.netpols[len(r.netpols)-1], "networking.k8s.io/v1"
		case "ServiceMonitor":
			r.monitors = append(r.monitors, serviceMonitor{})
			into, want = &r.monitors[len(r.monitors)-1], "monitoring.coreos.com/v1"
		default:
			t.Fatalf("%s: document %d: kind %q: the chart makes no such object", name, i, meta.Kind)
		}
		if meta.APIVersion != want {
			t.Errorf("%s: %s with apiVersion %q, want %q", name, meta.Kind, meta.APIVersion, want)
		}
		if err := yaml.UnmarshalStrict([]byte(body), into); err != nil {
			t.Errorf("%s: %s (document %d) does not decode strictly into its API type: %v", name, meta.Kind, i, err)
		}
	}
	return r
}

func renderedSets(t *testing.T) map[string]*rendered {
	t.Helper()
	dir := os.Getenv("TG_CHART_RENDERED")
	if dir == "" {
		t.Skip("TG_CHART_RENDERED unset: make check (tests/check.sh step 3f) renders the chart with helm and runs this")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if len(files) < 3 {
		t.Fatalf("%s: %d rendered value sets, want the default and deploy/helm/tgroup/ci/*-values.yaml", dir, len(files))
	}
	out := map[string]*rendered{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := strings.TrimSuffix(filepath.Base(f), ".yaml")
		out[n] = decode(t, n, b)
	}
	return out
}

func container(ds *appsv1.DaemonSet, name string) *corev1.Container {
	for i := range ds.Spec.Template.Spec.Containers {
		if c := &ds.Spec.Template.Spec.Containers[i]; c.Name == name {
			return c
		}
	}
	return nil
}

func TestChartDecodesStrictly(t *testing.T) {
	sets := renderedSets(t)
	for name, r := range sets {
		if len(r.daemonSets) != 1 || len(r.configMaps) != 1 {
			t.Errorf("%s: %d DaemonSets, %d ConfigMaps; want one each", name, len(r.daemonSets), len(r.configMaps))
		}
	}
	if d := sets["default"]; d == nil || len(d.namespaces) != 1 || len(d.services) != 0 || len(d.monitors) != 0 || len(d.netpols) != 0 {
		t.Errorf("the default values: want a Namespace and no Service, ServiceMonitor or NetworkPolicy")
	}
	if f := sets["full"]; f == nil || len(f.namespaces) != 0 || len(f.services) != 1 || len(f.monitors) != 1 || len(f.netpols) != 1 {
		t.Errorf("the full values (namespace.create false, serviceMonitor and networkPolicy on): want no Namespace, one Service, one ServiceMonitor, one NetworkPolicy")
	}
}

// The deployment's rules, for every values set.
func TestChartDeployment(t *testing.T) {
	for name, r := range renderedSets(t) {
		t.Run(name, func(t *testing.T) { checkDeployment(t, r) })
	}
}

func checkDeployment(t *testing.T, r *rendered) {
	if len(r.daemonSets) != 1 {
		t.Fatalf("%d DaemonSets", len(r.daemonSets))
	}
	ds := &r.daemonSets[0]
	ns := ds.Namespace
	for _, o := range []string{r.configMaps[0].Namespace} {
		if o != ns || ns == "" {
			t.Errorf("objects in namespaces %q and %q", ns, o)
		}
	}
	for _, n := range r.namespaces {
		if n.Name != ns || n.Labels["pod-security.kubernetes.io/enforce"] != "privileged" {
			t.Errorf("Namespace %s labels %v: want the DaemonSet's, enforce=privileged (hostPID, hostPath, CAP_SYS_ADMIN)", n.Name, n.Labels)
		}
	}
	spec := ds.Spec.Template.Spec
	for k, v := range ds.Spec.Selector.MatchLabels {
		if ds.Spec.Template.Labels[k] != v {
			t.Errorf("selector %s=%s does not match the pod template", k, v)
		}
	}
	if !spec.HostPID {
		t.Error("hostPID must be true: cgroup.procs takes pids in the writer's pid namespace, NRI gives the host's")
	}
	if spec.HostUsers == nil || !*spec.HostUsers {
		t.Error("hostUsers must be true: tgroup checks CAP_SYS_ADMIN in the initial user namespace")
	}
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken || spec.ServiceAccountName != "" {
		t.Error("the pod must not take a service account token (it needs no API access)")
	}
	if spec.PriorityClassName != "system-node-critical" {
		t.Errorf("priorityClassName %q", spec.PriorityClassName)
	}
	if spec.NodeSelector["tgroup.io/module"] != "present" {
		t.Errorf("nodeSelector %v: want tgroup.io/module=present", spec.NodeSelector)
	}
	for _, tl := range spec.Tolerations {
		if tl.Key == "" && tl.Operator == corev1.TolerationOpExists {
			t.Errorf("toleration %+v tolerates every taint", tl)
		}
	}
	if spec.SecurityContext == nil || spec.SecurityContext.SeccompProfile == nil || spec.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("the pod's seccomp profile is not RuntimeDefault")
	}
	if ds.Spec.Template.Annotations["checksum/policy"] == "" {
		t.Error("no checksum/policy annotation: a policy change would not roll the pods")
	}

	vols := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		vols[v.Name] = v
	}
	hostMounts := func(c *corev1.Container) map[string]corev1.VolumeMount {
		m := map[string]corev1.VolumeMount{}
		for _, vm := range c.VolumeMounts {
			v, ok := vols[vm.Name]
			if !ok {
				t.Errorf("container %s mounts %s: no such volume", c.Name, vm.Name)
				continue
			}
			key := vm.Name
			if v.HostPath != nil {
				key = v.HostPath.Path
			}
			m[key] = vm
		}
		return m
	}
	allCtrs := append(slices.Clone(spec.InitContainers), spec.Containers...)
	for i := range allCtrs {
		c := &allCtrs[i]
		ports := map[string]bool{}
		for _, p := range c.Ports {
			ports[p.Name] = true
		}
		for what, pr := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
			if i < len(spec.InitContainers) {
				continue
			}
			if pr == nil || pr.HTTPGet == nil || !ports[pr.HTTPGet.Port.StrVal] {
				t.Errorf("container %s: %s probe %+v: want an HTTP probe on a named port of the container", c.Name, what, pr)
			}
		}
		if i >= len(spec.InitContainers) && (c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero()) {
			t.Errorf("container %s: resources %v: want cpu and memory requests and a memory limit", c.Name, c.Resources)
		}
		if !strings.HasPrefix(c.Image, "localhost/tgroup-node:") && r.name == "default" {
			t.Errorf("container %s: image %s: no registry publishes the image; the default names a local build", c.Name, c.Image)
		}
		sc := c.SecurityContext
		if sc != nil && sc.Privileged != nil && *sc.Privileged && c.Name != "load-module" {
			t.Errorf("container %s is privileged", c.Name)
		}
		// the API refuses allowPrivilegeEscalation false with privileged
		// or with CAP_SYS_ADMIN added
		if sc != nil && sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation &&
			((sc.Privileged != nil && *sc.Privileged) || (sc.Capabilities != nil && slices.Contains(sc.Capabilities.Add, "SYS_ADMIN"))) {
			t.Errorf("container %s: allowPrivilegeEscalation false with privileged or SYS_ADMIN: the API server rejects it", c.Name)
		}
	}
	for _, ic := range spec.InitContainers {
		if ic.Name != "load-module" || !strings.Contains(strings.Join(ic.Command, " "), "nsenter --target=1 --mount") {
			t.Errorf("init container %s %v: only load-module, in pid 1's mount namespace", ic.Name, ic.Command)
		}
		// a root shell in the host's namespaces: no value in its script,
		// the mount point passed as an argument
		cmd := ic.Command
		i := slices.Index(cmd, "-c")
		if i < 0 || i+3 != len(cmd)-1 || vols["tgroup"].HostPath == nil || cmd[len(cmd)-1] != vols["tgroup"].HostPath.Path ||
			strings.Contains(cmd[i+1], cmd[len(cmd)-1]) || !strings.Contains(cmd[i+1], `"$1"`) {
			t.Errorf("init container %s: command %q: want sh -c SCRIPT NAME MOUNT, the mount (the tgroup volume's path) only as $1", ic.Name, cmd)
		}
	}

	nri := container(ds, "tgroup-nri")
	if nri == nil {
		t.Fatal("no tgroup-nri container")
	}
	sc := nri.SecurityContext
	if sc == nil || sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Add, []corev1.Capability{"SYS_ADMIN"}) ||
		!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || sc.RunAsUser == nil || *sc.RunAsUser != 0 ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("tgroup-nri securityContext %+v: want uid 0, capabilities drop ALL add SYS_ADMIN only, a read-only root", sc)
	}
	m := hostMounts(nri)
	env := map[string]string{}
	for _, e := range nri.Env {
		env[e.Name] = e.Value
	}
	tg, ok := m["/sys/fs/tgroup"]
	if !ok || tg.ReadOnly || tg.MountPropagation == nil || *tg.MountPropagation != corev1.MountPropagationHostToContainer {
		t.Errorf("tgroup-nri: the tgroup mount %+v: want it writable, HostToContainer", tg)
	}
	if strings.HasPrefix(tg.MountPath, "/sys/") {
		t.Errorf("tgroup-nri mounts tgroup at %s: the runtime's default AppArmor profile denies writes under /sys/fs/ but cgroup", tg.MountPath)
	}
	// the mount appears when the module is loaded (module.load: by the
	// init container); the kubelet checks a typed hostPath before any
	// init container runs
	if v := vols[tg.Name]; v.HostPath == nil || (v.HostPath.Type != nil && *v.HostPath.Type != "") {
		t.Errorf("the tgroup volume %+v: want an untyped hostPath", v.VolumeSource)
	}
	if env["TGROUP_MOUNT"] != tg.MountPath {
		t.Errorf("TGROUP_MOUNT %q, the mount is at %q", env["TGROUP_MOUNT"], tg.MountPath)
	}
	if vm := m["/var/run/nri"]; vm.MountPath != "/var/run/nri" {
		t.Errorf("tgroup-nri: the NRI socket directory at %q", vm.MountPath)
	}
	cg := m["/sys/fs/cgroup"]
	if !cg.ReadOnly || !slices.Contains(nri.Args, "-cgroup-root="+cg.MountPath) {
		t.Errorf("tgroup-nri: the host's cgroups at %q (read-only %v), args %v", cg.MountPath, cg.ReadOnly, nri.Args)
	}
	if nri.Command[0] != "/usr/local/bin/tgroup-node-start" {
		t.Errorf("tgroup-nri command %v", nri.Command)
	}
	checkPluginArgs(t, r, nri, m)

	if exp := container(ds, "exporter"); exp != nil {
		sc := exp.SecurityContext
		if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.Capabilities == nil || len(sc.Capabilities.Add) != 0 ||
			!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Errorf("exporter securityContext %+v: want non-root, no capability, no privilege escalation", sc)
		}
		em := hostMounts(exp)
		if vm := em["/sys/fs/tgroup"]; !vm.ReadOnly || !slices.Contains(exp.Command, vm.MountPath) || exp.Command[0] != "/usr/local/bin/tgroup-exporter" {
			t.Errorf("exporter %v: want tgroup-exporter -m <its read-only tgroup mount %s>", exp.Command, vm.MountPath)
		}
	}

	// the Service and ServiceMonitor reach named container ports
	cports := map[string]bool{}
	for _, c := range spec.Containers {
		for _, p := range c.Ports {
			cports[p.Name] = true
		}
	}
	for _, s := range r.services {
		if s.Spec.ClusterIP != "None" {
			t.Errorf("Service %s: want headless (every node's pod scraped)", s.Name)
		}
		for k, v := range s.Spec.Selector {
			if ds.Spec.Template.Labels[k] != v {
				t.Errorf("Service %s selects %s=%s, not the pods'", s.Name, k, v)
			}
		}
		for _, p := range s.Spec.Ports {
			if !cports[p.TargetPort.StrVal] {
				t.Errorf("Service %s port %s: target %s is no container port", s.Name, p.Name, p.TargetPort.StrVal)
			}
		}
	}
	for _, np := range r.netpols {
		for k, v := range np.Spec.PodSelector.MatchLabels {
			if ds.Spec.Template.Labels[k] != v {
				t.Errorf("NetworkPolicy %s selects %s=%s, not the pods'", np.Name, k, v)
			}
		}
		if len(np.Spec.PodSelector.MatchLabels) == 0 || !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}) ||
			len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].From) == 0 || np.Namespace != ns {
			t.Errorf("NetworkPolicy %s: want the pods selected, Ingress only, one rule with peers named (no peers: everyone), in %s", np.Name, ns)
			continue
		}
		var open []int32
		for _, p := range np.Spec.Ingress[0].Ports {
			open = append(open, p.Port.IntVal)
		}
		var want []int32
		for _, c := range spec.Containers {
			for _, p := range c.Ports {
				want = append(want, p.ContainerPort)
			}
		}
		slices.Sort(open)
		slices.Sort(want)
		if !slices.Equal(open, want) {
			t.Errorf("NetworkPolicy %s opens ports %v, the containers have %v", np.Name, open, want)
		}
	}
	for _, sm := range r.monitors {
		if len(r.services) != 1 {
			t.Fatal("a ServiceMonitor without its Service")
		}
		svc := r.services[0]
		for k, v := range sm.Spec.Selector.MatchLabels {
			if svc.Labels[k] != v {
				t.Errorf("ServiceMonitor selects %s=%s, the Service has %v", k, v, svc.Labels)
			}
		}
		names := map[string]bool{}
		for _, p := range svc.Spec.Ports {
			names[p.Name] = true
		}
		for _, ep := range sm.Spec.Endpoints {
			if !names[ep.Port] {
				t.Errorf("ServiceMonitor endpoint port %s: not a Service port", ep.Port)
			}
		}
		if !slices.Equal(sm.Spec.NamespaceSelector.MatchNames, []string{ns}) {
			t.Errorf("ServiceMonitor namespaces %v", sm.Spec.NamespaceSelector.MatchNames)
		}
	}
}

// checkPluginArgs runs the real tgroup-nri with the container's arguments
// and -check-config, the policy the ConfigMap carries in place of the
// mounted file: every flag must be one the plugin has, and the policy one
// it accepts.
func checkPluginArgs(t *testing.T, r *rendered, nri *corev1.Container, m map[string]corev1.VolumeMount) {
	t.Helper()
	cm := r.configMaps[0]
	policy := cm.Data["config.yaml"]
	if c, err := tgnri.ParseConfig([]byte(policy), nil); err != nil {
		t.Errorf("the ConfigMap's policy: %v", err)
	} else {
		// the plugin never manages its own pod (a throttled plugin stalls
		// the runtime's NRI calls), whatever nri.policy says; kube-system
		// stays excluded where the values do not say otherwise
		for _, ns := range []string{r.daemonSets[0].Namespace, "kube-system"} {
			if ok, _ := c.Manages(&api.PodSandbox{Namespace: ns, Name: "p"}); ok {
				t.Errorf("the ConfigMap's policy manages namespace %s's pods:\n%s", ns, policy)
			}
		}
	}
	pm := m["policy"]
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	var args []string
	sawConfig := false
	for _, a := range nri.Args {
		if v, ok := strings.CutPrefix(a, "-config="); ok {
			if v != filepath.Join(pm.MountPath, "config.yaml") {
				t.Errorf("-config=%s, the policy is mounted at %s", v, pm.MountPath)
			}
			a, sawConfig = "-config="+file, true
		}
		args = append(args, a)
	}
	if !sawConfig {
		t.Error("tgroup-nri is not given the policy (-config)")
	}
	out, err := exec.Command(testbin.Plugin(t, ".."), append(args, "-check-config")...).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("policy ok")) {
		t.Errorf("tgroup-nri %v -check-config: %v: %s", args, err, out)
	}
}

// Every value the chart's templates read is in values.yaml, and every
// top-level key of values.yaml is read (a typo in either is caught).
func TestChartValuesAreUsed(t *testing.T) {
	root := filepath.Join("..", "..", "..", "deploy", "helm", "tgroup")
	b, err := os.ReadFile(filepath.Join(root, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var vals map[string]any
	if err := yaml.UnmarshalStrict(b, &vals); err != nil {
		t.Fatal(err)
	}
	tpls, _ := filepath.Glob(filepath.Join(root, "templates", "*"))
	var all strings.Builder
	for _, f := range tpls {
		b, _ := os.ReadFile(f)
		all.Write(b)
	}
	src := all.String()
	var unused []string
	for k := range vals {
		if !strings.Contains(src, ".Values."+k) {
			unused = append(unused, k)
		}
	}
	sort.Strings(unused)
	if len(unused) > 0 {
		t.Errorf("values.yaml keys no template reads: %v", unused)
	}
	for _, ref := range valueRefs(src) {
		if !hasPath(vals, ref) {
			t.Errorf("templates read .Values.%s, which values.yaml does not define", ref)
		}
	}
}

func valueRefs(src string) []string {
	var out []string
	seen := map[string]bool{}
	for _, part := range strings.Split(src, ".Values.")[1:] {
		end := strings.IndexFunc(part, func(r rune) bool {
			return !(r == '.' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		})
		if end < 0 {
			end = len(part)
		}
		ref := strings.TrimSuffix(part[:end], ".")
		if !seen[ref] {
			seen[ref] = true
			out = append(out, ref)
		}
	}
	return out
}

func hasPath(m map[string]any, ref string) bool {
	var cur any = m
	for _, k := range strings.Split(ref, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = mm[k]; !ok {
			return false
		}
	}
	return true
}
