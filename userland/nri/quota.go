package tgnri

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/containerd/nri/pkg/api"
)

// The per-namespace group quota (the policy's namespaceQuota): one tenant
// cannot take the node's max_groups pool. A namespace's pods that would
// need a group past its quota run in the namespace's overflow group (low
// priority, the quota's overflowLimit), never in the root group, and wait
// there for a group of their own (placed when one of the namespace's
// groups is removed). The overflow group is made with the namespace's
// first group, so the pool running out later (other namespaces, admins)
// also sends the namespace's new pods there rather than to the root.

// overflowSuffix ends a namespace's overflow group: "_" is in no pod name
// (DNS subdomains), so no pod's own group k8s.<ns>.<pod> is one.
const overflowSuffix = "._overflow"

// OverflowGroup is namespace ns's overflow group: k8s.<ns>._overflow, or
// for a namespace name too long for that, k8s._overflow.<hash of ns>
// ("_overflow" is no namespace's name: no other namespace's group).
func OverflowGroup(ns string) string {
	if n := DefaultPrefix + ns + overflowSuffix; ValidGroupName(n) {
		return n
	}
	return fmt.Sprintf("%s_overflow.%x", DefaultPrefix, sha256.Sum256([]byte(ns)))[:len(DefaultPrefix)+len("_overflow.")+16]
}

// groupNamespace is the namespace whose pods group g was made for ("" for
// a shared group, or a name whose namespace the plugin has not seen).
func (p *Plugin) groupNamespace(g string) string {
	if ns, ok := p.groupNS[g]; ok {
		return ns
	}
	rest, ok := strings.CutPrefix(g, DefaultPrefix)
	if ns, _, two := strings.Cut(rest, "."); ok && two && ns != "_overflow" {
		return ns
	}
	return ""
}

// nsGroups counts the groups the plugin made for namespace ns' pods, its
// overflow group not included.
func (p *Plugin) nsGroups(ns string) int {
	n, of := 0, OverflowGroup(ns)
	for g := range p.owned {
		if g != of && p.groupNamespace(g) == ns {
			n++
		}
	}
	return n
}

// quotaFull tells whether placing pol would make a group past its
// namespace's quota (a shared group, a group that exists, or no quota:
// no).
func (p *Plugin) quotaFull(pod *api.PodSandbox, pol Policy, q int) bool {
	if q <= 0 || pol.Shared || p.owned[pol.Group] {
		return false
	}
	if _, err := p.FS.Read(pol.Group, "cgroup.procs"); err == nil {
		return false // someone else's group: joining it takes no slot
	}
	return p.nsGroups(pod.GetNamespace()) >= q
}

// ensureOverflow makes namespace ns' overflow group unless it exists
// (with its settings: low, the quota's limit). Nil: it exists.
func (p *Plugin) ensureOverflow(pod *api.PodSandbox, id string, cfg *compiled) error {
	ns := pod.GetNamespace()
	of := OverflowGroup(ns)
	if p.owned[of] {
		return nil
	}
	p.owned[of] = true
	p.saveState()
	err := p.FS.Mkdir(of)
	switch {
	case err == nil:
		p.groupNS[of] = ns
		p.logf("pod %s: created group %s (namespace %s's overflow group: namespaceQuota)", podName(pod), of, ns)
		p.writeOverflowSettings(of, cfg)
		return nil
	case errors.Is(err, syscall.EEXIST): // someone else's: used as it is
		delete(p.owned, of)
		p.saveState()
		return nil
	}
	delete(p.owned, of)
	p.saveState()
	if p.once(id, "overflow_mkdir") {
		p.Metrics.failed("mkdir")
		p.logf("pod %s: namespace %s's overflow group %s not created: %s", podName(pod), ns, of, p.why(err))
	}
	return err
}

func (p *Plugin) writeOverflowSettings(of string, cfg *compiled) {
	for _, w := range [][2]string{{"tgroup.priority", "low"}, {"tgroup.limit", FormatLimit(cfg.quota.overflowLimit)}} {
		if err := p.FS.Write(of, w[0], w[1]); err != nil {
			p.Metrics.failed("write_" + strings.TrimPrefix(w[0], "tgroup."))
			p.logf("group %s: %s %q: %s", of, w[0], w[1], p.why(err))
		}
	}
}

// overflowed is pol moved into its namespace's overflow group: low, the
// quota's limit, whatever the pod's annotations asked.
func overflowed(pol Policy, ns string, cfg *compiled) Policy {
	pol.Group, pol.Shared = OverflowGroup(ns), false
	pol.Priority, pol.Limit = "low", cfg.quota.overflowLimit
	pol.PriorityNamed, pol.LimitNamed, pol.PriorityByPod, pol.LimitByPod = false, [4]bool{}, false, false
	pol.Source = map[string]string{"group": "the namespace's overflow group (namespaceQuota)",
		"priority": "the overflow group's (low)", "limit": "namespaceQuota.overflowLimit"}
	return pol
}
