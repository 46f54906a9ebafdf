/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * SeqBalance, ALGORITHMS.md 3. The paper has no public implementation; where
 * it is silent this file says what it chose and why.
 */

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "rtr_common.h"
#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "rtr_lb_fs.h"
#include "rtr_lb_ctrl.h"
#include "rtr_pathmark.h"
#include "seqbalance_config.h"
#include "rtr_seqbalance.h"
#include "rtr_stats.h"

#define NEVER    UINT64_MAX
#define KIND_SUB 1

/* ------------------------------------------------------------------ state */

/* One sub-flow: the path its packets keep, and the group that path is of
 * (a route change moves the flow to another group: pick again). */
struct sb_flow {
	uint16_t group;
	uint8_t path;
	uint8_t n_paths; /* of the group, for Congestion Packets (bound check) */
};

/* Numbers in 1..n coprime to n, summed over n = 1..RTR_MAX_PATHS. */
#define SB_STRIDES 1260
_Static_assert(RTR_MAX_PATHS == 64, "SB_STRIDES counts the strides of 1..64 paths");

struct rtr_sb {
	struct rtr_lb_fs fs; /* first: the flow-state base (rtr_lb_fs.h) */
	struct rtr_sb_params p;
	struct rtr_lb_io io;
	uint64_t aging_ns;
	/* The strides a group of n paths may use: stride[stride_off[n] + k]
	 * for k < stride_n[n], the numbers in 1..n coprime to n, ascending. */
	uint16_t stride_off[RTR_MAX_PATHS + 1];
	uint8_t stride_n[RTR_MAX_PATHS + 1];
	uint8_t stride[SB_STRIDES];
};

/* ------------------------------------------------------------------ helpers */

static inline struct sb_flow *
flow_of(struct rtr_ft_entry *e)
{
	return (struct sb_flow *)rtr_ft_value(e);
}

static inline bool
from_host(const struct rtr_sb *sb, const struct rtr_meta *meta)
{
	return meta->in_port < 32 && (sb->p.host_port_mask & (1u << meta->in_port));
}

/* ------------------------------------------------------------------ setup */

void *
rtr_sb_shared_create(const struct rtr_config *cfg, unsigned int n_groups, bool rte, int socket)
{
	struct rtr_pm_group groups[RTR_MAX_GROUPS];
	struct rtr_pm_params p = {
			.name = "sb_inactive",
			.n_groups = RTE_MIN(n_groups, (unsigned int)RTR_MAX_GROUPS),
			.groups = groups,
			.dst_prefix_len = rtr_seqbalance_config(cfg)->dst_prefix_len,
			.dst_prefix_len6 = rtr_seqbalance_config(cfg)->dst_prefix_len6,
			.use_rte_malloc = rte,
			.socket = socket,
	};

	rtr_pm_groups_of(cfg, groups, p.n_groups);
	return rtr_pm_create(&p);
}

void
rtr_sb_shared_free(void *shared)
{
	rtr_pm_free(shared);
}

bool
rtr_sb_path_inactive(
		const struct rtr_pm *inactive, unsigned int g_idx, unsigned int path, uint64_t now)
{
	return inactive != NULL && rtr_pm_marked_any(inactive, g_idx, path, now);
}

bool
rtr_sb_path_inactive_dst(const struct rtr_pm *inactive, unsigned int g_idx, const uint8_t *dst,
		bool v6, unsigned int path, uint64_t now)
{
	struct rtr_pm_ref r;

	if (inactive == NULL || !rtr_pm_ref(inactive, g_idx, dst, v6, &r))
		return false;
	return rtr_pm_marked(inactive, &r, path, now);
}

uint64_t
rtr_sb_aging_ns(const struct rtr_sb_params *p)
{
	return RTE_MAX(100000000ULL, 4 * p->subflow_idle_ns);
}

