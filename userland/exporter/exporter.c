// SPDX-License-Identifier: GPL-2.0
/*
 * tgroup-exporter - Prometheus metrics of a tgroup mount (docs/tgctl.md,
 * "tgroup-exporter"). HTTP by libmicrohttpd; the files are read through
 * libtgroup at every scrape (no cache, no precomputed rates).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include "tgroup.h"

#define DEFAULT_PORT 9847

static const char help[] =
	"usage: tgroup-exporter [-m MOUNT] [--listen ADDR:PORT | --once | --textfile PATH]\n"
	"Serve the tgroup mount's numbers as Prometheus metrics on /metrics.\n"
	"  -m MOUNT           the tgroup mount (default $TGROUP_MOUNT or /sys/fs/tgroup)\n"
	"  --listen ADDR:PORT address to serve on (default 127.0.0.1:9847)\n"
	"  --once             print one exposition on stdout and exit\n"
	"  --textfile PATH    write one exposition to PATH atomically (node_exporter's\n"
	"                     textfile collector; PATH must end in .prom) and exit\n";

struct buf {
	char *p;
	size_t n, cap;
	int oom;
};

static void bput(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bput(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if ((size_t)n < b->cap - b->n) {
			b->n += n;
			return;
		}
		{
			size_t cap = (b->cap + n + 1) * 2;
			char *p = realloc(b->p, cap);

			if (!p) {
				b->oom = 1;
				return;
			}
			b->p = p;
			b->cap = cap;
		}
	}
}

static const char *mount_path;

static const char *const tier[TGROUP_NR_KINDS] = { "dram", "dram", "nvm", "nvm" };
static const char *const dir[TGROUP_NR_KINDS] = { "read", "write", "read", "write" };

/* a label value: group names are [A-Za-z0-9._-] or "/", nothing to escape */

/* v / div as an exact decimal ("1.5", "0.000001") */
static void bdec(struct buf *b, uint64_t v, uint64_t div, int digits)
{
	if (v == TGROUP_MAX) {
		bput(b, "+Inf");
		return;
	}
	bput(b, "%" PRIu64 ".%0*" PRIu64, v / div, digits, v % div);
}

struct grp {
	const char *name;
	int root;
	struct tgroup_stat st;
	struct tgroup_limits lim;
	int prio;
};

