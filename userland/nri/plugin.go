package tgnri

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/nri/pkg/api"
	"google.golang.org/protobuf/proto"
)

// Plugin is tgroup-nri: it implements the stub interfaces for the events
// it handles (Configure, Synchronize, StartContainer, PostStartContainer,
// StopContainer, RemoveContainer). It never fails a pod: every problem is
// logged and counted, and the container keeps running where it is.
type Plugin struct {
	FS FS
	// Cgroups finds a container's processes (Root "" = /sys/fs/cgroup).
	Cgroups Cgroups
	// Defaults: the QoS priorities for classes the policy names none for
	// (DefaultPriorities when nil).
	Defaults Defaults
	// ConfigFile: the policy (YAML) read at Configure when the runtime
	// hands the plugin no configuration of its own. "" = the defaults.
	ConfigFile string
	// StatePath keeps the names of the groups the plugin created, so that
	// after a restart it removes only those (never a group an admin made).
	// "" keeps them in memory only.
	StatePath string
	// Logf logs one line (log.Printf when nil).
	Logf func(format string, args ...any)
	// Metrics counts (nil: nothing).
	Metrics *Metrics
	// RescanInterval overrides the policy's rescanInterval (how often
	// placed containers' cgroups are looked at for exec'd processes) when
	// not 0; negative: no rescan.
	RescanInterval time.Duration
	// SettleDelays: after a Synchronize, when to look again at the
	// containers it reported as created but not running (one the runtime
	// starts while the plugin synchronizes gets no event); nil = 0.25, 0.5,
	// 1, 2, 4, 8, 16 s.
	SettleDelays []time.Duration

	mu        sync.Mutex
	loaded    bool
	cfg       *compiled
	good      *compiled       // the last policy that parsed
	sawPid    bool            // the runtime has sent a container pid
	noPid     map[string]bool // containers it sent start events for without one, before
	policyErr string          // why the policy given last does not parse ("" it does)
	runtime   string
	refused   string
	refusedC  chan struct{}
	synced    bool
	settleGen int
	seq       uint64
	owned     map[string]bool            // groups this plugin created
	members   map[string]map[string]bool // group -> container IDs placed in it
	ctrGroup  map[string]string          // container ID -> group
	ctrInfo   map[string]infoLabels      // container ID -> its info series
	placed    map[string]*placedCtr      // container ID -> its cgroup, for the rescan
	groupNS   map[string]string          // group -> the namespace it was made for (quota)
	rescanOff chan struct{}              // closed by Close: stops the rescan
	pending   map[string]pendingCtr      // containers left out by max_groups, by ID
	unsettled map[string]pendingCtr      // created (not running) at Synchronize, by ID
	stopped   map[string]string          // container ID -> group it left at StopContainer
	logged    map[string]map[string]bool // container ID -> kinds of line logged once
}

// pendingCtr is a container the plugin will look at again later (after
// max_groups, or the settle after Synchronize), with what identifies it
// then: a pid alone may be another process by then, and a pid's cgroup
// another container's.
type pendingCtr struct {
	pod   *api.PodSandbox
	ctr   *api.Container
	start uint64 // the start time of ctr's pid when recorded (0: no pid, or unreadable)
	dir   string // the container's cgroup directory once found ("" not yet)
	seq   uint64 // the order of recording (retries go oldest first)
}

// record is container ctr as it is now, for a later look (current).
func (p *Plugin) record(pod *api.PodSandbox, ctr *api.Container) pendingCtr {
	p.seq++
	u := pendingCtr{pod: pod, ctr: ctr, seq: p.seq}
	if pid := ctr.GetPid(); pid != 0 {
		u.start, _ = p.Cgroups.StartTime(pid)
	}
	if d, err := p.Cgroups.CgroupDir(ctr); err == nil {
		u.dir = d
	}
	return u
}

