/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The shared buffer admission policy (qos.buffer.mode shared; doc/egress.md
 * "Shared buffer") on a virtual clock without the EAL: an incast never
 * queues more than the pool, a queue's limit follows alpha x free, PFC XOFF
 * at free / 16 and XON below it minus the offset, headroom after the XOFF,
 * and the per-worker batching of the pool count.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>

#include "eg_internal.h"
#include "rtr_egress.h"
#include "rtr_mbuf.h"
#include "rtr_parse.h"
#include "rtr_test.h"
#include "test_eg_frames.h"

/* ------------------------------------------------------------ fakes */

static uint32_t tag_of(struct rte_mbuf *m) __attribute__((unused));

static int accept_n = -1; /* frames the NIC takes per call; -1 = all */
static unsigned int drops[RTR_DROP_MAX];
static unsigned int tx_n;

static uint16_t
nic_tx(void *arg, uint16_t port, uint16_t hwq, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t take = n;

	(void)arg;
	(void)port;
	(void)hwq;
	if (accept_n >= 0 && take > accept_n)
		take = (uint16_t)accept_n;
	for (uint16_t i = 0; i < take; i++)
		fake_free(pkts[i]);
	tx_n += take;
	return take;
}

static void
nic_drop(void *arg, struct rte_mbuf *m, enum rtr_drop_reason why)
{
	(void)arg;
	drops[why]++;
	fake_free(m);
}

static struct rte_mbuf *
nic_alloc(void *arg)
{
	(void)arg;
	return fake_mbuf();
}

static struct rtr_config cfg;
static struct rtr_egress_shared sh;
static struct rtr_lcore_stats st;

/* n ports, one shared pool of size_kb, alpha; queue_kb larger than the
 * pool so that alpha x free is what limits. */
static void
cfg_shared(unsigned int n_ports, uint32_t size_kb, double alpha)
{
	memset(&cfg, 0, sizeof(cfg));
	cfg.n_ports = n_ports;
	for (unsigned int p = 0; p < n_ports; p++) {
		cfg.ports[p].port = (uint16_t)p;
		cfg.ports[p].role = RTR_PORT_FABRIC;
		cfg.ports[p].mac[0] = 0x02;
		cfg.ports[p].mac[5] = (uint8_t)p;
		cfg.ports[p].speed_gbps = 100;
	}
	cfg.qos.classes = 8;
	cfg.qos.queue_kb = 4 * size_kb;
	cfg.qos.trim_dscp = -1;
	cfg.qos.pfc.xoff_kb = 256;
	cfg.qos.pfc.xon_kb = 128;
	cfg.qos.pfc.quanta = 65535;
	for (unsigned int c = 0; c < RTR_MAX_CLASSES; c++) {
		cfg.qos.cls[c].priority = (uint8_t)c;
		cfg.qos.cls[c].weight = 1;
		cfg.qos.cls[c].queue_kb = cfg.qos.queue_kb;
	}
	cfg.qos.buffer = (struct rtr_buffer_cfg){.mode = RTR_BUFFER_SHARED,
			.size_kb = size_kb,
			.alpha = alpha,
			.headroom_kb = 0,
			.pfc_divisor = 16,
			.xon_offset_kb = 3};
}

/* cfg_shared on 4 ports and 1 MB, with software PFC on class 3 and 16 KB of
 * headroom per port. */
static void
cfg_pfc(double alpha)
{
	cfg_shared(4, 1024, alpha);
	cfg.qos.buffer.headroom_kb = 16;
	cfg.qos.pfc.mode = RTR_PFC_SOFTWARE;
	cfg.qos.pfc.class_mask = 1u << 3;
	cfg.qos.pfc.quanta = 1000;
}

static struct rtr_egress *
mk(unsigned int worker)
{
	struct rtr_egress_io io = {.tx = nic_tx, .drop = nic_drop, .alloc = nic_alloc};
	struct rtr_egress *eg;

	if (worker == 0) {
		memset(&st, 0, sizeof(st));
		if (rtr_egress_shared_init(&sh, &cfg, NULL) != 0)
			return NULL;
	}
	eg = rtr_egress_create(&sh, worker, &io, &st, 1u << 16, -1);
	if (eg != NULL)
		eg->direct = false;
	return eg;
}

