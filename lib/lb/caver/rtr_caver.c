/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * CAVER, ALGORITHMS.md 4. rtr_caver.h has the wire formats; this file the
 * state: the DRE of each egress port (private per worker, published for the
 * others), the path congestion table shared by the workers of a switch, and
 * the per-worker flow table of the SrcToR.
 */

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "caver_config.h"
#include "rtr_caver.h"
#include "rtr_cksum.h"
#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "rtr_lb_fs.h"
#include "rtr_lb_mem.h"
#include "rtr_stats.h"

#define NEVER    UINT64_MAX
#define KIND_SRC 1
#define AETH_LEN 4
/* Linear probes of the host table: a lookup of an absent host stays cheap
 * even when the table is nearly full (the host then counts as "no room"). */
#define MAX_PROBE 32

/*
 * Path-table word (0 = never written, or swept):
 *
 *   63..40  path >> 8: hops 0..2 of the advertised path, all that a rewrite
 *           ((port << 24) | path >> 8) or the next hop (byte 0) reads
 *   39..32  ce
 *   31      valid (a word with everything else 0 is still an entry)
 *   30..29  hops, clamped to 3 (> 0: path byte 0 is a real hop)
 *   28..0   update time in units of 2^tshift ns, modulo 2^29
 *
 * The age is the signed 29-bit difference to now: an entry written by a
 * worker whose clock read is a little ahead of the reader's is age 0, not
 * ancient. Aging is at most 2^27 units and the sweep visits every word
 * within 2^26 units of pace, so an entry is cleared long before its age could
 * wrap past 2^28 and look fresh again.
 */
#define W_TBITS     29
#define W_TMASK     ((1ULL << W_TBITS) - 1)
#define W_HOPS_SH   29
#define W_VALID     (1ULL << 31)
#define W_CE_SH     32
#define W_PATH_SH   40
#define AGING_MAX_U (1ULL << 27)
#define SWEEP_U     (1ULL << 26) /* a worker sweeps its share within this many units */
#define SWEEP_MIN   8            /* host slots per tick at least */

/* ------------------------------------------------------------------ state */

struct rtr_caver_shared {
	/* Published DRE bytes: each worker writes its row only. */
	_Atomic uint64_t dre[RTR_MAX_LCORES][RTR_MAX_PORTS];
	_Atomic uint32_t *keys;                 /* IPv4 (network order), 0 = free */
	_Atomic uint64_t (*ent)[RTR_MAX_PORTS]; /* [slot][port] */
	uint32_t cap;                           /* power of two */
	unsigned int tshift;                    /* time unit: 2^tshift ns */
	bool rte;
};

/* One SrcToR flow. */
struct cv_flow {
	uint16_t group;
	uint8_t path;
	uint8_t next_hop; /* RTR_LB_HOP_NONE: no source route */
	uint8_t ce;
	uint8_t by_table;
};

struct rtr_caver {
	struct rtr_lb_fs fs; /* first: the flow-state base (rtr_lb_fs.h) */
	struct rtr_caver_params p;
	struct rtr_caver_shared *s;
	struct rtr_caver_host *hosts;
	/*
	 * Which attached host the next ACK advertises, per uplink: rounds in
	 * which every host is advertised once, each round rotated by a random
	 * offset. ACK streams are periodic (flow 1, 2, ..., k, 1, ...): with
	 * one plain round robin, host h would always ride the ACKs of flow
	 * (h mod k), hence always the same uplink and spine port, and the
	 * switches upstream would learn each host on one port only (seen in
	 * the leaf-spine test: every spine choice came from a single entry).
	 */
	uint16_t rr_pos[RTR_MAX_PORTS]; /* position in the round */
	uint16_t rr_off[RTR_MAX_PORTS]; /* rotation of the round */
	uint64_t rng;
	uint64_t aging_u;            /* aging in table time units */
	double keep;                 /* 1 - alpha */
	double qscale;               /* 2^Q */
	double denom[RTR_MAX_PORTS]; /* rate_bps * period_s / alpha, in bits */
	double x[RTR_MAX_PORTS];     /* this worker's DRE, bytes */
	uint64_t dre_next;           /* next period boundary, 0 before the first tick */
	uint64_t sweep_last;         /* when the path-table sweep last ran */
	uint32_t sweep_cur;          /* this worker's next slot (of its share) */
};

/* ------------------------------------------------------------------ helpers */

