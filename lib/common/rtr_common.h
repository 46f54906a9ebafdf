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
#include <string.h>

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

/*
 * memmove for a packet's headers (n bytes, 16 <= n <= RTR_HEAD_MAX), e.g.
 * Eth..BTH moved by the 4 bytes of a ConWeave header. Every load happens
 * before any store, so src and dst may overlap either way; fixed-size
 * copies compile to a few vector moves instead of a libc call. Reads up
 * to RTR_HEAD_MAX bytes at src (callers ensure that much buffer is there:
 * an mbuf's data room), writes exactly n at dst.
 */
#define RTR_HEAD_MAX 128
static inline void
rtr_move_head(uint8_t *dst, const uint8_t *src, unsigned int n)
{
	uint8_t t[RTR_HEAD_MAX];
	unsigned int i;

	memcpy(t, src, RTR_HEAD_MAX);
	for (i = 0; i + 16 <= n; i += 16)
		memcpy(dst + i, t + i, 16);
	if (i < n)
		memcpy(dst + n - 16, t + n - 16, 16);
}

#endif /* RTR_COMMON_H */
