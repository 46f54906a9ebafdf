/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_tm.h>

#include "nic_tm.h"

int
rtr_tm_plan(unsigned int workers, unsigned int hw_queues, unsigned int nb_txq,
		struct rtr_tm_node *out, unsigned int max)
{
	unsigned int n = 0, need = 3 + workers + nb_txq;
	uint32_t root = nb_txq, tc = nb_txq + 1, vsi = nb_txq + 2, group0 = nb_txq + 3;

	if (workers == 0 || hw_queues == 0 || hw_queues > 8 || nb_txq < workers * hw_queues ||
			need > max)
		return -1;
	out[n++] = (struct rtr_tm_node){.id = root, .parent = UINT32_MAX, .level = 0, .weight = 1};
	out[n++] = (struct rtr_tm_node){.id = tc, .parent = root, .level = 1, .weight = 1};
	out[n++] = (struct rtr_tm_node){.id = vsi, .parent = tc, .level = 2, .weight = 1};
	for (unsigned int w = 0; w < workers; w++)
		out[n++] = (struct rtr_tm_node){
				.id = group0 + w, .parent = vsi, .level = 3, .weight = 1};
	for (unsigned int q = 0; q < nb_txq; q++) {
		/* queue q is worker q % workers's hardware queue q / workers;
		 * queues beyond workers x hw_queues go to the last group */
		unsigned int w = q < workers * hw_queues ? q % workers : workers - 1;
		unsigned int h = q < workers * hw_queues ? q / workers : hw_queues;

		out[n++] = (struct rtr_tm_node){.id = q,
				.parent = group0 + w,
				.level = 4,
				.priority = h == 0 ? 0 : 1,
				.weight = 1,
				.queue = (uint16_t)q,
				.hwq = (uint8_t)h,
				.leaf = 1};
	}
	return (int)n;
}

int
rtr_tm_apply(uint16_t port, uint16_t nb_txq, const struct rtr_tm_node *nodes, unsigned int n,
		char *err, unsigned int errlen)
{
	struct rte_tm_error e;
	int rc = 0;

	for (unsigned int i = 0; i < n && rc == 0; i++) {
		struct rte_tm_node_params p;

		memset(&p, 0, sizeof(p));
		memset(&e, 0, sizeof(e));
		p.shaper_profile_id = RTE_TM_SHAPER_PROFILE_ID_NONE;
		if (nodes[i].leaf)
			p.leaf.wred.wred_profile_id = RTE_TM_WRED_PROFILE_ID_NONE;
		else
			p.nonleaf.n_sp_priorities = 1; /* ice_tm.c:189-193 */
		rc = rte_tm_node_add(port, nodes[i].id,
				nodes[i].parent == UINT32_MAX ? RTE_TM_NODE_ID_NULL
							      : nodes[i].parent,
				nodes[i].priority, nodes[i].weight, nodes[i].level, &p, &e);
		if (rc != 0)
			snprintf(err, errlen, "node %u (level %u): %s (%s)", nodes[i].id,
					nodes[i].level, e.message ? e.message : "no message",
					strerror(-rc));
	}
	if (rc == 0) {
		memset(&e, 0, sizeof(e));
		rc = rte_tm_hierarchy_commit(port, 1, &e);
		if (rc != 0) {
			snprintf(err, errlen, "commit: %s (%s)",
					e.message ? e.message : "no message", strerror(-rc));
			/* ice stops every TX queue first (ice_tm.c:718-724). */
			for (uint16_t q = 0; q < nb_txq; q++)
				rte_eth_dev_tx_queue_start(port, q);
		}
	}
	return rc;
}
