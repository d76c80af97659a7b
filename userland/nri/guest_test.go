package tgnri

// The plugin against the real tgroup mount, in the QEMU guest (suite
// tests/guest/nri: a static go test binary in the initramfs). Skipped
// unless TGNRI_MOUNT names a mounted tgroup filesystem.

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if os.Getenv("TGNRI_CHILD") == "tree" { // a wrapper init (tini, sh -c) with a child
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "TGNRI_CHILD=1")
		if c.Start() != nil {
			os.Exit(1)
		}
		// the child's pid, once it is the wrapper's child (after Start)
		if f := os.Getenv("TGNRI_PIDFILE"); f != "" {
			_ = os.WriteFile(f+".tmp", []byte(strconv.Itoa(c.Process.Pid)), 0o644)
			_ = os.Rename(f+".tmp", f)
		}
	}
	if os.Getenv("TGNRI_CHILD") != "" { // a container's init process
		for {
			time.Sleep(time.Hour)
		}
	}
	os.Exit(m.Run())
}

type guest struct {
	t    *testing.T
	m    Mount
	rt   *fakeRuntime
	log  *logBuf
	st   string
	dead map[*exec.Cmd]bool
}

func newGuest(t *testing.T) *guest {
	root := os.Getenv("TGNRI_MOUNT")
	if root == "" {
		t.Skip("TGNRI_MOUNT unset: runs in the QEMU guest on a real tgroup mount")
	}
	g := &guest{t: t, m: Mount{Root: root}, rt: newFakeRuntime(t), log: &logBuf{t: t},
		st: filepath.Join(t.TempDir(), "groups"), dead: map[*exec.Cmd]bool{}}
	return g
}

func (g *guest) plugin() *Plugin { return &Plugin{FS: g.m, StatePath: g.st, Logf: g.log.logf} }

// spawn starts a process (this binary, sleeping: a multi-threaded Go
// program) to stand for a container's init process.
func (g *guest) spawn() *exec.Cmd {
	c := exec.Command(os.Args[0])
	c.Env = append(os.Environ(), "TGNRI_CHILD=1")
	if err := c.Start(); err != nil {
		g.t.Fatal(err)
	}
	g.t.Cleanup(func() { g.kill(c) })
	return c
}

func (g *guest) kill(c *exec.Cmd) {
	if !g.dead[c] {
		g.dead[c] = true
		_ = c.Process.Kill()
		_ = c.Wait()
	}
}

func (g *guest) read(group, f string) string {
	b, err := os.ReadFile(filepath.Join(g.m.Root, group, f))
	if err != nil {
		g.t.Fatalf("%s/%s: %v", group, f, err)
	}
	return strings.TrimSpace(string(b))
}

