#!/bin/bash
# tgroup-exporter on a fake mount (a directory with the files): values
# against the inputs, the exposition linted by promtool (Debian's
# prometheus package), the HTTP server scraped with curl, tgroup_up 0 on a
# missing mount, and the textfile mode. usage: exporter.sh EXPORTER
set -uo pipefail
ex=$(realpath "$1")
ok() { echo "PASS exporter/$1"; }
ko() { echo "FAIL exporter/$1${2:+: $2}"; }
d=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$d"' EXIT
m=$d/mnt
mkdir -p "$m/db" "$m/web"
echo ok > "$m/last_cmd_status"
echo period_ms=10 > "$m/tgroup.config"
printf 'dram_read_lat_ns=90 nvm_read_lat_ns=1500 dram_write_lat_ns=110 nvm_write_lat_ns=2000\nstate=both\n' > "$m/tgroup.interference"
stat() {	# dram_r dram_w nvm_r nvm_w periods throttled thr_usec mba quota
	printf 'dram_read_bytes %s\ndram_write_bytes %s\nnvm_read_bytes %s\nnvm_write_bytes %s\nnr_periods %s\nnr_throttled %s\nthrottled_usec %s\nmba_percent %s\ncpu_quota_usec %s\ncpu_period_usec 10000\nlast_action none\nlast_mechanism none\nlast_reason none\n' "$@"
}
stat 1 2 3 4 500 0 0 100 max > "$m/tgroup.stat"
stat 640000 0 18446744073709551615 5 500 120 1200000 30 2500 > "$m/db/tgroup.stat"
stat 0 0 0 0 10 0 0 100 max > "$m/web/tgroup.stat"
echo high > "$m/db/tgroup.priority"; echo low > "$m/web/tgroup.priority"
echo 'dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=1000000000' > "$m/db/tgroup.limit"
echo 'dram_rbps=max dram_wbps=max nvm_rbps=max nvm_wbps=max' > "$m/web/tgroup.limit"

out=$("$ex" -m "$m" --once); rc=$?
# the expected samples, written from the inputs above
bad=
for want in 'tgroup_up 1' \
	'tgroup_bytes_total{group="db",tier="dram",direction="read"} 640000' \
	'tgroup_bytes_total{group="db",tier="nvm",direction="read"} 18446744073709551615' \
	'tgroup_bytes_total{group="/",tier="nvm",direction="write"} 4' \
	'tgroup_throttled_periods_total{group="db"} 120' \
	'tgroup_throttled_seconds_total{group="db"} 1.200000' \
	'tgroup_periods_total{group="web"} 10' \
	'tgroup_mba_ratio{group="db"} 0.30' 'tgroup_mba_ratio{group="web"} 1.00' \
	'tgroup_cpu_quota_seconds{group="db"} 0.002500' 'tgroup_cpu_quota_seconds{group="web"} +Inf' \
	'tgroup_period_seconds 0.010000' \
	'tgroup_limit_bytes_per_second{group="db",tier="nvm",direction="write"} 1000000000' \
	'tgroup_limit_bytes_per_second{group="web",tier="dram",direction="read"} +Inf' \
	'tgroup_high_priority{group="db"} 1' 'tgroup_high_priority{group="web"} 0' \
	'tgroup_interference_latency_seconds{tier="nvm",direction="read"} 0.000001500' \
	'tgroup_interference_latency_seconds{tier="nvm",direction="write"} 0.000002000' \
	'tgroup_interference_detected{tier="dram"} 1' 'tgroup_interference_detected{tier="nvm"} 1'; do
	echo "$out" | grep -qxF "$want" || bad="$bad [$want]"
done
if [ $rc = 0 ] && [ -z "$bad" ]; then ok values; else ko values "rc $rc, missing:$bad"; fi
# no precomputed rates, bounded labels only
labels=$(echo "$out" | grep -v '^#' | grep -o '[a-z_]*="' | sort -u | tr -d '="' | tr '\n' ' ')
if [ "$labels" = "direction group tier " ] && ! echo "$out" | grep -v '^#' | grep -q 'bandwidth\|rate'; then ok labels_bounded
else ko labels_bounded "labels: $labels"; fi
# every counter ends in _total, every name starts with tgroup_
if echo "$out" | awk '$1 == "#" && $2 == "TYPE" && (($4 == "counter") != ($3 ~ /_total$/) || $3 !~ /^tgroup_/) { bad = 1 }
	END { exit bad }'; then ok naming; else ko naming; fi
if lint=$(echo "$out" | promtool check metrics 2>&1); then ok promtool_lint; else ko promtool_lint "$lint"; fi

# tgroup_up 0 on no mount, exit 1
out=$("$ex" -m "$d/none" --once); rc=$?
if [ $rc = 1 ] && [ "$(echo "$out" | grep -v '^#')" = "tgroup_up 0" ]; then ok up_zero_without_mount
else ko up_zero_without_mount "rc $rc: $out"; fi

# textfile mode
if "$ex" -m "$m" --textfile "$d/tgroup.prom" && grep -qx 'tgroup_up 1' "$d/tgroup.prom" &&
	! ls "$d"/*.tmp >/dev/null 2>&1 && ! "$ex" -m "$m" --textfile "$d/x.txt" 2>/dev/null; then ok textfile
else ko textfile; fi

# HTTP: /metrics (content type, values follow the files between scrapes), 404
port=$((20000 + $$ % 20000))
"$ex" -m "$m" --listen 127.0.0.1:$port 2>/dev/null & pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
h=$(curl -s -D - -o "$d/s1" "http://127.0.0.1:$port/metrics")
stat 1 2 3 4 501 0 0 100 max > "$m/tgroup.stat"
curl -s -o "$d/s2" "http://127.0.0.1:$port/metrics"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nope")
if echo "$h" | grep -qi '^Content-Type: text/plain; version=0.0.4' && grep -qx 'tgroup_periods_total{group="/"} 500' "$d/s1" &&
	grep -qx 'tgroup_periods_total{group="/"} 501' "$d/s2" && [ "$code" = 404 ]; then ok http_scrape
else ko http_scrape "headers: $(echo "$h" | head -3 | tr '\r\n' '  '), 404? $code"; fi
kill $pid; wait $pid 2>/dev/null; pid=
