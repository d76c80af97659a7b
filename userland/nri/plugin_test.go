package tgnri

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/containerd/nri/pkg/api"
)

const allMax = "dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=max"

// env: a fake runtime, a stand-in mount, a state file, a directory laid
// out like the host's cgroup v2 mount, the policy file, and the plugin's log.
type env struct {
	t      *testing.T
	rt     *fakeRuntime
	fs     *standin
	state  string
	log    *logBuf
	cg     string // the cgroup mount stand-in
	proc   string // the /proc stand-in
	policy string // the policy file ("" = none)
	met    *Metrics
}

func newEnv(t *testing.T, maxGroups int) *env {
	e := &env{t: t, rt: newFakeRuntime(t), fs: newStandin(t, maxGroups),
		state: filepath.Join(t.TempDir(), "groups"), log: newLogBuf(t), cg: t.TempDir(), proc: t.TempDir()}
	if err := os.WriteFile(filepath.Join(e.cg, "cgroup.controllers"), []byte("cpu memory pids\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// runc makes the container's cgroup with its init in it; it goes
	// when the container stops
	e.rt.started = func(c *api.Container, pid uint32) { e.cgroup(c, pid); e.procStat(pid, 1000+uint64(pid)) }
	e.rt.removed = func(c *api.Container) { _ = os.RemoveAll(e.cgDir(c)) }
	return e
}

// plugin is a fresh tgroup-nri process, as after a (re)start. Its
// periodic rescan is off (the tests that need it call rescan or turn it
// on): a test's cgroup edits are then moved only where it says so.
func (e *env) plugin() *Plugin {
	return &Plugin{FS: e.fs, Cgroups: Cgroups{Root: e.cg, Proc: e.proc}, StatePath: e.state, Logf: e.log.logf,
		ConfigFile: e.policy, Metrics: e.met, RescanInterval: -1,
		SettleDelays: []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond, 160 * time.Millisecond, 320 * time.Millisecond}}
}

// setPolicy writes the policy file plugins started from now on read.
func (e *env) setPolicy(yaml string) {
	e.t.Helper()
	e.policy = filepath.Join(e.t.TempDir(), "config.yaml")
	if err := os.WriteFile(e.policy, []byte(yaml), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// cgDir is container c's cgroup directory in the stand-in.
func (e *env) cgDir(c *api.Container) string {
	e.t.Helper()
	rel, err := CgroupRelPath(c.GetLinux().GetCgroupsPath())
	if err != nil {
		e.t.Fatal(err)
	}
	return filepath.Join(e.cg, rel)
}

// cgroup sets the processes container c's cgroup lists.
func (e *env) cgroup(c *api.Container, pids ...uint32) {
	e.t.Helper()
	var b strings.Builder
	for _, p := range pids {
		b.WriteString(strconv.FormatUint(uint64(p), 10) + "\n")
	}
	if err := os.MkdirAll(e.cgDir(c), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.cgDir(c), "cgroup.procs"), []byte(b.String()), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// procStat writes /proc/<pid>/stat in the stand-in: a process with start
// time start (its command has parentheses and spaces, as a command may).
func (e *env) procStat(pid uint32, start uint64) {
	e.t.Helper()
	dir := filepath.Join(e.proc, strconv.FormatUint(uint64(pid), 10))
	line := fmt.Sprintf("%d (a) b (c)) S 1 %d %d 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 %d 1000 100 18446744073709551615\n", pid, pid, pid, start)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) file(group, f string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.fs.Root, group, f))
	if err != nil {
		e.t.Fatalf("group %s: %v", group, err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

func (e *env) exists(group string) bool {
	_, err := os.Stat(filepath.Join(e.fs.Root, group))
	return err == nil
}

// expect asserts a group's priority, limit file and processes.
func (e *env) expect(group, prio, limit string, pids ...uint64) {
	e.t.Helper()
	if !e.exists(group) {
		gs, _ := e.fs.Groups()
		e.t.Fatalf("group %s does not exist (groups: %v)", group, gs)
	}
	if got := e.file(group, "tgroup.priority"); got != prio {
		e.t.Errorf("group %s: priority %q, want %q", group, got, prio)
	}
	if got := e.file(group, "tgroup.limit"); got != limit {
		e.t.Errorf("group %s: limit %q, want %q", group, got, limit)
	}
	if got := e.fs.procs(group); !slices.Equal(got, pids) {
		e.t.Errorf("group %s: cgroup.procs %v, want %v", group, got, pids)
	}
}

func (e *env) expectGone(group string) {
	e.t.Helper()
	if e.exists(group) {
		e.t.Errorf("group %s still exists", group)
	}
}

func TestPodsWithoutAnnotationsGetTheirQoSDefault(t *testing.T) {
	e := newEnv(t, 256)
	e.rt.Connect(e.plugin())
	e.rt.Start(pod("prod", "db-0", Guaranteed, nil), "db", 101)
	e.rt.Start(pod("prod", "web-1", Burstable, nil), "nginx", 102)
	e.rt.Start(pod("batch", "etl", BestEffort, nil), "job", 103)
	e.rt.Start(pod("x", "no-cgroup-parent", "", nil), "c", 104)

	e.expect("k8s.prod.db-0", "high", allMax, 101)
	e.expect("k8s.prod.web-1", "low", allMax, 102)
	e.expect("k8s.batch.etl", "low", allMax, 103)
	e.expect("k8s.x.no-cgroup-parent", "low", allMax, 104)
	if got := e.fs.procs(""); len(got) != 0 {
		t.Errorf("root group holds %v, want every pid moved out", got)
	}
	if l := e.log.has("k8s.prod.db-0", "priority high from default (Guaranteed)"); l == "" {
		t.Error("no log line saying where db-0's priority came from")
	}
}

func TestAnnotationsSetGroupPriorityAndLimit(t *testing.T) {
	e := newEnv(t, 256)
	e.setPolicy("rules:\n- name: prod-high\n  match: {namespaces: [prod]}\n  allow: {highPriority: true}\n")
	e.rt.Connect(e.plugin())
	ann := map[string]string{AnnGroup: "db", AnnPriority: "low", AnnLimit: "dram_rbps=1G nvm_wbps=2.5GB/s"}
	e.rt.Start(pod("prod", "db-0", Guaranteed, ann), "postgres", 201)
	// the limit in bytes/s: 1G = 10^9, 2.5GB/s = 2.5 * 10^9 (SI, docs/tgctl.md);
	// the group in the pod's namespace
	e.expect("k8s.prod.db", "low", "dram_rbps=1000000000 dram_wbps=max nvm_rbps=max nvm_wbps=2500000000", 201)

	ann2 := map[string]string{AnnPriority: "high", AnnLimit: "nvm_rbps=1.5GiB/s dram_wbps=5e8 nvm_wbps=1Ki"}
	e.rt.Start(pod("prod", "cache", BestEffort, ann2), "redis", 202)
	// 1.5 GiB = 1.5 * 2^30 = 1610612736; 5e8 (a Kubernetes quantity); 1Ki = 1024
	e.expect("k8s.prod.cache", "high", "dram_rbps=max dram_wbps=500000000 nvm_rbps=1610612736 nvm_wbps=1024", 202)
}

func TestBadAnnotationsStartThePodWithTheDefault(t *testing.T) {
	cases := []struct {
		name        string
		ann         map[string]string
		qos         QoS
		group, prio string
		limit       string
		logged      []string
	}{
		{"group with slash", map[string]string{AnnGroup: "a/b"}, Guaranteed, "k8s.ns.p", "high", allMax,
			[]string{`tgroup.io/group="a/b"`, "not a group name", "using k8s.ns.p"}},
		{"group too long", map[string]string{AnnGroup: strings.Repeat("g", 65)}, Burstable, "k8s.ns.p", "low", allMax,
			[]string{"tgroup.io/group", "not a group name"}},
		{"priority word", map[string]string{AnnPriority: "urgent"}, Guaranteed, "k8s.ns.p", "high", allMax,
			[]string{`tgroup.io/priority="urgent"`, "must be high or low", "using high (Guaranteed default)"}},
		{"limit unknown key", map[string]string{AnnLimit: "cpu=1G", AnnPriority: "low"}, Guaranteed, "k8s.ns.p", "low", allMax,
			[]string{`tgroup.io/limit="cpu=1G"`, `unknown key "cpu"`, "using no limit"}},
		{"limit fraction of a byte", map[string]string{AnnLimit: "dram_rbps=1.5"}, Burstable, "k8s.ns.p", "low", allMax,
			[]string{"dram_rbps=1.5", "not a whole number of bytes"}},
		{"limit in millibytes", map[string]string{AnnLimit: "dram_rbps=1500m"}, Burstable, "k8s.ns.p", "low", allMax,
			[]string{"dram_rbps=1500m", "not a whole number of bytes"}},
		{"limit overflow", map[string]string{AnnLimit: "nvm_wbps=18446744073709551615"}, Burstable, "k8s.ns.p", "low", allMax,
			[]string{"nvm_wbps", "out of range"}},
		{"limit negative", map[string]string{AnnLimit: "nvm_wbps=-1"}, Burstable, "k8s.ns.p", "low", allMax,
			[]string{"nvm_wbps=-1", "not a size"}},
		{"limit twice", map[string]string{AnnLimit: "dram_rbps=1G dram_rbps=2G"}, Burstable, "k8s.ns.p", "low", allMax,
			[]string{"dram_rbps given twice"}},
		{"limit empty", map[string]string{AnnLimit: " "}, Burstable, "k8s.ns.p", "low", allMax,
			[]string{"tgroup.io/limit", "empty"}},
		{"all bad, valid group kept", map[string]string{AnnGroup: "shared", AnnPriority: "HIGH", AnnLimit: "dram_rbps"}, BestEffort,
			"k8s.ns.shared", "low", allMax, []string{`"dram_rbps" is not key=value`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, 256)
			e.rt.Connect(e.plugin())
			e.rt.Start(pod("ns", "p", c.qos, c.ann), "c", 300) // fails the test if the pod does not start
			e.expect(c.group, c.prio, c.limit, 300)
			if l := e.log.has(append([]string{"pod ns/p: invalid annotation"}, c.logged...)...); l == "" {
				t.Errorf("no log line with %q", c.logged)
			}
		})
	}
}

func TestStartAndPostStartAreIdempotent(t *testing.T) {
	e := newEnv(t, 256)
	e.rt.Connect(e.plugin())
	p := pod("ns", "twice", Guaranteed, nil)
	c := e.rt.Start(p, "c", 401) // StartContainer then PostStartContainer
	// the runtime's events again (a replayed or duplicated event)
	if err := e.rt.nri.PostStartContainer(t.Context(), &api.PostStartContainerRequest{Pod: p, Container: c}); err != nil {
		t.Fatal(err)
	}
	e.expect("k8s.ns.twice", "high", allMax, 401)
	if gs, _ := e.fs.Groups(); len(gs) != 1 {
		t.Errorf("groups %v, want one", gs)
	}
}

// A plugin that connects between a container's StartContainer and its
// PostStartContainer: the runtime's Synchronize still reports the
// container as created (not placed: not running yet), PostStartContainer
// places it.
func TestPostStartPlacesAContainerStartedBeforeTheConnect(t *testing.T) {
	e := newEnv(t, 256)
	p := pod("ns", "late", Guaranteed, nil)
	c := e.rt.addCreated(p, "c")
	c.Pid = 601
	e.rt.Connect(e.plugin())
	if e.exists("k8s.ns.late") {
		t.Fatal("Synchronize placed a container that is not running")
	}
	c.State = api.ContainerState_CONTAINER_RUNNING
	if err := e.rt.nri.PostStartContainer(t.Context(), &api.PostStartContainerRequest{Pod: p, Container: c}); err != nil {
		t.Fatal(err)
	}
	e.expect("k8s.ns.late", "high", allMax, 601)
}

func TestLastContainerRemovesTheGroup(t *testing.T) {
	e := newEnv(t, 256)
	e.rt.Connect(e.plugin())
	p := pod("ns", "two", Burstable, nil)
	a := e.rt.Start(p, "app", 501)
	b := e.rt.Start(p, "sidecar", 502)
	e.expect("k8s.ns.two", "low", allMax, 501, 502)

	// the container's processes exit when it stops: the kernel takes them
	// out of the group before RemoveContainer
	_ = e.fs.setProcs("k8s.ns.two", []uint64{502})
	e.rt.Remove(a)
	e.expect("k8s.ns.two", "low", allMax, 502)

	_ = e.fs.setProcs("k8s.ns.two", nil)
	e.rt.Remove(b)
	e.expectGone("k8s.ns.two")
	if got := e.plugin().Owned(); len(got) != 0 { // a new process reads the state file
		t.Errorf("state file still names %v", got)
	}
}

func TestSharedGroupStaysUntilItsLastPodAndAdminGroupsStay(t *testing.T) {
	e := newEnv(t, 256)
	if err := e.fs.Mkdir("admin"); err != nil { // made by hand before the plugin ran
		t.Fatal(err)
	}
	e.setPolicy("rules:\n- name: ns-admin\n  match: {namespaces: [ns]}\n  allow: {sharedGroups: [admin]}\n")
	e.rt.Connect(e.plugin())
	a := e.rt.Start(pod("ns", "a", Burstable, map[string]string{AnnGroup: "db"}), "c", 601)
	b := e.rt.Start(pod("ns", "b", Burstable, map[string]string{AnnGroup: "db"}), "c", 602)
	c := e.rt.Start(pod("ns", "c", Guaranteed, map[string]string{AnnGroup: "admin"}), "c", 603)
	e.expect("k8s.ns.db", "low", allMax, 601, 602)
	e.expect("admin", "low", allMax, 603) // the admin's group keeps its priority (not the QoS default)

	_ = e.fs.setProcs("k8s.ns.db", []uint64{602})
	e.rt.Remove(a)
	e.expect("k8s.ns.db", "low", allMax, 602)
	_ = e.fs.setProcs("k8s.ns.db", nil)
	e.rt.Remove(b)
	e.expectGone("k8s.ns.db")

	_ = e.fs.setProcs("admin", nil)
	e.rt.Remove(c)
	if !e.exists("admin") {
		t.Error("the plugin removed a group it did not create")
	}
}

func TestRestartSynchronizeRepairs(t *testing.T) {
	e := newEnv(t, 256)
	e.setPolicy("rules:\n- name: high\n  match: {namespaces: [ns]}\n  allow: {highPriority: true}\n")
	stop := e.rt.Connect(e.plugin())
	gone := e.rt.Start(pod("ns", "gone", Burstable, nil), "c", 701)
	e.rt.Start(pod("ns", "kept", Guaranteed, map[string]string{AnnLimit: "dram_wbps=2G"}), "c", 702)
	e.expect("k8s.ns.gone", "low", allMax, 701)
	e.expect("k8s.ns.kept", "high", "dram_rbps=max dram_wbps=2000000000 nvm_rbps=max nvm_wbps=max", 702)

	stop() // the plugin crashes: no cleanup, the runtime goes on
	// while it is away: a pod is removed, a pod starts, someone edits a group
	_ = e.fs.setProcs("k8s.ns.gone", nil)
	e.rt.Remove(gone)
	e.rt.Start(pod("ns", "new", BestEffort, map[string]string{AnnPriority: "high"}), "c", 703)
	if err := e.fs.Write("k8s.ns.kept", "tgroup.priority", "low"); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.Write("k8s.ns.kept", "tgroup.limit", "dram_wbps=max"); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.Write("", "cgroup.procs", "702"); err != nil { // moved back to the root by hand
		t.Fatal(err)
	}
	e.expectGone("k8s.ns.new")
	e.expect("k8s.ns.gone", "low", allMax)

	e.rt.Connect(e.plugin()) // restarted: a new process, the same state file
	e.expectGone("k8s.ns.gone")
	e.expect("k8s.ns.new", "high", allMax, 703)
	e.expect("k8s.ns.kept", "high", "dram_rbps=max dram_wbps=2000000000 nvm_rbps=max nvm_wbps=max", 702)
	if got, want := e.plugin().Owned(), []string{"k8s.ns.kept", "k8s.ns.new"}; !slices.Equal(got, want) {
		t.Errorf("owned groups after repair %v, want %v", got, want)
	}
}

func TestStateNamesAGroupThatWasNeverMade(t *testing.T) {
	// a crash between recording a name and mkdir: the next sync drops it
	e := newEnv(t, 256)
	if err := os.WriteFile(e.state, []byte("k8s.ns.never\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.rt.Connect(e.plugin())
	if got := e.plugin().Owned(); len(got) != 0 {
		t.Errorf("owned %v after sync, want none", got)
	}
}

func TestMaxGroupsNeverFailsThePod(t *testing.T) {
	e := newEnv(t, 2)
	e.rt.Connect(e.plugin())
	a := e.rt.Start(pod("ns", "a", Guaranteed, nil), "c", 801)
	e.rt.Start(pod("ns", "b", Guaranteed, nil), "c", 802)
	e.rt.Start(pod("ns", "c", Guaranteed, nil), "c", 803) // fails the test if the pod does not start

	e.expect("k8s.ns.a", "high", allMax, 801)
	e.expect("k8s.ns.b", "high", allMax, 802)
	e.expectGone("k8s.ns.c")
	if got := e.fs.procs(""); !slices.Equal(got, nil) {
		t.Errorf("root cgroup.procs %v: the stand-in's root only lists pids written to it", got)
	}
	if l := e.log.has("EVENT max_groups", "pod ns/c", "k8s.ns.c", "max_groups (2) reached"); l == "" {
		t.Error("no max_groups event naming the pod, the group and last_cmd_status")
	}
	if got := e.plugin().Owned(); slices.Contains(got, "k8s.ns.c") {
		t.Error("a group that was not made is recorded as owned")
	}

	// a group is freed: the waiting pod gets it at once
	_ = e.fs.setProcs("k8s.ns.a", nil)
	e.rt.Remove(a)
	e.expectGone("k8s.ns.a")
	e.expect("k8s.ns.c", "high", allMax, 803)
}

func TestMaxGroupsAfterRestartSyncPlacesWhatFits(t *testing.T) {
	e := newEnv(t, 1)
	stop := e.rt.Connect(e.plugin())
	stop()
	// started while the plugin was away; only one group fits
	e.rt.Start(pod("ns", "a", Burstable, nil), "c", 811)
	e.rt.Start(pod("ns", "b", Burstable, nil), "c", 812)
	e.rt.Connect(e.plugin())
	e.expect("k8s.ns.a", "low", allMax, 811) // sync goes in container ID order
	e.expectGone("k8s.ns.b")
	if e.log.has("EVENT max_groups", "pod ns/b") == "" {
		t.Error("no max_groups event for ns/b")
	}
}

func TestDefaultPrioritiesAreConfigurable(t *testing.T) {
	e := newEnv(t, 256)
	p := e.plugin()
	p.Defaults = Defaults{Guaranteed: "low", Burstable: "high", BestEffort: "low", Unknown: "low"}
	e.rt.Connect(p)
	e.rt.Start(pod("ns", "g", Guaranteed, nil), "c", 901)
	e.rt.Start(pod("ns", "b", Burstable, nil), "c", 902)
	e.expect("k8s.ns.g", "low", allMax, 901)
	e.expect("k8s.ns.b", "high", allMax, 902)
}

// A group the plugin did not make keeps the admin's settings: a pod that
// joins it (a rule shares it) writes only what its annotations say, only
// the limit keys named, and only as a rule allows (unownedGroups).
func TestAdminGroupKeepsItsSettings(t *testing.T) {
	e := newEnv(t, 256)
	if err := e.fs.Mkdir("batch"); err != nil { // tgctl create batch --priority high --limit dram_rbps=1G
		t.Fatal(err)
	}
	if err := e.fs.Write("batch", "tgroup.priority", "high"); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.Write("batch", "tgroup.limit", "dram_rbps=1000000000"); err != nil {
		t.Fatal(err)
	}
	const adminLimit = "dram_rbps=1000000000 dram_wbps=max nvm_rbps=max nvm_wbps=max"
	e.setPolicy(`rules:
- name: batch
  match: {namespaces: [ns]}
  allow: {sharedGroups: [{name: batch, podSettings: true}], unownedGroups: true}
`)
	stop := e.rt.Connect(e.plugin())
	e.rt.Start(pod("ns", "plain", BestEffort, map[string]string{AnnGroup: "batch"}), "c", 1001)
	e.expect("batch", "high", adminLimit, 1001) // neither the BestEffort default (low) nor "no limit"

	e.rt.Start(pod("ns", "lim", BestEffort, map[string]string{AnnGroup: "batch", AnnLimit: "nvm_wbps=2G"}), "c", 1002)
	e.expect("batch", "high", "dram_rbps=1000000000 dram_wbps=max nvm_rbps=max nvm_wbps=2000000000", 1001, 1002)

	e.rt.Start(pod("ns", "prio", Guaranteed, map[string]string{AnnGroup: "batch", AnnPriority: "low"}), "c", 1003)
	e.expect("batch", "low", "dram_rbps=1000000000 dram_wbps=max nvm_rbps=max nvm_wbps=2000000000", 1001, 1002, 1003)

	// a restart's Synchronize writes the annotations again (prio's low),
	// never the defaults: the admin's dram_rbps stays
	stop()
	if err := e.fs.Write("batch", "tgroup.priority", "high"); err != nil {
		t.Fatal(err)
	}
	e.rt.Connect(e.plugin())
	e.expect("batch", "low", "dram_rbps=1000000000 dram_wbps=max nvm_rbps=max nvm_wbps=2000000000", 1001, 1002, 1003)
}

// A container max_groups left out that stops must not stay pending: its
// pid may be reused, and a retry after a group frees would move that pid.
func TestStoppedContainerIsNoLongerPending(t *testing.T) {
	e := newEnv(t, 1)
	e.rt.Connect(e.plugin())
	a := e.rt.Start(pod("ns", "a", Burstable, nil), "c", 1101)
	bp := pod("ns", "b", Burstable, nil)
	b := e.rt.Start(bp, "c", 1102) // left out: max_groups
	e.expectGone("k8s.ns.b")
	// b exits: the runtime sends StopContainer (RemoveContainer may come much later)
	b.State = api.ContainerState_CONTAINER_STOPPED
	if _, err := e.rt.nri.StopContainer(t.Context(), &api.StopContainerRequest{Pod: bp, Container: b}); err != nil {
		t.Fatal(err)
	}
	// pid 1102 is reused by an unrelated process; a group frees
	_ = e.fs.setProcs("k8s.ns.a", nil)
	e.rt.Remove(a)
	e.expectGone("k8s.ns.a")
	if e.exists("k8s.ns.b") {
		t.Errorf("the stopped container's group was made and (maybe) its old pid moved: procs %v", e.fs.procs("k8s.ns.b"))
	}
	if err := e.rt.nri.RemoveContainer(t.Context(), &api.RemoveContainerRequest{Pod: bp, Container: b}); err != nil {
		t.Fatal(err)
	}
}

// StopContainer of a group's last container removes the plugin's group
// (as RemoveContainer does); one whose process is still exiting (EBUSY)
// is tried again at RemoveContainer.
func TestStopContainerRemovesTheGroup(t *testing.T) {
	e := newEnv(t, 256)
	e.rt.Connect(e.plugin())
	p := pod("ns", "s", Burstable, nil)
	c := e.rt.Start(p, "c", 1201)
	c.State = api.ContainerState_CONTAINER_STOPPED
	// the process is still exiting at StopContainer
	if _, err := e.rt.nri.StopContainer(t.Context(), &api.StopContainerRequest{Pod: p, Container: c}); err != nil {
		t.Fatal(err)
	}
	e.expect("k8s.ns.s", "low", allMax, 1201)
	if e.log.has("group k8s.ns.s: not removed, it still has tasks") == "" {
		t.Error("no log line for the EBUSY rmdir at StopContainer")
	}
	_ = e.fs.setProcs("k8s.ns.s", nil) // it exited
	if err := e.rt.nri.RemoveContainer(t.Context(), &api.RemoveContainerRequest{Pod: p, Container: c}); err != nil {
		t.Fatal(err)
	}
	e.expectGone("k8s.ns.s")

	q := pod("ns", "t", Burstable, nil)
	d := e.rt.Start(q, "c", 1202)
	_ = e.fs.setProcs("k8s.ns.t", nil) // exited before the stop event
	d.State = api.ContainerState_CONTAINER_STOPPED
	if _, err := e.rt.nri.StopContainer(t.Context(), &api.StopContainerRequest{Pod: q, Container: d}); err != nil {
		t.Fatal(err)
	}
	e.expectGone("k8s.ns.t")
	if got := e.plugin().Owned(); len(got) != 0 {
		t.Errorf("state file still names %v", got)
	}
}

// A container whose processes ran before the plugin placed it (a wrapper
// like tini or sh -c, a pod running before the plugin's first deploy or
// started while it was down): Synchronize and PostStartContainer move
// every process its cgroup lists, a daemon re-parented away from the
// init included (no /proc children walk finds that one); one that exited
// meanwhile is skipped silently; one forked by a process not moved yet
// while the plugin moves them is found by the next pass.
func TestProcessesFoundInTheContainersCgroup(t *testing.T) {
	e := newEnv(t, 256)
	e.fs.gone = map[uint64]bool{1304: true}
	stop := e.rt.Connect(e.plugin())
	stop()
	c := e.rt.Start(pod("ns", "early", Burstable, nil), "c", 1301) // while the plugin is down
	// 1301 the init; 1302 the workload; 1303 a daemon that double-forked
	// (its parent exited: re-parented to the node's init); 1304 exited
	e.cgroup(c, 1301, 1302, 1303, 1304)
	// 1303 forks 1305 after the plugin listed the cgroup, before 1303 moved
	e.fs.onMove = func(pid uint64) {
		if pid == 1302 {
			e.cgroup(c, 1301, 1302, 1303, 1304, 1305)
		}
	}
	e.rt.Connect(e.plugin())
	e.expect("k8s.ns.early", "low", allMax, 1301, 1302, 1303, 1305)
	if l := e.log.has("1304"); l != "" {
		t.Errorf("a vanished process is logged: %q", l)
	}
	if got := e.fs.procs(""); len(got) != 0 {
		t.Errorf("root group still holds %v", got)
	}
	e.fs.onMove = nil

	// a plugin that connects between StartContainer and PostStartContainer
	p := pod("ns", "late", Guaranteed, nil)
	d := ctrOf(p, "c")
	d.Pid, d.State = 1401, api.ContainerState_CONTAINER_RUNNING
	e.cgroup(d, 1401, 1402)
	if err := e.rt.nri.PostStartContainer(t.Context(), &api.PostStartContainerRequest{Pod: p, Container: d}); err != nil {
		t.Fatal(err)
	}
	e.expect("k8s.ns.late", "high", allMax, 1401, 1402)
	if e.log.has("PostStartContainer", "pid 1401 -> group k8s.ns.late (2 processes") == "" {
		t.Error("no log line counting the other process PostStartContainer moved")
	}
}

// The container's cgroup is found for both of kubelet's cgroup drivers
// (the systemd driver's slice:prefix:name expanded as systemd does), on
// cgroup v2 and v1, and through /proc/<pid>/cgroup when the path does
// not resolve; when nothing does, the pid alone is moved and that is said
// once.
func TestCgroupOfTheContainer(t *testing.T) {
	rel := map[string]string{
		"/kubepods/burstable/pod1/abc":                       "/kubepods/burstable/pod1/abc",
		"kubepods-burstable-pod1_2.slice:cri-containerd:abc": "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1_2.slice/cri-containerd-abc.scope",
		"kubepods-pod9.slice:crio:abc":                       "/kubepods.slice/kubepods-pod9.slice/crio-abc.scope",
		"system.slice:docker:abc":                            "/system.slice/docker-abc.scope",
		"-.slice::abc":                                       "/abc.scope",
		"machine.slice::x.slice":                             "/machine.slice/x.slice",
	}
	for in, want := range rel {
		if got, err := CgroupRelPath(in); err != nil || got != want {
			t.Errorf("CgroupRelPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a:b", "a:b:c:d", "notaslice:x:y", "kubepods--x.slice:p:n", "/a/../../etc", "a.slice:p:"} {
		if got, err := CgroupRelPath(bad); err == nil {
			t.Errorf("CgroupRelPath(%q) = %q, want an error", bad, got)
		}
	}

	mk := func(root, rel string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctr := func(path string, pid uint32) *api.Container {
		return &api.Container{Id: "abc", Pid: pid, Linux: &api.LinuxContainer{CgroupsPath: path}}
	}
	// v2
	v2 := t.TempDir()
	_ = os.WriteFile(filepath.Join(v2, "cgroup.controllers"), nil, 0o644)
	mk(v2, "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podu.slice/cri-containerd-abc.scope")
	if d, err := (Cgroups{Root: v2}).CgroupDir(ctr("kubepods-besteffort-podu.slice:cri-containerd:abc", 0)); err != nil ||
		d != filepath.Join(v2, "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podu.slice/cri-containerd-abc.scope") {
		t.Errorf("v2 systemd: %q, %v", d, err)
	}
	// v1: the first hierarchy that has it
	v1 := t.TempDir()
	mk(v1, "pids/kubepods/podu/abc")
	mk(v1, "memory/kubepods/podu/abc")
	if d, err := (Cgroups{Root: v1}).CgroupDir(ctr("/kubepods/podu/abc", 0)); err != nil || d != filepath.Join(v1, "pids/kubepods/podu/abc") {
		t.Errorf("v1 cgroupfs: %q, %v", d, err)
	}
	// a path that does not resolve: the init's /proc/<pid>/cgroup
	proc := t.TempDir()
	mk(proc, "77")
	_ = os.WriteFile(filepath.Join(proc, "77", "cgroup"), []byte("0::/elsewhere/abc\n"), 0o644)
	mk(v2, "elsewhere/abc")
	if d, err := (Cgroups{Root: v2, Proc: proc}).CgroupDir(ctr("/kubepods/nothere/abc", 77)); err != nil || d != filepath.Join(v2, "elsewhere/abc") {
		t.Errorf("fallback to /proc/77/cgroup: %q, %v", d, err)
	}
	mk(proc, "78")
	_ = os.WriteFile(filepath.Join(proc, "78", "cgroup"), []byte("12:memory:/m/abc\n11:pids:/kubepods/podu/abc\n1:name=systemd:/s\n"), 0o644)
	if d, err := (Cgroups{Root: v1, Proc: proc}).CgroupDir(ctr("", 78)); err != nil || d != filepath.Join(v1, "pids/kubepods/podu/abc") {
		t.Errorf("v1 fallback to /proc/78/cgroup's pids line: %q, %v", d, err)
	}
	// a pid whose cgroup is not the container's (it outlived the
	// container and is another process now): never that cgroup
	mk(proc, "79")
	_ = os.WriteFile(filepath.Join(proc, "79", "cgroup"), []byte("0::/kubepods/podu/def\n"), 0o644)
	mk(v2, "kubepods/podu/def")
	if d, err := (Cgroups{Root: v2, Proc: proc}).CgroupDir(ctr("/kubepods/gone/abc", 79)); err == nil || !strings.Contains(err.Error(), `/kubepods/podu/def, not container "abc"'s`) {
		t.Errorf("a pid in another container's cgroup: %q, %v; want an error", d, err)
	}
	if _, err := (Cgroups{Root: v2, Proc: proc}).CgroupDir(ctr("/kubepods/nothere/abc", 0)); err == nil || !strings.Contains(err.Error(), "nothere") {
		t.Errorf("unresolved: %v, want an error naming what was tried", err)
	}

	// through the plugin: an unresolved cgroup moves the pid alone, said once
	e := newEnv(t, 256)
	e.rt.started = nil // no cgroup
	e.rt.Connect(e.plugin())
	p := pod("ns", "nocg", Burstable, nil)
	c := e.rt.Start(p, "c", 1601)
	if err := e.rt.nri.PostStartContainer(t.Context(), &api.PostStartContainerRequest{Pod: p, Container: c}); err != nil {
		t.Fatal(err)
	}
	e.expect("k8s.ns.nocg", "low", allMax, 1601)
	if n := e.log.count("container cgroup not found", "only the pid the runtime gave is moved"); n != 1 {
		t.Errorf("the unresolved cgroup logged %d times, want once", n)
	}
}

// The lines every event for one container would repeat (invalid
// annotations, max_groups) are logged once per container; a paused
// container is placed by Synchronize like a running one.
func TestLinesLoggedOncePerContainerAndPausedIsPlaced(t *testing.T) {
	e := newEnv(t, 1)
	stop := e.rt.Connect(e.plugin())
	e.rt.Start(pod("ns", "a", Burstable, map[string]string{AnnPriority: "urgent"}), "c", 1501)
	bp := pod("ns", "b", Burstable, nil)
	b := e.rt.Start(bp, "c", 1502) // max_groups
	for i := 0; i < 2; i++ {       // events repeated
		if err := e.rt.nri.PostStartContainer(t.Context(), &api.PostStartContainerRequest{Pod: bp, Container: b}); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.log.count("invalid annotation", "pod ns/a"); n != 1 {
		t.Errorf("the invalid annotation logged %d times (StartContainer + PostStartContainer), want once", n)
	}
	if n := e.log.count("EVENT max_groups", "pod ns/b"); n != 1 {
		t.Errorf("the max_groups event for ns/b logged %d times over 4 events, want once", n)
	}
	// another container of the same pod is its own container: logged again
	e.rt.Start(bp, "d", 1503)
	if n := e.log.count("EVENT max_groups", "pod ns/b"); n != 2 {
		t.Errorf("max_groups events for ns/b after a second container: %d, want 2", n)
	}

	// paused while the plugin is away, then the plugin restarts
	stop()
	pp := pod("ns", "p", Guaranteed, nil)
	e.rt.mu.Lock()
	for id := range e.rt.ctrs { // only the paused one, so it fits max_groups
		delete(e.rt.ctrs, id)
	}
	e.rt.pods[pp.Id] = pp
	pc := ctrOf(pp, "c")
	pc.Pid, pc.State = 1504, api.ContainerState_CONTAINER_PAUSED
	e.rt.ctrs[pc.Id] = pc
	e.cgroup(pc, 1504)
	e.rt.mu.Unlock()
	_ = e.fs.setProcs("k8s.ns.a", nil)
	e.rt.Connect(e.plugin())
	e.expectGone("k8s.ns.a") // not reported any more: its group went, which made room
	e.expect("k8s.ns.p", "high", allMax, 1504)
}
