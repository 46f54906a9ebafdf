/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "rtr_flowtab.h"
#include "rtr_lb_mem.h"

static size_t
ft_stride(uint32_t value_size)
{
	return RTE_ALIGN_CEIL(sizeof(struct rtr_ft_entry) + value_size, 64);
}

static uint32_t
ft_buckets(uint32_t entries)
{
	uint32_t n = entries < RTR_FT_WAYS ? RTR_FT_WAYS : entries;

	return rte_align32pow2(n) / RTR_FT_WAYS;
}

size_t
rtr_ft_memsize(const struct rtr_ft_params *p)
{
	size_t nb = ft_buckets(p->entries);

	return nb * sizeof(struct rtr_ft_bucket) + 64 + nb * RTR_FT_WAYS * ft_stride(p->value_size);
}

struct rtr_ft *
rtr_ft_create(const struct rtr_ft_params *p)
{
	struct rtr_ft *t;
	size_t sz, bsz;

	if (p == NULL || p->entries == 0 || p->entries > (1u << 28) || p->value_size > 4096) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	t->n_buckets = ft_buckets(p->entries);
	t->mask = t->n_buckets - 1;
	t->shift = 32 - (uint32_t)__builtin_popcount(t->mask); /* n_buckets is 2^k */
	t->stride = (uint32_t)ft_stride(p->value_size);
	t->value_size = p->value_size;
	t->aging_ns = p->aging_ns;
	t->pinned = p->pinned;
	t->rte = p->use_rte_malloc;
	for (unsigned int o = 0; p->limits != NULL && o < RTR_FT_ORIGINS; o++) {
		const struct rtr_ft_limit *l = &p->limits[o];
		struct rtr_ft_origin *og = &t->origin[o];

		og->max_entries = l->max_entries;
		if (l->rate != 0) {
			og->interval_ns = RTE_MAX(UINT64_C(1000000000) / l->rate, UINT64_C(1));
			og->tolerance_ns = og->interval_ns * (RTE_MAX(l->burst, 1u) - 1);
		}
		if (og->max_entries != 0 || og->interval_ns != 0)
			t->limited = true;
	}
	sz = rtr_ft_memsize(p);
	t->block = rtr_lb_zalloc(p->name ? p->name : "flowtab", sz, t->rte, p->socket_id);
	if (t->block == NULL) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	bsz = RTE_ALIGN_CEIL((size_t)t->n_buckets * sizeof(struct rtr_ft_bucket), 64);
	t->buckets = t->block;
	t->entries = (uint8_t *)t->block + bsz;
	return t;
}

void
rtr_ft_free(struct rtr_ft *t)
{
	if (t == NULL)
		return;
	rtr_lb_zfree(t->block, t->rte);
	free(t);
}

static inline uint32_t
ft_sig(uint32_t hash)
{
	return hash != 0 ? hash : 1;
}

/* An entry leaves: its origin holds one less. */
static inline void
ft_release(struct rtr_ft *t, const struct rtr_ft_entry *e)
{
	t->st.in_use--;
	if (e->origin != 0)
		t->origin[e->origin - 1].in_use--;
}

/* Whether origin o may insert now; counts a refusal. GCRA: the insert
 * conforms while its theoretical arrival time is at most tolerance ahead. */
static inline enum rtr_ft_status
ft_admit(struct rtr_ft *t, unsigned int o, uint64_t now_ns)
{
	struct rtr_ft_origin *og = &t->origin[o];

	if (og->max_entries != 0 && og->in_use >= og->max_entries) {
		t->st.limit_share++;
		og->limit_share++;
		return RTR_FT_LIMIT_SHARE;
	}
	if (og->interval_ns != 0) {
		uint64_t tat = RTE_MAX(og->tat, now_ns);

		if (tat - now_ns > og->tolerance_ns) {
			t->st.limit_rate++;
			og->limit_rate++;
			return RTR_FT_LIMIT_RATE;
		}
		og->tat = tat + og->interval_ns;
	}
	return RTR_FT_NEW;
}

uint32_t
rtr_ft_origin_in_use(const struct rtr_ft *t, unsigned int origin)
{
	return origin < RTR_FT_ORIGINS ? t->origin[origin].in_use : 0;
}

void
rtr_ft_origin_stats(const struct rtr_ft *t, unsigned int origin, uint64_t *in_use,
		uint64_t *limit_share, uint64_t *limit_rate)
{
	const volatile struct rtr_ft_origin *og;

	if (origin >= RTR_FT_ORIGINS)
		return;
	og = &t->origin[origin];
	*in_use += og->in_use;
	*limit_share += og->limit_share;
	*limit_rate += og->limit_rate;
}

