/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * rtr_rss against DPDK's rte_softrss: the known vectors of the 82599
 * datasheet's RSS verification suite (as in DPDK's app/test/test_thash.c)
 * fix how a frame's fields make the Toeplitz input; rocetor's folded hash
 * must equal rte_softrss with rocetor's key on parsed frames (IPv4, IPv6,
 * VLAN, IPv4 options, with and without ports); the owner slots and a RETA
 * of every size a NIC reports must agree.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_thash.h>

#include "rtr_parse.h"
#include "rtr_rss.h"
#include "rtr_test.h"

static const uint8_t ms_key[40] = {0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25,
		0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77,
		0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01,
		0xfa};

/* src, dst, sport, dport, hash of the four (82599 datasheet 7.1.2.8.3). */
static const struct {
	uint8_t src[4], dst[4];
	uint16_t sport, dport;
	uint32_t hash;
} v4_vec[] = {
		{{66, 9, 149, 187}, {161, 142, 100, 80}, 2794, 1766, 0x51ccc178},
		{{199, 92, 111, 2}, {65, 69, 140, 83}, 14230, 4739, 0xc626b0ea},
		{{24, 19, 198, 95}, {12, 22, 207, 184}, 12898, 38024, 0x5c2b394a},
		{{38, 27, 205, 30}, {209, 142, 163, 6}, 48228, 2217, 0xafc7327f},
		{{153, 39, 163, 191}, {202, 188, 127, 2}, 44251, 1303, 0x10e828a2},
};

struct frame_spec {
	bool v6, vlan, l4, tcp;
	unsigned int ihl_words; /* IPv4 header length in words, >= 5 */
};

static void
put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A frame with random addresses and ports; returns its length. */
static unsigned int
build(uint8_t *f, const struct frame_spec *s, uint64_t *rnd)
{
	unsigned int off = 12, l4, iplen;

	memset(f, 0, 256);
	if (s->vlan) {
		put16(f + off, 0x8100);
		put16(f + off + 2, 5);
		off += 4;
	}
	put16(f + off, s->v6 ? 0x86dd : 0x0800);
	off += 2;
	for (unsigned int i = 0; i < 32; i++)
		f[off + (s->v6 ? 8 : 12) + i % (s->v6 ? 32 : 8)] = (uint8_t)rtr_test_xorshift(rnd);
	l4 = off + (s->v6 ? 40 : 4 * s->ihl_words);
	iplen = (l4 - off) + 20 + 32;
	if (s->v6) {
		f[off] = 0x60;
		put16(f + off + 4, iplen - 40);
		f[off + 6] = s->l4 ? (s->tcp ? 6 : 17) : 59;
		f[off + 7] = 64;
	} else {
		f[off] = (uint8_t)(0x40 | s->ihl_words);
		put16(f + off + 2, iplen);
		f[off + 8] = 64;
		f[off + 9] = s->l4 ? (s->tcp ? 6 : 17) : 50;
		for (unsigned int i = 20; i < 4 * s->ihl_words; i++)
			f[off + i] = 1; /* IPv4 options: NOP */
	}
	if (s->l4) {
		put16(f + l4, (unsigned int)rtr_test_xorshift(rnd) & 0xffff);
		put16(f + l4 + 2, 1000 + ((unsigned int)rtr_test_xorshift(rnd) & 0x7fff));
		if (s->tcp)
			f[l4 + 12] = 5 << 4;
		else
			put16(f + l4 + 4, iplen - (l4 - off));
	}
	return off + iplen;
}

/* The Toeplitz input a NIC takes from the frame, as rte_softrss wants it
 * (32-bit words in CPU order): src, dst, then sport << 16 | dport. */
static unsigned int
tuple_of(const uint8_t *f, const struct rtr_meta *m, uint32_t *t)
{
	const uint8_t *a = f + m->l3_off + (m->l3 == RTR_L3_IPV4 ? 12 : 8);
	unsigned int n = m->l3 == RTR_L3_IPV4 ? 2 : 8, i;

	for (i = 0; i < n; i++)
		t[i] = (uint32_t)a[4 * i] << 24 | (uint32_t)a[4 * i + 1] << 16 |
		       (uint32_t)a[4 * i + 2] << 8 | a[4 * i + 3];
	if (m->flags & RTR_MF_L4) {
		const uint8_t *p = f + m->l4_off;

		t[i++] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	}
	return i;
}

