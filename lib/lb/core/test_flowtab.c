/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The one-line flow table (rtr_flowtab), without the EAL: parameters and
 * layout (a flow with a 32-byte value is one 64-byte slot), the basic
 * operations, a home's neighbourhood filling to RTR_FT_WINDOW and then
 * refusing, eviction of the longest idle aged slot only, pinned slots kept,
 * IPv6 keys compared by address after the digest (a forged digest match is
 * no match), and 2 x 2,000,000 random operations against a reference map
 * (once with a well-mixed hash, once with 128 crowded homes): no false
 * match, no value lost or mixed up, no live or pinned flow dropped, a
 * refusal only when the window holds no free or aged slot, and every 20,000
 * operations the table's structure checked whole (each used slot in its
 * home's hop byte, each hop bit on a used slot of that home, in_use).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtr_flowtab.h"
#include "rtr_test.h"

#define US    1000ull
#define AGING (1000 * US)

static bool
pin(const struct rtr_ft_entry *s)
{
	return s->value[8] != 0;
}

/* Key i: the source holds i's low 10 bits, the destination the rest, so
 * that keys differ in the source only, or in the destination only: IPv4
 * 10.1.x.y -> 10.200.z.w for most, IPv6 fd00::(i & 1023) ->
 * fd01::(i >> 10) for every fifth; sport and kind shared by many keys. */
static void
key_of(uint32_t i, struct rtr_ft_key *k)
{
	uint32_t lo = i & 1023, hi = i >> 10;

	memset(k, 0, sizeof(*k));
	k->sport = (uint16_t)(0xC000 + (i & 0x3f));
	k->kind = (uint8_t)(1 + (i & 1));
	if (i % 5 == 0) {
		k->v6 = 1;
		k->src[0] = 0xfd;
		k->dst[0] = 0xfd;
		k->dst[1] = 0x01;
		memcpy(k->src + 12, &lo, 4);
		memcpy(k->dst + 12, &hi, 4);
	} else {
		k->src[0] = 10;
		k->src[1] = 1;
		k->src[2] = (uint8_t)(lo >> 8);
		k->src[3] = (uint8_t)lo;
		k->dst[0] = 10;
		k->dst[1] = 200;
		k->dst[2] = (uint8_t)(hi >> 8);
		k->dst[3] = (uint8_t)hi;
	}
}

static uint32_t
index_of(const struct rtr_ft_key *k)
{
	uint32_t lo, hi;

	if (k->v6) {
		memcpy(&lo, k->src + 12, 4);
		memcpy(&hi, k->dst + 12, 4);
	} else {
		lo = ((uint32_t)k->src[2] << 8) | k->src[3];
		hi = ((uint32_t)k->dst[2] << 8) | k->dst[3];
	}
	return (hi << 10) | lo;
}

static struct rtr_ft *
mk(uint32_t entries, uint32_t vsize)
{
	struct rtr_ft_params p = {
			.name = "test",
			.entries = entries,
			.value_size = vsize,
			.aging_ns = AGING,
			.pinned = pin,
			.socket_id = 0,
			.use_rte_malloc = false,
	};

	return rtr_ft_create(&p);
}

static void
test_params(void)
{
	struct rtr_ft_params p = {.entries = 0, .value_size = 8};
	struct rtr_ft *t;

	errno = 0;
	CHECK(rtr_ft_create(&p) == NULL && errno == EINVAL);
	p.entries = 8;
	p.value_size = 5000;
	CHECK(rtr_ft_create(&p) == NULL && errno == EINVAL);
	CHECK(rtr_ft_create(NULL) == NULL);
	t = mk(1000, 32);
	CHECK(t != NULL);
	CHECK_EQ(t->n_home, 1024);
	CHECK_EQ(t->stride, 64); /* a 32-byte value: one line per flow */
	CHECK_EQ(rtr_ft_capacity(t), 1024);
	CHECK_EQ((uintptr_t)t->slots % 64, 0);
	CHECK_EQ(rtr_ft_home(t, 0xffffffffu), 1023);
	rtr_ft_free(t);
	t = mk(8, 33);
	CHECK_EQ(t->stride, 128);
	CHECK_EQ(t->n_home, 8);
	rtr_ft_free(t);
	rtr_ft_free(NULL);
}

