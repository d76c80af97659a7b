// SPDX-License-Identifier: GPL-2.0
/*
 * tgctl top - a live per-group view in a plain terminal (ANSI home/clear
 * only; works over ssh, or -b for pipes and logs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tgctl.h"

static const char help_top[] =
	"usage: tgctl top [-b] [--csv] [-d SECONDS] [-n COUNT] [-s KEY] [-w WIDTH]\n"
	"A live view per group: the four bandwidths (bytes/s), MBA %, CPU quota per\n"
	"period, throttled % (periods throttled over periods elapsed since the last\n"
	"refresh), the last action and its reason; above it the interference\n"
	"latencies and the detector state.\n"
	"The root group (tasks in no group) is the first row \"/\", a (total) row\n"
	"sums every row. Group names are printed in full.\n"
	"  -b, --batch           no screen clearing (pipes, logs)\n"
	"      --csv             batch, as CSV: a header, then per refresh one line per\n"
	"                        group with a time column (RFC 3339 UTC), exact numbers\n"
	"  -d, --delay SECONDS   refresh interval (default 1, fractions allowed)\n"
	"  -n, --iterations N    stop after N refreshes (default: until interrupted)\n"
	"  -s, --sort KEY        sort by name, dram_r, dram_w, nvm_r, nvm_w (bandwidth,\n"
	"                        highest first), throttled, mba (lowest first) or quota\n"
	"                        (default nvm_w)\n"
	"  -w, --width WIDTH     the group column's width (default: the longest name);\n"
	"                        longer names are cut with a ~ at the end\n";

struct row {
	char name[TGROUP_NAME_MAX + 1];
	struct tgroup_bandwidth bw;
	struct tgroup_stat st;
	double thr_pct;
};

struct prev {
	char name[TGROUP_NAME_MAX + 1];
	uint64_t periods, throttled;
};

static int sort_key;	/* 0 name, 1-4 bandwidth kind, 5 throttled, 6 mba, 7 quota */

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	switch (sort_key) {
	case 1: case 2: case 3: case 4:
		if (x->bw.bps[sort_key - 1] != y->bw.bps[sort_key - 1])
			return x->bw.bps[sort_key - 1] > y->bw.bps[sort_key - 1] ? -1 : 1;
		break;
	case 5:
		if (x->thr_pct != y->thr_pct)
			return x->thr_pct > y->thr_pct ? -1 : 1;
		break;
	case 6:
		if (x->st.mba_percent != y->st.mba_percent)
			return x->st.mba_percent < y->st.mba_percent ? -1 : 1;
		break;
	case 7:
		if (x->st.cpu_quota_usec != y->st.cpu_quota_usec)
			return x->st.cpu_quota_usec < y->st.cpu_quota_usec ? -1 : 1;
		break;
	}
	return strcmp(x->name, y->name);
}

/* one line of the table; a name longer than w is cut, with ~ at its end */
static void print_row(const struct row *x, int w, int total)
{
	char b[TGROUP_NR_KINDS][16], q[24], name[TGROUP_NAME_MAX + 2];

	for (int k = 0; k < TGROUP_NR_KINDS; k++)
		tgroup_format_size(x->bw.bps[k], "B", b[k], sizeof(b[k]));
	snprintf(name, sizeof(name), "%s", x->name);
	if ((int)strlen(name) > w) {
		name[w - 1] = '~';
		name[w] = '\0';
	}
	if (total) {
		printf("%-*s %9s %9s %9s %9s %4s %9s %6s\n", w, name, b[0], b[1], b[2], b[3], "-", "-", "-");
		return;
	}
	if (x->st.cpu_quota_usec == TGROUP_MAX)
		snprintf(q, sizeof(q), "max");
	else
		snprintf(q, sizeof(q), "%" PRIu64, x->st.cpu_quota_usec);
	printf("%-*s %9s %9s %9s %9s %4" PRIu64 " %9s %6.1f %-9s %s\n", w, name, b[0], b[1], b[2], b[3],
	       x->st.mba_percent, q, x->thr_pct, x->st.last_action, x->st.last_reason);
}

