# shellcheck shell=sh
# The k8s e2e suite's helpers (sourced by tests/guest/k8s, busybox sh in
# the QEMU guest): containerd and tgroup-nri as processes, pods created over
# CRI (crictl) the way kubelet creates them, and what the assertions read.
#
# Kubelet's shape (its cgroupfs driver, host network, no CNI): a pod is
# RunPodSandbox with metadata {name, uid, namespace, attempt}, the labels
# io.kubernetes.pod.{name,namespace,uid}, kubelet's config.source/seen
# annotations plus the pod's own, and a cgroup parent named after its QoS
# class, which kubelet creates before the call: /kubepods/pod<uid>
# (Guaranteed), /kubepods/burstable/pod<uid>, /kubepods/besteffort/pod<uid>,
# and no hostname (kubelet sets none for a host-network pod);
# then CreateContainer and StartContainer per container, with
# io.kubernetes.container.* labels and annotations and the QoS class's
# resources (cpu shares, and quota/memory limit for Guaranteed).

M=/sys/fs/tgroup
CG=/sys/fs/cgroup
K=/k8s
BUSYBOX=localhost/tgroup-e2e/busybox:1
PAUSE=localhost/tgroup-e2e/pause:1
PLOG=/tmp/tgroup-nri.log
POLICY=/etc/tgroup-nri/policy.yaml
METRICS=127.0.0.1:9848
W=/tmp/k8s	# pod and container configs

pass() { echo "TGTEST: PASS $1"; }
fail() { echo "TGTEST: FAIL $1: $2"; }
info() { echo "TGTEST-INFO: k8s: $*"; }
now() { cut -d' ' -f1 /proc/uptime; }

# wait_for SECONDS CMD...: run CMD every 0.2 s until it succeeds (0) or
# SECONDS of uptime pass (1): bounded in time, not in tries (a crictl call
# alone takes most of a second under TCG)
wait_for() {
	_end=$(awk -v t="$1" '{ printf "%d", $1 + t }' /proc/uptime)
	shift
	while :; do
		"$@" && return 0
		[ "$(cut -d. -f1 /proc/uptime)" -lt "$_end" ] || break
		sleep 0.2
	done
	"$@"
}

cri() { crictl --timeout 120s "$@"; }

# ---- containerd -----------------------------------------------------------

