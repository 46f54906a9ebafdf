/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * lb: conga, the mode (doc/conga.md) on the core of rtr_conga.c.
 *
 *   SrcToR  (pick) a host's RoCE packet: its flow's flowlet path (a new
 *           flowlet on the live path minimising max(local uplink DRE,
 *           remote metric)), then the 4-byte header in the shared LB
 *           layout: byte 4 the path, Resv7 RTR_CONGA_B8, source leaf id,
 *           CE = the uplink's quantised DRE, one feedback entry of the
 *           from-leaf row of the destination's leaf.
 *   spine   (post_route) a stamped packet from a fabric port to a fabric
 *           port: CE = max(CE, the egress link's quantised DRE).
 *   DstToR  (deliver) a stamped packet toward a host: its CE into the
 *           from-leaf table, its feedback into the to-leaf table, the
 *           header removed (the sender's bytes and ICRC again).
 *   every   (queued) the DRE of each fabric port counts every byte the
 *           egress took; (tick) DRE decay every Tdre, to-leaf ageing.
 *
 * A leaf is named by its hosts' addresses masked to dst_prefix_len
 * (dst_prefix_len6), as ConWeave names a DstToR (conweave.dst_prefix_len):
 * the destination address of a packet for the to-leaf row and the
 * feedback, the source address of an arriving one for the from-leaf row
 * and the feedback it carries. Each name has a slot of a direct-mapped
 * table of leaf_slots; a name that takes a slot over resets its rows.
 *
 * One instance per worker: its DRE counts the bytes its own egress took
 * and publishes them (struct rtr_cg_shared, as CAVER's): a link's DRE is
 * the sum over the workers; its tables hold what its own packets carried.
 */

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "conga_config.h"
#include "conweave/rtr_conweave.h"
#include "rtr_common.h"
#include "rtr_conga.h"
#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "rtr_lb_ctrl.h"
#include "rtr_lb_flowlet.h"
#include "rtr_lb_fs.h"
#include "rtr_lb_mem.h"
#include "rtr_stats.h"

#define NEVER     UINT64_MAX
#define KIND_FLOW 1
#define AGE_SLICE 64 /* leaf slots the ageing sweep visits per tick */

/* Per switch: published DRE bytes; each worker writes its row only. */
struct rtr_cg_shared {
	_Atomic uint64_t dre[RTR_MAX_LCORES][RTR_MAX_PORTS];
	bool rte;
};

/* Which leaf a slot stands for: a masked address. */
struct cg_leaf {
	uint8_t addr[16];
	uint8_t v6;
	uint8_t used;
};

struct rtr_cg {
	struct rtr_lb_fs fs; /* first: the flow-state base (rtr_lb_fs.h) */
	struct rtr_cg_params p;
	struct rtr_conga_tables *t;
	struct cg_leaf *leaf;         /* leaf_slots */
	struct rtr_conga_counts seen; /* the core's counts already in the stats */
	uint64_t dre_next;            /* the next DRE boundary; 0: before the first tick */
	uint32_t age_cursor;          /* the next leaf slot the ageing sweep visits */
	uint32_t fabric_mask;         /* ports with a DRE (< 32) */
	struct rtr_conga_dre_params dp[RTR_MAX_PORTS];
	struct rtr_conga_dre dre[RTR_MAX_PORTS];
};

static inline bool
from_host(const struct rtr_cg *cg, const struct rtr_meta *meta)
{
	return meta->in_port < 32 && (cg->p.host_port_mask & (1u << meta->in_port));
}

static inline bool
is_fabric(const struct rtr_cg *cg, uint16_t port)
{
	return port < RTR_MAX_PORTS && cg->p.rate_bps[port] > 0;
}

/* ------------------------------------------------------------------ leaves */

static uint32_t
leaf_hash(const uint8_t *a, bool v6)
{
	uint32_t h = 2166136261u ^ (v6 ? 0x5bd1e995u : 0);

	for (unsigned int i = 0; i < 16; i++)
		h = (h ^ a[i]) * 16777619u;
	return h ^ (h >> 15);
}

/* addr masked to the leaf prefix into a (16 bytes). */
static void
leaf_name(const struct rtr_cg *cg, const uint8_t *addr, bool v6, uint8_t a[16])
{
	unsigned int plen = v6 ? cg->p.dst_prefix_len6 : cg->p.dst_prefix_len;
	unsigned int n = v6 ? 16 : 4;

	memset(a, 0, 16);
	for (unsigned int i = 0; i < n; i++) {
		unsigned int bits = plen >= 8 * (i + 1) ? 8 : plen > 8 * i ? plen - 8 * i : 0;

		a[i] = (uint8_t)(addr[i] & (uint8_t)(0xff00u >> bits));
	}
}

int
rtr_cg_leaf_of(const struct rtr_cg *cg, const uint8_t *addr, bool v6)
{
	uint8_t a[16];
	uint32_t h;
	const struct cg_leaf *s;

	leaf_name(cg, addr, v6, a);
	h = leaf_hash(a, v6) & (cg->p.leaf_slots - 1);
	s = &cg->leaf[h];
	if (s->used && s->v6 == v6 && memcmp(s->addr, a, 16) == 0)
		return (int)h;
	return -1;
}

/* The slot of addr's leaf, taken over when another leaf held it. */
static unsigned int
leaf_claim(struct rtr_cg *cg, const uint8_t *addr, bool v6, uint64_t *c)
{
	uint8_t a[16];
	uint32_t h;
	struct cg_leaf *s;

	leaf_name(cg, addr, v6, a);
	h = leaf_hash(a, v6) & (cg->p.leaf_slots - 1);
	s = &cg->leaf[h];
	if (s->used && s->v6 == v6 && memcmp(s->addr, a, 16) == 0)
		return h;
	if (s->used)
		c[RTR_LBC_conga_leaf_evictions]++;
	rtr_conga_leaf_reset(cg->t, h);
	memcpy(s->addr, a, 16);
	s->v6 = v6;
	s->used = 1;
	return h;
}

/* ------------------------------------------------------------------ setup */

struct rtr_cg *
rtr_cg_create(const struct rtr_cg_params *p)
{
	struct rtr_conga_params tp;
	struct rtr_cg *cg;

	if (p->gap_ns == 0 || p->dre_period_ns == 0 || !(p->alpha > 0 && p->alpha <= 1) ||
			p->q < 1 || p->q > 4 || p->leaf_slots == 0 ||
			(p->leaf_slots & (p->leaf_slots - 1)) != 0 || p->n_paths == 0 ||
			p->n_paths > RTR_CONGA_MAX_PATHS ||
			(p->shared != NULL && (p->n_workers == 0 || p->n_workers > RTR_MAX_LCORES ||
							      p->worker >= p->n_workers)))
		return NULL;
	cg = calloc(1, sizeof(*cg));
	if (cg == NULL)
		return NULL;
	cg->p = *p;
	tp = (struct rtr_conga_params){
			.n_leaves = p->leaf_slots,
			.n_paths = p->n_paths,
			.aging_ns = p->aging_ns,
			.gap_ns = p->gap_ns,
			.flowlet_slots = 1, /* the mode keeps flowlets in its flow table */
			.rng_seed = p->rng_seed ^ ((uint64_t)p->worker << 32),
			.samples = p->samples,
	};
	cg->t = rtr_conga_tables_create(&tp);
	cg->leaf = calloc(p->leaf_slots, sizeof(*cg->leaf));
	for (unsigned int port = 0; port < RTR_MAX_PORTS; port++) {
		if (p->rate_bps[port] <= 0)
			continue;
		if (port < 32)
			cg->fabric_mask |= 1u << port;
		cg->dp[port] = (struct rtr_conga_dre_params){
				.period_ns = p->dre_period_ns,
				.alpha = p->alpha,
				.q = p->q,
				.rate_bps = p->rate_bps[port],
		};
	}
	/* Flowlet entries, aged as letflow's (rtr_lb_flowlet.h). */
	rtr_lb_flowlet_table(&cg->fs, "cg_flows", p->worker, p->flow_entries, p->ft_limits,
			p->gap_ns, p->socket_id, p->use_rte_malloc);
	cg->p.ft_limits = NULL; /* the caller's, gone after create */
	if (cg->fs.ft == NULL || cg->t == NULL || cg->leaf == NULL) {
		rtr_cg_free(cg);
		return NULL;
	}
	return cg;
}

void
rtr_cg_free(void *state)
{
	struct rtr_cg *cg = state;

	if (cg == NULL)
		return;
	rtr_ft_free(cg->fs.ft);
	rtr_conga_tables_free(cg->t);
	free(cg->leaf);
	free(cg);
}

struct rtr_conga_tables *
rtr_cg_tables(struct rtr_cg *cg)
{
	return cg->t;
}

struct rtr_cg_shared *
rtr_cg_shared_new(bool use_rte_malloc, int socket)
{
	struct rtr_cg_shared *s = rtr_lb_zalloc(
			"cg_shared", sizeof(struct rtr_cg_shared), use_rte_malloc, socket);

	if (s != NULL)
		s->rte = use_rte_malloc;
	return s;
}

void
rtr_cg_shared_free(void *shared)
{
	struct rtr_cg_shared *s = shared;

	if (s != NULL)
		rtr_lb_zfree(s, s->rte);
}

/* This worker's DRE of port, for the others to read. */
static inline void
dre_publish(struct rtr_cg *cg, unsigned int port)
{
	if (cg->p.shared != NULL)
		atomic_store_explicit(&cg->p.shared->dre[cg->p.worker][port], cg->dre[port].x,
				memory_order_relaxed);
}

uint8_t
rtr_cg_port_q(const struct rtr_cg *cg, uint16_t port)
{
	struct rtr_conga_dre d = {0};

	if (!is_fabric(cg, port))
		return 0;
	if (cg->p.shared == NULL)
		return rtr_conga_dre_q(&cg->dre[port], &cg->dp[port]);
	for (unsigned int w = 0; w < cg->p.n_workers; w++)
		d.x += atomic_load_explicit(&cg->p.shared->dre[w][port], memory_order_relaxed);
	return rtr_conga_dre_q(&d, &cg->dp[port]);
}

/* The core's counts since the last call into the stats. */
static void
sync_counts(struct rtr_cg *cg, uint64_t *c)
{
	const struct rtr_conga_counts *n = rtr_conga_counts(cg->t);

	c[RTR_LBC_conga_fb_sent] += n->fb_sent - cg->seen.fb_sent;
	c[RTR_LBC_conga_fb_received] += n->fb_received - cg->seen.fb_received;
	c[RTR_LBC_conga_aged] += n->aged - cg->seen.aged;
	cg->seen = *n;
}

/* ------------------------------------------------------------------ SrcToR */

/* The quantised DRE of the uplinks of g's first np paths (only when a
 * flowlet starts: a packet within one needs its own path's only). */
static void
local_q(const struct rtr_cg *cg, const struct rtr_group *g, unsigned int np, uint8_t *local)
{
	for (unsigned int i = 0; i < np; i++)
		local[i] = rtr_cg_port_q(cg, g->port[i]);
}

/* The flow's path: its flowlet's, or a new flowlet's on the best path. */
static int
flow_path(struct rtr_cg *cg, const struct rtr_group *g, unsigned int g_idx, struct rtr_meta *meta,
		const struct rtr_ft_key *k, uint64_t live, int leaf, unsigned int np, uint64_t now,
		uint64_t *c)
{
	uint8_t local[RTR_MAX_PATHS];
	unsigned int dst = leaf >= 0 ? (unsigned int)leaf : cg->p.leaf_slots;
	struct rtr_ft_entry *e;
	enum rtr_ft_status st;
	struct rtr_lb_flowlet *f;
	int p;

	e = rtr_ft_lookup(cg->fs.ft, k, meta->flow_hash, now, true, meta->in_port, &st);
	if (unlikely(e == NULL)) {
		/* No state: the path ECMP gives, stable for the flow. */
		rtr_ft_count_refusal(st, c);
		return rtr_group_pick(g, meta->flow_hash);
	}
	f = rtr_lb_flowlet_of(e);
	switch (rtr_lb_flowlet_step(&cg->fs, e, st, g, g_idx, live, meta, now, cg->p.gap_ns)) {
	case RTR_FLOWLET_SAME:
		return f->path;
	case RTR_FLOWLET_NEW: {
		/* A new flowlet: the least max(local, remote); among equals
		 * the flow's previous path (the paper's cached port). */
		bool same = st != RTR_FT_NEW && f->group == g_idx && f->n_paths == g->n_paths;

		local_q(cg, g, np, local);
		p = rtr_conga_best(cg->t, dst, live, local, same ? f->path : -1, now);
		if (p < 0)
			return -1;
		if (st != RTR_FT_NEW && ((unsigned int)p != f->path || !same))
			c[RTR_LBC_conga_path_changes]++;
		c[RTR_LBC_conga_flowlets]++;
		f->flowlets++;
		break;
	}
	default:
		/* Within a flowlet its path went down or the route moved the
		 * flow: the best path now, the flowlet goes on there. */
		local_q(cg, g, np, local);
		p = rtr_conga_best(cg->t, dst, live, local, -1, now);
		if (p < 0)
			return -1;
		c[RTR_LBC_conga_path_changes]++;
		c[RTR_LBC_reroutes]++;
		break;
	}
	rtr_lb_flowlet_set(e, (unsigned int)p, g, g_idx, now);
	return p;
}

int
rtr_cg_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_cg *cg = state;
	uint64_t *c = stats->lb;
	uint64_t live = atomic_load_explicit(&g->live_mask, memory_order_relaxed);
	struct rtr_conga_hdr h;
	struct rtr_ft_key k;
	uint8_t *frame, *bth;
	unsigned int np;
	int leaf, path;

	/* Only a host's RoCE packets carry the header, data and ACKs (the
	 * reverse traffic that carries most feedback); transit, frames that
	 * already have LB fields and anything but RoCE go by ECMP, and so
	 * do CNPs: their BECN bit is in byte 4, which the header's path
	 * takes and the DstToR's strip zeroes. */
	if (!(meta->flags & RTR_MF_ROCE) || !from_host(cg, meta) ||
			(meta->flags & (RTR_MF_LB_HDR | RTR_MF_TRIMMED)) ||
			meta->bth_opcode == RTR_BTH_OP_CNP)
		goto ecmp;
	if (unlikely(meta->bth_b8 & RTR_BTH_RESV7_MASK)) {
		/* The sender's Resv7 is covered by the ICRC: no room for the
		 * marker. */
		c[RTR_LBC_conga_unstamped]++;
		goto ecmp;
	}
	np = g->n_paths < cg->p.n_paths ? g->n_paths : cg->p.n_paths;
	live &= np < 64 ? (1ULL << np) - 1 : ~0ULL;
	if (unlikely(live == 0))
		return -1;
	if (unlikely(rte_pktmbuf_headroom(m) < RTR_LB_HDR_LEN) && rtr_lb_make_headroom(m) != 0) {
		c[RTR_LBC_conga_unstamped]++;
		goto ecmp;
	}
	rtr_ft_key_from_frame(&k, rte_pktmbuf_mtod(m, const uint8_t *), meta, KIND_FLOW, false);
	leaf = rtr_cg_leaf_of(cg, k.dst, k.v6);
	path = flow_path(cg, g, g_idx, meta, &k, live, leaf, np, now, c);
	if (path < 0)
		return -1;
	frame = rtr_lb_hdr_insert(m, meta);
	if (unlikely(frame == NULL))
		goto ecmp; /* headroom was checked: not reached */
	bth = frame + rtr_meta_bth_off(meta);
	bth[4] = (uint8_t)path;
	bth[8] = (uint8_t)((bth[8] & RTR_BTH_ACKREQ) | RTR_CONGA_B8);
	h.src_leaf = cg->p.leaf_id;
	h.ce = rtr_cg_port_q(cg, g->port[path]);
	if (leaf < 0 || !rtr_conga_feedback(cg->t, (unsigned int)leaf, &h.fb_path, &h.fb_metric)) {
		h.fb_path = RTR_CONGA_NO_FB;
		h.fb_metric = 0;
	}
	rtr_conga_hdr_pack(bth + RTR_BTH_LEN, &h);
	meta->bth_b4 = bth[4];
	meta->bth_b8 = bth[8];
	meta->flags |= RTR_MF_LB_HDR;
	c[RTR_LBC_conga_packets]++;
	sync_counts(cg, c);
	return path;
ecmp:
	c[RTR_LBC_ecmp_packets]++;
	return rtr_group_pick(g, meta->flow_hash);
}

/* ------------------------------------------------------------------ every hop */

static inline bool
stamped(const struct rtr_meta *meta)
{
	return (meta->flags & (RTR_MF_LB_HDR | RTR_MF_LB_CTRL)) == RTR_MF_LB_HDR &&
	       (meta->bth_b8 & RTR_BTH_RESV7_MASK) == RTR_CONGA_B8;
}

void
rtr_cg_post_route(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t out_port,
		uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_cg *cg = state;
	uint8_t *h, ce;

	(void)now;
	/* A hop after the SrcToR (which wrote its uplink's value): the CE
	 * becomes the larger of the packet's and this egress link's. */
	if (!stamped(meta) || !is_fabric(cg, out_port) || from_host(cg, meta) ||
			rte_pktmbuf_data_len(m) <
					rtr_meta_bth_off(meta) + RTR_BTH_LEN + RTR_LB_HDR_LEN)
		return;
	h = rte_pktmbuf_mtod(m, uint8_t *) + rtr_meta_bth_off(meta) + RTR_BTH_LEN;
	ce = h[3] >> 4;
	rtr_conga_hdr_hop(h, rtr_cg_port_q(cg, out_port));
	if (h[3] >> 4 != ce)
		stats->lb[RTR_LBC_conga_ce_raised]++;
}

void
rtr_cg_queued(void *state, const struct rte_mbuf *m, const struct rtr_meta *meta, uint16_t out_port)
{
	struct rtr_cg *cg = state;

	(void)meta;
	/* What the link will carry, every packet (the DRE is the link's). */
	if (is_fabric(cg, out_port)) {
		cg->dre[out_port].x += rte_pktmbuf_pkt_len(m);
		dre_publish(cg, out_port);
	}
}

/* ------------------------------------------------------------------ DstToR */

int
rtr_cg_deliver(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t port, uint64_t now,
		struct rtr_lcore_stats *stats)
{
	struct rtr_cg *cg = state;
	uint64_t *c = stats->lb;
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	struct rtr_conga_hdr h;
	struct rtr_ft_key k;
	unsigned int leaf;

	(void)port;
	/* Not CONGA's: left to the strip every ToR applies toward a host. */
	if (!stamped(meta))
		return RTR_LB_FORWARD;
	rtr_conga_hdr_unpack(frame + rtr_meta_bth_off(meta) + RTR_BTH_LEN, &h);
	rtr_ft_key_from_frame(&k, frame, meta, KIND_FLOW, false);
	leaf = leaf_claim(cg, k.src, k.v6, c);
	rtr_conga_from_leaf_put(cg->t, leaf, meta->bth_b4, h.ce, now);
	if (h.fb_path != RTR_CONGA_NO_FB)
		rtr_conga_to_leaf_put(cg->t, leaf, h.fb_path, h.fb_metric, now);
	c[RTR_LBC_conga_rx]++;
	/* The host gets its peer's frame (and ICRC). */
	rtr_lb_hdr_strip(m, meta);
	sync_counts(cg, c);
	return RTR_LB_FORWARD;
}

/* ------------------------------------------------------------------ timers */

void
rtr_cg_tick(void *state, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_cg *cg = state;
	uint64_t *c = stats->lb;

	if (cg->dre_next == 0 || now >= cg->dre_next) {
		uint64_t next = NEVER;

		/* Every fabric port on one grid: the first tick starts them
		 * all, each later boundary decays them all. */
		for (unsigned int port = 0; port < RTR_MAX_PORTS; port++) {
			if (!is_fabric(cg, (uint16_t)port))
				continue;
			rtr_conga_dre_advance(&cg->dre[port], &cg->dp[port], now);
			dre_publish(cg, port);
			if (cg->dre[port].next_ns < next)
				next = cg->dre[port].next_ns;
		}
		cg->dre_next = next;
	}
	/* Ageing in slices: the slots in use among the next AGE_SLICE
	 * (reads already take a stale entry for 0; the sweep resets and
	 * counts it), so that a tick never walks the whole table. */
	for (unsigned int k = 0; k < AGE_SLICE && k < cg->p.leaf_slots; k++) {
		uint32_t i = cg->age_cursor++ & (cg->p.leaf_slots - 1);

		if (cg->leaf[i].used)
			rtr_conga_age_leaf(cg->t, i, now);
	}
	rtr_lb_fs_age(&cg->fs, now);
	sync_counts(cg, c);
}

uint64_t
rtr_cg_next_deadline(const void *state)
{
	const struct rtr_cg *cg = state;

	/* The ageing slices ride on these ticks and the control polls'. */
	return cg->dre_next;
}

/* ------------------------------------------------------------- the mode */

/* Config microseconds become nanoseconds here; the flowlet table is split
 * between the workers; the fabric ports' rates (their shapers' when
 * shaped) are the DREs'; the leaf id is switch.id; the tables keep as many
 * paths as the largest uplink group of the routes. */
void *
rtr_cg_init(const struct rtr_lb_init *in)
{
	const struct rtr_config *cfg = in->cfg;
	const struct rtr_conga_cfg *cc = rtr_conga_config(cfg);
	unsigned int nw = in->n_workers ? in->n_workers : 1;
	struct rtr_ft_limit lim[RTR_FT_ORIGINS];
	struct rtr_cg_params p = {
			.gap_ns = (uint64_t)cc->flowlet_gap_us * 1000,
			.dre_period_ns = (uint64_t)cc->dre_period_us * 1000,
			.alpha = cc->dre_alpha,
			.q = cc->quantize_bits,
			.aging_ns = (uint64_t)cc->aging_us * 1000,
			.host_port_mask = in->host_port_mask,
			.flow_entries = (cc->flow_table_size + nw - 1) / nw,
			.ft_limits = lim,
			.leaf_slots = cc->leaf_slots,
			.n_paths = 1,
			.samples = cc->path_samples,
			.dst_prefix_len = cc->dst_prefix_len,
			.dst_prefix_len6 = cc->dst_prefix_len6,
			.leaf_id = cfg->sw.id,
			.rng_seed = (uint64_t)cfg->sw.id << 16 ^ in->hash_seed,
			.shared = in->shared,
			.n_workers = nw,
			.worker = in->worker,
			.socket_id = in->socket,
			.use_rte_malloc = in->use_rte_malloc,
	};

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];

		if (pc->port >= RTR_MAX_PORTS || pc->role != RTR_PORT_FABRIC)
			continue;
		p.rate_bps[pc->port] = pc->shape_gbps > 0 ? pc->shape_gbps * 1e9
							  : (double)pc->speed_gbps * 1e9;
		if (p.rate_bps[pc->port] <= 0)
			p.rate_bps[pc->port] = 100e9;
	}
	for (unsigned int i = 0; i < cfg->n_routes; i++)
		if (cfg->routes[i].is_group && cfg->routes[i].n_paths > p.n_paths)
			p.n_paths = cfg->routes[i].n_paths;
	if (p.n_paths > RTR_CONGA_MAX_PATHS)
		p.n_paths = RTR_CONGA_MAX_PATHS;
	rtr_lb_ft_limits(in, p.flow_entries, lim);
	return rtr_lb_fs_clock(rtr_cg_create(&p), in->clock);
}

