/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The simulated RDMA hosts (sim_host.h) on a 4x2x4 leaf-spine of rocetor
 * switches at 100G with 1 us links, with the papers' qos (RoCE DSCP 26 in
 * class 3 with RED at Kmin 100 KB, Kmax 400 KB, Pmax 0.2; ACKs, NACKs and
 * CNPs in the control class).
 */

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "rtr_egress.h"
#include "rtr_lb.h"
#include "rtr_test.h"
#include "sim_host.h"
#include "sim_net.h"

#define DELAY_NS 1000
#define WIRE_OH  RTR_EG_FRAME_OVERHEAD
#define HDR      (14 + 20 + 8 + 12 + 4) /* Ethernet, IPv4, UDP, BTH, ICRC */

static const char QOS[] =
		"qos:\n  classes: 8\n  dscp: [{dscp: 26, class: 3}, {dscp: 48, class: 7}]\n"
		"  queue_kb: 4096\n  ecn: {enabled: true, kmin_kb: 100, kmax_kb: 400, pmax: 0.2}";

#define MAX_FLOWS 16

struct rec {
	uint64_t n;
	uint64_t hash; /* over (id, end) of every flow, in end order */
	uint64_t last_end_ns;
	struct sim_flow f[MAX_FLOWS];
};

static void
on_done(void *arg, const struct sim_flow *f)
{
	struct rec *r = arg;

	if (f->id < MAX_FLOWS)
		r->f[f->id] = *f;
	r->n++;
	r->last_end_ns = f->end_ns;
	r->hash = (r->hash ^ f->id) * 0x100000001b3ULL;
	r->hash = (r->hash ^ f->end_ns) * 0x100000001b3ULL;
}

struct world {
	struct sim_topo t;
	struct sim_net net;
	struct sim_hosts *h;
	struct rec rec;
};

