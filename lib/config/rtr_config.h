/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The configuration: one schema (DESIGN.md B3), two readers (libyaml for
 * .yaml/.yml, libconfig for .cfg/.conf) that both build the same generic
 * document tree, and one validator that turns the tree into struct
 * rtr_config. Every error is one line: "FILE:LINE: KEY: problem".
 * No EAL is needed: unit tests and fuzzers call rtr_config_load directly.
 *
 * lib/config knows no LB mode. The LB registry (lib/lb) hands it the
 * modes' names and config sections before main() (rtr_config_set_lb_modes);
 * each mode's section is described with the schema engine's tables
 * (rtr_cfg_schema.h) in lib/lb/<mode>/<mode>_config.c and read back with
 * the mode's accessor (rtr_config_section()).
 */
#ifndef RTR_CONFIG_H
#define RTR_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "rtr_common.h"

enum rtr_role { RTR_ROLE_TOR = 0, RTR_ROLE_SPINE };
enum rtr_port_role { RTR_PORT_HOST = 0, RTR_PORT_FABRIC };

/* LB modes a config can know (the registry's size, lib/lb, is at most this):
 * eight today, and room for the worked examples of
 * doc/architecture.md, which tests/pkt/test_add_mode.py adds to them. */
#define RTR_LB_MODES_MAX 16
/* Bytes an LB mode's section may take in struct rtr_config. */
#define RTR_LB_CFG_SIZE 256

/* An IPv4 or IPv6 address, with a prefix length when it is a prefix. */
struct rtr_addr {
	uint8_t family; /* AF_INET or AF_INET6 */
	uint8_t depth;  /* prefix length (32/128 for a host address) */
	union {
		struct in_addr v4; /* network order */
		struct in6_addr v6;
	};
};

#define RTR_NIC_RING_AUTO    UINT32_MAX
#define RTR_NIC_RING_AUTO_KB 32 /* what auto means on a hardware NIC */

struct rtr_port_cfg {
	uint16_t port; /* DPDK port id */
	/* The kernel interface that stands for this port to FRR (its tap, or
	 * an interface of FRR's namespace): FPM's next hops name it by
	 * ifindex (doc/routing.md). "": none. */
	char ifname[16];
	bool tap; /* make ifname a TAP: the exception path (doc/routing.md) */
	enum rtr_port_role role;
	uint8_t mac[6];
	bool mac_set;            /* else the device's own MAC is used */
	uint32_t speed_gbps;     /* 0 = unknown; used by shaping/DRE later */
	double shape_gbps;       /* 0 = no shaping */
	uint32_t shape_burst_kb; /* token bucket depth, default 16 */
	uint32_t delay_us;       /* 0 = none */
	double loss;             /* 0..1 */
	uint64_t loss_seed;
	bool admin_down;
	uint16_t rx_queues; /* 0 = one per worker (capped by the device) */
	uint16_t tx_queues; /* 0 = one per worker */
	uint16_t mtu;       /* 0 = device default */
	/* The bounded NIC ring (doc/egress.md "The NIC ring"): bytes the
	 * egress lets the NIC hold ahead of the link clock, paced at the
	 * link rate. RTR_NIC_RING_AUTO: on for hardware NICs (nic_caps),
	 * off for virtual ports; 0: off (push while tx_burst takes). */
	uint32_t nic_ring_kb;
	/* Hard cap on descriptors in flight per TX queue, read back through
	 * rte_eth_tx_descriptor_status where the driver has it; 0: auto. */
	uint16_t nic_ring_desc;
	int mtu_line;   /* where "mtu" is in the file, 0 when not given */
	bool l2_filter; /* drop unicast frames not addressed to our MAC */
	/* Host ports: limits on the LB flow-table entries their packets create
	 * (doc/security.md). flow_share 0 = automatic (rtr_config_flow_share). */
	uint32_t flow_rate;  /* new entries per second, 0 = unlimited */
	uint32_t flow_burst; /* above the rate at once */
	double flow_share;   /* fraction of each flow table, 0 = automatic */
	bool source_check;   /* host port: the source must route back to it */
	unsigned int n_addrs;
	struct rtr_addr addrs[RTR_MAX_PORT_ADDRS]; /* "ip:" interface addresses */
	int line;                                  /* where the entry starts in the file */
};

/* One next hop: a port and the neighbour behind it. */
struct rtr_nexthop_cfg {
	uint16_t port;
	uint8_t mac[6];
	bool mac_set;       /* else resolved by ARP/ND */
	struct rtr_addr ip; /* neighbour address to resolve; family 0 if none */
	int line;
};

struct rtr_route_cfg {
	struct rtr_addr prefix;
	bool is_group;        /* "paths:" given: an uplink group, path_id = index */
	unsigned int n_paths; /* 1 when !is_group */
	struct rtr_nexthop_cfg paths[RTR_MAX_PATHS];
	int line;
};

