/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * rocetor-sim (doc/simulator.md): a whole flow-completion-time run. A
 * topology of rocetor switches, hosts with RoCEv2 RC transport, a workload
 * from a CDF; writes DIR/fct.txt (one line per finished flow, in
 * completion order) and DIR/summary.json (parameters, the switches'
 * counters, ConWeave's reorder state sampled over time, link utilisation,
 * drops, PFC, the hosts' retransmissions, speed and memory).
 *
 * Exit status: 0 when the run completed (every started flow finished), 3
 * when the drain limit stopped it with flows unfinished, 2 on bad options,
 * 1 on any other failure.
 */

#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "rtr_drop.h"
#include "rtr_egress.h"
#include "rtr_json.h"
#include "rtr_lb.h"
#include "rtr_lb_counters.h"
#include "rtr_lb_registry.h"
#include "rtr_lb_worker.h"
#include "sim_host.h"
#include "sim_net.h"
#include "sim_workload.h"

#define PROG     "rocetor-sim"
#define SEE_HELP " (see --help)"

/* Per-packet headers of a RoCEv2 data frame as sim_roce_build writes it:
 * Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4. */
#define SIM_DATA_HDR 58
/* An ACK as sim_host sends it: those headers and a 4-byte AETH. */
#define SIM_ACK_LEN 62

struct opts {
	const char *topo;
	unsigned int tors, spines, hosts_per_tor, k;
	double link_gbps, uplink_gbps;
	uint64_t link_delay_ns;
	const char *workload;
	double load;
	bool load_wire; /* --load-basis wire */
	double duration_ms;
	double util_from_ms; /* the utilisation window's start; < 0: the default */
	uint64_t max_flows;  /* 0: no limit */
	const char *lb;
	enum sim_transport transport;
	const char *config;
	uint64_t seed;
	const char *out;
	unsigned int qps_per_flow; /* 0: the default for the mode */
	unsigned int reps;
	unsigned int wire_overhead;
	unsigned int nic_ring, nic_comp_batch, nic_pad; /* the switch ports' NICs */
	unsigned int nic_ring_kb;                       /* the egress's paced ring, 0: off */
	bool buffer_shared;     /* --buffer shared: qos.buffer of the default qos */
	unsigned int buffer_kb; /* --buffer-kb: its size_kb */
	uint64_t nic_comp_delay_ns;
	double drain_ms;
	double sample_us;
	double uplink_us; /* --uplink-us: the uplink imbalance's period, 0: off */
	const char *link_down, *slow_link;
	bool hpt_set; /* --hosts-per-tor given */
	bool fattree;
	bool quiet;
};

/* One reorder-state sample (ConWeave): across the switches. */
struct sample {
	uint32_t queues_max; /* most reorder queues in use on one switch */
	uint32_t queues_sum;
	uint32_t held_max; /* most packets held on one switch */
	uint32_t held_sum;
};

struct run {
	struct opts o;
	struct sim_topo topo;
	struct sim_net net;
	struct sim_hosts *hosts;
	struct sim_cdf cdf;
	struct sim_workload wl;
	struct sim_host_cfg hcfg;
	char *sections; /* what every switch's config gets (build_sections) */
	FILE *fct;
	uint64_t start_ns, end_ns; /* arrivals in [start, end) */
	uint64_t started, finished;
	uint64_t start_failed; /* sim_hosts_start refused (out of memory) */
	bool arrivals_done;    /* --flows reached */
	/* The ideal FCT's parts per (src, dst) host pair. */
	double *base_rtt_ns; /* n_hosts x n_hosts */
	double *bottleneck_gbps;
	/* Link utilisation over [0, end] and [from, end]: tx wire bytes at
	 * end and at from. */
	uint64_t **wire_at_end, **wire_at_from;
	uint64_t from_ns;
	bool snap_done;
	/* Wire bytes the links carry per payload byte (computed under either
	 * basis; --load-basis wire scales the arrivals by it); and the parts
	 * it is made of, per flow. */
	double wire_per_payload, pkts_per_flow, acks_per_flow;
	/* Reorder samples. */
	struct sample *smp;
	size_t n_smp, cap_smp;
	uint64_t sample_ns;
	bool sampling;
	/* Uplink imbalance (the ConWeave paper's Fig. 14, its artifact's
	 * analysis/plot_uplink.py): every up_ns, per ToR, (max - min) / mean
	 * of the bytes its fabric ports sent in the period, in %; periods
	 * inside [from_ns, end_ns] with any bytes sent, one value each. */
	uint64_t up_ns;
	uint64_t **up_last; /* tx_bytes per ToR port at the last sample */
	double *up_v;
	size_t n_up, cap_up;
	FILE *up_f;                 /* uplink.txt: "t_ns tor pct" per value */
	uint64_t min_slowdown_x1e6; /* fct / ideal, smallest, x 1e6 */
	uint64_t flows_below_ideal;
};

static void
usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [options] --workload FILE --out DIR\n"
		   "  --topo leafspine|fattree     topology (leafspine)\n"
		   "  --tors N --spines N --hosts-per-tor N   leaf-spine size (8, 8, 16)\n"
		   "  --k K                        fat-tree arity (4); hosts per ToR: k/2 unless\n"
		   "                               --hosts-per-tor\n"
		   "  --link-gbps G                host links (100)\n"
		   "  --uplink-gbps G              ToR-spine links (--link-gbps)\n"
		   "  --link-delay-ns NS           every link's propagation delay (1000)\n"
		   "  --workload FILE              flow-size CDF (\"size percent\" lines)\n"
		   "  --load X                     core load, host load = X / oversubscription "
		   "(0.5)\n"
		   "  --load-basis payload|wire    the load counts payload bytes (the artifact's\n"
		   "                               generator) or the links' wire bytes: data\n"
		   "                               frames and their ACKs, headers and overhead\n"
		   "                               included (payload)\n"
		   "  --util-from-ms MS            links' utilisation also over [MS, duration]\n"
		   "                               (min(5, duration / 2))\n"
		   "  --duration-ms MS             flows start in [0, MS) (10)\n"
		   "  --flows N                    start at most N flows (tests)\n"
		   "  --lb MODE                    the switches' LB mode (ecmp)\n"
		   "  --transport lossless|irn     go-back-N with PFC, or IRN without (lossless)\n"
		   "  --config FILE                YAML: qos and LB sections of a rocetor config\n"
		   "  --seed N                     workload seed (1)\n"
		   "  --out DIR                    writes DIR/fct.txt and DIR/summary.json\n"
		   "  --qps-per-flow N             SeqBalance Shaper: QPs per message\n"
		   "                               (seqbalance: 4, else 1)\n"
		   "  --reps 0|1                   REPS-style per-packet entropy senders (0)\n"
		   "  --wire-overhead B            bytes per frame beyond it on the wire (24)\n"
		   "  --nic-ring N                 switch ports' NIC TX ring, descriptors (2;\n"
		   "                               a real NIC's is 1024: a hidden queue)\n"
		   "  --nic-comp-batch B           descriptors freed together, divides N (1)\n"
		   "  --nic-comp-delay-ns NS       last bit of a batch to its free (0)\n"
		   "  --nic-pad 0|1                switch ports pad frames under 60 B (0)\n"
		   "  --nic-ring-kb K              switch ports' egress paced at the link rate,\n"
		   "                               at most K KB in the NIC ring (0: off)\n"
		   "  --buffer static|shared       the default qos's switch buffer: per-class\n"
		   "                               queues, or one shared pool per switch\n"
		   "                               (doc/egress.md \"Shared buffer\") (static)\n"
		   "  --buffer-kb K                the shared pool's size (9216)\n"
		   "  --drain-ms MS                stop this long after the last arrival (100)\n"
		   "  --sample-us US               reorder-state sampling period (10)\n"
		   "  --uplink-us US               uplink imbalance period: per ToR, (max - min)\n"
		   "                               / mean of its uplinks' bytes (100; 0: off)\n"
		   "  --link-down A:B[,..]         links left out (fat-tree/leaf-spine scenarios)\n"
		   "  --slow-link A:B:GBPS[,..]    links run slower\n"
		   "  --quiet                      no progress line\n");
}

/* A bad option: one line, exit status 2 (as rocetor's). */
static int __attribute__((format(printf, 1, 2))) bad(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see --help)\n");
	return 2;
}

static int
num_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || x < lo || x > hi) {
		fprintf(stderr, PROG ": %s: expected an integer in %llu..%llu, got \"%s\"%s\n", opt,
				(unsigned long long)lo, (unsigned long long)hi, s, SEE_HELP);
		return -1;
	}
	*v = x;
	return 0;
}

static int
num_uint(const char *opt, const char *s, unsigned int lo, unsigned int hi, unsigned int *v)
{
	uint64_t x;

	if (num_u64(opt, s, lo, hi, &x) != 0)
		return -1;
	*v = (unsigned int)x;
	return 0;
}

/* A number in (lo, hi] (lo_incl: [lo, hi]). */
static int
num_dbl(const char *opt, const char *s, double lo, bool lo_incl, double hi, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(x) || x > hi ||
			(lo_incl ? x < lo : x <= lo)) {
		fprintf(stderr, PROG ": %s: expected a number in %s%g..%g], got \"%s\"%s\n", opt,
				lo_incl ? "[" : "(", lo, hi, s, SEE_HELP);
		return -1;
	}
	*v = x;
	return 0;
}

enum {
	O_TOPO = 256,
	O_TORS,
	O_SPINES,
	O_HPT,
	O_K,
	O_GBPS,
	O_UPGBPS,
	O_DELAY,
	O_WL,
	O_LOAD,
	O_LOAD_BASIS,
	O_UTIL_FROM,
	O_DUR,
	O_FLOWS,
	O_LB,
	O_TR,
	O_CONFIG,
	O_SEED,
	O_OUT,
	O_QPS,
	O_REPS,
	O_WIRE,
	O_NIC_RING,
	O_NIC_BATCH,
	O_NIC_DELAY,
	O_NIC_PAD,
	O_NIC_RING_KB,
	O_BUFFER,
	O_BUFFER_KB,
	O_DRAIN,
	O_SAMPLE,
	O_UPLINK,
	O_DOWN,
	O_SLOW,
	O_QUIET,
	O_HELP,
};

