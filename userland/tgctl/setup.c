// SPDX-License-Identifier: GPL-2.0
/*
 * tgctl setup - write the platform's event encodings into tgroup.config
 * (docs/tgctl.md, "setup").
 *
 * Where each value comes from:
 *  - core events (OCR reads per tier, the precise store event): libpfm4's
 *    tables (pfm_get_os_event_encoding), except Cascade Lake's PMM-hit OCR
 *    event, which libpfm4 4.13 lacks: its value is Intel's, from the perf
 *    JSON table (linux-source-6.1 tools/perf/pmu-events/arch/x86/
 *    cascadelakex/other.json, OCR.ALL_DATA_RD.PMM_HIT_LOCAL_PMM.ANY_SNOOP);
 *  - uncore iMC RPQ events: libpfm4 4.13 has iMC events only for
 *    Skylake-X-class uncore, and not for these models: the values are
 *    transcribed from the perf JSON tables (uncore-memory.json of each
 *    model) into the profile table below; userland/tests/fixtures/ keeps
 *    the tables' entries and the setup test checks this table against them;
 *  - Emerald Rapids, Granite Rapids, AMD Zen 4 and Zen 5 (known by
 *    /proc/cpuinfo, no profile here): their upstream perf JSON tables'
 *    entries (known_cpus[], each with the torvalds/linux commit it was read
 *    at), placed by the kernel's cpu/format/ files; the store event from the
 *    kernel's mem-stores alias;
 *  - PMU types: /sys/bus/event_source/devices/NAME/type;
 *  - RDT capabilities: libpqos (intel-cmt-cat).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <inttypes.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pqos.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmu.h"
#include "tgctl.h"

#define EVSRC "/sys/bus/event_source/devices"

/* an encoding from a vendor table: event code and umask */
struct tab_ev {
	const char *name;	/* the perf JSON EventName */
	unsigned int code, umask;
};

struct profile {
	const char *name;
	const char *pfm_pmu;		/* libpfm4's core PMU name */
	const char *json_dir;		/* the perf JSON tables' directory */
	const char *ocr_dram;		/* libpfm4 event string */
	const char *ocr_nvm;		/* libpfm4 event string, or NULL: */
	uint64_t ocr_nvm_config, ocr_nvm_config1;	/* ... the table's value */
	const char *ocr_nvm_table_name;
	const char *store;		/* libpfm4 event string */
	struct tab_ev unc[4];		/* dram occ, dram ins, nvm occ, nvm ins */
	const char *unc_note;
	const char *cxl_note;
};

static const struct profile profiles[] = {
	{
		.name = "cascadelake",
		.pfm_pmu = "clx",
		.json_dir = "cascadelakex",
		.ocr_dram = "OFFCORE_RESPONSE_0:ANY_DATA_RD:L3_MISS_LOCAL:SNP_ANY",
		.ocr_nvm = NULL,
		/* other.json: EventCode 0xB7, UMask 0x1, MSRValue 0x3F80400491 */
		.ocr_nvm_config = 0x01b7, .ocr_nvm_config1 = 0x3F80400491ULL,
		.ocr_nvm_table_name = "OCR.ALL_DATA_RD.PMM_HIT_LOCAL_PMM.ANY_SNOOP",
		.store = "MEM_INST_RETIRED:ALL_STORES:precise=2",
		.unc = {
			{ "UNC_M_RPQ_OCCUPANCY", 0x80, 0x00 },
			{ "UNC_M_RPQ_INSERTS", 0x10, 0x00 },
			{ "UNC_M_PMM_RPQ_OCCUPANCY.ALL", 0xe0, 0x01 },
			{ "UNC_M_PMM_RPQ_INSERTS", 0xe3, 0x00 },
		},
		.unc_note = "one iMC channel (uncore_imc_0) per socket",
		.cxl_note = "no CXL on this platform",
	},
	{
		.name = "icelake",
		.pfm_pmu = "icx",
		.json_dir = "icelakex",
		.ocr_dram = "OCR:READS_TO_CORE_LOCAL_DRAM",
		.ocr_nvm = "OCR:READS_TO_CORE_LOCAL_PMM",
		.store = "MEM_INST_RETIRED:ALL_STORES:precise=2",
		.unc = {
			{ "UNC_M_RPQ_OCCUPANCY_PCH0", 0x80, 0x00 },
			{ "UNC_M_RPQ_INSERTS.PCH0", 0x10, 0x01 },
			{ "UNC_M_PMM_RPQ_OCCUPANCY.ALL", 0xe0, 0x01 },
			{ "UNC_M_PMM_RPQ_INSERTS", 0xe3, 0x00 },
		},
		.unc_note = "DDR4 pseudo-channel 0 of uncore_imc_0 (occupancy and inserts of the same "
			    "pseudo-channel, so their ratio is that channel's latency)",
		.cxl_note = "no CXL on this platform",
	},
	{
		.name = "sapphirerapids",
		.pfm_pmu = "spr",
		.json_dir = "sapphirerapids",
		.ocr_dram = "OCR:READS_TO_CORE_LOCAL_DRAM",
		.ocr_nvm = "OCR:READS_TO_CORE_LOCAL_SOCKET_PMM",
		.store = "MEM_INST_RETIRED:ALL_STORES:precise=2",
		.unc = {
			{ "UNC_M_RPQ_OCCUPANCY_PCH0", 0x80, 0x00 },
			{ "UNC_M_RPQ_INSERTS.PCH0", 0x10, 0x01 },
			{ "UNC_M_PMM_RPQ_OCCUPANCY.ALL_SCH0", 0xe0, 0x01 },
			{ "UNC_M_PMM_RPQ_INSERTS", 0xe3, 0x00 },
		},
		.unc_note = "DDR5 pseudo-channel 0 / PMM scheduler 0 of uncore_imc_0",
		.cxl_note = "no CXL read event: libpfm4 4.13 and the perf JSON tables of linux-source-6.1 "
			    "have no CXL OCR event and no CHA TOR CXL insert/occupancy event for this model "
			    "(only .DDR and .PMM targets); CXL reads stay unmeasured by the perf and uncore "
			    "sources, CXL writes are seen by the store_sampling source (memory-only NUMA node)",
	},
};
#define NR_PROFILES (sizeof(profiles) / sizeof(profiles[0]))

