/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The switch's schema (DESIGN.md B3): the sections lib/config owns
 * (switch, ports, routes, qos, faults) as field tables of the schema
 * engine, and the root that also holds every registered LB mode's section
 * (rtr_config_set_lb_modes), between qos and faults in registry order.
 *
 * Fields of a map are handled in table order, not document order: routes
 * need ports, dscp/pcp/class_params/pfc entries need qos.classes, the
 * per-class defaults need qos.queue_kb and qos.ecn, and an LB section may
 * check its keys against all of those (a hold budget against
 * switch.mbufs).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg_schema.h"
#include "cfg_switch.h"

static const char *const role_names[] = {"tor", "spine", NULL};
static const char *const port_role_names[] = {"host", "fabric", NULL};
static const char *const trust_names[] = {"dscp", "pcp", NULL};           /* trust_pcp */
static const char *const trim_lengths_names[] = {"keep", "update", NULL}; /* trim_update_lengths */
/* Same order as enum rtr_pfc_mode and rtr_pfc_mode_names[]; the unit test checks names. */
static const char *const pfc_mode_names[] = {"off", "software", "nic", "pause", "external", NULL};
_Static_assert(RTR_ARRAY_SIZE(pfc_mode_names) == RTR_PFC_MODES + 1,
		"pfc_mode_names out of step with rtr_pfc_mode");

/* ---- the LB modes (rtr_config_set_lb_modes) ----------------------------- */

/* switch.lb's names (NULL-terminated) and each mode's section (or NULL), by
 * mode id; set once, before main(), by the LB registry. */
static const char *lb_names[RTR_LB_MODES_MAX + 1];
static const struct rtr_cfg_section *lb_sections[RTR_LB_MODES_MAX];
static unsigned int lb_fabric_hdr[RTR_LB_MODES_MAX];
static unsigned int n_lb_modes;

