package tgnri

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	nri "github.com/containerd/nri/pkg/adaptation"
	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"
	"google.golang.org/protobuf/proto"
)

// fakeRuntime is a container runtime as far as NRI sees one: nri's
// adaptation.Adaptation (what containerd and CRI-O embed) on a unix socket
// in a temporary directory, with the pods and containers it reports at
// Synchronize. Re-created after nri's own pkg/adaptation/suite_test.go
// (mockRuntime), which is not importable.
type fakeRuntime struct {
	t    *testing.T
	dir  string
	nri  *nri.Adaptation
	mu   sync.Mutex
	pods map[string]*api.PodSandbox
	ctrs map[string]*api.Container
	// started: the container's process exists with pid (runc made its
	// cgroup and put it there); removed: the cgroup went with it. nil:
	// nothing to do (the stand-in tests) or done by the test itself.
	started func(c *api.Container, pid uint32)
	removed func(c *api.Container)
	// duringSync runs while the runtime synchronizes a plugin, before the
	// plugin has the data (as a container started then: no event reaches it)
	duringSync func()
}

func newFakeRuntime(t *testing.T) *fakeRuntime {
	t.Helper()
	return newFakeRuntimeAs(t, "fake-runtime", "0.1")
}

// newFakeRuntimeAs is a fake runtime that gives NRI plugins its name and
// version (the plugin's runtime gate reads them).
func newFakeRuntimeAs(t *testing.T, name, version string) *fakeRuntime {
	t.Helper()
	// short path: unix socket names are limited to 108 bytes
	dir, err := os.MkdirTemp("", "tgnri-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"plugins", "conf.d"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := &fakeRuntime{t: t, dir: dir, pods: map[string]*api.PodSandbox{}, ctrs: map[string]*api.Container{}}
	r.nri, err = nri.New(name, version, r.synchronize,
		func(context.Context, []*nri.ContainerUpdate) ([]*nri.ContainerUpdate, error) { return nil, nil },
		nri.WithPluginPath(filepath.Join(dir, "plugins")),
		nri.WithPluginConfigPath(filepath.Join(dir, "conf.d")),
		nri.WithSocketPath(r.Socket()))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.nri.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.nri.Stop)
	return r
}

func (r *fakeRuntime) Socket() string { return filepath.Join(r.dir, "nri.sock") }

func (r *fakeRuntime) synchronize(ctx context.Context, cb nri.SyncCB) error {
	r.mu.Lock()
	var pods []*api.PodSandbox
	var ctrs []*api.Container
	for _, p := range r.pods {
		pods = append(pods, p)
	}
	for _, c := range r.ctrs {
		ctrs = append(ctrs, proto.Clone(c).(*api.Container)) // the state now, as a runtime's snapshot
	}
	during := r.duringSync
	r.mu.Unlock()
	if during != nil {
		during()
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].Id < pods[j].Id })
	sort.Slice(ctrs, func(i, j int) bool { return ctrs[i].Id < ctrs[j].Id })
	_, err := cb(ctx, pods, ctrs)
	return err
}

// pod describes a pod: QoS class (via kubelet's cgroup parent naming) and
// annotations.
func pod(ns, name string, qos QoS, ann map[string]string) *api.PodSandbox {
	uid := fmt.Sprintf("%08x-0000-4000-8000-%012x", len(ns)*7919+len(name), len(name)*104729)
	parent := map[QoS]string{
		Guaranteed: "/kubepods/pod" + uid,
		Burstable:  "/kubepods/burstable/pod" + uid,
		BestEffort: "kubepods-besteffort-pod" + strings.ReplaceAll(uid, "-", "_") + ".slice",
	}[qos]
	return &api.PodSandbox{Id: "sandbox-" + ns + "-" + name, Name: name, Namespace: ns, Uid: uid,
		Annotations: ann, Linux: &api.LinuxPodSandbox{CgroupParent: parent}}
}

// ctrOf is container name of pod p as the runtime describes it before it
// starts: its ID, and the cgroups path the runtime gives runc, after
// kubelet's cgroup parent: systemd driver "slice:cri-containerd:<id>" for
// a slice parent, else (cgroupfs) "<parent>/<id>".
func ctrOf(p *api.PodSandbox, name string) *api.Container {
	id := fmt.Sprintf("%x", sha256.Sum256([]byte(p.Id+"/"+name)))
	parent := p.GetLinux().GetCgroupParent()
	cg := path.Join("/", parent, id)
	if strings.HasSuffix(parent, ".slice") {
		cg = parent + ":cri-containerd:" + id
	} else if parent == "" {
		cg = path.Join("/tgnri-test", id)
	}
	return &api.Container{Id: id, PodSandboxId: p.Id, Name: name, State: api.ContainerState_CONTAINER_CREATED,
		Linux: &api.LinuxContainer{CgroupsPath: cg}}
}

// addCreated makes container name of pod p known to the runtime as
// created, not started (what its Synchronize reports), with no event.
func (r *fakeRuntime) addCreated(p *api.PodSandbox, name string) *api.Container {
	c := ctrOf(p, name)
	r.mu.Lock()
	r.pods[p.Id], r.ctrs[c.Id] = p, c
	r.mu.Unlock()
	return c
}

