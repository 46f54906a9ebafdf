/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Pausable rings, without the EAL (posix_memalign pool, fake mbuf pointers
 * that the pool never dereferences): invalid parameters, memory size,
 * exhaustion reported and never a drop, a full ring refuses without taking
 * the packet, FIFO resume, pause again, release (draining first, LIFO reuse,
 * double release harmless), an emit that holds again during resume, pool
 * free draining leftovers, the size limits, and 100,000 random operations
 * checked against a model (one deque per ring) after every step.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "rtr_common.h"
#include "rtr_pring.h"
#include "rtr_test.h"

#define PKT(i) ((struct rte_mbuf *)(uintptr_t)(0x1000 + (uintptr_t)(i)*64))

/* What the emit callback saw. */
struct capture {
	struct rte_mbuf **v;
	unsigned int n, cap;
};

static void
cap_emit(void *arg, struct rte_mbuf *m)
{
	struct capture *c = arg;

	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
		if (c->v == NULL)
			abort();
	}
	c->v[c->n++] = m;
}

/* c holds exactly PKT(first) .. PKT(first + n - 1), in that order. */
static int
cap_is_seq(const struct capture *c, unsigned int first, unsigned int n)
{
	unsigned int i;

	if (c->n != n)
		return 0;
	for (i = 0; i < n; i++)
		if (c->v[i] != PKT(first + i))
			return 0;
	return 1;
}

static struct rtr_pring_pool *
mk(unsigned int n_rings, unsigned int depth)
{
	struct rtr_pring_params p = {
			.name = "test",
			.n_rings = n_rings,
			.depth = depth,
			.socket_id = -1,
			.use_rte_malloc = false,
	};

	return rtr_pring_pool_create(&p);
}

static void
test_params(void)
{
	static const unsigned int bad[][2] = {
			{0, 8},
			{8, 0},
			{8, 65537},
			{65537, 8},
			{65536, 65536},
			{0, 0},
	};
	unsigned int i;

	errno = 0;
	CHECK(rtr_pring_pool_create(NULL) == NULL);
	CHECK_EQ(errno, EINVAL);
	for (i = 0; i < RTR_ARRAY_SIZE(bad); i++) {
		errno = 0;
		CHECK(mk(bad[i][0], bad[i][1]) == NULL, "n_rings %u depth %u accepted", bad[i][0],
				bad[i][1]);
		CHECK_EQ(errno, EINVAL);
		CHECK_EQ(rtr_pring_memsize(bad[i][0], bad[i][1]), 0);
	}
}

static void
test_memsize(void)
{
	size_t def = rtr_pring_memsize(1024, 2048);

	/* exact-size rings: depth d takes the power of two above d slots */
	CHECK_EQ(def, 1024 * (size_t)rte_ring_get_memsize(4096));
	CHECK_EQ(rtr_pring_memsize(1024, 2047), 1024 * (size_t)rte_ring_get_memsize(2048));
	CHECK_EQ(rtr_pring_memsize(3, 5), 3 * (size_t)rte_ring_get_memsize(8));
	CHECK_EQ(rtr_pring_memsize(1, 1), (size_t)rte_ring_get_memsize(2));
	printf("pring: 1024 x 2048 = %zu bytes (%.1f MiB), 1024 x 2047 = %zu bytes (%.1f MiB)\n",
			def, def / 1048576.0, rtr_pring_memsize(1024, 2047),
			rtr_pring_memsize(1024, 2047) / 1048576.0);
}

