/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Unit test of lib/config. argv[1] is the conf/ directory: every example
 * must load in both formats to the same config and the same canonical dump,
 * and the dump must read back to the same config. The rest checks defaults,
 * accepted spellings and every error class, in both formats, down to the
 * exact one-line message.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtr_config.h"
#include "rtr_lb.h"
#include "rtr_lb_registry.h"
#include "rtr_test.h"
#include "caver/caver_config.h"
#include "drill/drill_config.h"
#include "conga/conga_config.h"
#include "letflow/letflow_config.h"
#include "conweave/conweave_config.h"
#include "seqbalance/seqbalance_config.h"
#include "core/rtr_lb_wire.h"

#define DUMP_LEN (1u << 20)

static char dump_a[DUMP_LEN], dump_b[DUMP_LEN], dump_c[DUMP_LEN];

/* Lines and the file name legitimately differ between equal configs. */
static void
normalize(struct rtr_config *c)
{
	unsigned int i, j;

	memset(c->path, 0, sizeof(c->path));
	for (i = 0; i < c->n_ports; i++) {
		c->ports[i].line = 0;
		c->ports[i].mtu_line = 0;
	}
	for (i = 0; i < RTR_MAX_CLASSES; i++)
		c->qos.cls[i].line = 0;
	for (i = 0; i < c->n_routes; i++) {
		c->routes[i].line = 0;
		for (j = 0; j < RTR_MAX_PATHS; j++)
			c->routes[i].paths[j].line = 0;
	}
}

static bool
config_equal(struct rtr_config *a, struct rtr_config *b)
{
	static struct rtr_config ca, cb;

	normalize(a);
	normalize(b);
	if (a->n_routes != b->n_routes)
		return false;
	if (a->n_routes > 0 && memcmp(a->routes, b->routes, a->n_routes * sizeof(*a->routes)) != 0)
		return false;
	memcpy(&ca, a, sizeof(ca));
	memcpy(&cb, b, sizeof(cb));
	ca.routes = NULL;
	cb.routes = NULL;
	return memcmp(&ca, &cb, sizeof(ca)) == 0;
}

static int
load_str(const char *fmt, const char *text, struct rtr_config *cfg, char *err, size_t errlen)
{
	const char *name = strcmp(fmt, "yaml") == 0 ? "t.yaml" : "t.cfg";

	return rtr_config_load_buf(name, fmt, text, strlen(text), cfg, err, errlen);
}

/* Loads text, which must fail with exactly the message want. */
static void
expect_error(int at, const char *fmt, const char *text, const char *want)
{
	static struct rtr_config cfg;
	char err[512];
	int rc;

	memset(err, 'x', sizeof(err));
	rc = load_str(fmt, text, &cfg, err, sizeof(err));
	CHECK(rc == -1, "case at line %d: loaded, expected \"%s\"", at, want);
	CHECK(strcmp(err, want) == 0, "case at line %d:\n   got  \"%s\"\n   want \"%s\"", at, err,
			want);
	CHECK(cfg.routes == NULL && cfg.n_routes == 0 && cfg.n_ports == 0,
			"case at line %d: config not cleared", at);
	rtr_config_free(&cfg);
}

#define ERR(fmt, text, want) expect_error(__LINE__, fmt, text, want)
#define ERR_Y(text, want)    ERR("yaml", text, want)
#define ERR_C(text, want)    ERR("cfg", text, want)

static void
load_ok(int at, const char *fmt, const char *text, struct rtr_config *cfg)
{
	char err[512] = "";
	int rc = load_str(fmt, text, cfg, err, sizeof(err));

	CHECK(rc == 0, "case at line %d: %s", at, err);
}

#define OK(fmt, text, cfg) load_ok(__LINE__, fmt, text, cfg)

/* ---- examples ----------------------------------------------------------- */

