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

/* LB counters: names as in DESIGN.md B5 and the LB issues. Append only. */
#define RTR_LB_COUNTERS(X)                                                                         \
	X(reroutes, "flows moved to a new path")                                                  \
	X(rtt_requests, "RTT_REQUEST packets sent (ConWeave SrcToR)")                             \
	X(rtt_replies, "RTT_REPLY packets (sent by DstToR / accepted by SrcToR)")                 \
	X(reply_timeouts, "RTT_REPLY deadlines that passed")                                      \
	X(tails, "TAIL packets")                                                                  \
	X(clears, "CLEAR packets")                                                                \
	X(notifies, "NOTIFY / congestion packets")                                                \
	X(busy_paths, "paths marked busy or inactive")                                            \
	X(reorder_held, "packets held in reorder queues")                                         \
	X(reorder_flush_tail, "reorder queues flushed by a TAIL")                                 \
	X(reorder_flush_timeout, "reorder queues flushed at their deadline")                      \
	X(reorder_overflow, "reorder attempts that degraded to plain forwarding")                 \
	X(reorder_queues_in_use, "reorder queues held now (gauge)")                               \
	X(reorder_queues_max, "most reorder queues held at once (gauge)")                         \
	X(epoch_overrun, "reorder queues flushed because a new epoch arrived")                    \
	X(lb_bypass_resv7, "host RoCE packets not stamped because Resv7 was not zero")           \
	X(late_epoch_packets, "packets of a previous epoch forwarded at once")                    \
	X(flow_table_full, "new flows sent by ECMP because the flow table was full")              \
	X(flow_limit_share, "new host flows sent by ECMP: their port held its flow_share")       \
	X(flow_limit_rate, "new host flows sent by ECMP: their port was over its flow_rate")     \
	X(ecmp_packets, "packets whose path was chosen by the ECMP hash")                         \
	X(rtt_requests_rx, "RTT_REQUESTs received (ConWeave DstToR)")                             \
	X(rtt_replies_rx, "RTT_REPLYs received by the SrcToR")                                    \
	X(rtt_replies_late, "RTT_REPLYs received after their deadline or for another epoch")      \
	X(tails_rx, "TAILs received (ConWeave DstToR)")                                           \
	X(clears_rx, "CLEARs received by the SrcToR")                                             \
	X(notifies_rx, "NOTIFYs received by the SrcToR")                                          \
	X(idle_moves, "idle flows (new epoch after theta_inactive) moved to another path")        \
	X(ctrl_no_flow, "ConWeave control packets for a flow this switch has no state for")      \
	X(ctrl_alloc_failed, "control packets not sent: no mbuf")                                 \
	X(reorder_hold_max_ns, "longest time a reorder queue was held, ns (gauge, max)")          \
	X(cw_packets, "RoCE data packets stamped by the ConWeave SrcToR")                         \
	X(sb_subflows, "SeqBalance sub-flows started (first packet, or idle > subflow_idle_us)")  \
	X(sb_rehashes, "new sub-flows moved off an inactive first choice by double hashing")      \
	X(sb_all_inactive, "new sub-flows that found every path inactive (took h1 mod n)")        \
	X(sb_paths_inactive, "SeqBalance paths inactive now (gauge)")                             \
	X(sb_tagged, "RoCE packets stamped with a PathTag by the SeqBalance SrcToR")              \
	X(caver_shims_added, "CAVER shims added to RC ACKs from local hosts")                     \
	X(caver_shims_rewritten, "CAVER shims rewritten on the way back (transit)")              \
	X(caver_shims_stripped, "CAVER shims removed before a local host")                        \
	X(caver_adverts, "CAVER advertisements stored in the path table")                        \
	X(caver_shim_skipped, "RC ACKs not shimmed (IPv6, Resv7 not zero, no room)")             \
	X(caver_hosts_full, "CAVER advertisements lost: path table has no room for the host")     \
	X(caver_flows_table, "CAVER flows placed on the best path of the path table")            \
	X(caver_flows_ecmp, "CAVER flows placed by ECMP (no valid path-table entry)")            \
	X(caver_source_routed, "packets sent on the egress port their source route asked for")   \
	X(caver_source_route_bad, "source routes not usable here (not in the group, down): ECMP") \
	X(dst_slot_evictions, "busy/inactive marks lost to another destination sharing the slot") \
	X(foreign_cw_stripped, "ConWeave headers removed before a host by a ToR not running ConWeave") \
	X(foreign_shims_stripped, "CAVER shims removed before a host by a ToR not running CAVER") \
	X(foreign_ctrl, "ConWeave/SeqBalance control packets for a host no mode here reads: consumed") \
	X(stale_epoch_packets, "stragglers of an older epoch (by ts_tx) forwarded at once")       \
	X(clear_timeouts, "phase-1 flows that started a new epoch without their CLEAR")            \
	X(cw_unstamped, "packets of a ConWeave flow sent on its path without the fields")          \
	X(reorder_over_budget, "reorder overflows because the worker held its hold budget")

