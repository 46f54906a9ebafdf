/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit tests of the egress stage on a virtual clock, without the EAL: fake
 * mbufs from calloc, a fake NIC (a callback that records what it is given
 * and can refuse), and configs built in code.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>

#include "rtr_egress.h"
#include "rtr_mbuf.h"
#include "rtr_parse.h"
#include "rtr_test.h"
#include "test_eg_frames.h"

/* ------------------------------------------------------------ fakes */

#define MAX_TX 400000

struct nic {
	struct rte_mbuf *got[MAX_TX];
	uint64_t at[MAX_TX];
	uint8_t port[MAX_TX];
	unsigned int n;
	int accept;   /* frames accepted per call; -1 = all */
	uint64_t now; /* virtual time of the current call */
	unsigned int dropped[RTR_DROP_MAX];
	unsigned int allocs;
	unsigned int orig_dropped;
	bool keep; /* keep sent mbufs (else free them) */
};

static struct nic nic;

static uint16_t
nic_tx(void *arg, uint16_t port, uint16_t hwq, struct rte_mbuf **pkts, uint16_t n)
{
	(void)hwq;
	uint16_t take = n;

	(void)arg;
	if (nic.accept >= 0 && take > nic.accept)
		take = (uint16_t)nic.accept;
	for (uint16_t i = 0; i < take; i++) {
		if (nic.n < MAX_TX && nic.keep) {
			nic.got[nic.n] = pkts[i];
		} else {
			fake_free(pkts[i]);
			if (nic.n < MAX_TX)
				nic.got[nic.n] = NULL;
		}
		if (nic.n < MAX_TX) {
			nic.at[nic.n] = nic.now;
			nic.port[nic.n] = (uint8_t)port;
		}
		nic.n++;
	}
	return take;
}

static void
nic_drop(void *arg, struct rte_mbuf *m, enum rtr_drop_reason why)
{
	(void)arg;
	if (rtr_meta(m)->in_port == RTR_PORT_NONE)
		nic.orig_dropped++;
	else
		nic.dropped[why]++;
	fake_free(m);
}

static struct rte_mbuf *
nic_alloc(void *arg)
{
	(void)arg;
	nic.allocs++;
	return fake_mbuf();
}

static void
nic_reset(bool keep)
{
	for (unsigned int i = 0; i < nic.n && i < MAX_TX; i++)
		if (nic.keep && nic.got[i])
			fake_free(nic.got[i]);
	memset(&nic, 0, sizeof(nic));
	nic.accept = -1;
	nic.keep = keep;
}

/* ------------------------------------------------------------ config */

static struct rtr_config cfg;

static void
cfg_reset(unsigned int n_ports)
{
	memset(&cfg, 0, sizeof(cfg));
	cfg.n_ports = n_ports;
	for (unsigned int p = 0; p < n_ports; p++) {
		cfg.ports[p].port = (uint16_t)p;
		cfg.ports[p].role = p == 0 ? RTR_PORT_HOST : RTR_PORT_FABRIC;
		cfg.ports[p].mac[0] = 0x02;
		cfg.ports[p].mac[5] = (uint8_t)p;
		cfg.ports[p].speed_gbps = 100;
		cfg.ports[p].shape_burst_kb = 16;
	}
	cfg.qos.classes = 8;
	cfg.qos.queue_kb = 2048;
	cfg.qos.ecn = (struct rtr_ecn_cfg){
			.enabled = true, .kmin_kb = 100, .kmax_kb = 400, .pmax = 0.2};
	cfg.qos.trim_dscp = -1;
	cfg.qos.pfc.xoff_kb = 256;
	cfg.qos.pfc.xon_kb = 128;
	cfg.qos.pfc.quanta = 65535;
	for (unsigned int c = 0; c < RTR_MAX_CLASSES; c++) {
		cfg.qos.cls[c].priority = (uint8_t)c;
		cfg.qos.cls[c].weight = 1;
		cfg.qos.cls[c].queue_kb = cfg.qos.queue_kb;
		cfg.qos.cls[c].ecn = cfg.qos.ecn;
	}
}

static struct rtr_egress_shared sh;
static struct rtr_lcore_stats st;

static struct rtr_egress *
mk(void)
{
	struct rtr_egress_io io = {.tx = nic_tx, .drop = nic_drop, .alloc = nic_alloc};
	struct rtr_egress *eg;

	memset(&st, 0, sizeof(st));
	if (rtr_egress_shared_init(&sh, &cfg, NULL) != 0)
		return NULL;
	for (unsigned int p = 0; p < cfg.n_ports; p++)
		memcpy(sh.port[p].mac, cfg.ports[p].mac, 6);
	eg = rtr_egress_create(&sh, 0, &io, &st, 1u << 16, -1);
	/* These tests build backlogs of a few packets on idle ports: without
	 * this, the first RTR_BURST would take the fast path (test_direct). */
	if (eg != NULL)
		eg->direct = false;
	return eg;
}

static void
done(struct rtr_egress *eg)
{
	rtr_egress_flush_all(eg, 4);
	CHECK_EQ(eg->held, 0);
	rtr_egress_free(eg);
	nic_reset(false);
	CHECK_EQ(live_mbufs, 0);
}

/* ------------------------------------------------------------ tests */

static void
test_classify(void)
{
	struct rtr_egress *eg;
	struct rte_mbuf *m;

	cfg_reset(2);
	cfg.qos.n_dscp = 2;
	cfg.qos.dscp[0] = (struct rtr_dscp_map){26, 3};
	cfg.qos.dscp[1] = (struct rtr_dscp_map){48, 6};
	cfg.qos.n_pcp = 1;
	cfg.qos.pcp[0] = (struct rtr_pcp_map){5, 4};
	eg = mk();
	CHECK(eg != NULL);
	m = pkt(100, false, 26 << 2, -1, 4, 1, 0);
	CHECK_EQ(rtr_egress_classify(eg, m), 3);
	fake_free(m);
	m = pkt(100, true, 48 << 2, -1, 4, 1, 0);
	CHECK_EQ(rtr_egress_classify(eg, m), 6);
	fake_free(m);
	m = pkt(100, false, 10 << 2, -1, 4, 1, 0);
	CHECK_EQ(rtr_egress_classify(eg, m), 0);
	fake_free(m);
	/* CNP -> control class, whatever its DSCP. */
	m = pkt(100, false, 26 << 2, -1, RTR_BTH_OP_CNP, 1, 0);
	CHECK_EQ(rtr_egress_classify(eg, m), 7);
	fake_free(m);
	/* Switch-built frames -> control class. */
	m = pkt(100, false, 0, -1, 4, 1, RTR_PORT_NONE);
	CHECK_EQ(rtr_egress_classify(eg, m), 7);
	fake_free(m);
	/* Tagged, trust dscp: the DSCP decides. */
	m = pkt(100, false, 26 << 2, 5, 4, 1, 0);
	CHECK_EQ(rtr_egress_classify(eg, m), 3);
	fake_free(m);
	rtr_egress_free(eg);
	cfg.qos.trust_pcp = true;
	eg = mk();
	m = pkt(100, false, 26 << 2, 5, 4, 1, 0);
	CHECK_EQ(rtr_egress_classify(eg, m), 4);
	fake_free(m);
	m = pkt(100, false, 26 << 2, 2, 4, 1, 0); /* unlisted PCP */
	CHECK_EQ(rtr_egress_classify(eg, m), 0);
	fake_free(m);
	m = pkt(100, false, 26 << 2, -1, 4, 1, 0); /* untagged: DSCP */
	CHECK_EQ(rtr_egress_classify(eg, m), 3);
	fake_free(m);
	done(eg);
}

