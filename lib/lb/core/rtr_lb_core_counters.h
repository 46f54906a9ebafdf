/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The LB counters every stateful mode (or the dispatch rules) may count:
 * reroutes, control packets, the flow table and its limits, the pathmark
 * table, LB fields removed before a host by a mode that does not own them.
 * (name, help): the name is the key in the stats JSON and telemetry (a
 * contract: never rename one), the help a line for docs and telemetry.
 * lib/lb/rtr_lb_counters.h composes every list into enum rtr_lb_counter.
 */
#ifndef RTR_LB_CORE_COUNTERS_H
#define RTR_LB_CORE_COUNTERS_H

#define RTR_LB_CORE_COUNTERS(X)                                                                   \
	X(reroutes, "flows moved to a new path")                                                  \
	X(notifies, "NOTIFY / congestion packets")                                                \
	X(busy_paths, "paths marked busy or inactive")                                            \
	X(flow_table_full, "new flows sent by ECMP because the flow table was full")              \
	X(flow_limit_share, "new host flows sent by ECMP: their port held its flow_share")        \
	X(flow_limit_rate, "new host flows sent by ECMP: their port was over its flow_rate")      \
	X(ecmp_packets, "packets whose path was chosen by the ECMP hash")                         \
	X(notifies_rx, "NOTIFYs received by the SrcToR")                                          \
	X(ctrl_no_flow, "ConWeave control packets for a flow this switch has no state for")       \
	X(ctrl_alloc_failed, "control packets not sent: no mbuf")                                 \
	X(dst_slot_evictions, "busy/inactive marks lost to another destination sharing the slot") \
	X(foreign_cw_stripped,                                                                    \
			"ConWeave headers removed before a host by a ToR not running ConWeave")   \
	X(foreign_shims_stripped, "CAVER shims removed before a host by a ToR not running CAVER") \
	X(foreign_ctrl, "ConWeave/SeqBalance control packets for a host no mode here reads: "     \
			"consumed")

#endif /* RTR_LB_CORE_COUNTERS_H */
