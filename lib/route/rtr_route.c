/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>

#include "rtr_route.h"

static void
addr_str(const struct rtr_addr *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	inet_ntop(a->family, a->family == AF_INET ? (const void *)&a->v4 : (const void *)&a->v6, ip,
			sizeof(ip));
	snprintf(buf, len, "%s/%u", ip, a->depth);
}

static int
route_add(struct rtr_route *r, const struct rtr_addr *p, uint32_t val, char *err, size_t errlen,
		int line)
{
	char pfx[64];
	int rc;

	if (p->family == AF_INET) {
		rc = rte_lpm_add(r->lpm4, rte_be_to_cpu_32(p->v4.s_addr), p->depth, val);
		r->n_routes4++;
	} else {
		rc = rte_lpm6_add(r->lpm6, p->v6.s6_addr, p->depth, val);
		r->n_routes6++;
	}
	if (rc < 0) {
		addr_str(p, pfx, sizeof(pfx));
		snprintf(err, errlen, "route %s (line %d): cannot add to the LPM table: %s", pfx,
				line, strerror(-rc));
		return -1;
	}
	return 0;
}

struct rtr_route *
rtr_route_create(const char *name, const struct rtr_config *cfg, int socket, rtr_route_nh_fn nh_fn,
		void *nh_arg, char *err, size_t errlen)
{
	struct rte_lpm_config c4 = {
			.max_rules = RTR_ROUTE_MAX_RULES,
			.number_tbl8s = RTR_ROUTE_TBL8S4,
	};
	struct rte_lpm6_config c6 = {
			.max_rules = RTR_ROUTE_MAX_RULES,
			.number_tbl8s = RTR_ROUTE_TBL8S6,
	};
	char lname[RTE_LPM_NAMESIZE];
	struct rtr_route *r;
	unsigned int i, j, g = 0;

	r = calloc(1, sizeof(*r));
	if (r == NULL)
		goto nomem;
	for (i = 0; i < cfg->n_routes; i++)
		r->n_groups += cfg->routes[i].is_group;
	if (r->n_groups > RTR_MAX_GROUPS) {
		snprintf(err, errlen, "too many uplink groups (%u, at most %u)", r->n_groups,
				RTR_MAX_GROUPS);
		goto fail;
	}
	r->groups = calloc(r->n_groups ? r->n_groups : 1, sizeof(*r->groups));
	if (r->groups == NULL)
		goto nomem;
	snprintf(lname, sizeof(lname), "%s4", name);
	r->lpm4 = rte_lpm_create(lname, socket, &c4);
	snprintf(lname, sizeof(lname), "%s6", name);
	r->lpm6 = rte_lpm6_create(lname, socket, &c6);
	if (r->lpm4 == NULL || r->lpm6 == NULL) {
		snprintf(err, errlen, "cannot create LPM tables: %s", rte_strerror(rte_errno));
		goto fail;
	}

	for (i = 0; i < cfg->n_routes; i++) {
		const struct rtr_route_cfg *rc = &cfg->routes[i];
		uint32_t val;

		if (rc->is_group) {
			struct rtr_group *grp = &r->groups[g];
			int irc = rtr_group_init(grp, rc->n_paths);

			grp->prefix = rc->prefix;
			addr_str(&rc->prefix, grp->name, sizeof(grp->name));
			if (irc == -ENOMEM)
				goto nomem;
			if (irc < 0) {
				snprintf(err, errlen, "route %s: %u paths (1 to %u)", grp->name,
						rc->n_paths, RTR_MAX_PATHS);
				goto fail;
			}
			for (j = 0; j < rc->n_paths; j++) {
				const struct rtr_nexthop_cfg *p = &rc->paths[j];
				int nh = nh_fn(nh_arg, p->port, &p->ip, p->mac_set ? p->mac : NULL);

				if (nh < 0) {
					snprintf(err, errlen,
							"route %s: path %u: no room for next hop",
							grp->name, j);
					goto fail;
				}
				grp->nh[j] = (uint16_t)nh;
				grp->port[j] = p->port;
			}
			val = RTR_RT_GROUP | g++;
		} else {
			const struct rtr_nexthop_cfg *p = &rc->paths[0];
			int nh = nh_fn(nh_arg, p->port, &p->ip, p->mac_set ? p->mac : NULL);

			if (nh < 0) {
				snprintf(err, errlen, "route at line %d: no room for next hop",
						rc->line);
				goto fail;
			}
			val = RTR_RT_NH | (uint32_t)nh;
		}
		if (route_add(r, &rc->prefix, val, err, errlen, rc->line) < 0)
			goto fail;
	}

	/* The switch's own addresses win over any configured prefix. */
	for (i = 0; i < cfg->n_ports; i++) {
		for (j = 0; j < cfg->ports[i].n_addrs; j++) {
			struct rtr_addr host = cfg->ports[i].addrs[j];

			host.depth = host.family == AF_INET ? 32 : 128;
			if (route_add(r, &host, RTR_RT_LOCAL | cfg->ports[i].port, err, errlen,
					    cfg->ports[i].line) < 0)
				goto fail;
		}
	}
	return r;
nomem:
	snprintf(err, errlen, "out of memory building routes");
fail:
	rtr_route_free(r);
	return NULL;
}

