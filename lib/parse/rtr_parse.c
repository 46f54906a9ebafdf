/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The per-packet parser (see rtr_parse.h and doc/wire-formats.md).
 *
 * Every read is preceded by a bounds check against len, and every length
 * field is checked against the bytes that are really there before it is
 * used, so a frame of any length and content is safe to hand to rtr_parse().
 * Multi-byte fields are read with memcpy() (unaligned-safe, compiles to one
 * load) and converted from network order with rte_be_to_cpu_*.
 */

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_hash_crc.h>
#include <rte_net_crc.h>

#include "rtr_common.h"
#include "rtr_parse.h"

/* The mbuf offset of struct rtr_meta (rtr_mbuf.h); set by the pipeline. */
int rtr_meta_offset = -1;

#define ETH_HLEN      14
#define MIN_FRAME     60 /* Ethernet minimum without FCS: padding after a trimmed header */
#define VLAN_HLEN     4
#define ETYPE_IPV4    0x0800
#define ETYPE_IPV6    0x86dd
#define ETYPE_ARP     0x0806
#define ETYPE_VLAN    0x8100
#define ETYPE_QINQ    0x88a8
#define ARP_LEN       28 /* Ethernet/IPv4 ARP body */
#define IPV4_HLEN     20
#define IPV6_HLEN     40
#define IPV4_MF       0x2000
#define IPV4_OFF_MASK 0x1fff
#define UDP_HLEN      8
#define TCP_HLEN      20
#define PROTO_TCP     6
#define PROTO_UDP     17

/* Extended transport header lengths (IBTA 1.4, chapter 9.3). */
#define RDETH_LEN      4
#define DETH_LEN       8
#define RETH_LEN       16
#define ATOMICETH_LEN  28
#define AETH_LEN       4
#define ATOMACKETH_LEN 8
#define IMMDT_LEN      4
#define IETH_LEN       4

static inline uint16_t
ld_be16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_16(v);
}

static inline uint32_t
ld_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_32(v);
}

/* Raw loads in memory order: the hash runs over the wire bytes as they are. */
static inline uint32_t
ld_raw32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t
ld_raw64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Extended headers by BTH opcode. known == 0 marks reserved, XRC and
 * vendor opcodes: rtr_bth_ext_len() reports -1 for them.
 */
#define ext_info rtr_ext_info

/* clang-format off */
#define E(l, f) {(l), (f), 1}
#define NONE_	E(0, 0)
#define RETH_	E(RETH_LEN, RTR_EXT_RETH)
#define AETH_	E(AETH_LEN, RTR_EXT_AETH)
#define IMM_	E(IMMDT_LEN, RTR_EXT_IMMDT)
#define RETHIMM_ E(RETH_LEN + IMMDT_LEN, RTR_EXT_RETH | RTR_EXT_IMMDT)
#define ATOM_	E(ATOMICETH_LEN, RTR_EXT_ATOMICETH)
#define ATOMACK_ E(AETH_LEN + ATOMACKETH_LEN, RTR_EXT_AETH | RTR_EXT_ATOMACKETH)
#define IETH_	E(IETH_LEN, RTR_EXT_IETH)
/* RD: every packet has an RDETH; requests add a DETH. */
#define RD_(l, f) E(RDETH_LEN + (l), RTR_EXT_RDETH | (f))
#define RDQ_(l, f) RD_(DETH_LEN + (l), RTR_EXT_DETH | (f))
/* UD: DETH on every packet. */
#define UD_(l, f) E(DETH_LEN + (l), RTR_EXT_DETH | (f))

