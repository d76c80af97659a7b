// SPDX-License-Identifier: GPL-2.0
/* plat.c - the platform step, baselines, oracle and run statistics (plat.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plat.h"

const char *const mode_name[M_NMODES] = { "none", "static", "mbps", "memguard", "memguard-rw",
					  "tgroup", "tgroup-othr", "oracle" };

/*
 * Latency follows traffic with this time constant: a workload runs in bursts
 * (its duty of every 2 ms window, seen in 2 ms steps), which a real
 * memory-bound thread would spread; smoothing over a few windows keeps that
 * artifact out of the latency the detector sees.
 */
#define TAU_S 0.050
#define BACK_PCT 95.0	/* "back within 5 % of solo" */
#define BACK_S 1.0	/* ... the mean over the next second */
#define REQ_MS 1.0	/* a request: this much of the victim's solo work at full CPU */

int mode_parse(const char *s)
{
	int m;

	for (m = 0; m < M_NMODES; m++)
		if (!strcmp(s, mode_name[m]))
			return m;
	return -1;
}

int plat_parse_wl(struct plat *P, const char *s, char *err, int errlen)
{
	char buf[256], *f[12], *save = NULL, *t;
	struct wl *w = &P->w[P->nw];
	int n = 0, i;

	if (P->nw >= MAXW) {
		snprintf(err, errlen, "too many workloads (%d)", MAXW);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (t = strtok_r(buf, ":", &save); t && n < 12; t = strtok_r(NULL, ":", &save))
		f[n++] = t;
	if (n < 6) {
		snprintf(err, errlen, "workload '%s': NAME:KIND:THREADS:PRIO:START:STOP[:key=value...]", s);
		return -1;
	}
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", f[0]);
	w->kind = kind_parse(f[1]);
	w->threads = atof(f[2]);
	w->high = !strcmp(f[3], "high");
	w->start = atof(f[4]);
	w->stop = atof(f[5]);
	w->duty = P->prof.duty;
	w->memfrac = 1;
	if (w->kind < 0 || w->threads <= 0 || (!w->high && strcmp(f[3], "low"))) {
		snprintf(err, errlen, "workload '%s': bad kind, threads or priority", s);
		return -1;
	}
	for (i = 6; i < n; i++) {
		char *v = strchr(f[i], '=');

		if (!v)
			goto bad;
		*v++ = 0;
		if (!strcmp(f[i], "duty"))
			w->duty = atof(v);
		else if (!strcmp(f[i], "mem"))
			w->memfrac = atof(v);
		else if (!strcmp(f[i], "onoff"))
			w->onoff = atof(v);
		else if (!strcmp(f[i], "req"))
			w->req_util = atof(v);
		else if (!strcmp(f[i], "lim")) {
			snprintf(w->limit, sizeof(w->limit), "%s", v);
			for (t = w->limit; *t; t++)
				if (*t == ',')
					*t = ' ';
		} else
			goto bad;
	}
	if (w->duty <= 0 || w->duty > 1 || w->memfrac <= 0 || w->memfrac > 1 || w->onoff < 0 ||
	    w->req_util < 0 || w->req_util >= 1)
		goto bad;
	P->nw++;
	return 0;
bad:
	snprintf(err, errlen, "workload '%s': options duty=0..1 mem=0..1 onoff=S req=0..1 lim=LIMIT", s);
	return -1;
}

static int range(const char *s, double *a, double *b)
{
	return sscanf(s, "%lf:%lf", a, b) == 2 && *b > *a ? 0 : -1;
}

int plat_args(struct plat *P, int argc, char **argv, int first,
	      int (*own)(const char *opt, const char *val), char *err, int errlen)
{
	int i;

	P->exp = "run";
	P->label = "";
	P->mode = M_TGROUP;
	P->duration = 10;
	P->meas_a = 2;
	P->meas_b = 10;
	P->ref_a = P->ref_b = -1;
	for (i = first; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;

		if (a[0] != '-') {
			if (plat_parse_wl(P, a, err, errlen))
				return -1;
			continue;
		}
		if (!v) {
			snprintf(err, errlen, "%s needs a value", a);
			return -1;
		}
		i++;
		if (!strcmp(a, "--mode")) {
			int m = mode_parse(v);

			bad = m < 0;
			if (!bad)
				P->mode = m;
		} else if (!strcmp(a, "--knob"))
			bad = sscanf(v, "%lf/%lf", &P->knob, &P->knob2) < 1;
		else if (!strcmp(a, "--duration"))
			bad = (P->duration = atof(v)) <= 0;
		else if (!strcmp(a, "--measure"))
			bad = range(v, &P->meas_a, &P->meas_b);
		else if (!strcmp(a, "--ref"))
			bad = range(v, &P->ref_a, &P->ref_b);
		else if (!strcmp(a, "--exp"))
			P->exp = v;
		else if (!strcmp(a, "--label"))
			P->label = v;
		else if (!strcmp(a, "--rep"))
			P->rep = atoi(v);
		else if (!strcmp(a, "--seed"))
			P->rng = strtoull(v, NULL, 0);
		else
			bad = !own || own(a, v);
		if (bad) {
			snprintf(err, errlen, "bad option %s %s (modes: none static mbps memguard memguard-rw tgroup tgroup-othr oracle; ranges A:B)",
				 a, v);
			return -1;
		}
	}
	if (!P->nw) {
		snprintf(err, errlen, "no workload");
		return -1;
	}
	if ((P->mode == M_STATIC || P->mode == M_MBPS || P->mode == M_MEMGUARD || P->mode == M_MEMGUARD_RW) &&
	    P->knob <= 0) {
		snprintf(err, errlen, "mode %s needs --knob", mode_name[P->mode]);
		return -1;
	}
	if (P->mode == M_MEMGUARD_RW && P->knob2 <= 0) {
		snprintf(err, errlen, "memguard-rw: --knob READ/WRITE (GB/s)");
		return -1;
	}
	return 0;
}

void plat_thresholds(const struct profile *p, double drop, double *thr)
{
	int k;

	for (k = 0; k < NK; k++) {
		double lat;

		if (drop <= 0) {
			thr[k] = p->thr_ns[k];
			continue;
		}
		/* MT²: the latency at which a solo task has lost `drop` of its
		 * throughput, on the platform as it runs (calib_cpu) */
		model_solo_at(p, k, 1, p->calib_cpu, &lat);
		thr[k] = lat / (1 - drop);
	}
}

static double *grow(double *a, long *cap, long need)
{
	if (need <= *cap)
		return a;
	*cap = need * 2 + 1024;
	a = realloc(a, *cap * sizeof(*a));
	if (!a) {
		fprintf(stderr, "plat: out of memory\n");
		exit(1);
	}
	return a;
}

void plat_init(struct plat *P)
{
	int i;

	P->arrive = P->leave = 0;
	for (i = 0; i < P->nw; i++) {
		struct wl *w = &P->w[i];

		w->mbps_level = 100;
		w->mba = w->prev_mba = 100;
		w->want_cap = 1;
		w->qfrac = w->prev_qfrac = 1;
		w->last_t = -1;
		w->last_change = -1;
		snprintf(w->quota, sizeof(w->quota), "max");
		if (!w->high && (P->arrive == 0 || w->start < P->arrive))
			P->arrive = w->start;
		if (!w->high && w->stop > P->leave)
			P->leave = w->stop;
	}
	for (i = 0; i < NK; i++)
		P->lat[i] = P->prof.lat0[i];
	P->t_over = P->t_over_any = P->t_hot = P->t_cool = P->t_release = P->t_cut = -1;
	P->next_mbps = 1;
	if (!P->rng)
		P->rng = 0x9e3779b97f4a7c15ull;
	if (P->w[0].req_util > 0) {
		struct mload l = { .kind = P->w[0].kind, .threads = P->w[0].threads, .cpu = 1, .mba = 100,
				   .memfrac = P->w[0].memfrac };
		double x[NK];

		model_solve(&P->prof, &l, 1, x);
		P->req_size = l.t * 1e9 * REQ_MS / 1e3;
		P->req_rate = P->w[0].req_util * 1e3 / REQ_MS;
	}
}

/* ---- baselines --------------------------------------------------------------- */

/*
 * resctrl's MBA software controller (mount option mba_MBps), as upstream
 * has it: update_mba_bw(), the same rule in Linux 6.12 (read in Debian's
 * linux-source-6.12 6.12.117: arch/x86/kernel/cpu/resctrl/monitor.c) and in
 * fs/resctrl/monitor.c after the fs/arch split (torvalds/linux commit
 * 09f37134464c); "x86/resctrl: Implement new mba_MBps throttling heuristic"
 * (2024, in stable 6.1.83 too) replaced 6.1.0's delta_bw rule. Once a
 * second per control group, from its MBM bandwidth of the last second
 * (cur_bw, MBps) and the schemata's MB value (user_bw):
 *   MBA > min_bw and user_bw < cur_bw                          -> one step down
 *   MBA < 100 and user_bw > cur_bw * (MBA + min_bw) / MBA      -> one step up
 * (upstream: "avoid thrashing up and down on every poll by checking whether
 * a decrease in throttling is likely to push the group back over target";
 * it uses min_bw, not bw_gran, in that check). min_bw = bw_gran = 10 here.
 */
int mbps_rule(int level, double cur_mbps, double user_mbps)
{
	const int min_bw = 10, gran = 10;

	if (level > min_bw && user_mbps < cur_mbps)
		return level - gran;
	if (level < 100 && user_mbps > cur_mbps * (level + min_bw) / level)
		return level + gran;
	return level;
}

/*
 * MemGuard (Yun et al., RTAS 2013): a budget of memory traffic per 1 ms
 * regulation period; once spent, the core (here: the group) is throttled to
 * the period's end. In CPU terms: the budget buys budget / (bytes per
 * CPU-second) of one CPU.
 */
double memguard_share(double budget_bps, double bytes_per_cpu_s)
{
	return bytes_per_cpu_s > 0 ? budget_bps / bytes_per_cpu_s : 1e9;
}

/* ---- the step ----------------------------------------------------------------- */

static double urand(struct plat *P)
{
	unsigned long long z = (P->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return ((z ^ (z >> 31)) >> 11) / (double)(1ull << 53);
}

static int poisson(struct plat *P, double mean)
{
	double l = exp(-mean), p = 1;
	int k = 0;

	do {
		k++;
		p *= urand(P);
	} while (p > l && k < 1000);
	return k - 1;
}

static void req_record(struct plat *P, double arr, double done)
{
	double us = (done - arr) * 1e6;

	if (arr >= P->ref_a && arr < P->arrive) {
		P->lat_solo_req = grow(P->lat_solo_req, &P->cap_req, P->n_solo_req + 1);
		P->lat_solo_req[P->n_solo_req++] = us;
	} else if (arr >= P->meas_a && arr < P->meas_b) {
		P->lat_meas_req = grow(P->lat_meas_req, &P->cap_req_m, P->n_meas_req + 1);
		P->lat_meas_req[P->n_meas_req++] = us;
	}
}

/* the request-level victim: arrivals in (t - dt, t], served FIFO from its bytes */
static void requests(struct plat *P, double t, double dt, double bytes)
{
	int i, n = poisson(P, P->req_rate * dt);
	double used = 0;

	for (i = 0; i < n; i++) {
		long need = P->rq_tail + 1;

		P->rq_arr = grow(P->rq_arr, &P->rq_cap, need);
		P->rq_left = grow(P->rq_left, &P->rq_cap_l, need);
		P->rq_arr[P->rq_tail] = t - dt * urand(P);
		P->rq_left[P->rq_tail++] = P->req_size;
	}
	while (P->rq_head < P->rq_tail && bytes > 0) {
		double *left = &P->rq_left[P->rq_head];
		double take = *left < bytes ? *left : bytes;

		*left -= take;
		bytes -= take;
		used += take;
		if (*left <= 0) {
			double done = t - dt + dt * (bytes > 0 ? used / (used + bytes) : 1);

			if (done < P->rq_arr[P->rq_head])
				done = P->rq_arr[P->rq_head];
			req_record(P, P->rq_arr[P->rq_head], done);
			P->rq_head++;
		}
	}
}

/*
 * Bytes per CPU-second a workload would move alone at CPU share c: the
 * reference of "% of solo". A workload's own traffic is part of its latency,
 * so its solo rate depends on the CPU it gets; comparing with the model's
 * solo at the share it got this step keeps the guest's CPU noise (the share
 * alone at the start of the run and beside the neighbour differ by up to
 * 40 points on a busy host) out of the victim's figure.
 */
static double solo_rate(const struct plat *P, struct wl *w, double c)
{
	struct mload l = { .kind = w->kind, .threads = w->threads, .cpu = c > 0.01 ? c : 0.01,
			   .mba = 100, .memfrac = w->memfrac, .t = w->solo_t };
	double x[NK];

	model_solve_warm(&P->prof, &l, 1, x, 60);
	w->solo_t = l.t;
	return l.t * 1e9 / (l.cpu * w->duty);
}

static int is_throttled(const struct wl *w)
{
	return w->mba < 100 || w->qfrac < 1;
}

void plat_step(struct plat *P, double t, double dt, const double *cpu_s, const int *ext_mba,
	       double bytes[][NK])
{
	const struct profile *p = &P->prof;
	struct mload ml[MAXW];
	double x[NK], a = 1 - exp(-dt / TAU_S), res;
	int i, k, n = 0, idx[MAXW], vk = P->w[0].kind;

	for (i = 0; i < P->nw; i++) {
		struct wl *w = &P->w[i];

		for (k = 0; k < NK; k++)
			bytes[i][k] = 0;
		if (w->state != 1)
			continue;
		w->cpu += (cpu_s[i] / dt / w->duty - w->cpu) * a;
		switch (P->mode) {
		case M_TGROUP:
		case M_TGROUP_OTHR:
			w->mba = ext_mba[i];
			break;
		case M_STATIC:
			w->mba = w->high ? 100 : P->knob;
			break;
		case M_MBPS:
			w->mba = w->high ? 100 : w->mbps_level;
			break;
		default:
			w->mba = 100;
		}
		ml[n] = (struct mload){ .kind = w->kind, .threads = w->threads, .cpu = w->cpu,
					.mba = w->mba, .memfrac = w->memfrac, .t = w->last_t };
		idx[n++] = i;
	}
	res = model_solve_warm(p, ml, n, x, 60);
	if (res > P->maxres)
		P->maxres = res;
	for (k = 0; k < NK; k++)
		P->lat[k] = p->lat0[k] * x[k];
	for (i = 0; i < n; i++) {
		struct wl *w = &P->w[idx[i]];
		double b;

		w->last_t = ml[i].t;
		/* bytes per CPU-second it moves while it runs */
		w->rate_cpu = model_rate(p, &ml[i], x[w->kind]) * 1e9 / w->duty;
		b = cpu_s[idx[i]] * w->rate_cpu;
		bytes[idx[i]][w->kind] = b;
		w->bytes_sample += b;
		w->mbps_bytes += b;
		if (w->high) {
			double sr = solo_rate(P, w, w->cpu);

			if (t >= P->meas_a && t < P->meas_b)
				w->solo_meas += cpu_s[idx[i]] * sr;
			if (idx[i] == 0) {	/* the victim's series */
				P->st = grow(P->st, &P->cap_s, P->ns + 1);
				P->sp = grow(P->sp, &P->cap_p, P->ns + 1);
				P->st[P->ns] = t;
				P->sp[P->ns++] = 100 * w->rate_cpu / sr;
			}
		}
		if (t >= P->meas_a && t < P->meas_b) {
			w->cpu_meas += cpu_s[idx[i]];
			w->bytes_meas += b;
			w->lat_meas += P->lat[w->kind];
			w->n_meas++;
		}
		if (t >= P->ref_a && t < P->ref_b) {
			w->bytes_ref += b;
			w->cpu_ref += cpu_s[idx[i]];
		}
		if (P->arrive > 0 && t >= P->arrive) {
			w->bytes_after += b;
			w->cpu_after += cpu_s[idx[i]];
			w->meas_time += dt;
			if (is_throttled(w))
				w->thr_time += dt;
		}
		if (P->mode == M_MEMGUARD && !w->high)
			w->want_cap = memguard_share(P->knob * 1e9, w->rate_cpu) / w->duty;
		if (P->mode == M_MEMGUARD_RW && !w->high)
			w->want_cap = memguard_share((w->kind == K_DR || w->kind == K_NR ? P->knob : P->knob2) * 1e9,
						     w->rate_cpu) / w->duty;
	}
	/* the victim: its solo latency (tgroup-othr's threshold) */
	if (P->w[0].state == 1) {
		struct wl *v = &P->w[0];

		if (t >= P->ref_a && t < P->ref_b) {
			P->lat_solo += P->lat[vk];
			P->lat_solo_n++;
		}
		if (P->req_rate > 0 && t >= P->ref_a / 2)
			requests(P, t, dt, bytes[0][v->kind]);
	}
	/* the victim's kind over its threshold (the oracle's trigger); any kind
	 * over its threshold (what the module's detector reacts to) */
	if (P->arrive > 0 && t >= P->arrive && P->t_over < 0 && P->lat[vk] > P->thr[vk])
		P->t_over = t;
	for (k = 0; k < NK && P->arrive > 0 && t >= P->arrive && P->t_over_any < 0; k++)
		if (P->lat[k] > P->thr[k])
			P->t_over_any = t;
	if (P->mode == M_MBPS && t >= P->next_mbps) {
		P->next_mbps += 1;
		for (i = 0; i < P->nw; i++) {
			struct wl *w = &P->w[i];

			if (!w->high && w->state == 1)
				w->mbps_level = mbps_rule(w->mbps_level, w->mbps_bytes / 1e6, P->knob * 1e3);
			w->mbps_bytes = 0;
		}
	}
	/*
	 * The oracle: one exact cut at the first step over the threshold. It
	 * knows the model and the CPU share every load gets in this run on
	 * average (w->share: tgsim's per-run draw, so the yardstick holds the
	 * victim's mean latency at the fixed threshold on every CPU-noise seed,
	 * neither over it nor under it; calib_cpu where the run has no draw:
	 * the guest, tgsim --cpu-seed 0. Not the smoothed share at this step:
	 * the neighbour's is still ramping up, and the victim's has the host's
	 * fluctuation), and cuts the low-priority loads by the largest factor
	 * that keeps the victim's latency at its threshold: tgeval model's
	 * oracle.V.N for a pair. Computed in every mode (make demo shows the
	 * neighbours' share of it), applied in the oracle's only.
	 */
	if (!P->oracle_on && P->t_over >= 0) {
		struct mload l[MAXW];
		int low[MAXW];

		for (i = 0; i < n; i++) {
			l[i] = ml[i];
			low[i] = !P->w[idx[i]].high;
			l[i].cpu = P->w[idx[i]].share > 0 ? P->w[idx[i]].share : p->calib_cpu;
		}
		P->oracle_cap = model_oracle(p, l, n, low, vk, P->thr[vk], &P->oracle_gbps);
		P->oracle_on = 1;
		for (i = 0; i < n && P->mode == M_ORACLE; i++)
			if (low[i])
				P->w[idx[i]].want_cap = P->oracle_cap * l[i].cpu;
	}
}

void plat_applied(struct plat *P, int i, double t, const char *quota, double qfrac)
{
	struct wl *w = &P->w[i];
	int j, all = 1;

	if (quota != w->quota)	/* the guest passes the module's own text */
		snprintf(w->quota, sizeof(w->quota), "%s", quota);
	w->qfrac = qfrac;
	if (w->mba != w->prev_mba || fabs(w->qfrac - w->prev_qfrac) > 1e-9) {
		if (P->arrive > 0 && t >= P->arrive) {
			w->changes++;
			if (t >= P->meas_a && t < P->meas_b)
				w->changes_meas++;
		}
		w->last_change = t;
		w->prev_mba = w->mba;
		w->prev_qfrac = w->qfrac;
	}
	if (P->arrive > 0 && t >= P->arrive && P->t_cut < 0 && !w->high && is_throttled(w))
		P->t_cut = t;
	if (P->leave > 0 && t >= P->leave && P->t_release < 0) {
		for (j = 0; j < P->nw; j++)
			if (!P->w[j].high && is_throttled(&P->w[j]))
				all = 0;
		if (all)
			P->t_release = t;
	}
}

void plat_state(struct plat *P, double t, int hot)
{
	P->state_hot = hot;
	if (hot && P->arrive > 0 && t < P->arrive)
		P->hot_before = 1;
	if (hot && P->arrive > 0 && t >= P->arrive && P->t_hot < 0)
		P->t_hot = t;
	if (!hot && P->leave > 0 && t >= P->leave && P->t_cool < 0)
		P->t_cool = t;
}

/* ---- statistics ------------------------------------------------------------- */

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pctile(double *v, long n, double q)
{
	long i;

	if (n <= 0)
		return -1;
	qsort(v, n, sizeof(*v), dcmp);
	i = (long)ceil(q * n) - 1;
	return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/*
 * The transient, from the victim's % of solo per step after the arrival:
 * back = the first time from which the mean over the next BACK_S is >=
 * BACK_PCT (0 if it never fell under it; -1 never back); loss = the area
 * under 100 % from the arrival to the steady-state window, %·s.
 */
static void transient(const struct plat *P, double *back, double *loss)
{
	long i, j = 0;
	double sum = 0, tsum = 0, end = P->meas_a, prev = P->arrive;
	int fell = 0;

	*back = -1;
	*loss = 0;
	for (i = 0; i < P->ns; i++) {
		double dt;

		if (P->st[i] < P->arrive)
			continue;
		dt = P->st[i] - prev;
		prev = P->st[i];
		if (P->st[i] <= end && P->sp[i] < 100)
			*loss += (100 - P->sp[i]) * dt;
		if (P->sp[i] < BACK_PCT)
			fell = 1;
	}
	if (!fell) {
		*back = 0;
		return;
	}
	/* the window of start i: samples i+1 .. j-1 (time-weighted) */
	for (i = 0; i < P->ns; i++) {
		if (P->st[i] < P->arrive)
			continue;
		if (j < i + 1) {
			j = i + 1;
			sum = tsum = 0;
		}
		while (j < P->ns && P->st[j] <= P->st[i] + BACK_S) {
			double dt = P->st[j] - P->st[j - 1];

			sum += P->sp[j] * dt;
			tsum += dt;
			j++;
		}
		if (j >= P->ns)
			break;
		if (tsum > 0 && sum / tsum >= BACK_PCT) {
			*back = P->st[i] - P->arrive;
			return;
		}
		if (i + 1 < j) {
			double dt = P->st[i + 1] - P->st[i];

			sum -= P->sp[i + 1] * dt;
			tsum -= dt;
		}
	}
}

/* ms from `from` to t; -1 if either was not seen (detection: NAN, it can be negative) */
static double ms_after(double t, double from)
{
	return t >= 0 && from >= 0 ? 1000 * (t - from) : -1;
}

static double ms_signed(double t, double from)
{
	return t >= 0 && from >= 0 ? 1000 * (t - from) : NAN;
}

void plat_summary(struct plat *P, FILE *f, const char *prefix)
{
	double back, loss, p50s, p99s, p50, p99;
	int i;

	transient(P, &back, &loss);
	p50s = pctile(P->lat_solo_req, P->n_solo_req, 0.5);
	p99s = pctile(P->lat_solo_req, P->n_solo_req, 0.99);
	p50 = pctile(P->lat_meas_req, P->n_meas_req, 0.5);
	p99 = pctile(P->lat_meas_req, P->n_meas_req, 0.99);
	fprintf(f, "%s%s.csv,#exp,profile,mode,knob,label,rep,workload,kind,threads,prio,duty,gbps,lat_ns,pct,ref_gbps,cpu_pct,ref_cpu_pct,final_mba,final_quota,thr_frac,changes_ps,changes_meas,last_change_s,relapses,over_s,detect_ms,back_ms,loss_pct_s,cool_ms,release_ms,hot_before,oracle_gbps,oracle_cap,thr_ns,solo_lat_ns,p50_solo_us,p99_solo_us,p50_us,p99_us,n_req,maxres,pct_meas,cut_ms\n",
		prefix, P->exp);
	for (i = 0; i < P->nw; i++) {
		struct wl *w = &P->w[i];
		double win = P->meas_b - P->meas_a, a = P->meas_a, b = P->meas_b, pct = -1, pct_meas = -1;
		char knob[40];

		if (w->start > a)
			a = w->start;
		if (w->stop > 0 && w->stop < b)
			b = w->stop;
		win = b - a;
		if (w->cpu_ref > 0 && w->cpu_meas > 0)
			pct_meas = 100 * (w->bytes_meas / w->cpu_meas) / (w->bytes_ref / w->cpu_ref);
		if (w->solo_meas > 0)
			pct = 100 * w->bytes_meas / w->solo_meas;
		if (P->mode == M_MEMGUARD_RW)
			snprintf(knob, sizeof(knob), "%g/%g", P->knob, P->knob2);
		else
			snprintf(knob, sizeof(knob), "%g", P->knob);
		fprintf(f, "%s%s.csv,%s,%s,%s,%s,%s,%d,%s,%s,%g,%s,%g,%.4f,%.1f,%.2f,%.4f,%.1f,%.1f,%.0f,%s,%.3f,%.2f,%d,%.2f,%d,%.3f,%.0f,%.0f,%.1f,%.0f,%.0f,%d,%.4f,%.4f,%.0f,%.1f,%.0f,%.0f,%.0f,%.0f,%ld,%.1e,%.2f,%.0f\n",
			prefix, P->exp, P->exp, P->prof.name, mode_name[P->mode], knob, P->label, P->rep,
			w->name, kind_name[w->kind], w->threads, w->high ? "high" : "low", w->duty,
			win > 0 ? w->bytes_meas / 1e9 / win : 0, w->n_meas ? w->lat_meas / w->n_meas : 0, pct,
			P->ref_b > P->ref_a ? w->bytes_ref / 1e9 / (P->ref_b - P->ref_a) : 0,
			win > 0 ? 100 * w->cpu_meas / (w->duty * win) : 0,
			P->ref_b > P->ref_a ? 100 * w->cpu_ref / (w->duty * (P->ref_b - P->ref_a)) : 0,
			w->mba, w->quota, w->meas_time > 0 ? w->thr_time / w->meas_time : 0,
			P->arrive > 0 && P->duration > P->arrive ? w->changes / (P->duration - P->arrive) : 0,
			w->changes_meas, w->last_change, w->relapses,
			P->t_over >= 0 ? P->t_over - P->arrive : -1, ms_signed(P->t_hot, P->t_over_any),
			back >= 0 ? 1000 * back : -1, loss, ms_after(P->t_cool, P->leave),
			ms_after(P->t_release, P->leave), P->hot_before, P->oracle_gbps, P->oracle_cap,
			P->thr[P->w[0].kind], P->lat_solo_n ? P->lat_solo / P->lat_solo_n : 0,
			p50s, p99s, p50, p99, P->n_meas_req, P->maxres, pct_meas, ms_after(P->t_cut, P->arrive));
	}
}
