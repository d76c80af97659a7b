package tgnri

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/containerd/nri/pkg/api"
	"sigs.k8s.io/yaml"
)

// The tenant rules, the policy file and what the plugin reports: the
// fake runtime drives the real plugin over NRI, as in plugin_test.go.

// podL is pod with labels.
func podL(ns, name string, qos QoS, ann, labels map[string]string) *api.PodSandbox {
	p := pod(ns, name, qos, ann)
	p.Labels = labels
	return p
}

// waitFor polls cond for up to 10 s (a settle after Synchronize runs in
// the plugin's own goroutine).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
	}
}

// Two namespaces naming the same group get a group each: one tenant's
// limit cannot reach the other's processes.
func TestNamespacesCannotReachEachOthersGroups(t *testing.T) {
	e := newEnv(t, 256)
	e.rt.Connect(e.plugin())
	e.rt.Start(pod("prod", "db-0", Burstable, map[string]string{AnnGroup: "db"}), "pg", 2001)
	e.rt.Start(pod("evil", "x", Burstable, map[string]string{AnnGroup: "db", AnnLimit: "dram_rbps=1 nvm_wbps=1"}), "c", 2002)
	e.expect("k8s.prod.db", "low", allMax, 2001)
	e.expect("k8s.evil.db", "low", "dram_rbps=1 dram_wbps=max nvm_rbps=max nvm_wbps=1", 2002)
	e.expectGone("db")
}

// A node-wide group is joined only by the pods a rule shares it with (by
// namespace or by labels); another pod naming it is denied (logged once,
// counted) and gets its namespace's own group.
func TestSharedGroupOnlyByRule(t *testing.T) {
	e := newEnv(t, 256)
	e.met = NewMetrics()
	e.setPolicy(`
rules:
  - name: databases
    match: {namespaces: [prod, "analytics-*"]}
    allow: {sharedGroups: [db]}
  - name: web-cache
    match:
      namespaces: [shop]
      podSelector:
        matchExpressions: [{key: team, operator: In, values: [web, api]}]
    allow: {sharedGroups: [cache]}
`)
	e.rt.Connect(e.plugin())
	e.rt.Start(pod("prod", "a", Burstable, map[string]string{AnnGroup: "db"}), "c", 2101)
	e.rt.Start(pod("analytics-eu", "b", Burstable, map[string]string{AnnGroup: "db"}), "c", 2102)
	e.rt.Start(pod("evil", "c", Burstable, map[string]string{AnnGroup: "db", AnnLimit: "dram_rbps=1"}), "c", 2103)
	e.rt.Start(podL("shop", "w", Burstable, map[string]string{AnnGroup: "cache"}, map[string]string{"team": "web"}), "c", 2104)
	e.rt.Start(podL("shop", "v", Burstable, map[string]string{AnnGroup: "cache"}, map[string]string{"team": "db"}), "c", 2105)

	e.expect("db", "low", allMax, 2101, 2102) // evil's dram_rbps=1 never reached it
	e.expect("k8s.evil.db", "low", "dram_rbps=1 dram_wbps=max nvm_rbps=max nvm_wbps=max", 2103)
	e.expect("cache", "low", allMax, 2104)
	e.expect("k8s.shop.cache", "low", allMax, 2105)
	if n := e.log.count("DENIED pod evil/c", "node-wide group db is shared by rule databases", "using the namespace's own k8s.evil.db"); n != 1 {
		t.Errorf("the denial for evil/c logged %d times over StartContainer and PostStartContainer, want once", n)
	}
	if e.log.has("DENIED pod shop/v", "web-cache") == "" {
		t.Error("no denial logged for shop/v (labels do not match web-cache)")
	}
	if got := counter(t, e.met, `tgroup_nri_denials_total{reason="shared_group"}`); got != 2 {
		t.Errorf("shared_group denials counted %v, want 2", got)
	}
}