// current checks a recorded container against the node now, before the
// plugin moves anything for it: its cgroup directory, once found, must
// still exist (it goes when the container stops, and the runtime may
// send no StopContainer for a container that exited by itself), and its
// pid must still be the process recorded (the same start time). It
// returns the container to place, with the pid cleared when it cannot be
// told to be the same process, and why the record is stale ("" if not).
// u.dir is filled in once found.
func (p *Plugin) current(u *pendingCtr) (*api.Container, string) {
	if u.dir != "" && !isDir(u.dir) {
		return nil, "its cgroup " + u.dir + " is gone"
	}
	ctr := u.ctr
	if pid := ctr.GetPid(); pid != 0 {
		if st, err := p.Cgroups.StartTime(pid); err != nil || u.start == 0 || st != u.start {
			if u.start != 0 {
				return nil, fmt.Sprintf("its pid %d has exited (or is another process now)", pid)
			}
			ctr = proto.Clone(ctr).(*api.Container)
			ctr.Pid = 0 // never verified: only its cgroup is used
		}
	}
	if u.dir == "" {
		if d, err := p.Cgroups.CgroupDir(ctr); err == nil {
			u.dir = d
		}
	}
	return ctr, ""
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
	p.ctrInfo = map[string]infoLabels{}
	p.placed = map[string]*placedCtr{}
	p.groupNS = map[string]string{}
	p.noPid = map[string]bool{}
	p.pending = map[string]pendingCtr{}
	p.unsettled = map[string]pendingCtr{}
	p.stopped = map[string]string{}
	p.logged = map[string]map[string]bool{}
	if p.refusedC == nil {
		p.refusedC = make(chan struct{})
	}
	if p.Defaults == nil {
		p.Defaults = DefaultPriorities
	}
	if p.Cgroups.Root == "" {
		p.Cgroups.Root = "/sys/fs/cgroup"
	}
	defer p.counts()
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

func (p *Plugin) counts() { p.Metrics.setCounts(len(p.owned), len(p.pending)) }

func (p *Plugin) saveState() {
	p.counts()
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

// why names the kernel's error, and adds last_cmd_status when the
// module set it.
func (p *Plugin) why(err error) string {
	var en syscall.Errno
	s := err.Error()
	if errors.As(err, &en) {
		if st := p.FS.LastCmdStatus(); st != "" && st != "ok" && (en == syscall.EINVAL || en == syscall.ENOSPC || en == syscall.EPERM) {
			s += ": " + st
		}
	}
	return s
}

// config is the policy in force: Configure's, else the file's or the
// defaults (a plugin driven without Configure, as some tests do).
func (p *Plugin) config() *compiled {
	if p.cfg == nil {
		c, _, _, err := p.loadConfig("")
		if err != nil {
			p.logf("%v; using the default policy", err)
			c, _ = compileConfig(Config{}, p.Defaults)
		}
		p.cfg = c
	}
	return p.cfg
}

// loadConfig parses the runtime's configuration if it gave one, else
// ConfigFile, else the defaults; it says which, and gives the text.
func (p *Plugin) loadConfig(fromRuntime string) (*compiled, string, []byte, error) {
	src, data := "the defaults", []byte(nil)
	switch {
	case strings.TrimSpace(fromRuntime) != "":
		src, data = "the runtime's plugin configuration", []byte(fromRuntime)
	case p.ConfigFile != "":
		b, err := os.ReadFile(p.ConfigFile)
		if err != nil {
			return nil, p.ConfigFile, nil, fmt.Errorf("policy %s: %v", p.ConfigFile, err)
		}
		src, data = p.ConfigFile, b
	}
	c, err := ParseConfig(data, p.Defaults)
	if err != nil {
		return nil, src, nil, fmt.Errorf("%s: %v", src, err)
	}
	return c, src, data, nil
}

// LastGoodPath is where a plugin with state file statePath keeps the last
// policy that parsed ("" = nowhere).
func LastGoodPath(statePath string) string {
	if statePath == "" {
		return ""
	}
	return statePath + ".policy"
}

// LastGood is the last policy that parsed, kept next to the state file
// (nil if none, or if it does not parse either).
func LastGood(statePath string, base Defaults) (*compiled, string) {
	f := LastGoodPath(statePath)
	if f == "" {
		return nil, ""
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return nil, ""
	}
	c, err := ParseConfig(b, base)
	if err != nil {
		return nil, ""
	}
	return c, f
}

// keepGood records data as the last policy that parsed.
func (p *Plugin) keepGood(c *compiled, data []byte) {
	p.good = c
	f := LastGoodPath(p.StatePath)
	if f == "" {
		return
	}
	tmp := f + ".tmp"
	err := os.WriteFile(tmp, data, 0o644)
	if err == nil {
		err = os.Rename(tmp, f)
	}
	if err != nil {
		p.logf("keeping the policy in %s: %v (a bad policy after a restart then stops the plugin)", f, err)
	}
}

// Configure is NRI's first call on a connection: the runtime's name and
// version (the gate below) and, for a plugin the runtime launched itself,
// its configuration (else ConfigFile is read). The policy's nodeConfig is
// written to tgroup.config. An error fails the registration: the plugin
// exits and the DaemonSet restarts it (a refused runtime: Refused()).
func (p *Plugin) Configure(_ context.Context, config, runtime, version string) (api.EventMask, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.init()
	p.runtime = runtime + " " + version
	p.Metrics.setRuntime(runtime, version)
	if why := RuntimeSendsNoPid(runtime, version); why != "" {
		return 0, p.refuse(why)
	}
	// a policy that does not parse (a ConfigMap edited by hand, which no
	// rollout checks) leaves the last good one in force, the plugin not
	// ready until it is fixed: placing pods by the old rules is safer than
	// placing none (a plugin that stops leaves every new pod unthrottled)
	c, src, data, err := p.loadConfig(config)
	if err != nil {
		p.Metrics.failed("config")
		last, from := p.good, "the one in force before"
		if last == nil {
			last, from = LastGood(p.StatePath, p.Defaults)
		}
		if last == nil {
			p.logf("%v", err)
			return 0, err
		}
		p.policyErr = err.Error()
		p.logf("POLICY %v: keeping the last good policy (%s) until this one is fixed; not ready meanwhile", err, from)
		c, src = last, from
	} else {
		p.policyErr = ""
		p.keepGood(c, data)
	}
	p.cfg = c
	if c.nodeConfig != "" {
		if err := p.FS.Write("", "tgroup.config", c.nodeConfig); err != nil {
			p.Metrics.failed("node_config")
			err = fmt.Errorf("policy %s: nodeConfig: tgroup.config %q: %s", src, c.nodeConfig, p.why(err))
			p.logf("%v", err)
			return 0, err
		}
	}
	m := c.src.Manage
	p.logf("configured by %s: policy from %s: namespaces %v, excluded %v, %d rules, tgroup.config %q",
		p.runtime, src, orAll(m.Namespaces), m.ExcludeNamespaces, len(c.rules), c.nodeConfig)
	for _, w := range c.warnings {
		p.logf("WARNING %s", w)
	}
	return 0, nil
}

func orAll(s []string) any {
	if len(s) == 0 {
		return "all"
	}
	return s
}

// noPidRefuseAfter: a runtime that has sent no pid is refused at its
// noPidRefuseAfter-th container started without one.
const noPidRefuseAfter = 3

// RuntimeSendsNoPid is why tgroup-nri cannot work with runtime version
// ("" if it can): CRI-O before 1.36 sends no container pid in NRI's
// events (containerd 1.7 and 2.x do), and the pid is what the plugin
// moves before the workload runs.
func RuntimeSendsNoPid(runtime, version string) string {
	if runtime != "cri-o" && runtime != "crio" {
		return ""
	}
	v := strings.TrimPrefix(version, "v")
	f := strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == '-' || r == '+' })
	if len(f) < 2 {
		return ""
	}
	maj, err1 := strconv.Atoi(f[0])
	min, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || maj > 1 || (maj == 1 && min >= 36) {
		return ""
	}
	return fmt.Sprintf("%s %s sends no container pid to NRI plugins (CRI-O 1.36 and later, containerd 1.7 and 2.x do): tgroup-nri cannot place pods with it; upgrade the runtime", runtime, version)
}