# containerd_config: version 3 (containerd 2.2 reads it; 2.4 migrates it)
containerd_config() {
	mkdir -p /etc/containerd
	cat > /etc/containerd/config.toml <<'EOF'
version = 3
root = "/var/lib/containerd"
state = "/run/containerd"

[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = "localhost/tgroup-e2e/pause:1"

[plugins."io.containerd.cri.v1.runtime"]
  # no AppArmor in the guest (securityfs is not mounted)
  disable_apparmor = true
  [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
    # kubelet's cgroupfs driver
    SystemdCgroup = false
    # the guest's root is the initramfs, which pivot_root cannot leave
    NoPivotRoot = true

  # CNI for pods with their own network namespace (critest's; the
  # suite's pods use the node's)
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = ["/k8s/cni"]
    conf_dir = "/etc/cni/net.d"

[plugins."io.containerd.nri.v1.nri"]
  disable = false
  socket_path = "/var/run/nri/nri.sock"
  # TCG on a busy 2-core host is 10-50x slower than a node: margins over
  # the defaults (5 s, 2 s)
  plugin_registration_timeout = "60s"
  plugin_request_timeout = "30s"
EOF
	# a dummy eth0 per pod, addresses from TEST-NET-1 (RFC 5737): a pod
	# network that reaches nothing
	mkdir -p /etc/cni/net.d
	cat > /etc/cni/net.d/10-e2e.conflist <<'EOF'
{"cniVersion": "1.0.0", "name": "e2e", "plugins": [
  {"type": "dummy", "ipam": {"type": "host-local", "dataDir": "/run/cni-ipam", "ranges": [[{"subnet": "192.0.2.0/24"}]]}}]}
EOF
	cat > /etc/crictl.yaml <<'EOF'
runtime-endpoint: unix:///run/containerd/containerd.sock
image-endpoint: unix:///run/containerd/containerd.sock
timeout: 120
EOF
}

CTRD_PID=
# containerd_start VERSION: start containerd VERSION (its state kept from
# an earlier start of the same version); wait until CRI answers
containerd_start() {
	PATH=$K/containerd/$1:$K/bin:/usr/bin:/bin:/sbin
	export PATH
	containerd --config /etc/containerd/config.toml >> /tmp/containerd.log 2>&1 &
	CTRD_PID=$!
	wait_for 180 cri_ready
}
cri_ready() { crictl --timeout 5s info >/dev/null 2>&1; }

# containerd_stop: SIGTERM, as systemd stops it; the shims and the
# containers go on
containerd_stop() {
	[ -n "$CTRD_PID" ] || return 0
	kill "$CTRD_PID" 2>/dev/null
	wait_for 60 gone "$CTRD_PID"
	CTRD_PID=
}
gone() { [ ! -d "/proc/$1" ] || [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ]; }

# ---- tgroup-nri -------------------------------------------------------------

NRI_PID=
# plugin_start [--nowait] [ARGS...]: start tgroup-nri (the binary the
# DaemonSet runs, with the suite's policy as the chart's ConfigMap gives
# it, metrics on loopback) in its own cgroup (/tgnri: the freezer of the Synchronize scenario), and
# wait (unless --nowait) for its Synchronize to finish (its log says so)
plugin_start() {
	_wait=1
	[ "$1" = --nowait ] && { _wait=0; shift; }
	mkdir -p $CG/tgnri
	_before=$(grep -c 'Synchronize: .* running containers placed' $PLOG 2>/dev/null)
	# shellcheck disable=SC2016
	sh -c 'echo $$ > '$CG'/tgnri/cgroup.procs && exec ./tgroup-nri "$@"' tgroup-nri \
		-mount $M -state /run/tgroup-nri/groups -config $POLICY -listen $METRICS "$@" >> $PLOG 2>&1 &
	NRI_PID=$!
	[ $_wait = 0 ] || wait_for 120 synced "${_before:-0}"
}
synced() { [ "$(grep -c 'Synchronize: .* running containers placed' $PLOG)" -gt "$1" ]; }

# plugin_kill: SIGKILL (a crash, an OOM kill, a node drain of the pod)
plugin_kill() {
	[ -n "$NRI_PID" ] || return 0
	kill -9 "$NRI_PID" 2>/dev/null
	wait "$NRI_PID" 2>/dev/null
	NRI_PID=
}

# plog_since MARK PATTERN...: the plugin's log lines after line MARK that
# match every PATTERN (grep -F)
plog_mark() { wc -l < $PLOG; }
plog_since() {
	_m=$1
	shift
	_out=$(tail -n +$((_m + 1)) $PLOG)
	for _p in "$@"; do _out=$(echo "$_out" | grep -F -- "$_p"); done
	echo "$_out"
}

# ---- pods -----------------------------------------------------------------

# json_map KEY=VALUE...: a JSON object (values without quotes or backslashes)
json_map() {
	_s=
	for _kv in "$@"; do
		_s="$_s${_s:+,}\"${_kv%%=*}\":\"${_kv#*=}\""
	done
	echo "{$_s}"
}

# pod NS NAME QOS [KEY=VALUE annotation | L:KEY=VALUE label ...]:
# RunPodSandbox as kubelet; prints the pod's id. QOS: Guaranteed,
# Burstable, BestEffort. The pod's files: $W/NAME.pod.json, $W/NAME.uid,
# $W/NAME.qos
pod() {
	_ns=$1 _name=$2 _qos=$3
	shift 3
	_ann= _lab=
	for _a in "$@"; do
		case $_a in
		L:*) _lab="$_lab
${_a#L:}" ;;
		*) _ann="$_ann
$_a" ;;
		esac
	done
	_uid=$(cat /proc/sys/kernel/random/uuid)
	case $_qos in
	Guaranteed) _parent=/kubepods/pod$_uid ;;
	Burstable) _parent=/kubepods/burstable/pod$_uid ;;
	BestEffort) _parent=/kubepods/besteffort/pod$_uid ;;
	esac
	# kubelet makes the pod's cgroup (cgroupfs driver) before the sandbox
	mkdir -p "$CG$_parent"
	mkdir -p "$W" "/var/log/pods/${_ns}_${_name}_$_uid"
	echo "$_uid" > "$W/$_name.uid"
	echo "$_qos" > "$W/$_name.qos"
	echo "$_ns" > "$W/$_name.ns"
	cat > "$W/$_name.pod.json" <<EOF
{"metadata":{"name":"$_name","uid":"$_uid","namespace":"$_ns","attempt":0},
 "log_directory":"/var/log/pods/${_ns}_${_name}_$_uid",
 "dns_config":{},
 "labels":$(IFS='
'; json_map "io.kubernetes.pod.name=$_name" "io.kubernetes.pod.namespace=$_ns" "io.kubernetes.pod.uid=$_uid" "app=$_name" $_lab),
 "annotations":$(IFS='
'; json_map "kubernetes.io/config.source=api" "kubernetes.io/config.seen=2026-01-01T00:00:00.000000000Z" $_ann),
 "linux":{"cgroup_parent":"$_parent",
   "security_context":{"namespace_options":{"network":2,"pid":1,"ipc":0}}}}
EOF
	cri runp "$W/$_name.pod.json"
}

# run_ctr POD_ID PODNAME CTRNAME [--hostpid] CMD...: CreateContainer +
# StartContainer as kubelet (image busybox); prints the container's id.
# --hostpid: the pod's pid namespace is the node's (hostPID: true)
run_ctr() {
	_pid=$1 _pn=$2 _cn=$3
	shift 3
	_pidns=1
	[ "$1" = --hostpid ] && { _pidns=2; shift; }
	_uid=$(cat "$W/$_pn.uid") _ns=$(cat "$W/$_pn.ns")
	case $(cat "$W/$_pn.qos") in
	Guaranteed) _res='"cpu_period":100000,"cpu_quota":10000,"cpu_shares":102,"memory_limit_in_bytes":67108864' ;;
	Burstable) _res='"cpu_period":100000,"cpu_shares":102' ;;
	BestEffort) _res='"cpu_period":100000,"cpu_shares":2' ;;
	esac
	_cmd=
	for _a in "$@"; do _cmd="$_cmd${_cmd:+,}\"$_a\""; done
	cat > "$W/$_pn.$_cn.json" <<EOF
{"metadata":{"name":"$_cn","attempt":0},
 "image":{"image":"$BUSYBOX","user_specified_image":"$BUSYBOX"},
 "command":[$_cmd],
 "labels":$(json_map "io.kubernetes.container.name=$_cn" "io.kubernetes.pod.name=$_pn" "io.kubernetes.pod.namespace=$_ns" "io.kubernetes.pod.uid=$_uid"),
 "annotations":$(json_map "io.kubernetes.container.hash=1" "io.kubernetes.container.restartCount=0" "io.kubernetes.container.terminationMessagePath=/dev/termination-log" "io.kubernetes.container.terminationMessagePolicy=File" "io.kubernetes.pod.terminationGracePeriod=30"),
 "log_path":"$_cn/0.log",
 "linux":{"resources":{$_res},
   "security_context":{"namespace_options":{"network":2,"pid":$_pidns,"ipc":0},"run_as_user":{"value":0}}}}