static const char help_setup[] =
	"usage: tgctl setup [-n|--dry-run] [-p|--profile NAME]\n"
	"Detect the CPU with libpfm4, pick a platform profile and write the event\n"
	"encodings into tgroup.config: the OCR read events per tier (perf source),\n"
	"the iMC RPQ occupancy/inserts per tier and the iMC PMU type (uncore\n"
	"source), the precise store event (store_sampling source); and report the\n"
	"RDT capabilities libpqos sees and what tgroup does about resctrl.\n"
	"  --dry-run        print what would be written; write nothing (no mount needed)\n"
	"  --profile NAME   force a profile: cascadelake, icelake, sapphirerapids\n"
	"                   (events are then encoded even if that PMU is not present)\n"
	"Output: '# ' comment lines (sources, notes), then one key=value per line;\n"
	"'# off: SOURCE: why' for each source left off. Emerald Rapids, Granite\n"
	"Rapids, AMD Zen 4 and Zen 5 (by /proc/cpuinfo) get what their upstream perf\n"
	"JSON tables have, any other CPU without a profile what the kernel's own\n"
	"event aliases give (store sampling).\n"
	"Exit: 0 every source configured, 3 some left off, 1 none, 2 usage.\n";

struct out {
	char key[48];
	uint64_t val;
	char note[240];
	int need_key;	/* write only if the module has this key */
};

static struct out outs[16];
static int nouts;

