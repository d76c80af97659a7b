package tgnri

import (
	"errors"
	"flag"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// the DaemonSet's shape, as far as the test checks it
type manifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Namespace string `yaml:"namespace"`
	} `yaml:"metadata"`
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				HostPID            bool      `yaml:"hostPID"`
				AutomountToken     *bool     `yaml:"automountServiceAccountToken"`
				ServiceAccountName string    `yaml:"serviceAccountName"`
				InitContainers     []ctrSpec `yaml:"initContainers"`
				Containers         []ctrSpec `yaml:"containers"`
				Volumes            []struct {
					Name     string `yaml:"name"`
					HostPath struct {
						Path string `yaml:"path"`
						Type string `yaml:"type"`
					} `yaml:"hostPath"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type ctrSpec struct {
	Name            string   `yaml:"name"`
	Image           string   `yaml:"image"`
	Command         []string `yaml:"command"`
	SecurityContext struct {
		Privileged bool `yaml:"privileged"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"volumeMounts"`
}

func TestDaemonSetManifest(t *testing.T) {
	b, err := os.ReadFile("deploy/tgroup-daemonset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	var docs []map[string]any
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not YAML: %v", err)
		}
		docs = append(docs, d)
	}
	if len(docs) != 1 {
		t.Fatalf("%d YAML documents, want the DaemonSet alone (RBAC-free: no ServiceAccount, Role, binding)", len(docs))
	}
	var m manifest
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.APIVersion != "apps/v1" || m.Kind != "DaemonSet" {
		t.Errorf("%s %s, want apps/v1 DaemonSet", m.APIVersion, m.Kind)
	}
	s := m.Spec.Template.Spec
	for k, v := range m.Spec.Selector.MatchLabels {
		if m.Spec.Template.Metadata.Labels[k] != v {
			t.Errorf("selector %s=%s does not match the pod template's labels", k, v)
		}
	}
	if !s.HostPID {
		t.Error("hostPID must be true: cgroup.procs takes pids in the writer's pid namespace, NRI gives the host's")
	}
	if s.AutomountToken == nil || *s.AutomountToken || s.ServiceAccountName != "" {
		t.Error("the pod must not take a service account token (it needs no API access)")
	}
	vols := map[string]string{}
	for _, v := range s.Volumes {
		vols[v.Name] = v.HostPath.Path
		// /sys/fs/tgroup appears when the init container loads the module;
		// the kubelet checks a typed hostPath when it sets the pod up,
		// before any init container runs: typed, the pod never starts
		// on a node where the module is not loaded yet
		if v.HostPath.Path == "/sys/fs/tgroup" && v.HostPath.Type != "" {
			t.Errorf("volume %s: hostPath /sys/fs/tgroup with type %s: the kubelet checks it before the init container has loaded the module", v.Name, v.HostPath.Type)
		}
	}
	mounts := func(c ctrSpec) map[string]string {
		ms := map[string]string{}
		for _, vm := range c.VolumeMounts {
			ms[vols[vm.Name]] = vm.MountPath
		}
		return ms
	}
	byName := map[string]ctrSpec{}
	for _, c := range s.Containers {
		byName[c.Name] = c
	}

	if len(s.InitContainers) != 1 {
		t.Fatalf("%d init containers, want 1 (module + mount)", len(s.InitContainers))
	}
	ic := s.InitContainers[0]
	if len(ic.VolumeMounts) != 0 {
		t.Errorf("init container mounts %v: it works in the host's mount namespace and needs none", ic.VolumeMounts)
	}
	script := strings.Join(ic.Command, " ")
	if !ic.SecurityContext.Privileged || !strings.Contains(script, "nsenter --target=1 --mount") ||
		!strings.Contains(script, "modprobe tgroup") || !strings.Contains(script, "mount -t tgroup tgroup /sys/fs/tgroup") {
		t.Errorf("init container %q: want privileged, in pid 1's mount namespace, modprobe tgroup and mount -t tgroup", script)
	}

	nri, ok := byName["tgroup-nri"]
	if !ok {
		t.Fatal("no tgroup-nri container")
	}
	if !nri.SecurityContext.Privileged {
		t.Error("tgroup-nri must be privileged (moves other users' pids)")
	}
	if ms := mounts(nri); ms["/var/run/nri"] != "/var/run/nri" || ms["/sys/fs/tgroup"] != "/sys/fs/tgroup" {
		t.Errorf("tgroup-nri mounts %v: want /var/run/nri and /sys/fs/tgroup at their host paths", ms)
	}
	// every flag the manifest passes is one tgroup-nri defines
	fs := flag.NewFlagSet("tgroup-nri", flag.ContinueOnError)
	for _, f := range []string{"mount", "state", "name", "idx", "socket", "guaranteed", "burstable", "besteffort", "unknown-qos"} {
		fs.String(f, "", "")
	}
	if nri.Command[0] != "/usr/local/bin/tgroup-nri" || fs.Parse(nri.Command[1:]) != nil || fs.NArg() != 0 {
		t.Errorf("tgroup-nri command %v: unknown flag or argument", nri.Command)
	}
	if got := fs.Lookup("mount").Value.String(); got != "/sys/fs/tgroup" {
		t.Errorf("-mount=%s", got)
	}
	src, err := os.ReadFile("cmd/tgroup-nri/main.go")
	if err != nil {
		t.Fatal(err)
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(string(src), `flag.String("`+f.Name+`"`) {
			t.Errorf("main.go defines no -%s", f.Name)
		}
	})

	exp, ok := byName["exporter"]
	if !ok {
		t.Fatal("no exporter container")
	}
	if exp.SecurityContext.Privileged || !slices.Contains(exp.Command, "--listen") || exp.Command[0] != "/usr/local/bin/tgroup-exporter" {
		t.Errorf("exporter %v: want unprivileged tgroup-exporter --listen", exp.Command)
	}
	if ms := mounts(exp); ms["/sys/fs/tgroup"] != "/sys/fs/tgroup" {
		t.Errorf("exporter mounts %v: want /sys/fs/tgroup", ms)
	}
}
