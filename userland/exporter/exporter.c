// SPDX-License-Identifier: GPL-2.0
/*
 * tgroup-exporter - Prometheus metrics of a tgroup mount (docs/tgctl.md,
 * "tgroup-exporter"). HTTP by libmicrohttpd; the files are read through
 * libtgroup at every scrape (no cache, no precomputed rates).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <unistd.h>

#include "tgroup.h"
#include "tgctl.h"

/* as the docs say; ":PORT" is every address, IPv6 and IPv4 (dual stack) */
#define DEFAULT_LISTEN ":9847"
/*
 * Against a client that holds connections open (docs/tgctl.md,
 * "Connections"): an idle connection is closed after the timeout; one
 * address holds at most PER_IP of them, everyone together at most MAX.
 * A scraper takes one connection; PER_IP leaves room for an HA pair and
 * a few people with curl behind one NAT, and an idle attacker on a
 * scraper's own address delays it by at most the timeout.
 */
#define DEFAULT_TIMEOUT 10
#define DEFAULT_MAX_CONN 256
#define DEFAULT_PER_IP 32
#define STR_(x) #x
#define STR(x) STR_(x)

static const char help[] =
	"usage: tgroup-exporter [-m MOUNT] [--web.listen-address=[ADDR]:PORT]\n"
	"                       [--web.telemetry-path=PATH] [--web.connection-timeout=S]\n"
	"                       [--web.max-connections=N] [--web.max-connections-per-ip=N]\n"
	"                       | --once | --textfile PATH]\n"
	"Serve the tgroup mount's numbers as Prometheus metrics.\n"
	"  -m, --mount MOUNT            the tgroup mount (default $TGROUP_MOUNT or /sys/fs/tgroup)\n"
	"  --web.listen-address=ADDR    where to listen (default " DEFAULT_LISTEN ": every address,\n"
	"                               IPv6 and IPv4; 127.0.0.1:9847, [::1]:9847, [::]:9847,\n"
	"                               host:9847)\n"
	"  --web.telemetry-path=PATH    the metrics' path (default /metrics)\n"
	"  --web.connection-timeout=S   close a connection idle for S seconds (default "
	STR(DEFAULT_TIMEOUT) ", 1-3600)\n"
	"  --web.max-connections=N      connections open at once, all clients (default "
	STR(DEFAULT_MAX_CONN) ", 1-4096)\n"
	"  --web.max-connections-per-ip=N  connections open at once from one address (default "
	STR(DEFAULT_PER_IP) ",\n"
	"                               1-4096, at most --web.max-connections)\n"
	"  --once                       print one exposition on stdout and exit\n"
	"  --textfile PATH              write one exposition to PATH atomically (node_exporter's\n"
	"                               textfile collector; PATH must end in .prom) and exit\n";

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

/* a line in the log when resctrl comes or goes (and at the first look, if it is there) */
static void resctrl_log(int mounted, const char *where)
{
	static int last = -1;

	if (mounted == last || mounted < 0)
		return;
	if (mounted)
		fprintf(stderr, "tgroup-exporter: warning: resctrl is mounted at %s: it owns RDT, so tgroup's "
			"MBA actuator and MBM source are on standby until it is unmounted\n", where);
	else if (last == 1)
		fprintf(stderr, "tgroup-exporter: resctrl unmounted: tgroup's MBA and MBM resume\n");
	last = mounted;
}

