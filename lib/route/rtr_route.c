/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_rcu_qsbr.h>

#include "rtr_route.h"

/* A RIB key: family, depth and the prefix's address (host bits clear). */
struct rib_key {
	uint8_t family;
	uint8_t depth;
	uint8_t pad[2];
	uint8_t addr[16];
};

struct rib_entry {
	struct rtr_addr prefix;
	uint32_t val;
	uint8_t used;
	uint8_t src;
	uint8_t state; /* rtr_route_info.state */
	uint8_t stale;
	int line;
};

/* An IPv6 change: made in the standby table, then (after the swap and a
 * grace period) in the other one. */
struct op6 {
	uint8_t addr[16];
	uint8_t depth;
	uint8_t del;
	uint32_t val;
	int free_group; /* a group slot no table names once this is done; -1 */
	uint32_t rib;   /* its RIB slot (state set when it is applied) */
};

#define RTR_ROUTE_RIB_CAP (RTR_ROUTE_MAX_RULES)
#define RTR_ROUTE_OPS_CAP (RTR_ROUTE_MAX_RULES)

struct rtr_route_ctl {
	pthread_mutex_t lock;
	struct rte_hash *rib_hash;
	struct rib_entry *rib; /* RTR_ROUTE_RIB_CAP */
	unsigned int rib_bound, n_rib;
	struct rte_lpm6 *lpm6[2]; /* [1] built at the first run-time IPv6 change */
	unsigned int active6;
	struct op6 *lag;  /* made in the active table only, waiting for grace6 */
	struct op6 *pend; /* waiting for the standby table to be free */
	unsigned int n_lag, n_pend;
	bool grace6;
	uint64_t token6;
	struct {
		uint16_t g;
		uint64_t token;
	} gfree[RTR_MAX_GROUPS];
	unsigned int n_gfree;
	struct rte_rcu_qsbr *v;
	uint32_t port_down; /* bit p: port p is down (rtr_route_port_state) */
	rtr_route_nh_fn nh_fn;
	void *nh_arg;
	char name[RTE_LPM_NAMESIZE];
	int socket;
	struct rtr_route_counters cnt;
};

static const char *const src_names[RTR_RS_MAX] = {"config", "local", "api", "fpm"};

const char *
rtr_route_src_name(unsigned int src)
{
	return src < RTR_RS_MAX ? src_names[src] : "?";
}

static void
addr_str(const struct rtr_addr *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	inet_ntop(a->family, a->family == AF_INET ? (const void *)&a->v4 : (const void *)&a->v6, ip,
			sizeof(ip));
	snprintf(buf, len, "%s/%u", ip, a->depth);
}

/* prefix with its host bits cleared; false if its family or depth is bad. */
static bool
prefix_norm(const struct rtr_addr *in, struct rtr_addr *out)
{
	*out = *in;
	if (in->family == AF_INET) {
		if (in->depth > 32)
			return false;
		out->v4.s_addr =
				in->depth == 0 ? 0
					       : in->v4.s_addr & rte_cpu_to_be_32(
										 ~0u
										 << (32 - in->depth));
		return true;
	}
	if (in->family != AF_INET6 || in->depth > 128)
		return false;
	for (unsigned int i = 0; i < 16; i++) {
		int bits = (int)in->depth - (int)i * 8;

		if (bits <= 0)
			out->v6.s6_addr[i] = 0;
		else if (bits < 8)
			out->v6.s6_addr[i] &= (uint8_t)(0xff << (8 - bits));
	}
	return true;
}

static void
rib_key_of(const struct rtr_addr *p, struct rib_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = p->family;
	k->depth = p->depth;
	if (p->family == AF_INET)
		memcpy(k->addr, &p->v4, 4);
	else
		memcpy(k->addr, p->v6.s6_addr, 16);
}

static int
rib_find(const struct rtr_route_ctl *c, const struct rtr_addr *p)
{
	struct rib_key k;
	void *data;

	rib_key_of(p, &k);
	if (rte_hash_lookup_data(c->rib_hash, &k, &data) < 0)
		return -1;
	return (int)(uintptr_t)data;
}

static int
rib_insert(struct rtr_route_ctl *c, const struct rtr_addr *p, uint32_t val, unsigned int src,
		int line)
{
	struct rib_key k;
	unsigned int i;

	for (i = 0; i < RTR_ROUTE_RIB_CAP && c->rib[i].used; i++)
		;
	if (i == RTR_ROUTE_RIB_CAP)
		return -ENOSPC;
	rib_key_of(p, &k);
	if (rte_hash_add_key_data(c->rib_hash, &k, (void *)(uintptr_t)i) < 0)
		return -ENOSPC;
	c->rib[i] = (struct rib_entry){
			.prefix = *p, .val = val, .used = 1, .src = (uint8_t)src, .line = line};
	if (i >= c->rib_bound)
		c->rib_bound = i + 1;
	c->n_rib++;
	return (int)i;
}

