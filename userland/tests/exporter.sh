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
printf 'period_ms=10\nsource_perf=unavailable: no encodings (tgctl setup)\nsource_rdt=standby: resctrl is mounted (it owns RDT); resumes by itself when resctrl is unmounted\nsource_pmdk=active: 0 processes, 0 thread slots, 0 reports rejected\nsource_vfs=active\nactuator_cpu=active\nactuator_mba=published: mba_percent in tgroup.stat\nmax_groups=256\nperiod_last_us=3\n' > "$m/tgroup.config"
# mount tables (TGROUP_MOUNTINFO): one with resctrl, one without
grep -v ' - resctrl ' /proc/self/mountinfo > "$d/mi-none"
{ cat "$d/mi-none"; echo '99 25 0:42 / /sys/fs/resctrl rw,relatime shared:9 - resctrl resctrl rw'; } > "$d/mi-resctrl"
export TGROUP_MOUNTINFO=$d/mi-none
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
	'tgroup_interference_detected{tier="dram"} 1' 'tgroup_interference_detected{tier="nvm"} 1' \
	'tgroup_source_up{source="perf"} 0' 'tgroup_source_up{source="rdt"} 0' 'tgroup_source_up{source="pmdk"} 1' \
	'tgroup_source_up{source="vfs"} 1' 'tgroup_actuator_up{actuator="cpu"} 1' 'tgroup_actuator_up{actuator="mba"} 1' \
	'tgroup_groups 2' 'tgroup_max_groups 256' 'tgroup_resctrl_mounted 0'; do
	grep -qxF "$want" <<<"$out" || bad="$bad [$want]"
done
if [ $rc = 0 ] && [ -z "$bad" ]; then ok values; else ko values "rc $rc, missing:$bad"; fi
# no precomputed rates, bounded labels only
labels=$(echo "$out" | grep -v '^#' | grep -o '[a-z_]*="' | sort -u | tr -d '="' | tr '\n' ' ')
if [ "$labels" = "actuator direction group source tier " ] && ! grep -q 'bandwidth\|rate' <<<"$(grep -v '^#' <<<"$out")"; then ok labels_bounded
else ko labels_bounded "labels: $labels"; fi
# every counter ends in _total, every name starts with tgroup_
if echo "$out" | awk '$1 == "#" && $2 == "TYPE" && (($4 == "counter") != ($3 ~ /_total$/) || $3 !~ /^tgroup_/) { bad = 1 }
	END { exit bad }'; then ok naming; else ko naming; fi
if lint=$(echo "$out" | promtool check metrics 2>&1); then ok promtool_lint; else ko promtool_lint "$lint"; fi

# resctrl mounted: the metric and a warning in the log (once)
out=$(TGROUP_MOUNTINFO=$d/mi-resctrl "$ex" -m "$m" --once 2>"$d/err"); rc=$?
if [ $rc = 0 ] && grep -qx 'tgroup_resctrl_mounted 1' <<<"$out" &&
	grep -q 'warning: resctrl is mounted at /sys/fs/resctrl: it owns RDT' "$d/err"; then ok resctrl_metric_and_log
else ko resctrl_metric_and_log "rc $rc: $(grep resctrl <<<"$out") / $(cat "$d/err")"; fi

# tgroup_up 0 on no mount, exit 1
out=$("$ex" -m "$d/none" --once); rc=$?
if [ $rc = 1 ] && [ "$(echo "$out" | grep -v '^#')" = "tgroup_up 0" ]; then ok up_zero_without_mount
else ko up_zero_without_mount "rc $rc: $out"; fi

# textfile mode
if "$ex" -m "$m" --textfile "$d/tgroup.prom" && grep -qx 'tgroup_up 1' "$d/tgroup.prom" &&
	! ls "$d"/tgroup.prom.* >/dev/null 2>&1 && ! "$ex" -m "$m" --textfile "$d/x.txt" 2>/dev/null; then ok textfile
