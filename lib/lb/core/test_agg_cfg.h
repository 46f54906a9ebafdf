/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * For the unit tests of the destination-keyed path tables: a ToR with one host port and one aggregate route per family to every
 * remote ToR (10.0.0.0/8 and fd00::/16 over four uplinks), in mode LB, with
 * MODE_SECTION (the mode's own config line) appended.
 */
#ifndef TEST_AGG_CFG_H
#define TEST_AGG_CFG_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define TEST_AGG_UPLINKS                                          \
	"    paths:\n"                                            \
	"      - {port: 1, nexthop_mac: \"02:00:00:00:bb:01\"}\n" \
	"      - {port: 2, nexthop_mac: \"02:00:00:00:bb:02\"}\n" \
	"      - {port: 3, nexthop_mac: \"02:00:00:00:bb:03\"}\n" \
	"      - {port: 4, nexthop_mac: \"02:00:00:00:bb:04\"}\n"

#define TEST_AGG_CFG(LB, MODE_SECTION)                                                 \
	"switch: {name: tor1, role: tor, id: 1, lb: " LB "}\n"                         \
	"ports:\n"                                                                     \
	"  - {port: 0, role: host, mac: \"02:00:00:00:07:00\"}\n"                      \
	"  - {port: 1, role: fabric, mac: \"02:00:00:00:07:01\"}\n"                    \
	"  - {port: 2, role: fabric, mac: \"02:00:00:00:07:02\"}\n"                    \
	"  - {port: 3, role: fabric, mac: \"02:00:00:00:07:03\"}\n"                    \
	"  - {port: 4, role: fabric, mac: \"02:00:00:00:07:04\"}\n"                    \
	"routes:\n"                                                                    \
	"  - {prefix: \"10.1.0.0/24\", port: 0, nexthop_mac: \"02:00:00:00:aa:01\"}\n" \
	"  - {prefix: \"fd00:1::/64\", port: 0, nexthop_mac: \"02:00:00:00:aa:01\"}\n" \
	"  - prefix: \"10.0.0.0/8\"\n" TEST_AGG_UPLINKS                                \
	"  - prefix: \"fd00::/16\"\n" TEST_AGG_UPLINKS MODE_SECTION

/* The addresses of a flow from host 10.1.0.h / fd00:1::h to host 5 of ToR
 * tor (10.tor.0.5 / fd00:tor::5); src and dst are 16 bytes, zeroed here. */
static inline void
test_agg_addrs(bool v6, uint8_t tor, uint8_t h, uint8_t src[16], uint8_t dst[16])
{
	memset(src, 0, 16);
	memset(dst, 0, 16);
	if (!v6) {
		src[0] = 10, src[1] = 1, src[3] = h;
		dst[0] = 10, dst[1] = tor, dst[3] = 5;
	} else {
		src[0] = 0xfd, src[3] = 1, src[15] = h;
		dst[0] = 0xfd, dst[3] = tor, dst[15] = 5;
	}
}

#endif /* TEST_AGG_CFG_H */
