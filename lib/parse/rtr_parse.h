/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The packet parser: Ethernet / 802.1Q / IPv4 (options) / IPv6 / UDP and,
 * for UDP destination port 4791, the RoCEv2 BTH plus the extended headers
 * its opcode implies (RETH, AETH, ImmDt, ...). The result is a struct
 * rtr_meta (rtr_meta.h) that the data path keeps in an mbuf dynamic field.
 *
 * The parser is a pure function of the frame bytes: it needs no EAL and no
 * mbuf, so unit tests and fuzzers drive it with plain buffers.
 */
#ifndef RTR_PARSE_H
#define RTR_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_hash_crc.h>

#include "rtr_common.h"
#include "rtr_drop.h"
#include "rtr_meta.h"

/* BTH opcodes the switch cares about (ALGORITHMS.md 0). */
#define RTR_BTH_OP_RC_ACK        0x11
#define RTR_BTH_OP_RC_ATOMIC_ACK 0x12
#define RTR_BTH_OP_CNP           0x81
#define RTR_BTH_B4_BECN          0x40 /* BTH byte 4: BECN, set in every CNP */
#define RTR_BTH_LEN              12
#define RTR_ICRC_LEN             4

/* BTH byte 8 = AckReq(1) | Resv7(7); LB modes keep fields inside Resv7. */
#define RTR_BTH_ACKREQ     0x80
#define RTR_BTH_RESV7_MASK 0x7f

/*
 * The flow hash finaliser (murmur3's fmix32). CRC32C is linear: under two
 * seeds the hashes of every flow differ by one and the same XOR constant, so
 * a ToR and a spine with different seeds would map paths through a fixed
 * permutation and polarise. Mixing makes different seeds independent.
 */
static inline uint32_t
rtr_hash_mix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/*
 * Parse flags: the LB fields a port's frames may carry, as data (a mode's
 * descriptor provides them: rtr_lb_ops.fabric_parse_flags, composed by
 * lib/lb/core/rtr_lb_wire.h; 0, hosts' ports: plain RoCE only). The parser
 * knows their shape, not any mode:
 * - an op field of 2 bits in BTH byte 8 (Resv7) at bit RTR_PARSE_OP_SHIFT;
 * - a header of RTR_PARSE_HDR_LEN bytes right after the BTH;
 * - data ops (RTR_PARSE_DATA_OPS, a bit per op value): a switch inserted
 *   the header and the IP/UDP lengths leave it out (the Tofino P4's way);
 *   read when the frame is HDR_LEN to HDR_LEN + 2 bytes longer than its IP
 *   datagram (the length signature: an RNIC's own frame is at most 2 bytes
 *   longer, its padding), or when the frame is a trimmed header;
 * - control ops (RTR_PARSE_CTRL_OPS): a control packet cut after the
 *   header, the lengths counting it, no ICRC, no extended headers: read
 *   when its UDP length is at most 8 + BTH + HDR_LEN (shorter than that, or
 *   trimmed: malformed), plain RoCE when longer;
 * - control ops at their exact length only (RTR_PARSE_CTRL_EXACT_OPS): UDP
 *   length exactly 8 + BTH + HDR_LEN and not trimmed, everything else plain.
 * An op is a data op or a control op, not both. A control-length frame
 * whose last 4 bytes are its valid ICRC is a host's own: plain RoCE. Read
 * headers set RTR_MF_LB_HDR, control packets RTR_MF_LB_CTRL too.
 * doc/wire-formats.md.
 */
#define RTR_PARSE_DATA_OPS(ops)       ((unsigned int)(ops)&0xfu)
#define RTR_PARSE_CTRL_OPS(ops)       (((unsigned int)(ops)&0xfu) << 4)
#define RTR_PARSE_CTRL_EXACT_OPS(ops) (((unsigned int)(ops)&0xfu) << 8)
#define RTR_PARSE_LAYOUT(hdr_len, op_shift) \
	((unsigned int)(hdr_len) << 16 | (unsigned int)(op_shift) << 24)
