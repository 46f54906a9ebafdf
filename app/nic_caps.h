/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * What each NIC driver of DPDK 22.11 reports and supports, as read in its
 * sources (every entry of app/nic_caps.c cites file:line; doc/nic-facts.md
 * lists them and what still needs a lab), and the port setup's decisions
 * taken from it: pure functions over a table entry and a few figures of
 * rte_eth_dev_info, so the unit test (app/test_nic_caps.c) runs them with
 * no EAL. app/nic.c asks the device and prints what they decide.
 */
#ifndef RTR_APP_NIC_CAPS_H
#define RTR_APP_NIC_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtr_config.h"

/* Flow control a driver implements through ethdev. */
enum rtr_nic_fc {
	RTR_NIC_FC_NONE = 0, /* no flow_ctrl_get/set: pause is what the firmware does */
	RTR_NIC_FC_LINK,     /* 802.3x pause through rte_eth_dev_flow_ctrl_get/set */
};

/* MAC control frames (ethertype 0x8808: pause, PFC) between the wire and
 * the application. */
enum rtr_nic_mac_ctrl {
	RTR_NIC_MACCTL_NO = 0, /* the NIC consumes or drops them (real NIC MACs) */
	RTR_NIC_MACCTL_YES,    /* passed both ways (memif, null, ring: no MAC) */
	RTR_NIC_MACCTL_KERNEL, /* as the kernel interface under it does: a veth
				* passes them, a NIC's netdev does not */
};

/* How the MTU the device has before rocetor configures it comes about. */
enum rtr_nic_mtu {
	RTR_NIC_MTU_ETHDEV = 0, /* 1500, ethdev's default (lib/ethdev/ethdev_driver.c:112) */
	RTR_NIC_MTU_KERNEL,     /* the kernel netdev's MTU, read at probe */
};

/* The NIC counters rocetor reads from the driver's xstats, by name. */
enum rtr_nic_ctr {
	RTR_NIC_RX_PAUSE = 0, /* pause / PFC XOFF frames the NIC received */
	RTR_NIC_TX_PAUSE,     /* pause / PFC XOFF frames the NIC sent */
	RTR_NIC_RX_DISCARDS,  /* frames the NIC discarded (its own discard counters) */
	RTR_NIC_CTR_MAX
};

/* The stats document's and telemetry's names of enum rtr_nic_ctr. */
extern const char *const rtr_nic_ctr_names[RTR_NIC_CTR_MAX];
/* Their help (telemetry /rocetor/counters,nic; doc/counters.md). */
extern const char *const rtr_nic_ctr_help[RTR_NIC_CTR_MAX];

/* At most this many xstats name patterns per counter; a pattern with "%u"
 * stands for the eight priorities 0..7. */
#define RTR_NIC_PATTERNS 4
/* At most this many xstats summed into one counter. */
#define RTR_NIC_MAX_IDS 24