// refuse gives up on the runtime for good (once): logged, counted, not
// ready, Refused() closed. Under p.mu.
func (p *Plugin) refuse(why string) error {
	if p.refused == "" {
		p.refused = why
		p.synced = false
		p.Metrics.setReady(false)
		p.Metrics.failed("runtime_refused")
		p.logf("REFUSED: %s", why)
		close(p.refusedC)
	}
	return errors.New(p.refused)
}

// Refused is closed when the plugin gave up on its runtime: main stops
// the connection and stays up, not ready, without retrying (one line in
// the log, not one per restart).
func (p *Plugin) Refused() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.init()
	return p.refusedC
}

// NotReady is why the plugin is not ready ("" when registered and
// synchronized).
func (p *Plugin) NotReady() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.refused != "":
		return "refused: " + p.refused
	case !p.synced:
		return "not synchronized with the runtime yet"
	case p.policyErr != "":
		return "the policy does not parse (running with the last good one): " + p.policyErr
	}
	return ""
}

// Disconnected: the connection to the runtime closed.
func (p *Plugin) Disconnected() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.synced = false
	p.Metrics.setReady(false)
}

// alive fails when the plugin's lock stays taken (a wedged plugin).
func (p *Plugin) alive(ctx context.Context) error {
	for !p.mu.TryLock() {
		select {
		case <-ctx.Done():
			return errors.New("the plugin's lock has been held too long")
		case <-time.After(10 * time.Millisecond):
		}
	}
	p.mu.Unlock()
	return nil
}

