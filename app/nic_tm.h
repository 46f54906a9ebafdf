/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Priorities of the hardware TX queues through rte_tm (issue 31,
 * doc/egress.md "Hardware TX queues per class"). With qos.hw_queues > 1 each
 * worker has a queue per hardware queue index h (queue w + h * workers);
 * queue index 0 carries the control class and should be served first by the
 * NIC, the others round-robin.
 *
 * Only DPDK 22.11's ice takes that through rte_tm (drivers/net/ice/ice_tm.c,
 * read for these rules, not run here): a tree of five levels, port (0) ->
 * one traffic class (1) -> one VSI (2) -> queue groups (3) -> queues (4),
 * each node's level its parent's + 1 (:481-487); a queue's node id is its
 * queue id (< nb_tx_queues, :518-522), so the other nodes take ids above
 * them; priorities 0..7 with 0 the highest (hardware priority 7 - p,
 * :801, :827) and weights 1..200 (:157-167), priority and weight honoured
 * only on queue groups and queues (:541-548). Commit stops every TX queue
 * and starts only the queues in the tree (:718-746): every queue must be a
 * leaf, and a failed commit leaves queues stopped (rocetor starts them
 * again). i40e's rte_tm has no strict priority; mlx5 and the virtual PMDs
 * have no rte_tm: their queues are served as the NIC does (round-robin).
 */
#ifndef RTR_APP_NIC_TM_H
#define RTR_APP_NIC_TM_H

#include <stdint.h>

#define RTR_TM_LEVELS 5 /* port, TC, VSI, queue group, queue */

struct rtr_tm_node {
	uint32_t id, parent; /* parent UINT32_MAX: the root */
	uint32_t level;
	uint32_t priority, weight;
	uint16_t queue; /* leaves: the TX queue */
	uint8_t hwq;    /* leaves: its hardware queue index */
	uint8_t leaf;
};

/*
 * The tree for workers x hw_queues TX queues (nb_txq, at least that many;
 * the extra ones of ports[].tx_queues are leaves of the last group at the
 * data priority): root, TC, VSI, one queue group per worker, the queues.
 * Hardware queue 0 gets priority 0, the others priority 1, weight 1.
 * Returns the number of nodes written to out (max), or -1 if it does not
 * fit or the inputs are out of range.
 */
int rtr_tm_plan(unsigned int workers, unsigned int hw_queues, unsigned int nb_txq,
		struct rtr_tm_node *out, unsigned int max);

/*
 * Add the plan's nodes to port and commit (the port started). On failure
 * writes the driver's message to err, starts every TX queue again (a failed
 * ice commit leaves them stopped) and returns the error.
 */
int rtr_tm_apply(uint16_t port, uint16_t nb_txq, const struct rtr_tm_node *nodes, unsigned int n,
		char *err, unsigned int errlen);

#endif /* RTR_APP_NIC_TM_H */
