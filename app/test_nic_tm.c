/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The rte_tm tree rocetor gives ice for its per-class hardware TX queues
 * (app/nic_tm.h), against the rules read in DPDK 22.11's
 * drivers/net/ice/ice_tm.c, for 1..16 workers, 1..4 hardware queues and up
 * to 3 extra TX queues: one root at level 0, one TC, one VSI, each node one
 * level below its parent, queue nodes' ids the TX queues (every queue once,
 * < nb_txq), the other ids above them and unique, priorities < 8, weights
 * 1..200; worker w's hardware queue h (queue w + h * workers) under worker
 * w's group, priority 0 for h = 0 and 1 otherwise. No EAL.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nic_tm.h"
#include "rtr_test.h"

#define MAX_NODES 256

/* Parents come before their children: rte_tm_node_add needs the parent. */
static int
j_before(const struct rtr_tm_node *nd, const struct rtr_tm_node *par, const struct rtr_tm_node *a)
{
	return par < a && par >= nd;
}

static void
check_tree(unsigned int workers, unsigned int hwq, unsigned int nb_txq)
{
	static struct rtr_tm_node nd[MAX_NODES];
	int n = rtr_tm_plan(workers, hwq, nb_txq, nd, MAX_NODES);
	unsigned int roots = 0, tcs = 0, vsis = 0, groups = 0, leaves = 0, bad = 0;
	unsigned int seen_q[64] = {0};

	CHECK(n == (int)(3 + workers + nb_txq), "%u x %u + %u: %d nodes", workers, hwq,
			nb_txq - workers * hwq, n);
	if (n <= 0)
		return;
	for (int i = 0; i < n; i++) {
		const struct rtr_tm_node *a = &nd[i];
		const struct rtr_tm_node *par = NULL;

		for (int j = 0; j < n; j++) {
			if (j != i && nd[j].id == a->id)
				bad++; /* ids unique */
			if (nd[j].id == a->parent)
				par = &nd[j];
		}
		if (a->parent == UINT32_MAX) {
			roots++;
			bad += a->level != 0;
		} else if (par == NULL || par->level + 1 != a->level || j_before(nd, par, a) == 0) {
			bad++;
		}
		bad += a->priority >= 8 || a->weight < 1 || a->weight > 200;
		tcs += a->level == 1;
		vsis += a->level == 2;
		groups += a->level == 3;
		if (a->level == 4) {
			leaves++;
			bad += !a->leaf || a->id != a->queue || a->id >= nb_txq;
			if (a->id < 64)
				seen_q[a->id]++;
			if (a->queue < workers * hwq) {
				unsigned int w = a->queue % workers, h = a->queue / workers;

				bad += a->hwq != h || a->priority != (h == 0 ? 0u : 1u);
				bad += par == NULL || par->id != nd[3 + w].id;
			} else {
				bad += a->priority != 1;
			}
		} else {
			bad += a->leaf || a->id < nb_txq;
			/* ice honours priority only on queue groups and queues */
			bad += a->priority != 0;
		}
	}
	CHECK(roots == 1 && tcs == 1 && vsis == 1 && groups == workers && leaves == nb_txq,
			"%u x %u: shape %u/%u/%u/%u/%u", workers, hwq, roots, tcs, vsis, groups,
			leaves);
	for (unsigned int q = 0; q < nb_txq && q < 64; q++)
		bad += seen_q[q] != 1;
	CHECK(bad == 0, "%u workers x %u hw queues + %u: %u rule breaks", workers, hwq,
			nb_txq - workers * hwq, bad);
}

int
main(void)
{
	static struct rtr_tm_node nd[MAX_NODES];

	for (unsigned int w = 1; w <= 16; w++)
		for (unsigned int h = 1; h <= 4; h++)
			for (unsigned int extra = 0; extra <= 3; extra++)
				check_tree(w, h, w * h + extra);
	/* Refused: fewer TX queues than workers x hardware queues, no room,
	 * no workers. */
	CHECK_EQ(rtr_tm_plan(4, 3, 11, nd, MAX_NODES), -1);
	CHECK_EQ(rtr_tm_plan(4, 3, 12, nd, 18), -1);
	CHECK_EQ(rtr_tm_plan(4, 3, 12, nd, 19), 19);
	CHECK_EQ(rtr_tm_plan(0, 3, 12, nd, MAX_NODES), -1);
	CHECK_EQ(rtr_tm_plan(2, 9, 18, nd, MAX_NODES), -1);
	return rtr_test_done("nic-tm");
}
