/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The FPM decoder (rtr_fpm.h). Layouts from the kernel's UAPI headers
 * (linux/netlink.h, linux/rtnetlink.h, linux/nexthop.h): struct nlmsghdr
 * 16 bytes, struct rtmsg 12, struct rtattr 4 (rta_len includes it), all
 * aligned to 4; struct rtnexthop 8; struct nhmsg 8; struct nexthop_grp 8.
 * Nothing is read before its length was checked against what is left.
 */

#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "rtr_fpm.h"

#define ALIGN4(x) (((x) + 3u) & ~3u)

int
rtr_fpm_frame(const uint8_t *buf, size_t len, size_t *frame_len)
{
	size_t n;

	if (len < RTR_FPM_HDR)
		return 0;
	n = (size_t)buf[2] << 8 | buf[3];
	if (buf[0] != 1 || buf[1] != 1 || n < RTR_FPM_HDR || n % 4 != 0)
		return -1;
	if (len < n)
		return 0;
	*frame_len = n;
	return 1;
}

/* An attribute's payload as an address of family (4 or 16 bytes). */
static bool
attr_addr(const uint8_t *v, size_t n, uint8_t family, struct rtr_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (family == AF_INET && n == 4) {
		memcpy(&a->v4, v, 4);
	} else if (family == AF_INET6 && n == 16) {
		memcpy(&a->v6, v, 16);
	} else {
		return false;
	}
	a->family = family;
	a->depth = family == AF_INET ? 32 : 128;
	return true;
}

static uint32_t
u32_of(const uint8_t *v)
{
	uint32_t x;

	memcpy(&x, v, 4);
	return x;
}

/*
 * Walk the attributes in [p, p + n): calls fn for each whole one.
 * Returns false when one is malformed (shorter than its header or longer
 * than what is left).
 */
typedef bool (*attr_fn)(void *arg, unsigned int type, const uint8_t *v, size_t n);

static bool
walk_attrs(const uint8_t *p, size_t n, attr_fn fn, void *arg)
{
	while (n >= sizeof(struct rtattr)) {
		struct rtattr a;
		size_t step;

		memcpy(&a, p, sizeof(a));
		if (a.rta_len < sizeof(a) || a.rta_len > n)
			return false;
		if (!fn(arg, a.rta_type & NLA_TYPE_MASK, p + sizeof(a), a.rta_len - sizeof(a)))
			return false;
		step = ALIGN4(a.rta_len);
		if (step >= n)
			return true;
		p += step;
		n -= step;
	}
	return true; /* trailing padding */
}

struct route_ctx {
	struct rtr_fpm_route *r;
	uint8_t family;
	struct rtr_fpm_nh *cur; /* a multipath entry's gateway goes here */
};

static bool
nh_attr(void *arg, unsigned int type, const uint8_t *v, size_t n)
{
	struct route_ctx *c = arg;

	if (type == RTA_GATEWAY && !attr_addr(v, n, c->family, &c->cur->gw))
		return false;
	if (type == RTA_VIA) { /* an IPv4 route over an IPv6 next hop (RTA_VIA) */
		uint16_t fam;

		if (n < 2)
			return false;
		memcpy(&fam, v, 2);
		if (!attr_addr(v + 2, n - 2, (uint8_t)fam, &c->cur->gw))
			return false;
	}
	return true;
}

static bool
route_attr(void *arg, unsigned int type, const uint8_t *v, size_t n)
{
	struct route_ctx *c = arg;
	struct rtr_fpm_route *r = c->r;

	switch (type) {
	case RTA_DST: {
		uint8_t depth = r->prefix.depth;

		if (!attr_addr(v, n, c->family, &r->prefix))
			return false;
		r->prefix.depth = depth;
		return true;
	}
	case RTA_TABLE:
		if (n != 4)
			return false;
		r->table = u32_of(v);
		return true;
	case RTA_NH_ID:
		if (n != 4)
			return false;
		r->nh_id = u32_of(v);
		return true;
	case RTA_OIF:
		if (n != 4)
			return false;
		if (r->n_nh == 0)
			r->n_nh = 1;
		r->nh[0].ifindex = u32_of(v);
		return true;
	case RTA_GATEWAY:
	case RTA_VIA:
		if (r->n_nh == 0)
			r->n_nh = 1;
		c->cur = &r->nh[0];
		return nh_attr(c, type, v, n);
	case RTA_MULTIPATH:
		r->n_nh = 0;
		while (n >= sizeof(struct rtnexthop)) {
			struct rtnexthop h;
			size_t step;

			memcpy(&h, v, sizeof(h));
			if (h.rtnh_len < sizeof(h) || h.rtnh_len > n)
				return false;
			if (r->n_nh < RTR_MAX_PATHS) {
				struct rtr_fpm_nh *e = &r->nh[r->n_nh++];

				memset(e, 0, sizeof(*e));
				e->ifindex = (uint32_t)h.rtnh_ifindex;
				e->weight = (uint8_t)(h.rtnh_hops + 1 > 255 ? 255
									    : h.rtnh_hops + 1);
				e->onlink = (h.rtnh_flags & RTNH_F_ONLINK) != 0;
				c->cur = e;
				if (!walk_attrs(v + sizeof(h), h.rtnh_len - sizeof(h), nh_attr, c))
					return false;
			} else {
				r->n_nh_cut++;
			}
			step = ALIGN4(h.rtnh_len);
			if (step >= n)
				break;
			v += step;
			n -= step;
		}
		return true;
	default:
		return true;
	}
}

