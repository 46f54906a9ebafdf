/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Workloads: CDF files, sizes, Poisson arrivals, destinations
 * (sim_workload.h says how each is drawn and why).
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_workload.h"

int
sim_cdf_parse(struct sim_cdf *c, const char *text, char *err, size_t errlen)
{
	unsigned int cap = 16, line = 0;
	const char *p = text;

	memset(c, 0, sizeof(*c));
	c->x = malloc(cap * sizeof(double));
	c->y = malloc(cap * sizeof(double));
	if (c->x == NULL || c->y == NULL)
		goto nomem;
	while (*p != '\0') {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char buf[128], *end;
		double x, y;

		line++;
		if (len >= sizeof(buf)) {
			snprintf(err, errlen, "line %u: too long", line);
			goto fail;
		}
		memcpy(buf, p, len);
		buf[len] = '\0';
		p += len + (eol ? 1 : 0);
		/* Blank lines and comments are allowed. */
		end = buf + strspn(buf, " \t\r");
		if (*end == '\0' || *end == '#')
			continue;
		x = strtod(end, &end);
		if (end == buf || (*end != ' ' && *end != '\t')) {
			snprintf(err, errlen, "line %u: expected \"size percent\"", line);
			goto fail;
		}
		y = strtod(end, &end);
		end += strspn(end, " \t\r");
		if (*end != '\0' || !isfinite(x) || !isfinite(y)) {
			snprintf(err, errlen, "line %u: expected \"size percent\"", line);
			goto fail;
		}
		if (x < 0 || y < 0 || y > 100) {
			snprintf(err, errlen, "line %u: size below 0 or percent outside 0..100",
					line);
			goto fail;
		}
		if (c->n > 0 && (x < c->x[c->n - 1] || y < c->y[c->n - 1])) {
			snprintf(err, errlen, "line %u: sizes and percents must not decrease",
					line);
			goto fail;
		}
		if (c->n == cap) {
			double *nx, *ny;

			cap *= 2;
			nx = realloc(c->x, cap * sizeof(double));
			if (nx == NULL)
				goto nomem;
			c->x = nx;
			ny = realloc(c->y, cap * sizeof(double));
			if (ny == NULL)
				goto nomem;
			c->y = ny;
		}
		c->x[c->n] = x;
		c->y[c->n] = y;
		c->n++;
	}
	if (c->n < 2 || c->y[c->n - 1] != 100.0) {
		snprintf(err, errlen, "a CDF needs at least 2 points and must end at 100 percent");
		goto fail;
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	sim_cdf_free(c);
	return -1;
}

int
sim_cdf_load(struct sim_cdf *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text = NULL, e[200];
	long len;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
			len > (1L << 24)) {
		snprintf(err, errlen, "%s: cannot read (or larger than 16 MB)", path);
		goto out;
	}
	text = malloc((size_t)len + 1);
	if (text == NULL || fread(text, 1, (size_t)len, f) != (size_t)len) {
		snprintf(err, errlen, "%s: cannot read", path);
		goto out;
	}
	text[len] = '\0';
	rc = sim_cdf_parse(c, text, e, sizeof(e));
	if (rc != 0)
		snprintf(err, errlen, "%s: %s", path, e);
out:
	free(text);
	fclose(f);
	return rc;
}

void
sim_cdf_free(struct sim_cdf *c)
{
	free(c->x);
	free(c->y);
	memset(c, 0, sizeof(*c));
}

double
sim_cdf_value(const struct sim_cdf *c, double pct)
{
	/* The generator's rule: the first point at or above pct, and linear
	 * between it and the one before. A vertical step (equal percents)
	 * is never the first match unless pct equals it, where either end
	 * is the same value. */
	for (unsigned int i = 1; i < c->n; i++) {
		if (pct <= c->y[i]) {
			double dy = c->y[i] - c->y[i - 1];

			if (dy <= 0)
				return c->x[i];
			return c->x[i - 1] + (c->x[i] - c->x[i - 1]) * (pct - c->y[i - 1]) / dy;
		}
	}
	return c->x[c->n - 1];
}

double
sim_cdf_mean(const struct sim_cdf *c)
{
	double s = 0;

	for (unsigned int i = 1; i < c->n; i++)
		s += (c->x[i] + c->x[i - 1]) / 2.0 * (c->y[i] - c->y[i - 1]);
	return s / 100.0;
}

/* The integral of floor(t) for t in [0, w], w >= 0. */
static double
floor_integral(double w)
{
	double k = floor(w);

	return k * (k - 1) / 2 + k * (w - k);
}

