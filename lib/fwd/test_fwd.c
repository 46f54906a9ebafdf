/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit test of the forwarding step (lib/fwd/rtr_fwd.h) and of the loop's
 * hook rules in rtr_lb_worker.h, on rocetor's own route and neighbour
 * tables (the EAL without hugepages, for rte_lpm only) and fake mbufs:
 * every verdict and its reason, what a dropped packet keeps (nothing
 * written), what a forwarded one gets (TTL or hop limit, the IPv4 checksum,
 * MACs, out_port), IPv6, the switch's own addresses, the LB hooks a fake
 * mode records (pick, control_rx, deliver, post_route, queued) and the
 * flush / held / tick rules, a mode with flush and no held included.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ip.h>

#include "rtr_fwd.h"
#include "rtr_lb_ctrl.h"
#include "rtr_mbuf.h"
#include "rtr_parse.h"
#include "rtr_test.h"
#include "rtr_test_eal.h"
#include "rtr_test_mbuf.h"

#define SEED 0x1234u

static const char CONFIG[] =
		"switch: {name: fwd, id: 1, lb: ecmp}\n"
		"ports:\n"
		"  - {port: 0, role: host, mac: \"02:00:00:00:00:10\", ip: [\"10.1.0.254/24\", "
		"\"fd00:1::fe/64\"]}\n"
		"  - {port: 1, role: host, mac: \"02:00:00:00:00:11\", ip: [\"10.1.1.254/24\"]}\n"
		"  - {port: 2, role: fabric, mac: \"02:00:00:00:00:12\"}\n"
		"  - {port: 3, role: fabric, mac: \"02:00:00:00:00:13\"}\n"
		"routes:\n"
		"  - {prefix: \"10.1.0.1/32\", port: 0, nexthop_mac: \"02:00:00:00:aa:01\"}\n"
		"  - {prefix: \"10.1.1.9/32\", port: 1, nexthop: \"10.1.1.9\"}\n"
		"  - {prefix: \"fd00:1::1/128\", port: 0, nexthop_mac: \"02:00:00:00:aa:01\"}\n"
		"  - prefix: \"10.2.0.0/16\"\n"
		"    paths:\n"
		"      - {port: 2, nexthop_mac: \"02:00:00:00:bb:02\"}\n"
		"      - {port: 3, nexthop_mac: \"02:00:00:00:bb:03\"}\n";

/* ------------------------------------------------------------ a fake mode */

struct rec {
	unsigned int pick, control_rx, deliver, post_route, queued, tick, flush;
	int pick_path;     /* what pick returns */
	int deliver_ret;   /* what deliver returns */
	uint64_t held;     /* what held returns */
	uint64_t deadline; /* what next_deadline returns */
	int flush_port;
};

static int
f_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now_ns, struct rtr_lcore_stats *st)
{
	struct rec *r = state;

	(void)g, (void)g_idx, (void)m, (void)meta, (void)now_ns, (void)st;
	r->pick++;
	return r->pick_path;
}

static void
f_control_rx(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns,
		struct rtr_lcore_stats *st)
{
	(void)m, (void)meta, (void)now_ns, (void)st;
	((struct rec *)state)->control_rx++;
}

static int
f_deliver(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t port, uint64_t now_ns,
		struct rtr_lcore_stats *st)
{
	struct rec *r = state;

	(void)m, (void)meta, (void)port, (void)now_ns, (void)st;
	r->deliver++;
	return r->deliver_ret;
}

static void
f_post_route(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t out_port,
		uint64_t now_ns, struct rtr_lcore_stats *st)
{
	(void)m, (void)meta, (void)out_port, (void)now_ns, (void)st;
	((struct rec *)state)->post_route++;
}

static void
f_queued(void *state, const struct rte_mbuf *m, const struct rtr_meta *meta, uint16_t out_port)
{
	(void)m, (void)meta, (void)out_port;
	((struct rec *)state)->queued++;
}