static inline uint64_t
rng_next(struct rtr_caver *cv)
{
	/* splitmix64 */
	uint64_t z = (cv->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Reservoir sampling over ties: the n-th equal candidate wins with 1/n. */
static inline bool
take_tie(struct rtr_caver *cv, unsigned int n)
{
	return ((rng_next(cv) >> 32) * n) >> 32 == 0;
}

static inline bool
is_host_port(const struct rtr_caver *cv, unsigned int port)
{
	return port < RTR_MAX_PORTS && (cv->p.host_port_mask & (1u << port));
}

static inline bool
is_fabric_port(const struct rtr_caver *cv, unsigned int port)
{
	return port < RTR_MAX_PORTS && (cv->p.fabric_port_mask & (1u << port));
}

static inline uint16_t
ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
st16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline uint32_t
ld32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void
st32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* IPv4 total length += delta with the header checksum updated as RFC 1624
 * eqn. 3 does: removing the shim brings back the original checksum exactly
 * (a full recompute would also "repair" one that was wrong). */
static void
ip4_len_add(uint8_t *ip, int delta)
{
	uint16_t old = ld16(ip + 2), new = (uint16_t)(old + delta);

	st16(ip + 2, new);
	st16(ip + 10, rtr_cksum_update16(ld16(ip + 10), old, new));
}

static inline uint8_t *
bth_of(uint8_t *frame, const struct rtr_meta *m)
{
	return frame + rtr_meta_bth_off(m);
}

static inline uint32_t
udp_len_of(const uint8_t *frame, const struct rtr_meta *m)
{
	return ld16(frame + m->l4_off + 4);
}

/* ------------------------------------------------------------------ path table */

static inline uint32_t
t_units(const struct rtr_caver_shared *s, uint64_t now)
{
	return (uint32_t)((now >> s->tshift) & W_TMASK);
}

/* Signed age of a word in time units (future stamps: 0). */
static inline uint64_t
w_age(const struct rtr_caver_shared *s, uint64_t w, uint64_t now)
{
	uint64_t d = ((uint64_t)t_units(s, now) - (w & W_TMASK)) & W_TMASK;

	return d >= (1ULL << (W_TBITS - 1)) ? 0 : d;
}

static inline bool
w_valid(const struct rtr_caver *cv, uint64_t w, uint64_t now)
{
	return (w & W_VALID) && w_age(cv->s, w, now) < cv->aging_u;
}

static inline uint64_t
w_make(const struct rtr_caver_shared *s, uint32_t path, uint8_t ce, uint8_t hops, uint64_t now)
{
	return (uint64_t)(path >> 8) << W_PATH_SH | (uint64_t)ce << W_CE_SH | W_VALID |
	       (uint64_t)RTE_MIN(hops, 3) << W_HOPS_SH | t_units(s, now);
}

static inline uint32_t
w_path24(uint64_t w)
{
	return (uint32_t)(w >> W_PATH_SH);
}

static inline uint8_t
w_ce(uint64_t w)
{
	return (uint8_t)(w >> W_CE_SH);
}

static inline unsigned int
w_hops(uint64_t w)
{
	return (unsigned int)(w >> W_HOPS_SH) & 3;
}

static inline uint32_t
host_hash(uint32_t addr)
{
	return rtr_hash_mix(addr ^ 0x9e3779b9u);
}

/* Slot of host addr, inserted when insert is set; -1 if absent / no room. */
static int
host_slot(struct rtr_caver_shared *s, uint32_t addr, bool insert)
{
	uint32_t mask = s->cap - 1, h = host_hash(addr);

	if (addr == 0)
		return -1;
	for (unsigned int i = 0; i < MAX_PROBE && i < s->cap; i++) {
		uint32_t idx = (h + i) & mask;
		uint32_t k = atomic_load_explicit(&s->keys[idx], memory_order_acquire);

		if (k == addr)
			return (int)idx;
		if (k != 0)
			continue;
		/* Keys are never removed: a free slot ends the chain. */
		if (!insert)
			return -1;
		if (atomic_compare_exchange_strong_explicit(&s->keys[idx], &k, addr,
				    memory_order_acq_rel, memory_order_acquire) ||
				k == addr)
			return (int)idx;
	}
	return -1;
}

/* Slots of the shared table for max_hosts hosts: a power of two. */
static uint32_t
shared_cap(uint32_t max_hosts)
{
	uint32_t cap = 8;

	if (max_hosts == 0)
		max_hosts = RTR_CAVER_HOSTS;
	while (cap < max_hosts && cap < (1u << 24))
		cap <<= 1;
	return cap;
}

/* Offsets of the keys and the entries in the shared block. */
static size_t
shared_off_ent(uint32_t cap)
{
	size_t off_keys = RTE_ALIGN_CEIL(sizeof(struct rtr_caver_shared), 64);

	return RTE_ALIGN_CEIL(off_keys + (size_t)cap * sizeof(uint32_t), 64);
}

size_t
rtr_caver_shared_memsize(uint32_t max_hosts)
{
	uint32_t cap = shared_cap(max_hosts);

	return shared_off_ent(cap) + (size_t)cap * RTR_MAX_PORTS * sizeof(uint64_t);
}

struct rtr_caver_shared *
rtr_caver_shared_create(uint32_t max_hosts, uint64_t aging_ns, bool use_rte_malloc, int socket)
{
	uint32_t cap = shared_cap(max_hosts);
	size_t off_keys, off_ent, sz;
	struct rtr_caver_shared *s;
	unsigned int shift = 0;
	void *mem;

	/* Exact nanoseconds while aging fits 2^27 ns (134 ms); coarser units
	 * beyond, so the 29-bit stamp never wraps within two agings. */
	while (((aging_ns + (1ULL << shift) - 1) >> shift) > AGING_MAX_U)
		shift++;
	off_keys = RTE_ALIGN_CEIL(sizeof(*s), 64);
	off_ent = shared_off_ent(cap);
	sz = rtr_caver_shared_memsize(max_hosts);
	mem = rtr_lb_zalloc("caver_shared", sz, use_rte_malloc, socket);
	if (mem == NULL)
		return NULL;
	s = mem;
	s->keys = (_Atomic uint32_t *)((uint8_t *)mem + off_keys);
	s->ent = (_Atomic uint64_t(*)[RTR_MAX_PORTS])((uint8_t *)mem + off_ent);
	s->cap = cap;
	s->tshift = shift;
	s->rte = use_rte_malloc;
	return s;
}

void
rtr_caver_shared_free(void *shared)
{
	struct rtr_caver_shared *s = shared;

	if (s != NULL)
		rtr_lb_zfree(s, s->rte);
}

uint64_t
rtr_caver_table_words(const struct rtr_caver_shared *s)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < s->cap; i++)
		for (unsigned int p = 0; p < RTR_MAX_PORTS; p++)
			n += atomic_load_explicit(&s->ent[i][p], memory_order_relaxed) != 0;
	return n;
}

