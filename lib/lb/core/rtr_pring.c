/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rtr_pring.h"

#define PRING_FLAGS (RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ)

/* One ring: 32 bytes, two per cache line; all the hot state of a flow's hold. */
struct rtr_pring {
	struct rte_ring *ring;       /* in the pool's ring block */
	struct rtr_pring_pool *pool; /* for the counters */
	uint64_t owner;
	uint32_t count; /* packets held (saves reading the ring's head/tail) */
	uint16_t index;
	uint8_t in_use;
} __rte_aligned(32);

_Static_assert(sizeof(struct rtr_pring) == 32, "two ring handles per cache line");

/*
 * One allocation: this header, rings[n_rings], the free stack (n_rings
 * indices), then, cache-line aligned, the n_rings rte_rings.
 */
struct rtr_pring_pool {
	/* written for every held packet */
	uint64_t held;
	uint64_t enqueued;
	uint64_t drained;
	uint64_t full;
	/* written on acquire and release */
	uint64_t acquired;
	uint64_t released;
	uint64_t exhausted;
	uint32_t in_use;
	uint32_t max_in_use;
	uint32_t n_free;
	uint32_t *free_stack; /* free ring indices; top = free_stack[n_free - 1] */
	/* read-only after create */
	uint32_t n_rings;
	uint32_t depth;
	bool rte_mem;
	char name[RTE_RING_NAMESIZE];
	struct rtr_pring rings[] __rte_cache_aligned;
};

static size_t
ring_memsize(unsigned int depth)
{
	ssize_t sz = rte_ring_get_memsize(rte_align32pow2(depth + 1));

	return sz < 0 ? 0 : (size_t)sz;
}

static bool
params_ok(unsigned int n_rings, unsigned int depth)
{
	return n_rings >= 1 && n_rings <= RTR_PRING_MAX_RINGS && depth >= 1 &&
	       depth <= RTR_PRING_MAX_DEPTH && (uint64_t)n_rings * depth <= UINT32_MAX;
}

size_t
rtr_pring_memsize(unsigned int n_rings, unsigned int depth)
{
	size_t total;

	if (!params_ok(n_rings, depth))
		return 0;
	if (__builtin_mul_overflow((size_t)n_rings, ring_memsize(depth), &total))
		return 0;
	return total;
}

/* The pool's header: itself, the ring handles, the free stack. */
static size_t
pool_head(unsigned int n_rings)
{
	size_t head = sizeof(struct rtr_pring_pool) + (size_t)n_rings * sizeof(struct rtr_pring) +
		      (size_t)n_rings * sizeof(uint32_t);

	return RTE_ALIGN_CEIL(head, RTE_CACHE_LINE_SIZE);
}

size_t
rtr_pring_pool_memsize(unsigned int n_rings, unsigned int depth)
{
	size_t rings = rtr_pring_memsize(n_rings, depth);

	return rings == 0 ? 0 : pool_head(n_rings) + rings;
}

static void *
fail(int err)
{
	rte_errno = err;
	errno = err;
	return NULL;
}

/* "<pool name>.<index>", the pool name cut to fit RTE_RING_NAMESIZE. */
static void
ring_name(char *buf, const char *base, unsigned int idx)
{
	char sfx[16];
	size_t ls = (size_t)snprintf(sfx, sizeof(sfx), ".%u", idx);
	size_t lb = strlen(base);

	if (lb > RTE_RING_NAMESIZE - 1 - ls)
		lb = RTE_RING_NAMESIZE - 1 - ls;
	memcpy(buf, base, lb);
	memcpy(buf + lb, sfx, ls + 1);
}

struct rtr_pring_pool *
rtr_pring_pool_create(const struct rtr_pring_params *p)
{
	struct rtr_pring_pool *pool;
	size_t head, rsz, rings_sz, total;
	const char *name;
	char rn[RTE_RING_NAMESIZE];
	uint8_t *block;
	unsigned int i;
	int rc;

	if (p == NULL || !params_ok(p->n_rings, p->depth))
		return fail(EINVAL);
	name = p->name != NULL ? p->name : "pring";
	rsz = ring_memsize(p->depth);
	head = pool_head(p->n_rings);
	if (rsz == 0 || __builtin_mul_overflow((size_t)p->n_rings, rsz, &rings_sz) ||
			__builtin_add_overflow(head, rings_sz, &total))
		return fail(ENOMEM);

	if (p->use_rte_malloc) {
		/* zeroes the whole block; ring slots need not be, but it is start-up only */
		pool = rte_zmalloc_socket(name, total, RTE_CACHE_LINE_SIZE, p->socket_id);
		if (pool == NULL)
			return fail(ENOMEM);
	} else {
		void *mem;

		if (posix_memalign(&mem, RTE_CACHE_LINE_SIZE, total) != 0)
			return fail(ENOMEM);
		pool = mem;
		memset(pool, 0, head); /* the rings are initialised below, slots need not be */
	}
	pool->rte_mem = p->use_rte_malloc;
	pool->n_rings = p->n_rings;
	pool->depth = p->depth;
	snprintf(pool->name, sizeof(pool->name), "%s", name);
	pool->free_stack = (uint32_t *)&pool->rings[p->n_rings];
	block = (uint8_t *)pool + head;

	for (i = 0; i < p->n_rings; i++) {
		struct rtr_pring *r = &pool->rings[i];

		r->ring = (struct rte_ring *)(block + (size_t)i * rsz);
		r->pool = pool;
		r->index = (uint16_t)i;
		ring_name(rn, pool->name, i);
		rc = rte_ring_init(r->ring, rn, p->depth, PRING_FLAGS);
		if (rc < 0) {
			if (pool->rte_mem)
				rte_free(pool);
			else
				free(pool);
			return fail(-rc);
		}
		/* acquire hands out 0, 1, 2, ... from a fresh pool */
		pool->free_stack[p->n_rings - 1 - i] = i;
	}
	pool->n_free = p->n_rings;
	return pool;
}

