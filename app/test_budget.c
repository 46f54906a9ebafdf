/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The mempool budget (app/budget.c) against figures computed by hand from
 * the formula in doc/egress.md and doc/conweave.md ("Hold budget"), for a
 * few configs. With the defaults (8 classes of 2048 KB, handoff_ring
 * 4096): one port's egress share is min(8 x 1398, 4096) = 4096, one
 * worker's share is 32 x (ports + 1) + 384 + 4096 + 1024, the control
 * share 2048.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "rtr_lb_registry.h"
#include "rtr_pring.h"
#include "rtr_test.h"

/* A ToR with one host and one fabric port: lb, more switch keys, more
 * keys of port 1, more sections. */
static const char *const cfg_1h1f =
		"switch: {name: t, role: tor, id: 1, lb: %s%s}\n"
		"ports:\n"
		"  - {port: 0, role: host, mac: \"02:00:00:00:01:00\"}\n"
		"  - {port: 1, role: fabric, mac: \"02:00:00:00:01:01\"%s}\n"
		"routes:\n"
		"  - {prefix: \"10.1.0.1/32\", port: 0, nexthop_mac: \"02:00:00:00:aa:01\"}\n"
		"  - prefix: \"10.2.0.0/16\"\n"
		"    paths:\n"
		"      - {port: 1, nexthop_mac: \"02:00:00:00:bb:01\"}\n"
		"%s";

/* Four host ports and one fabric port, ConWeave: more switch keys. */
static const char *const cfg_4h1f =
		"switch: {name: t, role: tor, id: 1, lb: conweave%s}\n"
		"ports:\n"
		"  - {port: 0, role: host, mac: \"02:00:00:00:01:00\"}\n"
		"  - {port: 1, role: host, mac: \"02:00:00:00:01:01\"}\n"
		"  - {port: 2, role: host, mac: \"02:00:00:00:01:02\"}\n"
		"  - {port: 3, role: host, mac: \"02:00:00:00:01:03\"}\n"
		"  - {port: 4, role: fabric, mac: \"02:00:00:00:01:04\"}\n"
		"routes:\n"
		"  - {prefix: \"10.1.0.1/32\", port: 0, nexthop_mac: \"02:00:00:00:aa:01\"}\n"
		"  - prefix: \"10.2.0.0/16\"\n"
		"    paths:\n"
		"      - {port: 4, nexthop_mac: \"02:00:00:00:bb:01\"}\n";

static const char *const cfg_spine =
		"switch: {name: s, role: spine, id: 9, lb: conweave}\n"
		"ports:\n"
		"  - {port: 0, role: fabric, mac: \"02:00:00:00:09:00\", mtu: 9000}\n"
		"  - {port: 1, role: fabric, mac: \"02:00:00:00:09:01\", mtu: 9000}\n"
		"routes:\n"
		"  - {prefix: \"10.1.0.0/16\", port: 0, nexthop_mac: \"02:00:00:00:aa:01\"}\n"
		"  - {prefix: \"10.2.0.0/16\", port: 1, nexthop_mac: \"02:00:00:00:aa:02\"}\n";

static int
load(struct rtr_config *cfg, const char *text)
{
	char err[512];
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	rc = rtr_config_load_buf("budget.yaml", "yaml", text, strlen(text), cfg, err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "%s\n", err);
	return rc;
}

static int
load_1h1f(struct rtr_config *cfg, const char *lb, const char *sw, const char *p1, const char *tail)
{
	char text[2048];

	snprintf(text, sizeof(text), cfg_1h1f, lb, sw, p1, tail);
	return load(cfg, text);
}

static int
budget(const struct rtr_config *cfg, unsigned int workers, bool rw, struct rtr_budget *b)
{
	struct rtr_budget_in in;

	memset(&in, 0, sizeof(in));
	rtr_budget_queues(cfg, workers, &in);
	in.telemetry_rw = rw;
	memset(b, 0xa5, sizeof(*b));
	return rtr_mbuf_budget(cfg, &in, b);
}

static const char *
mode_name(const struct rtr_budget *b)
{
	return b->hold_mode != NULL ? b->hold_mode->name : "(none)";
}

