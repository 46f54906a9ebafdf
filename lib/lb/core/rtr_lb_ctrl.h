/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The control packet a DstToR sends back to the SrcToR of a data packet
 * (ALGORITHMS.md 2.1), shared by the modes that use that layout: ConWeave
 * (RTT_REPLY, CLEAR, NOTIFY) and SeqBalance (Congestion Packet, which is a
 * NOTIFY). Building it needs no EAL: the caller allocates the mbuf, so unit
 * tests pass calloc'd ones.
 */
#ifndef RTR_LB_CTRL_H
#define RTR_LB_CTRL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#include "rtr_common.h"
#include "rtr_drop.h"
#include "rtr_lb_counters.h"
#include "rtr_lb_wire.h"
#include "rtr_parse.h"

struct rte_mbuf;

/* Bytes of the control packet answering a frame parsed as meta: its
 * Ethernet..BTH, then the 4-byte header, nothing after (no ICRC: a control
 * packet never reaches a host). */
static inline unsigned int
rtr_lb_ctrl_len(const struct rtr_meta *meta)
{
	return rtr_meta_bth_off(meta) + RTR_BTH_LEN + RTR_LB_HDR_LEN;
}

/*
 * Fill the empty mbuf m (just allocated by the caller) with the control
 * packet answering data frame `frame` (parsed as meta, IPv4 or IPv6, RoCE):
 * Ethernet (and VLAN tag) .. BTH copied, IP addresses swapped so that it
 * goes back to the sender's ToR, UDP ports kept (it still parses as RoCEv2,
 * and the SrcToR finds the flow as (dst IP, src IP, sport)), ECN cleared,
 * TTL / hop limit 64, IP and UDP lengths of the cut packet, UDP checksum 0,
 * IPv4 header checksum recomputed; BTH byte 4 = b4, byte 8 = b8 (AckReq and
 * Resv7), then the 4 bytes of hdr.
 *
 * Returns m, or NULL when m has no room (m is left to the caller to free).
 */
struct rte_mbuf *rtr_lb_ctrl_build(struct rte_mbuf *m, const uint8_t *frame,
		const struct rtr_meta *meta, uint8_t b4, uint8_t b8, const uint8_t hdr[4]);

/*
 * The host_check (rtr_lb_desc, rtr_lb_host.h) of the modes that use this
 * layout (ConWeave, SeqBalance): a control packet from a host port (cw_op
 * 2/3, UDP length 24, and the 4 bytes after the BTH are not an ICRC) is
 * RTR_DROP_HOST_LB_PACKET: hosts never send those (DESIGN.md A3). A host's own zero-payload packet with such
 * Resv7 bits has a valid ICRC and goes on (RTR_DROP_NONE).
 */
enum rtr_drop_reason rtr_lb_ctrl_host_check(
		const uint8_t *frame, uint32_t len, const struct rtr_meta *meta);

/*
 * What a DstToR delivers of a ConWeave DATA packet, and what any ToR
 * delivers of one toward a host (rtr_cw_host_strip): the LB header
 * removed (when RTR_MF_LB_HDR), byte 4 and Resv7 zeroed, AckReq kept; meta
 * updated. The sender's bytes, and ICRC, again.
 */
static inline void
rtr_lb_hdr_strip(struct rte_mbuf *m, struct rtr_meta *meta)
{
	unsigned int n = rtr_meta_bth_off(meta) + RTR_BTH_LEN;
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *bth;

	if (meta->flags & RTR_MF_LB_HDR) {
		if (likely(n <= RTR_HEAD_MAX && m->buf_len - m->data_off >= RTR_HEAD_MAX))
			rtr_move_head(f + RTR_LB_HDR_LEN, f, n);
		else
			memmove(f + RTR_LB_HDR_LEN, f, n);
		rte_pktmbuf_adj(m, RTR_LB_HDR_LEN);
		f = rte_pktmbuf_mtod(m, uint8_t *);
		meta->flags &= (uint8_t)~RTR_MF_LB_HDR;
	}
	bth = f + rtr_meta_bth_off(meta);
	bth[4] = 0;
	bth[8] &= RTR_BTH_ACKREQ;
	meta->bth_b4 = 0;
	meta->bth_b8 = bth[8];
}

/*
 * Make room for a 4-byte LB header after the BTH (ConWeave's DATA header,
 * spray's number): Eth..BTH move 4 bytes toward the head. Returns the new
 * frame start, NULL without headroom (rtr_lb_make_headroom first).
 */
static inline uint8_t *
rtr_lb_hdr_insert(struct rte_mbuf *m, const struct rtr_meta *meta)
{
	unsigned int n = rtr_meta_bth_off(meta) + RTR_BTH_LEN;
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, meta->l3_off);
	uint32_t ip_end = meta->l3_off +
			  (meta->l3 == RTR_L3_IPV4 ? (uint32_t)(l3[2] << 8 | l3[3])
						   : 40u + (uint32_t)(l3[4] << 8 | l3[5]));
	uint8_t *f;

	/*
	 * Bytes past the IP datagram (padding a host left on a frame longer
	 * than Ethernet's minimum) would hide the header from the DstToR: its
	 * parser knows a DATA header by the frame being 4 to 6 bytes longer
	 * than the datagram (rtr_parse.c, cw_data_signature), so such a frame
	 * reached its host unstripped with a wrong ICRC (found by
	 * fuzz_lb_conweave). They are not part of the packet (the ICRC ends
	 * the UDP payload): drop them before stamping.
	 */
	if (unlikely(m->data_len > ip_end))
		rte_pktmbuf_trim(m, (uint16_t)(m->data_len - ip_end));
	f = (uint8_t *)rte_pktmbuf_prepend(m, RTR_LB_HDR_LEN);

	if (f == NULL)
		return NULL;
	if (likely(n <= RTR_HEAD_MAX && m->buf_len - m->data_off >= RTR_HEAD_MAX + RTR_LB_HDR_LEN))
		rtr_move_head(f, f + RTR_LB_HDR_LEN, n);
	else
		memmove(f, f + RTR_LB_HDR_LEN, n);
	return f;
}

/*
 * Too little headroom for the header (a PMD or a pool with a small
 * RTE_PKTMBUF_HEADROOM): move the frame toward the tail when the buffer
 * has room there, so the packet is stamped like the rest of its flow.
 * Only single-segment frames (the pipeline linearises at ingress).
 */
static inline int
rtr_lb_make_headroom(struct rte_mbuf *m)
{
	uint16_t need = (uint16_t)(RTR_LB_HDR_LEN - rte_pktmbuf_headroom(m));
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);

	if (m->nb_segs != 1 || rte_pktmbuf_tailroom(m) < need)
		return -1;
	memmove(f + need, f, m->data_len);
	m->data_off = (uint16_t)(m->data_off + need);
	return 0;
}

#endif /* RTR_LB_CTRL_H */