static unsigned int
gcd(unsigned int a, unsigned int b)
{
	while (b != 0) {
		unsigned int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static void
strides_init(struct rtr_sb *sb)
{
	unsigned int k = 0;

	for (unsigned int n = 1; n <= RTR_MAX_PATHS; n++) {
		sb->stride_off[n] = (uint16_t)k;
		for (unsigned int s = 1; s <= n; s++)
			if (gcd(s, n) == 1)
				sb->stride[k++] = (uint8_t)s;
		sb->stride_n[n] = (uint8_t)(k - sb->stride_off[n]);
	}
}

/* The telemetry view of one sub-flow (rtr_lb_fs.fill): where it was placed. */
static void
sb_fill(const void *state, struct rtr_ft_entry *e, uint64_t now, struct rtr_lb_flow_info *fi)
{
	(void)state;
	(void)now;
	fi->path = flow_of(e)->path;
}

struct rtr_sb *
rtr_sb_create(const struct rtr_sb_params *p, const struct rtr_lb_io *io)
{
	struct rtr_sb *sb = calloc(1, sizeof(*sb));
	struct rtr_ft_params fp;
	char name[64];

	if (sb == NULL)
		return NULL;
	strides_init(sb);
	sb->p = *p;
	sb->io = *io;
	sb->aging_ns = rtr_sb_aging_ns(p);
	snprintf(name, sizeof(name), "sb_flows_%u", p->worker);
	fp = (struct rtr_ft_params){
			.name = name,
			.entries = p->flow_entries,
			.limits = p->ft_limits,
			.value_size = sizeof(struct sb_flow),
			.aging_ns = sb->aging_ns,
			.pinned = NULL, /* nothing is held: every entry may go */
			.socket_id = p->socket_id,
			.use_rte_malloc = p->use_rte_malloc,
	};
	sb->fs.ft = rtr_ft_create(&fp);
	sb->fs.fill = sb_fill;
	sb->p.ft_limits = NULL; /* the caller's, gone after create */
	if (sb->fs.ft == NULL) {
		free(sb);
		return NULL;
	}
	return sb;
}

void
rtr_sb_free(void *state)
{
	struct rtr_sb *sb = state;
	if (sb == NULL)
		return;
	rtr_ft_free(sb->fs.ft);
	free(sb);
}

/* ------------------------------------------------------------------ SrcToR */

/*
 * The path of a new sub-flow: candidates (h1 + i * step) mod n for
 * i = 0..n-1, the first live one that is not inactive. The paper's stride
 * is h2 mod n, which for an n that is not a power of two can be 0 or share
 * a factor with n: the sequence then repeats after n / gcd candidates and
 * never reaches the other paths (3 uplinks, one inactive: 1 sub-flow in 9
 * started on it). Here the stride is drawn from the numbers coprime to n,
 * indexed by h2 (its low bit is always 1, so h2 >> 1): every sequence is a
 * permutation of the n paths, h1 mod n still comes first (SeqBalance
 * places sub-flows where ECMP would while nothing is inactive), and for a
 * power-of-two n the stride is h2 mod n, as before. Computed incrementally:
 * no multiply or division per candidate.
 */
static int
choose_path(const struct rtr_sb *sb, const struct rtr_group *g, unsigned int g_idx,
		const struct rtr_ft_key *key, uint64_t live, uint32_t h1, uint64_t now, uint64_t *c)
{
	const struct rtr_pm *tab = sb->p.shared;
	const unsigned int n = g->n_paths;
	const uint32_t h2 = rtr_hash_mix(h1 ^ RTR_SB_H2_SALT) | 1;
	const unsigned int first = h1 % n;
	const unsigned int step = sb->stride[sb->stride_off[n] + (h2 >> 1) % sb->stride_n[n]];
	unsigned int p = first;
	struct rtr_pm_ref r;

	/* Inactive toward the sub-flow's destination (no slot: nothing is). */
	rtr_pm_ref(tab, g_idx, key->dst, key->v6, &r);
	for (unsigned int i = 0; i < n; i++) {
		if (((live >> p) & 1) && !rtr_pm_marked(tab, &r, p, now)) {
			if (i > 0)
				c[RTR_LBC_sb_rehashes]++;
			return (int)p;
		}
		p += step;
		if (p >= n)
			p -= n;
	}
	/* Every live path inactive (the sequence saw them all): the paper's
	 * h1 mod n, which spreads such sub-flows like ECMP; a dead first
	 * choice goes where the group's resilient table sends h1
	 * (ALGORITHMS.md 1: rtr_group_pick's rule, on the same snapshot of the
	 * mask: a second load could find every path down, and the caller has
	 * checked that one is live). */
	c[RTR_LBC_sb_all_inactive]++;
	if ((live >> first) & 1)
		return (int)first;
	return rtr_group_pick_live(g, live, h1);
}

int
rtr_sb_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_sb *sb = state;
	uint64_t *c = stats->lb;
	uint64_t live = atomic_load_explicit(&g->live_mask, memory_order_relaxed);
	struct rtr_ft_entry *e;
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	struct sb_flow *f;
	uint8_t *frame;
	int path;

	/* Only RoCE from a local host is cut into sub-flows and tagged:
	 * transit packets belong to another ToR's sub-flows, and the
	 * Congestion Packets this switch builds (in_port RTR_PORT_NONE) must
	 * keep the PathTag they carry back. */
	if (!(meta->flags & RTR_MF_ROCE) || !from_host(sb, meta)) {
		c[RTR_LBC_ecmp_packets]++;
		return rtr_group_pick(g, meta->flow_hash);
	}
	if (unlikely(live == 0 || g->n_paths == 0))
		return -1;
	frame = rte_pktmbuf_mtod(m, uint8_t *);
	rtr_ft_key_from_frame(&k, frame, meta, KIND_SUB, false);
	e = rtr_ft_lookup(sb->fs.ft, &k, meta->flow_hash, now, true, meta->in_port, &st);
	if (unlikely(e == NULL)) {
		/* No state: the path ECMP gives (stable for the flow, so no
		 * reordering either); still tagged, the DstToR expects it. */
		rtr_ft_count_refusal(st, c);
		c[RTR_LBC_ecmp_packets]++;
		path = rtr_group_pick(g, meta->flow_hash);
		if (path < 0)
			return -1;
		goto tag;
	}
	f = flow_of(e);
	if (st == RTR_FT_NEW || rtr_lb_idle(sb->fs.clock, now, meta->in_port, e->last_ns,
						sb->p.subflow_idle_ns)) {
		/* A new sub-flow: nothing of the flow is in flight, so it may
		 * start on any path without reordering. */
		f->path = (uint8_t)choose_path(sb, g, g_idx, &k, live, meta->flow_hash, now, c);
		f->group = (uint16_t)g_idx;
		f->n_paths = (uint8_t)g->n_paths;
		c[RTR_LBC_sb_subflows]++;
	} else if (unlikely(f->group != g_idx || f->n_paths != g->n_paths ||
				   !((live >> f->path) & 1))) {
		/* The sub-flow's path went down (nothing gets through a dead
		 * link anyway) or the route moved it to another group: pick
		 * again now, as a new sub-flow. */
		f->path = (uint8_t)choose_path(sb, g, g_idx, &k, live, meta->flow_hash, now, c);
		f->group = (uint16_t)g_idx;
		f->n_paths = (uint8_t)g->n_paths;
		c[RTR_LBC_sb_subflows]++;
		c[RTR_LBC_reroutes]++;
	}
	e->last_ns = now;
	path = f->path;
tag:
	/* The PathTag: byte 4 is masked out of the ICRC, so it may be
	 * written freely (path < RTR_MAX_PATHS fits the byte). */
	frame[rtr_meta_bth_off(meta) + 4] = (uint8_t)path;
	meta->bth_b4 = (uint8_t)path;
	c[RTR_LBC_sb_tagged]++;
	return path;
}

void
rtr_sb_control_rx(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now,
		struct rtr_lcore_stats *stats)
{
	struct rtr_sb *sb = state;
	uint64_t *c = stats->lb;
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	struct rtr_pm *inactive = sb->p.shared;
	unsigned int path = meta->bth_b4;
	struct rtr_ft_entry *e;
	struct rtr_pm_ref r;
	int ret;
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	struct sb_flow *f;

	if (rtr_lb_op(meta->bth_b8) != RTR_LB_OP_NOTIFY) {
		/* A ConWeave REPLY (a ConWeave DstToR talking to us, or a
		 * mode change in flight): nothing here answers it. */
		c[RTR_LBC_ctrl_no_flow]++;
		return;
	}
	/* Counted as they arrive: notifies (DstToR) minus these is what
	 * the fabric lost. */
	c[RTR_LBC_notifies_rx]++;
	rtr_ft_key_from_frame(&k, frame, meta, KIND_SUB, true);
	e = rtr_ft_lookup(sb->fs.ft, &k, rtr_flow_hash_reverse(frame, meta, sb->p.hash_seed), now,
			false, RTR_FT_ORIGIN_NONE, &st);
	if (e == NULL) {
		/* Aged out (or another switch's flow): the group the path
		 * belongs to is unknown, so nothing can be marked. */
		c[RTR_LBC_ctrl_no_flow]++;
		return;
	}
	f = flow_of(e);
	if (inactive == NULL || path >= f->n_paths ||
			!rtr_pm_ref(inactive, f->group, k.dst, k.v6, &r) || path >= r.n_paths)
		return;
	/* Inactive toward the sub-flow's destination (the key's dst: the
	 * data packet's destination, the Congestion Packet's source), not the
	 * group's every destination (doc/seqbalance.md). Each Congestion
	 * Packet restarts phi: a path stays inactive while the DstToR keeps
	 * seeing CE from it. */
	ret = rtr_pm_mark(inactive, &r, path, now + sb->p.phi_ns, now);
	if (ret != RTR_PM_MARKED)
		c[RTR_LBC_dst_slot_evictions]++;
	if (ret != RTR_PM_LOST)
		c[RTR_LBC_busy_paths]++;
}

/* ------------------------------------------------------------------ DstToR */

/* A Congestion Packet for CE-marked data frame `frame`: the NOTIFY layout,
 * byte 4 = the frame's PathTag, header zero. */
static void
send_congestion(struct rtr_sb *sb, const uint8_t *frame, const struct rtr_meta *meta, uint64_t *c)
{
	static const uint8_t hdr[RTR_LB_HDR_LEN];
	struct rte_mbuf *m = sb->io.alloc(sb->io.arg);

	if (m == NULL) {
		c[RTR_LBC_ctrl_alloc_failed]++;
		return;
	}
	if (rtr_lb_ctrl_build(m, frame, meta, meta->bth_b4, RTR_SB_CP_B8, hdr) == NULL) {
		rte_pktmbuf_free(m);
		c[RTR_LBC_ctrl_alloc_failed]++;
		return;
	}
	c[RTR_LBC_notifies]++;
	sb->io.control(sb->io.arg, m);
}

int
rtr_sb_deliver(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t port, uint64_t now,
		struct rtr_lcore_stats *stats)
{
	struct rtr_sb *sb = state;
	uint64_t *c = stats->lb;
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);

	(void)port;
	(void)now;
	if (!(meta->flags & RTR_MF_ROCE))
		return RTR_SB_FORWARD;
	/* Only data packets: ACK/NAK/CNP say nothing about the data path,
	 * and a control packet (consumed before this, by the pipeline) never
	 * answers another. */
	if (rtr_meta_ce(meta) && rtr_meta_is_roce_data(meta) && !rtr_meta_lb_control(meta))
		send_congestion(sb, frame, meta, c);
	/* Byte 4 is ICRC-masked: zeroing it is the only change, and the
	 * host's RNIC gets a valid packet. */
	frame[rtr_meta_bth_off(meta) + 4] = 0;
	meta->bth_b4 = 0;
	return RTR_SB_FORWARD;
}

