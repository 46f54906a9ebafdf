/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit tests of LetFlow (rtr_letflow, ALGORITHMS.md 7) without the EAL, on
 * a virtual clock: flowlet boundaries exactly at the gap (a packet gap - 1
 * after the flow's last keeps the path, one at the gap starts a flowlet),
 * the gap measured from the last packet, not the flowlet's first; the
 * spread of new flowlets over the live paths; a down path never drawn and
 * a flowlet moved off a path that goes down; the ECMP fallbacks (transit,
 * not RoCE, table full). Expected outcomes come from the specification.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "rtr_lb.h"
#include "rtr_lb_fs.h"
#include "rtr_lb_registry.h"
#include "rtr_letflow.h"
#include "rtr_parse.h"
#include "rtr_route.h"
#include "rtr_stats.h"
#include "rtr_test.h"
#include "test_lb_group.h"
#include "rtr_test_mbuf.h"
#include "test_lb_stats.h"

#define SEED   0x5eed1234u
#define GAP    100000ULL /* ns: the default flowlet_gap_us = 100 */
#define US     1000ULL
#define T0     1000000000ULL /* the virtual clock starts at 1 s */
#define HOST   0             /* a host port (host_port_mask 0x1) */
#define FABRIC 3
#define NP     4

/* The counters: the lb block of a real struct rtr_lcore_stats (LB_ST). */
static struct rtr_lcore_stats st;
static uint64_t *const c = st.lb;

/* An IPv4 RoCEv2 frame 10.0.0.a:sport -> 10.1.0.b:4791 (an RC SEND, PSN
 * psn), parsed into *meta as received on in_port. */
static struct rte_mbuf *
frame(uint32_t a, uint8_t b, uint16_t sport, uint32_t psn, uint16_t dport, uint16_t in_port,
		struct rtr_meta *meta)
{
	uint8_t p[128];
	unsigned int ulen = 8 + 12 + 16 + 4, n = 14 + 20 + ulen;
	struct rte_mbuf *m;

	memset(p, 0, sizeof(p));
	p[0] = 0x02, p[5] = 0x01, p[6] = 0x02, p[11] = 0x02;
	p[12] = 0x08;
	p[14] = 0x45;
	p[16] = (uint8_t)((20 + ulen) >> 8), p[17] = (uint8_t)(20 + ulen);
	p[22] = 64, p[23] = 17;
	p[26] = 10, p[28] = (uint8_t)(a >> 8), p[29] = (uint8_t)a;
	p[30] = 10, p[31] = 1, p[33] = b;
	p[34] = (uint8_t)(sport >> 8), p[35] = (uint8_t)sport;
	p[36] = (uint8_t)(dport >> 8), p[37] = (uint8_t)dport;
	p[38] = (uint8_t)(ulen >> 8), p[39] = (uint8_t)ulen;
	p[42] = 0x04; /* RC SEND only */
	p[43] = 0x40;
	p[44] = 0xff, p[45] = 0xff;
	p[49] = 0x11;
	p[51] = (uint8_t)(psn >> 16), p[52] = (uint8_t)(psn >> 8), p[53] = (uint8_t)psn;
	m = fake_frame(p, n);
	memset(meta, 0, sizeof(*meta));
	CHECK_EQ(rtr_parse(p, n, SEED, 0, meta), RTR_DROP_NONE);
	meta->in_port = (uint8_t)in_port;
	return m;
}

/* The path letflow gives one packet of flow (a, sport) at now. */
static int
pick(struct rtr_lf *lf, const struct rtr_group *g, uint32_t a, uint16_t sport, uint64_t now)
{
	struct rtr_meta meta;
	struct rte_mbuf *m = frame(a, 1, sport, 0, 4791, HOST, &meta);
	int p = rtr_lf_pick(lf, g, 0, m, &meta, now, LB_ST(c));

	fake_free(m);
	return p;
}

static struct rtr_lf *
make(uint32_t entries)
{
	struct rtr_lf_params p = {
			.gap_ns = GAP,
			.flow_entries = entries,
			.host_port_mask = 1u << HOST,
			.rng_seed = 11,
	};

	memset(&st, 0, sizeof(st));
	return rtr_lf_create(&p);
}

/* NP paths on ports 1..NP, the live ones the bits of live. */
static void
group(struct rtr_group *g, uint64_t live)
{
	test_lb_group(g, NP, live);
}

/* A packet gap - 1 ns (and gap - 1 us) after the flow's last keeps its
 * path; one exactly gap after it starts a new flowlet, which over many
 * flows lands elsewhere as often as a uniform draw says (3 in 4). */
static void
test_boundaries(void)
{
	struct rtr_lf *lf = make(1 << 16);
	struct rtr_group g;
	unsigned int changed = 0, flows = 2000;

	group(&g, 0xf);
	CHECK(lf != NULL);
	for (unsigned int f = 0; f < flows; f++) {
		uint64_t t = T0 + f;
		int p0 = pick(lf, &g, f, 1000, t), p;

		/* gap - 1 us, then gap - 1 ns after that packet: the same
		 * flowlet, whatever the draws. */
		t += GAP - US;
		p = pick(lf, &g, f, 1000, t);
		CHECK(p == p0, "flow %u: moved %d -> %d %llu ns after its last packet", f, p0, p,
				GAP - US);
		t += GAP - 1;
		p = pick(lf, &g, f, 1000, t);
		CHECK(p == p0, "flow %u: moved %d -> %d %llu ns after its last packet", f, p0, p,
				GAP - 1);
		/* Exactly the gap: a new flowlet. */
		t += GAP;
		p = pick(lf, &g, f, 1000, t);
		changed += p != p0;
	}
	CHECK_EQ(c[RTR_LBC_letflow_flowlets], 2 * flows);
	CHECK_EQ(c[RTR_LBC_letflow_packets], 4 * flows);
	CHECK_EQ(c[RTR_LBC_letflow_path_changes], changed);
	CHECK_EQ(c[RTR_LBC_ecmp_packets], 0);
	/* 3/4 of 2000 = 1500, sd 19: 1400..1600 is 5 sd. */
	CHECK(changed > 1400 && changed < 1600, "%u of %u flowlets at the gap changed path",
			changed, flows);
	rtr_lf_free(lf);
}

/* The gap is from the flow's last packet: packets every gap - 1 ns keep
 * one flowlet (and its path) for far longer than the gap. */
static void
test_since_last(void)
{
	struct rtr_lf *lf = make(1024);
	struct rtr_group g;
	uint64_t t = T0;
	int p0;

	group(&g, 0xf);
	p0 = pick(lf, &g, 7, 2000, t);
	for (unsigned int i = 0; i < 1000; i++) {
		t += GAP - 1;
		CHECK_EQ(pick(lf, &g, 7, 2000, t), p0);
	}
	CHECK_EQ(c[RTR_LBC_letflow_flowlets], 1);
	CHECK_EQ(c[RTR_LBC_letflow_path_changes], 0);
	rtr_lf_free(lf);
}

/* New flowlets spread uniformly over the live paths, and never on one
 * that is down: 8000 flows (first flowlets) and one flow's 8000 flowlets. */
static void
test_spread(uint64_t live)
{
	struct rtr_lf *lf = make(1 << 16);
	struct rtr_group g;
	unsigned int nf[NP] = {0}, nl[NP] = {0}, k = (unsigned int)__builtin_popcountll(live);
	uint64_t t = T0;

	group(&g, live);
	for (unsigned int f = 0; f < 8000; f++) {
		int p = pick(lf, &g, f, 3000, T0);

		CHECK(p >= 0 && p < NP);
		if (p >= 0 && p < NP)
			nf[p]++;
	}
	for (unsigned int i = 0; i < 8000; i++) {
		int p = pick(lf, &g, 60000, 4000, t);

		t += GAP;
		if (p >= 0 && p < NP)
			nl[p]++;
	}
	for (unsigned int p = 0; p < NP; p++) {
		if (!((live >> p) & 1)) {
			CHECK(nf[p] == 0 && nl[p] == 0, "down path %u drawn %u + %u times", p,
					nf[p], nl[p]);
			continue;
		}
		/* 8000 / k each, within 10% (more than 4 sd for k <= 4). */
		CHECK(nf[p] * 10 * k > 9 * 8000 && nf[p] * 10 * k < 11 * 8000,
				"path %u: %u of 8000 flows over %u live paths", p, nf[p], k);
		CHECK(nl[p] * 10 * k > 9 * 8000 && nl[p] * 10 * k < 11 * 8000,
				"path %u: %u of 8000 flowlets over %u live paths", p, nl[p], k);
	}
	CHECK_EQ(c[RTR_LBC_letflow_flowlets], 16000);
	rtr_lf_free(lf);
}

/* A flowlet whose path goes down moves at its next packet (to a live
 * path, counted as a reroute) and stays there when the path comes back
 * within the flowlet. */
static void
test_down(void)
{
	struct rtr_lf *lf = make(1024);
	struct rtr_group g;
	uint64_t t = T0;
	int p0, p1;

	group(&g, 0xf);
	p0 = pick(lf, &g, 9, 5000, t);
	atomic_store(&g.live_mask, 0xfULL & ~(1ULL << p0));
	t += US;
	p1 = pick(lf, &g, 9, 5000, t);
	CHECK(p1 >= 0 && p1 != p0, "stayed on down path %d (got %d)", p0, p1);
	CHECK_EQ(c[RTR_LBC_reroutes], 1);
	CHECK_EQ(c[RTR_LBC_letflow_path_changes], 1);
	CHECK_EQ(c[RTR_LBC_letflow_flowlets], 1);
	atomic_store(&g.live_mask, 0xf);
	t += US;
	CHECK_EQ(pick(lf, &g, 9, 5000, t), p1);
	/* Every path down: no path. */
	atomic_store(&g.live_mask, 0);
	CHECK_EQ(pick(lf, &g, 9, 5000, t + US), -1);
	rtr_lf_free(lf);
}

/* What is not a host's RoCE goes by ECMP and keeps no state; a flow the
 * table has no room for too. */
static void
test_ecmp(void)
{
	struct rtr_lf *lf = make(8); /* one bucket of 8 ways */
	struct rtr_group g;
	struct rtr_meta meta;
	struct rte_mbuf *m;
	int p;

	group(&g, 0xf);
	m = frame(1, 1, 100, 0, 4791, FABRIC, &meta);
	p = rtr_lf_pick(lf, &g, 0, m, &meta, T0, LB_ST(c));
	CHECK_EQ(p, rtr_group_pick(&g, meta.flow_hash));
	fake_free(m);
	m = frame(1, 1, 100, 0, 5000, HOST, &meta); /* UDP, not RoCE */
	CHECK(!(meta.flags & RTR_MF_ROCE));
	p = rtr_lf_pick(lf, &g, 0, m, &meta, T0, LB_ST(c));
	CHECK_EQ(p, rtr_group_pick(&g, meta.flow_hash));
	fake_free(m);
	CHECK_EQ(c[RTR_LBC_ecmp_packets], 2);
	CHECK_EQ(c[RTR_LBC_letflow_packets], 0);
	for (unsigned int f = 0; f < 8; f++)
		pick(lf, &g, f, 100, T0);
	CHECK_EQ(c[RTR_LBC_letflow_flowlets], 8);
	m = frame(8, 1, 100, 0, 4791, HOST, &meta);
	p = rtr_lf_pick(lf, &g, 0, m, &meta, T0, LB_ST(c));
	CHECK_EQ(p, rtr_group_pick(&g, meta.flow_hash));
	fake_free(m);
	CHECK_EQ(c[RTR_LBC_flow_table_full], 1);
	CHECK_EQ(c[RTR_LBC_ecmp_packets], 3);
	rtr_lf_free(lf);
}

/* The telemetry view (/rocetor/lb/flows): each flow with its path and its
 * flowlets, through the mode's flows walk and its descriptor's view. */
struct seen {
	unsigned int n;
	uint8_t path[4];
	uint32_t flowlets[4];
	uint16_t sport[4];
};

static void
collect(void *arg, const struct rtr_lb_flow_info *f)
{
	struct seen *s = arg;

	if (s->n < 4) {
		s->path[s->n] = f->path;
		s->flowlets[s->n] = f->flowlets;
		s->sport[s->n] = f->sport;
	}
	s->n++;
}

struct kv_seen {
	uint64_t path, flowlets;
	unsigned int n;
};

static void
kv_u64(void *arg, const char *key, uint64_t v)
{
	struct kv_seen *k = arg;

	k->n++;
	if (strcmp(key, "path") == 0)
		k->path = v;
	else if (strcmp(key, "flowlets") == 0)
		k->flowlets = v;
}

static void
kv_str(void *arg, const char *key, const char *v)
{
	(void)arg;
	(void)key;
	(void)v;
	CHECK(0, "letflow's view has no strings");
}

static void
test_view(void)
{
	struct rtr_lf *lf = make(1024);
	const struct rtr_lb_desc *d = rtr_lb_mode_at(RTR_LB_LETFLOW);
	struct rtr_group g;
	struct seen s = {0};
	struct kv_seen k = {0};
	struct rtr_lb_kv kv = {kv_u64, kv_str, &k};
	int p;

	group(&g, 0xf);
	p = pick(lf, &g, 3, 7000, T0);
	pick(lf, &g, 3, 7000, T0 + GAP);
	p = pick(lf, &g, 3, 7000, T0 + 2 * GAP);
	CHECK_EQ(rtr_lb_fs_flows(lf, T0 + 2 * GAP + 5, 0, collect, &s), 1);
	CHECK_EQ(s.n, 1);
	CHECK_EQ(s.path[0], p);
	CHECK_EQ(s.flowlets[0], 3);
	CHECK_EQ(s.sport[0], 7000);
	CHECK(d != NULL && d->flow_view != NULL && strcmp(d->name, "letflow") == 0);
	if (d != NULL && d->flow_view != NULL) {
		struct rtr_lb_flow_info fi = {.path = 2, .flowlets = 9};

		d->flow_view(&fi, &kv);
		CHECK_EQ(k.n, 2);
		CHECK_EQ(k.path, 2);
		CHECK_EQ(k.flowlets, 9);
	}
	rtr_lf_free(lf);
}

int
main(void)
{
	test_view();
	test_boundaries();
	test_since_last();
	test_spread(0xf);
	test_spread(0xb); /* path 2 down */
	test_spread(0x9); /* paths 1, 2 down */
	test_down();
	test_ecmp();
	CHECK_EQ(live_mbufs, 0);
	return rtr_test_done("letflow");
}
