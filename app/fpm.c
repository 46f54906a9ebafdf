/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The FPM server (app/fpm.h, doc/routing.md). One zebra at a time: a new
 * connection replaces the old one (zebra reconnects after a loss). What it
 * sends is decoded frame by frame (lib/route/rtr_fpm.c) and applied:
 *
 *   RTM_NEWROUTE   replaces the prefix's next hops (the NLM_F_REPLACE flag
 *                  is not relied on: IPv6 never carries it); a DELROUTE of
 *                  the same prefix earlier in the frame (zebra's update) is
 *                  skipped, so an update never blackholes
 *   RTM_DELROUTE   removes the prefix if it is an FPM route
 *   RTM_*NEXTHOP   next-hop objects (fpm use-next-hop-groups, FRR's
 *                  default): routes naming one follow its changes
 *
 * Only table fpm.table (254), AF_INET and AF_INET6, unicast routes (a
 * blackhole, unreachable or prohibit route drops what it matches); a
 * next hop is (gateway, ifindex): the port whose ifname has that ifindex
 * in zebra's namespace, the gateway resolved by rocetor's ARP/ND. Next
 * hops without a gateway (connected routes) and fe80::/10 are skipped:
 * the switch's own subnets are its config's.
 *
 * zebra sends no end of its dump and no delete when it stops: when a
 * connection starts or ends, every FPM route is marked stale; what zebra
 * sends clears the mark; what is still stale fpm.stale_ms later goes.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/rtnetlink.h>

#include <rte_log.h>

#include "fpm.h"
#include "netns.h"
#include "rtr_fpm.h"

#define FPM_FRAMES_PER_POLL 256
#define FPM_MSGS_MAX        256
#define FPM_NHOBJ_MAX       4096

struct nhobj_slot {
	bool used;
	struct rtr_fpm_nhobj o;
};

/* A route installed through a next-hop object: re-resolved when it changes. */
struct nhg_route {
	bool used;
	struct rtr_addr prefix;
	uint32_t nh_id;
};

struct rtr_fpm_server {
	const struct rtr_config *cfg;
	struct rtr_route *route;
	int lfd, cfd;
	int ns_fd, self_fd; /* fpm.netns and our own namespace; -1: none */
	uint8_t buf[2 * RTR_FPM_FRAME_MAX + 8];
	size_t len;
	struct rtr_fpm_msg msgs[FPM_MSGS_MAX];
	int n_msgs;                      /* of the frame at buf's head, decoded; -1: not yet */
	unsigned int done;               /* of those, applied (a frame resumes after -EAGAIN) */
	uint32_t ifindex[RTR_MAX_PORTS]; /* by port id; 0: no ifname or not found */
	struct nhobj_slot *obj;          /* FPM_NHOBJ_MAX */
	struct nhg_route *nhr;           /* RTR_ROUTE_MAX_RULES */
	unsigned int n_nhr;              /* of them in use: none, no scan */
	uint64_t stale_until_ms;         /* 0: no sweep pending */
	pthread_mutex_t lock;            /* the status copy */
	struct rtr_fpm_counters c;
	char peer[64], last_error[200];
};

static void
set_error(struct rtr_fpm_server *s, const char *what)
{
	pthread_mutex_lock(&s->lock);
	snprintf(s->last_error, sizeof(s->last_error), "%s", what);
	pthread_mutex_unlock(&s->lock);
	RTE_LOG(WARNING, USER1, "fpm: %s\n", s->last_error);
}

/* Run in fpm.netns (zebra's): the socket is made there, ifnames are its. */
static int
ns_enter(struct rtr_fpm_server *s)
{
	return s->ns_fd < 0 ? 0 : rtr_setns_net(s->ns_fd);
}

static void
ns_leave(struct rtr_fpm_server *s)
{
	if (s->ns_fd >= 0 && rtr_setns_net(s->self_fd) != 0)
		RTE_LOG(ERR, USER1, "fpm: cannot return to rocetor's namespace: %s\n",
				strerror(errno));
}

/* The ports' ifindexes in zebra's namespace, by their ifname. */
static void
map_ports(struct rtr_fpm_server *s)
{
	memset(s->ifindex, 0, sizeof(s->ifindex));
	if (ns_enter(s) != 0)
		return;
	for (unsigned int i = 0; i < s->cfg->n_ports; i++) {
		const struct rtr_port_cfg *p = &s->cfg->ports[i];

		if (p->ifname[0] != '\0')
			s->ifindex[p->port] = if_nametoindex(p->ifname);
	}
	ns_leave(s);
}

static int
port_of(struct rtr_fpm_server *s, uint32_t ifindex, bool retry)
{
	for (unsigned int p = 0; p < RTR_MAX_PORTS; p++)
		if (s->ifindex[p] != 0 && s->ifindex[p] == ifindex)
			return (int)p;
	if (retry) { /* an interface made after the connection started */
		map_ports(s);
		return port_of(s, ifindex, false);
	}
	return -1;
}

struct rtr_fpm_server *
rtr_fpm_create(const struct rtr_config *cfg, struct rtr_route *route, char *err, size_t errlen,
		bool *failed)
{
	const struct rtr_fpm_cfg *fc = &cfg->fpm;
	struct sockaddr_storage sa;
	struct rtr_fpm_server *s;
	socklen_t salen;
	int one = 1;

	*failed = false;
	if (fc->address.family == 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		goto nomem;
	s->lfd = s->cfd = s->ns_fd = s->self_fd = -1;
	s->n_msgs = -1;
	s->cfg = cfg;
	s->route = route;
	pthread_mutex_init(&s->lock, NULL);
	s->obj = calloc(FPM_NHOBJ_MAX, sizeof(*s->obj));
	s->nhr = calloc(RTR_ROUTE_MAX_RULES, sizeof(*s->nhr));
	if (s->obj == NULL || s->nhr == NULL)
		goto nomem;
	if (fc->netns[0] != '\0') {
		char path[128];

		snprintf(path, sizeof(path), "/var/run/netns/%s", fc->netns);
		s->ns_fd = open(path, O_RDONLY | O_CLOEXEC);
		s->self_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
		if (s->ns_fd < 0 || s->self_fd < 0) {
			snprintf(err, errlen, "fpm.netns %s: %s", fc->netns, strerror(errno));
			goto fail;
		}
	}
	memset(&sa, 0, sizeof(sa));
	if (fc->address.family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&sa;

		a->sin_family = AF_INET;
		a->sin_addr = fc->address.v4;
		a->sin_port = htons((uint16_t)fc->port);
		salen = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&sa;

		a->sin6_family = AF_INET6;
		a->sin6_addr = fc->address.v6;
		a->sin6_port = htons((uint16_t)fc->port);
		salen = sizeof(*a);
	}
	if (ns_enter(s) != 0) {
		snprintf(err, errlen, "fpm.netns %s: setns: %s", fc->netns, strerror(errno));
		goto fail;
	}
	s->lfd = socket(fc->address.family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->lfd >= 0)
		setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&sa, salen) != 0 ||
			listen(s->lfd, 4) != 0) {
		char a[INET6_ADDRSTRLEN];

		inet_ntop(fc->address.family, &fc->address.v6, a, sizeof(a));
		snprintf(err, errlen, "fpm: cannot listen on %s port %u: %s", a, fc->port,
				strerror(errno));
		ns_leave(s);
		goto fail;
	}
	ns_leave(s);
	map_ports(s);
	return s;
nomem:
	snprintf(err, errlen, "fpm: out of memory");
fail:
	*failed = true;
	rtr_fpm_free(s);
	return NULL;
}

