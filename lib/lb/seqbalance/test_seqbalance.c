/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit tests of SeqBalance (rtr_seqbalance, ALGORITHMS.md 3) and of the
 * control-packet builder it shares with ConWeave, without the EAL: fake
 * mbufs from calloc, I/O callbacks that record what they are given, a
 * virtual clock. Expected paths and Congestion Packet bytes are computed
 * here from the specification, not with the code under test.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_mbuf.h>

#include "rtr_config.h"
#include "rtr_lb.h"
#include "rtr_lb_ctrl.h"
#include "rtr_mbuf.h"
#include "rtr_lb_fs.h"
#include "rtr_pathmark.h"
#include "rtr_parse.h"
#include "rtr_route.h"
#include "rtr_seqbalance.h"
#include "rtr_stats.h"
#include "rtr_test.h"
#include "test_lb_stats.h"
#include "test_agg_cfg.h"
#include "rtr_test_mbuf.h"

#define SEED     0x1234abcdu
#define PAYLOAD  64
#define MAXREC   65536

#define PHI      32000ULL      /* ns: the default phi_us = 32 */
#define IDLE     1000000ULL    /* ns: the default subflow_idle_us = 1000 */
#define T0       1000000000ULL /* the virtual clock starts at 1 s */
#define HOST     0             /* a host port (host_port_mask 0x3) */
#define FABRIC   4             /* a fabric port */
#define N_GROUPS 16

/* ------------------------------------------------------------ fakes */

/* What an instance gave its callbacks, in order. */
struct sink {
	struct rte_mbuf *cm[MAXREC];
	unsigned int nc;
	unsigned int allocs;
	bool no_alloc; /* io.alloc fails */
};

static void
io_control(void *arg, struct rte_mbuf *m)
{
	struct sink *s = arg;

	if (s->nc < MAXREC)
		s->cm[s->nc++] = m;
	else
		fake_free(m);
}

static struct rte_mbuf *
io_alloc(void *arg)
{
	struct sink *s = arg;

	s->allocs++;
	return s->no_alloc ? NULL : fake_mbuf();
}

static void
sink_clear(struct sink *s)
{
	for (unsigned int i = 0; i < s->nc; i++)
		fake_free(s->cm[i]);
	s->nc = 0;
	s->allocs = 0;
	s->no_alloc = false;
}

static struct sink src_sink, dst_sink, aux_sink;

/* ------------------------------------------------------------ frames */

struct flow {
	bool v6;
	bool vlan;
	uint8_t src[16], dst[16];
	uint16_t sport;
};

static struct flow
flow4(uint8_t a, uint8_t b, uint16_t sport)
{
	struct flow f;

	memset(&f, 0, sizeof(f));
	f.src[0] = 10, f.src[1] = 0, f.src[2] = 0, f.src[3] = a;
	f.dst[0] = 10, f.dst[1] = 1, f.dst[2] = 0, f.dst[3] = b;
	f.sport = sport;
	return f;
}

static struct flow
flow6(uint8_t a, uint8_t b, uint16_t sport)
{
	struct flow f;

	memset(&f, 0, sizeof(f));
	f.v6 = true;
	f.src[0] = 0xfd, f.src[14] = 0x12, f.src[15] = a;
	f.dst[0] = 0xfd, f.dst[1] = 1, f.dst[15] = b;
	f.sport = sport;
	return f;
}

static unsigned int
l3_off_of(const struct flow *f)
{
	return f->vlan ? 18 : 14;
}

static unsigned int
l4_off_of(const struct flow *f)
{
	return l3_off_of(f) + (f->v6 ? 40 : 20);
}

static unsigned int
bth_off_of(const struct flow *f)
{
	return l4_off_of(f) + 8;
}

