/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The FPM decoder (lib/route/rtr_fpm.c) as the server uses it: the input
 * is the TCP byte stream zebra would send; frames are cut with
 * rtr_fpm_frame and each is decoded. Findings: a read outside the input
 * (ASan), or a decoded message that claims what its bytes cannot hold.
 */

#include <string.h>

#include "fuzz.h"
#include "rtr_fpm.h"

static struct rtr_fpm_msg msgs[256];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0, flen;

	while (off < size) {
		int rc = rtr_fpm_frame(data + off, size - off, &flen), n;

		if (rc <= 0)
			break; /* a bad header ends the connection; a short one waits */
		FZ_CHECK(flen >= RTR_FPM_HDR && flen <= size - off && flen % 4 == 0, "frame %zu",
				flen);
		n = rtr_fpm_decode(data + off + RTR_FPM_HDR, flen - RTR_FPM_HDR, msgs, 256);
		FZ_CHECK(n <= 256 && (size_t)(n > 0 ? n : 0) * 16 <= flen,
				"%d messages in %zu bytes", n, flen);
		for (int i = 0; i < n; i++) {
			const struct rtr_fpm_msg *m = &msgs[i];

			if (m->kind == RTR_FPM_ROUTE) {
				FZ_CHECK(m->route.n_nh <= RTR_MAX_PATHS, "%u next hops",
						m->route.n_nh);
				FZ_CHECK(m->route.prefix.family == AF_INET ||
								m->route.prefix.family == AF_INET6,
						"family %u", m->route.prefix.family);
				FZ_CHECK(m->route.prefix.depth <=
								(m->route.prefix.family == AF_INET
												? 32
												: 128),
						"depth %u", m->route.prefix.depth);
			} else if (m->kind == RTR_FPM_NEXTHOP) {
				FZ_CHECK(m->nhobj.id != 0 && m->nhobj.n_grp <= RTR_MAX_PATHS,
						"id %u, %u members", m->nhobj.id, m->nhobj.n_grp);
			}
		}
		off += flen;
	}
	return 0;
}
