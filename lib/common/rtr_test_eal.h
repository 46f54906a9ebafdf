/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The EAL for unit tests that need DPDK's memory (rte_lpm route tables) and
 * nothing else: no hugepages, devices, shared config, telemetry or lcores
 * but the first, a file prefix of the test's own (name_pid), and the
 * runtime directory removed again at the end.
 */
#ifndef RTR_TEST_EAL_H
#define RTR_TEST_EAL_H

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>

/* Returns 0, or -1 (printed) when the EAL does not start. */
static inline int
rtr_test_eal_init(const char *name)
{
	char prefix[64];
#define RTR_TEST_EAL_ARG(x) ((char *)(uintptr_t)(x))
	char *argv[] = {RTR_TEST_EAL_ARG(name), RTR_TEST_EAL_ARG("--no-huge"),
			RTR_TEST_EAL_ARG("-m"), RTR_TEST_EAL_ARG("256"),
			RTR_TEST_EAL_ARG("--no-pci"), RTR_TEST_EAL_ARG("-l"), RTR_TEST_EAL_ARG("0"),
			RTR_TEST_EAL_ARG("--log-level"), RTR_TEST_EAL_ARG("error"),
			RTR_TEST_EAL_ARG("--no-shconf"), RTR_TEST_EAL_ARG("--no-telemetry"),
			RTR_TEST_EAL_ARG("--file-prefix"), prefix, NULL};
#undef RTR_TEST_EAL_ARG

	snprintf(prefix, sizeof(prefix), "%s_%d", name, (int)getpid());
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
		fprintf(stderr, "%s: EAL init failed\n", name);
		return -1;
	}
	return 0;
}

/* The runtime directory (empty with --no-shconf and --no-telemetry). */
static inline void
rtr_test_eal_done(void)
{
	rmdir(rte_eal_get_runtime_dir());
}

#endif /* RTR_TEST_EAL_H */
