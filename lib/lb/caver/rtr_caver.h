/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * CAVER (Deng et al., SIGCOMM'24 poster), as ALGORITHMS.md 4 fixes it:
 * congestion-aware, flow-level source routing fed by a distance-vector
 * exchange piggybacked on RC ACKs. Every switch takes part: the ToR of a data
 * receiver starts the advertisements, each switch on the way back stores
 * them and advertises its own best path, the SrcToR places each new flow on
 * the best path and tells the next switch (the spine) which egress port to
 * use.
 *
 * No EAL I/O: time is a parameter, counters are `uint64_t *c` indexed by
 * RTR_LBC_*, so unit tests drive everything with a virtual clock and
 * calloc'd mbufs.
 *
 * Wire formats (rocetor's own; doc/wire-formats.md):
 *
 *   ACK shim, on RC ACKs only (BTH opcode 0x11), IPv4 only: 12 bytes right
 *   after the AETH (BTH + 16), i.e. between the AETH and the ICRC:
 *
 *     0..3   host         IPv4 address the advertisement is about
 *     4..7   path         one egress port per hop, hop 0 (the switch that
 *                         sent this shim) in the most significant byte,
 *                         network order
 *     8      ce           congestion of that path, 0..255 (DRE units)
 *     9      hops         switches that rewrote the shim after its origin
 *     10..11 last_switch  id of the switch that sent it, network order
 *
 *   Presence: BTH Resv7 (byte 8, low 7 bits) = 0x7F, AckReq kept. The IPv4
 *   total length and the UDP length count the shim; the IPv4 header checksum
 *   is updated and the UDP checksum is 0. The shim is covered by the ICRC,
 *   which the shimmed frame leaves as it was: the ToR that delivers the ACK
 *   to its host removes the shim and restores every covered byte (lengths,
 *   Resv7 = 0), so the RNIC sees a valid ICRC again. A switch recognises a
 *   shim only on a frame from a fabric port: IPv4, RoCE, opcode 0x11,
 *   Resv7 = 0x7F, UDP length >= 8 + 12 + 4 + 12 + 4 and the frame holds it.
 *
 *   Source route on RoCE packets: BTH byte 4 (masked by the ICRC) =
 *   0x80 | port asks the NEXT switch to send the packet out of that port
 *   (in a 2-tier fabric: the spine's egress toward the DstToR); 0 = none.
 *   The SrcToR writes it on every RoCE packet from a host port; the ToR
 *   that delivers a packet to a host zeroes it.
 *
 * State: per-switch struct rtr_caver_shared (published DRE values, the path
 * congestion table), per-worker struct rtr_caver (private DRE, flow table).
 */
#ifndef RTR_CAVER_H
#define RTR_CAVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "rtr_common.h"
#include "rtr_drop.h"
#include "rtr_lb.h"
#include "rtr_lb_flow.h"
#include "rtr_parse.h"
#include "rtr_route.h"

struct rtr_ft;
struct rtr_ft_limit;

struct rte_mbuf;
struct rtr_lb_io;

#define RTR_CAVER_SHIM_LEN 12
#define RTR_CAVER_RESV7    0x7f /* BTH Resv7 of a shimmed ACK */
#define RTR_CAVER_SR       0x80 /* BTH byte 4: a source route follows in bits 6..0 */
#define RTR_CAVER_SR_PORT  0x7f
#define RTR_CAVER_HOSTS    16384 /* default capacity of the path table (hosts) */
/* Shortest UDP datagram a shimmed ACK can be: UDP + BTH + AETH + shim + ICRC. */
#define RTR_CAVER_SHIM_UDP_MIN (8 + RTR_BTH_LEN + 4 + RTR_CAVER_SHIM_LEN + RTR_ICRC_LEN)

/* The decoded shim. */
struct rtr_caver_shim {
	uint32_t host; /* IPv4, network order */
	uint32_t path; /* host order: hop 0 in bits 31..24 */
	uint8_t ce;
	uint8_t hops;
	uint16_t last_switch; /* host order */
};

/*
 * Per switch: DRE values each worker publishes and the path congestion table
 * [destination host][egress port]. Every entry is one 64-bit word so readers
 * never see a torn one (see rtr_caver.c for the packing). Hosts are inserted
 * with a CAS and never removed; entries age out after aging_ns.
 */
struct rtr_caver_shared;

/* max_hosts: path-table capacity (rounded up to a power of two, 0 =
 * RTR_CAVER_HOSTS); aging_ns sets the unit of the stored times (exactly 1 ns
 * for aging up to 134 ms). */
/* Bytes rtr_caver_shared_create(max_hosts, ...) allocates (no EAL). */
size_t rtr_caver_shared_memsize(uint32_t max_hosts);
struct rtr_caver_shared *rtr_caver_shared_create(
		uint32_t max_hosts, uint64_t aging_ns, bool use_rte_malloc, int socket);
void rtr_caver_shared_free(void *shared);

/* A host attached to this switch: an IPv4 /32 route to a host port. */
struct rtr_caver_host {
	uint32_t addr; /* network order */
	uint16_t port;
};

struct rtr_caver_params {
	uint64_t dre_period_ns;
	double alpha;                         /* DRE decay per period, (0, 1] */
	unsigned int q;                       /* CE quantisation bits (<= 32) */
	uint64_t aging_ns;                    /* path-table entries older than this are invalid */
	uint64_t flow_idle_ns;                /* an idle flow is placed again */
	uint32_t flow_entries;                /* this worker's flow table */
	const struct rtr_ft_limit *ft_limits; /* per host port, read at create; NULL: none */
	uint32_t host_port_mask;
	uint32_t fabric_port_mask;
	double rate_bps[RTR_MAX_PORTS]; /* DRE line rate per port; 0 = 100 Gb/s */
	uint16_t switch_id;
	unsigned int n_hosts;               /* attached hosts advertised by this switch */
	const struct rtr_caver_host *hosts; /* copied by create */
	uint32_t hash_seed;                 /* the parser's (not used yet: flow hash from meta) */
	uint64_t rng_seed;                  /* tie-breaks */
	unsigned int worker;                /* < RTR_MAX_LCORES */
	unsigned int n_workers;             /* workers that publish DRE values */
	int socket_id;
	bool use_rte_malloc; /* false: no EAL (unit tests) */
	struct rtr_caver_shared *shared;
	/* Bit p set: port p's link is down (the switch's mask, written by
	 * the control plane); NULL: every port is up. A transit switch does
	 * not advertise a path out of a port that is down. */
	const _Atomic uint32_t *link_down;
};

struct rtr_caver;

/* NULL on failure (bad parameters, no memory). io may be NULL: CAVER never
 * sends packets of its own (it is taken for symmetry with the other modes). */
struct rtr_caver *rtr_caver_create(const struct rtr_caver_params *p, const struct rtr_lb_io *io);
void rtr_caver_free(void *state);

/* rtr_lb_ops.init: the parameters from the caver section, the ports and
 * the routes of in->cfg. */
void *rtr_caver_init(const struct rtr_lb_init *in);

/* Local congestion of an egress port: the DRE of every worker, quantised. */
uint8_t rtr_caver_port_ce(const struct rtr_caver *cv, uint16_t port);

/*
 * Choose the path of a packet routed to uplink group g (index g_idx):
 * a RoCE packet from a host port follows its flow's path (placed on the
 * least max(local CE, table CE), a live path without a valid entry at its
 * local CE; no valid entry at all: ECMP) and gets byte 4 = its source
 * route (none on a path without an entry); a
 * RoCE packet from a fabric port follows its source route when the group
 * has a live path on that port; everything else goes by ECMP. Returns the
 * path index, or -1 when no path of g is live.
 */
int rtr_caver_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now_ns, struct rtr_lcore_stats *st);

/*
 * Every packet just before it is queued on out_port: the ACK shim (add at
 * the origin, store + rewrite in transit, store + strip before a host),
 * byte 4 zeroed toward hosts. May change the frame's length at the tail
 * only.
 */
void rtr_caver_post_route(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t out_port,
		uint64_t now_ns, struct rtr_lcore_stats *st);

/*
 * A packet post_route saw was admitted to out_port's egress queue (not
 * tail-dropped; m as queued, trimmed or not): the DRE of out_port counts
 * it if it is data. The DRE measures what the link carries (ALGORITHMS.md
 * 4: "for every data packet sent"), so bytes the queue refused must not
 * count (doc/caver.md).
 */
void rtr_caver_queued(void *state, const struct rte_mbuf *m, const struct rtr_meta *meta,
		uint16_t out_port);

/* CAVER's host_check (rtr_lb_desc, rtr_lb_host.h), applied by every host
 * port whatever the mode: a parsed packet from a host port that is an RC
 * ACK with Resv7 = 0x7F is a forged shim (RTR_DROP_HOST_LB_PACKET). */
enum rtr_drop_reason rtr_caver_host_check(
		const uint8_t *frame, uint32_t len, const struct rtr_meta *meta);

/* CAVER's host_strip (rtr_lb_desc, rtr_lb_host.h), applied toward every
 * host whatever the mode: a shim still in a packet from a fabric port
 * (rtr_caver_is_shimmed, single segment) is removed
 * (rtr_caver_shim_strip) and counted in c[RTR_LBC_foreign_shims_stripped].
 * Returns false: byte 4 is left to the all-modes rule. */
bool rtr_caver_host_strip(struct rte_mbuf *m, struct rtr_meta *meta, uint64_t *c);

/* Timers: DRE decay at period boundaries (late ticks apply every period
 * that passed), a step of flow aging, a slice of the path-table sweep. */
void rtr_caver_tick(void *state, uint64_t now_ns, struct rtr_lcore_stats *st);

/* The next DRE period boundary (0 before the first tick). */
uint64_t rtr_caver_next_deadline(const void *state);

/* ------------------------------------------------- for tests and telemetry */

/* The advertisement stored for (host, port), if valid at now_ns. */
bool rtr_caver_table_get(const struct rtr_caver *cv, uint32_t host, uint16_t port, uint64_t now_ns,
		struct rtr_caver_shim *out);

/* Store an advertisement (as a shimmed ACK from `port` would). Returns false
 * when the table has no room for the host (c[caver_hosts_full] counted). */
bool rtr_caver_table_put(struct rtr_caver *cv, uint32_t host, uint16_t port,
		const struct rtr_caver_shim *adv, uint64_t now_ns, uint64_t *c);

/* Raw 64-bit entry words that are not 0 (swept or never written). */
uint64_t rtr_caver_table_words(const struct rtr_caver_shared *s);

/* Read / write the shim of a shimmed ACK frame (meta from rtr_parse). */
void rtr_caver_shim_read(
		const uint8_t *frame, const struct rtr_meta *meta, struct rtr_caver_shim *out);
bool rtr_caver_is_shimmed(const uint8_t *frame, uint32_t len, const struct rtr_meta *meta);

/* Remove the shim of a shimmed ACK (rtr_caver_is_shimmed, single segment):
 * lengths, IPv4 checksum and Resv7 (0, AckReq kept) as the RNIC sent them,
 * meta updated. The ICRC is valid again. */
void rtr_caver_shim_strip(struct rte_mbuf *m, struct rtr_meta *meta);

/* The mode: its ops and its registry entry. */
extern const struct rtr_lb_ops rtr_lb_caver;
extern const struct rtr_lb_desc rtr_lb_caver_desc;

#endif /* RTR_CAVER_H */
