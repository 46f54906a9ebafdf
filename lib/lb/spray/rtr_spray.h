/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * lb: spray (ALGORITHMS.md 6, doc/spray.md): every RoCE data
 * packet of a flow takes its own path (per-flow round robin over the
 * group's live uplinks), stamped by the SrcToR with a per-flow sequence
 * number in the 4 bytes after the BTH (the ConWeave DATA layout), skipping
 * paths whose uplink queue builds or that the DstToR reported congested (a
 * NOTIFY for a CE-marked packet); the DstToR restores the order in a
 * per-flow reorder window before the host's go-back-N RNIC sees it. One
 * instance per worker; the busy marks are per switch (struct rtr_pm).
 *
 * No EAL I/O: time is a parameter, packets leave through the callbacks of
 * struct rtr_lb_io, so unit tests drive every transition on a virtual clock
 * with plain (calloc'd) mbufs.
 */
#ifndef RTR_SPRAY_H
#define RTR_SPRAY_H

#include <stdbool.h>
#include <stdint.h>

#include "rtr_lb.h"
#include "rtr_parse.h"
#include "rtr_route.h"

struct rte_mbuf;
struct rtr_ft_limit;

/*
 * Resv7 of a spray DATA packet: cw_op DATA (so the parser's length
 * signature, the host rules and every ToR's strip treat it as the ConWeave
 * DATA layout) with phase 1 and tail 1, a combination ConWeave never sends
 * (its TAIL is a phase-0 packet): a spray DstToR tells the two apart.
 */
#define RTR_SPRAY_B8 ((uint8_t)(RTR_LB_OP_DATA << 5 | 1 << 4 | 1))

/* The sequence number in the header (big-endian, 32 bits). */
static inline uint32_t
rtr_spray_seq(const uint8_t *h)
{
	return (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
}

/*
 * The auto timeout's histogram of skew samples (ns, at most 2^32 - 1):
 * buckets 0..3 hold 0..3 ns; above, 4 buckets per power of two: sample
 * s in [2^e, 2^(e+1)) goes to 4 (e - 1) + m, m = the two bits after the
 * leading one, the range [(4 + m) 2^(e-2), (5 + m) 2^(e-2)).
 */
#define RTR_SP_SKEW_BUCKETS 124

static inline uint32_t
rtr_sp_skew_bucket(uint64_t s)
{
	uint32_t e;

	if (s > UINT32_MAX)
		s = UINT32_MAX;
	if (s < 4)
		return (uint32_t)s;
	e = 63 - (uint32_t)__builtin_clzll(s);
	return 4 * (e - 1) + (uint32_t)((s >> (e - 2)) & 3);
}

/* The end (exclusive) of bucket b's range. */
static inline uint64_t
rtr_sp_skew_bucket_end(uint32_t b)
{
	if (b < 4)
		return b + 1;
	return (uint64_t)(4 + (b & 3) + 1) << (b / 4 - 1);
}

struct rtr_sp_params {
	uint32_t flow_entries;                /* this worker's flow table (both roles) */
	const struct rtr_ft_limit *ft_limits; /* per host port, read at create; NULL: none */
	uint32_t window_slots;                /* W, a power of two, 2..4096 */
	uint32_t n_windows;                   /* reorder windows, at most 65535 */
	uint64_t timeout_ns;                  /* gap timeout; 0: auto */
	uint64_t timeout_min_ns;              /* auto: clamp */
	uint64_t timeout_max_ns;              /* auto: clamp, and the value before any sample */
	uint64_t margin_ns;                   /* auto: added to the skew estimate */
	uint32_t hold_budget;                 /* mbufs this worker may hold; 0: no limit */
	uint32_t first_seq;      /* a new SrcToR flow's first number (0; tests: wrap) */
	uint32_t queue_slack;    /* SrcToR: skip a path whose uplink queue holds more
				  * than this many of our packets above the least
				  * loaded live path's; 0: never skip */
	uint32_t host_port_mask; /* the switch's host ports (what is "ours" to count) */
	uint64_t busy_ns;        /* a NOTIFY keeps its path out of turn this long; 0: off */
	uint32_t hash_seed;      /* the parser's (the flow of a NOTIFY) */
	void *shared;            /* busy marks (struct rtr_pm), NULL: none */
	unsigned int worker;
	int socket_id;
	bool use_rte_malloc;
	/* How fini frees what is still held; NULL: rte_pktmbuf_free. */
	void (*mbuf_free)(struct rte_mbuf *m);
};

struct rtr_sp;

struct rtr_sp *rtr_sp_create(const struct rtr_sp_params *p, const struct rtr_lb_io *io);
void rtr_sp_free(void *state);

/* The rtr_lb_ops entries (their contracts are rtr_lb.h's). */
int rtr_sp_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now_ns, struct rtr_lcore_stats *st);
int rtr_sp_deliver(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t port,
		uint64_t now_ns, struct rtr_lcore_stats *st);
void rtr_sp_tick(void *state, uint64_t now_ns, struct rtr_lcore_stats *st);
uint64_t rtr_sp_next_deadline(const void *state);
unsigned int rtr_sp_flush(void *state, int port, uint64_t now_ns, struct rtr_lcore_stats *st);
uint64_t rtr_sp_held(const void *state);
void *rtr_sp_shared_create(
		const struct rtr_config *cfg, unsigned int n_groups, bool rte, int socket);
void rtr_sp_shared_free(void *shared);
void rtr_sp_control_rx(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns,
		struct rtr_lcore_stats *st);
void rtr_sp_queued(void *state, const struct rte_mbuf *m, const struct rtr_meta *meta,
		uint16_t out_port);
void rtr_sp_depart(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns,
		struct rtr_lcore_stats *st);

/* The gap timeout the worker applies now (fixed, or the auto estimate). */
uint64_t rtr_sp_timeout_ns(const void *state);

/* Flow-table aging of both roles. */
uint64_t rtr_sp_aging_ns(const struct rtr_sp_params *p);

#endif /* RTR_SPRAY_H */
