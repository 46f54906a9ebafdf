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
 * The tables are built from the config at start-up; routes may then be
 * added, replaced and removed at run time (rtr_route_set, rtr_route_del:
 * the telemetry commands and the FPM server), by one writer, the control
 * lcore, while workers forward:
 *   - IPv4 changes in place: rte_lpm writes each entry with one store and,
 *     with an RCU QSBR variable attached (rtr_route_rcu), frees a tbl8
 *     only once every worker has reported quiescence since;
 *   - IPv6 changes through a standby table: rte_lpm6 (DPDK 22.11) reuses a
 *     deleted tbl8 at once, so a change is made in the table no worker
 *     reads, the tables swap (one pointer store), and the same change is
 *     made in the old table after a grace period (rtr_route_poll);
 *   - a group slot (and its bucket table) is reused only after a grace
 *     period from the moment no table named it any more.
 * Path liveness changes too: each group keeps a 64-bit mask of live paths
 * (its members whose port is up), updated with a single atomic store by
 * the control lcore, and read with one atomic load by workers (DESIGN.md
 * A: single-word updates).
 *
 * Groups are resilient (ALGORITHMS.md 1): each has a table of n_paths x K
 * buckets, bucket b's home path being b mod n_paths, so while every path is
 * live the table is not read and a flow takes hash mod n_paths. When a path
 * goes down, the control lcore moves only the buckets that were on it, each
 * to the least-loaded live path; when it comes back, the buckets whose home
 * it is move back and nothing else. A flow whose home path is live takes it;
 * a flow whose home is down takes its bucket's path. Every bucket is one byte
 * (a single-byte store is atomic for readers), written before the mask that
 * makes readers look at it is published, and the live mask stays the
 * authority: a bucket read mid-update that names a path the reader's mask
 * has down is ignored for a path that is live in that mask.
 */
#ifndef RTR_ROUTE_H
#define RTR_ROUTE_H

#include <pthread.h>
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
#define RTR_RT_NH         (0u << RTR_RT_KIND_SHIFT)
#define RTR_RT_GROUP      (1u << RTR_RT_KIND_SHIFT)
#define RTR_RT_LOCAL      (2u << RTR_RT_KIND_SHIFT)
#define RTR_RT_DROP       (3u << RTR_RT_KIND_SHIFT) /* blackhole (FPM): no_route */

/* Bytes of bucket table per group at most: K = RTR_GROUP_BUCKETS / n_paths
 * buckets per path (64 with 64 paths, 1024 with 4), so the buckets of a down
 * path spread over the live ones within a bucket of even. */
#define RTR_GROUP_BUCKETS 4096

struct rtr_group {
	_Atomic uint64_t live_mask; /* bit i set: path i may be used */
	uint16_t n_paths;
	uint16_t n_buckets;           /* n_paths x K; 0: no table (see rtr_group_pick_live) */
	_Atomic uint8_t *bucket;      /* n_buckets: each bucket's path; control-written */
	uint16_t nh[RTR_MAX_PATHS];   /* next-hop index of each path */
	uint16_t port[RTR_MAX_PATHS]; /* egress port of each path */
	struct rtr_addr prefix;       /* for stats and telemetry */
	char name[64];                /* prefix as text */
	/* Control side only (workers never read these): */
	uint64_t member; /* paths that are the route's next hops now */
	uint8_t in_use;  /* the slot holds a group (or waits for its grace) */
	uint8_t src;     /* enum rtr_route_src of its route */
};

/* Where a route came from. The config's routes and the ports' addresses
 * win: a runtime route for the same prefix is refused (rtr_route_set). */
enum rtr_route_src {
	RTR_RS_CONFIG = 0, /* routes: in the config */
	RTR_RS_LOCAL,      /* an address of a port */
	RTR_RS_API,        /* telemetry /rocetor/route/add (the CLI) */
	RTR_RS_FPM,        /* zebra, over FPM */
	RTR_RS_MAX
};

/* What run-time changes did (telemetry /rocetor/route/stats). */
struct rtr_route_counters {
	uint64_t added, replaced, removed;
	uint64_t refused;         /* bad, shadowed by the config, or no room */
	uint64_t groups_in_place; /* next hops joined or left a group: only their flows moved */
	uint64_t groups_new;      /* a new group (more next hops than its slots) */
	uint64_t lpm6_swaps;      /* IPv6 standby tables published */
	uint64_t deferred_frees;  /* group slots freed after a grace period */
	uint64_t errors;          /* a deferred IPv6 change the table refused */
};

struct rtr_route_ctl; /* the control side (rtr_route.c) */