static void
f_tick(void *state, uint64_t now_ns, struct rtr_lcore_stats *st)
{
	(void)now_ns, (void)st;
	((struct rec *)state)->tick++;
}

static uint64_t
f_next_deadline(const void *state)
{
	return ((const struct rec *)state)->deadline;
}

static unsigned int
f_flush(void *state, int port, uint64_t now_ns, struct rtr_lcore_stats *st)
{
	struct rec *r = state;

	(void)now_ns, (void)st;
	r->flush++;
	r->flush_port = port;
	return 7;
}

static uint64_t
f_held(const void *state)
{
	return ((const struct rec *)state)->held;
}

static const struct rtr_lb_ops fake_ops = {
		.name = "fake",
		.deliver_flags = RTR_MF_LB_HDR,
		.pick = f_pick,
		.control_rx = f_control_rx,
		.deliver = f_deliver,
		.post_route = f_post_route,
		.queued = f_queued,
		.tick = f_tick,
		.next_deadline = f_next_deadline,
		.flush = f_flush,
		.held = f_held,
};

/* ------------------------------------------------------------ frames */

static struct rtr_route *route;
static struct rtr_neigh *neigh;
static struct rtr_fwd_port ports[RTR_MAX_PORTS];
static struct rtr_lcore_stats stats;

/* Ethernet + IPv4 (ttl) + UDP 4791 + BTH + 16 bytes + ICRC, to dst. */
static struct rte_mbuf *
roce4(uint32_t dst, uint8_t ttl)
{
	uint8_t f[14 + 20 + 8 + 12 + 16 + 4];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);

	memset(f, 0, sizeof(f));
	memcpy(f, "\x02\x00\x00\x00\x00\x10\x02\x00\x00\x00\xcc\x01", 12);
	f[12] = 0x08, f[13] = 0x00;
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(sizeof(f) - 14);
	ip->time_to_live = ttl;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0a010001);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	f[34] = 0xc0, f[35] = 0x00;                  /* sport 49152 */
	f[36] = 0x12, f[37] = 0xb7;                  /* dport 4791 */
	f[38] = 0, f[39] = 8 + 12 + 16 + 4;          /* UDP length */
	f[42] = 0x04;                                /* BTH: SEND_ONLY */
	f[42 + 5] = 0, f[42 + 6] = 0, f[42 + 7] = 9; /* dest QP */
	return fake_frame(f, sizeof(f));
}

/* Ethernet + IPv6 (hop limit) + ICMPv6 of type, to dst (16 bytes). */
static struct rte_mbuf *
icmp6(const uint8_t *dst, uint8_t hops, uint8_t type)
{
	uint8_t f[14 + 40 + 8];
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(f + 14);

	memset(f, 0, sizeof(f));
	memcpy(f, "\x02\x00\x00\x00\x00\x10\x02\x00\x00\x00\xcc\x01", 12);
	f[12] = 0x86, f[13] = 0xdd;
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip6->payload_len = rte_cpu_to_be_16(8);
	ip6->proto = IPPROTO_ICMPV6;
	ip6->hop_limits = hops;
	ip6->src_addr[0] = 0xfd, ip6->src_addr[15] = 2;
	memcpy(ip6->dst_addr, dst, 16);
	f[54] = type;
	return fake_frame(f, sizeof(f));
}

/* Ethernet + IPv4 ICMP of type to dst. */
static struct rte_mbuf *
icmp4(uint32_t dst, uint8_t type)
{
	uint8_t f[14 + 20 + 8];
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);

	memset(f, 0, sizeof(f));
	memcpy(f, "\x02\x00\x00\x00\x00\x10\x02\x00\x00\x00\xcc\x01", 12);
	f[12] = 0x08, f[13] = 0x00;
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(28);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = rte_cpu_to_be_32(0x0a010001);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	f[34] = type;
	return fake_frame(f, sizeof(f));
}

