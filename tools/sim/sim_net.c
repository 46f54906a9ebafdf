/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "rtr_cksum.h"
#include "rtr_egress.h"
#include "rtr_lb.h"
#include "rtr_lb_worker.h"
#include "rtr_parse.h"
#include "sim_net.h"

static inline struct sim_net *
net_of(struct sim *s)
{
	return (struct sim_net *)(void *)s;
}

/* ------------------------------------------------------------------ packets */

struct sim_pkt *
sim_pkt_alloc(struct sim_net *net)
{
	struct sim_pkt *p = net->free_list;

	if (p != NULL) {
		net->free_list = p->next;
	} else {
		size_t sz = sizeof(*p) + SIM_PKT_BUFSZ;

		p = aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL(sz, RTE_CACHE_LINE_SIZE));
		if (p == NULL)
			return NULL;
		net->pkts_alloc++;
	}
	memset(p, 0, sizeof(*p));
	p->mb.buf_addr = (uint8_t *)p + sizeof(*p);
	p->mb.buf_len = SIM_PKT_BUFSZ;
	p->mb.data_off = SIM_PKT_HEADROOM;
	p->mb.nb_segs = 1;
	p->mb.refcnt = 1;
	net->pkts_live++;
	return p;
}

void
sim_pkt_free(struct sim_net *net, struct sim_pkt *p)
{
	if (p == NULL)
		return;
	net->pkts_live--;
	p->next = net->free_list;
	net->free_list = p;
}

/* -------------------------------------------------------------------- links */

static void tx_start(struct sim_net *net, uint32_t node, uint16_t port);
static void ev_resume(struct sim *s, void *arg, uint64_t u);
static void switch_rx(struct sim_net *net, uint32_t node, uint16_t port, struct sim_pkt *p);

static inline uint64_t
key(uint32_t node, uint16_t port)
{
	return (uint64_t)node << 16 | port;
}

/* The last bit of the frame left: the transmitter takes the next one. */
static void
ev_tx_done(struct sim *s, void *arg, uint64_t u)
{
	struct sim_net *net = net_of(s);

	uint32_t node = (uint32_t)(u >> 16);
	uint16_t port = (uint16_t)(u & 0xffff);
	struct rtr_egress *eg = net->topo->nodes[node].eg;

	(void)arg;
	net->tx[node][port].busy = false;
	tx_start(net, node, port);
	/* The NIC has room again: the egress sends what it holds. */
	if (eg != NULL)
		rtr_egress_service_port(eg, port, s->now_ns);
}

static inline bool
is_mac_control(struct sim_pkt *p)
{
	const uint8_t *f = sim_pkt_data(p);

	return p->mb.pkt_len >= 34 && (f[12] << 8 | f[13]) == RTR_PFC_ETHERTYPE;
}

/* An 802.1Qbb frame at a host: each class named pauses for its quanta
 * (512 bit times each at the link's rate), quanta 0 (XON) resumes it now.
 * The plain FIFO waits for the latest pause of any class; frames pulled
 * from the host (host_tx) only for their own class, which the host checks:
 * the transmitter pulls again when this frame's pauses end. */
static void
host_pause(struct sim_net *net, uint32_t node, uint16_t port, struct sim_pkt *p)
{
	const uint8_t *f = sim_pkt_data(p);
	struct sim_tx *tx = &net->tx[node][port];
	double gbps = net->topo->nodes[node].ports[port].gbps;
	uint64_t now = net->sim.now_ns, last = 0, until = 0;
	bool resumed = false;

	if ((f[14] << 8 | f[15]) != RTR_PFC_OPCODE)
		return;
	for (unsigned int c = 0; c < 8; c++) {
		uint64_t qc = (uint64_t)(f[18 + 2 * c] << 8 | f[19 + 2 * c]);

		if (!(f[17] >> c & 1))
			continue;
		if (qc == 0) {
			if (tx->cls_paused_until_ns[c] > now)
				resumed = true;
			tx->cls_paused_until_ns[c] = now;
		} else {
			tx->cls_paused_until_ns[c] =
					now + (uint64_t)((double)qc * 512 / gbps + 0.999);
			if (tx->cls_paused_until_ns[c] > last)
				last = tx->cls_paused_until_ns[c];
		}
	}
	for (unsigned int c = 0; c < 8; c++)
		if (tx->cls_paused_until_ns[c] > until)
			until = tx->cls_paused_until_ns[c];
	tx->paused_until_ns = until;
	if (net->host_tx != NULL && last > now)
		sim_at(&net->sim, last, ev_resume, NULL, key(node, port) | 1ull << 63);
	if (until <= now) {
		tx->resume_ps = now * 1000;
		tx_start(net, node, port);
	} else if (resumed && net->host_tx != NULL) {
		tx_start(net, node, port);
	}
}

static void ev_service(struct sim *s, void *arg, uint64_t u);

/* At a switch: the egress pauses the classes (rtr_egress_mac_control_rx);
 * the port is serviced again when the longest pause it now has ends, and
 * now (an XON). */
