/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The NIC capability table (app/nic_caps.c) and the port setup's decisions
 * taken from it, with no EAL: the facts read in the DPDK 22.11 sources
 * (doc/nic-facts.md) as the table must hold them, then the warnings each
 * driver gets for the inputs a lab would give it, the RX buffer rule of
 * ice and i40e against the data room app/budget.c sizes (every MTU
 * 68..9600), the RSS type names and the xstats names matched.
 */

#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "budget.h"
#include "nic_caps.h"
#include "rtr_test.h"

static const uint64_t udp = RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_NONFRAG_IPV6_UDP;

/* The inputs of a healthy port of driver caps at mtu: it offers what its
 * entry says, 2 RX queues, the data room app/budget.c gives. */
static struct rtr_nic_in
healthy(const struct rtr_nic_caps *caps, unsigned int mtu)
{
	struct rtr_nic_in in = {
			.driver = caps != NULL ? caps->driver : "net_ring",
			.rss_offered = caps != NULL ? caps->rss_hf : 0,
			.max_mtu = UINT16_MAX,
			.max_rx_pktlen = UINT32_MAX,
			.mtu = (uint16_t)mtu,
			.rx_queues = 2,
			.data_room = rtr_data_room(
					mtu + (caps != NULL ? caps->rx_headroom_extra : 0)),
			.headroom = RTE_PKTMBUF_HEADROOM,
			.reta_size = caps != NULL ? caps->reta_size : 0,
			.key_size = caps != NULL ? caps->key_size : 0,
			.lsc = caps != NULL && caps->lsc,
	};
	return in;
}

static void
test_table_facts(void)
{
	static const char *const drivers[] = {"mlx5_pci", "net_ice", "net_i40e", "net_memif",
			"net_pcap", "net_null", "net_af_packet", "net_af_xdp"};
	const struct rtr_nic_caps *mlx5 = rtr_nic_caps_find("mlx5_pci");
	const struct rtr_nic_caps *ice = rtr_nic_caps_find("net_ice");
	const struct rtr_nic_caps *i40e = rtr_nic_caps_find("net_i40e");
	const struct rtr_nic_caps *null = rtr_nic_caps_find("net_null");
	unsigned int n = 0;

	for (unsigned int i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
		const struct rtr_nic_caps *c = rtr_nic_caps_find(drivers[i]);

		CHECK(c != NULL, "%s has an entry", drivers[i]);
		if (c != NULL)
			CHECK_STR(c->driver, drivers[i]);
	}
	while (rtr_nic_caps_at(n) != NULL)
		n++;
	CHECK_EQ(n, 8);
	/* Unknown names, and names close to a known one, have none. */
	CHECK(rtr_nic_caps_find("net_ring") == NULL);
	CHECK(rtr_nic_caps_find("mlx5") == NULL);
	CHECK(rtr_nic_caps_find("net_ice_dcf") == NULL);
	CHECK(rtr_nic_caps_find(NULL) == NULL);
	if (mlx5 == NULL || ice == NULL || i40e == NULL || null == NULL)
		return;
	/* RSS: key sizes, UDP hashing, the hash in the mbuf. */
	CHECK_EQ(mlx5->key_size, 40);
	CHECK_EQ(ice->key_size, 52);
	CHECK_EQ(i40e->key_size, 52);
	CHECK_EQ(ice->reta_size, 512);
	CHECK_EQ(null->reta_size, 128);
	CHECK_EQ(mlx5->rss_hf & udp, udp);
	CHECK_EQ(ice->rss_hf & udp, udp);
	CHECK_EQ(i40e->rss_hf & udp, udp);
	CHECK(mlx5->rss_hash_mbuf && ice->rss_hash_mbuf && i40e->rss_hash_mbuf);
	CHECK(!null->rss_hash_mbuf);
	CHECK_EQ(rtr_nic_caps_find("net_pcap")->rss_hf, 0);
	CHECK_EQ(rtr_nic_caps_find("net_memif")->rss_hf, 0);
	/* MTU: only mlx5 starts from the kernel's and pushes it back. */
	CHECK_EQ(mlx5->mtu_unset, RTR_NIC_MTU_KERNEL);
	CHECK(mlx5->mtu_to_kernel);
	CHECK_EQ(ice->mtu_unset, RTR_NIC_MTU_ETHDEV);
	CHECK_EQ(i40e->mtu_unset, RTR_NIC_MTU_ETHDEV);
	/* RX buffer rounding: ice and i40e only. */
	CHECK_EQ(ice->rx_buf_align, 128);
	CHECK_EQ(i40e->rx_buf_align, 128);
	CHECK_EQ(mlx5->rx_buf_align, 0);
	/* Flow control: no PMD of the table does PFC through ethdev;
	 * link pause on mlx5 and i40e, nothing on ice. */
	for (unsigned int i = 0; rtr_nic_caps_at(i) != NULL; i++)
		CHECK(!rtr_nic_caps_at(i)->pfc, "%s pfc", rtr_nic_caps_at(i)->driver);
	CHECK_STR(rtr_nic_fc_support(mlx5), "pause");
	CHECK_STR(rtr_nic_fc_support(i40e), "pause");
	CHECK_STR(rtr_nic_fc_support(ice), "none");
	CHECK_STR(rtr_nic_fc_support(null), "none");
	CHECK_STR(rtr_nic_fc_support(NULL), "?");
	CHECK(mlx5->lsc && ice->lsc && i40e->lsc && !null->lsc);
	/* Every PFC-less hardware driver says where PFC is then set. */
	CHECK(mlx5->pfc_hint != NULL && strstr(mlx5->pfc_hint, "mlnx_qos") != NULL);
	CHECK(ice->no_rss_hint != NULL && strstr(ice->no_rss_hint, "ice.pkg") != NULL);
}