#define RTR_PARSE_HDR_LEN(pf)  (((pf) >> 16) & 0xffu)
#define RTR_PARSE_OP_SHIFT(pf) (((pf) >> 24) & 7u)

/* The op of BTH byte 8 b8 under parse flags pf. */
static inline unsigned int
rtr_parse_op(unsigned int pf, uint8_t b8)
{
	return (b8 >> RTR_PARSE_OP_SHIFT(pf)) & 3u;
}

/*
 * Parse one frame of len bytes. Fills *m (in_port/out_port/tc are left 0).
 * Returns RTR_DROP_NONE on success (including ARP and non-RoCE IP), or
 * RTR_DROP_MALFORMED / RTR_DROP_NOT_IP. Never reads outside [frame, frame+len).
 * On a drop, *m holds what was parsed before the fault (at least l3_off once
 * the Ethernet header was whole) and flow_hash is 0. For ARP, l4_off is the
 * end of the 28-byte ARP body and flow_hash is 0.
 *
 * flow_hash = rte_hash_crc(key, n, hash_seed) over the key src IP | dst IP |
 * sport | dport | proto in network byte order (n = 13 for IPv4, 37 for IPv6);
 * ports are 0 when not read (not TCP/UDP, later fragments).
 */
enum rtr_drop_reason rtr_parse(const uint8_t *frame, uint32_t len, uint32_t hash_seed,
		unsigned int parse_flags, struct rtr_meta *m);

/*
 * Extended headers by BTH opcode (rtr_parse.c): length, RTR_EXT_* flags,
 * and known == 0 for reserved, XRC and vendor opcodes.
 */
struct rtr_ext_info {
	uint8_t len;
	uint8_t flags;
	uint8_t known;
};
extern const struct rtr_ext_info rtr_ext_tab[256];

/*
 * rtr_parse for the data path: the same result and the same *m for every
 * frame, with the common case inline. An IPv4 frame without options or a
 * second VLAN tag, not a fragment, not cut short, UDP (RoCE without LB
 * fields or with a data op's header, or any other port) is parsed here
 * in one pass and *m written with one store; anything else (LB control
 * packets among it) goes to rtr_parse. The unit test
 * and the parser's fuzz target compare the two on every frame they build.
 */
static inline enum rtr_drop_reason
rtr_parse_fast(const uint8_t *frame, uint32_t len, uint32_t hash_seed, unsigned int parse_flags,
		struct rtr_meta *m)
{
	struct rtr_meta r = {0};
	const uint8_t *l3, *l4;
	uint32_t off = 14, tot, ulen, udp_end, ports, crc;
	uint16_t etype;

