/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Not a test: the data path parser's cost per frame (rtr_parse_fast), on
 * the frames a ToR sees most: plain RoCE from a host (parse flags 0),
 * RoCE with an LB DATA header from a fabric port (the shared LB layout's
 * parse flags), and plain RoCE from a fabric port. Prints the median of
 * --runs rounds in ns per frame, per kind. doc/performance.md.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "rtr_parse.h"
#ifdef RTR_PARSE_LB_HDR
#define FABRIC_FLAGS RTR_PARSE_LB_HDR /* a tree older than rtr_lb_wire.h: before/after runs */
#else
#include "rtr_lb_wire.h"
#define FABRIC_FLAGS RTR_LB_PARSE_HDR
#endif

#define N_FRAMES 64
#define ROUNDS   20000

static uint32_t
build(uint8_t *f, uint16_t sport, bool lb_hdr, uint32_t payload)
{
	uint32_t ip_len = 20 + 8 + 12 + payload + 4, n = 0;

	memset(f, 0, 256);
	memcpy(f, "\x02\x00\x00\x00\x00\x01\x02\x00\x00\x00\x00\x02\x08\x00", 14);
	n = 14;
	f[n] = 0x45;
	f[n + 1] = 0x02;
	f[n + 2] = (uint8_t)(ip_len >> 8);
	f[n + 3] = (uint8_t)ip_len;
	f[n + 8] = 64;
	f[n + 9] = 17;
	memcpy(f + n + 12, "\x0a\x01\x00\x01\x0a\x02\x00\x01", 8);
	n += 20;
	f[n] = (uint8_t)(sport >> 8);
	f[n + 1] = (uint8_t)sport;
	f[n + 2] = 0x12;
	f[n + 3] = 0xb7;
	f[n + 4] = (uint8_t)((ip_len - 20) >> 8);
	f[n + 5] = (uint8_t)(ip_len - 20);
	n += 8;
	f[n] = 0x0a;                  /* RDMA WRITE ONLY: RETH */
	f[n + 8] = lb_hdr ? 0x20 : 0; /* op 1 (DATA) of the shared LB layout */
	f[n + 11] = 7;
	n += 12;
	if (lb_hdr)
		n += 4;
	n += payload + 4;
	return n;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double
run(uint8_t frames[][256], const uint32_t *len, unsigned int flags)
{
	struct rtr_meta m;
	uint64_t t0, t1, sink = 0;

	t0 = rte_rdtsc_precise();
	for (unsigned int r = 0; r < ROUNDS; r++)
		for (unsigned int i = 0; i < N_FRAMES; i++) {
			rtr_parse_fast(frames[i], len[i], 7, flags, &m);
			sink += m.flow_hash + m.flags;
		}
	t1 = rte_rdtsc_precise();
	if (sink == 42)
		printf(" ");
	return (double)(t1 - t0) / ((double)ROUNDS * N_FRAMES);
}

int
main(int argc, char **argv)
{
	static uint8_t plain[N_FRAMES][256], hdr[N_FRAMES][256];
	uint32_t plen[N_FRAMES], hlen[N_FRAMES];
	unsigned int runs = argc > 1 ? (unsigned int)atoi(argv[1]) : 11;
	double a[64], b[64], c[64];

	if (runs == 0 || runs > 64)
		runs = 11;
	for (unsigned int i = 0; i < N_FRAMES; i++) {
		plen[i] = build(plain[i], (uint16_t)(49152 + i), false, 16 + 16 + i);
		hlen[i] = build(hdr[i], (uint16_t)(49152 + i), true, 16 + 16 + i);
	}
	{
		struct rtr_meta m;

		/* What is timed is what a ToR sees: whole frames, a header read. */
		if (rtr_parse_fast(plain[0], plen[0], 7, 0, &m) != RTR_DROP_NONE ||
				!(m.flags & RTR_MF_ROCE) ||
				rtr_parse_fast(hdr[0], hlen[0], 7, FABRIC_FLAGS, &m) !=
						RTR_DROP_NONE ||
				!(m.flags & RTR_MF_LB_HDR)) {
			fprintf(stderr, "bench_parse: test frames do not parse as meant\n");
			return 1;
		}
	}
	for (unsigned int k = 0; k < runs; k++) {
		a[k] = run(plain, plen, 0);
		b[k] = run(hdr, hlen, FABRIC_FLAGS);
		c[k] = run(plain, plen, FABRIC_FLAGS);
	}
	qsort(a, runs, sizeof(a[0]), cmp_double);
	qsort(b, runs, sizeof(b[0]), cmp_double);
	qsort(c, runs, sizeof(c[0]), cmp_double);
	printf("TSC cycles per frame, median of %u: host plain %.2f  fabric LB header %.2f  "
	       "fabric plain %.2f\n",
			runs, a[runs / 2], b[runs / 2], c[runs / 2]);
	return 0;
}
