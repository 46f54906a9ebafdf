/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The per-packet metadata, struct rtr_meta, and the values of its fields:
 * its one home. The parser fills it (rtr_parse.h), the data path keeps it
 * in the mbuf (rtr_mbuf.h: where, and the accessor), and every stage reads
 * it. Plain C, no DPDK: unit tests and fuzzers use it with plain buffers.
 */
#ifndef RTR_META_H
#define RTR_META_H

#include <stdbool.h>
#include <stdint.h>

/* m->l3 */
enum rtr_l3 {
	RTR_L3_NONE = 0,
	RTR_L3_IPV4,
	RTR_L3_IPV6,
	RTR_L3_ARP,
};

/* m->flags. What is cheap to derive is not kept: IP ECN = CE is
 * rtr_meta_ce (from tos), a broadcast/multicast destination MAC is
 * rtr_frame_l2_bcast (from the frame). */
#define RTR_MF_VLAN 0x01 /* one 802.1Q/802.1ad tag was present */
#define RTR_MF_L4   0x02 /* UDP/TCP ports were read (not a later fragment) */
#define RTR_MF_ROCE 0x04 /* UDP dport 4791 with a whole BTH */
/* RoCE header cut by a switch: the frame ends after the BTH (+ the LB
 * header) although the IP/UDP lengths say more (doc/egress.md) */
#define RTR_MF_TRIMMED 0x08
#define RTR_MF_FRAG    0x10 /* IPv4 fragment (ports only hashed on the first) */
/* an LB header follows the BTH (the parse flags' layout: lib/lb's shared
 * LB layout, lib/lb/core/rtr_lb_wire.h) */
#define RTR_MF_LB_HDR 0x20
/* with RTR_MF_LB_HDR: an LB control packet (cut after the header; the
 * parse flags' control ops), which the egress sends in its control class */
#define RTR_MF_LB_CTRL 0x40
/* held by an LB mode (a reorder queue) and counted, while held, in the
 * egress's shared pool and its ingress's PFC bytes (rtr_egress_hold) */
#define RTR_MF_HELD 0x80

/* m->ext: extended transport headers present after the BTH, by opcode */
#define RTR_EXT_RETH       0x01 /* 16 bytes */
#define RTR_EXT_AETH       0x02 /* 4 bytes */
#define RTR_EXT_IMMDT      0x04 /* 4 bytes */
#define RTR_EXT_ATOMICETH  0x08 /* 28 bytes */
#define RTR_EXT_ATOMACKETH 0x10 /* 8 bytes */
#define RTR_EXT_DETH       0x20 /* 8 bytes (UD) */
#define RTR_EXT_IETH       0x40 /* 4 bytes */
#define RTR_EXT_RDETH      0x80 /* 4 bytes (RD, never seen on RoCEv2 in practice) */

/*
 * Per-packet metadata: 24 bytes, the room DPDK 22.11 leaves contiguous in the
 * mbuf's dynamic-field area once a PMD has registered the 8-byte RX
 * timestamp (net_pcap does at probe). What is cheap to read from the frame
 * again is not kept: the BTH DestQP (rtr_meta_dqp) and the 802.1p priority
 * (rtr_meta_pcp). Offsets are from the start of the frame.
 */
struct rtr_meta {
	uint32_t flow_hash; /* seeded CRC32C of the 5-tuple, finalised (rtr_hash_mix) */
	uint32_t psn;       /* BTH PSN (24 bits) */
	uint16_t sport;     /* L4 source port (0 if none) */
	uint16_t dport;     /* L4 destination port (0 if none) */
	uint8_t in_port;    /* set by the caller (pipeline), not the parser */
	uint8_t out_port;   /* set by routing */
	uint8_t l3_off;     /* bytes of Ethernet + VLAN */
	uint8_t l4_off;     /* l3_off + IPv4 header (with options) or 40 for IPv6 */
	uint8_t l3;         /* enum rtr_l3 */
	uint8_t l4_proto;   /* IPv4 protocol / IPv6 next header */
	uint8_t flags;      /* RTR_MF_* */
	uint8_t tos;        /* IPv4 TOS / IPv6 traffic class: DSCP << 2 | ECN */
	uint8_t bth_opcode; /* valid when RTR_MF_ROCE */
	uint8_t bth_b4;     /* BTH byte 4 (FECN/BECN/Resv6; LB path_id) */
	uint8_t bth_b8;     /* BTH byte 8 (AckReq | Resv7) */
	uint8_t ext;        /* RTR_EXT_* */
};

_Static_assert(sizeof(struct rtr_meta) == 24, "rtr_meta must stay 24 bytes");

/* BTH DestQP (24 bits), read from the frame (valid when RTR_MF_ROCE). */
static inline uint32_t
rtr_meta_dqp(const uint8_t *frame, const struct rtr_meta *m)
{
	const uint8_t *b = frame + m->l4_off + 8;

	return (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7];
}

/* 802.1p priority of the outer tag, 0 when untagged. */
static inline uint8_t
rtr_meta_pcp(const uint8_t *frame, const struct rtr_meta *m)
{
	return (m->flags & RTR_MF_VLAN) ? frame[14] >> 5 : 0;
}

/* IP ECN field is CE (11): IPv4 TOS / IPv6 traffic class (0 when not IP). */
static inline bool
rtr_meta_ce(const struct rtr_meta *m)
{
	return (m->tos & 3) == 3;
}

/* Destination MAC is broadcast or multicast. */
static inline bool
rtr_frame_l2_bcast(const uint8_t *frame)
{
	return frame[0] & 1;
}

/* Offset of the BTH in the frame (valid when RTR_MF_ROCE). */
static inline unsigned int
rtr_meta_bth_off(const struct rtr_meta *m)
{
	return m->l4_off + 8u;
}

/* IPv4 header with options (longer than 20 bytes). */
static inline bool
rtr_meta_ip_opts(const struct rtr_meta *m)
{
	return m->l3 == RTR_L3_IPV4 && m->l4_off - m->l3_off > 20;
}

#endif /* RTR_META_H */
