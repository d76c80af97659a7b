package tgnri

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A process's start time from /proc/<pid>/stat: field 22, counted after
// the command's closing parenthesis (a command may hold ") (").
func TestStartTime(t *testing.T) {
	e := newEnv(t, 1)
	e.procStat(42, 123456789)
	c := Cgroups{Proc: e.proc}
	if st, err := c.StartTime(42); err != nil || st != 123456789 {
		t.Errorf("StartTime(42) = %d, %v; want 123456789", st, err)
	}
	if _, err := c.StartTime(43); err == nil {
		t.Error("StartTime of a pid with no /proc entry: no error")
	}
	_ = os.WriteFile(filepath.Join(e.proc, "42", "stat"), []byte("42 (x) S 1 2\n"), 0o644)
	if _, err := c.StartTime(42); err == nil {
		t.Error("a short stat line: no error")
	}
	// the real /proc: this process started after boot, and the value is stable
	a, err1 := Cgroups{}.StartTime(uint32(os.Getpid()))
	b, err2 := Cgroups{}.StartTime(uint32(os.Getpid()))
	if err1 != nil || err2 != nil || a == 0 || a != b {
		t.Errorf("StartTime(self) = %d, %d (%v, %v): want one non-zero value", a, b, err1, err2)
	}
}

// A container the plugin looks at again later (the settle after
// Synchronize) is checked first: a pid the runtime's snapshot gave that
// outlived its container, reused by a process in another pod's cgroup,
// never makes the plugin move that cgroup (the /proc/<pid>/cgroup
// fallback must name the container's own ID).
func TestSettleNeverFollowsAStalePidIntoAnotherCgroup(t *testing.T) {
	e := newEnv(t, 256)
	e.rt.Connect(e.plugin())
	victim := e.rt.Start(pod("prod", "v", Burstable, nil), "c", 3001)
	e.cgroup(victim, 3001, 3002)
	e.expect("k8s.prod.v", "low", allMax, 3001)
	ev := e.rt.addCreated(pod("evil", "x", Burstable, map[string]string{AnnLimit: "nvm_wbps=1"}), "c")
	ev.Pid = 4242 // the pid the snapshot gives; its cgroup is gone, the pid reused
	rel, _ := CgroupRelPath(victim.GetLinux().GetCgroupsPath())
	e.procStat(4242, 777)
	if err := os.WriteFile(filepath.Join(e.proc, "4242", "cgroup"), []byte("0::"+rel+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := e.plugin()
	e.rt.Connect(p) // a restart: Synchronize, then the settle
	waitFor(t, "the settle's last look", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.unsettled) == 0
	})
	e.expectGone("k8s.evil.x")
	e.expect("k8s.prod.v", "low", allMax, 3001, 3002)
}

