/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * YAML reader: libyaml events -> cfg tree. Only the subset a config needs is
 * accepted: one document, no anchors/aliases (they would let one key hide
 * behind another's line), no tags, no duplicate keys.
 */
#include <string.h>

#include <yaml.h>

#include "cfg_tree.h"

struct yreader {
	yaml_parser_t parser;
	const struct cfg_err *e;
	const char *buf;
	size_t len;
};

static int
mark_line(const yaml_mark_t *m)
{
	/* libyaml counts lines from 0. */
	return (int)m->line + 1;
}

static int
syntax_error(struct yreader *r)
{
	static const struct cfg_path syntax = {NULL, "syntax", 0};
	const yaml_parser_t *p = &r->parser;
	const char *problem = p->problem != NULL ? p->problem : "unknown error";
	int line;
	size_t i;

	if (p->error == YAML_MEMORY_ERROR)
		return cfg_error(r->e, 0, &syntax, "out of memory");
	if (p->error == YAML_READER_ERROR) {
		/* The reader reports a byte offset, not a mark. */
		line = 1;
		for (i = 0; i < p->problem_offset && i < r->len; i++)
			if (r->buf[i] == '\n')
				line++;
	} else {
		line = mark_line(&p->problem_mark);
	}
	if (p->context != NULL)
		return cfg_error(r->e, line, &syntax, "%s %s", problem, p->context);
	return cfg_error(r->e, line, &syntax, "%s", problem);
}

static int
next_event(struct yreader *r, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&r->parser, ev))
		return syntax_error(r);
	return 0;
}

static int
check_plain_node(struct yreader *r, const yaml_event_t *ev, const unsigned char *anchor,
		const unsigned char *tag, const struct cfg_path *path)
{
	int line = mark_line(&ev->start_mark);

	if (anchor != NULL)
		return cfg_error(r->e, line, path, "anchors and aliases are not supported");
	if (tag != NULL)
		return cfg_error(r->e, line, path, "tags are not supported");
	return 0;
}

static struct cfg_node *read_node(
		struct yreader *r, yaml_event_t *ev, const struct cfg_path *path, int depth);

static struct cfg_node *
read_scalar(struct yreader *r, yaml_event_t *ev, const struct cfg_path *path)
{
	const char *text = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	int line = mark_line(&ev->start_mark);
	struct cfg_node *n;

	if (check_plain_node(r, ev, ev->data.scalar.anchor, ev->data.scalar.tag, path) < 0)
		return NULL;
	if (memchr(text, '\0', len) != NULL) {
		cfg_error(r->e, line, path, "NUL character in a value");
		return NULL;
	}
	n = cfg_scalar_new(
			ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? CFG_PLAIN : CFG_STRING,
			text, len, line);
	if (n == NULL)
		cfg_error(r->e, line, path, "out of memory");
	return n;
}

static struct cfg_node *
read_list(struct yreader *r, yaml_event_t *ev, const struct cfg_path *path, int depth)
{
	struct cfg_path elem = {path, NULL, 0};
	struct cfg_node *n, *c;
	yaml_event_t cev;

	n = cfg_node_new(CFG_LIST, mark_line(&ev->start_mark));
	if (n == NULL) {
		cfg_error(r->e, mark_line(&ev->start_mark), path, "out of memory");
		return NULL;
	}
	for (;;) {
		if (next_event(r, &cev) < 0)
			goto fail;
		if (cev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&cev);
			return n;
		}
		elem.index = n->n_child;
		c = read_node(r, &cev, &elem, depth + 1);
		if (c == NULL)
			goto fail;
		cfg_node_append(n, c);
	}
fail:
	cfg_node_free(n);
	return NULL;
}

static struct cfg_node *
read_map(struct yreader *r, yaml_event_t *ev, const struct cfg_path *path, int depth)
{
	struct cfg_path kpath = {path, NULL, 0};
	struct cfg_node *n, *c = NULL;
	yaml_event_t kev, vev;
	const char *key;
	size_t klen;
	int kline;

	n = cfg_node_new(CFG_MAP, mark_line(&ev->start_mark));
	if (n == NULL) {
		cfg_error(r->e, mark_line(&ev->start_mark), path, "out of memory");
		return NULL;
	}
	for (;;) {
		if (next_event(r, &kev) < 0)
			goto fail;
		if (kev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&kev);
			return n;
		}
		kline = mark_line(&kev.start_mark);
		if (kev.type == YAML_ALIAS_EVENT) {
			cfg_error(r->e, kline, path, "anchors and aliases are not supported");
			goto fail_key;
		}
		if (kev.type != YAML_SCALAR_EVENT) {
			cfg_error(r->e, kline, path, "keys must be plain words");
			goto fail_key;
		}
		if (check_plain_node(r, &kev, kev.data.scalar.anchor, kev.data.scalar.tag, path) <
				0)
			goto fail_key;
		key = (const char *)kev.data.scalar.value;
		klen = kev.data.scalar.length;
		if (memchr(key, '\0', klen) != NULL) {
			cfg_error(r->e, kline, path, "NUL character in a key");
			goto fail_key;
		}
		kpath.key = key;
		if (cfg_map_get(n, key) != NULL) {
			cfg_error(r->e, kline, &kpath, "duplicate key");
			goto fail_key;
		}
		if (n->n_child >= CFG_MAX_KEYS) {
			cfg_error(r->e, kline, path, "more than %u keys in one map", CFG_MAX_KEYS);
			goto fail_key;
		}
		if (next_event(r, &vev) < 0)
			goto fail_key;
		c = read_node(r, &vev, &kpath, depth + 1);
		if (c == NULL)
			goto fail_key;
		if (cfg_node_set_key(c, key, klen, kline) < 0) {
			cfg_error(r->e, kline, &kpath, "out of memory");
			cfg_node_free(c);
			goto fail_key;
		}
		cfg_node_append(n, c);
		yaml_event_delete(&kev);
	}
