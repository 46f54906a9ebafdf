/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include "rtr_cksum.h"
#include "rtr_flowtab.h"
#include "rtr_lb_host.h"
#include "rtr_lb_worker.h"
#include "rtr_pipeline.h"

int
rtr_meta_register(uint16_t *priv_size)
{
	static const struct rte_mbuf_dynfield desc = {
			.name = "rocetor_meta",
			.size = sizeof(struct rtr_meta),
			.align = __alignof__(struct rtr_meta),
	};

	*priv_size = 0;
	rtr_meta_offset = rte_mbuf_dynfield_register(&desc);
	if (rtr_meta_offset >= 0)
		return 0;
	/*
	 * PMDs register dynamic fields of their own (net_pcap a timestamp,
	 * others flow metadata) and may leave too little contiguous room. The
	 * mbuf private area, right after struct rte_mbuf in our own pool, is
	 * then used instead: same accessor, one more line of cache touched.
	 */
	*priv_size = RTE_ALIGN(sizeof(struct rtr_meta), RTE_MBUF_PRIV_ALIGN);
	rtr_meta_offset = sizeof(struct rte_mbuf);
	return 1;
}

/* ------------------------------------------------------------------ drops */

static inline void
drop(struct rtr_worker *w, struct rte_mbuf *m, uint16_t in_port, enum rtr_drop_reason why)
{
	if (in_port != RTR_PORT_NONE) {
		w->stats->drops[why]++;
		w->stats->port[in_port].drops++;
	} else {
		/* A frame the switch built (LB control): not a received packet. */
		w->stats->originated_dropped++;
	}
	rte_pktmbuf_free(m);
}

/* ------------------------------------------------------------------ egress I/O */

static uint16_t
eg_tx(void *arg, uint16_t port, uint16_t hwq, struct rte_mbuf **pkts, uint16_t n)
{
	struct rtr_worker *w = arg;

	return rte_eth_tx_burst(port, w->txq[hwq], pkts, n);
}

/* More than cap frames still in the NIC on this worker's queue hwq of
 * port (doc/egress.md "The NIC ring"): the driver's descriptor status at
 * the offset its convention gives. */
static bool
eg_nic_busy(void *arg, uint16_t port, uint16_t hwq, uint16_t cap)
{
	struct rtr_worker *w = arg;
	int off = rtr_eg_ds_offset((enum rtr_eg_ds)w->tx_ds[port], w->tx_ring[port], cap);

	return off >= 0 && rte_eth_tx_descriptor_status(port, w->txq[hwq], (uint16_t)off) ==
					   RTE_ETH_TX_DESC_FULL;
}

static void
eg_drop(void *arg, struct rte_mbuf *m, enum rtr_drop_reason why)
{
	struct rtr_worker *w = arg;

	drop(w, m, rtr_meta(m)->in_port, why);
}

static struct rte_mbuf *
eg_alloc(void *arg)
{
	struct rtr_worker *w = arg;

	return rte_pktmbuf_alloc(rtr_worker_pool(w));
}

/* A packet stamped by the LB stage on its way from a host leaves its class
 * queue: the mode's departure hook (e.g. TX timestamps). The egress
 * calls this only for such packets. */
static void
eg_depart(void *arg, struct rte_mbuf *m, uint64_t now_ns)
{
	struct rtr_worker *w = arg;

	rtr_lb_depart(w->fwd.lb, w->fwd.lb_state, m, rtr_meta(m), now_ns, w->stats);
}

void
rtr_worker_egress_io(struct rtr_worker *w, struct rtr_egress_io *io)
{
	const struct rtr_switch *sw = w->sw;

	io->tx = eg_tx;
	io->nic_busy = eg_nic_busy;
	io->drop = eg_drop;
	io->alloc = eg_alloc;
	io->depart = eg_depart;
	/* Only host ports' packets carry fields this switch stamped. */
	io->depart_flags = RTR_LB_DEPART_FLAGS;
	io->trim_lb_hdr_len = RTR_LB_TRIM_HDR_LEN;
	io->depart_ports = 0;
	for (unsigned int p = 0; p < RTR_MAX_PORTS; p++)
		if (sw->ports[p].configured && sw->ports[p].role == RTR_PORT_HOST)
			io->depart_ports |= 1u << p;
	io->arg = w;
}

/* 0: queued (the mbuf is still valid until the next egress service),
 * -1: dropped. */
static inline int
tx_enqueue(struct rtr_worker *w, uint16_t port, struct rte_mbuf *m, uint64_t now_ns)
{
	return rtr_egress_enqueue_pkt(w->eg, port, m, now_ns);
}

/* ------------------------------------------------------------------ forwarding */

/* The worker's punt rate limit, as a generic cell rate algorithm: each
 * punt moves the theoretical arrival time on by one frame's share of a
 * second; more than RTR_PUNT_BURST frames ahead of the clock is over the
 * rate. No division, one compare on the punt path only. */
static inline bool
punt_allowed(struct rtr_worker *w)
{
	const uint64_t cost = UINT64_C(1000000000) / RTR_PUNT_RATE_PPS;
	uint64_t now = w->now_ns;
	uint64_t tat = w->punt_tat_ns > now ? w->punt_tat_ns : now;

	if (tat - now > (uint64_t)(RTR_PUNT_BURST - 1) * cost)
		return false;
	w->punt_tat_ns = tat + cost;
	return true;
}