static void
rib_remove(struct rtr_route_ctl *c, unsigned int i)
{
	struct rib_key k;

	rib_key_of(&c->rib[i].prefix, &k);
	rte_hash_del_key(c->rib_hash, &k);
	c->rib[i].used = 0;
	c->n_rib--;
}

static void group_release(struct rtr_route *r, unsigned int g);

/* Free the retired groups whose grace period is over (never waits). */
static void
groups_reclaim(struct rtr_route *r)
{
	struct rtr_route_ctl *c = r->ctl;
	unsigned int k = 0;

	for (unsigned int i = 0; i < c->n_gfree; i++) {
		if (rte_rcu_qsbr_check(c->v, c->gfree[i].token, false) == 1) {
			group_release(r, c->gfree[i].g);
			c->cnt.deferred_frees++;
		} else {
			c->gfree[k++] = c->gfree[i];
		}
	}
	c->n_gfree = k;
}

/* The group slots: one is free when no route uses it and no grace period
 * for it is under way. */
static int
group_alloc(struct rtr_route *r)
{
	if (r->ctl->n_gfree > 0)
		groups_reclaim(r);
	for (unsigned int g = 0; g < RTR_MAX_GROUPS; g++) {
		if (r->groups[g].in_use)
			continue;
		r->groups[g].in_use = 1;
		if (g >= r->n_groups)
			__atomic_store_n(&r->n_groups, g + 1, __ATOMIC_RELEASE);
		return (int)g;
	}
	return -1;
}

static void
group_release(struct rtr_route *r, unsigned int g)
{
	struct rtr_group *grp = &r->groups[g];

	rtr_group_fini(grp);
	grp->n_paths = 0;
	grp->member = 0;
	grp->name[0] = '\0';
	atomic_store(&grp->live_mask, 0);
	grp->in_use = 0;
}

/* No table names group g any more: free it once every worker has been
 * quiescent (at once without RCU: no concurrent reader). */
static void
group_retire(struct rtr_route *r, unsigned int g)
{
	struct rtr_route_ctl *c = r->ctl;

	if (c->v == NULL) {
		group_release(r, g);
		return;
	}
	c->gfree[c->n_gfree].g = (uint16_t)g;
	c->gfree[c->n_gfree].token = rte_rcu_qsbr_start(c->v);
	c->n_gfree++;
}

static int
lpm4_write(struct rtr_route *r, const struct rtr_addr *p, uint32_t val, bool del)
{
	uint32_t ip = rte_be_to_cpu_32(p->v4.s_addr);

	/* What the value names (a group's fields) is written before any
	 * entry that names it (rte_lpm stores each entry relaxed). */
	atomic_thread_fence(memory_order_release);
	return del ? rte_lpm_delete(r->lpm4, ip, p->depth)
		   : rte_lpm_add(r->lpm4, ip, p->depth, val);
}

static int
op6_do(struct rte_lpm6 *t, const struct op6 *o)
{
	return o->del ? rte_lpm6_delete(t, o->addr, o->depth)
		      : rte_lpm6_add(t, o->addr, o->depth, o->val);
}

/* The standby IPv6 table, built from the RIB at the first run-time IPv6
 * change (no worker reads it yet). */
static int
lpm6_standby(struct rtr_route *r)
{
	struct rtr_route_ctl *c = r->ctl;
	struct rte_lpm6_config c6 = {
			.max_rules = RTR_ROUTE_MAX_RULES,
			.number_tbl8s = RTR_ROUTE_TBL8S6,
	};
	char lname[RTE_LPM_NAMESIZE];
	unsigned int s = c->active6 ^ 1;

	if (c->lpm6[s] != NULL)
		return 0;
	snprintf(lname, sizeof(lname), "%.28s6b", c->name);
	c->lpm6[s] = rte_lpm6_create(lname, c->socket, &c6);
	if (c->lpm6[s] == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < c->rib_bound; i++) {
		const struct rib_entry *e = &c->rib[i];

		if (!e->used || e->prefix.family != AF_INET6 || e->state != 0)
			continue;
		if (rte_lpm6_add(c->lpm6[s], e->prefix.v6.s6_addr, e->prefix.depth, e->val) < 0) {
			rte_lpm6_free(c->lpm6[s]);
			c->lpm6[s] = NULL;
			return -ENOSPC;
		}
	}
	return 0;
}

/* The pending IPv6 changes go into the standby table, which then becomes
 * the one workers read; they wait in lag for the grace period. */