/* The header's checksum is the one computed over it with the field 0. */
static int
ip_cksum_ok(const struct rte_ipv4_hdr *ip)
{
	struct rte_ipv4_hdr h = *ip;

	h.hdr_checksum = 0;
	return rte_ipv4_cksum(&h) == ip->hdr_checksum;
}

static struct rtr_meta *
parsed(struct rte_mbuf *m, uint16_t in_port)
{
	struct rtr_meta *meta = rtr_meta(m);

	CHECK_EQ(rtr_parse(mdata(m), m->data_len, SEED, 0, meta), RTR_DROP_NONE);
	meta->in_port = (uint8_t)in_port;
	return meta;
}

static struct rtr_fwd
fwd_with(const struct rtr_lb_ops *ops, struct rec *r)
{
	return (struct rtr_fwd){
			.route = route,
			.nh = rtr_neigh_nh_table(neigh),
			.ports = ports,
			.fabric_ports = 0xcu,
			.lb = ops,
			.lb_state = r,
			.st = &stats,
	};
}

/* ------------------------------------------------------------ the tests */

/* A host route: ENQUEUE on its port, TTL down by one with a valid
 * checksum, the next hop's and the port's MACs; post_route and queued
 * run, nothing else of the mode. */
static void
test_forward4(void)
{
	struct rec r = {0};
	struct rtr_fwd f = fwd_with(&fake_ops, &r);
	struct rte_mbuf *m = roce4(0x0a010001, 64);
	struct rtr_meta *meta = parsed(m, 2);
	struct rtr_fwd_dest d = {0};
	const struct rte_ipv4_hdr *ip;

	rtr_fwd_packet(&f, m, meta, &d, 1000);
	CHECK_EQ(d.verdict, RTR_FWD_ENQUEUE);
	CHECK_EQ(d.out_port, 0);
	CHECK_EQ(meta->out_port, 0);
	ip = (const struct rte_ipv4_hdr *)(mdata(m) + 14);
	CHECK_EQ(ip->time_to_live, 63);
	CHECK_EQ(ip_cksum_ok(ip), 1);
	CHECK(memcmp(mdata(m), "\x02\x00\x00\x00\xaa\x01", 6) == 0, "destination MAC");
	CHECK(memcmp(mdata(m) + 6, "\x02\x00\x00\x00\x00\x10", 6) == 0, "source MAC");
	CHECK_EQ(r.pick, 0);
	CHECK_EQ(r.post_route, 1);
	CHECK_EQ(r.deliver, 0);
	rtr_fwd_queued(&f, m, meta, d.out_port);
	CHECK_EQ(r.queued, 1);
	fake_free(m);
}

/* A RoCE packet to dst with ttl, in on in_port, is dropped under why and
 * left as it came (nothing is written before the last check). */
static void
expect_drop(const struct rtr_fwd *f, uint32_t dst, uint8_t ttl, uint16_t in_port,
		enum rtr_drop_reason why)
{
	struct rte_mbuf *m = roce4(dst, ttl);
	struct rtr_meta *meta = parsed(m, in_port);
	struct rtr_fwd_dest d = {0};
	uint8_t before[128];
	unsigned int len = m->data_len;

	memcpy(before, mdata(m), len);
	rtr_fwd_packet(f, m, meta, &d, 1000);
	CHECK_EQ(d.verdict, RTR_FWD_DROP);
	CHECK_EQ(d.why, why);
	CHECK(m->data_len == len && memcmp(mdata(m), before, len) == 0,
			"a dropped frame was written (reason %d)", (int)why);
	fake_free(m);
}