/* RFC 1071, the test's own. */
static uint16_t
ip_csum(const uint8_t *h, unsigned int n)
{
	uint32_t s = 0;

	for (unsigned int i = 0; i < n; i += 2)
		s += (uint32_t)h[i] << 8 | h[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void
fix_ip4_csum(uint8_t *l3)
{
	uint16_t c;

	l3[10] = l3[11] = 0;
	c = ip_csum(l3, 20);
	l3[10] = (uint8_t)(c >> 8);
	l3[11] = (uint8_t)c;
}

/* A frame as a host sends it: Ethernet [/ VLAN] / IP / UDP dport / BTH /
 * payload / ICRC. The payload is a function of the PSN. */
static unsigned int
host_frame(uint8_t *p, const struct flow *f, uint32_t psn, uint8_t opcode, uint8_t b4, uint8_t b8,
		uint8_t tos, uint16_t dport)
{
	unsigned int l3 = l3_off_of(f), l4 = l4_off_of(f), n, i;
	unsigned int ext = opcode == RTR_BTH_OP_RC_ACK ? 4 : 0;
	unsigned int pay = opcode == RTR_BTH_OP_RC_ACK || opcode == RTR_BTH_OP_CNP ? 0 : PAYLOAD;
	unsigned int ulen = 8 + 12 + ext + pay + 4;

	if (opcode == RTR_BTH_OP_CNP)
		ulen += 16; /* CNP: 16 reserved bytes */
	memset(p, 0, l4);
	p[0] = 0x02, p[5] = 0x01;  /* dst MAC */
	p[6] = 0x02, p[11] = 0x02; /* src MAC */
	if (f->vlan) {
		p[12] = 0x81, p[13] = 0x00;
		p[14] = 0x60, p[15] = 0x07; /* PCP 3, VID 7 */
	}
	if (!f->v6) {
		uint8_t *ip = p + l3;

		p[l3 - 2] = 0x08, p[l3 - 1] = 0x00;
		ip[0] = 0x45;
		ip[1] = tos;
		ip[2] = (uint8_t)((20 + ulen) >> 8);
		ip[3] = (uint8_t)(20 + ulen);
		ip[4] = (uint8_t)(psn >> 8);
		ip[5] = (uint8_t)psn;
		ip[6] = 0x40; /* DF */
		ip[8] = 63;
		ip[9] = 17;
		memcpy(ip + 12, f->src, 4);
		memcpy(ip + 16, f->dst, 4);
		fix_ip4_csum(ip);
	} else {
		uint32_t vtc = 6u << 28 | (uint32_t)tos << 20 | 0x12345;

		p[l3 - 2] = 0x86, p[l3 - 1] = 0xdd;
		p[l3 + 0] = (uint8_t)(vtc >> 24);
		p[l3 + 1] = (uint8_t)(vtc >> 16);
		p[l3 + 2] = (uint8_t)(vtc >> 8);
		p[l3 + 3] = (uint8_t)vtc;
		p[l3 + 4] = (uint8_t)(ulen >> 8);
		p[l3 + 5] = (uint8_t)ulen;
		p[l3 + 6] = 17;
		p[l3 + 7] = 63;
		memcpy(p + l3 + 8, f->src, 16);
		memcpy(p + l3 + 24, f->dst, 16);
	}
	p[l4 + 0] = (uint8_t)(f->sport >> 8);
	p[l4 + 1] = (uint8_t)f->sport;
	p[l4 + 2] = (uint8_t)(dport >> 8);
	p[l4 + 3] = (uint8_t)dport;
	p[l4 + 4] = (uint8_t)(ulen >> 8);
	p[l4 + 5] = (uint8_t)ulen;
	p[l4 + 6] = 0x5a; /* a UDP checksum the switch must leave alone */
	p[l4 + 7] = 0xa5;
	n = l4 + 8;
	p[n + 0] = opcode;
	p[n + 1] = 0x40; /* MigReq */
	p[n + 2] = 0xff;
	p[n + 3] = 0xff; /* P_Key */
	p[n + 4] = b4;
	p[n + 5] = 0x00;
	p[n + 6] = 0x01;
	p[n + 7] = 0x23; /* DestQP */
	p[n + 8] = b8;
	p[n + 9] = (uint8_t)(psn >> 16);
	p[n + 10] = (uint8_t)(psn >> 8);
	p[n + 11] = (uint8_t)psn;
	n += 12;
	for (i = 0; i < ulen - 8 - 12 - 4; i++)
		p[n + i] = (uint8_t)(psn * 7 + i);
	n += ulen - 8 - 12 - 4;
	p[n + 0] = 0xde, p[n + 1] = 0xad, p[n + 2] = 0xbe, p[n + 3] = 0xef; /* ICRC */
	return n + 4;
}

static int
reparse(struct rte_mbuf *m, unsigned int flags)
{
	return (int)rtr_parse(mdata(m), m->data_len, SEED, flags, rtr_meta(m));
}

static struct rte_mbuf *
frame_mbuf(const uint8_t *frame, unsigned int len, unsigned int parse_flags, uint8_t in_port)
{
	struct rte_mbuf *m = fake_frame(frame, len);

	CHECK_EQ(reparse(m, parse_flags), RTR_DROP_NONE);
	rtr_meta(m)->in_port = in_port;
	return m;
}

/* A host's packet as the SrcToR receives it on port in_port. */
static struct rte_mbuf *
mk_pkt(const struct flow *f, uint32_t psn, uint8_t opcode, uint8_t b4, uint8_t b8, uint8_t tos,
		uint8_t in_port, unsigned int parse_flags)
{
	uint8_t buf[512];
	unsigned int n = host_frame(buf, f, psn, opcode, b4, b8, tos, 4791);

	return frame_mbuf(buf, n, parse_flags, in_port);
}

static struct rte_mbuf *
mk_host(const struct flow *f, uint32_t psn)
{
	return mk_pkt(f, psn, 4, 0, 0, 0x02, HOST, 0);
}

/* The Congestion Packet a DstToR sends for data frame (flow f, PSN psn,
 * opcode, byte 8 b8, TOS tos) with PathTag tag, built here from
 * ALGORITHMS.md 2.1 / 3; returns its length. */
static unsigned int
expect_cp(uint8_t *p, const struct flow *f, uint32_t psn, uint8_t opcode, uint8_t b8, uint8_t tos,
		uint8_t tag)
{
	unsigned int l3 = l3_off_of(f), l4 = l4_off_of(f), b = bth_off_of(f);
	unsigned int n = b + 12 + 4;

	host_frame(p, f, psn, opcode, tag, b8, tos, 4791);
	if (!f->v6) {
		uint8_t *ip = p + l3;

		memcpy(ip + 12, f->dst, 4);
		memcpy(ip + 16, f->src, 4);
		ip[1] = tos & 0xfc;
		ip[2] = (uint8_t)((n - l3) >> 8);
		ip[3] = (uint8_t)(n - l3);
		ip[8] = 64;
		fix_ip4_csum(ip);
		CHECK_EQ(n - l3, 20 + 8 + 12 + 4);
	} else {
		uint8_t *ip = p + l3;

		memcpy(ip + 8, f->dst, 16);
		memcpy(ip + 24, f->src, 16);
		ip[1] &= (uint8_t)~0x30; /* ECN: bits 21..20 of the first word */
		ip[4] = (uint8_t)((n - l4) >> 8);
		ip[5] = (uint8_t)(n - l4);
		ip[7] = 64;
		CHECK_EQ(n - l4, 8 + 12 + 4);
	}
	p[l4 + 4] = (uint8_t)((n - l4) >> 8);
	p[l4 + 5] = (uint8_t)(n - l4);
	p[l4 + 6] = p[l4 + 7] = 0;
	p[b + 4] = tag;
	p[b + 8] = 3 << 5;
	memset(p + b + 12, 0, 4);
	return n;
}

/* A Congestion Packet for flow f's sub-flow, as the SrcToR's fabric port
 * parses it (with cw byte 8 b8). */
static struct rte_mbuf *
mk_cp(const struct flow *f, uint8_t tag, uint8_t b8)
{
	uint8_t buf[512];
	unsigned int n = expect_cp(buf, f, 1, 4, 0, 0, tag);

	buf[bth_off_of(f) + 8] = b8;
	return frame_mbuf(buf, n, RTR_LB_PARSE_CTRL, FABRIC);
}

/* ------------------------------------------------------------ the specification's choice */

/* murmur3 fmix32, the test's own copy */
static uint32_t
t_fmix(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

static uint32_t
t_h2(uint32_t h1)
{
	return t_fmix(h1 ^ 0x9e3779b9u) | 1;
}

/*
 * The stride of the probe sequence: the paper's h2 mod n can be 0 or share
 * a factor with n, so rocetor takes the ((h2 >> 1) mod phi(n))-th number in
 * 1..n coprime to n (ascending); for a power-of-two n that is h2 mod n.
 */
static unsigned int
t_step(uint32_t h1, unsigned int n)
{
	unsigned int cop[64], k = 0;

	for (unsigned int s = 1; s <= n; s++) {
		unsigned int a = s, b = n;

		while (b != 0) {
			unsigned int t = a % b;

			a = b;
			b = t;
		}
		if (a == 1)
			cop[k++] = s;
	}
	return cop[(t_h2(h1) >> 1) % k];
}

/* Candidate i of the probe sequence of h1 over n paths. */
static unsigned int
t_cand(uint32_t h1, unsigned int n, unsigned int i)
{
	return (unsigned int)(((uint64_t)h1 + (uint64_t)i * t_step(h1, n)) % n);
}

struct choice {
	int path;
	bool rehash;
	bool all_inactive;
};

/* ALGORITHMS.md 3 with the brief's live-mask rule, from scratch. */
static struct choice
expect_choice(uint32_t h1, unsigned int n, uint64_t live, uint64_t inact)
{
	struct choice c = {-1, false, false};
	unsigned int k, cnt;

	for (unsigned int i = 0; i < n; i++) {
		unsigned int p = t_cand(h1, n, i);

		if (((live >> p) & 1) && !((inact >> p) & 1)) {
			c.path = (int)p;
			c.rehash = i > 0;
			return c;
		}
	}
	c.all_inactive = true;
	if ((live >> (h1 % n)) & 1) {
		c.path = (int)(h1 % n);
		return c;
	}
	cnt = (unsigned int)__builtin_popcountll(live);
	if (cnt == 0)
		return c;
	k = h1 % cnt;
	for (unsigned int p = 0; p < 64; p++) {
		if (!((live >> p) & 1))
			continue;
		if (k-- == 0) {
			c.path = (int)p;
			break;
		}
	}
	return c;
}

/* ------------------------------------------------------------ instances */

static struct rtr_group GR[N_GROUPS];

static void
set_group(unsigned int gi, unsigned int n, uint64_t live)
{
	GR[gi].n_paths = (uint16_t)n;
	atomic_store(&GR[gi].live_mask, live);
}

static uint64_t
all_live(unsigned int n)
{
	return n == 64 ? ~0ULL : (1ULL << n) - 1;
}

static struct rtr_sb_params
def_params(struct rtr_pm *sh, unsigned int worker)
{
	return (struct rtr_sb_params){
			.phi_ns = PHI,
			.subflow_idle_ns = IDLE,
			.flow_entries = 8192,
			.host_port_mask = 0x3,
			.hash_seed = SEED,
			.worker = worker,
			.socket_id = 0,
			.use_rte_malloc = false,
			.shared = sh,
	};
}

static struct rtr_sb *
mk_inst(const struct rtr_sb_params *p, struct sink *s)
{
	struct rtr_lb_io io = {
			.control = io_control,
			.alloc = io_alloc,
			.arg = s,
	};
	struct rtr_sb *sb;

	sink_clear(s);
	sb = rtr_sb_create(p, &io);
	CHECK(sb != NULL);
	return sb;
}

static struct rtr_lcore_stats cs_st, cd_st, c1_st;
static uint64_t *const cs = cs_st.lb, *const cd = cd_st.lb, *const c1 = c1_st.lb;

static void
zero_counters(void)
{
	memset(cs, 0, sizeof(cs_st.lb));
	memset(cd, 0, sizeof(cd_st.lb));
	memset(c1, 0, sizeof(c1_st.lb));
}

/* SrcToR: one data packet of flow f from a host through group gi; the
 * tag is checked; returns the path. */
static int
send_pkt(struct rtr_sb *sb, unsigned int gi, const struct flow *f, uint64_t now, uint64_t *c)
{
	struct rte_mbuf *m = mk_host(f, 7);
	int path = rtr_sb_pick(sb, &GR[gi], gi, m, rtr_meta(m), now, LB_ST(c));

	if (path >= 0) {
		CHECK_EQ(mdata(m)[bth_off_of(f) + 4], path);
		CHECK_EQ(rtr_meta(m)->bth_b4, path);
	}
	fake_free(m);
	return path;
}

static uint32_t
hash_of(const struct flow *f)
{
	struct rte_mbuf *m = mk_host(f, 1);
	uint32_t h = rtr_meta(m)->flow_hash;

	fake_free(m);
	return h;
}

/* Congestion Packet for flow f's sub-flow (known to sb) with tag path. */
static void
congest(struct rtr_sb *sb, const struct flow *f, unsigned int path, uint64_t now, uint64_t *c)
{
	struct rte_mbuf *m = mk_cp(f, (uint8_t)path, RTR_SB_CP_B8);

	CHECK(rtr_meta_lb_control(rtr_meta(m)));
	rtr_sb_control_rx(sb, m, rtr_meta(m), now, LB_ST(c));
	fake_free(m);
}

/* The marker flow of group gi: its sub-flow carries the Congestion
 * Packets that mark that group's paths. */
static struct flow
marker(unsigned int gi)
{
	return flow4(250, (uint8_t)gi, (uint16_t)(60000 + gi));
}

/* Mark the paths in mask inactive in group gi at now. */
static void
mark_paths(struct rtr_sb *sb, unsigned int gi, uint64_t mask, uint64_t now)
{
	struct flow fm = marker(gi);
	struct rtr_lcore_stats scratch_st;
	uint64_t *scratch = scratch_st.lb;

	memset(scratch, 0, sizeof(scratch_st.lb));
	if (send_pkt(sb, gi, &fm, now, scratch) < 0)
		return;
	for (unsigned int p = 0; p < 64; p++)
		if ((mask >> p) & 1)
			congest(sb, &fm, p, now, scratch);
	CHECK_EQ(scratch[RTR_LBC_busy_paths], __builtin_popcountll(mask));
}

static uint64_t rng_state = 0x853c49e6748fea9bULL;

static uint64_t
rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int
gcd(unsigned int a, unsigned int b)
{
	while (b) {
		unsigned int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* ------------------------------------------------------------ 1. ECMP for the rest */

static void
test_ecmp_rest(void)
{
	struct rtr_pm *sh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = N_GROUPS});
	struct rtr_sb_params p = def_params(sh, 0);
	struct rtr_sb *sb = mk_inst(&p, &src_sink);
	struct flow f = flow4(1, 2, 50000);
	uint8_t buf[512];
	unsigned int n;
	struct rte_mbuf *m;
	int path;

	printf("1. ECMP for what is not RoCE from a host\n");
	zero_counters();
	set_group(0, 4, 0xf);
	/* Not RoCE (UDP to another port). */
	n = host_frame(buf, &f, 1, 4, 0x11, 0, 0, 4792);
	m = frame_mbuf(buf, n, 0, HOST);
	CHECK(!(rtr_meta(m)->flags & RTR_MF_ROCE));
	path = rtr_sb_pick(sb, &GR[0], 0, m, rtr_meta(m), T0, LB_ST(cs));
	CHECK_EQ(path, rtr_meta(m)->flow_hash % 4);
	CHECK(m->data_len == n && memcmp(mdata(m), buf, n) == 0);
	fake_free(m);
	/* RoCE from a fabric port (transit), from the switch itself
	 * (RTR_PORT_NONE: its own Congestion Packets keep their tag), from
	 * a port number outside the mask, beyond 31. */
	{
		const uint8_t ports[] = {FABRIC, RTR_PORT_NONE, 2, 31, 32, 40};

		for (unsigned int i = 0; i < sizeof(ports); i++) {
			n = host_frame(buf, &f, 1, 4, 0x11, 0, 0, 4791);
			m = frame_mbuf(buf, n, 0, ports[i]);
			CHECK(rtr_meta(m)->flags & RTR_MF_ROCE);
			path = rtr_sb_pick(sb, &GR[0], 0, m, rtr_meta(m), T0, LB_ST(cs));
			CHECK_EQ(path, rtr_meta(m)->flow_hash % 4);
			CHECK(memcmp(mdata(m), buf, n) == 0, "port %u touched the frame", ports[i]);
			CHECK_EQ(rtr_meta(m)->bth_b4, 0x11);
			fake_free(m);
		}
		/* A Congestion Packet in transit, from the switch. */
		m = mk_cp(&f, 3, RTR_SB_CP_B8);
		rtr_meta(m)->in_port = RTR_PORT_NONE;
		path = rtr_sb_pick(sb, &GR[0], 0, m, rtr_meta(m), T0, LB_ST(cs));
		CHECK_EQ(path, rtr_meta(m)->flow_hash % 4);
		CHECK_EQ(mdata(m)[bth_off_of(&f) + 4], 3);
		fake_free(m);
	}
	CHECK_EQ(cs[RTR_LBC_ecmp_packets], 8);
	CHECK_EQ(cs[RTR_LBC_sb_tagged], 0);
	CHECK_EQ(cs[RTR_LBC_sb_subflows], 0);
	/* Down paths: ECMP over the live ones; none live: -1. */
	set_group(0, 4, 0x5);
	m = mk_pkt(&f, 1, 4, 0, 0, 0, FABRIC, 0);
	path = rtr_sb_pick(sb, &GR[0], 0, m, rtr_meta(m), T0, LB_ST(cs));
	CHECK_EQ(path, (rtr_meta(m)->flow_hash % 2) ? 2 : 0);
	fake_free(m);
	set_group(0, 4, 0);
	m = mk_pkt(&f, 1, 4, 0, 0, 0, FABRIC, 0);
	CHECK_EQ(rtr_sb_pick(sb, &GR[0], 0, m, rtr_meta(m), T0, LB_ST(cs)), -1);
	fake_free(m);
	m = mk_host(&f, 1);
	CHECK_EQ(rtr_sb_pick(sb, &GR[0], 0, m, rtr_meta(m), T0, LB_ST(cs)), -1);
	CHECK_EQ(mdata(m)[bth_off_of(&f) + 4], 0);
	fake_free(m);
	CHECK_EQ(cs[RTR_LBC_sb_tagged], 0);
	set_group(0, 4, 0xf);
	rtr_sb_free(sb);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 2. the PathTag */

static void
test_tag(void)
{
	struct rtr_pm *sh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = N_GROUPS});
	struct rtr_sb_params p = def_params(sh, 0);
	struct rtr_sb *sb = mk_inst(&p, &src_sink);

	printf("2. PathTag\n");
	zero_counters();
	set_group(0, 8, 0xff);
	for (int v = 0; v < 4; v++) {
		struct flow f = (v & 1) ? flow6(1, 2, 50001) : flow4(1, 2, 50001);
		const uint8_t ops[] = {4, 0, 10, RTR_BTH_OP_RC_ACK, RTR_BTH_OP_CNP};

		f.vlan = v >= 2;
		for (unsigned int o = 0; o < sizeof(ops); o++) {
			uint8_t buf[512];
			/* Byte 4 as a real RNIC may send it (Resv6 = 16),
			 * Resv7 not zero, AckReq: only byte 4 may change. */
			unsigned int n = host_frame(
					buf, &f, 100 + o, ops[o], 0x10, 0xc5, 0x02, 4791);
			struct rte_mbuf *m = frame_mbuf(buf, n, 0, 1);
			struct choice ch = expect_choice(rtr_meta(m)->flow_hash, 8, 0xff, 0);
			unsigned int b = bth_off_of(&f);
			int path = rtr_sb_pick(
					sb, &GR[0], 0, m, rtr_meta(m), T0 + 10 * v + o, LB_ST(cs));

			/* All ops of one flow share its sub-flow. */
			CHECK_EQ(path, ch.path);
			CHECK_EQ(mdata(m)[b + 4], path);
			CHECK_EQ(rtr_meta(m)->bth_b4, path);
			CHECK_EQ(m->data_len, n);
			CHECK(memcmp(mdata(m), buf, b + 4) == 0);
			CHECK(memcmp(mdata(m) + b + 5, buf + b + 5, n - b - 5) == 0);
			fake_free(m);
		}
	}
	CHECK_EQ(cs[RTR_LBC_sb_tagged], 20);
	CHECK_EQ(cs[RTR_LBC_sb_subflows], 2); /* the v4 and v6 flows (VLAN: same flow) */
	CHECK_EQ(cs[RTR_LBC_ecmp_packets], 0);
	rtr_sb_free(sb);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 3. double hashing */

static void
test_double_hash(void)
{
	const unsigned int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 64};
	struct rtr_pm *sh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = N_GROUPS});
	struct rtr_sb_params p = def_params(sh, 0);
	struct rtr_sb *sb;
	unsigned int trials = 0, noncoprime = 0, rehashes = 0, all = 0, downs = 0;
	uint64_t now = T0;

	printf("3. double hashing\n");
	zero_counters();
	p.flow_entries = 1 << 16; /* thousands of flows: no bucket fills up */
	sb = mk_inst(&p, &src_sink);
	for (unsigned int si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		unsigned int n = sizes[si], gi = si;

		for (unsigned int t = 0; t < 300; t++) {
			struct flow f = flow4((uint8_t)(1 + t % 200), (uint8_t)(si + 1),
					(uint16_t)(1000 + si * 1000 + t));
			uint64_t live = all_live(n), inact = 0;
			uint64_t before[RTR_LBC_MAX];
			uint32_t h1 = hash_of(&f);
			struct choice ch;
			unsigned int mode = t % 6;
			int path;

			/* Past every mark of the trial before. */
			now += PHI + 1;
			if (mode == 1 || mode == 2 || mode == 4) {
				/* Random inactive paths (about half). */
				inact = rng() & all_live(n);
			} else if (mode == 3) {
				/* Everything inactive. */
				inact = all_live(n);
			} else if (mode == 5) {
				/* Exactly the first candidates inactive: k of them. */
				unsigned int k = (unsigned int)(rng() % n);

				for (unsigned int i = 0; i < k; i++)
					inact |= 1ULL << t_cand(h1, n, i);
			}
			if (mode == 4 && n > 1) {
				/* Some paths down (at least one live). */
				live = rng() & all_live(n);
				if (live == 0)
					live = 1ULL << (rng() % n);
				downs++;
			}
			set_group(gi, n, live);
			mark_paths(sb, gi, inact, now);
			for (unsigned int q = 0; q < n; q++)
				CHECK_EQ(rtr_sb_path_inactive(sh, gi, q, now), (inact >> q) & 1);
			ch = expect_choice(h1, n, live, inact);
			memcpy(before, cs, sizeof(before));
			path = send_pkt(sb, gi, &f, now, cs);
			CHECK(path == ch.path, "n %u h1 %#x live %#lx inact %#lx: %d != %d", n, h1,
					(unsigned long)live, (unsigned long)inact, path, ch.path);
			CHECK_EQ(cs[RTR_LBC_sb_rehashes] - before[RTR_LBC_sb_rehashes], ch.rehash);
			CHECK_EQ(cs[RTR_LBC_sb_all_inactive] - before[RTR_LBC_sb_all_inactive],
					ch.all_inactive);
			CHECK_EQ(cs[RTR_LBC_sb_subflows] - before[RTR_LBC_sb_subflows], 1);
			CHECK_EQ(cs[RTR_LBC_sb_tagged] - before[RTR_LBC_sb_tagged], 1);
			rehashes += ch.rehash;
			all += ch.all_inactive;
			if (n > 1 && gcd(t_h2(h1) % n, n) != 1)
				noncoprime++;
			trials++;
		}
		set_group(gi, n, all_live(n));
	}
	printf("   %u new sub-flows: %u rehashed, %u all inactive, %u with paths down, "
	       "%u whose paper stride (h2 mod n) is not coprime to n\n",
			trials, rehashes, all, downs, noncoprime);
	CHECK(rehashes > 100);
	CHECK(all > 100);
	CHECK(noncoprime > 50);

	/* The paper's stride h2 mod n sharing a factor with n would visit
	 * n / gcd paths only: with those inactive and the others free, the
	 * sub-flow takes a free path (rehashed), never the all-inactive
	 * fallback. And for a power-of-two n the stride is the paper's. */
	{
		unsigned int found = 0;

		set_group(8, 6, all_live(6));
		for (unsigned int t = 0; t < 2000 && found < 5; t++) {
			struct flow f = flow6((uint8_t)t, 9, (uint16_t)(20000 + t));
			uint32_t h1 = hash_of(&f);
			uint64_t visited = 0;
			uint64_t before[RTR_LBC_MAX];
			int path;

			if (t_h2(h1) % 6 != 3)
				continue;
			for (unsigned int i = 0; i < 6; i++)
				visited |= 1ULL << (((uint64_t)h1 + (uint64_t)i * t_h2(h1)) % 6);
			CHECK_EQ(__builtin_popcountll(visited), 2);
			now += PHI + 1;
			mark_paths(sb, 8, visited, now);
			memcpy(before, cs, sizeof(before));
			path = send_pkt(sb, 8, &f, now, cs);
			CHECK_EQ(path, expect_choice(h1, 6, all_live(6), visited).path);
			CHECK(path >= 0 && !((visited >> path) & 1));
			CHECK(!rtr_sb_path_inactive(sh, 8, (unsigned int)path, now));
			CHECK_EQ(cs[RTR_LBC_sb_all_inactive] - before[RTR_LBC_sb_all_inactive], 0);
			CHECK_EQ(cs[RTR_LBC_sb_rehashes] - before[RTR_LBC_sb_rehashes], 1);
			found++;
		}
		CHECK_EQ(found, 5);
		for (unsigned int n = 2; n <= 64; n *= 2)
			for (uint32_t h1 = 0; h1 < 1000; h1++)
				CHECK_EQ(t_step(h1 * 2654435761u, n), t_h2(h1 * 2654435761u) % n);
	}
	/* The fallback's first choice down: ECMP over the live paths. */
	{
		struct flow f = flow4(7, 7, 777);
		uint32_t h1 = hash_of(&f);
		uint64_t live = all_live(8) & ~(1ULL << (h1 % 8));
		int path;

		now += PHI + 1;
		set_group(9, 8, all_live(8));
		mark_paths(sb, 9, all_live(8), now);
		set_group(9, 8, live);
		path = send_pkt(sb, 9, &f, now, cs);
		CHECK_EQ(path, expect_choice(h1, 8, live, all_live(8)).path);
		CHECK(path != (int)(h1 % 8));
		CHECK_EQ(path, rtr_group_pick(&GR[9], h1));
		set_group(9, 8, all_live(8));
	}
	rtr_sb_free(sb);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 3b. every path reachable */

/*
 * For every group size 1..64 and many hashes, the probe sequence of a new
 * sub-flow reaches every path: with all paths but one (q) inactive, each
 * new sub-flow must find q, and none may count sb_all_inactive. A stride
 * sharing a factor with n (or 0) would skip q for a share of the hashes.
 */
static void
test_probe_all_paths(void)
{
	struct rtr_pm *sh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = N_GROUPS});
	struct rtr_sb_params p = def_params(sh, 0);
	const unsigned int gi = 10, per_q = 8;
	unsigned int flows = 0, missed = 0, all = 0, sizes_missed = 0, sport = 0;
	uint64_t now = T0;
	struct rtr_sb *sb;

	printf("3b. the probe sequence reaches every path, n = 1..64\n");
	zero_counters();
	p.flow_entries = 1 << 16;
	sb = mk_inst(&p, &src_sink);
	for (unsigned int n = 1; n <= 64; n++) {
		unsigned int missed_n = 0, all_n = 0;

		/* The flows of the size before may all be evicted (aged): no
		 * bucket of the table fills up. */
		now += rtr_sb_aging_ns(&p) + 1;
		set_group(gi, n, all_live(n));
		for (unsigned int q = 0; q < n; q++) {
			uint64_t before = cs[RTR_LBC_sb_all_inactive];

			now += PHI + 1; /* the marks of the round before have expired */
			mark_paths(sb, gi, all_live(n) & ~(1ULL << q), now);
			for (unsigned int k = 0; k < per_q; k++) {
				struct flow f = flow4((uint8_t)(1 + sport % 250),
						(uint8_t)(sport / 250), (uint16_t)(10000 + sport));
				int path;

				sport++;
				path = send_pkt(sb, gi, &f, now, cs);
				missed_n += path != (int)q;
				flows++;
			}
			all_n += (unsigned int)(cs[RTR_LBC_sb_all_inactive] - before);
		}
		if (missed_n || all_n)
			printf("   n %2u: %u of %u new sub-flows missed the one free path, "
			       "%u counted sb_all_inactive\n",
					n, missed_n, n * per_q, all_n);
		CHECK(missed_n == 0, "n %u: %u sub-flows missed the free path", n, missed_n);
		CHECK(all_n == 0, "n %u: %u sub-flows counted all inactive", n, all_n);
		missed += missed_n;
		all += all_n;
		sizes_missed += missed_n != 0;
	}
	printf("   %u new sub-flows over n = 1..64: %u missed the one free path "
	       "(%u group sizes), %u counted sb_all_inactive\n",
			flows, missed, sizes_missed, all);
	CHECK_EQ(cs[RTR_LBC_sb_subflows], flows);
	CHECK_EQ(cs[RTR_LBC_flow_table_full], 0);
	set_group(gi, 4, 0xf);
	rtr_sb_free(sb);
	rtr_pm_free(sh);
}

