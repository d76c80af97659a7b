// tgroup-nri: the NRI plugin that puts Kubernetes pods into TGroups
// (docs/kubernetes.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/containerd/nri/pkg/stub"

	tgnri "tgroup/userland/nri"
)

func main() {
	var (
		mount    = flag.String("mount", "/sys/fs/tgroup", "the tgroup mount")
		state    = flag.String("state", "/var/lib/tgroup-nri/groups", "file naming the groups the plugin created (survives restarts)")
		name     = flag.String("name", "tgroup", "plugin name registered with the runtime")
		idx      = flag.String("idx", "50", "plugin index (order among NRI plugins, two digits)")
		socket   = flag.String("socket", "", "NRI socket (default: the runtime's, /var/run/nri/nri.sock)")
		guar     = flag.String("guaranteed", "high", "priority of Guaranteed pods without tgroup.io/priority")
		burst    = flag.String("burstable", "low", "priority of Burstable pods without tgroup.io/priority")
		besteff  = flag.String("besteffort", "low", "priority of BestEffort pods without tgroup.io/priority")
		unknownQ = flag.String("unknown-qos", "low", "priority of pods whose QoS class cannot be told")
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
	// the mount is the module's: its root has tgroup.config
	if _, err := os.Stat(filepath.Join(*mount, "tgroup.config")); err != nil {
		log.Fatalf("%s is not a tgroup mount (%v): load tgroup.ko and mount -t tgroup tgroup %s", *mount, err, *mount)
	}

	p := &tgnri.Plugin{FS: tgnri.Mount{Root: *mount}, Defaults: d, StatePath: *state}
	opts := []stub.Option{stub.WithPluginName(*name), stub.WithPluginIdx(*idx),
		stub.WithOnClose(func() {
			log.Printf("connection to the runtime closed: exiting (restarted by the DaemonSet; Synchronize repairs)")
		})}
	if *socket != "" {
		opts = append(opts, stub.WithSocketPath(*socket))
	}
	s, err := stub.New(p, opts...)
	if err != nil {
		log.Fatalf("creating the NRI stub: %v", err)
	}
	if err := s.Run(context.Background()); err != nil {
		log.Fatalf("plugin exited: %v", err)
	}
	os.Exit(1) // the runtime went away: start afresh and resync
}