static const struct option long_opts[] = {
		{"topo", required_argument, NULL, O_TOPO},
		{"tors", required_argument, NULL, O_TORS},
		{"spines", required_argument, NULL, O_SPINES},
		{"hosts-per-tor", required_argument, NULL, O_HPT},
		{"k", required_argument, NULL, O_K},
		{"link-gbps", required_argument, NULL, O_GBPS},
		{"uplink-gbps", required_argument, NULL, O_UPGBPS},
		{"link-delay-ns", required_argument, NULL, O_DELAY},
		{"workload", required_argument, NULL, O_WL},
		{"load", required_argument, NULL, O_LOAD},
		{"load-basis", required_argument, NULL, O_LOAD_BASIS},
		{"util-from-ms", required_argument, NULL, O_UTIL_FROM},
		{"duration-ms", required_argument, NULL, O_DUR},
		{"flows", required_argument, NULL, O_FLOWS},
		{"lb", required_argument, NULL, O_LB},
		{"transport", required_argument, NULL, O_TR},
		{"config", required_argument, NULL, O_CONFIG},
		{"seed", required_argument, NULL, O_SEED},
		{"out", required_argument, NULL, O_OUT},
		{"qps-per-flow", required_argument, NULL, O_QPS},
		{"reps", required_argument, NULL, O_REPS},
		{"wire-overhead", required_argument, NULL, O_WIRE},
		{"nic-ring", required_argument, NULL, O_NIC_RING},
		{"nic-comp-batch", required_argument, NULL, O_NIC_BATCH},
		{"nic-comp-delay-ns", required_argument, NULL, O_NIC_DELAY},
		{"nic-pad", required_argument, NULL, O_NIC_PAD},
		{"nic-ring-kb", required_argument, NULL, O_NIC_RING_KB},
		{"buffer", required_argument, NULL, O_BUFFER},
		{"buffer-kb", required_argument, NULL, O_BUFFER_KB},
		{"drain-ms", required_argument, NULL, O_DRAIN},
		{"sample-us", required_argument, NULL, O_SAMPLE},
		{"uplink-us", required_argument, NULL, O_UPLINK},
		{"link-down", required_argument, NULL, O_DOWN},
		{"slow-link", required_argument, NULL, O_SLOW},
		{"quiet", no_argument, NULL, O_QUIET},
		{"help", no_argument, NULL, O_HELP},
		{NULL, 0, NULL, 0},
};

/* 0, 1 for --help (exit 0), or 2. */
static int
parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){
			.topo = "leafspine",
			.tors = 8,
			.spines = 8,
			.hosts_per_tor = 16,
			.k = 4,
			.link_gbps = 100,
			.link_delay_ns = 1000,
			.load = 0.5,
			.duration_ms = 10,
			.util_from_ms = -1,
			.lb = "ecmp",
			.transport = SIM_TR_GBN,
			.seed = 1,
			.wire_overhead = RTR_EG_FRAME_OVERHEAD,
			.buffer_kb = 9216,
			.nic_ring = SIM_NIC_FRAMES,
			.nic_comp_batch = 1,
			.drain_ms = 100,
			.sample_us = 10,
			.uplink_us = 100,
	};
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		int rc = 0;

		switch (c) {
		case O_TOPO:
			if (strcmp(optarg, "leafspine") != 0 && strcmp(optarg, "fattree") != 0)
				return bad("--topo: expected leafspine or fattree, got \"%s\"",
						optarg);
			o->topo = optarg;
			break;
		case O_TORS:
			rc = num_uint("--tors", optarg, 1, 32, &o->tors);
			break;
		case O_SPINES:
			rc = num_uint("--spines", optarg, 1, 64, &o->spines);
			break;
		case O_HPT:
			rc = num_uint("--hosts-per-tor", optarg, 1, 31, &o->hosts_per_tor);
			o->hpt_set = true;
			break;
		case O_K:
			rc = num_uint("--k", optarg, 2, 16, &o->k);
			break;
		case O_GBPS:
			rc = num_dbl("--link-gbps", optarg, 0, false, 1600, &o->link_gbps);
			break;
		case O_UPGBPS:
			rc = num_dbl("--uplink-gbps", optarg, 0, false, 1600, &o->uplink_gbps);
			break;
		case O_DELAY:
			rc = num_u64("--link-delay-ns", optarg, 0, 1000000000, &o->link_delay_ns);
			break;
		case O_WL:
			o->workload = optarg;
			break;
		case O_LOAD:
			rc = num_dbl("--load", optarg, 0, false, 64, &o->load);
			break;
		case O_LOAD_BASIS:
			if (strcmp(optarg, "payload") != 0 && strcmp(optarg, "wire") != 0)
				return bad("--load-basis: expected payload or wire, got \"%s\"",
						optarg);
			o->load_wire = strcmp(optarg, "wire") == 0;
			break;
		case O_UTIL_FROM:
			rc = num_dbl("--util-from-ms", optarg, 0, true, 1e6, &o->util_from_ms);
			break;
		case O_DUR:
			rc = num_dbl("--duration-ms", optarg, 0, false, 1e6, &o->duration_ms);
			break;
		case O_FLOWS:
			rc = num_u64("--flows", optarg, 1, UINT64_MAX - 1, &o->max_flows);
			break;
		case O_LB: {
			int id = rtr_lb_mode_find(optarg);

			if (id < 0 || rtr_lb_mode_ops((unsigned int)id, false) == NULL) {
				char names[256];

				return bad("--lb: unknown mode \"%s\" (implemented: %s)", optarg,
						rtr_lb_mode_list(names, sizeof(names), ", ", true));
			}
			o->lb = optarg;
			break;
		}
		case O_TR:
			if (strcmp(optarg, "lossless") == 0)
				o->transport = SIM_TR_GBN;
			else if (strcmp(optarg, "irn") == 0)
				o->transport = SIM_TR_IRN;
			else
				return bad("--transport: expected lossless or irn, got \"%s\"",
						optarg);
			break;
		case O_CONFIG:
			o->config = optarg;
			break;
		case O_SEED:
			rc = num_u64("--seed", optarg, 0, UINT64_MAX, &o->seed);
			break;
		case O_OUT:
			o->out = optarg;
			break;
		case O_QPS:
			rc = num_uint("--qps-per-flow", optarg, 1, 64, &o->qps_per_flow);
			break;
		case O_REPS:
			rc = num_uint("--reps", optarg, 0, 1, &o->reps);
			break;
		case O_WIRE:
			rc = num_uint("--wire-overhead", optarg, 0, 64, &o->wire_overhead);
			break;
		case O_NIC_RING:
			rc = num_uint("--nic-ring", optarg, 1, 32768, &o->nic_ring);
			break;
		case O_NIC_BATCH:
			rc = num_uint("--nic-comp-batch", optarg, 1, 32768, &o->nic_comp_batch);
			break;
		case O_NIC_DELAY:
			rc = num_u64("--nic-comp-delay-ns", optarg, 0, 1000000000,
					&o->nic_comp_delay_ns);
			break;
		case O_NIC_PAD:
			rc = num_uint("--nic-pad", optarg, 0, 1, &o->nic_pad);
			break;
		case O_NIC_RING_KB:
			rc = num_uint("--nic-ring-kb", optarg, 0, 65536, &o->nic_ring_kb);
			break;
		case O_BUFFER:
			if (strcmp(optarg, "static") == 0)
				o->buffer_shared = false;
			else if (strcmp(optarg, "shared") == 0)
				o->buffer_shared = true;
			else
				return bad("--buffer: expected static or shared, got \"%s\"",
						optarg);
			break;
		case O_BUFFER_KB:
			rc = num_uint("--buffer-kb", optarg, 64, 1048576, &o->buffer_kb);
			break;
		case O_DRAIN:
			rc = num_dbl("--drain-ms", optarg, 0, false, 1e6, &o->drain_ms);
			break;
		case O_SAMPLE:
			rc = num_dbl("--sample-us", optarg, 0, false, 1e6, &o->sample_us);
			break;
		case O_UPLINK:
			rc = num_dbl("--uplink-us", optarg, 0, true, 1e6, &o->uplink_us);
			break;
		case O_DOWN:
			o->link_down = optarg;
			break;
		case O_SLOW:
			o->slow_link = optarg;
			break;
		case O_QUIET:
			o->quiet = true;
			break;
		case O_HELP:
			usage(stdout);
			return 1;
		default:
			return bad("unknown or incomplete option \"%s\"", argv[optind - 1]);
		}
		if (rc != 0)
			return 2;
	}
	if (optind < argc)
		return bad("unexpected argument \"%s\"", argv[optind]);
	if (o->workload == NULL)
		return bad("--workload FILE is required");
	if (o->out == NULL)
		return bad("--out DIR is required");
	o->fattree = strcmp(o->topo, "fattree") == 0;
	if (o->fattree) {
		if (o->k % 2 != 0)
			return bad("--k: a fat-tree's k is even, got %u", o->k);
		if (o->uplink_gbps != 0 && o->uplink_gbps != o->link_gbps)
			return bad("--uplink-gbps: a fat-tree's links all run at --link-gbps "
				   "(use --slow-link for single links)");
		if (o->hpt_set && o->hosts_per_tor + o->k / 2 > RTR_MAX_PORTS)
			return bad("--hosts-per-tor + k/2: a ToR has at most %d ports",
					RTR_MAX_PORTS);
	} else {
		if (o->tors * o->hosts_per_tor < 2)
			return bad("a run needs at least 2 hosts");
		if (o->hosts_per_tor + o->spines > RTR_MAX_PORTS)
			return bad("--hosts-per-tor + --spines: a ToR has at most %d ports",
					RTR_MAX_PORTS);
	}
	if (o->nic_ring % o->nic_comp_batch != 0)
		return bad("--nic-comp-batch %u does not divide --nic-ring %u", o->nic_comp_batch,
				o->nic_ring);
	if (o->nic_ring_kb > 0 && o->wire_overhead > RTR_EG_FRAME_OVERHEAD)
		return bad("--nic-ring-kb: the egress's clock counts %u bytes a frame beyond it, "
			   "not --wire-overhead %u (the ring would outgrow its bound)",
				RTR_EG_FRAME_OVERHEAD, o->wire_overhead);
	if (o->util_from_ms < 0)
		o->util_from_ms = o->duration_ms / 2 < 5 ? o->duration_ms / 2 : 5;
	else if (o->util_from_ms >= o->duration_ms)
		return bad("--util-from-ms %g: the window [MS, %g] of --duration-ms is empty",
				o->util_from_ms, o->duration_ms);
	if (o->uplink_gbps == 0)
		o->uplink_gbps = o->link_gbps;
	if (o->qps_per_flow == 0)
		o->qps_per_flow = strcmp(o->lb, "seqbalance") == 0 ? 4 : 1;
	return 0;
}

