/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Fuzz targets "lb_<mode>", one per stateful mode (its entry, struct
 * rtr_lb_fuzz in lib/lb/<mode>/fuzz_<mode>.c, gives the mode, its config
 * section and its shared state): one worker's LB stage driven through its
 * ops table (rtr_lb_mode_ops) by the pipeline's own hook rules (rtr_lb_worker.h:
 * pick / control_rx / deliver / post_route / queued), with the pipeline's
 * ingress checks and its forwarding step (lib/fwd/rtr_fwd.h: rocetor's own
 * route table, next hops, link checks, TTL and MACs), the io callbacks,
 * tick and flush: fake mbufs (rtr_test_mbuf.h), a virtual clock. The EAL
 * runs without hugepages, devices or runtime files, only for the route
 * tables' memory.
 *
 * Two ToRs, A (index 0) and B (index 1), each with host ports 0 and 1,
 * fabric ports 2 and 3 and one uplink group (paths on ports 2 and 3), their
 * fabric ports wired to each other (port 2 to port 2, 3 to 3). Routes (the
 * config of config_for): on ToR i, 10.i.0.x (fd0i::x) goes to host port
 * x & 1 and 10.(1-i)/16 (fd0(1-i)::/16) to the group. What a ToR sends to the fabric waits on a
 * "wire" (a short FIFO) until an operation plays it into the other ToR, so
 * ConWeave's stamped data and control packets, SeqBalance's PathTags and
 * Congestion Packets and CAVER's shims and source routes make the whole
 * trip.
 *
 * Input: byte 0 picks the mode's parameters (its entry's config section,
 * through the real validator),
 * then operations until the input ends; bit 3 of an operation byte picks
 * the ToR it acts on:
 *   0..2  a RoCE packet built from ~16 fuzz-chosen fields (address, port,
 *         opcode, BTH byte 4 / Resv7, PSN, ConWeave header or CAVER shim,
 *         a valid or wrong ICRC, CE) on a fuzz-chosen port
 *   3     a raw frame (length, bytes) on a fuzz-chosen port
 *   4     clock advance          5  tick (and a telemetry walk)
 *   6     play a wire packet into the other ToR (optionally with a byte
 *         changed)
 *   7     events: a path down/up, a host port down (flush that port) /
 *         up, the mbuf pool empty / refilled, flush everything
 *
 * Checked on the way: pick returns a live path; deliver only targets host
 * ports; what the LB stage hands on is a sane single-segment mbuf; and
 * DESIGN.md B4 end to end: a RoCE frame a host sent with a valid ICRC (and
 * Resv7 0, as RNICs send them) reaches a host with a valid ICRC, whatever
 * the LB stages inserted, stamped or held on the way.
 * At the end: flush everything; nothing may still be held; after the
 * state is freed every mbuf must have come back (a leak is a finding).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_net_crc.h>

#include "fuzz.h"
#include "rtr_config.h"
#include "rtr_fwd.h"
#include "rtr_lb.h"
#include "rtr_lb_registry.h"
#include "rtr_lb_ctrl.h"
#include "rtr_lb_host.h"
#include "rtr_lb_fuzz.h"
#include "rtr_lb_worker.h"
#include "rtr_mbuf.h"
#include "rtr_parse.h"
#include "rtr_route.h"
#include "rtr_stats.h"
#include "rtr_test_mbuf.h"

#define SEED     0x5eed1234u
#define WIRE_MAX 16
#define N_SW     2
#define OPS_MAX  2048
#define N_HOST   2 /* ports 0, 1 */
#define FABRIC0  2 /* ports 2, 3 */

/* One ToR. */
struct sw {
	unsigned int idx;
	void *shared;
	void *st;
	struct rtr_group *g; /* the uplink group (the IPv4 and IPv6 routes') */
	struct rtr_fwd fwd;
	struct rtr_fwd_port ports[RTR_MAX_PORTS];
};

/* Each ToR's route and neighbour tables: built once (the routes do not
 * depend on the input), their groups' live masks reset for each input. */
static struct rtr_route *route_of_sw[N_SW];
static struct rtr_neigh *neigh_of_sw[N_SW];

/* A frame on its way from one ToR to the other. */
struct wire_pkt {
	struct rte_mbuf *m;
	uint8_t from;
};