/*
 * The fast path: on an idle plain port the first RTR_BURST packets go
 * straight to the staged burst in arrival order (what the scheduler would
 * do with nothing queued); the rest queue and leave by strict priority;
 * a NIC that refuses turns the fast path off until the backlog is gone.
 */
static void
test_direct(void)
{
	struct rtr_egress *eg;
	unsigned int i, c;
	uint64_t acc[RTR_EGC_MAX];

	cfg_reset(2);
	eg = mk();
	eg->direct = true;
	nic_reset(true);
	/* 32 + 80 packets: classes 0..7 interleaved. */
	for (i = 0; i < RTR_BURST + 80; i++)
		CHECK_EQ(rtr_egress_enqueue(eg, 1, pkt(200, false, 0, -1, 4, i, 0),
					 (uint8_t)(i % 8), 0),
				0);
	CHECK_EQ(eg->held, RTR_BURST + 80);
	CHECK_EQ(eg->port[1]->nonempty, 0xff);
	CHECK_EQ(rtr_egress_service(eg, 1000), RTR_BURST + 80);
	CHECK_EQ(nic.n, RTR_BURST + 80);
	for (i = 0; i < RTR_BURST; i++)
		CHECK_EQ(tag_of(nic.got[i]), i); /* arrival order */
	/* The backlog: by class, highest first, FIFO within a class. */
	for (i = RTR_BURST; i < RTR_BURST + 80; i++) {
		unsigned int k = i - RTR_BURST, want_c = 7 - k / 10;

		CHECK_EQ(tag_of(nic.got[i]) % 8, want_c);
		if (k % 10 != 0)
			CHECK(tag_of(nic.got[i]) > tag_of(nic.got[i - 1]));
	}
	/* Counters as if every packet had gone through its class queue. */
	for (c = 0; c < 8; c++) {
		memset(acc, 0, sizeof(acc));
		rtr_egress_counters_add(eg, 1, (uint8_t)c, acc);
		CHECK_EQ(acc[RTR_EGC_enqueued], 14);
		CHECK_EQ(acc[RTR_EGC_sent], 14);
		CHECK_EQ(acc[RTR_EGC_sent_bytes], 14 * 200);
	}
	CHECK_EQ(eg->held, 0);
	CHECK_EQ(st.port[1].tx_packets, RTR_BURST + 80);
	CHECK_EQ(st.forwarded, RTR_BURST + 80);
	/* A NIC that refuses: the staged burst stays, later packets queue
	 * (no fast path while blocked) and leave once it takes them again. */
	nic_reset(true);
	nic.accept = 0;
	for (i = 0; i < RTR_BURST; i++)
		rtr_egress_enqueue(eg, 1, pkt(200, false, 0, -1, 4, 1000 + i, 0), 0, 0);
	CHECK_EQ(rtr_egress_service(eg, 2000), 0);
	CHECK(eg->port[1]->wire[0].blocked);
	rtr_egress_enqueue(eg, 1, pkt(200, false, 0, -1, 4, 2000, 0), 7, 0);
	CHECK_EQ(eg->port[1]->nonempty, 0x80);
	nic.accept = -1;
	CHECK_EQ(rtr_egress_service(eg, 3000), RTR_BURST + 1);
	CHECK_EQ(tag_of(nic.got[0]), 1000);
	CHECK_EQ(tag_of(nic.got[RTR_BURST]), 2000);
	CHECK_EQ(eg->held, 0);
	done(eg);
}

/* rtr_egress_queue_bytes (what DRILL weighs an uplink by, doc/drill.md):
 * the bytes in a port's class queues, every class, nothing of the other
 * ports; 0 once they leave, and for ports the egress does not serve. */
static void
test_queue_bytes(void)
{
	struct rtr_egress *eg;

	cfg_reset(3);
	eg = mk();
	nic_reset(false);
	CHECK_EQ(rtr_egress_queue_bytes(eg, 1), 0);
	for (unsigned int i = 0; i < 3; i++)
		CHECK_EQ(rtr_egress_enqueue(eg, 1, pkt(200, false, 0, -1, 4, i, 0), 0, 0), 0);
	for (unsigned int i = 0; i < 2; i++)
		CHECK_EQ(rtr_egress_enqueue(eg, 1, pkt(500, false, 0, -1, 4, 10 + i, 0), 3, 0), 0);
	CHECK_EQ(rtr_egress_enqueue(eg, 2, pkt(300, false, 0, -1, 4, 20, 0), 7, 0), 0);
	CHECK_EQ(rtr_egress_queue_bytes(eg, 1), 3 * 200 + 2 * 500);
	CHECK_EQ(rtr_egress_queue_bytes(eg, 2), 300);
	CHECK_EQ(rtr_egress_queue_bytes(eg, 0), 0);
	CHECK_EQ(rtr_egress_queue_bytes(eg, 5), 0);             /* not configured */
	CHECK_EQ(rtr_egress_queue_bytes(eg, RTR_MAX_PORTS), 0); /* out of range */
	rtr_egress_service(eg, 1000);
	CHECK_EQ(nic.n, 6);
	CHECK_EQ(rtr_egress_queue_bytes(eg, 1), 0);
	CHECK_EQ(rtr_egress_queue_bytes(eg, 2), 0);
	done(eg);
}

