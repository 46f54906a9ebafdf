/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * libconfig reader: libconfig -> cfg tree. Groups become maps; lists "( )"
 * and arrays "[ ]" both become lists.
 *
 * libconfig 1.5 silently wraps integer literals that do not fit (4294967296
 * reads as 0, 2147483648 as -2147483648) and would read any file named by
 * @include. A small scan of the text, which skips strings and comments the
 * way libconfig's own scanner does, rejects both before they can turn into a
 * wrong value.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libconfig.h>

#include "cfg_tree.h"

static const struct cfg_path syntax_path = {NULL, "syntax", 0};

struct scan_problem {
	int line; /* 0: none */
	char msg[160];
};

static void
note_problem(struct scan_problem *sp, int line, const char *tok, size_t len, const char *why)
{
	if (sp->line != 0)
		return;
	sp->line = line;
	snprintf(sp->msg, sizeof(sp->msg), "integer %.*s %s", (int)(len > 40 ? 40 : len), tok, why);
}

/* Checks one integer literal [sign]digits or 0xhex, with its optional L. */
static void
check_integer(const char *tok, size_t len, bool is64, bool hex, int line, struct scan_problem *sp)
{
	char tmp[48];
	unsigned long long u;
	long long v;
	char *end;

	if (len >= sizeof(tmp)) {
		note_problem(sp, line, tok, len, "is out of range");
		return;
	}
	memcpy(tmp, tok, len);
	tmp[len] = '\0';
	errno = 0;
	if (hex) {
		u = strtoull(tmp, &end, 16);
		if (errno != 0 || u > (is64 ? (unsigned long long)INT64_MAX : INT32_MAX))
			note_problem(sp, line, tok, len,
					is64 ? "does not fit in a signed 64-bit libconfig integer"
					     : "does not fit in a 32-bit libconfig integer (add "
					       "L)");
		return;
	}
	v = strtoll(tmp, &end, 10);
	if (errno != 0 || (!is64 && (v < INT32_MIN || v > INT32_MAX)))
		note_problem(sp, line, tok, len,
				is64 ? "does not fit in a signed 64-bit libconfig integer"
				     : "does not fit in a 32-bit libconfig integer (add L)");
}

/*
 * Returns -1 (error written) on @include, else 0 with the first integer
 * problem, if any, in sp: the caller reports it unless libconfig found a
 * syntax error earlier in the file.
 */
