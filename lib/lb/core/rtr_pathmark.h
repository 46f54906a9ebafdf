/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Path marks per destination ToR: "path p of uplink group g is congested
 * toward destination D until time T". The table behind ConWeave's busy paths
 * (a NOTIFY) and SeqBalance's inactive paths (a Congestion Packet), shared by
 * the workers of a switch.
 *
 * A congestion signal is about one path to one DstToR: spine -> ToR X can be
 * congested while spine -> ToR Y is idle. A route group may reach many ToRs
 * (one aggregate route 10.0.0.0/8 over the uplinks), so the table is keyed by
 * (group, destination, path), the destination being the data packet's
 * destination address masked to dst_prefix_len (IPv4) / dst_prefix_len6
 * (IPv6): a lab sets them to its ToRs' subnet length. A group whose own
 * prefix is as long or longer (one route per remote ToR) has a single
 * destination, itself: the table is then keyed by group alone.
 *
 * Bounded: per group, n_slots slots of 1 + n_paths 64-bit words (a tag
 * naming the destination that owns the slot, and per path the time until
 * which it is marked). n_slots = 2^(masked length - group prefix length), at
 * most RTR_PM_SLOTS. When a group holds no more destinations than slots, a
 * destination's slot is its own number under the group's prefix (no two
 * share one); beyond that the slot is a hash of the destination, and two
 * destinations may meet in one slot. The later one then takes the slot: at
 * no cost when every mark in it has expired, otherwise it evicts the other
 * destination's marks (its paths look free until its next signal: the cost
 * of a collision is a missed avoidance, never a path avoided for a
 * destination that did not ask for it), and the caller counts it.
 *
 * Lock-free: workers read a slot with atomic loads (tag, expiry, tag again)
 * and mark the slot of their destination with one relaxed store, as the
 * per-group table did. Taking a slot over is a compare-and-swap of the tag
 * to a transient value, the expiries cleared, the new tag published with
 * release; a reader that meets the slot in between sees no mark. A mark of
 * the old destination racing with the take-over may survive into the new
 * owner's slot for at most one busy period (accepted: nanosecond window,
 * bounded harm).
 */
#ifndef RTR_PATHMARK_H
#define RTR_PATHMARK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtr_config.h"

#define RTR_PM_SLOTS 256 /* destinations per group at most (per group, a power of two) */

/* One uplink group, as the route table numbers them. */
struct rtr_pm_group {
	uint8_t family;  /* AF_INET, AF_INET6; 0: every destination is one (the group) */
	uint8_t depth;   /* the group's prefix length */
	uint8_t n_paths; /* 1..RTR_MAX_PATHS */
};

struct rtr_pm_params {
	const char *name; /* of the memory zone */
	unsigned int n_groups;
	const struct rtr_pm_group *groups; /* n_groups; NULL: each keyed by group, 64 paths */
	unsigned int dst_prefix_len;       /* IPv4 destination key length, 0..32 */
	unsigned int dst_prefix_len6;      /* IPv6, 0..128 */
	bool use_rte_malloc;               /* false: no EAL (unit tests) */
	int socket;
};

/* Where a destination's marks live (rtr_pm_ref); n_paths 0: nowhere. */
struct rtr_pm_ref {
	uint64_t tag;
	uint32_t word; /* the slot's tag word */
	uint16_t group;
	uint8_t n_paths;
};

struct rtr_pm;

struct rtr_pm *rtr_pm_create(const struct rtr_pm_params *p);
/* Bytes rtr_pm_create(p) allocates (memory planning; no EAL). */
size_t rtr_pm_memsize(const struct rtr_pm_params *p);
void rtr_pm_free(struct rtr_pm *t);

/* The uplink groups of cfg's routes, in the route table's order (one per
 * route with paths), in g[0..max-1]; entries past cfg's groups are zero
 * (keyed by group, RTR_MAX_PATHS paths). Returns how many cfg has. */
unsigned int rtr_pm_groups_of(
		const struct rtr_config *cfg, struct rtr_pm_group *g, unsigned int max);
/* Bytes the table of cfg's uplink groups with these destination key
 * lengths takes (a mode's state_bytes; rtr_pm_memsize over
 * rtr_pm_groups_of). */
size_t rtr_pm_memsize_cfg(const struct rtr_config *cfg, unsigned int dst_prefix_len,
		unsigned int dst_prefix_len6);

/* The slot of destination dst (16 bytes; IPv4: the first 4) in group g.
 * False (r->n_paths = 0) for a group outside the table. */
bool rtr_pm_ref(const struct rtr_pm *t, unsigned int g, const uint8_t *dst, bool v6,
		struct rtr_pm_ref *r);

/* Whether path is marked for r's destination at now. */
bool rtr_pm_marked(const struct rtr_pm *t, const struct rtr_pm_ref *r, unsigned int path,
		uint64_t now);

#define RTR_PM_MARKED  0  /* rtr_pm_mark: done */
#define RTR_PM_EVICTED 1  /* done, and another destination's live marks were dropped */
#define RTR_PM_LOST    -1 /* not done: another worker was taking the slot over */

/* Mark path for r's destination until `until` (now: what "live" means for
 * the marks an eviction drops). path < r->n_paths. */
int rtr_pm_mark(struct rtr_pm *t, const struct rtr_pm_ref *r, unsigned int path, uint64_t until,
		uint64_t now);

/* Whether path of group g is marked for any destination at now. */
bool rtr_pm_marked_any(const struct rtr_pm *t, unsigned int g, unsigned int path, uint64_t now);

/* (destination, path) pairs marked at now, over every group: for gauges.
 * Reads only the slots and paths ever marked. */
uint64_t rtr_pm_count(const struct rtr_pm *t, uint64_t now);

/* Slots of group g (1 when the group is its only destination); 0 outside. */
unsigned int rtr_pm_slots(const struct rtr_pm *t, unsigned int g);

#endif /* RTR_PATHMARK_H */