int
rtr_config_set_lb_modes(const struct rtr_config_lb_mode *modes, unsigned int n)
{
	unsigned int i;

	if (n == 0 || n > RTR_LB_MODES_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (modes[i].name == NULL || modes[i].name[0] == '\0' ||
				(modes[i].section != NULL &&
						modes[i].section->size > RTR_LB_CFG_SIZE))
			return -EINVAL;
	memset(lb_names, 0, sizeof(lb_names));
	for (i = 0; i < n; i++) {
		lb_names[i] = modes[i].name;
		lb_sections[i] = modes[i].section;
		lb_fabric_hdr[i] = modes[i].fabric_hdr;
	}
	n_lb_modes = n;
	return 0;
}

const void *
rtr_config_section(const struct rtr_config *cfg, const struct rtr_cfg_section *s)
{
	unsigned int i;

	for (i = 0; i < n_lb_modes; i++)
		if (lb_sections[i] == s && s != NULL)
			return rtr_config_lb(cfg, i);
	return NULL;
}

/* ---- switch ------------------------------------------------------------ */

static int
switch_check(struct rtr_cfg_ctx *c, const struct cfg_node *node, int line,
		const struct cfg_path *path, void *base)
{
	struct rtr_switch_cfg *sw = base;

	(void)c;
	(void)node;
	(void)line;
	(void)path;
	/* Fibonacci hashing of the id: distinct ids give well-spread seeds. */
	if (!sw->seed_set)
		sw->seed = (uint32_t)((uint64_t)sw->id * 2654435761u);
	return 0;
}

static const struct rtr_cfg_field switch_fields[] = {
		RTR_CFG_STRING("name", struct rtr_switch_cfg, name, "rocetor"),
		RTR_CFG_ENUM("role", struct rtr_switch_cfg, role, role_names, RTR_ROLE_TOR),
		RTR_CFG_UINT("id", struct rtr_switch_cfg, id, 1, 65535, 1),
		/* The registry's first mode is the default. */
		RTR_CFG_ENUM("lb", struct rtr_switch_cfg, lb, lb_names, 0),
		RTR_CFG_UINT("seed", struct rtr_switch_cfg, seed, 0, UINT32_MAX, 0,
				.flags = RTR_CFG_HAS_SET | RTR_CFG_SHOW_DEF,
				.note = "not set: derived from id",
				.set_off = offsetof(struct rtr_switch_cfg, seed_set)),
		RTR_CFG_UINT("idle_sleep_us", struct rtr_switch_cfg, idle_sleep_us, 0, 100000, 0),
		RTR_CFG_UINT("idle_threshold", struct rtr_switch_cfg, idle_threshold, 1, 1000000000,
				1000),
		RTR_CFG_UINT("neigh_timeout_s", struct rtr_switch_cfg, neigh_timeout_s, 1, 86400,
				60),
		RTR_CFG_UINT("mbufs", struct rtr_switch_cfg, mbufs, 1024, 16777216, 0,
				.flags = RTR_CFG_ZERO_OK),
		/* Read by nothing since the egress serves its queues every loop;
		 * still accepted (and range-checked) so old configs load. */
		RTR_CFG_IGNORED_UINT("drain_us", 1, 10000),
		RTR_CFG_UINT("handoff_ring", struct rtr_switch_cfg, handoff_ring, 1, 65536, 4096),
};
static const struct rtr_cfg_map switch_map = {
		switch_fields, RTR_ARRAY_SIZE(switch_fields), switch_check};

/* ---- ports ------------------------------------------------------------- */

static int
port_ip_parse(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line,
		const struct cfg_path *path, void *base)
{
	struct cfg_path epath = {path, NULL, 0};
	struct rtr_port_cfg *p = base;
	const struct cfg_node *e;

	(void)line;
	p->n_addrs = 0;
	if (v == NULL)
		return 0;
	if (v->type == CFG_SCALAR) {
		if (cfg_get_addr(c, v, path, true, &p->addrs[0]) < 0)
			return -1;
		p->n_addrs = 1;
		return 0;
	}
	if (v->type != CFG_LIST)
		return cfg_expect(c, v, path, "a string or a list of strings");
	if (cfg_list_check(c, v, path, 1, RTR_MAX_PORT_ADDRS) < 0)
		return -1;
	for (e = v->child; e != NULL; e = e->next) {
		epath.index = p->n_addrs;
		if (cfg_get_addr(c, e, &epath, true, &p->addrs[p->n_addrs]) < 0)
			return -1;
		p->n_addrs++;
	}
	return 0;
}

static void
port_ip_dump(struct cfg_buf *b, const struct rtr_cfg_field *f, const void *base, int indent)
{
	const struct rtr_port_cfg *p = base;
	unsigned int i;

	if (p->n_addrs == 0)
		return;
	cfg_buf_printf(b, "%*s%s: [", indent, "", f->key);
	for (i = 0; i < p->n_addrs; i++) {
		cfg_buf_printf(b, "%s", i == 0 ? "" : ", ");
		cfg_dump_addr(b, &p->addrs[i], true);
	}
	cfg_buf_printf(b, "]\n");
}

static const struct rtr_cfg_field port_fields[] = {
		RTR_CFG_UINT("port", struct rtr_port_cfg, port, 0, RTR_MAX_PORTS - 1, 0,
				.flags = RTR_CFG_REQUIRED),
		RTR_CFG_ENUM("role", struct rtr_port_cfg, role, port_role_names, RTR_PORT_HOST,
				.flags = RTR_CFG_REQUIRED),
		RTR_CFG_MAC("mac", struct rtr_port_cfg, mac, mac_set),
		RTR_CFG_UINT("speed_gbps", struct rtr_port_cfg, speed_gbps, 0, 1600, 0),
		RTR_CFG_DOUBLE("shape_gbps", struct rtr_port_cfg, shape_gbps, 0, 1600, 0,
				.flags = RTR_CFG_MIN_EXCL | RTR_CFG_OMIT_DEF),
		RTR_CFG_UINT("shape_burst_kb", struct rtr_port_cfg, shape_burst_kb, 1, 65536, 16),
		RTR_CFG_UINT("delay_us", struct rtr_port_cfg, delay_us, 0, 1000000, 0),
		RTR_CFG_DOUBLE("loss", struct rtr_port_cfg, loss, 0, 1, 0),
		RTR_CFG_UINT("loss_seed", struct rtr_port_cfg, loss_seed, 0, UINT64_MAX, 1),
		RTR_CFG_BOOL("admin_down", struct rtr_port_cfg, admin_down, false),
		RTR_CFG_STRING("ifname", struct rtr_port_cfg, ifname, ""),
		RTR_CFG_BOOL("tap", struct rtr_port_cfg, tap, false),
		RTR_CFG_UINT("rx_queues", struct rtr_port_cfg, rx_queues, 0, 64, 0),
		RTR_CFG_UINT("tx_queues", struct rtr_port_cfg, tx_queues, 0, 64, 0),
		RTR_CFG_UINT("mtu", struct rtr_port_cfg, mtu, 68, 9600, 0,
				.flags = RTR_CFG_ZERO_OK),
		RTR_CFG_UINT("nic_ring_kb", struct rtr_port_cfg, nic_ring_kb, 1, 65536,
				RTR_NIC_RING_AUTO, .flags = RTR_CFG_ZERO_OK | RTR_CFG_OMIT_DEF),
		RTR_CFG_UINT("nic_ring_desc", struct rtr_port_cfg, nic_ring_desc, 1, 4096, 0,
				.flags = RTR_CFG_ZERO_OK | RTR_CFG_OMIT_DEF),
		RTR_CFG_BOOL("l2_filter", struct rtr_port_cfg, l2_filter, true),
		RTR_CFG_FUNC("ip", port_ip_parse, port_ip_dump),
		RTR_CFG_UINT("flow_rate", struct rtr_port_cfg, flow_rate, 0, 100000000, 0,
				.flags = RTR_CFG_OMIT_DEF),
		RTR_CFG_UINT("flow_burst", struct rtr_port_cfg, flow_burst, 1, 100000000, 64,
				.flags = RTR_CFG_OMIT_DEF),
		RTR_CFG_DOUBLE("flow_share", struct rtr_port_cfg, flow_share, 0, 1, 0,
				.flags = RTR_CFG_OMIT_DEF),
		{.key = "source_check",
				.type = RTR_CFG_T_BOOL,
				RTR_CFG_FLD_(struct rtr_port_cfg, source_check),
				.def = false,
				.flags = RTR_CFG_OMIT_DEF},
};
static const struct rtr_cfg_map port_map = {port_fields, RTR_ARRAY_SIZE(port_fields), NULL};

/*
 * The MTU rule (rtr_config_check_mtu): for each fabric port, the host port
 * of the largest mtu it is checked against; the first fabric port short of
 * that host's mtu plus hdr is the error.
 */
static int
mtu_check(const struct cfg_err *e, const struct rtr_config *cfg, unsigned int hdr, const char *who,
		const bool *device)
{
	static const struct cfg_path ports_path = {NULL, "ports", 0};

	for (unsigned int f = 0; f < cfg->n_ports; f++) {
		const struct rtr_port_cfg *fp = &cfg->ports[f], *hp = NULL;
		bool fdev = device != NULL && device[f], hdev = false;
		struct cfg_path epath = {&ports_path, NULL, f}, mpath = {&epath, "mtu", 0};

		if (fp->role != RTR_PORT_FABRIC || fp->mtu == 0)
			continue;
		for (unsigned int h = 0; h < cfg->n_ports; h++) {
			const struct rtr_port_cfg *p = &cfg->ports[h];
			bool pdev = device != NULL && device[h];

			if (p->role != RTR_PORT_HOST || p->mtu == 0 || (fdev && pdev))
				continue;
			if (hp == NULL || p->mtu > hp->mtu) {
				hp = p;
				hdev = pdev;
			}
		}
		if (hp == NULL || (unsigned int)fp->mtu >= hp->mtu + hdr)
			continue;
		return cfg_error(e, fp->mtu_line > 0 ? fp->mtu_line : fp->line, &mpath,
				"fabric port %u's mtu %u%s cannot carry host port %u's largest "
				"frame (mtu %u%s) plus the %u-byte LB header %s: needs %u or "
				"more (doc/config.md, mtu)",
				fp->port, fp->mtu, fdev ? " (unset: the device's)" : "", hp->port,
				hp->mtu, hdev ? ", unset: the device's" : "", hdr, who,
				hp->mtu + hdr);
	}
	return 0;
}

static int
ports_parse(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path epath = {path, NULL, 0}, ppath = {&epath, "port", 0};
	struct rtr_config *cfg = base;
	const struct cfg_node *e, *hv;
	struct rtr_port_cfg *p;
	unsigned int i;
	char who[64];

	(void)line;
	if (cfg_list_check(c, v, path, 1, RTR_MAX_PORTS) < 0)
		return -1;
	for (e = v->child; e != NULL; e = e->next) {
		epath.index = cfg->n_ports;
		p = &cfg->ports[cfg->n_ports];
		if (cfg_validate_map(c, e, e->line, &epath, &port_map, p) < 0)
			return -1;
		p->line = e->line;
		hv = cfg_map_get(e, "mtu");
		p->mtu_line = hv != NULL ? hv->line : 0;
		/* A spine routes between switches (the switch map is read
		 * first): a host port there would get no LB treatment. */
		if (cfg->sw.role == RTR_ROLE_SPINE && p->role == RTR_PORT_HOST) {
			struct cfg_path rpath = {&epath, "role", 0};
			const struct cfg_node *rv = cfg_map_get(e, "role");

			return cfg_error(c->e, rv != NULL ? rv->line : e->line, &rpath,
					"a spine (switch.role: spine) has fabric ports only, "
					"got host");
		}
		/* Only host ports create source-side flow entries: a limit
		 * on a fabric port would do nothing, silently. */
		if (p->role == RTR_PORT_FABRIC) {
			static const char *const host_only[] = {
					"flow_rate", "flow_burst", "flow_share", "source_check"};

			for (i = 0; i < RTR_ARRAY_SIZE(host_only); i++) {
				struct cfg_path hpath = {&epath, host_only[i], 0};

				hv = cfg_map_get(e, host_only[i]);
				if (hv != NULL)
					return cfg_error(c->e, hv->line, &hpath,
							"host ports only "
							"(this port is fabric)");
			}
		}
		for (i = 0; i < cfg->n_ports; i++)
			if (cfg->ports[i].port == p->port)
				return cfg_error(c->e, cfg_map_get(e, "port")->line, &ppath,
						"duplicate port %u (first at line %d)", p->port,
						cfg->ports[i].line);
		cfg->n_ports++;
	}
	/* The switch map is read first: switch.lb's header on a ToR (a
	 * spine has no host ports). */
	if (cfg->sw.role != RTR_ROLE_TOR || cfg->sw.lb >= n_lb_modes)
		return 0;
	snprintf(who, sizeof(who), "of %s (switch.lb)", lb_names[cfg->sw.lb]);
	return mtu_check(c->e, cfg, lb_fabric_hdr[cfg->sw.lb], who, NULL);
}

int
rtr_config_check_mtu(const struct rtr_config *cfg, unsigned int hdr, const char *who,
		const bool *device, char *err, size_t errlen)
{
	struct cfg_err e = {cfg->path[0] != '\0' ? cfg->path : "(config)", err, errlen};

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	return mtu_check(&e, cfg, hdr, who, device);
}

static void
ports_dump(struct cfg_buf *b, const struct rtr_cfg_field *f, const void *base, int indent)
{
	const struct rtr_config *cfg = base;
	unsigned int i;

	cfg_buf_printf(b, "%*s%s:\n", indent, "", f->key);
	for (i = 0; i < cfg->n_ports; i++)
		cfg_dump_fields(b, &port_map, &cfg->ports[i], indent + 4, true);
}

/* ---- routes ------------------------------------------------------------ */

static int
nexthop_ip_parse(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line,
		const struct cfg_path *path, void *base)
{
	struct rtr_nexthop_cfg *nh = base;

	(void)line;
	memset(&nh->ip, 0, sizeof(nh->ip));
	if (v == NULL)
		return 0;
	return cfg_get_addr(c, v, path, false, &nh->ip);
}

static void
nexthop_ip_dump(struct cfg_buf *b, const struct rtr_cfg_field *f, const void *base, int indent)
{
	const struct rtr_nexthop_cfg *nh = base;

	if (nh->ip.family == 0)
		return;
	/* indent < 0: inside a flow map, which always has port before. */
	if (indent < 0)
		cfg_buf_printf(b, ", %s: ", f->key);
	else
		cfg_buf_printf(b, "%*s%s: ", indent, "", f->key);
	cfg_dump_addr(b, &nh->ip, false);
	if (indent >= 0)
		cfg_buf_printf(b, "\n");
}

static const struct rtr_cfg_field nexthop_fields[] = {
		RTR_CFG_UINT("port", struct rtr_nexthop_cfg, port, 0, RTR_MAX_PORTS - 1, 0,
				.flags = RTR_CFG_REQUIRED),
		RTR_CFG_MAC("nexthop_mac", struct rtr_nexthop_cfg, mac, mac_set),
		RTR_CFG_FUNC("nexthop", nexthop_ip_parse, nexthop_ip_dump),
};
static const struct rtr_cfg_map nexthop_map = {
		nexthop_fields, RTR_ARRAY_SIZE(nexthop_fields), NULL};

static int
prefix_parse(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct rtr_route_cfg *r = base;
	const uint8_t *bytes;
	unsigned int i, nbytes;

	(void)line;
	if (cfg_get_addr(c, v, path, true, &r->prefix) < 0)
		return -1;
	bytes = r->prefix.family == AF_INET ? (const uint8_t *)&r->prefix.v4
					    : (const uint8_t *)&r->prefix.v6;
	nbytes = r->prefix.family == AF_INET ? 4 : 16;
	for (i = r->prefix.depth; i < nbytes * 8; i++)
		if (bytes[i / 8] & (0x80 >> (i % 8)))
			return cfg_error(c->e, v->line, path,
					"host bits set in \"%s\" (beyond /%u)", v->text,
					r->prefix.depth);
	return 0;
}

static int
paths_parse(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path epath = {path, NULL, 0};
	struct rtr_route_cfg *r = base;
	const struct cfg_node *e;

	(void)line;
	if (v == NULL)
		return 0;
	if (cfg_list_check(c, v, path, 1, RTR_MAX_PATHS) < 0)
		return -1;
	r->n_paths = 0;
	for (e = v->child; e != NULL; e = e->next) {
		epath.index = r->n_paths;
		if (cfg_validate_map(c, e, e->line, &epath, &nexthop_map, &r->paths[r->n_paths]) <
				0)
			return -1;
		r->paths[r->n_paths].line = e->line;
		r->n_paths++;
	}
	r->is_group = true;
	return 0;
}

static const struct rtr_cfg_field route_fields[] = {
		RTR_CFG_FUNC("prefix", prefix_parse, NULL, .flags = RTR_CFG_REQUIRED),
		/* A single next hop is written inline and stored as paths[0]. */
		RTR_CFG_UINT("port", struct rtr_route_cfg, paths[0].port, 0, RTR_MAX_PORTS - 1, 0),
		RTR_CFG_MAC("nexthop_mac", struct rtr_route_cfg, paths[0].mac, paths[0].mac_set),
		{.key = "nexthop",
				.type = RTR_CFG_T_FUNC,
				.parse = nexthop_ip_parse,
				.off = offsetof(struct rtr_route_cfg, paths[0])},
		RTR_CFG_FUNC("paths", paths_parse, NULL),
};

static const char *
family_name(int family)
{
	return family == AF_INET ? "IPv4" : "IPv6";
}

static bool
addr_equal(const struct rtr_addr *a, const struct rtr_addr *b)
{
	if (a->family != b->family || a->depth != b->depth)
		return false;
	if (a->family == AF_INET)
		return a->v4.s_addr == b->v4.s_addr;
	return memcmp(&a->v6, &b->v6, sizeof(a->v6)) == 0;
}

static int
route_nexthop_check(struct rtr_cfg_ctx *c, struct rtr_route_cfg *r, unsigned int i,
		const struct cfg_node *node, const struct cfg_path *path)
{
	struct cfg_path port_path = {path, "port", 0}, nh_path = {path, "nexthop", 0};
	const struct rtr_port_cfg *port, *first;
	struct rtr_nexthop_cfg *nh = &r->paths[i];
	const struct cfg_node *pv = cfg_map_get(node, "port");
	const struct cfg_node *nv = cfg_map_get(node, "nexthop");
	unsigned int a;

	port = rtr_config_port(c->cfg, nh->port);
	if (port == NULL)
		return cfg_error(c->e, pv->line, &port_path, "port %u is not in ports", nh->port);
	if (i > 0) {
		first = rtr_config_port(c->cfg, r->paths[0].port);
		if (first->role != port->role)
			return cfg_error(c->e, pv->line, &port_path,
					"paths mix host and fabric ports (port %u is %s, port %u "
					"is %s)",
					r->paths[0].port, port_role_names[first->role], nh->port,
					port_role_names[port->role]);
	}
	if (nv != NULL && nh->ip.family != r->prefix.family)
		return cfg_error(c->e, nv->line, &nh_path, "nexthop %s is %s but the prefix is %s",
				nv->text, family_name(nh->ip.family),
				family_name(r->prefix.family));
	if (nh->mac_set)
		return 0;
	if (nv == NULL) {
		/* A host route on one port is its own next hop. */
		if (!r->is_group && r->prefix.depth == (r->prefix.family == AF_INET ? 32 : 128)) {
			nh->ip = r->prefix;
		} else {
			return cfg_error(c->e, node->line, path, "nexthop_mac or nexthop required");
		}
	}
	for (a = 0; a < port->n_addrs; a++)
		if (port->addrs[a].family == nh->ip.family)
			return 0;
	return cfg_error(c->e, pv->line, &port_path,
			"port %u has no %s address to resolve nexthop from", nh->port,
			family_name(nh->ip.family));
}

static int
route_check(struct rtr_cfg_ctx *c, const struct cfg_node *node, int line,
		const struct cfg_path *path, void *base)
{
	struct cfg_path kpath = {path, NULL, 0}, epath = {NULL, NULL, 0};
	const struct cfg_node *pv = cfg_map_get(node, "port");
	const struct cfg_node *gv = cfg_map_get(node, "paths");
	const struct cfg_node *v, *e;
	struct rtr_route_cfg *r = base;
	unsigned int i;

	if (pv != NULL && gv != NULL)
		return cfg_error(c->e, line, path, "give either port or paths, not both");
	if (pv == NULL && gv == NULL)
		return cfg_error(c->e, line, path, "port or paths required");
	if (gv != NULL) {
		kpath.key = "nexthop_mac";
		v = cfg_map_get(node, kpath.key);
		if (v == NULL) {
			kpath.key = "nexthop";
			v = cfg_map_get(node, kpath.key);
		}
		if (v != NULL)
			return cfg_error(c->e, v->key_line, &kpath,
					"not allowed with paths (give it in each path)");
	}
	for (i = 0; i < c->cfg->n_routes; i++) {
		if (addr_equal(&c->cfg->routes[i].prefix, &r->prefix)) {
			kpath.key = "prefix";
			return cfg_error(c->e, cfg_map_get(node, "prefix")->line, &kpath,
					"duplicate prefix %s (first at line %d)",
					cfg_map_get(node, "prefix")->text, c->cfg->routes[i].line);
		}
	}
	if (gv == NULL) {
		r->is_group = false;
		r->n_paths = 1;
		r->paths[0].line = line;
		return route_nexthop_check(c, r, 0, node, path);
	}
	kpath.key = "paths";
	epath.up = &kpath;
	for (i = 0, e = gv->child; e != NULL; i++, e = e->next) {
		epath.index = i;
		if (route_nexthop_check(c, r, i, e, &epath) < 0)
			return -1;
	}
	return 0;
}

static const struct rtr_cfg_map route_map = {
		route_fields, RTR_ARRAY_SIZE(route_fields), route_check};

static int
routes_parse(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path epath = {path, NULL, 0};
	struct rtr_config *cfg = base;
	const struct cfg_node *e;
	struct rtr_route_cfg *r;

	(void)line;
	cfg->n_routes = 0;
	if (v == NULL)
		return 0;
	if (cfg_list_check(c, v, path, 0, RTR_MAX_ROUTES) < 0)
		return -1;
	if (v->n_child == 0)
		return 0;
	/* calloc: padding stays zero, so configs compare with memcmp. */
	cfg->routes = calloc(v->n_child, sizeof(*cfg->routes));
	if (cfg->routes == NULL)
		return cfg_error(c->e, v->line, path, "out of memory");
	for (e = v->child; e != NULL; e = e->next) {
		epath.index = cfg->n_routes;
		r = &cfg->routes[cfg->n_routes];
		r->line = e->line;
		if (cfg_validate_map(c, e, e->line, &epath, &route_map, r) < 0)
			return -1;
		cfg->n_routes++;
	}
	return 0;
}

static void
routes_dump(struct cfg_buf *b, const struct rtr_cfg_field *f, const void *base, int indent)
{
	const struct rtr_config *cfg = base;
	const struct rtr_route_cfg *r;
	unsigned int i, j;

	if (cfg->n_routes == 0) {
		cfg_buf_printf(b, "%*s%s: []\n", indent, "", f->key);
		return;
	}
	cfg_buf_printf(b, "%*s%s:\n", indent, "", f->key);
	for (i = 0; i < cfg->n_routes; i++) {
		r = &cfg->routes[i];
		cfg_buf_printf(b, "%*s- prefix: ", indent + 2, "");
		cfg_dump_addr(b, &r->prefix, true);
		cfg_buf_printf(b, "\n");
		if (!r->is_group) {
			cfg_dump_fields(b, &nexthop_map, &r->paths[0], indent + 4, false);
			continue;
		}
		cfg_buf_printf(b, "%*spaths:\n", indent + 4, "");
		for (j = 0; j < r->n_paths; j++) {
			cfg_buf_printf(b, "%*s- ", indent + 6, "");
			cfg_dump_flow(b, &nexthop_map, &r->paths[j]);
			cfg_buf_printf(b, "\n");
		}
	}
}

/* ---- qos --------------------------------------------------------------- */

/* A class number beyond qos.classes (which comes first in the table). */
static int
class_range_error(struct rtr_cfg_ctx *c, int line, const struct cfg_path *path, unsigned int got)
{
	unsigned int classes = c->cfg->qos.classes;

	return cfg_error(c->e, line, path, "must be 0..%u (qos.classes is %u), got %u",
			classes - 1u, classes, got);
}

static const struct rtr_cfg_field dscp_fields[] = {
		RTR_CFG_UINT("dscp", struct rtr_dscp_map, dscp, 0, 63, 0,
				.flags = RTR_CFG_REQUIRED),
		RTR_CFG_UINT("class", struct rtr_dscp_map, class, 0, RTR_MAX_CLASSES - 1, 0,
				.flags = RTR_CFG_REQUIRED),
};
static const struct rtr_cfg_map dscp_map = {dscp_fields, RTR_ARRAY_SIZE(dscp_fields), NULL};

/* 802.1p PCP to class, for tagged frames when trust is pcp. */
static const struct rtr_cfg_field pcp_fields[] = {
		RTR_CFG_UINT("pcp", struct rtr_pcp_map, pcp, 0, 7, 0, .flags = RTR_CFG_REQUIRED),
		RTR_CFG_UINT("class", struct rtr_pcp_map, class, 0, RTR_MAX_CLASSES - 1, 0,
				.flags = RTR_CFG_REQUIRED),
};
static const struct rtr_cfg_map pcp_map = {pcp_fields, RTR_ARRAY_SIZE(pcp_fields), NULL};

/*
 * qos.dscp and qos.pcp: lists of {<key>: n, class: c} entries, each key value
 * given once. The entry map has that key first and "class" second; the
 * offsets say where the count and the entries sit in struct rtr_qos_cfg.
 */
struct class_list {
	const char *key; /* in qos, and of the entry's first field */
	const struct rtr_cfg_map *map;
	size_t n_off;     /* unsigned int: entries used */
	size_t arr_off;   /* the entries */
	size_t size;      /* of one entry */
	unsigned int max; /* entries there is room for */
};

/* clang-format off */
#define CLASS_LIST(arr)                                                                            \
	{#arr, &arr##_map, offsetof(struct rtr_qos_cfg, n_##arr),                                  \
		offsetof(struct rtr_qos_cfg, arr), sizeof(((struct rtr_qos_cfg *)NULL)->arr[0]),   \
		RTR_ARRAY_SIZE(((struct rtr_qos_cfg *)NULL)->arr)}
/* clang-format on */

static const struct class_list class_lists[] = {CLASS_LIST(dscp), CLASS_LIST(pcp)};
_Static_assert(RTR_ARRAY_SIZE(((struct rtr_qos_cfg *)NULL)->dscp) == RTR_MAX_DSCP_MAP,
		"qos.dscp holds RTR_MAX_DSCP_MAP entries");

/* The list of a qos key (only these keys use class_list_parse and _dump). */
static const struct class_list *
class_list_of(const char *key)
{
	unsigned int i;

	for (i = 0; i < RTR_ARRAY_SIZE(class_lists) - 1u; i++)
		if (strcmp(class_lists[i].key, key) == 0)
			break;
	return &class_lists[i];
}

static int
class_list_parse(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line,
		const struct cfg_path *path, void *base)
{
	struct cfg_path epath = {path, NULL, 0}, kpath = {&epath, NULL, 0};
	const struct class_list *l = class_list_of(path->key);
	const struct rtr_cfg_field *kf = &l->map->fields[0], *cf = &l->map->fields[1];
	struct rtr_qos_cfg *q = base;
	unsigned int *n = (void *)((char *)q + l->n_off);
	char *arr = (char *)q + l->arr_off, *d;
	const struct cfg_node *e;
	unsigned int i, key, class;

	(void)line;
	*n = 0;
	if (v == NULL)
		return 0;
	if (cfg_list_check(c, v, path, 0, l->max) < 0)
		return -1;
	for (e = v->child; e != NULL; e = e->next) {
		epath.index = *n;
		d = arr + *n * l->size;
		if (cfg_validate_map(c, e, e->line, &epath, l->map, d) < 0)
			return -1;
		key = (unsigned int)cfg_load_uint(d + kf->off, kf->size);
		class = (unsigned int)cfg_load_uint(d + cf->off, cf->size);
		if (class >= q->classes) {
			kpath.key = cf->key;
			return class_range_error(c, cfg_map_get(e, kpath.key)->line, &kpath, class);
		}
		for (i = 0; i < *n; i++) {
			if (cfg_load_uint(arr + i * l->size + kf->off, kf->size) == key) {
				kpath.key = kf->key;
				return cfg_error(c->e, cfg_map_get(e, kpath.key)->line, &kpath,
						"duplicate %s %u", kf->key, key);
			}
		}
		(*n)++;
	}
	return 0;
}

static void
class_list_dump(struct cfg_buf *b, const struct rtr_cfg_field *f, const void *base, int indent)
{
	const struct class_list *l = class_list_of(f->key);
	const unsigned int *n = (const void *)((const char *)base + l->n_off);
	const char *arr = (const char *)base + l->arr_off;
	unsigned int i;

	if (*n == 0) {
		cfg_buf_printf(b, "%*s%s: []\n", indent, "", f->key);
		return;
	}
	cfg_buf_printf(b, "%*s%s:\n", indent, "", f->key);
	for (i = 0; i < *n; i++) {
		cfg_buf_printf(b, "%*s- ", indent + 2, "");
		cfg_dump_flow(b, l->map, arr + i * l->size);
		cfg_buf_printf(b, "\n");
	}
}

static int
ecn_check(struct rtr_cfg_ctx *c, const struct cfg_node *node, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path kpath = {path, "kmin_kb", 0};
	struct rtr_ecn_cfg *ecn = base;

	if (ecn->kmin_kb > ecn->kmax_kb)
		return cfg_error(c->e, rtr_cfg_rule_line(node, line, "kmin_kb", "kmax_kb", NULL),
				&kpath, "must be <= kmax_kb (%u), got %u", ecn->kmax_kb,
				ecn->kmin_kb);
	return 0;
}

static const struct rtr_cfg_field ecn_fields[] = {
		RTR_CFG_BOOL("enabled", struct rtr_ecn_cfg, enabled, true),
		RTR_CFG_UINT("kmin_kb", struct rtr_ecn_cfg, kmin_kb, 0, 1048576, 100),
		RTR_CFG_UINT("kmax_kb", struct rtr_ecn_cfg, kmax_kb, 0, 1048576, 400),
		RTR_CFG_DOUBLE("pmax", struct rtr_ecn_cfg, pmax, 0, 1, 0.2),
};
static const struct rtr_cfg_map ecn_map = {ecn_fields, RTR_ARRAY_SIZE(ecn_fields), ecn_check};
/* A class's ecn: the keys it does not give come from qos.ecn. */
static const struct rtr_cfg_map class_ecn_map = {
		ecn_fields, RTR_ARRAY_SIZE(ecn_fields), ecn_check, .inherit = true};

/*
 * One class_params entry while it is read: "class" comes first in the table,
 * checks the number and copies that class's defaults into k; the other keys
 * then override only what they give (the map inherits).
 */
struct class_entry {
	uint8_t class;
	struct rtr_class_cfg k;
};

static const struct rtr_cfg_field class_num_range =
		RTR_CFG_UINT("class", struct class_entry, class, 0, RTR_MAX_CLASSES - 1, 0);

static int
class_num_parse(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line,
		const struct cfg_path *path, void *base)
{
	const struct rtr_qos_cfg *q = &c->cfg->qos;
	struct class_entry *ce = base;
	uint64_t u = 0;

	(void)line;
	if (cfg_get_uint(c, v, path, &class_num_range, &u) < 0)
		return -1;
	if (u >= q->classes)
		return class_range_error(c, v->line, path, (unsigned int)u);
	if (q->cls[u].set)
		return cfg_error(c->e, v->line, path, "duplicate class %u (first at line %d)",
				(unsigned int)u, q->cls[u].line);
	ce->class = (uint8_t)u;
	ce->k = q->cls[u];
	return 0;
}

static void
class_num_dump(struct cfg_buf *b, const struct rtr_cfg_field *f, const void *base, int indent)
{
	const struct class_entry *ce = base;

	/* Only dumped as a flow map, where it is always the first key. */
	(void)indent;
	cfg_buf_printf(b, "%s: %u", f->key, ce->class);
}

static int
class_entry_check(struct rtr_cfg_ctx *c, const struct cfg_node *node, int line,
		const struct cfg_path *path, void *base)
{
	struct cfg_path kpath = {path, "priority", 0};
	const struct cfg_node *pv = cfg_map_get(node, kpath.key);
	const struct class_entry *ce = base;
	unsigned int control = c->cfg->qos.classes - 1u;

	(void)line;
	if (ce->class == control && pv != NULL)
		return cfg_error(c->e, pv->line, &kpath,
				"the control class (%u) is always highest; do not set it", control);
	if (ce->k.hw_queue != RTR_HWQ_AUTO && ce->k.hw_queue >= c->cfg->qos.hw_queues) {
		kpath.key = "hw_queue";
		pv = cfg_map_get(node, kpath.key);
		return cfg_error(c->e, pv != NULL ? pv->line : line, &kpath,
				"must be < qos.hw_queues (%u), got %u", c->cfg->qos.hw_queues,
				ce->k.hw_queue);
	}
	return 0;
}

/* The table defaults are unused: absent keys keep the class's defaults. */
static const struct rtr_cfg_field class_fields[] = {
		RTR_CFG_FUNC("class", class_num_parse, class_num_dump, .flags = RTR_CFG_REQUIRED),
		RTR_CFG_UINT("priority", struct class_entry, k.priority, 0, 7, 0),
		RTR_CFG_UINT("weight", struct class_entry, k.weight, 1, 1000, 1),
		RTR_CFG_UINT("queue_kb", struct class_entry, k.queue_kb, 1, 1048576, 2048),
		RTR_CFG_MAP("ecn", struct class_entry, k.ecn, &class_ecn_map),
		RTR_CFG_UINT("hw_queue", struct class_entry, k.hw_queue, 0, RTR_MAX_HW_QUEUES - 1,
				RTR_HWQ_AUTO, .flags = RTR_CFG_OMIT_DEF),
};
static const struct rtr_cfg_map class_map = {
		class_fields, RTR_ARRAY_SIZE(class_fields), class_entry_check, .inherit = true};

/*
 * Fills qos.cls[] for every class: the defaults (priority = class, weight 1,
 * qos.queue_kb, qos.ecn), then the class_params entries over them. classes,
 * queue_kb and ecn come earlier in the table, so they are final here.
 */
static int
class_params_parse(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line,
		const struct cfg_path *path, void *base)
{
	struct cfg_path epath = {path, NULL, 0};
	struct rtr_qos_cfg *q = base;
	const struct cfg_node *e;
	struct rtr_class_cfg *k;
	struct class_entry ce;
	unsigned int i;

	(void)line;
	for (i = 0; i < q->classes; i++) {
		k = &q->cls[i];
		k->priority = (uint8_t)i;
		k->weight = 1;
		k->queue_kb = q->queue_kb;
		k->ecn = q->ecn;
		k->hw_queue = RTR_HWQ_AUTO;
		k->set = false;
		k->line = 0;
	}
	if (v == NULL)
		return 0;
	if (cfg_list_check(c, v, path, 0, RTR_MAX_CLASSES) < 0)
		return -1;
	for (i = 0, e = v->child; e != NULL; i++, e = e->next) {
		epath.index = i;
		/* Zeroed: padding copied into cls[] stays zero for memcmp. */
		memset(&ce, 0, sizeof(ce));
		if (cfg_validate_map(c, e, e->line, &epath, &class_map, &ce) < 0)
			return -1;
		k = &q->cls[ce.class];
		*k = ce.k;
		k->set = true;
		k->line = e->line;
	}
	return 0;
}

/* Classes given in the file as entries (all keys filled in), the others as
 * comments showing their defaults. The control class has no priority key.
 */
static void
class_params_dump(struct cfg_buf *b, const struct rtr_cfg_field *f, const void *base, int indent)
{
	const struct rtr_qos_cfg *q = base;
	struct class_entry ce;
	unsigned int i, n_set = 0;
	bool control;

	for (i = 0; i < q->classes; i++)
		n_set += q->cls[i].set ? 1 : 0;
	cfg_buf_printf(b, "%*s%s:%s\n", indent, "", f->key, n_set == 0 ? " []" : "");
	for (i = 0; i < q->classes; i++) {
		memset(&ce, 0, sizeof(ce));
		ce.class = (uint8_t)i;
		ce.k = q->cls[i];
		control = i + 1u == q->classes;
		cfg_buf_printf(b, "%*s%s- ", indent + 2, "", ce.k.set ? "" : "# ");
		cfg_dump_flow_skip(b, &class_map, &ce, control ? "priority" : NULL);
		if (!ce.k.set)
			cfg_buf_printf(b, " (default%s)",
					control ? "; control class, served first" : "");
		cfg_buf_printf(b, "\n");
	}
}

static const struct rtr_cfg_field trim_dscp_range =
		RTR_CFG_UINT("trim_dscp", struct rtr_qos_cfg, trim_dscp, 0, 63, 0);

static int
trim_dscp_parse(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line,
		const struct cfg_path *path, void *base)
{
	struct rtr_qos_cfg *q = base;
	uint64_t u = 0;

	(void)line;
	q->trim_dscp = -1;
	if (v == NULL)
		return 0;
	if (cfg_get_uint(c, v, path, &trim_dscp_range, &u) < 0)
		return -1;
	q->trim_dscp = (int16_t)u;
	return 0;
}

static void
trim_dscp_dump(struct cfg_buf *b, const struct rtr_cfg_field *f, const void *base, int indent)
{
	const struct rtr_qos_cfg *q = base;

	if (q->trim_dscp < 0)
		cfg_buf_printf(b, "%*s# %s: not set (trimmed packets keep their DSCP)\n", indent,
				"", f->key);
	else
		cfg_buf_printf(b, "%*s%s: %d\n", indent, "", f->key, q->trim_dscp);
}

static const struct rtr_cfg_field pfc_class_range =
		RTR_CFG_UINT("classes", struct rtr_pfc_cfg, class_mask, 0, RTR_MAX_CLASSES - 1, 0);

static int
pfc_classes_parse(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line,
		const struct cfg_path *path, void *base)
{
	struct cfg_path epath = {path, NULL, 0};
	struct rtr_pfc_cfg *pfc = base;
	const struct cfg_node *e;
	unsigned int i;
	uint64_t u = 0;

	(void)line;
	pfc->class_mask = 0;
	if (v == NULL)
		return 0;
	if (cfg_list_check(c, v, path, 0, RTR_MAX_CLASSES) < 0)
		return -1;
	for (i = 0, e = v->child; e != NULL; i++, e = e->next) {
		epath.index = i;
		if (cfg_get_uint(c, e, &epath, &pfc_class_range, &u) < 0)
			return -1;
		if (u >= c->cfg->qos.classes)
			return class_range_error(c, e->line, &epath, (unsigned int)u);
		if (pfc->class_mask & (1u << u))
			return cfg_error(c->e, e->line, &epath, "duplicate class %u",
					(unsigned int)u);
		pfc->class_mask = (uint8_t)(pfc->class_mask | 1u << u);
	}
	return 0;
}

static void
pfc_classes_dump(struct cfg_buf *b, const struct rtr_cfg_field *f, const void *base, int indent)
{
	const struct rtr_pfc_cfg *pfc = base;
	unsigned int i;
	bool first = true;

	cfg_buf_printf(b, "%*s%s: [", indent, "", f->key);
	for (i = 0; i < RTR_MAX_CLASSES; i++) {
		if (!(pfc->class_mask & (1u << i)))
			continue;
		cfg_buf_printf(b, "%s%u", first ? "" : ", ", i);
		first = false;
	}
	cfg_buf_printf(b, "]\n");
}

static int
pfc_check(struct rtr_cfg_ctx *c, const struct cfg_node *node, int line, const struct cfg_path *path,
		void *base)
{
	struct cfg_path kpath = {path, "classes", 0};
	struct rtr_pfc_cfg *pfc = base;

	if (pfc->mode != RTR_PFC_OFF && pfc->class_mask == 0)
		return cfg_error(c->e, rtr_cfg_rule_line(node, line, "classes", "mode", NULL),
				&kpath, "must list at least one class when mode is not off");
	if (pfc->xon_kb >= pfc->xoff_kb) {
		kpath.key = "xon_kb";
		return cfg_error(c->e, rtr_cfg_rule_line(node, line, "xon_kb", "xoff_kb", NULL),
				&kpath, "must be < xoff_kb (%u), got %u", pfc->xoff_kb,
				pfc->xon_kb);
	}
	return 0;
}

static const struct rtr_cfg_field pfc_fields[] = {
		RTR_CFG_ENUM("mode", struct rtr_pfc_cfg, mode, pfc_mode_names, RTR_PFC_OFF),
		/* After qos.classes, which the class numbers are checked against. */
		RTR_CFG_FUNC("classes", pfc_classes_parse, pfc_classes_dump),
		RTR_CFG_UINT("xoff_kb", struct rtr_pfc_cfg, xoff_kb, 1, 1048576, 256),
		RTR_CFG_UINT("xon_kb", struct rtr_pfc_cfg, xon_kb, 0, 1048576, 128),
		RTR_CFG_UINT("quanta", struct rtr_pfc_cfg, quanta, 1, 65535, 65535),
};
static const struct rtr_cfg_map pfc_map = {pfc_fields, RTR_ARRAY_SIZE(pfc_fields), pfc_check};

static const char *const buffer_mode_names[] = {"static", "shared", NULL};

static int
buffer_check(struct rtr_cfg_ctx *c, const struct cfg_node *node, int line,
		const struct cfg_path *path, void *base)
{
	struct cfg_path kpath = {path, "headroom_kb", 0};
	struct rtr_buffer_cfg *b = base;
	uint64_t hdrm = (uint64_t)b->headroom_kb * c->cfg->n_ports;

	/* With PFC the ports' headroom is carved out of the pool (qos.pfc is
	 * read before qos.buffer): some must be left. */
	if (b->mode != RTR_BUFFER_SHARED || c->cfg->qos.pfc.mode == RTR_PFC_OFF)
		return 0;
	if (hdrm >= b->size_kb)
		return cfg_error(c->e,
				rtr_cfg_rule_line(node, line, "headroom_kb", "size_kb", NULL),
				&kpath, "headroom_kb x %u ports (%llu) must be < size_kb (%u)",
				c->cfg->n_ports, (unsigned long long)hdrm, b->size_kb);
	return 0;
}

static const struct rtr_cfg_field buffer_fields[] = {
		RTR_CFG_ENUM("mode", struct rtr_buffer_cfg, mode, buffer_mode_names,
				RTR_BUFFER_STATIC),
		RTR_CFG_UINT("size_kb", struct rtr_buffer_cfg, size_kb, 64, 1048576, 9216),
		RTR_CFG_DOUBLE("alpha", struct rtr_buffer_cfg, alpha, 0, 64, 1,
				.flags = RTR_CFG_MIN_EXCL),
		RTR_CFG_UINT("headroom_kb", struct rtr_buffer_cfg, headroom_kb, 0, 65536, 32),
		RTR_CFG_UINT("pfc_divisor", struct rtr_buffer_cfg, pfc_divisor, 1, 1024, 16,
				.flags = RTR_CFG_POW2),
		RTR_CFG_UINT("xon_offset_kb", struct rtr_buffer_cfg, xon_offset_kb, 0, 65536, 3),
		RTR_CFG_UINT("cell_bytes", struct rtr_buffer_cfg, cell_bytes, 0, 16384, 0),
};
static const struct rtr_cfg_map buffer_map = {
		buffer_fields, RTR_ARRAY_SIZE(buffer_fields), buffer_check};

static const struct rtr_cfg_field qos_fields[] = {
		/* classes first: dscp, pcp, class_params and pfc are checked against it. */
		RTR_CFG_UINT("classes", struct rtr_qos_cfg, classes, 1, RTR_MAX_CLASSES,
				RTR_MAX_CLASSES),
		RTR_CFG_ENUM("trust", struct rtr_qos_cfg, trust_pcp, trust_names, 0),
		RTR_CFG_FUNC("dscp", class_list_parse, class_list_dump),
		RTR_CFG_FUNC("pcp", class_list_parse, class_list_dump),
		RTR_CFG_UINT("queue_kb", struct rtr_qos_cfg, queue_kb, 1, 1048576, 2048),
		RTR_CFG_MAP("ecn", struct rtr_qos_cfg, ecn, &ecn_map),
		/* Before class_params: their hw_queue is checked against it. */
		RTR_CFG_UINT("hw_queues", struct rtr_qos_cfg, hw_queues, 1, RTR_MAX_HW_QUEUES, 1),
		/* After queue_kb and ecn: the per-class defaults come from them. */
		RTR_CFG_FUNC("class_params", class_params_parse, class_params_dump),
		RTR_CFG_BOOL("trim", struct rtr_qos_cfg, trim, false),
		RTR_CFG_ENUM("trim_lengths", struct rtr_qos_cfg, trim_update_lengths,
				trim_lengths_names, 0),
		RTR_CFG_FUNC("trim_dscp", trim_dscp_parse, trim_dscp_dump),
		RTR_CFG_MAP("pfc", struct rtr_qos_cfg, pfc, &pfc_map),
		RTR_CFG_MAP("buffer", struct rtr_qos_cfg, buffer, &buffer_map),
};
static const struct rtr_cfg_map qos_map = {qos_fields, RTR_ARRAY_SIZE(qos_fields), NULL};

/* ---- lab impairments: the LB control loop, stalls (doc/faults.md) ----- */

#define CTRL_LOSS(k) RTR_CFG_DOUBLE(#k, struct rtr_ctrl_loss_cfg, k, 0, 1, 0)
static const struct rtr_cfg_field ctrl_loss_fields[] = {
		CTRL_LOSS(rtt_reply),
		CTRL_LOSS(clear),
		CTRL_LOSS(notify),
		CTRL_LOSS(tail),
		CTRL_LOSS(advert),
};
static const struct rtr_cfg_map ctrl_loss_map = {
		ctrl_loss_fields, RTR_ARRAY_SIZE(ctrl_loss_fields), NULL};

static const struct rtr_cfg_field faults_fields[] = {
		RTR_CFG_UINT("seed", struct rtr_faults_cfg, seed, 0, UINT64_MAX, 1),
		RTR_CFG_MAP("ctrl_loss", struct rtr_faults_cfg, ctrl_loss, &ctrl_loss_map),
		/* A worker stalls stall_us every stall_every loop passes, as
		 * if preempted (doc/faults.md "Stalled workers"). */
		RTR_CFG_UINT("stall_us", struct rtr_faults_cfg, stall_us, 0, 1000000, 0),
		RTR_CFG_UINT("stall_every", struct rtr_faults_cfg, stall_every, 1, UINT32_MAX,
				1000),
};
static const struct rtr_cfg_map faults_map = {faults_fields, RTR_ARRAY_SIZE(faults_fields), NULL};

/* ---- the FPM server (doc/routing.md) ----------------------------------- */

static int
fpm_addr_parse(struct rtr_cfg_ctx *c, const struct cfg_node *v, int line,
		const struct cfg_path *path, void *base)
{
	struct rtr_fpm_cfg *f = base;

	(void)line;
	memset(&f->address, 0, sizeof(f->address));
	if (v == NULL)
		return 0;
	return cfg_get_addr(c, v, path, false, &f->address);
}

static void
fpm_addr_dump(struct cfg_buf *b, const struct rtr_cfg_field *f, const void *base, int indent)
{
	const struct rtr_fpm_cfg *fc = base;

	if (fc->address.family == 0)
		return;
	cfg_buf_printf(b, "%*s%s: ", indent, "", f->key);
	cfg_dump_addr(b, &fc->address, false);
	cfg_buf_printf(b, "\n");
}

static const struct rtr_cfg_field fpm_fields[] = {
		RTR_CFG_FUNC("address", fpm_addr_parse, fpm_addr_dump),
		RTR_CFG_UINT("port", struct rtr_fpm_cfg, port, 1, 65535, 2620),
		RTR_CFG_STRING("netns", struct rtr_fpm_cfg, netns, ""),
		RTR_CFG_UINT("stale_ms", struct rtr_fpm_cfg, stale_ms, 0, 86400000, 60000),
		RTR_CFG_UINT("table", struct rtr_fpm_cfg, table, 1, UINT32_MAX, 254),
};
static const struct rtr_cfg_map fpm_map = {fpm_fields, RTR_ARRAY_SIZE(fpm_fields), NULL};

/* ---- the root ---------------------------------------------------------- */

/* The sections lib/config owns; the LB modes' go between qos and faults. */
static const struct rtr_cfg_field root_head[] = {
		RTR_CFG_MAP("switch", struct rtr_config, sw, &switch_map),
		RTR_CFG_FUNC("ports", ports_parse, ports_dump, .flags = RTR_CFG_REQUIRED),
		RTR_CFG_FUNC("routes", routes_parse, routes_dump),
		RTR_CFG_MAP("qos", struct rtr_config, qos, &qos_map),
};
static const struct rtr_cfg_field root_tail[] = {
		RTR_CFG_MAP("faults", struct rtr_config, faults, &faults_map),
		RTR_CFG_MAP("fpm", struct rtr_config, fpm, &fpm_map),
};

#define ROOT_MAX (RTR_ARRAY_SIZE(root_head) + RTR_LB_MODES_MAX + RTR_ARRAY_SIZE(root_tail))

/* The root's table: ours, with the LB sections in between. */
static void
root_map_of(struct rtr_cfg_field fields[ROOT_MAX], struct rtr_cfg_map *m)
{
	unsigned int i, n = 0;

	for (i = 0; i < RTR_ARRAY_SIZE(root_head); i++)
		fields[n++] = root_head[i];
	for (i = 0; i < n_lb_modes; i++) {
		if (lb_sections[i] == NULL)
			continue;
		fields[n++] = (struct rtr_cfg_field){
				.key = lb_names[i],
				.type = RTR_CFG_T_MAP,
				.off = offsetof(struct rtr_config, lb_cfg[0]) +
				       i * sizeof(((struct rtr_config *)NULL)->lb_cfg[0]),
				.size = lb_sections[i]->size,
				.map = &lb_sections[i]->map,
		};
	}
	for (i = 0; i < RTR_ARRAY_SIZE(root_tail); i++)
		fields[n++] = root_tail[i];
	*m = (struct rtr_cfg_map){.fields = fields, .n_fields = n};
}

int
cfg_validate(const struct cfg_node *root, struct rtr_config *cfg, const struct cfg_err *e)
{
	static const struct cfg_path root_path = {NULL, "(root)", 0};
	struct rtr_cfg_ctx c = {e, cfg};
	struct rtr_cfg_field fields[ROOT_MAX];
	struct rtr_cfg_map root_map;

	/* switch.lb has no names without them: a program that loads configs
	 * must link the LB library whole (its registry registers the modes). */
	if (n_lb_modes == 0)
		return cfg_error(e, 0, NULL, "no LB modes registered (link lib/lb whole)");
	if (root->type != CFG_MAP)
		return cfg_error(e, root->line, &root_path, "expected a map, got %s",
				cfg_node_describe(root));
	root_map_of(fields, &root_map);
	return cfg_validate_map(&c, root, root->line, NULL, &root_map, cfg);
}

void
cfg_dump(const struct rtr_config *cfg, struct cfg_buf *b)
{
	struct rtr_cfg_field fields[ROOT_MAX];
	struct rtr_cfg_map root_map;

	root_map_of(fields, &root_map);
	cfg_dump_fields(b, &root_map, cfg, 0, false);
}
