package tgnri

// The plugin against the real tgroup mount, in the QEMU guest (suite
// tests/guest/nri: a static go test binary in the initramfs). Skipped
// unless TGNRI_MOUNT names a mounted tgroup filesystem.

import (
	"errors"
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

	"github.com/containerd/nri/pkg/api"
)

func TestMain(m *testing.M) {
	switch os.Getenv("TGNRI_CHILD") {
	case "runtime": // a fake runtime in a process of its own (main_test.go kills it)
		os.Exit(runtimeProcess(os.Getenv("TGNRI_SOCKET")))
	case "daemon": // a container's init that starts a daemon the classic way
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "TGNRI_CHILD=middle")
		if c.Run() != nil { // the middle process exits at once
			os.Exit(1)
		}
	case "middle": // forks the daemon and exits: it is re-parented away
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), "TGNRI_CHILD=1")
		if c.Start() != nil {
			os.Exit(1)
		}
		if f := os.Getenv("TGNRI_PIDFILE"); f != "" {
			_ = os.WriteFile(f, []byte(strconv.Itoa(c.Process.Pid)), 0o644)
		}
		os.Exit(0)
	}
	if os.Getenv("TGNRI_CHILD") != "" { // a container's process
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
	cg   string // a cgroup v2 mount of the test's own
	mkcg func(c *api.Container) string
	dead map[*exec.Cmd]bool
}

func newGuest(t *testing.T) *guest {
	root := os.Getenv("TGNRI_MOUNT")
	if root == "" {
		t.Skip("TGNRI_MOUNT unset: runs in the QEMU guest on a real tgroup mount")
	}
	g := &guest{t: t, m: Mount{Root: root}, rt: newFakeRuntime(t), log: newLogBuf(t),
		st: filepath.Join(t.TempDir(), "groups"), cg: t.TempDir(), dead: map[*exec.Cmd]bool{}}
	// the containers' cgroups, in a cgroup2 mount of the test's own (the
	// same hierarchy as /sys/fs/cgroup): runc's part, done by the test
	if err := syscall.Mount("cgroup2", g.cg, "cgroup2", 0, ""); err != nil {
		t.Fatalf("mount cgroup2: %v", err)
	}
	var made []string
	t.Cleanup(func() { // after the processes are killed (cleanups run last first)
		for i := len(made) - 1; i >= 0; i-- {
			for j := 0; j < 100 && os.Remove(made[i]) != nil && isDir(made[i]); j++ {
				time.Sleep(10 * time.Millisecond) // a killed process leaving
			}
		}
		_ = syscall.Unmount(g.cg, 0)
	})
	g.mkcg = func(c *api.Container) string {
		dir := g.cgDir(c)
		var missing []string // deepest first
		for d := dir; d != g.cg && !isDir(d); d = filepath.Dir(d) {
			missing = append(missing, d)
		}
		for i := len(missing) - 1; i >= 0; i-- {
			made = append(made, missing[i])
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	g.rt.started = func(c *api.Container, pid uint32) {
		dir := g.mkcg(c)
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(int(pid))), 0o644); err != nil &&
			!errors.Is(err, syscall.ESRCH) {
			t.Fatalf("%s: moving %d: %v", dir, pid, err)
		}
	}
	return g
}

func (g *guest) cgDir(c *api.Container) string {
	rel, err := CgroupRelPath(c.GetLinux().GetCgroupsPath())
	if err != nil {
		g.t.Fatal(err)
	}
	return filepath.Join(g.cg, rel)
}

