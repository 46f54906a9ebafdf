/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Counters. Each worker lcore owns one struct rtr_lcore_stats and is its
 * only writer (plain 64-bit stores, atomic on the platforms DPDK supports);
 * readers (telemetry, the stats printer, the exit document) sum all lcores.
 * Nobody ever writes another lcore's counters: "clear" is not offered, take
 * a snapshot and subtract instead (the OVS dpif-netdev-perf rule).
 */
#ifndef RTR_STATS_H
#define RTR_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "rtr_common.h"
#include "rtr_drop.h"

struct rtr_json;

/*
 * Capacity of the LB counters of a struct rtr_lcore_stats: lib/lb defines
 * them (enum rtr_lb_counter in rtr_lb_counters.h, each mode its own) and
 * checks that they fit; lib/stats knows them only as slots and takes their
 * names from its caller.
 */
#define RTR_STATS_LB_SLOTS 96

struct rtr_port_counters {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t drops;           /* drops of packets received on this port */
	uint64_t ecn_marked;      /* CE marks applied at this port's egress */
	uint64_t host_b4_cleared; /* host RoCE packets whose BTH byte 4 was cleared */
	/* Entries this port's packets created and hold now, and new flows
	 * refused an entry by its flow_share / flow_rate: read from the LB
	 * flow tables (rtr_pipeline_flow_counters); a worker adds its old
	 * table's refusals here at a runtime LB switch. */
	uint64_t flow_entries;
	uint64_t flow_limit_share;
	uint64_t flow_limit_rate;
};

/* Whether a number counts up (a counter: rates are its differences) or
 * is a level now (a gauge), as telemetry's /rocetor/counters serves it. */
enum rtr_counter_type {
	RTR_COUNTER,
	RTR_GAUGE,
};
extern const char *const rtr_counter_type_names[2]; /* "counter", "gauge" */

/*
 * The per-port counters as the stats document and /rocetor/ports show them,
 * in that order: (field of struct rtr_port_counters, type, help). The
 * field is the key (a contract, DESIGN.md B5: never rename one); the help
 * is served by /rocetor/counters (rocetor-exporter's HELP lines).
 */
#define RTR_PORT_COUNTERS(X)                                                                     \
	X(rx_packets, COUNTER, "packets received on the port")                                   \
	X(tx_packets, COUNTER, "packets sent on the port")                                       \
	X(rx_bytes, COUNTER, "bytes received on the port")                                       \
	X(tx_bytes, COUNTER, "bytes sent on the port")                                           \
	X(drops, COUNTER, "packets received on this port and dropped")                           \
	X(ecn_marked, COUNTER, "CE marks applied at this port's egress")                         \
	X(host_b4_cleared, COUNTER, "host RoCE packets whose BTH byte 4 was cleared at ingress") \
	X(flow_entries, GAUGE, "LB flow-table entries the flows of this host port hold now")     \
	X(flow_limit_share, COUNTER,                                                             \
			"packets of new flows refused an entry by the port's flow_share")        \
	X(flow_limit_rate, COUNTER, "packets of new flows refused an entry by the port's flow_rate")
enum rtr_port_counter {
#define RTR_PORTC_ENUM(n, t, h) RTR_PORTC_##n,
	RTR_PORT_COUNTERS(RTR_PORTC_ENUM)
#undef RTR_PORTC_ENUM
			RTR_PORTC_MAX
};
_Static_assert(sizeof(struct rtr_port_counters) == RTR_PORTC_MAX * sizeof(uint64_t),
		"a field of struct rtr_port_counters missing from RTR_PORT_COUNTERS");

/*
 * Data-path stages timed by the worker loop (doc/benchmarks.md). One loop
 * pass in RTR_STAGE_SAMPLE that received packets is timed stage by stage
 * with the TSC; stage_cycles[s] / stage_packets is the mean cost of stage s
 * per received packet. The names are the stats document's keys (DESIGN.md
 * B): rx is the PMD's rx_burst; parse the parser and the ingress checks
 * (host rules, source check, L2 filter, the hand-off); route the
 * forwarding step's lookup (rtr_fwd_lookup); lb its pick (rtr_fwd_pick:
 * the LB stage's path for a group route); egress the rest of the step and
 * the class enqueue (rtr_fwd_finish: neighbour, TTL, MACs, the LB out hook
 * with DstToR delivery, then the egress's admission), not the egress
 * service; tx the egress service (scheduler, shaping, tx_burst of every
 * port).
 */
