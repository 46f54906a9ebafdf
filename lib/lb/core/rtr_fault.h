/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Injected loss of LB control packets (config `faults.ctrl_loss`,
 * doc/faults.md): a lab impairment that loses RTT_REPLYs, CLEARs, NOTIFYs
 * (and SeqBalance Congestion Packets), TAILs and CAVER-shimmed ACKs as they
 * arrive on a fabric port, as if the link had lost them, each under its own
 * drop reason. A worker has a struct rtr_fault only when some probability
 * is non-zero: with the knob off the data path tests one NULL pointer.
 * No EAL: unit tests call it with a parsed struct rtr_meta.
 */
#ifndef RTR_FAULT_H
#define RTR_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "rtr_config.h"
#include "rtr_drop.h"
#include "rtr_lb_wire.h"
#include "rtr_parse.h"

enum rtr_fault_kind {
	RTR_FAULT_RTT_REPLY,
	RTR_FAULT_CLEAR,
	RTR_FAULT_NOTIFY,
	RTR_FAULT_TAIL,
	RTR_FAULT_ADVERT,
	RTR_FAULT_KINDS,
	RTR_FAULT_NONE = RTR_FAULT_KINDS,
};

struct rtr_fault {
	uint64_t rng;                  /* xorshift64* state, never 0 */
	uint64_t q64[RTR_FAULT_KINDS]; /* loss probability x 2^64 (UINT64_MAX: always) */
};

/* Any loss configured? */
static inline bool
rtr_fault_enabled(const struct rtr_faults_cfg *fc)
{
	const struct rtr_ctrl_loss_cfg *l = &fc->ctrl_loss;

	return l->rtt_reply > 0 || l->clear > 0 || l->notify > 0 || l->tail > 0 || l->advert > 0;
}

static inline uint64_t
rtr_fault_q64(double p)
{
	if (p >= 1.0)
		return UINT64_MAX;
	return p > 0 ? (uint64_t)(p * 18446744073709551616.0) : 0;
}

/* Set up worker `worker`'s generator: the seed, decorrelated per worker. */
static inline void
rtr_fault_init(struct rtr_fault *f, const struct rtr_faults_cfg *fc, unsigned int worker)
{
	f->rng = (fc->seed ^ ((uint64_t)(worker + 1) * 0x9e3779b97f4a7c15ull)) | 1;
	f->q64[RTR_FAULT_RTT_REPLY] = rtr_fault_q64(fc->ctrl_loss.rtt_reply);
	f->q64[RTR_FAULT_CLEAR] = rtr_fault_q64(fc->ctrl_loss.clear);
	f->q64[RTR_FAULT_NOTIFY] = rtr_fault_q64(fc->ctrl_loss.notify);
	f->q64[RTR_FAULT_TAIL] = rtr_fault_q64(fc->ctrl_loss.tail);
	f->q64[RTR_FAULT_ADVERT] = rtr_fault_q64(fc->ctrl_loss.advert);
}

/* Which kind of LB control packet a frame parsed on a fabric port is. */
static inline enum rtr_fault_kind
rtr_fault_kind(const struct rtr_meta *m)
{
	unsigned int b8 = m->bth_b8;

	if (!(m->flags & RTR_MF_ROCE))
		return RTR_FAULT_NONE;
	if (m->flags & RTR_MF_LB_HDR) {
		switch (rtr_lb_op(m->bth_b8)) {
		case RTR_LB_OP_REPLY:
			return (b8 >> 4) & 1 ? RTR_FAULT_CLEAR : RTR_FAULT_RTT_REPLY;
		case RTR_LB_OP_NOTIFY:
			return RTR_FAULT_NOTIFY;
		case RTR_LB_OP_DATA:
			return (b8 & 1) ? RTR_FAULT_TAIL : RTR_FAULT_NONE;
		default:
			return RTR_FAULT_NONE;
		}
	}
	/* A CAVER advertisement rides on an RC ACK marked Resv7 = 0x7F. */
	if (m->bth_opcode == RTR_BTH_OP_RC_ACK && (b8 & RTR_BTH_RESV7_MASK) == RTR_BTH_RESV7_MASK)
		return RTR_FAULT_ADVERT;
	return RTR_FAULT_NONE;
}

/*
 * A packet arrived on a fabric port: RTR_DROP_NONE, or the fault_* reason
 * to drop it under (the generator advances only for control packets of a
 * kind whose loss is configured).
 */
static inline enum rtr_drop_reason
rtr_fault_rx(struct rtr_fault *f, const struct rtr_meta *m)
{
	static const enum rtr_drop_reason why[RTR_FAULT_KINDS] = {
			[RTR_FAULT_RTT_REPLY] = RTR_DROP_FAULT_RTT_REPLY,
			[RTR_FAULT_CLEAR] = RTR_DROP_FAULT_CLEAR,
			[RTR_FAULT_NOTIFY] = RTR_DROP_FAULT_NOTIFY,
			[RTR_FAULT_TAIL] = RTR_DROP_FAULT_TAIL,
			[RTR_FAULT_ADVERT] = RTR_DROP_FAULT_ADVERT,
	};
	enum rtr_fault_kind k = rtr_fault_kind(m);
	uint64_t x;

	if (k == RTR_FAULT_NONE || f->q64[k] == 0)
		return RTR_DROP_NONE;
	if (f->q64[k] == UINT64_MAX)
		return why[k];
	x = f->rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	f->rng = x;
	return x * 0x2545f4914f6cdd1dull < f->q64[k] ? why[k] : RTR_DROP_NONE;
}

#endif /* RTR_FAULT_H */
