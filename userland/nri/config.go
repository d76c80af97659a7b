package tgnri

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/yaml"

	"github.com/containerd/nri/pkg/api"
)

// Config is tgroup-nri's policy: a YAML document (the ConfigMap's
// config.yaml, -config FILE, or the configuration the runtime hands a
// plugin it launched itself through NRI's Configure). docs/kubernetes.md
// "The policy" describes every field. Parsed strictly (ParseConfig):
// unknown fields, duplicate keys and bad values are errors.
type Config struct {
	// Manage chooses the pods the plugin puts into groups; the others
	// stay where the runtime put them (the root group).
	Manage Manage `json:"manage"`
	// QoSClasses: the priority (and limit) of a pod that names none, by
	// its QoS class: Guaranteed, Burstable, BestEffort, Unknown.
	QoSClasses map[string]QoSDefault `json:"qosClasses,omitempty"`
	// Rules grant what annotations alone may not do: join a node-wide
	// group shared with other namespaces, priority high, settings on a
	// group the plugin did not create.
	Rules []Rule `json:"rules,omitempty"`
	// NodeConfig: tgroup.config keys the node should carry, written (all
	// or nothing) each time the plugin connects to the runtime.
	NodeConfig map[string]json.RawMessage `json:"nodeConfig,omitempty"`
	// RescanInterval: how often the cgroups of placed containers are
	// looked at for processes exec'd into them (a Go duration, 100ms to
	// 1h; "0" = never). Default 1s.
	RescanInterval string `json:"rescanInterval,omitempty"`
	// NamespaceQuota: how many groups the plugin makes for one
	// namespace's pods, and where the rest wait.
	NamespaceQuota NamespaceQuota `json:"namespaceQuota,omitempty"`
}

// NamespaceQuota is the per-namespace group quota.
type NamespaceQuota struct {
	// Groups: the most groups the plugin makes for one namespace's pods
	// (its overflow group and shared groups not counted); 0 = no quota.
	Groups int `json:"groups,omitempty"`
	// OverflowLimit: the overflow group's tgroup.limit (tgroup.io/limit's
	// syntax); "" = none. Its priority is low.
	OverflowLimit string `json:"overflowLimit,omitempty"`
}

// DefaultRescanInterval is rescanInterval when the policy gives none.
const DefaultRescanInterval = time.Second

// Manage selects pods by namespace and labels.
type Manage struct {
	// Namespaces: names or shell patterns (team-*); empty = every one.
	Namespaces []string `json:"namespaces,omitempty"`
	// ExcludeNamespaces: names or patterns never managed; when the field
	// is absent, [kube-system].
	ExcludeNamespaces []string `json:"excludeNamespaces"`
	// PodSelector: a Kubernetes label selector on the pod's labels;
	// absent or empty = every pod.
	PodSelector *LabelSelector `json:"podSelector,omitempty"`
}

// QoSDefault is what a pod of one QoS class gets when its annotations
// say nothing.
type QoSDefault struct {
	Priority string `json:"priority,omitempty"` // high or low
	// Limit: tgroup.io/limit's syntax (units of tgctl or Kubernetes
	// quantities); "" = no limit.
	Limit string `json:"limit,omitempty"`
}

// Rule grants the pods it matches (namespace AND labels) what annotations
// alone may not do.
type Rule struct {
	Name  string    `json:"name"`
	Match RuleMatch `json:"match"`
	Allow RuleAllow `json:"allow"`
}

// RuleMatch: both parts must match; an absent part matches every pod.
type RuleMatch struct {
	Namespaces  []string       `json:"namespaces,omitempty"`
	PodSelector *LabelSelector `json:"podSelector,omitempty"`
}

// RuleAllow lists what a rule grants.
type RuleAllow struct {
	// SharedGroups: node-wide groups (not namespaced) the pods may join
	// with tgroup.io/group; other namespaces' pods may share them. Each
	// is a name, or a name with the group's settings (SharedGroup).
	SharedGroups []SharedGroup `json:"sharedGroups,omitempty"`
	// HighPriority: tgroup.io/priority: high.
	HighPriority bool `json:"highPriority,omitempty"`
	// UnownedGroups: write the pod's tgroup.io/priority and
	// tgroup.io/limit into a group the plugin did not create (an admin's,
	// tgctl's). Without it the pod joins such a group and leaves its
	// settings alone.
	UnownedGroups bool `json:"unownedGroups,omitempty"`
}

