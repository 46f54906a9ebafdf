/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * ECN marking. RED decides at dequeue on the depth a packet leaves behind
 * (rtr_red_decide_depth in rtr_egress.h, called from eg_mark in eg_internal.h as
 * the scheduler moves the packet); this sets the CE codepoint.
 */
#include <stdbool.h>
#include <stdint.h>

#include "rtr_cksum.h"
#include "rtr_egress.h"
#include "rtr_parse.h"

bool
rtr_ecn_mark(uint8_t *frame, uint8_t l3, uint8_t l3_off)
{
	uint8_t *h = frame + l3_off;

	if (l3 == RTR_L3_IPV4) {
		uint8_t ecn = h[1] & 3;
		uint16_t old_w, new_w, ck;

		if (ecn != RTR_ECN_ECT0 && ecn != RTR_ECN_ECT1)
			return false;
		/* RFC 1624 incremental update of the word (version/IHL, TOS). */
		old_w = (uint16_t)(h[0] << 8 | h[1]);
		h[1] |= RTR_ECN_CE;
		new_w = (uint16_t)(h[0] << 8 | h[1]);
		ck = rtr_cksum_update16((uint16_t)(h[10] << 8 | h[11]), old_w, new_w);
		h[10] = (uint8_t)(ck >> 8);
		h[11] = (uint8_t)ck;
		return true;
	}
	if (l3 == RTR_L3_IPV6) {
		/* Traffic class = low nibble of byte 0, high nibble of byte 1;
		 * ECN is its two low bits: bits 5..4 of byte 1. */
		uint8_t ecn = (h[1] >> 4) & 3;

		if (ecn != RTR_ECN_ECT0 && ecn != RTR_ECN_ECT1)
			return false;
		h[1] |= 0x30;
		return true;
	}
	return false;
}