/* ---------------------------------------------------------------- config */

/* The papers' switch settings when --config gives none: the qos of
 * conf/sim/lossless.yaml and conf/sim/irn.yaml (which tools/sim/evaluate.py
 * passes), the ConWeave artifact's switch in rocetor's terms: RED Kmin 100
 * KB, Kmax 400 KB, Pmax 0.2 on the data class (DSCP 26, class 3); ACKs,
 * NACKs and CNPs (DSCP 48) in class 6. The artifact's PFC threshold is
 * dynamic (a 9 MB shared buffer, alpha 1/16: about 0.5 MB per ingress
 * queue while the buffer is mostly free); rocetor's is static per ingress
 * port and class (XOFF 512 KB), with class queues deep enough that PFC,
 * not the tail, bounds them. IRN: no PFC, the tail at 4.5 MB. */
static const char qos_lossless[] =
		"qos:\n"
		"  classes: 8\n"
		"  dscp: [{dscp: 26, class: 3}, {dscp: 48, class: 6}]\n"
		"  queue_kb: 9216\n"
		"  ecn: {enabled: true, kmin_kb: 100, kmax_kb: 400, pmax: 0.2}\n"
		"  pfc: {mode: software, classes: [3], xoff_kb: 512, xon_kb: 496}\n";
static const char qos_irn[] = "qos:\n"
			      "  classes: 8\n"
			      "  dscp: [{dscp: 26, class: 3}, {dscp: 48, class: 6}]\n"
			      "  queue_kb: 4608\n"
			      "  ecn: {enabled: true, kmin_kb: 100, kmax_kb: 400, pmax: 0.2}\n"
			      "  pfc: {mode: off}\n";

/* A mode's section when --config has none: rocetor's defaults, but for
 * the flow table, sized to the run (flow_table_entries), 256 reorder queues
 * per host port (rocetor's 4096 cost memory and nothing else at simulated
 * scale: reorder_overflow would say when a run outgrows them), and
 * ConWeave's, SeqBalance's and CONGA's destination prefix: a ToR's hosts are
 * 10.(t+1).0.0/16, so busy and inactive marks are per destination ToR, as in
 * the papers. */
static const char sec_conweave[] = "conweave:\n"
				   "  dst_prefix_len: 16\n"
				   "  reorder_queues_per_port: 256\n";
static const char sec_seqbalance[] = "seqbalance:\n  dst_prefix_len: 16\n";
static const char sec_caver[] = "caver:\n";
static const char sec_spray[] = "spray:\n";
static const char sec_letflow[] = "letflow:\n";
/* CONGA's leaves as ConWeave's DstToRs: a ToR's hosts, 10.(t+1).0.0/16. */
static const char sec_conga[] = "conga:\n  dst_prefix_len: 16\n";

/*
 * The flow table a ToR needs for this run. A flow's entry outlives it:
 * entries age only after max(100 ms, 4 x theta_inactive) idle
 * (doc/conweave.md "Flow table"), longer than a run, so a ToR keeps an entry
 * for every flow it sourced or sank (ConWeave: both roles in one table;
 * SeqBalance's Shaper: one per QP). doc/conweave.md sizes the table at 4 x
 * the flows it holds: a table of 65,536 on the 128-host fabric for 20 ms at
 * load 0.5 (about 49,000 entries per ToR by the end) sent 450,000 packets
 * by ECMP as flow_table_full. The expected count is the workload's rate
 * (the artifact's load definition) times the arrival window; the table is
 * the power of two at or above 4 x that, 65,536 to 4,194,304 (512 MB of
 * 128-byte entries per ToR).
 */
static uint64_t
flow_table_entries(const struct opts *o, double cdf_mean)
{
	double hosts, tors, oversub, flows, per_tor;
	uint64_t n = 65536;

	if (o->fattree) {
		double hpt = o->hpt_set ? o->hosts_per_tor : o->k / 2.0;

		tors = (double)o->k * o->k / 2;
		hosts = tors * hpt;
		oversub = hpt / (o->k / 2.0);
	} else {
		tors = o->tors;
		hosts = (double)o->tors * o->hosts_per_tor;
		oversub = o->hosts_per_tor * o->link_gbps /
			  (o->spines * (o->uplink_gbps > 0 ? o->uplink_gbps : o->link_gbps));
	}
	flows = hosts * o->duration_ms * 1e6 / (cdf_mean * 8 / (o->link_gbps * o->load / oversub));
	if (o->max_flows > 0 && (double)o->max_flows < flows)
		flows = (double)o->max_flows;
	per_tor = 2 * flows / tors * (strcmp(o->lb, "seqbalance") == 0 ? o->qps_per_flow : 1);
	while ((double)n < 4 * per_tor && n < (1u << 22))
		n <<= 1;
	return n;
}

/* Whether YAML text has a top-level key name (at the start of a line). */
static bool
has_section(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *p = text;

	while (p != NULL) {
		if (strncmp(p, name, n) == 0 && p[n] == ':')
			return true;
		p = strchr(p, '\n');
		if (p != NULL)
			p++;
	}
	return false;
}

/* The sections every switch gets: --config's, plus the default qos when it
 * has none, plus the mode's default section when it has none of the mode.
 * NULL on failure (message printed). */
static char *
build_sections(const struct opts *o, double cdf_mean)
{
	char *cfg = NULL, *out;
	size_t len = 0, cap;
	bool added;

	if (o->config != NULL) {
		FILE *f = fopen(o->config, "r");
		long n;

		if (f == NULL) {
			fprintf(stderr, PROG ": --config %s: %s\n", o->config, strerror(errno));
			return NULL;
		}
		if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
				fseek(f, 0, SEEK_SET) != 0 ||
				(cfg = malloc((size_t)n + 2)) == NULL ||
				fread(cfg, 1, (size_t)n, f) != (size_t)n) {
			fprintf(stderr, PROG ": --config %s: cannot read\n", o->config);
			fclose(f);
			free(cfg);
			return NULL;
		}
		fclose(f);
		cfg[n] = '\0';
		if (n > 0 && cfg[n - 1] != '\n')
			strcat(cfg, "\n");
		len = strlen(cfg);
	}
	cap = len + sizeof(qos_lossless) + sizeof(sec_conweave) + 128;
	out = malloc(cap);
	if (out == NULL) {
		free(cfg);
		return NULL;
	}
	snprintf(out, cap, "%s", cfg ? cfg : "");
	if (!has_section(out, "qos")) {
		strcat(out, o->transport == SIM_TR_GBN ? qos_lossless : qos_irn);
		if (o->buffer_shared)
			snprintf(out + strlen(out), cap - strlen(out),
					"  buffer: {mode: shared, size_kb: %u}\n", o->buffer_kb);
	} else if (o->buffer_shared) {
		fprintf(stderr, PROG ": --buffer shared: --config has a qos section; set "
				     "qos.buffer there\n");
		free(cfg);
		free(out);
		return NULL;
	}
	added = true;
	if (strcmp(o->lb, "conweave") == 0 && !has_section(out, o->lb)) {
		/* base_rtt_us is the ToR-to-ToR base RTT, which the RTT_REPLY
		 * deadline adds theta_reply_us to: 2 links each way between
		 * ToRs of a leaf-spine, 4 between pods of a fat-tree, counted
		 * as the artifact counts a base RTT (twice the delay plus a
		 * 1000-byte payload per link), to the nearest microsecond (4
		 * for 1 us links at 100G, rocetor's default; 8 in the fat-tree). */
		unsigned int links = o->fattree ? 4 : 2;
		double rtt_ns = 2.0 * links * (double)o->link_delay_ns +
				links * 8000.0 / o->link_gbps;
		long us = lround(rtt_ns / 1000);

		strcat(out, sec_conweave);
		snprintf(out + strlen(out), cap - strlen(out), "  base_rtt_us: %ld\n",
				us < 1 ? 1 : us);
	} else if (strcmp(o->lb, "seqbalance") == 0 && !has_section(out, o->lb))
		strcat(out, sec_seqbalance);
	else if (strcmp(o->lb, "caver") == 0 && !has_section(out, o->lb))
		strcat(out, sec_caver);
	else if (strcmp(o->lb, "spray") == 0 && !has_section(out, o->lb))
		strcat(out, sec_spray);
	else if (strcmp(o->lb, "letflow") == 0 && !has_section(out, o->lb))
		strcat(out, sec_letflow);
	else if (strcmp(o->lb, "conga") == 0 && !has_section(out, o->lb))
		strcat(out, sec_conga);
	else
		added = false;
	if (added)
		snprintf(out + strlen(out), cap - strlen(out), "  flow_table_size: %" PRIu64 "\n",
				flow_table_entries(o, cdf_mean));
	free(cfg);
	return out;
}

/* ----------------------------------------------------------- ideal FCT */