// ensureGroup creates group unless it exists. An error: it does not exist
// and could not be made (logged, saying that the pod runs in runsIn).
func (p *Plugin) ensureGroup(pod *api.PodSandbox, id, group, runsIn string) error {
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
		p.Metrics.failed("max_groups")
		p.logf("EVENT max_groups: pod %s: group %s not created: the mount already has max_groups groups (%s); "+
			"the pod runs in %s until the plugin removes a group or resyncs", podName(pod), group, p.why(err), runsIn)
	} else if p.once(id, "mkdir") {
		p.Metrics.failed("mkdir")
		p.logf("pod %s: group %s not created: %s; the pod runs in the root group", podName(pod), group, p.why(err))
	}
	return err
}

// place puts a container's processes into its group with the policy:
// the pid the runtime gave (at StartContainer the init, before the
// workload runs) and every process in the container's cgroup (what the
// init forked before the plugin placed it, daemons re-parented away
// included). Idempotent: StartContainer, PostStartContainer and
// Synchronize all call it for the same container.
func (p *Plugin) place(event string, pod *api.PodSandbox, ctr *api.Container) {
	id := ctr.GetId()
	cfg := p.config()
	if ok, why := cfg.managed(pod); !ok {
		if p.once(id, "unmanaged") {
			reason := "namespace"
			if strings.Contains(why, "podSelector") {
				reason = "pod_selector"
			}
			p.Metrics.leftAlone(reason)
			p.logf("%s: pod %s container %s: not managed (%s)", event, podName(pod), ctr.GetName(), why)
		}
		return
	}
	pol := PolicyFor(pod, ctr.GetName(), cfg)
	if len(pol.Problems) > 0 && p.once(id, "annotations") {
		for _, pr := range pol.Problems {
			p.Metrics.failed("invalid_annotation")
			p.logf("pod %s: invalid annotation %s", podName(pod), pr)
		}
	}
	if len(pol.Denials) > 0 && p.once(id, "denials") {
		for _, d := range pol.Denials {
			p.Metrics.denied(d.Reason)
			p.logf("DENIED pod %s container %s: %s", podName(pod), ctr.GetName(), d.Msg)
		}
	}
	pid := ctr.GetPid()
	// a running container's start events and sync carry its pid; a
	// created one placed by the settle (and its retry) has none yet. A
	// runtime that has sent pids is one that can: a start event without
	// one (a container that exited at once) is placed by its cgroup. One
	// that has sent none is refused at its third container without one.
	if pid == 0 && (event == "StartContainer" || event == "PostStartContainer" || event == "Synchronize") {
		if !p.sawPid {
			p.noPid[id] = true
			if len(p.noPid) >= noPidRefuseAfter {
				_ = p.refuse(fmt.Sprintf("%s sent start events for %d containers without a pid (the last: %s for pod %s container %s) and none with one: tgroup-nri needs the container's pid (CRI-O 1.36 and later, containerd 1.7 and 2.x send it)",
					orUnknown(p.runtime), len(p.noPid), event, podName(pod), ctr.GetName()))
				return
			}
		}
		if p.once(id, "no_pid") {
			p.Metrics.failed("no_pid")
			what := fmt.Sprintf("not placed (%d of %d such containers before the runtime is refused)", len(p.noPid), noPidRefuseAfter)
			if p.sawPid {
				what = "placed by its cgroup alone (the runtime sent pids before)"
			}
			p.logf("%s: pod %s container %s: no pid from %s: %s", event, podName(pod), ctr.GetName(), orUnknown(p.runtime), what)
		}
		if !p.sawPid {
			return
		}
	} else if pid != 0 && !p.sawPid {
		p.sawPid, p.noPid = true, map[string]bool{}
	}
	// the namespace's quota: past it, or past max_groups once the
	// namespace has its overflow group, the pod waits in that group
	ns, quota := pod.GetNamespace(), cfg.quota.groups
	if quota > 0 && !pol.Shared {
		_ = p.ensureOverflow(pod, id, cfg)
	}
	full := p.quotaFull(pod, pol, quota)
	wait := ""
	if full {
		wait = "namespace_quota"
	} else {
		runsIn := "the root group, unthrottled and unprotected"
		overflow := quota > 0 && !pol.Shared && p.owned[OverflowGroup(ns)]
		if overflow {
			runsIn = OverflowGroup(ns) + ", its namespace's overflow group (low priority)"
		}
		if err := p.ensureGroup(pod, id, pol.Group, runsIn); err != nil {
			if !errors.Is(err, syscall.ENOSPC) || !overflow {
				if _, ok := p.pending[id]; !ok && errors.Is(err, syscall.ENOSPC) {
					p.pending[id] = p.record(pod, ctr)
					p.counts()
				}
				return
			}
			wait = "max_groups"
		}
	}
	if wait != "" {
		want := pol.Group
		pol = overflowed(pol, ns, cfg)
		if _, ok := p.pending[id]; !ok {
			p.pending[id] = p.record(pod, ctr)
			p.counts()
		}
		if full && p.once(id, "namespace_quota") {
			p.Metrics.failed("namespace_quota")
			p.logf("EVENT namespace_quota: pod %s container %s: group %s not created: namespace %s has its %d groups (policy namespaceQuota.groups); "+
				"it runs in %s (low priority) until one of the namespace's groups is removed", podName(pod), ctr.GetName(), want, ns, quota, pol.Group)
		}
	} else {
		delete(p.pending, id)
		p.counts()
		if !pol.Shared {
			p.groupNS[pol.Group] = ns
		}
	}
	// A group the plugin made gets the whole policy, defaults included. A
	// group it did not make (an admin's, tgctl's) keeps its settings: only
	// what is named (by the annotations, or a shared group's rule), only
	// the limit keys named, and what the pod's annotations name only when
	// a rule lets the pod (else a denial).
	limit, prio := FormatLimit(pol.Limit), pol.Priority
	if !p.owned[pol.Group] {
		limit = formatLimitKeys(pol.Limit, pol.LimitNamed)
		if !pol.PriorityNamed {
			prio = ""
		}
		if pol.UnownedRule == "" && ((pol.LimitByPod && limit != "") || (pol.PriorityByPod && prio != "")) {
			if p.once(id, "unowned") {
				p.Metrics.denied("unowned_group")
				p.logf("DENIED pod %s container %s: group %s was not created by the plugin: its settings are kept (no policy rule lets this pod write priority %q, limit %q there)",
					podName(pod), ctr.GetName(), pol.Group, prio, limit)
			}
			if pol.LimitByPod {
				limit = ""
			}
			if pol.PriorityByPod {
				prio = ""
			}
		}
	}
	if limit != "" {
		if err := p.FS.Write(pol.Group, "tgroup.limit", limit); err != nil && p.once(id, "write_limit") {
			p.Metrics.failed("write_limit")
			p.logf("pod %s: group %s: tgroup.limit %q: %s", podName(pod), pol.Group, limit, p.why(err))
		}
	}
	if prio != "" {
		if err := p.FS.Write(pol.Group, "tgroup.priority", prio); err != nil && p.once(id, "write_priority") {
			p.Metrics.failed("write_priority")
			p.logf("pod %s: group %s: tgroup.priority %s: %s", podName(pod), pol.Group, prio, p.why(err))
		}
	}
	moved := 0
	if pid != 0 {
		if err := MovePid(p.FS, pol.Group, pid); err != nil {
			if !errors.Is(err, syscall.ESRCH) && p.once(id, "move") {
				p.Metrics.failed("move")
				p.logf("%s: pod %s container %s: moving pid %d into %s: %s", event, podName(pod), ctr.GetName(), pid, pol.Group, p.why(err))
			}
		} else {
			moved++
		}
	}
	n, dir, procs := p.moveCgroup(event, pod, ctr, pol.Group)
	moved += n
	if dir != "" {
		p.placed[id] = &placedCtr{pod: pod, ctr: ctr, group: pol.Group, dir: dir, procs: procs}
	} else {
		delete(p.placed, id)
	}
	if old, ok := p.ctrGroup[id]; ok && old != pol.Group {
		p.leave(id)
	}
	if p.members[pol.Group] == nil {
		p.members[pol.Group] = map[string]bool{}
	}
	if !p.members[pol.Group][id] {
		what := fmt.Sprintf("priority %s from %s, limit %s from %s", pol.Priority, pol.Source["priority"], FormatLimit(pol.Limit), pol.Source["limit"])
		if !p.owned[pol.Group] {
			what = fmt.Sprintf("not the plugin's: kept its settings, wrote priority %q, limit %q", prio, limit)
		}
		p.logf("%s: pod %s container %s pid %d -> group %s (%d processes; group from %s; %s)", event,
			podName(pod), ctr.GetName(), pid, pol.Group, moved, pol.Source["group"], what)
	}
	p.members[pol.Group][id] = true
	p.ctrGroup[id] = pol.Group
	l := infoLabels{pod.GetNamespace(), pod.GetName(), ctr.GetName(), pol.Group, pod.GetUid()}
	if old, ok := p.ctrInfo[id]; ok && old != l {
		p.Metrics.dropInfo(old)
	}
	p.ctrInfo[id] = l
	p.Metrics.setInfo(l)
	p.Metrics.placed(strings.SplitN(event, " ", 2)[0])
}