static bool
table_store(struct rtr_caver *cv, uint32_t host, uint16_t port, const struct rtr_caver_shim *adv,
		uint64_t now, uint64_t *c)
{
	int slot;

	if (port >= RTR_MAX_PORTS || host == 0)
		return false;
	slot = host_slot(cv->s, host, true);
	if (slot < 0) {
		c[RTR_LBC_caver_hosts_full]++;
		return false;
	}
	atomic_store_explicit(&cv->s->ent[slot][port],
			w_make(cv->s, adv->path, adv->ce, adv->hops, now), memory_order_relaxed);
	return true;
}

bool
rtr_caver_table_put(struct rtr_caver *cv, uint32_t host, uint16_t port,
		const struct rtr_caver_shim *adv, uint64_t now_ns, uint64_t *c)
{
	return table_store(cv, host, port, adv, now_ns, c);
}

bool
rtr_caver_table_get(const struct rtr_caver *cv, uint32_t host, uint16_t port, uint64_t now_ns,
		struct rtr_caver_shim *out)
{
	int slot = host_slot(cv->s, host, false);
	uint64_t w;

	if (slot < 0 || port >= RTR_MAX_PORTS)
		return false;
	w = atomic_load_explicit(&cv->s->ent[slot][port], memory_order_relaxed);
	if (!w_valid(cv, w, now_ns))
		return false;
	out->host = host;
	out->path = w_path24(w) << 8;
	out->ce = w_ce(w);
	out->hops = (uint8_t)w_hops(w);
	out->last_switch = 0;
	return true;
}

/* Clear the aged words of this worker's share of the host slots (slot i
 * belongs to worker i mod n_workers), paced by elapsed time so that the
 * whole share is visited within SWEEP_U units however often tick runs. */
static void
table_sweep(struct rtr_caver *cv, uint64_t now)
{
	struct rtr_caver_shared *s = cv->s;
	unsigned int nw = cv->p.n_workers;
	uint32_t share = (s->cap + nw - 1 - cv->p.worker) / nw;
	uint64_t elapsed = (now - cv->sweep_last) >> s->tshift, n;

	if (share == 0)
		return;
	if (cv->sweep_last == 0 || now < cv->sweep_last)
		elapsed = 0;
	n = elapsed >= SWEEP_U ? share : (share * elapsed + SWEEP_U - 1) / SWEEP_U;
	n = RTE_MAX(n, (uint64_t)SWEEP_MIN);
	n = RTE_MIN(n, (uint64_t)share);
	cv->sweep_last = now;
	while (n-- > 0) {
		uint32_t slot = cv->p.worker + cv->sweep_cur * nw;

		if (++cv->sweep_cur >= share)
			cv->sweep_cur = 0;
		if (atomic_load_explicit(&s->keys[slot], memory_order_relaxed) == 0)
			continue;
		for (unsigned int p = 0; p < RTR_MAX_PORTS; p++) {
			uint64_t w = atomic_load_explicit(&s->ent[slot][p], memory_order_relaxed);

			/* CAS: a fresh advertisement stored meanwhile stays. */
			if (w != 0 && !w_valid(cv, w, now))
				atomic_compare_exchange_strong_explicit(&s->ent[slot][p], &w, 0,
						memory_order_relaxed, memory_order_relaxed);
		}
	}
}

/* ------------------------------------------------------------------ DRE */

static inline void
dre_publish(struct rtr_caver *cv, unsigned int port)
{
	atomic_store_explicit(&cv->s->dre[cv->p.worker][port], (uint64_t)cv->x[port],
			memory_order_relaxed);
}

static inline void
dre_add(struct rtr_caver *cv, unsigned int port, uint32_t bytes)
{
	cv->x[port] += bytes;
	dre_publish(cv, port);
}

/* keep^k by squaring: a long gap, where k single periods would be slow. */
static double
keep_pow(double keep, uint64_t k)
{
	double r = 1.0;

	while (k > 0) {
		if (k & 1)
			r *= keep;
		keep *= keep;
		k >>= 1;
	}
	return r;
}

static void
dre_decay(struct rtr_caver *cv, uint64_t k)
{
	for (unsigned int port = 0; port < RTR_MAX_PORTS; port++) {
		double x = cv->x[port];

		if (x == 0)
			continue;
		/* One multiplication per period, as on-time ticks would have
		 * done, for the usual short delays. */
		if (k <= 64) {
			for (uint64_t i = 0; i < k; i++)
				x *= cv->keep;
		} else {
			x *= keep_pow(cv->keep, k);
		}
		/* Below a byte nothing is published anyway; stop before the
		 * value crawls through subnormals. */
		cv->x[port] = x < 1e-9 ? 0 : x;
		dre_publish(cv, port);
	}
}

uint8_t
rtr_caver_port_ce(const struct rtr_caver *cv, uint16_t port)
{
	uint64_t tot = 0;
	double v;

	if (port >= RTR_MAX_PORTS)
		return 0;
	for (unsigned int w = 0; w < cv->p.n_workers; w++)
		tot += atomic_load_explicit(&cv->s->dre[w][port], memory_order_relaxed);
	/* ALGORITHMS.md 4, in its order of operations:
	 * floor(8 * X / (rate_bps * period_s / alpha) * 2^Q), clamped. */
	v = 8.0 * (double)tot / cv->denom[port] * cv->qscale;
	return v >= 255.0 ? 255 : (uint8_t)v;
}

/* ------------------------------------------------------------------ setup */

static bool
cv_pinned(const struct rtr_ft_entry *e)
{
	(void)e;
	return false;
}

