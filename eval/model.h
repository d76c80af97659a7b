/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - the emulated hybrid-memory platform's memory model (eval/).
 *
 * Four kinds of traffic: DRAM read, DRAM write, slow-tier (NVM or CXL) read
 * and write. A workload of kind k with n threads that got the fraction c of
 * the CPU time it wanted, at MBA level m, *demands* D = c * n * d1[k] *
 * mba[k](m) GB/s (d1: one thread's bandwidth at idle latency). It achieves
 * T = D / x[k], where x[k] = L[k] / L0[k] is the latency of its kind relative
 * to idle (a closed loop: a thread with a fixed number of outstanding misses
 * moves less data when each takes longer, Little's law). Latency rises with
 * every kind's traffic through the coupling matrix W (per GB/s):
 *
 *     x[k] = pen[k](threads of kind k) / (1 - min(sum_j W[k][j] T[j], umax))
 *
 * (an M/M/1-like queue per kind; pen models device-buffer interference
 * between concurrent writer threads, e.g. CXL nt-stores). The fixed point is
 * found by damped iteration with a residual check (model_solve returns the
 * residual left). A partly compute-bound task (memfrac m < 1: the share of
 * its time at idle latency that is memory stall) achieves D / (1 - m + m x).
 * Profiles (eval/profiles/NAME.prof) hold every
 * number; docs/eval.md compares the result with the published figures.
 */
#ifndef TG_EVAL_MODEL_H
#define TG_EVAL_MODEL_H

enum { K_DR, K_DW, K_NR, K_NW, NK };

struct profile {
	char name[64];
	char label[NK][32];	/* how the kinds are called on this platform */
	double lat0[NK];	/* idle latency, ns */
	double d1[NK];		/* GB/s per thread at idle latency */
	double w[NK][NK];	/* queue weight of kind j's traffic in kind k's queue, per GB/s */
	double pen_p[NK];	/* latency penalty per thread of the kind beyond pen_n0 */
	double pen_n0[NK];
	double umax;		/* queue utilisation cap (latency at most 1/(1-umax) x idle) */
	double mba[NK][10];	/* demand factor at MBA 10, 20, ... 100 % */
	double noisy_threads;	/* threads of a noisy neighbour in the matrix */
	double duty;		/* CPU share a workload process asks for (of one CPU) */
	double thr_drop;	/* detector threshold: latency where a solo task lost this fraction */
	double thr_ns[NK];	/* detector thresholds (make calibrate), 0 = none */
	double calib_cpu;	/* CPU share a solo task gets on the platform, for the thresholds */
};

#define MODEL_MAXL 64

struct mload {
	int kind;
	double threads;
	double cpu;		/* fraction of the CPU it wanted that it got */
	double mba;		/* MBA level, percent */
	double memfrac;		/* memory-stall share at idle latency (0 = 1: memory-bound) */
	double t;		/* out: achieved GB/s */
};

int profile_load(struct profile *p, const char *path, char *err, int errlen);
double mba_factor(const struct profile *p, int kind, double level);
/* solve the fixed point; x[NK] out (latency / idle latency); returns the
 * residual left (relative to the demand; 1e-9 asked) */
double model_solve(const struct profile *p, struct mload *l, int n, double *x);
/* the same from l[].t as a first guess, at most iters iterations, to 1e-4
 * (the guest runs under TCG, where floating point is emulated: warm starts
 * are cheap) */
double model_solve_warm(const struct profile *p, struct mload *l, int n, double *x, int iters);
/* GB/s one task moves while it gets all the CPU it wants, at latency ratio x */
double model_rate(const struct profile *p, const struct mload *l, double x);
/*
 * Oracle reference (docs/eval.md): the largest factor f in [0, 1] by which
 * the CPU of the loads with low[i] set can be scaled so that the latency of
 * kind vkind stays at or under thr_ns (with the other loads as given).
 * *gbps: what the low loads then move in total. f = 1: no cut needed.
 */
double model_oracle(const struct profile *p, const struct mload *l, int n, const int *low,
		    int vkind, double thr_ns, double *gbps);
/* a solo workload of kind k with n threads: GB/s, and its latency in ns */
double model_solo(const struct profile *p, int kind, double threads, double *lat_ns);
/* the same at a CPU share */
double model_solo_at(const struct profile *p, int kind, double threads, double cpu, double *lat_ns);
int kind_parse(const char *s);
extern const char *const kind_name[NK];

#endif