static void put(const char *key, uint64_t val, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* the sources setup configures that stay off, and why */
struct off {
	const char *source;
	char why[1024];
};
static struct off offs[8];
static int noffs;

static void off(const char *source, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void off(const char *source, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < noffs; i++)
		if (!strcmp(offs[i].source, source))
			return;		/* the first reason stands */
	if (noffs >= (int)(sizeof(offs) / sizeof(offs[0])))
		return;
	offs[noffs].source = source;
	va_start(ap, fmt);
	vsnprintf(offs[noffs].why, sizeof(offs[noffs].why), fmt, ap);
	va_end(ap);
	noffs++;
}

/*
 * An entry of an upstream perf JSON table (torvalds/linux
 * tools/perf/pmu-events/arch/x86/<dir>/<file>), read at the commit named;
 * userland/tests/fixtures/perfjson-upstream.txt keeps the same entries as
 * the tables give them and the setup test checks what setup makes of these
 * against it.
 */
struct json_ev {
	const char *name;	/* EventName */
	const char *file;	/* <dir>/<file> */
	const char *commit;	/* the torvalds/linux commit it was read at */
	unsigned int code, umask;
	uint64_t msr;		/* MSRValue: the offcore_rsp term (Intel OCR); 0: none */
};

#define NR_RANGES 3

/*
 * CPUs setup knows by /proc/cpuinfo (libpfm4 4.13 has no profile for them,
 * or mistakes one for an older model) and what their perf JSON tables give
 * tgroup's perf and uncore sources. Both sources need a DRAM and a
 * slow-tier event (module/sources/perf.c, uncore.c take all their encodings
 * or none); the uncore source's four events are on one iMC PMU.
 * Family/model from the kernel (intel-family.h INTEL_EMERALDRAPIDS_X 0xCF,
 * INTEL_GRANITERAPIDS_X 0xAD, _D 0xAE) and perf's mapfile.csv (AMD family
 * 0x19 is Zen 3 for models 0x00-0x0f, 0x20-0x2f, 0x40-0x5f and Zen 4 for
 * every other; family 0x1a is Zen 5).
 */
struct known_cpu {
	const char *name, *vendor;
	unsigned int family;
	unsigned char model_lo[NR_RANGES], model_hi[NR_RANGES];	/* lo > hi: unused */
	const char *json_dir;
	struct json_ev dram, slow;	/* the perf source's pair; dram.name NULL: none */
	const char *perf_note;		/* what the pair counts */
	const char *perf_why;		/* why perf stays off (no pair) */
	struct json_ev unc_occ, unc_ins;	/* the iMC's DRAM read queue; name NULL: none */
	const char *uncore_why;		/* why uncore stays off */
};

#define ZEN_FILLS_NOTE \
	"AMD has no offcore-response events: these count fills of the L1 data cache by source (demand, " \
	"hardware and software prefetch); lines the L2 prefetcher brings into L2 only, and code fetches, " \
	"are not counted, so the perf source reads less than the memory's traffic; dram_io_near is DRAM " \
	"(and MMIO) of the requester's NUMA node, alternate_memories is extension memory (CXL)"
#define ZEN_UNCORE_WHY \
	"AMD's memory controllers (UMC PMU, memory-controller.json: umc_mem_clk, umc_cas_cmd.rd, " \
	"umc_data_slot_clks.rd, ...) count clocks, commands and data-bus cycles but have no read-queue " \
	"occupancy to take a latency from (Little's law), and CXL memory is not behind a UMC"

static const struct known_cpu known_cpus[] = {
	{
		.name = "Emerald Rapids", .vendor = "GenuineIntel", .family = 6,
		.model_lo = { 0xcf, 1, 1 }, .model_hi = { 0xcf, 0, 0 },
		.json_dir = "emeraldrapids",
		.dram = { "OCR.READS_TO_CORE.LOCAL_DRAM", "emeraldrapids/other.json",
			  "8c994eff8fcfe8ecb1f1dbebed25b4d7bb75be12", 0x2a, 0x1, 0x104004477ULL },
		.perf_why = "no OCR event counts the slow tier's reads alone: other.json, memory.json and "
			    "cache.json have neither a PMM event (Sapphire Rapids' READS_TO_CORE.LOCAL_SOCKET_PMM) "
			    "nor a CXL memory one (Granite Rapids' READS_TO_CORE.LOCAL_CXL_MEM), and the perf "
			    "source needs both tiers",
		.unc_occ = { "UNC_M_RPQ_OCCUPANCY_PCH0", "emeraldrapids/uncore-memory.json",
			     "f057b57270c2a17d3f45c177e9434fa5745caa48", 0x80, 0x0, 0 },
		.unc_ins = { "UNC_M_RPQ_INSERTS.PCH0", "emeraldrapids/uncore-memory.json",
			     "f057b57270c2a17d3f45c177e9434fa5745caa48", 0x10, 0x1, 0 },
		.uncore_why = "the slow tier of an Emerald Rapids server is CXL memory, which is not behind "
			      "the iMC: the table's UNC_M_PMM_RPQ_* events (kept from Sapphire Rapids' iMC) "
			      "count Optane PMem reads, which this platform does not take, and the uncore "
			      "source needs the slow tier's queue on the same iMC PMU",
	},
	{
		.name = "Granite Rapids", .vendor = "GenuineIntel", .family = 6,
		.model_lo = { 0xad, 1, 1 }, .model_hi = { 0xae, 0, 0 },
		.json_dir = "graniterapids",
		.dram = { "OCR.READS_TO_CORE.LOCAL_SOCKET_DRAM", "graniterapids/memory.json",
			  "cb9f145f638d7afa633632a9290d6ad06caeb8ee", 0x2a, 0x1, 0x70c004477ULL },
		.slow = { "OCR.READS_TO_CORE.LOCAL_CXL_MEM", "graniterapids/cache.json",
			  "0e08908841999354e86e85a38d3ad268a59924b2", 0x2a, 0x1, 0x700c04477ULL },
		.perf_note = "DRAM and CXL memory (Type 2 and 3) of the local socket, whether or not in "
			     "SNC mode (LOCAL_DRAM would count only the close SNC cluster's DRAM)",
		.unc_occ = { "UNC_M_RPQ_OCCUPANCY_SCH0_PCH0", "graniterapids/uncore-memory.json",
			     "917f63ad758076cb6261bda1d05e98a673947c95", 0x80, 0x0, 0 },
		.unc_ins = { "UNC_M_RPQ_INSERTS.SCH0_PCH0", "graniterapids/uncore-memory.json",
			     "917f63ad758076cb6261bda1d05e98a673947c95", 0x10, 0x10, 0 },
		.uncore_why = "the iMC has no queue for the slow tier (CXL memory is not behind it; no PMM "
			      "events), and the CXL units (graniterapids/uncore-cxl.json @e65d9626: "
			      "UNC_B2CXL_CLOCKTICKS, UNC_CXLCM_RxC_PACK_BUF_INSERTS.MEM_DATA, "
			      "UNC_CXLDP_TxC_AGF_INSERTS.M2S_DATA) count no read-queue occupancy; the uncore "
			      "source needs both tiers' queues on one iMC PMU",
	},
	{
		.name = "AMD Zen 4", .vendor = "AuthenticAMD", .family = 0x19,
		.model_lo = { 0x10, 0x30, 0x60 }, .model_hi = { 0x1f, 0x3f, 0xff },
		.json_dir = "amdzen4",
		.dram = { "ls_any_fills_from_sys.dram_io_near", "amdzen4/cache.json",
			  "037dd1308c6dfa64edd2dfcd1b8177a3f484a124", 0x44, 0x08, 0 },
		.slow = { "ls_any_fills_from_sys.alternate_memories", "amdzen4/cache.json",
			  "037dd1308c6dfa64edd2dfcd1b8177a3f484a124", 0x44, 0x80, 0 },
		.perf_note = ZEN_FILLS_NOTE,
		.uncore_why = ZEN_UNCORE_WHY " (amdzen4/memory-controller.json @346878da)",
	},
	{
		.name = "AMD Zen 5", .vendor = "AuthenticAMD", .family = 0x1a,
		.model_lo = { 0x00, 1, 1 }, .model_hi = { 0xff, 0, 0 },
		.json_dir = "amdzen5",
		.dram = { "ls_any_fills_from_sys.dram_io_near", "amdzen5/load-store.json",
			  "7237cb3e1544718a972b732e66ebcf0f63b128a5", 0x44, 0x08, 0 },
		.slow = { "ls_any_fills_from_sys.alternate_memories", "amdzen5/load-store.json",
			  "7237cb3e1544718a972b732e66ebcf0f63b128a5", 0x44, 0x80, 0 },
		.perf_note = ZEN_FILLS_NOTE,
		.uncore_why = ZEN_UNCORE_WHY " (amdzen5/memory-controller.json @3c691407)",
	},
};
#define NR_KNOWN (sizeof(known_cpus) / sizeof(known_cpus[0]))

struct cpu_id {
	char vendor[16];
	unsigned int family, model;
};

/* vendor, family and model from /proc/cpuinfo's first CPU; 0 or -1 */
static int read_cpuinfo(struct cpu_id *c)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	int got = 0;

	memset(c, 0, sizeof(*c));
	if (!f)
		return -1;
	while (got != 7 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "vendor_id : %15s", c->vendor) == 1)
			got |= 1;
		else if (sscanf(line, "cpu family : %u", &c->family) == 1)
			got |= 2;
		else if (sscanf(line, "model : %u", &c->model) == 1)
			got |= 4;
	}
	fclose(f);
	return got == 7 ? 0 : -1;
}

