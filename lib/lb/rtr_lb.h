/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The LB stage, chosen once from a table of operations (like l3fwd's
 * --lookup modes) by switch.lb / --lb. Each mode's state machine lives in
 * its own directory and takes (clock, packet metadata): no EAL I/O, so unit
 * tests drive it with a virtual clock.
 */
#ifndef RTR_LB_H
#define RTR_LB_H

#include <stdbool.h>
#include <stdint.h>

#include "rtr_config.h"
#include "rtr_parse.h"
#include "rtr_route.h"
#include "rtr_stats.h"

struct rtr_lb_ops {
	const char *name;
	enum rtr_lb_mode mode;
	/* Keeps per-flow state: every packet of a flow must be processed by
	 * the worker that owns its flow hash (DESIGN.md A). */
	bool flow_affinity;
	/* Per-worker state; NULL return means failure. */
	void *(*init)(const struct rtr_config *cfg, unsigned int worker, int socket);
	void (*fini)(void *state);
	/*
	 * SrcToR side: choose the path for a packet routed to uplink group g.
	 * May stamp LB fields in the frame. Returns the path index, or -1 when
	 * no path is usable (the packet is dropped as port_down).
	 */
	int (*pick)(void *state, const struct rtr_group *g, uint8_t *frame, struct rtr_meta *m,
			uint64_t now_ns, struct rtr_lcore_stats *st);
};

/* The ops for a mode, or NULL when this build does not implement it yet. */
const struct rtr_lb_ops *rtr_lb_get(enum rtr_lb_mode mode);

extern const struct rtr_lb_ops rtr_lb_ecmp;

#endif /* RTR_LB_H */
