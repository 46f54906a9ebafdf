/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The forwarding step: what happens to one parsed packet between its
 * ingress checks and its egress queue, written once for the switch
 * (pipelines/rtr_pipeline.c), the simulator (tools/sim/sim_net.c) and the
 * LB fuzzer (fuzz/fuzz_lb.c). Inline and EAL-free: it reads the route
 * table, the next hops and the ports, runs the LB hooks (rtr_lb_worker.h)
 * and rewrites the frame; the caller owns every queue and every counter of
 * the verdict (doc/architecture.md "The packet's walk").
 *
 *   rtr_fwd_lookup  route lookup (IPv4 / IPv6); ND is punted before it
 *   rtr_fwd_pick    a group route: the LB pick of a path (its next hop)
 *   rtr_fwd_finish  the switch's own addresses, an LB control packet for a
 *                   host, link, neighbour, TTL, MACs, the LB stage's
 *                   out hook (DstToR delivery, post_route, host strip)
 *   rtr_fwd_packet  the three in a row (one packet)
 *
 * The pipeline runs the three steps a burst at a time, step by step, so
 * that each step's code and tables stay hot and the LB stage's prefetch
 * of the whole burst lands before the picks. A step that ends the packet
 * sets d->verdict; the next step is called only while it is
 * RTR_FWD_CONTINUE.
 */
#ifndef RTR_FWD_H
#define RTR_FWD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "rtr_cksum.h"
#include "rtr_lb_worker.h"
#include "rtr_meta.h"
#include "rtr_neigh.h"
#include "rtr_route.h"
#include "rtr_stats.h"

/* A port as the data path sees it (the switch's ports[], the simulator's
 * nodes' ports). */
struct rtr_fwd_port {
	uint16_t port_id;
	uint8_t configured;
	uint8_t role; /* enum rtr_port_role */
	uint8_t l2_filter;
	uint8_t mac[6];
	_Atomic uint8_t link_up;    /* written by the control plane */
	_Atomic uint8_t admin_down; /* config, or telemetry /rocetor/port/admin (rw) */
	_Atomic uint8_t lsc_event;  /* set by the LSC interrupt callback */
	uint8_t link_known;         /* control plane: link_up has been set once */
	uint8_t source_check;       /* host port: sources must route back here */
};

/* What the step reads and whom it counts for: one per worker (per
 * simulated switch, per fuzzed ToR). lb and lb_state change only in the
 * worker's own thread (a runtime LB switch). */
struct rtr_fwd {
	const struct rtr_route *route;
	const struct rtr_nh *nh;          /* next hops by index (rtr_neigh_nh_table) */
	const struct rtr_fwd_port *ports; /* by port id, RTR_MAX_PORTS */
	uint32_t fabric_ports;            /* bit p: port p is a fabric port */
	uint8_t local_punt; /* all that is for the switch: punted (a kernel takes it) */
	const struct rtr_lb_ops *lb;
	void *lb_state;
	struct rtr_lcore_stats *st;
};

/* How the step ended for a packet. */
enum rtr_fwd_verdict {
	RTR_FWD_CONTINUE = 0, /* not yet: call the next step */
	RTR_FWD_ENQUEUE,      /* queue m on d->out_port, then rtr_fwd_queued() if taken */
	RTR_FWD_DROP,         /* free m and count it under d->why */
	RTR_FWD_PUNT,         /* to the control plane (ND, ICMP echo to the switch) */
	RTR_FWD_CONSUMED,     /* an LB control packet the LB stage read: free m, count consumed */
	RTR_FWD_TAKEN,        /* the LB stage took m (held, or sent through its io) */
};

/* One packet's destination as the steps learn it. */
struct rtr_fwd_dest {
	uint32_t route; /* the route's result: RTR_RT_* kind | its index */
	uint32_t nh;    /* the next hop (the route's own, or the picked path's) */
	uint16_t out_port;
	uint8_t verdict; /* enum rtr_fwd_verdict */
	uint8_t why;     /* enum rtr_drop_reason, with RTR_FWD_DROP */
};

static __rte_always_inline void
rtr_fwd_end(struct rtr_fwd_dest *d, enum rtr_fwd_verdict v, enum rtr_drop_reason why)
{
	d->verdict = (uint8_t)v;
	d->why = (uint8_t)why;
}

static __rte_always_inline unsigned int
rtr_fwd_kind(const struct rtr_fwd_dest *d)
{
	return d->route & RTR_RT_KIND_MASK;
}

/* ICMPv6 neighbour discovery (types 133..137): never routed, the control
 * plane answers it. */
