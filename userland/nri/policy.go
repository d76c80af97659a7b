package tgnri

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/containerd/nri/pkg/api"
)

// Pod annotations the plugin reads (docs/kubernetes.md).
const (
	AnnGroup    = "tgroup.io/group"
	AnnPriority = "tgroup.io/priority"
	AnnLimit    = "tgroup.io/limit"
)

// LimitKeys are tgroup.limit's keys, in the file's order.
var LimitKeys = [4]string{"dram_rbps", "dram_wbps", "nvm_rbps", "nvm_wbps"}

// QoS is a pod's Kubernetes QoS class.
type QoS string

const (
	Guaranteed QoS = "Guaranteed"
	Burstable  QoS = "Burstable"
	BestEffort QoS = "BestEffort"
	Unknown    QoS = "Unknown"
)

// Defaults is the priority each QoS class gets when the pod names none.
type Defaults map[QoS]string

// DefaultPriorities: Guaranteed pods asked for (and got) dedicated
// resources: they are the ones to protect (high). Burstable, BestEffort and
// pods whose class cannot be told get the module's own default (low).
var DefaultPriorities = Defaults{Guaranteed: "high", Burstable: "low", BestEffort: "low", Unknown: "low"}

// Policy is what a pod's group should look like.
type Policy struct {
	Group    string
	Priority string    // "high" or "low"
	Limit    [4]uint64 // bytes/s per LimitKeys, Max = no limit
	// LimitNamed: the keys tgroup.io/limit named (all false without a
	// valid annotation)
	LimitNamed [4]bool
	QoS        QoS               // the class the default came from
	Problems   []string          // invalid annotations, each with why (the default was used)
	Source     map[string]string // "priority"/"limit"/"group" -> "annotation" or "default (...)"
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// ValidGroupName is the filesystem's rule: 1-64 bytes of [A-Za-z0-9._-]
// (and not "." or "..", which mkdir cannot create), and not a name the
// mount's own files use or may use (docs/abi.md): "tasks",
// "last_cmd_status", or anything starting "tgroup." or "cgroup."
// (cgroup.procs, tgroup.config, tgroup.stat, ...).
func ValidGroupName(s string) bool {
	if !nameRE.MatchString(s) || s == "." || s == ".." {
		return false
	}
	if s == "tasks" || s == "last_cmd_status" || strings.HasPrefix(s, "tgroup.") || strings.HasPrefix(s, "cgroup.") {
		return false
	}
	return true
}

// QoSOf tells the pod's QoS class from its cgroup parent, which kubelet
// names after the class: cgroupfs "/kubepods/besteffort/pod<uid>",
// "/kubepods/burstable/pod<uid>", "/kubepods/pod<uid>" (Guaranteed);
// systemd "kubepods-besteffort-pod<uid>.slice", "kubepods-burstable-...",
// "kubepods-pod<uid>.slice". NRI does not pass the class itself.
func QoSOf(pod *api.PodSandbox) QoS {
	cg := pod.GetLinux().GetCgroupParent()
	switch {
	case cg == "" || !strings.Contains(cg, "kubepods"):
		return Unknown
	case strings.Contains(cg, "besteffort"):
		return BestEffort
	case strings.Contains(cg, "burstable"):
		return Burstable
	default:
		return Guaranteed
	}
}

// DefaultPrefix starts every default group name; it is reserved: an
// annotation may name no k8s.* group but its own pod's default.
const DefaultPrefix = "k8s."

// DefaultGroup is the group of a pod without a valid tgroup.io/group:
// "k8s.<namespace>.<name>" when that is a valid name, else "k8s.<uid>".
func DefaultGroup(pod *api.PodSandbox) string {
	if n := "k8s." + pod.GetNamespace() + "." + pod.GetName(); ValidGroupName(n) && pod.GetName() != "" {
		return n
	}
	uid := pod.GetUid()
	if uid == "" {
		uid = pod.GetId()
	}
	n := "k8s." + uid
	if !ValidGroupName(n) {
		n = "k8s." + regexp.MustCompile(`[^A-Za-z0-9._-]`).ReplaceAllString(uid, "_")
		if len(n) > 64 {
			n = n[:64]
		}
	}
	return n
}

// ParseLimit reads a tgroup.io/limit value: space-separated key=value
// pairs with tgroup.limit's keys, each at most once, values in tgctl's
// units. Keys not named are "max".
func ParseLimit(s string) ([4]uint64, error) {
	l, _, err := parseLimit(s)
	return l, err
}

// parseLimit is ParseLimit, also telling which keys the value named.
func parseLimit(s string) ([4]uint64, [4]bool, error) {
	l := [4]uint64{Max, Max, Max, Max}
	seen := [4]bool{}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return l, seen, fmt.Errorf("empty")
	}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return l, seen, fmt.Errorf("%q is not key=value", f)
		}
		i := -1
		for j, key := range LimitKeys {
			if k == key {
				i = j
			}
		}
		if i < 0 {
			return l, seen, fmt.Errorf("unknown key %q (keys: %s)", k, strings.Join(LimitKeys[:], ", "))
		}
		if seen[i] {
			return l, seen, fmt.Errorf("%s given twice", k)
		}
		seen[i] = true
		n, err := ParseSize(v)
		if err != nil {
			return l, seen, fmt.Errorf("%s=%s: %v", k, v, err)
		}
		l[i] = n
	}
	return l, seen, nil
}