struct rtr_dscp_map {
	uint8_t dscp;
	uint8_t class;
};

struct rtr_pcp_map {
	uint8_t pcp;
	uint8_t class;
};

/* RED/ECN on a class queue's depth in bytes (ALGORITHMS.md 5, DCQCN). */
struct rtr_ecn_cfg {
	bool enabled; /* "enabled", default true */
	uint32_t kmin_kb;
	uint32_t kmax_kb;
	double pmax;
};

/*
 * Per-class scheduling and admission. After validation every class
 * 0..classes-1 has an entry: the defaults come from qos.queue_kb / qos.ecn
 * and priority = class index, weight 1; "qos.class_params" overrides them.
 * The control class (classes-1) is always served first.
 */
#define RTR_HWQ_AUTO      0xff
#define RTR_MAX_HW_QUEUES 4

struct rtr_class_cfg {
	uint8_t priority;  /* strict-priority level, higher first */
	uint16_t weight;   /* DWRR weight among classes of one level */
	uint32_t queue_kb; /* tail-drop (or trim) threshold */
	struct rtr_ecn_cfg ecn;
	uint8_t hw_queue; /* hardware TX queue (of qos.hw_queues); RTR_HWQ_AUTO */
	bool set;         /* given in class_params (for the dump) */
	int line;
};

/* pause: 802.3x link pause through rte_eth_dev_flow_ctrl_set; external: PFC
 * set outside DPDK (mlnx_qos, dcb), rocetor sets nothing and watches the
 * NIC's pause counters. New modes go at the end (the values are kept). */
enum rtr_pfc_mode {
	RTR_PFC_OFF = 0,
	RTR_PFC_SOFTWARE,
	RTR_PFC_NIC,
	RTR_PFC_PAUSE,
	RTR_PFC_EXTERNAL,
};
#define RTR_PFC_MODES (RTR_PFC_EXTERNAL + 1)
extern const char *const rtr_pfc_mode_names[RTR_PFC_MODES];

struct rtr_pfc_cfg {
	enum rtr_pfc_mode mode; /* "off" | "software" | "nic" | "pause" | "external" */
	uint8_t class_mask;     /* bit c: PFC on class/priority c */
	uint32_t xoff_kb;       /* bytes one ingress port has queued in a class */
	uint32_t xon_kb;        /* must be < xoff_kb */
	uint16_t quanta;        /* pause time sent in XOFF, 512-bit-time units */
};

/* How the class queues share memory (doc/egress.md "Shared buffer").
 * static: each class queue holds up to its queue_kb, PFC at pfc.xoff_kb
 * (today's behaviour, the default). shared: one pool of size_kb per
 * switch; a class queue takes a packet while its depth < alpha x free
 * (and the pool has room), PFC (pfc.mode not off) XOFFs an ingress
 * (port, class) at free / pfc_divisor and XONs below that minus
 * xon_offset_kb, headroom_kb per ingress port reserved for what arrives
 * after the XOFF. New modes go at the end. */
enum rtr_buffer_mode {
	RTR_BUFFER_STATIC = 0,
	RTR_BUFFER_SHARED,
};
#define RTR_BUFFER_MODES (RTR_BUFFER_SHARED + 1)

struct rtr_buffer_cfg {
	enum rtr_buffer_mode mode; /* "static" | "shared" */
	uint32_t size_kb;          /* shared: the switch's pool */
	double alpha;              /* shared: a class queue's limit is alpha x free */
	uint32_t headroom_kb;      /* shared, PFC: reserved per ingress port */
	uint32_t pfc_divisor;      /* shared, PFC: XOFF at free / it (a power of 2) */
	uint32_t xon_offset_kb;    /* shared, PFC: XON below the XOFF threshold minus it */
	/* shared: the pool counts a packet as at least this many bytes, as an
	 * ASIC counts cells, so that it holds at most size / cell_bytes
	 * packets (the real switch's mbufs: app/budget.c). 0: auto, which
	 * rocetor makes RTR_BUFFER_CELL_AUTO and the simulator 1 (bytes). */
	uint32_t cell_bytes;
};
#define RTR_BUFFER_CELL_AUTO 256

