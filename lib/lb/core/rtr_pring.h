/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Pausable rings: the reorder queues of a ConWeave destination ToR
 * (ALGORITHMS.md 2.3, the design card's "mbuf rings as pausable queues").
 *
 * A pool holds n_rings rte_rings of `depth` mbufs each; there is one pool per
 * (worker lcore, host port) and only that worker uses it, so the rings are
 * single-producer / single-consumer and nothing here is locked.
 *
 *   acquire  a flow that must pause takes a free ring (NULL when none is free:
 *            counted in stats.exhausted; the caller forwards directly, nothing
 *            is dropped here);
 *   enqueue  while paused the flow's packets go into its ring (-ENOBUFS when
 *            full: counted in stats.full, the packet is not taken);
 *   resume   the held packets are handed, oldest first, to an emit callback
 *            that puts them into the egress class queue; the caller must do
 *            this before any later packet of the flow is queued;
 *   release  anything still held is emitted, then the ring goes back to the
 *            pool.
 *
 * The rings are not created with rte_ring_create() (one memzone each would
 * exhaust RTE_MAX_MEMZONE): one block holds all of them and each is set up
 * in place with rte_ring_init(RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ),
 * so exactly `depth` mbufs fit. The block takes rtr_pring_memsize() bytes.
 * The pool never dereferences an mbuf pointer: it neither reads nor frees
 * packets (unless given a NULL emit function, see rtr_pring_emit_fn).
 *
 * Per-flow state can store rtr_pring_index() (fits 16 bits) instead of a
 * pointer and get the handle back with rtr_pring_at().
 *
 * See doc/pausable-rings.md.
 */
#ifndef RTR_PRING_H
#define RTR_PRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rte_mbuf;

#define RTR_PRING_MAX_RINGS 65536u /* n_rings limit */
#define RTR_PRING_MAX_DEPTH 65536u /* depth limit */
#define RTR_PRING_BURST     32u    /* dequeue burst of resume and release */

struct rtr_pring_pool; /* opaque */
struct rtr_pring;      /* one ring of a pool; opaque */

/*
 * Receives every packet a ring gives back, oldest first. Wherever an emit
 * function is taken, NULL means rte_pktmbuf_free() (shutdown paths only: the
 * pool itself never reads a packet). It must not release the ring it is
 * called for. Packets it enqueues into that ring stay held during
 * rtr_pring_resume() (for the next resume), and are drained too during
 * rtr_pring_release() and rtr_pring_pool_free().
 */
typedef void (*rtr_pring_emit_fn)(void *arg, struct rte_mbuf *m);

struct rtr_pring_params {
	const char *name;     /* for rte_malloc and ring names; NULL: "pring" */
	unsigned int n_rings; /* 1..RTR_PRING_MAX_RINGS */
	unsigned int depth;   /* mbufs per ring, 1..RTR_PRING_MAX_DEPTH */
	int socket_id;        /* NUMA socket (or SOCKET_ID_ANY) for rte_malloc */
	bool use_rte_malloc;  /* true: rte_zmalloc_socket (needs the EAL);
			      * false: posix_memalign (unit tests, no EAL) */
};

struct rtr_pring_stats {
	uint64_t acquired;   /* successful rtr_pring_acquire() */
	uint64_t released;   /* rtr_pring_release() of an owned ring */
	uint64_t exhausted;  /* rtr_pring_acquire() that found no free ring */
	uint64_t full;       /* rtr_pring_enqueue() refused: ring full */
	uint64_t enqueued;   /* packets taken by rtr_pring_enqueue() */
	uint64_t drained;    /* packets handed to an emit callback */
	uint32_t in_use;     /* rings owned now */
	uint32_t max_in_use; /* highest in_use since creation */
	uint64_t held;       /* packets in all rings now (enqueued - drained) */
};

/*
 * Bytes of the block that holds the rings of a pool of n_rings x depth:
 * n_rings * rte_ring_get_memsize(rte_align32pow2(depth + 1)), since an
 * exact-size ring of depth d has a power-of-two size above d (so d = 2^k - 1
 * wastes nothing, d = 2^k doubles the slots). 0 when the parameters are
 * outside the limits. Needs no EAL.
 */
