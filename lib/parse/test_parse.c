/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit test of the parser. Frames are built by hand, byte by byte, for every
 * combination of L2 (untagged / 802.1Q / QinQ), L3 (IPv4 / IPv4 with 40 bytes
 * of options / IPv6) and L4 (UDP, several RoCE opcodes, TCP, ICMP); each is
 * parsed whole and then at every truncated length from a heap buffer of
 * exactly that size, so AddressSanitizer catches any read past the end.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash_crc.h>

#include "rtr_common.h"
#include "rtr_cksum.h"
#include "rtr_lb_wire.h"
#include "rtr_parse.h"
#include "rtr_test.h"

#define SEED 0x5eed1234u

/* CHECK without a message of its own (the condition text is printed). */
#define CHECK_TRUE(c) CHECK(c, "%s", "")
#define MAXF          2048

enum l2_kind { L2_UNTAGGED, L2_VLAN, L2_QINQ, L2_N };
enum l3_kind { L3_V4, L3_V4OPT, L3_V6, L3_N };
enum l4_kind {
	L4_UDP,
	L4_SEND,
	L4_WRITE,
	L4_READ,
	L4_ACK,
	L4_SEND_IMM,
	L4_CNP,
	L4_TCP,
	L4_ICMP,
	L4_N
};

static const char *const l2_names[] = {"untagged", "vlan", "qinq"};
static const char *const l3_names[] = {"ipv4", "ipv4+opts", "ipv6"};
static const char *const l4_names[] = {"udp", "roce-send", "roce-write", "roce-read", "roce-ack",
		"roce-send-imm", "roce-cnp", "tcp", "icmp"};

/* What a frame is made of. */
struct fspec {
	int l2, l3, l4;
	int opcode;     /* RoCE opcode; -1: from l4 */
	uint8_t tos;    /* TOS / traffic class */
	uint8_t b4, b8; /* BTH bytes 4 and 8 */
	uint16_t sport;
	uint16_t payload; /* bytes after the extended headers */
	uint16_t frag;    /* IPv4 flags/offset field (DF = 0x4000) */
	int cw_data;      /* insert a 4-byte ConWeave header not counted in lengths */
	int cw_ctrl;      /* ConWeave control: cut after the 4-byte header, counted */
	int no_icrc;      /* leave the ICRC out */
	uint16_t pad;     /* Ethernet padding after the IP datagram */
	uint32_t src_ip;  /* last byte varies the flow */
};

/* Where the builder put things. */
struct fexp {
	uint32_t len, l3_off, l4_off, bth_off, ext_len;
	uint8_t proto, ext;
	int roce;
};