#define RTR_STAGES(X) X(rx) X(parse) X(route) X(lb) X(egress) X(tx)
enum rtr_stage {
#define RTR_STAGE_ENUM(n) RTR_STAGE_##n,
	RTR_STAGES(RTR_STAGE_ENUM)
#undef RTR_STAGE_ENUM
			RTR_STAGE_MAX
};
#define RTR_STAGE_SAMPLE 8 /* one loop pass with packets in 8 is timed */
extern const char *const rtr_stage_names[RTR_STAGE_MAX];

/* Path counters are kept for the first RTR_STATS_GROUPS uplink groups. */
#define RTR_STATS_GROUPS 32

struct rtr_lcore_stats {
	struct rtr_port_counters port[RTR_MAX_PORTS];
	uint64_t drops[RTR_DROP_MAX];
	uint64_t forwarded;  /* received packets sent out again */
	uint64_t consumed;   /* received packets taken by the switch (ARP, ND, echo, LB control) */
	uint64_t originated; /* packets the switch built and sent (replies, probes, LB control) */
	uint64_t originated_dropped; /* packets the switch built that could not be sent */
	uint64_t handoff_tx;         /* packets handed to another worker */
	uint64_t handoff_rx;
	uint64_t idle_sleeps;
	uint64_t fault_stalls;           /* faults.stall_us stalls injected */
	uint64_t lb_switch_released;     /* packets the old mode held at runtime LB switches */
	uint64_t lb[RTR_STATS_LB_SLOTS]; /* enum rtr_lb_counter (lib/lb) */
	uint64_t path_tx[RTR_STATS_GROUPS][RTR_MAX_PATHS];
	uint64_t busy_cycles; /* TSC cycles spent in bursts that had packets */
	uint64_t busy_packets;
	uint64_t stage_cycles[RTR_STAGE_MAX]; /* TSC cycles of the timed passes */
	uint64_t stage_packets;               /* packets received in the timed passes */
} __attribute__((aligned(64)));

/* Sum n per-lcore blocks into out (out is overwritten); the LB slots listed
 * in lb_max (n_lb_max of them) are maxima: the largest value of any lcore. */
void rtr_stats_sum(struct rtr_lcore_stats *const *lcores, unsigned int n, const uint16_t *lb_max,
		unsigned int n_lb_max, struct rtr_lcore_stats *out);

/* Everything the stats document (DESIGN.md B5) shows besides the counters. */
struct rtr_stats_doc {
	const char *switch_name;
	const char *lb;
	double uptime_s;
	unsigned int n_ports;
	const uint16_t *port_ids;      /* n_ports entries */
	const char *const *port_roles; /* "host" / "fabric" */
	const uint8_t *port_up;        /* link state now */
	/* Members added to port i's object (the egress report), or NULL. */
	void (*port_extra)(struct rtr_json *w, unsigned int i, void *arg);
	void *port_extra_arg;
	const uint64_t *port_rx_nombuf; /* NIC: RX lost for want of an mbuf, or NULL */
	const uint64_t *port_imissed;   /* NIC: RX lost for want of a descriptor, or NULL */
	const uint64_t *port_ierrors;   /* NIC: frames it received in error, or NULL */
	unsigned int n_groups;          /* path counters shown for these */
	const char *const *group_names; /* prefix strings */
	const uint16_t *group_paths;    /* n_paths of each group */
	const uint16_t (*group_ports)[RTR_MAX_PATHS];
	unsigned int n_neigh;
	const char *const *neigh_names;
	const uint64_t *neigh_values;
	uint64_t held_packets;
	uint64_t mempool_in_use;
	uint64_t mempool_baseline;      /* in use when forwarding started */
	int64_t mempool_in_use_stopped; /* in use once the workers stopped, before the
					  * ports closed; -1 while running (null) */
	uint64_t lb_switches;           /* runtime LB switches completed */
	/* Members added at the end of the document (the shared buffer), or NULL. */
	void (*doc_extra)(struct rtr_json *w, void *arg);
	void *doc_extra_arg;
	double worker_cpu_s; /* the workers' threads' CPU time, summed; < 0: unknown (null) */
	/* The LB counters' names (the "lb" member), lb_names[i] for slot i,
	 * from lib/lb (rtr_lb_counter_names, RTR_LBC_MAX). */
	const char *const *lb_names;
	unsigned int n_lb;
};

/* Write the JSON stats document. Returns 0 or -errno. */
int rtr_stats_write_json(
		FILE *f, const struct rtr_stats_doc *doc, const struct rtr_lcore_stats *sum);

#endif /* RTR_STATS_H */
