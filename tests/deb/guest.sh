#!/bin/bash
# Runs inside the Debian 12 root that tests/deb/install.sh installed the
# packages into and booted under QEMU with systemd (tgroup-deb-test.service,
# after multi-user.target): what an operator does and sees on day one.
# Prints "TGDEB: PASS|FAIL name" on the console, then powers the guest off.
# The configuration install.sh wrote before the boot, as an operator would:
#   /etc/modprobe.d/tgroup.conf   options tgroup max_groups=77
#   /etc/tgroup/tgroup.conf       [group db] priority=high, [group batch] nvm_wbps=500M
#   tgroup.service.d/setup.conf   TGROUP_SETUP_ARGS=--profile cascadelake (the TCG CPU has no PMU),
#                                 SuccessExitStatus=3 (no iMC PMU: uncore stays off)
# stdout and stderr: the console (tgroup-deb-test.service's StandardOutput)
export SYSTEMD_PAGER= SYSTEMD_COLORS=0
k=$(uname -r)
m=/sys/fs/tgroup
pass() { echo "TGDEB: PASS $1 ($k)"; }
fail() { echo "TGDEB: FAIL $1 ($k)${2:+: $2}"; }
check() {	# name command...
	local n=$1; shift
	if "$@"; then pass "$n"; else fail "$n"; fi
}
journal() { journalctl -q -o cat -u tgroup --since "@$1" 2>/dev/null; }
echo "TGDEB: BEGIN $k"

# 0. (install.sh's first boot) the running kernel has no headers: only the
#    other kernel's were installed, README's command for it. tgroup.service
#    fails at boot naming the running kernel, the kernels with headers and
#    the fix; nothing is left loaded; the package's postinst check says the same.
#    install.sh then runs README's command for this kernel and boots again.
if [ ! -e /lib/modules/$k/build ]; then
	other=$(cd /lib/modules && for d in */build; do [ -e "$d" ] && echo "${d%/build}"; done | tr '\n' ' ' | sed 's/ $//')
	want="no tgroup.ko for the running kernel $k: its headers are not installed (headers installed for: $other; DKMS built tgroup.ko for: $other): apt install linux-headers-$k"
	if systemctl is-failed -q tgroup && journalctl -b -q -o cat -u tgroup | grep -qF "$want"; then
		pass "noheaders_unit_fails_naming_both (running $k, headers $other)"
	else fail noheaders_unit_fails_naming_both "$(systemctl is-active tgroup): $(journalctl -b -q -o cat -u tgroup | tail -4)"; fi
	check noheaders_nothing_loaded sh -c "[ ! -d /sys/module/tgroup ] && ! mountpoint -q $m"
	# the installed postinst's check, cut from it (its DKMS part, run again,
	# would remove the 6.12 build and redo it under TCG for minutes)
	out=$(sed -n '/running-kernel-headers: begin/,/running-kernel-headers: end/p' /var/lib/dpkg/info/tgroup-dkms.postinst |
		sh -s configure 2>&1)
	if echo "$out" | grep -qF "tgroup-dkms: warning: no headers for the running kernel $k (headers installed for: $other): tgroup.ko is not built for it" &&
		echo "$out" | grep -qF "fix: apt install linux-headers-$k"; then pass noheaders_postinst_names_both
	else fail noheaders_postinst_names_both "$(echo "$out" | tail -4)"; fi
	echo "TGDEB: END $k"
	systemctl poweroff --no-block
	exit 0
fi

# 1. tgroup.service started at boot (the package enabled it), with the module
#    DKMS built for this kernel and the options from /etc/modprobe.d.
if systemctl is-active -q tgroup; then pass boot_service_active
else fail boot_service_active "$(systemctl status tgroup --no-pager -l 2>&1 | tail -15)"; fi
ko=$(modinfo -n tgroup 2>/dev/null)
check module_from_dkms_for_running_kernel \
	test "${ko%.ko*}" = "/lib/modules/$k/updates/dkms/tgroup" -a "$(modinfo -F vermagic tgroup | cut -d' ' -f1)" = "$k"
check module_signed_by_dkms test "$(modinfo -F signer tgroup)" = "DKMS module signing key"
check dkms_status_installed sh -c "dkms status tgroup -k '$k' | grep -q ': installed'"
check modprobe_d_options test "$(cat /sys/module/tgroup/parameters/max_groups 2>/dev/null)" = 77
check mounted mountpoint -q $m
# the groups of /etc/tgroup/tgroup.conf, read from the ABI files
check apply_groups_at_boot test "$(cat $m/db/tgroup.priority 2>/dev/null)" = high -a \
	"$(cat $m/batch/tgroup.priority 2>/dev/null)" = low -a \
	"$(tr ' ' '\n' < $m/batch/tgroup.limit 2>/dev/null | grep nvm_wbps)" = nvm_wbps=500000000

