/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit test of lib/neigh: frames are built by hand, the parser metadata is
 * filled by hand, and time is a virtual nanosecond clock. Replies and probes
 * are checked field by field, checksums by recomputation.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "rtr_neigh.h"
/* CHECK(cond) without a message expands to an empty printf format. */
#pragma GCC diagnostic ignored "-Wformat-zero-length"
#include "rtr_test.h"

#undef NS_PER_S /* rte_time.h (if included) has an int one: 16 * it overflows */
#define NS_PER_S 1000000000ULL
#define LIFETIME (16 * NS_PER_S) /* 3/4 = 12 s, 1/8 = 2 s */
#define OUT_LEN  1514

static const uint8_t mac_p0[6] = {0x02, 0x00, 0x00, 0x00, 0x01, 0x00};
static const uint8_t mac_p1[6] = {0x02, 0x00, 0x00, 0x00, 0x01, 0x01};
static const uint8_t mac_p2[6] = {0x02, 0x00, 0x00, 0x00, 0x01, 0x02};
static const uint8_t mac_h1[6] = {0x02, 0x00, 0x00, 0x00, 0xaa, 0x01};
static const uint8_t mac_h2[6] = {0x02, 0x00, 0x00, 0x00, 0xaa, 0x02};
static const uint8_t mac_h3[6] = {0x02, 0x00, 0x00, 0x00, 0xaa, 0x03};
static const uint8_t mac_h6[6] = {0x02, 0x00, 0x00, 0x00, 0xaa, 0x06};
static const uint8_t mac_s1[6] = {0x02, 0x00, 0x00, 0x00, 0xbb, 0x01};
static const uint8_t mac_s2[6] = {0x02, 0x00, 0x00, 0x00, 0xbb, 0x02};
static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
static const uint8_t zero6[6];

static uint8_t out[OUT_LEN];

/* Frames handed to the emit callback by rtr_neigh_tick. */
#define CAP_MAX 16
struct capture {
	unsigned int n;
	uint16_t port[CAP_MAX];
	uint32_t len[CAP_MAX];
	uint8_t frame[CAP_MAX][256];
};