// SharedGroup is one entry of allow.sharedGroups: a group name (YAML
// "db"), or the name with the group's settings ({name: db, priority:
// high, limit: "nvm_wbps=1G", podSettings: true}). A shared group's
// priority and limit are the policy's, never a pod's: several tenants'
// pods are in it, and none may change what the others get.
type SharedGroup struct {
	Name string `json:"name"`
	// Priority and Limit: the group's (defaults low and no limit; a
	// group the plugin did not create keeps what these do not name).
	Priority string `json:"priority,omitempty"`
	Limit    string `json:"limit,omitempty"`
	// PodSettings lets the pods this rule shares the group with set its
	// priority and limit by annotation (the last one placed wins; high
	// still needs allow.highPriority). Without it such annotations are
	// denied (shared_group_settings).
	PodSettings bool `json:"podSettings,omitempty"`
}

// UnmarshalJSON takes a name or the object, strictly.
func (s *SharedGroup) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err == nil {
		*s = SharedGroup{Name: name}
		return nil
	}
	type plain SharedGroup // no UnmarshalJSON: no recursion
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var v plain
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("a shared group is a name or {name, priority, limit, podSettings}: %v", err)
	}
	*s = SharedGroup(v)
	return nil
}

// LabelSelector has the shape of Kubernetes' metav1.LabelSelector (the
// same YAML) and its meaning: every matchLabels pair and every expression
// must hold.
type LabelSelector struct {
	MatchLabels      map[string]string          `json:"matchLabels,omitempty"`
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorRequirement: operator In, NotIn, Exists or DoesNotExist.
type LabelSelectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// DefaultExcludedNamespaces: the cluster's own pods are left alone unless
// the policy says otherwise.
var DefaultExcludedNamespaces = []string{"kube-system"}

// compiled is a Config checked and ready to match pods.
type compiled struct {
	src        Config
	podSel     labels.Selector // nil = every pod
	qos        map[QoS]qosCompiled
	rules      []ruleCompiled
	sharedBy   map[string][]string // shared group -> the rules that share it
	shared     map[string]sharedCompiled
	nodeConfig string        // one write to tgroup.config ("" = none)
	rescan     time.Duration // 0 = no rescan
	quota      quotaCompiled
	warnings   []string // logged at Configure, printed by -check-config
}

type qosCompiled struct {
	priority string
	limit    [4]uint64
	hasLimit bool
}

type quotaCompiled struct {
	groups        int // 0 = no quota
	overflowLimit [4]uint64
}

// sharedCompiled is a shared group's settings, from the rules.
type sharedCompiled struct {
	priority    string    // "low" unless a rule names one
	prioritySet bool      // a rule named the priority
	limit       [4]uint64 // all Max unless a rule names a limit
	limitNamed  [4]bool   // the keys a rule's limit named
	rule        string    // the rule that gave the settings ("" none)
	limitSrc    string    // the limit as the rule wrote it
}

type ruleCompiled struct {
	Rule
	sel labels.Selector // nil = every pod
}

var nodeKeyRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// ParseConfig reads a policy, strictly: an unknown field, a duplicate
// key, a bad pattern, selector, priority, limit or group name is an
// error naming it. base gives the QoS priorities for classes the policy
// does not name (the -guaranteed ... flags; DefaultPriorities if nil).
// An empty document is the default policy.
func ParseConfig(data []byte, base Defaults) (*compiled, error) {
	var c Config
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.UnmarshalStrict(data, &c); err != nil {
			// the YAML library's layers say nothing a reader needs
			msg := err.Error()
			for _, p := range []string{"error unmarshaling JSON: ", "while decoding JSON: ", "json: "} {
				msg = strings.Replace(msg, p, "", 1)
			}
			return nil, fmt.Errorf("policy: %s", msg)
		}
	}
	return compileConfig(c, base)
}

