/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * RSS that matches the workers (doc/architecture.md "Which worker owns a
 * flow"). Stateful LB modes keep a flow's state in one worker, its owner.
 * rocetor programs every port that can take it with the same Toeplitz key
 * and an indirection table (RETA) whose entry i names queue
 * owner[i % RTR_RSS_SLOTS]; RX queue q of such a port is read by worker q.
 * The NIC then delivers each RoCE packet to the queue of its owner and no
 * packet is handed from worker to worker. For a port without RSS (pcap,
 * memif, a device that refuses the key or the table) the same function,
 * computed in software, names the owner and the packet is handed over.
 *
 * The key repeats 0x6d5a (RTR_RSS_KEY_WORD): a Toeplitz hash with a key
 * of period 16 bits is a linear map L of the XOR of the input's 16-bit
 * words, so it is symmetric (the two directions of a flow, and an LB
 * control packet that swaps a flow's addresses, hash alike) and is
 * computed here as L(fold) with two 256-entry tables built by DPDK's
 * rte_softrss (lib/hash/rte_thash.h). test_rss checks it against
 * rte_softrss on every RETA slot and random IPv4/IPv6 tuples.
 *
 * The NIC indexes its RETA with the hash's low bits (Toeplitz result mod
 * the RETA size, a power of two: mlx5, ice, i40e; doc/nic-facts.md);
 * RTR_RSS_SLOTS divides every such size >= 64, so a RETA of any of these
 * sizes filled by rtr_rss_reta() gives the queue rtr_rss_owner() gives.
 */
#ifndef RTR_RSS_H
#define RTR_RSS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rtr_meta.h"

#define RTR_RSS_KEY_WORD 0x6d5a
#define RTR_RSS_SLOTS    64 /* owner slots: RTE_ETH_RETA_GROUP_SIZE */
#define RTR_RSS_KEY_MAX  64 /* bytes; mlx5 40, ice and i40e 52 */

struct rtr_rss {
	uint32_t hi[256], lo[256]; /* L(x) = hi[x >> 8] ^ lo[x & 0xff] */
	uint8_t owner[RTR_RSS_SLOTS];
	unsigned int n_workers;
};

/* The tables and owner slots (slot j -> worker j % n_workers). */
void rtr_rss_init(struct rtr_rss *r, unsigned int n_workers);
/* rocetor's key, len bytes (the device's hash_key_size). */
void rtr_rss_key(uint8_t *key, unsigned int len);
/* A RETA of size entries: entry i -> queue owner[i % RTR_RSS_SLOTS].
 * Returns false (reta untouched) when size is not a power of two, or is
 * one below RTR_RSS_SLOTS that the workers do not divide: such a table
 * cannot give every flow its owner's queue. */
bool rtr_rss_reta(const struct rtr_rss *r, uint16_t *reta, unsigned int size);

static inline uint32_t
rtr_rss_fold32(uint32_t acc, const uint8_t *p, unsigned int words32)
{
	for (unsigned int i = 0; i < words32; i++) {
		uint32_t v;

		memcpy(&v, p + 4 * i, 4);
		acc ^= v;
	}
	return acc;
}

/* The Toeplitz hash the NIC computes for an IPv4/IPv6 packet with an L4
 * header (RTR_MF_L4: source and destination address, source and
 * destination port), or for its addresses alone without one. Only for
 * m->l3 IPv4 or IPv6. */
static inline uint32_t
rtr_rss_hash(const struct rtr_rss *r, const uint8_t *frame, const struct rtr_meta *m)
{
	const uint8_t *l3 = frame + m->l3_off;
	uint32_t acc;
	uint16_t x;

	if (m->l3 == RTR_L3_IPV4)
		acc = rtr_rss_fold32(0, l3 + 12, 2);
	else
		acc = rtr_rss_fold32(0, l3 + 8, 8);
	if (m->flags & RTR_MF_L4)
		acc = rtr_rss_fold32(acc, frame + m->l4_off, 1);
	/* Bytes in memory order: the fold of big-endian 16-bit words is the
	 * XOR of the two halves, read back in network order. */
	acc ^= acc >> 16;
	x = (uint16_t)acc;
	{
		const uint8_t *b = (const uint8_t *)&x;

		return r->hi[b[0]] ^ r->lo[b[1]];
	}
}

/* The worker that owns a flow with this hash. */
static inline unsigned int
rtr_rss_owner(const struct rtr_rss *r, uint32_t hash)
{
	return r->owner[hash & (RTR_RSS_SLOTS - 1)];
}

#endif /* RTR_RSS_H */
