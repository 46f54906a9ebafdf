/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * lb: spray, ALGORITHMS.md 6. The SrcToR numbers a flow's RoCE data
 * packets and sends each on the next live path of its group; the DstToR
 * delivers them in number order, holding early ones in a per-flow reorder
 * window until their gap fills or a deadline passes. doc/spray.md explains
 * the choices this file makes.
 */

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include "rtr_common.h"
#include "conweave/rtr_conweave.h"
#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "rtr_lb_ctrl.h"
#include "rtr_lb_fs.h"
#include "rtr_lb_mem.h"
#include "rtr_mbuf.h"
#include "rtr_pathmark.h"
#include "rtr_spray.h"
#include "rtr_stats.h"
#include "spray_config.h"

#define NEVER    UINT64_MAX
#define KIND_SRC 1
#define KIND_DST 2
#define NO_WIN   0xffff /* so a pool has at most NO_WIN windows (0..NO_WIN - 1) */

/* ------------------------------------------------------------------ state */

/* SrcToR state of one flow. */
struct sp_src {
	uint32_t seq;   /* the number the next packet gets */
	uint16_t group; /* the uplink group (a NOTIFY's marks are per group) */
	uint8_t cursor; /* the path the next packet tries first */
	uint8_t path;   /* the last packet's (telemetry) */
};

/* DstToR state of one flow. */
struct sp_dst {
	uint64_t gap_t0; /* the last gap given up on: its window's first arrival */
	uint32_t gap_lo; /* ... and the numbers it skipped over, [gap_lo, gap_hi) */
	uint32_t gap_hi;
	uint32_t next; /* the number delivered next */
	uint16_t win;  /* its reorder window, NO_WIN */
	uint8_t port;  /* host port of the window */
	uint8_t valid;
};

/* A reorder window: W slots indexed by (seq - base) % W, for numbers next + 1 ..
 * next + W - 1 of its flow (next itself is never held). */
struct sp_win {
	uint64_t deadline;      /* t_first + the timeout when it was set */
	uint64_t t_first;       /* earliest arrival among the held packets */
	struct rtr_ft_entry *e; /* the flow */
	uint32_t heap_pos;
	uint32_t n_held;
	/* Number n is in slot (n - base) % W: base is next when the window
	 * was taken, so a flow's few held packets sit in the window's first
	 * slots, the lines the window's last user touched too. */
	uint32_t base;
};

struct rtr_sp {
	struct rtr_lb_fs fs; /* first: the flow-state base (rtr_lb_fs.h) */
	struct rtr_sp_params p;
	struct rtr_lb_io io;
	uint32_t w; /* window slots */
	/* Slots from one window to the next: W and one cache line more, so
	 * the windows' first lines (where a flow's few held packets go) fall
	 * in different cache sets; at W apart (a power of two, 16 KB at the
	 * default) they would all compete for the same few ways. */
	uint32_t stride;
	uint32_t wmask;
	uint64_t aging_ns;
	struct sp_win *win; /* n_windows */
	/* n_windows * w: a held packet and its arrival side by side, one
	 * cache line touched per packet held or released. */
	struct sp_slot {
		struct rte_mbuf *m;
		uint64_t t_in;
	} * slot;
	uint16_t *free_win; /* stack of free window indices */
	uint32_t n_free;
	uint16_t *heap; /* windows holding packets, by deadline */
	uint32_t n_heap;
	/* SrcToR: this worker's stamped packets in each port's egress queue
	 * (queued, not departed yet): the local congestion of each uplink. */
	uint32_t inq[RTR_MAX_PORTS];
	uint64_t held;        /* packets in windows now */
	uint64_t hold_budget; /* at most this many (p.hold_budget, 0: no limit) */
	/* The gap timeout: fixed, or auto from the skew estimate. */
	uint64_t timeout_ns;
	/* Skew samples, a log histogram (rtr_sp_skew_bucket), halved every
	 * SKEW_HALVE samples so that it follows the paths as they change. */
	uint32_t skew_hist[RTR_SP_SKEW_BUCKETS];
	uint32_t skew_n;
	uint32_t skew_top; /* no sample in a bucket above this */
};

static inline struct sp_src *
src_of(struct rtr_ft_entry *e)
{
	return (struct sp_src *)rtr_ft_value(e);
}

static inline struct sp_dst *
dst_of(struct rtr_ft_entry *e)
{
	return (struct sp_dst *)rtr_ft_value(e);
}

/* A flow that holds packets must not age out: its window points to it. */
static bool
sp_pinned(const struct rtr_ft_entry *e)
{
	const struct sp_dst *d = (const struct sp_dst *)e->value;

	return e->key.kind == KIND_DST && d->win != NO_WIN;
}

static inline struct rte_mbuf **
slot_of(struct rtr_sp *sp, uint32_t w, uint32_t seq)
{
	return &sp->slot[(size_t)w * sp->stride + ((seq - sp->win[w].base) & sp->wmask)].m;
}

static inline uint64_t *
tin_of(struct rtr_sp *sp, uint32_t w, uint32_t seq)
{
	return &sp->slot[(size_t)w * sp->stride + ((seq - sp->win[w].base) & sp->wmask)].t_in;
}

/* ------------------------------------------------------------------ timers */

/* A min-heap of the windows holding packets, by deadline; each window
 * knows its place, so a deadline moves or a window leaves in log time and
 * the heap never holds stale entries (at most n_windows of them). */
static inline bool
heap_less(const struct rtr_sp *sp, uint32_t a, uint32_t b)
{
	return sp->win[sp->heap[a]].deadline < sp->win[sp->heap[b]].deadline;
}

