package tgnri

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"strings"

	"github.com/containerd/nri/pkg/api"
)

// Annotations the plugin reads (docs/kubernetes.md). The pod-level ones;
// containers/nri-plugins' and goresctrl's convention adds, for each key K
// (group, priority, limit), "K.tgroup.io/container.<name>" for one
// container and "K.tgroup.io/pod" for the pod (the same as tgroup.io/K).
const (
	AnnGroup    = "tgroup.io/group"
	AnnPriority = "tgroup.io/priority"
	AnnLimit    = "tgroup.io/limit"
)

// annotation finds key's value for container ctr: "<key>.tgroup.io/container.<ctr>",
// then "<key>.tgroup.io/pod", then "tgroup.io/<key>". It returns the
// annotation's name and whether it was the container's own.
func annotation(ann map[string]string, key, ctr string) (val, name string, own, ok bool) {
	if ctr != "" {
		name = key + ".tgroup.io/container." + ctr
		if v, ok := ann[name]; ok {
			return v, name, true, true
		}
	}
	for _, name = range []string{key + ".tgroup.io/pod", "tgroup.io/" + key} {
		if v, ok := ann[name]; ok {
			return v, name, false, true
		}
	}
	return "", "", false, false
}

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

// Policy is what a container's group should look like.
type Policy struct {
	Group string
	// Shared: a node-wide group a policy rule shares with this pod (not
	// namespaced).
	Shared   bool
	Priority string    // "high" or "low"
	Limit    [4]uint64 // bytes/s per LimitKeys, Max = no limit
	// LimitNamed: the keys the limit named (the annotation's, or a shared
	// group's rule's; all false without one); PriorityNamed: the priority
	// was named (by an annotation, or a shared group's rule). Only these
	// are written into a group the plugin did not create.
	LimitNamed    [4]bool
	PriorityNamed bool
	// PriorityByPod, LimitByPod: they came from the pod's annotations
	// (not from the policy): into a group the plugin did not create only
	// with UnownedRule.
	PriorityByPod, LimitByPod bool
	QoS                       QoS               // the class the defaults came from
	Problems                  []string          // invalid annotations, each with why (the default was used)
	Denials                   []Denial          // what the annotations asked and the policy refused
	Source                    map[string]string // "priority"/"limit"/"group" -> where it came from
	// UnownedRule names the rule that lets the pod write its settings into
	// a group the plugin did not create ("" = none may).
	UnownedRule string
}