static int
decode_route(const uint8_t *p, size_t n, bool del, struct rtr_fpm_msg *m)
{
	struct rtr_fpm_route *r = &m->route;
	struct route_ctx c = {.r = r};
	struct rtmsg rtm;

	if (n < sizeof(rtm))
		return -1;
	memcpy(&rtm, p, sizeof(rtm));
	if (rtm.rtm_family != AF_INET && rtm.rtm_family != AF_INET6) {
		m->kind = RTR_FPM_OTHER; /* AF_MPLS LSPs, AF_BRIDGE... */
		return 0;
	}
	memset(r, 0, sizeof(*r));
	m->kind = RTR_FPM_ROUTE;
	c.family = rtm.rtm_family;
	r->del = del;
	r->type = rtm.rtm_type;
	r->protocol = rtm.rtm_protocol;
	r->table = rtm.rtm_table;
	if (rtm.rtm_dst_len > (rtm.rtm_family == AF_INET ? 32 : 128))
		return -1;
	r->prefix.family = rtm.rtm_family;
	r->prefix.depth = rtm.rtm_dst_len;
	r->nh[0].weight = 1;
	if (!walk_attrs(p + NLMSG_ALIGN(sizeof(rtm)),
			    n > NLMSG_ALIGN(sizeof(rtm)) ? n - NLMSG_ALIGN(sizeof(rtm)) : 0,
			    route_attr, &c))
		return -1;
	if (r->prefix.family != rtm.rtm_family) /* RTA_DST of another size */
		return -1;
	return 0;
}

struct nh_ctx {
	struct rtr_fpm_nhobj *o;
	uint8_t family;
};

static bool
nhobj_attr(void *arg, unsigned int type, const uint8_t *v, size_t n)
{
	struct nh_ctx *c = arg;
	struct rtr_fpm_nhobj *o = c->o;

	switch (type) {
	case NHA_ID:
		if (n != 4)
			return false;
		o->id = u32_of(v);
		return true;
	case NHA_GROUP:
		if (n % sizeof(struct nexthop_grp) != 0)
			return false;
		o->group = true;
		for (size_t i = 0; i < n / sizeof(struct nexthop_grp); i++) {
			struct nexthop_grp g;

			memcpy(&g, v + i * sizeof(g), sizeof(g));
			if (o->n_grp < RTR_MAX_PATHS) {
				o->grp_weight[o->n_grp] =
						(uint8_t)(g.weight + 1 > 255 ? 255 : g.weight + 1);
				o->grp[o->n_grp++] = g.id;
			}
		}
		return true;
	case NHA_BLACKHOLE:
		o->blackhole = true;
		return true;
	case NHA_OIF:
		if (n != 4)
			return false;
		o->nh.ifindex = u32_of(v);
		return true;
	case NHA_GATEWAY:
		return attr_addr(v, n, c->family, &o->nh.gw);
	default:
		return true;
	}
}

static int
decode_nexthop(const uint8_t *p, size_t n, bool del, struct rtr_fpm_msg *m)
{
	struct rtr_fpm_nhobj *o = &m->nhobj;
	struct nh_ctx c = {.o = o};
	struct nhmsg h;

	if (n < sizeof(h))
		return -1;
	memcpy(&h, p, sizeof(h));
	memset(o, 0, sizeof(*o));
	m->kind = RTR_FPM_NEXTHOP;
	o->del = del;
	o->nh.weight = 1;
	c.family = h.nh_family;
	if (!walk_attrs(p + sizeof(h), n - sizeof(h), nhobj_attr, &c))
		return -1;
	return o->id != 0 ? 0 : -1;
}

int
rtr_fpm_decode(const uint8_t *p, size_t len, struct rtr_fpm_msg *out, unsigned int max)
{
	unsigned int k = 0;

	while (len >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr h;
		const uint8_t *body;
		size_t n, step;
		int rc = 0;

		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len)
			return -1;
		if (k == max)
			return -1; /* more messages than the caller takes */
		body = p + NLMSG_HDRLEN;
		n = h.nlmsg_len - NLMSG_HDRLEN;
		switch (h.nlmsg_type) {
		case RTM_NEWROUTE:
		case RTM_DELROUTE:
			rc = decode_route(body, n, h.nlmsg_type == RTM_DELROUTE, &out[k]);
			break;
		case RTM_NEWNEXTHOP:
		case RTM_DELNEXTHOP:
			rc = decode_nexthop(body, n, h.nlmsg_type == RTM_DELNEXTHOP, &out[k]);
			break;
		default:
			out[k].kind = RTR_FPM_OTHER; /* RTM_NEWNEIGH (EVPN MACs)... */
			break;
		}
		if (rc < 0)
			return -1;
		k++;
		step = NLMSG_ALIGN(h.nlmsg_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return (int)k;
}
