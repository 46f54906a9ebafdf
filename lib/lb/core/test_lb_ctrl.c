/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit tests of rtr_lb_ctrl_build (the control packet a DstToR answers a
 * data packet with, ALGORITHMS.md 2.1), without the EAL: random RoCEv2
 * frames (IPv4 with and without options, IPv6, with and without a VLAN
 * tag, every TOS / traffic class, random TTLs, identifiers and flow
 * labels), each answered, and every byte of the answer checked against
 * what doc/wire-formats.md says it must be: Ethernet and the tag copied,
 * addresses swapped, ECN cleared with the DSCP kept, lengths of the cut
 * packet, TTL / hop limit 64, a valid IPv4 header checksum (summed here
 * with rte_raw_cksum), UDP ports kept and checksum 0, BTH copied but bytes
 * 4 and 8, then the 4-byte header; and the answer parses as LB control.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "rtr_common.h"
#include "rtr_lb_ctrl.h"
#include "rtr_lb_wire.h"
#include "rtr_parse.h"
#include "rtr_test.h"
#include "rtr_test_mbuf.h"

static uint64_t rnd = 0x9e3779b97f4a7c15ull;

static uint32_t
next(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 7;
	rnd ^= rnd << 17;
	return (uint32_t)(rnd >> 11);
}

struct spec {
	bool v6, vlan;
	unsigned int opt_words; /* IPv4 options, 32-bit words */
	unsigned int payload;
};

/* A RoCEv2 RC SEND ONLY frame with random header fields; returns its
 * length. */
static unsigned int
build(uint8_t *p, const struct spec *s)
{
	unsigned int off = 12, l3, l4, ulen = 8 + 12 + s->payload + 4;

	for (unsigned int i = 0; i < 12; i++)
		p[i] = (uint8_t)next();
	p[0] &= 0xfe; /* unicast */
	if (s->vlan) {
		p[12] = 0x81, p[13] = 0x00;
		p[14] = (uint8_t)(next() & 0xef), p[15] = (uint8_t)next();
		off = 16;
	}
	l3 = off + 2;
	if (!s->v6) {
		unsigned int ihl = 5 + s->opt_words;

		p[off] = 0x08, p[off + 1] = 0x00;
		p[l3] = (uint8_t)(0x40 | ihl);
		p[l3 + 1] = (uint8_t)next(); /* any DSCP, any ECN */
		p[l3 + 2] = (uint8_t)((ihl * 4 + ulen) >> 8);
		p[l3 + 3] = (uint8_t)(ihl * 4 + ulen);
		p[l3 + 4] = (uint8_t)next(), p[l3 + 5] = (uint8_t)next();
		p[l3 + 6] = 0x40, p[l3 + 7] = 0;
		p[l3 + 8] = (uint8_t)(2 + next() % 254);
		p[l3 + 9] = 17;
		for (unsigned int i = 12; i < ihl * 4; i++)
			p[l3 + i] = (uint8_t)next();
		p[l3 + 10] = p[l3 + 11] = 0;
		{
			uint16_t ck = (uint16_t)~rte_raw_cksum(p + l3, ihl * 4);

			memcpy(p + l3 + 10, &ck, 2);
		}
		l4 = l3 + ihl * 4;
	} else {
		uint32_t vtc = 6u << 28 | (next() & 0x0fffffff);

		p[off] = 0x86, p[off + 1] = 0xdd;
		p[l3] = (uint8_t)(vtc >> 24), p[l3 + 1] = (uint8_t)(vtc >> 16);
		p[l3 + 2] = (uint8_t)(vtc >> 8), p[l3 + 3] = (uint8_t)vtc;
		p[l3 + 4] = (uint8_t)(ulen >> 8), p[l3 + 5] = (uint8_t)ulen;
		p[l3 + 6] = 17;
		p[l3 + 7] = (uint8_t)(2 + next() % 254);
		for (unsigned int i = 8; i < 40; i++)
			p[l3 + i] = (uint8_t)next();
		p[l3 + 8] = 0xfd; /* not link-local, not multicast */
		p[l3 + 24] = 0xfd;
		l4 = l3 + 40;
	}
	p[l4] = (uint8_t)(0xc0 | (next() & 0x3f)), p[l4 + 1] = (uint8_t)next();
	p[l4 + 2] = 0x12, p[l4 + 3] = 0xb7; /* 4791 */
	p[l4 + 4] = (uint8_t)(ulen >> 8), p[l4 + 5] = (uint8_t)ulen;
	p[l4 + 6] = (uint8_t)next(), p[l4 + 7] = (uint8_t)next();
	p[l4 + 8] = 0x04; /* RC SEND ONLY */
	for (unsigned int i = 9; i < 20; i++)
		p[l4 + i] = (uint8_t)next();
	p[l4 + 9] = (uint8_t)(p[l4 + 9] & 0xf0); /* BTH version 0 */
	p[l4 + 16] &= 0x80;                      /* Resv7 0 */
	for (unsigned int i = 20; i < ulen; i++)
		p[l4 + i] = (uint8_t)next();
	return l4 + ulen;
}

static unsigned int checked, bad;

