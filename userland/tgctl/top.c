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
	"usage: tgctl top [-b] [-d SECONDS] [-n COUNT] [-s KEY]\n"
	"A live view per group: the four bandwidths (bytes/s), MBA %, CPU quota per\n"
	"period, throttled % (periods throttled over periods elapsed since the last\n"
	"refresh), the last action and its reason; above it the interference\n"
	"latencies and the detector state.\n"
	"  -b          batch: no screen clearing (pipes, logs)\n"
	"  -d SECONDS  refresh interval (default 1, fractions allowed)\n"
	"  -n COUNT    stop after COUNT refreshes (default: until interrupted)\n"
	"  -s KEY      sort by name, dram_r, dram_w, nvm_r, nvm_w (bandwidth, highest\n"
	"              first), throttled, mba (lowest first) or quota (default nvm_w)\n";

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

int tgctl_top(int argc, char **argv)
{
	static const char *const keys[] = { "name", "dram_r", "dram_w", "nvm_r", "nvm_w",
					    "throttled", "mba", "quota" };
	struct prev *prev = NULL;
	size_t nprev = 0;
	double delay = 1.0;
	long count = -1;
	int batch = 0, opt, rc = 0;
	struct tgroup *tg;
	char *end;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(help_top, stdout);
			return 0;
		}
	sort_key = 4;
	optind = 1;
	while ((opt = getopt(argc, argv, "bd:n:s:")) != -1) {
		switch (opt) {
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
	for (long it = 0; count < 0 || it < count; it++) {
		struct tgroup_interference in;
		struct row *rows;
		struct prev *np;
		char **names, b[4][16], q[24], t[32];
		size_t n, nr = 0;
		time_t now = time(NULL);
		int r;

		if (it) {
			struct timespec ts = { (time_t)delay, (long)((delay - (time_t)delay) * 1e9) };

			nanosleep(&ts, NULL);
		}
		r = tgroup_read_interference(tg, &in);
		if (!r)
			r = tgroup_list(tg, &names, &n);
		if (r) {
			tgctl_err(tg, r, "top");
			rc = 1;
			break;
		}
		rows = calloc(n ? n : 1, sizeof(*rows));
		np = calloc(n ? n : 1, sizeof(*np));
		if (!rows || !np) {
			free(rows);
			free(np);
			tgroup_free_names(names);
			tgctl_err(tg, ENOMEM, "top");
			rc = 1;
			break;
		}
		for (size_t i = 0; i < n; i++) {
			struct row *w = &rows[nr];

			/* a group removed meanwhile is left out */
			if (tgroup_read_bandwidth(tg, names[i], &w->bw) || tgroup_read_stat(tg, names[i], &w->st))
				continue;
			snprintf(w->name, sizeof(w->name), "%s", names[i]);
			w->thr_pct = 0;
			for (size_t j = 0; j < nprev; j++) {
				if (strcmp(prev[j].name, w->name))
					continue;
				if (w->st.nr_periods > prev[j].periods)
					w->thr_pct = 100.0 * (w->st.nr_throttled - prev[j].throttled) /
						     (w->st.nr_periods - prev[j].periods);
				break;
			}
			snprintf(np[nr].name, sizeof(np[nr].name), "%s", w->name);
			np[nr].periods = w->st.nr_periods;
			np[nr].throttled = w->st.nr_throttled;
			nr++;
		}
		tgroup_free_names(names);
		free(prev);
		prev = np;
		nprev = nr;
		qsort(rows, nr, sizeof(*rows), cmp_row);

		if (!batch)
			fputs("\033[H\033[J", stdout);
		strftime(t, sizeof(t), "%H:%M:%S", localtime(&now));
		printf("tgroup %s  %zu groups  sort %s  lat ns: dram_r %" PRIu64 " dram_w %" PRIu64
		       " nvm_r %" PRIu64 " nvm_w %" PRIu64 "  state %s\n",
		       t, nr, keys[sort_key], in.lat_ns[TGROUP_DRAM_READ], in.lat_ns[TGROUP_DRAM_WRITE],
		       in.lat_ns[TGROUP_NVM_READ], in.lat_ns[TGROUP_NVM_WRITE], in.state);
		printf("%-20s %9s %9s %9s %9s %4s %9s %6s %-9s %s\n", "GROUP", "DRAM_R/s", "DRAM_W/s",
		       "NVM_R/s", "NVM_W/s", "MBA%", "QUOTA_us", "THR%", "ACTION", "REASON");
		for (size_t i = 0; i < nr; i++) {
			struct row *w = &rows[i];

			for (int k = 0; k < TGROUP_NR_KINDS; k++)
				tgroup_format_size(w->bw.bps[k], "B", b[k], sizeof(b[k]));
			if (w->st.cpu_quota_usec == TGROUP_MAX)
				snprintf(q, sizeof(q), "max");
			else
				snprintf(q, sizeof(q), "%" PRIu64, w->st.cpu_quota_usec);
			printf("%-20.20s %9s %9s %9s %9s %4" PRIu64 " %9s %6.1f %-9s %s\n", w->name, b[0], b[1],
			       b[2], b[3], w->st.mba_percent, q, w->thr_pct, w->st.last_action, w->st.last_reason);
		}
		fflush(stdout);
		free(rows);
	}
	free(prev);
	tgroup_close(tg);
	return rc;
}