/* ECMP, one host and one fabric port: nothing held. */
static void
test_ecmp(void)
{
	struct rtr_config cfg;
	struct rtr_budget b;

	printf("1. ECMP, 2 ports\n");
	CHECK_EQ(load_1h1f(&cfg, "ecmp", "", "", ""), 0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.rx_desc, 2048);
	CHECK_EQ(b.tx_desc, 2048);
	CHECK_EQ(b.per_worker, 32 * 3 + 384 + 4096 + 1024 + 16); /* 5616 */
	CHECK_EQ(b.workers, 5616);
	CHECK_EQ(b.egress, 8192);
	CHECK_EQ(b.hold, 0);
	CHECK_EQ(b.control, 2048);
	CHECK_EQ(b.need, 19952);
	CHECK_EQ(b.mbufs, 32767);
	CHECK(!b.mbufs_set);
	CHECK(b.hold_mode == NULL);
	CHECK(b.hold_key == NULL);
	CHECK_EQ(b.hold_per_worker, 0);
	CHECK(!b.hold_cut);
	CHECK_EQ(b.data_room, 128 + 2048);
	/* Two workers: twice the queues and the worker share. */
	CHECK_EQ(budget(&cfg, 2, false, &b), 0);
	CHECK_EQ(b.rx_desc, 4096);
	CHECK_EQ(b.tx_desc, 4096);
	CHECK_EQ(b.workers, 11232);
	CHECK_EQ(b.need, 29664);
	CHECK_EQ(b.mbufs, 32767);
	CHECK_EQ(b.hold_per_worker, 0);
	rtr_config_free(&cfg);

	/* A delay line (100 us at 100 Gb/s: 1220 mbufs of 1 KiB) and jumbo
	 * frames. */
	CHECK_EQ(load_1h1f(&cfg, "ecmp", "", ", speed_gbps: 100, delay_us: 100, mtu: 9000", ""), 0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.egress, 8192 + 1220);
	CHECK_EQ(b.need, 19952 + 1220);
	CHECK_EQ(b.data_room, 128 + 9088); /* 9000 + 30, rounded up to 128 */
	rtr_config_free(&cfg);

	/* Queue counts: rx_queues as given, TX one per worker or more. */
	{
		struct rtr_budget_in in;

		CHECK_EQ(load_1h1f(&cfg, "ecmp", "", ", rx_queues: 2, tx_queues: 3", ""), 0);
		memset(&in, 0, sizeof(in));
		rtr_budget_queues(&cfg, 1, &in);
		CHECK_EQ(in.workers, 1);
		CHECK_EQ(in.rxq[0], 1);
		CHECK_EQ(in.txq[0], 1);
		CHECK_EQ(in.rxq[1], 2);
		CHECK_EQ(in.txq[1], 3);
		rtr_budget_queues(&cfg, 4, &in);
		CHECK_EQ(in.rxq[0], 4);
		CHECK_EQ(in.txq[0], 4);
		CHECK_EQ(in.rxq[1], 2);
		CHECK_EQ(in.txq[1], 4);
		CHECK_EQ(rtr_mbuf_budget(&cfg, &in, &b), 0);
		CHECK_EQ(b.rx_desc, (4 + 2) * 1024);
		CHECK_EQ(b.tx_desc, (4 + 4) * 1024);
		/* No worker, or a port without queues: refused. */
		in.workers = 0;
		CHECK_EQ(rtr_mbuf_budget(&cfg, &in, &b), -EINVAL);
		in.workers = 4;
		in.rxq[1] = 0;
		CHECK_EQ(rtr_mbuf_budget(&cfg, &in, &b), -EINVAL);
		rtr_config_free(&cfg);
	}
}

/* ConWeave: the reorder share derived from the rings, or hold_budget. */
static void
test_conweave(void)
{
	struct rtr_config cfg;
	struct rtr_budget b;

	printf("2. ConWeave, derived and explicit hold budget\n");
	/* Defaults: 1024 rings x 2048 per host port, capped at 4096. */
	CHECK_EQ(load_1h1f(&cfg, "conweave", "", "", ""), 0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.hold, 4096);
	CHECK_EQ(b.need, 19952 + 4096);
	CHECK_EQ(b.mbufs, 32767);
	CHECK_STR(mode_name(&b), "conweave");
	CHECK(b.hold_key == NULL);
	CHECK_EQ(b.hold_per_worker, 4096);
	CHECK(!b.hold_cut);
	CHECK_EQ(budget(&cfg, 2, false, &b), 0);
	CHECK_EQ(b.need, 29664 + 4096);
	CHECK_EQ(b.mbufs, 65535);
	CHECK_EQ(b.hold_per_worker, 2048);
	rtr_config_free(&cfg);

	/* Small rings: 4 x 100 per host port, below the cap. */
	CHECK_EQ(load_1h1f(&cfg, "conweave", "", "",
				 "conweave: {reorder_queues_per_port: 4, "
				 "reorder_queue_depth: 100}\n"),
			0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.hold, 400);
	CHECK_EQ(b.hold_per_worker, 400);
	CHECK_EQ(budget(&cfg, 3, false, &b), 0);
	CHECK_EQ(b.hold_per_worker, 133);
	rtr_config_free(&cfg);

	/* conweave.hold_budget: reserved as given, split between workers. */
	CHECK_EQ(load_1h1f(&cfg, "conweave", "", "", "conweave: {hold_budget: 3000}\n"), 0);
	CHECK_EQ(budget(&cfg, 2, false, &b), 0);
	CHECK_EQ(b.hold, 3000);
	CHECK_EQ(b.need, 29664 + 3000);
	CHECK_EQ(b.mbufs, 32767); /* 32632 fits in 2^15 - 1 */
	CHECK_STR(b.hold_key, "conweave.hold_budget");
	CHECK_EQ(b.hold_per_worker, 1500);
	CHECK(!b.hold_cut);
	rtr_config_free(&cfg);

	/* An explicit budget with switch.mbufs below the formula is not cut
	 * (the validator keeps it below switch.mbufs). */
	CHECK_EQ(load_1h1f(&cfg, "conweave", ", mbufs: 8191", "",
				 "conweave: {hold_budget: 3000}\n"),
			0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.mbufs, 8191);
	CHECK(b.mbufs_set);
	CHECK_EQ(b.hold_per_worker, 3000);
	CHECK(!b.hold_cut);
	rtr_config_free(&cfg);
}

