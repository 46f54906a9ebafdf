/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The one validator (DESIGN.md B3): generic tree -> struct rtr_config.
 *
 * Every map of the schema is a table of fields {key, type, range, default,
 * offset}. One walker does type checks, ranges, defaults and unknown-key
 * detection for all of them, and the dumper walks the same tables, so a new
 * key is one table line. Rules that involve more than one key (ConWeave
 * thresholds, ECN kmin <= kmax, everything about routes) are small functions
 * that run after their map is filled.
 *
 * Fields of a map are handled in table order, not document order: routes
 * need ports, dscp/pcp/class_params/pfc entries need qos.classes, and the
 * per-class defaults need qos.queue_kb and qos.ecn.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg_tree.h"
#include "rtr_cw_bounds.h"

enum vf_type {
	VF_UINT, /* unsigned integer of width size */
	VF_DOUBLE,
	VF_BOOL,
	VF_STRING, /* char array of size bytes */
	VF_ENUM,   /* int, one of names[] */
	VF_MAC,    /* uint8_t[6] */
	VF_MAP,    /* nested table */
	VF_FUNC,   /* parse() and dump() do everything */
};

#define VF_REQUIRED 0x01
#define VF_ZERO_OK  0x02 /* 0 is allowed besides min..max */
#define VF_POW2     0x04
#define VF_MIN_EXCL 0x08 /* doubles: min itself is not allowed */
#define VF_HAS_SET  0x10 /* set_off names a bool set when the key is given */
#define VF_SHOW_DEF 0x20 /* dump an unset value as a comment */
#define VF_OMIT_DEF 0x40 /* do not dump the default */

struct vctx {
	const struct cfg_err *e;
	struct rtr_config *cfg;
};

struct vmap;

struct vfield {
	const char *key;
	enum vf_type type;
	unsigned int flags;
	size_t off;
	size_t size;
	size_t set_off;
	uint64_t min, max, def;
	double dmin, dmax, ddef;
	const char *sdef;
	const char *const *names;
	const struct vmap *map;
	/* VF_FUNC: v is NULL when the key is absent; line is the map's. */
	int (*parse)(struct vctx *c, const struct cfg_node *v, int line,
			const struct cfg_path *path, void *base);
	void (*dump)(struct cfg_buf *b, const struct vfield *f, const void *base, int indent);
	const char *why;  /* appended to range errors */
	const char *note; /* VF_SHOW_DEF: what the comment says */
};

struct vmap {
	const struct vfield *fields;
	unsigned int n_fields;
	/* Rules across keys; node may be NULL when the whole map is absent. */
	int (*check)(struct vctx *c, const struct cfg_node *node, int line,
			const struct cfg_path *path, void *base);
	/* Absent keys keep what the caller put in base (inherited values)
	 * instead of taking the table default.
	 */
	bool inherit;
};

/* clang-format off */
#define FLD(st, m) .off = offsetof(st, m), .size = sizeof(((st *)NULL)->m)

#define F_UINT(k, st, m, lo, hi, d, ...)                                                           \
	{.key = (k), .type = VF_UINT, FLD(st, m), .min = (lo), .max = (hi), .def = (d), __VA_ARGS__}
#define F_DOUBLE(k, st, m, lo, hi, d, ...)                                                         \
	{.key = (k), .type = VF_DOUBLE, FLD(st, m), .dmin = (lo), .dmax = (hi), .ddef = (d),       \
		__VA_ARGS__}
#define F_STRING(k, st, m, d) {.key = (k), .type = VF_STRING, FLD(st, m), .sdef = (d)}
#define F_BOOL(k, st, m, d)  {.key = (k), .type = VF_BOOL, FLD(st, m), .def = (d)}
#define F_ENUM(k, st, m, nm, d, ...)                                                               \
	{.key = (k), .type = VF_ENUM, FLD(st, m), .names = (nm), .def = (d), __VA_ARGS__}
#define F_MAC(k, st, m, set)                                                                       \
	{.key = (k), .type = VF_MAC, FLD(st, m), .flags = VF_HAS_SET,                              \
		.set_off = offsetof(st, set)}
#define F_MAP(k, st, m, mp)  {.key = (k), .type = VF_MAP, FLD(st, m), .map = (mp)}
#define F_FUNC(k, p, d, ...) {.key = (k), .type = VF_FUNC, .parse = (p), .dump = (d), __VA_ARGS__}
/* clang-format on */

static const char *const role_names[] = {"tor", "spine", NULL};
static const char *const port_role_names[] = {"host", "fabric", NULL};
static const char *const lb_names[] = {"ecmp", "conweave", "seqbalance", "caver", "spray", NULL};
/* Same order as enum rtr_lb_mode and rtr_lb_names[]; the unit test checks names. */
_Static_assert(RTR_ARRAY_SIZE(lb_names) == RTR_LB_MAX + 1, "lb_names out of step with rtr_lb_mode");
static const char *const trust_names[] = {"dscp", "pcp", NULL};           /* trust_pcp */
static const char *const trim_lengths_names[] = {"keep", "update", NULL}; /* trim_update_lengths */
/* Same order as enum rtr_pfc_mode and rtr_pfc_mode_names[]; the unit test checks names. */
static const char *const pfc_mode_names[] = {"off", "software", "nic", NULL};
_Static_assert(RTR_ARRAY_SIZE(pfc_mode_names) == RTR_PFC_NIC + 2,
		"pfc_mode_names out of step with rtr_pfc_mode");

static int validate_map(struct vctx *c, const struct cfg_node *node, int line,
		const struct cfg_path *path, const struct vmap *m, void *base);
static void dump_fields(struct cfg_buf *b, const struct vmap *m, const void *base, int indent,
		bool list_item);
static void dump_flow(struct cfg_buf *b, const struct vmap *m, const void *base);

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

static int
expect(struct vctx *c, const struct cfg_node *v, const struct cfg_path *path, const char *what)
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
range_text(char *buf, size_t len, const struct vfield *f)
{
	if (f->flags & VF_POW2)
		snprintf(buf, len, "a power of two in %" PRIu64 "..%" PRIu64, f->min, f->max);
	else if (f->flags & VF_ZERO_OK)
		snprintf(buf, len, "0 or %" PRIu64 "..%" PRIu64, f->min, f->max);
	else
		snprintf(buf, len, "%" PRIu64 "..%" PRIu64, f->min, f->max);
}

static int
range_error(struct vctx *c, const struct cfg_node *v, const struct cfg_path *path,
		const char *range, const struct vfield *f)
{
	if (f->why != NULL)
		return cfg_error(c->e, v->line, path, "must be %s (%s), got %s", range, f->why,
				v->text);
	return cfg_error(c->e, v->line, path, "must be %s, got %s", range, v->text);
}

static int
get_uint(struct vctx *c, const struct cfg_node *v, const struct cfg_path *path,
		const struct vfield *f, uint64_t *out)
{
	char range[80];
	uint64_t mag;
	bool neg;

	if (!is_intish(v))
		return expect(c, v, path, "an integer");
	range_text(range, sizeof(range), f);
	if (parse_int_text(v->text, &neg, &mag) < 0 || neg)
		return range_error(c, v, path, range, f);
	if (mag == 0 && (f->flags & VF_ZERO_OK)) {
		*out = 0;
		return 0;
	}
	if (mag < f->min || mag > f->max || ((f->flags & VF_POW2) && (mag & (mag - 1)) != 0))
		return range_error(c, v, path, range, f);
	*out = mag;
	return 0;
}