/* The ConWeave artifact's standalone FCT (its qp_finish): base_rtt + all
 * bytes on the wire at the path's bottleneck rate, where base_rtt = twice
 * the path's propagation delay + one 1000-byte payload's serialization
 * per link, and the bytes are the message plus each packet's headers (ours:
 * SIM_DATA_HDR + the wire overhead, so that it counts what our links
 * carry). The path: of the shortest ones over links that are up, the one
 * with the fastest bottleneck, then the least base_rtt (a breadth-first
 * search that keeps the best way into each node: every node of one
 * distance is reached from the one before). */
struct ideal_best {
	uint32_t dist;
	double bn, delay, ser;
};

static bool
ideal_better(double bn, double rtt, const struct ideal_best *b)
{
	return bn > b->bn || (bn == b->bn && rtt < 2 * b->delay + b->ser);
}

static int
ideal_init(struct run *r)
{
	const struct sim_topo *t = &r->topo;
	uint32_t nh = t->n_hosts, n = t->n_nodes;
	uint32_t *queue = malloc(n * sizeof(*queue));
	struct ideal_best *b = malloc(n * sizeof(*b));

	r->base_rtt_ns = malloc((size_t)nh * nh * sizeof(double));
	r->bottleneck_gbps = malloc((size_t)nh * nh * sizeof(double));
	if (queue == NULL || b == NULL || r->base_rtt_ns == NULL || r->bottleneck_gbps == NULL) {
		free(queue);
		free(b);
		return -1;
	}
	for (uint32_t s = 0; s < nh; s++) {
		uint32_t head = 0, tail = 0;

		for (uint32_t i = 0; i < n; i++)
			b[i].dist = UINT32_MAX;
		b[s] = (struct ideal_best){.dist = 0, .bn = 1e18};
		queue[tail++] = s;
		while (head < tail) {
			uint32_t u = queue[head++];

			/* Paths go through switches only. */
			if (u != s && t->nodes[u].kind == SIM_HOST)
				continue;
			for (uint16_t p = 0; p < t->nodes[u].n_ports; p++) {
				const struct sim_port *pt = &t->nodes[u].ports[p];
				uint32_t v = pt->peer;
				double bn = pt->gbps < b[u].bn ? pt->gbps : b[u].bn;
				double delay = b[u].delay + (double)pt->delay_ns;
				double ser = b[u].ser + 1000.0 * 8 / pt->gbps;

				if (pt->down)
					continue;
				if (b[v].dist == UINT32_MAX) {
					b[v] = (struct ideal_best){.dist = b[u].dist + 1,
							.bn = bn,
							.delay = delay,
							.ser = ser};
					queue[tail++] = v;
				} else if (b[v].dist == b[u].dist + 1 &&
						ideal_better(bn, 2 * delay + ser, &b[v])) {
					b[v].bn = bn;
					b[v].delay = delay;
					b[v].ser = ser;
				}
			}
		}
		for (uint32_t d = 0; d < nh; d++) {
			size_t k = (size_t)s * nh + d;
			bool ok = d != s && b[d].dist != UINT32_MAX;

			r->base_rtt_ns[k] = ok ? 2 * b[d].delay + b[d].ser : 0;
			r->bottleneck_gbps[k] = ok ? b[d].bn : 0;
		}
	}
	free(queue);
	free(b);
	return 0;
}

static double
ideal_fct(const struct run *r, uint32_t src, uint32_t dst, uint64_t size)
{
	size_t k = (size_t)src * r->topo.n_hosts + dst;
	uint64_t mtu = r->hcfg.mtu_payload, pkts = (size + mtu - 1) / mtu;
	double bytes = (double)size + (double)pkts * (SIM_DATA_HDR + r->o.wire_overhead);

	if (r->bottleneck_gbps[k] == 0)
		return 0; /* no path: never asked (such a flow cannot finish) */
	return r->base_rtt_ns[k] + bytes * 8 / r->bottleneck_gbps[k];
}

/* --------------------------------------------------------------- flows */