func orUnknown(s string) string {
	if strings.TrimSpace(s) == "" {
		return "the runtime"
	}
	return s
}

// moveCgroup moves every process listed in the container's cgroup into
// group, and again for those that appeared meanwhile (forked by a parent
// not moved yet: one forked after its parent moved inherits the group),
// until a pass finds none new (at most 10 passes). A process gone by then
// (ESRCH) is skipped silently. Returns how many it moved, the cgroup's
// directory ("" unresolved) and its cgroup.procs as last read.
func (p *Plugin) moveCgroup(event string, pod *api.PodSandbox, ctr *api.Container, group string) (int, string, string) {
	dir, err := p.Cgroups.CgroupDir(ctr)
	if err != nil {
		if p.once(ctr.GetId(), "cgroup") {
			p.Metrics.failed("cgroup_unresolved")
			p.logf("%s: pod %s container %s: %v: only the pid the runtime gave is moved", event, podName(pod), ctr.GetName(), err)
		}
		return 0, "", ""
	}
	moved, procs := p.sweep(event, pod, ctr, dir, group, map[uint32]bool{})
	return moved, dir, procs
}

// sweep is moveCgroup's passes over cgroup dir: every process listed
// and not in seen is moved into group (and added to seen). Returns how
// many moved (the runtime's pid not counted) and cgroup.procs as last
// read ("" unreadable).
func (p *Plugin) sweep(event string, pod *api.PodSandbox, ctr *api.Container, dir, group string, seen map[uint32]bool) (int, string) {
	moved, last := 0, ""
	for pass := 0; pass < 10; pass++ {
		raw, pids, err := readProcs(dir)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) && p.once(ctr.GetId(), "cgroup.procs") {
				p.Metrics.failed("cgroup_unresolved")
				p.logf("%s: pod %s container %s: %v", event, podName(pod), ctr.GetName(), err)
			}
			return moved, ""
		}
		last = raw
		fresh := 0
		for _, pid := range pids {
			if seen[pid] {
				continue
			}
			seen[pid], fresh = true, fresh+1
			if err := MovePid(p.FS, group, pid); err != nil {
				if !errors.Is(err, syscall.ESRCH) && p.once(ctr.GetId(), "move "+strconv.Itoa(int(pid))) {
					p.Metrics.failed("move")
					p.logf("%s: pod %s container %s: moving pid %d (from %s) into %s: %s", event, podName(pod), ctr.GetName(), pid, dir, group, p.why(err))
				}
				continue
			}
			if pid != ctr.GetPid() {
				moved++
			}
		}
		if fresh == 0 {
			break
		}
	}
	return moved, last
}