exporter_pid() { systemctl show -p MainPID --value tgroup-exporter; }
scrape() {	# the exporter's /metrics, retried while it starts
	local out
	for _ in $(seq 1 20); do
		out=$(exec 3<>/dev/tcp/127.0.0.1/9847 && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && cat <&3) && { echo "$out"; return; }
		sleep 0.5
	done
}

# 2. restart keeps the mount, the groups and their tasks, and re-applies
#    (a priority changed by hand goes back to the file's); the exporter, started
#    (the package enabled it too), restarts with it (PartOf=tgroup.service).
systemctl start tgroup-exporter
scrape >/dev/null
epid=$(exporter_pid)
sleep 1000 & pid=$!
echo $pid > $m/db/cgroup.procs
echo low > $m/db/tgroup.priority
t0=$(date +%s); sleep 1
if systemctl restart tgroup; then
	if grep -qx $pid $m/db/cgroup.procs 2>/dev/null && [ "$(cat $m/db/tgroup.priority)" = high ]; then
		pass restart_keeps_groups_and_reapplies
	else fail restart_keeps_groups_and_reapplies "procs: $(cat $m/db/cgroup.procs 2>&1 | tr '\n' ' ') priority $(cat $m/db/tgroup.priority 2>&1)"; fi
	if journal "$t0" | grep -q 'restart: /sys/fs/tgroup and every group stay'; then pass restart_says_kept
	else fail restart_says_kept "$(journal "$t0" | tail -3)"; fi
	npid=$(exporter_pid)
	if systemctl is-active -q tgroup-exporter && [ "$npid" != 0 ] && [ "$npid" != "$epid" ] &&
		scrape | grep -q 'group="db"'; then pass "restart_restarts_exporter_partof (pid $epid -> $npid)"
	else fail restart_restarts_exporter_partof "active: $(systemctl is-active tgroup-exporter), pid $epid -> $npid"; fi
else
	fail restart_keeps_groups_and_reapplies "$(journal "$t0" | tail -5)"
fi

# 3. reload: tgctl apply of the edited file (a new group), nothing else.
cp /etc/tgroup/tgroup.conf /root/tgroup.conf.orig
printf '\n[group web]\nprobe_new = 1\n' >> /etc/tgroup/tgroup.conf
t0=$(date +%s); sleep 1
# an invalid file fails the reload loudly (file:line), and changes nothing
if ! systemctl reload tgroup 2>/dev/null && [ ! -d $m/web ] &&
	journal "$t0" | grep -q 'tgroup.conf:[0-9]*: \[group web\]'; then pass reload_refuses_bad_file
else fail reload_refuses_bad_file "$(journal "$t0" | tail -3)"; fi
cp /root/tgroup.conf.orig /etc/tgroup/tgroup.conf
printf '\n[group web]\nnvm_rbps = 1G\n' >> /etc/tgroup/tgroup.conf
check reload_applies systemctl reload tgroup
# the limit reached the module: web/tgroup.limit has nvm_rbps = 1G (10^9 B/s)
check reload_applied_limit test "$(tr ' ' '\n' < $m/web/tgroup.limit 2>/dev/null | grep nvm_rbps)" = nvm_rbps=1000000000
check reload_created_group test -d $m/web -a "$(grep -qx $pid $m/db/cgroup.procs && echo kept)" = kept

# 4. an option changed in /etc/modprobe.d is not in effect until the module
#    is loaded again: restart says so (and keeps everything).
sed -i 's/max_groups=77/max_groups=78/' /etc/modprobe.d/tgroup.conf
t0=$(date +%s); sleep 1
systemctl restart tgroup
check restart_warns_option_not_in_effect sh -c "journalctl -q -o cat -u tgroup --since @$t0 |
	grep -q 'module option max_groups=78 (/etc/modprobe.d) is not in effect: the loaded tgroup.ko has max_groups=77'"