static void
cap_emit(void *arg, uint16_t port, const uint8_t *frame, uint32_t len)
{
	struct capture *c = arg;

	if (c->n < CAP_MAX && len <= sizeof(c->frame[0])) {
		c->port[c->n] = port;
		c->len[c->n] = len;
		memcpy(c->frame[c->n], frame, len);
	}
	c->n++;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t
sum16(uint32_t sum, const uint8_t *p, uint32_t len)
{
	for (uint32_t i = 0; i + 1 < len; i += 2)
		sum += get16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t
fold(uint32_t sum)
{
	while (sum > 0xffff)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* ICMPv6 checksum over the message behind the IPv6 header at ip. */
static uint16_t
icmp6_sum(const uint8_t *ip)
{
	uint32_t plen = get16(ip + 4);
	uint32_t sum = sum16(0, ip + 8, 32);

	sum += plen + IPPROTO_ICMPV6;
	return fold(sum16(sum, ip + 40, plen));
}

static struct rtr_addr
a4(const char *s, uint8_t depth)
{
	struct rtr_addr a;

	memset(&a, 0, sizeof(a));
	a.family = AF_INET;
	a.depth = depth;
	inet_pton(AF_INET, s, &a.v4);
	return a;
}

static struct rtr_addr
a6(const char *s, uint8_t depth)
{
	struct rtr_addr a;

	memset(&a, 0, sizeof(a));
	a.family = AF_INET6;
	a.depth = depth;
	inet_pton(AF_INET6, s, &a.v6);
	return a;
}

static uint32_t
ip4(const char *s)
{
	struct in_addr a;

	inet_pton(AF_INET, s, &a);
	return a.s_addr;
}

static void
ip6(const char *s, uint8_t *out16)
{
	inet_pton(AF_INET6, s, out16);
}

/* Ethernet header, with an 802.1Q tag when tci != 0. Returns the L3 offset. */
static unsigned int
eth(uint8_t *f, const uint8_t *dst, const uint8_t *src, uint16_t tci, uint16_t type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	if (tci == 0) {
		put16(f + 12, type);
		return 14;
	}
	put16(f + 12, 0x8100);
	put16(f + 14, tci);
	put16(f + 16, type);
	return 18;
}

static void
meta(struct rtr_meta *m, unsigned int l3_off, uint8_t l3, uint8_t proto, unsigned int l3_len)
{
	memset(m, 0, sizeof(*m));
	m->l3_off = (uint8_t)l3_off;
	m->l4_off = (uint8_t)(l3_off + l3_len);
	m->l3 = l3;
	m->l4_proto = proto;
	if (l3_off == 18)
		m->flags |= RTR_MF_VLAN;
}

/* An ARP frame as a NIC delivers it (padded to 60). */
static uint32_t
arp_frame(uint8_t *f, struct rtr_meta *m, uint16_t tci, const uint8_t *eth_dst, uint16_t op,
		const uint8_t *sha, const char *sip, const uint8_t *tha, const char *tip)
{
	unsigned int o = eth(f, eth_dst, sha, tci, 0x0806);
	uint32_t s = ip4(sip), t = ip4(tip);

	memset(f + o, 0, 60);
	put16(f + o, 1);
	put16(f + o + 2, 0x0800);
	f[o + 4] = 6;
	f[o + 5] = 4;
	put16(f + o + 6, op);
	memcpy(f + o + 8, sha, 6);
	memcpy(f + o + 14, &s, 4);
	memcpy(f + o + 18, tha, 6);
	memcpy(f + o + 24, &t, 4);
	meta(m, o, RTR_L3_ARP, 0, 28);
	return o + 28 < 60 ? 60 : o + 28;
}

/* An IPv6 packet carrying an ICMPv6 message (body, blen bytes); the
 * checksum is filled in. */
static uint32_t
icmp6_frame(uint8_t *f, struct rtr_meta *m, uint16_t tci, const uint8_t *eth_dst,
		const uint8_t *eth_src, const char *src, const char *dst, uint8_t hlim,
		const uint8_t *body, uint32_t blen)
{
	unsigned int o = eth(f, eth_dst, eth_src, tci, 0x86dd);
	uint8_t *ip = f + o;

	memset(ip, 0, 40);
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)blen);
	ip[6] = IPPROTO_ICMPV6;
	ip[7] = hlim;
	ip6(src, ip + 8);
	ip6(dst, ip + 24);
	memcpy(ip + 40, body, blen);
	put16(ip + 42, 0);
	put16(ip + 42, icmp6_sum(ip));
	meta(m, o, RTR_L3_IPV6, IPPROTO_ICMPV6, 40);
	return o + 40 + blen;
}

/* NS or NA body: type, flags, target, optional link-layer option. */
static uint32_t
nd_body(uint8_t *b, uint8_t type, uint8_t flags, const char *target, uint8_t opt,
		const uint8_t *lla)
{
	memset(b, 0, 32);
	b[0] = type;
	b[4] = flags;
	ip6(target, b + 8);
	if (opt == 0)
		return 24;
	b[24] = opt;
	b[25] = 1;
	memcpy(b + 26, lla, 6);
	return 32;
}

/* IPv4 packet with an ICMP echo request (payload plen bytes of a pattern),
 * optionally with 4 bytes of IP options (a NOP-padded end-of-list). */
static uint32_t
echo4_frame(uint8_t *f, struct rtr_meta *m, uint16_t tci, const uint8_t *eth_dst,
		const uint8_t *eth_src, const char *src, const char *dst, uint32_t plen, bool opts)
{
	unsigned int o = eth(f, eth_dst, eth_src, tci, 0x0800);
	unsigned int ihl = opts ? 24 : 20;
	uint8_t *ip = f + o, *icmp = ip + ihl;
	uint32_t s = ip4(src), d = ip4(dst);

	memset(ip, 0, ihl);
	ip[0] = (uint8_t)(0x40 | ihl / 4);
	ip[1] = 0x68; /* DSCP 26 */
	put16(ip + 2, (uint16_t)(ihl + 8 + plen));
	put16(ip + 4, 0xbeef);
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 63;
	ip[9] = IPPROTO_ICMP;
	memcpy(ip + 12, &s, 4);
	memcpy(ip + 16, &d, 4);
	if (opts) {
		ip[20] = 1; /* NOP */
		ip[21] = 1;
		ip[22] = 1;
		ip[23] = 0; /* end of list */
	}
	put16(ip + 10, fold(sum16(0, ip, ihl)));
	icmp[0] = 8;
	icmp[1] = 0;
	put16(icmp + 2, 0);
	put16(icmp + 4, 0x1234);
	put16(icmp + 6, 7);
	for (uint32_t i = 0; i < plen; i++)
		icmp[8 + i] = (uint8_t)(i * 7 + 3);
	put16(icmp + 2, fold(sum16(0, icmp, 8 + plen)));
	meta(m, o, RTR_L3_IPV4, IPPROTO_ICMP, ihl);
	return o + ihl + 8 + plen < 60 ? 60 : o + ihl + 8 + plen;
}

static bool
is_valid(const struct rtr_nh *nh, const uint8_t *want)
{
	uint8_t mac[6];

	return rtr_nh_mac(nh, mac) && memcmp(mac, want, 6) == 0;
}

static struct rtr_neigh *
make_neigh(struct rtr_config *cfg)
{
	static uint8_t macs[RTR_MAX_PORTS][6];

	memset(cfg, 0, sizeof(*cfg));
	cfg->n_ports = 3;
	cfg->ports[0].port = 0;
	cfg->ports[0].role = RTR_PORT_HOST;
	cfg->ports[0].n_addrs = 2;
	cfg->ports[0].addrs[0] = a4("10.1.0.254", 24);
	cfg->ports[0].addrs[1] = a6("2001:db8:1::1", 64);
	cfg->ports[1].port = 1;
	cfg->ports[1].role = RTR_PORT_FABRIC;
	cfg->ports[1].n_addrs = 3;
	cfg->ports[1].addrs[0] = a4("10.2.0.1", 30);
	cfg->ports[1].addrs[1] = a4("10.9.0.1", 24);
	cfg->ports[1].addrs[2] = a6("2001:db8:2::1", 64);
	cfg->ports[2].port = 2;
	cfg->ports[2].role = RTR_PORT_FABRIC;
	cfg->ports[2].n_addrs = 0;
	memcpy(macs[0], mac_p0, 6);
	memcpy(macs[1], mac_p1, 6);
	memcpy(macs[2], mac_p2, 6);
	return rtr_neigh_create(cfg, (const uint8_t(*)[6])macs, LIFETIME);
}

static void
test_local(struct rtr_neigh *n)
{
	uint32_t a = ip4("10.1.0.254"), b = ip4("10.9.0.1"), c = ip4("10.1.0.1");
	uint8_t v6[16], v6b[16];

	ip6("2001:db8:1::1", v6);
	ip6("2001:db8:1::2", v6b);
	CHECK(rtr_neigh_is_local(n, 0, AF_INET, &a));
	CHECK(!rtr_neigh_is_local(n, 1, AF_INET, &a));
	CHECK(rtr_neigh_is_local(n, UINT16_MAX, AF_INET, &a));
	CHECK(rtr_neigh_is_local(n, 1, AF_INET, &b));
	CHECK(rtr_neigh_is_local(n, UINT16_MAX, AF_INET, &b));
	CHECK(!rtr_neigh_is_local(n, UINT16_MAX, AF_INET, &c));
	CHECK(rtr_neigh_is_local(n, 0, AF_INET6, v6));
	CHECK(!rtr_neigh_is_local(n, 1, AF_INET6, v6));
	CHECK(!rtr_neigh_is_local(n, UINT16_MAX, AF_INET6, v6b));
	CHECK(!rtr_neigh_is_local(n, 0, 99, &a));
	CHECK(!rtr_neigh_is_local(NULL, 0, AF_INET, &a));
}

static void
test_add(struct rtr_neigh *n)
{
	struct rtr_addr h1 = a4("10.1.0.1", 32), mc = a4("224.0.0.5", 32);
	struct rtr_addr st = a4("10.1.0.9", 32), bad = {0};
	struct rtr_nh *nh;
	uint8_t mac[6];
	int i0, i1, i2;

	i0 = rtr_neigh_add(n, 0, &h1, NULL);
	CHECK_EQ(i0, 0);
	CHECK_EQ(rtr_neigh_add(n, 0, &h1, NULL), i0);
	CHECK_EQ(rtr_neigh_count(n), 1);
	nh = rtr_neigh_nh(n, (unsigned int)i0);
	CHECK(nh != NULL);
	CHECK_EQ(nh->state, RTR_NH_INCOMPLETE);
	CHECK(!rtr_nh_mac(nh, mac));

	/* The same address behind another port is another next hop. */
	i1 = rtr_neigh_add(n, 1, &h1, NULL);
	CHECK(i1 > i0);

	/* Static, no address: keyed by (port, MAC). */
	i2 = rtr_neigh_add(n, 1, NULL, mac_s1);
	CHECK(i2 >= 0);
	CHECK_EQ(rtr_neigh_add(n, 1, NULL, mac_s1), i2);
	CHECK(rtr_neigh_add(n, 1, NULL, mac_s2) != i2);
	CHECK(rtr_neigh_add(n, 2, NULL, mac_s1) != i2);
	nh = rtr_neigh_nh(n, (unsigned int)i2);
	CHECK_EQ(nh->state, RTR_NH_STATIC);
	CHECK(rtr_nh_mac(nh, mac));
	CHECK(memcmp(mac, mac_s1, 6) == 0);
	CHECK_EQ(atomic_load(&nh->mac_word), RTR_NH_VALID | 0x02000000bb01ULL);
	{
		/* The data path's 8-byte store: the MAC, then two bytes it
		 * leaves for the source MAC. */
		uint8_t hdr[8];

		memset(hdr, 0xee, sizeof(hdr));
		rtr_nh_mac_store8(hdr, rtr_nh_mac_load(nh));
		CHECK(memcmp(hdr, mac_s1, 6) == 0);
	}

	/* Static with an address; a second, different MAC for it is a conflict. */
	i2 = rtr_neigh_add(n, 0, &st, mac_s2);
	CHECK(i2 >= 0);
	CHECK_EQ(rtr_neigh_add(n, 0, &st, mac_s2), i2);
	CHECK_EQ(rtr_neigh_add(n, 0, &st, NULL), i2);
	CHECK_EQ(rtr_neigh_add(n, 0, &st, mac_s1), -1);

	/* Invalid requests. */
	CHECK_EQ(rtr_neigh_add(n, 0, NULL, NULL), -1);
	CHECK_EQ(rtr_neigh_add(n, 0, &bad, NULL), -1);
	CHECK_EQ(rtr_neigh_add(n, RTR_MAX_PORTS, &h1, NULL), -1);
	CHECK_EQ(rtr_neigh_add(n, 5, &h1, NULL), -1); /* port not configured */
	CHECK_EQ(rtr_neigh_add(n, 0, &mc, NULL), -1);
	CHECK_EQ(rtr_neigh_add(NULL, 0, &h1, NULL), -1);
	CHECK(rtr_neigh_nh(n, rtr_neigh_count(n)) == NULL);
}

static void
test_arp(void)
{
	struct rtr_addr h1 = a4("10.1.0.1", 32), h2 = a4("10.1.0.2", 32), st = a4("10.1.0.9", 32);
	const struct rtr_neigh_stats *s;
	struct rtr_config cfg;
	struct rtr_neigh *n = make_neigh(&cfg);
	uint8_t f[128];
	struct rtr_meta m;
	uint32_t len, r, v;
	struct rtr_nh *nh1, *nh2, *nhs;
	uint64_t now = 5 * NS_PER_S;
	uint8_t *a;

	CHECK(n != NULL);
	if (n == NULL)
		return;
	s = rtr_neigh_stats(n);
	nh1 = rtr_neigh_nh(n, (unsigned int)rtr_neigh_add(n, 0, &h1, NULL));
	nh2 = rtr_neigh_nh(n, (unsigned int)rtr_neigh_add(n, 0, &h2, NULL));
	nhs = rtr_neigh_nh(n, (unsigned int)rtr_neigh_add(n, 0, &st, mac_s1));

	/* Request for our address from a next hop: reply, and learn its MAC. */
	len = arp_frame(f, &m, 0, bcast, 1, mac_h1, "10.1.0.1", zero6, "10.1.0.254");
	memset(out, 0xee, sizeof(out));
	r = rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out));
	CHECK_EQ(r, 60);
	CHECK(memcmp(out, mac_h1, 6) == 0);
	CHECK(memcmp(out + 6, mac_p0, 6) == 0);
	CHECK_EQ(get16(out + 12), 0x0806);
	a = out + 14;
	CHECK_EQ(get16(a), 1);
	CHECK_EQ(get16(a + 2), 0x0800);
	CHECK_EQ(a[4], 6);
	CHECK_EQ(a[5], 4);
	CHECK_EQ(get16(a + 6), 2);
	CHECK(memcmp(a + 8, mac_p0, 6) == 0);
	memcpy(&v, a + 14, 4);
	CHECK_EQ(v, ip4("10.1.0.254"));
	CHECK(memcmp(a + 18, mac_h1, 6) == 0);
	memcpy(&v, a + 24, 4);
	CHECK_EQ(v, ip4("10.1.0.1"));
	for (unsigned int i = 42; i < 60; i++)
		CHECK_EQ(out[i], 0);
	CHECK_EQ(s->arp_rx, 1);
	CHECK_EQ(s->arp_reply_tx, 1);
	CHECK(is_valid(nh1, mac_h1));
	CHECK_EQ(nh1->state, RTR_NH_REACHABLE);
	CHECK_EQ(nh1->expire_ns, now + LIFETIME);
	CHECK_EQ(nh1->probes, 0);
	CHECK_EQ(s->resolved, 1);

	/* A second answer refreshes without counting another resolution. */
	now += NS_PER_S;
	r = rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out));
	CHECK_EQ(r, 60);
	CHECK_EQ(s->resolved, 1);
	CHECK_EQ(nh1->expire_ns, now + LIFETIME);

	/* VLAN-tagged request: the reply keeps the tag. */
	len = arp_frame(f, &m, 0x2064, bcast, 1, mac_h3, "10.1.0.3", zero6, "10.1.0.254");
	r = rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out));
	CHECK_EQ(r, 60);
	CHECK(memcmp(out, mac_h3, 6) == 0);
	CHECK(memcmp(out + 6, mac_p0, 6) == 0);
	CHECK_EQ(get16(out + 12), 0x8100);
	CHECK_EQ(get16(out + 14), 0x2064);
	CHECK_EQ(get16(out + 16), 0x0806);
	CHECK_EQ(get16(out + 18 + 6), 2);
	CHECK(memcmp(out + 18 + 8, mac_p0, 6) == 0);
	CHECK(memcmp(out + 18 + 18, mac_h3, 6) == 0);
	memcpy(&v, out + 18 + 24, 4);
	CHECK_EQ(v, ip4("10.1.0.3"));
	CHECK_EQ(s->ignored, 0);

	/* Requests for addresses that are not ours (or not on this port). */
	len = arp_frame(f, &m, 0, bcast, 1, mac_h3, "10.1.0.3", zero6, "10.1.0.77");
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK_EQ(s->ignored, 1);
	len = arp_frame(f, &m, 0, bcast, 1, mac_h3, "10.1.0.3", zero6, "10.2.0.1");
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK_EQ(s->ignored, 2);
	/* Unconfigured port. */
	len = arp_frame(f, &m, 0, bcast, 1, mac_h3, "10.1.0.3", zero6, "10.1.0.254");
	CHECK_EQ(rtr_neigh_input(n, 7, f, len, &m, now, out, sizeof(out)), 0);
	CHECK_EQ(s->ignored, 3);

	/* Malformed: wrong hardware length, unknown opcode, truncated,
	 * broadcast sender MAC. */
	len = arp_frame(f, &m, 0, bcast, 1, mac_h3, "10.1.0.3", zero6, "10.1.0.254");
	f[14 + 4] = 8;
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	len = arp_frame(f, &m, 0, bcast, 3, mac_h3, "10.1.0.3", zero6, "10.1.0.254");
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	len = arp_frame(f, &m, 0, bcast, 1, mac_h3, "10.1.0.3", zero6, "10.1.0.254");
	CHECK_EQ(rtr_neigh_input(n, 0, f, 14 + 27, &m, now, out, sizeof(out)), 0);
	len = arp_frame(f, &m, 0, bcast, 1, bcast, "10.1.0.3", zero6, "10.1.0.254");
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK_EQ(s->ignored, 7);
	/* Metadata that does not match the frame. */
	len = arp_frame(f, &m, 0, bcast, 1, mac_h3, "10.1.0.3", zero6, "10.1.0.254");
	m.l3 = RTR_L3_IPV4;
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	m.l3 = RTR_L3_ARP;
	m.l3_off = 200;
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK_EQ(s->ignored, 9);
	/* Output buffer too small: no reply. */
	m.l3_off = 14;
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, 59), 0);
	CHECK_EQ(s->arp_reply_tx, 3);

	/* Gratuitous ARP (request form, sip == tip) from a next hop: learn, no reply. */
	CHECK(!is_valid(nh2, mac_h2));
	len = arp_frame(f, &m, 0, bcast, 1, mac_h2, "10.1.0.2", zero6, "10.1.0.2");
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK(is_valid(nh2, mac_h2));
	CHECK_EQ(nh2->state, RTR_NH_REACHABLE);
	CHECK_EQ(s->resolved, 2);
	/* Gratuitous ARP reply form with a new MAC (a replaced NIC). */
	len = arp_frame(f, &m, 0, bcast, 2, mac_h6, "10.1.0.2", bcast, "10.1.0.2");
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK(is_valid(nh2, mac_h6));
	CHECK_EQ(s->resolved, 2);
	CHECK_EQ(s->ignored, 10); /* only the too-small-buffer request */

	/* A static next hop never learns. */
	len = arp_frame(f, &m, 0, mac_p0, 2, mac_h3, "10.1.0.9", mac_p0, "10.1.0.254");
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK(is_valid(nhs, mac_s1));
	CHECK_EQ(nhs->state, RTR_NH_STATIC);

	/* In place: the reply overwrites the request. */
	len = arp_frame(f, &m, 0, bcast, 1, mac_h1, "10.1.0.1", zero6, "10.1.0.254");
	r = rtr_neigh_input(n, 0, f, len, &m, now, f, sizeof(f));
	CHECK_EQ(r, 60);
	CHECK(memcmp(f, mac_h1, 6) == 0);
	CHECK(memcmp(f + 14 + 8, mac_p0, 6) == 0);
	CHECK(memcmp(f + 14 + 18, mac_h1, 6) == 0);
	memcpy(&v, f + 14 + 24, 4);
	CHECK_EQ(v, ip4("10.1.0.1"));
	memcpy(&v, f + 14 + 14, 4);
	CHECK_EQ(v, ip4("10.1.0.254"));

	rtr_neigh_free(n);
}