struct rtr_qos_cfg {
	uint8_t classes; /* 1..8; class (classes-1) is control */
	bool trust_pcp;  /* "trust": "dscp" (default) | "pcp" */
	unsigned int n_dscp;
	struct rtr_dscp_map dscp[RTR_MAX_DSCP_MAP];
	unsigned int n_pcp;
	struct rtr_pcp_map pcp[8];
	uint32_t queue_kb;
	struct rtr_ecn_cfg ecn;
	/* Hardware TX queues per worker per port, 1..RTR_MAX_HW_QUEUES:
	 * classes map to them (class_params[].hw_queue; by default control,
	 * lossless, lossy: rtr_config_hw_queue) so that a paused or full
	 * class does not block the others. */
	uint8_t hw_queues;
	struct rtr_class_cfg cls[RTR_MAX_CLASSES];
	bool trim;
	bool trim_update_lengths; /* "trim_lengths": "keep" (default) | "update" */
	int16_t trim_dscp;        /* -1 = keep the DSCP of the trimmed packet */
	struct rtr_pfc_cfg pfc;
	struct rtr_buffer_cfg buffer;
};

struct rtr_switch_cfg {
	char name[RTR_NAME_LEN];
	enum rtr_role role;
	uint16_t id;
	unsigned int lb; /* LB mode id: its index in the LB registry */
	uint32_t seed;   /* flow hash seed; default derived from id */
	bool seed_set;
	uint32_t idle_sleep_us;   /* 0 = busy poll; else sleep when idle */
	uint32_t idle_threshold;  /* empty polls before sleeping */
	uint32_t neigh_timeout_s; /* ARP/ND entry lifetime before refresh */
	uint32_t mbufs;           /* 0 = sized by formula */
	uint32_t handoff_ring;    /* packets each worker's hand-off ring holds */
	/* "drain_us" is still accepted and checked, but ignored (doc/config.md). */
};

/*
 * Lab impairments of the LB control loop (doc/faults.md): the probability
 * that each kind of LB control packet is lost as it arrives on a fabric
 * port. All zero (the default) = off.
 */
struct rtr_ctrl_loss_cfg {
	double rtt_reply; /* an RTT reply (LB control op 2, phase 0) */
	double clear;     /* a CLEAR (LB control op 2, phase 1) */
	double notify;    /* a congestion notification (LB control op 3) */
	double tail;      /* a data packet with the tail flag */
	double advert;    /* an RC ACK carrying a path advertisement shim */
};

struct rtr_faults_cfg {
	uint64_t seed; /* of the loss generator, for repeatable runs */
	struct rtr_ctrl_loss_cfg ctrl_loss;
	uint32_t stall_us;    /* a worker stops this long (0: never) ... */
	uint32_t stall_every; /* ... every this many loop passes */
};

/* The FPM server zebra's dplane_fpm_nl connects to (doc/routing.md). */
struct rtr_fpm_cfg {
	struct rtr_addr address; /* family 0: no FPM server */
	uint32_t port;           /* TCP, 2620 */
	char netns[64];          /* the network namespace the socket is made in ("": ours) */
	uint32_t stale_ms;       /* FPM routes outlive a lost zebra this long */
	uint32_t table;          /* the kernel table whose routes are taken (254: main) */
};

struct rtr_config {
	char path[512]; /* file it was read from */
	struct rtr_switch_cfg sw;
	unsigned int n_ports;
	struct rtr_port_cfg ports[RTR_MAX_PORTS];
	unsigned int n_routes;
	struct rtr_route_cfg *routes; /* n_routes entries, malloc'd */
	struct rtr_qos_cfg qos;
	/* Each LB mode's section by mode id (rtr_config_lb), filled by the
	 * loader: from the file, or the defaults when the section is absent;
	 * zero for a mode without one. Held inline, so that a config stays
	 * one block that copies, compares and frees as before. */
	union {
		max_align_t align;
		unsigned char bytes[RTR_LB_CFG_SIZE];
	} lb_cfg[RTR_LB_MODES_MAX];
	struct rtr_faults_cfg faults;
	struct rtr_fpm_cfg fpm;
};

struct rtr_cfg_section;

/* One LB mode as the config sees it: the name switch.lb takes and the
 * section (a top-level key of the same name), or NULL when it has none;
 * fabric_hdr, the bytes of LB header the mode adds to a host's frame it
 * sends on a fabric port of a ToR (0: none), for the MTU rule
 * (rtr_config_check_mtu). */
struct rtr_config_lb_mode {
	const char *name;
	const struct rtr_cfg_section *section;
	unsigned int fabric_hdr;
};

/*
 * The LB modes, by id (the index): switch.lb takes their names (the first
 * is the default) and each section is read, defaulted, checked and dumped
 * between qos and faults, in this order. lib/config does not depend on the
 * LB library; its registry calls this from a constructor, so every program
 * that loads configs links the LB library whole. Returns 0, or -EINVAL
 * (nothing changed) when n is 0 or above RTR_LB_MODES_MAX, a name is empty
 * or a section is larger than RTR_LB_CFG_SIZE.
 */
int rtr_config_set_lb_modes(const struct rtr_config_lb_mode *modes, unsigned int n);

