/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * FPM, the stream zebra's dplane_fpm_nl module sends (FRR 8.4; the facts
 * and their sources: doc/frr-fpm-research.md): TCP, frames of a 4-byte
 * header (version 1, type 1 = netlink, length in network order including
 * the header) and netlink messages in host order, one or more per frame
 * (a route update is RTM_DELROUTE then RTM_NEWROUTE in one frame). This is
 * the decoder: pure, no socket, every length checked (the fuzzer feeds it
 * anything). The server that applies what it decodes is app/fpm.c.
 */
#ifndef RTR_FPM_H
#define RTR_FPM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtr_common.h"
#include "rtr_config.h"

#define RTR_FPM_HDR       4
#define RTR_FPM_FRAME_MAX 65535 /* the header's u16; zebra sends up to 8196 */

/* A next hop as zebra names it: a gateway (family 0: none, a directly
 * attached destination) and the kernel ifindex of its interface in
 * zebra's namespace. */
struct rtr_fpm_nh {
	struct rtr_addr gw;
	uint32_t ifindex;
	uint8_t weight; /* 1.. (rtnh_hops + 1) */
	uint8_t onlink; /* RTNH_F_ONLINK (RFC 5549's 169.254.0.1) */
};

/* RTM_NEWROUTE / RTM_DELROUTE. */
struct rtr_fpm_route {
	bool del;
	struct rtr_addr prefix;
	uint32_t table;   /* rtm_table, or RTA_TABLE */
	uint8_t type;     /* rtm_type: RTN_UNICAST 1, RTN_BLACKHOLE 6, ... */
	uint8_t protocol; /* rtm_protocol: 2 kernel/connected, 186 BGP, 196 static */
	uint32_t nh_id;   /* RTA_NH_ID (next-hop objects); 0: none */
	unsigned int n_nh;
	struct rtr_fpm_nh nh[RTR_MAX_PATHS];
	unsigned int n_nh_cut; /* next hops past RTR_MAX_PATHS, left out */
};

/* RTM_NEWNEXTHOP / RTM_DELNEXTHOP (fpm use-next-hop-groups, FRR's default). */
struct rtr_fpm_nhobj {
	bool del;
	uint32_t id;
	bool blackhole;
	bool group;
	struct rtr_fpm_nh nh; /* !group */
	unsigned int n_grp;   /* group */
	uint32_t grp[RTR_MAX_PATHS];
	uint8_t grp_weight[RTR_MAX_PATHS];
};

struct rtr_fpm_msg {
	enum { RTR_FPM_ROUTE = 1, RTR_FPM_NEXTHOP, RTR_FPM_OTHER } kind;
	union {
		struct rtr_fpm_route route;
		struct rtr_fpm_nhobj nhobj;
	};
};

/*
 * The first frame of a byte stream: 1 with *frame_len (header included)
 * when a whole frame is there, 0 when more bytes are needed, -1 when the
 * header is bad (version or type not 1, length under 4 or not a multiple
 * of 4: the stream cannot be trusted any more).
 */
int rtr_fpm_frame(const uint8_t *buf, size_t len, size_t *frame_len);

/*
 * The netlink messages of one frame's payload (after the 4-byte header),
 * at most max into out: returns how many, or -1 when the payload is
 * malformed (a length past its end, a message shorter than its header):
 * then nothing of the frame is to be used. Messages rocetor does not use
 * (other types, families other than IPv4 and IPv6 such as AF_MPLS) come
 * out as RTR_FPM_OTHER.
 */
int rtr_fpm_decode(const uint8_t *p, size_t len, struct rtr_fpm_msg *out, unsigned int max);

#endif /* RTR_FPM_H */