/* ------------------------------------------------------------------ timers */

void
rtr_sb_tick(void *state, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_sb *sb = state;
	uint64_t *c = stats->lb;
	rtr_lb_fs_age(&sb->fs, now);
	/* A switch-wide gauge: one worker sets it, the others leave theirs
	 * 0, so the sum over workers is the count. */
	if (sb->p.worker == 0 && sb->p.shared != NULL)
		c[RTR_LBC_sb_paths_inactive] = rtr_pm_count(sb->p.shared, now);
}

uint64_t
rtr_sb_next_deadline(const void *state)
{
	const struct rtr_sb *sb = state;

	(void)sb;
	return NEVER;
}

/* ------------------------------------------------------------- the mode */

/* Config microseconds become nanoseconds here; the switch's flow table size
 * is split between the workers. */
void *
rtr_sb_init(const struct rtr_lb_init *in)
{
	const struct rtr_seqbalance_cfg *sc = rtr_seqbalance_config(in->cfg);
	unsigned int nw = in->n_workers ? in->n_workers : 1;
	struct rtr_ft_limit lim[RTR_FT_ORIGINS];
	struct rtr_sb_params p = {
			.phi_ns = (uint64_t)sc->phi_us * 1000,
			.subflow_idle_ns = (uint64_t)sc->subflow_idle_us * 1000,
			.flow_entries = (sc->flow_table_size + nw - 1) / nw,
			.ft_limits = lim,
			.host_port_mask = in->host_port_mask,
			.hash_seed = in->hash_seed,
			.worker = in->worker,
			.socket_id = in->socket,
			.use_rte_malloc = in->use_rte_malloc,
			.shared = in->shared,
	};

	rtr_lb_ft_limits(in, p.flow_entries, lim);
	return rtr_lb_fs_clock(rtr_sb_create(&p, &in->io), in->clock);
}