/* switch.mbufs below the formula: holding gets what remains, at least a
 * quarter of the pool, never more than the share. */
static void
test_cut(void)
{
	struct rtr_config cfg;
	struct rtr_budget b;
	char text[2048];

	printf("3. switch.mbufs below the formula\n");
	CHECK_EQ(load_1h1f(&cfg, "conweave", ", mbufs: 4095", "", ""), 0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.mbufs, 4095);
	CHECK(b.mbufs_set);
	CHECK_EQ(b.need, 24048); /* the formula's need is still reported */
	/* others 19952 > 4095: nothing remains, a quarter is 1023 */
	CHECK_EQ(b.hold_per_worker, 1023);
	CHECK(b.hold_cut);
	CHECK_EQ(budget(&cfg, 2, false, &b), 0);
	CHECK_EQ(b.hold_per_worker, 511);
	CHECK(b.hold_cut);
	rtr_config_free(&cfg);

	/* A quarter at least the share: not cut. others 19952, 22000 / 4 =
	 * 5500 >= 4096. */
	CHECK_EQ(load_1h1f(&cfg, "conweave", ", mbufs: 22000", "", ""), 0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.hold_per_worker, 4096);
	CHECK(!b.hold_cut);
	rtr_config_free(&cfg);

	/* Four host ports: share 16384; others = rx 5120 + tx 5120 + worker
	 * 5712 + egress 20480 + control 2048 = 38480. 54000 leaves 15520,
	 * more than a quarter (13500): holding gets what remains. */
	snprintf(text, sizeof(text), cfg_4h1f, ", mbufs: 54000");
	CHECK_EQ(load(&cfg, text), 0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.hold, 16384);
	CHECK_EQ(b.need, 38480 + 16384);
	CHECK_EQ(b.hold_per_worker, 15520);
	CHECK(b.hold_cut);
	rtr_config_free(&cfg);
	/* The same config by formula: 54848 -> 65535, nothing cut. */
	snprintf(text, sizeof(text), cfg_4h1f, "");
	CHECK_EQ(load(&cfg, text), 0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.mbufs, 65535);
	CHECK_EQ(b.hold_per_worker, 16384);
	CHECK(!b.hold_cut);
	rtr_config_free(&cfg);
}

/* --telemetry-rw: the mode may change at runtime, the pool is sized for
 * the implemented mode that holds the most from the start. */
