// tgroup-nri: the NRI plugin that puts Kubernetes pods into TGroups
// (docs/kubernetes.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/containerd/nri/pkg/api"
	"github.com/containerd/nri/pkg/stub"

	tgnri "tgroup/userland/nri"
)

func main() {
	var (
		mount    = flag.String("mount", "/sys/fs/tgroup", "the tgroup mount")
		config   = flag.String("config", "", "the policy (YAML, docs/kubernetes.md), read at each connection to the runtime unless the runtime hands the plugin a configuration; empty: the default policy")
		cgroot   = flag.String("cgroup-root", "/sys/fs/cgroup", "the host's cgroup mount, where containers' cgroups are found")
		procRoot = flag.String("proc", "/proc", "the host's /proc (the plugin needs the host's pid namespace)")
		listen   = flag.String("listen", ":9848", "address serving /metrics, /healthz and /readyz (empty: none)")
		state    = flag.String("state", "/var/lib/tgroup-nri/groups", "file naming the groups the plugin created (survives restarts)")
		name     = flag.String("name", "tgroup", "plugin name registered with the runtime")
		idx      = flag.String("idx", "50", "plugin index (order among NRI plugins, two digits)")
		socket   = flag.String("socket", "", "NRI socket (default: the runtime's, /var/run/nri/nri.sock)")
		guar     = flag.String("guaranteed", "high", "priority of Guaranteed pods without tgroup.io/priority, unless the policy's qosClasses say")
		burst    = flag.String("burstable", "low", "priority of Burstable pods, unless the policy says")
		besteff  = flag.String("besteffort", "low", "priority of BestEffort pods, unless the policy says")
		unknownQ = flag.String("unknown-qos", "low", "priority of pods whose QoS class cannot be told, unless the policy says")
		check    = flag.Bool("check-config", false, "check the -config policy and exit (0: valid)")
	)
	flag.Parse()
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	log.SetPrefix("tgroup-nri: ")

	d := tgnri.Defaults{tgnri.Guaranteed: *guar, tgnri.Burstable: *burst, tgnri.BestEffort: *besteff, tgnri.Unknown: *unknownQ}
	for q, v := range d {
		if v != "high" && v != "low" {
			fmt.Fprintf(os.Stderr, "tgroup-nri: default for %s must be high or low, not %q\n", q, v)
			os.Exit(2)
		}
	}
	// a bad policy stops the plugin here, before it connects: the pod
	// restarts and its log says why
	if *config != "" {
		b, err := os.ReadFile(*config)
		if err == nil {
			var c interface{ Warnings() []string }
			if c, err = tgnri.ParseConfig(b, d); err == nil && *check {
				for _, w := range c.Warnings() {
					fmt.Println("WARNING " + w)
				}
			}
		}
		if err != nil {
			// with a policy that parsed before (kept next to the state
			// file) the plugin starts with that one, not ready; else stop
			if _, from := tgnri.LastGood(*state, d); *check || from == "" {
				fmt.Fprintf(os.Stderr, "tgroup-nri: %s: %v\n", *config, err)
				os.Exit(2)
			}
			log.Printf("%s: %v: starting with the last good policy (%s), not ready until this one is fixed", *config, err, tgnri.LastGoodPath(*state))
		}
	}
	if *check {
		fmt.Println("policy ok")
		return
	}
	// the mount is the module's: its root has tgroup.config
	if _, err := os.Stat(filepath.Join(*mount, "tgroup.config")); err != nil {
		log.Fatalf("%s is not a tgroup mount (%v): load tgroup.ko and mount -t tgroup tgroup %s", *mount, err, *mount)
	}

	m := tgnri.NewMetrics()
	p := &tgnri.Plugin{FS: tgnri.Mount{Root: *mount}, Cgroups: tgnri.Cgroups{Root: *cgroot, Proc: *procRoot},
		Defaults: d, ConfigFile: *config, StatePath: *state, Metrics: m}
	if *listen != "" {
		l, err := net.Listen("tcp", *listen)
		if err != nil {
			log.Fatalf("-listen %s: %v", *listen, err)
		}
		srv := &http.Server{Handler: p.Handler(m), ReadHeaderTimeout: 10 * time.Second}
		go func() { log.Printf("serving /metrics, /healthz, /readyz on %s: %v", *listen, srv.Serve(l)) }()
	}

	closed := make(chan struct{})
	opts := []stub.Option{stub.WithOnClose(func() { p.Disconnected(); close(closed) })}
	// A plugin the runtime launched itself (pre-registered) has its name
	// and index from the runtime (NRI_PLUGIN_NAME, NRI_PLUGIN_IDX): nri's
	// stub refuses a second index ("plugin ID already set"), so the flags
	// name only a plugin that connects by itself (the e2e suite's
	// preregistered scenario found this).
	if os.Getenv(api.PluginIdxEnvVar) == "" {
		opts = append(opts, stub.WithPluginName(*name), stub.WithPluginIdx(*idx))
	}
	if *socket != "" {
		opts = append(opts, stub.WithSocketPath(*socket))
	}
	s, err := stub.New(p, opts...)
	if err != nil {
		log.Fatalf("creating the NRI stub: %v", err)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	runErr := make(chan error, 1)
	go func() { runErr <- s.Run(ctx) }()
	select {
	case <-p.Refused():
		// the runtime cannot work with the plugin: stay up, not ready,
		// the reason logged once (a restart loop would log it forever)
		s.Stop()
		<-ctx.Done()
		return
	case err := <-runErr:
		select {
		case <-p.Refused():
			<-ctx.Done()
			return
		default:
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			log.Fatalf("plugin exited: %v", err)
		}
	case <-closed:
	case <-ctx.Done():
		s.Stop()
		return
	}
	log.Printf("connection to the runtime closed: exiting (restarted by the DaemonSet; Synchronize repairs)")
	os.Exit(1) // the runtime went away: start afresh and resync
}