struct rtr_nic_caps {
	const char *driver;    /* rte_eth_dev_info.driver_name */
	const char *family;    /* the hardware or kind of port it drives */
	uint16_t reta_size;    /* reta_size it reports; 0: read from the device at probe */
	uint16_t key_size;     /* hash_key_size it reports; 0: none reported */
	uint64_t rss_hf;       /* flow_type_rss_offloads it offers (0: no RSS) */
	bool rss_hash_mbuf;    /* offers RTE_ETH_RX_OFFLOAD_RSS_HASH (hash in the mbuf) */
	uint16_t rx_buf_align; /* RX buffer rounded down to this, 0: not rounded */
	/* Bytes of the data room the driver leaves before the frame beyond
	 * RTE_PKTMBUF_HEADROOM (af_xdp: the kernel's XDP_PACKET_HEADROOM),
	 * which the data room must add (app/budget.c). */
	uint16_t rx_headroom_extra;
	/* The mbufs in its rings are not given back when the port closes
	 * (af_xdp): not a leak of rocetor's (app/main.c). */
	bool keeps_rx_mbufs;
	enum rtr_nic_mtu mtu_unset;
	bool mtu_to_kernel; /* configuring the port sets the kernel netdev's MTU too */
	enum rtr_nic_fc fc; /* link-level pause */
	/* The largest high_water flow_ctrl_set takes, in KB (its unit there);
	 * 0: not checked (the driver ignores the watermarks, or no pause). */
	uint32_t fc_water_max_kb;
	bool pfc; /* rte_eth_dev_priority_flow_ctrl_set does something */
	bool lsc; /* link-status interrupts */
	/* A hardware TX ring between rocetor and the wire that nothing else
	 * bounds: ports[].nic_ring_kb auto paces the port (doc/egress.md "The
	 * NIC ring"). Virtual ports' rings are copies, not a queue at a rate. */
	bool hw_ring;
	/* enum rtr_eg_ds: the descriptor-status convention rocetor reads for
	 * the ring's descriptor cap; RTR_EG_DS_NONE where the answer cannot
	 * be trusted (doc/nic-facts.md "TX completions and descriptor status"). */
	uint8_t tx_ds;
	/* rte_tm gives TX queues strict priorities (ice: app/nic_tm.h):
	 * with qos.hw_queues > 1 the control class's queue is served first. */
	bool tm_prio;
	/* Whether the driver passes received MAC control frames (0x8808) up
	 * to the application and transmits the ones it sends: what
	 * qos.pfc.mode software needs. mac_ctrl_why says why not (NO) or on
	 * what it depends (KERNEL). */
	enum rtr_nic_mac_ctrl mac_ctrl;
	const char *mac_ctrl_why;
	/* qos.pfc.mode external: how PFC is set outside DPDK for this NIC
	 * family (IFACE: the kernel interface). NULL: no recipe known. */
	const char *pfc_recipe;
	const char *xstats[RTR_NIC_CTR_MAX][RTR_NIC_PATTERNS]; /* NULL-ended */
	const char *no_rss_hint; /* said when it reports less RSS than here */
	const char *pfc_hint;    /* said when qos.pfc.mode nic meets pfc = false */
	const char *note;        /* said at start-up, always */
};

/* The entry of a driver name, or NULL (no entry). */
const struct rtr_nic_caps *rtr_nic_caps_find(const char *driver);
/* Entry i of the table, or NULL past the end (the unit test walks it). */
const struct rtr_nic_caps *rtr_nic_caps_at(unsigned int i);

/* What the device reported that the decisions use (rte_eth_dev_info and
 * the port's configuration). */
struct rtr_nic_in {
	const char *driver;
	uint64_t rss_offered;   /* flow_type_rss_offloads */
	uint16_t max_mtu;       /* max_mtu (ethdev's default UINT16_MAX; 0: not known) */
	uint32_t max_rx_pktlen; /* max_rx_pktlen (0: not known) */
	uint16_t mtu;           /* the MTU rocetor configures */
	unsigned int rx_queues; /* RX queues rocetor configures */
	unsigned int data_room; /* mbuf data room, headroom included */
	unsigned int headroom;  /* RTE_PKTMBUF_HEADROOM */
	bool mtu_from_config;   /* ports[].mtu was set (else the device's is kept) */
	uint16_t reta_size;     /* reta_size, as reported */
	uint16_t key_size;      /* hash_key_size, as reported */
	bool lsc;               /* RTE_ETH_DEV_INTR_LSC in dev_flags */
};

/* Start-up warnings the table decides, one bit each. */
enum rtr_nic_warn {
	RTR_NICW_NO_ENTRY = 1u << 0,   /* no capability entry for the driver */
	RTR_NICW_LESS_RSS = 1u << 1,   /* reports less RSS than its entry (ice safe mode) */
	RTR_NICW_NO_UDP_RSS = 1u << 2, /* several RX queues, no UDP hashing in its entry */
	RTR_NICW_RX_BUF = 1u << 4,     /* frames longer than the programmed buffer, unscattered */
	RTR_NICW_MAX_MTU = 1u << 5,    /* its max MTU cannot carry RoCE's 4096 path MTU */
	RTR_NICW_MTU_KERNEL = 1u << 6, /* ports[].mtu is set on the kernel netdev too (mlx5) */
	RTR_NICW_MTU_ABOVE_MAX = 1u << 7, /* the MTU is above what ethdev lets the device take */
};

/* What qos.pfc.mode asks of a port, against its entry. */
enum rtr_pfc_verdict {
	RTR_PFCV_OK = 0, /* go on (call says whether rocetor calls the driver) */
	RTR_PFCV_WARN,   /* go on, but say why (why) */
	RTR_PFCV_REFUSE, /* a start-up error: why, and instead what to use */
};