/* SeqBalance sub-flows: where they were placed. */
static void
sb_flow_view(const struct rtr_lb_flow_info *f, const struct rtr_lb_kv *kv)
{
	kv->u64(kv->arg, "path", f->path);
}

const struct rtr_lb_ops rtr_lb_seqbalance = {
		.name = "seqbalance",
		.mode = RTR_LB_SEQBALANCE,
		.flow_affinity = true,
		/* Data packets carry no header (only byte 4): on fabric ports the
	 * Congestion Packets are read with theirs, and a ConWeave DATA
	 * header by its length signature, to be removed before a host. */
		.fabric_parse_flags = RTR_LB_PARSE_FOREIGN,
		.table = rtr_lb_fs_table,
		/* Every RoCE packet toward a host: byte 4 must be zeroed. */
		.deliver_flags = RTR_MF_ROCE,
		.shared_create = rtr_sb_shared_create,
		.shared_free = rtr_sb_shared_free,
		.init = rtr_sb_init,
		.fini = rtr_sb_free,
		.pick = rtr_sb_pick,
		.prefetch = rtr_lb_fs_prefetch,
		.control_rx = rtr_sb_control_rx,
		.deliver = rtr_sb_deliver,
		.tick = rtr_sb_tick,
		.next_deadline = rtr_sb_next_deadline,
		.flows = rtr_lb_fs_flows,
};

