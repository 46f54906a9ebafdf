/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The shared LB layout (ALGORITHMS.md 2.1, doc/wire-formats.md): the
 * fields ConWeave defined for its Tofino P4, which spray and SeqBalance
 * reuse, and which a new mode with a 4-byte header may reuse too.
 *
 *   BTH byte 4   path_id (8 bits, ICRC-masked)
 *   BTH byte 8   AckReq(1) | op(2) | 5 bits the mode's own
 *   after BTH    a 4-byte header while op != 0
 *
 * op 1 (DATA): a SrcToR inserted the header into a data packet, and the
 * IP/UDP lengths leave it out; op 2 and 3 (REPLY, NOTIFY): a control packet
 * a DstToR built, cut after the header, the lengths counting it.
 *
 * The parser knows nothing of this: a mode's descriptor hands it the layout
 * as data, its parse flags (rtr_lb_ops.fabric_parse_flags, composed here
 * from RTR_PARSE_* of rtr_parse.h), and the parser sets RTR_MF_LB_HDR and
 * RTR_MF_LB_CTRL, which the egress (control class, what a trim keeps) and
 * the LB hooks read. Only lib/lb names these constants.
 */
#ifndef RTR_LB_WIRE_H
#define RTR_LB_WIRE_H

#include <stdint.h>

#include "rtr_parse.h"

/* The header after the BTH, and where op sits in BTH byte 8 (bits 6..5). */
#define RTR_LB_HDR_LEN  4
#define RTR_LB_OP_SHIFT 5

/* op values (ConWeave's cw_op names them: ALGORITHMS.md 2.1). */
#define RTR_LB_OP_NONE   0
#define RTR_LB_OP_DATA   1
#define RTR_LB_OP_REPLY  2 /* ConWeave: phase 0 RTT_REPLY, phase 1 CLEAR */
#define RTR_LB_OP_NOTIFY 3 /* ConWeave NOTIFY, SeqBalance Congestion Packet */

static inline unsigned int
rtr_lb_op(uint8_t bth_b8)
{
	return (bth_b8 >> RTR_LB_OP_SHIFT) & 3;
}

/* The layout part of every parse flags word below. */
#define RTR_LB_PARSE_LAYOUT RTR_PARSE_LAYOUT(RTR_LB_HDR_LEN, RTR_LB_OP_SHIFT)
#define RTR_LB_DATA_OPS     (1u << RTR_LB_OP_DATA)
#define RTR_LB_CTRL_OPS     (1u << RTR_LB_OP_REPLY | 1u << RTR_LB_OP_NOTIFY)

/*
 * Parse flags of a port (fabric ports only: hosts never send the header).
 *
 * RTR_LB_PARSE_HDR: a mode that owns the layout (ConWeave, spray, a new
 * mode of the same shape), and the control packets a switch built: DATA
 * headers by their length signature (or a trimmed header), control packets
 * whenever cut after the header (a shorter or trimmed one is malformed).
 *
 * RTR_LB_PARSE_CTRL: control packets only, at their exact length
 * (SeqBalance's Congestion Packets; the other modes' consuming ConWeave's),
 * every other RoCE packet plain whatever its Resv7 bits.
 *
 * RTR_LB_PARSE_DATA: DATA headers as RTR_LB_PARSE_HDR reads them, nothing
 * else: what a ToR that does not run the owning mode needs to remove the
 * header before a host.
 *
 * RTR_LB_PARSE_FOREIGN: fabric ports of the modes without a header of
 * their own (doc/wire-formats.md "LB fields toward a host").
 */
#define RTR_LB_PARSE_HDR                                             \
	(RTR_LB_PARSE_LAYOUT | RTR_PARSE_DATA_OPS(RTR_LB_DATA_OPS) | \
			RTR_PARSE_CTRL_OPS(RTR_LB_CTRL_OPS))
#define RTR_LB_PARSE_CTRL    (RTR_LB_PARSE_LAYOUT | RTR_PARSE_CTRL_EXACT_OPS(RTR_LB_CTRL_OPS))
#define RTR_LB_PARSE_DATA    (RTR_LB_PARSE_LAYOUT | RTR_PARSE_DATA_OPS(RTR_LB_DATA_OPS))
#define RTR_LB_PARSE_FOREIGN (RTR_LB_PARSE_CTRL | RTR_LB_PARSE_DATA)

#endif /* RTR_LB_WIRE_H */
