/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Spray's own LB counters (doc/spray.md). RTR_SP_MAX_GAUGES: those that
 * are a maximum, summed over workers as the largest value.
 * (name, help): the name is the key in the stats JSON and telemetry (a
 * contract: never rename one), the help a line for docs and telemetry.
 * lib/lb/rtr_lb_counters.h composes every list into enum rtr_lb_counter.
 */
#ifndef RTR_SP_COUNTERS_H
#define RTR_SP_COUNTERS_H

#define RTR_SP_COUNTERS(X)                                                                         \
	X(sprayed, "RoCE data packets stamped with a sequence number and sprayed (spray SrcToR)")  \
	X(spray_unstamped, "RoCE data packets of a host sent by ECMP unstamped: Resv7 set or no "  \
			   "headroom")                                                             \
	X(spray_rx, "stamped packets received for a host port (spray DstToR)")                     \
	X(spray_in_order, "stamped packets delivered at once: the sequence number expected")       \
	X(spray_held, "stamped packets held in a reorder window")                                  \
	X(released_in_order, "held packets released in sequence once their gap filled")            \
	X(gap_timeouts, "reorder windows released at their deadline, skipping the gap(s)")         \
	X(gap_skipped, "sequence numbers skipped by gap timeouts (lost, or late)")                 \
	X(late, "stamped packets behind the expected sequence number, delivered at once")          \
	X(window_overflow, "packets that found no room to be held: released in order as received") \
	X(spray_over_budget, "window overflows because the worker held its hold budget")           \
	X(spray_resync, "flows whose expected sequence number was reset (new or idle entry)")      \
	X(spray_flushed, "held packets released by a flush (port down, mode switch)")              \
	X(windows_in_use, "reorder windows holding packets now (gauge)")                           \
	X(windows_max, "most reorder windows holding packets at once (gauge, max)")                \
	X(spray_hold_max_ns, "longest time a packet was held, ns (gauge, max)")                    \
	X(spray_timeout_ns, "the gap timeout now, ns (gauge, max over workers)")                   \
	X(spray_queue_skips, "paths skipped out of turn: marked busy by a NOTIFY, or their "       \
			     "uplink queue longer than the shortest's + queue_slack")

#define RTR_SP_MAX_GAUGES(X) X(windows_max) X(spray_hold_max_ns) X(spray_timeout_ns)

#endif /* RTR_SP_COUNTERS_H */
