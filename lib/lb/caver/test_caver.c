/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit tests of CAVER (rtr_caver, ALGORITHMS.md 4) without the EAL: fake
 * mbufs from calloc, a virtual clock, real RoCEv2 frames with a correct ICRC
 * (computed here as ALGORITHMS.md 0 says, and checked with the parser's
 * rtr_roce_icrc_ok).
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "rtr_caver.h"
#include "caver/caver_config.h"
#include "rtr_lb_fs.h"
#include "rtr_egress.h"
#include "rtr_lb.h"
#include "rtr_lb_ctrl.h"
#include "rtr_lb_host.h"
#include "rtr_mbuf.h"
#include "rtr_parse.h"
#include "rtr_route.h"
#include "rtr_stats.h"
#include "rtr_test.h"
#include "test_lb_stats.h"
#include "rtr_test_mbuf.h"

#define SEED   0x1234abcdu
#define PERIOD 50000ULL
#define AGING  500000ULL
#define IDLE   1000000ULL

/* ------------------------------------------------------------ frames */

static uint32_t
ip4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	uint8_t x[4] = {a, b, c, d};
	uint32_t v;

	memcpy(&v, x, 4);
	return v;
}

/* CRC-32 of Ethernet (reflected 0x04C11DB7), bit by bit: independent of the
 * parser's rte_net_crc. */
static uint32_t
crc32_eth(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

struct pkt {
	bool v6;
	bool roce;         /* else UDP to port 9 */
	uint32_t src, dst; /* IPv4, network order (IPv6: the last 4 bytes) */
	uint16_t sport;
	uint8_t opcode; /* 0x11 gets an AETH */
	uint8_t b4, b8;
	unsigned int payload; /* after the BTH and its AETH */
	unsigned int trailer; /* bytes after the IP packet (Ethernet padding) */
	uint8_t ttl, tos;
};

static struct pkt
ack(uint32_t src, uint32_t dst, uint16_t sport)
{
	return (struct pkt){.roce = true,
			.src = src,
			.dst = dst,
			.sport = sport,
			.opcode = RTR_BTH_OP_RC_ACK,
			.ttl = 64,
			.tos = 0x02};
}

static struct pkt
data(uint32_t src, uint32_t dst, uint16_t sport, unsigned int payload)
{
	return (struct pkt){.roce = true,
			.src = src,
			.dst = dst,
			.sport = sport,
			.opcode = 0x04,
			.payload = payload,
			.ttl = 64,
			.tos = 0x02};
}

/* The frame, with correct IPv4 checksum and ICRC (ALGORITHMS.md 0); UDP
 * checksum 0 as RNICs send it. */
static unsigned int
build(uint8_t *p, const struct pkt *k)
{
	unsigned int l3 = 14, l4, n, ulen, iplen, i;
	unsigned int ext = k->roce && k->opcode == RTR_BTH_OP_RC_ACK ? 4 : 0;

	ulen = 8 + (k->roce ? 12 + ext + k->payload + 4 : k->payload);
	memset(p, 0, 14);
	p[0] = 0x02, p[5] = 0x01;
	p[6] = 0x02, p[11] = 0x02;
	if (!k->v6) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + l3);

		p[12] = 0x08, p[13] = 0x00;
		memset(ip, 0, 20);
		ip->version_ihl = 0x45;
		ip->type_of_service = k->tos;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + ulen));
		ip->packet_id = rte_cpu_to_be_16(0x4242);
		ip->fragment_offset = rte_cpu_to_be_16(0x4000); /* DF */
		ip->time_to_live = k->ttl;
		ip->next_proto_id = 17;
		ip->src_addr = k->src;
		ip->dst_addr = k->dst;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		l4 = l3 + 20;
		iplen = 20;
	} else {
		p[12] = 0x86, p[13] = 0xdd;
		memset(p + l3, 0, 40);
		p[l3] = 0x60 | (k->tos >> 4);
		p[l3 + 1] = (uint8_t)(k->tos << 4) | 0x1;
		p[l3 + 2] = 0x23;
		p[l3 + 3] = 0x45;
		p[l3 + 4] = (uint8_t)(ulen >> 8);
		p[l3 + 5] = (uint8_t)ulen;
		p[l3 + 6] = 17;
		p[l3 + 7] = k->ttl;
		p[l3 + 8] = 0xfd;
		memcpy(p + l3 + 20, &k->src, 4);
		p[l3 + 24] = 0xfd;
		memcpy(p + l3 + 36, &k->dst, 4);
		l4 = l3 + 40;
		iplen = 40;
	}
	p[l4] = (uint8_t)(k->sport >> 8);
	p[l4 + 1] = (uint8_t)k->sport;
	p[l4 + 2] = k->roce ? 4791 >> 8 : 0;
	p[l4 + 3] = k->roce ? 4791 & 0xff : 9;
	p[l4 + 4] = (uint8_t)(ulen >> 8);
	p[l4 + 5] = (uint8_t)ulen;
	p[l4 + 6] = p[l4 + 7] = 0;
	n = l4 + 8;
	if (k->roce) {
		uint8_t buf[8 + 40 + 2048], *q;
		uint32_t crc;

		p[n] = k->opcode;
		p[n + 1] = 0x40;
		p[n + 2] = p[n + 3] = 0xff;
		p[n + 4] = k->b4;
		p[n + 5] = 0x00, p[n + 6] = 0x12, p[n + 7] = 0x34; /* DestQP */
		p[n + 8] = k->b8;
		p[n + 9] = 0x00, p[n + 10] = 0x56, p[n + 11] = 0x78; /* PSN */
		n += 12;
		if (ext) {
			p[n] = 0x1f; /* AETH: ACK, credits */
			p[n + 1] = 0x00, p[n + 2] = 0x00, p[n + 3] = 0x07;
			n += 4;
		}
		for (i = 0; i < k->payload; i++)
			p[n + i] = (uint8_t)(i * 13 + 5);
		n += k->payload;
		/* ICRC: 8 x 0xff, then IP header .. payload, variant fields
		 * all ones; least significant byte first. */
		memset(buf, 0xff, 8);
		q = buf + 8;
		memcpy(q, p + l3, n - l3);
		if (!k->v6) {
			q[1] = 0xff;
			q[8] = 0xff;
			q[10] = q[11] = 0xff;
		} else {
			q[0] |= 0x0f;
			q[1] = q[2] = q[3] = 0xff;
			q[7] = 0xff;
		}
		q[iplen + 6] = q[iplen + 7] = 0xff;
		q[iplen + 8 + 4] = 0xff;
		crc = crc32_eth(buf, 8 + n - l3);
		p[n] = (uint8_t)crc;
		p[n + 1] = (uint8_t)(crc >> 8);
		p[n + 2] = (uint8_t)(crc >> 16);
		p[n + 3] = (uint8_t)(crc >> 24);
		n += 4;
	} else {
		for (i = 0; i < k->payload; i++)
			p[n + i] = (uint8_t)i;
		n += k->payload;
	}
	for (i = 0; i < k->trailer; i++)
		p[n + i] = (uint8_t)(0xa0 + i);
	return n + k->trailer;
}

static int
reparse(struct rte_mbuf *m)
{
	uint8_t in_port = rtr_meta(m)->in_port;
	int r = (int)rtr_parse(mdata(m), m->data_len, SEED, 0, rtr_meta(m));

	rtr_meta(m)->in_port = in_port;
	return r;
}

static struct rte_mbuf *
mk(const struct pkt *k, uint8_t in_port, uint8_t *frame, unsigned int *len)
{
	uint8_t buf[RTR_TEST_MBUF_BUFSZ];
	unsigned int n = build(buf, k);
	struct rte_mbuf *m = fake_frame(buf, n);

	CHECK_EQ(reparse(m), RTR_DROP_NONE);
	rtr_meta(m)->in_port = in_port;
	if (frame != NULL)
		memcpy(frame, buf, n);
	if (len != NULL)
		*len = n;
	return m;
}

static bool
icrc_ok(struct rte_mbuf *m)
{
	struct rtr_meta tm;

	if (rtr_parse(mdata(m), m->data_len, SEED, 0, &tm) != RTR_DROP_NONE)
		return false;
	return rtr_roce_icrc_ok(mdata(m), m->data_len, &tm);
}

static bool
ip4_cksum_ok(struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(mdata(m) + 14);

	return rte_raw_cksum(ip, 20) == 0xffff;
}

static unsigned int
bth(const struct rte_mbuf *m)
{
	(void)m;
	return 14 + 20 + 8;
}

/* ------------------------------------------------------------ instances */

/* One switch: its shared state, one or more workers, counters. */
struct sw {
	struct rtr_caver_shared *sh;
	struct rtr_caver *cv[4];
	struct rtr_lcore_stats st; /* counters: st.lb */
};

static struct rtr_caver_params
defp(struct rtr_caver_shared *sh)
{
	return (struct rtr_caver_params){
			.dre_period_ns = PERIOD,
			.alpha = 0.2,
			.q = 8,
			.aging_ns = AGING,
			.flow_idle_ns = IDLE,
			.flow_entries = 4096,
			.host_port_mask = 0x3,    /* ports 0, 1 */
			.fabric_port_mask = 0x3c, /* ports 2..5 */
			.switch_id = 1,
			.hash_seed = SEED,
			.rng_seed = 7,
			.worker = 0,
			.n_workers = 1,
			.socket_id = 0,
			.use_rte_malloc = false,
			.shared = sh,
	};
}

static void
sw_init(struct sw *s, const struct rtr_caver_params *p0, unsigned int n_workers)
{
	memset(s, 0, sizeof(*s));
	s->sh = rtr_caver_shared_create(256, p0->aging_ns, false, 0);
	CHECK(s->sh != NULL);
	for (unsigned int w = 0; w < n_workers; w++) {
		struct rtr_caver_params p = *p0;

		p.shared = s->sh;
		p.worker = w;
		p.n_workers = n_workers;
		s->cv[w] = rtr_caver_create(&p, NULL);
		CHECK(s->cv[w] != NULL);
	}
}

static void
sw_fini(struct sw *s)
{
	for (unsigned int w = 0; w < 4; w++)
		rtr_caver_free(s->cv[w]);
	rtr_caver_shared_free(s->sh);
	memset(s, 0, sizeof(*s));
}

static void
group(struct rtr_group *g, unsigned int n, const uint16_t *ports)
{
	memset(g, 0, sizeof(*g));
	g->n_paths = (uint16_t)n;
	for (unsigned int i = 0; i < n; i++)
		g->port[i] = ports[i];
	atomic_store(&g->live_mask, (1ULL << n) - 1);
}

/* Send a frame of `len` bytes out of out_port (post_route), as many times as
 * asked; returns the mbuf's length. */
static void
send_bytes(struct rtr_caver *cv, const struct pkt *k, uint16_t out_port, unsigned int times,
		uint64_t now, uint64_t *c)
{
	struct rte_mbuf *m = mk(k, 0, NULL, NULL);

	/* As the pipeline does it, with a queue that takes everything. */
	for (unsigned int i = 0; i < times; i++) {
		rtr_caver_post_route(cv, m, rtr_meta(m), out_port, now, LB_ST(c));
		rtr_caver_queued(cv, m, rtr_meta(m), out_port);
	}
	fake_free(m);
}

/* The CE of ALGORITHMS.md 4 for published bytes x. */
static unsigned int
expect_ce(uint64_t x, double rate, uint64_t period_ns, double alpha, unsigned int q)
{
	double v = 8.0 * (double)x / (rate * ((double)period_ns / 1e9) / alpha) *
		   (double)(1ULL << q);

	return v >= 255.0 ? 255 : (unsigned int)v;
}

/* ------------------------------------------------------------ DRE */

