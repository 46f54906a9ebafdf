/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The exception path (app/tap.h). DPDK 22.11's net_tap (read in
 * drivers/net/tap, doc/frr-fpm-research.md 3.1 and 3.3): a kernel TAP
 * netdev per vdev, named by iface=, with the MAC of mac=; its queues are
 * made at queue setup, so the port is configured and started in rocetor's
 * namespace and only then moved (the queue fds keep working in the new
 * namespace; what net_tap does by name afterwards, link state and stop,
 * fails harmlessly there). The interface comes up in fpm.netns down and
 * without addresses: it is set up there over rtnetlink.
 */

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rtr_mbuf.h"
#include "rtr_meta.h"
#include "netns.h"
#include "tap.h"

#define TAP_POOL_MBUFS 2047
#define TAP_DESC       256

struct tap {
	bool on;
	uint16_t tap_port; /* its ethdev */
	struct rtr_tap_counters c;
};

static struct tap taps[RTR_MAX_PORTS];
static struct rte_mempool *tap_pool;
static unsigned int n_taps;

/* ---- rtnetlink, in whatever namespace the calling thread is in ---------- */

struct nlreq {
	struct nlmsghdr h;
	uint8_t body[256];
};

static void
nl_attr(struct nlreq *q, uint16_t type, const void *v, size_t n)
{
	struct rtattr *a = (struct rtattr *)((uint8_t *)q + NLMSG_ALIGN(q->h.nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(n);
	memcpy(RTA_DATA(a), v, n);
	q->h.nlmsg_len = NLMSG_ALIGN(q->h.nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* Send q, wait for its ack: 0 or -errno. */
static int
nl_talk(struct nlreq *q)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	uint8_t buf[1024];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), rc = -EIO;
	ssize_t n;

	if (fd < 0)
		return -errno;
	q->h.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	q->h.nlmsg_seq = 1;
	if (sendto(fd, q, q->h.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
	} else if ((n = recv(fd, buf, sizeof(buf), 0)) >= (ssize_t)sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;

		if (h->nlmsg_type == NLMSG_ERROR &&
				(size_t)n >= NLMSG_HDRLEN + sizeof(struct nlmsgerr))
			rc = ((const struct nlmsgerr *)NLMSG_DATA(h))->error;
	}
	close(fd);
	return rc;
}

static int
link_to_netns(unsigned int ifindex, int ns_fd)
{
	struct nlreq q = {.h = {.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
					  .nlmsg_type = RTM_NEWLINK}};
	struct ifinfomsg *ifi = NLMSG_DATA(&q.h);
	uint32_t fd = (uint32_t)ns_fd;

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	nl_attr(&q, IFLA_NET_NS_FD, &fd, sizeof(fd));
	return nl_talk(&q);
}

static int
link_up(unsigned int ifindex, uint32_t mtu)
{
	struct nlreq q = {.h = {.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
					  .nlmsg_type = RTM_NEWLINK}};
	struct ifinfomsg *ifi = NLMSG_DATA(&q.h);

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = (int)ifindex;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	if (mtu != 0)
		nl_attr(&q, IFLA_MTU, &mtu, sizeof(mtu));
	return nl_talk(&q);
}

static int
addr_add(unsigned int ifindex, const struct rtr_addr *a)
{
	struct nlreq q = {.h = {.nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)),
					  .nlmsg_type = RTM_NEWADDR,
					  .nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE}};
	struct ifaddrmsg *ifa = NLMSG_DATA(&q.h);
	size_t n = a->family == AF_INET ? 4 : 16;
	const void *v = a->family == AF_INET ? (const void *)&a->v4 : (const void *)&a->v6;

	ifa->ifa_family = a->family;
	ifa->ifa_prefixlen = a->depth;
	ifa->ifa_index = ifindex;
	/* No duplicate address detection: BGP may use it at once. */
	ifa->ifa_flags = a->family == AF_INET6 ? IFA_F_NODAD : 0;
	nl_attr(&q, IFA_LOCAL, v, n);
	nl_attr(&q, IFA_ADDRESS, v, n);
	return nl_talk(&q);
}

/* ---- set-up ------------------------------------------------------------- */

static int
tap_start(struct rtr_app *app, const struct rtr_port_cfg *pc, uint16_t *port_out,
		unsigned int *ifindex)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	char name[64], args[128];
	uint16_t port, nb_rxd = TAP_DESC, nb_txd = TAP_DESC;
	struct rte_ether_addr mac;
	int rc;

	/* The port's MAC (the config's, else the device's): the kernel's
	 * frames leave with it, its peers answer to it. */
	if (pc->mac_set)
		memcpy(mac.addr_bytes, pc->mac, 6);
	else
		rte_eth_macaddr_get(pc->port, &mac);
	snprintf(name, sizeof(name), "net_tap_rtr%u", pc->port);
	snprintf(args, sizeof(args), "iface=%s,mac=%02x:%02x:%02x:%02x:%02x:%02x", pc->ifname,
			mac.addr_bytes[0], mac.addr_bytes[1], mac.addr_bytes[2], mac.addr_bytes[3],
			mac.addr_bytes[4], mac.addr_bytes[5]);
	rc = rte_eal_hotplug_add("vdev", name, args);
	if (rc != 0 || rte_eth_dev_get_port_by_name(name, &port) != 0) {
		fprintf(stderr, "%s:%d: ports[].tap: cannot create the tap %s (%s): %s\n",
				app->cfg.path, pc->line, pc->ifname, name, strerror(-rc));
		return -1;
	}
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
			rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd) != 0 ||
			rte_eth_rx_queue_setup(port, 0, nb_rxd, (unsigned int)rte_socket_id(), NULL,
					tap_pool) != 0 ||
			rte_eth_tx_queue_setup(port, 0, nb_txd, (unsigned int)rte_socket_id(),
					NULL) != 0 ||
			rte_eth_dev_start(port) != 0 || rte_eth_dev_info_get(port, &info) != 0) {
		fprintf(stderr, "rocetor: tap %s: cannot start it\n", pc->ifname);
		return -1;
	}
	*port_out = port;
	*ifindex = info.if_index;
	return 0;
}

