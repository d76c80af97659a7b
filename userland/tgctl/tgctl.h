/* SPDX-License-Identifier: GPL-2.0 */
/* tgctl internals shared by its commands. */
#ifndef TGCTL_H
#define TGCTL_H

#include <stdarg.h>

#include "tgroup.h"

/* "tgctl: WHAT: strerror (ENAME): last_cmd_status" on stderr */
void tgctl_err(struct tgroup *tg, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* open the mount (-m, $TGROUP_MOUNT or the default); prints why not */
struct tgroup *tgctl_open(void);
/* -m or $TGROUP_MOUNT, or NULL (the default) */
const char *tgctl_mount(void);

int tgctl_setup(int argc, char **argv);
int tgctl_top(int argc, char **argv);
int tgctl_validate(int argc, char **argv);

#endif