const struct ext_info rtr_ext_tab[256] = {
	/* RC */
	[0x00] = NONE_,	  /* SEND FIRST */
	[0x01] = NONE_,	  /* SEND MIDDLE */
	[0x02] = NONE_,	  /* SEND LAST */
	[0x03] = IMM_,	  /* SEND LAST with immediate */
	[0x04] = NONE_,	  /* SEND ONLY */
	[0x05] = IMM_,	  /* SEND ONLY with immediate */
	[0x06] = RETH_,	  /* RDMA WRITE FIRST */
	[0x07] = NONE_,	  /* RDMA WRITE MIDDLE */
	[0x08] = NONE_,	  /* RDMA WRITE LAST */
	[0x09] = IMM_,	  /* RDMA WRITE LAST with immediate */
	[0x0a] = RETH_,	  /* RDMA WRITE ONLY */
	[0x0b] = RETHIMM_, /* RDMA WRITE ONLY with immediate */
	[0x0c] = RETH_,	  /* RDMA READ REQUEST */
	[0x0d] = AETH_,	  /* RDMA READ RESPONSE FIRST */
	[0x0e] = NONE_,	  /* RDMA READ RESPONSE MIDDLE */
	[0x0f] = AETH_,	  /* RDMA READ RESPONSE LAST */
	[0x10] = AETH_,	  /* RDMA READ RESPONSE ONLY */
	[0x11] = AETH_,	  /* ACKNOWLEDGE */
	[0x12] = ATOMACK_, /* ATOMIC ACKNOWLEDGE */
	[0x13] = ATOM_,	  /* COMPARE SWAP */
	[0x14] = ATOM_,	  /* FETCH ADD */
	[0x16] = IETH_,	  /* SEND LAST with invalidate */
	[0x17] = IETH_,	  /* SEND ONLY with invalidate */
	/* UC */
	[0x20] = NONE_,
	[0x21] = NONE_,
	[0x22] = NONE_,
	[0x23] = IMM_,
	[0x24] = NONE_,
	[0x25] = IMM_,
	[0x26] = RETH_,
	[0x27] = NONE_,
	[0x28] = NONE_,
	[0x29] = IMM_,
	[0x2a] = RETH_,
	[0x2b] = RETHIMM_,
	/* RD */
	[0x40] = RDQ_(0, 0),
	[0x41] = RDQ_(0, 0),
	[0x42] = RDQ_(0, 0),
	[0x43] = RDQ_(IMMDT_LEN, RTR_EXT_IMMDT),
	[0x44] = RDQ_(0, 0),
	[0x45] = RDQ_(IMMDT_LEN, RTR_EXT_IMMDT),
	[0x46] = RDQ_(RETH_LEN, RTR_EXT_RETH),
	[0x47] = RDQ_(0, 0),
	[0x48] = RDQ_(0, 0),
	[0x49] = RDQ_(IMMDT_LEN, RTR_EXT_IMMDT),
	[0x4a] = RDQ_(RETH_LEN, RTR_EXT_RETH),
	[0x4b] = RDQ_(RETH_LEN + IMMDT_LEN, RTR_EXT_RETH | RTR_EXT_IMMDT),
	[0x4c] = RDQ_(RETH_LEN, RTR_EXT_RETH),
	[0x4d] = RD_(AETH_LEN, RTR_EXT_AETH),
	[0x4e] = RD_(0, 0),
	[0x4f] = RD_(AETH_LEN, RTR_EXT_AETH),
	[0x50] = RD_(AETH_LEN, RTR_EXT_AETH),
	[0x51] = RD_(AETH_LEN, RTR_EXT_AETH),
	[0x52] = RD_(AETH_LEN + ATOMACKETH_LEN, RTR_EXT_AETH | RTR_EXT_ATOMACKETH),
	[0x53] = RDQ_(ATOMICETH_LEN, RTR_EXT_ATOMICETH),
	[0x54] = RDQ_(ATOMICETH_LEN, RTR_EXT_ATOMICETH),
	[0x55] = RDQ_(0, 0), /* RESYNC */
	/* UD */
	[0x64] = UD_(0, 0),
	[0x65] = UD_(IMMDT_LEN, RTR_EXT_IMMDT),
	/* RoCEv2 congestion notification: 16 reserved bytes of payload, no ext. */
	[RTR_BTH_OP_CNP] = NONE_,
};

#undef E
#undef NONE_
#undef RETH_
#undef AETH_
#undef IMM_
#undef RETHIMM_
#undef ATOM_
#undef ATOMACK_
#undef IETH_
#undef RD_
#undef RDQ_
#undef UD_
/* clang-format on */