static uint8_t
l4_opcode(int l4)
{
	switch (l4) {
	case L4_SEND:
		return 0x04;
	case L4_WRITE:
		return 0x06;
	case L4_READ:
		return 0x0c;
	case L4_ACK:
		return 0x11;
	case L4_SEND_IMM:
		return 0x05;
	case L4_CNP:
		return 0x81;
	default:
		return 0;
	}
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void
spec_init(struct fspec *s, int l2, int l3, int l4)
{
	memset(s, 0, sizeof(*s));
	s->l2 = l2;
	s->l3 = l3;
	s->l4 = l4;
	s->opcode = -1;
	s->tos = 26 << 2; /* DSCP 26, not ECN-capable */
	s->sport = 0xc123;
	s->payload = 64;
	s->frag = 0x4000;
	s->src_ip = 1;
}

/* Builds the frame into buf (MAXF bytes); returns its length. */
static uint32_t
build(const struct fspec *s, uint8_t *buf, struct fexp *e)
{
	uint8_t *p = buf, *ip, *l4;
	uint32_t ihl = s->l3 == L3_V4OPT ? 60 : 20, l3len, l4len = 0, ext = 0, i;
	int roce = s->l4 >= L4_SEND && s->l4 <= L4_CNP;
	uint8_t op = s->opcode >= 0 ? (uint8_t)s->opcode : l4_opcode(s->l4);
	uint8_t proto;

	memset(buf, 0, MAXF);
	memset(e, 0, sizeof(*e));
	/* Ethernet */
	memcpy(p, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	p += 12;
	if (s->l2 == L2_VLAN) {
		put16(p, 0x8100);
		put16(p + 2, (5 << 13) | 100);
		p += 4;
	} else if (s->l2 == L2_QINQ) {
		put16(p, 0x88a8);
		put16(p + 2, (3 << 13) | 10);
		put16(p + 4, 0x8100);
		put16(p + 6, (5 << 13) | 100);
		p += 8;
	}
	put16(p, s->l3 == L3_V6 ? 0x86dd : 0x0800);
	p += 2;
	e->l3_off = (uint32_t)(p - buf);
	ip = p;
	p += s->l3 == L3_V6 ? 40 : ihl;
	e->l4_off = (uint32_t)(p - buf);
	l4 = p;

	switch (s->l4) {
	case L4_TCP:
		proto = 6;
		put16(l4, s->sport);
		put16(l4 + 2, 80);
		l4[12] = 5 << 4;
		l4len = 20 + s->payload;
		break;
	case L4_ICMP:
		proto = s->l3 == L3_V6 ? 58 : 1;
		l4[0] = 8;
		l4len = 8 + s->payload;
		break;
	default:
		proto = 17;
		put16(l4, s->sport);
		put16(l4 + 2, roce ? RTR_ROCE_UDP_PORT : 5000);
		l4len = 8;
		if (roce) {
			uint8_t *bth = l4 + 8;
			int x = rtr_bth_ext_len(op, &e->ext);

			ext = x < 0 ? 0 : (uint32_t)x;
			bth[0] = op;
			bth[1] = 0x40;
			put16(bth + 2, 0xffff);
			put32(bth + 4, 0x123456);
			bth[4] = s->b4;
			put32(bth + 8, 0xabcdef);
			bth[8] = s->b8;
			e->bth_off = e->l4_off + 8;
			e->ext_len = ext;
			l4len += 12;
			if (s->cw_ctrl) {
				put16(l4 + l4len, 0x1111);
				put16(l4 + l4len + 2, 0x2222);
				l4len += 4;
				e->ext = 0;
				put16(l4 + 4, (uint16_t)l4len);
				break;
			}
			/* extended headers: recognisable filler */
			for (i = 0; i < ext; i++)
				l4[l4len + i] = (uint8_t)(0xe0 + i);
			l4len += ext;
		}
		for (i = 0; i < s->payload; i++)
			l4[l4len + i] = (uint8_t)i;
		l4len += s->payload;
		if (roce && !s->no_icrc) {
			put32(l4 + l4len, 0xdeadbeef); /* not checked by the parser */
			l4len += 4;
		}
		put16(l4 + 4, (uint16_t)l4len);
		break;
	}
	e->proto = proto;
	e->roce = roce;

	if (s->l3 == L3_V6) {
		put32(ip, (6u << 28) | ((uint32_t)s->tos << 20) | 0x12345);
		put16(ip + 4, (uint16_t)l4len);
		ip[6] = proto;
		ip[7] = 64;
		memcpy(ip + 8, "\xfd\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", 15);
		ip[23] = (uint8_t)s->src_ip;
		memcpy(ip + 24, "\xfd\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01", 15);
		ip[39] = 2;
		l3len = 40 + l4len;
	} else {
		l3len = ihl + l4len;
		ip[0] = (uint8_t)(0x40 | (ihl / 4));
		ip[1] = s->tos;
		put16(ip + 2, (uint16_t)l3len);
		put16(ip + 4, 0x1234);
		put16(ip + 6, s->frag);
		ip[8] = 64;
		ip[9] = proto;
		put32(ip + 12, 0x0a000000 | s->src_ip);
		put32(ip + 16, 0x0a000102);
		for (i = 20; i < ihl; i++)
			ip[i] = 1; /* NOP options */
	}
	p = ip + l3len;
	if (s->cw_data) {
		/* Insert 4 bytes after the BTH without touching the lengths. */
		uint8_t *cw = buf + e->bth_off + 12;

		memmove(cw + 4, cw, (size_t)(p - cw));
		put16(cw, 0x3333);
		put16(cw + 2, 0x4444);
		p += 4;
	}
	p += s->pad;
	e->len = (uint32_t)(p - buf);
	return e->len;
}

static unsigned long fast_checked, fast_mismatch;

static enum rtr_drop_reason
parse_copy(const uint8_t *buf, uint32_t len, uint32_t seed, unsigned int flags, struct rtr_meta *m)
{
	/* An exact-size heap copy: ASan flags any read at buf[len]. */
	uint8_t *c = malloc(len ? len : 1);
	enum rtr_drop_reason r;

	struct rtr_meta fm;
	enum rtr_drop_reason fr;

	memcpy(c, buf, len);
	r = rtr_parse(c, len, seed, flags, m);
	/* The data path's inline parser: the same answer on every frame. */
	memset(&fm, 0xa5, sizeof(fm));
	fr = rtr_parse_fast(c, len, seed, flags, &fm);
	fast_checked++;
	if (fr != r || memcmp(&fm, m, sizeof(fm)) != 0) {
		fast_mismatch++;
		if (fast_mismatch <= 5)
			fprintf(stderr, "rtr_parse_fast differs: len %u flags %#x: %d/%d\n", len,
					flags, (int)fr, (int)r);
	}
	free(c);
	return r;
}

/* The documented hash: rte_hash_crc over src | dst | sport | dport | proto,
 * then the murmur3 finaliser (written out here, not rtr_hash_mix). */
static uint32_t
ref_hash(const uint8_t *frame, const struct fexp *e, int v6, uint16_t sport, uint16_t dport,
		uint32_t seed)
{
	uint8_t key[37];
	uint32_t n = v6 ? 32 : 8;

	memcpy(key, frame + e->l3_off + (v6 ? 8 : 12), n);
	put16(key + n, sport);
	put16(key + n + 2, dport);
	key[n + 4] = e->proto;
	uint32_t h = rte_hash_crc(key, n + 5, seed);

	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static unsigned int trimmed_cuts;

static void
check_truncations(const uint8_t *buf, uint32_t full, unsigned int flags, const char *what)
{
	struct rtr_meta m;
	uint32_t n, hdr_end = 0, plain_from = full;

	/* A RoCE frame cut right after its BTH (and ConWeave header), up to
	 * Ethernet padding, is a trimmed header (doc/egress.md): accepted and
	 * flagged. A ConWeave DATA frame (4 bytes longer than its IP datagram)
	 * cut inside those 4 bytes has lost the length signature of its
	 * header: it is plain RoCE (an RNIC's frame with Resv7 bits set).
	 * Every other cut is malformed. */
	if (parse_copy(buf, full, SEED, flags, &m) == RTR_DROP_NONE && (m.flags & RTR_MF_ROCE)) {
		hdr_end = m.l4_off + 8u + RTR_BTH_LEN +
			  ((m.flags & RTR_MF_LB_HDR) ? RTR_LB_HDR_LEN : 0);
		if ((m.flags & RTR_MF_LB_HDR) && ((m.bth_b8 >> 5) & 3) == RTR_LB_OP_DATA)
			plain_from = full - RTR_LB_HDR_LEN;
	}
	for (n = 0; n < full; n++) {
		enum rtr_drop_reason r = parse_copy(buf, n, SEED, flags, &m);
		bool trimmed_ok = hdr_end && n >= hdr_end && n <= (hdr_end > 60 ? hdr_end : 60) &&
				  !(m.flags & RTR_MF_LB_HDR && ((m.bth_b8 >> 5) & 3) >= 2);

		if (n >= plain_from) {
			CHECK(r == RTR_DROP_NONE && !(m.flags & (RTR_MF_LB_HDR | RTR_MF_TRIMMED)),
					"%s cut to %u of %u (no header signature): %d", what, n,
					full, r);
		} else if (trimmed_ok) {
			CHECK(r == RTR_DROP_NONE && (m.flags & RTR_MF_TRIMMED) && m.ext == 0,
					"%s cut to %u of %u (trimmed header): %d", what, n, full,
					r);
			trimmed_cuts++;
		} else {
			CHECK(r == RTR_DROP_MALFORMED, "%s cut to %u of %u: %d", what, n, full, r);
		}
	}
}

static void
test_combinations(void)
{
	uint8_t buf[MAXF];
	struct fspec s;
	struct fexp e;
	struct rtr_meta m;
	char what[96];
	int l2, l3, l4;

	for (l2 = 0; l2 < L2_N; l2++) {
		for (l3 = 0; l3 < L3_N; l3++) {
			for (l4 = 0; l4 < L4_N; l4++) {
				uint32_t len, fl;
				int v6 = l3 == L3_V6;

				spec_init(&s, l2, l3, l4);
				len = build(&s, buf, &e);
				snprintf(what, sizeof(what), "%s/%s/%s", l2_names[l2], l3_names[l3],
						l4_names[l4]);
				CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
				CHECK_EQ(m.l3_off, e.l3_off);
				CHECK_EQ(m.l4_off, e.l4_off);
				CHECK_EQ(m.l3, v6 ? RTR_L3_IPV6 : RTR_L3_IPV4);
				CHECK_EQ(m.l4_proto, e.proto);
				CHECK_EQ(m.tos, s.tos);
				CHECK_EQ(m.in_port, 0);
				CHECK_EQ(m.out_port, 0);
				fl = 0;
				if (l2 != L2_UNTAGGED)
					fl |= RTR_MF_VLAN;
				CHECK_EQ(rtr_meta_ip_opts(&m), l3 == L3_V4OPT);
				if (l4 != L4_ICMP)
					fl |= RTR_MF_L4;
				if (e.roce)
					fl |= RTR_MF_ROCE;
				CHECK(m.flags == fl, "%s: flags %#x want %#x", what, m.flags, fl);
				CHECK_EQ(rtr_meta_pcp(buf, &m), l2 == L2_VLAN   ? 5
								: l2 == L2_QINQ ? 3
										: 0);
				if (l4 == L4_ICMP) {
					CHECK_EQ(m.sport, 0);
					CHECK_EQ(m.dport, 0);
					CHECK_EQ(m.flow_hash, ref_hash(buf, &e, v6, 0, 0, SEED));
				} else {
					uint16_t dp = l4 == L4_TCP ? 80
						      : e.roce     ? RTR_ROCE_UDP_PORT
								   : 5000;

					CHECK_EQ(m.sport, s.sport);
					CHECK_EQ(m.dport, dp);
					CHECK(m.flow_hash == ref_hash(buf, &e, v6, s.sport, dp,
									     SEED),
							"%s: hash", what);
				}
				if (e.roce) {
					CHECK_EQ(rtr_meta_bth_off(&m), e.bth_off);
					CHECK_EQ(m.bth_opcode, l4_opcode(l4));
					CHECK_EQ(rtr_meta_dqp(buf, &m), 0x123456);
					CHECK_EQ(m.psn, 0xabcdef);
					CHECK_EQ(m.bth_b4, 0);
					CHECK_EQ(m.bth_b8, 0);
					CHECK_EQ(m.ext, e.ext);
					CHECK_EQ(rtr_meta_is_roce_data(&m),
							l4 != L4_ACK && l4 != L4_CNP);
				} else {
					CHECK_EQ(m.bth_opcode, 0);
					CHECK_EQ(m.psn, 0);
					CHECK_EQ(m.ext, 0);
					CHECK_TRUE(!rtr_meta_is_roce_data(&m));
				}
				check_truncations(buf, len, 0, what);
				check_truncations(buf, len, RTR_LB_PARSE_HDR, what);
			}
		}
	}
}

static void
test_ext_table(void)
{
	uint8_t f = 0xff;

	CHECK_EQ(rtr_bth_ext_len(0x00, &f), 0);
	CHECK_EQ(f, 0);
	CHECK_EQ(rtr_bth_ext_len(0x06, &f), 16);
	CHECK_EQ(f, RTR_EXT_RETH);
	CHECK_EQ(rtr_bth_ext_len(0x0a, &f), 16);
	CHECK_EQ(rtr_bth_ext_len(0x0b, &f), 20);
	CHECK_EQ(f, RTR_EXT_RETH | RTR_EXT_IMMDT);
	CHECK_EQ(rtr_bth_ext_len(0x0c, &f), 16);
	CHECK_EQ(f, RTR_EXT_RETH);
	CHECK_EQ(rtr_bth_ext_len(0x0d, &f), 4);
	CHECK_EQ(f, RTR_EXT_AETH);
	CHECK_EQ(rtr_bth_ext_len(0x0e, &f), 0);
	CHECK_EQ(rtr_bth_ext_len(0x0f, &f), 4);
	CHECK_EQ(rtr_bth_ext_len(0x10, &f), 4);
	CHECK_EQ(rtr_bth_ext_len(RTR_BTH_OP_RC_ACK, &f), 4);
	CHECK_EQ(f, RTR_EXT_AETH);
	CHECK_EQ(rtr_bth_ext_len(RTR_BTH_OP_RC_ATOMIC_ACK, &f), 12);
	CHECK_EQ(f, RTR_EXT_AETH | RTR_EXT_ATOMACKETH);
	CHECK_EQ(rtr_bth_ext_len(0x13, &f), 28);
	CHECK_EQ(f, RTR_EXT_ATOMICETH);
	CHECK_EQ(rtr_bth_ext_len(0x14, &f), 28);
	CHECK_EQ(rtr_bth_ext_len(0x03, &f), 4);
	CHECK_EQ(f, RTR_EXT_IMMDT);
	CHECK_EQ(rtr_bth_ext_len(0x09, &f), 4);
	CHECK_EQ(rtr_bth_ext_len(0x16, &f), 4);
	CHECK_EQ(f, RTR_EXT_IETH);
	CHECK_EQ(rtr_bth_ext_len(0x17, &f), 4);
	CHECK_EQ(rtr_bth_ext_len(0x15, &f), -1);
	CHECK_EQ(f, 0);
	/* UC mirrors RC sends and writes only. */
	CHECK_EQ(rtr_bth_ext_len(0x26, &f), 16);
	CHECK_EQ(rtr_bth_ext_len(0x2b, &f), 20);
	CHECK_EQ(rtr_bth_ext_len(0x2c, &f), -1);
	CHECK_EQ(rtr_bth_ext_len(0x31, &f), -1);
	/* RD: RDETH always, DETH on requests. */
	CHECK_EQ(rtr_bth_ext_len(0x44, &f), 12);
	CHECK_EQ(f, RTR_EXT_RDETH | RTR_EXT_DETH);
	CHECK_EQ(rtr_bth_ext_len(0x4c, &f), 28);
	CHECK_EQ(rtr_bth_ext_len(0x51, &f), 8);
	CHECK_EQ(f, RTR_EXT_RDETH | RTR_EXT_AETH);
	CHECK_EQ(rtr_bth_ext_len(0x53, &f), 40);
	CHECK_EQ(rtr_bth_ext_len(0x55, &f), 12);
	/* UD */
	CHECK_EQ(rtr_bth_ext_len(0x64, &f), 8);
	CHECK_EQ(f, RTR_EXT_DETH);
	CHECK_EQ(rtr_bth_ext_len(0x65, &f), 12);
	CHECK_EQ(f, RTR_EXT_DETH | RTR_EXT_IMMDT);
	CHECK_EQ(rtr_bth_ext_len(0x60, &f), -1);
	CHECK_EQ(rtr_bth_ext_len(RTR_BTH_OP_CNP, &f), 0);
	CHECK_EQ(f, 0);
	CHECK_EQ(rtr_bth_ext_len(0x80, NULL), -1);
	CHECK_EQ(rtr_bth_ext_len(0xa0, NULL), -1); /* XRC is not supported */
	CHECK_EQ(rtr_bth_ext_len(0xff, NULL), -1);
}

/* Every opcode, with exactly its extended headers and no payload. */
static void
test_every_opcode(void)
{
	uint8_t buf[MAXF];
	struct fspec s;
	struct fexp e;
	struct rtr_meta m;
	char what[64];
	int op;

	for (op = 0; op < 256; op++) {
		uint32_t len;
		uint8_t fl;
		int x = rtr_bth_ext_len((uint8_t)op, &fl);

		spec_init(&s, L2_UNTAGGED, L3_V4, L4_SEND);
		s.opcode = op;
		s.payload = 0;
		len = build(&s, buf, &e);
		snprintf(what, sizeof(what), "opcode %#x", op);
		CHECK(parse_copy(buf, len, SEED, 0, &m) == RTR_DROP_NONE, "%s", what);
		CHECK(m.flags & RTR_MF_ROCE, "%s", what);
		CHECK_EQ(m.bth_opcode, op);
		CHECK_EQ(m.ext, x < 0 ? 0 : fl);
		check_truncations(buf, len, 0, what);

		/* Extended headers that end exactly at the UDP end: still fine. */
		s.no_icrc = 1;
		len = build(&s, buf, &e);
		CHECK(parse_copy(buf, len, SEED, 0, &m) == RTR_DROP_NONE, "%s no icrc", what);
		if (x > 0) {
			/* One byte short inside IP/UDP: UDP length 1 less, frame 1 less. */
			uint8_t *udp = buf + e.l4_off;
			uint16_t ulen = (uint16_t)((udp[4] << 8 | udp[5]) - 1);

			put16(udp + 4, ulen);
			put16(buf + e.l3_off + 2, (uint16_t)(20 + ulen));
			CHECK(parse_copy(buf, len - 1, SEED, 0, &m) == RTR_DROP_MALFORMED,
					"%s ext cut", what);
		}
	}
}

static void
test_ipv4_lies(void)
{
	uint8_t buf[MAXF];
	struct fspec s;
	struct fexp e;
	struct rtr_meta m;
	uint32_t len, ihl;
	uint8_t *ip;

	spec_init(&s, L2_UNTAGGED, L3_V4, L4_SEND);
	len = build(&s, buf, &e);
	ip = buf + e.l3_off;
	/* total length one byte longer than the frame */
	put16(ip + 2, (uint16_t)(len - e.l3_off + 1));
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
	put16(ip + 2, 0xffff);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
	/* smaller than the header */
	put16(ip + 2, 19);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
	put16(ip + 2, 0);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
	/* exactly the header: an empty UDP datagram does not fit */
	put16(ip + 2, 20);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
	/* shorter than the frame but covering UDP: frame has padding, UDP lies */
	put16(ip + 2, (uint16_t)(len - e.l3_off - 1));
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);

	/* IHL below 5 */
	for (ihl = 0; ihl < 5; ihl++) {
		len = build(&s, buf, &e);
		buf[e.l3_off] = (uint8_t)(0x40 | ihl);
		CHECK(parse_copy(buf, len, SEED, 0, &m) == RTR_DROP_MALFORMED, "ihl %u", ihl);
		/* ICMP: nothing after the IP header would catch it */
		buf[e.l3_off + 9] = 1;
		CHECK(parse_copy(buf, len, SEED, 0, &m) == RTR_DROP_MALFORMED, "icmp ihl %u", ihl);
	}
	/* IHL 15 in a frame that ends after 40 bytes of IP */
	len = build(&s, buf, &e);
	buf[e.l3_off] = 0x4f;
	put16(buf + e.l3_off + 2, 40);
	CHECK_EQ(parse_copy(buf, e.l3_off + 40, SEED, 0, &m), RTR_DROP_MALFORMED);
	/* IHL 15 with total length covering it but the frame shorter */
	put16(buf + e.l3_off + 2, 60);
	CHECK_EQ(parse_copy(buf, e.l3_off + 59, SEED, 0, &m), RTR_DROP_MALFORMED);
	/* IHL 15, total 60, proto ICMP: fine (options, no payload) */
	buf[e.l3_off + 9] = 1;
	CHECK_EQ(parse_copy(buf, e.l3_off + 60, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_EQ(m.l4_off, e.l3_off + 60);
	CHECK_TRUE(rtr_meta_ip_opts(&m));

	/* wrong IP versions */
	len = build(&s, buf, &e);
	buf[e.l3_off] = 0x65;
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
	buf[e.l3_off] = 0x05;
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
	spec_init(&s, L2_VLAN, L3_V6, L4_SEND);
	len = build(&s, buf, &e);
	buf[e.l3_off] = (uint8_t)((buf[e.l3_off] & 0x0f) | 0x40);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
	/* IPv6 payload length beyond the frame */
	len = build(&s, buf, &e);
	put16(buf + e.l3_off + 4, (uint16_t)(len - e.l3_off - 40 + 1));
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
	/* IPv6 payload length 0 with UDP: no room for the header */
	put16(buf + e.l3_off + 4, 0);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
}

static void
test_udp_lies(void)
{
	uint8_t buf[MAXF];
	struct fspec s;
	struct fexp e;
	struct rtr_meta m;
	uint32_t len, l3;
	uint8_t *udp;
	int i;

	for (i = 0; i < 2; i++) {
		spec_init(&s, L2_UNTAGGED, i ? L3_V6 : L3_V4, L4_WRITE);
		len = build(&s, buf, &e);
		l3 = len - e.l4_off; /* IP payload */
		udp = buf + e.l4_off;
		put16(udp + 4, 0);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
		put16(udp + 4, 7);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
		put16(udp + 4, (uint16_t)(l3 + 1));
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
		put16(udp + 4, 0xffff);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
		/* BTH does not fit in the UDP length */
		put16(udp + 4, 8 + 11);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
		/* BTH fits but the RETH does not */
		put16(udp + 4, 8 + 12 + 15);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
		/* RETH exactly fits: a trimmed WRITE FIRST is still RoCE */
		put16(udp + 4, 8 + 12 + 16);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
		CHECK_TRUE(m.flags & RTR_MF_ROCE);
		CHECK_EQ(m.ext, RTR_EXT_RETH);
		/* the real length */
		put16(udp + 4, (uint16_t)l3);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);

		/* Non-RoCE UDP: shorter UDP length than IP payload is legal. */
		spec_init(&s, L2_UNTAGGED, i ? L3_V6 : L3_V4, L4_UDP);
		len = build(&s, buf, &e);
		udp = buf + e.l4_off;
		put16(udp + 4, 8);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
		put16(udp + 4, 7);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
		put16(udp + 4, (uint16_t)(len - e.l4_off + 1));
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
	}

	/* TCP needs 20 bytes inside the IP payload. */
	spec_init(&s, L2_UNTAGGED, L3_V4, L4_TCP);
	s.payload = 0;
	len = build(&s, buf, &e);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	put16(buf + e.l3_off + 2, 20 + 19);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);
}

static void
test_padding(void)
{
	uint8_t buf[MAXF];
	struct fspec s;
	struct fexp e;
	struct rtr_meta m, m2;
	uint32_t len;

	/* A short ICMP echo padded to the 60-byte Ethernet minimum. */
	spec_init(&s, L2_UNTAGGED, L3_V4, L4_ICMP);
	s.payload = 4;
	s.pad = 60 - (14 + 20 + 12);
	len = build(&s, buf, &e);
	CHECK_EQ(len, 60);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	/* RoCE followed by padding: same result as without. */
	spec_init(&s, L2_VLAN, L3_V4, L4_ACK);
	len = build(&s, buf, &e);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	s.pad = 10;
	len = build(&s, buf, &e);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m2), RTR_DROP_NONE);
	CHECK_TRUE(memcmp(&m, &m2, sizeof(m)) == 0);
}