// A shared group's priority and limit are the policy's (the rule that
// shares it), never a pod's: a pod of one namespace that names a priority
// or limit on it is denied (logged once, counted) unless a rule's
// podSettings lets it, so no tenant changes what the others get; no pod's
// QoS default reaches it either.
func TestSharedGroupSettingsComeFromTheRule(t *testing.T) {
	e := newEnv(t, 256)
	e.met = NewMetrics()
	e.setPolicy(`
qosClasses:
  BestEffort: {limit: "dram_rbps=5G"}
rules:
  - name: databases
    match: {namespaces: [prod, "analytics-*"]}
    allow:
      sharedGroups:
        - {name: db, priority: high, limit: "nvm_wbps=2G"}
        - cache
  - name: prod-high
    match: {namespaces: [prod]}
    allow: {highPriority: true}
  - name: lab
    match: {namespaces: [lab]}
    allow: {sharedGroups: [{name: scratch, podSettings: true}, {name: nightly, limit: "nvm_rbps=3G"}]}
`)
	if err := e.fs.Mkdir("nightly"); err != nil { // an admin's: tgctl create nightly --priority high
		t.Fatal(err)
	}
	if err := e.fs.Write("nightly", "tgroup.priority", "high"); err != nil {
		t.Fatal(err)
	}
	e.rt.Connect(e.plugin())
	const dbLimit = "dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=2000000000"
	e.rt.Start(pod("prod", "pg", Burstable, map[string]string{AnnGroup: "db", AnnPriority: "low"}), "c", 2101)
	e.expect("db", "high", dbLimit, 2101)
	// another namespace's BestEffort pod: neither its limit annotation
	// nor its class's default limit reaches the shared group
	e.rt.Start(pod("analytics-x", "b", BestEffort, map[string]string{AnnGroup: "db", AnnLimit: "nvm_wbps=1 dram_rbps=1"}), "c", 2102)
	e.expect("db", "high", dbLimit, 2101, 2102)
	// a shared group the rule gives no settings: low, no limit, whatever
	// the pods' classes and annotations
	e.rt.Start(pod("prod", "g", Guaranteed, map[string]string{AnnGroup: "cache", AnnPriority: "high"}), "c", 2103)
	e.rt.Start(pod("analytics-y", "be", BestEffort, map[string]string{AnnGroup: "cache"}), "c", 2104)
	e.expect("cache", "low", allMax, 2103, 2104)
	if n := e.log.count("DENIED pod analytics-x/b", `tgroup.io/limit="nvm_wbps=1 dram_rbps=1": group db is shared by rule databases`); n != 1 {
		t.Errorf("the shared_group_settings denial for analytics-x/b logged %d times, want once", n)
	}
	if e.log.has("DENIED pod prod/g", `tgroup.io/priority="high": group cache is shared by rule databases`) == "" {
		t.Error("no denial for prod/g's priority on the shared group (highPriority alone is not podSettings)")
	}
	if got := counter(t, e.met, `tgroup_nri_denials_total{reason="shared_group_settings"}`); got != 3 {
		t.Errorf("shared_group_settings denials counted %v, want 3 (prod/pg, analytics-x/b, prod/g)", got)
	}
	if e.log.has("pod prod/pg", "-> group db", "priority high from rule databases's settings of shared group db") == "" {
		t.Error("the placement line does not say the priority came from the rule")
	}
	// podSettings: the pods may set it (the last one placed wins); high
	// still needs highPriority
	e.rt.Start(pod("lab", "a", Burstable, map[string]string{AnnGroup: "scratch", AnnLimit: "dram_wbps=1G"}), "c", 2105)
	e.expect("scratch", "low", "dram_rbps=max dram_wbps=1000000000 nvm_rbps=max nvm_wbps=max", 2105)
	e.rt.Start(pod("lab", "b", Burstable, map[string]string{AnnGroup: "scratch", AnnPriority: "high"}), "c", 2106)
	e.expect("scratch", "low", allMax, 2105, 2106)
	if e.log.has("DENIED pod lab/b", "no policy rule allows this pod priority high") == "" {
		t.Error("podSettings let a pod set high without highPriority")
	}
	// a group the plugin did not create: what the rule names is written
	// (the policy's, no unownedGroups needed), the rest is the admin's
	e.rt.Start(pod("lab", "n2", Guaranteed, map[string]string{AnnGroup: "nightly"}), "c", 2108)
	e.expect("nightly", "high", "dram_rbps=max dram_wbps=max nvm_rbps=3000000000 nvm_wbps=max", 2108)
}

// high only by a rule (namespace or labels): without one the pod starts
// with its QoS default, the denial logged and counted.
func TestHighPriorityOnlyByRule(t *testing.T) {
	e := newEnv(t, 256)
	e.met = NewMetrics()
	e.setPolicy(`
rules:
  - name: prod
    match: {namespaces: [prod]}
    allow: {highPriority: true}
  - name: latency-critical
    match:
      namespaces: [shop]
      podSelector: {matchLabels: {tier: frontend}}
    allow: {highPriority: true}
`)
	e.rt.Connect(e.plugin())
	high := map[string]string{AnnPriority: "high"}
	e.rt.Start(pod("prod", "a", BestEffort, high), "c", 2201)
	e.rt.Start(podL("shop", "fe", BestEffort, high, map[string]string{"tier": "frontend"}), "c", 2202)
	e.rt.Start(podL("shop", "be", BestEffort, high, map[string]string{"tier": "backend"}), "c", 2203)
	e.rt.Start(podL("other", "fe", BestEffort, high, map[string]string{"tier": "frontend"}), "c", 2204)
	e.rt.Start(pod("other", "g", Guaranteed, high), "c", 2205) // denied, but high by its QoS default

	e.expect("k8s.prod.a", "high", allMax, 2201)
	e.expect("k8s.shop.fe", "high", allMax, 2202)
	e.expect("k8s.shop.be", "low", allMax, 2203)
	e.expect("k8s.other.fe", "low", allMax, 2204)
	e.expect("k8s.other.g", "high", allMax, 2205)
	if e.log.has("DENIED pod shop/be", "tgroup.io/priority=high: no policy rule allows this pod priority high; using low (BestEffort default)") == "" {
		t.Error("no denial logged for shop/be")
	}
	if got := counter(t, e.met, `tgroup_nri_denials_total{reason="high_priority"}`); got != 3 {
		t.Errorf("high_priority denials counted %v, want 3 (shop/be, other/fe, other/g)", got)
	}
	if e.log.has("k8s.prod.a", "priority high from tgroup.io/priority (rule prod)") == "" {
		t.Error("the placement line does not name the rule that allowed high")
	}
}

