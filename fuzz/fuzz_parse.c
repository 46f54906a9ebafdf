/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Fuzz target "parse": rtr_parse on any frame, then what the data path runs
 * on what it accepts (rtr_meta_dqp, rtr_flow_hash_reverse, rtr_roce_icrc_ok,
 * rtr_bth_ext_len, every registered mode's host_check, alone and through
 * rtr_lb_host_check, and host_strip through rtr_lb_host_egress, and
 * rtr_lb_ctrl_build). It names no mode: the modes' readers come through
 * the registry. Input: byte 0 = parser flags (bits 0..1) and the hash
 * seed's low byte (bits 2..7), the rest is the frame, which libFuzzer keeps
 * in a buffer of exactly that size (ASan sees one byte too far).
 *
 * Checked besides memory safety: the result is one of the parser's reasons;
 * a drop leaves flow_hash 0; every offset the metadata gives lies inside the
 * frame; flags agree with each other; the reverse hash of a frame is the
 * hash of the same frame with its addresses swapped; and the control packet
 * rtr_lb_ctrl_build makes of a RoCE frame parses as one (ConWeave layout)
 * and leads back to the frame's flow (its reverse hash is the frame's hash:
 * how a SrcToR finds the flow of a REPLY / NOTIFY).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "fuzz.h"
#include "rtr_lb_ctrl.h"
#include "rtr_lb_host.h"
#include "rtr_lb_registry.h"
#include "rtr_parse.h"
#include "rtr_stats.h"
#include "rtr_test_mbuf.h"

static void
check_meta(const uint8_t *frame, uint32_t len, unsigned int flags, const struct rtr_meta *m)
{
	uint8_t ext;
	int el;

	FZ_CHECK(m->l3_off <= len, "l3_off %u len %u", m->l3_off, len);
	if (m->l3 == RTR_L3_ARP) {
		FZ_CHECK(m->l4_off <= len && m->flow_hash == 0);
		return;
	}
	FZ_CHECK(m->l3 == RTR_L3_IPV4 || m->l3 == RTR_L3_IPV6, "l3 %u", m->l3);
	FZ_CHECK(m->l4_off >= m->l3_off + 20 && m->l4_off <= len, "l4_off %u len %u", m->l4_off,
			len);
	if (m->flags & RTR_MF_L4)
		FZ_CHECK(m->l4_off + 4u <= len);
	if (!(m->flags & RTR_MF_ROCE)) {
		FZ_CHECK(!(m->flags & (RTR_MF_LB_HDR | RTR_MF_TRIMMED)), "flags 0x%x", m->flags);
		return;
	}
	FZ_CHECK((m->flags & RTR_MF_L4) && m->l4_proto == 17 && m->dport == 4791);
	FZ_CHECK(rtr_meta_bth_off(m) + RTR_BTH_LEN <= len);
	if (m->flags & RTR_MF_LB_HDR) {
		FZ_CHECK(flags != 0, "ConWeave header without a CW parse flag");
		FZ_CHECK(rtr_meta_bth_off(m) + RTR_BTH_LEN + RTR_LB_HDR_LEN <= len);
	}
	/* What the BTH fields say must be what the frame holds. */
	FZ_CHECK(frame[rtr_meta_bth_off(m)] == m->bth_opcode);
	FZ_CHECK(frame[rtr_meta_bth_off(m) + 4] == m->bth_b4);
	FZ_CHECK(frame[rtr_meta_bth_off(m) + 8] == m->bth_b8);
	(void)rtr_meta_dqp(frame, m);
	(void)rtr_meta_pcp(frame, m);
	(void)rtr_meta_is_roce_data(m);
	(void)rtr_meta_lb_control(m);
	el = rtr_bth_ext_len(m->bth_opcode, &ext);
	FZ_CHECK(el >= -1 && el <= 64);
	/* The extended headers counted are the opcode's (none for control
	 * packets and trimmed headers). */
	FZ_CHECK(m->ext == 0 || m->ext == ext, "ext 0x%x, opcode says 0x%x", m->ext, ext);
	(void)rtr_roce_icrc_ok(frame, len, m);
}

/* The same frame with source and destination addresses swapped parses the
 * same way, and its hash is what rtr_flow_hash_reverse predicted. */
static void
check_reverse(const uint8_t *frame, uint32_t len, uint32_t seed, unsigned int flags,
		const struct rtr_meta *m)
{
	unsigned int a = m->l3 == RTR_L3_IPV4 ? 12 : 8, w = m->l3 == RTR_L3_IPV4 ? 4 : 16;
	uint32_t rev = rtr_flow_hash_reverse(frame, m, seed);
	struct rtr_meta m2;
	uint8_t tmp[16], *copy;

	copy = malloc(len);
	if (copy == NULL)
		abort();
	memcpy(copy, frame, len);
	memcpy(tmp, copy + m->l3_off + a, w);
	memmove(copy + m->l3_off + a, copy + m->l3_off + a + w, w);
	memcpy(copy + m->l3_off + a + w, tmp, w);
	/* The ICRC covers the addresses: a control-length packet that had a
	 * valid one may parse differently once swapped; compare only when the
	 * swap changed nothing else. */
	if (rtr_parse(copy, len, seed, flags, &m2) == RTR_DROP_NONE && m2.flags == m->flags &&
			m2.l4_off == m->l4_off)
		FZ_CHECK(m2.flow_hash == rev, "reverse hash 0x%08x, swapped frame hashes 0x%08x",
				rev, m2.flow_hash);
	free(copy);
}

