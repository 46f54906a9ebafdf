/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* The `conga:` section as the schema engine reads it (no EAL needed). The
 * defaults are the ConWeave artifact's CONGA settings (doc/conga.md). */
#include "rtr_cfg_schema.h"
#include "conga/conga_config.h"

static const struct rtr_cfg_field conga_fields[] = {
		/* network-load-balance.cc:61 (and the ConWeave paper, 4.1). */
		RTR_CFG_UINT("flowlet_gap_us", struct rtr_conga_cfg, flowlet_gap_us, 1, 1000000,
				100),
		/* network-load-balance.cc:62. */
		RTR_CFG_UINT("dre_period_us", struct rtr_conga_cfg, dre_period_us, 1, 100000, 50),
		/* network-load-balance.cc:65. */
		RTR_CFG_DOUBLE("dre_alpha", struct rtr_conga_cfg, dre_alpha, 0, 1, 0.2,
				.flags = RTR_CFG_MIN_EXCL),
		/* network-load-balance.cc:64; the header's nibbles hold at most 4. */
		RTR_CFG_UINT("quantize_bits", struct rtr_conga_cfg, quantize_bits, 1, 4, 3),
		/* network-load-balance.cc:63. */
		RTR_CFG_UINT("aging_us", struct rtr_conga_cfg, aging_us, 1, 1000000, 500),
		RTR_CFG_UINT("flow_table_size", struct rtr_conga_cfg, flow_table_size, 1024,
				16777216, 65536),
		RTR_CFG_UINT("leaf_slots", struct rtr_conga_cfg, leaf_slots, 1, 65536, 1024,
				.flags = RTR_CFG_POW2),
		/* As conweave.dst_prefix_len: what names a ToR's hosts. */
		RTR_CFG_UINT("dst_prefix_len", struct rtr_conga_cfg, dst_prefix_len, 0, 32, 24),
		RTR_CFG_UINT("dst_prefix_len6", struct rtr_conga_cfg, dst_prefix_len6, 0, 128, 64),
		/* 0: every live path (the CONGA paper); the ConWeave artifact's
		 * GetBestPath(dst, 4) weighs 4 consecutive ones (conga-routing.cc). */
		RTR_CFG_UINT("path_samples", struct rtr_conga_cfg, path_samples, 0, 64, 0),
};

_Static_assert(sizeof(struct rtr_conga_cfg) <= RTR_LB_CFG_SIZE, "section too large");

const struct rtr_cfg_section rtr_conga_section =
		RTR_CFG_SECTION(struct rtr_conga_cfg, conga_fields, NULL);
