/* SPDX-License-Identifier: GPL-2.0 */
/* tgctl apply: the configuration file's parser and its application (apply.c). */
#ifndef TGCTL_APPLY_H
#define TGCTL_APPLY_H

#include <stddef.h>
#include <stdint.h>

#include "tgroup.h"

#define APPLY_DEFAULT_FILE "/etc/tgroup/tgroup.conf"
#define APPLY_MAX_BYTES (1 << 20)	/* a larger file is refused */
#define APPLY_MAX_LINE 4095
#define APPLY_MAX_ERRORS 20		/* printed; the rest are counted */

struct ap_cfg {
	char key[48];
	uint64_t val;
	int line;
};

struct ap_group {
	char name[TGROUP_NAME_MAX + 1];
	int line;
	enum tgroup_priority prio;		/* TGROUP_PRIO_LOW unless given */
	uint64_t bps[TGROUP_NR_KINDS];		/* TGROUP_MAX unless given */
};

struct ap_file {
	struct ap_cfg *cfg;
	size_t ncfg;
	struct ap_group *grp;
	size_t ngrp;
};

/*
 * Parse the file's text (all of it; errors as "tgctl apply: FNAME:LINE:
 * what" on stderr). Returns the number of errors (0: f is filled; free it
 * with apply_free()), or -ENOMEM.
 */
int apply_parse(const char *text, size_t len, const char *fname, struct ap_file *f);
void apply_free(struct ap_file *f);

#define APPLY_DRY_RUN	1u	/* print the changes, make none */
#define APPLY_PRUNE	2u	/* remove the groups f does not name */

/*
 * Make the mount match f (docs/tgctl.md, "APPLY"); changes on stdout,
 * failures on stderr. Returns 0, or 1 if the kernel refused something.
 */
int apply_run(struct tgroup *tg, const struct ap_file *f, const char *fname, unsigned int flags);

#endif