/* The telemetry view of one flow (rtr_lb_fs.fill). */
static void
cv_fill(const void *state, struct rtr_ft_entry *e, uint64_t now, struct rtr_lb_flow_info *fi)
{
	const struct cv_flow *f = (const struct cv_flow *)rtr_ft_value(e);

	(void)state;
	(void)now;
	fi->path = f->path;
	fi->next_hop = f->next_hop;
	fi->ce = f->ce;
	fi->by_table = f->by_table;
}

struct rtr_caver *
rtr_caver_create(const struct rtr_caver_params *p, const struct rtr_lb_io *io)
{
	struct rtr_caver *cv;
	struct rtr_ft_params fp;
	char name[64];

	(void)io;
	if (p->shared == NULL || p->dre_period_ns == 0 || !(p->alpha > 0 && p->alpha <= 1) ||
			p->q > 32 || p->n_workers == 0 || p->n_workers > RTR_MAX_LCORES ||
			p->worker >= p->n_workers || (p->n_hosts > 0 && p->hosts == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	cv = calloc(1, sizeof(*cv));
	if (cv == NULL)
		return NULL;
	cv->p = *p;
	cv->p.hosts = NULL;
	cv->s = p->shared;
	if (p->n_hosts > 0) {
		cv->hosts = calloc(p->n_hosts, sizeof(*cv->hosts));
		if (cv->hosts == NULL)
			goto fail;
		memcpy(cv->hosts, p->hosts, p->n_hosts * sizeof(*cv->hosts));
		cv->p.hosts = cv->hosts;
		for (unsigned int i = 0; i < RTR_MAX_PORTS; i++)
			cv->rr_off[i] = (uint16_t)(p->worker % p->n_hosts);
	}
	cv->rng = p->rng_seed ^ ((uint64_t)p->worker << 32) ^ 0x2545f4914f6cdd1dULL;
	cv->aging_u = (p->aging_ns + (1ULL << cv->s->tshift) - 1) >> cv->s->tshift;
	cv->aging_u = RTE_MIN(cv->aging_u, AGING_MAX_U);
	cv->keep = 1.0 - p->alpha;
	cv->qscale = (double)(1ULL << p->q);
	for (unsigned int port = 0; port < RTR_MAX_PORTS; port++) {
		double rate = p->rate_bps[port] > 0 ? p->rate_bps[port] : 100e9;

		cv->denom[port] = rate * ((double)p->dre_period_ns / 1e9) / p->alpha;
	}
	snprintf(name, sizeof(name), "cv_flows_%u", p->worker);
	fp = (struct rtr_ft_params){
			.name = name,
			.entries = p->flow_entries,
			.limits = p->ft_limits,
			.value_size = sizeof(struct cv_flow),
			/* An idle flow is placed again anyway: its entry may go. */
			.aging_ns = p->flow_idle_ns,
			.pinned = cv_pinned,
			.socket_id = p->socket_id,
			.use_rte_malloc = p->use_rte_malloc,
	};
	cv->fs.ft = rtr_ft_create(&fp);
	cv->fs.fill = cv_fill;
	cv->p.ft_limits = NULL; /* the caller's, gone after create */
	if (cv->fs.ft == NULL)
		goto fail;
	return cv;
fail:
	rtr_caver_free(cv);
	return NULL;
}

void
rtr_caver_free(void *state)
{
	struct rtr_caver *cv = state;
	if (cv == NULL)
		return;
	rtr_ft_free(cv->fs.ft);
	free(cv->hosts);
	free(cv);
}

/* ------------------------------------------------------------------ SrcToR / spine */

static inline void
set_b4(uint8_t *frame, struct rtr_meta *meta, uint8_t b4)
{
	bth_of(frame, meta)[4] = b4;
	meta->bth_b4 = b4;
}

/*
 * Place a flow: the live path of g whose max(local CE, table CE) is the
 * least, ties at random. A live path without a valid entry for the
 * destination is a candidate at its local CE (its remote CE counts as 0)
 * and gets no source route, as the CAVER reference's source-ToR choice
 * does (an aged entry there has CE 0 and the path stays in the choice);
 * CONGA's congestion-to-leaf entries age to 0 for the same reason: an
 * unknown path must be explored, not avoided. Without it every new flow
 * went to whichever uplink an advertisement for the host had last come in
 * on, however loaded the uplink (doc/caver.md). No valid entry on any path
 * (or IPv6): ECMP.
 */
static void
place(struct rtr_caver *cv, const struct rtr_group *g, uint64_t live, const uint8_t *frame,
		const struct rtr_meta *meta, uint64_t now, struct cv_flow *f, uint64_t *c)
{
	unsigned int ties = 0, best = 256, n_valid = 0;
	uint64_t best_w = 0;
	int slot = -1, path = -1;

	if (meta->l3 == RTR_L3_IPV4) {
		uint32_t dst;

		memcpy(&dst, frame + meta->l3_off + 16, 4);
		slot = host_slot(cv->s, dst, false);
	}
	if (slot >= 0) {
		for (uint64_t l = live; l != 0; l &= l - 1) {
			unsigned int i = (unsigned int)__builtin_ctzll(l), port, cost;
			uint64_t w;

			if (i >= g->n_paths)
				break;
			port = g->port[i];
			if (port >= RTR_MAX_PORTS)
				continue;
			w = atomic_load_explicit(&cv->s->ent[slot][port], memory_order_relaxed);
			if (w_valid(cv, w, now)) {
				n_valid++;
				cost = RTE_MAX(rtr_caver_port_ce(cv, (uint16_t)port), w_ce(w));
			} else {
				w = 0;
				cost = rtr_caver_port_ce(cv, (uint16_t)port);
			}
			if (cost < best) {
				best = cost;
				ties = 1;
				path = (int)i;
				best_w = w;
			} else if (cost == best && take_tie(cv, ++ties)) {
				path = (int)i;
				best_w = w;
			}
		}
	}
	if (n_valid > 0 && path >= 0) {
		uint8_t hop = (uint8_t)(w_path24(best_w) >> 16);

		f->path = (uint8_t)path;
		f->ce = (uint8_t)best;
		/* Byte 4 holds 7 bits of port: a longer one cannot be asked
		 * for. best_w is 0 for a path without an entry: no hop. */
		f->next_hop = w_hops(best_w) > 0 && hop <= RTR_CAVER_SR_PORT ? hop
									     : RTR_LB_HOP_NONE;
		f->by_table = 1;
		c[RTR_LBC_caver_flows_table]++;
		if (best_w == 0)
			c[RTR_LBC_caver_flows_unadvertised]++;
		return;
	}
	/* The caller's snapshot (non-zero): a second load of the mask could
	 * find every path down and store -1 as path 255. */
	f->path = (uint8_t)rtr_group_pick_live(g, live, meta->flow_hash);
	f->ce = 0;
	f->next_hop = RTR_LB_HOP_NONE;
	f->by_table = 0;
	c[RTR_LBC_caver_flows_ecmp]++;
}

int
rtr_caver_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_caver *cv = state;
	uint64_t *c = stats->lb;
	uint64_t live = atomic_load_explicit(&g->live_mask, memory_order_relaxed);
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);

	if (live == 0)
		return -1;
	if (!(meta->flags & RTR_MF_ROCE))
		goto ecmp;
	if (is_host_port(cv, meta->in_port) && !rtr_meta_is_roce_data(meta)) {
		/*
		 * ACK, NAK, CNP from a host: ECMP, as the CAVER reference routes
		 * its ACKs at every switch. The ACKs carry the advertisements
		 * about this ToR's hosts: placed from the path table like data,
		 * they would all avoid this ToR's congested uplinks, and the
		 * spines behind them would never learn (nor tell the other
		 * ToRs) how congested their downlinks toward this ToR are.
		 * With two 25G links of 4x4x8, doc/caver.md.
		 */
		set_b4(frame, meta, 0);
		goto ecmp;
	}
	if (is_host_port(cv, meta->in_port)) {
		struct rtr_ft_entry *e;
		enum rtr_ft_status st;
		struct rtr_ft_key k;
		struct cv_flow *f;

		rtr_ft_key_from_frame(&k, frame, meta, KIND_SRC, false);
		e = rtr_ft_lookup(cv->fs.ft, &k, meta->flow_hash, now, true, meta->in_port, &st);
		if (unlikely(e == NULL)) {
			rtr_ft_count_refusal(st, c);
			/* Whatever the host left in byte 4 must not read as a
			 * source route at the next switch. */
			set_b4(frame, meta, 0);
			goto ecmp;
		}
		f = (struct cv_flow *)rtr_ft_value(e);
		if (st == RTR_FT_NEW ||
				rtr_lb_idle(cv->fs.clock, now, meta->in_port, e->last_ns,
						cv->p.flow_idle_ns) ||
				f->group != g_idx || f->path >= g->n_paths ||
				!(live & (1ULL << f->path))) {
			bool existed = st != RTR_FT_NEW;
			uint8_t old = f->path;

			place(cv, g, live, frame, meta, now, f, c);
			f->group = (uint16_t)g_idx;
			if (existed && f->path != old)
				c[RTR_LBC_reroutes]++;
		}
		e->last_ns = now;
		set_b4(frame, meta,
				f->next_hop == RTR_LB_HOP_NONE
						? 0
						: (uint8_t)(RTR_CAVER_SR | f->next_hop));
		return f->path;
	}
	if (is_fabric_port(cv, meta->in_port) && (meta->bth_b4 & RTR_CAVER_SR)) {
		/* Transit: the SrcToR asked for this egress port. */
		unsigned int port = meta->bth_b4 & RTR_CAVER_SR_PORT;

		for (uint64_t l = live; l != 0; l &= l - 1) {
			unsigned int i = (unsigned int)__builtin_ctzll(l);

			if (i < g->n_paths && g->port[i] == port) {
				c[RTR_LBC_caver_source_routed]++;
				return (int)i;
			}
		}
		c[RTR_LBC_caver_source_route_bad]++;
	}
ecmp:
	c[RTR_LBC_ecmp_packets]++;
	return rtr_group_pick(g, meta->flow_hash);
}