static int
world_up_lb(struct world *w, const char *prefix, const char *sections, const char *lb,
		const struct sim_host_cfg *c)
{
	struct sim_leafspine p = {.tors = 4,
			.spines = 2,
			.hosts_per_tor = 4,
			.host_gbps = 100,
			.link_delay_ns = DELAY_NS,
			.sections = sections,
			.lb = lb};
	char err[256];

	memset(w, 0, sizeof(*w));
	if (sim_topo_leafspine(&w->t, &p, prefix, err, sizeof(err)) != 0 ||
			sim_net_init(&w->net, &w->t, WIRE_OH, err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		return -1;
	}
	w->h = sim_hosts_create(&w->net, c, on_done, &w->rec);
	CHECK(w->h != NULL, "sim_hosts_create");
	return w->h == NULL ? -1 : 0;
}

static int
world_up(struct world *w, const char *prefix, const char *sections, const struct sim_host_cfg *c)
{
	return world_up_lb(w, prefix, sections, NULL, c);
}

static void
world_down(struct world *w)
{
	sim_hosts_free(w->h);
	sim_net_fini(&w->net);
	CHECK_EQ(w->net.pkts_live, 0);
	sim_topo_free(&w->t);
}

/* The artifact's ideal FCT with our frames: base RTT + every byte on the
 * wire (payload, our headers and the wire overhead per packet) at 100G. */
static double
ideal_ns(uint64_t size, double base_rtt)
{
	uint64_t pkts = (size + 999) / 1000;

	return base_rtt + (double)(size + pkts * (HDR + WIRE_OH)) * 8 / 100;
}

/* A lone 1 MB flow across the fabric (4 links), DCQCN on: it never sees a
 * mark (no queue), so it runs at line rate and ends within 1% of the ideal.
 * By hand: 1000 frames of 1058 B (1082 on the wire, 86.56 ns at 100G) leave
 * back to back; the last arrives 3 serializations and 4 delays after it
 * left; its ACK (62 B, 86 on the wire, 6.88 ns per link) takes 4 x 6.88 +
 * 4 us back: 86,560 + 259.68 + 4,000 + 27.52 + 4,000 = 94,847.2 ns. The
 * ideal is 8,320 + 1,082,000 x 8 / 100 = 94,880 ns. */
static void
test_lone(void)
{
	struct sim_host_cfg c;
	struct world w;
	struct sim_host_stats st;
	double ideal, rtt;
	uint64_t fct;

	sim_host_cfg_default(&c, SIM_TR_GBN);
	if (world_up(&w, "lone_", QOS, &c) != 0)
		return;
	rtt = (double)sim_hosts_base_rtt_ns(&w.t, 0, 15, 1000);
	CHECK_EQ(rtt, 8320);
	CHECK_EQ(sim_hosts_base_rtt_ns(&w.t, 12, 15, 1000), 4160);
	CHECK_EQ(sim_hosts_start(w.h, 0, 15, 1000000), 0);
	CHECK_EQ(sim_hosts_active(w.h), 1);
	sim_run(&w.net.sim, 10 * 1000 * 1000);
	CHECK_EQ(w.rec.n, 1);
	CHECK_EQ(sim_hosts_active(w.h), 0);
	fct = w.rec.f[0].end_ns - w.rec.f[0].start_ns;
	ideal = ideal_ns(1000000, rtt);
	CHECK(fabs((double)fct - ideal) <= 0.01 * ideal, "FCT %llu, ideal %.1f",
			(unsigned long long)fct, ideal);
	CHECK(fabs((double)fct - 94847.2) <= 5, "FCT %llu, by hand 94847.2",
			(unsigned long long)fct);
	sim_hosts_stats(w.h, &st);
	CHECK_EQ(st.data_sent, 1000);
	CHECK_EQ(st.data_rcvd, 1000);
	CHECK_EQ(st.acks_sent, 1000);
	CHECK_EQ(st.nacks_sent, 0);
	CHECK_EQ(st.data_retx, 0);
	CHECK_EQ(st.bytes_acked, 1000000);
	CHECK_EQ(w.rec.f[0].pkts_sent, 1000);
	CHECK_EQ(w.net.tx_late, 0);
	printf("lone 1 MB flow: FCT %llu ns, ideal %.0f ns (%.3f%%), %llu ACKs\n",
			(unsigned long long)fct, ideal, 100.0 * ((double)fct - ideal) / ideal,
			(unsigned long long)st.acks_sent);
	world_down(&w);

	/* An ACK per 4 packets: 250 ACKs, the last at the last packet; the
	 * FCT as before (the last ACK is still the last packet's). */
	sim_host_cfg_default(&c, SIM_TR_GBN);
	c.ack_every = 4;
	if (world_up(&w, "lone4_", QOS, &c) != 0)
		return;
	sim_hosts_start(w.h, 0, 15, 1000000);
	sim_run(&w.net.sim, 10 * 1000 * 1000);
	sim_hosts_stats(w.h, &st);
	CHECK_EQ(w.rec.n, 1);
	CHECK_EQ(st.acks_sent, 250);
	CHECK(fabs((double)(w.rec.f[0].end_ns - w.rec.f[0].start_ns) - 94847.2) <= 5, "FCT %llu",
			(unsigned long long)(w.rec.f[0].end_ns - w.rec.f[0].start_ns));
	world_down(&w);

	/* A 1-byte message (SEND_ONLY, a 59 B frame, 83 on the wire: 6.64 ns
	 * a link) and a 2,500 B one (3 packets, the last of 500 B): by hand
	 * 4 x 6.64 + 4,000 + 4 x 6.88 + 4,000 = 8,054.08 ns, below the
	 * artifact's ideal (8,320 + 83 x 8 / 100 = 8,326.64: its base RTT
	 * counts a full packet per link), and 8,506.88 ns: frames of 1082,
	 * 1082 and 582 B on the wire; the short last one queues behind the
	 * second at every switch, so it ends each link 46.56 ns after that one,
	 * which ends the first link at 173.12 and each next 86.56 later:
	 * 173.12 + 3 x 86.56 + 46.56 + 4 x 1,000, then the ACK's 4,027.52. */
	sim_host_cfg_default(&c, SIM_TR_GBN);
	if (world_up(&w, "small_", QOS, &c) != 0)
		return;
	sim_hosts_start(w.h, 0, 15, 1);
	sim_run(&w.net.sim, 1000000);
	sim_hosts_start(w.h, 0, 15, 2500);
	sim_run(&w.net.sim, 2000000);
	sim_hosts_stats(w.h, &st);
	CHECK_EQ(w.rec.n, 2);
	CHECK_EQ(st.bytes_acked, 2501);
	CHECK_EQ(st.data_sent, 4);
	CHECK(fabs((double)(w.rec.f[0].end_ns - w.rec.f[0].start_ns) - 8054.08) <= 5, "FCT %llu",
			(unsigned long long)(w.rec.f[0].end_ns - w.rec.f[0].start_ns));
	CHECK(fabs((double)(w.rec.f[1].end_ns - w.rec.f[1].start_ns) - 8506.88) <= 5, "FCT %llu",
			(unsigned long long)(w.rec.f[1].end_ns - w.rec.f[1].start_ns));
	printf("1 B flow: FCT %llu ns (by hand 8054.08); 2500 B: %llu ns (8506.88)\n",
			(unsigned long long)(w.rec.f[0].end_ns - w.rec.f[0].start_ns),
			(unsigned long long)(w.rec.f[1].end_ns - w.rec.f[1].start_ns));
	world_down(&w);
}

/* Data bytes (payload) each flow delivered in [from_ns, to_ns): the test
 * sits between sim_net and the hosts. */
struct meter {
	sim_host_rx_fn rx;
	void *arg;
	uint64_t from_ns, to_ns;
	uint64_t bytes[MAX_FLOWS];
	uint64_t data[MAX_FLOWS]; /* data frames, whenever */
	int64_t drop_psn;         /* flow 0's first frame of this PSN is lost (-1: none) */
	uint64_t dropped;
	uint64_t psn_seen[4];      /* flow 0: arrivals of PSNs drop_psn .. +3 */
	uint64_t ms[2][100];       /* flows 0 and 1: payload bytes per ms */
	uint8_t sport_seen[65536]; /* flow 0's data frames' UDP source ports */
	uint64_t sports;           /* distinct ones */
};

static struct meter meter;

static void
meter_rx(struct sim_net *net, uint32_t host, struct sim_pkt *p)
{
	const uint8_t *bth = sim_pkt_data(p) + 42;

	if (bth[0] != 0x11 && bth[0] != 0x81 && p->flow < MAX_FLOWS) {
		int64_t psn = bth[9] << 16 | bth[10] << 8 | bth[11];

		if (p->flow == 0 && meter.drop_psn >= 0 && psn >= meter.drop_psn &&
				psn < meter.drop_psn + 4 &&
				meter.psn_seen[psn - meter.drop_psn]++ == 0 &&
				psn == meter.drop_psn) {
			/* Lost on the last link: the receiver never sees it. */
			meter.dropped++;
			sim_pkt_free(net, p);
			return;
		}
		meter.data[p->flow]++;
		if (p->flow == 0) {
			uint16_t sp = (uint16_t)(sim_pkt_data(p)[34] << 8 | sim_pkt_data(p)[35]);

			meter.sports += meter.sport_seen[sp]++ == 0;
		}
		if (p->flow < 2 && net->sim.now_ns < 100000000)
			meter.ms[p->flow][net->sim.now_ns / 1000000] += p->mb.pkt_len - HDR;
		if (net->sim.now_ns >= meter.from_ns && net->sim.now_ns < meter.to_ns)
			meter.bytes[p->flow] += p->mb.pkt_len - HDR;
	}
	meter.rx(net, host, p);
}

static void
meter_on(struct world *w, uint64_t from_ns, uint64_t to_ns)
{
	memset(&meter, 0, sizeof(meter));
	meter.rx = w->net.host_rx;
	meter.from_ns = from_ns;
	meter.to_ns = to_ns;
	meter.drop_psn = -1;
	w->net.host_rx = meter_rx;
}

static void
ev_start(struct sim *s, void *arg, uint64_t u)
{
	(void)s;
	sim_hosts_start(arg, (uint32_t)(u >> 32), (uint32_t)(u & 0xffffffff), 1ull << 32);
}

/* Two flows into one host (h0 and h4, behind ToRs 0 and 1, to h15 behind
 * ToR 3): the last link is the bottleneck. B starts 100 us after A, which
 * then has the link to itself at 100G; under DCQCN both must come to half
 * the link. Measured: the payload bytes each delivered in 10-20 ms of a 20
 * ms run, as a rate, within 15% of 50 Gb/s x the payload share of a frame
 * on the wire (1000 of 1082 bytes); the sum near the link's. (With the
 * artifact's DCQCN parameters convergence from an unequal start is slow:
 * B starting 1 ms after A gives 39.6 / 52.2 Gb/s over 30-40 ms and 42 / 49
 * at 90 ms, doc/simulator.md.) */
static void
test_fair(void)
{
	struct sim_host_cfg c;
	struct world w;
	struct sim_host_stats st;
	double share = 100.0 / 2 * 1000 / (1000 + HDR + WIRE_OH), ga, gb;

	sim_host_cfg_default(&c, SIM_TR_GBN);
	if (world_up(&w, "fair_", QOS, &c) != 0)
		return;
	meter_on(&w, 10000000, 20000000);
	sim_at(&w.net.sim, 0, ev_start, w.h, 0ull << 32 | 15);
	sim_at(&w.net.sim, 100000, ev_start, w.h, 4ull << 32 | 15);
	sim_run(&w.net.sim, 20000000);
	for (int k = 0; k < 20; k += 2)
		printf("  %2d ms: %5.2f %5.2f Gb/s\n", k, meter.ms[0][k] * 8e-6,
				meter.ms[1][k] * 8e-6);
	ga = meter.bytes[0] * 8.0 / 10e6; /* bytes in 10 ms, as Gb/s */
	gb = meter.bytes[1] * 8.0 / 10e6;
	sim_hosts_stats(w.h, &st);
	printf("two flows, one bottleneck: %.2f and %.2f Gb/s of payload over 10-20 ms (fair: "
	       "%.2f); %llu CNPs, %llu ECN marks seen, %llu drops\n",
			ga, gb, share, (unsigned long long)st.cnps_rcvd,
			(unsigned long long)st.ce_rcvd,
			(unsigned long long)sim_net_drops(&w.net, -1));
	CHECK(fabs(ga - share) <= 0.15 * share, "flow A %.2f Gb/s, fair %.2f", ga, share);
	CHECK(fabs(gb - share) <= 0.15 * share, "flow B %.2f Gb/s, fair %.2f", gb, share);
	CHECK(ga + gb >= 0.9 * 2 * share, "the link is used: %.2f of %.2f", ga + gb, 2 * share);
	CHECK(st.cnps_rcvd > 0, "no CNP");
	CHECK_EQ(sim_net_drops(&w.net, -1), 0);
	world_down(&w);
}

/*
 * One data packet lost (PSN K of a lone 1 MB flow across the fabric, DCQCN
 * off so the rate stays at line and the times can be computed by hand).
 * S = 86.56 ns per data frame, A = 4,027.52 ns for a 62 B ACK/NACK to cross
 * 4 links. PSN i leaves at i x S and arrives (4 serializations, 4 delays)
 * at (i + 4) S + 4,000. K+1 arrives at t1 = (K + 5) S + 4,000: the NACK
 * reaches the sender at T1 = t1 + A = (K + 97.74) S, while PSN K+97 is on
 * the wire; the sender finishes it and goes back to K. Retransmitted: K ..
 * K+97, 98 packets, all while the link stays busy: the flow ends 98 S
 * (8,482.9 ns) later, one go-back-N round. That is with one NACK per gap
 * (nack_interval 0, as the IB spec's responder: no new NAK until the
 * expected PSN comes). The model (NACKGenerationInterval 4 us) NACKs again
 * at the first out-of-order arrival 4 us after the last NACK: at t1, t1 +
 * 47 S and t1 + 94 S (47 S >= 4,000 ns), while the originals K+2 .. K+97
 * arrive (until t1 + 96 S). Each NACK reaches the sender 47 S after the
 * one before, before the ACK of the first resent K (at (K + 194.74) S), so
 * each rewinds to K: two rounds cut after K .. K+46 (47 packets each), the
 * last one whole, K .. K+97 (98): 192 packets, 192 S later.
 * IRN resends K alone, on the first NACK, at (K + 98) S; one NACK per
 * out-of-order arrival (K+1 .. K+97: 97; the resent K comes right after
 * K+97). Its window (104 packets, the BDP) lets K+98 .. K+103 out and then
 * holds the sender until the ACK of K (cumulative to K+97) comes back at
 * (K + 102) S + 4,000 + A = (K + 194.74) S: PSN K+104 leaves 90.74 S
 * (7,854.5 ns) later than without the loss, and the window (98 packets
 * ahead, more than an RTT's 96.74) never holds it again.
 */
static void
test_drop(void)
{
	static const struct {
		enum sim_transport tr;
		uint64_t nack_ns;
		uint64_t retx;
		uint64_t nacks;
		double extra_s; /* FCT later by this many S */
	} runs[3] = {{SIM_TR_GBN, 0, 98, 1, 98}, {SIM_TR_GBN, 4000, 192, 3, 192},
			{SIM_TR_IRN, 0, 1, 97, 90.74}};
	const double S = (1000 + HDR + WIRE_OH) * 8 / 100.0;
	const uint32_t K = 500;
	uint64_t base_fct = 0;

	for (int i = -1; i < 3; i++) {
		struct sim_host_cfg c;
		struct world w;
		struct sim_host_stats st;
		char prefix[32];
		uint64_t fct;

		sim_host_cfg_default(&c, i < 0 ? SIM_TR_GBN : runs[i].tr);
		c.dcqcn.enabled = false;
		if (i >= 0)
			c.nack_interval_ns = runs[i].nack_ns;
		snprintf(prefix, sizeof(prefix), "drop%d_", i + 1);
		if (world_up(&w, prefix, QOS, &c) != 0)
			return;
		meter_on(&w, 0, 0);
		meter.drop_psn = i < 0 ? -1 : (int64_t)K;
		sim_hosts_start(w.h, 0, 15, 1000000);
		sim_run(&w.net.sim, 100 * 1000 * 1000);
		sim_hosts_stats(w.h, &st);
		CHECK_EQ(w.rec.n, 1);
		fct = w.rec.f[0].end_ns - w.rec.f[0].start_ns;
		if (i < 0) {
			base_fct = fct;
			CHECK_EQ(st.data_retx, 0);
			world_down(&w);
			continue;
		}
		printf("drop of PSN %u, %s, NACK interval %llu ns: %llu retransmitted, %llu NACKs, "
		       "FCT %llu ns (%+lld ns, %.1f S)\n",
				K, runs[i].tr == SIM_TR_IRN ? "IRN" : "GBN",
				(unsigned long long)runs[i].nack_ns,
				(unsigned long long)st.data_retx, (unsigned long long)st.nacks_sent,
				(unsigned long long)fct, (long long)(fct - base_fct),
				(double)(fct - base_fct) / S);
		CHECK_EQ(meter.dropped, 1);
		CHECK_EQ(st.data_retx, runs[i].retx);
		CHECK_EQ(w.rec.f[0].pkts_retx, runs[i].retx);
		CHECK_EQ(st.timeouts, 0);
		/* Every data packet sent arrived, but the one lost. */
		CHECK_EQ(st.data_sent, meter.data[0] + meter.dropped);
		CHECK_EQ(st.data_sent, 1000 + runs[i].retx);
		CHECK_EQ(st.nacks_sent, runs[i].nacks);
		/* Rounding to whole ns at a few events. */
		CHECK(fabs((double)(fct - base_fct) - runs[i].extra_s * S) <= 8,
				"%lld ns later, %.2f x S = %.1f", (long long)(fct - base_fct),
				runs[i].extra_s, runs[i].extra_s * S);
		if (runs[i].tr == SIM_TR_IRN) {
			/* PSN K arrived twice (lost, resent), K+1 once. */
			CHECK_EQ(meter.psn_seen[0], 2);
			CHECK_EQ(meter.psn_seen[1], 1);
		}
		world_down(&w);
	}
}

/* A packet lost at the tail (the last PSN): no later packet makes a NACK,
 * the retransmission timer does. From the ACK of PSN 998 on (at 1,002 S +
 * 8,027.52 ns, the last event that restarted the timer) the sender waits
 * the timeout, resends PSN 999 and has its ACK 4 S + 4,000 + A later:
 * FCT = 1,006 S + 16,055.04 + RTO. Go-back-N's RTO is 4 ms; IRN's is the
 * low one (454 us), one packet being in flight. */
static void
test_tail_loss(void)
{
	const double S = (1000 + HDR + WIRE_OH) * 8 / 100.0;

	for (int i = 0; i < 2; i++) {
		struct sim_host_cfg c;
		struct world w;
		struct sim_host_stats st;
		char prefix[32];
		double want;
		uint64_t fct;

		sim_host_cfg_default(&c, i ? SIM_TR_IRN : SIM_TR_GBN);
		c.dcqcn.enabled = false;
		snprintf(prefix, sizeof(prefix), "tail%d_", i);
		if (world_up(&w, prefix, QOS, &c) != 0)
			return;
		meter_on(&w, 0, 0);
		meter.drop_psn = 999;
		sim_hosts_start(w.h, 0, 15, 1000000);
		sim_run(&w.net.sim, 100 * 1000 * 1000);
		sim_hosts_stats(w.h, &st);
		CHECK_EQ(w.rec.n, 1);
		fct = w.rec.f[0].end_ns - w.rec.f[0].start_ns;
		want = 1006 * S + 16055.04 + (double)(i ? c.irn_rto_low_ns : c.rto_ns);
		printf("tail loss, %s: FCT %llu ns, by hand %.1f; %llu timeouts, %llu resent\n",
				i ? "IRN" : "GBN", (unsigned long long)fct, want,
				(unsigned long long)st.timeouts, (unsigned long long)st.data_retx);
		/* Events are at whole ns (rounded up): up to 1 ns per link
		 * crossed from the ACK of PSN 998 on (12 links). */
		CHECK(fabs((double)fct - want) <= 12, "FCT %llu, by hand %.1f",
				(unsigned long long)fct, want);
		CHECK_EQ(st.timeouts, 1);
		CHECK_EQ(st.data_retx, 1);
		CHECK_EQ(st.nacks_sent, 0);
		world_down(&w);
	}
}

/* The lone flow through each LB mode (switch.lb; ToR-only modes run ECMP
 * on the spines): the hosts' frames are ones the modes take as RoCE data
 * and ACKs. CAVER adds its shim to every ACK leaving the receiver's ToR
 * (and strips it before the sender); ConWeave's 4-byte header on every data
 * packet costs 1000 x 32 bits at 100G = 320 ns. Each within 1% of the
 * ideal, nothing dropped. */
static void
test_modes(void)
{
	static const char *const modes[] = {"ecmp", "conweave", "seqbalance", "caver"};

	for (unsigned int i = 0; i < 4; i++) {
		struct sim_host_cfg c;
		struct world w;
		struct sim_host_stats st;
		char prefix[32];
		double ideal = ideal_ns(1000000, 8320);
		uint64_t fct;

		sim_host_cfg_default(&c, SIM_TR_GBN);
		snprintf(prefix, sizeof(prefix), "m%s_", modes[i]);
		if (world_up_lb(&w, prefix, QOS, modes[i], &c) != 0)
			return;
		sim_hosts_start(w.h, 0, 15, 1000000);
		sim_run(&w.net.sim, 10 * 1000 * 1000);
		sim_hosts_stats(w.h, &st);
		CHECK_EQ(w.rec.n, 1);
		fct = w.rec.f[0].end_ns - w.rec.f[0].start_ns;
		printf("%s: lone 1 MB flow FCT %llu ns (ideal %.0f), %llu ACKs, CAVER shims added "
		       "%llu\n",
				modes[i], (unsigned long long)fct, ideal,
				(unsigned long long)st.acks_sent,
				(unsigned long long)w.net.st[w.t.first_tor + 3]
						.lb[RTR_LBC_caver_shims_added]);
		CHECK(fabs((double)fct - ideal) <= 0.01 * ideal, "%s: FCT %llu, ideal %.0f",
				modes[i], (unsigned long long)fct, ideal);
		CHECK_EQ(sim_net_drops(&w.net, -1), 0);
		CHECK_EQ(st.data_retx, 0);
		CHECK_EQ(st.ctl_rcvd, st.acks_sent);
		if (i == 3)
			CHECK_EQ(w.net.st[w.t.first_tor + 3].lb[RTR_LBC_caver_shims_added], 1000);
		world_down(&w);
	}
}

/* SeqBalance's Shaper: one 1 MB flow over 4 QPs (250 KB each, their own
 * UDP source ports), done once, when the last QP is: 1000 packets as one
 * QP would send, the NIC taking the QPs in turn, so the same FCT within 1%.
 * REPS: a fresh source port per packet (uniform over 16,384: about 970 of
 * 1000 distinct, 1 - e^(-1000/16384) of them), over both spines. */
static void
test_shaper_reps(void)
{
	for (int i = 0; i < 2; i++) {
		struct sim_host_cfg c;
		struct world w;
		struct sim_host_stats st;
		char prefix[32];
		double ideal = ideal_ns(1000000, 8320);
		uint64_t fct, up0, up1;

		sim_host_cfg_default(&c, SIM_TR_GBN);
		if (i == 0)
			c.qps_per_flow = 4;
		else
			c.reps = true;
		snprintf(prefix, sizeof(prefix), "shaper%d_", i);
		if (world_up(&w, prefix, QOS, &c) != 0)
			return;
		meter_on(&w, 0, 0);
		sim_hosts_start(w.h, 0, 15, 1000000);
		sim_run(&w.net.sim, 10 * 1000 * 1000);
		sim_hosts_stats(w.h, &st);
		CHECK_EQ(w.rec.n, 1);
		fct = w.rec.f[0].end_ns - w.rec.f[0].start_ns;
		up0 = w.net.tx[w.t.first_tor][4].tx_pkts;
		up1 = w.net.tx[w.t.first_tor][5].tx_pkts;
		printf("%s: FCT %llu ns (ideal %.0f), %u QPs, %llu source ports, uplinks %llu / "
		       "%llu "
		       "frames\n",
				i ? "REPS" : "Shaper x4", (unsigned long long)fct, ideal,
				w.rec.f[0].n_qps, (unsigned long long)meter.sports,
				(unsigned long long)up0, (unsigned long long)up1);
		CHECK(fabs((double)fct - ideal) <= 0.01 * ideal, "FCT %llu, ideal %.0f",
				(unsigned long long)fct, ideal);
		CHECK_EQ(w.rec.f[0].pkts_sent, 1000);
		CHECK_EQ(st.flows_done, 1);
		CHECK(up0 > 0 && up1 > 0, "one spine only");
		if (i == 0) {
			CHECK_EQ(w.rec.f[0].n_qps, 4);
			CHECK_EQ(meter.sports, 4);
		} else {
			CHECK_EQ(w.rec.f[0].n_qps, 1);
			CHECK(meter.sports > 940 && meter.sports <= 1000, "%llu ports",
					(unsigned long long)meter.sports);
		}
		world_down(&w);
	}
}

/* The Shaper splits whole packets: messages of 53 B, 2,500 B and 4,001 B
 * on 4 QPs, counted by hand: 53 B is one packet, one QP; 2,500 B is 3 packets (1000, 1000, 500) on 3 QPs;
 * 4,001 B is 5 packets on 4 QPs (2, 1, 1, 1 packets: 2000, 1000, 1000, 1
 * bytes). Before, bytes were split evenly (4 QPs of 13-14 bytes for 53 B:
 * 4 packets, each with the full header). Every flow finishes with exactly
 * its packets sent and no retransmission. */
static void
test_shaper_short(void)
{
	static const uint64_t size[] = {53, 2500, 4001};
	static const uint32_t qps[] = {1, 3, 4};
	static const uint64_t pkts[] = {1, 3, 5};
	struct sim_host_cfg c;
	struct world w;
	struct sim_host_stats st;

	sim_host_cfg_default(&c, SIM_TR_GBN);
	c.qps_per_flow = 4;
	if (world_up(&w, "shaper_short_", QOS, &c) != 0)
		return;
	for (int i = 0; i < 3; i++) {
		sim_hosts_start(w.h, 0, 15, size[i]);
		sim_run(&w.net.sim, w.net.sim.now_ns + 1000 * 1000);
		CHECK_EQ(w.rec.n, (uint64_t)i + 1);
		CHECK_EQ(w.rec.f[i].size, size[i]);
		CHECK_EQ(w.rec.f[i].n_qps, qps[i]);
		CHECK_EQ(w.rec.f[i].pkts_sent, pkts[i]);
		CHECK_EQ(w.rec.f[i].pkts_retx, 0);
	}
	sim_hosts_stats(w.h, &st);
	CHECK_EQ(st.data_sent, 1 + 3 + 5);
	CHECK_EQ(st.bytes_acked, 53 + 2500 + 4001);
	world_down(&w);
}

/* A mixed run: a 15:1 incast of 200 KB flows into h15, and every host
 * sending 500 KB to the host 6 after it (through the fabric, some sharing
 * links with the incast), all at t = 0, with 256 KB class queues. Go-back-N
 * with PFC on class 3 (xoff 32 KB, xon 16 KB): nothing dropped, PFC frames
 * reached the hosts, and ACKs left hosts whose data class was paused. IRN
 * without PFC: the incast drops packets, every flow still finishes. In both:
 * every frame a host sent (data, ACK, NACK, CNP) reached a host or was
 * dropped and counted by a switch; every flow finished; no buffer left;
 * and the same run twice ends every flow at the same nanosecond. */
static const char QOS_SMALL[] =
		"qos:\n  classes: 8\n  dscp: [{dscp: 26, class: 3}, {dscp: 48, class: 7}]\n"
		"  queue_kb: 256\n  ecn: {enabled: true, kmin_kb: 100, kmax_kb: 400, pmax: 0.2}";
static const char QOS_SMALL_PFC[] =
		"qos:\n  classes: 8\n  dscp: [{dscp: 26, class: 3}, {dscp: 48, class: 7}]\n"
		"  queue_kb: 256\n  ecn: {enabled: true, kmin_kb: 100, kmax_kb: 400, pmax: 0.2}\n"
		"  pfc: {mode: software, classes: [3], xoff_kb: 32, xon_kb: 16}";

static const char QOS_SMALL_TRIM[] =
		"qos:\n  classes: 8\n  dscp: [{dscp: 26, class: 3}, {dscp: 48, class: 7}]\n"
		"  queue_kb: 256\n  trim: true\n"
		"  ecn: {enabled: true, kmin_kb: 100, kmax_kb: 400, pmax: 0.2}";

static uint64_t
mixed_run_qos(enum sim_transport tr, const char *prefix, const char *qos)
{
	struct sim_host_cfg c;
	struct world w;
	struct sim_host_stats st;
	uint64_t drops, host_pfc = 0, flows = 0, hash;

	sim_host_cfg_default(&c, tr);
	if (world_up(&w, prefix, qos, &c) != 0)
		return 0;
	for (uint32_t h = 0; h < 15; h++, flows++)
		CHECK(sim_hosts_start(w.h, h, 15, 200000) != UINT64_MAX, "start");
	for (uint32_t h = 0; h < 16; h++, flows++)
		CHECK(sim_hosts_start(w.h, h, (h + 6) % 16, 500000) != UINT64_MAX, "start");
	sim_run(&w.net.sim, 100 * 1000 * 1000);
	sim_hosts_stats(w.h, &st);
	drops = sim_net_drops(&w.net, -1);
	for (uint32_t h = 0; h < w.t.n_hosts; h++)
		host_pfc += w.net.tx[h][0].rx_pfc;
	printf("mixed, %s: %llu of %llu flows done, the last at %llu ns; %llu data sent (%llu "
	       "resent), "
	       "%llu dropped by switches, %llu PFC frames (%llu at hosts), %llu control frames "
	       "sent while data was paused, %llu CNPs, %llu timeouts\n",
			tr == SIM_TR_GBN   ? "go-back-N + PFC"
			: qos == QOS_SMALL ? "IRN, no PFC"
					   : "IRN, trimming",
			(unsigned long long)st.flows_done, (unsigned long long)flows,
			(unsigned long long)w.rec.last_end_ns, (unsigned long long)st.data_sent,
			(unsigned long long)st.data_retx, (unsigned long long)drops,
			(unsigned long long)w.net.pfc_frames, (unsigned long long)host_pfc,
			(unsigned long long)st.ctl_while_paused, (unsigned long long)st.cnps_sent,
			(unsigned long long)st.timeouts);
	CHECK_EQ(st.flows_started, flows);
	CHECK_EQ(st.flows_done, flows);
	CHECK_EQ(w.rec.n, flows);
	CHECK_EQ(sim_hosts_active(w.h), 0);
	/* Every frame a host sent arrived at a host or a switch dropped it. */
	CHECK_EQ(st.data_sent + st.acks_sent + st.nacks_sent + st.cnps_sent,
			st.data_rcvd + st.ctl_rcvd + drops);
	CHECK_EQ(w.net.delivered, st.data_rcvd + st.ctl_rcvd);
	CHECK_EQ(w.net.tx_late, 0);
	if (tr == SIM_TR_GBN) {
		CHECK_EQ(drops, 0);
		CHECK(host_pfc > 0, "no PFC reached a host");
		CHECK(st.ctl_while_paused > 0, "no ACK left a paused host");
		CHECK_EQ(st.data_retx, 0);
	} else if (qos == QOS_SMALL_TRIM) {
		/* Trimmed, not dropped: the hosts take them as lost. */
		CHECK_EQ(drops, 0);
		CHECK(st.data_trimmed > 0, "nothing trimmed");
		CHECK(st.data_retx >= st.data_trimmed, "resent %llu of %llu trimmed",
				(unsigned long long)st.data_retx,
				(unsigned long long)st.data_trimmed);
		printf("  %llu trimmed\n", (unsigned long long)st.data_trimmed);
	} else {
		CHECK(drops > 0, "the incast dropped nothing");
		CHECK_EQ(w.net.pfc_frames, 0);
		CHECK(st.data_retx >= sim_net_drops(&w.net, RTR_DROP_QUEUE_FULL) - 0, "resent %llu",
				(unsigned long long)st.data_retx);
	}
	hash = w.rec.hash;
	world_down(&w);
	return hash;
}

static uint64_t
mixed_run(enum sim_transport tr, const char *prefix)
{
	return mixed_run_qos(tr, prefix, tr == SIM_TR_GBN ? QOS_SMALL_PFC : QOS_SMALL);
}

static void
test_mixed(void)
{
	uint64_t a = mixed_run(SIM_TR_GBN, "mixg1_"), b = mixed_run(SIM_TR_GBN, "mixg2_");

	CHECK(a == b && a != 0, "go-back-N: two runs, other end times");
	a = mixed_run(SIM_TR_IRN, "mixi1_");
	b = mixed_run(SIM_TR_IRN, "mixi2_");
	CHECK(a == b && a != 0, "IRN: two runs, other end times");
	mixed_run_qos(SIM_TR_IRN, "mixt_", QOS_SMALL_TRIM);
}

/*
 * The DCQCN reaction point, against the model's rules computed by hand
 * (g = 1/256, alpha every 1 us, decrease check every 4 us from 1 ns after
 * the first CNP, rate-increase timer 300 us, 1 fast-recovery stage, AI 40
 * Mb/s, HAI 100 Mb/s, line rate 100G). A lone 100 MB flow from h0 (no
 * queue anywhere: no ECN mark of its own) gets a CNP frame, as a receiver
 * would send it, at t1 = 10 us and another at t1 + 10.5 us:
 * - t1: alpha = 1, target = rate = 100.
 * - t1 + 4,001: 4 alpha periods without a CNP (the first CNP only starts
 *   the timers): alpha = (1-g)^4; rate = 100 (1 - alpha / 2) = 50.778.
 * - t1 + 10,500: the second CNP; the check at t1 + 8,001 saw none, so the
 *   next is t1 + 12,001, after alpha's updates at t1 + 11 us (a CNP came:
 *   (1-g) alpha + g) and t1 + 12 us (none): alpha = (1-g)^12 + g (1-g);
 *   rate x= 1 - alpha / 2; the target stays 100 (stage 0, no clamp).
 * - every 300 us from that cut: (rate + target) / 2, the target staying at
 *   line rate (AI and HAI are capped there).
 * The NIC paces at the rate: in [t1 + 5,000, t1 + 12,000) at 50.778 Gb/s
 * 7,000 x 50.778 / 8,656 = 41.06 frames of 1,082 wire bytes leave.
 */
struct probe {
	struct world *w;
	double rate[8];
	uint64_t tx[8];
};

static void
ev_probe(struct sim *s, void *arg, uint64_t k)
{
	struct probe *pr = arg;

	(void)s;
	if (sim_hosts_flow_qp(pr->w->h, 0, 0, NULL, &pr->rate[k]) != 0)
		pr->rate[k] = -1;
	pr->tx[k] = pr->w->net.tx[0][0].tx_pkts;
}

static void
ev_cnp(struct sim *s, void *arg, uint64_t u)
{
	struct world *w = arg;
	struct sim_pkt *p = sim_pkt_alloc(&w->net);
	uint32_t qpn = 0;
	struct sim_roce r = {.src_ip = w->t.nodes[15].ip,
			.dst_ip = w->t.nodes[0].ip,
			.sport = 49152,
			.opcode = 0x81,
			.dscp = 48,
			.b4 = 0x40,
			.payload = 16};

	(void)s;
	(void)u;
	sim_hosts_flow_qp(w->h, 0, 0, &qpn, NULL);
	r.dqp = qpn;
	sim_roce_build(p, &r);
	w->net.host_rx(&w->net, 0, p);
}

static void
test_dcqcn(void)
{
	const double g = 1.0 / 256, t1 = 10000;
	struct sim_host_cfg c;
	struct world w;
	struct probe pr;
	struct sim_host_stats st;
	double a1 = pow(1 - g, 4), r1 = 100 * (1 - a1 / 2);
	double a2 = pow(1 - g, 12) + g * (1 - g), r2 = r1 * (1 - a2 / 2);
	double r3 = (r2 + 100) / 2, r4 = (r3 + 100) / 2, r5 = (r4 + 100) / 2;
	static const double at[8] = {4000, 4002, 12000, 12002, 312002, 612002, 912002, 5000};
	double want[8];

	want[0] = 100, want[1] = r1, want[2] = r1, want[3] = r2, want[4] = r3, want[5] = r4;
	want[6] = r5, want[7] = r1;
	sim_host_cfg_default(&c, SIM_TR_GBN);
	if (world_up(&w, "dcqcn_", QOS, &c) != 0)
		return;
	memset(&pr, 0, sizeof(pr));
	pr.w = &w;
	sim_hosts_start(w.h, 0, 15, 100000000);
	sim_at(&w.net.sim, (uint64_t)t1, ev_cnp, &w, 0);
	sim_at(&w.net.sim, (uint64_t)t1 + 10500, ev_cnp, &w, 0);
	for (unsigned int k = 0; k < 8; k++)
		sim_at(&w.net.sim, (uint64_t)(t1 + at[k]), ev_probe, &pr, k);
	sim_run(&w.net.sim, 1000000);
	sim_hosts_stats(w.h, &st);
	printf("DCQCN: rate %.3f, %.3f, %.3f, %.3f, %.3f, %.3f, %.3f Gb/s (by hand %.3f, %.3f, "
	       "%.3f, %.3f, %.3f, %.3f, %.3f); %llu frames in 7 us at %.3f Gb/s (by hand %.2f)\n",
			pr.rate[0], pr.rate[1], pr.rate[2], pr.rate[3], pr.rate[4], pr.rate[5],
			pr.rate[6], want[0], want[1], want[2], want[3], want[4], want[5], want[6],
			(unsigned long long)(pr.tx[2] - pr.tx[7]), r1, 7000 * r1 / 8656);
	for (unsigned int k = 0; k < 7; k++)
		CHECK(fabs(pr.rate[k] - want[k]) < 1e-9, "rate %u: %.6f, by hand %.6f", k,
				pr.rate[k], want[k]);
	CHECK(fabs((double)(pr.tx[2] - pr.tx[7]) - 7000 * r1 / 8656) <= 1, "%llu frames",
			(unsigned long long)(pr.tx[2] - pr.tx[7]));
	CHECK_EQ(st.cnps_rcvd, 2);
	CHECK_EQ(st.ce_rcvd, 0);
	world_down(&w);
}

int
main(void)
{
	if (sim_eal_init("test_sim_host", 1024) != 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	test_lone();
	test_fair();
	test_drop();
	test_tail_loss();
	test_modes();
	test_shaper_reps();
	test_shaper_short();
	test_mixed();
	test_dcqcn();
	return rtr_test_done("sim-host");
}
