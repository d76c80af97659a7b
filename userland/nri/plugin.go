package tgnri

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/containerd/nri/pkg/api"
)

// Plugin is tgroup-nri: it implements the stub interfaces for the events
// it handles (StartContainer, PostStartContainer, StopContainer,
// RemoveContainer, Synchronize). It never fails a pod: every problem is logged and the
// container keeps running where it is.
type Plugin struct {
	FS FS
	// Proc finds the processes a container's init forked before the
	// plugin placed it (ProcDir{"/proc"} when nil).
	Proc     Procs
	Defaults Defaults
	// StatePath keeps the names of the groups the plugin created, so that
	// after a restart it removes only those (never a group an admin made).
	// "" keeps them in memory only.
	StatePath string
	// Logf logs one line (log.Printf when nil).
	Logf func(format string, args ...any)

	mu       sync.Mutex
	loaded   bool
	owned    map[string]bool            // groups this plugin created
	members  map[string]map[string]bool // group -> container IDs placed in it
	ctrGroup map[string]string          // container ID -> group
	pending  map[string]pendingCtr      // containers left out by max_groups, by ID
	stopped  map[string]string          // container ID -> group it left at StopContainer
	logged   map[string]map[string]bool // container ID -> kinds of line logged once
}

type pendingCtr struct {
	pod *api.PodSandbox
	ctr *api.Container
}

func (p *Plugin) logf(format string, args ...any) {
	if p.Logf != nil {
		p.Logf(format, args...)
	} else {
		log.Printf(format, args...)
	}
}

func podName(pod *api.PodSandbox) string { return pod.GetNamespace() + "/" + pod.GetName() }

func (p *Plugin) init() {
	if p.loaded {
		return
	}
	p.loaded = true
	p.owned = map[string]bool{}
	p.members = map[string]map[string]bool{}
	p.ctrGroup = map[string]string{}
	p.pending = map[string]pendingCtr{}
	p.stopped = map[string]string{}
	p.logged = map[string]map[string]bool{}
	if p.Defaults == nil {
		p.Defaults = DefaultPriorities
	}
	if p.StatePath == "" {
		return
	}
	b, err := os.ReadFile(p.StatePath)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			p.logf("state %s: %v (starting with no owned groups)", p.StatePath, err)
		}
		return
	}
	for _, g := range strings.Fields(string(b)) {
		if ValidGroupName(g) {
			p.owned[g] = true
		}
	}
}

func (p *Plugin) saveState() {
	if p.StatePath == "" {
		return
	}
	var gs []string
	for g := range p.owned {
		gs = append(gs, g)
	}
	sort.Strings(gs)
	data := strings.Join(gs, "\n")
	if data != "" {
		data += "\n"
	}
	tmp := p.StatePath + ".tmp"
	err := os.MkdirAll(filepath.Dir(p.StatePath), 0o755)
	if err == nil {
		err = os.WriteFile(tmp, []byte(data), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, p.StatePath)
	}
	if err != nil {
		p.logf("state %s: %v (a restart may leave a group it made behind)", p.StatePath, err)
	}
}

// errno names the kernel's error, and adds last_cmd_status when the
// module set it.
func (p *Plugin) why(err error) string {
	var en syscall.Errno
	s := err.Error()
	if errors.As(err, &en) {
		if st := p.FS.LastCmdStatus(); st != "" && st != "ok" && (en == syscall.EINVAL || en == syscall.ENOSPC) {
			s += ": " + st
		}
	}
	return s
}

// ensureGroup creates group unless it exists. An error: it does not exist
// and could not be made (logged).
func (p *Plugin) ensureGroup(pod *api.PodSandbox, id, group string) error {
	fresh := !p.owned[group]
	if fresh {
		// recorded before mkdir: a crash between the two leaves a name
		// that Synchronize drops (ENOENT), never an unrecorded group
		p.owned[group] = true
		p.saveState()
	}
	err := p.FS.Mkdir(group)
	switch {
	case err == nil:
		p.logf("pod %s: created group %s", podName(pod), group)
		return nil
	case errors.Is(err, syscall.EEXIST):
		if fresh { // someone else's group: never ours to remove
			delete(p.owned, group)
			p.saveState()
		}
		return nil
	}
	if fresh {
		delete(p.owned, group)
		p.saveState()
	}
	if errors.Is(err, syscall.ENOSPC) {
		if !p.once(id, "max_groups") {
			return err
		}
		p.logf("EVENT max_groups: pod %s: group %s not created: the mount already has max_groups groups (%s); "+
			"the pod runs in the root group, unthrottled and unprotected, until the plugin removes a group or resyncs", podName(pod), group, p.why(err))
	} else {
		p.logf("pod %s: group %s not created: %s; the pod runs in the root group", podName(pod), group, p.why(err))
	}
	return err
}

