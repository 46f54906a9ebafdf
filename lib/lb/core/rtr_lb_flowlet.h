/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * What the flowlet modes (letflow, conga) share: a SrcToR's flow entry
 * holds its current flowlet's path, the flowlet table ages an entry idle
 * for max(1 ms, 4 x gap) (its next packet starts a new flowlet anyway),
 * and each packet of a flow takes one of three steps: on its flowlet's
 * path, a new flowlet (a gap of at least gap_ns, or a new entry), or a
 * move within the flowlet (its path went down or the route changed the
 * flow's group). Which path a new flowlet takes, and what it counts, is
 * the mode's.
 */
#ifndef RTR_LB_FLOWLET_H
#define RTR_LB_FLOWLET_H

#include <stdbool.h>
#include <stdint.h>

#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "rtr_lb_clock.h"
#include "rtr_lb_fs.h"

/* One flow: its flowlet's path, and the group that path is of. */
struct rtr_lb_flowlet {
	uint16_t group;
	uint8_t path;
	uint8_t n_paths;
	uint32_t flowlets; /* flowlets the flow started (telemetry) */
};

enum rtr_lb_flowlet_step {
	RTR_FLOWLET_SAME, /* on the flowlet's path (returned as is) */
	RTR_FLOWLET_NEW,  /* a new flowlet: the mode picks its path */
	RTR_FLOWLET_MOVE, /* within the flowlet, its path is gone: pick again */
};

static inline struct rtr_lb_flowlet *
rtr_lb_flowlet_of(struct rtr_ft_entry *e)
{
	return (struct rtr_lb_flowlet *)rtr_ft_value(e);
}

/* The step of a packet of e's flow (st: the lookup's status) toward group
 * g (index g_idx) whose live paths are live. A gap counts when rtr_lb_idle
 * finds more than gap_ns - 1 on the horizon of the packet's input (a gap
 * the network made, not the switch's own delay). SAME also stamps the
 * entry's last packet time. */
static inline enum rtr_lb_flowlet_step
rtr_lb_flowlet_step(const struct rtr_lb_fs *fs, struct rtr_ft_entry *e, enum rtr_ft_status st,
		const struct rtr_group *g, unsigned int g_idx, uint64_t live,
		const struct rtr_meta *meta, uint64_t now, uint64_t gap_ns)
{
	const struct rtr_lb_flowlet *f = rtr_lb_flowlet_of(e);

	if (st == RTR_FT_NEW || rtr_lb_idle(fs->clock, now, meta->in_port, e->last_ns, gap_ns - 1))
		return RTR_FLOWLET_NEW;
	if (unlikely(f->group != g_idx || f->n_paths != g->n_paths || !((live >> f->path) & 1)))
		return RTR_FLOWLET_MOVE;
	e->last_ns = now;
	return RTR_FLOWLET_SAME;
}

/* The flow's flowlet goes on path p of group g (index g_idx) from now. */
static inline void
rtr_lb_flowlet_set(struct rtr_ft_entry *e, unsigned int p, const struct rtr_group *g,
		unsigned int g_idx, uint64_t now)
{
	struct rtr_lb_flowlet *f = rtr_lb_flowlet_of(e);

	f->path = (uint8_t)p;
	f->group = (uint16_t)g_idx;
	f->n_paths = (uint8_t)g->n_paths;
	e->last_ns = now;
}

/* A worker's flowlet table, named <prefix>_<worker>, of entries entries
 * with the per-origin limits lim (copied), aged at max(1 ms, 4 x gap_ns);
 * fs->fill becomes the flowlet view's. Returns fs->ft (NULL on failure). */
struct rtr_ft *rtr_lb_flowlet_table(struct rtr_lb_fs *fs, const char *prefix, unsigned int worker,
		uint32_t entries, const struct rtr_ft_limit *lim, uint64_t gap_ns, int socket_id,
		bool use_rte_malloc);

/* The aging of a flowlet table of gap gap_ns. */
uint64_t rtr_lb_flowlet_aging_ns(uint64_t gap_ns);

#endif /* RTR_LB_FLOWLET_H */