static void
test_fragments(void)
{
	uint8_t buf[MAXF];
	struct fspec s;
	struct fexp e;
	struct rtr_meta m;
	uint32_t len, h0;

	/* First fragment: ports read, flagged, not RoCE (RoCE is never fragmented). */
	spec_init(&s, L2_UNTAGGED, L3_V4, L4_SEND);
	s.frag = 0x2000;
	len = build(&s, buf, &e);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_EQ(m.flags, RTR_MF_FRAG | RTR_MF_L4);
	CHECK_EQ(m.sport, s.sport);
	CHECK_EQ(m.dport, RTR_ROCE_UDP_PORT);
	CHECK_EQ(m.flow_hash, ref_hash(buf, &e, 0, s.sport, RTR_ROCE_UDP_PORT, SEED));
	/* In a first fragment the UDP length covers the whole datagram. */
	put16(buf + e.l4_off + 4, 3000);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_EQ(m.flags, RTR_MF_FRAG | RTR_MF_L4);
	put16(buf + e.l4_off + 4, 7);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_MALFORMED);

	/* A tiny first fragment that cuts the UDP header: forwarded, no ports. */
	put16(buf + e.l3_off + 2, 20 + 4);
	CHECK_EQ(parse_copy(buf, e.l3_off + 24, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_EQ(m.flags, RTR_MF_FRAG);
	CHECK_EQ(m.sport, 0);
	/* The same without MF is an inconsistent datagram. */
	put16(buf + e.l3_off + 6, 0x4000);
	CHECK_EQ(parse_copy(buf, e.l3_off + 24, SEED, 0, &m), RTR_DROP_MALFORMED);

	/* Later fragments: no ports, hash over the addresses and proto only. */
	spec_init(&s, L2_VLAN, L3_V4, L4_UDP);
	s.frag = 0x2000 | 185;
	len = build(&s, buf, &e);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_EQ(m.flags, RTR_MF_FRAG | RTR_MF_VLAN);
	CHECK_EQ(m.sport, 0);
	CHECK_EQ(m.dport, 0);
	h0 = m.flow_hash;
	CHECK_EQ(h0, ref_hash(buf, &e, 0, 0, 0, SEED));
	s.frag = 370; /* last fragment: offset, no MF */
	len = build(&s, buf, &e);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_EQ(m.flags, RTR_MF_FRAG | RTR_MF_VLAN);
	CHECK_EQ(m.flow_hash, h0);
	/* A later fragment too short for a UDP header is still fine. */
	put16(buf + e.l3_off + 2, 20 + 3);
	CHECK_EQ(parse_copy(buf, e.l3_off + 23, SEED, 0, &m), RTR_DROP_NONE);
	/* DF alone is not a fragment */
	s.frag = 0x4000;
	len = build(&s, buf, &e);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_EQ(m.flags, RTR_MF_L4 | RTR_MF_VLAN);
}

static void
test_conweave(void)
{
	uint8_t buf[MAXF];
	struct fspec s;
	struct fexp e;
	struct rtr_meta m;
	uint32_t len;
	int l3, op;

	for (l3 = 0; l3 < L3_N; l3++) {
		for (op = L4_SEND; op <= L4_ACK; op++) {
			char what[64];

			snprintf(what, sizeof(what), "cw data %s %s", l3_names[l3], l4_names[op]);
			/* DATA: cw_op 1, phase 1, epoch 2, 4 bytes not counted */
			spec_init(&s, L2_QINQ, l3, op);
			s.b8 = (1 << 5) | (1 << 4) | (2 << 2);
			s.b4 = 7; /* path_id */
			s.cw_data = 1;
			len = build(&s, buf, &e);
			CHECK(parse_copy(buf, len, SEED, RTR_LB_PARSE_HDR, &m) == RTR_DROP_NONE,
					"%s", what);
			CHECK(m.flags & RTR_MF_LB_HDR, "%s", what);
			CHECK(m.flags & RTR_MF_ROCE, "%s", what);
			CHECK_EQ(m.bth_b4, 7);
			CHECK_EQ(m.bth_b8, s.b8);
			CHECK_EQ(m.ext, e.ext);
			CHECK_EQ(m.psn, 0xabcdef);
			/* every cut, including inside the 4 uncounted bytes */
			check_truncations(buf, len, RTR_LB_PARSE_HDR, what);
			/* Without the option the 4 bytes are simply payload. */
			CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
			CHECK_TRUE(!(m.flags & RTR_MF_LB_HDR));
			CHECK_EQ(m.ext, e.ext);

			/* The same from its signature alone (a ToR in another mode). */
			CHECK_EQ(parse_copy(buf, len, SEED, RTR_LB_PARSE_FOREIGN, &m),
					RTR_DROP_NONE);
			CHECK(m.flags & RTR_MF_LB_HDR, "%s, foreign", what);
			CHECK_EQ(m.ext, e.ext);
			check_truncations(buf, len, RTR_LB_PARSE_FOREIGN, what);
			/* Ethernet padding the sender's frame had moves along
			 * behind the header: up to 2 bytes still read as one. */
			for (unsigned int pad = 1; pad <= 3; pad++) {
				uint8_t padded[MAXF];

				memcpy(padded, buf, len);
				memset(padded + len, 0, pad);
				CHECK_EQ(parse_copy(padded, len + pad, SEED, RTR_LB_PARSE_HDR, &m),
						RTR_DROP_NONE);
				CHECK(!!(m.flags & RTR_MF_LB_HDR) == (pad <= 2), "%s pad %u", what,
						pad);
			}

			/* cw_op set, no header: an RNIC's Resv7 bits (ALGORITHMS.md
			 * 0), plain RoCE whatever the flags. */
			s.cw_data = 0;
			len = build(&s, buf, &e);
			for (unsigned int fl = 0; fl < 8; fl++) {
				CHECK_EQ(parse_copy(buf, len, SEED, fl, &m), RTR_DROP_NONE);
				CHECK(!(m.flags & RTR_MF_LB_HDR), "%s missing, flags %u", what, fl);
				CHECK_EQ(m.ext, e.ext);
			}
			/* ... even padded (2 bytes at most, below the signature). */
			{
				uint8_t padded[MAXF];

				memcpy(padded, buf, len);
				memset(padded + len, 0, 2);
				CHECK_EQ(parse_copy(padded, len + 2, SEED, RTR_LB_PARSE_HDR, &m),
						RTR_DROP_NONE);
				CHECK_TRUE(!(m.flags & RTR_MF_LB_HDR));
			}

			/* REPLY / NOTIFY: cut after the header, lengths count it. */
			snprintf(what, sizeof(what), "cw ctrl %s %s", l3_names[l3], l4_names[op]);
			spec_init(&s, L2_UNTAGGED, l3, op);
			s.b8 = (2 << 5) | (1 << 4);
			s.cw_ctrl = 1;
			len = build(&s, buf, &e);
			CHECK(parse_copy(buf, len, SEED, RTR_LB_PARSE_HDR, &m) == RTR_DROP_NONE,
					"%s", what);
			CHECK_EQ(m.flags & (RTR_MF_LB_HDR | RTR_MF_ROCE),
					RTR_MF_LB_HDR | RTR_MF_ROCE);
			CHECK_EQ(m.ext, 0);
			CHECK_EQ(m.bth_b8, s.b8);
			check_truncations(buf, len, RTR_LB_PARSE_HDR, what);
			/* NOTIFY on an opcode with a RETH: only parses with the option. */
			s.b8 = 3 << 5;
			len = build(&s, buf, &e);
			CHECK_EQ(parse_copy(buf, len, SEED, RTR_LB_PARSE_HDR, &m), RTR_DROP_NONE);
			CHECK_EQ(parse_copy(buf, len, SEED, 0, &m),
					e.ext_len > 4 ? RTR_DROP_MALFORMED : RTR_DROP_NONE);
		}
	}
	/* A control packet whose UDP length stops inside the header. */
	spec_init(&s, L2_UNTAGGED, L3_V4, L4_SEND);
	s.b8 = 2 << 5;
	s.cw_ctrl = 1;
	len = build(&s, buf, &e);
	put16(buf + e.l4_off + 4, 8 + 12 + 3);
	CHECK_EQ(parse_copy(buf, len, SEED, RTR_LB_PARSE_HDR, &m), RTR_DROP_MALFORMED);
	/* Resv7 of a REPLY/NOTIFY on a longer packet: an RNIC's Resv7 bits,
	 * or a CAVER-shimmed RC ACK (Resv7 0x7F = cw_op 3, UDP length 40):
	 * plain RoCE with its extended headers, whatever the flags (control
	 * packets are cut after the header: UDP length 24). */
	{
		static const unsigned int fls[4] = {RTR_LB_PARSE_HDR, RTR_LB_PARSE_CTRL,
				RTR_LB_PARSE_FOREIGN, RTR_LB_PARSE_HDR | RTR_LB_PARSE_CTRL};

		for (unsigned int i = 0; i < 4; i++) {
			spec_init(&s, L2_UNTAGGED, L3_V4, L4_ACK);
			s.b8 = 0x7f;
			s.payload = 16;
			len = build(&s, buf, &e);
			CHECK_EQ(parse_copy(buf, len, SEED, fls[i], &m), RTR_DROP_NONE);
			CHECK_TRUE(!(m.flags & RTR_MF_LB_HDR) && !rtr_meta_lb_control(&m));
			CHECK_EQ(m.ext, RTR_EXT_AETH);
			spec_init(&s, L2_UNTAGGED, L3_V6, L4_SEND);
			s.b8 = (2 << 5) | (1 << 4);
			len = build(&s, buf, &e);
			CHECK_EQ(parse_copy(buf, len, SEED, fls[i], &m), RTR_DROP_NONE);
			CHECK_TRUE(!(m.flags & RTR_MF_LB_HDR));
		}
	}
	/* AckReq and tail bits alone (cw_op 0): no header. */
	spec_init(&s, L2_UNTAGGED, L3_V4, L4_SEND);
	s.b8 = RTR_BTH_ACKREQ | 0x1f;
	len = build(&s, buf, &e);
	CHECK_EQ(parse_copy(buf, len, SEED, RTR_LB_PARSE_HDR, &m), RTR_DROP_NONE);
	CHECK_TRUE(!(m.flags & RTR_MF_LB_HDR));
	CHECK_EQ(m.bth_b8, RTR_BTH_ACKREQ | 0x1f);
}

static void
test_ecn(void)
{
	uint8_t buf[MAXF];
	struct fspec s;
	struct fexp e;
	struct rtr_meta m;
	uint32_t len;
	int l3, ecn;

	for (l3 = 0; l3 < L3_N; l3++) {
		for (ecn = 0; ecn < 4; ecn++) {
			spec_init(&s, L2_VLAN, l3, L4_WRITE);
			s.tos = (uint8_t)((46 << 2) | ecn);
			len = build(&s, buf, &e);
			CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
			CHECK_EQ(m.tos, s.tos);
			CHECK_EQ(!!rtr_meta_ce(&m), ecn == 3);
		}
	}
}

static void
test_hash(void)
{
	uint8_t buf[MAXF];
	struct fspec s;
	struct fexp e;
	struct rtr_meta m;
	uint32_t len, h[6];
	int l3;

	for (l3 = 0; l3 < L3_N; l3++) {
		/* Packets of one flow differ in opcode, PSN, payload, tags, ECN. */
		spec_init(&s, L2_UNTAGGED, l3, L4_WRITE);
		len = build(&s, buf, &e);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
		h[0] = m.flow_hash;
		CHECK_TRUE(h[0] != 0);
		spec_init(&s, L2_QINQ, l3, L4_SEND_IMM);
		s.payload = 999;
		s.tos = 3;
		len = build(&s, buf, &e);
		buf[e.bth_off + 11] ^= 0x55; /* another PSN */
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
		CHECK_EQ(m.flow_hash, h[0]);
		/* seed changes it */
		CHECK_EQ(parse_copy(buf, len, SEED + 1, 0, &m), RTR_DROP_NONE);
		h[1] = m.flow_hash;
		CHECK_TRUE(h[1] != h[0]);
		CHECK_EQ(parse_copy(buf, len, 0, 0, &m), RTR_DROP_NONE);
		CHECK_TRUE(m.flow_hash != h[0] && m.flow_hash != h[1]);
		/* source port (RNIC entropy) changes it */
		s.sport++;
		len = build(&s, buf, &e);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
		h[2] = m.flow_hash;
		CHECK_TRUE(h[2] != h[0]);
		/* source address changes it */
		s.sport--;
		s.src_ip = 9;
		len = build(&s, buf, &e);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
		h[3] = m.flow_hash;
		CHECK_TRUE(h[3] != h[0]);
		/* a TCP flow between the same hosts differs */
		spec_init(&s, L2_UNTAGGED, l3, L4_TCP);
		len = build(&s, buf, &e);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
		h[4] = m.flow_hash;
		CHECK_TRUE(h[4] != h[0]);
		/* the CW header and its flag do not change it */
		spec_init(&s, L2_UNTAGGED, l3, L4_WRITE);
		s.b8 = 1 << 5;
		s.cw_data = 1;
		len = build(&s, buf, &e);
		CHECK_EQ(parse_copy(buf, len, SEED, RTR_LB_PARSE_HDR, &m), RTR_DROP_NONE);
		CHECK_EQ(m.flow_hash, h[0]);
	}
}

static void
test_l2(void)
{
	uint8_t buf[MAXF];
	struct fspec s;
	struct fexp e;
	struct rtr_meta m;
	uint32_t len;
	int l2;

	/* Broadcast / multicast destination */
	spec_init(&s, L2_UNTAGGED, L3_V4, L4_UDP);
	len = build(&s, buf, &e);
	memset(buf, 0xff, 6);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_TRUE(rtr_frame_l2_bcast(buf));
	memcpy(buf, "\x01\x00\x5e\x00\x00\x01", 6);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_TRUE(rtr_frame_l2_bcast(buf));
	memcpy(buf, "\x33\x33\x00\x00\x00\x01", 6);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_TRUE(rtr_frame_l2_bcast(buf));
	buf[0] = 0x02;
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_TRUE(!rtr_frame_l2_bcast(buf));

	for (l2 = 0; l2 < L2_N; l2++) {
		uint32_t off;

		spec_init(&s, l2, L3_V4, L4_UDP);
		len = build(&s, buf, &e);
		off = e.l3_off;
		/* Not IP: LLDP, MPLS, a third VLAN tag */
		put16(buf + off - 2, 0x88cc);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NOT_IP);
		CHECK_EQ(m.l3_off, off);
		CHECK_EQ(m.l3, RTR_L3_NONE);
		CHECK_EQ(m.flow_hash, 0);
		CHECK_EQ(m.flags, l2 == L2_UNTAGGED ? 0 : RTR_MF_VLAN);
		put16(buf + off - 2, 0x8847);
		CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NOT_IP);
		CHECK_EQ(parse_copy(buf, off, SEED, 0, &m), RTR_DROP_NOT_IP);
		if (l2 == L2_QINQ) {
			put16(buf + off - 2, 0x8100);
			CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NOT_IP);
		}
		/* ARP: 28-byte body needed */
		put16(buf + off - 2, 0x0806);
		CHECK_EQ(parse_copy(buf, off + 28, SEED, 0, &m), RTR_DROP_NONE);
		CHECK_EQ(m.l3, RTR_L3_ARP);
		CHECK_EQ(m.l3_off, off);
		CHECK_EQ(m.l4_off, off + 28);
		CHECK_EQ(m.flow_hash, 0);
		CHECK_EQ(m.flags & RTR_MF_ROCE, 0);
		CHECK_EQ(parse_copy(buf, off + 60, SEED, 0, &m), RTR_DROP_NONE);
		CHECK_EQ(parse_copy(buf, off + 27, SEED, 0, &m), RTR_DROP_MALFORMED);
		CHECK_EQ(parse_copy(buf, off, SEED, 0, &m), RTR_DROP_MALFORMED);
	}
	/* Each tag type alone, both orders for QinQ */
	spec_init(&s, L2_VLAN, L3_V6, L4_ACK);
	len = build(&s, buf, &e);
	put16(buf + 12, 0x88a8);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_EQ(rtr_meta_pcp(buf, &m), 5);
	CHECK_TRUE(m.flags & RTR_MF_VLAN);
	spec_init(&s, L2_QINQ, L3_V6, L4_ACK);
	len = build(&s, buf, &e);
	put16(buf + 12, 0x8100);
	put16(buf + 16, 0x8100);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_EQ(m.l3_off, 22);
	CHECK_EQ(rtr_meta_pcp(buf, &m), 3);
	CHECK_EQ(m.l3, RTR_L3_IPV6);
}

