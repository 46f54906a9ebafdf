/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * What the fuzz targets share: the libFuzzer entry points they define, a
 * reader that turns the fuzz input into a stream of small numbers (reading
 * past the end gives zeros, so every input is a valid program), and the
 * check that ends a run with a report. A finding is an abort() with one
 * line on stderr: libFuzzer keeps the input, and the plain replay build
 * (replay.c) fails the same way.
 */
#ifndef RTR_FUZZ_H
#define RTR_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

struct fz {
	const uint8_t *p;
	size_t n;
	size_t i;
};

static inline bool
fz_more(const struct fz *f)
{
	return f->i < f->n;
}

static inline uint8_t
fz_u8(struct fz *f)
{
	return f->i < f->n ? f->p[f->i++] : 0;
}

static inline uint16_t
fz_u16(struct fz *f)
{
	uint16_t v = fz_u8(f);

	return (uint16_t)(v << 8 | fz_u8(f));
}

/* A finding: say what broke, then abort (libFuzzer saves the input). */
#define FZ_CHECK(cond, ...)                                                                     \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			fprintf(stderr, "FUZZ FINDING %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, " " __VA_ARGS__);                                       \
			fputc('\n', stderr);                                                    \
			abort();                                                                \
		}                                                                               \
	} while (0)

#endif /* RTR_FUZZ_H */