static void
test_basic(void)
{
	struct rtr_pring_pool *pool = mk(4, 5);
	struct rtr_pring *r[4], *x, *y;
	struct rtr_pring_stats st;
	struct capture c = {0};
	unsigned int i, seen = 0;

	CHECK(pool != NULL);
	if (pool == NULL)
		return;
	CHECK_EQ(rtr_pring_pool_rings(pool), 4);
	CHECK_EQ(rtr_pring_pool_depth(pool), 5);

	/* acquire until exhaustion */
	for (i = 0; i < 4; i++) {
		r[i] = rtr_pring_acquire(pool, 100 + i);
		CHECK(r[i] != NULL);
		if (r[i] == NULL)
			goto out;
		CHECK_EQ(rtr_pring_index(r[i]), i);
		CHECK(rtr_pring_at(pool, i) == r[i]);
		CHECK_EQ(rtr_pring_owner(r[i]), 100 + i);
		CHECK(rtr_pring_in_use(r[i]));
		CHECK_EQ(rtr_pring_depth(r[i]), 0);
		rtr_pring_pool_stats(pool, &st);
		CHECK_EQ(st.in_use, i + 1);
		CHECK_EQ(st.max_in_use, i + 1);
		seen |= 1u << rtr_pring_index(r[i]);
	}
	CHECK_EQ(seen, 0xf);
	CHECK(rtr_pring_at(pool, 4) == NULL);
	CHECK(rtr_pring_acquire(pool, 200) == NULL);
	CHECK(rtr_pring_acquire(pool, 201) == NULL);
	rtr_pring_pool_stats(pool, &st);
	CHECK_EQ(st.acquired, 4);
	CHECK_EQ(st.exhausted, 2);
	CHECK_EQ(st.in_use, 4);
	CHECK_EQ(st.max_in_use, 4);

	/* enqueue up to depth; depth + 1 is refused and not taken */
	for (i = 0; i < 5; i++)
		CHECK_EQ(rtr_pring_enqueue(r[1], PKT(i)), 0);
	CHECK_EQ(rtr_pring_enqueue(r[1], PKT(99)), -ENOBUFS);
	CHECK_EQ(rtr_pring_enqueue(r[1], PKT(98)), -ENOBUFS);
	CHECK_EQ(rtr_pring_depth(r[1]), 5);
	CHECK_EQ(rtr_pring_pool_held(pool), 5);
	rtr_pring_pool_stats(pool, &st);
	CHECK_EQ(st.full, 2);
	CHECK_EQ(st.enqueued, 5);
	CHECK_EQ(st.held, 5);

	/* resume: exactly those, oldest first; the 99 and 98 never show up */
	CHECK_EQ(rtr_pring_resume(r[1], cap_emit, &c), 5);
	CHECK(cap_is_seq(&c, 0, 5));
	CHECK_EQ(rtr_pring_depth(r[1]), 0);
	CHECK_EQ(rtr_pring_pool_held(pool), 0);
	CHECK(rtr_pring_in_use(r[1]));
	CHECK_EQ(rtr_pring_owner(r[1]), 101);

	/* resuming an empty ring emits nothing */
	c.n = 0;
	CHECK_EQ(rtr_pring_resume(r[1], cap_emit, &c), 0);
	CHECK_EQ(c.n, 0);

	/* pause again, resume again (the ring wraps: 5 + 5 > 8 slots) */
	for (i = 10; i < 15; i++)
		CHECK_EQ(rtr_pring_enqueue(r[1], PKT(i)), 0);
	CHECK_EQ(rtr_pring_enqueue(r[1], PKT(97)), -ENOBUFS);
	CHECK_EQ(rtr_pring_resume(r[1], cap_emit, &c), 5);
	CHECK(cap_is_seq(&c, 10, 5));
	c.n = 0;
	CHECK_EQ(rtr_pring_enqueue(r[1], PKT(20)), 0);
	CHECK_EQ(rtr_pring_enqueue(r[1], PKT(21)), 0);
	CHECK_EQ(rtr_pring_resume(r[1], cap_emit, &c), 2);
	CHECK(cap_is_seq(&c, 20, 2));

	/* release an empty ring: it comes back first (LIFO) */
	c.n = 0;
	rtr_pring_release(pool, r[2], cap_emit, &c);
	CHECK_EQ(c.n, 0);
	CHECK(!rtr_pring_in_use(r[2]));
	CHECK_EQ(rtr_pring_owner(r[2]), 0);
	rtr_pring_pool_stats(pool, &st);
	CHECK_EQ(st.in_use, 3);
	CHECK_EQ(st.max_in_use, 4);
	CHECK_EQ(st.released, 1);
	x = rtr_pring_acquire(pool, 300);
	CHECK(x == r[2]);
	CHECK_EQ(rtr_pring_owner(x), 300);
	rtr_pring_pool_stats(pool, &st);
	CHECK_EQ(st.in_use, 4);
	CHECK_EQ(st.acquired, 5);

	/* release of a ring that holds packets drains them first */
	for (i = 30; i < 33; i++)
		CHECK_EQ(rtr_pring_enqueue(r[3], PKT(i)), 0);
	CHECK_EQ(rtr_pring_pool_held(pool), 3);
	rtr_pring_release(pool, r[3], cap_emit, &c);
	CHECK(cap_is_seq(&c, 30, 3));
	CHECK_EQ(rtr_pring_depth(r[3]), 0);
	CHECK_EQ(rtr_pring_pool_held(pool), 0);

	/* double release does nothing: only one ring is free */
	c.n = 0;
	rtr_pring_release(pool, r[3], cap_emit, &c);
	rtr_pring_pool_stats(pool, &st);
	CHECK_EQ(st.released, 2);
	CHECK_EQ(st.in_use, 3);
	x = rtr_pring_acquire(pool, 400);
	y = rtr_pring_acquire(pool, 401);
	CHECK(x == r[3]);
	CHECK(y == NULL);
	rtr_pring_pool_stats(pool, &st);
	CHECK_EQ(st.exhausted, 3);
	CHECK_EQ(st.enqueued, 15);
	CHECK_EQ(st.drained, 15);
	CHECK_EQ(st.full, 3);
	CHECK_EQ(c.n, 0);

	/* pool free drains leftovers, ring by ring in index order */
	CHECK_EQ(rtr_pring_enqueue(r[2], PKT(40)), 0);
	CHECK_EQ(rtr_pring_enqueue(r[0], PKT(41)), 0);
	CHECK_EQ(rtr_pring_enqueue(r[0], PKT(42)), 0);
	CHECK_EQ(rtr_pring_enqueue(r[2], PKT(43)), 0);
	CHECK_EQ(rtr_pring_enqueue(r[2], PKT(44)), 0);
	CHECK_EQ(rtr_pring_pool_free(pool, cap_emit, &c), 5);
	CHECK(c.n == 5 && c.v[0] == PKT(41) && c.v[1] == PKT(42) && c.v[2] == PKT(40) &&
			c.v[3] == PKT(43) && c.v[4] == PKT(44));
	pool = NULL;
out:
	CHECK_EQ(rtr_pring_pool_free(pool, cap_emit, &c), 0);
	free(c.v);
}