static void
test_vectors(void)
{
	for (unsigned int i = 0; i < RTE_DIM(v4_vec); i++) {
		uint8_t f[256];
		struct frame_spec s = {.l4 = true, .ihl_words = 5};
		struct rtr_meta m;
		uint64_t rnd = 7;
		uint32_t t[9];
		unsigned int len = build(f, &s, &rnd), n;

		memcpy(f + 14 + 12, v4_vec[i].src, 4);
		memcpy(f + 14 + 16, v4_vec[i].dst, 4);
		put16(f + 34, v4_vec[i].sport);
		put16(f + 36, v4_vec[i].dport);
		CHECK_EQ(rtr_parse(f, len, 0, 0, &m), RTR_DROP_NONE);
		n = tuple_of(f, &m, t);
		CHECK_EQ(n, 3);
		CHECK(rte_softrss(t, n, ms_key) == v4_vec[i].hash, "vector %u: %08x", i,
				rte_softrss(t, n, ms_key));
	}
	/* rocetor's key on one RoCE flow: the value the bench's pcap split
	 * (tools/bench/benchgen.py rss_hash) is pinned to in its test
	 * (tests/pkt/test_benchgen.py), so the two cannot drift apart. */
	{
		uint8_t f[256], key[40];
		const uint8_t src[4] = {10, 1, 0, 1}, dst[4] = {10, 2, 0, 5};
		struct frame_spec s = {.l4 = true, .ihl_words = 5};
		struct rtr_meta m;
		struct rtr_rss r;
		uint64_t rnd = 7;
		uint32_t t[9];
		unsigned int len = build(f, &s, &rnd), n;

		rtr_rss_init(&r, 2);
		rtr_rss_key(key, sizeof(key));
		memcpy(f + 14 + 12, src, 4);
		memcpy(f + 14 + 16, dst, 4);
		put16(f + 34, 0xc123);
		put16(f + 36, 4791);
		CHECK_EQ(rtr_parse(f, len, 0, 0, &m), RTR_DROP_NONE);
		n = tuple_of(f, &m, t);
		CHECK_EQ(rte_softrss(t, n, key), 0x026c026cu);
		CHECK_EQ(rtr_rss_hash(&r, f, &m), 0x026c026cu);
		CHECK_EQ(rtr_rss_owner(&r, 0x026c026cu), 0u);
	}
}

static void
test_hash(void)
{
	struct rtr_rss r;
	uint8_t key[RTR_RSS_KEY_MAX], key52[52];
	uint64_t rnd = 0x9e3779b97f4a7c15ULL;
	unsigned int bad = 0, n_checked = 0, sym_bad = 0;

	rtr_rss_init(&r, 4);
	rtr_rss_key(key, 40);
	rtr_rss_key(key52, 52);
	CHECK_EQ(key[0], 0x6d);
	CHECK_EQ(key[1], 0x5a);
	CHECK_EQ(key52[50], 0x6d);
	CHECK_EQ(key52[51], 0x5a);
	for (unsigned int k = 0; k < 64; k++) {
		struct frame_spec s = {
				.v6 = k & 1,
				.vlan = (k >> 1) & 1,
				.l4 = ((k >> 2) & 3) != 0,
				.tcp = ((k >> 2) & 3) == 2,
				.ihl_words = (k >> 4) & 1 ? 7 : 5,
		};

		for (unsigned int rep = 0; rep < 200; rep++) {
			uint8_t f[256], g[256];
			struct rtr_meta m, mg;
			uint32_t t[9], h;
			unsigned int len = build(f, &s, &rnd), n, a;

			if (rtr_parse(f, len, 0, 0, &m) != RTR_DROP_NONE) {
				bad++;
				continue;
			}
			n = tuple_of(f, &m, t);
			h = rtr_rss_hash(&r, f, &m);
			n_checked++;
			if (h != rte_softrss(t, n, key) || h != rte_softrss(t, n, key52))
				bad++;
			/* The other direction (addresses and ports swapped), and
			 * an LB control packet (addresses swapped, ports kept). */
			memcpy(g, f, len);
			a = m.l3_off + (m.l3 == RTR_L3_IPV4 ? 12 : 8);
			for (unsigned int i = 0; i < (m.l3 == RTR_L3_IPV4 ? 4u : 16u); i++) {
				uint8_t x = g[a + i];

				g[a + i] = g[a + i + (m.l3 == RTR_L3_IPV4 ? 4 : 16)];
				g[a + i + (m.l3 == RTR_L3_IPV4 ? 4 : 16)] = x;
			}
			if (rtr_parse(g, len, 0, 0, &mg) != RTR_DROP_NONE ||
					rtr_rss_hash(&r, g, &mg) != h)
				sym_bad++;
			if (m.flags & RTR_MF_L4) {
				uint8_t p0 = g[m.l4_off], p1 = g[m.l4_off + 1];

				g[m.l4_off] = g[m.l4_off + 2];
				g[m.l4_off + 1] = g[m.l4_off + 3];
				g[m.l4_off + 2] = p0;
				g[m.l4_off + 3] = p1;
				if (rtr_parse(g, len, 0, 0, &mg) != RTR_DROP_NONE ||
						rtr_rss_hash(&r, g, &mg) != h)
					sym_bad++;
			}
		}
	}
	CHECK_EQ(n_checked, 64 * 200);
	CHECK(bad == 0, "%u frames hash otherwise than rte_softrss", bad);
	CHECK(sym_bad == 0, "%u reversed frames hash otherwise", sym_bad);
}

