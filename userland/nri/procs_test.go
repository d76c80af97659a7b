package tgnri

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// ProcDir on a directory laid out like /proc (the host running go test
// may lack CONFIG_PROC_CHILDREN; the guest suite reads the real one).
func TestProcDirChildren(t *testing.T) {
	root := t.TempDir()
	put := func(rel, data string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("10/task/10/children", "11 12 ")
	put("10/task/13/children", "14 ")                                             // a thread's child
	put("11/task/11/children", "")                                                // no children
	if err := os.MkdirAll(filepath.Join(root, "20/task/20"), 0o755); err != nil { // no children file
		t.Fatal(err)
	}
	put("30/task/30/children", "x")
	d := ProcDir{Root: root}
	if got, err := d.Children(10); err != nil || !slices.Equal(got, []uint32{11, 12, 14}) {
		t.Errorf("Children(10) = %v, %v; want [11 12 14]", got, err)
	}
	if got, err := d.Children(11); err != nil || len(got) != 0 {
		t.Errorf("Children(11) = %v, %v; want none", got, err)
	}
	if _, err := d.Children(99); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Children(99) of a gone pid: %v, want ENOENT", err)
	}
	if _, err := d.Children(20); err == nil || errors.Is(err, os.ErrNotExist) {
		t.Errorf("Children(20) without a children file: %v, want an error that is not \"gone\" (logged)", err)
	}
	if _, err := d.Children(30); err == nil {
		t.Error("Children(30) of a malformed file: no error")
	}
}
