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
#include "rtr_parse.h"

struct rte_mbuf;

/* Bytes of the control packet answering a frame parsed as meta: its
 * Ethernet..BTH, then the 4-byte header, nothing after (no ICRC: a control
 * packet never reaches a host). */
static inline unsigned int
rtr_lb_ctrl_len(const struct rtr_meta *meta)
{
	return rtr_meta_bth_off(meta) + RTR_BTH_LEN + RTR_CW_HDR_LEN;
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
 * Part of rtr_lb_host_check, for the modes that use this layout (ConWeave,
 * SeqBalance): a
 * control packet from a host port (cw_op 2/3, UDP length 24, and the 4 bytes
 * after the BTH are not an ICRC) is RTR_DROP_HOST_LB_PACKET: hosts never
 * send those (DESIGN.md A3). A host's own zero-payload packet with such
 * Resv7 bits has a valid ICRC and goes on (RTR_DROP_NONE).
 */
enum rtr_drop_reason rtr_lb_ctrl_host_check(const uint8_t *frame, uint32_t len,
		const struct rtr_meta *meta);

/*
 * What every host port checks, whatever the LB mode (doc/security.md): a
 * host must not inject the LB control packets or shims of any mode, since
 * another switch of the fabric (or this one after a runtime LB switch) may
 * run a mode that acts on them: a ConWeave/SeqBalance control packet
 * (rtr_lb_ctrl_host_check) or a CAVER ACK shim (an RC ACK with Resv7 0x7F)
 * is RTR_DROP_HOST_LB_PACKET. The caller also clears BTH byte 4 (ICRC
 * masked) of every RoCE packet from a host.
 */
enum rtr_drop_reason rtr_lb_host_check(const uint8_t *frame, uint32_t len,
		const struct rtr_meta *meta);

/*
 * Everything a host port does to a parsed frame before routing, in every LB
 * mode (doc/security.md): rtr_lb_host_check, then BTH byte 4 of a RoCE
 * packet cleared (ICRC-masked) but for a CNP's BECN bit, which the RoCEv2
 * spec sets in every CNP and no LB mode reads. Returns the drop reason or
 * RTR_DROP_NONE; *b4_cleared tells whether byte 4 changed.
 */
static inline enum rtr_drop_reason
rtr_lb_host_ingress(uint8_t *frame, uint32_t len, struct rtr_meta *meta, bool *b4_cleared)
{
	enum rtr_drop_reason why;

	*b4_cleared = false;
	if (!(meta->flags & RTR_MF_ROCE))
		return RTR_DROP_NONE;
	if (meta->bth_b8 & RTR_BTH_RESV7_MASK) {
		why = rtr_lb_host_check(frame, len, meta);
		if (why != RTR_DROP_NONE)
			return why;
	}
	uint8_t b4 = meta->bth_opcode == RTR_BTH_OP_CNP ? meta->bth_b4 & RTR_BTH_B4_BECN : 0;

	if (meta->bth_b4 != b4) {
		frame[rtr_meta_bth_off(meta) + 4] = b4;
		meta->bth_b4 = b4;
		*b4_cleared = true;
	}
	return RTR_DROP_NONE;
}

/*
 * What a DstToR delivers of a ConWeave DATA packet, and what any ToR
 * delivers of one toward a host (rtr_lb_host_egress): the LB header
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
			rtr_move_head(f + RTR_CW_HDR_LEN, f, n);
		else
			memmove(f + RTR_CW_HDR_LEN, f, n);
		rte_pktmbuf_adj(m, RTR_CW_HDR_LEN);
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
 * Toward a host, whatever the LB mode (doc/wire-formats.md "LB fields
 * toward a host"): a packet from a fabric port about to be queued on a host
 * port, after the mode's own stage (deliver, post_route) did what it
 * does. Whatever LB field is still recognised goes, so that the host gets
 * the bytes its peer's RNIC sent (DESIGN.md B4): a ConWeave DATA header
 * (parsed by its length signature: RTR_MF_LB_HDR, cw_op 1) with byte 4
 * and Resv7, a CAVER shim (rtr_caver_is_shimmed), and byte 4 (ICRC
 * masked: a PathTag or source route; a CNP keeps its BECN). Resv7 is only
 * touched with a header or shim it marks: an RNIC's own Resv7 bits stay.
 * Counts foreign_cw_stripped / foreign_shims_stripped in c (RTR_LBC_*).
 * ConWeave REPLY/NOTIFY for a host are consumed before this, never
 * delivered (the pipeline; foreign_ctrl when the mode has no use for them).
 */
void rtr_lb_host_egress(struct rte_mbuf *m, struct rtr_meta *meta, uint64_t *c);

/* Whether rtr_lb_host_egress may have anything to do: one test on two
 * bytes of the metadata, so that a plain RoCE frame (byte 4 and Resv7
 * zero) and anything not RoCE (both 0 in the metadata) pay nothing more. */
static inline bool
rtr_lb_host_egress_needed(const struct rtr_meta *meta)
{
	return (meta->bth_b4 | (meta->bth_b8 & RTR_BTH_RESV7_MASK)) != 0;
}

#endif /* RTR_LB_CTRL_H */
