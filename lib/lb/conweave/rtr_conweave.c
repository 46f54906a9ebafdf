/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * ConWeave, ALGORITHMS.md 2. The comments cite its steps: "S1".."S5" for the
 * SrcToR (2.2), "D1".."D8" for the DstToR (2.3). doc/conweave.md explains
 * the choices this file makes where the specification is silent.
 */

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "rtr_common.h"
#include "conweave_config.h"
#include "rtr_conweave.h"
#include "rtr_cw_bounds.h"
#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "rtr_lb_fs.h"
#include "rtr_lb_mem.h"
#include "rtr_lb_ctrl.h"
#include "rtr_mbuf.h"
#include "rtr_pathmark.h"
#include "rtr_pring.h"
#include "rtr_stats.h"

#define NEVER    UINT64_MAX
#define KIND_SRC 1
#define KIND_DST 2
#define NO_RING  0xffff /* so a pool has at most NO_RING rings (0..NO_RING - 1) */
/*
 * The stale test (D1) compares 16-bit ts_tx values, unambiguous within half
 * their 67 ms wrap. Its reference must be younger than STALE_WINDOW_NS (a
 * quarter of the wrap, 16.8 ms: a packet delayed that long is not a
 * straggler of a datacenter path); a packet of the current epoch renews
 * a reference older than half of that.
 */
#define STALE_WINDOW_NS (1ULL << 24)

/* ------------------------------------------------------------------ state */

/* SrcToR state of one flow (2.2): 32 bytes, so that with the entry's
 * header it is one cache line (issue 34). The flow's last activity is the
 * entry's last_ns; the TAIL's and the epoch's times are kept as the 16-bit
 * ConWeave timestamps they are only ever used as. */
struct cw_src {
	uint64_t reply_deadline;
	uint64_t clear_deadline; /* phase 1: new epoch after this (NEVER: not armed) */
	uint16_t tail_ts;        /* rtr_cw_ts of the TAIL's pick, then of its departure */
	uint16_t epoch_ts;       /* rtr_cw_ts of this epoch's first packet's pick */
	uint16_t group;
	uint8_t epoch;
	uint8_t phase;
	uint8_t path;
	uint8_t stabilized;
	uint8_t tail_left; /* the TAIL departed: tail_ts is its departure */
	uint8_t p1_left;   /* a phase-1 packet departed: clear_deadline is from it */
};

/* A hold: the flow whose packets a reorder ring holds, beside that ring
 * (rtr_cw.hold[port][ring]), valid while the flow's cw_dst.ring names it. */
struct cw_hold {
	uint64_t deadline; /* hold deadline */
	uint64_t hold_start;
	uint32_t gen;     /* this hold's number (rtr_cw.hold_gen): its heap entries */
	uint16_t ts_tail; /* of the held phase-1 packets */
	uint16_t ts_tx1;  /* ts_tx of the first held packet */
	uint8_t path_id;  /* path of the first held packet */
};

_Static_assert(sizeof(struct cw_src) <= 32, "cw_src: one line with the entry's header");

/* DstToR state of one flow (2.3): 32 bytes, one cache line with the
 * entry's header (issue 34). What only a hold needs is in its ring's
 * struct cw_hold. */
struct cw_dst {
	uint64_t phase0_rx;
	uint64_t ep_rx; /* arrival of the packet that set ep_tx */
	uint16_t ep_tx; /* ts_tx of the earliest packet seen of the epoch */
	uint16_t phase0_tx;
	uint16_t ring; /* reorder ring index, NO_RING */
	uint8_t port;  /* host port of the ring */
	uint8_t valid; /* an epoch has been seen */
	uint8_t epoch;
	uint8_t rx_phase;
	uint8_t phase0_seen;
	uint8_t tail_seen;
	uint8_t clear_sent;
	uint8_t no_reorder; /* overflow: no more holding in this epoch */
};

_Static_assert(sizeof(struct cw_dst) <= 32, "cw_dst: one line with the entry's header");

struct cw_timer {
	uint64_t deadline;
	struct rtr_ft_entry *e;
	uint32_t gen;
};

struct rtr_cw {
	struct rtr_lb_fs fs; /* first: the flow-state base (rtr_lb_fs.h) */
	struct rtr_cw_params p;
	struct rtr_lb_io io;
	uint64_t aging_ns;
	uint64_t hold_max_ns; /* rtr_cw_max_hold_ns() */
	uint64_t clear_to_ns; /* rtr_cw_clear_timeout_ns() */
	uint64_t rng;
	struct rtr_pring_pool *pool[RTR_MAX_PORTS];
	struct cw_hold *hold[RTR_MAX_PORTS]; /* per reorder ring of pool[port] */
	uint32_t hold_gen;                   /* the last hold's number */
	/* Min-heap of hold deadlines; one entry per holding flow (deadline
	 * pushes are applied lazily when the entry comes to the top). */
	struct cw_timer *heap;
	unsigned int heap_n, heap_cap;
	uint64_t held;        /* packets in rings now */
	uint64_t hold_budget; /* at most this many (p.hold_budget, 0: no limit) */
	uint64_t *cur_c;      /* counters of the call in progress (emit callbacks) */
	uint16_t cur_port;
	struct cw_dst *clear_for; /* expire(): build the CLEAR from the first released packet */
};

/* ------------------------------------------------------------------ helpers */