# 5. the exporter serves the groups (default address :9847), and each source
#    and actuator as tgroup.config says: up 1 for "active" (actuators also
#    "published"), 0 for anything else.
if systemctl start tgroup-exporter; then
	out=$(scrape)
	if echo "$out" | grep -q 'group="db"' && echo "$out" | grep -q 'group="web"'; then pass exporter_serves_groups
	else fail exporter_serves_groups "$(echo "$out" | head -5)"; fi
	bad= n=0 up=0
	while IFS='=' read -r key state; do
		case $key in
		source_*) name=${key#source_} metric="tgroup_source_up{source=\"$name\"}" ;;
		actuator_*) name=${key#actuator_} metric="tgroup_actuator_up{actuator=\"$name\"}" ;;
		*) continue ;;
		esac
		case $key:$state in source_*:active*|actuator_*:active*|actuator_*:published*) v=1 ;; *) v=0 ;; esac
		n=$((n + 1)) up=$((up + v))
		echo "$out" | grep -qxF "$metric $v" || bad="$bad $metric(want $v: $state)"
	done < $m/tgroup.config
	if [ -z "$bad" ] && [ "$n" -ge 4 ] && [ "$(echo "$out" | grep -cE '^tgroup_(source|actuator)_up\{')" = "$n" ]; then
		pass "exporter_source_actuator_up_as_module ($n, $up up)"
	else fail exporter_source_actuator_up_as_module "$n states:$bad"; fi
else
	fail exporter_serves_groups "$(systemctl status tgroup-exporter --no-pager 2>&1 | tail -5)"
fi

# 6. stop tears down and says so; the task lives on in the root group;
#    the exporter (PartOf=tgroup.service) stops with it.
t0=$(date +%s); sleep 1
systemctl stop tgroup
if ! mountpoint -q $m && [ ! -d /sys/module/tgroup ] && kill -0 $pid; then pass stop_tears_down
else fail stop_tears_down "mounted: $(mountpoint $m 2>&1), module: $(ls -d /sys/module/tgroup 2>&1)"; fi
check stop_says_dissolved sh -c "journalctl -q -o cat -u tgroup --since @$t0 | grep -q 'stop: unmounting /sys/fs/tgroup dissolves 3 group(s)'"
check exporter_stopped_with_it sh -c "! systemctl is-active -q tgroup-exporter"

# 7. start loads the module with the new option, the file's groups again.
if systemctl start tgroup && [ "$(cat /sys/module/tgroup/parameters/max_groups)" = 78 ] &&
	[ "$(cat $m/db/tgroup.priority)" = high ] && [ -d $m/web ]; then pass start_again_new_options
