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
	/*
	 * RFC 1624 eqn. 3 with the word m = TTL << 8 | proto going to
	 * m - 0x100: ~m + m' is the constant 0xfeff, so HC' = ~(~HC + 0xfeff).
	 * One's complement sums commute with byte swapping (RFC 1071), so it
	 * runs on the checksum as stored with the constant swapped (0xfffe):
	 * the same bits, no swaps.
	 */
	uint32_t sum = (uint16_t)~ip->hdr_checksum + 0xfffeu;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->hdr_checksum = (rte_be16_t)~sum;
	ip->time_to_live--;
}

/*
 * The Internet checksum of data given as the sum of its 32-bit words as
 * they lie in memory (RFC 1071: the sum does not depend on the word size
 * or byte order): folded and complemented, to store as is, like
 * rte_ipv4_cksum's result. The LB control-packet builder sums a 20-byte
 * IPv4 header's five words in registers and stores this.
 */
static inline rte_be16_t
rtr_cksum_fold(uint64_t sum)
{
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffffffffu) + (sum >> 32);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (rte_be16_t)(uint16_t)~sum;
}

#endif /* RTR_CKSUM_H */