/* An emit that holds one packet again in the ring being drained. */
struct rehold {
	struct capture c;
	struct rtr_pring *r;
	unsigned int trigger, next;
};

static void
rehold_emit(void *arg, struct rte_mbuf *m)
{
	struct rehold *h = arg;

	cap_emit(&h->c, m);
	if (m == PKT(h->trigger))
		CHECK_EQ(rtr_pring_enqueue(h->r, PKT(h->next++)), 0);
}

static void
test_rehold(void)
{
	struct rtr_pring_pool *pool = mk(2, 40);
	struct rehold h = {.trigger = 5, .next = 100};
	unsigned int i;

	CHECK(pool != NULL);
	if (pool == NULL)
		return;
	h.r = rtr_pring_acquire(pool, 1);
	for (i = 0; i < 40; i++)
		CHECK_EQ(rtr_pring_enqueue(h.r, PKT(i)), 0);
	/* resume drains only what was held when called: two bursts, 32 + 8, and
	 * PKT(100), held again during the first, is not in the second */
	CHECK_EQ(rtr_pring_resume(h.r, rehold_emit, &h), 40);
	CHECK(cap_is_seq(&h.c, 0, 40));
	CHECK_EQ(rtr_pring_depth(h.r), 1);
	CHECK_EQ(rtr_pring_pool_held(pool), 1);
	/* release drains until empty, including what emit holds meanwhile */
	h.c.n = 0;
	h.trigger = 100;
	rtr_pring_release(pool, h.r, rehold_emit, &h);
	CHECK(h.c.n == 2 && h.c.v[0] == PKT(100) && h.c.v[1] == PKT(101));
	CHECK_EQ(rtr_pring_depth(h.r), 0);
	CHECK(!rtr_pring_in_use(h.r));
	CHECK_EQ(rtr_pring_pool_free(pool, cap_emit, &h.c), 0);
	free(h.c.v);
}