static inline uint64_t
rng_next(struct rtr_cw *cw)
{
	/* splitmix64 */
	uint64_t z = (cw->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline struct cw_src *
src_of(struct rtr_ft_entry *e)
{
	return (struct cw_src *)rtr_ft_value(e);
}

/* The hold of a flow whose ring is not NO_RING. */
static inline struct cw_hold *
hold_of(const struct rtr_cw *cw, const struct cw_dst *d)
{
	return &cw->hold[d->port][d->ring];
}

/* Whether a heap entry (e, gen) is the current hold of its flow: the
 * entry is still a DstToR flow's (not freed, not reused for another role),
 * it holds a ring, and that ring's hold is the one numbered gen (hold
 * numbers are unique per worker, 0 is none). */
static inline bool
hold_current(const struct rtr_cw *cw, struct rtr_ft_entry *e, uint32_t gen)
{
	const struct cw_dst *d = rtr_ft_value(e); /* dst_of, when it is one */

	return e->key.kind == KIND_DST && d->ring != NO_RING && d->port < RTR_MAX_PORTS &&
	       cw->hold[d->port] != NULL && hold_of(cw, d)->gen == gen;
}

static inline struct cw_dst *
dst_of(struct rtr_ft_entry *e)
{
	return (struct cw_dst *)rtr_ft_value(e);
}

static bool
cw_pinned(const struct rtr_ft_entry *e)
{
	const struct cw_dst *d = (const struct cw_dst *)e->value;

	return e->key.kind == KIND_DST && d->ring != NO_RING;
}

static inline uint8_t *
bth_of(uint8_t *frame, const struct rtr_meta *m)
{
	return frame + rtr_meta_bth_off(m);
}

static inline void
read_ts(const uint8_t *frame, const struct rtr_meta *m, uint16_t *ts_tx, uint16_t *ts_tail)
{
	const uint8_t *h = frame + rtr_meta_bth_off(m) + RTR_BTH_LEN;

	*ts_tx = (uint16_t)(h[0] << 8 | h[1]);
	*ts_tail = (uint16_t)(h[2] << 8 | h[3]);
}

/* ------------------------------------------------------------------ setup */

void *
rtr_cw_shared_create(const struct rtr_config *cfg, unsigned int n_groups, bool rte, int socket)
{
	struct rtr_pm_group groups[RTR_MAX_GROUPS];
	struct rtr_pm_params p = {
			.name = "cw_busy",
			.n_groups = RTE_MIN(n_groups, (unsigned int)RTR_MAX_GROUPS),
			.groups = groups,
			.dst_prefix_len = rtr_conweave_config(cfg)->dst_prefix_len,
			.dst_prefix_len6 = rtr_conweave_config(cfg)->dst_prefix_len6,
			.use_rte_malloc = rte,
			.socket = socket,
	};

	rtr_pm_groups_of(cfg, groups, p.n_groups);
	return rtr_pm_create(&p);
}

void
rtr_cw_shared_free(void *shared)
{
	rtr_pm_free(shared);
}

bool
rtr_cw_path_busy(const struct rtr_pm *busy, unsigned int g_idx, const uint8_t *dst, bool v6,
		unsigned int path, uint64_t now)
{
	struct rtr_pm_ref r;

	if (busy == NULL || !rtr_pm_ref(busy, g_idx, dst, v6, &r))
		return false;
	return rtr_pm_marked(busy, &r, path, now);
}

uint64_t
rtr_cw_aging_ns(const struct rtr_cw_params *p)
{
	return RTE_MAX(100000000ULL, 4 * p->theta_inactive_ns);
}

uint64_t
rtr_cw_max_hold_ns(const struct rtr_cw_params *p)
{
	return rtr_cw_bound_hold_ns(p->resume_default_ns, p->resume_extra_ns);
}

uint64_t
rtr_cw_clear_timeout_ns(const struct rtr_cw_params *p)
{
	return rtr_cw_bound_clear_ns(p->clear_timeout_ns, p->resume_default_ns, p->resume_extra_ns,
			p->base_rtt_ns, p->theta_reply_ns);
}

/* The telemetry view of one flow (rtr_lb_fs.fill), either role. */
static void
cw_fill(const void *state, struct rtr_ft_entry *e, uint64_t now, struct rtr_lb_flow_info *fi)
{
	const struct rtr_cw *cw = state;

	if (e->key.kind == KIND_SRC) {
		const struct cw_src *s = src_of(e);

		fi->epoch = s->epoch;
		fi->phase = s->phase;
		fi->path = s->path;
		fi->stabilized = s->stabilized;
		fi->reply_deadline_in_ns =
				s->reply_deadline == NEVER
						? NEVER
						: (s->reply_deadline > now ? s->reply_deadline - now
									   : 0);
	} else {
		const struct cw_dst *d = dst_of(e);

		fi->dst_role = true;
		fi->epoch = d->epoch;
		fi->phase = d->rx_phase;
		fi->held = d->ring == NO_RING ? 0
					      : rtr_pring_depth(rtr_pring_at(
								cw->pool[d->port], d->ring));
		if (d->ring == NO_RING) {
			fi->deadline_in_ns = NEVER;
		} else {
			uint64_t dl = hold_of(cw, d)->deadline;

			fi->deadline_in_ns = dl > now ? dl - now : 0;
		}
	}
}

struct rtr_cw *
rtr_cw_create(const struct rtr_cw_params *p, const struct rtr_lb_io *io)
{
	struct rtr_cw *cw = calloc(1, sizeof(*cw));
	struct rtr_ft_params fp;
	unsigned int n_ports = 0;
	char name[64];

	if (cw == NULL)
		return NULL;
	if (p->n_rings > NO_RING) {
		/* The last ring's index would read as "no ring". */
		free(cw);
		errno = EINVAL;
		return NULL;
	}
	cw->p = *p;
	cw->io = *io;
	cw->aging_ns = rtr_cw_aging_ns(p);
	cw->hold_max_ns = rtr_cw_max_hold_ns(p);
	cw->clear_to_ns = rtr_cw_clear_timeout_ns(p);
	cw->hold_budget = p->hold_budget ? p->hold_budget : UINT64_MAX;
	cw->rng = p->rng_seed ^ ((uint64_t)p->worker << 32) ^ 0x5851f42d4c957f2dULL;
	snprintf(name, sizeof(name), "cw_flows_%u", p->worker);
	fp = (struct rtr_ft_params){
			.name = name,
			.entries = p->flow_entries,
			.limits = p->ft_limits,
			.value_size = RTE_MAX(sizeof(struct cw_src), sizeof(struct cw_dst)),
			.aging_ns = cw->aging_ns,
			.pinned = cw_pinned,
			.socket_id = p->socket_id,
			.use_rte_malloc = p->use_rte_malloc,
	};
	cw->fs.ft = rtr_ft_create(&fp);
	cw->fs.fill = cw_fill;
	cw->p.ft_limits = NULL; /* the caller's, gone after create */
	if (cw->fs.ft == NULL)
		goto fail;
	for (unsigned int port = 0; port < RTR_MAX_PORTS; port++) {
		struct rtr_pring_params pp;

		if (!(p->host_port_mask & (1u << port)) || p->n_rings == 0)
			continue;
		snprintf(name, sizeof(name), "cw_reorder_w%u_p%u", p->worker, port);
		pp = (struct rtr_pring_params){
				.name = name,
				.n_rings = p->n_rings,
				.depth = p->ring_depth,
				.socket_id = p->socket_id,
				.use_rte_malloc = p->use_rte_malloc,
		};
		cw->pool[port] = rtr_pring_pool_create(&pp);
		if (cw->pool[port] == NULL)
			goto fail;
		snprintf(name, sizeof(name), "cw_holds_w%u_p%u", p->worker, port);
		cw->hold[port] = rtr_lb_zalloc(name, sizeof(struct cw_hold) * p->n_rings,
				p->use_rte_malloc, p->socket_id);
		if (cw->hold[port] == NULL)
			goto fail;
		n_ports++;
	}
	cw->heap_cap = n_ports * p->n_rings + 1;
	cw->heap = calloc(cw->heap_cap, sizeof(*cw->heap));
	if (cw->heap == NULL)
		goto fail;
	return cw;
fail:
	rtr_cw_free(cw);
	return NULL;
}

void
rtr_cw_free(void *state)
{
	struct rtr_cw *cw = state;
	if (cw == NULL)
		return;
	for (unsigned int port = 0; port < RTR_MAX_PORTS; port++) {
		rtr_pring_pool_free(cw->pool[port], NULL, NULL);
		if (cw->hold[port] != NULL)
			rtr_lb_zfree(cw->hold[port], cw->p.use_rte_malloc);
	}
	rtr_ft_free(cw->fs.ft);
	free(cw->heap);
	free(cw);
}

/* ------------------------------------------------------------------ SrcToR */

/* A live path chosen uniformly at random; -1 if none is live. */
static inline int
sample_path(struct rtr_cw *cw, uint64_t live)
{
	unsigned int n = (unsigned int)__builtin_popcountll(live), k;

	if (n == 0)
		return -1;
	k = (unsigned int)(((rng_next(cw) >> 32) * n) >> 32);
	while (k-- > 0)
		live &= live - 1;
	return __builtin_ctzll(live);
}

/* S4: sample two paths (with replacement), take the first that is not busy
 * toward the flow's destination (key k); both busy: keep cur. */
static int
good_path(struct rtr_cw *cw, unsigned int g_idx, const struct rtr_ft_key *k, int cur, uint64_t live,
		uint64_t now)
{
	const struct rtr_pm *busy = cw->p.shared;
	struct rtr_pm_ref r;

	/* No slot (no table, a group beyond it): nothing is busy. */
	rtr_pm_ref(busy, g_idx, k->dst, k->v6, &r);
	for (int i = 0; i < 2; i++) {
		int p = sample_path(cw, live);

		if (p >= 0 && !rtr_pm_marked(busy, &r, (unsigned int)p, now))
			return p;
	}
	return cur;
}

/* The flow's path went down: move it now (nothing can be delivered on a
 * dead link anyway) to a good path, else by the group's resilient rule on
 * the same snapshot of the mask (non-zero: the callers tested it). */
static void
move_off_dead(struct rtr_cw *cw, const struct rtr_group *g, unsigned int g_idx,
		const struct rtr_ft_key *k, struct cw_src *f, uint64_t live, uint32_t hash,
		uint64_t now, uint64_t *c)
{
	int p = good_path(cw, g_idx, k, -1, live, now);

	if (p < 0)
		p = rtr_group_pick_live(g, live, hash);
	f->path = (uint8_t)p;
	c[RTR_LBC_reroutes]++;
}

/*
 * A packet that cannot carry the fields (Resv7 set by
 * the host, no room for the header) still takes its flow's current path,
 * so a flow never splits over two paths. Nothing of the flow changes but
 * its activity (the packet is in flight on that path: an idle move now
 * would reorder it) and, when that path went down, the move every packet
 * of the flow would make. Without state (a flow this switch has not
 * stamped yet, or no room in the table): ECMP, no entry is made.
 */
static int
unstamped(struct rtr_cw *cw, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		const struct rtr_meta *meta, uint64_t live, uint64_t now, uint64_t *c)
{
	struct rtr_ft_entry *e;
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	struct cw_src *f;

	if (live == 0)
		return -1;
	rtr_ft_key_from_frame(&k, rte_pktmbuf_mtod(m, const uint8_t *), meta, KIND_SRC, false);
	e = rtr_ft_lookup(cw->fs.ft, &k, meta->flow_hash, now, false, RTR_FT_ORIGIN_NONE, &st);
	if (e == NULL) {
		c[RTR_LBC_ecmp_packets]++;
		return rtr_group_pick(g, meta->flow_hash);
	}
	f = src_of(e);
	if (unlikely(!(live & (1ULL << f->path))))
		move_off_dead(cw, g, g_idx, &k, f, live, meta->flow_hash, now, c);
	e->last_ns = now;
	c[RTR_LBC_cw_unstamped]++;
	return f->path;
}

int
rtr_cw_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_cw *cw = state;
	uint64_t *c = stats->lb;
	uint64_t live = atomic_load_explicit(&g->live_mask, memory_order_relaxed);
	struct rtr_ft_entry *e;
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	struct cw_src *f;
	uint8_t *frame, *bth;
	bool expired, stab, ask = false, tail = false;
	unsigned int phase;
	int path;

	/* No flow reference for rtr_cw_depart unless stamped below (the
	 * field may hold the PMD's RSS hash). */
	m->hash.fdir.lo = 0;
	/* Only RoCE data from a host takes part: ACK/NAK/CNP, other traffic,
	 * and whatever already carries ConWeave fields (transit, control
	 * packets this switch originates) go by ECMP untouched. */
	if (!rtr_meta_is_roce_data(meta) || (meta->flags & (RTR_MF_LB_HDR | RTR_MF_TRIMMED)))
		goto ecmp;
	if (unlikely(meta->bth_b8 & RTR_BTH_RESV7_MASK)) {
		/* Section 0: the sender's Resv7 is covered by the ICRC. */
		c[RTR_LBC_lb_bypass_resv7]++;
		return unstamped(cw, g, g_idx, m, meta, live, now, c);
	}
	if (live == 0)
		return -1;
	if (unlikely(rte_pktmbuf_headroom(m) < RTR_LB_HDR_LEN) && rtr_lb_make_headroom(m) != 0)
		return unstamped(cw, g, g_idx, m, meta, live, now, c);
	frame = rte_pktmbuf_mtod(m, uint8_t *);
	rtr_ft_key_from_frame(&k, frame, meta, KIND_SRC, false);
	e = rtr_ft_lookup(cw->fs.ft, &k, meta->flow_hash, now, true, meta->in_port, &st);
	if (unlikely(e == NULL)) {
		rtr_ft_count_refusal(st, c);
		goto ecmp;
	}
	f = src_of(e);
	if (st == RTR_FT_NEW) {
		/* live was tested non-zero: a second load of the mask could
		 * find every path down and store -1 as path 255. */
		f->path = (uint8_t)rtr_group_pick_live(g, live, meta->flow_hash);
		f->reply_deadline = NEVER;
		expired = true;
	} else {
		/* S1 */
		expired = rtr_lb_idle(cw->fs.clock, now, meta->in_port, e->last_ns,
				cw->p.theta_inactive_ns);
	}
	stab = false;
	if (!expired && f->stabilized) {
		stab = true;
		f->stabilized = 0;
	} else if (!expired && f->phase == 1 &&
			rtr_lb_seen_fabric(cw->fs.clock, now) > f->clear_deadline) {
		/* The CLEAR did not come (lost, or its TAIL and the hold's
		 * deadline both missed): by now the DstToR holds nothing of
		 * this epoch (rtr_cw_bound_clear_ns), so go on as if it had. */
		stab = true;
		c[RTR_LBC_clear_timeouts]++;
	}
	e->last_ns = now;
	f->group = (uint16_t)g_idx;
	if (unlikely(!(live & (1ULL << f->path))))
		move_off_dead(cw, g, g_idx, &k, f, live, meta->flow_hash, now, c);
	if (expired || stab) {
		/* S2: a new epoch; this packet is its RTT_REQUEST. */
		f->epoch = (f->epoch + 1) & 3;
		f->epoch_ts = rtr_cw_ts(now);
		f->phase = 0;
		f->tail_ts = 0;
		f->tail_left = 0;
		f->p1_left = 0;
		f->stabilized = 0;
		f->reply_deadline = now + cw->p.base_rtt_ns + cw->p.theta_reply_ns;
		f->clear_deadline = NEVER;
		ask = true;
		c[RTR_LBC_rtt_requests]++;
		if (expired && st != RTR_FT_NEW) {
			int p = good_path(cw, g_idx, &k, f->path, live, now);

			if (p != f->path) {
				f->path = (uint8_t)p;
				c[RTR_LBC_idle_moves]++;
			}
		} else if (st == RTR_FT_NEW) {
			f->path = (uint8_t)good_path(cw, g_idx, &k, f->path, live, now);
		}
		path = f->path;
		phase = 0;
	} else if (rtr_lb_seen_fabric(cw->fs.clock, now) > f->reply_deadline) {
		/* S3: no reply in time. This packet is the TAIL on the old
		 * path; later ones are REROUTED (phase 1) on a good path. */
		int np;

		f->reply_deadline = NEVER;
		c[RTR_LBC_reply_timeouts]++;
		ask = tail = true;
		f->tail_ts = rtr_cw_ts(now); /* until it departs (rtr_cw_depart) */
		f->tail_left = 0;
		f->p1_left = 0;
		path = f->path;
		phase = 0;
		c[RTR_LBC_tails]++;
		np = good_path(cw, g_idx, &k, f->path, live, now);
		f->phase = 1;
		if (np != f->path) {
			f->path = (uint8_t)np;
			c[RTR_LBC_reroutes]++;
		}
	} else {
		path = f->path;
		phase = f->phase;
		/* The first phase-1 packet can start the DstToR's hold: the
		 * CLEAR is due within the longest hold and a round trip
		 * (from its departure: rtr_cw_depart moves it there). */
		if (phase == 1 && f->clear_deadline == NEVER)
			f->clear_deadline = now + cw->clear_to_ns;
	}
	/* S5: stamp. */
	frame = rtr_lb_hdr_insert(m, meta);
	if (unlikely(frame == NULL))
		goto ecmp; /* headroom was checked: not reached */
	bth = bth_of(frame, meta);
	bth[4] = (uint8_t)path;
	bth[8] = (uint8_t)((bth[8] & RTR_BTH_ACKREQ) |
			   RTR_CW_B8(RTR_LB_OP_DATA, phase, f->epoch, ask, tail));
	{
		uint16_t ts_tx = rtr_cw_ts(now), ts_tail = f->tail_ts;
		uint8_t *h = bth + RTR_BTH_LEN;

		h[0] = (uint8_t)(ts_tx >> 8);
		h[1] = (uint8_t)ts_tx;
		h[2] = (uint8_t)(ts_tail >> 8);
		h[3] = (uint8_t)ts_tail;
	}
	meta->bth_b4 = bth[4];
	meta->bth_b8 = bth[8];
	meta->flags |= RTR_MF_LB_HDR;
	/* rtr_cw_depart finds the flow by this, without a second lookup. */
	m->hash.fdir.lo = rtr_ft_ref(cw->fs.ft, e) + 1;
	m->hash.fdir.hi = e->gen;
	c[RTR_LBC_cw_packets]++;
	return path;
ecmp:
	c[RTR_LBC_ecmp_packets]++;
	return rtr_group_pick(g, meta->flow_hash);
}

/*
 * S5 at departure: the paper's TX timestamps are the
 * times packets leave the SrcToR, after its own uplink queue, which grows
 * exactly when reroutes fire. rtr_cw_pick stamped the pick time; here the
 * egress says when the packet really leaves:
 *
 * - ts_tx becomes the departure time;
 * - the TAIL's ts_tail too, and the flow keeps it (tail_left), so that a
 *   phase-1 packet leaving after the TAIL carries the TAIL's departure;
 *   one leaving before the TAIL (the old path still queues it) carries its
 *   own departure time: the TAIL leaves later, and that is the closest
 *   bound known (the pick time of the TAIL, stamped at pick, is earlier);
 * - a packet of an older epoch than the flow's (it queued while a newer
 *   epoch started on another path) keeps its pick time: so every packet
 *   of an epoch has a ts_tx no later than any packet of a later epoch, as
 *   with pick-time stamps, and the DstToR can tell stale packets by ts_tx.
 *
 * A packet that leaves in the 1.024 us tick it was picked in needs nothing
 * (unless it is the TAIL or in phase 1): no flow lookup on an idle uplink.
 * Any other finds its flow by the reference rtr_cw_pick left in the mbuf
 * (m->hash.fdir: slot + 1, generation), not by a second lookup (issue 34);
 * if the entry has left since (aged, evicted, or its slot reused), the
 * packet keeps its pick-time stamps, as when a lookup found no flow: a
 * later life of the same flow is never written through an old reference.
 */
void
rtr_cw_depart(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now,
		struct rtr_lcore_stats *stats)
{
	struct rtr_cw *cw = state;
	const uint16_t ts = rtr_cw_ts(now);
	const uint8_t b8 = meta->bth_b8;
	uint8_t *frame, *h;
	uint16_t pick_tx, ts_tail;
	struct rtr_ft_entry *e;
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	struct cw_src *f;

	(void)stats;
	if (!(meta->flags & RTR_MF_LB_HDR) || rtr_lb_op(b8) != RTR_LB_OP_DATA ||
			meta->in_port >= RTR_MAX_PORTS ||
			!(cw->p.host_port_mask >> meta->in_port & 1))
		return; /* not stamped here */
	frame = rte_pktmbuf_mtod(m, uint8_t *);
	h = frame + rtr_meta_bth_off(meta) + RTR_BTH_LEN;
	pick_tx = (uint16_t)(h[0] << 8 | h[1]);
	if (pick_tx == ts && !rtr_cw_tail(b8) && !rtr_cw_phase(b8))
		return;
	if (m->hash.fdir.lo != 0) {
		e = rtr_ft_deref(cw->fs.ft, m->hash.fdir.lo - 1, m->hash.fdir.hi);
		if (e != NULL && e->key.kind != KIND_SRC)
			e = NULL;
	} else {
		/* Stamped by a packet path that kept no reference. */
		rtr_ft_key_from_frame(&k, frame, meta, KIND_SRC, false);
		e = rtr_ft_lookup(cw->fs.ft, &k, meta->flow_hash, now, false, RTR_FT_ORIGIN_NONE,
				&st);
	}
	if (e == NULL)
		return; /* the flow is gone: the pick-time stamps stay */
	f = src_of(e);
	if (rtr_cw_epoch(b8) != f->epoch || (int16_t)(uint16_t)(pick_tx - f->epoch_ts) < 0)
		return; /* an older epoch (the second test: one 4 epochs older) */
	if (rtr_cw_tail(b8)) {
		f->tail_ts = ts;
		f->tail_left = 1;
		ts_tail = ts;
	} else if (rtr_cw_phase(b8)) {
		ts_tail = f->tail_left ? f->tail_ts : ts;
		/* The DstToR's hold starts when this packet arrives, not
		 * when it was picked: the first phase-1 departure restarts
		 * the CLEAR timeout (it may have queued in the new uplink). */
		if (!f->p1_left) {
			f->p1_left = 1;
			if (f->clear_deadline != NEVER)
				f->clear_deadline =
						RTE_MAX(f->clear_deadline, now + cw->clear_to_ns);
		}
	} else {
		ts_tail = (uint16_t)(h[2] << 8 | h[3]);
	}
	h[0] = (uint8_t)(ts >> 8);
	h[1] = (uint8_t)ts;
	h[2] = (uint8_t)(ts_tail >> 8);
	h[3] = (uint8_t)ts_tail;
}

void
rtr_cw_control_rx(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now,
		struct rtr_lcore_stats *stats)
{
	struct rtr_cw *cw = state;
	uint64_t *c = stats->lb;
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	unsigned int op = rtr_lb_op(meta->bth_b8), phase = rtr_cw_phase(meta->bth_b8);
	unsigned int epoch = rtr_cw_epoch(meta->bth_b8);
	struct rtr_ft_entry *e;
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	struct cw_src *f;

	if (op == RTR_LB_OP_REPLY)
		c[phase ? RTR_LBC_clears_rx : RTR_LBC_rtt_replies_rx]++;
	else if (op == RTR_LB_OP_NOTIFY)
		c[RTR_LBC_notifies_rx]++;
	else
		return;
	rtr_ft_key_from_frame(&k, frame, meta, KIND_SRC, true);
	e = rtr_ft_lookup(cw->fs.ft, &k, rtr_flow_hash_reverse(frame, meta, cw->p.hash_seed), now,
			false, RTR_FT_ORIGIN_NONE, &st);
	if (e == NULL) {
		c[RTR_LBC_ctrl_no_flow]++;
		return;
	}
	f = src_of(e);
	if (op == RTR_LB_OP_NOTIFY) {
		struct rtr_pm *busy = cw->p.shared;
		unsigned int path = meta->bth_b4;
		struct rtr_pm_ref r;
		int ret;

		/* Busy toward the flow's destination (the key's dst: the data
		 * packet's destination, the NOTIFY's source), not the group's
		 * every destination (doc/conweave.md). */
		if (busy == NULL || !rtr_pm_ref(busy, f->group, k.dst, k.v6, &r) ||
				path >= r.n_paths)
			return;
		ret = rtr_pm_mark(busy, &r, path, now + cw->p.theta_path_busy_ns, now);
		if (ret != RTR_PM_MARKED)
			c[RTR_LBC_dst_slot_evictions]++;
		if (ret != RTR_PM_LOST)
			c[RTR_LBC_busy_paths]++;
		return;
	}
	if (epoch != f->epoch || phase != f->phase) {
		if (!phase)
			c[RTR_LBC_rtt_replies_late]++;
		return;
	}
	if (!phase) {
		/* RTT_REPLY: only before the deadline (it arrived at or
		 * after the worker's horizon). */
		if (rtr_lb_seen_in(cw->fs.clock, now, meta->in_port) >= f->reply_deadline) {
			c[RTR_LBC_rtt_replies_late]++;
			return;
		}
	}
	/* On time RTT_REPLY, or CLEAR: the next packet starts a new epoch. */
	f->stabilized = 1;
	f->reply_deadline = NEVER;
}

/* ------------------------------------------------------------------ DstToR */

/* Build a control packet answering data frame `frame` (ALGORITHMS.md 2.1)
 * and hand it to io.control. */
static void
send_control(struct rtr_cw *cw, const uint8_t *frame, const struct rtr_meta *meta, unsigned int op,
		unsigned int phase, uint16_t ts_tx, uint16_t ts_tail, uint64_t *c)
{
	const uint8_t hdr[RTR_LB_HDR_LEN] = {
			(uint8_t)(ts_tx >> 8),
			(uint8_t)ts_tx,
			(uint8_t)(ts_tail >> 8),
			(uint8_t)ts_tail,
	};
	struct rte_mbuf *m = cw->io.alloc(cw->io.arg);

	if (m == NULL) {
		c[RTR_LBC_ctrl_alloc_failed]++;
		return;
	}
	/* byte 4: path_id; epoch copied; AckReq, ask_reply and tail 0. */
	if (rtr_lb_ctrl_build(m, frame, meta, meta->bth_b4,
			    RTR_CW_B8(op, phase, rtr_cw_epoch(meta->bth_b8), 0, 0), hdr) == NULL) {
		rte_pktmbuf_free(m);
		c[RTR_LBC_ctrl_alloc_failed]++;
		return;
	}
	if (op == RTR_LB_OP_NOTIFY)
		c[RTR_LBC_notifies]++;
	else if (phase)
		c[RTR_LBC_clears]++;
	else
		c[RTR_LBC_rtt_replies]++;
	cw->io.control(cw->io.arg, m);
}

static void send_control(struct rtr_cw *cw, const uint8_t *frame, const struct rtr_meta *meta,
		unsigned int op, unsigned int phase, uint16_t ts_tx, uint16_t ts_tail, uint64_t *c);

static void
emit_held(void *arg, struct rte_mbuf *m)
{
	struct rtr_cw *cw = arg;

	cw->held--;
	if (cw->clear_for != NULL) {
		/* D7: the CLEAR answers the oldest held packet; its copy was
		 * stripped, so the ConWeave fields are put back for the
		 * builder. */
		struct cw_dst *d = cw->clear_for;
		const struct cw_hold *h = hold_of(cw, d);
		struct rtr_meta tm = *rtr_meta(m);

		cw->clear_for = NULL;
		tm.bth_b4 = h->path_id;
		tm.bth_b8 = RTR_CW_B8(RTR_LB_OP_DATA, 1, d->epoch, 0, 0);
		d->clear_sent = 1;
		send_control(cw, rte_pktmbuf_mtod(m, const uint8_t *), &tm, RTR_LB_OP_REPLY, 1,
				h->ts_tx1, h->ts_tail, cw->cur_c);
	}
	cw->io.deliver(cw->io.arg, m, cw->cur_port, true);
}

static void
heap_push(struct rtr_cw *cw, uint64_t deadline, struct rtr_ft_entry *e, uint32_t gen)
{
	unsigned int i = cw->heap_n++;

	while (i > 0) {
		unsigned int up = (i - 1) / 2;

		if (cw->heap[up].deadline <= deadline)
			break;
		cw->heap[i] = cw->heap[up];
		i = up;
	}
	cw->heap[i] = (struct cw_timer){deadline, e, gen};
}

/*
 * The heap is full: drop the timers of holds that ended (released by a
 * TAIL, a flush or a new hold: their gen is stale) and rebuild it. A flow
 * has at most one live timer and at most one ring, and the heap has room
 * for every ring plus one, so this always makes room: the data path never
 * allocates (the heap is sized once at create).
 */
/* Put x at slot i of the heap's first n slots, moving it down below any
 * child with an earlier deadline (pop, and rebuilding after a compaction). */
static void
heap_sift_down(struct rtr_cw *cw, unsigned int i, struct cw_timer x, unsigned int n)
{
	for (;;) {
		unsigned int l = 2 * i + 1, s;

		if (l >= n)
			break;
		s = (l + 1 < n && cw->heap[l + 1].deadline < cw->heap[l].deadline) ? l + 1 : l;
		if (cw->heap[s].deadline >= x.deadline)
			break;
		cw->heap[i] = cw->heap[s];
		i = s;
	}
	cw->heap[i] = x;
}

static int
heap_compact(struct rtr_cw *cw)
{
	unsigned int i, j = 0;

	for (i = 0; i < cw->heap_n; i++) {
		if (hold_current(cw, cw->heap[i].e, cw->heap[i].gen))
			cw->heap[j++] = cw->heap[i];
	}
	cw->heap_n = j;
	for (i = j / 2; i-- > 0;)
		heap_sift_down(cw, i, cw->heap[i], j);
	return cw->heap_n < cw->heap_cap ? 0 : -1;
}

static void
heap_pop(struct rtr_cw *cw)
{
	struct cw_timer last = cw->heap[--cw->heap_n];

	if (cw->heap_n > 0)
		heap_sift_down(cw, 0, last, cw->heap_n);
}

/* Flush a flow's ring in order and give it back; the flow stops holding. */
static void
release_ring(struct rtr_cw *cw, struct cw_dst *d, uint64_t now, uint64_t *c)
{
	struct rtr_pring_pool *pool = cw->pool[d->port];
	struct rtr_pring *r = rtr_pring_at(pool, d->ring);
	struct cw_hold *h = hold_of(cw, d);
	uint64_t held_for = now - h->hold_start;

	cw->cur_port = d->port;
	cw->cur_c = c;
	rtr_pring_release(pool, r, emit_held, cw);
	cw->clear_for = NULL;
	d->ring = NO_RING;
	h->gen = 0; /* no hold's number: its heap entries are stale */
	c[RTR_LBC_reorder_queues_in_use]--;
	if (held_for > c[RTR_LBC_reorder_hold_max_ns] && now >= h->hold_start)
		c[RTR_LBC_reorder_hold_max_ns] = held_for;
}

/* D6: gap between the TAIL and the last phase-0 packet seen, SrcToR time,
 * at most rtr_cw_bound_gap_ns (the 16-bit difference could read 33 ms). */
static inline uint64_t
resume_gap(const struct rtr_cw *cw, const struct cw_dst *d)
{
	uint64_t cap = rtr_cw_bound_gap_ns(cw->p.resume_default_ns);
	int16_t diff;

	if (!d->phase0_seen)
		return cap;
	diff = (int16_t)(uint16_t)(hold_of(cw, d)->ts_tail - d->phase0_tx);
	return diff > 0 ? RTE_MIN((uint64_t)diff << 10, cap) : 0;
}

/* D6: the hold's deadline from a phase-0 arrival (or the hold's start when
 * there is none), never later than the hold's start plus the longest hold
 * (rtr_cw_max_hold_ns), however many phase-0 packets push it. */
static inline uint64_t
hold_deadline(const struct rtr_cw *cw, const struct cw_dst *d, uint64_t from)
{
	return RTE_MIN(from + resume_gap(cw, d) + cw->p.resume_extra_ns,
			hold_of(cw, d)->hold_start + cw->hold_max_ns);
}

/* ts_tx a before b, modulo 2^16. */
static inline bool
ts_before(uint16_t a, uint16_t b)
{
	return (int16_t)(uint16_t)(a - b) < 0;
}

int
rtr_cw_deliver(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t port, uint64_t now,
		struct rtr_lcore_stats *stats)
{
	struct rtr_cw *cw = state;
	uint64_t *c = stats->lb;
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
	const uint8_t b8 = meta->bth_b8;
	const unsigned int ep = rtr_cw_epoch(b8), ph = rtr_cw_phase(b8);
	const bool ask = rtr_cw_ask(b8), tail = rtr_cw_tail(b8);
	struct rtr_ft_entry *e;
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	struct cw_dst *d;
	uint16_t ts_tx, ts_tail;
	bool fresh;

	if (!(meta->flags & RTR_MF_LB_HDR) || rtr_lb_op(b8) != RTR_LB_OP_DATA) {
		rtr_lb_hdr_strip(m, meta);
		return RTR_CW_FORWARD;
	}
	if (unlikely(ph == 1 && (ask || tail))) {
		/* Never ConWeave's (its phase-1 packets ask nothing and are no
		 * TAIL): the DATA header of another mode of the layout, spray's
		 * (phase 1, tail) or CONGA's (phase 1, ask), from a SrcToR
		 * that runs it. Removed as the all-modes strip would, never
		 * held nor answered. */
		rtr_lb_hdr_strip(m, meta);
		c[RTR_LBC_foreign_cw_stripped]++;
		return RTR_CW_FORWARD;
	}
	read_ts(frame, meta, &ts_tx, &ts_tail);
	/* Counted as they arrive, late or not: the SrcToR's tails and
	 * rtt_requests minus these are what the network lost. */
	if (tail)
		c[RTR_LBC_tails_rx]++;
	else if (ask)
		c[RTR_LBC_rtt_requests_rx]++;
	rtr_ft_key_from_frame(&k, frame, meta, KIND_DST, false);
	e = rtr_ft_lookup(cw->fs.ft, &k, meta->flow_hash, now, true, RTR_FT_ORIGIN_NONE, &st);
	if (unlikely(e == NULL)) {
		/* No state: still answer what needs no state, never hold. */
		c[RTR_LBC_flow_table_full]++;
		if (ask && !tail)
			send_control(cw, frame, meta, RTR_LB_OP_REPLY, 0, ts_tx, ts_tail, c);
		if (rtr_meta_ce(meta))
			send_control(cw, frame, meta, RTR_LB_OP_NOTIFY, 0, ts_tx, ts_tail, c);
		if (tail) {
			send_control(cw, frame, meta, RTR_LB_OP_REPLY, 1, ts_tx, ts_tail, c);
		}
		rtr_lb_hdr_strip(m, meta);
		return RTR_CW_FORWARD;
	}
	d = dst_of(e);
	/* An entry idle for half the aging time is taken as new: its SrcToR
	 * may have forgotten the flow and restarted its epochs. */
	fresh = st == RTR_FT_NEW || !d->valid ||
		rtr_lb_idle(cw->fs.clock, now, meta->in_port, e->last_ns, cw->aging_ns / 2);
	e->last_ns = now;
	if (st == RTR_FT_NEW)
		d->ring = NO_RING;
	/* D1 */
	if (!fresh) {
		unsigned int diff = (ep - d->epoch) & 3;

		if (diff == 3) {
			c[RTR_LBC_late_epoch_packets]++;
			rtr_lb_hdr_strip(m, meta);
			return RTR_CW_FORWARD;
		}
		if (diff != 0) {
			/*
			 * 1 or 2 ahead: a new epoch, or (the field has 2
			 * bits) a straggler 3 or 2 epochs old. A new
			 * epoch's packets left the SrcToR after the
			 * current epoch's, a straggler before all of them
			 * (the paper's footnote 6): delivered at once,
			 * nothing changes.
			 */
			if (rtr_lb_since(rtr_lb_seen_in(cw->fs.clock, now, meta->in_port),
					    d->ep_rx) < STALE_WINDOW_NS &&
					ts_before(ts_tx, d->ep_tx)) {
				c[RTR_LBC_stale_epoch_packets]++;
				rtr_lb_hdr_strip(m, meta);
				return RTR_CW_FORWARD;
			}
			fresh = true;
		} else if (ts_before(ts_tx, d->ep_tx) ||
				rtr_lb_since(rtr_lb_seen_in(cw->fs.clock, now, meta->in_port),
						d->ep_rx) >= STALE_WINDOW_NS / 2) {
			/* An earlier packet of this epoch than the one seen
			 * first (it came by a slower path), or a reference
			 * that grows old: any packet of the epoch will do. */
			d->ep_tx = ts_tx;
			d->ep_rx = now;
		}
	}
	if (fresh) {
		if (d->ring != NO_RING) {
			c[RTR_LBC_epoch_overrun]++;
			release_ring(cw, d, now, c);
		}
		d->valid = 1;
		d->epoch = (uint8_t)ep;
		d->ep_tx = ts_tx;
		d->ep_rx = now;
		d->rx_phase = tail ? 1 : 0;
		d->phase0_seen = 0;
		d->tail_seen = 0;
		d->clear_sent = 0;
		d->no_reorder = 0;
	}
	/* D2 */
	if (ph == 0) {
		d->phase0_tx = ts_tx;
		d->phase0_rx = now;
		d->phase0_seen = 1;
		if (d->ring != NO_RING) {
			/* A later phase-0 packet pushes the deadline. */
			uint64_t dl = hold_deadline(cw, d, now);

			if (dl > hold_of(cw, d)->deadline)
				hold_of(cw, d)->deadline = dl;
		}
	}
	/* D3 */
	if (ask && !tail)
		send_control(cw, frame, meta, RTR_LB_OP_REPLY, 0, ts_tx, ts_tail, c);
	/* D4 (late packets returned above) */
	if (rtr_meta_ce(meta))
		send_control(cw, frame, meta, RTR_LB_OP_NOTIFY, 0, ts_tx, ts_tail, c);
	if (tail) {
		/* D5: the TAIL first, then what overtook it, then CLEAR. */
		d->tail_seen = 1;
		d->rx_phase = 1;
		if (!d->clear_sent) {
			d->clear_sent = 1;
			send_control(cw, frame, meta, RTR_LB_OP_REPLY, 1, ts_tx, ts_tail, c);
		}
		rtr_lb_hdr_strip(m, meta);
		if (d->ring != NO_RING) {
			cw->io.deliver(cw->io.arg, m, port, false);
			c[RTR_LBC_reorder_flush_tail]++;
			release_ring(cw, d, now, c);
			return RTR_CW_HELD; /* already delivered, ahead of the ring */
		}
		return RTR_CW_FORWARD;
	}
	if (ph == 1 && d->rx_phase == 0 && !d->no_reorder) {
		/* D6: it overtook the TAIL: hold it. */
		struct rtr_pring *r;
		struct cw_hold *h;

		if (unlikely(cw->held >= cw->hold_budget)) {
			/* D8 for the mempool: the worker
			 * holds all the mbufs it may (more would starve RX):
			 * release this flow's ring in order, then this one. */
			c[RTR_LBC_reorder_overflow]++;
			c[RTR_LBC_reorder_over_budget]++;
			d->no_reorder = 1;
			rtr_lb_hdr_strip(m, meta);
			if (d->ring != NO_RING)
				release_ring(cw, d, now, c);
			return RTR_CW_FORWARD;
		}
		if (d->ring == NO_RING) {
			struct rtr_pring_pool *pool = port < RTR_MAX_PORTS ? cw->pool[port] : NULL;

			r = pool ? rtr_pring_acquire(pool, e->key.hash) : NULL;
			if (r == NULL) {
				/* D8: no queue: this epoch is not reordered. */
				c[RTR_LBC_reorder_overflow]++;
				d->no_reorder = 1;
				rtr_lb_hdr_strip(m, meta);
				return RTR_CW_FORWARD;
			}
			if (cw->heap_n == cw->heap_cap && heap_compact(cw) != 0) {
				rtr_pring_release(cw->pool[port], r, NULL, NULL);
				c[RTR_LBC_reorder_overflow]++;
				d->no_reorder = 1;
				rtr_lb_hdr_strip(m, meta);
				return RTR_CW_FORWARD;
			}
			d->ring = (uint16_t)rtr_pring_index(r);
			d->port = (uint8_t)port;
			h = hold_of(cw, d);
			h->ts_tail = ts_tail;
			h->ts_tx1 = ts_tx;
			h->path_id = meta->bth_b4;
			h->hold_start = now;
			h->deadline = hold_deadline(cw, d, d->phase0_seen ? d->phase0_rx : now);
			if (++cw->hold_gen == 0) /* 0: no hold */
				cw->hold_gen = 1;
			h->gen = cw->hold_gen;
			heap_push(cw, h->deadline, e, h->gen);
			c[RTR_LBC_reorder_queues_in_use]++;
			if (c[RTR_LBC_reorder_queues_in_use] > c[RTR_LBC_reorder_queues_max])
				c[RTR_LBC_reorder_queues_max] = c[RTR_LBC_reorder_queues_in_use];
		} else {
			r = rtr_pring_at(cw->pool[d->port], d->ring);
			h = hold_of(cw, d);
			if ((int16_t)(uint16_t)(ts_tail - h->ts_tail) > 0) {
				/* A later ts_tail: the TAIL was still queued at
				 * the SrcToR when this packet left, or this is
				 * its departure (rtr_cw_depart). T_resume moves
				 * with it, within the longest hold. */
				uint64_t dl;

				h->ts_tail = ts_tail;
				dl = hold_deadline(cw, d,
						d->phase0_seen ? d->phase0_rx : h->hold_start);
				if (dl > h->deadline)
					h->deadline = dl;
			}
		}
		rtr_lb_hdr_strip(m, meta);
		if (rtr_pring_enqueue(r, m) != 0) {
			/* D8: full: release in order, then this one. */
			c[RTR_LBC_reorder_overflow]++;
			d->no_reorder = 1;
			release_ring(cw, d, now, c);
			return RTR_CW_FORWARD;
		}
		cw->held++;
		c[RTR_LBC_reorder_held]++;
		if (cw->io.hold != NULL)
			cw->io.hold(cw->io.arg, m, d->port);
		return RTR_CW_HELD;
	}
	rtr_lb_hdr_strip(m, meta);
	return RTR_CW_FORWARD;
}

/* D7: a deadline passed without the TAIL: release in order, rx_phase 1,
 * CLEAR (built from the oldest held packet, whose headers are the flow's). */
static void
expire(struct rtr_cw *cw, struct rtr_ft_entry *e, uint64_t now, uint64_t *c)
{
	struct cw_dst *d = dst_of(e);

	c[RTR_LBC_reorder_flush_timeout]++;
	d->rx_phase = 1;
	if (!d->clear_sent)
		cw->clear_for = d;
	release_ring(cw, d, now, c);
}

void
rtr_cw_tick(void *state, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_cw *cw = state;
	uint64_t *c = stats->lb;
	while (cw->heap_n > 0 && cw->heap[0].deadline <= now) {
		struct cw_timer t = cw->heap[0];
		struct cw_hold *h;

		heap_pop(cw);
		if (!hold_current(cw, t.e, t.gen))
			continue; /* released meanwhile */
		h = hold_of(cw, dst_of(t.e));
		if (h->deadline > now) {
			heap_push(cw, h->deadline, t.e,
					t.gen); /* pushed later; the pop made room */
			continue;
		}
		expire(cw, t.e, now, c);
	}
	rtr_lb_fs_age(&cw->fs, now);
}

uint64_t
rtr_cw_next_deadline(const void *state)
{
	const struct rtr_cw *cw = state;

	return cw->heap_n ? cw->heap[0].deadline : NEVER;
}

static unsigned int
flush_where(struct rtr_cw *cw, int port, uint64_t now, uint64_t *c)
{
	uint64_t before = cw->held;
	uint32_t cursor = 0;
	struct rtr_ft_entry *e;

	while ((e = rtr_ft_next(cw->fs.ft, &cursor)) != NULL) {
		struct cw_dst *d = dst_of(e);

		if (e->key.kind != KIND_DST || d->ring == NO_RING)
			continue;
		if (port >= 0 && d->port != port)
			continue;
		d->rx_phase = 1;
		release_ring(cw, d, now, c);
	}
	return (unsigned int)(before - cw->held);
}

unsigned int
rtr_cw_flush(void *state, int port, uint64_t now, struct rtr_lcore_stats *stats)
{
	return flush_where(state, port, now, stats->lb);
}

uint64_t
rtr_cw_held(const void *state)
{
	const struct rtr_cw *cw = state;

	return cw->held;
}

/* ------------------------------------------------------------- the mode */

/* Config microseconds become nanoseconds here; the switch's flow table size
 * is split between the workers. */
void *
rtr_cw_init(const struct rtr_lb_init *in)
{
	const struct rtr_conweave_cfg *cc = rtr_conweave_config(in->cfg);
	unsigned int nw = in->n_workers ? in->n_workers : 1;
	struct rtr_ft_limit lim[RTR_FT_ORIGINS];
	struct rtr_cw_params p = {
			.base_rtt_ns = (uint64_t)cc->base_rtt_us * 1000,
			.theta_reply_ns = (uint64_t)cc->theta_reply_us * 1000,
			.theta_path_busy_ns = (uint64_t)cc->theta_path_busy_us * 1000,
			.theta_inactive_ns = (uint64_t)cc->theta_inactive_us * 1000,
			.resume_extra_ns = (uint64_t)cc->resume_extra_us * 1000,
			.resume_default_ns = (uint64_t)cc->resume_default_us * 1000,
			.clear_timeout_ns = (uint64_t)cc->clear_timeout_us * 1000,
			.flow_entries = (cc->flow_table_size + nw - 1) / nw,
			.ft_limits = lim,
			.host_port_mask = in->host_port_mask,
			.n_rings = cc->reorder_queues_per_port,
			.ring_depth = cc->reorder_queue_depth,
			.hold_budget = in->hold_budget,
			.hash_seed = in->hash_seed,
			.rng_seed = (uint64_t)in->cfg->sw.id << 16 ^ in->hash_seed,
			.worker = in->worker,
			.socket_id = in->socket,
			.use_rte_malloc = in->use_rte_malloc,
			.shared = in->shared,
	};

	rtr_lb_ft_limits(in, p.flow_entries, lim);
	return rtr_lb_fs_clock(rtr_cw_create(&p, &in->io), in->clock);
}

static uint64_t
cw_mbuf_budget(const struct rtr_config *cfg, const char **key)
{
	const struct rtr_conweave_cfg *cc = rtr_conweave_config(cfg);

	/* conweave.hold_budget, or per host port what its rings can hold,
	 * capped like an egress port's share of the pool. */
	if (cc->hold_budget != 0) {
		*key = "conweave.hold_budget";
		return cc->hold_budget;
	}
	*key = NULL;
	return rtr_lb_hold_per_host_port(
			cfg, (uint64_t)cc->reorder_queues_per_port * cc->reorder_queue_depth);
}

static void
cw_flow_view(const struct rtr_lb_flow_info *f, const struct rtr_lb_kv *kv)
{
	kv->u64(kv->arg, "epoch", f->epoch);
	if (f->dst_role) {
		kv->u64(kv->arg, "rx_phase", f->phase);
		kv->u64(kv->arg, "held", f->held);
		if (f->deadline_in_ns != UINT64_MAX)
			kv->u64(kv->arg, "deadline_in_us", f->deadline_in_ns / 1000);
		return;
	}
	kv->u64(kv->arg, "phase", f->phase);
	kv->u64(kv->arg, "path", f->path);
	kv->u64(kv->arg, "stabilized", f->stabilized);
	if (f->reply_deadline_in_ns != UINT64_MAX)
		kv->u64(kv->arg, "reply_deadline_in_us", f->reply_deadline_in_ns / 1000);
}

const struct rtr_lb_ops rtr_lb_conweave = {
		.name = "conweave",
		.mode = RTR_LB_CONWEAVE,
		.flow_affinity = true,
		.fabric_parse_flags = RTR_LB_PARSE_HDR,
		.table = rtr_lb_fs_table,
		.deliver_flags = RTR_MF_LB_HDR,
		.shared_create = rtr_cw_shared_create,
		.shared_free = rtr_cw_shared_free,
		.init = rtr_cw_init,
		.fini = rtr_cw_free,
		.pick = rtr_cw_pick,
		.prefetch = rtr_lb_fs_prefetch,
		.control_rx = rtr_cw_control_rx,
		.depart = rtr_cw_depart,
		.deliver = rtr_cw_deliver,
		.tick = rtr_cw_tick,
		.next_deadline = rtr_cw_next_deadline,
		.flush = rtr_cw_flush,
		.held = rtr_cw_held,
		.flows = rtr_lb_fs_flows,
};

bool
rtr_cw_host_strip(struct rte_mbuf *m, struct rtr_meta *meta, uint64_t *c)
{
	if (!(meta->flags & RTR_MF_LB_HDR) || rtr_lb_op(meta->bth_b8) != RTR_LB_OP_DATA)
		return false;
	/* Header, byte 4 and Resv7: the sender's frame again. */
	rtr_lb_hdr_strip(m, meta);
	c[RTR_LBC_foreign_cw_stripped]++;
	return true;
}

/* What rtr_cw_create and rtr_cw_shared_create allocate from the DPDK heap:
 * a worker's flow table and the reorder rings of every host port; the
 * busy-path table once. */
static void
cw_state_bytes(const struct rtr_config *cfg, unsigned int n_workers, uint64_t *per_worker,
		uint64_t *shared)
{
	const struct rtr_conweave_cfg *cc = rtr_conweave_config(cfg);
	uint32_t hosts = rtr_lb_host_ports(cfg);

	*per_worker = rtr_lb_ft_bytes(cc->flow_table_size, n_workers,
			RTE_MAX(sizeof(struct cw_src), sizeof(struct cw_dst)));
	if (cc->reorder_queues_per_port > 0)
		*per_worker += (uint64_t)__builtin_popcount(hosts) *
			       (rtr_pring_pool_memsize(cc->reorder_queues_per_port,
						cc->reorder_queue_depth) +
					       sizeof(struct cw_hold) *
							       cc->reorder_queues_per_port);
	*shared = rtr_pm_memsize_cfg(cfg, cc->dst_prefix_len, cc->dst_prefix_len6);
}

const struct rtr_lb_desc rtr_lb_conweave_desc = {
		.name = "conweave",
		.summary = "ConWeave: reroute every RTT, reorder at the DstToR",
		.ops = &rtr_lb_conweave,
		.config = &rtr_conweave_section,
		.spine = RTR_LB_SPINE_ECMP,
		.mbuf_budget = cw_mbuf_budget,
		.state_bytes = cw_state_bytes,
		.flow_view = cw_flow_view,
		.counter_first = RTR_LBC_CW_FIRST,
		.n_counters = RTR_LBC_CW_N,
		.host_check = rtr_lb_ctrl_host_check,
		.host_strip = rtr_cw_host_strip,
};
