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
 *
 * The library's files, one per part above, and its admission policies
 * (which packets a class queue takes, chosen at create): eg_internal.h and
 * doc/egress.md "How the egress is built".
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
/* Shared buffer: a worker adds its pool bytes to the switch's count once
 * they differ by this much (or at its next service pass), so the count is
 * off by less than this per other worker (doc/egress.md "Shared buffer"). */
#define RTR_EG_SB_BATCH 16384

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
	/* pfc.mode nic, pause, external (the NIC sends the pause): classes
	 * over xoff_kb from this ingress port; while not 0 the workers stop
	 * taking from its RX queues, so that the NIC's buffer fills and the
	 * NIC pauses the sender (doc/egress.md "When the NIC sends the
	 * PFC"). rx_holds counts the holds begun. */
	_Atomic uint32_t rx_hold;
	_Atomic uint64_t rx_holds;
	/* software mode: the RX ring overflowed (imissed rose; the control
	 * lcore sets it): worker 0 holds XOFF for the PFC classes toward the
	 * port until then. xoff_imissed counts those XOFFs. */
	_Atomic uint64_t overflow_until;
	_Atomic uint64_t xoff_imissed;
};

struct rtr_eg_shared_port {
	bool configured;
	bool shaped;
	/* The bounded NIC ring (doc/egress.md "The NIC ring"): frames go to
	 * the NIC only while the link clock next_ps is less than ring_ps
	 * ahead of now, so the NIC holds at most ring_ps of wire time (plus
	 * one frame per worker) and the backlog stays in the class queues. */
	bool paced;
	uint8_t mac[6];                /* source of PFC frames (set by the app) */
	uint16_t desc_cap;             /* descriptors in flight per queue, 0: not read */
	uint64_t ps_per_byte_q10;      /* link (or shaper) clock: picoseconds per byte << 10 */
	uint64_t link_ps_per_byte_q10; /* the link's rate (speed_gbps or the device's) */
	uint64_t burst_ps;             /* shaper: bucket depth as time */
	uint64_t ring_ps;              /* paced: the NIC ring's bound as time */
	uint64_t ahead_ps;             /* how far next_ps may run ahead of now */
	uint32_t ring_bytes;           /* paced: the bound in bytes (reports) */
	_Atomic uint64_t next_ps;      /* when the link (shaped or paced) is free */
	uint64_t quantum_ns_q10;       /* PFC: ns of one pause quantum << 10 */
	struct rtr_eg_pfc_port pfc;
} __rte_cache_aligned;