static void
test_dre_hand_values(void)
{
	struct rtr_caver_params p = defp(NULL);
	struct pkt big = {.src = ip4(10, 0, 0, 1),
			.dst = ip4(10, 0, 0, 2),
			.payload = 1258,
			.ttl = 64};
	struct pkt rest = big, empty = big;
	struct sw s;

	/* 100 Gb/s, 50 us, alpha 0.2, Q 8: one CE unit is 2.5e7 / 8 / 256 =
	 * 12207.03 bytes. Non-RoCE frames are 42 + payload bytes. */
	sw_init(&s, &p, 1);
	rtr_caver_tick(s.cv[0], 0, LB_ST(s.st.lb));
	CHECK_EQ(rtr_caver_next_deadline(s.cv[0]), PERIOD);
	empty.payload = 0;
	/* Port 2: 9 x 1300 + 465 + 42 = 12207 bytes: CE 0. */
	rest.payload = 423;
	send_bytes(s.cv[0], &big, 2, 9, 10, s.st.lb);
	send_bytes(s.cv[0], &rest, 2, 1, 10, s.st.lb);
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 2), 0);
	send_bytes(s.cv[0], &empty, 2, 1, 10, s.st.lb);
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 2), 0);
	/* Port 3: 9 x 1300 + 466 + 42 = 12208 bytes: CE 1. */
	rest.payload = 424;
	send_bytes(s.cv[0], &big, 3, 9, 10, s.st.lb);
	send_bytes(s.cv[0], &rest, 3, 1, 10, s.st.lb);
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 3), 0);
	send_bytes(s.cv[0], &empty, 3, 1, 10, s.st.lb);
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 3), 1);
	/* 100 x 12208: CE 100; after one period 80 x 12208 (0.8 is a little
	 * less than 4/5 in binary: 79); a port out of range is 0. */
	send_bytes(s.cv[0], &big, 3, 929, 10, s.st.lb);
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 3),
			expect_ce(12208 + 929 * 1300, 100e9, PERIOD, 0.2, 8));
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 3), 99);
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 200), 0);
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], RTR_MAX_PORTS), 0);
	/* Line rate for a long time: X -> 625000 / 0.2 bytes, CE 256 -> 255. */
	for (unsigned int i = 1; i <= 200; i++) {
		rtr_caver_tick(s.cv[0], i * PERIOD, LB_ST(s.st.lb));
		send_bytes(s.cv[0], &big, 4, 481, i * PERIOD + 1, s.st.lb);
	}
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 4), 255);
	/* One period later: 0.8 of it, CE 204. */
	rtr_caver_tick(s.cv[0], 201 * PERIOD, LB_ST(s.st.lb));
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 4), 204);
	sw_fini(&s);
}

/* Several rates, alphas, Q, sizes, ticks on time and late: the CE is the
 * formula over the bytes the test itself decays. */
static void
test_dre_formula(void)
{
	static const struct {
		double rate_cfg; /* 0: default 100G */
		double alpha;
		unsigned int q;
		uint64_t period;
		bool clamps;
	} cases[] = {
			{0, 0.2, 8, 50000, false},
			{25e9, 0.2, 8, 50000, false},
			{10e9, 0.5, 4, 20000, false},
			{2.5e9, 0.1, 10, 100000, true},
			{1e9, 1.0, 8, 50000, true},
			{40e9, 0.05, 12, 10000, true},
	};
	static const unsigned int sizes[] = {60, 64, 128, 1000, 1500, 333, 1024, 77};

	for (unsigned int ci = 0; ci < RTR_ARRAY_SIZE(cases); ci++) {
		struct rtr_caver_params p = defp(NULL);
		double rate = cases[ci].rate_cfg > 0 ? cases[ci].rate_cfg : 100e9;
		double x = 0, keep = 1.0 - cases[ci].alpha;
		uint64_t now = 3, next;
		unsigned int clamped = 0, nonzero = 0;
		struct sw s;

		p.alpha = cases[ci].alpha;
		p.q = cases[ci].q;
		p.dre_period_ns = cases[ci].period;
		p.rate_bps[3] = cases[ci].rate_cfg;
		sw_init(&s, &p, 1);
		rtr_caver_tick(s.cv[0], now, LB_ST(s.st.lb));
		next = rtr_caver_next_deadline(s.cv[0]);
		CHECK_EQ(next, cases[ci].period);
		for (unsigned int step = 0; step < 400; step++) {
			unsigned int sz = sizes[step % RTR_ARRAY_SIZE(sizes)];
			unsigned int times = 1 + (step * 7) % 23;
			struct pkt k = data(ip4(10, 0, 0, 1), ip4(10, 0, 0, 2), 1000,
					sz - (14 + 20 + 8 + 12 + 4));
			uint64_t skip;

			if (step > 250)
				times = step % 3; /* let it drain */
			now = next - 1 - (step % 5);
			send_bytes(s.cv[0], &k, 3, times, now, s.st.lb);
			x += (double)sz * times;
			{
				unsigned int got = rtr_caver_port_ce(s.cv[0], 3);

				CHECK_EQ(got, expect_ce((uint64_t)x, rate, cases[ci].period,
							      cases[ci].alpha, cases[ci].q));
				clamped += got == 255;
				nonzero += got > 0 && got < 255;
			}
			/* Every 7th tick is late by 1..4 periods. */
			skip = step % 7 == 6 ? 1 + step % 4 : 0;
			now = next + skip * cases[ci].period + (step % 3);
			rtr_caver_tick(s.cv[0], now, LB_ST(s.st.lb));
			for (uint64_t i = 0; i <= skip; i++)
				x *= keep;
			if (x < 1e-9)
				x = 0;
			next += (skip + 1) * cases[ci].period;
			CHECK_EQ(rtr_caver_next_deadline(s.cv[0]), next);
			{
				unsigned int got = rtr_caver_port_ce(s.cv[0], 3);

				CHECK_EQ(got, expect_ce((uint64_t)x, rate, cases[ci].period,
							      cases[ci].alpha, cases[ci].q));
				clamped += got == 255;
				nonzero += got > 0 && got < 255;
			}
			/* A tick before the boundary changes nothing. */
			rtr_caver_tick(s.cv[0], next - 1, LB_ST(s.st.lb));
			CHECK_EQ(rtr_caver_next_deadline(s.cv[0]), next);
		}
		/* Each case went through the linear range; the ones loaded
		 * above their rate through the clamp too. */
		CHECK(nonzero > 10, "case %u", ci);
		if (cases[ci].clamps)
			CHECK(clamped > 0, "case %u", ci);
		sw_fini(&s);
	}
}

/* What is and is not counted; the workers of a switch add up. */
static void
test_dre_what_counts(void)
{
	struct rtr_caver_params p = defp(NULL);
	uint32_t a = ip4(10, 0, 0, 1), b = ip4(10, 0, 0, 2);
	struct pkt cnp = data(a, b, 1, 16), nak = ack(a, b, 1),
		   other = {.src = a, .dst = b, .payload = 958, .ttl = 64};
	struct pkt d = data(a, b, 1, 1000 - 58);
	const double keep = 1.0 - 0.2;
	uint64_t x0, x1;
	struct sw s;

	cnp.opcode = RTR_BTH_OP_CNP;
	p.rate_bps[2] = 1e9;
	sw_init(&s, &p, 2);
	rtr_caver_tick(s.cv[0], 0, LB_ST(s.st.lb));
	rtr_caver_tick(s.cv[1], 0, LB_ST(s.st.lb));
	/* ACKs and CNPs are not data: nothing. Port 4 is fabric, the ACK comes
	 * from in_port 0 (host) in mk(), so it gets a shim on the way. */
	send_bytes(s.cv[0], &cnp, 2, 50, 1, s.st.lb);
	send_bytes(s.cv[0], &nak, 2, 1, 1, s.st.lb);
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 2), 0);
	/* Data and non-RoCE are. */
	send_bytes(s.cv[0], &d, 2, 3, 1, s.st.lb);
	x0 = 3000;
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 2), expect_ce(x0, 1e9, PERIOD, 0.2, 8));
	send_bytes(s.cv[1], &other, 2, 2, 1, s.st.lb);
	x1 = 2000;
	/* Both workers see the sum. */
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 2), expect_ce(x0 + x1, 1e9, PERIOD, 0.2, 8));
	CHECK_EQ(rtr_caver_port_ce(s.cv[1], 2), expect_ce(x0 + x1, 1e9, PERIOD, 0.2, 8));
	/* Each decays its own part. */
	rtr_caver_tick(s.cv[0], PERIOD, LB_ST(s.st.lb));
	CHECK_EQ(rtr_caver_port_ce(s.cv[1], 2),
			expect_ce((uint64_t)(3000 * keep) + x1, 1e9, PERIOD, 0.2, 8));
	rtr_caver_tick(s.cv[1], 3 * PERIOD + 1, LB_ST(s.st.lb));
	CHECK_EQ(rtr_caver_port_ce(s.cv[1], 2),
			expect_ce((uint64_t)(3000 * keep) + (uint64_t)(2000 * keep * keep * keep),
					1e9, PERIOD, 0.2, 8));
	CHECK_EQ(rtr_caver_next_deadline(s.cv[1]), 4 * PERIOD);
	/* A very late tick (k > 64) takes it all away. */
	rtr_caver_tick(s.cv[0], 100000 * PERIOD, LB_ST(s.st.lb));
	rtr_caver_tick(s.cv[1], 100000 * PERIOD, LB_ST(s.st.lb));
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 2), 0);
	CHECK_EQ(rtr_caver_next_deadline(s.cv[0]), 100001 * PERIOD);
	sw_fini(&s);
}

/* ------------------------------------------------------------ path table */

static void
test_table_aging(void)
{
	struct rtr_caver_params p = defp(NULL);
	struct rtr_caver_shim adv = {.path = 0x05060708, .ce = 77, .hops = 2}, got;
	uint32_t h = ip4(10, 0, 2, 2), h2 = ip4(10, 0, 2, 3);
	uint64_t t0 = 123456789; /* not a multiple of anything */
	struct sw s;

	sw_init(&s, &p, 1);
	CHECK(!rtr_caver_table_get(s.cv[0], h, 2, t0, &got));
	CHECK(rtr_caver_table_put(s.cv[0], h, 2, &adv, t0, s.st.lb));
	CHECK(rtr_caver_table_get(s.cv[0], h, 2, t0, &got));
	CHECK_EQ(got.ce, 77);
	CHECK_EQ(got.path, 0x05060700); /* the last hop byte is never needed */
	CHECK_EQ(got.hops, 2);
	CHECK(!rtr_caver_table_get(s.cv[0], h, 3, t0, &got));
	CHECK(rtr_caver_table_get(s.cv[0], h, 2, t0 + AGING - 1, &got));
	CHECK(!rtr_caver_table_get(s.cv[0], h, 2, t0 + AGING, &got));
	CHECK(!rtr_caver_table_get(s.cv[0], h, 2, t0 + AGING + 1, &got));
	/* A writer whose clock read is a little ahead: fresh, not ancient. */
	CHECK(rtr_caver_table_get(s.cv[0], h, 2, t0 - 500, &got));
	/* Refresh. */
	adv.ce = 5;
	adv.hops = 9; /* clamped to 3 in the table */
	CHECK(rtr_caver_table_put(s.cv[0], h, 2, &adv, t0 + AGING, s.st.lb));
	CHECK(rtr_caver_table_get(s.cv[0], h, 2, t0 + 2 * AGING - 1, &got));
	CHECK_EQ(got.ce, 5);
	CHECK_EQ(got.hops, 3);
	/* ce 0, path 0, hops 0 at time 0 mod 2^29 is still an entry. */
	memset(&adv, 0, sizeof(adv));
	CHECK(rtr_caver_table_put(s.cv[0], h2, 4, &adv, 1ULL << 29, s.st.lb));
	CHECK(rtr_caver_table_get(s.cv[0], h2, 4, (1ULL << 29) + 10, &got));
	CHECK_EQ(got.ce, 0);
	CHECK_EQ(rtr_caver_table_words(s.sh), 2);
	/* Host 0 is no host. */
	CHECK(!rtr_caver_table_put(s.cv[0], 0, 4, &adv, 1, s.st.lb));
	sw_fini(&s);
}

/* The sweep clears aged words (and only those); then even a reader whose
 * 29-bit clock wrapped around cannot see them. */
static void
test_table_sweep(void)
{
	struct rtr_caver_params p = defp(NULL);
	struct rtr_caver_shim adv = {.ce = 9}, got;
	uint64_t t0 = 1000000, now;
	struct sw s;

	sw_init(&s, &p, 2);
	for (unsigned int i = 1; i <= 40; i++)
		for (uint16_t port = 2; port < 5; port++)
			CHECK(rtr_caver_table_put(s.cv[i % 2], ip4(10, 9, 0, (uint8_t)i), port,
					&adv, t0, s.st.lb));
	CHECK_EQ(rtr_caver_table_words(s.sh), 120);
	/* Before the aging time nothing goes, however often ticks run. */
	for (unsigned int i = 0; i < 100; i++) {
		rtr_caver_tick(s.cv[0], t0 + AGING - 100 + i / 2, LB_ST(s.st.lb));
		rtr_caver_tick(s.cv[1], t0 + AGING - 100 + i / 2, LB_ST(s.st.lb));
	}
	CHECK_EQ(rtr_caver_table_words(s.sh), 120);
	/* One fresh entry stays. */
	now = t0 + AGING;
	CHECK(rtr_caver_table_put(s.cv[0], ip4(10, 9, 0, 7), 5, &adv, now, s.st.lb));
	/* 256 slots, 128 per worker, 8 per tick at least: 16 ticks each. */
	for (unsigned int i = 0; i < 16; i++) {
		rtr_caver_tick(s.cv[0], now + i, LB_ST(s.st.lb));
		rtr_caver_tick(s.cv[1], now + i, LB_ST(s.st.lb));
	}
	CHECK_EQ(rtr_caver_table_words(s.sh), 1);
	CHECK(rtr_caver_table_get(s.cv[1], ip4(10, 9, 0, 7), 5, now + 100, &got));
	/* 2^29 ns later the swept entries do not come back. */
	CHECK(!rtr_caver_table_get(s.cv[1], ip4(10, 9, 0, 8), 2, t0 + (1ULL << 29) + 5, &got));
	/* A long pause: one tick sweeps the whole share. */
	now += 10 * AGING;
	rtr_caver_tick(s.cv[0], now, LB_ST(s.st.lb));
	rtr_caver_tick(s.cv[1], now, LB_ST(s.st.lb));
	now += 1ULL << 27;
	rtr_caver_tick(s.cv[0], now, LB_ST(s.st.lb));
	rtr_caver_tick(s.cv[1], now, LB_ST(s.st.lb));
	CHECK_EQ(rtr_caver_table_words(s.sh), 0);
	sw_fini(&s);
}