/* Hand up to todo packets of r to emit, oldest first; returns how many. */
static unsigned int
drain(struct rtr_pring *r, unsigned int todo, rtr_pring_emit_fn emit, void *arg)
{
	struct rtr_pring_pool *pool = r->pool;
	void *burst[RTR_PRING_BURST];
	unsigned int done = 0, n, i;

	while (done < todo) {
		n = rte_ring_sc_dequeue_burst(
				r->ring, burst, RTE_MIN(RTR_PRING_BURST, todo - done), NULL);
		if (unlikely(n == 0))
			break; /* count and ring disagree: cannot happen */
		/* counters first: emit may hold packets in this ring again */
		r->count -= n;
		pool->held -= n;
		pool->drained += n;
		done += n;
		for (i = 0; i < n; i++) {
			if (emit != NULL)
				emit(arg, burst[i]);
			else
				rte_pktmbuf_free(burst[i]);
		}
	}
	return done;
}

/* Drain until empty, including what emit puts back meanwhile. */
static unsigned int
drain_all(struct rtr_pring *r, rtr_pring_emit_fn emit, void *arg)
{
	unsigned int total = 0, n;

	while (r->count > 0) {
		n = drain(r, r->count, emit, arg);
		if (n == 0)
			break;
		total += n;
	}
	return total;
}

unsigned int
rtr_pring_pool_free(struct rtr_pring_pool *pool, rtr_pring_emit_fn emit, void *arg)
{
	unsigned int i, n = 0;

	if (pool == NULL)
		return 0;
	for (i = 0; i < pool->n_rings; i++)
		n += drain_all(&pool->rings[i], emit, arg);
	if (pool->rte_mem)
		rte_free(pool);
	else
		free(pool);
	return n;
}

struct rtr_pring *
rtr_pring_acquire(struct rtr_pring_pool *pool, uint64_t owner)
{
	struct rtr_pring *r;

	if (unlikely(pool->n_free == 0)) {
		pool->exhausted++;
		return NULL;
	}
	r = &pool->rings[pool->free_stack[--pool->n_free]];
	r->owner = owner;
	r->in_use = 1;
	pool->acquired++;
	if (++pool->in_use > pool->max_in_use)
		pool->max_in_use = pool->in_use;
	return r;
}

int
rtr_pring_enqueue(struct rtr_pring *r, struct rte_mbuf *m)
{
	struct rtr_pring_pool *pool = r->pool;

	if (unlikely(r->count >= pool->depth || rte_ring_sp_enqueue(r->ring, m) != 0)) {
		pool->full++;
		return -ENOBUFS;
	}
	r->count++;
	pool->held++;
	pool->enqueued++;
	return 0;
}

unsigned int
rtr_pring_resume(struct rtr_pring *r, rtr_pring_emit_fn emit, void *arg)
{
	return drain(r, r->count, emit, arg);
}

void
rtr_pring_release(
		struct rtr_pring_pool *pool, struct rtr_pring *r, rtr_pring_emit_fn emit, void *arg)
{
	if (unlikely(r == NULL || r->pool != pool || !r->in_use))
		return;
	drain_all(r, emit, arg);
	r->in_use = 0;
	r->owner = 0;
	pool->free_stack[pool->n_free++] = r->index;
	pool->in_use--;
	pool->released++;
}

unsigned int
rtr_pring_depth(const struct rtr_pring *r)
{
	return r->count;
}

uint64_t
rtr_pring_owner(const struct rtr_pring *r)
{
	return r->owner;
}

bool
rtr_pring_in_use(const struct rtr_pring *r)
{
	return r->in_use != 0;
}

unsigned int
rtr_pring_index(const struct rtr_pring *r)
{
	return r->index;
}

struct rtr_pring *
rtr_pring_at(struct rtr_pring_pool *pool, unsigned int idx)
{
	return idx < pool->n_rings ? &pool->rings[idx] : NULL;
}

unsigned int
rtr_pring_pool_depth(const struct rtr_pring_pool *pool)
{
	return pool->depth;
}

unsigned int
rtr_pring_pool_rings(const struct rtr_pring_pool *pool)
{
	return pool->n_rings;
}

void
rtr_pring_pool_stats(const struct rtr_pring_pool *pool, struct rtr_pring_stats *out)
{
	out->acquired = pool->acquired;
	out->released = pool->released;
	out->exhausted = pool->exhausted;
	out->full = pool->full;
	out->enqueued = pool->enqueued;
	out->drained = pool->drained;
	out->in_use = pool->in_use;
	out->max_in_use = pool->max_in_use;
	out->held = pool->held;
}

unsigned int
rtr_pring_pool_held(const struct rtr_pring_pool *pool)
{
	return (unsigned int)pool->held;
}