static void
test_drops(void)
{
	struct rec r = {0};
	struct rtr_fwd f = fwd_with(&fake_ops, &r);

	expect_drop(&f, 0x0b000001, 64, 0, RTR_DROP_NO_ROUTE);
	/* TTL 1: dropped before the mode's out hook. */
	expect_drop(&f, 0x0a010001, 1, 2, RTR_DROP_TTL);
	CHECK_EQ(r.post_route, 0);
	atomic_store(&ports[0].link_up, 0);
	expect_drop(&f, 0x0a010001, 64, 2, RTR_DROP_PORT_DOWN);
	atomic_store(&ports[0].link_up, 1);
	/* A next hop ARP has not resolved. */
	expect_drop(&f, 0x0a010109, 64, 2, RTR_DROP_NEIGH_UNRESOLVED);
}

/* The switch's own address: an echo request is punted, anything else is
 * dropped as local_unsupported; ND is punted before any route. */
static void
test_local(void)
{
	static const uint8_t own6[16] = {0xfd, 0, 0, 1, [15] = 0xfe};
	static const uint8_t host6[16] = {0xfd, 0, 0, 1, [15] = 1};
	struct rec r = {0};
	struct rtr_fwd f = fwd_with(&fake_ops, &r);
	struct rtr_fwd_dest d = {0};
	struct rte_mbuf *m;

	m = icmp4(0x0a0100fe, 8);
	rtr_fwd_packet(&f, m, parsed(m, 0), &d, 1000);
	CHECK_EQ(d.verdict, RTR_FWD_PUNT);
	fake_free(m);
	m = icmp4(0x0a0100fe, 13);
	rtr_fwd_packet(&f, m, parsed(m, 0), &d, 1000);
	CHECK_EQ(d.verdict, RTR_FWD_DROP);
	CHECK_EQ(d.why, RTR_DROP_LOCAL_UNSUPPORTED);
	fake_free(m);
	m = icmp6(own6, 64, 128);
	rtr_fwd_packet(&f, m, parsed(m, 0), &d, 1000);
	CHECK_EQ(d.verdict, RTR_FWD_PUNT);
	fake_free(m);
	for (uint8_t t = 133; t <= 137; t++) {
		m = icmp6(host6, 255, t);
		rtr_fwd_packet(&f, m, parsed(m, 0), &d, 1000);
		CHECK_EQ(d.verdict, RTR_FWD_PUNT);
		fake_free(m);
	}
	/* IPv6 forwarded: hop limit down by one; hop limit 1 dropped. */
	m = icmp6(host6, 9, 128);
	rtr_fwd_packet(&f, m, parsed(m, 1), &d, 1000);
	CHECK_EQ(d.verdict, RTR_FWD_ENQUEUE);
	CHECK_EQ(d.out_port, 0);
	CHECK_EQ(((const struct rte_ipv6_hdr *)(mdata(m) + 14))->hop_limits, 8);
	fake_free(m);
	m = icmp6(host6, 1, 128);
	rtr_fwd_packet(&f, m, parsed(m, 1), &d, 1000);
	CHECK_EQ(d.verdict, RTR_FWD_DROP);
	CHECK_EQ(d.why, RTR_DROP_TTL);
	fake_free(m);
}

/* A group route: the mode's pick gives the path (its next hop, its port,
 * path_tx counted); -1 drops as port_down; without pick, the ECMP hash. */