static inline void
punt(struct rtr_worker *w, struct rte_mbuf *m, uint16_t in_port)
{
	if (unlikely(!punt_allowed(w)))
		drop(w, m, in_port, RTR_DROP_PUNT_RATE_LIMITED);
	else if (rte_ring_mp_enqueue(w->sw->ctrl_ring, m) != 0)
		drop(w, m, in_port, RTR_DROP_CONTROL_RING_FULL);
	else
		w->stats->consumed++;
}

/*
 * What the forwarding step (lib/fwd/rtr_fwd.h) decided for a packet, done:
 * the verdict's queue, counter or free.
 */
static inline void
fwd_verdict(struct rtr_worker *w, struct rte_mbuf *m, struct rtr_meta *meta,
		const struct rtr_fwd_dest *d, uint64_t now_ns)
{
	switch (d->verdict) {
	case RTR_FWD_ENQUEUE:
		if (tx_enqueue(w, d->out_port, m, now_ns) == 0)
			rtr_fwd_queued(&w->fwd, m, meta, d->out_port);
		break;
	case RTR_FWD_DROP:
		drop(w, m, meta->in_port, (enum rtr_drop_reason)d->why);
		break;
	case RTR_FWD_PUNT:
		punt(w, m, meta->in_port);
		break;
	case RTR_FWD_CONSUMED:
		w->stats->consumed++;
		rte_pktmbuf_free(m);
		break;
	default: /* RTR_FWD_TAKEN: the LB stage has it */
		break;
	}
}

/* The forwarding step for one parsed packet; ends in TX or a drop. */
static inline void
forward(struct rtr_worker *w, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns)
{
	struct rtr_fwd_dest d;

	rtr_fwd_packet(&w->fwd, m, meta, &d, now_ns);
	fwd_verdict(w, m, meta, &d, now_ns);
}

/* ------------------------------------------------------------------ LB I/O */

static void ctrl_flush(struct rtr_worker *w);

static void
lb_deliver(void *arg, struct rte_mbuf *m, uint16_t port, bool held)
{
	struct rtr_worker *w = arg;
	struct rtr_meta *meta = rtr_meta(m);

	if (unlikely(!atomic_load_explicit(&w->sw->ports[port].link_up, memory_order_relaxed))) {
		if (held)
			rtr_egress_unhold(w->eg, m, rtr_egress_classify(w->eg, m), w->now_ns);
		drop(w, m, meta->in_port, RTR_DROP_PORT_DOWN);
		return;
	}
	meta->out_port = (uint8_t)port;
	if (held)
		rtr_egress_enqueue_held(w->eg, port, m, rtr_egress_classify(w->eg, m), w->now_ns);
	else
		tx_enqueue(w, port, m, w->now_ns);
}

/* A packet an LB mode took into a reorder queue: counted in the shared
 * buffer while held (rtr_egress_hold). */
static void
lb_hold(void *arg, struct rte_mbuf *m, uint16_t port)
{
	struct rtr_worker *w = arg;

	(void)port;
	rtr_egress_hold(w->eg, m, rtr_egress_classify(w->eg, m), w->now_ns);
}

/* An LB control packet the mode built (a DstToR's RTT_REPLY, CLEAR or
 * NOTIFY): kept for ctrl_flush, which forwards the burst's together. */
static void
lb_control(void *arg, struct rte_mbuf *m)
{
	struct rtr_worker *w = arg;

	if (unlikely(w->ctrl_out_n == RTE_DIM(w->ctrl_out)))
		ctrl_flush(w);
	w->ctrl_out[w->ctrl_out_n++] = m;
}

/* The mbuf of an LB control packet: from the worker's stash, which is
 * refilled RTR_CTRL_STASH at a time (one pool access and the mbufs reset
 * together) and emptied when the worker is idle (ctrl_stash_return). The
 * next one's frame line is prefetched for writing: the builder's first
 * store there otherwise waits for it (a third of rtr_lb_ctrl_build's
 * cycles at the DstToR, perf). */
static struct rte_mbuf *
lb_alloc(void *arg)
{
	struct rtr_worker *w = arg;
	struct rte_mbuf *m;

	if (unlikely(w->ctrl_mb_n == 0)) {
		if (rte_pktmbuf_alloc_bulk(rtr_worker_pool(w), w->ctrl_mb, RTR_CTRL_STASH) != 0)
			return rte_pktmbuf_alloc(rtr_worker_pool(w)); /* the pool's last few */
		w->ctrl_mb_n = RTR_CTRL_STASH;
	}
	m = w->ctrl_mb[--w->ctrl_mb_n];
	if (w->ctrl_mb_n != 0)
		__builtin_prefetch(rte_pktmbuf_mtod(w->ctrl_mb[w->ctrl_mb_n - 1], void *), 1, 3);
	return m;
}

static void
ctrl_stash_return(struct rtr_worker *w)
{
	if (w->ctrl_mb_n != 0) {
		rte_pktmbuf_free_bulk(w->ctrl_mb, w->ctrl_mb_n);
		w->ctrl_mb_n = 0;
	}
}

void
rtr_worker_lb_io(struct rtr_worker *w, struct rtr_lb_io *io)
{
	io->deliver = lb_deliver;
	io->hold = lb_hold;
	io->control = lb_control;
	io->alloc = lb_alloc;
	io->arg = w;
}

/* What ingress decided for a packet: forward it here, hand it to the owner
 * worker (>= 0), or nothing more to do (punted, consumed or dropped). */