// A container left out by max_groups is checked before its retry: one
// whose cgroup went (it exited, and the runtime sent no StopContainer)
// is dropped, its old pid never moved; one whose recorded pid is another
// process now is dropped too, even with its cgroup still there.
func TestRetryDropsAContainerWhosePidOrCgroupWent(t *testing.T) {
	e := newEnv(t, 1)
	p := e.plugin()
	e.rt.Connect(p)
	a := e.rt.Start(pod("ns", "a", Burstable, nil), "c", 3201)
	b := e.rt.Start(pod("ns", "b", Burstable, nil), "c", 3202) // max_groups: waits
	e.rt.Start(pod("ns", "c", Burstable, nil), "c", 3203)      // waits too
	e.expectGone("k8s.ns.b")
	// b exits by itself, no StopContainer; its pid goes to a process of
	// another pod (the victim's cgroup lists it)
	_ = os.RemoveAll(e.cgDir(b))
	e.procStat(3202, 99)
	victim := ctrOf(pod("prod", "v", Burstable, nil), "c")
	e.cgroup(victim, 3202, 3299)
	rel, _ := CgroupRelPath(victim.GetLinux().GetCgroupsPath())
	if err := os.WriteFile(filepath.Join(e.proc, "3202", "cgroup"), []byte("0::"+rel+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// c's init exited and its pid was reused (its cgroup is still there,
	// listing the new process: a stand-in for any identity mismatch)
	e.procStat(3203, 55)
	_ = e.fs.setProcs("k8s.ns.a", nil)
	e.rt.Remove(a) // a group frees: the retry
	e.expectGone("k8s.ns.b")
	e.expectGone("k8s.ns.c")
	if got := e.fs.procs(""); len(got) != 0 {
		t.Errorf("the root group lists %v: pids moved for a container that is gone", got)
	}
	for who, why := range map[string]string{"pod ns/b": "its cgroup", "pod ns/c": "its pid 3203 has exited"} {
		if e.log.has(who, "no longer waiting for a group: "+why) == "" {
			t.Errorf("no line saying %s is dropped because %s", who, why)
		}
	}
	p.mu.Lock()
	n := len(p.pending)
	p.mu.Unlock()
	if n != 0 {
		t.Errorf("%d containers still pending (want none)", n)
	}
}

// A container the settle watches whose cgroup appeared and then went
// (it was started and stopped while the plugin looked away) is no longer
// watched: it is dropped at the next look, not kept until the last.
func TestSettleDropsAContainerWhoseCgroupWent(t *testing.T) {
	e := newEnv(t, 256)
	c := e.rt.addCreated(pod("ns", "brief", Burstable, nil), "c")
	e.cgroup(c) // its task exists, its cgroup is empty (nothing to place yet)
	p := e.plugin()
	e.rt.Connect(p)
	_ = os.RemoveAll(e.cgDir(c))
	waitFor(t, "the watched container dropped", func() bool {
		return e.log.has("Synchronize: pod ns/brief container c: no longer watched: its cgroup", "is gone") != ""
	})
	p.mu.Lock()
	n := len(p.unsettled)
	p.mu.Unlock()
	if n != 0 || e.exists("k8s.ns.brief") {
		t.Errorf("%d still watched, group made %v", n, e.exists("k8s.ns.brief"))
	}
}

// A process exec'd into a placed container (kubectl exec, an exec probe,
// a postStart hook: runc exec starts it from the runtime's shim, in the
// root group, inside the container's cgroup) is moved into the
// container's group by the rescan, with a child it forked meanwhile; a
// rescan that finds nothing changed moves nothing (one read per
// container); a container whose cgroup went is no longer watched.
func TestRescanPlacesExecdProcesses(t *testing.T) {
	e := newEnv(t, 256)
	e.met = NewMetrics()
	p := e.plugin()
	e.rt.Connect(p)
	c := e.rt.Start(pod("ns", "app", Burstable, nil), "c", 5001)
	d := e.rt.Start(pod("ns", "idle", Burstable, nil), "c", 5101)
	e.expect("k8s.ns.app", "low", allMax, 5001)
	if n := p.rescan(); n != 0 {
		t.Errorf("a rescan with nothing new moved %d", n)
	}
	// kubectl exec: 5002 in the container's cgroup, in the root group
	// (the stand-in's root lists what was written to it)
	e.cgroup(c, 5001, 5002)
	if err := e.fs.Write("", "cgroup.procs", "5002"); err != nil {
		t.Fatal(err)
	}
	// it forks 5003 while the plugin moves it (found by the next pass)
	e.fs.onMove = func(pid uint64) {
		if pid == 5002 {
			e.cgroup(c, 5001, 5002, 5003)
		}
	}
	if n := p.rescan(); n != 2 {
		t.Errorf("the rescan moved %d processes, want 2 (the exec'd one and its child)", n)
	}
	e.fs.onMove = nil
	e.expect("k8s.ns.app", "low", allMax, 5001, 5002, 5003)
	if got := e.fs.procs(""); len(got) != 0 {
		t.Errorf("root group %v after the rescan", got)
	}
	moves := 0
	e.fs.onMove = func(uint64) { moves++ }
	for i := 0; i < 3; i++ {
		p.rescan()
	}
	if moves != 0 {
		t.Errorf("rescans with no cgroup changed wrote %d pids, want none", moves)
	}
	e.cgroup(c, 5001, 5002, 5003, 5004) // another exec
	if n := p.rescan(); n != 1 || moves != 1 {
		t.Errorf("the rescan after one more exec: moved %d (%d writes), want 1", n, moves)
	}
	if got := counter(t, e.met, "tgroup_nri_rescan_moved_total"); got != 3 {
		t.Errorf("tgroup_nri_rescan_moved_total %v, want 3", got)
	}
	if n := e.log.count("rescan: pod ns/app container c", "moved into k8s.ns.app"); n != 1 {
		t.Errorf("the rescan's line logged %d times, want once per container", n)
	}
	// idle's cgroup goes (it exited; no StopContainer yet): not watched any more
	_ = os.RemoveAll(e.cgDir(d))
	p.rescan()
	p.mu.Lock()
	_, watched := p.placed[d.Id]
	p.mu.Unlock()
	if watched {
		t.Error("a container whose cgroup went is still watched")
	}
}

// The rescan runs by itself at the policy's rescanInterval.
func TestRescanRunsAtThePolicysInterval(t *testing.T) {
	e := newEnv(t, 256)
	e.setPolicy("rescanInterval: 100ms\n")
	p := e.plugin()
	p.RescanInterval = 0 // the policy's
	e.rt.Connect(p)
	c := e.rt.Start(pod("ns", "app", Burstable, nil), "c", 5201)
	e.cgroup(c, 5201, 5202)
	waitFor(t, "the exec'd process moved by the periodic rescan", func() bool {
		return slices.Equal(e.fs.procs("k8s.ns.app"), []uint64{5201, 5202})
	})
	for in, want := range map[string]string{"rescanInterval: 10ms": "from 100ms to 1h", "rescanInterval: 2h": "from 100ms to 1h",
		"rescanInterval: 1": "rescanInterval \"1\"", "rescanInterval: soon": "a duration"} {
		if _, err := ParseConfig([]byte(in), nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("policy %q: %v, want an error with %q", in, err, want)
		}
	}
	for in, want := range map[string]time.Duration{"": time.Second, "rescanInterval: 0s": 0, "rescanInterval: 250ms": 250 * time.Millisecond} {
		if c, err := ParseConfig([]byte(in), nil); err != nil || c.rescan != want {
			t.Errorf("policy %q: rescan %v, %v; want %v", in, c.rescan, err, want)
		}
	}
}
