/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The NIC capability table and the decisions taken from it (nic_caps.h).
 * Every fact is from the DPDK 22.11.11 sources (dpdk-stable-22.11.11,
 * paths below drivers/net/ unless they start with lib/ or drivers/);
 * doc/nic-facts.md has the same list and what a lab still has to confirm.
 * No EAL here: only the RTE_ETH_RSS_* constants of rte_ethdev.h.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "nic_caps.h"
#include "rtr_egress.h"

const char *const rtr_nic_ctr_names[RTR_NIC_CTR_MAX] = {
		[RTR_NIC_RX_PAUSE] = "nic_rx_pause",
		[RTR_NIC_TX_PAUSE] = "nic_tx_pause",
		[RTR_NIC_RX_DISCARDS] = "nic_rx_discards",
};

const char *const rtr_nic_ctr_help[RTR_NIC_CTR_MAX] = {
		[RTR_NIC_RX_PAUSE] = "pause / PFC XOFF frames the NIC received (driver xstats; "
				     "absent where the driver has none)",
		[RTR_NIC_TX_PAUSE] = "pause / PFC XOFF frames the NIC sent (driver xstats; absent "
				     "where the driver has none)",
		[RTR_NIC_RX_DISCARDS] = "frames the NIC discarded, its own discard xstats (absent "
					"where the driver has none)",
};

/* mlx5_defs.h:92 MLX5_RSS_HF_MASK; mlx5_ethdev.c:385 offers its complement. */
#define MLX5_RSS                                                                \
	(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_ESP | \
			RTE_ETH_RSS_L3_SRC_ONLY | RTE_ETH_RSS_L3_DST_ONLY |     \
			RTE_ETH_RSS_L4_SRC_ONLY | RTE_ETH_RSS_L4_DST_ONLY)
/* ice_ethdev.h:120 ICE_RSS_OFFLOAD_ALL. */
#define ICE_RSS                                                                        \
	(RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP |     \
			RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV4_SCTP | \
			RTE_ETH_RSS_NONFRAG_IPV4_OTHER | RTE_ETH_RSS_IPV6 |            \
			RTE_ETH_RSS_FRAG_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_TCP |         \
			RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_NONFRAG_IPV6_SCTP | \
			RTE_ETH_RSS_NONFRAG_IPV6_OTHER | RTE_ETH_RSS_L2_PAYLOAD)
/* i40e_rxtx.c:3583-3629 (i40e_set_default_pctype_table): the flow types
 * with a packet classifier type; i40e_ethdev.c:3738 offers them. */
#define I40E_RSS                                                                         \
	(RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP |       \
			RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV4_SCTP |   \
			RTE_ETH_RSS_NONFRAG_IPV4_OTHER | RTE_ETH_RSS_FRAG_IPV6 |         \
			RTE_ETH_RSS_NONFRAG_IPV6_TCP | RTE_ETH_RSS_NONFRAG_IPV6_UDP |    \
			RTE_ETH_RSS_NONFRAG_IPV6_SCTP | RTE_ETH_RSS_NONFRAG_IPV6_OTHER | \
			RTE_ETH_RSS_L2_PAYLOAD)

