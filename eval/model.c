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
		    !strcmp(key, "description"))
			continue;	/* for docs/eval.md (eval/calibrate.py) */
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
				!strcmp(key, "baseline.static_mba") ? &p->static_mba :
				!strcmp(key, "baseline.mbps_target_gbps") ? &p->mbps_target_gbps :
				!strcmp(key, "baseline.memguard_gbps") ? &p->memguard_gbps : NULL;

			if (!dst || nums(v, &d, 1))
				goto bad;
			*dst = d;
		}
	}
	fclose(f);
	if (seen != 1023 || p->umax >= 1 || p->duty <= 0 || p->duty > 1) {
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

static void solve(const struct profile *p, struct mload *l, int n, double *x, int iters, int warm)
{
	double tk[NK], nth[NK], d[64], u;
	int it, i, k, j;

	for (i = 0; i < n && i < 64; i++) {
		d[i] = l[i].cpu * l[i].threads * p->d1[l[i].kind] * mba_factor(p, l[i].kind, l[i].mba);
		if (!warm || l[i].t < 0 || l[i].t > d[i])
			l[i].t = d[i];
	}
	for (k = 0; k < NK; k++) {
		nth[k] = 0;
		x[k] = 1;
	}
	for (i = 0; i < n; i++)	/* threads that issue requests: throttled ones count less */
		nth[l[i].kind] += l[i].threads * (l[i].cpu < 1 ? l[i].cpu : 1);
	for (it = 0; it < iters; it++) {
		for (k = 0; k < NK; k++)
			tk[k] = 0;
		for (i = 0; i < n; i++)
			tk[l[i].kind] += l[i].t;
		for (k = 0; k < NK; k++) {
			double pen = 1;

			u = 0;
			for (j = 0; j < NK; j++)
				u += p->w[k][j] * tk[j];
			if (u > p->umax)
				u = p->umax;
			if (nth[k] > p->pen_n0[k])
				pen += p->pen_p[k] * (nth[k] - p->pen_n0[k]);
			x[k] = pen / (1 - u);
		}
		for (i = 0; i < n; i++)
			l[i].t = 0.7 * l[i].t + 0.3 * d[i] / x[l[i].kind];
	}
}

void model_solve(const struct profile *p, struct mload *l, int n, double *x)
{
	solve(p, l, n, x, 300, 0);
}

void model_solve_warm(const struct profile *p, struct mload *l, int n, double *x, int iters)
{
	solve(p, l, n, x, iters, 1);
}

double model_solo(const struct profile *p, int kind, double threads, double *lat_ns)
{
	struct mload l = { .kind = kind, .threads = threads, .cpu = 1, .mba = 100 };
	double x[NK];

	model_solve(p, &l, 1, x);
	if (lat_ns)
		*lat_ns = x[kind] * p->lat0[kind];
	return l.t;
}