static void
switch_pause(struct sim_net *net, uint32_t node, uint16_t port, struct sim_pkt *p)
{
	struct sim_node *n = &net->topo->nodes[node];
	uint64_t until = 0;

	if (rtr_egress_mac_control_rx(n->eg_shared, port, sim_pkt_data(p), p->mb.pkt_len,
			    net->sim.now_ns) != 0)
		return;
	net->st[node].consumed++;
	for (unsigned int c = 0; c < RTR_MAX_CLASSES; c++) {
		uint64_t u = atomic_load_explicit(
				&n->eg_shared->port[port].pfc.pause_until[c], memory_order_relaxed);

		if (u > until)
			until = u;
	}
	if (until > net->sim.now_ns)
		sim_at(&net->sim, until, ev_service, NULL, key(node, port));
	rtr_egress_service_port(n->eg, port, net->sim.now_ns);
}

/* A frame arrives at (node, port) = u. */
static void
ev_arrive(struct sim *s, void *arg, uint64_t u)
{
	struct sim_net *net = net_of(s);
	uint32_t node = (uint32_t)(u >> 16);
	struct sim_pkt *p = arg;

	if (is_mac_control(p)) {
		net->pfc_frames++;
		net->tx[node][u & 0xffff].rx_pfc++;
		if (net->topo->nodes[node].kind == SIM_HOST)
			host_pause(net, node, (uint16_t)(u & 0xffff), p);
		else
			switch_pause(net, node, (uint16_t)(u & 0xffff), p);
		sim_pkt_free(net, p);
		return;
	}
	if (net->topo->nodes[node].kind == SIM_HOST) {
		net->delivered++;
		if (net->host_rx != NULL)
			net->host_rx(net, node, p);
		else
			sim_pkt_free(net, p);
		return;
	}
	switch_rx(net, node, (uint16_t)(u & 0xffff), p);
}

/* A host's pause ended (or was shortened: then this finds it still
 * paused and re-arms). Bit 63 of u: a class's pause ended (the host's
 * scheduler looks again), not the FIFO's armed resume. */
static void
ev_resume(struct sim *s, void *arg, uint64_t u)
{
	struct sim_net *net = net_of(s);
	uint32_t node = (uint32_t)((u & ~(1ull << 63)) >> 16);
	uint16_t port = (uint16_t)(u & 0xffff);

	(void)arg;
	if (!(u >> 63))
		net->tx[node][port].resume_armed = false;
	if (net->tx[node][port].paused_until_ns <= s->now_ns)
		net->tx[node][port].resume_ps = s->now_ns * 1000;
	tx_start(net, node, port);
}

static void
tx_start(struct sim_net *net, uint32_t node, uint16_t port)
{
	struct sim_tx *tx = &net->tx[node][port];
	const struct sim_port *pt = &net->topo->nodes[node].ports[port];
	struct sim_pkt *p = tx->head;
	uint64_t start_ps, done_ps, done_ns;
	uint32_t len;

	if (tx->busy)
		return;
	if (p == NULL) {
		uint64_t avail_ps = tx->free_ps;

		/* A host's NIC scheduler: it checks its classes' pauses. */
		if (net->host_tx == NULL || net->topo->nodes[node].kind != SIM_HOST)
			return;
		if (tx->resume_ps > avail_ps)
			avail_ps = tx->resume_ps;
		p = net->host_tx(net, node, avail_ps);
		if (p == NULL)
			return;
		p->next = NULL;
		if (p->q_ps > net->sim.now_ns * 1000)
			p->q_ps = net->sim.now_ns * 1000;
		tx->q_pkts++;
		tx->q_bytes += p->mb.pkt_len;
		tx->head = tx->tail = p;
	} else if (tx->paused_until_ns > net->sim.now_ns) {
		if (!tx->resume_armed) {
			tx->resume_armed = true;
			sim_at(&net->sim, tx->paused_until_ns, ev_resume, NULL, key(node, port));
		}
		return;
	}
	tx->head = p->next;
	if (tx->head == NULL)
		tx->tail = NULL;
	p->next = NULL;
	len = p->mb.pkt_len;
	tx->q_pkts--;
	tx->q_bytes -= len;
	/* The frame starts when it was queued or when the one before it
	 * ended, whichever is later (not at this event's rounded time). */
	start_ps = p->q_ps;
	if (tx->free_ps > start_ps)
		start_ps = tx->free_ps;
	/* Not before a pause ended (the frames waited for it). */
	if (tx->resume_ps > start_ps &&
			!(net->host_tx != NULL && net->topo->nodes[node].kind == SIM_HOST))
		start_ps = tx->resume_ps;
	done_ps = start_ps + sim_ser_ps(len, net->wire_overhead, pt->gbps);
	tx->free_ps = done_ps;
	tx->busy = true;
	tx->tx_pkts++;
	tx->tx_bytes += len;
	tx->tx_wire_bytes += len + net->wire_overhead;
	done_ns = (done_ps + 999) / 1000;
	/* A frame that would end before now started in the past: the link
	 * would carry more than its rate (the pause bug this counter found). */
	if (done_ns < net->sim.now_ns)
		net->tx_late++;
	sim_at(&net->sim, done_ns, ev_tx_done, NULL, key(node, port));
	sim_at(&net->sim, done_ns + pt->delay_ns, ev_arrive, p, key(pt->peer, pt->peer_port));
}

