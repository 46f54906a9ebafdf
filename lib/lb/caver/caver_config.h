/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * CAVER's config section, `caver:` (ALGORITHMS.md 4, doc/config.md): its
 * struct, the section descriptor the registry hands to lib/config, and the
 * accessor the mode reads it with.
 */
#ifndef CAVER_CONFIG_H
#define CAVER_CONFIG_H

#include <stdint.h>

#include "rtr_config.h"

struct rtr_caver_cfg {
	uint32_t dre_period_us;
	double alpha;
	uint32_t q;
	uint32_t aging_us;
	uint32_t flow_idle_us;
	uint32_t flow_table_size;
};

/* Keys, defaults and ranges (rtr_cfg_schema.h). */
extern const struct rtr_cfg_section rtr_caver_section;

/* The `caver:` section of a loaded config (defaults when absent). */
static inline const struct rtr_caver_cfg *
rtr_caver_config(const struct rtr_config *cfg)
{
	return rtr_config_section(cfg, &rtr_caver_section);
}

#endif /* CAVER_CONFIG_H */