static void
test_decide(void)
{
	const struct rtr_nic_caps *ice = rtr_nic_caps_find("net_ice");
	const struct rtr_nic_caps *mlx5 = rtr_nic_caps_find("mlx5_pci");
	const struct rtr_nic_caps *null = rtr_nic_caps_find("net_null");
	struct rtr_nic_caps no_udp;
	struct rtr_nic_in in;

	if (ice == NULL || mlx5 == NULL || null == NULL)
		return;
	/* Every entry, healthy, at the shipped MTUs: nothing to say. */
	for (unsigned int i = 0; rtr_nic_caps_at(i) != NULL; i++) {
		const struct rtr_nic_caps *c = rtr_nic_caps_at(i);

		in = healthy(c, 1500);
		CHECK_EQ(rtr_nic_decide(c, &in), 0);
		in = healthy(c, 9000);
		CHECK_EQ(rtr_nic_decide(c, &in), 0);
	}
	/* No entry. */
	in = healthy(NULL, 1500);
	CHECK_EQ(rtr_nic_decide(NULL, &in), RTR_NICW_NO_ENTRY);
	/* ice in safe mode offers no RSS at all (ice_ethdev.c:3846). */
	in = healthy(ice, 4200);
	in.rss_offered = 0;
	CHECK_EQ(rtr_nic_decide(ice, &in), RTR_NICW_LESS_RSS);
	/* A device offering more than its entry is no news. */
	in = healthy(ice, 4200);
	in.rss_offered = ice->rss_hf | RTE_ETH_RSS_ESP;
	CHECK_EQ(rtr_nic_decide(ice, &in), 0);
	/* A driver whose RSS hashes no UDP ports, with several queues; one
	 * queue needs no hashing. */
	no_udp = *ice;
	no_udp.rss_hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP;
	in = healthy(&no_udp, 1500);
	CHECK_EQ(rtr_nic_decide(&no_udp, &in), RTR_NICW_NO_UDP_RSS);
	in.rx_queues = 1;
	CHECK_EQ(rtr_nic_decide(&no_udp, &in), 0);
	/* A device whose largest MTU cannot carry RoCE 4096 (af_xdp with 4 KB
	 * pages: max_mtu 3498, max_rx_pktlen 3512), with or without an entry;
	 * an mtu above it is refused by the device. */
	in = healthy(rtr_nic_caps_find("net_af_xdp"), 1500);
	in.max_mtu = 3498;
	in.max_rx_pktlen = 3512;
	CHECK_EQ(rtr_nic_decide(rtr_nic_caps_find("net_af_xdp"), &in), RTR_NICW_MAX_MTU);
	in.mtu = 3499;
	in.data_room = rtr_data_room(3499 + 256);
	CHECK_EQ(rtr_nic_decide(rtr_nic_caps_find("net_af_xdp"), &in),
			RTR_NICW_MAX_MTU | RTR_NICW_MTU_ABOVE_MAX);
	in = healthy(rtr_nic_caps_find("net_af_xdp"), 1500);
	in.max_mtu = RTR_NIC_ROCE4096_MTU;
	CHECK_EQ(rtr_nic_decide(rtr_nic_caps_find("net_af_xdp"), &in), 0);
	/* af_packet and memif: no max_mtu (ethdev's UINT16_MAX) but a
	 * max_rx_pktlen of 1518: 1500 at most, as ethdev validates it. */
	CHECK_EQ(rtr_nic_max_mtu(UINT16_MAX, 1518), 1500);
	CHECK_EQ(rtr_nic_max_mtu(UINT16_MAX, UINT32_MAX), UINT16_MAX);
	CHECK_EQ(rtr_nic_max_mtu(3498, 3512), 3498);
	CHECK_EQ(rtr_nic_max_mtu(9000, 9018 + 8), 9000);
	CHECK_EQ(rtr_nic_max_mtu(UINT16_MAX, 0), UINT16_MAX);
	CHECK_EQ(rtr_nic_max_mtu(0, 0), UINT16_MAX);
	in = healthy(rtr_nic_caps_find("net_memif"), 1500);
	in.max_rx_pktlen = 1518;
	CHECK_EQ(rtr_nic_decide(rtr_nic_caps_find("net_memif"), &in), RTR_NICW_MAX_MTU);
	in.mtu = 4200;
	in.data_room = rtr_data_room(4200);
	CHECK_EQ(rtr_nic_decide(rtr_nic_caps_find("net_memif"), &in),
			RTR_NICW_MAX_MTU | RTR_NICW_MTU_ABOVE_MAX);
	/* mlx5 sets a configured MTU on the kernel netdev at configure; a
	 * kept one (mtu unset) changes nothing. af_packet does only from
	 * rte_eth_dev_set_mtu, which rocetor does not call. */
	in = healthy(mlx5, 4200);
	in.mtu_from_config = true;
	CHECK_EQ(rtr_nic_decide(mlx5, &in), RTR_NICW_MTU_KERNEL);
	in.mtu_from_config = false;
	CHECK_EQ(rtr_nic_decide(mlx5, &in), 0);
	in = healthy(rtr_nic_caps_find("net_af_packet"), 1400);
	in.mtu_from_config = true;
	CHECK_EQ(rtr_nic_decide(rtr_nic_caps_find("net_af_packet"), &in), 0);
	in = healthy(ice, 4200);
	in.mtu_from_config = true;
	CHECK_EQ(rtr_nic_decide(ice, &in), 0);
	in = healthy(NULL, 1500);
	in.max_mtu = 2000;
	CHECK_EQ(rtr_nic_decide(NULL, &in), RTR_NICW_NO_ENTRY | RTR_NICW_MAX_MTU);
}