static const struct known_cpu *known_cpu(const struct cpu_id *c)
{
	for (size_t i = 0; i < NR_KNOWN; i++) {
		const struct known_cpu *k = &known_cpus[i];

		if (strcmp(c->vendor, k->vendor) || c->family != k->family)
			continue;
		for (int r = 0; r < NR_RANGES; r++)
			if (k->model_lo[r] <= k->model_hi[r] && c->model >= k->model_lo[r] &&
			    c->model <= k->model_hi[r])
				return k;
	}
	return NULL;
}

/* "NAME (FILE @COMMIT8: event 0x.. umask 0x..[ offcore_rsp 0x..])" */
static void json_ev_str(char *buf, size_t n, const struct json_ev *e)
{
	char rsp[40] = "";

	if (e->msr)
		snprintf(rsp, sizeof(rsp), " offcore_rsp %#" PRIx64, e->msr);
	snprintf(buf, n, "%s (%s @%.8s: event %#x umask %#x%s)", e->name, e->file, e->commit, e->code, e->umask,
		 rsp);
}

/* the core PMU's encoding of a table entry, placed by its format/ files */
static int json_ev_encode(const char *dev, const struct json_ev *e, uint64_t cfg[3], char *why, size_t n)
{
	char terms[128];

	if (e->msr)
		snprintf(terms, sizeof(terms), "event=%#x,umask=%#x,offcore_rsp=%#" PRIx64, e->code, e->umask, e->msr);
	else
		snprintf(terms, sizeof(terms), "event=%#x,umask=%#x", e->code, e->umask);
	return pmu_encode(dev, terms, cfg, why, n);
}

/*
 * The perf source of a known CPU: its pair of table events, encoded by the
 * core PMU's format/ files - which the kernel exposes only for fields it
 * programs: an OCR event's response value (offcore_rsp, config1) needs a
 * kernel that knows the CPU's offcore-response MSRs.
 */
static void table_perf(const struct known_cpu *k)
{
	const char *dev = EVSRC "/cpu";
	char why[400], d[200], sl[200];
	uint64_t dc[3], sc[3];
	uint32_t type;
	struct stat st;

	if (!k->dram.name || !k->slow.name) {
		json_ev_str(d, sizeof(d), &k->dram);
		off("perf", "%s: the DRAM read event is %s, but %s", k->name, d, k->perf_why);
		return;
	}
	if (k->dram.msr && stat(EVSRC "/cpu/format/offcore_rsp", &st)) {
		off("perf", "%s: no %s/cpu/format/offcore_rsp: this kernel does not program the offcore-response "
		    "MSRs of this CPU (it does not know the model), so its OCR events would count the wrong "
		    "responses; a kernel that supports the CPU's core PMU exposes offcore_rsp", k->name, EVSRC);
		return;
	}
	if (pmu_type(dev, &type, why, sizeof(why))) {
		off("perf", "%s: no core PMU (%s): this kernel exposes no hardware counters here (a virtual "
		    "machine without a virtual PMU, or the PMU driver is off)", k->name, why);
		return;
	}
	if (json_ev_encode(dev, &k->dram, dc, why, sizeof(why)) ||
	    json_ev_encode(dev, &k->slow, sc, why, sizeof(why))) {
		off("perf", "%s: %s", k->name, why);
		return;
	}
	json_ev_str(d, sizeof(d), &k->dram);
	json_ev_str(sl, sizeof(sl), &k->slow);
	printf("# perf: DRAM reads %s, slow-tier reads %s, placed by %s/format: %s\n", d, sl, dev, k->perf_note);
	put("perf_type", type, "%s/type", dev);
	put("ocr_dram_read_config", dc[0], "perf JSON %s %s config %#" PRIx64, k->dram.file, k->dram.name, dc[0]);
	put("ocr_dram_read_config1", dc[1], "perf JSON %s %s config1 %#" PRIx64, k->dram.file, k->dram.name, dc[1]);
	outs[nouts - 1].need_key = 1;
	put("ocr_nvm_read_config", sc[0], "perf JSON %s %s config %#" PRIx64, k->slow.file, k->slow.name, sc[0]);
	put("ocr_nvm_read_config1", sc[1], "perf JSON %s %s config1 %#" PRIx64, k->slow.file, k->slow.name, sc[1]);
	outs[nouts - 1].need_key = 1;
}

static void table_uncore(const struct known_cpu *k)
{
	char o[200], i[200];

	if (!k->unc_occ.name) {
		off("uncore", "%s: %s", k->name, k->uncore_why);
		return;
	}
	json_ev_str(o, sizeof(o), &k->unc_occ);
	json_ev_str(i, sizeof(i), &k->unc_ins);
	off("uncore", "%s: the iMC's DRAM read queue is %s and %s, but %s", k->name, o, i, k->uncore_why);
}

