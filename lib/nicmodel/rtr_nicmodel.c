/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The NIC TX model (rtr_nicmodel.h). Each queue's descriptors are named by
 * a sequence number that only grows: written (the driver's tail), sent
 * (last bit left) and freed (written back) satisfy
 * freed <= sent <= written <= freed + ring_size, and seq % ring_size is the
 * ring slot, so a batch boundary of comp_batch (which divides ring_size)
 * falls on the same slots on every turn of the ring, as ice's and i40e's
 * RS descriptors do (tx_next_rs = tx_rs_thresh - 1 + k * tx_rs_thresh).
 */
#include <errno.h>
#include <stdlib.h>

#include "rtr_nicmodel.h"

struct nicm_q {
	void **frame;
	uint32_t *len;
	uint64_t *accept_ps;
	uint64_t *end_ps;
	uint8_t *dd; /* the slot's descriptor says done (ice/i40e DTYPE DESC_DONE) */
	uint64_t written, sent, freed;
	struct rtr_nicm_qstats st;
};

struct rtr_nicm {
	struct rtr_nicm_conf conf;
	uint64_t now_ps;    /* processed up to here */
	uint64_t wire_free; /* the last frame's last bit */
	bool busy;          /* a frame is on the wire: queue cur_q's seq sent */
	uint16_t cur_q;
	uint64_t cur_start, cur_end;
	uint16_t rr_next;
	uint64_t link_pause_until;
	uint64_t pfc_pause_until[8];
	struct rtr_nicm_stats st;
	struct nicm_q q[RTR_NICM_MAX_QUEUES];
};

static uint64_t
max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t
bits_ps(const struct rtr_nicm *m, uint64_t bits)
{
	/* bits * 1e12 / (rate_mbps * 1e6), rounded up */
	return (bits * 1000000 + m->conf.rate_mbps - 1) / m->conf.rate_mbps;
}

uint64_t
rtr_nicm_frame_ps(const struct rtr_nicm *m, uint32_t len)
{
	uint64_t l = len < RTR_NICM_MIN_FRAME && !m->conf.no_pad ? RTR_NICM_MIN_FRAME : len;

	return bits_ps(m, (uint64_t)((int64_t)l + RTR_NICM_OVERHEAD + m->conf.overhead_adj) * 8);
}

struct rtr_nicm *
rtr_nicm_create(const struct rtr_nicm_conf *conf)
{
	struct rtr_nicm *m;
	unsigned int i, j;

	if (conf == NULL || conf->rate_mbps == 0 || conf->n_queues == 0 ||
			conf->n_queues > RTR_NICM_MAX_QUEUES || conf->ring_size == 0 ||
			conf->comp_batch == 0 || conf->ring_size % conf->comp_batch != 0 ||
			conf->frame_len == NULL || conf->overhead_adj < -RTR_NICM_OVERHEAD) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < conf->n_queues; i++) {
		if (conf->prio[i] > 7 || conf->pfc_prio[i] > 7) {
			errno = EINVAL;
			return NULL;
		}
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return NULL;
	m->conf = *conf;
	for (i = 0; i < conf->n_queues; i++) {
		struct nicm_q *q = &m->q[i];
		size_t n = conf->ring_size;

		q->frame = calloc(n, sizeof(*q->frame));
		q->len = calloc(n, sizeof(*q->len));
		q->accept_ps = calloc(n, sizeof(*q->accept_ps));
		q->end_ps = calloc(n, sizeof(*q->end_ps));
		q->dd = calloc(n, sizeof(*q->dd));
		if (q->frame == NULL || q->len == NULL || q->accept_ps == NULL ||
				q->end_ps == NULL || q->dd == NULL) {
			rtr_nicm_free(m);
			return NULL;
		}
		/* A reset ring's descriptors all say done (ice_rxtx.c:1027,
		 * i40e_rxtx.c:2793). */
		for (j = 0; j < n; j++)
			q->dd[j] = 1;
	}
	return m;
}

void
rtr_nicm_free(struct rtr_nicm *m)
{
	unsigned int i;

	if (m == NULL)
		return;
	for (i = 0; i < RTR_NICM_MAX_QUEUES; i++) {
		free(m->q[i].frame);
		free(m->q[i].len);
		free(m->q[i].accept_ps);
		free(m->q[i].end_ps);
		free(m->q[i].dd);
	}
	free(m);
}

uint16_t
rtr_nicm_tx_burst(struct rtr_nicm *m, uint16_t qi, void **frames, uint16_t n, uint64_t now_ns)
{
	struct nicm_q *q;
	uint64_t now_ps = now_ns * 1000;
	uint32_t free_desc;
	uint16_t i, take;

	if (qi >= m->conf.n_queues)
		return 0;
	q = &m->q[qi];
	if (now_ps < m->now_ps)
		now_ps = m->now_ps; /* time does not go back */
	free_desc = m->conf.ring_size - (uint32_t)(q->written - q->freed);
	take = n < free_desc ? n : (uint16_t)free_desc;
	for (i = 0; i < take; i++) {
		uint32_t slot = q->written % m->conf.ring_size;
		uint32_t len = m->conf.frame_len(frames[i]);

		q->frame[slot] = frames[i];
		q->len[slot] = len;
		q->accept_ps[slot] = now_ps;
		q->dd[slot] = 0; /* the driver writes a data descriptor */
		q->written++;
		q->st.accepted++;
		q->st.accepted_bytes += len;
		q->st.frames_queued++;
		q->st.bytes_queued += len;
	}
	q->st.desc_in_use = (uint32_t)(q->written - q->freed);
	q->st.refused += n - take;
	return take;
}

static uint64_t
pause_end(const struct rtr_nicm *m, uint16_t qi)
{
	return max64(m->link_pause_until, m->pfc_pause_until[m->conf.pfc_prio[qi]]);
}

/* The queue whose head frame can start first (ties: strict priority, then
 * round-robin from rr_next), and when; false when no queue has a frame. */
static bool
pick(const struct rtr_nicm *m, uint16_t *out_q, uint64_t *out_start)
{
	bool found = false;
	uint64_t best = 0;
	uint16_t best_q = 0, i;

	for (i = 0; i < m->conf.n_queues; i++) {
		uint16_t qi = (uint16_t)((m->rr_next + i) % m->conf.n_queues);
		const struct nicm_q *q = &m->q[qi];
		uint64_t ready;

		if (q->sent == q->written)
			continue;
		ready = max64(m->wire_free, q->accept_ps[q->sent % m->conf.ring_size]);
		ready = max64(ready, pause_end(m, qi));
		if (!found || ready < best ||
				(ready == best && m->conf.sched == RTR_NICM_STRICT &&
						m->conf.prio[qi] < m->conf.prio[best_q])) {
			found = true;
			best = ready;
			best_q = qi;
		}
	}
	*out_q = best_q;
	*out_start = best;
	return found;
}

/* The time the next completion batch of q is written back, or UINT64_MAX
 * when its last frame has not left yet. */
static uint64_t
next_completion(const struct rtr_nicm *m, const struct nicm_q *q)
{
	uint64_t b = m->conf.comp_batch;
	uint64_t last;

	if (q->freed == q->sent)
		return UINT64_MAX;
	last = (q->freed / b + 1) * b - 1;
	if (last >= q->sent)
		return UINT64_MAX;
	return q->end_ps[last % m->conf.ring_size] + m->conf.comp_delay_ns * 1000;
}

static void
complete(struct rtr_nicm *m, struct nicm_q *q, uint64_t now_ps)
{
	uint64_t b = m->conf.comp_batch;

	while (next_completion(m, q) <= now_ps) {
		uint64_t last = (q->freed / b + 1) * b - 1;

		q->dd[last % m->conf.ring_size] = 1; /* the write-back */
		q->freed = last + 1;
	}
	q->st.desc_in_use = (uint32_t)(q->written - q->freed);
}

uint16_t
rtr_nicm_advance(struct rtr_nicm *m, uint64_t now_ns, struct rtr_nicm_sent *out, uint16_t max)
{
	uint64_t now_ps = now_ns * 1000;
	uint16_t n = 0, i;

	for (;;) {
		if (m->busy) {
			struct nicm_q *q = &m->q[m->cur_q];
			uint32_t slot = q->sent % m->conf.ring_size;
			uint64_t wait;

			if (m->cur_end > now_ps)
				break;
			if (n == max)
				break;
			out[n].frame = q->frame[slot];
			out[n].queue = m->cur_q;
			out[n].accept_ps = q->accept_ps[slot];
			out[n].start_ps = m->cur_start;
			out[n].end_ps = m->cur_end;
			n++;
			q->end_ps[slot] = m->cur_end;
			wait = m->cur_end - q->accept_ps[slot];
			if (wait > q->st.max_wait_ps)
				q->st.max_wait_ps = wait;
			q->st.sent++;
			q->st.sent_bytes += q->len[slot];
			q->st.frames_queued--;
			q->st.bytes_queued -= q->len[slot];
			q->sent++;
			m->busy = false;
			m->wire_free = m->cur_end;
		} else {
			uint16_t qi;
			uint64_t start;
			struct nicm_q *q;

			if (!pick(m, &qi, &start) || start > now_ps)
				break;
			q = &m->q[qi];
			m->busy = true;
			m->cur_q = qi;
			m->cur_start = start;
			m->cur_end = start +
				     rtr_nicm_frame_ps(m, q->len[q->sent % m->conf.ring_size]);
			m->st.busy_ps += m->cur_end - start;
			m->rr_next = (uint16_t)((qi + 1) % m->conf.n_queues);
		}
	}
	for (i = 0; i < m->conf.n_queues; i++)
		complete(m, &m->q[i], now_ps);
	if (now_ps > m->now_ps && n < max)
		m->now_ps = now_ps;
	return n;
}

bool
rtr_nicm_on_wire(const struct rtr_nicm *m, struct rtr_nicm_sent *out)
{
	const struct nicm_q *q;
	uint32_t slot;

	if (!m->busy)
		return false;
	q = &m->q[m->cur_q];
	slot = q->sent % m->conf.ring_size;
	out->frame = q->frame[slot];
	out->queue = m->cur_q;
	out->accept_ps = q->accept_ps[slot];
	out->start_ps = m->cur_start;
	out->end_ps = m->cur_end;
	return true;
}

uint64_t
rtr_nicm_next_event_ns(const struct rtr_nicm *m)
{
	uint64_t t = UINT64_MAX;
	uint16_t qi, i;
	uint64_t start;

	if (m->busy)
		t = m->cur_end;
	else if (pick(m, &qi, &start))
		t = start;
	for (i = 0; i < m->conf.n_queues; i++) {
		uint64_t c = next_completion(m, &m->q[i]);

		if (c < t)
			t = c;
	}
	if (t == UINT64_MAX)
		return t;
	return (t + 999) / 1000;
}

void
rtr_nicm_pause(struct rtr_nicm *m, uint8_t prio_mask, uint16_t quanta, uint64_t at_ns)
{
	uint64_t at_ps = max64(at_ns * 1000, m->now_ps);
	uint64_t until = at_ps + bits_ps(m, (uint64_t)quanta * RTR_NICM_QUANTUM_BITS);
	unsigned int p;

	m->st.pause_rx++;
	if (prio_mask == 0) {
		m->link_pause_until = until;
		return;
	}
	for (p = 0; p < 8; p++)
		if (prio_mask & (1u << p))
			m->pfc_pause_until[p] = until;
}

int
rtr_nicm_desc_status(const struct rtr_nicm *m, uint16_t qi, uint16_t offset, enum rtr_nicm_ds ds)
{
	const struct nicm_q *q;
	uint32_t n = m->conf.ring_size, b = m->conf.comp_batch;
	uint32_t desc;

	if (qi >= m->conf.n_queues)
		return -EINVAL;
	q = &m->q[qi];
	if (ds == RTR_NICM_DS_USED) {
		/* mlx5_tx.c:273-277: used = elts_head - elts_tail */
		return offset < q->written - q->freed ? RTR_NICM_DESC_FULL : RTR_NICM_DESC_DONE;
	}
	/* ice_rxtx.c:2341-2361, i40e_rxtx.c:2216-2236: the arithmetic of the
	 * drivers, rounding up to a multiple of tx_rs_thresh. */
	if (offset >= n)
		return -EINVAL;
	desc = (uint32_t)(q->written % n) + offset;
	desc = (desc + b - 1) / b * b;
	if (desc >= n) {
		desc -= n;
		if (desc >= n)
			desc -= n;
	}
	return q->dd[desc] ? RTR_NICM_DESC_DONE : RTR_NICM_DESC_FULL;
}

enum rtr_nicm_rx
rtr_nicm_classify_rx(struct rtr_nicm *m, const uint8_t *frame, uint32_t len)
{
	/* MAC control frames are untagged: the EtherType right after the
	 * addresses (IEEE 802.3 clause 31). */
	if (len >= 14 && ((uint32_t)frame[12] << 8 | frame[13]) == RTR_NICM_ETHERTYPE_MAC_CTRL) {
		if (m->conf.mac_consumes_ctrl) {
			m->st.rx_ctrl_consumed++;
			return RTR_NICM_RX_CONSUMED;
		}
		m->st.rx_ctrl_passed++;
	}
	m->st.rx_passed++;
	return RTR_NICM_RX_PASSED;
}

const struct rtr_nicm_qstats *
rtr_nicm_qstats(const struct rtr_nicm *m, uint16_t qi)
{
	return qi < m->conf.n_queues ? &m->q[qi].st : NULL;
}

const struct rtr_nicm_stats *
rtr_nicm_stats(const struct rtr_nicm *m)
{
	return &m->st;
}