static void
test_table_full_and_coarse(void)
{
	struct rtr_caver_params p = defp(NULL);
	struct rtr_caver_shim adv = {.ce = 1}, got;
	struct rtr_caver_shared *sh;
	struct rtr_caver *cv;
	struct rtr_lcore_stats c_st = {0};
	uint64_t *c = c_st.lb;
	unsigned int ok = 0;

	sh = rtr_caver_shared_create(8, AGING, false, 0);
	p.shared = sh;
	cv = rtr_caver_create(&p, NULL);
	CHECK(cv != NULL);
	for (unsigned int i = 1; i <= 9; i++)
		ok += rtr_caver_table_put(cv, ip4(10, 8, 0, (uint8_t)i), 2, &adv, 5, c);
	CHECK_EQ(ok, 8);
	CHECK_EQ(c[RTR_LBC_caver_hosts_full], 1);
	/* Known hosts still update. */
	CHECK(rtr_caver_table_put(cv, ip4(10, 8, 0, 3), 3, &adv, 5, c));
	CHECK_EQ(c[RTR_LBC_caver_hosts_full], 1);
	rtr_caver_free(cv);
	rtr_caver_shared_free(sh);

	/* An aging of 1 s does not fit 2^27 ns: 8-ns units. */
	p.aging_ns = 1000000000ULL;
	sh = rtr_caver_shared_create(0, p.aging_ns, false, 0);
	p.shared = sh;
	cv = rtr_caver_create(&p, NULL);
	CHECK(rtr_caver_table_put(cv, ip4(10, 8, 0, 1), 2, &adv, 8000, c));
	CHECK(rtr_caver_table_get(cv, ip4(10, 8, 0, 1), 2, 8000 + p.aging_ns - 8, &got));
	CHECK(!rtr_caver_table_get(cv, ip4(10, 8, 0, 1), 2, 8000 + p.aging_ns, &got));
	rtr_caver_free(cv);
	rtr_caver_shared_free(sh);

	/* Bad parameters. */
	p.shared = NULL;
	CHECK(rtr_caver_create(&p, NULL) == NULL);
	sh = rtr_caver_shared_create(8, AGING, false, 0);
	p.shared = sh;
	p.alpha = 0;
	CHECK(rtr_caver_create(&p, NULL) == NULL);
	p.alpha = 0.2;
	p.worker = 1;
	CHECK(rtr_caver_create(&p, NULL) == NULL);
	rtr_caver_shared_free(sh);
}

/* ------------------------------------------------------------ SrcToR */

/* A RoCE data packet of a flow from host port 0 through pick. */
static int
src_pick(struct sw *s, const struct rtr_group *g, uint32_t src, uint32_t dst, uint16_t sport,
		uint64_t now, uint8_t *b4)
{
	struct pkt k = data(src, dst, sport, 100);
	struct rte_mbuf *m;
	int path;

	k.b4 = 0x80 | 0x40; /* what a host may leave there: must not survive */
	m = mk(&k, 0, NULL, NULL);
	path = rtr_caver_pick(s->cv[0], g, 0, m, rtr_meta(m), now, LB_ST(s->st.lb));
	if (b4 != NULL)
		*b4 = mdata(m)[bth(m) + 4];
	CHECK_EQ(rtr_meta(m)->bth_b4, mdata(m)[bth(m) + 4]);
	fake_free(m);
	return path;
}

struct flow_seen {
	unsigned int n;
	struct rtr_lb_flow_info f[64];
};

static void
flow_cb(void *arg, const struct rtr_lb_flow_info *f)
{
	struct flow_seen *s = arg;

	if (s->n < RTR_ARRAY_SIZE(s->f))
		s->f[s->n] = *f;
	s->n++;
}

static void
test_best_path(void)
{
	static const uint16_t ports[4] = {2, 3, 4, 5};
	struct rtr_caver_params p = defp(NULL);
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2), h9 = ip4(10, 0, 9, 9);
	struct rtr_caver_shim adv;
	struct rtr_group g;
	struct flow_seen fs;
	uint8_t b4;
	uint64_t now = 1000000;
	struct sw s;
	int path;

	p.rate_bps[3] = 1e9; /* a slow port: a few packets make a CE */
	sw_init(&s, &p, 1);
	group(&g, 4, ports);
	rtr_caver_tick(s.cv[0], now, LB_ST(s.st.lb));
	/* Remote CEs 50, 20, 80, 30; the spine behind port 3 reached h2 via its
	 * port 7 (hops 1). */
	adv = (struct rtr_caver_shim){.path = 0x09000000, .ce = 50, .hops = 1};
	rtr_caver_table_put(s.cv[0], h2, 2, &adv, now, s.st.lb);
	adv = (struct rtr_caver_shim){.path = 0x07000000, .ce = 20, .hops = 1};
	rtr_caver_table_put(s.cv[0], h2, 3, &adv, now, s.st.lb);
	adv = (struct rtr_caver_shim){.path = 0x0a000000, .ce = 80, .hops = 1};
	rtr_caver_table_put(s.cv[0], h2, 4, &adv, now, s.st.lb);
	adv = (struct rtr_caver_shim){.path = 0, .ce = 30, .hops = 0};
	rtr_caver_table_put(s.cv[0], h2, 5, &adv, now, s.st.lb);
	path = src_pick(&s, &g, h1, h2, 100, now, &b4);
	CHECK_EQ(path, 1);
	CHECK_EQ(b4, 0x87);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_table], 1);
	memset(&fs, 0, sizeof(fs));
	CHECK_EQ(rtr_lb_fs_flows(s.cv[0], now + 5, 0, flow_cb, &fs), 1);
	CHECK_EQ(fs.f[0].path, 1);
	CHECK_EQ(fs.f[0].next_hop, 7);
	CHECK_EQ(fs.f[0].ce, 20);
	CHECK(fs.f[0].by_table);
	CHECK_EQ(fs.f[0].idle_ns, 5);
	CHECK_EQ(fs.f[0].sport, 100);
	CHECK(!fs.f[0].v6 && !fs.f[0].dst_role);
	CHECK(memcmp(fs.f[0].dst, &h2, 4) == 0);
	CHECK_EQ(fs.f[0].deadline_in_ns, UINT64_MAX);
	CHECK_EQ(fs.f[0].reply_deadline_in_ns, UINT64_MAX);
	/* Local congestion on port 3 above 30: max(local, 20) loses to port
	 * 5's 30 (hops 0: no source route). */
	send_bytes(s.cv[0], &(struct pkt){.src = h1, .dst = h2, .payload = 1458, .ttl = 64}, 3, 3,
			now, s.st.lb);
	CHECK(rtr_caver_port_ce(s.cv[0], 3) > 30);
	path = src_pick(&s, &g, h1, h2, 101, now, &b4);
	CHECK_EQ(path, 3);
	CHECK_EQ(b4, 0);
	/* Port 5 down: port 2 (50) beats max(local, 20) only if local > 50. */
	atomic_store(&g.live_mask, 0x7);
	path = src_pick(&s, &g, h1, h2, 102, now, NULL);
	CHECK_EQ(path, rtr_caver_port_ce(s.cv[0], 3) > 50 ? 0 : 1);
	/* Aged entries are unknown paths: only the refreshed one (port 4,
	 * 80) is valid; ports 2 and 5 (local CE 0, no tick since: port 3
	 * keeps its bytes) cost 0 and win, without the aged entries' source
	 * routes (port 2's 0x89 would be one). */
	atomic_store(&g.live_mask, 0xf);
	adv = (struct rtr_caver_shim){.path = 0x0b000000, .ce = 80, .hops = 2};
	rtr_caver_table_put(s.cv[0], h2, 4, &adv, now + AGING, s.st.lb);
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 2), 0);
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 5), 0);
	path = src_pick(&s, &g, h1, h2, 103, now + AGING, &b4);
	CHECK(path == 0 || path == 3, "%d", path);
	CHECK_EQ(b4, 0);
	/* The refreshed entry wins once it is the cheapest. */
	adv = (struct rtr_caver_shim){.path = 0x0b000000, .ce = 0, .hops = 2};
	rtr_caver_table_put(s.cv[0], h2, 2, &adv, now + AGING, s.st.lb);
	adv.ce = 1;
	rtr_caver_table_put(s.cv[0], h2, 5, &adv, now + AGING, s.st.lb);
	path = src_pick(&s, &g, h1, h2, 107, now + AGING, &b4);
	CHECK_EQ(path, 0);
	CHECK_EQ(b4, 0x8b);
	/* No entry at all: ECMP, and no source route. */
	{
		struct pkt k = data(h1, h9, 104, 100);
		struct rte_mbuf *m = mk(&k, 0, NULL, NULL);
		uint64_t before = s.st.lb[RTR_LBC_caver_flows_ecmp];

		path = rtr_caver_pick(s.cv[0], &g, 0, m, rtr_meta(m), now, LB_ST(s.st.lb));
		CHECK_EQ(path, rtr_group_pick(&g, rtr_meta(m)->flow_hash));
		CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_ecmp], before + 1);
		CHECK_EQ(mdata(m)[bth(m) + 4], 0);
		fake_free(m);
	}
	/* IPv6: ECMP (the table is IPv4). */
	{
		struct pkt k = data(h1, h2, 105, 100);
		struct rte_mbuf *m;

		k.v6 = true;
		k.b4 = 0xc0;
		m = mk(&k, 0, NULL, NULL);
		path = rtr_caver_pick(s.cv[0], &g, 0, m, rtr_meta(m), now, LB_ST(s.st.lb));
		CHECK_EQ(path, rtr_group_pick(&g, rtr_meta(m)->flow_hash));
		CHECK_EQ(mdata(m)[14 + 40 + 8 + 4], 0);
		fake_free(m);
	}
	/* No live path. */
	atomic_store(&g.live_mask, 0);
	CHECK_EQ(src_pick(&s, &g, h1, h2, 106, now, NULL), -1);
	sw_fini(&s);
}

/*
 * A live uplink without a valid entry for the destination is still a
 * candidate, at its local CE (the remote CE of an unknown path counts as
 * 0), as in the CAVER reference's source-ToR choice (doc/caver.md
 * "Placement at the SrcToR"). Leaving it out put every new flow on the one
 * uplink an advertisement had come in on, however loaded (on the k=4
 * fat-tree 84% of the placements had one valid entry of two uplinks).
 */
static void
test_unadvertised_path(void)
{
	static const uint16_t ports[2] = {2, 3};
	struct rtr_caver_params p = defp(NULL);
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	struct pkt big = {.src = h1, .dst = h2, .payload = 1458, .ttl = 64};
	struct rtr_caver_shim adv = {.path = 0x07000000, .ce = 10, .hops = 1};
	struct flow_seen fs;
	struct rtr_group g;
	uint64_t now = 1000000;
	uint8_t b4;
	struct sw s;

	/* Slow ports: three full frames make a CE of about 37 at 1 Gb/s. */
	p.rate_bps[2] = 1e9;
	p.rate_bps[3] = 1e9;
	sw_init(&s, &p, 1);
	group(&g, 2, ports);
	rtr_caver_tick(s.cv[0], now, LB_ST(s.st.lb));
	rtr_caver_table_put(s.cv[0], h2, 2, &adv, now, s.st.lb);
	send_bytes(s.cv[0], &big, 2, 3, now, s.st.lb);
	CHECK(rtr_caver_port_ce(s.cv[0], 2) > 10, "%u", rtr_caver_port_ce(s.cv[0], 2));
	CHECK_EQ(rtr_caver_port_ce(s.cv[0], 3), 0);
	/* Port 2 costs max(local > 10, 10), port 3 max(0, unknown = 0): port
	 * 3, without a source route (nothing is known past it). */
	CHECK_EQ(src_pick(&s, &g, h1, h2, 100, now, &b4), 1);
	CHECK_EQ(b4, 0);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_table], 1);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_ecmp], 0);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_unadvertised], 1);
	memset(&fs, 0, sizeof(fs));
	CHECK_EQ(rtr_lb_fs_flows(s.cv[0], now, 0, flow_cb, &fs), 1);
	CHECK_EQ(fs.f[0].path, 1);
	CHECK_EQ(fs.f[0].ce, 0);
	CHECK_EQ(fs.f[0].next_hop, RTR_LB_HOP_NONE);
	/* Port 3 now carries twice port 2's bytes: its local CE alone is above
	 * port 2's cost, and the advertised path wins again, source-routed. */
	send_bytes(s.cv[0], &big, 3, 6, now, s.st.lb);
	CHECK(rtr_caver_port_ce(s.cv[0], 3) > rtr_caver_port_ce(s.cv[0], 2), "%u %u",
			rtr_caver_port_ce(s.cv[0], 3), rtr_caver_port_ce(s.cv[0], 2));
	CHECK_EQ(src_pick(&s, &g, h1, h2, 101, now, &b4), 0);
	CHECK_EQ(b4, 0x87);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_table], 2);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_unadvertised], 1);
	sw_fini(&s);
}

