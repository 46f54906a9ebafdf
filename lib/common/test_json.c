/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The JSON writer (rtr_json): string escaping (RFC 8259: quotes,
 * backslash, every control character, UTF-8 kept, bytes that are not
 * UTF-8 replaced), commas and line breaks, numbers, and misuse reported.
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtr_json.h"
#include "rtr_test.h"

/* What rtr_json_write_string writes for s. */
static char *
escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	rtr_json_write_string(f, s);
	fclose(f);
	return buf;
}

#define CHECK_ESC(in, want)               \
	do {                              \
		char *_got = escaped(in); \
		CHECK_STR(_got, want);    \
		free(_got);               \
	} while (0)

static void
test_escape(void)
{
	char all[32], want[256];
	size_t off = 0;

	CHECK_ESC("tor1", "\"tor1\"");
	CHECK_ESC("", "\"\"");
	CHECK_ESC("tor\"1", "\"tor\\\"1\"");
	CHECK_ESC("a\\b", "\"a\\\\b\"");
	CHECK_ESC("\\\"", "\"\\\\\\\"\"");
	CHECK_ESC("/", "\"/\"");
	CHECK_ESC("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
	CHECK_ESC("\x01\x1f\x7f", "\"\\u0001\\u001f\x7f\"");
	/* Every control character 0x01..0x1f. */
	for (int c = 1; c < 0x20; c++)
		all[c - 1] = (char)c;
	all[31] = '\0';
	off += (size_t)snprintf(want + off, sizeof(want) - off, "\"");
	for (int c = 1; c < 0x20; c++) {
		const char *s = c == '\b'   ? "\\b"
				: c == '\f' ? "\\f"
				: c == '\n' ? "\\n"
				: c == '\r' ? "\\r"
				: c == '\t' ? "\\t"
					    : NULL;

		if (s != NULL)
			off += (size_t)snprintf(want + off, sizeof(want) - off, "%s", s);
		else
			off += (size_t)snprintf(want + off, sizeof(want) - off, "\\u%04x", c);
	}
	snprintf(want + off, sizeof(want) - off, "\"");
	CHECK_ESC(all, want);
	/* UTF-8 passes through: 2, 3 and 4 bytes. */
	CHECK_ESC("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
			"\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* Not UTF-8: a lone continuation byte, a truncated sequence, an
	 * overlong '/', a surrogate, beyond U+10FFFF, 0xff. */
	CHECK_ESC("a\x80z", "\"a\\ufffdz\"");
	CHECK_ESC("a\xc3", "\"a\\ufffd\"");
	CHECK_ESC("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	CHECK_ESC("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	CHECK_ESC("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	CHECK_ESC("\xff\"", "\"\\ufffd\\\"\"");
	CHECK_ESC("\xe2\x82", "\"\\ufffd\\ufffd\"");
}

/* A document written by fn, its text in *out (freed by the caller);
 * returns rtr_json_finish's result. */
static int
doc(void (*fn)(struct rtr_json *), char **out)
{
	struct rtr_json w;
	size_t len = 0;
	FILE *f;
	int rc;

	*out = NULL;
	f = open_memstream(out, &len);
	rtr_json_init(&w, f);
	fn(&w);
	rc = rtr_json_finish(&w);
	fclose(f);
	return rc;
}

static void
doc_layout(struct rtr_json *w)
{
	rtr_json_obj(w);
	rtr_json_kv_str(w, "switch", "tor\"1\\");
	rtr_json_kv_fixed(w, "uptime_s", 1.23456, 3);
	rtr_json_break(w, 1);
	rtr_json_key(w, "ports");
	rtr_json_arr(w);
	for (unsigned int i = 0; i < 2; i++) {
		rtr_json_break(w, 2);
		rtr_json_obj(w);
		rtr_json_kv_u64(w, "port", i);
		rtr_json_kv_bool(w, "up", i == 0);
		rtr_json_break(w, 3);
		rtr_json_kv_i64(w, "n", -5);
		rtr_json_obj_end(w);
	}
	rtr_json_arr_end(w);
	rtr_json_break(w, 1);
	rtr_json_key(w, "empty");
	rtr_json_obj(w);
	rtr_json_obj_end(w);
	rtr_json_key(w, "none");
	rtr_json_arr(w);
	rtr_json_arr_end(w);
	rtr_json_key(w, "list");
	rtr_json_arr(w);
	rtr_json_u64(w, 18446744073709551615ull);
	rtr_json_null(w);
	rtr_json_str(w, NULL);
	rtr_json_double(w, 0.1, 6);
	rtr_json_double(w, 1e6, 6);
	rtr_json_double(w, NAN, 6);
	rtr_json_fixed(w, -INFINITY, 1);
	rtr_json_arr_end(w);
	rtr_json_kv_double(w, "k\n", 2.5, 6);
	rtr_json_break(w, 0);
	rtr_json_obj_end(w);
}

static void
test_layout(void)
{
	char *out;

	CHECK_EQ(doc(doc_layout, &out), 0);
	CHECK_STR(out, "{\"switch\": \"tor\\\"1\\\\\", \"uptime_s\": 1.235,\n"
		       " \"ports\": [\n"
		       "  {\"port\": 0, \"up\": true,\n"
		       "   \"n\": -5},\n"
		       "  {\"port\": 1, \"up\": false,\n"
		       "   \"n\": -5}],\n"
		       " \"empty\": {}, \"none\": [], \"list\": [18446744073709551615, null, "
		       "null, 0.1, 1e+06, null, null], \"k\\n\": 2.5\n"
		       "}\n");
	free(out);
}

static void
bad_value_in_object(struct rtr_json *w)
{
	rtr_json_obj(w);
	rtr_json_u64(w, 1);
	rtr_json_obj_end(w);
}

static void
bad_key_in_array(struct rtr_json *w)
{
	rtr_json_arr(w);
	rtr_json_key(w, "k");
	rtr_json_arr_end(w);
}

static void
bad_unclosed(struct rtr_json *w)
{
	rtr_json_obj(w);
	rtr_json_key(w, "a");
	rtr_json_arr(w);
}

static void
bad_key_without_value(struct rtr_json *w)
{
	rtr_json_obj(w);
	rtr_json_key(w, "a");
	rtr_json_obj_end(w);
}

static void
bad_mismatch(struct rtr_json *w)
{
	rtr_json_obj(w);
	rtr_json_arr_end(w);
}

static void
bad_two_values(struct rtr_json *w)
{
	rtr_json_u64(w, 1);
	rtr_json_u64(w, 2);
}

static void
bad_too_deep(struct rtr_json *w)
{
	for (int i = 0; i <= RTR_JSON_MAX_DEPTH; i++)
		rtr_json_arr(w);
	for (int i = 0; i <= RTR_JSON_MAX_DEPTH; i++)
		rtr_json_arr_end(w);
}

static void
good_deep(struct rtr_json *w)
{
	for (int i = 0; i < RTR_JSON_MAX_DEPTH; i++)
		rtr_json_arr(w);
	for (int i = 0; i < RTR_JSON_MAX_DEPTH; i++)
		rtr_json_arr_end(w);
}

static void
test_misuse(void)
{
	static const struct {
		void (*fn)(struct rtr_json *);
		int rc;
		const char *what;
	} cases[] = {
			{bad_value_in_object, -EINVAL, "value without a key"},
			{bad_key_in_array, -EINVAL, "key in an array"},
			{bad_unclosed, -EINVAL, "unclosed"},
			{bad_key_without_value, -EINVAL, "key without a value"},
			{bad_mismatch, -EINVAL, "] for {"},
			{bad_two_values, -EINVAL, "two top-level values"},
			{bad_too_deep, -EINVAL, "nesting too deep"},
			{good_deep, 0, "nesting at the limit"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out;
		int rc = doc(cases[i].fn, &out);

		CHECK(rc == cases[i].rc, "%s: %d", cases[i].what, rc);
		free(out);
	}
}

int
main(void)
{
	test_escape();
	test_layout();
	test_misuse();
	return rtr_test_done("json");
}