static void
test_limits(void)
{
	struct rtr_pring_pool *pool;
	struct rtr_pring *r;
	struct capture c = {0};
	unsigned int i, bad = 0;

	/* depth 1 */
	pool = mk(1, 1);
	CHECK(pool != NULL);
	if (pool != NULL) {
		r = rtr_pring_acquire(pool, 7);
		CHECK_EQ(rtr_pring_enqueue(r, PKT(1)), 0);
		CHECK_EQ(rtr_pring_enqueue(r, PKT(2)), -ENOBUFS);
		CHECK_EQ(rtr_pring_resume(r, cap_emit, &c), 1);
		CHECK(cap_is_seq(&c, 1, 1));
		CHECK(rtr_pring_acquire(pool, 8) == NULL);
		rtr_pring_release(pool, r, cap_emit, &c);
		CHECK_EQ(rtr_pring_pool_free(pool, cap_emit, &c), 0);
	}

	/* depth 65536: exactly that many fit */
	pool = mk(1, 65536);
	CHECK(pool != NULL);
	if (pool != NULL) {
		r = rtr_pring_acquire(pool, 7);
		for (i = 0; i < 65536; i++)
			bad += rtr_pring_enqueue(r, PKT(i)) != 0;
		CHECK_EQ(bad, 0);
		CHECK_EQ(rtr_pring_enqueue(r, PKT(70000)), -ENOBUFS);
		CHECK_EQ(rtr_pring_pool_held(pool), 65536);
		c.n = 0;
		CHECK_EQ(rtr_pring_resume(r, cap_emit, &c), 65536);
		CHECK(cap_is_seq(&c, 0, 65536));
		CHECK_EQ(rtr_pring_enqueue(r, PKT(5)), 0);
		c.n = 0;
		CHECK_EQ(rtr_pring_pool_free(pool, cap_emit, &c), 1);
		CHECK(cap_is_seq(&c, 5, 1));
	}

	/* 65536 rings: every index handed out once, then exhaustion */
	pool = mk(65536, 1);
	CHECK(pool != NULL);
	if (pool != NULL) {
		struct rtr_pring_stats st;

		bad = 0;
		for (i = 0; i < 65536; i++) {
			r = rtr_pring_acquire(pool, i);
			bad += r == NULL || rtr_pring_index(r) != i || rtr_pring_at(pool, i) != r;
		}
		CHECK_EQ(bad, 0);
		CHECK(rtr_pring_acquire(pool, 1) == NULL);
		rtr_pring_pool_stats(pool, &st);
		CHECK_EQ(st.in_use, 65536);
		CHECK_EQ(st.exhausted, 1);
		r = rtr_pring_at(pool, 65535);
		CHECK_EQ(rtr_pring_owner(r), 65535);
		CHECK_EQ(rtr_pring_enqueue(r, PKT(3)), 0);
		rtr_pring_release(pool, r, cap_emit, &c);
		CHECK(rtr_pring_acquire(pool, 9) == r);
		CHECK_EQ(rtr_pring_pool_free(pool, cap_emit, &c), 0);
	}
	free(c.v);
}

/* Model: one circular deque per ring. */
#define RND_RINGS 16
#define RND_DEPTH 13 /* not a power of two: the rte_ring has 16 slots */
#define RND_OPS   100000

