/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Frames across the simulated fabric through the switches' own code (parse,
 * LPM, ECMP through rtr_lb_worker.h): one flow of N RoCEv2 packets from a
 * host to a host behind another ToR arrives complete and in PSN order, on
 * one spine (one flow, one ECMP path), with a flow completion time equal to
 * the analytic store-and-forward value (N serializations at the host rate,
 * one more per further hop, plus every link's delay) within 1% and within
 * a few ns of rounding; the same behind the same ToR (two links); two flows
 * into one host share the first link they meet: the last byte arrives when
 * 2N frames have crossed it back to back, so no link carries more than its
 * rate, the backlog waits in lib/egress's class queues, where RED marks
 * (the hosts get exactly the CE marks it counts); every packet is
 * delivered, none dropped, no buffer left; and the same run twice gives the
 * same arrival times; no frame ever starts before the link could carry it.
 * The switches take a run's qos (RED, classes), PFC makes a 4:1 incast
 * lossless that tail-drops without it. ConWeave, SeqBalance and CAVER carry
 * the flow too, through their own hooks, timers and io. The switch ports'
 * NICs (lib/nicmodel): the default ring holds 2 frames; a 256-descriptor
 * ring holds the backlog out of the egress's queues, at the same FCT.
 */

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rtr_egress.h"
#include "rtr_lb.h"
#include "rtr_lb_registry.h"
#include "rtr_test.h"
#include "sim_net.h"

#define N_PKTS   1000
#define PAYLOAD  1000
#define DELAY_NS 1000
#define WIRE_OH  RTR_EG_FRAME_OVERHEAD /* lib/egress: FCS, preamble, IFG */

struct rx {
	uint64_t got[4];
	uint64_t out_of_order;
	uint32_t next_psn[4];
	uint64_t last_ns[4];
	uint32_t want_host;
	uint64_t wrong_host;
	uint64_t hash;      /* over arrival times */
	uint64_t not_plain; /* frames a host got other than their sender sent */
	uint64_t ce;        /* frames that arrived marked CE */
};

static void
host_rx(struct sim_net *net, uint32_t host, struct sim_pkt *p)
{
	struct rx *r = net->host_arg;
	unsigned int f = (unsigned int)p->flow;
	const uint8_t *bth = sim_pkt_data(p) + 42;
	uint32_t psn = (uint32_t)bth[9] << 16 | (uint32_t)bth[10] << 8 | bth[11];

	if ((sim_pkt_data(p)[15] & 3) == 3)
		r->ce++;
	if (p->mb.pkt_len != 14 + 20 + 8 + 12 + PAYLOAD + 4 || bth[4] != 0 || (bth[8] & 0x7f) != 0)
		r->not_plain++;
	if (host != r->want_host)
		r->wrong_host++;
	if (psn != r->next_psn[f])
		r->out_of_order++;
	r->next_psn[f] = psn + 1;
	r->got[f]++;
	r->last_ns[f] = net->sim.now_ns;
	r->hash = (r->hash ^ net->sim.now_ns) * 0x100000001b3ULL;
	sim_pkt_free(net, p);
}

/* Queue N_PKTS frames of flow f from host src to host dst on src's port. */
static void
send_flow(struct sim_net *net, uint32_t src, uint32_t dst, unsigned int f, uint16_t sport)
{
	const struct sim_topo *t = net->topo;

	for (uint32_t i = 0; i < N_PKTS; i++) {
		struct sim_pkt *p = sim_pkt_alloc(net);
		struct sim_roce r = {.src_ip = t->nodes[src].ip,
				.dst_ip = t->nodes[dst].ip,
				.sport = sport,
				.dqp = 0x100 + f,
				.psn = i,
				.dscp = 26,
				.ecn = 2,
				.payload = PAYLOAD};

		r.opcode = i == 0 ? 0 : i == N_PKTS - 1 ? 2 : 1; /* SEND first/middle/last */
		sim_roce_build(p, &r);
		p->flow = f;
		p->sent_ns = net->sim.now_ns;
		sim_net_send(net, src, 0, p);
	}
}

/* The switch ports' NICs of the next run() (zero: the defaults). */
static struct sim_nic_conf run_nic;

static void
run(struct sim_topo *t, uint32_t src, uint32_t src2, uint32_t dst, struct rx *r,
		struct sim_net *net)
{
	char err[256];

	memset(r, 0, sizeof(*r));
	r->want_host = dst;
	if (sim_net_init_nic(net, t, WIRE_OH, &run_nic, err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		return;
	}
	net->host_rx = host_rx;
	net->host_arg = r;
	send_flow(net, src, dst, 0, 49152);
	if (src2 != UINT32_MAX)
		send_flow(net, src2, dst, 1, 49153);
	/* Bounded: a mode with periodic timers (CAVER's DRE) always has a tick due. */
	sim_run(&net->sim, 10 * 1000 * 1000);
	CHECK_EQ(net->tx_late, 0);
}

static void
check_fct(const char *what, uint64_t got_ns, double want_ns)
{
	CHECK(fabs((double)got_ns - want_ns) <= 0.01 * want_ns, "%s: FCT %llu ns, analytic %.2f",
			what, (unsigned long long)got_ns, want_ns);
	/* Rounding to whole ns: at most one per hop. */
	CHECK(fabs((double)got_ns - want_ns) <= 5, "%s: FCT %llu ns, analytic %.2f", what,
			(unsigned long long)got_ns, want_ns);
	printf("%s: FCT %llu ns, analytic %.2f ns\n", what, (unsigned long long)got_ns, want_ns);
}

static void
test_flows(void)
{
	struct sim_leafspine p = {.tors = 4,
			.spines = 2,
			.hosts_per_tor = 4,
			.host_gbps = 100,
			.link_delay_ns = DELAY_NS};
	struct sim_topo t;
	struct sim_net net;
	struct rx r;
	char err[256];
	uint32_t len = 14 + 20 + 8 + 12 + PAYLOAD + 4, dst = 15, spine_carriers = 0;
	double ser = (len + WIRE_OH) * 8.0 / 100; /* ns */
	uint64_t hash1;

	if (sim_topo_leafspine(&t, &p, "net_", err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		return;
	}
	/* h0 (ToR 0) -> h15 (ToR 3): host link, uplink, downlink, host link. */
	run(&t, 0, UINT32_MAX, dst, &r, &net);
	CHECK_EQ(r.got[0], N_PKTS);
	CHECK_EQ(r.out_of_order, 0);
	CHECK_EQ(r.wrong_host, 0);
	CHECK_EQ(net.delivered, N_PKTS);
	CHECK_EQ(sim_net_drops(&net, -1), 0);
	CHECK_EQ(net.pkts_live, 0);
	check_fct("4 links", r.last_ns[0], (N_PKTS + 3) * ser + 4 * DELAY_NS);
	/* ECMP through the dispatch header at the source ToR only. */
	CHECK_EQ(net.st[t.first_tor].lb[RTR_LBC_ecmp_packets], N_PKTS);
	CHECK_EQ(net.st[t.first_tor + 3].lb[RTR_LBC_ecmp_packets], 0);
	CHECK_EQ(net.st[t.first_tor + 3].forwarded, N_PKTS);
	for (unsigned int s = 0; s < p.spines; s++) {
		uint64_t n = net.tx[t.first_tor][p.hosts_per_tor + s].tx_pkts;

		CHECK(n == 0 || n == N_PKTS, "uplink %u: %llu", s, (unsigned long long)n);
		spine_carriers += n > 0;
		CHECK_EQ(net.tx[t.first_spine + s][3].tx_pkts, n);
	}
	CHECK_EQ(spine_carriers, 1);
	CHECK_EQ(net.tx[t.first_tor + 3][3].tx_wire_bytes, (uint64_t)N_PKTS * (len + WIRE_OH));
	hash1 = r.hash;
	sim_net_fini(&net);

	/* Same run again: the same arrival times. */
	run(&t, 0, UINT32_MAX, dst, &r, &net);
	CHECK(r.hash == hash1, "another run, other arrival times");
	sim_net_fini(&net);

	/* h12 -> h15, both behind ToR 3: two links, no ECMP. */
	run(&t, 12, UINT32_MAX, dst, &r, &net);
	CHECK_EQ(r.got[0], N_PKTS);
	CHECK_EQ(r.out_of_order, 0);
	check_fct("2 links", r.last_ns[0], (N_PKTS + 1) * ser + 2 * DELAY_NS);
	CHECK_EQ(net.st[t.first_tor + 3].lb[RTR_LBC_ecmp_packets], 0);
	sim_net_fini(&net);

	/* h0 and h1 -> h15: the first shared link (ToR 0's uplink if both
	 * flows hash to one spine, else ToR 3's port to h15) carries 2N
	 * frames back to back from the first arrival on: 2N serializations
	 * there, one on each link before it and after it (3 in all) and the
	 * four delays, whichever link it is. */
	run(&t, 0, 1, dst, &r, &net);
	CHECK_EQ(r.got[0] + r.got[1], 2 * N_PKTS);
	CHECK_EQ(r.out_of_order, 0);
	CHECK_EQ(net.pkts_live, 0);
	{
		uint64_t last = r.last_ns[0] > r.last_ns[1] ? r.last_ns[0] : r.last_ns[1];

		check_fct("2 flows, one host link", last, (2 * N_PKTS + 3) * ser + 4 * DELAY_NS);
		/* The backlog is in the egress's class queues (RED, PFC and
		 * tail drop act there): at the shared link, N frames arrive
		 * at twice the rate they leave, so about N wait at the end;
		 * the NIC holds at most SIM_NIC_FRAMES, one on the wire. RED
		 * marks there, and the hosts see exactly the marks counted. */
		uint64_t max_depth = 0, marked = 0, nic_max = 0;

		for (unsigned int k = 0; k < t.n_nodes; k++) {
			const struct sim_node *n = &t.nodes[k];

			for (uint16_t q = 0; n->kind != SIM_HOST && q < n->n_ports; q++) {
				uint64_t c[RTR_EGC_MAX] = {0};

				for (uint8_t cls = 0; cls < n->cfg->qos.classes; cls++)
					rtr_egress_counters_add(n->eg, q, cls, c);
				if (c[RTR_EGC_max_depth] > max_depth)
					max_depth = c[RTR_EGC_max_depth];
				if (net.tx[k][q].max_q_bytes > nic_max)
					nic_max = net.tx[k][q].max_q_bytes;
				marked += c[RTR_EGC_ecn_marked];
				if (c[RTR_EGC_sent] == 0)
					continue;
				printf("  %s port %u: sent %llu, max depth %llu B, ECN marked "
				       "%llu, "
				       "NIC max %llu B\n",
						n->name, q, (unsigned long long)c[RTR_EGC_sent],
						(unsigned long long)c[RTR_EGC_max_depth],
						(unsigned long long)c[RTR_EGC_ecn_marked],
						(unsigned long long)net.tx[k][q].max_q_bytes);
			}
		}
		CHECK(max_depth >= (uint64_t)(0.9 * N_PKTS * len), "max depth %llu B",
				(unsigned long long)max_depth);
		CHECK(nic_max <= (SIM_NIC_FRAMES - 1) * len, "NIC FIFO %llu B",
				(unsigned long long)nic_max);
		CHECK(marked > 0, "a 1 MB queue marked nothing");
		CHECK_EQ(r.ce, marked);
	}
	sim_net_fini(&net);
	sim_topo_free(&t);
}

/* Frames RED marked and frames sent in class cls, summed over every switch
 * port. */
static void
class_totals(const struct sim_topo *t, uint8_t cls, uint64_t *marked, uint64_t *sent)
{
	*marked = *sent = 0;
	for (unsigned int k = t->first_tor; k < t->n_nodes; k++) {
		const struct sim_node *n = &t->nodes[k];

		for (uint16_t q = 0; q < n->n_ports; q++) {
			uint64_t c[RTR_EGC_MAX] = {0};

			rtr_egress_counters_add(n->eg, q, cls, c);
			*marked += c[RTR_EGC_ecn_marked];
			*sent += c[RTR_EGC_sent];
		}
	}
}

/* The switches take the qos a run gives (sim_leafspine.sections): the
 * papers' RED (Kmin 100 KB, Kmax 400 KB, Pmax 0.2) on RoCE's DSCP 26 in
 * class 3, where the two flows' frames then go and get marked; with ECN
 * off in that class, the same backlog marks nothing. */
static void
test_qos(void)
{
	static const char *const qos[2] = {
			"qos:\n  classes: 8\n  dscp: [{dscp: 26, class: 3}]\n  queue_kb: 4096\n"
			"  ecn: {enabled: true, kmin_kb: 100, kmax_kb: 400, pmax: 0.2}",
			"qos:\n  classes: 8\n  dscp: [{dscp: 26, class: 3}]\n  queue_kb: 4096\n"
			"  ecn: {enabled: false, kmin_kb: 100, kmax_kb: 400, pmax: 0.2}",
	};

	for (unsigned int i = 0; i < 2; i++) {
		struct sim_leafspine p = {.tors = 4,
				.spines = 2,
				.hosts_per_tor = 4,
				.host_gbps = 100,
				.link_delay_ns = DELAY_NS,
				.sections = qos[i]};
		struct sim_topo t;
		struct sim_net net;
		struct rx r;
		char err[256], prefix[32];
		uint64_t marked, sent, marked0, sent0;

		snprintf(prefix, sizeof(prefix), "qos%u_", i);
		if (sim_topo_leafspine(&t, &p, prefix, err, sizeof(err)) != 0) {
			CHECK(0, "%s", err);
			continue;
		}
		CHECK_EQ(t.nodes[t.first_tor].cfg->qos.cls[3].ecn.kmin_kb, 100);
		CHECK_EQ(t.nodes[t.first_spine].cfg->qos.cls[3].ecn.kmax_kb, 400);
		run(&t, 0, 1, 15, &r, &net);
		CHECK_EQ(r.got[0] + r.got[1], 2 * N_PKTS);
		CHECK_EQ(sim_net_drops(&net, -1), 0);
		class_totals(&t, 3, &marked, &sent);
		class_totals(&t, 0, &marked0, &sent0);
		/* Each frame crosses 3 switch ports (ToR, spine, ToR). */
		CHECK_EQ(sent, 3 * 2 * N_PKTS);
		CHECK_EQ(sent0, 0);
		if (i == 0)
			CHECK(marked > 0, "RED on a 1 MB queue marked nothing");
		else
			CHECK_EQ(marked, 0);
		CHECK_EQ(r.ce, marked);
		printf("qos %s: class 3 sent %llu, marked %llu\n", i ? "ecn off" : "ecn on",
				(unsigned long long)sent, (unsigned long long)marked);
		sim_net_fini(&net);
		if (i == 0) {
			/* RED draws from the egress's seeded generator: the
			 * same run marks the same frames, at the same times. */
			uint64_t h = r.hash, m2, s2;

			run(&t, 0, 1, 15, &r, &net);
			class_totals(&t, 3, &m2, &s2);
			CHECK_EQ(m2, marked);
			CHECK(r.hash == h, "RED run twice: other arrival times");
			sim_net_fini(&net);
		}
		sim_topo_free(&t);
	}
}

/* The 4:1 incast of test_pfc and test_shared_buffer: hosts 0, 4, 8 and 13
 * of a 4 x 2 x 4 leaf-spine with the given sections send a flow each to
 * host 15, run 10 ms. Returns the frames host 15 got, or -1 (checked) if
 * the fabric could not be built; on success t and net are the caller's
 * to free. */
static int64_t
incast4(const char *sections, const char *prefix, struct sim_topo *t, struct sim_net *net,
		struct rx *r)
{
	static const uint32_t src[4] = {0, 4, 8, 13};
	struct sim_leafspine p = {.tors = 4,
			.spines = 2,
			.hosts_per_tor = 4,
			.host_gbps = 100,
			.link_delay_ns = DELAY_NS,
			.sections = sections};
	char err[256];
	int64_t got = 0;

	if (sim_topo_leafspine(t, &p, prefix, err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		return -1;
	}
	memset(r, 0, sizeof(*r));
	r->want_host = 15;
	if (sim_net_init(net, t, WIRE_OH, err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		sim_topo_free(t);
		return -1;
	}
	net->host_rx = host_rx;
	net->host_arg = r;
	for (unsigned int f = 0; f < 4; f++)
		send_flow(net, src[f], 15, f, (uint16_t)(49152 + f));
	sim_run(&net->sim, 10 * 1000 * 1000);
	for (unsigned int f = 0; f < 4; f++)
		got += (int64_t)r->got[f];
	return got;
}

/* PFC across the fabric: four hosts behind four ToRs (one behind the
 * destination's own ToR) send 1000 frames each to one host at once, a 4:1
 * incast into its link. With a 256 KB class queue and no PFC the incast
 * tail-drops; with PFC (XOFF at 32 KB per ingress port, XON at 16 KB) the
 * pauses travel back hop by hop to the senders, which wait: nothing is
 * dropped, every frame arrives in order, and PFC frames were received by
 * switches and by hosts. */
static void
test_pfc(void)
{
	static const char *const qos[2] = {
			"qos:\n  classes: 8\n  dscp: [{dscp: 26, class: 3}]\n  queue_kb: 256\n"
			"  pfc: {mode: off}",
			"qos:\n  classes: 8\n  dscp: [{dscp: 26, class: 3}]\n  queue_kb: 256\n"
			"  pfc: {mode: software, classes: [3], xoff_kb: 32, xon_kb: 16}",
	};

	for (unsigned int i = 0; i < 2; i++) {
		struct sim_topo t;
		struct sim_net net;
		struct rx r;
		char prefix[32];
		int64_t n;
		uint64_t got, host_pfc = 0;

		snprintf(prefix, sizeof(prefix), "pfc%u_", i);
		n = incast4(qos[i], prefix, &t, &net, &r);
		if (n < 0)
			continue;
		got = (uint64_t)n;
		for (uint32_t h = 0; h < t.n_hosts; h++)
			host_pfc += net.tx[h][0].rx_pfc;
		printf("pfc %s: %llu of %u frames, %llu dropped, %llu PFC frames (%llu at hosts), "
		       "%llu out of order\n",
				i ? "on" : "off", (unsigned long long)got, 4 * N_PKTS,
				(unsigned long long)sim_net_drops(&net, -1),
				(unsigned long long)net.pfc_frames, (unsigned long long)host_pfc,
				(unsigned long long)r.out_of_order);
		for (unsigned int k = t.first_tor; k < t.n_nodes; k++)
			for (int d = 1; d < RTR_DROP_MAX; d++)
				if (net.st[k].drops[d])
					printf("  %s: %llu %s\n", t.nodes[k].name,
							(unsigned long long)net.st[k].drops[d],
							rtr_drop_names[d]);
		if (i == 0) {
			CHECK(sim_net_drops(&net, RTR_DROP_QUEUE_FULL) > 0,
					"a 4:1 incast into 256 KB "
					"without PFC dropped nothing");
			CHECK_EQ(net.pfc_frames, 0);
			CHECK_EQ(got + sim_net_drops(&net, -1), 4 * N_PKTS);
		} else {
			CHECK_EQ(sim_net_drops(&net, -1), 0);
			CHECK_EQ(got, 4 * N_PKTS);
			CHECK_EQ(r.out_of_order, 0);
			CHECK(net.pfc_frames > 0, "no PFC frame");
			CHECK(host_pfc > 0, "no PFC frame reached a host");
		}
		CHECK_EQ(r.wrong_host, 0);
		CHECK_EQ(net.tx_late, 0);
		sim_net_fini(&net);
		CHECK_EQ(net.pkts_live, 0);
		sim_topo_free(&t);
	}
}

/* The shared buffer (qos.buffer.mode shared, doc/egress.md "Shared
 * buffer") in the fabric: the 4:1 incast of test_pfc without PFC, class
 * queues of 4 MB but one 128 KB pool per switch, alpha 1: the destination
 * ToR drops at the pool, and no switch ever holds more than the pool; the
 * one busy queue stops at alpha / (1 + alpha) of it (q = alpha x (S - q)),
 * 64 KB, within a frame. */
static void
test_shared_buffer(void)
{
	static const char qos[] =
			"qos:\n  classes: 8\n  dscp: [{dscp: 26, class: 3}]\n  queue_kb: 4096\n"
			"  pfc: {mode: off}\n  buffer: {mode: shared, size_kb: 128, alpha: 1}";
	struct sim_topo t;
	struct sim_net net;
	struct rx r;
	int64_t n = incast4(qos, "sb_", &t, &net, &r);
	uint64_t got, peak = 0;

	if (n < 0)
		return;
	got = (uint64_t)n;
	for (unsigned int k = t.first_tor; k < t.n_nodes; k++)
		if (t.nodes[k].kind != SIM_HOST && t.nodes[k].eg->sb_peak > peak)
			peak = t.nodes[k].eg->sb_peak;
	printf("shared buffer: %llu of %u frames, %llu dropped, most in a switch's pool %llu "
	       "of %u bytes\n",
			(unsigned long long)got, 4 * N_PKTS,
			(unsigned long long)sim_net_drops(&net, -1), (unsigned long long)peak,
			128 * 1024);
	CHECK(sim_net_drops(&net, RTR_DROP_QUEUE_FULL) > 0, "the incast fit a 128 KB pool");
	CHECK_EQ(got + sim_net_drops(&net, -1), 4 * N_PKTS);
	CHECK(peak <= 128 * 1024, "peak %llu", (unsigned long long)peak);
	CHECK(peak <= 64 * 1024 + 1100 && peak + 1100 >= 64 * 1024, "peak %llu",
			(unsigned long long)peak);
	CHECK_EQ(r.wrong_host, 0);
	sim_net_fini(&net);
	CHECK_EQ(net.pkts_live, 0);
	sim_topo_free(&t);
}

/* The other LB modes carry the same flow through the fabric, each switch
 * running its mode's hooks (a ToR-only mode runs ECMP on the spines): the
 * host gets every frame, in order, as its sender wrote it (LB fields
 * stripped at the DstToR). */
static void
test_modes(void)
{
	static const char *const modes[] = {"conweave", "seqbalance", "caver"};

	for (unsigned int i = 0; i < RTR_ARRAY_SIZE(modes); i++) {
		struct sim_leafspine p = {.tors = 4,
				.spines = 2,
				.hosts_per_tor = 4,
				.host_gbps = 100,
				.link_delay_ns = DELAY_NS,
				.lb = modes[i]};
		int id = rtr_lb_mode_find(modes[i]);
		struct sim_topo t;
		struct sim_net net;
		struct rx r;
		char err[256], prefix[32];

		if (id < 0 || rtr_lb_mode_at((unsigned int)id)->ops == NULL) {
			printf("%s: not in this build, skipped\n", modes[i]);
			continue;
		}
		snprintf(prefix, sizeof(prefix), "%s_", modes[i]);
		if (sim_topo_leafspine(&t, &p, prefix, err, sizeof(err)) != 0) {
			CHECK(0, "%s: %s", modes[i], err);
			continue;
		}
		run(&t, 0, UINT32_MAX, 15, &r, &net);
		CHECK(r.got[0] == N_PKTS, "%s: %llu of %u", modes[i], (unsigned long long)r.got[0],
				N_PKTS);
		CHECK(r.out_of_order == 0, "%s: %llu out of order", modes[i],
				(unsigned long long)r.out_of_order);
		CHECK(r.not_plain == 0, "%s: %llu frames not as sent", modes[i],
				(unsigned long long)r.not_plain);
		CHECK(sim_net_drops(&net, -1) == 0, "%s: %llu drops", modes[i],
				(unsigned long long)sim_net_drops(&net, -1));
		{
			uint64_t lbc = 0, sp = 0;

			for (unsigned int k = 0; k < RTR_STATS_LB_SLOTS; k++)
				lbc += net.st[t.first_tor].lb[k];
			for (unsigned int k = 0; k < p.spines; k++)
				sp += net.st[t.first_spine + k].lb[RTR_LBC_ecmp_packets];
			printf("%s: %llu frames, last at %llu ns, %llu LB ticks; source ToR: %llu "
			       "ECMP picks, %llu in all LB counters; spines: %llu ECMP picks\n",
					modes[i], (unsigned long long)r.got[0],
					(unsigned long long)r.last_ns[0],
					(unsigned long long)net.lb_ticks,
					(unsigned long long)net.st[t.first_tor]
							.lb[RTR_LBC_ecmp_packets],
					(unsigned long long)lbc, (unsigned long long)sp);
			/* The mode's own pick ran at the source ToR, not ECMP's. */
			CHECK(net.st[t.first_tor].lb[RTR_LBC_ecmp_packets] == 0 && lbc > 0,
					"%s: the mode's pick did not run", modes[i]);
		}
		sim_net_fini(&net);
		CHECK(net.pkts_live == 0, "%s: %llu buffers not returned", modes[i],
				(unsigned long long)net.pkts_live);
		sim_topo_free(&t);
	}
}

/* The most frames one switch port's NIC held, the longest wait (accept to
 * last bit) there in ns, the deepest egress class queue in bytes and the
 * frames RED marked, over every switch port. */
struct nic_fig {
	uint32_t max_frames, max_desc;
	uint64_t max_wait_ns, max_depth, marked;
};

static struct nic_fig
nic_figures(const struct sim_net *net)
{
	const struct sim_topo *t = net->topo;
	struct nic_fig f = {0};

	for (unsigned int k = 0; k < t->n_nodes; k++) {
		const struct sim_node *n = &t->nodes[k];

		for (uint16_t q = 0; n->kind != SIM_HOST && q < n->n_ports; q++) {
			const struct sim_tx *tx = &net->tx[k][q];
			uint64_t c[RTR_EGC_MAX] = {0};
			uint64_t w = rtr_nicm_qstats(tx->nic, 0)->max_wait_ps / 1000;

			for (uint8_t cls = 0; cls < n->cfg->qos.classes; cls++)
				rtr_egress_counters_add(n->eg, q, cls, c);
			f.max_depth = c[RTR_EGC_max_depth] > f.max_depth ? c[RTR_EGC_max_depth]
									 : f.max_depth;
			f.marked += c[RTR_EGC_ecn_marked];
			f.max_frames = tx->nic_max_frames > f.max_frames ? tx->nic_max_frames
									 : f.max_frames;
			f.max_desc = tx->nic_max_desc > f.max_desc ? tx->nic_max_desc : f.max_desc;
			f.max_wait_ns = w > f.max_wait_ns ? w : f.max_wait_ns;
		}
	}
	return f;
}

/*
 * The switch ports' NIC (lib/nicmodel): two flows into one host, as in
 * test_flows. The default ring holds 2 frames; a 256-descriptor ring fills
 * at the shared link and holds the backlog there, out of the egress's
 * class queues: the egress's deepest queue is shallower by about the
 * ring, RED marks fewer frames, a frame waits in the ring about 256
 * serializations, and the last frame arrives at the same time (the link
 * is busy back to back either way). A completion batch of 16 with a 1 us
 * delay keeps more descriptors than frames and still delivers all.
 */
static void
test_nic_ring(void)
{
	struct sim_leafspine p = {.tors = 4,
			.spines = 2,
			.hosts_per_tor = 4,
			.host_gbps = 100,
			.link_delay_ns = DELAY_NS};
	struct sim_topo t;
	struct sim_net net;
	struct rx r;
	char err[256];
	uint32_t len = 14 + 20 + 8 + 12 + PAYLOAD + 4, dst = 15;
	double ser = (len + WIRE_OH) * 8.0 / 100; /* ns */
	struct nic_fig def, big, batch;
	uint64_t last_def, last;

	if (sim_topo_leafspine(&t, &p, "nic_", err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		return;
	}
	run_nic = (struct sim_nic_conf){0};
	run(&t, 0, 1, dst, &r, &net);
	CHECK_EQ(net.nic.ring, SIM_NIC_FRAMES);
	CHECK_EQ(r.got[0] + r.got[1], 2 * N_PKTS);
	def = nic_figures(&net);
	last_def = r.last_ns[0] > r.last_ns[1] ? r.last_ns[0] : r.last_ns[1];
	CHECK(def.max_frames == SIM_NIC_FRAMES && def.max_desc == SIM_NIC_FRAMES,
			"default ring: %u frames, %u descriptors", def.max_frames, def.max_desc);
	CHECK(def.max_wait_ns <= (uint64_t)(2 * ser + 1), "default ring: waited %llu ns",
			(unsigned long long)def.max_wait_ns);
	sim_net_fini(&net);

	run_nic = (struct sim_nic_conf){.ring = 256};
	run(&t, 0, 1, dst, &r, &net);
	CHECK_EQ(r.got[0] + r.got[1], 2 * N_PKTS);
	CHECK_EQ(sim_net_drops(&net, -1), 0);
	CHECK_EQ(net.pkts_live, 0);
	big = nic_figures(&net);
	last = r.last_ns[0] > r.last_ns[1] ? r.last_ns[0] : r.last_ns[1];
	check_fct("2 flows, 256-descriptor rings", last, (2 * N_PKTS + 3) * ser + 4 * DELAY_NS);
	CHECK(last >= last_def - 2 && last <= last_def + 2, "last arrival %llu, default ring %llu",
			(unsigned long long)last, (unsigned long long)last_def);
	CHECK_EQ(big.max_frames, 256);
	CHECK(big.max_wait_ns >= (uint64_t)(250 * ser), "256 ring: waited %llu ns",
			(unsigned long long)big.max_wait_ns);
	CHECK(big.max_depth + 200 * len <= def.max_depth,
			"egress depth %llu B, default ring %llu B",
			(unsigned long long)big.max_depth, (unsigned long long)def.max_depth);
	CHECK(big.marked < def.marked, "RED marked %llu, default ring %llu",
			(unsigned long long)big.marked, (unsigned long long)def.marked);
	CHECK_EQ(r.ce, big.marked);
	printf("NIC ring 2: %u frames, wait %llu ns, egress depth %llu B, %llu marked; "
	       "ring 256: %u frames, wait %llu ns, egress depth %llu B, %llu marked\n",
			def.max_frames, (unsigned long long)def.max_wait_ns,
			(unsigned long long)def.max_depth, (unsigned long long)def.marked,
			big.max_frames, (unsigned long long)big.max_wait_ns,
			(unsigned long long)big.max_depth, (unsigned long long)big.marked);
	sim_net_fini(&net);

	run_nic = (struct sim_nic_conf){.ring = 64, .comp_batch = 16, .comp_delay_ns = 1000};
	run(&t, 0, 1, dst, &r, &net);
	CHECK_EQ(r.got[0] + r.got[1], 2 * N_PKTS);
	CHECK_EQ(r.out_of_order, 0);
	CHECK_EQ(net.pkts_live, 0);
	batch = nic_figures(&net);
	CHECK(batch.max_desc == 64 && batch.max_frames < batch.max_desc,
			"batch 16: %u frames, %u descriptors", batch.max_frames, batch.max_desc);
	sim_net_fini(&net);

	/* The same 256-descriptor rings, the egress paced at the link rate
	 * with 16 KB (--nic-ring-kb): a frame waits in a ring at most 16 KB
	 * and its own wire time (and the wait's rounding up to the ns); the
	 * backlog is back in the class queues (deeper than unpaced), the
	 * bound held passes, and the last frame still arrives at the same
	 * time. */
	run_nic = (struct sim_nic_conf){.ring = 256, .ring_kb = 16};
	run(&t, 0, 1, dst, &r, &net);
	CHECK_EQ(r.got[0] + r.got[1], 2 * N_PKTS);
	CHECK_EQ(sim_net_drops(&net, -1), 0);
	CHECK_EQ(r.out_of_order, 0);
	CHECK_EQ(net.pkts_live, 0);
	{
		struct nic_fig paced = nic_figures(&net);
		double bound = (16 * 1024 + len + WIRE_OH) * 8.0 / 100 + 1;
		uint64_t holds = 0;

		for (unsigned int k = 0; k < t.n_nodes; k++)
			for (uint16_t q = 0; t.nodes[k].kind != SIM_HOST && q < t.nodes[k].n_ports;
					q++)
				holds += t.nodes[k].eg->port[q]->ring_holds;
		last = r.last_ns[0] > r.last_ns[1] ? r.last_ns[0] : r.last_ns[1];
		CHECK(paced.max_wait_ns <= bound && paced.max_wait_ns < big.max_wait_ns,
				"paced 16 KB: waited %llu ns, bound %.0f, unpaced %llu",
				(unsigned long long)paced.max_wait_ns, bound,
				(unsigned long long)big.max_wait_ns);
		CHECK(paced.max_frames > SIM_NIC_FRAMES && paced.max_frames < 256,
				"paced 16 KB: %u frames", paced.max_frames);
		CHECK(paced.max_depth > big.max_depth, "paced: egress depth %llu B, unpaced %llu B",
				(unsigned long long)paced.max_depth,
				(unsigned long long)big.max_depth);
		CHECK(holds > 0, "paced: no pass held by the ring");
		CHECK_EQ(r.ce, paced.marked);
		CHECK(last >= last_def - 2 && last <= last_def + 2,
				"paced: last arrival %llu, default ring %llu",
				(unsigned long long)last, (unsigned long long)last_def);
		printf("NIC ring 256 paced at 16 KB: %u frames, wait %llu ns (bound %.0f), egress "
		       "depth %llu B, %llu marked, %llu holds\n",
				paced.max_frames, (unsigned long long)paced.max_wait_ns, bound,
				(unsigned long long)paced.max_depth,
				(unsigned long long)paced.marked, (unsigned long long)holds);
	}
	sim_net_fini(&net);
	/* More on the wire than the egress's clock counts: refused. */
	run_nic = (struct sim_nic_conf){.ring_kb = 32};
	CHECK(sim_net_init_nic(&net, &t, WIRE_OH + 8, &run_nic, err, sizeof(err)) != 0 &&
					strstr(err, "wire overhead") != NULL,
			"paced, overhead %u: %s", WIRE_OH + 8, err);

	/* A batch that does not divide the ring. */
	run_nic = (struct sim_nic_conf){.ring = 64, .comp_batch = 5};
	CHECK(sim_net_init_nic(&net, &t, WIRE_OH, &run_nic, err, sizeof(err)) != 0 &&
					strstr(err, "divide") != NULL,
			"ring 64, batch 5: %s", err);
	run_nic = (struct sim_nic_conf){0};
	sim_topo_free(&t);
}

int
main(void)
{
	if (sim_eal_init("test_sim_net", 1024) != 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	test_flows();
	test_qos();
	test_pfc();
	test_shared_buffer();
	test_modes();
	test_nic_ring();
	return rtr_test_done("test_sim_net");
}