#define ING_DONE    (-1)
#define ING_FORWARD (-2)

/*
 * ports[].source_check (doc/security.md): an IP packet from a host port must
 * come from an address whose route is a next hop on that same port (strict
 * reverse-path check), so a host cannot spoof other hosts' addresses. ARP
 * and IPv6 link-local sources (ND, before any route exists) are let through.
 */
static bool
source_ok(struct rtr_worker *w, const uint8_t *frame, const struct rtr_meta *meta, uint16_t port)
{
	const struct rtr_switch *sw = w->sw;
	int64_t res;

	if (meta->l3 == RTR_L3_IPV4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(frame + meta->l3_off);

		res = rtr_route_lookup4(sw->route, ip->src_addr);
	} else if (meta->l3 == RTR_L3_IPV6) {
		const struct rte_ipv6_hdr *ip6 =
				(const struct rte_ipv6_hdr *)(frame + meta->l3_off);

		if (ip6->src_addr[0] == 0xfe && (ip6->src_addr[1] & 0xc0) == 0x80)
			return true;
		res = rtr_route_lookup6(sw->route, ip6->src_addr);
	} else {
		return true;
	}
	return res >= 0 && ((unsigned int)res & RTR_RT_KIND_MASK) == RTR_RT_NH &&
	       rtr_neigh_nh(sw->neigh, (unsigned int)res & RTR_RT_INDEX_MASK)->port == port;
}

/*
 * The worker that must process a packet, or ING_FORWARD for this one: the
 * owner of its flow by the Toeplitz hash the ports' RSS uses (lib/rss), so
 * that on a port whose RETA rocetor programmed the NIC's queue is already
 * the owner's. The NIC's hash is taken where the port delivers it; else it
 * is computed. The key is symmetric: an LB control packet (the flow's
 * addresses swapped) has its flow's owner.
 */
static inline int
owner_of(const struct rtr_worker *w, const struct rte_mbuf *m, const uint8_t *frame,
		const struct rtr_meta *meta, uint16_t port)
{
	const struct rtr_switch *sw = w->sw;
	unsigned int owner;
	uint32_t h;

	/* Only RoCE packets touch per-flow LB state; the rest is forwarded
	 * by whichever worker received it. */
	if (!w->fwd.lb->flow_affinity || sw->n_workers == 1 || !(meta->flags & RTR_MF_ROCE))
		return ING_FORWARD;
	if ((sw->rss_nic_hash >> port) & 1 && (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH))
		h = m->hash.rss;
	else
		h = rtr_rss_hash(&sw->rss, frame, meta);
	owner = rtr_rss_owner(&sw->rss, h);
	return owner == w->idx ? ING_FORWARD : (int)owner;
}

static inline int
ingress(struct rtr_worker *w, struct rte_mbuf *m, uint16_t port, uint64_t now_ns)
{
	struct rtr_switch *sw = w->sw;
	struct rtr_meta *meta = rtr_meta(m);
	const struct rtr_fwd_port *ip = &sw->ports[port];
	const uint8_t *frame;
	enum rtr_drop_reason why;

	/* The parser needs the whole frame in one segment; a multi-segment
	 * mbuf is linearised first, which fits only a frame the data room
	 * holds: anything larger is bigger than the MTU the pool was sized
	 * for (ports[].mtu), not a malformed frame. */
	if (unlikely(m->nb_segs > 1) && rte_pktmbuf_linearize(m) != 0) {
		memset(meta, 0, sizeof(*meta));
		drop(w, m, port, RTR_DROP_OVERSIZE);
		return ING_DONE;
	}
	frame = rte_pktmbuf_mtod(m, const uint8_t *);
	/* MAC control (PFC, PAUSE) ends here, whatever the PFC mode. */
	if (unlikely(rte_pktmbuf_data_len(m) >= 14 && frame[12] == (RTR_PFC_ETHERTYPE >> 8) &&
			    frame[13] == (RTR_PFC_ETHERTYPE & 0xff))) {
		memset(meta, 0, sizeof(*meta));
		meta->in_port = (uint8_t)port;
		if (rtr_egress_mac_control_rx(sw->egress, port, frame, rte_pktmbuf_data_len(m),
				    now_ns) != 0) {
			drop(w, m, port, RTR_DROP_MALFORMED);
			return ING_DONE;
		}
		w->stats->consumed++;
		rte_pktmbuf_free(m);
		return ING_DONE;
	}
	/* Fabric ports parse the fields of the LB mode this worker runs. */
	why = rtr_parse_fast(frame, rte_pktmbuf_data_len(m), sw->hash_seed,
			ip->role == RTR_PORT_FABRIC ? w->fwd.lb->fabric_parse_flags : 0, meta);
	meta->in_port = (uint8_t)port;
	if (unlikely(why != RTR_DROP_NONE)) {
		drop(w, m, port, why);
		return ING_DONE;
	}
	if (unlikely(rtr_meta_lb_control(meta))) {
		/* An LB control packet belongs to the worker that owns the
		 * flow it answers: the one its reverse 5-tuple hashes to. */
		meta->flow_hash = rtr_flow_hash_reverse(frame, meta, sw->hash_seed);
	}
	if (ip->role == RTR_PORT_HOST) {
		/* LB fields a host must not send, in every LB mode (another
		 * switch may act on them): control packets and shims are
		 * dropped, BTH byte 4 is cleared. doc/security.md. */
		bool cleared;

		why = rtr_lb_host_ingress((uint8_t *)(uintptr_t)frame, rte_pktmbuf_data_len(m),
				meta, &cleared);
		if (unlikely(why != RTR_DROP_NONE)) {
			drop(w, m, port, why);
			return ING_DONE;
		}
		if (unlikely(cleared))
			w->stats->port[port].host_b4_cleared++;
	}
	if (unlikely(ip->source_check) && !source_ok(w, frame, meta, port)) {
		drop(w, m, port, RTR_DROP_SOURCE_CHECK);
		return ING_DONE;
	}
	if (unlikely(ip->l2_filter) && !rtr_frame_l2_bcast(frame) &&
			memcmp(frame, ip->mac, RTE_ETHER_ADDR_LEN) != 0) {
		drop(w, m, port, RTR_DROP_L2_NOT_FOR_US);
		return ING_DONE;
	}
	if (unlikely(meta->l3 == RTR_L3_ARP)) {
		punt(w, m, port);
		return ING_DONE;
	}
	/* Lab impairment: LB control packets lost on the way in. */
	if (unlikely(w->fault != NULL) && ip->role == RTR_PORT_FABRIC &&
			(why = rtr_fault_rx(w->fault, meta)) != RTR_DROP_NONE) {
		drop(w, m, port, why);
		return ING_DONE;
	}
	return owner_of(w, m, frame, meta, port);
}

