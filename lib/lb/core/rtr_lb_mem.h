/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The memory of the LB modes' tables (flow table blocks, the state workers
 * share): from the DPDK heap on the given socket in the router
 * (use_rte_malloc), from the C heap in unit tests without the EAL. Either
 * way zeroed and 64-byte aligned. Give it back with rtr_lb_zfree() and the
 * same use_rte_malloc; NULL is ignored.
 */
#ifndef RTR_LB_MEM_H
#define RTR_LB_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

static inline void *
rtr_lb_zalloc(const char *name, size_t sz, bool use_rte_malloc, int socket)
{
	void *p;

	if (use_rte_malloc)
		return rte_zmalloc_socket(name, sz, 64, socket);
	if (posix_memalign(&p, 64, sz) != 0)
		return NULL;
	memset(p, 0, sz);
	return p;
}

static inline void
rtr_lb_zfree(void *p, bool use_rte_malloc)
{
	if (use_rte_malloc)
		rte_free(p);
	else
		free(p);
}

#endif /* RTR_LB_MEM_H */