/* The issue-30 bug: a data room not a multiple of 128 past the headroom
 * lets ice/i40e program a smaller buffer than the frames they take
 * unscattered. budget.c's room is safe at every MTU; the unrounded
 * formula it replaced is not. */
static void
test_rx_buf(void)
{
	const struct rtr_nic_caps *ice = rtr_nic_caps_find("net_ice");
	const struct rtr_nic_caps *i40e = rtr_nic_caps_find("net_i40e");
	const struct rtr_nic_caps *mlx5 = rtr_nic_caps_find("mlx5_pci");
	unsigned int bad_budget = 0, bad_unrounded = 0, first_bad = 0, unsaid = 0;

	if (ice == NULL || i40e == NULL || mlx5 == NULL)
		return;
	CHECK_EQ(rtr_nic_rx_buf(ice, RTE_PKTMBUF_HEADROOM + 9030, RTE_PKTMBUF_HEADROOM), 8960);
	CHECK_EQ(rtr_nic_rx_buf(mlx5, RTE_PKTMBUF_HEADROOM + 9030, RTE_PKTMBUF_HEADROOM), 9030);
	CHECK_EQ(rtr_nic_rx_buf(NULL, RTE_PKTMBUF_HEADROOM + 9030, RTE_PKTMBUF_HEADROOM), 9030);
	/* 8960 < frame <= 9030: cut; above 9030: scattered, whole. */
	CHECK(rtr_nic_frame_whole(ice, RTE_PKTMBUF_HEADROOM + 9030, RTE_PKTMBUF_HEADROOM, 8960));
	CHECK(!rtr_nic_frame_whole(ice, RTE_PKTMBUF_HEADROOM + 9030, RTE_PKTMBUF_HEADROOM, 8961));
	CHECK(!rtr_nic_frame_whole(ice, RTE_PKTMBUF_HEADROOM + 9030, RTE_PKTMBUF_HEADROOM, 9030));
	CHECK(rtr_nic_frame_whole(ice, RTE_PKTMBUF_HEADROOM + 9030, RTE_PKTMBUF_HEADROOM, 9031));
	CHECK(rtr_nic_frame_whole(mlx5, RTE_PKTMBUF_HEADROOM + 9030, RTE_PKTMBUF_HEADROOM, 9030));
	/* af_xdp: the kernel's 256 bytes of XDP headroom come out of the data
	 * room, and a longer frame is lost, never scattered. */
	{
		const struct rtr_nic_caps *xdp = rtr_nic_caps_find("net_af_xdp");
		unsigned int bad_xdp = 0;

		CHECK(xdp != NULL && xdp->rx_headroom_extra == 256 && xdp->keeps_rx_mbufs);
		if (xdp != NULL) {
			CHECK_EQ(rtr_nic_rx_buf(xdp, RTE_PKTMBUF_HEADROOM + 3072,
						 RTE_PKTMBUF_HEADROOM),
					3072 - 256);
			CHECK(rtr_nic_frame_whole(xdp, RTE_PKTMBUF_HEADROOM + 3072,
					RTE_PKTMBUF_HEADROOM, 3072 - 256));
			CHECK(!rtr_nic_frame_whole(xdp, RTE_PKTMBUF_HEADROOM + 3072,
					RTE_PKTMBUF_HEADROOM, 3072 - 255));
			CHECK(!rtr_nic_frame_whole(xdp, RTE_PKTMBUF_HEADROOM + 3072,
					RTE_PKTMBUF_HEADROOM, 4000));
			/* The data room the budget gives with the extra carries
			 * every frame of the MTU (sys-netns-xdp lost frames above
			 * mtu - 256 before). */
			for (unsigned int mtu = 68; mtu <= 3500; mtu++)
				if (!rtr_nic_frame_whole(xdp, rtr_data_room(mtu + 256),
						    RTE_PKTMBUF_HEADROOM,
						    mtu + RTR_NIC_FRAME_OVERHEAD))
					bad_xdp++;
			CHECK(bad_xdp == 0, "%u af_xdp MTUs cut", bad_xdp);
		}
	}
	for (unsigned int mtu = 68; mtu <= 9600; mtu++) {
		unsigned int frame = mtu + RTR_NIC_FRAME_OVERHEAD;
		unsigned int unrounded = RTE_PKTMBUF_HEADROOM + RTE_MAX(2048u, frame + 4);
		struct rtr_nic_in in = healthy(i40e, mtu);

		if (!rtr_nic_frame_whole(ice, rtr_data_room(mtu), RTE_PKTMBUF_HEADROOM, frame) ||
				!rtr_nic_frame_whole(i40e, rtr_data_room(mtu), RTE_PKTMBUF_HEADROOM,
						frame) ||
				rtr_nic_decide(i40e, &in) != 0)
			bad_budget++;
		if (!rtr_nic_frame_whole(ice, unrounded, RTE_PKTMBUF_HEADROOM, frame)) {
			if (bad_unrounded++ == 0)
				first_bad = mtu;
		}
		in.data_room = unrounded;
		/* ... and the port setup says so exactly then. */
		if (!rtr_nic_frame_whole(ice, unrounded, RTE_PKTMBUF_HEADROOM, frame) !=
				(rtr_nic_decide(i40e, &in) == RTR_NICW_RX_BUF))
			unsaid++;
	}
	CHECK_EQ(bad_budget, 0);
	CHECK_EQ(unsaid, 0);
	/* The unrounded room cuts frames from MTU 2023 on (a 2049-byte frame
	 * in a 2053-byte room programmed as 2048), except where room % 128
	 * is below 5: the test tells the two rooms apart. */
	CHECK(bad_unrounded > 7000, "%u MTUs cut with the unrounded room", bad_unrounded);
	CHECK_EQ(first_bad, 2023);
}