static void
test_unknown_opcode(void)
{
	uint8_t buf[MAXF];
	struct fspec s;
	struct fexp e;
	struct rtr_meta m;
	uint32_t len;

	spec_init(&s, L2_UNTAGGED, L3_V6, L4_SEND);
	s.opcode = 0xc5;
	len = build(&s, buf, &e);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_TRUE(m.flags & RTR_MF_ROCE);
	CHECK_EQ(m.bth_opcode, 0xc5);
	CHECK_EQ(m.ext, 0);
	CHECK_TRUE(rtr_meta_is_roce_data(&m));
	/* A BTH and nothing else is still a (trimmed) RoCE packet. */
	s.payload = 0;
	s.no_icrc = 1;
	len = build(&s, buf, &e);
	CHECK_EQ(parse_copy(buf, len, SEED, 0, &m), RTR_DROP_NONE);
	CHECK_TRUE(m.flags & RTR_MF_ROCE);
}

static uint32_t rnd_state = 12345;

/* xorshift32: a fixed sequence, so a failure reproduces. */
static uint32_t
rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* Random mutations of valid frames at random lengths: only ASan judges. */
static void
test_fuzz(void)
{
	uint8_t buf[MAXF];
	struct fspec s;
	struct fexp e;
	struct rtr_meta m;
	uint32_t i, counts[RTR_DROP_MAX] = {0};

	for (i = 0; i < 200000; i++) {
		uint32_t len, k, n;
		enum rtr_drop_reason r;

		spec_init(&s, (int)(rnd() % L2_N), (int)(rnd() % L3_N), (int)(rnd() % L4_N));
		s.payload = (uint16_t)(rnd() % 80);
		s.b8 = (uint8_t)rnd();
		len = build(&s, buf, &e);
		n = rnd() % 4;
		for (k = 0; k < n; k++)
			buf[rnd() % (e.bth_off ? e.bth_off + 12 : len)] = (uint8_t)rnd();
		if (rnd() % 2)
			len = rnd() % (len + 1);
		r = parse_copy(buf, len, (uint32_t)rnd(), (rnd() % 2) ? RTR_LB_PARSE_HDR : 0, &m);
		counts[r]++;
		if (r == RTR_DROP_NONE)
			CHECK(m.l4_off <= len || m.l3 == RTR_L3_ARP, "l4_off %u len %u", m.l4_off,
					len);
	}
	CHECK_TRUE(counts[RTR_DROP_NONE] > 1000);
	CHECK_TRUE(counts[RTR_DROP_MALFORMED] > 1000);
	printf("fuzz: %u none, %u malformed, %u not_ip\n", counts[RTR_DROP_NONE],
			counts[RTR_DROP_MALFORMED], counts[RTR_DROP_NOT_IP]);
}