static void
done(struct rtr_egress *eg)
{
	accept_n = -1;
	rtr_egress_flush_all(eg, 4);
	CHECK_EQ(eg->held, 0);
	CHECK_EQ(eg_sb_used(eg), 0);
	rtr_egress_free(eg);
	memset(drops, 0, sizeof(drops));
	tx_n = 0;
}

/* Bytes in every class queue of eg. */
static uint64_t
queued(const struct rtr_egress *eg)
{
	uint64_t b = 0;

	for (unsigned int p = 0; p < RTR_MAX_PORTS; p++)
		for (unsigned int c = 0; eg->port[p] && c < eg->n_classes; c++)
			b += eg->port[p]->cq[c].bytes;
	return b;
}

/* ------------------------------------------------------------ tests */

/*
 * Incast: 30 ingress ports into egress ports 0 and 31, whose NICs take
 * nothing. The switch never holds more than its pool; with alpha 1 and two
 * queues each settles at a third of it (q = alpha (S - 2q)).
 */
static void
test_incast(void)
{
	const uint32_t size = 256 * 1024, len = 1000;
	struct rtr_egress *eg;
	uint64_t max = 0;
	bool ok = true;

	cfg_shared(32, 256, 1.0);
	eg = mk(0);
	CHECK(eg != NULL && eg->admit == EG_ADMIT_SHARED);
	accept_n = 0;
	for (unsigned int i = 0; i < 3000; i++) {
		uint8_t in = (uint8_t)(1 + i % 30);
		uint16_t out = (i & 1) ? 31 : 0;

		rtr_egress_enqueue(eg, out, pkt(len, false, 0, -1, 4, i, in), 3, 1000 + i);
		if (queued(eg) > size || queued(eg) != eg_sb_used(eg))
			ok = false;
		if (queued(eg) > max)
			max = queued(eg);
		if (i % 64 == 0)
			rtr_egress_service(eg, 1000 + i);
	}
	CHECK(ok, "the pool's count is the queued bytes and never above %u", size);
	CHECK(max <= size);
	CHECK(eg->sb_peak <= size && eg->sb_peak >= max);
	CHECK(drops[RTR_DROP_QUEUE_FULL] > 0);
	/* Both queues stopped by their limit: neither takes another packet
	 * (q + len > alpha x free), and neither is past half the pool
	 * (q <= alpha x free before its last packet). */
	for (unsigned int k = 0; k < 2; k++) {
		uint32_t q = eg->port[k ? 31 : 0]->cq[3].bytes;

		CHECK(q + len > eg_sb_free(eg), "queue %u at %u, free %" PRIu64, k, q,
				eg_sb_free(eg));
		CHECK(q <= size / 2, "queue %u at %u", k, q);
	}
	/* Nothing else can queue past the pool: a third queue gets what is
	 * left, alpha x free, no more. */
	{
		uint64_t free = eg_sb_free(eg);
		unsigned int n = 0;

		while (n < 1000 && rtr_egress_enqueue(eg, 5, pkt(len, false, 0, -1, 4, n, 1), 3,
						   5000) == 0)
			n++;
		CHECK(eg->port[5]->cq[3].bytes <= free);
		CHECK(queued(eg) <= size);
	}
	done(eg);
}

/*
 * A queue's limit is alpha x free as free shrinks: the pool is taken by
 * held packets (rtr_egress_enqueue_held: admitted once, they count but are
 * not tested) on another port; the test queue fills until a packet does
 * not fit, and then q <= alpha (S - B - q) < q + len.
 */