struct h {
	const struct rtr_lb_ops *ops;
	struct rtr_lcore_stats *stats;
	uint64_t now;
	bool alloc_fail;
	struct sw sw[N_SW];
	struct wire_pkt wire[WIRE_MAX];
	unsigned int nwire;
	unsigned int depth; /* recursion through io.control */
};

static struct h H;
static bool trace; /* RTR_FUZZ_TRACE set: one line per step on stderr */

#define TRACE(...)                                    \
	do {                                          \
		if (unlikely(trace))                  \
			fprintf(stderr, __VA_ARGS__); \
	} while (0)
static struct rtr_lcore_stats stats_block;
static struct rtr_config *cfg_cache[N_SW][256];

/*
 * The harness's own mark in each mbuf, after the 24 bytes of struct
 * rtr_meta in dynfield1: MARK_ICRC = a host sent this RoCE frame with a
 * valid ICRC, so a host must receive it with one.
 */
#define MARK_ICRC 1u
static inline uint32_t *
mark(struct rte_mbuf *m)
{
	return &m->dynfield1[8];
}

/* ------------------------------------------------------------ config */

/* The config of ToR i for parameter byte p, read and validated once. */
static const struct rtr_config *
config_for(unsigned int i, uint8_t p)
{
	char text[2048], sect[512], err[256];
	struct rtr_config *cfg;

	if (cfg_cache[i][p] != NULL)
		return cfg_cache[i][p];
	snprintf(text, sizeof(text),
			"switch: {name: tor%u, role: tor, id: %u, lb: %s}\n"
			"ports:\n"
			"  - {port: 0, role: host, mac: \"02:00:00:00:07:00\", l2_filter: false}\n"
			"  - {port: 1, role: host, mac: \"02:00:00:00:07:01\", l2_filter: false}\n"
			"  - {port: 2, role: fabric, mac: \"02:00:00:00:07:02\", speed_gbps: 100}\n"
			"  - {port: 3, role: fabric, mac: \"02:00:00:00:07:03\", speed_gbps: 25}\n"
			"routes:\n"
			"  - {prefix: \"10.%u.0.1/32\", port: 1, nexthop_mac: "
			"\"02:00:00:00:aa:01\"}\n"
			"  - {prefix: \"10.%u.0.2/32\", port: 0, nexthop_mac: "
			"\"02:00:00:00:aa:02\"}\n"
			"  - {prefix: \"fd0%u::1/128\", port: 1, nexthop_mac: "
			"\"02:00:00:00:aa:01\"}\n"
			"  - {prefix: \"fd0%u::2/128\", port: 0, nexthop_mac: "
			"\"02:00:00:00:aa:02\"}\n"
			"  - prefix: \"10.%u.0.0/16\"\n"
			"    paths:\n"
			"      - {port: 2, nexthop_mac: \"02:00:00:00:bb:02\"}\n"
			"      - {port: 3, nexthop_mac: \"02:00:00:00:bb:03\"}\n"
			"  - prefix: \"fd0%u::/16\"\n"
			"    paths:\n"
			"      - {port: 2, nexthop_mac: \"02:00:00:00:bb:02\"}\n"
			"      - {port: 3, nexthop_mac: \"02:00:00:00:bb:03\"}\n"
			"%s",
			i, 7 + i, rtr_lb_mode_at(rtr_lb_fuzz_entry.mode)->name, i, i, i, i, 1 - i,
			1 - i, rtr_lb_fuzz_entry.config(p, sect, sizeof(sect)));
	cfg = calloc(1, sizeof(*cfg));
	if (cfg == NULL)
		abort();
	if (rtr_config_load_buf("fuzz_lb.yaml", "yaml", text, strlen(text), cfg, err,
			    sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_lb: harness config rejected: %s\n%s", err, text);
		abort();
	}
	cfg_cache[i][p] = cfg;
	return cfg;
}

/* ------------------------------------------------------------ io */

static void route_and_send(struct sw *sw, struct rte_mbuf *m, uint64_t now);

/* A frame leaves on host port `port` of a ToR: the end-to-end check. */
static void
to_host(struct rte_mbuf *m)
{
	struct rtr_meta rm;

	FZ_CHECK(m->data_len == m->pkt_len && m->data_off + m->data_len <= m->buf_len);
	TRACE("  to a host: %u bytes, mark %u\n", m->data_len, *mark(m));
	if (*mark(m) & MARK_ICRC) {
		/* As the receiving RNIC sees it. */
		FZ_CHECK(rtr_parse(mdata(m), m->data_len, SEED, 0, &rm) == RTR_DROP_NONE &&
						(rm.flags & RTR_MF_ROCE),
				"a host's RoCE frame reaches a host unparseable (len %u)",
				m->data_len);
		FZ_CHECK(rtr_roce_icrc_ok(mdata(m), m->data_len, &rm),
				"a host's frame with a valid ICRC reaches a host with a wrong one "
				"(len %u, opcode 0x%02x, byte 8 0x%02x)",
				m->data_len, rm.bth_opcode, rm.bth_b8);
	}
	fake_free(m);
}

static void
io_deliver(void *arg, struct rte_mbuf *m, uint16_t port, bool held)
{
	struct sw *sw = arg;

	(void)held;
	FZ_CHECK(port < N_HOST, "deliver to port %u, not a host port", port);
	FZ_CHECK(m != NULL && m->data_len <= m->buf_len);
	if (!atomic_load(&sw->ports[port].link_up))
		fake_free(m); /* the pipeline drops it: port_down */
	else
		to_host(m);
}

static void
io_control(void *arg, struct rte_mbuf *m)
{
	struct rtr_meta *meta = rtr_meta(m);

	/* As the pipeline's lb_control: parsed like any frame, then routed
	 * (re-entering the LB stage) as a frame the switch built. */
	*mark(m) = 0;
	if (rtr_parse(mdata(m), m->data_len, SEED, RTR_LB_PARSE_HDR, meta) != RTR_DROP_NONE) {
		fake_free(m);
		return;
	}
	meta->in_port = RTR_PORT_NONE;
	FZ_CHECK(++H.depth < 8, "control packets recurse");
	route_and_send(arg, m, H.now);
	H.depth--;
}

static struct rte_mbuf *
io_alloc(void *arg)
{
	(void)arg;
	return H.alloc_fail ? NULL : fake_mbuf();
}

/* ------------------------------------------------------------ the path */

static void
wire_put(struct sw *sw, struct rte_mbuf *m)
{
	if (H.nwire == WIRE_MAX) {
		fake_free(H.wire[0].m);
		memmove(H.wire, H.wire + 1, (WIRE_MAX - 1) * sizeof(H.wire[0]));
		H.nwire--;
	}
	H.wire[H.nwire].m = m;
	H.wire[H.nwire].from = (uint8_t)sw->idx;
	TRACE("  to the wire: %u bytes, %u on it\n", m->data_len, H.nwire + 1);
	H.nwire++;
}

/* The pipeline's forwarding step (lib/fwd/rtr_fwd.h) for a parsed packet
 * (meta->in_port set), then what its verdict means here. */
static void
route_and_send(struct sw *sw, struct rte_mbuf *m, uint64_t now)
{
	struct rtr_meta *meta = rtr_meta(m);
	const struct rtr_fwd *f = &sw->fwd;
	struct rtr_fwd_dest d = {0};

	rtr_fwd_lookup(f, m, meta, &d);
	TRACE("  ToR %c: in %u, route 0x%x, verdict %u\n", 'A' + sw->idx, meta->in_port, d.route,
			d.verdict);
	if (d.verdict == RTR_FWD_CONTINUE) {
		rtr_fwd_pick(f, m, meta, &d, now);
		if (d.verdict == RTR_FWD_CONTINUE && rtr_fwd_kind(&d) == RTR_RT_GROUP) {
			FZ_CHECK(d.nh == sw->g->nh[0] || d.nh == sw->g->nh[1],
					"pick gave next hop %u, not a path's", d.nh);
			FZ_CHECK(m->data_len == m->pkt_len && m->data_off <= m->buf_len &&
					m->data_off + m->data_len <= m->buf_len);
		}
	}
	if (d.verdict == RTR_FWD_CONTINUE)
		rtr_fwd_finish(f, m, meta, &d, now);
	switch (d.verdict) {
	case RTR_FWD_ENQUEUE:
		FZ_CHECK(m->data_len == m->pkt_len && m->data_off + m->data_len <= m->buf_len);
		if (rtr_fwd_kind(&d) == RTR_RT_GROUP)
			FZ_CHECK(atomic_load(&sw->g->live_mask) &
							(1ull << (d.out_port == sw->g->port[0]
											 ? 0
											 : 1)),
					"a packet leaves by a dead path (port %u, live 0x%llx)",
					d.out_port,
					(unsigned long long)atomic_load(&sw->g->live_mask));
		/* The wire and the host take everything: every packet is
		 * queued. */
		rtr_fwd_queued(f, m, meta, d.out_port);
		if (d.out_port >= FABRIC0)
			wire_put(sw, m);
		else
			to_host(m);
		break;
	case RTR_FWD_TAKEN:
		break;
	default: /* dropped, punted or consumed: nothing more here */
		fake_free(m);
		break;
	}
}

/* Ingress of the pipeline: parse, the host checks, then route. */
static void
receive(struct sw *sw, struct rte_mbuf *m, uint16_t port)
{
	const struct rtr_lb_ops *ops = H.ops;
	struct rtr_meta *meta = rtr_meta(m);
	uint8_t *frame = mdata(m);
	unsigned int flags = port < N_HOST ? 0 : ops->fabric_parse_flags;

	enum rtr_drop_reason why;

	why = rtr_parse(frame, m->data_len, SEED, flags, meta);
	TRACE("ToR %c port %u: %u bytes, parse %d, flags 0x%02x, opcode 0x%02x, b4 0x%02x, "
	      "b8 0x%02x, now %llu\n",
			'A' + sw->idx, port, m->data_len, why, meta->flags, meta->bth_opcode,
			meta->bth_b4, meta->bth_b8, (unsigned long long)H.now);
	if (why != RTR_DROP_NONE) {
		fake_free(m);
		return;
	}
	meta->in_port = (uint8_t)port;
	if (port < N_HOST) {
		/* What an RNIC sends: the end-to-end check follows it. */
		*mark(m) = (meta->flags & RTR_MF_ROCE) && !(meta->bth_b8 & RTR_BTH_RESV7_MASK) &&
							   rtr_roce_icrc_ok(
									   frame, m->data_len, meta)
					   ? MARK_ICRC
					   : 0;
	}
	if (rtr_meta_lb_control(meta))
		meta->flow_hash = rtr_flow_hash_reverse(frame, meta, SEED);
	if (port < N_HOST) {
		bool cleared;

		/* The pipeline's host-port ingress, every mode. */
		if (rtr_lb_host_ingress(frame, m->data_len, meta, &cleared) != RTR_DROP_NONE) {
			fake_free(m);
			return;
		}
	}
	if (meta->l3 == RTR_L3_ARP) {
		fake_free(m);
		return;
	}
	rtr_lb_prefetch(ops, sw->st, meta, 0);
	rtr_lb_prefetch(ops, sw->st, meta, 1);
	route_and_send(sw, m, H.now);
}

/* ------------------------------------------------------------ frames */

static const uint8_t opcodes[16] = {
		0x04,
		0x00,
		0x01,
		0x02,
		0x0a,
		0x06,
		0x07,
		0x08,
		0x11,
		0x11,
		0x81,
		0x0c,
		0x10,
		0x12,
		0x64,
		0x05,
};

static void
put_addr(uint8_t *p, bool v6, unsigned int idx)
{
	/* 0, 1: 10.0.0.1, 10.0.0.2 (ToR A's hosts on ports 1, 0),
	 * 2, 3: 10.1.0.1, 10.1.0.2 (ToR B's). */
	static const uint8_t last[4] = {1, 2, 1, 2};
	uint8_t net = idx >= 2;

	if (!v6) {
		p[0] = 10, p[1] = net, p[2] = 0, p[3] = last[idx & 3];
	} else {
		memset(p, 0, 16);
		p[0] = 0xfd, p[1] = net, p[15] = last[idx & 3];
	}
}

static uint32_t
icrc_of(const uint8_t *frame, unsigned int l3, unsigned int l4, bool v6, unsigned int udp_len)
{
	uint8_t buf[8 + 40 + 2048];
	unsigned int ip_len = l4 - l3, n = ip_len + udp_len - RTR_ICRC_LEN;
	uint8_t *p = buf + 8;

	memset(buf, 0xff, 8);
	memcpy(p, frame + l3, n);
	if (!v6) {
		p[1] = p[8] = p[10] = p[11] = 0xff;
	} else {
		p[0] |= 0x0f;
		p[1] = p[2] = p[3] = p[7] = 0xff;
	}
	p[ip_len + 6] = p[ip_len + 7] = 0xff;
	p[ip_len + 8 + 4] = 0xff;
	return rte_net_crc_calc(buf, 8 + n, RTE_NET_CRC32_ETH);
}

/* The ACK shim of the first registered mode that has one (CAVER's), or
 * NULL: read from the registry, so the harness names no mode. */
static const struct rtr_lb_ack_shim *
ack_shim(void)
{
	static const struct rtr_lb_ack_shim *as;
	static bool looked;

	for (unsigned int i = 0; !looked && i < rtr_lb_mode_count(); i++)
		if (rtr_lb_mode_at(i)->ack_shim != NULL) {
			as = rtr_lb_mode_at(i)->ack_shim;
			FZ_CHECK(as->len > 0 && as->len <= 256 && as->fill != NULL);
			break;
		}
	looked = true;
	return as;
}

/*
 * A RoCE frame from fuzz-chosen fields. layout: 0 plain, 1 a DATA header of
 * the shared LB layout (4 bytes after the BTH that the lengths do not
 * count), 2 its control packet (BTH + 4, counted, nothing after), 3 an ACK
 * shim after the AETH (a registered mode's: CAVER's).
 */
static struct rte_mbuf *
build_frame(struct fz *f, uint16_t *port)
{
	static const unsigned int payloads[4] = {0, 16, 64, 256};
	uint8_t f0 = fz_u8(f), f1 = fz_u8(f), f2 = fz_u8(f);
	bool v6 = f0 & 1, vlan = f0 & 2, icrc = f0 & 0x10, ce = f0 & 0x80;
	unsigned int layout = (f0 >> 2) & 3;
	uint8_t opcode = f2 < 0xc0 ? opcodes[f2 & 15] : f2;
	uint8_t b4 = fz_u8(f), b8 = fz_u8(f);
	uint32_t psn = fz_u16(f);
	const struct rtr_lb_ack_shim *as = ack_shim();
	uint8_t hdr[4], shim[256], addr[4], rnd[RTR_LB_ACK_SHIM_RND];
	unsigned int payload = payloads[f1 >> 6], l3, l4, bth, n, ulen, ext = 0;
	struct rte_mbuf *m;
	uint8_t *p;
	int el;

	*port = (f0 >> 5) & 3;
	for (unsigned int i = 0; i < 4; i++)
		hdr[i] = fz_u8(f);
	if (layout == 3 && as == NULL)
		layout = 0; /* no registered mode has an ACK shim */
	if (layout == 3) {
		put_addr(addr, false, fz_u8(f) & 3);
		for (unsigned int i = 0; i < RTR_LB_ACK_SHIM_RND; i++)
			rnd[i] = fz_u8(f);
		as->fill(shim, addr, rnd);
		opcode = RTR_BTH_OP_RC_ACK;
		b8 = (uint8_t)((b8 & RTR_BTH_ACKREQ) | as->resv7);
	}
	el = rtr_bth_ext_len(opcode, NULL);
	if (el > 0)
		ext = (unsigned int)el;
	if (layout == 2)
		payload = ext = 0;

	m = fake_mbuf();
	p = mdata(m);
	memset(p, 0, 600);
	p[0] = 0x02, p[5] = 0x07;  /* dst MAC */
	p[6] = 0x02, p[11] = 0x42; /* src MAC */
	l3 = 14;
	if (vlan) {
		p[12] = 0x81, p[13] = 0x00;
		p[14] = (uint8_t)(f1 & 0xe0), p[15] = 5;
		l3 += 4;
	}
	p[l3 - 2] = v6 ? 0x86 : 0x08;
	p[l3 - 1] = v6 ? 0xdd : 0x00;
	l4 = l3 + (v6 ? 40 : 20);
	bth = l4 + 8;
	if (layout == 2)
		ulen = 8 + RTR_BTH_LEN + RTR_LB_HDR_LEN;
	else
		ulen = 8 + RTR_BTH_LEN + ext + (layout == 3 ? as->len : 0) + payload + RTR_ICRC_LEN;
	if (!v6) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + l3);

		ip->version_ihl = 0x45;
		ip->type_of_service = (uint8_t)(0x68 | (ce ? 3 : (f1 >> 4) & 2));
		ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + ulen));
		ip->time_to_live = 64;
		ip->next_proto_id = 17;
		put_addr(p + l3 + 12, false, f1 & 3);
		put_addr(p + l3 + 16, false, (f1 >> 2) & 3);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	} else {
		uint8_t tc = (uint8_t)(0x68 | (ce ? 3 : (f1 >> 4) & 2));

		p[l3] = (uint8_t)(0x60 | tc >> 4);
		p[l3 + 1] = (uint8_t)(tc << 4);
		p[l3 + 4] = (uint8_t)(ulen >> 8);
		p[l3 + 5] = (uint8_t)ulen;
		p[l3 + 6] = 17;
		p[l3 + 7] = 64;
		put_addr(p + l3 + 8, true, f1 & 3);
		put_addr(p + l3 + 24, true, (f1 >> 2) & 3);
	}
	p[l4 + 0] = 0xc0;
	p[l4 + 1] = (uint8_t)(f1 & 0x30); /* three source ports */
	p[l4 + 2] = 4791 >> 8;
	p[l4 + 3] = 4791 & 0xff;
	p[l4 + 4] = (uint8_t)(ulen >> 8);
	p[l4 + 5] = (uint8_t)ulen;
	p[bth + 0] = opcode;
	p[bth + 1] = 0x40;
	p[bth + 2] = p[bth + 3] = 0xff;
	p[bth + 4] = b4;
	p[bth + 6] = 0x01, p[bth + 7] = (uint8_t)(f2 & 3); /* DestQP */
	p[bth + 8] = b8;
	p[bth + 9] = 0;
	p[bth + 10] = (uint8_t)(psn >> 8);
	p[bth + 11] = (uint8_t)psn;
	n = bth + RTR_BTH_LEN;
	if (layout == 2) {
		memcpy(p + n, hdr, 4);
		n += 4;
	} else {
		n += ext;
		if (layout == 3) {
			memcpy(p + n, shim, as->len);
			n += as->len;
		}
		for (unsigned int i = 0; i < payload; i++)
			p[n + i] = (uint8_t)(psn + i);
		n += payload;
		if (icrc) {
			uint32_t c = icrc_of(p, l3, l4, v6, ulen);

			p[n] = (uint8_t)c, p[n + 1] = (uint8_t)(c >> 8);
			p[n + 2] = (uint8_t)(c >> 16), p[n + 3] = (uint8_t)(c >> 24);
		} else {
			p[n] = 0xde, p[n + 1] = 0xad;
		}
		n += RTR_ICRC_LEN;
		if (layout == 1) {
			/* ConWeave DATA: the 4 bytes go in after the BTH. */
			memmove(p + bth + 16, p + bth + 12, n - bth - 12);
			memcpy(p + bth + 12, hdr, 4);
			n += 4;
		}
	}
	m->data_len = (uint16_t)n;
	m->pkt_len = n;
	return m;
}

