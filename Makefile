# tgroup - top-level build.
#
#   make                 module + user space
#   make module          tgroup.ko against KDIR (W=1)
#   make check           every test: unit, lint, in-guest (VM) suites
#   make demo            the story: a noisy neighbour arrives, tgroup throttles
#                        it, the victim recovers (emulated platform, eval/)
#   make eval            every experiment into eval/results/<profile>/
#   make eval-scen       the guest's scenarios, added to eval/results/optane-clx/
#   make eval-quick      the reduced matrix with its assertions (in make check)
#   make calibrate       the model vs the published figures (docs/eval.md)
#   make deps            install the Debian packages development and the tests
#                        need (never what a server needs: make deb)
#   make deb             the Debian packages tgroup-dkms and tgroup-tools
#                        into build/deb/ (a server: apt install ./tgroup-*.deb)
#   make dbg-check       the in-guest suites on a lockdep/KASAN/kmemleak/
#                        debugobjects kernel (built once, cached; DBG_SUITES)
#   make checkpatch      scripts/checkpatch.pl --strict on the kernel sources
#   make bench           core/ benchmarks (regulator step, estimator update)
#   make fuzz            the parser fuzzer for FUZZ_SECONDS (default 15)
#   make clean
#
# "The kernel" is the running one (uname -r) unless told: KVER=<version>
# (headers in /lib/modules/KVER/build) or KDIR=<build dir>. Without its
# headers make module says so and stops; make install refuses a tgroup.ko
# built for another kernel. The QEMU guest's kernel is named apart
# (GUEST_KVER: the newest installed Debian cloud kernel with headers,
# tests/vm/kver.sh) and only the guest targets use it.

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
# The guest boots $(GUEST_KVER): the headers the test module is built with.
GUEST_KVER ?= $(shell tests/vm/kver.sh 2>/dev/null)
GUEST_KDIR := /lib/modules/$(GUEST_KVER)/build

CC ?= gcc
# Debian's python3 (python3-matplotlib), not one a version manager put first
PYTHON ?= /usr/bin/python3
DEMO_PROFILE ?= optane-clx
# make eval's time budget (60 min on 2 cores): the guest runs tgroup and the
# best single baseline setting (eval/sweep.py picks it in the host
# simulator) over the whole matrix, 5 runs each, on optane-clx; on the
# other profiles two pairs (docs/eval.md, "make eval")
EVAL_REPS ?= 5
EVAL_PAIRS_cxl-spr ?= nr.nw+dr.dr
EVAL_PAIRS_cxl-miku ?= dr.nw+nr.nw
# -Werror only where asked (make check sets WERROR=1): a release build
# (make, make install, the Debian packages) must not break on a newer
# compiler's new warning.
WERROR ?= 0
WERR := $(if $(filter 1,$(WERROR)),-Werror)
USER_CFLAGS := -O2 -g -Wall -Wextra $(WERR) -std=gnu11 -Icore
GUEST_CFLAGS := -O2 -Wall -Wextra $(WERR) -Wno-format-zero-length -static -pthread -Ipmdk-hooks