// place puts ctr's init pid into its pod's group with the pod's policy,
// and with tree its descendants too (a container that ran before the
// plugin placed it: its init may have forked; at StartContainer the
// workload has not run). Idempotent: StartContainer, PostStartContainer
// and Synchronize all call it for the same container.
func (p *Plugin) place(event string, pod *api.PodSandbox, ctr *api.Container, tree bool) {
	pol := PolicyFor(pod, p.Defaults)
	if len(pol.Problems) > 0 && p.once(ctr.GetId(), "annotations") {
		for _, pr := range pol.Problems {
			p.logf("pod %s: invalid annotation %s", podName(pod), pr)
		}
	}
	pid := ctr.GetPid()
	if pid == 0 {
		p.logf("%s: pod %s container %s: no pid yet, nothing to move", event, podName(pod), ctr.GetName())
		return
	}
	if err := p.ensureGroup(pod, ctr.GetId(), pol.Group); err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			p.pending[ctr.GetId()] = pendingCtr{pod, ctr}
		}
		return
	}
	delete(p.pending, ctr.GetId())
	// A group the plugin made gets the whole policy, defaults included. A
	// group it did not make (an admin's, tgctl's) keeps its settings: only
	// what the pod's annotations say is written, only the limit keys named.
	limit, prio := FormatLimit(pol.Limit), pol.Priority
	if !p.owned[pol.Group] {
		limit = formatLimitKeys(pol.Limit, pol.LimitNamed)
		if pol.Source["priority"] != "annotation" {
			prio = ""
		}
	}
	if limit != "" {
		if err := p.FS.Write(pol.Group, "tgroup.limit", limit); err != nil {
			p.logf("pod %s: group %s: tgroup.limit %q: %s", podName(pod), pol.Group, limit, p.why(err))
		}
	}
	if prio != "" {
		if err := p.FS.Write(pol.Group, "tgroup.priority", prio); err != nil {
			p.logf("pod %s: group %s: tgroup.priority %s: %s", podName(pod), pol.Group, prio, p.why(err))
		}
	}
	if err := MovePid(p.FS, pol.Group, pid); err != nil {
		p.logf("%s: pod %s container %s: moving pid %d into %s: %s", event, podName(pod), ctr.GetName(), pid, pol.Group, p.why(err))
		// still a member: the group is the pod's, removal decides by it
	} else if tree {
		p.moveDescendants(event, pod, ctr, pol.Group, pid)
	}
	if old, ok := p.ctrGroup[ctr.GetId()]; ok && old != pol.Group {
		p.leave(ctr.GetId())
	}
	if p.members[pol.Group] == nil {
		p.members[pol.Group] = map[string]bool{}
	}
	if !p.members[pol.Group][ctr.GetId()] {
		if p.owned[pol.Group] {
			p.logf("%s: pod %s container %s pid %d -> group %s (priority %s from %s, limit %s from %s)", event,
				podName(pod), ctr.GetName(), pid, pol.Group, pol.Priority, pol.Source["priority"],
				FormatLimit(pol.Limit), pol.Source["limit"])
		} else {
			p.logf("%s: pod %s container %s pid %d -> group %s (not the plugin's: kept its settings, wrote priority %q, limit %q from the annotations)", event,
				podName(pod), ctr.GetName(), pid, pol.Group, prio, limit)
		}
	}
	p.members[pol.Group][ctr.GetId()] = true
	p.ctrGroup[ctr.GetId()] = pol.Group
}

// moveDescendants moves every live descendant of pid (moved already) into
// group: each process is moved before its own children are listed, so one
// it forks after that inherits the group (the module's fork inheritance)
// and one it forked before is listed. A process that is gone by then
// (ESRCH, ENOENT) is skipped silently; moving one already there is a no-op.
func (p *Plugin) moveDescendants(event string, pod *api.PodSandbox, ctr *api.Container, group string, pid uint32) {
	proc := p.Proc
	if proc == nil {
		proc = ProcDir{Root: "/proc"}
	}
	seen := map[uint32]bool{pid: true}
	queue := []uint32{pid}
	moved := 0
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		kids, err := proc.Children(cur)
		if err != nil {
			if !errors.Is(err, syscall.ESRCH) && !errors.Is(err, os.ErrNotExist) {
				p.logf("%s: pod %s container %s: children of pid %d not moved: %v", event, podName(pod), ctr.GetName(), cur, err)
			}
			continue
		}
		for _, k := range kids {
			if seen[k] {
				continue
			}
			seen[k] = true
			if err := MovePid(p.FS, group, k); err != nil {
				if !errors.Is(err, syscall.ESRCH) {
					p.logf("%s: pod %s container %s: moving pid %d (a descendant of %d) into %s: %s", event, podName(pod), ctr.GetName(), k, pid, group, p.why(err))
				}
				continue
			}
			moved++
			queue = append(queue, k)
		}
	}
	if moved > 0 && !p.members[group][ctr.GetId()] {
		p.logf("%s: pod %s container %s: %d descendants of pid %d moved into %s too", event, podName(pod), ctr.GetName(), moved, pid, group)
	}
}

// once is true the first time it is asked about container id and kind:
// lines that every event for the same container would repeat are logged
// once per container (forgotten when it stops or is removed).
func (p *Plugin) once(id, kind string) bool {
	if p.logged[id][kind] {
		return false
	}
	if p.logged[id] == nil {
		p.logged[id] = map[string]bool{}
	}
	p.logged[id][kind] = true
	return true
}