static void
test_basic(void)
{
	struct rtr_ft *t = mk(64, 24);
	enum rtr_ft_status st;
	struct rtr_ft_key k, back;
	struct rtr_ft_entry *s, *x;
	uint32_t cur = 0;

	key_of(3, &k);
	s = rtr_ft_lookup(t, &k, 7, 100, false, RTR_FT_ORIGIN_NONE, &st);
	CHECK(s == NULL && st == RTR_FT_ABSENT);
	s = rtr_ft_lookup(t, &k, 7, 100, true, 2, &st);
	CHECK(s != NULL && st == RTR_FT_NEW);
	CHECK_EQ(s->origin, 3);
	CHECK_EQ((uintptr_t)rtr_ft_value(s) % 8, 0);
	CHECK_EQ(s->last_ns, 100);
	memset(rtr_ft_value(s), 0xab, 24);
	x = rtr_ft_lookup(t, &k, 7, 200, true, 2, &st);
	CHECK(x == s && st == RTR_FT_FOUND && s->value[23] == 0xab);
	rtr_ft_key_of(t, s, &back);
	CHECK(memcmp(&back, &k, sizeof(k)) == 0);
	/* The same key with another kind is another flow. */
	k.kind = 3;
	CHECK(rtr_ft_lookup(t, &k, 7, 200, false, 0, &st) == NULL);
	k.kind = 2;
	CHECK(rtr_ft_next(t, &cur) == s && rtr_ft_next(t, &cur) == NULL);
	CHECK_EQ(t->st.in_use, 1);
	rtr_ft_remove(t, s);
	rtr_ft_remove(t, s); /* twice: no effect */
	CHECK_EQ(t->st.in_use, 0);
	CHECK(rtr_ft_lookup(t, &k, 7, 300, false, 0, &st) == NULL && st == RTR_FT_ABSENT);
	s = rtr_ft_lookup(t, &k, 7, 300, true, RTR_FT_ORIGIN_NONE, &st);
	CHECK(st == RTR_FT_NEW && s->value[23] == 0 && s->origin == 0); /* value zeroed */
	/* IPv6: stored by digest and addresses, read back whole. */
	key_of(10, &k);
	s = rtr_ft_lookup(t, &k, 9, 300, true, 0, &st);
	CHECK(st == RTR_FT_NEW && (s->key.flags & RTR_FT_V6));
	rtr_ft_key_of(t, s, &back);
	CHECK(memcmp(&back, &k, sizeof(k)) == 0);
	rtr_ft_free(t);
}

/* Eight keys of one home fill its window; the ninth is refused until one
 * ages; the longest idle aged one goes; a pinned one never does. */
static unsigned int structure_errors(const struct rtr_ft *t);

static void
test_window(void)
{
	struct rtr_ft *t = mk(64, 24);
	struct rtr_ft_entry *s[RTR_FT_WINDOW + 2];
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	const uint32_t h = 5u << 26; /* home 5 of 64 */
	const unsigned int W = RTR_FT_WINDOW;
	unsigned int i;

	CHECK_EQ(t->window, W);
	for (i = 0; i < W; i++) {
		key_of(100 + i, &k);
		s[i] = rtr_ft_lookup(t, &k, h, 1000 + i, true, 0, &st);
		CHECK(st == RTR_FT_NEW && s[i] == rtr_ft_slot_at(t, 5 + i), "key %u", i);
	}
	CHECK_EQ(rtr_ft_slot_at(t, 5)->hop, (1u << W) - 1);
	for (i = 0; i < W; i++) { /* all found, each with its own value */
		key_of(100 + i, &k);
		CHECK(rtr_ft_lookup(t, &k, h, 2000, false, 0, &st) == s[i]);
	}
	key_of(100 + W, &k);
	CHECK(rtr_ft_lookup(t, &k, h, 2000, true, 0, &st) == NULL && st == RTR_FT_FULL);
	CHECK_EQ(t->st.full, 1);
	/* A key of home 6 finds its own window (6 .. 5 + W + 1) full but for
	 * its last slot: 6 .. 4 + W hold home 5's keys. */
	key_of(200, &k);
	s[W + 1] = rtr_ft_lookup(t, &k, 6u << 26, 2000, true, 0, &st);
	CHECK(st == RTR_FT_NEW && s[W + 1] == rtr_ft_slot_at(t, 5 + W) && s[W + 1]->disp == W - 1);
	CHECK_EQ(rtr_ft_slot_at(t, 6)->hop, 1u << (W - 1));
	/* Key 2 (slot 7) idle longest once 0 and 1 are used again; 0 pinned. */
	for (i = 0; i < W; i++)
		s[i]->last_ns = 5000;
	s[0]->value[8] = 1;
	s[0]->last_ns = 10;
	s[2]->last_ns = 20;
	key_of(100 + W, &k);
	s[W] = rtr_ft_lookup(t, &k, h, 20 + AGING + 1, true, 0, &st);
	CHECK(st == RTR_FT_NEW && s[W] == rtr_ft_slot_at(t, 7),
			"evicted the longest idle unpinned");
	CHECK_EQ(t->st.evicted, 1);
	key_of(102, &k);
	CHECK(rtr_ft_lookup(t, &k, h, 20 + AGING + 1, false, 0, &st) == NULL);
	key_of(100, &k);
	CHECK(rtr_ft_lookup(t, &k, h, 20 + AGING + 1, false, 0, &st) == s[0]);
	/* The sweep frees what aged, never the pinned slot. */
	CHECK_EQ(rtr_ft_sweep(t, 2 * AGING + 100000, rtr_ft_capacity(t)), W);
	CHECK_EQ(t->st.in_use, 1);
	CHECK_EQ(rtr_ft_slot_at(t, 5)->hop, 0x01);
	CHECK_EQ(rtr_ft_slot_at(t, 6)->hop, 0x00);
	CHECK_EQ(structure_errors(t), 0);
	rtr_ft_free(t);
}

