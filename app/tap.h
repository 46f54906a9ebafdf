/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The exception path (doc/routing.md "The kernel side"): one kernel TAP
 * interface per port with ports[].tap (DPDK's net_tap, named ports[].ifname,
 * the port's MAC), moved into fpm.netns when set, brought up with the
 * port's MTU and addresses. The control lcore
 *   - sends the kernel what the switch does not answer itself: packets for
 *     the switch's own addresses other than echo requests (BGP, BFD...),
 *     and a copy of ARP replies and IPv6 neighbour advertisements so that
 *     the kernel learns its peers (it never sees requests: rocetor answers
 *     them for the port's addresses);
 *   - injects into the port, as they are, the frames the kernel sends on
 *     the tap.
 * The workers' punt rate limit (RTR_PUNT_RATE_PPS) bounds what reaches the
 * kernel; every frame is counted.
 */
#ifndef RTR_APP_TAP_H
#define RTR_APP_TAP_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "rtr_app.h"

struct rtr_tap_counters {
	uint64_t to_kernel, to_kernel_dropped; /* punted frames written to the tap */
	uint64_t from_kernel, from_kernel_dropped;
};

/* After the ports started: make the taps and hook them in (the control
 * plane's kernel_punt, the workers' local_punt). Returns 0, or -1 with a
 * message printed (the caller stops). */
int rtr_tap_setup(struct rtr_app *app);
/* Control lcore: what the kernel sent, into the ports. Returns frames. */
unsigned int rtr_tap_poll(struct rtr_app *app);
/* The control plane's hook for a punted frame it did not answer (len 0)
 * or answered (len > 0): true if the tap took m. */
bool rtr_tap_punt(struct rtr_switch *sw, struct rte_mbuf *m, uint32_t reply_len);
void rtr_tap_close(struct rtr_app *app);
/* Telemetry: per data port, false if it has no tap. */
bool rtr_tap_counters(const struct rtr_app *app, uint16_t port, struct rtr_tap_counters *out);

#endif /* RTR_APP_TAP_H */
