/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Simulated RDMA hosts (sim_host.h, doc/simulator.md "Hosts").
 *
 * The model is the NS-3 one of HPCC's rdma-hw.cc that the ConWeave artifact
 * runs (doc/artifact-facts.md has what was read from it). Each host is a NIC
 * whose transmitter sim_net pulls from when it is free (sim_net's host_tx):
 * control frames (ACK, NACK, CNP) first, then data from its sending QPs in
 * round robin, a QP being eligible when its DCQCN pacing allows it now
 * (next_avail) and it has a packet to send (under IRN, within its window).
 * A class paused by PFC is skipped, the others keep going.
 *
 * A QP here is both ends of one RC connection: the sender's fields are used
 * at the source host, the receiver's at the destination (the frames between
 * them are real and carry all the information; keeping the two halves in
 * one record only saves a lookup). Its number in the frames (BTH dest QP) is
 * its slot (20 bits) and a 4-bit generation; a slot is reused only after a
 * quarantine, so a stale frame of a finished QP (a retransmission still in
 * flight) is recognised and ignored.
 *
 * DCQCN's periodic timers (alpha every 1 us, the decrease check every 4 us,
 * the rate increase every 300 us) would cost one event per QP per period;
 * they are computed lazily instead, on the same time grid as the model's:
 * whenever a QP's rate or alpha is needed (a send, a CNP, a decrease check),
 * the periods that ended before are applied in order. The only event is the
 * decrease check following a CNP.
 */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rtr_egress.h"
#include "rtr_parse.h"
#include "sim_host.h"

#define QP_CHUNK_SHIFT 10
#define QP_CHUNK       (1u << QP_CHUNK_SHIFT)
#define QP_SLOT_BITS   20
#define QP_SLOT_MASK   ((1u << QP_SLOT_BITS) - 1)
#define QP_GEN_MASK    0xfu
#define PSN_MASK       0xffffffu
#define AETH_LEN       4
#define CNP_PAYLOAD    16   /* a CNP's reserved bytes after the BTH */
#define AETH_ACK       0x1f /* ACK, credits invalid (unlimited) */
#define AETH_NAK_SEQ   0x60 /* NAK: PSN sequence error */
#define ECN_ECT0       2
#define ECN_CE         3
#define UDP_SPORT_BASE 49152

/* The frame's offsets: Ethernet, IPv4 without options, UDP, BTH (the LB
 * modes' own fields are gone when a frame reaches a host). */
#define OFF_TOS    15
#define OFF_SRC_IP 26
#define OFF_SPORT  34
#define OFF_BTH    42

struct sim_fl {
	struct sim_flow f;
	uint32_t qps_left;
};

struct sim_qp {
	uint32_t slot;
	uint8_t gen;
	bool live;
	bool sending;      /* on its host's round-robin list */
	uint32_t src, dst; /* host nodes */
	uint32_t src_ip, dst_ip;
	uint16_t sport;
	struct sim_fl *fl;
	uint64_t size; /* this QP's bytes */
	uint32_t n_pkts;
	/* Sender. */
	uint32_t snd_nxt;       /* next PSN to send */
	uint32_t snd_una;       /* oldest PSN not acknowledged */
	uint32_t max_sent;      /* PSNs below were sent at least once */
	uint64_t next_avail_ps; /* pacing: not before */
	uint64_t ready_ps;      /* when it last got something to send */
	uint32_t last_len;      /* the last frame's wire bytes (a rate change rescales its gap) */
	uint64_t rto_at;        /* the retransmission deadline */
	uint64_t rto_ev_ns;     /* the timer event pending (0: none) */
	struct sim_qp *rr_next, *rr_prev;
	/* IRN sender: recovery state, SACKed PSNs (bitmap ring). */
	bool recovery;
	uint32_t recover_to; /* recovery ends when snd_una reaches it */
	uint32_t rtx_nxt;    /* next hole to look at */
	uint32_t rtx_end;    /* holes are below (the highest SACKed + 1) */
	/* DCQCN reaction point. */
	double rate, target, alpha;
	bool cnp_seen; /* the first CNP came (timers run) */
	bool alpha_cnp, dec_cnp;
	bool dec_armed;
	uint32_t stage;
	uint64_t alpha_next_ns; /* next alpha update */
	uint64_t dec_next_ns;   /* next decrease check */
	uint64_t inc_next_ns;   /* next rate-increase timer (UINT64_MAX: stopped) */
	/* Receiver (at dst). */
	uint32_t rcv_nxt;   /* expected PSN */
	uint32_t last_nack; /* the expected PSN the last NACK named */
	uint64_t nack_at;   /* no NACK for the same PSN before */
	bool nacked;
	uint64_t last_cnp_ns;
	bool cnp_sent;
	uint32_t unacked; /* in-order packets since the last ACK */
	uint64_t *sack;   /* IRN: sender's SACKed, receiver's received (2 rings) */
};

struct sim_hnode {
	struct sim_pkt *ctl_head, *ctl_tail;
	struct sim_qp *rr; /* next QP to look at (a ring of sending QPs) */
	uint32_t n_sending;
	uint64_t wake_at; /* the pacing wake-up armed (UINT64_MAX: none) */
	uint16_t sport_next;
	uint8_t data_cls, ack_cls, cnp_cls;
	double gbps;
};

struct sim_retire {
	uint32_t slot;
	uint64_t at_ns;
};

struct sim_hosts {
	struct sim_net *net;
	struct sim_host_cfg c;
	sim_flow_done_fn done;
	void *arg;
	struct sim_hnode *hn; /* per node (hosts' entries used) */
	struct sim_qp **chunks;
	uint32_t n_chunks, n_slots;
	struct sim_retire *ret; /* slots to reuse, FIFO by release time */
	uint32_t ret_head, ret_tail, ret_cap;
	uint32_t win;  /* IRN window, packets */
	uint32_t ring; /* IRN bitmap ring bits (a power of 2 >= win) */
	uint64_t next_id;
	uint64_t active;
	struct sim_rng rng;
	struct sim_host_stats st;
};

/* ------------------------------------------------------------ parameters */

