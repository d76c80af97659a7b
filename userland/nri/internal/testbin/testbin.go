// Package testbin gives tests the tgroup-nri binary: make check's build
// (TG_NRI_BIN), else one built once per test process from ./cmd/tgroup-nri.
package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	once  sync.Once
	built string
	err   error
	out   []byte
)

// Plugin is the path of a tgroup-nri binary built from moduleRoot (the
// directory of userland/nri's go.mod, relative to the test's package).
func Plugin(t *testing.T, moduleRoot string) string {
	t.Helper()
	if b := os.Getenv("TG_NRI_BIN"); b != "" {
		return b
	}
	once.Do(func() {
		var dir string
		if dir, err = os.MkdirTemp("", "tgnri-bin-"); err != nil {
			return
		}
		built = filepath.Join(dir, "tgroup-nri")
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", built, "./cmd/tgroup-nri")
		cmd.Dir = moduleRoot
		out, err = cmd.CombinedOutput()
	})
	if err != nil {
		t.Fatalf("building tgroup-nri: %v: %s", err, out)
	}
	return built
}