CORE_SRC := $(wildcard core/*.c)
KSRC := $(wildcard module/*.[ch] module/sources/*.[ch] module/actuators/*.[ch] cgroup-ui/*.[ch] core/*.[ch]) pmdk-hooks/tgpmem_abi.h Kbuild
GUEST_SRC := $(wildcard tests/guest/*.c)
GUEST_BIN := $(patsubst tests/guest/%.c,$(BUILD)/guest/%,$(GUEST_SRC))
GUEST_SCRIPTS := $(filter-out %.c %.h,$(wildcard tests/guest/*))

.PHONY: k8s-check tgsim all module user userland nri install install-module install-tools install-dkms deb deps deps-612 bench fuzz mutants check demo demo-run eval eval-run eval-scen eval-scen-run eval-quick calibrate checkpatch vm-check clean guest initramfs dbg-initramfs dbg-check

all: module user userland

deps:
	@scripts/deps.sh

# make deps installs Debian's 6.12 cloud kernel too (the second kernel make
# check builds for and boots); kept as a name for old habits.
deps-612: deps

module: tgroup.ko

# Kbuild decides what to rebuild (FORCE): KDIR may name another kernel.
tgroup.ko: $(KSRC) FORCE
	@[ -e $(KDIR)/Makefile ] || { echo "module: no kernel headers for $(KVER) ($(KDIR)): apt install linux-headers-$(KVER); or build for another kernel: make module KVER=<version> (or KDIR=<build dir>)"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 modules
FORCE:

# The module built for the guest kernel (same as tgroup.ko unless the host
# runs a different kernel with headers installed). Outputs are per kernel.
GK := $(BUILD)/k/$(GUEST_KVER)
$(GK)/tgroup.ko: $(KSRC)
	@mkdir -p $(dir $@)
	$(MAKE) -C $(GUEST_KDIR) M=$(TOP) W=1 modules
	cp tgroup.ko $@

user: $(BUILD)/libtgcore.a $(BUILD)/libtgpmem.so

# pmdk-hooks: LD_PRELOAD library counting libpmem writes per thread
$(BUILD)/libtgpmem.so: pmdk-hooks/tgpmem.c pmdk-hooks/tgpmem_abi.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra $(WERR) $(CPPFLAGS) $(CFLAGS) -fPIC -shared -pthread -Ipmdk-hooks $(LDFLAGS) -o $@ $< -ldl

$(BUILD)/test_tgpmem: tests/pmdk/test_tgpmem.c
	$(CC) -O1 -g -Wall -Wextra $(WERR) -pthread -o $@ $< -lpmem -lpmem2 -lpmemobj -lcmocka -ldl

# a real libpmem program for the in-guest pmdk suite (dynamic: preloadable)
$(BUILD)/pmem_writer: tests/pmdk/pmem_writer.c
	$(CC) -O2 -g -Wall -Wextra $(WERR) -pthread -o $@ $< -lpmem -lpmem2 -lpmemobj -ldl

$(BUILD)/bench_tgpmem: tests/pmdk/bench_tgpmem.c
	$(CC) -O2 -g -Wall -Wextra $(WERR) -o $@ $< -lpmem -ldl

# userland/: libtgroup (lib/), tgctl (tgctl/) and their host tests.
UL := $(BUILD)/userland
UL_CFLAGS := -O2 -g -Wall -Wextra $(WERR) -std=gnu11 -Iuserland/lib
# CPPFLAGS, CFLAGS, LDFLAGS from the environment are added (the Debian
# package's hardening flags, dpkg-buildflags)
UL_CFLAGS += $(CPPFLAGS) $(CFLAGS)
LIBTG_SRC := userland/lib/tgroup.c
LIBTG_HDR := userland/lib/tgroup.h

$(UL)/libtgroup.a: $(LIBTG_SRC) $(LIBTG_HDR)
	@mkdir -p $(UL)/obj
	$(CC) $(UL_CFLAGS) -fPIC -c -o $(UL)/obj/tgroup.o $(LIBTG_SRC)
	ar rcs $@ $(UL)/obj/tgroup.o

$(UL)/libtgroup.so: $(LIBTG_SRC) $(LIBTG_HDR)
	@mkdir -p $(UL)
	$(CC) $(UL_CFLAGS) -fPIC -shared -Wl,-soname,libtgroup.so.0 $(LDFLAGS) -o $@ $(LIBTG_SRC)

$(UL)/test_libtgroup: userland/tests/test_libtgroup.c userland/tests/fake_files.h $(UL)/libtgroup.a
	$(CC) $(UL_CFLAGS) -O1 -o $@ $< $(UL)/libtgroup.a -lcmocka

# tgctl validate's verdict and measurement (vcheck.c) and the sysfs PMU
# reader (pmu.c), against fixture counters (cmocka)
$(UL)/test_validate: userland/tests/test_validate.c userland/tests/fake_files.h userland/tgctl/vcheck.c userland/tgctl/pmu.c userland/tgctl/vcheck.h userland/tgctl/pmu.h
	$(CC) $(UL_CFLAGS) -Iuserland/tgctl -O1 -o $@ userland/tests/test_validate.c userland/tgctl/vcheck.c userland/tgctl/pmu.c -lcmocka

# tgctl apply's parser and its application on a fake mount (cmocka, fixture files)
$(UL)/test_apply: userland/tests/test_apply.c userland/tests/fake_files.h userland/tgctl/apply.c userland/tgctl/apply.h userland/tgctl/common.c userland/tgctl/tgctl.h core/parse.c $(UL)/libtgroup.a
	$(CC) $(UL_CFLAGS) -Icore -Iuserland/tgctl -O1 -o $@ userland/tests/test_apply.c userland/tgctl/apply.c userland/tgctl/common.c core/parse.c $(UL)/libtgroup.a -lcmocka

TGCTL_SRC := $(wildcard userland/tgctl/*.c)
# tgctl: JSON through json-c (libjson-c-dev); apply checks tgroup.config
# keys with the module's own parser (core/parse.c)
$(UL)/tgctl: $(TGCTL_SRC) $(wildcard userland/tgctl/*.h) $(UL)/libtgroup.a core/parse.c $(wildcard core/*.h)
	$(CC) $(UL_CFLAGS) -Icore $(LDFLAGS) -o $@ $(TGCTL_SRC) core/parse.c $(UL)/libtgroup.a -lpfm -lpqos -ljson-c

# the exporter shares tgctl's readers of tgroup.config states and resctrl (common.c)
$(UL)/tgroup-exporter: userland/exporter/exporter.c userland/tgctl/common.c userland/tgctl/tgctl.h $(UL)/libtgroup.a
	$(CC) $(UL_CFLAGS) -Iuserland/tgctl -pthread $(LDFLAGS) -o $@ $< userland/tgctl/common.c $(UL)/libtgroup.a -lmicrohttpd

userland: $(UL)/libtgroup.a $(UL)/libtgroup.so $(UL)/tgctl $(UL)/tgroup-exporter

$(BUILD)/core/%.o: core/%.c $(wildcard core/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -ffreestanding -c -o $@ $<

$(BUILD)/libtgcore.a: $(patsubst core/%.c,$(BUILD)/core/%.o,$(CORE_SRC))
	ar rcs $@ $^

$(BUILD)/guest/%: tests/guest/%.c tests/guest/harness.h tests/guest/util.h pmdk-hooks/tgpmem_abi.h
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -o $@ $<

# the libtgroup suite links the library itself (static, like every guest program)
$(BUILD)/guest/libtgroup_test: tests/guest/libtgroup_test.c tests/guest/harness.h tests/guest/util.h $(LIBTG_SRC) $(LIBTG_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -Iuserland/lib -o $@ $< $(LIBTG_SRC)

NRI_SRC := $(wildcard userland/nri/*.go userland/nri/go.mod userland/nri/go.sum)
# tgroup-nri, the Kubernetes NRI plugin (docs/kubernetes.md): static, Go from
# scripts/go.sh (make deps), modules from the cache.
nri: $(UL)/tgroup-nri
$(UL)/tgroup-nri: $(NRI_SRC) $(wildcard userland/nri/cmd/tgroup-nri/*.go)
	@mkdir -p $(dir $@)
	go=$$(scripts/go.sh) && cd userland/nri && GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=readonly CGO_ENABLED=0 \
		$$go build -ldflags='-s -w' -o $@ ./cmd/tgroup-nri

# userland/nri's go test binary for the guest suite "nri" (static). Without a
# Go toolchain (make deps) it is not built and that suite fails saying so.
NRI_TEST := $(BUILD)/guest/nri_test
$(NRI_TEST): $(NRI_SRC)
	@mkdir -p $(dir $@)
	@if go=$$(scripts/go.sh); then \
		cd userland/nri && GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=readonly CGO_ENABLED=0 GOMAXPROCS=1 \
			nice -n 10 $$go test -c -ldflags=-s\ -w -o $@ . ; \
	else echo "nri_test: no Go toolchain (make deps): the guest suite nri will fail"; fi

# tgroup-nri for the guest suite "k8s" (the plugin binary the DaemonSet
# runs); without Go it is not built and that suite fails saying so.
NRI_GUEST := $(BUILD)/guest/tgroup-nri
$(NRI_GUEST): $(NRI_SRC) $(wildcard userland/nri/cmd/tgroup-nri/*.go)
	@mkdir -p $(dir $@)
	@if go=$$(scripts/go.sh); then \
		cd userland/nri && GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-mod=readonly CGO_ENABLED=0 \
			nice -n 10 $$go build -ldflags='-s -w' -o $@ ./cmd/tgroup-nri ; \
	else echo "tgroup-nri: no Go toolchain (make deps): the guest suite k8s will fail"; fi

guest: $(GUEST_BIN)

# eval/: the emulated platform (static, for the guest) and its suite
EVAL_BIN := $(BUILD)/guest/tgeval
EVAL_FILES := eval/guest.sh $(wildcard eval/profiles/*.prof)
$(EVAL_BIN): eval/tgeval.c eval/model.c eval/model.h eval/plat.c eval/plat.h
	@mkdir -p $(dir $@)
	$(CC) $(GUEST_CFLAGS) -o $@ eval/tgeval.c eval/model.c eval/plat.c -lm

# tests/kmod: a module the lifecycle suite loads beside tgroup.ko (built per kernel, in a copy)
$(GK)/tgsquat.ko: tests/kmod/tgsquat.c tests/kmod/Kbuild
	@rm -rf $(GK)/kmod && mkdir -p $(GK)/kmod && cp tests/kmod/tgsquat.c tests/kmod/Kbuild $(GK)/kmod/
	$(MAKE) -C $(GUEST_KDIR) M=$(GK)/kmod W=1 modules
	cp $(GK)/kmod/tgsquat.ko $@

INITRAMFS := $(GK)/initramfs.cpio.gz
# host programs the suites run, with their libraries
GUEST_HOST_PROGS := /usr/sbin/mke2fs $(BUILD)/pmem_writer $(BUILD)/libtgpmem.so /usr/bin/fio $(UL)/tgctl $(UL)/tgroup-exporter
# the k8s suite's helpers, and the kernel modules it loads (its disk, overlayfs,
# dummy for critest's pod network)
K8S_FILES := tests/e2e/k8s-lib.sh
K8S_KMODS := virtio_pci virtio_blk overlay dummy
$(INITRAMFS): $(GK)/tgroup.ko $(GK)/tgsquat.ko $(GUEST_BIN) $(NRI_TEST) $(NRI_GUEST) $(GUEST_SCRIPTS) $(K8S_FILES) tests/vm/init tests/vm/mkinitramfs.sh $(BUILD)/pmem_writer $(BUILD)/libtgpmem.so $(UL)/tgctl $(UL)/tgroup-exporter $(EVAL_BIN) $(EVAL_FILES)
	@rm -rf $(GK)/suites && mkdir -p $(GK)/suites/profiles
	cp $(GUEST_BIN) $(GUEST_SCRIPTS) $(K8S_FILES) $(EVAL_BIN) $(GK)/tgsquat.ko $(GK)/suites/
	if [ -e $(NRI_TEST) ]; then cp $(NRI_TEST) $(GK)/suites/; fi
	if [ -e $(NRI_GUEST) ]; then cp $(NRI_GUEST) $(GK)/suites/; fi
	cp eval/guest.sh $(GK)/suites/eval
	cp eval/profiles/*.prof $(GK)/suites/profiles/
	TG_KMODS_EXTRA="$(K8S_KMODS)" tests/vm/mkinitramfs.sh $@ $(GUEST_KVER) $(GK)/tgroup.ko $(GK)/suites $(GUEST_HOST_PROGS)

initramfs: $(INITRAMFS)
	@echo $(INITRAMFS)

# In-guest suites; VM_SUITES picks a subset.
VM_SUITES ?= fs,lifecycle,regulate,pmdk,throttle,userland,nri
vm-check: $(INITRAMFS)
	tests/vm/run.sh $(GUEST_KVER) $< $(VM_SUITES)

# The k8s e2e suite (tests/guest/k8s) in its own guest, with the runtimes'
# disk (tests/e2e/runtimes.sh builds it once into ~/.cache/tgroup).
# K8S_ARGS picks scenarios, e.g. K8S_ARGS=:placement_and_removal+qos_defaults
# (every version runs them); K8S_OLDER those of the older containerd
# versions (default in tests/guest/k8s; "none"); K8S_CRITEST=1 adds
# critest's NRI specs on every version (passed on all: the runtime build's
# marker, tests/e2e/critest-mark.sh, and make check skips them)
K8S_VM_TIMEOUT ?= 1200
k8s-check: $(INITRAMFS)
	@dir=$$(tests/e2e/runtimes.sh) && \
	TG_VM_DISK=$$dir/disk.img TG_VM_LOG=$(BUILD)/vm/k8s-console.log TG_VM_TIMEOUT=$(K8S_VM_TIMEOUT) TG_TCG_THREAD=$${TG_TCG_THREAD:-single} \
	TG_GUEST_ARGS="$(if $(K8S_OLDER),tg.k8s_older=$(K8S_OLDER)) $(if $(filter 1,$(K8S_CRITEST)),tg.k8s_critest=1)" \
		tests/vm/run.sh $(GUEST_KVER) $< k8s$(K8S_ARGS); rc=$$?; \
	$(if $(filter 1,$(K8S_CRITEST)),tests/e2e/critest-mark.sh $(BUILD)/vm/k8s-console.log.txt "$$dir";) exit $$rc

# The debug-kernel lane (part of make check): tests/vm/debug-kernel.sh
# builds Debian's 6.1 source with lockdep, KASAN, kmemleak and debugobjects
# once into ~/.cache/tgroup; tgroup.ko is built in a copy against that tree
# (DBG_KDIR) and packed into an initramfs without kernel modules (the
# kernel has the pmem/DAX drivers built in). tests/vm/dbg-lane.sh runs it.
DBG := $(BUILD)/dbg
DBG_INITRAMFS := $(DBG)/initramfs.cpio.gz
DBG_KDIR ?=
$(DBG)/tgroup.ko: $(KSRC) $(wildcard $(DBG_KDIR)/.config)
	@[ -n "$(DBG_KDIR)" ] || { echo "DBG_KDIR: the debug kernel's build tree (\$$(tests/vm/debug-kernel.sh)/build)"; exit 1; }
	@rm -rf $(DBG)/src && mkdir -p $(DBG)/src
	@cp -r Kbuild module cgroup-ui core pmdk-hooks $(DBG)/src/
	@find $(DBG)/src \( -name '*.o' -o -name '.*.cmd' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \) -delete
	$(MAKE) -C $(DBG_KDIR) M=$(DBG)/src W=1 modules
	cp $(DBG)/src/tgroup.ko $@

$(DBG)/tgsquat.ko: tests/kmod/tgsquat.c tests/kmod/Kbuild $(wildcard $(DBG_KDIR)/.config)
	@[ -n "$(DBG_KDIR)" ] || { echo "DBG_KDIR: the debug kernel's build tree"; exit 1; }
	@rm -rf $(DBG)/kmod && mkdir -p $(DBG)/kmod && cp tests/kmod/tgsquat.c tests/kmod/Kbuild $(DBG)/kmod/
	$(MAKE) -C $(DBG_KDIR) M=$(DBG)/kmod W=1 modules
	cp $(DBG)/kmod/tgsquat.ko $@

$(DBG_INITRAMFS): $(DBG)/tgroup.ko $(DBG)/tgsquat.ko $(GUEST_BIN) $(NRI_TEST) $(GUEST_SCRIPTS) tests/vm/init tests/vm/mkinitramfs.sh $(BUILD)/pmem_writer $(BUILD)/libtgpmem.so $(UL)/tgctl $(UL)/tgroup-exporter
	@rm -rf $(DBG)/suites && mkdir -p $(DBG)/suites
	cp $(GUEST_BIN) $(GUEST_SCRIPTS) $(DBG)/tgsquat.ko $(DBG)/suites/
	if [ -e $(NRI_TEST) ]; then cp $(NRI_TEST) $(DBG)/suites/; fi
	tests/vm/mkinitramfs.sh $@ none $(DBG)/tgroup.ko $(DBG)/suites $(GUEST_HOST_PROGS)

dbg-initramfs: $(DBG_INITRAMFS)
	@echo $(DBG_INITRAMFS)

# the debug lane leaves nri out by default (as tests/check.sh step 6 does):
# the kernel paths it drives are fs's and userland's, run there already
comma := ,
DBG_SUITES ?= $(patsubst %$(comma),%,$(patsubst $(comma)%,%,$(subst $(comma)nri$(comma),$(comma),$(comma)$(VM_SUITES)$(comma))))
dbg-check:
	@TG_DBG_SUITES=$(DBG_SUITES) tests/vm/dbg-lane.sh

check: deps
	@tests/check.sh

# deps may install the kernel KVER names: the rest runs in a make that
# computes KVER afresh.
demo: deps
	@$(MAKE) -s --no-print-directory demo-run

# The story (eval/guest.sh, plan demo): a victim alone, a noisy neighbour
# arrives and leaves, live; then the same schedule without control and with
# resctrl's mba_MBps controller, a table and the timeline plot.
demo-run:
	@$(MAKE) -s --no-print-directory $(INITRAMFS) >/dev/null
	@mkdir -p $(BUILD)/vm $(BUILD)/demo
	@echo "demo: booting the guest (QEMU), loading tgroup.ko inject=1, starting the emulated platform ($(DEMO_PROFILE))"
	@TG_EVAL_LIVE=1 KVER=$(GUEST_KVER) INITRAMFS=$(INITRAMFS) eval/run.sh demo $(DEMO_PROFILE) $(BUILD)/demo && \
	$(PYTHON) eval/report.py demo $(BUILD)/demo

# eval/: the experiments (docs/eval.md). EVAL_PROFILES picks profiles. Per
# profile: the host simulator's sweeps and scenarios (eval/sweep.py), then
# the guest: optane-clx the whole matrix, the timeline and the allocation
# experiment, the others the pairs EVAL_PAIRS_<profile>; then summary.md
EVAL_PROFILES ?= optane-clx cxl-spr cxl-miku
# the law tgsim and tgeval run when not told one (the plan files name it)
EVAL_LAW = sed -n 's/^\#define TG_LAW_DEFAULT[[:space:]]*//p' core/tg_parse.h
eval: deps
	@$(MAKE) -s --no-print-directory eval-run

eval-run:
	@$(MAKE) -s --no-print-directory $(INITRAMFS) $(BUILD)/tgsim $(BUILD)/tgeval-host >/dev/null
	@t0=$$(date +%s); for p in $(EVAL_PROFILES); do \
		d=eval/results/$$p.new; rm -rf $$d; mkdir -p $$d; cp eval/profiles/$$p.prof $$d/profile.prof; \
		echo "eval: $$p: host simulator (eval/sweep.py)"; \
		$(PYTHON) eval/sweep.py $(BUILD)/tgsim eval/profiles/$$p.prof $$d --reps $(EVAL_REPS) || exit 1; \
		modes=$$(sed -n 's/^guest=//p' $$d/sim_pick.txt); knobs=$$(sed -n 's/^knobs=//p' $$d/sim_pick.txt); \
		if [ $$p = optane-clx ]; then plan=matrix,timeline,alloc pairs=; \
		else plan=matrix; case $$p in cxl-spr) pairs="tg.pairs=$(EVAL_PAIRS_cxl-spr)" ;; \
			cxl-miku) pairs="tg.pairs=$(EVAL_PAIRS_cxl-miku)" ;; *) pairs="tg.pairs=nr.nw+dr.dr" ;; esac; fi; \
		args="tg.modes=$$modes tg.knobs=$$knobs tg.reps=$(EVAL_REPS) tg.tlmodes=tgroup+oracle $$pairs"; \
		echo "eval: $$p: guest $$plan ($$args)"; \
		echo "guest plan $$plan ($$args); host simulator: every mode and setting, $(EVAL_REPS) runs per cell; tgroup's remedial law $$($(EVAL_LAW)) (core/tg_parse.h's TG_LAW_DEFAULT); make eval started $$(date -u +%F)" > $$d/plan.txt; \
		TG_GUEST_ARGS="$$args" TG_VM_TIMEOUT=3600 KVER=$(GUEST_KVER) INITRAMFS=$(INITRAMFS) eval/run.sh $$plan $$p $$d || exit 1; \
		$(PYTHON) eval/sweep.py sens $(BUILD)/tgsim eval/profiles/$$p.prof $$d --reps $(EVAL_REPS) || exit 1; \
		rm -rf eval/results/$$p && mv $$d eval/results/$$p; \
		$(PYTHON) eval/report.py summary eval/results/$$p $$p || exit 1; \
		echo "eval: $$p done, $$(( ($$(date +%s) - t0) / 60 )) min so far"; \
	done; \
	g=$$(for p in $(EVAL_PROFILES); do tr -d '\r' < build/vm/eval-$$( [ $$p = optane-clx ] && echo matrix_timeline_alloc || echo matrix)-$$p.log; done | \
		sed -n 's/^TGTEST-INFO: suite eval took \([0-9]*\) s/\1/p' | awk '{ s += $$1 } END { printf "%.0f", s / 60 }'); \
	echo "$$(( ($$(date +%s) - t0) / 60 )) min wall-clock, of which $$g min in the guest's runs; the rest the host simulator, the boots, the reports and any wait for the guest lock (EVAL_PROFILES=$(EVAL_PROFILES), EVAL_REPS=$(EVAL_REPS), $$(date -u +%F))" > eval/results/runtime.txt; \
	$(PYTHON) eval/report.py readme README.md eval/results; \
	echo "eval: $$(( ($$(date +%s) - t0) / 60 )) min"