void
rtr_route_free(struct rtr_route *r)
{
	if (r == NULL)
		return;
	rte_lpm_free(r->lpm4);
	rte_lpm6_free(r->lpm6);
	for (unsigned int g = 0; r->groups != NULL && g < r->n_groups; g++)
		rtr_group_fini(&r->groups[g]);
	free(r->groups);
	free(r);
}

static inline uint64_t
all_paths(const struct rtr_group *g)
{
	return g->n_paths == 64 ? ~0ULL : (1ULL << g->n_paths) - 1;
}

int
rtr_group_init(struct rtr_group *g, unsigned int n_paths)
{
	unsigned int nb;

	if (n_paths == 0 || n_paths > RTR_MAX_PATHS)
		return -EINVAL;
	nb = n_paths * (RTR_GROUP_BUCKETS / n_paths);
	g->bucket = calloc(nb, sizeof(*g->bucket));
	if (g->bucket == NULL)
		return -ENOMEM;
	g->n_paths = (uint16_t)n_paths;
	g->n_buckets = (uint16_t)nb;
	for (unsigned int b = 0; b < nb; b++)
		atomic_init(&g->bucket[b], (uint8_t)(b % n_paths));
	atomic_store(&g->live_mask, all_paths(g));
	return 0;
}

void
rtr_group_fini(struct rtr_group *g)
{
	free((void *)(uintptr_t)g->bucket); /* once no worker reads g */
	g->bucket = NULL;
	g->n_buckets = 0;
}

void
rtr_group_bucket_counts(const struct rtr_group *g, unsigned int count[RTR_MAX_PATHS])
{
	memset(count, 0, RTR_MAX_PATHS * sizeof(count[0]));
	for (unsigned int b = 0; b < g->n_buckets; b++)
		count[atomic_load_explicit(&g->bucket[b], memory_order_relaxed)]++;
}

/* The live path carrying the fewest buckets (the lowest index on a tie, so
 * the buckets of a down path are dealt round the live ones in turn). */
static unsigned int
least_loaded(const unsigned int *load, uint64_t live)
{
	unsigned int best = (unsigned int)__builtin_ctzll(live);

	for (live &= live - 1; live != 0; live &= live - 1) {
		unsigned int p = (unsigned int)__builtin_ctzll(live);

		if (load[p] < load[best])
			best = p;
	}
	return best;
}

/*
 * Readers take the home path when it is live and the bucket otherwise, and
 * ignore a bucket whose path their mask has down. So:
 *   - paths coming back are published first: their flows go home at that
 *     store; their buckets follow home (for the loads of later failures).
 *     Not when no path was live: readers find no path until the end, so
 *     every bucket is in place before any reader uses the table;
 *   - buckets on paths that are not live are then moved, one byte store each,
 *     before the mask that takes those paths down is published (release), so
 *     a reader that sees a path down sees where its buckets went.
 * Nothing else is written: a bucket on a live path never moves.
 */
unsigned int
rtr_group_set_live(struct rtr_group *g, uint64_t live)
{
	const unsigned int n = g->n_paths, nb = g->n_buckets;
	uint64_t old = atomic_load_explicit(&g->live_mask, memory_order_relaxed), up;
	unsigned int load[RTR_MAX_PATHS] = {0};

	live &= all_paths(g);
	if (live == old)
		return 0;
	up = live & ~old;
	if (g->bucket != NULL && up != 0) {
		if (old != 0)
			atomic_store_explicit(&g->live_mask, old | up, memory_order_release);
		for (unsigned int b = 0; b < nb; b++) {
			if ((up >> (b % n)) & 1)
				atomic_store_explicit(&g->bucket[b], (uint8_t)(b % n),
						memory_order_relaxed);
		}
	}
	if (g->bucket != NULL && live != 0) {
		for (unsigned int b = 0; b < nb; b++)
			load[atomic_load_explicit(&g->bucket[b], memory_order_relaxed)]++;
		for (unsigned int b = 0; b < nb; b++) {
			unsigned int p = atomic_load_explicit(&g->bucket[b], memory_order_relaxed);

			if ((live >> p) & 1)
				continue;
			p = least_loaded(load, live);
			atomic_store_explicit(&g->bucket[b], (uint8_t)p, memory_order_relaxed);
			load[p]++;
		}
	}
	atomic_store_explicit(&g->live_mask, live, memory_order_release);
	return (unsigned int)__builtin_popcountll(live ^ old);
}

unsigned int
rtr_route_port_state(struct rtr_route *r, uint16_t port, bool up)
{
	unsigned int changed = 0;

	for (unsigned int g = 0; g < r->n_groups; g++) {
		struct rtr_group *grp = &r->groups[g];
		uint64_t mask = atomic_load(&grp->live_mask), old = mask;

		for (unsigned int p = 0; p < grp->n_paths; p++) {
			if (grp->port[p] != port)
				continue;
			if (up)
				mask |= 1ULL << p;
			else
				mask &= ~(1ULL << p);
		}
		if (mask != old)
			changed += rtr_group_set_live(grp, mask);
	}
	return changed;
}