static void
test_alpha_follows_free(void)
{
	const uint32_t size = 512 * 1024, len = 1000;
	const double alpha = 0.5;
	uint32_t prev = UINT32_MAX;

	cfg_shared(4, 512, alpha);
	for (uint32_t b = 0; b <= 384 * 1024; b += 64 * 1024) {
		struct rtr_egress *eg = mk(0);
		uint32_t q;
		uint64_t used;

		accept_n = 0;
		for (uint32_t k = 0; k < b / len; k++)
			rtr_egress_enqueue_held(eg, 1, pkt(len, false, 0, -1, 4, k, 0), 0, 1000);
		used = eg_sb_used(eg);
		CHECK_EQ(used, (uint64_t)(b / len) * len);
		for (unsigned int i = 0; i < 2000; i++)
			if (rtr_egress_enqueue(eg, 2, pkt(len, false, 0, -1, 4, i, 3), 3, 1000) < 0)
				break;
		q = eg->port[2]->cq[3].bytes;
		/* q - len <= alpha x free before the last packet came. */
		CHECK(q <= alpha * (double)(size - used - q + len), "B %" PRIu64 ": q %u", used, q);
		CHECK(q + len > alpha * (double)(size - used - q), "B %" PRIu64 ": q %u", used, q);
		CHECK(q < prev, "the limit shrinks with free: %u after %u", q, prev);
		prev = q;
		/* The port goes down: its bytes leave the pool. */
		rtr_egress_port_down(eg, 2);
		CHECK_EQ(eg_sb_used(eg), used);
		done(eg);
	}
}

/*
 * PFC on the shared buffer: ingress port 0 into egress port 2 (which takes
 * nothing). XOFF when its bytes reach free / 16, the headroom after it, XON
 * once below free / 16 - 3 KB as port 2 drains.
 */
static void
test_pfc(void)
{
	const uint32_t len = 1024;
	struct rtr_egress *eg;
	uint64_t shared;
	unsigned int xoff_at = 0, expect = 0, hdrm_pkts = 0;
	bool ok = true;

	cfg_pfc(1.0);
	eg = mk(0);
	shared = 1024 * 1024 - 4 * 16 * 1024;
	CHECK_EQ(eg->sb_shared, shared);
	/* The first n with n len >= (shared - n len) / 16. */
	while ((uint64_t)expect * len < (shared - (uint64_t)expect * len) / 16)
		expect++;
	CHECK_EQ(expect, 57);
	accept_n = 0;
	for (unsigned int i = 0; i < 600; i++) {
		uint32_t h0 = eg->in_hdrm[0];

		if (rtr_egress_enqueue(eg, 2, pkt(len, false, 0, -1, 4, i, 0), 3, 1000) < 0)
			break;
		hdrm_pkts += eg->in_hdrm[0] > h0;
		if (xoff_at == 0 && (eg->in_xoff[0] & (1u << 3)))
			xoff_at = i + 1;
	}
	CHECK_EQ(xoff_at, expect);
	CHECK_EQ(atomic_load(&sh.port[0].pfc.tx_xoff), 1);
	/* Past alpha x free, the XOFFed ingress filled its headroom. */
	CHECK_EQ(hdrm_pkts, 16);
	CHECK_EQ(eg->in_hdrm[0], 16 * 1024);
	CHECK(eg_sb_used(eg) <= 1024 * 1024);
	/* Past its headroom the XOFFed ingress is dropped. */
	CHECK_EQ(drops[RTR_DROP_QUEUE_FULL], 1);
	/* Another ingress, below free / 16 but past the queue's limit, is
	 * XOFFed at once and queued in its headroom: lossless is not lost. */
	CHECK_EQ(rtr_egress_enqueue(eg, 2, pkt(len, false, 0, -1, 4, 9, 1), 3, 1000), 0);
	CHECK_EQ(eg->in_hdrm[1], len);
	CHECK_EQ(eg->in_xoff[1], 1u << 3);
	CHECK_EQ(atomic_load(&sh.port[1].pfc.tx_xoff), 1);
	/* Drain port 2 a frame at a time: XOFF held while at or above
	 * free / 16 - 3 KB, XON once below. */
	accept_n = 1;
	eg->wire_burst = 1;
	for (unsigned int t = 0; t < 2000 && eg->port[2]->nonempty; t++) {
		eg->port[2]->wire[0].blocked = false;
		rtr_egress_service_port(eg, 2, 2000 + t);
		if ((eg->in_xoff[0] & (1u << 3)) && eg->in_bytes[0][3] + 3072 < eg_sb_free(eg) / 16)
			ok = false;
		if (!(eg->in_xoff[0] & (1u << 3)) && atomic_load(&sh.port[0].pfc.tx_xon) == 0)
			ok = false;
	}
	CHECK(ok, "XOFF held exactly while at or above free / 16 - 3 KB");
	CHECK_EQ(atomic_load(&sh.port[0].pfc.tx_xon), 1);
	CHECK_EQ(eg->in_xoff[0], 0);
	CHECK_EQ(eg->in_hdrm[0], 0);
	CHECK_EQ(eg->in_xoff[1], 0);
	CHECK_EQ(atomic_load(&sh.port[1].pfc.tx_xon), 1);
	CHECK_EQ(eg_sb_used(eg), 0);
	done(eg);
}