else ko textfile; fi
# --textfile never follows a symlink (a textfile directory another user can
# write, the exporter run by root from a timer): a symlink planted at the old
# predictable temp name (PATH.PID.tmp; the PID is the subshell's, kept by
# exec) and one at PATH itself: neither target is written, PATH becomes a
# regular file of mode 0644 with the exposition, no temp file is left
echo victim > "$d/victim"; echo victim > "$d/victim2"
ln -s "$d/victim2" "$d/tf.prom"
( ln -s "$d/victim" "$d/tf.prom.$BASHPID.tmp"; exec "$ex" -m "$m" --textfile "$d/tf.prom" ); rc=$?
if [ $rc = 0 ] && [ "$(cat "$d/victim")" = victim ] && [ "$(cat "$d/victim2")" = victim ] &&
	[ -f "$d/tf.prom" ] && [ ! -L "$d/tf.prom" ] && grep -qx 'tgroup_up 1' "$d/tf.prom" &&
	[ "$(command stat -c %a "$d/tf.prom")" = 644 ] &&
	[ -z "$(ls -A "$d" | grep '^tf\.prom\.' | grep -v '\.tmp$')" ]; then ok textfile_no_symlink_follow
else ko textfile_no_symlink_follow "rc $rc, victim: $(head -c 40 "$d/victim"), victim2: $(head -c 40 "$d/victim2"), $(ls -l "$d" | grep tf.prom)"; fi
rm -f "$d"/tf.prom*

# HTTP: /metrics (content type, values follow the files between scrapes), 404;
# the default address ":PORT" is dual stack (IPv4 and IPv6 loopback answer)
port=$((20000 + $$ % 20000))
"$ex" -m "$m" --web.listen-address=:$port 2>/dev/null & pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
h=$(curl -s -D - -o "$d/s1" "http://127.0.0.1:$port/metrics")
stat 1 2 3 4 501 0 0 100 max > "$m/tgroup.stat"
curl -s -o "$d/s2" "http://[::1]:$port/metrics"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nope")
if grep -qi '^Content-Type: text/plain; version=0.0.4' <<<"$h" && grep -qx 'tgroup_periods_total{group="/"} 500' "$d/s1" &&
	grep -qx 'tgroup_periods_total{group="/"} 501' "$d/s2" && [ "$code" = 404 ]; then ok http_scrape_dual_stack
else ko http_scrape_dual_stack "headers: $(echo "$h" | head -3 | tr '\r\n' '  '), 404? $code"; fi
kill $pid; wait $pid 2>/dev/null; pid=
stat 1 2 3 4 500 0 0 100 max > "$m/tgroup.stat"

# one address only (IPv4 loopback: IPv6 refused), another telemetry path;
# the default in the help is the documented one
"$ex" -m "$m" --web.listen-address=127.0.0.1:$port --web.telemetry-path=/tg 2>/dev/null & pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
c4=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/tg")
c4m=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")
c6=$(curl -s -o /dev/null -w '%{http_code}' "http://[::1]:$port/tg")
kill $pid; wait $pid 2>/dev/null; pid=
"$ex" --web.listen-address=nonsense 2>/dev/null; rcb=$?
if [ "$c4" = 200 ] && [ "$c4m" = 404 ] && [ "$c6" = 000 ] && [ $rcb = 2 ] &&
	grep -q 'default :9847: every address' <<<"$("$ex" --help)"; then ok listen_address_and_path
else ko listen_address_and_path "v4 $c4, /metrics $c4m, v6 $c6, bad address rc $rcb"; fi

# tgctl status on the same fake mount (tgctl sits next to the exporter): the
# sources' states, groups against max_groups, and resctrl said loudly
tg=$(dirname "$ex")/tgctl
for g in "" db/ web/; do
	echo 'dram_rbps=0 dram_wbps=0 nvm_rbps=0 nvm_wbps=0' > "$m/${g}tgroup.bandwidth"; : > "$m/${g}cgroup.procs"
