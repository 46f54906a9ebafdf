/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Packets on the simulated fabric (doc/simulator.md).
 *
 * A packet is a real frame in an mbuf-like buffer (the layout of
 * lib/common/rtr_test_mbuf.h: a struct rte_mbuf with its data right
 * behind it, no EAL mempool), with the simulator's own fields beside it.
 * Its struct rtr_meta is where the switch keeps it, in the mbuf
 * (rtr_meta(m): the LB modes and the egress read it there); sim_net_init
 * places it in dynfield1 as the unit tests do, unless the process already
 * registered it.
 *
 * Links: each port has a transmitter with a FIFO. A frame takes
 * (pkt_len + wire_overhead) x 8 / gbps to serialize, wire_overhead being
 * the bytes the wire carries beyond the mbuf's frame (24, lib/egress's
 * RTR_EG_FRAME_OVERHEAD: FCS 4, preamble and SFD 8, inter-frame gap 12; 0
 * counts the frame alone), and arrives at the peer the link's delay after
 * its last bit left. Times of
 * a transmitter are kept in picoseconds and a frame starts when it joined
 * the FIFO, when the frame before it ended or when a pause ended,
 * whichever is latest, not at
 * the event that noticed it: serialization does not round per packet
 * (back-to-back frames would otherwise lose up to 1 ns each); events are
 * at whole nanoseconds (rounded up).
 *
 * A switch's step, at the instant a frame arrives (no processing time):
 * rtr_parse (the mode's fabric_parse_flags on fabric ports) -> the host
 * port rule (rtr_lb_host_ingress) -> LPM (lib/route) -> rtr_lb_pick on an
 * uplink group (rtr_lb_worker.h: the mode's pick, or ECMP's hash) ->
 * rtr_lb_ctrl_rx -> TTL -> rtr_lb_out -> lib/egress (rtr_egress_enqueue: classes, tail drop or trimming, RED/ECN
 * at dequeue, the depart hook) -> rtr_lb_queued when admitted. The egress's
 * io.tx is the port's NIC, lib/nicmodel's model (rtr_nicmodel.h): one TX
 * queue, a ring of nic.ring descriptors (SIM_NIC_FRAMES by default), a
 * completion batch and delay; it takes frames while it has free
 * descriptors, so the rest of the backlog stays in the egress's queues.
 * The model decides when each frame starts and when its last bit leaves:
 * when a frame starts the simulator schedules its arrival at the peer
 * (the link's delay after its last bit, at the whole ns) and an event at
 * rtr_nicm_next_event_ns(), which runs rtr_nicm_advance() (the frame
 * left, its descriptor is freed, the next frame starts) and services the
 * egress (room in the ring); after each step every port with work is
 * serviced too (as the pipeline's loop does). Two descriptors, not one:
 * the next frame is then already waiting when the link frees and starts
 * at the exact picosecond. The egress's wire_burst is min(ring,
 * RTR_BURST), so with the default ring only those and as many more in its
 * wire FIFO wait outside the class queues RED and PFC see; a real NIC's
 * ring (1024) is a hidden queue in front of the link that they do not see
 * (doc/simulator.md "The switch ports' NIC").
 *
 * PFC: the frames the egress builds cross the link like any frame; a switch
 * gives a received one to rtr_egress_mac_control_rx (its egress then holds
 * the paused classes of that port, serviced again when the pause ends), a
 * host pauses each class named for its quanta (XON: resumes it). While
 * an egress holds XOFF toward a port, rtr_egress_tick runs at the
 * refresh time the egress keeps (pfc_refresh_at).
 *
 * Hosts: a frame queued with sim_net_send goes through a plain FIFO that
 * any pause holds; a host with net->host_tx is pulled instead, the moment
 * its transmitter is free (a NIC's scheduler: control first, then its QPs
 * as their pacing allows, skipping the classes PFC paused).
 */
#ifndef SIM_NET_H
#define SIM_NET_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "rtr_mbuf.h"
#include "rtr_nicmodel.h"
#include "rtr_meta.h"
#include "rtr_stats.h"
#include "sim_core.h"
#include "sim_topo.h"

#define SIM_PKT_BUFSZ (9216 + 256)
#define SIM_NIC_FRAMES \
	2 /* default ring of a switch port's NIC: frames it holds, the one on the wire included */
#define SIM_PKT_HEADROOM 128

struct sim_pkt {
	struct sim_pkt *next; /* FIFO and free list */
	uint64_t flow;        /* the sender's flow id */
	uint64_t sent_ns;     /* when the host queued it */
	uint64_t q_ps;        /* when it joined its transmitter's FIFO (a host's
				 * pulled frame: when it was ready to go) */
	uint8_t cls;          /* a host's frame: the egress class PFC names it by */
	struct rte_mbuf mb;   /* the frame follows (SIM_PKT_BUFSZ bytes) */
};

static inline struct sim_pkt *
sim_pkt_of(struct rte_mbuf *m)
{
	return (struct sim_pkt *)(void *)((uint8_t *)m - offsetof(struct sim_pkt, mb));
}

static inline uint8_t *
sim_pkt_data(struct sim_pkt *p)
{
	return rte_pktmbuf_mtod(&p->mb, uint8_t *);
}

/* A port's transmitter. */
struct sim_tx {
	struct sim_pkt *head, *tail;
	uint32_t q_pkts;
	uint64_t q_bytes;
	bool busy;
	uint64_t free_ps; /* when the last frame's last bit leaves */
	uint64_t tx_pkts, tx_bytes, tx_wire_bytes;
	uint64_t max_q_bytes;
	/* Hosts: received PFC paused class c until cls_paused_until_ns[c];
	 * paused_until_ns is the latest of them, which holds the plain FIFO
	 * (frames queued with sim_net_send: every class waits). Frames a host
	 * gives through net->host_tx wait only if their own class is paused
	 * (the host looks, sim_net_host_paused). */
	uint64_t paused_until_ns;
	uint64_t cls_paused_until_ns[8];
	uint64_t resume_ps; /* when the last pause ended: no frame starts before */
	bool resume_armed;
	uint64_t rx_pfc; /* PFC frames received on this port */
	/* Switches: the port's NIC (sim_net_init), the frame on its wire
	 * whose arrival is scheduled, the time of its pending event
	 * (UINT64_MAX: none), and the most frames and descriptors its ring
	 * held after a burst was given. */
	struct rtr_nicm *nic;
	struct sim_pkt *nic_wire;
	uint64_t nic_at;
	uint32_t nic_max_frames, nic_max_desc;
};

/* A switch port's NIC (rtr_nicmodel.h): one TX queue. */
struct sim_nic_conf {
	uint16_t ring;          /* descriptors; 0: SIM_NIC_FRAMES */
	uint16_t comp_batch;    /* completion batch, divides ring; 0: 1 */
	uint64_t comp_delay_ns; /* last bit of a batch to its descriptors' free */
	bool pad;               /* frames under 60 B cost 60 (a real MAC); false: their length */
	/* The egress's bounded NIC ring (rtr_egress_set_ring): every switch
	 * port paced at its link's rate, ring_kb KB of wire time ahead of
	 * now at most; 0: off (frames go while the NIC takes them). */
	uint32_t ring_kb;
};

struct sim_net;

/* A frame arrived at a host (node index): the callee owns p (sim_pkt_free). */
typedef void (*sim_host_rx_fn)(struct sim_net *net, uint32_t host, struct sim_pkt *p);

/* A host's transmitter is free and its FIFO empty: the next frame to send,
 * or NULL (then the host calls sim_net_host_kick when it has one). avail_ps
 * is when the transmitter could start (the last frame's end, or a pause's);
 * the frame starts at max(p->q_ps, avail_ps): p->q_ps is when the frame was
 * ready to go (<= now), so a frame ready before the event that pulled it
 * starts at the exact picosecond. */
typedef struct sim_pkt *(*sim_host_tx_fn)(struct sim_net *net, uint32_t host, uint64_t avail_ps);

struct sim_net {
	struct sim sim; /* first: events get the net from it */
	struct sim_topo *topo;
	uint32_t wire_overhead;
	struct sim_tx **tx;         /* tx[node][port] */
	struct rtr_lcore_stats *st; /* one per node (switches'), cache aligned */
	sim_host_rx_fn host_rx;
	sim_host_tx_fn host_tx; /* NULL: hosts send only what sim_net_send queued */
	void *host_arg;
	struct sim_pkt *free_list;
	uint64_t pkts_live, pkts_alloc;
	uint64_t sw_dropped;  /* dropped by a switch (named in st->drops) */
	uint64_t delivered;   /* handed to a host */
	uint64_t lb_ticks;    /* LB mode tick calls */
	uint64_t eg_dropped;  /* dropped by a switch's egress (named in st->drops) */
	uint64_t tx_late;     /* frames that would have ended before they were sent: must stay 0 */
	uint64_t pfc_frames;  /* PFC frames received, by switches and hosts */
	uint64_t *eg_tick_at; /* per node: the egress's next tick event (UINT64_MAX: none) */
	struct sim_nic_conf nic; /* the switch ports' NICs */
};

/* Set up transmitters and each switch's LB state (its mode's init, with the
 * io struct pointing here). 0 or -1 with a line in err. */
int sim_net_init(struct sim_net *net, struct sim_topo *topo, uint32_t wire_overhead, char *err,
		size_t errlen);
/* The same, the switch ports' NICs as nic says (NULL: the defaults). */
int sim_net_init_nic(struct sim_net *net, struct sim_topo *topo, uint32_t wire_overhead,
		const struct sim_nic_conf *nic, char *err, size_t errlen);
void sim_net_fini(struct sim_net *net);

struct sim_pkt *sim_pkt_alloc(struct sim_net *net);
void sim_pkt_free(struct sim_net *net, struct sim_pkt *p);

/* Queue p on (node, port)'s transmitter now. */
void sim_net_send(struct sim_net *net, uint32_t node, uint16_t port, struct sim_pkt *p);

/* A host has a frame to send (through host_tx): if its transmitter is
 * idle, it pulls now. */
void sim_net_host_kick(struct sim_net *net, uint32_t node);

/* Is class cls of host node's transmitter paused by PFC now? */
static inline bool
sim_net_host_paused(const struct sim_net *net, uint32_t node, uint8_t cls)
{
	return net->tx[node][0].cls_paused_until_ns[cls & 7] > net->sim.now_ns;
}

/* Serialization time of a frame of len bytes at gbps, in picoseconds. */
static inline uint64_t
sim_ser_ps(uint32_t len, uint32_t wire_overhead, double gbps)
{
	return (uint64_t)((double)(len + wire_overhead) * 8000.0 / gbps + 0.5);
}

/* Sum of every switch's counters of drop reason r (RTR_DROP_*), or of all. */
uint64_t sim_net_drops(const struct sim_net *net, int r);

/* ---------------------------------------------------------- RoCEv2 frames */

struct sim_roce {
	uint32_t src_ip, dst_ip; /* host byte order */
	uint16_t sport;
	uint32_t dqp;
	uint32_t psn;
	uint8_t opcode; /* RTR_BTH / IB opcode: 0 SEND_FIRST, 1 MIDDLE, 2 LAST, 4 ONLY,
				    * 0x11 ACKNOWLEDGE, 0x81 CNP */
	uint8_t dscp;
	uint8_t ecn;
	uint8_t b4;        /* BTH byte 4 (a CNP's BECN, 0x40) */
	bool ack_req;      /* BTH AckReq */
	bool keep_payload; /* leave the payload bytes as the buffer has them */
	uint32_t payload;  /* bytes after the BTH (and before the ICRC) */
};

/* Write a RoCEv2 frame (Ethernet, IPv4 with its checksum, UDP 4791, BTH,
 * payload of zeros unless keep_payload: a recycled buffer's old bytes, as
 * nothing reads a data payload and zeroing 1 KB per packet costs; ICRC
 * left zero) into p. Returns the frame length. */
uint32_t sim_roce_build(struct sim_pkt *p, const struct sim_roce *r);

#endif /* SIM_NET_H */
