/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The switch's own addresses and its neighbours: answers ARP requests, IPv6
 * neighbour solicitations and ICMP/ICMPv6 echo requests for the port
 * addresses ("ip:" in the config), and resolves next hops whose MAC is not
 * configured by ARP / ND.
 *
 * Threading: the control lcore owns struct rtr_neigh and is its only writer.
 * Workers only read a next hop's MAC through rtr_nh_mac_load() (or
 * rtr_nh_mac(), which uses it), one atomic 64-bit load, so the data path never blocks on resolution: an unresolved next hop
 * makes the packet drop under "neigh_unresolved".
 *
 * Next-hop states (control lcore only):
 *
 *   STATIC ----------------------------------------------> (never changes)
 *   INCOMPLETE --reply--> REACHABLE --3/4 lifetime--> PROBE --reply--> REACHABLE
 *        ^                                              |
 *        +-------------- lifetime over, no reply -------+   (MAC invalidated)
 *
 * Time is a plain nanosecond counter passed by the caller, so unit tests use
 * a virtual clock. No EAL needed.
 */
#ifndef RTR_NEIGH_H
#define RTR_NEIGH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#include "rtr_common.h"
#include "rtr_config.h"
#include "rtr_parse.h"

#define RTR_NH_MAX   4096
#define RTR_NH_VALID (1ULL << 63)

enum rtr_nh_state {
	RTR_NH_STATIC = 0,
	RTR_NH_INCOMPLETE,
	RTR_NH_REACHABLE,
	RTR_NH_PROBE,
};

/* What the data path reads. mac_word: bit 63 valid, bits 0..47 the MAC
 * (byte 0 of the MAC in bits 40..47). */
struct rtr_nh {
	_Atomic uint64_t mac_word;
	uint16_t port;
	uint8_t state;      /* enum rtr_nh_state, control lcore only */
	uint8_t probes;     /* probes sent since the last answer */
	struct rtr_addr ip; /* family 0 for a static next hop without address */
	uint64_t expire_ns; /* REACHABLE/PROBE: when the MAC stops being valid */
	uint64_t next_probe_ns;
};

/* Counters of the control plane (summed into the stats document "neigh"). */
#define RTR_NEIGH_COUNTERS(X)                                         \
	X(arp_rx, "ARP frames received")                              \
	X(arp_request_tx, "ARP requests sent to resolve next hops")   \
	X(arp_reply_tx, "ARP replies sent for our addresses")         \
	X(nd_rx, "ICMPv6 neighbour discovery packets received")       \
	X(ns_tx, "neighbour solicitations sent")                      \
	X(na_tx, "neighbour advertisements sent for our addresses")   \
	X(icmp_echo_rx, "ICMP/ICMPv6 echo requests to our addresses") \
	X(icmp_echo_tx, "ICMP/ICMPv6 echo replies sent")              \
	X(resolved, "next hops that became reachable")                \
	X(expired, "next hops whose MAC expired without an answer")   \
	X(ignored, "control packets received and not answered (not ours, malformed)")

struct rtr_neigh_stats {
#define RTR_NEIGH_FIELD(n, d) uint64_t n;
	RTR_NEIGH_COUNTERS(RTR_NEIGH_FIELD)
#undef RTR_NEIGH_FIELD
};

struct rtr_neigh; /* opaque */

/*
 * Create from the config: the port addresses and MACs (port_macs[port] is
 * the MAC each configured port uses). lifetime_ns: how long an answer keeps
 * a MAC valid (switch.neigh_timeout_s). Returns NULL on allocation failure.
 */
struct rtr_neigh *rtr_neigh_create(const struct rtr_config *cfg,
		const uint8_t port_macs[RTR_MAX_PORTS][6], uint64_t lifetime_ns);
void rtr_neigh_free(struct rtr_neigh *n);

/*
 * Add a next hop. mac != NULL: STATIC and valid at once. Else ip must be set
 * and the next hop starts INCOMPLETE. Adding the same (port, ip) twice returns
 * the same index. Returns the index (0..RTR_NH_MAX-1) or -1.
 */
int rtr_neigh_add(
		struct rtr_neigh *n, uint16_t port, const struct rtr_addr *ip, const uint8_t *mac);

/* The next-hop array; workers index it with the value from routing. */
struct rtr_nh *rtr_neigh_nh(struct rtr_neigh *n, unsigned int idx);
/* The next hops by index (rtr_neigh_nh without the bounds check, for the
 * data path, whose indices come from the route table): the array lives as
 * long as the table. */
struct rtr_nh *rtr_neigh_nh_table(struct rtr_neigh *n);
unsigned int rtr_neigh_count(const struct rtr_neigh *n);

/* True if addr (network order, family given) is one of port's own addresses
 * (any port when port == UINT16_MAX). */
bool rtr_neigh_is_local(const struct rtr_neigh *n, uint16_t port, int family, const void *addr);

/*
 * A frame the data path punted to the control plane: ARP, ICMPv6 ND
 * (types 133..137), or an IP packet addressed to one of our addresses.
 * Learns from it and writes at most one reply frame into out (outlen >= 1514
 * is always enough); returns the reply length, 0 if there is none. The reply
 * leaves on the same port. m is the parser's metadata for the frame.
 */
uint32_t rtr_neigh_input(struct rtr_neigh *n, uint16_t port, const uint8_t *frame, uint32_t len,
		const struct rtr_meta *m, uint64_t now_ns, uint8_t *out, uint32_t outlen);

/*
 * Timers: called every few milliseconds by the control lcore. For each next
 * hop that needs a probe now (INCOMPLETE every 1 s until answered, PROBE from
 * 3/4 of the lifetime, every lifetime/8), calls emit() with a ready frame to
 * send on port. Invalidates MACs whose lifetime is over. Returns probes sent.
 */
typedef void (*rtr_neigh_emit_t)(void *arg, uint16_t port, const uint8_t *frame, uint32_t len);
unsigned int rtr_neigh_tick(struct rtr_neigh *n, uint64_t now_ns, rtr_neigh_emit_t emit, void *arg);

const struct rtr_neigh_stats *rtr_neigh_stats(const struct rtr_neigh *n);

/* Data path: the next hop's MAC word, one acquire load; the MAC is
 * resolved when RTR_NH_VALID is set. */
static inline uint64_t
rtr_nh_mac_load(const struct rtr_nh *nh)
{
	return atomic_load_explicit(&nh->mac_word, memory_order_acquire);
}

/* Write a MAC word's MAC at dst as one 8-byte store: dst[0..5] get the MAC,
 * dst[6..7] two bytes of nothing (an Ethernet header's source MAC, which
 * the caller writes next). */
static inline void
rtr_nh_mac_store8(uint8_t *dst, uint64_t w)
{
	uint64_t be = rte_cpu_to_be_64(w << 16); /* bits 47..0, first byte highest */

	memcpy(dst, &be, sizeof(be));
}

/* The MAC to write as destination, false if not resolved. */
static inline bool
rtr_nh_mac(const struct rtr_nh *nh, uint8_t mac[6])
{
	uint64_t w = rtr_nh_mac_load(nh);

	if (!(w & RTR_NH_VALID))
		return false;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)(w >> (40 - 8 * i));
	return true;
}

#endif /* RTR_NEIGH_H */