static void
check_arp_probe(const struct capture *c, unsigned int i, uint16_t port, const uint8_t *dst,
		const uint8_t *src_mac, const char *sip, const char *tip)
{
	const uint8_t *f = c->frame[i];
	uint32_t v;

	CHECK_EQ(c->port[i], port);
	CHECK_EQ(c->len[i], 60);
	CHECK(memcmp(f, dst, 6) == 0);
	CHECK(memcmp(f + 6, src_mac, 6) == 0);
	CHECK_EQ(get16(f + 12), 0x0806);
	CHECK_EQ(get16(f + 14), 1);
	CHECK_EQ(get16(f + 16), 0x0800);
	CHECK_EQ(get16(f + 18), 0x0604);
	CHECK_EQ(get16(f + 20), 1);
	CHECK(memcmp(f + 22, src_mac, 6) == 0);
	memcpy(&v, f + 28, 4);
	CHECK_EQ(v, ip4(sip));
	CHECK(memcmp(f + 32, zero6, 6) == 0);
	memcpy(&v, f + 38, 4);
	CHECK_EQ(v, ip4(tip));
}

static void
test_arp_schedule(void)
{
	struct rtr_addr h1 = a4("10.1.0.1", 32), st = a4("10.1.0.9", 32);
	struct rtr_addr f1 = a4("10.9.0.5", 32), f2 = a4("10.50.0.1", 32);
	const struct rtr_neigh_stats *s;
	struct rtr_config cfg;
	struct rtr_neigh *n = make_neigh(&cfg);
	struct rtr_nh *nh, *nhs;
	struct capture c;
	struct rtr_meta m;
	uint8_t f[128];
	uint64_t t0 = 100 * NS_PER_S, t1;
	uint32_t len;

	CHECK(n != NULL);
	if (n == NULL)
		return;
	s = rtr_neigh_stats(n);
	nh = rtr_neigh_nh(n, (unsigned int)rtr_neigh_add(n, 0, &h1, NULL));
	nhs = rtr_neigh_nh(n, (unsigned int)rtr_neigh_add(n, 0, &st, mac_s1));

	/* INCOMPLETE: broadcast at once, then every second. */
	memset(&c, 0, sizeof(c));
	CHECK_EQ(rtr_neigh_tick(n, t0, cap_emit, &c), 1);
	CHECK_EQ(c.n, 1);
	check_arp_probe(&c, 0, 0, bcast, mac_p0, "10.1.0.254", "10.1.0.1");
	CHECK_EQ(nh->probes, 1);
	CHECK_EQ(rtr_neigh_tick(n, t0 + NS_PER_S / 2, cap_emit, &c), 0);
	CHECK_EQ(rtr_neigh_tick(n, t0 + NS_PER_S - 1, cap_emit, &c), 0);
	CHECK_EQ(rtr_neigh_tick(n, t0 + NS_PER_S, cap_emit, &c), 1);
	CHECK_EQ(c.n, 2);
	check_arp_probe(&c, 1, 0, bcast, mac_p0, "10.1.0.254", "10.1.0.1");
	CHECK_EQ(nh->probes, 2);
	CHECK_EQ(s->arp_request_tx, 2);
	CHECK_EQ(nh->state, RTR_NH_INCOMPLETE);

	/* The host answers (ARP reply addressed to us). */
	t1 = t0 + NS_PER_S + NS_PER_S / 10;
	len = arp_frame(f, &m, 0, mac_p0, 2, mac_h1, "10.1.0.1", mac_p0, "10.1.0.254");
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, t1, out, sizeof(out)), 0);
	CHECK(is_valid(nh, mac_h1));
	CHECK_EQ(nh->state, RTR_NH_REACHABLE);
	CHECK_EQ(nh->probes, 0);
	CHECK_EQ(s->resolved, 1);
	CHECK_EQ(s->ignored, 0);

	/* REACHABLE: silence until 3/4 of the lifetime. */
	c.n = 0;
	for (uint64_t t = t0 + 2 * NS_PER_S; t < t1 + LIFETIME * 3 / 4; t += NS_PER_S / 4)
		rtr_neigh_tick(n, t, cap_emit, &c);
	CHECK_EQ(rtr_neigh_tick(n, t1 + LIFETIME * 3 / 4 - 1, cap_emit, &c), 0);
	CHECK_EQ(c.n, 0);
	CHECK_EQ(nh->state, RTR_NH_REACHABLE);

	/* PROBE: unicast to the known MAC every lifetime/8. */
	CHECK_EQ(rtr_neigh_tick(n, t1 + LIFETIME * 3 / 4, cap_emit, &c), 1);
	CHECK_EQ(nh->state, RTR_NH_PROBE);
	check_arp_probe(&c, 0, 0, mac_h1, mac_p0, "10.1.0.254", "10.1.0.1");
	CHECK(is_valid(nh, mac_h1)); /* still usable while probing */
	CHECK_EQ(rtr_neigh_tick(n, t1 + LIFETIME * 3 / 4 + LIFETIME / 8 - 1, cap_emit, &c), 0);
	CHECK_EQ(rtr_neigh_tick(n, t1 + LIFETIME * 3 / 4 + LIFETIME / 8, cap_emit, &c), 1);
	CHECK_EQ(c.n, 2);
	check_arp_probe(&c, 1, 0, mac_h1, mac_p0, "10.1.0.254", "10.1.0.1");
	CHECK_EQ(nh->probes, 2);
	CHECK_EQ(rtr_neigh_tick(n, t1 + LIFETIME - 1, cap_emit, &c), 0);
	CHECK(is_valid(nh, mac_h1));

	/* Lifetime over without an answer: invalidated, broadcast again. */
	CHECK_EQ(rtr_neigh_tick(n, t1 + LIFETIME, cap_emit, &c), 1);
	CHECK_EQ(c.n, 3);
	CHECK(!is_valid(nh, mac_h1));
	CHECK_EQ(atomic_load(&nh->mac_word), 0);
	CHECK_EQ(nh->state, RTR_NH_INCOMPLETE);
	CHECK_EQ(s->expired, 1);
	check_arp_probe(&c, 2, 0, bcast, mac_p0, "10.1.0.254", "10.1.0.1");
	CHECK_EQ(rtr_neigh_tick(n, t1 + LIFETIME + NS_PER_S - 1, cap_emit, &c), 0);
	CHECK_EQ(rtr_neigh_tick(n, t1 + LIFETIME + NS_PER_S, cap_emit, &c), 1);
	check_arp_probe(&c, 3, 0, bcast, mac_p0, "10.1.0.254", "10.1.0.1");

	/* Answered again; then answered while probing: back to REACHABLE. */
	t1 = t1 + LIFETIME + 2 * NS_PER_S;
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, t1, out, sizeof(out)), 0);
	CHECK_EQ(s->resolved, 2);
	c.n = 0;
	CHECK_EQ(rtr_neigh_tick(n, t1 + LIFETIME * 3 / 4, cap_emit, &c), 1);
	CHECK_EQ(nh->state, RTR_NH_PROBE);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, t1 + LIFETIME * 3 / 4 + 5, out, sizeof(out)), 0);
	CHECK_EQ(nh->state, RTR_NH_REACHABLE);
	CHECK_EQ(s->resolved, 2); /* it never stopped being valid */
	CHECK_EQ(rtr_neigh_tick(n, t1 + LIFETIME + NS_PER_S, cap_emit, &c), 0);
	CHECK(is_valid(nh, mac_h1));
	CHECK_EQ(s->expired, 1);

	/* The static next hop was never probed nor changed. */
	CHECK_EQ(nhs->state, RTR_NH_STATIC);
	CHECK(is_valid(nhs, mac_s1));
	for (unsigned int i = 0; i < c.n && i < CAP_MAX; i++)
		CHECK(memcmp(c.frame[i] + 38, &st.v4, 4) != 0);

	/* Source address: the port address in the next hop's subnet, else the
	 * first one of the port. */
	rtr_neigh_add(n, 1, &f1, NULL);
	rtr_neigh_add(n, 1, &f2, NULL);
	c.n = 0;
	CHECK_EQ(rtr_neigh_tick(n, t1 + LIFETIME + 2 * NS_PER_S, cap_emit, &c), 2);
	check_arp_probe(&c, 0, 1, bcast, mac_p1, "10.9.0.1", "10.9.0.5");
	check_arp_probe(&c, 1, 1, bcast, mac_p1, "10.2.0.1", "10.50.0.1");

	/* Without a callback the state machine still runs. */
	CHECK_EQ(rtr_neigh_tick(n, t1 + LIFETIME + 4 * NS_PER_S, NULL, NULL), 0);
	CHECK_EQ(rtr_neigh_tick(NULL, 0, cap_emit, &c), 0);

	rtr_neigh_free(n);
}