// A group the plugin did not create keeps its settings unless a rule
// lets the pod write them: joining it is allowed (a rule shares it), the
// annotations are denied, logged once and counted.
func TestUnownedGroupSettingsOnlyByRule(t *testing.T) {
	e := newEnv(t, 256)
	e.met = NewMetrics()
	for _, g := range []string{"batch", "k8s.team.scratch"} { // tgctl create ... --priority high --limit dram_rbps=1G
		if err := e.fs.Mkdir(g); err != nil {
			t.Fatal(err)
		}
		if err := e.fs.Write(g, "tgroup.priority", "high"); err != nil {
			t.Fatal(err)
		}
		if err := e.fs.Write(g, "tgroup.limit", "dram_rbps=1000000000"); err != nil {
			t.Fatal(err)
		}
	}
	const admin = "dram_rbps=1000000000 dram_wbps=max nvm_rbps=max nvm_wbps=max"
	e.setPolicy(`
rules:
  - name: batch
    match: {namespaces: [team, jobs]}
    allow: {sharedGroups: [{name: batch, podSettings: true}]}
  - name: jobs-tune-batch
    match: {namespaces: [jobs]}
    allow: {unownedGroups: true}
`)
	e.rt.Connect(e.plugin())
	ann := map[string]string{AnnGroup: "batch", AnnPriority: "low", AnnLimit: "nvm_wbps=1"}
	e.rt.Start(pod("team", "a", BestEffort, ann), "c", 2301)
	e.expect("batch", "high", admin, 2301)
	// the namespace's own name, made by an admin: the same rule
	e.rt.Start(pod("team", "b", BestEffort, map[string]string{AnnGroup: "scratch", AnnLimit: "dram_rbps=1"}), "c", 2302)
	e.expect("k8s.team.scratch", "high", admin, 2302)
	if n := e.log.count("DENIED pod team/a", "group batch was not created by the plugin", `priority "low", limit "nvm_wbps=1"`); n != 1 {
		t.Errorf("the unowned-group denial for team/a logged %d times, want once", n)
	}
	if got := counter(t, e.met, `tgroup_nri_denials_total{reason="unowned_group"}`); got != 2 {
		t.Errorf("unowned_group denials counted %v, want 2", got)
	}
	// a rule allowing it: the named settings are written (only the keys named)
	e.rt.Start(pod("jobs", "c", BestEffort, ann), "c", 2303)
	e.expect("batch", "low", "dram_rbps=1000000000 dram_wbps=max nvm_rbps=max nvm_wbps=1", 2301, 2303)
	if e.exists("k8s.team.batch") || e.exists("k8s.jobs.batch") {
		t.Error("a shared group's pod got a namespace group too")
	}
}

// Which pods the plugin manages: kube-system is left alone by default;
// manage.namespaces, excludeNamespaces and podSelector select; a pod left
// alone is logged once and counted, and stays in the root group.
func TestManageFilters(t *testing.T) {
	e := newEnv(t, 256)
	e.met = NewMetrics()
	e.rt.Connect(e.plugin())
	e.rt.Start(pod("kube-system", "coredns", Burstable, nil), "c", 2401)
	e.rt.Start(pod("default", "web", Burstable, nil), "c", 2402)
	e.expectGone("k8s.kube-system.coredns")
	e.expect("k8s.default.web", "low", allMax, 2402)
	if got := e.fs.procs(""); len(got) != 0 {
		t.Errorf("root group %v: an unmanaged container is never written anywhere", got)
	}
	if n := e.log.count("pod kube-system/coredns container c: not managed (namespace kube-system excluded (manage.excludeNamespaces))"); n != 1 {
		t.Errorf("the unmanaged pod logged %d times, want once", n)
	}
	if got := counter(t, e.met, `tgroup_nri_unmanaged_containers_total{reason="namespace"}`); got != 1 {
		t.Errorf("unmanaged counted %v, want 1", got)
	}

	f := newEnv(t, 256)
	f.setPolicy(`
manage:
  namespaces: ["team-*", kube-system]
  excludeNamespaces: []
  podSelector:
    matchExpressions: [{key: tgroup.io/opt-out, operator: DoesNotExist}]
`)
	f.rt.Connect(f.plugin())
	f.rt.Start(pod("kube-system", "coredns", Burstable, nil), "c", 2411)
	f.rt.Start(pod("team-a", "x", Burstable, nil), "c", 2412)
	f.rt.Start(pod("default", "y", Burstable, nil), "c", 2413)
	f.rt.Start(podL("team-b", "z", Burstable, nil, map[string]string{"tgroup.io/opt-out": ""}), "c", 2414)
	f.expect("k8s.kube-system.coredns", "low", allMax, 2411)
	f.expect("k8s.team-a.x", "low", allMax, 2412)
	f.expectGone("k8s.default.y")
	f.expectGone("k8s.team-b.z")
	if f.log.has("pod team-b/z", "not managed (labels do not match manage.podSelector)") == "" {
		t.Error("the pod left alone by its labels is not logged")
	}
	// labels are the tenant's: the selector lets a tenant's pod opt out
	// (team-b/z above), said when the policy is loaded
	if f.log.has("WARNING policy: manage.podSelector: a pod's labels are set by whoever creates the pod") == "" {
		t.Error("no warning that manage.podSelector is tenant-controlled")
	}
	c, err := ParseConfig([]byte("rules: [{name: a, match: {namespaces: [\"team-*\", prod]}, allow: {highPriority: true}}]"), nil)
	if err != nil || len(c.Warnings()) != 1 || !strings.Contains(c.Warnings()[0], `pattern "team-*" also grants namespaces created later`) {
		t.Errorf("a rule granting to a namespace pattern: warnings %q (%v), want one naming the pattern", c.Warnings(), err)
	}
}

// qosClasses: the priority and limit of a pod that names none, by class;
// an annotation overrides; a default limit never goes into a group the
// plugin did not create.
func TestQoSClassDefaultsFromThePolicy(t *testing.T) {
	e := newEnv(t, 256)
	if err := e.fs.Mkdir("admin"); err != nil {
		t.Fatal(err)
	}
	e.setPolicy(`
qosClasses:
  Guaranteed: {priority: low}
  BestEffort: {limit: "nvm_wbps=1Gi dram_wbps=500M"}
rules:
  - {name: admin, match: {namespaces: [ns]}, allow: {sharedGroups: [admin], unownedGroups: true}}
`)
	e.rt.Connect(e.plugin())
	e.rt.Start(pod("ns", "g", Guaranteed, nil), "c", 2501)
	e.rt.Start(pod("ns", "be", BestEffort, nil), "c", 2502)
	e.rt.Start(pod("ns", "be2", BestEffort, map[string]string{AnnLimit: "dram_rbps=1G"}), "c", 2503)
	e.rt.Start(pod("ns", "be3", BestEffort, map[string]string{AnnGroup: "admin"}), "c", 2504)
	e.expect("k8s.ns.g", "low", allMax, 2501)
	e.expect("k8s.ns.be", "low", "dram_rbps=max dram_wbps=500000000 nvm_rbps=max nvm_wbps=1073741824", 2502)
	e.expect("k8s.ns.be2", "low", "dram_rbps=1000000000 dram_wbps=max nvm_rbps=max nvm_wbps=max", 2503)
	e.expect("admin", "low", allMax, 2504)
}

