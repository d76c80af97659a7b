// registry: a read-only OCI distribution registry on loopback, serving OCI
// image layout tarballs (tests/e2e/oci-image.sh), for the k8s suite's
// critest run: critest pulls its test image through CRI's PullImage, which
// always asks a registry, and the guest has no network. containerd talks
// plain HTTP to a localhost registry on a port other than 443 (its hosts
// defaults), so none needs configuring.
//
// usage: registry ADDR NAME=LAYOUT.tar...
//
//	serves LAYOUT.tar's images as repository NAME (e.g. e2e/busybox), each
//	tag being the ref.name annotation of an index entry
//
// Only std: built with `go build registry.go` (no module).
package main

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
)

type repo struct {
	blobs map[string][]byte // "sha256:..." -> content
	tags  map[string]string // tag -> manifest digest
	types map[string]string // manifest digest -> media type
}

func load(path string) (*repo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &repo{blobs: map[string][]byte{}, tags: map[string]string{}, types: map[string]string{}}
	var index []byte
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		name := strings.TrimPrefix(h.Name, "./")
		switch {
		case name == "index.json":
			index = b
		case strings.HasPrefix(name, "blobs/sha256/"):
			r.blobs["sha256:"+strings.TrimPrefix(name, "blobs/sha256/")] = b
		}
	}
	var idx struct {
		Manifests []struct {
			MediaType   string            `json:"mediaType"`
			Digest      string            `json:"digest"`
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	if err := json.Unmarshal(index, &idx); err != nil {
		return nil, fmt.Errorf("%s: index.json: %v", path, err)
	}
	for _, m := range idx.Manifests {
		if _, ok := r.blobs[m.Digest]; !ok {
			return nil, fmt.Errorf("%s: manifest %s missing", path, m.Digest)
		}
		r.types[m.Digest] = m.MediaType
		if t := m.Annotations["org.opencontainers.image.ref.name"]; t != "" {
			r.tags[t] = m.Digest
		}
	}
	return r, nil
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: registry ADDR NAME=LAYOUT.tar...")
		os.Exit(2)
	}
	repos := map[string]*repo{}
	for _, a := range os.Args[2:] {
		name, path, ok := strings.Cut(a, "=")
		if !ok {
			log.Fatalf("%q: not NAME=LAYOUT.tar", a)
		}
		r, err := load(path)
		if err != nil {
			log.Fatal(err)
		}
		repos[name] = r
	}
	http.HandleFunc("/v2/", func(w http.ResponseWriter, q *http.Request) {
		log.Printf("%s %s", q.Method, q.URL.Path)
		if q.Method != http.MethodGet && q.Method != http.MethodHead {
			http.Error(w, "read-only", http.StatusMethodNotAllowed)
			return
		}
		p := strings.TrimPrefix(q.URL.Path, "/v2/")
		if p == "" {
			w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")
			return
		}
		var name, kind, ref string
		for _, k := range []string{"/manifests/", "/blobs/"} {
			if i := strings.LastIndex(p, k); i > 0 {
				name, kind, ref = p[:i], strings.Trim(k, "/"), p[i+len(k):]
				break
			}
		}
		r := repos[name]
		if r == nil {
			http.Error(w, `{"errors":[{"code":"NAME_UNKNOWN"}]}`, http.StatusNotFound)
			return
		}
		d := ref
		if kind == "manifests" && !strings.HasPrefix(ref, "sha256:") {
			d = r.tags[ref]
		}
		b, ok := r.blobs[d]
		if !ok {
			http.Error(w, `{"errors":[{"code":"MANIFEST_UNKNOWN"}]}`, http.StatusNotFound)
			return
		}
		ct := "application/octet-stream"
		if kind == "manifests" {
			ct = r.types[d]
			if ct == "" {
				var m struct {
					MediaType string `json:"mediaType"`
				}
				_ = json.Unmarshal(b, &m)
				ct = m.MediaType
			}
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Docker-Content-Digest", d)
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		if q.Method == http.MethodGet {
			_, _ = w.Write(b)
		}
	})
	log.Fatal(http.ListenAndServe(os.Args[1], nil))
}
