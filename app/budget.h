/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The mempool budget: how many mbufs the switch's pool needs for a config,
 * a worker count and the ports' queue counts, and how many of them each
 * worker's LB state may hold (reorder rings). A pure function, no EAL:
 * rocetor sizes its pool with it (app/ports.c), rocetor-info prints it
 * (doc/tools.md) and the bench reads it from there, so the formula exists
 * once. The LB modes' share comes from the registry (desc->mbuf_budget).
 */
#ifndef RTR_APP_BUDGET_H
#define RTR_APP_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_config.h>

#include "rtr_config.h"
#include "rtr_lb.h"

/* Descriptors per RX and TX queue, and the pool's per-lcore cache. */
#define RTR_RX_DESC    1024
#define RTR_TX_DESC    1024
#define RTR_POOL_CACHE 256

/* What the budget depends on besides the config. */
struct rtr_budget_in {
	unsigned int workers; /* forwarding lcores, >= 1 */
	/* RX and TX queues of cfg->ports[i], each >= 1 */
	uint16_t rxq[RTR_MAX_PORTS];
	uint16_t txq[RTR_MAX_PORTS];
	/* --telemetry-rw: the LB mode may change at runtime, so the pool is
	 * sized for the implemented mode that holds the most. */
	bool telemetry_rw;
	/* The largest rx_headroom_extra of the ports' drivers (app/nic_caps.h:
	 * af_xdp 256), added to the data room. */
	unsigned int rx_headroom_extra;
};

/* The formula's parts (mbufs), the pool size and the hold budget. */
struct rtr_budget {
	uint64_t rx_desc;    /* every RX descriptor may hold an mbuf */
	uint64_t tx_desc;    /* every TX descriptor too */
	uint64_t per_worker; /* bursts, mempool cache, handoff and inject rings */
	uint64_t workers;    /* workers x per_worker */
	uint64_t egress;     /* the ports' egress queues and delay lines */
	uint64_t hold;       /* what the LB mode may hold (reorder rings) */
	uint64_t control;    /* control ring and slack */
	uint64_t need;       /* the sum of the parts */
	uint32_t mbufs;      /* pool size: switch.mbufs, or need rounded to 2^k - 1 */
	bool mbufs_set;      /* switch.mbufs set it */
	/* The mode whose mbuf_budget gave `hold` (the running one, or with
	 * telemetry_rw the implemented one that holds the most), or NULL when
	 * no mode that may run holds anything. */
	const struct rtr_lb_desc *hold_mode;
	const char *hold_key; /* config key that set `hold`, NULL: derived */
	/* mbufs each worker's LB state may hold (rtr_lb_init.hold_budget);
	 * 0 when hold_mode is NULL. */
	uint32_t hold_per_worker;
	bool hold_cut;      /* cut: switch.mbufs is below the formula */
	uint32_t data_room; /* mbuf data room for the ports' largest MTU */
};

/* The queue counts rocetor asks for before the device's limits: per port
 * rx_queues (or one per worker) RX queues, one TX queue per worker (or
 * tx_queues when larger). Sets in->workers and the queues, nothing else. */
void rtr_budget_queues(
		const struct rtr_config *cfg, unsigned int workers, struct rtr_budget_in *in);

/*
 * The mbufs' data room for frames up to mtu: headroom, then the largest
 * frame (MTU, Ethernet header, two VLAN tags, CRC, 4 bytes of slack),
 * at least 2048, rounded up to RTR_RX_BUF_ALIGN. ice and i40e (DPDK 22.11,
 * drivers/net/ice/ice_rxtx.c ice_program_hw_rx_queue, i40e_rxtx.c
 * i40e_rx_queue_config) program the RX buffer as the data room minus the
 * headroom rounded *down* to 128 bytes, but turn on scattered RX only when
 * the frame exceeds the unrounded size: an unaligned room let a frame up to
 * 127 bytes longer than the programmed buffer arrive without scatter, cut
 * (doc/user-guide.md "On real NICs").
 */
#define RTR_RX_BUF_ALIGN 128
unsigned int rtr_data_room(unsigned int mtu);

