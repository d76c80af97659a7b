package tgnri

import (
	"strings"
	"testing"

	"github.com/containerd/nri/pkg/api"
)

func TestParseSize(t *testing.T) {
	// docs/tgctl.md's examples and libtgroup's rules
	ok := map[string]uint64{
		"0": 0, "123": 123, "1G": 1000000000, "500M": 500000000, "2.5GB/s": 2500000000,
		"1.5GiB/s": 1610612736, "1.5k": 1500, "1K": 1000, "1Ki": 1024, "3MBps": 3000000,
		"1.0": 1, "2T": 2000000000000, "1Pi": 1 << 50, "max": Max,
		"18446744073709551614": 18446744073709551614,
		// Kubernetes quantities (apimachinery's parser)
		"1e9": 1000000000, "2E": 2000000000000000000, "1Ei": 1 << 60, "1000m": 1, "1500k": 1500000, "3E3": 3000, "1e19": 10000000000000000000, "0.5e1": 5, "7Ei": 7 << 60,
	}
	for in, want := range ok {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := []string{"", "1.5", "-1", "G", "1g", "1 G", "1GB/sec", ".5G", "MAX", "Gi", "m",
		"18446744073709551615", "18446744073709551616", "20000P", "1.0000000000000000001G",
		// quantities that are not a whole number of bytes, negative, or too big
		"500m", "1500m", "-1Gi", "+-1", "16Ei", "8Ei", "2e19", "1n"}
	for _, in := range bad {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestQoSFromCgroupParent(t *testing.T) {
	cases := map[string]QoS{
		"/kubepods/pod1234":                  Guaranteed,
		"/kubepods/burstable/pod1234":        Burstable,
		"/kubepods/besteffort/pod1234":       BestEffort,
		"kubepods-pod1234.slice":             Guaranteed,
		"kubepods-burstable-pod1234.slice":   Burstable,
		"kubepods-besteffort-pod1234.slice":  BestEffort,
		"/kubepods.slice/kubepods-burstable": Burstable,
		"":                                   Unknown,
		"/system.slice/foo":                  Unknown,
	}
	for cg, want := range cases {
		p := &api.PodSandbox{Linux: &api.LinuxPodSandbox{CgroupParent: cg}}
		if got := QoSOf(p); got != want {
			t.Errorf("QoSOf(%q) = %s, want %s", cg, got, want)
		}
	}
}

func TestDefaultGroupName(t *testing.T) {
	long := strings.Repeat("n", 63)
	cases := []struct {
		ns, name, uid, want string
	}{
		{"default", "web-0", "u", "k8s.default.web-0"},
		{long, "web-0", "5f1c9b2a-0000-4000-8000-000000000001", "k8s.5f1c9b2a-0000-4000-8000-000000000001"},
	}
	for _, c := range cases {
		got := DefaultGroup(&api.PodSandbox{Namespace: c.ns, Name: c.name, Uid: c.uid})
		if got != c.want || !ValidGroupName(got) {
			t.Errorf("DefaultGroup(%s/%s) = %q, want %q", c.ns, c.name, got, c.want)
		}
	}
}

func TestFormatLimit(t *testing.T) {
	l, err := ParseLimit("nvm_wbps=1G dram_rbps=0")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := FormatLimit(l), "dram_rbps=0 dram_wbps=max nvm_rbps=max nvm_wbps=1000000000"; got != want {
		t.Errorf("FormatLimit = %q, want %q", got, want)
	}
}

// The mount's root holds files next to the groups (docs/abi.md): a group
// may not take their names or the prefixes they (and future ones) use.
func TestGroupNamesOfRootFilesAreInvalid(t *testing.T) {
	for _, n := range []string{"tgroup.config", "tgroup.interference", "tgroup.stat", "tgroup.priority",
		"tgroup.limit", "tgroup.x", "cgroup.procs", "cgroup.x", "tasks", "last_cmd_status", ".", "..", "", "a/b"} {
		if ValidGroupName(n) {
			t.Errorf("ValidGroupName(%q) = true, want false", n)
		}
	}
	for _, n := range []string{"db", "tgroup", "cgroup", "tasks2", "my.tgroup.x", "last_cmd_status_", "k8s.ns.p"} {
		if !ValidGroupName(n) {
			t.Errorf("ValidGroupName(%q) = false, want true", n)
		}
	}
	pol := PolicyFor(&api.PodSandbox{Namespace: "ns", Name: "p", Annotations: map[string]string{AnnGroup: "tgroup.config"}}, "c", defaultPolicy(t))
	if pol.Group != "k8s.ns.p" || len(pol.Problems) != 1 {
		t.Errorf("annotation tgroup.config: group %q, problems %q; want the default k8s.ns.p and one problem", pol.Group, pol.Problems)
	}
}

func defaultPolicy(t *testing.T) *compiled {
	t.Helper()
	c, err := ParseConfig(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Group names live under the pod's namespace: a pod cannot reach
// another namespace's groups, whatever it names (the k8s. prefix, a
// namespace's prefix, a pod's default name).
func TestGroupNamesAreNamespaced(t *testing.T) {
	mk := func(g string) Policy {
		return PolicyFor(&api.PodSandbox{Namespace: "evil", Name: "p", Annotations: map[string]string{AnnGroup: g}}, "c", defaultPolicy(t))
	}
	for g, want := range map[string]string{"db": "k8s.evil.db", "k8s.prod.db-0": "k8s.evil.k8s.prod.db-0", "prod.db": "k8s.evil.prod.db",
		"k8s.x": "k8s.evil.k8s.x", "p": "k8s.evil.p"} {
		if pol := mk(g); pol.Group != want || len(pol.Problems) != 0 || pol.Shared {
			t.Errorf("annotation %s: group %q, problems %q, shared %v; want %s", g, pol.Group, pol.Problems, pol.Shared, want)
		}
	}
	// too long with the namespace: the default, said why
	if pol := mk(strings.Repeat("g", 60)); pol.Group != "k8s.evil.p" || len(pol.Problems) != 1 || !strings.Contains(pol.Problems[0], "longer than 64") {
		t.Errorf("long name: group %q, problems %q", pol.Group, pol.Problems)
	}
	// a namespace named like a pod uid cannot reach that pod's uid-named
	// groups: those have no second dot
	uid := "5f1c9b2a-0000-4000-8000-000000000001"
	long := &api.PodSandbox{Namespace: strings.Repeat("n", 63), Name: "web", Uid: uid}
	if g := DefaultGroup(long); g != "k8s."+uid {
		t.Errorf("DefaultGroup of a long name %q", g)
	}
	if g := ContainerGroup(long, "sidecar"); g != "k8s."+uid+"_sidecar" {
		t.Errorf("ContainerGroup of a long name %q", g)
	}
	if g := ContainerGroup(long, strings.Repeat("c", 63)); len(g) != 64 || !strings.HasPrefix(g, "k8s."+uid+"_ccc") {
		t.Errorf("ContainerGroup of a very long name %q", g)
	}
	if g := ContainerGroup(&api.PodSandbox{Namespace: "ns", Name: "web"}, "side"); g != "k8s.ns.web_side" {
		t.Errorf("ContainerGroup %q, want k8s.ns.web_side", g)
	}
	// two containers whose names begin alike past what fits: a group each
	a, b := ContainerGroup(long, "metrics-exporter-sidecar-a"), ContainerGroup(long, "metrics-exporter-sidecar-b")
	if a == b || !ValidGroupName(a) || !ValidGroupName(b) || !strings.HasPrefix(a, "k8s."+uid+"_metrics-export") {
		t.Errorf("ContainerGroup of two long container names: %q and %q, want two valid groups", a, b)
	}
	// a UID (or a sandbox ID) with dots: none kept, one dot in the name
	dotted := &api.PodSandbox{Namespace: strings.Repeat("n", 63), Name: "web", Uid: "a.b.c"}
	if g := DefaultGroup(dotted); g != "k8s.a_b_c" {
		t.Errorf("DefaultGroup of a dotted uid %q, want k8s.a_b_c", g)
	}
	if g := ContainerGroup(dotted, "x"); g != "k8s.a_b_c_x" {
		t.Errorf("ContainerGroup of a dotted uid %q, want k8s.a_b_c_x", g)
	}
}
