/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The host-port rules every switch applies whatever LB mode it runs
 * (doc/security.md, doc/wire-formats.md "LB fields toward a host"): a host
 * must not inject any mode's LB control packet or shim, and a host gets no
 * LB field of any mode. Each mode declares its own part in its descriptor
 * (rtr_lb_desc host_check, host_strip); these rules apply every registered
 * mode's part, so they sit above the modes, beside the registry. The fast
 * tests that keep the common path free of them are inline here.
 */
#ifndef RTR_LB_HOST_H
#define RTR_LB_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "rtr_common.h"
#include "rtr_drop.h"
#include "rtr_parse.h"

struct rte_mbuf;

/*
 * What every host port checks, whatever the LB mode (doc/security.md): a
 * host must not inject the LB control packets or shims of any mode, since
 * another switch of the fabric (or this one after a runtime LB switch) may
 * run a mode that acts on them. A RoCE frame with Resv7 nonzero that any
 * registered mode's host_check claims (a ConWeave/SeqBalance control
 * packet, rtr_lb_ctrl_host_check; a CAVER ACK shim, an RC ACK with Resv7
 * 0x7F, rtr_caver_host_check) is RTR_DROP_HOST_LB_PACKET. The caller also
 * clears BTH byte 4 (ICRC masked) of every RoCE packet from a host.
 */
enum rtr_drop_reason rtr_lb_host_check(
		const uint8_t *frame, uint32_t len, const struct rtr_meta *meta);

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
 * Toward a host, whatever the LB mode (doc/wire-formats.md "LB fields
 * toward a host"): a packet from a fabric port about to be queued on a host
 * port, after the mode's own stage (deliver, post_route) did what it
 * does. Whatever LB field is still recognised goes, so that the host gets
 * the bytes its peer's RNIC sent (DESIGN.md B4): each registered mode's
 * host_strip in registry order (a ConWeave DATA header, parsed by its
 * length signature: RTR_MF_LB_HDR, cw_op 1, with byte 4 and Resv7,
 * rtr_cw_host_strip; a CAVER shim, rtr_caver_host_strip), then byte 4
 * (ICRC masked: a PathTag or source route; a CNP keeps its BECN). Resv7 is
 * only touched with a header or shim it marks: an RNIC's own Resv7 bits
 * stay. The modes count what they strip in c (RTR_LBC_*:
 * foreign_cw_stripped, foreign_shims_stripped). ConWeave REPLY/NOTIFY for a
 * host are consumed before this, never delivered (the pipeline;
 * foreign_ctrl when the mode has no use for them).
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

#endif /* RTR_LB_HOST_H */