static void
test_strict_priority(void)
{
	struct rtr_egress *eg;
	unsigned int i, c;

	cfg_reset(2);
	eg = mk();
	nic_reset(true);
	/* 10 packets in each class, interleaved; tag = class*100 + i. */
	for (i = 0; i < 10; i++)
		for (c = 0; c < 8; c++)
			CHECK_EQ(rtr_egress_enqueue(eg, 1,
						 pkt(200, false, 0, -1, 4, c * 100 + i, 0),
						 (uint8_t)c, 0),
					0);
	CHECK_EQ(eg->held, 80);
	CHECK_EQ(rtr_egress_service(eg, 1000), 80);
	CHECK_EQ(nic.n, 80);
	for (i = 0; i < 80; i++) {
		unsigned int want_c = 7 - i / 10, want_i = i % 10;

		CHECK_EQ(tag_of(nic.got[i]), want_c * 100 + want_i);
	}
	CHECK_EQ(st.port[1].tx_packets, 80);
	CHECK_EQ(st.forwarded, 80);
	done(eg);

	/* The NIC takes one frame per call: a control packet that arrives
	 * behind a backlog of data goes out next, not after the backlog. */
	cfg_reset(2);
	eg = mk();
	nic_reset(true);
	nic.accept = 0;
	for (i = 0; i < 500; i++)
		rtr_egress_enqueue(eg, 1, pkt(1000, false, 0, -1, 4, i, 0), 0, 0);
	rtr_egress_service(eg, 10);
	CHECK_EQ(nic.n, 0);
	CHECK(eg->port[1]->wire[0].blocked);
	rtr_egress_enqueue(eg, 1, pkt(100, false, 0, -1, RTR_BTH_OP_CNP, 9999, 0), 7, 20);
	unsigned int waited = 0;

	nic.accept = 1;
	for (i = 0; i < 200 && (nic.n == 0 || tag_of(nic.got[nic.n - 1]) != 9999); i++) {
		rtr_egress_service(eg, 30 + i);
		waited++;
	}
	/* Behind it: only the one burst already handed to the NIC. */
	CHECK(waited <= RTR_BURST + 1);
	printf("  control packet left after %u data frames (one staged burst)\n", nic.n - 1);
	nic.accept = -1;
	done(eg);
}

static void
test_dwrr(void)
{
	struct rtr_egress *eg;
	unsigned int n1 = 0, n2 = 0, n3 = 0, tag = 0;

	cfg_reset(2);
	/* Classes 1, 2 and 3 share priority level 1 with weights 1, 3, 4. */
	cfg.qos.cls[1].weight = 1;
	cfg.qos.cls[2].priority = 1;
	cfg.qos.cls[2].weight = 3;
	cfg.qos.cls[3].priority = 1;
	cfg.qos.cls[3].weight = 4;
	eg = mk();
	CHECK(!eg->port[1]->simple_prio);
	nic_reset(true);
	nic.accept = 8;
	while (n1 + n2 + n3 < 10000) {
		/* Keep all three backlogged. */
		for (unsigned int c = 1; c <= 3; c++)
			while (eg->port[1]->cq[c].tail - eg->port[1]->cq[c].head < 64)
				rtr_egress_enqueue(eg, 1,
						pkt(1024, false, 0, -1, 4, c << 20 | tag++, 0),
						(uint8_t)c, 0);
		unsigned int before = nic.n;

		rtr_egress_service(eg, 0);
		for (unsigned int i = before; i < nic.n && n1 + n2 + n3 < 10000; i++) {
			unsigned int c = tag_of(nic.got[i]) >> 20;

			n1 += c == 1;
			n2 += c == 2;
			n3 += c == 3;
			fake_free(nic.got[i]);
			nic.got[i] = NULL;
		}
	}
	printf("  DWRR weights 1:3:4 over 10000 packets: %u %u %u\n", n1, n2, n3);
	CHECK(fabs(n1 / 10000.0 - 1.0 / 8) / (1.0 / 8) < 0.05);
	CHECK(fabs(n2 / 10000.0 - 3.0 / 8) / (3.0 / 8) < 0.05);
	CHECK(fabs(n3 / 10000.0 - 4.0 / 8) / (4.0 / 8) < 0.05);
	nic.keep = false;
	nic.n = 0;
	nic.accept = -1;
	done(eg);
}

/* Expected RED probability at depth d (bytes) for 100/400 KB, pmax 0.2. */
static double
red_p(double d)
{
	double kmin = 100 * 1024, kmax = 400 * 1024;

	if (d <= kmin)
		return 0;
	if (d > kmax)
		return 1;
	return 0.2 * (d - kmin) / (kmax - kmin);
}