static __rte_always_inline bool
rtr_fwd_is_nd(const struct rte_mbuf *m, const uint8_t *frame, const struct rtr_meta *meta)
{
	if (meta->l4_proto != IPPROTO_ICMPV6 || meta->l4_off + 1u > m->data_len)
		return false;
	return frame[meta->l4_off] >= 133 && frame[meta->l4_off] <= 137;
}

/* Step 1: the route of the destination address. */
static __rte_always_inline void
rtr_fwd_lookup(const struct rtr_fwd *f, struct rte_mbuf *m, const struct rtr_meta *meta,
		struct rtr_fwd_dest *d)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	int64_t res;

	d->verdict = RTR_FWD_CONTINUE;
	if (meta->l3 == RTR_L3_IPV4) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(frame + meta->l3_off);

		res = rtr_route_lookup4(f->route, ip->dst_addr);
	} else {
		const struct rte_ipv6_hdr *ip6 =
				(const struct rte_ipv6_hdr *)(frame + meta->l3_off);

		if (rtr_fwd_is_nd(m, frame, meta)) {
			rtr_fwd_end(d, RTR_FWD_PUNT, RTR_DROP_NONE);
			return;
		}
		res = rtr_route_lookup6(f->route, ip6->dst_addr);
	}
	if (unlikely(res < 0)) {
		rtr_fwd_end(d, RTR_FWD_DROP, RTR_DROP_NO_ROUTE);
		return;
	}
	d->route = (uint32_t)res;
	d->nh = (uint32_t)res & RTR_RT_INDEX_MASK;
}

/* Step 2: for a group route, the LB stage's path (its next hop); counted in
 * path_tx. Other routes pass unchanged. */
static __rte_always_inline void
rtr_fwd_pick(const struct rtr_fwd *f, struct rte_mbuf *m, struct rtr_meta *meta,
		struct rtr_fwd_dest *d, uint64_t now_ns)
{
	const unsigned int g_idx = d->route & RTR_RT_INDEX_MASK;
	const struct rtr_group *g;
	int path;

	if (rtr_fwd_kind(d) != RTR_RT_GROUP)
		return;
	g = &f->route->groups[g_idx];
	path = rtr_lb_pick(f->lb, f->lb_state, g, g_idx, m, meta, now_ns, f->st);
	if (unlikely(path < 0)) {
		rtr_fwd_end(d, RTR_FWD_DROP, RTR_DROP_PORT_DOWN);
		return;
	}
	if (likely(g_idx < RTR_STATS_GROUPS))
		f->st->path_tx[g_idx][path]++;
	d->nh = g->nh[path];
}

/* Of what is addressed to the switch, only echo requests are answered (ARP
 * and ND were punted before routing); with a kernel behind the ports (the
 * exception path), everything is punted: the control plane answers echo
 * requests and gives the kernel the rest. */
static __rte_always_inline void
rtr_fwd_local(const struct rtr_fwd *f, const struct rte_mbuf *m, const struct rtr_meta *meta,
		struct rtr_fwd_dest *d)
{
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	uint8_t type = meta->l4_off < m->data_len ? frame[meta->l4_off] : 0;

	if (f->local_punt || (meta->l4_proto == IPPROTO_ICMP && type == 8) ||
			(meta->l4_proto == IPPROTO_ICMPV6 && type == 128))
		rtr_fwd_end(d, RTR_FWD_PUNT, RTR_DROP_NONE);
	else
		rtr_fwd_end(d, RTR_FWD_DROP, RTR_DROP_LOCAL_UNSUPPORTED);
}

/* TTL or hop limit checked, then decremented (IPv4: checksum updated),
 * then the MACs: next hop's as destination, out port's as source. A frame
 * that fails the check is not written: RTR_DROP_TTL, else RTR_DROP_NONE. */
static __rte_always_inline enum rtr_drop_reason
rtr_fwd_rewrite(uint8_t *frame, const struct rtr_meta *meta, uint64_t mac_w,
		const struct rtr_fwd_port *op)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)frame;

	if (meta->l3 == RTR_L3_IPV4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(frame + meta->l3_off);

		if (unlikely(ip->time_to_live <= 1))
			return RTR_DROP_TTL;
		rtr_ipv4_dec_ttl(ip);
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(frame + meta->l3_off);

		if (unlikely(ip6->hop_limits <= 1))
			return RTR_DROP_TTL;
		ip6->hop_limits--;
	}
	/* One 8-byte store; the source MAC overwrites its last two bytes. */
	rtr_nh_mac_store8(eth->dst_addr.addr_bytes, mac_w);
	memcpy(eth->src_addr.addr_bytes, op->mac, RTE_ETHER_ADDR_LEN);
	return RTR_DROP_NONE;
}

