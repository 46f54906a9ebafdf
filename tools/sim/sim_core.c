/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_core.h"

int
sim_init(struct sim *s, uint32_t cap_hint)
{
	memset(s, 0, sizeof(*s));
	s->cap = cap_hint > 16 ? cap_hint : 16;
	s->heap = malloc(sizeof(*s->heap) * s->cap);
	return s->heap == NULL ? -ENOMEM : 0;
}

void
sim_fini(struct sim *s)
{
	free(s->heap);
	s->heap = NULL;
	s->n = s->cap = 0;
}

static inline bool
ev_before(const struct sim_event *a, const struct sim_event *b)
{
	return a->time_ns < b->time_ns || (a->time_ns == b->time_ns && a->seq < b->seq);
}

int
sim_at(struct sim *s, uint64_t time_ns, sim_fn fn, void *arg, uint64_t u)
{
	struct sim_event ev;
	uint32_t i;

	if (s->n == s->cap) {
		struct sim_event *h = realloc(s->heap, sizeof(*h) * s->cap * 2);

		if (h == NULL)
			return -ENOMEM;
		s->heap = h;
		s->cap *= 2;
	}
	ev.time_ns = time_ns < s->now_ns ? s->now_ns : time_ns;
	ev.seq = s->next_seq++;
	ev.fn = fn;
	ev.arg = arg;
	ev.u = u;
	/* Sift up: the hole moves toward the root while its parent is later. */
	for (i = s->n++; i > 0;) {
		uint32_t p = (i - 1) / 2;

		if (!ev_before(&ev, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = ev;
	return 0;
}

bool
sim_pop(struct sim *s, struct sim_event *ev)
{
	struct sim_event last;
	uint32_t i, c;

	if (s->n == 0)
		return false;
	*ev = s->heap[0];
	s->now_ns = ev->time_ns;
	last = s->heap[--s->n];
	/* Sift down the last element from the root. */
	for (i = 0; (c = 2 * i + 1) < s->n; i = c) {
		if (c + 1 < s->n && ev_before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
	}
	if (s->n > 0)
		s->heap[i] = last;
	return true;
}

uint64_t
sim_run(struct sim *s, uint64_t until_ns)
{
	struct sim_event ev;
	uint64_t n = 0;

	while (s->n > 0 && s->heap[0].time_ns <= until_ns) {
		sim_pop(s, &ev);
		ev.fn(s, ev.arg, ev.u);
		n++;
	}
	s->n_run += n;
	return n;
}

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void
sim_rng_seed(struct sim_rng *r, uint64_t seed)
{
	for (unsigned int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t
sim_rng_below(struct sim_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)sim_rng_next(r) * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		uint64_t t = -n % n;

		while (lo < t) {
			m = (unsigned __int128)sim_rng_next(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

double
sim_rng_exp(struct sim_rng *r, double mean)
{
	/* 1 - u is in (0, 1]: log never sees 0. */
	return -mean * log(1.0 - sim_rng_double(r));
}