static void
test_red(void)
{
	static const double depths_kb[] = {50, 100, 150, 250, 350, 399, 401, 450};
	struct rtr_egress *eg;

	cfg_reset(2);
	eg = mk();
	/* The decision itself, at exact depths, 100000 draws each. */
	for (unsigned int k = 0; k < RTE_DIM(depths_kb); k++) {
		struct rtr_cq *q = &eg->port[1]->cq[3];
		uint64_t rng = k + 1;
		unsigned int marked = 0, n = 100000;

		q->bytes = (uint32_t)(depths_kb[k] * 1024);
		for (unsigned int i = 0; i < n; i++)
			marked += rtr_red_decide(q, &rng);
		double p = (double)marked / n, want = red_p(q->bytes);

		printf("  RED depth %.0f KB: marked %.4f, formula %.4f\n", depths_kb[k], p, want);
		CHECK(fabs(p - want) <= 0.02);
		q->bytes = 0;
	}
	rtr_egress_free(eg);

	/* Through the scheduler: an ECT(0) probe at the head of a queue with
	 * exactly `depth` bytes of not-ECT packets behind it, v4 and v6. */
	for (unsigned int k = 0; k < 3; k++) {
		static const double kb[] = {90, 250, 420};
		uint32_t depth = (uint32_t)(kb[k] * 1024);
		unsigned int marked = 0, trials = 2000;
		bool v6 = k == 1;

		cfg_reset(2);
		eg = mk();
		nic_reset(true);
		for (unsigned int t = 0; t < trials; t++) {
			struct rte_mbuf *probe = pkt(1024, v6, RTR_ECN_ECT0, -1, 4, 1, 0);

			nic.accept = 0;
			rtr_egress_enqueue(eg, 1, probe, 3, 0);
			while (rtr_egress_depth(eg, 1, 3) < depth + 1024) {
				uint32_t left = depth + 1024 - rtr_egress_depth(eg, 1, 3);

				rtr_egress_enqueue(eg, 1,
						pkt(left >= 1024 + 80 ? 1024 : left, v6,
								RTR_ECN_NOT_ECT, -1, 4, 2, 0),
						3, 0);
			}
			nic.accept = 1;
			eg->port[1]->wire[0].blocked = false;
			nic.n = 0;
			rtr_egress_service_port(eg, 1, 0);
			CHECK(nic.n >= 1 && nic.got[0] == probe);
			{
				uint8_t *f = rte_pktmbuf_mtod(probe, uint8_t *);
				uint8_t ecn = v6 ? (f[15] >> 4) & 3 : f[15] & 3;

				marked += ecn == RTR_ECN_CE;
				if (!v6 && ecn == RTR_ECN_CE) {
					struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
					uint16_t ck = ip->hdr_checksum;

					ip->hdr_checksum = 0;
					CHECK_EQ(ck, rte_ipv4_cksum(ip));
					ip->hdr_checksum = ck;
				}
			}
			for (unsigned int i = 0; i < nic.n; i++)
				fake_free(nic.got[i]);
			nic.n = 0;
			nic.keep = false;
			nic.accept = -1;
			eg->port[1]->wire[0].blocked = false;
			rtr_egress_flush_all(eg, 2);
			nic.keep = true;
			nic.n = 0;
		}
		double p = (double)marked / trials, want = red_p(depth);

		printf("  RED through the scheduler, %s depth %.0f KB: %.4f (formula %.4f, %u "
		       "trials)\n",
				v6 ? "v6" : "v4", kb[k], p, want, trials);
		CHECK(fabs(p - want) <= 0.03);
		done(eg);
	}

	/* Only ECT is marked: not-ECT and CE pass unchanged. */
	cfg_reset(2);
	cfg.qos.cls[3].ecn.kmin_kb = 0;
	cfg.qos.cls[3].ecn.kmax_kb = 0; /* every packet above 0 bytes */
	eg = mk();
	nic_reset(true);
	nic.accept = 0;
	for (unsigned int i = 0; i < 4; i++)
		rtr_egress_enqueue(eg, 1, pkt(500, false, RTR_ECN_ECT0, -1, 4, 1, 0), 3, 0);
	rtr_egress_enqueue(eg, 1, pkt(500, false, RTR_ECN_NOT_ECT, -1, 4, 2, 0), 3, 0);
	rtr_egress_enqueue(eg, 1, pkt(500, false, RTR_ECN_ECT1, -1, 4, 3, 0), 3, 0);
	rtr_egress_enqueue(eg, 1, pkt(500, false, RTR_ECN_CE, -1, 4, 4, 0), 3, 0);
	rtr_egress_enqueue(eg, 1, pkt(500, false, RTR_ECN_ECT0, -1, 4, 5, 0), 3, 0);
	nic.accept = -1;
	eg->port[1]->wire[0].blocked = false;
	rtr_egress_service(eg, 0);
	CHECK_EQ(nic.n, 8);
	CHECK_EQ(rte_pktmbuf_mtod(nic.got[4], uint8_t *)[15] & 3, RTR_ECN_NOT_ECT);
	CHECK_EQ(rte_pktmbuf_mtod(nic.got[5], uint8_t *)[15] & 3, RTR_ECN_CE);
	CHECK_EQ(rte_pktmbuf_mtod(nic.got[6], uint8_t *)[15] & 3, RTR_ECN_CE);
	/* The last one leaves an empty queue behind it: depth 0, no mark. */
	CHECK_EQ(rte_pktmbuf_mtod(nic.got[7], uint8_t *)[15] & 3, RTR_ECN_ECT0);
	CHECK_EQ(eg->port[1]->c[3][RTR_EGC_ecn_marked], 5); /* 4 ECT0 + 1 ECT1 */
	CHECK_EQ(st.port[1].ecn_marked, 5);
	done(eg);

	/* ECN disabled for a class: never marked. */
	cfg_reset(2);
	cfg.qos.cls[2].ecn.enabled = false;
	cfg.qos.cls[2].ecn.kmin_kb = 0;
	cfg.qos.cls[2].ecn.kmax_kb = 0;
	eg = mk();
	nic_reset(false);
	for (unsigned int i = 0; i < 10; i++)
		rtr_egress_enqueue(eg, 1, pkt(500, false, RTR_ECN_ECT0, -1, 4, 1, 0), 2, 0);
	rtr_egress_service(eg, 0);
	CHECK_EQ(eg->port[1]->c[2][RTR_EGC_ecn_marked], 0);
	done(eg);
}

static void
test_shaper(void)
{
	static const double rates[] = {1.0, 10.0, 2.5};

	for (unsigned int k = 0; k < RTE_DIM(rates); k++) {
		struct rtr_egress *eg;
		uint64_t t, wire_bytes = 0, first = 0, last = 0;
		unsigned int len = k == 2 ? 4000 : 1024, tag = 0;

		cfg_reset(2);
		cfg.ports[1].shape_gbps = rates[k];
		eg = mk();
		nic_reset(false);
		/* 100 ms of virtual time, serviced every microsecond, the
		 * class kept backlogged. */
		for (t = 1000000; t <= 101000000; t += 1000) {
			unsigned int before = nic.n;

			while (eg->port[1]->cq[0].tail - eg->port[1]->cq[0].head < 64)
				rtr_egress_enqueue(
						eg, 1, pkt(len, false, 0, -1, 4, tag++, 0), 0, t);
			nic.now = t;
			rtr_egress_service(eg, t);
			if (nic.n > before) {
				if (first == 0)
					first = t;
				last = t;
				wire_bytes += (uint64_t)(nic.n - before) *
					      (len + RTR_EG_FRAME_OVERHEAD);
			}
		}
		/* The burst allowance (16 KB) is spent at once; beyond it the
		 * rate is the shaper's. */
		double secs = (last - first) / 1e9;
		double gbps = (wire_bytes - 16 * 1024) * 8 / secs / 1e9;

		printf("  shaper %.1f Gb/s, %u-byte frames: measured %.4f Gb/s over %.1f ms\n",
				rates[k], len, gbps, secs * 1e3);
		CHECK(fabs(gbps - rates[k]) / rates[k] < 0.01);
		done(eg);
	}
}

