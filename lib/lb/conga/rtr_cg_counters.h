/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * CONGA's own LB counters (doc/conga.md).
 * (name, help): the name is the key in the stats JSON and telemetry (a
 * contract: never rename one), the help a line for docs and telemetry.
 * lib/lb/rtr_lb_counters.h composes every list into enum rtr_lb_counter.
 */
#ifndef RTR_CG_COUNTERS_H
#define RTR_CG_COUNTERS_H

#define RTR_CG_COUNTERS(X)                                                                       \
	X(conga_packets, "RoCE packets from hosts stamped with the CONGA header (conga SrcToR)") \
	X(conga_unstamped, "RoCE packets of a host sent by ECMP unstamped: Resv7 set or no "     \
			   "headroom")                                                           \
	X(conga_flowlets, "flowlets started: a flow's first packet, or one after a gap of at "   \
			  "least flowlet_gap_us")                                                \
	X(conga_path_changes, "flowlets placed on another path than the flow's previous one, "   \
			      "and flows moved off a path that went down")                       \
	X(conga_rx, "stamped packets received for a host port (conga DstToR): CE recorded, "     \
		    "header removed")                                                            \
	X(conga_fb_sent, "feedback entries (path, metric) put in stamped packets")               \
	X(conga_fb_received, "feedback entries stored in the congestion-to-leaf table")          \
	X(conga_ce_raised, "stamped packets whose CE a hop raised to its egress link's DRE")     \
	X(conga_aged, "congestion-to-leaf entries reset to 0 by ageing")                         \
	X(conga_leaf_evictions, "leaf slots taken over by another leaf (leaf_slots too small)")

/* None of them is a maximum over the workers. */
#define RTR_CG_MAX_GAUGES(X)

#endif /* RTR_CG_COUNTERS_H */