struct rtr_route {
	struct rte_lpm *lpm4;
	/* The IPv6 table workers read: load with rtr_route_lpm6 (it changes
	 * at run time, see above). */
	struct rte_lpm6 *lpm6;
	unsigned int n_groups;    /* slots ever used (a bound for loops) */
	struct rtr_group *groups; /* RTR_MAX_GROUPS slots; in_use says which hold a group */
	unsigned int n_routes4, n_routes6;
	struct rtr_route_ctl *ctl;
};

/*
 * Callback that returns the next-hop index for (port, neighbour address or
 * static MAC); the app passes rtr_neigh_add. Returns -1 on failure.
 */
typedef int (*rtr_route_nh_fn)(
		void *arg, uint16_t port, const struct rtr_addr *ip, const uint8_t *mac);

/* The LPM tables' sizes: rules (routes and the ports' addresses) and
 * tbl8 groups (prefixes longer than /24 and /24 of IPv6). */
#define RTR_ROUTE_MAX_RULES (RTR_MAX_ROUTES + RTR_MAX_PORTS * RTR_MAX_PORT_ADDRS)
#define RTR_ROUTE_TBL8S4    (1u << 10)
#define RTR_ROUTE_TBL8S6    (1u << 12)

/*
 * Bytes of DPDK heap the route tables take on their socket, for memory
 * planning (no EAL): DPDK 22.11's rte_lpm and rte_lpm6 each hold a tbl24
 * of 2^24 4-byte entries (64 MiB) and 256 4-byte entries per tbl8 group;
 * rules of 8 (IPv4) and about 64 (IPv6: a hash entry) bytes; the route
 * list's hash about 64 bytes per rule. With runtime (routes may change at
 * run time: FPM or --telemetry-rw), IPv6's second table (the standby, see
 * above, rtr_route_runtime).
 */
/* Whether routes can change at run time: rw telemetry (/rocetor/route/add)
 * or an FPM server. */
static inline bool
rtr_route_runtime_possible(const struct rtr_config *cfg, bool telemetry_rw)
{
	return telemetry_rw || cfg->fpm.address.family != 0;
}

static inline uint64_t
rtr_route_memsize(bool runtime)
{
	const uint64_t tbl24 = (uint64_t)RTE_LPM_TBL24_NUM_ENTRIES * 4;
	const uint64_t tbl8 = 256 * 4, rule6 = RTR_ROUTE_MAX_RULES * 64;

	return 2 * tbl24 + (uint64_t)(RTR_ROUTE_TBL8S4 + RTR_ROUTE_TBL8S6) * tbl8 +
	       (uint64_t)RTR_ROUTE_MAX_RULES * (8 + 64 + 64) +
	       (runtime ? tbl24 + (uint64_t)RTR_ROUTE_TBL8S6 * tbl8 + rule6 : 0);
}

/*
 * Build the tables from cfg. name must be unique per process (LPM names are
 * global in DPDK). Local addresses of every port become LOCAL routes.
 * Returns NULL and a one-line message in err on failure. Needs the EAL.
 */
struct rtr_route *rtr_route_create(const char *name, const struct rtr_config *cfg, int socket,
		rtr_route_nh_fn nh_fn, void *nh_arg, char *err, size_t errlen);
void rtr_route_free(struct rtr_route *r);

/* Control lcore: a port changed state; every group using it is updated
 * (rtr_group_set_live). Returns how many paths changed. */
unsigned int rtr_route_port_state(struct rtr_route *r, uint16_t port, bool up);

/*
 * Run-time routes (the control lcore, the only writer).
 *
 * rtr_route_rcu: the workers' QSBR variable (each reports quiescence once
 * per loop). From then on nothing a worker may still read is freed or
 * reused before every worker reported since it was unlinked. Without it
 * (unit tests, the simulator) changes assume no concurrent reader.
 * Returns 0 or a negative errno (rte_lpm_rcu_qsbr_add's).
 */
struct rte_rcu_qsbr;
int rtr_route_rcu(struct rtr_route *r, struct rte_rcu_qsbr *v);

/* Routes will change at run time (FPM, --telemetry-rw): build the second
 * IPv6 table now (68 MiB, counted by rtr_route_memsize(true)) rather than
 * at the first IPv6 change. Returns 0 or -ENOMEM / -ENOSPC. Without it,
 * the first run-time IPv6 change builds it (and is refused if it cannot). */
int rtr_route_runtime(struct rtr_route *r);

/* A next hop of a run-time route: a port and the neighbour's address
 * (resolved by rocetor's ARP/ND), or a static MAC when mac_set. */