#define EXPECT(cond)                                                  \
	do {                                                          \
		if (!(cond)) {                                        \
			if (bad++ < 5)                                \
				printf("  run %u: %s\n", run, #cond); \
		}                                                     \
	} while (0)

static void
test_random(void)
{
	printf("1. random frames answered, every byte checked\n");
	for (unsigned int run = 0; run < 40000; run++) {
		struct spec s = {
				.v6 = run & 1,
				.vlan = (run >> 1) & 1,
				.opt_words = ((run >> 2) & 3) == 3 ? 1 + next() % 10 : 0,
				.payload = next() % 1100,
		};
		uint8_t d[1600];
		const uint8_t hdr[4] = {
				(uint8_t)next(), (uint8_t)next(), (uint8_t)next(), (uint8_t)next()};
		const uint8_t b4 = (uint8_t)next();
		const uint8_t b8 = (uint8_t)((next() & 0x80) | (2 + (next() & 1)) << 5 |
					     (next() & 0x1f));
		struct rtr_meta dm, cm;
		struct rte_mbuf *data, *m;
		unsigned int len, n, l3, l4, bth;
		const uint8_t *c, *o;

		if (s.v6)
			s.opt_words = 0;
		len = build(d, &s);
		data = fake_frame(d, len);
		if (rtr_parse(mdata(data), len, 0, 0, &dm) != RTR_DROP_NONE ||
				!(dm.flags & RTR_MF_ROCE)) {
			EXPECT(!"the data frame parses as RoCE");
			fake_free(data);
			continue;
		}
		m = rtr_lb_ctrl_build(fake_mbuf(), mdata(data), &dm, b4, b8, hdr);
		checked++;
		if (m == NULL) {
			EXPECT(!"built");
			fake_free(data);
			continue;
		}
		c = mdata(m);
		o = d;
		l3 = dm.l3_off;
		l4 = dm.l4_off;
		bth = rtr_meta_bth_off(&dm);
		n = bth + RTR_BTH_LEN + RTR_LB_HDR_LEN;
		EXPECT(m->data_len == n && m->pkt_len == n);
		EXPECT(memcmp(c, o, l3) == 0); /* Ethernet, the tag */
		if (!s.v6) {
			unsigned int ihl = (o[l3] & 15) * 4;

			EXPECT(c[l3] == o[l3]);
			EXPECT(c[l3 + 1] == (o[l3 + 1] & 0xfc));
			EXPECT((unsigned int)(c[l3 + 2] << 8 | c[l3 + 3]) == n - l3);
			EXPECT(memcmp(c + l3 + 4, o + l3 + 4, 4) == 0); /* id, flags */
			EXPECT(c[l3 + 8] == 64 && c[l3 + 9] == 17);
			EXPECT(rte_raw_cksum(c + l3, ihl) == 0xffff);
			EXPECT(memcmp(c + l3 + 12, o + l3 + 16, 4) == 0);
			EXPECT(memcmp(c + l3 + 16, o + l3 + 12, 4) == 0);
			EXPECT(memcmp(c + l3 + 20, o + l3 + 20, ihl - 20) == 0); /* options */
		} else {
			EXPECT(c[l3] == o[l3]);
			EXPECT((c[l3 + 1] & 0xcf) == (o[l3 + 1] & 0xcf) && (c[l3 + 1] & 0x30) == 0);
			EXPECT(memcmp(c + l3 + 2, o + l3 + 2, 2) == 0); /* flow label */
			EXPECT((unsigned int)(c[l3 + 4] << 8 | c[l3 + 5]) == n - l4);
			EXPECT(c[l3 + 6] == 17 && c[l3 + 7] == 64);
			EXPECT(memcmp(c + l3 + 8, o + l3 + 24, 16) == 0);
			EXPECT(memcmp(c + l3 + 24, o + l3 + 8, 16) == 0);
		}
		EXPECT(memcmp(c + l4, o + l4, 4) == 0); /* ports */
		EXPECT((unsigned int)(c[l4 + 4] << 8 | c[l4 + 5]) == n - l4);
		EXPECT(c[l4 + 6] == 0 && c[l4 + 7] == 0);
		EXPECT(memcmp(c + bth, o + bth, 4) == 0);
		EXPECT(c[bth + 4] == b4);
		EXPECT(memcmp(c + bth + 5, o + bth + 5, 3) == 0);
		EXPECT(c[bth + 8] == b8);
		EXPECT(memcmp(c + bth + 9, o + bth + 9, 3) == 0);
		EXPECT(memcmp(c + bth + RTR_BTH_LEN, hdr, 4) == 0);
		EXPECT(rtr_parse(c, n, 0, RTR_LB_PARSE_HDR, &cm) == RTR_DROP_NONE &&
				rtr_meta_lb_control(&cm));
		fake_free(m);
		fake_free(data);
	}
	CHECK_EQ(checked, 40000u);
	CHECK(bad == 0, "%u wrong fields in %u control packets", bad, checked);
	CHECK_EQ(live_mbufs, 0u);
}

int
main(void)
{
	test_random();
	return rtr_test_done("lb-ctrl");
}
