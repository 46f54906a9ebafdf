/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * A flow table whose lookup reads one cache line (issue 34): the candidate
 * to replace rtr_flowtab's set-associative table, whose lookup is a
 * dependent chain of two or three lines (the bucket's signatures, then the
 * entry, with its 38-byte key). Not wired into any mode yet.
 *
 *   Open addressing over 64-byte slots (a multiple when the value is
 *   larger), neighbourhood ("hopscotch") style: a key lives within
 *   RTR_FTL_WINDOW slots of its home slot (the hash's top bits), and the
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
 *   and not pinned), else refuses (RTR_FT_FULL): at most RTR_FTL_WINDOW
 *   slots are read, whatever the table holds. rtr_ftl_sweep() frees aged
 *   slots a few at a time.
 *
 * Slot: bytes 0-7 last_ns, 8-23 the key, 24 hop, 25 the slot's
 * displacement from its home, 26 origin + 1, then the caller's value from
 * byte 32: with value_size <= 32 a flow is one line.
 */
#ifndef RTR_FTL_H
#define RTR_FTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_prefetch.h>

#include "rtr_flowtab.h"
#include "rtr_lb_clock.h"

#define RTR_FTL_WINDOW 8
#define RTR_FTL_V6     0x01 /* rtr_ftl_key.flags */

/* The compact key, as a slot holds it (16 bytes, compared as two words). */
struct rtr_ftl_key {
	uint32_t hash;
	uint16_t sport;
	uint8_t kind; /* 0: the slot is empty */
	uint8_t flags;
	uint32_t src; /* IPv4 address; IPv6: the digest's low half */
	uint32_t dst; /* IPv4 address; IPv6: the digest's high half */
};

struct rtr_ftl_slot {
	uint64_t last_ns; /* last use; the caller updates it */
	struct rtr_ftl_key key;
	uint8_t hop;    /* bit d: slot home + d holds a key whose home is this slot */
	uint8_t disp;   /* this slot's key: its home is this slot - disp */
	uint8_t origin; /* the insert's origin + 1; 0: none */
	uint8_t rsv[5];
	_Alignas(8) uint8_t value[]; /* value_size bytes, zeroed at insert */
};

_Static_assert(sizeof(struct rtr_ftl_key) == 16, "rtr_ftl_key is two words");
_Static_assert(offsetof(struct rtr_ftl_slot, value) == 32, "rtr_ftl_slot value at 32");

typedef bool (*rtr_ftl_pinned_fn)(const struct rtr_ftl_slot *s);

struct rtr_ftl_params {
	const char *name;
	uint32_t entries;         /* home slots: rounded up to a power of two, >= 8 */
	uint32_t value_size;      /* bytes of caller state per slot (<= 4064) */
	uint64_t aging_ns;        /* idle time after which a slot may go */
	rtr_ftl_pinned_fn pinned; /* NULL: nothing is pinned */
	int socket_id;
	bool use_rte_malloc; /* false: posix_memalign (unit tests, no EAL) */
};

struct rtr_ftl {
	uint8_t *slots;  /* total * stride bytes */
	uint8_t *addr6;  /* total * 32 bytes: an IPv6 slot's source and destination */
	uint32_t n_home; /* home slots, 2^k */
	uint32_t total;  /* n_home + WINDOW - 1: windows never wrap */
	uint32_t shift;  /* home = hash >> shift */
	uint32_t stride; /* bytes per slot, a multiple of 64 */
	uint32_t value_size;
	uint32_t sweep_cursor;
	uint64_t aging_ns;
	rtr_ftl_pinned_fn pinned;
	const struct rtr_lb_clock *clock; /* NULL: idle by the caller's now_ns */
	bool rte;
	struct rtr_ft_stats st;
	void *block;
};

static inline uint32_t
rtr_ftl_home(const struct rtr_ftl *t, uint32_t hash)
{
	return t->shift >= 32 ? 0 : hash >> t->shift;
}

static inline struct rtr_ftl_slot *
rtr_ftl_slot_at(const struct rtr_ftl *t, uint32_t i)
{
	return (struct rtr_ftl_slot *)(t->slots + (size_t)i * t->stride);
}

/* The one line a lookup of hash reads first (a burst prefetches every
 * packet's before looking any up). */
static inline void
rtr_ftl_prefetch(const struct rtr_ftl *t, uint32_t hash)
{
	rte_prefetch0(rtr_ftl_slot_at(t, rtr_ftl_home(t, hash)));
}

struct rtr_ftl *rtr_ftl_create(const struct rtr_ftl_params *p);
void rtr_ftl_free(struct rtr_ftl *t);
size_t rtr_ftl_memsize(const struct rtr_ftl_params *p);

/*
 * Find the slot of key k (hash: any well-mixed 32-bit hash of k, always the
 * same for the same key); with insert, add it when missing, counted to
 * origin (RTR_FT_ORIGIN_NONE: none). *status: RTR_FT_FOUND, RTR_FT_NEW (the
 * value zeroed), RTR_FT_ABSENT (not there, insert not asked) or RTR_FT_FULL
 * (no free or aged slot in the window: NULL).
 */
struct rtr_ftl_slot *rtr_ftl_lookup(struct rtr_ftl *t, const struct rtr_ft_key *k, uint32_t hash,
		uint64_t now_ns, bool insert, unsigned int origin, enum rtr_ft_status *status);

/* Remove a slot rtr_ftl_lookup or rtr_ftl_next returned (again: no effect). */
void rtr_ftl_remove(struct rtr_ftl *t, struct rtr_ftl_slot *s);

/* Free aged, unpinned slots among the next n (round robin); returns how
 * many were freed. */
unsigned int rtr_ftl_sweep(struct rtr_ftl *t, uint64_t now_ns, unsigned int n);

/* Iterate: *cursor starts at 0; returns the next used slot or NULL. */
struct rtr_ftl_slot *rtr_ftl_next(const struct rtr_ftl *t, uint32_t *cursor);

/* The full key of a used slot (the IPv6 addresses from the side array). */
void rtr_ftl_key_of(const struct rtr_ftl *t, const struct rtr_ftl_slot *s, struct rtr_ft_key *k);

uint32_t rtr_ftl_capacity(const struct rtr_ftl *t);

static inline void *
rtr_ftl_value(struct rtr_ftl_slot *s)
{
	return s->value;
}

#endif /* RTR_FTL_H */
