/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * LetFlow's config section, `letflow:` (doc/letflow.md, doc/config.md): its
 * struct, the section descriptor the registry hands to lib/config, and the
 * accessor the mode reads it with.
 */
#ifndef LETFLOW_CONFIG_H
#define LETFLOW_CONFIG_H

#include <stdint.h>

#include "rtr_config.h"

struct rtr_letflow_cfg {
	uint32_t flowlet_gap_us;  /* a gap this long or longer starts a flowlet */
	uint32_t flow_table_size; /* entries of the switch, split among workers */
};

/* Keys, defaults and ranges (rtr_cfg_schema.h). */
extern const struct rtr_cfg_section rtr_letflow_section;

/* The `letflow:` section of a loaded config (defaults when absent). */
static inline const struct rtr_letflow_cfg *
rtr_letflow_config(const struct rtr_config *cfg)
{
	return rtr_config_section(cfg, &rtr_letflow_section);
}

#endif /* LETFLOW_CONFIG_H */