void
sim_net_send(struct sim_net *net, uint32_t node, uint16_t port, struct sim_pkt *p)
{
	struct sim_tx *tx = &net->tx[node][port];

	p->next = NULL;
	p->q_ps = net->sim.now_ns * 1000;
	if (tx->tail != NULL)
		tx->tail->next = p;
	else
		tx->head = p;
	tx->tail = p;
	tx->q_pkts++;
	tx->q_bytes += p->mb.pkt_len;
	if (tx->q_bytes > tx->max_q_bytes)
		tx->max_q_bytes = tx->q_bytes;
	tx_start(net, node, port);
}

void
sim_net_host_kick(struct sim_net *net, uint32_t node)
{
	tx_start(net, node, 0);
}

/* ------------------------------------------------------- switch ports' NICs */

/*
 * A switch port's NIC is lib/nicmodel's (rtr_nicmodel.h), frames being
 * the mbufs. The model is advanced at its own events (ev_nic, at
 * rtr_nicm_next_event_ns()) and when a burst is given to an idle one
 * (eg_tx): a frame's start, its last bit and its descriptor's free are the
 * model's. When a frame starts, its arrival at the peer is scheduled (the
 * link's delay after its last bit, at the whole ns): that is when the
 * former transmitter scheduled it, so that events at one time run in the
 * same order.
 */
static void ev_nic(struct sim *s, void *arg, uint64_t u);

static uint32_t
nic_frame_len(void *frame)
{
	return ((struct rte_mbuf *)frame)->pkt_len;
}

static void
arm_nic(struct sim_net *net, uint32_t node, uint16_t port)
{
	struct sim_tx *tx = &net->tx[node][port];
	uint64_t t = rtr_nicm_next_event_ns(tx->nic);

	if (t == UINT64_MAX)
		return;
	if (t < net->sim.now_ns)
		t = net->sim.now_ns;
	if (t >= tx->nic_at)
		return;
	tx->nic_at = t;
	sim_at(&net->sim, t, ev_nic, NULL, key(node, port));
}

/* Frame m started on (node, port)'s wire and its last bit leaves at
 * end_ps: counted as the link's, sent to the peer. */
static void
nic_launch(struct sim_net *net, uint32_t node, uint16_t port, struct rte_mbuf *m, uint64_t end_ps)
{
	struct sim_tx *tx = &net->tx[node][port];
	const struct sim_port *pt = &net->topo->nodes[node].ports[port];
	uint64_t done_ns = (end_ps + 999) / 1000;

	tx->free_ps = end_ps;
	tx->tx_pkts++;
	tx->tx_bytes += m->pkt_len;
	tx->tx_wire_bytes += m->pkt_len + net->wire_overhead;
	if (done_ns < net->sim.now_ns)
		net->tx_late++;
	sim_at(&net->sim, done_ns + pt->delay_ns, ev_arrive, sim_pkt_of(m),
			key(pt->peer, pt->peer_port));
}

/* Run (node, port)'s NIC up to now: the frames that left (their arrivals
 * are scheduled already, unless one started and left within this call),
 * then the frame that started, then its next event. */
static void
nic_run(struct sim_net *net, uint32_t node, uint16_t port)
{
	struct sim_tx *tx = &net->tx[node][port];
	struct rtr_nicm_sent out[16], w;
	uint16_t k;

	do {
		k = rtr_nicm_advance(tx->nic, net->sim.now_ns, out, RTE_DIM(out));
		for (uint16_t i = 0; i < k; i++) {
			struct rte_mbuf *m = out[i].frame;

			if (tx->nic_wire != NULL && m == &tx->nic_wire->mb) {
				tx->nic_wire = NULL;
				continue;
			}
			nic_launch(net, node, port, m, out[i].end_ps);
		}
	} while (k == RTE_DIM(out));
	if (rtr_nicm_on_wire(tx->nic, &w) &&
			(tx->nic_wire == NULL || w.frame != &tx->nic_wire->mb)) {
		tx->nic_wire = sim_pkt_of(w.frame);
		/* As the former transmitter: the last bit's event, then the
		 * arrival. */
		arm_nic(net, node, port);
		nic_launch(net, node, port, w.frame, w.end_ps);
		return;
	}
	arm_nic(net, node, port);
}

/* The NIC's next event (a stale one, an earlier having been armed since,
 * does nothing): frames left, descriptors freed; the egress sends what
 * it holds into the room. */
static void
ev_nic(struct sim *s, void *arg, uint64_t u)
{
	struct sim_net *net = net_of(s);
	uint32_t node = (uint32_t)(u >> 16);
	uint16_t port = (uint16_t)(u & 0xffff);
	struct sim_tx *tx = &net->tx[node][port];
	struct rtr_egress *eg = net->topo->nodes[node].eg;

	(void)arg;
	if (tx->nic_at != s->now_ns)
		return;
	tx->nic_at = UINT64_MAX;
	nic_run(net, node, port);
	if (eg != NULL)
		rtr_egress_service_port(eg, port, s->now_ns);
}

/* ------------------------------------------------------------------ switches */

