/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Private to lib/config: the generic document tree both readers produce and
 * the schema engine consumes, the key path used in messages, and the error
 * writer. Keeping the readers down to "syntax -> tree" means the schema, its
 * ranges and every message about values live in exactly one place.
 *
 * The files of lib/config in layers, each calling only those below it:
 *   rtr_config.c   the API: load (a reader, then the schema), free, dump
 *   cfg_switch.c   the switch's schema and the root with the LB sections
 *   cfg_schema.c   the schema engine: field tables -> structs, and dump
 *   cfg_yaml.c, cfg_libconfig.c   the readers: syntax -> tree
 *   cfg_tree.c     this: the tree, key paths, errors, output buffer
 */
#ifndef CFG_TREE_H
#define CFG_TREE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Deeper documents are rejected so that recursion stays bounded. */
#define CFG_MAX_DEPTH 32
/* Keys per map; the schema needs ~20, the cap keeps duplicate checks cheap. */
#define CFG_MAX_KEYS 1024
/* Largest file read; a full 4096-route, 64-path config is ~15 MB. */
#define CFG_MAX_FILE (64u << 20)

enum cfg_type {
	CFG_MAP,
	CFG_LIST,
	CFG_SCALAR,
};

/* What the reader knew about a scalar; PLAIN is typed by the validator. */
enum cfg_kind {
	CFG_STRING, /* quoted YAML, or a libconfig string */
	CFG_INT,    /* libconfig integer, text is decimal */
	CFG_FLOAT,  /* libconfig float, text round-trips exactly */
	CFG_BOOL,   /* libconfig boolean, text is "true"/"false" */
	CFG_PLAIN,  /* unquoted YAML */
};

struct cfg_node {
	enum cfg_type type;
	enum cfg_kind kind; /* scalars only */
	int line;           /* 1-based, where the node starts */
	char *key;          /* set when the node is a map entry */
	int key_line;
	char *text;             /* scalars only, NUL-terminated */
	struct cfg_node *child; /* maps and lists, in document order */
	struct cfg_node *last;
	struct cfg_node *next;
	unsigned int n_child;
};

/* Key path of a node, as a chain of stack frames, rendered only on error. */
struct cfg_path {
	const struct cfg_path *up;
	const char *key; /* NULL: list element number index */
	unsigned int index;
};

/* Where the one-line error goes. */
struct cfg_err {
	const char *file;
	char *buf;
	size_t len;
};

/* Bounded appender with snprintf semantics: pos counts what did not fit too. */
struct cfg_buf {
	char *buf;
	size_t len;
	size_t pos;
};

void cfg_buf_printf(struct cfg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cfg_buf_vprintf(struct cfg_buf *b, const char *fmt, va_list ap)
		__attribute__((format(printf, 2, 0)));

struct cfg_node *cfg_node_new(enum cfg_type type, int line);
struct cfg_node *cfg_scalar_new(enum cfg_kind kind, const char *text, size_t len, int line);
void cfg_node_append(struct cfg_node *parent, struct cfg_node *child);
/* Gives child the key; returns -1 when out of memory. */
int cfg_node_set_key(struct cfg_node *child, const char *key, size_t len, int line);
void cfg_node_free(struct cfg_node *n);
struct cfg_node *cfg_map_get(const struct cfg_node *map, const char *key);

/* What a PLAIN scalar looks like, for typing and for messages. */
enum cfg_plain {
	CFG_PLAIN_NULL,
	CFG_PLAIN_BOOL,
	CFG_PLAIN_INT,
	CFG_PLAIN_FLOAT,
	CFG_PLAIN_STRING,
};
enum cfg_plain cfg_plain_class(const char *text);
/* "a map", "an integer", "a string", "null", ... */
const char *cfg_node_describe(const struct cfg_node *n);

/* Writes "FILE:LINE: PATH: message" (LINE left out when <= 0). Returns -1. */
int cfg_error(const struct cfg_err *e, int line, const struct cfg_path *p, const char *fmt, ...)
		__attribute__((format(printf, 4, 5)));

/* Readers: buf is NUL-terminated and holds no other NUL. NULL on error. */
struct cfg_node *cfg_yaml_read(const char *buf, size_t len, const struct cfg_err *e);
struct cfg_node *cfg_libconfig_read(const char *buf, size_t len, const struct cfg_err *e);

#endif /* CFG_TREE_H */