/*
 * The scenario: 3, 5, 6 and 12 uplinks, one Congestion Packet marks
 * path 1 inactive (phi 1 s), then 300 new sub-flows. None may start on the
 * inactive path, none may count sb_all_inactive (the other paths are free).
 */
static void
test_one_inactive(void)
{
	const unsigned int sizes[] = {3, 5, 6, 12};
	struct rtr_pm *sh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = N_GROUPS});
	struct rtr_sb_params p = def_params(sh, 0);
	const uint64_t now = T0 + 1000;
	struct rtr_sb *sb;

	printf("3c. one path inactive, 300 new sub-flows (3, 5, 6, 12 uplinks)\n");
	zero_counters();
	p.phi_ns = 1000000000ULL;
	p.flow_entries = 1 << 16;
	sb = mk_inst(&p, &src_sink);
	for (unsigned int si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		unsigned int n = sizes[si], gi = 11 + si, on_inactive = 0, rehashed = 0;
		uint64_t before[RTR_LBC_MAX];

		set_group(gi, n, all_live(n));
		mark_paths(sb, gi, 1ULL << 1, now);
		CHECK(rtr_sb_path_inactive(sh, gi, 1, now + 500));
		memcpy(before, cs, sizeof(before));
		for (unsigned int t = 0; t < 300; t++) {
			struct flow f = flow6(
					(uint8_t)t, (uint8_t)(40 + si), (uint16_t)(40000 + t));
			int path = send_pkt(sb, gi, &f, now + 500 + t, cs);

			on_inactive += path == 1;
			rehashed += hash_of(&f) % n == 1;
		}
		printf("   %2u uplinks: %u of 300 new sub-flows started on the inactive path, "
		       "%u counted sb_all_inactive (%u had it as first choice)\n",
				n, on_inactive,
				(unsigned int)(cs[RTR_LBC_sb_all_inactive] -
						before[RTR_LBC_sb_all_inactive]),
				rehashed);
		CHECK_EQ(on_inactive, 0);
		CHECK_EQ(cs[RTR_LBC_sb_all_inactive] - before[RTR_LBC_sb_all_inactive], 0);
		CHECK_EQ(cs[RTR_LBC_sb_rehashes] - before[RTR_LBC_sb_rehashes], rehashed);
		CHECK_EQ(cs[RTR_LBC_sb_subflows] - before[RTR_LBC_sb_subflows], 300);
		CHECK(rehashed > 0);
		/* Then every path but 0: 300 more new sub-flows must all find
		 * path 0 (an even n never repeats a candidate at i = 1, so one
		 * inactive path cannot show a short sequence there; this can). */
		mark_paths(sb, gi, all_live(n) & ~1ULL, now + 1000);
		memcpy(before, cs, sizeof(before));
		on_inactive = 0;
		for (unsigned int t = 0; t < 300; t++) {
			struct flow f = flow6(
					(uint8_t)t, (uint8_t)(40 + si), (uint16_t)(41000 + t));

			on_inactive += send_pkt(sb, gi, &f, now + 1500 + t, cs) != 0;
		}
		printf("   %2u uplinks, all but path 0 inactive: %u of 300 new sub-flows started "
		       "on an inactive path, %u counted sb_all_inactive\n",
				n, on_inactive,
				(unsigned int)(cs[RTR_LBC_sb_all_inactive] -
						before[RTR_LBC_sb_all_inactive]));
		CHECK_EQ(on_inactive, 0);
		CHECK_EQ(cs[RTR_LBC_sb_all_inactive] - before[RTR_LBC_sb_all_inactive], 0);
	}
	CHECK_EQ(cs[RTR_LBC_flow_table_full], 0);
	rtr_sb_free(sb);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 4. sub-flows */