static const struct rtr_nic_caps nic_table[] = {
		{
				/* ConnectX-4 Lx .. 7, BlueField. driver_name is the
				 * common PCI driver's (lib/ethdev/rte_ethdev.c:3372,
				 * drivers/common/mlx5/mlx5_common.h:30,
				 * mlx5_common_pci.c:208). */
				.driver = "mlx5_pci",
				.family = "NVIDIA ConnectX-5/6 Dx (mlx5)",
				/* mlx5_ethdev.c:381: the RETA it was given, else the
				 * device's indirection table maximum. */
				.reta_size = 0,
				.key_size = 40, /* mlx5_ethdev.c:383, common/mlx5/mlx5_prm.h:18 */
				.rss_hf = MLX5_RSS,
				.rss_hash_mbuf = true, /* mlx5_rxq.c:363-365 */
				/* No rounding of the buffer; frames longer than it
				 * need RTE_ETH_RX_OFFLOAD_SCATTER (mlx5_rxq.c:1879). */
				.rx_buf_align = 0,
				.mtu_unset = RTR_NIC_MTU_KERNEL, /* linux/mlx5_os.c:1522-1527 */
				.mtu_to_kernel =
						true, /* mlx5_ethdev.c:149, linux/mlx5_ethdev_os.c:309-313 */
				/* ethtool pause parameters of the netdev:
				 * linux/mlx5_ethdev_os.c:692 and 733; mlx5.c:2244. */
				.fc = RTR_NIC_FC_LINK,
				/* linux/mlx5_ethdev_os.c:733-762 sets rx/tx pause
				 * and autoneg only: watermarks and pause_time are
				 * not used. */
				.fc_water_max_kb = 0,
				.pfc = false, /* no priority_flow_ctrl_set in mlx5.c:2209-2277 */
				/* Nothing in the PMD passes or filters 0x8808: the
				 * ConnectX MAC consumes received pause/PFC frames
				 * (not seen in the PMD: a lab must confirm). */
				.mac_ctrl = RTR_NIC_MACCTL_NO,
				.mac_ctrl_why = "the ConnectX MAC consumes received PFC frames "
						"(not seen "
						"in the PMD: a lab must confirm)",
				.pfc_recipe = "mlnx_qos -i IFACE --trust dscp --pfc "
					      "0,0,0,1,0,0,0,0 "
					      "(the classes of qos.pfc.classes; or dcb / lldptool)",
				/* mlx5.c:3195 -> common/mlx5/mlx5_common_pci.c:200-201,
				 * then linux/mlx5_os.c:2369 -> lib/ethdev/ethdev_pci.h:44
				 * (an SF: linux/mlx5_os.c:2548). */
				.lsc = true,
				.hw_ring = true,
				/* mlx5_tx.c:267-278: FULL while offset < elements in
				 * use, after handling completions. */
				.tx_ds = RTR_EG_DS_USED,
				/* linux/mlx5_ethdev_os.c:1470-1650 (mlx5_counters_init):
				 * no pause counter among them; names exist only when
				 * the kernel's ethtool strings have them (:1686-1697). */
				.xstats =
						{
								[RTR_NIC_RX_DISCARDS] = {"rx_phy_"
											 "discard_"
											 "packets",
										"rx_prio%u_buf_"
										"discard_"
										"packets",
										"rx_prio%u_cong_"
										"discard_"
										"packets"},
						},
				.pfc_hint = "mlx5 sets PFC in the kernel: mlnx_qos -i NETDEV --pfc "
					    "0,0,0,1,0,0,0,0 (doc/user-guide.md \"On real NICs\")",
				.note = "pause counters are the kernel's: ethtool -S NETDEV",
		},
		{
				.driver = "net_ice", /* ice_ethdev.c:6102 */
				.family = "Intel E810 (ice)",
				/* ice_ethdev.c:1577: min(device's table, 512). */
				.reta_size = 512,
				/* ice_ethdev.c:3878: (VSIQF_HKEY_MAX_INDEX 12 + 1) x 4 */
				.key_size = 52,
				.rss_hf = ICE_RSS,     /* ice_ethdev.c:3871, 0 in safe mode :3846 */
				.rss_hash_mbuf = true, /* ice_ethdev.c:3856 (not in safe mode) */
				/* ice_rxtx.c:262 rounds down to 1 << ICE_RLAN_CTX_DBUF_S
				 * (7); :441 decides scatter on the unrounded size. */
				.rx_buf_align = 128,
				.mtu_unset = RTR_NIC_MTU_ETHDEV, /* ice_ethdev.c:4164 keeps none */
				.fc = RTR_NIC_FC_NONE, /* no flow_ctrl_* in ice_ethdev.c:214-280 */
				.pfc = false,
				/* The E810 MAC consumes received pause/PFC frames
				 * (not seen in the PMD: a lab must confirm). */
				.mac_ctrl = RTR_NIC_MACCTL_NO,
				.mac_ctrl_why = "the E810 MAC consumes received PFC frames (not "
						"seen in "
						"the PMD: a lab must confirm)",
				.pfc_recipe = "the kernel ice driver's DCB: dcbtool / lldptool -T "
					      "-i IFACE "
					      "-V PFC enabled=3 (or firmware DCBX), before DPDK "
					      "takes the "
					      "port",
				.lsc = true, /* ice_ethdev.c:6092 RTE_PCI_DRV_INTR_LSC */
				.hw_ring = true,
				/* ice_rxtx.c:2333-2362 reads a slot rounded up to a
				 * multiple of tx_rs_thresh (32) that is never written
				 * back once used: FULL would stick (nic-facts). */
				.tx_ds = RTR_EG_DS_NONE,
				.tm_prio = true, /* ice_tm.c, app/nic_tm.h */
				/* ice_ethdev.c:288-356: link XON/XOFF, VSI discards
				 * (rx_dropped_packets is in imissed too, :5619). */
				.xstats =
						{
								[RTR_NIC_RX_PAUSE] =
										{"rx_xoff_packets"},
								[RTR_NIC_TX_PAUSE] =
										{"tx_xoff_packets"},
								[RTR_NIC_RX_DISCARDS] =
										{"rx_dropped_"
										 "packets"},
						},
				.no_rss_hint = "ice is in safe mode: its DDP package did not load "
					       "(ice_ethdev.c:2335-2343); install "
					       "/lib/firmware/intel/ice/ddp/ice.pkg",
				.pfc_hint = "DPDK 22.11's ice has no flow control or PFC calls",
		},
		{
				.driver = "net_i40e", /* i40e_ethdev.c:739 */
				.family = "Intel X710/XL710/XXV710 (i40e)",
				/* i40e_ethdev.c:3737 <- :6290, the device's table (512
				 * on a PF, to confirm in a lab). */
				.reta_size = 0,
				/* i40e_ethdev.c:3735: (I40E_PFQF_HKEY_MAX_INDEX 12 + 1) x 4 */
				.key_size = 52,
				.rss_hf = I40E_RSS,
				.rss_hash_mbuf = true, /* i40e_ethdev.c:3707 */
				/* i40e_rxtx.c:2924 rounds down to 1 <<
				 * I40E_RXQ_CTX_DBUFF_SHIFT (7); :3013 decides scatter
				 * on the unrounded size. */
				.rx_buf_align = 128,
				.mtu_unset = RTR_NIC_MTU_ETHDEV,
				.fc = RTR_NIC_FC_LINK, /* i40e_ethdev.c:485-486, :4120, :4156 */
				/* i40e_ethdev.c:4172-4180: high_water in KB, at most
				 * I40E_RXPBSIZE >> I40E_KILOSHIFT (:75, :78). */
				.fc_water_max_kb = 968,
				.pfc = false, /* i40e_ethdev.c:4278-4284 returns -ENOSYS */
				/* i40e_ethdev.c:797-813, :1711: a TX filter drops
				 * every 0x8808 frame the application sends; the MAC
				 * consumes received ones. */
				.mac_ctrl = RTR_NIC_MACCTL_NO,
				.mac_ctrl_why = "i40e drops every 0x8808 frame the application "
						"sends (TX "
						"filter, i40e_ethdev.c:797-813) and the MAC "
						"consumes "
						"received ones",
				.pfc_recipe = "the kernel i40e driver's DCB: lldptool -T -i IFACE "
					      "-V PFC "
					      "enabled=3 (or firmware DCBX), before DPDK takes the "
					      "port",
				.lsc = true, /* i40e_ethdev.c:716 */
				.hw_ring = true,
				/* i40e_rxtx.c:2209-2238: the same arithmetic as ice. */
				.tx_ds = RTR_EG_DS_NONE,
				/* i40e_ethdev.c:527-630, :3541-3558 (per priority). */
				.xstats =
						{
								[RTR_NIC_RX_PAUSE] = {"rx_xoff_"
										      "packets",
										"rx_priority%u_"
										"xoff_packets"},
								[RTR_NIC_TX_PAUSE] = {"tx_xoff_"
										      "packets",
										"tx_priority%u_"
										"xoff_packets"},
								[RTR_NIC_RX_DISCARDS] =
										{"rx_dropped_"
										 "packets"},
						},
				.pfc_hint = "i40e's priority_flow_ctrl_set returns -ENOSYS in DPDK "
					    "22.11 (i40e_ethdev.c:4278)",
		},
		{
				.driver = "net_memif", /* memif/rte_eth_memif.c:1923 */
				.family = "shared-memory packet interface (memif)",
				.mac_ctrl = RTR_NIC_MACCTL_YES, /* no MAC: frames pass as they are */
				/* memif/rte_eth_memif.c:195: max_rx_pktlen 1518, so
				 * ethdev takes no MTU above 1500. */
				.mtu_unset = RTR_NIC_MTU_ETHDEV,
		},
		{
				.driver = "net_pcap", /* pcap/pcap_ethdev.c:1653 */
				.family = "pcap files or a kernel interface (pcap)",
				/* Files pass everything; an iface= is as its kernel
				 * interface is. */
				.mac_ctrl = RTR_NIC_MACCTL_KERNEL,
				.mac_ctrl_why = "as the interface under it: pcap files and a veth "
						"pass "
						"them, a NIC's netdev does not",
				.mtu_unset = RTR_NIC_MTU_ETHDEV,
		},
		{
				.driver = "net_null", /* null/rte_eth_null.c:765 */
				.family = "null device (packets made up and thrown away)",
				.mac_ctrl = RTR_NIC_MACCTL_YES, /* no MAC */
				/* null/rte_eth_null.c:313-314, :568-569: RSS accepted,
				 * no key size reported (it keeps 40 bytes, :69); no
				 * hash is computed. */
				.reta_size = 128,
				.key_size = 0,
				.rss_hf = RTE_ETH_RSS_PROTO_MASK,
				.mtu_unset = RTR_NIC_MTU_ETHDEV,
		},
		{
				.driver = "net_af_packet", /* af_packet/rte_eth_af_packet.c:1142 */
				.family = "Linux AF_PACKET socket (af_packet)",
				.mac_ctrl = RTR_NIC_MACCTL_KERNEL,
				.mac_ctrl_why = "as its kernel interface: a veth passes them, a "
						"NIC's "
						"netdev does not",
				.mtu_unset = RTR_NIC_MTU_ETHDEV,
				/* af_packet/rte_eth_af_packet.c:363: max_rx_pktlen
				 * 1518, so ethdev takes no MTU above 1500
				 * (lib/ethdev/rte_ethdev.c:1060-1075). Its mtu_set
				 * (:530-553, SIOCSIFMTU) runs only from
				 * rte_eth_dev_set_mtu (rte_ethdev.c:3624), not from
				 * configure, which records the MTU only (:1212): the
				 * kernel interface keeps its own (seen in pkt-nic).
				 * :142-149 copies each received frame (tp_snaplen, up
				 * to framesz) into one mbuf without checking its room. */
				.mtu_to_kernel = false,
				.note = "ethdev takes no MTU above 1500 here, and each frame is "
					"copied into one mbuf unchecked: keep the vdev's framesz "
					"at its default 2048",
		},
		{
				.driver = "net_af_xdp", /* af_xdp/rte_eth_af_xdp.c:2147 */
				.family = "Linux AF_XDP socket (af_xdp)",
				.mac_ctrl = RTR_NIC_MACCTL_KERNEL,
				.mac_ctrl_why = "as its kernel interface: a veth passes them, a "
						"NIC's "
						"netdev does not",
				/* af_xdp/rte_eth_af_xdp.c:1140-1146: the UMEM frame's
				 * headroom is the mbuf's header and headroom; the
				 * kernel writes the frame XDP_PACKET_HEADROOM (256)
				 * further on (the RX path's data_off, :336-344), so
				 * 256 bytes of the data room carry no frame. */
				.rx_headroom_extra = 256,
				/* eth_dev_close frees the UMEM without its fill ring's
				 * mbufs (tests/sys, doc/testing.md). */
				.keeps_rx_mbufs = true,
				/* af_xdp/rte_eth_af_xdp.c:812-821: max_mtu is a page
				 * less the mbuf and XDP headrooms. */
				.mtu_unset = RTR_NIC_MTU_ETHDEV,
		},
};

