/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Workloads: the AliStorage2019 CDF (the points of
 * ../shared/data/workloads/AliStorage2019.txt, written here so that the
 * test needs no file) gives the interpolated values and the mean computed
 * by hand; a million draws have that mean within 2% and its quantiles; the
 * arrivals of a 128-host, 2:1 fabric at core load 0.5 have the mean gap of
 * host load 0.25 and offer 25% of the host links; nobody sends to itself,
 * destinations are uniform; the same seed gives the same flows, another
 * seed others; malformed CDFs are refused. The wire basis: the mean
 * number of packets a flow is cut into, by hand for a uniform segment and
 * against a million draws for AliStorage2019, and the mean gap scaled by
 * the wire bytes per payload byte.
 */

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rtr_test.h"
#include "sim_workload.h"

static const char ali[] = "0 0\n4000 22.93\n8000 69.21\n16000 80.61\n32000 90.47\n"
			  "64000 93.53\n128000 96.77\n256000 97.53\n2000000 100\n";

/* By hand: sum of (x0 + x1) / 2 x (y1 - y0), over 100:
 * 2000 x 22.93 + 6000 x 46.28 + 12000 x 11.40 + 24000 x 9.86 + 48000 x 3.06
 * + 96000 x 3.24 + 192000 x 0.76 + 1128000 x 2.47 = 4,086,980 -> 40,869.8 B. */
#define ALI_MEAN 40869.8

static void
test_parse(struct sim_cdf *c)
{
	char err[200];
	struct sim_cdf bad;

	CHECK_EQ(sim_cdf_parse(c, ali, err, sizeof(err)), 0);
	CHECK_EQ(c->n, 9);
	CHECK(fabs(sim_cdf_mean(c) - ALI_MEAN) < 1e-6, "mean %f", sim_cdf_mean(c));
	/* 4000 + 4000 x (50 - 22.93) / 46.28 = 6339.671... */
	CHECK(fabs(sim_cdf_value(c, 50) - 6339.6716) < 1e-3, "%f", sim_cdf_value(c, 50));
	CHECK(fabs(sim_cdf_value(c, 22.93) - 4000) < 1e-9);
	CHECK(fabs(sim_cdf_value(c, 0) - 0) < 1e-9);
	CHECK(fabs(sim_cdf_value(c, 100) - 2000000) < 1e-6);
	/* 256000 + 1744000 x (99 - 97.53) / 2.47 = 1,293,927.1... */
	CHECK(fabs(sim_cdf_value(c, 99) - 1293927.1255) < 1e-3, "%f", sim_cdf_value(c, 99));

	/* Comments and blank lines pass; the rest must be points. */
	CHECK_EQ(sim_cdf_parse(&bad, "# x\n\n0 0\n10 100\n", err, sizeof(err)), 0);
	CHECK(fabs(sim_cdf_mean(&bad) - 5.0) < 1e-9);
	sim_cdf_free(&bad);
	CHECK_EQ(sim_cdf_parse(&bad, "0 0\n10 50\n", err, sizeof(err)), -1);
	CHECK(strstr(err, "100") != NULL, "%s", err);
	CHECK_EQ(sim_cdf_parse(&bad, "0 0\n10 60\n5 100\n", err, sizeof(err)), -1);
	CHECK(strstr(err, "line 3") != NULL, "%s", err);
	CHECK_EQ(sim_cdf_parse(&bad, "0 0\n10 60\n20 50\n30 100\n", err, sizeof(err)), -1);
	CHECK_EQ(sim_cdf_parse(&bad, "0 0\nten 100\n", err, sizeof(err)), -1);
	CHECK(strstr(err, "line 2") != NULL, "%s", err);
	CHECK_EQ(sim_cdf_parse(&bad, "0 0\n10 100 7\n", err, sizeof(err)), -1);
	CHECK_EQ(sim_cdf_parse(&bad, "0 0\n10 101\n", err, sizeof(err)), -1);
	CHECK_EQ(sim_cdf_load(&bad, "/nonexistent/cdf.txt", err, sizeof(err)), -1);
	CHECK(strstr(err, "/nonexistent/cdf.txt") != NULL, "%s", err);
}

