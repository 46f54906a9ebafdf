/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "rtr_cfg_schema.h"
#include "rtr_lb.h"
#include "rtr_lb_modes.h"
#include "rtr_lb_registry.h"
#include "rtr_lb_worker.h"
#include "rtr_suggest.h"

/* ------------------------------------------------------------ the registry */

/* A name the config accepts and this build does not implement would be a
 * descriptor with no ops, listed after the modes (none today). */

/* Each mode's descriptor, defined in its folder (rtr_lb_<name>_desc). */
#define LB_MODE_EXTERN(d) extern const struct rtr_lb_desc d;
RTR_LB_MODE_DESCS(LB_MODE_EXTERN)
#undef LB_MODE_EXTERN

/* Index = mode id = enum rtr_lb_mode: the modes of lib/lb/meson.build's
 * lb_modes (rtr_lb_modes.h), then the reserved names. */
static const struct rtr_lb_desc *const lb_modes[] = {
#define LB_MODE_ENTRY(d) &d,
		RTR_LB_MODE_DESCS(LB_MODE_ENTRY)
#undef LB_MODE_ENTRY
};
_Static_assert(RTE_DIM(lb_modes) == RTR_LB_MAX, "lb_modes[] out of step with enum rtr_lb_mode");
_Static_assert(RTE_DIM(lb_modes) <= RTR_LB_MODES_MAX, "more modes than a config can hold");

/*
 * lib/config learns the modes (switch.lb's names, each mode's section)
 * from here, before main(): it must not depend on lib/lb, so the registry
 * hands them over. Every program that loads configs links this library
 * whole (meson link_whole), so this runs even where nothing else of it is
 * called.
 */
/* ECMP's ops: what a ToR-only mode runs on a spine (rtr_lb_mode_ops). */
extern const struct rtr_lb_ops rtr_lb_ecmp;
static struct rtr_lb_ops lb_spine_ops[RTE_DIM(lb_modes)];

int
rtr_lb_registry_check(const struct rtr_lb_desc *const *modes, unsigned int n, char *err, size_t len)
{
	for (unsigned int i = 0; i < n; i++) {
		const struct rtr_lb_desc *d = modes[i];
		unsigned int hl;

		if (d->config != NULL && d->config->size > RTR_LB_CFG_SIZE) {
			snprintf(err, len,
					"LB mode %s: its config section is %zu bytes, more than "
					"RTR_LB_CFG_SIZE (%u, lib/config/rtr_config.h)",
					d->name, d->config->size, (unsigned int)RTR_LB_CFG_SIZE);
			return -EINVAL;
		}
		if ((unsigned int)d->counter_first + d->n_counters > RTR_STATS_LB_SLOTS) {
			snprintf(err, len,
					"LB mode %s: its %u counters end at slot %u, beyond the %u "
					"of RTR_STATS_LB_SLOTS (lib/stats/rtr_stats.h)",
					d->name, d->n_counters,
					(unsigned int)d->counter_first + d->n_counters,
					(unsigned int)RTR_STATS_LB_SLOTS);
			return -EINVAL;
		}
		if (d->ops == NULL || d->ops->fabric_parse_flags == 0)
			continue;
		hl = RTR_PARSE_HDR_LEN(d->ops->fabric_parse_flags);
		if (hl != RTR_LB_TRIM_HDR_LEN) {
			snprintf(err, len,
					"LB mode %s: its parse flags describe a %u-byte header "
					"after the BTH; the egress keeps %u when it trims "
					"(RTR_LB_TRIM_HDR_LEN, the shared LB layout: "
					"lib/lb/core/rtr_lb_wire.h)",
					d->name, hl, (unsigned int)RTR_LB_TRIM_HDR_LEN);
			return -EINVAL;
		}
	}
	return 0;
}

RTE_INIT(lb_modes_to_config)
{
	struct rtr_config_lb_mode m[RTE_DIM(lb_modes)];
	char err[256];

	/* Before main(): say which mode is wrong, rather than abort. */
	if (rtr_lb_registry_check(lb_modes, RTE_DIM(lb_modes), err, sizeof(err)) != 0) {
		fprintf(stderr, "rocetor: %s\n", err);
		exit(1);
	}

	/* A ToR-only mode on a spine: ECMP under the mode's name. */
	for (unsigned int i = 0; i < RTE_DIM(lb_modes); i++) {
		const struct rtr_lb_ops *ops = lb_modes[i]->ops;

		if (ops == NULL || lb_modes[i]->spine != RTR_LB_SPINE_ECMP)
			continue;
		lb_spine_ops[i] = rtr_lb_ecmp;
		lb_spine_ops[i].name = ops->name;
		lb_spine_ops[i].mode = ops->mode;
		lb_spine_ops[i].fabric_parse_flags = ops->fabric_parse_flags;
	}
	for (unsigned int i = 0; i < RTE_DIM(lb_modes); i++)
		m[i] = (struct rtr_config_lb_mode){lb_modes[i]->name, lb_modes[i]->config,
				rtr_lb_mode_fabric_hdr(i, false)};
	if (rtr_config_set_lb_modes(m, RTE_DIM(lb_modes)) != 0)
		abort();
}

unsigned int
rtr_lb_mode_count(void)
{
	return RTE_DIM(lb_modes);
}

const struct rtr_lb_desc *
rtr_lb_mode_at(unsigned int id)
{
	return id < RTE_DIM(lb_modes) ? lb_modes[id] : NULL;
}

int
rtr_lb_mode_find(const char *name)
{
	for (unsigned int i = 0; i < RTE_DIM(lb_modes); i++)
		if (strcmp(lb_modes[i]->name, name) == 0)
			return (int)i;
	return -1;
}

const char *
rtr_lb_mode_suggest(const char *name)
{
	const char *names[RTE_DIM(lb_modes)];

	for (unsigned int i = 0; i < RTE_DIM(lb_modes); i++)
		names[i] = lb_modes[i]->name;
	return rtr_suggest(name, names, RTE_DIM(lb_modes));
}

const char *
rtr_lb_mode_list(char *buf, size_t len, const char *sep, bool implemented_only)
{
	size_t off = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (unsigned int i = 0; i < RTE_DIM(lb_modes); i++) {
		int n;

		if (implemented_only && lb_modes[i]->ops == NULL)
			continue;
		n = snprintf(buf + off, len - off, "%s%s", off ? sep : "", lb_modes[i]->name);
		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
	}
	return buf;
}

const struct rtr_lb_ops *
rtr_lb_mode_ops(unsigned int id, bool on_spine)
{
	const struct rtr_lb_desc *d = rtr_lb_mode_at(id);

	if (d == NULL || d->ops == NULL)
		return NULL;
	if (on_spine && d->spine == RTR_LB_SPINE_ECMP)
		return &lb_spine_ops[id];
	return d->ops;
}

unsigned int
rtr_lb_mode_fabric_hdr(unsigned int id, bool on_spine)
{
	const struct rtr_lb_ops *ops = rtr_lb_mode_ops(id, on_spine);

	if (ops == NULL || !(ops->deliver_flags & RTR_MF_LB_HDR))
		return 0;
	return RTR_PARSE_HDR_LEN(ops->fabric_parse_flags);
}