/*
 * Step 3, from the next hop to the egress queue, in this order (a dropped
 * packet is not written):
 *   the switch's own address (rtr_fwd_local)
 *   an LB control packet for a host: consumed, whatever its link does
 *   the out port's link, the next hop's MAC
 *   TTL and MACs (rtr_fwd_rewrite)
 *   the LB stage's out hook (rtr_lb_out: DstToR delivery, post_route,
 *   LB fields removed toward a host)
 */
static __rte_always_inline void
rtr_fwd_finish(const struct rtr_fwd *f, struct rte_mbuf *m, struct rtr_meta *meta,
		struct rtr_fwd_dest *d, uint64_t now_ns)
{
	const struct rtr_fwd_port *op;
	const struct rtr_nh *nh;
	struct rtr_lb_hop hop;
	enum rtr_drop_reason why;
	uint64_t mac_w;

	if (unlikely(rtr_fwd_kind(d) >= RTR_RT_LOCAL)) {
		if (rtr_fwd_kind(d) == RTR_RT_LOCAL)
			rtr_fwd_local(f, m, meta, d);
		else /* a blackhole route */
			rtr_fwd_end(d, RTR_FWD_DROP, RTR_DROP_NO_ROUTE);
		return;
	}
	nh = &f->nh[d->nh];
	d->out_port = nh->port;
	op = &f->ports[d->out_port];
	hop = (struct rtr_lb_hop){
			.fabric_ports = f->fabric_ports,
			.in_port = meta->in_port,
			.out_port = d->out_port,
			.group = rtr_fwd_kind(d) == RTR_RT_GROUP,
			.out_host = op->role == RTR_PORT_HOST,
	};
	if (unlikely(rtr_lb_ctrl_rx(f->lb, f->lb_state, m, meta, &hop, now_ns, f->st))) {
		rtr_fwd_end(d, RTR_FWD_CONSUMED, RTR_DROP_NONE);
		return;
	}
	if (unlikely(!atomic_load_explicit(&op->link_up, memory_order_relaxed))) {
		rtr_fwd_end(d, RTR_FWD_DROP, RTR_DROP_PORT_DOWN);
		return;
	}
	mac_w = rtr_nh_mac_load(nh);
	if (unlikely(!(mac_w & RTR_NH_VALID))) {
		rtr_fwd_end(d, RTR_FWD_DROP, RTR_DROP_NEIGH_UNRESOLVED);
		return;
	}
	/* The LB pick may have grown the frame at its head: read it now. */
	why = rtr_fwd_rewrite(rte_pktmbuf_mtod(m, uint8_t *), meta, mac_w, op);
	if (unlikely(why != RTR_DROP_NONE)) {
		rtr_fwd_end(d, RTR_FWD_DROP, why);
		return;
	}
	meta->out_port = (uint8_t)d->out_port;
	if (rtr_lb_out(f->lb, f->lb_state, m, meta, &hop, now_ns, f->st) == RTR_LB_TAKEN) {
		rtr_fwd_end(d, RTR_FWD_TAKEN, RTR_DROP_NONE);
		return;
	}
	rtr_fwd_end(d, RTR_FWD_ENQUEUE, RTR_DROP_NONE);
}

/* The three steps for one packet; d->verdict says how it ended. */
static __rte_always_inline void
rtr_fwd_packet(const struct rtr_fwd *f, struct rte_mbuf *m, struct rtr_meta *meta,
		struct rtr_fwd_dest *d, uint64_t now_ns)
{
	rtr_fwd_lookup(f, m, meta, d);
	if (d->verdict != RTR_FWD_CONTINUE)
		return;
	rtr_fwd_pick(f, m, meta, d, now_ns);
	if (d->verdict != RTR_FWD_CONTINUE)
		return;
	rtr_fwd_finish(f, m, meta, d, now_ns);
}

/* After RTR_FWD_ENQUEUE: the egress queue of d->out_port took m (not
 * tail-dropped); only that counts as load (CAVER's DRE). */
static __rte_always_inline void
rtr_fwd_queued(const struct rtr_fwd *f, const struct rte_mbuf *m, const struct rtr_meta *meta,
		uint16_t out_port)
{
	rtr_lb_queued(f->lb, f->lb_state, m, meta, out_port);
}

#endif /* RTR_FWD_H */