// FormatLimit is the tgroup.limit write for l: all four keys, in bytes/s
// or max.
func FormatLimit(l [4]uint64) string {
	return formatLimitKeys(l, [4]bool{true, true, true, true})
}

// formatLimitKeys writes only the keys in which ("" if none).
func formatLimitKeys(l [4]uint64, which [4]bool) string {
	var parts []string
	for i, k := range LimitKeys {
		switch {
		case !which[i]:
		case l[i] == Max:
			parts = append(parts, k+"=max")
		default:
			parts = append(parts, fmt.Sprintf("%s=%d", k, l[i]))
		}
	}
	return strings.Join(parts, " ")
}

// PolicyFor is the pod's policy: its annotations where valid, the defaults
// elsewhere (each invalid annotation is named in Problems, with why).
func PolicyFor(pod *api.PodSandbox, d Defaults) Policy {
	ann := pod.GetAnnotations()
	p := Policy{QoS: QoSOf(pod), Limit: [4]uint64{Max, Max, Max, Max}, Source: map[string]string{}}

	p.Group, p.Source["group"] = DefaultGroup(pod), "default"
	if g, ok := ann[AnnGroup]; ok {
		switch {
		case ValidGroupName(g) && strings.HasPrefix(g, DefaultPrefix) && g != p.Group:
			// the plugin's default names are reserved: a pod must not
			// join (and set the limits of) another pod's default group
			p.Problems = append(p.Problems, fmt.Sprintf("%s=%q: names starting %q are reserved for the plugin's default groups (only this pod's own %s may be named); using %s", AnnGroup, g, DefaultPrefix, p.Group, p.Group))
		case ValidGroupName(g):
			p.Group, p.Source["group"] = g, "annotation"
		default:
			p.Problems = append(p.Problems, fmt.Sprintf("%s=%q: not a group name (1-64 bytes of [A-Za-z0-9._-], not tasks, last_cmd_status, tgroup.* or cgroup.*); using %s", AnnGroup, g, p.Group))
		}
	}

	def, ok := d[p.QoS]
	if !ok {
		def = "low"
	}
	p.Priority, p.Source["priority"] = def, "default ("+string(p.QoS)+")"
	if v, ok := ann[AnnPriority]; ok {
		if v == "high" || v == "low" {
			p.Priority, p.Source["priority"] = v, "annotation"
		} else {
			p.Problems = append(p.Problems, fmt.Sprintf("%s=%q: must be high or low; using %s (%s default)", AnnPriority, v, def, p.QoS))
		}
	}

	p.Source["limit"] = "default (none)"
	if v, ok := ann[AnnLimit]; ok {
		if l, named, err := parseLimit(v); err == nil {
			p.Limit, p.LimitNamed, p.Source["limit"] = l, named, "annotation"
		} else {
			p.Problems = append(p.Problems, fmt.Sprintf("%s=%q: %v; using no limit", AnnLimit, v, err))
		}
	}
	return p
}
