/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Drop reasons. One X-macro produces the enum and the names, so a reason
 * reads the same in code, telemetry, the stats JSON and doc/counters.md.
 * Append new reasons at the end; never rename one (DESIGN.md B5).
 */
#ifndef RTR_DROP_H
#define RTR_DROP_H

#define RTR_DROP_REASONS(X)                                                                        \
	X(NONE, "none", "not dropped (never counted)")                                             \
	X(MALFORMED, "malformed", "truncated or inconsistent Ethernet/VLAN/IP/UDP/BTH headers")    \
	X(NOT_IP, "not_ip", "EtherType is neither IPv4, IPv6 nor ARP")                             \
	X(L2_NOT_FOR_US, "l2_not_for_us",                                                          \
			"destination MAC is not the port's, broadcast or multicast")               \
	X(NO_ROUTE, "no_route", "no route matches the destination address")                        \
	X(TTL, "ttl", "IPv4 TTL or IPv6 hop limit would reach zero")                               \
	X(NEIGH_UNRESOLVED, "neigh_unresolved", "next hop MAC not resolved yet (ARP/ND pending)")  \
	X(PORT_DOWN, "port_down", "egress port or every path of the group is down")                \
	X(QUEUE_FULL, "queue_full", "the egress queue or TX ring was full")                        \
	X(HOST_LB_PACKET, "host_lb_packet", "LB control packet or shim received from a host port") \
	X(SOURCE_CHECK, "source_check",                                                            \
			"host packet whose source address does not route back to its port "        \
			"(ports[].source_check)")                                                  \
	X(LOCAL_UNSUPPORTED, "local_unsupported",                                                  \
			"addressed to the switch but not ARP/ND/ICMP echo")                        \
	X(CONTROL_RING_FULL, "control_ring_full", "control-plane punt ring was full")              \
	X(HANDOFF_FULL, "handoff_full", "inter-lcore hand-off ring was full")                      \
	X(SHUTDOWN, "shutdown", "in flight when the switch stopped and no port could take it")     \
	X(IMPAIR_LOSS, "impair_loss",                                                              \
			"dropped by the port's configured random loss (lab impairment)")           \
	X(FAULT_RTT_REPLY, "fault_rtt_reply",                                                      \
			"ConWeave RTT_REPLY lost by faults.ctrl_loss (lab impairment)")            \
	X(FAULT_CLEAR, "fault_clear", "ConWeave CLEAR lost by faults.ctrl_loss (lab impairment)")  \
	X(FAULT_NOTIFY, "fault_notify",                                                            \
			"ConWeave NOTIFY / SeqBalance Congestion Packet lost by faults.ctrl_loss") \
	X(FAULT_TAIL, "fault_tail",                                                                \
			"ConWeave TAIL data packet lost by faults.ctrl_loss (lab impairment)")     \
	X(FAULT_ADVERT, "fault_advert",                                                            \
			"CAVER-shimmed RC ACK lost by faults.ctrl_loss (lab impairment)")          \
	X(PUNT_RATE_LIMITED, "punt_rate_limited",                                                  \
			"frame for the control plane over the worker's punt rate (ARP/ND/echo "    \
			"flood)")                                                                  \
	X(OVERSIZE, "oversize",                                                                    \
			"frame larger than the mbuf data room (the port MTU): it arrived in "      \
			"segments")

enum rtr_drop_reason {
#define RTR_DROP_ENUM(e, s, d) RTR_DROP_##e,
	RTR_DROP_REASONS(RTR_DROP_ENUM)
#undef RTR_DROP_ENUM
			RTR_DROP_MAX
};

extern const char *const rtr_drop_names[RTR_DROP_MAX];
extern const char *const rtr_drop_help[RTR_DROP_MAX];

#endif /* RTR_DROP_H */