	if (unlikely(len < 14 + 4 + 20 + 8))
		goto slow;
	etype = (uint16_t)(frame[12] << 8 | frame[13]);
	if (etype == 0x8100 || etype == 0x88a8) {
		etype = (uint16_t)(frame[16] << 8 | frame[17]);
		off = 18;
		r.flags = RTR_MF_VLAN;
	}
	l3 = frame + off;
	if (unlikely(etype != 0x0800 || l3[0] != 0x45 || l3[9] != 17 ||
			    ((l3[6] << 8 | l3[7]) & 0x3fff) != 0))
		goto slow;
	tot = (uint32_t)(l3[2] << 8 | l3[3]);
	l4 = l3 + 20;
	ulen = (uint32_t)(l4[4] << 8 | l4[5]);
	/* Whole datagram in the frame, UDP length inside the IP one. */
	if (unlikely(tot > len - off || ulen < 8 || ulen + 20 > tot))
		goto slow;
	memcpy(&ports, l4, 4);
	r.sport = (uint16_t)(l4[0] << 8 | l4[1]);
	r.dport = (uint16_t)(l4[2] << 8 | l4[3]);
	r.flags |= RTR_MF_L4;
	if (r.dport == RTR_ROCE_UDP_PORT) {
		const uint8_t *bth = l4 + 8;
		const struct rtr_ext_info *e;
		unsigned int op;

		udp_end = off + 20 + ulen;
		/* The BTH and its extended headers inside the datagram. */
		if (unlikely(ulen < 8 + RTR_BTH_LEN))
			goto slow;
		op = rtr_parse_op(parse_flags, bth[8]);
		if (op != 0 && ((parse_flags >> op) & 0x111u)) {
			/* LB fields to read. A data op's header (what a DstToR
			 * receives) is known by its length signature
			 * (rtr_parse.c, lb_data_signature); without it the
			 * packet is plain RoCE. Control packets take the full
			 * parser. */
			uint32_t hl = RTR_PARSE_HDR_LEN(parse_flags);

			if (!((parse_flags >> op) & 1))
				goto slow;
			if (len >= off + tot + hl && len <= off + tot + hl + 2)
				r.flags |= RTR_MF_LB_HDR;
		}
		e = &rtr_ext_tab[bth[0]];
		/* (With a DATA header, the header's 4 bytes add to both sides.) */
		if (unlikely(off + 20 + 8 + RTR_BTH_LEN + e->len > udp_end))
			goto slow;
		r.bth_opcode = bth[0];
		r.bth_b4 = bth[4];
		r.bth_b8 = bth[8];
		r.psn = (uint32_t)(bth[9] << 16 | bth[10] << 8 | bth[11]);
		r.ext = e->flags;
		r.flags |= RTR_MF_ROCE;
	}
	r.l3_off = (uint8_t)off;
	r.l4_off = (uint8_t)(off + 20);
	r.l3 = RTR_L3_IPV4;
	r.l4_proto = 17;
	r.tos = l3[1];
	{
		uint64_t addrs;

		memcpy(&addrs, l3 + 12, 8);
		crc = rte_hash_crc_8byte(addrs, hash_seed);
	}
	crc = rte_hash_crc_4byte(ports, crc);
	r.flow_hash = rtr_hash_mix(rte_hash_crc_1byte(17, crc));
	*m = r;
	return RTR_DROP_NONE;
slow:
	return rtr_parse(frame, len, hash_seed, parse_flags, m);
}

/*
 * The flow hash the packet of the opposite direction (addresses swapped,
 * ports kept) gets from rtr_parse with the same seed: how a SrcToR finds
 * the flow an LB control packet answers. m must come from rtr_parse of
 * frame (IPv4 or IPv6).
 */
uint32_t rtr_flow_hash_reverse(const uint8_t *frame, const struct rtr_meta *m, uint32_t hash_seed);

/*
 * Whether the ICRC at the end of the UDP datagram matches (ALGORITHMS.md 0).
 * For short packets only (IP + UDP up to about 300 bytes; longer ones
 * return false): the ingress policy uses it to tell a host's zero-payload
 * RoCE packet from an LB control packet (which has no ICRC).
 */
bool rtr_roce_icrc_ok(const uint8_t *frame, uint32_t len, const struct rtr_meta *m);

/*
 * Once per process, after rte_eal_init (which sets the SIMD width the
 * choice depends on) and before any second thread checks an ICRC: pick
 * rte_net_crc's implementation now. DPDK 22.11 otherwise picks it inside the
 * first rte_net_crc_calc and sets its handler table to NULL meanwhile, so
 * two workers checking their first ICRCs at once can jump through NULL.
 */
void rtr_parse_init(void);

/* Length of the extended headers implied by a BTH opcode, or -1 if unknown. */
int rtr_bth_ext_len(uint8_t opcode, uint8_t *ext_flags);

/* An LB control packet (a control op of the port's parse flags) parsed
 * with its header: the egress's control class. */
static inline bool
rtr_meta_lb_control(const struct rtr_meta *m)
{
	return m->flags & RTR_MF_LB_CTRL;
}

/* RoCE data packet: an RC/UC/UD request or READ response, not ACK/NAK/CNP. */
static inline bool
rtr_meta_is_roce_data(const struct rtr_meta *m)
{
	return (m->flags & RTR_MF_ROCE) && m->bth_opcode != RTR_BTH_OP_RC_ACK &&
	       m->bth_opcode != RTR_BTH_OP_RC_ATOMIC_ACK && m->bth_opcode != RTR_BTH_OP_CNP;
}

#endif /* RTR_PARSE_H */