static void
check_icmp6_sum(const uint8_t *f, unsigned int l3_off)
{
	CHECK_EQ(icmp6_sum(f + l3_off), 0);
}

static void
test_nd(void)
{
	struct rtr_addr h6 = a6("2001:db8:1::10", 128), h7 = a6("2001:db8:1::20", 128);
	struct rtr_addr ll = a6("fe80::1", 128);
	const struct rtr_neigh_stats *s;
	struct rtr_config cfg;
	struct rtr_neigh *n = make_neigh(&cfg);
	uint8_t f[256], body[64], a[16], mac33[6] = {0x33, 0x33, 0xff, 0x00, 0x00, 0x01};
	struct rtr_nh *nh6, *nh7, *nhl;
	struct capture c;
	struct rtr_meta m;
	uint64_t now = 10 * NS_PER_S;
	uint32_t len, blen, r;
	const uint8_t *ip, *icmp;

	CHECK(n != NULL);
	if (n == NULL)
		return;
	s = rtr_neigh_stats(n);
	nh6 = rtr_neigh_nh(n, (unsigned int)rtr_neigh_add(n, 0, &h6, NULL));
	nh7 = rtr_neigh_nh(n, (unsigned int)rtr_neigh_add(n, 0, &h7, NULL));

	/* NS to the solicited-node group for our address, with SLLA. */
	blen = nd_body(body, 135, 0, "2001:db8:1::1", 1, mac_h6);
	len = icmp6_frame(f, &m, 0, mac33, mac_h6, "2001:db8:1::10", "ff02::1:ff00:1", 255, body,
			blen);
	memset(out, 0xee, sizeof(out));
	r = rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out));
	CHECK_EQ(r, 14 + 40 + 32);
	CHECK(memcmp(out, mac_h6, 6) == 0);
	CHECK(memcmp(out + 6, mac_p0, 6) == 0);
	CHECK_EQ(get16(out + 12), 0x86dd);
	ip = out + 14;
	icmp = ip + 40;
	CHECK_EQ(ip[0] >> 4, 6);
	CHECK_EQ(get16(ip + 4), 32);
	CHECK_EQ(ip[6], IPPROTO_ICMPV6);
	CHECK_EQ(ip[7], 255);
	ip6("2001:db8:1::1", a);
	CHECK(memcmp(ip + 8, a, 16) == 0);
	ip6("2001:db8:1::10", a);
	CHECK(memcmp(ip + 24, a, 16) == 0);
	CHECK_EQ(icmp[0], 136);
	CHECK_EQ(icmp[1], 0);
	CHECK_EQ(icmp[4], 0xe0); /* router, solicited, override */
	CHECK_EQ(icmp[5] | icmp[6] | icmp[7], 0);
	ip6("2001:db8:1::1", a);
	CHECK(memcmp(icmp + 8, a, 16) == 0);
	CHECK_EQ(icmp[24], 2);
	CHECK_EQ(icmp[25], 1);
	CHECK(memcmp(icmp + 26, mac_p0, 6) == 0);
	check_icmp6_sum(out, 14);
	CHECK_EQ(s->nd_rx, 1);
	CHECK_EQ(s->na_tx, 1);
	/* The solicitation carried a SLLA from a next hop: learnt. */
	CHECK(is_valid(nh6, mac_h6));
	CHECK_EQ(s->resolved, 1);

	/* Unicast NS without SLLA, VLAN-tagged: reply to the Ethernet source,
	 * tagged. */
	blen = nd_body(body, 135, 0, "2001:db8:1::1", 0, NULL);
	len = icmp6_frame(f, &m, 0x0005, mac_p0, mac_h3, "2001:db8:1::30", "2001:db8:1::1", 255,
			body, blen);
	r = rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out));
	CHECK_EQ(r, 18 + 40 + 32);
	CHECK(memcmp(out, mac_h3, 6) == 0);
	CHECK_EQ(get16(out + 12), 0x8100);
	CHECK_EQ(get16(out + 14), 0x0005);
	CHECK_EQ(get16(out + 16), 0x86dd);
	ip6("2001:db8:1::30", a);
	CHECK(memcmp(out + 18 + 24, a, 16) == 0);
	CHECK_EQ(out[18 + 40], 136);
	CHECK_EQ(out[18 + 40 + 4], 0xe0);
	check_icmp6_sum(out, 18);
	CHECK_EQ(s->na_tx, 2);
	CHECK_EQ(s->ignored, 0);

	/* Ignored: hop limit not 255, bad checksum, other target, our address on
	 * another port, multicast group of another target, SLLA from ::. */
	blen = nd_body(body, 135, 0, "2001:db8:1::1", 1, mac_h6);
	len = icmp6_frame(f, &m, 0, mac33, mac_h6, "2001:db8:1::10", "ff02::1:ff00:1", 64, body,
			blen);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	len = icmp6_frame(f, &m, 0, mac33, mac_h6, "2001:db8:1::10", "ff02::1:ff00:1", 255, body,
			blen);
	f[14 + 40 + 2] ^= 0x01;
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	blen = nd_body(body, 135, 0, "2001:db8:1::99", 1, mac_h3);
	len = icmp6_frame(f, &m, 0, mac33, mac_h3, "2001:db8:1::30", "ff02::1:ff00:99", 255, body,
			blen);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	blen = nd_body(body, 135, 0, "2001:db8:2::1", 1, mac_h3);
	len = icmp6_frame(f, &m, 0, mac33, mac_h3, "2001:db8:1::30", "ff02::1:ff00:1", 255, body,
			blen);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	blen = nd_body(body, 135, 0, "2001:db8:1::1", 1, mac_h3);
	len = icmp6_frame(f, &m, 0, mac33, mac_h3, "2001:db8:1::30", "ff02::1:ff00:2", 255, body,
			blen);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	len = icmp6_frame(f, &m, 0, mac33, mac_h3, "::", "ff02::1:ff00:1", 255, body, blen);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	/* A multicast source. */
	blen = nd_body(body, 135, 0, "2001:db8:1::1", 0, NULL);
	len = icmp6_frame(f, &m, 0, mac33, mac_h3, "ff02::1", "ff02::1:ff00:1", 255, body, blen);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	/* A zero-length option. */
	blen = nd_body(body, 135, 0, "2001:db8:1::1", 1, mac_h3);
	body[25] = 0;
	len = icmp6_frame(f, &m, 0, mac33, mac_h3, "2001:db8:1::30", "ff02::1:ff00:1", 255, body,
			blen);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	/* Router solicitation: counted, not answered. */
	memset(body, 0, 8);
	body[0] = 133;
	len = icmp6_frame(f, &m, 0, mac33, mac_h3, "2001:db8:1::30", "ff02::2", 255, body, 8);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK_EQ(s->ignored, 9);
	CHECK_EQ(s->na_tx, 2);
	CHECK_EQ(s->nd_rx, 11);

	/* DAD for our address: defended with an NA to all nodes, S clear. */
	blen = nd_body(body, 135, 0, "2001:db8:1::1", 0, NULL);
	len = icmp6_frame(f, &m, 0, mac33, mac_h3, "::", "ff02::1:ff00:1", 255, body, blen);
	r = rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out));
	CHECK_EQ(r, 14 + 40 + 32);
	CHECK_EQ(out[0], 0x33);
	CHECK_EQ(out[5], 0x01);
	ip6("ff02::1", a);
	CHECK(memcmp(out + 14 + 24, a, 16) == 0);
	CHECK_EQ(out[14 + 40 + 4], 0xa0);
	check_icmp6_sum(out, 14);

	/* Resolution of an INCOMPLETE IPv6 next hop: multicast NS. */
	memset(&c, 0, sizeof(c));
	CHECK_EQ(rtr_neigh_tick(n, now, cap_emit, &c), 1);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(c.len[0], 14 + 40 + 32);
	ip = c.frame[0] + 14;
	icmp = ip + 40;
	CHECK_EQ(c.frame[0][0], 0x33);
	CHECK_EQ(c.frame[0][1], 0x33);
	CHECK_EQ(c.frame[0][2], 0xff);
	CHECK_EQ(c.frame[0][3], 0x00);
	CHECK_EQ(c.frame[0][4], 0x00);
	CHECK_EQ(c.frame[0][5], 0x20);
	CHECK(memcmp(c.frame[0] + 6, mac_p0, 6) == 0);
	CHECK_EQ(ip[7], 255);
	ip6("2001:db8:1::1", a);
	CHECK(memcmp(ip + 8, a, 16) == 0);
	ip6("ff02::1:ff00:20", a);
	CHECK(memcmp(ip + 24, a, 16) == 0);
	CHECK_EQ(icmp[0], 135);
	CHECK_EQ(icmp[4], 0);
	ip6("2001:db8:1::20", a);
	CHECK(memcmp(icmp + 8, a, 16) == 0);
	CHECK_EQ(icmp[24], 1);
	CHECK_EQ(icmp[25], 1);
	CHECK(memcmp(icmp + 26, mac_p0, 6) == 0);
	check_icmp6_sum(c.frame[0], 14);
	CHECK_EQ(s->ns_tx, 1);
	CHECK_EQ(rtr_neigh_tick(n, now + NS_PER_S / 2, cap_emit, &c), 0);
	CHECK_EQ(rtr_neigh_tick(n, now + NS_PER_S, cap_emit, &c), 1);

	/* The NA answering it (solicited, with TLLA) resolves it. */
	now += 2 * NS_PER_S;
	blen = nd_body(body, 136, 0x60, "2001:db8:1::20", 2, mac_h2);
	len = icmp6_frame(f, &m, 0, mac_p0, mac_h2, "2001:db8:1::20", "2001:db8:1::1", 255, body,
			blen);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK(is_valid(nh7, mac_h2));
	CHECK_EQ(nh7->state, RTR_NH_REACHABLE);
	CHECK_EQ(nh7->expire_ns, now + LIFETIME);
	CHECK_EQ(s->resolved, 2);

	/* Probe: unicast NS to the known MAC and the address itself. */
	c.n = 0;
	CHECK_EQ(rtr_neigh_tick(n, now + LIFETIME * 3 / 4, cap_emit, &c), 2); /* nh6 too */
	CHECK_EQ(c.n, 2);
	CHECK_EQ(nh7->state, RTR_NH_PROBE);
	for (unsigned int i = 0; i < c.n; i++) {
		ip = c.frame[i] + 14;
		ip6("2001:db8:1::20", a);
		if (memcmp(ip + 40 + 8, a, 16) != 0)
			continue;
		CHECK(memcmp(c.frame[i], mac_h2, 6) == 0);
		CHECK(memcmp(ip + 24, a, 16) == 0);
		CHECK_EQ(ip[40], 135);
		check_icmp6_sum(c.frame[i], 14);
	}
	/* Linux answers a unicast NS without TLLA: that confirms the MAC. */
	blen = nd_body(body, 136, 0x60, "2001:db8:1::20", 0, NULL);
	len = icmp6_frame(f, &m, 0, mac_p0, mac_h2, "2001:db8:1::20", "2001:db8:1::1", 255, body,
			blen);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now + LIFETIME * 3 / 4 + 1, out, sizeof(out)),
			0);
	CHECK_EQ(nh7->state, RTR_NH_REACHABLE);
	CHECK_EQ(nh7->expire_ns, now + LIFETIME * 3 / 4 + 1 + LIFETIME);
	CHECK(is_valid(nh7, mac_h2));
	/* ...but cannot resolve an INCOMPLETE one: nh6 expires, then such an
	 * NA is ignored. */
	rtr_neigh_tick(n, now + LIFETIME, cap_emit, &c);
	CHECK_EQ(nh6->state, RTR_NH_INCOMPLETE);
	CHECK_EQ(s->expired, 1);
	blen = nd_body(body, 136, 0x60, "2001:db8:1::10", 0, NULL);
	len = icmp6_frame(f, &m, 0, mac_p0, mac_h6, "2001:db8:1::10", "2001:db8:1::1", 255, body,
			blen);
	r = (uint32_t)s->ignored;
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now + LIFETIME, out, sizeof(out)), 0);
	CHECK_EQ(nh6->state, RTR_NH_INCOMPLETE);
	CHECK_EQ(s->ignored, r + 1);
	/* An unsolicited NA with TLLA (override) resolves it. */
	blen = nd_body(body, 136, 0x20, "2001:db8:1::10", 2, mac_h6);
	len = icmp6_frame(f, &m, 0, mac33, mac_h6, "2001:db8:1::10", "ff02::1", 255, body, blen);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now + LIFETIME, out, sizeof(out)), 0);
	CHECK(is_valid(nh6, mac_h6));
	/* A solicited NA to a multicast address is invalid. */
	blen = nd_body(body, 136, 0x60, "2001:db8:1::10", 2, mac_h3);
	len = icmp6_frame(f, &m, 0, mac33, mac_h3, "2001:db8:1::10", "ff02::1", 255, body, blen);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now + LIFETIME, out, sizeof(out)), 0);
	CHECK(is_valid(nh6, mac_h6));

	/* A link-local next hop is solicited from our link-local address, and
	 * an NS for that address is answered. */
	nhl = rtr_neigh_nh(n, (unsigned int)rtr_neigh_add(n, 0, &ll, NULL));
	CHECK(nhl != NULL);
	c.n = 0;
	CHECK_EQ(rtr_neigh_tick(n, now + LIFETIME + 1, cap_emit, &c), 1);
	ip = c.frame[0] + 14;
	ip6("fe80::ff:fe00:100", a); /* EUI-64 of 02:00:00:00:01:00 */
	CHECK(memcmp(ip + 8, a, 16) == 0);
	check_icmp6_sum(c.frame[0], 14);
	blen = nd_body(body, 135, 0, "fe80::ff:fe00:100", 1, mac_h1);
	len = icmp6_frame(
			f, &m, 0, mac_p0, mac_h1, "fe80::1", "fe80::ff:fe00:100", 255, body, blen);
	r = rtr_neigh_input(n, 0, f, len, &m, now + LIFETIME + 2, out, sizeof(out));
	CHECK_EQ(r, 86);
	CHECK(memcmp(out, mac_h1, 6) == 0);
	CHECK(memcmp(out + 14 + 8, a, 16) == 0);
	check_icmp6_sum(out, 14);
	CHECK(is_valid(nhl, mac_h1));
	/* ...but the link-local address is not "local" for routing. */
	CHECK(!rtr_neigh_is_local(n, 0, AF_INET6, a));

	rtr_neigh_free(n);
}

