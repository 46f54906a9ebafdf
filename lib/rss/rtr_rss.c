/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <rte_thash.h>

#include "rtr_rss.h"

void
rtr_rss_key(uint8_t *key, unsigned int len)
{
	for (unsigned int i = 0; i < len; i++)
		key[i] = (uint8_t)(i % 2 == 0 ? RTR_RSS_KEY_WORD >> 8 : RTR_RSS_KEY_WORD & 0xff);
}

void
rtr_rss_init(struct rtr_rss *r, unsigned int n_workers)
{
	uint8_t key[40];

	rtr_rss_key(key, sizeof(key));
	/* L is linear: its value on one 16-bit word is the Toeplitz hash of
	 * a tuple holding that word and zeros (any aligned position gives
	 * the same, the key repeating every 16 bits). */
	for (unsigned int v = 0; v < 256; v++) {
		uint32_t t = (uint32_t)v << 24;

		r->hi[v] = rte_softrss(&t, 1, key);
		t = (uint32_t)v << 16;
		r->lo[v] = rte_softrss(&t, 1, key);
	}
	r->n_workers = n_workers == 0 ? 1 : n_workers;
	for (unsigned int j = 0; j < RTR_RSS_SLOTS; j++)
		r->owner[j] = (uint8_t)(j % r->n_workers);
}

bool
rtr_rss_reta(const struct rtr_rss *r, uint16_t *reta, unsigned int size)
{
	/* The NIC takes entry hash % size. A power of two >= the slots maps
	 * each slot's hashes to entries of that slot; a smaller power of two
	 * (mlx5 reports a RETA as large as its queues when their number is a
	 * power of two, mlx5_ethdev.c) does when the workers divide it. */
	if (size == 0 || (size & (size - 1)) != 0 ||
			(size < RTR_RSS_SLOTS && size % r->n_workers != 0))
		return false;
	for (unsigned int i = 0; i < size; i++)
		reta[i] = r->owner[i % RTR_RSS_SLOTS];
	return true;
}
