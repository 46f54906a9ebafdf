/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Path marks per destination ToR (rtr_pathmark.h).
 */

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_common.h>

#include "rtr_common.h"
#include "rtr_lb_mem.h"
#include "rtr_pathmark.h"

/* Tag values: a destination's tag is odd (PM_GROUP for a group that is its
 * own only destination), so neither of these is one. */
#define PM_EMPTY  0ULL /* never marked */
#define PM_MOVING 2ULL /* being taken over by another destination */
#define PM_GROUP  1ULL

struct pm_group {
	uint32_t base;    /* word of slot 0's tag */
	uint16_t n_slots; /* a power of two */
	uint8_t n_paths;
	uint8_t stride; /* words per slot: 1 + n_paths */
	uint8_t v6;     /* the destinations' family */
	uint8_t len;    /* masked destination length (>= the group's prefix) */
	uint8_t kbits;  /* len - the group's prefix length: 0 = one destination */
	uint8_t hashed; /* more destinations than slots: slot = hash */
};

/* What the gauge reads (bits only set): the slots and paths ever marked. */
struct pm_seen {
	_Atomic uint64_t slots[RTR_PM_SLOTS / 64];
	_Atomic uint64_t paths;
};

struct rtr_pm {
	unsigned int n_groups;
	bool rte;
	/* One past the highest group ever marked: the gauge goes no further. */
	_Atomic uint32_t groups_marked;
	struct pm_group *grp;
	struct pm_seen *seen;
	_Atomic uint64_t *w;
};

/* splitmix64's finaliser */
static inline uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t
mask64(unsigned int bits)
{
	return bits == 0 ? 0 : ~0ULL << (64 - bits);
}

unsigned int
rtr_pm_groups_of(const struct rtr_config *cfg, struct rtr_pm_group *g, unsigned int max)
{
	unsigned int n = 0;

	memset(g, 0, max * sizeof(*g));
	for (unsigned int i = 0; cfg != NULL && i < cfg->n_routes; i++) {
		const struct rtr_route_cfg *rc = &cfg->routes[i];

		if (!rc->is_group)
			continue;
		if (n < max)
			g[n] = (struct rtr_pm_group){
					.family = rc->prefix.family,
					.depth = rc->prefix.depth,
					.n_paths = (uint8_t)RTE_MIN(
							rc->n_paths, (unsigned int)RTR_MAX_PATHS),
			};
		n++;
	}
	return n;
}

/* Lay group i out from its spec; returns its words. */
static size_t
group_init(struct pm_group *pg, const struct rtr_pm_group *spec, const struct rtr_pm_params *p)
{
	unsigned int width, want, len = 0, kbits = 0;

	memset(pg, 0, sizeof(*pg));
	pg->n_paths = spec != NULL && spec->n_paths > 0
				      ? (uint8_t)RTE_MIN(spec->n_paths, RTR_MAX_PATHS)
				      : RTR_MAX_PATHS;
	pg->stride = (uint8_t)(1 + pg->n_paths);
	if (spec != NULL && (spec->family == AF_INET || spec->family == AF_INET6)) {
		width = spec->family == AF_INET ? 32 : 128;
		want = spec->family == AF_INET ? p->dst_prefix_len : p->dst_prefix_len6;
		/* Shorter than the group's own prefix: the group prefix, i.e.
		 * one destination (the behaviour of a per-group table). */
		len = want > spec->depth ? want : spec->depth;
		if (len > width)
			len = width;
		kbits = spec->depth < len ? len - spec->depth : 0;
		pg->v6 = spec->family == AF_INET6;
	}
	pg->len = (uint8_t)len;
	pg->kbits = (uint8_t)kbits;
	if (kbits == 0)
		pg->n_slots = 1;
	else if (kbits <= 8)
		pg->n_slots = (uint16_t)(1u << kbits);
	else
		pg->n_slots = RTR_PM_SLOTS;
	pg->hashed = kbits > 8;
	return (size_t)pg->n_slots * pg->stride;
}

