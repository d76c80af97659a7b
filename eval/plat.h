/* SPDX-License-Identifier: GPL-2.0 */
/*
 * plat.h - what the guest platform (tgeval.c) and the host simulator
 * (sim.c) share: the workloads, the step that turns the CPU time each got
 * into traffic and latency (eval/model.h), the baselines' control rules, the
 * oracle, and the run's statistics (steady state, transient, requests), so
 * that both print the same rows from the same code (docs/eval.md).
 *
 * Who holds what: the caller measures the CPU time each workload got in the
 * step and applies the throttles (the module, cgroup cpu.max, or the
 * simulated CPU); plat_step() computes everything else and says which CPU
 * cap the baselines and the oracle want (struct wl.want_cap).
 */
#ifndef TG_EVAL_PLAT_H
#define TG_EVAL_PLAT_H

#include <stdio.h>

#include "model.h"

#define MAXW 20

enum mode { M_NONE, M_STATIC, M_MBPS, M_MEMGUARD, M_MEMGUARD_RW, M_TGROUP, M_TGROUP_OTHR, M_ORACLE, M_NMODES };
extern const char *const mode_name[M_NMODES];
int mode_parse(const char *s);

struct wl {
	/* configuration: NAME:KIND:THREADS:PRIO:START:STOP[:key=value...] */
	char name[32];
	int kind, high;
	double threads, start, stop;
	double duty;		/* CPU share of one CPU it asks for */
	double memfrac;		/* memory-stall share (1: memory-bound) */
	double onoff;		/* s on, s off, from start (0: always on) */
	double req_util;	/* request-level victim: offered load (0: none) */
	char limit[160];	/* tgroup.limit line (tgroup modes only) */

	/* state */
	int state;		/* 0 not started, 1 running, 2 gone */
	int paused;		/* onoff: in an off phase */
	double cpu;		/* EWMA of the fraction of its wanted CPU it got */
	double mba;		/* MBA level this step */
	double last_t;		/* the model's last answer */
	double rate_cpu;	/* bytes per CPU-second it moves now (while running) */
	double want_cap;	/* CPU cap the baseline/oracle wants, fraction of duty (>= 1: none) */
	double share;		/* the CPU share the run gives it on average, for the oracle
				 * (tgsim: this run's draw; 0: the profile's calib_cpu) */
	char quota[24];		/* the applied CPU quota, as text ("max", "-", µs) */
	double qfrac;		/* the applied cap, fraction of duty (1: none) */
	int relapses;		/* tgroup: relapses seen (last_reason relapse) */
	char why[16];		/* tgroup: last_reason */

	/* baselines */
	int mbps_level;
	double mbps_bytes;

	/* accumulators */
	double bytes_ref, cpu_ref, bytes_meas, cpu_meas, lat_meas, bytes_sample, bytes_after;
	double solo_meas;	/* high priority: what it would have moved alone at the CPU it got */
	double solo_t;		/* ... the model's last solo answer (warm start) */
	double cpu_after;
	long n_meas;
	double thr_time, meas_time;	/* time throttled (MBA < 100 or a cap) after the arrival */
	double prev_mba, prev_qfrac, last_change;
	int changes, changes_meas;
};

struct plat {
	struct profile prof;
	struct wl w[MAXW];
	int nw;
	enum mode mode;
	double knob, knob2;	/* the baseline's setting (docs/eval.md) */
	double thr[NK];		/* the detector thresholds in force */
	double duration, meas_a, meas_b, ref_a, ref_b;
	double arrive, leave;	/* first low-priority start; last low-priority stop (0: none) */
	double lat[NK], lat_solo, lat_solo_n;
	double t_over, t_over_any, t_hot, t_cool, t_release;	/* -1: not seen */
	double t_cut;	/* the first throttle on a low-priority group from the arrival; -1 */
	int hot_before;		/* detector hot at some sample before the arrival */
	int state_hot;		/* the caller's view of the detector now */
	double next_mbps;
	double oracle_cap, oracle_gbps;	/* oracle: the exact cut, and what it leaves */
	int oracle_on;
	double maxres;		/* largest solver residual seen */
	/* victim series: % of solo per step (after ref_b) */
	double *st, *sp;
	long ns, cap_s, cap_p;
	/* request-level victim */
	unsigned long long rng;
	double req_size, req_rate, *rq_arr, *rq_left;	/* FIFO of (arrival, bytes left) */
	long rq_head, rq_tail, rq_cap, rq_cap_l;
	double *lat_solo_req, *lat_meas_req;
	long n_solo_req, n_meas_req, cap_req, cap_req_m;
	const char *exp, *label;
	int rep;
};

int plat_parse_wl(struct plat *P, const char *s, char *err, int errlen);
/*
 * The run's command line from argv[first]: workloads and the options both
 * programs take (--mode --knob --duration --measure --ref --exp --label
 * --rep --seed); any other "--opt value" goes to own(), which returns 0 if
 * it took it. Defaults first; 0, or -1 with err set.
 */
int plat_args(struct plat *P, int argc, char **argv, int first,
	      int (*own)(const char *opt, const char *val), char *err, int errlen);
void plat_init(struct plat *P);
/* the thresholds: the profile's, or recomputed for another threshold_drop */
void plat_thresholds(const struct profile *p, double drop, double *thr);
/*
 * One step of dt seconds ending at t; cpu_s[i]: the CPU time workload i got
 * for its work in it. Sets P->lat, each wl's bytes, want_cap, mba.
 * ext_mba[i]: the module's MBA level for tgroup modes (ignored otherwise).
 * bytes[i][k] out: traffic of kind k in the step.
 */
void plat_step(struct plat *P, double t, double dt, const double *cpu_s, const int *ext_mba,
	       double bytes[][NK]);
/* the caller applied a throttle: its text and fraction of duty */
void plat_applied(struct plat *P, int i, double t, const char *quota, double qfrac);
/* the detector's state at time t (hot or not) */
void plat_state(struct plat *P, double t, int hot);
/* one row per workload: "PREFIXexp.csv,row" lines (header first) */
void plat_summary(struct plat *P, FILE *f, const char *prefix);
/* mba_MBps (upstream update_mba_bw()): the new MBA level, or the same */
int mbps_rule(int level, double cur_mbps, double user_mbps);
/* MemGuard: the CPU share (of one CPU) a byte budget per second buys */
double memguard_share(double budget_bps, double bytes_per_cpu_s);

#endif