static void
test_subflows(void)
{
	struct rtr_pm *sh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = N_GROUPS});
	struct rtr_sb_params p = def_params(sh, 0);
	struct rtr_sb *sb = mk_inst(&p, &src_sink);
	struct flow f = flow4(3, 4, 40000);
	uint64_t t;
	int p0, p1, q;

	printf("4. sub-flows: stickiness, idle expiry, live mask\n");
	zero_counters();
	set_group(0, 4, 0xf);
	/* Stickiness: the path turns inactive, the sub-flow keeps it. */
	p0 = send_pkt(sb, 0, &f, T0, cs);
	CHECK_EQ(p0, expect_choice(hash_of(&f), 4, 0xf, 0).path);
	congest(sb, &f, (unsigned int)p0, T0 + 10, cs);
	CHECK(rtr_sb_path_inactive(sh, 0, (unsigned int)p0, T0 + 10));
	for (t = T0 + 100; t < T0 + 100 + 20 * 1000; t += 1000)
		CHECK_EQ(send_pkt(sb, 0, &f, t, cs), p0);
	CHECK_EQ(cs[RTR_LBC_sb_subflows], 1);
	CHECK_EQ(cs[RTR_LBC_sb_tagged], 21);
	/* Idle exactly subflow_idle: still the same sub-flow (the path is
	 * kept although it is inactive again). */
	t = T0 + 100 + 19 * 1000; /* the last packet */
	congest(sb, &f, (unsigned int)p0, t + IDLE - 5, cs);
	CHECK_EQ(send_pkt(sb, 0, &f, t + IDLE, cs), p0);
	CHECK_EQ(cs[RTR_LBC_sb_subflows], 1);
	t += IDLE;
	/* Idle subflow_idle + 1: a new sub-flow, off the inactive path. */
	congest(sb, &f, (unsigned int)p0, t + IDLE - 5, cs);
	p1 = send_pkt(sb, 0, &f, t + IDLE + 1, cs);
	CHECK_EQ(cs[RTR_LBC_sb_subflows], 2);
	CHECK(p1 != p0);
	CHECK_EQ(p1, expect_choice(hash_of(&f), 4, 0xf, 1ULL << p0).path);
	CHECK_EQ(cs[RTR_LBC_sb_rehashes], expect_choice(hash_of(&f), 4, 0xf, 0).path == p0);
	t += IDLE + 1;
	/* The old path frees up: the sub-flow stays where it is. */
	CHECK_EQ(send_pkt(sb, 0, &f, t + PHI + 100, cs), p1);
	t += PHI + 100;
	/* Its path goes down: moved at once (a reroute, a new choice). */
	set_group(0, 4, 0xf & ~(1ULL << p1));
	q = send_pkt(sb, 0, &f, t + 10, cs);
	CHECK_EQ(q, expect_choice(hash_of(&f), 4, 0xf & ~(1ULL << p1), 0).path);
	CHECK(q != p1);
	CHECK_EQ(cs[RTR_LBC_reroutes], 1);
	CHECK_EQ(cs[RTR_LBC_sb_subflows], 3);
	/* It comes back: no move back. */
	set_group(0, 4, 0xf);
	CHECK_EQ(send_pkt(sb, 0, &f, t + 20, cs), q);
	CHECK_EQ(cs[RTR_LBC_reroutes], 1);
	/* The route moves the flow to another group: a new choice there. */
	set_group(1, 8, 0xff);
	p0 = send_pkt(sb, 1, &f, t + 30, cs);
	CHECK_EQ(p0, expect_choice(hash_of(&f), 8, 0xff, 0).path);
	CHECK_EQ(cs[RTR_LBC_sb_subflows], 4);
	CHECK_EQ(cs[RTR_LBC_reroutes], 2);
	CHECK_EQ(send_pkt(sb, 1, &f, t + 40, cs), p0);
	CHECK_EQ(cs[RTR_LBC_sb_subflows], 4);
	/* A Congestion Packet now marks group 1 (the sub-flow's). */
	congest(sb, &f, 5, t + 50, cs);
	CHECK(rtr_sb_path_inactive(sh, 1, 5, t + 50));
	CHECK(!rtr_sb_path_inactive(sh, 0, 5, t + 50));
	/* A first choice that is down is skipped like an inactive one. */
	{
		struct flow g = flow4(9, 9, 999);
		uint32_t h1 = hash_of(&g);
		uint64_t live = 0xf & ~(1ULL << (h1 % 4));
		uint64_t before = cs[RTR_LBC_sb_rehashes];

		set_group(0, 4, live);
		q = send_pkt(sb, 0, &g, t + 60, cs);
		CHECK(q != (int)(h1 % 4));
		CHECK_EQ(q, expect_choice(h1, 4, live, 0).path);
		CHECK_EQ(cs[RTR_LBC_sb_rehashes] - before, 1);
		CHECK_EQ(cs[RTR_LBC_sb_all_inactive], 0);
		set_group(0, 4, 0xf);
	}
	rtr_sb_free(sb);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 5. phi */