done
tab=$(TGROUP_MOUNTINFO=$d/mi-resctrl "$tg" -m "$m" status 2>"$d/err"); rc=$?
j=$(TGROUP_MOUNTINFO=$d/mi-none "$tg" -m "$m" status --json 2>"$d/err2"); rc2=$?
if [ $rc = 0 ] && [ $rc2 = 0 ] && grep -qx '# resctrl: mounted at /sys/fs/resctrl (it owns RDT: tgroup.s MBA and MBM on standby)' <<<"$tab" &&
	grep -qx '# source rdt: standby: resctrl is mounted (it owns RDT); resumes by itself when resctrl is unmounted' <<<"$tab" &&
	grep -qx '# groups 2 of max_groups 256' <<<"$tab" &&
	grep -q '^tgctl: warning: resctrl is mounted at /sys/fs/resctrl: it owns RDT' "$d/err" &&
	grep -q '"resctrl":{"mounted":false,"mount_point":null},"nr_groups":2,"max_groups":256,' <<<"$j" &&
	grep -q '"actuators":{"cpu":"active","mba":"published: mba_percent in tgroup.stat"}' <<<"$j" &&
	grep -q '^tgctl: warning: source_rdt: standby: resctrl' "$d/err2"; then ok tgctl_status_resctrl_and_states
else ko tgctl_status_resctrl_and_states "rc $rc/$rc2: $(echo "$tab" | grep '^#' | tr '\n' '|') $(cat "$d/err" "$d/err2")"; fi

# Connections (docs/tgctl.md, "Connections"). One client holding 1,100 idle
# half-requests from 127.0.0.2, and 8 from the scraper's own 127.0.0.1: the
# first address keeps the per-address limit (32), the second all of its 8
# (under the limit), and a scrape from 127.0.0.1 answers within 5 s (a
# scrape takes milliseconds; margin for a busy 2-core host, Prometheus'
# scrape timeout is 10 s); every held connection is closed by the default
# idle timeout (10 s): not before 9 s, by 25 s.
#
# Once in make check (26 Nov, not reproduced in 5 runs by hand) every one of
# the 1,100 from 127.0.0.2 counted as refused while 127.0.0.1's 8 were held:
# the helper now reports connect errors (not refusals by the server) on its
# output, and a round where 127.0.0.2 held nothing is run once more, with
# the first round's report printed, so a real regression still fails.
hold=$(dirname "$(realpath "$0")")/exporter-hold.py
conn_round() {
	rm -f "$d/rA" "$d/rB"
	"$ex" -m "$m" --web.listen-address=:$port 2>"$d/exlog" & pid=$!
	for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
	python3 "$hold" $port 127.0.0.2 1100 "$d/rA" 40 > "$d/hA" 2>&1 & hA=$!
	python3 "$hold" $port 127.0.0.1 8 "$d/rB" 40 > "$d/hB" 2>&1 & hB=$!
	for _ in $(seq 600); do [ -e "$d/rA" ] && [ -e "$d/rB" ] && break; sleep 0.1; done
	scr=$(curl -s --max-time 5 -o "$d/s3" -w '%{http_code} %{time_total}' "http://127.0.0.1:$port/metrics")
	wait $hA $hB
	read -r _ heldA _ refA _ closedA _ firstA _ lastA < "$d/hA"
	read -r _ heldB _ refB _ closedB _ firstB _ lastB < "$d/hB"
	kill $pid; wait $pid 2>/dev/null; pid=
}
conn_round
if [ "$heldA" = 0 ]; then
	echo "NOTE exporter: 127.0.0.2 held nothing ($(tr '\n' ' ' < "$d/hA")); exporter: $(tail -n 3 "$d/exlog" | tr '\n' ' '); once more"
	conn_round
fi
if [ "${scr%% *}" = 200 ] && grep -qx 'tgroup_up 1' "$d/s3"; then ok scrape_beside_idle_connections
else ko scrape_beside_idle_connections "scrape: ${scr:-none}; 127.0.0.2: $(cat "$d/rA" "$d/hA"); 127.0.0.1: $(cat "$d/rB" "$d/hB")"; fi
if [ "$heldA" = 32 ] && [ "$refA" = 1068 ] && [ "$heldB" = 8 ] && [ "$refB" = 0 ]; then ok per_address_limit
else ko per_address_limit "127.0.0.2: $(cat "$d/hA"); 127.0.0.1: $(cat "$d/hB")"; fi
if [ "$closedA" = 32 ] && [ "$closedB" = 8 ] &&
	awk -v a="$firstA" -v b="$lastA" -v c="$firstB" -v e="$lastB" 'BEGIN { exit !(a >= 9 && c >= 9 && b <= 25 && e <= 25) }'; then
	ok idle_closed_after_default_timeout