static void
lpm6_publish(struct rtr_route *r)
{
	struct rtr_route_ctl *c = r->ctl;
	unsigned int s = c->active6 ^ 1, n = 0;

	for (unsigned int i = 0; i < c->n_pend; i++) {
		struct op6 *o = &c->pend[i];
		struct rib_entry *e = o->rib < RTR_ROUTE_RIB_CAP ? &c->rib[o->rib] : NULL;

		/* The slot may hold another prefix by now (removed, reused). */
		if (e != NULL && (!e->used || e->prefix.family != AF_INET6 ||
						 e->prefix.depth != o->depth ||
						 memcmp(e->prefix.v6.s6_addr, o->addr, 16) != 0))
			e = NULL;

		if (op6_do(c->lpm6[s], o) < 0 && !o->del) {
			c->cnt.errors++;
			if (e != NULL)
				e->state = 2; /* the table refused it: in neither */
			continue;
		}
		if (e != NULL && !o->del)
			e->state = 0;
		c->lag[n++] = *o;
	}
	c->n_pend = 0;
	__atomic_store_n(&r->lpm6, c->lpm6[s], __ATOMIC_RELEASE);
	c->active6 = s;
	c->cnt.lpm6_swaps++;
	c->n_lag = n;
	c->grace6 = true;
	c->token6 = rte_rcu_qsbr_start(c->v);
}

/* Queue an IPv6 change (RCU on); publish at once if the standby is free. */
static int
lpm6_change(struct rtr_route *r, const struct op6 *o, bool *pending)
{
	struct rtr_route_ctl *c = r->ctl;

	if (c->v == NULL) { /* no concurrent reader: in place */
		int rc = op6_do(r->lpm6, o);

		if (o->free_group >= 0)
			group_release(r, (unsigned int)o->free_group);
		return o->del || rc >= 0 ? 0 : rc;
	}
	if (lpm6_standby(r) < 0)
		return -ENOMEM;
	if (c->n_pend >= RTR_ROUTE_OPS_CAP)
		return -EBUSY;
	c->pend[c->n_pend++] = *o;
	if (!c->grace6)
		lpm6_publish(r);
	else if (pending != NULL)
		*pending = true;
	return 0;
}

unsigned int
rtr_route_poll(struct rtr_route *r)
{
	struct rtr_route_ctl *c = r->ctl;
	unsigned int i, k;

	if (c == NULL || c->v == NULL)
		return 0;
	/* Only this thread changes these: nothing to do, no lock taken. */
	if (c->n_gfree == 0 && !c->grace6 && c->n_pend == 0)
		return 0;
	pthread_mutex_lock(&c->lock);
	groups_reclaim(r);
	if (c->grace6 && rte_rcu_qsbr_check(c->v, c->token6, false) == 1) {
		struct rte_lpm6 *old = c->lpm6[c->active6 ^ 1];

		/* No worker reads the old table now: it catches up. */
		for (i = 0; i < c->n_lag; i++) {
			op6_do(old, &c->lag[i]);
			if (c->lag[i].free_group >= 0)
				group_retire(r, (unsigned int)c->lag[i].free_group);
		}
		c->n_lag = 0;
		c->grace6 = false;
		if (c->n_pend > 0)
			lpm6_publish(r);
	}
	k = c->n_gfree + c->n_lag + c->n_pend;
	pthread_mutex_unlock(&c->lock);
	return k;
}

/* Write prefix -> val in the tables (a new value or a replaced one). */
static int
table_set(struct rtr_route *r, const struct rtr_addr *p, uint32_t val, int free_group,
		unsigned int rib, bool *pending)
{
	if (p->family == AF_INET) {
		int rc = lpm4_write(r, p, val, false);

		if (rc < 0)
			return rc;
		if (free_group >= 0)
			group_retire(r, (unsigned int)free_group);
		return 0;
	}
	struct op6 o = {.depth = p->depth, .val = val, .free_group = free_group, .rib = rib};

	memcpy(o.addr, p->v6.s6_addr, 16);
	return lpm6_change(r, &o, pending);
}

static int
route_add(struct rtr_route *r, const struct rtr_addr *p, uint32_t val, unsigned int src, char *err,
		size_t errlen, int line)
{
	struct rtr_route_ctl *c = r->ctl;
	char pfx[64];
	int rc, i = rib_find(c, p);

	if (p->family == AF_INET) {
		rc = rte_lpm_add(r->lpm4, rte_be_to_cpu_32(p->v4.s_addr), p->depth, val);
		r->n_routes4 += i < 0;
	} else {
		rc = rte_lpm6_add(r->lpm6, p->v6.s6_addr, p->depth, val);
		r->n_routes6 += i < 0;
	}
	if (rc >= 0 && i < 0 && rib_insert(c, p, val, src, line) < 0)
		rc = -ENOSPC;
	else if (rc >= 0 && i >= 0)
		c->rib[i].val = val; /* the config repeats a prefix: the last wins */
	if (rc < 0) {
		addr_str(p, pfx, sizeof(pfx));
		snprintf(err, errlen, "route %s (line %d): cannot add to the LPM table: %s", pfx,
				line, strerror(-rc));
		return -1;
	}
	return 0;
}