const struct rtr_nic_caps *
rtr_nic_caps_find(const char *driver)
{
	if (driver == NULL)
		return NULL;
	for (unsigned int i = 0; i < sizeof(nic_table) / sizeof(nic_table[0]); i++)
		if (strcmp(nic_table[i].driver, driver) == 0)
			return &nic_table[i];
	return NULL;
}

const struct rtr_nic_caps *
rtr_nic_caps_at(unsigned int i)
{
	return i < sizeof(nic_table) / sizeof(nic_table[0]) ? &nic_table[i] : NULL;
}

unsigned int
rtr_nic_rx_buf(const struct rtr_nic_caps *caps, unsigned int data_room, unsigned int headroom)
{
	unsigned int buf = data_room > headroom ? data_room - headroom : 0;

	if (caps != NULL)
		buf = buf > caps->rx_headroom_extra ? buf - caps->rx_headroom_extra : 0;
	if (caps != NULL && caps->rx_buf_align > 1)
		buf -= buf % caps->rx_buf_align;
	return buf;
}

bool
rtr_nic_frame_whole(const struct rtr_nic_caps *caps, unsigned int data_room, unsigned int headroom,
		unsigned int frame_len)
{
	unsigned int unrounded = data_room > headroom ? data_room - headroom : 0;

	/* Fits the programmed buffer, or (ice, i40e: a rounded buffer) is
	 * longer than the unrounded one and so turns scattered RX on. */
	return frame_len <= rtr_nic_rx_buf(caps, data_room, headroom) ||
	       (caps != NULL && caps->rx_buf_align > 1 && frame_len > unrounded);
}