static inline void
heap_swap(struct rtr_sp *sp, uint32_t a, uint32_t b)
{
	uint16_t t = sp->heap[a];

	sp->heap[a] = sp->heap[b];
	sp->heap[b] = t;
	sp->win[sp->heap[a]].heap_pos = a;
	sp->win[sp->heap[b]].heap_pos = b;
}

static void
heap_fix(struct rtr_sp *sp, uint32_t i)
{
	while (i > 0 && heap_less(sp, i, (i - 1) / 2)) {
		heap_swap(sp, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	for (;;) {
		uint32_t l = 2 * i + 1, s = i;

		if (l < sp->n_heap && heap_less(sp, l, s))
			s = l;
		if (l + 1 < sp->n_heap && heap_less(sp, l + 1, s))
			s = l + 1;
		if (s == i)
			break;
		heap_swap(sp, i, s);
		i = s;
	}
}

static void
heap_add(struct rtr_sp *sp, uint16_t w)
{
	uint32_t i = sp->n_heap++;

	sp->heap[i] = w;
	sp->win[w].heap_pos = i;
	heap_fix(sp, i);
}

static void
heap_del(struct rtr_sp *sp, uint16_t w)
{
	uint32_t i = sp->win[w].heap_pos, last = --sp->n_heap;

	if (i != last) {
		heap_swap(sp, i, last);
		heap_fix(sp, i);
	}
}

/* ------------------------------------------------------------------ setup */

uint64_t
rtr_sp_aging_ns(const struct rtr_sp_params *p)
{
	/* Far beyond any hold (held flows are pinned anyway) and any gap
	 * between two packets of one transfer. */
	uint64_t longest = p->timeout_ns > p->timeout_max_ns ? p->timeout_ns : p->timeout_max_ns;

	return RTE_MAX(100000000ULL, 4 * longest);
}

uint64_t
rtr_sp_timeout_ns(const void *state)
{
	const struct rtr_sp *sp = state;

	return sp->timeout_ns;
}

/* The telemetry view of one flow (rtr_lb_fs.fill), either role. */
static void
sp_fill(const void *state, struct rtr_ft_entry *e, uint64_t now, struct rtr_lb_flow_info *fi)
{
	const struct rtr_sp *sp = state;

	if (e->key.kind == KIND_SRC) {
		const struct sp_src *s = src_of(e);

		fi->path = s->path;
		fi->seq = s->seq;
	} else {
		const struct sp_dst *d = dst_of(e);

		fi->dst_role = true;
		fi->seq = d->next;
		if (d->win != NO_WIN) {
			const struct sp_win *w = &sp->win[d->win];

			fi->held = w->n_held;
			fi->deadline_in_ns = w->deadline > now ? w->deadline - now : 0;
		}
	}
}

static void *
sp_alloc(const struct rtr_sp_params *p, const char *name, size_t n)
{
	return rtr_lb_zalloc(name, RTE_MAX(n, (size_t)64), p->use_rte_malloc, p->socket_id);
}

struct rtr_sp *
rtr_sp_create(const struct rtr_sp_params *p, const struct rtr_lb_io *io)
{
	struct rtr_sp *sp;
	struct rtr_ft_params fp;
	char name[64];

	if (p->n_windows == 0 || p->n_windows > NO_WIN || p->window_slots < 2 ||
			!rte_is_power_of_2(p->window_slots)) {
		errno = EINVAL;
		return NULL;
	}
	sp = calloc(1, sizeof(*sp));
	if (sp == NULL)
		return NULL;
	sp->p = *p;
	sp->io = *io;
	sp->w = p->window_slots;
	sp->wmask = p->window_slots - 1;
	sp->stride = p->window_slots + RTE_CACHE_LINE_SIZE / sizeof(*sp->slot);
	sp->aging_ns = rtr_sp_aging_ns(p);
	sp->hold_budget = p->hold_budget ? p->hold_budget : UINT64_MAX;
	/* Before any sample the longest wait: a gap is never given up
	 * earlier than configured until the skew is known. */
	sp->timeout_ns = p->timeout_ns ? p->timeout_ns : p->timeout_max_ns;
	snprintf(name, sizeof(name), "sp_flows_%u", p->worker);
	fp = (struct rtr_ft_params){
			.name = name,
			.entries = p->flow_entries,
			.limits = p->ft_limits,
			.value_size = RTE_MAX(sizeof(struct sp_src), sizeof(struct sp_dst)),
			.aging_ns = sp->aging_ns,
			.pinned = sp_pinned,
			.socket_id = p->socket_id,
			.use_rte_malloc = p->use_rte_malloc,
	};
	sp->fs.ft = rtr_ft_create(&fp);
	sp->fs.fill = sp_fill;
	sp->p.ft_limits = NULL; /* the caller's, gone after create */
	if (sp->fs.ft == NULL)
		goto fail;
	snprintf(name, sizeof(name), "sp_win_%u", p->worker);
	sp->win = sp_alloc(p, name, sizeof(*sp->win) * p->n_windows);
	sp->slot = sp_alloc(p, name, sizeof(*sp->slot) * (size_t)p->n_windows * sp->stride);
	sp->free_win = sp_alloc(p, name, sizeof(*sp->free_win) * p->n_windows);
	sp->heap = sp_alloc(p, name, sizeof(*sp->heap) * p->n_windows);
	if (!sp->win || !sp->slot || !sp->free_win || !sp->heap)
		goto fail;
	/* Lowest index on top: window 0 is taken first. */
	for (uint32_t i = 0; i < p->n_windows; i++)
		sp->free_win[i] = (uint16_t)(p->n_windows - 1 - i);
	sp->n_free = p->n_windows;
	return sp;
fail:
	rtr_sp_free(sp);
	return NULL;
}

void
rtr_sp_free(void *state)
{
	struct rtr_sp *sp = state;
	bool rte;

	if (sp == NULL)
		return;
	rte = sp->p.use_rte_malloc;
	/* Nothing is lost but what the switch is stopping with: held mbufs
	 * go back to their pool. */
	if (sp->slot != NULL && sp->win != NULL) {
		for (uint32_t i = 0; i < sp->n_heap; i++) {
			uint32_t w = sp->heap[i];

			for (uint32_t s = 0; s < sp->w; s++) {
				struct rte_mbuf **m = &sp->slot[(size_t)w * sp->stride + s].m;

				if (*m == NULL)
					continue;
				if (sp->p.mbuf_free != NULL)
					sp->p.mbuf_free(*m);
				else
					rte_pktmbuf_free(*m);
				*m = NULL;
			}
		}
	}
	rtr_ft_free(sp->fs.ft);
	rtr_lb_zfree(sp->win, rte);
	rtr_lb_zfree(sp->slot, rte);
	rtr_lb_zfree(sp->free_win, rte);
	rtr_lb_zfree(sp->heap, rte);
	free(sp);
}

/* ------------------------------------------------------------------ SrcToR */

/* This worker's packets in the egress queue of path p's port. */
static inline uint32_t
path_inq(const struct rtr_sp *sp, const struct rtr_group *g, unsigned int p)
{
	uint16_t port = g->port[p];

	return port < RTR_MAX_PORTS ? sp->inq[port] : 0;
}

/*
 * The flow's next path: the first live one at or after its cursor, round
 * robin, that is not congested: not marked busy toward the flow's
 * destination by a NOTIFY (while some path is not), and its uplink queue
 * holds at most queue_slack of this worker's stamped packets more than the
 * least loaded candidate's. A path that went down is skipped at once; one
 * that comes back is used again at its turn. Taking paths in turn keeps
 * the skew between them small (what the DstToR has to absorb); the skips
 * keep a path that cannot keep up (a slower or busier link) from making
 * the flow's packets on it the late ones.
 */
static inline unsigned int
next_path(struct rtr_sp *sp, const struct rtr_group *g, struct sp_src *s, uint64_t live,
		const uint8_t *k_dst, bool k_v6, uint64_t now, uint64_t *c)
{
	unsigned int n_paths = g->n_paths, p;
	uint64_t ok = live;

	if (sp->p.shared != NULL && ok != 0) {
		/* Paths a NOTIFY said are congested toward this destination
		 * (CE marks the DstToR saw on them): out of turn while any
		 * path is not. */
		struct rtr_pm_ref r;
		uint64_t free_ = ok;

		if (rtr_pm_ref(sp->p.shared, s->group, k_dst, k_v6, &r))
			for (uint64_t l = ok; l != 0; l &= l - 1) {
				unsigned int q = (unsigned int)__builtin_ctzll(l);

				if (rtr_pm_marked(sp->p.shared, &r, q, now))
					free_ &= ~(1ULL << q);
			}
		if (free_ != 0)
			ok = free_;
	}
	if (sp->p.queue_slack != 0) {
		uint32_t least = UINT32_MAX;
		uint64_t l;

		for (l = ok; l != 0; l &= l - 1)
			least = RTE_MIN(least, path_inq(sp, g, (unsigned int)__builtin_ctzll(l)));
		for (l = ok; l != 0; l &= l - 1) {
			unsigned int q = (unsigned int)__builtin_ctzll(l);

			if (path_inq(sp, g, q) > least + sp->p.queue_slack)
				ok &= ~(1ULL << q);
		}
	}
	{
		uint64_t after = s->cursor < 64 ? ok & (~0ULL << s->cursor) : 0;
		uint64_t turn = s->cursor < 64 ? live & (~0ULL << s->cursor) : 0;

		p = (unsigned int)__builtin_ctzll(after != 0 ? after : ok);
		/* The live path whose turn it was, skipped: busy or queued. */
		if ((unsigned int)__builtin_ctzll(turn != 0 ? turn : live) != p)
			c[RTR_LBC_spray_queue_skips]++;
	}
	s->cursor = (uint8_t)(p + 1 < n_paths ? p + 1 : 0);
	s->path = (uint8_t)p;
	return p;
}

/* One of this switch's stamped packets (from a host port, spray's
 * marker): what queued and depart count. */
static inline bool
ours(const struct rtr_sp *sp, const struct rtr_meta *meta)
{
	return (meta->flags & RTR_MF_LB_HDR) &&
	       (meta->bth_b8 & RTR_BTH_RESV7_MASK) == RTR_SPRAY_B8 &&
	       meta->in_port < RTR_MAX_PORTS && (sp->p.host_port_mask >> meta->in_port & 1);
}

/* rtr_lb_ops.queued: a packet admitted to out_port's egress queue. */
void
rtr_sp_queued(void *state, const struct rte_mbuf *m, const struct rtr_meta *meta, uint16_t out_port)
{
	struct rtr_sp *sp = state;

	RTE_SET_USED(m);
	if (out_port < RTR_MAX_PORTS && ours(sp, meta))
		sp->inq[out_port]++;
}

/* rtr_lb_ops.depart: one of ours leaves its egress queue (the egress calls
 * it for every packet with RTR_LB_DEPART_FLAGS from a host port). */
void
rtr_sp_depart(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now,
		struct rtr_lcore_stats *stats)
{
	struct rtr_sp *sp = state;

	RTE_SET_USED(m);
	RTE_SET_USED(now);
	RTE_SET_USED(stats);
	if (meta->out_port < RTR_MAX_PORTS && ours(sp, meta) && sp->inq[meta->out_port] > 0)
		sp->inq[meta->out_port]--;
}

int
rtr_sp_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_sp *sp = state;
	uint64_t *c = stats->lb;
	uint64_t live;
	struct rtr_ft_entry *e;
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	struct sp_src *s;
	uint8_t *frame, *bth, *h;
	unsigned int path;

	/* Only a host's RoCE data is sprayed: ACK/NAK/CNP (whose order the
	 * RNICs do not need restored, and which carry no header), other
	 * traffic and frames that already carry LB fields (transit) go by
	 * ECMP untouched. */
	if (!rtr_meta_is_roce_data(meta) || (meta->flags & (RTR_MF_LB_HDR | RTR_MF_TRIMMED)))
		goto ecmp;
	if (unlikely(meta->bth_b8 & RTR_BTH_RESV7_MASK)) {
		/* The sender's Resv7 is covered by the ICRC: no room for the
		 * marker. ECMP keeps the flow on one path. */
		c[RTR_LBC_spray_unstamped]++;
		goto ecmp;
	}
	live = atomic_load_explicit(&g->live_mask, memory_order_relaxed);
	if (live == 0)
		return -1;
	if (unlikely(rte_pktmbuf_headroom(m) < RTR_LB_HDR_LEN) && rtr_lb_make_headroom(m) != 0) {
		c[RTR_LBC_spray_unstamped]++;
		goto ecmp;
	}
	frame = rte_pktmbuf_mtod(m, uint8_t *);
	rtr_ft_key_from_frame(&k, frame, meta, KIND_SRC, false);
	e = rtr_ft_lookup(sp->fs.ft, &k, meta->flow_hash, now, true, meta->in_port, &st);
	if (unlikely(e == NULL)) {
		rtr_ft_count_refusal(st, c);
		goto ecmp;
	}
	s = src_of(e);
	e->last_ns = now;
	if (st == RTR_FT_NEW) {
		s->seq = sp->p.first_seq;
		/* Flows start on different paths, so that short ones spread
		 * too. */
		s->cursor = (uint8_t)(g->n_paths ? meta->flow_hash % g->n_paths : 0);
	}
	/* A port that went down flushed its queue without departures: its
	 * count starts again from 0 (checked here, where it would be read). */
	for (uint64_t l = ~live & (g->n_paths >= 64 ? ~0ULL : (1ULL << g->n_paths) - 1); l != 0;
			l &= l - 1) {
		uint16_t port = g->port[__builtin_ctzll(l)];

		if (port < RTR_MAX_PORTS)
			sp->inq[port] = 0;
	}
	s->group = (uint16_t)g_idx;
	path = next_path(sp, g, s, live, k.dst, k.v6, now, c);
	frame = rtr_lb_hdr_insert(m, meta);
	if (unlikely(frame == NULL))
		goto ecmp; /* headroom was checked: not reached */
	bth = frame + rtr_meta_bth_off(meta);
	bth[4] = (uint8_t)path;
	bth[8] = (uint8_t)((bth[8] & RTR_BTH_ACKREQ) | RTR_SPRAY_B8);
	h = bth + RTR_BTH_LEN;
	h[0] = (uint8_t)(s->seq >> 24);
	h[1] = (uint8_t)(s->seq >> 16);
	h[2] = (uint8_t)(s->seq >> 8);
	h[3] = (uint8_t)s->seq;
	s->seq++;
	meta->bth_b4 = bth[4];
	meta->bth_b8 = bth[8];
	meta->flags |= RTR_MF_LB_HDR;
	c[RTR_LBC_sprayed]++;
	return (int)path;
ecmp:
	c[RTR_LBC_ecmp_packets]++;
	return rtr_group_pick(g, meta->flow_hash);
}

/* A NOTIFY from the DstToR of one of our flows (the ConWeave control
 * layout, cw_op 3, byte 4 = the path the CE-marked packet took): that path
 * is busy toward the flow's destination for busy_ns. */
void
rtr_sp_control_rx(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now,
		struct rtr_lcore_stats *stats)
{
	struct rtr_sp *sp = state;
	uint64_t *c = stats->lb;
	const uint8_t *frame = rte_pktmbuf_mtod(m, const uint8_t *);
	struct rtr_pm *busy = sp->p.shared;
	struct rtr_ft_entry *e;
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	struct rtr_pm_ref r;
	int ret;

	if (rtr_lb_op(meta->bth_b8) != RTR_LB_OP_NOTIFY) {
		c[RTR_LBC_foreign_ctrl]++;
		return;
	}
	c[RTR_LBC_notifies_rx]++;
	rtr_ft_key_from_frame(&k, frame, meta, KIND_SRC, true);
	e = rtr_ft_lookup(sp->fs.ft, &k, rtr_flow_hash_reverse(frame, meta, sp->p.hash_seed), now,
			false, RTR_FT_ORIGIN_NONE, &st);
	if (e == NULL) {
		c[RTR_LBC_ctrl_no_flow]++;
		return;
	}
	if (busy == NULL || !rtr_pm_ref(busy, src_of(e)->group, k.dst, k.v6, &r) ||
			meta->bth_b4 >= r.n_paths)
		return;
	ret = rtr_pm_mark(busy, &r, meta->bth_b4, now + sp->p.busy_ns, now);
	if (ret != RTR_PM_MARKED)
		c[RTR_LBC_dst_slot_evictions]++;
	if (ret != RTR_PM_LOST)
		c[RTR_LBC_busy_paths]++;
}

void *
rtr_sp_shared_create(const struct rtr_config *cfg, unsigned int n_groups, bool rte, int socket)
{
	const struct rtr_spray_cfg *sc = rtr_spray_config(cfg);
	struct rtr_pm_group groups[RTR_MAX_GROUPS];
	struct rtr_pm_params p = {
			.name = "sp_busy",
			.n_groups = RTE_MIN(n_groups, (unsigned int)RTR_MAX_GROUPS),
			.groups = groups,
			.dst_prefix_len = sc->dst_prefix_len,
			.dst_prefix_len6 = sc->dst_prefix_len6,
			.use_rte_malloc = rte,
			.socket = socket,
	};

	if (sc->busy_us == 0)
		return NULL;
	rtr_pm_groups_of(cfg, groups, p.n_groups);
	return rtr_pm_create(&p);
}

void
rtr_sp_shared_free(void *shared)
{
	rtr_pm_free(shared);
}

/* ------------------------------------------------------------------ DstToR */

/* A CE-marked stamped packet: tell its SrcToR which path is congested
 * (a NOTIFY, the layout ConWeave's and SeqBalance's share), before the
 * header goes. */
static void
send_notify(struct rtr_sp *sp, const uint8_t *frame, const struct rtr_meta *meta, uint64_t *c)
{
	static const uint8_t hdr[RTR_LB_HDR_LEN];
	struct rte_mbuf *n = sp->io.alloc(sp->io.arg);

	if (n == NULL) {
		c[RTR_LBC_ctrl_alloc_failed]++;
		return;
	}
	if (rtr_lb_ctrl_build(n, frame, meta, meta->bth_b4, (uint8_t)(RTR_LB_OP_NOTIFY << 5),
			    hdr) == NULL) {
		rte_pktmbuf_free(n);
		c[RTR_LBC_ctrl_alloc_failed]++;
		return;
	}
	c[RTR_LBC_notifies]++;
	sp->io.control(sp->io.arg, n);
}

/*
 * One skew sample (how long a gap kept packets waiting before it filled)
 * into the auto timeout: the 99.9th percentile of the recent samples (the
 * upper bound of its histogram bucket, so at most 25% above) plus the
 * margin, clamped to [min, max]. A percentile, not an average: the timeout
 * must cover the slow tail of the skew, and most gaps fill in a fraction
 * of it (in the simulator at 80% load an average + 4 deviations sat at the
 * minimum and gave up on gaps that were only late).
 */
#define SKEW_HALVE 4096
static void
skew_sample(struct rtr_sp *sp, uint64_t sample, uint64_t *c)
{
	uint32_t b = rtr_sp_skew_bucket(sample), tail = 0, i;
	uint64_t t;

	if (sp->p.timeout_ns != 0)
		return;
	sp->skew_hist[b]++;
	sp->skew_n++;
	if (b > sp->skew_top)
		sp->skew_top = b;
	if (sp->skew_n >= SKEW_HALVE) {
		/* Old samples weigh half: a path that was slow once is
		 * forgotten after a few thousand gaps. */
		sp->skew_n = 0;
		sp->skew_top = 0;
		for (i = 0; i < RTR_SP_SKEW_BUCKETS; i++) {
			sp->skew_hist[i] >>= 1;
			sp->skew_n += sp->skew_hist[i];
			if (sp->skew_hist[i] != 0)
				sp->skew_top = i;
		}
	}
	/* The bucket where more than 1 in 1000 samples lie at or above. */
	for (i = sp->skew_top; i > 0; i--) {
		tail += sp->skew_hist[i];
		if ((uint64_t)tail * 1000 > sp->skew_n)
			break;
	}
	t = rtr_sp_skew_bucket_end(i) + sp->p.margin_ns;
	if (t < sp->p.timeout_min_ns)
		t = sp->p.timeout_min_ns;
	sp->timeout_ns = RTE_MIN(t, sp->p.timeout_max_ns);
	c[RTR_LBC_spray_timeout_ns] = sp->timeout_ns;
}

/* Hand a held packet to the host port, in its turn. */
static inline void
emit(struct rtr_sp *sp, struct sp_dst *d, uint32_t w, uint32_t seq, uint64_t now, uint64_t *c)
{
	struct rte_mbuf **slot = slot_of(sp, w, seq);
	struct rte_mbuf *m = *slot;
	uint64_t waited = now - *tin_of(sp, w, seq);

	*slot = NULL;
	sp->win[w].n_held--;
	sp->held--;
	if (waited > c[RTR_LBC_spray_hold_max_ns] && now >= *tin_of(sp, w, seq))
		c[RTR_LBC_spray_hold_max_ns] = waited;
	sp->io.deliver(sp->io.arg, m, d->port, true);
}

/* The window holds nothing more: back to the pool. */
static void
win_put(struct rtr_sp *sp, struct sp_dst *d, uint64_t *c)
{
	heap_del(sp, d->win);
	sp->win[d->win].e = NULL;
	sp->free_win[sp->n_free++] = d->win;
	d->win = NO_WIN;
	c[RTR_LBC_windows_in_use]--;
}

/* After next moved: give the window back, or re-arm its deadline from the
 * packets still held (each waits at most the timeout from its arrival). */
static void
win_settle(struct rtr_sp *sp, struct sp_dst *d, uint64_t *c)
{
	struct sp_win *w = &sp->win[d->win];
	uint64_t first = NEVER;

	if (w->n_held == 0) {
		win_put(sp, d, c);
		return;
	}
	/* Up to the last held packet, not the whole window. */
	for (uint32_t i = 1, found = 0; i < sp->w && found < w->n_held; i++) {
		uint32_t seq = d->next + i;

		if (*slot_of(sp, d->win, seq) != NULL) {
			first = RTE_MIN(first, *tin_of(sp, d->win, seq));
			found++;
		}
	}
	w->t_first = first;
	w->deadline = first + sp->timeout_ns;
	heap_fix(sp, w->heap_pos);
}

/* Deliver the run of held packets from next on; returns how many. */
static unsigned int
release_run(struct rtr_sp *sp, struct sp_dst *d, uint64_t now, uint64_t *c)
{
	unsigned int n = 0;

	while (sp->win[d->win].n_held > 0 && *slot_of(sp, d->win, d->next) != NULL) {
		emit(sp, d, d->win, d->next, now, c);
		d->next++;
		n++;
	}
	c[RTR_LBC_released_in_order] += n;
	return n;
}

/*
 * Deliver everything the flow holds, in number order, with m (number seq,
 * or none when m is NULL) in its place among them; next goes past the
 * last one delivered (the gaps are skipped) and the window goes back.
 * Returns the numbers skipped.
 */
static uint32_t
release_all(struct rtr_sp *sp, struct sp_dst *d, struct rte_mbuf *m, uint32_t seq, uint16_t port,
		uint64_t now, uint64_t *c)
{
	uint32_t from = d->next, last = d->next - 1, delivered = 0, skipped;
	/* m's place: its distance from next (any when it is beyond the
	 * window: after every held packet). */
	uint32_t m_at = m != NULL ? seq - from : UINT32_MAX;

	if (d->win != NO_WIN) {
		uint32_t win = d->win;

		for (uint32_t i = 0; i < sp->w; i++) {
			if (m != NULL && i == m_at) {
				sp->io.deliver(sp->io.arg, m, port, false);
				m = NULL;
				last = from + i;
				delivered++;
			}
			if (*slot_of(sp, win, from + i) != NULL) {
				emit(sp, d, win, from + i, now, c);
				last = from + i;
				delivered++;
			}
			/* Nothing held beyond: m, if it is still to go, goes
			 * after the loop, at the same place. */
			if (sp->win[win].n_held == 0)
				break;
		}
		win_put(sp, d, c);
	}
	if (m != NULL) {
		sp->io.deliver(sp->io.arg, m, port, false);
		last = seq;
		delivered++;
	}
	skipped = (last + 1 - from) - delivered;
	if (delivered > 0)
		d->next = last + 1;
	return skipped;
}

/* The first packet of a flow's entry (new, or idle for half the aging
 * time: its SrcToR may have forgotten it and numbered from 0 again), or a
 * number 0 that restarts a busy flow (is_new: reset whatever next is). */
static void
dst_fresh(struct rtr_sp *sp, struct sp_dst *d, uint32_t seq, bool is_new, uint64_t *c)
{
	/* Still in step with the numbers: nothing to reset. */
	if (!is_new && d->valid && (uint32_t)(seq - d->next + sp->w) < 2 * sp->w)
		return;
	/* A SrcToR numbers a new flow from 0: a first arrival that low is
	 * an early packet of a new flow (hold it, 0 may follow); else the
	 * stream is joined where it is. */
	d->next = seq < sp->w ? 0 : seq;
	d->gap_hi = d->gap_lo; /* no straggler of an old gap to wait for */
	d->valid = 1;
	c[RTR_LBC_spray_resync]++;
}

int
rtr_sp_deliver(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t port, uint64_t now,
		struct rtr_lcore_stats *stats)
{
	struct rtr_sp *sp = state;
	uint64_t *c = stats->lb;
	uint8_t *frame = rte_pktmbuf_mtod(m, uint8_t *);
	struct rtr_ft_entry *e;
	enum rtr_ft_status st;
	struct rtr_ft_key k;
	struct sp_dst *d;
	struct sp_win *w;
	uint32_t seq;
	int32_t diff;

	/* Not spray's (a ConWeave DATA header in a fabric being switched):
	 * left to the strip every ToR applies toward a host. */
	if (!(meta->flags & RTR_MF_LB_HDR) || (meta->bth_b8 & RTR_BTH_RESV7_MASK) != RTR_SPRAY_B8)
		return RTR_LB_FORWARD;
	seq = rtr_spray_seq(frame + rtr_meta_bth_off(meta) + RTR_BTH_LEN);
	c[RTR_LBC_spray_rx]++;
	if (rtr_meta_ce(meta) && sp->p.busy_ns != 0)
		send_notify(sp, frame, meta, c);
	rtr_ft_key_from_frame(&k, frame, meta, KIND_DST, false);
	/* The host gets its peer's frame (and ICRC) whatever happens next. */
	rtr_lb_hdr_strip(m, meta);
	e = rtr_ft_lookup(sp->fs.ft, &k, meta->flow_hash, now, true, RTR_FT_ORIGIN_NONE, &st);
	if (unlikely(e == NULL)) {
		/* No state: delivered as it comes, never held. */
		c[RTR_LBC_flow_table_full]++;
		return RTR_LB_FORWARD;
	}
	d = dst_of(e);
	if (st == RTR_FT_NEW) {
		d->win = NO_WIN;
		dst_fresh(sp, d, seq, true, c);
	} else if (d->win == NO_WIN && rtr_lb_idle(sp->fs.clock, now, meta->in_port, e->last_ns,
						       sp->aging_ns / 2)) {
		dst_fresh(sp, d, seq, false, c);
	}
	e->last_ns = now;
	if (unlikely(d->win != NO_WIN && d->port != port)) {
		/* The host route moved: what is held goes to the old port
		 * first, in order. */
		c[RTR_LBC_gap_skipped] += release_all(sp, d, NULL, 0, d->port, now, c);
	}
	if (d->win == NO_WIN)
		d->port = (uint8_t)port;
	diff = (int32_t)(seq - d->next);
	if (unlikely(diff < 0 && seq == 0 && d->win == NO_WIN &&
			    !(seq - d->gap_lo < d->gap_hi - d->gap_lo))) {
		/* Number 0 behind next, with nothing held and not a
		 * straggler of the last gap given up on: the SrcToR numbers
		 * this flow from 0 again (its entry was evicted or aged while
		 * ours was not, or the flow now enters the fabric at another
		 * ToR). Without this every packet would be late until the
		 * numbers caught up with next. */
		dst_fresh(sp, d, 0, true, c);
		diff = 0;
	}
	if (diff == 0) {
		d->next++;
		c[RTR_LBC_spray_in_order]++;
		if (d->win == NO_WIN)
			return RTR_LB_FORWARD;
		/* It filled the gap the window waited for: how long that
		 * took is the skew the timeout must cover. */
		skew_sample(sp,
				rtr_lb_since(rtr_lb_seen_in(sp->fs.clock, now, meta->in_port),
						sp->win[d->win].t_first),
				c);
		sp->io.deliver(sp->io.arg, m, port, false);
		release_run(sp, d, now, c);
		win_settle(sp, d, c);
		return RTR_LB_TAKEN;
	}
	if (diff < 0) {
		/* Its gap was given up on, or a duplicate: at once (the
		 * RNIC's go-back-N handles it as it would without us). A
		 * straggler of the last gap that timed out measures the skew
		 * the timeout missed: its window's first packet came that
		 * long ago. */
		c[RTR_LBC_late]++;
		if (seq - d->gap_lo < d->gap_hi - d->gap_lo) {
			if (d->gap_t0 != NEVER)
				skew_sample(sp,
						rtr_lb_since(rtr_lb_seen_in(sp->fs.clock, now,
									     meta->in_port),
								d->gap_t0),
						c);
			d->gap_hi = d->gap_lo; /* once per gap */
		}
		return RTR_LB_FORWARD;
	}
	if ((uint32_t)diff >= sp->w || sp->held >= sp->hold_budget ||
			(d->win == NO_WIN && sp->n_free == 0)) {
		/* No room to hold it: never a loss. What the flow holds and
		 * this packet go in number order, and the flow goes on in
		 * order as received from there. */
		c[RTR_LBC_window_overflow]++;
		if (sp->held >= sp->hold_budget && (uint32_t)diff < sp->w)
			c[RTR_LBC_spray_over_budget]++;
		{
			uint32_t from = d->next;

			c[RTR_LBC_gap_skipped] += release_all(sp, d, m, seq, port, now, c);
			/* Its stragglers are late (not a restart at 0), and
			 * say nothing of the skew. */
			d->gap_lo = from;
			d->gap_hi = d->next;
			d->gap_t0 = NEVER;
		}
		return RTR_LB_TAKEN;
	}
	if (d->win == NO_WIN) {
		uint16_t wi = sp->free_win[--sp->n_free];

		w = &sp->win[wi];
		w->e = e;
		w->n_held = 0;
		w->t_first = now;
		w->base = d->next;
		w->deadline = now + sp->timeout_ns;
		d->win = wi;
		heap_add(sp, wi);
		c[RTR_LBC_windows_in_use]++;
		if (c[RTR_LBC_windows_in_use] > c[RTR_LBC_windows_max])
			c[RTR_LBC_windows_max] = c[RTR_LBC_windows_in_use];
	}
	w = &sp->win[d->win];
	if (*slot_of(sp, d->win, seq) != NULL) {
		/* That number is held already: a duplicate, at once. */
		c[RTR_LBC_late]++;
		return RTR_LB_FORWARD;
	}
	*slot_of(sp, d->win, seq) = m;
	*tin_of(sp, d->win, seq) = now;
	w->n_held++;
	sp->held++;
	c[RTR_LBC_spray_held]++;
	if (sp->io.hold != NULL)
		sp->io.hold(sp->io.arg, m, port);
	return RTR_LB_TAKEN;
}

void
rtr_sp_tick(void *state, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_sp *sp = state;
	uint64_t *c = stats->lb;

	while (sp->n_heap > 0 && sp->win[sp->heap[0]].deadline <= now) {
		struct sp_win *w = &sp->win[sp->heap[0]];
		struct sp_dst *d = dst_of(w->e);

		/* The gap did not fill in time: lost, or slower than the
		 * timeout. Everything held goes in order; a straggler of the
		 * gap will be late. A timeout is no skew sample (a loss says
		 * nothing of the paths, and "at least the timeout" fed back
		 * would ratchet it up on every loss); the gap's straggler,
		 * if one comes, is (rtr_sp_deliver): so the estimate can
		 * grow past a timeout that was too short. */
		c[RTR_LBC_gap_timeouts]++;
		d->gap_t0 = w->t_first;
		d->gap_lo = d->next;
		c[RTR_LBC_gap_skipped] += release_all(sp, d, NULL, 0, d->port, now, c);
		d->gap_hi = d->next;
	}
	c[RTR_LBC_spray_timeout_ns] = sp->timeout_ns;
	rtr_lb_fs_age(&sp->fs, now);
}

uint64_t
rtr_sp_next_deadline(const void *state)
{
	const struct rtr_sp *sp = state;

	/* The tick also ages the table: with nothing held, not before the
	 * aging step is due anyway (the control poll calls it too). */
	return sp->n_heap ? sp->win[sp->heap[0]].deadline : NEVER;
}

unsigned int
rtr_sp_flush(void *state, int port, uint64_t now, struct rtr_lcore_stats *stats)
{
	struct rtr_sp *sp = state;
	uint64_t *c = stats->lb;
	uint64_t before = sp->held;

	for (uint32_t i = sp->n_heap; i-- > 0;) {
		struct sp_win *w = &sp->win[sp->heap[i]];
		struct sp_dst *d = dst_of(w->e);

		if (port >= 0 && d->port != port)
			continue;
		c[RTR_LBC_gap_skipped] += release_all(sp, d, NULL, 0, d->port, now, c);
		/* release_all removed entry i; the heap's later entries may
		 * have moved to i, which the loop has visited: start over. */
		i = sp->n_heap;
	}
	c[RTR_LBC_spray_flushed] += before - sp->held;
	return (unsigned int)(before - sp->held);
}

uint64_t
rtr_sp_held(const void *state)
{
	const struct rtr_sp *sp = state;

	return sp->held;
}

/* ------------------------------------------------------------- the mode */

static void *
sp_init(const struct rtr_lb_init *in)
{
	const struct rtr_spray_cfg *sc = rtr_spray_config(in->cfg);
	unsigned int nw = in->n_workers ? in->n_workers : 1;
	struct rtr_ft_limit lim[RTR_FT_ORIGINS];
	struct rtr_sp_params p = {
			.flow_entries = (sc->flow_table_size + nw - 1) / nw,
			.ft_limits = lim,
			.window_slots = sc->window_slots,
			.n_windows = sc->windows_per_worker,
			.timeout_ns = (uint64_t)sc->timeout_us * 1000,
			.timeout_min_ns = (uint64_t)sc->timeout_min_us * 1000,
			.timeout_max_ns = (uint64_t)sc->timeout_max_us * 1000,
			.margin_ns = (uint64_t)sc->timeout_margin_us * 1000,
			.hold_budget = in->hold_budget,
			.queue_slack = sc->queue_slack,
			.busy_ns = (uint64_t)sc->busy_us * 1000,
			.hash_seed = in->hash_seed,
			.shared = in->shared,
			.host_port_mask = in->host_port_mask,
			.worker = in->worker,
			.socket_id = in->socket,
			.use_rte_malloc = in->use_rte_malloc,
	};

	rtr_lb_ft_limits(in, p.flow_entries, lim);
	return rtr_lb_fs_clock(rtr_sp_create(&p, &in->io), in->clock);
}

static uint64_t
sp_mbuf_budget(const struct rtr_config *cfg, const char **key)
{
	const struct rtr_spray_cfg *sc = rtr_spray_config(cfg);

	/* spray.hold_budget, or per host port what the windows can hold
	 * (the windows are per worker, but what they hold is bound for the
	 * host ports), capped like an egress port's share of the pool. */
	if (sc->hold_budget != 0) {
		*key = "spray.hold_budget";
		return sc->hold_budget;
	}
	*key = NULL;
	return rtr_lb_hold_per_host_port(cfg, (uint64_t)sc->windows_per_worker * sc->window_slots);
}

static void
sp_flow_view(const struct rtr_lb_flow_info *f, const struct rtr_lb_kv *kv)
{
	if (f->dst_role) {
		kv->u64(kv->arg, "next_seq", f->seq);
		kv->u64(kv->arg, "held", f->held);
		if (f->deadline_in_ns != UINT64_MAX)
			kv->u64(kv->arg, "deadline_in_us", f->deadline_in_ns / 1000);
		return;
	}
	kv->u64(kv->arg, "seq", f->seq);
	kv->u64(kv->arg, "path", f->path);
}

const struct rtr_lb_ops rtr_lb_spray = {
		.name = "spray",
		.mode = RTR_LB_SPRAY,
		.flow_affinity = true,
		.fabric_parse_flags = RTR_LB_PARSE_HDR,
		.table = rtr_lb_fs_table,
		.deliver_flags = RTR_MF_LB_HDR,
		.shared_create = rtr_sp_shared_create,
		.shared_free = rtr_sp_shared_free,
		.control_rx = rtr_sp_control_rx,
		.init = sp_init,
		.fini = rtr_sp_free,
		.pick = rtr_sp_pick,
		.prefetch = rtr_lb_fs_prefetch,
		.deliver = rtr_sp_deliver,
		.tick = rtr_sp_tick,
		.next_deadline = rtr_sp_next_deadline,
		.flush = rtr_sp_flush,
		.held = rtr_sp_held,
		.queued = rtr_sp_queued,
		.depart = rtr_sp_depart,
		.flows = rtr_lb_fs_flows,
};

/* What rtr_sp_create and rtr_sp_shared_create allocate from the DPDK
 * heap: a worker's flow table and reorder windows (sp_alloc: at least 64
 * bytes each); the busy-path table once, when spray.busy_us is set. */
static void
sp_state_bytes(const struct rtr_config *cfg, unsigned int n_workers, uint64_t *per_worker,
		uint64_t *shared)
{
	const struct rtr_spray_cfg *sc = rtr_spray_config(cfg);
	struct rtr_sp *sp = NULL;
	size_t nwin = sc->windows_per_worker;
	size_t stride = sc->window_slots + RTE_CACHE_LINE_SIZE / sizeof(*sp->slot);

	*per_worker = rtr_lb_ft_bytes(sc->flow_table_size, n_workers,
			RTE_MAX(sizeof(struct sp_src), sizeof(struct sp_dst)));
	*per_worker += RTE_MAX(sizeof(*sp->win) * nwin, (size_t)64) +
		       RTE_MAX(sizeof(*sp->slot) * nwin * stride, (size_t)64) +
		       RTE_MAX(sizeof(*sp->free_win) * nwin, (size_t)64) +
		       RTE_MAX(sizeof(*sp->heap) * nwin, (size_t)64);
	*shared = 0;
	if (sc->busy_us == 0)
		return;
	*shared = rtr_pm_memsize_cfg(cfg, sc->dst_prefix_len, sc->dst_prefix_len6);
}

const struct rtr_lb_desc rtr_lb_spray_desc = {
		.name = "spray",
		.summary = "per-packet spraying with in-network reordering at the DstToR",
		.ops = &rtr_lb_spray,
		.config = &rtr_spray_section,
		.spine = RTR_LB_SPINE_ECMP,
		.mbuf_budget = sp_mbuf_budget,
		.state_bytes = sp_state_bytes,
		.flow_view = sp_flow_view,
		.counter_first = RTR_LBC_SP_FIRST,
		.n_counters = RTR_LBC_SP_N,
		/* The ConWeave DATA layout's: a host never sends the header (and a
	 * spray switch sends no control packet), and none reaches a host. */
		.host_check = rtr_lb_ctrl_host_check,
		.host_strip = rtr_cw_host_strip,
};