enum rtr_lb_counter {
#define RTR_LB_CNT_ENUM(n, d) RTR_LBC_##n,
	RTR_LB_COUNTERS(RTR_LB_CNT_ENUM)
#undef RTR_LB_CNT_ENUM
	RTR_LBC_MAX
};
extern const char *const rtr_lb_counter_names[RTR_LBC_MAX];
extern const char *const rtr_lb_counter_help[RTR_LBC_MAX];

struct rtr_port_counters {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t drops;	     /* drops of packets received on this port */
	uint64_t ecn_marked; /* CE marks applied at this port's egress */
	uint64_t host_b4_cleared; /* host RoCE packets whose BTH byte 4 was cleared */
	/* Entries this port's packets created and hold now, and new flows
	 * refused an entry by its flow_share / flow_rate: read from the LB
	 * flow tables (rtr_pipeline_flow_counters); a worker adds its old
	 * table's refusals here at a runtime LB switch. */
	uint64_t flow_entries;
	uint64_t flow_limit_share;
	uint64_t flow_limit_rate;
};

/*
 * Data-path stages timed by the worker loop (doc/benchmarks.md). One loop
 * pass in RTR_STAGE_SAMPLE that received packets is timed stage by stage
 * with the TSC; stage_cycles[s] / stage_packets is the mean cost of stage s
 * per received packet. rx is the PMD's rx_burst, parse the parser and
 * ingress policy, route the LPM lookups, lb the LB stage's pick (SrcToR),
 * egress the rewrite, DstToR delivery and class enqueue, tx the scheduler
 * and tx_burst of every port.
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
	uint64_t handoff_tx; /* packets handed to another worker */
	uint64_t handoff_rx;
	uint64_t idle_sleeps;
	uint64_t lb_switch_released; /* packets the old mode held at runtime LB switches */
	uint64_t lb[RTR_LBC_MAX];
	uint64_t path_tx[RTR_STATS_GROUPS][RTR_MAX_PATHS];
	uint64_t busy_cycles; /* TSC cycles spent in bursts that had packets */
	uint64_t busy_packets;
	uint64_t stage_cycles[RTR_STAGE_MAX]; /* TSC cycles of the timed passes */
	uint64_t stage_packets;		      /* packets received in the timed passes */
} __attribute__((aligned(64)));

/* Sum n per-lcore blocks into out (out is overwritten). */
void rtr_stats_sum(struct rtr_lcore_stats *const *lcores, unsigned int n,
		struct rtr_lcore_stats *out);

/* Everything the stats document (DESIGN.md B5) shows besides the counters. */
struct rtr_stats_doc {
	const char *switch_name;
	const char *lb;
	double uptime_s;
	unsigned int n_ports;
	const uint16_t *port_ids;	 /* n_ports entries */
	const char *const *port_roles;	 /* "host" / "fabric" */
	const uint8_t *port_up;		 /* link state now */
	const char *const *port_extra;	 /* JSON members added to each port, or NULL */
	const uint64_t *port_rx_nombuf;	 /* NIC: RX lost for want of an mbuf, or NULL */
	const uint64_t *port_imissed;	 /* NIC: RX lost for want of a descriptor, or NULL */
	unsigned int n_groups;		 /* path counters shown for these */
	const char *const *group_names;	 /* prefix strings */
	const uint16_t *group_paths;	 /* n_paths of each group */
	const uint16_t (*group_ports)[RTR_MAX_PATHS];
	unsigned int n_neigh;
	const char *const *neigh_names;
	const uint64_t *neigh_values;
	uint64_t held_packets;
	uint64_t mempool_in_use;
	uint64_t mempool_baseline;	 /* in use when forwarding started */
	int64_t mempool_in_use_stopped;	 /* in use once the workers stopped, before the
					  * ports closed; -1 while running (null) */
	uint64_t lb_switches; /* runtime LB switches completed */
};

/* Write the JSON stats document. Returns 0 or -errno. */
int rtr_stats_write_json(FILE *f, const struct rtr_stats_doc *doc,
		const struct rtr_lcore_stats *sum);

#endif /* RTR_STATS_H */