/*
 * ACKs, NAKs and CNPs from a host are sent by ECMP, never placed from the
 * path table (the CAVER reference routes its ACKs by ECMP at every switch).
 * The ACKs carry this ToR's advertisements: placed like data, they all
 * took the cheapest uplink, so the spine behind a congested uplink never
 * saw an advertisement of this ToR's hosts and never learnt its own
 * downlink toward them (doc/caver.md "ACKs"). Here the table makes port 2
 * the only cheap path to h1: data goes there, the ACKs to h1 spread over
 * all four uplinks as the group's hash says, with no source route and no
 * flow entry.
 */
static void
test_acks_by_ecmp(void)
{
	static const uint16_t ports[4] = {2, 3, 4, 5};
	struct rtr_caver_params p = defp(NULL);
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	unsigned int per_path[4] = {0}, n = 64;
	struct rtr_caver_shim adv = {.path = 0x07000000, .ce = 0, .hops = 1};
	struct flow_seen fs;
	struct rtr_group g;
	uint64_t now = 1000000;
	uint8_t b4;
	struct sw s;

	sw_init(&s, &p, 1);
	group(&g, 4, ports);
	rtr_caver_tick(s.cv[0], now, LB_ST(s.st.lb));
	rtr_caver_table_put(s.cv[0], h1, 2, &adv, now, s.st.lb);
	adv.ce = 200;
	for (uint16_t port = 3; port <= 5; port++)
		rtr_caver_table_put(s.cv[0], h1, port, &adv, now, s.st.lb);
	for (unsigned int i = 0; i < n + 1; i++) {
		struct pkt k = ack(h2, h1, (uint16_t)(3000 + i));
		struct rte_mbuf *m;
		int path;

		if (i == n)
			k.opcode = RTR_BTH_OP_CNP; /* and a CNP */
		k.b4 = 0xc0; /* what a host may leave there: must not survive */
		m = mk(&k, 0, NULL, NULL);
		path = rtr_caver_pick(s.cv[0], &g, 0, m, rtr_meta(m), now, LB_ST(s.st.lb));
		CHECK_EQ(path, rtr_group_pick(&g, rtr_meta(m)->flow_hash));
		CHECK_EQ(mdata(m)[bth(m) + 4], 0);
		CHECK_EQ(rtr_meta(m)->bth_b4, 0);
		if (path >= 0 && path < 4)
			per_path[path]++;
		fake_free(m);
	}
	CHECK_EQ(s.st.lb[RTR_LBC_ecmp_packets], n + 1);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_table], 0);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_ecmp], 0);
	memset(&fs, 0, sizeof(fs));
	CHECK_EQ(rtr_lb_fs_flows(s.cv[0], now, 0, flow_cb, &fs), 0);
	/* 65 hashed flows over 4 paths: every path gets some (a path missed
	 * with probability 4 * (3/4)^65, about 3e-8, for a uniform hash). */
	for (unsigned int i = 0; i < 4; i++)
		CHECK(per_path[i] > 0, "path %u: %u", i, per_path[i]);
	/* Data from the same host to h1 is still placed from the table. */
	CHECK_EQ(src_pick(&s, &g, h2, h1, 100, now, &b4), 0);
	CHECK_EQ(b4, 0x87);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_table], 1);
	sw_fini(&s);
}

/* Equal costs: every tied path about as often. */
static void
test_ties(void)
{
	static const uint16_t ports[4] = {2, 3, 4, 5};
	struct rtr_caver_params p = defp(NULL);
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	struct rtr_caver_shim adv = {.ce = 10};
	unsigned int count[4] = {0}, n = 8000;
	struct rtr_group g;
	struct sw s;

	p.flow_entries = 65536;
	sw_init(&s, &p, 1);
	group(&g, 4, ports);
	for (uint16_t port = 2; port <= 5; port++)
		rtr_caver_table_put(s.cv[0], h2, port, &adv, 1, s.st.lb);
	/* A lower CE on a port outside the group changes nothing. */
	adv.ce = 1;
	rtr_caver_table_put(s.cv[0], h2, 6, &adv, 1, s.st.lb);
	for (unsigned int i = 0; i < n; i++) {
		int path = src_pick(&s, &g, h1, h2, (uint16_t)(1000 + i), 2, NULL);

		if (path >= 0 && path < 4)
			count[path]++;
	}
	for (unsigned int i = 0; i < 4; i++)
		CHECK(count[i] > n / 4 - n / 20 && count[i] < n / 4 + n / 20, "path %u: %u", i,
				count[i]);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_table], n);
	/* Two of four tied (later: the first flows are idle by then). */
	for (uint16_t port = 2; port <= 5; port++) {
		adv.ce = port == 2 || port == 4 ? 11 : 10;
		rtr_caver_table_put(s.cv[0], h2, port, &adv, 3 * IDLE, s.st.lb);
	}
	memset(count, 0, sizeof(count));
	for (unsigned int i = 0; i < n; i++) {
		int path = src_pick(&s, &g, h1, h2, (uint16_t)(20000 + i), 3 * IDLE, NULL);

		if (path >= 0 && path < 4)
			count[path]++;
	}
	CHECK_EQ(count[0] + count[2], 0);
	CHECK(count[1] > n / 2 - n / 20 && count[1] < n / 2 + n / 20, "%u", count[1]);
	CHECK_EQ(s.st.lb[RTR_LBC_flow_table_full], 0);
	sw_fini(&s);
}

/* One worker whose table outlives its flows, a group over ports 2 and 3,
 * and h2 advertised out of both at `now`: port 2 (CE 10) better than port
 * 3 (CE 20; a port without an entry would cost its local CE, 0, and win). */
static void
two_paths(struct sw *s, struct rtr_group *g, uint32_t h2, uint64_t now)
{
	static const uint16_t ports[2] = {2, 3};
	struct rtr_caver_params p = defp(NULL);
	struct rtr_caver_shim adv = {.ce = 10, .path = 0x04000000, .hops = 1};

	p.aging_ns = 100 * IDLE;
	sw_init(s, &p, 1);
	group(g, 2, ports);
	rtr_caver_table_put(s->cv[0], h2, 2, &adv, now, s->st.lb);
	adv = (struct rtr_caver_shim){.ce = 20, .path = 0x05000000, .hops = 1};
	rtr_caver_table_put(s->cv[0], h2, 3, &adv, now, s->st.lb);
}

/* A flow keeps its path while active; idle past flow_idle it is placed
 * again; a dead path moves it at once; a full flow table means ECMP. */
static void
test_stickiness(void)
{
	static const uint16_t ports[2] = {2, 3};
	struct rtr_caver_params p;
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	struct rtr_caver_shim adv;
	struct rtr_group g;
	uint64_t now = 5000000, t;
	uint8_t b4;
	struct sw s;

	two_paths(&s, &g, h2, now);
	CHECK_EQ(src_pick(&s, &g, h1, h2, 7, now, &b4), 0);
	CHECK_EQ(b4, 0x84);
	/* Port 3 becomes much better: the active flow stays. */
	adv = (struct rtr_caver_shim){.ce = 0, .path = 0x05000000, .hops = 1};
	rtr_caver_table_put(s.cv[0], h2, 3, &adv, now, s.st.lb);
	for (t = now; t <= now + 5 * IDLE; t += IDLE) {
		CHECK_EQ(src_pick(&s, &g, h1, h2, 7, t, &b4), 0);
		CHECK_EQ(b4, 0x84);
	}
	t -= IDLE;
	/* Idle exactly flow_idle: still the flow. */
	CHECK_EQ(src_pick(&s, &g, h1, h2, 7, t + IDLE, NULL), 0);
	CHECK_EQ(s.st.lb[RTR_LBC_reroutes], 0);
	/* Idle one more ns: placed again, on port 3. */
	t += IDLE;
	CHECK_EQ(src_pick(&s, &g, h1, h2, 7, t + IDLE + 1, &b4), 1);
	CHECK_EQ(b4, 0x85);
	CHECK_EQ(s.st.lb[RTR_LBC_reroutes], 1);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_table], 2);
	t += IDLE + 1;
	/* Its path dies: moved at once (to the only live one). */
	atomic_store(&g.live_mask, 0x1);
	CHECK_EQ(src_pick(&s, &g, h1, h2, 7, t + 1, &b4), 0);
	CHECK_EQ(b4, 0x84);
	CHECK_EQ(s.st.lb[RTR_LBC_reroutes], 2);
	/* Back up: the flow stays where it is now. */
	atomic_store(&g.live_mask, 0x3);
	CHECK_EQ(src_pick(&s, &g, h1, h2, 7, t + 2, NULL), 0);
	sw_fini(&s);

	/* Flow table full: ECMP, byte 4 cleared, counted. */
	p = defp(NULL);
	p.flow_entries = 8;
	sw_init(&s, &p, 1);
	group(&g, 2, ports);
	for (unsigned int i = 0; i < 8; i++)
		CHECK(src_pick(&s, &g, h1, h2, (uint16_t)(100 + i), 10, NULL) >= 0);
	CHECK_EQ(s.st.lb[RTR_LBC_flow_table_full], 0);
	{
		struct pkt k = data(h1, h2, 200, 100);
		struct rte_mbuf *m;
		int path;

		k.b4 = 0x83;
		m = mk(&k, 0, NULL, NULL);
		path = rtr_caver_pick(s.cv[0], &g, 0, m, rtr_meta(m), 11, LB_ST(s.st.lb));
		CHECK_EQ(path, rtr_group_pick(&g, rtr_meta(m)->flow_hash));
		CHECK_EQ(mdata(m)[bth(m) + 4], 0);
		CHECK_EQ(s.st.lb[RTR_LBC_flow_table_full], 1);
		fake_free(m);
	}
	/* Once the old flows are idle past flow_idle, the sweep frees them. */
	for (unsigned int i = 0; i < 4; i++)
		rtr_caver_tick(s.cv[0], 11 + IDLE + 1 + i, LB_ST(s.st.lb));
	CHECK(src_pick(&s, &g, h1, h2, 200, 12 + IDLE + 8, NULL) >= 0);
	CHECK_EQ(s.st.lb[RTR_LBC_flow_table_full], 1);
	sw_fini(&s);
}

/* ------------------------------------------------------------ spine */

static int
transit_pick(struct sw *s, const struct rtr_group *g, uint8_t in_port, struct pkt k,
		uint8_t *b4_after)
{
	struct rte_mbuf *m = mk(&k, in_port, NULL, NULL);
	int path = rtr_caver_pick(s->cv[0], g, 0, m, rtr_meta(m), 100, LB_ST(s->st.lb));

	if (b4_after != NULL)
		*b4_after = k.roce ? mdata(m)[bth(m) + 4] : 0;
	if (path >= 0 && k.roce)
		CHECK_EQ(rtr_meta(m)->bth_b4, k.b4);
	fake_free(m);
	return path;
}

static void
test_source_route(void)
{
	static const uint16_t ports[3] = {4, 2, 5};
	struct rtr_caver_params p = defp(NULL);
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	struct pkt k = data(h1, h2, 9, 100);
	struct rtr_group g;
	uint8_t b4;
	struct sw s;

	sw_init(&s, &p, 1);
	group(&g, 3, ports);
	k.b4 = 0x82;
	CHECK_EQ(transit_pick(&s, &g, 3, k, &b4), 1);
	CHECK_EQ(b4, 0x82); /* left as it is */
	k.b4 = 0x85;
	CHECK_EQ(transit_pick(&s, &g, 3, k, NULL), 2);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_source_routed], 2);
	/* ACKs follow their source route too. */
	{
		struct pkt a = ack(h2, h1, 9);

		a.b4 = 0x84;
		CHECK_EQ(transit_pick(&s, &g, 2, a, NULL), 0);
	}
	CHECK_EQ(s.st.lb[RTR_LBC_caver_source_routed], 3);
	CHECK_EQ(s.st.lb[RTR_LBC_ecmp_packets], 0);
	/* A port not in the group, and one that is down: ECMP. */
	k.b4 = 0x89;
	CHECK(transit_pick(&s, &g, 3, k, &b4) >= 0);
	CHECK_EQ(b4, 0x89);
	atomic_store(&g.live_mask, 0x5);
	k.b4 = 0x82;
	CHECK(transit_pick(&s, &g, 3, k, NULL) != 1);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_source_route_bad], 2);
	CHECK_EQ(s.st.lb[RTR_LBC_ecmp_packets], 2);
	/* No source route, non-RoCE: ECMP. */
	atomic_store(&g.live_mask, 0x7);
	k.b4 = 0x02;
	CHECK(transit_pick(&s, &g, 3, k, NULL) >= 0);
	CHECK(transit_pick(&s, &g, 3, (struct pkt){.src = h1, .dst = h2, .payload = 10, .ttl = 9},
			      NULL) >= 0);
	CHECK_EQ(s.st.lb[RTR_LBC_ecmp_packets], 4);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_source_route_bad], 2);
	/* From a port that is neither host nor fabric (the switch's own). */
	k.b4 = 0x82;
	CHECK(transit_pick(&s, &g, RTR_PORT_NONE, k, NULL) >= 0);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_source_routed], 3);
	CHECK_EQ(s.st.lb[RTR_LBC_ecmp_packets], 5);
	sw_fini(&s);
}