static struct rte_mbuf *
raw_frame(struct fz *f, uint16_t *port)
{
	uint8_t a = fz_u8(f);
	unsigned int n = fz_u8(f) + ((a & 1) ? 256u : 0u);
	struct rte_mbuf *m = fake_mbuf();

	*port = (a >> 1) & 3;
	for (unsigned int i = 0; i < n; i++)
		mdata(m)[i] = fz_u8(f);
	m->data_len = (uint16_t)n;
	m->pkt_len = n;
	return m;
}

static void
flow_cb(void *arg, const struct rtr_lb_flow_info *fi)
{
	(void)fi;
	(*(unsigned int *)arg)++;
}

static void
event(struct sw *sw, struct fz *f)
{
	uint8_t e = fz_u8(f);
	unsigned int path = e >> 7;

	switch (e & 7) {
	case 0:
		for (unsigned int g = 0; g < route_of_sw[sw->idx]->n_groups; g++)
			atomic_fetch_and(&route_of_sw[sw->idx]->groups[g].live_mask,
					~(1ull << path));
		break;
	case 1:
		for (unsigned int g = 0; g < route_of_sw[sw->idx]->n_groups; g++)
			atomic_fetch_or(&route_of_sw[sw->idx]->groups[g].live_mask, 1ull << path);
		break;
	case 2:
		/* A host link went down: the pipeline flushes what is held
		 * for it (delivered packets then drop at the port). */
		atomic_store(&sw->ports[path].link_up, 0);
		rtr_lb_flush(H.ops, sw->st, (int)path, H.now, H.stats);
		break;
	case 3:
		atomic_store(&sw->ports[path].link_up, 1);
		break;
	case 4:
		H.alloc_fail = !H.alloc_fail;
		break;
	case 5:
		rtr_lb_flush_final(H.ops, sw->st, H.now, H.stats);
		break;
	default:
		break;
	}
}

