/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "rtr_lb.h"
#include "rtr_lb_modes.h"
#include "rtr_lb_registry.h"
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

RTE_INIT(lb_modes_to_config)
{
	struct rtr_config_lb_mode m[RTE_DIM(lb_modes)];

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
		m[i] = (struct rtr_config_lb_mode){lb_modes[i]->name, lb_modes[i]->config};
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
