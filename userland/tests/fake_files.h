/* SPDX-License-Identifier: GPL-2.0 */
/*
 * userland/tests/fake_files.h - the host tests' fake trees (a mount, a
 * sysfs PMU directory): put() writes one file under fake_root.
 */
#ifndef TG_FAKE_FILES_H
#define TG_FAKE_FILES_H

#include <stdio.h>

static char fake_root[64];

static void put(const char *rel, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", fake_root, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

#endif