static void
test_echo(void)
{
	const struct rtr_neigh_stats *s;
	struct rtr_config cfg;
	struct rtr_neigh *n = make_neigh(&cfg);
	uint8_t f[1600], body[128], a[16];
	struct rtr_meta m;
	uint64_t now = NS_PER_S;
	uint32_t len, r, v;
	const uint8_t *ip, *icmp;

	CHECK(n != NULL);
	if (n == NULL)
		return;
	s = rtr_neigh_stats(n);

	/* IPv4 echo request to our address. */
	len = echo4_frame(f, &m, 0, mac_p0, mac_h1, "10.1.0.1", "10.1.0.254", 32, false);
	memset(out, 0xee, sizeof(out));
	r = rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out));
	CHECK_EQ(r, 14 + 20 + 8 + 32);
	CHECK(memcmp(out, mac_h1, 6) == 0);
	CHECK(memcmp(out + 6, mac_p0, 6) == 0);
	CHECK_EQ(get16(out + 12), 0x0800);
	ip = out + 14;
	icmp = ip + 20;
	CHECK_EQ(ip[0], 0x45);
	CHECK_EQ(ip[1], 0x68);
	CHECK_EQ(get16(ip + 2), 20 + 8 + 32);
	CHECK_EQ(ip[8], 64);
	CHECK_EQ(ip[9], IPPROTO_ICMP);
	memcpy(&v, ip + 12, 4);
	CHECK_EQ(v, ip4("10.1.0.254"));
	memcpy(&v, ip + 16, 4);
	CHECK_EQ(v, ip4("10.1.0.1"));
	CHECK_EQ(fold(sum16(0, ip, 20)), 0);
	CHECK_EQ(icmp[0], 0);
	CHECK_EQ(icmp[1], 0);
	CHECK_EQ(get16(icmp + 4), 0x1234);
	CHECK_EQ(get16(icmp + 6), 7);
	CHECK(memcmp(icmp + 8, f + 14 + 20 + 8, 32) == 0);
	CHECK_EQ(fold(sum16(0, icmp, 8 + 32)), 0);
	CHECK_EQ(s->icmp_echo_rx, 1);
	CHECK_EQ(s->icmp_echo_tx, 1);

	/* Short request: padded reply; VLAN tag kept; the address of another
	 * port is ours too. */
	len = echo4_frame(f, &m, 0x0007, mac_p0, mac_h1, "10.1.0.1", "10.9.0.1", 0, false);
	memset(out, 0xee, sizeof(out));
	r = rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out));
	CHECK_EQ(r, 60);
	CHECK_EQ(get16(out + 12), 0x8100);
	CHECK_EQ(get16(out + 14), 0x0007);
	CHECK_EQ(get16(out + 16), 0x0800);
	CHECK_EQ(get16(out + 18 + 2), 28);
	CHECK_EQ(fold(sum16(0, out + 18, 20)), 0);
	CHECK_EQ(fold(sum16(0, out + 38, 8)), 0);
	for (unsigned int i = 18 + 28; i < 60; i++)
		CHECK_EQ(out[i], 0);

	/* IP options: the reply has none; done in place. */
	len = echo4_frame(f, &m, 0, mac_p0, mac_h1, "10.1.0.1", "10.1.0.254", 100, true);
	memcpy(body, f + 14 + 24 + 8, 100);
	r = rtr_neigh_input(n, 0, f, len, &m, now, f, sizeof(f));
	CHECK_EQ(r, 14 + 20 + 8 + 100);
	CHECK_EQ(f[14], 0x45);
	CHECK_EQ(get16(f + 16), 128);
	CHECK_EQ(fold(sum16(0, f + 14, 20)), 0);
	CHECK_EQ(f[34], 0);
	CHECK_EQ(get16(f + 34 + 4), 0x1234);
	CHECK(memcmp(f + 42, body, 100) == 0);
	CHECK_EQ(fold(sum16(0, f + 34, 108)), 0);
	CHECK(memcmp(f, mac_h1, 6) == 0);
	CHECK_EQ(s->icmp_echo_tx, 3);

	/* Not answered: bad ICMP checksum, bad IP checksum, broadcast source,
	 * not our address (all counted as ignored). */
	len = echo4_frame(f, &m, 0, mac_p0, mac_h1, "10.1.0.1", "10.1.0.254", 8, false);
	f[14 + 20 + 9] ^= 0xff;
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	len = echo4_frame(f, &m, 0, mac_p0, mac_h1, "10.1.0.1", "10.1.0.254", 8, false);
	f[14 + 10] ^= 0xff;
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	len = echo4_frame(f, &m, 0, mac_p0, mac_h1, "255.255.255.255", "10.1.0.254", 8, false);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	len = echo4_frame(f, &m, 0, mac_p0, mac_h1, "10.1.0.1", "10.1.0.253", 8, false);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK_EQ(s->ignored, 4);
	CHECK_EQ(s->icmp_echo_rx, 6);
	CHECK_EQ(s->icmp_echo_tx, 3);

	/* Other traffic to our address: 0, left to the caller, not "ignored". */
	len = echo4_frame(f, &m, 0, mac_p0, mac_h1, "10.1.0.1", "10.1.0.254", 8, false);
	f[14 + 20] = 13; /* timestamp request */
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	len = echo4_frame(f, &m, 0, mac_p0, mac_h1, "10.1.0.1", "10.1.0.254", 8, false);
	f[14 + 9] = IPPROTO_UDP;
	m.l4_proto = IPPROTO_UDP;
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK_EQ(s->ignored, 4);
	CHECK_EQ(s->icmp_echo_rx, 6);

	/* A reply that does not fit the output buffer is not written. */
	len = echo4_frame(f, &m, 0, mac_p0, mac_h1, "10.1.0.1", "10.1.0.254", 1400, false);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, 1000), 0);
	CHECK_EQ(s->ignored, 5);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 14 + 1428);

	/* ICMPv6 echo request. */
	body[0] = 128;
	body[1] = 0;
	put16(body + 2, 0);
	put16(body + 4, 0x4242);
	put16(body + 6, 9);
	for (unsigned int i = 8; i < 64; i++)
		body[i] = (uint8_t)i;
	len = icmp6_frame(
			f, &m, 0, mac_p0, mac_h6, "2001:db8:1::10", "2001:db8:2::1", 61, body, 64);
	f[14] = 0x6b; /* traffic class 0xb0 */
	f[15] = 0x01;
	f[16] = 0x23; /* flow label */
	memset(out, 0xee, sizeof(out));
	r = rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out));
	CHECK_EQ(r, 14 + 40 + 64);
	CHECK(memcmp(out, mac_h6, 6) == 0);
	CHECK(memcmp(out + 6, mac_p0, 6) == 0);
	ip = out + 14;
	icmp = ip + 40;
	CHECK_EQ(ip[0], 0x6b);
	CHECK_EQ(ip[1], 0x00);
	CHECK_EQ(get16(ip + 2), 0);
	CHECK_EQ(get16(ip + 4), 64);
	CHECK_EQ(ip[6], IPPROTO_ICMPV6);
	CHECK_EQ(ip[7], 64);
	ip6("2001:db8:2::1", a);
	CHECK(memcmp(ip + 8, a, 16) == 0);
	ip6("2001:db8:1::10", a);
	CHECK(memcmp(ip + 24, a, 16) == 0);
	CHECK_EQ(icmp[0], 129);
	CHECK_EQ(icmp[1], 0);
	CHECK_EQ(get16(icmp + 4), 0x4242);
	CHECK_EQ(get16(icmp + 6), 9);
	CHECK(memcmp(icmp + 8, body + 8, 56) == 0);
	check_icmp6_sum(out, 14);
	CHECK_EQ(s->icmp_echo_tx, 5);

	/* ICMPv6: bad checksum, not ours, other type, other protocol. */
	len = icmp6_frame(
			f, &m, 0, mac_p0, mac_h6, "2001:db8:1::10", "2001:db8:2::1", 61, body, 64);
	f[14 + 40 + 20] ^= 1;
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	len = icmp6_frame(
			f, &m, 0, mac_p0, mac_h6, "2001:db8:1::10", "2001:db8:2::2", 61, body, 64);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK_EQ(s->ignored, 7);
	body[0] = 1; /* destination unreachable */
	len = icmp6_frame(
			f, &m, 0, mac_p0, mac_h6, "2001:db8:1::10", "2001:db8:2::1", 61, body, 64);
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	f[14 + 6] = IPPROTO_UDP;
	m.l4_proto = IPPROTO_UDP;
	CHECK_EQ(rtr_neigh_input(n, 0, f, len, &m, now, out, sizeof(out)), 0);
	CHECK_EQ(s->ignored, 7);
	CHECK_EQ(s->icmp_echo_rx, 10);

	rtr_neigh_free(n);
}