void
rtr_fpm_free(struct rtr_fpm_server *s)
{
	if (s == NULL)
		return;
	if (s->cfd >= 0)
		close(s->cfd);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->ns_fd >= 0)
		close(s->ns_fd);
	if (s->self_fd >= 0)
		close(s->self_fd);
	free(s->obj);
	free(s->nhr);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static bool
is_fpm_route(struct rtr_fpm_server *s, const struct rtr_addr *p)
{
	struct rtr_route_info in;
	bool yes;

	rtr_route_lock(s->route);
	yes = rtr_route_find(s->route, p, &in) && in.src == RTR_RS_FPM;
	rtr_route_unlock(s->route);
	return yes;
}

static void
nhr_forget(struct rtr_fpm_server *s, const struct rtr_addr *p)
{
	/* Without next-hop objects (no fpm use-next-hop-groups) every route
	 * comes here: nothing to scan. */
	for (unsigned int i = 0; s->n_nhr > 0 && i < RTR_ROUTE_MAX_RULES; i++) {
		if (s->nhr[i].used && memcmp(&s->nhr[i].prefix, p, sizeof(*p)) == 0) {
			s->nhr[i].used = false;
			s->n_nhr--;
		}
	}
}

static void
nhr_remember(struct rtr_fpm_server *s, const struct rtr_addr *p, uint32_t id)
{
	int free_slot = -1;

	for (unsigned int i = 0; i < RTR_ROUTE_MAX_RULES; i++) {
		if (s->nhr[i].used && memcmp(&s->nhr[i].prefix, p, sizeof(*p)) == 0) {
			s->nhr[i].nh_id = id;
			return;
		}
		if (!s->nhr[i].used && free_slot < 0)
			free_slot = (int)i;
	}
	if (free_slot >= 0) {
		s->nhr[free_slot] = (struct nhg_route){.used = true, .prefix = *p, .nh_id = id};
		s->n_nhr++;
	}
}