/* one exposition; returns 0 if the mount was read (tgroup_up 1) */
static int collect(struct buf *b)
{
	struct tgroup *tg = tgroup_open(mount_path);
	struct tgroup_interference in;
	struct tgctl_states states;
	struct grp *g = NULL;
	char **names = NULL, where[1024];
	size_t n = 0, ng = 0;
	int up = 0, have_states = 0, rm;

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
	have_states = up && tgctl_read_states(tg, &states) == 0;
	rm = tgctl_resctrl_mount(NULL, where, sizeof(where));
	resctrl_log(rm, where);
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
	if (have_states) {
		help_type(b, "tgroup_source_up", "gauge",
			  "1 if the signal source is active (tgroup.config source_NAME; else it says why not).");
		for (int i = 0; i < states.n; i++)
			if (!states.p[i].actuator)
				bput(b, "tgroup_source_up{source=\"%s\"} %d\n", states.p[i].name,
				     tgctl_state_up(&states.p[i]));
		help_type(b, "tgroup_actuator_up", "gauge",
			  "1 if the actuator is active or published (tgroup.config actuator_NAME).");
		for (int i = 0; i < states.n; i++)
			if (states.p[i].actuator)
				bput(b, "tgroup_actuator_up{actuator=\"%s\"} %d\n", states.p[i].name,
				     tgctl_state_up(&states.p[i]));
		if (states.max_groups) {
			help_type(b, "tgroup_max_groups", "gauge", "Most child groups that may exist (module option).");
			bput(b, "tgroup_max_groups %llu\n", states.max_groups);
		}
	}
	help_type(b, "tgroup_groups", "gauge", "Child groups that exist.");
	bput(b, "tgroup_groups %zu\n", n);
	if (rm >= 0) {
		help_type(b, "tgroup_resctrl_mounted", "gauge",
			  "1 if resctrl is mounted: it owns RDT, tgroup's MBA and MBM wait (standby).");
		bput(b, "tgroup_resctrl_mounted %d\n", rm);
	}
out:
	free(g);
	tgroup_free_names(names);
	tgroup_close(tg);
	return up ? 0 : -1;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *telemetry_path = "/metrics";

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
	if (!strcmp(url, telemetry_path)) {
		pthread_mutex_lock(&lock);
		collect(&b);
		pthread_mutex_unlock(&lock);
		if (b.oom)
			code = MHD_HTTP_INTERNAL_SERVER_ERROR;
	} else if (!strcmp(url, "/")) {
		bput(&b, "<html><body><a href=\"%s\">tgroup metrics</a></body></html>\n", telemetry_path);
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

/*
 * A listening socket for [ADDR]:PORT as Prometheus exporters take it:
 * ":PORT" (or "[::]:PORT") every address, IPv6 with IPv4 mapped (dual
 * stack), IPv4 only if the host has no IPv6; "[V6]:PORT", "V4:PORT" or
 * "HOST:PORT" (the first address that binds). -1 and why on failure.
 */
static int listen_on(const char *spec, char *why, size_t wsize)
{
	const char *colon = strrchr(spec, ':');
	char host[256], port[16];
	struct addrinfo hint = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *res, *ai;
	size_t hl;
	int fd = -1, r, one = 1, zero = 0;

	if (!colon || !colon[1] || strlen(colon + 1) >= sizeof(port) || strspn(colon + 1, "0123456789") !=
	    strlen(colon + 1) || atoi(colon + 1) < 1 || atoi(colon + 1) > 65535) {
		snprintf(why, wsize, "expected [ADDR]:PORT, e.g. :9847, 127.0.0.1:9847, [::1]:9847");
		return -1;
	}
	snprintf(port, sizeof(port), "%s", colon + 1);
	hl = colon - spec;
	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']') {	/* [v6] */
		spec++;
		hl -= 2;
		hint.ai_family = AF_INET6;
	}
	if (hl >= sizeof(host)) {
		snprintf(why, wsize, "address too long");
		return -1;
	}
	memcpy(host, spec, hl);
	host[hl] = '\0';
	if (!hl || !strcmp(host, "::")) {	/* every address: dual stack */
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT,
					    .sin6_port = htons(atoi(port)) };
		struct sockaddr_in s4 = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY),
					  .sin_port = htons(atoi(port)) };

		fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0) {
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
			if (bind(fd, (struct sockaddr *)&s6, sizeof(s6)) == 0 && listen(fd, 64) == 0)
				return fd;
			close(fd);
		}
		if (hl)	/* "[::]" asked for IPv6 */
			goto fail;
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0) {
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (bind(fd, (struct sockaddr *)&s4, sizeof(s4)) == 0 && listen(fd, 64) == 0)
				return fd;
			close(fd);
		}
		goto fail;
	}
	r = getaddrinfo(host, port, &hint, &res);
	if (r) {
		snprintf(why, wsize, "%s: %s", host, gai_strerror(r));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)	/* this address only */
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 64) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd >= 0)
		return fd;
fail:
	snprintf(why, wsize, "%s", strerror(errno));
	return -1;
}

/* a decimal in [lo, hi], all of it, or -1 */
static long num_in(const char *s, long lo, long hi)
{
	char *end;
	long v;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	return v;
}