/*
 * No libpfm4 profile, or a CPU setup knows by /proc/cpuinfo. The perf and
 * uncore sources from the CPU's upstream perf JSON tables where they have
 * both tiers' events (table_perf, table_uncore), off with the reason where
 * not. The store_sampling source takes the kernel's own mem-stores event
 * alias (the one perf mem samples stores with: MEM_INST_RETIRED.ALL_STORES
 * on Haswell..Ice Lake, MEM_TRANS_RETIRED.STORE_SAMPLE from Sapphire Rapids
 * on; linux-source-6.1 arch/x86/events/intel/core.c mem_st_hsw,
 * mem_st_spr), placed by the PMU's format/ files.
 */
static void fallback(const char *pfm_pmu, const struct known_cpu *k, const struct cpu_id *c, int have_cpu)
{
	static const char *const devs[] = { "cpu", "cpu_core" };
	char why[300] = "", cpu[96];

	if (k) {
		printf("# CPU: %s family %#x model %#x, %s (libpfm4 core PMU: %s): its upstream perf JSON tables "
		       "(tools/perf/pmu-events/arch/x86/%s) and the kernel's own event aliases (%s/*/events)\n",
		       c->vendor, c->family, c->model, k->name, pfm_pmu, k->json_dir, EVSRC);
		table_perf(k);
	} else {
		if (have_cpu)
			snprintf(cpu, sizeof(cpu), "%s family %#x model %#x", c->vendor, c->family, c->model);
		else
			snprintf(cpu, sizeof(cpu), "unknown (no /proc/cpuinfo)");
		printf("# no profile for this CPU (libpfm4 core PMU: %s; CPU: %s): profiles are cascadelake, "
		       "icelake, sapphirerapids (--profile NAME); falling back to the kernel's own event aliases "
		       "(%s/*/events)\n", pfm_pmu, cpu, EVSRC);
	}
	for (size_t i = 0; i < sizeof(devs) / sizeof(devs[0]); i++) {
		char dev[128], ev[160];
		uint32_t type;
		uint64_t cfg;
		struct stat st;

		snprintf(dev, sizeof(dev), EVSRC "/%s", devs[i]);
		snprintf(ev, sizeof(ev), "%s/events/mem-stores", dev);
		if (stat(ev, &st))
			continue;
		if (pmu_type(dev, &type, why, sizeof(why)) ||
		    pmu_event_config(dev, "mem-stores", &cfg, why, sizeof(why)))
			break;
		put("store_sample_type", type, "%s/type", dev);
		put("store_sample_config", cfg, "the kernel's alias %s (the module sets precise_ip 2 itself)", ev);
		why[0] = '\0';
		break;
	}
	if (!nouts || strcmp(outs[nouts - 1].key, "store_sample_config"))
		off("store_sampling", "%s", why[0] ? why : "no mem-stores alias in " EVSRC "/cpu/events (the kernel "
		    "names no precise store event for this CPU; AMD samples stores with IBS, which this source "
		    "does not use)");
	if (!k) {
		off("perf", "no OCR encodings for this CPU (no libpfm4 profile, no perf JSON table in tgctl)");
		off("uncore", "no iMC RPQ encodings for this CPU (no libpfm4 profile)");
		return;
	}
	table_uncore(k);
}

static void put(const char *key, uint64_t val, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put(const char *key, uint64_t val, const char *fmt, ...)
{
	va_list ap;

	if (nouts >= (int)(sizeof(outs) / sizeof(outs[0])))
		return;
	snprintf(outs[nouts].key, sizeof(outs[nouts].key), "%s", key);
	outs[nouts].val = val;
	va_start(ap, fmt);
	vsnprintf(outs[nouts].note, sizeof(outs[nouts].note), fmt, ap);
	va_end(ap);
	nouts++;
}

/* encode "pmu::event" with libpfm4: type, config, config1, precise_ip */
static int encode(const char *pmu, const char *ev, struct perf_event_attr *a, char *why, size_t wsize)
{
	pfm_perf_encode_arg_t arg;
	char full[256];
	int r;

	snprintf(full, sizeof(full), "%s::%s", pmu, ev);
	memset(a, 0, sizeof(*a));
	memset(&arg, 0, sizeof(arg));
	arg.attr = a;
	arg.size = sizeof(arg);
	r = pfm_get_os_event_encoding(full, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r != PFM_SUCCESS) {
		snprintf(why, wsize, "libpfm4 cannot encode %s: %s", full, pfm_strerror(r));
		return -1;
	}
	return 0;
}

static int read_u32_file(const char *path, uint32_t *v)
{
	FILE *f = fopen(path, "r");
	unsigned long x;
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%lu", &x) == 1 && x <= UINT32_MAX;
	fclose(f);
	if (!ok)
		return -1;
	*v = x;
	return 0;
}

/* the detected core PMU's profile, or NULL (name of the PMU in pmu_name) */
static const struct profile *detect(char *pmu_name, size_t size)
{
	int i;

	snprintf(pmu_name, size, "none");
	pfm_for_all_pmus(i) {
		pfm_pmu_info_t info;

		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(i, &info) != PFM_SUCCESS || !info.is_present ||
		    info.type != PFM_PMU_TYPE_CORE)
			continue;
		snprintf(pmu_name, size, "%s", info.name);
		for (size_t p = 0; p < NR_PROFILES; p++)
			if (!strcmp(info.name, profiles[p].pfm_pmu))
				return &profiles[p];
	}
	return NULL;
}