/* ------------------------------------------------------------ ACK shim */

static void
shim_at(struct rte_mbuf *m, struct rtr_caver_shim *s)
{
	CHECK_EQ(reparse(m), RTR_DROP_NONE);
	CHECK(rtr_caver_is_shimmed(mdata(m), m->data_len, rtr_meta(m)));
	rtr_caver_shim_read(mdata(m), rtr_meta(m), s);
}

/* Add at the origin, strip at the other end: the host's bytes again, with
 * a valid ICRC. */
static void
test_shim_roundtrip(void)
{
	struct rtr_caver_params pb = defp(NULL), pa = defp(NULL);
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2), h3 = ip4(10, 0, 2, 3);
	struct rtr_caver_host hosts[2] = {{h2, 0}, {h3, 1}};
	struct rtr_caver_shim s, got;
	uint8_t orig[256], want[256];
	unsigned int len;
	struct pkt k = ack(h2, h1, 4242);
	struct rte_mbuf *m;
	struct sw b, a;
	uint8_t *f;

	pb.hosts = hosts;
	pb.n_hosts = 2;
	pb.switch_id = 0x0102;
	pb.rate_bps[0] = 1e9;
	pa.switch_id = 0x0301;
	sw_init(&b, &pb, 1);
	sw_init(&a, &pa, 1);
	/* Some congestion toward h2 at B (data from the fabric to port 0). */
	send_bytes(b.cv[0], &(struct pkt){.src = h1, .dst = h2, .payload = 1000, .ttl = 9}, 0, 2, 1,
			b.st.lb);
	CHECK(rtr_caver_port_ce(b.cv[0], 0) > 0);
	k.b4 = 0x40;
	k.b8 = RTR_BTH_ACKREQ;
	k.trailer = 6; /* Ethernet padding after the IP packet moves along */
	m = mk(&k, 0, orig, &len);
	CHECK(icrc_ok(m));
	rtr_caver_post_route(b.cv[0], m, rtr_meta(m), 2, 10, LB_ST(b.st.lb));
	CHECK_EQ(b.st.lb[RTR_LBC_caver_shims_added], 1);
	CHECK_EQ(m->data_len, len + 12);
	CHECK_EQ(m->pkt_len, len + 12);
	f = mdata(m);
	CHECK_EQ(f[bth(m) + 8], RTR_BTH_ACKREQ | 0x7f);
	CHECK_EQ(rtr_meta(m)->bth_b8, RTR_BTH_ACKREQ | 0x7f);
	CHECK(ip4_cksum_ok(m));
	CHECK_EQ(f[16] << 8 | f[17], 20 + 8 + 12 + 4 + 12 + 4);
	CHECK_EQ(f[38] << 8 | f[39], 8 + 12 + 4 + 12 + 4);
	CHECK_EQ(f[40] | f[41], 0);
	/* Bytes: BTH, AETH as they were, the shim, the ICRC and padding. */
	CHECK(memcmp(f, orig, 16) == 0);           /* Ethernet, version, TOS */
	CHECK(memcmp(f + 18, orig + 18, 6) == 0);  /* ID, fragment, TTL, protocol */
	CHECK(memcmp(f + 26, orig + 26, 12) == 0); /* addresses, UDP ports */
	CHECK(memcmp(f + bth(m), orig + bth(m), 8) == 0);
	CHECK(memcmp(f + bth(m) + 9, orig + bth(m) + 9, 3 + 4) == 0);
	CHECK(memcmp(f + bth(m) + 28, orig + bth(m) + 16, 4 + 6) == 0);
	CHECK(memcmp(f + bth(m) + 16, &h2, 4) == 0);
	CHECK_EQ(f[bth(m) + 20] | f[bth(m) + 21] | f[bth(m) + 22] | f[bth(m) + 23], 0);
	CHECK_EQ(f[bth(m) + 24], rtr_caver_port_ce(b.cv[0], 0));
	CHECK_EQ(f[bth(m) + 25], 0);
	CHECK_EQ(f[bth(m) + 26], 0x01);
	CHECK_EQ(f[bth(m) + 27], 0x02);
	CHECK(!icrc_ok(m)); /* the shim is covered */
	shim_at(m, &s);
	CHECK(memcmp(&s.host, &h2, 4) == 0);
	CHECK_EQ(s.path, 0);
	CHECK_EQ(s.ce, rtr_caver_port_ce(b.cv[0], 0));
	CHECK_EQ(s.hops, 0);
	CHECK_EQ(s.last_switch, 0x0102);
	/* ACKs are not data: B's DRE of port 2 saw nothing. */
	CHECK_EQ(rtr_caver_port_ce(b.cv[0], 2), 0);
	/* At A, from fabric port 3 to host port 1: stored, stripped, byte 4 0. */
	rtr_meta(m)->in_port = 3;
	rtr_caver_post_route(a.cv[0], m, rtr_meta(m), 1, 20, LB_ST(a.st.lb));
	CHECK_EQ(a.st.lb[RTR_LBC_caver_adverts], 1);
	CHECK_EQ(a.st.lb[RTR_LBC_caver_shims_stripped], 1);
	CHECK_EQ(m->data_len, len);
	CHECK_EQ(m->pkt_len, len);
	memcpy(want, orig, len);
	want[bth(m) + 4] = 0;
	CHECK(memcmp(mdata(m), want, len) == 0);
	CHECK_EQ(rtr_meta(m)->bth_b4, 0);
	CHECK_EQ(rtr_meta(m)->bth_b8, RTR_BTH_ACKREQ);
	CHECK(icrc_ok(m));
	CHECK(ip4_cksum_ok(m));
	CHECK(rtr_caver_table_get(a.cv[0], h2, 3, 20, &got));
	CHECK_EQ(got.ce, s.ce);
	CHECK_EQ(got.hops, 0);
	fake_free(m);

	/* Round robin over the attached hosts. */
	{
		uint32_t seen[4];

		for (unsigned int i = 0; i < 4; i++) {
			m = mk(&k, 0, NULL, NULL);
			rtr_caver_post_route(b.cv[0], m, rtr_meta(m), 3, 30, LB_ST(b.st.lb));
			shim_at(m, &s);
			seen[i] = s.host;
			fake_free(m);
		}
		/* Per uplink: port 3 starts its own round (port 2 advertised h2
		 * above), and every round advertises each host once. */
		CHECK(seen[0] == h2 && seen[1] == h3);
		CHECK((seen[2] == h2 && seen[3] == h3) || (seen[2] == h3 && seen[3] == h2));
		m = mk(&k, 0, NULL, NULL);
		rtr_caver_post_route(b.cv[0], m, rtr_meta(m), 2, 30, LB_ST(b.st.lb));
		shim_at(m, &s);
		CHECK(s.host == h3);
		fake_free(m);
		CHECK_EQ(b.st.lb[RTR_LBC_caver_shims_added], 6);
	}
	/* Rounds are rotated at random: over many rounds every host takes
	 * every position of a round (no aliasing with periodic ACK streams),
	 * and each round still holds every host exactly once. */
	{
		unsigned int first_h2 = 0, rounds = 400, bad = 0;

		for (unsigned int r = 0; r < rounds; r++) {
			uint32_t x[2];

			for (unsigned int i = 0; i < 2; i++) {
				m = mk(&k, 0, NULL, NULL);
				rtr_caver_post_route(
						b.cv[0], m, rtr_meta(m), 4, 40, LB_ST(b.st.lb));
				shim_at(m, &s);
				x[i] = s.host;
				fake_free(m);
			}
			bad += x[0] == x[1];
			first_h2 += x[0] == h2;
		}
		CHECK_EQ(bad, 0);
		CHECK(first_h2 > rounds / 4 && first_h2 < rounds * 3 / 4);
	}
	/* No attached hosts: the ACK's sender, CE of the port it came in. */
	{
		struct rtr_caver_params pn = defp(NULL);
		struct sw n;

		pn.rate_bps[1] = 1e9;
		sw_init(&n, &pn, 1);
		send_bytes(n.cv[0], &(struct pkt){.src = h1, .dst = h2, .payload = 500, .ttl = 9},
				1, 3, 1, n.st.lb);
		m = mk(&k, 1, NULL, NULL);
		rtr_caver_post_route(n.cv[0], m, rtr_meta(m), 4, 30, LB_ST(n.st.lb));
		shim_at(m, &s);
		CHECK(memcmp(&s.host, &h2, 4) == 0);
		CHECK_EQ(s.ce, rtr_caver_port_ce(n.cv[0], 1));
		CHECK(s.ce > 0);
		CHECK_EQ(s.last_switch, 1);
		fake_free(m);
		sw_fini(&n);
	}
	sw_fini(&a);
	sw_fini(&b);
}

/* Origin ToR B -> spine S -> ToR A: the advertisement grows a hop at S, A
 * stores it and strips it; then A's data toward h2 carries S's port as
 * source route, S honours it, B zeroes it before h2. */
