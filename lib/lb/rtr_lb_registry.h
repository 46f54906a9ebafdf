/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The LB mode registry (rtr_lb_registry.c): the modes of lib/lb/meson.build's
 * lb_modes, by id or by name. What app/, telemetry, config and the tools
 * know of modes comes from here; the modes themselves need only rtr_lb.h,
 * so the registry uses the modes and never the other way.
 */
#ifndef RTR_LB_REGISTRY_H
#define RTR_LB_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "rtr_lb.h"

/* Modes in the registry (implemented or reserved); ids are 0..count-1. */
unsigned int rtr_lb_mode_count(void);
/* The descriptor of mode id, or NULL when out of range. */
const struct rtr_lb_desc *rtr_lb_mode_at(unsigned int id);
/* The id of the mode called name, or -1. */
int rtr_lb_mode_find(const char *name);
/* The mode name nearest to a misspelt one ("did you mean"), or NULL when
 * none is near (rtr_suggest.h). */
const char *rtr_lb_mode_suggest(const char *name);
/* The names, separated by sep, into buf (truncated to len): every mode, or
 * only those this build implements. Returns buf. */
const char *rtr_lb_mode_list(char *buf, size_t len, const char *sep, bool implemented_only);

/*
 * The ops mode id runs on a switch: its own, or on a spine (on_spine) for a
 * mode whose descriptor says RTR_LB_SPINE_ECMP, ECMP's ops under the mode's
 * name and id that still parse the mode's fields (its fabric_parse_flags),
 * so that trimming and the control class see them whole. NULL when the
 * build does not implement the mode. The tables are built before main()
 * and never change: workers may keep the pointer.
 */
const struct rtr_lb_ops *rtr_lb_mode_ops(unsigned int id, bool on_spine);

/*
 * The bytes of LB header mode id adds to a host's frame it sends on a
 * fabric port (on_spine: on a spine, see rtr_lb_mode_ops), 0 when none or
 * when the build does not implement it. A mode whose DstToR takes frames
 * with its header (deliver_flags has RTR_MF_LB_HDR) is one whose SrcToR
 * stamps it: its length is the one its fabric parse flags describe. What
 * the MTU rule adds to a host port's MTU (rtr_config_check_mtu).
 */
unsigned int rtr_lb_mode_fabric_hdr(unsigned int id, bool on_spine);

/*
 * The limits a mode's descriptor must stay within, checked for every mode
 * of the registry before main() (the program exits with err on stderr):
 * its config section at most RTR_LB_CFG_SIZE bytes, its counters within
 * RTR_STATS_LB_SLOTS (also a compile-time error naming the mode:
 * rtr_lb_counters.h), and the header its parse flags describe the one the
 * egress keeps when trimming (RTR_LB_TRIM_HDR_LEN). Returns 0, or -EINVAL
 * with err naming the mode and the limit.
 */
int rtr_lb_registry_check(
		const struct rtr_lb_desc *const *modes, unsigned int n, char *err, size_t len);

#endif /* RTR_LB_REGISTRY_H */