// leave forgets container id; returns its group if that is now empty.
func (p *Plugin) leave(id string) string {
	g, ok := p.ctrGroup[id]
	if !ok {
		return ""
	}
	delete(p.ctrGroup, id)
	delete(p.members[g], id)
	if len(p.members[g]) > 0 {
		return ""
	}
	delete(p.members, g)
	return g
}

// removeIfOurs removes an empty group the plugin created.
func (p *Plugin) removeIfOurs(group, why string) {
	if group == "" || !p.owned[group] || len(p.members[group]) > 0 {
		return
	}
	err := p.FS.Rmdir(group)
	switch {
	case err == nil:
		p.logf("removed group %s (%s)", group, why)
		defer p.retryPending()
	case errors.Is(err, syscall.ENOENT):
	case errors.Is(err, syscall.EBUSY):
		p.logf("group %s: not removed, it still has tasks (%s); kept as ours, the next sync retries", group, why)
		return
	default:
		p.logf("group %s: not removed: %s", group, p.why(err))
		return
	}
	delete(p.owned, group)
	p.saveState()
}

// retryPending places the containers max_groups left out, oldest ID
// first, now that a group is free.
func (p *Plugin) retryPending() {
	var ids []string
	for id := range p.pending {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if pc, ok := p.pending[id]; ok {
			p.place("retry after max_groups", pc.pod, pc.ctr, true)
		}
	}
}

// placeOn places a container (with tree, its descendants too) for the
// event named ev, under the lock.
func (p *Plugin) placeOn(ev string, pod *api.PodSandbox, ctr *api.Container, tree bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.init()
	p.place(ev, pod, ctr, tree)
	return nil
}

// StartContainer: the runtime's init pid exists, the workload has not run.
func (p *Plugin) StartContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	return p.placeOn("StartContainer", pod, ctr, false)
}

// PostStartContainer places the container again (idempotent), with the
// processes its init forked: covers a plugin that connected between the
// two events (the workload has run by now).
func (p *Plugin) PostStartContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	return p.placeOn("PostStartContainer", pod, ctr, true)
}

// StopContainer: the container's processes are gone (or going). It is no
// longer waiting for a group (its pid may be reused: a later retry must
// not move that pid) and no longer a member: the last container of a
// group the plugin made removes it, as RemoveContainer does.
func (p *Plugin) StopContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) ([]*api.ContainerUpdate, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.init()
	p.gone("stopped", pod, ctr)
	return nil, nil
}

// RemoveContainer: the last container of a group the plugin made removes it.
func (p *Plugin) RemoveContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.init()
	p.gone("removed", pod, ctr)
	delete(p.stopped, ctr.GetId())
	return nil
}

// gone forgets a stopped or removed container. A group whose rmdir failed
// at StopContainer (a process still exiting: EBUSY) is tried again at
// RemoveContainer.
func (p *Plugin) gone(how string, pod *api.PodSandbox, ctr *api.Container) {
	id := ctr.GetId()
	delete(p.pending, id)
	delete(p.logged, id)
	g := p.leave(id)
	if g == "" {
		g = p.stopped[id]
	} else if how == "stopped" {
		p.stopped[id] = g
	}
	p.removeIfOurs(g, fmt.Sprintf("last container %s of pod %s %s", ctr.GetName(), podName(pod), how))
}

// Synchronize is called when the plugin (re)connects: every running (or
// paused: its processes are there, frozen) container is placed again (group, limit, priority, pid: repairs whatever
// happened while the plugin was away), and every group the plugin made
// that no container uses any more is removed.
func (p *Plugin) Synchronize(_ context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.init()
	p.members = map[string]map[string]bool{}
	p.ctrGroup = map[string]string{}
	p.pending = map[string]pendingCtr{}
	p.stopped = map[string]string{}
	byID := map[string]*api.PodSandbox{}
	for _, pod := range pods {
		byID[pod.GetId()] = pod
	}
	n := 0
	live := map[string]bool{}
	for _, ctr := range ctrs {
		pod := byID[ctr.GetPodSandboxId()]
		st := ctr.GetState()
		if pod == nil || (st != api.ContainerState_CONTAINER_RUNNING && st != api.ContainerState_CONTAINER_PAUSED) || ctr.GetPid() == 0 {
			continue
		}
		live[ctr.GetId()] = true
		p.place("Synchronize", pod, ctr, true)
		n++
	}
	for id := range p.logged {
		if !live[id] {
			delete(p.logged, id)
		}
	}
	var stale []string
	for g := range p.owned {
		if len(p.members[g]) == 0 {
			stale = append(stale, g)
		}
	}
	sort.Strings(stale)
	for _, g := range stale {
		p.removeIfOurs(g, "no running container uses it after sync")
	}
	p.logf("Synchronize: %d running containers placed, %d groups owned", n, len(p.owned))
	return nil, nil
}

// Owned lists the groups the plugin created and still keeps (sorted).
func (p *Plugin) Owned() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.init()
	var gs []string
	for g := range p.owned {
		gs = append(gs, g)
	}
	sort.Strings(gs)
	return gs
}