static void
test_owner_reta(void)
{
	static uint16_t reta[4096];
	const unsigned int good[] = {64, 128, 256, 512, 2048, 4096};
	const unsigned int bad[] = {0, 3, 63, 96, 192, 520};

	for (unsigned int n = 1; n <= 8; n++) {
		struct rtr_rss r;
		unsigned int cnt[8] = {0}, lo = ~0u, hi = 0;
		uint64_t rnd = 12345 + n;
		bool reta_agrees = true;

		unsigned int g[16], b[16], ng = RTE_DIM(good), nb = RTE_DIM(bad);

		/* Below the slots: a power of two the workers divide is good
		 * (mlx5's RETA of 2 or 4 entries for 2 or 4 queues). */
		memcpy(g, good, sizeof(good));
		memcpy(b, bad, sizeof(bad));
		for (unsigned int sz = 1; sz < RTR_RSS_SLOTS; sz *= 2) {
			if (sz % n == 0)
				g[ng++] = sz;
			else
				b[nb++] = sz;
		}
		rtr_rss_init(&r, n);
		for (unsigned int j = 0; j < RTR_RSS_SLOTS; j++)
			cnt[r.owner[j]]++;
		for (unsigned int w = 0; w < n; w++) {
			lo = cnt[w] < lo ? cnt[w] : lo;
			hi = cnt[w] > hi ? cnt[w] : hi;
		}
		CHECK(hi - lo <= 1 && lo >= RTR_RSS_SLOTS / n, "n %u: slots %u..%u", n, lo, hi);
		for (unsigned int i = 0; i < ng; i++) {
			memset(reta, 0xff, sizeof(reta));
			CHECK(rtr_rss_reta(&r, reta, g[i]), "n %u size %u", n, g[i]);
			for (unsigned int k = 0; k < 4096; k++) {
				uint32_t h = (uint32_t)rtr_test_xorshift(&rnd);

				if (reta[h & (g[i] - 1)] != rtr_rss_owner(&r, h))
					reta_agrees = false;
			}
		}
		CHECK(reta_agrees, "n %u: a RETA names another queue than the owner", n);
		for (unsigned int i = 0; i < nb; i++) {
			reta[0] = 0xabcd;
			CHECK(!rtr_rss_reta(&r, reta, b[i]) && reta[0] == 0xabcd, "n %u size %u", n,
					b[i]);
		}
	}
}

/* RoCE flows between two hosts differ by UDP source port: they spread
 * over the workers. */
static void
test_spread(void)
{
	for (unsigned int n = 2; n <= 4; n += 2) {
		struct rtr_rss r;
		struct frame_spec s = {.l4 = true, .ihl_words = 5};
		unsigned int cnt[4] = {0};
		uint64_t rnd = 99;
		uint8_t f[256];
		unsigned int len = build(f, &s, &rnd);

		rtr_rss_init(&r, n);
		put16(f + 36, 4791);
		for (unsigned int sport = 49152; sport < 49152 + 4096; sport++) {
			struct rtr_meta m;

			put16(f + 34, sport);
			if (rtr_parse(f, len, 0, 0, &m) == RTR_DROP_NONE)
				cnt[rtr_rss_owner(&r, rtr_rss_hash(&r, f, &m))]++;
		}
		for (unsigned int w = 0; w < n; w++)
			CHECK(cnt[w] > 4096 / n * 8 / 10 && cnt[w] < 4096 / n * 12 / 10,
					"n %u worker %u: %u of 4096", n, w, cnt[w]);
	}
}

int
main(void)
{
	test_vectors();
	test_hash();
	test_owner_reta();
	test_spread();
	return rtr_test_done("rss");
}
