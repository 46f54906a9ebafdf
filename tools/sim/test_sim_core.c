/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The event core: events run in (time, scheduling order) whatever order
 * they were scheduled in, ties included, also when events schedule others
 * at the current time; the same seed gives the same trace; the PRNG
 * matches xoshiro256** seeded by splitmix64 (values computed apart, in
 * Python, from the published algorithms) and its helpers stay in range.
 */

#include <stdlib.h>
#include <string.h>

#include "rtr_test.h"
#include "sim_core.h"

#define N_EV 20000

struct trace {
	uint64_t n;
	uint64_t last_t;
	uint64_t last_id;  /* the scheduling index of the last event run */
	uint64_t tie_bad;  /* equal times run out of scheduling order */
	uint64_t time_bad; /* time went backwards */
	uint64_t hash;     /* FNV-1a over (time, id) */
	uint64_t ids[N_EV + 64];
};

static void
ev_record(struct sim *s, void *arg, uint64_t id)
{
	struct trace *t = arg;

	if (t->n > 0 && s->now_ns < t->last_t)
		t->time_bad++;
	if (t->n > 0 && s->now_ns == t->last_t && id < t->last_id)
		t->tie_bad++;
	t->ids[t->n++] = id;
	t->last_t = s->now_ns;
	t->last_id = id;
	for (unsigned int i = 0; i < 2; i++) {
		uint64_t v = i ? id : s->now_ns;

		for (unsigned int b = 0; b < 8; b++) {
			t->hash ^= (v >> (8 * b)) & 0xff;
			t->hash *= 0x100000001b3ULL;
		}
	}
}

/* Schedules N_EV events at random times among few distinct values (many
 * ties), ids in scheduling order, and runs them. */
static void
run_random(uint64_t seed, struct trace *t)
{
	struct sim s;
	struct sim_rng r;

	memset(t, 0, sizeof(*t));
	t->hash = 0xcbf29ce484222325ULL;
	sim_rng_seed(&r, seed);
	CHECK_EQ(sim_init(&s, 4), 0); /* small: the heap must grow */
	for (uint64_t i = 0; i < N_EV; i++)
		sim_at(&s, sim_rng_below(&r, 500), ev_record, t, i);
	CHECK_EQ(sim_run(&s, UINT64_MAX), N_EV);
	CHECK_EQ(s.n, 0);
	sim_fini(&s);
}

/* An event that schedules two more at the current time: they run after
 * everything already due at that time, in the order scheduled. */
struct chain {
	struct trace *t;
	unsigned int left;
};

static void
ev_chain(struct sim *s, void *arg, uint64_t id)
{
	struct chain *c = arg;

	ev_record(s, c->t, id);
	if (c->left > 0) {
		c->left--;
		sim_after(s, 0, ev_chain, c, 1000 + id * 2);
		sim_after(s, 0, ev_chain, c, 1000 + id * 2 + 1);
	}
}

static void
test_order(void)
{
	static struct trace a, b, c;
	unsigned int i;

	run_random(7, &a);
	CHECK_EQ(a.n, N_EV);
	CHECK_EQ(a.time_bad, 0);
	CHECK_EQ(a.tie_bad, 0);
	run_random(7, &b);
	CHECK(a.hash == b.hash, "same seed, another trace");
	CHECK(memcmp(a.ids, b.ids, sizeof(a.ids)) == 0, "same seed, another order");
	run_random(8, &c);
	CHECK(a.hash != c.hash, "another seed, the same trace");

	/* Events at one time, scheduled in reverse time order elsewhere. */
	{
		struct sim s;
		struct chain ch;
		static struct trace t;

		memset(&t, 0, sizeof(t));
		sim_init(&s, 0);
		ch.t = &t;
		ch.left = 3;
		sim_at(&s, 100, ev_record, &t, 5);
		sim_at(&s, 50, ev_chain, &ch, 1);
		sim_at(&s, 50, ev_record, &t, 2);
		sim_at(&s, 10, ev_record, &t, 0);
		CHECK_EQ(sim_run(&s, 49), 1); /* only the event at 10 */
		CHECK_EQ(s.now_ns, 10);
		sim_run(&s, UINT64_MAX);
		/* 10: 0; 50: chain 1, record 2 (scheduled before the chain
		 * ran), then 1002, 1003 (from 1), 3004, 3005 (from 1002),
		 * 3006, 3007 (from 1003); 100: 5 */
		static const uint64_t want[] = {0, 1, 2, 1002, 1003, 3004, 3005, 3006, 3007, 5};
		CHECK_EQ(t.n, (sizeof(want) / sizeof(want[0])));
		for (i = 0; i < t.n && i < (sizeof(want) / sizeof(want[0])); i++)
			CHECK(t.ids[i] == want[i], "event %u: %llu, want %llu", i,
					(unsigned long long)t.ids[i], (unsigned long long)want[i]);
		CHECK_EQ(s.now_ns, 100);
		/* The past is now. */
		sim_at(&s, 3, ev_record, &t, 9);
		sim_run(&s, UINT64_MAX);
		CHECK_EQ(t.last_t, 100);
		sim_fini(&s);
	}
}

static void
test_rng(void)
{
	struct sim_rng r, r2;
	uint64_t hist[10] = {0};
	double sum = 0;
	unsigned int i;

	/* xoshiro256** after splitmix64(42), computed in Python. */
	sim_rng_seed(&r, 42);
	CHECK(sim_rng_next(&r) == 0x15780b2e0c2ec716ULL, "first value");
	CHECK(sim_rng_next(&r) == 0x6104d9866d113a7eULL, "second value");
	CHECK(sim_rng_next(&r) == 0xae17533239e499a1ULL, "third value");

	sim_rng_seed(&r, 1);
	sim_rng_seed(&r2, 1);
	for (i = 0; i < 1000; i++)
		if (sim_rng_next(&r) != sim_rng_next(&r2))
			break;
	CHECK_EQ(i, 1000);

	for (i = 0; i < 100000; i++) {
		uint64_t v = sim_rng_below(&r, 10);
		double d = sim_rng_double(&r);

		if (v >= 10 || d < 0 || d >= 1)
			break;
		hist[v]++;
		sum += sim_rng_exp(&r, 5.0);
	}
	CHECK_EQ(i, 100000);
	for (i = 0; i < 10; i++)
		CHECK(hist[i] > 9500 && hist[i] < 10500, "bin %u: %llu", i,
				(unsigned long long)hist[i]);
	CHECK(sum / 100000 > 4.9 && sum / 100000 < 5.1, "exp mean %f", sum / 100000);
}

int
main(void)
{
	test_order();
	test_rng();
	return rtr_test_done("test_sim_core");
}