struct rtr_pfc_decision {
	enum rtr_pfc_verdict verdict;
	bool call;            /* call the driver's PFC (nic) or pause (pause) op */
	const char *why;      /* the reason for WARN / REFUSE (NULL for OK) */
	const char *instead;  /* REFUSE: the pfc.mode(s) to use instead */
	const char *recipe;   /* external: how to set PFC outside DPDK (NULL: none known) */
	bool no_entry;        /* the driver has no capability entry */
	bool no_pause_xstats; /* external: the driver has no pause counter to watch */
};

/* The verdict of qos.pfc.mode on a port whose driver has entry caps (NULL:
 * no entry), with qos.pfc.xoff_kb (pause: the driver's high water). Pure:
 * app/nic.c prints it, app/ports.c acts on it. */
struct rtr_pfc_decision rtr_nic_pfc_decide(
		const struct rtr_nic_caps *caps, enum rtr_pfc_mode mode, uint32_t xoff_kb);

/* The qos.pfc.mode(s) that work on a driver with entry caps (NULL: no
 * entry), for a refusal's "use ... instead". */
const char *rtr_nic_pfc_instead(const struct rtr_nic_caps *caps);

/* The largest frame rocetor sizes for at a given MTU: Ethernet header, two
 * VLAN tags, CRC (as ice and i40e count it, ICE_ETH_OVERHEAD). */
#define RTR_NIC_FRAME_OVERHEAD (14 + 2 * 4 + 4)
/* An IPv4 datagram of RoCE's 4096-byte path MTU (RDMA WRITE with RETH). */
#define RTR_NIC_ROCE4096_MTU 4156

/* The warnings for a port (caps may be NULL: no entry). */
unsigned int rtr_nic_decide(const struct rtr_nic_caps *caps, const struct rtr_nic_in *in);

/* The largest MTU ethdev lets a device take (rte_eth_dev_configure,
 * rte_eth_dev_set_mtu), from its max_mtu and max_rx_pktlen: af_packet
 * and memif report no max_mtu but a max_rx_pktlen of 1518, so 1500. */
unsigned int rtr_nic_max_mtu(uint16_t max_mtu, uint32_t max_rx_pktlen);

/* The RX buffer a driver with caps programs for a data room (headroom
 * included), and whether a frame of frame_len bytes arrives whole: either
 * it fits that buffer or the driver turns on scattered RX for it (ice and
 * i40e decide that with the unrounded size). */
unsigned int rtr_nic_rx_buf(
		const struct rtr_nic_caps *caps, unsigned int data_room, unsigned int headroom);
bool rtr_nic_frame_whole(const struct rtr_nic_caps *caps, unsigned int data_room,
		unsigned int headroom, unsigned int frame_len);

/* RSS hash types as short names joined by ',' ("ipv4,ipv4-udp,..."),
 * "off" for 0, bits without a name as one "+0x..." at the end. Returns
 * buf. */
const char *rtr_nic_rss_str(uint64_t hf, char *buf, size_t len);

/* Whether an xstats name is one of caps' patterns for counter c. */
bool rtr_nic_xstat_match(const struct rtr_nic_caps *caps, enum rtr_nic_ctr c, const char *name);

/* "pfc", "pause" or "none": what the entry says the driver can do; "?" for
 * no entry. */
const char *rtr_nic_fc_support(const struct rtr_nic_caps *caps);

/* Where the device reports other facts than its entry holds (RETA size
 * and key size where the entry has one, RSS types beyond the entry's,
 * link-status interrupts): "reta_size 256 (table 512), ..." into buf.
 * Returns how many differ; 0 for no entry. Each one is a fact of
 * doc/nic-facts.md a lab should report. */
unsigned int rtr_nic_table_diff(const struct rtr_nic_caps *caps, const struct rtr_nic_in *in,
		char *buf, size_t len);

/* The NIC counters of one configured port: the xstats ids found by name
 * (rte_eth_xstats_get_names) for each counter and their last sums. */
struct rtr_nic_port {
	const struct rtr_nic_caps *caps; /* NULL: no entry */
	bool looked_up;
	uint16_t n_ids[RTR_NIC_CTR_MAX];
	uint64_t ids[RTR_NIC_CTR_MAX][RTR_NIC_MAX_IDS];
	uint64_t value[RTR_NIC_CTR_MAX];
};

#endif /* RTR_APP_NIC_CAPS_H */
