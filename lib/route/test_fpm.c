/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The FPM decoder against frames built here with the kernel's own structs
 * (as zebra's encoder lays them out, doc/frr-fpm-research.md 1.3, and as
 * captured from zebra 8.4 there): one next hop, RTA_MULTIPATH (with
 * NLA_F_NESTED) over IPv4 and IPv6, a DEL+NEW update frame, blackhole,
 * RTA_TABLE, AF_MPLS, next-hop objects and groups; frame headers; then
 * malformed input: every truncation of a valid frame and 200,000 random
 * mutations, none of which may read outside the buffer (ASan) or return a
 * message that claims more than its bytes.
 */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "rtr_fpm.h"
#include "rtr_test.h"

struct nlb {
	uint8_t b[4096];
	size_t n;
	size_t msg; /* offset of the message being built */
};

static void
put(struct nlb *x, const void *p, size_t n)
{
	memcpy(x->b + x->n, p, n);
	x->n += n;
	while (x->n % 4)
		x->b[x->n++] = 0;
}

static void
msg_begin(struct nlb *x, uint16_t type, uint16_t flags)
{
	struct nlmsghdr h = {.nlmsg_type = type, .nlmsg_flags = flags, .nlmsg_pid = 12345};

	x->msg = x->n;
	put(x, &h, sizeof(h));
}

static void
msg_end(struct nlb *x)
{
	uint32_t len = (uint32_t)(x->n - x->msg);

	memcpy(x->b + x->msg, &len, 4);
}

static void
attr(struct nlb *x, uint16_t type, const void *v, size_t n)
{
	struct rtattr a = {.rta_len = (unsigned short)(sizeof(a) + n), .rta_type = type};

	memcpy(x->b + x->n, &a, sizeof(a));
	x->n += sizeof(a);
	put(x, v, n);
}

static void
attr_u32(struct nlb *x, uint16_t type, uint32_t v)
{
	attr(x, type, &v, 4);
}

static void
rtm(struct nlb *x, uint8_t fam, uint8_t len, uint8_t type, uint8_t proto)
{
	struct rtmsg r = {.rtm_family = fam,
			.rtm_dst_len = len,
			.rtm_table = RT_TABLE_MAIN,
			.rtm_protocol = proto,
			.rtm_type = type};

	put(x, &r, sizeof(r));
}

static void
ip4(const char *s, uint8_t out[4])
{
	inet_pton(AF_INET, s, out);
}

static void
ip6(const char *s, uint8_t out[16])
{
	inet_pton(AF_INET6, s, out);
}

/* RTA_MULTIPATH (NLA_F_NESTED, as zebra sets it) of n entries. */
static void
multipath(struct nlb *x, uint8_t fam, const char *const *gw, const int *ifi, unsigned int n)
{
	size_t at = x->n, i;
	struct rtattr a = {.rta_type = RTA_MULTIPATH | NLA_F_NESTED};

	x->n += sizeof(a);
	for (i = 0; i < n; i++) {
		size_t h_at = x->n;
		struct rtnexthop h = {.rtnh_hops = (unsigned char)i, .rtnh_ifindex = ifi[i]};
		uint8_t addr[16];

		x->n += sizeof(h);
		if (fam == AF_INET)
			ip4(gw[i], addr);
		else
			ip6(gw[i], addr);
		attr(x, RTA_GATEWAY, addr, fam == AF_INET ? 4 : 16);
		h.rtnh_len = (unsigned short)(x->n - h_at);
		memcpy(x->b + h_at, &h, sizeof(h));
	}
	a.rta_len = (unsigned short)(x->n - at);
	memcpy(x->b + at, &a, sizeof(a));
}

static struct rtr_fpm_msg msgs[64];

static int
decode(const struct nlb *x)
{
	return rtr_fpm_decode(x->b, x->n, msgs, RTR_ARRAY_SIZE(msgs));
}

