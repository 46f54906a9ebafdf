/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Limits and small helpers shared by every rocetor library. Nothing here
 * depends on the EAL being initialised, so pure libraries and their unit
 * tests can include it.
 */
#ifndef RTR_COMMON_H
#define RTR_COMMON_H

#include <stdint.h>

#define RTR_MAX_PORTS	    32	 /* DPDK ports a switch may use */
#define RTR_MAX_LCORES	    64	 /* worker lcores */
#define RTR_MAX_PATHS	    64	 /* paths in one uplink group */
#define RTR_MAX_GROUPS	    256	 /* uplink groups */
#define RTR_MAX_ROUTES	    4096 /* routes in a config */
#define RTR_MAX_PORT_ADDRS  4	 /* IPv4 + IPv6 addresses per port */
#define RTR_MAX_DSCP_MAP    64
#define RTR_MAX_CLASSES	    8
#define RTR_PORT_NONE	    0xff /* rtr_meta.in_port of frames the switch originates */
#define RTR_BURST	    32
#define RTR_NAME_LEN	    64

#define RTR_ROCE_UDP_PORT   4791

/* Branch hints usable without rte_branch_prediction.h. */
#ifndef likely
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#define RTR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit status of the executable (DESIGN.md B2). */
#define RTR_EXIT_OK	    0
#define RTR_EXIT_FAILURE    1
#define RTR_EXIT_USAGE	    2

#endif /* RTR_COMMON_H */
