/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The incremental update of an Internet checksum (RFC 1624), for the
 * header fields the switch rewrites in place: the TTL (pipeline), the ECN
 * bits (egress), the IPv4 total length (CAVER's shim). One 16-bit word
 * changes; the update is exact, so undoing the change brings back the
 * original checksum (a full recompute would also "repair" a wrong one).
 * Inline: it runs per packet.
 */
#ifndef RTR_CKSUM_H
#define RTR_CKSUM_H

#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

/*
 * The checksum ck (host order) after one word of the data it covers went
 * from old_word to new_word (host order): RFC 1624 eqn. 3,
 * HC' = ~(~HC + ~m + m').
 */
static inline uint16_t
rtr_cksum_update16(uint16_t ck, uint16_t old_word, uint16_t new_word)
{
	uint32_t sum = (uint16_t)~ck;

	sum += (uint16_t)~old_word;
	sum += new_word;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * IPv4 TTL decrement with the incremental checksum update: TTL is the
 * high byte of the 16-bit word it shares with the protocol. The pipeline
 * and the simulator's switch step (tools/sim) both forward with it.
 */
static inline void
rtr_ipv4_dec_ttl(struct rte_ipv4_hdr *ip)
{
	uint16_t old_word = rte_be_to_cpu_16(*(const uint16_t *)&ip->time_to_live);
	uint16_t new_word = old_word - 0x0100;
	uint16_t ck = rtr_cksum_update16(rte_be_to_cpu_16(ip->hdr_checksum), old_word, new_word);

	ip->time_to_live--;
	ip->hdr_checksum = rte_cpu_to_be_16(ck);
}

#endif /* RTR_CKSUM_H */