void
sim_host_cfg_default(struct sim_host_cfg *c, enum sim_transport tr)
{
	memset(c, 0, sizeof(*c));
	c->transport = tr;
	c->mtu_payload = 1000;        /* PACKET_PAYLOAD_SIZE */
	c->ack_every = 1;             /* L2_ACK_INTERVAL */
	c->rto_ns = 4000000;          /* L2Timeout, 4 ms (go-back-N) */
	c->irn_rto_low_ns = 454000;   /* IrnRtoLow */
	c->irn_rto_high_ns = 1350000; /* IrnRtoHigh */
	c->irn_window_pkts = 0;       /* derived: the fabric's BDP */
	c->nack_interval_ns = 4000;   /* NACKGenerationInterval */
	c->nack_is_cnp = true;        /* the model flags OOO NACKs as CNPs */
	c->dcqcn.enabled = true;
	c->dcqcn.min_rate_gbps = 0.1;
	c->dcqcn.rate_ai_gbps = 0.04;
	c->dcqcn.rate_hai_gbps = 0.1;
	c->dcqcn.g = 1.0 / 256;
	c->dcqcn.alpha_resume_ns = 1000;
	c->dcqcn.rate_decrease_ns = 4000;
	c->dcqcn.rp_timer_ns = 300000;
	c->dcqcn.byte_counter = 0; /* the model has none */
	c->dcqcn.fast_recovery_times = 1;
	c->dcqcn.clamp_target = false;
	/* One CNP per alpha period at most: the model flags every ACK of a
	 * marked packet, and its sender only looks once per 1 us period. */
	c->dcqcn.cnp_interval_ns = 1000;
	c->qps_per_flow = 1;
	c->reps = false;
	c->data_dscp = 26;
	c->ack_dscp = 48;
	c->seed = 1;
}

/* --------------------------------------------------------------- QP slots */

static inline struct sim_qp *
qp_at(struct sim_hosts *h, uint32_t slot)
{
	return &h->chunks[slot >> QP_CHUNK_SHIFT][slot & (QP_CHUNK - 1)];
}

static inline uint32_t
qp_num(const struct sim_qp *q)
{
	return q->slot | (uint32_t)q->gen << QP_SLOT_BITS;
}

/* The live QP a frame's dest QP names, or NULL (stale or unknown). */
static struct sim_qp *
qp_lookup(struct sim_hosts *h, uint32_t dqp)
{
	uint32_t slot = dqp & QP_SLOT_MASK;
	struct sim_qp *q;

	if (slot >= h->n_slots)
		return NULL;
	q = qp_at(h, slot);
	if (!q->live || q->gen != ((dqp >> QP_SLOT_BITS) & QP_GEN_MASK))
		return NULL;
	return q;
}

/* A stale frame may still be in flight when its QP finishes: a slot is
 * reused only after this long, and its generation changes too. */
#define QP_QUARANTINE_NS 2000000

static struct sim_qp *
qp_alloc(struct sim_hosts *h)
{
	uint64_t now = h->net->sim.now_ns;
	uint32_t slot;
	struct sim_qp *q;
	uint64_t *sack;
	uint8_t gen;

	if (h->ret_head != h->ret_tail &&
			h->ret[h->ret_head % h->ret_cap].at_ns + QP_QUARANTINE_NS <= now) {
		slot = h->ret[h->ret_head % h->ret_cap].slot;
		h->ret_head++;
	} else {
		if (h->n_slots > QP_SLOT_MASK)
			return NULL;
		if ((h->n_slots & (QP_CHUNK - 1)) == 0) {
			struct sim_qp **nc = realloc(h->chunks, sizeof(*nc) * (h->n_chunks + 1));

			if (nc == NULL)
				return NULL;
			h->chunks = nc;
			nc[h->n_chunks] = calloc(QP_CHUNK, sizeof(struct sim_qp));
			if (nc[h->n_chunks] == NULL)
				return NULL;
			h->n_chunks++;
		}
		slot = h->n_slots++;
	}
	q = qp_at(h, slot);
	gen = (uint8_t)((q->gen + 1) & QP_GEN_MASK);
	sack = q->sack;
	memset(q, 0, sizeof(*q));
	q->slot = slot;
	q->gen = gen;
	q->sack = sack;
	if (h->c.transport == SIM_TR_IRN) {
		size_t words = 2 * (h->ring / 64);

		if (q->sack == NULL)
			q->sack = malloc(words * sizeof(uint64_t));
		if (q->sack == NULL)
			return NULL;
		memset(q->sack, 0, words * sizeof(uint64_t));
	}
	q->live = true;
	return q;
}

static void
qp_retire(struct sim_hosts *h, struct sim_qp *q)
{
	q->live = false;
	if (h->ret_tail - h->ret_head == h->ret_cap) {
		uint32_t cap = h->ret_cap ? h->ret_cap * 2 : 1024;
		struct sim_retire *nr = malloc(sizeof(*nr) * cap);

		if (nr == NULL)
			return; /* the slot is leaked, not reused: harmless */
		for (uint32_t i = 0; i < h->ret_tail - h->ret_head; i++)
			nr[i] = h->ret[(h->ret_head + i) % h->ret_cap];
		h->ret_tail -= h->ret_head;
		h->ret_head = 0;
		free(h->ret);
		h->ret = nr;
		h->ret_cap = cap;
	}
	h->ret[h->ret_tail % h->ret_cap] = (struct sim_retire){q->slot, h->net->sim.now_ns};
	h->ret_tail++;
}

/* IRN bitmap rings: the sender's (SACKed) and the receiver's (received). */
static inline bool
bit_get(const struct sim_hosts *h, const uint64_t *ring, uint32_t psn)
{
	uint32_t b = psn & (h->ring - 1);

	return ring[b / 64] >> (b % 64) & 1;
}

static inline void
bit_set(const struct sim_hosts *h, uint64_t *ring, uint32_t psn, bool v)
{
	uint32_t b = psn & (h->ring - 1);

	if (v)
		ring[b / 64] |= 1ull << (b % 64);
	else
		ring[b / 64] &= ~(1ull << (b % 64));
}

static inline uint64_t *
snd_ring(const struct sim_hosts *h, const struct sim_qp *q)
{
	(void)h;
	return q->sack;
}

