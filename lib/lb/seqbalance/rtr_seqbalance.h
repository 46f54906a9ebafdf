/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * SeqBalance (Luo et al.), both halves, as ALGORITHMS.md 3 fixes them:
 *   SrcToR: RoCE packets from a host are cut into sub-flows (a flow-table
 *   entry per (src IP, dst IP, UDP sport), a new sub-flow after an idle gap
 *   of subflow_idle); the first packet of a sub-flow picks its path by double
 *   hashing over the paths that are not inactive, later ones keep it (no
 *   reordering for go-back-N); every packet carries the path in BTH byte 4
 *   (the PathTag). A Congestion Packet marks a path inactive for phi.
 *   DstToR: a CE-marked data packet from the fabric is answered with a
 *   Congestion Packet carrying its PathTag (ConWeave NOTIFY layout); byte 4
 *   is zeroed before the host sees it (ICRC-masked: nothing else changes).
 * One instance per worker; the inactive table is shared by the workers of
 * a switch (struct rtr_sb_shared).
 *
 * No EAL I/O: time is a parameter, packets leave through the callbacks of
 * struct rtr_sb_io, so unit tests drive every rule on a virtual clock with
 * plain (calloc'd) mbufs.
 */
#ifndef RTR_SEQBALANCE_H
#define RTR_SEQBALANCE_H

#include <stdbool.h>
#include <stdint.h>

#include "rtr_lb.h"
#include "rtr_lb_flow.h"
#include "rtr_parse.h"
#include "rtr_route.h"

struct rtr_ft;
struct rtr_ft_limit;

struct rte_mbuf;

/*
 * The double-hashing sequence of a sub-flow whose flow hash is h1, over a
 * group of n paths: h2 = rtr_hash_mix(h1 ^ RTR_SB_H2_SALT) | 1, step = the
 * ((h2 >> 1) mod phi(n))-th number (from 0, ascending) among those in 1..n
 * that are coprime to n, candidate i = (h1 + i * step) mod n for i < n:
 * every path exactly once, h1 mod n first. For a power-of-two n the step is
 * h2 mod n (the paper's). Part of the contract: tests and tools predict
 * paths with it.
 */
#define RTR_SB_H2_SALT 0x9e3779b9u

/* BTH byte 8 of a Congestion Packet: cw_op 3 (NOTIFY), everything else 0. */
#define RTR_SB_CP_B8 ((uint8_t)(RTR_LB_OP_NOTIFY << 5))

/*
 * Per switch (rtr_lb_ops.shared_create): until when each path of each uplink
 * group is inactive toward each destination ToR (a Congestion Packet is
 * about one path to one DstToR), a struct rtr_pm keyed by (group,
 * destination masked to seqbalance.dst_prefix_len / dst_prefix_len6, path).
 * Unit tests of the state machine may create their own rtr_pm keyed by
 * (group, path) alone.
 */
struct rtr_pm;

void *rtr_sb_shared_create(
		const struct rtr_config *cfg, unsigned int n_groups, bool rte, int socket);
void rtr_sb_shared_free(void *shared);

/* Whether path `path` of group g_idx is inactive at now_ns toward any
 * destination (false for a group or path outside the table). */
bool rtr_sb_path_inactive(const struct rtr_pm *inactive, unsigned int g_idx, unsigned int path,
		uint64_t now_ns);

/* ... toward destination dst (16 bytes; IPv4: the first 4). */
bool rtr_sb_path_inactive_dst(const struct rtr_pm *inactive, unsigned int g_idx, const uint8_t *dst,
		bool v6, unsigned int path, uint64_t now_ns);

struct rtr_sb_params {
	uint64_t phi_ns;          /* how long a Congestion Packet makes a path inactive */
	uint64_t subflow_idle_ns; /* idle gap after which a flow starts a new sub-flow */
	uint32_t flow_entries;    /* this worker's sub-flow table */
	const struct rtr_ft_limit *ft_limits; /* per host port, read at create; NULL: none */
	uint32_t host_port_mask;              /* ports whose RoCE packets get SeqBalance */
	uint32_t hash_seed;                   /* the parser's flow-hash seed (reverse lookups) */
	unsigned int worker;                  /* for names; worker 0 sets the inactive gauge */
	int socket_id;
	bool use_rte_malloc;   /* false: no EAL (unit tests) */
	struct rtr_pm *shared; /* the inactive table (rtr_sb_shared_create), or NULL */
};

struct rtr_sb;

/* io.control gets the Congestion Packets to route and send (io.deliver is
 * not used). */
struct rtr_sb *rtr_sb_create(const struct rtr_sb_params *p, const struct rtr_lb_io *io);
void rtr_sb_free(void *state);

/* rtr_lb_ops.init: the parameters from the seqbalance section of in->cfg. */
void *rtr_sb_init(const struct rtr_lb_init *in);

/* Aging of idle sub-flow entries: max(100 ms, 4 x subflow_idle), so that
 * an entry outlives its sub-flow long enough for late Congestion Packets. */
uint64_t rtr_sb_aging_ns(const struct rtr_sb_params *p);

/*
 * SrcToR: choose the path of a packet routed to uplink group g (index g_idx
 * in the route table). A RoCE packet from a host port (meta->in_port in
 * host_port_mask) takes its sub-flow's path and is tagged (BTH byte 4 and
 * meta->bth_b4 = path); everything else goes by ECMP, untouched. Returns
 * the path index, or -1 when no path of g is live. c: the worker's LB
 * counters in st->lb.
 */
int rtr_sb_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now_ns, struct rtr_lcore_stats *st);

#define RTR_SB_FORWARD RTR_LB_FORWARD /* rtr_sb_deliver: the caller sends m on */

/*
 * DstToR: a RoCE packet from a fabric port routed to host port `port`. A
 * CE-marked data packet is answered with a Congestion Packet (io.control);
 * byte 4 is zeroed. Always RTR_SB_FORWARD (nothing is held).
 */
int rtr_sb_deliver(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t port,
		uint64_t now_ns, struct rtr_lcore_stats *st);

/*
 * SrcToR: a control packet (parsed with its header, RTR_MF_LB_HDR) routed
 * to one of this switch's host ports. A Congestion Packet (cw_op 3) of a
 * known sub-flow marks its path inactive until now + phi. The caller frees
 * m (never forwarded).
 */
void rtr_sb_control_rx(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns,
		struct rtr_lcore_stats *st);

/* A step of sub-flow aging; worker 0 also sets the sb_paths_inactive gauge. */
void rtr_sb_tick(void *state, uint64_t now_ns, struct rtr_lcore_stats *st);

/* No timers of its own: UINT64_MAX (the periodic tick is enough). */
uint64_t rtr_sb_next_deadline(const void *state);

/* The mode: its ops and its registry entry. */
extern const struct rtr_lb_ops rtr_lb_seqbalance;
extern const struct rtr_lb_desc rtr_lb_seqbalance_desc;

#endif /* RTR_SEQBALANCE_H */
