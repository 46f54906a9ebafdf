/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Counters and reports: one worker's class counters, the per-port report
 * summed over workers with the shared PFC and NIC ring state, and its JSON.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_spinlock.h>

#include "eg_internal.h"
#include "rtr_egress.h"
#include "rtr_json.h"

const char *const rtr_eg_counter_names[RTR_EGC_MAX] = {
#define RTR_EG_NAME(n, d) #n,
		RTR_EG_CLASS_COUNTERS(RTR_EG_NAME)
#undef RTR_EG_NAME
};
const char *const rtr_eg_counter_help[RTR_EGC_MAX] = {
#define RTR_EG_HELP(n, d) d,
		RTR_EG_CLASS_COUNTERS(RTR_EG_HELP)
#undef RTR_EG_HELP
};

void
rtr_egress_counters_add(
		const struct rtr_egress *eg, uint16_t port, uint8_t cls, uint64_t acc[RTR_EGC_MAX])
{
	const struct rtr_eport *ep = port < RTR_MAX_PORTS ? eg->port[port] : NULL;

	if (ep == NULL || cls >= ep->n_classes)
		return;
	for (unsigned int i = 0; i < RTR_EGC_MAX; i++) {
		if (i == RTR_EGC_max_depth)
			acc[i] = RTE_MAX(acc[i], ep->c[cls][i]);
		else
			acc[i] += ep->c[cls][i];
	}
}

/* ------------------------------------------------------------ reports */

void
rtr_egress_report(struct rtr_egress *const *egs, unsigned int n, struct rtr_egress_shared *sh,
		uint16_t port, uint64_t now_ns, struct rtr_eg_port_report *r)
{
	struct rtr_eg_pfc_port *pp;

	memset(r, 0, sizeof(*r));
	if (port >= RTR_MAX_PORTS || !sh->port[port].configured)
		return;
	r->n_classes = sh->cfg->qos.classes;
	for (unsigned int i = 0; i < n; i++) {
		if (egs[i] == NULL || egs[i]->port[port] == NULL)
			continue;
		for (unsigned int c = 0; c < r->n_classes; c++) {
			rtr_egress_counters_add(egs[i], port, (uint8_t)c, r->c[c]);
			r->depth[c] += egs[i]->port[port]->cq[c].bytes;
		}
	}
	for (unsigned int c = 0; c < r->n_classes; c++)
		r->paused_ns[c] = rtr_egress_paused_ns(sh, port, (uint8_t)c, now_ns);
	pp = &sh->port[port].pfc;
	rte_spinlock_lock(&pp->lock);
	r->rx_pfc = pp->rx_pfc;
	r->rx_pause = pp->rx_pause;
	r->rx_ignored = pp->rx_ignored;
	rte_spinlock_unlock(&pp->lock);
	r->tx_xoff = atomic_load_explicit(&pp->tx_xoff, memory_order_relaxed);
	r->tx_xon = atomic_load_explicit(&pp->tx_xon, memory_order_relaxed);
	r->rx_holds = atomic_load_explicit(&pp->rx_holds, memory_order_relaxed);
	r->xoff_imissed = atomic_load_explicit(&pp->xoff_imissed, memory_order_relaxed);
	r->paced = sh->port[port].paced;
	r->ring_bytes = sh->port[port].ring_bytes;
	r->desc_cap = sh->port[port].desc_cap;
	r->hw_queues = (uint8_t)eg_n_hwq(&sh->cfg->qos);
	for (unsigned int i = 0; i < n; i++) {
		const struct rtr_eport *ep = egs[i] != NULL ? egs[i]->port[port] : NULL;

		if (ep == NULL)
			continue;
		r->ring_holds += ep->ring_holds;
		r->desc_holds += ep->desc_holds;
		r->ring_max_ns = RTE_MAX(r->ring_max_ns, ep->ring_max_ps / 1000);
	}
}

void
rtr_egress_report_json(struct rtr_json *w, const struct rtr_eg_port_report *r)
{
	rtr_json_key(w, "classes");
	rtr_json_arr(w);
	for (unsigned int c = 0; c < r->n_classes; c++) {
		rtr_json_obj(w);
		rtr_json_kv_u64(w, "class", c);
		for (unsigned int i = 0; i < RTR_EGC_MAX; i++)
			rtr_json_kv_u64(w, rtr_eg_counter_names[i], r->c[c][i]);
		rtr_json_kv_u64(w, "depth", r->depth[c]);
		rtr_json_kv_u64(w, "pfc_paused_ns", r->paused_ns[c]);
		rtr_json_obj_end(w);
	}
	rtr_json_arr_end(w);
	rtr_json_key(w, "pfc");
	rtr_json_obj(w);
	rtr_json_kv_u64(w, "rx_pfc", r->rx_pfc);
	rtr_json_kv_u64(w, "rx_pause", r->rx_pause);
	rtr_json_kv_u64(w, "rx_ignored", r->rx_ignored);
	rtr_json_kv_u64(w, "tx_xoff", r->tx_xoff);
	rtr_json_kv_u64(w, "tx_xon", r->tx_xon);
	rtr_json_kv_u64(w, "rx_holds", r->rx_holds);
	rtr_json_kv_u64(w, "xoff_imissed", r->xoff_imissed);
	rtr_json_obj_end(w);
	rtr_json_key(w, "nic_ring");
	rtr_json_obj(w);
	rtr_json_kv_bool(w, "paced", r->paced);
	rtr_json_kv_u64(w, "limit_bytes", r->ring_bytes);
	rtr_json_kv_u64(w, "desc_cap", r->desc_cap);
	rtr_json_kv_u64(w, "hw_queues", r->hw_queues);
	rtr_json_kv_u64(w, "ring_holds", r->ring_holds);
	rtr_json_kv_u64(w, "desc_holds", r->desc_holds);
	rtr_json_kv_u64(w, "max_ahead_ns", r->ring_max_ns);
	rtr_json_obj_end(w);
}

void
rtr_egress_buffer_report(struct rtr_egress *const *egs, unsigned int n,
		struct rtr_egress_shared *sh, struct rtr_eg_buffer_report *r)
{
	int64_t used;

	memset(r, 0, sizeof(*r));
	if (sh == NULL || sh->cfg == NULL || sh->cfg->qos.buffer.mode != RTR_BUFFER_SHARED)
		return;
	r->shared = true;
	used = atomic_load_explicit(&sh->sb_used, memory_order_relaxed);
	for (unsigned int i = 0; i < n; i++) {
		if (egs[i] == NULL)
			continue;
		r->size_bytes = egs[i]->sb_size;
		r->shared_bytes = egs[i]->sb_shared;
		r->cell_bytes = egs[i]->sb_cell;
		used += egs[i]->sb_delta;
		r->peak_bytes = RTE_MAX(r->peak_bytes, egs[i]->sb_peak);
	}
	r->used_bytes = used > 0 ? (uint64_t)used : 0;
}

void
rtr_egress_buffer_json(struct rtr_json *w, const struct rtr_eg_buffer_report *r)
{
	rtr_json_key(w, "buffer");
	rtr_json_obj(w);
	rtr_json_kv_str(w, "mode", r->shared ? "shared" : "static");
	rtr_json_kv_u64(w, "size_bytes", r->size_bytes);
	rtr_json_kv_u64(w, "shared_bytes", r->shared_bytes);
	rtr_json_kv_u64(w, "cell_bytes", r->cell_bytes);
	rtr_json_kv_u64(w, "used_bytes", r->used_bytes);
	rtr_json_kv_u64(w, "peak_bytes", r->peak_bytes);
	rtr_json_obj_end(w);
}