double
sim_cdf_mean_chunks(const struct sim_cdf *c, uint64_t chunk)
{
	/* A value v of the interpolation becomes the size max(1, floor(v)),
	 * cut into g(v) = ceil(size / chunk) packets: 1 for v < 1, and
	 * floor((v - 1) / chunk) + 1 above (floor(floor(v) / n) = floor(v /
	 * n) for a whole n). Per segment v is uniform on [x0, x1] with
	 * probability (y1 - y0) / 100, so the mean is a sum of integrals of
	 * floor, in closed form. */
	double m = (double)(chunk > 0 ? chunk : 1), s = 0;

	for (unsigned int i = 1; i < c->n; i++) {
		double x0 = c->x[i - 1], x1 = c->x[i], p = (c->y[i] - c->y[i - 1]) / 100.0;
		double lo, e;

		if (p <= 0)
			continue;
		if (x1 <= x0) {
			/* All its mass at x1. */
			e = x1 < 1 ? 1 : floor((x1 - 1) / m) + 1;
			s += p * e;
			continue;
		}
		lo = x0 < 1 ? 1 : x0;
		/* Below 1: one packet. */
		e = (x1 < 1 ? x1 : 1) - x0;
		e = e > 0 ? e : 0;
		if (x1 > lo)
			e += m * (floor_integral((x1 - 1) / m) - floor_integral((lo - 1) / m)) +
			     (x1 - lo);
		s += p * e / (x1 - x0);
	}
	return s;
}

uint64_t
sim_cdf_sample(const struct sim_cdf *c, struct sim_rng *r)
{
	double v = sim_cdf_value(c, sim_rng_double(r) * 100.0);
	uint64_t s = (uint64_t)v;

	return s > 0 ? s : 1;
}

/* A gap to the next arrival, whole nanoseconds (the generator's int()). */
static uint64_t
wl_gap(struct sim_workload *w, uint32_t h)
{
	return (uint64_t)sim_rng_exp(&w->rng[h], w->mean_iat_ns);
}

int
sim_workload_init(struct sim_workload *w, const struct sim_workload_params *p,
		const struct sim_cdf *cdf, char *err, size_t errlen)
{
	double mean = sim_cdf_mean(cdf);

	memset(w, 0, sizeof(*w));
	if (p->n_hosts < 2) {
		snprintf(err, errlen, "a workload needs at least 2 hosts");
		return -1;
	}
	if (!(p->oversub > 0) || !(p->host_gbps > 0) || !(p->load > 0)) {
		snprintf(err, errlen, "load, link speed and oversubscription must be above 0");
		return -1;
	}
	if (!(mean > 0)) {
		snprintf(err, errlen, "the CDF's mean size is 0");
		return -1;
	}
	w->cdf = cdf;
	w->n_hosts = p->n_hosts;
	w->host_load = p->load / p->oversub;
	if (w->host_load > 1.0) {
		snprintf(err, errlen, "host load %.3f (load / oversubscription) is above 1",
				w->host_load);
		return -1;
	}
	if (p->wire_per_payload != 0 && !(p->wire_per_payload >= 1.0 && p->wire_per_payload < 16)) {
		snprintf(err, errlen, "wire bytes per payload byte %.4f: not in [1, 16)",
				p->wire_per_payload);
		return -1;
	}
	/* host_gbps x host_load bits per ns are offered on average: of
	 * payload, or of wire bytes (wire_per_payload of them a payload
	 * byte). */
	w->mean_iat_ns = mean * 8.0 * (p->wire_per_payload > 0 ? p->wire_per_payload : 1.0) /
			 (p->host_gbps * w->host_load);
	w->end_ns = p->start_ns + p->duration_ns;
	w->rng = calloc(p->n_hosts, sizeof(*w->rng));
	w->next_ns = calloc(p->n_hosts, sizeof(*w->next_ns));
	if (w->rng == NULL || w->next_ns == NULL) {
		sim_workload_fini(w);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t h = 0; h < p->n_hosts; h++) {
		uint64_t t;

		/* Streams far apart: splitmix64 decorrelates nearby seeds. */
		sim_rng_seed(&w->rng[h], p->seed * 0x9e3779b97f4a7c15ULL + h + 1);
		t = p->start_ns + wl_gap(w, h);
		w->next_ns[h] = t < w->end_ns ? t : UINT64_MAX;
	}
	return 0;
}

void
sim_workload_fini(struct sim_workload *w)
{
	free(w->rng);
	free(w->next_ns);
	w->rng = NULL;
	w->next_ns = NULL;
}

int
sim_workload_take(struct sim_workload *w, uint32_t h, struct sim_workload_flow *f)
{
	uint64_t r, t = w->next_ns[h];

	if (t == UINT64_MAX)
		return -1;
	f->src = h;
	/* Uniform among the n - 1 others: the generator redraws dst == src,
	 * which gives the same distribution. */
	r = sim_rng_below(&w->rng[h], w->n_hosts - 1);
	f->dst = (uint32_t)(r >= h ? r + 1 : r);
	f->size = sim_cdf_sample(w->cdf, &w->rng[h]);
	f->start_ns = t;
	t += wl_gap(w, h);
	w->next_ns[h] = t < w->end_ns ? t : UINT64_MAX;
	return 0;
}
