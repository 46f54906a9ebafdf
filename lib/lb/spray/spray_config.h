/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Spray's config section, `spray:` (doc/spray.md, doc/config.md): its
 * struct, the section descriptor the registry hands to lib/config, and the
 * accessor the mode (and the mempool budget) read it with.
 */
#ifndef SPRAY_CONFIG_H
#define SPRAY_CONFIG_H

#include <stdint.h>

#include "rtr_config.h"

struct rtr_spray_cfg {
	uint32_t flow_table_size;    /* entries of the switch, both roles, split among workers */
	uint32_t window_slots;       /* W: sequence numbers a reorder window spans (power of 2) */
	uint32_t windows_per_worker; /* reorder windows in each worker's pool */
	uint32_t timeout_us;         /* gap timeout; 0: auto (measured skew + margin) */
	uint32_t timeout_min_us;     /* auto: clamp */
	uint32_t timeout_max_us;     /* auto: clamp, and the value before any sample */
	uint32_t timeout_margin_us;  /* auto: added to the skew estimate */
	uint32_t hold_budget;        /* mbufs the windows may hold; 0 = derived */
	uint32_t queue_slack; /* SrcToR: uplink queue excess (packets) that skips a path; 0: off */
	uint32_t busy_us;     /* a NOTIFY keeps its path out of turn this long; 0: no NOTIFYs */
	uint32_t dst_prefix_len;  /* busy marks per destination masked to this (IPv4) */
	uint32_t dst_prefix_len6; /* ... and this (IPv6) */
};

/* Keys, defaults, ranges and the checks across keys (rtr_cfg_schema.h). */
extern const struct rtr_cfg_section rtr_spray_section;

/* The `spray:` section of a loaded config (defaults when absent). */
static inline const struct rtr_spray_cfg *
rtr_spray_config(const struct rtr_config *cfg)
{
	return rtr_config_section(cfg, &rtr_spray_section);
}

#endif /* SPRAY_CONFIG_H */