else fail start_again_new_options "$(systemctl status tgroup --no-pager -l 2>&1 | tail -8)"; fi
# the exporter starts with it (enabled, it is in tgroup.service.wants/:
# WantedBy=tgroup.service; PartOf alone covers stop and restart only)
active_within() {	# unit seconds: active within that many seconds
	local i
	for i in $(seq "$2"); do systemctl is-active -q "$1" && return 0; sleep 1; done
	systemctl is-active -q "$1"
}
if active_within tgroup-exporter 30; then pass start_starts_exporter
else fail start_starts_exporter "exporter $(systemctl is-active tgroup-exporter), wants: $(ls /etc/systemd/system/tgroup.service.wants 2>&1)"; fi
# The exporter's enablement (below) and step 8 are systemd and user space
# only, the same on every kernel: they run on the first kernel's full boot
# (install.sh writes it to /root/tgroup-deb-full-kernel); the other boots
# run the steps where the kernel and its module take part.
if [ "$(cat /root/tgroup-deb-full-kernel 2>/dev/null)" = "$k" ]; then
	# disabled, the exporter stays off when tgroup starts; enabled again, it starts
	systemctl stop tgroup
	systemctl disable -q tgroup-exporter
	if systemctl start tgroup && sleep 3 && ! systemctl is-active -q tgroup-exporter &&
		[ ! -e /etc/systemd/system/tgroup.service.wants/tgroup-exporter.service ]; then pass disabled_exporter_stays_off
	else fail disabled_exporter_stays_off "exporter $(systemctl is-active tgroup-exporter)"; fi
	systemctl stop tgroup
	systemctl enable -q tgroup-exporter
	if systemctl start tgroup && active_within tgroup-exporter 30 && [ "$(cat $m/db/tgroup.priority)" = high ]; then pass reenabled_exporter_starts
	else fail reenabled_exporter_starts "exporter $(systemctl is-active tgroup-exporter), tgroup $(systemctl is-active tgroup)"; fi

	# 8. a setup that fails fails the unit, loudly (no ExecStart=-), and a start
	#    that failed leaves nothing half up: it loaded the module, so ExecStopPost
	#    unmounts and unloads it and says so. A restart that fails keeps the
	#    module, every group and its tasks as they were, and says so.
	torn_down() {	# since: unit failed, nothing loaded or mounted, the journal says it was undone
		systemctl is-failed -q tgroup && [ ! -d /sys/module/tgroup ] && ! mountpoint -q $m &&
			journal "$1" | grep -q 'start failed (exit-code): undoing it, nothing is left half up' &&
			journal "$1" | grep -q 'start failed: tgroup.ko unloaded'
	}
	mkdir -p /run/systemd/system/tgroup.service.d
	printf '[Service]\nEnvironment="TGROUP_SETUP_ARGS=--profile no-such-cpu"\n' > /run/systemd/system/tgroup.service.d/zz-bad.conf
	systemctl daemon-reload
	systemctl stop tgroup
	t0=$(date +%s); sleep 1
	if ! systemctl start tgroup 2>/dev/null && systemctl is-failed -q tgroup &&
		journal "$t0" | grep -q 'no profile "no-such-cpu"'; then pass failing_setup_fails_unit
	else fail failing_setup_fails_unit "$(systemctl is-active tgroup) $(journal "$t0" | tail -3)"; fi
	if torn_down "$t0"; then pass failing_setup_leaves_nothing_up
	else fail failing_setup_leaves_nothing_up "module: $(ls -d /sys/module/tgroup 2>&1), $(mountpoint $m 2>&1), $(journal "$t0" | tail -3)"; fi
	# a source left off (no iMC PMU here) fails the unit unless accepted (SuccessExitStatus=3)
	printf '[Service]\nSuccessExitStatus=\n' > /run/systemd/system/tgroup.service.d/zz-bad.conf
	systemctl daemon-reload
	systemctl reset-failed tgroup
	t0=$(date +%s); sleep 1
	if ! systemctl start tgroup 2>/dev/null && systemctl is-failed -q tgroup &&
		journal "$t0" | grep -q '# off: uncore: ' && journal "$t0" | grep -q 'partly configured'; then pass partial_setup_fails_unit
	else fail partial_setup_fails_unit "$(systemctl is-active tgroup) $(journal "$t0" | tail -3)"; fi
	if torn_down "$t0"; then pass partial_setup_leaves_nothing_up
	else fail partial_setup_leaves_nothing_up "module: $(ls -d /sys/module/tgroup 2>&1), $(mountpoint $m 2>&1), $(journal "$t0" | tail -3)"; fi
	# a restart that fails (setup fails) keeps the groups and their tasks
	rm -f /run/systemd/system/tgroup.service.d/zz-bad.conf
	systemctl daemon-reload
	systemctl reset-failed tgroup
	systemctl start tgroup && echo $pid > $m/db/cgroup.procs
	printf '[Service]\nEnvironment="TGROUP_SETUP_ARGS=--profile no-such-cpu"\n' > /run/systemd/system/tgroup.service.d/zz-bad.conf
	systemctl daemon-reload
	t0=$(date +%s); sleep 1
	if ! systemctl restart tgroup 2>/dev/null && systemctl is-failed -q tgroup && [ -d /sys/module/tgroup ] &&
		mountpoint -q $m && grep -qx $pid $m/db/cgroup.procs 2>/dev/null &&
		journal "$t0" | grep -q 'with tgroup.ko already loaded (a restart, or loaded by hand): kept as it was, /sys/fs/tgroup mounted with 3 group(s) and their tasks'; then
		pass failed_restart_keeps_groups
	else fail failed_restart_keeps_groups "$(systemctl is-active tgroup), module: $(ls -d /sys/module/tgroup 2>&1), $(journal "$t0" | tail -3)"; fi
	# fixed: start keeps them (the module is loaded), stop tears down
	rm -f /run/systemd/system/tgroup.service.d/zz-bad.conf
	systemctl daemon-reload
	systemctl reset-failed tgroup
	if systemctl start tgroup && grep -qx $pid $m/db/cgroup.procs; then pass start_after_failed_restart_keeps_groups
	else fail start_after_failed_restart_keeps_groups "$(systemctl is-active tgroup)"; fi
else
	echo "TGDEB: INFO exporter enablement and step 8 (failing setups) run on $(cat /root/tgroup-deb-full-kernel 2>/dev/null) only"
fi
systemctl stop tgroup 2>/dev/null
cp /root/tgroup.conf.orig /etc/tgroup/tgroup.conf
sed -i 's/max_groups=78/max_groups=77/' /etc/modprobe.d/tgroup.conf
kill $pid 2>/dev/null

