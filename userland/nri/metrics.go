package tgnri

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics is what tgroup-nri tells Prometheus (docs/kubernetes.md
// "Metrics"). A nil *Metrics counts nothing.
type Metrics struct {
	Registry   *prometheus.Registry
	placements *prometheus.CounterVec
	denials    *prometheus.CounterVec
	failures   *prometheus.CounterVec
	unmanaged  *prometheus.CounterVec
	owned      prometheus.Gauge
	pending    prometheus.Gauge
	rescanned  prometheus.Counter
	info       *prometheus.GaugeVec
	runtime    *prometheus.GaugeVec
	ready      prometheus.Gauge
}

// NewMetrics registers the plugin's series (and Go's and the process's)
// in a registry of their own.
func NewMetrics() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry()}
	m.placements = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tgroup_nri_placements_total",
		Help: "Containers placed into their group (a container counts once per event that placed it: StartContainer, PostStartContainer, Synchronize, retry)."}, []string{"event"})
	m.denials = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tgroup_nri_denials_total",
		Help: "Annotations the policy refused (once per container): high_priority, shared_group, shared_group_settings, unowned_group. The pod starts without them."}, []string{"reason"})
	m.failures = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tgroup_nri_failures_total",
		Help: "Things that went wrong, by reason: invalid_annotation, max_groups, namespace_quota, mkdir, write_limit, write_priority, move, cgroup_unresolved, remove, config, node_config, no_pid, runtime_refused."}, []string{"reason"})
	m.unmanaged = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "tgroup_nri_unmanaged_containers_total",
		Help: "Containers the policy leaves alone (once per container), by reason: namespace, pod_selector."}, []string{"reason"})
	m.owned = prometheus.NewGauge(prometheus.GaugeOpts{Name: "tgroup_nri_groups_owned",
		Help: "Groups the plugin created and keeps."})
	m.pending = prometheus.NewGauge(prometheus.GaugeOpts{Name: "tgroup_nri_pending_containers",
		Help: "Containers waiting for a group of their own (max_groups or their namespace's quota reached); they run in their namespace's overflow group, or the root group when it has none."})
	m.rescanned = prometheus.NewCounter(prometheus.CounterOpts{Name: "tgroup_nri_rescan_moved_total",
		Help: "Processes the periodic rescan found in a placed container's cgroup outside its group (exec'd into the container: kubectl exec, exec probes, postStart hooks) and moved."})
	m.info = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "tgroup_nri_container_info",
		Help: "1 for each container the plugin placed: joins a pod's name and namespace to its group (tgroup-exporter's group label)."},
		[]string{"namespace", "pod", "container", "group", "pod_uid"})
	m.runtime = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "tgroup_nri_runtime_info",
		Help: "1 for the container runtime the plugin is configured by."}, []string{"runtime", "version"})
	m.ready = prometheus.NewGauge(prometheus.GaugeOpts{Name: "tgroup_nri_ready",
		Help: "1 while the plugin is registered with the runtime and synchronized, with a policy that parses."})
	m.Registry.MustRegister(m.placements, m.denials, m.failures, m.unmanaged, m.owned, m.pending, m.rescanned, m.info, m.runtime, m.ready,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *Metrics) placed(event string) {
	if m != nil {
		m.placements.WithLabelValues(event).Inc()
	}
}

func (m *Metrics) denied(reason string) {
	if m != nil {
		m.denials.WithLabelValues(reason).Inc()
	}
}

func (m *Metrics) failed(reason string) {
	if m != nil {
		m.failures.WithLabelValues(reason).Inc()
	}
}

func (m *Metrics) leftAlone(reason string) {
	if m != nil {
		m.unmanaged.WithLabelValues(reason).Inc()
	}
}

func (m *Metrics) rescanMoved(n int) {
	if m != nil {
		m.rescanned.Add(float64(n))
	}
}

func (m *Metrics) setCounts(owned, pending int) {
	if m != nil {
		m.owned.Set(float64(owned))
		m.pending.Set(float64(pending))
	}
}

type infoLabels struct{ ns, pod, ctr, group, uid string }

func (m *Metrics) setInfo(l infoLabels) {
	if m != nil {
		m.info.WithLabelValues(l.ns, l.pod, l.ctr, l.group, l.uid).Set(1)
	}
}

func (m *Metrics) dropInfo(l infoLabels) {
	if m != nil {
		m.info.DeleteLabelValues(l.ns, l.pod, l.ctr, l.group, l.uid)
	}
}

func (m *Metrics) resetInfo() {
	if m != nil {
		m.info.Reset()
	}
}

func (m *Metrics) setRuntime(name, version string) {
	if m != nil {
		m.runtime.Reset()
		m.runtime.WithLabelValues(name, version).Set(1)
	}
}

func (m *Metrics) setReady(ok bool) {
	if m != nil {
		v := 0.0
		if ok {
			v = 1
		}
		m.ready.Set(v)
	}
}

// Handler serves /metrics (m's registry), /healthz (liveness: the plugin
// answers, its lock is not stuck) and /readyz (readiness: registered with
// the runtime and synchronized; 503 with the reason otherwise).
func (p *Plugin) Handler(m *Metrics) http.Handler {
	mux := http.NewServeMux()
	if m != nil {
		mux.Handle("/metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	}
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if err := p.alive(ctx); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if why := p.NotReady(); why != "" {
			http.Error(w, why, http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	return mux
}
