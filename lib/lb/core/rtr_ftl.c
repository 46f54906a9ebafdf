/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "rtr_ftl.h"
#include "rtr_lb_mem.h"

#define ADDR6_BYTES 32 /* an IPv6 slot's source and destination */

static uint32_t
ftl_stride(uint32_t value_size)
{
	return RTE_ALIGN_CEIL((uint32_t)sizeof(struct rtr_ftl_slot) + value_size, 64);
}

static uint32_t
ftl_homes(uint32_t entries)
{
	return rte_align32pow2(entries < RTR_FTL_WINDOW ? RTR_FTL_WINDOW : entries);
}

size_t
rtr_ftl_memsize(const struct rtr_ftl_params *p)
{
	size_t total = (size_t)ftl_homes(p->entries) + RTR_FTL_WINDOW - 1;

	return total * ftl_stride(p->value_size) + total * ADDR6_BYTES + 64;
}

struct rtr_ftl *
rtr_ftl_create(const struct rtr_ftl_params *p)
{
	struct rtr_ftl *t;

	if (p == NULL || p->entries == 0 || p->entries > (1u << 28) || p->value_size > 4064) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	t->n_home = ftl_homes(p->entries);
	t->total = t->n_home + RTR_FTL_WINDOW - 1;
	t->shift = 32 - (uint32_t)__builtin_ctz(t->n_home);
	t->stride = ftl_stride(p->value_size);
	t->value_size = p->value_size;
	t->aging_ns = p->aging_ns;
	t->pinned = p->pinned;
	t->rte = p->use_rte_malloc;
	t->block = rtr_lb_zalloc(
			p->name ? p->name : "flowtab", rtr_ftl_memsize(p), t->rte, p->socket_id);
	if (t->block == NULL) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->slots = t->block;
	t->addr6 = t->slots + (size_t)t->total * t->stride;
	return t;
}

void
rtr_ftl_free(struct rtr_ftl *t)
{
	if (t == NULL)
		return;
	rtr_lb_zfree(t->block, t->rte);
	free(t);
}

/* A 64-bit digest of an IPv6 flow's addresses (splitmix64's finaliser over
 * the four words, chained): only ever used with the addresses compared. */
static inline uint64_t
mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

static uint64_t
digest6(const uint8_t src[16], const uint8_t dst[16])
{
	uint64_t w[4], h = 0;

	memcpy(&w[0], src, 8);
	memcpy(&w[1], src + 8, 8);
	memcpy(&w[2], dst, 8);
	memcpy(&w[3], dst + 8, 8);
	for (unsigned int i = 0; i < 4; i++)
		h = mix64(h ^ w[i]);
	return h;
}

/* The compact form of k as a slot holds it. */
static inline void
ftl_key(struct rtr_ftl_key *c, const struct rtr_ft_key *k, uint32_t hash)
{
	c->hash = hash;
	c->sport = k->sport;
	c->kind = k->kind;
	if (k->v6) {
		uint64_t d = digest6(k->src, k->dst);

		c->flags = RTR_FTL_V6;
		c->src = (uint32_t)d;
		c->dst = (uint32_t)(d >> 32);
	} else {
		c->flags = 0;
		memcpy(&c->src, k->src, 4);
		memcpy(&c->dst, k->dst, 4);
	}
}