# The four scenarios of docs/eval.md that run in the guest (eval/guest.sh
# plan scen: 4 groups + a bystander, a heavy victim beside a harmless
# neighbour, an on/off neighbour, a request-level victim) on optane-clx: no
# control, tgroup and the baseline setting make eval picked (sim_pick.txt),
# EVAL_REPS runs each, added to eval/results/optane-clx/ (run it after make
# eval, which replaces that directory); then summary.md and README's block.
# About 14 min (813 s in the guest, 26 Nov).
eval-scen: deps
	@$(MAKE) -s --no-print-directory eval-scen-run

eval-scen-run:
	@$(MAKE) -s --no-print-directory $(INITRAMFS) >/dev/null
	@d=eval/results/optane-clx o=$(BUILD)/eval-scen t0=$$(date +%s); \
	[ -s $$d/sim_pick.txt ] || { echo "eval-scen: no $$d/sim_pick.txt: run make eval first"; exit 1; }; \
	args="tg.modes=none+$$(sed -n 's/^guest=//p' $$d/sim_pick.txt) tg.knobs=$$(sed -n 's/^knobs=//p' $$d/sim_pick.txt) tg.reps=$(EVAL_REPS)"; \
	echo "eval-scen: optane-clx: guest plan scen ($$args)"; rm -rf $$o; \
	TG_GUEST_ARGS="$$args" TG_VM_TIMEOUT=3600 KVER=$(GUEST_KVER) INITRAMFS=$(INITRAMFS) eval/run.sh scen optane-clx $$o || exit 1; \
	for f in groups heavy onoff requests; do \
		[ -s $$o/$$f.csv ] || { echo "eval-scen: the guest wrote no $$f.csv"; exit 1; }; cp $$o/$$f.csv $$d/; done; \
	echo "guest plan scen ($$args); tgroup's remedial law $$($(EVAL_LAW)) (core/tg_parse.h's TG_LAW_DEFAULT); make eval-scen $$(date -u +%F), $$(( ($$(date +%s) - t0) / 60 )) min wall-clock" > $$d/plan-scen.txt; \
	$(PYTHON) eval/report.py summary $$d optane-clx && $(PYTHON) eval/report.py readme README.md eval/results && \
	cat $$d/plan-scen.txt