unsigned int
rtr_nic_max_mtu(uint16_t max_mtu, uint32_t max_rx_pktlen)
{
	/* ethdev's own rule (lib/ethdev/rte_ethdev.c:1027-1036 and
	 * :1053-1075): the MTU is at most max_mtu, and MTU plus an overhead
	 * at most max_rx_pktlen; the overhead is max_rx_pktlen - max_mtu
	 * where the driver gave a max_mtu below it, else 18 bytes. */
	uint32_t overhead = RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN, m = max_mtu;

	if (max_mtu == 0)
		m = UINT16_MAX;
	if (max_rx_pktlen == 0)
		return m;
	if (max_mtu != UINT16_MAX && max_mtu != 0 && max_rx_pktlen > max_mtu)
		overhead = max_rx_pktlen - max_mtu;
	if (max_rx_pktlen < overhead)
		return 0;
	return RTE_MIN(m, max_rx_pktlen - overhead);
}

unsigned int
rtr_nic_decide(const struct rtr_nic_caps *caps, const struct rtr_nic_in *in)
{
	const uint64_t udp = RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV6_UDP;
	unsigned int w = 0;

	if (caps == NULL) {
		w |= RTR_NICW_NO_ENTRY;
	} else {
		/* The device offers less than its driver can: a mode of the
		 * driver (ice without its DDP package) the lab should know. */
		if ((caps->rss_hf & ~in->rss_offered) != 0 && caps->rss_hf != 0)
			w |= RTR_NICW_LESS_RSS;
		if (in->rx_queues > 1 && caps->rss_hf != 0 && (caps->rss_hf & udp) == 0)
			w |= RTR_NICW_NO_UDP_RSS;
		if (!rtr_nic_frame_whole(caps, in->data_room, in->headroom,
				    in->mtu + RTR_NIC_FRAME_OVERHEAD))
			w |= RTR_NICW_RX_BUF;
	}
	/* Not a fault: the lab should know rocetor changes the netdev. */
	if (caps != NULL && caps->mtu_to_kernel && in->mtu_from_config)
		w |= RTR_NICW_MTU_KERNEL;
	if (rtr_nic_max_mtu(in->max_mtu, in->max_rx_pktlen) < RTR_NIC_ROCE4096_MTU)
		w |= RTR_NICW_MAX_MTU;
	if (in->mtu > rtr_nic_max_mtu(in->max_mtu, in->max_rx_pktlen))
		w |= RTR_NICW_MTU_ABOVE_MAX;
	return w;
}

