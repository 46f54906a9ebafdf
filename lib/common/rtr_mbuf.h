/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Where struct rtr_meta lives in an mbuf. The offset is chosen at start-up
 * (rtr_meta_register in the pipeline: a dynamic field, or the mbuf private
 * area when the dynamic area is too full); libraries that handle mbufs
 * (egress, LB stages) reach the metadata through this accessor only, and
 * their unit tests set rtr_meta_offset to a field of their fake mbufs.
 */
#ifndef RTR_MBUF_H
#define RTR_MBUF_H

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "rtr_meta.h"

extern int rtr_meta_offset; /* defined in lib/parse/rtr_parse.c */

static inline struct rtr_meta *
rtr_meta(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, rtr_meta_offset, struct rtr_meta *);
}

#endif /* RTR_MBUF_H */
