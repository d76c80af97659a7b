// SPDX-License-Identifier: GPL-2.0
/*
 * What every tgctl command shares: the mount, error lines, the module's
 * source/actuator states and resctrl's presence (docs/tgctl.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tgctl.h"

static const char *mount_path;

void tgctl_set_mount(const char *path)
{
	mount_path = path;
}

const char *tgctl_mount(void)
{
	return mount_path;
}

void tgctl_err(struct tgroup *tg, int err, const char *fmt, ...)
{
	va_list ap;

	if (err < 0)
		err = -err;
	fprintf(stderr, "tgctl: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s (%s)", strerror(err), strerrorname_np(err) ? strerrorname_np(err) : "?");
	if (tg && tgroup_last_status(tg)[0])
		fprintf(stderr, ": %s", tgroup_last_status(tg));
	else if (err == EPERM)
		fprintf(stderr, " (the module asks for CAP_SYS_ADMIN here: run as root)");
	fputc('\n', stderr);
}

struct tgroup *tgctl_open(void)
{
	struct tgroup *tg = tgroup_open(mount_path);

	if (!tg) {
		int e = errno;

		fprintf(stderr, "tgctl: %s: %s (%s)%s\n", mount_path ? mount_path : TGROUP_DEFAULT_MOUNT,
			strerror(e), strerrorname_np(e) ? strerrorname_np(e) : "?",
			e == ENODEV || e == ENOENT ? " (is tgroup.ko loaded and the filesystem mounted? "
			"mount -t tgroup tgroup /sys/fs/tgroup)" : "");
	}
	return tg;
}

/* the value of "key=value" lines, or NULL */
static const char *line_value(const char *text, const char *key, char *buf, size_t size)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			const char *v = p + kl + 1, *e = strchrnul(v, '\n');

			snprintf(buf, size, "%.*s", (int)(e - v), v);
			return buf;
		}
	}
	return NULL;
}

int tgctl_read_states(struct tgroup *tg, struct tgctl_states *s)
{
	char *text, *p;
	int r;

	memset(s, 0, sizeof(*s));
	r = tgroup_read_file(tg, NULL, "tgroup.config", &text);
	if (r)
		return r;
	for (p = text; *p; p = strchrnul(p, '\n'), p += !!*p) {
		const char *eq = strchr(p, '='), *nl = strchrnul(p, '\n');
		int act = !strncmp(p, "actuator_", 9);

		if (!eq || eq > nl || s->n >= TGCTL_MAX_PLUGINS || (strncmp(p, "source_", 7) && !act))
			continue;
		s->p[s->n].actuator = act;
		snprintf(s->p[s->n].name, sizeof(s->p[s->n].name), "%.*s", (int)(eq - p - (act ? 9 : 7)),
			 p + (act ? 9 : 7));
		snprintf(s->p[s->n].state, sizeof(s->p[s->n].state), "%.*s", (int)(nl - eq - 1), eq + 1);
		s->n++;
	}
	{
		char v[32];

		s->max_groups = line_value(text, "max_groups", v, sizeof(v)) ? strtoull(v, NULL, 10) : 0;
	}
	free(text);
	return 0;
}

int tgctl_state_up(const struct tgctl_plugin_state *p)
{
	return !strncmp(p->state, "active", 6) || (p->actuator && !strncmp(p->state, "published", 9));
}

int tgctl_resctrl_mount(const char *mountinfo, char *where, size_t size)
{
	const char *env = getenv("TGROUP_MOUNTINFO");
	FILE *f = fopen(mountinfo ? mountinfo : env && *env ? env : "/proc/self/mountinfo", "r");
	char line[4096];
	int found = 0;

	if (!f)
		return -errno;
	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER" */
	while (!found && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - "), mp[1024];

		if (!dash || strncmp(dash + 3, "resctrl ", 8))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %1023s", mp) == 1) {
			snprintf(where, size, "%s", mp);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

void tgctl_timestamp(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;
	char t[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%03dZ", t, (int)(ts.tv_nsec / 1000000) % 1000);
}