// Start runs a container of pod through the runtime's events up to
// PostStartContainer, as containerd does: created (pid 0), then started
// with its init pid.
func (r *fakeRuntime) Start(p *api.PodSandbox, name string, pid uint32) *api.Container {
	r.t.Helper()
	ctx := context.Background()
	r.mu.Lock()
	first := r.pods[p.Id] == nil
	r.pods[p.Id] = p
	r.mu.Unlock()
	if first {
		if err := r.nri.RunPodSandbox(ctx, &api.RunPodSandboxRequest{Pod: p}); err != nil {
			r.t.Fatalf("RunPodSandbox: %v", err)
		}
	}
	c := ctrOf(p, name)
	if _, err := r.nri.CreateContainer(ctx, &api.CreateContainerRequest{Pod: p, Container: c}); err != nil {
		r.t.Fatalf("CreateContainer: %v", err)
	}
	c.Pid = pid
	if r.started != nil {
		r.started(c, pid)
	}
	if err := r.nri.StartContainer(ctx, &api.StartContainerRequest{Pod: p, Container: c}); err != nil {
		r.t.Fatalf("StartContainer %s: the pod must start, got %v", c.Id, err)
	}
	c.State = api.ContainerState_CONTAINER_RUNNING
	r.mu.Lock()
	r.ctrs[c.Id] = c
	r.mu.Unlock()
	if err := r.nri.PostStartContainer(ctx, &api.PostStartContainerRequest{Pod: p, Container: c}); err != nil {
		r.t.Fatalf("PostStartContainer: %v", err)
	}
	return c
}

// ctrsOf lists the containers of namespace ns' pods the runtime has.
func (r *fakeRuntime) ctrsOf(ns string) []*api.Container {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*api.Container
	for _, c := range r.ctrs {
		if p := r.pods[c.PodSandboxId]; p != nil && p.Namespace == ns {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Id < out[j].Id })
	return out
}

// Remove stops and removes a container (and its pod after its last one).
func (r *fakeRuntime) Remove(c *api.Container) {
	r.t.Helper()
	ctx := context.Background()
	r.mu.Lock()
	p := r.pods[c.PodSandboxId]
	delete(r.ctrs, c.Id)
	last := true
	for _, o := range r.ctrs {
		if o.PodSandboxId == c.PodSandboxId {
			last = false
		}
	}
	if last {
		delete(r.pods, c.PodSandboxId)
	}
	r.mu.Unlock()
	c.State = api.ContainerState_CONTAINER_STOPPED
	if r.removed != nil {
		r.removed(c)
	}
	if _, err := r.nri.StopContainer(ctx, &api.StopContainerRequest{Pod: p, Container: c}); err != nil {
		r.t.Fatalf("StopContainer: %v", err)
	}
	if err := r.nri.RemoveContainer(ctx, &api.RemoveContainerRequest{Pod: p, Container: c}); err != nil {
		r.t.Fatalf("RemoveContainer: %v", err)
	}
	if last {
		if err := r.nri.StopPodSandbox(ctx, &api.StopPodSandboxRequest{Pod: p}); err != nil {
			r.t.Fatalf("StopPodSandbox: %v", err)
		}
		if err := r.nri.RemovePodSandbox(ctx, &api.RemovePodSandboxRequest{Pod: p}); err != nil {
			r.t.Fatalf("RemovePodSandbox: %v", err)
		}
	}
}

// syncedPlugin reports when the runtime's Synchronize reached it.
type syncedPlugin struct {
	*Plugin
	synced chan struct{}
}

func (s *syncedPlugin) Synchronize(ctx context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
	u, err := s.Plugin.Synchronize(ctx, pods, ctrs)
	close(s.synced)
	return u, err
}

// logBuf collects the plugin's log lines.
type logBuf struct {
	mu    sync.Mutex
	lines []string
	t     *testing.T
	done  bool // the test ended: a settle goroutine may still log
}

func newLogBuf(t *testing.T) *logBuf {
	l := &logBuf{t: t}
	t.Cleanup(func() { l.mu.Lock(); l.done = true; l.mu.Unlock() })
	return l
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := fmt.Sprintf(format, args...)
	l.lines = append(l.lines, s)
	if !l.done {
		l.t.Log("plugin: " + s)
	}
}

// count is how many lines contain every one of parts.
func (l *logBuf) count(parts ...string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
next:
	for _, s := range l.lines {
		for _, p := range parts {
			if !strings.Contains(s, p) {
				continue next
			}
		}
		n++
	}
	return n
}

// has is the first line containing every one of parts.
func (l *logBuf) has(parts ...string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
next:
	for _, s := range l.lines {
		for _, p := range parts {
			if !strings.Contains(s, p) {
				continue next
			}
		}
		return s
	}
	return ""
}

// Connect starts p as an NRI plugin on the runtime's socket (as
// tgroup-nri's main does) and waits for its Synchronize. The returned
// stop closes the connection as a crash would (no cleanup runs).
func (r *fakeRuntime) Connect(p *Plugin) (stop func()) {
	r.t.Helper()
	sp := &syncedPlugin{Plugin: p, synced: make(chan struct{})}
	s, err := stub.New(sp, stub.WithPluginName("tgroup"), stub.WithPluginIdx("50"), stub.WithSocketPath(r.Socket()))
	if err != nil {
		r.t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		r.t.Fatal(err)
	}
	select {
	case <-sp.synced:
	case <-time.After(10 * time.Second):
		r.t.Fatal("no Synchronize within 10 s")
	}
	// registration completes after the sync: wait for it as nri's tests do
	r.nri.BlockPluginSync().Unblock()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			s.Stop()
			s.Wait()
			p.Close()
		}
	}
	r.t.Cleanup(stop)
	return stop
}