static void
sw_init(struct sw *sw, unsigned int idx, uint8_t p)
{
	const struct rtr_config *cfg = config_for(idx, p);
	struct rtr_lb_init in;

	sw->idx = idx;
	for (unsigned int g = 0; g < route_of_sw[idx]->n_groups; g++)
		atomic_store(&route_of_sw[idx]->groups[g].live_mask, 3);
	sw->g = &route_of_sw[idx]->groups[0];
	FZ_CHECK(sw->g->n_paths == 2 && sw->g->port[0] == 2 && sw->g->port[1] == 3);
	for (unsigned int k = 0; k < cfg->n_ports; k++) {
		struct rtr_fwd_port *fp = &sw->ports[cfg->ports[k].port];

		fp->port_id = cfg->ports[k].port;
		fp->configured = 1;
		fp->role = (uint8_t)cfg->ports[k].role;
		memcpy(fp->mac, cfg->ports[k].mac, 6);
		atomic_store(&fp->link_up, 1);
	}
	if (rtr_lb_fuzz_entry.shared_create != NULL) {
		sw->shared = rtr_lb_fuzz_entry.shared_create(cfg);
		FZ_CHECK(sw->shared != NULL);
	} else if (H.ops->shared_create != NULL) {
		sw->shared = H.ops->shared_create(cfg, 1, false, 0);
		FZ_CHECK(sw->shared != NULL);
	}
	memset(&in, 0, sizeof(in));
	in.cfg = cfg;
	in.worker = 0;
	in.n_workers = 1;
	in.n_groups = route_of_sw[idx]->n_groups;
	in.host_port_mask = (1u << N_HOST) - 1;
	in.hash_seed = SEED;
	in.use_rte_malloc = false;
	in.shared = sw->shared;
	in.io.deliver = io_deliver;
	in.io.control = io_control;
	in.io.alloc = io_alloc;
	in.io.arg = sw;
	sw->st = H.ops->init(&in);
	FZ_CHECK(sw->st != NULL);
	sw->fwd = (struct rtr_fwd){
			.route = route_of_sw[idx],
			.nh = rtr_neigh_nh_table(neigh_of_sw[idx]),
			.ports = sw->ports,
			.fabric_ports = 0x3u << FABRIC0,
			.lb = H.ops,
			.lb_state = sw->st,
			.st = H.stats,
	};
}