static void
sw_drop(struct sim_net *net, uint32_t node, struct sim_pkt *p, enum rtr_drop_reason why)
{
	net->st[node].drops[why]++;
	net->sw_dropped++;
	sim_pkt_free(net, p);
}

/*
 * One frame through switch node, arrived on in_port (RTR_PORT_NONE: the
 * switch built it), at the current time: the pipeline's ingress checks,
 * then its forwarding step (lib/fwd/rtr_fwd.h), and the egress.
 */
static void
switch_step(struct sim_net *net, uint32_t node, uint16_t in_port, struct sim_pkt *p)
{
	struct sim_node *n = &net->topo->nodes[node];
	struct rtr_lcore_stats *st = &net->st[node];
	const struct rtr_fwd *f = &n->fwd;
	struct rte_mbuf *m = &p->mb;
	struct rtr_meta *meta = rtr_meta(m);
	uint64_t now = net->sim.now_ns;
	enum rtr_drop_reason why;
	uint8_t *frame = sim_pkt_data(p);
	bool from_fabric = in_port < RTR_MAX_PORTS && (n->fabric_ports >> in_port & 1);
	struct rtr_fwd_dest d;

	why = rtr_parse(frame, m->pkt_len, n->cfg->sw.seed,
			from_fabric ? f->lb->fabric_parse_flags : 0, meta);
	if (why != RTR_DROP_NONE) {
		sw_drop(net, node, p, why);
		return;
	}
	if (meta->l3 != RTR_L3_IPV4 && meta->l3 != RTR_L3_IPV6) {
		/* The sim has no ARP: every next hop is known. */
		sw_drop(net, node, p, RTR_DROP_NOT_IP);
		return;
	}
	meta->in_port = (uint8_t)in_port;
	if (in_port < RTR_MAX_PORTS && !from_fabric) {
		bool b4;

		why = rtr_lb_host_ingress(frame, m->pkt_len, meta, &b4);
		if (why != RTR_DROP_NONE) {
			sw_drop(net, node, p, why);
			return;
		}
	}
	rtr_lb_prefetch(f->lb, f->lb_state, meta, 0);
	rtr_lb_prefetch(f->lb, f->lb_state, meta, 1);
	rtr_fwd_packet(f, m, meta, &d, now);
	switch (d.verdict) {
	case RTR_FWD_ENQUEUE:
		/* The egress counts what the NIC takes (forwarded,
		 * tx_packets) and drops through its io. */
		if (rtr_egress_enqueue(n->eg, d.out_port, m, rtr_egress_classify(n->eg, m), now) ==
				0)
			rtr_fwd_queued(f, m, meta, d.out_port);
		rtr_egress_service_port(n->eg, d.out_port, now);
		break;
	case RTR_FWD_DROP:
		sw_drop(net, node, p, (enum rtr_drop_reason)d.why);
		break;
	case RTR_FWD_PUNT:
		/* The sim has no control plane and sends nothing to a
		 * switch's own addresses. */
		sw_drop(net, node, p, RTR_DROP_LOCAL_UNSUPPORTED);
		break;
	case RTR_FWD_CONSUMED:
		st->consumed++;
		sim_pkt_free(net, p);
		break;
	default: /* RTR_FWD_TAKEN */
		break;
	}
}

static void arm_tick(struct sim_net *net, uint32_t node);
static void arm_eg_tick(struct sim_net *net, uint32_t node);

/* The step, then the mode's timers re-armed (the step may have set one). */
static void
switch_rx(struct sim_net *net, uint32_t node, uint16_t in_port, struct sim_pkt *p)
{
	switch_step(net, node, in_port, p);
	/* As the pipeline's loop: every port with work (a PFC frame the step
	 * queued toward the ingress port, too). */
	rtr_egress_service(net->topo->nodes[node].eg, net->sim.now_ns);
	arm_tick(net, node);
	arm_eg_tick(net, node);
}

/* ------------------------------------------------------- the egress's timers */

static void
ev_service(struct sim *s, void *arg, uint64_t u)
{
	struct sim_net *net = net_of(s);

	(void)arg;
	rtr_egress_service_port(net->topo->nodes[u >> 16].eg, (uint16_t)(u & 0xffff), s->now_ns);
}

/* rtr_egress_tick (XOFF refreshes) at the earliest refresh of an XOFF the
 * egress holds, as the LB modes' ticks: a stale event does nothing. */
static void
ev_eg_tick(struct sim *s, void *arg, uint64_t node)
{
	struct sim_net *net = net_of(s);
	struct rtr_egress *eg = net->topo->nodes[node].eg;

	(void)arg;
	if (net->eg_tick_at[node] != s->now_ns)
		return;
	net->eg_tick_at[node] = UINT64_MAX;
	rtr_egress_tick(eg, s->now_ns);
	rtr_egress_service(eg, s->now_ns);
	arm_eg_tick(net, (uint32_t)node);
}