// Per-container annotations, after containers/nri-plugins and goresctrl:
// K.tgroup.io/container.<name> for one container, K.tgroup.io/pod for
// the pod. A container with a priority or limit of its own gets a group
// of its own.
func TestPerContainerAnnotations(t *testing.T) {
	e := newEnv(t, 256)
	e.rt.Connect(e.plugin())
	p := pod("ns", "web", Burstable, map[string]string{
		"limit.tgroup.io/pod":                "dram_rbps=2G",
		"limit.tgroup.io/container.logger":   "nvm_wbps=100M",
		"priority.tgroup.io/container.proxy": "low",
		"group.tgroup.io/container.proxy":    "edge",
		"group.tgroup.io/container.bad":      "a/b",
		"priority.tgroup.io/container.nope":  "low", // no such container: nothing
	})
	e.rt.Start(p, "app", 2601)
	e.rt.Start(p, "logger", 2602)
	e.rt.Start(p, "proxy", 2603)
	e.rt.Start(p, "bad", 2604)
	e.expect("k8s.ns.web", "low", "dram_rbps=2000000000 dram_wbps=max nvm_rbps=max nvm_wbps=max", 2601)
	e.expect("k8s.ns.web_logger", "low", "dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=100000000", 2602)
	e.expect("k8s.ns.edge", "low", "dram_rbps=2000000000 dram_wbps=max nvm_rbps=max nvm_wbps=max", 2603)
	e.expect("k8s.ns.web_bad", "low", "dram_rbps=2000000000 dram_wbps=max nvm_rbps=max nvm_wbps=max", 2604)
	if e.log.has("invalid annotation group.tgroup.io/container.bad=\"a/b\"", "using k8s.ns.web_bad") == "" {
		t.Error("the bad container-level group is not logged")
	}
	if gs, _ := e.fs.Groups(); len(gs) != 4 {
		t.Errorf("groups %v, want 4", gs)
	}
}

// The policy is parsed strictly: every mistake is an error naming it.
func TestPolicyParsing(t *testing.T) {
	good := `
manage:
  namespaces: [prod, "team-*"]
  excludeNamespaces: [kube-system, kube-public]
  podSelector: {matchLabels: {tgroup.io/managed: "true"}}
qosClasses:
  Guaranteed: {priority: high}
  Burstable: {priority: low, limit: "nvm_wbps=2Gi"}
  BestEffort: {limit: "dram_wbps=500M nvm_wbps=100M"}
  Unknown: {priority: low}
rules:
  - name: db
    match: {namespaces: [prod], podSelector: {matchLabels: {app: postgres}}}
    allow: {sharedGroups: [db, db-replica], highPriority: true, unownedGroups: true}
nodeConfig:
  period_ms: 10
  remedial: "1"
`
	c, err := ParseConfig([]byte(good), nil)
	if err != nil {
		t.Fatalf("a good policy: %v", err)
	}
	if c.nodeConfig != "period_ms=10 remedial=1" || c.qos[Burstable].limit[3] != 2<<30 || len(c.rules) != 1 || c.sharedBy["db-replica"][0] != "db" {
		t.Errorf("compiled: nodeConfig %q, Burstable limit %v, rules %d", c.nodeConfig, c.qos[Burstable].limit, len(c.rules))
	}
	if d, err := ParseConfig(nil, nil); err != nil || !slices.Equal(d.src.Manage.ExcludeNamespaces, []string{"kube-system"}) {
		t.Errorf("the empty policy: %v, excluded %v; want kube-system excluded", err, d.src.Manage.ExcludeNamespaces)
	}
	bad := map[string]string{
		"manage: {namespace: [x]}":                              `unknown field "namespace"`,
		"rules: []\nrules: []":                                  `"rules" already set`,
		"qosClasses: {Gold: {priority: high}}":                  "qosClasses.Gold: not a QoS class",
		"qosClasses: {Burstable: {priority: urgent}}":           "must be high or low",
		"qosClasses: {Burstable: {limit: cpu=1}}":               `unknown key "cpu"`,
		"manage: {namespaces: ['[']}":                           "not a name or pattern",
		"manage: {podSelector: {matchLabels: {'bad key!': x}}}": "manage.podSelector.matchLabels",
		"rules: [{name: r, match: {podSelector: {matchExpressions: [{key: a, operator: Near}]}}}]":            `operator "Near"`,
		"rules: [{name: r, match: {podSelector: {matchExpressions: [{key: a, operator: In}]}}}]":              "matchExpressions[0]",
		"rules: [{match: {namespaces: [a]}}]":                                                                 "rules[0]: no name",
		"rules: [{name: r}, {name: r}]":                                                                       "used twice",
		"rules: [{name: r, allow: {sharedGroups: [k8s.prod.db]}}]":                                            "the plugin's per-namespace groups",
		"rules: [{name: r, allow: {sharedGroups: [tgroup.config]}}]":                                          "not a group name",
		"rules: [{name: r, match: {namespaces: [a]}, allow: {sharedGroups: [{name: db, priority: urgent}]}}]": "db: priority \"urgent\"",
		"rules: [{name: r, match: {namespaces: [a]}, allow: {sharedGroups: [{name: db, limit: dram=1}]}}]":    "db: limit",
		"rules: [{name: r, match: {namespaces: [a]}, allow: {sharedGroups: [{name: db, podSetings: true}]}}]": `unknown field "podSetings"`,
		"rules: [{name: r, match: {namespaces: [a]}, allow: {sharedGroups: [{priority: high}]}}]":             `"" is not a group name`,
		"rules: [{name: r, match: {namespaces: [a]}, allow: {sharedGroups: [{name: db, priority: high}]}}, {name: s, match: {namespaces: [b]}, allow: {sharedGroups: [{name: db, priority: low}]}}]": `rule "r" gives the group other settings`,
		"rules: [{name: r, match: {podSelector: {matchLabels: {a: b}}}, allow: {highPriority: true}}]":                                                                                               `rule "r": grants by labels alone`,
		"rules: [{name: r, allow: {unownedGroups: true}}]":                                            `rule "r": grants by labels alone`,
		"rules: [{name: r, match: {podSelector: {matchLabels: {a: b}}}, allow: {sharedGroups: [x]}}]": `rule "r": grants by labels alone`,
		"nodeConfig: {period_ms: 1.5}":                                                                "not a whole number",
		"nodeConfig: {period_ms: [1]}":                                                                "not a number",
		"nodeConfig: {'a=b': 1}":                                                                      "not a tgroup.config key",
		"- a list":                                                                                    "policy",
	}
	for in, want := range bad {
		if _, err := ParseConfig([]byte(in), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("policy %q: error %v, want one with %q", in, err, want)
		}
	}
}

