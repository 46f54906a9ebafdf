/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The flow-state base of a stateful mode: a worker's state (struct rtr_cw,
 * rtr_sb, rtr_caver) begins with a struct rtr_lb_fs, so that what every
 * such mode does with its flow table exists once: the two-step prefetch,
 * the table for telemetry and per-port limits, the telemetry flow walk
 * (the mode fills in only its own members) and the aging step of each
 * tick. The rtr_lb_fs_* functions that take a state are rtr_lb_ops
 * entries as they are.
 */
#ifndef RTR_LB_FS_H
#define RTR_LB_FS_H

#include <stdint.h>

#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "rtr_lb_flow.h"
#include "rtr_parse.h"

struct rtr_lb_fs {
	struct rtr_ft *ft; /* the worker's flow table */
	/* The worker's horizon (rtr_lb_clock.h), NULL for the hooks' now_ns:
	 * what the mode judges idle gaps and late replies by. */
	const struct rtr_lb_clock *clock;
	/* The mode's members of one flow's telemetry view (fi comes with
	 * the key, the idle time, SrcToR role, no deadlines and no next
	 * hop); state is the mode's. */
	void (*fill)(const void *state, struct rtr_ft_entry *e, uint64_t now_ns,
			struct rtr_lb_flow_info *fi);
};

/* Slots a tick examines for aging (rtr_ft_sweep): 32, as many entries as
 * the set-associative table's 4 buckets of 8 before issue 34. */
#define RTR_LB_FS_SWEEP 32

/* rtr_lb_ops.prefetch: a RoCE packet's home slot (step 0), then the other
 * slots of its home (step 1; rtr_ft_prefetch). */
static inline void
rtr_lb_fs_prefetch(const void *state, const struct rtr_meta *meta, unsigned int step)
{
	const struct rtr_lb_fs *fs = state;

	if (meta->flags & RTR_MF_ROCE)
		rtr_ft_prefetch(fs->ft, meta->flow_hash, step);
}

/* rtr_lb_ops.table (read-only use: telemetry, per-port limits). */
const struct rtr_ft *rtr_lb_fs_table(const void *state);

/* rtr_lb_ops.flows: fn for up to max flows (0 = all); returns how many.
 * Telemetry may call it from another thread: a racy snapshot. */
unsigned int rtr_lb_fs_flows(void *state, uint64_t now_ns, unsigned int max,
		void (*fn)(void *arg, const struct rtr_lb_flow_info *f), void *arg);

/* The telemetry view of a flowlet mode's flow (letflow, conga): the
 * current flowlet's path and how many flowlets (rtr_lb_desc.flow_view). */
void rtr_lb_fs_flowlet_view(const struct rtr_lb_flow_info *f, const struct rtr_lb_kv *kv);

/* A mode's init: state (a struct rtr_lb_fs first, or NULL) and its flow
 * table judge time by the worker's horizon c (rtr_lb_init.clock).
 * Returns state. */
static inline void *
rtr_lb_fs_clock(void *state, const struct rtr_lb_clock *c)
{
	struct rtr_lb_fs *fs = state;

	if (fs != NULL) {
		fs->clock = c;
		if (fs->ft != NULL)
			fs->ft->clock = c;
	}
	return state;
}

/* A tick's step of flow aging. */
static inline unsigned int
rtr_lb_fs_age(struct rtr_lb_fs *fs, uint64_t now_ns)
{
	return rtr_ft_sweep(fs->ft, now_ns, RTR_LB_FS_SWEEP);
}

/*
 * The per-origin limits of a worker's flow table of `entries` entries from
 * the host ports' flow_share / flow_rate / flow_burst (doc/security.md):
 * share of this table, rate and burst divided among the workers (flows are
 * spread over them by hash). lim has RTR_FT_ORIGINS entries.
 */
void rtr_lb_ft_limits(const struct rtr_lb_init *in, uint32_t entries, struct rtr_ft_limit *lim);

/* Bytes of one worker's flow table when the switch's table_size entries
 * are split between n_workers, value_size bytes of state each (what the
 * modes' init give rtr_ft_create). */
uint64_t rtr_lb_ft_bytes(uint32_t table_size, unsigned int n_workers, uint32_t value_size);

/* The configured host ports (DPDK port ids below 32) as a mask. */
uint32_t rtr_lb_host_ports(const struct rtr_config *cfg);

#endif /* RTR_LB_FS_H */
