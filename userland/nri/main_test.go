package tgnri

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	nri "github.com/containerd/nri/pkg/adaptation"

	"tgroup/userland/nri/internal/testbin"
)

// syncBuf is a goroutine-safe buffer for a process's output.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// binary runs cmd/tgroup-nri against runtime rt: a mount stand-in, its
// own state and cgroup root, the HTTP endpoints on a free local port.
func binary(t *testing.T, rt *fakeRuntime, policy string) (*proc, *syncBuf, string) {
	t.Helper()
	return binaryWithState(t, rt, policy, filepath.Join(t.TempDir(), "groups"))
}

// binaryWithState is binary with the state file given (a restart).
func binaryWithState(t *testing.T, rt *fakeRuntime, policy, state string) (*proc, *syncBuf, string) {
	t.Helper()
	mount := t.TempDir()
	if err := os.WriteFile(filepath.Join(mount, "tgroup.config"), []byte("period_ms=10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(testbin.Plugin(t, "."), "-mount="+mount, "-socket="+rt.Socket(), "-listen="+addr,
		"-state="+state, "-cgroup-root="+t.TempDir(), "-config="+cfg)
	out := &syncBuf{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, done: make(chan int, 1)}
	go func() {
		_ = cmd.Wait()
		p.done <- cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); p.exited(10 * time.Second) })
	return p, out, "http://" + addr
}

func httpGet(url string) (int, string) {
	r, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b)
}

// proc is a started binary: its exit status arrives on done, once.
type proc struct {
	cmd  *exec.Cmd
	done chan int
	rc   *int
}

// exited waits up to within for the process to exit and gives its exit
// status (-1: still running).
func (p *proc) exited(within time.Duration) int {
	if p.rc != nil {
		return *p.rc
	}
	select {
	case rc := <-p.done:
		p.rc = &rc
		return rc
	case <-time.After(within):
		return -1
	}
}

// runtimeProcess is a runtime with no pods serving NRI on socket until
// it is killed (TestMain's TGNRI_CHILD=runtime).
func runtimeProcess(socket string) int {
	dir := filepath.Dir(socket)
	r, err := nri.New("fake-runtime", "0.1",
		func(ctx context.Context, cb nri.SyncCB) error { _, err := cb(ctx, nil, nil); return err },
		func(context.Context, []*nri.ContainerUpdate) ([]*nri.ContainerUpdate, error) { return nil, nil },
		nri.WithPluginPath(filepath.Join(dir, "plugins")), nri.WithPluginConfigPath(filepath.Join(dir, "conf.d")),
		nri.WithSocketPath(socket))
	if err == nil {
		err = r.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	select {}
}

// The binary as the DaemonSet runs it: ready once synchronized, its
// metrics served, and when the runtime goes away (its process killed) it
// exits 1 (the kubelet restarts it and the new process resyncs).
func TestBinaryReadyThenExitsWithTheRuntime(t *testing.T) {
	dir, err := os.MkdirTemp("", "tgnri-") // short: a unix socket path
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	rtp := exec.Command(os.Args[0])
	rtp.Env = append(os.Environ(), "TGNRI_CHILD=runtime", "TGNRI_SOCKET="+filepath.Join(dir, "nri.sock"))
	rtp.Stderr = io.Discard
	if err := rtp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rtp.Process.Kill(); _ = rtp.Wait() })
	waitFor(t, "the runtime's socket", func() bool { _, err := os.Stat(filepath.Join(dir, "nri.sock")); return err == nil })
	rt := &fakeRuntime{dir: dir}
	cmd, out, url := binary(t, rt, "nodeConfig: {period_ms: 20}\n")
	waitFor(t, "/readyz 200 from the binary", func() bool { code, _ := httpGet(url + "/readyz"); return code == 200 })
	_, m := httpGet(url + "/metrics")
	for _, want := range []string{`tgroup_nri_runtime_info{runtime="fake-runtime",version="0.1"} 1`, "tgroup_nri_ready 1", "tgroup_nri_groups_owned 0"} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if code, _ := httpGet(url + "/healthz"); code != 200 {
		t.Errorf("/healthz %d", code)
	}
	if !strings.Contains(out.String(), "configured by fake-runtime 0.1: policy from ") || !strings.Contains(out.String(), `tgroup.config "period_ms=20"`) {
		t.Errorf("no configuration line naming the runtime, the policy file and the node settings:\n%s", out)
	}
	_ = rtp.Process.Kill()
	if rc := cmd.exited(10 * time.Second); rc != 1 {
		t.Errorf("after the runtime went away: exit status %d, want 1 (-1: still running)\n%s", rc, out)
	}
	if !strings.Contains(out.String(), "connection to the runtime closed") {
		t.Errorf("no line saying why it exits:\n%s", out)
	}
}