struct mring {
	bool owned;
	uint64_t owner;
	unsigned int head, n;
	unsigned int q[RND_DEPTH]; /* packet numbers */
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd(void)
{
	return rtr_test_xorshift(&rng);
}

/* c holds exactly the model ring's packets, oldest first. */
static int
cap_is_model(const struct capture *c, const struct mring *m)
{
	unsigned int i;

	if (c->n != m->n)
		return 0;
	for (i = 0; i < m->n; i++)
		if (c->v[i] != PKT(m->q[(m->head + i) % RND_DEPTH]))
			return 0;
	return 1;
}

static void
test_random(void)
{
	struct rtr_pring_pool *pool = mk(RND_RINGS, RND_DEPTH);
	struct mring m[RND_RINGS];
	struct rtr_pring_stats st, ms = {0};
	struct capture c = {0};
	unsigned int op, i, owned[RND_RINGS], n_owned = 0, pkt = 0, held = 0;
	unsigned int bad_held = 0, bad_op = 0, first_bad = 0;
	unsigned int n_acq = 0, n_exh = 0, n_enq = 0, n_full = 0, n_res = 0, n_rel = 0;

	CHECK(pool != NULL);
	if (pool == NULL)
		return;
	memset(m, 0, sizeof(m));
	for (op = 0; op < RND_OPS; op++) {
		unsigned int k = (unsigned int)(rnd() % 100);
		unsigned int j = n_owned ? (unsigned int)(rnd() % n_owned) : 0;
		struct mring *mr = n_owned ? &m[owned[j]] : NULL;
		struct rtr_pring *r = n_owned ? rtr_pring_at(pool, owned[j]) : NULL;
		int ok = 1;

		c.n = 0;
		if (k < 12 || n_owned == 0) {
			uint64_t owner = rnd();

			r = rtr_pring_acquire(pool, owner);
			if (n_owned == RND_RINGS) {
				ok = r == NULL;
				ms.exhausted++;
				n_exh++;
			} else if (r == NULL || m[rtr_pring_index(r)].owned ||
					rtr_pring_depth(r) != 0) {
				ok = 0;
			} else {
				i = rtr_pring_index(r);
				m[i].owned = true;
				m[i].owner = owner;
				owned[n_owned++] = i;
				ok = rtr_pring_owner(r) == owner && rtr_pring_in_use(r);
				ms.acquired++;
				ms.in_use++;
				if (ms.in_use > ms.max_in_use)
					ms.max_in_use = ms.in_use;
				n_acq++;
			}
		} else if (k < 72) {
			int rc = rtr_pring_enqueue(r, PKT(pkt));

			if (mr->n == RND_DEPTH) {
				ok = rc == -ENOBUFS;
				ms.full++;
				n_full++;
			} else {
				ok = rc == 0;
				mr->q[(mr->head + mr->n) % RND_DEPTH] = pkt;
				mr->n++;
				held++;
				ms.enqueued++;
				n_enq++;
			}
			pkt++;
		} else if (k < 88) {
			ok = rtr_pring_resume(r, cap_emit, &c) == mr->n && cap_is_model(&c, mr) &&
			     rtr_pring_in_use(r) && rtr_pring_owner(r) == mr->owner;
			held -= mr->n;
			ms.drained += mr->n;
			mr->head = mr->n = 0;
			n_res++;
		} else {
			rtr_pring_release(pool, r, cap_emit, &c);
			ok = cap_is_model(&c, mr) && !rtr_pring_in_use(r);
			held -= mr->n;
			ms.drained += mr->n;
			mr->head = mr->n = 0;
			mr->owned = false;
			owned[j] = owned[--n_owned];
			ms.released++;
			ms.in_use--;
			n_rel++;
		}
		if (r != NULL && rtr_pring_depth(r) != m[rtr_pring_index(r)].n)
			ok = 0;

		/* held = sum of the model's depths, by every account */
		rtr_pring_pool_stats(pool, &st);
		if (rtr_pring_pool_held(pool) != held || st.held != held ||
				st.enqueued - st.drained != held) {
			if (bad_held++ == 0)
				fprintf(stderr, "op %u: held %u, stats %" PRIu64 ", model %u\n", op,
						rtr_pring_pool_held(pool), st.held, held);
		}
		if (!ok && bad_op++ == 0)
			first_bad = op;
	}
	CHECK_EQ(bad_held, 0);
	CHECK(bad_op == 0, "%u bad operations, first at op %u", bad_op, first_bad);

	/* every ring's depth and ownership as in the model */
	for (i = 0, bad_op = 0; i < RND_RINGS; i++) {
		struct rtr_pring *r = rtr_pring_at(pool, i);

		bad_op += rtr_pring_depth(r) != m[i].n || rtr_pring_in_use(r) != m[i].owned ||
			  (m[i].owned && rtr_pring_owner(r) != m[i].owner);
	}
	CHECK_EQ(bad_op, 0);

	rtr_pring_pool_stats(pool, &st);
	CHECK_EQ(st.acquired, ms.acquired);
	CHECK_EQ(st.released, ms.released);
	CHECK_EQ(st.exhausted, ms.exhausted);
	CHECK_EQ(st.full, ms.full);
	CHECK_EQ(st.enqueued, ms.enqueued);
	CHECK_EQ(st.drained, ms.drained);
	CHECK_EQ(st.in_use, ms.in_use);
	CHECK_EQ(st.max_in_use, ms.max_in_use);
	CHECK_EQ(st.held, held);
	/* the sequence did exercise every path */
	CHECK(n_exh > 100 && n_full > 100 && n_res > 1000 && n_rel > 1000,
			"exhausted %u full %u resumed %u released %u", n_exh, n_full, n_res, n_rel);
	printf("pring: random: %u acquire, %u exhausted, %u enqueue, %u full, %u resume, "
	       "%u release, %u held at end\n",
			n_acq, n_exh, n_enq, n_full, n_res, n_rel, held);

	/* pool free hands back exactly what the model still holds */
	c.n = 0;
	CHECK_EQ(rtr_pring_pool_free(pool, cap_emit, &c), held);
	CHECK_EQ(c.n, held);
	free(c.v);
}

int
main(void)
{
	test_params();
	test_memsize();
	test_basic();
	test_rehold();
	test_limits();
	test_random();
	return rtr_test_done("pring");
}
