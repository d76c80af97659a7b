// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_parse.c - libFuzzer target for every core/ parser.
 *
 * The first byte picks the parser; the rest is the write(2). Checked on
 * every input (besides ASan/UBSan): failures leave the output untouched and
 * explain themselves; successes print back to text that parses to the same
 * value (limits, config), pids are in range, inject lines name a valid
 * group inside the input and a pin's quota is at most TG_PIN_QUOTA_US_MAX.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tg_parse.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data + 1, *msg = NULL;
	size_t len;
	char out[TG_CONFIG_TEXT_MAX];

	if (!size)
		return 0;
	len = size - 1;
	switch (data[0] % 6) {
	case 0: {
		s32 pid = -7;

		if (tg_parse_pid(buf, len, &pid, &msg))
			CHECK(pid == -7 && msg);
		else
			CHECK(pid >= 0 && pid <= TG_PID_MAX);
		break;
	}
	case 1: {
		enum tg_priority p = (enum tg_priority)9;

		if (tg_parse_priority(buf, len, &p, &msg))
			CHECK(p == 9 && msg);
		else
			CHECK(p == TG_PRIO_LOW || p == TG_PRIO_HIGH);
		break;
	}
	case 2: {
		struct tg_limits l, before, back;

		tg_limits_init(&l);
		l.bps[1] = 12345;
		before = l;
		if (tg_parse_limits(buf, len, &l, &msg)) {
			CHECK(msg && !memcmp(&l, &before, sizeof(l)));
			break;
		}
		CHECK(tg_fmt_limits(out, sizeof(out), &l) > 0);
		tg_limits_init(&back);
		CHECK(!tg_parse_limits(out, strlen(out), &back, &msg));
		CHECK(!memcmp(&back, &l, sizeof(l)));
		break;
	}
	case 3: {
		struct tg_config c, before, back;

		memset(&c, 0, sizeof(c));
		memset(&back, 0, sizeof(back));
		tg_config_default(&c);
		memcpy(&before, &c, sizeof(c));
		if (tg_parse_config(buf, len, &c, &msg)) {
			CHECK(msg && !memcmp(&c, &before, sizeof(c)));
			break;
		}
		CHECK(c.period_ms >= TG_PERIOD_MS_MIN && c.period_ms <= TG_PERIOD_MS_MAX);
		CHECK(tg_fmt_config(out, sizeof(out), &c) > 0);
		tg_config_default(&back);
		CHECK(!tg_parse_config(out, strlen(out), &back, &msg));
		CHECK(!memcmp(&back, &c, sizeof(c)));
		break;
	}
	case 4:
		if (tg_valid_group_name(buf, len, &msg))
			CHECK(msg);
		else
			CHECK(len >= 1 && len <= 64);
		break;
	default: {
		struct tg_inject in, before;

		memset(&in, 0x5a, sizeof(in));
		memcpy(&before, &in, sizeof(in));
		if (tg_parse_inject(buf, len, &in, &msg)) {
			CHECK(msg && !memcmp(&in, &before, sizeof(in)));
			break;
		}
		CHECK(in.present && in.kind <= TG_INJ_PIN);
		/* the pin is bounded: the CPU actuator's quota * elapsed fits */
		if (in.kind == TG_INJ_PIN)
			CHECK(in.v[TG_INJ_PIN_CPU_QUOTA] <= TG_PIN_QUOTA_US_MAX);
		if (in.kind == TG_INJ_PIN || in.kind == TG_INJ_GROUP)
			CHECK(in.name > buf && in.name + in.name_len <= buf + len &&
			      !tg_valid_group_name(in.name, in.name_len, &msg));
		break;
	}
	}
	return 0;
}