static void
test_three_switches(void)
{
	struct rtr_caver_params pb = defp(NULL), ps = defp(NULL), pa = defp(NULL);
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	struct rtr_caver_host hb[1] = {{h2, 0}};
	static const uint16_t a_up[2] = {4, 5}, s_down[2] = {2, 1};
	struct rtr_group ga, gs;
	struct rtr_caver_shim s, got;
	uint8_t orig[256], want[256];
	unsigned int len;
	struct pkt k = ack(h2, h1, 777);
	struct rte_mbuf *m;
	struct sw b, sp, a;
	unsigned int ce_b, ce_s, cost;
	int path;

	/* B: host port 0 (h2), fabric 4, 5. S: fabric 0..3 (0 to A, 1 to B).
	 * A: host port 0 (h1), fabric 4 (to S), 5 (another spine). */
	pb.hosts = hb;
	pb.n_hosts = 1;
	pb.switch_id = 0x0102;
	pb.host_port_mask = 0x1;
	pb.fabric_port_mask = 0x30;
	pb.rate_bps[0] = 1e9;
	ps.switch_id = 0x0a0b;
	ps.host_port_mask = 0;
	ps.fabric_port_mask = 0xf;
	ps.rate_bps[1] = 1e9;
	pa.switch_id = 0x0301;
	pa.host_port_mask = 0x1;
	pa.fabric_port_mask = 0x30;
	sw_init(&b, &pb, 1);
	sw_init(&sp, &ps, 1);
	sw_init(&a, &pa, 1);
	group(&ga, 2, a_up);
	group(&gs, 2, s_down);

	/* Congestion: B's port toward h2 a little, S's port toward B more. */
	send_bytes(b.cv[0], &(struct pkt){.src = h1, .dst = h2, .payload = 300, .ttl = 9}, 0, 1, 1,
			b.st.lb);
	send_bytes(sp.cv[0], &(struct pkt){.src = h1, .dst = h2, .payload = 1400, .ttl = 9}, 1, 2,
			1, sp.st.lb);
	ce_b = rtr_caver_port_ce(b.cv[0], 0);
	ce_s = rtr_caver_port_ce(sp.cv[0], 1);
	CHECK(ce_b > 0 && ce_s > ce_b, "%u %u", ce_b, ce_s);

	/* The ACK from h2 at B. */
	m = mk(&k, 0, orig, &len);
	CHECK(icrc_ok(m));
	CHECK_EQ(rtr_caver_host_check(mdata(m), m->data_len, rtr_meta(m)), RTR_DROP_NONE);
	rtr_caver_post_route(b.cv[0], m, rtr_meta(m), 4, 100, LB_ST(b.st.lb));
	shim_at(m, &s);
	CHECK_EQ(s.ce, ce_b);
	CHECK_EQ(s.hops, 0);
	CHECK_EQ(s.path, 0);
	CHECK_EQ(s.last_switch, 0x0102);
	/* At S: from port 1 (B) to port 0 (A). */
	rtr_meta(m)->in_port = 1;
	rtr_caver_post_route(sp.cv[0], m, rtr_meta(m), 0, 200, LB_ST(sp.st.lb));
	CHECK_EQ(sp.st.lb[RTR_LBC_caver_adverts], 1);
	CHECK_EQ(sp.st.lb[RTR_LBC_caver_shims_rewritten], 1);
	CHECK(rtr_caver_table_get(sp.cv[0], h2, 1, 200, &got));
	CHECK_EQ(got.ce, ce_b);
	CHECK_EQ(m->data_len, len + 12);
	{
		const uint8_t *h = mdata(m) + bth(m) + 16;

		CHECK(memcmp(h, &h2, 4) == 0);
		CHECK(h[4] == 1 && h[5] == 0 && h[6] == 0 && h[7] == 0);
		CHECK_EQ(h[8], ce_s); /* max(local CE of port 1, B's CE) */
		CHECK_EQ(h[9], 1);
		CHECK(h[10] == 0x0a && h[11] == 0x0b);
	}
	/* At A: from port 4 (S) to host port 0. */
	rtr_meta(m)->in_port = 4;
	rtr_caver_post_route(a.cv[0], m, rtr_meta(m), 0, 300, LB_ST(a.st.lb));
	CHECK_EQ(a.st.lb[RTR_LBC_caver_shims_stripped], 1);
	CHECK(rtr_caver_table_get(a.cv[0], h2, 4, 300, &got));
	CHECK_EQ(got.ce, ce_s);
	CHECK_EQ(got.path, 0x01000000);
	CHECK_EQ(got.hops, 1);
	CHECK_EQ(m->data_len, len);
	memcpy(want, orig, len);
	want[bth(m) + 4] = 0;
	CHECK(memcmp(mdata(m), want, len) == 0);
	CHECK(icrc_ok(m));
	fake_free(m);

	/* Data h1 -> h2 at A: port 4 costs ce_s, port 5 (the other spine) is
	 * known to be worse (without an entry it would cost its local CE, 0,
	 * and win); S is asked for port 1. */
	{
		struct rtr_caver_shim adv5 = {.path = 0x02000000, .ce = 255, .hops = 1};
		struct pkt d = data(h1, h2, 555, 200);
		struct rtr_meta *mt;
		uint8_t dorig[2048];

		CHECK(rtr_caver_table_put(a.cv[0], h2, 5, &adv5, 300, a.st.lb));
		m = mk(&d, 0, dorig, &len);
		mt = rtr_meta(m);
		path = rtr_caver_pick(a.cv[0], &ga, 0, m, mt, 400, LB_ST(a.st.lb));
		CHECK_EQ(path, 0);
		CHECK_EQ(mdata(m)[bth(m) + 4], 0x81);
		rtr_caver_post_route(a.cv[0], m, mt, 4, 400, LB_ST(a.st.lb));
		CHECK_EQ(mdata(m)[bth(m) + 4], 0x81);
		/* S: from port 0; its group toward B has ports {2, 1}. */
		mt->in_port = 0;
		path = rtr_caver_pick(sp.cv[0], &gs, 0, m, mt, 500, LB_ST(sp.st.lb));
		CHECK_EQ(path, 1);
		CHECK_EQ(sp.st.lb[RTR_LBC_caver_source_routed], 1);
		rtr_caver_post_route(sp.cv[0], m, mt, 1, 500, LB_ST(sp.st.lb));
		CHECK_EQ(mdata(m)[bth(m) + 4], 0x81);
		/* B: from fabric port 4 to h2's port: byte 4 zeroed; the rest is
		 * what h1 sent. */
		mt->in_port = 4;
		rtr_caver_post_route(b.cv[0], m, mt, 0, 600, LB_ST(b.st.lb));
		CHECK_EQ(mdata(m)[bth(m) + 4], 0);
		CHECK_EQ(mt->bth_b4, 0);
		CHECK(m->data_len == len && memcmp(mdata(m), dorig, len) == 0);
		fake_free(m);
	}
	/* A's flow telemetry. */
	{
		struct flow_seen fs;

		memset(&fs, 0, sizeof(fs));
		CHECK_EQ(rtr_lb_fs_flows(a.cv[0], 450, 0, flow_cb, &fs), 1);
		CHECK_EQ(fs.f[0].next_hop, 1);
		CHECK_EQ(fs.f[0].ce, ce_s);
		CHECK(fs.f[0].by_table);
		CHECK_EQ(rtr_lb_fs_flows(a.cv[0], 450, 1, flow_cb, &fs), 1);
	}

	/* S with two ways to h2 (a second ToR link, port 3): the cheaper
	 * max(local, stored) wins the rewrite. */
	{
		struct rtr_caver_shim adv = {.path = 0x06000000, .ce = 2, .hops = 0};

		rtr_caver_table_put(sp.cv[0], h2, 3, &adv, 700, sp.st.lb);
		m = mk(&k, 0, NULL, NULL);
		rtr_caver_post_route(b.cv[0], m, rtr_meta(m), 4, 700, LB_ST(b.st.lb));
		rtr_meta(m)->in_port = 1;
		rtr_caver_post_route(sp.cv[0], m, rtr_meta(m), 0, 700, LB_ST(sp.st.lb));
		shim_at(m, &s);
		cost = RTE_MAX(2u, rtr_caver_port_ce(sp.cv[0], 3));
		CHECK(cost < ce_s);
		CHECK_EQ(s.path, 0x03060000); /* port 3, then the stored path's hop 0 */
		CHECK_EQ(s.ce, cost);
		CHECK_EQ(s.hops, 1);
		/* A second transit (fabric port to fabric port: a 3-tier
		 * fabric) prepends once more. */
		rtr_meta(m)->in_port = 4;
		rtr_caver_post_route(a.cv[0], m, rtr_meta(m), 5, 710, LB_ST(a.st.lb));
		shim_at(m, &s);
		CHECK_EQ(s.hops, 2);
		CHECK_EQ(s.last_switch, 0x0301);
		CHECK_EQ(s.ce, 2);
		CHECK_EQ(s.path >> 24, 4);
		CHECK_EQ(s.path & 0xffffff, 0x030600);
		CHECK_EQ(a.st.lb[RTR_LBC_caver_shims_rewritten], 1);
		fake_free(m);
	}
	sw_fini(&a);
	sw_fini(&sp);
	sw_fini(&b);
}

static void
test_host_check(void)
{
	struct rtr_caver_params p = defp(NULL);
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	struct pkt k = ack(h2, h1, 1);
	struct rte_mbuf *m;
	struct sw s;
	static const struct {
		uint8_t opcode, b8;
		bool v6;
		enum rtr_drop_reason want;
	} cases[] = {
			{RTR_BTH_OP_RC_ACK, 0x7f, false, RTR_DROP_HOST_LB_PACKET},
			{RTR_BTH_OP_RC_ACK, 0xff, false, RTR_DROP_HOST_LB_PACKET},
			{RTR_BTH_OP_RC_ACK, 0x7f, true, RTR_DROP_HOST_LB_PACKET},
			{RTR_BTH_OP_RC_ACK, 0x7e, false, RTR_DROP_NONE},
			{RTR_BTH_OP_RC_ACK, 0x80, false, RTR_DROP_NONE},
			{RTR_BTH_OP_RC_ACK, 0x00, false, RTR_DROP_NONE},
			{0x04, 0x7f, false, RTR_DROP_NONE},
			{RTR_BTH_OP_CNP, 0x7f, false, RTR_DROP_NONE},
	};

	sw_init(&s, &p, 1);
	for (unsigned int i = 0; i < RTR_ARRAY_SIZE(cases); i++) {
		k.opcode = cases[i].opcode;
		k.b8 = cases[i].b8;
		k.v6 = cases[i].v6;
		k.payload = k.opcode == RTR_BTH_OP_RC_ACK ? 0 : 16;
		m = mk(&k, 0, NULL, NULL);
		CHECK_EQ(rtr_caver_host_check(mdata(m), m->data_len, rtr_meta(m)), cases[i].want);
		fake_free(m);
	}
	/* Non-RoCE. */
	m = mk(&(struct pkt){.src = h1, .dst = h2, .payload = 12, .ttl = 5}, 0, NULL, NULL);
	CHECK_EQ(rtr_caver_host_check(mdata(m), m->data_len, rtr_meta(m)), RTR_DROP_NONE);
	fake_free(m);
	sw_fini(&s);
}

/* What is not shimmed, and what is not taken for a shim. */
static void
test_shim_skip(void)
{
	struct rtr_caver_params p = defp(NULL);
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	struct pkt k = ack(h2, h1, 3);
	uint8_t orig[256];
	unsigned int len;
	struct rte_mbuf *m;
	struct sw s;

	sw_init(&s, &p, 1);
	/* Resv7 not zero. */
	k.b8 = 0x01;
	m = mk(&k, 0, orig, &len);
	rtr_caver_post_route(s.cv[0], m, rtr_meta(m), 2, 1, LB_ST(s.st.lb));
	CHECK_EQ(s.st.lb[RTR_LBC_caver_shim_skipped], 1);
	CHECK(m->data_len == len && memcmp(mdata(m), orig, len) == 0);
	fake_free(m);
	/* IPv6. */
	k.b8 = 0;
	k.v6 = true;
	m = mk(&k, 0, orig, &len);
	rtr_caver_post_route(s.cv[0], m, rtr_meta(m), 2, 1, LB_ST(s.st.lb));
	CHECK_EQ(s.st.lb[RTR_LBC_caver_shim_skipped], 2);
	CHECK(m->data_len == len && memcmp(mdata(m), orig, len) == 0);
	CHECK(icrc_ok(m));
	fake_free(m);
	/* No tailroom. */
	k.v6 = false;
	m = mk(&k, 0, orig, &len);
	m->buf_len = (uint16_t)(m->data_off + len + 11);
	rtr_caver_post_route(s.cv[0], m, rtr_meta(m), 2, 1, LB_ST(s.st.lb));
	CHECK_EQ(s.st.lb[RTR_LBC_caver_shim_skipped], 3);
	CHECK(m->data_len == len && memcmp(mdata(m), orig, len) == 0);
	/* Exactly enough: shimmed. */
	m->buf_len = (uint16_t)(m->data_off + len + 12);
	rtr_caver_post_route(s.cv[0], m, rtr_meta(m), 2, 1, LB_ST(s.st.lb));
	CHECK_EQ(s.st.lb[RTR_LBC_caver_shims_added], 1);
	CHECK_EQ(m->data_len, len + 12);
	fake_free(m);
	/* Host to host, fabric to fabric without a shim, switch-built: untouched. */
	m = mk(&k, 0, orig, &len);
	rtr_caver_post_route(s.cv[0], m, rtr_meta(m), 1, 1, LB_ST(s.st.lb));
	rtr_meta(m)->in_port = 3;
	rtr_caver_post_route(s.cv[0], m, rtr_meta(m), 4, 1, LB_ST(s.st.lb));
	rtr_meta(m)->in_port = RTR_PORT_NONE;
	rtr_caver_post_route(s.cv[0], m, rtr_meta(m), 4, 1, LB_ST(s.st.lb));
	CHECK(m->data_len == len && memcmp(mdata(m), orig, len) == 0);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_shims_added], 1);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_shim_skipped], 3);
	fake_free(m);
	/* Resv7 0x7F from the fabric but too short to hold a shim: not one
	 * (nothing stored, nothing cut; only byte 4 toward the host). */
	k.b8 = 0x7f;
	k.b4 = 0x81;
	m = mk(&k, 3, orig, &len);
	rtr_caver_post_route(s.cv[0], m, rtr_meta(m), 0, 1, LB_ST(s.st.lb));
	orig[bth(m) + 4] = 0;
	CHECK(m->data_len == len && memcmp(mdata(m), orig, len) == 0);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_adverts] + s.st.lb[RTR_LBC_caver_shims_stripped], 0);
	fake_free(m);
	/* A shimmed ACK from a host port is not stripped or stored here
	 * (host_check drops it first in the pipeline). */
	k.b8 = 0;
	k.b4 = 0;
	m = mk(&k, 0, NULL, NULL);
	rtr_caver_post_route(s.cv[0], m, rtr_meta(m), 2, 1, LB_ST(s.st.lb));
	CHECK_EQ(reparse(m), RTR_DROP_NONE);
	len = m->data_len;
	rtr_meta(m)->in_port = 1;
	rtr_caver_post_route(s.cv[0], m, rtr_meta(m), 2, 1, LB_ST(s.st.lb));
	CHECK_EQ(m->data_len, len);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_shim_skipped], 4); /* Resv7 is 0x7F now */
	CHECK_EQ(s.st.lb[RTR_LBC_caver_adverts], 0);
	fake_free(m);
	sw_fini(&s);
}

/* ------------------------------------------------------------ ports down */

/*
 * A transit switch advertises its own best path toward a host: a port whose
 * link is down must not be it, however fresh and cheap its entry (a down
 * port's DRE even decays to 0). The advertisement in hand (the ACK's own
 * port) is the fallback when every stored port is down.
 */
