/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include "rtr_json.h"

/* The length of the valid UTF-8 sequence at s (2..4), or 0 if the bytes
 * there are not one (overlong forms, surrogates and code points above
 * U+10FFFF are not valid UTF-8, RFC 3629). */
static unsigned int
utf8_len(const unsigned char *s)
{
	unsigned int n, i;
	uint32_t cp;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
			(cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void
rtr_json_write_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s != '\0') {
		unsigned int n;

		switch (*s) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*s < 0x20) {
				fprintf(f, "\\u%04x", *s);
			} else if (*s < 0x80) {
				fputc(*s, f);
			} else if ((n = utf8_len(s)) != 0) {
				fwrite(s, 1, n, f);
				s += n;
				continue;
			} else {
				fputs("\\ufffd", f);
			}
		}
		s++;
	}
	fputc('"', f);
}

void
rtr_json_init(struct rtr_json *w, FILE *f)
{
	*w = (struct rtr_json){.f = f, .brk = -1};
	w->first[0] = true;
}

static void
misuse(struct rtr_json *w)
{
	if (w->err == 0)
		w->err = -EINVAL;
}

static void
newline(struct rtr_json *w)
{
	fputc('\n', w->f);
	for (int i = 0; i < w->brk; i++)
		fputc(' ', w->f);
	w->brk = -1;
}

/* What comes before a member (at its key) or an array element. */
static void
separate(struct rtr_json *w)
{
	if (w->depth == 0) {
		if (w->done)
			misuse(w); /* one top-level value only */
		return;
	}
	if (!w->first[w->depth])
		fputc(',', w->f);
	if (w->brk >= 0)
		newline(w);
	else if (!w->first[w->depth])
		fputc(' ', w->f);
	w->first[w->depth] = false;
}

/* Before any value: after its key in an object, else a separator. */
static bool
value(struct rtr_json *w)
{
	if (w->want_value) {
		w->want_value = false;
		return true;
	}
	if (w->depth > 0 && w->object[w->depth]) {
		misuse(w);
		return false;
	}
	separate(w);
	return true;
}

/* After a value: a complete top-level value ends the document's line. */
static void
ended(struct rtr_json *w)
{
	if (w->depth == 0) {
		fputc('\n', w->f);
		w->done = true;
	}
}

static void
begin(struct rtr_json *w, bool object)
{
	if (!value(w))
		return;
	if (w->depth == RTR_JSON_MAX_DEPTH) {
		misuse(w);
		return;
	}
	fputc(object ? '{' : '[', w->f);
	w->depth++;
	w->first[w->depth] = true;
	w->object[w->depth] = object;
}

static void
end(struct rtr_json *w, bool object)
{
	if (w->depth == 0 || w->object[w->depth] != object || w->want_value) {
		misuse(w);
		return;
	}
	if (w->brk >= 0)
		newline(w);
	fputc(object ? '}' : ']', w->f);
	w->depth--;
	ended(w);
}

void
rtr_json_obj(struct rtr_json *w)
{
	begin(w, true);
}

void
rtr_json_obj_end(struct rtr_json *w)
{
	end(w, true);
}

void
rtr_json_arr(struct rtr_json *w)
{
	begin(w, false);
}

void
rtr_json_arr_end(struct rtr_json *w)
{
	end(w, false);
}

void
rtr_json_break(struct rtr_json *w, unsigned int indent)
{
	w->brk = (int)(indent < 64 ? indent : 64);
}

void
rtr_json_key(struct rtr_json *w, const char *k)
{
	if (w->depth == 0 || !w->object[w->depth] || w->want_value || k == NULL) {
		misuse(w);
		return;
	}
	separate(w);
	rtr_json_write_string(w->f, k);
	fputs(": ", w->f);
	w->want_value = true;
}

void
rtr_json_str(struct rtr_json *w, const char *s)
{
	if (!value(w))
		return;
	if (s == NULL)
		fputs("null", w->f);
	else
		rtr_json_write_string(w->f, s);
	ended(w);
}

void
rtr_json_u64(struct rtr_json *w, uint64_t v)
{
	if (!value(w))
		return;
	fprintf(w->f, "%" PRIu64, v);
	ended(w);
}

void
rtr_json_i64(struct rtr_json *w, int64_t v)
{
	if (!value(w))
		return;
	fprintf(w->f, "%" PRId64, v);
	ended(w);
}

void
rtr_json_fixed(struct rtr_json *w, double v, int decimals)
{
	if (!value(w))
		return;
	if (isfinite(v))
		fprintf(w->f, "%.*f", decimals, v);
	else
		fputs("null", w->f);
	ended(w);
}

void
rtr_json_double(struct rtr_json *w, double v, int digits)
{
	if (!value(w))
		return;
	if (isfinite(v))
		fprintf(w->f, "%.*g", digits, v);
	else
		fputs("null", w->f);
	ended(w);
}

void
rtr_json_bool(struct rtr_json *w, bool v)
{
	if (!value(w))
		return;
	fputs(v ? "true" : "false", w->f);
	ended(w);
}

void
rtr_json_null(struct rtr_json *w)
{
	if (!value(w))
		return;
	fputs("null", w->f);
	ended(w);
}

void
rtr_json_kv_str(struct rtr_json *w, const char *k, const char *s)
{
	rtr_json_key(w, k);
	rtr_json_str(w, s);
}

void
rtr_json_kv_u64(struct rtr_json *w, const char *k, uint64_t v)
{
	rtr_json_key(w, k);
	rtr_json_u64(w, v);
}

void
rtr_json_kv_i64(struct rtr_json *w, const char *k, int64_t v)
{
	rtr_json_key(w, k);
	rtr_json_i64(w, v);
}

void
rtr_json_kv_fixed(struct rtr_json *w, const char *k, double v, int decimals)
{
	rtr_json_key(w, k);
	rtr_json_fixed(w, v, decimals);
}

void
rtr_json_kv_double(struct rtr_json *w, const char *k, double v, int digits)
{
	rtr_json_key(w, k);
	rtr_json_double(w, v, digits);
}

void
rtr_json_kv_bool(struct rtr_json *w, const char *k, bool v)
{
	rtr_json_key(w, k);
	rtr_json_bool(w, v);
}

int
rtr_json_finish(struct rtr_json *w)
{
	if (w->err != 0)
		return w->err;
	if (w->depth != 0 || w->want_value)
		return -EINVAL;
	return ferror(w->f) ? -EIO : 0;
}