/* ------------------------------------------------------------------ ACK shim */

static inline unsigned int
shim_off(const struct rtr_meta *meta)
{
	return rtr_meta_bth_off(meta) + RTR_BTH_LEN + AETH_LEN;
}

bool
rtr_caver_is_shimmed(const uint8_t *frame, uint32_t len, const struct rtr_meta *meta)
{
	uint32_t ulen;

	if (meta->l3 != RTR_L3_IPV4 || !(meta->flags & RTR_MF_ROCE) ||
			(meta->flags & RTR_MF_TRIMMED) || meta->bth_opcode != RTR_BTH_OP_RC_ACK ||
			(meta->bth_b8 & RTR_BTH_RESV7_MASK) != RTR_CAVER_RESV7)
		return false;
	ulen = udp_len_of(frame, meta);
	return ulen >= RTR_CAVER_SHIM_UDP_MIN && meta->l4_off + ulen <= len;
}

void
rtr_caver_shim_read(const uint8_t *frame, const struct rtr_meta *meta, struct rtr_caver_shim *out)
{
	const uint8_t *h = frame + shim_off(meta);

	memcpy(&out->host, h, 4);
	out->path = ld32(h + 4);
	out->ce = h[8];
	out->hops = h[9];
	out->last_switch = ld16(h + 10);
}