static void
ip_str(uint32_t ip, char *b, size_t len)
{
	snprintf(b, len, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

static void
flow_done(void *arg, const struct sim_flow *f)
{
	struct run *r = arg;
	double ideal = ideal_fct(r, f->src, f->dst, f->size);
	uint64_t fct = f->end_ns - f->start_ns, ideal_ns = (uint64_t)llround(ideal);
	char s[16], d[16];

	ip_str(f->src_ip, s, sizeof(s));
	ip_str(f->dst_ip, d, sizeof(d));
	fprintf(r->fct, "%s %s %u %u %llu %llu %llu %llu\n", s, d, f->sport, f->dport,
			(unsigned long long)f->size, (unsigned long long)f->start_ns,
			(unsigned long long)fct, (unsigned long long)ideal_ns);
	if (ideal_ns > 0) {
		uint64_t x = (uint64_t)((double)fct / (double)ideal_ns * 1e6);

		if (x < r->min_slowdown_x1e6)
			r->min_slowdown_x1e6 = x;
		r->flows_below_ideal += fct < ideal_ns;
	}
	r->finished++;
}

static void ev_arrival(struct sim *s, void *arg, uint64_t h);

static void
arm_arrival(struct run *r, uint32_t h)
{
	uint64_t t = sim_workload_next_ns(&r->wl, h);

	if (t != UINT64_MAX)
		sim_at(&r->net.sim, t, ev_arrival, r, h);
}

static void
ev_arrival(struct sim *s, void *arg, uint64_t h)
{
	struct run *r = arg;
	struct sim_workload_flow f;

	(void)s;
	if (r->arrivals_done || sim_workload_take(&r->wl, (uint32_t)h, &f) != 0)
		return;
	if (sim_hosts_start(r->hosts, f.src, f.dst, f.size) != UINT64_MAX)
		r->started++;
	else
		r->start_failed++;
	if (r->o.max_flows != 0 && r->started >= r->o.max_flows) {
		r->arrivals_done = true;
		return;
	}
	arm_arrival(r, (uint32_t)h);
}

/* Whether any host still has an arrival to come. */
static bool
arrivals_pending(const struct run *r)
{
	if (r->arrivals_done)
		return false;
	for (uint32_t h = 0; h < r->topo.n_hosts; h++)
		if (sim_workload_next_ns(&r->wl, h) != UINT64_MAX)
			return true;
	return false;
}

/* ------------------------------------------------------------ sampling */

/* A counter per port of every node (one spare), zeroed; NULL if out of
 * memory. The process ends without freeing them (see the end of main). */
static uint64_t **
port_counters(const struct sim_topo *t)
{
	uint64_t **c = calloc(t->n_nodes, sizeof(*c));

	for (uint32_t i = 0; c != NULL && i < t->n_nodes; i++) {
		c[i] = calloc(t->nodes[i].n_ports + 1u, sizeof(uint64_t));
		if (c[i] == NULL)
			return NULL;
	}
	return c;
}

static void
ev_snapshot(struct sim *s, void *arg, uint64_t u)
{
	struct run *r = arg;

	(void)s;
	/* u: 0 at the end of arrivals, 1 at the window's start. */
	for (uint32_t i = 0; i < r->topo.n_nodes; i++)
		for (uint16_t p = 0; p < r->topo.nodes[i].n_ports; p++)
			(u ? r->wire_at_from : r->wire_at_end)[i][p] =
					r->net.tx[i][p].tx_wire_bytes;
	if (u == 0)
		r->snap_done = true;
}

static void
ev_sample(struct sim *s, void *arg, uint64_t u)
{
	struct run *r = arg;
	struct sample x = {0};

	(void)u;
	if (!r->sampling)
		return;
	for (uint32_t i = r->topo.n_hosts; i < r->topo.n_nodes; i++) {
		const struct sim_node *n = &r->topo.nodes[i];
		/* ConWeave's rings or spray's windows: each mode counts
		 * only its own. */
		uint64_t q = r->net.st[i].lb[RTR_LBC_reorder_queues_in_use] +
			     r->net.st[i].lb[RTR_LBC_windows_in_use];
		uint64_t h = n->lb_state != NULL ? rtr_lb_held(n->lb_ops, n->lb_state) : 0;

		x.queues_max = q > x.queues_max ? (uint32_t)q : x.queues_max;
		x.queues_sum += (uint32_t)q;
		x.held_max = h > x.held_max ? (uint32_t)h : x.held_max;
		x.held_sum += (uint32_t)h;
	}
	if (r->n_smp == r->cap_smp) {
		size_t cap = r->cap_smp ? r->cap_smp * 2 : 4096;
		struct sample *ns = realloc(r->smp, cap * sizeof(*ns));

		if (ns == NULL) {
			r->sampling = false;
			return;
		}
		r->smp = ns;
		r->cap_smp = cap;
	}
	r->smp[r->n_smp++] = x;
	sim_after(s, r->sample_ns, ev_sample, r, 0);
}

/* (max - min) / mean of the n byte counts d, in %; < 0 if nothing was
 * sent (the artifact leaves such periods out). */
static double
imbalance_pct(const uint64_t *d, unsigned int n)
{
	uint64_t mx = 0, mn = UINT64_MAX, sum = 0;

	for (unsigned int i = 0; i < n; i++) {
		mx = d[i] > mx ? d[i] : mx;
		mn = d[i] < mn ? d[i] : mn;
		sum += d[i];
	}
	if (n == 0 || sum == 0)
		return -1;
	return (double)(mx - mn) * 100.0 * n / (double)sum;
}

static void
ev_uplink(struct sim *s, void *arg, uint64_t u)
{
	struct run *r = arg;
	uint64_t now = s->now_ns;
	bool in_window = now >= r->from_ns + r->up_ns && now <= r->end_ns;

	(void)u;
	for (uint32_t i = r->topo.n_hosts; i < r->topo.n_nodes; i++) {
		const struct sim_node *n = &r->topo.nodes[i];
		uint64_t d[RTR_MAX_PORTS];
		unsigned int k = 0;
		double v;

		if (n->kind != SIM_TOR)
			continue;
		for (uint16_t p = 0; p < n->n_ports; p++) {
			uint64_t b = r->net.tx[i][p].tx_bytes;

			if (!n->ports[p].fabric || n->ports[p].down)
				continue;
			d[k++] = b - r->up_last[i][p];
			r->up_last[i][p] = b;
		}
		if (!in_window || (v = imbalance_pct(d, k)) < 0)
			continue;
		if (r->n_up == r->cap_up) {
			size_t cap = r->cap_up ? r->cap_up * 2 : 4096;
			double *nv = realloc(r->up_v, cap * sizeof(*nv));

			if (nv == NULL)
				continue;
			r->up_v = nv;
			r->cap_up = cap;
		}
		r->up_v[r->n_up++] = v;
		if (r->up_f != NULL)
			fprintf(r->up_f, "%" PRIu64 " %u %.3f\n", now, n->index, v);
	}
	if (now + r->up_ns <= r->end_ns)
		sim_after(s, r->up_ns, ev_uplink, r, 0);
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The p-quantile (0..1) of one member of the samples, the nearest rank. */
static uint32_t
sample_pct(const struct run *r, size_t off, double p, uint32_t *max)
{
	uint32_t *v, res;

	*max = 0;
	if (r->n_smp == 0)
		return 0;
	v = malloc(r->n_smp * sizeof(*v));
	if (v == NULL)
		return 0;
	for (size_t i = 0; i < r->n_smp; i++)
		v[i] = *(const uint32_t *)(const void *)((const uint8_t *)&r->smp[i] + off);
	qsort(v, r->n_smp, sizeof(*v), cmp_u32);
	res = v[(size_t)ceil(p * (double)r->n_smp) - 1];
	*max = v[r->n_smp - 1];
	free(v);
	return res;
}

/* ------------------------------------------------------------ summary */

static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A node kind's name in link classes (a fat-tree's SIM_SPINE is an agg). */
static const char *
kind_name(const struct sim_topo *t, enum sim_node_kind k)
{
	if (t->k > 0 && k == SIM_SPINE)
		return "agg";
	switch (k) {
	case SIM_HOST:
		return "host";
	case SIM_TOR:
		return "tor";
	case SIM_SPINE:
		return "spine";
	case SIM_CORE:
		return "core";
	default:
		return "switch";
	}
}

struct util_class {
	char name[40];
	uint64_t links;
	double sum, max;
	double wsum, wmax; /* over [from, end] */
};

/* Link classes the load is judged on: a host's link either way, and a
 * ToR's fabric links either way (leaf-spine: to a spine; fat-tree: to an
 * agg). 1: host, 2: ToR fabric, 0: other. */
static int
load_group(const char *cls)
{
	if (strstr(cls, "host") != NULL)
		return 1;
	if (strcmp(cls, "tor_to_spine") == 0 || strcmp(cls, "spine_to_tor") == 0 ||
			strcmp(cls, "tor_to_agg") == 0 || strcmp(cls, "agg_to_tor") == 0)
		return 2;
	return 0;
}

/* summary.json: a top-level object of one-line objects, written member by
 * member with the JSON writer (strings escaped: paths may hold anything). */
static void
jw_obj(struct rtr_json *w, const char *name)
{
	if (w->depth == 0)
		rtr_json_obj(w);
	else
		rtr_json_obj_end(w);
	rtr_json_break(w, 2);
	rtr_json_key(w, name);
	rtr_json_obj(w);
}

static void
jw_end(struct rtr_json *w)
{
	rtr_json_obj_end(w);
	rtr_json_break(w, 0);
	rtr_json_obj_end(w);
}

/* Whether a YAML line starts the top-level section name ("name:"). */
static bool
line_is_section(const char *line, const char *name)
{
	size_t n = strlen(name);

	return strncmp(line, name, n) == 0 && line[n] == ':';
}

/*
 * What the switches ran, for summary.json (doc/simulator.md "summary.json"):
 * the qos section and the LB mode's section of the first ToR's config as
 * rtr_config_dump writes it (canonical YAML, every default filled in), so
 * that a run records its ConWeave holds, its RED and its PFC whether they
 * came from --config or from rocetor-sim's defaults. Every switch of a run
 * gets the same sections (build_sections). NULL when there is no ToR or no
 * memory.
 */
static char *
run_config_text(const struct run *r)
{
	const struct rtr_config *cfg = NULL;
	char *all, *out, *line, *o;
	bool keep = false;
	int n;

	for (uint32_t i = 0; i < r->topo.n_nodes && cfg == NULL; i++)
		if (r->topo.nodes[i].kind == SIM_TOR)
			cfg = r->topo.nodes[i].cfg;
	if (cfg == NULL || (n = rtr_config_dump(cfg, NULL, 0)) < 0)
		return NULL;
	all = malloc((size_t)n + 1);
	out = malloc((size_t)n + 1);
	if (all == NULL || out == NULL) {
		free(all);
		free(out);
		return NULL;
	}
	rtr_config_dump(cfg, all, (size_t)n + 1);
	o = out;
	for (line = all; *line != '\0';) {
		char *end = strchr(line, '\n');
		size_t len = end != NULL ? (size_t)(end - line) + 1 : strlen(line);

		/* A top-level key starts a section: keep qos and the mode's. */
		if (*line != ' ' && *line != '#' && *line != '-' && *line != '\n')
			keep = line_is_section(line, "qos") || line_is_section(line, r->o.lb);
		if (keep) {
			memcpy(o, line, len);
			o += len;
		}
		line += len;
	}
	*o = '\0';
	free(all);
	return out;
}

/*
 * The LB mode's section of text (run_config_text) as a JSON object: each
 * "  key: value" line of it, a number when the whole value reads as one,
 * else the value as a string. Nothing when the mode has no section (ECMP).
 */
static void
write_lb_config(struct rtr_json *w, const char *text, const char *lb)
{
	const char *line = text;
	bool in = false;

	rtr_json_key(w, "lb_config");
	rtr_json_obj(w);
	while (line != NULL && *line != '\0') {
		const char *end = strchr(line, '\n');
		size_t len = end != NULL ? (size_t)(end - line) : strlen(line);

		if (*line != ' ')
			in = line_is_section(line, lb);
		else if (in && len > 2 && line[2] != ' ' && len < 256) {
			char buf[256], *colon, *val, *num_end;
			double v;

			memcpy(buf, line + 2, len - 2);
			buf[len - 2] = '\0';
			colon = strstr(buf, ": ");
			if (colon != NULL) {
				*colon = '\0';
				val = colon + 2;
				errno = 0;
				v = strtod(val, &num_end);
				if (*val != '\0' && *num_end == '\0' && errno == 0 && isfinite(v))
					rtr_json_kv_double(w, buf, v, 15);
				else
					rtr_json_kv_str(w, buf, val);
			}
		}
		line = end != NULL ? end + 1 : NULL;
	}
	rtr_json_obj_end(w);
}

static void
write_summary(struct run *r, FILE *f, double wall_s, bool drained, uint64_t live_at_end)
{
	const struct opts *o = &r->o;
	struct sim_host_stats hs;
	struct rtr_lcore_stats *sum = calloc(1, sizeof(*sum));
	struct rtr_lcore_stats **sw = calloc(r->topo.n_switches, sizeof(*sw));
	struct util_class uc[16];
	unsigned int n_uc = 0;
	uint64_t host_sent = 0, eg[RTR_MAX_CLASSES][RTR_EGC_MAX];
	uint64_t rx_pfc_sw = 0, rx_pfc_host = 0, tx_xoff = 0, tx_xon = 0;
	uint64_t sb_peak = 0; /* the most of a switch's shared pool in use */
	double win_ns = (double)r->end_ns, from_win_ns = (double)(r->end_ns - r->from_ns);
	double g_sum[3] = {0}, g_max[3] = {0};
	uint64_t g_n[3] = {0};
	char *cfg_text = run_config_text(r);
	struct rtr_json w;
	struct rusage ru;

	if (sum == NULL || sw == NULL) {
		free(sum);
		free(sw);
		free(cfg_text);
		return;
	}
	rtr_json_init(&w, f);
	sim_hosts_stats(r->hosts, &hs);
	memset(eg, 0, sizeof(eg));
	for (uint32_t i = 0; i < r->topo.n_switches; i++)
		sw[i] = &r->net.st[r->topo.n_hosts + i];
	rtr_stats_sum(sw, r->topo.n_switches, rtr_lb_counter_max, rtr_lb_counter_n_max, sum);

	/* Links: utilisation over [0, end of arrivals], by class. */
	for (uint32_t i = 0; i < r->topo.n_nodes; i++) {
		const struct sim_node *n = &r->topo.nodes[i];

		for (uint16_t p = 0; p < n->n_ports; p++) {
			const struct sim_port *pt = &n->ports[p];
			double bits = (double)r->wire_at_end[i][p] * 8;
			double u = win_ns > 0 ? bits / (pt->gbps * win_ns) : 0;
			double wbits = (double)(r->wire_at_end[i][p] - r->wire_at_from[i][p]) * 8;
			double wu = from_win_ns > 0 ? wbits / (pt->gbps * from_win_ns) : 0;
			char name[40];
			unsigned int c;

			if (pt->down)
				continue;
			if (n->kind == SIM_HOST)
				host_sent += r->net.tx[i][p].tx_pkts;
			snprintf(name, sizeof(name), "%s_to_%s", kind_name(&r->topo, n->kind),
					kind_name(&r->topo, r->topo.nodes[pt->peer].kind));
			for (c = 0; c < n_uc && strcmp(uc[c].name, name) != 0; c++)
				;
			if (c == n_uc) {
				if (n_uc == RTR_ARRAY_SIZE(uc))
					continue;
				memset(&uc[c], 0, sizeof(uc[c]));
				snprintf(uc[c].name, sizeof(uc[c].name), "%s", name);
				n_uc++;
			}
			uc[c].links++;
			uc[c].sum += u;
			uc[c].max = u > uc[c].max ? u : uc[c].max;
			uc[c].wsum += wu;
			uc[c].wmax = wu > uc[c].wmax ? wu : uc[c].wmax;
			{
				int g = load_group(name);

				g_n[g]++;
				g_sum[g] += wu;
				g_max[g] = wu > g_max[g] ? wu : g_max[g];
			}
			if (n->kind != SIM_HOST && n->eg != NULL) {
				struct rtr_eg_port_report rep;
				struct rtr_egress *e = n->eg;

				if (e->sb_peak > sb_peak)
					sb_peak = e->sb_peak;

				rtr_egress_report(&e, 1, n->eg_shared, p, r->net.sim.now_ns, &rep);
				for (unsigned int cl = 0; cl < rep.n_classes; cl++)
					for (unsigned int k = 0; k < RTR_EGC_MAX; k++) {
						uint64_t v = rep.c[cl][k];

						if (k != RTR_EGC_max_depth)
							eg[cl][k] += v;
						else if (v > eg[cl][k])
							eg[cl][k] = v;
					}
				rx_pfc_sw += rep.rx_pfc;
				tx_xoff += rep.tx_xoff;
				tx_xon += rep.tx_xon;
			} else if (n->kind == SIM_HOST) {
				rx_pfc_host += r->net.tx[i][p].rx_pfc;
			}
		}
	}

	jw_obj(&w, "params");
	rtr_json_kv_str(&w, "topo", o->topo);
	rtr_json_kv_u64(&w, "tors", o->fattree ? 0 : o->tors);
	rtr_json_kv_u64(&w, "spines", o->fattree ? 0 : o->spines);
	rtr_json_kv_u64(&w, "hosts_per_tor", r->topo.hosts_per_tor);
	rtr_json_kv_u64(&w, "hosts", r->topo.n_hosts);
	rtr_json_kv_u64(&w, "switches", r->topo.n_switches);
	rtr_json_kv_u64(&w, "k", o->fattree ? o->k : 0);
	rtr_json_kv_double(&w, "link_gbps", o->link_gbps, 6);
	rtr_json_kv_double(&w, "uplink_gbps", o->uplink_gbps, 6);
	rtr_json_kv_u64(&w, "link_delay_ns", o->link_delay_ns);
	rtr_json_kv_double(&w, "oversubscription", r->topo.oversub, 6);
	{
		/* The artifact's BDP: the longest base RTT times the host
		 * link rate (104,000 B for the 100G leaf-spine of 1 us links,
		 * 156,000 for the fat-tree), report.py's small/large split. */
		double rtt = 0;

		for (size_t k = 0; k < (size_t)r->topo.n_hosts * r->topo.n_hosts; k++)
			rtt = r->base_rtt_ns[k] > rtt ? r->base_rtt_ns[k] : rtt;
		rtr_json_kv_double(&w, "base_rtt_ns", rtt, 6);
		rtr_json_kv_u64(&w, "bdp_bytes", (uint64_t)llround(rtt * o->link_gbps / 8));
	}
	rtr_json_kv_str(&w, "link_down", o->link_down ? o->link_down : "");
	rtr_json_kv_str(&w, "slow_link", o->slow_link ? o->slow_link : "");
	rtr_json_kv_str(&w, "workload", o->workload);
	rtr_json_kv_double(&w, "cdf_mean_bytes", sim_cdf_mean(&r->cdf), 6);
	rtr_json_kv_double(&w, "load", o->load, 6);
	rtr_json_kv_double(&w, "host_load", r->wl.host_load, 6);
	rtr_json_kv_str(&w, "load_basis", o->load_wire ? "wire" : "payload");
	rtr_json_kv_double(&w, "wire_per_payload", r->wire_per_payload, 9);
	rtr_json_kv_double(&w, "payload_host_load",
			r->wl.host_load / (o->load_wire ? r->wire_per_payload : 1.0), 9);
	rtr_json_kv_double(&w, "pkts_per_flow", r->pkts_per_flow, 9);
	rtr_json_kv_double(&w, "util_from_ms", o->util_from_ms, 6);
	rtr_json_kv_double(&w, "mean_interarrival_ns", r->wl.mean_iat_ns, 6);
	rtr_json_kv_double(&w, "duration_ms", o->duration_ms, 6);
	rtr_json_kv_u64(&w, "max_flows", o->max_flows);
	rtr_json_kv_str(&w, "lb", o->lb);
	rtr_json_kv_str(&w, "transport", o->transport == SIM_TR_GBN ? "lossless" : "irn");
	rtr_json_kv_str(&w, "config", o->config);
	/* What the switches ran (run_config_text): the mode's section as
	 * an object, the qos and the mode's sections as YAML text. */
	write_lb_config(&w, cfg_text, o->lb);
	rtr_json_kv_str(&w, "switch_config", cfg_text != NULL ? cfg_text : "");
	rtr_json_kv_u64(&w, "seed", o->seed);
	rtr_json_kv_u64(&w, "qps_per_flow", o->qps_per_flow);
	rtr_json_kv_u64(&w, "reps", o->reps);
	rtr_json_kv_u64(&w, "wire_overhead", o->wire_overhead);
	rtr_json_kv_u64(&w, "nic_ring", o->nic_ring);
	rtr_json_kv_u64(&w, "nic_comp_batch", o->nic_comp_batch);
	rtr_json_kv_u64(&w, "nic_comp_delay_ns", o->nic_comp_delay_ns);
	rtr_json_kv_u64(&w, "nic_pad", o->nic_pad);
	rtr_json_kv_u64(&w, "nic_ring_kb", o->nic_ring_kb);
	rtr_json_kv_str(&w, "buffer", o->buffer_shared ? "shared" : "static");
	if (o->buffer_shared)
		rtr_json_kv_u64(&w, "buffer_kb", o->buffer_kb);
	rtr_json_kv_u64(&w, "mtu_payload", r->hcfg.mtu_payload);
	rtr_json_kv_double(&w, "drain_ms", o->drain_ms, 6);
	rtr_json_kv_double(&w, "sample_us", o->sample_us, 6);
	rtr_json_kv_double(&w, "uplink_us", o->uplink_us, 6);

	jw_obj(&w, "flows");
	rtr_json_kv_u64(&w, "started", r->started);
	rtr_json_kv_u64(&w, "finished", r->finished);
	rtr_json_kv_u64(&w, "unfinished", r->started - r->finished);
	rtr_json_kv_bool(&w, "drain_limit_hit", !drained);
	rtr_json_kv_u64(&w, "sim_end_ns", r->net.sim.now_ns);
	rtr_json_kv_u64(&w, "below_ideal", r->flows_below_ideal);
	rtr_json_kv_double(&w, "min_fct_over_ideal",
			r->finished ? (double)r->min_slowdown_x1e6 / 1e6 : 0.0, 6);
	rtr_json_kv_u64(&w, "start_failed", r->start_failed);

	jw_obj(&w, "hosts");
	rtr_json_kv_u64(&w, "data_sent", hs.data_sent);
	rtr_json_kv_u64(&w, "data_retx", hs.data_retx);
	rtr_json_kv_u64(&w, "data_rcvd", hs.data_rcvd);
	rtr_json_kv_u64(&w, "data_ooo", hs.data_ooo);
	rtr_json_kv_u64(&w, "acks_sent", hs.acks_sent);
	rtr_json_kv_u64(&w, "nacks_sent", hs.nacks_sent);
	rtr_json_kv_u64(&w, "cnps_sent", hs.cnps_sent);
	rtr_json_kv_u64(&w, "cnps_rcvd", hs.cnps_rcvd);
	rtr_json_kv_u64(&w, "timeouts", hs.timeouts);
	rtr_json_kv_u64(&w, "ce_rcvd", hs.ce_rcvd);
	rtr_json_kv_u64(&w, "bytes_acked", hs.bytes_acked);

	jw_obj(&w, "frames");
	rtr_json_kv_u64(&w, "host_sent", host_sent);
	rtr_json_kv_u64(&w, "delivered_to_hosts", r->net.delivered);
	rtr_json_kv_u64(&w, "switch_dropped", r->net.sw_dropped);
	rtr_json_kv_u64(&w, "egress_dropped", r->net.eg_dropped);
	rtr_json_kv_u64(&w, "in_flight_at_end", live_at_end);
	rtr_json_kv_u64(&w, "tx_late", r->net.tx_late);

	jw_obj(&w, "drops");
	for (unsigned int d = 1; d < RTR_DROP_MAX; d++)
		if (sum->drops[d] != 0)
			rtr_json_kv_u64(&w, rtr_drop_names[d], sum->drops[d]);

	jw_obj(&w, "pfc");
	rtr_json_kv_u64(&w, "frames_rx", r->net.pfc_frames);
	rtr_json_kv_u64(&w, "rx_by_switches", rx_pfc_sw);
	rtr_json_kv_u64(&w, "rx_by_hosts", rx_pfc_host);
	rtr_json_kv_u64(&w, "tx_xoff", tx_xoff);
	rtr_json_kv_u64(&w, "tx_xon", tx_xon);

	/* qos.buffer.mode shared: the most any switch held of its pool. */
	jw_obj(&w, "buffer");
	rtr_json_kv_u64(&w, "peak_bytes", sb_peak);

	jw_obj(&w, "egress_classes");
	for (unsigned int cl = 0; cl < RTR_MAX_CLASSES; cl++) {
		char name[8];

		if (eg[cl][RTR_EGC_enqueued] == 0)
			continue;
		snprintf(name, sizeof(name), "%u", cl);
		rtr_json_key(&w, name);
		rtr_json_obj(&w);
		for (unsigned int k = 0; k < RTR_EGC_MAX; k++)
			rtr_json_kv_u64(&w, rtr_eg_counter_names[k], eg[cl][k]);
		rtr_json_obj_end(&w);
	}

	jw_obj(&w, "lb_counters");
	for (unsigned int c = 0; c < RTR_LBC_MAX; c++)
		if (sum->lb[c] != 0)
			rtr_json_kv_u64(&w, rtr_lb_counter_names[c], sum->lb[c]);

	jw_obj(&w, "switch_packets");
	rtr_json_kv_u64(&w, "forwarded", sum->forwarded);
	rtr_json_kv_u64(&w, "consumed", sum->consumed);
	rtr_json_kv_u64(&w, "originated", sum->originated);
	rtr_json_kv_u64(&w, "originated_dropped", sum->originated_dropped);
	rtr_json_kv_u64(&w, "lb_ticks", r->net.lb_ticks);

	jw_obj(&w, "reorder");
	{
		/* Bytes: held packets x a full data frame with ConWeave's
		 * header (the mode counts packets). */
		uint64_t frame = r->hcfg.mtu_payload + SIM_DATA_HDR + 4;
		uint32_t qmax, hmax, smax;
		uint32_t qp = sample_pct(r, offsetof(struct sample, queues_max), 0.999, &qmax);
		uint32_t hp = sample_pct(r, offsetof(struct sample, held_max), 0.999, &hmax);
		uint32_t sp = sample_pct(r, offsetof(struct sample, held_sum), 0.999, &smax);

		rtr_json_kv_u64(&w, "samples", r->n_smp);
		rtr_json_kv_u64(&w, "period_ns", r->sample_ns);
		rtr_json_kv_u64(&w, "queues_per_switch_max", qmax);
		rtr_json_kv_u64(&w, "queues_per_switch_p999", qp);
		rtr_json_kv_u64(&w, "held_pkts_per_switch_max", hmax);
		rtr_json_kv_u64(&w, "held_pkts_per_switch_p999", hp);
		rtr_json_kv_u64(&w, "held_pkts_total_max", smax);
		rtr_json_kv_u64(&w, "held_pkts_total_p999", sp);
		rtr_json_kv_u64(&w, "held_bytes_per_switch_max_est", hmax * frame);
		rtr_json_kv_u64(&w, "held_bytes_per_switch_p999_est", hp * frame);
	}

	jw_obj(&w, "uplink_imbalance");
	rtr_json_kv_u64(&w, "period_ns", r->up_ns);
	rtr_json_kv_u64(&w, "samples", r->n_up);
	if (r->n_up > 0) {
		double usum = 0;

		qsort(r->up_v, r->n_up, sizeof(*r->up_v), cmp_dbl);
		for (size_t i = 0; i < r->n_up; i++)
			usum += r->up_v[i];
		rtr_json_kv_double(&w, "mean_pct", usum / (double)r->n_up, 6);
		rtr_json_kv_double(
				&w, "p50_pct", r->up_v[(size_t)ceil(0.5 * (double)r->n_up) - 1], 6);
		rtr_json_kv_double(
				&w, "p90_pct", r->up_v[(size_t)ceil(0.9 * (double)r->n_up) - 1], 6);
		rtr_json_kv_double(&w, "p99_pct", r->up_v[(size_t)ceil(0.99 * (double)r->n_up) - 1],
				6);
		rtr_json_kv_double(&w, "max_pct", r->up_v[r->n_up - 1], 6);
	}

	jw_obj(&w, "links");
	rtr_json_kv_u64(&w, "window_ns", r->end_ns);
	rtr_json_kv_u64(&w, "from_ns", r->from_ns);
	for (unsigned int c = 0; c < n_uc; c++) {
		rtr_json_key(&w, uc[c].name);
		rtr_json_obj(&w);
		rtr_json_kv_u64(&w, "links", uc[c].links);
		rtr_json_kv_double(&w, "util_mean",
				uc[c].links ? uc[c].sum / (double)uc[c].links : 0.0, 6);
		rtr_json_kv_double(&w, "util_max", uc[c].max, 6);
		rtr_json_kv_double(&w, "win_util_mean",
				uc[c].links ? uc[c].wsum / (double)uc[c].links : 0.0, 6);
		rtr_json_kv_double(&w, "win_util_max", uc[c].wmax, 6);
		rtr_json_obj_end(&w);
	}

	/* The load the links carried over the measurement window [from,
	 * end] against the labelled one: host links (both directions) and a
	 * ToR's fabric links (both directions). Under the wire basis the host
	 * links' target is the host load; under the payload basis the
	 * payload's host load, which they exceed by the headers and ACKs. */
	jw_obj(&w, "load");
	rtr_json_kv_str(&w, "basis", o->load_wire ? "wire" : "payload");
	rtr_json_kv_double(&w, "target_host_load", r->wl.host_load, 6);
	rtr_json_kv_double(&w, "target_core_load", o->load, 6);
	rtr_json_kv_u64(&w, "from_ns", r->from_ns);
	rtr_json_kv_u64(&w, "to_ns", r->end_ns);
	rtr_json_kv_double(&w, "host_links_util", g_n[1] ? g_sum[1] / (double)g_n[1] : 0.0, 6);
	rtr_json_kv_double(&w, "host_links_util_max", g_max[1], 6);
	rtr_json_kv_double(&w, "host_links_vs_target",
			g_n[1] && r->wl.host_load > 0 ? g_sum[1] / (double)g_n[1] / r->wl.host_load
						      : 0.0,
			6);
	rtr_json_kv_double(&w, "tor_fabric_util", g_n[2] ? g_sum[2] / (double)g_n[2] : 0.0, 6);
	rtr_json_kv_double(&w, "tor_fabric_util_max", g_max[2], 6);

	/* The switch ports' NICs (doc/simulator.md "The switch ports' NIC"):
	 * over all, then per switch. */
	jw_obj(&w, "nic");
	{
		uint64_t t_sent = 0, t_wait = 0, t_holds = 0;
		uint32_t t_frames = 0, t_desc = 0;

		for (int pass = 0; pass < 2; pass++) {
			if (pass == 1) {
				rtr_json_kv_u64(&w, "ring", o->nic_ring);
				rtr_json_kv_u64(&w, "comp_batch", o->nic_comp_batch);
				rtr_json_kv_u64(&w, "comp_delay_ns", o->nic_comp_delay_ns);
				rtr_json_kv_u64(&w, "sent", t_sent);
				rtr_json_kv_u64(&w, "max_frames", t_frames);
				rtr_json_kv_u64(&w, "max_desc", t_desc);
				rtr_json_kv_u64(&w, "max_wait_ns", t_wait);
				/* The egress's paced ring: passes it stopped. */
				rtr_json_kv_u64(&w, "ring_kb", o->nic_ring_kb);
				rtr_json_kv_u64(&w, "ring_holds", t_holds);
				rtr_json_key(&w, "switches");
				rtr_json_obj(&w);
			}
			for (uint32_t i = 0; i < r->topo.n_nodes; i++) {
				const struct sim_node *n = &r->topo.nodes[i];
				uint64_t sent = 0, wait_ps = 0;
				uint32_t frames = 0, desc = 0;

				if (n->kind == SIM_HOST)
					continue;
				for (uint16_t p = 0; p < n->n_ports; p++) {
					const struct sim_tx *tx = &r->net.tx[i][p];
					const struct rtr_nicm_qstats *q;

					if (tx->nic == NULL)
						continue;
					q = rtr_nicm_qstats(tx->nic, 0);
					sent += q->sent;
					wait_ps = q->max_wait_ps > wait_ps ? q->max_wait_ps
									   : wait_ps;
					frames = tx->nic_max_frames > frames ? tx->nic_max_frames
									     : frames;
					desc = tx->nic_max_desc > desc ? tx->nic_max_desc : desc;
					if (pass == 0 && n->eg != NULL && n->eg->port[p] != NULL)
						t_holds += n->eg->port[p]->ring_holds;
				}
				if (pass == 0) {
					t_sent += sent;
					t_wait = (wait_ps + 999) / 1000 > t_wait
								 ? (wait_ps + 999) / 1000
								 : t_wait;
					t_frames = frames > t_frames ? frames : t_frames;
					t_desc = desc > t_desc ? desc : t_desc;
					continue;
				}
				rtr_json_key(&w, n->name);
				rtr_json_obj(&w);
				rtr_json_kv_u64(&w, "sent", sent);
				rtr_json_kv_u64(&w, "max_frames", frames);
				rtr_json_kv_u64(&w, "max_desc", desc);
				rtr_json_kv_u64(&w, "max_wait_ns", (wait_ps + 999) / 1000);
				rtr_json_obj_end(&w);
			}
		}
		rtr_json_obj_end(&w);
	}

	getrusage(RUSAGE_SELF, &ru);
	jw_obj(&w, "speed");
	rtr_json_kv_u64(&w, "events", r->net.sim.n_run);
	rtr_json_kv_double(&w, "wall_s", wall_s, 6);
	rtr_json_kv_double(&w, "events_per_s", wall_s > 0 ? (double)r->net.sim.n_run / wall_s : 0.0,
			6);
	rtr_json_kv_double(&w, "peak_rss_mb", (double)ru.ru_maxrss / 1024.0, 6);
	jw_end(&w);
	free(sum);
	free(sw);
	free(cfg_text);
}

/* --slow-link A:B:GBPS[,...]: each link between the nodes named A and B
 * runs at GBPS, both directions. 0, or -1 with a line printed. */
static int
slow_links(struct sim_topo *t, const char *spec)
{
	char *copy = strdup(spec), *save = NULL, *item;
	int rc = 0;

	if (copy == NULL)
		return -1;
	for (item = strtok_r(copy, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
		char *b = strchr(item, ':'), *g = strrchr(item, ':'), *end;
		uint32_t node;
		uint16_t port;
		double gbps;

		if (b == NULL || g == b) {
			fprintf(stderr, PROG ": --slow-link: expected A:B:GBPS, got \"%s\"%s\n",
					item, SEE_HELP);
			rc = -1;
			break;
		}
		*b++ = '\0';
		*g++ = '\0';
		gbps = strtod(g, &end);
		if (end == g || *end != '\0' || !(gbps > 0) || gbps > 1600) {
			fprintf(stderr,
					PROG ": --slow-link %s:%s: expected a rate in (0, 1600] "
					     "Gb/s, got \"%s\"%s\n",
					item, b, g, SEE_HELP);
			rc = -1;
			break;
		}
		if (sim_topo_link_find(t, item, b, &node, &port) != 0 ||
				sim_topo_link_set_gbps(t, node, port, gbps) != 0) {
			fprintf(stderr, PROG ": --slow-link %s:%s: no such link%s\n", item, b,
					SEE_HELP);
			rc = -1;
			break;
		}
	}
	free(copy);
	return rc;
}

/* ---------------------------------------------------------------- main */

static int
mkdir_p(const char *dir)
{
	char buf[4096];

	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
		return -1;
	for (char *p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int
main(int argc, char **argv)
{
	static struct run run;
	struct run *r = &run;
	struct opts *o = &r->o;
	struct sim_leafspine ls;
	struct sim_workload_params wp;
	char err[512], path[4200];
	double t0, last_print, wall;
	uint64_t slice = 10000, now, limit, live;
	unsigned int n_sw;
	bool drained;
	FILE *sf;
	int rc;

	rc = parse_args(argc, argv, o);
	if (rc != 0)
		return rc == 1 ? 0 : rc;
	if (sim_cdf_load(&r->cdf, o->workload, err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": --workload: %s\n", err);
		return 2;
	}
	r->sections = build_sections(o, sim_cdf_mean(&r->cdf));
	if (r->sections == NULL)
		return 2;
	if (mkdir_p(o->out) != 0) {
		fprintf(stderr, PROG ": --out %s: %s\n", o->out, strerror(errno));
		return 2;
	}
	/* The EAL reserves each switch's LPM tables (about 130 MB, mostly
	 * never touched): room for them all. */
	n_sw = o->fattree ? 5 * o->k * o->k / 4 : o->tors + o->spines;
	if (sim_eal_init(PROG, 256 + 144 * n_sw) != 0) {
		fprintf(stderr, PROG ": EAL init failed\n");
		return 1;
	}
	if (o->fattree) {
		struct sim_fattree ft = {.k = o->k,
				.gbps = o->link_gbps,
				.link_delay_ns = o->link_delay_ns,
				.lb = o->lb,
				.sections = r->sections,
				.down_links = o->link_down,
				.hosts_per_tor = o->hpt_set ? o->hosts_per_tor : 0};

		rc = sim_topo_fattree(&r->topo, &ft, "sim_", err, sizeof(err));
	} else {
		ls = (struct sim_leafspine){.tors = o->tors,
				.spines = o->spines,
				.hosts_per_tor = o->hosts_per_tor,
				.host_gbps = o->link_gbps,
				.uplink_gbps = o->uplink_gbps,
				.link_delay_ns = o->link_delay_ns,
				.lb = o->lb,
				.sections = r->sections,
				.down_links = o->link_down};
		rc = sim_topo_leafspine(&r->topo, &ls, "sim_", err, sizeof(err));
	}
	if (rc != 0) {
		fprintf(stderr, PROG ": topology: %s\n", err);
		return 2;
	}
	if (o->slow_link != NULL && slow_links(&r->topo, o->slow_link) != 0)
		return 2;
	if (sim_net_init_nic(&r->net, &r->topo, o->wire_overhead,
			    &(struct sim_nic_conf){.ring = (uint16_t)o->nic_ring,
					    .comp_batch = (uint16_t)o->nic_comp_batch,
					    .comp_delay_ns = o->nic_comp_delay_ns,
					    .pad = o->nic_pad != 0,
					    .ring_kb = o->nic_ring_kb},
			    err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": network: %s\n", err);
		return 1;
	}
	sim_host_cfg_default(&r->hcfg, o->transport);
	r->hcfg.qps_per_flow = o->qps_per_flow;
	r->hcfg.reps = o->reps != 0;
	/* The wire bytes a flow of the mean puts on the links, per payload
	 * byte: every data frame's headers and wire overhead, and the ACK
	 * each ack_every packets (and the last) earn, which the receiver's
	 * host link carries the other way; by symmetry (uniform destinations)
	 * a host link carries as many ACKs of flows it receives as its own
	 * flows earn. Not counted: NACKs, CNPs, retransmissions, PFC frames
	 * (they depend on congestion: the test measures what they add) and
	 * the extra packets of a flow cut over several QPs. */
	{
		double mean = sim_cdf_mean(&r->cdf);

		r->pkts_per_flow = sim_cdf_mean_chunks(&r->cdf, r->hcfg.mtu_payload);
		r->acks_per_flow = sim_cdf_mean_chunks(
				&r->cdf, (uint64_t)r->hcfg.mtu_payload * r->hcfg.ack_every);
		r->wire_per_payload =
				(mean + r->pkts_per_flow * (SIM_DATA_HDR + o->wire_overhead) +
						r->acks_per_flow *
								(SIM_ACK_LEN + o->wire_overhead)) /
				mean;
	}
	r->hosts = sim_hosts_create(&r->net, &r->hcfg, flow_done, r);
	if (r->hosts == NULL) {
		fprintf(stderr, PROG ": hosts: cannot create\n");
		return 1;
	}
	r->start_ns = 0;
	r->end_ns = (uint64_t)llround(o->duration_ms * 1e6);
	wp = (struct sim_workload_params){.n_hosts = r->topo.n_hosts,
			.host_gbps = o->link_gbps,
			.load = o->load,
			.oversub = r->topo.oversub,
			.start_ns = r->start_ns,
			.duration_ns = r->end_ns - r->start_ns,
			.seed = o->seed,
			.wire_per_payload = o->load_wire ? r->wire_per_payload : 1.0};
	if (sim_workload_init(&r->wl, &wp, &r->cdf, err, sizeof(err)) != 0) {
		fprintf(stderr, PROG ": workload: %s\n", err);
		return 2;
	}
	if (ideal_init(r) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	r->wire_at_end = port_counters(&r->topo);
	r->wire_at_from = port_counters(&r->topo);
	if (r->wire_at_end == NULL || r->wire_at_from == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/fct.txt", o->out);
	r->fct = fopen(path, "w");
	if (r->fct == NULL) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return 1;
	}
	/* A line per flow, millions in a long run: a large buffer. */
	setvbuf(r->fct, NULL, _IOFBF, 1 << 20);
	r->min_slowdown_x1e6 = UINT64_MAX;

	for (uint32_t h = 0; h < r->topo.n_hosts; h++)
		arm_arrival(r, h);
	r->from_ns = (uint64_t)llround(o->util_from_ms * 1e6);
	if (r->from_ns > 0)
		sim_at(&r->net.sim, r->from_ns, ev_snapshot, r, 1);
	sim_at(&r->net.sim, r->end_ns, ev_snapshot, r, 0);
	r->sample_ns = (uint64_t)llround(o->sample_us * 1000);
	if (r->sample_ns == 0)
		r->sample_ns = 1;
	r->up_ns = (uint64_t)llround(o->uplink_us * 1000);
	if (r->up_ns > 0) {
		r->up_last = port_counters(&r->topo);
		if (r->up_last == NULL) {
			fprintf(stderr, PROG ": out of memory\n");
			return 1;
		}
		snprintf(path, sizeof(path), "%s/uplink.txt", o->out);
		r->up_f = fopen(path, "w");
		if (r->up_f == NULL) {
			fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
			return 1;
		}
		sim_at(&r->net.sim, r->up_ns, ev_uplink, r, 0);
	}
	if (strcmp(o->lb, "conweave") == 0 || strcmp(o->lb, "spray") == 0) {
		r->sampling = true;
		sim_at(&r->net.sim, 0, ev_sample, r, 0);
	}

	/* Run in slices of 10 us of simulated time: between slices, the
	 * progress line and the end conditions. The run ends when nothing is
	 * left to arrive and every started flow finished (and the window the
	 * utilisation is measured on has passed), or at the drain limit. */
	t0 = wall_now();
	last_print = t0;
	limit = r->end_ns + (uint64_t)llround(o->drain_ms * 1e6);
	now = 0;
	for (;;) {
		bool pending;

		now += slice;
		sim_run(&r->net.sim, now);
		pending = arrivals_pending(r);
		if (!pending && sim_hosts_active(r->hosts) == 0 && r->snap_done) {
			drained = true;
			break;
		}
		if (now >= limit) {
			drained = false;
			break;
		}
		if (!o->quiet && wall_now() - last_print >= 1.0) {
			double w = wall_now() - t0;

			last_print = wall_now();
			fprintf(stderr,
					PROG ": sim %.3f ms, wall %.1f s, flows %llu done, "
					     "%llu active, %.2f M events/s\n",
					(double)now / 1e6, w, (unsigned long long)r->finished,
					(unsigned long long)sim_hosts_active(r->hosts),
					(double)r->net.sim.n_run / w / 1e6);
		}
	}
	r->sampling = false;
	if (r->up_f != NULL)
		fclose(r->up_f);
	/* Let what is still on the wires (duplicate ACKs, retransmissions)
	 * land, a few round trips, so the frame accounting closes. */
	sim_run(&r->net.sim, now + 100000);
	wall = wall_now() - t0;
	live = r->net.pkts_live;
	fclose(r->fct);

	snprintf(path, sizeof(path), "%s/summary.json", o->out);
	sf = fopen(path, "w");
	if (sf == NULL) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return 1;
	}
	write_summary(r, sf, wall, drained, live);
	fclose(sf);
	if (!o->quiet)
		fprintf(stderr,
				PROG ": %llu flows started, %llu finished%s; %llu events in %.2f s "
				     "(%.2f M events/s); sim time %.3f ms\n",
				(unsigned long long)r->started, (unsigned long long)r->finished,
				drained ? "" : " (drain limit reached)",
				(unsigned long long)r->net.sim.n_run, wall,
				wall > 0 ? (double)r->net.sim.n_run / wall / 1e6 : 0.0,
				(double)r->net.sim.now_ns / 1e6);
	/* No teardown: the process ends here, and freeing the switches'
	 * route tables would have DPDK zero every page of their LPM
	 * reservations (rte_free clears what it frees): 1-2 s and GBs of
	 * resident memory for nothing. */
	free(r->sections);
	return drained ? 0 : 3;
}