func (g *guest) plugin() *Plugin {
	return &Plugin{FS: g.m, Cgroups: Cgroups{Root: g.cg}, StatePath: g.st, Logf: g.log.logf}
}

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
	const dbg = "k8s.prod.db" // the group db of namespace prod
	etlc := g.rt.Start(pod("batch", "etl", BestEffort, nil), "job", uint32(etl.Process.Pid))
	g.rt.Start(pod("prod", "web", Guaranteed, map[string]string{AnnPriority: "urgent", AnnLimit: "dram_rbps=1.5"}), "nginx", uint32(bad.Process.Pid))

	// the kernel's view: the process and every one of its threads moved
	if got := ids(g.read(dbg, "cgroup.procs")); !slices.Equal(got, []int{db.Process.Pid}) {
		t.Errorf(dbg+" cgroup.procs %v, want [%d]", got, db.Process.Pid)
	}
	if got, want := ids(g.read(dbg, "tasks")), threads(db.Process.Pid); !slices.Equal(got, want) || len(want) < 2 {
		t.Errorf(dbg+" tasks %v, want the process's threads %v (a Go program has several)", got, want)
	}
	if got := g.read(dbg, "tgroup.priority"); got != "high" {
		t.Errorf("db priority %s, want high (Guaranteed)", got)
	}
	if got, want := g.read(dbg, "tgroup.limit"), "dram_rbps=1000000000 dram_wbps=max nvm_rbps=max nvm_wbps=2500000000"; got != want {
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
	if !g.exists(dbg) || g.log.has("group "+dbg+": not removed, it still has tasks") == "" {
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
	if g.exists(dbg) {
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

// Containers whose processes ran before the plugin did (started while
// it was down), each with a daemon that double-forked: its parent exited,
// it was re-parented away from the container's init (no walk of the
// init's children finds it) and lives on in the container's cgroup. The
// reconnect's Synchronize finds it through the real cgroup.procs, for a
// cgroupfs-driver path and a systemd-driver one.
func TestGuestCgroupFindsTheReparentedDaemon(t *testing.T) {
	g := newGuest(t)
	stop := g.rt.Connect(g.plugin())
	stop() // the plugin is down while the containers start
	type ctr struct {
		pod          *api.PodSandbox
		init, daemon int
		c            *api.Container
	}
	var cs []*ctr
	for _, q := range []QoS{Burstable, BestEffort} { // cgroupfs, systemd (pod())
		p := pod("ns", "daemon-"+strings.ToLower(string(q)), q, nil)
		dir := g.mkcg(ctrOf(p, "c"))
		fd, err := syscall.Open(dir, syscall.O_DIRECTORY|syscall.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		pidfile := filepath.Join(t.TempDir(), "daemon.pid")
		init := exec.Command(os.Args[0])
		init.Env = append(os.Environ(), "TGNRI_CHILD=daemon", "TGNRI_PIDFILE="+pidfile)
		// born in the container's cgroup, as runc's init is
		init.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, UseCgroupFD: true, CgroupFD: fd}
		err = init.Start()
		syscall.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(-init.Process.Pid, syscall.SIGKILL); _ = init.Wait() })
		// wait for what is asserted: the daemon re-parented away from the
		// init, and the cgroup listing exactly the init and the daemon
		daemon := 0
		want := func() []int { w := []int{init.Process.Pid, daemon}; sort.Ints(w); return w }
		deadline := time.Now().Add(20 * time.Second)
		for {
			if b, err := os.ReadFile(pidfile); err == nil {
				daemon, _ = strconv.Atoi(string(b))
			}
			if daemon != 0 && ppid(daemon) != 0 && ppid(daemon) != init.Process.Pid &&
				slices.Equal(ids(readFile(filepath.Join(dir, "cgroup.procs"))), want()) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no re-parented daemon in the container's cgroup after 20 s (daemon %d, ppid %d, cgroup.procs %v)",
					p.Name, daemon, ppid(daemon), ids(readFile(filepath.Join(dir, "cgroup.procs"))))
			}
			time.Sleep(10 * time.Millisecond)
		}
		c := g.rt.Start(p, "c", uint32(init.Process.Pid))
		cs = append(cs, &ctr{p, init.Process.Pid, daemon, c})
	}
	for _, c := range cs {
		if g.exists(DefaultGroup(c.pod)) {
			t.Fatal("placed while the plugin was down")
		}
	}
	g.rt.Connect(g.plugin())
	for _, c := range cs {
		grp := DefaultGroup(c.pod)
		want := []int{c.init, c.daemon}
		sort.Ints(want)
		if got := ids(g.read(grp, "cgroup.procs")); !slices.Equal(got, want) {
			t.Errorf("%s cgroup.procs %v, want the init and the re-parented daemon %v (cgroups path %s)", grp, got, want, c.c.Linux.CgroupsPath)
		}
		if root := ids(g.read("", "cgroup.procs")); slices.Contains(root, c.daemon) {
			t.Errorf("the daemon %d is still in the root group", c.daemon)
		}
	}
	// they exit, the containers are removed: the groups go (they must not
	// hold one of TestGuestMaxGroups' few groups)
	for _, c := range cs {
		grp := DefaultGroup(c.pod)
		_ = syscall.Kill(-c.init, syscall.SIGKILL)
		for i := 0; i < 500 && len(ids(g.read(grp, "cgroup.procs"))) > 0; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		g.rt.Remove(c.c)
		if g.exists(grp) {
			t.Errorf("%s not removed after its processes exited", grp)
		}
	}
}

// ppid is pid's parent (0 if it is gone).
func ppid(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // state ppid ...
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// A process exec'd into a running container (runc exec: born in the
// container's cgroup, a child of the runtime's shim, so in the root
// group) is moved into the container's group by the plugin's periodic
// rescan (the default policy's 1 s; waited for up to 20 s on a busy host),
// every thread of it, on the real mount and cgroup tree.
func TestGuestRescanPlacesAnExecdProcess(t *testing.T) {
	g := newGuest(t)
	g.rt.Connect(g.plugin())
	init := g.spawn()
	c := g.rt.Start(pod("ns", "exec", Burstable, nil), "c", uint32(init.Process.Pid))
	const grp = "k8s.ns.exec"
	fd, err := syscall.Open(g.cgDir(c), syscall.O_DIRECTORY|syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command(os.Args[0])
	x.Env = append(os.Environ(), "TGNRI_CHILD=1")
	x.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	err = x.Start()
	syscall.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.kill(x) })
	want := []int{init.Process.Pid, x.Process.Pid}
	sort.Ints(want)
	start := time.Now()
	for !slices.Equal(ids(g.read(grp, "cgroup.procs")), want) {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("%s cgroup.procs %v after 20 s, want %v (the exec'd process %d placed by the rescan; root group %v)",
				grp, ids(g.read(grp, "cgroup.procs")), want, x.Process.Pid, ids(g.read("", "cgroup.procs")))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the exec'd process was placed %v after it started", time.Since(start).Round(time.Millisecond))
	if got, want := ids(g.read(grp, "tasks")), append(threads(init.Process.Pid), threads(x.Process.Pid)...); len(got) != len(want) {
		t.Errorf("%s tasks %v, want the threads of both processes %v", grp, got, want)
	}
	// the plugin logs the move after making it: the line may follow the
	// placement seen above by a moment (27 Nov: not yet there, then there)
	waitFor(t, "the log line for the rescan's move", func() bool {
		return g.log.has("rescan: pod ns/exec container c: 1 new processes") != ""
	})
	g.kill(x)
	g.kill(init)
	for i := 0; i < 500 && len(ids(g.read(grp, "cgroup.procs"))) > 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	g.rt.Remove(c)
	if g.exists(grp) {
		t.Errorf("%s not removed after its processes exited", grp)
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
