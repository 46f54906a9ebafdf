/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit test of rtr_fault.h (faults.ctrl_loss, doc/faults.md): which packets
 * are control packets of which kind, probabilities 0 and 1 exactly, the
 * loss rate in between, and repeatable draws for one seed.
 */
#include <stdio.h>
#include <string.h>

#include "conweave/rtr_conweave.h"
#include "rtr_fault.h"
#include "rtr_test.h"
#include "test_lb_stats.h"

static struct rtr_meta
meta(uint8_t flags, uint8_t opcode, uint8_t b8)
{
	struct rtr_meta m;

	memset(&m, 0, sizeof(m));
	m.flags = flags;
	m.bth_opcode = opcode;
	m.bth_b8 = b8;
	return m;
}

static void
test_kinds(void)
{
	const uint8_t cw = RTR_MF_ROCE | RTR_MF_LB_HDR;
	struct rtr_meta m;

	m = meta(cw, 4, RTR_CW_B8(RTR_LB_OP_REPLY, 0, 1, 0, 0));
	CHECK_EQ(rtr_fault_kind(&m), RTR_FAULT_RTT_REPLY);
	m = meta(cw, 4, RTR_CW_B8(RTR_LB_OP_REPLY, 1, 1, 0, 0));
	CHECK_EQ(rtr_fault_kind(&m), RTR_FAULT_CLEAR);
	m = meta(cw, 4, RTR_CW_B8(RTR_LB_OP_NOTIFY, 0, 2, 0, 0));
	CHECK_EQ(rtr_fault_kind(&m), RTR_FAULT_NOTIFY);
	m = meta(cw, 4, RTR_CW_B8(RTR_LB_OP_DATA, 0, 1, 1, 1));
	CHECK_EQ(rtr_fault_kind(&m), RTR_FAULT_TAIL);
	/* An RTT_REQUEST (ask without tail) and plain data are not control. */
	m = meta(cw, 4, RTR_CW_B8(RTR_LB_OP_DATA, 0, 1, 1, 0));
	CHECK_EQ(rtr_fault_kind(&m), RTR_FAULT_NONE);
	m = meta(cw, 4, RTR_CW_B8(RTR_LB_OP_DATA, 1, 1, 0, 0));
	CHECK_EQ(rtr_fault_kind(&m), RTR_FAULT_NONE);
	/* Resv7 bits without the ConWeave header (host packet, ECMP mode). */
	m = meta(RTR_MF_ROCE, 4, RTR_CW_B8(RTR_LB_OP_DATA, 0, 1, 1, 1));
	CHECK_EQ(rtr_fault_kind(&m), RTR_FAULT_NONE);
	/* CAVER: a shimmed ACK (Resv7 0x7F, AckReq either way); a plain ACK. */
	m = meta(RTR_MF_ROCE, RTR_BTH_OP_RC_ACK, 0x7f);
	CHECK_EQ(rtr_fault_kind(&m), RTR_FAULT_ADVERT);
	m = meta(RTR_MF_ROCE, RTR_BTH_OP_RC_ACK, 0xff);
	CHECK_EQ(rtr_fault_kind(&m), RTR_FAULT_ADVERT);
	m = meta(RTR_MF_ROCE, RTR_BTH_OP_RC_ACK, 0x80);
	CHECK_EQ(rtr_fault_kind(&m), RTR_FAULT_NONE);
	m = meta(0, 0, 0x7f);
	CHECK_EQ(rtr_fault_kind(&m), RTR_FAULT_NONE);
}

static void
test_rates(void)
{
	struct rtr_faults_cfg fc;
	struct rtr_fault f, g;
	struct rtr_meta reply = meta(
			RTR_MF_ROCE | RTR_MF_LB_HDR, 4, RTR_CW_B8(RTR_LB_OP_REPLY, 0, 1, 0, 0));
	struct rtr_meta clear = meta(
			RTR_MF_ROCE | RTR_MF_LB_HDR, 4, RTR_CW_B8(RTR_LB_OP_REPLY, 1, 1, 0, 0));
	struct rtr_meta notify = meta(
			RTR_MF_ROCE | RTR_MF_LB_HDR, 4, RTR_CW_B8(RTR_LB_OP_NOTIFY, 0, 1, 0, 0));
	unsigned int lost = 0, same = 0, wrong = 0, n = 100000, i;

	memset(&fc, 0, sizeof(fc));
	CHECK(!rtr_fault_enabled(&fc));
	fc.seed = 1;
	fc.ctrl_loss.rtt_reply = 0.1;
	fc.ctrl_loss.clear = 1;
	CHECK(rtr_fault_enabled(&fc));
	rtr_fault_init(&f, &fc, 0);
	rtr_fault_init(&g, &fc, 0);
	for (i = 0; i < n; i++) {
		enum rtr_drop_reason a = rtr_fault_rx(&f, &reply);

		lost += a == RTR_DROP_FAULT_RTT_REPLY;
		same += a == rtr_fault_rx(&g, &reply);
		wrong += rtr_fault_rx(&f, &clear) != RTR_DROP_FAULT_CLEAR;
		wrong += rtr_fault_rx(&f, &notify) != RTR_DROP_NONE;
	}
	CHECK_EQ(wrong, 0); /* probability 1 always loses, 0 never */
	/* 10% of 100000: 10000 +- 95 (one sigma); 5 sigma allowed. */
	CHECK(lost > 9525 && lost < 10475, "lost %u of %u at 0.1", lost, n);
	CHECK_EQ(same, n);
	/* Another worker draws other numbers from the same seed. */
	rtr_fault_init(&g, &fc, 1);
	same = 0;
	for (i = 0; i < 1000; i++)
		same += (rtr_fault_rx(&f, &reply) != RTR_DROP_NONE) ==
			(rtr_fault_rx(&g, &reply) != RTR_DROP_NONE);
	CHECK(same < 1000, "workers 0 and 1 lose the same packets");
	CHECK(rtr_fault_q64(0) == 0 && rtr_fault_q64(1) == UINT64_MAX &&
			rtr_fault_q64(0.5) == 1ull << 63);
}

int
main(void)
{
	test_kinds();
	test_rates();
	return rtr_test_done("fault");
}