/* resctrl is mounted when its mount point has its files (it is empty otherwise) */
static int resctrl_mounted(void)
{
	struct stat st;

	return stat("/sys/fs/resctrl/info", &st) == 0 && S_ISDIR(st.st_mode);
}

static void pqos_log(void *ctx, const size_t size, const char *msg)
{
	(void)ctx;
	(void)size;
	(void)msg;
}

/* what libpqos says about MBM and MBA, as comment lines (in a child) */
static void rdt_query(int rm)
{
	struct pqos_config cfg;
	const struct pqos_cap *cap;
	const struct pqos_cpuinfo *cpu;
	const struct pqos_capability *c;
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	cfg.fd_log = -1;
	cfg.callback_log = pqos_log;
	cfg.verbose = -1;
	/*
	 * With resctrl mounted ask it (the OS interface reads its info/);
	 * without, the MSR interface: CPUID only, it mounts nothing (the OS
	 * interface would mount resctrl to look, which would stop tgroup's
	 * RDT users).
	 */
	cfg.interface = rm ? PQOS_INTER_OS : PQOS_INTER_MSR;
	rc = pqos_init(&cfg);
	if (rc != PQOS_RETVAL_OK) {
		printf("# libpqos: no RDT capabilities (pqos_init %s interface: error %d%s)\n",
		       rm ? "OS" : "MSR", rc,
		       rm ? "" : "; the MSR interface needs RDT in CPUID and /dev/cpu/*/msr (modprobe msr)");
		return;
	}
	if (pqos_cap_get(&cap, &cpu) != PQOS_RETVAL_OK) {
		printf("# libpqos: pqos_cap_get failed\n");
		pqos_fini();
		return;
	}
	if (pqos_cap_get_type(cap, PQOS_CAP_TYPE_MON, &c) == PQOS_RETVAL_OK && c->u.mon) {
		printf("# libpqos: MBM: max RMID %u, events:", c->u.mon->max_rmid);
		for (unsigned int i = 0; i < c->u.mon->num_events; i++) {
			enum pqos_mon_event t = c->u.mon->events[i].type;

			printf(" %s", t == PQOS_MON_EVENT_L3_OCCUP ? "llc_occupancy" :
			       t == PQOS_MON_EVENT_LMEM_BW ? "mbm_local" :
			       t == PQOS_MON_EVENT_TMEM_BW ? "mbm_total" :
			       t == PQOS_MON_EVENT_RMEM_BW ? "mbm_remote" : "other");
		}
		printf("\n");
	} else {
		printf("# libpqos: no MBM\n");
	}
	if (pqos_cap_get_type(cap, PQOS_CAP_TYPE_MBA, &c) == PQOS_RETVAL_OK && c->u.mba) {
		printf("# libpqos: MBA: %u CLOS, %s, step %u%%, minimum %u%%\n", c->u.mba->num_classes,
		       c->u.mba->is_linear ? "linear" : "non-linear", c->u.mba->throttle_step,
		       100 - c->u.mba->throttle_max);
	} else {
		printf("# libpqos: no MBA\n");
	}
	pqos_fini();
}

/*
 * libpqos 4.5's pqos_init() frees twice on its MSR error path (seen on a
 * CPU without RDT and without /dev/cpu/N/msr; its own pqos tool aborts the
 * same way), so the query runs in a child process and a crash there is
 * reported, not shared.
 */
static void rdt_report(void)
{
	int rm = resctrl_mounted(), st;
	pid_t pid;

	if (rm)
		printf("# resctrl: mounted - tgroup leaves RDT to it: the module's rdt source and MBA "
		       "actuator are on standby while resctrl is mounted and resume by themselves once it "
		       "is unmounted (docs/abi.md); pqos alongside tgroup: pqos --iface=msr (docs/tgctl.md)\n");
	else
		printf("# resctrl: not mounted - tgroup's rdt source and MBA actuator own RMIDs and "
		       "CLOSes; mounting resctrl (pqos's default --iface=auto does) puts them on standby until it "
		       "is unmounted: use pqos --iface=msr alongside tgroup (docs/tgctl.md)\n");
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("# libpqos: not queried (fork: %s)\n", strerror(errno));
		return;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		/* libpqos's own messages and glibc's abort message stay out of the output */
		setenv("LIBC_FATAL_STDERR_", "1", 1);
		if (fd >= 0)
			dup2(fd, 2);
		rdt_query(rm);
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		printf("# libpqos: lost its query process\n");
	else if (WIFSIGNALED(st))
		printf("# libpqos: no RDT capabilities: pqos_init crashed (signal %d; libpqos 4.5 on a CPU "
		       "without RDT or without /dev/cpu/N/msr)\n", WTERMSIG(st));
}

#define KHZ_WINDOW_MS 200	/* iMC clockticks counted this long: a 1 GHz clock ticks 2e8 times */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * uncore_khz: the iMC's own clock, which its RPQ occupancy counts in. It
 * is measured: the iMC PMU's clockticks event (sysfs events/clockticks),
 * counted system-wide on the PMU's first CPU for KHZ_WINDOW_MS. 0 and why
 * if it cannot be.
 */