static void help_type(struct buf *b, const char *name, const char *type, const char *text)
{
	bput(b, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

/* one exposition; returns 0 if the mount was read (tgroup_up 1) */
static int collect(struct buf *b)
{
	struct tgroup *tg = tgroup_open(mount_path);
	struct tgroup_interference in;
	struct grp *g = NULL;
	char **names = NULL;
	size_t n = 0, ng = 0;
	int up = 0;

	if (tg && tgroup_read_interference(tg, &in) == 0 && tgroup_list(tg, &names, &n) == 0) {
		g = calloc(n + 1, sizeof(*g));
		if (g) {
			up = 1;
			for (size_t i = 0; i <= n; i++) {
				struct grp *x = &g[ng];
				enum tgroup_priority p;

				x->root = i == 0;
				x->name = x->root ? "/" : names[i - 1];
				if (tgroup_read_stat(tg, x->root ? NULL : x->name, &x->st)) {
					if (x->root)
						up = 0;
					continue;	/* a group removed meanwhile */
				}
				if (!x->root) {
					if (tgroup_get_limits(tg, x->name, &x->lim) ||
					    tgroup_get_priority(tg, x->name, &p))
						continue;
					x->prio = p == TGROUP_PRIO_HIGH;
				}
				ng++;
			}
		}
	}
	help_type(b, "tgroup_up", "gauge", "1 if the tgroup mount could be read, else 0.");
	bput(b, "tgroup_up %d\n", up);
	if (!up)
		goto out;

	help_type(b, "tgroup_bytes_total", "counter",
		  "Bytes a group moved, per memory tier and direction, since the group was created.");
	for (size_t i = 0; i < ng; i++)
		for (int k = 0; k < TGROUP_NR_KINDS; k++)
			bput(b, "tgroup_bytes_total{group=\"%s\",tier=\"%s\",direction=\"%s\"} %" PRIu64 "\n",
			     g[i].name, tier[k], dir[k], g[i].st.bytes[k]);
	help_type(b, "tgroup_periods_total", "counter", "Regulation periods elapsed for the group.");
	for (size_t i = 0; i < ng; i++)
		bput(b, "tgroup_periods_total{group=\"%s\"} %" PRIu64 "\n", g[i].name, g[i].st.nr_periods);
	help_type(b, "tgroup_throttled_periods_total", "counter",
		  "Periods in which the group was over its CPU quota.");
	for (size_t i = 0; i < ng; i++)
		bput(b, "tgroup_throttled_periods_total{group=\"%s\"} %" PRIu64 "\n", g[i].name,
		     g[i].st.nr_throttled);
	help_type(b, "tgroup_throttled_seconds_total", "counter", "Time the group was throttled by its CPU quota.");
	for (size_t i = 0; i < ng; i++) {
		bput(b, "tgroup_throttled_seconds_total{group=\"%s\"} ", g[i].name);
		bdec(b, g[i].st.throttled_usec, 1000000, 6);
		bput(b, "\n");
	}
	help_type(b, "tgroup_mba_ratio", "gauge", "Memory bandwidth allocation level applied (1 = unthrottled).");
	for (size_t i = 0; i < ng; i++) {
		bput(b, "tgroup_mba_ratio{group=\"%s\"} ", g[i].name);
		bdec(b, g[i].st.mba_percent, 100, 2);
		bput(b, "\n");
	}
	help_type(b, "tgroup_cpu_quota_seconds", "gauge",
		  "CPU time per regulation period the group may use across all CPUs (+Inf: no quota).");
	for (size_t i = 0; i < ng; i++) {
		bput(b, "tgroup_cpu_quota_seconds{group=\"%s\"} ", g[i].name);
		bdec(b, g[i].st.cpu_quota_usec, 1000000, 6);
		bput(b, "\n");
	}
	help_type(b, "tgroup_period_seconds", "gauge", "The regulation period.");
	bput(b, "tgroup_period_seconds ");
	bdec(b, g[0].st.cpu_period_usec, 1000000, 6);
	bput(b, "\n");
	help_type(b, "tgroup_limit_bytes_per_second", "gauge",
		  "The group's bandwidth limit per tier and direction (+Inf: none).");
	for (size_t i = 0; i < ng; i++) {
		if (g[i].root)
			continue;
		for (int k = 0; k < TGROUP_NR_KINDS; k++) {
			bput(b, "tgroup_limit_bytes_per_second{group=\"%s\",tier=\"%s\",direction=\"%s\"} ",
			     g[i].name, tier[k], dir[k]);
			if (g[i].lim.bps[k] == TGROUP_MAX)
				bput(b, "+Inf\n");
			else
				bput(b, "%" PRIu64 "\n", g[i].lim.bps[k]);
		}
	}
	help_type(b, "tgroup_high_priority", "gauge", "1 if the group has priority high (never throttled by the remedial policy).");
	for (size_t i = 0; i < ng; i++)
		if (!g[i].root)
			bput(b, "tgroup_high_priority{group=\"%s\"} %d\n", g[i].name, g[i].prio);
	help_type(b, "tgroup_interference_latency_seconds", "gauge",
		  "Latest latency estimate per memory tier and direction.");
	for (int k = 0; k < TGROUP_NR_KINDS; k++) {
		bput(b, "tgroup_interference_latency_seconds{tier=\"%s\",direction=\"%s\"} ", tier[k], dir[k]);
		bdec(b, in.lat_ns[k], 1000000000, 9);
		bput(b, "\n");
	}
	help_type(b, "tgroup_interference_detected", "gauge",
		  "1 if the detector sees interference on the tier (state dram, nvm or both).");
	bput(b, "tgroup_interference_detected{tier=\"dram\"} %d\n",
	     !strcmp(in.state, "dram") || !strcmp(in.state, "both"));
	bput(b, "tgroup_interference_detected{tier=\"nvm\"} %d\n",
	     !strcmp(in.state, "nvm") || !strcmp(in.state, "both"));
out:
	free(g);
	tgroup_free_names(names);
	tgroup_close(tg);
	return up ? 0 : -1;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static enum MHD_Result serve(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			     const char *version, const char *data, size_t *size, void **ctx)
{
	struct MHD_Response *r;
	struct buf b = { 0 };
	enum MHD_Result ret;
	unsigned int code = MHD_HTTP_OK;
	const char *type = "text/plain; version=0.0.4; charset=utf-8";

	(void)cls; (void)version; (void)data; (void)size; (void)ctx;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return MHD_NO;
	if (!strcmp(url, "/metrics")) {
		pthread_mutex_lock(&lock);
		collect(&b);
		pthread_mutex_unlock(&lock);
		if (b.oom)
			code = MHD_HTTP_INTERNAL_SERVER_ERROR;
	} else if (!strcmp(url, "/")) {
		bput(&b, "<html><body><a href=\"/metrics\">tgroup metrics</a></body></html>\n");
		type = "text/html";
	} else {
		bput(&b, "not found\n");
		code = MHD_HTTP_NOT_FOUND;
	}
	r = MHD_create_response_from_buffer(b.n, b.p ? b.p : (char *)"", MHD_RESPMEM_MUST_COPY);
	free(b.p);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static volatile sig_atomic_t stop;
static void on_signal(int s) { (void)s; stop = 1; }

int main(int argc, char **argv)
{
	const char *listen = "127.0.0.1:9847", *textfile = NULL;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct MHD_Daemon *d;
	int once = 0;

	mount_path = getenv("TGROUP_MOUNT");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(help, stdout);
			return 0;
		} else if (!strcmp(argv[i], "-m") && i + 1 < argc) {
			mount_path = argv[++i];
		} else if (!strcmp(argv[i], "--listen") && i + 1 < argc) {
			listen = argv[++i];
		} else if (!strcmp(argv[i], "--textfile") && i + 1 < argc) {
			textfile = argv[++i];
		} else if (!strcmp(argv[i], "--once")) {
			once = 1;
		} else {
			fputs(help, stderr);
			return 2;
		}
	}
	if (once || textfile) {
		struct buf b = { 0 };
		int rc = collect(&b);

		if (b.oom)
			return 1;
		if (once) {
			fwrite(b.p, 1, b.n, stdout);
		} else {
			char tmp[4096];
			FILE *f;
			size_t l = strlen(textfile);

			if (l < 6 || strcmp(textfile + l - 5, ".prom")) {
				fprintf(stderr, "tgroup-exporter: --textfile must end in .prom\n");
				return 2;
			}
			snprintf(tmp, sizeof(tmp), "%s.%d.tmp", textfile, (int)getpid());
			f = fopen(tmp, "w");
			if (!f || fwrite(b.p, 1, b.n, f) != b.n || fclose(f) || rename(tmp, textfile)) {
				fprintf(stderr, "tgroup-exporter: %s: %s\n", textfile, strerror(errno));
				unlink(tmp);
				return 1;
			}
		}
		free(b.p);
		return rc ? 1 : 0;
	}
	{
		char addr[64];
		const char *colon = strrchr(listen, ':');
		char *end;
		long port;

		if (!colon || (size_t)(colon - listen) >= sizeof(addr)) {
			fprintf(stderr, "tgroup-exporter: --listen takes ADDR:PORT\n");
			return 2;
		}
		memcpy(addr, listen, colon - listen);
		addr[colon - listen] = '\0';
		port = strtol(colon + 1, &end, 10);
		if (*end || port < 1 || port > 65535 || inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
			fprintf(stderr, "tgroup-exporter: --listen takes IPv4ADDR:PORT\n");
			return 2;
		}
		sa.sin_port = htons(port);
	}
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, serve, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "tgroup-exporter: cannot listen on %s\n", listen);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "tgroup-exporter: serving %s on http://%s/metrics\n",
		mount_path ? mount_path : TGROUP_DEFAULT_MOUNT, listen);
	while (!stop)
		pause();
	MHD_stop_daemon(d);
	return 0;
}
