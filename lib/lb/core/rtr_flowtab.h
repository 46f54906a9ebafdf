/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The per-worker flow table of the stateful LB modes: fixed size, no
 * allocation after creation, no locks (one worker owns it; telemetry only
 * reads). A lookup reads one cache line (issue 34; until then a
 * set-associative table whose lookup was a dependent chain of two or
 * three lines: the bucket's signatures, then the entry with a 38-byte key).
 *
 *   Open addressing over 64-byte slots (a multiple when the value is
 *   larger), neighbourhood ("hopscotch") style: a key lives within
 *   RTR_FT_WINDOW slots of its home slot (the hash's top bits; the last
 *   homes' windows wrap round to slot 0, so a table of N holds at most
 *   N flows and a table of 8 is one fully associative bucket), and the
 *   home slot's `hop` byte says which of those slots hold keys of that
 *   home. A lookup reads the home slot's line: the hop byte, and the key
 *   and hot value of the flow that sits there, which is the flow looked
 *   up whenever its home was free when it came (at the tables' usual load
 *   of a quarter, most flows). Other keys of the home cost one more line
 *   each, in the next slots (adjacent lines).
 *   The key is compact and inline: hash, UDP source port, kind, the v6
 *   flag and the two IPv4 addresses, 16 bytes compared as two words. An
 *   IPv6 flow keeps a 64-bit digest of its addresses there and the
 *   addresses themselves in a side array, compared on a digest match (a
 *   second line, for IPv6 only): no false match either way.
 *   Insert takes a free slot of the window, else the longest idle slot of
 *   the window that has aged (idle longer than aging_ns by the horizon,
 *   and not pinned by the pinned() callback), else reports FULL (the
 *   caller falls back to ECMP and counts it): at most RTR_FT_WINDOW slots
 *   are read, whatever the table holds. rtr_ft_sweep() frees aged slots a
 *   few at a time, so idle flows leave even when nothing collides with
 *   them.
 *
 * Entry (slot): bytes 0-7 last_ns, 8-23 the compact key, 24-25 hop, 26 the
 * slot's displacement from its home, 27 origin + 1, 28-31 the slot's
 * generation, then the caller's value from byte 32: with value_size <= 32
 * a flow is one line.
 *
 * Per-origin limits (doc/security.md): an insert may name its origin (the
 * host port whose packet creates the entry). Each origin can be held to a
 * number of entries (its share of the table) and to a rate of new entries
 * (a GCRA token bucket: rate per second, burst); an insert over either
 * limit is refused like a full window (RTR_FT_LIMIT_SHARE / _RATE, NULL),
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

/* A key lives within this many slots of its home (fewer in a table of
 * fewer slots). 16, not 8: with 8, linear clustering made a window
 * overflow now and then at a quarter full (one flow of 1000 refused in
 * 4096 slots, pkt-faults; 40 of 1M in bench_ftl). */
#define RTR_FT_WINDOW 16
#define RTR_FT_MIN    8    /* slots of the smallest table */
#define RTR_FT_V6     0x01 /* rtr_ft_ckey.flags */

/* A flow's key as callers give it. */
struct rtr_ft_key {
	uint8_t src[16]; /* IPv4: first 4 bytes, rest 0 */
	uint8_t dst[16];
	uint16_t sport; /* host order */
	uint8_t kind;   /* caller's role tag (non-zero) */
	uint8_t v6;
};

/* The compact key, as an entry holds it (16 bytes, compared as two words). */
struct rtr_ft_ckey {
	uint32_t hash;
	uint16_t sport;
	uint8_t kind; /* 0: the slot is empty */
	uint8_t flags;
	uint32_t src; /* IPv4 address; IPv6: the digest's low half */
	uint32_t dst; /* IPv4 address; IPv6: the digest's high half */
};

struct rtr_ft_entry {
	uint64_t last_ns; /* last use; the caller updates it */
	struct rtr_ft_ckey key;
	uint16_t hop;   /* bit d: slot home + d holds a key whose home is this slot */
	uint8_t disp;   /* this slot's key: its home is this slot - disp */
	uint8_t origin; /* the insert's origin + 1; 0: none */
	/* Bumped each time the slot's entry leaves: a reference taken from
	 * an entry (rtr_ft_ref) finds it again only while it is the same
	 * flow's same life (rtr_ft_deref), never a reused slot. */
	uint32_t gen;
	/* value_size bytes, zeroed at insert; 8-byte aligned, since callers
	 * keep uint64_t fields there. */
	_Alignas(8) uint8_t value[];
};

_Static_assert(sizeof(struct rtr_ft_ckey) == 16, "rtr_ft_ckey is two words");
_Static_assert(offsetof(struct rtr_ft_entry, value) == 32, "rtr_ft_entry value at 32");

enum rtr_ft_status {
	RTR_FT_FOUND = 0,
	RTR_FT_NEW,         /* inserted now: value zeroed */
	RTR_FT_FULL,        /* not there and no slot free: NULL returned */
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
	uint32_t entries;        /* home slots: rounded up to a power of two, >= 8 */
	uint32_t value_size;     /* bytes of caller state per entry (<= 4064) */
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

/* The table (fields private to rtr_flowtab.c; here for the inline prefetch). */
struct rtr_ft {
	uint8_t *slots;  /* n_home * stride bytes */
	uint8_t *addr6;  /* n_home * 32 bytes: an IPv6 slot's source and destination */
	uint32_t n_home; /* slots, each the home of the hashes that map to it; 2^k
			  * (a window wraps past the last) */
	uint32_t mask;   /* n_home - 1 */
	uint32_t window; /* min(RTR_FT_WINDOW, n_home) */
	uint32_t shift;  /* home = hash >> shift (the hash's top bits) */
	uint32_t stride; /* bytes per slot, a multiple of 64 */
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
 * The home slot of a flow hash: its top bits. Workers own flows by their
 * RSS hash (lib/rss), not this one; homes still take the top bits, so a
 * table is fully used whatever low bits a worker's share has in common
 * (when workers owned flows by flow_hash % n_workers, low-bit buckets left
 * each worker's table 1/n used).
 */
static inline uint32_t
rtr_ft_home(const struct rtr_ft *t, uint32_t hash)
{
	return t->shift >= 32 ? 0 : hash >> t->shift;
}

/* Slot i (0 .. n_home - 1). */
static inline struct rtr_ft_entry *
rtr_ft_slot_at(const struct rtr_ft *t, uint32_t i)
{
	return (struct rtr_ft_entry *)(t->slots + (size_t)i * t->stride);
}

/*
 * Prefetch for a lookup of hash (a burst prefetches every packet's flow
 * before looking any up, so the misses overlap): step 0 the home slot's
 * line (and its second line when a slot has two); step 1, once step 0 has
 * landed, the slots other than the home that hold keys of this home (its
 * hop byte): a flow that found its home taken when it came sits in one of
 * them, and without this its lookup would wait for that line (at a
 * quarter full, about one flow in four). Changes nothing.
 * (rte_prefetch0 is inline asm: GCC dropped __builtin_prefetch here under
 * DPDK's -march=corei7.)
 */
static inline void
rtr_ft_prefetch(const struct rtr_ft *t, uint32_t hash, unsigned int step)
{
	const uint32_t home = rtr_ft_home(t, hash);
	const uint8_t *s = (const uint8_t *)rtr_ft_slot_at(t, home);

	if (step == 0) {
		rte_prefetch0(s);
		if (t->stride > 64)
			rte_prefetch0(s + 64);
		return;
	}
	for (uint32_t m = ((const struct rtr_ft_entry *)s)->hop & ~1u; m != 0; m &= m - 1)
		rte_prefetch0(rtr_ft_slot_at(t, (home + (uint32_t)__builtin_ctz(m)) & t->mask));
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

/* Remove an entry returned by rtr_ft_lookup/rtr_ft_next (again: no effect). */
void rtr_ft_remove(struct rtr_ft *t, struct rtr_ft_entry *e);

/* Free aged, unpinned entries among the next n slots (round robin);
 * returns how many were freed. */
unsigned int rtr_ft_sweep(struct rtr_ft *t, uint64_t now_ns, unsigned int n);

/* Iterate: *cursor starts at 0; returns the next used entry or NULL. */
struct rtr_ft_entry *rtr_ft_next(const struct rtr_ft *t, uint32_t *cursor);

/* The full key of a used entry (IPv6 addresses from the side array). */
void rtr_ft_key_of(const struct rtr_ft *t, const struct rtr_ft_entry *e, struct rtr_ft_key *k);

/* Slots: the most flows the table holds. */
uint32_t rtr_ft_capacity(const struct rtr_ft *t);
void rtr_ft_get_stats(const struct rtr_ft *t, struct rtr_ft_stats *s);

/* Bytes rtr_ft_create takes for p (for memory planning). */
size_t rtr_ft_memsize(const struct rtr_ft_params *p);

/* A reference to entry e that a packet can carry (in its mbuf) to a later
 * stage: the slot index; with e->gen, rtr_ft_deref finds e again without a
 * lookup. */
static inline uint32_t
rtr_ft_ref(const struct rtr_ft *t, const struct rtr_ft_entry *e)
{
	return (uint32_t)(((const uint8_t *)e - t->slots) / t->stride);
}

/* The entry a reference (slot idx, generation gen) was taken from, if it is
 * still there: NULL when the slot is out of range, free, or has been freed
 * since (aged, evicted, removed; reused or not). Never an entry of another
 * flow, nor of a later life of the same flow. */
static inline struct rtr_ft_entry *
rtr_ft_deref(const struct rtr_ft *t, uint32_t idx, uint32_t gen)
{
	struct rtr_ft_entry *e;

	if (idx >= t->n_home)
		return NULL;
	e = rtr_ft_slot_at(t, idx);
	return e->key.kind != 0 && e->gen == gen ? e : NULL;
}

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
rtr_ft_flow_info(struct rtr_lb_flow_info *fi, const struct rtr_ft *t, const struct rtr_ft_entry *e,
		uint64_t now)
{
	struct rtr_ft_key k;

	rtr_ft_key_of(t, e, &k);
	memset(fi, 0, sizeof(*fi));
	memcpy(fi->src, k.src, 16);
	memcpy(fi->dst, k.dst, 16);
	fi->v6 = k.v6;
	fi->sport = k.sport;
	fi->idle_ns = now > e->last_ns ? now - e->last_ns : 0;
}

#endif /* RTR_FLOWTAB_H */
