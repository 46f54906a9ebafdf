/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The control plane runs on the main lcore (or inside the only worker in
 * single-lcore mode). It answers what workers punt (ARP, ND, echo), runs
 * the neighbour timers and follows link state. Its frames reach the wire
 * through worker 0's inject ring, so TX queues keep one writer each.
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rtr_control.h"
#include "rtr_mbuf.h"
#include "rtr_switch.h"

#define CTRL_NEIGH_TICK_MS 10
#define CTRL_LINK_POLL_MS  100

static void
ctrl_send(struct rtr_switch *sw, uint16_t port, const uint8_t *frame, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(sw->pool);
	struct rtr_meta *meta;
	char *dst;

	if (m == NULL) {
		sw->ctrl_stats->originated_dropped++;
		return;
	}
	dst = rte_pktmbuf_append(m, (uint16_t)len);
	if (dst == NULL) {
		rte_pktmbuf_free(m);
		sw->ctrl_stats->originated_dropped++;
		return;
	}
	memcpy(dst, frame, len);
	meta = rtr_meta(m);
	memset(meta, 0, sizeof(*meta));
	meta->in_port = RTR_PORT_NONE;
	meta->out_port = port;
	if (rte_ring_sp_enqueue(sw->workers[0]->inject, m) != 0) {
		rte_pktmbuf_free(m);
		sw->ctrl_stats->originated_dropped++;
	}
}

static void
ctrl_emit(void *arg, uint16_t port, const uint8_t *frame, uint32_t len)
{
	ctrl_send(arg, port, frame, len);
}

static inline uint64_t
ms_to_tsc(const struct rtr_switch *sw, unsigned int ms)
{
	return sw->tsc_hz / 1000 * ms;
}

void
rtr_control_links(struct rtr_switch *sw)
{
	for (uint16_t p = 0; p < RTR_MAX_PORTS; p++) {
		struct rtr_fwd_port *pr = &sw->ports[p];
		struct rte_eth_link link;
		uint8_t up, was;

		if (!pr->configured)
			continue;
		atomic_store(&pr->lsc_event, 0);
		memset(&link, 0, sizeof(link));
		if (rte_eth_link_get_nowait(p, &link) != 0)
			continue;
		up = link.link_status == RTE_ETH_LINK_UP && !pr->admin_down;
		was = atomic_load(&pr->link_up);
		/* The first reading always applies: link_up starts 0 while every
		 * group starts with all paths live. */
		if (up == was && pr->link_known)
			continue;
		pr->link_known = 1;
		atomic_store_explicit(&pr->link_up, up, memory_order_release);
		if (up)
			atomic_fetch_and(&sw->link_down_mask, ~(1u << p));
		else
			atomic_fetch_or(&sw->link_down_mask, 1u << p);
		rtr_route_port_state(sw->route, p, up);
		RTE_LOG(NOTICE, USER1, "port %u is %s (%u Mbps)\n", p, up ? "up" : "down",
				link.link_speed);
	}
}

/* Answer the punted frames: the whole ring, as far as worker 0's inject
 * ring can take the replies (the rest waits for the next poll, so that no
 * answer is lost as originated_dropped). In single-lcore mode this runs
 * only every RTR_CTRL_POLL_MASK + 1 loops of the worker, which may have
 * punted up to RTR_PUNT_BURST frames since: one burst per poll would let
 * a flood fill the ring. */
static unsigned int
control_punts(struct rtr_switch *sw, uint64_t now_ns)
{
	struct rte_mbuf *pkts[RTR_BURST];
	uint8_t reply[2048];
	unsigned int room = rte_ring_free_count(sw->workers[0]->inject);
	unsigned int total = 0, n, i;

	while (total < room) {
		n = rte_ring_sc_dequeue_burst(sw->ctrl_ring, (void **)pkts,
				RTE_MIN((unsigned int)RTR_BURST, room - total), NULL);
		if (n == 0)
			break;
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			const struct rtr_meta *meta = rtr_meta(m);
			uint32_t len = rtr_neigh_input(sw->neigh, meta->in_port,
					rte_pktmbuf_mtod(m, const uint8_t *),
					rte_pktmbuf_data_len(m), meta, now_ns, reply,
					sizeof(reply));

			if (len > 0)
				ctrl_send(sw, meta->in_port, reply, len);
			if (sw->kernel_punt == NULL || !sw->kernel_punt(sw, m, len))
				rte_pktmbuf_free(m);
		}
		total += n;
	}
	return total;
}

unsigned int
rtr_control_poll(struct rtr_switch *sw, uint64_t now_tsc)
{
	uint64_t now_ns = rtr_tsc_to_ns(sw, now_tsc);
	unsigned int n;
	bool lsc = false;

	n = control_punts(sw, now_ns);
	if (now_tsc - sw->ctrl_last_tick_tsc > ms_to_tsc(sw, CTRL_NEIGH_TICK_MS)) {
		rtr_neigh_tick(sw->neigh, now_ns, ctrl_emit, sw);
		sw->ctrl_last_tick_tsc = now_tsc;
	}
	for (uint16_t p = 0; p < RTR_MAX_PORTS && !lsc; p++)
		lsc = atomic_load_explicit(&sw->ports[p].lsc_event, memory_order_relaxed);
	if (lsc || now_tsc - sw->ctrl_last_link_tsc > ms_to_tsc(sw, CTRL_LINK_POLL_MS)) {
		rtr_control_links(sw);
		sw->ctrl_last_link_tsc = now_tsc;
	}
	/* Route changes: the one writer is here. */
	n += rtr_route_mbox_serve(&sw->route_mbox, sw->route);
	rtr_route_poll(sw->route);
	if (sw->main_tick != NULL)
		sw->main_tick(sw, now_tsc);
	return n;
}

unsigned int
rtr_control_drain(struct rtr_switch *sw)
{
	struct rte_mbuf *m;
	unsigned int n = 0;

	while (rte_ring_sc_dequeue(sw->ctrl_ring, (void **)&m) == 0) {
		rte_pktmbuf_free(m);
		n++;
	}
	return n;
}
