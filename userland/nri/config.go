package tgnri

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

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
}

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
	// SharedGroups: node-wide group names (not namespaced) the pods may
	// join with tgroup.io/group; other namespaces' pods may share them.
	SharedGroups []string `json:"sharedGroups,omitempty"`
	// HighPriority: tgroup.io/priority: high.
	HighPriority bool `json:"highPriority,omitempty"`
	// UnownedGroups: write the pod's tgroup.io/priority and
	// tgroup.io/limit into a group the plugin did not create (an admin's,
	// tgctl's). Without it the pod joins such a group and leaves its
	// settings alone.
	UnownedGroups bool `json:"unownedGroups,omitempty"`
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
	nodeConfig string              // one write to tgroup.config ("" = none)
}

type qosCompiled struct {
	priority string
	limit    [4]uint64
	hasLimit bool
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
	out := &compiled{src: c, qos: map[QoS]qosCompiled{}, sharedBy: map[string][]string{}}
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
		for _, g := range r.Allow.SharedGroups {
			if !ValidGroupName(g) {
				return nil, fmt.Errorf("%s: allow.sharedGroups: %q is not a group name (1-64 bytes of [A-Za-z0-9._-], not tasks, last_cmd_status, tgroup.* or cgroup.*)", where, g)
			}
			if strings.HasPrefix(g, DefaultPrefix) {
				return nil, fmt.Errorf("%s: allow.sharedGroups: %q: names starting %q are the plugin's per-namespace groups", where, g, DefaultPrefix)
			}
			out.sharedBy[g] = append(out.sharedBy[g], r.Name)
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
	return out, nil
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
	high          string            // a rule allowing high ("" none)
	unownedGroups string            // a rule allowing settings on unowned groups
}

func (c *compiled) grantsFor(pod *api.PodSandbox) grants {
	g := grants{shared: map[string]string{}}
	for _, r := range c.rules {
		if len(r.Match.Namespaces) > 0 && !matchAny(r.Match.Namespaces, pod.GetNamespace()) {
			continue
		}
		if r.sel != nil && !r.sel.Matches(labels.Set(pod.GetLabels())) {
			continue
		}
		for _, s := range r.Allow.SharedGroups {
			if _, ok := g.shared[s]; !ok {
				g.shared[s] = r.Name
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