/* The last homes' windows wrap round to slot 0: a table of N holds N flows
 * (table_size is the most it holds, as before issue 34), and one of 8 is a
 * single fully associative bucket. An evicted entry's origin holds one
 * less. */
static void
test_wrap(void)
{
	struct rtr_ft_limit lim[RTR_FT_ORIGINS] = {[2] = {.max_entries = 100}};
	struct rtr_ft_params p = {.name = "wrap",
			.entries = 64,
			.value_size = 24,
			.aging_ns = AGING,
			.limits = lim,
			.use_rte_malloc = false};
	struct rtr_ft *t = rtr_ft_create(&p);
	struct rtr_ft_entry *s[RTR_FT_WINDOW + 1];
	const unsigned int W = RTR_FT_WINDOW;
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	const uint32_t h = 62u << 26; /* home 62 of 64: window 62, 63, 0 .. W - 3 */
	unsigned int i, n;

	CHECK(t != NULL);
	if (t == NULL)
		return;
	CHECK_EQ(t->n_home, 64);
	for (i = 0; i < W; i++) {
		key_of(300 + i, &k);
		s[i] = rtr_ft_lookup(t, &k, h, 1000, true, 2, &st);
		CHECK(st == RTR_FT_NEW && s[i] == rtr_ft_slot_at(t, (62 + i) % 64), "key %u", i);
	}
	CHECK_EQ(rtr_ft_slot_at(t, 62)->hop, (1u << W) - 1);
	CHECK_EQ(s[5]->disp, 5);
	CHECK_EQ(rtr_ft_origin_in_use(t, 2), W);
	CHECK_EQ(structure_errors(t), 0);
	for (i = 0; i < W; i++) {
		key_of(300 + i, &k);
		CHECK(rtr_ft_lookup(t, &k, h, 1000, false, 2, &st) == s[i]);
	}
	key_of(300 + W, &k);
	CHECK(rtr_ft_lookup(t, &k, h, 1000, true, 2, &st) == NULL && st == RTR_FT_FULL);
	/* A key of home 0 finds 0 .. W - 3 taken by home 62's keys: slot W - 2. */
	key_of(400, &k);
	s[W] = rtr_ft_lookup(t, &k, 0, 1000, true, RTR_FT_ORIGIN_NONE, &st);
	CHECK(st == RTR_FT_NEW && s[W] == rtr_ft_slot_at(t, W - 2) && s[W]->disp == W - 2);
	/* Eviction of a wrapped slot: home 62's longest idle (slot 1). */
	for (i = 0; i < W; i++)
		s[i]->last_ns = 5000;
	s[3]->last_ns = 10;
	key_of(300 + W, &k);
	CHECK(rtr_ft_lookup(t, &k, h, 10 + AGING + 1, true, RTR_FT_ORIGIN_NONE, &st) == s[3] &&
			st == RTR_FT_NEW);
	CHECK_EQ(rtr_ft_origin_in_use(t, 2), W - 1);
	CHECK_EQ(t->st.in_use, W + 1);
	CHECK_EQ(structure_errors(t), 0);
	rtr_ft_remove(t, s[3]);
	rtr_ft_remove(t, s[0]);
	CHECK_EQ(rtr_ft_origin_in_use(t, 2), W - 2);
	CHECK_EQ(rtr_ft_slot_at(t, 62)->hop, ((1u << W) - 1) & ~0x09u);
	CHECK_EQ(structure_errors(t), 0);
	rtr_ft_free(t);
	/* A table of 8: any 8 flows fit, whatever their hashes; the ninth
	 * does not. */
	p.entries = 8;
	p.limits = NULL;
	t = rtr_ft_create(&p);
	CHECK(t != NULL && rtr_ft_capacity(t) == 8);
	if (t == NULL)
		return;
	for (i = 0, n = 0; i < 8; i++) {
		key_of(500 + i, &k);
		n += rtr_ft_lookup(t, &k, rtr_hash_mix(i) | 0xe0000000u, 1, true,
				     RTR_FT_ORIGIN_NONE, &st) != NULL;
	}
	CHECK_EQ(n, 8);
	key_of(508, &k);
	CHECK(rtr_ft_lookup(t, &k, 123, 1, true, RTR_FT_ORIGIN_NONE, &st) == NULL &&
			st == RTR_FT_FULL);
	CHECK_EQ(structure_errors(t), 0);
	rtr_ft_free(t);
}