static void
arm_eg_tick(struct sim_net *net, uint32_t node)
{
	struct rtr_egress *eg = net->topo->nodes[node].eg;
	uint64_t d = UINT64_MAX;
	uint32_t act;

	if (eg == NULL)
		return;
	for (act = eg->pfc_active; act != 0; act &= act - 1) {
		unsigned int in = (unsigned int)__builtin_ctz(act);

		if (eg->pfc_refresh_at[in] < d)
			d = eg->pfc_refresh_at[in];
	}
	if (d == UINT64_MAX)
		return;
	if (d <= net->sim.now_ns)
		d = net->sim.now_ns + 1;
	if (d >= net->eg_tick_at[node])
		return;
	net->eg_tick_at[node] = d;
	sim_at(&net->sim, d, ev_eg_tick, NULL, node);
}

/* ------------------------------------------------------- the LB modes' timers */

/* The pipeline calls ops->tick every loop once next_deadline() has passed;
 * here one event at that deadline does it. A mode without next_deadline is
 * ticked every SIM_TICK_NS. An event whose time is no longer the node's
 * tick_at (an earlier deadline was armed since) does nothing. */
#define SIM_TICK_NS 1000

static void
ev_tick(struct sim *s, void *arg, uint64_t node)
{
	struct sim_net *net = net_of(s);
	struct sim_node *n = &net->topo->nodes[node];

	(void)arg;
	if (n->tick_at != s->now_ns)
		return;
	n->tick_at = UINT64_MAX;
	net->lb_ticks++;
	/* The event is the deadline armed: tick. */
	rtr_lb_age(n->lb_ops, n->lb_state, s->now_ns, &net->st[node]);
	arm_tick(net, (uint32_t)node);
}

static void
arm_tick(struct sim_net *net, uint32_t node)
{
	struct sim_node *n = &net->topo->nodes[node];
	uint64_t d;

	if (n->lb_ops->tick == NULL || n->lb_state == NULL)
		return;
	d = n->lb_ops->next_deadline != NULL ? n->lb_ops->next_deadline(n->lb_state)
					     : net->sim.now_ns + SIM_TICK_NS;
	if (d == UINT64_MAX)
		return;
	if (d <= net->sim.now_ns)
		d = net->sim.now_ns + 1; /* passed: tick at the next ns, not in a loop now */
	if (d >= n->tick_at)
		return;
	n->tick_at = d;
	sim_at(&net->sim, d, ev_tick, NULL, node);
}

/* ------------------------------------------------------- the LB modes' io */

struct sim_lb_io {
	struct sim_net *net;
	uint32_t node;
};

static void
io_deliver(void *arg, struct rte_mbuf *m, uint16_t port, bool held)
{
	struct sim_lb_io *io = arg;

	struct rtr_egress *eg = io->net->topo->nodes[io->node].eg;
	uint64_t now = io->net->sim.now_ns;

	/* As the pipeline: a released packet was admitted once already. */
	if (held)
		rtr_egress_enqueue_held(eg, port, m, rtr_egress_classify(eg, m), now);
	else
		rtr_egress_enqueue(eg, port, m, rtr_egress_classify(eg, m), now);
	rtr_egress_service_port(eg, port, now);
}

/* As the pipeline: a packet held in a reorder queue counts in the shared
 * buffer while held (rtr_egress_hold). */
static void
io_hold(void *arg, struct rte_mbuf *m, uint16_t port)
{
	struct sim_lb_io *io = arg;
	struct rtr_egress *eg = io->net->topo->nodes[io->node].eg;

	(void)port;
	rtr_egress_hold(eg, m, rtr_egress_classify(eg, m), io->net->sim.now_ns);
}

static void
io_control(void *arg, struct rte_mbuf *m)
{
	struct sim_lb_io *io = arg;

	io->net->st[io->node].originated++;
	switch_rx(io->net, io->node, RTR_PORT_NONE, sim_pkt_of(m));
}

static struct rte_mbuf *
io_alloc(void *arg)
{
	struct sim_lb_io *io = arg;
	struct sim_pkt *p = sim_pkt_alloc(io->net);

	return p == NULL ? NULL : &p->mb;
}

/* ------------------------------------------------------- the egress's io */

/* The port's NIC: rtr_nicm_tx_burst, as many as it has free descriptors.
 * A busy NIC is advanced only at its own events (its descriptors are freed
 * there, and the egress serviced); an idle one is advanced now, before
 * (completions) and after (the first frame starts). */
static uint16_t
eg_tx(void *arg, uint16_t port, uint16_t hwq, struct rte_mbuf **pkts, uint16_t n)
{
	(void)hwq;
	struct sim_lb_io *io = arg;
	struct sim_net *net = io->net;
	struct sim_tx *tx = &net->tx[io->node][port];
	const struct rtr_nicm_qstats *qs = rtr_nicm_qstats(tx->nic, 0);
	bool idle = qs->frames_queued == 0;
	uint64_t waiting;
	uint16_t k;

	if (idle)
		nic_run(net, io->node, port);
	k = rtr_nicm_tx_burst(tx->nic, 0, (void **)pkts, n, net->sim.now_ns);
	if (k > 0 && idle)
		nic_run(net, io->node, port);
	if (qs->frames_queued > tx->nic_max_frames)
		tx->nic_max_frames = qs->frames_queued;
	if (qs->desc_in_use > tx->nic_max_desc)
		tx->nic_max_desc = qs->desc_in_use;
	/* Bytes waiting behind the frame on the wire. */
	waiting = qs->bytes_queued - (tx->nic_wire != NULL ? tx->nic_wire->mb.pkt_len : 0);
	if (waiting > tx->max_q_bytes)
		tx->max_q_bytes = waiting;
	return k;
}

