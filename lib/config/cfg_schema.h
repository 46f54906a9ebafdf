/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Private to lib/config: the parts of the schema engine (cfg_schema.c) that
 * the switch's own schema (cfg_switch.c) needs beyond the public field
 * tables of rtr_cfg_schema.h: a validation run's context, the value readers
 * its hand-written fields use, and the walker and dumper they call for the
 * maps inside lists.
 */
#ifndef CFG_SCHEMA_H
#define CFG_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg_tree.h"
#include "rtr_cfg_schema.h"
#include "rtr_config.h"

/* One validation run: where errors go and the config being filled. */
struct rtr_cfg_ctx {
	const struct cfg_err *e;
	struct rtr_config *cfg;
};

/* "expected WHAT, got ..." at v. Returns -1. */
int cfg_expect(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path,
		const char *what);
/* An integer in f's range (min, max and the RTR_CFG_ZERO_OK/POW2 flags). */
int cfg_get_uint(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path,
		const struct rtr_cfg_field *f, uint64_t *out);
/* "addr" (want_len false) or "addr/len", IPv4 or IPv6. */
int cfg_get_addr(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path,
		bool want_len, struct rtr_addr *a);
/* A list of min..max entries. */
int cfg_list_check(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path,
		unsigned int min, unsigned int max);
/* An unsigned integer of size bytes at p. */
uint64_t cfg_load_uint(const void *p, size_t size);

/* The walker: node (NULL when absent) into base by m's table, then m's
 * check. line is where node is, or its parent when absent. */
int cfg_validate_map(struct rtr_cfg_ctx *c, const struct cfg_node *node, int line,
		const struct cfg_path *path, const struct rtr_cfg_map *m, void *base);

/* The dumper: m's fields in block style, one per line at indent (as the
 * entries of a list when list_item). */
void cfg_dump_fields(struct cfg_buf *b, const struct rtr_cfg_map *m, const void *base, int indent,
		bool list_item);
/* {key: value, ...} on one line, nested maps too; skip names a key to leave
 * out (or is NULL). */
void cfg_dump_flow_skip(
		struct cfg_buf *b, const struct rtr_cfg_map *m, const void *base, const char *skip);
void cfg_dump_flow(struct cfg_buf *b, const struct rtr_cfg_map *m, const void *base);
void cfg_dump_addr(struct cfg_buf *b, const struct rtr_addr *a, bool with_len);

#endif /* CFG_SCHEMA_H */