func ids(s string) []int {
	var out []int
	for _, f := range strings.Fields(s) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

func threads(pid int) []int {
	ents, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	var out []int
	for _, e := range ents {
		n, _ := strconv.Atoi(e.Name())
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

func (g *guest) exists(group string) bool {
	_, err := os.Stat(filepath.Join(g.m.Root, group))
	return err == nil
}

func TestGuestPodsOnTheRealMount(t *testing.T) {
	g := newGuest(t)
	stop := g.rt.Connect(g.plugin())
	db, etl, bad := g.spawn(), g.spawn(), g.spawn()
	dbc := g.rt.Start(pod("prod", "db-0", Guaranteed, map[string]string{AnnGroup: "db", AnnLimit: "dram_rbps=1G nvm_wbps=2.5GB/s"}), "pg", uint32(db.Process.Pid))
	etlc := g.rt.Start(pod("batch", "etl", BestEffort, nil), "job", uint32(etl.Process.Pid))
	g.rt.Start(pod("prod", "web", Guaranteed, map[string]string{AnnPriority: "urgent", AnnLimit: "dram_rbps=1.5"}), "nginx", uint32(bad.Process.Pid))

	// the kernel's view: the process and every one of its threads moved
	if got := ids(g.read("db", "cgroup.procs")); !slices.Equal(got, []int{db.Process.Pid}) {
		t.Errorf("db cgroup.procs %v, want [%d]", got, db.Process.Pid)
	}
	if got, want := ids(g.read("db", "tasks")), threads(db.Process.Pid); !slices.Equal(got, want) || len(want) < 2 {
		t.Errorf("db tasks %v, want the process's threads %v (a Go program has several)", got, want)
	}
	if got := g.read("db", "tgroup.priority"); got != "high" {
		t.Errorf("db priority %s, want high (Guaranteed)", got)
	}
	if got, want := g.read("db", "tgroup.limit"), "dram_rbps=1000000000 dram_wbps=max nvm_rbps=max nvm_wbps=2500000000"; got != want {
		t.Errorf("db tgroup.limit %q, want %q", got, want)
	}
	if got := ids(g.read("k8s.batch.etl", "cgroup.procs")); !slices.Equal(got, []int{etl.Process.Pid}) {
		t.Errorf("k8s.batch.etl cgroup.procs %v, want [%d]", got, etl.Process.Pid)
	}
	if got := g.read("k8s.batch.etl", "tgroup.priority"); got != "low" {
		t.Errorf("k8s.batch.etl priority %s, want low (BestEffort)", got)
	}
	// bad annotations: the pod is placed with the defaults
	if p, l := g.read("k8s.prod.web", "tgroup.priority"), g.read("k8s.prod.web", "tgroup.limit"); p != "high" || l != allMax {
		t.Errorf("k8s.prod.web: priority %s limit %q, want high and no limit", p, l)
	}
	if g.log.has("invalid annotation", "tgroup.io/priority") == "" || g.log.has("invalid annotation", "tgroup.io/limit") == "" {
		t.Error("the invalid annotations are not logged")
	}
	root := ids(g.read("", "cgroup.procs"))
	for _, c := range []*exec.Cmd{db, etl, bad} {
		if slices.Contains(root, c.Process.Pid) {
			t.Errorf("pid %d still in the root group", c.Process.Pid)
		}
	}

	// removal while the process lives: the kernel refuses (EBUSY), the
	// group stays and is retried
	g.rt.Remove(dbc)
	if !g.exists("db") || g.log.has("group db: not removed, it still has tasks") == "" {
		t.Error("db: want it kept (EBUSY) and the reason logged")
	}
	// removal after the process exited: the group goes
	g.kill(etl)
	g.rt.Remove(etlc)
	if g.exists("k8s.batch.etl") {
		t.Error("k8s.batch.etl not removed after its last container")
	}

	// restart: the plugin comes back and its sync removes db, now empty
	stop()
	g.kill(db)
	g.rt.Connect(g.plugin())
	if g.exists("db") {
		t.Error("db not removed by the sync after a restart")
	}
	if !g.exists("k8s.prod.web") {
		t.Error("k8s.prod.web (still running) removed")
	}
	g.kill(bad)
	for _, c := range g.rt.ctrs {
		g.rt.Remove(c)
	}
	if g.exists("k8s.prod.web") {
		t.Error("k8s.prod.web not removed")
	}
}

// A container whose init forked before the plugin ran (started while the
// plugin was down): the reconnect's Synchronize moves the child too,
// found through the real /proc/PID/task/TID/children.
func TestGuestSynchronizeMovesTheInitsChildren(t *testing.T) {
	g := newGuest(t)
	pidfile := filepath.Join(t.TempDir(), "child.pid")
	init := exec.Command(os.Args[0])
	init.Env = append(os.Environ(), "TGNRI_CHILD=tree", "TGNRI_PIDFILE="+pidfile)
	init.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := init.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-init.Process.Pid, syscall.SIGKILL); _ = init.Wait() })
	// wait for what is asserted on: the wrapper says which child it
	// started (a Go program re-exec'd under TCG on a busy host can take
	// seconds), and /proc lists exactly that child (not the Go runtime's
	// short-lived pidfd probe child, which exits before Start returns)
	children := func() []int {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(init.Process.Pid) + "/task/" + strconv.Itoa(init.Process.Pid) + "/children")
		return ids(string(b))
	}
	child := 0
	var kids []int
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(pidfile); err == nil {
			child, _ = strconv.Atoi(string(b))
		}
		if kids = children(); child != 0 && slices.Equal(kids, []int{child}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the wrapper's child did not appear in /proc in 60 s (child %d, children %v)", child, kids)
		}
	}
	stop := g.rt.Connect(g.plugin())
	stop() // the plugin is down while the container starts
	c := g.rt.Start(pod("ns", "wrapped", Burstable, nil), "c", uint32(init.Process.Pid))
	if g.exists("k8s.ns.wrapped") {
		t.Fatal("placed while the plugin was down")
	}
	g.rt.Connect(g.plugin())
	if kids = children(); !slices.Equal(kids, []int{child}) {
		t.Fatalf("the wrapper has children %v after the sync, want [%d]", kids, child)
	}
	want := []int{init.Process.Pid, child}
	sort.Ints(want)
	if got := ids(g.read("k8s.ns.wrapped", "cgroup.procs")); !slices.Equal(got, want) {
		t.Errorf("k8s.ns.wrapped cgroup.procs %v, want the init and its child %v", got, want)
	}
	if root := ids(g.read("", "cgroup.procs")); slices.Contains(root, child) {
		t.Errorf("the child %d is still in the root group", child)
	}
	// both exit, the container is removed: the group goes (it must not
	// hold one of TestGuestMaxGroups' few groups)
	_ = syscall.Kill(-init.Process.Pid, syscall.SIGKILL)
	_ = init.Wait()
	for i := 0; i < 500 && len(ids(g.read("k8s.ns.wrapped", "cgroup.procs"))) > 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	g.rt.Remove(c)
	if g.exists("k8s.ns.wrapped") {
		t.Error("k8s.ns.wrapped not removed after its processes exited")
	}
}