int
rtr_tap_setup(struct rtr_app *app)
{
	const struct rtr_config *cfg = &app->cfg;
	int ns_fd = -1, self_fd = -1, rc = 0;

	for (unsigned int i = 0; i < cfg->n_ports; i++)
		n_taps += cfg->ports[i].tap;
	if (n_taps == 0)
		return 0;
	tap_pool = rte_pktmbuf_pool_create("rtr_tap_pool", TAP_POOL_MBUFS, 32, app->mbuf_priv_size,
			(uint16_t)(app->mbuf_data_room), (int)rte_socket_id());
	if (tap_pool == NULL) {
		fprintf(stderr, "rocetor: cannot create the taps' pool\n");
		return -1;
	}
	if (cfg->fpm.netns[0] != '\0') {
		char path[128];

		snprintf(path, sizeof(path), "/var/run/netns/%s", cfg->fpm.netns);
		ns_fd = open(path, O_RDONLY | O_CLOEXEC);
		self_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (ns_fd < 0 || self_fd < 0) {
			fprintf(stderr, "%s: fpm.netns %s: %s\n", cfg->path, cfg->fpm.netns,
					strerror(errno));
			rc = -1;
			goto out;
		}
	}
	for (unsigned int i = 0; i < cfg->n_ports && rc == 0; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];
		unsigned int ifindex = 0;
		int e;

		if (!pc->tap)
			continue;
		if (tap_start(app, pc, &taps[pc->port].tap_port, &ifindex) < 0) {
			rc = -1;
			break;
		}
		taps[pc->port].on = true;
		if (ns_fd >= 0) {
			e = link_to_netns(ifindex, ns_fd);
			if (e == 0 && rtr_setns_net(ns_fd) != 0)
				e = -errno;
			if (e == 0) {
				ifindex = if_nametoindex(pc->ifname);
				if (ifindex == 0)
					e = -ENODEV;
			}
		} else {
			e = 0;
		}
		if (e == 0)
			e = link_up(ifindex, pc->mtu);
		for (unsigned int k = 0; e == 0 && k < pc->n_addrs; k++)
			e = addr_add(ifindex, &pc->addrs[k]);
		if (ns_fd >= 0 && rtr_setns_net(self_fd) != 0 && e == 0)
			e = -errno;
		if (e != 0) {
			fprintf(stderr, "rocetor: tap %s of port %u: %s%s: %s\n", pc->ifname,
					pc->port, ns_fd >= 0 ? "moving it into " : "setting it up",
					ns_fd >= 0 ? cfg->fpm.netns : "", strerror(-e));
			rc = -1;
			break;
		}
		printf("rocetor: port %u: kernel interface %s%s%s (ifindex %u)\n", pc->port,
				pc->ifname, ns_fd >= 0 ? " in netns " : "",
				ns_fd >= 0 ? cfg->fpm.netns : "", ifindex);
	}
	if (rc == 0) { /* the control plane gives the kernel what is for the switch */
		app->sw.kernel_punt = rtr_tap_punt;
		for (unsigned int w = 0; w < app->sw.n_workers; w++)
			app->sw.workers[w]->fwd.local_punt = 1;
	}