/*
 * The XON threshold moves with free: an XOFFed ingress none of whose
 * bytes leave gets its XON from rtr_egress_tick once another port's queue
 * has drained and free / 16 - 3 KB is above its bytes.
 */
static void
test_xon_as_free_grows(void)
{
	const uint32_t len = 1024;
	struct rtr_egress *eg;
	unsigned int n = 0;

	cfg_pfc(1.0);
	eg = mk(0);
	accept_n = 0;
	/* Class 0 (no PFC) from port 1 into port 3 takes half the pool. */
	while (n < 2000 && rtr_egress_enqueue(eg, 3, pkt(len, false, 0, -1, 4, n, 1), 0, 1000) == 0)
		n++;
	CHECK(eg_sb_used(eg) > 400 * 1024, "port 3 holds %" PRIu64, eg_sb_used(eg));
	/* Port 0 into port 2, class 3, until its XOFF (free / 16: about 30 KB). */
	for (n = 0; n < 100 && !(eg->in_xoff[0] & (1u << 3)); n++)
		rtr_egress_enqueue(eg, 2, pkt(len, false, 0, -1, 4, n, 0), 3, 1000);
	CHECK(eg->in_xoff[0] & (1u << 3));
	CHECK(eg->in_bytes[0][3] < 40 * 1024, "XOFF at %u bytes", eg->in_bytes[0][3]);
	rtr_egress_tick(eg, 1100);
	CHECK_EQ(eg->in_xoff[0], 1u << 3); /* nothing changed: still XOFF */
	/* Port 3 drains; port 2 (and port 0's bytes there) does not. */
	accept_n = -1;
	for (unsigned int t = 0; t < 1000 && eg->port[3]->nonempty; t++)
		rtr_egress_service_port(eg, 3, 2000 + t);
	CHECK_EQ(eg->port[2]->cq[3].bytes, n * len);
	CHECK_EQ(eg->in_xoff[0], 1u << 3); /* no departure of its own: no XON yet */
	CHECK(eg->in_bytes[0][3] + 3072 < eg_sb_free(eg) / 16);
	rtr_egress_tick(eg, 5000);
	CHECK_EQ(eg->in_xoff[0], 0);
	CHECK_EQ(atomic_load(&sh.port[0].pfc.tx_xon), 1);
	done(eg);
}

/*
 * No XON while the ingress's headroom is in use (the artifact's
 * GetResumeClasses): with alpha 1/64 port 2's class 3 is full (about 15 KB)
 * from ingress 1 long before any ingress reaches free / 16. Ingress 0 has
 * one packet on port 3 and then sends 3 into port 2: XOFFed at the first,
 * all 3 in its headroom. Port 3 drains: its departure gives back 1 KB of
 * headroom and leaves ingress 0 far below free / 16 - 3 KB, but 2 KB of its
 * headroom are still taken: XOFF stays (through rtr_egress_tick too) until
 * two more of its packets have left port 2.
 */