else ko idle_closed_after_default_timeout "127.0.0.2: $(cat "$d/hA"); 127.0.0.1: $(cat "$d/hB")"; fi

# the flags. A 2 s timeout and 4 per address: 127.0.0.2 keeps 4 of 5, each
# closed after 2 s (not before 1.5 s, by 10 s). 6 in all (timeout 10 s):
# with 127.0.0.2 holding 4 and 127.0.0.3 two more (its other two wait in
# the listen queue), a scrape waits too (none within 3 s), and is answered
# once the 6 are shut. Bad values are refused (exit 2).
"$ex" -m "$m" --web.listen-address=127.0.0.1:$port --web.connection-timeout=2 \
	--web.max-connections-per-ip=4 2>/dev/null & pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
rm -f "$d/rA"
python3 "$hold" $port 127.0.0.2 5 "$d/rA" 20 > "$d/hA" 2>&1
read -r _ heldA _ refA _ closedA _ firstA _ lastA < "$d/hA"
kill $pid; wait $pid 2>/dev/null; pid=
if [ "$heldA" = 4 ] && [ "$refA" = 1 ] && [ "$closedA" = 4 ] &&
	awk -v a="$firstA" -v b="$lastA" 'BEGIN { exit !(a >= 1.5 && b <= 10) }'; then ok connection_timeout_flag
else ko connection_timeout_flag "127.0.0.2: $(cat "$d/hA")"; fi
"$ex" -m "$m" --web.listen-address=127.0.0.1:$port --web.max-connections=6 --web.max-connections-per-ip=4 \
	2>/dev/null & pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
rm -f "$d/rA" "$d/rB"
python3 "$hold" $port 127.0.0.2 4 "$d/rA" 20 > "$d/hA" 2>&1 & hA=$!
python3 "$hold" $port 127.0.0.3 4 "$d/rB" 20 > "$d/hB" 2>&1 & hB=$!
for _ in $(seq 100); do [ -e "$d/rA" ] && [ -e "$d/rB" ] && break; sleep 0.1; done
scr=$(curl -s --max-time 3 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")
kill $hA $hB; wait $hA $hB 2>/dev/null
read -r _ heldA _ refA < "$d/rA"
read -r _ heldB _ refB < "$d/rB"
kill $pid; wait $pid 2>/dev/null; pid=
"$ex" -m "$m" --web.listen-address=127.0.0.1:$port --web.max-connections=6 --web.max-connections-per-ip=4 \
	2>/dev/null & pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
scr2=$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics")
kill $pid; wait $pid 2>/dev/null; pid=
bad=
for v in 0 3601 1x "" -1 " 5"; do "$ex" -m "$m" --web.connection-timeout="$v" 2>/dev/null; [ $? = 2 ] || bad="$bad timeout=[$v]"; done
"$ex" -m "$m" --web.max-connections=4 --web.max-connections-per-ip=5 2>/dev/null; [ $? = 2 ] || bad="$bad per-ip>max"
"$ex" -m "$m" --web.max-connections=4097 2>/dev/null; [ $? = 2 ] || bad="$bad max=4097"
"$ex" -m "$m" --web.max-connections-per-ip=0 2>/dev/null; [ $? = 2 ] || bad="$bad per-ip=0"
if [ "$heldA" = 4 ] && [ "$heldB" = 4 ] && [ "$scr" = 000 ] && [ "$scr2" = 200 ] && [ -z "$bad" ] &&
	grep -q 'connection-timeout=S   close a connection idle for S seconds (default 10' <<<"$("$ex" --help)"; then
	ok connection_limit_flags
else ko connection_limit_flags "127.0.0.2: $(cat "$d/rA"); 127.0.0.3: $(cat "$d/rB"); scrape at the limit ${scr:-none}, after ${scr2:-none}; accepted:$bad"; fi