# 9. (last boot) an upgrade under a running service: dpkg -i of a newer
#    tgroup-tools keeps tgroup.service, the module, the mount, the groups and
#    their tasks (--no-stop-on-upgrade), and restarts the exporter so the new
#    binary serves (--restart-after-upgrade, try-restart).
if [ "$(cat /root/tgroup-deb-upgrade-kernel 2>/dev/null)" = "$k" ]; then
	new=$(ls /root/tgroup-tools_*+upgradetest1_amd64.deb 2>/dev/null | head -1)
	systemctl start tgroup tgroup-exporter
	sleep 1000 & pid=$!
	echo $pid > $m/db/cgroup.procs
	epid=$(exporter_pid)
	scrape >/dev/null
	if [ -n "$new" ] && dpkg -i "$new" >/root/dpkg-upgrade.log 2>&1 &&
		[ "$(dpkg-query -W -f '${Version}' tgroup-tools)" = "$(dpkg-deb -f "$new" Version)" ]; then pass upgrade_dpkg_i
	else fail upgrade_dpkg_i "$new: $(tail -5 /root/dpkg-upgrade.log 2>&1)"; fi
	check upgrade_keeps_task_in_group grep -qx $pid $m/db/cgroup.procs
	check upgrade_keeps_module_and_mount sh -c "[ -d /sys/module/tgroup ] && mountpoint -q $m && [ \"\$(cat $m/db/tgroup.priority)\" = high ]"
	check upgrade_keeps_service_active systemctl is-active -q tgroup
	npid=$(exporter_pid)
	if systemctl is-active -q tgroup-exporter && [ "$npid" != 0 ] && [ "$npid" != "$epid" ] &&
		scrape | grep -q 'group="db"'; then pass "upgrade_restarts_exporter (pid $epid -> $npid)"
	else fail upgrade_restarts_exporter "active: $(systemctl is-active tgroup-exporter), pid $epid -> $npid"; fi

	# 10. apt-get remove stops both units while their binaries are there
	#     (debian/tgroup-tools.prerm): the groups are dissolved and the module
	#     unloaded, the task lives on; nothing left failed or running.
	#     Then purge: the configuration and the units' enablement are gone.
	t0=$(date +%s); sleep 1
	if DEBIAN_FRONTEND=noninteractive apt-get remove -y tgroup-tools >/root/apt-remove.log 2>&1; then pass remove_apt_get
	else fail remove_apt_get "$(tail -5 /root/apt-remove.log)"; fi
	check remove_says_groups_dissolved grep -q 'tgroup-tools: stopping tgroup.service: every group in /sys/fs/tgroup is dissolved' /root/apt-remove.log
	check remove_stops_units_cleanly sh -c "! systemctl is-active -q tgroup && ! systemctl is-active -q tgroup-exporter &&
		! systemctl is-failed -q tgroup && ! systemctl is-failed -q tgroup-exporter"
	check remove_stop_ran_teardown sh -c "journalctl -q -o cat -u tgroup --since @$t0 | grep -q 'stop: unmounting /sys/fs/tgroup dissolves 2 group(s)'"
	check remove_unloads_module_task_lives sh -c "! mountpoint -q $m && [ ! -d /sys/module/tgroup ] && kill -0 $pid"
	check remove_no_failed_unit sh -c "[ -z \"\$(systemctl list-units --failed --plain --no-legend 'tgroup*')\" ]"
	check remove_keeps_config_and_dkms sh -c "[ -f /etc/tgroup/tgroup.conf ] && dpkg-query -W -f '\${Status}' tgroup-dkms | grep -q 'install ok installed'"
	if DEBIAN_FRONTEND=noninteractive apt-get purge -y tgroup-tools >/root/apt-purge.log 2>&1 &&
		[ ! -e /etc/tgroup/tgroup.conf ] && [ ! -e /etc/systemd/system/multi-user.target.wants/tgroup.service ] &&
		[ ! -e /etc/systemd/system/multi-user.target.wants/tgroup-exporter.service ] &&
		[ ! -e /etc/systemd/system/tgroup.service.wants/tgroup-exporter.service ]; then pass purge_removes_config_and_enablement
	else fail purge_removes_config_and_enablement "$(tail -3 /root/apt-purge.log; ls /etc/tgroup /etc/systemd/system/multi-user.target.wants /etc/systemd/system/tgroup.service.wants 2>&1 | tr '\n' ' ')"; fi
	kill $pid 2>/dev/null
fi
echo "TGDEB: END $k"
systemctl poweroff --no-block
