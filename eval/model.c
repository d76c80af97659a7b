// SPDX-License-Identifier: GPL-2.0
/* model.c - profile parser and the fixed point of eval/model.h. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

const char *const kind_name[NK] = { "dram_read", "dram_write", "nvm_read", "nvm_write" };

int kind_parse(const char *s)
{
	int k;

	for (k = 0; k < NK; k++)
		if (!strcmp(s, kind_name[k]))
			return k;
	return -1;
}

/* exactly n numbers, nothing else */
static int nums(const char *s, double *out, int n)
{
	char *end;
	int i;

	for (i = 0; i < n; i++) {
		out[i] = strtod(s, &end);
		if (end == s || !isfinite(out[i]) || out[i] < 0)
			return -1;
		s = end;
	}
	while (isspace((unsigned char)*s))
		s++;
	return *s ? -1 : 0;
}

int profile_load(struct profile *p, const char *path, char *err, int errlen)
{
	char line[512], key[128], *eq, *v, *e;
	FILE *f = fopen(path, "r");
	int lineno = 0, k, seen = 0;

	memset(p, 0, sizeof(*p));
	for (k = 0; k < NK; k++)
		snprintf(p->label[k], sizeof(p->label[k]), "%s", kind_name[k]);
	p->umax = 0.97;
	p->duty = 0.25;
	p->noisy_threads = 2;
	p->thr_drop = 0.02;
	p->calib_cpu = 1;
	if (!f) {
		snprintf(err, errlen, "%s: cannot open", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if ((e = strchr(line, '#')))
			*e = 0;
		e = line + strlen(line);
		while (e > line && isspace((unsigned char)e[-1]))
			*--e = 0;
		v = line;
		while (isspace((unsigned char)*v))
			v++;
		if (!*v)
			continue;
		eq = strchr(v, '=');
		if (!eq)
			goto bad;
		*eq = 0;
		snprintf(key, sizeof(key), "%s", v);
		e = key + strlen(key);
		while (e > key && isspace((unsigned char)e[-1]))
			*--e = 0;
		v = eq + 1;
		while (isspace((unsigned char)*v))
			v++;
		if (!strncmp(key, "target.", 7) || !strncmp(key, "source.", 7) ||
		    !strncmp(key, "sweep.", 6) || !strcmp(key, "description"))
			continue;	/* for eval/calibrate.py and eval/sweep.py */
		if (!strcmp(key, "name")) {
			snprintf(p->name, sizeof(p->name), "%s", v);
		} else if (!strncmp(key, "label.", 6) && (k = kind_parse(key + 6)) >= 0) {
			snprintf(p->label[k], sizeof(p->label[k]), "%s", v);
		} else if (!strcmp(key, "idle_lat_ns")) {
			if (nums(v, p->lat0, NK))
				goto bad;
			seen |= 1;
		} else if (!strcmp(key, "thread_gbps")) {
			if (nums(v, p->d1, NK))
				goto bad;
			seen |= 2;
		} else if (!strncmp(key, "coupling.", 9) && (k = kind_parse(key + 9)) >= 0) {
			if (nums(v, p->w[k], NK))
				goto bad;
			seen |= 4 << k;
		} else if (!strncmp(key, "mba.", 4) && (k = kind_parse(key + 4)) >= 0) {
			if (nums(v, p->mba[k], 10))
				goto bad;
			seen |= 64 << k;
		} else if (!strcmp(key, "threshold_ns")) {
			if (nums(v, p->thr_ns, NK))
				goto bad;
		} else if (!strncmp(key, "thread_penalty.", 15) && (k = kind_parse(key + 15)) >= 0) {
			double pn[2];

			if (nums(v, pn, 2))
				goto bad;
			p->pen_p[k] = pn[0];
			p->pen_n0[k] = pn[1];
		} else {
			double d;
			double *dst = !strcmp(key, "umax") ? &p->umax :
				!strcmp(key, "duty") ? &p->duty :
				!strcmp(key, "noisy_threads") ? &p->noisy_threads :
				!strcmp(key, "threshold_drop") ? &p->thr_drop :
				!strcmp(key, "calib_cpu") ? &p->calib_cpu : NULL;

			if (!dst || nums(v, &d, 1))
				goto bad;
			*dst = d;
		}
	}
	fclose(f);
	if (seen != 1023 || p->umax >= 1 || p->duty <= 0 || p->duty > 1 ||
	    p->calib_cpu <= 0 || p->calib_cpu > 1) {
		snprintf(err, errlen, "%s: incomplete profile (idle_lat_ns, thread_gbps, coupling.* and mba.* for every kind)", path);
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "%s:%d: bad line", path, lineno);
	fclose(f);
	return -1;
}

double mba_factor(const struct profile *p, int kind, double level)
{
	double i;
	int a;

	if (level >= 100)
		return p->mba[kind][9];
	if (level <= 10)
		return p->mba[kind][0];
	i = level / 10 - 1;
	a = (int)i;
	return p->mba[kind][a] + (p->mba[kind][a + 1] - p->mba[kind][a]) * (i - a);
}

struct sys {
	const struct profile *p;
	const struct mload *l;
	int n;
	double d[MODEL_MAXL], pen[NK];
};

/* the loads' traffic T at queue utilisations u, and H(u): the utilisations that traffic makes */
static void sys_eval(const struct sys *s, const double *u, double *x, double *t, double *h)
{
	double tk[NK] = { 0 };
	int i, k, j;

	for (k = 0; k < NK; k++)
		x[k] = s->pen[k] / (1 - u[k]);
	for (i = 0; i < s->n; i++) {
		double m = s->l[i].memfrac > 0 ? s->l[i].memfrac : 1;

		/* a partly compute-bound task stalls only for its memory part */
		t[i] = s->d[i] / (1 - m + m * x[s->l[i].kind]);
		tk[s->l[i].kind] += t[i];
	}
	for (k = 0; k < NK; k++) {
		h[k] = 0;
		for (j = 0; j < NK; j++)
			h[k] += s->p->w[k][j] * tk[j];
		if (h[k] > s->p->umax)
			h[k] = s->p->umax;
	}
}

static double sys_res(const struct sys *s, const double *u, double *r)
{
	double x[NK], t[MODEL_MAXL], h[NK], m = 0;
	int k;

	sys_eval(s, u, x, t, h);
	for (k = 0; k < NK; k++) {
		r[k] = u[k] - h[k];
		if (fabs(r[k]) > m)
			m = fabs(r[k]);
	}
	return m;
}

/* J dx = b, 4x4, partial pivoting; 0 if singular */
static int lin4(double J[NK][NK], double *b, double *dx)
{
	int i, j, k, piv;

	for (k = 0; k < NK; k++) {
		piv = k;
		for (i = k + 1; i < NK; i++)
			if (fabs(J[i][k]) > fabs(J[piv][k]))
				piv = i;
		if (fabs(J[piv][k]) < 1e-14)
			return 0;
		if (piv != k) {
			double tb = b[k];

			for (j = 0; j < NK; j++) {
				double tj = J[k][j];

				J[k][j] = J[piv][j];
				J[piv][j] = tj;
			}
			b[k] = b[piv];
			b[piv] = tb;
		}
		for (i = k + 1; i < NK; i++) {
			double f = J[i][k] / J[k][k];

			for (j = k; j < NK; j++)
				J[i][j] -= f * J[k][j];
			b[i] -= f * b[k];
		}
	}
	for (k = NK - 1; k >= 0; k--) {
		dx[k] = b[k];
		for (j = k + 1; j < NK; j++)
			dx[k] -= J[k][j] * dx[j];
		dx[k] /= J[k][k];
	}
	return 1;
}

/*
 * The fixed point T[i] = D[i] / (1 - m + m x[kind i](T)). Iterating on T is
 * ill-conditioned: x rises with every kind's traffic, g is decreasing and
 * steep near saturation, and a plain or fixed-damped iteration oscillates
 * between two points (it did at 4 and 8 NVM writers with a damping of 0.3
 * and 12 iterations). Solved instead on the four queue utilisations u
 * (x = pen / (1 - u), T explicit in u, u = min(W T, umax): a smooth map)
 * by Newton's method with a numerical Jacobian and backtracking on the
 * residual (a damped step when no Newton step helps), then, if that has not
 * converged, by sweeps of exact one-coordinate solves. The
 * residual returned is the largest |g_i(T) - T_i| relative to the demand at
 * the answer (> tol: not converged).
 */
static double solve(const struct profile *p, struct mload *l, int n, double *x, int iters,
		    int warm, double tol)
{
	struct sys s = { .p = p, .l = l };
	double u[NK] = { 0 }, r[NK], t[MODEL_MAXL], h[NK], res, nth[NK] = { 0 };
	double t2[MODEL_MAXL], x2[NK], h2[NK];
	int it, i, k, j;

	if (n > MODEL_MAXL)
		n = MODEL_MAXL;
	s.n = n;
	for (i = 0; i < n; i++) {
		s.d[i] = l[i].cpu * l[i].threads * p->d1[l[i].kind] * mba_factor(p, l[i].kind, l[i].mba);
		nth[l[i].kind] += l[i].threads * (l[i].cpu < 1 ? l[i].cpu : 1);
	}
	/* threads that issue requests: throttled ones count less */
	for (k = 0; k < NK; k++)
		s.pen[k] = 1 + (nth[k] > p->pen_n0[k] ? p->pen_p[k] * (nth[k] - p->pen_n0[k]) : 0);
	if (warm) {	/* the utilisations the last answer made */
		double tk[NK] = { 0 };

		for (i = 0; i < n; i++)
			tk[l[i].kind] += l[i].t >= 0 && l[i].t <= s.d[i] ? l[i].t : s.d[i];
		for (k = 0; k < NK; k++) {
			for (j = 0; j < NK; j++)
				u[k] += p->w[k][j] * tk[j];
			if (u[k] > p->umax)
				u[k] = p->umax;
		}
	}
	res = sys_res(&s, u, r);
	for (it = 0; it < iters && res > tol * 1e-3; it++) {
		double J[NK][NK], dx[NK], b[NK], lam = 1, ut[NK], rt[NK], rr = res;

		for (j = 0; j < NK; j++) {
			double uj[NK], rj[NK], hh = 1e-7;

			memcpy(uj, u, sizeof(uj));
			if (uj[j] + hh > p->umax)
				hh = -hh;
			uj[j] += hh;
			sys_res(&s, uj, rj);
			for (k = 0; k < NK; k++)
				J[k][j] = (rj[k] - r[k]) / hh;
		}
		for (k = 0; k < NK; k++)
			b[k] = -r[k];
		if (lin4(J, b, dx)) {
			for (; lam > 1e-4; lam /= 2) {
				for (k = 0; k < NK; k++) {
					ut[k] = u[k] + lam * dx[k];
					ut[k] = ut[k] < 0 ? 0 : ut[k] > p->umax ? p->umax : ut[k];
				}
				rr = sys_res(&s, ut, rt);
				if (rr < (1 - 1e-4 * lam) * res)
					break;
			}
		}
		if (lam <= 1e-4 || rr >= res) {	/* no Newton step helps: a damped one */
			for (k = 0; k < NK; k++)
				ut[k] = u[k] - 0.1 * r[k];
			rr = sys_res(&s, ut, rt);
		}
		memcpy(u, ut, sizeof(u));
		memcpy(r, rt, sizeof(r));
		res = rr;
	}
	/*
	 * Newton stuck on a kink (a queue at its cap): sweeps of exact solves
	 * of each coordinate, u_k - H_k(u) rising in u_k (bisection)
	 */
	for (it = 0; res > tol * 1e-3 && it < 4 * iters; it++) {
		for (k = 0; k < NK; k++) {
			double lo = 0, hi = p->umax;

			for (j = 0; j < 50; j++) {
				u[k] = (lo + hi) / 2;
				sys_res(&s, u, r);
				if (r[k] > 0)
					hi = u[k];
				else
					lo = u[k];
			}
			u[k] = (lo + hi) / 2;
		}
		res = sys_res(&s, u, r);
	}
	sys_eval(&s, u, x, t, h);
	for (i = 0; i < n; i++)
		l[i].t = t[i];
	/* the residual on the traffic: g(T) against T */
	for (k = 0; k < NK; k++)
		h2[k] = h[k];
	sys_eval(&s, h2, x2, t2, h);
	res = 0;
	for (i = 0; i < n; i++)
		if (s.d[i] > 0 && fabs(t2[i] - t[i]) / s.d[i] > res)
			res = fabs(t2[i] - t[i]) / s.d[i];
	return res;
}

double model_solve(const struct profile *p, struct mload *l, int n, double *x)
{
	return solve(p, l, n, x, 100, 0, 1e-9);
}

double model_solve_warm(const struct profile *p, struct mload *l, int n, double *x, int iters)
{
	return solve(p, l, n, x, iters, 1, 1e-6);
}

double model_rate(const struct profile *p, const struct mload *l, double x)
{
	double m = l->memfrac > 0 ? l->memfrac : 1;

	return l->threads * p->d1[l->kind] * mba_factor(p, l->kind, l->mba) / (1 - m + m * x);
}

static double oracle_at(const struct profile *p, const struct mload *l, int n, const int *low,
			int vkind, double f, double *gbps)
{
	struct mload c[MODEL_MAXL];
	double x[NK], g = 0;
	int i;

	for (i = 0; i < n && i < MODEL_MAXL; i++) {
		c[i] = l[i];
		if (low[i])
			c[i].cpu *= f;
	}
	model_solve(p, c, i, x);
	for (i = 0; i < n && i < MODEL_MAXL; i++)
		if (low[i])
			g += c[i].t;
	if (gbps)
		*gbps = g;
	return x[vkind] * p->lat0[vkind];
}

double model_oracle(const struct profile *p, const struct mload *l, int n, const int *low,
		    int vkind, double thr_ns, double *gbps)
{
	double lo = 0, hi = 1;
	int it;

	if (oracle_at(p, l, n, low, vkind, 1, gbps) <= thr_ns)
		return 1;
	for (it = 0; it < 50; it++) {
		double mid = (lo + hi) / 2;

		if (oracle_at(p, l, n, low, vkind, mid, NULL) <= thr_ns)
			lo = mid;
		else
			hi = mid;
	}
	oracle_at(p, l, n, low, vkind, lo, gbps);
	return lo;
}

double model_solo_at(const struct profile *p, int kind, double threads, double cpu, double *lat_ns)
{
	struct mload l = { .kind = kind, .threads = threads, .cpu = cpu, .mba = 100 };
	double x[NK];

	model_solve(p, &l, 1, x);
	if (lat_ns)
		*lat_ns = x[kind] * p->lat0[kind];
	return l.t;
}

double model_solo(const struct profile *p, int kind, double threads, double *lat_ns)
{
	return model_solo_at(p, kind, threads, 1, lat_ns);
}