/* Hand packets to the worker that owns their flows, one ring burst each. */
static void
handoff_burst(struct rtr_worker *w, unsigned int owner, struct rte_mbuf **pkts, unsigned int n)
{
	unsigned int sent = rte_ring_mp_enqueue_burst(
			w->sw->workers[owner]->handoff, (void *const *)pkts, n, NULL);

	w->stats->handoff_tx += sent;
	for (unsigned int i = sent; i < n; i++)
		drop(w, pkts[i], rtr_meta(pkts[i])->in_port, RTR_DROP_HANDOFF_FULL);
}

/*
 * The forwarding step for n parsed packets, one step at a time over the
 * burst (lib/fwd/rtr_fwd.h). Flow state is prefetched in two rounds so
 * that its cache misses overlap: the LB mode's prefetch(step 0) (bucket)
 * was issued at parse time, step 1 (the entry the bucket points to) is
 * issued here before the lookup, and the picks run after every lookup.
 * With tsc non-NULL, the lookup, the pick and the finish with its queueing
 * are timed into tsc[0..2] (cycles): stages route, lb and egress.
 */
static void
forward_burst(struct rtr_worker *w, struct rte_mbuf **pkts, unsigned int n, uint64_t now_ns,
		uint64_t *tsc)
{
	const struct rtr_fwd *f = &w->fwd;
	struct rtr_fwd_dest d[RTR_BURST];
	uint64_t t0 = 0, t1 = 0, t2 = 0;
	unsigned int i;

	if (tsc != NULL)
		t0 = rte_rdtsc();
	for (i = 0; i < n; i++) {
		rtr_lb_prefetch(f->lb, f->lb_state, rtr_meta(pkts[i]), 1);
		rtr_fwd_lookup(f, pkts[i], rtr_meta(pkts[i]), &d[i]);
	}
	if (tsc != NULL)
		t1 = rte_rdtsc();
	for (i = 0; i < n; i++)
		if (d[i].verdict == RTR_FWD_CONTINUE)
			rtr_fwd_pick(f, pkts[i], rtr_meta(pkts[i]), &d[i], now_ns);
	if (tsc != NULL)
		t2 = rte_rdtsc();
	for (i = 0; i < n; i++) {
		struct rtr_meta *meta = rtr_meta(pkts[i]);

		if (d[i].verdict == RTR_FWD_CONTINUE)
			rtr_fwd_finish(f, pkts[i], meta, &d[i], now_ns);
		fwd_verdict(w, pkts[i], meta, &d[i], now_ns);
	}
	/* The control packets the burst's deliveries answered with (in the
	 * egress stage, where they were forwarded one by one before). */
	if (w->ctrl_out_n != 0)
		ctrl_flush(w);
	if (tsc != NULL) {
		uint64_t t3 = rte_rdtsc();

		tsc[0] += t1 - t0;
		tsc[1] += t2 - t1;
		tsc[2] += t3 - t2;
	}
}

/*
 * The LB control packets built since the last flush, forwarded as one
 * burst: each parsed like any frame (so routing and egress see its
 * metadata; the parser is the one judge of what a frame is), then the
 * forwarding step over them all. They answer packets of this pass, so
 * they leave in the same pass; a control packet never makes another, so
 * the forward_burst below finds none to flush.
 */
static void
ctrl_flush(struct rtr_worker *w)
{
	struct rte_mbuf *pkts[RTE_DIM(w->ctrl_out)];
	const uint32_t pf = RTR_LB_PARSE_HDR;
	unsigned int i, k = 0, n = w->ctrl_out_n;

	w->ctrl_out_n = 0;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = w->ctrl_out[i];
		struct rtr_meta *meta = rtr_meta(m);

		if (rtr_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
				    w->sw->hash_seed, pf, meta) != RTR_DROP_NONE) {
			drop(w, m, RTR_PORT_NONE, RTR_DROP_MALFORMED);
			continue;
		}
		meta->in_port = RTR_PORT_NONE;
		rtr_lb_prefetch(w->fwd.lb, w->fwd.lb_state, meta, 0);
		pkts[k++] = m;
	}
	forward_burst(w, pkts, k, w->now_ns, NULL);
}