static void
eg_drop(void *arg, struct rte_mbuf *m, enum rtr_drop_reason why)
{
	struct sim_lb_io *io = arg;

	io->net->st[io->node].drops[why]++;
	io->net->eg_dropped++;
	sim_pkt_free(io->net, sim_pkt_of(m));
}

static void
eg_depart(void *arg, struct rte_mbuf *m, uint64_t now_ns)
{
	struct sim_lb_io *io = arg;
	struct sim_node *n = &io->net->topo->nodes[io->node];

	rtr_lb_depart(n->lb_ops, n->lb_state, m, rtr_meta(m), now_ns, &io->net->st[io->node]);
}

/* lib/egress on switch node n, its io pointing at io. */
static int
egress_init(struct sim_net *net, struct sim_node *n, struct sim_lb_io *io)
{
	struct rtr_egress_io eio = {
			.tx = eg_tx,
			.drop = eg_drop,
			.alloc = io_alloc,
			.depart = eg_depart,
			.depart_flags = RTR_LB_DEPART_FLAGS,
			.trim_lb_hdr_len = RTR_LB_TRIM_HDR_LEN,
			.depart_ports = ~n->fabric_ports & (uint32_t)((1ull << n->n_ports) - 1),
			.arg = io,
	};

	(void)net;
	n->eg_shared = aligned_alloc(RTE_CACHE_LINE_SIZE,
			RTE_ALIGN_CEIL(sizeof(*n->eg_shared), RTE_CACHE_LINE_SIZE));
	if (n->eg_shared == NULL)
		return -1;
	memset(n->eg_shared, 0, sizeof(*n->eg_shared));
	if (rtr_egress_shared_init(n->eg_shared, n->cfg, NULL) != 0)
		return -1;
	/* --nic-ring-kb: the bounded NIC ring on every port, its clock at
	 * the link's exact rate (the NIC's rate_mbps, rounded so that the
	 * clock never runs ahead of the wire: a config's speed_gbps is a
	 * whole number, a slow link's need not be). */
	for (unsigned int i = 0; net->nic.ring_kb > 0 && i < n->cfg->n_ports; i++) {
		uint16_t p = n->cfg->ports[i].port;
		uint64_t mbps;

		if (p >= n->n_ports)
			continue;
		mbps = (uint64_t)llround(n->ports[p].gbps * 1000);
		n->eg_shared->port[p].link_ps_per_byte_q10 = (8192000000ull + mbps - 1) / mbps;
		rtr_egress_set_ring(n->eg_shared, p, net->nic.ring_kb * 1024u, 0);
	}
	/* max_pkts caps each class FIFO's slots; the queue_kb limits are
	 * what bound a queue. */
	n->eg = rtr_egress_create(
			n->eg_shared, 0, &eio, &net->st[n - net->topo->nodes], 1u << 16, -1);
	if (n->eg == NULL)
		return -1;
	/* Only what the NIC holds waits outside the class queues, where RED
	 * marks and PFC counts: not a 32-frame staged burst (34 KB at 1 KB)
	 * in front of a 2-frame ring. A paced port's bound is the link clock
	 * (each frame of a pass takes it before it is staged, RED counts the
	 * wire time ahead of it): this cap only makes passes smaller. */
	n->eg->wire_burst = net->nic.ring < RTR_BURST ? net->nic.ring : RTR_BURST;
	return 0;
}