static void
test_phi(void)
{
	struct rtr_pm *sh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = N_GROUPS});
	struct rtr_sb_params p = def_params(sh, 0);
	struct rtr_sb *sb = mk_inst(&p, &src_sink);
	struct flow fm = marker(0);
	const uint64_t T = T0 + 5000;
	unsigned int found = 0;

	printf("5. phi: expiry and refresh\n");
	zero_counters();
	set_group(0, 4, 0xf);
	send_pkt(sb, 0, &fm, T, cs);
	congest(sb, &fm, 2, T, cs);
	CHECK_EQ(cs[RTR_LBC_notifies_rx], 1);
	CHECK_EQ(cs[RTR_LBC_busy_paths], 1);
	CHECK(!rtr_sb_path_inactive(sh, 0, 3, T));
	CHECK(rtr_sb_path_inactive(sh, 0, 2, T));
	CHECK(rtr_sb_path_inactive(sh, 0, 2, T + PHI - 1));
	CHECK(!rtr_sb_path_inactive(sh, 0, 2, T + PHI));
	CHECK(!rtr_sb_path_inactive(sh, 0, 1, T));
	CHECK(!rtr_sb_path_inactive(sh, 1, 2, T));
	CHECK(!rtr_sb_path_inactive(sh, N_GROUPS, 2, T));
	CHECK(!rtr_sb_path_inactive(NULL, 0, 2, T));
	/* New sub-flows whose first choice is 2: at T + phi - 1 they avoid
	 * it, at T + phi they take it. */
	for (unsigned int t = 0; t < 400 && found < 4; t++) {
		struct flow a = flow4((uint8_t)t, 1, (uint16_t)(30000 + t));
		struct flow b = flow4((uint8_t)t, 1, (uint16_t)(30000 + t));
		uint32_t h1 = hash_of(&a);
		int pa, pb;

		if (h1 % 4 != 2)
			continue;
		b.dst[2] = 1; /* another flow, same first choice wanted */
		if (hash_of(&b) % 4 != 2)
			continue;
		pa = send_pkt(sb, 0, &a, T + PHI - 1, cs);
		CHECK(pa != 2);
		CHECK_EQ(pa, expect_choice(h1, 4, 0xf, 1 << 2).path);
		pb = send_pkt(sb, 0, &b, T + PHI, cs);
		CHECK_EQ(pb, 2);
		found++;
	}
	CHECK_EQ(found, 4);
	/* Refresh: each Congestion Packet restarts phi. */
	congest(sb, &fm, 3, T + 1000, cs);
	congest(sb, &fm, 3, T + 1000 + PHI - 1, cs); /* while still inactive */
	CHECK(rtr_sb_path_inactive(sh, 0, 3, T + 1000 + PHI));
	CHECK(rtr_sb_path_inactive(sh, 0, 3, T + 1000 + 2 * PHI - 2));
	CHECK(!rtr_sb_path_inactive(sh, 0, 3, T + 1000 + 2 * PHI - 1));
	CHECK(!rtr_sb_path_inactive(sh, 0, 3, T + 1000 + 5 * PHI));
	congest(sb, &fm, 3, T + 1000 + 5 * PHI, cs); /* long after */
	CHECK(rtr_sb_path_inactive(sh, 0, 3, T + 1000 + 5 * PHI));
	CHECK(rtr_sb_path_inactive(sh, 0, 3, T + 1000 + 6 * PHI - 1));
	CHECK(!rtr_sb_path_inactive(sh, 0, 3, T + 1000 + 6 * PHI));
	CHECK_EQ(cs[RTR_LBC_notifies_rx], 4);
	CHECK_EQ(cs[RTR_LBC_busy_paths], 4);
	rtr_sb_free(sb);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 6. SrcToR control_rx */

static void
test_control_rx(void)
{
	struct rtr_pm *sh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = 4});
	struct rtr_sb_params p = def_params(sh, 0);
	struct rtr_sb *sb = mk_inst(&p, &src_sink);
	struct flow f = flow6(5, 6, 12345), g = flow6(5, 7, 12345);
	struct rte_mbuf *m;

	printf("6. SrcToR: Congestion Packets\n");
	zero_counters();
	set_group(0, 4, 0xf);
	set_group(5, 4, 0xf);
	/* No sub-flow: counted, nothing marked. */
	congest(sb, &f, 1, T0, cs);
	CHECK_EQ(cs[RTR_LBC_ctrl_no_flow], 1);
	CHECK_EQ(cs[RTR_LBC_notifies_rx], 1);
	CHECK_EQ(cs[RTR_LBC_busy_paths], 0);
	CHECK(!rtr_sb_path_inactive(sh, 0, 1, T0));
	send_pkt(sb, 0, &f, T0 + 10, cs);
	/* The reverse key: a packet for another flow of the same host (or
	 * the flow's own direction) finds nothing. */
	congest(sb, &g, 1, T0 + 20, cs);
	CHECK_EQ(cs[RTR_LBC_ctrl_no_flow], 2);
	{
		struct flow r = f; /* the Congestion Packet of the reverse flow */

		memcpy(r.src, f.dst, 16);
		memcpy(r.dst, f.src, 16);
		congest(sb, &r, 1, T0 + 20, cs);
		CHECK_EQ(cs[RTR_LBC_ctrl_no_flow], 3);
	}
	CHECK(!rtr_sb_path_inactive(sh, 0, 1, T0 + 20));
	/* cw_op 2 (a ConWeave REPLY): ignored. */
	m = mk_cp(&f, 1, RTR_LB_OP_REPLY << 5);
	CHECK(rtr_meta_lb_control(rtr_meta(m)));
	rtr_sb_control_rx(sb, m, rtr_meta(m), T0 + 30, LB_ST(cs));
	fake_free(m);
	CHECK_EQ(cs[RTR_LBC_ctrl_no_flow], 4);
	CHECK_EQ(cs[RTR_LBC_notifies_rx], 3);
	CHECK(!rtr_sb_path_inactive(sh, 0, 1, T0 + 30));
	/* A tag beyond the group's paths: no mark. */
	congest(sb, &f, 4, T0 + 40, cs);
	congest(sb, &f, 63, T0 + 40, cs);
	congest(sb, &f, 255, T0 + 40, cs);
	CHECK_EQ(cs[RTR_LBC_busy_paths], 0);
	CHECK_EQ(cs[RTR_LBC_notifies_rx], 6);
	for (unsigned int q = 0; q < 64; q++)
		CHECK(!rtr_sb_path_inactive(sh, 0, q, T0 + 40));
	/* The real one. */
	congest(sb, &f, 3, T0 + 50, cs);
	CHECK_EQ(cs[RTR_LBC_busy_paths], 1);
	CHECK(rtr_sb_path_inactive(sh, 0, 3, T0 + 50));
	/* A group beyond the shared table: picks work (nothing is ever
	 * inactive there), nothing is marked. */
	{
		struct flow h = flow6(8, 8, 888);
		int q = send_pkt(sb, 5, &h, T0 + 60, cs);

		CHECK_EQ(q, expect_choice(hash_of(&h), 4, 0xf, 0).path);
		congest(sb, &h, 1, T0 + 70, cs);
		CHECK_EQ(cs[RTR_LBC_busy_paths], 1);
		CHECK(!rtr_sb_path_inactive(sh, 5, 1, T0 + 70));
	}
	/* Congestion Packets do not touch the sub-flow's clock. */
	{
		struct flow h = flow4(8, 9, 889);
		int q = send_pkt(sb, 0, &h, T0, cs);

		congest(sb, &h, (unsigned int)q, T0 + IDLE, cs);
		congest(sb, &h, (unsigned int)q, T0 + IDLE + 1, cs);
		/* idle since T0: a new sub-flow, off q */
		CHECK(send_pkt(sb, 0, &h, T0 + IDLE + 2, cs) != q);
	}
	rtr_sb_free(sb);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 6b. inactive per destination ToR */

/*
 * One aggregate route (10.0.0.0/8 and fd00::/16 over the 4 uplinks, as
 * conf/tor-100g.yaml routes the fabric) carries the sub-flows to two ToRs:
 * X (10.2.0.0/24, fd00:2::/64) and Y (10.3.0.0/24, fd00:3::/64). A
 * Congestion Packet answering a sub-flow to X says that the path toward X
 * is congested: new sub-flows to X must avoid it, those to Y must not
 * notice it (no rehash). Through the ops table and a config read as the
 * router reads it (default dst_prefix_len 24 / 64).
 */
static const char AGG_CFG[] = TEST_AGG_CFG(
		"seqbalance", "seqbalance: {phi_us: 1000000, flow_table_size: 65536}\n");

#define AGG_N 400 /* new sub-flows per destination ToR and family */

/* A flow from host 10.1.0.h / fd00:1::h to host 5 of ToR tor. */
static struct flow
agg_flow(bool v6, uint8_t tor, uint8_t h, uint16_t sport)
{
	struct flow f;

	memset(&f, 0, sizeof(f));
	f.v6 = v6;
	test_agg_addrs(v6, tor, h, f.src, f.dst);
	f.sport = sport;
	return f;
}

static void
test_inactive_per_dst(void)
{
	const struct rtr_lb_ops *ops = &rtr_lb_seqbalance;
	struct rtr_lcore_stats *st = aligned_alloc(64, sizeof(*st));
	const uint64_t T = T0 + 7000000;
	struct rtr_group grp[2];
	struct rtr_config cfg;
	struct rtr_lb_init in;
	void *sh, *state;
	char err[256];

	printf("6b. Congestion Packet for ToR X, one aggregate route: inactive toward X only\n");
	memset(&cfg, 0, sizeof(cfg));
	CHECK(rtr_config_load_buf("agg.yaml", "yaml", AGG_CFG, strlen(AGG_CFG), &cfg, err,
			      sizeof(err)) == 0,
			"%s", err);
	memset(st, 0, sizeof(*st));
	memset(grp, 0, sizeof(grp));
	for (unsigned int g = 0; g < 2; g++) {
		grp[g].n_paths = 4;
		atomic_store(&grp[g].live_mask, 0xf);
	}
	sh = ops->shared_create(&cfg, 2, false, 0);
	CHECK(sh != NULL);
	memset(&in, 0, sizeof(in));
	in.cfg = &cfg;
	in.n_workers = 1;
	in.n_groups = 2;
	in.host_port_mask = 0x1;
	in.hash_seed = SEED;
	in.shared = sh;
	in.io = (struct rtr_lb_io){NULL, io_control, io_alloc, &src_sink};
	sink_clear(&src_sink);
	state = ops->init(&in);
	CHECK(state != NULL);
	for (unsigned int v6 = 0; v6 < 2; v6++) {
		struct flow f = agg_flow(v6, 2, 1, 4000);
		struct rte_mbuf *m = mk_pkt(&f, 1, 4, 0, 0, 0x02, HOST, 0), *cp;
		unsigned int on1[2] = {0, 0}, first1[2] = {0, 0}, rehashed[2] = {0, 0};

		/* A sub-flow to X; X's DstToR answers it with a Congestion
		 * Packet for path 1 (addresses swapped: it comes from X). */
		CHECK(ops->pick(state, &grp[v6], v6, m, rtr_meta(m), T, st) >= 0);
		fake_free(m);
		cp = mk_cp(&f, 1, RTR_SB_CP_B8);
		ops->control_rx(state, cp, rtr_meta(cp), T + 10, st);
		fake_free(cp);
		CHECK_EQ(st->lb[RTR_LBC_busy_paths], v6 + 1);
		/* New sub-flows to Y, then to X. */
		for (unsigned int k = 0; k < 2; k++) {
			uint8_t tor = k == 0 ? 3 : 2;

			for (unsigned int i = 0; i < AGG_N; i++) {
				struct flow g = agg_flow(v6, tor, (uint8_t)(2 + i % 200),
						(uint16_t)(5000 + i));
				uint64_t before = st->lb[RTR_LBC_sb_rehashes];
				int path;

				m = mk_pkt(&g, 1, 4, 0, 0, 0x02, HOST, 0);
				path = ops->pick(state, &grp[v6], v6, m, rtr_meta(m), T + 20, st);
				fake_free(m);
				on1[k] += path == 1;
				first1[k] += hash_of(&g) % 4 == 1;
				rehashed[k] += (unsigned int)(st->lb[RTR_LBC_sb_rehashes] - before);
				/* Y: the first choice (h1 mod 4) whatever it is. */
				if (k == 0)
					CHECK_EQ(path, hash_of(&g) % 4);
			}
		}
		printf("   IPv%c: new sub-flows to Y moved off path 1 (rehashed): %u of %u with "
		       "it as first choice; to X: %u of %u; on path 1: Y %u, X %u\n",
				v6 ? '6' : '4', rehashed[0], first1[0], rehashed[1], first1[1],
				on1[0], on1[1]);
		CHECK_EQ(rehashed[0], 0);
		CHECK_EQ(on1[0], first1[0]);
		CHECK(first1[0] > AGG_N / 8);
		CHECK_EQ(rehashed[1], first1[1]);
		CHECK_EQ(on1[1], 0);
	}
	CHECK_EQ(st->lb[RTR_LBC_sb_all_inactive], 0);
	CHECK_EQ(st->lb[RTR_LBC_flow_table_full], 0);
	CHECK_EQ(st->lb[RTR_LBC_dst_slot_evictions], 0);
	/* 2^16 /24s under 10.0.0.0/8 share 256 slots: a ToR Z hashed to X's
	 * slot (found with a table of the same shape) takes it while X's mark
	 * is live: X's mark goes, counted. */
	{
		struct rtr_pm_group pg[2];
		struct rtr_pm_params pp = {.n_groups = 2,
				.groups = pg,
				.dst_prefix_len = 24,
				.dst_prefix_len6 = 64};
		struct flow x = agg_flow(false, 2, 1, 4000), z;
		struct rtr_pm *shape;
		struct rtr_pm_ref rx, rz;
		struct rte_mbuf *m, *cp;
		unsigned int i;

		CHECK_EQ(rtr_pm_groups_of(&cfg, pg, 2), 2);
		shape = rtr_pm_create(&pp);
		CHECK(shape != NULL && rtr_pm_ref(shape, 0, x.dst, false, &rx));
		for (i = 0; i < 65536; i++) {
			z = agg_flow(false, (uint8_t)(i >> 8), 1, 4001);
			z.dst[2] = (uint8_t)i;
			CHECK(rtr_pm_ref(shape, 0, z.dst, false, &rz));
			if (rz.word == rx.word && rz.tag != rx.tag)
				break;
		}
		CHECK(i < 65536);
		rtr_pm_free(shape);
		CHECK(rtr_sb_path_inactive_dst(sh, 0, x.dst, false, 1, T + 30));
		m = mk_pkt(&z, 1, 4, 0, 0, 0x02, HOST, 0);
		CHECK(ops->pick(state, &grp[0], 0, m, rtr_meta(m), T + 30, st) >= 0);
		fake_free(m);
		cp = mk_cp(&z, 2, RTR_SB_CP_B8);
		ops->control_rx(state, cp, rtr_meta(cp), T + 40, st);
		fake_free(cp);
		CHECK_EQ(st->lb[RTR_LBC_dst_slot_evictions], 1);
		CHECK(rtr_sb_path_inactive_dst(sh, 0, z.dst, false, 2, T + 50));
		CHECK(!rtr_sb_path_inactive_dst(sh, 0, z.dst, false, 1, T + 50));
		CHECK(!rtr_sb_path_inactive_dst(sh, 0, x.dst, false, 1, T + 50));
		CHECK(!rtr_sb_path_inactive_dst(sh, 0, x.dst, false, 2, T + 50));
		printf("   ToR %u.%u.%u.0/24 shares ToR X's slot: its Congestion Packet evicted "
		       "X's mark (dst_slot_evictions 1)\n",
				z.dst[0], z.dst[1], z.dst[2]);
	}
	sink_clear(&src_sink);
	ops->fini(state);
	ops->shared_free(sh);
	free(st);
	rtr_config_free(&cfg);
}

