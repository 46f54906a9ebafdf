/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit tests of the mode `conga` (rtr_conga_mode.c, doc/conga.md) through
 * its real ops on frames, without the EAL, on a virtual clock: a
 * three-switch chain, source leaf A -> spine S -> destination leaf B and
 * back: the header A stamps (byte 4, Resv7, source leaf, CE = the uplink's
 * quantised DRE, no feedback yet), the CE the spine raises, what B
 * records and delivers (the sender's frame byte for byte), the feedback
 * B's reverse packet carries and A stores, and A's next flowlet choice
 * from it; flowlet boundaries exactly at the gap; DRE decay and ageing
 * through tick/next_deadline; the ECMP cases (Resv7 set, transit, not
 * RoCE) and the all-modes host strip of a CONGA header. Expected values
 * come from the specification, computed by hand below.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "rtr_conga.h"
#include "rtr_lb.h"
#include "rtr_lb_registry.h"
#include "rtr_parse.h"
#include "rtr_route.h"
#include "rtr_stats.h"
#include "rtr_test.h"
#include "rtr_test_mbuf.h"
#include "test_lb_group.h"
#include "test_lb_stats.h"

#define SEED 0x5eed1234u
#define US   1000ULL
#define T0   1000000000ULL /* the virtual clock starts at 1 s */
#define GAP  (100 * US)
#define AGE  (500 * US)
#define TDRE (50 * US)
#define HOST 0 /* a ToR's host port; its uplinks (paths 0..3) are ports 1..4 */
#define NP   4
#define LEN  (14 + 20 + 8 + 12 + 16 + 4) /* Eth, IPv4, UDP, BTH, payload, ICRC */

/* Each switch's counters: the lb block of a struct rtr_lcore_stats. */
static struct rtr_lcore_stats st_a, st_s, st_b;

/* An IPv4 RoCEv2 RC SEND src -> dst (10.x.y.z), sport, PSN psn, 16 bytes
 * of payload and an ICRC field, into p (LEN bytes). */
static void
build(uint8_t *p, const uint8_t src[4], const uint8_t dst[4], uint16_t sport, uint32_t psn,
		uint8_t b8)
{
	unsigned int ulen = LEN - 14 - 20;

	memset(p, 0, LEN);
	p[0] = 0x02, p[5] = 0x01, p[6] = 0x02, p[11] = 0x02;
	p[12] = 0x08;
	p[14] = 0x45;
	p[16] = (uint8_t)((20 + ulen) >> 8), p[17] = (uint8_t)(20 + ulen);
	p[22] = 64, p[23] = 17;
	memcpy(p + 26, src, 4);
	memcpy(p + 30, dst, 4);
	p[34] = (uint8_t)(sport >> 8), p[35] = (uint8_t)sport;
	p[36] = 0x12, p[37] = 0xb7; /* 4791 */
	p[38] = (uint8_t)(ulen >> 8), p[39] = (uint8_t)ulen;
	p[42] = 0x04; /* RC SEND only */
	p[43] = 0x40;
	p[44] = 0xff, p[45] = 0xff;
	p[49] = 0x11;
	p[50] = b8;
	p[51] = (uint8_t)(psn >> 16), p[52] = (uint8_t)(psn >> 8), p[53] = (uint8_t)psn;
	for (unsigned int i = 0; i < 16; i++)
		p[54 + i] = (uint8_t)(0xa0 + i);
	p[70] = 0xde, p[71] = 0xad, p[72] = 0xbe, p[73] = 0xef; /* "ICRC" */
}

/* m's frame parsed as received on in_port with parse flags pf. */
static void
parse(struct rte_mbuf *m, unsigned int pf, uint16_t in_port, struct rtr_meta *meta)
{
	memset(meta, 0, sizeof(*meta));
	CHECK_EQ(rtr_parse(mdata(m), rte_pktmbuf_data_len(m), SEED, pf, meta), RTR_DROP_NONE);
	meta->in_port = (uint8_t)in_port;
}

/* The tests' switch: NP 100 Gb/s uplinks on ports 1..NP, 64 leaf slots. */
static struct rtr_cg_params
params(uint16_t leaf_id, uint32_t host_mask)
{
	struct rtr_cg_params p = {
			.gap_ns = GAP,
			.dre_period_ns = TDRE,
			/* 100 Gb/s, Tdre 50 us, alpha 0.5, Q 3: the top of the
			 * scale is 100e9 * 50e-6 / 0.5 = 10^7 bits, so
			 * q = floor(X * 8 * 8 / 10^7) = floor(X / 156250). */
			.alpha = 0.5,
			.q = 3,
			.aging_ns = AGE,
			.host_port_mask = host_mask,
			.flow_entries = 1024,
			.leaf_slots = 64,
			.n_paths = NP,
			.dst_prefix_len = 24,
			.dst_prefix_len6 = 64,
			.leaf_id = leaf_id,
			.rng_seed = 7,
	};

	for (unsigned int port = 1; port <= NP; port++)
		p.rate_bps[port] = 100e9;
	return p;
}

static struct rtr_cg *
make(uint16_t leaf_id, uint32_t host_mask, struct rtr_lcore_stats *st)
{
	struct rtr_cg_params p = params(leaf_id, host_mask);

	memset(st, 0, sizeof(*st));
	return rtr_cg_create(&p);
}

/* bytes into port's DRE, as the egress queue taking a packet that long. */
static void
load(struct rtr_cg *cg, uint16_t port, uint32_t bytes)
{
	struct rte_mbuf *m = fake_mbuf();
	struct rtr_meta meta;

	memset(&meta, 0, sizeof(meta));
	m->pkt_len = bytes;
	rtr_cg_queued(cg, m, &meta, port);
	fake_free(m);
}

static const uint8_t IP_A[4] = {10, 0, 0, 1}; /* a host of leaf A */
static const uint8_t IP_B[4] = {10, 1, 0, 2}; /* a host of leaf B */

/* A host's packet src -> dst through ToR x's pick; the stamped frame in
 * *out (the caller frees it), the path returned. */
static int
host_send(struct rtr_cg *x, struct rtr_lcore_stats *st, const struct rtr_group *g,
		const uint8_t *src, const uint8_t *dst, uint16_t sport, uint32_t psn, uint64_t now,
		struct rte_mbuf **out)
{
	uint8_t p[LEN];
	struct rtr_meta meta;
	struct rte_mbuf *m;
	int path;

	build(p, src, dst, sport, psn, 0);
	m = fake_frame(p, LEN);
	parse(m, 0, HOST, &meta);
	path = rtr_cg_pick(x, g, 0, m, &meta, now, st);
	*out = m;
	return path;
}

static const uint8_t *
hdr(struct rte_mbuf *m)
{
	return mdata(m) + 14 + 20 + 8 + 12;
}

/* What the telemetry walk and the flow view hand out. */
struct flows_seen {
	unsigned int n, kv_n;
	struct rtr_lb_flow_info last;
	uint64_t kv_path, kv_flowlets;
};

static void
flow_cb(void *arg, const struct rtr_lb_flow_info *f)
{
	struct flows_seen *fs = arg;

	fs->n++;
	fs->last = *f;
}

static void
kv_u64(void *arg, const char *key, uint64_t v)
{
	struct flows_seen *fs = arg;

	fs->kv_n++;
	if (strcmp(key, "path") == 0)
		fs->kv_path = v;
	else if (strcmp(key, "flowlets") == 0)
		fs->kv_flowlets = v;
}

static void
kv_str(void *arg, const char *key, const char *v)
{
	struct flows_seen *fs = arg;

	(void)key;
	(void)v;
	fs->kv_n += 100; /* conga's view has no strings */
}

static void
test_chain(void)
{
	struct rtr_cg *a = make(0x0101, 1u << HOST, &st_a);
	struct rtr_cg *s = make(0x03e8, 0, &st_s);
	struct rtr_cg *b = make(0x0102, 1u << HOST, &st_b);
	uint64_t *ca = st_a.lb, *cs = st_s.lb, *cb = st_b.lb;
	uint8_t orig[LEN];
	struct rtr_meta meta;
	struct rtr_group g;
	struct rte_mbuf *m;
	uint64_t t = T0;
	int path, rpath, la;

	CHECK(a != NULL && s != NULL && b != NULL);
	test_lb_group(&g, NP, 0xf);
	/* Ticks start the DRE clocks (next_deadline 0 before). */
	CHECK_EQ(rtr_cg_next_deadline(a), 0);
	rtr_cg_tick(a, t, &st_a);
	rtr_cg_tick(s, t, &st_s);
	rtr_cg_tick(b, t, &st_b);
	CHECK_EQ(rtr_cg_next_deadline(a), T0 + TDRE);
	/* A's uplinks: q 3, 0, 5, 1 (X = q * 156250 bytes). */
	load(a, 1, 3 * 156250);
	load(a, 3, 5 * 156250);
	load(a, 4, 156250);
	CHECK_EQ(rtr_cg_port_q(a, 1), 3);
	CHECK_EQ(rtr_cg_port_q(a, 2), 0);
	CHECK_EQ(rtr_cg_port_q(a, 3), 5);
	CHECK_EQ(rtr_cg_port_q(a, 4), 1);
	CHECK_EQ(rtr_cg_port_q(a, 9), 0); /* no DRE on a port that is not fabric */

	/* 1. A -> B, the first packet: nothing known of B's leaf, so the
	 * least local DRE, path 1 (q 0). */
	build(orig, IP_A, IP_B, 1000, 1, 0);
	path = host_send(a, &st_a, &g, IP_A, IP_B, 1000, 1, t, &m);
	CHECK_EQ(path, 1);
	CHECK_EQ(rte_pktmbuf_data_len(m), LEN + 4);
	CHECK(memcmp(mdata(m), orig, 42) == 0, "Eth, IP, UDP as the host sent them");
	CHECK_EQ(mdata(m)[42 + 4], 1);    /* byte 4: the path */
	CHECK_EQ(mdata(m)[42 + 8], 0x32); /* op DATA, phase 1, ask 1 */
	CHECK_EQ(hdr(m)[0], 0x01);        /* source leaf 0x0101 */
	CHECK_EQ(hdr(m)[1], 0x01);
	CHECK_EQ(hdr(m)[2], 0xff); /* no feedback */
	CHECK_EQ(hdr(m)[3], 0x00); /* CE 0: path 1's uplink */
	CHECK(memcmp(hdr(m) + 4, orig + 54, LEN - 54) == 0, "payload and ICRC behind the header");
	CHECK_EQ(ca[RTR_LBC_conga_packets], 1);
	CHECK_EQ(ca[RTR_LBC_conga_flowlets], 1);
	CHECK_EQ(ca[RTR_LBC_conga_path_changes], 0);
	CHECK_EQ(ca[RTR_LBC_conga_fb_sent], 0);

	/* 2. The spine (a fabric port in, port 2 out at q 4): CE 0 -> 4. */
	parse(m, RTR_LB_PARSE_HDR, 1, &meta);
	CHECK(meta.flags & RTR_MF_LB_HDR, "a fabric port reads the header");
	load(s, 2, 4 * 156250);
	rtr_cg_post_route(s, m, &meta, 2, t, &st_s);
	CHECK_EQ(hdr(m)[3], 0x40);
	CHECK_EQ(cs[RTR_LBC_conga_ce_raised], 1);
	/* A hop whose link is less loaded leaves it. */
	load(s, 3, 2 * 156250);
	rtr_cg_post_route(s, m, &meta, 3, t, &st_s);
	CHECK_EQ(hdr(m)[3], 0x40);
	CHECK_EQ(cs[RTR_LBC_conga_ce_raised], 1);
	/* The spine's egress counts it in its DRE. */
	rtr_cg_queued(s, m, &meta, 2);
	CHECK_EQ(rtr_cg_port_q(s, 2), 4);

	/* 3. B delivers it: CE 4 on path 1 from A's leaf; the host gets
	 * its peer's frame byte for byte. */
	parse(m, RTR_LB_PARSE_HDR, 1, &meta);
	CHECK_EQ(rtr_cg_deliver(b, m, &meta, HOST, t + US, &st_b), RTR_LB_FORWARD);
	CHECK_EQ(rte_pktmbuf_data_len(m), LEN);
	CHECK(memcmp(mdata(m), orig, LEN) == 0, "delivered = sent, byte for byte");
	CHECK(!(meta.flags & RTR_MF_LB_HDR));
	CHECK_EQ(cb[RTR_LBC_conga_rx], 1);
	fake_free(m);

	/* 4. B -> A: the reverse packet feeds back (path 1, metric 4). */
	build(orig, IP_B, IP_A, 1000, 7, 0);
	rpath = host_send(b, &st_b, &g, IP_B, IP_A, 1000, 7, t + 2 * US, &m);
	CHECK(rpath >= 0 && rpath < NP);
	CHECK_EQ(mdata(m)[42 + 4], rpath);
	CHECK_EQ(mdata(m)[42 + 8], 0x32);
	CHECK_EQ(hdr(m)[0], 0x01);
	CHECK_EQ(hdr(m)[1], 0x02);
	CHECK_EQ(hdr(m)[2], 1);    /* feedback about path 1 */
	CHECK_EQ(hdr(m)[3], 0x04); /* CE 0 (B idle), metric 4 */
	CHECK_EQ(cb[RTR_LBC_conga_fb_sent], 1);
	/* A's next packet to B on the same row: nothing changed, the
	 * round-robin goes on (the only entry ever set). */
	parse(m, RTR_LB_PARSE_HDR, 2, &meta);
	CHECK_EQ(rtr_cg_deliver(a, m, &meta, HOST, t + 3 * US, &st_a), RTR_LB_FORWARD);
	CHECK(memcmp(mdata(m), orig, LEN) == 0, "the reverse packet too");
	CHECK_EQ(ca[RTR_LBC_conga_fb_received], 1);
	la = rtr_cg_leaf_of(a, IP_B, false);
	CHECK(la >= 0, "A knows B's leaf");
	CHECK_EQ(rtr_conga_to_leaf_get(rtr_cg_tables(a), (unsigned int)la, 1, t + 3 * US), 4);
	fake_free(m);

	/* 5. The flow's next packet gap - 1 after its last keeps path 1
	 * (max(0, 4) = 4 now, path 3 would be 1); exactly the gap after
	 * that one starts a flowlet on path 3: max(3,0)=3, max(0,4)=4,
	 * max(5,0)=5, max(1,0)=1. Each carries feedback for B: A's
	 * from-leaf row for B's leaf holds the one packet B sent, CE 0 on
	 * path rpath (the changed entry, then the only one ever set). */
	path = host_send(a, &st_a, &g, IP_A, IP_B, 1000, 2, t + GAP - 1, &m);
	CHECK_EQ(path, 1);
	CHECK_EQ(ca[RTR_LBC_conga_flowlets], 1);
	CHECK_EQ(hdr(m)[2], rpath);
	CHECK_EQ(hdr(m)[3], 0x00);
	CHECK_EQ(ca[RTR_LBC_conga_fb_sent], 1);
	fake_free(m);
	path = host_send(a, &st_a, &g, IP_A, IP_B, 1000, 3, t + 2 * GAP - 1, &m);
	CHECK_EQ(path, 3);
	CHECK_EQ(ca[RTR_LBC_conga_flowlets], 2);
	CHECK_EQ(ca[RTR_LBC_conga_path_changes], 1);
	CHECK_EQ(mdata(m)[42 + 4], 3);
	CHECK_EQ(hdr(m)[3] >> 4, 1);
	CHECK_EQ(hdr(m)[2], rpath);
	CHECK_EQ(hdr(m)[3] & 0xf, 0);
	CHECK_EQ(ca[RTR_LBC_conga_fb_sent], 2);
	fake_free(m);

	/* The telemetry view: the one flow A holds, on path 3, 2 flowlets. */
	{
		struct flows_seen fs = {0};
		const struct rtr_lb_desc *d =
				rtr_lb_mode_at((unsigned int)rtr_lb_mode_find("conga"));
		struct rtr_lb_kv kv = {.u64 = kv_u64, .str = kv_str, .arg = &fs};

		CHECK_EQ(rtr_lb_conga.flows(a, t + 2 * GAP, 0, flow_cb, &fs), 1);
		CHECK_EQ(fs.n, 1);
		CHECK_EQ(fs.last.path, 3);
		CHECK_EQ(fs.last.flowlets, 2);
		d->flow_view(&fs.last, &kv);
		CHECK_EQ(fs.kv_path, 3);
		CHECK_EQ(fs.kv_flowlets, 2);
		CHECK_EQ(fs.kv_n, 2);
	}

	/* 6. DRE decay: the boundary at T0 + Tdre halves every X. */
	rtr_cg_tick(a, T0 + TDRE - 1, &st_a);
	CHECK_EQ(rtr_cg_port_q(a, 3), 5);
	rtr_cg_tick(a, T0 + TDRE, &st_a);
	CHECK_EQ(rtr_cg_port_q(a, 3), 2); /* 390625 bytes */
	CHECK_EQ(rtr_cg_port_q(a, 1), 1); /* 234375 */
	CHECK_EQ(rtr_cg_port_q(a, 4), 0); /* 78125 */
	CHECK_EQ(rtr_cg_next_deadline(a), T0 + 2 * TDRE);
	/* Two boundaries late: both applied. */
	rtr_cg_tick(a, T0 + 3 * TDRE, &st_a);
	CHECK_EQ(rtr_cg_port_q(a, 3), 0); /* 97656 */
	CHECK_EQ(rtr_cg_next_deadline(a), T0 + 4 * TDRE);

	/* 7. Ageing: the metric stored at t + 3 us reads 0 after AGE, and
	 * the sweep (due AGE after the first tick) resets it, counted once. */
	CHECK_EQ(rtr_conga_to_leaf_get(rtr_cg_tables(a), (unsigned int)la, 1, t + 3 * US + AGE), 4);
	rtr_cg_tick(a, T0 + AGE, &st_a);
	CHECK_EQ(ca[RTR_LBC_conga_aged], 0);
	rtr_cg_tick(a, T0 + 2 * AGE, &st_a);
	CHECK_EQ(ca[RTR_LBC_conga_aged], 1);
	CHECK_EQ(rtr_conga_to_leaf_get(rtr_cg_tables(a), (unsigned int)la, 1, T0 + 2 * AGE), 0);

	rtr_cg_free(a);
	rtr_cg_free(s);
	rtr_cg_free(b);
}

/* Flowlet boundaries exactly at the gap, over many flows: gap - 1 after
 * the last packet keeps the path whatever the DRE says, the gap itself
 * moves the flow to the least loaded path. */
static void
test_boundaries(void)
{
	struct rtr_cg *a = make(1, 1u << HOST, &st_a);
	struct rtr_group g;
	struct rte_mbuf *m;
	unsigned int flows = 200;

	test_lb_group(&g, NP, 0xf);
	rtr_cg_tick(a, T0, &st_a);
	for (unsigned int f = 0; f < flows; f++) {
		uint64_t t = T0 + f * 10 * GAP;
		int p0, p;

		p0 = host_send(a, &st_a, &g, IP_A, IP_B, (uint16_t)(2000 + f), 0, t, &m);
		fake_free(m);
		/* Its path becomes the most loaded, another the least. */
		load(a, (uint16_t)(1 + p0), 6 * 156250);
		p = host_send(a, &st_a, &g, IP_A, IP_B, (uint16_t)(2000 + f), 1, t + GAP - 1, &m);
		fake_free(m);
		CHECK(p == p0, "flow %u: moved %d -> %d within the gap", f, p0, p);
		p = host_send(a, &st_a, &g, IP_A, IP_B, (uint16_t)(2000 + f), 2, t + 2 * GAP - 1,
				&m);
		fake_free(m);
		CHECK(p != p0, "flow %u: stayed on its loaded path %d after the gap", f, p0);
		/* Back to an idle fabric for the next flow. */
		rtr_cg_tick(a, t + 10 * GAP - 1, &st_a);
		for (unsigned int port = 1; port <= NP; port++)
			CHECK_EQ(rtr_cg_port_q(a, (uint16_t)port), 0);
	}
	CHECK_EQ(st_a.lb[RTR_LBC_conga_flowlets], 2 * flows);
	CHECK_EQ(st_a.lb[RTR_LBC_conga_path_changes], flows);
	rtr_cg_free(a);
}

/* What goes by ECMP, unstamped: a host's packet with Resv7 set, transit,
 * anything not RoCE; a path that is down is never chosen. And the
 * all-modes strip removes a CONGA header before a host. */
static void
test_ecmp_and_strip(void)
{
	struct rtr_cg *a = make(1, 1u << HOST, &st_a);
	const struct rtr_lb_desc *d = rtr_lb_mode_at((unsigned int)rtr_lb_mode_find("conga"));
	uint8_t orig[LEN];
	struct rtr_meta meta;
	struct rtr_group g;
	struct rte_mbuf *m;
	int path;

	CHECK(d != NULL && d->ops == &rtr_lb_conga && d->spine == RTR_LB_SPINE_RUN);
	test_lb_group(&g, NP, 0xf);
	rtr_cg_tick(a, T0, &st_a);
	build(orig, IP_A, IP_B, 3000, 0, 0x05);
	m = fake_frame(orig, LEN);
	parse(m, 0, HOST, &meta);
	path = rtr_cg_pick(a, &g, 0, m, &meta, T0, &st_a);
	CHECK(path >= 0 && path < NP);
	CHECK(memcmp(mdata(m), orig, LEN) == 0 && rte_pktmbuf_data_len(m) == LEN);
	CHECK_EQ(st_a.lb[RTR_LBC_conga_unstamped], 1);
	fake_free(m);
	build(orig, IP_A, IP_B, 3000, 0, 0);
	m = fake_frame(orig, LEN);
	parse(m, 0, 2, &meta); /* from a fabric port: transit */
	path = rtr_cg_pick(a, &g, 0, m, &meta, T0, &st_a);
	CHECK(memcmp(mdata(m), orig, LEN) == 0 && rte_pktmbuf_data_len(m) == LEN);
	CHECK_EQ(st_a.lb[RTR_LBC_conga_packets], 0);
	CHECK_EQ(st_a.lb[RTR_LBC_ecmp_packets], 2);
	fake_free(m);
	/* A host's CNP (BECN in byte 4, which the header's path would take). */
	build(orig, IP_A, IP_B, 3000, 0, 0);
	orig[42] = 0x81; /* CNP */
	orig[46] = 0x40; /* BECN */
	m = fake_frame(orig, LEN);
	parse(m, 0, HOST, &meta);
	path = rtr_cg_pick(a, &g, 0, m, &meta, T0, &st_a);
	CHECK(path >= 0 && path < NP);
	CHECK(memcmp(mdata(m), orig, LEN) == 0 && rte_pktmbuf_data_len(m) == LEN);
	CHECK_EQ(st_a.lb[RTR_LBC_conga_packets], 0);
	CHECK_EQ(st_a.lb[RTR_LBC_ecmp_packets], 3);
	fake_free(m);
	/* Only path 2 live: every flowlet there. */
	atomic_store(&g.live_mask, 1ULL << 2);
	for (unsigned int f = 0; f < 50; f++) {
		CHECK_EQ(host_send(a, &st_a, &g, IP_A, IP_B, (uint16_t)(4000 + f), 0, T0, &m), 2);
		fake_free(m);
	}
	atomic_store(&g.live_mask, 0);
	CHECK_EQ(host_send(a, &st_a, &g, IP_A, IP_B, 4000, 1, T0, &m), -1);
	fake_free(m);
	/* The host strip every ToR applies (another mode's ToR). */
	atomic_store(&g.live_mask, 0xf);
	build(orig, IP_A, IP_B, 5000, 9, 0);
	host_send(a, &st_a, &g, IP_A, IP_B, 5000, 9, T0, &m);
	parse(m, RTR_LB_PARSE_FOREIGN, 1, &meta);
	CHECK(meta.flags & RTR_MF_LB_HDR, "a foreign ToR reads the header");
	CHECK(d->host_strip(m, &meta, st_b.lb));
	CHECK(rte_pktmbuf_data_len(m) == LEN && memcmp(mdata(m), orig, LEN) == 0);
	fake_free(m);
	CHECK_EQ(live_mbufs, 0);
	rtr_cg_free(a);
}

/* Two workers of one switch: a link's DRE is the sum of both workers'
 * bytes on it (the published values), decayed by each worker's tick. */
static void
test_shared_dre(void)
{
	struct rtr_cg_shared *sh = rtr_cg_shared_new(false, 0);
	struct rtr_cg_params p = params(1, 1u << HOST);
	struct rtr_cg *w0, *w1;

	p.shared = sh;
	p.n_workers = 2;
	w0 = rtr_cg_create(&p);
	p.worker = 1;
	w1 = rtr_cg_create(&p);
	CHECK(sh != NULL && w0 != NULL && w1 != NULL);
	p.worker = 2; /* not below n_workers */
	CHECK(rtr_cg_create(&p) == NULL);
	rtr_cg_tick(w0, T0, &st_a);
	rtr_cg_tick(w1, T0, &st_b);
	load(w0, 2, 2 * 156250);
	CHECK_EQ(rtr_cg_port_q(w1, 2), 2); /* worker 0's bytes, seen by 1 */
	load(w1, 2, 3 * 156250);
	CHECK_EQ(rtr_cg_port_q(w0, 2), 5);
	CHECK_EQ(rtr_cg_port_q(w1, 2), 5);
	rtr_cg_tick(w0, T0 + TDRE, &st_a); /* worker 0's half: 156250 */
	CHECK_EQ(rtr_cg_port_q(w1, 2), 4);
	rtr_cg_tick(w1, T0 + TDRE, &st_b); /* and worker 1's: 234375 */
	CHECK_EQ(rtr_cg_port_q(w0, 2), 2);
	rtr_cg_free(w0);
	rtr_cg_free(w1);
	rtr_cg_shared_free(sh);
}

/* Ageing sweeps the leaf slots in use 64 per tick: with 256 slots, 100
 * leaves' stale metrics are all reset (each counted once) within four
 * ticks, not in one. Each leaf learnt from a stamped packet whose feedback
 * its DstToR stored. */
static void
test_age_slices(void)
{
	struct rtr_cg_params p = params(2, 1u << HOST);
	struct rtr_cg *b;
	uint8_t f[LEN + 4], seen[256];
	unsigned int distinct = 0;
	struct rtr_meta meta;
	struct rte_mbuf *m;

	p.leaf_slots = 256;
	memset(&st_b, 0, sizeof(st_b));
	memset(seen, 0, sizeof(seen));
	b = rtr_cg_create(&p);
	CHECK(b != NULL);
	rtr_cg_tick(b, T0, &st_b);
	for (unsigned int i = 0; i < 100; i++) {
		const uint8_t src[4] = {10, (uint8_t)(10 + i / 50), (uint8_t)(i % 50), 1};
		const struct rtr_conga_hdr h = {
				.src_leaf = 1, .fb_path = 2, .ce = 1, .fb_metric = 3};
		int slot;

		/* What a SrcToR stamps: the header after the BTH, lengths
		 * unchanged. */
		build(f, src, IP_B, 100, i, 0);
		memmove(f + 58, f + 54, LEN - 54);
		f[42 + 4] = 1;
		f[42 + 8] = 0x32;
		rtr_conga_hdr_pack(f + 54, &h);
		m = fake_frame(f, LEN + 4);
		parse(m, RTR_LB_PARSE_HDR, 1, &meta);
		CHECK(meta.flags & RTR_MF_LB_HDR);
		CHECK_EQ(rtr_cg_deliver(b, m, &meta, HOST, T0 + US, &st_b), RTR_LB_FORWARD);
		fake_free(m);
		slot = rtr_cg_leaf_of(b, src, false);
		CHECK(slot >= 0);
		if (slot >= 0 && !seen[slot]) {
			seen[slot] = 1;
			distinct++;
		}
	}
	/* Slots two names shared were taken over (their rows reset). */
	CHECK_EQ(distinct + st_b.lb[RTR_LBC_conga_leaf_evictions], 100);
	CHECK_EQ(st_b.lb[RTR_LBC_conga_fb_received], 100);
	CHECK_EQ(st_b.lb[RTR_LBC_conga_rx], 100);
	rtr_cg_tick(b, T0 + US + AGE, &st_b); /* not older than AGE yet */
	CHECK_EQ(st_b.lb[RTR_LBC_conga_aged], 0);
	rtr_cg_tick(b, T0 + US + AGE + 1, &st_b);
	CHECK(st_b.lb[RTR_LBC_conga_aged] > 0 && st_b.lb[RTR_LBC_conga_aged] < distinct,
			"one tick aged %llu of %u", (unsigned long long)st_b.lb[RTR_LBC_conga_aged],
			distinct);
	for (unsigned int k = 0; k < 3; k++)
		rtr_cg_tick(b, T0 + US + AGE + 2 + k, &st_b);
	CHECK_EQ(st_b.lb[RTR_LBC_conga_aged], distinct);
	rtr_cg_tick(b, T0 + 10 * AGE, &st_b);
	CHECK_EQ(st_b.lb[RTR_LBC_conga_aged], distinct); /* counted once */
	CHECK_EQ(live_mbufs, 0);
	rtr_cg_free(b);
}

int
main(void)
{
	test_chain();
	test_boundaries();
	test_ecmp_and_strip();
	test_shared_dre();
	test_age_slices();
	return rtr_test_done("conga-mode");
}