func compileConfig(c Config, base Defaults) (*compiled, error) {
	if base == nil {
		base = DefaultPriorities
	}
	if c.Manage.ExcludeNamespaces == nil {
		c.Manage.ExcludeNamespaces = DefaultExcludedNamespaces
	}
	out := &compiled{src: c, qos: map[QoS]qosCompiled{}, sharedBy: map[string][]string{}, shared: map[string]sharedCompiled{}}
	for _, f := range []struct {
		field string
		pats  []string
	}{{"manage.namespaces", c.Manage.Namespaces}, {"manage.excludeNamespaces", c.Manage.ExcludeNamespaces}} {
		if err := checkPatterns(f.field, f.pats); err != nil {
			return nil, err
		}
	}
	var err error
	if out.podSel, err = c.Manage.PodSelector.compile("manage.podSelector"); err != nil {
		return nil, err
	}
	if out.podSel != nil {
		out.warnings = append(out.warnings, "policy: manage.podSelector: a pod's labels are set by whoever creates the pod: a tenant's pod that does not match stays in the root group (never throttled, not protected)")
	}

	for _, q := range []QoS{Guaranteed, Burstable, BestEffort, Unknown} {
		prio := base[q]
		if prio == "" {
			prio = "low"
		}
		out.qos[q] = qosCompiled{priority: prio, limit: [4]uint64{Max, Max, Max, Max}}
	}
	for name, d := range c.QoSClasses {
		q := QoS(name)
		if _, ok := out.qos[q]; !ok {
			return nil, fmt.Errorf("policy: qosClasses.%s: not a QoS class (Guaranteed, Burstable, BestEffort, Unknown)", name)
		}
		qc := out.qos[q]
		switch d.Priority {
		case "":
		case "high", "low":
			qc.priority = d.Priority
		default:
			return nil, fmt.Errorf("policy: qosClasses.%s.priority %q: must be high or low", name, d.Priority)
		}
		if d.Limit != "" {
			if qc.limit, err = ParseLimit(d.Limit); err != nil {
				return nil, fmt.Errorf("policy: qosClasses.%s.limit %q: %v", name, d.Limit, err)
			}
			qc.hasLimit = true
		}
		out.qos[q] = qc
	}

	names := map[string]bool{}
	for i, r := range c.Rules {
		where := fmt.Sprintf("policy: rules[%d]", i)
		if r.Name == "" {
			return nil, fmt.Errorf("%s: no name (it names the rule in logs and metrics)", where)
		}
		where = fmt.Sprintf("policy: rule %q", r.Name)
		if names[r.Name] {
			return nil, fmt.Errorf("%s: the name is used twice", where)
		}
		names[r.Name] = true
		if err := checkPatterns(where+": match.namespaces", r.Match.Namespaces); err != nil {
			return nil, err
		}
		rc := ruleCompiled{Rule: r}
		if rc.sel, err = r.Match.PodSelector.compile(where + ": match.podSelector"); err != nil {
			return nil, err
		}
		for _, sg := range r.Allow.SharedGroups {
			if err := out.addShared(where, r.Name, sg); err != nil {
				return nil, err
			}
		}
		// labels are whoever creates the pod's: a grant by labels alone
		// is a grant to every namespace
		if len(r.Match.Namespaces) == 0 && (r.Allow.HighPriority || r.Allow.UnownedGroups || len(r.Allow.SharedGroups) > 0) {
			return nil, fmt.Errorf("%s: grants by labels alone (no match.namespaces): a pod's labels are set by whoever creates the pod, in any namespace; "+
				"name the namespaces the rule is for (match.namespaces; [\"*\"] grants every namespace, on purpose)", where)
		}
		for _, ns := range r.Match.Namespaces {
			if strings.ContainsAny(ns, "*?[") && ns != "*" {
				out.warnings = append(out.warnings, fmt.Sprintf("%s: match.namespaces pattern %q also grants namespaces created later under a matching name: keep the right to create namespaces from tenants", where, ns))
			}
		}
		out.rules = append(out.rules, rc)
	}

	var keys []string
	for k := range c.NodeConfig {
		if !nodeKeyRE.MatchString(k) {
			return nil, fmt.Errorf("policy: nodeConfig: %q is not a tgroup.config key", k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var kv []string
	for _, k := range keys {
		v, err := nodeValue(c.NodeConfig[k])
		if err != nil {
			return nil, fmt.Errorf("policy: nodeConfig.%s: %v", k, err)
		}
		kv = append(kv, k+"="+v)
	}
	out.nodeConfig = strings.Join(kv, " ")

	out.rescan = DefaultRescanInterval
	if c.RescanInterval != "" {
		d, err := time.ParseDuration(c.RescanInterval)
		if err != nil || (d != 0 && (d < 100*time.Millisecond || d > time.Hour)) {
			return nil, fmt.Errorf("policy: rescanInterval %q: a duration from 100ms to 1h (e.g. 1s, 500ms), or 0 for none", c.RescanInterval)
		}
		out.rescan = d
	}

	q := c.NamespaceQuota
	if q.Groups < 0 {
		return nil, fmt.Errorf("policy: namespaceQuota.groups %d: a number of groups, or 0 for no quota", q.Groups)
	}
	out.quota = quotaCompiled{groups: q.Groups, overflowLimit: [4]uint64{Max, Max, Max, Max}}
	if q.OverflowLimit != "" {
		if out.quota.overflowLimit, err = ParseLimit(q.OverflowLimit); err != nil {
			return nil, fmt.Errorf("policy: namespaceQuota.overflowLimit %q: %v", q.OverflowLimit, err)
		}
	}
	return out, nil
}

// addShared records shared group sg of rule: its name checked, its
// settings parsed, and the same settings wherever two rules give some.
func (c *compiled) addShared(where, rule string, sg SharedGroup) error {
	g := sg.Name
	if !ValidGroupName(g) {
		return fmt.Errorf("%s: allow.sharedGroups: %q is not a group name (1-64 bytes of [A-Za-z0-9._-], not tasks, last_cmd_status, tgroup.* or cgroup.*)", where, g)
	}
	if strings.HasPrefix(g, DefaultPrefix) {
		return fmt.Errorf("%s: allow.sharedGroups: %q: names starting %q are the plugin's per-namespace groups", where, g, DefaultPrefix)
	}
	if !slices.Contains(c.sharedBy[g], rule) {
		c.sharedBy[g] = append(c.sharedBy[g], rule)
	}
	if sg.Priority == "" && sg.Limit == "" {
		if _, ok := c.shared[g]; !ok {
			c.shared[g] = sharedCompiled{priority: "low", limit: [4]uint64{Max, Max, Max, Max}}
		}
		return nil
	}
	s := sharedCompiled{priority: "low", limit: [4]uint64{Max, Max, Max, Max}, rule: rule, limitSrc: sg.Limit}
	switch sg.Priority {
	case "":
	case "high", "low":
		s.priority, s.prioritySet = sg.Priority, true
	default:
		return fmt.Errorf("%s: allow.sharedGroups: %s: priority %q: must be high or low", where, g, sg.Priority)
	}
	if sg.Limit != "" {
		var err error
		if s.limit, s.limitNamed, err = parseLimit(sg.Limit); err != nil {
			return fmt.Errorf("%s: allow.sharedGroups: %s: limit %q: %v", where, g, sg.Limit, err)
		}
	}
	if old := c.shared[g]; old.rule != "" && (old.priority != s.priority || old.prioritySet != s.prioritySet || old.limit != s.limit || old.limitNamed != s.limitNamed) {
		return fmt.Errorf("%s: allow.sharedGroups: %s: rule %q gives the group other settings; a shared group has one priority and limit (give them in one rule, or the same in each)", where, g, old.rule)
	}
	c.shared[g] = s
	return nil
}

// nodeValue is a tgroup.config value: a whole number, given as a YAML
// number or string (the kernel checks its range).
func nodeValue(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		s = string(raw)
	default:
		return "", fmt.Errorf("%s: not a number", raw)
	}
	if _, err := strconv.ParseUint(s, 10, 64); err != nil {
		return "", fmt.Errorf("%q: not a whole number", s)
	}
	return s, nil
}

func checkPatterns(field string, pats []string) error {
	for _, p := range pats {
		if _, err := path.Match(p, ""); err != nil || p == "" {
			return fmt.Errorf("policy: %s: %q is not a name or pattern", field, p)
		}
	}
	return nil
}

func matchAny(pats []string, s string) bool {
	for _, p := range pats {
		if ok, _ := path.Match(p, s); ok {
			return true
		}
	}
	return false
}

// compile builds the selector; nil (and an empty selector) select
// every pod, as in Kubernetes.
func (s *LabelSelector) compile(field string) (labels.Selector, error) {
	if s == nil || (len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0) {
		return nil, nil
	}
	sel := labels.NewSelector()
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r, err := labels.NewRequirement(k, selection.Equals, []string{s.MatchLabels[k]})
		if err != nil {
			return nil, fmt.Errorf("policy: %s.matchLabels: %v", field, err)
		}
		sel = sel.Add(*r)
	}
	ops := map[string]selection.Operator{"In": selection.In, "NotIn": selection.NotIn,
		"Exists": selection.Exists, "DoesNotExist": selection.DoesNotExist}
	for i, e := range s.MatchExpressions {
		op, ok := ops[e.Operator]
		if !ok {
			return nil, fmt.Errorf("policy: %s.matchExpressions[%d]: operator %q (In, NotIn, Exists, DoesNotExist)", field, i, e.Operator)
		}
		r, err := labels.NewRequirement(e.Key, op, e.Values)
		if err != nil {
			return nil, fmt.Errorf("policy: %s.matchExpressions[%d]: %v", field, i, err)
		}
		sel = sel.Add(*r)
	}
	return sel, nil
}

// Warnings are what the policy allows that a platform team should know
// (tenant-controlled labels and namespace names).
func (c *compiled) Warnings() []string { return c.warnings }

// Manages tells whether the policy puts pod into groups, and if not why.
func (c *compiled) Manages(pod *api.PodSandbox) (bool, string) { return c.managed(pod) }

// managed tells whether the policy puts pod into groups, and if not why.
func (c *compiled) managed(pod *api.PodSandbox) (bool, string) {
	ns := pod.GetNamespace()
	m := c.src.Manage
	if len(m.Namespaces) > 0 && !matchAny(m.Namespaces, ns) {
		return false, "namespace " + ns + " not in manage.namespaces"
	}
	if matchAny(m.ExcludeNamespaces, ns) {
		return false, "namespace " + ns + " excluded (manage.excludeNamespaces)"
	}
	if c.podSel != nil && !c.podSel.Matches(labels.Set(pod.GetLabels())) {
		return false, "labels do not match manage.podSelector"
	}
	return true, ""
}

// grants is the union of what the rules matching pod allow, with the
// names of those rules.
type grants struct {
	shared        map[string]string // group -> the rule that shares it with this pod
	podSettings   map[string]string // shared group -> a rule letting this pod set its priority/limit
	high          string            // a rule allowing high ("" none)
	unownedGroups string            // a rule allowing settings on unowned groups
}

func (c *compiled) grantsFor(pod *api.PodSandbox) grants {
	g := grants{shared: map[string]string{}, podSettings: map[string]string{}}
	for _, r := range c.rules {
		if len(r.Match.Namespaces) > 0 && !matchAny(r.Match.Namespaces, pod.GetNamespace()) {
			continue
		}
		if r.sel != nil && !r.sel.Matches(labels.Set(pod.GetLabels())) {
			continue
		}
		for _, s := range r.Allow.SharedGroups {
			if _, ok := g.shared[s.Name]; !ok {
				g.shared[s.Name] = r.Name
			}
			if _, ok := g.podSettings[s.Name]; !ok && s.PodSettings {
				g.podSettings[s.Name] = r.Name
			}
		}
		if r.Allow.HighPriority && g.high == "" {
			g.high = r.Name
		}
		if r.Allow.UnownedGroups && g.unownedGroups == "" {
			g.unownedGroups = r.Name
		}
	}
	return g
}