static struct rtr_route_ctl *
ctl_create(const char *name, int socket, rtr_route_nh_fn nh_fn, void *nh_arg)
{
	struct rtr_route_ctl *c = calloc(1, sizeof(*c));
	struct rte_hash_parameters hp = {
			.entries = RTR_ROUTE_RIB_CAP,
			.key_len = sizeof(struct rib_key),
			.socket_id = socket,
	};
	char hname[RTE_HASH_NAMESIZE];

	if (c == NULL)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(hname, sizeof(hname), "%sr", name);
	hp.name = hname;
	c->socket = socket;
	c->nh_fn = nh_fn;
	c->nh_arg = nh_arg;
	c->rib = calloc(RTR_ROUTE_RIB_CAP, sizeof(*c->rib));
	c->lag = calloc(RTR_ROUTE_OPS_CAP, sizeof(*c->lag));
	c->pend = calloc(RTR_ROUTE_OPS_CAP, sizeof(*c->pend));
	c->rib_hash = rte_hash_create(&hp);
	return c;
}

static void
ctl_free(struct rtr_route_ctl *c)
{
	if (c == NULL)
		return;
	rte_hash_free(c->rib_hash);
	free(c->rib);
	free(c->lag);
	free(c->pend);
	pthread_mutex_destroy(&c->lock);
	free(c);
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
	unsigned int i, j, n_cfg_groups = 0;

	r = calloc(1, sizeof(*r));
	if (r == NULL)
		goto nomem;
	for (i = 0; i < cfg->n_routes; i++)
		n_cfg_groups += cfg->routes[i].is_group;
	if (n_cfg_groups > RTR_MAX_GROUPS) {
		snprintf(err, errlen, "too many uplink groups (%u, at most %u)", n_cfg_groups,
				RTR_MAX_GROUPS);
		goto fail;
	}
	r->groups = calloc(RTR_MAX_GROUPS, sizeof(*r->groups));
	r->ctl = ctl_create(name, socket, nh_fn, nh_arg);
	if (r->groups == NULL || r->ctl == NULL || r->ctl->rib == NULL || r->ctl->lag == NULL ||
			r->ctl->pend == NULL)
		goto nomem;
	if (r->ctl->rib_hash == NULL) {
		snprintf(err, errlen, "cannot create the route list's hash: %s",
				rte_strerror(rte_errno));
		goto fail;
	}
	snprintf(lname, sizeof(lname), "%s4", name);
	r->lpm4 = rte_lpm_create(lname, socket, &c4);
	snprintf(lname, sizeof(lname), "%s6", name);
	r->lpm6 = rte_lpm6_create(lname, socket, &c6);
	r->ctl->lpm6[0] = r->lpm6;
	if (r->lpm4 == NULL || r->lpm6 == NULL) {
		snprintf(err, errlen, "cannot create LPM tables: %s", rte_strerror(rte_errno));
		goto fail;
	}

	for (i = 0; i < cfg->n_routes; i++) {
		const struct rtr_route_cfg *rc = &cfg->routes[i];
		uint32_t val;

		if (rc->is_group) {
			int g = group_alloc(r);
			struct rtr_group *grp = &r->groups[g];
			int irc = rtr_group_init(grp, rc->n_paths);

			grp->prefix = rc->prefix;
			grp->src = RTR_RS_CONFIG;
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
			val = RTR_RT_GROUP | (uint32_t)g;
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
		if (route_add(r, &rc->prefix, val, RTR_RS_CONFIG, err, errlen, rc->line) < 0)
			goto fail;
	}

	/* The switch's own addresses win over any configured prefix. */
	for (i = 0; i < cfg->n_ports; i++) {
		for (j = 0; j < cfg->ports[i].n_addrs; j++) {
			struct rtr_addr host = cfg->ports[i].addrs[j];

			host.depth = host.family == AF_INET ? 32 : 128;
			if (route_add(r, &host, RTR_RT_LOCAL | cfg->ports[i].port, RTR_RS_LOCAL,
					    err, errlen, cfg->ports[i].line) < 0)
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
	if (r->ctl != NULL) {
		rte_lpm6_free(r->ctl->lpm6[0]);
		rte_lpm6_free(r->ctl->lpm6[1]);
	} else {
		rte_lpm6_free(r->lpm6);
	}
	for (unsigned int g = 0; r->groups != NULL && g < RTR_MAX_GROUPS; g++)
		rtr_group_fini(&r->groups[g]);
	free(r->groups);
	ctl_free(r->ctl);
	free(r);
}

int
rtr_route_rcu(struct rtr_route *r, struct rte_rcu_qsbr *v)
{
	struct rte_lpm_rcu_config rc = {.v = v, .mode = RTE_LPM_QSBR_MODE_DQ};
	int ret = rte_lpm_rcu_qsbr_add(r->lpm4, &rc);

	if (ret != 0)
		return -rte_errno;
	r->ctl->v = v;
	return 0;
}

int
rtr_route_runtime(struct rtr_route *r)
{
	int rc;

	pthread_mutex_lock(&r->ctl->lock);
	rc = lpm6_standby(r);
	pthread_mutex_unlock(&r->ctl->lock);
	return rc;
}

void
rtr_route_lock(struct rtr_route *r)
{
	pthread_mutex_lock(&r->ctl->lock);
}

void
rtr_route_unlock(struct rtr_route *r)
{
	pthread_mutex_unlock(&r->ctl->lock);
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
	g->member = all_paths(g);
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

/* The paths of g whose port is up. */
static uint64_t
group_ports_up(const struct rtr_route *r, const struct rtr_group *g)
{
	uint32_t down = r->ctl != NULL ? r->ctl->port_down : 0;
	uint64_t m = 0;

	for (unsigned int p = 0; p < g->n_paths; p++)
		if (!((down >> (g->port[p] % 32)) & 1))
			m |= 1ULL << p;
	return m;
}

unsigned int
rtr_route_port_state(struct rtr_route *r, uint16_t port, bool up)
{
	unsigned int changed = 0;

	pthread_mutex_lock(&r->ctl->lock);
	if (up)
		r->ctl->port_down &= ~(1u << (port % 32));
	else
		r->ctl->port_down |= 1u << (port % 32);
	for (unsigned int g = 0; g < r->n_groups; g++) {
		struct rtr_group *grp = &r->groups[g];

		if (grp->in_use && grp->n_paths > 0)
			changed += rtr_group_set_live(grp, grp->member & group_ports_up(r, grp));
	}
	pthread_mutex_unlock(&r->ctl->lock);
	return changed;
}

static int
refuse(struct rtr_route *r, int rc, char *err, size_t errlen, const struct rtr_addr *p,
		const char *detail)
{
	char pfx[64];

	addr_str(p, pfx, sizeof(pfx));
	snprintf(err, errlen, "route %s: %s", pfx, detail);
	r->ctl->cnt.refused++;
	return rc;
}

/* A new group for prefix over nh[0..n-1] (port[]), every path a member,
 * live as its ports are. Returns its slot or -1 (no slot, no memory). */
static int
group_new(struct rtr_route *r, const struct rtr_addr *p, const uint16_t *nh, const uint16_t *port,
		unsigned int n, unsigned int src)
{
	int g = group_alloc(r);
	struct rtr_group *grp;

	if (g < 0)
		return -1;
	grp = &r->groups[g];
	grp->n_paths = 0;
	if (rtr_group_init(grp, n) < 0) {
		grp->in_use = 0;
		return -1;
	}
	for (unsigned int k = 0; k < n; k++) {
		grp->nh[k] = nh[k];
		grp->port[k] = port[k];
	}
	grp->prefix = *p;
	grp->src = (uint8_t)src;
	addr_str(p, grp->name, sizeof(grp->name));
	rtr_group_set_live(grp, grp->member & group_ports_up(r, grp));
	return g;
}

/*
 * Group g takes next hops nh[0..n-1] in place, if its slots can hold them:
 * a slot whose next hop stays keeps it, one whose next hop left stops being
 * a member (its buckets move as for a down link), a new next hop takes a
 * slot that is no member (its home buckets come to it). Returns false,
 * changing nothing, when there are more new next hops than free slots.
 */
static bool
group_in_place(struct rtr_route *r, struct rtr_group *grp, const uint16_t *nh, const uint16_t *port,
		unsigned int n)
{
	uint64_t member = 0, placed = 0;
	unsigned int need = 0, p, k;

	for (k = 0; k < n; k++) {
		for (p = 0; p < grp->n_paths; p++) {
			if (grp->nh[p] == nh[k] && !((member >> p) & 1)) {
				member |= 1ULL << p;
				placed |= 1ULL << k;
				break;
			}
		}
		need += !((placed >> k) & 1);
	}
	if (need > (unsigned int)(grp->n_paths - __builtin_popcountll(member)))
		return false;
	/* Leavers first: their flows move off before a slot is reused. */
	grp->member = member;
	rtr_group_set_live(grp, member & group_ports_up(r, grp));
	for (k = 0, p = 0; k < n; k++) {
		if ((placed >> k) & 1)
			continue;
		while ((member >> p) & 1)
			p++;
		/* Not live in any mask a reader may hold (it left, or never
		 * was a member), so no reader picks it while it changes. */
		grp->nh[p] = nh[k];
		grp->port[p] = port[k];
		member |= 1ULL << p;
	}
	grp->member = member;
	rtr_group_set_live(grp, member & group_ports_up(r, grp));
	return true;
}

int
rtr_route_set(struct rtr_route *r, const struct rtr_addr *prefix,
		const struct rtr_route_path *paths, unsigned int n, enum rtr_route_src src,
		bool *pending, char *err, size_t errlen)
{
	struct rtr_route_ctl *c = r->ctl;
	uint16_t nh[RTR_MAX_PATHS], port[RTR_MAX_PATHS];
	unsigned int n_nh = 0, k;
	struct rtr_addr p;
	uint32_t val, old = 0;
	int i, rc = 0, g_new = -1, g_old = -1;
	bool in_place = false, existed;
	bool queued = false; /* an IPv6 change waits for a grace period */

	if (pending != NULL)
		*pending = false;
	if (!prefix_norm(prefix, &p)) {
		snprintf(err, errlen, "bad prefix (family %u, length %u)", prefix->family,
				prefix->depth);
		c->cnt.refused++;
		return -EINVAL;
	}
	if ((n == 0 && paths != NULL) || n > RTR_MAX_PATHS)
		return refuse(r, -EINVAL, err, errlen, &p,
				n == 0 ? "no next hop"
				       : "more next hops than a group can hold (64)");
	pthread_mutex_lock(&c->lock);
	i = rib_find(c, &p);
	if (i >= 0 && (c->rib[i].src == RTR_RS_CONFIG || c->rib[i].src == RTR_RS_LOCAL)) {
		rc = refuse(r, -EPERM, err, errlen, &p,
				c->rib[i].src == RTR_RS_CONFIG
						? "the config's route for this prefix wins"
						: "a port's own address");
		goto out;
	}
	for (k = 0; k < n; k++) {
		const struct rtr_route_path *pa = &paths[k];
		int idx;

		if (pa->port >= RTR_MAX_PORTS || (pa->ip.family == 0 && !pa->mac_set)) {
			rc = refuse(r, -EINVAL, err, errlen, &p,
					"a next hop needs a port and an address or a MAC");
			goto out;
		}
		idx = c->nh_fn(c->nh_arg, pa->port, pa->ip.family != 0 ? &pa->ip : NULL,
				pa->mac_set ? pa->mac : NULL);
		if (idx < 0) {
			rc = refuse(r, -EINVAL, err, errlen, &p,
					"next hop unusable (port not routed here, bad "
					"address, or next-hop table full)");
			goto out;
		}
		for (unsigned int j = 0; j < n_nh; j++)
			if (nh[j] == (uint16_t)idx)
				idx = -1; /* listed twice: once is enough */
		if (idx < 0)
			continue;
		nh[n_nh] = (uint16_t)idx;
		port[n_nh++] = pa->port;
	}
	existed = i >= 0;
	if (existed) {
		old = c->rib[i].val;
		if ((old & RTR_RT_KIND_MASK) == RTR_RT_GROUP)
			g_old = (int)(old & RTR_RT_INDEX_MASK);
	}
	if (n == 0) {
		val = RTR_RT_DROP;
	} else if (g_old >= 0 && group_in_place(r, &r->groups[g_old], nh, port, n_nh)) {
		in_place = true;
		val = old;
	} else if (n_nh == 1) {
		val = RTR_RT_NH | nh[0];
	} else {
		g_new = group_new(r, &p, nh, port, n_nh, src);
		if (g_new < 0 && c->n_gfree > 0) {
			/* Slots wait for a worker's quiescence: not refused, later. */
			snprintf(err, errlen,
					"every uplink group is in use or waits for the workers' "
					"quiescence: retry");
			rc = -EAGAIN;
			goto out;
		}
		if (g_new < 0) {
			rc = refuse(r, -ENOSPC, err, errlen, &p,
					"no free uplink group (256 in use)");
			goto out;
		}
		val = RTR_RT_GROUP | (uint32_t)g_new;
	}
	if (i < 0) {
		i = rib_insert(c, &p, val, src, 0);
		if (i < 0) {
			if (g_new >= 0)
				group_release(r, (unsigned int)g_new);
			rc = refuse(r, -ENOSPC, err, errlen, &p, "the route table is full");
			goto out;
		}
		if (p.family == AF_INET6 && c->v != NULL)
			c->rib[i].state = 1;
	}
	if (!in_place && (!existed || val != old || c->rib[i].state == 2)) {
		rc = table_set(r, &p, val, g_old, (unsigned int)i, &queued);
		if (rc < 0) {
			if (g_new >= 0)
				group_release(r, (unsigned int)g_new); /* no table named it */
			if (!existed)
				rib_remove(c, (unsigned int)i);
			rc = refuse(r, rc, err, errlen, &p, "the LPM table refused it (no room)");
			goto out;
		}
	}
	if (!existed) {
		c->cnt.added++;
		if (p.family == AF_INET)
			r->n_routes4++;
		else
			r->n_routes6++;
	} else {
		c->cnt.replaced++;
	}
	if (in_place)
		c->cnt.groups_in_place++;
	else if (g_new >= 0 && g_old >= 0)
		c->cnt.groups_new++;
	c->rib[i].val = val;
	c->rib[i].src = (uint8_t)src;
	c->rib[i].stale = 0;
	if (queued)
		c->rib[i].state = 1;
	if (pending != NULL)
		*pending = queued;
out:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int
rtr_route_del(struct rtr_route *r, const struct rtr_addr *prefix, char *err, size_t errlen)
{
	struct rtr_route_ctl *c = r->ctl;
	struct rtr_addr p;
	uint32_t val;
	int i, rc = 0, g = -1;

	if (!prefix_norm(prefix, &p)) {
		snprintf(err, errlen, "bad prefix (family %u, length %u)", prefix->family,
				prefix->depth);
		c->cnt.refused++;
		return -EINVAL;
	}
	pthread_mutex_lock(&c->lock);
	i = rib_find(c, &p);
	if (i < 0) {
		rc = refuse(r, -ENOENT, err, errlen, &p, "no such route");
		goto out;
	}
	if (c->rib[i].src == RTR_RS_CONFIG || c->rib[i].src == RTR_RS_LOCAL) {
		rc = refuse(r, -EPERM, err, errlen, &p,
				c->rib[i].src == RTR_RS_CONFIG ? "a route of the config"
							       : "a port's own address");
		goto out;
	}
	val = c->rib[i].val;
	if ((val & RTR_RT_KIND_MASK) == RTR_RT_GROUP)
		g = (int)(val & RTR_RT_INDEX_MASK);
	if (p.family == AF_INET) {
		lpm4_write(r, &p, 0, true);
		if (g >= 0)
			group_retire(r, (unsigned int)g);
		r->n_routes4--;
	} else {
		struct op6 o = {.depth = p.depth, .del = 1, .free_group = g, .rib = UINT32_MAX};

		memcpy(o.addr, p.v6.s6_addr, 16);
		rc = lpm6_change(r, &o, NULL);
		if (rc < 0) {
			rc = refuse(r, rc, err, errlen, &p,
					"too many IPv6 changes waiting for the workers");
			goto out;
		}
		r->n_routes6--;
	}
	rib_remove(c, (unsigned int)i);
	c->cnt.removed++;
out:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

unsigned int
rtr_route_slots(const struct rtr_route *r)
{
	return r->ctl->rib_bound;
}

unsigned int
rtr_route_count(const struct rtr_route *r)
{
	return r->ctl->n_rib;
}

static void
info_of(const struct rib_entry *e, struct rtr_route_info *out)
{
	*out = (struct rtr_route_info){
			.prefix = e->prefix,
			.val = e->val,
			.src = e->src,
			.state = e->state,
			.stale = e->stale,
			.line = e->line,
	};
}

bool
rtr_route_get(const struct rtr_route *r, unsigned int slot, struct rtr_route_info *out)
{
	if (slot >= r->ctl->rib_bound || !r->ctl->rib[slot].used)
		return false;
	info_of(&r->ctl->rib[slot], out);
	return true;
}

bool
rtr_route_find(const struct rtr_route *r, const struct rtr_addr *prefix, struct rtr_route_info *out)
{
	struct rtr_addr p;
	int i;

	if (!prefix_norm(prefix, &p) || (i = rib_find(r->ctl, &p)) < 0)
		return false;
	info_of(&r->ctl->rib[i], out);
	return true;
}

const struct rtr_route_counters *
rtr_route_counters(const struct rtr_route *r)
{
	return &r->ctl->cnt;
}

unsigned int
rtr_route_mark_stale(struct rtr_route *r, enum rtr_route_src src)
{
	struct rtr_route_ctl *c = r->ctl;
	unsigned int n = 0;

	pthread_mutex_lock(&c->lock);
	for (unsigned int i = 0; i < c->rib_bound; i++) {
		if (c->rib[i].used && c->rib[i].src == src) {
			c->rib[i].stale = 1;
			n++;
		}
	}
	pthread_mutex_unlock(&c->lock);
	return n;
}

unsigned int
rtr_route_sweep_stale(struct rtr_route *r, enum rtr_route_src src)
{
	struct rtr_route_ctl *c = r->ctl;
	unsigned int n = 0;
	char err[128];

	for (unsigned int i = 0; i < c->rib_bound; i++) {
		struct rtr_addr p;

		pthread_mutex_lock(&c->lock);
		if (!c->rib[i].used || c->rib[i].src != src || !c->rib[i].stale) {
			pthread_mutex_unlock(&c->lock);
			continue;
		}
		p = c->rib[i].prefix;
		pthread_mutex_unlock(&c->lock);
		n += rtr_route_del(r, &p, err, sizeof(err)) == 0;
	}
	return n;
}

void
rtr_route_mbox_init(struct rtr_route_mbox *mb)
{
	pthread_condattr_t ca;

	memset(mb, 0, sizeof(*mb));
	pthread_mutex_init(&mb->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&mb->cv, &ca);
	pthread_condattr_destroy(&ca);
}

int
rtr_route_mbox_call(struct rtr_route_mbox *mb, struct rtr_route_req *req, unsigned int timeout_ms)
{
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&mb->mu);
	while (mb->state != 0 && rc == 0) /* another caller's */
		rc = pthread_cond_timedwait(&mb->cv, &mb->mu, &until);
	if (rc == 0) {
		mb->req = req;
		mb->state = 1;
		atomic_store(&mb->posted, 1);
		while (mb->state == 1 && rc == 0)
			rc = pthread_cond_timedwait(&mb->cv, &mb->mu, &until);
		if (mb->state == 2)
			rc = 0;
		mb->state = 0; /* answered, or withdrawn unseen */
		mb->req = NULL;
		atomic_store(&mb->posted, 0);
		pthread_cond_broadcast(&mb->cv);
	}
	pthread_mutex_unlock(&mb->mu);
	return rc == 0 ? 0 : -ETIMEDOUT;
}

bool
rtr_route_mbox_serve(struct rtr_route_mbox *mb, struct rtr_route *r)
{
	struct rtr_route_req *q;

	if (!atomic_load_explicit(&mb->posted, memory_order_acquire))
		return false;
	pthread_mutex_lock(&mb->mu);
	if (mb->state != 1) {
		pthread_mutex_unlock(&mb->mu);
		return false;
	}
	q = mb->req;
	q->err[0] = '\0';
	if (q->del)
		q->rc = rtr_route_del(r, &q->prefix, q->err, sizeof(q->err));
	else
		q->rc = rtr_route_set(r, &q->prefix, q->paths, q->n_paths, q->src, &q->pending,
				q->err, sizeof(q->err));
	mb->state = 2;
	atomic_store(&mb->posted, 0);
	pthread_cond_broadcast(&mb->cv);
	pthread_mutex_unlock(&mb->mu);
	return true;
}

int
rtr_route_parse_prefix(const char *s, struct rtr_addr *prefix)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long len;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash++ = '\0';
	memset(prefix, 0, sizeof(*prefix));
	if (inet_pton(AF_INET, buf, &prefix->v4) == 1)
		prefix->family = AF_INET;
	else if (inet_pton(AF_INET6, buf, &prefix->v6) == 1)
		prefix->family = AF_INET6;
	else
		return -1;
	len = prefix->family == AF_INET ? 32 : 128;
	if (slash != NULL) {
		unsigned long max = len;

		if (!isdigit((unsigned char)*slash))
			return -1;
		len = strtoul(slash, &end, 10);
		if (*end != '\0' || len > max)
			return -1;
	}
	prefix->depth = (uint8_t)len;
	return 0;
}

static int
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
			    &tail) != 6)
		return -1;
	for (unsigned int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

int
rtr_route_parse_spec(const char *s, struct rtr_addr *prefix, struct rtr_route_path *paths,
		unsigned int *n, char *err, size_t errlen)
{
	char buf[1024], *save = NULL, *w;
	struct rtr_route_path *cur = NULL;
	bool want_port = false;

	*n = 0;
	if (strlen(s) >= sizeof(buf)) {
		snprintf(err, errlen, "too long");
		return -1;
	}
	strcpy(buf, s);
	w = strtok_r(buf, " \t", &save);
	if (w == NULL || rtr_route_parse_prefix(w, prefix) < 0) {
		snprintf(err, errlen, "bad prefix '%s' (a.b.c.d/len or x::/len)", w ? w : "");
		return -1;
	}
	while ((w = strtok_r(NULL, " \t", &save)) != NULL) {
		char *v = strtok_r(NULL, " \t", &save), *end;

		if (v == NULL) {
			snprintf(err, errlen, "'%s' needs a value", w);
			return -1;
		}
		if (strcmp(w, "via") == 0 || strcmp(w, "mac") == 0) {
			struct rtr_addr a;

			if (want_port) {
				snprintf(err, errlen, "next hop %u has no port", *n);
				return -1;
			}
			if (*n == RTR_MAX_PATHS) {
				snprintf(err, errlen, "more than %u next hops", RTR_MAX_PATHS);
				return -1;
			}
			cur = &paths[(*n)++];
			memset(cur, 0, sizeof(*cur));
			if (w[0] == 'm') {
				if (parse_mac(v, cur->mac) < 0) {
					snprintf(err, errlen, "bad MAC '%s'", v);
					return -1;
				}
				cur->mac_set = 1;
			} else {
				if (rtr_route_parse_prefix(v, &a) < 0 || strchr(v, '/') != NULL) {
					snprintf(err, errlen, "bad next-hop address '%s'", v);
					return -1;
				}
				cur->ip = a;
			}
			want_port = true;
		} else if (strcmp(w, "port") == 0 && want_port) {
			unsigned long p = strtoul(v, &end, 10);

			if (*end != '\0' || !isdigit((unsigned char)*v) || p >= RTR_MAX_PORTS) {
				snprintf(err, errlen, "bad port '%s' (0..%u)", v,
						RTR_MAX_PORTS - 1);
				return -1;
			}
			cur->port = (uint16_t)p;
			want_port = false;
		} else {
			snprintf(err, errlen, "unexpected '%s' (via ADDR port N, mac MAC port N)",
					w);
			return -1;
		}
	}
	if (want_port) {
		snprintf(err, errlen, "next hop %u has no port", *n);
		return -1;
	}
	if (*n == 0) {
		snprintf(err, errlen, "no next hop (via ADDR port N)");
		return -1;
	}
	return 0;
}
