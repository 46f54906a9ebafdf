/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * CAVER's own LB counters (doc/caver.md).
 * (name, help): the name is the key in the stats JSON and telemetry (a
 * contract: never rename one), the help a line for docs and telemetry.
 * lib/lb/rtr_lb_counters.h composes every list into enum rtr_lb_counter.
 */
#ifndef RTR_CAVER_COUNTERS_H
#define RTR_CAVER_COUNTERS_H

#define RTR_CAVER_COUNTERS(X)                                                                     \
	X(caver_shims_added, "CAVER shims added to RC ACKs from local hosts")                     \
	X(caver_shims_rewritten, "CAVER shims rewritten on the way back (transit)")               \
	X(caver_shims_stripped, "CAVER shims removed before a local host")                        \
	X(caver_adverts, "CAVER advertisements stored in the path table")                         \
	X(caver_shim_skipped, "RC ACKs not shimmed (IPv6, Resv7 not zero, no room)")              \
	X(caver_hosts_full, "CAVER advertisements lost: path table has no room for the host")     \
	X(caver_flows_table, "CAVER flows placed on the best path of the path table")             \
	X(caver_flows_ecmp, "CAVER flows placed by ECMP (no valid path-table entry)")             \
	X(caver_source_routed, "packets sent on the egress port their source route asked for")    \
	X(caver_source_route_bad, "source routes not usable here (not in the group, down): ECMP") \
	X(caver_flows_unadvertised,                                                               \
			"CAVER flows placed on a path without a valid entry (its local CE)")

/* None of them is a maximum over the workers. */
#define RTR_CAVER_MAX_GAUGES(X)

#endif /* RTR_CAVER_COUNTERS_H */