int main(int argc, char **argv)
{
	enum { O_LISTEN = 256, O_PATH, O_ONCE, O_TEXTFILE, O_TIMEOUT, O_MAXCONN, O_PERIP };
	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "mount", required_argument, NULL, 'm' },
		{ "web.listen-address", required_argument, NULL, O_LISTEN },
		{ "listen", required_argument, NULL, O_LISTEN },	/* the old name */
		{ "web.telemetry-path", required_argument, NULL, O_PATH },
		{ "once", no_argument, NULL, O_ONCE },
		{ "textfile", required_argument, NULL, O_TEXTFILE },
		{ "web.connection-timeout", required_argument, NULL, O_TIMEOUT },
		{ "web.max-connections", required_argument, NULL, O_MAXCONN },
		{ "web.max-connections-per-ip", required_argument, NULL, O_PERIP },
		{ NULL, 0, NULL, 0 },
	};
	long timeout = DEFAULT_TIMEOUT, max_conn = DEFAULT_MAX_CONN, per_ip = DEFAULT_PER_IP;
	const char *listen_spec = DEFAULT_LISTEN, *textfile = NULL;
	struct MHD_Daemon *d;
	char why[300];
	int once = 0, c, fd;

	mount_path = getenv("TGROUP_MOUNT");
	while ((c = getopt_long(argc, argv, "hm:", lo, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(help, stdout);
			return 0;
		case 'm':
			mount_path = optarg;
			break;
		case O_LISTEN:
			listen_spec = optarg;
			break;
		case O_PATH:
			if (optarg[0] != '/' || !strcmp(optarg, "/")) {
				fprintf(stderr, "tgroup-exporter: --web.telemetry-path must start with / and not be /\n");
				return 2;
			}
			telemetry_path = optarg;
			break;
		case O_ONCE:
			once = 1;
			break;
		case O_TEXTFILE:
			textfile = optarg;
			break;
		case O_TIMEOUT:
			timeout = num_in(optarg, 1, 3600);
			if (timeout < 0) {
				fprintf(stderr, "tgroup-exporter: --web.connection-timeout: expected seconds, 1 to 3600\n");
				return 2;
			}
			break;
		case O_MAXCONN:
		case O_PERIP:
			*(c == O_MAXCONN ? &max_conn : &per_ip) = num_in(optarg, 1, 4096);
			if (max_conn < 0 || per_ip < 0) {
				fprintf(stderr, "tgroup-exporter: --%s: expected a number, 1 to 4096\n",
					c == O_MAXCONN ? "web.max-connections" : "web.max-connections-per-ip");
				return 2;
			}
			break;
		default:
			fputs(help, stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fputs(help, stderr);
		return 2;
	}
	if (per_ip > max_conn) {
		fprintf(stderr, "tgroup-exporter: --web.max-connections-per-ip (%ld) is more than "
			"--web.max-connections (%ld)\n", per_ip, max_conn);
		return 2;
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
			int tfd, e = 0;

			if (l < 6 || strcmp(textfile + l - 5, ".prom")) {
				fprintf(stderr, "tgroup-exporter: --textfile must end in .prom\n");
				return 2;
			}
			/*
			 * A new file of a random name beside PATH (mkstemp:
			 * O_CREAT|O_EXCL, so a symlink or file planted under any
			 * name is never followed nor written), then renamed over
			 * PATH (which replaces a symlink at PATH, not its target).
			 * 0644 as before: node_exporter reads it as its own user.
			 */
			if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", textfile) >= sizeof(tmp)) {
				fprintf(stderr, "tgroup-exporter: --textfile: path too long\n");
				return 2;
			}
			tfd = mkstemp(tmp);
			f = tfd < 0 ? NULL : fdopen(tfd, "w");
			if (!f || fchmod(tfd, 0644) || fwrite(b.p, 1, b.n, f) != b.n)
				e = errno ? errno : EIO;
			if (f && fclose(f) && !e)
				e = errno;
			if (!f && tfd >= 0)
				close(tfd);
			if (!e && rename(tmp, textfile))
				e = errno;
			if (e) {
				fprintf(stderr, "tgroup-exporter: %s: %s\n", textfile, strerror(e));
				if (tfd >= 0)
					unlink(tmp);
				return 1;
			}
		}
		free(b.p);
		return rc ? 1 : 0;
	}
	fd = listen_on(listen_spec, why, sizeof(why));
	if (fd < 0) {
		fprintf(stderr, "tgroup-exporter: cannot listen on %s: %s\n", listen_spec, why);
		return strstr(why, "expected") ? 2 : 1;
	}
	/*
	 * epoll (MHD_USE_AUTO), not select: select cannot watch a descriptor
	 * past FD_SETSIZE (1024), which ~1,000 idle connections reached.
	 */
	d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, serve, NULL,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)timeout,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)max_conn,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)per_ip,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "tgroup-exporter: cannot serve on %s\n", listen_spec);
		close(fd);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "tgroup-exporter: serving %s on %s%s (idle timeout %lds, at most %ld connections, "
		"%ld per address)\n", mount_path ? mount_path : TGROUP_DEFAULT_MOUNT, listen_spec, telemetry_path,
		timeout, max_conn, per_ip);
	{	/* the log says at once if resctrl holds RDT */
		char where[1024];

		resctrl_log(tgctl_resctrl_mount(NULL, where, sizeof(where)), where);
	}
	while (!stop)
		pause();
	MHD_stop_daemon(d);
	return 0;
}
