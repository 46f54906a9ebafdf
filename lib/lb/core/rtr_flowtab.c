/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "rtr_flowtab.h"
#include "rtr_lb_mem.h"

#define ADDR6_BYTES 32 /* an IPv6 slot's source and destination */

static uint32_t
ft_stride(uint32_t value_size)
{
	return RTE_ALIGN_CEIL((uint32_t)sizeof(struct rtr_ft_entry) + value_size, 64);
}

static uint32_t
ft_homes(uint32_t entries)
{
	return rte_align32pow2(entries < RTR_FT_MIN ? RTR_FT_MIN : entries);
}

size_t
rtr_ft_memsize(const struct rtr_ft_params *p)
{
	size_t n = ft_homes(p->entries);

	return n * ft_stride(p->value_size) + n * ADDR6_BYTES + 64;
}

struct rtr_ft *
rtr_ft_create(const struct rtr_ft_params *p)
{
	struct rtr_ft *t;

	if (p == NULL || p->entries == 0 || p->entries > (1u << 28) || p->value_size > 4064) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	t->n_home = ft_homes(p->entries);
	t->mask = t->n_home - 1;
	t->window = RTE_MIN((uint32_t)RTR_FT_WINDOW, t->n_home);
	t->shift = 32 - (uint32_t)__builtin_ctz(t->n_home);
	t->stride = ft_stride(p->value_size);
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
	t->block = rtr_lb_zalloc(
			p->name ? p->name : "flowtab", rtr_ft_memsize(p), t->rte, p->socket_id);
	if (t->block == NULL) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	t->slots = t->block;
	t->addr6 = t->slots + (size_t)t->n_home * t->stride;
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

/* The compact form of k as an entry holds it. */
static inline void
ft_ckey(struct rtr_ft_ckey *c, const struct rtr_ft_key *k, uint32_t hash)
{
	c->hash = hash;
	c->sport = k->sport;
	c->kind = k->kind;
	if (k->v6) {
		uint64_t d = digest6(k->src, k->dst);

		c->flags = RTR_FT_V6;
		c->src = (uint32_t)d;
		c->dst = (uint32_t)(d >> 32);
	} else {
		c->flags = 0;
		memcpy(&c->src, k->src, 4);
		memcpy(&c->dst, k->dst, 4);
	}
}

static inline bool
ckey_eq(const struct rtr_ft_ckey *a, const struct rtr_ft_ckey *b)
{
	uint64_t a0, a1, b0, b1;

	memcpy(&a0, a, 8);
	memcpy(&a1, (const uint8_t *)a + 8, 8);
	memcpy(&b0, b, 8);
	memcpy(&b1, (const uint8_t *)b + 8, 8);
	return ((a0 ^ b0) | (a1 ^ b1)) == 0;
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

/* Free used slot i: out of its home's neighbourhood and its origin's count. */
static void
ft_release(struct rtr_ft *t, uint32_t i)
{
	struct rtr_ft_entry *e = rtr_ft_slot_at(t, i);

	rtr_ft_slot_at(t, (i - e->disp) & t->mask)->hop &= (uint16_t) ~(1u << e->disp);
	e->key.kind = 0;
	e->gen++;
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
addr6_eq(const struct rtr_ft *t, uint32_t i, const struct rtr_ft_key *k)
{
	const uint8_t *a = t->addr6 + (size_t)i * ADDR6_BYTES;

	return memcmp(a, k->src, 16) == 0 && memcmp(a + 16, k->dst, 16) == 0;
}

struct rtr_ft_entry *
rtr_ft_lookup(struct rtr_ft *t, const struct rtr_ft_key *k, uint32_t hash, uint64_t now_ns,
		bool insert, unsigned int origin, enum rtr_ft_status *status)
{
	const uint32_t home = rtr_ft_home(t, hash);
	struct rtr_ft_entry *e, *victim = NULL;
	struct rtr_ft_ckey c;
	uint32_t i, vi = 0;
	int free_d = -1;

	ft_ckey(&c, k, hash);
	for (uint32_t m = rtr_ft_slot_at(t, home)->hop; m != 0; m &= m - 1) {
		i = (home + (uint32_t)__builtin_ctz(m)) & t->mask;
		e = rtr_ft_slot_at(t, i);
		if (ckey_eq(&e->key, &c) && (!(c.flags & RTR_FT_V6) || addr6_eq(t, i, k))) {
			*status = RTR_FT_FOUND;
			return e;
		}
	}
	if (!insert) {
		*status = RTR_FT_ABSENT;
		return NULL;
	}
	if (origin >= RTR_FT_ORIGINS)
		origin = RTR_FT_ORIGIN_NONE;
	else if (t->limited && (*status = ft_admit(t, origin, now_ns)) != RTR_FT_NEW)
		return NULL;
	for (unsigned int d = 0; d < t->window; d++) {
		e = rtr_ft_slot_at(t, (home + d) & t->mask);
		if (e->key.kind == 0) {
			free_d = (int)d;
			break;
		}
		if (ft_aged(t, e, now_ns) && (victim == NULL || e->last_ns < victim->last_ns)) {
			victim = e;
			vi = (home + d) & t->mask;
		}
	}
	if (free_d < 0) {
		if (victim == NULL) {
			t->st.full++;
			*status = RTR_FT_FULL;
			return NULL;
		}
		t->st.evicted++;
		ft_release(t, vi);
		free_d = (int)((vi - home) & t->mask);
	}
	i = (home + (uint32_t)free_d) & t->mask;
	e = rtr_ft_slot_at(t, i);
	/* Everything but the hop byte, which is this slot's as a home. */
	memset(e->value, 0, t->stride - offsetof(struct rtr_ft_entry, value));
	e->key = c;
	e->last_ns = now_ns;
	e->disp = (uint8_t)free_d;
	e->origin = 0;
	if (origin != RTR_FT_ORIGIN_NONE) {
		e->origin = (uint8_t)(origin + 1);
		t->origin[origin].in_use++;
	}
	if (c.flags & RTR_FT_V6) {
		memcpy(t->addr6 + (size_t)i * ADDR6_BYTES, k->src, 16);
		memcpy(t->addr6 + (size_t)i * ADDR6_BYTES + 16, k->dst, 16);
	}
	rtr_ft_slot_at(t, home)->hop |= (uint16_t)(1u << free_d);
	t->st.inserted++;
	t->st.in_use++;
	*status = RTR_FT_NEW;
	return e;
}

void
rtr_ft_remove(struct rtr_ft *t, struct rtr_ft_entry *e)
{
	if (e->key.kind != 0)
		ft_release(t, rtr_ft_ref(t, e));
}

unsigned int
rtr_ft_sweep(struct rtr_ft *t, uint64_t now_ns, unsigned int n)
{
	unsigned int freed = 0;

	while (n-- > 0) {
		uint32_t i = t->sweep_cursor;
		struct rtr_ft_entry *e = rtr_ft_slot_at(t, i);

		t->sweep_cursor = (i + 1) & t->mask;
		if (e->key.kind != 0 && ft_aged(t, e, now_ns)) {
			ft_release(t, i);
			t->st.aged++;
			freed++;
		}
	}
	return freed;
}

struct rtr_ft_entry *
rtr_ft_next(const struct rtr_ft *t, uint32_t *cursor)
{
	while (*cursor < t->n_home) {
		struct rtr_ft_entry *e = rtr_ft_slot_at(t, (*cursor)++);

		if (e->key.kind != 0)
			return e;
	}
	return NULL;
}

void
rtr_ft_key_of(const struct rtr_ft *t, const struct rtr_ft_entry *e, struct rtr_ft_key *k)
{
	memset(k, 0, sizeof(*k));
	k->sport = e->key.sport;
	k->kind = e->key.kind;
	if (e->key.flags & RTR_FT_V6) {
		const uint8_t *a = t->addr6 + (size_t)rtr_ft_ref(t, e) * ADDR6_BYTES;

		k->v6 = 1;
		memcpy(k->src, a, 16);
		memcpy(k->dst, a + 16, 16);
	} else {
		memcpy(k->src, &e->key.src, 4);
		memcpy(k->dst, &e->key.dst, 4);
	}
}

uint32_t
rtr_ft_capacity(const struct rtr_ft *t)
{
	return t->n_home;
}

void
rtr_ft_get_stats(const struct rtr_ft *t, struct rtr_ft_stats *s)
{
	*s = t->st;
}