int
rtr_bth_ext_len(uint8_t opcode, uint8_t *ext_flags)
{
	const struct ext_info *e = &rtr_ext_tab[opcode];

	if (ext_flags != NULL)
		*ext_flags = e->flags;
	return e->known ? (int)e->len : -1;
}

/*
 * The length signature of a data op's header (rtr_parse.h, parse flags;
 * doc/wire-formats.md): the frame holds hl to hl + 2 bytes more than its
 * IP datagram (ip_end, a frame offset), i.e. the header the inserting
 * switch leaves out of the IP/UDP lengths (as the ConWeave Tofino P4 does)
 * plus the Ethernet padding (0..2 bytes) the sender's frame may have had.
 * An RNIC's own frame is at most 2 bytes longer than its IP datagram: the
 * smallest RoCEv2 frame (Ethernet, IPv4, UDP, BTH, ICRC) is 58 bytes, padded
 * to 60. So an RNIC's Resv7 bits alone never read as a header (hl >= 3).
 */
static inline bool
lb_data_signature(uint32_t len, uint32_t ip_end, uint32_t hl)
{
	return len >= ip_end + hl && len <= ip_end + hl + 2;
}

/*
 * The BTH and what follows it. bth_off, udp_end and ip_end are frame
 * offsets; the caller has checked udp_end <= len unless the frame is a
 * trimmed header. Returns NONE or MALFORMED.
 */
static inline enum rtr_drop_reason
parse_roce(const uint8_t *frame, uint32_t len, uint32_t bth_off, uint32_t udp_end, uint32_t ip_end,
		unsigned int parse_flags, struct rtr_meta *m)
{
	const uint8_t *bth = frame + bth_off;
	const struct ext_info *e;
	uint32_t hdr_end = bth_off + RTR_BTH_LEN;
	uint32_t roce_end = udp_end;
	uint32_t hl = RTR_PARSE_HDR_LEN(parse_flags);
	unsigned int op;
	bool data, ctrl, ctrl_exact;
	bool ctrl_len; /* UDP length of a control packet: UDP + BTH + header */

	/* The BTH must lie inside the UDP datagram. */
	if (unlikely(hdr_end > udp_end || hdr_end > len))
		return RTR_DROP_MALFORMED;

	m->bth_opcode = bth[0];
	m->bth_b4 = bth[4];
	m->bth_b8 = bth[8];
	m->psn = ld_be32(bth + 8) & 0xffffff;
	m->flags |= RTR_MF_ROCE;

	e = &rtr_ext_tab[m->bth_opcode];
	op = rtr_parse_op(parse_flags, m->bth_b8);
	data = op != 0 && ((parse_flags >> op) & 1);
	ctrl = op != 0 && ((parse_flags >> (op + 4)) & 1);
	ctrl_exact = op != 0 && ((parse_flags >> (op + 8)) & 1);
	/*
	 * A control packet has no ICRC: the bytes after its BTH are the LB
	 * header. A host's own zero-payload RoCE packet with those Resv7
	 * bits has a valid one there, and must reach its receiver (the
	 * SrcToR forwards it, lb_bypass_resv7): parse it as plain RoCE.
	 * Costs a CRC of ~50 bytes, control packets only.
	 */
	ctrl_len = udp_end - (bth_off - 8) == 8 + RTR_BTH_LEN + hl;
	if (unlikely(ctrl || ctrl_exact) && ctrl_len && rtr_roce_icrc_ok(frame, len, m))
		ctrl = ctrl_exact = false;
	/*
	 * Resv7 names an op, the lengths must agree (real RNICs may set
	 * Resv7 bits, ALGORITHMS.md 0): a data op's header has the length
	 * signature (a trimmed one keeps its header whatever the frame
	 * length: the trimmer cut behind it); a control packet is cut right
	 * after the header (a longer packet is an RNIC's, or a CAVER shimmed
	 * ACK, whose Resv7 0x7F reads as op 3 of the shared LB layout).
	 */
	if (unlikely(data)) {
		if ((m->flags & RTR_MF_TRIMMED) || lb_data_signature(len, ip_end, hl)) {
			/* IP and UDP lengths do not count the inserted bytes. */
			m->flags |= RTR_MF_LB_HDR;
			hdr_end += hl;
			roce_end += hl;
		}
	} else if (unlikely(ctrl)) {
		if (udp_end - (bth_off - 8) <= 8 + RTR_BTH_LEN + hl) {
			/* Cut right after the header, lengths cover it,
			 * extended headers are not there. */
			m->flags |= RTR_MF_LB_HDR | RTR_MF_LB_CTRL;
			hdr_end += hl;
			if (unlikely(hdr_end > udp_end || hdr_end > len ||
					    (m->flags & RTR_MF_TRIMMED)))
				return RTR_DROP_MALFORMED;
			return RTR_DROP_NONE;
		}
	} else if (unlikely(ctrl_exact) && ctrl_len && !(m->flags & RTR_MF_TRIMMED)) {
		if (unlikely(udp_end > len))
			return RTR_DROP_MALFORMED;
		m->flags |= RTR_MF_LB_HDR | RTR_MF_LB_CTRL;
		return RTR_DROP_NONE;
	}
	if (unlikely(m->flags & RTR_MF_TRIMMED)) {
		/* Headers only: the frame must still hold the whole BTH (and
		 * LB header); extended headers and payload are gone. */
		if (hdr_end <= len && len <= (hdr_end > MIN_FRAME ? hdr_end : MIN_FRAME))
			return RTR_DROP_NONE;
		/* Anything between: a frame cut in its payload, not trimmed. */
		return RTR_DROP_MALFORMED;
	}
	m->ext = e->flags;
	hdr_end += e->len;
	if (unlikely(hdr_end > roce_end || roce_end > len))
		return RTR_DROP_MALFORMED;
	return RTR_DROP_NONE;
}