// placedCtr is a placed container whose cgroup the rescan watches.
type placedCtr struct {
	pod   *api.PodSandbox
	ctr   *api.Container
	group string
	dir   string // its cgroup directory
	procs string // its cgroup.procs as last read
}

// rescan moves the processes that joined placed containers' cgroups
// since the last look into their groups: what runc exec starts (kubectl
// exec, exec probes, postStart hooks) is a child of the runtime's shim,
// in the root group, and in the container's cgroup. One read of each
// placed container's cgroup.procs, compared with the last one: nothing
// more when nothing changed. A container whose cgroup went is no longer
// watched. Returns how many processes it moved.
func (p *Plugin) rescan() int {
	p.mu.Lock()
	type look struct{ id, dir, procs string }
	var looks []look
	for id, pc := range p.placed {
		looks = append(looks, look{id, pc.dir, pc.procs})
	}
	p.mu.Unlock()
	var changed []look
	for _, l := range looks {
		b, err := os.ReadFile(filepath.Join(l.dir, "cgroup.procs"))
		if err == nil && string(b) == l.procs {
			continue
		}
		changed = append(changed, l)
	}
	if len(changed) == 0 {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	total := 0
	for _, l := range changed {
		pc := p.placed[l.id]
		if pc == nil || pc.dir != l.dir || p.refused != "" {
			continue // gone or placed again meanwhile
		}
		if !isDir(pc.dir) {
			delete(p.placed, l.id)
			continue
		}
		seen := map[uint32]bool{}
		if old, err := parseProcs(pc.dir, []byte(pc.procs)); err == nil {
			for _, pid := range old {
				seen[pid] = true
			}
		}
		n, procs := p.sweep("rescan", pc.pod, pc.ctr, pc.dir, pc.group, seen)
		if procs != "" {
			pc.procs = procs
		}
		if n > 0 {
			total += n
			p.Metrics.rescanMoved(n)
			if p.once(l.id, "rescan") {
				p.logf("rescan: pod %s container %s: %d new processes (exec'd into the container) moved into %s; later ones are counted in tgroup_nri_rescan_moved_total",
					podName(pc.pod), pc.ctr.GetName(), n, pc.group)
			}
		}
	}
	return total
}

// rescanLoop runs rescan at the policy's rescanInterval (RescanInterval
// when set) until stop closes.
func (p *Plugin) rescanLoop(stop <-chan struct{}) {
	for {
		p.mu.Lock()
		d := p.RescanInterval
		if d == 0 {
			d = p.config().rescan
		}
		p.mu.Unlock()
		wait := d
		if d <= 0 { // off: look at the policy again in a second
			wait = time.Second
		}
		select {
		case <-stop:
			return
		case <-time.After(wait):
		}
		if d > 0 {
			p.rescan()
		}
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
	delete(p.placed, id)
	if l, ok := p.ctrInfo[id]; ok {
		p.Metrics.dropInfo(l)
		delete(p.ctrInfo, id)
	}
	if len(p.members[g]) > 0 {
		return ""
	}
	delete(p.members, g)
	return g
}

// removeIfOurs removes an empty group the plugin created. With evacuate
// (Synchronize: no running container the plugin manages uses it), the
// processes still in it are first moved to the root group. A namespace's
// overflow group stays while the namespace has other groups, and goes
// with the last of them when empty.
func (p *Plugin) removeIfOurs(group, why string, evacuate bool) {
	if group == "" || !p.owned[group] || len(p.members[group]) > 0 {
		return
	}
	ns := p.groupNamespace(group)
	overflow := ns != "" && group == OverflowGroup(ns)
	if overflow && p.nsGroups(ns) > 0 {
		return
	}
	err := p.FS.Rmdir(group)
	if errors.Is(err, syscall.EBUSY) && evacuate {
		n := 0
		if procs, rerr := p.FS.Read(group, "cgroup.procs"); rerr == nil {
			for _, f := range strings.Fields(procs) {
				if MovePid(p.FS, "", uint32(atou(f))) == nil {
					n++
				}
			}
		}
		p.logf("group %s: %d processes no managed container accounts for moved to the root group (%s)", group, n, why)
		err = p.FS.Rmdir(group)
	}
	switch {
	case err == nil:
		p.logf("removed group %s (%s)", group, why)
		defer p.retryPending()
	case errors.Is(err, syscall.ENOENT):
	case errors.Is(err, syscall.EBUSY):
		p.logf("group %s: not removed, it still has tasks (%s); kept as ours, the next sync retries", group, why)
		return
	default:
		p.Metrics.failed("remove")
		p.logf("group %s: not removed: %s", group, p.why(err))
		return
	}
	delete(p.owned, group)
	delete(p.groupNS, group)
	p.saveState()
	if ns != "" && !overflow && p.owned[OverflowGroup(ns)] && p.nsGroups(ns) == 0 {
		p.removeIfOurs(OverflowGroup(ns), "namespace "+ns+" has no other group", evacuate)
	}
}

func atou(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 32)
	return n
}

// retryPending places the containers max_groups left out, the one
// waiting longest first, now that a group is free. One whose cgroup went
// or whose pid is another process now is dropped (current).
func (p *Plugin) retryPending() {
	var ids []string
	for id := range p.pending {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return p.pending[ids[i]].seq < p.pending[ids[j]].seq })
	quota := p.config().quota.groups
	for _, id := range ids {
		u, ok := p.pending[id]
		if !ok {
			continue
		}
		// in its overflow group, its namespace still at its quota: nothing
		// to do (no identity to check: it was placed)
		if ns := u.pod.GetNamespace(); quota > 0 && p.ctrGroup[id] == OverflowGroup(ns) && p.nsGroups(ns) >= quota {
			continue
		}
		ctr, stale := p.current(&u)
		if stale == "" && ctr.GetPid() == 0 && u.dir == "" {
			stale = "neither its cgroup nor its pid can be found"
		}
		if stale != "" {
			delete(p.pending, id)
			p.counts()
			p.logf("pod %s container %s: no longer waiting for a group: %s", podName(u.pod), u.ctr.GetName(), stale)
			continue
		}
		p.pending[id] = u
		p.place("retry after max_groups", u.pod, ctr)
	}
}

