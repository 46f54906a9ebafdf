/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit tests of the registry's limits (rtr_lb_registry_check): a mode whose
 * config section is larger than RTR_LB_CFG_SIZE, whose counters run past
 * RTR_STATS_LB_SLOTS, or whose parse flags describe a header the egress
 * would trim to another length is refused with a message naming the mode
 * and the limit. The modes of this build pass, and the
 * parse flags the shared LB layout composes agree with the trim length.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rtr_cfg_schema.h"
#include "rtr_lb.h"
#include "rtr_lb_registry.h"
#include "rtr_lb_worker.h"
#include "rtr_test.h"

static void
test_this_build(void)
{
	const struct rtr_lb_desc *modes[RTR_LB_MAX];
	char err[256] = "";

	for (unsigned int i = 0; i < RTR_LB_MAX; i++)
		modes[i] = rtr_lb_mode_at(i);
	CHECK_EQ(rtr_lb_registry_check(modes, RTR_LB_MAX, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	/* Every mode's parse flags are 0 or the shared LB layout's, whose
	 * header is what a trim keeps. */
	for (unsigned int i = 0; i < RTR_LB_MAX; i++) {
		unsigned int pf = modes[i]->ops ? modes[i]->ops->fabric_parse_flags : 0;

		CHECK(pf == 0 || RTR_PARSE_HDR_LEN(pf) == RTR_LB_TRIM_HDR_LEN, "%s",
				modes[i]->name);
		CHECK(pf == 0 || RTR_PARSE_OP_SHIFT(pf) == RTR_LB_OP_SHIFT, "%s", modes[i]->name);
	}
	CHECK_EQ(RTR_PARSE_HDR_LEN(RTR_LB_PARSE_FOREIGN), RTR_LB_HDR_LEN);
	CHECK_EQ(rtr_parse_op(RTR_LB_PARSE_HDR, 0x20 | 0x80), RTR_LB_OP_DATA);
	CHECK_EQ(rtr_parse_op(RTR_LB_PARSE_HDR, 0x60), RTR_LB_OP_NOTIFY);
}

static void
test_limits(void)
{
	struct rtr_cfg_section big = {.size = RTR_LB_CFG_SIZE + 1};
	struct rtr_cfg_section fits = {.size = RTR_LB_CFG_SIZE};
	struct rtr_lb_ops ops = {.name = "wide"};
	struct rtr_lb_desc ok = {
			.name = "ok", .config = &fits, .counter_first = 10, .n_counters = 4};
	struct rtr_lb_desc d;
	const struct rtr_lb_desc *modes[2] = {&ok, &d};
	char err[256];

	/* The config section: exactly RTR_LB_CFG_SIZE fits, one byte more not. */
	d = (struct rtr_lb_desc){.name = "bigcfg", .config = &big};
	err[0] = '\0';
	CHECK_EQ(rtr_lb_registry_check(modes, 2, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "LB mode bigcfg: its config section is 257 bytes, more than "
			  "RTR_LB_CFG_SIZE (256") == err,
			"%s", err);
	d.config = &fits;
	CHECK_EQ(rtr_lb_registry_check(modes, 2, err, sizeof(err)), 0);

	/* The counters: up to the last slot, not one beyond. */
	d = (struct rtr_lb_desc){
			.name = "manyc", .counter_first = RTR_STATS_LB_SLOTS - 3, .n_counters = 3};
	CHECK_EQ(rtr_lb_registry_check(modes, 2, err, sizeof(err)), 0);
	d.n_counters = 4;
	CHECK_EQ(rtr_lb_registry_check(modes, 2, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "LB mode manyc: its 4 counters end at slot 97, beyond the 96 of "
			  "RTR_STATS_LB_SLOTS") == err,
			"%s", err);

	/* The header length the parse flags describe. */
	d = (struct rtr_lb_desc){.name = "wide", .ops = &ops};
	ops.fabric_parse_flags = RTR_LB_PARSE_HDR;
	CHECK_EQ(rtr_lb_registry_check(modes, 2, err, sizeof(err)), 0);
	ops.fabric_parse_flags = RTR_PARSE_LAYOUT(8, RTR_LB_OP_SHIFT) | RTR_PARSE_DATA_OPS(2);
	CHECK_EQ(rtr_lb_registry_check(modes, 2, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "LB mode wide: its parse flags describe a 8-byte header") == err, "%s",
			err);
	/* No parse flags: nothing to agree with. */
	ops.fabric_parse_flags = 0;
	CHECK_EQ(rtr_lb_registry_check(modes, 2, err, sizeof(err)), 0);
}

int
main(void)
{
	test_this_build();
	test_limits();
	return rtr_test_done("lb-registry");
}