static struct rtr_fpm_nhobj *
obj_find(struct rtr_fpm_server *s, uint32_t id)
{
	for (unsigned int i = 0; i < FPM_NHOBJ_MAX; i++)
		if (s->obj[i].used && s->obj[i].o.id == id)
			return &s->obj[i].o;
	return NULL;
}

/* A route's next hops from its next-hop object: false when it (or a
 * member of its group) was not sent yet. */
static bool
obj_resolve(struct rtr_fpm_server *s, uint32_t id, struct rtr_fpm_route *r)
{
	const struct rtr_fpm_nhobj *o = obj_find(s, id);

	r->n_nh = 0;
	if (o == NULL)
		return false;
	if (o->blackhole) {
		r->type = RTN_BLACKHOLE;
		return true;
	}
	if (!o->group) {
		r->nh[r->n_nh++] = o->nh;
		return true;
	}
	for (unsigned int k = 0; k < o->n_grp; k++) {
		const struct rtr_fpm_nhobj *m = obj_find(s, o->grp[k]);

		if (m == NULL || m->group)
			return false;
		if (!m->blackhole && r->n_nh < RTR_MAX_PATHS)
			r->nh[r->n_nh++] = m->nh;
	}
	return true;
}

static bool
link_local(const struct rtr_addr *p)
{
	return p->family == AF_INET6 && p->v6.s6_addr[0] == 0xfe &&
	       (p->v6.s6_addr[1] & 0xc0) == 0x80;
}

/* Remove prefix if it is ours (FPM's). */
static void
fpm_remove(struct rtr_fpm_server *s, const struct rtr_addr *p)
{
	char err[192];

	nhr_forget(s, p);
	if (is_fpm_route(s, p) && rtr_route_del(s->route, p, err, sizeof(err)) == 0)
		s->c.routes_removed++;
}

/* One route message. -EAGAIN: try again later (group slots in their grace
 * period), nothing done. */
static int
apply_route(struct rtr_fpm_server *s, const struct rtr_fpm_route *in)
{
	struct rtr_route_path paths[RTR_MAX_PATHS];
	struct rtr_fpm_route r = *in;
	unsigned int n = 0, connected = 0, k;
	char err[192];
	int rc;

	if (r.table != s->cfg->fpm.table) {
		s->c.skipped_table++;
		return 0;
	}
	if (link_local(&r.prefix) && r.prefix.depth >= 10) {
		s->c.skipped_linklocal++;
		return 0;
	}
	if (r.del) {
		fpm_remove(s, &r.prefix);
		return 0;
	}
	if (r.nh_id != 0) {
		nhr_remember(s, &r.prefix, r.nh_id);
		if (!obj_resolve(s, r.nh_id, &r)) {
			s->c.nh_unresolved++; /* applied when its next hop arrives */
			return 0;
		}
	} else {
		nhr_forget(s, &r.prefix);
	}
	if (r.type == RTN_BLACKHOLE || r.type == RTN_UNREACHABLE || r.type == RTN_PROHIBIT) {
		rc = rtr_route_set(
				s->route, &r.prefix, NULL, 0, RTR_RS_FPM, NULL, err, sizeof(err));
		goto done;
	}
	if (r.type != RTN_UNICAST) {
		s->c.skipped_type++;
		return 0;
	}
	for (k = 0; k < r.n_nh; k++) {
		int port;

		if (r.nh[k].gw.family == 0) {
			connected++;
			continue;
		}
		port = port_of(s, r.nh[k].ifindex, true);
		if (port < 0) {
			s->c.no_port++;
			continue;
		}
		memset(&paths[n], 0, sizeof(paths[n]));
		paths[n].port = (uint16_t)port;
		paths[n].ip = r.nh[k].gw;
		n++;
	}
	if (n == 0) {
		/* Nothing rocetor can use: what it had for the prefix goes. */
		if (connected > 0)
			s->c.skipped_connected++;
		fpm_remove(s, &r.prefix);
		return 0;
	}
	rc = rtr_route_set(s->route, &r.prefix, paths, n, RTR_RS_FPM, NULL, err, sizeof(err));
done:
	if (rc == -EAGAIN)
		return rc;
	if (rc == -EPERM) {
		s->c.shadowed++;
	} else if (rc < 0) {
		s->c.refused++;
		set_error(s, err);
	} else {
		s->c.routes_set++;
	}
	return 0;
}