/* rtr_move_head (rtr_common.h) against memmove: every length it takes,
 * moved 4 bytes either way (a ConWeave header in or out) and apart. */
static void
test_move_head(void)
{
	static const int shifts[] = {-4, 4, -20, 17, 200};
	uint8_t buf[512], ref[512];
	unsigned int bad = 0, runs = 0;

	for (unsigned int n = 16; n <= RTR_HEAD_MAX; n++) {
		for (unsigned int k = 0; k < RTE_DIM(shifts); k++) {
			uint8_t *src = buf + 100, *dst = src + shifts[k];

			for (unsigned int i = 0; i < sizeof(buf); i++)
				buf[i] = (uint8_t)(i * 7 + n);
			memcpy(ref, buf, sizeof(buf));
			memmove(ref + 100 + shifts[k], ref + 100, n);
			rtr_move_head(dst, src, n);
			runs++;
			if (memcmp(buf, ref, sizeof(buf)) != 0)
				bad++;
		}
	}
	CHECK(bad == 0, "rtr_move_head differs from memmove in %u of %u moves", bad, runs);
}

/* rtr_ipv4_dec_ttl (rtr_cksum.h) against the generic RFC 1624 update of
 * the TTL/protocol word: every checksum, every TTL it may see (2..255),
 * a few protocols. */