# The reduced matrix with eval-quick's assertions (part of make check).
eval-quick: $(INITRAMFS)
	@rm -rf $(BUILD)/eval-quick
	@KVER=$(GUEST_KVER) INITRAMFS=$(INITRAMFS) eval/run.sh quick optane-clx $(BUILD)/eval-quick && \
	$(PYTHON) eval/report.py quick $(BUILD)/eval-quick

# The model alone against the published figures: docs/eval.md's tables.
$(BUILD)/tgeval-host: eval/tgeval.c eval/model.c eval/model.h eval/plat.c eval/plat.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra $(WERR) -o $@ eval/tgeval.c eval/model.c eval/plat.c -lm

# The host simulator: the same platform and core/'s control law, no guest
tgsim: $(BUILD)/tgsim
$(BUILD)/tgsim: eval/sim.c eval/plat.c eval/model.c eval/plat.h eval/model.h $(BUILD)/libtgcore.a
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ eval/sim.c eval/plat.c eval/model.c $(BUILD)/libtgcore.a -lm

calibrate: $(BUILD)/tgeval-host
	@$(PYTHON) eval/calibrate.py $(BUILD)/tgeval-host docs/eval.md

# Install like a module from a vendor (a Debian server: make deb instead):
# install-module puts tgroup.ko into /lib/modules/$(KVER)/updates (depmod)
# and refuses one built for another kernel; install-tools puts tgctl,
# tgroup-exporter, libtgroup, libtgpmem.so, tgroup-headers under $(PREFIX), the systemd
# units, /etc/modprobe.d/tgroup.conf and /etc/tgroup/tgroup.conf (both kept
# if present). DESTDIR stages it (no depmod, ldconfig then).
VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
LIBEXECDIR ?= $(PREFIX)/libexec/tgroup
DOCDIR ?= $(PREFIX)/share/doc/tgroup
SYSCONFDIR ?= /etc
SYSTEMD_DIR ?= $(PREFIX)/lib/systemd/system
install: install-module install-tools
	[ -n "$(DESTDIR)" ] || ldconfig

