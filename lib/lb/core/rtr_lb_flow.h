/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * One flow's LB state as telemetry shows it (/rocetor/lb/flows), for every
 * stateful mode. Fields a mode does not have stay 0 (deadlines UINT64_MAX).
 */
#ifndef RTR_LB_FLOW_H
#define RTR_LB_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#define RTR_LB_HOP_NONE 0xff /* CAVER: no source route for the next switch */

struct rtr_lb_flow_info {
	uint8_t src[16], dst[16];
	bool v6;
	uint16_t sport;
	bool dst_role; /* false: SrcToR state, true: DstToR state */
	uint8_t path;  /* SrcToR current path (index in the uplink group) */
	uint64_t idle_ns;
	/* ConWeave */
	uint8_t epoch;
	uint8_t phase; /* SrcToR phase / DstToR rx_phase */
	bool stabilized;
	uint64_t reply_deadline_in_ns; /* SrcToR: UINT64_MAX if none pending */
	uint32_t held;                 /* DstToR: packets in its ring */
	uint64_t deadline_in_ns;       /* DstToR: hold deadline, UINT64_MAX if none */
	/* CAVER */
	uint8_t next_hop; /* egress port asked of the next switch, RTR_LB_HOP_NONE */
	uint8_t ce;       /* path cost when the flow was placed (0..255) */
	bool by_table;    /* placed from the path table (false: ECMP fallback) */
	/* spray */
	uint32_t seq; /* SrcToR: the next number to stamp; DstToR: the next expected */
	/* letflow */
	uint32_t flowlets; /* flowlets the flow started */
};

#endif /* RTR_LB_FLOW_H */