// Denial is one thing a pod's annotations asked for that the policy does
// not grant it: the pod starts without it (logged, counted by Reason).
type Denial struct {
	Reason string // high_priority, shared_group, shared_group_settings, unowned_group
	Msg    string
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

// DefaultPrefix starts every group the plugin names for a namespace:
// k8s.<namespace>.<pod> for a pod, k8s.<namespace>.<group> for a group
// a pod names, k8s.<namespace>.<pod>_<container> for a container with
// its own settings. Namespace names have no dots, so two namespaces' names
// never meet; a policy may not share a group under this prefix.
const DefaultPrefix = "k8s."

var notName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// DefaultGroup is the group of a pod without a valid group annotation:
// "k8s.<namespace>.<name>" when that is a valid name, else "k8s.<uid>"
// (no second dot: it cannot be a namespace's group).
func DefaultGroup(pod *api.PodSandbox) string {
	if n := DefaultPrefix + pod.GetNamespace() + "." + pod.GetName(); ValidGroupName(n) && pod.GetName() != "" && pod.GetNamespace() != "" {
		return n
	}
	return clip(DefaultPrefix + podUID(pod))
}

// ContainerGroup is the group of a container with settings of its own
// and no group annotation: "k8s.<namespace>.<pod>_<container>" (pod names
// have no "_": no other pod's group), else "k8s.<uid>_<container>"; when
// that is longer than 64 bytes, cut to 55 and ended with "-" and 8 hex
// digits of a hash of the container's name (two containers whose names
// begin alike keep groups of their own).
func ContainerGroup(pod *api.PodSandbox, ctr string) string {
	if n := DefaultGroup(pod) + "_" + ctr; ValidGroupName(n) {
		return n
	}
	n := DefaultPrefix + podUID(pod) + "_" + notName.ReplaceAllString(ctr, "_")
	if len(n) <= 64 {
		return n
	}
	return fmt.Sprintf("%s-%x", n[:55], sha256.Sum256([]byte(ctr)))[:64]
}

// notUID: what a pod UID (or sandbox ID) may not keep in a group name;
// no dot either, so k8s.<uid> has a single dot (no namespace's group).
var notUID = regexp.MustCompile(`[^A-Za-z0-9_-]`)

func podUID(pod *api.PodSandbox) string {
	uid := pod.GetUid()
	if uid == "" {
		uid = pod.GetId()
	}
	return notUID.ReplaceAllString(uid, "_")
}

func clip(n string) string {
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// NamespacedGroup is where a pod of namespace ns that names group g
// goes when no rule shares g with it: k8s.<ns>.<g> ("" if too long).
func NamespacedGroup(ns, g string) string {
	if n := DefaultPrefix + ns + "." + g; ValidGroupName(n) && ns != "" {
		return n
	}
	return ""
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

// PolicyFor is the policy of container ctr (its name; "" for the pod as
// a whole) of pod: its annotations where valid and allowed, the defaults
// elsewhere. Each invalid annotation is named in Problems, each refused
// one in Denials, with why.
func PolicyFor(pod *api.PodSandbox, ctr string, c *compiled) Policy {
	ann := pod.GetAnnotations()
	p := Policy{QoS: QoSOf(pod), Limit: [4]uint64{Max, Max, Max, Max}, Source: map[string]string{}}
	gr := c.grantsFor(pod)
	p.UnownedRule = gr.unownedGroups

	gv, gname, gown, hasG := annotation(ann, "group", ctr)
	pv, pname, pown, hasP := annotation(ann, "priority", ctr)
	lv, lname, lown, hasL := annotation(ann, "limit", ctr)

	// a container with a priority or limit of its own gets a group of
	// its own unless it names one
	p.Group, p.Source["group"] = DefaultGroup(pod), "default (the pod's)"
	if ctr != "" && (gown || pown || lown) {
		p.Group, p.Source["group"] = ContainerGroup(pod, ctr), "default (the container's own: it has settings of its own)"
	}
	if hasG {
		switch {
		case !ValidGroupName(gv):
			p.Problems = append(p.Problems, fmt.Sprintf("%s=%q: not a group name (1-64 bytes of [A-Za-z0-9._-], not tasks, last_cmd_status, tgroup.* or cgroup.*); using %s", gname, gv, p.Group))
		case gr.shared[gv] != "":
			p.Group, p.Shared, p.Source["group"] = gv, true, gname+", node-wide by rule "+gr.shared[gv]
		default:
			ng := NamespacedGroup(pod.GetNamespace(), gv)
			if rules := c.sharedBy[gv]; len(rules) > 0 {
				p.Denials = append(p.Denials, Denial{"shared_group", fmt.Sprintf("%s=%q: the node-wide group %s is shared by rule %s, which does not match this pod; using the namespace's own %s",
					gname, gv, gv, strings.Join(rules, ", "), orDefault(ng, p.Group))})
			}
			switch {
			case ng == "":
				p.Problems = append(p.Problems, fmt.Sprintf("%s=%q: k8s.%s.%s is longer than 64 bytes; using %s", gname, gv, pod.GetNamespace(), gv, p.Group))
			case ng == OverflowGroup(pod.GetNamespace()):
				// its settings are the policy's (namespaceQuota)
				p.Problems = append(p.Problems, fmt.Sprintf("%s=%q: %s is the namespace's overflow group, not a group to name; using %s", gname, gv, ng, p.Group))
			default:
				p.Group, p.Source["group"] = ng, gname+" (in the pod's namespace)"
			}
		}
	}

	// the defaults: the QoS class's, or for a shared group the policy's
	// settings of that group (never a pod's QoS default: the group is
	// several tenants')
	q := c.qos[p.QoS]
	def, defWhat, defSrc := q.priority, string(p.QoS)+" default", "default ("+string(p.QoS)+")"
	p.Source["limit"] = "default (none)"
	useLimit := "no limit"
	if q.hasLimit {
		p.Limit, p.Source["limit"], useLimit = q.limit, "default ("+string(p.QoS)+")", "the "+string(p.QoS)+" default limit"
	}
	if p.Shared {
		sg := c.shared[gv]
		by := "a shared group's defaults, low and no limit"
		if sg.rule != "" {
			by = "rule " + sg.rule + "'s settings of shared group " + gv
		}
		def, defWhat, defSrc = sg.priority, by, by
		p.PriorityNamed, p.LimitNamed, p.Limit = sg.prioritySet, sg.limitNamed, sg.limit
		p.Source["limit"], useLimit = by, by
		if sg.limitSrc == "" {
			p.Source["limit"] += " (none)"
		}
		if (hasP || hasL) && gr.podSettings[gv] == "" {
			for _, a := range [][2]string{{pname, pv}, {lname, lv}} {
				if a[0] != "" {
					p.Denials = append(p.Denials, Denial{"shared_group_settings", fmt.Sprintf("%s=%q: group %s is shared by rule %s: its priority and limit are the policy's (no rule's podSettings lets this pod set them); using %s",
						a[0], a[1], gv, gr.shared[gv], by)})
				}
			}
			hasP, hasL = false, false
		}
	}
	p.Priority, p.Source["priority"] = def, defSrc
	if hasP {
		switch {
		case pv != "high" && pv != "low":
			p.Problems = append(p.Problems, fmt.Sprintf("%s=%q: must be high or low; using %s (%s)", pname, pv, def, defWhat))
		case pv == "high" && gr.high == "":
			p.Denials = append(p.Denials, Denial{"high_priority", fmt.Sprintf("%s=high: no policy rule allows this pod priority high; using %s (%s)", pname, def, defWhat)})
		default:
			p.Priority, p.PriorityNamed, p.PriorityByPod, p.Source["priority"] = pv, true, true, pname
			if pv == "high" {
				p.Source["priority"] += " (rule " + gr.high + ")"
			}
			if p.Shared {
				p.Source["priority"] += " (podSettings by rule " + gr.podSettings[gv] + ")"
			}
		}
	}
	if hasL {
		if l, named, err := parseLimit(lv); err == nil {
			p.Limit, p.LimitNamed, p.LimitByPod, p.Source["limit"] = l, named, true, lname
			if p.Shared {
				p.Source["limit"] += " (podSettings by rule " + gr.podSettings[gv] + ")"
			}
		} else {
			p.Problems = append(p.Problems, fmt.Sprintf("%s=%q: %v; using %s", lname, lv, err, useLimit))
		}
	}
	return p
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