static void
shim_write(uint8_t *h, const struct rtr_caver_shim *s)
{
	memcpy(h, &s->host, 4);
	st32(h + 4, s->path);
	h[8] = s->ce;
	h[9] = s->hops;
	st16(h + 10, s->last_switch);
}

/* Origin: an RC ACK from a host leaves toward the fabric with a shim about
 * the next attached host. */
static void
shim_add(struct rtr_caver *cv, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t out_port,
		uint64_t *c)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), ulen, at;
	struct rtr_caver_shim s;
	uint16_t port;
	uint8_t *bth;

	if (meta->l3 != RTR_L3_IPV4 || (meta->bth_b8 & RTR_BTH_RESV7_MASK) ||
			(meta->flags & RTR_MF_TRIMMED) || !rte_pktmbuf_is_contiguous(m))
		goto skip;
	ulen = udp_len_of(f, meta);
	at = shim_off(meta);
	/* The AETH and the ICRC must both be there. */
	if (ulen < 8 + RTR_BTH_LEN + AETH_LEN + RTR_ICRC_LEN || meta->l4_off + ulen > len)
		goto skip;
	if (rte_pktmbuf_append(m, RTR_CAVER_SHIM_LEN) == NULL)
		goto skip;
	memmove(f + at + RTR_CAVER_SHIM_LEN, f + at, len - at);
	if (cv->p.n_hosts > 0) {
		unsigned int n = cv->p.n_hosts;
		const struct rtr_caver_host *h =
				&cv->hosts[(cv->rr_off[out_port] + cv->rr_pos[out_port]) % n];

		if (++cv->rr_pos[out_port] >= n) {
			cv->rr_pos[out_port] = 0;
			cv->rr_off[out_port] = (uint16_t)(((rng_next(cv) >> 32) * n) >> 32);
		}
		s.host = h->addr;
		port = h->port;
	} else {
		/* No /32 host routes: the ACK's sender is behind in_port. */
		memcpy(&s.host, f + meta->l3_off + 12, 4);
		port = meta->in_port;
	}
	s.path = 0;
	s.ce = rtr_caver_port_ce(cv, port);
	s.hops = 0;
	s.last_switch = cv->p.switch_id;
	shim_write(f + at, &s);
	ip4_len_add(f + meta->l3_off, RTR_CAVER_SHIM_LEN);
	st16(f + meta->l4_off + 4, (uint16_t)(ulen + RTR_CAVER_SHIM_LEN));
	st16(f + meta->l4_off + 6, 0);
	bth = bth_of(f, meta);
	bth[8] = (uint8_t)((bth[8] & RTR_BTH_ACKREQ) | RTR_CAVER_RESV7);
	meta->bth_b8 = bth[8];
	c[RTR_LBC_caver_shims_added]++;
	return;
skip:
	c[RTR_LBC_caver_shim_skipped]++;
}

/* Before a host: the frame exactly as the origin's host sent it, apart
 * from the fields the ICRC masks. */
void
rtr_caver_shim_strip(struct rte_mbuf *m, struct rtr_meta *meta)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_data_len(m), at = shim_off(meta);
	uint8_t *bth;

	memmove(f + at, f + at + RTR_CAVER_SHIM_LEN, len - at - RTR_CAVER_SHIM_LEN);
	rte_pktmbuf_trim(m, RTR_CAVER_SHIM_LEN);
	ip4_len_add(f + meta->l3_off, -RTR_CAVER_SHIM_LEN);
	st16(f + meta->l4_off + 4, (uint16_t)(udp_len_of(f, meta) - RTR_CAVER_SHIM_LEN));
	bth = bth_of(f, meta);
	bth[8] &= RTR_BTH_ACKREQ;
	meta->bth_b8 = bth[8];
}

static void
shim_strip(struct rte_mbuf *m, struct rtr_meta *meta, uint64_t *c)
{
	rtr_caver_shim_strip(m, meta);
	c[RTR_LBC_caver_shims_stripped]++;
}

/* Transit: advertise this switch's best path toward the host instead. */
static void
shim_rewrite(struct rtr_caver *cv, uint8_t *f, const struct rtr_meta *meta,
		const struct rtr_caver_shim *in, bool stored, uint64_t now, uint64_t *c)
{
	unsigned int best = 256, ties = 0, best_port = meta->in_port;
	uint32_t best_path24 = in->path >> 8;
	struct rtr_caver_shim out;
	int slot = stored ? host_slot(cv->s, in->host, false) : -1;

	if (slot >= 0) {
		/* A port that is down carries nothing, whatever its entry says
		 * (its DRE even decays to 0, so it would look the best). */
		uint32_t down = cv->p.link_down != NULL ? atomic_load_explicit(cv->p.link_down,
									  memory_order_relaxed)
							: 0;

		for (unsigned int p = 0; p < RTR_MAX_PORTS; p++) {
			uint64_t w = atomic_load_explicit(
					&cv->s->ent[slot][p], memory_order_relaxed);
			unsigned int cost;

			if (!w_valid(cv, w, now) || (down & (1u << p)))
				continue;
			cost = RTE_MAX(rtr_caver_port_ce(cv, (uint16_t)p), w_ce(w));
			if (cost < best) {
				best = cost;
				ties = 1;
				best_port = p;
				best_path24 = w_path24(w);
			} else if (cost == best && take_tie(cv, ++ties)) {
				best_port = p;
				best_path24 = w_path24(w);
			}
		}
	}
	if (ties == 0) {
		/* Nothing stored (no room, or the entry went meanwhile): the
		 * advertisement in hand is the only candidate. */
		best = RTE_MAX(rtr_caver_port_ce(cv, meta->in_port), in->ce);
		best_port = meta->in_port;
		best_path24 = in->path >> 8;
	}
	out.host = in->host;
	out.path = (uint32_t)best_port << 24 | best_path24;
	out.ce = (uint8_t)best;
	out.hops = in->hops == UINT8_MAX ? UINT8_MAX : (uint8_t)(in->hops + 1);
	out.last_switch = cv->p.switch_id;
	shim_write(f + shim_off(meta), &out);
	c[RTR_LBC_caver_shims_rewritten]++;
}