int tgctl_top(int argc, char **argv)
{
	static const char *const keys[] = { "name", "dram_r", "dram_w", "nvm_r", "nvm_w",
					    "throttled", "mba", "quota" };
	struct prev *prev = NULL;
	size_t nprev = 0;
	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' }, { "batch", no_argument, NULL, 'b' },
		{ "csv", no_argument, NULL, 'c' }, { "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' }, { "sort", required_argument, NULL, 's' },
		{ "width", required_argument, NULL, 'w' }, { NULL, 0, NULL, 0 },
	};
	double delay = 1.0;
	long count = -1, width = 0;
	int batch = 0, csv = 0, opt, rc = 0;
	struct tgroup *tg;
	char *end;

	sort_key = 4;
	optind = 0;
	while ((opt = getopt_long(argc, argv, "hbd:n:s:w:", lo, NULL)) != -1) {
		switch (opt) {
		case 'h':
			fputs(help_top, stdout);
			return 0;
		case 'c':
			csv = batch = 1;
			break;
		case 'w':
			errno = 0;
			width = strtol(optarg, &end, 10);
			if (errno || *end || width < 5 || width > TGROUP_NAME_MAX) {
				fprintf(stderr, "tgctl top: -w takes 5..%d\n", TGROUP_NAME_MAX);
				return 2;
			}
			break;
		case 'b':
			batch = 1;
			break;
		case 'd':
			errno = 0;
			delay = strtod(optarg, &end);
			if (errno || *end || delay < 0.05 || delay > 3600) {
				fprintf(stderr, "tgctl top: -d takes 0.05..3600 seconds\n");
				return 2;
			}
			break;
		case 'n':
			errno = 0;
			count = strtol(optarg, &end, 10);
			if (errno || *end || count < 1) {
				fprintf(stderr, "tgctl top: -n takes a count >= 1\n");
				return 2;
			}
			break;
		case 's':
			for (sort_key = 0; sort_key < 8 && strcmp(optarg, keys[sort_key]); sort_key++)
				;
			if (sort_key == 8) {
				fprintf(stderr, "tgctl top: unknown sort key \"%s\" (tgctl top --help)\n", optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "tgctl top: see tgctl top --help\n");
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "tgctl top: unexpected argument (tgctl top --help)\n");
		return 2;
	}
	tg = tgctl_open();
	if (!tg)
		return 1;
	if (csv)
		printf("time,group,dram_read_bps,dram_write_bps,nvm_read_bps,nvm_write_bps,mba_percent,"
		       "cpu_quota_usec,throttled_pct,last_action,last_reason\n");
	for (long it = 0; count < 0 || it < count; it++) {
		struct tgroup_interference in;
		struct row *rows, total = { .name = "(total)" };
		struct prev *np;
		char **names, ts[40];
		size_t n, nr = 0;
		int r, w = 7;	/* "(total)" */

		if (it) {
			struct timespec tsl = { (time_t)delay, (long)((delay - (time_t)delay) * 1e9) };

			nanosleep(&tsl, NULL);
		}
		tgctl_timestamp(ts, sizeof(ts));
		r = tgroup_read_interference(tg, &in);
		if (!r)
			r = tgroup_list(tg, &names, &n);
		if (r) {
			tgctl_err(tg, r, "top");
			rc = 1;
			break;
		}
		rows = calloc(n + 1, sizeof(*rows));
		np = calloc(n + 1, sizeof(*np));
		if (!rows || !np) {
			free(rows);
			free(np);
			tgroup_free_names(names);
			tgctl_err(tg, ENOMEM, "top");
			rc = 1;
			break;
		}
		/* the root group first ("/": tasks in no group), then the groups */
		for (size_t i = 0; i <= n; i++) {
			const char *name = i ? names[i - 1] : NULL;
			struct row *x = &rows[nr];

			/* a group removed meanwhile is left out */
			if (tgroup_read_bandwidth(tg, name, &x->bw) || tgroup_read_stat(tg, name, &x->st))
				continue;
			snprintf(x->name, sizeof(x->name), "%s", name ? name : "/");
			x->thr_pct = 0;
			for (size_t j = 0; j < nprev; j++) {
				if (strcmp(prev[j].name, x->name))
					continue;
				if (x->st.nr_periods > prev[j].periods)
					x->thr_pct = 100.0 * (x->st.nr_throttled - prev[j].throttled) /
						     (x->st.nr_periods - prev[j].periods);
				break;
			}
			snprintf(np[nr].name, sizeof(np[nr].name), "%s", x->name);
			np[nr].periods = x->st.nr_periods;
			np[nr].throttled = x->st.nr_throttled;
			for (int k = 0; k < TGROUP_NR_KINDS; k++)
				total.bw.bps[k] += x->bw.bps[k];
			if ((int)strlen(x->name) > w)
				w = strlen(x->name);
			nr++;
		}
		tgroup_free_names(names);
		free(prev);
		prev = np;
		nprev = nr;
		if (nr > 1 && !strcmp(rows[0].name, "/"))
			qsort(rows + 1, nr - 1, sizeof(*rows), cmp_row);
		if (width)
			w = width;
		if (csv) {
			for (size_t i = 0; i < nr; i++) {
				struct row *x = &rows[i];
				char q[24];

				if (x->st.cpu_quota_usec == TGROUP_MAX)
					snprintf(q, sizeof(q), "max");
				else
					snprintf(q, sizeof(q), "%" PRIu64, x->st.cpu_quota_usec);
				printf("%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%s,%.1f,%s,%s\n",
				       ts, x->name, x->bw.bps[0], x->bw.bps[1], x->bw.bps[2], x->bw.bps[3],
				       x->st.mba_percent, q, x->thr_pct, x->st.last_action, x->st.last_reason);
			}
		} else {
			if (!batch)
				fputs("\033[H\033[J", stdout);
			printf("tgroup %s  %zu groups  sort %s  lat ns: dram_r %" PRIu64 " dram_w %" PRIu64
			       " nvm_r %" PRIu64 " nvm_w %" PRIu64 "  state %s\n",
			       ts, nr ? nr - 1 : 0, keys[sort_key], in.lat_ns[TGROUP_DRAM_READ],
			       in.lat_ns[TGROUP_DRAM_WRITE], in.lat_ns[TGROUP_NVM_READ], in.lat_ns[TGROUP_NVM_WRITE],
			       in.state);
			printf("%-*s %9s %9s %9s %9s %4s %9s %6s %-9s %s\n", w, "GROUP", "DRAM_R/s", "DRAM_W/s",
			       "NVM_R/s", "NVM_W/s", "MBA%", "QUOTA_us", "THR%", "ACTION", "REASON");
			for (size_t i = 0; i < nr; i++)
				print_row(&rows[i], w, 0);
			print_row(&total, w, 1);
		}
		fflush(stdout);
		free(rows);
	}
	free(prev);
	tgroup_close(tg);
	return rc;
}
