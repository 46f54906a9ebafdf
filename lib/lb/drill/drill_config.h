/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * DRILL's config section, `drill:` (doc/drill.md, doc/config.md): its
 * struct, the section descriptor the registry hands to lib/config, and the
 * accessor the mode reads it with.
 */
#ifndef DRILL_CONFIG_H
#define DRILL_CONFIG_H

#include <stdint.h>

#include "rtr_config.h"

/* The largest d and m the section accepts (the per-packet work is d + m
 * queue reads). */
#define RTR_DRILL_SAMPLES_MAX 16
#define RTR_DRILL_MEMORY_MAX  4

struct rtr_drill_cfg {
	uint32_t samples; /* d: uplinks drawn at random per packet */
	uint32_t memory;  /* m: best uplinks of the last decision reconsidered */
};

/* Keys, defaults and ranges (rtr_cfg_schema.h). */
extern const struct rtr_cfg_section rtr_drill_section;

/* The `drill:` section of a loaded config (defaults when absent). */
static inline const struct rtr_drill_cfg *
rtr_drill_config(const struct rtr_config *cfg)
{
	return rtr_config_section(cfg, &rtr_drill_section);
}

#endif /* DRILL_CONFIG_H */