static int
get_double(struct vctx *c, const struct cfg_node *v, const struct cfg_path *path,
		const struct vfield *f, double *out)
{
	enum cfg_plain pc;
	char range[80];
	uint64_t mag;
	double d;
	char *end;
	bool neg;

	if (v->type != CFG_SCALAR)
		return expect(c, v, path, "a number");
	if (v->kind == CFG_PLAIN) {
		pc = cfg_plain_class(v->text);
		if (pc != CFG_PLAIN_INT && pc != CFG_PLAIN_FLOAT)
			return expect(c, v, path, "a number");
	} else if (v->kind != CFG_INT && v->kind != CFG_FLOAT) {
		return expect(c, v, path, "a number");
	}
	if (f->flags & VF_MIN_EXCL)
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
			return expect(c, v, path, "a number");
	}
	if (!isfinite(d) || d < f->dmin || d > f->dmax ||
			((f->flags & VF_MIN_EXCL) && d <= f->dmin))
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
get_bool(struct vctx *c, const struct cfg_node *v, const struct cfg_path *path, bool *out)
{
	static const char *const yes[] = {
			"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", NULL};
	const char *const *w;

	if (!is_boolish(v))
		return expect(c, v, path, "a boolean (true or false)");
	*out = false;
	for (w = yes; *w != NULL; w++)
		if (strcmp(v->text, *w) == 0)
			*out = true;
	return 0;
}