struct rtr_egress_shared {
	const struct rtr_config *cfg;
	_Atomic uint32_t overflow_ports; /* bit p: port[p].pfc.overflow_until is set */
	/* qos.buffer.mode shared: bytes of the switch's pool in class queues,
	 * as the workers have flushed them (each holds back less than
	 * RTR_EG_SB_BATCH: doc/egress.md "Shared buffer"). */
	_Atomic int64_t sb_used __rte_cache_aligned;
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

/* One hardware TX queue's wire: the delay line and the staged burst,
 * ordered by due time. */
struct rtr_ewire {
	struct rte_mbuf **slot;
	uint64_t *due;
	uint32_t head, tail, mask;
	bool blocked; /* the NIC refused part of the last burst */
};

/* Frames handed to the NIC that PFC still counts (software PFC on a paced
 * port): released when their last bit has left by the link clock. */
struct rtr_eledger {
	uint64_t *end_ps;
	uint32_t *len;
	uint8_t *in, *cls;
	uint32_t head, tail, mask;
};

struct rtr_eport {
	uint16_t port;
	uint8_t n_classes;
	uint8_t top;                        /* control class */
	uint8_t nonempty;                   /* bit c: cq[c] has packets */
	bool simple_prio;                   /* every class its own level, ordered by class */
	bool plain;                         /* no shaping, pacing, delay, loss or PFC: empty
			   * classes let a packet go straight to the staged burst */
	bool clocked;                       /* shaped or paced: frames take the link clock */
	uint8_t n_hwq;                      /* hardware TX queues (qos.hw_queues) */
	uint8_t cls_hwq[RTR_MAX_CLASSES];   /* class -> hardware queue */
	uint8_t hwq_cls[RTR_MAX_HW_QUEUES]; /* hardware queue -> bit c of its classes */
	uint8_t n_levels;
	uint8_t level_cls[RTR_MAX_CLASSES][RTR_MAX_CLASSES]; /* classes of each level */
	uint8_t level_n[RTR_MAX_CLASSES];
	uint8_t level_mask[RTR_MAX_CLASSES]; /* levels highest first */
	uint8_t rr[RTR_MAX_CLASSES];         /* DWRR position per level */
	bool fresh[RTR_MAX_CLASSES];         /* DWRR: next visit starts a turn */
	struct rtr_cq cq[RTR_MAX_CLASSES];
	struct rtr_ewire wire[RTR_MAX_HW_QUEUES];
	struct rtr_eledger ledger; /* slot NULL unless software PFC and paced */
	uint64_t ring_holds;       /* passes stopped by the ring bound */
	uint64_t desc_holds;       /* queues skipped: more than desc_cap in the NIC */
	uint64_t ring_max_ps;      /* most wire time ahead of a frame handed over */
	uint64_t delay_ns;
	uint64_t loss_q64; /* loss probability * 2^64 (0 = none) */
	uint64_t loss_rng;
	uint64_t red_rng;
	struct rtr_eg_shared_port *sh;
	uint64_t c[RTR_MAX_CLASSES][RTR_EGC_MAX];
};

/* What the stage needs from its environment. */
struct rtr_egress_io {
	/* Send up to n frames on this worker's hardware TX queue hwq
	 * (0..qos.hw_queues-1) of port; returns how many the NIC took (it
	 * owns those now). */
	uint16_t (*tx)(void *arg, uint16_t port, uint16_t hwq, struct rte_mbuf **pkts, uint16_t n);
	/* Optional, on paced ports with a desc_cap: whether more than cap
	 * frames are still in this worker's queue hwq of port (not yet
	 * completed by the NIC): rte_eth_tx_descriptor_status at
	 * rtr_eg_ds_offset() answering FULL. A queue that is keeps its
	 * classes' backlog in the class queues. */
	bool (*nic_busy)(void *arg, uint16_t port, uint16_t hwq, uint16_t cap);
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
	uint8_t admit; /* admission policy (eg_internal.h: enum eg_admit) */
	/* PFC generation (software mode) */
	bool pfc;
	/* Bytes counted by ingress port and class against xoff_kb/xon_kb:
	 * any pfc.mode but off (software sends PFC frames; the others hold
	 * the ingress port's RX: rtr_egress_rx_held). */
	bool lossless;
	uint32_t ov_xoff; /* bit p: worker 0 holds an RX-overflow XOFF */
	uint64_t ov_refresh_at[RTR_MAX_PORTS];
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
	/* EG_ADMIT_SHARED (qos.buffer; doc/egress.md "Shared buffer"): the
	 * pool is sh->sb_used plus this worker's sb_delta not yet added.
	 * Last, so that static's layout is what it was. */
	int64_t sb_delta;
	uint32_t sb_batch;               /* flush sb_delta when |sb_delta| reaches it */
	uint64_t sb_size;                /* bytes of the pool */
	uint64_t sb_shared;              /* the pool less every port's headroom */
	uint64_t sb_alpha_q16;           /* a class queue's limit: alpha x free */
	uint8_t sb_pfc_shift;            /* XOFF at free >> it */
	uint32_t sb_xon_off;             /* XON below the XOFF threshold minus it */
	uint32_t sb_hdrm;                /* headroom per ingress port (PFC on), bytes */
	uint32_t in_hdrm[RTR_MAX_PORTS]; /* headroom in use by ingress port (this worker) */
	uint64_t sb_peak; /* most of the pool in use this worker saw after an admission */
	uint32_t sb_cell; /* the pool counts a packet as at least this (qos.buffer.cell_bytes) */
};

/* rte_eth_tx_descriptor_status's offset conventions (doc/nic-facts.md "TX
 * completions and descriptor status"). */
enum rtr_eg_ds {
	RTR_EG_DS_NONE = 0, /* no usable status: the ring is bounded by time only */
	RTR_EG_DS_TAIL,     /* ice, i40e: offset from the tail, nb_desc - k asks for k */
	RTR_EG_DS_USED,     /* mlx5: offset from the oldest in use, k - 1 asks for k */
};

/* The offset whose answer FULL means "more than cap frames are in the
 * queue", for a ring of ring_size descriptors; -1 for RTR_EG_DS_NONE or a
 * cap the ring cannot exceed. */
static inline int
rtr_eg_ds_offset(enum rtr_eg_ds ds, uint16_t ring_size, uint16_t cap)
{
	if (ds == RTR_EG_DS_USED)
		return cap;
	if (ds == RTR_EG_DS_TAIL && cap + 1u <= ring_size)
		return ring_size - cap - 1;
	return -1;
}

/* Speeds the stage cannot get from the config: the link speed each port
 * reported (0 = unknown), used for PFC quanta when speed_gbps is not set. */
int rtr_egress_shared_init(struct rtr_egress_shared *sh, const struct rtr_config *cfg,
		const uint32_t *link_speed_mbps);

/*
 * Bound the NIC ring of port: ring_bytes of wire time ahead of now at most
 * (0: unbounded, frames go while tx_burst takes them), desc_cap descriptors
 * in flight per queue when io.nic_busy can tell (0: not read). The config's
 * ports[].nic_ring_kb and nic_ring_desc do this at rtr_egress_shared_init
 * unless nic_ring_kb is auto, which the app resolves per device. Before
 * rtr_egress_create.
 */
void rtr_egress_set_ring(struct rtr_egress_shared *sh, uint16_t port, uint32_t ring_bytes,
		uint16_t desc_cap);

/*
 * The longest a control frame of ctrl_len bytes waits, from its enqueue on
 * an idle control class to its last bit on the wire, behind data frames of
 * at most frame_len bytes on a paced port with one worker: the ring's
 * wire time, one data frame (the last one let in), its own. Each further
 * worker sending on the port adds the ring and a frame (their queues share
 * the link). 0 when the port is not paced (no bound).
 */
uint64_t rtr_egress_ring_bound_ns(const struct rtr_egress_shared *sh, uint16_t port,
		uint32_t frame_len, uint32_t ctrl_len);

/*
 * Create one worker's egress. max_pkts caps every FIFO's slot count (the
 * mempool size: more packets than mbufs can never be queued). socket < 0
 * uses plain calloc (unit tests without the EAL). Returns NULL on failure.
 */
struct rtr_egress *rtr_egress_create(struct rtr_egress_shared *sh, unsigned int worker,
		const struct rtr_egress_io *io, struct rtr_lcore_stats *stats, uint32_t max_pkts,
		int socket);
void rtr_egress_free(struct rtr_egress *eg);

/*
 * Bytes in this worker's class queues of port, every class together: the
 * local queue depth an LB mode may weigh an uplink by (DRILL,
 * doc/drill.md), as admission counts it (pkt_len; the staged burst and the
 * delay line are outside). 0 for a port this egress does not serve. The
 * signature is rtr_lb_init.queue_bytes's, with arg the struct rtr_egress:
 * lib/lb never sees the egress itself.
 */
uint32_t rtr_egress_queue_bytes(const void *eg, uint16_t port);

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
rtr_eg_wire_push(struct rtr_ewire *w, struct rte_mbuf *m, uint64_t due)
{
	w->slot[w->tail & w->mask] = m;
	w->due[w->tail & w->mask] = due;
	w->tail++;
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
rtr_eg_direct_ok(const struct rtr_egress *eg, const struct rtr_eport *ep, uint8_t cls)
{
	const struct rtr_ewire *w = &ep->wire[ep->cls_hwq[cls]];

	return likely(ep->plain) && eg->direct && ep->nonempty == 0 && !w->blocked &&
	       w->tail - w->head < eg->wire_burst;
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
	rtr_eg_wire_push(&ep->wire[ep->cls_hwq[cls]], m, 0);
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

	if (likely(ep != NULL && cls < eg->n_classes) && rtr_eg_direct_ok(eg, ep, cls)) {
		rtr_eg_direct(eg, ep, m, cls, now_ns);
		return 0;
	}
	return rtr_egress_enqueue(eg, port, m, cls, now_ns);
}

/*
 * Same, without the tail-drop threshold (slot capacity still applies): for
 * packets already admitted once, such as a released reorder queue. With
 * the shared buffer, what rtr_egress_hold counted for m is handed over to
 * the class queue (not counted twice).
 */
/*
 * An LB mode took m (class cls) into a reorder queue (rtr_lb_io.hold). With
 * the shared buffer (qos.buffer.mode shared) m counts from now in the pool
 * and, on a PFC class, in its ingress port's bytes, which may XOFF it: a
 * switch's reorder queues are in its buffer (the ConWeave artifact's are
 * egress queues of its MMU). rtr_egress_enqueue_held takes the count over;
 * rtr_egress_unhold gives it back for a held packet that is freed. No-op
 * with the static policy, or for m already counted (RTR_MF_HELD).
 */
void rtr_egress_hold(struct rtr_egress *eg, struct rte_mbuf *m, uint8_t cls, uint64_t now_ns);
/* A held packet rtr_egress_hold counted leaves without being queued (freed,
 * or dropped before the egress): its pool and PFC bytes go back. */
void rtr_egress_unhold(struct rtr_egress *eg, struct rte_mbuf *m, uint8_t cls, uint64_t now_ns);

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

/* Whether the workers should leave port's RX queues alone now: a class
 * from it is over xoff_kb in pfc.mode nic, pause or external. One relaxed
 * load of a word written at hold changes only. */
static inline bool
rtr_egress_rx_held(const struct rtr_egress_shared *sh, uint16_t port)
{
	return atomic_load_explicit(&sh->port[port].pfc.rx_hold, memory_order_relaxed) != 0;
}

/* The control lcore: port's RX ring overflowed (imissed rose) at now_ns;
 * in software mode XOFF the PFC classes toward it for hold_ns. */
void rtr_egress_rx_overflow(
		struct rtr_egress_shared *sh, uint16_t port, uint64_t now_ns, uint64_t hold_ns);

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

/* RED on depth d (the bytes left behind a departing packet in its class,
 * and on a paced port the NIC ring's bytes ahead of it) (ALGORITHMS.md 5): no
 * mark up to kmin, probability rising linearly to pmax at kmax, always
 * above kmax. rng is a rtr_eg_rand state. */
static inline bool
rtr_red_decide_depth(const struct rtr_cq *q, uint32_t d, uint64_t *rng)
{
	if (d <= q->kmin)
		return false;
	if (d > q->kmax)
		return true;
	return (rtr_eg_rand(rng) >> 32) < q->pmax_q32 * (d - q->kmin) / (q->kmax - q->kmin);
}

/* The same on the class depth alone. */
static inline bool
rtr_red_decide(const struct rtr_cq *q, uint64_t *rng)
{
	return rtr_red_decide_depth(q, q->bytes, rng);
}

/* Everything known about one port's egress, summed over workers. */
struct rtr_eg_port_report {
	unsigned int n_classes;
	uint64_t c[RTR_MAX_CLASSES][RTR_EGC_MAX];
	uint64_t depth[RTR_MAX_CLASSES];     /* bytes queued now */
	uint64_t paused_ns[RTR_MAX_CLASSES]; /* by received PFC */
	uint64_t rx_pfc, rx_pause, rx_ignored, tx_xoff, tx_xon;
	uint64_t rx_holds, xoff_imissed;
	/* the NIC ring (paced ports) */
	bool paced;
	uint32_t ring_bytes;
	uint16_t desc_cap;
	uint8_t hw_queues;
	uint64_t ring_holds, desc_holds, ring_max_ns;
};

/* Collect the report of port from n workers' egresses (any may be NULL).
 * Reads other lcores' counters without locks: values are exact once the
 * workers have stopped, approximate (never torn) while they run. */
void rtr_egress_report(struct rtr_egress *const *egs, unsigned int n, struct rtr_egress_shared *sh,
		uint16_t port, uint64_t now_ns, struct rtr_eg_port_report *r);

/* Write the members `"classes": [...], "pfc": {...}` into the object w
 * is writing (the stats document's port objects). */
void rtr_egress_report_json(struct rtr_json *w, const struct rtr_eg_port_report *r);

/* The switch's shared buffer (qos.buffer), summed over workers. */
struct rtr_eg_buffer_report {
	bool shared;           /* mode shared (else the rest is 0) */
	uint64_t size_bytes;   /* the pool */
	uint64_t shared_bytes; /* the pool less every port's headroom */
	uint32_t cell_bytes;   /* a packet counts at least this */
	uint64_t used_bytes;   /* in use now (each worker's uncounted delta included) */
	uint64_t peak_bytes;   /* the most any worker saw in use after an admission */
};

/* Collect it from n workers' egresses (any may be NULL), as rtr_egress_report. */
void rtr_egress_buffer_report(struct rtr_egress *const *egs, unsigned int n,
		struct rtr_egress_shared *sh, struct rtr_eg_buffer_report *r);

/* Write the member `"buffer": {...}` into the object w is writing. */
void rtr_egress_buffer_json(struct rtr_json *w, const struct rtr_eg_buffer_report *r);

/* IP ECN codepoints */
#define RTR_ECN_NOT_ECT 0
#define RTR_ECN_ECT1    1
#define RTR_ECN_ECT0    2
#define RTR_ECN_CE      3

/* Set CE on an ECT packet (IPv4 with checksum update, or IPv6). Returns true
 * if it marked. Exposed for the LB stages and tests. */
bool rtr_ecn_mark(uint8_t *frame, uint8_t l3, uint8_t l3_off);

#endif /* RTR_EGRESS_H */