static void
test_dec_ttl(void)
{
	static const uint8_t protos[] = {17, 6, 1, 0, 255};
	unsigned long bad = 0, runs = 0;

	for (unsigned int ck = 0; ck <= 0xffff; ck++) {
		for (unsigned int ttl = 2; ttl <= 255; ttl++) {
			for (unsigned int k = 0; k < RTE_DIM(protos); k++) {
				struct rte_ipv4_hdr ip = {.time_to_live = (uint8_t)ttl,
						.next_proto_id = protos[k],
						.hdr_checksum = rte_cpu_to_be_16((uint16_t)ck)};
				uint16_t w = (uint16_t)(ttl << 8 | protos[k]);
				uint16_t want = rtr_cksum_update16(
						(uint16_t)ck, w, (uint16_t)(w - 0x100));

				rtr_ipv4_dec_ttl(&ip);
				runs++;
				if (ip.time_to_live != ttl - 1 ||
						rte_be_to_cpu_16(ip.hdr_checksum) != want)
					bad++;
			}
		}
	}
	CHECK(bad == 0, "rtr_ipv4_dec_ttl differs from RFC 1624 in %lu of %lu", bad, runs);
}

/* rtr_cksum_fold (rtr_cksum.h) of a header's five 32-bit words against
 * rte_ipv4_cksum: random headers,
 * and the words that carry most (all ones, all zeros, 0xffff sums). */