static void
test_pfc_rx(void)
{
	struct rtr_egress *eg;
	uint8_t frame[RTR_PFC_FRAME_LEN];
	uint16_t quanta[8] = {0};
	const uint8_t mac[6] = {2, 0, 0, 0, 0, 9};

	cfg_reset(2);
	cfg.qos.pfc.mode = RTR_PFC_SOFTWARE;
	cfg.qos.pfc.class_mask = 1u << 3;
	eg = mk();
	nic_reset(true);
	/* 1000 quanta at 100 Gb/s = 1000 * 512 bits / 100 Gb/s = 5120 ns. */
	quanta[3] = 1000;
	rtr_pfc_build(frame, mac, 1u << 3, quanta);
	CHECK_EQ(rtr_egress_mac_control_rx(&sh, 1, frame, sizeof(frame), 10000), 0);
	CHECK_EQ(sh.port[1].pfc.rx_pfc, 1);
	rtr_egress_enqueue(eg, 1, pkt(200, false, 0, -1, 4, 3, 0), 3, 10000);
	rtr_egress_enqueue(eg, 1, pkt(200, false, 0, -1, 4, 0, 0), 0, 10000);
	rtr_egress_service(eg, 10000);
	CHECK_EQ(nic.n, 1); /* class 0 passes, class 3 is paused */
	CHECK_EQ(tag_of(nic.got[0]), 0);
	rtr_egress_service(eg, 15119);
	CHECK_EQ(nic.n, 1);
	rtr_egress_service(eg, 15120);
	CHECK_EQ(nic.n, 2);
	CHECK_EQ(rtr_egress_paused_ns(&sh, 1, 3, 20000), 5120);
	/* A class not in pfc.classes ignores the frame. */
	quanta[3] = 0;
	quanta[2] = 1000;
	rtr_pfc_build(frame, mac, 1u << 2, quanta);
	rtr_egress_mac_control_rx(&sh, 1, frame, sizeof(frame), 30000);
	rtr_egress_enqueue(eg, 1, pkt(200, false, 0, -1, 4, 2, 0), 2, 30000);
	rtr_egress_service(eg, 30000);
	CHECK_EQ(nic.n, 3);
	/* XON (quanta 0) resumes early; paused time counts only the pause. */
	quanta[2] = 0;
	quanta[3] = 65535;
	rtr_pfc_build(frame, mac, 1u << 3, quanta);
	rtr_egress_mac_control_rx(&sh, 1, frame, sizeof(frame), 40000);
	rtr_egress_enqueue(eg, 1, pkt(200, false, 0, -1, 4, 33, 0), 3, 40000);
	rtr_egress_service(eg, 41000);
	CHECK_EQ(nic.n, 3);
	quanta[3] = 0;
	rtr_pfc_build(frame, mac, 1u << 3, quanta);
	rtr_egress_mac_control_rx(&sh, 1, frame, sizeof(frame), 42000);
	rtr_egress_service(eg, 42000);
	CHECK_EQ(nic.n, 4);
	CHECK_EQ(rtr_egress_paused_ns(&sh, 1, 3, 50000), 5120 + 2000);
	/* A refresh while paused extends from the new frame's time. */
	quanta[3] = 100; /* 512 ns */
	rtr_pfc_build(frame, mac, 1u << 3, quanta);
	rtr_egress_mac_control_rx(&sh, 1, frame, sizeof(frame), 60000);
	rtr_egress_mac_control_rx(&sh, 1, frame, sizeof(frame), 60400);
	CHECK_EQ(rtr_egress_paused_ns(&sh, 1, 3, 70000), 5120 + 2000 + 400 + 512);
	/* 802.3x PAUSE is counted and ignored; garbage is rejected. */
	frame[15] = 0x01;
	frame[14] = 0x00;
	CHECK_EQ(rtr_egress_mac_control_rx(&sh, 1, frame, sizeof(frame), 80000), 0);
	CHECK_EQ(sh.port[1].pfc.rx_pause, 1);
	frame[15] = 0x77;
	CHECK_EQ(rtr_egress_mac_control_rx(&sh, 1, frame, sizeof(frame), 80000), -1);
	CHECK_EQ(rtr_egress_mac_control_rx(&sh, 1, frame, 20, 80000), -1);
	done(eg);

	/* pfc.mode off: counted, ignored. */
	cfg_reset(2);
	eg = mk();
	nic_reset(true);
	quanta[3] = 1000;
	rtr_pfc_build(frame, mac, 1u << 3, quanta);
	rtr_egress_mac_control_rx(&sh, 1, frame, sizeof(frame), 0);
	CHECK_EQ(sh.port[1].pfc.rx_ignored, 1);
	rtr_egress_enqueue(eg, 1, pkt(200, false, 0, -1, 4, 3, 0), 3, 10);
	rtr_egress_service(eg, 10);
	CHECK_EQ(nic.n, 1);
	done(eg);
}

static void
test_pfc_tx(void)
{
	struct rtr_egress *eg;
	unsigned int i, xoff_at = 0;

	cfg_reset(3);
	cfg.qos.pfc.mode = RTR_PFC_SOFTWARE;
	cfg.qos.pfc.class_mask = 1u << 3;
	cfg.qos.pfc.xoff_kb = 64;
	cfg.qos.pfc.xon_kb = 32;
	cfg.qos.pfc.quanta = 1000;
	eg = mk();
	nic_reset(true);
	/* Port 2 refuses everything: packets from port 0 in class 3 pile up. */
	nic.accept = 0;
	for (i = 0; i < 100; i++) {
		rtr_egress_enqueue(eg, 2, pkt(1024, false, 0, -1, 4, i, 0), 3, 1000);
		/* Packets from port 1 count toward port 1, not port 0. */
		rtr_egress_enqueue(eg, 2, pkt(100, false, 0, -1, 4, 500 + i, 1), 3, 1000);
		if (xoff_at == 0 && (eg->in_xoff[0] & (1u << 3)))
			xoff_at = i + 1;
	}
	CHECK_EQ(xoff_at, 64); /* 64 x 1024 bytes = xoff_kb */
	CHECK_EQ(eg->in_xoff[1], 0);
	CHECK_EQ(atomic_load(&sh.port[0].pfc.tx_xoff), 1);
	/* The XOFF frame waits on port 0's wire: send it. */
	nic.accept = -1;
	rtr_egress_service_port(eg, 0, 1000);
	CHECK_EQ(nic.n, 1);
	{
		const uint8_t *f = rte_pktmbuf_mtod(nic.got[0], const uint8_t *);

		CHECK_EQ(nic.port[0], 0);
		CHECK_EQ(f[0], 0x01);
		CHECK_EQ(f[5], 0x01);
		CHECK_EQ(f[11], 0); /* port 0's MAC */
		CHECK_EQ(f[12] << 8 | f[13], RTR_PFC_ETHERTYPE);
		CHECK_EQ(f[14] << 8 | f[15], RTR_PFC_OPCODE);
		CHECK_EQ(f[17], 1u << 3);
		CHECK_EQ(f[18 + 6] << 8 | f[19 + 6], 1000);
		CHECK_EQ(nic.got[0]->pkt_len, RTR_PFC_FRAME_LEN);
	}
	CHECK_EQ(st.originated, 1);
	/* Refresh: 1000 quanta at 100G = 5120 ns; re-sent after half. */
	rtr_egress_tick(eg, 1000 + 2559);
	rtr_egress_service_port(eg, 0, 1000 + 2559);
	CHECK_EQ(nic.n, 1);
	rtr_egress_tick(eg, 1000 + 2560);
	rtr_egress_service_port(eg, 0, 1000 + 2560);
	CHECK_EQ(nic.n, 2);
	/* Drain port 2: below xon_kb, XON goes out once. */
	eg->port[2]->wire[0].blocked = false;
	while (eg->port[2]->nonempty)
		rtr_egress_service_port(eg, 2, 5000);
	rtr_egress_service_port(eg, 0, 5000);
	CHECK_EQ(atomic_load(&sh.port[0].pfc.tx_xon), 1);
	CHECK_EQ(eg->in_xoff[0], 0);
	CHECK_EQ(eg->in_bytes[0][3], 0);
	{
		const uint8_t *f = rte_pktmbuf_mtod(nic.got[nic.n - 1], const uint8_t *);

		CHECK_EQ(nic.port[nic.n - 1], 0);
		CHECK_EQ(f[17], 1u << 3);
		CHECK_EQ(f[18 + 6] << 8 | f[19 + 6], 0);
	}
	CHECK_EQ(nic.n, 2 + 200 + 1);
	/* With XOFF cleared, no further refreshes. */
	rtr_egress_tick(eg, 1000000);
	rtr_egress_service_port(eg, 0, 1000000);
	CHECK_EQ(nic.n, 203);
	done(eg);
}

