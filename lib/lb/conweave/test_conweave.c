/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit tests of ConWeave (rtr_conweave, ALGORITHMS.md 2) and of the flow
 * table under it, without the EAL: fake mbufs from calloc, I/O callbacks that
 * record what they are given, a virtual clock.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "rtr_config.h"
#include "rtr_conweave.h"
#include "rtr_lb_fs.h"
#include "rtr_pathmark.h"
#include "rtr_egress.h"
#include "rtr_flowtab.h"
#include "rtr_lb.h"
#include "rtr_mbuf.h"
#include "rtr_parse.h"
#include "rtr_route.h"
#include "rtr_stats.h"
#include "rtr_test.h"
#include "test_lb_stats.h"
#include "test_agg_cfg.h"
#include "rtr_test_mbuf.h"

#define SEED    0x1234abcdu
#define PAYLOAD 64
#define MAXREC  65536

/* ------------------------------------------------------------ fakes */

/* What an instance gave its callbacks, in order. */
struct sink {
	struct rte_mbuf *dm[MAXREC];
	uint16_t dport[MAXREC];
	bool dheld[MAXREC];
	unsigned int nd;
	struct rte_mbuf *cm[MAXREC];
	unsigned int nc;
	unsigned int allocs;
	bool no_alloc; /* io.alloc fails */
};

static void
io_deliver(void *arg, struct rte_mbuf *m, uint16_t port, bool held)
{
	struct sink *s = arg;

	if (s->nd < MAXREC) {
		s->dm[s->nd] = m;
		s->dport[s->nd] = port;
		s->dheld[s->nd] = held;
		s->nd++;
	} else {
		fake_free(m);
	}
}

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
	for (unsigned int i = 0; i < s->nd; i++)
		fake_free(s->dm[i]);
	for (unsigned int i = 0; i < s->nc; i++)
		fake_free(s->cm[i]);
	s->nd = s->nc = 0;
	s->allocs = 0;
}

/* A packet the caller got back with RTR_CW_FORWARD goes to the same list,
 * after whatever the call itself delivered. */
static void
sink_forward(struct sink *s, struct rte_mbuf *m, uint16_t port)
{
	io_deliver(s, m, port, false);
}

static struct sink src_sink, dst_sink, aux_sink;

/* ------------------------------------------------------------ frames */

struct flow {
	bool v6;
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
	f.src[0] = 0xfd, f.src[15] = a;
	f.dst[0] = 0xfd, f.dst[1] = 1, f.dst[15] = b;
	f.sport = sport;
	return f;
}

/* The frame a host sends: Ethernet / IP / UDP 4791 / BTH / payload / ICRC.
 * The payload is a function of the PSN, so delivered frames can be compared
 * with a rebuilt original. */
static unsigned int
host_frame(uint8_t *p, const struct flow *f, uint32_t psn, uint8_t opcode, uint8_t b8, uint8_t tos)
{
	unsigned int l3 = 14, l4, n, i;
	unsigned int ulen = 8 + 12 + PAYLOAD + 4;

	memset(p, 0, 14);
	p[0] = 0x02, p[5] = 0x01;  /* dst MAC */
	p[6] = 0x02, p[11] = 0x02; /* src MAC */
	if (!f->v6) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + l3);

		p[12] = 0x08, p[13] = 0x00;
		memset(ip, 0, 20);
		ip->version_ihl = 0x45;
		ip->type_of_service = tos;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + ulen));
		ip->packet_id = rte_cpu_to_be_16((uint16_t)psn);
		ip->time_to_live = 64;
		ip->next_proto_id = 17;
		memcpy(&ip->src_addr, f->src, 4);
		memcpy(&ip->dst_addr, f->dst, 4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		l4 = l3 + 20;
	} else {
		uint32_t vtc = 6u << 28 | (uint32_t)tos << 20 | 0x12345;

		p[12] = 0x86, p[13] = 0xdd;
		memset(p + l3, 0, 40);
		p[l3 + 0] = (uint8_t)(vtc >> 24);
		p[l3 + 1] = (uint8_t)(vtc >> 16);
		p[l3 + 2] = (uint8_t)(vtc >> 8);
		p[l3 + 3] = (uint8_t)vtc;
		p[l3 + 4] = (uint8_t)(ulen >> 8);
		p[l3 + 5] = (uint8_t)ulen;
		p[l3 + 6] = 17;
		p[l3 + 7] = 64;
		memcpy(p + l3 + 8, f->src, 16);
		memcpy(p + l3 + 24, f->dst, 16);
		l4 = l3 + 40;
	}
	/* UDP */
	p[l4 + 0] = (uint8_t)(f->sport >> 8);
	p[l4 + 1] = (uint8_t)f->sport;
	p[l4 + 2] = 4791 >> 8;
	p[l4 + 3] = 4791 & 0xff;
	p[l4 + 4] = (uint8_t)(ulen >> 8);
	p[l4 + 5] = (uint8_t)ulen;
	p[l4 + 6] = 0;
	p[l4 + 7] = 0;
	/* BTH */
	n = l4 + 8;
	p[n + 0] = opcode;
	p[n + 1] = 0x40; /* MigReq */
	p[n + 2] = 0xff;
	p[n + 3] = 0xff; /* P_Key */
	p[n + 4] = 0;
	p[n + 5] = 0x00;
	p[n + 6] = 0x01;
	p[n + 7] = 0x23; /* DestQP */
	p[n + 8] = b8;
	p[n + 9] = (uint8_t)(psn >> 16);
	p[n + 10] = (uint8_t)(psn >> 8);
	p[n + 11] = (uint8_t)psn;
	n += 12;
	for (i = 0; i < PAYLOAD; i++)
		p[n + i] = (uint8_t)(psn * 7 + i);
	n += PAYLOAD;
	p[n + 0] = 0xde, p[n + 1] = 0xad, p[n + 2] = 0xbe, p[n + 3] = 0xef; /* ICRC (not checked) */
	return n + 4;
}

static unsigned int
bth_off_of(const struct flow *f)
{
	return 14 + (f->v6 ? 40 : 20) + 8;
}

static int
reparse(struct rte_mbuf *m, unsigned int flags)
{
	return (int)rtr_parse(mdata(m), m->data_len, SEED, flags, rtr_meta(m));
}

static struct rte_mbuf *
frame_mbuf(const uint8_t *frame, unsigned int len, unsigned int parse_flags)
{
	struct rte_mbuf *m = fake_frame(frame, len);

	CHECK_EQ(reparse(m, parse_flags), RTR_DROP_NONE);
	return m;
}

/* A host's packet (what a SrcToR receives on a host port). */
static struct rte_mbuf *
mk_host(const struct flow *f, uint32_t psn, uint8_t opcode, uint8_t b8, uint8_t tos)
{
	uint8_t buf[512];
	unsigned int n = host_frame(buf, f, psn, opcode, b8, tos);

	return frame_mbuf(buf, n, 0);
}

/* A ConWeave DATA packet as a DstToR receives it from the fabric. */
static struct rte_mbuf *
mk_cw(const struct flow *f, uint32_t psn, uint8_t path, unsigned int phase, unsigned int epoch,
		unsigned int ask, unsigned int tail, uint16_t ts_tx, uint16_t ts_tail, uint8_t tos,
		bool ackreq)
{
	uint8_t buf[512], out[512];
	unsigned int n = host_frame(buf, f, psn, 4, ackreq ? RTR_BTH_ACKREQ : 0, tos);
	unsigned int b = bth_off_of(f);

	memcpy(out, buf, b + 12);
	out[b + 4] = path;
	out[b + 8] = (uint8_t)((ackreq ? RTR_BTH_ACKREQ : 0) |
			       RTR_CW_B8(RTR_LB_OP_DATA, phase, epoch, ask, tail));
	out[b + 12] = (uint8_t)(ts_tx >> 8);
	out[b + 13] = (uint8_t)ts_tx;
	out[b + 14] = (uint8_t)(ts_tail >> 8);
	out[b + 15] = (uint8_t)ts_tail;
	memcpy(out + b + 16, buf + b + 12, n - b - 12);
	return frame_mbuf(out, n + 4, RTR_LB_PARSE_HDR);
}

static uint32_t
frame_psn(struct rte_mbuf *m, const struct flow *f)
{
	const uint8_t *b = mdata(m) + bth_off_of(f);

	return (uint32_t)b[9] << 16 | (uint32_t)b[10] << 8 | b[11];
}

/* A delivered frame is the host's frame again (header removed, byte 4 and
 * Resv7 zero; AckReq kept). */
static bool
is_host_frame(struct rte_mbuf *m, const struct flow *f, uint32_t psn, uint8_t tos, bool ackreq)
{
	uint8_t buf[512];
	unsigned int n = host_frame(buf, f, psn, 4, ackreq ? RTR_BTH_ACKREQ : 0, tos);

	return m->data_len == n && m->pkt_len == n && memcmp(mdata(m), buf, n) == 0;
}

/* ------------------------------------------------------------ instances */

static struct rtr_group G;

static struct rtr_cw_params
def_params(struct rtr_pm *sh)
{
	return (struct rtr_cw_params){
			.base_rtt_ns = 4000,
			.theta_reply_ns = 4000,
			.theta_path_busy_ns = 16000,
			.theta_inactive_ns = 300000,
			.resume_extra_ns = 16000,
			.resume_default_ns = 200000,
			.flow_entries = 1024,
			.host_port_mask = 0x3,
			.n_rings = 8,
			.ring_depth = 64,
			.hash_seed = SEED,
			.rng_seed = 42,
			.worker = 0,
			.socket_id = 0,
			.use_rte_malloc = false,
			.shared = sh,
	};
}

static struct rtr_cw *
mk_inst(const struct rtr_cw_params *p, struct sink *s)
{
	struct rtr_lb_io io = {
			.deliver = io_deliver,
			.control = io_control,
			.alloc = io_alloc,
			.arg = s,
	};
	struct rtr_cw *cw;

	sink_clear(s);
	cw = rtr_cw_create(p, &io);
	CHECK(cw != NULL);
	return cw;
}

/* What rtr_cw_pick made of a host packet. */
struct stamp {
	int path;
	bool cw;
	uint8_t b4, b8;
	uint16_t ts_tx, ts_tail;
	unsigned int len;
};

static struct stamp
read_stamp(struct rte_mbuf *m, int path)
{
	struct rtr_meta *mt = rtr_meta(m);
	const uint8_t *b = mdata(m) + rtr_meta_bth_off(mt);
	struct stamp s = {.path = path, .len = m->data_len};

	s.cw = (mt->flags & RTR_MF_LB_HDR) != 0;
	s.b4 = b[4];
	s.b8 = b[8];
	if (s.cw) {
		s.ts_tx = (uint16_t)(b[12] << 8 | b[13]);
		s.ts_tail = (uint16_t)(b[14] << 8 | b[15]);
	}
	return s;
}

/* SrcToR: a host packet of flow f through rtr_cw_pick; the mbuf is kept in
 * *out (or freed when out is NULL). */
static struct stamp
src_send(struct rtr_cw *cw, const struct flow *f, uint32_t psn, uint64_t now, uint64_t *c,
		struct rte_mbuf **out)
{
	struct rte_mbuf *m = mk_host(f, psn, 4, 0, 0x02);
	int path = rtr_cw_pick(cw, &G, 0, m, rtr_meta(m), now, LB_ST(c));
	struct stamp s = read_stamp(m, path);

	if (s.cw)
		CHECK_EQ(s.b4, path);
	if (out != NULL)
		*out = m;
	else
		fake_free(m);
	return s;
}

static bool
is_b8(uint8_t b8, unsigned int op, unsigned int phase, unsigned int epoch, unsigned int ask,
		unsigned int tail)
{
	return (b8 & RTR_BTH_RESV7_MASK) == RTR_CW_B8(op, phase, epoch, ask, tail);
}

/* DstToR: receive a ConWeave data packet (an mbuf the SrcToR stamped or
 * mk_cw built) on host port `port`; FORWARD results go to the sink too. */
static int
dst_rx(struct rtr_cw *cw, struct sink *s, struct rte_mbuf *m, uint16_t port, uint64_t now,
		uint64_t *c)
{
	int r = rtr_cw_deliver(cw, m, rtr_meta(m), port, now, LB_ST(c));

	if (r == RTR_CW_FORWARD)
		sink_forward(s, m, port);
	return r;
}

/* The fabric's view of a stamped mbuf: re-parse as a fabric port would. */
static void
to_fabric(struct rte_mbuf *m)
{
	CHECK_EQ(reparse(m, RTR_LB_PARSE_HDR), RTR_DROP_NONE);
	CHECK(rtr_meta(m)->flags & RTR_MF_LB_HDR);
}

/* A control packet the DstToR sent, as the SrcToR's fabric port parses it:
 * handed to rtr_cw_control_rx. */
static void
ctrl_to_src(struct rtr_cw *src, struct rte_mbuf *m, uint64_t now, uint64_t *c)
{
	CHECK_EQ(reparse(m, RTR_LB_PARSE_HDR), RTR_DROP_NONE);
	rtr_cw_control_rx(src, m, rtr_meta(m), now, LB_ST(c));
}

/* Rewrite a control packet's cw fields (byte 4, byte 8) and re-parse. */
static struct rte_mbuf *
ctrl_copy(struct rte_mbuf *m, uint8_t b4, uint8_t b8)
{
	struct rte_mbuf *n = fake_mbuf();
	uint8_t *b;

	memcpy(mdata(n), mdata(m), m->data_len);
	n->data_len = m->data_len;
	n->pkt_len = m->pkt_len;
	CHECK_EQ(reparse(n, RTR_LB_PARSE_HDR), RTR_DROP_NONE);
	b = mdata(n) + rtr_meta_bth_off(rtr_meta(n));
	b[4] = b4;
	b[8] = b8;
	CHECK_EQ(reparse(n, RTR_LB_PARSE_HDR), RTR_DROP_NONE);
	return n;
}

static struct rtr_lcore_stats cs_st, cd_st;
static uint64_t *const cs = cs_st.lb, *const cd = cd_st.lb;

static void
zero_counters(void)
{
	memset(cs, 0, sizeof(cs_st.lb));
	memset(cd, 0, sizeof(cd_st.lb));
}

#define T0 1000000000ULL /* the virtual clock starts at 1 s */

/* ------------------------------------------------------------ 1. SrcToR new flow */