install-module: tgroup.ko
	@vm=$$(modinfo -F vermagic tgroup.ko | cut -d' ' -f1); [ "$$vm" = "$(KVER)" ] || \
		{ echo "install: tgroup.ko was built for $$vm, not for $(KVER) (KVER; default: the running kernel): make install KVER=$$vm, or build for $(KVER)"; exit 1; }
	install -D -m 0644 tgroup.ko $(DESTDIR)/lib/modules/$(KVER)/updates/tgroup.ko
	[ -n "$(DESTDIR)" ] || depmod -a $(KVER)

UNIT_SUBST := sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g'
install-tools: user userland
	install -D -m 0755 $(UL)/tgctl $(DESTDIR)$(BINDIR)/tgctl
	install -D -m 0755 $(UL)/tgroup-exporter $(DESTDIR)$(BINDIR)/tgroup-exporter
	install -D -m 0644 userland/lib/tgroup.h $(DESTDIR)$(INCLUDEDIR)/tgroup.h
	install -D -m 0644 $(UL)/libtgroup.a $(DESTDIR)$(LIBDIR)/libtgroup.a
	install -D -m 0644 $(UL)/libtgroup.so $(DESTDIR)$(LIBDIR)/libtgroup.so.0
	ln -sf libtgroup.so.0 $(DESTDIR)$(LIBDIR)/libtgroup.so
	install -D -m 0644 $(BUILD)/libtgpmem.so $(DESTDIR)$(LIBDIR)/tgroup/libtgpmem.so
	install -D -m 0755 userland/install/tgroup-service $(DESTDIR)$(LIBEXECDIR)/tgroup-service
	install -D -m 0755 userland/install/tgroup-headers $(DESTDIR)$(SBINDIR)/tgroup-headers
	mkdir -p $(DESTDIR)$(SYSTEMD_DIR)
	$(UNIT_SUBST) userland/install/tgroup.service.in > $(DESTDIR)$(SYSTEMD_DIR)/tgroup.service
	$(UNIT_SUBST) userland/install/tgroup-exporter.service.in > $(DESTDIR)$(SYSTEMD_DIR)/tgroup-exporter.service
	install -D -m 0644 docs/tgctl.md $(DESTDIR)$(DOCDIR)/tgctl.md
	[ -e $(DESTDIR)$(SYSCONFDIR)/modprobe.d/tgroup.conf ] || install -D -m 0644 userland/install/modprobe.conf $(DESTDIR)$(SYSCONFDIR)/modprobe.d/tgroup.conf
	[ -e $(DESTDIR)$(SYSCONFDIR)/tgroup/tgroup.conf ] || install -D -m 0644 userland/install/tgroup.conf $(DESTDIR)$(SYSCONFDIR)/tgroup/tgroup.conf

