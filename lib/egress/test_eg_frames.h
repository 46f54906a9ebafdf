/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Frames for the egress unit tests (test_egress.c, test_egress_nic.c):
 * fake mbufs from calloc, without the EAL, and parsed RoCEv2 frames. Static
 * functions: each test program includes it once.
 */
#ifndef RTR_TEST_EG_FRAMES_H
#define RTR_TEST_EG_FRAMES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "rtr_mbuf.h"
#include "rtr_parse.h"

/* Fake mbufs not yet freed: a test ends with it back at 0. */
static unsigned int live_mbufs;

static struct rte_mbuf *
fake_mbuf(void)
{
	struct rte_mbuf *m = calloc(1, sizeof(*m) + 128 + 9216);

	m->buf_addr = (uint8_t *)m + sizeof(*m);
	m->buf_len = 128 + 9216;
	m->data_off = 128;
	m->nb_segs = 1;
	live_mbufs++;
	return m;
}

static void
fake_free(struct rte_mbuf *m)
{
	live_mbufs--;
	free(m);
}

/*
 * A parsed frame: IPv4 or IPv6 / UDP 4791 / BTH (opcode op) with payload to
 * make len bytes in all, TOS (DSCP<<2|ECN), optional VLAN PCP, a tag byte in
 * the payload so tests can tell packets apart.
 */
static struct rte_mbuf *
pkt(unsigned int len, bool v6, uint8_t tos, int pcp, uint8_t op, uint32_t tag, uint8_t in_port)
{
	struct rte_mbuf *m = fake_mbuf();
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	unsigned int o = 12, l3, l4;

	memset(f, 0, len);
	f[0] = 0x02;
	f[6] = 0x02;
	if (pcp >= 0) {
		f[o++] = 0x81;
		f[o++] = 0x00;
		f[o++] = (uint8_t)(pcp << 5);
		f[o++] = 1;
	}
	f[o++] = v6 ? 0x86 : 0x08;
	f[o++] = v6 ? 0xdd : 0x00;
	l3 = o;
	if (!v6) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + l3);

		ip->version_ihl = 0x45;
		ip->type_of_service = tos;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(len - l3));
		ip->time_to_live = 64;
		ip->next_proto_id = 17;
		ip->src_addr = rte_cpu_to_be_32(0x0a000001);
		ip->dst_addr = rte_cpu_to_be_32(0x0a000002 + (tag & 0xff));
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		l4 = l3 + 20;
	} else {
		f[l3] = (uint8_t)(0x60 | (tos >> 4));
		f[l3 + 1] = (uint8_t)(tos << 4);
		f[l3 + 4] = (uint8_t)((len - l3 - 40) >> 8);
		f[l3 + 5] = (uint8_t)(len - l3 - 40);
		f[l3 + 6] = 17;
		f[l3 + 7] = 64;
		f[l3 + 8] = 0xfd;
		f[l3 + 39] = (uint8_t)tag;
		l4 = l3 + 40;
	}
	f[l4] = 0xc0;
	f[l4 + 1] = 0x00;
	f[l4 + 2] = 4791 >> 8;
	f[l4 + 3] = 4791 & 0xff;
	f[l4 + 4] = (uint8_t)((len - l4) >> 8);
	f[l4 + 5] = (uint8_t)(len - l4);
	f[l4 + 8] = op;
	f[l4 + 8 + 2] = 0xff;
	f[l4 + 8 + 3] = 0xff;
	f[l4 + 8 + 9] = (uint8_t)(tag >> 16);
	f[l4 + 8 + 10] = (uint8_t)(tag >> 8);
	f[l4 + 8 + 11] = (uint8_t)tag;
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	if (rtr_parse(f, len, 1, 0, rtr_meta(m)) != RTR_DROP_NONE) {
		fprintf(stderr, "test frame does not parse\n");
		exit(1);
	}
	rtr_meta(m)->in_port = in_port;
	return m;
}

static uint32_t
tag_of(struct rte_mbuf *m)
{
	return rtr_meta(m)->psn;
}

#endif /* RTR_TEST_EG_FRAMES_H */
