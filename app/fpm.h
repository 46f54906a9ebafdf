/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The FPM server (doc/routing.md): zebra's dplane_fpm_nl connects to it
 * and streams the routes zebra selected; the control lcore installs and
 * withdraws them as RTR_RS_FPM routes. Runs on the control lcore only
 * (rtr_fpm_poll from the control poll): the routes' one writer.
 */
#ifndef RTR_APP_FPM_H
#define RTR_APP_FPM_H

#include <stdbool.h>
#include <stdint.h>

#include "rtr_config.h"
#include "rtr_route.h"

struct rtr_fpm_counters {
	uint64_t connects, disconnects;
	uint64_t frames, bad_frames; /* bad: the connection was dropped */
	uint64_t routes_set, routes_removed;
	uint64_t nexthops; /* next-hop objects (fpm use-next-hop-groups) */
	uint64_t skipped_table, skipped_connected, skipped_linklocal, skipped_type;
	uint64_t shadowed;      /* the config has the prefix (it wins) */
	uint64_t no_port;       /* a next hop on an interface that is no port's ifname */
	uint64_t nh_unresolved; /* RTA_NH_ID of an object not (yet) sent */
	uint64_t refused;       /* rtr_route_set refused it (the reason is logged) */
	uint64_t stale_swept;   /* routes zebra did not send again within stale_ms */
};

struct rtr_fpm_server;

/* NULL when cfg has no fpm.address (no server); exits through err (and
 * NULL) when the socket cannot be made: the caller stops. */
struct rtr_fpm_server *rtr_fpm_create(const struct rtr_config *cfg, struct rtr_route *route,
		char *err, size_t errlen, bool *failed);
void rtr_fpm_free(struct rtr_fpm_server *s);
/* Control lcore: accept, read, apply, expire stale routes. now_ms: a
 * monotonic clock. Returns frames handled. */
unsigned int rtr_fpm_poll(struct rtr_fpm_server *s, uint64_t now_ms);

struct rtr_fpm_status {
	bool listening, connected;
	char peer[64];
	char last_error[200];
	unsigned int fpm_routes, stale;
	struct rtr_fpm_counters c;
};
/* Any thread (a copy under the server's lock). */
void rtr_fpm_status(struct rtr_fpm_server *s, struct rtr_fpm_status *out);

#endif /* RTR_APP_FPM_H */
