/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The per-worker flow table of the stateful LB modes: fixed size, set
 * associative (8 ways per bucket), no allocation after creation, no locks
 * (one worker owns it; telemetry only reads).
 *
 *   bucket = hash & (n_buckets - 1); 8 signatures of one bucket share half a
 *   cache line, so a lookup reads that line and, on a signature match, the
 *   entry (key + the caller's value, 64-byte aligned);
 *   insert takes an empty way, else the least recently used way that has
 *   aged (idle longer than aging_ns and not pinned by the pinned() callback),
 *   else reports FULL: the caller falls back to ECMP and counts it;
 *   rtr_ft_sweep() walks a few buckets per call and frees aged entries, so
 *   idle flows leave even when nothing collides with them.
 *
 * Keys are exact (both addresses, the UDP source port, a kind byte that lets
 * one table hold several roles of a flow), never just a hash.
 *
 * Per-origin limits (doc/security.md): an insert may name its origin (the
 * host port whose packet creates the entry). Each origin can be held to a
 * number of entries (its share of the table) and to a rate of new entries
 * (a GCRA token bucket: rate per second, burst); an insert over either
 * limit is refused like a full bucket (RTR_FT_LIMIT_SHARE / _RATE, NULL),
 * so one host cannot fill the table and push the other hosts' new flows
 * to ECMP. Entries of RTR_FT_ORIGIN_NONE (the fabric's) are not limited.
 */
#ifndef RTR_FLOWTAB_H
#define RTR_FLOWTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_prefetch.h>

#include "rtr_lb_clock.h"
#include "rtr_lb_counters.h"
#include "rtr_lb_flow.h"
#include "rtr_parse.h"
#include "rtr_stats.h"

#define RTR_FT_WAYS 8

struct rtr_ft_key {
	uint8_t src[16]; /* IPv4: first 4 bytes, rest 0 */
	uint8_t dst[16];
	uint16_t sport; /* host order */
	uint8_t kind;   /* caller's role tag (non-zero) */
	uint8_t v6;
};

struct rtr_ft_entry {
	uint64_t last_ns; /* last use; the caller updates it */
	struct rtr_ft_key key;
	uint32_t hash;
	uint32_t origin; /* the insert's origin + 1; 0: none */
	/* value_size bytes, zeroed at insert; 8-byte aligned, since callers
	 * keep uint64_t fields there (the key leaves it at offset 52). */
	_Alignas(8) uint8_t value[];
};

_Static_assert(offsetof(struct rtr_ft_entry, value) % 8 == 0, "rtr_ft_entry value alignment");

enum rtr_ft_status {
	RTR_FT_FOUND = 0,
	RTR_FT_NEW,         /* inserted now: value zeroed */
	RTR_FT_FULL,        /* not there and no way free: NULL returned */
	RTR_FT_ABSENT,      /* not there, insert not asked: NULL returned */
	RTR_FT_LIMIT_SHARE, /* not there, the origin holds its share: NULL */
	RTR_FT_LIMIT_RATE,  /* not there, the origin is over its rate: NULL */
};

#define RTR_FT_ORIGINS     32     /* origins 0..31 (DPDK port ids) */
#define RTR_FT_ORIGIN_NONE 0xffff /* an insert not counted to any origin */

/* Limits of one origin in one table; zero fields mean unlimited. */
struct rtr_ft_limit {
	uint32_t max_entries; /* entries it may hold at once */
	uint32_t rate;        /* new entries per second */
	uint32_t burst;       /* new entries at once above the rate (>= 1) */
};

/* Whether an entry must stay even when idle (it holds packets). */
typedef bool (*rtr_ft_pinned_fn)(const struct rtr_ft_entry *e);

struct rtr_ft_params {
	const char *name;
	uint32_t entries;        /* rounded up to a power of two, at least 8 */
	uint32_t value_size;     /* bytes of caller state per entry */
	uint64_t aging_ns;       /* idle time after which an entry may go */
	rtr_ft_pinned_fn pinned; /* NULL: nothing is pinned */
	int socket_id;
	bool use_rte_malloc; /* false: posix_memalign (unit tests, no EAL) */
	/* Per-origin limits, indexed by origin; NULL: none. */
	const struct rtr_ft_limit *limits;
};

struct rtr_ft_stats {
	uint64_t inserted;
	uint64_t evicted;     /* aged entries reused by an insert */
	uint64_t aged;        /* aged entries freed by the sweep */
	uint64_t full;        /* inserts refused */
	uint32_t in_use;      /* entries now */
	uint64_t limit_share; /* inserts refused: origin at its share */
	uint64_t limit_rate;  /* inserts refused: origin over its rate */
};

/* Per-origin state (private). */
struct rtr_ft_origin {
	uint32_t in_use;
	uint32_t max_entries;  /* 0: unlimited */
	uint64_t interval_ns;  /* 1e9 / rate; 0: unlimited */
	uint64_t tolerance_ns; /* (burst - 1) * interval_ns */
	uint64_t tat;          /* GCRA theoretical arrival time */
	uint64_t limit_share;  /* refusals */
	uint64_t limit_rate;
};

struct rtr_ft_bucket {
	uint32_t sig[RTR_FT_WAYS]; /* 0 = empty way */
};

/* The table (fields private to rtr_flowtab.c; here for the inline prefetch). */
struct rtr_ft {
	struct rtr_ft_bucket *buckets;
	uint8_t *entries; /* n_buckets * WAYS * stride bytes */
	uint32_t n_buckets;
	uint32_t mask;
	uint32_t shift; /* bucket = hash >> shift (the hash's top bits) */
	uint32_t stride;
	uint32_t value_size;
	uint32_t sweep_cursor;
	uint64_t aging_ns;
	rtr_ft_pinned_fn pinned;
	/* Aging judges idle time by this horizon (rtr_lb_clock.h); NULL:
	 * by the caller's now_ns. */
	const struct rtr_lb_clock *clock;
	bool rte;
	bool limited; /* some origin has a limit */
	struct rtr_ft_stats st;
	void *block;
	struct rtr_ft_origin origin[RTR_FT_ORIGINS];
};

/*
 * The bucket of a flow hash: its top bits. Workers own flows by their RSS
 * hash (lib/rss), not this one; the buckets still take the top bits, so a
 * table is fully used whatever low bits a worker's share has in common
 * (when workers owned flows by flow_hash % n_workers, low-bit buckets left
 * each worker's table 1/n used: with 2 workers, 2% of 1K flows found their
 * bucket full in a table 4 x their number).
 */
static inline uint32_t
rtr_ft_bucket(const struct rtr_ft *t, uint32_t hash)
{
	return t->shift >= 32 ? 0 : hash >> t->shift;
}

/* The entry in way `way` of bucket b. */
static inline struct rtr_ft_entry *
rtr_ft_entry_at(const struct rtr_ft *t, uint32_t b, unsigned int way)
{
	return (struct rtr_ft_entry *)(t->entries + ((size_t)b * RTR_FT_WAYS + way) * t->stride);
}

/*
 * The ways of a bucket whose signature is sig, as a bit mask, without a
 * branch per way: which way holds a flow is random, so a loop that stops
 * at the first match mispredicts once per packet.
 */
static inline uint32_t
rtr_ft_sig_match(const struct rtr_ft_bucket *bk, uint32_t sig)
{
	uint32_t mask = 0;

	for (unsigned int w = 0; w < RTR_FT_WAYS; w++)
		mask |= (uint32_t)(bk->sig[w] == sig) << w;
	return mask;
}

/*
 * Prefetch for a lookup of hash (a burst prefetches every packet's flow
 * before looking any up, so the misses overlap): step 0 the bucket's
 * signature line, step 1 (once step 0 has landed) the lines of the first
 * entry whose signature matches. Reads nothing else, changes nothing.
 * (rte_prefetch0 is inline asm: GCC dropped __builtin_prefetch here under
 * DPDK's -march=corei7.)
 */
static inline void
rtr_ft_prefetch(const struct rtr_ft *t, uint32_t hash, unsigned int step)
{
	const uint32_t b = rtr_ft_bucket(t, hash);
	const struct rtr_ft_bucket *bk = &t->buckets[b];
	uint32_t sig = hash != 0 ? hash : 1;

	if (step == 0) {
		rte_prefetch0(bk);
		return;
	}
	uint32_t mask = rtr_ft_sig_match(bk, sig);

	if (mask != 0) {
		const uint8_t *e = (const uint8_t *)rtr_ft_entry_at(
				t, b, (unsigned int)__builtin_ctz(mask));

		rte_prefetch0(e);
		/* The second line only when the entry has one: with 64-byte
		 * entries (SeqBalance, CAVER) it would be the next entry, a
		 * wasted DRAM fetch per packet with 1M flows (doc/performance.md). */
		if (t->stride > 64)
			rte_prefetch0(e + 64);
	}
}

struct rtr_ft *rtr_ft_create(const struct rtr_ft_params *p);
void rtr_ft_free(struct rtr_ft *t);

/*
 * Find the entry of key k (hash: any well-mixed 32-bit hash of k; the same
 * key must always come with the same hash). With insert, a missing key is
 * added, counted to `origin` (0..RTR_FT_ORIGINS-1, or RTR_FT_ORIGIN_NONE)
 * and subject to its limits. *status says which case happened.
 */
struct rtr_ft_entry *rtr_ft_lookup(struct rtr_ft *t, const struct rtr_ft_key *k, uint32_t hash,
		uint64_t now_ns, bool insert, unsigned int origin, enum rtr_ft_status *status);

/* Entries origin holds now (0 for RTR_FT_ORIGIN_NONE). */
uint32_t rtr_ft_origin_in_use(const struct rtr_ft *t, unsigned int origin);

/* Per-origin figures: entries held now, inserts refused by each limit. */
void rtr_ft_origin_stats(const struct rtr_ft *t, unsigned int origin, uint64_t *in_use,
		uint64_t *limit_share, uint64_t *limit_rate);

/* The LB counter of an insert that returned NULL with status st. */
static inline void
rtr_ft_count_refusal(enum rtr_ft_status st, uint64_t *c)
{
	if (st == RTR_FT_LIMIT_SHARE)
		c[RTR_LBC_flow_limit_share]++;
	else if (st == RTR_FT_LIMIT_RATE)
		c[RTR_LBC_flow_limit_rate]++;
	else
		c[RTR_LBC_flow_table_full]++;
}

/* Remove an entry returned by rtr_ft_lookup/rtr_ft_next. */
void rtr_ft_remove(struct rtr_ft *t, struct rtr_ft_entry *e);

/* Free aged, unpinned entries in the next n buckets (round robin); returns
 * how many were freed. */
unsigned int rtr_ft_sweep(struct rtr_ft *t, uint64_t now_ns, unsigned int n);

/* Iterate: *cursor starts at 0; returns the next used entry or NULL. */
struct rtr_ft_entry *rtr_ft_next(struct rtr_ft *t, uint32_t *cursor);

uint32_t rtr_ft_capacity(const struct rtr_ft *t);
void rtr_ft_get_stats(const struct rtr_ft *t, struct rtr_ft_stats *s);

/* Bytes rtr_ft_create takes for p (for memory planning). */
size_t rtr_ft_memsize(const struct rtr_ft_params *p);

static inline void *
rtr_ft_value(struct rtr_ft_entry *e)
{
	return e->value;
}

/* The flow key (src, dst, sport; kind) of a parsed IP packet, or of the data
 * packet a control packet answers (reverse: addresses swapped). */
static inline void
rtr_ft_key_from_frame(struct rtr_ft_key *k, const uint8_t *frame, const struct rtr_meta *m,
		uint8_t kind, bool reverse)
{
	const uint8_t *l3 = frame + m->l3_off;
	const uint8_t *a, *b;
	unsigned int n;

	memset(k, 0, sizeof(*k));
	if (m->l3 == RTR_L3_IPV4) {
		a = l3 + 12;
		b = l3 + 16;
		n = 4;
	} else {
		a = l3 + 8;
		b = l3 + 24;
		n = 16;
		k->v6 = 1;
	}
	memcpy(k->src, reverse ? b : a, n);
	memcpy(k->dst, reverse ? a : b, n);
	k->sport = m->sport;
	k->kind = kind;
}

/* What the table knows of an entry's flow for its telemetry record
 * (/rocetor/lb/flows): the key and the idle time at now; the rest zeroed,
 * for the mode to fill. */
static inline void
rtr_ft_flow_info(struct rtr_lb_flow_info *fi, const struct rtr_ft_entry *e, uint64_t now)
{
	memset(fi, 0, sizeof(*fi));
	memcpy(fi->src, e->key.src, 16);
	memcpy(fi->dst, e->key.dst, 16);
	fi->v6 = e->key.v6;
	fi->sport = e->key.sport;
	fi->idle_ns = now > e->last_ns ? now - e->last_ns : 0;
}

#endif /* RTR_FLOWTAB_H */