static void
test_xon_waits_for_headroom(void)
{
	const uint32_t len = 1024;
	struct rtr_egress *eg;
	unsigned int n = 0;
	bool early = false;

	cfg_pfc(1.0 / 64);
	eg = mk(0);
	accept_n = 0;
	while (n < 100 && eg->in_hdrm[1] == 0 &&
			rtr_egress_enqueue(eg, 2, pkt(len, false, 0, -1, 4, n, 1), 3, 1000) == 0)
		n++;
	CHECK(n > 8 && n < 30, "port 2 class 3 took %u packets before its limit", n);
	CHECK_EQ(rtr_egress_enqueue(eg, 3, pkt(len, false, 0, -1, 4, 100, 0), 3, 1000), 0);
	CHECK_EQ(eg->in_hdrm[0], 0);
	for (unsigned int i = 0; i < 3; i++)
		CHECK_EQ(rtr_egress_enqueue(eg, 2, pkt(len, false, 0, -1, 4, 101 + i, 0), 3, 1000),
				0);
	CHECK_EQ(eg->in_hdrm[0], 3 * len);
	CHECK_EQ(eg->in_xoff[0], 1u << 3);
	CHECK_EQ(atomic_load(&sh.port[0].pfc.tx_xoff), 1);
	accept_n = -1;
	for (unsigned int t = 0; t < 100 && eg->port[3]->nonempty; t++)
		rtr_egress_service_port(eg, 3, 2000 + t);
	CHECK_EQ(eg->in_hdrm[0], 2 * len);
	CHECK_EQ(eg->in_bytes[0][3], 3 * len);
	CHECK(eg->in_bytes[0][3] + 3072 < eg_sb_free(eg) / 16, "below the XON threshold");
	CHECK_EQ(eg->in_xoff[0], 1u << 3); /* no XON with 2 KB of headroom in use */
	rtr_egress_tick(eg, 3000);
	CHECK_EQ(eg->in_xoff[0], 1u << 3); /* nor from the tick */
	CHECK_EQ(atomic_load(&sh.port[0].pfc.tx_xon), 0);
	/* Port 2 a frame at a time: the XON comes with the departure that
	 * empties the headroom (the same service pass), not before. */
	accept_n = 1;
	eg->wire_burst = 1;
	for (unsigned int t = 0; t < 200 && eg->port[2]->nonempty; t++) {
		eg->port[2]->wire[0].blocked = false;
		rtr_egress_service_port(eg, 2, 4000 + t);
		if (!(eg->in_xoff[0] & (1u << 3)) != (eg->in_hdrm[0] == 0))
			early = true;
	}
	CHECK(!early, "XOFF held exactly while the headroom is in use");
	CHECK_EQ(eg->in_xoff[0], 0);
	CHECK_EQ(eg->in_hdrm[0], 0);
	CHECK_EQ(atomic_load(&sh.port[0].pfc.tx_xon), 1);
	done(eg);
}

/*
 * Held packets (a reorder queue, rtr_egress_hold) are in the buffer: 60 of
 * 1 KB from ingress 0, held for port 2, take 60 KB of the pool and count
 * toward ingress 0's XOFF (free / 16: the 57th, as test_pfc's queued
 * packets), before any of them is queued. Released (enqueue_held), they
 * are counted once, not twice; freed while held (unhold), they give the
 * pool back and the XON comes. With the static policy hold is a no-op.
 */