/*
 * The MTU rule (doc/config.md "mtu"): on a ToR, every fabric port's mtu
 * must carry the largest frame of every host port (its mtu) plus hdr, the
 * LB header the running mode adds on fabric ports (who names it in the
 * message, e.g. "of conweave (switch.lb)"). A port whose mtu is 0 (unset:
 * the device's, known at start-up) is left out. device, when not NULL,
 * says per port entry that its mtu is the device's (ports[].mtu unset):
 * the message says so, and a pair of two such ports is left out too (the
 * caller warns; nothing in the file is wrong). The validator applies the
 * rule with switch.lb's header; the app again with --lb's, with the
 * largest of any mode's under --telemetry-rw, and with the devices' MTUs.
 * Returns 0, or -1 with one line in err: "FILE:LINE: ports[N].mtu: ..."
 * naming both ports and the numbers (LINE: the fabric port's "mtu", else
 * its entry).
 */
int rtr_config_check_mtu(const struct rtr_config *cfg, unsigned int hdr, const char *who,
		const bool *device, char *err, size_t errlen);

/* The section of mode id in cfg, or NULL when id is out of range. */
static inline const void *
rtr_config_lb(const struct rtr_config *cfg, unsigned int id)
{
	return id < RTR_LB_MODES_MAX ? cfg->lb_cfg[id].bytes : NULL;
}

/*
 * What cfg holds for the section described by s (registered by some mode),
 * or NULL when no mode registered s. Each mode wraps this in a typed
 * accessor of its own (rtr_<mode>_config), so that its config header needs
 * neither the registry nor its own mode id. A short search: for control
 * code (set-up, budgets), not per packet.
 */
const void *rtr_config_section(const struct rtr_config *cfg, const struct rtr_cfg_section *s);

/*
 * Read and validate a config file. The format is chosen by extension.
 * On error returns -1 and writes one line (no newline) into err:
 * "FILE:LINE: KEY: problem" (LINE omitted only when the format gives none).
 */
int rtr_config_load(const char *path, struct rtr_config *cfg, char *err, size_t errlen);

/* Same, from a buffer; name is used in messages, fmt is "yaml" or "cfg". */
int rtr_config_load_buf(const char *name, const char *fmt, const char *buf, size_t len,
		struct rtr_config *cfg, char *err, size_t errlen);

/* Free what rtr_config_load allocated (routes). Safe on a zeroed struct. */
void rtr_config_free(struct rtr_config *cfg);

/* Find the port entry for a DPDK port id, or NULL. */
static inline const struct rtr_port_cfg *
rtr_config_port(const struct rtr_config *cfg, uint16_t port)
{
	for (unsigned int i = 0; i < cfg->n_ports; i++)
		if (cfg->ports[i].port == port)
			return &cfg->ports[i];
	return NULL;
}

/* The hardware TX queue (0..qos.hw_queues-1) class cls leaves through:
 * class_params[].hw_queue when given, else the control class on queue 0,
 * the PFC classes (when pfc.mode is not off) on queue 1, the other classes
 * on queue 2, each capped at the last queue. One queue: all on 0. */
static inline uint8_t
rtr_config_hw_queue(const struct rtr_config *cfg, unsigned int cls)
{
	const struct rtr_qos_cfg *q = &cfg->qos;
	unsigned int last = q->hw_queues > 0 ? q->hw_queues - 1u : 0u;
	unsigned int want;

	if (cls < RTR_MAX_CLASSES && q->cls[cls].hw_queue != RTR_HWQ_AUTO)
		return q->cls[cls].hw_queue;
	if (cls + 1u == q->classes)
		want = 0;
	else if (q->pfc.mode != RTR_PFC_OFF && (q->pfc.class_mask >> cls & 1u))
		want = 1;
	else
		want = 2;
	return (uint8_t)(want < last ? want : last);
}

/* The share of each LB flow table host port pc may fill: its flow_share,
 * or when 0 (automatic) 1 on a switch with one host port and 0.5 with
 * more, so that no host can take the whole table from the others. */
static inline double
rtr_config_flow_share(const struct rtr_config *cfg, const struct rtr_port_cfg *pc)
{
	unsigned int hosts = 0;

	if (pc->flow_share > 0)
		return pc->flow_share;
	for (unsigned int i = 0; i < cfg->n_ports; i++)
		hosts += cfg->ports[i].role == RTR_PORT_HOST;
	return hosts > 1 ? 0.5 : 1.0;
}

/*
 * Write the config as canonical YAML (all keys, defaults filled in). Used by
 * telemetry /rocetor/config and by the test that keeps conf/ examples in both
 * formats equivalent. Returns bytes written (snprintf semantics).
 */
int rtr_config_dump(const struct rtr_config *cfg, char *buf, size_t len);

#endif /* RTR_CONFIG_H */