/* Offset of the mark words in the block of a table of ng groups. */
static size_t
pm_words_off(size_t ng)
{
	size_t off_grp = RTE_ALIGN_CEIL(sizeof(struct rtr_pm), 64);
	size_t off_seen = RTE_ALIGN_CEIL(off_grp + ng * sizeof(struct pm_group), 64);

	return RTE_ALIGN_CEIL(off_seen + ng * sizeof(struct pm_seen), 64);
}

size_t
rtr_pm_memsize(const struct rtr_pm_params *p)
{
	size_t ng = p->n_groups ? p->n_groups : 1, words = 0;
	struct pm_group g;

	for (unsigned int i = 0; i < p->n_groups; i++)
		words += group_init(&g, p->groups != NULL ? &p->groups[i] : NULL, p);
	return pm_words_off(ng) + (words ? words : 1) * sizeof(uint64_t);
}

size_t
rtr_pm_memsize_cfg(const struct rtr_config *cfg, unsigned int dst_prefix_len,
		unsigned int dst_prefix_len6)
{
	struct rtr_pm_group groups[RTR_MAX_GROUPS];
	struct rtr_pm_params pm = {
			.groups = groups,
			.dst_prefix_len = dst_prefix_len,
			.dst_prefix_len6 = dst_prefix_len6,
	};

	pm.n_groups = RTE_MIN(rtr_pm_groups_of(cfg, groups, RTR_MAX_GROUPS),
			(unsigned int)RTR_MAX_GROUPS);
	return rtr_pm_memsize(&pm);
}

struct rtr_pm *
rtr_pm_create(const struct rtr_pm_params *p)
{
	size_t ng = p->n_groups ? p->n_groups : 1, words = 0, off_grp, off_seen, off_w, sz;
	struct pm_group *grp;
	struct rtr_pm *t;

	off_grp = RTE_ALIGN_CEIL(sizeof(struct rtr_pm), 64);
	off_seen = RTE_ALIGN_CEIL(off_grp + ng * sizeof(struct pm_group), 64);
	off_w = pm_words_off(ng);
	grp = calloc(ng, sizeof(*grp));
	if (grp == NULL)
		return NULL;
	for (unsigned int g = 0; g < p->n_groups; g++) {
		size_t n = group_init(&grp[g], p->groups != NULL ? &p->groups[g] : NULL, p);

		grp[g].base = (uint32_t)words;
		words += n;
	}
	sz = off_w + (words ? words : 1) * sizeof(uint64_t);
	t = rtr_lb_zalloc(p->name != NULL ? p->name : "lb_pathmark", sz, p->use_rte_malloc,
			p->socket);
	if (t == NULL) {
		free(grp);
		return NULL;
	}
	t->n_groups = p->n_groups;
	t->rte = p->use_rte_malloc;
	t->grp = (struct pm_group *)((uint8_t *)t + off_grp);
	t->seen = (struct pm_seen *)((uint8_t *)t + off_seen);
	t->w = (_Atomic uint64_t *)((uint8_t *)t + off_w);
	memcpy(t->grp, grp, p->n_groups * sizeof(*grp));
	free(grp);
	/* A group that is its only destination owns its one slot from the
	 * start: marking it is a single store, as in a per-group table. */
	for (unsigned int g = 0; g < t->n_groups; g++)
		if (t->grp[g].kbits == 0)
			atomic_store_explicit(
					&t->w[t->grp[g].base], PM_GROUP, memory_order_relaxed);
	return t;
}

void
rtr_pm_free(struct rtr_pm *t)
{
	if (t != NULL)
		rtr_lb_zfree(t, t->rte);
}

unsigned int
rtr_pm_slots(const struct rtr_pm *t, unsigned int g)
{
	return t != NULL && g < t->n_groups ? t->grp[g].n_slots : 0;
}

bool
rtr_pm_ref(const struct rtr_pm *t, unsigned int g, const uint8_t *dst, bool v6,
		struct rtr_pm_ref *r)
{
	const struct pm_group *pg;
	unsigned int slot;
	uint64_t tag;

