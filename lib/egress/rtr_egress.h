/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The egress stage (DESIGN.md A6). Per (worker lcore, port):
 *
 *   classify -> admission (tail drop at queue_kb, or trim into the control
 *   class) -> class FIFO -> scheduler (strict priority between levels, DWRR
 *   within a level, PFC-paused classes skipped, token-bucket shaper) ->
 *   RED/ECN mark on the class depth at dequeue -> random loss -> delay line
 *   (the "wire" FIFO: due time = dequeue time + delay_us) -> tx callback.
 *
 * Nothing here does I/O: time is a parameter (ns) and the NIC, the drop
 * counter and the mbuf allocator are callbacks, so unit tests run the whole
 * stage on a virtual clock without the EAL. One struct rtr_egress belongs to
 * one worker and is only touched by it; what must be seen by all workers of a
 * port (the shaper's clock, received PFC pauses, who asked for XOFF) lives in
 * struct rtr_egress_shared with single-word atomics (a spinlock only for the
 * rare PFC frame bookkeeping).
 *
 * Packets leave a class FIFO only into the wire FIFO, and the wire FIFO only
 * into the NIC: a TX queue that refuses part of a burst keeps the rest at the
 * head of the wire FIFO, so back-pressure builds the class queues (where RED,
 * PFC and tail drop act) instead of dropping at the NIC.
 */
#ifndef RTR_EGRESS_H
#define RTR_EGRESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "rtr_common.h"
#include "rtr_config.h"
#include "rtr_drop.h"
#include "rtr_mbuf.h"
#include "rtr_parse.h"
#include "rtr_json.h"
#include "rtr_stats.h"

#define RTR_EG_WIRE_RESERVE   32   /* wire slots kept for PFC frames */
#define RTR_EG_DWRR_QUANTUM   2048 /* bytes per DWRR visit per unit of weight */
#define RTR_EG_FRAME_OVERHEAD 24   /* FCS + preamble + IFG: what a frame costs on a link */
#define RTR_PFC_ETHERTYPE     0x8808
#define RTR_PFC_OPCODE        0x0101
#define RTR_PAUSE_OPCODE      0x0001
#define RTR_PFC_FRAME_LEN     60

/* Per (port, class) counters. All are sums over workers except max_depth. */
#define RTR_EG_CLASS_COUNTERS(X)                                                                 \
	X(enqueued, "packets admitted into the class queue")                                     \
	X(sent, "packets that left the class queue toward the port")                             \
	X(sent_bytes, "bytes that left the class queue")                                         \
	X(ecn_marked, "ECT packets marked CE by RED at dequeue")                                 \
	X(drop_queue_full, "tail drops: the queue was at queue_kb (and trimming did not apply)") \
	X(drop_port_down, "queued packets dropped because the port went down")                   \
	X(drop_loss, "packets dropped by the port's random loss impairment")                     \
	X(trimmed, "data packets of this class cut to their headers and sent in the control "    \
		   "class")                                                                      \
	X(max_depth, "largest depth of this queue in bytes (maximum over workers)")

enum rtr_eg_counter {
#define RTR_EG_ENUM(n, d) RTR_EGC_##n,
	RTR_EG_CLASS_COUNTERS(RTR_EG_ENUM)
#undef RTR_EG_ENUM
			RTR_EGC_MAX
};
extern const char *const rtr_eg_counter_names[RTR_EGC_MAX];
extern const char *const rtr_eg_counter_help[RTR_EGC_MAX];

/* ---------------------------------------------------------- shared state */

struct rtr_eg_pfc_port {
	rte_spinlock_t lock;                           /* pause bookkeeping below */
	_Atomic uint64_t pause_until[RTR_MAX_CLASSES]; /* ns; class paused while now < it */
	uint64_t pause_start[RTR_MAX_CLASSES];
	uint64_t paused_ns[RTR_MAX_CLASSES]; /* closed pause intervals */
	uint64_t rx_pfc;                     /* PFC frames received */
	uint64_t rx_pause;                   /* 802.3x PAUSE frames received (ignored) */
	uint64_t rx_ignored; /* PFC frames received while pfc.mode is not software */
	_Atomic uint64_t xoff_workers[RTR_MAX_CLASSES]; /* bit w: worker w wants XOFF */
	_Atomic uint64_t tx_xoff;
	_Atomic uint64_t tx_xon;
};

struct rtr_eg_shared_port {
	bool configured;
	bool shaped;
	uint8_t mac[6];           /* source of PFC frames (set by the app) */
	uint64_t ps_per_byte_q10; /* shaper: picoseconds per byte << 10 */
	uint64_t burst_ps;        /* bucket depth as time */
	_Atomic uint64_t next_ps; /* when the shaped link is free */
	uint64_t quantum_ns_q10;  /* PFC: ns of one pause quantum << 10 */
	struct rtr_eg_pfc_port pfc;
} __rte_cache_aligned;

struct rtr_egress_shared {
	const struct rtr_config *cfg;
	struct rtr_eg_shared_port port[RTR_MAX_PORTS];
};

/* ---------------------------------------------------------- per worker */

struct rtr_cq {
	struct rte_mbuf **slot;
	uint32_t head, tail, mask; /* count = tail - head */
	uint32_t bytes;            /* queued bytes (pkt_len) */
	uint32_t limit;            /* tail-drop threshold in bytes */
	uint32_t kmin, kmax;       /* RED thresholds in bytes */
	uint64_t pmax_q32;         /* pmax * 2^32 */
	bool ecn;
	int32_t deficit; /* DWRR */
	uint32_t quantum;
};

struct rtr_eport {
	uint16_t port;
	uint8_t n_classes;
	uint8_t top;      /* control class */
	uint8_t nonempty; /* bit c: cq[c] has packets */
	bool simple_prio; /* every class its own level, ordered by class */
	bool blocked;     /* the NIC refused part of the last burst */
	bool plain;       /* no shaping, delay, loss or PFC: empty classes
				    * let a packet go straight to the staged burst */
	uint8_t n_levels;
	uint8_t level_cls[RTR_MAX_CLASSES][RTR_MAX_CLASSES]; /* classes of each level */
	uint8_t level_n[RTR_MAX_CLASSES];
	uint8_t level_mask[RTR_MAX_CLASSES]; /* levels highest first */
	uint8_t rr[RTR_MAX_CLASSES];         /* DWRR position per level */
	bool fresh[RTR_MAX_CLASSES];         /* DWRR: next visit starts a turn */
	struct rtr_cq cq[RTR_MAX_CLASSES];
	/* the wire: delay line and NIC staging, ordered by due time */
	struct rte_mbuf **wire;
	uint64_t *wire_due;
	uint32_t w_head, w_tail, w_mask;
	uint64_t delay_ns;
	uint64_t loss_q64; /* loss probability * 2^64 (0 = none) */
	uint64_t loss_rng;
	uint64_t red_rng;
	struct rtr_eg_shared_port *sh;
	uint64_t c[RTR_MAX_CLASSES][RTR_EGC_MAX];
};

/* What the stage needs from its environment. */
struct rtr_egress_io {
	/* Send up to n frames on this worker's TX queue of port; returns how
	 * many the NIC took (it owns those now). */
	uint16_t (*tx)(void *arg, uint16_t port, struct rte_mbuf **pkts, uint16_t n);
	/* Free a packet and count it under a reason (rtr_meta(m)->in_port tells
	 * a received packet from one the switch originated). */
	void (*drop)(void *arg, struct rte_mbuf *m, enum rtr_drop_reason why);
	/* A fresh mbuf for a PFC frame, or NULL. */
	struct rte_mbuf *(*alloc)(void *arg);
	/*
	 * Optional: called as a packet departs, i.e. leaves its class queue
	 * for the wire (or goes straight to the staged burst), with the
	 * departure time, for packets whose meta flags have a bit of
	 * depart_flags and that were received on a port of depart_ports.
	 * It may rewrite bytes of the frame, not its length. The ConWeave
	 * SrcToR stamps its TX timestamps there (doc/conweave.md). Every
	 * other packet costs one flag test.
	 */
	void (*depart)(void *arg, struct rte_mbuf *m, uint64_t now_ns);
	uint8_t depart_flags;  /* RTR_MF_*; 0: depart is never called */
	uint32_t depart_ports; /* bit p: packets received on port p */
	/* Bytes of the LB header after the BTH of a packet with
	 * RTR_MF_LB_HDR, which a trim keeps (RTR_LB_TRIM_HDR_LEN of
	 * rtr_lb_worker.h: the modes' wire part). */
	uint8_t trim_lb_hdr_len;
	void *arg;
};

struct rtr_egress {
	struct rtr_egress_shared *sh;
	struct rtr_egress_io io;
	struct rtr_lcore_stats *stats; /* tx/forwarded/originated/ecn counters */
	unsigned int worker;
	bool rte_mem; /* allocated with rte_zmalloc */
	uint8_t n_classes, top;
	bool trust_pcp;
	bool trim, trim_update_lengths;
	int16_t trim_dscp;
	uint8_t dscp_class[64];
	uint8_t pcp_class[8];
	/* PFC generation (software mode) */
	bool pfc;
	uint8_t pfc_mask;
	uint32_t xoff_bytes, xon_bytes;
	uint16_t pfc_quanta;
	uint32_t pfc_active; /* bit p: this worker holds XOFF toward port p */
	uint64_t pfc_refresh_at[RTR_MAX_PORTS];
	uint32_t in_bytes[RTR_MAX_PORTS][RTR_MAX_CLASSES]; /* queued here, by ingress port */
	uint8_t in_xoff[RTR_MAX_PORTS];                    /* bit c: XOFF sent (this worker) */
	/* Idle plain ports take the fast path of rtr_egress_enqueue (default
	 * true; the queueing unit tests turn it off to build backlogs with
	 * fewer packets than a staged burst). */
	bool direct;
	/* Frames the scheduler moves from the class queues to a port's wire
	 * FIFO per pass, and that the fast path lets wait there (default
	 * RTR_BURST, the NIC's TX burst). Frames in the wire FIFO are outside
	 * the depth RED marks on and PFC counts: the simulator sets its NIC's
	 * depth (doc/simulator.md). 1..RTR_BURST. */
	uint16_t wire_burst;
	uint32_t active; /* bit p: port p has packets queued or on the wire */
	uint64_t held;   /* packets in class queues and wire FIFOs */
	struct rtr_eport *port[RTR_MAX_PORTS];
};

/* Speeds the stage cannot get from the config: the link speed each port
 * reported (0 = unknown), used for PFC quanta when speed_gbps is not set. */
int rtr_egress_shared_init(struct rtr_egress_shared *sh, const struct rtr_config *cfg,
		const uint32_t *link_speed_mbps);

/*
 * Create one worker's egress. max_pkts caps every FIFO's slot count (the
 * mempool size: more packets than mbufs can never be queued). socket < 0
 * uses plain calloc (unit tests without the EAL). Returns NULL on failure.
 */
struct rtr_egress *rtr_egress_create(struct rtr_egress_shared *sh, unsigned int worker,
		const struct rtr_egress_io *io, struct rtr_lcore_stats *stats, uint32_t max_pkts,
		int socket);
void rtr_egress_free(struct rtr_egress *eg);

/* Bytes rtr_egress_create() allocates for one worker with cfg and
 * max_pkts (the class queues and the wires of every port; memory
 * planning, app/budget.c). */
size_t rtr_egress_memsize(const struct rtr_config *cfg, uint32_t max_pkts);

/* Class of a packet from its headers: control traffic (CNP, LB control
 * packets: RTR_MF_LB_CTRL, frames the switch built) -> top class; else PCP (trust pcp,
 * tagged) or DSCP map; default class 0. */
static inline uint8_t
rtr_egress_classify(const struct rtr_egress *eg, struct rte_mbuf *m)
{
	const struct rtr_meta *meta = rtr_meta(m);

	if (meta->in_port == RTR_PORT_NONE)
		return eg->top;
	if (meta->flags & RTR_MF_ROCE) {
		/* CNPs, and headers trimmed by a switch before us. */
		if (meta->bth_opcode == RTR_BTH_OP_CNP || (meta->flags & RTR_MF_TRIMMED))
			return eg->top;
		/* LB control packets in transit (a spine, or a ToR forwarding
		 * them between fabric ports): the parse flags' control ops. */
		if (rtr_meta_lb_control(meta))
			return eg->top;
	}
	if (eg->trust_pcp && (meta->flags & RTR_MF_VLAN))
		return eg->pcp_class[rte_pktmbuf_mtod(m, const uint8_t *)[14] >> 5];
	if (meta->l3 == RTR_L3_IPV4 || meta->l3 == RTR_L3_IPV6)
		return eg->dscp_class[meta->tos >> 2];
	return 0;
}

/* Append to the wire FIFO (the caller checked there is room). */
static inline void
rtr_eg_wire_push(struct rtr_eport *ep, struct rte_mbuf *m, uint64_t due)
{
	ep->wire[ep->w_tail & ep->w_mask] = m;
	ep->wire_due[ep->w_tail & ep->w_mask] = due;
	ep->w_tail++;
}

/* The departure hook of io (ConWeave's TX timestamps): one flag test for
 * every packet that does not ask for it. Not at exit (force), whose clock
 * is not kept. */
static inline void
rtr_eg_depart(struct rtr_egress *eg, struct rte_mbuf *m, const struct rtr_meta *meta,
		uint64_t now_ns, bool force)
{
	if (unlikely(meta->flags & eg->io.depart_flags) && !force &&
			meta->in_port < RTR_MAX_PORTS && (eg->io.depart_ports >> meta->in_port & 1))
		eg->io.depart(eg->io.arg, m, now_ns);
}

/*
 * The fast path: on a port without shaping, delay, loss or PFC whose class
 * queues are empty and whose staged burst has room, the scheduler would
 * move a packet to the staged burst at its next pass, with nothing queued
 * behind it for RED to see. It goes there now; the counters are those of
 * the queue it went through.
 */
static inline bool
rtr_eg_direct_ok(const struct rtr_egress *eg, const struct rtr_eport *ep)
{
	return likely(ep->plain) && eg->direct && ep->nonempty == 0 && !ep->blocked &&
	       ep->w_tail - ep->w_head < eg->wire_burst;
}

static inline void
rtr_eg_direct(struct rtr_egress *eg, struct rtr_eport *ep, struct rte_mbuf *m, uint8_t cls,
		uint64_t now_ns)
{
	uint64_t *c = ep->c[cls];
	uint32_t len = m->pkt_len;

	c[RTR_EGC_enqueued]++;
	c[RTR_EGC_sent]++;
	c[RTR_EGC_sent_bytes] += len;
	if (len > c[RTR_EGC_max_depth])
		c[RTR_EGC_max_depth] = len;
	eg->held++;
	eg->active |= 1u << ep->port;
	rtr_eg_depart(eg, m, rtr_meta(m), now_ns, false);
	rtr_eg_wire_push(ep, m, 0);
}

/*
 * Admit a packet to a class queue of port. Tail drop, or trimming into the
 * control class, when the class is at its limit. The packet is owned by the
 * stage afterwards (queued, trimmed and queued, or dropped through io.drop).
 * Returns 0 if queued (possibly trimmed), -1 if dropped.
 */
int rtr_egress_enqueue(struct rtr_egress *eg, uint16_t port, struct rte_mbuf *m, uint8_t cls,
		uint64_t now_ns);

/* rtr_egress_enqueue of the packet's own class (rtr_egress_classify), with
 * the fast path inline: the data path's call. */
static inline int
rtr_egress_enqueue_pkt(struct rtr_egress *eg, uint16_t port, struct rte_mbuf *m, uint64_t now_ns)
{
	struct rtr_eport *ep = eg->port[port];
	uint8_t cls = rtr_egress_classify(eg, m);

	if (likely(ep != NULL && cls < eg->n_classes) && rtr_eg_direct_ok(eg, ep)) {
		rtr_eg_direct(eg, ep, m, cls, now_ns);
		return 0;
	}
	return rtr_egress_enqueue(eg, port, m, cls, now_ns);
}

/*
 * Same, without the tail-drop threshold (slot capacity still applies): for
 * packets already admitted once, such as a released reorder queue.
 */
int rtr_egress_enqueue_held(struct rtr_egress *eg, uint16_t port, struct rte_mbuf *m, uint8_t cls,
		uint64_t now_ns);

/* Run the scheduler and TX of every port with work. Returns frames sent. */
unsigned int rtr_egress_service(struct rtr_egress *eg, uint64_t now_ns);

/* Same for one port. */
unsigned int rtr_egress_service_port(struct rtr_egress *eg, uint16_t port, uint64_t now_ns);

/*
 * Drop everything queued for port (it went down): counted as port_down.
 * Returns the number dropped.
 */
unsigned int rtr_egress_port_down(struct rtr_egress *eg, uint16_t port);

/*
 * Exit: send everything held, ignoring pause, shaper and delay. A NIC that
 * keeps refusing for max_tries bursts gets the rest dropped as shutdown.
 */
unsigned int rtr_egress_flush_all(struct rtr_egress *eg, unsigned int max_tries);

/* A received MAC control frame (EtherType 0x8808) on port: PFC pauses the
 * given classes toward that port. Returns 0, or -1 if malformed. */
int rtr_egress_mac_control_rx(struct rtr_egress_shared *sh, uint16_t port, const uint8_t *frame,
		uint32_t len, uint64_t now_ns);

/* PFC refresh timers (XOFF re-sent before it expires). Call every loop;
 * cheap when no XOFF is held. */
void rtr_egress_tick(struct rtr_egress *eg, uint64_t now_ns);

/* Build an 802.1Qbb frame into buf (RTR_PFC_FRAME_LEN bytes). */
void rtr_pfc_build(uint8_t *buf, const uint8_t src_mac[6], uint8_t class_vector,
		const uint16_t quanta[8]);

/* Time class cls of port has been paused by received PFC, up to now. */
uint64_t rtr_egress_paused_ns(
		struct rtr_egress_shared *sh, uint16_t port, uint8_t cls, uint64_t now_ns);

/* Bytes queued now in one class (this worker). */
static inline uint32_t
rtr_egress_depth(const struct rtr_egress *eg, uint16_t port, uint8_t cls)
{
	return eg->port[port] ? eg->port[port]->cq[cls].bytes : 0;
}

/* Add this worker's counters of (port, cls) into acc (max for max_depth). */
void rtr_egress_counters_add(
		const struct rtr_egress *eg, uint16_t port, uint8_t cls, uint64_t acc[RTR_EGC_MAX]);

/* splitmix64: the stage's random numbers (RED draws, seeded loss). */
static inline uint64_t
rtr_eg_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* RED on the depth left behind a departing packet (ALGORITHMS.md 5): no
 * mark up to kmin, probability rising linearly to pmax at kmax, always
 * above kmax. rng is a rtr_eg_rand state. */
static inline bool
rtr_red_decide(const struct rtr_cq *q, uint64_t *rng)
{
	uint32_t d = q->bytes;

	if (d <= q->kmin)
		return false;
	if (d > q->kmax)
		return true;
	return (rtr_eg_rand(rng) >> 32) < q->pmax_q32 * (d - q->kmin) / (q->kmax - q->kmin);
}

/* Everything known about one port's egress, summed over workers. */
struct rtr_eg_port_report {
	unsigned int n_classes;
	uint64_t c[RTR_MAX_CLASSES][RTR_EGC_MAX];
	uint64_t depth[RTR_MAX_CLASSES];     /* bytes queued now */
	uint64_t paused_ns[RTR_MAX_CLASSES]; /* by received PFC */
	uint64_t rx_pfc, rx_pause, rx_ignored, tx_xoff, tx_xon;
};

/* Collect the report of port from n workers' egresses (any may be NULL).
 * Reads other lcores' counters without locks: values are exact once the
 * workers have stopped, approximate (never torn) while they run. */
void rtr_egress_report(struct rtr_egress *const *egs, unsigned int n, struct rtr_egress_shared *sh,
		uint16_t port, uint64_t now_ns, struct rtr_eg_port_report *r);

/* Write the members `"classes": [...], "pfc": {...}` into the object w
 * is writing (the stats document's port objects). */
void rtr_egress_report_json(struct rtr_json *w, const struct rtr_eg_port_report *r);

/* IP ECN codepoints */
#define RTR_ECN_NOT_ECT 0
#define RTR_ECN_ECT1    1
#define RTR_ECN_ECT0    2
#define RTR_ECN_CE      3

/* Set CE on an ECT packet (IPv4 with checksum update, or IPv6). Returns true
 * if it marked. Exposed for the LB stages and tests. */
bool rtr_ecn_mark(uint8_t *frame, uint8_t l3, uint8_t l3_off);

#endif /* RTR_EGRESS_H */
