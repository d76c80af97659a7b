package tgnri

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// FS is the part of a tgroup mount (docs/abi.md) the plugin uses. Errors
// are the kernel's (syscall.Errno inside *os.PathError): ENOSPC at
// max_groups, EEXIST, EBUSY, ENOENT, ESRCH for a pid that is gone.
type FS interface {
	Mkdir(group string) error
	Rmdir(group string) error
	// Groups lists the child groups.
	Groups() ([]string, error)
	// Write writes data to a group's file in one write(2).
	Write(group, file, data string) error
	Read(group, file string) (string, error)
	// LastCmdStatus is the mount's last_cmd_status ("" if unreadable).
	LastCmdStatus() string
}

// Mount is FS on a mounted tgroup filesystem (or anything laid out like
// one) at Root.
type Mount struct{ Root string }

func (m Mount) Mkdir(group string) error { return os.Mkdir(filepath.Join(m.Root, group), 0o755) }
func (m Mount) Rmdir(group string) error { return os.Remove(filepath.Join(m.Root, group)) }

func (m Mount) Groups() ([]string, error) {
	ents, err := os.ReadDir(m.Root)
	if err != nil {
		return nil, err
	}
	var gs []string
	for _, e := range ents {
		if e.IsDir() {
			gs = append(gs, e.Name())
		}
	}
	sort.Strings(gs)
	return gs, nil
}

func (m Mount) Write(group, file, data string) error {
	f, err := os.OpenFile(filepath.Join(m.Root, group, file), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte(data))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (m Mount) Read(group, file string) (string, error) {
	b, err := os.ReadFile(filepath.Join(m.Root, group, file))
	return string(b), err
}

func (m Mount) LastCmdStatus() string {
	b, err := os.ReadFile(filepath.Join(m.Root, "last_cmd_status"))
	if err != nil {
		return ""
	}
	return string(trimNL(b))
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// MovePid moves process pid (every thread) into group: one write of the
// pid to cgroup.procs.
func MovePid(fs FS, group string, pid uint32) error {
	return fs.Write(group, "cgroup.procs", strconv.FormatUint(uint64(pid), 10))
}
