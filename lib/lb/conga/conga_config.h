/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * CONGA's config section, `conga:` (doc/conga.md, doc/config.md): its
 * struct, the section descriptor the registry hands to lib/config, and the
 * accessor the mode reads it with.
 */
#ifndef CONGA_CONFIG_H
#define CONGA_CONFIG_H

#include <stdint.h>

#include "rtr_config.h"

struct rtr_conga_cfg {
	uint32_t flowlet_gap_us;  /* a gap this long or longer starts a flowlet */
	uint32_t dre_period_us;   /* Tdre: the DRE decays every period */
	double dre_alpha;         /* decay per period, (0, 1] */
	uint32_t quantize_bits;   /* Q: bits of the CE and feedback metric */
	uint32_t aging_us;        /* a congestion-to-leaf entry older reads 0 */
	uint32_t flow_table_size; /* flowlet entries of the switch, split among workers */
	uint32_t leaf_slots;      /* leaves (masked addresses) each table row set holds */
	uint32_t dst_prefix_len;  /* a leaf: its hosts' IPv4 addresses masked to this */
	uint32_t dst_prefix_len6; /* ... and IPv6 */
	uint32_t path_samples;    /* paths a new flowlet weighs (0: all) */
};

/* Keys, defaults and ranges (rtr_cfg_schema.h). */
extern const struct rtr_cfg_section rtr_conga_section;

/* The `conga:` section of a loaded config (defaults when absent). */
static inline const struct rtr_conga_cfg *
rtr_conga_config(const struct rtr_config *cfg)
{
	return rtr_config_section(cfg, &rtr_conga_section);
}

#endif /* CONGA_CONFIG_H */