/* What rtr_sb_create and rtr_sb_shared_create allocate from the DPDK
 * heap: a worker's flow table; the inactive-path table once. */
static void
sb_state_bytes(const struct rtr_config *cfg, unsigned int n_workers, uint64_t *per_worker,
		uint64_t *shared)
{
	const struct rtr_seqbalance_cfg *sc = rtr_seqbalance_config(cfg);

	*per_worker = rtr_lb_ft_bytes(sc->flow_table_size, n_workers, sizeof(struct sb_flow));
	*shared = rtr_pm_memsize_cfg(cfg, sc->dst_prefix_len, sc->dst_prefix_len6);
}

const struct rtr_lb_desc rtr_lb_seqbalance_desc = {
		.name = "seqbalance",
		.summary = "SeqBalance: congestion table and PathTag",
		.ops = &rtr_lb_seqbalance,
		.config = &rtr_seqbalance_section,
		.spine = RTR_LB_SPINE_ECMP,
		.state_bytes = sb_state_bytes,
		.flow_view = sb_flow_view,
		.counter_first = RTR_LBC_SB_FIRST,
		.n_counters = RTR_LBC_SB_N,
		/* Its Congestion Packet has the LB control-packet layout; its
	 * PathTag is in byte 4, which the all-modes rule clears toward a
	 * host: nothing else of it to strip. */
		.host_check = rtr_lb_ctrl_host_check,
};
