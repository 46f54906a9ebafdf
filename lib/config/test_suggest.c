/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* The edit distance and the "did you mean" choice (rtr_suggest.h), case by
 * case; test_config and the smoke test check the messages that use them. */
#include <stdio.h>
#include <string.h>

#include "rtr_common.h"
#include "rtr_suggest.h"
#include "rtr_test.h"

static void
test_distance(void)
{
	static const struct {
		const char *a, *b;
		unsigned int d;
	} cases[] = {
			{"", "", 0},
			{"abc", "", 3},
			{"", "abc", 3},
			{"same", "same", 0},
			{"kitten", "sitting", 3},
			{"ab", "ba", 1}, /* one swap, not two substitutions */
			{"ecpm", "ecmp", 1},
			{"abcdef", "abdcef", 1},
			{"ca", "abc", 3}, /* optimal string alignment: no edit after a swap */
			{"thta_inactive_us", "theta_inactive_us", 1},
			{"conweav", "conweave", 1},
			{"Lb", "lb", 1}, /* case counts */
			{"queues", "queue_kb", 3},
			{"flaw", "lawn", 2},
	};
	unsigned int i;

	for (i = 0; i < RTR_ARRAY_SIZE(cases); i++) {
		unsigned int d = rtr_edit_distance(cases[i].a, cases[i].b);

		CHECK(d == cases[i].d, "distance(\"%s\", \"%s\") = %u, want %u", cases[i].a,
				cases[i].b, d, cases[i].d);
		d = rtr_edit_distance(cases[i].b, cases[i].a);
		CHECK(d == cases[i].d, "distance(\"%s\", \"%s\") = %u, want %u", cases[i].b,
				cases[i].a, d, cases[i].d);
	}
}

static void
test_long_names(void)
{
	char a[200], b[200];

	/* Only the first RTR_SUGGEST_MAX_LEN characters count: no overflow. */
	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	b[150] = 'b';
	CHECK_EQ(rtr_edit_distance(a, b), 0);
	b[10] = 'b';
	CHECK_EQ(rtr_edit_distance(a, b), 1);
	CHECK_EQ(rtr_edit_distance(a, ""), RTR_SUGGEST_MAX_LEN);
}

static void
test_suggest(void)
{
	static const char *const modes[] = {
			"ecmp", "conweave", "seqbalance", "caver", "spray", NULL};
	static const char *const cw[] = {"theta_reply_us", "theta_inactive_us",
			"theta_path_busy_us", "theta_resume_us", "reorder_queues"};
	static const char *const ties[] = {"abd", "abe"};
	static const char *const with_null[] = {NULL, "spray"};

	/* NULL-terminated list (n = 0). */
	CHECK_STR(rtr_suggest("conweav", modes, 0), "conweave");
	CHECK_STR(rtr_suggest("ecpm", modes, 0), "ecmp");
	CHECK_STR(rtr_suggest("spary", modes, 0), "spray");
	CHECK_STR(rtr_suggest("seqbalence", modes, 0), "seqbalance");
	CHECK(rtr_suggest("CAVER", modes, 0) == NULL, "5 substitutions are no typo");
	CHECK(rtr_suggest("ecmp", modes, 0) == NULL, "an exact match is no suggestion");
	CHECK(rtr_suggest("", modes, 0) == NULL, "empty word");
	CHECK(rtr_suggest("xy", (const char *const[]){"id", NULL}, 0) == NULL,
			"a 2-letter word sharing nothing");
	CHECK_STR(rtr_suggest("ib", (const char *const[]){"id", NULL}, 0), "id");
	/* Counted list. */
	CHECK_STR(rtr_suggest("thta_inactive_us", cw, RTR_ARRAY_SIZE(cw)), "theta_inactive_us");
	CHECK_STR(rtr_suggest("theta_resum_us", cw, RTR_ARRAY_SIZE(cw)), "theta_resume_us");
	CHECK(rtr_suggest("reply_us", cw, RTR_ARRAY_SIZE(cw)) == NULL,
			"8 characters allow 2 edits, \"theta_\" is 6");
	CHECK_STR(rtr_suggest("theta_repl_u", cw, RTR_ARRAY_SIZE(cw)), "theta_reply_us");
	CHECK(rtr_suggest("queues", (const char *const[]){"classes", "dscp", "queue_kb"}, 3) ==
					NULL,
			"3 edits in 6 characters is too far");
	/* The first of equally near candidates. */
	CHECK_STR(rtr_suggest("abc", ties, 2), "abd");
	CHECK_STR(rtr_suggest("abc", (const char *const[]){"abe", "abd"}, 2), "abe");
	/* NULL entries of a counted list are skipped. */
	CHECK_STR(rtr_suggest("sprya", with_null, 2), "spray");
}

int
main(void)
{
	test_distance();
	test_long_names();
	test_suggest();
	return rtr_test_done("suggest");
}