// nodeConfig is written to tgroup.config at each Configure; one the
// kernel refuses fails the registration with last_cmd_status; a policy the
// runtime hands over (a plugin it launched) wins over the file.
func TestConfigureWritesNodeConfigAndTakesTheRuntimesPolicy(t *testing.T) {
	e := newEnv(t, 256)
	e.setPolicy("nodeConfig: {period_ms: 20, remedial: 0}\n")
	e.rt.Connect(e.plugin())
	if got := e.file("", "tgroup.config"); !strings.Contains(got, "period_ms=20") || !strings.Contains(got, "remedial=0") {
		t.Errorf("tgroup.config %q after Configure", got)
	}

	p := e.plugin()
	p.ConfigFile = ""
	_, err := p.Configure(t.Context(), "nodeConfig: {period_ms: 10, nosuchkey: 1}\n", "containerd", "v2.1.4")
	if err == nil || !strings.Contains(err.Error(), "tgroup.config: unknown key or bad value: nosuchkey=1") {
		t.Errorf("a nodeConfig the kernel refuses: %v, want an error with last_cmd_status", err)
	}
	if got := e.file("", "tgroup.config"); !strings.Contains(got, "period_ms=20") {
		t.Errorf("tgroup.config %q changed by a refused write", got)
	}

	// the runtime's configuration (NRI Configure) over the file
	q := e.plugin()
	if _, err := q.Configure(t.Context(), "rules: [{name: all, match: {namespaces: [\"*\"]}, allow: {highPriority: true}}]\n", "containerd", "v2.1.4"); err != nil {
		t.Fatal(err)
	}
	if pol := PolicyFor(pod("ns", "p", BestEffort, map[string]string{AnnPriority: "high"}), "c", q.cfg); pol.Priority != "high" {
		t.Errorf("the runtime's policy not in force: priority %s, denials %v", pol.Priority, pol.Denials)
	}
	if e.log.has("configured by containerd v2.1.4: policy from the runtime's plugin configuration") == "" {
		t.Error("the configuration's source is not logged")
	}
	// a bad one with a good one before: the good one stays in force
	// (TestBadPolicyKeepsTheLastGoodOne); with none before: refused
	if _, err := q.Configure(t.Context(), "rules: {}\n", "containerd", "v2.1.4"); err != nil || q.cfg.rules[0].Name != "all" {
		t.Errorf("a bad runtime configuration after a good one: %v", err)
	}
	f := newEnv(t, 256)
	if _, err := f.plugin().Configure(t.Context(), "rules: {}\n", "containerd", "v2.1.4"); err == nil {
		t.Error("a bad runtime configuration accepted with no good one before")
	}
}