struct rtr_route_path {
	uint16_t port;
	uint8_t mac_set;
	uint8_t mac[6];
	struct rtr_addr ip;
};

/*
 * Add prefix, or replace its next hops: one path makes a next-hop route,
 * several a group (up to RTR_MAX_PATHS), none (paths NULL, n 0) a route
 * that drops what it matches (a blackhole; counted as no_route). A group route that keeps being a
 * group keeps its group: next hops that leave are taken out the resilient
 * way (only their flows move), next hops that come back or are new take a
 * free slot of the group (only the flows of that slot move); only when the
 * group has no free slot for them is a new group built. prefix's host bits
 * are cleared. Refused (-EPERM) for a prefix of the config or a port's
 * address (they win), -EINVAL for a bad prefix or path, -ENOSPC when a
 * table is full; -EAGAIN (not a refusal) when every group slot is taken
 * but some wait for a grace period: retry after rtr_route_poll. A refusal leaves the tables as they were and says why in
 * err. IPv6 changes may take effect at a later rtr_route_poll (a grace
 * period): *pending is set then.
 */
int rtr_route_set(struct rtr_route *r, const struct rtr_addr *prefix,
		const struct rtr_route_path *paths, unsigned int n, enum rtr_route_src src,
		bool *pending, char *err, size_t errlen);
/* Remove a run-time route: -ENOENT if there is none, -EPERM for the
 * config's. */
int rtr_route_del(struct rtr_route *r, const struct rtr_addr *prefix, char *err, size_t errlen);

/* Control lcore, every poll: finish what waits for a grace period (the
 * second IPv6 table, group slots). Never blocks. Returns how many
 * changes are still pending. */
unsigned int rtr_route_poll(struct rtr_route *r);

/* The control side's lock: held by the writer while it changes the
 * tables, and by a reader of the route list (telemetry) while it reads. */
void rtr_route_lock(struct rtr_route *r);
void rtr_route_unlock(struct rtr_route *r);

/* The route list (under rtr_route_lock): routes in slots 0..bound-1; a
 * slot that holds none returns false. */
struct rtr_route_info {
	struct rtr_addr prefix;
	uint32_t val;  /* RTR_RT_* kind | index */
	uint8_t src;   /* enum rtr_route_src */
	uint8_t state; /* 0 installed, 1 pending (IPv6 grace), 2 failed */
	uint8_t stale; /* FPM: not yet confirmed since zebra reconnected */
	int line;      /* the config's line (RTR_RS_CONFIG, RTR_RS_LOCAL) */
};
unsigned int rtr_route_slots(const struct rtr_route *r);
bool rtr_route_get(const struct rtr_route *r, unsigned int slot, struct rtr_route_info *out);
unsigned int rtr_route_count(const struct rtr_route *r);
/* Find prefix's route (exact prefix); false if absent. */
bool rtr_route_find(const struct rtr_route *r, const struct rtr_addr *prefix,
		struct rtr_route_info *out);
const struct rtr_route_counters *rtr_route_counters(const struct rtr_route *r);
const char *rtr_route_src_name(unsigned int src);

/* FPM resync: mark every route of src stale; set() clears the mark;
 * sweep removes the routes still stale. Returns how many. */
unsigned int rtr_route_mark_stale(struct rtr_route *r, enum rtr_route_src src);
unsigned int rtr_route_sweep_stale(struct rtr_route *r, enum rtr_route_src src);

/*
 * A group's bucket table (rtr_route_create does this for its groups; a test
 * building a group by hand may too): n_paths is set, every path live, every
 * bucket on its home path. Returns 0, -EINVAL (n_paths not 1..RTR_MAX_PATHS)
 * or -ENOMEM. rtr_group_fini frees it.
 */
int rtr_group_init(struct rtr_group *g, unsigned int n_paths);
void rtr_group_fini(struct rtr_group *g);

/*
 * Control lcore (one writer): make live (bits >= n_paths ignored) the
 * group's live paths, moving as few buckets as possible: the buckets of
 * paths going down go to the least-loaded live paths, those whose home comes
 * back go home, nothing else moves. With no path live the buckets stay where
 * they are (readers see mask 0 and find no path); the first path back takes
 * every bucket that has nowhere else to go. Returns how many paths changed.
 */
unsigned int rtr_group_set_live(struct rtr_group *g, uint64_t live);

/* Buckets per path: count[p] for p < n_paths (telemetry). */
void rtr_group_bucket_counts(const struct rtr_group *g, unsigned int count[RTR_MAX_PATHS]);