static void
test_capacity(void)
{
	struct rtr_config cfg;
	struct rtr_neigh *n = make_neigh(&cfg);
	struct rtr_addr h = a4("10.1.0.1", 32), h6 = a6("2001:db8:1::5", 128);
	uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0};
	unsigned int i;
	int first = -1, idx = 0;

	CHECK(n != NULL);
	if (n == NULL)
		return;
	first = rtr_neigh_add(n, 0, &h, NULL);
	for (i = 1; i < RTR_NH_MAX; i++) {
		mac[4] = (uint8_t)(i >> 8);
		mac[5] = (uint8_t)i;
		idx = rtr_neigh_add(n, 1, NULL, mac);
		if (idx != (int)i)
			break;
	}
	CHECK_EQ(i, RTR_NH_MAX);
	CHECK_EQ(rtr_neigh_count(n), RTR_NH_MAX);
	mac[3] = 1;
	CHECK_EQ(rtr_neigh_add(n, 1, NULL, mac), -1);
	CHECK_EQ(rtr_neigh_add(n, 0, &h6, NULL), -1);
	/* Existing ones are still found when full. */
	CHECK_EQ(rtr_neigh_add(n, 0, &h, NULL), first);
	mac[3] = 0;
	mac[4] = 0;
	mac[5] = 77;
	CHECK_EQ(rtr_neigh_add(n, 1, NULL, mac), 77);
	CHECK(rtr_neigh_nh(n, RTR_NH_MAX - 1) != NULL);
	CHECK(rtr_neigh_nh(n, RTR_NH_MAX) == NULL);
	/* One tick walks them all and solicits only the dynamic one. */
	{
		struct capture c;

		memset(&c, 0, sizeof(c));
		CHECK_EQ(rtr_neigh_tick(n, 0, cap_emit, &c), 1);
	}
	rtr_neigh_free(n);
	rtr_neigh_free(NULL);
	CHECK(rtr_neigh_create(NULL, NULL, 0) == NULL);
}

int
main(void)
{
	struct rtr_config cfg;
	struct rtr_neigh *n = make_neigh(&cfg);

	CHECK(n != NULL);
	if (n != NULL) {
		test_local(n);
		test_add(n);
		rtr_neigh_free(n);
	}
	test_arp();
	test_arp_schedule();
	test_nd();
	test_echo();
	test_capacity();
	return rtr_test_done("neigh");
}