static uint64_t imc_khz(uint32_t type, char *why, size_t n, char *how, size_t hn)
{
	const char *dev = EVSRC "/uncore_imc_0";
	struct timespec ts = { 0, KHZ_WINDOW_MS * 1000000L };
	uint64_t cfg, a, b, t0, t1, khz;
	int cpu = pmu_first_cpu(dev), fd;

	if (pmu_event_config(dev, "clockticks", &cfg, why, n))
		return 0;
	fd = pmu_open(type, cfg, cpu, why, n);
	if (fd < 0)
		return 0;
	t0 = now_ns();
	if (pmu_read(fd, &a)) {
		snprintf(why, n, "reading uncore_imc_0/clockticks: %s", strerror(errno));
		close(fd);
		return 0;
	}
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	if (pmu_read(fd, &b)) {
		snprintf(why, n, "reading uncore_imc_0/clockticks: %s", strerror(errno));
		close(fd);
		return 0;
	}
	t1 = now_ns();
	close(fd);
	khz = b > a ? pmu_khz(b - a, t1 - t0) : 0;
	if (!khz || khz > 10000000) {
		snprintf(why, n, "uncore_imc_0/clockticks counted %" PRIu64 " in %" PRIu64 " ns (not a clock "
			 "of 1 kHz..10 GHz)", b - a, t1 - t0);
		return 0;
	}
	snprintf(how, hn, "measured: %s/events/clockticks (config %#" PRIx64 ") counted %" PRIu64
		 " in %" PRIu64 " ns on cpu %d", dev, cfg, b - a, t1 - t0, cpu);
	return khz;
}

static void hex(char *buf, size_t size, uint64_t v)
{
	snprintf(buf, size, "0x%" PRIx64, v);
}

/*
 * The end: every source left off named (stdout, and a line on stderr for
 * the journal). Exit 0 all configured, 3 some left off, 1 none configured
 * or a failure, so a unit running setup fails loudly.
 */
static int finish(int rc)
{
	for (int i = 0; i < noffs; i++)
		printf("# off: %s: %s\n", offs[i].source, offs[i].why);
	if (rc)
		return rc;
	if (!nouts) {
		fprintf(stderr, "tgctl setup: nothing configured: %d sources stay off (see the '# off:' lines)\n",
			noffs);
		return 1;
	}
	if (noffs) {
		fprintf(stderr, "tgctl setup: partly configured: off:");
		for (int i = 0; i < noffs; i++)
			fprintf(stderr, " %s", offs[i].source);
		fprintf(stderr, " (see the '# off:' lines)\n");
		return 3;
	}
	return 0;
}

int tgctl_setup(int argc, char **argv)
{
	const char *forced = NULL;
	const struct profile *pr;
	struct perf_event_attr a;
	char pmu[64], why[300], h[32], h1[32];
	int dry = 0, r, rc = 0;
	uint32_t unc_type;

	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' }, { "dry-run", no_argument, NULL, 'n' },
		{ "profile", required_argument, NULL, 'p' }, { NULL, 0, NULL, 0 },
	};
	int o;

	optind = 0;
	while ((o = getopt_long(argc, argv, "hnp:", lo, NULL)) != -1) {
		switch (o) {
		case 'h':
			fputs(help_setup, stdout);
			return 0;
		case 'n':
			dry = 1;
			break;
		case 'p':
			forced = optarg;
			break;
		default:
			fprintf(stderr, "tgctl setup: see tgctl setup --help\n");
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "tgctl setup: unexpected argument \"%s\" (tgctl setup --help)\n", argv[optind]);
		return 2;
	}
	if (forced) {
		for (pr = profiles; pr < profiles + NR_PROFILES && strcmp(pr->name, forced); pr++)
			;
		if (pr == profiles + NR_PROFILES) {
			fprintf(stderr, "tgctl setup: no profile \"%s\" (cascadelake, icelake, sapphirerapids)\n",
				forced);
			return 2;
		}
		/* encode the forced profile's events whatever PMU this CPU has */
		setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	}
	r = pfm_initialize();
	if (r != PFM_SUCCESS) {
		fprintf(stderr, "tgctl setup: libpfm4: %s\n", pfm_strerror(r));
		return 1;
	}
	{
		const struct profile *det = detect(pmu, sizeof(pmu));
		struct cpu_id c;
		int have_cpu = read_cpuinfo(&c) == 0;
		const struct known_cpu *k = have_cpu ? known_cpu(&c) : NULL;

		if (!forced) {
			/*
			 * A CPU known by its family/model goes by its own tables,
			 * even where libpfm4 takes it for an older profile's PMU
			 * (the same OCR response bits mean PMM on Sapphire
			 * Rapids and CXL memory on Granite Rapids).
			 */
			if (k && det)
				printf("# libpfm4 takes this CPU for core PMU %s (profile %s), but /proc/cpuinfo "
				       "says %s (family %#x model %#x): its own perf JSON tables apply\n", pmu,
				       det->name, k->name, c.family, c.model);
			if (!det || k) {
				fallback(pmu, k, &c, have_cpu);
				rdt_report();
				goto emit;
			}
			pr = det;
		} else if (det != pr) {
			printf("# warning: profile %s forced; libpfm4 detects core PMU %s\n", pr->name, pmu);
		}
	}
	printf("# profile %s (libpfm4 PMU %s, perf JSON tables: linux-source-6.1 "
	       "tools/perf/pmu-events/arch/x86/%s)\n", pr->name, pr->pfm_pmu, pr->json_dir);

	/* perf source: OCR reads per tier */
	if (encode(pr->pfm_pmu, pr->ocr_dram, &a, why, sizeof(why))) {
		off("perf", "%s", why);
	} else {
		uint64_t nvm_cfg, nvm_cfg1;
		struct perf_event_attr b;

		hex(h, sizeof(h), a.config);
		hex(h1, sizeof(h1), a.config1);
		if (pr->ocr_nvm) {
			if (encode(pr->pfm_pmu, pr->ocr_nvm, &b, why, sizeof(why))) {
				off("perf", "%s", why);
				goto store;
			}
			nvm_cfg = b.config;
			nvm_cfg1 = b.config1;
		} else {
			nvm_cfg = pr->ocr_nvm_config;
			nvm_cfg1 = pr->ocr_nvm_config1;
		}
		put("perf_type", a.type, "libpfm4 perf type");
		put("ocr_dram_read_config", a.config, "libpfm4 %s::%s config %s", pr->pfm_pmu, pr->ocr_dram, h);
		put("ocr_dram_read_config1", a.config1, "libpfm4 %s::%s config1 %s", pr->pfm_pmu, pr->ocr_dram, h1);
		outs[nouts - 1].need_key = 1;
		hex(h, sizeof(h), nvm_cfg);
		hex(h1, sizeof(h1), nvm_cfg1);
		if (pr->ocr_nvm) {
			put("ocr_nvm_read_config", nvm_cfg, "libpfm4 %s::%s config %s", pr->pfm_pmu, pr->ocr_nvm, h);
			put("ocr_nvm_read_config1", nvm_cfg1, "libpfm4 %s::%s config1 %s", pr->pfm_pmu, pr->ocr_nvm, h1);
		} else {
			put("ocr_nvm_read_config", nvm_cfg, "perf JSON %s (not in libpfm4 4.13) config %s",
			    pr->ocr_nvm_table_name, h);
			put("ocr_nvm_read_config1", nvm_cfg1, "perf JSON %s MSRValue %s", pr->ocr_nvm_table_name, h1);
		}
		outs[nouts - 1].need_key = 1;
	}
