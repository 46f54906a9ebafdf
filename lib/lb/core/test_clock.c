/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit test of rtr_lb_clock.h (doc/architecture.md "Time"): the horizon
 * tracker on a virtual clock, against a FIFO whose arrivals the test knows.
 * The property under test: the horizon h never passes the arrival of a
 * packet still in the queue (nothing that came before h waits), and it
 * moves on when the queue is seen empty, or once cap packets were taken
 * from a queue that never empties. Then the helpers the modes judge by.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rtr_lb_clock.h"
#include "rtr_test.h"

#define BURST 32
#define QMAX  4096

/* A FIFO of arrival times that holds at most cap packets (arrivals to a
 * full queue are lost, as at a NIC whose ring is full). */
struct fifo {
	uint64_t at[1 << 20];
	unsigned int head, tail, cap;
};

static struct fifo F;

static void
arrive(struct fifo *q, uint64_t t)
{
	if (q->tail - q->head < q->cap && q->tail < (1u << 20))
		q->at[q->tail++] = t;
}

/* Poll at t: take up to BURST packets that arrived by t. */
static unsigned int
take(struct fifo *q, uint64_t t)
{
	unsigned int n = 0;

	while (n < BURST && q->head < q->tail && q->at[q->head] <= t) {
		q->head++;
		n++;
	}
	return n;
}