static inline uint64_t *
rcv_ring(const struct sim_hosts *h, const struct sim_qp *q)
{
	return q->sack + h->ring / 64;
}

/* ------------------------------------------------------------ round robin */

static void
rr_add(struct sim_hosts *h, struct sim_qp *q)
{
	struct sim_hnode *hn = &h->hn[q->src];

	if (q->sending)
		return;
	q->sending = true;
	q->ready_ps = h->net->sim.now_ns * 1000;
	if (hn->rr == NULL) {
		q->rr_next = q->rr_prev = q;
		hn->rr = q;
	} else {
		/* Behind the cursor: the last to be looked at in this round. */
		q->rr_next = hn->rr;
		q->rr_prev = hn->rr->rr_prev;
		q->rr_prev->rr_next = q;
		hn->rr->rr_prev = q;
	}
	hn->n_sending++;
}

static void
rr_del(struct sim_hosts *h, struct sim_qp *q)
{
	struct sim_hnode *hn = &h->hn[q->src];

	if (!q->sending)
		return;
	q->sending = false;
	if (q->rr_next == q) {
		hn->rr = NULL;
	} else {
		q->rr_prev->rr_next = q->rr_next;
		q->rr_next->rr_prev = q->rr_prev;
		if (hn->rr == q)
			hn->rr = q->rr_next;
	}
	q->rr_next = q->rr_prev = NULL;
	hn->n_sending--;
}

/* ----------------------------------------------------------------- DCQCN */

static inline double
line_gbps(const struct sim_hosts *h, const struct sim_qp *q)
{
	return h->hn[q->src].gbps;
}

/* The rate-increase timer's firings up to t (the model's RateIncEventTimer,
 * every rp_timer after the last decrease). */
static void
dcqcn_inc_until(struct sim_hosts *h, struct sim_qp *q, uint64_t t)
{
	const struct sim_dcqcn *d = &h->c.dcqcn;
	double line = line_gbps(h, q);

	while (q->inc_next_ns <= t) {
		if (q->stage < d->fast_recovery_times) {
			/* fast recovery */
		} else if (q->stage == d->fast_recovery_times) {
			q->target += d->rate_ai_gbps;
		} else {
			q->target += d->rate_hai_gbps;
		}
		if (q->target > line)
			q->target = line;
		q->rate = (q->rate + q->target) / 2;
		if (q->rate > line)
			q->rate = line;
		q->stage++;
		q->inc_next_ns += d->rp_timer_ns;
		/* At line rate with nothing to gain: the timer has no effect
		 * until the next decrease restarts it. */
		if (q->rate >= line && q->target >= line) {
			q->rate = q->target = line;
			q->inc_next_ns = UINT64_MAX;
		}
	}
}

/* The alpha updates up to t: every alpha_resume from the first CNP, alpha
 * = (1-g) alpha + g if a CNP came in the period, else (1-g) alpha. */
static void
dcqcn_alpha_until(struct sim_hosts *h, struct sim_qp *q, uint64_t t)
{
	const struct sim_dcqcn *d = &h->c.dcqcn;
	uint64_t k;

	if (!q->cnp_seen || q->alpha_next_ns > t)
		return;
	q->alpha = (1 - d->g) * q->alpha + (q->alpha_cnp ? d->g : 0);
	q->alpha_cnp = false;
	q->alpha_next_ns += d->alpha_resume_ns;
	if (q->alpha_next_ns > t)
		return;
	k = (t - q->alpha_next_ns) / d->alpha_resume_ns + 1;
	q->alpha *= pow(1 - d->g, (double)k);
	q->alpha_next_ns += k * d->alpha_resume_ns;
}

/* A rate change rescales the gap the last packet set (the model's
 * ChangeRate). */
static void
set_rate(struct sim_hosts *h, struct sim_qp *q, double r)
{
	if (q->last_len != 0 && q->next_avail_ps != 0) {
		double old_gap = q->last_len * 8000.0 / q->rate;
		double new_gap = q->last_len * 8000.0 / r;

		q->next_avail_ps = (uint64_t)((double)q->next_avail_ps - old_gap + new_gap + 0.5);
	}
	(void)h;
	q->rate = r;
}

/* The rate increases due by t, the last packet's gap rescaled to the new
 * rate as the model's ChangeRate does at each. */
static void
dcqcn_catch_up(struct sim_hosts *h, struct sim_qp *q, uint64_t t)
{
	double r = q->rate;

	if (q->inc_next_ns > t)
		return;
	dcqcn_inc_until(h, q, t);
	if (q->rate != r) {
		double nr = q->rate;

		q->rate = r;
		set_rate(h, q, nr);
	}
}

static void ev_dec(struct sim *s, void *arg, uint64_t u);

static void
dcqcn_arm_dec(struct sim_hosts *h, struct sim_qp *q)
{
	if (q->dec_armed)
		return;
	q->dec_armed = true;
	sim_at(&h->net->sim, q->dec_next_ns, ev_dec, h, qp_num(q));
}

/* The decrease check (every rate_decrease from the first CNP, 1 ns after
 * the alpha update it may coincide with): only armed after a CNP. */
static void
ev_dec(struct sim *s, void *arg, uint64_t u)
{
	struct sim_hosts *h = arg;
	const struct sim_dcqcn *d = &h->c.dcqcn;
	struct sim_qp *q = qp_lookup(h, (uint32_t)u);
	double old;

	if (q == NULL)
		return;
	q->dec_armed = false;
	if (s->now_ns < q->dec_next_ns) {
		dcqcn_arm_dec(h, q);
		return;
	}
	dcqcn_catch_up(h, q, s->now_ns);
	dcqcn_alpha_until(h, q, s->now_ns);
	q->dec_next_ns += d->rate_decrease_ns;
	if (!q->dec_cnp)
		return;
	q->dec_cnp = false;
	if (d->clamp_target || q->stage != 0)
		q->target = q->rate;
	old = q->rate;
	set_rate(h, q, fmax(d->min_rate_gbps, old * (1 - q->alpha / 2)));
	q->stage = 0;
	q->inc_next_ns = s->now_ns + d->rp_timer_ns;
}

/* A congestion notification reached the sender (a CNP, or a NACK under
 * nack_is_cnp). */