static void
test_held(void)
{
	const uint32_t len = 1024;
	struct rte_mbuf *m[60];
	struct rtr_egress *eg;
	unsigned int xoff_at = 0;

	cfg_pfc(1.0);
	eg = mk(0);
	accept_n = 0;
	for (unsigned int i = 0; i < 60; i++) {
		m[i] = pkt(len, false, 0, -1, 4, i, 0);
		rtr_egress_hold(eg, m[i], 3, 1000);
		rtr_egress_hold(eg, m[i], 3, 1000); /* once only */
		if (xoff_at == 0 && (eg->in_xoff[0] & (1u << 3)))
			xoff_at = i + 1;
	}
	CHECK_EQ(eg_sb_used(eg), 60 * len);
	CHECK_EQ(eg->in_bytes[0][3], 60 * len);
	CHECK_EQ(queued(eg), 0);
	CHECK_EQ(xoff_at, 57);
	CHECK_EQ(atomic_load(&sh.port[0].pfc.tx_xoff), 1);
	/* 40 released into port 2's queue: still 60 KB in all. */
	for (unsigned int i = 0; i < 40; i++)
		CHECK_EQ(rtr_egress_enqueue_held(eg, 2, m[i], 3, 2000), 0);
	CHECK_EQ(eg_sb_used(eg), 60 * len);
	CHECK_EQ(queued(eg), 40 * len);
	CHECK_EQ(eg->in_bytes[0][3], 60 * len);
	CHECK_EQ(rtr_meta(m[0])->flags & RTR_MF_HELD, 0);
	/* 20 freed while held: gone from the pool and the XOFF count; 40 KB
	 * + 3 KB is below free / 16 (57.5 KB): the XON comes from the last
	 * unhold that crossed it (none came from the release). */
	CHECK_EQ(atomic_load(&sh.port[0].pfc.tx_xon), 0);
	for (unsigned int i = 40; i < 60; i++) {
		rtr_egress_unhold(eg, m[i], 3, 3000);
		rtr_egress_unhold(eg, m[i], 3, 3000); /* once only */
		fake_free(m[i]);
	}
	CHECK_EQ(eg_sb_used(eg), 40 * len);
	CHECK_EQ(eg->in_bytes[0][3], 40 * len);
	CHECK_EQ(eg->in_xoff[0], 0);
	CHECK_EQ(atomic_load(&sh.port[0].pfc.tx_xon), 1);
	/* Port 2 drains: nothing left in the pool or the count. */
	accept_n = -1;
	for (unsigned int t = 0; t < 100 && eg->port[2]->nonempty; t++)
		rtr_egress_service_port(eg, 2, 4000 + t);
	CHECK_EQ(eg->in_bytes[0][3], 0);
	CHECK_EQ(eg->in_xoff[0], 0);
	CHECK_EQ(atomic_load(&sh.port[0].pfc.tx_xoff), 1);
	done(eg);
	/* Static: nothing counted while held. */
	cfg_shared(4, 1024, 1.0);
	cfg.qos.buffer.mode = RTR_BUFFER_STATIC;
	eg = mk(0);
	m[0] = pkt(len, false, 0, -1, 4, 0, 0);
	rtr_egress_hold(eg, m[0], 3, 1000);
	CHECK_EQ(rtr_meta(m[0])->flags & RTR_MF_HELD, 0);
	CHECK_EQ(rtr_egress_enqueue_held(eg, 2, m[0], 3, 1000), 0);
	done(eg);
}

/* Two workers, one pool: each holds back less than RTR_EG_SB_BATCH; a
 * service pass flushes it. */
static void
test_workers(void)
{
	struct rtr_egress *a, *b;
	const uint32_t len = 1000;

	cfg_shared(4, 1024, 1.0);
	a = mk(0);
	b = mk(1);
	accept_n = 0;
	for (unsigned int i = 0; i < 10; i++)
		rtr_egress_enqueue(b, 1, pkt(len, false, 0, -1, 4, i, 0), 3, 1000);
	CHECK_EQ(eg_sb_used(b), 10 * len);
	CHECK_EQ(eg_sb_used(a), 0); /* within the batch: not seen yet */
	/* A pass that moves nothing (the NIC refused before) still flushes. */
	b->port[1]->wire[0].blocked = true;
	rtr_egress_service(b, 1000);
	CHECK_EQ(b->port[1]->cq[3].bytes, 10 * len);
	CHECK_EQ(eg_sb_used(a), 10 * len);
	/* Past the batch the count is added at once. */
	for (unsigned int i = 0; i < 20; i++)
		rtr_egress_enqueue(b, 1, pkt(len, false, 0, -1, 4, i, 0), 3, 1000);
	CHECK(eg_sb_used(b) - eg_sb_used(a) < RTR_EG_SB_BATCH);
	done(b);
	CHECK_EQ(eg_sb_used(a), 0);
	done(a);
}

