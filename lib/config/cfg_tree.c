/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg_tree.h"

void
cfg_buf_vprintf(struct cfg_buf *b, const char *fmt, va_list ap)
{
	char *dst = NULL;
	size_t room = 0;
	int n;

	if (b->buf != NULL && b->pos < b->len) {
		dst = b->buf + b->pos;
		room = b->len - b->pos;
	}
	n = vsnprintf(dst, room, fmt, ap);
	if (n > 0)
		b->pos += (size_t)n;
}

void
cfg_buf_printf(struct cfg_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cfg_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

struct cfg_node *
cfg_node_new(enum cfg_type type, int line)
{
	struct cfg_node *n = calloc(1, sizeof(*n));

	if (n == NULL)
		return NULL;
	n->type = type;
	n->line = line;
	return n;
}

struct cfg_node *
cfg_scalar_new(enum cfg_kind kind, const char *text, size_t len, int line)
{
	struct cfg_node *n = cfg_node_new(CFG_SCALAR, line);

	if (n == NULL)
		return NULL;
	n->kind = kind;
	n->text = malloc(len + 1);
	if (n->text == NULL) {
		free(n);
		return NULL;
	}
	memcpy(n->text, text, len);
	n->text[len] = '\0';
	return n;
}

void
cfg_node_append(struct cfg_node *parent, struct cfg_node *child)
{
	if (parent->last == NULL)
		parent->child = child;
	else
		parent->last->next = child;
	parent->last = child;
	parent->n_child++;
}

int
cfg_node_set_key(struct cfg_node *child, const char *key, size_t len, int line)
{
	child->key = malloc(len + 1);
	if (child->key == NULL)
		return -1;
	memcpy(child->key, key, len);
	child->key[len] = '\0';
	child->key_line = line;
	return 0;
}

void
cfg_node_free(struct cfg_node *n)
{
	struct cfg_node *c, *next;

	if (n == NULL)
		return;
	/* Depth is bounded by CFG_MAX_DEPTH, so recursion is safe. */
	for (c = n->child; c != NULL; c = next) {
		next = c->next;
		cfg_node_free(c);
	}
	free(n->key);
	free(n->text);
	free(n);
}

struct cfg_node *
cfg_map_get(const struct cfg_node *map, const char *key)
{
	struct cfg_node *c;

	if (map == NULL || map->type != CFG_MAP)
		return NULL;
	for (c = map->child; c != NULL; c = c->next)
		if (strcmp(c->key, key) == 0)
			return c;
	return NULL;
}

static bool
is_one_of(const char *s, const char *const *words)
{
	for (; *words != NULL; words++)
		if (strcmp(s, *words) == 0)
			return true;
	return false;
}

static const char *const null_words[] = {"", "~", "null", "Null", "NULL", NULL};
/* YAML 1.1 booleans; the validator maps them to true/false. */
static const char *const bool_words[] = {"true", "True", "TRUE", "false", "False", "FALSE", "yes",
		"Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF", NULL};

static size_t
count_digits(const char *s, bool hex)
{
	size_t n = 0;

	while (hex ? isxdigit((unsigned char)s[n]) : isdigit((unsigned char)s[n]))
		n++;
	return n;
}

enum cfg_plain
cfg_plain_class(const char *s)
{
	const char *p = s;
	size_t int_digits, frac_digits = 0, n;
	bool dot = false, exp = false;

	if (is_one_of(s, null_words))
		return CFG_PLAIN_NULL;
	if (is_one_of(s, bool_words))
		return CFG_PLAIN_BOOL;
	if (*p == '-' || *p == '+')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		n = count_digits(p + 2, true);
		return (n > 0 && p[2 + n] == '\0') ? CFG_PLAIN_INT : CFG_PLAIN_STRING;
	}
	int_digits = count_digits(p, false);
	p += int_digits;
	if (*p == '.') {
		dot = true;
		p++;
		frac_digits = count_digits(p, false);
		p += frac_digits;
	}
	if (int_digits + frac_digits == 0)
		return CFG_PLAIN_STRING;
	if (*p == 'e' || *p == 'E') {
		exp = true;
		p++;
		if (*p == '-' || *p == '+')
			p++;
		n = count_digits(p, false);
		if (n == 0)
			return CFG_PLAIN_STRING;
		p += n;
	}
	if (*p != '\0')
		return CFG_PLAIN_STRING;
	return (dot || exp) ? CFG_PLAIN_FLOAT : CFG_PLAIN_INT;
}

const char *
cfg_node_describe(const struct cfg_node *n)
{
	if (n->type == CFG_MAP)
		return "a map";
	if (n->type == CFG_LIST)
		return "a list";
	switch (n->kind) {
	case CFG_STRING:
		return "a string";
	case CFG_INT:
		return "an integer";
	case CFG_FLOAT:
		return "a float";
	case CFG_BOOL:
		return "a boolean";
	case CFG_PLAIN:
		break;
	}
	switch (cfg_plain_class(n->text)) {
	case CFG_PLAIN_NULL:
		return "null";
	case CFG_PLAIN_BOOL:
		return "a boolean";
	case CFG_PLAIN_INT:
		return "an integer";
	case CFG_PLAIN_FLOAT:
		return "a float";
	case CFG_PLAIN_STRING:
		break;
	}
	return "a string";
}

static void
path_render(struct cfg_buf *b, const struct cfg_path *p)
{
	if (p->up != NULL)
		path_render(b, p->up);
	if (p->key != NULL)
		cfg_buf_printf(b, "%s%s", p->up != NULL ? "." : "", p->key);
	else
		cfg_buf_printf(b, "[%u]", p->index);
}

int
cfg_error(const struct cfg_err *e, int line, const struct cfg_path *p, const char *fmt, ...)
{
	struct cfg_buf b = {e->buf, e->len, 0};
	va_list ap;
	char *c;

	if (e->buf == NULL || e->len == 0)
		return -1;
	cfg_buf_printf(&b, "%s:", e->file);
	if (line > 0)
		cfg_buf_printf(&b, "%d:", line);
	cfg_buf_printf(&b, " ");
	if (p != NULL) {
		path_render(&b, p);
		cfg_buf_printf(&b, ": ");
	}
	va_start(ap, fmt);
	cfg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	/* Values and keys come from the file: keep the message on one line. */
	for (c = e->buf; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -1;
}
