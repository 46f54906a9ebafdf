/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The schema engine (rtr_cfg_schema.h): generic tree + field tables ->
 * filled structs, and the canonical dump of the same tables.
 *
 * Every map of the schema is a table of fields {key, type, range, default,
 * offset}. One walker does type checks, ranges, defaults and unknown-key
 * detection for all of them, and the dumper walks the same tables, so a new
 * key is one table line. Rules that involve more than one key are the
 * maps' check functions, run after their map is filled. The engine knows no
 * section: the switch's own (cfg_switch.c) and the LB modes' use it alike.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg_schema.h"
#include "rtr_suggest.h"

/* ---- scalar helpers ---------------------------------------------------- */

static bool
is_stringish(const struct cfg_node *v)
{
	if (v->type != CFG_SCALAR)
		return false;
	if (v->kind == CFG_STRING)
		return true;
	return v->kind == CFG_PLAIN && cfg_plain_class(v->text) != CFG_PLAIN_NULL;
}

int
cfg_expect(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path,
		const char *what)
{
	return cfg_error(c->e, v->line, path, "expected %s, got %s", what, cfg_node_describe(v));
}

static bool
is_intish(const struct cfg_node *v)
{
	if (v->type != CFG_SCALAR)
		return false;
	return v->kind == CFG_INT ||
	       (v->kind == CFG_PLAIN && cfg_plain_class(v->text) == CFG_PLAIN_INT);
}

/* Integer text: [+-]digits or [+-]0xhex. Returns -1 when it does not fit. */
static int
parse_int_text(const char *s, bool *neg, uint64_t *mag)
{
	unsigned long long u;
	char *end;

	*neg = false;
	if (*s == '-' || *s == '+')
		*neg = *s++ == '-';
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		u = strtoull(s + 2, &end, 16);
	else
		u = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*mag = u;
	if (*neg && u == 0)
		*neg = false;
	return 0;
}

static void
range_text(char *buf, size_t len, const struct rtr_cfg_field *f)
{
	if (f->flags & RTR_CFG_POW2)
		snprintf(buf, len, "a power of two in %" PRIu64 "..%" PRIu64, f->min, f->max);
	else if (f->flags & RTR_CFG_ZERO_OK)
		snprintf(buf, len, "0 or %" PRIu64 "..%" PRIu64, f->min, f->max);
	else
		snprintf(buf, len, "%" PRIu64 "..%" PRIu64, f->min, f->max);
}

static int
range_error(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path,
		const char *range, const struct rtr_cfg_field *f)
{
	if (f->why != NULL)
		return cfg_error(c->e, v->line, path, "must be %s (%s), got %s", range, f->why,
				v->text);
	return cfg_error(c->e, v->line, path, "must be %s, got %s", range, v->text);
}

int
cfg_get_uint(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path,
		const struct rtr_cfg_field *f, uint64_t *out)
{
	char range[80];
	uint64_t mag;
	bool neg;

	if (!is_intish(v))
		return cfg_expect(c, v, path, "an integer");
	range_text(range, sizeof(range), f);
	if (parse_int_text(v->text, &neg, &mag) < 0 || neg)
		return range_error(c, v, path, range, f);
	if (mag == 0 && (f->flags & RTR_CFG_ZERO_OK)) {
		*out = 0;
		return 0;
	}
	if (mag < f->min || mag > f->max || ((f->flags & RTR_CFG_POW2) && (mag & (mag - 1)) != 0))
		return range_error(c, v, path, range, f);
	*out = mag;
	return 0;
}

