package tgnri

import (
	"slices"
	"strings"
	"testing"
)

// One namespace cannot take the node's groups: past its namespaceQuota
// its new pods run in its overflow group (low, the quota's limit; never
// the root group, whatever they ask), the event logged once and counted;
// other namespaces still get groups; when one of the namespace's groups
// goes, the pod waiting longest takes a group of its own; the overflow
// group goes with the namespace's last group.
func TestNamespaceQuotaOverflowsIntoTheNamespacesGroup(t *testing.T) {
	e := newEnv(t, 256)
	e.met = NewMetrics()
	e.setPolicy(`
namespaceQuota: {groups: 2, overflowLimit: "nvm_wbps=100M"}
rules:
  - name: greedy-high
    match: {namespaces: [greedy]}
    allow: {highPriority: true, sharedGroups: [common]}
`)
	e.rt.Connect(e.plugin())
	const over = "k8s.greedy._overflow"
	const overLimit = "dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=100000000"
	a := e.rt.Start(pod("greedy", "a", Guaranteed, nil), "c", 6001)
	e.expect(over, "low", overLimit) // made with the namespace's first group
	e.rt.Start(pod("greedy", "b", Guaranteed, nil), "c", 6002)
	e.rt.Start(pod("greedy", "c", Guaranteed, map[string]string{AnnPriority: "high", AnnLimit: "dram_rbps=max"}), "c", 6003)
	e.rt.Start(pod("greedy", "d", BestEffort, nil), "c", 6004)
	// the overflow group is not a group to name (its settings are the
	// policy's): greedy/n gets its own group, said why
	e.rt.Start(pod("greedy", "n", BestEffort, map[string]string{AnnGroup: "_overflow", AnnLimit: "nvm_wbps=max"}), "c", 6006)
	if e.log.has(`pod greedy/n: invalid annotation tgroup.io/group="_overflow": k8s.greedy._overflow is the namespace's overflow group`) == "" {
		t.Error("naming the overflow group is not refused")
	}
	// a shared group is the policy's, not the namespace's: no slot taken
	e.rt.Start(pod("greedy", "s", Burstable, map[string]string{AnnGroup: "common"}), "c", 6005)
	e.rt.Start(pod("other", "x", Guaranteed, nil), "c", 6101)
	e.expect("k8s.greedy.a", "high", allMax, 6001)
	e.expect("k8s.greedy.b", "high", allMax, 6002)
	e.expect(over, "low", overLimit, 6003, 6004, 6006) // n: its own group, past the quota
	e.expect("common", "low", allMax, 6005)
	e.expect("k8s.other.x", "high", allMax, 6101)
	e.expectGone("k8s.greedy.c")
	e.expectGone("k8s.greedy.d")
	if got := e.fs.procs(""); len(got) != 0 {
		t.Errorf("root group %v: a pod past its namespace's quota escaped there", got)
	}
	if n := e.log.count("EVENT namespace_quota: pod greedy/c container c: group k8s.greedy.c not created: namespace greedy has its 2 groups", "runs in "+over); n != 1 {
		t.Errorf("the namespace_quota event for greedy/c logged %d times, want once", n)
	}
	for series, want := range map[string]float64{`tgroup_nri_failures_total{reason="namespace_quota"}`: 3, "tgroup_nri_pending_containers": 3} {
		if got := counter(t, e.met, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	// a's pod goes: c (waiting longest) gets its group, d and n wait on
	_ = e.fs.setProcs("k8s.greedy.a", nil)
	e.rt.Remove(a)
	e.expect("k8s.greedy.c", "high", allMax, 6003)
	e.expect(over, "low", overLimit, 6004, 6006)
	// everything of greedy goes: the overflow group with the last group
	for _, c := range e.rt.ctrsOf("greedy") {
		gs, _ := e.fs.Groups() // its process exits
		for _, g := range gs {
			_ = e.fs.setProcs(g, slices.DeleteFunc(e.fs.procs(g), func(p uint64) bool { return uint32(p) == c.Pid }))
		}
		e.rt.Remove(c)
	}
	for _, g := range []string{"k8s.greedy.b", "k8s.greedy.c", "k8s.greedy.d", "k8s.greedy.n", over, "common"} {
		e.expectGone(g)
	}
	if got := e.plugin().Owned(); !slices.Equal(got, []string{"k8s.other._overflow", "k8s.other.x"}) {
		t.Errorf("owned groups %v, want other's only", got)
	}
}

// With a quota, the node's max_groups pool running out sends a
// namespace's new pods to its overflow group (made with its first group)
// rather than the root group; a namespace with no group yet gets none
// (the global max_groups behaviour: root group, pending).
func TestQuotaOverflowsOnMaxGroupsToo(t *testing.T) {
	e := newEnv(t, 3)
	e.setPolicy("namespaceQuota: {groups: 10}\n")
	e.rt.Connect(e.plugin())
	e.rt.Start(pod("one", "a", Guaranteed, nil), "c", 6201) // k8s.one._overflow, k8s.one.a
	e.rt.Start(pod("two", "b", Guaranteed, nil), "c", 6202) // k8s.two._overflow; k8s.two.b: ENOSPC
	e.rt.Start(pod("one", "c", Guaranteed, nil), "c", 6203) // ENOSPC
	e.rt.Start(pod("three", "d", Guaranteed, nil), "c", 6204)
	e.expect("k8s.one.a", "high", allMax, 6201)
	e.expect("k8s.one._overflow", "low", allMax, 6203)
	e.expect("k8s.two._overflow", "low", allMax, 6202)
	if gs, _ := e.fs.Groups(); len(gs) != 3 {
		t.Errorf("groups %v, want max_groups (3)", gs)
	}
	if e.log.has("EVENT max_groups: pod one/c", "runs in k8s.one._overflow, its namespace's overflow group") == "" {
		t.Error("the max_groups event does not say the pod runs in its overflow group")
	}
	if e.log.has("EVENT max_groups: pod three/d", "runs in the root group") == "" {
		t.Error("the max_groups event for a namespace with no group does not say the root group")
	}
}

// Overflow group names: one per namespace, never another namespace's
// group, within 64 bytes.
func TestOverflowGroupNames(t *testing.T) {
	long := strings.Repeat("n", 63)
	for ns, want := range map[string]string{"prod": "k8s.prod._overflow", long: ""} {
		got := OverflowGroup(ns)
		if !ValidGroupName(got) || (want != "" && got != want) || strings.HasPrefix(got, DefaultGroup(pod(ns, "x", Burstable, nil))) {
			t.Errorf("OverflowGroup(%q) = %q", ns, got)
		}
	}
	if a, b := OverflowGroup(long), OverflowGroup(long[1:]); a == b || !strings.HasPrefix(a, "k8s._overflow.") {
		t.Errorf("long namespaces' overflow groups %q, %q: want distinct k8s._overflow.<hash>", a, b)
	}
	for in, want := range map[string]string{"namespaceQuota: {groups: -1}": "namespaceQuota.groups -1",
		"namespaceQuota: {groups: 2, overflowLimit: x}": "namespaceQuota.overflowLimit", "namespaceQuota: {group: 2}": `unknown field "group"`} {
		if _, err := ParseConfig([]byte(in), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("policy %q: %v, want an error with %q", in, err, want)
		}
	}
}
