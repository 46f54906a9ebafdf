/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * ConWeave's time bounds, in one place: the DstToR's hold code, the SrcToR's
 * CLEAR timeout and the config check (conweave/conweave_config.c, which
 * needs no EAL) all take them from here, so they cannot disagree. Plain
 * arithmetic on nanoseconds. See doc/conweave.md.
 */
#ifndef RTR_CW_BOUNDS_H
#define RTR_CW_BOUNDS_H

#include <stdint.h>

/*
 * D6: the longest gap a hold waits for the TAIL beyond its last phase-0
 * sample. The gap estimated from two 16-bit timestamps could be up to half
 * their wrap (33.5 ms); it is capped at resume_default, the wait used when
 * there is no sample at all, so a sample can only shorten a hold.
 */
static inline uint64_t
rtr_cw_bound_gap_ns(uint64_t resume_default_ns)
{
	return resume_default_ns;
}

/*
 * The longest a DstToR holds a flow's packets, from the first held packet
 * to the release: the capped gap plus resume_extra. The first deadline is at
 * most that far (its phase-0 sample arrived before the hold began), and a
 * later phase-0 packet pushes the deadline no further than the hold's start
 * plus this bound.
 */
static inline uint64_t
rtr_cw_bound_hold_ns(uint64_t resume_default_ns, uint64_t resume_extra_ns)
{
	return rtr_cw_bound_gap_ns(resume_default_ns) + resume_extra_ns;
}

/*
 * SrcToR: how long a flow may wait in phase 1 for its CLEAR, counted from
 * its first phase-1 packet (the one that can start the DstToR's hold):
 * configured_ns, or when 0 the longest hold plus a round trip for the
 * phase-1 packet out and the CLEAR back (base_rtt + theta_reply, the round
 * trip the operator allows an RTT_REPLY).
 */
static inline uint64_t
rtr_cw_bound_clear_ns(uint64_t configured_ns, uint64_t resume_default_ns, uint64_t resume_extra_ns,
		uint64_t base_rtt_ns, uint64_t theta_reply_ns)
{
	if (configured_ns != 0)
		return configured_ns;
	return rtr_cw_bound_hold_ns(resume_default_ns, resume_extra_ns) + base_rtt_ns +
	       theta_reply_ns;
}

#endif /* RTR_CW_BOUNDS_H */