static int
get_double(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path,
		const struct rtr_cfg_field *f, double *out)
{
	enum cfg_plain pc;
	char range[80];
	uint64_t mag;
	double d;
	char *end;
	bool neg;

	if (v->type != CFG_SCALAR)
		return cfg_expect(c, v, path, "a number");
	if (v->kind == CFG_PLAIN) {
		pc = cfg_plain_class(v->text);
		if (pc != CFG_PLAIN_INT && pc != CFG_PLAIN_FLOAT)
			return cfg_expect(c, v, path, "a number");
	} else if (v->kind != CFG_INT && v->kind != CFG_FLOAT) {
		return cfg_expect(c, v, path, "a number");
	}
	if (f->flags & RTR_CFG_MIN_EXCL)
		snprintf(range, sizeof(range), ">%g and <=%g", f->dmin, f->dmax);
	else
		snprintf(range, sizeof(range), "%g..%g", f->dmin, f->dmax);
	if (is_intish(v)) {
		/* strtod does not read 0x integers the way YAML means them. */
		if (parse_int_text(v->text, &neg, &mag) < 0)
			return range_error(c, v, path, range, f);
		d = neg ? -(double)mag : (double)mag;
	} else {
		errno = 0;
		d = strtod(v->text, &end);
		if (*end != '\0')
			return cfg_expect(c, v, path, "a number");
	}
	if (!isfinite(d) || d < f->dmin || d > f->dmax ||
			((f->flags & RTR_CFG_MIN_EXCL) && d <= f->dmin))
		return range_error(c, v, path, range, f);
	*out = d;
	return 0;
}

static bool
is_boolish(const struct cfg_node *v)
{
	if (v->type != CFG_SCALAR)
		return false;
	return v->kind == CFG_BOOL ||
	       (v->kind == CFG_PLAIN && cfg_plain_class(v->text) == CFG_PLAIN_BOOL);
}

static int
get_bool(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path, bool *out)
{
	static const char *const yes[] = {
			"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", NULL};
	const char *const *w;

	if (!is_boolish(v))
		return cfg_expect(c, v, path, "a boolean (true or false)");
	*out = false;
	for (w = yes; *w != NULL; w++)
		if (strcmp(v->text, *w) == 0)
			*out = true;
	return 0;
}

static int
get_string(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path,
		const char **out)
{
	*out = "";
	if (!is_stringish(v))
		return cfg_expect(c, v, path, "a string");
	*out = v->text;
	return 0;
}

