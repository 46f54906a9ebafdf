/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The schema engine's public side: how a part of the switch outside
 * lib/config (an LB mode, lib/lb/<mode>/<mode>_config.c) describes its
 * config section with the same field tables the switch's own sections use,
 * so that its keys get the same types, ranges, defaults, unknown-key
 * detection, messages and canonical dump.
 *
 * A section is a table of fields {key, type, range, default, offset in the
 * section's struct} plus an optional check across its keys that runs once
 * the fields are filled (also when the section is absent: then every field
 * holds its default). Fields are handled in table order.
 */
#ifndef RTR_CFG_SCHEMA_H
#define RTR_CFG_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtr_common.h"

struct rtr_config;
struct cfg_buf;     /* the dump's output (lib/config private) */
struct cfg_node;    /* a map or value of the document (lib/config private) */
struct cfg_path;    /* where a value is, for messages (lib/config private) */
struct rtr_cfg_ctx; /* one validation run (lib/config private) */

enum rtr_cfg_type {
	RTR_CFG_T_UINT, /* unsigned integer of width size */
	RTR_CFG_T_DOUBLE,
	RTR_CFG_T_BOOL,
	RTR_CFG_T_STRING, /* char array of size bytes */
	RTR_CFG_T_ENUM,   /* unsigned integer, the index of one of names[] */
	RTR_CFG_T_MAC,    /* uint8_t[6] */
	RTR_CFG_T_MAP,    /* nested table */
	RTR_CFG_T_FUNC,   /* parse() and dump() do everything */
};

#define RTR_CFG_REQUIRED 0x01
#define RTR_CFG_ZERO_OK  0x02 /* 0 is allowed besides min..max */
#define RTR_CFG_POW2     0x04
#define RTR_CFG_MIN_EXCL 0x08 /* doubles: min itself is not allowed */
#define RTR_CFG_HAS_SET  0x10 /* set_off names a bool set when the key is given */
#define RTR_CFG_SHOW_DEF 0x20 /* dump an unset value as a comment */
#define RTR_CFG_OMIT_DEF 0x40 /* do not dump the default */
#define RTR_CFG_IGNORED  0x80 /* validated, then dropped: stored nowhere, never dumped */

struct rtr_cfg_map;

struct rtr_cfg_field {
	const char *key;
	enum rtr_cfg_type type;
	unsigned int flags;
	size_t off;
	size_t size;
	size_t set_off;
	uint64_t min, max, def;
	double dmin, dmax, ddef;
	const char *sdef;
	const char *const *names;
	const struct rtr_cfg_map *map;
	/* RTR_CFG_T_FUNC: v is NULL when the key is absent; line is the map's. */
	int (*parse)(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line,
			const struct cfg_path *path, void *base);
	void (*dump)(struct cfg_buf *b, const struct rtr_cfg_field *f, const void *base,
			int indent);
	const char *why;  /* appended to range errors */
	const char *note; /* RTR_CFG_SHOW_DEF: what the comment says */
};

struct rtr_cfg_map {
	const struct rtr_cfg_field *fields;
	unsigned int n_fields;
	/* Rules across keys; node may be NULL when the whole map is absent. */
	int (*check)(struct rtr_cfg_ctx *c, const struct cfg_node *node, int line,
			const struct cfg_path *path, void *base);
	/* Absent keys keep what the caller put in base (inherited values)
	 * instead of taking the table default.
	 */
	bool inherit;
};

/*
 * A top-level section owned outside lib/config: its keys (map) and the size
 * of the struct they fill. The loader allocates that struct for every
 * registered section (zeroed, then filled: from the file, or with the
 * defaults when the section is absent) and rtr_config_free frees it. An LB
 * mode's section is named after the mode (rtr_config_set_lb_modes).
 */
struct rtr_cfg_section {
	struct rtr_cfg_map map;
	size_t size;
};

/* clang-format off */
#define RTR_CFG_FLD_(st, m) .off = offsetof(st, m), .size = sizeof(((st *)NULL)->m)

#define RTR_CFG_UINT(k, st, m, lo, hi, d, ...)                                                     \
	{.key = (k), .type = RTR_CFG_T_UINT, RTR_CFG_FLD_(st, m), .min = (lo), .max = (hi),         \
		.def = (d), __VA_ARGS__}
#define RTR_CFG_DOUBLE(k, st, m, lo, hi, d, ...)                                                   \
	{.key = (k), .type = RTR_CFG_T_DOUBLE, RTR_CFG_FLD_(st, m), .dmin = (lo), .dmax = (hi),    \
		.ddef = (d), __VA_ARGS__}
#define RTR_CFG_STRING(k, st, m, d)                                                                \
	{.key = (k), .type = RTR_CFG_T_STRING, RTR_CFG_FLD_(st, m), .sdef = (d)}
#define RTR_CFG_BOOL(k, st, m, d)                                                                  \
	{.key = (k), .type = RTR_CFG_T_BOOL, RTR_CFG_FLD_(st, m), .def = (d)}
#define RTR_CFG_ENUM(k, st, m, nm, d, ...)                                                         \
	{.key = (k), .type = RTR_CFG_T_ENUM, RTR_CFG_FLD_(st, m), .names = (nm), .def = (d),       \
		__VA_ARGS__}
#define RTR_CFG_MAC(k, st, m, set)                                                                 \
	{.key = (k), .type = RTR_CFG_T_MAC, RTR_CFG_FLD_(st, m), .flags = RTR_CFG_HAS_SET,         \
		.set_off = offsetof(st, set)}
#define RTR_CFG_MAP(k, st, m, mp)                                                                  \
	{.key = (k), .type = RTR_CFG_T_MAP, RTR_CFG_FLD_(st, m), .map = (mp)}
#define RTR_CFG_FUNC(k, p, d, ...)                                                                 \
	{.key = (k), .type = RTR_CFG_T_FUNC, .parse = (p), .dump = (d), __VA_ARGS__}
/* A key old configs may still give: its range is checked, its value unused. */
#define RTR_CFG_IGNORED_UINT(k, lo, hi)                                                            \
	{.key = (k), .type = RTR_CFG_T_UINT, .flags = RTR_CFG_IGNORED, .size = sizeof(uint64_t),  \
		.min = (lo), .max = (hi)}

/* A section over struct st from a field array and a check (or NULL). */
#define RTR_CFG_SECTION(st, flds, chk)                                                             \
	{.map = {.fields = (flds), .n_fields = RTR_ARRAY_SIZE(flds), .check = (chk)},              \
		.size = sizeof(st)}
/* clang-format on */

/*
 * For checks across keys. The config being validated: the sections before
 * this one in the file's canonical order are final (switch, ports, routes
 * and qos come before every LB section).
 */
const struct rtr_config *rtr_cfg_config(const struct rtr_cfg_ctx *c);

/*
 * Report "FILE:LINE: PATH.KEY: message" (key NULL: PATH itself) and return
 * -1, the value a check returns on error.
 */
int rtr_cfg_error(struct rtr_cfg_ctx *c, int line, const struct cfg_path *path, const char *key,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * The line where a rule across keys is best reported: that of key's value
 * in node, else of the first of o1, o2 (either may be NULL) given, else
 * line (the map's own, or its parent's when node is NULL).
 */
int rtr_cfg_rule_line(const struct cfg_node *node, int line, const char *key, const char *o1,
		const char *o2);

#endif /* RTR_CFG_SCHEMA_H */