/* The horizon is safe: every packet still queued arrived at or after it. */
static bool
safe(const struct fifo *q, uint64_t h)
{
	return q->head == q->tail || q->at[q->head] >= h;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t
rnd(void)
{
	return rtr_test_xorshift(&rng);
}

static void
test_short_poll(void)
{
	struct rtr_lb_hz_q q;

	rtr_lb_hz_init(&q, 0);
	CHECK_EQ(q.h_ns, 0);
	/* Full bursts with no cap known: the horizon stays. */
	CHECK_EQ(rtr_lb_hz_poll(&q, 100, BURST, BURST), 0);
	CHECK_EQ(rtr_lb_hz_poll(&q, 200, BURST, BURST), 0);
	/* A short poll: the queue was empty when it ended. */
	CHECK_EQ(rtr_lb_hz_poll(&q, 300, 3, BURST), 300);
	CHECK_EQ(rtr_lb_hz_poll(&q, 400, 0, BURST), 400);
	/* Never backwards (a ring's "time" may be older than the last). */
	CHECK_EQ(rtr_lb_hz_poll(&q, 350, 0, BURST), 400);
	CHECK_EQ(q.taken, 2u * BURST + 3);
}

static void
test_cap(void)
{
	struct rtr_lb_hz_q q;
	uint64_t h;

	rtr_lb_hz_init(&q, 64);
	/* Checkpoint at t=10 with 0 taken; 64 taken after it: h = 10. */
	CHECK_EQ(rtr_lb_hz_poll(&q, 10, BURST, BURST), 0);
	CHECK_EQ(rtr_lb_hz_poll(&q, 20, BURST, BURST), 10);
	/* The next checkpoint began at 20 with 32 taken before it (its own
	 * poll's packets count): 64 more taken by the poll at 30. */
	CHECK_EQ(rtr_lb_hz_poll(&q, 30, BURST, BURST), 20);
	h = rtr_lb_hz_poll(&q, 40, BURST, BURST);
	CHECK(h == 30, "third checkpoint: h %" PRIu64, h);
	/* A short poll at 45 ends it: h = 45. */
	CHECK_EQ(rtr_lb_hz_poll(&q, 45, 1, BURST), 45);
	CHECK(!q.ck);
}

/*
 * Random arrivals (bursts and gaps), a poller that stalls at random, queues
 * of several capacities: the horizon is safe after every poll, and a queue
 * that empties gets a horizon at its poll time.
 */
static void
test_random(void)
{
	static const unsigned int caps[] = {64, 512, 1024, 4096};
	unsigned int unsafe = 0, polls = 0, empties = 0, fresh = 0, lagged_max = 0;

	for (unsigned int ci = 0; ci < 4; ci++) {
		struct rtr_lb_hz_q q;
		uint64_t t = 0, next_arr = 0;

		F.head = F.tail = 0;
		F.cap = caps[ci];
		rtr_lb_hz_init(&q, caps[ci]);
		for (unsigned int step = 0; step < 200000; step++) {
			uint64_t poll_t;
			unsigned int n;

			/* Time passes: a pass of 1 us, or a stall up to 2 ms. */
			t += rnd() % 64 == 0 ? rnd() % 2000000 : 1000;
			/* Arrivals up to t: bursts of back-to-back packets and
			 * gaps. */
			while (next_arr <= t) {
				arrive(&F, next_arr);
				next_arr += rnd() % 8 == 0 ? rnd() % 20000 : 10 + rnd() % 200;
			}
			poll_t = t;
			n = take(&F, poll_t);
			rtr_lb_hz_poll(&q, poll_t, n, BURST);
			polls++;
			unsafe += !safe(&F, q.h_ns);
			if (n < BURST) {
				empties++;
				fresh += q.h_ns == poll_t;
			}
			/* How many packets behind the horizon can lag: never
			 * more than two queues' worth once it moved. */
			if (F.tail - F.head > lagged_max)
				lagged_max = F.tail - F.head;
		}
	}
	CHECK(unsafe == 0, "%u of %u polls left a packet older than the horizon queued", unsafe,
			polls);
	CHECK(empties > 1000 && fresh == empties, "short polls %u, horizon at poll time %u",
			empties, fresh);
	printf("clock: %u polls, %u short, deepest queue %u\n", polls, empties, lagged_max);
}

/* Under constant overload (a full burst every poll) the cap rule still
 * moves the horizon: never more than two caps of packets behind. */
static void
test_overload(void)
{
	struct rtr_lb_hz_q q;
	uint64_t t = 0, moved = 0, last = 0;

	F.head = F.tail = 0;
	F.cap = 1024;
	rtr_lb_hz_init(&q, 1024);
	for (unsigned int step = 0; step < 10000; step++) {
		unsigned int n;

		t += 1000;
		for (unsigned int k = 0; k < 64; k++) /* 64 arrive per poll, 32 taken */
			arrive(&F, t - 1000 + k * 15);
		n = take(&F, t);
		rtr_lb_hz_poll(&q, t, n, BURST);
		CHECK(safe(&F, q.h_ns));
		if (q.h_ns != last) {
			moved++;
			last = q.h_ns;
		}
		/* Lag in packets taken since the horizon's poll: <= 2 caps. */
		CHECK(q.taken - q.ck_taken <= 2 * 1024);
	}
	CHECK(moved > 100, "the horizon moved %" PRIu64 " times under overload", moved);
	CHECK(t - q.h_ns <= 2 * 1024 / BURST * 1000 + 1000, "lag %" PRIu64 " ns", t - q.h_ns);
}

static void
test_helpers(void)
{
	struct rtr_lb_clock c = {.seen_ns = 500, .in_ns = {700, 400}, .fabric_ports = 0x6};

	CHECK_EQ(rtr_lb_seen(NULL, 1000), 1000);
	CHECK_EQ(rtr_lb_seen(&c, 1000), 500);
	CHECK_EQ(rtr_lb_seen(&c, 300), 300);          /* never ahead of the caller's now */
	CHECK_EQ(rtr_lb_seen_in(&c, 1000, 0), 700);   /* port 0: host */
	CHECK_EQ(rtr_lb_seen_in(&c, 1000, 1), 400);   /* port 1: fabric */
	CHECK_EQ(rtr_lb_seen_in(&c, 1000, 255), 500); /* RTR_PORT_NONE: all */
	CHECK_EQ(rtr_lb_seen_fabric(&c, 1000), 400);
	CHECK_EQ(rtr_lb_since(500, 600), 0); /* a stamp later than the horizon */
	CHECK_EQ(rtr_lb_since(600, 500), 100);
	/* Idle: judged by the packet's own input's horizon. */
	CHECK(!rtr_lb_idle(&c, 1000, 1, 100, 300));  /* 400 - 100 = 300: not more */
	CHECK(rtr_lb_idle(&c, 1000, 0, 100, 300));   /* 700 - 100 */
	CHECK(!rtr_lb_idle(&c, 1000, 1, 900, 0));    /* stamp after the horizon */
	CHECK(rtr_lb_idle(NULL, 1000, 1, 100, 300)); /* no clock: the wall clock */
}

int
main(void)
{
	test_short_poll();
	test_cap();
	test_random();
	test_overload();
	test_helpers();
	return rtr_test_done("clock");
}