	if (t == NULL || g >= t->n_groups) {
		memset(r, 0, sizeof(*r));
		return false;
	}
	pg = &t->grp[g];
	r->group = (uint16_t)g;
	r->n_paths = pg->n_paths;
	if (pg->kbits == 0) {
		/* The group is its only destination. */
		r->word = pg->base;
		r->tag = PM_GROUP;
		return true;
	}
	if (v6 != (bool)pg->v6) {
		/* Not reached through the LPM: no slot. */
		memset(r, 0, sizeof(*r));
		return false;
	}
	if (!v6) {
		uint32_t a = (uint32_t)dst[0] << 24 | (uint32_t)dst[1] << 16 |
			     (uint32_t)dst[2] << 8 | dst[3];
		uint32_t m = a & (uint32_t)(~0ULL << (32 - pg->len));

		/* Exact: bit 40 keeps it clear of PM_GROUP. */
		tag = 1ULL << 40 | (uint64_t)m << 1 | 1;
		slot = pg->hashed ? (unsigned int)(mix64(m) >> 56)
				  : (unsigned int)(m >> (32 - pg->len));
	} else {
		uint64_t hi = 0, lo = 0;

		for (unsigned int i = 0; i < 8; i++) {
			hi = hi << 8 | dst[i];
			lo = lo << 8 | dst[8 + i];
		}
		if (pg->len <= 64) {
			hi &= mask64(pg->len);
			lo = 0;
		} else {
			lo &= mask64(pg->len - 64u);
		}
		/* 64 bits of a hash: two destinations of one group share a
		 * tag with odds of 2^-63. */
		tag = mix64(hi ^ mix64(lo ^ 0x9e3779b97f4a7c15ULL)) | 1;
		if (tag == PM_GROUP)
			tag = 3;
		if (pg->hashed) {
			slot = (unsigned int)(tag >> 56);
		} else if (pg->len <= 64) {
			slot = (unsigned int)(hi >> (64 - pg->len));
		} else {
			uint64_t v = lo >> (128 - pg->len);

			if (pg->len < 128)
				v |= hi << (pg->len - 64);
			slot = (unsigned int)v;
		}
	}
	slot &= pg->n_slots - 1u;
	r->word = pg->base + slot * pg->stride;
	r->tag = tag;
	return true;
}

bool
rtr_pm_marked(const struct rtr_pm *t, const struct rtr_pm_ref *r, unsigned int path, uint64_t now)
{
	uint64_t until;

	if (path >= r->n_paths)
		return false;
	if (atomic_load_explicit(&t->w[r->word], memory_order_acquire) != r->tag)
		return false;
	until = atomic_load_explicit(&t->w[r->word + 1 + path], memory_order_relaxed);
	if (until <= now)
		return false;
	/* Still ours? A take-over may have begun after the first look (its
	 * release fence pairs with this one: seeing its expiry means seeing
	 * its tag too). */
	atomic_thread_fence(memory_order_acquire);
	return atomic_load_explicit(&t->w[r->word], memory_order_relaxed) == r->tag;
}

/* Record for the gauge that (slot, path) of group g was marked. */
static void
seen(struct rtr_pm *t, const struct rtr_pm_ref *r, unsigned int path)
{
	const struct pm_group *pg = &t->grp[r->group];
	struct pm_seen *s = &t->seen[r->group];
	unsigned int slot = (r->word - pg->base) / pg->stride;
	uint64_t bit = 1ULL << (slot & 63);
	uint32_t hi;

	if (!(atomic_load_explicit(&s->slots[slot >> 6], memory_order_relaxed) & bit))
		atomic_fetch_or_explicit(&s->slots[slot >> 6], bit, memory_order_relaxed);
	if (!(atomic_load_explicit(&s->paths, memory_order_relaxed) & (1ULL << path)))
		atomic_fetch_or_explicit(&s->paths, 1ULL << path, memory_order_relaxed);
	hi = atomic_load_explicit(&t->groups_marked, memory_order_relaxed);
	while (hi < (uint32_t)r->group + 1 &&
			!atomic_compare_exchange_weak_explicit(&t->groups_marked, &hi,
					(uint32_t)r->group + 1, memory_order_relaxed,
					memory_order_relaxed))
		;
}

