/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The one JSON writer of rocetor's C programs (the stats document,
 * rocetor-info, the egress report, the simulator's summary.json): objects,
 * arrays, keys, strings escaped as RFC 8259 requires, integers, doubles,
 * booleans and null, with the commas placed by the writer.
 *
 * Strings: '"' and '\' are escaped, every control character below 0x20
 * is written as \b \f \n \r \t or \u00XX, valid UTF-8 passes through and
 * a byte that is not part of valid UTF-8 becomes \ufffd (a file name may
 * hold any byte; the document must stay valid UTF-8 text).
 *
 * Layout: members and elements are separated by ", "; rtr_json_break(w, N)
 * puts the next one (or the closing bracket) on a new line indented by N
 * spaces instead. A top-level value ends with a newline. Doubles that are
 * not finite are written as null (JSON has no NaN or infinity).
 *
 * Misuse (a value without its key inside an object, a key outside one, a
 * bracket closed that was not open, nesting beyond RTR_JSON_MAX_DEPTH) is
 * recorded and reported by rtr_json_finish(), never written as broken
 * JSON silently.
 */
#ifndef RTR_JSON_H
#define RTR_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define RTR_JSON_MAX_DEPTH 16

struct rtr_json {
	FILE *f;
	unsigned int depth;
	int brk;         /* >= 0: the next separator is a newline and brk spaces */
	bool want_value; /* a key was written, its value comes next */
	bool done;       /* a complete top-level value was written */
	int err;         /* 0, or the first -errno of misuse */
	bool first[RTR_JSON_MAX_DEPTH + 1];
	bool object[RTR_JSON_MAX_DEPTH + 1];
};

/* A writer on f (a file, or fmemopen/open_memstream for a buffer). */
void rtr_json_init(struct rtr_json *w, FILE *f);

/* 0, -EINVAL on misuse or a value still open, -EIO if f had an error. */
int rtr_json_finish(struct rtr_json *w);

void rtr_json_obj(struct rtr_json *w);
void rtr_json_obj_end(struct rtr_json *w);
void rtr_json_arr(struct rtr_json *w);
void rtr_json_arr_end(struct rtr_json *w);
void rtr_json_break(struct rtr_json *w, unsigned int indent);

void rtr_json_key(struct rtr_json *w, const char *k);
void rtr_json_str(struct rtr_json *w, const char *s); /* NULL: null */
void rtr_json_u64(struct rtr_json *w, uint64_t v);
void rtr_json_i64(struct rtr_json *w, int64_t v);
void rtr_json_fixed(struct rtr_json *w, double v, int decimals); /* "%.*f" */
void rtr_json_double(struct rtr_json *w, double v, int digits);  /* "%.*g" */
void rtr_json_bool(struct rtr_json *w, bool v);
void rtr_json_null(struct rtr_json *w);

/* A member: the key, then the value. */
void rtr_json_kv_str(struct rtr_json *w, const char *k, const char *s);
void rtr_json_kv_u64(struct rtr_json *w, const char *k, uint64_t v);
void rtr_json_kv_i64(struct rtr_json *w, const char *k, int64_t v);
void rtr_json_kv_fixed(struct rtr_json *w, const char *k, double v, int decimals);
void rtr_json_kv_double(struct rtr_json *w, const char *k, double v, int digits);
void rtr_json_kv_bool(struct rtr_json *w, const char *k, bool v);

/* s as a JSON string, quotes included, on f (the escaping above). */
void rtr_json_write_string(FILE *f, const char *s);

#endif /* RTR_JSON_H */