/* The shared buffer's cell (qos.buffer.cell_bytes; auto: RTR_BUFFER_CELL_AUTO):
 * lib/egress counts each packet in the pool as at least this, and the
 * mempool has size_kb x 1024 / it mbufs for the pool. rocetor writes it
 * into its config before the egress is made. */
uint32_t rtr_budget_cell(const struct rtr_config *cfg);

/* Fill out from cfg and in. Returns 0, or -EINVAL when in has no worker or
 * a port without queues. */
int rtr_mbuf_budget(const struct rtr_config *cfg, const struct rtr_budget_in *in,
		struct rtr_budget *out);

/* ----------------------------------------------------------- per socket */

/* Sockets the per-socket budget knows (DPDK's). */
#define RTR_BUDGET_MAX_SOCKETS RTE_MAX_NUMA_NODES
/* Bytes of an mbuf besides its data room and private area: struct
 * rte_mbuf (two cache lines) and the mempool's object header (one). */
#define RTR_MBUF_OVERHEAD 192

/* Where things are: the sockets of the ports and the workers. */
struct rtr_budget_where {
	int main_socket; /* the main lcore's: control plane, shared state */
	/* cfg->ports[i]'s; -1 (SOCKET_ID_ANY, a virtual device): the main
	 * lcore's, whose pool its RX queues take */
	int port_socket[RTR_MAX_PORTS];
	int worker_socket[RTR_MAX_LCORES]; /* -1: the main lcore's */
	uint16_t priv_size;                /* mbuf private area (bytes) */
};

/* One socket's share. */
struct rtr_budget_socket {
	bool used;              /* a port, a worker or the main lcore is on it */
	bool pool;              /* it has ports: one mempool */
	unsigned int n_ports;   /* configured ports on it */
	unsigned int n_workers; /* workers on it */
	/* Its pool's mbufs by the formula's parts (0 without a pool). */
	uint64_t rx_desc, tx_desc, workers, egress, hold, control, need;
	uint32_t mbufs; /* the pool's size */
	/* Bytes of hugepage memory on the socket: the pool's mbufs, the LB
	 * state of its workers (and the shared state on the main socket),
	 * its workers' egress queues, its rings (hand-off, inject, control),
	 * the route tables (the main socket's). */
	uint64_t mbuf_bytes, lb_bytes, egress_bytes, ring_bytes, route_bytes, total_bytes;
};

struct rtr_budget_sockets {
	/* The socket of the main pool (the switch's sw->pool): the main
	 * lcore's when it has ports, else the lowest socket with ports. What
	 * lives on a socket without ports is counted in its pool. */
	int main_pool;
	unsigned int n_pools;
	uint64_t pools_mbufs; /* the pools' sizes summed */
	/* The LB mode whose state is counted (the running one, or with
	 * telemetry_rw the implemented one that takes the most), its
	 * state_bytes; NULL mode: nothing counted. */
	const struct rtr_lb_desc *lb_mode;
	uint64_t lb_per_worker, lb_shared;
	uint64_t egress_per_worker; /* rtr_egress_memsize(pools_mbufs) */
	struct rtr_budget_socket s[RTR_BUDGET_MAX_SOCKETS];
};

/*
 * The budget split by socket, one mempool per socket that has ports
 * (doc/user-guide.md "Hugepages per socket"). An mbuf comes from the pool
 * of the port it was received on; each part of the formula is counted in
 * the pool of where it lives:
 *   - RX and TX descriptors, the egress share: the port's socket;
 *   - a worker's share (bursts, cache, rings): the worker's socket;
 *   - the LB hold: split evenly by workers, each on its worker's socket
 *     (the remainder on the main pool's);
 *   - the control share: the main lcore's socket;
 * a part on a socket without ports goes to the main pool's socket. Each
 * pool is its need rounded to 2^k - 1; switch.mbufs is split in
 * proportion to the needs. With every port and worker on one socket the
 * single pool is b's (b->mbufs). Memory: b must be rtr_mbuf_budget's for
 * cfg and in. Returns 0, or -EINVAL for a socket id out of range or no
 * port.
 */
int rtr_budget_sockets(const struct rtr_config *cfg, const struct rtr_budget_in *in,
		const struct rtr_budget *b, const struct rtr_budget_where *where,
		struct rtr_budget_sockets *out);

#endif /* RTR_APP_BUDGET_H */