out:
	if (ns_fd >= 0)
		close(ns_fd);
	if (self_fd >= 0)
		close(self_fd);
	return rc;
}

/* ---- the data ----------------------------------------------------------- */

bool
rtr_tap_punt(struct rtr_switch *sw, struct rte_mbuf *m, uint32_t reply_len)
{
	const struct rtr_meta *meta = rtr_meta(m);
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	struct tap *t;
	bool to_kernel;

	(void)sw;
	if (meta->in_port >= RTR_MAX_PORTS || !taps[meta->in_port].on)
		return false;
	t = &taps[meta->in_port];
	if (meta->l3 == RTR_L3_ARP) /* replies only: rocetor answers requests */
		to_kernel = meta->l3_off + 8u <= m->data_len && f[meta->l3_off + 7] == 2;
	else if (meta->l4_proto == IPPROTO_ICMPV6 && meta->l4_off < m->data_len &&
			f[meta->l4_off] >= 133 && f[meta->l4_off] <= 137)
		to_kernel = f[meta->l4_off] == 136; /* neighbour advertisements */
	else
		to_kernel = reply_len == 0; /* for the switch, not answered here */
	if (!to_kernel)
		return false;
	if (rte_eth_tx_burst(t->tap_port, 0, &m, 1) == 1) {
		t->c.to_kernel++;
	} else {
		t->c.to_kernel_dropped++;
		rte_pktmbuf_free(m);
	}
	return true;
}

unsigned int
rtr_tap_poll(struct rtr_app *app)
{
	struct rte_ring *inject = app->sw.workers[0]->inject;
	unsigned int total = 0;

	if (n_taps == 0)
		return 0;
	for (uint16_t p = 0; p < RTR_MAX_PORTS; p++) {
		struct rte_mbuf *pkts[32];
		uint16_t n;

		if (!taps[p].on)
			continue;
		n = rte_eth_rx_burst(taps[p].tap_port, 0, pkts,
				RTE_MIN(32u, rte_ring_free_count(inject)));
		for (uint16_t i = 0; i < n; i++) {
			struct rtr_meta *meta = rtr_meta(pkts[i]);

			memset(meta, 0, sizeof(*meta));
			meta->in_port = RTR_PORT_NONE;
			meta->out_port = (uint8_t)p;
			if (rte_ring_sp_enqueue(inject, pkts[i]) == 0) {
				taps[p].c.from_kernel++;
			} else {
				taps[p].c.from_kernel_dropped++;
				rte_pktmbuf_free(pkts[i]);
			}
		}
		total += n;
	}
	return total;
}

void
rtr_tap_close(struct rtr_app *app)
{
	(void)app;
	for (uint16_t p = 0; p < RTR_MAX_PORTS; p++) {
		if (!taps[p].on)
			continue;
		/* Moved into another namespace, net_tap's stop by name fails
		 * there: harmless, the netdev goes with its fds. */
		rte_eth_dev_stop(taps[p].tap_port);
		rte_eth_dev_close(taps[p].tap_port);
		taps[p].on = false;
	}
	if (tap_pool != NULL) {
		unsigned int in_use = rte_mempool_in_use_count(tap_pool);

		if (in_use != 0)
			printf("rocetor: taps' pool: %u mbufs in use after close (LEAK)\n", in_use);
		rte_mempool_free(tap_pool);
		tap_pool = NULL;
	}
	n_taps = 0;
}

bool
rtr_tap_counters(const struct rtr_app *app, uint16_t port, struct rtr_tap_counters *out)
{
	(void)app;
	if (port >= RTR_MAX_PORTS || !taps[port].on)
		return false;
	*out = taps[port].c;
	return true;
}