#define N_DRAW 1000000

static void
test_sizes(const struct sim_cdf *c)
{
	static const double pts[] = {4000, 8000, 16000, 32000, 64000, 128000, 256000};
	static const double pct[] = {22.93, 69.21, 80.61, 90.47, 93.53, 96.77, 97.53};
	uint64_t below[7] = {0}, min = UINT64_MAX, max = 0;
	struct sim_rng r;
	double sum = 0;

	sim_rng_seed(&r, 7);
	for (unsigned int i = 0; i < N_DRAW; i++) {
		uint64_t s = sim_cdf_sample(c, &r);

		sum += (double)s;
		min = s < min ? s : min;
		max = s > max ? s : max;
		for (unsigned int k = 0; k < 7; k++)
			below[k] += s <= pts[k];
	}
	/* Heavy tail: the size's standard deviation is about 190 KB, so a
	 * million draws put the mean within 0.5% at 4 sigma. */
	CHECK(fabs(sum / N_DRAW / ALI_MEAN - 1) < 0.02, "sampled mean %.1f", sum / N_DRAW);
	CHECK(min >= 1 && max <= 2000000, "%llu %llu", (unsigned long long)min,
			(unsigned long long)max);
	/* Each point's percent within 0.2 points (4 sigma is 0.17 at most). */
	for (unsigned int k = 0; k < 7; k++)
		CHECK(fabs(100.0 * below[k] / N_DRAW - pct[k]) < 0.2,
				"P(size <= %.0f) = %.3f%%, not %.2f%%", pts[k],
				100.0 * below[k] / N_DRAW, pct[k]);
}

#define N_HOSTS 128

/* Flows of the ConWeave paper's fabric (128 hosts at 100G, 2:1) at core
 * load 0.5: host load 0.25, mean gap 40869.8 x 8 / (100 x 0.25) =
 * 13,078.336 ns. Returns a hash of every flow, in host order. */
