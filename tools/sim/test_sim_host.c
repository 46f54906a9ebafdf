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
#include <stdio.h>
#include <string.h>

#include "rtr_egress.h"
#include "rtr_test.h"
#include "sim_host.h"
#include "sim_net.h"

#define DELAY_NS 1000
#define WIRE_OH	 RTR_EG_FRAME_OVERHEAD
#define HDR	 (14 + 20 + 8 + 12 + 4) /* Ethernet, IPv4, UDP, BTH, ICRC */

static const char QOS[] =
	"qos:\n  classes: 8\n  dscp: [{dscp: 26, class: 3}, {dscp: 48, class: 7}]\n"
	"  queue_kb: 4096\n  ecn: {enabled: true, kmin_kb: 100, kmax_kb: 400, pmax: 0.2}";

#define MAX_FLOWS 16

struct rec {
	uint64_t n;
	struct sim_flow f[MAX_FLOWS];
};

static void
on_done(void *arg, const struct sim_flow *f)
{
	struct rec *r = arg;

	if (f->id < MAX_FLOWS)
		r->f[f->id] = *f;
	r->n++;
}

struct world {
	struct sim_topo t;
	struct sim_net net;
	struct sim_hosts *h;
	struct rec rec;
};

static int
world_up(struct world *w, const char *prefix, const char *sections, const struct sim_host_cfg *c)
{
	struct sim_leafspine p = {.tors = 4, .spines = 2, .hosts_per_tor = 4, .host_gbps = 100,
		.link_delay_ns = DELAY_NS, .sections = sections};
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
}

int
main(void)
{
	if (sim_eal_init("test_sim_host", 1024) != 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	test_lone();
	return rtr_test_done("sim-host");
}