static inline bool
key_eq(const struct rtr_ftl_key *a, const struct rtr_ftl_key *b)
{
	uint64_t a0, a1, b0, b1;

	memcpy(&a0, a, 8);
	memcpy(&a1, (const uint8_t *)a + 8, 8);
	memcpy(&b0, b, 8);
	memcpy(&b1, (const uint8_t *)b + 8, 8);
	return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

static inline uint32_t
slot_index(const struct rtr_ftl *t, const struct rtr_ftl_slot *s)
{
	return (uint32_t)(((const uint8_t *)s - t->slots) / t->stride);
}

static inline bool
ftl_aged(const struct rtr_ftl *t, const struct rtr_ftl_slot *s, uint64_t now_ns)
{
	/* Idle by the horizon, never by the wall clock (rtr_flowtab's rule). */
	return rtr_lb_since(rtr_lb_seen(t->clock, now_ns), s->last_ns) > t->aging_ns &&
	       (t->pinned == NULL || !t->pinned(s));
}

/* Free used slot i: out of its home's neighbourhood. */
static void
ftl_release(struct rtr_ftl *t, uint32_t i)
{
	struct rtr_ftl_slot *s = rtr_ftl_slot_at(t, i);

	rtr_ftl_slot_at(t, i - s->disp)->hop &= (uint8_t) ~(1u << s->disp);
	s->key.kind = 0;
	t->st.in_use--;
}

struct rtr_ftl_slot *
rtr_ftl_lookup(struct rtr_ftl *t, const struct rtr_ft_key *k, uint32_t hash, uint64_t now_ns,
		bool insert, unsigned int origin, enum rtr_ft_status *status)
{
	const uint32_t home = rtr_ftl_home(t, hash);
	struct rtr_ftl_slot *s, *victim = NULL;
	struct rtr_ftl_key c;
	uint32_t i, vi = 0;
	int free_d = -1;

	ftl_key(&c, k, hash);
	for (uint32_t m = rtr_ftl_slot_at(t, home)->hop; m != 0; m &= m - 1) {
		i = home + (uint32_t)__builtin_ctz(m);
		s = rtr_ftl_slot_at(t, i);
		if (key_eq(&s->key, &c) &&
				(!(c.flags & RTR_FTL_V6) ||
						(memcmp(t->addr6 + (size_t)i * ADDR6_BYTES, k->src,
								 16) == 0 &&
								memcmp(t->addr6 + (size_t)i * ADDR6_BYTES +
												16,
										k->dst,
										16) == 0))) {
			*status = RTR_FT_FOUND;
			return s;
		}
	}
	if (!insert) {
		*status = RTR_FT_ABSENT;
		return NULL;
	}
	for (unsigned int d = 0; d < RTR_FTL_WINDOW; d++) {
		s = rtr_ftl_slot_at(t, home + d);
		if (s->key.kind == 0) {
			free_d = (int)d;
			break;
		}
		if (ftl_aged(t, s, now_ns) && (victim == NULL || s->last_ns < victim->last_ns)) {
			victim = s;
			vi = home + d;
		}
	}
	if (free_d < 0) {
		if (victim == NULL) {
			t->st.full++;
			*status = RTR_FT_FULL;
			return NULL;
		}
		t->st.evicted++;
		ftl_release(t, vi);
		free_d = (int)(vi - home);
	}
	i = home + (uint32_t)free_d;
	s = rtr_ftl_slot_at(t, i);
	/* Everything but the hop byte, which is this slot's as a home. */
	memset(s->value, 0, t->stride - offsetof(struct rtr_ftl_slot, value));
	s->key = c;
	s->last_ns = now_ns;
	s->disp = (uint8_t)free_d;
	s->origin = origin < RTR_FT_ORIGINS ? (uint8_t)(origin + 1) : 0;
	if (c.flags & RTR_FTL_V6) {
		memcpy(t->addr6 + (size_t)i * ADDR6_BYTES, k->src, 16);
		memcpy(t->addr6 + (size_t)i * ADDR6_BYTES + 16, k->dst, 16);
	}
	rtr_ftl_slot_at(t, home)->hop |= (uint8_t)(1u << free_d);
	t->st.inserted++;
	t->st.in_use++;
	*status = RTR_FT_NEW;
	return s;
}

void
rtr_ftl_remove(struct rtr_ftl *t, struct rtr_ftl_slot *s)
{
	if (s->key.kind != 0)
		ftl_release(t, slot_index(t, s));
}

unsigned int
rtr_ftl_sweep(struct rtr_ftl *t, uint64_t now_ns, unsigned int n)
{
	unsigned int freed = 0;

	while (n-- > 0) {
		uint32_t i = t->sweep_cursor;
		struct rtr_ftl_slot *s = rtr_ftl_slot_at(t, i);

		t->sweep_cursor = i + 1 < t->total ? i + 1 : 0;
		if (s->key.kind != 0 && ftl_aged(t, s, now_ns)) {
			ftl_release(t, i);
			t->st.aged++;
			freed++;
		}
	}
	return freed;
}

struct rtr_ftl_slot *
rtr_ftl_next(const struct rtr_ftl *t, uint32_t *cursor)
{
	while (*cursor < t->total) {
		struct rtr_ftl_slot *s = rtr_ftl_slot_at(t, (*cursor)++);

		if (s->key.kind != 0)
			return s;
	}
	return NULL;
}

void
rtr_ftl_key_of(const struct rtr_ftl *t, const struct rtr_ftl_slot *s, struct rtr_ft_key *k)
{
	memset(k, 0, sizeof(*k));
	k->sport = s->key.sport;
	k->kind = s->key.kind;
	if (s->key.flags & RTR_FTL_V6) {
		const uint8_t *a = t->addr6 + (size_t)slot_index(t, s) * ADDR6_BYTES;

		k->v6 = 1;
		memcpy(k->src, a, 16);
		memcpy(k->dst, a + 16, 16);
	} else {
		memcpy(k->src, &s->key.src, 4);
		memcpy(k->dst, &s->key.dst, 4);
	}
}

uint32_t
rtr_ftl_capacity(const struct rtr_ftl *t)
{
	return t->total;
}
