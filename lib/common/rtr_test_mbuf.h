/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Fake mbufs for the unit tests that run without the EAL: one calloc'd
 * struct rte_mbuf with its data buffer right behind it (RTR_TEST_MBUF_BUFSZ
 * bytes, data starting RTR_TEST_MBUF_HEADROOM bytes in), a single segment,
 * refcnt 1. live_mbufs counts the ones not yet given back to fake_free(), so
 * a test can check that the code under test neither leaks nor double frees.
 * Include it from a test's .c file only (each test keeps its own counter).
 */
#ifndef RTR_TEST_MBUF_H
#define RTR_TEST_MBUF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#define RTR_TEST_MBUF_BUFSZ    2048
#define RTR_TEST_MBUF_HEADROOM 128

static unsigned int live_mbufs;

static inline struct rte_mbuf *
fake_mbuf(void)
{
	struct rte_mbuf *m = calloc(1, sizeof(*m) + RTR_TEST_MBUF_BUFSZ);

	m->buf_addr = (uint8_t *)m + sizeof(*m);
	m->buf_iova = 0;
	m->buf_len = RTR_TEST_MBUF_BUFSZ;
	m->data_off = RTR_TEST_MBUF_HEADROOM;
	m->nb_segs = 1;
	m->refcnt = 1;
	m->next = NULL;
	live_mbufs++;
	return m;
}

static inline void
fake_free(struct rte_mbuf *m)
{
	if (m == NULL)
		return;
	live_mbufs--;
	free(m);
}

static inline uint8_t *
mdata(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, uint8_t *);
}

/* A fake mbuf holding a copy of frame (len bytes, data_len = pkt_len = len);
 * the caller parses it. */
static inline struct rte_mbuf *
fake_frame(const uint8_t *frame, unsigned int len)
{
	struct rte_mbuf *m = fake_mbuf();

	memcpy(mdata(m), frame, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return m;
}

#endif /* RTR_TEST_MBUF_H */