static void
test_group(void)
{
	struct rec r = {.pick_path = 1};
	struct rtr_fwd f = fwd_with(&fake_ops, &r);
	struct rtr_lb_ops ecmp = {.name = "ecmp-like"};
	struct rtr_fwd_dest d = {0};
	struct rte_mbuf *m;
	struct rtr_meta *meta;
	uint64_t before = stats.path_tx[0][1];

	m = roce4(0x0a020005, 64);
	meta = parsed(m, 0);
	rtr_fwd_packet(&f, m, meta, &d, 1000);
	CHECK_EQ(r.pick, 1);
	CHECK_EQ(d.verdict, RTR_FWD_ENQUEUE);
	CHECK_EQ(d.out_port, 3);
	CHECK(memcmp(mdata(m), "\x02\x00\x00\x00\xbb\x03", 6) == 0, "path 1's next hop MAC");
	CHECK_EQ(stats.path_tx[0][1], before + 1);
	fake_free(m);

	r.pick_path = -1;
	m = roce4(0x0a020005, 64);
	rtr_fwd_packet(&f, m, parsed(m, 0), &d, 1000);
	CHECK_EQ(d.verdict, RTR_FWD_DROP);
	CHECK_EQ(d.why, RTR_DROP_PORT_DOWN);
	fake_free(m);

	f = fwd_with(&ecmp, &r);
	before = stats.lb[RTR_LBC_ecmp_packets];
	m = roce4(0x0a020005, 64);
	meta = parsed(m, 0);
	rtr_fwd_packet(&f, m, meta, &d, 1000);
	CHECK_EQ(d.verdict, RTR_FWD_ENQUEUE);
	CHECK_EQ(d.out_port, 2 + rtr_group_pick(&route->groups[0], meta->flow_hash));
	CHECK_EQ(stats.lb[RTR_LBC_ecmp_packets], before + 1);
	fake_free(m);
}

/* The LB stage's exits: an LB control packet routed to a host is consumed
 * before the link check; a packet with deliver_flags from a fabric port to
 * a host is the DstToR's (TAKEN when deliver takes it). */
static void
test_lb_exits(void)
{
	static const uint8_t hdr[4] = {0, 0, 0, 0};
	struct rec r = {.deliver_ret = RTR_LB_TAKEN};
	struct rtr_fwd f = fwd_with(&fake_ops, &r);
	struct rtr_fwd_dest d = {0};
	struct rte_mbuf *m, *data;
	struct rtr_meta *meta;

	/* A NOTIFY (op 3 of the LB layout in Resv7: byte 8 0x60,
	 * doc/wire-formats.md)
	 * answering a data packet 10.1.0.1 -> 10.2.0.5: back to 10.1.0.1, a
	 * host route, whose link is down. */
	data = roce4(0x0a020005, 64);
	meta = parsed(data, 0);
	m = rtr_lb_ctrl_build(fake_mbuf(), mdata(data), meta, 0, 0x60, hdr);
	fake_free(data);
	CHECK(m != NULL, "control packet built");
	meta = rtr_meta(m);
	CHECK_EQ(rtr_parse(mdata(m), m->data_len, SEED, RTR_LB_PARSE_HDR, meta), RTR_DROP_NONE);
	meta->in_port = 2;
	CHECK(rtr_meta_lb_control(meta), "the test packet reads as LB control");
	atomic_store(&ports[0].link_up, 0);
	rtr_fwd_packet(&f, m, meta, &d, 1000);
	CHECK_EQ(d.verdict, RTR_FWD_CONSUMED);
	CHECK_EQ(r.control_rx, 1);
	atomic_store(&ports[0].link_up, 1);
	fake_free(m);

	m = roce4(0x0a010001, 64);
	meta = parsed(m, 2);
	meta->flags |= RTR_MF_LB_HDR;
	rtr_fwd_packet(&f, m, meta, &d, 1000);
	CHECK_EQ(d.verdict, RTR_FWD_TAKEN);
	CHECK_EQ(r.deliver, 1);
	fake_free(m);

	/* From a host port, deliver does not run. */
	m = roce4(0x0a010001, 64);
	meta = parsed(m, 1);
	meta->flags |= RTR_MF_LB_HDR;
	rtr_fwd_packet(&f, m, meta, &d, 1000);
	CHECK_EQ(d.verdict, RTR_FWD_ENQUEUE);
	CHECK_EQ(r.deliver, 1);
	fake_free(m);
}

/* The loop's rules: tick once the deadline passed, age whatever it is;
 * flush skipped when nothing is held, called when something is, and
 * always for a mode with flush and no held (the pipeline once called held
 * through a NULL pointer there); held 0 without the hook. */
