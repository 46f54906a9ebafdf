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

#define RTR_MAX_PORTS      32   /* DPDK ports a switch may use */
#define RTR_MAX_LCORES     64   /* worker lcores */
#define RTR_MAX_PATHS      64   /* paths in one uplink group */
#define RTR_MAX_GROUPS     256  /* uplink groups */
#define RTR_MAX_ROUTES     4096 /* routes in a config */
#define RTR_MAX_PORT_ADDRS 4    /* IPv4 + IPv6 addresses per port */
#define RTR_MAX_DSCP_MAP   64
#define RTR_MAX_CLASSES    8
#define RTR_PORT_NONE      0xff /* rtr_meta.in_port of frames the switch originates */
#define RTR_BURST          32
#define RTR_NAME_LEN       64

#define RTR_ROCE_UDP_PORT  4791

/* Branch hints usable without rte_branch_prediction.h. */
#ifndef likely
#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

#define RTR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Exit status of the executable (DESIGN.md B2). */
#define RTR_EXIT_OK      0
#define RTR_EXIT_FAILURE 1
#define RTR_EXIT_USAGE   2

/*
 * memmove for a packet's headers (n bytes, 16 <= n <= RTR_HEAD_MAX), e.g.
 * Eth..BTH moved by the 4 bytes of a ConWeave header. Every load happens
 * before any store, so src and dst may overlap either way; fixed-size
 * copies compile to a few vector moves instead of a libc call. Reads up
 * to 64 bytes at src when n <= 64, else up to RTR_HEAD_MAX (callers ensure
 * that much buffer is there: an mbuf's data room), writes exactly n at dst.
 */
#define RTR_HEAD_MAX 128
typedef uint8_t rtr_v16 __attribute__((vector_size(16)));
static inline void
rtr_move_head(uint8_t *dst, const uint8_t *src, unsigned int n)
{
	/* Loads and stores of 16 bytes held in registers: a bounce through a
	 * stack copy made each 16-byte load wait on a wider store it could
	 * not be forwarded from (a store-forwarding stall, about a fifth of
	 * ConWeave's SrcToR pick). */
	rtr_v16 c0, c1, c2, c3, c4, c5, c6, c7, tail;

	_Static_assert(RTR_HEAD_MAX == 128, "rtr_move_head holds 8 chunks");
	memcpy(&c0, src, 16);
	memcpy(&c1, src + 16, 16);
	memcpy(&c2, src + 32, 16);
	memcpy(&c3, src + 48, 16);
	/* Beyond the first 64 bytes only when the headers reach there (IPv6):
	 * for IPv4 that would touch a cache line of the packet nobody needs,
	 * a miss when the frame came from DRAM. */
	if (n > 64) {
		memcpy(&c4, src + 64, 16);
		memcpy(&c5, src + 80, 16);
		memcpy(&c6, src + 96, 16);
		memcpy(&c7, src + 112, 16);
	} else {
		c4 = c5 = c6 = c7 = c0;
	}
	memcpy(&tail, src + n - 16, 16);
	memcpy(dst, &c0, 16);
	if (n >= 32)
		memcpy(dst + 16, &c1, 16);
	if (n >= 48)
		memcpy(dst + 32, &c2, 16);
	if (n >= 64)
		memcpy(dst + 48, &c3, 16);
	if (n >= 80)
		memcpy(dst + 64, &c4, 16);
	if (n >= 96)
		memcpy(dst + 80, &c5, 16);
	if (n >= 112)
		memcpy(dst + 96, &c6, 16);
	if (n >= 128)
		memcpy(dst + 112, &c7, 16);
	memcpy(dst + n - 16, &tail, 16);
}

#endif /* RTR_COMMON_H */