static int
get_string(struct vctx *c, const struct cfg_node *v, const struct cfg_path *path, const char **out)
{
	*out = "";
	if (!is_stringish(v))
		return expect(c, v, path, "a string");
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
get_mac(struct vctx *c, const struct cfg_node *v, const struct cfg_path *path, uint8_t mac[6])
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
static int
get_addr(struct vctx *c, const struct cfg_node *v, const struct cfg_path *path, bool want_len,
		struct rtr_addr *a)
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

static uint64_t
load_uint(const void *p, size_t size)
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

static const struct vfield *
find_field(const struct vmap *m, const char *key)
{
	unsigned int i;

	for (i = 0; i < m->n_fields; i++)
		if (strcmp(m->fields[i].key, key) == 0)
			return &m->fields[i];
	return NULL;
}

static int
set_field(struct vctx *c, const struct vfield *f, const struct cfg_node *v, int line,
		const struct cfg_path *path, void *base)
{
	char *p = (char *)base + f->off;
	char names[128];
	const char *s;
	uint64_t u;
	double d;
	bool b;
	int i;

	if (v != NULL && (f->flags & VF_HAS_SET))
		*(bool *)((char *)base + f->set_off) = true;
	switch (f->type) {
	case VF_UINT:
		u = f->def;
		if (v != NULL && get_uint(c, v, path, f, &u) < 0)
			return -1;
		store_uint(p, f->size, u);
		return 0;
	case VF_DOUBLE:
		d = f->ddef;
		if (v != NULL && get_double(c, v, path, f, &d) < 0)
			return -1;
		memcpy(p, &d, sizeof(d));
		return 0;
	case VF_BOOL:
		b = f->def != 0;
		if (v != NULL && get_bool(c, v, path, &b) < 0)
			return -1;
		memcpy(p, &b, sizeof(b));
		return 0;
	case VF_STRING:
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
	case VF_ENUM:
		i = (int)f->def;
		if (v != NULL) {
			if (get_string(c, v, path, &s) < 0)
				return -1;
			for (i = 0; f->names[i] != NULL; i++)
				if (strcmp(f->names[i], s) == 0)
					break;
			if (f->names[i] == NULL) {
				format_names(names, sizeof(names), f->names);
				return cfg_error(c->e, v->line, path, "must be %s, got \"%s\"",
						names, s);
			}
		}
		store_uint(p, f->size, (uint64_t)i);
		return 0;
	case VF_MAC:
		if (v != NULL)
			return get_mac(c, v, path, (uint8_t *)p);
		return 0;
	case VF_MAP:
		return validate_map(c, v, line, path, f->map, p);
	case VF_FUNC:
		return f->parse(c, v, line, path, p);
	}
	return 0;
}

static int
validate_map(struct vctx *c, const struct cfg_node *node, int line, const struct cfg_path *path,
		const struct vmap *m, void *base)
{
	struct cfg_path kpath = {path, NULL, 0};
	const struct cfg_node *ch, *v;
	const struct vfield *f;
	unsigned int i;

	if (node != NULL) {
		if (node->type != CFG_MAP)
			return expect(c, node, path, "a map");
		for (ch = node->child; ch != NULL; ch = ch->next) {
			if (find_field(m, ch->key) == NULL) {
				kpath.key = ch->key;
				return cfg_error(c->e, ch->key_line, &kpath, "unknown key");
			}
		}
		line = node->line;
	}
	for (i = 0; i < m->n_fields; i++) {
		f = &m->fields[i];
		kpath.key = f->key;
		v = cfg_map_get(node, f->key);
		if (v == NULL && (f->flags & VF_REQUIRED))
			return cfg_error(c->e, line, &kpath, "required key missing");
		if (v == NULL && m->inherit && f->type != VF_MAP)
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
static int
rule_line(const struct cfg_node *node, int line, const char *key, const char *o1, const char *o2)
{
	const struct cfg_node *v = cfg_map_get(node, key);

	if (v == NULL && o1 != NULL)
		v = cfg_map_get(node, o1);
	if (v == NULL && o2 != NULL)
		v = cfg_map_get(node, o2);
	return v != NULL ? v->line : line;
}

static int
list_check(struct vctx *c, const struct cfg_node *v, const struct cfg_path *path, unsigned int min,
		unsigned int max)
{
	if (v->type != CFG_LIST)
		return expect(c, v, path, "a list");
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

static void
dump_addr(struct cfg_buf *b, const struct rtr_addr *a, bool with_len)
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
field_is_set(const struct vfield *f, const void *base)
{
	bool set;

	if (!(f->flags & VF_HAS_SET))
		return true;
	memcpy(&set, (const char *)base + f->set_off, sizeof(set));
	return set;
}

/* A default outside the range a file may give (shape_gbps 0), or one a key
 * may not be given with everywhere (flow limits on fabric ports), is left
 * out. */
static bool
omit_default(const struct vfield *f, const void *base)
{
	double d;

	if (!(f->flags & VF_OMIT_DEF))
		return false;
	if (f->type == VF_UINT)
		return load_uint((const char *)base + f->off, f->size) == f->def;
	if (f->type == VF_BOOL) {
		bool v;

		memcpy(&v, (const char *)base + f->off, sizeof(v));
		return v == (f->def != 0);
	}
	if (f->type != VF_DOUBLE)
		return false;
	memcpy(&d, (const char *)base + f->off, sizeof(d));
	return d == f->ddef;
}

static void
dump_scalar(struct cfg_buf *b, const struct vfield *f, const void *base)
{
	const char *p = (const char *)base + f->off;
	const uint8_t *mac;
	const char *s;
	double d;
	bool v;
	int i;

	switch (f->type) {
	case VF_UINT:
		cfg_buf_printf(b, "%" PRIu64, load_uint(p, f->size));
		break;
	case VF_DOUBLE:
		memcpy(&d, p, sizeof(d));
		dump_double(b, d);
		break;
	case VF_BOOL:
		memcpy(&v, p, sizeof(v));
		cfg_buf_printf(b, "%s", v ? "true" : "false");
		break;
	case VF_STRING:
		/* Validated as printable ASCII; only quote and backslash need escaping. */
		cfg_buf_printf(b, "\"");
		for (s = p; *s != '\0'; s++)
			cfg_buf_printf(b, "%s%c", (*s == '"' || *s == '\\') ? "\\" : "", *s);
		cfg_buf_printf(b, "\"");
		break;
	case VF_ENUM:
		/* Quoted when another YAML reader would not take it as a string (off). */
		i = (int)load_uint(p, f->size);
		if (cfg_plain_class(f->names[i]) == CFG_PLAIN_STRING)
			cfg_buf_printf(b, "%s", f->names[i]);
		else
			cfg_buf_printf(b, "\"%s\"", f->names[i]);
		break;
	case VF_MAC:
		mac = (const uint8_t *)p;
		cfg_buf_printf(b, "\"%02x:%02x:%02x:%02x:%02x:%02x\"", mac[0], mac[1], mac[2],
				mac[3], mac[4], mac[5]);
		break;
	case VF_MAP:
	case VF_FUNC:
		break;
	}
}

static void
dump_fields(struct cfg_buf *b, const struct vmap *m, const void *base, int indent, bool list_item)
{
	const struct vfield *f;
	unsigned int i;

	for (i = 0; i < m->n_fields; i++) {
		f = &m->fields[i];
		if (f->type == VF_FUNC) {
			if (f->dump != NULL)
				f->dump(b, f, (const char *)base + f->off, indent);
			continue;
		}
		if (omit_default(f, base))
			continue;
		if (!field_is_set(f, base)) {
			if (f->flags & VF_SHOW_DEF) {
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
		if (f->type == VF_MAP) {
			cfg_buf_printf(b, "\n");
			dump_fields(b, f->map, (const char *)base + f->off, indent + 2, false);
			continue;
		}
		cfg_buf_printf(b, " ");
		dump_scalar(b, f, base);
		cfg_buf_printf(b, "\n");
	}
}

/* {key: value, ...} on one line, nested maps too; skip names a key to leave out. */
static void
dump_flow_skip(struct cfg_buf *b, const struct vmap *m, const void *base, const char *skip)
{
	const struct vfield *f;
	unsigned int i;
	bool first = true;
	size_t pos;

	cfg_buf_printf(b, "{");
	for (i = 0; i < m->n_fields; i++) {
		f = &m->fields[i];
		if (skip != NULL && strcmp(f->key, skip) == 0)
			continue;
		if (f->type == VF_FUNC) {
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
		if (f->type == VF_MAP)
			dump_flow_skip(b, f->map, (const char *)base + f->off, NULL);
		else
			dump_scalar(b, f, base);
		first = false;
	}
	cfg_buf_printf(b, "}");
}

static void
dump_flow(struct cfg_buf *b, const struct vmap *m, const void *base)
{
	dump_flow_skip(b, m, base, NULL);
}

/* ---- switch ------------------------------------------------------------ */

static int
switch_check(struct vctx *c, const struct cfg_node *node, int line, const struct cfg_path *path,
		void *base)
{
	struct rtr_switch_cfg *sw = base;

	(void)c;
	(void)node;
	(void)line;
	(void)path;
	/* Fibonacci hashing of the id: distinct ids give well-spread seeds. */
	if (!sw->seed_set)
		sw->seed = (uint32_t)((uint64_t)sw->id * 2654435761u);
	return 0;
}

static const struct vfield switch_fields[] = {
		F_STRING("name", struct rtr_switch_cfg, name, "rocetor"),
		F_ENUM("role", struct rtr_switch_cfg, role, role_names, RTR_ROLE_TOR),
		F_UINT("id", struct rtr_switch_cfg, id, 1, 65535, 1),
		F_ENUM("lb", struct rtr_switch_cfg, lb, lb_names, RTR_LB_ECMP),
		F_UINT("seed", struct rtr_switch_cfg, seed, 0, UINT32_MAX, 0,
				.flags = VF_HAS_SET | VF_SHOW_DEF,
				.note = "not set: derived from id",
				.set_off = offsetof(struct rtr_switch_cfg, seed_set)),
		F_UINT("idle_sleep_us", struct rtr_switch_cfg, idle_sleep_us, 0, 100000, 0),
		F_UINT("idle_threshold", struct rtr_switch_cfg, idle_threshold, 1, 1000000000,
				1000),
		F_UINT("neigh_timeout_s", struct rtr_switch_cfg, neigh_timeout_s, 1, 86400, 60),
		F_UINT("mbufs", struct rtr_switch_cfg, mbufs, 1024, 16777216, 0,
				.flags = VF_ZERO_OK),
		F_UINT("drain_us", struct rtr_switch_cfg, drain_us, 1, 10000, 100),
		F_UINT("handoff_ring", struct rtr_switch_cfg, handoff_ring, 1, 65536, 4096),
};
static const struct vmap switch_map = {switch_fields, RTR_ARRAY_SIZE(switch_fields), switch_check};

/* ---- ports ------------------------------------------------------------- */

static int
port_ip_parse(struct vctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path epath = {path, NULL, 0};
	struct rtr_port_cfg *p = base;
	const struct cfg_node *e;

	(void)line;
	p->n_addrs = 0;
	if (v == NULL)
		return 0;
	if (v->type == CFG_SCALAR) {
		if (get_addr(c, v, path, true, &p->addrs[0]) < 0)
			return -1;
		p->n_addrs = 1;
		return 0;
	}
	if (v->type != CFG_LIST)
		return expect(c, v, path, "a string or a list of strings");
	if (list_check(c, v, path, 1, RTR_MAX_PORT_ADDRS) < 0)
		return -1;
	for (e = v->child; e != NULL; e = e->next) {
		epath.index = p->n_addrs;
		if (get_addr(c, e, &epath, true, &p->addrs[p->n_addrs]) < 0)
			return -1;
		p->n_addrs++;
	}
	return 0;
}

static void
port_ip_dump(struct cfg_buf *b, const struct vfield *f, const void *base, int indent)
{
	const struct rtr_port_cfg *p = base;
	unsigned int i;

	if (p->n_addrs == 0)
		return;
	cfg_buf_printf(b, "%*s%s: [", indent, "", f->key);
	for (i = 0; i < p->n_addrs; i++) {
		cfg_buf_printf(b, "%s", i == 0 ? "" : ", ");
		dump_addr(b, &p->addrs[i], true);
	}
	cfg_buf_printf(b, "]\n");
}

static const struct vfield port_fields[] = {
		F_UINT("port", struct rtr_port_cfg, port, 0, RTR_MAX_PORTS - 1, 0,
				.flags = VF_REQUIRED),
		F_ENUM("role", struct rtr_port_cfg, role, port_role_names, RTR_PORT_HOST,
				.flags = VF_REQUIRED),
		F_MAC("mac", struct rtr_port_cfg, mac, mac_set),
		F_UINT("speed_gbps", struct rtr_port_cfg, speed_gbps, 0, 1600, 0),
		F_DOUBLE("shape_gbps", struct rtr_port_cfg, shape_gbps, 0, 1600, 0,
				.flags = VF_MIN_EXCL | VF_OMIT_DEF),
		F_UINT("shape_burst_kb", struct rtr_port_cfg, shape_burst_kb, 1, 65536, 16),
		F_UINT("delay_us", struct rtr_port_cfg, delay_us, 0, 1000000, 0),
		F_DOUBLE("loss", struct rtr_port_cfg, loss, 0, 1, 0),
		F_UINT("loss_seed", struct rtr_port_cfg, loss_seed, 0, UINT64_MAX, 1),
		F_BOOL("admin_down", struct rtr_port_cfg, admin_down, false),
		F_UINT("rx_queues", struct rtr_port_cfg, rx_queues, 0, 64, 0),
		F_UINT("tx_queues", struct rtr_port_cfg, tx_queues, 0, 64, 0),
		F_UINT("mtu", struct rtr_port_cfg, mtu, 68, 9600, 0, .flags = VF_ZERO_OK),
		F_BOOL("l2_filter", struct rtr_port_cfg, l2_filter, true),
		F_FUNC("ip", port_ip_parse, port_ip_dump),
		F_UINT("flow_rate", struct rtr_port_cfg, flow_rate, 0, 100000000, 0,
				.flags = VF_OMIT_DEF),
		F_UINT("flow_burst", struct rtr_port_cfg, flow_burst, 1, 100000000, 64,
				.flags = VF_OMIT_DEF),
		F_DOUBLE("flow_share", struct rtr_port_cfg, flow_share, 0, 1, 0,
				.flags = VF_OMIT_DEF),
		{.key = "source_check", .type = VF_BOOL, FLD(struct rtr_port_cfg, source_check),
				.def = false, .flags = VF_OMIT_DEF},
};
static const struct vmap port_map = {port_fields, RTR_ARRAY_SIZE(port_fields), NULL};

static int
ports_parse(struct vctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path epath = {path, NULL, 0}, ppath = {&epath, "port", 0};
	struct rtr_config *cfg = base;
	const struct cfg_node *e;
	struct rtr_port_cfg *p;
	unsigned int i;

	(void)line;
	if (list_check(c, v, path, 1, RTR_MAX_PORTS) < 0)
		return -1;
	for (e = v->child; e != NULL; e = e->next) {
		epath.index = cfg->n_ports;
		p = &cfg->ports[cfg->n_ports];
		if (validate_map(c, e, e->line, &epath, &port_map, p) < 0)
			return -1;
		p->line = e->line;
		/* A spine routes between switches (the switch map is read
		 * first): a host port there would get no LB treatment. */
		if (cfg->sw.role == RTR_ROLE_SPINE && p->role == RTR_PORT_HOST) {
			struct cfg_path rpath = {&epath, "role", 0};
			const struct cfg_node *rv = cfg_map_get(e, "role");

			return cfg_error(c->e, rv != NULL ? rv->line : e->line, &rpath,
					"a spine (switch.role: spine) has fabric ports only, "
					"got host");
		}
		/* Only host ports create source-side flow entries: a limit
		 * on a fabric port would do nothing, silently. */
		if (p->role == RTR_PORT_FABRIC) {
			static const char *const host_only[] = {"flow_rate", "flow_burst",
				"flow_share", "source_check"};

			for (i = 0; i < RTR_ARRAY_SIZE(host_only); i++) {
				const struct cfg_node *hv = cfg_map_get(e, host_only[i]);
				struct cfg_path hpath = {&epath, host_only[i], 0};

				if (hv != NULL)
					return cfg_error(c->e, hv->line, &hpath,
							"host ports only "
							"(this port is fabric)");
			}
		}
		for (i = 0; i < cfg->n_ports; i++)
			if (cfg->ports[i].port == p->port)
				return cfg_error(c->e, cfg_map_get(e, "port")->line, &ppath,
						"duplicate port %u (first at line %d)", p->port,
						cfg->ports[i].line);
		cfg->n_ports++;
	}
	return 0;
}

static void
ports_dump(struct cfg_buf *b, const struct vfield *f, const void *base, int indent)
{
	const struct rtr_config *cfg = base;
	unsigned int i;

	cfg_buf_printf(b, "%*s%s:\n", indent, "", f->key);
	for (i = 0; i < cfg->n_ports; i++)
		dump_fields(b, &port_map, &cfg->ports[i], indent + 4, true);
}

/* ---- routes ------------------------------------------------------------ */

static int
nexthop_ip_parse(struct vctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct rtr_nexthop_cfg *nh = base;

	(void)line;
	memset(&nh->ip, 0, sizeof(nh->ip));
	if (v == NULL)
		return 0;
	return get_addr(c, v, path, false, &nh->ip);
}

static void
nexthop_ip_dump(struct cfg_buf *b, const struct vfield *f, const void *base, int indent)
{
	const struct rtr_nexthop_cfg *nh = base;

	if (nh->ip.family == 0)
		return;
	/* indent < 0: inside a flow map, which always has port before. */
	if (indent < 0)
		cfg_buf_printf(b, ", %s: ", f->key);
	else
		cfg_buf_printf(b, "%*s%s: ", indent, "", f->key);
	dump_addr(b, &nh->ip, false);
	if (indent >= 0)
		cfg_buf_printf(b, "\n");
}

static const struct vfield nexthop_fields[] = {
		F_UINT("port", struct rtr_nexthop_cfg, port, 0, RTR_MAX_PORTS - 1, 0,
				.flags = VF_REQUIRED),
		F_MAC("nexthop_mac", struct rtr_nexthop_cfg, mac, mac_set),
		F_FUNC("nexthop", nexthop_ip_parse, nexthop_ip_dump),
};
static const struct vmap nexthop_map = {nexthop_fields, RTR_ARRAY_SIZE(nexthop_fields), NULL};

static int
prefix_parse(struct vctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct rtr_route_cfg *r = base;
	const uint8_t *bytes;
	unsigned int i, nbytes;

	(void)line;
	if (get_addr(c, v, path, true, &r->prefix) < 0)
		return -1;
	bytes = r->prefix.family == AF_INET ? (const uint8_t *)&r->prefix.v4
					    : (const uint8_t *)&r->prefix.v6;
	nbytes = r->prefix.family == AF_INET ? 4 : 16;
	for (i = r->prefix.depth; i < nbytes * 8; i++)
		if (bytes[i / 8] & (0x80 >> (i % 8)))
			return cfg_error(c->e, v->line, path,
					"host bits set in \"%s\" (beyond /%u)", v->text,
					r->prefix.depth);
	return 0;
}

static int
paths_parse(struct vctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path epath = {path, NULL, 0};
	struct rtr_route_cfg *r = base;
	const struct cfg_node *e;

	(void)line;
	if (v == NULL)
		return 0;
	if (list_check(c, v, path, 1, RTR_MAX_PATHS) < 0)
		return -1;
	r->n_paths = 0;
	for (e = v->child; e != NULL; e = e->next) {
		epath.index = r->n_paths;
		if (validate_map(c, e, e->line, &epath, &nexthop_map, &r->paths[r->n_paths]) < 0)
			return -1;
		r->paths[r->n_paths].line = e->line;
		r->n_paths++;
	}
	r->is_group = true;
	return 0;
}

static const struct vfield route_fields[] = {
		F_FUNC("prefix", prefix_parse, NULL, .flags = VF_REQUIRED),
		/* A single next hop is written inline and stored as paths[0]. */
		F_UINT("port", struct rtr_route_cfg, paths[0].port, 0, RTR_MAX_PORTS - 1, 0),
		F_MAC("nexthop_mac", struct rtr_route_cfg, paths[0].mac, paths[0].mac_set),
		{.key = "nexthop",
				.type = VF_FUNC,
				.parse = nexthop_ip_parse,
				.off = offsetof(struct rtr_route_cfg, paths[0])},
		F_FUNC("paths", paths_parse, NULL),
};

static const char *
family_name(int family)
{
	return family == AF_INET ? "IPv4" : "IPv6";
}

static bool
addr_equal(const struct rtr_addr *a, const struct rtr_addr *b)
{
	if (a->family != b->family || a->depth != b->depth)
		return false;
	if (a->family == AF_INET)
		return a->v4.s_addr == b->v4.s_addr;
	return memcmp(&a->v6, &b->v6, sizeof(a->v6)) == 0;
}

static int
route_nexthop_check(struct vctx *c, struct rtr_route_cfg *r, unsigned int i,
		const struct cfg_node *node, const struct cfg_path *path)
{
	struct cfg_path port_path = {path, "port", 0}, nh_path = {path, "nexthop", 0};
	const struct rtr_port_cfg *port, *first;
	struct rtr_nexthop_cfg *nh = &r->paths[i];
	const struct cfg_node *pv = cfg_map_get(node, "port");
	const struct cfg_node *nv = cfg_map_get(node, "nexthop");
	unsigned int a;

	port = rtr_config_port(c->cfg, nh->port);
	if (port == NULL)
		return cfg_error(c->e, pv->line, &port_path, "port %u is not in ports", nh->port);
	if (i > 0) {
		first = rtr_config_port(c->cfg, r->paths[0].port);
		if (first->role != port->role)
			return cfg_error(c->e, pv->line, &port_path,
					"paths mix host and fabric ports (port %u is %s, port %u "
					"is %s)",
					r->paths[0].port, port_role_names[first->role], nh->port,
					port_role_names[port->role]);
	}
	if (nv != NULL && nh->ip.family != r->prefix.family)
		return cfg_error(c->e, nv->line, &nh_path, "nexthop %s is %s but the prefix is %s",
				nv->text, family_name(nh->ip.family),
				family_name(r->prefix.family));
	if (nh->mac_set)
		return 0;
	if (nv == NULL) {
		/* A host route on one port is its own next hop. */
		if (!r->is_group && r->prefix.depth == (r->prefix.family == AF_INET ? 32 : 128)) {
			nh->ip = r->prefix;
		} else {
			return cfg_error(c->e, node->line, path, "nexthop_mac or nexthop required");
		}
	}
	for (a = 0; a < port->n_addrs; a++)
		if (port->addrs[a].family == nh->ip.family)
			return 0;
	return cfg_error(c->e, pv->line, &port_path,
			"port %u has no %s address to resolve nexthop from", nh->port,
			family_name(nh->ip.family));
}

static int
route_check(struct vctx *c, const struct cfg_node *node, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path kpath = {path, NULL, 0}, epath = {NULL, NULL, 0};
	const struct cfg_node *pv = cfg_map_get(node, "port");
	const struct cfg_node *gv = cfg_map_get(node, "paths");
	const struct cfg_node *v, *e;
	struct rtr_route_cfg *r = base;
	unsigned int i;

	if (pv != NULL && gv != NULL)
		return cfg_error(c->e, line, path, "give either port or paths, not both");
	if (pv == NULL && gv == NULL)
		return cfg_error(c->e, line, path, "port or paths required");
	if (gv != NULL) {
		kpath.key = "nexthop_mac";
		v = cfg_map_get(node, kpath.key);
		if (v == NULL) {
			kpath.key = "nexthop";
			v = cfg_map_get(node, kpath.key);
		}
		if (v != NULL)
			return cfg_error(c->e, v->key_line, &kpath,
					"not allowed with paths (give it in each path)");
	}
	for (i = 0; i < c->cfg->n_routes; i++) {
		if (addr_equal(&c->cfg->routes[i].prefix, &r->prefix)) {
			kpath.key = "prefix";
			return cfg_error(c->e, cfg_map_get(node, "prefix")->line, &kpath,
					"duplicate prefix %s (first at line %d)",
					cfg_map_get(node, "prefix")->text, c->cfg->routes[i].line);
		}
	}
	if (gv == NULL) {
		r->is_group = false;
		r->n_paths = 1;
		r->paths[0].line = line;
		return route_nexthop_check(c, r, 0, node, path);
	}
	kpath.key = "paths";
	epath.up = &kpath;
	for (i = 0, e = gv->child; e != NULL; i++, e = e->next) {
		epath.index = i;
		if (route_nexthop_check(c, r, i, e, &epath) < 0)
			return -1;
	}
	return 0;
}

static const struct vmap route_map = {route_fields, RTR_ARRAY_SIZE(route_fields), route_check};

static int
routes_parse(struct vctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path epath = {path, NULL, 0};
	struct rtr_config *cfg = base;
	const struct cfg_node *e;
	struct rtr_route_cfg *r;

	(void)line;
	cfg->n_routes = 0;
	if (v == NULL)
		return 0;
	if (list_check(c, v, path, 0, RTR_MAX_ROUTES) < 0)
		return -1;
	if (v->n_child == 0)
		return 0;
	/* calloc: padding stays zero, so configs compare with memcmp. */
	cfg->routes = calloc(v->n_child, sizeof(*cfg->routes));
	if (cfg->routes == NULL)
		return cfg_error(c->e, v->line, path, "out of memory");
	for (e = v->child; e != NULL; e = e->next) {
		epath.index = cfg->n_routes;
		r = &cfg->routes[cfg->n_routes];
		r->line = e->line;
		if (validate_map(c, e, e->line, &epath, &route_map, r) < 0)
			return -1;
		cfg->n_routes++;
	}
	return 0;
}

static void
routes_dump(struct cfg_buf *b, const struct vfield *f, const void *base, int indent)
{
	const struct rtr_config *cfg = base;
	const struct rtr_route_cfg *r;
	unsigned int i, j;

	if (cfg->n_routes == 0) {
		cfg_buf_printf(b, "%*s%s: []\n", indent, "", f->key);
		return;
	}
	cfg_buf_printf(b, "%*s%s:\n", indent, "", f->key);
	for (i = 0; i < cfg->n_routes; i++) {
		r = &cfg->routes[i];
		cfg_buf_printf(b, "%*s- prefix: ", indent + 2, "");
		dump_addr(b, &r->prefix, true);
		cfg_buf_printf(b, "\n");
		if (!r->is_group) {
			dump_fields(b, &nexthop_map, &r->paths[0], indent + 4, false);
			continue;
		}
		cfg_buf_printf(b, "%*spaths:\n", indent + 4, "");
		for (j = 0; j < r->n_paths; j++) {
			cfg_buf_printf(b, "%*s- ", indent + 6, "");
			dump_flow(b, &nexthop_map, &r->paths[j]);
			cfg_buf_printf(b, "\n");
		}
	}
}

/* ---- qos --------------------------------------------------------------- */

/* A class number beyond qos.classes (which comes first in the table). */
static int
class_range_error(struct vctx *c, int line, const struct cfg_path *path, unsigned int got)
{
	unsigned int classes = c->cfg->qos.classes;

	return cfg_error(c->e, line, path, "must be 0..%u (qos.classes is %u), got %u",
			classes - 1u, classes, got);
}

static const struct vfield dscp_fields[] = {
		F_UINT("dscp", struct rtr_dscp_map, dscp, 0, 63, 0, .flags = VF_REQUIRED),
		F_UINT("class", struct rtr_dscp_map, class, 0, RTR_MAX_CLASSES - 1, 0,
				.flags = VF_REQUIRED),
};
static const struct vmap dscp_map = {dscp_fields, RTR_ARRAY_SIZE(dscp_fields), NULL};

/* 802.1p PCP to class, for tagged frames when trust is pcp. */
static const struct vfield pcp_fields[] = {
		F_UINT("pcp", struct rtr_pcp_map, pcp, 0, 7, 0, .flags = VF_REQUIRED),
		F_UINT("class", struct rtr_pcp_map, class, 0, RTR_MAX_CLASSES - 1, 0,
				.flags = VF_REQUIRED),
};
static const struct vmap pcp_map = {pcp_fields, RTR_ARRAY_SIZE(pcp_fields), NULL};

/*
 * qos.dscp and qos.pcp: lists of {<key>: n, class: c} entries, each key value
 * given once. The entry map has that key first and "class" second; the
 * offsets say where the count and the entries sit in struct rtr_qos_cfg.
 */
struct class_list {
	const char *key; /* in qos, and of the entry's first field */
	const struct vmap *map;
	size_t n_off;     /* unsigned int: entries used */
	size_t arr_off;   /* the entries */
	size_t size;      /* of one entry */
	unsigned int max; /* entries there is room for */
};

/* clang-format off */
#define CLASS_LIST(arr)                                                                            \
	{#arr, &arr##_map, offsetof(struct rtr_qos_cfg, n_##arr),                                  \
		offsetof(struct rtr_qos_cfg, arr), sizeof(((struct rtr_qos_cfg *)NULL)->arr[0]),   \
		RTR_ARRAY_SIZE(((struct rtr_qos_cfg *)NULL)->arr)}
/* clang-format on */

static const struct class_list class_lists[] = {CLASS_LIST(dscp), CLASS_LIST(pcp)};
_Static_assert(RTR_ARRAY_SIZE(((struct rtr_qos_cfg *)NULL)->dscp) == RTR_MAX_DSCP_MAP,
		"qos.dscp holds RTR_MAX_DSCP_MAP entries");

/* The list of a qos key (only these keys use class_list_parse and _dump). */
static const struct class_list *
class_list_of(const char *key)
{
	unsigned int i;

	for (i = 0; i < RTR_ARRAY_SIZE(class_lists) - 1u; i++)
		if (strcmp(class_lists[i].key, key) == 0)
			break;
	return &class_lists[i];
}

static int
class_list_parse(struct vctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path epath = {path, NULL, 0}, kpath = {&epath, NULL, 0};
	const struct class_list *l = class_list_of(path->key);
	const struct vfield *kf = &l->map->fields[0], *cf = &l->map->fields[1];
	struct rtr_qos_cfg *q = base;
	unsigned int *n = (void *)((char *)q + l->n_off);
	char *arr = (char *)q + l->arr_off, *d;
	const struct cfg_node *e;
	unsigned int i, key, class;

	(void)line;
	*n = 0;
	if (v == NULL)
		return 0;
	if (list_check(c, v, path, 0, l->max) < 0)
		return -1;
	for (e = v->child; e != NULL; e = e->next) {
		epath.index = *n;
		d = arr + *n * l->size;
		if (validate_map(c, e, e->line, &epath, l->map, d) < 0)
			return -1;
		key = (unsigned int)load_uint(d + kf->off, kf->size);
		class = (unsigned int)load_uint(d + cf->off, cf->size);
		if (class >= q->classes) {
			kpath.key = cf->key;
			return class_range_error(c, cfg_map_get(e, kpath.key)->line, &kpath, class);
		}
		for (i = 0; i < *n; i++) {
			if (load_uint(arr + i * l->size + kf->off, kf->size) == key) {
				kpath.key = kf->key;
				return cfg_error(c->e, cfg_map_get(e, kpath.key)->line, &kpath,
						"duplicate %s %u", kf->key, key);
			}
		}
		(*n)++;
	}
	return 0;
}

static void
class_list_dump(struct cfg_buf *b, const struct vfield *f, const void *base, int indent)
{
	const struct class_list *l = class_list_of(f->key);
	const unsigned int *n = (const void *)((const char *)base + l->n_off);
	const char *arr = (const char *)base + l->arr_off;
	unsigned int i;

	if (*n == 0) {
		cfg_buf_printf(b, "%*s%s: []\n", indent, "", f->key);
		return;
	}
	cfg_buf_printf(b, "%*s%s:\n", indent, "", f->key);
	for (i = 0; i < *n; i++) {
		cfg_buf_printf(b, "%*s- ", indent + 2, "");
		dump_flow(b, l->map, arr + i * l->size);
		cfg_buf_printf(b, "\n");
	}
}

static int
ecn_check(struct vctx *c, const struct cfg_node *node, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path kpath = {path, "kmin_kb", 0};
	struct rtr_ecn_cfg *ecn = base;

	if (ecn->kmin_kb > ecn->kmax_kb)
		return cfg_error(c->e, rule_line(node, line, "kmin_kb", "kmax_kb", NULL), &kpath,
				"must be <= kmax_kb (%u), got %u", ecn->kmax_kb, ecn->kmin_kb);
	return 0;
}

static const struct vfield ecn_fields[] = {
		F_BOOL("enabled", struct rtr_ecn_cfg, enabled, true),
		F_UINT("kmin_kb", struct rtr_ecn_cfg, kmin_kb, 0, 1048576, 100),
		F_UINT("kmax_kb", struct rtr_ecn_cfg, kmax_kb, 0, 1048576, 400),
		F_DOUBLE("pmax", struct rtr_ecn_cfg, pmax, 0, 1, 0.2),
};
static const struct vmap ecn_map = {ecn_fields, RTR_ARRAY_SIZE(ecn_fields), ecn_check};
/* A class's ecn: the keys it does not give come from qos.ecn. */
static const struct vmap class_ecn_map = {
		ecn_fields, RTR_ARRAY_SIZE(ecn_fields), ecn_check, .inherit = true};

/*
 * One class_params entry while it is read: "class" comes first in the table,
 * checks the number and copies that class's defaults into k; the other keys
 * then override only what they give (the map inherits).
 */
struct class_entry {
	uint8_t class;
	struct rtr_class_cfg k;
};

static const struct vfield class_num_range =
		F_UINT("class", struct class_entry, class, 0, RTR_MAX_CLASSES - 1, 0);

static int
class_num_parse(struct vctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	const struct rtr_qos_cfg *q = &c->cfg->qos;
	struct class_entry *ce = base;
	uint64_t u = 0;

	(void)line;
	if (get_uint(c, v, path, &class_num_range, &u) < 0)
		return -1;
	if (u >= q->classes)
		return class_range_error(c, v->line, path, (unsigned int)u);
	if (q->cls[u].set)
		return cfg_error(c->e, v->line, path, "duplicate class %u (first at line %d)",
				(unsigned int)u, q->cls[u].line);
	ce->class = (uint8_t)u;
	ce->k = q->cls[u];
	return 0;
}

static void
class_num_dump(struct cfg_buf *b, const struct vfield *f, const void *base, int indent)
{
	const struct class_entry *ce = base;

	/* Only dumped as a flow map, where it is always the first key. */
	(void)indent;
	cfg_buf_printf(b, "%s: %u", f->key, ce->class);
}

static int
class_entry_check(struct vctx *c, const struct cfg_node *node, int line,
		const struct cfg_path *path, void *base)
{
	struct cfg_path kpath = {path, "priority", 0};
	const struct cfg_node *pv = cfg_map_get(node, kpath.key);
	const struct class_entry *ce = base;
	unsigned int control = c->cfg->qos.classes - 1u;

	(void)line;
	if (ce->class == control && pv != NULL)
		return cfg_error(c->e, pv->line, &kpath,
				"the control class (%u) is always highest; do not set it", control);
	return 0;
}

/* The table defaults are unused: absent keys keep the class's defaults. */
static const struct vfield class_fields[] = {
		F_FUNC("class", class_num_parse, class_num_dump, .flags = VF_REQUIRED),
		F_UINT("priority", struct class_entry, k.priority, 0, 7, 0),
		F_UINT("weight", struct class_entry, k.weight, 1, 1000, 1),
		F_UINT("queue_kb", struct class_entry, k.queue_kb, 1, 1048576, 2048),
		F_MAP("ecn", struct class_entry, k.ecn, &class_ecn_map),
};
static const struct vmap class_map = {
		class_fields, RTR_ARRAY_SIZE(class_fields), class_entry_check, .inherit = true};

/*
 * Fills qos.cls[] for every class: the defaults (priority = class, weight 1,
 * qos.queue_kb, qos.ecn), then the class_params entries over them. classes,
 * queue_kb and ecn come earlier in the table, so they are final here.
 */
static int
class_params_parse(struct vctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path epath = {path, NULL, 0};
	struct rtr_qos_cfg *q = base;
	const struct cfg_node *e;
	struct rtr_class_cfg *k;
	struct class_entry ce;
	unsigned int i;

	(void)line;
	for (i = 0; i < q->classes; i++) {
		k = &q->cls[i];
		k->priority = (uint8_t)i;
		k->weight = 1;
		k->queue_kb = q->queue_kb;
		k->ecn = q->ecn;
		k->set = false;
		k->line = 0;
	}
	if (v == NULL)
		return 0;
	if (list_check(c, v, path, 0, RTR_MAX_CLASSES) < 0)
		return -1;
	for (i = 0, e = v->child; e != NULL; i++, e = e->next) {
		epath.index = i;
		/* Zeroed: padding copied into cls[] stays zero for memcmp. */
		memset(&ce, 0, sizeof(ce));
		if (validate_map(c, e, e->line, &epath, &class_map, &ce) < 0)
			return -1;
		k = &q->cls[ce.class];
		*k = ce.k;
		k->set = true;
		k->line = e->line;
	}
	return 0;
}

/* Classes given in the file as entries (all keys filled in), the others as
 * comments showing their defaults. The control class has no priority key.
 */
static void
class_params_dump(struct cfg_buf *b, const struct vfield *f, const void *base, int indent)
{
	const struct rtr_qos_cfg *q = base;
	struct class_entry ce;
	unsigned int i, n_set = 0;
	bool control;

	for (i = 0; i < q->classes; i++)
		n_set += q->cls[i].set ? 1 : 0;
	cfg_buf_printf(b, "%*s%s:%s\n", indent, "", f->key, n_set == 0 ? " []" : "");
	for (i = 0; i < q->classes; i++) {
		memset(&ce, 0, sizeof(ce));
		ce.class = (uint8_t)i;
		ce.k = q->cls[i];
		control = i + 1u == q->classes;
		cfg_buf_printf(b, "%*s%s- ", indent + 2, "", ce.k.set ? "" : "# ");
		dump_flow_skip(b, &class_map, &ce, control ? "priority" : NULL);
		if (!ce.k.set)
			cfg_buf_printf(b, " (default%s)",
					control ? "; control class, served first" : "");
		cfg_buf_printf(b, "\n");
	}
}

static const struct vfield trim_dscp_range =
		F_UINT("trim_dscp", struct rtr_qos_cfg, trim_dscp, 0, 63, 0);

static int
trim_dscp_parse(struct vctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct rtr_qos_cfg *q = base;
	uint64_t u = 0;

	(void)line;
	q->trim_dscp = -1;
	if (v == NULL)
		return 0;
	if (get_uint(c, v, path, &trim_dscp_range, &u) < 0)
		return -1;
	q->trim_dscp = (int16_t)u;
	return 0;
}

static void
trim_dscp_dump(struct cfg_buf *b, const struct vfield *f, const void *base, int indent)
{
	const struct rtr_qos_cfg *q = base;

	if (q->trim_dscp < 0)
		cfg_buf_printf(b, "%*s# %s: not set (trimmed packets keep their DSCP)\n", indent,
				"", f->key);
	else
		cfg_buf_printf(b, "%*s%s: %d\n", indent, "", f->key, q->trim_dscp);
}

static const struct vfield pfc_class_range =
		F_UINT("classes", struct rtr_pfc_cfg, class_mask, 0, RTR_MAX_CLASSES - 1, 0);

static int
pfc_classes_parse(struct vctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path epath = {path, NULL, 0};
	struct rtr_pfc_cfg *pfc = base;
	const struct cfg_node *e;
	unsigned int i;
	uint64_t u = 0;

	(void)line;
	pfc->class_mask = 0;
	if (v == NULL)
		return 0;
	if (list_check(c, v, path, 0, RTR_MAX_CLASSES) < 0)
		return -1;
	for (i = 0, e = v->child; e != NULL; i++, e = e->next) {
		epath.index = i;
		if (get_uint(c, e, &epath, &pfc_class_range, &u) < 0)
			return -1;
		if (u >= c->cfg->qos.classes)
			return class_range_error(c, e->line, &epath, (unsigned int)u);
		if (pfc->class_mask & (1u << u))
			return cfg_error(c->e, e->line, &epath, "duplicate class %u",
					(unsigned int)u);
		pfc->class_mask = (uint8_t)(pfc->class_mask | 1u << u);
	}
	return 0;
}

static void
pfc_classes_dump(struct cfg_buf *b, const struct vfield *f, const void *base, int indent)
{
	const struct rtr_pfc_cfg *pfc = base;
	unsigned int i;
	bool first = true;

	cfg_buf_printf(b, "%*s%s: [", indent, "", f->key);
	for (i = 0; i < RTR_MAX_CLASSES; i++) {
		if (!(pfc->class_mask & (1u << i)))
			continue;
		cfg_buf_printf(b, "%s%u", first ? "" : ", ", i);
		first = false;
	}
	cfg_buf_printf(b, "]\n");
}

static int
pfc_check(struct vctx *c, const struct cfg_node *node, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path kpath = {path, "classes", 0};
	struct rtr_pfc_cfg *pfc = base;

	if (pfc->mode != RTR_PFC_OFF && pfc->class_mask == 0)
		return cfg_error(c->e, rule_line(node, line, "classes", "mode", NULL), &kpath,
				"must list at least one class when mode is not off");
	if (pfc->xon_kb >= pfc->xoff_kb) {
		kpath.key = "xon_kb";
		return cfg_error(c->e, rule_line(node, line, "xon_kb", "xoff_kb", NULL), &kpath,
				"must be < xoff_kb (%u), got %u", pfc->xoff_kb, pfc->xon_kb);
	}
	return 0;
}

static const struct vfield pfc_fields[] = {
		F_ENUM("mode", struct rtr_pfc_cfg, mode, pfc_mode_names, RTR_PFC_OFF),
		/* After qos.classes, which the class numbers are checked against. */
		F_FUNC("classes", pfc_classes_parse, pfc_classes_dump),
		F_UINT("xoff_kb", struct rtr_pfc_cfg, xoff_kb, 1, 1048576, 256),
		F_UINT("xon_kb", struct rtr_pfc_cfg, xon_kb, 0, 1048576, 128),
		F_UINT("quanta", struct rtr_pfc_cfg, quanta, 1, 65535, 65535),
};
static const struct vmap pfc_map = {pfc_fields, RTR_ARRAY_SIZE(pfc_fields), pfc_check};

static const struct vfield qos_fields[] = {
		/* classes first: dscp, pcp, class_params and pfc are checked against it. */
		F_UINT("classes", struct rtr_qos_cfg, classes, 1, RTR_MAX_CLASSES, RTR_MAX_CLASSES),
		F_ENUM("trust", struct rtr_qos_cfg, trust_pcp, trust_names, 0),
		F_FUNC("dscp", class_list_parse, class_list_dump),
		F_FUNC("pcp", class_list_parse, class_list_dump),
		F_UINT("queue_kb", struct rtr_qos_cfg, queue_kb, 1, 1048576, 2048),
		F_MAP("ecn", struct rtr_qos_cfg, ecn, &ecn_map),
		/* After queue_kb and ecn: the per-class defaults come from them. */
		F_FUNC("class_params", class_params_parse, class_params_dump),
		F_BOOL("trim", struct rtr_qos_cfg, trim, false),
		F_ENUM("trim_lengths", struct rtr_qos_cfg, trim_update_lengths, trim_lengths_names,
				0),
		F_FUNC("trim_dscp", trim_dscp_parse, trim_dscp_dump),
		F_MAP("pfc", struct rtr_qos_cfg, pfc, &pfc_map),
};
static const struct vmap qos_map = {qos_fields, RTR_ARRAY_SIZE(qos_fields), NULL};

/* ---- LB algorithms (ALGORITHMS.md 2.4, 3, 4) --------------------------- */

/* ConWeave stamps 16-bit timestamps in 1.024 us units: 65.5 ms wrap, and
 * differences are only unambiguous below half of it.
 */
#define CW_US_MAX          31999
#define CW_US_WHY          "below 32000: half the 16-bit timestamp wrap"
#define CW_US(k, m, lo, d) F_UINT(k, struct rtr_conweave_cfg, m, lo, CW_US_MAX, d, .why = CW_US_WHY)

static int
conweave_check(struct vctx *c, const struct cfg_node *node, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path kpath = {path, "theta_inactive_us", 0};
	struct rtr_conweave_cfg *cw = base;
	/* The longest hold, as the DstToR's hold code applies it. */
	uint64_t hold = rtr_cw_bound_hold_ns((uint64_t)cw->resume_default_us * 1000,
					(uint64_t)cw->resume_extra_us * 1000) / 1000;
	uint64_t floor = cw->base_rtt_us + hold;

	/*
	 * An idle flow's new epoch (and its idle move) must not start while
	 * the DstToR may still hold packets of the last one: holds end within
	 * the longest hold of their first packet's arrival (resume_default +
	 * resume_extra), and base_rtt covers the paths' difference in delay.
	 */
	if (cw->theta_inactive_us <= floor)
		return cfg_error(c->e,
				rule_line(node,
						rule_line(node, line, "resume_default_us",
								"base_rtt_us", NULL),
						"theta_inactive_us", "resume_extra_us", NULL),
				&kpath,
				"must exceed base_rtt_us + the longest reorder hold "
				"(resume_default_us + resume_extra_us): %u + %u + %u = %" PRIu64
				", got %u",
				cw->base_rtt_us, cw->resume_default_us, cw->resume_extra_us, floor,
				cw->theta_inactive_us);
	/* The same for a new epoch started because the CLEAR did not come. */
	if (cw->clear_timeout_us != 0 && cw->clear_timeout_us <= floor) {
		kpath.key = "clear_timeout_us";
		return cfg_error(c->e, rule_line(node, line, "clear_timeout_us", NULL, NULL), &kpath,
				"must be 0 (derived) or exceed base_rtt_us + the longest reorder hold "
				"(resume_default_us + resume_extra_us): %u + %u + %u = %" PRIu64
				", got %u",
				cw->base_rtt_us, cw->resume_default_us, cw->resume_extra_us, floor,
				cw->clear_timeout_us);
	}
	/* The switch section is read first. A pool no larger than what the
	 * rings may hold leaves nothing for RX: the NIC would starve. */
	if (cw->hold_budget != 0 && c->cfg->sw.mbufs != 0 && cw->hold_budget >= c->cfg->sw.mbufs) {
		struct cfg_path hpath = {path, "hold_budget", 0};

		return cfg_error(c->e, rule_line(node, line, "hold_budget", NULL, NULL), &hpath,
				"must be below switch.mbufs (%u): the pool also fills the RX rings, "
				"got %u",
				c->cfg->sw.mbufs, cw->hold_budget);
	}
	return 0;
}

static const struct vfield conweave_fields[] = {
		CW_US("base_rtt_us", base_rtt_us, 0, 4),
		CW_US("theta_reply_us", theta_reply_us, 1, 4),
		CW_US("theta_path_busy_us", theta_path_busy_us, 1, 16),
		CW_US("theta_inactive_us", theta_inactive_us, 1, 300),
		CW_US("resume_extra_us", resume_extra_us, 0, 16),
		CW_US("resume_default_us", resume_default_us, 1, 200),
		/* A flow stores its ring's index in 16 bits and 0xffff means
		 * "no ring", so 65535 rings (indices 0..65534) at most. */
		F_UINT("reorder_queues_per_port", struct rtr_conweave_cfg, reorder_queues_per_port,
				1, 65535, 1024),
		F_UINT("reorder_queue_depth", struct rtr_conweave_cfg, reorder_queue_depth, 1,
				65535, 2048),
		F_UINT("flow_table_size", struct rtr_conweave_cfg, flow_table_size, 1024, 16777216,
				1048576),
		F_UINT("dst_prefix_len", struct rtr_conweave_cfg, dst_prefix_len, 0, 32, 24),
		F_UINT("dst_prefix_len6", struct rtr_conweave_cfg, dst_prefix_len6, 0, 128, 64),
		CW_US("clear_timeout_us", clear_timeout_us, 0, 0),
		F_UINT("hold_budget", struct rtr_conweave_cfg, hold_budget, 0, 16777216, 0),
};
static const struct vmap conweave_map = {
		conweave_fields, RTR_ARRAY_SIZE(conweave_fields), conweave_check};

static const struct vfield seqbalance_fields[] = {
		F_UINT("phi_us", struct rtr_seqbalance_cfg, phi_us, 1, 1000000, 32),
		F_UINT("subflow_idle_us", struct rtr_seqbalance_cfg, subflow_idle_us, 1, 10000000,
				1000),
		F_UINT("flow_table_size", struct rtr_seqbalance_cfg, flow_table_size, 1024,
				16777216, 1048576),
		F_UINT("dst_prefix_len", struct rtr_seqbalance_cfg, dst_prefix_len, 0, 32, 24),
		F_UINT("dst_prefix_len6", struct rtr_seqbalance_cfg, dst_prefix_len6, 0, 128, 64),
};
static const struct vmap seqbalance_map = {
		seqbalance_fields, RTR_ARRAY_SIZE(seqbalance_fields), NULL};

static const struct vfield caver_fields[] = {
		F_UINT("dre_period_us", struct rtr_caver_cfg, dre_period_us, 1, 1000000, 50),
		F_DOUBLE("alpha", struct rtr_caver_cfg, alpha, 0, 1, 0.2, .flags = VF_MIN_EXCL),
		F_UINT("q", struct rtr_caver_cfg, q, 1, 16, 8),
		F_UINT("aging_us", struct rtr_caver_cfg, aging_us, 1, 10000000, 500),
		F_UINT("flow_idle_us", struct rtr_caver_cfg, flow_idle_us, 1, 10000000, 1000),
		F_UINT("flow_table_size", struct rtr_caver_cfg, flow_table_size, 1024, 16777216,
				1048576),
};
static const struct vmap caver_map = {caver_fields, RTR_ARRAY_SIZE(caver_fields), NULL};

/* ---- lab impairments of the LB control loop (doc/faults.md) ---------- */

#define CTRL_LOSS(k) F_DOUBLE(#k, struct rtr_ctrl_loss_cfg, k, 0, 1, 0)
static const struct vfield ctrl_loss_fields[] = {
		CTRL_LOSS(rtt_reply),
		CTRL_LOSS(clear),
		CTRL_LOSS(notify),
		CTRL_LOSS(tail),
		CTRL_LOSS(advert),
};
static const struct vmap ctrl_loss_map = {ctrl_loss_fields, RTR_ARRAY_SIZE(ctrl_loss_fields), NULL};

static const struct vfield faults_fields[] = {
		F_UINT("seed", struct rtr_faults_cfg, seed, 0, UINT64_MAX, 1),
		F_MAP("ctrl_loss", struct rtr_faults_cfg, ctrl_loss, &ctrl_loss_map),
};
static const struct vmap faults_map = {faults_fields, RTR_ARRAY_SIZE(faults_fields), NULL};

/* ---- the root ---------------------------------------------------------- */

static const struct vfield root_fields[] = {
		F_MAP("switch", struct rtr_config, sw, &switch_map),
		F_FUNC("ports", ports_parse, ports_dump, .flags = VF_REQUIRED),
		F_FUNC("routes", routes_parse, routes_dump),
		F_MAP("qos", struct rtr_config, qos, &qos_map),
		F_MAP("conweave", struct rtr_config, conweave, &conweave_map),
		F_MAP("seqbalance", struct rtr_config, seqbalance, &seqbalance_map),
		F_MAP("caver", struct rtr_config, caver, &caver_map),
		F_MAP("faults", struct rtr_config, faults, &faults_map),
};
static const struct vmap root_map = {root_fields, RTR_ARRAY_SIZE(root_fields), NULL};

int
cfg_validate(const struct cfg_node *root, struct rtr_config *cfg, const struct cfg_err *e)
{
	static const struct cfg_path root_path = {NULL, "(root)", 0};
	struct vctx c = {e, cfg};

	if (root->type != CFG_MAP)
		return cfg_error(e, root->line, &root_path, "expected a map, got %s",
				cfg_node_describe(root));
	return validate_map(&c, root, root->line, NULL, &root_map, cfg);
}

void
cfg_dump(const struct rtr_config *cfg, struct cfg_buf *b)
{
	dump_fields(b, &root_map, cfg, 0, false);
}