store:
	/* store_sampling source */
	if (encode(pr->pfm_pmu, pr->store, &a, why, sizeof(why))) {
		off("store_sampling", "%s", why);
	} else {
		hex(h, sizeof(h), a.config);
		put("store_sample_type", a.type, "libpfm4 perf type");
		put("store_sample_config", a.config, "libpfm4 %s::%s config %s precise_ip %u (the module sets "
		    "precise_ip 2 itself)", pr->pfm_pmu, pr->store, h, (unsigned int)a.precise_ip);
	}

	/* uncore source */
	if (read_u32_file(EVSRC "/uncore_imc_0/type", &unc_type)) {
		printf("# uncore: no %s/uncore_imc_0/type: no iMC PMU (uncore source stays unavailable)\n", EVSRC);
		off("uncore", "no iMC PMU (%s/uncore_imc_0/type)", EVSRC);
	} else {
		static const char *const keys[4] = {
			"uncore_dram_occupancy_config", "uncore_dram_inserts_config",
			"uncore_nvm_occupancy_config", "uncore_nvm_inserts_config",
		};

		put("uncore_type", unc_type, "%s/uncore_imc_0/type; %s", EVSRC, pr->unc_note);
		for (int k = 0; k < 4; k++) {
			uint64_t cfg = pr->unc[k].code | (uint64_t)pr->unc[k].umask << 8;

			hex(h, sizeof(h), cfg);
			put(keys[k], cfg, "perf JSON %s/uncore-memory.json %s config %s", pr->json_dir,
			    pr->unc[k].name, h);
		}
		{
			char how[300];
			uint64_t khz = imc_khz(unc_type, why, sizeof(why), how, sizeof(how));

			if (khz)
				put("uncore_khz", khz, "%s", how);
			else
				printf("# uncore_khz: not set (the module keeps its value; default 2000000): %s\n",
				       why);
		}
	}
	printf("# cxl: %s\n", pr->cxl_note);
	rdt_report();

emit:
	if (dry) {
		for (int i = 0; i < nouts; i++)
			printf("# %s: %s\n%s=%" PRIu64 "\n", outs[i].key, outs[i].note, outs[i].key, outs[i].val);
		return finish(rc);
	}
	{
		struct tgroup *tg = tgctl_open();
		char buf[2048], val[128];
		size_t n = 0;
		int have1 = 1;

		if (!tg)
			return 1;
		/*
		 * OCR events need their config1 (the response MSR): a module
		 * without the config1 keys would count the wrong event, so the
		 * OCR pair is not written then.
		 */
		if (tgroup_config_get(tg, "ocr_dram_read_config1", val, sizeof(val)) == -ENOENT)
			have1 = 0;
		for (int i = 0; i < nouts; i++) {
			int ocr = !strncmp(outs[i].key, "ocr_", 4) || !strcmp(outs[i].key, "perf_type");

			if (ocr && !have1) {
				printf("# not written: %s=%" PRIu64 " (this tgroup.ko has no ocr_*_config1 keys; "
				       "an OCR event without its response MSR value counts something else)\n",
				       outs[i].key, outs[i].val);
				off("perf", "this tgroup.ko has no ocr_*_config1 keys (an older module): the OCR "
				    "events were not written");
				continue;
			}
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s=%" PRIu64, n ? " " : "", outs[i].key,
				      outs[i].val);
			printf("%s=%" PRIu64 "\n", outs[i].key, outs[i].val);
		}
		if (n) {
			r = tgroup_config_set(tg, buf);
			if (r) {
				tgctl_err(tg, r, "setup: tgroup.config");
				rc = 1;
			}
		}
		tgroup_close(tg);
	}
	return finish(rc);
}