static uint64_t
test_arrivals(const struct sim_cdf *c, uint64_t seed, bool check)
{
	struct sim_workload_params p = {
			.n_hosts = N_HOSTS,
			.host_gbps = 100,
			.load = 0.5,
			.oversub = 2,
			.start_ns = 1000,
			.duration_ns = 100000000,
			.seed = seed,
	};
	static uint64_t dst_count[N_HOSTS];
	uint64_t n = 0, self = 0, late = 0, unordered = 0, h0_flows = 0;
	uint64_t hash = 0xcbf29ce484222325ULL;
	double bytes = 0, gaps = 0;
	struct sim_workload w;
	char err[200];

	CHECK_EQ(sim_workload_init(&w, &p, c, err, sizeof(err)), 0);
	if (check) {
		CHECK(fabs(w.host_load - 0.25) < 1e-12);
		CHECK(fabs(w.mean_iat_ns - 13078.336) < 1e-6, "%f", w.mean_iat_ns);
	}
	memset(dst_count, 0, sizeof(dst_count));
	for (uint32_t h = 0; h < N_HOSTS; h++) {
		struct sim_workload_flow f;
		uint64_t prev = p.start_ns, first = 1;

		while (sim_workload_next_ns(&w, h) != UINT64_MAX) {
			uint64_t want = sim_workload_next_ns(&w, h);

			if (sim_workload_take(&w, h, &f) != 0)
				unordered++;
			if (f.start_ns != want || f.src != h)
				unordered++;
			if (f.start_ns < prev || f.start_ns < p.start_ns)
				unordered++;
			if (!first)
				gaps += (double)(f.start_ns - prev);
			first = 0;
			prev = f.start_ns;
			self += f.dst == f.src || f.dst >= N_HOSTS;
			late += f.start_ns >= p.start_ns + p.duration_ns;
			if (f.dst < N_HOSTS && h == 0)
				dst_count[f.dst]++;
			h0_flows += h == 0;
			bytes += (double)f.size;
			n++;
			{
				uint64_t v[4] = {f.src, f.dst, f.size, f.start_ns};

				for (unsigned int i = 0; i < 4; i++)
					hash = (hash ^ v[i]) * 0x100000001b3ULL;
			}
		}
		if (sim_workload_take(&w, h, &f) != -1)
			unordered++;
	}
	if (check) {
		/* 128 x 1e8 / 13078.336 = 978,717 flows expected (Poisson:
		 * sd 989). The gaps' mean (the truncation takes 0.5 ns off). */
		CHECK(fabs((double)n / 978717.0 - 1) < 0.005, "%llu flows", (unsigned long long)n);
		CHECK(fabs(gaps / (double)(n - N_HOSTS) / 13077.836 - 1) < 0.005, "mean gap %.1f",
				gaps / (double)(n - N_HOSTS));
		/* Offered: 25% of 128 links of 100G for 100 ms = 40 GB (the
		 * size's heavy tail: sd about 0.2% here). */
		CHECK(fabs(bytes * 8 / (N_HOSTS * 100.0 * 1e8) / 0.25 - 1) < 0.02, "offered %.4f",
				bytes * 8 / (N_HOSTS * 100.0 * 1e8));
		CHECK_EQ(self, 0);
		CHECK_EQ(late, 0);
		CHECK_EQ(unordered, 0);
		/* Host 0's ~7,646 flows over 127 others: 60 each, none 0,
		 * none over three times that. */
		CHECK_EQ(dst_count[0], 0);
		{
			uint64_t lo = UINT64_MAX, hi = 0;

			for (uint32_t d = 1; d < N_HOSTS; d++) {
				lo = dst_count[d] < lo ? dst_count[d] : lo;
				hi = dst_count[d] > hi ? dst_count[d] : hi;
			}
			CHECK(lo >= 25 && hi <= 110, "destinations of host 0: %llu..%llu of %llu",
					(unsigned long long)lo, (unsigned long long)hi,
					(unsigned long long)h0_flows);
		}
	}
	sim_workload_fini(&w);
	return hash;
}

static void
test_params(const struct sim_cdf *c)
{
	struct sim_workload_params p = {
			.n_hosts = 2,
			.host_gbps = 100,
			.load = 0.5,
			.oversub = 1,
			.duration_ns = 1000000,
			.seed = 1,
	};
	struct sim_workload_flow f;
	struct sim_workload w;
	uint64_t n = 0, wrong = 0;
	char err[200];

	/* Two hosts: each sends only to the other (1 ms at host load 0.5:
	 * about 2 x 153 flows). */
	CHECK_EQ(sim_workload_init(&w, &p, c, err, sizeof(err)), 0);
	for (uint32_t h = 0; h < 2; h++)
		while (sim_workload_take(&w, h, &f) == 0) {
			wrong += f.dst != 1 - h;
			n++;
		}
	CHECK(n > 200 && wrong == 0, "%llu flows, %llu wrong", (unsigned long long)n,
			(unsigned long long)wrong);
	sim_workload_fini(&w);
	p.n_hosts = 1;
	CHECK_EQ(sim_workload_init(&w, &p, c, err, sizeof(err)), -1);
	p.n_hosts = 8;
	p.load = 2.5;
	p.oversub = 2;
	CHECK_EQ(sim_workload_init(&w, &p, c, err, sizeof(err)), -1);
	CHECK(strstr(err, "1.250") != NULL, "%s", err);
	p.load = 0;
	CHECK_EQ(sim_workload_init(&w, &p, c, err, sizeof(err)), -1);
}