size_t rtr_pring_memsize(unsigned int n_rings, unsigned int depth);

/* Bytes rtr_pring_pool_create() allocates for n_rings x depth: the block
 * above and the pool's header (ring handles, free stack); 0 outside the
 * limits. Needs no EAL (memory planning). */
size_t rtr_pring_pool_memsize(unsigned int n_rings, unsigned int depth);

/*
 * Create a pool: all n_rings rings free, each empty. Returns NULL with
 * rte_errno and errno set on failure: EINVAL (NULL p, n_rings or depth 0 or
 * above the limits, or n_rings * depth above UINT32_MAX, i.e. only
 * 65536 x 65536), ENOMEM. Without use_rte_malloc no EAL is needed.
 */
struct rtr_pring_pool *rtr_pring_pool_create(const struct rtr_pring_params *p);

/*
 * Free a pool. Packets still held in any ring (owned or not released by the
 * caller) are first handed to emit, ring by ring in index order, oldest first
 * within a ring. Returns how many packets were drained. NULL pool: returns 0.
 */
unsigned int rtr_pring_pool_free(struct rtr_pring_pool *pool, rtr_pring_emit_fn emit, void *arg);

/*
 * Take a free ring for the flow `owner` (any value; kept for telemetry).
 * The most recently released ring is reused first (warm in cache). Returns
 * NULL when every ring is owned: counted in stats.exhausted; nothing is
 * dropped, the caller forwards the flow's packets directly.
 */
struct rtr_pring *rtr_pring_acquire(struct rtr_pring_pool *pool, uint64_t owner);

/*
 * Hold m at the tail of r. Returns 0, or -ENOBUFS when r already holds
 * `depth` packets (counted in stats.full): m is then NOT taken and the
 * caller still owns it (forward it directly, after resuming r if order
 * matters).
 */
int rtr_pring_enqueue(struct rtr_pring *r, struct rte_mbuf *m);

/*
 * Hand every packet held in r when called to emit, oldest first (dequeued
 * in bursts of RTR_PRING_BURST), and return how many. Packets enqueued by
 * someone else during the call stay held. r stays owned by its flow, which
 * may pause again. The caller must put the emitted packets into the egress
 * queue before any later packet of the flow.
 */
unsigned int rtr_pring_resume(struct rtr_pring *r, rtr_pring_emit_fn emit, void *arg);

/*
 * Resume r until it is empty and return it to the pool. Releasing a ring that is not owned does nothing (not counted), so a
 * double release cannot hand one ring to two flows.
 */
void rtr_pring_release(struct rtr_pring_pool *pool, struct rtr_pring *r, rtr_pring_emit_fn emit,
		void *arg);

/* Packets held in r now (0..depth). */
unsigned int rtr_pring_depth(const struct rtr_pring *r);

/* The owner given to rtr_pring_acquire(); 0 when r is free. */
uint64_t rtr_pring_owner(const struct rtr_pring *r);

/* Whether r is owned by a flow (between acquire and release). */
bool rtr_pring_in_use(const struct rtr_pring *r);

/* Index of r in its pool, 0..n_rings-1 (fits a uint16_t). */
unsigned int rtr_pring_index(const struct rtr_pring *r);

/* The ring at index idx, owned or not; NULL when idx >= n_rings. */
struct rtr_pring *rtr_pring_at(struct rtr_pring_pool *pool, unsigned int idx);

/* Ring capacity (the depth parameter) and ring count of a pool. */
unsigned int rtr_pring_pool_depth(const struct rtr_pring_pool *pool);
unsigned int rtr_pring_pool_rings(const struct rtr_pring_pool *pool);

/*
 * Copy the counters. Exact on the owning lcore; another thread (telemetry)
 * may read them but gets values that can be a few operations old.
 */
void rtr_pring_pool_stats(const struct rtr_pring_pool *pool, struct rtr_pring_stats *out);

/* Packets held in all rings of the pool now (a maintained counter). */
unsigned int rtr_pring_pool_held(const struct rtr_pring_pool *pool);

#endif /* RTR_PRING_H */