/* Switch node n's ports' NICs. */
static int
nic_init(struct sim_net *net, uint32_t node)
{
	struct sim_node *n = &net->topo->nodes[node];

	for (uint16_t p = 0; p < n->n_ports; p++) {
		struct rtr_nicm_conf c = {
				.rate_mbps = (uint32_t)llround(n->ports[p].gbps * 1000),
				.n_queues = 1,
				.ring_size = net->nic.ring,
				.sched = RTR_NICM_RR,
				.comp_batch = net->nic.comp_batch,
				.comp_delay_ns = net->nic.comp_delay_ns,
				.mac_consumes_ctrl = true,
				.frame_len = nic_frame_len,
				.overhead_adj = (int16_t)((int)net->wire_overhead -
							  RTR_NICM_OVERHEAD),
				.no_pad = !net->nic.pad,
		};

		net->tx[node][p].nic_at = UINT64_MAX;
		net->tx[node][p].nic = rtr_nicm_create(&c);
		if (net->tx[node][p].nic == NULL)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------- set-up */

int
sim_net_init(struct sim_net *net, struct sim_topo *topo, uint32_t wire_overhead, char *err,
		size_t errlen)
{
	return sim_net_init_nic(net, topo, wire_overhead, NULL, err, errlen);
}

int
sim_net_init_nic(struct sim_net *net, struct sim_topo *topo, uint32_t wire_overhead,
		const struct sim_nic_conf *nic, char *err, size_t errlen)
{
	uint32_t i;

	memset(net, 0, sizeof(*net));
	if (nic != NULL)
		net->nic = *nic;
	if (net->nic.ring == 0)
		net->nic.ring = SIM_NIC_FRAMES;
	if (net->nic.comp_batch == 0)
		net->nic.comp_batch = 1;
	if (net->nic.ring % net->nic.comp_batch != 0) {
		snprintf(err, errlen, "the NIC's completion batch %u does not divide its ring %u",
				net->nic.comp_batch, net->nic.ring);
		return -1;
	}
	if (wire_overhead > 64) {
		snprintf(err, errlen, "wire overhead %u above 64", wire_overhead);
		return -1;
	}
	/* The egress's clock counts RTR_EG_FRAME_OVERHEAD per frame: with
	 * more on the wire the clock would run ahead of the wire, the ring
	 * past its bound. */
	if (net->nic.ring_kb > 0 && wire_overhead > RTR_EG_FRAME_OVERHEAD) {
		snprintf(err, errlen,
				"a paced NIC ring needs a wire overhead of at most %u, not %u",
				RTR_EG_FRAME_OVERHEAD, wire_overhead);
		return -1;
	}
	/* The switch's metadata lives in the mbuf (rtr_mbuf.h); the sim's
	 * buffers are not from a pool with a registered field. */
	if (rtr_meta_offset < 0)
		rtr_meta_offset = (int)offsetof(struct rte_mbuf, dynfield1);
	if (sim_init(&net->sim, 1024) != 0)
		goto nomem;
	net->topo = topo;
	net->wire_overhead = wire_overhead;
	net->tx = calloc(topo->n_nodes, sizeof(*net->tx));
	net->st = aligned_alloc(RTE_CACHE_LINE_SIZE, sizeof(*net->st) * topo->n_nodes);
	net->eg_tick_at = malloc(sizeof(*net->eg_tick_at) * topo->n_nodes);
	if (net->tx == NULL || net->st == NULL || net->eg_tick_at == NULL)
		goto nomem;
	for (i = 0; i < topo->n_nodes; i++)
		net->eg_tick_at[i] = UINT64_MAX;
	memset(net->st, 0, sizeof(*net->st) * topo->n_nodes);
	for (i = 0; i < topo->n_nodes; i++) {
		struct sim_node *n = &topo->nodes[i];

		net->tx[i] = calloc(n->n_ports, sizeof(**net->tx));
		if (net->tx[i] == NULL)
			goto nomem;
		if (n->kind == SIM_HOST)
			continue;
		struct sim_lb_io *io = calloc(1, sizeof(*io));
		struct rtr_lb_init in = {
				.cfg = n->cfg,
				.worker = 0,
				.n_workers = 1,
				.socket = SOCKET_ID_ANY,
				.n_groups = n->route->n_groups,
				.host_port_mask = ~n->fabric_ports &
						  (uint32_t)((1ull << n->n_ports) - 1),
				.hash_seed = n->cfg->sw.seed,
				.use_rte_malloc = false,
				.io = {.deliver = io_deliver,
						.hold = io_hold,
						.control = io_control,
						.alloc = io_alloc},
		};

		if (io == NULL)
			goto nomem;
		io->net = net;
		io->node = i;
		n->lb_io = io;
		n->tick_at = UINT64_MAX;
		if (nic_init(net, i) != 0) {
			snprintf(err, errlen, "%s: the NICs did not start", n->name);
			return -1;
		}
		if (egress_init(net, n, io) != 0) {
			snprintf(err, errlen, "%s: the egress did not start", n->name);
			return -1;
		}
		/* The egress exists now: DRILL reads its queues. */
		in.queue_bytes = rtr_egress_queue_bytes;
		in.queue_arg = n->eg;
		n->fwd.lb = n->lb_ops;
		n->fwd.st = &net->st[i];
		if (n->lb_ops->init == NULL)
			continue;
		in.io.arg = io;
		if (n->lb_ops->shared_create != NULL)
			in.shared = n->lb_ops->shared_create(
					n->cfg, n->route->n_groups, false, SOCKET_ID_ANY);
		n->lb_state = n->lb_ops->init(&in);
		n->fwd.lb_state = n->lb_state;
		if (n->lb_state == NULL) {
			if (in.shared != NULL && n->lb_ops->shared_free != NULL)
				n->lb_ops->shared_free(in.shared);
			snprintf(err, errlen, "%s: the LB mode %s did not start", n->name,
					n->lb_ops->name);
			return -1;
		}
		n->lb_shared = in.shared;
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}

void
sim_net_fini(struct sim_net *net)
{
	struct sim_event ev;
	uint32_t i;

	if (net->topo == NULL)
		return;
	/* What the LB modes hold (reorder rings) goes to the egress, what
	 * the egress holds to the NICs' FIFOs (or is dropped as shutdown),
	 * and everything is then freed here: no mode or egress ever frees
	 * one of the simulator's buffers as a mempool mbuf. */
	for (i = 0; i < net->topo->n_nodes; i++) {
		struct sim_node *n = &net->topo->nodes[i];

		if (n->lb_state != NULL)
			rtr_lb_flush_final(n->lb_ops, n->lb_state, net->sim.now_ns, &net->st[i]);
	}
	for (i = 0; i < net->topo->n_nodes; i++)
		if (net->topo->nodes[i].eg != NULL)
			rtr_egress_flush_all(net->topo->nodes[i].eg, 0);
	/* Packets still in flight: their arrival events hold them. */
	while (sim_pop(&net->sim, &ev))
		if (ev.fn == ev_arrive)
			sim_pkt_free(net, ev.arg);
	/* And those the NICs' rings hold (the one on a wire went with its
	 * arrival). */
	for (i = 0; i < net->topo->n_nodes; i++) {
		for (uint16_t k = 0; net->tx != NULL && net->tx[i] != NULL &&
				     k < net->topo->nodes[i].n_ports;
				k++) {
			struct sim_tx *tx = &net->tx[i][k];
			struct rtr_nicm_sent out[16];
			uint16_t got;

			if (tx->nic == NULL)
				continue;
			do {
				got = rtr_nicm_advance(
						tx->nic, UINT64_MAX / 2000, out, RTE_DIM(out));
				for (uint16_t j = 0; j < got; j++)
					if (tx->nic_wire == NULL ||
							out[j].frame != &tx->nic_wire->mb)
						sim_pkt_free(net, sim_pkt_of(out[j].frame));
			} while (got == RTE_DIM(out));
			rtr_nicm_free(tx->nic);
			tx->nic = NULL;
			tx->nic_wire = NULL;
		}
	}
	for (i = 0; i < net->topo->n_nodes; i++) {
		struct sim_node *n = &net->topo->nodes[i];

		if (net->tx != NULL && net->tx[i] != NULL) {
			for (uint16_t k = 0; k < n->n_ports; k++) {
				struct sim_pkt *p = net->tx[i][k].head, *nx;

				for (; p != NULL; p = nx) {
					nx = p->next;
					sim_pkt_free(net, p);
				}
			}
			free(net->tx[i]);
		}
		rtr_egress_free(n->eg);
		free(n->eg_shared);
		n->eg = NULL;
		n->eg_shared = NULL;
		if (n->lb_state != NULL && n->lb_ops->fini != NULL)
			n->lb_ops->fini(n->lb_state);
		if (n->lb_shared != NULL && n->lb_ops->shared_free != NULL)
			n->lb_ops->shared_free(n->lb_shared);
		free(n->lb_io);
		n->lb_state = n->lb_shared = n->lb_io = NULL;
	}
	while (net->free_list != NULL) {
		struct sim_pkt *p = net->free_list;

		net->free_list = p->next;
		free(p);
	}
	free(net->tx);
	free(net->st);
	free(net->eg_tick_at);
	sim_fini(&net->sim);
	net->topo = NULL;
}

uint64_t
sim_net_drops(const struct sim_net *net, int r)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < net->topo->n_nodes; i++)
		for (int k = 1; k < RTR_DROP_MAX; k++)
			if (r < 0 || r == k)
				sum += net->st[i].drops[k];
	return sum;
}

/* ------------------------------------------------------------ frames */

uint32_t
sim_roce_build(struct sim_pkt *p, const struct sim_roce *r)
{
	static const uint8_t mac_dst[6] = {2, 0, 0, 0, 0, 1}, mac_src[6] = {2, 0, 0, 0, 0, 2};
	uint8_t *f = sim_pkt_data(p);
	uint32_t udp_len = 8 + RTR_BTH_LEN + r->payload + RTR_ICRC_LEN;
	uint32_t len = 14 + 20 + udp_len;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
	uint8_t *udp = f + 34, *bth = f + 42;

	memcpy(f, mac_dst, 6);
	memcpy(f + 6, mac_src, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->type_of_service = (uint8_t)(r->dscp << 2 | (r->ecn & 3));
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + udp_len));
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(r->src_ip);
	ip->dst_addr = rte_cpu_to_be_32(r->dst_ip);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp[0] = (uint8_t)(r->sport >> 8);
	udp[1] = (uint8_t)r->sport;
	udp[2] = 4791 >> 8;
	udp[3] = 4791 & 0xff;
	udp[4] = (uint8_t)(udp_len >> 8);
	udp[5] = (uint8_t)udp_len;
	udp[6] = udp[7] = 0;
	memset(bth, 0, RTR_BTH_LEN);
	bth[0] = r->opcode;
	bth[4] = r->b4;
	bth[8] = r->ack_req ? RTR_BTH_ACKREQ : 0;
	bth[2] = bth[3] = 0xff; /* P_Key */
	bth[5] = (uint8_t)(r->dqp >> 16);
	bth[6] = (uint8_t)(r->dqp >> 8);
	bth[7] = (uint8_t)r->dqp;
	bth[9] = (uint8_t)(r->psn >> 16);
	bth[10] = (uint8_t)(r->psn >> 8);
	bth[11] = (uint8_t)r->psn;
	if (r->keep_payload)
		memset(bth + RTR_BTH_LEN + r->payload, 0, RTR_ICRC_LEN);
	else
		memset(bth + RTR_BTH_LEN, 0, r->payload + RTR_ICRC_LEN);
	p->mb.data_len = (uint16_t)len;
	p->mb.pkt_len = len;
	return len;
}