static void
test_down_port_not_advertised(void)
{
	struct rtr_caver_params ps = defp(NULL), pb = defp(NULL);
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	struct rtr_caver_host hb[1] = {{h2, 0}};
	static const char *const what[3] = {"all up", "port 2 down", "ports 2, 3 down"};
	unsigned int n = 200, on[3][4];
	struct rtr_caver_shim adv, s;
	_Atomic uint32_t down = 0;
	uint64_t now = 1000;
	struct sw sp, b;

	/* S: fabric ports 0..3; the ACKs come from B on port 1 (advertising
	 * ce 100), go to A on port 0; h2 is also reachable through port 2
	 * (ce 5) and port 3 (ce 60). */
	ps.host_port_mask = 0;
	ps.fabric_port_mask = 0xf;
	ps.switch_id = 0x0a0b;
	ps.link_down = &down;
	pb.hosts = hb;
	pb.n_hosts = 1;
	pb.switch_id = 0x0102;
	pb.host_port_mask = 0x1;
	pb.fabric_port_mask = 0x30;
	sw_init(&sp, &ps, 1);
	sw_init(&b, &pb, 1);
	memset(on, 0, sizeof(on));
	for (unsigned int phase = 0; phase < 3; phase++) {
		atomic_store(&down, phase == 0 ? 0u : phase == 1 ? 1u << 2 : (1u << 2 | 1u << 3));
		for (unsigned int i = 0; i < n; i++) {
			struct pkt k = ack(h2, h1, (uint16_t)(9000 + i));
			struct rte_mbuf *m = mk(&k, 0, NULL, NULL);

			now += 10;
			/* Fresh entries every time (well within aging). */
			adv = (struct rtr_caver_shim){.path = 0x05000000, .ce = 5, .hops = 0};
			rtr_caver_table_put(sp.cv[0], h2, 2, &adv, now, sp.st.lb);
			adv = (struct rtr_caver_shim){.path = 0x06000000, .ce = 60, .hops = 0};
			rtr_caver_table_put(sp.cv[0], h2, 3, &adv, now, sp.st.lb);
			rtr_caver_post_route(b.cv[0], m, rtr_meta(m), 4, now, LB_ST(b.st.lb));
			mdata(m)[bth(m) + 16 + 8] = 100; /* B's advertised ce */
			rtr_meta(m)->in_port = 1;
			rtr_caver_post_route(sp.cv[0], m, rtr_meta(m), 0, now, LB_ST(sp.st.lb));
			shim_at(m, &s);
			if ((s.path >> 24) < 4)
				on[phase][s.path >> 24]++;
			fake_free(m);
		}
		printf("caver: S advertises h2 out of port 1/2/3 (%s): %u/%u/%u of %u ACKs\n",
				what[phase], on[phase][1], on[phase][2], on[phase][3], n);
	}
	/* All up: port 2 (ce 5) is the best. */
	CHECK_EQ(on[0][2], n);
	/* Port 2 down: never port 2, port 3 (ce 60) instead. */
	CHECK_EQ(on[1][2], 0);
	CHECK_EQ(on[1][3], n);
	/* Both down: the ACK's own port 1 (ce 100). */
	CHECK_EQ(on[2][2] + on[2][3], 0);
	CHECK_EQ(on[2][1], n);
	/* Back up: port 2 again. */
	atomic_store(&down, 0);
	{
		struct pkt k = ack(h2, h1, 9999);
		struct rte_mbuf *m = mk(&k, 0, NULL, NULL);

		now += 10;
		rtr_caver_post_route(b.cv[0], m, rtr_meta(m), 4, now, LB_ST(b.st.lb));
		mdata(m)[bth(m) + 16 + 8] = 100;
		rtr_meta(m)->in_port = 1;
		rtr_caver_post_route(sp.cv[0], m, rtr_meta(m), 0, now, LB_ST(sp.st.lb));
		shim_at(m, &s);
		CHECK_EQ(s.path >> 24, 2);
		CHECK_EQ(s.ce, 5);
		fake_free(m);
	}
	sw_fini(&b);
	sw_fini(&sp);
}

/*
 * A SrcToR places new flows only on live paths of the group: with the
 * cheapest entry on an uplink whose link is down (the control plane takes
 * the path out of the group's live mask at the same time), no new flow
 * lands there.
 */
static void
test_down_uplink_not_placed(void)
{
	static const uint16_t ports[4] = {2, 3, 4, 5};
	struct rtr_caver_params p = defp(NULL);
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	struct rtr_caver_shim adv;
	_Atomic uint32_t down = 1u << 2;
	unsigned int n = 300, count[4] = {0};
	uint64_t now = 1000;
	struct rtr_group g;
	struct sw s;

	p.link_down = &down;
	sw_init(&s, &p, 1);
	group(&g, 4, ports);
	atomic_store(&g.live_mask, 0xe); /* port 2 (path 0) is down */
	for (unsigned int i = 0; i < n; i++) {
		int path;

		now += 10;
		adv = (struct rtr_caver_shim){.path = 0x07000000, .ce = 1, .hops = 1};
		rtr_caver_table_put(s.cv[0], h2, 2, &adv, now, s.st.lb);
		adv = (struct rtr_caver_shim){.path = 0x08000000, .ce = 50, .hops = 1};
		for (uint16_t q = 3; q <= 5; q++)
			rtr_caver_table_put(s.cv[0], h2, q, &adv, now, s.st.lb);
		path = src_pick(&s, &g, h1, h2, (uint16_t)(20000 + i), now, NULL);
		if (path >= 0 && path < 4)
			count[path]++;
	}
	printf("caver: new flows placed on the down uplink (path 0): %u of %u (paths 1..3: "
	       "%u/%u/%u)\n",
			count[0], n, count[1], count[2], count[3]);
	CHECK_EQ(count[0], 0);
	CHECK_EQ(count[1] + count[2] + count[3], n);
	CHECK_EQ(s.st.lb[RTR_LBC_caver_flows_table], n);
	sw_fini(&s);
}

/* ------------------------------------------------------------ DRE and tail drop */

struct eg_sink {
	unsigned int sent, dropped;
};

static uint16_t
sink_tx(void *arg, uint16_t port, uint16_t hwq, struct rte_mbuf **pkts, uint16_t n)
{
	(void)hwq;
	struct eg_sink *k = arg;

	(void)port;
	for (uint16_t i = 0; i < n; i++)
		fake_free(pkts[i]);
	k->sent += n;
	return n;
}

static void
sink_drop(void *arg, struct rte_mbuf *m, enum rtr_drop_reason why)
{
	struct eg_sink *k = arg;

	(void)why;
	fake_free(m);
	k->dropped++;
}

/*
 * The DRE measures what a link carries: a burst into an egress queue that
 * takes only part of it counts only that part. The packets go the
 * pipeline's way (finish_one): post_route, the egress queue, then queued()
 * for what the queue took.
 */
static void
test_dre_tail_drop(void)
{
	struct rtr_caver_params p = defp(NULL);
	struct rtr_config cfg;
	struct rtr_egress_shared *esh;
	struct rtr_lcore_stats *st;
	struct rtr_egress *eg;
	struct eg_sink sink = {0, 0};
	struct rtr_egress_io io = {.tx = sink_tx, .drop = sink_drop, .arg = &sink};
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	struct pkt d = data(h1, h2, 4000, 1000 - 58);
	unsigned int n = 100, queued = 0, want, got;
	struct sw s;

	/* Port 2 at 10 Gb/s; its class queues hold 16 KB: 16 of the burst's
	 * hundred 1000-byte packets. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.n_ports = 6;
	for (unsigned int q = 0; q < cfg.n_ports; q++) {
		cfg.ports[q].port = (uint16_t)q;
		cfg.ports[q].role = q < 2 ? RTR_PORT_HOST : RTR_PORT_FABRIC;
		cfg.ports[q].mac[0] = 0x02;
		cfg.ports[q].mac[5] = (uint8_t)q;
		cfg.ports[q].speed_gbps = 10;
		cfg.ports[q].shape_burst_kb = 16;
	}
	cfg.qos.classes = 8;
	cfg.qos.queue_kb = 16;
	cfg.qos.trim_dscp = -1;
	cfg.qos.pfc.xoff_kb = 256;
	cfg.qos.pfc.xon_kb = 128;
	cfg.qos.pfc.quanta = 65535;
	for (unsigned int c = 0; c < RTR_MAX_CLASSES; c++) {
		cfg.qos.cls[c].priority = (uint8_t)c;
		cfg.qos.cls[c].weight = 1;
		cfg.qos.cls[c].queue_kb = cfg.qos.queue_kb;
	}
	esh = calloc(1, sizeof(*esh));
	st = aligned_alloc(64, sizeof(*st));
	memset(st, 0, sizeof(*st));
	CHECK_EQ(rtr_egress_shared_init(esh, &cfg, NULL), 0);
	eg = rtr_egress_create(esh, 0, &io, st, 4096, -1);
	CHECK(eg != NULL);
	eg->direct = false; /* the burst arrives faster than the port drains */
	p.rate_bps[2] = 10e9;
	sw_init(&s, &p, 1);
	rtr_caver_tick(s.cv[0], 0, LB_ST(s.st.lb));
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = mk(&d, 0, NULL, NULL);

		CHECK_EQ(m->pkt_len, 1000);
		rtr_caver_post_route(s.cv[0], m, rtr_meta(m), 2, 10, LB_ST(s.st.lb));
		if (rtr_egress_enqueue(eg, 2, m, rtr_egress_classify(eg, m), 10) == 0) {
			rtr_caver_queued(s.cv[0], m, rtr_meta(m), 2);
			queued++;
		}
	}
	want = expect_ce((uint64_t)queued * 1000, 10e9, PERIOD, 0.2, 8);
	got = rtr_caver_port_ce(s.cv[0], 2);
	printf("caver: burst of %u x 1000 B into a 16 KB queue: %u queued, %u tail-dropped; DRE "
	       "CE %u (queued bytes: %u, every byte: %u)\n",
			n, queued, sink.dropped, got, want,
			expect_ce((uint64_t)n * 1000, 10e9, PERIOD, 0.2, 8));
	CHECK_EQ(queued, 16);
	CHECK_EQ(sink.dropped, n - queued);
	CHECK_EQ(got, want);
	rtr_egress_flush_all(eg, 4);
	CHECK_EQ(sink.sent, queued);
	rtr_egress_free(eg);
	free(esh);
	free(st);
	sw_fini(&s);
}

/* ------------------------------------------------------------ toward a host, every mode */

/* A frame as it arrives on a fabric port of a ToR in another mode: parsed
 * with RTR_LB_PARSE_FOREIGN. */
static struct rte_mbuf *
foreign_frame(const uint8_t *buf, unsigned int n)
{
	struct rte_mbuf *m = fake_frame(buf, n);

	CHECK_EQ(rtr_parse(mdata(m), m->data_len, SEED, RTR_LB_PARSE_FOREIGN, rtr_meta(m)),
			RTR_DROP_NONE);
	rtr_meta(m)->in_port = 2;
	return m;
}

/*
 * rtr_lb_host_egress (the rule every mode applies before a host port):
 * ConWeave header and CAVER shim out, byte 4 zeroed (a CNP keeps BECN), an
 * RNIC's own Resv7 bits kept; the RNIC's bytes again, ICRC valid.
 */