enum rtr_drop_reason
rtr_parse(const uint8_t *frame, uint32_t len, uint32_t hash_seed, unsigned int parse_flags,
		struct rtr_meta *m)
{
	const uint8_t *l3;
	uint32_t off, avail, l4_off, l4_len, ports = 0, crc;
	uint16_t etype, frag = 0;
	uint8_t proto, tos;

	memset(m, 0, sizeof(*m));
	if (unlikely(len < ETH_HLEN))
		return RTR_DROP_MALFORMED;

	etype = ld_be16(frame + 12);
	off = ETH_HLEN;
	if (etype == ETYPE_VLAN || etype == ETYPE_QINQ) {
		if (unlikely(len < ETH_HLEN + VLAN_HLEN))
			return RTR_DROP_MALFORMED;
		m->flags |= RTR_MF_VLAN;
		etype = ld_be16(frame + ETH_HLEN + 2);
		off += VLAN_HLEN;
		/* A second stacked tag (QinQ): step over it (rtr_meta_pcp reads the outer). */
		if (unlikely(etype == ETYPE_VLAN || etype == ETYPE_QINQ)) {
			if (unlikely(len < ETH_HLEN + 2 * VLAN_HLEN))
				return RTR_DROP_MALFORMED;
			etype = ld_be16(frame + ETH_HLEN + VLAN_HLEN + 2);
			off += VLAN_HLEN;
		}
	}
	m->l3_off = (uint8_t)off;
	l3 = frame + off;
	avail = len - off;