/* A device that reports other facts than its entry: said, fact by fact,
 * so that a lab run confirms or corrects doc/nic-facts.md. */
static void
test_table_diff(void)
{
	const struct rtr_nic_caps *ice = rtr_nic_caps_find("net_ice");
	const struct rtr_nic_caps *mlx5 = rtr_nic_caps_find("mlx5_pci");
	const struct rtr_nic_caps *null = rtr_nic_caps_find("net_null");
	struct rtr_nic_in in;
	char buf[256];

	if (ice == NULL || mlx5 == NULL || null == NULL)
		return;
	for (unsigned int i = 0; rtr_nic_caps_at(i) != NULL; i++) {
		in = healthy(rtr_nic_caps_at(i), 1500);
		CHECK_EQ(rtr_nic_table_diff(rtr_nic_caps_at(i), &in, buf, sizeof(buf)), 0);
		CHECK_STR(buf, "");
	}
	in = healthy(NULL, 1500);
	CHECK_EQ(rtr_nic_table_diff(NULL, &in, buf, sizeof(buf)), 0);
	/* ice with a 2048-entry RETA and no LSC. */
	in = healthy(ice, 1500);
	in.reta_size = 2048;
	in.lsc = false;
	CHECK_EQ(rtr_nic_table_diff(ice, &in, buf, sizeof(buf)), 2);
	CHECK_STR(buf, "reta_size 2048 (table 512), lsc no (table yes)");
	/* mlx5's RETA is the device's (table 0): any size is no news; its
	 * key is 40. */
	in = healthy(mlx5, 1500);
	in.reta_size = 512;
	CHECK_EQ(rtr_nic_table_diff(mlx5, &in, buf, sizeof(buf)), 0);
	in.key_size = 52;
	CHECK_EQ(rtr_nic_table_diff(mlx5, &in, buf, sizeof(buf)), 1);
	CHECK_STR(buf, "hash_key_size 52 (table 40)");
	/* RSS types beyond the entry's. */
	in = healthy(ice, 1500);
	in.rss_offered |= RTE_ETH_RSS_ESP;
	CHECK_EQ(rtr_nic_table_diff(ice, &in, buf, sizeof(buf)), 1);
	CHECK(strstr(buf, "beyond the table's") != NULL, "%s", buf);
	/* A short buffer is cut, the count is whole. */
	in = healthy(ice, 1500);
	in.reta_size = 128;
	in.key_size = 40;
	in.lsc = false;
	CHECK_EQ(rtr_nic_table_diff(ice, &in, buf, 10), 3);
	CHECK_EQ(strlen(buf), 9);
}

