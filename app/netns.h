/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Entering a network namespace from the calling thread (fpm.netns: the FPM
 * server's socket and the taps are made in zebra's namespace). setns(2)
 * through syscall(2): glibc declares setns only with _GNU_SOURCE, which a
 * header included before ours (the sanitizer build's -include) may have
 * fixed already.
 */
#ifndef RTR_APP_NETNS_H
#define RTR_APP_NETNS_H

#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLONE_NEWNET
#define CLONE_NEWNET 0x40000000 /* linux/sched.h */
#endif

static inline int
rtr_setns_net(int fd)
{
	return (int)syscall(SYS_setns, fd, CLONE_NEWNET);
}

#endif /* RTR_APP_NETNS_H */