	if (likely(etype == ETYPE_IPV4)) {
		uint32_t ihl, tot;

		if (unlikely(avail < IPV4_HLEN))
			return RTR_DROP_MALFORMED;
		ihl = (uint32_t)(l3[0] & 0x0f) << 2;
		tot = ld_be16(l3 + 2);
		/* ihl <= tot <= avail also keeps the options inside the frame. */
		if (unlikely((l3[0] >> 4) != 4 || ihl < IPV4_HLEN || tot < ihl || ihl > avail))
			return RTR_DROP_MALFORMED;
		if (unlikely(tot > avail)) {
			/* Only a trimmed RoCE header may be shorter than it says. */
			if (l3[9] != PROTO_UDP || (ld_be16(l3 + 6) & (IPV4_MF | IPV4_OFF_MASK)))
				return RTR_DROP_MALFORMED;
			m->flags |= RTR_MF_TRIMMED;
			tot = avail;
		}
		m->l3 = RTR_L3_IPV4;
		tos = l3[1];
		proto = l3[9];
		frag = ld_be16(l3 + 6) & (IPV4_MF | IPV4_OFF_MASK);
		if (frag != 0)
			m->flags |= RTR_MF_FRAG;
		l4_off = off + ihl;
		l4_len = tot - ihl;
		crc = rte_hash_crc_8byte(ld_raw64(l3 + 12), hash_seed);
	} else if (etype == ETYPE_IPV6) {
		uint32_t plen;

		if (unlikely(avail < IPV6_HLEN))
			return RTR_DROP_MALFORMED;
		plen = ld_be16(l3 + 4);
		if (unlikely((l3[0] >> 4) != 6))
			return RTR_DROP_MALFORMED;
		if (unlikely(plen + IPV6_HLEN > avail)) {
			if (l3[6] != PROTO_UDP)
				return RTR_DROP_MALFORMED;
			m->flags |= RTR_MF_TRIMMED;
			plen = avail - IPV6_HLEN;
		}
		m->l3 = RTR_L3_IPV6;
		tos = (uint8_t)(ld_be16(l3) >> 4);
		/* Extension headers are not walked: next header is the protocol. */
		proto = l3[6];
		l4_off = off + IPV6_HLEN;
		l4_len = plen;
		crc = rte_hash_crc_8byte(ld_raw64(l3 + 8), hash_seed);
		crc = rte_hash_crc_8byte(ld_raw64(l3 + 16), crc);
		crc = rte_hash_crc_8byte(ld_raw64(l3 + 24), crc);
		crc = rte_hash_crc_8byte(ld_raw64(l3 + 32), crc);
	} else if (etype == ETYPE_ARP) {
		if (unlikely(avail < ARP_LEN))
			return RTR_DROP_MALFORMED;
		m->l3 = RTR_L3_ARP;
		m->l4_off = (uint8_t)(off + ARP_LEN);
		return RTR_DROP_NONE;
	} else {
		return RTR_DROP_NOT_IP;
	}

	m->tos = tos;
	m->l4_proto = proto;
	m->l4_off = (uint8_t)l4_off;

	/* Later fragments carry no L4 header. */
	if ((proto == PROTO_UDP || proto == PROTO_TCP) && (frag & IPV4_OFF_MASK) == 0) {
		const uint8_t *l4 = frame + l4_off;
		uint32_t need = proto == PROTO_UDP ? UDP_HLEN : TCP_HLEN;

		if (unlikely(l4_len < need)) {
			/* A tiny first fragment may legitimately cut the header. */
			if (!(frag & IPV4_MF))
				return RTR_DROP_MALFORMED;
		} else {
			ports = ld_raw32(l4);
			m->sport = ld_be16(l4);
			m->dport = ld_be16(l4 + 2);
			m->flags |= RTR_MF_L4;
			if (proto == PROTO_UDP) {
				uint32_t ulen = ld_be16(l4 + 4);

				/* A first fragment holds only part of the datagram;
				 * a trimmed RoCE header too (checked below). */
				if (unlikely(ulen < UDP_HLEN ||
						    (ulen > l4_len && frag == 0 &&
								    !(m->flags & RTR_MF_TRIMMED))))
					return RTR_DROP_MALFORMED;
				if (unlikely(m->flags & RTR_MF_TRIMMED) &&
						(m->dport != RTR_ROCE_UDP_PORT || ulen <= l4_len))
					return RTR_DROP_MALFORMED;
				if (m->dport == RTR_ROCE_UDP_PORT && frag == 0) {
					enum rtr_drop_reason r;

					r = parse_roce(frame, len, l4_off + UDP_HLEN, l4_off + ulen,
							l4_off + l4_len, parse_flags, m);
					if (unlikely(r != RTR_DROP_NONE))
						return r;
				}
			}
		}
	}

	crc = rte_hash_crc_4byte(ports, crc);
	m->flow_hash = rtr_hash_mix(rte_hash_crc_1byte(proto, crc));
	return RTR_DROP_NONE;
}