static void
test_src_new_flow(void)
{
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *cw = mk_inst(&p, &src_sink);
	uint64_t now = T0 + 12345;
	uint8_t orig[512];

	printf("1. SrcToR new flow\n");
	zero_counters();
	for (int v = 0; v < 2; v++) {
		struct flow f = v ? flow6(1, 2, 50000) : flow4(1, 2, 50000);
		unsigned int olen = host_frame(orig, &f, 100, 4, 0, 0x02);
		unsigned int b = bth_off_of(&f);
		struct rte_mbuf *m;
		struct stamp s;
		uint8_t *d;

		s = src_send(cw, &f, 100, now, cs, &m);
		d = mdata(m);
		CHECK(s.path >= 0 && s.path < 4);
		CHECK(s.cw);
		CHECK(is_b8(s.b8, RTR_LB_OP_DATA, 0, 1, 1, 0), "b8 %#x", s.b8);
		CHECK_EQ(rtr_lb_op(s.b8), 1);
		CHECK_EQ(rtr_cw_epoch(s.b8), 1);
		CHECK_EQ(rtr_cw_phase(s.b8), 0);
		CHECK_EQ(rtr_cw_ask(s.b8), 1);
		CHECK_EQ(rtr_cw_tail(s.b8), 0);
		CHECK_EQ(s.len, olen + 4);
		CHECK_EQ(m->pkt_len, olen + 4);
		CHECK_EQ(m->data_off, RTR_TEST_MBUF_HEADROOM - 4);
		CHECK_EQ(s.ts_tx, (now >> 10) & 0xffff);
		CHECK_EQ(s.ts_tail, 0);
		CHECK(rtr_meta(m)->flags & RTR_MF_LB_HDR);
		CHECK_EQ(rtr_meta(m)->bth_b8, s.b8);
		CHECK_EQ(rtr_meta(m)->bth_b4, s.path);
		/* Headers unchanged but byte 4 and 8 (IP length too: the
		 * P4 does not count the 4 bytes), payload moved behind. */
		CHECK(memcmp(d, orig, b + 4) == 0);
		CHECK(memcmp(d + b + 5, orig + b + 5, 3) == 0);
		CHECK(memcmp(d + b + 9, orig + b + 9, 3) == 0);
		CHECK(memcmp(d + b + 16, orig + b + 12, olen - b - 12) == 0);
		if (!f.v6)
			CHECK_EQ(d[16] << 8 | d[17], olen - 14);
		else
			CHECK_EQ(d[18] << 8 | d[19], olen - 54);
		/* The fabric parser takes it (length 4 above IP's). */
		to_fabric(m);
		CHECK_EQ(rtr_meta(m)->bth_b8, s.b8);
		CHECK_EQ(rtr_meta(m)->psn, 100);
		fake_free(m);

		/* Second packet: same epoch and path, no ask. */
		s = src_send(cw, &f, 101, now + 1000, cs, NULL);
		CHECK(s.cw);
		CHECK(is_b8(s.b8, RTR_LB_OP_DATA, 0, 1, 0, 0), "b8 %#x", s.b8);
		CHECK_EQ(s.ts_tx, ((now + 1000) >> 10) & 0xffff);
		CHECK_EQ(s.ts_tail, 0);
	}
	CHECK_EQ(cs[RTR_LBC_rtt_requests], 2);
	CHECK_EQ(cs[RTR_LBC_cw_packets], 4);
	CHECK_EQ(cs[RTR_LBC_ecmp_packets], 0);
	CHECK_EQ(cs[RTR_LBC_reply_timeouts], 0);
	CHECK_EQ(src_sink.nd + src_sink.nc, 0);

	/* AckReq survives the stamping. */
	{
		struct flow f = flow4(3, 4, 40000);
		struct rte_mbuf *m = mk_host(&f, 7, 4, RTR_BTH_ACKREQ, 0x02);
		int path = rtr_cw_pick(cw, &G, 0, m, rtr_meta(m), now, LB_ST(cs));
		struct stamp s = read_stamp(m, path);

		CHECK_EQ(s.b8, RTR_BTH_ACKREQ | RTR_CW_B8(1, 0, 1, 1, 0));
		fake_free(m);
	}
	rtr_cw_free(cw);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 2. replies */

static void
test_src_reply(void)
{
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *src = mk_inst(&p, &src_sink);
	struct rtr_cw *dst = mk_inst(&p, &dst_sink);
	uint64_t now = T0;
	struct rte_mbuf *m, *reply;
	struct stamp s;

	printf("2. RTT_REPLY on time and late\n");
	zero_counters();
	for (int v = 0; v < 2; v++) {
		struct flow f = v ? flow6(5, 6, 1111) : flow4(5, 6, 1111);
		uint64_t t0 = now;

		memset(cs, 0, sizeof(cs_st.lb));
		s = src_send(src, &f, 0, t0, cs, &m);
		CHECK(is_b8(s.b8, 1, 0, 1, 1, 0));
		to_fabric(m);
		dst_sink.nc = 0;
		CHECK_EQ(dst_rx(dst, &dst_sink, m, 1, t0 + 2000, cd), RTR_CW_FORWARD);
		CHECK_EQ(dst_sink.nc, 1);
		reply = dst_sink.cm[0];
		dst_sink.nc = 0;
		/* On time: one ns before base_rtt + theta_reply. */
		ctrl_to_src(src, reply, t0 + 7999, cs);
		CHECK_EQ(cs[RTR_LBC_rtt_replies_rx], 1);
		CHECK_EQ(cs[RTR_LBC_rtt_replies_late], 0);
		CHECK_EQ(cs[RTR_LBC_ctrl_no_flow], 0);
		/* Next data packet: epoch 2, RTT_REQUEST, same path. */
		{
			struct stamp s2 = src_send(src, &f, 1, t0 + 9000, cs, NULL);

			CHECK(is_b8(s2.b8, 1, 0, 2, 1, 0), "b8 %#x", s2.b8);
			CHECK_EQ(s2.path, s.path);
			CHECK_EQ(cs[RTR_LBC_reply_timeouts], 0);
			CHECK_EQ(cs[RTR_LBC_rtt_requests], 2);
		}
		/* The same reply again (epoch 1, flow in epoch 2): late. */
		ctrl_to_src(src, reply, t0 + 9001, cs);
		CHECK_EQ(cs[RTR_LBC_rtt_replies_late], 1);
		{
			struct stamp s3 = src_send(src, &f, 2, t0 + 9002, cs, NULL);

			CHECK(is_b8(s3.b8, 1, 0, 2, 0, 0), "b8 %#x", s3.b8);
		}
		fake_free(reply);
		sink_clear(&dst_sink);
		now += 1000000;
	}

	/* Late: the reply comes at the deadline itself. */
	{
		struct flow f = flow4(7, 8, 2222);
		uint64_t t0 = now;

		memset(cs, 0, sizeof(cs_st.lb));
		s = src_send(src, &f, 0, t0, cs, &m);
		to_fabric(m);
		CHECK_EQ(dst_rx(dst, &dst_sink, m, 1, t0 + 2000, cd), RTR_CW_FORWARD);
		CHECK_EQ(dst_sink.nc, 1);
		reply = dst_sink.cm[0];
		dst_sink.nc = 0;
		ctrl_to_src(src, reply, t0 + 8000, cs);
		CHECK_EQ(cs[RTR_LBC_rtt_replies_rx], 1);
		CHECK_EQ(cs[RTR_LBC_rtt_replies_late], 1);
		fake_free(reply);
		/* At the deadline: not yet a timeout. */
		s = src_send(src, &f, 1, t0 + 8000, cs, NULL);
		CHECK(is_b8(s.b8, 1, 0, 1, 0, 0), "b8 %#x", s.b8);
		/* After it: the TAIL. */
		s = src_send(src, &f, 2, t0 + 8001, cs, NULL);
		CHECK(is_b8(s.b8, 1, 0, 1, 1, 1), "b8 %#x", s.b8);
		CHECK_EQ(cs[RTR_LBC_reply_timeouts], 1);
		CHECK_EQ(cs[RTR_LBC_tails], 1);
		sink_clear(&dst_sink);
	}
	/* A reply for a flow this switch does not know. */
	{
		struct flow f = flow4(9, 9, 3333);
		struct rte_mbuf *d = mk_cw(&f, 0, 1, 0, 1, 1, 0, 10, 0, 0x02, false);

		CHECK_EQ(dst_rx(dst, &dst_sink, d, 1, now, cd), RTR_CW_FORWARD);
		CHECK_EQ(dst_sink.nc, 1);
		memset(cs, 0, sizeof(cs_st.lb));
		ctrl_to_src(src, dst_sink.cm[0], now, cs);
		CHECK_EQ(cs[RTR_LBC_ctrl_no_flow], 1);
		CHECK_EQ(cs[RTR_LBC_rtt_replies_rx], 1);
		sink_clear(&dst_sink);
	}
	rtr_cw_free(src);
	rtr_cw_free(dst);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 3. timeout */

static void
test_src_timeout(void)
{
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *src = mk_inst(&p, &src_sink);
	uint64_t now = T0 + 777777;
	unsigned int moved = 0, stayed = 0;

	printf("3. reply timeout: TAIL, then REROUTED\n");
	for (unsigned int i = 0; i < 64; i++) {
		struct flow f = flow4(20, 30, (uint16_t)(1000 + i));
		uint64_t t0 = now + i * 1000000ULL;
		struct stamp s0, tl, r;

		memset(cs, 0, sizeof(cs_st.lb));
		s0 = src_send(src, &f, 0, t0, cs, NULL);
		CHECK(is_b8(s0.b8, 1, 0, 1, 1, 0));
		r = src_send(src, &f, 1, t0 + 4000, cs, NULL);
		CHECK(is_b8(r.b8, 1, 0, 1, 0, 0));
		CHECK_EQ(r.path, s0.path);
		tl = src_send(src, &f, 2, t0 + 8001, cs, NULL);
		CHECK(is_b8(tl.b8, 1, 0, 1, 1, 1), "b8 %#x", tl.b8);
		CHECK_EQ(tl.path, s0.path); /* the old path */
		CHECK_EQ(tl.ts_tx, rtr_cw_ts(t0 + 8001));
		CHECK_EQ(tl.ts_tail, rtr_cw_ts(t0 + 8001));
		CHECK_EQ(cs[RTR_LBC_reply_timeouts], 1);
		CHECK_EQ(cs[RTR_LBC_tails], 1);
		for (unsigned int k = 0; k < 5; k++) {
			uint64_t t = t0 + 8002 + k * 50000ULL;

			r = src_send(src, &f, 3 + k, t, cs, NULL);
			CHECK(is_b8(r.b8, 1, 1, 1, 0, 0), "b8 %#x", r.b8);
			CHECK_EQ(r.ts_tail, tl.ts_tx);
			CHECK_EQ(r.ts_tx, rtr_cw_ts(t));
			if (k == 0) {
				if (r.path != tl.path)
					moved++;
				else
					stayed++;
				CHECK_EQ(cs[RTR_LBC_reroutes], r.path != tl.path);
			}
			CHECK_EQ(r.path, src_send(src, &f, 100 + k, t, cs, NULL).path);
		}
		/* The timeout fires once. */
		CHECK_EQ(cs[RTR_LBC_reply_timeouts], 1);
		CHECK_EQ(cs[RTR_LBC_tails], 1);
		CHECK_EQ(cs[RTR_LBC_rtt_requests], 1);
	}
	/* Nothing busy: the first sample is taken, 3 in 4 move. */
	printf("  rerouted without busy paths: %u moved, %u stayed\n", moved, stayed);
	CHECK(moved > 32 && stayed > 4, "moved %u stayed %u", moved, stayed);
	rtr_cw_free(src);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 4. CLEAR, inactivity, wrap */

/* Set IP ECN to CE (11) in a frame (the fabric marked it) and re-parse. */
static void
mark_ce(struct rte_mbuf *m, unsigned int parse_flags)
{
	struct rtr_meta *mt = rtr_meta(m);
	uint8_t *l3 = mdata(m) + mt->l3_off;

	if (mt->l3 == RTR_L3_IPV4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)l3;

		ip->type_of_service |= 3;
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		l3[1] |= 3 << 4;
	}
	CHECK_EQ(reparse(m, parse_flags), RTR_DROP_NONE);
	CHECK(rtr_meta_ce(rtr_meta(m)));
}

static void
test_src_clear_inactive(void)
{
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *src = mk_inst(&p, &src_sink);
	struct rtr_cw *dst = mk_inst(&p, &dst_sink);
	struct flow f = flow4(40, 41, 4444);
	uint64_t t0 = T0 + 5000000, t;
	struct rte_mbuf *m, *clear, *x;
	struct stamp s0, tl, r;

	printf("4. CLEAR, inactivity, epoch wrap\n");
	zero_counters();
	s0 = src_send(src, &f, 0, t0, cs, &m);
	to_fabric(m);
	CHECK_EQ(dst_rx(dst, &dst_sink, m, 1, t0 + 1000, cd), RTR_CW_FORWARD);
	CHECK_EQ(dst_sink.nc, 1); /* the RTT_REPLY: lost */
	sink_clear(&dst_sink);
	tl = src_send(src, &f, 1, t0 + 8001, cs, &m);
	CHECK(is_b8(tl.b8, 1, 0, 1, 1, 1));
	CHECK_EQ(tl.path, s0.path);
	to_fabric(m);
	CHECK_EQ(dst_rx(dst, &dst_sink, m, 1, t0 + 9000, cd), RTR_CW_FORWARD);
	CHECK_EQ(dst_sink.nc, 1);
	clear = dst_sink.cm[0];
	dst_sink.nc = 0;
	CHECK_EQ(reparse(clear, RTR_LB_PARSE_HDR), RTR_DROP_NONE);
	CHECK(is_b8(rtr_meta(clear)->bth_b8, RTR_LB_OP_REPLY, 1, 1, 0, 0));
	CHECK_EQ(rtr_meta(clear)->bth_b4, tl.path);
	CHECK_EQ(cd[RTR_LBC_clears], 1);
	CHECK_EQ(cd[RTR_LBC_tails_rx], 1);
	r = src_send(src, &f, 2, t0 + 9100, cs, NULL);
	CHECK(is_b8(r.b8, 1, 1, 1, 0, 0));

	/* A CLEAR of another epoch: ignored. */
	x = ctrl_copy(clear, tl.path, RTR_CW_B8(RTR_LB_OP_REPLY, 1, 2, 0, 0));
	rtr_cw_control_rx(src, x, rtr_meta(x), t0 + 9200, LB_ST(cs));
	fake_free(x);
	CHECK_EQ(cs[RTR_LBC_clears_rx], 1);
	r = src_send(src, &f, 3, t0 + 9300, cs, NULL);
	CHECK(is_b8(r.b8, 1, 1, 1, 0, 0), "b8 %#x", r.b8);
	/* An RTT_REPLY of the right epoch while in phase 1: ignored (late). */
	x = ctrl_copy(clear, tl.path, RTR_CW_B8(RTR_LB_OP_REPLY, 0, 1, 0, 0));
	rtr_cw_control_rx(src, x, rtr_meta(x), t0 + 9400, LB_ST(cs));
	fake_free(x);
	CHECK_EQ(cs[RTR_LBC_rtt_replies_rx], 1);
	CHECK_EQ(cs[RTR_LBC_rtt_replies_late], 1);
	r = src_send(src, &f, 4, t0 + 9500, cs, NULL);
	CHECK(is_b8(r.b8, 1, 1, 1, 0, 0), "b8 %#x", r.b8);
	/* The CLEAR itself: the next packet starts epoch 2, on the new path. */
	ctrl_to_src(src, clear, t0 + 9600, cs);
	CHECK_EQ(cs[RTR_LBC_clears_rx], 2);
	{
		struct stamp n = src_send(src, &f, 5, t0 + 9700, cs, NULL);

		CHECK(is_b8(n.b8, 1, 0, 2, 1, 0), "b8 %#x", n.b8);
		CHECK_EQ(n.path, r.path);
		CHECK_EQ(n.ts_tail, 0);
		n = src_send(src, &f, 6, t0 + 9800, cs, NULL);
		CHECK(is_b8(n.b8, 1, 0, 2, 0, 0), "b8 %#x", n.b8);
	}
	/* The CLEAR again (epoch 1): ignored. */
	ctrl_to_src(src, clear, t0 + 9900, cs);
	r = src_send(src, &f, 7, t0 + 10000, cs, NULL);
	CHECK(is_b8(r.b8, 1, 0, 2, 0, 0), "b8 %#x", r.b8);
	fake_free(clear);
	CHECK_EQ(cs[RTR_LBC_tails], 1);
	CHECK_EQ(cs[RTR_LBC_rtt_requests], 2);

	/* Inactivity: an idle gap of exactly theta_inactive is not expiry
	 * (the pending reply deadline passed: this is a TAIL); one ns more
	 * is, and then no TAIL although the deadline passed. */
	t = t0 + 10000;
	r = src_send(src, &f, 8, t + 300000, cs, NULL);
	CHECK(is_b8(r.b8, 1, 0, 2, 1, 1), "b8 %#x", r.b8);
	CHECK_EQ(cs[RTR_LBC_tails], 2);
	t += 300000;
	r = src_send(src, &f, 9, t + 300001, cs, NULL);
	CHECK(is_b8(r.b8, 1, 0, 3, 1, 0), "b8 %#x", r.b8);
	CHECK_EQ(cs[RTR_LBC_tails], 2);
	CHECK_EQ(cs[RTR_LBC_reply_timeouts], 2);
	CHECK_EQ(r.ts_tail, 0);
	t += 300001;
	/* Expiry wins over a pending reply deadline. */
	r = src_send(src, &f, 10, t + 400000, cs, NULL);
	CHECK(is_b8(r.b8, 1, 0, 0, 1, 0), "b8 %#x", r.b8); /* 3 -> 0 */
	CHECK_EQ(cs[RTR_LBC_tails], 2);
	CHECK_EQ(cs[RTR_LBC_reply_timeouts], 2);
	t += 400000;
	r = src_send(src, &f, 11, t + 400000, cs, NULL);
	CHECK(is_b8(r.b8, 1, 0, 1, 1, 0), "b8 %#x", r.b8);
	t += 400000;

	/* Epoch wrap from a new flow: 1, 2, 3, 0, 1 by inactivity; idle
	 * moves counted exactly when the path changed. */
	{
		struct flow g = flow6(42, 43, 4445);
		unsigned int want[] = {1, 2, 3, 0, 1}, changes = 0;
		int last = -1;

		memset(cs, 0, sizeof(cs_st.lb));
		for (unsigned int i = 0; i < 5; i++) {
			r = src_send(src, &g, i, t + i * 1000000ULL, cs, NULL);
			CHECK(is_b8(r.b8, 1, 0, want[i], 1, 0), "i %u b8 %#x", i, r.b8);
			if (last >= 0 && r.path != last)
				changes++;
			last = r.path;
		}
		CHECK_EQ(cs[RTR_LBC_idle_moves], changes);
		CHECK_EQ(cs[RTR_LBC_rtt_requests], 5);
		CHECK_EQ(cs[RTR_LBC_reroutes], 0);
	}
	sink_clear(&dst_sink);
	rtr_cw_free(src);
	rtr_cw_free(dst);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 4b. issue 15: lost CLEAR */

/*
 * Issue 15 item 3. After its TAIL a flow is in phase 1 with no reply
 * deadline: only its CLEAR (or theta_inactive of idleness) starts a new
 * epoch. Here the CLEAR is lost and the flow sends a packet every 10 us
 * for 5 ms. It must start a new epoch (an RTT_REQUEST, phase 0) once it
 * has been in phase 1 longer than rtr_cw_clear_timeout_ns() (the longest
 * DstToR hold plus base_rtt + theta_reply), counted clear_timeouts.
 */
static void
src_lost_clear_case(uint64_t clear_timeout_ns)
{
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *src;
	struct flow f = flow4(44, 45, 4500);
	uint64_t t0 = T0 + 9000000, p1 = t0 + 10000, to, first_new = 0;
	struct stamp s;

	p.clear_timeout_ns = clear_timeout_ns;
	src = mk_inst(&p, &src_sink);
	to = rtr_cw_clear_timeout_ns(&p);
	printf("4b. SrcToR: CLEAR lost, clear timeout %lu ns (%s)\n", (unsigned long)to,
			clear_timeout_ns ? "configured" : "derived");
	if (clear_timeout_ns)
		CHECK_EQ(to, clear_timeout_ns);
	else
		CHECK_EQ(to, 216000 + 4000 + 4000);
	memset(cs, 0, sizeof(cs_st.lb));
	s = src_send(src, &f, 0, t0, cs, NULL);
	CHECK(is_b8(s.b8, 1, 0, 1, 1, 0));
	s = src_send(src, &f, 1, t0 + 8001, cs, NULL);
	CHECK(is_b8(s.b8, 1, 0, 1, 1, 1), "b8 %#x", s.b8); /* the TAIL */
	/* Phase 1 from p1 on, one packet every 10 us; no CLEAR comes. */
	for (uint64_t t = p1; t < t0 + 5000000; t += 10000) {
		s = src_send(src, &f, (uint32_t)((t - t0) / 10000 + 2), t, cs, NULL);
		if (first_new == 0 && t <= p1 + to)
			CHECK(is_b8(s.b8, 1, 1, 1, 0, 0), "t - p1 = %lu: b8 %#x",
					(unsigned long)(t - p1), s.b8);
		if (first_new == 0 && rtr_cw_ask(s.b8) && !rtr_cw_tail(s.b8)) {
			first_new = t;
			/* A new epoch, as after a CLEAR: epoch 2, phase 0. */
			CHECK(is_b8(s.b8, 1, 0, 2, 1, 0), "b8 %#x", s.b8);
			CHECK_EQ(cs[RTR_LBC_clear_timeouts], 1);
			CHECK_EQ(cs[RTR_LBC_rtt_requests], 2);
		}
	}
	printf("  5 ms in phase 1 without a CLEAR: %lu new epochs (RTT_REQUESTs after the first), "
	       "%lu clear timeouts, first after %lu ns\n",
			(unsigned long)cs[RTR_LBC_rtt_requests] - 1,
			(unsigned long)cs[RTR_LBC_clear_timeouts],
			first_new ? (unsigned long)(first_new - p1) : 0ul);
	/* The first packet after the timeout starts the epoch. */
	CHECK_EQ(first_new, p1 + (to / 10000 + 1) * 10000);
	/* Every later epoch ends the same way (no reply, TAIL, no CLEAR). */
	CHECK(cs[RTR_LBC_clear_timeouts] >= 4900000 / (to + 30000), "%lu",
			(unsigned long)cs[RTR_LBC_clear_timeouts]);
	CHECK_EQ(cs[RTR_LBC_rtt_requests], 1 + cs[RTR_LBC_clear_timeouts]);
	CHECK(cs[RTR_LBC_tails] + 1 >= cs[RTR_LBC_rtt_requests]); /* the last may be young */
	CHECK_EQ(cs[RTR_LBC_clears_rx], 0);
	rtr_cw_free(src);
	rtr_pm_free(sh);
}

static void
test_src_lost_clear(void)
{
	src_lost_clear_case(0);
	src_lost_clear_case(1000000);
	/* A CLEAR that comes in time: a new epoch by it, no timeout; the
	 * next epoch's phase 1 gets its own full timeout. */
	{
		struct rtr_pm *sh = rtr_pm_create(
				&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
		struct rtr_cw_params p = def_params(sh);
		struct rtr_cw *src = mk_inst(&p, &src_sink);
		struct rtr_cw *dst = mk_inst(&p, &dst_sink);
		struct flow f = flow4(46, 47, 4600);
		uint64_t t0 = T0 + 19000000, p1 = t0 + 10000, to = rtr_cw_clear_timeout_ns(&p);
		struct rte_mbuf *m, *clear;
		struct stamp s;

		printf("4b. SrcToR: CLEAR in time, no clear timeout\n");
		memset(cs, 0, sizeof(cs_st.lb));
		src_send(src, &f, 0, t0, cs, NULL);
		s = src_send(src, &f, 1, t0 + 8001, cs, &m);
		CHECK(is_b8(s.b8, 1, 0, 1, 1, 1));
		to_fabric(m);
		CHECK_EQ(dst_rx(dst, &dst_sink, m, 1, t0 + 9000, cd), RTR_CW_FORWARD);
		CHECK_EQ(dst_sink.nc, 1);
		clear = dst_sink.cm[0];
		dst_sink.nc = 0;
		s = src_send(src, &f, 2, p1, cs, NULL);
		CHECK(is_b8(s.b8, 1, 1, 1, 0, 0));
		ctrl_to_src(src, clear, p1 + 100000, cs);
		fake_free(clear);
		s = src_send(src, &f, 3, p1 + 110000, cs, NULL);
		CHECK(is_b8(s.b8, 1, 0, 2, 1, 0), "b8 %#x", s.b8);
		s = src_send(src, &f, 4, p1 + 120000, cs, NULL); /* no reply: TAIL */
		CHECK(is_b8(s.b8, 1, 0, 2, 1, 1), "b8 %#x", s.b8);
		/* Phase 1 of epoch 2 from p1 + 130 us: epoch 1's timeout has
		 * no say, epoch 2's comes at p1 + 130 us + to. */
		for (uint64_t t = p1 + 130000; t <= p1 + 130000 + to; t += 10000) {
			s = src_send(src, &f, 5, t, cs, NULL);
			CHECK(is_b8(s.b8, 1, 1, 2, 0, 0), "t - p1 = %lu: b8 %#x",
					(unsigned long)(t - p1), s.b8);
		}
		CHECK_EQ(cs[RTR_LBC_clear_timeouts], 0);
		CHECK_EQ(cs[RTR_LBC_clears_rx], 1);
		s = src_send(src, &f, 6, p1 + 130000 + to + 1, cs, NULL);
		CHECK(is_b8(s.b8, 1, 0, 3, 1, 0), "b8 %#x", s.b8);
		CHECK_EQ(cs[RTR_LBC_clear_timeouts], 1);
		sink_clear(&dst_sink);
		rtr_cw_free(src);
		rtr_cw_free(dst);
		rtr_pm_free(sh);
	}
}

/*
 * The CLEAR timeout counts from the first phase-1 packet's departure, not
 * its pick: the DstToR's hold starts when that packet arrives, so a phase-1
 * packet that queues 150 us in the SrcToR's new uplink must not let the
 * timeout fire while the DstToR may still hold (the new epoch would
 * overrun the hold and flush it out of order). Picked at p1, it leaves at
 * p1 + 150 us: no timeout before p1 + 150 us + to, one after it.
 */
static void
test_src_clear_from_departure(void)
{
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *src = mk_inst(&p, &src_sink);
	struct flow f = flow4(48, 49, 4800);
	uint64_t t0 = T0 + 29000000, p1 = t0 + 10000, q = 150000, to = rtr_cw_clear_timeout_ns(&p);
	uint64_t t, first_new = 0;
	struct rte_mbuf *m;
	struct stamp s;

	printf("4c. SrcToR: the CLEAR timeout runs from the first phase-1 departure\n");
	memset(cs, 0, sizeof(cs_st.lb));
	src_send(src, &f, 0, t0, cs, NULL);
	s = src_send(src, &f, 1, t0 + 8001, cs, &m);
	CHECK(is_b8(s.b8, 1, 0, 1, 1, 1), "b8 %#x", s.b8); /* the TAIL */
	rtr_cw_depart(src, m, rtr_meta(m), t0 + 8001, LB_ST(cs));
	fake_free(m);
	s = src_send(src, &f, 2, p1, cs, &m); /* first phase 1: queues q */
	CHECK(is_b8(s.b8, 1, 1, 1, 0, 0), "b8 %#x", s.b8);
	for (t = p1 + 10000; t < p1 + q + to + 50000; t += 10000) {
		if (t == p1 + q) {
			rtr_cw_depart(src, m, rtr_meta(m), t, LB_ST(cs));
			fake_free(m);
		}
		s = src_send(src, &f, (uint32_t)((t - p1) / 10000 + 3), t, cs, NULL);
		if (first_new == 0 && rtr_cw_ask(s.b8) && !rtr_cw_tail(s.b8))
			first_new = t;
	}
	printf("  first phase-1 packet picked at p1, left at p1 + %lu ns; clear timeout %lu ns; "
	       "new epoch at p1 + %lu ns\n",
			(unsigned long)q, (unsigned long)to,
			first_new ? (unsigned long)(first_new - p1) : 0ul);
	CHECK(first_new > p1 + q + to, "new epoch at p1 + %lu ns, before p1 + %lu ns",
			(unsigned long)(first_new - p1), (unsigned long)(q + to));
	CHECK_EQ(cs[RTR_LBC_clear_timeouts], 1);
	rtr_cw_free(src);
	rtr_pm_free(sh);
}

/*
 * Departure finds the flow by the reference the pick left in the mbuf, not
 * by a second lookup (issue 34): a TAIL whose frame no longer names its
 * flow (destination address changed after the pick) still gets its
 * departure stamps. A reference to an entry that has left since (aged out,
 * the flow then back in the same slot) finds nothing: the packet keeps its
 * pick-time stamps and the new entry is not written.
 */
static void
test_src_depart_by_reference(void)
{
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *src = mk_inst(&p, &src_sink);
	struct rtr_ft *ft = (struct rtr_ft *)(uintptr_t)rtr_lb_fs_table(src);
	struct flow f = flow4(52, 53, 5200);
	uint64_t t0 = T0 + 39000000, dep = t0 + 8001 + 30000;
	struct rte_mbuf *m, *m2;
	struct rtr_ft_entry *e;
	struct stamp s;
	uint32_t idx, gen;

	printf("4d. SrcToR: departure by the pick's flow reference\n");
	memset(cs, 0, sizeof(cs_st.lb));
	src_send(src, &f, 0, t0, cs, NULL);
	s = src_send(src, &f, 1, t0 + 8001, cs, &m);
	CHECK(is_b8(s.b8, 1, 0, 1, 1, 1), "b8 %#x", s.b8); /* the TAIL */
	CHECK(m->hash.fdir.lo != 0);
	idx = m->hash.fdir.lo - 1;
	gen = m->hash.fdir.hi;
	e = rtr_ft_deref(ft, idx, gen);
	CHECK(e != NULL && e->key.kind != 0);
	mdata(m)[rtr_meta(m)->l3_off + 19] ^= 0x55; /* a lookup would miss now */
	rtr_cw_depart(src, m, rtr_meta(m), dep, LB_ST(cs));
	s = read_stamp(m, 0);
	CHECK_EQ(s.ts_tx, rtr_cw_ts(dep));
	CHECK_EQ(s.ts_tail, rtr_cw_ts(dep));
	fake_free(m);
	/* A stale reference: the next packet (phase 1) picked, then the flow
	 * ages out and comes back into the same slot before it departs. */
	s = src_send(src, &f, 2, dep + 1000, cs, &m2);
	CHECK(is_b8(s.b8, 1, 1, 1, 0, 0), "b8 %#x", s.b8);
	CHECK_EQ(m2->hash.fdir.lo - 1, idx);
	CHECK_EQ(m2->hash.fdir.hi, gen);
	CHECK(rtr_ft_sweep(ft, dep + 1000 + 10 * rtr_cw_aging_ns(&p), rtr_ft_capacity(ft)) >= 1);
	CHECK(rtr_ft_deref(ft, idx, gen) == NULL);
	src_send(src, &f, 3, dep + 1000 + 10 * rtr_cw_aging_ns(&p), cs, NULL);
	e = rtr_ft_slot_at(ft, idx);
	CHECK(e->key.kind != 0 && e->gen != gen, "the flow's new life in the same slot");
	s = read_stamp(m2, 0);
	{
		uint16_t pick_tx = s.ts_tx, pick_tail = s.ts_tail;
		uint8_t before[64];

		memcpy(before, e->value,
				sizeof(before) < ft->value_size ? sizeof(before) : ft->value_size);
		rtr_cw_depart(src, m2, rtr_meta(m2), dep + 1000 + 10 * rtr_cw_aging_ns(&p) + 50000,
				LB_ST(cs));
		s = read_stamp(m2, 0);
		CHECK_EQ(s.ts_tx, pick_tx);
		CHECK_EQ(s.ts_tail, pick_tail);
		CHECK(memcmp(before, e->value,
				      sizeof(before) < ft->value_size ? sizeof(before)
								      : ft->value_size) == 0,
				"the new entry is not written through the old reference");
	}
	fake_free(m2);
	/* Packets the pick did not stamp carry no reference. */
	{
		struct rte_mbuf *a = mk_host(&f, 4, 4, 0, 0x02);

		a->hash.fdir.lo = 12345;     /* e.g. a PMD's RSS hash */
		rtr_meta(a)->bth_b8 |= 0x10; /* Resv7 set by the sender: bypass */
		mdata(a)[rtr_meta(a)->l4_off + 8 + 8] |= 0x10;
		rtr_cw_pick(src, &G, 0, a, rtr_meta(a), dep + 2000, LB_ST(cs));
		CHECK_EQ(a->hash.fdir.lo, 0);
		fake_free(a);
	}
	rtr_cw_free(src);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 5. busy paths */

/* n flows (sport base..base+n-1) send their first packet at t. */
static void
batch_start(struct rtr_cw *src, uint16_t base, unsigned int n, uint64_t t)
{
	for (unsigned int i = 0; i < n; i++) {
		struct flow f = flow4(50, 51, (uint16_t)(base + i));
		struct stamp s = src_send(src, &f, 0, t, cs, NULL);

		CHECK(is_b8(s.b8, 1, 0, 1, 1, 0));
	}
}

/* ... and their TAIL at t (no reply came), then one packet more:
 * out[i] = (old path, new path). */
static void
batch_tail(struct rtr_cw *src, uint16_t base, unsigned int n, uint64_t t, int (*out)[2])
{
	for (unsigned int i = 0; i < n; i++) {
		struct flow f = flow4(50, 51, (uint16_t)(base + i));
		struct stamp tl = src_send(src, &f, 1, t, cs, NULL);
		struct stamp r = src_send(src, &f, 2, t + 1, cs, NULL);

		CHECK(is_b8(tl.b8, 1, 0, 1, 1, 1));
		CHECK(is_b8(r.b8, 1, 1, 1, 0, 0));
		CHECK_EQ(r.ts_tail, tl.ts_tx);
		out[i][0] = tl.path;
		out[i][1] = r.path;
	}
}

static void
mark_busy(struct rtr_cw *src, struct rte_mbuf *notify, unsigned int path, uint64_t now)
{
	struct rte_mbuf *x =
			ctrl_copy(notify, (uint8_t)path, RTR_CW_B8(RTR_LB_OP_NOTIFY, 0, 1, 0, 0));

	rtr_cw_control_rx(src, x, rtr_meta(x), now, LB_ST(cs));
	fake_free(x);
}

static void
test_src_busy(void)
{
	enum { NA = 2000, NB = 500, NC = 2000 };
	static int a[NA][2], b[NB][2], cc[NC][2];
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *src, *dst;
	struct flow fn = flow4(50, 51, 9999);
	uint64_t T = T0 + 50000000;
	struct rte_mbuf *m, *notify;
	unsigned int moved = 0, stayed = 0, bad = 0, n_busy_old = 0;
	unsigned int to[4] = {0};
	double frac;

	printf("5. NOTIFY and busy paths\n");
	p.flow_entries = 32768;
	src = mk_inst(&p, &src_sink);
	dst = mk_inst(&p, &dst_sink);
	zero_counters();
	/* A real NOTIFY: a packet of flow fn CE-marked in the fabric. */
	src_send(src, &fn, 0, T, cs, &m);
	to_fabric(m);
	mark_ce(m, RTR_LB_PARSE_HDR);
	CHECK_EQ(dst_rx(dst, &dst_sink, m, 1, T + 50, cd), RTR_CW_FORWARD);
	CHECK_EQ(dst_sink.nc, 2); /* RTT_REPLY, NOTIFY */
	CHECK_EQ(cd[RTR_LBC_notifies], 1);
	CHECK_EQ(cd[RTR_LBC_rtt_replies], 1);
	notify = dst_sink.cm[1];
	fake_free(dst_sink.cm[0]);
	dst_sink.nc = 0;
	CHECK_EQ(reparse(notify, RTR_LB_PARSE_HDR), RTR_DROP_NONE);
	CHECK(is_b8(rtr_meta(notify)->bth_b8, RTR_LB_OP_NOTIFY, 0, 1, 0, 0));
	sink_clear(&dst_sink);

	/* Batch A: paths 0, 1, 2 busy from T + 100 to T + 16100, 3 free. */
	batch_start(src, 10000, NA, T);
	for (unsigned int path = 0; path < 3; path++)
		mark_busy(src, notify, path, T + 100);
	CHECK_EQ(cs[RTR_LBC_notifies_rx], 3);
	CHECK_EQ(cs[RTR_LBC_busy_paths], 3);
	CHECK_EQ(cs[RTR_LBC_flow_table_full], 0);
	/* A NOTIFY changes nothing else: fn still waits for its reply. */
	CHECK(is_b8(src_send(src, &fn, 1, T + 200, cs, NULL).b8, 1, 0, 1, 0, 0));
	memset(cs, 0, sizeof(cs_st.lb));
	batch_tail(src, 10000, NA, T + 8001, a);
	for (unsigned int i = 0; i < NA; i++) {
		if (a[i][0] == 3) {
			if (a[i][1] != 3)
				bad++; /* left the only free path */
			continue;
		}
		n_busy_old++;
		if (a[i][1] == 3)
			moved++;
		else if (a[i][1] == a[i][0])
			stayed++;
		else
			bad++; /* moved to another busy path */
	}
	frac = (double)moved / n_busy_old;
	printf("  3 of 4 busy: %u flows on a busy path, %.1f%% moved to the free one "
	       "(7/16 = 43.75%%), %u stayed\n",
			n_busy_old, 100 * frac, stayed);
	CHECK_EQ(bad, 0);
	CHECK(n_busy_old > 1200, "%u", n_busy_old);
	CHECK(frac > 0.3875 && frac < 0.4875, "%.3f", frac);
	CHECK_EQ(moved + stayed, n_busy_old);
	CHECK_EQ(cs[RTR_LBC_reroutes], moved);
	CHECK_EQ(cs[RTR_LBC_tails], NA);
	CHECK_EQ(cs[RTR_LBC_reply_timeouts], NA);

	/* Batch B: all four busy (0..2 renewed, idempotently) from T + 8200
	 * to T + 24200: nobody moves, but every TAIL and phase change still
	 * happen. */
	memset(cs, 0, sizeof(cs_st.lb));
	batch_start(src, 20000, NB, T + 8100);
	for (unsigned int path = 0; path < 4; path++)
		mark_busy(src, notify, path, T + 8200);
	CHECK_EQ(cs[RTR_LBC_busy_paths], 4);
	batch_tail(src, 20000, NB, T + 16101, b);
	bad = 0;
	for (unsigned int i = 0; i < NB; i++)
		bad += b[i][0] != b[i][1];
	CHECK_EQ(bad, 0);
	CHECK_EQ(cs[RTR_LBC_reroutes], 0);
	CHECK_EQ(cs[RTR_LBC_tails], NB);

	/* Batch C: the marks expired at T + 24200: the first sample is
	 * taken, 3 in 4 flows move, to any other path. */
	memset(cs, 0, sizeof(cs_st.lb));
	batch_start(src, 30000, NC, T + 24200);
	batch_tail(src, 30000, NC, T + 24200 + 8001, cc);
	moved = 0;
	for (unsigned int i = 0; i < NC; i++) {
		if (cc[i][0] != cc[i][1]) {
			moved++;
			to[cc[i][1]]++;
		}
	}
	frac = (double)moved / NC;
	printf("  marks expired: %.1f%% moved (3/4 expected), to paths %u %u %u %u\n", 100 * frac,
			to[0], to[1], to[2], to[3]);
	CHECK(frac > 0.70 && frac < 0.80, "%.3f", frac);
	for (unsigned int path = 0; path < 4; path++)
		CHECK(to[path] > moved / 4 * 0.8 && to[path] < moved / 4 * 1.2, "path %u: %u", path,
				to[path]);
	CHECK_EQ(cs[RTR_LBC_reroutes], moved);

	/* NOTIFY for an unknown flow: counted, no mark. */
	{
		struct rte_mbuf *x = ctrl_copy(notify, 2, RTR_CW_B8(RTR_LB_OP_NOTIFY, 0, 1, 0, 0));
		uint8_t *l3 = mdata(x) + rtr_meta(x)->l3_off;

		memset(cs, 0, sizeof(cs_st.lb));
		l3[12 + 3] ^= 0x55; /* another host: the NOTIFY's source = flow's dst */
		CHECK_EQ(reparse(x, RTR_LB_PARSE_HDR), RTR_DROP_NONE);
		rtr_cw_control_rx(src, x, rtr_meta(x), T + 100000, LB_ST(cs));
		CHECK_EQ(cs[RTR_LBC_ctrl_no_flow], 1);
		CHECK_EQ(cs[RTR_LBC_busy_paths], 0);
		fake_free(x);
	}
	fake_free(notify);
	rtr_cw_free(src);
	rtr_cw_free(dst);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 6b. busy per destination ToR */

/*
 * One aggregate route (10.0.0.0/8 and fd00::/16 over the 4 uplinks, as
 * conf/tor-100g.yaml routes the fabric) carries the flows to two ToRs:
 * X (10.2.0.0/24, fd00:2::/64) and Y (10.3.0.0/24, fd00:3::/64). A NOTIFY
 * answering a flow to X says that the path toward X is congested: flows to
 * X must avoid it, flows to Y must not notice it. Run twice on the same
 * random sequence, without and with X's NOTIFY, through the ops table and
 * a config read as the router reads it (default dst_prefix_len 24 / 64):
 * every new flow to Y must take the same path in both runs.
 */
static const char AGG_CFG[] =
		TEST_AGG_CFG("conweave", "conweave: {reorder_queues_per_port: 4, "
					 "reorder_queue_depth: 16, flow_table_size: 65536}\n");

#define AGG_N 400 /* new flows per destination ToR and family */

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

struct agg_paths {
	int y[2][AGG_N]; /* [v6][i]: new flows to Y */
	int x[2][AGG_N]; /* new flows to X */
	uint64_t busy_paths;
};

static void
agg_run(const struct rtr_config *cfg, bool notify, struct agg_paths *out)
{
	const struct rtr_lb_ops *ops = &rtr_lb_conweave;
	struct rtr_cw_params dp = def_params(NULL);
	struct rtr_cw *dst = mk_inst(&dp, &dst_sink);
	struct rtr_lcore_stats *st = aligned_alloc(64, sizeof(*st));
	struct rtr_group grp[2];
	struct rtr_lb_init in;
	const uint64_t T = T0 + 7000000;
	void *sh, *state;

	memset(st, 0, sizeof(*st));
	memset(grp, 0, sizeof(grp));
	for (unsigned int g = 0; g < 2; g++) {
		grp[g].n_paths = 4;
		atomic_store(&grp[g].live_mask, 0xf);
	}
	sh = ops->shared_create(cfg, 2, false, 0);
	CHECK(sh != NULL);
	memset(&in, 0, sizeof(in));
	in.cfg = cfg;
	in.n_workers = 1;
	in.n_groups = 2;
	in.host_port_mask = 0x1;
	in.hash_seed = SEED;
	in.shared = sh;
	in.io = (struct rtr_lb_io){io_deliver, io_control, io_alloc, &src_sink};
	sink_clear(&src_sink);
	state = ops->init(&in);
	CHECK(state != NULL);
	/* A flow to X of each family; the fabric CE-marks its first packet,
	 * X's DstToR answers with a NOTIFY, made to name path 0. */
	for (unsigned int v6 = 0; v6 < 2; v6++) {
		struct flow f = agg_flow(v6, 2, 1, 4000);
		struct rte_mbuf *m = mk_host(&f, 1, 4, 0, 0x02), *nt = NULL;
		int path = ops->pick(state, &grp[v6], v6, m, rtr_meta(m), T, st);

		CHECK(path >= 0 && (rtr_meta(m)->flags & RTR_MF_LB_HDR));
		to_fabric(m);
		mark_ce(m, RTR_LB_PARSE_HDR);
		CHECK_EQ(dst_rx(dst, &dst_sink, m, 0, T + 10, cd), RTR_CW_FORWARD);
		for (unsigned int i = 0; i < dst_sink.nc; i++) {
			CHECK_EQ(reparse(dst_sink.cm[i], RTR_LB_PARSE_HDR), RTR_DROP_NONE);
			if (rtr_lb_op(rtr_meta(dst_sink.cm[i])->bth_b8) == RTR_LB_OP_NOTIFY)
				nt = dst_sink.cm[i];
		}
		CHECK(nt != NULL);
		if (nt != NULL && notify) {
			struct rte_mbuf *x = ctrl_copy(nt, 0, rtr_meta(nt)->bth_b8);

			/* Addresses swapped: the NOTIFY comes from X's host. */
			CHECK(memcmp(mdata(x) + rtr_meta(x)->l3_off + (v6 ? 8 : 12), f.dst,
					      v6 ? 16 : 4) == 0);
			ops->control_rx(state, x, rtr_meta(x), T + 20, st);
			fake_free(x);
			/* Busy toward X's /24 (/64), for theta_path_busy (16 us). */
			{
				struct flow x2 = agg_flow(v6, 2, 1, 4000),
					    y = agg_flow(v6, 3, 1, 4000);

				x2.dst[v6 ? 15 : 3] = 99;
				CHECK(rtr_cw_path_busy(sh, v6, f.dst, v6, 0, T + 20));
				CHECK(rtr_cw_path_busy(sh, v6, x2.dst, v6, 0, T + 20 + 15999));
				CHECK(!rtr_cw_path_busy(sh, v6, x2.dst, v6, 0, T + 20 + 16000));
				CHECK(!rtr_cw_path_busy(sh, v6, f.dst, v6, 1, T + 20));
				CHECK(!rtr_cw_path_busy(sh, v6, y.dst, v6, 0, T + 20));
				CHECK(!rtr_cw_path_busy(sh, !v6, f.dst, v6, 0, T + 20));
			}
		}
		sink_clear(&dst_sink);
	}
	out->busy_paths = st->lb[RTR_LBC_busy_paths];
	/* New flows to Y first (so the random samples they draw do not
	 * depend on what X's flows drew), then to X. */
	for (unsigned int tor = 3; tor >= 2; tor--) {
		for (unsigned int v6 = 0; v6 < 2; v6++) {
			for (unsigned int i = 0; i < AGG_N; i++) {
				struct flow f = agg_flow(v6, (uint8_t)tor, (uint8_t)(2 + i % 200),
						(uint16_t)(5000 + i));
				struct rte_mbuf *m = mk_host(&f, 1, 4, 0, 0x02);
				int path = ops->pick(
						state, &grp[v6], v6, m, rtr_meta(m), T + 30, st);

				(tor == 3 ? out->y : out->x)[v6][i] = path;
				fake_free(m);
			}
		}
	}
	CHECK_EQ(st->lb[RTR_LBC_flow_table_full], 0);
	CHECK_EQ(st->lb[RTR_LBC_dst_slot_evictions], 0);
	sink_clear(&src_sink);
	ops->fini(state);
	ops->shared_free(sh);
	rtr_cw_free(dst);
	free(st);
}

static void
test_src_busy_per_dst(void)
{
	static struct agg_paths a, b;
	struct rtr_config cfg;
	char err[256];

	printf("6b. NOTIFY for ToR X, one aggregate route: busy toward X only\n");
	memset(&cfg, 0, sizeof(cfg));
	CHECK(rtr_config_load_buf("agg.yaml", "yaml", AGG_CFG, strlen(AGG_CFG), &cfg, err,
			      sizeof(err)) == 0,
			"%s", err);
	zero_counters();
	agg_run(&cfg, false, &a);
	agg_run(&cfg, true, &b);
	CHECK_EQ(a.busy_paths, 0);
	CHECK_EQ(b.busy_paths, 2);
	for (unsigned int v6 = 0; v6 < 2; v6++) {
		unsigned int y_changed = 0, y0a = 0, y0b = 0, x0a = 0, x0b = 0;

		for (unsigned int i = 0; i < AGG_N; i++) {
			y_changed += a.y[v6][i] != b.y[v6][i];
			y0a += a.y[v6][i] == 0;
			y0b += b.y[v6][i] == 0;
			x0a += a.x[v6][i] == 0;
			x0b += b.x[v6][i] == 0;
		}
		printf("   IPv%c: new flows to Y whose path X's NOTIFY changed: %u of %u "
		       "(on path 0: %u without, %u with it);\n"
		       "         new flows to X on path 0: %u without, %u with it\n",
				v6 ? '6' : '4', y_changed, AGG_N, y0a, y0b, x0a, x0b);
		CHECK_EQ(y_changed, 0);
		/* X's flows do avoid the path (both samples must hit it to
		 * stay there: 1 in 16, times the 1 in 4 that start on it). */
		CHECK(x0a > AGG_N / 6 && x0b < AGG_N / 20, "X on path 0: %u, %u", x0a, x0b);
	}
	rtr_config_free(&cfg);
}

/* ------------------------------------------------------------ 6. bypass */

static void
test_src_bypass(void)
{
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *src = mk_inst(&p, &src_sink);
	struct flow f = flow4(60, 61, 6000);
	uint8_t orig[512];
	uint64_t now = T0;

	printf("6. bypass: Resv7 from a host, ACK, dead paths\n");
	zero_counters();
	/* Resv7 != 0 from the host: ECMP, untouched (the ICRC covers it). */
	for (uint8_t b8 = 0x01; b8 != 0; b8 = (uint8_t)(b8 << 1)) {
		uint8_t want = b8 | RTR_BTH_ACKREQ;
		unsigned int n;
		struct rte_mbuf *m;
		int path;

		if (b8 & RTR_BTH_ACKREQ)
			break;
		n = host_frame(orig, &f, 1, 4, want, 0x02);
		m = mk_host(&f, 1, 4, want, 0x02);
		path = rtr_cw_pick(src, &G, 0, m, rtr_meta(m), now, LB_ST(cs));
		CHECK_EQ(path, rtr_group_pick(&G, rtr_meta(m)->flow_hash));
		CHECK_EQ(m->data_len, n);
		CHECK(memcmp(mdata(m), orig, n) == 0);
		CHECK(!(rtr_meta(m)->flags & RTR_MF_LB_HDR));
		fake_free(m);
	}
	CHECK_EQ(cs[RTR_LBC_lb_bypass_resv7], 7);
	CHECK_EQ(cs[RTR_LBC_ecmp_packets], 7);
	CHECK_EQ(cs[RTR_LBC_cw_packets], 0);
	/* ACK, atomic ACK, CNP: ECMP, untouched, not a bypass. */
	{
		const uint8_t ops[] = {RTR_BTH_OP_RC_ACK, RTR_BTH_OP_RC_ATOMIC_ACK, RTR_BTH_OP_CNP};

		memset(cs, 0, sizeof(cs_st.lb));
		for (unsigned int i = 0; i < 3; i++) {
			unsigned int n = host_frame(orig, &f, 2, ops[i], 0, 0x02);
			struct rte_mbuf *m = mk_host(&f, 2, ops[i], 0, 0x02);
			int path = rtr_cw_pick(src, &G, 0, m, rtr_meta(m), now, LB_ST(cs));

			CHECK_EQ(path, rtr_group_pick(&G, rtr_meta(m)->flow_hash));
			CHECK_EQ(m->data_len, n);
			CHECK(memcmp(mdata(m), orig, n) == 0);
			fake_free(m);
		}
		CHECK_EQ(cs[RTR_LBC_ecmp_packets], 3);
		CHECK_EQ(cs[RTR_LBC_lb_bypass_resv7], 0);
		CHECK_EQ(cs[RTR_LBC_rtt_requests], 0);
	}
	/* Already carries the header (transit): ECMP, untouched. */
	{
		struct rte_mbuf *m = mk_cw(&f, 3, 1, 0, 1, 0, 0, 5, 0, 0x02, false);
		unsigned int n = m->data_len;

		memcpy(orig, mdata(m), n);
		memset(cs, 0, sizeof(cs_st.lb));
		CHECK_EQ(rtr_cw_pick(src, &G, 0, m, rtr_meta(m), now, LB_ST(cs)),
				rtr_group_pick(&G, rtr_meta(m)->flow_hash));
		CHECK_EQ(m->data_len, n);
		CHECK(memcmp(mdata(m), orig, n) == 0);
		CHECK_EQ(cs[RTR_LBC_ecmp_packets], 1);
		fake_free(m);
	}
	/* No live path: -1. The flow's path goes down: it moves at once. */
	{
		struct stamp s, r;

		memset(cs, 0, sizeof(cs_st.lb));
		atomic_store(&G.live_mask, 0);
		CHECK_EQ(src_send(src, &f, 4, now, cs, NULL).path, -1);
		atomic_store(&G.live_mask, 0xf);
		s = src_send(src, &f, 5, now + 10, cs, NULL);
		CHECK(is_b8(s.b8, 1, 0, 1, 1, 0));
		atomic_store(&G.live_mask, 0xf & ~(1u << s.path));
		r = src_send(src, &f, 6, now + 20, cs, NULL);
		CHECK(r.path >= 0 && r.path != s.path, "%d %d", r.path, s.path);
		CHECK(is_b8(r.b8, 1, 0, 1, 0, 0));
		CHECK_EQ(cs[RTR_LBC_reroutes], 1);
		atomic_store(&G.live_mask, 0xf);
	}
	rtr_cw_free(src);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 7. DstToR */

/* The sink holds exactly the frames of flow f with these PSNs, in order,
 * each the host's original frame again, on port `port`; held[i] as given
 * (NULL: not checked). Clears the sink's deliveries. */
static void
expect_delivered(struct sink *s, const struct flow *f, const uint32_t *psn, unsigned int n,
		const bool *held, uint16_t port, int line)
{
	CHECK(s->nd == n, "line %d: %u delivered, %u expected", line, s->nd, n);
	for (unsigned int i = 0; i < n && i < s->nd; i++) {
		uint32_t got = frame_psn(s->dm[i], f);

		CHECK(got == psn[i], "line %d: #%u psn %u, %u expected", line, i, got, psn[i]);
		CHECK(is_host_frame(s->dm[i], f, got, 0x02, got % 3 == 0), "line %d: #%u", line, i);
		CHECK(s->dport[i] == port, "line %d", line);
		if (held != NULL)
			CHECK(s->dheld[i] == held[i], "line %d: #%u held %d", line, i, s->dheld[i]);
	}
	for (unsigned int i = 0; i < s->nd; i++)
		fake_free(s->dm[i]);
	s->nd = 0;
}

#define EXPECT(s, f, port, ...)                                                               \
	do {                                                                                  \
		const uint32_t _p[] = {__VA_ARGS__};                                          \
		expect_delivered(s, f, _p, sizeof(_p) / sizeof(_p[0]), NULL, port, __LINE__); \
	} while (0)

/* A data packet as the DstToR gets it: the PSN decides AckReq (every third). */
static struct rte_mbuf *
dpkt(const struct flow *f, uint32_t psn, uint8_t path, unsigned int phase, unsigned int epoch,
		unsigned int ask, unsigned int tail, uint16_t ts_tx, uint16_t ts_tail)
{
	return mk_cw(f, psn, path, phase, epoch, ask, tail, ts_tx, ts_tail, 0x02, psn % 3 == 0);
}

/* Control packet i of the sink: parsed, with its cw fields checked. */
static void
expect_ctrl(struct sink *s, unsigned int i, const struct flow *f, unsigned int op,
		unsigned int phase, unsigned int epoch, uint8_t path, int line)
{
	struct rte_mbuf *m;
	struct rtr_meta *mt;
	const uint8_t *d, *l3;
	unsigned int b, len;

	if (i >= s->nc) {
		CHECK(i < s->nc, "line %d: control %u of %u", line, i, s->nc);
		return;
	}
	m = s->cm[i];
	CHECK_EQ(reparse(m, RTR_LB_PARSE_HDR), RTR_DROP_NONE);
	mt = rtr_meta(m);
	d = mdata(m);
	l3 = d + mt->l3_off;
	b = rtr_meta_bth_off(mt);
	len = m->data_len;
	CHECK(mt->flags & RTR_MF_ROCE, "line %d", line);
	CHECK(mt->flags & RTR_MF_LB_HDR, "line %d", line);
	CHECK(!rtr_meta_ce(mt), "line %d", line);
	CHECK(is_b8(mt->bth_b8, op, phase, epoch, 0, 0), "line %d: b8 %#x", line, mt->bth_b8);
	CHECK((mt->bth_b8 & RTR_BTH_ACKREQ) == 0, "line %d", line);
	CHECK(mt->bth_b4 == path, "line %d: path %u", line, mt->bth_b4);
	CHECK(len == b + 12 + 4, "line %d: len %u", line, len);
	CHECK(m->pkt_len == len, "line %d", line);
	CHECK((mt->tos & 3) == 0, "line %d", line);
	CHECK(mt->sport == f->sport && mt->dport == 4791, "line %d", line);
	CHECK((d[mt->l4_off + 4] << 8 | d[mt->l4_off + 5]) == (int)(len - mt->l4_off), "line %d",
			line);
	if (!f->v6) {
		struct rte_ipv4_hdr ip;

		CHECK(mt->l3 == RTR_L3_IPV4, "line %d", line);
		CHECK(memcmp(l3 + 12, f->dst, 4) == 0 && memcmp(l3 + 16, f->src, 4) == 0,
				"line %d: addresses not swapped", line);
		CHECK((l3[2] << 8 | l3[3]) == (int)(len - mt->l3_off), "line %d", line);
		memcpy(&ip, l3, 20);
		ip.hdr_checksum = 0;
		CHECK(rte_ipv4_cksum(&ip) == ((const struct rte_ipv4_hdr *)l3)->hdr_checksum,
				"line %d: IPv4 checksum", line);
	} else {
		CHECK(mt->l3 == RTR_L3_IPV6, "line %d", line);
		CHECK(memcmp(l3 + 8, f->dst, 16) == 0 && memcmp(l3 + 24, f->src, 16) == 0,
				"line %d: addresses not swapped", line);
		CHECK((l3[4] << 8 | l3[5]) == (int)(len - mt->l4_off), "line %d", line);
	}
}

static uint16_t
ctrl_ts(struct rte_mbuf *m, int which)
{
	const uint8_t *h = mdata(m) + rtr_meta_bth_off(rtr_meta(m)) + 12 + 2 * which;

	return (uint16_t)(h[0] << 8 | h[1]);
}

static void
ctrl_clear(struct sink *s)
{
	for (unsigned int i = 0; i < s->nc; i++)
		fake_free(s->cm[i]);
	s->nc = 0;
}

static struct rtr_cw *
dst_inst(unsigned int n_rings, unsigned int depth)
{
	struct rtr_cw_params p = def_params(NULL);

	p.n_rings = n_rings;
	p.ring_depth = depth;
	memset(cd, 0, sizeof(cd_st.lb));
	return mk_inst(&p, &dst_sink);
}

static void
dst_done(struct rtr_cw *cw)
{
	CHECK_EQ(rtr_cw_held(cw), 0);
	rtr_cw_free(cw);
	sink_clear(&dst_sink);
}

#define RX(cw, m, port, now) dst_rx(cw, &dst_sink, m, port, now, cd)

static void
test_dst_epochs(void)
{
	struct rtr_cw *cw = dst_inst(8, 64);
	struct flow f = flow4(70, 71, 7000);
	struct sink *s = &dst_sink;
	uint64_t R = T0;

	printf("7. DstToR: epochs\n");
	CHECK_EQ(RX(cw, dpkt(&f, 0, 1, 0, 1, 0, 0, 10, 0), 1, R), RTR_CW_FORWARD);
	CHECK_EQ(RX(cw, dpkt(&f, 1, 1, 0, 1, 0, 0, 11, 0), 1, R + 10), RTR_CW_FORWARD);
	EXPECT(s, &f, 1, 0, 1);
	/* Previous epoch: at once, even phase 1, even CE-marked; no state. */
	CHECK_EQ(RX(cw, dpkt(&f, 2, 1, 0, 0, 0, 0, 12, 0), 1, R + 20), RTR_CW_FORWARD);
	CHECK_EQ(RX(cw, dpkt(&f, 3, 1, 1, 0, 0, 0, 13, 5), 1, R + 30), RTR_CW_FORWARD);
	{
		struct rte_mbuf *m = dpkt(&f, 4, 1, 0, 0, 1, 0, 14, 0);

		mark_ce(m, RTR_LB_PARSE_HDR);
		CHECK_EQ(RX(cw, m, 1, R + 40), RTR_CW_FORWARD);
		CHECK_EQ(frame_psn(s->dm[2], &f), 4);
		fake_free(s->dm[2]);
		s->nd = 2;
	}
	EXPECT(s, &f, 1, 2, 3);
	CHECK_EQ(cd[RTR_LBC_late_epoch_packets], 3);
	CHECK_EQ(s->nc, 0); /* no RTT_REPLY, no NOTIFY for a late packet */
	CHECK_EQ(rtr_cw_held(cw), 0);
	CHECK_EQ(cd[RTR_LBC_rtt_requests_rx], 1); /* counted as it arrived */
	/* The late packets changed nothing: epoch 1 still current, so a
	 * phase-1 packet of epoch 1 is held. */
	CHECK_EQ(RX(cw, dpkt(&f, 5, 1, 1, 1, 0, 0, 15, 12), 1, R + 50), RTR_CW_HELD);
	CHECK_EQ(rtr_cw_held(cw), 1);
	/* Epoch 2 (d = 1): new; flushes the ring (overrun), then itself. */
	CHECK_EQ(RX(cw, dpkt(&f, 6, 2, 0, 2, 0, 0, 16, 0), 1, R + 60), RTR_CW_FORWARD);
	EXPECT(s, &f, 1, 5, 6);
	CHECK_EQ(cd[RTR_LBC_epoch_overrun], 1);
	CHECK_EQ(cd[RTR_LBC_reorder_queues_in_use], 0);
	CHECK_EQ(rtr_cw_held(cw), 0);
	/* Epoch 1 now (d = 3): late. */
	CHECK_EQ(RX(cw, dpkt(&f, 7, 1, 0, 1, 0, 0, 17, 0), 1, R + 70), RTR_CW_FORWARD);
	CHECK_EQ(cd[RTR_LBC_late_epoch_packets], 4);
	/* Epoch 0 (d = 2): new. Then 3 is the previous one, 1 new again. */
	CHECK_EQ(RX(cw, dpkt(&f, 8, 1, 0, 0, 0, 0, 18, 0), 1, R + 80), RTR_CW_FORWARD);
	CHECK_EQ(cd[RTR_LBC_late_epoch_packets], 4);
	CHECK_EQ(RX(cw, dpkt(&f, 9, 1, 0, 3, 0, 0, 19, 0), 1, R + 90), RTR_CW_FORWARD);
	CHECK_EQ(cd[RTR_LBC_late_epoch_packets], 5);
	/* Epoch 1 whose first packet is its TAIL: rx_phase 1 at once, CLEAR;
	 * later phase-1 packets are not held. */
	CHECK_EQ(RX(cw, dpkt(&f, 10, 1, 0, 1, 1, 1, 20, 20), 1, R + 100), RTR_CW_FORWARD);
	CHECK_EQ(s->nc, 1);
	expect_ctrl(s, 0, &f, RTR_LB_OP_REPLY, 1, 1, 1, __LINE__);
	CHECK_EQ(RX(cw, dpkt(&f, 11, 3, 1, 1, 0, 0, 21, 20), 1, R + 110), RTR_CW_FORWARD);
	EXPECT(s, &f, 1, 7, 8, 9, 10, 11);
	CHECK_EQ(cd[RTR_LBC_late_epoch_packets], 5);
	CHECK_EQ(cd[RTR_LBC_epoch_overrun], 1);
	CHECK_EQ(cd[RTR_LBC_tails_rx], 1);
	CHECK_EQ(cd[RTR_LBC_clears], 1);
	CHECK_EQ(cd[RTR_LBC_rtt_replies], 0);
	ctrl_clear(s);
	dst_done(cw);
}

static void
test_dst_control(void)
{
	printf("7. DstToR: RTT_REPLY, NOTIFY\n");
	for (int v = 0; v < 2; v++) {
		struct rtr_cw *cw = dst_inst(8, 64);
		struct flow f = v ? flow6(72, 73, 7100) : flow4(72, 73, 7100);
		struct sink *s = &dst_sink;
		struct rte_mbuf *m;
		uint32_t fwd_hash;

		/* RTT_REQUEST: one RTT_REPLY. */
		m = dpkt(&f, 0, 2, 0, 1, 1, 0, 0x1234, 0x0042);
		CHECK_EQ(RX(cw, m, 1, T0), RTR_CW_FORWARD);
		EXPECT(s, &f, 1, 0);
		CHECK_EQ(s->nc, 1);
		expect_ctrl(s, 0, &f, RTR_LB_OP_REPLY, 0, 1, 2, __LINE__);
		CHECK_EQ(ctrl_ts(s->cm[0], 0), 0x1234);
		CHECK_EQ(ctrl_ts(s->cm[0], 1), 0x0042);
		CHECK_EQ(cd[RTR_LBC_rtt_replies], 1);
		CHECK_EQ(cd[RTR_LBC_rtt_requests_rx], 1);
		CHECK_EQ(s->allocs, 1);
		/* The SrcToR finds the flow by the reverse hash. */
		m = mk_host(&f, 0, 4, 0, 0x02);
		fwd_hash = rtr_meta(m)->flow_hash;
		fake_free(m);
		CHECK_EQ(rtr_flow_hash_reverse(mdata(s->cm[0]), rtr_meta(s->cm[0]), SEED),
				fwd_hash);
		ctrl_clear(s);
		/* Not a request: nothing. */
		CHECK_EQ(RX(cw, dpkt(&f, 1, 2, 0, 1, 0, 0, 0x1235, 0), 1, T0 + 10), RTR_CW_FORWARD);
		CHECK_EQ(s->nc, 0);
		/* CE-marked: NOTIFY with its path. */
		m = dpkt(&f, 2, 3, 0, 1, 0, 0, 0x1236, 0);
		mark_ce(m, RTR_LB_PARSE_HDR);
		CHECK_EQ(RX(cw, m, 1, T0 + 20), RTR_CW_FORWARD);
		CHECK_EQ(s->nc, 1);
		expect_ctrl(s, 0, &f, RTR_LB_OP_NOTIFY, 0, 1, 3, __LINE__);
		CHECK_EQ(cd[RTR_LBC_notifies], 1);
		ctrl_clear(s);
		/* The delivered CE packet keeps its CE mark for the host. */
		CHECK_EQ(s->nd, 2);
		if (s->nd == 2) {
			struct rte_mbuf *x = s->dm[1];

			CHECK_EQ(reparse(x, 0), RTR_DROP_NONE);
			CHECK(rtr_meta_ce(rtr_meta(x)));
			CHECK_EQ(rtr_meta(x)->bth_b8 & RTR_BTH_RESV7_MASK, 0);
			CHECK_EQ(rtr_meta(x)->bth_b4, 0);
			CHECK_EQ(x->data_len, bth_off_of(&f) + 12 + PAYLOAD + 4);
		}
		sink_clear(s);
		/* CE-marked RTT_REQUEST of a new epoch: REPLY and NOTIFY. */
		m = dpkt(&f, 3, 0, 0, 2, 1, 0, 0x2000, 0);
		mark_ce(m, RTR_LB_PARSE_HDR);
		CHECK_EQ(RX(cw, m, 1, T0 + 30), RTR_CW_FORWARD);
		CHECK_EQ(s->nc, 2);
		expect_ctrl(s, 0, &f, RTR_LB_OP_REPLY, 0, 2, 0, __LINE__);
		expect_ctrl(s, 1, &f, RTR_LB_OP_NOTIFY, 0, 2, 0, __LINE__);
		ctrl_clear(s);
		dst_done(cw);
	}
}

static void
test_dst_hold_tail(void)
{
	struct rtr_cw *cw = dst_inst(8, 64);
	struct flow f = flow4(74, 75, 7400);
	struct sink *s = &dst_sink;
	const uint16_t P = 1000;
	uint64_t R = T0 + 100000;
	const bool held[] = {false, true, true, true};

	printf("7. DstToR: hold until the TAIL\n");
	CHECK_EQ(RX(cw, dpkt(&f, 0, 1, 0, 1, 1, 0, P, 0), 1, R), RTR_CW_FORWARD);
	CHECK_EQ(RX(cw, dpkt(&f, 1, 1, 0, 1, 0, 0, P + 5, 0), 1, R + 5000), RTR_CW_FORWARD);
	EXPECT(s, &f, 1, 0, 1);
	ctrl_clear(s);
	/* Phase 1 before the TAIL: held, in order. */
	CHECK_EQ(RX(cw, dpkt(&f, 3, 2, 1, 1, 0, 0, P + 20, P + 10), 1, R + 6000), RTR_CW_HELD);
	CHECK_EQ(RX(cw, dpkt(&f, 4, 2, 1, 1, 0, 0, P + 21, P + 10), 1, R + 6100), RTR_CW_HELD);
	CHECK_EQ(RX(cw, dpkt(&f, 5, 2, 1, 1, 0, 0, P + 22, P + 10), 1, R + 6200), RTR_CW_HELD);
	CHECK_EQ(s->nd, 0);
	CHECK_EQ(s->nc, 0);
	CHECK_EQ(rtr_cw_held(cw), 3);
	CHECK_EQ(cd[RTR_LBC_reorder_held], 3);
	CHECK_EQ(cd[RTR_LBC_reorder_queues_in_use], 1);
	CHECK_EQ(rtr_cw_next_deadline(cw), R + 5000 + 5 * 1024 + 16000);
	/* The TAIL: delivered first (through io.deliver), then the ring. */
	CHECK_EQ(RX(cw, dpkt(&f, 2, 1, 0, 1, 1, 1, P + 10, P + 10), 1, R + 12000), RTR_CW_HELD);
	{
		const uint32_t want[] = {2, 3, 4, 5};

		expect_delivered(s, &f, want, 4, held, 1, __LINE__);
	}
	CHECK_EQ(s->nc, 1);
	expect_ctrl(s, 0, &f, RTR_LB_OP_REPLY, 1, 1, 1, __LINE__);
	CHECK_EQ(ctrl_ts(s->cm[0], 0), P + 10);
	CHECK_EQ(ctrl_ts(s->cm[0], 1), P + 10);
	ctrl_clear(s);
	CHECK_EQ(rtr_cw_held(cw), 0);
	CHECK_EQ(cd[RTR_LBC_reorder_flush_tail], 1);
	CHECK_EQ(cd[RTR_LBC_reorder_flush_timeout], 0);
	CHECK_EQ(cd[RTR_LBC_reorder_queues_in_use], 0);
	CHECK_EQ(cd[RTR_LBC_reorder_queues_max], 1);
	CHECK_EQ(cd[RTR_LBC_reorder_hold_max_ns], 6000);
	CHECK_EQ(cd[RTR_LBC_clears], 1);
	CHECK_EQ(cd[RTR_LBC_tails_rx], 1);
	/* After the TAIL: phase 1 goes straight through; no second CLEAR
	 * for the same epoch. */
	CHECK_EQ(RX(cw, dpkt(&f, 6, 2, 1, 1, 0, 0, P + 30, P + 10), 1, R + 13000), RTR_CW_FORWARD);
	CHECK_EQ(RX(cw, dpkt(&f, 7, 1, 0, 1, 1, 1, P + 10, P + 10), 1, R + 14000), RTR_CW_FORWARD);
	EXPECT(s, &f, 1, 6, 7);
	CHECK_EQ(s->nc, 0);
	/* The old deadline passes: nothing (the hold ended). */
	rtr_cw_tick(cw, R + 1000000, LB_ST(cd));
	CHECK_EQ(s->nd + s->nc, 0);
	CHECK_EQ(cd[RTR_LBC_reorder_flush_timeout], 0);
	CHECK_EQ(rtr_cw_next_deadline(cw), UINT64_MAX);
	dst_done(cw);
}

/* A flow that holds packets until its deadline: phase-0 sample at rx time
 * R with ts_tx p0, held packets with ts_tail tt. */
static void
hold_deadline_case(uint16_t p0, uint16_t tt, uint64_t want_gap, const char *what)
{
	struct rtr_cw *cw = dst_inst(8, 64);
	struct flow f = flow6(76, 77, 7600);
	struct sink *s = &dst_sink;
	uint64_t R = T0 + 200000, dl = R + want_gap + 16000;
	const bool held[] = {true, true};

	printf("7. DstToR: deadline, %s\n", what);
	CHECK_EQ(RX(cw, dpkt(&f, 0, 1, 0, 1, 1, 0, p0, 0), 1, R), RTR_CW_FORWARD);
	EXPECT(s, &f, 1, 0);
	ctrl_clear(s);
	CHECK_EQ(RX(cw, dpkt(&f, 2, 3, 1, 1, 0, 0, (uint16_t)(tt + 1), tt), 1, R + 3000),
			RTR_CW_HELD);
	CHECK_EQ(RX(cw, dpkt(&f, 3, 3, 1, 1, 0, 0, (uint16_t)(tt + 2), tt), 1, R + 3100),
			RTR_CW_HELD);
	CHECK_EQ(rtr_cw_next_deadline(cw), dl);
	rtr_cw_tick(cw, dl - 1, LB_ST(cd));
	CHECK_EQ(s->nd + s->nc, 0);
	CHECK_EQ(rtr_cw_held(cw), 2);
	rtr_cw_tick(cw, dl, LB_ST(cd));
	{
		const uint32_t want[] = {2, 3};

		expect_delivered(s, &f, want, 2, held, 1, __LINE__);
	}
	CHECK_EQ(s->nc, 1);
	/* The CLEAR answers the first held packet: its path, ts_tx, ts_tail. */
	expect_ctrl(s, 0, &f, RTR_LB_OP_REPLY, 1, 1, 3, __LINE__);
	CHECK_EQ(ctrl_ts(s->cm[0], 0), (uint16_t)(tt + 1));
	CHECK_EQ(ctrl_ts(s->cm[0], 1), tt);
	ctrl_clear(s);
	CHECK_EQ(cd[RTR_LBC_reorder_flush_timeout], 1);
	CHECK_EQ(cd[RTR_LBC_clears], 1);
	CHECK_EQ(cd[RTR_LBC_reorder_hold_max_ns], dl - (R + 3000));
	CHECK_EQ(rtr_cw_held(cw), 0);
	CHECK_EQ(rtr_cw_next_deadline(cw), UINT64_MAX);
	/* The lost TAIL shows up after all: forwarded, no second CLEAR;
	 * phase 1 is no longer held. */
	CHECK_EQ(RX(cw, dpkt(&f, 1, 1, 0, 1, 1, 1, tt, tt), 1, dl + 10), RTR_CW_FORWARD);
	CHECK_EQ(RX(cw, dpkt(&f, 4, 3, 1, 1, 0, 0, (uint16_t)(tt + 3), tt), 1, dl + 20),
			RTR_CW_FORWARD);
	EXPECT(s, &f, 1, 1, 4);
	CHECK_EQ(s->nc, 0);
	CHECK_EQ(cd[RTR_LBC_reorder_flush_tail], 0);
	dst_done(cw);
}

/*
 * Holds that end by their TAIL leave their timers in the heap (lazy
 * deletion) until they come to the top. 200 holds of one flow, far more
 * than the heap's n_ports x n_rings + 1 slots, never ticked: the heap is
 * compacted in place (no allocation on the data path) and every hold
 * still works.
 */
static void
test_dst_stale_timers(void)
{
	struct rtr_cw *cw = dst_inst(8, 64);
	struct flow f = flow4(76, 77, 7600);
	struct sink *s = &dst_sink;
	uint64_t R = T0 + 100000;
	uint32_t psn = 0;

	printf("7b. DstToR: 200 holds ended by their TAIL, timers never due\n");
	for (unsigned int k = 0; k < 200; k++) {
		unsigned int e = (k + 1) & 3;
		uint16_t P = (uint16_t)(1000 + 50 * k);
		uint64_t t = R + (uint64_t)k * 50 * 1024;

		/* RTT_REQUEST of epoch e on path 1, then a phase-1 packet on
		 * path 2 that overtakes the TAIL, then the TAIL. */
		CHECK_EQ(RX(cw, dpkt(&f, psn, 1, 0, e, 1, 0, P, 0), 1, t), RTR_CW_FORWARD);
		CHECK_EQ(RX(cw, dpkt(&f, psn + 2, 2, 1, e, 0, 0, P + 3, P + 1), 1, t + 3000),
				RTR_CW_HELD);
		CHECK_EQ(RX(cw, dpkt(&f, psn + 1, 1, 0, e, 1, 1, P + 1, P + 1), 1, t + 4000),
				RTR_CW_HELD);
		EXPECT(s, &f, 1, psn, psn + 1, psn + 2);
		ctrl_clear(s);
		psn += 3;
	}
	CHECK_EQ(cd[RTR_LBC_reorder_overflow], 0);
	CHECK_EQ(cd[RTR_LBC_reorder_flush_tail], 200);
	CHECK_EQ(cd[RTR_LBC_reorder_held], 200);
	CHECK_EQ(rtr_cw_held(cw), 0);
	/* Only stale timers are left: ticking past them all fires nothing. */
	rtr_cw_tick(cw, R + 1000000000ull, LB_ST(cd));
	CHECK_EQ(cd[RTR_LBC_reorder_flush_timeout], 0);
	CHECK_EQ(rtr_cw_next_deadline(cw), UINT64_MAX);
	rtr_cw_free(cw);
}

static void
test_dst_deadlines(void)
{
	struct sink *s = &dst_sink;

	hold_deadline_case(5000, 5050, 50 * 1024, "phase-0 sample");
	hold_deadline_case(65530, 100, 106 * 1024, "16-bit wrap");
	hold_deadline_case(5050, 5000, 0, "TAIL sent before the sample: gap 0");

	/* No phase-0 sample: now + resume_default + resume_extra. */
	{
		struct rtr_cw *cw = dst_inst(8, 64);
		struct flow f = flow4(78, 79, 7800);
		uint64_t R = T0 + 300000, dl = R + 200000 + 16000;

		printf("7. DstToR: deadline without a phase-0 sample\n");
		CHECK_EQ(RX(cw, dpkt(&f, 5, 2, 1, 1, 0, 0, 300, 200), 0, R), RTR_CW_HELD);
		CHECK_EQ(RX(cw, dpkt(&f, 6, 2, 1, 1, 0, 0, 301, 200), 0, R + 100000), RTR_CW_HELD);
		CHECK_EQ(rtr_cw_next_deadline(cw), dl);
		rtr_cw_tick(cw, dl - 1, LB_ST(cd));
		CHECK_EQ(s->nd, 0);
		rtr_cw_tick(cw, dl, LB_ST(cd));
		EXPECT(s, &f, 0, 5, 6);
		CHECK_EQ(s->nc, 1);
		expect_ctrl(s, 0, &f, RTR_LB_OP_REPLY, 1, 1, 2, __LINE__);
		ctrl_clear(s);
		dst_done(cw);
	}
	/* A phase-0 packet during the hold pushes the deadline (never pulls
	 * it in). */
	{
		struct rtr_cw *cw = dst_inst(8, 64);
		struct flow f = flow4(80, 81, 8000);
		const uint16_t Q = 40000;
		uint64_t R = T0 + 400000, d1 = R + 50 * 1024 + 16000;
		uint64_t d2 = R + 20000 + 40 * 1024 + 16000;

		printf("7. DstToR: a phase-0 packet pushes the deadline\n");
		CHECK_EQ(RX(cw, dpkt(&f, 0, 1, 0, 1, 1, 0, Q, 0), 1, R), RTR_CW_FORWARD);
		CHECK_EQ(RX(cw, dpkt(&f, 10, 2, 1, 1, 0, 0, Q + 55, Q + 50), 1, R + 1000),
				RTR_CW_HELD);
		CHECK_EQ(rtr_cw_next_deadline(cw), d1);
		CHECK_EQ(RX(cw, dpkt(&f, 1, 1, 0, 1, 0, 0, Q + 10, 0), 1, R + 20000),
				RTR_CW_FORWARD);
		/* A sample at or after the TAIL's time: gap 0, earlier: kept. */
		CHECK_EQ(RX(cw, dpkt(&f, 2, 1, 0, 1, 0, 0, Q + 60, 0), 1, R + 21000),
				RTR_CW_FORWARD);
		EXPECT(s, &f, 1, 0, 1, 2);
		ctrl_clear(s);
		rtr_cw_tick(cw, d1, LB_ST(cd));
		CHECK_EQ(s->nd, 0);
		CHECK_EQ(rtr_cw_held(cw), 1);
		CHECK_EQ(cd[RTR_LBC_reorder_flush_timeout], 0);
		rtr_cw_tick(cw, d2 - 1, LB_ST(cd));
		CHECK_EQ(s->nd, 0);
		rtr_cw_tick(cw, d2, LB_ST(cd));
		EXPECT(s, &f, 1, 10);
		CHECK_EQ(cd[RTR_LBC_reorder_flush_timeout], 1);
		CHECK_EQ(s->nc, 1);
		ctrl_clear(s);
		dst_done(cw);
	}
}

static void
test_dst_overflow(void)
{
	struct sink *s = &dst_sink;

	/* One ring for two flows: the second is not reordered, nothing lost. */
	{
		struct rtr_cw *cw = dst_inst(1, 64);
		struct flow a = flow4(82, 83, 8200), b = flow4(82, 83, 8201);
		uint64_t R = T0 + 500000;

		printf("7. DstToR: no free ring, full ring\n");
		CHECK_EQ(RX(cw, dpkt(&a, 0, 1, 0, 1, 1, 0, 100, 0), 1, R), RTR_CW_FORWARD);
		EXPECT(s, &a, 1, 0);
		CHECK_EQ(RX(cw, dpkt(&b, 0, 1, 0, 1, 1, 0, 100, 0), 1, R), RTR_CW_FORWARD);
		EXPECT(s, &b, 1, 0);
		ctrl_clear(s);
		CHECK_EQ(RX(cw, dpkt(&a, 2, 2, 1, 1, 0, 0, 112, 110), 1, R + 100), RTR_CW_HELD);
		CHECK_EQ(RX(cw, dpkt(&b, 2, 2, 1, 1, 0, 0, 112, 110), 1, R + 200), RTR_CW_FORWARD);
		CHECK_EQ(cd[RTR_LBC_reorder_overflow], 1);
		CHECK_EQ(RX(cw, dpkt(&b, 3, 2, 1, 1, 0, 0, 113, 110), 1, R + 300), RTR_CW_FORWARD);
		CHECK_EQ(cd[RTR_LBC_reorder_overflow], 1); /* once per epoch */
		EXPECT(s, &b, 1, 2, 3);
		CHECK_EQ(rtr_cw_held(cw), 1);
		/* b's TAIL: forwarded, CLEAR; a's: releases a's ring. */
		CHECK_EQ(RX(cw, dpkt(&b, 1, 1, 0, 1, 1, 1, 110, 110), 1, R + 400), RTR_CW_FORWARD);
		CHECK_EQ(RX(cw, dpkt(&a, 1, 1, 0, 1, 1, 1, 110, 110), 1, R + 500), RTR_CW_HELD);
		CHECK_EQ(s->nd, 3);
		CHECK_EQ(frame_psn(s->dm[0], &b), 1);
		fake_free(s->dm[0]);
		memmove(s->dm, s->dm + 1, 2 * sizeof(s->dm[0]));
		s->nd = 2;
		EXPECT(s, &a, 1, 1, 2);
		CHECK_EQ(s->nc, 2);
		ctrl_clear(s);
		/* The ring is free again: b's next epoch may hold. */
		CHECK_EQ(RX(cw, dpkt(&b, 4, 2, 1, 2, 0, 0, 120, 118), 1, R + 600), RTR_CW_HELD);
		CHECK_EQ(rtr_cw_flush(cw, -1, R + 700, LB_ST(cd)), 1);
		EXPECT(s, &b, 1, 4);
		/* A port without reorder rings: never held. */
		CHECK_EQ(RX(cw, dpkt(&a, 3, 2, 1, 2, 0, 0, 120, 118), 5, R + 800), RTR_CW_FORWARD);
		CHECK_EQ(cd[RTR_LBC_reorder_overflow], 2);
		EXPECT(s, &a, 5, 3);
		dst_done(cw);
	}
	/* Depth 4: the fifth held packet releases the four, then goes. */
	{
		struct rtr_cw *cw = dst_inst(8, 4);
		struct flow f = flow6(84, 85, 8400);
		uint64_t R = T0 + 600000;
		const bool held[] = {true, true, true, true, false};

		CHECK_EQ(RX(cw, dpkt(&f, 0, 1, 0, 1, 1, 0, 100, 0), 1, R), RTR_CW_FORWARD);
		EXPECT(s, &f, 1, 0);
		ctrl_clear(s);
		for (uint32_t i = 0; i < 4; i++)
			CHECK_EQ(RX(cw, dpkt(&f, 10 + i, 2, 1, 1, 0, 0, (uint16_t)(112 + i), 110),
						 1, R + 100 + i),
					RTR_CW_HELD);
		CHECK_EQ(s->nd, 0);
		CHECK_EQ(RX(cw, dpkt(&f, 14, 2, 1, 1, 0, 0, 116, 110), 1, R + 200), RTR_CW_FORWARD);
		{
			const uint32_t want[] = {10, 11, 12, 13, 14};

			expect_delivered(s, &f, want, 5, held, 1, __LINE__);
		}
		CHECK_EQ(cd[RTR_LBC_reorder_overflow], 1);
		CHECK_EQ(cd[RTR_LBC_reorder_held], 4);
		CHECK_EQ(rtr_cw_held(cw), 0);
		CHECK_EQ(cd[RTR_LBC_reorder_queues_in_use], 0);
		CHECK_EQ(s->nc, 0); /* no CLEAR: the TAIL has not come */
		CHECK_EQ(RX(cw, dpkt(&f, 15, 2, 1, 1, 0, 0, 117, 110), 1, R + 300), RTR_CW_FORWARD);
		CHECK_EQ(RX(cw, dpkt(&f, 1, 1, 0, 1, 1, 1, 110, 110), 1, R + 400), RTR_CW_FORWARD);
		EXPECT(s, &f, 1, 15, 1);
		CHECK_EQ(s->nc, 1);
		expect_ctrl(s, 0, &f, RTR_LB_OP_REPLY, 1, 1, 1, __LINE__);
		ctrl_clear(s);
		CHECK_EQ(cd[RTR_LBC_reorder_overflow], 1);
		dst_done(cw);
	}
}

static void
test_dst_flush(void)
{
	struct rtr_cw *cw = dst_inst(8, 64);
	struct flow a = flow4(86, 87, 8600), b = flow6(86, 87, 8601);
	struct sink *s = &dst_sink;
	uint64_t R = T0 + 700000;

	printf("7. DstToR: flush, no mbuf for control packets\n");
	CHECK_EQ(RX(cw, dpkt(&a, 5, 2, 1, 1, 0, 0, 10, 9), 0, R), RTR_CW_HELD);
	CHECK_EQ(RX(cw, dpkt(&a, 6, 2, 1, 1, 0, 0, 11, 9), 0, R), RTR_CW_HELD);
	CHECK_EQ(RX(cw, dpkt(&b, 7, 2, 1, 1, 0, 0, 10, 9), 1, R), RTR_CW_HELD);
	CHECK_EQ(RX(cw, dpkt(&b, 8, 2, 1, 1, 0, 0, 11, 9), 1, R), RTR_CW_HELD);
	CHECK_EQ(RX(cw, dpkt(&b, 9, 2, 1, 1, 0, 0, 12, 9), 1, R), RTR_CW_HELD);
	CHECK_EQ(rtr_cw_held(cw), 5);
	CHECK_EQ(cd[RTR_LBC_reorder_queues_in_use], 2);
	CHECK_EQ(rtr_cw_flush(cw, 1, R + 10, LB_ST(cd)), 3);
	EXPECT(s, &b, 1, 7, 8, 9);
	CHECK_EQ(rtr_cw_held(cw), 2);
	CHECK_EQ(rtr_cw_flush(cw, -1, R + 20, LB_ST(cd)), 2);
	EXPECT(s, &a, 0, 5, 6);
	CHECK_EQ(rtr_cw_held(cw), 0);
	CHECK_EQ(cd[RTR_LBC_reorder_queues_in_use], 0);
	CHECK_EQ(cd[RTR_LBC_reorder_queues_max], 2);
	CHECK_EQ(rtr_cw_flush(cw, -1, R + 30, LB_ST(cd)), 0);
	/* Flushed flows no longer hold this epoch. */
	CHECK_EQ(RX(cw, dpkt(&a, 10, 2, 1, 1, 0, 0, 12, 9), 0, R + 40), RTR_CW_FORWARD);
	EXPECT(s, &a, 0, 10);
	/* Timers of the flushed flows are stale: a tick does nothing. */
	rtr_cw_tick(cw, R + 10000000, LB_ST(cd));
	CHECK_EQ(s->nd + s->nc, 0);
	/* No mbuf for a control packet: counted, the data still goes. */
	s->no_alloc = true;
	CHECK_EQ(RX(cw, dpkt(&a, 11, 1, 0, 2, 1, 0, 20, 0), 0, R + 20000000), RTR_CW_FORWARD);
	EXPECT(s, &a, 0, 11);
	CHECK_EQ(s->nc, 0);
	CHECK_EQ(cd[RTR_LBC_ctrl_alloc_failed], 1);
	s->no_alloc = false;
	dst_done(cw);
}

/* ------------------------------------------------------------ 7c. issue 15: stale epochs */

/*
 * Issue 15 item 2. Epochs are 2 bits and advance at every on-time reply, so
 * a straggler 2 or 3 epochs old carries an epoch field 2 or 1 ahead of the
 * current one, which the modulo-4 rule alone takes for a new epoch. Its
 * ts_tx tells it apart: it left the SrcToR before the current epoch began.
 * Here a flow of epoch 3 holds two phase-1 packets (its TAIL is lost); a
 * packet of epoch 2 (previous), a TAIL of epoch 0 (3 epochs old, CE-marked)
 * and a phase-1 packet of epoch 1 (2 epochs old) arrive. They are delivered
 * at once and change nothing: the hold stays, the deadline stays, no
 * control packet is sent, and the deadline's CLEAR carries epoch 3.
 */
static void
test_dst_stale_epochs(void)
{
	struct rtr_cw *cw = dst_inst(8, 64);
	struct flow f = flow4(88, 89, 8800);
	struct sink *s = &dst_sink;
	uint64_t R = T0 + 800000, dl = R + 305000 + 5 * 1024 + 16000;
	unsigned int early = 0;
	struct rte_mbuf *m;

	printf("7c. DstToR: stragglers 2 and 3 epochs old (ts_tx before the epoch)\n");
	/* Epochs 0..3, one RTT_REQUEST each, 100 us apart (ts 100 units). */
	for (unsigned int e = 0; e < 4; e++)
		CHECK_EQ(RX(cw, dpkt(&f, 10 * e, 1, 0, e, 1, 0, (uint16_t)(100 + 100 * e), 0), 1,
					 R + 100000 * e),
				RTR_CW_FORWARD);
	CHECK_EQ(RX(cw, dpkt(&f, 31, 1, 0, 3, 0, 0, 405, 0), 1, R + 305000), RTR_CW_FORWARD);
	EXPECT(s, &f, 1, 0, 10, 20, 30, 31);
	CHECK_EQ(s->nc, 4);
	ctrl_clear(s);
	/* The TAIL (psn 32, ts 410) is lost; 33 and 34 overtook it. */
	CHECK_EQ(RX(cw, dpkt(&f, 33, 2, 1, 3, 0, 0, 412, 410), 1, R + 306000), RTR_CW_HELD);
	CHECK_EQ(RX(cw, dpkt(&f, 34, 2, 1, 3, 0, 0, 413, 410), 1, R + 306100), RTR_CW_HELD);
	CHECK_EQ(rtr_cw_held(cw), 2);
	CHECK_EQ(rtr_cw_next_deadline(cw), dl);

	/* Epoch 2 (d = 3): the previous epoch, as before. */
	CHECK_EQ(RX(cw, dpkt(&f, 21, 1, 0, 2, 0, 0, 310, 0), 1, R + 307000), RTR_CW_FORWARD);
	CHECK_EQ(cd[RTR_LBC_late_epoch_packets], 1);
	/* Epoch 0 (d = 1), a CE-marked TAIL sent at ts 105. */
	m = dpkt(&f, 1, 1, 0, 0, 1, 1, 105, 105);
	mark_ce(m, RTR_LB_PARSE_HDR);
	CHECK_EQ(RX(cw, m, 1, R + 308000), RTR_CW_FORWARD);
	/* Epoch 1 (d = 2), a phase-1 packet sent at ts 212. */
	CHECK_EQ(RX(cw, dpkt(&f, 12, 3, 1, 1, 0, 0, 212, 210), 1, R + 309000), RTR_CW_FORWARD);
	/* Whatever the stragglers released early overtook the lost TAIL. */
	for (unsigned int i = 0; i < s->nd; i++) {
		uint32_t psn = frame_psn(s->dm[i], &f);

		early += psn == 33 || psn == 34;
	}
	printf("  held packets released by the stragglers: %u (of 2), control packets sent: "
	       "%u, held now %lu\n",
			early, s->nc, (unsigned long)rtr_cw_held(cw));
	CHECK_EQ(early, 0);
	CHECK_EQ(s->nc, 0); /* no CLEAR, no NOTIFY for a stale packet */
	CHECK_EQ(rtr_cw_held(cw), 2);
	CHECK_EQ(rtr_cw_next_deadline(cw), dl);
	CHECK_EQ(cd[RTR_LBC_stale_epoch_packets], 2);
	CHECK_EQ(cd[RTR_LBC_epoch_overrun], 0);
	CHECK_EQ(cd[RTR_LBC_late_epoch_packets], 1);
	if (s->nd == 3) {
		/* The CE-marked one keeps its mark: compared apart. */
		CHECK_EQ(frame_psn(s->dm[1], &f), 1);
		CHECK(is_host_frame(s->dm[1], &f, 1, 0x03, false));
		fake_free(s->dm[1]);
		s->dm[1] = s->dm[2];
		s->nd = 2;
		EXPECT(s, &f, 1, 21, 12);
	}
	ctrl_clear(s);
	/* The deadline: 33, 34 in order, and the CLEAR of epoch 3. */
	rtr_cw_tick(cw, dl + 300000, LB_ST(cd));
	EXPECT(s, &f, 1, 33, 34);
	CHECK_EQ(s->nc, 1);
	expect_ctrl(s, 0, &f, RTR_LB_OP_REPLY, 1, 3, 2, __LINE__);
	if (s->nc > 0)
		printf("  CLEAR after the deadline: epoch %u (3 expected)\n",
				rtr_cw_epoch(rtr_meta(s->cm[0])->bth_b8));
	ctrl_clear(s);
	CHECK_EQ(cd[RTR_LBC_reorder_flush_timeout], 1);
	/* A real new epoch (0, d = 1, sent after epoch 3's start) is still new. */
	CHECK_EQ(RX(cw, dpkt(&f, 40, 1, 0, 0, 1, 0, 500, 0), 1, R + 700000), RTR_CW_FORWARD);
	EXPECT(s, &f, 1, 40);
	CHECK_EQ(s->nc, 1);
	expect_ctrl(s, 0, &f, RTR_LB_OP_REPLY, 0, 0, 1, __LINE__);
	ctrl_clear(s);
	CHECK_EQ(cd[RTR_LBC_stale_epoch_packets], 2);
	dst_done(cw);
}

/*
 * The ts_tx comparison across the 16-bit wrap (65.5 ms), and after a quiet
 * spell longer than half of it: a flow idle 40 ms (less than half the
 * 100 ms aging, so its state is kept) comes back in the next epoch; its
 * 16-bit ts_tx reads as 26474 units *before* the epoch's start, but the
 * reference is too old to compare with, so the epoch field decides: new.
 */
static void
test_dst_stale_wrap(void)
{
	struct rtr_cw *cw = dst_inst(8, 64);
	struct flow f = flow6(88, 89, 8801);
	struct sink *s = &dst_sink;
	uint64_t R = T0 + 900000;
	const uint16_t ts3 = (uint16_t)(20 + 39062);

	printf("7c. DstToR: stale test across the timestamp wrap and after 40 ms idle\n");
	CHECK_EQ(RX(cw, dpkt(&f, 0, 1, 0, 1, 1, 0, 65500, 0), 1, R), RTR_CW_FORWARD);
	/* 56 units later, across the wrap: new. */
	CHECK_EQ(RX(cw, dpkt(&f, 1, 1, 0, 2, 1, 0, 20, 0), 1, R + 60000), RTR_CW_FORWARD);
	/* A straggler of epoch 0 (d = 2) from before the wrap: stale. */
	CHECK_EQ(RX(cw, dpkt(&f, 2, 1, 0, 0, 1, 0, 65400, 0), 1, R + 61000), RTR_CW_FORWARD);
	CHECK_EQ(cd[RTR_LBC_stale_epoch_packets], 1);
	/* 40 ms later, epoch 3 (sent 39062 units after epoch 2's start). */
	CHECK_EQ(RX(cw, dpkt(&f, 3, 1, 0, 3, 1, 0, ts3, 0), 1, R + 60000 + 40000000),
			RTR_CW_FORWARD);
	EXPECT(s, &f, 1, 0, 1, 2, 3);
	CHECK_EQ(s->nc, 3);
	expect_ctrl(s, 0, &f, RTR_LB_OP_REPLY, 0, 1, 1, __LINE__);
	expect_ctrl(s, 1, &f, RTR_LB_OP_REPLY, 0, 2, 1, __LINE__);
	expect_ctrl(s, 2, &f, RTR_LB_OP_REPLY, 0, 3, 1, __LINE__);
	ctrl_clear(s);
	CHECK_EQ(cd[RTR_LBC_stale_epoch_packets], 1);
	dst_done(cw);
}

/* ------------------------------------------------------------ 7d. issue 15: longest hold */

/*
 * Issue 15 item 9. A hold never lasts longer than rtr_cw_max_hold_ns()
 * (resume_default + resume_extra): not with a phase-0 sample sent 30 ms
 * before the TAIL (the 16-bit gap reads 30.7 ms), not when phase-0 packets
 * keep trickling in and push the deadline. The config check and the
 * SrcToR's CLEAR timeout rely on this bound.
 */
static void
test_dst_hold_bound(void)
{
	struct rtr_cw_params p = def_params(NULL);
	uint64_t bound = rtr_cw_max_hold_ns(&p);
	struct sink *s = &dst_sink;

	printf("7d. DstToR: no hold outlasts resume_default + resume_extra (%lu ns)\n",
			(unsigned long)bound);
	CHECK_EQ(bound, 216000);
	/* A sample whose gap to the TAIL reads 30000 units. */
	{
		struct rtr_cw *cw = dst_inst(8, 64);
		struct flow f = flow4(92, 93, 9200);
		uint64_t R = T0 + 1000000, H = R + 3000, dl;

		CHECK_EQ(RX(cw, dpkt(&f, 0, 1, 0, 1, 1, 0, 1000, 0), 1, R), RTR_CW_FORWARD);
		CHECK_EQ(RX(cw, dpkt(&f, 2, 2, 1, 1, 0, 0, 31001, 31000), 1, H), RTR_CW_HELD);
		dl = rtr_cw_next_deadline(cw);
		printf("  gap of 30000 units: the hold would last %lu ns\n",
				(unsigned long)(dl - H));
		CHECK(dl - H <= bound, "%lu", (unsigned long)(dl - H));
		/* Capped at resume_default: R + 200 us + 16 us. */
		CHECK_EQ(dl, R + 216000);
		rtr_cw_tick(cw, dl, LB_ST(cd));
		EXPECT(s, &f, 1, 0, 2);
		ctrl_clear(s);
		CHECK(cd[RTR_LBC_reorder_hold_max_ns] <= bound);
		dst_done(cw);
	}
	/* No sample at the start; then a phase-0 packet every 20 us for 4 ms,
	 * each sent one unit later than the last (the old path's queue grows
	 * by 19 us a packet): every one pushes the deadline. */
	{
		struct rtr_cw *cw = dst_inst(8, 64);
		struct flow f = flow4(92, 93, 9201);
		uint64_t H = T0 + 2000000, released = 0;
		const uint16_t tt = 5000;

		CHECK_EQ(RX(cw, dpkt(&f, 1000, 2, 1, 1, 0, 0, tt + 1, tt), 1, H), RTR_CW_HELD);
		for (unsigned int k = 0; k <= 200; k++) {
			uint64_t t = k < 200 ? H + 20000 * (uint64_t)(k + 1) : UINT64_MAX, dl;

			/* The worker's timer: tick at each due deadline. */
			while (released == 0 && (dl = rtr_cw_next_deadline(cw)) <= t &&
					dl != UINT64_MAX) {
				rtr_cw_tick(cw, dl, LB_ST(cd));
				if (rtr_cw_held(cw) == 0)
					released = dl;
			}
			if (k < 200)
				CHECK_EQ(RX(cw,
							 dpkt(&f, k, 1, 0, 1, 0, 0,
									 (uint16_t)(tt - 200 + k),
									 0),
							 1, t),
						RTR_CW_FORWARD);
		}
		printf("  phase-0 packets pushing the deadline: held for %lu ns\n",
				(unsigned long)(released - H));
		CHECK(released != 0 && released - H <= bound, "%lu", (unsigned long)(released - H));
		CHECK(cd[RTR_LBC_reorder_hold_max_ns] <= bound, "%lu",
				(unsigned long)cd[RTR_LBC_reorder_hold_max_ns]);
		CHECK_EQ(cd[RTR_LBC_reorder_flush_timeout], 1);
		ctrl_clear(s);
		sink_clear(s);
		dst_done(cw);
	}
}

/* ------------------------------------------------------------ 7e. issue 15: ring index */

/*
 * Issue 15 item 8. A flow keeps its ring's index in 16 bits with 0xffff as
 * "no ring", so a pool of 65536 rings would give its last ring the marker's
 * index: the flow holding it looks as if it held nothing, and its packet
 * stays in the ring for ever. 65535 rings work to the last one; 65536 must
 * be refused (or work).
 */
static void
test_dst_ring_index(void)
{
	static const unsigned int sizes[] = {65535, 65536};

	printf("7e. DstToR: the last ring of a 65535-ring pool; 65536 rings\n");
	for (unsigned int i = 0; i < 2; i++) {
		struct rtr_cw_params p = def_params(NULL);
		struct rtr_lb_io io = {io_deliver, io_control, io_alloc, &aux_sink};
		unsigned int n = sizes[i], held;
		uint64_t R = T0 + 3000000;
		struct rtr_cw *cw;

		p.n_rings = n;
		p.ring_depth = 1;
		p.host_port_mask = 0x2;
		p.flow_entries = 1u << 18;
		memset(cd, 0, sizeof(cd_st.lb));
		sink_clear(&aux_sink);
		cw = rtr_cw_create(&p, &io);
		if (cw == NULL) {
			printf("  %u rings: refused\n", n);
			CHECK(n > 65535, "%u rings refused", n);
			continue;
		}
		/* Flows that each hold one packet (no phase-0 sample) until
		 * every ring is taken (a few find their table bucket full and
		 * hold nothing: more flows then). */
		for (unsigned int k = 0; cd[RTR_LBC_reorder_queues_in_use] < n && k < n + 4096;
				k++) {
			struct flow f = flow4((uint8_t)(k >> 16), 95, (uint16_t)k);
			struct rte_mbuf *m = dpkt(&f, 1, 2, 1, 1, 0, 0, 10, 9);

			if (rtr_cw_deliver(cw, m, rtr_meta(m), 1, R, LB_ST(cd)) == RTR_CW_FORWARD)
				io_deliver(&aux_sink, m, 1, false);
		}
		CHECK_EQ(cd[RTR_LBC_reorder_overflow], 0);
		CHECK_EQ(cd[RTR_LBC_reorder_queues_max], n);
		CHECK_EQ(cd[RTR_LBC_reorder_held], n);
		rtr_cw_tick(cw, R + rtr_cw_max_hold_ns(&p), LB_ST(cd));
		rtr_cw_flush(cw, -1, R + rtr_cw_max_hold_ns(&p) + 1, LB_ST(cd));
		held = (unsigned int)rtr_cw_held(cw);
		printf("  %u rings: %u of %u held packets never released\n", n, held, n);
		CHECK_EQ(held, 0);
		CHECK_EQ(cd[RTR_LBC_reorder_flush_timeout], n);
		sink_clear(&aux_sink);
		/* A packet stuck in a ring cannot be given back to the test's
		 * fake mbufs by rtr_cw_free (it would rte_pktmbuf_free it). */
		if (held == 0)
			rtr_cw_free(cw);
	}
}

/* Telemetry callback: keep the flows seen. */
struct flows_seen {
	struct rtr_lb_flow_info fi[64];
	unsigned int n;
};

static void
flow_seen(void *arg, const struct rtr_lb_flow_info *f)
{
	struct flows_seen *fs = arg;

	if (fs->n < 64)
		fs->fi[fs->n++] = *f;
}

static void
test_full_telemetry_aging(void)
{
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *src, *dst;
	struct sink *s = &dst_sink;
	static struct flows_seen fs;
	uint64_t R = T0 + 900000;
	unsigned int n_src = 0, n_dst = 0;

	printf("7. table full, telemetry, aging\n");
	p.flow_entries = 8; /* one bucket */
	src = mk_inst(&p, &src_sink);
	dst = mk_inst(&p, &dst_sink);
	zero_counters();
	for (unsigned int i = 0; i < 8; i++) {
		struct flow f = flow4(100, 101, (uint16_t)(9000 + i));

		CHECK(src_send(src, &f, 0, R, cs, NULL).cw);
		CHECK_EQ(RX(dst, dpkt(&f, 0, 1, 0, 1, 1, 0, 10, 0), 1, R), RTR_CW_FORWARD);
	}
	CHECK_EQ(cs[RTR_LBC_flow_table_full], 0);
	CHECK_EQ(cd[RTR_LBC_flow_table_full], 0);
	sink_clear(s);
	/* The ninth flow: SrcToR by ECMP, frame untouched. */
	{
		struct flow f = flow4(100, 101, 9008);
		uint8_t orig[512];
		unsigned int n = host_frame(orig, &f, 0, 4, 0, 0x02);
		struct rte_mbuf *m = mk_host(&f, 0, 4, 0, 0x02);
		int path = rtr_cw_pick(src, &G, 0, m, rtr_meta(m), R + 10, LB_ST(cs));

		CHECK_EQ(path, rtr_group_pick(&G, rtr_meta(m)->flow_hash));
		CHECK(m->data_len == n && memcmp(mdata(m), orig, n) == 0);
		CHECK_EQ(cs[RTR_LBC_flow_table_full], 1);
		CHECK_EQ(cs[RTR_LBC_ecmp_packets], 1);
		fake_free(m);
		/* DstToR without state: RTT_REPLY and CLEAR still answered,
		 * nothing held. */
		CHECK_EQ(RX(dst, dpkt(&f, 0, 1, 0, 1, 1, 0, 10, 0), 1, R + 10), RTR_CW_FORWARD);
		CHECK_EQ(RX(dst, dpkt(&f, 2, 2, 1, 1, 0, 0, 12, 11), 1, R + 20), RTR_CW_FORWARD);
		CHECK_EQ(RX(dst, dpkt(&f, 1, 1, 0, 1, 1, 1, 11, 11), 1, R + 30), RTR_CW_FORWARD);
		EXPECT(s, &f, 1, 0, 2, 1);
		CHECK_EQ(s->nc, 2);
		expect_ctrl(s, 0, &f, RTR_LB_OP_REPLY, 0, 1, 1, __LINE__);
		expect_ctrl(s, 1, &f, RTR_LB_OP_REPLY, 1, 1, 1, __LINE__);
		ctrl_clear(s);
		CHECK_EQ(cd[RTR_LBC_flow_table_full], 3);
		CHECK_EQ(rtr_cw_held(dst), 0);
	}
	/* Telemetry: one flow holding two packets. */
	{
		struct flow f = flow4(100, 101, 9003);

		CHECK_EQ(RX(dst, dpkt(&f, 2, 3, 1, 1, 0, 0, 30, 20), 1, R + 100), RTR_CW_HELD);
		CHECK_EQ(RX(dst, dpkt(&f, 3, 3, 1, 1, 0, 0, 31, 20), 1, R + 200), RTR_CW_HELD);
	}
	fs.n = 0;
	CHECK_EQ(rtr_lb_fs_flows(dst, R + 300, 0, flow_seen, &fs), 8);
	for (unsigned int i = 0; i < fs.n; i++) {
		const struct rtr_lb_flow_info *fi = &fs.fi[i];

		CHECK(fi->dst_role);
		CHECK_EQ(fi->epoch, 1);
		CHECK_EQ(fi->phase, 0);
		CHECK(!fi->v6);
		CHECK_EQ(fi->reply_deadline_in_ns, UINT64_MAX);
		if (fi->sport == 9003) {
			/* phase-0 sample at R (ts 10), ts_tail 20 */
			CHECK_EQ(fi->held, 2);
			CHECK_EQ(fi->deadline_in_ns, R + 10 * 1024 + 16000 - (R + 300));
			CHECK_EQ(fi->idle_ns, 100);
		} else {
			CHECK_EQ(fi->held, 0);
			CHECK_EQ(fi->deadline_in_ns, UINT64_MAX);
		}
		CHECK(memcmp(fi->src, (uint8_t[]){10, 0, 0, 100}, 4) == 0);
	}
	CHECK_EQ(rtr_lb_fs_flows(dst, R + 300, 3, flow_seen, &fs), 3);
	fs.n = 0;
	CHECK_EQ(rtr_lb_fs_flows(src, R + 300, 0, flow_seen, &fs), 8);
	for (unsigned int i = 0; i < fs.n; i++) {
		const struct rtr_lb_flow_info *fi = &fs.fi[i];

		CHECK(!fi->dst_role);
		CHECK_EQ(fi->epoch, 1);
		CHECK_EQ(fi->phase, 0);
		CHECK(fi->path < 4);
		CHECK_EQ(fi->reply_deadline_in_ns, R + 8000 - (R + 300));
		CHECK_EQ(fi->held, 0);
	}
	/* Aging (100 ms here): rtr_cw_tick sweeps idle flows, not the one
	 * that holds packets... which its deadline releases first. */
	for (uint64_t t = R + 1000; t < R + 300000000; t += 1000000)
		rtr_cw_tick(dst, t, LB_ST(cd)), rtr_cw_tick(src, t, LB_ST(cs));
	CHECK_EQ(rtr_cw_held(dst), 0);
	CHECK_EQ(cd[RTR_LBC_reorder_flush_timeout], 1);
	CHECK_EQ(s->nc, 1); /* its CLEAR */
	ctrl_clear(s);
	sink_clear(s);
	n_src = rtr_lb_fs_flows(src, R + 300000000, 0, flow_seen, &fs);
	n_dst = rtr_lb_fs_flows(dst, R + 300000000, 0, flow_seen, &fs);
	CHECK_EQ(n_src, 0);
	CHECK_EQ(n_dst, 0);
	/* Room again. */
	{
		struct flow f = flow4(100, 101, 9008);

		memset(cs, 0, sizeof(cs_st.lb));
		CHECK(src_send(src, &f, 5, R + 300000000, cs, NULL).cw);
		CHECK_EQ(cs[RTR_LBC_flow_table_full], 0);
	}
	rtr_cw_free(src);
	rtr_cw_free(dst);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 8. end to end */

#define E2E_FLOWS 16
#define QN        65536

struct e2e_q {
	uint64_t at[QN];
	struct rte_mbuf *m[QN];
	unsigned int h, t;
};

static struct e2e_q q_path[2], q_ctl;
static struct rtr_group G2;

static void
q_push(struct e2e_q *q, uint64_t at, struct rte_mbuf *m)
{
	CHECK(q->t - q->h < QN);
	q->at[q->t % QN] = at;
	q->m[q->t % QN] = m;
	q->t++;
}

static struct rte_mbuf *
q_pop(struct e2e_q *q)
{
	return q->m[q->h++ % QN];
}

static uint64_t
q_head(const struct e2e_q *q)
{
	return q->h == q->t ? UINT64_MAX : q->at[q->h % QN];
}

struct e2e_flow {
	struct flow f;
	uint64_t burst_start, next_tx;
	unsigned int j, bursts;
	uint32_t psn;
	int64_t last_rx; /* last PSN delivered, -1 none */
	unsigned int rx, lost;
};

struct e2e {
	struct e2e_flow fl[E2E_FLOWS];
	unsigned int sent, delivered, ooo, bad_frame, lost, ce;
	uint64_t now;
};

/* What the DstToR gave out: check order and bytes, free; control packets
 * go back toward the SrcToR with a delay. */
static void
e2e_drain(struct e2e *E)
{
	struct sink *s = &dst_sink;

	for (unsigned int i = 0; i < s->nd; i++) {
		struct rte_mbuf *m = s->dm[i];
		const uint8_t *d = mdata(m);
		bool v6 = d[12] == 0x86;
		unsigned int l4 = 14 + (v6 ? 40 : 20);
		unsigned int k = (unsigned int)(d[l4] << 8 | d[l4 + 1]) - 7000;
		struct e2e_flow *F;
		uint32_t psn;

		if (k >= E2E_FLOWS) {
			E->bad_frame++;
			fake_free(m);
			continue;
		}
		F = &E->fl[k];
		psn = frame_psn(m, &F->f);
		if ((int64_t)psn <= F->last_rx)
			E->ooo++;
		F->last_rx = psn;
		F->rx++;
		if (!is_host_frame(m, &F->f, psn, 0x02, psn % 3 == 0) &&
				!is_host_frame(m, &F->f, psn, 0x03, psn % 3 == 0))
			E->bad_frame++;
		if (s->dport[i] != 1)
			E->bad_frame++;
		E->delivered++;
		fake_free(m);
	}
	s->nd = 0;
	for (unsigned int i = 0; i < s->nc; i++)
		q_push(&q_ctl, E->now + 1000, s->cm[i]);
	s->nc = 0;
}

static void
e2e_run(bool lose_tails)
{
	static struct e2e E;
	const uint64_t delay[2] = {1500, 30000};
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *src, *dst;
	unsigned int on_slow = 0;

	printf("8. end to end (%s)\n", lose_tails ? "every TAIL lost" : "no loss");
	memset(&E, 0, sizeof(E));
	memset(q_path, 0, sizeof(q_path));
	memset(&q_ctl, 0, sizeof(q_ctl));
	zero_counters();
	G2.n_paths = 2;
	atomic_store(&G2.live_mask, 0x3);
	p.host_port_mask = 0x2;
	p.n_rings = 64;
	p.ring_depth = 1024;
	p.rng_seed = lose_tails ? 7 : 3;
	src = mk_inst(&p, &src_sink);
	dst = mk_inst(&p, &dst_sink);
	for (unsigned int i = 0; i < E2E_FLOWS; i++) {
		struct e2e_flow *F = &E.fl[i];

		F->f = (i & 1) ? flow6(90, (uint8_t)(91 + i % 3), (uint16_t)(7000 + i))
			       : flow4(90, (uint8_t)(91 + i % 3), (uint16_t)(7000 + i));
		F->burst_start = F->next_tx = T0 + i * 3700;
		F->last_rx = -1;
	}
	for (;;) {
		uint64_t tn = UINT64_MAX, dl;
		int kind = -1;

		for (int q = 0; q < 2; q++) {
			if (q_head(&q_path[q]) < tn) {
				tn = q_head(&q_path[q]);
				kind = q;
			}
		}
		if (q_head(&q_ctl) < tn) {
			tn = q_head(&q_ctl);
			kind = 2;
		}
		dl = rtr_cw_next_deadline(dst);
		if (dl < tn) {
			tn = dl;
			kind = 3;
		}
		for (unsigned int i = 0; i < E2E_FLOWS; i++) {
			if (E.fl[i].next_tx < tn) {
				tn = E.fl[i].next_tx;
				kind = 4 + (int)i;
			}
		}
		if (kind < 0)
			break;
		CHECK(tn >= E.now);
		E.now = tn;
		if (kind < 2) {
			/* A packet reaches the DstToR from path `kind`. */
			struct rte_mbuf *m = q_pop(&q_path[kind]);
			struct rtr_meta *mt;

			to_fabric(m);
			mt = rtr_meta(m);
			if (lose_tails && rtr_cw_tail(mt->bth_b8)) {
				E.lost++;
				E.fl[rtr_meta(m)->sport - 7000].lost++;
				fake_free(m);
				continue;
			}
			if (kind == 1 && mt->psn % 10 == 0) {
				mark_ce(m, RTR_LB_PARSE_HDR);
				E.ce++;
			}
			if (rtr_cw_deliver(dst, m, rtr_meta(m), 1, E.now, LB_ST(cd)) ==
					RTR_CW_FORWARD)
				sink_forward(&dst_sink, m, 1);
			e2e_drain(&E);
		} else if (kind == 2) {
			struct rte_mbuf *m = q_pop(&q_ctl);

			ctrl_to_src(src, m, E.now, cs);
			fake_free(m);
		} else if (kind == 3) {
			rtr_cw_tick(dst, E.now, LB_ST(cd));
			e2e_drain(&E);
		} else {
			struct e2e_flow *F = &E.fl[kind - 4];
			uint32_t psn = F->psn++;
			struct rte_mbuf *m = mk_host(
					&F->f, psn, 4, psn % 3 == 0 ? RTR_BTH_ACKREQ : 0, 0x02);
			int path = rtr_cw_pick(src, &G2, 0, m, rtr_meta(m), E.now, LB_ST(cs));

			CHECK(path == 0 || path == 1);
			CHECK(rtr_meta(m)->flags & RTR_MF_LB_HDR);
			on_slow += path == 1;
			q_push(&q_path[path & 1], E.now + delay[path & 1], m);
			E.sent++;
			/* Bursts of 150 packets every 700 us (idle > theta_inactive). */
			if (++F->j == 150) {
				F->j = 0;
				F->burst_start += 700000;
				if (++F->bursts == 6) {
					F->next_tx = UINT64_MAX;
					continue;
				}
			}
			F->next_tx = F->burst_start + F->j * (400 + 50 * (uint64_t)(kind - 4));
		}
	}
	printf("  %u sent (%u on the slow path), %u delivered, %u lost TAILs, %u CE, %u out of "
	       "order\n",
			E.sent, on_slow, E.delivered, E.lost, E.ce, E.ooo);
	printf("  SrcToR: %lu epochs, %lu replies on time, %lu late, %lu TAILs, %lu reroutes, "
	       "%lu idle moves, %lu NOTIFYs, %lu CLEARs\n",
			(unsigned long)cs[RTR_LBC_rtt_requests],
			(unsigned long)cs[RTR_LBC_rtt_replies_rx],
			(unsigned long)cs[RTR_LBC_rtt_replies_late],
			(unsigned long)cs[RTR_LBC_tails], (unsigned long)cs[RTR_LBC_reroutes],
			(unsigned long)cs[RTR_LBC_idle_moves],
			(unsigned long)cs[RTR_LBC_notifies_rx],
			(unsigned long)cs[RTR_LBC_clears_rx]);
	printf("  DstToR: %lu held, %lu flushed by TAIL, %lu by deadline, %lu overflow, "
	       "%lu late-epoch, longest hold %lu ns\n",
			(unsigned long)cd[RTR_LBC_reorder_held],
			(unsigned long)cd[RTR_LBC_reorder_flush_tail],
			(unsigned long)cd[RTR_LBC_reorder_flush_timeout],
			(unsigned long)cd[RTR_LBC_reorder_overflow],
			(unsigned long)cd[RTR_LBC_late_epoch_packets],
			(unsigned long)cd[RTR_LBC_reorder_hold_max_ns]);
	CHECK_EQ(E.sent, E2E_FLOWS * 6 * 150);
	CHECK_EQ(E.ooo, 0);
	CHECK_EQ(E.bad_frame, 0);
	CHECK_EQ(E.delivered + E.lost, E.sent);
	for (unsigned int i = 0; i < E2E_FLOWS; i++)
		CHECK(E.fl[i].rx + E.fl[i].lost == E.fl[i].psn, "flow %u", i);
	CHECK_EQ(rtr_cw_held(dst), 0);
	CHECK_EQ(cd[RTR_LBC_reorder_queues_in_use], 0);
	CHECK(cs[RTR_LBC_reroutes] > 0);
	CHECK(cd[RTR_LBC_reorder_held] > 0);
	CHECK(on_slow > 0 && on_slow < E.sent);
	CHECK(cs[RTR_LBC_idle_moves] > 0);
	CHECK(cs[RTR_LBC_notifies_rx] > 0);
	CHECK_EQ(cs[RTR_LBC_notifies_rx], cd[RTR_LBC_notifies]);
	CHECK_EQ(cs[RTR_LBC_busy_paths], cd[RTR_LBC_notifies]);
	CHECK_EQ(cs[RTR_LBC_rtt_requests], cd[RTR_LBC_rtt_requests_rx]);
	CHECK_EQ(cs[RTR_LBC_rtt_replies_rx], cd[RTR_LBC_rtt_replies]);
	CHECK_EQ(cs[RTR_LBC_clears_rx], cd[RTR_LBC_clears]);
	CHECK_EQ(cs[RTR_LBC_ctrl_no_flow], 0);
	CHECK_EQ(cd[RTR_LBC_reorder_overflow], 0);
	CHECK_EQ(cd[RTR_LBC_epoch_overrun], 0);
	CHECK(cs[RTR_LBC_rtt_replies_late] > 0);
	if (!lose_tails) {
		CHECK_EQ(E.lost, 0);
		CHECK_EQ(cs[RTR_LBC_tails], cd[RTR_LBC_tails_rx]);
		CHECK(cd[RTR_LBC_reorder_flush_tail] > 0);
		CHECK_EQ(cd[RTR_LBC_reorder_flush_timeout], 0);
		CHECK_EQ(cd[RTR_LBC_clears], cs[RTR_LBC_tails]);
	} else {
		CHECK_EQ(E.lost, cs[RTR_LBC_tails]);
		CHECK_EQ(cd[RTR_LBC_tails_rx], 0);
		CHECK(cd[RTR_LBC_reorder_flush_timeout] > 0);
		CHECK_EQ(cd[RTR_LBC_reorder_flush_tail], 0);
	}
	CHECK_EQ(src_sink.nd + src_sink.nc, 0);
	rtr_cw_free(src);
	rtr_cw_free(dst);
	rtr_pm_free(sh);
}

static void
test_e2e(void)
{
	e2e_run(false);
	e2e_run(true);
}

/* ------------------------------------------------------------ 9. flow table */

static bool
ft_pin(const struct rtr_ft_entry *e)
{
	return e->value[0] == 1;
}

static struct rtr_ft_key
ft_key(unsigned int i)
{
	struct rtr_ft_key k;

	memset(&k, 0, sizeof(k));
	k.src[0] = 10, k.src[3] = (uint8_t)i;
	k.dst[0] = 10, k.dst[3] = (uint8_t)(i >> 8);
	k.sport = (uint16_t)(1000 + i);
	k.kind = 1;
	return k;
}

/* A hash of home 16 * b (b < 4) in the 64-home table below (homes are the
 * hash's top 6 bits, rtr_ft_home): the windows of homes 0, 16, 32, 48 never
 * overlap, so each acts as a bucket of RTR_FT_WINDOW (16); i keeps the
 * hashes apart. */
#define FT_H(b, i) (((uint32_t)(b) << 30) | (uint32_t)(i))

static void
test_flowtab(void)
{
	struct rtr_ft_params fp = {
			.name = "test_ft",
			.entries = 64, /* 4 windows of 16 */
			.value_size = 24,
			.aging_ns = 1000,
			.pinned = ft_pin,
			.use_rte_malloc = false,
	};
	struct rtr_ft *t = rtr_ft_create(&fp);
	struct rtr_ft_entry *e[RTR_FT_WINDOW + 4], *x;
	const unsigned int W = RTR_FT_WINDOW;
	struct rtr_ft_stats st;
	enum rtr_ft_status status;
	struct rtr_ft_key k, back;
	uint32_t cursor;
	unsigned int n;

	printf("9. flow table\n");
	CHECK(t != NULL);
	if (t == NULL)
		return;
	CHECK_EQ(rtr_ft_capacity(t), 64);
	CHECK(rtr_ft_memsize(&fp) >= 64 * (sizeof(struct rtr_ft_entry) + 24));
	/* Insert, find, absent, remove. */
	k = ft_key(0);
	e[0] = rtr_ft_lookup(t, &k, 5, 0, true, RTR_FT_ORIGIN_NONE, &status);
	CHECK(e[0] != NULL);
	CHECK_EQ(status, RTR_FT_NEW);
	rtr_ft_key_of(t, e[0], &back);
	CHECK(memcmp(&back, &k, sizeof(k)) == 0);
	CHECK_EQ(e[0]->key.hash, 5);
	CHECK_EQ(e[0]->last_ns, 0);
	CHECK_EQ((uintptr_t)rtr_ft_value(e[0]) % 8, 0); /* callers keep uint64_t there */
	memset(rtr_ft_value(e[0]), 0xab, 24);
	x = rtr_ft_lookup(t, &k, 5, 10, true, RTR_FT_ORIGIN_NONE, &status);
	CHECK(x == e[0]);
	CHECK_EQ(status, RTR_FT_FOUND);
	CHECK_EQ(((uint8_t *)rtr_ft_value(x))[23], 0xab);
	x = rtr_ft_lookup(t, &k, 5, 10, false, RTR_FT_ORIGIN_NONE, &status);
	CHECK(x == e[0] && status == RTR_FT_FOUND);
	k = ft_key(1);
	x = rtr_ft_lookup(t, &k, 5, 10, false, RTR_FT_ORIGIN_NONE, &status);
	CHECK(x == NULL && status == RTR_FT_ABSENT);
	/* Same key, other hash: another entry would be a caller bug; same
	 * hash, other key: a different entry. */
	rtr_ft_remove(t, e[0]);
	k = ft_key(0);
	CHECK(rtr_ft_lookup(t, &k, 5, 20, false, RTR_FT_ORIGIN_NONE, &status) == NULL &&
			status == RTR_FT_ABSENT);
	rtr_ft_remove(t, e[0]); /* twice: no effect */
	rtr_ft_get_stats(t, &st);
	CHECK_EQ(st.in_use, 0);
	CHECK_EQ(st.inserted, 1);
	/* Hash 0 works (the set-associative table before issue 34 took
	 * signature 0 for an empty way). */
	k = ft_key(99);
	x = rtr_ft_lookup(t, &k, 0, 30, true, RTR_FT_ORIGIN_NONE, &status);
	CHECK(x != NULL && status == RTR_FT_NEW);
	CHECK(rtr_ft_lookup(t, &k, 0, 30, false, RTR_FT_ORIGIN_NONE, &status) == x &&
			status == RTR_FT_FOUND);
	rtr_ft_remove(t, x);

	/* W keys of one home fill its window; the next is refused. */
	for (unsigned int i = 0; i < W; i++) {
		k = ft_key(10 + i);
		e[i] = rtr_ft_lookup(
				t, &k, FT_H(3, 3 + 8 * i), 100, true, RTR_FT_ORIGIN_NONE, &status);
		CHECK(e[i] != NULL && status == RTR_FT_NEW, "i %u", i);
	}
	for (unsigned int i = 0; i < W; i++) {
		k = ft_key(10 + i);
		CHECK(rtr_ft_lookup(t, &k, FT_H(3, 3 + 8 * i), 100, false, RTR_FT_ORIGIN_NONE,
				      &status) == e[i]);
	}
	k = ft_key(10 + W);
	CHECK(rtr_ft_lookup(t, &k, FT_H(3, 3 + 8 * W), 100, true, RTR_FT_ORIGIN_NONE, &status) ==
			NULL);
	CHECK_EQ(status, RTR_FT_FULL);
	/* Another home (whose window does not overlap) is not affected. */
	k = ft_key(11 + W);
	x = rtr_ft_lookup(t, &k, FT_H(2, 4), 100, true, RTR_FT_ORIGIN_NONE, &status);
	CHECK(x != NULL && status == RTR_FT_NEW);
	rtr_ft_remove(t, x);
	rtr_ft_get_stats(t, &st);
	CHECK_EQ(st.full, 1);
	CHECK_EQ(st.in_use, W);

	/* Ages at now = 10000: e[5] (idle 9950) and e[2] (idle 9900) aged,
	 * the others used at 9500 (idle 500). The LRU of the aged goes. */
	for (unsigned int i = 0; i < W; i++)
		e[i]->last_ns = 9500;
	e[2]->last_ns = 100;
	e[5]->last_ns = 50;
	k = ft_key(10 + W);
	x = rtr_ft_lookup(t, &k, FT_H(3, 3 + 8 * W), 10000, true, RTR_FT_ORIGIN_NONE, &status);
	CHECK(x == e[5]);
	CHECK_EQ(status, RTR_FT_NEW);
	rtr_ft_key_of(t, x, &back);
	CHECK(memcmp(&back, &k, sizeof(k)) == 0);
	CHECK_EQ(x->last_ns, 10000);
	CHECK_EQ(((uint8_t *)rtr_ft_value(x))[0], 0); /* value zeroed */
	k = ft_key(15);
	CHECK(rtr_ft_lookup(t, &k, FT_H(3, 3 + 8 * 5), 10000, false, RTR_FT_ORIGIN_NONE, &status) ==
			NULL);
	rtr_ft_get_stats(t, &st);
	CHECK_EQ(st.evicted, 1);
	CHECK_EQ(st.in_use, W);
	/* Exactly aging_ns idle is not aged. */
	e[2]->last_ns = 9000;
	k = ft_key(12 + W);
	CHECK(rtr_ft_lookup(t, &k, FT_H(3, 3 + 8 * (W + 1)), 10000, true, RTR_FT_ORIGIN_NONE,
			      &status) == NULL);
	CHECK_EQ(status, RTR_FT_FULL);
	/* A pinned entry never goes, however old; the other aged one does. */
	e[2]->last_ns = 0;
	((uint8_t *)rtr_ft_value(e[2]))[0] = 1;
	e[7]->last_ns = 200;
	x = rtr_ft_lookup(
			t, &k, FT_H(3, 3 + 8 * (W + 1)), 10000, true, RTR_FT_ORIGIN_NONE, &status);
	CHECK(x == e[7] && status == RTR_FT_NEW);
	k = ft_key(13 + W);
	CHECK(rtr_ft_lookup(t, &k, FT_H(3, 3 + 8 * (W + 2)), 10000, true, RTR_FT_ORIGIN_NONE,
			      &status) == NULL);
	CHECK_EQ(status, RTR_FT_FULL);
	k = ft_key(12);
	CHECK(rtr_ft_lookup(t, &k, FT_H(3, 3 + 8 * 2), 10000, false, RTR_FT_ORIGIN_NONE, &status) ==
			e[2]);

	/* Sweep: frees the aged, unpinned entries of the slots it walks. */
	for (unsigned int i = 0; i < W; i++)
		if (i != 2)
			e[i]->last_ns = 9000;
	e[0]->last_ns = 0;
	e[1]->last_ns = 0;
	n = 0;
	for (unsigned int i = 0; i < 48; i++) /* one slot per call: those before home 48 */
		n += rtr_ft_sweep(t, 10000, 1);
	CHECK_EQ(n, 0);
	n = rtr_ft_sweep(t, 10000, W); /* home 48's window */
	CHECK_EQ(n, 2);
	rtr_ft_get_stats(t, &st);
	CHECK_EQ(st.aged, 2);
	CHECK_EQ(st.in_use, W - 2);
	k = ft_key(10);
	CHECK(rtr_ft_lookup(t, &k, FT_H(3, 3), 10000, false, RTR_FT_ORIGIN_NONE, &status) == NULL);
	k = ft_key(12);
	CHECK(rtr_ft_lookup(t, &k, FT_H(3, 3 + 8 * 2), 10000, false, RTR_FT_ORIGIN_NONE, &status) ==
			e[2]); /* pinned */
	/* Later everything unpinned has aged. */
	((uint8_t *)rtr_ft_value(e[2]))[0] = 0;
	CHECK_EQ(rtr_ft_sweep(t, 1000000, 8), 0);      /* slots 0-7: empty */
	CHECK_EQ(rtr_ft_sweep(t, 1000000, 64), W - 2); /* on round, 48-63 */
	CHECK_EQ(rtr_ft_sweep(t, 1000000, 64), 0);
	rtr_ft_get_stats(t, &st);
	CHECK_EQ(st.in_use, 0);
	cursor = 0;
	CHECK(rtr_ft_next(t, &cursor) == NULL);
	/* Iteration sees every entry once. */
	for (unsigned int i = 0; i < 20; i++) {
		k = ft_key(100 + i);
		CHECK(rtr_ft_lookup(t, &k, i * 2654435761u, 2000000, true, RTR_FT_ORIGIN_NONE,
				      &status) != NULL);
	}
	n = 0;
	cursor = 0;
	while ((x = rtr_ft_next(t, &cursor)) != NULL)
		n++;
	CHECK_EQ(n, 20);
	rtr_ft_free(t);
	/* Homes come from the hash's top bits: the flows one of two workers
	 * owns (flow_hash % 2 == 0: every low bit alike here) still spread
	 * over all 4 windows and fill the table exactly. With low-bit homes
	 * all 64 would meet in one window and 48 would be refused. */
	t = rtr_ft_create(&fp);
	CHECK(t != NULL);
	if (t == NULL)
		return;
	for (unsigned int i = 0; i < 64; i++) {
		k = ft_key(200 + i);
		x = rtr_ft_lookup(t, &k, FT_H(i % 4, 16u * (i / 4) + 2), 100, true,
				RTR_FT_ORIGIN_NONE, &status);
		CHECK(x != NULL && status == RTR_FT_NEW, "flow %u of one worker's share", i);
	}
	rtr_ft_get_stats(t, &st);
	CHECK_EQ(st.in_use, 64);
	CHECK_EQ(st.full, 0);
	rtr_ft_free(t);
	/* Bad parameters. */
	fp.entries = 0;
	CHECK(rtr_ft_create(&fp) == NULL);
	fp.entries = 100; /* rounded up */
	t = rtr_ft_create(&fp);
	CHECK(t != NULL && rtr_ft_capacity(t) >= 100);
	rtr_ft_free(t);
}

/* 9b. Per-origin limits (doc/security.md): a host port's share of the table
 * and its rate of new entries; the fabric's entries are never limited. */
static void
test_flowtab_limits(void)
{
	struct rtr_ft_limit lim[RTR_FT_ORIGINS] = {
			[3] = {.max_entries = 10},
			[4] = {.rate = 1000, .burst = 5},
	};
	struct rtr_ft_params fp = {
			.name = "test_ft_lim",
			.entries = 256,
			.value_size = 24,
			.aging_ns = 1000,
			.limits = lim,
			.use_rte_malloc = false,
	};
	struct rtr_ft *t = rtr_ft_create(&fp);
	struct rtr_ft_entry *e[16], *x;
	enum rtr_ft_status status;
	struct rtr_ft_stats st;
	struct rtr_ft_key k;
	uint64_t in_use = 0, share = 0, rate = 0;
	unsigned int i, ok;

	printf("9b. flow table per-origin limits\n");
	CHECK(t != NULL);
	if (t == NULL)
		return;
	/* Share: origin 3 holds at most 10 entries. */
	for (i = 0; i < 10; i++) {
		k = ft_key(i);
		e[i] = rtr_ft_lookup(t, &k, i * 2654435761u, 100, true, 3, &status);
		CHECK(e[i] != NULL && status == RTR_FT_NEW, "origin 3 entry %u", i);
	}
	k = ft_key(10);
	CHECK(rtr_ft_lookup(t, &k, 10 * 2654435761u, 100, true, 3, &status) == NULL);
	CHECK_EQ(status, RTR_FT_LIMIT_SHARE);
	/* Its existing flows are still found; other origins still insert. */
	k = ft_key(4);
	CHECK(rtr_ft_lookup(t, &k, 4 * 2654435761u, 100, true, 3, &status) == e[4] &&
			status == RTR_FT_FOUND);
	k = ft_key(40);
	CHECK(rtr_ft_lookup(t, &k, 40 * 2654435761u, 100, true, 5, &status) != NULL);
	k = ft_key(41);
	CHECK(rtr_ft_lookup(t, &k, 41 * 2654435761u, 100, true, RTR_FT_ORIGIN_NONE, &status));
	CHECK_EQ(rtr_ft_origin_in_use(t, 3), 10);
	CHECK_EQ(rtr_ft_origin_in_use(t, 5), 1);
	/* An entry removed gives its room back. */
	rtr_ft_remove(t, e[0]);
	CHECK_EQ(rtr_ft_origin_in_use(t, 3), 9);
	k = ft_key(10);
	CHECK(rtr_ft_lookup(t, &k, 10 * 2654435761u, 200, true, 3, &status) != NULL);
	/* Aged entries swept give it back too (all of them are idle at 10000). */
	CHECK(rtr_ft_sweep(t, 10000, 256) == 12);
	CHECK_EQ(rtr_ft_origin_in_use(t, 3), 0);
	CHECK_EQ(rtr_ft_origin_in_use(t, 5), 0);
	rtr_ft_get_stats(t, &st);
	CHECK_EQ(st.in_use, 0);
	CHECK_EQ(st.limit_share, 1);
	/* Rate: origin 4 gets 5 at once (burst), then one per ms. */
	ok = 0;
	for (i = 0; i < 8; i++) {
		k = ft_key(100 + i);
		ok += rtr_ft_lookup(t, &k, (100 + i) * 2654435761u, 1000000, true, 4, &status) !=
		      NULL;
	}
	CHECK_EQ(ok, 5);
	CHECK_EQ(status, RTR_FT_LIMIT_RATE);
	k = ft_key(110);
	CHECK(rtr_ft_lookup(t, &k, 110 * 2654435761u, 1500000, true, 4, &status) == NULL);
	CHECK(rtr_ft_lookup(t, &k, 110 * 2654435761u, 2000000, true, 4, &status) != NULL);
	k = ft_key(111);
	CHECK(rtr_ft_lookup(t, &k, 111 * 2654435761u, 2000000, true, 4, &status) == NULL);
	/* A second later the burst is back, and an unlimited origin never waits. */
	ok = 0;
	for (i = 0; i < 8; i++) {
		k = ft_key(120 + i);
		ok += rtr_ft_lookup(t, &k, (120 + i) * 2654435761u, 1002000000, true, 4, &status) !=
		      NULL;
		k = ft_key(140 + i);
		CHECK(rtr_ft_lookup(t, &k, (140 + i) * 2654435761u, 1002000000, true, 5, &status));
	}
	CHECK_EQ(ok, 5);
	rtr_ft_origin_stats(t, 4, &in_use, &share, &rate);
	CHECK_EQ(in_use, 11);
	CHECK_EQ(share, 0);
	CHECK_EQ(rate, 3 + 2 + 3);
	/* Eviction of an aged entry releases the victim's origin. */
	rtr_ft_free(t);
	fp.entries = 8; /* one bucket */
	t = rtr_ft_create(&fp);
	CHECK(t != NULL);
	if (t == NULL)
		return;
	for (i = 0; i < 8; i++) {
		k = ft_key(200 + i);
		x = rtr_ft_lookup(t, &k, FT_H(0, i + 1), 100, true, 3, &status);
		CHECK(x != NULL);
	}
	CHECK_EQ(rtr_ft_origin_in_use(t, 3), 8);
	k = ft_key(300);
	x = rtr_ft_lookup(t, &k, FT_H(0, 99), 5000, true, 5, &status);
	CHECK(x != NULL && status == RTR_FT_NEW);
	CHECK_EQ(rtr_ft_origin_in_use(t, 3), 7);
	CHECK_EQ(rtr_ft_origin_in_use(t, 5), 1);
	rtr_ft_free(t);
}

/* ------------------------------------------------------------ 18. one path per flow */

/*
 * A host packet of flow f whose data starts `headroom` bytes into the
 * buffer, with `tailroom` bytes behind it (-1: the rest of the fake
 * buffer).
 */
static struct rte_mbuf *
mk_host_room(const struct flow *f, uint32_t psn, uint8_t b8, unsigned int headroom, int tailroom)
{
	uint8_t buf[512];
	unsigned int n = host_frame(buf, f, psn, 4, b8, 0x02);
	struct rte_mbuf *m = fake_mbuf();

	m->data_off = (uint16_t)headroom;
	if (tailroom >= 0)
		m->buf_len = (uint16_t)(headroom + n + (unsigned int)tailroom);
	memcpy(mdata(m), buf, n);
	m->data_len = (uint16_t)n;
	m->pkt_len = n;
	CHECK_EQ(reparse(m, 0), RTR_DROP_NONE);
	return m;
}

/*
 * Issue 15 item 10: every packet of a flow with state takes the flow's
 * current path, also the ones that cannot carry the ConWeave fields (Resv7
 * set by the host, no room for the header). The flows here were rerouted
 * (TAIL, then phase 1 on another path) to a path that is not their ECMP
 * path, so a packet sent by ECMP would be seen.
 */
static void
test_src_one_path(void)
{
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *src = mk_inst(&p, &src_sink);
	unsigned int n = 0, resv7_on = 0, shifted_on = 0, shifted_cw = 0, full_on = 0;
	unsigned int kept = 0;
	uint64_t now = T0 + 5000000;

	printf("18. one path per flow: Resv7 and headroom-less packets of rerouted flows\n");
	zero_counters();
	for (unsigned int i = 0; i < 400 && n < 100; i++) {
		struct flow f = flow4(70, 71, (uint16_t)(3000 + i));
		uint64_t t0 = now + i * 10000000ULL, t;
		uint8_t orig[512];
		unsigned int olen, b = bth_off_of(&f);
		struct stamp s0, tl, r;
		struct rte_mbuf *m;
		int ecmp, path;

		s0 = src_send(src, &f, 0, t0, cs, NULL);
		tl = src_send(src, &f, 1, t0 + 8001, cs, NULL); /* past the reply deadline */
		CHECK(is_b8(tl.b8, 1, 0, 1, 1, 1), "b8 %#x", tl.b8);
		r = src_send(src, &f, 2, t0 + 8002, cs, NULL);
		CHECK(is_b8(r.b8, 1, 1, 1, 0, 0), "b8 %#x", r.b8);
		m = mk_host(&f, 3, 4, 0, 0x02);
		ecmp = rtr_group_pick(&G, rtr_meta(m)->flow_hash);
		fake_free(m);
		(void)s0;
		if (r.path == ecmp)
			continue; /* not rerouted away from its ECMP path */
		n++;
		/* Resv7 from the host: untouched, on the flow's path. */
		olen = host_frame(orig, &f, 4, 4, 0x01, 0x02);
		m = mk_host(&f, 4, 4, 0x01, 0x02);
		path = rtr_cw_pick(src, &G, 0, m, rtr_meta(m), t0 + 9000, LB_ST(cs));
		resv7_on += path == r.path;
		CHECK(path == r.path || path == ecmp, "path %d", path);
		CHECK_EQ(m->data_len, olen);
		CHECK(memcmp(mdata(m), orig, olen) == 0);
		CHECK(!(rtr_meta(m)->flags & RTR_MF_LB_HDR));
		fake_free(m);
		/* 2 bytes of headroom, room at the tail: the frame moves
		 * back and is stamped like any packet of the flow. */
		olen = host_frame(orig, &f, 5, 4, 0, 0x02);
		m = mk_host_room(&f, 5, 0, 2, 64);
		path = rtr_cw_pick(src, &G, 0, m, rtr_meta(m), t0 + 9100, LB_ST(cs));
		shifted_on += path == r.path;
		if (rtr_meta(m)->flags & RTR_MF_LB_HDR) {
			const uint8_t *d = mdata(m);

			shifted_cw++;
			CHECK(is_b8(d[b + 8], 1, 1, 1, 0, 0), "b8 %#x", d[b + 8]);
			CHECK_EQ(d[b + 4], path);
			CHECK_EQ(m->data_len, olen + 4);
			CHECK(memcmp(d, orig, b + 4) == 0);
			CHECK(memcmp(d + b + 16, orig + b + 12, olen - b - 12) == 0);
		}
		fake_free(m);
		/* No headroom and no tailroom: untouched, on the flow's path. */
		olen = host_frame(orig, &f, 6, 4, 0, 0x02);
		m = mk_host_room(&f, 6, 0, 0, 0);
		path = rtr_cw_pick(src, &G, 0, m, rtr_meta(m), t0 + 9200, LB_ST(cs));
		full_on += path == r.path;
		CHECK_EQ(m->data_len, olen);
		CHECK(memcmp(mdata(m), orig, olen) == 0);
		fake_free(m);
		/* Only Resv7 packets for longer than theta_inactive: the flow
		 * stays active on its path (not idle: no idle move while they
		 * are in flight). Its phase 1 ends by the CLEAR timeout (no
		 * CLEAR comes here), which starts a new epoch on the same
		 * path; an idle flow would not count it and could move. */
		for (t = t0 + 100000; t <= t0 + 1000000; t += 100000) {
			m = mk_host(&f, 7, 4, 0x01, 0x02);
			CHECK(rtr_cw_pick(src, &G, 0, m, rtr_meta(m), t, LB_ST(cs)) >= 0);
			fake_free(m);
		}
		{
			uint64_t ct = cs[RTR_LBC_clear_timeouts], im = cs[RTR_LBC_idle_moves];
			int on = r.path;

			r = src_send(src, &f, 8, t0 + 1000001, cs, NULL);
			kept += cs[RTR_LBC_clear_timeouts] == ct + 1 &&
				cs[RTR_LBC_idle_moves] == im && r.path == on;
		}
	}
	printf("  %u rerouted flows: Resv7 packet on the flow's path %u, 2 B headroom %u "
	       "(stamped %u), no room %u; still active (no idle expiry) after %u us of Resv7 "
	       "packets %u\n",
			n, resv7_on, shifted_on, shifted_cw, full_on, 1000, kept);
	CHECK_EQ(n, 100);
	CHECK_EQ(resv7_on, n);
	CHECK_EQ(shifted_on, n);
	CHECK_EQ(shifted_cw, n);
	CHECK_EQ(full_on, n);
	CHECK_EQ(kept, n);
	CHECK_EQ(cs[RTR_LBC_lb_bypass_resv7], n * 11);
	rtr_cw_free(src);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 19. TX timestamps at departure */

/*
 * The SrcToR behind a real egress stage: the uplinks (egress ports 2..5,
 * path p on port 2 + p) are shaped to 1 Gb/s and a flow sends faster than
 * that, so its packets queue at the SrcToR itself. What left the NIC is
 * recorded per packet (by PSN): departure time and the ConWeave fields as
 * they left.
 */
#define DEP_MAX 1024

struct dep_pkt {
	uint64_t pick, dep;
	int path;
	uint8_t b8;
	uint16_t ts_tx, ts_tail; /* as it left */
	bool left;
};

static struct dep_run {
	struct rtr_cw *src;
	uint64_t now; /* the egress call in progress */
	struct dep_pkt p[DEP_MAX];
	unsigned int n_left;
	bool fabric; /* what left goes on to fab (test 20) */
} dr;

/* The fabric behind the uplinks (test 20): what left, due at the DstToR. */
#define FAB_MAX 4096

static struct {
	struct rte_mbuf *m[FAB_MAX];
	uint64_t at[FAB_MAX];
	unsigned int head, tail;
} fab;

static struct rtr_config dep_cfg;
static struct rtr_egress_shared dep_sh;
static struct rtr_lcore_stats dep_st;

static uint16_t
dep_tx(void *arg, uint16_t port, uint16_t hwq, struct rte_mbuf **pkts, uint16_t n)
{
	(void)hwq;
	(void)arg;
	(void)port;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const uint8_t *b = mdata(m) + rtr_meta_bth_off(rtr_meta(m));
		uint32_t psn = (uint32_t)b[9] << 16 | (uint32_t)b[10] << 8 | b[11];

		if (!(rtr_meta(m)->flags & RTR_MF_LB_HDR)) {
			fake_free(m); /* other traffic (test 20) */
			continue;
		}
		CHECK(psn < DEP_MAX);
		if (psn < DEP_MAX) {
			struct dep_pkt *d = &dr.p[psn];

			d->dep = dr.now;
			d->b8 = b[8];
			d->ts_tx = (uint16_t)(b[12] << 8 | b[13]);
			d->ts_tail = (uint16_t)(b[14] << 8 | b[15]);
			d->left = true;
			dr.n_left++;
		}
		if (dr.fabric && fab.tail - fab.head < FAB_MAX) {
			fab.m[fab.tail % FAB_MAX] = m;
			fab.at[fab.tail % FAB_MAX] = dr.now + 2000;
			fab.tail++;
			continue;
		}
		fake_free(m);
	}
	return n;
}

static void
dep_drop(void *arg, struct rte_mbuf *m, enum rtr_drop_reason why)
{
	(void)arg;
	CHECK(0, "egress dropped a packet (%d)", (int)why);
	fake_free(m);
}

static void
dep_depart(void *arg, struct rte_mbuf *m, uint64_t now)
{
	(void)arg;
	rtr_cw_depart(dr.src, m, rtr_meta(m), now, LB_ST(cs));
}

static struct rtr_egress *
dep_egress(void)
{
	struct rtr_egress_io io = {
			.tx = dep_tx,
			.drop = dep_drop,
			.depart = dep_depart,
			.depart_flags = RTR_MF_LB_HDR,
			.trim_lb_hdr_len = RTR_LB_HDR_LEN,
			.depart_ports = 0x3,
	};
	struct rtr_egress *eg;

	memset(&dep_cfg, 0, sizeof(dep_cfg));
	dep_cfg.n_ports = 6;
	for (unsigned int p = 0; p < 6; p++) {
		dep_cfg.ports[p].port = (uint16_t)p;
		dep_cfg.ports[p].role = p < 2 ? RTR_PORT_HOST : RTR_PORT_FABRIC;
		dep_cfg.ports[p].speed_gbps = 100;
		dep_cfg.ports[p].shape_gbps = p < 2 ? 0 : 1.0;
		dep_cfg.ports[p].shape_burst_kb = 1;
	}
	dep_cfg.qos.classes = 8;
	dep_cfg.qos.queue_kb = 2048;
	dep_cfg.qos.trim_dscp = -1;
	for (unsigned int c = 0; c < RTR_MAX_CLASSES; c++) {
		dep_cfg.qos.cls[c].priority = (uint8_t)c;
		dep_cfg.qos.cls[c].weight = 1;
		dep_cfg.qos.cls[c].queue_kb = 2048;
	}
	memset(&dep_st, 0, sizeof(dep_st));
	CHECK_EQ(rtr_egress_shared_init(&dep_sh, &dep_cfg, NULL), 0);
	eg = rtr_egress_create(&dep_sh, 0, &io, &dep_st, 1u << 14, -1);
	CHECK(eg != NULL);
	return eg;
}

/*
 * n packets of flow f, one every `gap` ns from t0, through rtr_cw_pick and
 * the egress; the clock runs in 100 ns steps until all have left. At
 * clear_at (0: never) the SrcToR gets the CLEAR of the TAIL (as a DstToR
 * whose hold timed out would send it while the TAIL is still queued here).
 */
static void
dep_drive(struct rtr_cw *src, struct rtr_egress *eg, const struct flow *f, unsigned int n,
		uint64_t t0, uint64_t gap, uint64_t clear_at)
{
	struct rtr_cw_params dp = def_params(NULL);
	struct rtr_cw *dst = clear_at ? mk_inst(&dp, &aux_sink) : NULL;
	struct rte_mbuf *clear = NULL;
	unsigned int next = 0;

	memset(&dr, 0, sizeof(dr));
	dr.src = src;
	for (uint64_t t = t0; dr.n_left < n && t < t0 + 100000000ULL; t += 100) {
		dr.now = t;
		while (next < n && t0 + next * gap <= t) {
			struct rte_mbuf *m = mk_host(f, next, 4, 0, 0x02);
			uint64_t pt = t0 + next * gap;
			int path = rtr_cw_pick(src, &G, 0, m, rtr_meta(m), pt, LB_ST(cs));

			CHECK(path >= 0 && (rtr_meta(m)->flags & RTR_MF_LB_HDR));
			dr.p[next].pick = pt;
			dr.p[next].path = path;
			if (dst != NULL && rtr_cw_tail(rtr_meta(m)->bth_b8)) {
				/* What the DstToR answers that TAIL with. */
				struct rte_mbuf *c = fake_frame(mdata(m), m->data_len);

				to_fabric(c);
				CHECK_EQ(dst_rx(dst, &aux_sink, c, 0, pt, cd), RTR_CW_FORWARD);
				CHECK(aux_sink.nc > 0);
				clear = aux_sink.cm[--aux_sink.nc];
				CHECK_EQ(reparse(clear, RTR_LB_PARSE_HDR), RTR_DROP_NONE);
				CHECK(is_b8(rtr_meta(clear)->bth_b8, RTR_LB_OP_REPLY, 1,
						rtr_cw_epoch(rtr_meta(m)->bth_b8), 0, 0));
			}
			rtr_meta(m)->out_port = (uint8_t)(2 + path);
			CHECK_EQ(rtr_egress_enqueue(eg, (uint16_t)(2 + path), m,
						 rtr_egress_classify(eg, m), pt),
					0);
			next++;
		}
		if (clear != NULL && t >= clear_at) {
			ctrl_to_src(src, clear, t, cs);
			fake_free(clear);
			clear = NULL;
		}
		rtr_egress_service(eg, t);
	}
	CHECK_EQ(dr.n_left, n);
	sink_clear(&aux_sink);
	rtr_cw_free(dst);
}

static void
test_src_departure(void)
{
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh);
	struct rtr_cw *src;
	struct rtr_egress *eg;
	unsigned int n = 300, off_tx = 0, max_off = 0, tail = DEP_MAX, before = 0, after = 0;
	unsigned int tail_ok = 0, p1_ok = 0, p1 = 0;
	int max_wait = 0;

	printf("19. TX timestamps at departure (SrcToR uplinks shaped to 1 Gb/s)\n");
	zero_counters();
	/* (a) One path, no reroute (replies never due): ts_tx of every
	 * packet is its departure time, not the time it was picked. */
	p.base_rtt_ns = 1000000000ULL;
	src = mk_inst(&p, &src_sink);
	eg = dep_egress();
	{
		struct flow f = flow4(80, 81, 5000);

		dep_drive(src, eg, &f, n, T0, 200, 0);
		for (unsigned int i = 0; i < n; i++) {
			int off = (int16_t)(uint16_t)(dr.p[i].ts_tx - rtr_cw_ts(dr.p[i].dep));
			int wait = (int)((dr.p[i].dep - dr.p[i].pick) >> 10);

			off_tx += off != 0;
			if ((unsigned int)abs(off) > max_off)
				max_off = (unsigned int)abs(off);
			if (wait > max_wait)
				max_wait = wait;
		}
		printf("  (a) %u packets, longest wait in the uplink queue %d x 1.024 us: ts_tx "
		       "not "
		       "the departure time for %u, off by up to %u x 1.024 us\n",
				n, max_wait, off_tx, max_off);
		CHECK(max_wait > 100, "the queue did not build (%d)", max_wait);
		CHECK_EQ(off_tx, 0);
	}
	rtr_egress_free(eg);
	rtr_cw_free(src);

	/* (b) A reroute while the old path's queue is long: the TAIL's ts_tx
	 * and ts_tail are its departure time; a phase-1 packet that leaves
	 * before the TAIL carries its own departure time as ts_tail (the TAIL
	 * leaves later: the closest lower bound), one that leaves after it
	 * the TAIL's departure time. */
	p = def_params(sh);
	src = mk_inst(&p, &src_sink);
	eg = dep_egress();
	for (uint16_t sport = 6000; sport < 6100; sport++) {
		struct flow f = flow4(82, 83, sport);

		dep_drive(src, eg, &f, n, T0 + (sport - 6000) * 10000000ULL, 200, 0);
		tail = DEP_MAX;
		for (unsigned int i = 0; i < n; i++)
			if (rtr_cw_tail(dr.p[i].b8))
				tail = i;
		CHECK(tail < n);
		if (tail < n && dr.p[tail + 1].path != dr.p[tail].path)
			break; /* rerouted */
	}
	{
		const struct dep_pkt *t = &dr.p[tail];
		uint16_t tdep = rtr_cw_ts(t->dep);

		tail_ok = t->ts_tx == tdep && t->ts_tail == tdep;
		for (unsigned int i = tail + 1; i < n; i++) {
			const struct dep_pkt *d = &dr.p[i];

			if (rtr_cw_phase(d->b8) != 1 || rtr_cw_epoch(d->b8) != rtr_cw_epoch(t->b8))
				continue;
			p1++;
			if (d->dep < t->dep) {
				before++;
				p1_ok += d->ts_tail == rtr_cw_ts(d->dep) &&
					 d->ts_tx == rtr_cw_ts(d->dep);
			} else {
				after++;
				p1_ok += d->ts_tail == tdep && d->ts_tx == rtr_cw_ts(d->dep);
			}
		}
		printf("  (b) TAIL picked at +%" PRIu64 " ns, left %" PRIu64 " ns later: ts_tx %u, "
		       "ts_tail %u, departure %u; phase-1 packets %u (%u left before the TAIL, "
		       "%u after), stamped as described %u\n",
				(uint64_t)(t->pick - dr.p[0].pick), (uint64_t)(t->dep - t->pick),
				t->ts_tx, t->ts_tail, tdep, p1, before, after, p1_ok);
		CHECK(t->dep - t->pick > 20000, "the TAIL did not wait (%" PRIu64 ")",
				t->dep - t->pick);
		CHECK(tail_ok);
		CHECK(before > 0 && after > 0, "%u %u", before, after);
		CHECK_EQ(p1_ok, p1);
	}
	rtr_egress_free(eg);
	rtr_cw_free(src);

	/* (c) The CLEAR comes while the TAIL and phase-0 packets before it
	 * still queue on the old path (a DstToR whose hold timed out), and
	 * the next epochs start on other paths. A packet of an older epoch
	 * keeps the time it was picked when it leaves after a newer epoch
	 * started: every packet of an older epoch has a ts_tx no later than
	 * any packet of a newer one (what a DstToR tells stale packets by). */
	src = mk_inst(&p, &src_sink);
	eg = dep_egress();
	{
		unsigned int bad = 0, late = 0, first_new = DEP_MAX;

		for (uint16_t sport = 7000; sport < 7100; sport++) {
			struct flow f = flow4(84, 85, sport);
			uint64_t t0 = T0 + (sport - 7000) * 10000000ULL;

			dep_drive(src, eg, &f, n, t0, 200, t0 + 10000);
			for (tail = 0; tail < n && !rtr_cw_tail(dr.p[tail].b8); tail++)
				;
			CHECK(tail < n);
			if (tail < n && dr.p[tail + 1].path != dr.p[tail].path)
				break;
		}
		for (unsigned int i = tail + 1; i < n && first_new == DEP_MAX; i++)
			if (rtr_cw_epoch(dr.p[i].b8) != rtr_cw_epoch(dr.p[tail].b8))
				first_new = i;
		CHECK(first_new < n);
		for (unsigned int i = 0; i < first_new && first_new < n; i++)
			late += dr.p[i].dep > dr.p[first_new].dep;
		for (unsigned int i = 0; i < n; i++)
			for (unsigned int j = i + 1; j < n; j++)
				if (rtr_cw_epoch(dr.p[i].b8) != rtr_cw_epoch(dr.p[j].b8) &&
						(int16_t)(uint16_t)(dr.p[j].ts_tx - dr.p[i].ts_tx) <
								0)
					bad++;
		printf("  (c) CLEAR before the TAIL left: %u packets of the old epoch left after "
		       "the new one's first; pairs of epochs out of ts_tx order %u\n",
				late, bad);
		CHECK(late > 0);
		CHECK_EQ(bad, 0);
	}
	rtr_egress_free(eg);
	rtr_cw_free(src);
	rtr_pm_free(sh);
}

/*
 * 20. T_resume with departure timestamps, end to end: the old path's
 * queue at the SrcToR grows fast (other traffic, 10 frames/us into a
 * 1 Gb/s uplink) while a flow sends one packet every 2 us; its TAIL waits
 * there over 100 us, its phase-1 packets leave at once on an idle path.
 * Both paths take 2 us to the DstToR. The hold must last until the TAIL
 * arrives: nothing delivered out of PSN order, the ring flushed by the
 * TAIL, not by its deadline.
 */

static void
test_src_departure_resume(void)
{
	struct rtr_pm *sh =
			rtr_pm_create(&(struct rtr_pm_params){.name = "cw_busy", .n_groups = 1});
	struct rtr_cw_params p = def_params(sh), dp = def_params(NULL);
	const unsigned int n = 100, n_bg = 200;
	unsigned int ooo = 0, delivered = 0, tail = DEP_MAX, tries = 0;
	uint64_t tail_wait = 0, flush_tail = 0, flush_timeout = 0;
	struct rtr_cw *src, *dst;
	struct rtr_egress *eg;

	printf("20. T_resume behind a growing SrcToR uplink queue (TAIL waits there)\n");
	for (uint16_t sport = 8000; sport < 8100; sport++) {
		struct flow f = flow4(86, 87, sport), bgf = flow4(88, 89, 1);
		uint64_t t0 = T0 + (sport - 8000) * 100000000ULL;
		unsigned int next = 0, next_bg = 0;
		uint32_t max_psn = 0;
		bool any = false;

		tries++;
		zero_counters();
		src = mk_inst(&p, &src_sink);
		dst = mk_inst(&dp, &dst_sink);
		eg = dep_egress();
		memset(&dr, 0, sizeof(dr));
		memset(&fab, 0, sizeof(fab));
		dr.src = src;
		dr.fabric = true;
		ooo = delivered = 0;
		for (uint64_t t = t0; delivered < n && t < t0 + 10000000ULL; t += 100) {
			dr.now = t;
			while (next < n && t0 + next * 2000ULL <= t) {
				struct rte_mbuf *m = mk_host(&f, next, 4, 0, 0x02);
				int path = rtr_cw_pick(src, &G, 0, m, rtr_meta(m), t, LB_ST(cs));

				dr.p[next].pick = t;
				dr.p[next].path = path;
				CHECK_EQ(rtr_egress_enqueue(eg, (uint16_t)(2 + path), m,
							 rtr_egress_classify(eg, m), t),
						0);
				next++;
			}
			while (next_bg < n_bg && t0 + next_bg * 100ULL <= t) {
				struct rte_mbuf *m = mk_host(&bgf, next_bg, 4, 0, 0x02);

				CHECK_EQ(rtr_egress_enqueue(eg, (uint16_t)(2 + dr.p[0].path), m,
							 rtr_egress_classify(eg, m), t),
						0);
				next_bg++;
			}
			rtr_egress_service(eg, t);
			while (fab.head != fab.tail && fab.at[fab.head % FAB_MAX] <= t) {
				struct rte_mbuf *m = fab.m[fab.head++ % FAB_MAX];

				to_fabric(m);
				dst_rx(dst, &dst_sink, m, 0, t, cd);
			}
			rtr_cw_tick(dst, t, LB_ST(cd));
			for (unsigned int i = 0; i < dst_sink.nd; i++) {
				uint32_t psn = frame_psn(dst_sink.dm[i], &f);

				if (any && psn < max_psn)
					ooo++;
				if (!any || psn > max_psn)
					max_psn = psn;
				any = true;
				delivered++;
			}
			sink_clear(&dst_sink);
		}
		CHECK_EQ(delivered, n);
		for (tail = 0; tail < n && !rtr_cw_tail(dr.p[tail].b8); tail++)
			;
		CHECK(tail < n);
		tail_wait = tail < n ? dr.p[tail].dep - dr.p[tail].pick : 0;
		flush_tail = cd[RTR_LBC_reorder_flush_tail];
		flush_timeout = cd[RTR_LBC_reorder_flush_timeout];
		rtr_cw_free(dst);
		rtr_egress_flush_all(eg, 4);
		rtr_egress_free(eg);
		rtr_cw_free(src);
		sink_clear(&src_sink);
		if (tail + 1 < n && dr.p[tail + 1].path != dr.p[tail].path)
			break; /* rerouted: the case of interest */
	}
	printf("  TAIL waited %" PRIu64 " ns in the uplink queue; %u packets delivered out of "
	       "order; reorder flushed by TAIL %" PRIu64 ", by deadline %" PRIu64 "\n",
			tail_wait, ooo, flush_tail, flush_timeout);
	CHECK(tail_wait > 50000, "%" PRIu64, tail_wait);
	CHECK_EQ(ooo, 0);
	CHECK_EQ(flush_tail, 1);
	CHECK_EQ(flush_timeout, 0);
	rtr_pm_free(sh);
}

/* ------------------------------------------------------------ 21. hold budget */

/*
 * Issue 15 item 7: holding is bounded by the worker's hold budget (what
 * the mempool can give without starving RX), not only by the rings. 100
 * flows hold phase-1 packets (20 each, round robin) with room for 128
 * rings of 64 but a budget of 500 packets: once the worker holds 500, a
 * flow that would hold one more takes the overflow path (its ring
 * released in order, the rest of its epoch delivered directly), counted;
 * nothing is lost, every flow's packets come out once each, and a flow
 * that never overflowed comes out in PSN order.
 */
static void
test_dst_hold_budget(void)
{
	struct rtr_cw_params p = def_params(NULL);
	struct sink *s = &dst_sink;
	const unsigned int n_flows = 100, per_flow = 20;
	unsigned int count[100] = {0}, over = 0, in_order = 0, max_held = 0;
	uint32_t last[100];
	bool bad_order[100] = {false}, overflowed[100] = {false};
	uint64_t R = T0 + 900000;
	struct rtr_cw *cw;

	printf("21. DstToR: hold budget\n");
	p.n_rings = 128;
	p.ring_depth = 64;
	p.hold_budget = 500;
	memset(cd, 0, sizeof(cd_st.lb));
	cw = mk_inst(&p, s);
	for (unsigned int i = 0; i < n_flows; i++) {
		struct flow f = flow4(90, 91, (uint16_t)(9000 + i));

		CHECK_EQ(RX(cw, dpkt(&f, 0, 1, 0, 1, 1, 0, 100, 0), 1, R), RTR_CW_FORWARD);
	}
	for (unsigned int k = 0; k < per_flow; k++) {
		for (unsigned int i = 0; i < n_flows; i++) {
			struct flow f = flow4(90, 91, (uint16_t)(9000 + i));
			uint64_t before = cd[RTR_LBC_reorder_overflow];

			RX(cw, dpkt(&f, 2 + k, 2, 1, 1, 0, 0, (uint16_t)(200 + k), 150), 1,
					R + 10 + k);
			if (cd[RTR_LBC_reorder_overflow] != before)
				overflowed[i] = true;
			if (rtr_cw_held(cw) > max_held)
				max_held = (unsigned int)rtr_cw_held(cw);
		}
	}
	for (unsigned int i = 0; i < n_flows; i++) {
		struct flow f = flow4(90, 91, (uint16_t)(9000 + i));

		RX(cw, dpkt(&f, 1, 1, 0, 1, 1, 1, 150, 150), 1, R + 1000);
	}
	CHECK_EQ(rtr_cw_held(cw), 0);
	/* Per flow: each PSN once; order kept unless the flow overflowed. */
	for (unsigned int j = 0; j < s->nd; j++) {
		const uint8_t *b = mdata(s->dm[j]) + rtr_meta_bth_off(rtr_meta(s->dm[j]));
		const uint8_t *l4 = mdata(s->dm[j]) + rtr_meta(s->dm[j])->l4_off;
		unsigned int i = (unsigned int)(l4[0] << 8 | l4[1]) - 9000;
		uint32_t psn = (uint32_t)b[9] << 16 | (uint32_t)b[10] << 8 | b[11];

		CHECK(i < n_flows);
		if (i >= n_flows)
			continue;
		if (count[i] > 0 && psn < last[i])
			bad_order[i] = true;
		last[i] = psn;
		count[i]++;
	}
	for (unsigned int i = 0; i < n_flows; i++) {
		CHECK_EQ(count[i], per_flow + 2);
		over += overflowed[i];
		in_order += !bad_order[i];
		if (!overflowed[i])
			CHECK(!bad_order[i], "flow %u", i);
	}
	printf("  budget 500: held at most %u packets; overflow taken by %u flows (counted %" PRIu64
	       " reorder_overflow, %" PRIu64 " over budget); %u of %u packets delivered, "
	       "%u flows in PSN order\n",
			max_held, over, cd[RTR_LBC_reorder_overflow],
			cd[RTR_LBC_reorder_over_budget], s->nd, n_flows * (per_flow + 2), in_order);
	CHECK(max_held <= 500, "%u", max_held);
	CHECK(over > 0);
	CHECK_EQ(cd[RTR_LBC_reorder_overflow], over);
	CHECK_EQ(cd[RTR_LBC_reorder_over_budget], over);
	CHECK_EQ(s->nd, n_flows * (per_flow + 2));
	ctrl_clear(s);
	dst_done(cw);
}

int
main(void)
{
	rtr_meta_offset = (int)offsetof(struct rte_mbuf, dynfield1);
	G.n_paths = 4;
	atomic_store(&G.live_mask, 0xf);
	test_src_new_flow();
	test_src_reply();
	test_src_timeout();
	test_src_clear_inactive();
	test_src_lost_clear();
	test_src_clear_from_departure();
	test_src_depart_by_reference();
	test_src_busy();
	test_src_busy_per_dst();
	test_src_bypass();
	test_dst_epochs();
	test_dst_control();
	test_dst_hold_tail();
	test_dst_stale_timers();
	test_dst_deadlines();
	test_dst_overflow();
	test_dst_flush();
	test_dst_stale_epochs();
	test_dst_stale_wrap();
	test_dst_hold_bound();
	test_dst_ring_index();
	test_full_telemetry_aging();
	test_e2e();
	test_flowtab();
	test_flowtab_limits();
	test_src_one_path();
	test_src_departure();
	test_src_departure_resume();
	test_dst_hold_budget();
	sink_clear(&src_sink);
	sink_clear(&dst_sink);
	sink_clear(&aux_sink);
	CHECK_EQ(live_mbufs, 0);
	return rtr_test_done("conweave");
}
