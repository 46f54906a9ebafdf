/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The simulator's discrete-event core (doc/simulator.md): a binary min-heap
 * of events ordered by (time_ns, seq), seq being the order in which they were
 * scheduled, so two events at the same time run in the order they were
 * scheduled and a run is a pure function of its inputs and its seed; and a
 * PRNG of its own (xoshiro256**, seeded through splitmix64), never rand(),
 * whose sequence is the same on every libc.
 *
 * Single-threaded, no EAL. An event is a callback and two arguments; the
 * heap holds them by value (24 bytes plus the key), grown by doubling.
 */
#ifndef SIM_CORE_H
#define SIM_CORE_H

#include <stdbool.h>
#include <stdint.h>

struct sim;

typedef void (*sim_fn)(struct sim *s, void *arg, uint64_t u);

struct sim_event {
	uint64_t time_ns;
	uint64_t seq;
	sim_fn fn;
	void *arg;
	uint64_t u;
};

struct sim {
	uint64_t now_ns;
	uint64_t next_seq;
	uint64_t n_run; /* events run so far */
	struct sim_event *heap;
	uint32_t n, cap;
};

/* 0 or -ENOMEM. */
int sim_init(struct sim *s, uint32_t cap_hint);
void sim_fini(struct sim *s);

/* Schedule fn(s, arg, u) at time_ns (>= s->now_ns: an event in the past is
 * run now, after those already due). 0 or -ENOMEM. */
int sim_at(struct sim *s, uint64_t time_ns, sim_fn fn, void *arg, uint64_t u);

static inline int
sim_after(struct sim *s, uint64_t delay_ns, sim_fn fn, void *arg, uint64_t u)
{
	return sim_at(s, s->now_ns + delay_ns, fn, arg, u);
}

/* Take the earliest event into *ev (advancing s->now_ns to its time) without
 * running it. false when the queue is empty. */
bool sim_pop(struct sim *s, struct sim_event *ev);

/* Run events while the earliest is at or before until_ns (UINT64_MAX: until
 * the queue is empty); s->now_ns ends at the last event run. Returns the
 * number of events run. */
uint64_t sim_run(struct sim *s, uint64_t until_ns);

/* ------------------------------------------------------------------ PRNG */

struct sim_rng {
	uint64_t s[4];
};

/* Seed with splitmix64 (any seed, 0 included, gives a valid state). */
void sim_rng_seed(struct sim_rng *r, uint64_t seed);

static inline uint64_t
sim_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna). */
static inline uint64_t
sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = sim_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sim_rotl(s[3], 45);
	return res;
}

/* Uniform in [0, 1): the top 53 bits. */
static inline double
sim_rng_double(struct sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n), n > 0, without modulo bias (Lemire's method). */
uint64_t sim_rng_below(struct sim_rng *r, uint64_t n);

/* Exponential with the given mean (Poisson inter-arrival times). */
double sim_rng_exp(struct sim_rng *r, double mean);

#endif /* SIM_CORE_H */