static void
test_host_egress(void)
{
	struct rtr_caver_params p = defp(NULL);
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	struct rtr_caver_host hb[1] = {{h2, 0}};
	uint8_t orig[512], buf[512];
	struct rtr_lcore_stats c_st;
	uint64_t *c = c_st.lb;
	unsigned int len, bo = 14 + 20 + 8;
	struct rte_mbuf *m;
	struct sw b;

	memset(c, 0, sizeof(c_st.lb));
	/* ConWeave DATA (as a SrcToR stamps it): byte 4 path 3, Resv7 DATA
	 * with phase/epoch/ask bits, 4 bytes after the BTH, lengths kept;
	 * padded zero-payload frames too (the padding moves along). */
	for (unsigned int payload = 0; payload <= 200; payload += 200) {
		struct pkt k = data(h1, h2, 3000, payload);
		uint8_t want[512];

		k.b8 = RTR_BTH_ACKREQ;
		k.trailer = payload == 0 ? 2 : 0; /* 58 bytes, padded to 60 */
		len = build(orig, &k);
		memcpy(buf, orig, bo + 12);
		buf[bo + 4] = 3;
		buf[bo + 8] = RTR_BTH_ACKREQ | (1 << 5) | (1 << 4) | (2 << 2) | 2;
		memcpy(buf + bo + 12, "\x12\x34\x56\x78", 4);
		memcpy(buf + bo + 16, orig + bo + 12, len - bo - 12);
		m = foreign_frame(buf, len + 4);
		CHECK(rtr_meta(m)->flags & RTR_MF_LB_HDR);
		CHECK(rtr_lb_host_egress_needed(rtr_meta(m)));
		rtr_lb_host_egress(m, rtr_meta(m), c);
		memcpy(want, orig, len);
		CHECK_EQ(m->data_len, len);
		CHECK(memcmp(mdata(m), want, len) == 0);
		CHECK(icrc_ok(m));
		CHECK_EQ(rtr_meta(m)->bth_b4, 0);
		CHECK_EQ(rtr_meta(m)->bth_b8, RTR_BTH_ACKREQ);
		CHECK(!(rtr_meta(m)->flags & RTR_MF_LB_HDR));
		fake_free(m);
	}
	CHECK_EQ(c[RTR_LBC_foreign_cw_stripped], 2);
	/* A CAVER-shimmed ACK (made by a CAVER origin ToR). */
	p.hosts = hb;
	p.n_hosts = 1;
	p.host_port_mask = 0x1;
	p.fabric_port_mask = 0x30;
	sw_init(&b, &p, 1);
	{
		struct pkt k = ack(h2, h1, 4444);

		k.b8 = RTR_BTH_ACKREQ;
		m = mk(&k, 0, orig, &len);
		rtr_caver_post_route(b.cv[0], m, rtr_meta(m), 4, 10, LB_ST(b.st.lb));
		CHECK_EQ(m->data_len, len + 12);
		memcpy(buf, mdata(m), m->data_len);
		fake_free(m);
		m = foreign_frame(buf, len + 12);
		CHECK(!(rtr_meta(m)->flags & RTR_MF_LB_HDR)); /* Resv7 0x7F is no cw_op 3 */
		CHECK(rtr_lb_host_egress_needed(rtr_meta(m)));
		rtr_lb_host_egress(m, rtr_meta(m), c);
		CHECK_EQ(m->data_len, len);
		CHECK(memcmp(mdata(m), orig, len) == 0);
		CHECK(icrc_ok(m));
		CHECK_EQ(c[RTR_LBC_foreign_shims_stripped], 1);
		fake_free(m);
	}
	sw_fini(&b);
	/* PathTag / source route: byte 4 zeroed; a CNP keeps BECN only; an
	 * RNIC's Resv7 (0x7f on data, 0x20 = "cw_op 1" without a header)
	 * stays, as does the frame. */
	{
		static const struct {
			uint8_t op, b4, b8, want_b4;
		} cases[] = {
				{0x04, 0x05, 0, 0},
				{0x04, 0x83, RTR_BTH_ACKREQ, 0},
				{RTR_BTH_OP_CNP, 0x40 | 0x07, 0, 0x40},
				{0x04, 0, 0x7f, 0},
				{0x04, 0x11, 0x20, 0},
				{RTR_BTH_OP_RC_ACK, 0, 0x60, 0},
		};

		for (unsigned int i = 0; i < RTR_ARRAY_SIZE(cases); i++) {
			struct pkt k = data(h1, h2, (uint16_t)(5000 + i),
					cases[i].op == 0x04 ? 100 : 16);

			k.opcode = cases[i].op;
			k.b4 = cases[i].b4;
			k.b8 = cases[i].b8;
			len = build(orig, &k);
			m = foreign_frame(orig, len);
			CHECK(!(rtr_meta(m)->flags & RTR_MF_LB_HDR), "case %u", i);
			CHECK(rtr_lb_host_egress_needed(rtr_meta(m)), "case %u", i);
			rtr_lb_host_egress(m, rtr_meta(m), c);
			CHECK_EQ(m->data_len, len);
			CHECK_EQ(mdata(m)[bo + 4], cases[i].want_b4);
			CHECK_EQ(rtr_meta(m)->bth_b4, cases[i].want_b4);
			orig[bo + 4] = cases[i].want_b4;
			CHECK(memcmp(mdata(m), orig, len) == 0, "case %u", i);
			CHECK(icrc_ok(m), "case %u", i);
			fake_free(m);
		}
	}
	/* A plain frame: nothing to do, and the test says so. */
	{
		struct pkt k = data(h1, h2, 6000, 100);

		len = build(orig, &k);
		m = foreign_frame(orig, len);
		CHECK(!rtr_lb_host_egress_needed(rtr_meta(m)));
		fake_free(m);
	}
	CHECK_EQ(c[RTR_LBC_foreign_cw_stripped], 2);
	CHECK_EQ(c[RTR_LBC_foreign_shims_stripped], 1);
}

/* The ops table: config to state. */
static void
test_ops(void)
{
	struct rtr_route_cfg routes[3];
	struct rtr_config cfg;
	struct rtr_lb_init in;
	struct rtr_lcore_stats *st;
	const struct rtr_lb_ops *ops = &rtr_lb_caver;
	void *sh, *state;
	uint32_t h2 = ip4(10, 0, 2, 2);

	memset(&cfg, 0, sizeof(cfg));
	memset(routes, 0, sizeof(routes));
	cfg.sw.id = 0x0102;
	memcpy(cfg.lb_cfg[RTR_LB_CAVER].bytes,
			&(struct rtr_caver_cfg){.dre_period_us = 50,
					.alpha = 0.2,
					.q = 8,
					.aging_us = 500,
					.flow_idle_us = 1000,
					.flow_table_size = 1000},
			sizeof(struct rtr_caver_cfg));
	cfg.n_ports = 3;
	cfg.ports[0] = (struct rtr_port_cfg){.port = 0, .role = RTR_PORT_HOST, .speed_gbps = 1};
	cfg.ports[1] = (struct rtr_port_cfg){
			.port = 1, .role = RTR_PORT_FABRIC, .speed_gbps = 100, .shape_gbps = 2.5};
	cfg.ports[2] = (struct rtr_port_cfg){.port = 2, .role = RTR_PORT_FABRIC};
	routes[0].prefix = (struct rtr_addr){.family = AF_INET, .depth = 32};
	routes[0].prefix.v4.s_addr = h2;
	routes[0].n_paths = 1;
	routes[0].paths[0].port = 0;
	routes[1].prefix = (struct rtr_addr){.family = AF_INET, .depth = 24};
	routes[1].n_paths = 1;
	routes[2].prefix = (struct rtr_addr){.family = AF_INET, .depth = 32};
	routes[2].prefix.v4.s_addr = ip4(10, 0, 1, 1);
	routes[2].n_paths = 1;
	routes[2].paths[0].port = 1; /* a fabric port: not an attached host */
	cfg.n_routes = 3;
	cfg.routes = routes;
	CHECK_STR(ops->name, "caver");
	CHECK(ops->mode == RTR_LB_CAVER && ops->flow_affinity &&
			ops->fabric_parse_flags == RTR_LB_PARSE_FOREIGN &&
			ops->deliver_flags == 0 && ops->post_route && ops->queued && ops->table &&
			ops->tick && ops->next_deadline && ops->flows && ops->pick &&
			!ops->deliver && !ops->control_rx);
	sh = ops->shared_create(&cfg, 4, false, 0);
	CHECK(sh != NULL);
	memset(&in, 0, sizeof(in));
	in.cfg = &cfg;
	in.worker = 1;
	in.n_workers = 2;
	in.host_port_mask = 0x1;
	in.hash_seed = SEED;
	in.shared = sh;
	state = ops->init(&in);
	CHECK(state != NULL);
	st = aligned_alloc(64, sizeof(*st));
	memset(st, 0, sizeof(*st));
	ops->tick(state, 0, st);
	CHECK_EQ(ops->next_deadline(state), 50000);
	/* Shaped port 1: 2.5 Gb/s. */
	{
		struct rte_mbuf *m =
				mk(&(struct pkt){.src = h2, .dst = h2, .payload = 958, .ttl = 3}, 0,
						NULL, NULL);

		for (uint16_t q = 0; q < 3; q++) {
			ops->post_route(state, m, rtr_meta(m), q, 5, st);
			ops->queued(state, m, rtr_meta(m), q);
		}
		CHECK_EQ(rtr_caver_port_ce(state, 1), expect_ce(1000, 2.5e9, 50000, 0.2, 8));
		CHECK_EQ(rtr_caver_port_ce(state, 0), expect_ce(1000, 1e9, 50000, 0.2, 8));
		CHECK_EQ(rtr_caver_port_ce(state, 2), expect_ce(1000, 100e9, 50000, 0.2, 8));
		fake_free(m);
	}
	/* An ACK from host port 0 to fabric 2 advertises h2 (the only /32 to a
	 * host port), as switch 0x0102. */
	{
		struct rte_mbuf *m = mk(&(struct pkt){.roce = true,
							.src = h2,
							.dst = ip4(10, 0, 1, 1),
							.sport = 5,
							.opcode = RTR_BTH_OP_RC_ACK,
							.ttl = 9},
				0, NULL, NULL);
		struct rtr_caver_shim s;

		ops->post_route(state, m, rtr_meta(m), 2, 6, st);
		shim_at(m, &s);
		CHECK(memcmp(&s.host, &h2, 4) == 0);
		CHECK_EQ(s.last_switch, 0x0102);
		CHECK_EQ(s.ce, expect_ce(1000, 1e9, 50000, 0.2, 8));
		CHECK_EQ(st->lb[RTR_LBC_caver_shims_added], 1);
		/* What every host port checks whatever the mode: a shimmed ACK
		 * from a host is a forged shim. */
		CHECK_EQ(rtr_lb_host_check(mdata(m), m->data_len, rtr_meta(m)),
				RTR_DROP_HOST_LB_PACKET);
		fake_free(m);
	}
	ops->fini(state);
	ops->shared_free(sh);
	free(st);
}

/*
 * Issue 28: a flow whose packets waited in the worker's RX queue while it
 * stalled is not idle. With the worker's clock attached (rtr_lb_clock.h),
 * pick judges the flow's gap by the horizon of its packet's input (host
 * port 0), not by the wall clock: a stall of 5 flow_idle with the horizon
 * just after the last packet keeps the flow; once the horizon shows the
 * host port silent past flow_idle, the flow is placed again. Without the
 * clock (the first half) the same stall re-places it.
 */
static void
test_stalled_worker(void)
{
	uint32_t h1 = ip4(10, 0, 1, 1), h2 = ip4(10, 0, 2, 2);
	struct rtr_caver_shim adv;
	struct rtr_lb_clock clk = {.fabric_ports = 0x6}; /* 0 host, 1 and 2 fabric */
	struct rtr_group g;
	uint64_t now = 5000000;
	struct sw s;

	for (int with_clock = 0; with_clock < 2; with_clock++) {
		two_paths(&s, &g, h2, now);
		if (with_clock)
			rtr_lb_fs_clock(s.cv[0], &clk);
		clk.seen_ns = clk.in_ns[0] = clk.in_ns[1] = now;
		CHECK_EQ(src_pick(&s, &g, h1, h2, 7, now, NULL), 0);
		/* Port 3 becomes much better. */
		adv = (struct rtr_caver_shim){.ce = 0, .path = 0x05000000, .hops = 1};
		rtr_caver_table_put(s.cv[0], h2, 3, &adv, now, s.st.lb);
		/* The worker stalls for 5 flow_idle; the next packet had
		 * arrived 1 us after the last one (the host port's horizon
		 * says no more than that). */
		clk.seen_ns = clk.in_ns[0] = clk.in_ns[1] = now + 1000;
		CHECK_EQ(src_pick(&s, &g, h1, h2, 7, now + 5 * IDLE, NULL), with_clock ? 0 : 1);
		CHECK_EQ(s.st.lb[RTR_LBC_reroutes], with_clock ? 0u : 1u);
		if (with_clock) {
			/* The fabric ports' horizon says nothing of this
			 * flow's gap. */
			clk.in_ns[1] = now + 20 * IDLE;
			CHECK_EQ(src_pick(&s, &g, h1, h2, 7, now + 20 * IDLE, NULL), 0);
			CHECK_EQ(s.st.lb[RTR_LBC_reroutes], 0);
			/* The host port was silent for more than flow_idle
			 * since the last packet (stamped at its pick's now):
			 * placed again. */
			clk.seen_ns = clk.in_ns[0] = now + 20 * IDLE + IDLE + 1;
			CHECK_EQ(src_pick(&s, &g, h1, h2, 7, now + 30 * IDLE, NULL), 1);
			CHECK_EQ(s.st.lb[RTR_LBC_reroutes], 1);
		}
		sw_fini(&s);
	}
}

int
main(void)
{
	rtr_meta_offset = (int)offsetof(struct rte_mbuf, dynfield1);
	test_dre_hand_values();
	test_dre_formula();
	test_dre_what_counts();
	test_table_aging();
	test_table_sweep();
	test_table_full_and_coarse();
	test_best_path();
	test_ties();
	test_unadvertised_path();
	test_acks_by_ecmp();
	test_stickiness();
	test_stalled_worker();
	test_source_route();
	test_shim_roundtrip();
	test_three_switches();
	test_host_check();
	test_shim_skip();
	test_down_port_not_advertised();
	test_down_uplink_not_placed();
	test_dre_tail_drop();
	test_host_egress();
	test_ops();
	CHECK_EQ(live_mbufs, 0);
	return rtr_test_done("caver");
}