static void
dcqcn_cnp(struct sim_hosts *h, struct sim_qp *q)
{
	const struct sim_dcqcn *d = &h->c.dcqcn;
	uint64_t now = h->net->sim.now_ns;

	if (!d->enabled)
		return;
	dcqcn_catch_up(h, q, now);
	if (!q->cnp_seen) {
		q->cnp_seen = true;
		q->alpha = 1;
		q->alpha_cnp = false;
		q->alpha_next_ns = now + d->alpha_resume_ns;
		q->dec_next_ns = now + d->rate_decrease_ns + 1;
		/* RateOnFirstCnp 1.0: target = rate = the current rate. */
		q->target = q->rate;
		q->dec_cnp = true;
	} else {
		dcqcn_alpha_until(h, q, now);
		q->alpha_cnp = true;
		q->dec_cnp = true;
		/* Decrease checks that passed without a CNP: the grid goes on. */
		if (q->dec_next_ns <= now && !q->dec_armed)
			q->dec_next_ns += ((now - q->dec_next_ns) / d->rate_decrease_ns + 1) *
					  d->rate_decrease_ns;
	}
	dcqcn_arm_dec(h, q);
}

/* ------------------------------------------------------------- frames */

static struct sim_pkt *
ctl_frame(struct sim_hosts *h, const struct sim_qp *q, uint8_t opcode, uint32_t psn)
{
	struct sim_pkt *p = sim_pkt_alloc(h->net);
	struct sim_roce r = {
			.src_ip = q->dst_ip,
			.dst_ip = q->src_ip,
			.sport = q->sport,
			.dqp = qp_num(q),
			.psn = psn & PSN_MASK,
			.opcode = opcode,
			.dscp = h->c.ack_dscp,
			.ecn = 0,
	};

	if (p == NULL)
		return NULL;
	if (opcode == RTR_BTH_OP_CNP) {
		r.b4 = RTR_BTH_B4_BECN;
		r.payload = CNP_PAYLOAD;
		p->cls = h->hn[q->dst].cnp_cls;
	} else {
		r.payload = AETH_LEN;
		p->cls = h->hn[q->dst].ack_cls;
	}
	sim_roce_build(p, &r);
	p->flow = UINT64_MAX;
	p->q_ps = h->net->sim.now_ns * 1000;
	return p;
}

static void
ctl_send(struct sim_hosts *h, uint32_t node, struct sim_pkt *p)
{
	struct sim_hnode *hn = &h->hn[node];

	if (p == NULL)
		return;
	p->next = NULL;
	if (hn->ctl_tail != NULL)
		hn->ctl_tail->next = p;
	else
		hn->ctl_head = p;
	hn->ctl_tail = p;
	sim_net_host_kick(h->net, node);
}

/* An ACK (syndrome ACK) or NAK (PSN sequence error) for q; msn: the AETH's
 * 24-bit MSN field, which an IRN NACK uses for the PSN it received. */
static void
send_ack(struct sim_hosts *h, struct sim_qp *q, bool nak, uint32_t psn, uint32_t msn)
{
	struct sim_pkt *p = ctl_frame(h, q, RTR_BTH_OP_RC_ACK, psn);
	uint8_t *a;

	if (p == NULL)
		return;
	a = sim_pkt_data(p) + OFF_BTH + RTR_BTH_LEN;
	a[0] = nak ? AETH_NAK_SEQ : AETH_ACK;
	a[1] = (uint8_t)(msn >> 16);
	a[2] = (uint8_t)(msn >> 8);
	a[3] = (uint8_t)msn;
	if (nak)
		h->st.nacks_sent++;
	else
		h->st.acks_sent++;
	ctl_send(h, q->dst, p);
}

