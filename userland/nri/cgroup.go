package tgnri

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/containerd/nri/pkg/api"
)

// Cgroups finds a container's processes in its cgroup: the cgroup.procs
// of the directory NRI's Linux.CgroupsPath names, which lists every
// process of the container, a double-forked daemon re-parented away from
// the container's init included. Root is the host's cgroup mount
// ("/sys/fs/cgroup"; the DaemonSet mounts the host's there), Proc the
// host's /proc (hostPID), read when the path does not resolve.
type Cgroups struct {
	Root string
	Proc string
}

// v1 hierarchies tried, in order, when Root is not a cgroup v2 mount: one
// that every container joins is enough.
var v1Hierarchies = []string{"unified", "pids", "memory", "cpu,cpuacct", "cpu", "systemd"}

// CgroupDir is the directory of container ctr's cgroup under Root, from
// Linux.CgroupsPath as the runtime resolved it for runc:
//   - cgroupfs driver: a path, "/kubepods/burstable/pod<uid>/<id>";
//   - systemd driver: "slice:prefix:name", e.g.
//     "kubepods-burstable-pod<uid>.slice:cri-containerd:<id>", which is
//     the unit <prefix>-<name>.scope inside the slice's expanded path
//     (kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice).
//
// On cgroup v1 the first hierarchy under Root that has the directory.
// When none has it, the cgroup of the container's init pid
// (/proc/<pid>/cgroup), only if that path names the container's ID (a
// pid that outlived its container may be another process now, in another
// container's cgroup). An error says what was tried.
func (c Cgroups) CgroupDir(ctr *api.Container) (string, error) {
	var tried []string
	// find is the first base that has rel
	find := func(rel string) string {
		for _, base := range c.bases() {
			d := filepath.Join(base, rel)
			if isDir(d) {
				return d
			}
			tried = append(tried, d)
		}
		return ""
	}
	rel, perr := CgroupRelPath(ctr.GetLinux().GetCgroupsPath())
	if perr != nil {
		tried = append(tried, perr.Error())
	} else if d := find(rel); d != "" {
		return d, nil
	}
	if pid := ctr.GetPid(); pid != 0 {
		if rel, err := c.procCgroup(pid); err != nil {
			tried = append(tried, err.Error())
		} else if id := ctr.GetId(); id == "" || !strings.Contains(rel, id) {
			tried = append(tried, fmt.Sprintf("/proc/%d/cgroup: %s, not container %q's", pid, rel, id))
		} else if d := find(rel); d != "" {
			return d, nil
		}
	}
	return "", fmt.Errorf("container cgroup not found (tried %s)", strings.Join(tried, ", "))
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// bases: Root itself on cgroup v2, else its v1 hierarchies.
func (c Cgroups) bases() []string {
	if _, err := os.Stat(filepath.Join(c.Root, "cgroup.controllers")); err == nil {
		return []string{c.Root}
	}
	var out []string
	for _, h := range v1Hierarchies {
		out = append(out, filepath.Join(c.Root, h))
	}
	return out
}

// CgroupRelPath turns Linux.CgroupsPath into a path relative to a
// cgroup hierarchy's root (see CgroupDir).
func CgroupRelPath(p string) (string, error) {
	if p == "" {
		return "", errors.New("the runtime sent no cgroups path")
	}
	parts := strings.Split(p, ":")
	if len(parts) == 1 {
		if strings.Contains(p, "..") {
			return "", fmt.Errorf("cgroups path %q: has ..", p)
		}
		return filepath.Clean("/" + p), nil
	}
	if len(parts) != 3 {
		return "", fmt.Errorf("cgroups path %q: neither a path nor slice:prefix:name", p)
	}
	slice, prefix, name := parts[0], parts[1], parts[2]
	if name == "" {
		return "", fmt.Errorf("cgroups path %q: no unit name", p)
	}
	dir, err := expandSlice(slice)
	if err != nil {
		return "", fmt.Errorf("cgroups path %q: %v", p, err)
	}
	unit := name
	if !strings.HasSuffix(name, ".slice") {
		unit = name + ".scope"
		if prefix != "" {
			unit = prefix + "-" + unit
		}
	}
	if unit == "" || strings.ContainsAny(unit, "/") || unit == ".." {
		return "", fmt.Errorf("cgroups path %q: bad unit name", p)
	}
	return filepath.Join(dir, unit), nil
}

// expandSlice is systemd's slice path: "a-b-c.slice" is
// /a.slice/a-b.slice/a-b-c.slice; "" and "-.slice" are the root.
func expandSlice(slice string) (string, error) {
	if slice == "" || slice == "-.slice" {
		return "/", nil
	}
	if !strings.HasSuffix(slice, ".slice") || strings.Contains(slice, "/") {
		return "", fmt.Errorf("%q is not a slice name", slice)
	}
	base := strings.TrimSuffix(slice, ".slice")
	if base == "" || strings.HasPrefix(base, "-") || strings.HasSuffix(base, "-") || strings.Contains(base, "--") {
		return "", fmt.Errorf("%q is not a slice name", slice)
	}
	path, prefix := "/", ""
	for _, comp := range strings.Split(base, "-") {
		prefix += comp
		path = filepath.Join(path, prefix+".slice")
		prefix += "-"
	}
	return path, nil
}

func (c Cgroups) proc() string {
	if c.Proc == "" {
		return "/proc"
	}
	return c.Proc
}

// StartTime is pid's start time (/proc/<pid>/stat field 22, clock ticks
// after boot): the pid and its start time name one process for good (a
// pid reused by another process has another start time).
func (c Cgroups) StartTime(pid uint32) (uint64, error) {
	p := filepath.Join(c.proc(), strconv.FormatUint(uint64(pid), 10), "stat")
	b, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	// the command (field 2) is in parentheses and may hold any byte
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("%s: no command field", p)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 { // f[0] is field 3 (state), f[19] field 22
		return 0, fmt.Errorf("%s: %d fields after the command, want 20 or more", p, len(f))
	}
	st, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: start time %q: %v", p, f[19], err)
	}
	return st, nil
}

// procCgroup is pid's cgroup path from /proc/<pid>/cgroup: the v2 line
// ("0::/path") or, on v1, the pids (else any named) hierarchy's.
func (c Cgroups) procCgroup(pid uint32) (string, error) {
	f, err := os.Open(filepath.Join(c.proc(), strconv.FormatUint(uint64(pid), 10), "cgroup"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	var v1 string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			return parts[2], nil
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			if ctl == "pids" || (v1 == "" && ctl != "") {
				v1 = parts[2]
			}
		}
	}
	if v1 == "" {
		return "", fmt.Errorf("/proc/%d/cgroup: no cgroup line", pid)
	}
	return v1, nil
}

// Procs lists the pids in a cgroup directory's cgroup.procs (in the
// reader's pid namespace: the plugin needs hostPID).
func Procs(dir string) ([]uint32, error) {
	_, pids, err := readProcs(dir)
	return pids, err
}

// readProcs is Procs with the file as read.
func readProcs(dir string) (string, []uint32, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return "", nil, err
	}
	pids, err := parseProcs(dir, b)
	return string(b), pids, err
}

func parseProcs(dir string, b []byte) ([]uint32, error) {
	var out []uint32
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.ParseUint(f, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s/cgroup.procs: %q: %v", dir, f, err)
		}
		out = append(out, uint32(n))
	}
	return out, nil
}