static void
test_delay_loss(void)
{
	struct rtr_egress *eg;
	unsigned int i, lost = 0, lost2 = 0;
	bool in_order = true, on_time = true;

	cfg_reset(2);
	cfg.ports[1].delay_us = 50;
	eg = mk();
	nic_reset(true);
	/* One packet every 100 ns for 200 us; service every 100 ns. */
	for (i = 0; i < 2000; i++) {
		uint64_t t = 1000000 + i * 100ull;

		rtr_egress_enqueue(eg, 1, pkt(128, false, 0, -1, 4, i, 0), (uint8_t)(i % 3), t);
		nic.now = t;
		rtr_egress_service(eg, t);
	}
	for (uint64_t t = 1000000 + 200000; t < 1000000 + 400000; t += 100) {
		nic.now = t;
		rtr_egress_service(eg, t);
	}
	CHECK_EQ(nic.n, 2000);
	for (i = 0; i < nic.n; i++) {
		uint64_t sent_at = 1000000 + tag_of(nic.got[i]) * 100ull;

		in_order &= tag_of(nic.got[i]) == i;
		on_time &= nic.at[i] >= sent_at + 50000 && nic.at[i] <= sent_at + 50000 + 100;
	}
	CHECK(in_order);
	CHECK(on_time);
	CHECK_EQ(nic.at[0], 1000000 + 50000);
	done(eg);

	/* Loss 10 % with a seed: about 1000 of 10000, and reproducible. */
	for (int run = 0; run < 2; run++) {
		cfg_reset(2);
		cfg.ports[1].loss = 0.1;
		cfg.ports[1].loss_seed = 42;
		eg = mk();
		nic_reset(true);
		for (i = 0; i < 10000; i++) {
			rtr_egress_enqueue(eg, 1, pkt(128, false, 0, -1, 4, i, 0), 0, 0);
			rtr_egress_service(eg, 0);
		}
		if (run == 0)
			lost = nic.dropped[RTR_DROP_IMPAIR_LOSS];
		else
			lost2 = nic.dropped[RTR_DROP_IMPAIR_LOSS];
		CHECK_EQ(nic.n + nic.dropped[RTR_DROP_IMPAIR_LOSS], 10000);
		CHECK_EQ(eg->port[1]->c[0][RTR_EGC_drop_loss], nic.dropped[RTR_DROP_IMPAIR_LOSS]);
		done(eg);
	}
	printf("  loss 0.1 over 10000 packets: %u lost (seed 42, twice: %u)\n", lost, lost2);
	CHECK(lost > 1000 - 90 && lost < 1000 + 90); /* 3 sigma */
	CHECK_EQ(lost, lost2);
}