# DKMS: the sources under $(DKMS_SRC)/tgroup-$(VERSION), then dkms add/build/
# install for $(KVER) (the Debian package does this through dh_dkms).
DKMS_SRC ?= /usr/src
DKMS_FILES := Kbuild module cgroup-ui core pmdk-hooks
install-dkms:
	rm -rf $(DESTDIR)$(DKMS_SRC)/tgroup-$(VERSION) && mkdir -p $(DESTDIR)$(DKMS_SRC)/tgroup-$(VERSION)
	cp -r $(DKMS_FILES) $(DESTDIR)$(DKMS_SRC)/tgroup-$(VERSION)/
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf > $(DESTDIR)$(DKMS_SRC)/tgroup-$(VERSION)/dkms.conf
	find $(DESTDIR)$(DKMS_SRC)/tgroup-$(VERSION) \( -name '*.o' -o -name '.*.cmd' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \) -delete
	[ -n "$(DESTDIR)" ] || { dkms add tgroup/$(VERSION) && dkms build tgroup/$(VERSION) -k $(KVER) && dkms install tgroup/$(VERSION) -k $(KVER); }

# The Debian packages (debian/, dpkg-buildpackage: debhelper, dh-dkms) from
# the checkout's files (tracked and untracked, not ignored) copied into
# build/deb/tgroup-$(VERSION); the .debs land in build/deb/.
deb:
	@rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb/tgroup-$(VERSION)
	@if git rev-parse --git-dir >/dev/null 2>&1; then git ls-files -co --exclude-standard -z; \
	else find Kbuild Makefile dkms.conf debian module cgroup-ui core pmdk-hooks userland docs README.md -type f -print0; fi | \
		tar --null -T - -cf - | tar -xf - -C $(BUILD)/deb/tgroup-$(VERSION)
	cd $(BUILD)/deb/tgroup-$(VERSION) && nice dpkg-buildpackage -us -uc -b >../build.log 2>&1 || { tail -30 ../build.log; exit 1; }
	@ls $(BUILD)/deb/*.deb

checkpatch:
	@scripts/checkpatch.sh

# Benchmarks (numbers, not pass/fail): core/ regulator and estimator, and
# the context-switch hot path in the guest.
bench: $(BUILD)/bench_core $(INITRAMFS) $(BUILD)/libtgpmem.so $(BUILD)/bench_tgpmem
	@$(BUILD)/bench_core
	@$(BUILD)/bench_tgpmem
	@LD_PRELOAD=$(BUILD)/libtgpmem.so $(BUILD)/bench_tgpmem
	@TG_VM_LOG=$(BUILD)/vm/bench.log tests/vm/run.sh $(GUEST_KVER) $(INITRAMFS) bench >/dev/null; \
	grep '^TGTEST-BENCH' $(BUILD)/vm/bench.log.txt | sed 's/^TGTEST-BENCH: /guest /'


$(BUILD)/bench_core: tests/bench/bench_core.c $(CORE_SRC) $(wildcard core/*.h)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Wall -Wextra $(WERR) -Icore -o $@ tests/bench/bench_core.c $(CORE_SRC)

# libFuzzer target for the parsers; FUZZ_SECONDS bounds a run.
FUZZ_SECONDS ?= 15
$(BUILD)/fuzz/fuzz_parse: tests/fuzz/fuzz_parse.c core/parse.c $(wildcard core/*.h)
	@mkdir -p $(dir $@)
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Icore -o $@ tests/fuzz/fuzz_parse.c core/parse.c

# Every guarded rule of the control law broken on purpose: the unit tests
# must fail on each mutant (tests/unit/mutants.sh; about two minutes).
mutants:
	@tests/unit/mutants.sh

fuzz: $(BUILD)/fuzz/fuzz_parse
	@rm -rf $(BUILD)/fuzz/corpus && cp -r tests/fuzz/corpus $(BUILD)/fuzz/corpus
	$(BUILD)/fuzz/fuzz_parse -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $(BUILD)/fuzz/corpus

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean >/dev/null 2>&1
	rm -rf $(BUILD)