const char *
rtr_nic_pfc_instead(const struct rtr_nic_caps *caps)
{
	/* What works on this driver, best first. */
	if (caps == NULL)
		return "external, or software on a virtual port";
	if (caps->pfc)
		return "nic or external";
	if (caps->fc == RTR_NIC_FC_LINK)
		return "external (PFC set outside DPDK) or pause (802.3x)";
	if (caps->mac_ctrl != RTR_NIC_MACCTL_NO)
		return "software or external";
	return "external (PFC set outside DPDK)";
}

struct rtr_pfc_decision
rtr_nic_pfc_decide(const struct rtr_nic_caps *caps, enum rtr_pfc_mode mode, uint32_t xoff_kb)
{
	struct rtr_pfc_decision d = {.verdict = RTR_PFCV_OK, .no_entry = caps == NULL};

	switch (mode) {
	case RTR_PFC_OFF:
		break;
	case RTR_PFC_NIC:
		/* The call decides, as before; the table only warns, so that a
		 * lab sees what the driver answers. */
		d.call = true;
		if (caps == NULL) {
			d.verdict = RTR_PFCV_WARN;
			d.why = "no capability entry: trying rte_eth_dev_priority_flow_ctrl_set";
		} else if (!caps->pfc) {
			d.verdict = RTR_PFCV_WARN;
			d.why = "its driver has no PFC (capability table)";
		}
		break;
	case RTR_PFC_PAUSE:
		if (caps == NULL) {
			d.call = true;
			d.verdict = RTR_PFCV_WARN;
			d.why = "no capability entry: trying rte_eth_dev_flow_ctrl_set";
		} else if (caps->fc != RTR_NIC_FC_LINK) {
			d.verdict = RTR_PFCV_REFUSE;
			d.why = "its driver has no 802.3x pause (no flow_ctrl_set)";
		} else if (caps->fc_water_max_kb != 0 && xoff_kb > caps->fc_water_max_kb) {
			/* The driver would refuse it with -EINVAL: say why first. */
			d.verdict = RTR_PFCV_REFUSE;
			d.why = "qos.pfc.xoff_kb is above the high water its driver takes "
				"(flow_ctrl_set, in KB)";
			d.instead = "pause with a smaller xoff_kb, or external";
		} else {
			d.call = true;
		}
		break;
	case RTR_PFC_SOFTWARE:
		if (caps == NULL) {
			d.verdict = RTR_PFCV_WARN;
			d.why = "no capability entry: MAC control frames may be consumed by the "
				"NIC";
		} else if (caps->mac_ctrl == RTR_NIC_MACCTL_NO) {
			d.verdict = RTR_PFCV_REFUSE;
			d.why = caps->mac_ctrl_why != NULL
						? caps->mac_ctrl_why
						: "its driver does not pass MAC control frames";
		} else if (caps->mac_ctrl == RTR_NIC_MACCTL_KERNEL) {
			d.verdict = RTR_PFCV_WARN;
			d.why = caps->mac_ctrl_why;
		}
		break;
	case RTR_PFC_EXTERNAL:
		/* rocetor sets nothing: always allowed. */
		d.recipe = caps != NULL ? caps->pfc_recipe : NULL;
		d.no_pause_xstats = caps == NULL ||
				    (caps->xstats[RTR_NIC_RX_PAUSE][0] == NULL &&
						    caps->xstats[RTR_NIC_TX_PAUSE][0] == NULL);
		if (d.no_pause_xstats) {
			d.verdict = RTR_PFCV_WARN;
			d.why = caps == NULL ? "no capability entry: no pause counter is known to "
					       "watch"
					     : "its driver has no pause xstats to watch";
		}
		break;
	}
	if (d.verdict == RTR_PFCV_REFUSE && d.instead == NULL)
		d.instead = rtr_nic_pfc_instead(caps);
	return d;
}