EOF
	_id=$(cri create "$_pid" "$W/$_pn.$_cn.json" "$W/$_pn.pod.json") || return 1
	cri start "$_id" >/dev/null || return 1
	echo "$_id"
}

# pod_rm POD_ID [GRACE]: StopPodSandbox (its containers stopped first, as
# kubelet does, with GRACE seconds between SIGTERM and SIGKILL, default 0:
# a sleep as pid 1 ignores SIGTERM) and RemovePodSandbox
pod_rm() {
	for _c in $(cri ps -a -q --pod "$1"); do
		cri stop --timeout "${2:-0}" "$_c" >/dev/null
		cri rm "$_c" >/dev/null
	done
	cri stopp "$1" >/dev/null && cri rmp "$1" >/dev/null
}

# cpid CTR_ID: the container's init pid (host pid namespace)
cpid() { cri inspect -o go-template --template '{{.info.pid}}' "$1"; }
# cprocs CTR_ID: every process of the container (its cgroup's cgroup.procs:
# what the runtime itself says belongs to it), one per line, sorted
cprocs() {
	sort -n "$CG$(cri inspect -o go-template --template '{{.info.runtimeSpec.linux.cgroupsPath}}' "$1")/cgroup.procs"
}
# gprocs GROUP: the tgroup group's processes, sorted ("" for the root)
gprocs() { sort -n "$M/${1:+$1/}cgroup.procs" 2>/dev/null; }
gread() { cat "$M/$1/$2" 2>/dev/null; }
gexists() { [ -d "$M/$1" ]; }

# placed CTR_ID GROUP: every process of the container is in GROUP ("":
# the root group)
placed() {
	_want=$(cprocs "$1") _have=$(gprocs "$2")
	[ -n "$_want" ] || return 1
	for _p in $_want; do
		echo "$_have" | grep -qx "$_p" || return 1
	done
}
# unplaced CTR_ID: every process of the container is in the root group
unplaced() { placed "$1" ""; }
# nprocs CTR_ID N: the container has N processes
nprocs() { [ "$(cprocs "$1" | wc -l)" = "$2" ]; }

# why_placed CTR_ID GROUP: what placed tells when it fails
why_placed() { echo "container procs [$(cprocs "$1" | tr '\n' ' ')], $2 has [$(gprocs "$2" | tr '\n' ' ')], root has [$(gprocs "" | tr '\n' ' ' | cut -c1-120)]"; }

# metric NAME{LABELS}: the value of one series on the plugin's /metrics (0
# when absent)
metric() {
	wget -q -O - "http://$METRICS/metrics" 2>/dev/null | awk -v s="$1" '$1 == s { v = $2 } END { print v + 0 }'
}