/* Two IPv6 flows whose digests and hashes are made equal (the first slot's
 * stored digest overwritten with the second's) stay two flows: the
 * addresses decide. */
static void
test_v6_verify(void)
{
	struct rtr_ft *t = mk(64, 8), *u = mk(64, 8);
	struct rtr_ft_entry *a, *b;
	enum rtr_ft_status st;
	struct rtr_ft_key ka, kb;

	key_of(15, &ka);
	key_of(20, &kb);
	kb.sport = ka.sport;
	kb.kind = ka.kind;
	a = rtr_ft_lookup(t, &ka, 77, 0, true, 0, &st);
	b = rtr_ft_lookup(u, &kb, 77, 0, true, 0, &st);
	CHECK(a != NULL && b != NULL && memcmp(&a->key, &b->key, 16) != 0);
	a->key = b->key; /* a forged digest match */
	CHECK(rtr_ft_lookup(t, &kb, 77, 0, false, 0, &st) == NULL && st == RTR_FT_ABSENT);
	CHECK(rtr_ft_lookup(t, &kb, 77, 0, true, 0, &st) != a && st == RTR_FT_NEW);
	rtr_ft_free(t);
	rtr_ft_free(u);
}

/* The structure: every used slot in its home's hop byte, every hop bit on
 * a used slot of that home; the used count. */
static unsigned int
structure_errors(const struct rtr_ft *t)
{
	unsigned int bad = 0, used = 0;

	for (uint32_t j = 0; j < t->n_home; j++) {
		const struct rtr_ft_entry *s = rtr_ft_slot_at(t, j);

		if (s->key.kind != 0) {
			used++;
			uint32_t home = (j - s->disp) & t->mask;

			if (s->disp >= t->window || rtr_ft_home(t, s->key.hash) != home ||
					!(rtr_ft_slot_at(t, home)->hop & (1u << s->disp)))
				bad++;
		}
		for (unsigned int d = 0; d < t->window; d++) {
			const struct rtr_ft_entry *o;

			if (!(s->hop & (1u << d)))
				continue;
			o = rtr_ft_slot_at(t, (j + d) & t->mask);
			if (o->key.kind == 0 || o->disp != d)
				bad++;
		}
	}
	return bad + (used != t->st.in_use);
}

struct ref {
	uint8_t *present, *pinned;
	uint64_t *tag, *last;
};

/* What may explain an entry of the reference missing from the table: it
 * was idle longer than the aging time and not pinned. */
static bool
may_be_gone(const struct ref *r, uint32_t i, uint64_t now)
{
	return !r->pinned[i] && now - r->last[i] > AGING;
}