/* Shutdown as the pipeline does it: release everything held. */
static void
sw_flush(struct sw *sw)
{
	rtr_lb_flush_final(H.ops, sw->st, H.now, H.stats);
	FZ_CHECK(rtr_lb_held(H.ops, sw->st) == 0, "%llu packets still held after flush",
			(unsigned long long)rtr_lb_held(H.ops, sw->st));
}

static void
sw_fini(struct sw *sw)
{
	H.ops->fini(sw->st);
	if (H.ops->shared_free != NULL)
		H.ops->shared_free(sw->shared);
}

/* The EAL's runtime directory (empty with --no-shconf) goes at exit. */
static char runtime_dir[256];

static void
remove_runtime_dir(void)
{
	if (runtime_dir[0] != '\0')
		rmdir(runtime_dir);
}

/* rtr_route_create's next hops: the config's, static, in rocetor's table. */
static int
nh_add(void *arg, uint16_t port, const struct rtr_addr *ip, const uint8_t *mac)
{
	return rtr_neigh_add(arg, port, ip, mac);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* The EAL only for the route tables' memory (rte_lpm): no
	 * hugepages, devices, runtime files or telemetry; the thread keeps
	 * the CPUs it had (the EAL pins it to lcore 0's). */
#define EAL_ARG(x) ((char *)(uintptr_t)(x))
	char prefix[32];
	char *eal[] = {EAL_ARG("fuzz_lb"), EAL_ARG("--no-huge"), EAL_ARG("-m"), EAL_ARG("512"),
			EAL_ARG("--no-pci"), EAL_ARG("--no-shconf"), EAL_ARG("-l"), EAL_ARG("0"),
			EAL_ARG("--no-telemetry"), EAL_ARG("--log-level"), EAL_ARG("lib.eal:error"),
			EAL_ARG("--file-prefix"), prefix, NULL};
#undef EAL_ARG
	char err[256];
	cpu_set_t cpus;
	bool have_cpus;

	rtr_meta_offset = (int)offsetof(struct rte_mbuf, dynfield1);
	trace = getenv("RTR_FUZZ_TRACE") != NULL;
	snprintf(prefix, sizeof(prefix), "fuzz_lb_%d", (int)getpid());
	have_cpus = sched_getaffinity(0, sizeof(cpus), &cpus) == 0;
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "fuzz_lb: the EAL did not start\n");
		abort();
	}
	if (have_cpus)
		pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	atexit(remove_runtime_dir);
	for (unsigned int i = 0; i < N_SW; i++) {
		const struct rtr_config *cfg = config_for(i, 0);
		uint8_t macs[RTR_MAX_PORTS][6];
		char name[16];

		memset(macs, 0, sizeof(macs));
		for (unsigned int p = 0; p < cfg->n_ports; p++)
			memcpy(macs[cfg->ports[p].port], cfg->ports[p].mac, 6);
		neigh_of_sw[i] = rtr_neigh_create(cfg, (const uint8_t(*)[6])macs, 0);
		snprintf(name, sizeof(name), "fz_rt%u", i);
		route_of_sw[i] = neigh_of_sw[i] == NULL ? NULL
							: rtr_route_create(name, cfg, SOCKET_ID_ANY,
									  nh_add, neigh_of_sw[i],
									  err, sizeof(err));
		if (route_of_sw[i] == NULL) {
			fprintf(stderr, "fuzz_lb: ToR %u's route table: %s\n", i, err);
			abort();
		}
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = {data, size, 0};
	unsigned int ops = 0, nflows;
	uint8_t p;

	rtr_meta_offset = (int)offsetof(struct rte_mbuf, dynfield1);
	memset(&H, 0, sizeof(H));
	memset(&stats_block, 0, sizeof(stats_block));
	H.stats = &stats_block;
	H.ops = rtr_lb_mode_ops(rtr_lb_fuzz_entry.mode, false);
	FZ_CHECK(H.ops != NULL);
	H.now = 1000000;
	live_mbufs = 0;
	p = fz_u8(&f);
	for (unsigned int i = 0; i < N_SW; i++)
		sw_init(&H.sw[i], i, p);

	while (fz_more(&f) && ops++ < OPS_MAX) {
		uint8_t op = fz_u8(&f);
		struct sw *sw = &H.sw[(op >> 3) & 1];
		struct rte_mbuf *m;
		uint16_t port;

		switch (op & 7) {
		case 0:
		case 1:
		case 2:
			m = build_frame(&f, &port);
			receive(sw, m, port);
			break;
		case 3:
			m = raw_frame(&f, &port);
			receive(sw, m, port);
			break;
		case 4: {
			uint8_t v = fz_u8(&f);

			H.now += v == 0xff ? 1000000000ull : (uint64_t)(v & 31) << ((v >> 5) * 3);
			break;
		}
		case 5:
			rtr_lb_age(H.ops, sw->st, H.now, H.stats);
			rtr_lb_tick(H.ops, sw->st, H.now, H.stats);
			if ((op & 0x80) && H.ops->flows != NULL) {
				nflows = 0;
				H.ops->flows(sw->st, H.now, op & 0x40 ? 0 : 3, flow_cb, &nflows);
			}
			break;
		case 6: {
			uint8_t k = fz_u8(&f), x = fz_u8(&f);
			struct wire_pkt w;
			unsigned int j;

			if (H.nwire == 0)
				break;
			j = k % H.nwire;
			w = H.wire[j];
			memmove(H.wire + j, H.wire + j + 1, (H.nwire - j - 1) * sizeof(H.wire[0]));
			H.nwire--;
			if ((x & 1) && w.m->data_len > 0) {
				mdata(w.m)[fz_u8(&f) % w.m->data_len] ^= fz_u8(&f);
				*mark(w.m) = 0;
			}
			/* Into the other ToR, on the port it left by (the links
			 * are 2-2 and 3-3). */
			receive(&H.sw[1 - w.from], w.m, rtr_meta(w.m)->out_port);
			break;
		}
		default:
			event(sw, &f);
			break;
		}
	}

	H.now += 1000;
	for (unsigned int i = 0; i < N_SW; i++)
		sw_flush(&H.sw[i]);
	while (H.nwire > 0)
		fake_free(H.wire[--H.nwire].m);
	for (unsigned int i = 0; i < N_SW; i++)
		sw_fini(&H.sw[i]);
	FZ_CHECK(live_mbufs == 0, "%u mbufs leaked", live_mbufs);
	return 0;
}
