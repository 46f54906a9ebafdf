/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * ConWeave's config section, `conweave:` (ALGORITHMS.md 2.4, doc/config.md):
 * its struct, the section descriptor the registry hands to lib/config, and
 * the accessor the mode (and the mempool budget) read it with.
 */
#ifndef CONWEAVE_CONFIG_H
#define CONWEAVE_CONFIG_H

#include <stdint.h>

#include "rtr_config.h"

struct rtr_conweave_cfg {
	uint32_t base_rtt_us;
	uint32_t theta_reply_us;
	uint32_t theta_path_busy_us;
	uint32_t theta_inactive_us;
	uint32_t resume_extra_us;
	uint32_t resume_default_us;
	uint32_t reorder_queues_per_port;
	uint32_t reorder_queue_depth;
	uint32_t flow_table_size;
	uint32_t dst_prefix_len;   /* busy paths are per destination masked to this (IPv4) */
	uint32_t dst_prefix_len6;  /* ... and this (IPv6) */
	uint32_t clear_timeout_us; /* 0: derived (rtr_cw_bound_clear_ns) */
	uint32_t hold_budget;      /* mbufs the reorder rings may hold; 0 = derived */
};

/* Keys, defaults, ranges and the checks across keys (rtr_cfg_schema.h). */
extern const struct rtr_cfg_section rtr_conweave_section;

/* The `conweave:` section of a loaded config (defaults when absent). */
static inline const struct rtr_conweave_cfg *
rtr_conweave_config(const struct rtr_config *cfg)
{
	return rtr_config_section(cfg, &rtr_conweave_section);
}

#endif /* CONWEAVE_CONFIG_H */