/* Owners a burst batches hand-offs for; packets for others go one by one. */
#define HANDOFF_BATCHES (RTR_MAX_LCORES > 8 ? 8 : RTR_MAX_LCORES)

/* Returns whether this burst was timed (RTR_STAGE_SAMPLE). */
static bool
rx_burst(struct rtr_worker *w, unsigned int qi, uint64_t now_ns, unsigned int *got)
{
	const struct rtr_rxq *q = &w->rxq[qi];
	struct rte_mbuf *pkts[RTR_BURST], *fwd[RTR_BURST];
	struct rte_mbuf *hand[HANDOFF_BATCHES][RTR_BURST];
	unsigned int n_hand[HANDOFF_BATCHES];
	struct rtr_lcore_stats *st = w->stats;
	const bool timed = (w->bursts % RTR_STAGE_SAMPLE) == 0;
	uint64_t bytes = 0, t0 = 0, t1 = 0, t2 = 0, steps[3] = {0, 0, 0};
	uint32_t hand_mask = 0;
	unsigned int n, i, k = 0;

	/* A lossless class from this port is over xoff_kb and the NIC sends
	 * the pause: leave the packets in the NIC, whose buffer filling makes
	 * it pause the sender. The queue's horizon stays where it was. */
	if (unlikely(w->rx_hold_on) && rtr_egress_rx_held(w->sw->egress, q->port))
		return false;
	if (timed)
		t0 = rte_rdtsc();
	n = rte_eth_rx_burst(q->port, q->queue, pkts, RTR_BURST);
	/* The poll began after now_ns, the pass's clock. */
	rtr_lb_hz_poll(&w->hz_rxq[qi], now_ns, n, RTR_BURST);
	if (n == 0)
		return false;
	w->bursts++;
	if (timed)
		t1 = rte_rdtsc();
	*got += n;
	for (i = 0; i < n && i < 4; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		int to;

		if (i + 4 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 4], void *));
		bytes += m->pkt_len;
		to = ingress(w, m, q->port, now_ns);
		if (to == ING_FORWARD) {
			fwd[k++] = m;
			rtr_lb_prefetch(w->fwd.lb, w->fwd.lb_state, rtr_meta(m), 0);
		} else if (to >= 0) {
			if (unlikely(to >= (int)RTE_DIM(n_hand))) {
				/* More workers than batches: one at a time. */
				handoff_burst(w, (unsigned int)to, &m, 1);
				continue;
			}
			if (!(hand_mask & (1u << to))) {
				hand_mask |= 1u << to;
				n_hand[to] = 0;
			}
			hand[to][n_hand[to]++] = m;
		}
	}
	while (hand_mask) {
		unsigned int o = (unsigned int)__builtin_ctz(hand_mask);

		hand_mask &= hand_mask - 1;
		handoff_burst(w, o, hand[o], n_hand[o]);
	}
	st->port[q->port].rx_packets += n;
	st->port[q->port].rx_bytes += bytes;
	if (timed)
		t2 = rte_rdtsc();
	forward_burst(w, fwd, k, now_ns, timed ? steps : NULL);
	if (timed) {
		st->stage_cycles[RTR_STAGE_rx] += t1 - t0;
		st->stage_cycles[RTR_STAGE_parse] += t2 - t1;
		st->stage_cycles[RTR_STAGE_route] += steps[0];
		st->stage_cycles[RTR_STAGE_lb] += steps[1];
		st->stage_cycles[RTR_STAGE_egress] += steps[2];
		st->stage_packets += n;
	}
	return timed;
}

/* Frames from other workers (hand-off) and from the control plane (inject). */
static unsigned int
drain_rings(struct rtr_worker *w, uint64_t now_ns)
{
	const struct rtr_switch *sw = w->sw;
	struct rte_mbuf *pkts[RTR_BURST];
	unsigned int n, i, total = 0;
	uint64_t others[2] = {UINT64_MAX, UINT64_MAX};

	/* What the hand-off ring holds arrived after the horizons the other
	 * workers published before they handed it off: their smallest, by
	 * kind of input, read before the ring is (rtr_lb_clock.h). */
	if (sw->n_workers > 1)
		for (i = 0; i < sw->n_workers; i++) {
			if (i == w->idx)
				continue;
			for (unsigned int k = 0; k < 2; k++) {
				uint64_t h = atomic_load_explicit(&sw->workers[i]->rx_seen_ns[k],
						memory_order_acquire);

				if (h < others[k])
					others[k] = h;
			}
		}
	/* Up to four bursts: a worker that was late (preempted, or slower
	 * than the peers feeding it) catches up before its ring fills. */
	for (unsigned int b = 0; b < 4; b++) {
		n = rte_ring_sc_dequeue_burst(w->handoff, (void **)pkts, RTR_BURST, NULL);
		if (sw->n_workers > 1) {
			rtr_lb_hz_poll(&w->hz_ring[RTR_LB_IN_HOST], others[RTR_LB_IN_HOST], n,
					RTR_BURST);
			rtr_lb_hz_poll(&w->hz_ring[RTR_LB_IN_FABRIC], others[RTR_LB_IN_FABRIC], n,
					RTR_BURST);
		}
		w->stats->handoff_rx += n;
		if (n == 0)
			break;
		for (i = 0; i < n; i++)
			rtr_lb_prefetch(w->fwd.lb, w->fwd.lb_state, rtr_meta(pkts[i]), 0);
		forward_burst(w, pkts, n, now_ns, NULL);
		total += n;
		if (n < RTR_BURST)
			break;
	}
	n = rte_ring_sc_dequeue_burst(w->inject, (void **)pkts, RTR_BURST, NULL);
	for (i = 0; i < n; i++) {
		uint16_t out = rtr_meta(pkts[i])->out_port;

		/* A down port takes nothing, not even the switch's own frames. */
		if (unlikely(!atomic_load_explicit(
				    &w->sw->ports[out].link_up, memory_order_relaxed))) {
			drop(w, pkts[i], RTR_PORT_NONE, RTR_DROP_PORT_DOWN);
			continue;
		}
		tx_enqueue(w, out, pkts[i], now_ns);
	}
	return total + n;
}