/* Look up; returns the LPM result or -1 when no route matches. */
static inline int64_t
rtr_route_lookup4(const struct rtr_route *r, uint32_t dst_be)
{
	uint32_t res;

	if (rte_lpm_lookup(r->lpm4, rte_be_to_cpu_32(dst_be), &res) != 0)
		return -1;
	return res;
}

static inline struct rte_lpm6 *
rtr_route_lpm6(const struct rtr_route *r)
{
	return __atomic_load_n(&r->lpm6, __ATOMIC_ACQUIRE);
}

static inline int64_t
rtr_route_lookup6(const struct rtr_route *r, const uint8_t dst[16])
{
	uint32_t res;

	if (rte_lpm6_lookup(rtr_route_lpm6(r), dst, &res) != 0)
		return -1;
	return res;
}

/*
 * The path of hash in g under live, a snapshot of g's mask taken with one
 * load (the LB modes' fallbacks pass the snapshot they tested; -1 when it is
 * 0): the home path hash mod n_paths if live, else the path of the flow's
 * bucket. The bucket is a single byte, so the table costs one load and
 * only for flows whose home is down. A bucket that names a path down in this
 * snapshot (an update in progress), or no table at all (a group built by hand
 * in a test), falls back to the (hash mod n_live)-th live path: never a dead
 * one.
 */
static inline int
rtr_group_pick_live(const struct rtr_group *g, uint64_t live, uint32_t hash)
{
	unsigned int p = hash % g->n_paths, k;

	if ((live >> p) & 1)
		return (int)p;
	if (unlikely(live == 0))
		return -1;
	if (likely(g->bucket != NULL)) {
		/* Pairs with the release store of the mask: the buckets
		 * written before it are seen with it. */
		atomic_thread_fence(memory_order_acquire);
		p = atomic_load_explicit(&g->bucket[hash % g->n_buckets], memory_order_relaxed);
		if (likely((live >> p) & 1))
			return (int)p;
	}
	for (k = hash % (unsigned int)__builtin_popcountll(live); k > 0; k--)
		live &= live - 1; /* drop the lowest set bit k times */
	return __builtin_ctzll(live);
}

/*
 * ECMP (ALGORITHMS.md 1): path = hash mod n_paths while every path is live
 * (one load and a compare: the table is not read); with some down, the
 * resilient rule of rtr_group_pick_live. Returns the path index, or -1 if
 * none is live.
 */
static inline int
rtr_group_pick(const struct rtr_group *g, uint32_t hash)
{
	uint64_t live = atomic_load_explicit(&g->live_mask, memory_order_relaxed);

	if (likely(live == (g->n_paths == 64 ? ~0ULL : ((1ULL << g->n_paths) - 1))))
		return (int)(hash % g->n_paths);
	return rtr_group_pick_live(g, live, hash);
}

/*
 * A route change asked by another thread (telemetry) and made by the
 * control lcore: the caller posts it and waits (rtr_route_mbox_call), the
 * control lcore serves it at its next poll (rtr_route_mbox_serve).
 */
struct rtr_route_req {
	bool del;
	enum rtr_route_src src;
	struct rtr_addr prefix;
	unsigned int n_paths;
	struct rtr_route_path paths[RTR_MAX_PATHS];
	/* The answer: */
	int rc;
	bool pending;
	char err[192];
};

struct rtr_route_mbox {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Atomic int posted;
	int state; /* 0 free, 1 posted, 2 answered */
	struct rtr_route_req *req;
};

void rtr_route_mbox_init(struct rtr_route_mbox *mb);
/* Any thread: post req and wait up to timeout_ms for the answer in req;
 * -ETIMEDOUT (req withdrawn, nothing changed) if none came. */
int rtr_route_mbox_call(
		struct rtr_route_mbox *mb, struct rtr_route_req *req, unsigned int timeout_ms);
/* Control lcore: serve a posted request. Returns true if it did. */
bool rtr_route_mbox_serve(struct rtr_route_mbox *mb, struct rtr_route *r);

/*
 * A route as text (the telemetry command and the CLI):
 *   PREFIX via ADDR port N [via ADDR port N ...]
 *   PREFIX mac XX:XX:XX:XX:XX:XX port N ...
 * ADDR may be IPv4 or IPv6 whatever the prefix's family. Returns 0, or -1
 * with the first bad word in err.
 */
int rtr_route_parse_spec(const char *s, struct rtr_addr *prefix, struct rtr_route_path *paths,
		unsigned int *n, char *err, size_t errlen);
/* PREFIX alone (a removal): a/len, or an address (a host route). */
int rtr_route_parse_prefix(const char *s, struct rtr_addr *prefix);

#endif /* RTR_ROUTE_H */
