/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The first ICRC checks of a process, on two threads at once (two workers
 * parsing their first RoCE packets). DPDK 22.11's rte_net_crc picks its
 * implementation inside the first call and sets its handler table to NULL
 * while it does: a second thread calling then jumps through NULL (seen as a
 * worker SIGSEGV in pkt-conweave). rtr_parse_init(), which the app calls
 * after rte_eal_init and before the workers start, picks it once up front.
 *
 * Each round is a child process (the choice is once per process): two
 * threads released together compute ICRCs; the child's death by a signal is
 * a failure. `test_parse_threads --no-init N` runs N rounds without
 * rtr_parse_init and prints how many died (the defect, for the record).
 */

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtr_parse.h"
#include "rtr_test.h"

#define ROUNDS 300

static uint8_t frame[14 + 20 + 8 + 12 + 16 + 4];
static struct rtr_meta meta;
static pthread_barrier_t start;

static void
build_frame(void)
{
	uint8_t *p = frame;
	unsigned int ip_len = sizeof(frame) - 14, udp_len = ip_len - 20;

	memset(frame, 0, sizeof(frame));
	p[12] = 0x08; /* IPv4 */
	p += 14;
	p[0] = 0x45;
	p[2] = (uint8_t)(ip_len >> 8);
	p[3] = (uint8_t)ip_len;
	p[8] = 64;
	p[9] = 17; /* UDP */
	p[12] = 10, p[13] = 1, p[15] = 1;
	p[16] = 10, p[17] = 2, p[19] = 1;
	p += 20;
	p[0] = 0xc0, p[1] = 0x01;
	p[2] = 0x12, p[3] = 0xb7; /* 4791 */
	p[4] = (uint8_t)(udp_len >> 8);
	p[5] = (uint8_t)udp_len;
	p += 8;
	p[0] = 0x04; /* RC SEND only */
	p[2] = p[3] = 0xff;
}

static void *
worker(void *arg)
{
	volatile unsigned int sink = 0;

	(void)arg;
	pthread_barrier_wait(&start);
	for (int i = 0; i < 200; i++)
		sink += rtr_roce_icrc_ok(frame, sizeof(frame), &meta);
	return NULL;
}

/* One child: 0 if it exited normally, 1 if a signal killed it. */
static int
round_died(bool init)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		pthread_t t[2];

		/* DPDK logs its choice on stderr each time it makes it. */
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(3);
		if (init)
			rtr_parse_init();
		pthread_barrier_init(&start, NULL, 2);
		for (int i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, worker, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) ? 1 : (WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1);
}

int
main(int argc, char **argv)
{
	bool init = !(argc > 1 && strcmp(argv[1], "--no-init") == 0);
	int rounds = argc > 2 ? atoi(argv[2]) : ROUNDS, died = 0, bad = 0;

	build_frame();
	CHECK_EQ(rtr_parse(frame, sizeof(frame), 1, 0, &meta), RTR_DROP_NONE);
	CHECK(meta.flags & RTR_MF_ROCE, "%s", "the test frame parses as RoCE");
	for (int i = 0; i < rounds; i++) {
		int r = round_died(init);

		if (r > 0)
			died++;
		else if (r < 0)
			bad++;
	}
	printf("parse-threads: %s rtr_parse_init: %d of %d rounds died by a signal\n",
			init ? "with" : "without", died, rounds);
	if (!init)
		return 0;
	CHECK_EQ(died, 0);
	CHECK_EQ(bad, 0);
	return rtr_test_done("parse-threads");
}