// A policy that stops parsing (a ConfigMap edited by hand: no rollout
// checks it) leaves the last good one in force, across a restart too (it
// is kept next to the state file): pods are placed by the old rules, the
// plugin is not ready and says why, counted; fixed, it is ready again.
func TestBadPolicyKeepsTheLastGoodOne(t *testing.T) {
	e := newEnv(t, 256)
	e.met = NewMetrics()
	e.setPolicy("rules: [{name: prod, match: {namespaces: [prod]}, allow: {highPriority: true}}]\n")
	stop := e.rt.Connect(e.plugin())
	e.rt.Start(pod("prod", "a", BestEffort, map[string]string{AnnPriority: "high"}), "c", 7001)
	e.expect("k8s.prod.a", "high", allMax, 7001)
	stop()
	if err := os.WriteFile(e.policy, []byte("rules: [{name: prod, match: {namespaces: [prod]}, allow: {hihgPriority: true}}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := e.plugin() // a new process: the last good policy from the disk
	stop = e.rt.Connect(p)
	e.rt.Start(pod("prod", "b", BestEffort, map[string]string{AnnPriority: "high"}), "c", 7002)
	e.expect("k8s.prod.b", "high", allMax, 7002)
	if why := p.NotReady(); !strings.Contains(why, "the policy does not parse (running with the last good one)") || !strings.Contains(why, `unknown field "hihgPriority"`) {
		t.Errorf("NotReady %q", why)
	}
	if e.log.has("POLICY", `unknown field "hihgPriority"`, "keeping the last good policy ("+LastGoodPath(e.state)+")") == "" {
		t.Error("no line saying the bad policy is not used")
	}
	for series, want := range map[string]float64{`tgroup_nri_failures_total{reason="config"}`: 1, "tgroup_nri_ready": 0} {
		if got := counter(t, e.met, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	stop()
	if err := os.WriteFile(e.policy, nil, 0o644); err != nil { // fixed: the defaults
		t.Fatal(err)
	}
	p = e.plugin()
	e.rt.Connect(p)
	if why := p.NotReady(); why != "" {
		t.Errorf("NotReady %q with a good policy", why)
	}
	e.rt.Start(pod("prod", "c", BestEffort, map[string]string{AnnPriority: "high"}), "c", 7003)
	e.expect("k8s.prod.c", "low", allMax, 7003)
}

// A runtime that sends no container pid is refused at once, clearly and
// once: by its version (CRI-O before 1.36), or by the first event that
// has no pid; the plugin is then not ready and places nothing.
func TestRuntimeWithoutPidIsRefused(t *testing.T) {
	for rt, want := range map[string]bool{"cri-o 1.35.2": true, "cri-o v1.29.0": true, "cri-o 1.36.0": false, "cri-o 1.40.1-dev": false,
		"cri-o 2.0.0": false, "containerd v2.1.4": false, "containerd 1.7.0": false, "cri-o garbage": false} {
		n, v, _ := strings.Cut(rt, " ")
		if got := RuntimeSendsNoPid(n, v) != ""; got != want {
			t.Errorf("RuntimeSendsNoPid(%s) refused=%v, want %v", rt, got, want)
		}
	}

	e := newEnv(t, 256)
	e.met = NewMetrics()
	p := e.plugin()
	_, err := p.Configure(t.Context(), "", "cri-o", "1.35.2")
	if err == nil || !strings.Contains(err.Error(), "sends no container pid") {
		t.Errorf("Configure by cri-o 1.35.2: %v", err)
	}
	select {
	case <-p.Refused():
	default:
		t.Error("Refused() not closed")
	}
	_, _ = p.Configure(t.Context(), "", "cri-o", "1.35.2") // a second try: no second line
	if n := e.log.count("REFUSED: cri-o 1.35.2 sends no container pid"); n != 1 {
		t.Errorf("the refusal logged %d times, want once", n)
	}
	if why := p.NotReady(); !strings.Contains(why, "refused") {
		t.Errorf("NotReady %q", why)
	}

	// an unknown runtime that sends no pid: refused at its third
	// container without one (not at the first: one odd event is no verdict)
	f := newEnv(t, 256)
	f.met = NewMetrics()
	q := f.plugin()
	f.rt.Connect(q)
	for i, name := range []string{"nopid1", "nopid2", "nopid3", "nopid4"} {
		select {
		case <-q.Refused():
			if i < noPidRefuseAfter {
				t.Errorf("refused after %d containers without a pid, want %d", i, noPidRefuseAfter)
			}
		default:
			if i >= noPidRefuseAfter {
				t.Errorf("not refused after %d containers without a pid", i)
			}
		}
		f.rt.Start(pod("ns", name, Burstable, nil), "c", 0)
	}
	if n := f.log.count("REFUSED: fake-runtime 0.1 sent start events for 3 containers without a pid (the last: StartContainer for pod ns/nopid3 container c) and none with one"); n != 1 {
		t.Errorf("refusal lines %d, want 1 (%q)", n, f.log.has("REFUSED"))
	}
	if f.log.has("StartContainer: pod ns/nopid1 container c: no pid from fake-runtime 0.1: not placed (1 of 3") == "" {
		t.Error("the first container without a pid is not logged")
	}
	if gs, _ := f.fs.Groups(); len(gs) != 0 {
		t.Errorf("groups %v made for a refused runtime", gs)
	}

	// a runtime that sends pids: a container without one (it exited at
	// once, say) is placed by its cgroup, never a refusal
	h := newEnv(t, 256)
	next := uint32(7101)
	h.rt.started = func(c *api.Container, pid uint32) {
		if pid == 0 {
			pid = next // its process, in its cgroup
		}
		next++
		h.cgroup(c, pid)
	}
	r := h.plugin()
	h.rt.Connect(r)
	h.rt.Start(pod("ns", "a", Burstable, nil), "c", 7101)
	for _, n := range []string{"b", "c", "d"} {
		h.rt.Start(pod("ns", n, Burstable, nil), "c", 0)
	}
	select {
	case <-r.Refused():
		t.Error("a runtime that sent pids was refused")
	default:
	}
	h.expect("k8s.ns.a", "low", allMax, 7101)
	h.expect("k8s.ns.b", "low", allMax, 7102)
	h.expect("k8s.ns.d", "low", allMax, 7104)
	if h.log.has("pod ns/b container c: no pid from fake-runtime 0.1: placed by its cgroup alone") == "" {
		t.Error("the container without a pid is not logged")
	}
}

// A container the runtime starts while the plugin synchronizes gets no
// event (the plugin is not registered yet, and the sync reported it as
// created): the settle after Synchronize finds its processes in its
// cgroup and places it. As containerd does it: CRI's CreateContainer
// makes no task (no cgroup, no pid: CREATED in the snapshot); its
// StartContainer creates the task (runc create: the cgroup, runc init in
// it), calls NRI's StartContainer, then starts the workload, which forks.
// A container whose task exists at the snapshot (runc init waiting in its
// cgroup, the CRI state still CREATED) is placed by the settle at its
// first look, before its workload runs, as StartContainer would place it.
func TestContainerStartedDuringSynchronizeIsPlaced(t *testing.T) {
	e := newEnv(t, 256)
	p := pod("ns", "racer", Burstable, nil)
	c := e.rt.addCreated(p, "c")
	e.rt.duringSync = func() {
		e.cgroup(c, 2701) // runc create
		c.Pid = 2701
		if err := e.rt.nri.StartContainer(context.Background(), &api.StartContainerRequest{Pod: p, Container: c}); err != nil {
			t.Error(err)
		}
		e.cgroup(c, 2701, 2702) // the workload runs and forks
		c.State = api.ContainerState_CONTAINER_RUNNING
	}
	e.rt.Connect(e.plugin())
	e.rt.duringSync = nil
	// the placement's log line is its last step
	waitFor(t, "the container started during Synchronize placed", func() bool {
		return e.log.has("Synchronize (created during the sync): pod ns/racer container c pid 0 -> group k8s.ns.racer (2 processes") != ""
	})
	e.expect("k8s.ns.racer", "low", allMax, 2701, 2702)

	// its task made, runc init waiting (CREATED at the snapshot): placed
	// at the settle's first look
	w := pod("ns", "waiting", Burstable, nil)
	wc := e.rt.addCreated(w, "c")
	e.cgroup(wc, 2711)
	// created and never started: no task, no cgroup; forgotten after the
	// last look, no group
	q := pod("ns", "idle", Burstable, nil)
	e.rt.addCreated(q, "c")
	pl := e.plugin()
	e.rt.Connect(pl)
	waitFor(t, "the settle's last look", func() bool {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		return len(pl.unsettled) == 0
	})
	e.expect("k8s.ns.waiting", "low", allMax, 2711)
	if e.exists("k8s.ns.idle") {
		t.Error("a created, never started container got a group")
	}
}

// A restart with a policy that no longer manages a namespace: its group's
// processes go back to the root group and the group is removed.
func TestSyncEmptiesGroupsThePolicyNoLongerManages(t *testing.T) {
	e := newEnv(t, 256)
	stop := e.rt.Connect(e.plugin())
	e.rt.Start(pod("team", "a", Burstable, nil), "c", 2801)
	e.rt.Start(pod("keep", "b", Burstable, nil), "c", 2802)
	e.expect("k8s.team.a", "low", allMax, 2801)
	stop()
	e.setPolicy("manage: {excludeNamespaces: [kube-system, team]}\n")
	e.rt.Connect(e.plugin())
	e.expectGone("k8s.team.a")
	e.expect("k8s.keep.b", "low", allMax, 2802)
	if got := e.fs.procs(""); !slices.Equal(got, []uint64{2801}) {
		t.Errorf("root group %v, want the unmanaged pod's process back there", got)
	}
}

// /metrics, /healthz, /readyz.
func TestMetricsAndHealth(t *testing.T) {
	e := newEnv(t, 2)
	e.met = NewMetrics()
	p := e.plugin()
	srv := httptest.NewServer(p.Handler(e.met))
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		r, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(b)
	}
	if code, body := get("/readyz"); code != 503 || !strings.Contains(body, "not synchronized") {
		t.Errorf("/readyz before the runtime: %d %q", code, body)
	}
	e.rt.Connect(p)
	if code, _ := get("/readyz"); code != 200 {
		t.Errorf("/readyz after Synchronize: %d", code)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("/healthz: %d", code)
	}
	a := pod("ns", "a", Burstable, map[string]string{AnnPriority: "high", AnnLimit: "x"})
	ca := e.rt.Start(a, "app", 2901)
	e.rt.Start(pod("ns", "b", Burstable, nil), "c", 2902)
	e.rt.Start(pod("ns", "c", Burstable, nil), "c", 2903) // max_groups (2)
	for metric, want := range map[string]float64{
		`tgroup_nri_placements_total{event="StartContainer"}`:           2,
		`tgroup_nri_placements_total{event="PostStartContainer"}`:       2,
		`tgroup_nri_denials_total{reason="high_priority"}`:              1,
		`tgroup_nri_failures_total{reason="invalid_annotation"}`:        1,
		`tgroup_nri_failures_total{reason="max_groups"}`:                1,
		`tgroup_nri_groups_owned`:                                       2,
		`tgroup_nri_pending_containers`:                                 1,
		`tgroup_nri_ready`:                                              1,
		`tgroup_nri_runtime_info{runtime="fake-runtime",version="0.1"}`: 1,
		`tgroup_nri_container_info{container="app",group="k8s.ns.a",namespace="ns",pod="a",pod_uid="` + a.Uid + `"}`: 1,
	} {
		if got := counter(t, e.met, metric); got != want {
			t.Errorf("%s = %v, want %v", metric, got, want)
		}
	}
	_, body := get("/metrics")
	if !strings.Contains(body, "# TYPE tgroup_nri_container_info gauge") || !strings.Contains(body, "go_goroutines") {
		t.Errorf("/metrics lacks the info series' TYPE line or Go's metrics")
	}
	_ = e.fs.setProcs("k8s.ns.a", nil)
	e.rt.Remove(ca)
	if strings.Contains(scrape(t, e.met), `group="k8s.ns.a"`) {
		t.Error("the removed container's info series is still there")
	}
	if got := counter(t, e.met, `tgroup_nri_pending_containers`); got != 0 {
		t.Errorf("pending %v after a group freed, want 0", got)
	}

	// liveness: a plugin whose lock stays taken is not alive
	rec := httptest.NewRecorder()
	p.mu.Lock()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	p.Handler(nil).ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil).WithContext(ctx))
	cancel()
	p.mu.Unlock()
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), "held too long") {
		t.Errorf("/healthz with the lock held: %d %q, want 503", rec.Code, rec.Body.String())
	}
	p.Disconnected() // main's OnClose: the runtime went away
	if code, _ := get("/readyz"); code != 503 {
		t.Errorf("/readyz after the connection closed: %d", code)
	}
}

