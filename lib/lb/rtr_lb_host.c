/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The host-port rules of every mode (rtr_lb_host.h): each registered
 * mode's host_check and host_strip. Only the rare path comes here (a RoCE
 * frame with Resv7 or byte 4 set), so walking the registry costs the
 * common path nothing.
 */

#include <rte_mbuf.h>

#include "rtr_lb.h"
#include "rtr_lb_registry.h"
#include "rtr_lb_host.h"

/* Whether a mode before id already has host_check fn (ConWeave and
 * SeqBalance share the LB control-packet check): run each check once. */
static bool
host_check_seen(unsigned int id,
		enum rtr_drop_reason (*fn)(const uint8_t *, uint32_t, const struct rtr_meta *))
{
	for (unsigned int i = 0; i < id; i++)
		if (rtr_lb_mode_at(i)->host_check == fn)
			return true;
	return false;
}

enum rtr_drop_reason
rtr_lb_host_check(const uint8_t *frame, uint32_t len, const struct rtr_meta *meta)
{
	unsigned int n = rtr_lb_mode_count();

	if (likely(!(meta->flags & RTR_MF_ROCE) || (meta->bth_b8 & RTR_BTH_RESV7_MASK) == 0))
		return RTR_DROP_NONE;
	for (unsigned int i = 0; i < n; i++) {
		const struct rtr_lb_desc *d = rtr_lb_mode_at(i);

		if (d->host_check == NULL || host_check_seen(i, d->host_check))
			continue;
		if (d->host_check(frame, len, meta) != RTR_DROP_NONE)
			return RTR_DROP_HOST_LB_PACKET;
	}
	return RTR_DROP_NONE;
}

void
rtr_lb_host_egress(struct rte_mbuf *m, struct rtr_meta *meta, uint64_t *c)
{
	unsigned int n = rtr_lb_mode_count();
	uint8_t b4;

	if (!(meta->flags & RTR_MF_ROCE))
		return;
	/* The modes' fields cannot overlap (a ConWeave DATA header has cw_op
	 * 1 in Resv7, a CAVER shim Resv7 0x7F, whose cw_op is 3), so the
	 * registry's order gives the same bytes as any other. */
	for (unsigned int i = 0; i < n; i++) {
		const struct rtr_lb_desc *d = rtr_lb_mode_at(i);

		if (d->host_strip != NULL && d->host_strip(m, meta, c))
			return;
	}
	b4 = meta->bth_opcode == RTR_BTH_OP_CNP ? meta->bth_b4 & RTR_BTH_B4_BECN : 0;
	if (meta->bth_b4 != b4) {
		rte_pktmbuf_mtod(m, uint8_t *)[rtr_meta_bth_off(meta) + 4] = b4;
		meta->bth_b4 = b4;
	}
}