/* Static stays static: no pool accounting. */
static void
test_static(void)
{
	struct rtr_egress *eg;

	cfg_shared(2, 256, 1.0);
	cfg.qos.buffer.mode = RTR_BUFFER_STATIC;
	eg = mk(0);
	CHECK_EQ(eg->admit, EG_ADMIT_STATIC);
	accept_n = 0;
	for (unsigned int i = 0; i < 10; i++)
		rtr_egress_enqueue(eg, 1, pkt(1000, false, 0, -1, 4, i, 0), 3, 1000);
	CHECK_EQ(eg->sb_delta, 0);
	CHECK_EQ(atomic_load(&sh.sb_used), 0);
	done(eg);
}

/*
 * Cells (qos.buffer.cell_bytes): a packet takes at least a cell of the pool,
 * so that a pool of S bytes holds at most S / cell packets however small
 * they are (the real switch's mbufs, app/budget.c). 64-byte packets into a
 * 64 KB pool of 256-byte cells: 256 at most, where counting bytes would take
 * 1,024; a 1000-byte packet takes its own 1000. Auto (0) counts bytes here.
 */
static void
test_cells(void)
{
	const uint32_t size = 64 * 1024, cell = 256;
	struct rtr_egress *eg;
	unsigned int n = 0, k;

	cfg_shared(4, 64, 64.0);
	cfg.qos.buffer.cell_bytes = cell;
	eg = mk(0);
	CHECK(eg != NULL && eg->sb_cell == cell);
	accept_n = 0;
	while (n < 2000 && rtr_egress_enqueue(eg, 0, pkt(64, false, 0, -1, 4, n, 1), 3, 1000) == 0)
		n++;
	CHECK(n <= size / cell, "%u packets of 64 B in a %u-byte pool of %u-byte cells", n, size,
			cell);
	CHECK(n >= size / cell - 1, "the pool took only %u", n);
	CHECK_EQ(eg_sb_used(eg), (uint64_t)n * cell);
	CHECK_EQ(eg->port[0]->cq[3].bytes, n * 64u); /* the queue counts bytes */
	CHECK(drops[RTR_DROP_QUEUE_FULL] > 0);
	done(eg);

	/* A packet above a cell takes its length; the pool empties to 0. */
	cfg_shared(4, 64, 64.0);
	cfg.qos.buffer.cell_bytes = cell;
	eg = mk(0);
	accept_n = 0;
	for (k = 0; k < 10; k++)
		CHECK_EQ(rtr_egress_enqueue(eg, 1, pkt(1000, false, 0, -1, 4, k, 2), 3, 1000), 0);
	CHECK_EQ(eg_sb_used(eg), 10 * 1000u);
	rtr_egress_enqueue(eg, 1, pkt(64, false, 0, -1, 4, k, 2), 3, 1000);
	CHECK_EQ(eg_sb_used(eg), 10 * 1000u + cell);
	done(eg);

	/* Auto in the library: bytes (the simulator's, as the artifact). */
	cfg_shared(4, 64, 64.0);
	eg = mk(0);
	CHECK_EQ(eg->sb_cell, 1);
	accept_n = 0;
	n = 0;
	while (n < 2000 && rtr_egress_enqueue(eg, 0, pkt(64, false, 0, -1, 4, n, 1), 3, 1000) == 0)
		n++;
	CHECK(n > size / cell * 3, "counting bytes, the pool took %u packets of 64 B", n);
	done(eg);
}

int
main(void)
{
	rtr_meta_offset = (int)offsetof(struct rte_mbuf, dynfield1);
	test_incast();
	test_alpha_follows_free();
	test_pfc();
	test_xon_as_free_grows();
	test_xon_waits_for_headroom();
	test_held();
	test_workers();
	test_static();
	test_cells();
	CHECK_EQ(live_mbufs, 0);
	return rtr_test_done("egress-shared");
}
