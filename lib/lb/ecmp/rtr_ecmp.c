/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * ECMP (ALGORITHMS.md 1): per packet, path = hash mod n_paths, where the hash
 * is the parser's seeded CRC32C of the 5-tuple (src IP, dst IP, L4 sport,
 * L4 dport, IP proto); with a path down, the group's resilient table
 * (rtr_group_pick: only the down path's flows move). A flow sticks to one
 * path; a sender that changes its UDP source port per packet is sprayed.
 */

#include <stddef.h>

#include "rtr_lb.h"

static void *
ecmp_init(const struct rtr_lb_init *in)
{
	(void)in;
	/* Stateless: any non-NULL pointer says "ready". */
	static int ecmp_ready;

	return &ecmp_ready;
}

static void
ecmp_fini(void *state)
{
	(void)state;
}

const struct rtr_lb_ops rtr_lb_ecmp = {
		.name = "ecmp",
		.mode = RTR_LB_ECMP,
		.flow_affinity = false,
		/* ConWeave fields read, so that a host never gets them (the shared
	 * rule of rtr_lb_host_egress, rtr_cw_host_strip; doc/wire-formats.md). */
		.fabric_parse_flags = RTR_LB_PARSE_FOREIGN,
		.init = ecmp_init,
		.fini = ecmp_fini,
		.pick = NULL, /* the pipeline hashes inline (rtr_lb_ops.pick) */
};

const struct rtr_lb_desc rtr_lb_ecmp_desc = {
		.name = "ecmp",
		.summary = "per-flow hash over the group's live paths",
		.ops = &rtr_lb_ecmp,
		.spine = RTR_LB_SPINE_RUN,
};