int
rtr_pm_mark(struct rtr_pm *t, const struct rtr_pm_ref *r, unsigned int path, uint64_t until,
		uint64_t now)
{
	_Atomic uint64_t *w;
	uint64_t tag;
	bool live = false;

	if (t == NULL || path >= r->n_paths)
		return RTR_PM_LOST;
	w = &t->w[r->word];
	tag = atomic_load_explicit(w, memory_order_acquire);
	if (tag != r->tag) {
		/* Another destination's slot (or an empty one): take it. */
		if (tag == PM_MOVING)
			return RTR_PM_LOST;
		for (unsigned int i = 0; tag != PM_EMPTY && i < r->n_paths && !live; i++)
			live = atomic_load_explicit(&w[1 + i], memory_order_relaxed) > now;
		if (!atomic_compare_exchange_strong_explicit(w, &tag, PM_MOVING,
				    memory_order_acquire, memory_order_relaxed)) {
			if (tag != r->tag)
				return RTR_PM_LOST;
			goto store; /* another worker took it for this destination */
		}
		/* Readers that see any of the stores below see PM_MOVING. */
		atomic_thread_fence(memory_order_release);
		for (unsigned int i = 0; i < r->n_paths; i++)
			atomic_store_explicit(&w[1 + i], 0, memory_order_relaxed);
		atomic_store_explicit(&w[1 + path], until, memory_order_relaxed);
		atomic_store_explicit(w, r->tag, memory_order_release);
		seen(t, r, path);
		return live ? RTR_PM_EVICTED : RTR_PM_MARKED;
	}
store:
	/* Workers store, never add: a relaxed single-word store (DESIGN.md A). */
	atomic_store_explicit(&w[1 + path], until, memory_order_relaxed);
	seen(t, r, path);
	return RTR_PM_MARKED;
}

bool
rtr_pm_marked_any(const struct rtr_pm *t, unsigned int g, unsigned int path, uint64_t now)
{
	const struct pm_group *pg;

	if (t == NULL || g >= t->n_groups || path >= t->grp[g].n_paths)
		return false;
	pg = &t->grp[g];
	for (unsigned int s = 0; s < pg->n_slots; s++) {
		const _Atomic uint64_t *w = &t->w[pg->base + s * pg->stride];
		uint64_t tag = atomic_load_explicit(w, memory_order_acquire);

		if ((tag & 1) && atomic_load_explicit(&w[1 + path], memory_order_relaxed) > now)
			return true;
	}
	return false;
}

uint64_t
rtr_pm_count(const struct rtr_pm *t, uint64_t now)
{
	uint32_t ng = atomic_load_explicit(&t->groups_marked, memory_order_relaxed);
	uint64_t n = 0;

	if (ng > t->n_groups)
		ng = t->n_groups;
	for (uint32_t g = 0; g < ng; g++) {
		const struct pm_group *pg = &t->grp[g];
		const struct pm_seen *s = &t->seen[g];
		uint64_t paths = atomic_load_explicit(&s->paths, memory_order_relaxed);

		for (unsigned int k = 0; k < RTR_PM_SLOTS / 64 && paths != 0; k++) {
			uint64_t slots = atomic_load_explicit(&s->slots[k], memory_order_relaxed);

			while (slots != 0) {
				unsigned int slot = k * 64 + (unsigned int)__builtin_ctzll(slots);
				const _Atomic uint64_t *w = &t->w[pg->base + slot * pg->stride];
				uint64_t pm = paths;

				slots &= slots - 1;
				if (!(atomic_load_explicit(w, memory_order_relaxed) & 1))
					continue;
				while (pm != 0) {
					unsigned int p = (unsigned int)__builtin_ctzll(pm);

					pm &= pm - 1;
					n += atomic_load_explicit(&w[1 + p], memory_order_relaxed) >
					     now;
				}
			}
		}
	}
	return n;
}