static void
test_rss_str(void)
{
	char buf[160], tiny[8];

	CHECK_STR(rtr_nic_rss_str(0, buf, sizeof(buf)), "off");
	CHECK_STR(rtr_nic_rss_str(udp, buf, sizeof(buf)), "ipv4-udp,ipv6-udp");
	CHECK_STR(rtr_nic_rss_str(RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP |
						  RTE_ETH_RSS_NONFRAG_IPV4_UDP,
				  buf, sizeof(buf)),
			"ipv4,ipv4-tcp,ipv4-udp");
	/* A bit without a name (L4_SRC_ONLY is bit 61) is given in hex. */
	CHECK_STR(rtr_nic_rss_str(RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_L4_SRC_ONLY, buf, sizeof(buf)),
			"ipv4,+0x2000000000000000");
	/* What ports.c asks for on mlx5 names every UDP type. */
	rtr_nic_rss_str(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP, buf, sizeof(buf));
	CHECK(strstr(buf, "ipv4-udp") != NULL && strstr(buf, "ipv6-udp") != NULL, "%s", buf);
	CHECK(strchr(buf, '+') == NULL, "%s", buf);
	/* Truncated, never overrun. */
	rtr_nic_rss_str(udp, tiny, sizeof(tiny));
	CHECK_EQ(strlen(tiny), sizeof(tiny) - 1);
}