static void
test_rw(void)
{
	struct rtr_config cfg;
	struct rtr_budget b;

	printf("4. --telemetry-rw\n");
	CHECK_EQ(load_1h1f(&cfg, "ecmp", "", "", ""), 0);
	CHECK_EQ(budget(&cfg, 1, true, &b), 0);
	CHECK_EQ(b.hold, 4096);
	CHECK_EQ(b.need, 19952 + 4096);
	CHECK_STR(mode_name(&b), "conweave");
	CHECK(b.hold_key == NULL);
	CHECK_EQ(b.hold_per_worker, 4096);
	CHECK_EQ(budget(&cfg, 2, true, &b), 0);
	CHECK_EQ(b.hold_per_worker, 2048);
	rtr_config_free(&cfg);

	CHECK_EQ(load_1h1f(&cfg, "seqbalance", ", mbufs: 4095", "", "conweave: {}\n"), 0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK(b.hold_mode == NULL);
	CHECK_EQ(b.hold, 0);
	CHECK_EQ(b.hold_per_worker, 0);
	CHECK_EQ(budget(&cfg, 1, true, &b), 0);
	CHECK_EQ(b.hold, 4096);
	CHECK_EQ(b.hold_per_worker, 1023);
	CHECK(b.hold_cut);
	rtr_config_free(&cfg);

	/* spray (derived: 4096 for the one host port) would be the largest
	 * budget: held below conweave's, so this stays conweave's case. */
	CHECK_EQ(load_1h1f(&cfg, "caver", "", "",
				 "conweave: {hold_budget: 3000}\nspray: {hold_budget: 1000}\n"),
			0);
	CHECK_EQ(budget(&cfg, 2, true, &b), 0);
	CHECK_EQ(b.hold, 3000);
	CHECK_STR(b.hold_key, "conweave.hold_budget");
	CHECK_EQ(b.hold_per_worker, 1500);
	rtr_config_free(&cfg);

	/* spray: per host port min(windows_per_worker x window_slots, 4096),
	 * or spray.hold_budget. */
	CHECK_EQ(load_1h1f(&cfg, "spray", "", "", ""), 0);
	CHECK_EQ(budget(&cfg, 2, false, &b), 0);
	CHECK_STR(mode_name(&b), "spray");
	CHECK_EQ(b.hold, 4096);
	CHECK(b.hold_key == NULL);
	CHECK_EQ(b.hold_per_worker, 2048);
	rtr_config_free(&cfg);
	CHECK_EQ(load_1h1f(&cfg, "spray", "", "",
				 "spray: {window_slots: 8, windows_per_worker: 100}\n"),
			0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.hold, 800);
	rtr_config_free(&cfg);
	CHECK_EQ(load_1h1f(&cfg, "spray", "", "", "spray: {hold_budget: 1234}\n"), 0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.hold, 1234);
	CHECK_STR(b.hold_key, "spray.hold_budget");
	rtr_config_free(&cfg);

	/* A spine running a ToR-only mode still counts the mode's budget:
	 * no host port, so 0, and at least 1 per worker. */
	CHECK_EQ(load(&cfg, cfg_spine), 0);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.hold, 0);
	CHECK_STR(mode_name(&b), "conweave");
	CHECK_EQ(b.hold_per_worker, 1);
	CHECK_EQ(b.data_room, 128 + 9088);
	CHECK_EQ(b.need, 4096 + 5616 + 8192 + 2048);
	rtr_config_free(&cfg);
}

/*
 * Every MTU 68..9600: the buffer ice and i40e program (the room minus the
 * headroom rounded down to 128, their RX_MAX_DATA_BUF_SIZE at most) holds
 * the largest frame the device accepts at that MTU (their ETH_OVERHEAD:
 * header, CRC, two VLAN tags) and rocetor's own bound (4 bytes more), so
 * no frame is cut without scattered RX; the room is no larger than needed.
 */
