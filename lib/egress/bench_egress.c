/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Cost of the egress stage alone: classify + enqueue + scheduler + the
 * hand-off to a fake NIC that takes every frame (and gives the mbuf back to
 * the generator, so no allocator is measured). No EAL. Prints, per
 * configuration, the median over RUNS runs of ns and TSC cycles per packet.
 *
 *   build/lib/egress/bench_egress [packets-per-run] [runs]
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ip.h>

#include "rtr_egress.h"
#include "rtr_mbuf.h"
#include "rtr_parse.h"

#define POOL 1024

static struct rte_mbuf *freelist[POOL];
static unsigned int n_free;

static uint16_t
nic_tx(void *arg, uint16_t port, uint16_t hwq, struct rte_mbuf **pkts, uint16_t n)
{
	(void)hwq;
	(void)arg;
	(void)port;
	for (uint16_t i = 0; i < n; i++)
		freelist[n_free++] = pkts[i];
	return n;
}

static void
nic_drop(void *arg, struct rte_mbuf *m, enum rtr_drop_reason why)
{
	(void)arg;
	(void)why;
	freelist[n_free++] = m;
}

static struct rte_mbuf *
nic_alloc(void *arg)
{
	(void)arg;
	return n_free ? freelist[--n_free] : NULL;
}

/* IPv4/UDP/BTH frame of 1024 bytes with the given DSCP. */
static struct rte_mbuf *
mk_pkt(uint8_t dscp, uint32_t i)
{
	struct rte_mbuf *m = aligned_alloc(64, sizeof(*m) + 128 + 2048);
	uint8_t *f;
	struct rte_ipv4_hdr *ip;
	unsigned int len = 1024;

	memset(m, 0, sizeof(*m) + 128 + 2048);
	m->buf_addr = (uint8_t *)m + sizeof(*m);
	m->data_off = 128;
	m->nb_segs = 1;
	f = rte_pktmbuf_mtod(m, uint8_t *);
	f[12] = 0x08;
	ip = (struct rte_ipv4_hdr *)(f + 14);
	ip->version_ihl = 0x45;
	ip->type_of_service = (uint8_t)(dscp << 2 | 2);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - 14));
	ip->time_to_live = 64;
	ip->next_proto_id = 17;
	ip->src_addr = rte_cpu_to_be_32(0x0a000001 + i);
	ip->dst_addr = rte_cpu_to_be_32(0x0a010001);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	f[34 + 2] = 4791 >> 8;
	f[34 + 3] = 4791 & 0xff;
	f[34 + 4] = (uint8_t)((len - 34) >> 8);
	f[34 + 5] = (uint8_t)(len - 34);
	f[42] = 4;
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	rtr_parse(f, len, 1, 0, rtr_meta(m));
	rtr_meta(m)->in_port = 0;
	return m;
}

static struct rtr_config cfg;

static void
cfg_default(void)
{
	memset(&cfg, 0, sizeof(cfg));
	cfg.n_ports = 2;
	for (unsigned int p = 0; p < 2; p++) {
		cfg.ports[p].port = (uint16_t)p;
		cfg.ports[p].speed_gbps = 100;
		cfg.ports[p].shape_burst_kb = 16;
	}
	cfg.qos.classes = 8;
	cfg.qos.queue_kb = 2048;
	cfg.qos.ecn = (struct rtr_ecn_cfg){
			.enabled = true, .kmin_kb = 100, .kmax_kb = 400, .pmax = 0.2};
	cfg.qos.trim_dscp = -1;
	cfg.qos.n_dscp = 3;
	cfg.qos.dscp[0] = (struct rtr_dscp_map){26, 3};
	cfg.qos.dscp[1] = (struct rtr_dscp_map){10, 1};
	cfg.qos.dscp[2] = (struct rtr_dscp_map){18, 2};
	for (unsigned int c = 0; c < 8; c++) {
		cfg.qos.cls[c].priority = (uint8_t)c;
		cfg.qos.cls[c].weight = 1;
		cfg.qos.cls[c].queue_kb = 2048;
		cfg.qos.cls[c].ecn = cfg.qos.ecn;
	}
}