func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	(&Plugin{}).Handler(m).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

// counter is the value of one series in the text exposition (-1 if absent).
func counter(t *testing.T, m *Metrics, series string) float64 {
	t.Helper()
	for _, l := range strings.Split(scrape(t, m), "\n") {
		if v, ok := strings.CutPrefix(l, series+" "); ok {
			var f float64
			if _, err := fmt.Sscan(v, &f); err == nil {
				return f
			}
		}
	}
	return -1
}

// docs/kubernetes.md, for the tests that check what it shows.
func kubernetesDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "kubernetes.md"))
	if err != nil {
		t.Skipf("docs/kubernetes.md: %v (the repository's test, not the guest's)", err)
	}
	return string(b)
}

// yamlBlock is the first ```yaml block after the line starting with
// marker in doc.
func yamlBlock(t *testing.T, doc, marker string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+marker)
	if i < 0 {
		t.Fatalf("docs/kubernetes.md: no %q", marker)
	}
	rest := doc[i:]
	a := strings.Index(rest, "```yaml\n")
	if a < 0 {
		t.Fatalf("docs/kubernetes.md: no yaml block after %q", marker)
	}
	rest = rest[a+len("```yaml\n"):]
	return rest[:strings.Index(rest, "```")]
}

// The policy example of docs/kubernetes.md "The policy" is a policy the
// plugin accepts, with the settings it says.
func TestDocsPolicyExample(t *testing.T) {
	c, err := ParseConfig([]byte(yamlBlock(t, kubernetesDoc(t), "## The policy")), nil)
	if err != nil {
		t.Fatalf("the documented policy: %v", err)
	}
	if c.quota.groups != 32 || c.rescan != time.Second || c.shared["db"].priority != "high" || !c.shared["db"].limitNamed[3] ||
		c.shared["cache"].priority != "low" || c.nodeConfig != "period_ms=10 remedial=1" {
		t.Errorf("the documented policy compiled to quota %d, rescan %v, db %+v, cache %+v, nodeConfig %q", c.quota.groups, c.rescan, c.shared["db"], c.shared["cache"], c.nodeConfig)
	}
}

