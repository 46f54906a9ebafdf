/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * LB control packets, ALGORITHMS.md 2.1 (wire format in doc/wire-formats.md).
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "rtr_cksum.h"
#include "rtr_lb_ctrl.h"
#include "rtr_stats.h"

struct rte_mbuf *
rtr_lb_ctrl_build(struct rte_mbuf *m, const uint8_t *frame, const struct rtr_meta *meta, uint8_t b4,
		uint8_t b8, const uint8_t hdr[4])
{
	unsigned int bth_off = rtr_meta_bth_off(meta);
	unsigned int n = rtr_lb_ctrl_len(meta);
	const uint8_t *sl3;
	uint8_t *f, *l3, *bth;

	f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n);
	if (f == NULL)
		return NULL;
	/* rte_memcpy: a copy of 54-98 bytes, which memcpy of a length not
	 * known at build time did with `rep movs` (half this function's
	 * cycles at the DstToR, perf). The fields that change are then
	 * written from the source frame's values, never read back from the
	 * copy: a narrow load of what a wide store just wrote waits for it
	 * (a quarter of the function's cycles, perf). */
	rte_memcpy(f, frame, bth_off + RTR_BTH_LEN);
	l3 = f + meta->l3_off;
	sl3 = frame + meta->l3_off;
	if (meta->l3 == RTR_L3_IPV4 && likely(sl3[0] == 0x45)) {
		/* The header as five words in memory order: ECN cleared,
		 * the cut packet's length, TTL 64, the addresses swapped,
		 * the checksum of that. */
		uint32_t w0, w1, w2, w3, w4;
		rte_be16_t ck;

		memcpy(&w0, sl3, 4);
		memcpy(&w1, sl3 + 4, 4);
		memcpy(&w2, sl3 + 8, 4);
		memcpy(&w3, sl3 + 16, 4); /* swapped */
		memcpy(&w4, sl3 + 12, 4);
		w0 = (w0 & rte_cpu_to_be_32(0xfffc0000u)) |
		     rte_cpu_to_be_32((uint32_t)(n - meta->l3_off));
		w2 = (w2 & rte_cpu_to_be_32(0x00ff0000u)) | rte_cpu_to_be_32(64u << 24);
		ck = rtr_cksum_fold((uint64_t)w0 + w1 + w2 + w3 + w4);
		/* One store per word (a vector copy of the words through the
		 * stack would wait for them as well). */
		memcpy(l3, &w0, 4);
		memcpy(l3 + 4, &w1, 4);
		memcpy(l3 + 8, &w2, 4);
		memcpy(l3 + 10, &ck, 2);
		memcpy(l3 + 12, &w3, 4);
		memcpy(l3 + 16, &w4, 4);
	} else if (meta->l3 == RTR_L3_IPV4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		memcpy(l3 + 12, sl3 + 16, 4);
		memcpy(l3 + 16, sl3 + 12, 4);
		ip->type_of_service = sl3[1] & (uint8_t)~3;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(n - meta->l3_off));
		ip->time_to_live = 64;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = (rte_be16_t)rte_ipv4_cksum(ip);
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)l3;
		uint32_t vtc;

		memcpy(l3 + 8, sl3 + 24, 16);
		memcpy(l3 + 24, sl3 + 8, 16);
		memcpy(&vtc, sl3, 4);
		ip6->vtc_flow = vtc & rte_cpu_to_be_32(~(3u << 20));
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)(n - meta->l4_off));
		ip6->hop_limits = 64;
	}
	/* UDP: ports kept, length of the cut packet, no checksum (as the
	 * Tofino sends it; IPv6 asks for one in general, but only ToRs read
	 * these packets, and their parsers do not check it). */
	f[meta->l4_off + 4] = (uint8_t)((n - meta->l4_off) >> 8);
	f[meta->l4_off + 5] = (uint8_t)(n - meta->l4_off);
	f[meta->l4_off + 6] = 0;
	f[meta->l4_off + 7] = 0;
	bth = f + bth_off;
	bth[4] = b4;
	bth[8] = b8;
	memcpy(bth + RTR_BTH_LEN, hdr, RTR_LB_HDR_LEN);
	return m;
}

enum rtr_drop_reason
rtr_lb_ctrl_host_check(const uint8_t *frame, uint32_t len, const struct rtr_meta *meta)
{
	if (likely(!(meta->flags & RTR_MF_ROCE) || rtr_lb_op(meta->bth_b8) < RTR_LB_OP_REPLY))
		return RTR_DROP_NONE;
	if ((frame[meta->l4_off + 4] << 8 | frame[meta->l4_off + 5]) !=
					8 + RTR_BTH_LEN + RTR_LB_HDR_LEN ||
			rtr_roce_icrc_ok(frame, len, meta))
		return RTR_DROP_NONE;
	return RTR_DROP_HOST_LB_PACKET;
}