/* ------------------------------------------------------------ 7. DstToR */

static void
test_dst(void)
{
	struct rtr_sb_params p = def_params(NULL, 0);
	struct rtr_sb *sb = mk_inst(&p, &dst_sink);
	struct sink *s = &dst_sink;

	printf("7. DstToR: Congestion Packets and byte 4\n");
	zero_counters();
	for (int v = 0; v < 4; v++) {
		struct flow f = (v & 1) ? flow6(1, 2, 50000) : flow4(1, 2, 50000);
		unsigned int b;

		f.vlan = v >= 2;
		b = bth_off_of(&f);
		/* CE data, with a tag, AckReq and Resv7 bits. */
		for (unsigned int tag = 0; tag < 64; tag += 21) {
			uint8_t orig[512], exp[512];
			unsigned int n = host_frame(orig, &f, 500 + tag, 4, (uint8_t)tag,
					0x80 | 0x25, 0x1b, 4791);
			unsigned int en = expect_cp(
					exp, &f, 500 + tag, 4, 0x80 | 0x25, 0x1b, (uint8_t)tag);
			struct rte_mbuf *m = frame_mbuf(orig, n, RTR_LB_PARSE_CTRL, FABRIC);
			struct rte_mbuf *cp;
			struct rtr_meta cm;

			CHECK(rtr_meta_ce(rtr_meta(m)));
			CHECK(!(rtr_meta(m)->flags & RTR_MF_LB_HDR));
			CHECK_EQ(rtr_sb_deliver(sb, m, rtr_meta(m), 1, T0, LB_ST(cd)),
					RTR_SB_FORWARD);
			/* The data packet: byte 4 zero, nothing else changed. */
			CHECK_EQ(m->data_len, n);
			CHECK_EQ(mdata(m)[b + 4], 0);
			CHECK_EQ(rtr_meta(m)->bth_b4, 0);
			CHECK(memcmp(mdata(m), orig, b + 4) == 0);
			CHECK(memcmp(mdata(m) + b + 5, orig + b + 5, n - b - 5) == 0);
			fake_free(m);
			/* The Congestion Packet, byte for byte. */
			CHECK_EQ(s->nc, 1);
			if (s->nc != 1)
				continue;
			cp = s->cm[0];
			CHECK_EQ(cp->data_len, en);
			CHECK_EQ(cp->pkt_len, en);
			CHECK_EQ(en, l4_off_of(&f) + 8 + 12 + 4);
			CHECK(cp->data_len == en && memcmp(mdata(cp), exp, en) == 0,
					"v%d tag %u: Congestion Packet bytes", v, tag);
			/* As a fabric port parses it: a control packet, cw_op 3. */
			CHECK_EQ(rtr_parse(mdata(cp), cp->data_len, SEED, RTR_LB_PARSE_CTRL, &cm),
					RTR_DROP_NONE);
			CHECK(cm.flags & RTR_MF_LB_HDR);
			CHECK(cm.flags & RTR_MF_ROCE);
			CHECK(!rtr_meta_ce(&cm));
			CHECK(rtr_meta_lb_control(&cm));
			CHECK_EQ(rtr_lb_op(cm.bth_b8), 3);
			CHECK_EQ(cm.bth_b8, 3 << 5);
			CHECK_EQ(cm.bth_b4, tag);
			CHECK_EQ(cm.sport, 50000);
			CHECK_EQ(cm.dport, 4791);
			/* And as the pipeline's lb_control parses it. */
			CHECK_EQ(rtr_parse(mdata(cp), cp->data_len, SEED, RTR_LB_PARSE_HDR, &cm),
					RTR_DROP_NONE);
			CHECK(rtr_meta_lb_control(&cm));
			if (!f.v6)
				CHECK_EQ(ip_csum(mdata(cp) + l3_off_of(&f), 20), 0);
			sink_clear(s);
		}
		/* Not CE: nothing sent, byte 4 zeroed. ECT(0), ECT(1), not-ECT. */
		for (uint8_t ecn = 0; ecn < 3; ecn++) {
			uint8_t orig[512];
			unsigned int n = host_frame(orig, &f, 600, 4, 7, 0, 0x18 | ecn, 4791);
			struct rte_mbuf *m = frame_mbuf(orig, n, RTR_LB_PARSE_CTRL, FABRIC);

			CHECK(!rtr_meta_ce(rtr_meta(m)));
			CHECK_EQ(rtr_sb_deliver(sb, m, rtr_meta(m), 1, T0, LB_ST(cd)),
					RTR_SB_FORWARD);
			CHECK_EQ(s->nc, 0);
			CHECK_EQ(s->allocs, 0);
			CHECK_EQ(mdata(m)[b + 4], 0);
			CHECK(memcmp(mdata(m), orig, b + 4) == 0);
			CHECK(memcmp(mdata(m) + b + 5, orig + b + 5, n - b - 5) == 0);
			fake_free(m);
		}
		/* ACK and CNP with CE: nothing sent, byte 4 zeroed. */
		{
			const uint8_t ops[] = {RTR_BTH_OP_RC_ACK, RTR_BTH_OP_RC_ATOMIC_ACK,
					RTR_BTH_OP_CNP};

			for (unsigned int o = 0; o < sizeof(ops); o++) {
				uint8_t orig[512];
				unsigned int n =
						host_frame(orig, &f, 601, ops[o], 9, 0, 0x03, 4791);
				struct rte_mbuf *m;

				if (ops[o] == RTR_BTH_OP_RC_ATOMIC_ACK)
					n = host_frame(orig, &f, 601, RTR_BTH_OP_RC_ACK, 9, 0, 0x03,
							4791);
				m = frame_mbuf(orig, n, RTR_LB_PARSE_CTRL, FABRIC);
				if (ops[o] == RTR_BTH_OP_RC_ATOMIC_ACK)
					rtr_meta(m)->bth_opcode = RTR_BTH_OP_RC_ATOMIC_ACK;
				CHECK(rtr_meta_ce(rtr_meta(m)));
				CHECK_EQ(rtr_sb_deliver(sb, m, rtr_meta(m), 1, T0, LB_ST(cd)),
						RTR_SB_FORWARD);
				CHECK_EQ(s->nc, 0);
				CHECK_EQ(mdata(m)[b + 4], 0);
				CHECK(memcmp(mdata(m) + b + 5, orig + b + 5, n - b - 5) == 0);
				fake_free(m);
			}
		}
	}
	CHECK_EQ(cd[RTR_LBC_notifies], 4 * 4);
	/* No mbuf: counted, nothing sent, the packet still forwarded. */
	{
		struct flow f = flow4(1, 2, 50000);
		struct rte_mbuf *m = mk_pkt(&f, 1, 4, 5, 0, 0x03, FABRIC, RTR_LB_PARSE_CTRL);

		s->no_alloc = true;
		CHECK_EQ(rtr_sb_deliver(sb, m, rtr_meta(m), 1, T0, LB_ST(cd)), RTR_SB_FORWARD);
		CHECK_EQ(s->allocs, 1);
		CHECK_EQ(s->nc, 0);
		CHECK_EQ(cd[RTR_LBC_ctrl_alloc_failed], 1);
		CHECK_EQ(cd[RTR_LBC_notifies], 16);
		CHECK_EQ(mdata(m)[bth_off_of(&f) + 4], 0);
		fake_free(m);
		sink_clear(s);
	}
	/* A packet that parsed as a control packet (the pipeline consumes
	 * those before deliver) is never answered, CE or not. */
	{
		struct flow f = flow4(1, 2, 50000);
		struct rte_mbuf *m = mk_cp(&f, 2, RTR_SB_CP_B8);

		rtr_meta(m)->tos |= 3; /* CE */
		CHECK_EQ(rtr_sb_deliver(sb, m, rtr_meta(m), 1, T0, LB_ST(cd)), RTR_SB_FORWARD);
		CHECK_EQ(s->nc, 0);
		fake_free(m);
	}
	/* Not RoCE (deliver_flags keeps it away; harmless anyway). */
	{
		struct flow f = flow4(1, 2, 50000);
		uint8_t orig[512];
		unsigned int n = host_frame(orig, &f, 1, 4, 5, 0, 0x03, 4000);
		struct rte_mbuf *m = frame_mbuf(orig, n, RTR_LB_PARSE_CTRL, FABRIC);

		CHECK_EQ(rtr_sb_deliver(sb, m, rtr_meta(m), 1, T0, LB_ST(cd)), RTR_SB_FORWARD);
		CHECK(memcmp(mdata(m), orig, n) == 0);
		CHECK_EQ(s->nc, 0);
		fake_free(m);
	}
	CHECK_EQ(rtr_sb_next_deadline(sb), UINT64_MAX);
	rtr_sb_free(sb);
}