static int
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int i;
	int hi, lo;

	if (strlen(s) != 17)
		return -1;
	for (i = 0; i < 6; i++) {
		if (i < 5 && s[i * 3 + 2] != ':')
			return -1;
		hi = (unsigned char)s[i * 3];
		lo = (unsigned char)s[i * 3 + 1];
		if (!isxdigit(hi) || !isxdigit(lo))
			return -1;
		hi = isdigit(hi) ? hi - '0' : (hi | 0x20) - 'a' + 10;
		lo = isdigit(lo) ? lo - '0' : (lo | 0x20) - 'a' + 10;
		mac[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static int
get_mac(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path,
		uint8_t mac[6])
{
	static const uint8_t zero[6];
	const char *s;

	if (get_string(c, v, path, &s) < 0)
		return -1;
	if (parse_mac(s, mac) < 0)
		return cfg_error(c->e, v->line, path,
				"bad MAC address \"%s\": expected xx:xx:xx:xx:xx:xx", s);
	if ((mac[0] & 1) != 0 || memcmp(mac, zero, 6) == 0)
		return cfg_error(c->e, v->line, path, "must be a unicast MAC address, got %s", s);
	return 0;
}

/*
 * "addr" (want_len false) or "addr/len". An interface address keeps its host
 * bits; a route prefix must not have any (checked by the caller).
 */
int
cfg_get_addr(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path,
		bool want_len, struct rtr_addr *a)
{
	char tmp[INET6_ADDRSTRLEN + 8];
	const char *s, *slash;
	unsigned long len;
	unsigned int max;
	size_t alen;
	char *end;

	if (get_string(c, v, path, &s) < 0)
		return -1;
	memset(a, 0, sizeof(*a));
	slash = strchr(s, '/');
	if (want_len && slash == NULL)
		return cfg_error(c->e, v->line, path, "bad prefix \"%s\": expected ADDRESS/LENGTH",
				s);
	if (!want_len && slash != NULL)
		return cfg_error(c->e, v->line, path,
				"bad address \"%s\": expected an address without /LENGTH", s);
	alen = slash != NULL ? (size_t)(slash - s) : strlen(s);
	if (alen >= sizeof(tmp))
		goto bad;
	memcpy(tmp, s, alen);
	tmp[alen] = '\0';
	if (inet_pton(AF_INET, tmp, &a->v4) == 1) {
		a->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, tmp, &a->v6) == 1) {
		a->family = AF_INET6;
		max = 128;
	} else {
		goto bad;
	}
	a->depth = (uint8_t)max;
	if (slash != NULL) {
		errno = 0;
		len = strtoul(slash + 1, &end, 10);
		if (!isdigit((unsigned char)slash[1]) || *end != '\0' || errno != 0 || len > max)
			return cfg_error(c->e, v->line, path,
					"bad prefix \"%s\": length must be 0..%u", s, max);
		a->depth = (uint8_t)len;
	}
	return 0;
bad:
	memset(a, 0, sizeof(*a));
	return cfg_error(c->e, v->line, path, "bad %s \"%s\": not an IPv4 or IPv6 address",
			want_len ? "prefix" : "address", s);
}

static void
store_uint(void *p, size_t size, uint64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(p, &u8, 1);
		break;
	case 2:
		memcpy(p, &u16, 2);
		break;
	case 4:
		memcpy(p, &u32, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

uint64_t
cfg_load_uint(const void *p, size_t size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&u64, p, 8);
		return u64;
	}
}

static void
format_names(char *buf, size_t len, const char *const *names)
{
	struct cfg_buf b = {buf, len, 0};
	unsigned int i, n = 0;

	while (names[n] != NULL)
		n++;
	for (i = 0; i < n; i++)
		cfg_buf_printf(&b, "%s%s", i == 0 ? "" : (i + 1 == n ? " or " : ", "), names[i]);
}

/* ---- the generic walker ------------------------------------------------ */

const struct rtr_config *
rtr_cfg_config(const struct rtr_cfg_ctx *c)
{
	return c->cfg;
}

int
rtr_cfg_error(struct rtr_cfg_ctx *c, int line, const struct cfg_path *path, const char *key,
		const char *fmt, ...)
{
	struct cfg_path kpath = {path, key, 0};
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cfg_error(c->e, line, key != NULL ? &kpath : path, "%s", msg);
}

static const struct rtr_cfg_field *
find_field(const struct rtr_cfg_map *m, const char *key)
{
	unsigned int i;

	for (i = 0; i < m->n_fields; i++)
		if (strcmp(m->fields[i].key, key) == 0)
			return &m->fields[i];
	return NULL;
}

static int
set_field(struct rtr_cfg_ctx *c, const struct rtr_cfg_field *f, const struct cfg_node *v, int line,
		const struct cfg_path *path, void *base)
{
	char *p = (char *)base + f->off;
	char names[256]; /* "a, b or c": switch.lb lists every LB mode */
	const char *near;
	const char *s;
	uint64_t u;
	double d;
	bool b;
	int i;

	/* Checked like any key, then dropped (only integers so far). */
	if (f->flags & RTR_CFG_IGNORED)
		return v != NULL && cfg_get_uint(c, v, path, f, &u) < 0 ? -1 : 0;
	if (v != NULL && (f->flags & RTR_CFG_HAS_SET))
		*(bool *)((char *)base + f->set_off) = true;
	switch (f->type) {
	case RTR_CFG_T_UINT:
		u = f->def;
		if (v != NULL && cfg_get_uint(c, v, path, f, &u) < 0)
			return -1;
		store_uint(p, f->size, u);
		return 0;
	case RTR_CFG_T_DOUBLE:
		d = f->ddef;
		if (v != NULL && get_double(c, v, path, f, &d) < 0)
			return -1;
		memcpy(p, &d, sizeof(d));
		return 0;
	case RTR_CFG_T_BOOL:
		b = f->def != 0;
		if (v != NULL && get_bool(c, v, path, &b) < 0)
			return -1;
		memcpy(p, &b, sizeof(b));
		return 0;
	case RTR_CFG_T_STRING:
		s = f->sdef;
		if (v != NULL) {
			if (get_string(c, v, path, &s) < 0)
				return -1;
			if (*s == '\0')
				return cfg_error(c->e, v->line, path, "must not be empty");
			if (strlen(s) >= f->size)
				return cfg_error(c->e, v->line, path,
						"must be at most %zu characters, got %zu",
						f->size - 1, strlen(s));
			for (i = 0; s[i] != '\0'; i++)
				if (s[i] < 0x20 || s[i] > 0x7e)
					return cfg_error(c->e, v->line, path,
							"must be printable ASCII");
		}
		snprintf(p, f->size, "%s", s);
		return 0;
	case RTR_CFG_T_ENUM:
		i = (int)f->def;
		if (v != NULL) {
			if (get_string(c, v, path, &s) < 0)
				return -1;
			for (i = 0; f->names[i] != NULL; i++)
				if (strcmp(f->names[i], s) == 0)
					break;
			if (f->names[i] == NULL) {
				format_names(names, sizeof(names), f->names);
				near = rtr_suggest(s, f->names, 0);
				if (near != NULL)
					return cfg_error(c->e, v->line, path,
							"must be %s, got \"%s\" (did you mean %s?)",
							names, s, near);
				return cfg_error(c->e, v->line, path, "must be %s, got \"%s\"",
						names, s);
			}
		}
		store_uint(p, f->size, (uint64_t)i);
		return 0;
	case RTR_CFG_T_MAC:
		if (v != NULL)
			return get_mac(c, v, path, (uint8_t *)p);
		return 0;
	case RTR_CFG_T_MAP:
		return cfg_validate_map(c, v, line, path, f->map, p);
	case RTR_CFG_T_FUNC:
		return f->parse(c, v, line, path, p);
	}
	return 0;
}

/* "unknown key", naming the map's key nearest to it when one is near. */
static int
unknown_key(struct rtr_cfg_ctx *c, const struct cfg_node *ch, const struct cfg_path *kpath,
		const struct rtr_cfg_map *m)
{
	const char *keys[128];
	const char *near;
	unsigned int i, n = 0;

	for (i = 0; i < m->n_fields && n < RTR_ARRAY_SIZE(keys); i++)
		keys[n++] = m->fields[i].key;
	near = rtr_suggest(ch->key, keys, n);
	if (near != NULL)
		return cfg_error(c->e, ch->key_line, kpath, "unknown key (did you mean %s?)", near);
	return cfg_error(c->e, ch->key_line, kpath, "unknown key");
}

int
cfg_validate_map(struct rtr_cfg_ctx *c, const struct cfg_node *node, int line,
		const struct cfg_path *path, const struct rtr_cfg_map *m, void *base)
{
	struct cfg_path kpath = {path, NULL, 0};
	const struct cfg_node *ch, *v;
	const struct rtr_cfg_field *f;
	unsigned int i;

	if (node != NULL) {
		if (node->type != CFG_MAP)
			return cfg_expect(c, node, path, "a map");
		for (ch = node->child; ch != NULL; ch = ch->next) {
			if (find_field(m, ch->key) == NULL) {
				kpath.key = ch->key;
				return unknown_key(c, ch, &kpath, m);
			}
		}
		line = node->line;
	}
	for (i = 0; i < m->n_fields; i++) {
		f = &m->fields[i];
		kpath.key = f->key;
		v = cfg_map_get(node, f->key);
		if (v == NULL && (f->flags & RTR_CFG_REQUIRED))
			return cfg_error(c->e, line, &kpath, "required key missing");
		if (v == NULL && m->inherit && f->type != RTR_CFG_T_MAP)
			continue;
		if (set_field(c, f, v, line, &kpath, base) < 0)
			return -1;
	}
	if (m->check != NULL)
		return m->check(c, node, line, path, base);
	return 0;
}

/* The line of the value of key in node, else of the first of the others
 * given, else the map's own: where a rule across keys is best reported.
 */
int
rtr_cfg_rule_line(const struct cfg_node *node, int line, const char *key, const char *o1,
		const char *o2)
{
	const struct cfg_node *v = cfg_map_get(node, key);

	if (v == NULL && o1 != NULL)
		v = cfg_map_get(node, o1);
	if (v == NULL && o2 != NULL)
		v = cfg_map_get(node, o2);
	return v != NULL ? v->line : line;
}

int
cfg_list_check(struct rtr_cfg_ctx *c, const struct cfg_node *v, const struct cfg_path *path,
		unsigned int min, unsigned int max)
{
	if (v->type != CFG_LIST)
		return cfg_expect(c, v, path, "a list");
	if (v->n_child < min || v->n_child > max)
		return cfg_error(c->e, v->line, path, "must have %u..%u entries, got %u", min, max,
				v->n_child);
	return 0;
}

/* ---- dump helpers ------------------------------------------------------ */

static void
dump_double(struct cfg_buf *b, double d)
{
	char tmp[40];
	int prec;

	/* The shortest text that reads back as the same double. */
	for (prec = 1; prec < 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	snprintf(tmp, sizeof(tmp), "%.*g", prec, d);
	cfg_buf_printf(b, "%s", tmp);
}

void
cfg_dump_addr(struct cfg_buf *b, const struct rtr_addr *a, bool with_len)
{
	char tmp[INET6_ADDRSTRLEN];

	if (inet_ntop(a->family, a->family == AF_INET ? (const void *)&a->v4 : (const void *)&a->v6,
			    tmp, sizeof(tmp)) == NULL)
		snprintf(tmp, sizeof(tmp), "?");
	if (with_len)
		cfg_buf_printf(b, "\"%s/%u\"", tmp, a->depth);
	else
		cfg_buf_printf(b, "\"%s\"", tmp);
}

static bool
field_is_set(const struct rtr_cfg_field *f, const void *base)
{
	bool set;

	if (!(f->flags & RTR_CFG_HAS_SET))
		return true;
	memcpy(&set, (const char *)base + f->set_off, sizeof(set));
	return set;
}

/* A default outside the range a file may give (shape_gbps 0), or one a key
 * may not be given with everywhere (flow limits on fabric ports), is left
 * out. */
static bool
omit_default(const struct rtr_cfg_field *f, const void *base)
{
	double d;

	/* An empty string cannot be given ("must not be empty"): the default
	 * of a string that may be absent. */
	if (f->type == RTR_CFG_T_STRING && ((const char *)base + f->off)[0] == '\0')
		return true;
	if (!(f->flags & RTR_CFG_OMIT_DEF))
		return false;
	if (f->type == RTR_CFG_T_UINT)
		return cfg_load_uint((const char *)base + f->off, f->size) == f->def;
	if (f->type == RTR_CFG_T_BOOL) {
		bool v;

		memcpy(&v, (const char *)base + f->off, sizeof(v));
		return v == (f->def != 0);
	}
	if (f->type != RTR_CFG_T_DOUBLE)
		return false;
	memcpy(&d, (const char *)base + f->off, sizeof(d));
	return d == f->ddef;
}

static void
dump_scalar(struct cfg_buf *b, const struct rtr_cfg_field *f, const void *base)
{
	const char *p = (const char *)base + f->off;
	const uint8_t *mac;
	const char *s;
	double d;
	bool v;
	int i, n;

	switch (f->type) {
	case RTR_CFG_T_UINT:
		cfg_buf_printf(b, "%" PRIu64, cfg_load_uint(p, f->size));
		break;
	case RTR_CFG_T_DOUBLE:
		memcpy(&d, p, sizeof(d));
		dump_double(b, d);
		break;
	case RTR_CFG_T_BOOL:
		memcpy(&v, p, sizeof(v));
		cfg_buf_printf(b, "%s", v ? "true" : "false");
		break;
	case RTR_CFG_T_STRING:
		/* Validated as printable ASCII; only quote and backslash need escaping. */
		cfg_buf_printf(b, "\"");
		for (s = p; *s != '\0'; s++)
			cfg_buf_printf(b, "%s%c", (*s == '"' || *s == '\\') ? "\\" : "", *s);
		cfg_buf_printf(b, "\"");
		break;
	case RTR_CFG_T_ENUM:
		/* Quoted when another YAML reader would not take it as a string (off). */
		i = (int)cfg_load_uint(p, f->size);
		for (n = 0; n < i && f->names[n] != NULL; n++)
			;
		if (f->names[n] == NULL) /* set by hand out of range: no name to show */
			cfg_buf_printf(b, "%d", i);
		else if (cfg_plain_class(f->names[i]) == CFG_PLAIN_STRING)
			cfg_buf_printf(b, "%s", f->names[i]);
		else
			cfg_buf_printf(b, "\"%s\"", f->names[i]);
		break;
	case RTR_CFG_T_MAC:
		mac = (const uint8_t *)p;
		cfg_buf_printf(b, "\"%02x:%02x:%02x:%02x:%02x:%02x\"", mac[0], mac[1], mac[2],
				mac[3], mac[4], mac[5]);
		break;
	case RTR_CFG_T_MAP:
	case RTR_CFG_T_FUNC:
		break;
	}
}

void
cfg_dump_fields(struct cfg_buf *b, const struct rtr_cfg_map *m, const void *base, int indent,
		bool list_item)
{
	const struct rtr_cfg_field *f;
	unsigned int i;

	for (i = 0; i < m->n_fields; i++) {
		f = &m->fields[i];
		if (f->flags & RTR_CFG_IGNORED)
			continue;
		if (f->type == RTR_CFG_T_FUNC) {
			if (f->dump != NULL)
				f->dump(b, f, (const char *)base + f->off, indent);
			continue;
		}
		if (omit_default(f, base))
			continue;
		if (!field_is_set(f, base)) {
			if (f->flags & RTR_CFG_SHOW_DEF) {
				cfg_buf_printf(b, "%*s# %s: ", indent, "", f->key);
				dump_scalar(b, f, base);
				cfg_buf_printf(b, " (%s)\n", f->note != NULL ? f->note : "default");
			}
			continue;
		}
		if (list_item) {
			cfg_buf_printf(b, "%*s- ", indent - 2, "");
			list_item = false;
		} else {
			cfg_buf_printf(b, "%*s", indent, "");
		}
		cfg_buf_printf(b, "%s:", f->key);
		if (f->type == RTR_CFG_T_MAP) {
			cfg_buf_printf(b, "\n");
			cfg_dump_fields(b, f->map, (const char *)base + f->off, indent + 2, false);
			continue;
		}
		cfg_buf_printf(b, " ");
		dump_scalar(b, f, base);
		cfg_buf_printf(b, "\n");
	}
}

/* {key: value, ...} on one line, nested maps too; skip names a key to leave out. */
void
cfg_dump_flow_skip(
		struct cfg_buf *b, const struct rtr_cfg_map *m, const void *base, const char *skip)
{
	const struct rtr_cfg_field *f;
	unsigned int i;
	bool first = true;
	size_t pos;

	cfg_buf_printf(b, "{");
	for (i = 0; i < m->n_fields; i++) {
		f = &m->fields[i];
		if ((skip != NULL && strcmp(f->key, skip) == 0) || (f->flags & RTR_CFG_IGNORED))
			continue;
		if (f->type == RTR_CFG_T_FUNC) {
			/* It knows whether it comes first (and writes ", " if not). */
			pos = b->pos;
			if (f->dump != NULL)
				f->dump(b, f, (const char *)base + f->off, -1);
			first = first && b->pos == pos;
			continue;
		}
		if (!field_is_set(f, base) || omit_default(f, base))
			continue;
		cfg_buf_printf(b, "%s%s: ", first ? "" : ", ", f->key);
		if (f->type == RTR_CFG_T_MAP)
			cfg_dump_flow_skip(b, f->map, (const char *)base + f->off, NULL);
		else
			dump_scalar(b, f, base);
		first = false;
	}
	cfg_buf_printf(b, "}");
}

void
cfg_dump_flow(struct cfg_buf *b, const struct rtr_cfg_map *m, const void *base)
{
	cfg_dump_flow_skip(b, m, base, NULL);
}
