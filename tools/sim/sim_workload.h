/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Workloads (doc/simulator.md): flow sizes drawn from a published CDF,
 * Poisson arrivals per host, a random remote destination, as the ConWeave
 * artifact's traffic generator (traffic_gen/traffic_gen.py, from HPCC's)
 * makes them.
 *
 * A CDF file has one point a line, "size_bytes cumulative_percent", sizes
 * and percents non-decreasing, the last percent 100 (the first point is
 * usually "0 0"). A size is drawn as the generator draws it: u uniform in
 * [0, 100), the first point i with u <= y_i, x linearly interpolated between
 * points i-1 and i, truncated to an integer, at least 1 byte. The mean is
 * the generator's too: the sum over segments of (x_{i-1} + x_i) / 2 x
 * (y_i - y_{i-1}) / 100, the mean of that interpolated distribution.
 *
 * Load, as the artifact's run script defines it: --load is the core load;
 * each host offers host_load = load / oversubscription of its link, so its
 * mean inter-arrival time is mean_size x 8 / (host_gbps x host_load) ns,
 * and each gap is truncated to whole nanoseconds (the generator's int()).
 * With wire_per_payload = w > 1 (rocetor-sim's --load-basis wire) the
 * mean gap is w times that: host_load is then the links' load in wire
 * bytes (headers, ACKs, preamble and gap included, as the caller counts
 * them in w), the payload's host_load / w.
 * The destination is uniform among every other host (the same ToR's
 * included), as the generator's "dst != src" redraw gives.
 *
 * Randomness: one sim_rng stream per host, seeded from (seed, host index),
 * so that a host's flows do not depend on how the run interleaves the
 * others' (and --flows, which stops early, does not change the flows that
 * were started). Per arrival the host's stream gives, in this order: the
 * destination, the size, the gap to its next arrival.
 */
#ifndef SIM_WORKLOAD_H
#define SIM_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "sim_core.h"

struct sim_cdf {
	unsigned int n;
	double *x; /* sizes, bytes */
	double *y; /* cumulative percent, y[n - 1] == 100 */
};

/* Parse a CDF from text / a file. 0 or -1 with one line in err. */
int sim_cdf_parse(struct sim_cdf *c, const char *text, char *err, size_t errlen);
int sim_cdf_load(struct sim_cdf *c, const char *path, char *err, size_t errlen);
void sim_cdf_free(struct sim_cdf *c);

/* The size at cumulative percent pct in [0, 100] (the interpolation). */
double sim_cdf_value(const struct sim_cdf *c, double pct);

/* The mean of the interpolated distribution, bytes. */
double sim_cdf_mean(const struct sim_cdf *c);

/* The mean of ceil(size / chunk) over the sizes sim_cdf_sample draws
 * (truncated to whole bytes, at least 1), computed exactly from the
 * interpolated distribution: the mean number of chunk-byte packets a flow
 * is cut into (chunk >= 1). */
double sim_cdf_mean_chunks(const struct sim_cdf *c, uint64_t chunk);

/* One size, bytes (>= 1). */
uint64_t sim_cdf_sample(const struct sim_cdf *c, struct sim_rng *r);

struct sim_workload_params {
	unsigned int n_hosts; /* >= 2 */
	double host_gbps;     /* each host's link */
	double load;          /* core load, (0, 1] x oversub */
	double oversub;       /* host_load = load / oversub */
	uint64_t start_ns;    /* arrivals after this */
	uint64_t duration_ns; /* no arrival at or after start_ns + duration_ns */
	uint64_t seed;
	/* Bytes the links carry per payload byte of the flows' mean (1 or 0:
	 * the payload basis, the artifact generator's; above 1: the mean gap
	 * grows by this factor so that the wire load is host_load). */
	double wire_per_payload;
};

struct sim_workload_flow {
	uint32_t src, dst; /* host indexes, 0..n_hosts-1 */
	uint64_t size;
	uint64_t start_ns;
};

struct sim_workload {
	const struct sim_cdf *cdf;
	unsigned int n_hosts;
	double host_load;
	double mean_iat_ns;
	uint64_t end_ns;
	struct sim_rng *rng; /* per host */
	uint64_t *next_ns;   /* per host: its next arrival; UINT64_MAX: none left */
};

/* cdf must outlive w. 0 or -1 with one line in err. */
int sim_workload_init(struct sim_workload *w, const struct sim_workload_params *p,
		const struct sim_cdf *cdf, char *err, size_t errlen);
void sim_workload_fini(struct sim_workload *w);

/* Host h's next arrival time, UINT64_MAX when it has no more. */
static inline uint64_t
sim_workload_next_ns(const struct sim_workload *w, uint32_t h)
{
	return w->next_ns[h];
}

/* Take host h's next flow into f and draw the one after it. 0, or -1 when
 * h has none left. */
int sim_workload_take(struct sim_workload *w, uint32_t h, struct sim_workload_flow *f);

#endif /* SIM_WORKLOAD_H */