static void
idle_sleep(uint32_t us)
{
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};

	nanosleep(&ts, NULL);
}

/*
 * Ports that went down lose what this worker queued for them (counted as
 * port_down): a real link drops its queue, and nothing may wait for a port
 * that may never come back.
 */
static void
check_down_ports(struct rtr_worker *w)
{
	struct rtr_switch *sw = w->sw;
	uint32_t mask = w->eg->active | w->down_seen;

	while (mask) {
		unsigned int p = (unsigned int)__builtin_ctz(mask);
		bool up = atomic_load_explicit(&sw->ports[p].link_up, memory_order_relaxed);

		mask &= mask - 1;
		if (!up) {
			rtr_egress_port_down(w->eg, (uint16_t)p);
			/* Held packets for the port: released (and dropped as
			 * port_down) once, when it is first seen down; the
			 * flush walks the whole flow table. */
			if (!(w->down_seen & (1u << p)))
				rtr_lb_flush(w->fwd.lb, w->fwd.lb_state, (int)p, w->now_ns,
						w->stats);
			w->down_seen |= 1u << p;
		} else {
			w->down_seen &= ~(1u << p);
		}
	}
}

/*
 * A runtime LB switch posted by the control side (struct rtr_lb_req): what
 * the old mode holds goes out first, in order, to its ports (as at exit;
 * its hold timers end with it), then the new mode takes over. Packets in
 * the hand-off and inject rings are processed by the new mode.
 */
static void
lb_switch(struct rtr_worker *w, uint64_t now_ns)
{
	struct rtr_lb_req *req = atomic_exchange_explicit(&w->lb_req, NULL, memory_order_acquire);
	uint64_t released = 0;

	if (req == NULL)
		return;
	released = rtr_lb_flush(w->fwd.lb, w->fwd.lb_state, -1, now_ns, w->stats);
	/* The per-port flow-limit refusals live in the flow table that goes
	 * with the old state: keep them in this worker's counters, so that
	 * they stay monotonic (rtr_pipeline_flow_counters adds the table's). */
	if (w->fwd.lb->table != NULL) {
		const struct rtr_ft *t = w->fwd.lb->table(w->fwd.lb_state);

		for (unsigned int p = 0; t != NULL && p < RTR_MAX_PORTS && p < RTR_FT_ORIGINS;
				p++) {
			uint64_t gauge = 0;

			rtr_ft_origin_stats(t, p, &gauge, &w->stats->port[p].flow_limit_share,
					&w->stats->port[p].flow_limit_rate);
		}
	}
	req->old_ops = w->fwd.lb;
	req->old_state = w->fwd.lb_state;
	req->released = released;
	atomic_fetch_add_explicit(&w->lb_gen, 1, memory_order_acq_rel);
	w->fwd.lb = req->ops;
	w->fwd.lb_state = req->state;
	atomic_fetch_add_explicit(&w->lb_gen, 1, memory_order_release);
	w->stats->lb_switch_released += released;
	atomic_store_explicit(&req->done, 1, memory_order_release);
}

void
rtr_worker_lb_read(const struct rtr_worker *w, const struct rtr_lb_ops **ops, void **state)
{
	uint32_t g;

	for (;;) {
		g = atomic_load_explicit(&w->lb_gen, memory_order_acquire);
		if (g & 1)
			continue;
		*ops = w->fwd.lb;
		*state = w->fwd.lb_state;
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&w->lb_gen, memory_order_relaxed) == g)
			return;
	}
}

int64_t
rtr_pipeline_lb_switch(struct rtr_switch *sw, const struct rtr_lb_ops *ops, void *shared,
		void *const *states)
{
	struct rtr_lb_req *req[RTR_MAX_LCORES] = {NULL};
	const struct rtr_lb_ops *old_ops = sw->lb;
	void *old_shared = sw->lb_shared;
	const struct timespec tick = {.tv_sec = 0, .tv_nsec = 100 * 1000};
	int64_t released = 0;
	unsigned int i, waiting;

	for (i = 0; i < sw->n_workers; i++) {
		req[i] = calloc(1, sizeof(*req[i]));
		if (req[i] == NULL) {
			while (i > 0)
				free(req[--i]);
			return -ENOMEM;
		}
		req[i]->ops = ops;
		req[i]->state = states[i];
	}
	for (i = 0; i < sw->n_workers; i++)
		atomic_store_explicit(&sw->workers[i]->lb_req, req[i], memory_order_release);
	/* Workers take requests at every control poll, in RTR_RUN and in
	 * RTR_STOP_RX; the exit sequence waits for lb_switching to clear before
	 * RTR_STOP_FINAL, so every worker takes its request. */
	do {
		nanosleep(&tick, NULL);
		waiting = 0;
		for (i = 0; i < sw->n_workers; i++)
			waiting += !atomic_load_explicit(&req[i]->done, memory_order_acquire);
	} while (waiting);
	pthread_mutex_lock(&sw->lb_lock);
	sw->lb = ops;
	sw->lb_shared = shared;
	for (i = 0; i < sw->n_workers; i++) {
		if (req[i]->old_state != NULL && req[i]->old_ops->fini != NULL)
			req[i]->old_ops->fini(req[i]->old_state);
		released += (int64_t)req[i]->released;
		free(req[i]);
	}
	if (old_shared != NULL && old_ops->shared_free != NULL)
		old_ops->shared_free(old_shared);
	atomic_fetch_add(&sw->lb_switches, 1);
	pthread_mutex_unlock(&sw->lb_lock);
	return released;
}