void
rtr_caver_post_route(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t out_port,
		uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_caver *cv = state;
	uint64_t *c = stats->lb;
	bool in_fabric = is_fabric_port(cv, meta->in_port);
	bool out_host = is_host_port(cv, out_port);

	if (meta->flags & RTR_MF_ROCE) {
		uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);

		if (meta->bth_opcode == RTR_BTH_OP_RC_ACK) {
			if (is_host_port(cv, meta->in_port) && is_fabric_port(cv, out_port)) {
				shim_add(cv, m, meta, out_port, c);
			} else if (in_fabric && rte_pktmbuf_is_contiguous(m) &&
					rtr_caver_is_shimmed(f, rte_pktmbuf_data_len(m), meta)) {
				struct rtr_caver_shim s;
				bool stored;

				rtr_caver_shim_read(f, meta, &s);
				stored = table_store(cv, s.host, meta->in_port, &s, now, c);
				if (stored)
					c[RTR_LBC_caver_adverts]++;
				if (out_host)
					shim_strip(m, meta, c);
				else if (is_fabric_port(cv, out_port))
					shim_rewrite(cv, f, meta, &s, stored, now, c);
			}
		}
		/* The source route was for the switches of the fabric. */
		if (in_fabric && out_host)
			set_b4(f, meta, 0);
	}
}

void
rtr_caver_queued(void *state, const struct rte_mbuf *m, const struct rtr_meta *meta,
		uint16_t out_port)
{
	struct rtr_caver *cv = state;
	if (out_port < RTR_MAX_PORTS &&
			(!(meta->flags & RTR_MF_ROCE) || rtr_meta_is_roce_data(meta)))
		dre_add(cv, out_port, rte_pktmbuf_pkt_len(m));
}

enum rtr_drop_reason
rtr_caver_host_check(const uint8_t *frame, uint32_t len, const struct rtr_meta *meta)
{
	(void)frame;
	(void)len;
	/* The next switch would take it for a shim (and a host must not
	 * write the path table). */
	if ((meta->flags & RTR_MF_ROCE) && meta->bth_opcode == RTR_BTH_OP_RC_ACK &&
			(meta->bth_b8 & RTR_BTH_RESV7_MASK) == RTR_CAVER_RESV7)
		return RTR_DROP_HOST_LB_PACKET;
	return RTR_DROP_NONE;
}

bool
rtr_caver_host_strip(struct rte_mbuf *m, struct rtr_meta *meta, uint64_t *c)
{
	/* A CAVER ToR strips the shims it sees in post_route (counted
	 * caver_shims_stripped); what is left here came past another mode. */
	if (rte_pktmbuf_is_contiguous(m) &&
			rtr_caver_is_shimmed(rte_pktmbuf_mtod(m, const uint8_t *),
					rte_pktmbuf_data_len(m), meta)) {
		rtr_caver_shim_strip(m, meta);
		c[RTR_LBC_foreign_shims_stripped]++;
	}
	/* Byte 4 may still hold a source route: the all-modes rule clears it. */
	return false;
}

/* ------------------------------------------------------------------ timers */

void
rtr_caver_tick(void *state, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_caver *cv = state;
	uint64_t *c = stats->lb;
	uint64_t period = cv->p.dre_period_ns;

	(void)c;
	if (cv->dre_next == 0) {
		/* Periods on one grid for every worker: boundaries at k * period. */
		cv->dre_next = (now / period + 1) * period;
	} else if (now >= cv->dre_next) {
		uint64_t k = (now - cv->dre_next) / period + 1;

		dre_decay(cv, k);
		cv->dre_next += k * period;
	}
	rtr_lb_fs_age(&cv->fs, now);
	table_sweep(cv, now);
}

uint64_t
rtr_caver_next_deadline(const void *state)
{
	const struct rtr_caver *cv = state;

	return cv->dre_next;
}

/* ------------------------------------------------------------- the mode */

static void *
cv_shared_create(const struct rtr_config *cfg, unsigned int n_groups, bool rte, int socket)
{
	(void)n_groups;
	return rtr_caver_shared_create(RTR_CAVER_HOSTS,
			(uint64_t)rtr_caver_config(cfg)->aging_us * 1000, rte, socket);
}

/* Config microseconds become nanoseconds here; the switch's flow table size
 * is split between the workers; port rates, fabric ports and the attached
 * hosts (IPv4 /32 routes to host ports) come from the config. */