static void
test_xstats(void)
{
	const struct rtr_nic_caps *mlx5 = rtr_nic_caps_find("mlx5_pci");
	const struct rtr_nic_caps *ice = rtr_nic_caps_find("net_ice");
	const struct rtr_nic_caps *i40e = rtr_nic_caps_find("net_i40e");
	const struct rtr_nic_caps *null = rtr_nic_caps_find("net_null");
	/* i40e's names as i40e_xstats_get_names makes them (i40e_ethdev.c
	 * :3541-3558 and the tables at :527-630), a few of each kind. */
	static const char *const i40e_names[] = {"rx_good_packets", "rx_missed_errors",
			"rx_dropped_packets", "tx_dropped_packets", "rx_xon_packets",
			"rx_xoff_packets", "tx_xoff_packets", "rx_priority0_xoff_packets",
			"rx_priority7_xoff_packets", "rx_priority3_xon_packets",
			"tx_priority3_xoff_packets", "tx_priority3_xon_to_xoff_packets",
			"rx_priority8_xoff_packets"};
	unsigned int hits[RTR_NIC_CTR_MAX] = {0};

	if (mlx5 == NULL || ice == NULL || i40e == NULL || null == NULL)
		return;
	for (unsigned int x = 0; x < sizeof(i40e_names) / sizeof(i40e_names[0]); x++)
		for (unsigned int c = 0; c < RTR_NIC_CTR_MAX; c++)
			hits[c] += rtr_nic_xstat_match(i40e, c, i40e_names[x]);
	CHECK_EQ(hits[RTR_NIC_RX_PAUSE], 3);
	CHECK_EQ(hits[RTR_NIC_TX_PAUSE], 2);
	CHECK_EQ(hits[RTR_NIC_RX_DISCARDS], 1);
	CHECK(rtr_nic_xstat_match(ice, RTR_NIC_RX_PAUSE, "rx_xoff_packets"));
	CHECK(rtr_nic_xstat_match(ice, RTR_NIC_RX_DISCARDS, "rx_dropped_packets"));
	CHECK(!rtr_nic_xstat_match(ice, RTR_NIC_RX_PAUSE, "rx_priority0_xoff_packets"));
	/* mlx5: discards by priority, no pause counter in 22.11's table. */
	CHECK(rtr_nic_xstat_match(mlx5, RTR_NIC_RX_DISCARDS, "rx_phy_discard_packets"));
	CHECK(rtr_nic_xstat_match(mlx5, RTR_NIC_RX_DISCARDS, "rx_prio3_buf_discard_packets"));
	CHECK(rtr_nic_xstat_match(mlx5, RTR_NIC_RX_DISCARDS, "rx_prio7_cong_discard_packets"));
	CHECK(!rtr_nic_xstat_match(mlx5, RTR_NIC_RX_DISCARDS, "rx_out_of_buffer"));
	CHECK(!rtr_nic_xstat_match(mlx5, RTR_NIC_RX_PAUSE, "rx_prio3_pause"));
	/* net_null's xstats are ethdev's generic ones: none of ours. */
	for (unsigned int c = 0; c < RTR_NIC_CTR_MAX; c++) {
		CHECK(!rtr_nic_xstat_match(null, c, "rx_missed_errors"));
		CHECK(!rtr_nic_xstat_match(NULL, c, "rx_xoff_packets"));
	}
	CHECK_STR(rtr_nic_ctr_names[RTR_NIC_RX_PAUSE], "nic_rx_pause");
	CHECK_STR(rtr_nic_ctr_names[RTR_NIC_TX_PAUSE], "nic_tx_pause");
	CHECK_STR(rtr_nic_ctr_names[RTR_NIC_RX_DISCARDS], "nic_rx_discards");
}

/* qos.pfc.mode against the table: every mode on every family, and no
 * entry. */