static void
test_loop_rules(void)
{
	struct rec r = {.deadline = 5000};
	struct rtr_lb_ops no_held = fake_ops;
	struct rtr_lb_ops none = {.name = "none"};

	rtr_lb_tick(&fake_ops, &r, 4999, &stats);
	CHECK_EQ(r.tick, 0);
	rtr_lb_tick(&fake_ops, &r, 5000, &stats);
	CHECK_EQ(r.tick, 1);
	rtr_lb_age(&fake_ops, &r, 0, &stats);
	CHECK_EQ(r.tick, 2);

	CHECK_EQ(rtr_lb_flush(&fake_ops, &r, 3, 0, &stats), 0);
	CHECK_EQ(r.flush, 0);
	r.held = 2;
	CHECK_EQ(rtr_lb_flush(&fake_ops, &r, 3, 0, &stats), 7);
	CHECK_EQ(r.flush, 1);
	CHECK_EQ(r.flush_port, 3);
	CHECK_EQ(rtr_lb_held(&fake_ops, &r), 2);

	no_held.held = NULL;
	r.held = 0;
	CHECK_EQ(rtr_lb_flush(&no_held, &r, 1, 0, &stats), 7);
	CHECK_EQ(r.flush, 2);
	CHECK_EQ(rtr_lb_held(&no_held, &r), 0);
	CHECK_EQ(rtr_lb_flush_final(&fake_ops, &r, 0, &stats), 7);
	CHECK_EQ(r.flush_port, -1);

	CHECK_EQ(rtr_lb_flush(&none, NULL, -1, 0, &stats), 0);
	CHECK_EQ(rtr_lb_flush_final(&none, NULL, 0, &stats), 0);
	CHECK_EQ(rtr_lb_held(&none, NULL), 0);
	rtr_lb_tick(&none, NULL, 0, &stats);
	rtr_lb_age(&none, NULL, 0, &stats);
}

static int
nh_add(void *arg, uint16_t port, const struct rtr_addr *ip, const uint8_t *mac)
{
	return rtr_neigh_add(arg, port, ip, mac);
}

int
main(void)
{
	char err[256];
	static struct rtr_config cfg;
	uint8_t macs[RTR_MAX_PORTS][6];

	if (rtr_test_eal_init("test_fwd") != 0)
		return 1;
	rtr_meta_offset = (int)offsetof(struct rte_mbuf, dynfield1);
	if (rtr_config_load_buf("fwd.yaml", "yaml", CONFIG, strlen(CONFIG), &cfg, err,
			    sizeof(err)) != 0) {
		fprintf(stderr, "config: %s\n", err);
		return 1;
	}
	memset(macs, 0, sizeof(macs));
	for (unsigned int i = 0; i < cfg.n_ports; i++) {
		struct rtr_fwd_port *p = &ports[cfg.ports[i].port];

		memcpy(macs[cfg.ports[i].port], cfg.ports[i].mac, 6);
		p->port_id = cfg.ports[i].port;
		p->configured = 1;
		p->role = (uint8_t)cfg.ports[i].role;
		memcpy(p->mac, cfg.ports[i].mac, 6);
		atomic_store(&p->link_up, 1);
	}
	neigh = rtr_neigh_create(&cfg, (const uint8_t(*)[6])macs, 0);
	route = neigh == NULL ? NULL
			      : rtr_route_create("fwd", &cfg, SOCKET_ID_ANY, nh_add, neigh, err,
						sizeof(err));
	if (route == NULL) {
		fprintf(stderr, "routes: %s\n", err);
		return 1;
	}
	test_forward4();
	test_drops();
	test_local();
	test_group();
	test_lb_exits();
	test_loop_rules();
	CHECK_EQ(live_mbufs, 0);
	rtr_route_free(route);
	rtr_neigh_free(neigh);
	rtr_config_free(&cfg);
	rtr_test_eal_done();
	return rtr_test_done("fwd");
}