static void
test_frames(void)
{
	uint8_t h[8] = {1, 1, 0, 8, 0, 0, 0, 0};
	size_t n = 0;

	CHECK_EQ(rtr_fpm_frame(h, 3, &n), 0);
	CHECK_EQ(rtr_fpm_frame(h, 7, &n), 0);
	CHECK_EQ(rtr_fpm_frame(h, 8, &n), 1);
	CHECK_EQ(n, 8);
	h[0] = 2;
	CHECK_EQ(rtr_fpm_frame(h, 8, &n), -1); /* version */
	h[0] = 1;
	h[1] = 2;
	CHECK_EQ(rtr_fpm_frame(h, 8, &n), -1); /* protobuf */
	h[1] = 1;
	h[3] = 2;
	CHECK_EQ(rtr_fpm_frame(h, 8, &n), -1); /* shorter than its header */
	h[3] = 6;
	CHECK_EQ(rtr_fpm_frame(h, 8, &n), -1); /* not a multiple of 4 */
	h[2] = 0x20;
	h[3] = 4;
	CHECK_EQ(rtr_fpm_frame(h, 8, &n), 0); /* 8196 bytes: wait for them */
}

static void
test_routes(void)
{
	struct nlb x = {0};
	uint8_t a[16];
	static const char *const gw4[] = {"192.168.77.2", "192.168.78.2"};
	static const char *const gw6[] = {"2001:db8:77::2", "2001:db8:78::2", "2001:db8:79::2"};
	static const int ifi[] = {3, 5, 7};
	char s[64];

	/* NEWROUTE 10.1.0.0/24 via 192.168.77.2 oif 3, static (196). */
	msg_begin(&x, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REQUEST | NLM_F_REPLACE);
	rtm(&x, AF_INET, 24, RTN_UNICAST, 196);
	ip4("10.1.0.0", a);
	attr(&x, RTA_DST, a, 4);
	attr_u32(&x, RTA_PRIORITY, 20);
	ip4("192.168.77.2", a);
	attr(&x, RTA_GATEWAY, a, 4);
	attr_u32(&x, RTA_OIF, 3);
	msg_end(&x);
	CHECK_EQ(decode(&x), 1);
	CHECK_EQ(msgs[0].kind, RTR_FPM_ROUTE);
	CHECK(!msgs[0].route.del && msgs[0].route.table == 254 && msgs[0].route.type == 1 &&
			msgs[0].route.protocol == 196);
	inet_ntop(AF_INET, &msgs[0].route.prefix.v4, s, sizeof(s));
	CHECK_STR(s, "10.1.0.0");
	CHECK_EQ(msgs[0].route.prefix.depth, 24);
	CHECK_EQ(msgs[0].route.n_nh, 1);
	CHECK_EQ(msgs[0].route.nh[0].ifindex, 3);
	inet_ntop(AF_INET, &msgs[0].route.nh[0].gw.v4, s, sizeof(s));
	CHECK_STR(s, "192.168.77.2");

	/* An update: DELROUTE (prefix only) + NEWROUTE with two paths, one frame. */
	x.n = 0;
	msg_begin(&x, RTM_DELROUTE, NLM_F_CREATE | NLM_F_REQUEST);
	rtm(&x, AF_INET, 24, 0, 186);
	ip4("10.2.0.0", a);
	attr(&x, RTA_DST, a, 4);
	attr_u32(&x, RTA_PRIORITY, 20);
	msg_end(&x);
	msg_begin(&x, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REQUEST | NLM_F_REPLACE);
	rtm(&x, AF_INET, 24, RTN_UNICAST, 186);
	attr(&x, RTA_DST, a, 4);
	attr_u32(&x, RTA_PRIORITY, 20);
	multipath(&x, AF_INET, gw4, ifi, 2);
	msg_end(&x);
	CHECK_EQ(decode(&x), 2);
	CHECK(msgs[0].route.del && msgs[0].route.n_nh == 0);
	CHECK(!msgs[1].route.del && msgs[1].route.n_nh == 2);
	CHECK(msgs[1].route.nh[1].ifindex == 5 && msgs[1].route.nh[1].weight == 2);
	inet_ntop(AF_INET, &msgs[1].route.nh[1].gw.v4, s, sizeof(s));
	CHECK_STR(s, "192.168.78.2");

	/* IPv6 over three paths, RTA_TABLE 1000 (a VRF's table). */
	x.n = 0;
	msg_begin(&x, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REQUEST);
	rtm(&x, AF_INET6, 48, RTN_UNICAST, 186);
	ip6("2001:db8:200::", a);
	attr(&x, RTA_DST, a, 16);
	attr_u32(&x, RTA_TABLE, 1000);
	multipath(&x, AF_INET6, gw6, ifi, 3);
	msg_end(&x);
	CHECK_EQ(decode(&x), 1);
	CHECK(msgs[0].route.prefix.family == AF_INET6 && msgs[0].route.prefix.depth == 48 &&
			msgs[0].route.table == 1000 && msgs[0].route.n_nh == 3);
	inet_ntop(AF_INET6, &msgs[0].route.nh[2].gw.v6, s, sizeof(s));
	CHECK_STR(s, "2001:db8:79::2");
	CHECK_EQ(msgs[0].route.nh[2].ifindex, 7);

	/* Blackhole: no next-hop attribute at all; a connected route: OIF only. */
	x.n = 0;
	msg_begin(&x, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REQUEST);
	rtm(&x, AF_INET, 24, RTN_BLACKHOLE, 196);
	ip4("10.3.0.0", a);
	attr(&x, RTA_DST, a, 4);
	msg_end(&x);
	msg_begin(&x, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REQUEST);
	rtm(&x, AF_INET, 24, RTN_UNICAST, 2);
	ip4("192.168.77.0", a);
	attr(&x, RTA_DST, a, 4);
	attr_u32(&x, RTA_OIF, 3);
	msg_end(&x);
	CHECK_EQ(decode(&x), 2);
	CHECK(msgs[0].route.type == RTN_BLACKHOLE && msgs[0].route.n_nh == 0);
	CHECK(msgs[1].route.protocol == 2 && msgs[1].route.n_nh == 1 &&
			msgs[1].route.nh[0].gw.family == 0 && msgs[1].route.nh[0].ifindex == 3);

	/* AF_MPLS (an LSP) and a neighbour message: not routes. */
	x.n = 0;
	msg_begin(&x, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REQUEST);
	rtm(&x, 28, 20, RTN_UNICAST, 186);
	msg_end(&x);
	msg_begin(&x, RTM_NEWNEIGH, 0);
	put(&x, "\x07\0\0\0\0\0\0\0\0\0\0\0", 12);
	msg_end(&x);
	CHECK_EQ(decode(&x), 2);
	CHECK(msgs[0].kind == RTR_FPM_OTHER && msgs[1].kind == RTR_FPM_OTHER);

	/* Next-hop objects: one next hop, a group of two, a route naming it. */
	x.n = 0;
	{
		struct nhmsg nm = {.nh_family = AF_INET, .nh_protocol = 11};
		struct nexthop_grp g[2] = {{.id = 21}, {.id = 23, .weight = 1}};

		msg_begin(&x, RTM_NEWNEXTHOP, NLM_F_CREATE | NLM_F_REQUEST | NLM_F_REPLACE);
		put(&x, &nm, sizeof(nm));
		attr_u32(&x, NHA_ID, 21);
		ip4("192.168.77.2", a);
		attr(&x, NHA_GATEWAY, a, 4);
		attr_u32(&x, NHA_OIF, 3);
		msg_end(&x);
		nm.nh_family = AF_UNSPEC;
		msg_begin(&x, RTM_NEWNEXTHOP, NLM_F_CREATE | NLM_F_REQUEST | NLM_F_REPLACE);
		put(&x, &nm, sizeof(nm));
		attr_u32(&x, NHA_ID, 22);
		attr(&x, NHA_GROUP, g, sizeof(g));
		msg_end(&x);
		msg_begin(&x, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REQUEST);
		rtm(&x, AF_INET, 16, RTN_UNICAST, 186);
		ip4("10.9.0.0", a);
		attr(&x, RTA_DST, a, 4);
		attr_u32(&x, RTA_NH_ID, 22);
		msg_end(&x);
		msg_begin(&x, RTM_DELNEXTHOP, NLM_F_REQUEST);
		put(&x, &nm, sizeof(nm));
		attr_u32(&x, NHA_ID, 21);
		msg_end(&x);
	}
	CHECK_EQ(decode(&x), 4);
	CHECK(msgs[0].kind == RTR_FPM_NEXTHOP && msgs[0].nhobj.id == 21 && !msgs[0].nhobj.group &&
			msgs[0].nhobj.nh.ifindex == 3 && msgs[0].nhobj.nh.gw.family == AF_INET);
	CHECK(msgs[1].nhobj.group && msgs[1].nhobj.n_grp == 2 && msgs[1].nhobj.grp[1] == 23 &&
			msgs[1].nhobj.grp_weight[1] == 2);
	CHECK(msgs[2].kind == RTR_FPM_ROUTE && msgs[2].route.nh_id == 22 &&
			msgs[2].route.n_nh == 0);
	CHECK(msgs[3].nhobj.del && msgs[3].nhobj.id == 21);
}