static void *
cg_shared_create(const struct rtr_config *cfg, unsigned int n_groups, bool rte, int socket)
{
	(void)cfg;
	(void)n_groups;
	return rtr_cg_shared_new(rte, socket);
}

const struct rtr_lb_ops rtr_lb_conga = {
		.name = "conga",
		.mode = RTR_LB_CONGA,
		.flow_affinity = true,
		/* Its own header in the shared layout (and the others' read,
		 * to be removed before a host). */
		.fabric_parse_flags = RTR_LB_PARSE_HDR,
		.deliver_flags = RTR_MF_LB_HDR,
		.table = rtr_lb_fs_table,
		.shared_create = cg_shared_create,
		.shared_free = rtr_cg_shared_free,
		.init = rtr_cg_init,
		.fini = rtr_cg_free,
		.pick = rtr_cg_pick,
		.prefetch = rtr_lb_fs_prefetch,
		.deliver = rtr_cg_deliver,
		.post_route = rtr_cg_post_route,
		.queued = rtr_cg_queued,
		.tick = rtr_cg_tick,
		.next_deadline = rtr_cg_next_deadline,
		.flows = rtr_lb_fs_flows,
};

/* A worker's flowlet table from the DPDK heap (the leaf tables are the C
 * heap's, calloc'd by the core); the published DREs once. */
static void
cg_state_bytes(const struct rtr_config *cfg, unsigned int n_workers, uint64_t *per_worker,
		uint64_t *shared)
{
	*per_worker = rtr_lb_ft_bytes(rtr_conga_config(cfg)->flow_table_size, n_workers,
			sizeof(struct rtr_lb_flowlet));
	*shared = RTE_MAX(sizeof(struct rtr_cg_shared), (size_t)64);
}

const struct rtr_lb_desc rtr_lb_conga_desc = {
		.name = "conga",
		.summary = "CONGA: flowlets on the least congested leaf-to-leaf path (DRE, "
			   "feedback)",
		.ops = &rtr_lb_conga,
		.config = &rtr_conga_section,
		/* Spines raise the CE to their egress link's DRE. */
		.spine = RTR_LB_SPINE_RUN,
		.state_bytes = cg_state_bytes,
		.flow_view = rtr_lb_fs_flowlet_view,
		.counter_first = RTR_LBC_CG_FIRST,
		.n_counters = RTR_LBC_CG_N,
		/* The shared layout's DATA header: a host never sends it, none
		 * reaches a host. */
		.host_check = rtr_lb_ctrl_host_check,
		.host_strip = rtr_cw_host_strip,
};