// placeOn places a container for the event named ev, under the lock.
func (p *Plugin) placeOn(ev string, pod *api.PodSandbox, ctr *api.Container) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.init()
	delete(p.unsettled, ctr.GetId())
	if p.refused == "" {
		p.place(ev, pod, ctr)
	}
	return nil
}

// StartContainer: the runtime's init pid exists, the workload has not run.
func (p *Plugin) StartContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	return p.placeOn("StartContainer", pod, ctr)
}

// PostStartContainer places the container again (idempotent), with the
// processes it has by now: covers a plugin that connected between the
// two events (the workload has run by now).
func (p *Plugin) PostStartContainer(_ context.Context, pod *api.PodSandbox, ctr *api.Container) error {
	return p.placeOn("PostStartContainer", pod, ctr)
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
	delete(p.unsettled, id)
	delete(p.logged, id)
	p.counts()
	g := p.leave(id)
	if g == "" {
		g = p.stopped[id]
	} else if how == "stopped" {
		p.stopped[id] = g
	}
	p.removeIfOurs(g, fmt.Sprintf("last container %s of pod %s %s", ctr.GetName(), podName(pod), how), false)
}

// Synchronize is called when the plugin (re)connects: every running (or
// paused: its processes are there, frozen) container is placed again
// (group, limit, priority, processes: repairs whatever happened while the
// plugin was away, and applies a changed policy), and every group the
// plugin made that no such container uses any more is emptied into the
// root group and removed. Containers reported as created (not running)
// are looked at again after the sync (settle): the runtime may start one
// while the plugin synchronizes, and the plugin gets no event for it.
func (p *Plugin) Synchronize(_ context.Context, pods []*api.PodSandbox, ctrs []*api.Container) ([]*api.ContainerUpdate, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.init()
	if p.refused != "" {
		return nil, errors.New(p.refused)
	}
	p.members = map[string]map[string]bool{}
	p.ctrGroup = map[string]string{}
	p.pending = map[string]pendingCtr{}
	p.unsettled = map[string]pendingCtr{}
	p.stopped = map[string]string{}
	p.ctrInfo = map[string]infoLabels{}
	p.placed = map[string]*placedCtr{}
	p.Metrics.resetInfo()
	byID := map[string]*api.PodSandbox{}
	for _, pod := range pods {
		byID[pod.GetId()] = pod
	}
	n := 0
	live := map[string]bool{}
	for _, ctr := range ctrs {
		pod := byID[ctr.GetPodSandboxId()]
		if pod == nil {
			continue
		}
		switch ctr.GetState() {
		case api.ContainerState_CONTAINER_RUNNING, api.ContainerState_CONTAINER_PAUSED:
			live[ctr.GetId()] = true
			p.place("Synchronize", pod, ctr)
			if p.refused != "" {
				return nil, errors.New(p.refused)
			}
			n++
		case api.ContainerState_CONTAINER_CREATED:
			live[ctr.GetId()] = true
			p.unsettled[ctr.GetId()] = p.record(pod, ctr)
		}
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
		p.removeIfOurs(g, "no running container the plugin manages uses it after sync", true)
	}
	p.synced = true
	p.Metrics.setReady(p.policyErr == "")
	if p.rescanOff == nil {
		p.rescanOff = make(chan struct{})
		go p.rescanLoop(p.rescanOff)
	}
	p.logf("Synchronize: %d running containers placed, %d created ones watched, %d groups owned", n, len(p.unsettled), len(p.owned))
	if len(p.unsettled) > 0 {
		p.settleGen++
		go p.settle(p.settleGen)
	}
	return nil, nil
}

