/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * ConWeave's own LB counters (doc/conweave.md). RTR_CW_MAX_GAUGES: those
 * that are a maximum, summed over workers as the largest value.
 * (name, help): the name is the key in the stats JSON and telemetry (a
 * contract: never rename one), the help a line for docs and telemetry.
 * lib/lb/rtr_lb_counters.h composes every list into enum rtr_lb_counter.
 */
#ifndef RTR_CW_COUNTERS_H
#define RTR_CW_COUNTERS_H

#define RTR_CW_COUNTERS(X)                                                                   \
	X(rtt_requests, "RTT_REQUEST packets sent (ConWeave SrcToR)")                        \
	X(rtt_replies, "RTT_REPLY packets (sent by DstToR / accepted by SrcToR)")            \
	X(reply_timeouts, "RTT_REPLY deadlines that passed")                                 \
	X(tails, "TAIL packets")                                                             \
	X(clears, "CLEAR packets")                                                           \
	X(reorder_held, "packets held in reorder queues")                                    \
	X(reorder_flush_tail, "reorder queues flushed by a TAIL")                            \
	X(reorder_flush_timeout, "reorder queues flushed at their deadline")                 \
	X(reorder_overflow, "reorder attempts that degraded to plain forwarding")            \
	X(reorder_queues_in_use, "reorder queues held now (gauge)")                          \
	X(reorder_queues_max, "most reorder queues held at once (gauge)")                    \
	X(epoch_overrun, "reorder queues flushed because a new epoch arrived")               \
	X(lb_bypass_resv7, "host RoCE packets not stamped because Resv7 was not zero")       \
	X(late_epoch_packets, "packets of a previous epoch forwarded at once")               \
	X(rtt_requests_rx, "RTT_REQUESTs received (ConWeave DstToR)")                        \
	X(rtt_replies_rx, "RTT_REPLYs received by the SrcToR")                               \
	X(rtt_replies_late, "RTT_REPLYs received after their deadline or for another epoch") \
	X(tails_rx, "TAILs received (ConWeave DstToR)")                                      \
	X(clears_rx, "CLEARs received by the SrcToR")                                        \
	X(idle_moves, "idle flows (new epoch after theta_inactive) moved to another path")   \
	X(reorder_hold_max_ns, "longest time a reorder queue was held, ns (gauge, max)")     \
	X(cw_packets, "RoCE data packets stamped by the ConWeave SrcToR")                    \
	X(stale_epoch_packets, "stragglers of an older epoch (by ts_tx) forwarded at once")  \
	X(clear_timeouts, "phase-1 flows that started a new epoch without their CLEAR")      \
	X(cw_unstamped, "packets of a ConWeave flow sent on its path without the fields")    \
	X(reorder_over_budget, "reorder overflows because the worker held its hold budget")

#define RTR_CW_MAX_GAUGES(X) X(reorder_queues_max) X(reorder_hold_max_ns)

#endif /* RTR_CW_COUNTERS_H */
