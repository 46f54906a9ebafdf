/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * CONGA (Alizadeh et al., SIGCOMM'14), the leaf-to-leaf scheme, as
 * doc/conga.md fixes it from the paper and the ConWeave artifact's
 * conga-routing model. The algorithm's core (this file's first part: each
 * piece a pure function of its state and a time parameter, so that unit
 * tests drive it on a virtual clock) and the mode `conga` built on it
 * (rtr_conga_mode.c, the last part: the hooks of struct rtr_lb_ops).
 *
 *   DRE        one per link at every hop: X += bytes of every packet sent,
 *              X *= (1 - alpha) every Tdre; quantised to Q bits against
 *              the link's rate: floor(X * 8 * 2^Q / (rate * Tdre / alpha)),
 *              at most 2^Q - 1.
 *   CE         carried forward in the packet: each hop (source leaf
 *              uplink, spine downlink) writes max(packet CE, its egress
 *              link's quantised DRE).
 *   from-leaf  at the destination leaf, per (source leaf, path): the last
 *              CE seen; one entry fed back per reverse packet toward that
 *              leaf, round-robin over the paths, changed entries first.
 *   to-leaf    at the source leaf, per (destination leaf, path): the
 *              metric fed back; older than the ageing time it counts 0.
 *   flowlets   per flow hash (a direct-mapped table, as the paper's): a
 *              packet at least gap after the flow's last starts a flowlet,
 *              placed on the live path minimising max(local uplink CE,
 *              remote metric); among equals the flow's previous path if it
 *              is one of them, else one drawn at random.
 */
#ifndef RTR_CONGA_H
#define RTR_CONGA_H

#include <stdbool.h>
#include <stdint.h>

#define RTR_CONGA_MAX_PATHS 64
#define RTR_CONGA_NO_FB     0xff /* no feedback in a packet */

/* ------------------------------------------------------------------ DRE */

struct rtr_conga_dre_params {
	uint64_t period_ns; /* Tdre, at least 1 */
	double alpha;       /* decay per period, (0, 1] */
	unsigned int q;     /* quantisation bits, 1..8 */
	double rate_bps;    /* the link's rate */
};

struct rtr_conga_dre {
	uint64_t x;       /* bytes, decayed */
	uint64_t next_ns; /* the next decay; 0: not started */
};

/* Decay for every period boundary at or before now (the first call starts
 * the clock: the first boundary is now + Tdre). */
void rtr_conga_dre_advance(
		struct rtr_conga_dre *d, const struct rtr_conga_dre_params *p, uint64_t now_ns);
/* A packet of `bytes` sent on the link at now_ns. */
void rtr_conga_dre_add(struct rtr_conga_dre *d, const struct rtr_conga_dre_params *p,
		uint64_t now_ns, uint32_t bytes);
/* The quantised value, 0 .. 2^q - 1. */
uint8_t rtr_conga_dre_q(const struct rtr_conga_dre *d, const struct rtr_conga_dre_params *p);

/* A hop's update of the CE a packet carries. */
static inline uint8_t
rtr_conga_hop_ce(uint8_t pkt_ce, uint8_t link_ce)
{
	return pkt_ce > link_ce ? pkt_ce : link_ce;
}

/* ------------------------------------- the 4-byte header (doc/conga.md) */

/* The fields of the header after the BTH (planned: no switch writes it
 * yet). Byte 0..1 source leaf (network order), byte 2 feedback path
 * (RTR_CONGA_NO_FB: none), byte 3 CE (bits 7..4) and feedback metric
 * (bits 3..0). */
struct rtr_conga_hdr {
	uint16_t src_leaf;
	uint8_t fb_path;
	uint8_t ce;        /* 0..15 */
	uint8_t fb_metric; /* 0..15 */
};

void rtr_conga_hdr_pack(uint8_t h[4], const struct rtr_conga_hdr *f);
void rtr_conga_hdr_unpack(const uint8_t h[4], struct rtr_conga_hdr *f);
/* A hop: the CE nibble becomes max(CE, link_ce); nothing else changes. */
void rtr_conga_hdr_hop(uint8_t h[4], uint8_t link_ce);

/* ------------------------------------------------------- leaf tables */

struct rtr_conga_tables;

struct rtr_conga_params {
	unsigned int n_leaves;  /* leaf ids 0 .. n_leaves - 1 */
	unsigned int n_paths;   /* paths (uplinks) per leaf pair, <= 64 */
	uint64_t aging_ns;      /* a to-leaf entry older than this counts 0 */
	uint64_t gap_ns;        /* flowlet gap, at least 1 */
	uint32_t flowlet_slots; /* the flowlet table, a power of two */
	uint64_t rng_seed;
	/* A new flowlet weighs this many consecutive paths from a random
	 * offset (the ConWeave artifact's CONGA: 4); 0 or >= n_paths: every
	 * path (the CONGA paper). */
	unsigned int samples;
};

/* What the tables count (doc/conga.md "Counters"). */
struct rtr_conga_counts {
	uint64_t flowlets;       /* new flowlets */
	uint64_t path_changes;   /* flowlets on another path than the flow's last */
	uint64_t fb_sent;        /* feedback put in reverse packets */
	uint64_t fb_received;    /* feedback stored in the to-leaf table */
	uint64_t metric_updates; /* from-leaf entries written */
	uint64_t aged;           /* to-leaf entries reset to 0 by ageing */
};

struct rtr_conga_tables *rtr_conga_tables_create(const struct rtr_conga_params *p);
void rtr_conga_tables_free(struct rtr_conga_tables *t);
const struct rtr_conga_counts *rtr_conga_counts(const struct rtr_conga_tables *t);

/* Destination leaf: a packet from leaf `src` on `path` arrived with `ce`. */
void rtr_conga_from_leaf_put(struct rtr_conga_tables *t, unsigned int src, unsigned int path,
		uint8_t ce, uint64_t now_ns);
/* Destination leaf: the feedback for a reverse packet toward leaf `dst`:
 * false when there is none; else *path and *metric. Round-robin over the
 * paths, entries changed since they were last fed back first. */
bool rtr_conga_feedback(
		struct rtr_conga_tables *t, unsigned int dst, uint8_t *path, uint8_t *metric);
/* Source leaf: feedback from leaf `from` about `path` (the paths from this
 * leaf to `from`). */
void rtr_conga_to_leaf_put(struct rtr_conga_tables *t, unsigned int from, unsigned int path,
		uint8_t metric, uint64_t now_ns);
/* The remote metric of (leaf, path) at now_ns: 0 when never set or stale
 * (older than aging_ns). */
uint8_t rtr_conga_to_leaf_get(const struct rtr_conga_tables *t, unsigned int leaf,
		unsigned int path, uint64_t now_ns);
/* Forget everything about leaf `leaf` (both rows, the feedback position):
 * its slot now stands for another leaf. */
void rtr_conga_leaf_reset(struct rtr_conga_tables *t, unsigned int leaf);
/* Ageing sweep: every to-leaf entry older than aging_ns is reset to 0
 * (counted once in aged). */
void rtr_conga_age(struct rtr_conga_tables *t, uint64_t now_ns);
/* The same for leaf `leaf`'s row only (a sweep in slices). */
void rtr_conga_age_leaf(struct rtr_conga_tables *t, unsigned int leaf, uint64_t now_ns);

/*
 * The best path toward leaf `dst` among the live paths (bit i of live:
 * path i), local[i] the quantised DRE of path i's uplink: the least
 * max(local, remote); among equals `prefer` when it is one of them, else a
 * random one. -1 when no path is live.
 */
int rtr_conga_best(struct rtr_conga_tables *t, unsigned int dst, uint64_t live,
		const uint8_t *local, int prefer, uint64_t now_ns);

/*
 * Source leaf: the path of a packet of the flow with hash `hash` toward
 * leaf `dst` at now_ns: the flowlet's path when the flow's last packet was
 * less than gap_ns ago and its path is live; else a new flowlet on
 * rtr_conga_best (the previous path preferred among equals).
 */
int rtr_conga_flowlet_path(struct rtr_conga_tables *t, uint32_t hash, unsigned int dst,
		uint64_t live, const uint8_t *local, uint64_t now_ns);

/* ------------------------------------------------------------- the mode */

#include "rtr_common.h"
#include "rtr_lb.h"

struct rte_mbuf;
struct rtr_ft_limit;

/*
 * Resv7 of a CONGA DATA packet: op DATA (the parser's length signature,
 * the host rules and every ToR's strip treat it as the shared layout's
 * DATA header) with phase 1 and ask 1, tail 0, epoch 0: a combination
 * ConWeave never sends (it asks only in phase 0) and spray's is not
 * (phase 1, tail 1: RTR_SPRAY_B8).
 */
#define RTR_CONGA_B8 ((uint8_t)(1 << 5 | 1 << 4 | 1 << 1))

struct rtr_cg_params {
	uint64_t gap_ns;        /* flowlet gap, at least 1 */
	uint64_t dre_period_ns; /* Tdre, at least 1 */
	double alpha;           /* (0, 1] */
	unsigned int q;         /* 1..4 */
	uint64_t aging_ns;      /* to-leaf entries */
	/* The DRE's rate of each fabric port (0: not a fabric port, no DRE). */
	double rate_bps[RTR_MAX_PORTS];
	uint32_t host_port_mask;
	uint32_t flow_entries;                /* this worker's flowlet table */
	const struct rtr_ft_limit *ft_limits; /* per host port, read at create; NULL: none */
	uint32_t leaf_slots;                  /* a power of two */
	unsigned int n_paths;                 /* paths per leaf pair kept, 1..64 */
	unsigned int samples;                 /* conga.path_samples (0: every path) */
	unsigned int dst_prefix_len;          /* a leaf's hosts: IPv4 masked to this */
	unsigned int dst_prefix_len6;
	uint16_t leaf_id; /* the header's source leaf: switch.id */
	uint64_t rng_seed;
	/* The switch's published DREs (rtr_cg_shared_create): a link's DRE
	 * is the sum of every worker's bytes on it. NULL: this worker's own
	 * only (unit tests). */
	struct rtr_cg_shared *shared;
	unsigned int n_workers; /* workers that publish, 1..RTR_MAX_LCORES */
	unsigned int worker;
	int socket_id;
	bool use_rte_malloc; /* false: no EAL (unit tests) */
};

struct rtr_cg;
struct rtr_cg_shared;

/* Per switch: each worker's DRE bytes per port, published for the others. */
struct rtr_cg_shared *rtr_cg_shared_new(bool use_rte_malloc, int socket);
void rtr_cg_shared_free(void *shared);

struct rtr_cg *rtr_cg_create(const struct rtr_cg_params *p);
void rtr_cg_free(void *state);
/* rtr_lb_ops.init: the parameters from the conga section and the ports. */
void *rtr_cg_init(const struct rtr_lb_init *in);

/* The rtr_lb_ops entries (their contracts are rtr_lb.h's). */
int rtr_cg_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now_ns, struct rtr_lcore_stats *st);
int rtr_cg_deliver(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t port,
		uint64_t now_ns, struct rtr_lcore_stats *st);
void rtr_cg_post_route(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t out_port,
		uint64_t now_ns, struct rtr_lcore_stats *st);
void rtr_cg_queued(void *state, const struct rte_mbuf *m, const struct rtr_meta *meta,
		uint16_t out_port);
void rtr_cg_tick(void *state, uint64_t now_ns, struct rtr_lcore_stats *st);
uint64_t rtr_cg_next_deadline(const void *state);

/* For tests and telemetry: the quantised DRE of a port now; the tables. */
uint8_t rtr_cg_port_q(const struct rtr_cg *cg, uint16_t port);
struct rtr_conga_tables *rtr_cg_tables(struct rtr_cg *cg);
/* The slot of the leaf whose hosts' addresses addr (16 bytes; IPv4: the
 * first 4) falls in, -1 when no slot holds it. */
int rtr_cg_leaf_of(const struct rtr_cg *cg, const uint8_t *addr, bool v6);

extern const struct rtr_lb_ops rtr_lb_conga;
extern const struct rtr_lb_desc rtr_lb_conga_desc;

#endif /* RTR_CONGA_H */