static inline uint32_t
ld24(const uint8_t *b)
{
	return (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
}

/* A 24-bit PSN from the wire back to the QP's 32-bit count, the one
 * nearest ref (the PSN space wraps at 2^24, windows are far smaller). */
static inline uint32_t
psn_unwrap(uint32_t wire, uint32_t ref)
{
	int32_t d = (int32_t)((wire - ref) << 8) >> 8;

	return ref + (uint32_t)d;
}

/* ---------------------------------------------------------------- sender */

static void ev_rto(struct sim *s, void *arg, uint64_t u);

static inline uint64_t
rto_of(const struct sim_hosts *h, const struct sim_qp *q)
{
	if (h->c.transport != SIM_TR_IRN)
		return h->c.rto_ns;
	/* IRN: the low timeout when few packets are in flight. */
	return q->snd_nxt - q->snd_una <= 3 ? h->c.irn_rto_low_ns : h->c.irn_rto_high_ns;
}

static void
rto_restart(struct sim_hosts *h, struct sim_qp *q)
{
	q->rto_at = h->net->sim.now_ns + rto_of(h, q);
	/* One event pending; a later deadline is found when it fires, an
	 * earlier one (IRN's low timeout) needs its own. */
	if (q->rto_ev_ns == 0 || q->rto_at < q->rto_ev_ns) {
		q->rto_ev_ns = q->rto_at;
		sim_at(&h->net->sim, q->rto_at, ev_rto, h, qp_num(q));
	}
}

/* IRN: the next hole to retransmit at or after rtx_nxt, below rtx_end. */
static void
irn_skip_sacked(struct sim_hosts *h, struct sim_qp *q)
{
	if (q->rtx_nxt < q->snd_una)
		q->rtx_nxt = q->snd_una;
	while (q->rtx_nxt < q->rtx_end && bit_get(h, snd_ring(h, q), q->rtx_nxt))
		q->rtx_nxt++;
}

/* Has the sender something to send now, window permitting? */
static bool
has_data(struct sim_hosts *h, struct sim_qp *q)
{
	if (h->c.transport != SIM_TR_IRN)
		return q->snd_nxt < q->n_pkts;
	if (q->recovery) {
		irn_skip_sacked(h, q);
		if (q->rtx_nxt < q->rtx_end)
			return true;
	}
	return q->snd_nxt < q->n_pkts && q->snd_nxt - q->snd_una < h->win;
}

static void
update_sending(struct sim_hosts *h, struct sim_qp *q)
{
	if (has_data(h, q))
		rr_add(h, q);
	else
		rr_del(h, q);
}

/* The PSN the QP sends next; advances its state. */
static uint32_t
next_psn(struct sim_hosts *h, struct sim_qp *q)
{
	uint32_t psn;

	if (h->c.transport == SIM_TR_IRN && q->recovery) {
		irn_skip_sacked(h, q);
		if (q->rtx_nxt < q->rtx_end)
			return q->rtx_nxt++;
	}
	psn = q->snd_nxt++;
	return psn;
}

static struct sim_pkt *
data_frame(struct sim_hosts *h, struct sim_qp *q, uint64_t avail_ps)
{
	struct sim_hnode *hn = &h->hn[q->src];
	struct sim_pkt *p = sim_pkt_alloc(h->net);
	uint32_t psn, pay, len;
	uint64_t start_ps;
	struct sim_roce r;

	if (p == NULL)
		return NULL;
	psn = next_psn(h, q);
	pay = h->c.mtu_payload;
	if ((uint64_t)(psn + 1) * pay > q->size)
		pay = (uint32_t)(q->size - (uint64_t)psn * pay);
	memset(&r, 0, sizeof(r));
	r.src_ip = q->src_ip;
	r.dst_ip = q->dst_ip;
	r.sport = q->sport;
	if (h->c.reps)
		r.sport = (uint16_t)(UDP_SPORT_BASE +
				     sim_rng_below(&h->rng, 65536 - UDP_SPORT_BASE));
	r.dqp = qp_num(q);
	r.psn = psn & PSN_MASK;
	if (q->n_pkts == 1)
		r.opcode = 4; /* SEND_ONLY */
	else if (psn == 0)
		r.opcode = 0; /* SEND_FIRST */
	else if (psn == q->n_pkts - 1)
		r.opcode = 2; /* SEND_LAST */
	else
		r.opcode = 1; /* SEND_MIDDLE */
	r.dscp = h->c.data_dscp;
	r.ecn = ECN_ECT0;
	r.ack_req = true;
	r.keep_payload = true;
	r.payload = pay;
	len = sim_roce_build(p, &r);
	p->flow = q->fl->f.id;
	p->sent_ns = h->net->sim.now_ns;
	p->cls = hn->data_cls;
	/* Ready since: its pacing, its data, its class's pause. */
	p->q_ps = q->next_avail_ps > q->ready_ps ? q->next_avail_ps : q->ready_ps;
	if (h->net->tx[q->src][0].cls_paused_until_ns[hn->data_cls] * 1000 > p->q_ps)
		p->q_ps = h->net->tx[q->src][0].cls_paused_until_ns[hn->data_cls] * 1000;
	start_ps = p->q_ps > avail_ps ? p->q_ps : avail_ps;
	/* A frame is pulled at most 1 ns (events are whole ns) after it
	 * could start; one that looks older became ready in the past only on
	 * paper (a rate increase rescaled its gap to before now): it starts
	 * now, as a NIC would, not in the past. */
	if (start_ps + 999 < h->net->sim.now_ns * 1000)
		start_ps = h->net->sim.now_ns * 1000;
	if (start_ps > h->net->sim.now_ns * 1000)
		start_ps = h->net->sim.now_ns * 1000;
	p->q_ps = start_ps;
	q->last_len = len + h->net->wire_overhead;
	q->next_avail_ps = start_ps + (uint64_t)(q->last_len * 8000.0 / q->rate + 0.5);
	q->fl->f.pkts_sent++;
	h->st.data_sent++;
	if (psn < q->max_sent) {
		q->fl->f.pkts_retx++;
		h->st.data_retx++;
	} else {
		q->max_sent = psn + 1;
		/* The SACK ring's bit of this PSN last served psn - ring, long
		 * acknowledged (the window is smaller than the ring). */
		if (h->c.transport == SIM_TR_IRN)
			bit_set(h, snd_ring(h, q), psn, false);
	}
	rto_restart(h, q);
	update_sending(h, q);
	return p;
}

static void ev_wake(struct sim *s, void *arg, uint64_t node);

static void
arm_wake(struct sim_hosts *h, uint32_t node, uint64_t at_ns)
{
	struct sim_hnode *hn = &h->hn[node];

	if (at_ns <= h->net->sim.now_ns)
		at_ns = h->net->sim.now_ns + 1;
	if (at_ns >= hn->wake_at)
		return;
	hn->wake_at = at_ns;
	sim_at(&h->net->sim, at_ns, ev_wake, h, node);
}

static void
ev_wake(struct sim *s, void *arg, uint64_t node)
{
	struct sim_hosts *h = arg;

	if (h->hn[node].wake_at != s->now_ns)
		return; /* an earlier one was armed since */
	h->hn[node].wake_at = UINT64_MAX;
	sim_net_host_kick(h->net, (uint32_t)node);
}

/* sim_net's host_tx: the NIC's scheduler. */
static struct sim_pkt *
host_pull(struct sim_net *net, uint32_t node, uint64_t avail_ps)
{
	struct sim_hosts *h = net->host_arg;
	struct sim_hnode *hn = &h->hn[node];
	uint64_t now_ps = net->sim.now_ns * 1000, soonest = UINT64_MAX;
	struct sim_pkt *p, **pp, *prev = NULL;
	struct sim_qp *q;

	/* Control frames first, those of an unpaused class, in order. */
	for (pp = &hn->ctl_head; (p = *pp) != NULL; prev = p, pp = &p->next) {
		if (sim_net_host_paused(net, node, p->cls))
			continue;
		*pp = p->next;
		if (hn->ctl_tail == p)
			hn->ctl_tail = prev;
		if (sim_net_host_paused(net, node, hn->data_cls))
			h->st.ctl_while_paused++;
		return p;
	}
	if (hn->rr == NULL || sim_net_host_paused(net, node, hn->data_cls))
		return NULL;
	q = hn->rr;
	for (uint32_t i = 0; i < hn->n_sending; i++, q = q->rr_next) {
		/* A rate increase due: its new rate sets this gap. */
		dcqcn_catch_up(h, q, net->sim.now_ns);
		if (q->next_avail_ps <= now_ps) {
			hn->rr = q->rr_next;
			return data_frame(h, q, avail_ps);
		}
		if (q->next_avail_ps < soonest)
			soonest = q->next_avail_ps;
	}
	if (soonest != UINT64_MAX)
		arm_wake(h, node, (soonest + 999) / 1000);
	return NULL;
}

/* The sender's side of an ACK or NACK. */
static void
sender_ack(struct sim_hosts *h, struct sim_qp *q, const uint8_t *bth)
{
	const uint8_t *aeth = bth + RTR_BTH_LEN;
	bool nak = (aeth[0] & 0xe0) == 0x60;
	uint32_t psn = psn_unwrap(ld24(bth + 9), q->snd_una);
	uint32_t una;

	una = nak ? psn : psn + 1; /* an ACK names the last PSN received in order */
	if (una > q->n_pkts || una > q->max_sent)
		return; /* nonsense: ignore */
	if (una > q->snd_una) {
		uint64_t a = (uint64_t)una * h->c.mtu_payload,
			 b = (uint64_t)q->snd_una * h->c.mtu_payload;

		h->st.bytes_acked += (a < q->size ? a : q->size) - b;
		q->snd_una = una;
	}
	if (q->snd_nxt < q->snd_una)
		q->snd_nxt = q->snd_una;
	if (nak) {
		if (h->c.nack_is_cnp)
			dcqcn_cnp(h, q);
		if (h->c.transport == SIM_TR_IRN) {
			uint32_t got = psn_unwrap(ld24(aeth + 1), q->snd_una);

			if (got >= q->snd_una && got < q->max_sent && got - q->snd_una < h->ring)
				bit_set(h, snd_ring(h, q), got, true);
			if (!q->recovery) {
				q->recovery = true;
				q->recover_to = q->snd_nxt;
				q->rtx_nxt = q->snd_una;
				q->rtx_end = q->snd_una;
			}
			if (got + 1 > q->rtx_end && got < q->max_sent)
				q->rtx_end = got + 1;
		} else if (psn >= q->snd_una) {
			/* Go back: everything from the NACKed PSN again (a NACK
			 * of a PSN already acknowledged is stale: ignored). */
			q->snd_nxt = q->snd_una;
		}
	}
	if (h->c.transport == SIM_TR_IRN) {
		/* The SACK ring slides with snd_una: clear what it left. */
		if (q->recovery && q->snd_una >= q->recover_to)
			q->recovery = false;
	}
	if (q->snd_una >= q->n_pkts) {
		struct sim_fl *fl = q->fl;

		rr_del(h, q);
		qp_retire(h, q);
		if (--fl->qps_left == 0) {
			fl->f.end_ns = h->net->sim.now_ns;
			h->st.flows_done++;
			h->active--;
			if (h->done != NULL)
				h->done(h->arg, &fl->f);
			free(fl);
		}
		return;
	}
	if (q->snd_nxt > q->snd_una || nak)
		rto_restart(h, q);
	update_sending(h, q);
	sim_net_host_kick(h->net, q->src);
}

static void
ev_rto(struct sim *s, void *arg, uint64_t u)
{
	struct sim_hosts *h = arg;
	struct sim_qp *q = qp_lookup(h, (uint32_t)u);

	if (q == NULL || s->now_ns != q->rto_ev_ns)
		return; /* finished, or a stale event */
	q->rto_ev_ns = 0;
	if (q->snd_una >= q->max_sent)
		return; /* nothing outstanding */
	if (s->now_ns < q->rto_at) {
		q->rto_ev_ns = q->rto_at;
		sim_at(s, q->rto_at, ev_rto, h, u);
		return;
	}
	h->st.timeouts++;
	if (h->c.transport == SIM_TR_IRN) {
		/* Everything outstanding and not SACKed is lost. */
		q->recovery = true;
		q->recover_to = q->snd_nxt;
		q->rtx_nxt = q->snd_una;
		q->rtx_end = q->snd_nxt;
	} else {
		q->snd_nxt = q->snd_una;
	}
	rto_restart(h, q);
	update_sending(h, q);
	sim_net_host_kick(h->net, q->src);
}

/* -------------------------------------------------------------- receiver */

static void
receiver_data(struct sim_hosts *h, struct sim_qp *q, const uint8_t *f)
{
	uint64_t now = h->net->sim.now_ns;
	uint32_t psn = psn_unwrap(ld24(f + OFF_BTH + 9), q->rcv_nxt);

	h->st.data_rcvd++;
	if ((f[OFF_TOS] & 3) == ECN_CE) {
		h->st.ce_rcvd++;
		/* The notification point: one CNP per interval per QP. */
		if (!q->cnp_sent || now - q->last_cnp_ns >= h->c.dcqcn.cnp_interval_ns) {
			q->cnp_sent = true;
			q->last_cnp_ns = now;
			h->st.cnps_sent++;
			ctl_send(h, q->dst, ctl_frame(h, q, RTR_BTH_OP_CNP, 0));
		}
	}
	if (psn == q->rcv_nxt) {
		q->rcv_nxt++;
		if (h->c.transport == SIM_TR_IRN) {
			while (q->rcv_nxt < q->n_pkts && bit_get(h, rcv_ring(h, q), q->rcv_nxt)) {
				bit_set(h, rcv_ring(h, q), q->rcv_nxt, false);
				q->rcv_nxt++;
			}
		}
		if (++q->unacked >= h->c.ack_every || q->rcv_nxt >= q->n_pkts) {
			q->unacked = 0;
			send_ack(h, q, false, q->rcv_nxt - 1, 0);
		}
		return;
	}
	if (psn < q->rcv_nxt) {
		/* A duplicate: say again where we are. */
		send_ack(h, q, false, q->rcv_nxt - 1, 0);
		return;
	}
	h->st.data_ooo++;
	if (h->c.transport == SIM_TR_IRN) {
		if (psn - q->rcv_nxt >= h->ring || psn >= q->n_pkts)
			return;
		if (bit_get(h, rcv_ring(h, q), psn)) {
			send_ack(h, q, false, q->rcv_nxt - 1, 0);
			return;
		}
		bit_set(h, rcv_ring(h, q), psn, true);
		/* Selective: the expected PSN and the one that came. */
		send_ack(h, q, true, q->rcv_nxt, psn & PSN_MASK);
		return;
	}
	/* Go-back-N: the packet is dropped; one NACK per gap, again only if
	 * the expected PSN moved or (the model's NACKGenerationInterval; 0:
	 * never, as the IB spec's responder) the NACK interval passed. */
	if (!q->nacked || q->last_nack != q->rcv_nxt ||
			(h->c.nack_interval_ns != 0 && now >= q->nack_at)) {
		q->nacked = true;
		q->last_nack = q->rcv_nxt;
		q->nack_at = now + h->c.nack_interval_ns;
		send_ack(h, q, true, q->rcv_nxt, 0);
	}
}

/* sim_net's host_rx. */
static void
host_rx(struct sim_net *net, uint32_t node, struct sim_pkt *p)
{
	struct sim_hosts *h = net->host_arg;
	const uint8_t *f = sim_pkt_data(p);
	const uint8_t *bth = f + OFF_BTH;
	uint32_t dqp;
	struct sim_qp *q;
	bool is_data;

	if (p->mb.pkt_len < OFF_BTH + RTR_BTH_LEN || f[12] != 0x08 || f[13] != 0x00 ||
			f[14] != 0x45 || f[23] != 17 || (f[36] << 8 | f[37]) != 4791) {
		sim_pkt_free(net, p);
		return;
	}
	dqp = ld24(bth + 5);
	q = qp_lookup(h, dqp);
	is_data = bth[0] != RTR_BTH_OP_RC_ACK && bth[0] != RTR_BTH_OP_CNP;
	if (q == NULL || (is_data ? q->dst : q->src) != node) {
		if (is_data)
			h->st.data_rcvd++, h->st.data_stale++;
		else
			h->st.ctl_rcvd++;
		sim_pkt_free(net, p);
		return;
	}
	if (is_data && p->mb.pkt_len < OFF_BTH + RTR_BTH_LEN + 1 + RTR_ICRC_LEN) {
		/* A switch trimmed it (qos trim: the headers only, no payload
		 * nor ICRC): the packet is lost, which its successors show as
		 * for a dropped one. */
		h->st.data_rcvd++;
		h->st.data_trimmed++;
	} else if (is_data) {
		receiver_data(h, q, f);
	} else if (bth[0] == RTR_BTH_OP_CNP) {
		h->st.ctl_rcvd++;
		h->st.cnps_rcvd++;
		dcqcn_cnp(h, q);
	} else {
		h->st.ctl_rcvd++;
		if (p->mb.pkt_len >= OFF_BTH + RTR_BTH_LEN + AETH_LEN)
			sender_ack(h, q, bth);
	}
	sim_pkt_free(net, p);
}

/* ------------------------------------------------------------------ API */

/* The artifact's base RTT (sim_host.h), over a shortest path of links up. */
uint64_t
sim_hosts_base_rtt_ns(const struct sim_topo *t, uint32_t src, uint32_t dst, uint32_t payload)
{
	uint32_t *prev, *queue, head = 0, tail = 0;
	uint16_t *pport;
	double ns = 0;

	if (src == dst || src >= t->n_nodes || dst >= t->n_nodes)
		return 0;
	prev = malloc(sizeof(*prev) * t->n_nodes);
	pport = malloc(sizeof(*pport) * t->n_nodes);
	queue = malloc(sizeof(*queue) * t->n_nodes);
	if (prev == NULL || pport == NULL || queue == NULL) {
		free(prev), free(pport), free(queue);
		return 0;
	}
	for (uint32_t i = 0; i < t->n_nodes; i++)
		prev[i] = UINT32_MAX;
	prev[src] = src;
	queue[tail++] = src;
	/* Breadth first: a shortest path (all of a Clos's are alike); hosts
	 * other than the ends carry nothing. */
	while (head < tail && prev[dst] == UINT32_MAX) {
		uint32_t n = queue[head++];
		const struct sim_node *nd = &t->nodes[n];

		if (nd->kind == SIM_HOST && n != src)
			continue;
		for (uint16_t k = 0; k < nd->n_ports; k++) {
			uint32_t m = nd->ports[k].peer;

			if (prev[m] != UINT32_MAX || nd->ports[k].down)
				continue;
			prev[m] = n;
			pport[m] = k;
			queue[tail++] = m;
		}
	}
	if (prev[dst] != UINT32_MAX) {
		for (uint32_t m = dst; m != src; m = prev[m]) {
			const struct sim_port *pt = &t->nodes[prev[m]].ports[pport[m]];

			ns += 2.0 * (double)pt->delay_ns + payload * 8.0 / pt->gbps;
		}
	}
	free(prev), free(pport), free(queue);
	return (uint64_t)(ns + 0.5);
}

struct sim_hosts *
sim_hosts_create(
		struct sim_net *net, const struct sim_host_cfg *c, sim_flow_done_fn done, void *arg)
{
	const struct sim_topo *t = net->topo;
	struct sim_hosts *h = calloc(1, sizeof(*h));
	uint64_t rtt = 0;

	if (h == NULL)
		return NULL;
	if (c->mtu_payload == 0 || c->ack_every == 0 || c->qps_per_flow == 0 ||
			(c->dcqcn.enabled && (c->dcqcn.alpha_resume_ns == 0 ||
							     c->dcqcn.rate_decrease_ns == 0 ||
							     c->dcqcn.rp_timer_ns == 0))) {
		free(h);
		return NULL;
	}
	h->net = net;
	h->c = *c;
	h->done = done;
	h->arg = arg;
	sim_rng_seed(&h->rng, c->seed);
	h->hn = calloc(t->n_nodes, sizeof(*h->hn));
	if (h->hn == NULL) {
		free(h);
		return NULL;
	}
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		const struct sim_node *n = &t->nodes[i];
		struct sim_hnode *hn = &h->hn[i];

		hn->wake_at = UINT64_MAX;
		if (n->kind != SIM_HOST || n->n_ports == 0)
			continue;
		hn->gbps = n->ports[0].gbps;
		/* The classes PFC names, as the ToR's egress classifies. */
		const struct rtr_egress *eg = t->nodes[n->ports[0].peer].eg;

		if (eg != NULL) {
			hn->data_cls = eg->dscp_class[c->data_dscp & 63];
			hn->ack_cls = eg->dscp_class[c->ack_dscp & 63];
			hn->cnp_cls = eg->top;
		}
	}
	/* IRN's window: the BDP of the longest path (the artifact's IrnBdp,
	 * the topology's maximum), in packets. */
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		if (t->nodes[i].kind == SIM_HOST && i != 0 && t->nodes[0].kind == SIM_HOST) {
			uint64_t r = sim_hosts_base_rtt_ns(t, 0, i, c->mtu_payload);

			if (r > rtt)
				rtt = r;
		}
	}
	h->win = c->irn_window_pkts;
	if (h->win == 0) {
		double gbps = t->n_nodes > 0 && t->nodes[0].n_ports > 0 ? t->nodes[0].ports[0].gbps
									: 100;

		h->win = (uint32_t)ceil((double)rtt * gbps / 8 / c->mtu_payload);
		if (h->win == 0)
			h->win = 1;
	}
	h->ring = 64;
	while (h->ring < h->win)
		h->ring *= 2;
	net->host_arg = h;
	net->host_rx = host_rx;
	net->host_tx = host_pull;
	return h;
}

