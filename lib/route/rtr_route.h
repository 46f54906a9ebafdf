/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Routing: longest-prefix match on the destination address (rte_lpm for
 * IPv4, rte_lpm6 for IPv6) to one of
 *   - a next hop: a port and a neighbour (index into the rtr_neigh table),
 *   - an uplink group: the paths of a multi-path route, path_id = index,
 *   - LOCAL: one of the switch's own addresses (punted to the control plane).
 *
 * The tables are built once at start-up from the config and only read by
 * workers afterwards. Path liveness is the one thing that changes at run
 * time: each group keeps a 64-bit mask of live paths, updated with a single
 * atomic store by the control lcore when a port goes down or comes back, and
 * read with one atomic load by workers (DESIGN.md A: single-word updates).
 */
#ifndef RTR_ROUTE_H
#define RTR_ROUTE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_lpm.h>
#include <rte_lpm6.h>

#include "rtr_common.h"
#include "rtr_config.h"

/* LPM result encoding (rte_lpm6 next hops have 21 bits). */
#define RTR_RT_KIND_SHIFT 19
#define RTR_RT_KIND_MASK  (3u << RTR_RT_KIND_SHIFT)
#define RTR_RT_INDEX_MASK ((1u << RTR_RT_KIND_SHIFT) - 1)
#define RTR_RT_NH	  (0u << RTR_RT_KIND_SHIFT)
#define RTR_RT_GROUP	  (1u << RTR_RT_KIND_SHIFT)
#define RTR_RT_LOCAL	  (2u << RTR_RT_KIND_SHIFT)

struct rtr_group {
	_Atomic uint64_t live_mask; /* bit i set: path i may be used */
	uint16_t n_paths;
	uint16_t nh[RTR_MAX_PATHS];   /* next-hop index of each path */
	uint16_t port[RTR_MAX_PATHS]; /* egress port of each path */
	struct rtr_addr prefix;	      /* for stats and telemetry */
	char name[64];		      /* prefix as text */
};

struct rtr_route {
	struct rte_lpm *lpm4;
	struct rte_lpm6 *lpm6;
	unsigned int n_groups;
	struct rtr_group *groups;     /* n_groups */
	unsigned int n_routes4, n_routes6;
};

/*
 * Callback that returns the next-hop index for (port, neighbour address or
 * static MAC); the app passes rtr_neigh_add. Returns -1 on failure.
 */
typedef int (*rtr_route_nh_fn)(void *arg, uint16_t port, const struct rtr_addr *ip,
		const uint8_t *mac);

/*
 * Build the tables from cfg. name must be unique per process (LPM names are
 * global in DPDK). Local addresses of every port become LOCAL routes.
 * Returns NULL and a one-line message in err on failure. Needs the EAL.
 */
struct rtr_route *rtr_route_create(const char *name, const struct rtr_config *cfg, int socket,
		rtr_route_nh_fn nh_fn, void *nh_arg, char *err, size_t errlen);
void rtr_route_free(struct rtr_route *r);

/* Control lcore: a port changed state; every group using it is updated.
 * Returns how many paths changed. */
unsigned int rtr_route_port_state(struct rtr_route *r, uint16_t port, bool up);

/* Look up; returns the LPM result or -1 when no route matches. */
static inline int64_t
rtr_route_lookup4(const struct rtr_route *r, uint32_t dst_be)
{
	uint32_t res;

	if (rte_lpm_lookup(r->lpm4, rte_be_to_cpu_32(dst_be), &res) != 0)
		return -1;
	return res;
}

static inline int64_t
rtr_route_lookup6(const struct rtr_route *r, const uint8_t dst[16])
{
	uint32_t res;

	if (rte_lpm6_lookup(r->lpm6, dst, &res) != 0)
		return -1;
	return res;
}

/*
 * ECMP (ALGORITHMS.md 1): path = hash mod n_paths over the live paths. When
 * every path is live this is exactly hash % n_paths; when some are down, the
 * hash picks among the live ones only (k-th set bit of the live mask), so a
 * failed uplink takes no traffic. Returns the path index, or -1 if none is live.
 */
static inline int
rtr_group_pick(const struct rtr_group *g, uint32_t hash)
{
	uint64_t live = atomic_load_explicit(&g->live_mask, memory_order_relaxed);
	unsigned int n_live, k;

	if (likely(live == (g->n_paths == 64 ? ~0ULL : ((1ULL << g->n_paths) - 1))))
		return (int)(hash % g->n_paths);
	n_live = (unsigned int)__builtin_popcountll(live);
	if (n_live == 0)
		return -1;
	for (k = hash % n_live; k > 0; k--)
		live &= live - 1; /* drop the lowest set bit k times */
	return __builtin_ctzll(live);
}

#endif /* RTR_ROUTE_H */