uint32_t
rtr_flow_hash_reverse(const uint8_t *frame, const struct rtr_meta *m, uint32_t hash_seed)
{
	const uint8_t *l3 = frame + m->l3_off;
	uint32_t crc, ports;

	/* The key of rtr_parse with the addresses swapped, the ports kept:
	 * src IP | dst IP | sport | dport | proto, as the other direction's
	 * packet would have been hashed. */
	if (m->l3 == RTR_L3_IPV4) {
		uint8_t key[8];

		memcpy(key, l3 + 16, 4);
		memcpy(key + 4, l3 + 12, 4);
		crc = rte_hash_crc_8byte(ld_raw64(key), hash_seed);
	} else if (m->l3 == RTR_L3_IPV6) {
		crc = rte_hash_crc_8byte(ld_raw64(l3 + 24), hash_seed);
		crc = rte_hash_crc_8byte(ld_raw64(l3 + 32), crc);
		crc = rte_hash_crc_8byte(ld_raw64(l3 + 8), crc);
		crc = rte_hash_crc_8byte(ld_raw64(l3 + 16), crc);
	} else {
		return m->flow_hash;
	}
	/* Only read when rtr_parse did: without an L4 header (not TCP/UDP,
	 * a later fragment, an IP packet that ends at its header) the four
	 * bytes may lie past the frame. */
	ports = (m->flags & RTR_MF_L4) ? ld_raw32(l3 + (m->l4_off - m->l3_off)) : 0;
	crc = rte_hash_crc_4byte(ports, crc);
	return rtr_hash_mix(rte_hash_crc_1byte(m->l4_proto, crc));
}

void
rtr_parse_init(void)
{
	/* AVX512 falls back to SSE4.2 and then to the table, as the default
	 * handler's own order does. */
	rte_net_crc_set_alg(RTE_NET_CRC_AVX512);
}

bool
rtr_roce_icrc_ok(const uint8_t *frame, uint32_t len, const struct rtr_meta *m)
{
	/* The ICRC of ALGORITHMS.md 0: CRC-32 (Ethernet) over eight 0xff
	 * bytes, then IP header .. end of payload with the variant fields
	 * (TOS/TTL/checksum, traffic class/flow label/hop limit, UDP
	 * checksum, BTH byte 4) set to all ones; sent least significant byte
	 * first. Only for short packets (a copy is masked on the stack). */
	uint8_t buf[8 + 40 + 8 + 256];
	uint32_t ip_len, udp_len, n, crc;
	const uint8_t *l3 = frame + m->l3_off;
	uint8_t *p;

	if (!(m->flags & RTR_MF_ROCE) || (m->flags & RTR_MF_TRIMMED))
		return false;
	udp_len = (uint32_t)frame[m->l4_off + 4] << 8 | frame[m->l4_off + 5];
	if (udp_len < 8 + RTR_BTH_LEN + RTR_ICRC_LEN || m->l4_off + udp_len > len)
		return false;
	ip_len = m->l4_off - m->l3_off;
	n = ip_len + udp_len - RTR_ICRC_LEN;
	if (8 + n > sizeof(buf))
		return false;
	memset(buf, 0xff, 8);
	p = buf + 8;
	memcpy(p, l3, n);
	if (m->l3 == RTR_L3_IPV4) {
		p[1] = 0xff;          /* TOS */
		p[8] = 0xff;          /* TTL */
		p[10] = p[11] = 0xff; /* header checksum */
	} else {
		p[0] |= 0x0f;              /* traffic class (low nibble) */
		p[1] = p[2] = p[3] = 0xff; /* traffic class (high nibble), flow label */
		p[7] = 0xff;               /* hop limit */
	}
	p[ip_len + 6] = p[ip_len + 7] = 0xff; /* UDP checksum */
	p[ip_len + 8 + 4] = 0xff;             /* BTH byte 4 */
	crc = rte_net_crc_calc(buf, 8 + n, RTE_NET_CRC32_ETH);
	p = (uint8_t *)(uintptr_t)(frame + m->l4_off + udp_len - RTR_ICRC_LEN);
	return ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			       (uint32_t)p[3] << 24) == crc;
}