static void
test_tail_trim(void)
{
	struct rtr_egress *eg;
	struct rte_mbuf *orig;
	uint8_t copy[1100];
	unsigned int i;

	/* Tail drop at queue_kb. */
	cfg_reset(2);
	cfg.qos.cls[0].queue_kb = 10;
	eg = mk();
	nic_reset(true);
	nic.accept = 0;
	for (i = 0; i < 20; i++)
		rtr_egress_enqueue(eg, 1, pkt(1024, false, 0, -1, 4, i, 0), 0, 0);
	CHECK_EQ(eg->port[1]->c[0][RTR_EGC_enqueued], 10);
	CHECK_EQ(eg->port[1]->c[0][RTR_EGC_drop_queue_full], 10);
	CHECK_EQ(nic.dropped[RTR_DROP_QUEUE_FULL], 10);
	CHECK_EQ(eg->port[1]->c[0][RTR_EGC_max_depth], 10240);
	nic.accept = -1;
	eg->port[1]->wire[0].blocked = false;
	/* Port down: what is queued is dropped and counted. */
	CHECK_EQ(rtr_egress_port_down(eg, 1), 10);
	CHECK_EQ(nic.dropped[RTR_DROP_PORT_DOWN], 10);
	CHECK_EQ(eg->held, 0);
	done(eg);

	/* Trimming: the 11th packet is cut to its headers, sent in class 7. */
	for (int upd = 0; upd < 3; upd++) {
		for (int v6 = 0; v6 < 2; v6++) {
			unsigned int l4, keep;

			cfg_reset(2);
			cfg.qos.cls[0].queue_kb = 10;
			cfg.qos.trim = true;
			cfg.qos.trim_update_lengths = upd == 1;
			cfg.qos.trim_dscp = upd == 2 ? 8 : -1;
			eg = mk();
			nic_reset(true);
			nic.accept = 0;
			for (i = 0; i < 10; i++)
				rtr_egress_enqueue(eg, 1, pkt(1024, v6, RTR_ECN_ECT0, -1, 4, i, 0),
						0, 0);
			orig = pkt(1024, v6, (26 << 2) | RTR_ECN_ECT0, -1, 4, 77, 0);
			memcpy(copy, rte_pktmbuf_mtod(orig, uint8_t *), 1024);
			l4 = rtr_meta(orig)->l4_off;
			keep = l4 + 8 + 12;
			CHECK_EQ(rtr_egress_enqueue(eg, 1, orig, 0, 0), 0);
			CHECK_EQ(eg->port[1]->c[0][RTR_EGC_trimmed], 1);
			CHECK_EQ(eg->port[1]->c[7][RTR_EGC_enqueued], 1);
			/* A non-RoCE-data packet is not trimmed: CNP is dropped. */
			rtr_egress_enqueue(
					eg, 1, pkt(1024, v6, 0, -1, RTR_BTH_OP_CNP, 78, 0), 0, 0);
			CHECK_EQ(nic.dropped[RTR_DROP_QUEUE_FULL], 1);
			nic.accept = -1;
			eg->port[1]->wire[0].blocked = false;
			rtr_egress_service(eg, 0);
			CHECK_EQ(nic.n, 11);
			CHECK(nic.got[0] == orig); /* control class first */
			CHECK_EQ(orig->pkt_len, keep);
			CHECK_EQ(orig->data_len, keep);
			{
				uint8_t *f = rte_pktmbuf_mtod(orig, uint8_t *);
				unsigned int diff_other = 0, diff_masked = 0;

				for (unsigned int b = 0; b < keep; b++) {
					bool masked;

					if (f[b] == copy[b])
						continue;
					/* ICRC-masked: IPv4 TOS (15), checksum (24,25);
					 * IPv6 traffic class (14,15); UDP checksum. */
					masked = v6 ? (b == 14 || b == 15)
						    : (b == 15 || b == 24 || b == 25);
					masked |= b == l4 + 6 || b == l4 + 7;
					if (masked)
						diff_masked++;
					else
						diff_other++;
				}
				if (upd == 0) {
					CHECK_EQ(diff_other + diff_masked, 0);
				} else if (upd == 2) {
					CHECK_EQ(diff_other, 0);
					CHECK(diff_masked > 0);
					CHECK_EQ(v6 ? ((f[14] & 0xf) << 2 | f[15] >> 6)
						    : f[15] >> 2,
							8);
				} else {
					unsigned int ip_len =
							v6 ? (unsigned int)(f[18] << 8 | f[19])
							   : (unsigned int)(f[16] << 8 | f[17]);

					CHECK_EQ(ip_len, v6 ? keep - 54 : keep - 14);
					CHECK_EQ((unsigned int)(f[l4 + 4] << 8 | f[l4 + 5]),
							keep - l4);
					if (!v6) {
						struct rte_ipv4_hdr *ip =
								(struct rte_ipv4_hdr *)(f + 14);
						uint16_t ck = ip->hdr_checksum;

						ip->hdr_checksum = 0;
						CHECK_EQ(ck, rte_ipv4_cksum(ip));
					}
				}
			}
			done(eg);
		}
	}
}

/* PFC frames still on the wires (held, but not received packets). */
static uint64_t
eg_wire_orig(const struct rtr_egress *eg)
{
	uint64_t n = 0;

	for (unsigned int p = 0; p < RTR_MAX_PORTS; p++) {
		const struct rtr_eport *ep = eg->port[p];

		const struct rtr_ewire *w = ep ? &ep->wire[0] : NULL;

		for (uint32_t h = w ? w->head : 0; w && h != w->tail; h++)
			n += rtr_meta(w->slot[h & w->mask])->in_port == RTR_PORT_NONE;
	}
	return n;
}

static void
test_accounting(void)
{
	struct rtr_egress *eg;
	unsigned int i, n_in = 0;
	uint64_t rng = 7;

	/* Random traffic, random NIC, random port downs, shaping, loss and
	 * delay on: every packet ends sent or dropped, held is exact. */
	cfg_reset(3);
	cfg.ports[1].shape_gbps = 5;
	cfg.ports[1].delay_us = 20;
	cfg.ports[2].loss = 0.05;
	cfg.qos.cls[1].queue_kb = 64;
	cfg.qos.trim = true;
	cfg.qos.pfc.mode = RTR_PFC_SOFTWARE;
	cfg.qos.pfc.class_mask = 0x0f;
	cfg.qos.pfc.xoff_kb = 32;
	cfg.qos.pfc.xon_kb = 16;
	eg = mk();
	nic_reset(false);
	for (i = 0; i < 200000; i++) {
		uint64_t r = rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t t = i * 50ull;
		uint16_t port = (uint16_t)(r >> 33) % 3;

		rtr_egress_enqueue(eg, port,
				pkt(80 + (unsigned int)(r >> 40) % 1400, (r >> 20) & 1,
						(r >> 21) & 3, -1, 4, i, (uint8_t)((r >> 50) % 3)),
				(uint8_t)((r >> 23) % 8), t);
		n_in++;
		nic.accept = (int)((r >> 30) % 40) - 5;
		nic.now = t;
		rtr_egress_tick(eg, t);
		rtr_egress_service(eg, t);
		if ((r >> 12) % 50000 == 0)
			rtr_egress_port_down(eg, port);
	}
	unsigned int drops = 0;

	for (unsigned int d = 0; d < RTR_DROP_MAX; d++)
		drops += nic.dropped[d];
	CHECK_EQ(nic.n - st.originated + drops + eg->held - eg_wire_orig(eg), n_in);
	nic.accept = -1;
	rtr_egress_flush_all(eg, 4);
	CHECK_EQ(eg->held, 0);
	drops = 0;
	for (unsigned int d = 0; d < RTR_DROP_MAX; d++)
		drops += nic.dropped[d];
	CHECK_EQ(nic.n - st.originated + drops, n_in);
	CHECK_EQ(st.forwarded + drops, n_in);
	printf("  accounting: %u in, %lu forwarded, %u dropped (%u loss, %u tail, %u down), "
	       "%lu PFC frames\n",
			n_in, (unsigned long)st.forwarded, drops, nic.dropped[RTR_DROP_IMPAIR_LOSS],
			nic.dropped[RTR_DROP_QUEUE_FULL], nic.dropped[RTR_DROP_PORT_DOWN],
			(unsigned long)st.originated);
	done(eg);
}

/* The departure hook: what it saw, in order. */
static struct {
	uint32_t tag[64];
	uint64_t at[64];
	unsigned int n;
} dep;

static void
dep_hook(void *arg, struct rte_mbuf *m, uint64_t now_ns)
{
	(void)arg;
	if (dep.n < 64) {
		dep.tag[dep.n] = tag_of(m);
		dep.at[dep.n] = now_ns;
	}
	dep.n++;
}

/*
 * io.depart is called once per packet that asks for it (a meta flag of
 * depart_flags, received on a port of depart_ports), when it leaves its
 * class queue (scheduler time, not enqueue time) or takes the fast path;
 * never for others, never at the exit flush.
 */