static void
test_cksum_fold(void)
{
	unsigned long bad = 0, runs = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (unsigned int r = 0; r < 2000000; r++) {
		union {
			struct rte_ipv4_hdr h;
			uint8_t b[20];
		} ip;
		uint64_t sum = 0;

		for (unsigned int i = 0; i < 20; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* Some runs of all-ones or all-zero bytes. */
			ip.b[i] = (r % 7 == 0) ? 0xff : (r % 11 == 0) ? 0 : (uint8_t)x;
		}
		if (r % 13 == 0)
			ip.b[(unsigned int)x % 20] ^= 0xff;
		ip.h.version_ihl = 0x45;
		ip.h.hdr_checksum = 0;
		runs++;
		for (unsigned int i = 0; i < 20; i += 4) {
			uint32_t w;

			memcpy(&w, ip.b + i, 4);
			sum += w;
		}
		if (rtr_cksum_fold(sum) != rte_ipv4_cksum(&ip.h))
			bad++;
	}
	CHECK(bad == 0, "rtr_cksum_fold differs from rte_ipv4_cksum in %lu of %lu", bad, runs);
}

int
main(void)
{
	test_move_head();
	test_cksum_fold();
	test_dec_ttl();
	test_ext_table();
	test_combinations();
	test_every_opcode();
	test_ipv4_lies();
	test_udp_lies();
	test_padding();
	test_fragments();
	test_conweave();
	test_ecn();
	test_hash();
	test_l2();
	test_unknown_opcode();
	test_fuzz();
	printf("truncations accepted as trimmed RoCE headers: %u\n", trimmed_cuts);
	CHECK(trimmed_cuts > 0);
	printf("rtr_parse_fast against rtr_parse: %lu frames, %lu differ\n", fast_checked,
			fast_mismatch);
	CHECK(fast_checked > 100000 && fast_mismatch == 0, "%lu of %lu differ", fast_mismatch,
			fast_checked);
	return rtr_test_done("parse");
}