static void
test_data_room(void)
{
	const unsigned int overhead = 14 + 4 + 2 * 4, max_buf = 16 * 1024 - 128;
	unsigned int bad = 0, big = 0;

	for (unsigned int mtu = 68; mtu <= 9600; mtu++) {
		unsigned int room = rtr_data_room(mtu);
		unsigned int buf = room - RTE_PKTMBUF_HEADROOM;
		unsigned int programmed = RTE_MIN(RTE_ALIGN_FLOOR(buf, 128u), max_buf);

		if (programmed < mtu + overhead + 4 || programmed != buf)
			bad++;
		if (buf >= 128 + RTE_MAX(2048u, mtu + overhead + 4))
			big++;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(big, 0);
	CHECK_EQ(rtr_data_room(1500), RTE_PKTMBUF_HEADROOM + 2048);
	CHECK_EQ(rtr_data_room(9000), RTE_PKTMBUF_HEADROOM + 9088);
	CHECK_EQ(rtr_data_room(4200), RTE_PKTMBUF_HEADROOM + 4352);
	/* A driver's extra headroom (af_xdp 256) is added to the room. */
	{
		struct rtr_config cfg;
		struct rtr_budget_in in;
		struct rtr_budget b;

		memset(&cfg, 0, sizeof(cfg));
		cfg.n_ports = 1;
		cfg.ports[0].mtu = 3000;
		cfg.sw.handoff_ring = 1024;
		memset(&in, 0, sizeof(in));
		in.workers = 1;
		in.rxq[0] = in.txq[0] = 1;
		CHECK_EQ(rtr_mbuf_budget(&cfg, &in, &b), 0);
		CHECK_EQ(b.data_room, rtr_data_room(3000));
		in.rx_headroom_extra = 256;
		CHECK_EQ(rtr_mbuf_budget(&cfg, &in, &b), 0);
		CHECK_EQ(b.data_room, rtr_data_room(3256));
		CHECK(b.data_room - RTE_PKTMBUF_HEADROOM - 256 >= 3000 + 26, "room %u",
				b.data_room);
	}
}

/* A socket map: workers' sockets, ports' sockets, main socket. */
static void
where_set(struct rtr_budget_where *wh, int main_socket, const int *ws, unsigned int nw,
		const int *ps, unsigned int np)
{
	memset(wh, 0, sizeof(*wh));
	wh->main_socket = main_socket;
	for (unsigned int w = 0; w < nw; w++)
		wh->worker_socket[w] = ws[w];
	for (unsigned int i = 0; i < np; i++)
		wh->port_socket[i] = ps[i];
}

static int
sockets(const struct rtr_config *cfg, unsigned int workers, bool rw,
		const struct rtr_budget_where *wh, struct rtr_budget *b,
		struct rtr_budget_sockets *bs)
{
	struct rtr_budget_in in;

	memset(&in, 0, sizeof(in));
	rtr_budget_queues(cfg, workers, &in);
	in.telemetry_rw = rw;
	if (rtr_mbuf_budget(cfg, &in, b) != 0)
		return -1;
	memset(bs, 0xa5, sizeof(*bs));
	return rtr_budget_sockets(cfg, &in, b, wh, bs);
}

/* The parts summed over the sockets are the single pool's parts. */
static void
check_sums(const struct rtr_budget *b, const struct rtr_budget_sockets *bs, const char *what)
{
	uint64_t rx = 0, tx = 0, wk = 0, eg = 0, hold = 0, ctl = 0, need = 0, mbufs = 0;

	for (int k = 0; k < RTR_BUDGET_MAX_SOCKETS; k++) {
		const struct rtr_budget_socket *s = &bs->s[k];

		rx += s->rx_desc;
		tx += s->tx_desc;
		wk += s->workers;
		eg += s->egress;
		hold += s->hold;
		ctl += s->control;
		need += s->need;
		mbufs += s->mbufs;
		CHECK(s->pool || s->need == 0, "%s: socket %d has a need without a pool", what, k);
		CHECK_EQ(s->total_bytes, s->mbuf_bytes + s->lb_bytes + s->egress_bytes +
							 s->ring_bytes + s->route_bytes);
		CHECK(s->route_bytes == 0 || k == bs->main_pool || !s->pool,
				"socket %d: route tables off the main socket", k);
	}
	CHECK(rx == b->rx_desc && tx == b->tx_desc && wk == b->workers && eg == b->egress &&
					hold == b->hold && ctl == b->control && need == b->need,
			"%s: parts summed over the sockets differ from the budget's", what);
	CHECK_EQ(mbufs, bs->pools_mbufs);
}

/* The budget split by socket (app/budget.c rtr_budget_sockets). */
static void
test_sockets(void)
{
	static const int zero[4] = {0, 0, 0, 0};
	struct rtr_budget_where wh;
	struct rtr_budget_sockets bs;
	struct rtr_config cfg;
	struct rtr_budget b;

	printf("5. the budget per socket\n");
	/* Everything on socket 0: one pool, the single pool's figures. */
	CHECK_EQ(load_1h1f(&cfg, "ecmp", "", "", ""), 0);
	where_set(&wh, 0, zero, 2, zero, 2);
	CHECK_EQ(sockets(&cfg, 2, false, &wh, &b, &bs), 0);
	CHECK_EQ(bs.n_pools, 1);
	CHECK_EQ(bs.main_pool, 0);
	CHECK(bs.s[0].used && bs.s[0].pool);
	CHECK(!bs.s[1].used && !bs.s[1].pool);
	CHECK_EQ(bs.s[0].mbufs, b.mbufs);
	CHECK_EQ(bs.s[0].need, b.need);
	CHECK_EQ(bs.pools_mbufs, 32767);
	CHECK_EQ(bs.s[0].n_ports, 2);
	CHECK_EQ(bs.s[0].n_workers, 2);
	CHECK_EQ(bs.s[0].mbuf_bytes, 32767ull * (128 + 2048 + 192));
	CHECK(bs.lb_mode == NULL);
	CHECK_EQ(bs.s[0].lb_bytes, 0);
	/* A worker's egress for 2 ports, pools of 32767: 8 class queues of
	 * 32768 slots (min(2 MiB / 60 + 1, mbufs), a power of two) and a wire
	 * of 256 slots (4 bursts and 32, rounded up) of 16 bytes per port,
	 * plus the structures (a few KiB). */
	CHECK(bs.egress_per_worker >= 2 * (8 * 32768 * 8 + 256 * 16) &&
					bs.egress_per_worker <
							2 * (8 * 32768 * 8 + 256 * 16) + 65536,
			"egress %llu", (unsigned long long)bs.egress_per_worker);
	/* The two LPM tables' tbl24s (64 MiB each) and more, on socket 0. */
	CHECK(bs.s[0].route_bytes > 128ull << 20 && bs.s[0].route_bytes < 140ull << 20,
			"routes %llu", (unsigned long long)bs.s[0].route_bytes);
	/* Routes that change at run time (FPM, --telemetry-rw): IPv6's second
	 * table, a tbl24 and its tbl8s (68 MiB) and its rules. */
	CHECK(rtr_route_memsize(true) - rtr_route_memsize(false) >= 68ull << 20 &&
					rtr_route_memsize(true) - rtr_route_memsize(false) <
							69ull << 20,
			"standby %llu",
			(unsigned long long)(rtr_route_memsize(true) - rtr_route_memsize(false)));
	CHECK_EQ(bs.s[0].egress_bytes, 2 * bs.egress_per_worker);
	/* Two hand-off rings of 4096 exact (8192 slots), two inject rings of
	 * 1024 and the control ring of 1024, 8 bytes a slot and a header. */
	CHECK(bs.s[0].ring_bytes >= (2 * 8192 + 3 * 1024) * 8ull &&
					bs.s[0].ring_bytes <
							(2 * 8192 + 3 * 1024) * 8ull + 5 * 4096,
			"rings %llu", (unsigned long long)bs.s[0].ring_bytes);
	check_sums(&b, &bs, "one socket");
	/* Virtual devices (any) and workers on any: the main socket's. */
	{
		static const int any[2] = {-1, -1};

		where_set(&wh, 0, any, 2, any, 2);
		CHECK_EQ(sockets(&cfg, 2, false, &wh, &b, &bs), 0);
		CHECK_EQ(bs.n_pools, 1);
		CHECK_EQ(bs.s[0].mbufs, b.mbufs);
		CHECK_EQ(bs.s[0].n_ports, 2);
	}

	/* Port 0 and worker 0 on socket 0, port 1 and worker 1 on socket 1:
	 * rx 2048 + tx 2048 + worker 5616 + egress 4096 each, control 2048 on
	 * the main socket: 15840 -> 16383 and 13792 -> 16383. */
	{
		static const int ws[2] = {0, 1}, ps[2] = {0, 1};

		where_set(&wh, 0, ws, 2, ps, 2);
		CHECK_EQ(sockets(&cfg, 2, false, &wh, &b, &bs), 0);
		CHECK_EQ(bs.n_pools, 2);
		CHECK_EQ(bs.s[0].rx_desc, 2048);
		CHECK_EQ(bs.s[1].tx_desc, 2048);
		CHECK_EQ(bs.s[0].workers, 5616);
		CHECK_EQ(bs.s[1].workers, 5616);
		CHECK_EQ(bs.s[1].egress, 4096);
		CHECK_EQ(bs.s[0].control, 2048);
		CHECK_EQ(bs.s[1].control, 0);
		CHECK_EQ(bs.s[0].need, 15856);
		CHECK_EQ(bs.s[1].need, 13808);
		CHECK_EQ(bs.s[0].mbufs, 16383);
		CHECK_EQ(bs.s[1].mbufs, 16383);
		CHECK_EQ(bs.pools_mbufs, 32766);
		CHECK_EQ(bs.s[1].egress_bytes, bs.egress_per_worker);
		check_sums(&b, &bs, "one port and one worker per socket");
	}

	/* Workers on socket 0 only, port 1 on socket 1: socket 1's pool has
	 * its descriptors and egress (8192 -> 16383), no worker share. */
	{
		static const int ps[2] = {0, 1};

		where_set(&wh, 0, zero, 2, ps, 2);
		CHECK_EQ(sockets(&cfg, 2, false, &wh, &b, &bs), 0);
		CHECK_EQ(bs.s[1].n_workers, 0);
		CHECK_EQ(bs.s[1].workers, 0);
		CHECK_EQ(bs.s[1].need, 2048 + 2048 + 4096);
		CHECK_EQ(bs.s[1].mbufs, 16383);
		CHECK_EQ(bs.s[0].workers, 2 * 5616);
		CHECK_EQ(bs.s[1].egress_bytes, 0);
		CHECK_EQ(bs.s[1].ring_bytes, 0);
		check_sums(&b, &bs, "workers on one socket");
	}

	/* The main lcore on socket 0, every port and worker on socket 1: the
	 * main pool is socket 1's, which takes the control share; socket 0
	 * has no pool but the control ring. */
	{
		static const int ones[2] = {1, 1};

		where_set(&wh, 0, ones, 2, ones, 2);
		CHECK_EQ(sockets(&cfg, 2, false, &wh, &b, &bs), 0);
		CHECK_EQ(bs.main_pool, 1);
		CHECK_EQ(bs.n_pools, 1);
		CHECK(bs.s[0].used && !bs.s[0].pool);
		CHECK_EQ(bs.s[0].mbufs, 0);
		CHECK_EQ(bs.s[1].control, 2048);
		CHECK_EQ(bs.s[1].mbufs, b.mbufs);
		CHECK(bs.s[0].ring_bytes > 1024 * 8 && bs.s[0].ring_bytes < 1024 * 8 + 4096,
				"control ring %llu", (unsigned long long)bs.s[0].ring_bytes);
		check_sums(&b, &bs, "main lcore away from the ports");
	}

	/* A socket out of range. */
	{
		static const int bad[2] = {0, RTR_BUDGET_MAX_SOCKETS};

		where_set(&wh, 0, zero, 2, bad, 2);
		CHECK_EQ(sockets(&cfg, 2, false, &wh, &b, &bs), -EINVAL);
	}
	rtr_config_free(&cfg);

	/* switch.mbufs 20000 split by the needs 15856 : 13808 of 29664
	 * (rounded up): 10691 + 9310. */
	CHECK_EQ(load_1h1f(&cfg, "ecmp", ", mbufs: 20000", "", ""), 0);
	{
		static const int ws[2] = {0, 1}, ps[2] = {0, 1};

		where_set(&wh, 0, ws, 2, ps, 2);
		CHECK_EQ(sockets(&cfg, 2, false, &wh, &b, &bs), 0);
		CHECK_EQ(bs.s[0].mbufs, 10691);
		CHECK_EQ(bs.s[1].mbufs, 9310);
		check_sums(&b, &bs, "switch.mbufs");
	}
	rtr_config_free(&cfg);

	/* ConWeave's hold (4096) split by the workers' sockets: 2048 each. */
	CHECK_EQ(load_1h1f(&cfg, "conweave", "", "", ""), 0);
	{
		static const int ws[2] = {0, 1}, ps[2] = {0, 1};

		where_set(&wh, 0, ws, 2, ps, 2);
		CHECK_EQ(sockets(&cfg, 2, false, &wh, &b, &bs), 0);
		CHECK_EQ(bs.s[0].hold, 2048);
		CHECK_EQ(bs.s[1].hold, 2048);
		check_sums(&b, &bs, "conweave hold");
	}
	rtr_config_free(&cfg);
}

/* The LB state (desc->state_bytes) per worker and shared, per socket. */
static void
test_lb_state(void)
{
	static const int zero[8] = {0}, ws[3] = {0, 1, 1};
	struct rtr_budget_where wh;
	struct rtr_budget_sockets bs;
	struct rtr_config cfg;
	struct rtr_budget b;
	uint64_t one_host, four_hosts, pool, ft1, ft2;
	char text[2048];

	printf("6. the LB state's memory\n");
	/* ConWeave, 4 rings of 100 per host port: the rings of one pool are
	 * at least 4 x 128 slots of 8 bytes; a worker's flow table of the
	 * default 65536 entries at least 64 bytes an entry. */
	CHECK_EQ(load_1h1f(&cfg, "conweave", "", "",
				 "conweave: {reorder_queues_per_port: 4, reorder_queue_depth: "
				 "100, flow_table_size: 65536}\n"),
			0);
	where_set(&wh, 0, zero, 1, zero, 2);
	CHECK_EQ(sockets(&cfg, 1, false, &wh, &b, &bs), 0);
	CHECK(bs.lb_mode != NULL);
	CHECK_STR(bs.lb_mode != NULL ? bs.lb_mode->name : NULL, "conweave");
	pool = rtr_pring_pool_memsize(4, 100);
	CHECK(pool >= 4 * 128 * 8 && pool < 4 * 128 * 8 + 4 * 4096, "pool %llu",
			(unsigned long long)pool);
	pool += 4 * 32; /* and each ring's hold state (struct cw_hold, 32 bytes) */
	one_host = bs.lb_per_worker;
	ft1 = one_host - pool;
	CHECK(ft1 >= 65536ull * 64 && ft1 <= 65536ull * 256, "flow table %llu",
			(unsigned long long)ft1);
	CHECK(bs.lb_shared > 0); /* the busy-path table */
	CHECK_EQ(bs.s[0].lb_bytes, one_host + bs.lb_shared);
	/* Two workers: each half the table (buckets and entries; the 64
	 * bytes of alignment slack stay). */
	where_set(&wh, 0, zero, 2, zero, 2);
	CHECK_EQ(sockets(&cfg, 2, false, &wh, &b, &bs), 0);
	ft2 = bs.lb_per_worker - pool;
	CHECK_EQ(ft2 * 2, ft1 + 64);
	rtr_config_free(&cfg);

	/* Four host ports: three ring pools more per worker. */
	snprintf(text, sizeof(text), cfg_4h1f,
			"}\nconweave: {reorder_queues_per_port: 4, reorder_queue_depth: 100, "
			"flow_table_size: 65536");
	CHECK_EQ(load(&cfg, text), 0);
	where_set(&wh, 0, zero, 1, zero, 5);
	CHECK_EQ(sockets(&cfg, 1, false, &wh, &b, &bs), 0);
	four_hosts = bs.lb_per_worker;
	CHECK_EQ(four_hosts - one_host, 3 * pool);
	/* Workers 0 on socket 0, 1 and 2 on socket 1: per-worker state where
	 * the workers are, the shared state on the main socket. */
	where_set(&wh, 0, ws, 3, zero, 5);
	CHECK_EQ(sockets(&cfg, 3, false, &wh, &b, &bs), 0);
	CHECK_EQ(bs.s[0].lb_bytes, bs.lb_per_worker + bs.lb_shared);
	CHECK_EQ(bs.s[1].lb_bytes, 2 * bs.lb_per_worker);
	CHECK_EQ(bs.s[1].egress_bytes, 2 * bs.egress_per_worker);
	/* Hold 4 x 400 split by workers: 533 each, the remainder (1) on the
	 * main pool's socket; socket 1 has no port, so its workers' shares
	 * are counted in the main pool too. */
	CHECK_EQ(bs.n_pools, 1);
	CHECK_EQ(bs.s[0].hold, 1600);
	CHECK_EQ(bs.s[1].hold, 0);
	check_sums(&b, &bs, "conweave, workers on two sockets");
	rtr_config_free(&cfg);

	/* ECMP holds and keeps nothing; with --telemetry-rw the largest
	 * implemented mode's state is counted. */
	CHECK_EQ(load_1h1f(&cfg, "ecmp", "", "", ""), 0);
	where_set(&wh, 0, zero, 1, zero, 2);
	CHECK_EQ(sockets(&cfg, 1, false, &wh, &b, &bs), 0);
	CHECK(bs.lb_mode == NULL);
	CHECK_EQ(bs.lb_per_worker + bs.lb_shared, 0);
	CHECK_EQ(sockets(&cfg, 1, true, &wh, &b, &bs), 0);
	CHECK(bs.lb_mode != NULL && bs.lb_per_worker > 0);
	/* Every implemented stateful mode reports a flow table. */
	for (unsigned int id = 0; id < rtr_lb_mode_count(); id++) {
		const struct rtr_lb_desc *d = rtr_lb_mode_at(id);
		uint64_t pw = 0, sh = 0;

		if (d->ops == NULL || d->ops->table == NULL)
			continue;
		CHECK(d->state_bytes != NULL, "%s has no state_bytes", d->name);
		if (d->state_bytes == NULL)
			continue;
		d->state_bytes(&cfg, 1, &pw, &sh);
		CHECK(pw >= 1024ull * 64, "%s: %llu bytes per worker", d->name,
				(unsigned long long)pw);
	}
	rtr_config_free(&cfg);
}

/* The shared buffer (qos.buffer.mode shared): the egress part is the pool in
 * cells (lib/egress counts each packet as at least one), split between the
 * ports, not the class queues' queue_kb. */
static void
test_shared_buffer(void)
{
	struct rtr_config cfg;
	struct rtr_budget b;

	printf("7. shared buffer\n");
	/* 9 MB of 256-byte cells (auto): 36864 mbufs, 18432 per port; the
	 * static part was 8192 (4096 per port). */
	CHECK_EQ(load_1h1f(&cfg, "ecmp", "", "", "qos:\n  buffer: {mode: shared, size_kb: 9216}\n"),
			0);
	CHECK_EQ(cfg.qos.buffer.cell_bytes, 0);
	CHECK_EQ(rtr_budget_cell(&cfg), RTR_BUFFER_CELL_AUTO);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.egress, 9216 * 1024 / 256);
	CHECK_EQ(b.need, 19952 - 8192 + 36864);
	CHECK_EQ(b.mbufs, 65535);
	rtr_config_free(&cfg);
	/* A cell of 1500 (the pool of full-size frames): 6292 mbufs, rounded
	 * up per port (3146 each); a 100 us delay line adds as before. */
	CHECK_EQ(load_1h1f(&cfg, "ecmp", "", ", speed_gbps: 100, delay_us: 100",
				 "qos:\n  buffer: {mode: shared, size_kb: 9216, cell_bytes: "
				 "1500}\n"),
			0);
	CHECK_EQ(rtr_budget_cell(&cfg), 1500);
	CHECK_EQ(budget(&cfg, 1, false, &b), 0);
	CHECK_EQ(b.egress, 2 * 3146 + 1220);
	rtr_config_free(&cfg);
}

int
main(void)
{
	test_data_room();
	test_ecmp();
	test_conweave();
	test_cut();
	test_rw();
	test_sockets();
	test_lb_state();
	test_shared_buffer();
	return rtr_test_done("budget");
}
