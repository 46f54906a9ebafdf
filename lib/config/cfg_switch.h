/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Private to lib/config: the switch's schema (cfg_switch.c) as the loader
 * (rtr_config.c) uses it, document tree in, struct rtr_config out, and back
 * out as the canonical dump.
 */
#ifndef CFG_SWITCH_H
#define CFG_SWITCH_H

#include "cfg_tree.h"
#include "rtr_config.h"

/* The validator: tree to config, defaults filled in. 0 or -1. On error cfg
 * may hold allocations (routes): rtr_config_free them. */
int cfg_validate(const struct cfg_node *root, struct rtr_config *cfg, const struct cfg_err *e);

/* Canonical YAML of a config, driven by the same schema tables. */
void cfg_dump(const struct rtr_config *cfg, struct cfg_buf *b);

#endif /* CFG_SWITCH_H */
