package tgnri

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// standin is a host directory laid out like a tgroup mount, with the
// kernel's rules for the writes the plugin makes (docs/abi.md): mkdir
// makes the group's files with their defaults, ENOSPC past max_groups,
// EBUSY on rmdir of a group with processes, a pid is in one group at a
// time, strict tgroup.priority/tgroup.limit syntax (EINVAL). The tests
// read its files directly.
type standin struct {
	Mount
	max  int
	gone map[uint64]bool // pids that exited: ESRCH on a move
	// onMove runs after a pid moved (a test's process forking meanwhile)
	onMove func(pid uint64)
}

func newStandin(t *testing.T, max int) *standin {
	t.Helper()
	root := t.TempDir()
	for f, v := range map[string]string{"cgroup.procs": "", "tgroup.config": "period_ms=10\n", "last_cmd_status": "ok\n"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &standin{Mount: Mount{Root: root}, max: max}
}

func perr(op, path string, e syscall.Errno) error { return &os.PathError{Op: op, Path: path, Err: e} }

func (s *standin) status(msg string) {
	_ = os.WriteFile(filepath.Join(s.Root, "last_cmd_status"), []byte(msg+"\n"), 0o644)
}

func (s *standin) Mkdir(group string) error {
	gs, _ := s.Groups()
	if _, err := os.Stat(filepath.Join(s.Root, group)); err == nil {
		return perr("mkdir", group, syscall.EEXIST)
	}
	if !ValidGroupName(group) {
		return perr("mkdir", group, syscall.EINVAL)
	}
	if len(gs) >= s.max {
		s.status("mkdir: max_groups (" + strconv.Itoa(s.max) + ") reached")
		return perr("mkdir", group, syscall.ENOSPC)
	}
	if err := s.Mount.Mkdir(group); err != nil {
		return err
	}
	for f, v := range map[string]string{"cgroup.procs": "", "tgroup.priority": "low\n",
		"tgroup.limit": "dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=max\n"} {
		if err := os.WriteFile(filepath.Join(s.Root, group, f), []byte(v), 0o644); err != nil {
			return err
		}
	}
	s.status("ok")
	return nil
}

func (s *standin) Rmdir(group string) error {
	dir := filepath.Join(s.Root, group)
	if _, err := os.Stat(dir); err != nil {
		return perr("rmdir", group, syscall.ENOENT)
	}
	if len(s.procs(group)) > 0 {
		return perr("rmdir", group, syscall.EBUSY)
	}
	for _, f := range []string{"cgroup.procs", "tgroup.priority", "tgroup.limit"} {
		_ = os.Remove(filepath.Join(dir, f))
	}
	return os.Remove(dir)
}

// procs reads a group's cgroup.procs ("" = the root group).
func (s *standin) procs(group string) []uint64 {
	b, _ := os.ReadFile(filepath.Join(s.Root, group, "cgroup.procs"))
	var ps []uint64
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.ParseUint(f, 10, 32)
		ps = append(ps, n)
	}
	return ps
}

func (s *standin) setProcs(group string, ps []uint64) error {
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(strconv.FormatUint(p, 10) + "\n")
	}
	return os.WriteFile(filepath.Join(s.Root, group, "cgroup.procs"), []byte(b.String()), 0o644)
}

func (s *standin) Write(group, file, data string) error {
	data = strings.TrimSuffix(data, "\n")
	if _, err := os.Stat(filepath.Join(s.Root, group, file)); err != nil {
		return perr("open", file, syscall.ENOENT)
	}
	switch file {
	case "cgroup.procs":
		pid, err := strconv.ParseUint(data, 10, 32)
		if err != nil || pid == 0 {
			s.status("cgroup.procs: not a pid")
			return perr("write", file, syscall.EINVAL)
		}
		if s.gone[pid] {
			return perr("write", file, syscall.ESRCH)
		}
		// a pid is in exactly one group: leave the others (the root too)
		gs, _ := s.Groups()
		for _, g := range append(gs, "") {
			var keep []uint64
			for _, p := range s.procs(g) {
				if p != pid {
					keep = append(keep, p)
				}
			}
			if g == group {
				keep = append(keep, pid)
			}
			if err := s.setProcs(g, keep); err != nil {
				return err
			}
		}
		if s.onMove != nil {
			s.onMove(pid)
		}
	case "tgroup.priority":
		if data != "high" && data != "low" {
			s.status("tgroup.priority: high or low")
			return perr("write", file, syscall.EINVAL)
		}
		return os.WriteFile(filepath.Join(s.Root, group, file), []byte(data+"\n"), 0o644)
	case "tgroup.limit":
		cur, _ := os.ReadFile(filepath.Join(s.Root, group, file))
		vals := map[string]string{}
		for _, kv := range strings.Fields(string(cur)) {
			k, v, _ := strings.Cut(kv, "=")
			vals[k] = v
		}
		if strings.TrimSpace(data) == "" {
			return perr("write", file, syscall.EINVAL)
		}
		for _, kv := range strings.Split(data, " ") {
			k, v, ok := strings.Cut(kv, "=")
			if _, known := vals[k]; !ok || !known {
				s.status("tgroup.limit: unknown key")
				return perr("write", file, syscall.EINVAL)
			}
			if n, err := strconv.ParseUint(v, 10, 64); v != "max" && (err != nil || n == Max) {
				s.status("tgroup.limit: bad number")
				return perr("write", file, syscall.EINVAL)
			}
			vals[k] = v
		}
		var out []string
		for _, k := range LimitKeys {
			out = append(out, k+"="+vals[k])
		}
		return os.WriteFile(filepath.Join(s.Root, group, file), []byte(strings.Join(out, " ")+"\n"), 0o644)
	case "tgroup.config":
		// the root's: known writable keys, whole numbers, all or nothing
		known := map[string]bool{"period_ms": true, "enabled": true, "preventive": true, "remedial": true, "relax_periods": true}
		cur := map[string]string{}
		b, _ := os.ReadFile(filepath.Join(s.Root, file))
		for _, kv := range strings.Fields(string(b)) {
			k, v, _ := strings.Cut(kv, "=")
			cur[k] = v
		}
		for _, kv := range strings.Fields(data) {
			k, v, _ := strings.Cut(kv, "=")
			if _, err := strconv.ParseUint(v, 10, 32); !known[k] || err != nil || group != "" {
				s.status("tgroup.config: unknown key or bad value: " + kv)
				return perr("write", file, syscall.EINVAL)
			}
		}
		for _, kv := range strings.Fields(data) {
			k, v, _ := strings.Cut(kv, "=")
			cur[k] = v
		}
		var out []string
		for k, v := range cur {
			out = append(out, k+"="+v)
		}
		sort.Strings(out)
		return os.WriteFile(filepath.Join(s.Root, file), []byte(strings.Join(out, "\n")+"\n"), 0o644)
	default:
		return perr("write", file, syscall.EACCES)
	}
	s.status("ok")
	return nil
}