static inline bool
ft_aged(const struct rtr_ft *t, const struct rtr_ft_entry *e, uint64_t now_ns)
{
	/* Idle by the horizon, never by the wall clock: an entry whose next
	 * packet waits in an RX queue is not idle. last_ns may be later than
	 * the horizon (rtr_lb_since). */
	return rtr_lb_since(rtr_lb_seen(t->clock, now_ns), e->last_ns) > t->aging_ns &&
	       (t->pinned == NULL || !t->pinned(e));
}

struct rtr_ft_entry *
rtr_ft_lookup(struct rtr_ft *t, const struct rtr_ft_key *k, uint32_t hash, uint64_t now_ns,
		bool insert, unsigned int origin, enum rtr_ft_status *status)
{
	uint32_t b = rtr_ft_bucket(t, hash), sig = ft_sig(hash);
	struct rtr_ft_bucket *bk = &t->buckets[b];
	struct rtr_ft_entry *e, *victim = NULL;
	int empty = -1, vway = -1;
	unsigned int w;

	for (uint32_t mask = rtr_ft_sig_match(bk, sig); mask != 0; mask &= mask - 1) {
		e = rtr_ft_entry_at(t, b, (unsigned int)__builtin_ctz(mask));
		if (memcmp(&e->key, k, sizeof(*k)) == 0) {
			*status = RTR_FT_FOUND;
			return e;
		}
	}
	{
		uint32_t free_ways = rtr_ft_sig_match(bk, 0);

		if (free_ways != 0)
			empty = __builtin_ctz(free_ways);
	}
	if (!insert) {
		*status = RTR_FT_ABSENT;
		return NULL;
	}
	if (origin >= RTR_FT_ORIGINS)
		origin = RTR_FT_ORIGIN_NONE;
	else if (t->limited && (*status = ft_admit(t, origin, now_ns)) != RTR_FT_NEW)
		return NULL;
	if (empty < 0) {
		/* Reuse the longest idle way that has aged. */
		for (w = 0; w < RTR_FT_WAYS; w++) {
			e = rtr_ft_entry_at(t, b, w);
			if (ft_aged(t, e, now_ns) &&
					(victim == NULL || e->last_ns < victim->last_ns)) {
				victim = e;
				vway = (int)w;
			}
		}
		if (victim == NULL) {
			t->st.full++;
			*status = RTR_FT_FULL;
			return NULL;
		}
		t->st.evicted++;
		ft_release(t, victim);
		empty = vway;
	}
	e = rtr_ft_entry_at(t, b, (unsigned int)empty);
	memset(e, 0, t->stride);
	e->key = *k;
	e->hash = hash;
	e->last_ns = now_ns;
	if (origin != RTR_FT_ORIGIN_NONE) {
		e->origin = origin + 1;
		t->origin[origin].in_use++;
	}
	bk->sig[empty] = sig;
	t->st.inserted++;
	t->st.in_use++;
	*status = RTR_FT_NEW;
	return e;
}

void
rtr_ft_remove(struct rtr_ft *t, struct rtr_ft_entry *e)
{
	size_t idx = (size_t)((uint8_t *)e - t->entries) / t->stride;
	uint32_t b = (uint32_t)(idx / RTR_FT_WAYS);
	unsigned int w = (unsigned int)(idx % RTR_FT_WAYS);

	if (t->buckets[b].sig[w] != 0) {
		t->buckets[b].sig[w] = 0;
		ft_release(t, e);
	}
}

unsigned int
rtr_ft_sweep(struct rtr_ft *t, uint64_t now_ns, unsigned int n)
{
	unsigned int freed = 0;

	while (n-- > 0) {
		uint32_t b = t->sweep_cursor;
		struct rtr_ft_bucket *bk = &t->buckets[b];

		t->sweep_cursor = (b + 1) & t->mask;
		for (unsigned int w = 0; w < RTR_FT_WAYS; w++) {
			struct rtr_ft_entry *e = rtr_ft_entry_at(t, b, w);

			if (bk->sig[w] != 0 && ft_aged(t, e, now_ns)) {
				bk->sig[w] = 0;
				ft_release(t, e);
				t->st.aged++;
				freed++;
			}
		}
	}
	return freed;
}

struct rtr_ft_entry *
rtr_ft_next(struct rtr_ft *t, uint32_t *cursor)
{
	uint32_t total = t->n_buckets * RTR_FT_WAYS;

	while (*cursor < total) {
		uint32_t i = (*cursor)++;

		if (t->buckets[i / RTR_FT_WAYS].sig[i % RTR_FT_WAYS] != 0)
			return rtr_ft_entry_at(t, i / RTR_FT_WAYS, i % RTR_FT_WAYS);
	}
	return NULL;
}

uint32_t
rtr_ft_capacity(const struct rtr_ft *t)
{
	return t->n_buckets * RTR_FT_WAYS;
}

void
rtr_ft_get_stats(const struct rtr_ft *t, struct rtr_ft_stats *s)
{
	*s = t->st;
}