/* Malformed input: the decoder says -1 or returns messages whose contents
 * stay inside what it was given. */
static void
test_malformed(void)
{
	struct nlb x = {0};
	static const char *const gw4[] = {"192.168.77.2", "192.168.78.2"};
	static const int ifi[] = {3, 5};
	uint8_t a[16], buf[4096];
	uint64_t rng = 0x2545f4914f6cdd1dULL;
	unsigned int bad = 0, good = 0;
	int n;

	msg_begin(&x, RTM_DELROUTE, NLM_F_CREATE | NLM_F_REQUEST);
	rtm(&x, AF_INET, 24, 0, 186);
	ip4("10.2.0.0", a);
	attr(&x, RTA_DST, a, 4);
	msg_end(&x);
	msg_begin(&x, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REQUEST);
	rtm(&x, AF_INET, 24, RTN_UNICAST, 186);
	attr(&x, RTA_DST, a, 4);
	multipath(&x, AF_INET, gw4, ifi, 2);
	msg_end(&x);
	/* Every truncation: a copy of exactly that size, so ASan sees a read
	 * past it. */
	for (size_t len = 0; len < x.n; len++) {
		uint8_t *c = malloc(len ? len : 1);

		memcpy(c, x.b, len);
		n = rtr_fpm_decode(c, len, msgs, RTR_ARRAY_SIZE(msgs));
		CHECK(n <= 1, "a cut at %zu bytes decoded %d messages", len, n);
		free(c);
	}
	/* A length past the end, at each level. */
	memcpy(buf, x.b, x.n);
	buf[0] += 4; /* nlmsg_len */
	CHECK_EQ(rtr_fpm_decode(buf, x.n, msgs, RTR_ARRAY_SIZE(msgs)), -1);
	memcpy(buf, x.b, x.n);
	buf[16 + 12] = 200; /* RTA_DST's rta_len */
	CHECK_EQ(rtr_fpm_decode(buf, x.n, msgs, RTR_ARRAY_SIZE(msgs)), -1);
	memcpy(buf, x.b, x.n);
	buf[16 + 12] = 7; /* RTA_DST of 3 bytes */
	CHECK_EQ(rtr_fpm_decode(buf, x.n, msgs, RTR_ARRAY_SIZE(msgs)), -1);
	memcpy(buf, x.b, x.n);
	buf[17] = 33; /* rtm_dst_len 33 for IPv4 */
	CHECK_EQ(rtr_fpm_decode(buf, x.n, msgs, RTR_ARRAY_SIZE(msgs)), -1);
	/* Random bytes flipped, inserted lengths: never outside the buffer. */
	for (unsigned int it = 0; it < 200000; it++) {
		size_t len = x.n;
		uint8_t *c;

		memcpy(buf, x.b, x.n);
		for (unsigned int k = 0; k < 1 + it % 4; k++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			buf[rng % x.n] = (uint8_t)(rng >> 32);
		}
		if (it % 3 == 0)
			len = (size_t)(rng >> 40) % x.n;
		c = malloc(len ? len : 1);
		memcpy(c, buf, len);
		n = rtr_fpm_decode(c, len, msgs, RTR_ARRAY_SIZE(msgs));
		free(c);
		if (n < 0) {
			bad++;
			continue;
		}
		good++;
		for (int i = 0; i < n; i++)
			if (msgs[i].kind == RTR_FPM_ROUTE)
				CHECK(msgs[i].route.n_nh <= RTR_MAX_PATHS &&
						msgs[i].route.prefix.depth <=
								(msgs[i].route.prefix.family == AF_INET
												? 32
												: 128));
	}
	printf("fpm: 200000 mutated frames: %u refused as malformed, %u decoded\n", bad, good);
	CHECK(bad > 0 && good > 0);
}

int
main(void)
{
	test_frames();
	test_routes();
	test_malformed();
	return rtr_test_done("fpm");
}