static void
random_ops(uint64_t seed, bool crowded)
{
	enum { U = 12000, OPS = 2000000 };
	struct rtr_ft *t = mk(4096, 24);
	struct ref r = {calloc(U, 1), calloc(U, 1), calloc(U, 8), calloc(U, 8)};
	unsigned int false_match = 0, wrong_value = 0, lost = 0, bad_full = 0, phantom = 0;
	unsigned int structure = 0, full = 0, evictions_seen = 0;
	uint64_t now = 1, s = seed;
	enum rtr_ft_status st;
	struct rtr_ft_key k;

	for (uint32_t op = 0; op < OPS; op++) {
		uint32_t i = (uint32_t)(rtr_test_xorshift(&s) % U), rr;
		uint32_t h = crowded ? (rtr_hash_mix(i) & 0xFE000000u) : rtr_hash_mix(i);
		struct rtr_ft_entry *x;

		now += rtr_test_xorshift(&s) % (2 * US);
		rr = (uint32_t)(rtr_test_xorshift(&s) % 100);
		key_of(i, &k);
		if (rr < 55 || rr >= 90) {
			bool ins = rr < 55;

			x = rtr_ft_lookup(t, &k, h, now, ins, 0, &st);
			if (st == RTR_FT_FOUND) {
				if (!r.present[i])
					false_match++;
				else if (memcmp(x->value, &r.tag[i], 8) != 0)
					wrong_value++;
				x->last_ns = now;
				r.last[i] = now;
				if (rr >= 95) { /* unpin */
					x->value[8] = 0;
					r.pinned[i] = 0;
				}
			} else if (st == RTR_FT_NEW || st == RTR_FT_ABSENT) {
				if (r.present[i] && !may_be_gone(&r, i, now))
					lost++;
				r.present[i] = 0;
				if (st == RTR_FT_NEW) {
					r.tag[i] = rtr_test_xorshift(&s);
					memcpy(x->value, &r.tag[i], 8);
					r.pinned[i] = (rtr_test_xorshift(&s) % 100) == 0;
					x->value[8] = r.pinned[i];
					r.present[i] = 1;
					r.last[i] = now;
				}
			} else if (st == RTR_FT_FULL) {
				uint32_t home = rtr_ft_home(t, h);

				full++;
				if (r.present[i] && !may_be_gone(&r, i, now))
					lost++;
				r.present[i] = 0;
				for (unsigned int d = 0; d < t->window; d++) {
					const struct rtr_ft_entry *o =
							rtr_ft_slot_at(t, (home + d) & t->mask);

					if (o->key.kind == 0 ||
							(now - o->last_ns > AGING && !o->value[8]))
						bad_full++;
				}
			}
		} else if (rr < 75) {
			x = rtr_ft_lookup(t, &k, h, now, false, 0, &st);
			if (x != NULL) {
				rtr_ft_remove(t, x);
				if (!r.present[i])
					false_match++;
			} else if (r.present[i] && !may_be_gone(&r, i, now)) {
				lost++;
			}
			r.present[i] = 0;
		} else {
			evictions_seen += rtr_ft_sweep(t, now, 32);
		}
		if (op % 20000 == 19999) {
			uint32_t cur = 0, n = 0;
			struct rtr_ft_entry *y;
			struct rtr_ft_key back;

			structure += structure_errors(t);
			while ((y = rtr_ft_next(t, &cur)) != NULL) {
				uint32_t j;

				rtr_ft_key_of(t, y, &back);
				j = index_of(&back);
				n++;
				if (j >= U || !r.present[j] || memcmp(y->value, &r.tag[j], 8) != 0)
					phantom++;
			}
			for (uint32_t j = 0; j < U; j++) {
				if (!r.present[j])
					continue;
				key_of(j, &k);
				y = rtr_ft_lookup(t, &k,
						crowded ? (rtr_hash_mix(j) & 0xFE000000u)
							: rtr_hash_mix(j),
						now, false, 0, &st);
				if (y == NULL) {
					if (!may_be_gone(&r, j, now))
						lost++;
					r.present[j] = 0;
				}
			}
			CHECK_EQ(n, t->st.in_use);
		}
	}
	printf("flowtab random (%s hash, seed %" PRIu64 "): %u refusals, %" PRIu64
	       " evicted, %" PRIu64 " aged, %u in use at the end\n",
			crowded ? "crowded" : "mixed", seed, full, t->st.evicted, t->st.aged,
			t->st.in_use);
	CHECK_EQ(false_match, 0);
	CHECK_EQ(wrong_value, 0);
	CHECK_EQ(lost, 0);
	CHECK_EQ(bad_full, 0);
	CHECK_EQ(phantom, 0);
	CHECK_EQ(structure, 0);
	CHECK(t->st.inserted > 100000 && t->st.evicted > 0 && t->st.aged > 0,
			"the run exercised insert, eviction and the sweep");
	if (crowded)
		CHECK(full > 0, "the crowded run must refuse some inserts");
	(void)evictions_seen;
	rtr_ft_free(t);
	free(r.present);
	free(r.pinned);
	free(r.tag);
	free(r.last);
}

int
main(void)
{
	test_params();
	test_basic();
	test_window();
	test_v6_verify();
	test_wrap();
	random_ops(0x9E3779B97F4A7C15ull, false);
	random_ops(0xD1B54A32D192ED03ull, true);
	return rtr_test_done("flowtab");
}
