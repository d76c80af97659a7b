// SPDX-License-Identifier: GPL-2.0
/*
 * asuser.c - run a command as another user, for the shell suites (the
 * guest's busybox setpriv cannot change ids):
 *
 *   asuser UID COMMAND [ARG...]
 *
 * Sets the real, effective and saved uid and gid to UID, drops the
 * supplementary groups, and execs COMMAND (searched in PATH). Exit 126 if
 * the ids could not be set, 127 if COMMAND could not be run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	unsigned long uid;

	if (argc < 3) {
		fprintf(stderr, "usage: asuser UID COMMAND [ARG...]\n");
		return 2;
	}
	errno = 0;
	uid = strtoul(argv[1], &end, 10);
	if (errno || *end || end == argv[1] || uid > 0xfffffffeul) {
		fprintf(stderr, "asuser: bad uid %s\n", argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid)) {
		fprintf(stderr, "asuser: cannot become %lu: %s\n", uid, strerror(errno));
		return 126;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "asuser: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