// docs/kubernetes.md's worked example: its values' policy (read from the
// doc) and its pods, the files and the denial line it shows.
func TestWorkedExample(t *testing.T) {
	doc := kubernetesDoc(t)
	var values struct {
		NRI struct {
			Policy map[string]any `json:"policy"`
		} `json:"nri"`
	}
	if err := yaml.Unmarshal([]byte(yamlBlock(t, doc, "**3. The policy and the chart.**")), &values); err != nil {
		t.Fatal(err)
	}
	policy, err := yaml.Marshal(values.NRI.Policy)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, 256)
	e.setPolicy(string(policy))
	e.rt.Connect(e.plugin())
	e.rt.Start(podL("prod", "db-0", Guaranteed, map[string]string{AnnGroup: "db"}, map[string]string{"tier": "db"}), "postgres", 3001)
	e.rt.Start(pod("batch", "etl", BestEffort, map[string]string{AnnPriority: "high", AnnLimit: "nvm_wbps=500M dram_rbps=2Gi"}), "job", 3002)
	e.expect("db", "high", allMax, 3001)
	e.expect("k8s.batch.etl", "low", "dram_rbps=2147483648 dram_wbps=max nvm_rbps=max nvm_wbps=500000000", 3002)
	// the listing the doc shows: grep . */tgroup.priority */tgroup.limit
	gs, _ := e.fs.Groups()
	var listing []string
	for _, f := range []string{"tgroup.priority", "tgroup.limit"} {
		for _, g := range gs {
			listing = append(listing, "    "+g+"/"+f+":"+e.file(g, f))
		}
	}
	if want := strings.Join(listing, "\n") + "\n"; !strings.Contains(doc, "grep . */tgroup.priority */tgroup.limit'\n"+want+"\n") {
		t.Errorf("docs/kubernetes.md does not show the groups as the plugin makes them; they are:\n%s", want)
	}
	denial := "DENIED pod batch/etl container job: tgroup.io/priority=high: no policy rule allows this pod priority high; using low (BestEffort default)"
	if e.log.has(denial) == "" || !strings.Contains(doc, "    ... "+denial+"\n") {
		t.Error("the worked example's denial line is not logged as the doc shows it")
	}
	e.rt.Start(pod("batch", "sneaky", BestEffort, map[string]string{AnnGroup: "db"}), "c", 3003)
	// naming db from batch: its namespace's own, and a denial
	e.expect("k8s.batch.db", "low", "dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=1000000000", 3003)
	e.expect("db", "high", allMax, 3001)
	if e.log.has("DENIED pod batch/sneaky", "shared by rule prod-databases") == "" {
		t.Error("no shared_group denial for batch/sneaky")
	}
}

// A container placed by the settle has no pid in the sync's data; left
// out by max_groups, its retry when a group frees places it (and is no
// "event without a pid": the runtime is not refused).
func TestSettledContainerRetriedAfterMaxGroups(t *testing.T) {
	e := newEnv(t, 1)
	a := pod("ns", "a", Burstable, nil)
	b := pod("ns", "b", Burstable, nil)
	stop := e.rt.Connect(e.plugin())
	ca := e.rt.Start(a, "c", 3101)
	stop()
	cb := e.rt.addCreated(b, "c")
	e.rt.duringSync = func() {
		cb.Pid = 3102
		e.cgroup(cb, 3102)
		cb.State = api.ContainerState_CONTAINER_RUNNING
	}
	p := e.plugin()
	e.rt.Connect(p)
	e.rt.duringSync = nil
	waitFor(t, "the settle reaching max_groups", func() bool { return e.log.has("EVENT max_groups", "pod ns/b") != "" })
	_ = e.fs.setProcs("k8s.ns.a", nil)
	e.rt.Remove(ca)
	e.expect("k8s.ns.b", "low", allMax, 3102)
	select {
	case <-p.Refused():
		t.Errorf("the runtime was refused: %s", e.log.has("REFUSED"))
	default:
	}
}