static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* mixed: DSCPs spread over 4 classes; burst: packets enqueued per service. */
static void
run(const char *name, bool mixed, unsigned int burst, unsigned long pkts, unsigned int runs)
{
	struct rtr_egress_shared sh;
	struct rtr_lcore_stats *st = aligned_alloc(64, sizeof(*st));
	struct rtr_egress_io io = {.tx = nic_tx, .drop = nic_drop, .alloc = nic_alloc};
	static const uint8_t dscps[4] = {0, 26, 10, 18};
	double ns[32], cyc[32];
	struct rtr_egress *eg;

	memset(st, 0, sizeof(*st));
	rtr_egress_shared_init(&sh, &cfg, NULL);
	eg = rtr_egress_create(&sh, 0, &io, st, 1u << 16, -1);
	n_free = 0;
	for (unsigned int i = 0; i < POOL; i++)
		freelist[n_free++] = mk_pkt(mixed ? dscps[i % 4] : 26, i);
	uint64_t t = 1000000; /* virtual time runs on across runs (the shaper's clock) */

	for (unsigned int r = 0; r < runs; r++) {
		double t0 = now_ns();
		uint64_t c0 = rte_rdtsc();

		unsigned long done = 0;

		while (done < pkts) {
			for (unsigned int i = 0; i < burst && n_free > 0; i++, done++) {
				struct rte_mbuf *m = freelist[--n_free];

				rtr_egress_enqueue(eg, 1, m, rtr_egress_classify(eg, m), t);
			}
			rtr_egress_service(eg, t);
			t += 300 * burst; /* ~100 Gb/s of 1 KB frames in virtual time */
		}
		cyc[r] = (double)(rte_rdtsc() - c0) / (double)pkts;
		ns[r] = (now_ns() - t0) / (double)pkts;
		rtr_egress_flush_all(eg, 4);
	}
	qsort(ns, runs, sizeof(double), cmp_d);
	qsort(cyc, runs, sizeof(double), cmp_d);
	printf("%-44s %7.1f ns/pkt %7.1f cycles/pkt  (median of %u x %lu packets)\n", name,
			ns[runs / 2], cyc[runs / 2], runs, pkts);
	rtr_egress_free(eg);
	for (unsigned int i = 0; i < n_free; i++)
		free(freelist[i]);
	n_free = 0;
	free(st);
}

int
main(int argc, char **argv)
{
	unsigned long pkts = argc > 1 ? strtoul(argv[1], NULL, 10) : 4000000;
	unsigned int runs = argc > 2 ? (unsigned int)atoi(argv[2]) : 5;

	if (runs < 1 || runs > 32)
		runs = 5;
	rtr_meta_offset = (int)offsetof(struct rte_mbuf, dynfield1);
	printf("egress stage cost (classify + enqueue + schedule + TX hand-off), 1 KB IPv4 RoCE\n");
	cfg_default();
	run("8 classes strict, one class, bursts of 32", false, 32, pkts, runs);
	run("8 classes strict, 4 classes mixed, bursts of 32", true, 32, pkts, runs);
	run("8 classes strict, one class, bursts of 4", false, 4, pkts, runs);
	cfg.qos.cls[1].priority = 2;
	cfg.qos.cls[2].weight = 3;
	cfg.qos.cls[3].priority = 2;
	cfg.qos.cls[3].weight = 4;
	run("DWRR level of 3 classes (1:3:4), mixed", true, 32, pkts, runs);
	cfg_default();
	cfg.ports[1].shape_gbps = 1000;
	run("shaped port (1000 Gb/s: never limits), one class", false, 32, pkts, runs);
	cfg_default();
	cfg.ports[1].delay_us = 10;
	run("delay line 10 us, one class", false, 32, pkts, runs);
	cfg_default();
	cfg.qos.pfc.mode = RTR_PFC_SOFTWARE;
	cfg.qos.pfc.class_mask = 0x08;
	cfg.qos.pfc.xoff_kb = 256;
	cfg.qos.pfc.xon_kb = 128;
	cfg.qos.pfc.quanta = 65535;
	run("PFC software on class 3 (ingress accounting)", false, 32, pkts, runs);
	return 0;
}