int
rtr_worker_main(void *arg)
{
	struct rtr_worker *w = arg;
	struct rtr_switch *sw = w->sw;
	uint64_t iter = 0, busy_t0 = 0;
	unsigned int idle_polls = 0;
	int state;

	w->last_rx_tsc = rte_rdtsc();
	for (unsigned int q = 0; q < w->n_rxq; q++)
		rtr_lb_hz_init(&w->hz_rxq[q], w->rxq[q].cap);
	rtr_lb_hz_init(&w->hz_ring[RTR_LB_IN_HOST], rte_ring_get_capacity(w->handoff));
	rtr_lb_hz_init(&w->hz_ring[RTR_LB_IN_FABRIC], rte_ring_get_capacity(w->handoff));
	w->stall_left = sw->cfg->faults.stall_us != 0 ? sw->cfg->faults.stall_every : 0;
	if (pthread_getcpuclockid(pthread_self(), &w->cpu_clock) == 0)
		atomic_store_explicit(&w->cpu_clock_ok, true, memory_order_release);
	w->fwd.route = sw->route;
	w->fwd.nh = rtr_neigh_nh_table(sw->neigh);
	w->fwd.ports = sw->ports;
	w->fwd.st = w->stats;
	w->fwd.fabric_ports = 0;
	for (unsigned int p = 0; p < RTR_MAX_PORTS; p++)
		if (sw->ports[p].role == RTR_PORT_FABRIC)
			w->fwd.fabric_ports |= 1u << p;
	w->clock.fabric_ports = w->fwd.fabric_ports;
	if (sw->qsbr != NULL) {
		rte_rcu_qsbr_thread_register(sw->qsbr, w->idx);
		rte_rcu_qsbr_thread_online(sw->qsbr, w->idx);
	}
	for (;;) {
		uint64_t now_tsc, t0, now_ns, seen, in[2];
		unsigned int got = 0, i;
		bool timed = false;

		/* Between loops the worker holds nothing of the route tables:
		 * what a route change unlinked may be freed once every worker
		 * said so (lib/route). */
		if (sw->qsbr != NULL)
			rte_rcu_qsbr_quiescent(sw->qsbr, w->idx);

		/* Lab impairment (faults.stall_us): the worker stops for a
		 * while, as when it is preempted, before the pass reads its
		 * clock: packets pile up in its queues meanwhile. */
		if (unlikely(w->stall_left != 0) && --w->stall_left == 0) {
			w->stall_left = sw->cfg->faults.stall_every;
			w->stats->fault_stalls++;
			rte_delay_us_sleep(sw->cfg->faults.stall_us);
		}
		now_tsc = rte_rdtsc();
		t0 = now_tsc;
		now_ns = rtr_tsc_to_ns(sw, now_tsc);

		/* An iteration that had packets is busy until the next one
		 * starts: one TSC read per iteration. */
		if (busy_t0 != 0) {
			w->stats->busy_cycles += now_tsc - busy_t0;
			busy_t0 = 0;
		}
		w->now_ns = now_ns;
		state = atomic_load_explicit(&sw->run_state, memory_order_acquire);
		if (likely(state == RTR_RUN)) {
			for (i = 0; i < w->n_rxq; i++)
				timed |= rx_burst(w, i, now_ns, &got);
		} else {
			/* Not receiving any more: what waits in the RX
			 * queues holds no deadline back. */
			for (i = 0; i < w->n_rxq; i++)
				rtr_lb_hz_idle(&w->hz_rxq[i], now_ns);
			if (!atomic_load_explicit(&w->stopped, memory_order_relaxed))
				atomic_store_explicit(&w->stopped, 1, memory_order_release);
		}
		/* The RX queues' horizons by kind, published once what they
		 * gave was handed off (drain_rings of the other workers reads
		 * them). */
		in[RTR_LB_IN_HOST] = in[RTR_LB_IN_FABRIC] = now_ns;
		for (i = 0; i < w->n_rxq; i++) {
			unsigned int k = (w->fwd.fabric_ports >> w->rxq[i].port) & 1;

			if (w->hz_rxq[i].h_ns < in[k])
				in[k] = w->hz_rxq[i].h_ns;
		}
		for (i = 0; i < 2; i++)
			atomic_store_explicit(&w->rx_seen_ns[i], in[i], memory_order_release);
		got += drain_rings(w, now_ns);
		for (i = 0; i < 2; i++) {
			if (sw->n_workers > 1 && w->hz_ring[i].h_ns < in[i])
				in[i] = w->hz_ring[i].h_ns;
			if (in[i] > w->clock.in_ns[i])
				w->clock.in_ns[i] = in[i];
		}
		seen = RTE_MIN(w->clock.in_ns[0], w->clock.in_ns[1]);
		w->clock.seen_ns = seen;
		/* Timers run on the horizon, never on the wall clock: a
		 * deadline passes once everything that came before it was
		 * taken (rtr_lb_clock.h). */
		rtr_lb_tick(w->fwd.lb, w->fwd.lb_state, seen, w->stats);
		if (w->ctrl_out_n != 0) /* what the released packets answered */
			ctrl_flush(w);
		if (w->eg->pfc_active)
			rtr_egress_tick(w->eg, now_ns);
		if (unlikely(timed)) {
			uint64_t t = rte_rdtsc();

			if (w->eg->active)
				rtr_egress_service(w->eg, now_ns);
			w->stats->stage_cycles[RTR_STAGE_tx] += rte_rdtsc() - t;
		} else if (w->eg->active) {
			rtr_egress_service(w->eg, now_ns);
		}
		if (got) {
			w->last_rx_tsc = now_tsc;
			idle_polls = 0;
			busy_t0 = t0;
			w->stats->busy_packets += got;
		}
		if ((++iter & RTR_CTRL_POLL_MASK) == 0) {
			if (unlikely(atomic_load_explicit(&w->lb_req, memory_order_relaxed) !=
					    NULL))
				lb_switch(w, now_ns);
			rtr_lb_age(w->fwd.lb, w->fwd.lb_state, seen, w->stats);
			check_down_ports(w);
			if (w->is_control)
				rtr_control_poll(sw, now_tsc);
			if (w->ctrl_out_n != 0) /* a switch's release */
				ctrl_flush(w);
		}
		if (got == 0)
			ctrl_stash_return(w);
		if (state == RTR_STOP_FINAL)
			break;
		/* Sleep only with nothing queued: a shaped or delayed port must
		 * keep being served on time. */
		if (got == 0 && sw->idle_sleep_us && w->eg->active == 0 &&
				rtr_lb_held(w->fwd.lb, w->fwd.lb_state) == 0 &&
				++idle_polls >= sw->idle_threshold) {
			w->stats->idle_sleeps++;
			/* Asleep it reads nothing: route changes need not wait. */
			if (sw->qsbr != NULL)
				rte_rcu_qsbr_thread_offline(sw->qsbr, w->idx);
			idle_sleep(sw->idle_sleep_us);
			if (sw->qsbr != NULL)
				rte_rcu_qsbr_thread_online(sw->qsbr, w->idx);
		}
	}
	/* Final: everything still in our rings or queues goes out, ignoring
	 * shaping, delay and PFC pauses (DESIGN.md B2: nothing silently lost). */
	w->now_ns = rtr_tsc_to_ns(sw, rte_rdtsc());
	lb_switch(w, w->now_ns); /* none pending: the exit waits for switches */
	while (drain_rings(w, w->now_ns) != 0)
		;
	rtr_lb_flush_final(w->fwd.lb, w->fwd.lb_state, w->now_ns, w->stats);
	ctrl_flush(w);
	ctrl_stash_return(w);
	rtr_egress_flush_all(w->eg, 1000);
	if (sw->qsbr != NULL) {
		rte_rcu_qsbr_thread_offline(sw->qsbr, w->idx);
		rte_rcu_qsbr_thread_unregister(sw->qsbr, w->idx);
	}
	return 0;
}