// settle looks again at the containers Synchronize reported as created:
// one whose cgroup has processes by then was started while the plugin
// synchronized (no StartContainer reached it) and is placed now. One
// that an event reached meanwhile is no longer watched. Bounded: after
// the last delay the rest are forgotten (created and never started).
func (p *Plugin) settle(gen int) {
	delays := p.SettleDelays
	if delays == nil {
		delays = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second,
			2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second}
	}
	for i, d := range delays {
		time.Sleep(d)
		p.mu.Lock()
		if gen != p.settleGen || p.refused != "" {
			p.mu.Unlock()
			return
		}
		var ids []string
		for id := range p.unsettled {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			u := p.unsettled[id]
			ctr, stale := p.current(&u)
			if stale != "" {
				delete(p.unsettled, id)
				p.logf("Synchronize: pod %s container %s: no longer watched: %s", podName(u.pod), u.ctr.GetName(), stale)
				continue
			}
			p.unsettled[id] = u
			if u.dir == "" {
				continue
			}
			if pids, err := Procs(u.dir); err == nil && len(pids) > 0 {
				delete(p.unsettled, id)
				p.place("Synchronize (created during the sync)", u.pod, ctr)
			}
		}
		if i == len(delays)-1 { // created and never started: forgotten
			p.unsettled = map[string]pendingCtr{}
		}
		left := len(p.unsettled)
		p.mu.Unlock()
		if left == 0 {
			return
		}
	}
}

// Close stops the plugin's background work (a settle after Synchronize,
// the rescan).
func (p *Plugin) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.settleGen++
	if p.rescanOff != nil {
		close(p.rescanOff)
		p.rescanOff = nil
	}
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