void *
rtr_caver_init(const struct rtr_lb_init *in)
{
	const struct rtr_config *cfg = in->cfg;
	const struct rtr_caver_cfg *cc = rtr_caver_config(cfg);
	unsigned int nw = in->n_workers ? in->n_workers : 1;
	struct rtr_ft_limit lim[RTR_FT_ORIGINS];
	struct rtr_caver_host *hosts = NULL;
	struct rtr_caver_params p = {
			.dre_period_ns = (uint64_t)cc->dre_period_us * 1000,
			.alpha = cc->alpha,
			.q = cc->q,
			.aging_ns = (uint64_t)cc->aging_us * 1000,
			.flow_idle_ns = (uint64_t)cc->flow_idle_us * 1000,
			.flow_entries = (cc->flow_table_size + nw - 1) / nw,
			.ft_limits = lim,
			.host_port_mask = in->host_port_mask,
			.switch_id = cfg->sw.id,
			.hash_seed = in->hash_seed,
			.rng_seed = (uint64_t)cfg->sw.id << 16 ^ in->hash_seed,
			.worker = in->worker,
			.n_workers = nw,
			.socket_id = in->socket,
			.use_rte_malloc = in->use_rte_malloc,
			.shared = in->shared,
			.link_down = in->link_down,
	};
	struct rtr_caver *cv;

	for (unsigned int i = 0; i < cfg->n_ports; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];

		if (pc->port >= RTR_MAX_PORTS)
			continue;
		if (pc->role == RTR_PORT_FABRIC)
			p.fabric_port_mask |= 1u << pc->port;
		/* The DRE measures against the rate the port really has:
		 * its shaper's when it is shaped. 0 = 100 Gb/s. */
		p.rate_bps[pc->port] = pc->shape_gbps > 0 ? pc->shape_gbps * 1e9
							  : (double)pc->speed_gbps * 1e9;
	}
	if (cfg->n_routes > 0) {
		hosts = calloc(cfg->n_routes, sizeof(*hosts));
		if (hosts == NULL)
			return NULL;
	}
	for (unsigned int i = 0; i < cfg->n_routes; i++) {
		const struct rtr_route_cfg *r = &cfg->routes[i];
		uint16_t port = r->paths[0].port;

		if (r->prefix.family != AF_INET || r->prefix.depth != 32 || r->is_group ||
				r->n_paths < 1 || port >= RTR_MAX_PORTS ||
				!(in->host_port_mask & (1u << port)))
			continue;
		hosts[p.n_hosts].addr = r->prefix.v4.s_addr;
		hosts[p.n_hosts].port = port;
		p.n_hosts++;
	}
	p.hosts = hosts;
	rtr_lb_ft_limits(in, p.flow_entries, lim);
	cv = rtr_lb_fs_clock(rtr_caver_create(&p, &in->io), in->clock);
	free(hosts); /* create keeps a copy */
	return cv;
}

static void
cv_flow_view(const struct rtr_lb_flow_info *f, const struct rtr_lb_kv *kv)
{
	kv->u64(kv->arg, "path", f->path);
	if (f->next_hop != RTR_LB_HOP_NONE)
		kv->u64(kv->arg, "next_hop", f->next_hop);
	kv->u64(kv->arg, "ce", f->ce);
	kv->str(kv->arg, "placed_by", f->by_table ? "table" : "ecmp");
}

const struct rtr_lb_ops rtr_lb_caver = {
		.name = "caver",
		.mode = RTR_LB_CAVER,
		.flow_affinity = true,
		/* ConWeave fields read, so that a host never gets them. */
		.fabric_parse_flags = RTR_LB_PARSE_FOREIGN,
		.deliver_flags = 0,
		.shared_create = cv_shared_create,
		.shared_free = rtr_caver_shared_free,
		.init = rtr_caver_init,
		.fini = rtr_caver_free,
		.pick = rtr_caver_pick,
		.prefetch = rtr_lb_fs_prefetch,
		.post_route = rtr_caver_post_route,
		.queued = rtr_caver_queued,
		.table = rtr_lb_fs_table,
		.tick = rtr_caver_tick,
		.next_deadline = rtr_caver_next_deadline,
		.flows = rtr_lb_fs_flows,
};

/* The ACK shim (doc/caver.md): the destination host's address, then the
 * path vector's fields, as the fuzzer builds them. */
static void
cv_shim_fill(uint8_t *shim, const uint8_t addr[4], const uint8_t *rnd)
{
	memset(shim, 0, RTR_CAVER_SHIM_LEN);
	memcpy(shim, addr, 4);
	shim[4] = rnd[0];
	shim[5] = rnd[1];
	shim[8] = rnd[2];
	shim[9] = rnd[3] & 7;
	shim[11] = rnd[4];
}

static const struct rtr_lb_ack_shim cv_ack_shim = {
		.len = RTR_CAVER_SHIM_LEN,
		.resv7 = RTR_CAVER_RESV7,
		.fill = cv_shim_fill,
};

/* What rtr_caver_create and rtr_caver_shared_create allocate from the
 * DPDK heap: a worker's flow table; the hosts' path table once. */
static void
cv_state_bytes(const struct rtr_config *cfg, unsigned int n_workers, uint64_t *per_worker,
		uint64_t *shared)
{
	*per_worker = rtr_lb_ft_bytes(
			rtr_caver_config(cfg)->flow_table_size, n_workers, sizeof(struct cv_flow));
	*shared = rtr_caver_shared_memsize(RTR_CAVER_HOSTS);
}

const struct rtr_lb_desc rtr_lb_caver_desc = {
		.name = "caver",
		.summary = "CAVER: DRE and path vectors on ACKs",
		.ops = &rtr_lb_caver,
		.config = &rtr_caver_section,
		.spine = RTR_LB_SPINE_RUN,
		.state_bytes = cv_state_bytes,
		.flow_view = cv_flow_view,
		.counter_first = RTR_LBC_CAVER_FIRST,
		.n_counters = RTR_LBC_CAVER_N,
		.host_check = rtr_caver_host_check,
		.host_strip = rtr_caver_host_strip,
		.ack_shim = &cv_ack_shim,
};