static void
test_depart_hook(void)
{
	struct rtr_egress_io io = {.tx = nic_tx,
			.drop = nic_drop,
			.alloc = nic_alloc,
			.depart = dep_hook,
			.depart_flags = RTR_MF_LB_HDR,
			.depart_ports = 0x1};
	struct rtr_egress *eg;
	struct rte_mbuf *m;

	cfg_reset(2);
	cfg.ports[1].shape_gbps = 1.0;
	cfg.ports[1].shape_burst_kb = 1;
	memset(&st, 0, sizeof(st));
	memset(&dep, 0, sizeof(dep));
	CHECK_EQ(rtr_egress_shared_init(&sh, &cfg, NULL), 0);
	eg = rtr_egress_create(&sh, 0, &io, &st, 1u << 16, -1);
	CHECK(eg != NULL);
	nic_reset(true);
	/* 8 packets of 1000 B at t = 0 on a 1 Gb/s port: after the first
	 * (the 1 KB burst allowance) they leave 8.2 us apart. Even tags ask
	 * (flag, host port 0); 1 has the flag but came from port 1 (transit);
	 * the other odd ones came from port 0 without the flag. */
	for (uint32_t i = 0; i < 8; i++) {
		m = pkt(1000, false, 0, -1, 4, i, i == 1 ? 1 : 0);
		if (i % 2 == 0 || i == 1)
			rtr_meta(m)->flags |= RTR_MF_LB_HDR;
		CHECK_EQ(rtr_egress_enqueue(eg, 1, m, 0, 0), 0);
	}
	CHECK_EQ(dep.n, 0);
	for (uint64_t t = 0; t <= 100000; t += 100) {
		nic.now = t;
		rtr_egress_service(eg, t);
	}
	CHECK_EQ(nic.n, 8);
	CHECK_EQ(dep.n, 4);
	for (unsigned int i = 0; i < dep.n && i < 4; i++) {
		unsigned int k = dep.tag[i];

		CHECK_EQ(k, 2 * i);
		/* called as it left: the NIC got it at the same time */
		CHECK_EQ(dep.at[i], nic.at[k]);
		CHECK(k == 0 || dep.at[i] >= 8000 * (k - 1), "tag %u at %" PRIu64, k, dep.at[i]);
	}
	/* The fast path (plain port 0 idle): called at enqueue. */
	nic_reset(true);
	memset(&dep, 0, sizeof(dep));
	m = pkt(200, false, 0, -1, 4, 40, 0);
	rtr_meta(m)->flags |= RTR_MF_LB_HDR;
	CHECK_EQ(rtr_egress_enqueue(eg, 0, m, 0, 777), 0);
	CHECK_EQ(dep.n, 1);
	CHECK_EQ(dep.at[0], 777);
	/* Not at the exit flush. */
	m = pkt(1000, false, 0, -1, 4, 41, 0);
	rtr_meta(m)->flags |= RTR_MF_LB_HDR;
	for (int i = 0; i < 4; i++)
		rtr_egress_enqueue(eg, 1, pkt(1000, false, 0, -1, 4, 50 + i, 0), 0, 200000);
	CHECK_EQ(rtr_egress_enqueue(eg, 1, m, 0, 200000), 0);
	rtr_egress_flush_all(eg, 4);
	CHECK_EQ(dep.n, 1);
	done(eg);
}

/*
 * The LB wire part as the egress sees it (doc/egress.md), without naming a
 * mode: an LB control packet (RTR_MF_LB_CTRL) in transit goes to the
 * control class, an LB data header does not; a trimmed packet with an LB
 * header (RTR_MF_LB_HDR) keeps io.trim_lb_hdr_len bytes after the BTH.
 */
static void
test_lb_wire(void)
{
	struct rtr_egress_io io = {
			.tx = nic_tx, .drop = nic_drop, .alloc = nic_alloc, .trim_lb_hdr_len = 4};
	struct rtr_egress *eg;
	struct rte_mbuf *m;
	unsigned int keep;

	cfg_reset(2);
	cfg.qos.cls[0].queue_kb = 10;
	cfg.qos.trim = true;
	memset(&st, 0, sizeof(st));
	CHECK_EQ(rtr_egress_shared_init(&sh, &cfg, NULL), 0);
	eg = rtr_egress_create(&sh, 0, &io, &st, 1u << 16, -1);
	CHECK(eg != NULL);
	if (eg == NULL)
		return;
	eg->direct = false;
	nic_reset(true);

	/* Classes, from a fabric port. */
	m = pkt(200, false, 0, -1, 4, 1, 1);
	CHECK_EQ(rtr_egress_classify(eg, m), 0);
	rtr_meta(m)->flags |= RTR_MF_LB_HDR;
	CHECK_EQ(rtr_egress_classify(eg, m), 0);
	rtr_meta(m)->flags |= RTR_MF_LB_CTRL;
	CHECK_EQ(rtr_egress_classify(eg, m), eg->top);
	fake_free(m);

	/* The trim keeps the header after the BTH. */
	nic.accept = 0;
	for (unsigned int i = 0; i < 10; i++)
		rtr_egress_enqueue(eg, 1, pkt(1024, false, 0, -1, 4, i, 1), 0, 0);
	m = pkt(1024, false, 0, -1, 4, 77, 1);
	rtr_meta(m)->flags |= RTR_MF_LB_HDR;
	keep = rtr_meta(m)->l4_off + 8u + 12u + 4u;
	CHECK_EQ(rtr_egress_enqueue(eg, 1, m, 0, 0), 0);
	CHECK_EQ(eg->port[1]->c[0][RTR_EGC_trimmed], 1);
	CHECK_EQ(m->pkt_len, keep);
	CHECK_EQ(m->data_len, keep);
	CHECK(rtr_meta(m)->flags & RTR_MF_TRIMMED);
	nic.accept = -1;
	eg->port[1]->wire[0].blocked = false;
	rtr_egress_service(eg, 0);
	CHECK_EQ(nic.n, 11);
	CHECK(nic.got[0] == m); /* the control class first */
	done(eg);
}

int
main(void)
{
	rtr_meta_offset = (int)offsetof(struct rte_mbuf, dynfield1);
	nic_reset(false);
	test_classify();
	test_queue_bytes();
	test_strict_priority();
	test_direct();
	test_dwrr();
	test_red();
	test_shaper();
	test_pfc_rx();
	test_pfc_tx();
	test_delay_loss();
	test_tail_trim();
	test_accounting();
	test_depart_hook();
	test_lb_wire();
	return rtr_test_done("egress");
}
