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

#endif /* RTR_CKSUM_H */