func TestGuestMaxGroups(t *testing.T) {
	g := newGuest(t)
	b, err := os.ReadFile("/sys/module/tgroup/parameters/max_groups")
	if err != nil {
		t.Fatal(err)
	}
	max, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	have, _ := g.m.Groups()
	free := max - len(have)
	if free < 1 || free > 16 {
		t.Skipf("max_groups %d with %d groups: load tgroup.ko with a small max_groups", max, len(have))
	}
	g.rt.Connect(g.plugin())
	var first *exec.Cmd
	var firstC = g.rt.Start(pod("ns", "p0", Burstable, nil), "c", uint32(func() int { first = g.spawn(); return first.Process.Pid }()))
	for i := 1; i < free; i++ {
		g.rt.Start(pod("ns", "p"+strconv.Itoa(i), Burstable, nil), "c", uint32(g.spawn().Process.Pid))
	}
	over := g.spawn()
	g.rt.Start(pod("ns", "over", Burstable, nil), "c", uint32(over.Process.Pid)) // must not fail
	if g.exists("k8s.ns.over") {
		t.Fatal("a group past max_groups exists")
	}
	if !slices.Contains(ids(g.read("", "cgroup.procs")), over.Process.Pid) {
		t.Error("the pod past max_groups is not in the root group")
	}
	if g.log.has("EVENT max_groups", "pod ns/over", syscall.ENOSPC.Error()) == "" {
		t.Error("no max_groups event naming the pod and ENOSPC")
	}
	// a group frees: the waiting pod takes it
	g.kill(first)
	g.rt.Remove(firstC)
	if got := ids(g.read("k8s.ns.over", "cgroup.procs")); !slices.Equal(got, []int{over.Process.Pid}) {
		t.Errorf("k8s.ns.over cgroup.procs %v, want [%d]", got, over.Process.Pid)
	}
	// the processes are killed at cleanup; the suite removes the groups
}