static const struct {
	uint64_t bit;
	const char *name;
} rss_names[] = {
		{RTE_ETH_RSS_IPV4, "ipv4"},
		{RTE_ETH_RSS_FRAG_IPV4, "ipv4-frag"},
		{RTE_ETH_RSS_NONFRAG_IPV4_TCP, "ipv4-tcp"},
		{RTE_ETH_RSS_NONFRAG_IPV4_UDP, "ipv4-udp"},
		{RTE_ETH_RSS_NONFRAG_IPV4_SCTP, "ipv4-sctp"},
		{RTE_ETH_RSS_NONFRAG_IPV4_OTHER, "ipv4-other"},
		{RTE_ETH_RSS_IPV6, "ipv6"},
		{RTE_ETH_RSS_FRAG_IPV6, "ipv6-frag"},
		{RTE_ETH_RSS_NONFRAG_IPV6_TCP, "ipv6-tcp"},
		{RTE_ETH_RSS_NONFRAG_IPV6_UDP, "ipv6-udp"},
		{RTE_ETH_RSS_NONFRAG_IPV6_SCTP, "ipv6-sctp"},
		{RTE_ETH_RSS_NONFRAG_IPV6_OTHER, "ipv6-other"},
		{RTE_ETH_RSS_L2_PAYLOAD, "l2"},
		{RTE_ETH_RSS_IPV6_EX, "ipv6-ex"},
		{RTE_ETH_RSS_IPV6_TCP_EX, "ipv6-tcp-ex"},
		{RTE_ETH_RSS_IPV6_UDP_EX, "ipv6-udp-ex"},
		{RTE_ETH_RSS_ESP, "esp"},
};

