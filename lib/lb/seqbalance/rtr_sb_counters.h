/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * SeqBalance's own LB counters (doc/seqbalance.md).
 * (name, help): the name is the key in the stats JSON and telemetry (a
 * contract: never rename one), the help a line for docs and telemetry.
 * lib/lb/rtr_lb_counters.h composes every list into enum rtr_lb_counter.
 */
#ifndef RTR_SB_COUNTERS_H
#define RTR_SB_COUNTERS_H

#define RTR_SB_COUNTERS(X)                                                                       \
	X(sb_subflows, "SeqBalance sub-flows started (first packet, or idle > subflow_idle_us)") \
	X(sb_rehashes, "new sub-flows moved off an inactive first choice by double hashing")     \
	X(sb_all_inactive, "new sub-flows that found every path inactive (took h1 mod n)")       \
	X(sb_paths_inactive, "SeqBalance paths inactive now (gauge)")                            \
	X(sb_tagged, "RoCE packets stamped with a PathTag by the SeqBalance SrcToR")

/* None of them is a maximum over the workers. */
#define RTR_SB_MAX_GAUGES(X)

#endif /* RTR_SB_COUNTERS_H */
