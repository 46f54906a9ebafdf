/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * SeqBalance's config section, `seqbalance:` (ALGORITHMS.md 3,
 * doc/config.md): its struct, the section descriptor the registry hands to
 * lib/config, and the accessor the mode reads it with.
 */
#ifndef SEQBALANCE_CONFIG_H
#define SEQBALANCE_CONFIG_H

#include <stdint.h>

#include "rtr_config.h"

struct rtr_seqbalance_cfg {
	uint32_t phi_us;
	uint32_t subflow_idle_us;
	uint32_t flow_table_size;
	uint32_t dst_prefix_len;  /* inactive paths are per destination masked to this (IPv4) */
	uint32_t dst_prefix_len6; /* ... and this (IPv6) */
};

/* Keys, defaults and ranges (rtr_cfg_schema.h). */
extern const struct rtr_cfg_section rtr_seqbalance_section;

/* The `seqbalance:` section of a loaded config (defaults when absent). */
static inline const struct rtr_seqbalance_cfg *
rtr_seqbalance_config(const struct rtr_config *cfg)
{
	return rtr_config_section(cfg, &rtr_seqbalance_section);
}

#endif /* SEQBALANCE_CONFIG_H */