const char *
rtr_nic_rss_str(uint64_t hf, char *buf, size_t len)
{
	uint64_t rest = hf;
	size_t n = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (hf == 0) {
		snprintf(buf, len, "off");
		return buf;
	}
	for (unsigned int i = 0; i < sizeof(rss_names) / sizeof(rss_names[0]); i++) {
		if (!(hf & rss_names[i].bit))
			continue;
		rest &= ~rss_names[i].bit;
		if (n < len)
			n += (size_t)snprintf(
					buf + n, len - n, "%s%s", n ? "," : "", rss_names[i].name);
	}
	if (rest != 0 && n < len)
		snprintf(buf + n, len - n, "%s+0x%" PRIx64, n ? "," : "", rest);
	return buf;
}

bool
rtr_nic_xstat_match(const struct rtr_nic_caps *caps, enum rtr_nic_ctr c, const char *name)
{
	char want[RTE_ETH_XSTATS_NAME_SIZE];

	if (caps == NULL || c >= RTR_NIC_CTR_MAX || name == NULL)
		return false;
	for (unsigned int p = 0; p < RTR_NIC_PATTERNS && caps->xstats[c][p] != NULL; p++) {
		const char *pat = caps->xstats[c][p];

		if (strstr(pat, "%u") == NULL) {
			if (strcmp(pat, name) == 0)
				return true;
			continue;
		}
		for (unsigned int prio = 0; prio < 8; prio++) {
			/* The pattern is ours (the table), one %u. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			snprintf(want, sizeof(want), pat, prio);
#pragma GCC diagnostic pop
			if (strcmp(want, name) == 0)
				return true;
		}
	}
	return false;
}

const char *
rtr_nic_fc_support(const struct rtr_nic_caps *caps)
{
	if (caps == NULL)
		return "?";
	if (caps->pfc)
		return "pfc";
	return caps->fc == RTR_NIC_FC_LINK ? "pause" : "none";
}

unsigned int
rtr_nic_table_diff(
		const struct rtr_nic_caps *caps, const struct rtr_nic_in *in, char *buf, size_t len)
{
	unsigned int n = 0;
	size_t at = 0;

#define DIFF(...)                                                                        \
	do {                                                                             \
		if (at < len)                                                            \
			at += (size_t)snprintf(buf + at, len - at, "%s", n ? ", " : ""); \
		if (at < len)                                                            \
			at += (size_t)snprintf(buf + at, len - at, __VA_ARGS__);         \
		n++;                                                                     \
	} while (0)
	if (len > 0)
		buf[0] = '\0';
	if (caps == NULL)
		return 0;
	if (caps->reta_size != 0 && in->reta_size != caps->reta_size)
		DIFF("reta_size %u (table %u)", in->reta_size, caps->reta_size);
	if (caps->key_size != 0 && in->key_size != caps->key_size)
		DIFF("hash_key_size %u (table %u)", in->key_size, caps->key_size);
	if ((in->rss_offered & ~caps->rss_hf) != 0)
		DIFF("rss types 0x%" PRIx64 " beyond the table's", in->rss_offered & ~caps->rss_hf);
	if (in->lsc != caps->lsc)
		DIFF("lsc %s (table %s)", in->lsc ? "yes" : "no", caps->lsc ? "yes" : "no");
#undef DIFF
	return n;
}