void
sim_hosts_free(struct sim_hosts *h)
{
	if (h == NULL)
		return;
	for (uint32_t i = 0; i < h->net->topo->n_nodes; i++) {
		struct sim_pkt *p = h->hn[i].ctl_head, *nx;

		for (; p != NULL; p = nx) {
			nx = p->next;
			sim_pkt_free(h->net, p);
		}
	}
	for (uint32_t s = 0; s < h->n_slots; s++) {
		struct sim_qp *q = qp_at(h, s);

		if (q->live && q->fl != NULL && q->snd_una < q->n_pkts) {
			/* A flow not finished: its record goes with its last QP. */
			if (--q->fl->qps_left == 0)
				free(q->fl);
		}
		free(q->sack);
	}
	for (uint32_t k = 0; k < h->n_chunks; k++)
		free(h->chunks[k]);
	free(h->chunks);
	free(h->ret);
	free(h->hn);
	h->net->host_rx = NULL;
	h->net->host_tx = NULL;
	h->net->host_arg = NULL;
	free(h);
}

uint64_t
sim_hosts_start(struct sim_hosts *h, uint32_t src, uint32_t dst, uint64_t size)
{
	const struct sim_topo *t = h->net->topo;
	uint32_t n = h->c.qps_per_flow;
	uint64_t pkts = 0, msg_pkts, done_bytes = 0;
	struct sim_fl *fl;

	if (src >= t->n_nodes || dst >= t->n_nodes || src == dst || size == 0 ||
			t->nodes[src].kind != SIM_HOST || t->nodes[dst].kind != SIM_HOST)
		return UINT64_MAX;
	if (size / n / h->c.mtu_payload >= (1u << 23))
		return UINT64_MAX; /* PSNs are 24 bits: a QP carries at most 8 M packets */
	/* The Shaper splits a message into whole packets: no QP gets less
	 * than one packet's payload (a 53-byte message on 4 QPs was 4 packets
	 * of 13 bytes, each with the full header: slower than unsplit). */
	msg_pkts = (size + h->c.mtu_payload - 1) / h->c.mtu_payload;
	if ((uint64_t)n > msg_pkts)
		n = (uint32_t)msg_pkts;
	fl = calloc(1, sizeof(*fl));
	if (fl == NULL)
		return UINT64_MAX;
	fl->f.id = h->next_id;
	fl->f.src = src;
	fl->f.dst = dst;
	fl->f.src_ip = t->nodes[src].ip;
	fl->f.dst_ip = t->nodes[dst].ip;
	fl->f.dport = 4791;
	fl->f.size = size;
	fl->f.start_ns = h->net->sim.now_ns;
	fl->f.n_qps = n;
	fl->qps_left = n;
	for (uint32_t i = 0; i < n; i++) {
		struct sim_qp *q = qp_alloc(h);
		/* Packets split evenly, the first QPs taking the remainder; the
		 * last QP carries the message's last (possibly short) packet. */
		uint64_t qp_pkts = msg_pkts / n + (i < msg_pkts % n ? 1 : 0);
		uint64_t part = i + 1 < n ? qp_pkts * h->c.mtu_payload : size - done_bytes;

		if (q == NULL) {
			/* Out of memory mid-flow: what started runs on. */
			fl->f.n_qps = i;
			fl->qps_left = i;
			if (i == 0) {
				free(fl);
				return UINT64_MAX;
			}
			break;
		}
		q->fl = fl;
		q->src = src;
		q->dst = dst;
		q->src_ip = fl->f.src_ip;
		q->dst_ip = fl->f.dst_ip;
		q->sport = (uint16_t)(UDP_SPORT_BASE + (h->hn[src].sport_next++ & 0x3fff));
		if (i == 0)
			fl->f.sport = q->sport;
		q->size = part;
		done_bytes += part;
		q->n_pkts = (uint32_t)((part + h->c.mtu_payload - 1) / h->c.mtu_payload);
		q->rate = q->target = h->hn[src].gbps;
		q->inc_next_ns = UINT64_MAX;
		pkts += q->n_pkts;
		rr_add(h, q);
	}
	(void)pkts;
	h->next_id++;
	h->active++;
	h->st.flows_started++;
	sim_net_host_kick(h->net, src);
	return fl->f.id;
}

int
sim_hosts_flow_qp(struct sim_hosts *h, uint64_t flow_id, unsigned int k, uint32_t *qpn,
		double *rate_gbps)
{
	for (uint32_t s = 0; s < h->n_slots; s++) {
		struct sim_qp *q = qp_at(h, s);

		if (!q->live || q->fl->f.id != flow_id || k-- != 0)
			continue;
		dcqcn_catch_up(h, q, h->net->sim.now_ns);
		if (qpn != NULL)
			*qpn = qp_num(q);
		if (rate_gbps != NULL)
			*rate_gbps = q->rate;
		return 0;
	}
	return -1;
}

uint64_t
sim_hosts_active(const struct sim_hosts *h)
{
	return h->active;
}

void
sim_hosts_stats(const struct sim_hosts *h, struct sim_host_stats *out)
{
	*out = h->st;
	out->qp_slots = h->n_slots;
}