void
rtr_pipeline_flow_counters(const struct rtr_switch *sw, struct rtr_lcore_stats *sum)
{
	pthread_mutex_lock((pthread_mutex_t *)(uintptr_t)&sw->lb_lock);
	for (unsigned int i = 0; i < sw->n_workers; i++) {
		const struct rtr_lb_ops *ops;
		const struct rtr_ft *t;
		void *state;

		rtr_worker_lb_read(sw->workers[i], &ops, &state);
		if (ops == NULL || ops->table == NULL || state == NULL ||
				(t = ops->table(state)) == NULL)
			continue;
		for (unsigned int p = 0; p < RTR_MAX_PORTS && p < RTR_FT_ORIGINS; p++)
			rtr_ft_origin_stats(t, p, &sum->port[p].flow_entries,
					&sum->port[p].flow_limit_share,
					&sum->port[p].flow_limit_rate);
	}
	pthread_mutex_unlock((pthread_mutex_t *)(uintptr_t)&sw->lb_lock);
}

uint64_t
rtr_pipeline_held(const struct rtr_switch *sw)
{
	uint64_t held = sw->ctrl_ring ? rte_ring_count(sw->ctrl_ring) : 0;

	pthread_mutex_lock((pthread_mutex_t *)(uintptr_t)&sw->lb_lock);
	for (unsigned int i = 0; i < sw->n_workers; i++) {
		const struct rtr_worker *w = sw->workers[i];
		const struct rtr_lb_ops *ops;
		void *state;

		held += rte_ring_count(w->handoff) + rte_ring_count(w->inject);
		if (w->eg != NULL)
			held += w->eg->held;
		rtr_worker_lb_read(w, &ops, &state);
		if (ops != NULL && state != NULL)
			held += rtr_lb_held(ops, state);
	}
	pthread_mutex_unlock((pthread_mutex_t *)(uintptr_t)&sw->lb_lock);
	return held;
}