/* A next-hop object changed: the routes through it follow. */
static int
apply_nexthop(struct rtr_fpm_server *s, const struct rtr_fpm_nhobj *o)
{
	int free_slot = -1;
	unsigned int i;

	s->c.nexthops++;
	for (i = 0; i < FPM_NHOBJ_MAX; i++) {
		if (s->obj[i].used && s->obj[i].o.id == o->id)
			break;
		if (!s->obj[i].used && free_slot < 0)
			free_slot = (int)i;
	}
	if (o->del) {
		if (i < FPM_NHOBJ_MAX)
			s->obj[i].used = false;
		return 0; /* zebra re-sent the routes that used it */
	}
	if (i == FPM_NHOBJ_MAX) {
		if (free_slot < 0) {
			set_error(s, "too many next-hop objects (4096)");
			return 0;
		}
		i = (unsigned int)free_slot;
	}
	s->obj[i].used = true;
	s->obj[i].o = *o;
	for (unsigned int k = 0; s->n_nhr > 0 && k < RTR_ROUTE_MAX_RULES; k++) {
		struct rtr_fpm_route r;
		const struct rtr_fpm_nhobj *g;
		bool uses;

		if (!s->nhr[k].used)
			continue;
		g = obj_find(s, s->nhr[k].nh_id);
		uses = s->nhr[k].nh_id == o->id;
		for (unsigned int m = 0; g != NULL && g->group && m < g->n_grp; m++)
			uses |= g->grp[m] == o->id;
		if (!uses)
			continue;
		memset(&r, 0, sizeof(r));
		r.prefix = s->nhr[k].prefix;
		r.table = s->cfg->fpm.table;
		r.type = RTN_UNICAST;
		r.nh_id = s->nhr[k].nh_id;
		if (apply_route(s, &r) == -EAGAIN)
			return -EAGAIN;
	}
	return 0;
}