// A runtime that sends no pid: the binary says so once, stays up not
// ready (no restart loop), and exits 0 on SIGTERM.
func TestBinaryRefusesARuntimeWithoutPids(t *testing.T) {
	rt := newFakeRuntimeAs(t, "cri-o", "1.35.2")
	cmd, out, url := binary(t, rt, "")
	waitFor(t, "/readyz saying refused", func() bool {
		code, body := httpGet(url + "/readyz")
		return code == 503 && strings.Contains(body, "refused: cri-o 1.35.2 sends no container pid")
	})
	if rc := cmd.exited(time.Second); rc != -1 {
		t.Fatalf("the binary exited (%d) after refusing the runtime; want it up, not ready:\n%s", rc, out)
	}
	if n := strings.Count(out.String(), "REFUSED:"); n != 1 {
		t.Errorf("%d REFUSED lines, want 1:\n%s", n, out)
	}
	if code, _ := httpGet(url + "/healthz"); code != 200 {
		t.Errorf("/healthz %d: a refused plugin is alive (not restarted)", code)
	}
	if err := cmd.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if rc := cmd.exited(10 * time.Second); rc != 0 {
		t.Errorf("SIGTERM: exit status %d, want 0", rc)
	}
}

// A policy that does not parse: the binary exits 2 at start, naming it.
func TestBinaryRefusesABadPolicy(t *testing.T) {
	rt := newFakeRuntime(t)
	cmd, out, _ := binary(t, rt, "rules: [{name: r, allow: {hihgPriority: true}}]\n")
	if rc := cmd.exited(10 * time.Second); rc != 2 || !strings.Contains(out.String(), `unknown field "hihgPriority"`) {
		t.Errorf("exit status %d, output %q; want 2 naming the field", rc, out)
	}
}

// A policy that stops parsing after one that did (kept next to the state
// file): the restarted binary runs with the last good one, up and not
// ready, /readyz saying why.
func TestBinaryStartsWithTheLastGoodPolicy(t *testing.T) {
	rt := newFakeRuntime(t)
	state := filepath.Join(t.TempDir(), "groups")
	cmd, out, url := binaryWithState(t, rt, "nodeConfig: {period_ms: 20}\n", state)
	waitFor(t, "/readyz 200 from the binary", func() bool { code, _ := httpGet(url + "/readyz"); return code == 200 })
	_ = cmd.cmd.Process.Kill()
	cmd.exited(10 * time.Second)
	cmd, out, url = binaryWithState(t, rt, "rules: [{name: r, allow: {hihgPriority: true}}]\n", state)
	waitFor(t, "/readyz saying the policy does not parse", func() bool {
		code, body := httpGet(url + "/readyz")
		return code == 503 && strings.Contains(body, "the policy does not parse (running with the last good one)")
	})
	if rc := cmd.exited(time.Second); rc != -1 || !strings.Contains(out.String(), "starting with the last good policy ("+LastGoodPath(state)+")") {
		t.Errorf("exit status %d (-1: running), output:\n%s", rc, out)
	}
}