fail_key:
	yaml_event_delete(&kev);
fail:
	cfg_node_free(n);
	return NULL;
}

/* Consumes ev, whatever happens. */
static struct cfg_node *
read_node(struct yreader *r, yaml_event_t *ev, const struct cfg_path *path, int depth)
{
	struct cfg_node *n = NULL;
	int line = mark_line(&ev->start_mark);

	if (depth > CFG_MAX_DEPTH) {
		cfg_error(r->e, line, path, "nesting deeper than %d levels", CFG_MAX_DEPTH);
		goto out;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		n = read_scalar(r, ev, path);
		break;
	case YAML_SEQUENCE_START_EVENT:
		if (check_plain_node(r, ev, ev->data.sequence_start.anchor,
				    ev->data.sequence_start.tag, path) == 0)
			n = read_list(r, ev, path, depth);
		break;
	case YAML_MAPPING_START_EVENT:
		if (check_plain_node(r, ev, ev->data.mapping_start.anchor,
				    ev->data.mapping_start.tag, path) == 0)
			n = read_map(r, ev, path, depth);
		break;
	case YAML_ALIAS_EVENT:
		cfg_error(r->e, line, path, "anchors and aliases are not supported");
		break;
	default:
		/* The parser never produces this inside a document. */
		cfg_error(r->e, line, path, "unexpected YAML event %d", (int)ev->type);
		break;
	}
out:
	yaml_event_delete(ev);
	return n;
}

struct cfg_node *
cfg_yaml_read(const char *buf, size_t len, const struct cfg_err *e)
{
	static const struct cfg_path syntax = {NULL, "syntax", 0};
	struct yreader r = {.e = e, .buf = buf, .len = len};
	struct cfg_node *root = NULL;
	yaml_event_t ev;

	if (!yaml_parser_initialize(&r.parser)) {
		cfg_error(e, 0, &syntax, "out of memory");
		return NULL;
	}
	yaml_parser_set_input_string(&r.parser, (const unsigned char *)buf, len);

	if (next_event(&r, &ev) < 0)
		goto fail;
	/* STREAM_START */
	yaml_event_delete(&ev);
	if (next_event(&r, &ev) < 0)
		goto fail;
	if (ev.type == YAML_STREAM_END_EVENT) {
		/* Nothing but blanks and comments: an empty map, so the validator
		 * names the first required key that is missing.
		 */
		yaml_event_delete(&ev);
		root = cfg_node_new(CFG_MAP, 1);
		if (root == NULL)
			cfg_error(e, 0, &syntax, "out of memory");
		goto out;
	}
	/* DOCUMENT_START */
	yaml_event_delete(&ev);
	if (next_event(&r, &ev) < 0)
		goto fail;
	root = read_node(&r, &ev, NULL, 0);
	if (root == NULL)
		goto fail;
	if (root->type == CFG_SCALAR && root->kind == CFG_PLAIN && root->text[0] == '\0') {
		/* "---" and nothing else: as empty as an empty file. */
		cfg_node_free(root);
		root = cfg_node_new(CFG_MAP, 1);
		if (root == NULL) {
			cfg_error(e, 0, &syntax, "out of memory");
			goto fail;
		}
	}
	/* DOCUMENT_END */
	if (next_event(&r, &ev) < 0)
		goto fail;
	yaml_event_delete(&ev);
	if (next_event(&r, &ev) < 0)
		goto fail;
	if (ev.type == YAML_DOCUMENT_START_EVENT) {
		cfg_error(e, mark_line(&ev.start_mark), &syntax,
				"only one YAML document is allowed");
		yaml_event_delete(&ev);
		goto fail;
	}
	yaml_event_delete(&ev);
	goto out;
fail:
	cfg_node_free(root);
	root = NULL;
out:
	yaml_parser_delete(&r.parser);
	return root;
}