/* The LB stages' readers of a parsed frame. */
static void
check_lb(const uint8_t *frame, uint32_t len, uint32_t seed, const struct rtr_meta *m)
{
	static const uint8_t hdr[RTR_LB_HDR_LEN] = {0x12, 0x34, 0x56, 0x78};
	enum rtr_drop_reason why;
	struct rte_mbuf *c;
	struct rtr_meta cm;

	/* Every mode's host check, each on every frame (rtr_lb_host_check
	 * stops at the first that claims it). */
	for (unsigned int i = 0; i < rtr_lb_mode_count(); i++) {
		const struct rtr_lb_desc *d = rtr_lb_mode_at(i);

		if (d->host_check == NULL)
			continue;
		why = d->host_check(frame, len, m);
		FZ_CHECK(why == RTR_DROP_NONE || why == RTR_DROP_HOST_LB_PACKET);
	}
	why = rtr_lb_host_check(frame, len, m);
	FZ_CHECK(why == RTR_DROP_NONE || why == RTR_DROP_HOST_LB_PACKET);
	if (!(m->flags & RTR_MF_ROCE))
		return;
	/* Toward a host (every mode): what is left is the RoCE frame without
	 * LB fields, and it parses again as such. */
	if (len <= (uint32_t)(RTR_TEST_MBUF_BUFSZ - RTR_TEST_MBUF_HEADROOM) &&
			!rtr_meta_lb_control(m)) {
		struct rtr_meta hm = *m;
		uint64_t cnt[RTR_LBC_MAX] = {0};
		unsigned int bth;

		c = fake_mbuf();
		memcpy(mdata(c), frame, len);
		c->data_len = (uint16_t)len;
		c->pkt_len = len;
		rtr_lb_host_egress(c, &hm, cnt);
		bth = rtr_meta_bth_off(&hm);
		FZ_CHECK(c->data_len == c->pkt_len && c->data_len + 16u >= len &&
				c->data_len <= len);
		FZ_CHECK(mdata(c)[bth + 4] == hm.bth_b4 && mdata(c)[bth + 8] == hm.bth_b8);
		FZ_CHECK(hm.bth_b4 == 0 || (hm.bth_opcode == RTR_BTH_OP_CNP &&
							   hm.bth_b4 == RTR_BTH_B4_BECN),
				"byte 4 0x%02x left", hm.bth_b4);
		FZ_CHECK(!(hm.flags & RTR_MF_LB_HDR));
		FZ_CHECK(rtr_parse(mdata(c), c->data_len, seed, 0, &cm) == RTR_DROP_NONE);
		fake_free(c);
	}
	/* A RTT_REPLY answering this frame, as a ConWeave DstToR builds it. */
	c = fake_mbuf();
	FZ_CHECK(rtr_lb_ctrl_build(c, frame, m, m->bth_b4,
				 (uint8_t)(RTR_LB_OP_REPLY << RTR_LB_OP_SHIFT | (m->bth_b8 & 0x0c)),
				 hdr) == c);
	FZ_CHECK(c->data_len == rtr_lb_ctrl_len(m));
	why = rtr_parse(mdata(c), c->data_len, seed, RTR_LB_PARSE_HDR, &cm);
	FZ_CHECK(why == RTR_DROP_NONE, "control packet does not parse (%d)", why);
	FZ_CHECK(rtr_meta_lb_control(&cm), "control packet not read as one (flags 0x%x)", cm.flags);
	FZ_CHECK(rtr_flow_hash_reverse(mdata(c), &cm, seed) == m->flow_hash,
			"control packet leads to flow 0x%08x, not 0x%08x",
			rtr_flow_hash_reverse(mdata(c), &cm, seed), m->flow_hash);
	fake_free(c);
	FZ_CHECK(live_mbufs == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int pflags[4] = {0, RTR_LB_PARSE_HDR, RTR_LB_PARSE_FOREIGN,
			RTR_LB_PARSE_HDR | RTR_LB_PARSE_CTRL};
	const uint8_t *frame;
	struct rtr_meta m;
	enum rtr_drop_reason why;
	unsigned int flags;
	uint32_t seed, len;

	if (size < 1 || size > 65536)
		return 0;
	flags = pflags[data[0] & 3];
	seed = 0x9e3779b9u ^ (uint32_t)(data[0] >> 2);
	frame = data + 1;
	len = (uint32_t)size - 1;

	why = rtr_parse(frame, len, seed, flags, &m);
	FZ_CHECK(why == RTR_DROP_NONE || why == RTR_DROP_MALFORMED || why == RTR_DROP_NOT_IP,
			"reason %d", why);
	{
		/* The data path's inline parser gives the same answer. */
		struct rtr_meta fm;

		memset(&fm, 0x5a, sizeof(fm));
		FZ_CHECK(rtr_parse_fast(frame, len, seed, flags, &fm) == why &&
						memcmp(&fm, &m, sizeof(fm)) == 0,
				"rtr_parse_fast differs (len %u)", len);
	}
	if (why != RTR_DROP_NONE) {
		FZ_CHECK(m.flow_hash == 0, "dropped with flow_hash 0x%08x", m.flow_hash);
		return 0;
	}
	check_meta(frame, len, flags, &m);
	if (m.l3 == RTR_L3_IPV4 || m.l3 == RTR_L3_IPV6)
		check_reverse(frame, len, seed, flags, &m);
	check_lb(frame, len, seed, &m);
	return 0;
}
