// SPDX-License-Identifier: GPL-2.0
/*
 * tgctl apply - make the mount match /etc/tgroup/tgroup.conf: tgroup.config
 * tunables and the groups to create at boot (docs/tgctl.md, "APPLY").
 *
 * Two steps: the whole file is parsed (strict, every error with its line,
 * nothing written if there is one; tgroup.config values through the
 * module's own parser, core/parse.c), then each setting is compared with
 * what the mount reports and only what differs is written. A second run
 * therefore writes nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tg_parse.h"
#include "apply.h"
#include "tgctl.h"

/* the parser's state */
struct ap_parse {
	const char *fname;
	int line, nerr;
	int sect;			/* 0 none, 1 config, 2 group */
	int cfg_line;			/* where [config] was */
	struct ap_file *f;
	/* keys of the current section, with their lines (duplicate check) */
	char seen[32][48];
	int seen_line[32], nseen;
};

static void perr(struct ap_parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void perr(struct ap_parse *p, const char *fmt, ...)
{
	va_list ap;

	if (++p->nerr > APPLY_MAX_ERRORS)
		return;
	fprintf(stderr, "tgctl apply: %s:%d: ", p->fname, p->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* room for one more element (files are small: one realloc per entry) */
static void *grow(void *arr, size_t n, size_t size)
{
	return realloc(arr, (n + 1) * size);
}

static const char *sect_name(struct ap_parse *p, char *buf, size_t size)
{
	if (p->sect == 1)
		return "[config]";
	snprintf(buf, size, "[group %s]", p->f->grp[p->f->ngrp - 1].name);
	return buf;
}

/* "[config]" or "[group NAME]" (the brackets' contents in s, len) */
static int section(struct ap_parse *p, const char *s, size_t len)
{
	const char *msg;

	while (len && is_blank(*s))
		s++, len--;
	while (len && is_blank(s[len - 1]))
		len--;
	p->nseen = 0;
	if (len == 6 && !memcmp(s, "config", 6)) {
		if (p->cfg_line) {
			perr(p, "[config] given twice (first at line %d)", p->cfg_line);
			p->sect = 0;
			return -1;
		}
		p->cfg_line = p->line;
		p->sect = 1;
		return 0;
	}
	p->sect = 0;
	if (len > 5 && !memcmp(s, "group", 5) && is_blank(s[5])) {
		struct ap_file *f = p->f;
		struct ap_group *g;

		s += 5, len -= 5;
		while (len && is_blank(*s))
			s++, len--;
		if (tg_valid_group_name(s, len, &msg)) {
			perr(p, "[group %.*s]: %s", (int)len, s, msg);
			return -1;
		}
		for (size_t i = 0; i < f->ngrp; i++)
			if (strlen(f->grp[i].name) == len && !memcmp(f->grp[i].name, s, len)) {
				perr(p, "[group %.*s] given twice (first at line %d)", (int)len, s, f->grp[i].line);
				return -1;
			}
		g = grow(f->grp, f->ngrp, sizeof(*g));
		if (!g)
			return -ENOMEM;
		f->grp = g;
		g = &f->grp[f->ngrp++];
		memset(g, 0, sizeof(*g));
		memcpy(g->name, s, len);
		g->line = p->line;
		g->prio = TGROUP_PRIO_LOW;
		for (int k = 0; k < TGROUP_NR_KINDS; k++)
			g->bps[k] = TGROUP_MAX;
		p->sect = 2;
		return 0;
	}
	perr(p, "malformed section header [%.*s] (expected [config] or [group NAME])", (int)len, s);
	return -1;
}

/* one "key = value" line of the current section */
static int setting(struct ap_parse *p, const char *s, size_t len)
{
	const char *eq = memchr(s, '=', len), *k = s, *v, *msg;
	size_t kl, vl;
	char key[48], val[APPLY_MAX_LINE + 1], snb[96];
	const char *sn;

	if (!eq) {
		perr(p, "expected KEY = VALUE, a [section] or a # comment");
		return -1;
	}
	kl = eq - s;
	while (kl && is_blank(k[kl - 1]))
		kl--;
	v = eq + 1;
	vl = len - (v - s);
	while (vl && is_blank(*v))
		v++, vl--;
	while (vl && is_blank(v[vl - 1]))
		vl--;
	if (!kl || kl >= sizeof(key) || strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789_") < kl) {
		perr(p, "bad key \"%.*s\" (keys are lower case letters, digits and _)", (int)kl, k);
		return -1;
	}
	memcpy(key, k, kl);
	key[kl] = '\0';
	if (!p->sect) {
		perr(p, "%s: a setting outside a section ([config] or [group NAME] first)", key);
		return -1;
	}
	sn = sect_name(p, snb, sizeof(snb));
	if (!vl) {
		perr(p, "%s: %s: no value", sn, key);
		return -1;
	}
	memcpy(val, v, vl);
	val[vl] = '\0';
	if (strpbrk(val, " \t#;")) {
		perr(p, "%s: %s=%s: the value is one word (a comment goes on a line of its own)", sn, key, val);
		return -1;
	}
	for (int i = 0; i < p->nseen; i++)
		if (!strcmp(p->seen[i], key)) {
			perr(p, "%s: %s given twice (first at line %d)", sn, key, p->seen_line[i]);
			return -1;
		}
	if (p->nseen < (int)(sizeof(p->seen) / sizeof(p->seen[0]))) {
		snprintf(p->seen[p->nseen], sizeof(p->seen[0]), "%s", key);
		p->seen_line[p->nseen++] = p->line;
	}
	if (p->sect == 1) {
		struct tg_config scratch;
		char pair[sizeof(key) + sizeof(val) + 1];
		struct ap_cfg *c;
		u64 n;

		/* the module's own parser: key known and writable, value in range */
		tg_config_default(&scratch);
		snprintf(pair, sizeof(pair), "%s=%s", key, val);
		if (tg_parse_config(pair, strlen(pair), &scratch, &msg)) {
			perr(p, "[config]: %s: %s", pair, msg);
			return -1;
		}
		tg_parse_u64(val, vl, &n, &msg);	/* accepted above */
		c = grow(p->f->cfg, p->f->ncfg, sizeof(*c));
		if (!c)
			return -ENOMEM;
		p->f->cfg = c;
		c = &p->f->cfg[p->f->ncfg++];
		snprintf(c->key, sizeof(c->key), "%s", key);
		c->val = n;
		c->line = p->line;
		return 0;
	}
	{
		struct ap_group *g = &p->f->grp[p->f->ngrp - 1];
		int kind, r;

		if (!strcmp(key, "priority")) {
			if (!strcmp(val, "high"))
				g->prio = TGROUP_PRIO_HIGH;
			else if (!strcmp(val, "low"))
				g->prio = TGROUP_PRIO_LOW;
			else {
				perr(p, "%s: priority=%s: priority is high or low", sn, val);
				return -1;
			}
			return 0;
		}
		for (kind = 0; kind < TGROUP_NR_KINDS; kind++)
			if (!strcmp(key, tgroup_limit_keys[kind]))
				break;
		if (kind == TGROUP_NR_KINDS) {
			perr(p, "%s: unknown key \"%s\" (priority, dram_rbps, dram_wbps, nvm_rbps, nvm_wbps)", sn, key);
			return -1;
		}
		r = tgroup_parse_size(val, &g->bps[kind]);
		if (r) {
			perr(p, "%s: %s=%s: %s", sn, key, val,
			     r == -ERANGE ? "too large" : "not a rate (e.g. 1G, 500M, 2.5GB/s, max)");
			return -1;
		}
	}
	return 0;
}

int apply_parse(const char *text, size_t len, const char *fname, struct ap_file *f)
{
	struct ap_parse p = { .fname = fname, .f = f };
	size_t off = 0;

	memset(f, 0, sizeof(*f));
	if (len > APPLY_MAX_BYTES) {
		p.line = 0;
		perr(&p, "larger than %d bytes", APPLY_MAX_BYTES);
		return p.nerr;
	}
	while (off < len) {
		const char *s = text + off, *nl = memchr(s, '\n', len - off);
		size_t l = nl ? (size_t)(nl - s) : len - off;
		int r = 0;

		off += l + (nl != NULL);
		p.line++;
		if (memchr(s, '\0', l)) {
			perr(&p, "a NUL byte (not a text file)");
			continue;
		}
		if (l > APPLY_MAX_LINE) {
			perr(&p, "line longer than %d bytes", APPLY_MAX_LINE);
			continue;
		}
		if (l && s[l - 1] == '\r') {
			perr(&p, "carriage return at the end of the line (DOS line endings)");
			continue;
		}
		while (l && is_blank(*s))
			s++, l--;
		if (!l || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			size_t e = l;

			while (e && is_blank(s[e - 1]))
				e--;
			if (s[e - 1] != ']' || e < 2) {
				perr(&p, "malformed section header (expected [config] or [group NAME])");
				p.sect = 0;
				continue;
			}
			r = section(&p, s + 1, e - 2);
		} else {
			r = setting(&p, s, l);
		}
		if (r == -ENOMEM) {
			apply_free(f);
			return -ENOMEM;
		}
	}
	if (p.nerr > APPLY_MAX_ERRORS)
		fprintf(stderr, "tgctl apply: %s: %d more errors\n", fname, p.nerr - APPLY_MAX_ERRORS);
	if (p.nerr)
		apply_free(f);
	return p.nerr;
}

void apply_free(struct ap_file *f)
{
	free(f->cfg);
	free(f->grp);
	memset(f, 0, sizeof(*f));
}

static void val_str(uint64_t v, char *buf, size_t size)
{
	if (v == TGROUP_MAX)
		snprintf(buf, size, "max");
	else
		snprintf(buf, size, "%" PRIu64, v);
}

/* [config]: the keys that differ, in one write */
static int apply_config(struct tgroup *tg, const struct ap_file *f, const char *fname,
			unsigned int flags, int *changes)
{
	size_t cap = 64 * (f->ncfg + 1), n = 0;
	char *buf = malloc(cap), cur[64];
	uint64_t *was = calloc(f->ncfg + 1, sizeof(*was));
	int *diff = calloc(f->ncfg + 1, sizeof(*diff)), rc = 0, r, nd = 0;

	if (!buf || !was || !diff) {
		free(buf), free(was), free(diff);
		tgctl_err(NULL, ENOMEM, "apply");
		return 1;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < f->ncfg; i++) {
		const struct ap_cfg *c = &f->cfg[i];
		char *end;

		r = tgroup_config_get(tg, c->key, cur, sizeof(cur));
		if (r == -ENOENT) {
			fprintf(stderr, "tgctl apply: %s:%d: [config]: %s: this tgroup.ko has no such key (not "
				"written)\n", fname, c->line, c->key);
			rc = 1;
			continue;
		}
		if (r) {
			tgctl_err(tg, r, "apply: tgroup.config %s", c->key);
			rc = 1;
			continue;
		}
		errno = 0;
		was[i] = strtoull(cur, &end, 10);
		if (errno || *end || end == cur || was[i] != c->val) {
			diff[i] = 1;
			nd++;
			n += snprintf(buf + n, cap - n, "%s%s=%" PRIu64, n ? " " : "", c->key, c->val);
		}
	}
	if (nd && !(flags & APPLY_DRY_RUN)) {
		r = tgroup_config_set(tg, buf);
		if (r) {
			tgctl_err(tg, r, "apply: tgroup.config %s", buf);
			nd = 0;
			rc = 1;
		}
	}
	for (size_t i = 0; i < f->ncfg && nd; i++)
		if (diff[i])
			printf("config %s=%" PRIu64 " (was %" PRIu64 ")\n", f->cfg[i].key, f->cfg[i].val, was[i]);
	*changes += nd;
	free(buf), free(was), free(diff);
	return rc;
}

/* one [group NAME]: created if missing, then priority and limits as the file says */
static int apply_group(struct tgroup *tg, const struct ap_group *g, unsigned int flags, int *changes)
{
	struct tgroup_limits have = { .mask = 0 }, want = { .mask = 0 };
	enum tgroup_priority prio = TGROUP_PRIO_LOW;
	int r = tgroup_exists(tg, g->name);
	char a[32], b[32];

	if (r < 0) {
		tgctl_err(tg, r, "apply: group %s", g->name);
		return 1;
	}
	if (!r) {
		if (!(flags & APPLY_DRY_RUN)) {
			r = tgroup_create(tg, g->name);
			if (r) {
				tgctl_err(tg, r, "apply: mk %s", g->name);
				return 1;
			}
		}
		printf("mk %s\n", g->name);
		(*changes)++;
	}
	if (r) {		/* it existed: what it has now */
		r = tgroup_get_limits(tg, g->name, &have);
		if (!r)
			r = tgroup_get_priority(tg, g->name, &prio);
		if (r) {
			tgctl_err(tg, r, "apply: group %s", g->name);
			return 1;
		}
	} else {		/* new: a new group's values (docs/abi.md) */
		for (int k = 0; k < TGROUP_NR_KINDS; k++)
			have.bps[k] = TGROUP_MAX;
	}
	for (int k = 0; k < TGROUP_NR_KINDS; k++) {
		want.bps[k] = g->bps[k];
		if (have.bps[k] != g->bps[k])
			want.mask |= 1u << k;
	}
	if (want.mask && !(flags & APPLY_DRY_RUN)) {
		r = tgroup_set_limits(tg, g->name, &want);
		if (r) {
			tgctl_err(tg, r, "apply: set %s: tgroup.limit", g->name);
			return 1;
		}
	}
	for (int k = 0; k < TGROUP_NR_KINDS; k++)
		if (want.mask & (1u << k)) {
			val_str(want.bps[k], a, sizeof(a));
			val_str(have.bps[k], b, sizeof(b));
			printf("set %s %s=%s (was %s)\n", g->name, tgroup_limit_keys[k], a, b);
			(*changes)++;
		}
	if (prio != g->prio) {
		if (!(flags & APPLY_DRY_RUN)) {
			r = tgroup_set_priority(tg, g->name, g->prio);
			if (r) {
				tgctl_err(tg, r, "apply: set %s: tgroup.priority", g->name);
				return 1;
			}
		}
		printf("set %s priority=%s (was %s)\n", g->name, g->prio == TGROUP_PRIO_HIGH ? "high" : "low",
		       prio == TGROUP_PRIO_HIGH ? "high" : "low");
		(*changes)++;
	}
	return 0;
}

/* --prune: the child groups the file does not name */
static int apply_prune(struct tgroup *tg, const struct ap_file *f, unsigned int flags, int *changes)
{
	char **names;
	size_t n;
	int rc = 0, r = tgroup_list(tg, &names, &n);

	if (r) {
		tgctl_err(tg, r, "apply: --prune");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < f->ngrp && strcmp(f->grp[j].name, names[i]); j++)
			;
		if (j < f->ngrp)
			continue;
		if (!(flags & APPLY_DRY_RUN)) {
			r = tgroup_remove(tg, names[i]);
			if (r) {
				tgctl_err(tg, r, "apply: --prune: rm %s", names[i]);
				rc = 1;
				continue;
			}
		}
		printf("rm %s\n", names[i]);
		(*changes)++;
	}
	tgroup_free_names(names);
	return rc;
}

int apply_run(struct tgroup *tg, const struct ap_file *f, const char *fname, unsigned int flags)
{
	int changes = 0, rc = 0;

	if (f->ncfg)
		rc |= apply_config(tg, f, fname, flags, &changes);
	for (size_t i = 0; i < f->ngrp; i++)
		rc |= apply_group(tg, &f->grp[i], flags, &changes);
	if (flags & APPLY_PRUNE)
		rc |= apply_prune(tg, f, flags, &changes);
	if (!changes)
		printf("tgctl apply: %s: no changes%s\n", fname, rc ? " (see the errors above)" : "");
	else
		printf("tgctl apply: %s: %d change%s%s%s\n", fname, changes, changes == 1 ? "" : "s",
		       flags & APPLY_DRY_RUN ? " to make (dry run: nothing written)" : "",
		       rc ? " (and the errors above)" : "");
	return rc;
}

static const char help_apply[] =
	"usage: tgctl apply [--check | --dry-run] [--prune] [FILE]\n"
	"Make the mount match FILE (default " APPLY_DEFAULT_FILE "; - is stdin):\n"
	"[config] tunables (tgroup.config keys; keys not in the file are left alone)\n"
	"and [group NAME] sections (created if missing; priority and limits as the\n"
	"file says, defaults for keys not given). Idempotent: a second run writes\n"
	"nothing. Groups not in the file are left alone.\n"
	"  -c, --check     parse FILE only (no mount needed); exit 0 or 2\n"
	"  -n, --dry-run   print the changes, make none\n"
	"      --prune     also remove child groups FILE does not name\n"
	"Exit: 0 done, 1 the kernel refused something, 2 FILE or arguments invalid.\n"
	"The format: docs/tgctl.md, APPLY.\n";

/* the whole file, or NULL (errno) */
static char *slurp(const char *path, size_t *len)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	/* one byte more than the parser takes, so a larger file is seen */
	char *buf = fp ? malloc(APPLY_MAX_BYTES + 2) : NULL;
	size_t n = 0, got;

	if (!fp)
		return NULL;
	if (buf)
		while (n <= APPLY_MAX_BYTES && (got = fread(buf + n, 1, APPLY_MAX_BYTES + 1 - n, fp)))
			n += got;
	else
		errno = ENOMEM;
	if (buf && ferror(fp)) {
		free(buf);
		buf = NULL;
		errno = EIO;
	}
	if (fp != stdin)
		fclose(fp);
	if (buf) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

int tgctl_apply(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' }, { "check", no_argument, NULL, 'c' },
		{ "dry-run", no_argument, NULL, 'n' }, { "prune", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = APPLY_DEFAULT_FILE;
	unsigned int flags = 0;
	int check = 0, c, r;
	struct ap_file f;
	struct tgroup *tg;
	size_t len;
	char *text;

	optind = 0;
	while ((c = getopt_long(argc, argv, "hcn", lo, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(help_apply, stdout);
			return 0;
		case 'c':
			check = 1;
			break;
		case 'n':
			flags |= APPLY_DRY_RUN;
			break;
		case 'p':
			flags |= APPLY_PRUNE;
			break;
		default:
			fprintf(stderr, "tgctl apply: see tgctl apply --help\n");
			return 2;
		}
	}
	if (argc - optind > 1 || (check && flags & APPLY_DRY_RUN)) {
		fprintf(stderr, "tgctl apply: one FILE at most, --check or --dry-run (tgctl apply --help)\n");
		return 2;
	}
	if (optind < argc)
		path = argv[optind];
	text = slurp(path, &len);
	if (!text) {
		if (errno == ENOENT && optind == argc) {
			printf("tgctl apply: %s: not found, nothing to apply\n", path);
			return 0;
		}
		fprintf(stderr, "tgctl apply: %s: %s\n", path, strerror(errno));
		return 1;
	}
	r = apply_parse(text, len, path, &f);
	free(text);
	if (r < 0) {
		tgctl_err(NULL, r, "apply");
		return 1;
	}
	if (r) {
		fprintf(stderr, "tgctl apply: %s: %d error%s, nothing written\n", path, r, r == 1 ? "" : "s");
		return 2;
	}
	if (check) {
		printf("tgctl apply: %s: ok (%zu config key%s, %zu group%s)\n", path, f.ncfg,
		       f.ncfg == 1 ? "" : "s", f.ngrp, f.ngrp == 1 ? "" : "s");
		apply_free(&f);
		return 0;
	}
	tg = tgctl_open();
	if (!tg) {
		apply_free(&f);
		return 1;
	}
	r = apply_run(tg, &f, path, flags);
	tgroup_close(tg);
	apply_free(&f);
	return r;
}