static int
prescan(const char *s, const struct cfg_err *e, struct scan_problem *sp)
{
	const char *p = s, *tok;
	int line = 1;
	bool hex, is64;

	while (*p != '\0') {
		if (*p == '\n') {
			line++;
			p++;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			while (*p != '\0' && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			for (p += 2; *p != '\0' && !(p[0] == '*' && p[1] == '/'); p++)
				if (*p == '\n')
					line++;
			if (*p != '\0')
				p += 2;
		} else if (*p == '"') {
			for (p++; *p != '\0' && *p != '"'; p++) {
				if (*p == '\n')
					line++;
				if (*p == '\\' && p[1] != '\0')
					p++;
			}
			if (*p != '\0')
				p++;
		} else if (*p == '@') {
			return cfg_error(e, line, &syntax_path, "@include is not supported");
		} else if (isalpha((unsigned char)*p) || *p == '*') {
			while (isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '*')
				p++;
		} else if (isdigit((unsigned char)*p) ||
				((*p == '-' || *p == '+') && isdigit((unsigned char)p[1]))) {
			tok = p;
			if (*p == '-' || *p == '+')
				p++;
			hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
			if (hex) {
				for (p += 2; isxdigit((unsigned char)*p); p++)
					;
			} else {
				while (isdigit((unsigned char)*p))
					p++;
				if (*p == '.' || *p == 'e' || *p == 'E') {
					/* A float: libconfig reads those with strtod. */
					while (isalnum((unsigned char)*p) || *p == '.' ||
							((*p == '-' || *p == '+') &&
									(p[-1] == 'e' ||
											p[-1] == 'E')))
						p++;
					continue;
				}
			}
			is64 = *p == 'L';
			check_integer(tok, (size_t)(p - tok), is64, hex, line, sp);
			while (*p == 'L')
				p++;
		} else {
			p++;
		}
	}
	return 0;
}

static struct cfg_node *
convert(const config_setting_t *s, const struct cfg_path *path, int depth, const struct cfg_err *e)
{
	int line = (int)config_setting_source_line(s);
	struct cfg_path cpath = {path, NULL, 0};
	struct cfg_node *n = NULL, *c;
	const config_setting_t *cs;
	const char *str, *name;
	char tmp[40];
	int type = config_setting_type(s), i, len;

	if (line <= 0)
		line = 1;
	if (depth > CFG_MAX_DEPTH) {
		cfg_error(e, line, path, "nesting deeper than %d levels", CFG_MAX_DEPTH);
		return NULL;
	}
	switch (type) {
	case CONFIG_TYPE_GROUP:
	case CONFIG_TYPE_LIST:
	case CONFIG_TYPE_ARRAY:
		n = cfg_node_new(type == CONFIG_TYPE_GROUP ? CFG_MAP : CFG_LIST, line);
		if (n == NULL)
			break;
		len = config_setting_length(s);
		if (type == CONFIG_TYPE_GROUP && len > CFG_MAX_KEYS) {
			cfg_node_free(n);
			cfg_error(e, line, path, "more than %u keys in one map", CFG_MAX_KEYS);
			return NULL;
		}
		for (i = 0; i < len; i++) {
			cs = config_setting_get_elem(s, (unsigned int)i);
			name = config_setting_name(cs);
			if (type == CONFIG_TYPE_GROUP)
				cpath.key = name != NULL ? name : "";
			else
				cpath.index = (unsigned int)i;
			c = convert(cs, &cpath, depth + 1, e);
			if (c == NULL) {
				cfg_node_free(n);
				return NULL;
			}
			if (type == CONFIG_TYPE_GROUP &&
					cfg_node_set_key(c, cpath.key, strlen(cpath.key), c->line) <
							0) {
				cfg_node_free(c);
				cfg_node_free(n);
				n = NULL;
				break;
			}
			cfg_node_append(n, c);
		}
		if (n != NULL)
			return n;
		break;
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		snprintf(tmp, sizeof(tmp), "%lld", config_setting_get_int64(s));
		n = cfg_scalar_new(CFG_INT, tmp, strlen(tmp), line);
		break;
	case CONFIG_TYPE_FLOAT:
		/* 17 digits: reading the text back gives the same double. */
		snprintf(tmp, sizeof(tmp), "%.17g", config_setting_get_float(s));
		n = cfg_scalar_new(CFG_FLOAT, tmp, strlen(tmp), line);
		break;
	case CONFIG_TYPE_BOOL:
		str = config_setting_get_bool(s) ? "true" : "false";
		n = cfg_scalar_new(CFG_BOOL, str, strlen(str), line);
		break;
	case CONFIG_TYPE_STRING:
		str = config_setting_get_string(s);
		if (str == NULL)
			str = "";
		n = cfg_scalar_new(CFG_STRING, str, strlen(str), line);
		break;
	default:
		cfg_error(e, line, path, "unsupported libconfig setting type %d", type);
		return NULL;
	}
	if (n == NULL)
		cfg_error(e, line, path, "out of memory");
	return n;
}

struct cfg_node *
cfg_libconfig_read(const char *buf, size_t len, const struct cfg_err *e)
{
	struct scan_problem sp = {0};
	struct cfg_node *root = NULL;
	config_t lc;
	int line;

	(void)len;
	if (prescan(buf, e, &sp) < 0)
		return NULL;
	config_init(&lc);
	if (!config_read_string(&lc, buf)) {
		line = config_error_line(&lc);
		if (sp.line != 0 && sp.line < line)
			cfg_error(e, sp.line, &syntax_path, "%s", sp.msg);
		else
			cfg_error(e, line, &syntax_path, "%s",
					config_error_text(&lc) != NULL ? config_error_text(&lc)
								       : "unknown error");
		goto out;
	}
	if (sp.line != 0) {
		cfg_error(e, sp.line, &syntax_path, "%s", sp.msg);
		goto out;
	}
	root = convert(config_root_setting(&lc), NULL, 0, e);
	if (root != NULL && root->child != NULL)
		root->line = root->child->line;
out:
	config_destroy(&lc);
	return root;
}