static bool
same_prefix(const struct rtr_addr *a, const struct rtr_addr *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* The frame at buf's head, from message s->done on. */
static int
apply_frame(struct rtr_fpm_server *s)
{
	for (; s->done < (unsigned int)s->n_msgs; s->done++) {
		const struct rtr_fpm_msg *m = &s->msgs[s->done];
		int rc = 0;

		if (m->kind == RTR_FPM_ROUTE) {
			bool replaced = false;

			/* DELROUTE then NEWROUTE of one prefix: an update. */
			for (int j = (int)s->done + 1; m->route.del && j < s->n_msgs; j++)
				replaced |= s->msgs[j].kind == RTR_FPM_ROUTE &&
					    !s->msgs[j].route.del &&
					    same_prefix(&s->msgs[j].route.prefix, &m->route.prefix);
			if (!replaced)
				rc = apply_route(s, &m->route);
		} else if (m->kind == RTR_FPM_NEXTHOP) {
			rc = apply_nexthop(s, &m->nhobj);
		}
		if (rc == -EAGAIN)
			return rc;
	}
	return 0;
}

static void
conn_close(struct rtr_fpm_server *s, uint64_t now_ms, const char *why)
{
	close(s->cfd);
	s->cfd = -1;
	s->len = 0;
	s->n_msgs = -1;
	s->done = 0;
	s->c.disconnects++;
	RTE_LOG(NOTICE, USER1, "fpm: zebra %s: %s\n", s->peer, why);
	/* zebra sends no deletes when it goes: what it had is stale now. */
	rtr_route_mark_stale(s->route, RTR_RS_FPM);
	if (s->cfg->fpm.stale_ms == 0) {
		s->c.stale_swept += rtr_route_sweep_stale(s->route, RTR_RS_FPM);
		s->stale_until_ms = 0;
		memset(s->nhr, 0, RTR_ROUTE_MAX_RULES * sizeof(*s->nhr));
		s->n_nhr = 0;
	} else {
		s->stale_until_ms = now_ms + s->cfg->fpm.stale_ms;
	}
	memset(s->obj, 0, FPM_NHOBJ_MAX * sizeof(*s->obj));
}

static void
conn_accept(struct rtr_fpm_server *s, uint64_t now_ms)
{
	struct sockaddr_storage sa;
	socklen_t salen = sizeof(sa);
	int fd = accept(s->lfd, (struct sockaddr *)&sa, &salen);
	char host[INET6_ADDRSTRLEN] = "?";

	if (fd < 0)
		return;
	if (fcntl(fd, F_SETFL, O_NONBLOCK) != 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
		close(fd);
		return;
	}
	if (s->cfd >= 0) /* zebra came back before we saw it go */
		conn_close(s, now_ms, "replaced by a new connection");
	s->cfd = fd;
	if (sa.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, host, sizeof(host));
	else if (sa.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, host, sizeof(host));
	pthread_mutex_lock(&s->lock);
	snprintf(s->peer, sizeof(s->peer), "%s", host);
	pthread_mutex_unlock(&s->lock);
	s->c.connects++;
	map_ports(s);
	/* zebra dumps everything again: what it no longer has goes later. */
	if (s->cfg->fpm.stale_ms > 0 && rtr_route_mark_stale(s->route, RTR_RS_FPM) > 0)
		s->stale_until_ms = now_ms + s->cfg->fpm.stale_ms;
	RTE_LOG(NOTICE, USER1, "fpm: zebra connected from %s\n", host);
}

unsigned int
rtr_fpm_poll(struct rtr_fpm_server *s, uint64_t now_ms)
{
	unsigned int frames = 0;

	if (s == NULL)
		return 0;
	conn_accept(s, now_ms);
	if (s->stale_until_ms != 0 && now_ms >= s->stale_until_ms) {
		s->c.stale_swept += rtr_route_sweep_stale(s->route, RTR_RS_FPM);
		s->stale_until_ms = 0;
	}
	if (s->cfd < 0)
		return 0;
	while (frames < FPM_FRAMES_PER_POLL) {
		size_t flen;
		int rc;

		if (s->n_msgs < 0) {
			rc = rtr_fpm_frame(s->buf, s->len, &flen);
			if (rc < 0) {
				s->c.bad_frames++;
				set_error(s, "bad FPM frame header: connection dropped");
				conn_close(s, now_ms, "bad frame");
				return frames;
			}
			if (rc == 0) {
				ssize_t got = read(
						s->cfd, s->buf + s->len, sizeof(s->buf) - s->len);

				if (got > 0) {
					s->len += (size_t)got;
					continue;
				}
				if (got == 0 || (errno != EAGAIN && errno != EINTR))
					conn_close(s, now_ms,
							got == 0 ? "closed" : strerror(errno));
				return frames;
			}
			s->n_msgs = rtr_fpm_decode(s->buf + RTR_FPM_HDR, flen - RTR_FPM_HDR,
					s->msgs, FPM_MSGS_MAX);
			s->done = 0;
			if (s->n_msgs < 0) {
				s->c.bad_frames++;
				set_error(s, "malformed netlink in an FPM frame: connection "
					     "dropped");
				conn_close(s, now_ms, "malformed frame");
				return frames;
			}
		}
		if (apply_frame(s) == -EAGAIN)
			return frames; /* the same frame at the next poll */
		rtr_fpm_frame(s->buf, s->len, &flen);
		memmove(s->buf, s->buf + flen, s->len - flen);
		s->len -= flen;
		s->n_msgs = -1;
		s->c.frames++;
		frames++;
	}
	return frames;
}

void
rtr_fpm_status(struct rtr_fpm_server *s, struct rtr_fpm_status *out)
{
	memset(out, 0, sizeof(*out));
	if (s == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	out->listening = s->lfd >= 0;
	out->connected = s->cfd >= 0;
	snprintf(out->peer, sizeof(out->peer), "%s", s->peer);
	snprintf(out->last_error, sizeof(out->last_error), "%s", s->last_error);
	out->c = s->c;
	pthread_mutex_unlock(&s->lock);
	rtr_route_lock(s->route);
	for (unsigned int i = 0; i < rtr_route_slots(s->route); i++) {
		struct rtr_route_info in;

		if (rtr_route_get(s->route, i, &in) && in.src == RTR_RS_FPM) {
			out->fpm_routes++;
			out->stale += in.stale;
		}
	}
	rtr_route_unlock(s->route);
}