/* ------------------------------------------------------------ 8. two workers, gauge */

static void
test_shared(void)
{
	struct rtr_pm *sh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = N_GROUPS});
	struct rtr_sb_params p0 = def_params(sh, 0), p1 = def_params(sh, 1);
	struct rtr_sb *w0 = mk_inst(&p0, &src_sink), *w1 = mk_inst(&p1, &aux_sink);
	struct flow f = flow4(11, 12, 1111);
	unsigned int found = 0;

	printf("8. shared inactive table, two workers, gauge\n");
	zero_counters();
	set_group(0, 4, 0xf);
	set_group(3, 8, 0xff);
	/* Worker 1 owns flow f; its Congestion Packet marks path 2. */
	send_pkt(w1, 0, &f, T0, c1);
	congest(w1, &f, 2, T0 + 10, c1);
	CHECK_EQ(c1[RTR_LBC_busy_paths], 1);
	/* Worker 0 does not know f ... */
	congest(w0, &f, 1, T0 + 10, cs);
	CHECK_EQ(cs[RTR_LBC_ctrl_no_flow], 1);
	/* ... but its new sub-flows avoid path 2. */
	for (unsigned int t = 0; t < 400 && found < 8; t++) {
		struct flow a = flow4((uint8_t)t, 2, (uint16_t)(2000 + t));
		uint32_t h1 = hash_of(&a);

		if (h1 % 4 != 2)
			continue;
		CHECK_EQ(send_pkt(w0, 0, &a, T0 + 20, cs), expect_choice(h1, 4, 0xf, 4).path);
		found++;
	}
	CHECK_EQ(found, 8);
	CHECK(cs[RTR_LBC_sb_rehashes] == 8);
	/* Gauge: worker 0 sets it (assigned, not added), worker 1 never. */
	send_pkt(w1, 3, &f, T0 + 30, c1); /* f moves to group 3 */
	congest(w1, &f, 7, T0 + 40, c1);
	congest(w1, &f, 0, T0 + 40, c1);
	cs[RTR_LBC_sb_paths_inactive] = 1000;
	c1[RTR_LBC_sb_paths_inactive] = 0;
	rtr_sb_tick(w0, T0 + 40, LB_ST(cs));
	rtr_sb_tick(w1, T0 + 40, LB_ST(c1));
	CHECK_EQ(cs[RTR_LBC_sb_paths_inactive], 3);
	CHECK_EQ(c1[RTR_LBC_sb_paths_inactive], 0);
	rtr_sb_tick(w0, T0 + 40, LB_ST(cs));
	CHECK_EQ(cs[RTR_LBC_sb_paths_inactive], 3);
	rtr_sb_tick(w0, T0 + 10 + PHI - 1, LB_ST(cs)); /* group 0 path 2 still */
	CHECK_EQ(cs[RTR_LBC_sb_paths_inactive], 3);
	rtr_sb_tick(w0, T0 + 10 + PHI, LB_ST(cs));
	CHECK_EQ(cs[RTR_LBC_sb_paths_inactive], 2);
	rtr_sb_tick(w0, T0 + 40 + PHI, LB_ST(cs));
	CHECK_EQ(cs[RTR_LBC_sb_paths_inactive], 0);
	/* Marked again from worker 0's own flow. */
	{
		struct flow fm = marker(0);

		send_pkt(w0, 0, &fm, T0 + 100 * PHI, cs);
		congest(w0, &fm, 1, T0 + 100 * PHI + 10, cs);
	}
	rtr_sb_tick(w0, T0 + 100 * PHI + 10, LB_ST(cs));
	CHECK_EQ(cs[RTR_LBC_sb_paths_inactive], 1);
	CHECK(rtr_sb_path_inactive(sh, 0, 1, T0 + 100 * PHI + 10));
	rtr_sb_free(w0);
	rtr_sb_free(w1);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 9. flows, full table, aging */

struct seen {
	struct rtr_lb_flow_info fi[64];
	unsigned int n;
};

static void
collect(void *arg, const struct rtr_lb_flow_info *f)
{
	struct seen *s = arg;

	if (s->n < 64)
		s->fi[s->n] = *f;
	s->n++;
}

static void
test_flows_full_aging(void)
{
	struct rtr_pm *sh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = N_GROUPS});
	struct rtr_sb_params p = def_params(sh, 0);
	struct rtr_sb *sb;
	struct seen seen;
	struct flow f4 = flow4(21, 22, 2122), f6 = flow6(23, 24, 2324);
	int p4, p6;

	printf("9. flows(), full table, aging\n");
	zero_counters();
	set_group(0, 4, 0xf);
	CHECK_EQ(rtr_sb_aging_ns(&p), 100000000ULL);
	p.subflow_idle_ns = 50000000ULL;
	CHECK_EQ(rtr_sb_aging_ns(&p), 200000000ULL);
	p.subflow_idle_ns = IDLE;
	p.flow_entries = 8; /* one bucket of 8 ways */
	sb = mk_inst(&p, &src_sink);
	p4 = send_pkt(sb, 0, &f4, T0, cs);
	p6 = send_pkt(sb, 0, &f6, T0 + 1000, cs);
	memset(&seen, 0, sizeof(seen));
	CHECK_EQ(rtr_lb_fs_flows(sb, T0 + 5000, 0, collect, &seen), 2);
	CHECK_EQ(seen.n, 2);
	for (unsigned int i = 0; i < 2 && i < seen.n; i++) {
		const struct rtr_lb_flow_info *fi = &seen.fi[i];
		const struct flow *f = fi->v6 ? &f6 : &f4;

		CHECK(memcmp(fi->src, f->src, 16) == 0);
		CHECK(memcmp(fi->dst, f->dst, 16) == 0);
		CHECK_EQ(fi->sport, f->sport);
		CHECK_EQ(fi->path, fi->v6 ? p6 : p4);
		CHECK_EQ(fi->idle_ns, fi->v6 ? 4000 : 5000);
		CHECK(!fi->dst_role);
		CHECK_EQ(fi->reply_deadline_in_ns, UINT64_MAX);
		CHECK_EQ(fi->deadline_in_ns, UINT64_MAX);
		CHECK_EQ(fi->next_hop, RTR_LB_HOP_NONE);
		CHECK_EQ(fi->held, 0);
		CHECK_EQ(fi->epoch, 0);
	}
	CHECK(seen.fi[0].v6 != seen.fi[1].v6);
	memset(&seen, 0, sizeof(seen));
	CHECK_EQ(rtr_lb_fs_flows(sb, T0, 1, collect, &seen), 1);
	CHECK_EQ(seen.fi[0].idle_ns, 0); /* clock before last use: 0 */
	/* Fill the table: the ninth flow goes by ECMP, still tagged. */
	for (unsigned int i = 0; i < 6; i++) {
		struct flow g = flow4(30, (uint8_t)i, 3000);

		send_pkt(sb, 0, &g, T0 + 2000, cs);
	}
	CHECK_EQ(cs[RTR_LBC_sb_subflows], 8);
	CHECK_EQ(cs[RTR_LBC_flow_table_full], 0);
	{
		struct flow g = flow4(31, 1, 3100);
		uint32_t h1 = hash_of(&g);
		struct rte_mbuf *m = mk_host(&g, 1);
		int q;

		/* The first choice inactive: ECMP does not care. */
		congest(sb, &f4, h1 % 4, T0 + 2500, cs);
		q = rtr_sb_pick(sb, &GR[0], 0, m, rtr_meta(m), T0 + 3000, LB_ST(cs));
		CHECK_EQ(q, h1 % 4);
		CHECK_EQ(mdata(m)[bth_off_of(&g) + 4], q);
		CHECK_EQ(rtr_meta(m)->bth_b4, q);
		CHECK_EQ(cs[RTR_LBC_flow_table_full], 1);
		CHECK_EQ(cs[RTR_LBC_ecmp_packets], 1);
		CHECK_EQ(cs[RTR_LBC_sb_tagged], 9);
		CHECK_EQ(cs[RTR_LBC_sb_subflows], 8);
		fake_free(m);
		/* No entry, so its Congestion Packets find nothing. */
		congest(sb, &g, 1, T0 + 3000, cs);
		CHECK_EQ(cs[RTR_LBC_ctrl_no_flow], 1);
	}
	/* Aging: the sweep frees entries idle longer than 100 ms. */
	rtr_sb_tick(sb, T0 + 2000 + 100000000ULL, LB_ST(cs));
	memset(&seen, 0, sizeof(seen));
	CHECK_EQ(rtr_lb_fs_flows(sb, T0, 0, collect, &seen), 6); /* f4, f6 gone */
	congest(sb, &f4, 1, T0 + 2000 + 100000000ULL, cs);
	CHECK_EQ(cs[RTR_LBC_ctrl_no_flow], 2);
	rtr_sb_tick(sb, T0 + 2001 + 100000000ULL, LB_ST(cs));
	CHECK_EQ(rtr_lb_fs_flows(sb, T0, 0, collect, &seen), 0);
	/* Room again. */
	send_pkt(sb, 0, &f4, T0 + 2002 + 100000000ULL, cs);
	CHECK_EQ(cs[RTR_LBC_sb_subflows], 9);
	rtr_sb_free(sb);
	/* Bad parameters, NULLs. */
	p.flow_entries = 0;
	CHECK(rtr_sb_create(&p, &(struct rtr_lb_io){.control = io_control,
						.alloc = io_alloc,
						.arg = &src_sink}) == NULL);
	rtr_sb_free(NULL);
	rtr_pm_free(NULL);
	rtr_pm_free(sh);
	/* A shared table for zero groups: nothing is ever inactive. */
	sh = rtr_pm_create(&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = 0});
	CHECK(sh != NULL);
	CHECK(!rtr_sb_path_inactive(sh, 0, 0, T0));
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 10. end to end */

/* The fabric: the SrcToR's tagged packet, CE-marked when it took a
 * congested path, parsed as the DstToR's fabric port does. */
