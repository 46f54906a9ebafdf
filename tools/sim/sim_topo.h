/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Topologies (doc/simulator.md): nodes (hosts and switches), their ports,
 * and the links between ports. Each switch is a rocetor switch: a struct
 * rtr_config loaded by rtr_config_load_buf from YAML text the builder
 * writes (ports, host routes, an uplink group), and the route table lib/route
 * builds from it, so routing and ECMP are the switch's own.
 *
 * Leaf-spine addressing (IPv4):
 *   host j of ToR t       10.(t+1).j.1, behind ToR port j (10.(t+1).j.254/24)
 *   ToR t port H+s        172.16.s.(2t)/31, to spine s port t (172.16.s.(2t+1))
 *   ToR routes            10.(t+1).j.1/32 -> port j; 10.0.0.0/8 -> the uplink
 *                         group of ports H..H+S-1
 *   spine s routes        10.(t+1).0.0/16 -> port t
 * Oversubscription = H x host_gbps / (S x uplink_gbps).
 *
 * k-ary fat-tree (sim_topo_fattree): k pods of k/2 edge switches (ToRs) and
 * k/2 aggregation switches, (k/2)^2 cores, H hosts per edge (k/2 by
 * default; k/2 x 2 is the ConWeave artifact's 2:1 fat_k*_OS2). Edge t (pod
 * t / (k/2)) is "tor<t>" with the leaf-spine's host addresses and ports
 * (hosts 0..H-1, then agg a of its pod at port H+a); agg a of pod p is
 * "agg<p*k/2+a>" (a SIM_SPINE node: role spine) with its pod's edges at
 * ports 0..k/2-1 and cores a*k/2+j at k/2+j; core c is "core<c>" (SIM_CORE,
 * role spine) with pod p's agg at port p. Fabric links are /31s in
 * 172.16.0.0/14.
 *
 * Routes (both topologies) are what a routing protocol would install after
 * convergence: for every switch and every destination ToR, the ports toward
 * the neighbours one hop closer to it (shortest paths, never through
 * another ToR), over the links that are up. A ToR's set is always an uplink
 * group (the LB mode picks there); elsewhere one port is a plain route and
 * several a group (ECMP, or CAVER's source route). The set most
 * destinations share (the larger on a tie; off a ToR only one of several
 * ports shared by two or more) becomes the default 10.0.0.0/8, the others
 * 10.(t+1).0.0/16 each. Links named in down_links are absent
 * (admin_down in both switches' configs, in no route, sim_port.down).
 *
 * Needs the EAL (the route tables are rte_lpm).
 */
#ifndef SIM_TOPO_H
#define SIM_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "rtr_common.h"
#include "rtr_config.h"
#include "rtr_fwd.h"
#include "rtr_neigh.h"
#include "rtr_route.h"

struct rtr_lb_ops;
struct rtr_egress;
struct rtr_egress_shared;

/* A fat-tree's aggregation switch is a SIM_SPINE (role spine), its core a
 * SIM_CORE (role spine too): sim_net tells hosts from switches only. */
enum sim_node_kind { SIM_HOST = 0, SIM_TOR, SIM_SPINE, SIM_CORE };

/* One direction of a link: what leaves port (node, port) arrives at
 * (peer, peer_port) after the delay. */
struct sim_port {
	uint32_t peer; /* node index */
	uint16_t peer_port;
	double gbps;
	uint64_t delay_ns;
	bool fabric; /* a switch's fabric port (rocetor's port role) */
	bool down;   /* the link is absent (down_links): nothing uses it */
	uint32_t ip; /* a switch port's address (host byte order), else 0 */
	/* Filled by the network (sim_net.c): the port's transmitter. */
	void *tx;
};

struct sim_node {
	enum sim_node_kind kind;
	uint32_t index; /* among nodes of its kind */
	char name[32];
	uint32_t ip; /* hosts: the address (host byte order) */
	uint16_t n_ports;
	struct sim_port *ports;
	/* Switches: */
	struct rtr_config *cfg;
	struct rtr_route *route;
	uint32_t fabric_ports; /* bit p: port p is a fabric port */
	/* The forwarding step's tables (lib/fwd): next hops in rocetor's
	 * neighbour table, every one static (the sim has no ARP: the peer is
	 * known), and the ports as the data path sees them (link up unless
	 * the link is absent). fwd.lb, lb_state and st are set by the network
	 * (sim_net.c). */
	struct rtr_neigh *neigh;
	struct rtr_fwd_port fwd_ports[RTR_MAX_PORTS];
	struct rtr_fwd fwd;
	const struct rtr_lb_ops *lb_ops;
	void *lb_state;
	void *lb_shared;                     /* the mode's shared_create, or NULL */
	void *lb_io;                         /* the io struct's argument (sim_net.c) */
	uint64_t tick_at;                    /* the LB mode's next tick event (UINT64_MAX: none) */
	struct rtr_egress_shared *eg_shared; /* lib/egress (sim_net.c) */
	struct rtr_egress *eg;
};

struct sim_leafspine {
	unsigned int tors, spines, hosts_per_tor;
	double host_gbps;   /* host <-> ToR links */
	double uplink_gbps; /* ToR <-> spine links; 0: host_gbps */
	uint64_t link_delay_ns;
	const char *lb; /* switch.lb; NULL: ecmp */
	uint16_t mtu; /* the switches' host-port MTU (0: 9000); fabric ports 100 more, up to 9600 */
	/* YAML appended to every switch's config: top-level sections other
	 * than switch, ports and routes (qos, an LB mode's section, faults),
	 * what a run's --config gives. NULL: none (rocetor's defaults). */
	const char *sections;
	/* Links that are absent, "tor0:spine1,tor3:spine0" (the nodes'
	 * names). NULL or "": none. */
	const char *down_links;
};

struct sim_fattree {
	unsigned int k; /* even, 2..22 */
	double gbps;    /* every link */
	uint64_t link_delay_ns;
	const char *lb;             /* switch.lb; NULL: ecmp */
	uint16_t mtu;               /* as sim_leafspine.mtu */
	const char *sections;       /* as sim_leafspine.sections */
	const char *down_links;     /* as sim_leafspine.down_links ("tor0:agg1") */
	unsigned int hosts_per_tor; /* 0: k/2 (1:1); k: the artifact's 2:1 */
};

struct sim_topo {
	uint32_t n_nodes, n_hosts, n_switches;
	/* Hosts first, then ToRs (edges), then spines (a fat-tree's aggs),
	 * then a fat-tree's cores. */
	struct sim_node *nodes;
	uint32_t first_tor, first_spine;
	uint32_t first_core; /* n_nodes in a leaf-spine */
	unsigned int n_tors, hosts_per_tor;
	unsigned int k; /* the fat-tree's k; 0: leaf-spine */
	double oversub; /* a ToR's host capacity over its uplinks' */
};

/* Build a leaf-spine fabric: nodes, ports, links, each switch's config and
 * route table. name_prefix keeps LPM names unique in the process. 0 or -1
 * with one line in err. */
int sim_topo_leafspine(struct sim_topo *t, const struct sim_leafspine *p, const char *name_prefix,
		char *err, size_t errlen);
void sim_topo_free(struct sim_topo *t);
/* sim_topo_free without freeing the route tables, for a program about to
 * exit: DPDK zeroes what rte_free returns, so freeing them touches every
 * page of each switch's LPM tables (about 133 MB a switch, IPv4 and IPv6
 * tbl24, that a run never touched): 2.7 GB resident at the end of a k=4
 * fat-tree, 10.7 GB at k=8. */
void sim_topo_release(struct sim_topo *t);

/* Build a k-ary fat-tree (above): 0 or -1 with one line in err. */
int sim_topo_fattree(struct sim_topo *t, const struct sim_fattree *p, const char *name_prefix,
		char *err, size_t errlen);

/* The link between the nodes named a and b: *node = a's index, *port = its
 * port toward b. 0, or -1 (no such node, or not neighbours). */
int sim_topo_link_find(const struct sim_topo *t, const char *a, const char *b, uint32_t *node,
		uint16_t *port);

/* The link at (node, port) runs at gbps, both directions: the sim_ports'
 * rate and, on a switch end, its config's ports[].speed_gbps (rounded to a
 * whole Gb/s, at least 1), which the egress times PFC quanta at and
 * CAVER's DRE measures against. Call it before sim_net_init, which gives
 * the configs to the egress and the LB modes. 0 or -1. */
int sim_topo_link_set_gbps(struct sim_topo *t, uint32_t node, uint16_t port, double gbps);

/* The node named name, or -1. */
int64_t sim_topo_node_by_name(const struct sim_topo *t, const char *name);

/* The YAML text of ToR t's / spine s's config (what sim_topo_leafspine
 * loads). Returns the length written, or -1 if buf is too small. */
int sim_topo_tor_yaml(const struct sim_leafspine *p, unsigned int t, char *buf, size_t len);
int sim_topo_spine_yaml(const struct sim_leafspine *p, unsigned int s, char *buf, size_t len);

/* The node of the host with address ip (host byte order), or -1. */
int64_t sim_topo_host_by_ip(const struct sim_topo *t, uint32_t ip);

/* rte_eal_init without hugepages, PCI or files shared with other runs
 * (--no-huge -m mb, a --file-prefix of name and the pid): the route tables
 * need the EAL's memory. 0 or -1. */
int sim_eal_init(const char *name, unsigned int mb);

static inline uint32_t
sim_host_ip(unsigned int tor, unsigned int j)
{
	return (10u << 24) | ((tor + 1) << 16) | (j << 8) | 1;
}

#endif /* SIM_TOPO_H */