static void
test_pfc_decide(void)
{
	enum { OK = RTR_PFCV_OK, WARN = RTR_PFCV_WARN, REF = RTR_PFCV_REFUSE };
	static const char *const drivers[] = {"mlx5_pci", "net_ice", "net_i40e", "net_pcap",
			"net_memif", "net_null", NULL};
	/* verdict[mode][driver], and whether the driver's op is called. */
	static const int verdict[RTR_PFC_MODES][7] = {
			[RTR_PFC_OFF] = {OK, OK, OK, OK, OK, OK, OK},
			[RTR_PFC_SOFTWARE] = {REF, REF, REF, WARN, OK, OK, WARN},
			[RTR_PFC_NIC] = {WARN, WARN, WARN, WARN, WARN, WARN, WARN},
			[RTR_PFC_PAUSE] = {OK, REF, OK, REF, REF, REF, WARN},
			[RTR_PFC_EXTERNAL] = {WARN, OK, OK, WARN, WARN, WARN, WARN},
	};
	static const bool call[RTR_PFC_MODES][7] = {
			[RTR_PFC_NIC] = {true, true, true, true, true, true, true},
			[RTR_PFC_PAUSE] = {true, false, true, false, false, false, true},
	};
	const struct rtr_nic_caps *mlx5 = rtr_nic_caps_find("mlx5_pci");
	const struct rtr_nic_caps *ice = rtr_nic_caps_find("net_ice");
	const struct rtr_nic_caps *i40e = rtr_nic_caps_find("net_i40e");
	const struct rtr_nic_caps *null = rtr_nic_caps_find("net_null");
	struct rtr_nic_caps with_pfc;
	struct rtr_pfc_decision d;

	for (unsigned int m = 0; m < RTR_PFC_MODES; m++) {
		for (unsigned int k = 0; k < 7; k++) {
			const struct rtr_nic_caps *c = rtr_nic_caps_find(drivers[k]);

			CHECK(drivers[k] == NULL || c != NULL, "%s has an entry", drivers[k]);
			d = rtr_nic_pfc_decide(c, (enum rtr_pfc_mode)m, 256);
			CHECK(d.verdict == (enum rtr_pfc_verdict)verdict[m][k],
					"mode %s on %s: verdict %d, want %d", rtr_pfc_mode_names[m],
					drivers[k] ? drivers[k] : "(no entry)", d.verdict,
					verdict[m][k]);
			CHECK(d.call == call[m][k], "mode %s on %s: call %d", rtr_pfc_mode_names[m],
					drivers[k] ? drivers[k] : "(no entry)", d.call);
			/* A reason for every warning and refusal, a way out of
			 * every refusal, none otherwise. */
			CHECK((d.why != NULL) == (d.verdict != RTR_PFCV_OK), "mode %s on %s: why",
					rtr_pfc_mode_names[m],
					drivers[k] ? drivers[k] : "(no entry)");
			CHECK((d.instead != NULL) == (d.verdict == RTR_PFCV_REFUSE),
					"mode %s on %s: instead", rtr_pfc_mode_names[m],
					drivers[k] ? drivers[k] : "(no entry)");
			CHECK_EQ(d.no_entry, c == NULL);
			/* What a refusal proposes must itself not be refused. */
			if (d.verdict == RTR_PFCV_REFUSE)
				for (unsigned int o = 0; o < RTR_PFC_MODES; o++)
					if (o != RTR_PFC_OFF &&
							strstr(d.instead, rtr_pfc_mode_names[o]) !=
									NULL)
						CHECK(rtr_nic_pfc_decide(
								      c, (enum rtr_pfc_mode)o, 256)
												.verdict !=
										RTR_PFCV_REFUSE,
								"%s proposed on %s is refused",
								rtr_pfc_mode_names[o], drivers[k]);
		}
	}
	/* The reasons say what was read, and what a lab must confirm. */
	d = rtr_nic_pfc_decide(i40e, RTR_PFC_SOFTWARE, 256);
	CHECK(d.why != NULL && strstr(d.why, "i40e_ethdev.c:797-813") != NULL, "i40e: %s",
			d.why ? d.why : "(null)");
	CHECK_STR(d.instead, "external (PFC set outside DPDK) or pause (802.3x)");
	d = rtr_nic_pfc_decide(mlx5, RTR_PFC_SOFTWARE, 256);
	CHECK(d.why != NULL && strstr(d.why, "a lab must confirm") != NULL, "mlx5: %s",
			d.why ? d.why : "(null)");
	d = rtr_nic_pfc_decide(ice, RTR_PFC_SOFTWARE, 256);
	CHECK(d.why != NULL && strstr(d.why, "a lab must confirm") != NULL, "ice: %s",
			d.why ? d.why : "(null)");
	CHECK_STR(d.instead, "external (PFC set outside DPDK)");
	d = rtr_nic_pfc_decide(ice, RTR_PFC_PAUSE, 256);
	CHECK_STR(d.instead, "external (PFC set outside DPDK)");
	d = rtr_nic_pfc_decide(null, RTR_PFC_PAUSE, 256);
	CHECK_STR(d.instead, "software or external");
	d = rtr_nic_pfc_decide(NULL, RTR_PFC_SOFTWARE, 256);
	CHECK_STR(d.why, "no capability entry: MAC control frames may be consumed by the NIC");
	/* pause on i40e: high water in KB, at most 968; mlx5 ignores it. */
	d = rtr_nic_pfc_decide(i40e, RTR_PFC_PAUSE, 968);
	CHECK(d.verdict == RTR_PFCV_OK && d.call, "i40e pause at 968 KB");
	d = rtr_nic_pfc_decide(i40e, RTR_PFC_PAUSE, 969);
	CHECK(d.verdict == RTR_PFCV_REFUSE && !d.call, "i40e pause at 969 KB");
	CHECK_STR(d.instead, "pause with a smaller xoff_kb, or external");
	d = rtr_nic_pfc_decide(mlx5, RTR_PFC_PAUSE, 1048576);
	CHECK(d.verdict == RTR_PFCV_OK && d.call, "mlx5 pause ignores the watermarks");
	/* external: the recipe of the family; the pause counters to watch. */
	d = rtr_nic_pfc_decide(mlx5, RTR_PFC_EXTERNAL, 256);
	CHECK(d.recipe != NULL && strstr(d.recipe, "mlnx_qos -i IFACE") != NULL, "mlx5 recipe");
	CHECK(d.no_pause_xstats);
	d = rtr_nic_pfc_decide(ice, RTR_PFC_EXTERNAL, 256);
	CHECK(d.recipe != NULL && strstr(d.recipe, "lldptool") != NULL, "ice recipe");
	CHECK(!d.no_pause_xstats);
	d = rtr_nic_pfc_decide(i40e, RTR_PFC_EXTERNAL, 256);
	CHECK(d.recipe != NULL && !d.no_pause_xstats, "i40e recipe, counters");
	d = rtr_nic_pfc_decide(NULL, RTR_PFC_EXTERNAL, 256);
	CHECK(d.recipe == NULL && d.no_pause_xstats && d.no_entry, "external, no entry");
	/* A driver whose entry has PFC: nic is OK, and is what a refusal
	 * proposes. */
	with_pfc = *i40e;
	with_pfc.pfc = true;
	d = rtr_nic_pfc_decide(&with_pfc, RTR_PFC_NIC, 256);
	CHECK(d.verdict == RTR_PFCV_OK && d.call, "nic with PFC in the entry");
	d = rtr_nic_pfc_decide(&with_pfc, RTR_PFC_SOFTWARE, 256);
	CHECK_STR(d.instead, "nic or external");
	/* The table: only the virtual ports pass MAC control frames. */
	CHECK_EQ(mlx5->mac_ctrl, RTR_NIC_MACCTL_NO);
	CHECK_EQ(ice->mac_ctrl, RTR_NIC_MACCTL_NO);
	CHECK_EQ(i40e->mac_ctrl, RTR_NIC_MACCTL_NO);
	CHECK_EQ(null->mac_ctrl, RTR_NIC_MACCTL_YES);
	CHECK_EQ(rtr_nic_caps_find("net_memif")->mac_ctrl, RTR_NIC_MACCTL_YES);
	CHECK_EQ(rtr_nic_caps_find("net_af_packet")->mac_ctrl, RTR_NIC_MACCTL_KERNEL);
}

int
main(void)
{
	test_table_facts();
	test_decide();
	test_rx_buf();
	test_table_diff();
	test_rss_str();
	test_xstats();
	test_pfc_decide();
	return rtr_test_done("nic-caps");
}