/* sim_cdf_mean_chunks: packets per flow. */
static void
test_chunks(const struct sim_cdf *ali_cdf)
{
	struct sim_cdf c;
	struct sim_rng r;
	struct sim_workload w;
	struct sim_workload_params p = {.n_hosts = 8,
			.host_gbps = 100,
			.load = 0.8,
			.oversub = 2,
			.duration_ns = 1000000,
			.seed = 1};
	char err[200];
	double sum = 0, e;

	/* Sizes uniform on [1000, 3000], 1000-byte packets: 1 packet for a
	 * value in [1000, 1001) (size 1000), 2 in [1001, 2001), 3 in [2001,
	 * 3000]: (1 x 1 + 2 x 1000 + 3 x 999) / 2000 = 2.499. */
	CHECK_EQ(sim_cdf_parse(&c, "1000 0\n3000 100\n", err, sizeof(err)), 0);
	e = sim_cdf_mean_chunks(&c, 1000);
	CHECK(fabs(e - 2.499) < 1e-9, "uniform 1000..3000: %.6f packets", e);
	/* 1-byte chunks: the mean size after truncation, 2000 - 0.5. */
	e = sim_cdf_mean_chunks(&c, 1);
	CHECK(fabs(e - 1999.5) < 1e-6, "1-byte chunks: %.6f", e);
	sim_cdf_free(&c);
	/* A point mass (equal sizes, rising percent) and sizes below 1. */
	CHECK_EQ(sim_cdf_parse(&c, "0 0\n0.5 50\n2500 50\n2500 100\n", err, sizeof(err)), 0);
	e = sim_cdf_mean_chunks(&c, 1000);
	CHECK(fabs(e - (0.5 * 1 + 0.5 * 3)) < 1e-9, "point mass: %.6f", e);
	sim_cdf_free(&c);

	/* AliStorage2019 against a million draws (sd of the mean about 0.3%). */
	e = sim_cdf_mean_chunks(ali_cdf, 1000);
	sim_rng_seed(&r, 7);
	for (int i = 0; i < 1000000; i++)
		sum += (double)((sim_cdf_sample(ali_cdf, &r) + 999) / 1000);
	CHECK(fabs(sum / 1e6 / e - 1) < 0.01, "AliStorage2019: %.4f packets, drawn %.4f", e,
			sum / 1e6);
	CHECK(e > ALI_MEAN / 1000 && e < ALI_MEAN / 1000 + 1, "AliStorage2019: %.4f packets", e);

	/* The mean gap grows by the wire bytes per payload byte; 0 and 1
	 * are the payload basis; below 1 is refused. */
	CHECK_EQ(sim_workload_init(&w, &p, ali_cdf, err, sizeof(err)), 0);
	e = w.mean_iat_ns;
	sim_workload_fini(&w);
	CHECK(fabs(e - ALI_MEAN * 8 / 40) < 1e-6, "payload gap %f", e);
	p.wire_per_payload = 1.125;
	CHECK_EQ(sim_workload_init(&w, &p, ali_cdf, err, sizeof(err)), 0);
	CHECK(fabs(w.mean_iat_ns - 1.125 * e) < 1e-6 && fabs(w.host_load - 0.4) < 1e-12,
			"wire gap %f, host load %f", w.mean_iat_ns, w.host_load);
	sim_workload_fini(&w);
	p.wire_per_payload = 0.9;
	CHECK_EQ(sim_workload_init(&w, &p, ali_cdf, err, sizeof(err)), -1);
	CHECK(strstr(err, "wire bytes per payload byte") != NULL, "%s", err);
}

int
main(void)
{
	struct sim_cdf c;
	uint64_t h1, h2, h3;

	test_parse(&c);
	test_sizes(&c);
	h1 = test_arrivals(&c, 1, true);
	h2 = test_arrivals(&c, 1, false);
	h3 = test_arrivals(&c, 2, false);
	CHECK(h1 == h2, "the same seed gave other flows");
	CHECK(h1 != h3, "another seed gave the same flows");
	test_params(&c);
	test_chunks(&c);
	sim_cdf_free(&c);
	return rtr_test_done("sim-workload");
}