static void
test_example(const char *dir, const char *name)
{
	static struct rtr_config y, c, r;
	char path[1024], err[512];
	int n, rc;

	snprintf(path, sizeof(path), "%s/%s.yaml", dir, name);
	rc = rtr_config_load(path, &y, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
	snprintf(path, sizeof(path), "%s/%s.cfg", dir, name);
	rc |= rtr_config_load(path, &c, err, sizeof(err));
	CHECK(rc == 0, "%s", err);
	if (rc != 0)
		return;

	n = rtr_config_dump(&y, dump_a, sizeof(dump_a));
	CHECK(n > 0 && (size_t)n < sizeof(dump_a), "%s: dump length %d", name, n);
	CHECK_EQ(rtr_config_dump(&c, dump_b, sizeof(dump_b)), n);
	CHECK(strcmp(dump_a, dump_b) == 0, "%s: YAML and libconfig dumps differ", name);

	/* The dump is itself a config that reads back to the same thing. */
	CHECK(rtr_config_load_buf("dump.yaml", "yaml", dump_a, (size_t)n, &r, err, sizeof(err)) ==
					0,
			"%s: dump does not reload: %s", name, err);
	CHECK_EQ(rtr_config_dump(&r, dump_c, sizeof(dump_c)), n);
	CHECK(strcmp(dump_a, dump_c) == 0, "%s: dump is not stable", name);

	CHECK(config_equal(&y, &c), "%s: .yaml and .cfg load to different configs", name);
	CHECK(config_equal(&y, &r), "%s: the reloaded dump differs", name);

	/* A dump cut short reports the full length, like snprintf. */
	CHECK_EQ(rtr_config_dump(&y, dump_c, 10), n);
	CHECK_EQ(strlen(dump_c), 9);
	CHECK_EQ(rtr_config_dump(&y, NULL, 0), n);

	rtr_config_free(&y);
	rtr_config_free(&c);
	rtr_config_free(&r);
}

static void
test_demo_tor(const char *dir)
{
	static const uint8_t mac0[6] = {2, 0, 0, 0, 1, 0}, nh2[6] = {2, 0, 0, 0, 0xbb, 2};
	static struct rtr_config cfg;
	const struct rtr_route_cfg *r;
	char path[1024], err[512];
	struct in_addr a;

	snprintf(path, sizeof(path), "%s/demo-tor.yaml", dir);
	if (rtr_config_load(path, &cfg, err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		return;
	}
	CHECK_STR(cfg.path, path);
	CHECK_STR(cfg.sw.name, "tor1");
	CHECK_EQ(cfg.sw.role, RTR_ROLE_TOR);
	CHECK_EQ(cfg.sw.id, 1);
	CHECK_EQ(cfg.sw.lb, RTR_LB_CONWEAVE);
	CHECK_EQ(cfg.n_ports, 5);
	CHECK_EQ(cfg.ports[0].role, RTR_PORT_HOST);
	CHECK(cfg.ports[0].mac_set && memcmp(cfg.ports[0].mac, mac0, 6) == 0);
	CHECK(!cfg.ports[0].l2_filter);
	CHECK(cfg.ports[1].l2_filter);
	CHECK_EQ(cfg.ports[4].role, RTR_PORT_FABRIC);
	CHECK_EQ(cfg.ports[0].n_addrs, 1);
	CHECK_EQ(cfg.ports[0].addrs[0].family, AF_INET);
	CHECK_EQ(cfg.ports[0].addrs[0].depth, 16);
	inet_pton(AF_INET, "10.1.0.254", &a);
	CHECK(cfg.ports[0].addrs[0].v4.s_addr == a.s_addr);
	CHECK(rtr_config_port(&cfg, 3) == &cfg.ports[3]);
	CHECK(rtr_config_port(&cfg, 9) == NULL);

	CHECK_EQ(cfg.n_routes, 4);
	if (cfg.n_routes != 4) {
		rtr_config_free(&cfg);
		return;
	}
	r = &cfg.routes[0];
	CHECK(!r->is_group && r->n_paths == 1 && r->paths[0].port == 0 && r->paths[0].mac_set);
	CHECK_EQ(r->prefix.depth, 32);
	CHECK_EQ(r->line, 29);
	/* The capture (192.168.70.4 <-> .6) goes out of the uplink group. */
	r = &cfg.routes[2];
	inet_pton(AF_INET, "192.168.70.0", &a);
	CHECK(r->prefix.family == AF_INET && r->prefix.depth == 24 &&
			r->prefix.v4.s_addr == a.s_addr);
	CHECK(r->is_group && r->n_paths == 4);
	CHECK_EQ(r->paths[1].port, 2);
	CHECK(r->paths[1].mac_set && memcmp(r->paths[1].mac, nh2, 6) == 0);
	CHECK_EQ(r->paths[1].ip.family, 0);
	CHECK_EQ(r->paths[3].line, 37);
	CHECK_EQ(cfg.routes[3].n_paths, 4);
	/* Sized for --no-huge -m 1024 (tools/demo.sh). */
	CHECK_EQ(rtr_conweave_config(&cfg)->flow_table_size, 65536);
	CHECK_EQ(rtr_conweave_config(&cfg)->reorder_queues_per_port, 64);
	CHECK_EQ(rtr_conweave_config(&cfg)->reorder_queue_depth, 1023);
	rtr_config_free(&cfg);
}

static void
test_tor_100g(const char *dir)
{
	static struct rtr_config cfg;
	const struct rtr_route_cfg *r;
	char path[1024], err[512];
	struct in6_addr a6;
	struct in_addr a;

	snprintf(path, sizeof(path), "%s/tor-100g.cfg", dir);
	if (rtr_config_load(path, &cfg, err, sizeof(err)) != 0) {
		CHECK(0, "%s", err);
		return;
	}
	CHECK_EQ(cfg.sw.lb, RTR_LB_CONWEAVE);
	CHECK_EQ(cfg.n_routes, 6);
	if (cfg.n_routes != 6) {
		rtr_config_free(&cfg);
		return;
	}
	CHECK_EQ(cfg.ports[0].n_addrs, 2);
	CHECK_EQ(cfg.ports[0].addrs[1].family, AF_INET6);
	/* A host route without next hop resolves its own address. */
	r = &cfg.routes[0];
	CHECK(!r->paths[0].mac_set && r->paths[0].ip.family == AF_INET);
	CHECK(r->paths[0].ip.v4.s_addr == r->prefix.v4.s_addr);
	r = &cfg.routes[5];
	inet_pton(AF_INET6, "fd00:255:2::1", &a6);
	CHECK(r->prefix.family == AF_INET6 && r->prefix.depth == 16 && r->is_group);
	CHECK(r->paths[1].ip.family == AF_INET6 && memcmp(&r->paths[1].ip.v6, &a6, 16) == 0);
	inet_pton(AF_INET, "10.255.3.1", &a);
	CHECK(cfg.routes[4].paths[2].ip.v4.s_addr == a.s_addr);
	CHECK_EQ(cfg.qos.n_dscp, 2);
	CHECK_EQ(cfg.qos.dscp[1].dscp, 48);
	CHECK_EQ(cfg.qos.dscp[1].class, 6);
	CHECK_EQ(rtr_conweave_config(&cfg)->theta_inactive_us, 1000);
	CHECK_EQ(rtr_conweave_config(&cfg)->reorder_queues_per_port, 4096);
	CHECK_EQ(rtr_conweave_config(&cfg)->dst_prefix_len, 16);
	CHECK_EQ(rtr_conweave_config(&cfg)->dst_prefix_len6, 32);
	CHECK_EQ(rtr_seqbalance_config(&cfg)->dst_prefix_len, 24); /* not set: the default */
	/* class 3 overrides queue_kb and two ecn keys, the rest is inherited. */
	CHECK(cfg.qos.cls[3].set && !cfg.qos.cls[2].set);
	CHECK_EQ(cfg.qos.cls[3].priority, 3);
	CHECK_EQ(cfg.qos.cls[3].weight, 1);
	CHECK_EQ(cfg.qos.cls[3].queue_kb, 2048);
	CHECK(cfg.qos.cls[3].ecn.enabled && cfg.qos.cls[3].ecn.pmax == 0.2);
	CHECK_EQ(cfg.qos.cls[3].ecn.kmin_kb, 50);
	CHECK_EQ(cfg.qos.cls[3].ecn.kmax_kb, 200);
	CHECK_EQ(cfg.qos.cls[2].queue_kb, 4096);
	CHECK_EQ(cfg.qos.pfc.mode, RTR_PFC_OFF);
	CHECK_EQ(cfg.qos.pfc.class_mask, 0);
	rtr_config_free(&cfg);
}

/* ---- defaults and accepted spellings ------------------------------------ */

static void
test_defaults(void)
{
	static struct rtr_config cfg, old;
	char err[512] = "";
	const struct rtr_port_cfg *p;
	const struct rtr_class_cfg *k;
	unsigned int i;

	OK("yaml", "ports: [{port: 3, role: fabric}]\n", &cfg);
	CHECK_STR(cfg.sw.name, "rocetor");
	CHECK_EQ(cfg.sw.role, RTR_ROLE_TOR);
	CHECK_EQ(cfg.sw.id, 1);
	CHECK_EQ(cfg.sw.lb, RTR_LB_ECMP);
	CHECK_EQ(cfg.sw.seed, 2654435761u);
	CHECK(!cfg.sw.seed_set);
	CHECK_EQ(cfg.sw.idle_sleep_us, 0);
	CHECK_EQ(cfg.sw.idle_threshold, 1000);
	CHECK_EQ(cfg.sw.neigh_timeout_s, 60);
	CHECK_EQ(cfg.sw.mbufs, 0);
	/* switch.drain_us is read by nothing: still accepted (old configs),
	 * no longer stored or dumped. */
	CHECK(load_str("yaml", "switch: {drain_us: 50}\nports: [{port: 3, role: fabric}]\n", &old,
			      err, sizeof(err)) == 0 &&
					rtr_config_dump(&old, dump_a, sizeof(dump_a)) > 0 &&
					strstr(dump_a, "drain_us") == NULL,
			"%s", err);
	rtr_config_free(&old);
	CHECK_EQ(cfg.n_ports, 1);
	p = &cfg.ports[0];
	CHECK_EQ(p->port, 3);
	CHECK_EQ(p->role, RTR_PORT_FABRIC);
	CHECK(!p->mac_set);
	CHECK_EQ(p->speed_gbps, 0);
	CHECK(p->shape_gbps == 0.0);
	CHECK_EQ(p->delay_us, 0);
	CHECK(p->loss == 0.0);
	CHECK_EQ(p->loss_seed, 1);
	CHECK(!p->admin_down);
	CHECK_EQ(p->rx_queues, 0);
	CHECK_EQ(p->tx_queues, 0);
	CHECK_EQ(p->mtu, 0);
	CHECK(p->nic_ring_kb == RTR_NIC_RING_AUTO);
	CHECK_EQ(p->nic_ring_desc, 0);
	CHECK(p->l2_filter);
	CHECK_EQ(p->flow_rate, 0);
	CHECK_EQ(p->flow_burst, 64);
	CHECK(p->flow_share == 0.0);
	CHECK(rtr_config_flow_share(&cfg, p) == 1.0);
	CHECK_EQ(p->n_addrs, 0);
	CHECK_EQ(p->line, 1);
	CHECK_EQ(cfg.n_routes, 0);
	CHECK(cfg.routes == NULL);
	CHECK_EQ(cfg.qos.classes, 8);
	CHECK_EQ(cfg.qos.n_dscp, 0);
	CHECK_EQ(cfg.qos.queue_kb, 2048);
	CHECK_EQ(cfg.qos.ecn.kmin_kb, 100);
	CHECK_EQ(cfg.qos.ecn.kmax_kb, 400);
	CHECK(cfg.qos.ecn.pmax == 0.2);
	CHECK(cfg.qos.ecn.enabled);
	CHECK(!cfg.qos.trust_pcp);
	CHECK_EQ(cfg.qos.n_pcp, 0);
	for (i = 0; i < RTR_MAX_CLASSES; i++) {
		k = &cfg.qos.cls[i];
		CHECK_EQ(k->priority, i);
		CHECK_EQ(k->weight, 1);
		CHECK_EQ(k->queue_kb, 2048);
		CHECK(k->ecn.enabled && k->ecn.kmin_kb == 100 && k->ecn.kmax_kb == 400 &&
				k->ecn.pmax == 0.2);
		CHECK(!k->set && k->line == 0);
	}
	CHECK(!cfg.qos.trim);
	CHECK(!cfg.qos.trim_update_lengths);
	CHECK_EQ(cfg.qos.trim_dscp, -1);
	CHECK_EQ(cfg.qos.pfc.mode, RTR_PFC_OFF);
	CHECK_EQ(cfg.qos.pfc.class_mask, 0);
	CHECK_EQ(cfg.qos.pfc.xoff_kb, 256);
	CHECK_EQ(cfg.qos.pfc.xon_kb, 128);
	CHECK_EQ(cfg.qos.pfc.quanta, 65535);
	CHECK_EQ(p->shape_burst_kb, 16);
	CHECK_EQ(rtr_conweave_config(&cfg)->base_rtt_us, 4);
	CHECK_EQ(rtr_conweave_config(&cfg)->theta_reply_us, 4);
	CHECK_EQ(rtr_conweave_config(&cfg)->theta_path_busy_us, 16);
	CHECK_EQ(rtr_conweave_config(&cfg)->theta_inactive_us, 300);
	CHECK_EQ(rtr_conweave_config(&cfg)->resume_extra_us, 16);
	CHECK_EQ(rtr_conweave_config(&cfg)->resume_default_us, 200);
	CHECK_EQ(rtr_conweave_config(&cfg)->reorder_queues_per_port, 1024);
	CHECK_EQ(rtr_conweave_config(&cfg)->reorder_queue_depth, 2048);
	CHECK_EQ(rtr_conweave_config(&cfg)->flow_table_size, 1048576);
	CHECK_EQ(rtr_seqbalance_config(&cfg)->phi_us, 32);
	CHECK_EQ(rtr_seqbalance_config(&cfg)->subflow_idle_us, 1000);
	CHECK_EQ(rtr_seqbalance_config(&cfg)->flow_table_size, 1048576);
	CHECK_EQ(rtr_conweave_config(&cfg)->dst_prefix_len, 24);
	CHECK_EQ(rtr_conweave_config(&cfg)->dst_prefix_len6, 64);
	CHECK_EQ(rtr_seqbalance_config(&cfg)->dst_prefix_len, 24);
	CHECK_EQ(rtr_seqbalance_config(&cfg)->dst_prefix_len6, 64);
	CHECK_EQ(rtr_caver_config(&cfg)->dre_period_us, 50);
	CHECK(rtr_caver_config(&cfg)->alpha == 0.2);
	CHECK_EQ(rtr_caver_config(&cfg)->q, 8);
	CHECK_EQ(rtr_caver_config(&cfg)->aging_us, 500);
	CHECK_EQ(rtr_caver_config(&cfg)->flow_idle_us, 1000);
	CHECK_EQ(rtr_caver_config(&cfg)->flow_table_size, 1048576);
	/* The ConWeave paper's settings: a 100 us flowlet gap, DRILL(2,1). */
	CHECK_EQ(rtr_letflow_config(&cfg)->flowlet_gap_us, 100);
	CHECK_EQ(rtr_letflow_config(&cfg)->flow_table_size, 1048576);
	CHECK_EQ(rtr_drill_config(&cfg)->samples, 2);
	CHECK_EQ(rtr_drill_config(&cfg)->memory, 1);
	/* CONGA: the ConWeave artifact's settings (doc/conga.md). */
	CHECK_EQ(rtr_conga_config(&cfg)->flowlet_gap_us, 100);
	CHECK_EQ(rtr_conga_config(&cfg)->dre_period_us, 50);
	CHECK(rtr_conga_config(&cfg)->dre_alpha == 0.2);
	CHECK_EQ(rtr_conga_config(&cfg)->quantize_bits, 3);
	CHECK_EQ(rtr_conga_config(&cfg)->aging_us, 500);
	CHECK_EQ(rtr_conga_config(&cfg)->flow_table_size, 65536);
	CHECK_EQ(rtr_conga_config(&cfg)->leaf_slots, 1024);
	CHECK_EQ(rtr_conga_config(&cfg)->dst_prefix_len, 24);
	CHECK_EQ(rtr_conga_config(&cfg)->dst_prefix_len6, 64);
	rtr_config_free(&cfg);

	/* The derived seed follows the id; an explicit one, even 0, is kept. */
	OK("cfg", "switch = { id = 2; };\nports = ( { port = 0; role = \"host\"; } );\n", &cfg);
	CHECK_EQ(cfg.sw.seed, 1013904226u);
	CHECK(!cfg.sw.seed_set);
	OK("cfg", "switch = { seed = 0; };\nports = ( { port = 0; role = \"host\"; } );\n", &cfg);
	CHECK_EQ(cfg.sw.seed, 0);
	CHECK(cfg.sw.seed_set);
}

static void
test_spellings(void)
{
	static const uint8_t mac[6] = {2, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
	static struct rtr_config y, c, r;
	const struct rtr_port_cfg *p;
	char err[512];
	int n;

	OK("yaml",
			"switch: {name: \"my \\\"tor\\\"\", id: 0x10, seed: 4294967295, lb: spray, "
			"mbufs: 1024}\n"
			"ports:\n"
			"  - port: 31\n"
			"    role: host\n"
			"    admin_down: yes\n"
			"    l2_filter: off\n"
			"    loss: 1\n"
			"    shape_gbps: 12.5\n"
			"    delay_us: 1000000\n"
			"    loss_seed: 18446744073709551615\n"
			"    mac: 02:AA:bb:cc:dd:ee\n"
			"    mtu: 68\n"
			"    ip: \"fd00::1/64\"\n"
			"qos: {classes: 1, trim: True, ecn: {pmax: 1e-1}}\n"
			"caver: {alpha: 1}\n",
			&y);
	CHECK_STR(y.sw.name, "my \"tor\"");
	CHECK_EQ(y.sw.id, 16);
	CHECK_EQ(y.sw.seed, 4294967295u);
	CHECK(y.sw.seed_set);
	CHECK_EQ(y.sw.lb, RTR_LB_SPRAY);
	p = &y.ports[0];
	CHECK_EQ(p->port, 31);
	CHECK(p->admin_down && !p->l2_filter);
	CHECK(p->loss == 1.0 && p->shape_gbps == 12.5);
	CHECK(p->loss_seed == UINT64_MAX);
	CHECK(p->mac_set && memcmp(p->mac, mac, 6) == 0);
	CHECK_EQ(p->mtu, 68);
	CHECK(p->n_addrs == 1 && p->addrs[0].family == AF_INET6 && p->addrs[0].depth == 64);
	CHECK(y.qos.classes == 1 && y.qos.trim && y.qos.ecn.pmax == 0.1);
	CHECK(rtr_caver_config(&y)->alpha == 1.0);

	/* Every non-default value survives the dump. */
	n = rtr_config_dump(&y, dump_a, sizeof(dump_a));
	CHECK(rtr_config_load_buf("d.yaml", "yaml", dump_a, (size_t)n, &r, err, sizeof(err)) == 0,
			"%s", err);
	CHECK(config_equal(&y, &r));

	/* The same in libconfig: L for 64-bit, integers where floats go.
	 * libconfig cannot say 2^64-1: its hex literal is signed.
	 */
	ERR_C("ports = ( { port = 0; role = \"host\"; loss_seed = 0xFFFFFFFFFFFFFFFFL; } );\n",
			"t.cfg:1: syntax: integer 0xFFFFFFFFFFFFFFFF does not fit in a signed "
			"64-bit "
			"libconfig integer");
	OK("cfg",
			"switch = { name = \"my \\\"tor\\\"\"; id = 0x10; seed = 4294967295L; lb = "
			"\"spray\";"
			" mbufs = 1024; };\n"
			"ports = ( { port = 31; role = \"host\"; admin_down = true; l2_filter = "
			"false;"
			" loss = 1; shape_gbps = 12.5; delay_us = 1000000; loss_seed = "
			"0x7FFFFFFFFFFFFFFFL;"
			" mac = \"02:AA:bb:cc:dd:ee\"; mtu = 68; ip = [ \"fd00::1/64\" ]; } );\n"
			"qos = { classes = 1; trim = true; ecn = { pmax = 1e-1; }; };\n"
			"caver = { alpha = 1; };\n",
			&c);
	y.ports[0].loss_seed = INT64_MAX;
	CHECK(config_equal(&y, &c));

	rtr_config_free(&y);
	rtr_config_free(&c);
	rtr_config_free(&r);

	/* "---" alone and a comment-only file are empty configs. */
	ERR_Y("---\n", "t.yaml:1: ports: required key missing");
	ERR_Y("# nothing\n", "t.yaml:1: ports: required key missing");
}

/* ---- errors --------------------------------------------------------------- */

/* Lines 1-4 (YAML) and 1-5 (libconfig): three ports, the first two with
 * IPv4 addresses. Cases append from line 5 and 6.
 */
#define YP                                                      \
	"ports:\n"                                              \
	"  - {port: 0, role: host, ip: \"10.1.0.254/16\"}\n"    \
	"  - {port: 1, role: fabric, ip: \"192.168.1.1/30\"}\n" \
	"  - {port: 2, role: fabric}\n"
#define CP                                                               \
	"ports = (\n"                                                    \
	"  { port = 0; role = \"host\"; ip = \"10.1.0.254/16\"; },\n"    \
	"  { port = 1; role = \"fabric\"; ip = \"192.168.1.1/30\"; },\n" \
	"  { port = 2; role = \"fabric\"; }\n"                           \
	");\n"
#define MAC1 "\"02:00:00:00:bb:01\""
#define MAC2 "\"02:00:00:00:bb:02\""

static void
test_unknown_keys(void)
{
	ERR_Y(YP "bogus: 1\n", "t.yaml:5: bogus: unknown key");
	ERR_C(CP "bogus = 1;\n", "t.cfg:6: bogus: unknown key");
	ERR_Y(YP "switch:\n  name: a\n  colour: red\n", "t.yaml:7: switch.colour: unknown key");
	ERR_C(CP "switch = {\n  name = \"a\";\n  colour = \"red\";\n};\n",
			"t.cfg:8: switch.colour: unknown key");
	ERR_Y("ports:\n  - {port: 0, role: host}\n  - {port: 1, role: host, speed: 5}\n",
			"t.yaml:3: ports[1].speed: unknown key");
	ERR_C("ports = (\n  { port = 0; role = \"host\"; },\n"
	      "  { port = 1; role = \"host\"; speed = 5; }\n);\n",
			"t.cfg:3: ports[1].speed: unknown key");
	ERR_Y(YP "routes:\n  - {prefix: 10.1.0.1/32, port: 0, metric: 5}\n",
			"t.yaml:6: routes[0].metric: unknown key");
	ERR_C(CP "routes = ( { prefix = \"10.1.0.1/32\"; port = 0; metric = 5; } );\n",
			"t.cfg:6: routes[0].metric: unknown key");
	ERR_Y(YP "routes:\n"
		 "  - prefix: 10.2.0.0/16\n"
		 "    paths:\n"
		 "      - {port: 1, nexthop_mac: " MAC1 "}\n"
		 "      - {port: 2, nexthop_mac: " MAC2 ", weight: 2}\n",
			"t.yaml:9: routes[0].paths[1].weight: unknown key");
	ERR_C(CP "routes = (\n"
		 "  { prefix = \"10.2.0.0/16\";\n"
		 "    paths = (\n"
		 "      { port = 1; nexthop_mac = " MAC1 "; },\n"
		 "      { port = 2; nexthop_mac = " MAC2 "; weight = 2; }\n"
		 "    ); }\n"
		 ");\n",
			"t.cfg:10: routes[0].paths[1].weight: unknown key");
	ERR_Y(YP "qos:\n  ecn:\n    kmin_kb: 50\n    kmid_kb: 60\n",
			"t.yaml:8: qos.ecn.kmid_kb: unknown key (did you mean kmin_kb?)");
	ERR_C(CP "qos = {\n  ecn = {\n    kmin_kb = 50;\n    kmid_kb = 60;\n  };\n};\n",
			"t.cfg:9: qos.ecn.kmid_kb: unknown key (did you mean kmin_kb?)");
	ERR_Y(YP "qos:\n  queues: 8\n", "t.yaml:6: qos.queues: unknown key");
	ERR_C(CP "qos = { queues = 8; };\n", "t.cfg:6: qos.queues: unknown key");
	ERR_Y(YP "qos:\n  dscp: [{dscp: 26, class: 3, prio: 1}]\n",
			"t.yaml:6: qos.dscp[0].prio: unknown key");
	ERR_C(CP "qos = { dscp = ( { dscp = 26; class = 3; prio = 1; } ); };\n",
			"t.cfg:6: qos.dscp[0].prio: unknown key");
	ERR_Y(YP "conweave: {theta_reply: 4}\n", "t.yaml:5: conweave.theta_reply: unknown key (did "
						 "you mean theta_reply_us?)");
	ERR_C(CP "conweave = { theta_reply = 4; };\n", "t.cfg:6: conweave.theta_reply: unknown key "
						       "(did you mean theta_reply_us?)");
	ERR_Y(YP "seqbalance:\n  phi: 32\n", "t.yaml:6: seqbalance.phi: unknown key");
	ERR_C(CP "seqbalance = {\n  phi = 32;\n};\n", "t.cfg:7: seqbalance.phi: unknown key");
	ERR_Y(YP "caver:\n  beta: 0.5\n", "t.yaml:6: caver.beta: unknown key");
	ERR_C(CP "caver = {\n  beta = 0.5;\n};\n", "t.cfg:7: caver.beta: unknown key");
	/* The nearest key of the same map is named when it is a likely typo
	 * (rtr_suggest.h); a key far from all of them is not. */
	ERR_Y(YP "conweave:\n  thta_inactive_us: 300\n",
			"t.yaml:6: conweave.thta_inactive_us: unknown key "
			"(did you mean theta_inactive_us?)");
	ERR_C(CP "conweave = {\n  thta_inactive_us = 300;\n};\n",
			"t.cfg:7: conweave.thta_inactive_us: unknown key "
			"(did you mean theta_inactive_us?)");
	ERR_Y(YP "swtich: {name: a}\n", "t.yaml:5: swtich: unknown key (did you mean switch?)");
	ERR_Y(YP "switch:\n  idle_sleep: 5\n",
			"t.yaml:6: switch.idle_sleep: unknown key (did you mean idle_sleep_us?)");
	ERR_Y("ports:\n  - {port: 0, role: host, speed_gpbs: 5}\n",
			"t.yaml:2: ports[0].speed_gpbs: unknown key (did you mean speed_gbps?)");
	/* A key is reported on one line, whatever it holds. */
	ERR_Y(YP "\"a\\nb\": 1\n", "t.yaml:5: a?b: unknown key");
}

static void
test_wrong_types(void)
{
	ERR_Y(YP "switch:\n  id: \"5\"\n",
			"t.yaml:6: switch.id: expected an integer, got a string");
	ERR_C(CP "switch = { id = \"5\"; };\n",
			"t.cfg:6: switch.id: expected an integer, got a string");
	ERR_Y(YP "switch: {id: five}\n", "t.yaml:5: switch.id: expected an integer, got a string");
	ERR_Y(YP "switch: {id: 1.5}\n", "t.yaml:5: switch.id: expected an integer, got a float");
	ERR_C(CP "switch = { id = 1.5; };\n",
			"t.cfg:6: switch.id: expected an integer, got a float");
	ERR_Y(YP "switch: {id: true}\n", "t.yaml:5: switch.id: expected an integer, got a boolean");
	ERR_C(CP "switch = { id = true; };\n",
			"t.cfg:6: switch.id: expected an integer, got a boolean");
	ERR_Y(YP "switch: {id: [1]}\n", "t.yaml:5: switch.id: expected an integer, got a list");
	ERR_C(CP "switch = { name = 5; };\n",
			"t.cfg:6: switch.name: expected a string, got an integer");
	ERR_Y(YP "switch: {name: ~}\n", "t.yaml:5: switch.name: expected a string, got null");
	ERR_Y("ports:\n  - {port: 0, role: host, l2_filter: 1}\n",
			"t.yaml:2: ports[0].l2_filter: expected a boolean (true or false), got an "
			"integer");
	ERR_C("ports = ( { port = 0; role = \"host\"; l2_filter = \"yes\"; } );\n",
			"t.cfg:1: ports[0].l2_filter: expected a boolean (true or false), got a "
			"string");
	ERR_Y("ports:\n  - {port: 0, role: host, admin_down: \"true\"}\n",
			"t.yaml:2: ports[0].admin_down: expected a boolean (true or false), got a "
			"string");
	ERR_Y(YP "switch: 5\n", "t.yaml:5: switch: expected a map, got an integer");
	ERR_C(CP "switch = 5;\n", "t.cfg:6: switch: expected a map, got an integer");
	ERR_Y(YP "switch:\nqos: {}\n", "t.yaml:5: switch: expected a map, got null");
	ERR_C(CP "switch = ( 1 );\n", "t.cfg:6: switch: expected a map, got a list");
	ERR_Y("ports: {port: 0, role: host}\n", "t.yaml:1: ports: expected a list, got a map");
	ERR_C("ports = { port = 0; role = \"host\"; };\n",
			"t.cfg:1: ports: expected a list, got a map");
	ERR_Y("ports: [5]\n", "t.yaml:1: ports[0]: expected a map, got an integer");
	ERR_Y(YP "caver: {alpha: high}\n",
			"t.yaml:5: caver.alpha: expected a number, got a string");
	ERR_C(CP "caver = { alpha = \"0.5\"; };\n",
			"t.cfg:6: caver.alpha: expected a number, got a string");
	ERR_Y(YP "qos: {dscp: 26}\n", "t.yaml:5: qos.dscp: expected a list, got an integer");
	ERR_Y("ports:\n  - {port: 0, role: host, ip: {a: 1}}\n",
			"t.yaml:2: ports[0].ip: expected a string or a list of strings, got a map");
	ERR_C("ports = ( { port = 0; role = \"host\"; ip = 10; } );\n",
			"t.cfg:1: ports[0].ip: expected a string, got an integer");
	ERR_Y("ports:\n  - {port: 0, role: host, mac: 5}\n",
			"t.yaml:2: ports[0].mac: bad MAC address \"5\": expected "
			"xx:xx:xx:xx:xx:xx");
	ERR_C("ports = ( { port = 0; role = \"host\"; mac = 5; } );\n",
			"t.cfg:1: ports[0].mac: expected a string, got an integer");
	ERR_Y("- 1\n", "t.yaml:1: (root): expected a map, got a list");
	ERR_Y("hello\n", "t.yaml:1: (root): expected a map, got a string");
}

static void
test_ranges(void)
{
	char text[256];

	ERR_Y(YP "switch: {id: 0}\n", "t.yaml:5: switch.id: must be 1..65535, got 0");
	ERR_C(CP "switch = { id = 0; };\n", "t.cfg:6: switch.id: must be 1..65535, got 0");
	ERR_Y(YP "switch: {id: 65536}\n", "t.yaml:5: switch.id: must be 1..65535, got 65536");
	ERR_Y(YP "switch: {id: 0x10000}\n", "t.yaml:5: switch.id: must be 1..65535, got 0x10000");
	ERR_Y(YP "switch: {id: -1}\n", "t.yaml:5: switch.id: must be 1..65535, got -1");
	ERR_C(CP "switch = { id = -1; };\n", "t.cfg:6: switch.id: must be 1..65535, got -1");
	ERR_Y(YP "switch: {seed: 4294967296}\n",
			"t.yaml:5: switch.seed: must be 0..4294967295, got 4294967296");
	ERR_C(CP "switch = { seed = 4294967296L; };\n",
			"t.cfg:6: switch.seed: must be 0..4294967295, got 4294967296");
	/* libconfig 1.5 would read this as 0: rejected before it can. */
	ERR_C(CP "switch = { seed = 4294967296; };\n", "t.cfg:6: syntax: integer 4294967296 does "
						       "not fit in a 32-bit libconfig integer "
						       "(add L)");
	ERR_Y("ports:\n  - {port: 0, role: host, loss_seed: 18446744073709551616}\n",
			"t.yaml:2: ports[0].loss_seed: must be 0..18446744073709551615, got "
			"18446744073709551616");
	/* Flow limits (doc/security.md): host ports only, in range. */
	{
		static struct rtr_config fl;

		OK("yaml",
				"ports:\n"
				"  - {port: 0, role: host, flow_rate: 5000, flow_burst: 100, "
				"flow_share: 0.25}\n"
				"  - {port: 1, role: host}\n"
				"  - {port: 2, role: fabric}\n",
				&fl);
		CHECK(fl.ports[0].flow_rate == 5000 && fl.ports[0].flow_burst == 100);
		CHECK(rtr_config_flow_share(&fl, &fl.ports[0]) == 0.25);
		/* Automatic: two host ports get half each. */
		CHECK(rtr_config_flow_share(&fl, &fl.ports[1]) == 0.5);
		rtr_config_free(&fl);
		OK("cfg",
				"ports = ( { port = 0; role = \"host\"; flow_rate = 1; flow_share "
				"= 1.0; } );\n",
				&fl);
		CHECK(fl.ports[0].flow_rate == 1 && fl.ports[0].flow_share == 1.0);
		rtr_config_free(&fl);
	}
	ERR_Y("ports:\n  - {port: 0, role: host}\n  - {port: 1, role: fabric, flow_share: 0.5}\n",
			"t.yaml:3: ports[1].flow_share: host ports only (this port is fabric)");
	ERR_C("ports = ( { port = 1; role = \"fabric\";\n flow_rate = 10; } );\n",
			"t.cfg:2: ports[0].flow_rate: host ports only (this port is fabric)");
	ERR_Y("ports:\n  - {port: 0, role: host, source_check: true}\n  - {port: 1, role: "
	      "fabric,\n     source_check: false}\n",
			"t.yaml:4: ports[1].source_check: host ports only (this port is fabric)");
	ERR_Y("ports:\n  - {port: 0, role: host, flow_share: 1.5}\n",
			"t.yaml:2: ports[0].flow_share: must be 0..1, got 1.5");
	ERR_Y("ports:\n  - {port: 0, role: host, flow_burst: 0}\n",
			"t.yaml:2: ports[0].flow_burst: must be 1..100000000, got 0");
	ERR_Y("ports:\n  - {port: 0, role: host, flow_rate: -1}\n",
			"t.yaml:2: ports[0].flow_rate: must be 0..100000000, got -1");
	ERR_Y(YP "switch: {mbufs: 5}\n",
			"t.yaml:5: switch.mbufs: must be 0 or 1024..16777216, got 5");
	ERR_Y(YP "switch: {idle_threshold: 0}\n",
			"t.yaml:5: switch.idle_threshold: must be 1..1000000000, got 0");
	ERR_Y(YP "switch: {drain_us: 10001}\n",
			"t.yaml:5: switch.drain_us: must be 1..10000, got 10001");
	ERR_Y("ports:\n  - {port: 32, role: host}\n",
			"t.yaml:2: ports[0].port: must be 0..31, got 32");
	ERR_C("ports = (\n  { port = 32; role = \"host\"; }\n);\n",
			"t.cfg:2: ports[0].port: must be 0..31, got 32");
	ERR_Y("ports:\n  - {port: 0, role: host, loss: 1.5}\n",
			"t.yaml:2: ports[0].loss: must be 0..1, got 1.5");
	ERR_C("ports = ( { port = 0; role = \"host\"; loss = 1.5; } );\n",
			"t.cfg:1: ports[0].loss: must be 0..1, got 1.5");
	ERR_Y("ports:\n  - {port: 0, role: host, loss: -0.1}\n",
			"t.yaml:2: ports[0].loss: must be 0..1, got -0.1");
	ERR_Y("ports:\n  - {port: 0, role: host, shape_gbps: 0}\n",
			"t.yaml:2: ports[0].shape_gbps: must be >0 and <=1600, got 0");
	ERR_C("ports = ( { port = 0; role = \"host\"; shape_gbps = 0.0; } );\n",
			"t.cfg:1: ports[0].shape_gbps: must be >0 and <=1600, got 0");
	ERR_C("ports = ( { port = 0; role = \"host\"; shape_gbps = 1e400; } );\n",
			"t.cfg:1: ports[0].shape_gbps: must be >0 and <=1600, got inf");
	ERR_Y("ports:\n  - {port: 0, role: host, mtu: 67}\n",
			"t.yaml:2: ports[0].mtu: must be 0 or 68..9600, got 67");
	ERR_Y("ports:\n  - {port: 0, role: host, rx_queues: 65}\n",
			"t.yaml:2: ports[0].rx_queues: must be 0..64, got 65");
	ERR_Y("ports:\n  - {port: 0, role: host, speed_gbps: 1601}\n",
			"t.yaml:2: ports[0].speed_gbps: must be 0..1600, got 1601");
	ERR_Y("ports:\n  - {port: 0, role: server}\n",
			"t.yaml:2: ports[0].role: must be host or fabric, got \"server\"");
	ERR_C("ports = ( { port = 0; role = \"server\"; } );\n",
			"t.cfg:1: ports[0].role: must be host or fabric, got \"server\"");
	ERR_Y(YP "switch: {lb: random}\n", "t.yaml:5: switch.lb: must be ecmp, conweave, "
					   "seqbalance, caver, spray, letflow, drill or conga, got "
					   "\"random\"");
	ERR_Y("switch: {role: spine}\nports:\n  - {port: 0, role: fabric}\n  - {port: 1, role: "
	      "host}\n",
			"t.yaml:4: ports[1].role: a spine (switch.role: spine) has fabric ports "
			"only, "
			"got host");
	ERR_C("switch = { role = \"spine\"; };\nports = ( { port = 0; role = \"host\"; } );\n",
			"t.cfg:2: ports[0].role: a spine (switch.role: spine) has fabric ports "
			"only, "
			"got host");
	ERR_Y(YP "switch: {lb: conweav}\n",
			"t.yaml:5: switch.lb: must be ecmp, conweave, "
			"seqbalance, caver, spray, letflow, drill or conga, got "
			"\"conweav\" (did you mean conweave?)");
	ERR_C(CP "switch = { lb = \"ecpm\"; };\n",
			"t.cfg:6: switch.lb: must be ecmp, conweave, "
			"seqbalance, caver, spray, letflow, drill or conga, got "
			"\"ecpm\" (did you mean ecmp?)");
	ERR_C(CP "switch = { role = \"spin\"; };\n",
			"t.cfg:6: switch.role: must be tor or spine, got \"spin\" "
			"(did you mean spine?)");
	ERR_C(CP "switch = { role = \"leaf\"; };\n",
			"t.cfg:6: switch.role: must be tor or spine, got \"leaf\"");
	snprintf(text, sizeof(text), "%sswitch: {name: %064d}\n", YP, 0);
	ERR_Y(text, "t.yaml:5: switch.name: must be at most 63 characters, got 64");
	ERR_Y(YP "switch: {name: \"\"}\n", "t.yaml:5: switch.name: must not be empty");
	ERR_Y(YP "switch: {name: \"a\\tb\"}\n", "t.yaml:5: switch.name: must be printable ASCII");
	ERR_Y(YP "conweave: {reorder_queue_depth: 0}\n",
			"t.yaml:5: conweave.reorder_queue_depth: must be 1..65535, got 0");
	ERR_C(CP "conweave = { reorder_queue_depth = 65536; };\n",
			"t.cfg:6: conweave.reorder_queue_depth: must be 1..65535, got 65536");
	ERR_Y(YP "conweave: {flow_table_size: 1000}\n",
			"t.yaml:5: conweave.flow_table_size: must be 1024..16777216, got 1000");
	ERR_Y(YP "caver: {alpha: 0}\n", "t.yaml:5: caver.alpha: must be >0 and <=1, got 0");
	ERR_C(CP "caver = { q = 17; };\n", "t.cfg:6: caver.q: must be 1..16, got 17");
	ERR_Y(YP "seqbalance: {phi_us: 0}\n",
			"t.yaml:5: seqbalance.phi_us: must be 1..1000000, got 0");
	ERR_Y(YP "letflow: {flowlet_gap_us: 0}\n",
			"t.yaml:5: letflow.flowlet_gap_us: must be 1..1000000, got 0");
	ERR_C(CP "letflow = { flowlet_gap_us = 1000001; };\n",
			"t.cfg:6: letflow.flowlet_gap_us: must be 1..1000000, got 1000001");
	ERR_Y(YP "letflow:\n  flow_table_size: 1023\n",
			"t.yaml:6: letflow.flow_table_size: must be 1024..16777216, got 1023");
	ERR_Y(YP "letflow: {gap_us: 100}\n", "t.yaml:5: letflow.gap_us: unknown key");
	ERR_Y(YP "letflow: {flowlet_gap_us: soon}\n",
			"t.yaml:5: letflow.flowlet_gap_us: expected an integer, got a string");
	ERR_Y(YP "drill: {samples: 0}\n", "t.yaml:5: drill.samples: must be 1..16, got 0");
	ERR_C(CP "drill = { samples = 17; };\n", "t.cfg:6: drill.samples: must be 1..16, got 17");
	ERR_Y(YP "drill:\n  samples: 2\n  memory: 5\n",
			"t.yaml:7: drill.memory: must be 0..4, got 5");
	ERR_C(CP "drill = { memory = -1; };\n", "t.cfg:6: drill.memory: must be 0..4, got -1");
	ERR_C(CP "drill = { d = 2; };\n", "t.cfg:6: drill.d: unknown key");
	ERR_Y(YP "conga: {flowlet_gap_us: 0}\n",
			"t.yaml:5: conga.flowlet_gap_us: must be 1..1000000, got 0");
	ERR_C(CP "conga = { dre_period_us = 100001; };\n",
			"t.cfg:6: conga.dre_period_us: must be 1..100000, got 100001");
	ERR_Y(YP "conga: {dre_alpha: 0}\n", "t.yaml:5: conga.dre_alpha: must be >0 and <=1, got 0");
	ERR_Y(YP "conga:\n  quantize_bits: 5\n",
			"t.yaml:6: conga.quantize_bits: must be 1..4, got 5");
	ERR_C(CP "conga = { aging_us = 0; };\n",
			"t.cfg:6: conga.aging_us: must be 1..1000000, got 0");
	ERR_Y(YP "conga: {flow_table_size: 1023}\n",
			"t.yaml:5: conga.flow_table_size: must be 1024..16777216, got 1023");
	ERR_Y(YP "conga: {leaf_slots: 1000}\n",
			"t.yaml:5: conga.leaf_slots: must be a power of two in 1..65536, got 1000");
	ERR_Y(YP "conga: {dst_prefix_len: 33}\n",
			"t.yaml:5: conga.dst_prefix_len: must be 0..32, got 33");
	ERR_Y(YP "conga: {gap_us: 100}\n", "t.yaml:5: conga.gap_us: unknown key");
	ERR_Y(YP "conweave: {dst_prefix_len: 33}\n",
			"t.yaml:5: conweave.dst_prefix_len: must be 0..32, got 33");
	ERR_C(CP "conweave = { dst_prefix_len6 = 129; };\n",
			"t.cfg:6: conweave.dst_prefix_len6: must be 0..128, got 129");
	ERR_Y(YP "seqbalance:\n  dst_prefix_len: -1\n",
			"t.yaml:6: seqbalance.dst_prefix_len: must be 0..32, got -1");
	ERR_C(CP "seqbalance = { dst_prefix_len6 = 200; };\n",
			"t.cfg:6: seqbalance.dst_prefix_len6: must be 0..128, got 200");
	ERR_Y(YP "qos: {classes: 9}\n", "t.yaml:5: qos.classes: must be 1..8, got 9");
	ERR_Y(YP "qos: {queue_kb: 0}\n", "t.yaml:5: qos.queue_kb: must be 1..1048576, got 0");
	ERR_Y(YP "qos:\n  ecn: {pmax: 2}\n", "t.yaml:6: qos.ecn.pmax: must be 0..1, got 2");
	ERR_Y(YP "qos:\n  dscp: [{dscp: 64, class: 0}]\n",
			"t.yaml:6: qos.dscp[0].dscp: must be 0..63, got 64");
	ERR_Y(YP "qos:\n  classes: 4\n  dscp: [{dscp: 26, class: 5}]\n",
			"t.yaml:7: qos.dscp[0].class: must be 0..3 (qos.classes is 4), got 5");
	ERR_C(CP "qos = {\n  dscp = ( { dscp = 26; class = 5; } );\n  classes = 4;\n};\n",
			"t.cfg:7: qos.dscp[0].class: must be 0..3 (qos.classes is 4), got 5");
	ERR_Y(YP "qos:\n  dscp:\n    - {dscp: 26, class: 3}\n    - {dscp: 26, class: 4}\n",
			"t.yaml:8: qos.dscp[1].dscp: duplicate dscp 26");
	ERR_C(CP "qos = {\n  dscp = (\n    { dscp = 26; class = 3; },\n"
		 "    { dscp = 26; class = 4; }\n  );\n};\n",
			"t.cfg:9: qos.dscp[1].dscp: duplicate dscp 26");
	ERR_Y(YP "qos:\n  ecn: {kmin_kb: 500}\n",
			"t.yaml:6: qos.ecn.kmin_kb: must be <= kmax_kb (400), got 500");
	ERR_C(CP "qos = {\n  ecn = {\n    kmax_kb = 50;\n  };\n};\n",
			"t.cfg:8: qos.ecn.kmin_kb: must be <= kmax_kb (50), got 100");
	ERR_Y("ports: []\n", "t.yaml:1: ports: must have 1..32 entries, got 0");
	ERR_C("ports = ();\n", "t.cfg:1: ports: must have 1..32 entries, got 0");
	ERR_Y("ports:\n  - {port: 0, role: host, ip: [\"10.0.0.1/8\", \"10.0.0.2/8\", "
	      "\"10.0.0.3/8\", \"10.0.0.4/8\", \"10.0.0.5/8\"]}\n",
			"t.yaml:2: ports[0].ip: must have 1..4 entries, got 5");
}

static void
test_ports_and_addresses(void)
{
	ERR_Y("ports:\n  - {port: 0, role: host}\n  - {port: 1, role: fabric}\n"
	      "  - {port: 0, role: fabric}\n",
			"t.yaml:4: ports[2].port: duplicate port 0 (first at line 2)");
	ERR_C("ports = (\n  { port = 0; role = \"host\"; },\n  { port = 1; role = \"fabric\"; },\n"
	      "  { port = 0; role = \"fabric\"; }\n);\n",
			"t.cfg:4: ports[2].port: duplicate port 0 (first at line 2)");
	ERR_Y("ports:\n  - {port: 0, role: host, mac: 02:00:00:00:01}\n",
			"t.yaml:2: ports[0].mac: bad MAC address \"02:00:00:00:01\": expected "
			"xx:xx:xx:xx:xx:xx");
	ERR_C("ports = ( { port = 0; role = \"host\"; mac = \"02:00:00:00:01:0g\"; } );\n",
			"t.cfg:1: ports[0].mac: bad MAC address \"02:00:00:00:01:0g\": expected "
			"xx:xx:xx:xx:xx:xx");
	ERR_Y("ports:\n  - {port: 0, role: host, mac: \"02-00-00-00-01-00\"}\n",
			"t.yaml:2: ports[0].mac: bad MAC address \"02-00-00-00-01-00\": expected "
			"xx:xx:xx:xx:xx:xx");
	ERR_Y("ports:\n  - {port: 0, role: host, mac: \"01:00:5e:00:00:01\"}\n",
			"t.yaml:2: ports[0].mac: must be a unicast MAC address, got "
			"01:00:5e:00:00:01");
	ERR_C("ports = ( { port = 0; role = \"host\"; mac = \"00:00:00:00:00:00\"; } );\n",
			"t.cfg:1: ports[0].mac: must be a unicast MAC address, got "
			"00:00:00:00:00:00");
	ERR_Y("ports:\n  - {port: 0, role: host, ip: 10.0.0.300/24}\n",
			"t.yaml:2: ports[0].ip: bad prefix \"10.0.0.300/24\": not an IPv4 or IPv6 "
			"address");
	ERR_C("ports = ( { port = 0; role = \"host\"; ip = \"10.0.0.300/24\"; } );\n",
			"t.cfg:1: ports[0].ip: bad prefix \"10.0.0.300/24\": not an IPv4 or IPv6 "
			"address");
	ERR_Y("ports:\n  - {port: 0, role: host, ip: [\"10.0.0.1/24\", \"fd00::1/129\"]}\n",
			"t.yaml:2: ports[0].ip[1]: bad prefix \"fd00::1/129\": length must be "
			"0..128");
	ERR_C("ports = ( { port = 0; role = \"host\";\n  ip = [ \"10.0.0.1/24\", \"10.0.0.2/\" ]; "
	      "} );\n",
			"t.cfg:2: ports[0].ip[1]: bad prefix \"10.0.0.2/\": length must be 0..32");
	ERR_Y("ports:\n  - {port: 0, role: host, ip: 10.0.0.1}\n",
			"t.yaml:2: ports[0].ip: bad prefix \"10.0.0.1\": expected ADDRESS/LENGTH");
	ERR_Y("ports:\n  - {port: 0}\n", "t.yaml:2: ports[0].role: required key missing");
	ERR_C("ports = (\n  { role = \"host\"; }\n);\n",
			"t.cfg:2: ports[0].port: required key missing");
	ERR_Y("switch: {id: 1}\n", "t.yaml:1: ports: required key missing");
	ERR_C("switch = { id = 1; };\n", "t.cfg:1: ports: required key missing");
}

static void
test_routes(void)
{
	ERR_Y(YP "routes:\n  - {port: 0}\n", "t.yaml:6: routes[0].prefix: required key missing");
	ERR_C(CP "routes = ( { port = 0; } );\n",
			"t.cfg:6: routes[0].prefix: required key missing");
	ERR_Y(YP "routes:\n  - {prefix: 10.1.0.1/32, port: 7, nexthop_mac: " MAC1 "}\n",
			"t.yaml:6: routes[0].port: port 7 is not in ports");
	ERR_C(CP "routes = ( { prefix = \"10.1.0.1/32\"; port = 7; nexthop_mac = " MAC1 "; } );\n",
			"t.cfg:6: routes[0].port: port 7 is not in ports");
	ERR_Y(YP "routes:\n"
		 "  - prefix: 10.2.0.0/16\n"
		 "    paths:\n"
		 "      - {port: 1, nexthop_mac: " MAC1 "}\n"
		 "      - {port: 9, nexthop_mac: " MAC2 "}\n",
			"t.yaml:9: routes[0].paths[1].port: port 9 is not in ports");
	ERR_C(CP "routes = (\n"
		 "  { prefix = \"10.2.0.0/16\";\n"
		 "    paths = (\n"
		 "      { port = 1; nexthop_mac = " MAC1 "; },\n"
		 "      { port = 9; nexthop_mac = " MAC2 "; }\n"
		 "    ); }\n"
		 ");\n",
			"t.cfg:10: routes[0].paths[1].port: port 9 is not in ports");
	ERR_Y(YP "routes:\n"
		 "  - prefix: 10.2.0.0/16\n"
		 "    paths:\n"
		 "      - {port: 1, nexthop_mac: " MAC1 "}\n"
		 "      - {port: 0, nexthop_mac: " MAC2 "}\n",
			"t.yaml:9: routes[0].paths[1].port: paths mix host and fabric ports (port "
			"1 is "
			"fabric, port 0 is host)");
	ERR_C(CP "routes = (\n"
		 "  { prefix = \"10.2.0.0/16\";\n"
		 "    paths = (\n"
		 "      { port = 1; nexthop_mac = " MAC1 "; },\n"
		 "      { port = 0; nexthop_mac = " MAC2 "; }\n"
		 "    ); }\n"
		 ");\n",
			"t.cfg:10: routes[0].paths[1].port: paths mix host and fabric ports (port "
			"1 is "
			"fabric, port 0 is host)");
	ERR_Y(YP "routes:\n"
		 "  - {prefix: 10.1.0.0/24, port: 0, nexthop_mac: " MAC1 "}\n"
		 "  - {prefix: \"10.1.0.0/24\", port: 1, nexthop_mac: " MAC2 "}\n",
			"t.yaml:7: routes[1].prefix: duplicate prefix 10.1.0.0/24 (first at line "
			"6)");
	ERR_C(CP "routes = (\n"
		 "  { prefix = \"fd00::/16\"; port = 1; nexthop_mac = " MAC1 "; },\n"
		 "  { prefix = \"fd00:0::/16\"; port = 2; nexthop_mac = " MAC2 "; }\n"
		 ");\n",
			"t.cfg:8: routes[1].prefix: duplicate prefix fd00:0::/16 (first at line "
			"7)");
	ERR_Y(YP "routes:\n  - {prefix: 10.2.0.1/16, port: 1, nexthop_mac: " MAC1 "}\n",
			"t.yaml:6: routes[0].prefix: host bits set in \"10.2.0.1/16\" (beyond "
			"/16)");
	ERR_C(CP "routes = ( { prefix = \"fd00::1/64\"; port = 1; nexthop_mac = " MAC1 "; } );\n",
			"t.cfg:6: routes[0].prefix: host bits set in \"fd00::1/64\" (beyond /64)");
	ERR_Y(YP "routes:\n  - {prefix: 10.2.0.0, port: 1, nexthop_mac: " MAC1 "}\n",
			"t.yaml:6: routes[0].prefix: bad prefix \"10.2.0.0\": expected "
			"ADDRESS/LENGTH");
	ERR_Y(YP "routes:\n  - {prefix: 10.2.0.0/16, port: 1, nexthop: 10.255.0.1/31}\n",
			"t.yaml:6: routes[0].nexthop: bad address \"10.255.0.1/31\": expected an "
			"address "
			"without /LENGTH");
	ERR_C(CP "routes = ( { prefix = \"10.2.0.0/16\"; port = 1; nexthop = \"10.255.0.x\"; } "
		 ");\n",
			"t.cfg:6: routes[0].nexthop: bad address \"10.255.0.x\": not an IPv4 or "
			"IPv6 "
			"address");
	ERR_Y(YP "routes:\n"
		 "  - prefix: 10.2.0.0/16\n"
		 "    port: 1\n"
		 "    paths: [{port: 2, nexthop_mac: " MAC1 "}]\n",
			"t.yaml:6: routes[0]: give either port or paths, not both");
	ERR_C(CP "routes = ( { prefix = \"10.2.0.0/16\"; port = 1;\n"
		 "  paths = ( { port = 2; nexthop_mac = " MAC1 "; } ); } );\n",
			"t.cfg:6: routes[0]: give either port or paths, not both");
	ERR_Y(YP "routes:\n  - {prefix: 10.2.0.0/16}\n",
			"t.yaml:6: routes[0]: port or paths required");
	ERR_C(CP "routes = ( { prefix = \"10.2.0.0/16\"; } );\n",
			"t.cfg:6: routes[0]: port or paths required");
	ERR_Y(YP "routes:\n"
		 "  - prefix: 10.2.0.0/16\n"
		 "    nexthop_mac: " MAC1 "\n"
		 "    paths: [{port: 2, nexthop_mac: " MAC1 "}]\n",
			"t.yaml:7: routes[0].nexthop_mac: not allowed with paths (give it in each "
			"path)");
	ERR_Y(YP "routes:\n  - {prefix: 10.2.0.0/16, paths: []}\n",
			"t.yaml:6: routes[0].paths: must have 1..64 entries, got 0");
	ERR_Y(YP "routes:\n  - {prefix: 10.2.0.0/16, paths: [{nexthop_mac: " MAC1 "}]}\n",
			"t.yaml:6: routes[0].paths[0].port: required key missing");
	ERR_Y(YP "routes:\n  - {prefix: 10.2.0.0/16, port: 1}\n",
			"t.yaml:6: routes[0]: nexthop_mac or nexthop required");
	ERR_C(CP "routes = (\n  { prefix = \"10.2.0.0/16\"; port = 1; }\n);\n",
			"t.cfg:7: routes[0]: nexthop_mac or nexthop required");
	ERR_Y(YP "routes:\n"
		 "  - prefix: 10.2.0.0/16\n"
		 "    paths:\n"
		 "      - {port: 1, nexthop: 192.168.1.2}\n"
		 "      - {port: 2}\n",
			"t.yaml:9: routes[0].paths[1]: nexthop_mac or nexthop required");
	ERR_Y(YP "routes:\n  - {prefix: 10.3.0.0/16, port: 2, nexthop: 10.3.0.1}\n",
			"t.yaml:6: routes[0].port: port 2 has no IPv4 address to resolve nexthop "
			"from");
	ERR_C(CP "routes = ( { prefix = \"fd00::1/128\"; port = 0; } );\n",
			"t.cfg:6: routes[0].port: port 0 has no IPv6 address to resolve nexthop "
			"from");
	ERR_Y(YP "routes:\n  - {prefix: 10.2.0.0/16, port: 1, nexthop: \"fd00::1\"}\n",
			"t.yaml:6: routes[0].nexthop: nexthop fd00::1 is IPv6 but the prefix is "
			"IPv4");
	ERR_Y(YP "routes: 5\n", "t.yaml:5: routes: expected a list, got an integer");
}

static void
test_routes_ok(void)
{
	static struct rtr_config cfg;
	const struct rtr_route_cfg *r;

	OK("yaml",
			YP "routes:\n"
			   "  - {prefix: 10.1.0.7/32, port: 0}\n"
			   "  - {prefix: 10.2.0.0/16, port: 1, nexthop: 192.168.1.2}\n"
			   "  - prefix: 0.0.0.0/0\n"
			   "    paths:\n"
			   "      - {port: 1, nexthop: 192.168.1.2}\n"
			   "      - {port: 2, nexthop_mac: " MAC2 "}\n",
			&cfg);
	CHECK_EQ(cfg.n_routes, 3);
	r = &cfg.routes[0];
	CHECK(r->paths[0].ip.family == AF_INET && r->paths[0].ip.v4.s_addr == r->prefix.v4.s_addr);
	CHECK_EQ(r->line, 6);
	CHECK_EQ(r->paths[0].line, 6);
	r = &cfg.routes[1];
	CHECK(!r->is_group && r->n_paths == 1 && !r->paths[0].mac_set);
	CHECK_EQ(r->paths[0].ip.family, AF_INET);
	r = &cfg.routes[2];
	CHECK(r->is_group && r->n_paths == 2 && r->prefix.depth == 0);
	CHECK(!r->paths[0].mac_set && r->paths[1].mac_set);
	CHECK_EQ(r->paths[1].line, 11);
	rtr_config_free(&cfg);
	/* Safe twice, and on a zeroed struct. */
	rtr_config_free(&cfg);
}

/* conweave.hold_budget (issue 15 item 7): 0 = derived; below switch.mbufs. */
static void
test_conweave_hold_budget(void)
{
	struct rtr_config cfg;

	load_ok(__LINE__, "yaml", YP "conweave: {hold_budget: 20000}\n", &cfg);
	CHECK_EQ(rtr_conweave_config(&cfg)->hold_budget, 20000);
	rtr_config_free(&cfg);
	load_ok(__LINE__, "yaml", YP, &cfg);
	CHECK_EQ(rtr_conweave_config(&cfg)->hold_budget, 0);
	rtr_config_free(&cfg);
	load_ok(__LINE__, "yaml", "switch: {mbufs: 8191}\n" YP "conweave: {hold_budget: 8190}\n",
			&cfg);
	rtr_config_free(&cfg);
	ERR_Y("switch: {mbufs: 8191}\n" YP
	      "conweave:\n  flow_table_size: 4096\n  hold_budget: 8191\n",
			"t.yaml:8: conweave.hold_budget: must be below switch.mbufs (8191): the "
			"pool "
			"also fills the RX rings, got 8191");
	ERR_C("switch = { mbufs = 4095; };\n" CP "conweave = { hold_budget = 5000; };\n",
			"t.cfg:7: conweave.hold_budget: must be below switch.mbufs (4095): the "
			"pool "
			"also fills the RX rings, got 5000");
	ERR_Y(YP "conweave: {hold_budget: 16777217}\n",
			"t.yaml:5: conweave.hold_budget: must be 0..16777216, got 16777217");
}

static void
test_conweave_rules(void)
{
	ERR_Y(YP "conweave:\n  theta_inactive_us: 100\n",
			"t.yaml:6: conweave.theta_inactive_us: must exceed base_rtt_us + the "
			"longest "
			"reorder hold (resume_default_us + resume_extra_us): 4 + 200 + 16 = 220, "
			"got 100");
	ERR_C(CP "conweave = {\n  theta_inactive_us = 220;\n};\n",
			"t.cfg:7: conweave.theta_inactive_us: must exceed base_rtt_us + the "
			"longest "
			"reorder hold (resume_default_us + resume_extra_us): 4 + 200 + 16 = 220, "
			"got 220");
	/* Only the other side given: reported where it is. */
	ERR_Y(YP "conweave:\n  base_rtt_us: 10\n  resume_default_us: 400\n",
			"t.yaml:7: conweave.theta_inactive_us: must exceed base_rtt_us + the "
			"longest "
			"reorder hold (resume_default_us + resume_extra_us): 10 + 400 + 16 = 426, "
			"got 300");
	ERR_Y(YP "conweave: {theta_reply_us: 32000}\n", "t.yaml:5: conweave.theta_reply_us: must "
							"be 1..31999 (below 32000: half the 16-bit "
							"timestamp wrap), got 32000");
	ERR_C(CP "conweave = { theta_inactive_us = 40000; };\n",
			"t.cfg:6: conweave.theta_inactive_us: must be 1..31999 (below 32000: half "
			"the "
			"16-bit timestamp wrap), got 40000");
	ERR_Y(YP "conweave: {theta_path_busy_us: 0}\n", "t.yaml:5: conweave.theta_path_busy_us: "
							"must be 1..31999 (below 32000: half the "
							"16-bit timestamp wrap), got 0");
}

/*
 * Issue 15 items 3, 8 and 9. theta_inactive must exceed base_rtt plus the
 * longest hold the DstToR applies (resume_default + resume_extra, as
 * rtr_cw_bound_hold_ns computes it): a resume_extra of 1 ms with the
 * default theta_inactive of 300 us let an idle flow start a new epoch (and
 * move) while its last epoch's packets were still held. The same floor
 * holds for a configured clear_timeout_us. A flow keeps its reorder ring's
 * index in 16 bits and 0xffff means none: 65535 rings at most.
 */
static void
test_conweave_bounds(void)
{
	static struct rtr_config cfg;

	ERR_Y(YP "conweave: {resume_extra_us: 1000}\n", "t.yaml:5: conweave.theta_inactive_us: "
							"must exceed base_rtt_us + the longest "
							"reorder hold (resume_default_us + "
							"resume_extra_us): 4 + 200 + 1000 = 1204, "
							"got 300");
	ERR_C(CP "conweave = {\n  resume_extra_us = 2000;\n  theta_inactive_us = 2204;\n};\n",
			"t.cfg:8: conweave.theta_inactive_us: must exceed base_rtt_us + the "
			"longest "
			"reorder hold (resume_default_us + resume_extra_us): 4 + 200 + 2000 = "
			"2204, "
			"got 2204");
	/* The lab thresholds of the fabric tests: 31000 us of slack. */
	ERR_Y(YP "conweave:\n  base_rtt_us: 100\n  theta_inactive_us: 30000\n"
		 "  resume_extra_us: 31000\n",
			"t.yaml:7: conweave.theta_inactive_us: must exceed base_rtt_us + the "
			"longest "
			"reorder hold (resume_default_us + resume_extra_us): 100 + 200 + 31000 = "
			"31300, got 30000");
	OK("yaml", YP "conweave: {resume_extra_us: 1000, theta_inactive_us: 1205}\n", &cfg);
	CHECK_EQ(rtr_conweave_config(&cfg)->clear_timeout_us, 0);
	rtr_config_free(&cfg);
	/* clear_timeout_us: 0 (derived) or above the same floor. */
	ERR_Y(YP "conweave: {clear_timeout_us: 220}\n",
			"t.yaml:5: conweave.clear_timeout_us: must be 0 (derived) or exceed "
			"base_rtt_us + the longest reorder hold (resume_default_us + "
			"resume_extra_us): 4 + 200 + 16 = 220, got 220");
	ERR_Y(YP "conweave: {clear_timeout_us: 32000}\n",
			"t.yaml:5: conweave.clear_timeout_us: must be 0..31999 (below 32000: half "
			"the 16-bit timestamp wrap), got 32000");
	OK("cfg", CP "conweave = { clear_timeout_us = 221; };\n", &cfg);
	CHECK_EQ(rtr_conweave_config(&cfg)->clear_timeout_us, 221);
	rtr_config_free(&cfg);
	/* Ring indices. */
	ERR_Y(YP "conweave: {reorder_queues_per_port: 65536}\n",
			"t.yaml:5: conweave.reorder_queues_per_port: must be 1..65535, got 65536");
	ERR_C(CP "conweave = { reorder_queues_per_port = 65536; };\n",
			"t.cfg:6: conweave.reorder_queues_per_port: must be 1..65535, got 65536");
	OK("yaml", YP "conweave: {reorder_queues_per_port: 65535, reorder_queue_depth: 1}\n", &cfg);
	CHECK_EQ(rtr_conweave_config(&cfg)->reorder_queues_per_port, 65535);
	rtr_config_free(&cfg);
}

/* ---- qos: classes, PCP, trimming, PFC ------------------------------------ */

/* Loads text in fmt; the dump must read back to the same config and the
 * same dump.
 */
static void
check_round_trip(int at, const struct rtr_config *cfg)
{
	static struct rtr_config a, r;
	char err[512];
	int n;

	memcpy(&a, cfg, sizeof(a));
	n = rtr_config_dump(&a, dump_a, sizeof(dump_a));
	CHECK(n > 0 && (size_t)n < sizeof(dump_a), "case at line %d: dump length %d", at, n);
	CHECK(rtr_config_load_buf("d.yaml", "yaml", dump_a, (size_t)n, &r, err, sizeof(err)) == 0,
			"case at line %d: dump does not reload: %s", at, err);
	CHECK_EQ(rtr_config_dump(&r, dump_c, sizeof(dump_c)), n);
	CHECK(strcmp(dump_a, dump_c) == 0, "case at line %d: dump is not stable", at);
	/* a shares cfg's routes; only r owns what it loaded. */
	CHECK(config_equal(&a, &r), "case at line %d: the reloaded dump differs", at);
	rtr_config_free(&r);
}

static void
test_qos_classes(void)
{
	static struct rtr_config y, c;
	const struct rtr_class_cfg *k;

	OK("yaml",
			YP "qos:\n"
			   "  classes: 4\n"
			   "  queue_kb: 1000\n"
			   "  ecn: {enabled: false, kmin_kb: 10, kmax_kb: 20, pmax: 0.5}\n"
			   "  class_params:\n"
			   "    - {class: 1, priority: 5, weight: 7}\n"
			   "    - class: 0\n"
			   "      ecn: {kmax_kb: 30, enabled: true}\n"
			   "    - {class: 3, weight: 3, queue_kb: 64}\n",
			&y);
	/* Only what an entry gives is overridden; its ecn inherits the rest. */
	k = &y.qos.cls[0];
	CHECK(k->set && k->line == 11);
	CHECK(k->priority == 0 && k->weight == 1 && k->queue_kb == 1000);
	CHECK(k->ecn.enabled && k->ecn.kmin_kb == 10 && k->ecn.kmax_kb == 30 && k->ecn.pmax == 0.5);
	k = &y.qos.cls[1];
	CHECK(k->set && k->line == 10);
	CHECK(k->priority == 5 && k->weight == 7 && k->queue_kb == 1000);
	CHECK(!k->ecn.enabled && k->ecn.kmin_kb == 10 && k->ecn.kmax_kb == 20 &&
			k->ecn.pmax == 0.5);
	k = &y.qos.cls[2];
	CHECK(!k->set && k->line == 0);
	CHECK(k->priority == 2 && k->weight == 1 && k->queue_kb == 1000);
	CHECK(!k->ecn.enabled && k->ecn.kmin_kb == 10 && k->ecn.kmax_kb == 20);
	/* The control class: weight, queue and ecn may be given, priority stays. */
	k = &y.qos.cls[3];
	CHECK(k->set && k->line == 13);
	CHECK(k->priority == 3 && k->weight == 3 && k->queue_kb == 64);
	/* Classes beyond qos.classes are left empty. */
	CHECK(y.qos.cls[4].weight == 0 && y.qos.cls[7].queue_kb == 0);
	check_round_trip(__LINE__, &y);

	/* Document order does not matter: class_params before what it needs. */
	OK("cfg",
			CP "qos = {\n"
			   "  class_params = (\n"
			   "    { class = 1; priority = 5; weight = 7; },\n"
			   "    { class = 0; ecn = { kmax_kb = 30; enabled = true; }; },\n"
			   "    { class = 3; weight = 3; queue_kb = 64; }\n"
			   "  );\n"
			   "  classes = 4;\n"
			   "  ecn = { enabled = false; kmin_kb = 10; kmax_kb = 20; pmax = 0.5; };\n"
			   "  queue_kb = 1000;\n"
			   "};\n",
			&c);
	CHECK_EQ(c.qos.cls[1].line, 8);
	CHECK(config_equal(&y, &c), "class_params: .yaml and .cfg differ");
	rtr_config_free(&y);
	rtr_config_free(&c);

	/* Every other new key, away from its default, in both formats. */
	OK("yaml",
			"ports:\n"
			"  - {port: 0, role: host, shape_gbps: 25, shape_burst_kb: 64}\n"
			"  - {port: 1, role: fabric, shape_burst_kb: 65536}\n"
			"qos:\n"
			"  classes: 6\n"
			"  trust: pcp\n"
			"  dscp: [{dscp: 26, class: 3}]\n"
			"  pcp: [{pcp: 3, class: 3}, {pcp: 0, class: 1}, {pcp: 7, class: 5}]\n"
			"  ecn: {enabled: no}\n"
			"  class_params:\n"
			"    - {class: 5, weight: 1000, ecn: {enabled: true, pmax: 1}}\n"
			"    - {class: 2, priority: 0, weight: 4, queue_kb: 1048576,\n"
			"       ecn: {kmin_kb: 0, kmax_kb: 0, pmax: 0}}\n"
			"  trim: true\n"
			"  trim_lengths: update\n"
			"  trim_dscp: 0\n"
			"  pfc: {mode: software, classes: [3, 1], xoff_kb: 1048576, xon_kb: 0, "
			"quanta: "
			"1}\n",
			&y);
	CHECK_EQ(y.ports[0].shape_burst_kb, 64);
	CHECK_EQ(y.ports[1].shape_burst_kb, 65536);
	CHECK(y.qos.trust_pcp);
	CHECK_EQ(y.qos.n_pcp, 3);
	CHECK(y.qos.pcp[1].pcp == 0 && y.qos.pcp[1].class == 1);
	CHECK(y.qos.pcp[2].pcp == 7 && y.qos.pcp[2].class == 5);
	CHECK(!y.qos.ecn.enabled);
	k = &y.qos.cls[5];
	CHECK(k->set && k->priority == 5 && k->weight == 1000 && k->queue_kb == 2048);
	CHECK(k->ecn.enabled && k->ecn.pmax == 1.0 && k->ecn.kmin_kb == 100);
	k = &y.qos.cls[2];
	CHECK(k->set && k->priority == 0 && k->weight == 4 && k->queue_kb == 1048576);
	CHECK(!k->ecn.enabled && k->ecn.kmin_kb == 0 && k->ecn.kmax_kb == 0 && k->ecn.pmax == 0.0);
	CHECK(y.qos.trim && y.qos.trim_update_lengths);
	CHECK_EQ(y.qos.trim_dscp, 0);
	CHECK_EQ(y.qos.pfc.mode, RTR_PFC_SOFTWARE);
	CHECK_EQ(y.qos.pfc.class_mask, 0x0a);
	CHECK_EQ(y.qos.pfc.xoff_kb, 1048576);
	CHECK_EQ(y.qos.pfc.xon_kb, 0);
	CHECK_EQ(y.qos.pfc.quanta, 1);
	check_round_trip(__LINE__, &y);
	OK("cfg",
			"ports = (\n"
			"  { port = 0; role = \"host\"; shape_gbps = 25; shape_burst_kb = 64; },\n"
			"  { port = 1; role = \"fabric\"; shape_burst_kb = 65536; }\n"
			");\n"
			"qos = {\n"
			"  classes = 6;\n"
			"  trust = \"pcp\";\n"
			"  dscp = ( { dscp = 26; class = 3; } );\n"
			"  pcp = ( { pcp = 3; class = 3; }, { pcp = 0; class = 1; },"
			" { pcp = 7; class = 5; } );\n"
			"  ecn = { enabled = false; };\n"
			"  class_params = (\n"
			"    { class = 5; weight = 1000; ecn = { enabled = true; pmax = 1; }; },\n"
			"    { class = 2; priority = 0; weight = 4; queue_kb = 1048576;\n"
			"      ecn = { kmin_kb = 0; kmax_kb = 0; pmax = 0.0; }; }\n"
			"  );\n"
			"  trim = true;\n"
			"  trim_lengths = \"update\";\n"
			"  trim_dscp = 0;\n"
			"  pfc = { mode = \"software\"; classes = [ 3, 1 ]; xoff_kb = 1048576;"
			" xon_kb = 0; quanta = 1; };\n"
			"};\n",
			&c);
	CHECK(config_equal(&y, &c), "qos keys: .yaml and .cfg differ");
	rtr_config_free(&y);
	rtr_config_free(&c);

	/* trim_dscp at the top of its range; the defaults round-trip too. */
	OK("yaml", "ports: [{port: 0, role: host}]\nqos: {trim_dscp: 63, classes: 1}\n", &y);
	CHECK_EQ(y.qos.trim_dscp, 63);
	CHECK(!y.qos.cls[0].set && y.qos.cls[0].priority == 0);
	check_round_trip(__LINE__, &y);
	OK("yaml", "ports: [{port: 0, role: host}]\n", &y);
	check_round_trip(__LINE__, &y);
	/* The control class of one class only: weight and ecn, no priority. */
	OK("yaml",
			"ports: [{port: 0, role: host}]\n"
			"qos: {classes: 1, class_params: [{class: 0, weight: 9, ecn: {kmin_kb: "
			"1}}]}\n",
			&y);
	CHECK(y.qos.cls[0].set && y.qos.cls[0].weight == 9 && y.qos.cls[0].ecn.kmin_kb == 1);
	check_round_trip(__LINE__, &y);
	rtr_config_free(&y);
}

/* One entry too many in qos.dscp and qos.pcp; what fits dumps as flow maps. */
static void
qos_list_lengths(void)
{
	static struct rtr_config cfg;
	char text[4096];
	size_t n;
	int i;

	n = (size_t)snprintf(text, sizeof(text), YP "qos:\n  dscp:\n");
	for (i = 0; i < 65 && n < sizeof(text); i++)
		n += (size_t)snprintf(
				text + n, sizeof(text) - n, "    - {dscp: %d, class: 0}\n", i % 64);
	ERR_Y(text, "t.yaml:7: qos.dscp: must have 0..64 entries, got 65");
	ERR_Y(YP "qos: {pcp: [{pcp: 0, class: 0}, {pcp: 1, class: 0}, {pcp: 2, class: 0}, "
		 "{pcp: 3, class: 0}, {pcp: 4, class: 0}, {pcp: 5, class: 0}, "
		 "{pcp: 6, class: 0}, {pcp: 7, class: 0}, {pcp: 7, class: 1}]}\n",
			"t.yaml:5: qos.pcp: must have 0..8 entries, got 9");

	OK("yaml", YP "qos: {classes: 4, pcp: [{pcp: 5, class: 3}, {pcp: 0, class: 1}]}\n", &cfg);
	CHECK_EQ(rtr_config_dump(&cfg, dump_a, sizeof(dump_a)) > 0, 1);
	CHECK(strstr(dump_a, "\n  dscp: []\n") != NULL, "%s", dump_a);
	CHECK(strstr(dump_a, "\n  pcp:\n    - {pcp: 5, class: 3}\n    - {pcp: 0, class: 1}\n") !=
					NULL,
			"%s", dump_a);
	rtr_config_free(&cfg);
	OK("yaml", YP "qos: {dscp: [{dscp: 63, class: 7}]}\n", &cfg);
	CHECK_EQ(rtr_config_dump(&cfg, dump_a, sizeof(dump_a)) > 0, 1);
	CHECK(strstr(dump_a, "\n  dscp:\n    - {dscp: 63, class: 7}\n") != NULL, "%s", dump_a);
	CHECK(strstr(dump_a, "\n  pcp: []\n") != NULL, "%s", dump_a);
	rtr_config_free(&cfg);
}

static void
test_qos_rules(void)
{
	/* trust, pcp */
	ERR_Y(YP "qos: {trust: vlan}\n", "t.yaml:5: qos.trust: must be dscp or pcp, got \"vlan\"");
	ERR_C(CP "qos = { trust = \"vlan\"; };\n",
			"t.cfg:6: qos.trust: must be dscp or pcp, got \"vlan\"");
	ERR_C(CP "qos = { trust = 1; };\n",
			"t.cfg:6: qos.trust: expected a string, got an integer");
	ERR_Y(YP "qos:\n  pcp: [{pcp: 8, class: 0}]\n",
			"t.yaml:6: qos.pcp[0].pcp: must be 0..7, got 8");
	ERR_C(CP "qos = {\n  pcp = ( { pcp = 8; class = 0; } );\n};\n",
			"t.cfg:7: qos.pcp[0].pcp: must be 0..7, got 8");
	ERR_Y(YP "qos:\n  pcp:\n    - {pcp: 3, class: 3}\n    - {pcp: 3, class: 4}\n",
			"t.yaml:8: qos.pcp[1].pcp: duplicate pcp 3");
	ERR_C(CP "qos = {\n  pcp = (\n    { pcp = 3; class = 3; },\n"
		 "    { pcp = 3; class = 4; }\n  );\n};\n",
			"t.cfg:9: qos.pcp[1].pcp: duplicate pcp 3");
	ERR_Y(YP "qos:\n  pcp: [{pcp: 1, class: 4}]\n  classes: 4\n",
			"t.yaml:6: qos.pcp[0].class: must be 0..3 (qos.classes is 4), got 4");
	ERR_Y(YP "qos:\n  pcp: [{class: 1}]\n", "t.yaml:6: qos.pcp[0].pcp: required key missing");
	ERR_Y(YP "qos:\n  pcp: [{pcp: 1, class: 1, dei: 0}]\n",
			"t.yaml:6: qos.pcp[0].dei: unknown key");

	/* class_params */
	ERR_Y(YP "qos:\n  classes: 4\n  class_params:\n    - {class: 4, weight: 2}\n",
			"t.yaml:8: qos.class_params[0].class: must be 0..3 (qos.classes is 4), got "
			"4");
	ERR_C(CP "qos = {\n  class_params = (\n    { class = 4; weight = 2; }\n  );\n"
		 "  classes = 4;\n};\n",
			"t.cfg:8: qos.class_params[0].class: must be 0..3 (qos.classes is 4), got "
			"4");
	ERR_Y(YP "qos:\n  class_params: [{class: 8}]\n",
			"t.yaml:6: qos.class_params[0].class: must be 0..7, got 8");
	ERR_Y(YP "qos:\n  class_params:\n    - {class: 3, weight: 2}\n    - {class: 3, queue_kb: "
		 "10}\n",
			"t.yaml:8: qos.class_params[1].class: duplicate class 3 (first at line 7)");
	ERR_C(CP "qos = {\n  class_params = (\n    { class = 3; weight = 2; },\n"
		 "    { class = 3; queue_kb = 10; }\n  );\n};\n",
			"t.cfg:9: qos.class_params[1].class: duplicate class 3 (first at line 8)");
	ERR_Y(YP "qos:\n  classes: 4\n  class_params:\n    - {class: 3, priority: 3}\n",
			"t.yaml:8: qos.class_params[0].priority: the control class (3) is always "
			"highest; do not set it");
	ERR_C(CP "qos = {\n  class_params = (\n    { class = 0; weight = 2; },\n"
		 "    { class = 7;\n      priority = 0; }\n  );\n};\n",
			"t.cfg:10: qos.class_params[1].priority: the control class (7) is always "
			"highest; do not set it");
	ERR_Y(YP "qos:\n  class_params:\n    - {class: 2, weight: 0}\n",
			"t.yaml:7: qos.class_params[0].weight: must be 1..1000, got 0");
	ERR_C(CP "qos = {\n  class_params = (\n    { class = 2; weight = 0; }\n  );\n};\n",
			"t.cfg:8: qos.class_params[0].weight: must be 1..1000, got 0");
	ERR_Y(YP "qos:\n  class_params:\n    - {class: 2, weight: 1001}\n",
			"t.yaml:7: qos.class_params[0].weight: must be 1..1000, got 1001");
	ERR_Y(YP "qos:\n  class_params:\n    - {class: 2, priority: 8}\n",
			"t.yaml:7: qos.class_params[0].priority: must be 0..7, got 8");
	ERR_Y(YP "qos:\n  class_params:\n    - {class: 2, queue_kb: 0}\n",
			"t.yaml:7: qos.class_params[0].queue_kb: must be 1..1048576, got 0");
	ERR_Y(YP "qos:\n  class_params:\n    - {class: 2, ecn: {kmin_kb: 500}}\n",
			"t.yaml:7: qos.class_params[0].ecn.kmin_kb: must be <= kmax_kb (400), got "
			"500");
	ERR_C(CP "qos = {\n  class_params = (\n    { class = 2;\n"
		 "      ecn = { kmin_kb = 500; }; }\n  );\n};\n",
			"t.cfg:9: qos.class_params[0].ecn.kmin_kb: must be <= kmax_kb (400), got "
			"500");
	/* kmin inherited from qos.ecn: reported at the kmax that breaks it. */
	ERR_Y(YP "qos:\n  ecn: {kmin_kb: 100}\n  class_params:\n"
		 "    - class: 2\n      ecn:\n        kmax_kb: 50\n",
			"t.yaml:10: qos.class_params[0].ecn.kmin_kb: must be <= kmax_kb (50), got "
			"100");
	ERR_Y(YP "qos:\n  class_params:\n    - {class: 2, ecn: {pmax: 1.5}}\n",
			"t.yaml:7: qos.class_params[0].ecn.pmax: must be 0..1, got 1.5");
	ERR_Y(YP "qos:\n  class_params:\n    - {weight: 2}\n",
			"t.yaml:7: qos.class_params[0].class: required key missing");
	ERR_Y(YP "qos:\n  class_params:\n    - {class: 1, trim: true}\n",
			"t.yaml:7: qos.class_params[0].trim: unknown key");
	ERR_Y(YP "qos:\n  class_params: {class: 1}\n",
			"t.yaml:6: qos.class_params: expected a list, got a map");
	ERR_Y(YP "qos:\n  ecn: {enabled: 1}\n",
			"t.yaml:6: qos.ecn.enabled: expected a boolean (true or false), got an "
			"integer");

	/* trimming */
	ERR_Y(YP "qos: {trim_lengths: fix}\n",
			"t.yaml:5: qos.trim_lengths: must be keep or update, got \"fix\"");
	ERR_C(CP "qos = { trim_dscp = 64; };\n", "t.cfg:6: qos.trim_dscp: must be 0..63, got 64");
	ERR_Y(YP "qos: {trim_dscp: -1}\n", "t.yaml:5: qos.trim_dscp: must be 0..63, got -1");

	/* pfc */
	ERR_Y(YP "qos:\n  pfc:\n    mode: software\n    classes: []\n",
			"t.yaml:8: qos.pfc.classes: must list at least one class when mode is not "
			"off");
	ERR_C(CP "qos = {\n  pfc = {\n    mode = \"nic\";\n  };\n};\n",
			"t.cfg:8: qos.pfc.classes: must list at least one class when mode is not "
			"off");
	ERR_Y(YP "qos:\n  pfc: {classes: [3], xoff_kb: 100}\n",
			"t.yaml:6: qos.pfc.xon_kb: must be < xoff_kb (100), got 128");
	ERR_C(CP "qos = {\n  pfc = {\n    xoff_kb = 64;\n    xon_kb = 64;\n  };\n};\n",
			"t.cfg:9: qos.pfc.xon_kb: must be < xoff_kb (64), got 64");
	ERR_Y(YP "qos:\n  pfc: {mode: on}\n", "t.yaml:6: qos.pfc.mode: must be off, software, nic, "
					      "pause or external, got \"on\"");
	ERR_C(CP "qos = { pfc = { mode = \"hardware\"; }; };\n",
			"t.cfg:6: qos.pfc.mode: must be off, software, nic, pause or external, got "
			"\"hardware\"");
	ERR_Y(YP "qos:\n  pfc: {mode: Pause}\n", "t.yaml:6: qos.pfc.mode: must be off, software, "
						 "nic, pause or external, got "
						 "\"Pause\" (did you mean pause?)");
	ERR_C(CP "qos = { pfc = { mode = \"dcb\"; }; };\n",
			"t.cfg:6: qos.pfc.mode: must be off, software, nic, pause or external, got "
			"\"dcb\"");
	ERR_C(CP "qos = { pfc = { mode = false; }; };\n",
			"t.cfg:6: qos.pfc.mode: expected a string, got a boolean");
	ERR_Y(YP "qos:\n  classes: 4\n  pfc: {mode: software, classes: [1, 4]}\n",
			"t.yaml:7: qos.pfc.classes[1]: must be 0..3 (qos.classes is 4), got 4");
	ERR_C(CP "qos = { pfc = { mode = \"software\"; classes = [ 3, 3 ]; }; };\n",
			"t.cfg:6: qos.pfc.classes[1]: duplicate class 3");
	ERR_Y(YP "qos:\n  pfc: {classes: [x]}\n",
			"t.yaml:6: qos.pfc.classes[0]: expected an integer, got a string");
	ERR_Y(YP "qos:\n  pfc: {classes: 3}\n",
			"t.yaml:6: qos.pfc.classes: expected a list, got an integer");
	ERR_Y(YP "qos:\n  pfc: {xoff_kb: 0}\n",
			"t.yaml:6: qos.pfc.xoff_kb: must be 1..1048576, got 0");
	ERR_Y(YP "qos:\n  pfc: {quanta: 65536}\n",
			"t.yaml:6: qos.pfc.quanta: must be 1..65535, got 65536");
	ERR_Y(YP "qos:\n  pfc: {quanta: 0}\n", "t.yaml:6: qos.pfc.quanta: must be 1..65535, got 0");
	ERR_Y(YP "qos:\n  pfc: {xon: 1}\n", "t.yaml:6: qos.pfc.xon: unknown key");

	/* qos.dscp and qos.pcp hold 64 and 8 entries, and dump as flow maps. */
	qos_list_lengths();

	/* ports[].shape_burst_kb */
	ERR_Y("ports:\n  - {port: 0, role: host, shape_burst_kb: 0}\n",
			"t.yaml:2: ports[0].shape_burst_kb: must be 1..65536, got 0");
	ERR_C("ports = ( { port = 0; role = \"host\"; shape_burst_kb = 65537; } );\n",
			"t.cfg:1: ports[0].shape_burst_kb: must be 1..65536, got 65537");
}

static void
test_pfc_mode_names(void)
{
	static struct rtr_config cfg;
	char text[160];
	int i;

	for (i = 0; i < (int)RTR_ARRAY_SIZE(rtr_pfc_mode_names); i++) {
		/* The config accepts exactly these names, in this order. */
		snprintf(text, sizeof(text),
				"ports: [{port: 0, role: host}]\nqos: {pfc: {mode: %s, classes: "
				"[0]}}\n",
				rtr_pfc_mode_names[i]);
		OK("yaml", text, &cfg);
		CHECK_EQ(cfg.qos.pfc.mode, i);
		CHECK_EQ(cfg.qos.pfc.class_mask, 1);
		check_round_trip(__LINE__, &cfg);
	}
	CHECK_STR(rtr_pfc_mode_names[RTR_PFC_OFF], "off");
	CHECK_STR(rtr_pfc_mode_names[RTR_PFC_SOFTWARE], "software");
	CHECK_STR(rtr_pfc_mode_names[RTR_PFC_NIC], "nic");
	CHECK_STR(rtr_pfc_mode_names[RTR_PFC_PAUSE], "pause");
	CHECK_STR(rtr_pfc_mode_names[RTR_PFC_EXTERNAL], "external");
	CHECK_EQ((int)RTR_ARRAY_SIZE(rtr_pfc_mode_names), 5);
	/* The new modes in libconfig too, with their figures kept. */
	OK("cfg",
			"ports = ( { port = 0; role = \"host\"; } );\n"
			"qos = { pfc = { mode = \"pause\"; classes = [ 3 ]; quanta = 100; }; };\n",
			&cfg);
	CHECK_EQ(cfg.qos.pfc.mode, RTR_PFC_PAUSE);
	CHECK_EQ(cfg.qos.pfc.quanta, 100);
	OK("cfg",
			"ports = ( { port = 0; role = \"host\"; } );\n"
			"qos = { pfc = { mode = \"external\"; classes = [ 3 ]; }; };\n",
			&cfg);
	CHECK_EQ(cfg.qos.pfc.mode, RTR_PFC_EXTERNAL);
	CHECK_EQ(cfg.qos.pfc.class_mask, 0x08);
	check_round_trip(__LINE__, &cfg);
}

static void
test_syntax(void)
{
	static struct rtr_config cfg;
	char deep[256], err[64], longval[4096];
	int i;

	ERR_Y("switch:\n  id: 1\n  name: [a\nports: x\n",
			"t.yaml:4: syntax: did not find expected ',' or ']' while parsing a flow "
			"sequence");
	ERR_Y("switch:\n  id: 1\n   x: 2\n",
			"t.yaml:3: syntax: mapping values are not allowed in this context");
	ERR_Y("ports:\n\t- x\n", "t.yaml:2: syntax: found character that cannot start any token "
				 "while scanning for "
				 "the next token");
	ERR_C("switch = {\n  id = = 1;\n};\n", "t.cfg:2: syntax: syntax error");
	ERR_C("ports = (\n  { port = 0; role = \"host; }\n);\n", "t.cfg:4: syntax: syntax error");
	ERR_Y("switch:\n  id: 1\n  id: 2\n", "t.yaml:3: switch.id: duplicate key");
	ERR_Y("ports:\n  - {port: 0, role: host, port: 1}\n",
			"t.yaml:2: ports[0].port: duplicate key");
	ERR_C("switch = {\n  id = 1;\n  id = 2;\n};\n", "t.cfg:3: syntax: duplicate setting name");
	ERR_Y("ports:\n  - &p {port: 0, role: host}\n  - *p\n",
			"t.yaml:2: ports[0]: anchors and aliases are not supported");
	ERR_Y("x: 1\nports:\n  - *p\n",
			"t.yaml:3: ports[0]: anchors and aliases are not supported");
	ERR_Y("switch: {id: !!int 5}\n", "t.yaml:1: switch.id: tags are not supported");
	ERR_Y("ports: [{port: 0, role: host}]\n---\nports: []\n",
			"t.yaml:2: syntax: only one YAML document is allowed");
	ERR_C("ports = ();\n@include \"/etc/passwd\"\n",
			"t.cfg:2: syntax: @include is not supported");
	ERR("json", "{}", "t.cfg: unknown config format \"json\" (yaml or cfg)");
	ERR_Y("switch: {name: \"a\\0b\"}\n", "t.yaml:1: switch.name: NUL character in a value");

	/* NUL inside the buffer, which strlen-based load_str cannot pass. */
	CHECK(rtr_config_load_buf("t.yaml", "yaml", "a: 1\nb\0: 2\n", 11, &cfg, err, sizeof(err)) ==
			-1);
	CHECK_STR(err, "t.yaml:2: syntax: NUL byte in the file");

	/* Nesting is bounded, so recursion is too. */
	for (i = 0; i < 100; i++)
		deep[i] = '[';
	deep[i] = '\0';
	ERR_Y(deep, "t.yaml:1: [0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"
		    "[0][0][0][0][0][0][0][0][0][0][0]: nesting deeper than 32 levels");

	/* A message longer than the buffer is cut, never overflows. */
	memset(longval, 'v', sizeof(longval) - 1);
	longval[sizeof(longval) - 1] = '\0';
	memcpy(longval, "lb: ", 4);
	memset(err, '#', sizeof(err));
	CHECK(rtr_config_load_buf("t.yaml", "yaml", longval, strlen(longval), &cfg, err,
			      sizeof(err)) == -1);
	CHECK_STR(err, "t.yaml:1: lb: unknown key");
	memcpy(longval, "switch: {lb: ", 13);
	longval[sizeof(longval) - 2] = '}';
	CHECK(rtr_config_load_buf("t.yaml", "yaml", longval, strlen(longval), &cfg, err,
			      sizeof(err)) == -1);
	CHECK_EQ(strlen(err), sizeof(err) - 1);
	CHECK(strncmp(err, "t.yaml:1: switch.lb: must be ecmp", 33) == 0, "%s", err);
	/* No buffer at all is fine too. */
	CHECK(load_str("yaml", "x: 1\n", &cfg, NULL, 0) == -1);
}

/* Every prefix of an example, in both formats: never a crash, always one
 * line naming the file when it fails.
 */
static void
test_truncations(const char *dir, const char *name, const char *fmt)
{
	static struct rtr_config cfg;
	char path[1024], err[512], *buf;
	unsigned int bad = 0, failed = 0;
	size_t len, n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, fmt);
	f = fopen(path, "r");
	CHECK(f != NULL, "%s: %s", path, strerror(errno));
	if (f == NULL)
		return;
	buf = malloc(1 << 20);
	len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	for (n = 0; n <= len; n++) {
		if (rtr_config_load_buf("cut", fmt, buf, n, &cfg, err, sizeof(err)) == 0) {
			rtr_config_free(&cfg);
			continue;
		}
		failed++;
		if (strncmp(err, "cut:", 4) != 0 || strchr(err, '\n') != NULL ||
				cfg.routes != NULL) {
			bad++;
			fprintf(stderr, "bad error for %zu bytes: %s\n", n, err);
		}
	}
	free(buf);
	CHECK_EQ(bad, 0);
	CHECK(failed > len / 2, "%s: only %u of %zu prefixes failed", path, failed, len);
}

/* Writes text to dir/name; loading that file must fail with its path, then want. */
static void
file_error(const char *dir, const char *name, const char *text, const char *want)
{
	static struct rtr_config cfg;
	char path[256], err[512], full[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f != NULL) {
		fputs(text, f);
		fclose(f);
	}
	CHECK(rtr_config_load(path, &cfg, err, sizeof(err)) == -1);
	snprintf(full, sizeof(full), "%s%s", path, want);
	CHECK_STR(err, full);
	unlink(path);
}

static void
test_files(const char *dir)
{
	static struct rtr_config cfg;
	char tmpl[] = "/tmp/rtr_config_test.XXXXXX", path[256], err[512], want[512];
	const char *exts[] = {"yml", "conf"};
	char src[1024], *buf;
	unsigned int i;
	size_t len;
	FILE *f;

	CHECK(rtr_config_load("/nonexistent/x.yaml", &cfg, err, sizeof(err)) == -1);
	CHECK_STR(err, "/nonexistent/x.yaml: cannot open: No such file or directory");
	CHECK(rtr_config_load("conf/x.json", &cfg, err, sizeof(err)) == -1);
	CHECK_STR(err, "conf/x.json: unknown config format (use .yaml, .yml, .cfg or .conf)");
	CHECK(rtr_config_load("conf.d/noext", &cfg, err, sizeof(err)) == -1);
	CHECK_STR(err, "conf.d/noext: unknown config format (use .yaml, .yml, .cfg or .conf)");

	if (mkdtemp(tmpl) == NULL) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	/* An empty file has no ports. */
	file_error(tmpl, "empty.yaml", "", ":1: ports: required key missing");
	file_error(tmpl, "empty.cfg", "", ":1: ports: required key missing");

	/* A file error names the real file and line. */
	file_error(tmpl, "bad.yaml", "ports:\n  - {port: 0, role: host}\nswitch:\n  lb: fastest\n",
			":4: switch.lb: must be ecmp, conweave, seqbalance, caver, spray, letflow, "
			"drill or conga, got "
			"\"fastest\"");

	/* A directory opens but does not read. */
	snprintf(path, sizeof(path), "%s/dir.yaml", tmpl);
	mkdir(path, 0700);
	CHECK(rtr_config_load(path, &cfg, err, sizeof(err)) == -1);
	snprintf(want, sizeof(want), "%s: cannot read: Is a directory", path);
	CHECK_STR(err, want);
	rmdir(path);

	/* .yml and .conf are the same formats. */
	buf = malloc(1 << 20);
	for (i = 0; i < 2; i++) {
		snprintf(src, sizeof(src), "%s/demo-tor.%s", dir, i == 0 ? "yaml" : "cfg");
		f = fopen(src, "r");
		CHECK(f != NULL);
		if (f == NULL)
			continue;
		len = fread(buf, 1, 1 << 20, f);
		fclose(f);
		snprintf(path, sizeof(path), "%s/demo.%s", tmpl, exts[i]);
		f = fopen(path, "w");
		fwrite(buf, 1, len, f);
		fclose(f);
		CHECK(rtr_config_load(path, &cfg, err, sizeof(err)) == 0, "%s", err);
		CHECK_EQ(cfg.n_routes, 4);
		rtr_config_free(&cfg);
		unlink(path);
	}
	free(buf);
	rmdir(tmpl);
}

/* switch.lb takes the LB registry's names (lib/lb hands them over). */
static void
test_lb_names(void)
{
	static struct rtr_config cfg;
	char text[128];
	int i;

	for (i = 0; i < (int)rtr_lb_mode_count(); i++) {
		CHECK_EQ(rtr_lb_mode_find(rtr_lb_mode_at(i)->name), i);
		/* The config accepts exactly these names, in this order. */
		snprintf(text, sizeof(text), "switch: {lb: %s}\nports: [{port: 0, role: host}]\n",
				rtr_lb_mode_at(i)->name);
		OK("yaml", text, &cfg);
		CHECK_EQ(cfg.sw.lb, i);
		rtr_config_free(&cfg);
	}
	CHECK_STR(rtr_lb_mode_at(RTR_LB_CONWEAVE)->name, "conweave");
	CHECK_STR(rtr_lb_mode_at(RTR_LB_SPRAY)->name, "spray");
	CHECK_EQ(rtr_lb_mode_find("ECMP"), -1);
	CHECK_EQ(rtr_lb_mode_find(""), -1);
	/* The registry takes no NULL name; the config's accessor takes no
	 * id beyond what a config holds. */
	CHECK(rtr_config_lb(&cfg, RTR_LB_MODES_MAX) == NULL);
}

/* ---- faults: lab impairments of the LB control loop ------------------------ */

static void
test_faults(void)
{
	static struct rtr_config y, c, r;
	char err[512];
	int n;

	/* Defaults: off, seed 1; hand-off ring 4096. */
	OK("yaml", YP, &y);
	CHECK(y.faults.seed == 1);
	CHECK(y.faults.ctrl_loss.rtt_reply == 0 && y.faults.ctrl_loss.clear == 0 &&
			y.faults.ctrl_loss.notify == 0 && y.faults.ctrl_loss.tail == 0 &&
			y.faults.ctrl_loss.advert == 0);
	CHECK_EQ(y.sw.handoff_ring, 4096);
	rtr_config_free(&y);

	OK("yaml",
			YP "switch: {handoff_ring: 1}\n"
			   "faults:\n  seed: 18446744073709551615\n"
			   "  ctrl_loss: {rtt_reply: 0.01, clear: 0.1, notify: 1, tail: 0.5, "
			   "advert: 0}\n",
			&y);
	CHECK_EQ(y.sw.handoff_ring, 1);
	CHECK(y.faults.seed == UINT64_MAX);
	CHECK(y.faults.ctrl_loss.rtt_reply == 0.01 && y.faults.ctrl_loss.clear == 0.1 &&
			y.faults.ctrl_loss.notify == 1.0 && y.faults.ctrl_loss.tail == 0.5 &&
			y.faults.ctrl_loss.advert == 0);
	OK("cfg",
			CP "switch = { handoff_ring = 1; };\n"
			   "faults = { seed = 0x7FFFFFFFFFFFFFFFL;\n"
			   "  ctrl_loss = { rtt_reply = 0.01; clear = 0.1; notify = 1; tail = 0.5; "
			   "advert = 0; }; };\n",
			&c);
	y.faults.seed = INT64_MAX;
	CHECK(config_equal(&y, &c));
	n = rtr_config_dump(&y, dump_a, sizeof(dump_a));
	CHECK(strstr(dump_a, "faults:") != NULL && strstr(dump_a, "ctrl_loss:") != NULL, "dump: %s",
			dump_a);
	CHECK(rtr_config_load_buf("d.yaml", "yaml", dump_a, (size_t)n, &r, err, sizeof(err)) == 0,
			"%s", err);
	CHECK(config_equal(&y, &r));
	rtr_config_free(&y);
	rtr_config_free(&c);
	rtr_config_free(&r);

	ERR_Y(YP "faults: {ctrl_loss: {tail: 1.5}}\n",
			"t.yaml:5: faults.ctrl_loss.tail: must be 0..1, got 1.5");
	ERR_C(CP "faults = { ctrl_loss = { clear = -0.5; }; };\n",
			"t.cfg:6: faults.ctrl_loss.clear: must be 0..1, got -0.5");
	ERR_Y(YP "faults:\n  ctrl_loss:\n    reply: 0.1\n",
			"t.yaml:7: faults.ctrl_loss.reply: unknown key");
	ERR_C(CP "faults = { loss = 0.1; };\n", "t.cfg:6: faults.loss: unknown key");
	ERR_Y(YP "faults: {ctrl_loss: {notify: high}}\n",
			"t.yaml:5: faults.ctrl_loss.notify: expected a number, got a string");
	ERR_Y(YP "faults: {seed: -1}\n",
			"t.yaml:5: faults.seed: must be 0..18446744073709551615, got -1");
	ERR_Y(YP "faults: {ctrl_loss: 0.1}\n",
			"t.yaml:5: faults.ctrl_loss: expected a map, got a float");
	ERR_Y(YP "switch: {handoff_ring: 0}\n",
			"t.yaml:5: switch.handoff_ring: must be 1..65536, got 0");
	ERR_C(CP "switch = { handoff_ring = 65537; };\n",
			"t.cfg:6: switch.handoff_ring: must be 1..65536, got 65537");
}

/* ---- the MTU rule (doc/config.md, mtu) ----------------------------------- */

/* A ToR in mode lb: host port 0 and fabric ports 1 and 2, each "mtu: N"
 * when its argument is nonzero (2: another host port when host2). */
static const char *
mtu_yaml(char *buf, size_t len, const char *lb, unsigned int h, unsigned int f1, unsigned int f2,
		bool host2)
{
	char m[3][24];
	unsigned int v[3] = {h, f1, f2};

	for (unsigned int i = 0; i < 3; i++)
		snprintf(m[i], sizeof(m[i]), v[i] ? ", mtu: %u" : "", v[i]);
	snprintf(buf, len,
			"switch: {name: m, id: 3, lb: %s}\n"
			"ports:\n"
			"  - {port: 0, role: host%s}\n"
			"  - {port: 1, role: fabric%s}\n"
			"  - {port: 2, role: %s%s}\n"
			"routes:\n"
			"  - prefix: \"10.2.0.0/16\"\n"
			"    paths: [{port: 1, nexthop_mac: \"02:00:00:00:bb:01\"}]\n",
			lb, m[0], m[1], host2 ? "host" : "fabric", m[2]);
	return buf;
}

static void
test_mtu_rule(void)
{
	static struct rtr_config cfg;
	char y[1024], err[512];
	bool dev[3] = {false, false, false};

	/* The header comes from the registry: the modes whose DstToR takes
	 * frames with the LB header add it (ConWeave, spray), on a ToR. */
	CHECK_EQ(rtr_lb_mode_fabric_hdr(RTR_LB_CONWEAVE, false), RTR_LB_HDR_LEN);
	CHECK_EQ(rtr_lb_mode_fabric_hdr(RTR_LB_SPRAY, false), RTR_LB_HDR_LEN);
	CHECK_EQ(rtr_lb_mode_fabric_hdr(RTR_LB_ECMP, false), 0);
	CHECK_EQ(rtr_lb_mode_fabric_hdr(RTR_LB_SEQBALANCE, false), 0);
	CHECK_EQ(rtr_lb_mode_fabric_hdr(RTR_LB_CAVER, false), 0);
	CHECK_EQ(rtr_lb_mode_fabric_hdr(RTR_LB_CONWEAVE, true), 0); /* a spine forwards it */
	CHECK_EQ(rtr_lb_mode_fabric_hdr(RTR_LB_MAX, false), 0);

	/* Fabric 9000 below host 9000 plus the 4-byte header: ConWeave, spray. */
	ERR_Y(mtu_yaml(y, sizeof(y), "conweave", 9000, 9000, 9100, false),
			"t.yaml:4: ports[1].mtu: fabric port 1's mtu 9000 cannot carry host port "
			"0's largest frame (mtu 9000) plus the 4-byte LB header of conweave "
			"(switch.lb): needs 9004 or more (doc/config.md, mtu)");
	ERR_Y(mtu_yaml(y, sizeof(y), "spray", 9000, 9100, 9000, false),
			"t.yaml:5: ports[2].mtu: fabric port 2's mtu 9000 cannot carry host port "
			"0's largest frame (mtu 9000) plus the 4-byte LB header of spray "
			"(switch.lb): needs 9004 or more (doc/config.md, mtu)");
	ERR_C("switch = { lb = \"conweave\"; };\n"
	      "ports = (\n"
	      "  { port = 0; role = \"host\"; mtu = 4200; },\n"
	      "  { port = 1; role = \"fabric\";\n"
	      "    mtu = 4200; }\n"
	      ");\n",
			"t.cfg:5: ports[1].mtu: fabric port 1's mtu 4200 cannot carry host port "
			"0's largest frame (mtu 4200) plus the 4-byte LB header of conweave "
			"(switch.lb): needs 4204 or more (doc/config.md, mtu)");
	/* Against the host port of the largest mtu. */
	ERR_Y(mtu_yaml(y, sizeof(y), "conweave", 4200, 9000, 9000, true),
			"t.yaml:4: ports[1].mtu: fabric port 1's mtu 9000 cannot carry host port "
			"2's largest frame (mtu 9000) plus the 4-byte LB header of conweave "
			"(switch.lb): needs 9004 or more (doc/config.md, mtu)");
	/* Modes without a header on the fabric: equal MTUs are fine. */
	OK("yaml", mtu_yaml(y, sizeof(y), "ecmp", 9000, 9000, 9000, false), &cfg);
	rtr_config_free(&cfg);
	OK("yaml", mtu_yaml(y, sizeof(y), "seqbalance", 9000, 9000, 9000, false), &cfg);
	rtr_config_free(&cfg);
	OK("yaml", mtu_yaml(y, sizeof(y), "caver", 9000, 9000, 9000, false), &cfg);
	rtr_config_free(&cfg);
	/* Fabric 9100 (the shipped configs), and the boundary 9004. */
	OK("yaml", mtu_yaml(y, sizeof(y), "conweave", 9000, 9100, 9004, false), &cfg);
	rtr_config_free(&cfg);
	OK("yaml", mtu_yaml(y, sizeof(y), "spray", 9000, 9100, 9100, false), &cfg);
	rtr_config_free(&cfg);
	ERR_Y(mtu_yaml(y, sizeof(y), "spray", 9000, 9100, 9003, false),
			"t.yaml:5: ports[2].mtu: fabric port 2's mtu 9003 cannot carry host port "
			"0's largest frame (mtu 9000) plus the 4-byte LB header of spray "
			"(switch.lb): needs 9004 or more (doc/config.md, mtu)");
	/* An unset mtu is the device's: checked at start-up, not here. */
	OK("yaml", mtu_yaml(y, sizeof(y), "conweave", 9000, 0, 0, false), &cfg);
	rtr_config_free(&cfg);
	OK("yaml", mtu_yaml(y, sizeof(y), "conweave", 0, 1500, 1500, false), &cfg);
	rtr_config_free(&cfg);
	/* A spine: fabric ports only; it forwards the header as it is. */
	OK("yaml",
			"switch: {role: spine, lb: conweave}\nports:\n"
			"  - {port: 0, role: fabric, mtu: 9000}\n  - {port: 1, role: fabric, mtu: "
			"9000}\n",
			&cfg);
	rtr_config_free(&cfg);

	/* --lb: a config of mode ecmp that loads, checked again with the
	 * header of the mode --lb runs (what app/main.c does). */
	OK("yaml", mtu_yaml(y, sizeof(y), "ecmp", 9000, 9100, 9000, false), &cfg);
	CHECK_EQ(rtr_config_check_mtu(&cfg, rtr_lb_mode_fabric_hdr(RTR_LB_ECMP, false),
				 "of ecmp (--lb)", NULL, err, sizeof(err)),
			0);
	CHECK_STR(err, "");
	CHECK_EQ(rtr_config_check_mtu(&cfg, rtr_lb_mode_fabric_hdr(RTR_LB_SPRAY, false),
				 "of spray (--lb)", NULL, err, sizeof(err)),
			-1);
	CHECK_STR(err, "t.yaml:5: ports[2].mtu: fabric port 2's mtu 9000 cannot carry host port "
		       "0's largest frame (mtu 9000) plus the 4-byte LB header of spray (--lb): "
		       "needs 9004 or more (doc/config.md, mtu)");
	rtr_config_free(&cfg);

	/* Start-up: unset mtus filled in with the devices' (app/ports.c). */
	OK("yaml", mtu_yaml(y, sizeof(y), "conweave", 9000, 0, 9100, false), &cfg);
	cfg.ports[1].mtu = 1500;
	dev[1] = true;
	CHECK_EQ(rtr_config_check_mtu(&cfg, RTR_LB_HDR_LEN, "of conweave (switch.lb)", dev, err,
				 sizeof(err)),
			-1);
	/* No "mtu" key: the line of the port's entry. */
	CHECK_STR(err, "t.yaml:4: ports[1].mtu: fabric port 1's mtu 1500 (unset: the device's) "
		       "cannot carry host port 0's largest frame (mtu 9000) plus the 4-byte LB "
		       "header of conweave (switch.lb): needs 9004 or more (doc/config.md, mtu)");
	/* The host's from the device, the fabric's from the config. */
	cfg.ports[1].mtu = 9100;
	dev[1] = false;
	cfg.ports[0].mtu = 9100;
	dev[0] = true;
	CHECK_EQ(rtr_config_check_mtu(&cfg, RTR_LB_HDR_LEN, "of conweave (switch.lb)", dev, err,
				 sizeof(err)),
			-1);
	CHECK_STR(err, "t.yaml:4: ports[1].mtu: fabric port 1's mtu 9100 cannot carry host port "
		       "0's largest frame (mtu 9100, unset: the device's) plus the 4-byte LB "
		       "header of conweave (switch.lb): needs 9104 or more (doc/config.md, mtu)");
	/* Both the devices': no error (app/main.c warns). */
	cfg.ports[1].mtu = 1500;
	dev[1] = true;
	cfg.ports[2].mtu = 1500;
	dev[2] = true;
	cfg.ports[0].mtu = 1500;
	CHECK_EQ(rtr_config_check_mtu(&cfg, RTR_LB_HDR_LEN, "of conweave (switch.lb)", dev, err,
				 sizeof(err)),
			0);
	rtr_config_free(&cfg);
}

/* issue 31: the bounded NIC ring's keys and the class-to-hardware-queue map. */
static void
test_nic_ring_and_hw_queues(void)
{
	static struct rtr_config y, c;

	OK("yaml",
			"ports:\n"
			"  - {port: 0, role: host, ip: \"10.1.0.254/16\", nic_ring_kb: 0}\n"
			"  - {port: 1, role: fabric, ip: \"192.168.1.1/30\", nic_ring_kb: 64,\n"
			"     nic_ring_desc: 128}\n"
			"qos:\n"
			"  classes: 4\n"
			"  hw_queues: 3\n"
			"  pfc: {mode: software, classes: [1]}\n"
			"  class_params:\n"
			"    - {class: 2, hw_queue: 0}\n",
			&y);
	CHECK_EQ(y.ports[0].nic_ring_kb, 0);
	CHECK_EQ(y.ports[1].nic_ring_kb, 64);
	CHECK_EQ(y.ports[1].nic_ring_desc, 128);
	CHECK_EQ(y.qos.hw_queues, 3);
	/* The default map: control 0, lossless 1, lossy 2; class 2 given. */
	CHECK_EQ(rtr_config_hw_queue(&y, 3), 0);
	CHECK_EQ(rtr_config_hw_queue(&y, 1), 1);
	CHECK_EQ(rtr_config_hw_queue(&y, 0), 2);
	CHECK_EQ(rtr_config_hw_queue(&y, 2), 0);
	check_round_trip(__LINE__, &y);
	/* Two queues: control apart, every data class on queue 1; one: all 0. */
	OK("yaml", YP "qos: {classes: 3, hw_queues: 2}\n", &c);
	CHECK(rtr_config_hw_queue(&c, 2) == 0 && rtr_config_hw_queue(&c, 1) == 1 &&
			rtr_config_hw_queue(&c, 0) == 1);
	OK("yaml", YP "qos: {classes: 3}\n", &c);
	CHECK(c.qos.hw_queues == 1 && rtr_config_hw_queue(&c, 2) == 0 &&
			rtr_config_hw_queue(&c, 0) == 0);
	ERR_Y(YP "qos:\n  hw_queues: 2\n  class_params:\n    - {class: 0, hw_queue: 2}\n",
			"t.yaml:8: qos.class_params[0].hw_queue: must be < qos.hw_queues (2), got "
			"2");
	ERR_Y(YP "qos: {hw_queues: 5}\n", "t.yaml:5: qos.hw_queues: must be 1..4, got 5");
	ERR_Y("ports:\n  - {port: 0, role: host, nic_ring_kb: 65537}\n",
			"t.yaml:2: ports[0].nic_ring_kb: must be 0 or 1..65536, got 65537");
}

/* qos.buffer: the static default, the shared pool's keys, ranges and rules. */
static void
test_qos_buffer(void)
{
	static struct rtr_config y, c;

	/* Defaults: static (today's behaviour); the shared keys' defaults. */
	OK("yaml", YP, &y);
	CHECK_EQ(y.qos.buffer.mode, RTR_BUFFER_STATIC);
	CHECK_EQ(y.qos.buffer.size_kb, 9216);
	CHECK(y.qos.buffer.alpha == 1.0);
	CHECK_EQ(y.qos.buffer.headroom_kb, 32);
	CHECK_EQ(y.qos.buffer.pfc_divisor, 16);
	CHECK_EQ(y.qos.buffer.xon_offset_kb, 3);
	CHECK_EQ(y.qos.buffer.cell_bytes, 0);
	rtr_config_free(&y);

	OK("yaml",
			YP "qos:\n  buffer: {mode: shared, size_kb: 4096, alpha: 0.5, "
			   "headroom_kb: 64, pfc_divisor: 8, xon_offset_kb: 0, cell_bytes: 208}\n",
			&y);
	CHECK_EQ(y.qos.buffer.mode, RTR_BUFFER_SHARED);
	CHECK_EQ(y.qos.buffer.size_kb, 4096);
	CHECK(y.qos.buffer.alpha == 0.5);
	CHECK_EQ(y.qos.buffer.headroom_kb, 64);
	CHECK_EQ(y.qos.buffer.pfc_divisor, 8);
	CHECK_EQ(y.qos.buffer.xon_offset_kb, 0);
	CHECK_EQ(y.qos.buffer.cell_bytes, 208);
	OK("cfg",
			CP "qos = { buffer = { mode = \"shared\"; size_kb = 4096; alpha = 0.5; "
			   "headroom_kb = 64; pfc_divisor = 8; xon_offset_kb = 0; cell_bytes = "
			   "208; }; "
			   "};\n",
			&c);
	CHECK(config_equal(&y, &c), "yaml and libconfig give the same qos.buffer");
	rtr_config_free(&y);
	rtr_config_free(&c);

	ERR_Y(YP "qos:\n  buffer: {mode: dynamic}\n",
			"t.yaml:6: qos.buffer.mode: must be static or shared, got \"dynamic\"");
	ERR_Y(YP "qos:\n  buffer: {size_kb: 32}\n",
			"t.yaml:6: qos.buffer.size_kb: must be 64..1048576, got 32");
	ERR_C(CP "qos = { buffer = { alpha = 0; }; };\n",
			"t.cfg:6: qos.buffer.alpha: must be >0 and <=64, got 0");
	ERR_Y(YP "qos:\n  buffer: {alpha: 65}\n",
			"t.yaml:6: qos.buffer.alpha: must be >0 and <=64, got 65");
	ERR_Y(YP "qos:\n  buffer: {pfc_divisor: 12}\n", "t.yaml:6: qos.buffer.pfc_divisor: must be "
							"a power of two in 1..1024, got 12");
	ERR_Y(YP "qos:\n  buffer: {headroom_kb: 65537}\n",
			"t.yaml:6: qos.buffer.headroom_kb: must be 0..65536, got 65537");
	ERR_Y(YP "qos:\n  buffer: {xon_offset_kb: -1}\n",
			"t.yaml:6: qos.buffer.xon_offset_kb: must be 0..65536, got -1");
	ERR_Y(YP "qos:\n  buffer: {cell_bytes: 16385}\n",
			"t.yaml:6: qos.buffer.cell_bytes: must be 0..16384, got 16385");
	/* With PFC the three ports' headroom must leave some of the pool. */
	ERR_Y(YP "qos:\n  pfc: {mode: software, classes: [3]}\n"
		 "  buffer:\n    mode: shared\n    size_kb: 96\n    headroom_kb: 32\n",
			"t.yaml:10: qos.buffer.headroom_kb: headroom_kb x 3 ports (96) must be < "
			"size_kb (96)");
	ERR_C(CP "qos = {\n  pfc = { mode = \"software\"; classes = [3]; };\n"
		 "  buffer = {\n    mode = \"shared\";\n    size_kb = 96;\n"
		 "    headroom_kb = 32;\n  };\n};\n",
			"t.cfg:11: qos.buffer.headroom_kb: headroom_kb x 3 ports (96) must be < "
			"size_kb (96)");
	/* ... in static mode, or without PFC, no headroom is reserved: no rule. */
	OK("yaml",
			YP "qos:\n  pfc: {mode: software, classes: [3]}\n"
			   "  buffer: {size_kb: 96, headroom_kb: 32}\n",
			&y);
	rtr_config_free(&y);
	OK("yaml", YP "qos:\n  buffer: {mode: shared, size_kb: 96, headroom_kb: 32}\n", &y);
	rtr_config_free(&y);
}

int
main(int argc, char **argv)
{
	static const char *const examples[] = {"demo-tor", "demo-dsttor", "tor-100g", "spine"};
	const char *dir = argc > 1 ? argv[1] : "conf";
	unsigned int i;

	for (i = 0; i < RTR_ARRAY_SIZE(examples); i++)
		test_example(dir, examples[i]);
	test_demo_tor(dir);
	test_tor_100g(dir);
	test_defaults();
	test_spellings();
	test_unknown_keys();
	test_wrong_types();
	test_ranges();
	test_ports_and_addresses();
	test_routes();
	test_routes_ok();
	test_conweave_rules();
	test_conweave_bounds();
	test_conweave_hold_budget();
	test_qos_classes();
	test_qos_rules();
	test_pfc_mode_names();
	test_qos_buffer();
	test_syntax();
	test_truncations(dir, "demo-tor", "yaml");
	test_truncations(dir, "demo-tor", "cfg");
	test_files(dir);
	test_lb_names();
	test_faults();
	test_mtu_rule();
	test_nic_ring_and_hw_queues();
	return rtr_test_done("config");
}