static void
fabric(struct rte_mbuf *m, const struct flow *f, bool ce)
{
	uint8_t *l3 = mdata(m) + l3_off_of(f);

	if (ce) {
		if (!f->v6) {
			l3[1] |= 3;
			fix_ip4_csum(l3);
		} else {
			l3[1] |= 0x30;
		}
	}
	CHECK_EQ(reparse(m, RTR_LB_PARSE_CTRL), RTR_DROP_NONE);
	CHECK_EQ(!!rtr_meta_ce(rtr_meta(m)), ce);
	rtr_meta(m)->in_port = FABRIC;
}

/* Congestion Packets on their way back to the SrcToR. */
struct in_flight {
	struct rte_mbuf *m[4096];
	uint64_t at[4096];
	unsigned int head, n;
};

/* Hand the SrcToR every Congestion Packet that has arrived by now. */
static unsigned int
arrive(struct in_flight *q, struct rtr_sb *src, uint64_t now, uint64_t *last)
{
	unsigned int got = 0;

	while (q->head < q->n && q->at[q->head] <= now) {
		struct rte_mbuf *cp = q->m[q->head];

		CHECK_EQ(reparse(cp, RTR_LB_PARSE_CTRL), RTR_DROP_NONE);
		CHECK(rtr_meta_lb_control(rtr_meta(cp)));
		CHECK_EQ(rtr_meta(cp)->bth_b4, 1);
		rtr_sb_control_rx(src, cp, rtr_meta(cp), q->at[q->head], LB_ST(cs));
		*last = q->at[q->head];
		fake_free(cp);
		q->head++;
		got++;
	}
	return got;
}

static void
test_e2e(void)
{
	struct rtr_pm *ssh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = N_GROUPS});
	struct rtr_pm *dsh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = N_GROUPS});
	struct rtr_sb_params sp = def_params(ssh, 0), dp = def_params(dsh, 0);
	struct rtr_sb *src = mk_inst(&sp, &src_sink), *dst = mk_inst(&dp, &dst_sink);
	static struct in_flight q;
	const unsigned int NF = 64, RTT = 3000;
	unsigned int on1 = 0, on1_late = 0, cps = 0, after_on1 = 0, on1_pkts = 0;
	uint64_t now = T0, last_cp = 0;
	int paths[64];

	printf("10. end to end: SrcToR -> fabric (path 1 congested) -> DstToR -> SrcToR\n");
	zero_counters();
	memset(&q, 0, sizeof(q));
	set_group(2, 4, 0xf);
	/*
	 * Phase 0: NF flows send a packet each, 4 rounds, 100 ns apart;
	 * the fabric CE-marks whatever takes path 1; the DstToR's Congestion
	 * Packets reach the SrcToR one RTT later. Phase 1: new flows while
	 * path 1 is inactive. Phase 2: new flows once phi has passed.
	 */
	for (unsigned int ph = 0; ph < 3; ph++) {
		for (unsigned int k = 0; k < 4; k++) {
			for (unsigned int i = 0; i < NF; i++) {
				struct flow f = (i & 1) ? flow6((uint8_t)i, 1,
									  (uint16_t)(5000 +
											  ph * 100 +
											  i))
							: flow4((uint8_t)i, 1,
									  (uint16_t)(5000 +
											  ph * 100 +
											  i));
				uint8_t orig[512];
				unsigned int n = host_frame(orig, &f, 10 + k, 4, 0, 0, 0x02, 4791);
				struct rte_mbuf *m = frame_mbuf(orig, n, 0, HOST);
				unsigned int b = bth_off_of(&f);
				int path;

				arrive(&q, src, now, &last_cp);
				path = rtr_sb_pick(src, &GR[2], 2, m, rtr_meta(m), now, LB_ST(cs));
				CHECK(path >= 0 && path < 4);
				if (k == 0) {
					paths[i] = path;
					if (ph == 0 && path == 1) {
						on1++;
						if (last_cp != 0)
							on1_late++;
					}
					if (ph == 2 && path == 1)
						after_on1++;
				}
				/* A sub-flow keeps its path, congested or not. */
				CHECK_EQ(path, paths[i]);
				if (ph == 1)
					CHECK(path != 1, "flow %u took the inactive path", i);
				if (path == 1 && ph == 0)
					on1_pkts++;
				fabric(m, &f, path == 1 && ph == 0);
				CHECK_EQ(rtr_meta(m)->bth_b4, path);
				CHECK_EQ(rtr_sb_deliver(dst, m, rtr_meta(m), 1, now, LB_ST(cd)),
						RTR_SB_FORWARD);
				/* The host gets what was sent, but for ECN. */
				CHECK_EQ(m->data_len, n);
				CHECK_EQ(mdata(m)[b + 4], 0);
				CHECK(memcmp(mdata(m) + b, orig + b, n - b) == 0);
				fake_free(m);
				for (unsigned int j = 0; j < dst_sink.nc; j++) {
					q.m[q.n] = dst_sink.cm[j];
					q.at[q.n] = now + RTT;
					q.n++;
					cps++;
				}
				dst_sink.nc = 0;
				now += 100;
			}
		}
		if (ph == 0) {
			/* Everything sent is back. */
			now += RTT;
			arrive(&q, src, now, &last_cp);
			CHECK_EQ(q.head, q.n);
			CHECK(on1 > 1);
			CHECK_EQ(on1_late, 0); /* once one came back, nobody new took it */
			CHECK_EQ(cps, on1_pkts);
			CHECK_EQ(cps, 4 * on1);
			CHECK_EQ(cs[RTR_LBC_busy_paths], cps);
			CHECK_EQ(cs[RTR_LBC_notifies_rx], cps);
			CHECK_EQ(cd[RTR_LBC_notifies], cps);
			CHECK(last_cp > T0 && last_cp <= now);
			CHECK(rtr_sb_path_inactive(ssh, 2, 1, now));
			/* The last one set the deadline. */
			CHECK(rtr_sb_path_inactive(ssh, 2, 1, last_cp + PHI - 1));
			CHECK(!rtr_sb_path_inactive(ssh, 2, 1, last_cp + PHI));
		} else if (ph == 1) {
			CHECK(now < last_cp + PHI);
			CHECK_EQ(q.n, cps); /* no CE, no more Congestion Packets */
			now = last_cp + PHI;
		}
	}
	printf("   %u of %u flows took path 1 before the first Congestion Packet came back "
	       "and sent %u Congestion Packets;\n   none took it while inactive, "
	       "%u new flows took it after phi\n",
			on1, NF, cps, after_on1);
	CHECK(after_on1 > 0);
	CHECK_EQ(cs[RTR_LBC_sb_subflows], 3 * NF);
	CHECK_EQ(cs[RTR_LBC_sb_tagged], 3 * NF * 4);
	CHECK_EQ(cs[RTR_LBC_ctrl_no_flow], 0);
	/* The DstToR's shared table never changed. */
	for (unsigned int p = 0; p < 4; p++)
		CHECK(!rtr_sb_path_inactive(dsh, 2, p, T0));
	rtr_sb_free(src);
	rtr_sb_free(dst);
	rtr_pm_free(ssh);
	rtr_pm_free(dsh);
}

/* ------------------------------------------------------------ resilient fallback */

/*
 * ALGORITHMS.md 1, resilient groups: with every path inactive a new
 * sub-flow takes h1's ECMP path, and that path follows the group's resilient
 * table when h1's first choice is down. So a second path going down changes
 * nothing for the new sub-flows whose path stayed up (with "the k-th live
 * path", most of those whose first choice was the first down path moved: a
 * new sub-flow may start anywhere in SeqBalance, but the fallback is the
 * group's ECMP and must follow the same rule).
 */
static void
test_resilient_fallback(void)
{
	struct rtr_pm *sh = rtr_pm_create(
			&(struct rtr_pm_params){.name = "sb_inactive", .n_groups = N_GROUPS});
	struct rtr_sb_params p = def_params(sh, 0);
	struct rtr_sb *sb = mk_inst(&p, &src_sink);
	const unsigned int gi = 11, nf = 400;
	const uint64_t all = all_live(8), live1 = all & ~(1ULL << 2), live2 = live1 & ~(1ULL << 5);
	struct rtr_group *g = &GR[gi];
	unsigned int moved = 0, on_live = 0, dead = 0, displaced = 0, not_ecmp = 0;
	uint64_t now = T0, before;
	static int first[400];

	printf("resilient fallback: 8 paths all inactive, path 2 then path 5 down\n");
	zero_counters();
	CHECK_EQ(rtr_group_init(g, 8), 0);
	rtr_group_set_live(g, live1);
	mark_paths(sb, gi, live1, now);
	before = cs[RTR_LBC_sb_all_inactive];
	for (unsigned int i = 0; i < nf; i++) {
		struct flow f = flow4((uint8_t)(i % 200 + 1), 9, (uint16_t)(30000 + i));

		first[i] = send_pkt(sb, gi, &f, now, cs);
		dead += first[i] < 0 || !((live1 >> first[i]) & 1);
	}
	CHECK_EQ(cs[RTR_LBC_sb_all_inactive] - before, nf);
	/* Later: the sub-flows have gone idle, path 5 is down, every live
	 * path is inactive again. */
	now += IDLE + 1;
	rtr_group_set_live(g, live2);
	mark_paths(sb, gi, live2, now);
	before = cs[RTR_LBC_sb_all_inactive];
	for (unsigned int i = 0; i < nf; i++) {
		struct flow f = flow4((uint8_t)(i % 200 + 1), 9, (uint16_t)(30000 + i));
		int path = send_pkt(sb, gi, &f, now, cs);

		dead += path < 0 || !((live2 >> path) & 1);
		not_ecmp += path != rtr_group_pick(g, hash_of(&f));
		if (first[i] == 5)
			continue;
		on_live++;
		displaced += hash_of(&f) % 8 == 2;
		moved += path != first[i];
	}
	CHECK_EQ(cs[RTR_LBC_sb_all_inactive] - before, nf);
	printf("   path 5 down: %u of %u new sub-flows whose path stayed up took another "
	       "(%u of them had path 2 first)\n",
			moved, on_live, displaced);
	CHECK_EQ(dead, 0);
	CHECK_EQ(not_ecmp, 0);
	CHECK(on_live > nf / 2);
	CHECK_EQ(moved, 0);
	rtr_group_fini(g);
	set_group(gi, 8, all);
	rtr_sb_free(sb);
	rtr_pm_free(sh);
}

int
main(void)
{
	rtr_meta_offset = (int)offsetof(struct rte_mbuf, dynfield1);
	CHECK_EQ(t_fmix(0xdeadbeef), rtr_hash_mix(0xdeadbeef));
	CHECK_EQ(RTR_SB_H2_SALT, 0x9e3779b9u);
	test_ecmp_rest();
	test_tag();
	test_double_hash();
	test_probe_all_paths();
	test_one_inactive();
	test_subflows();
	test_phi();
	test_control_rx();
	test_inactive_per_dst();
	test_dst();
	test_shared();
	test_flows_full_aging();
	test_e2e();
	test_resilient_fallback();
	sink_clear(&src_sink);
	sink_clear(&dst_sink);
	sink_clear(&aux_sink);
	CHECK_EQ(live_mbufs, 0);
	return rtr_test_done("seqbalance");
}
