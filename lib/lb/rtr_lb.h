/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The LB stage, chosen once from a table of operations (like l3fwd's
 * --lookup modes) by switch.lb / --lb. Each mode's state machine lives in
 * its own directory and takes (clock, packet metadata): no EAL I/O, so unit
 * tests drive it with a virtual clock. This is the control API (the hooks,
 * the registry); the fast path's rules for which hook runs when are
 * rtr_lb_worker.h. Layout and how a mode plugs in: doc/architecture.md.
 */
#ifndef RTR_LB_H
#define RTR_LB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtr_config.h"
#include "rtr_lb_clock.h"
#include "rtr_lb_counters.h"
#include "rtr_lb_flow.h"
#include "rtr_lb_modes.h"
#include "rtr_lb_wire.h"
#include "rtr_parse.h"
#include "rtr_route.h"
#include "rtr_stats.h"

struct rte_mbuf;
struct rtr_ft;
struct rtr_cfg_section;

/* A mode's id: its index in the registry, the value of switch.lb:
 * RTR_LB_<NAME> for each name of lib/lb/meson.build's lb_modes, in that
 * order, then the reserved names (none today). */
enum rtr_lb_mode {
#define RTR_LB_MODE_ID(n) RTR_LB_##n,
	RTR_LB_MODE_IDS(RTR_LB_MODE_ID)
#undef RTR_LB_MODE_ID
			RTR_LB_MAX
};

/* How an LB mode sends packets it did not get from the caller's hand. */
struct rtr_lb_io {
	/* A packet for host port `port` (held: released from a reorder
	 * queue). */
	void (*deliver)(void *arg, struct rte_mbuf *m, uint16_t port, bool held);
	/* A control packet the switch built: route and send it. */
	void (*control)(void *arg, struct rte_mbuf *m);
	struct rte_mbuf *(*alloc)(void *arg);
	void *arg;
	/* Optional: m, for host port `port`, was just taken into a reorder
	 * queue (it comes back through deliver with held set; last member so that
	 * positional initialisers of the others stay valid). With the
	 * shared buffer the egress counts it from now in the pool and in its
	 * ingress's PFC bytes (rtr_egress_hold), as a switch ASIC's reorder
	 * queues are queues of its buffer. */
	void (*hold)(void *arg, struct rte_mbuf *m, uint16_t port);
};

/* What a worker's LB state is created from. */
struct rtr_lb_init {
	const struct rtr_config *cfg;
	unsigned int worker;
	unsigned int n_workers;
	int socket;
	unsigned int n_groups;   /* uplink groups in the route table */
	uint32_t host_port_mask; /* configured host ports */
	uint32_t hash_seed;      /* the parser's */
	uint32_t hold_budget; /* mbufs this worker may hold (the mode's mbuf_budget split among the workers); 0: no limit */
	bool use_rte_malloc; /* false: unit tests without EAL */
	void *shared;        /* from shared_create, NULL if none */
	/* Bit p: port p's link is down (the switch's, kept by the control
	 * plane with the groups' live masks); NULL: every port up. */
	const _Atomic uint32_t *link_down;
	/* The worker's horizon (rtr_lb_clock.h): what a per-packet hook
	 * judges time by (rtr_lb_seen, rtr_lb_idle). NULL: the hooks' now_ns
	 * (unit tests, the simulator). */
	const struct rtr_lb_clock *clock;
	/* The worker's local egress queue of a port: bytes in the class
	 * queues of this worker's egress on it (rtr_egress_queue_bytes, arg
	 * the worker's struct rtr_egress). DRILL weighs uplinks by it. NULL:
	 * unknown, every queue reads 0 (the LB fuzzer; unit tests give their
	 * own). */
	uint32_t (*queue_bytes)(const void *arg, uint16_t port);
	const void *queue_arg;
	struct rtr_lb_io io;
};

#define RTR_LB_FORWARD 0 /* deliver: the caller sends the packet */
#define RTR_LB_TAKEN   1 /* deliver: the LB stage took it (held or sent) */

/*
 * A mode's hooks. Who calls them, and when, is written once, in
 * rtr_lb_worker.h (the only caller of the fast-path hooks: the forwarding
 * step of lib/fwd, the worker loop and the egress go through it):
 *   - per packet, in this order: prefetch (at parse, before routing),
 *     pick (a group route), control_rx (an LB control packet routed to a
 *     host: consumed before the link check), deliver (from a fabric port
 *     to a host with deliver_flags) or post_route (every other packet
 *     about to be queued), queued (the class queue took it), depart (it
 *     leaves its class queue, RTR_LB_DEPART_FLAGS, host-port packets);
 *   - per loop pass: tick once next_deadline() (on the worker's horizon)
 *     has passed, every pass without next_deadline; every control poll,
 *     tick whatever the deadline (aging);
 *   - flush(port) once when a port is first seen down, flush(-1) at a
 *     runtime switch, both skipped when held() says 0 (without held,
 *     always called); flush(-1) at exit whatever held() says;
 *   - re-entry: a hook may send a frame it built through io.control,
 *     which runs the forwarding step on it (in_port RTR_PORT_NONE) before
 *     the hook returns; io.deliver queues on a host port without it.
 * Hooks that come together: deliver with deliver_flags, next_deadline
 * with tick, held with flush where the mode can hold.
 */
struct rtr_lb_ops {
	const char *name;
	enum rtr_lb_mode mode;
	/* Keeps per-flow state: every packet of a flow must be processed by
	 * the worker that owns its flow hash (DESIGN.md A). */
	bool flow_affinity;
	/*
	 * The mode's wire part, as data (the parser makes no per-packet
	 * call): the parse flags of frames from fabric ports (rtr_parse.h),
	 * composed from the shared LB layout (core/rtr_lb_wire.h:
	 * RTR_LB_PARSE_HDR for a mode that owns a header in it,
	 * RTR_LB_PARSE_FOREIGN for one without). They say how the parser
	 * recognises the mode's header (its data ops: RTR_MF_LB_HDR), which
	 * of its packets are control (its control ops: RTR_MF_LB_CTRL, the
	 * egress's control class) and what a trim keeps (the header length,
	 * which must be RTR_LB_TRIM_HDR_LEN: rtr_lb_registry_check).
	 */
	unsigned int fabric_parse_flags;
	/* Meta flags (RTR_MF_*): a packet from a fabric port routed to a host
	 * port with any of them goes through deliver(). */
	uint8_t deliver_flags;
	/* Per-switch state shared by the workers (optional). */
	void *(*shared_create)(
			const struct rtr_config *cfg, unsigned int n_groups, bool rte, int socket);
	void (*shared_free)(void *shared);
	/* Per-worker state; NULL return means failure. */
	void *(*init)(const struct rtr_lb_init *in);
	void (*fini)(void *state);
	/*
	 * SrcToR side: choose the path for a packet routed to uplink group g
	 * (index g_idx). May stamp LB fields in the frame (and grow it at the
	 * head). Returns the path index, or -1 when no path is usable (the
	 * packet is dropped as port_down). NULL: ECMP, the pipeline picks
	 * rtr_group_pick(g, flow_hash) inline and counts ecmp_packets.
	 */
	int (*pick)(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
			struct rtr_meta *meta, uint64_t now_ns, struct rtr_lcore_stats *st);
	/* The rest is optional (NULL for stateless modes). */
	/* Prefetch the flow state a packet will need (meta->flow_hash): step
	 * 0 (at parse) its table bucket, step 1 (before routing, once step 0
	 * had time to land) the entry the bucket points to. No other effect. */
	void (*prefetch)(const void *state, const struct rtr_meta *meta, unsigned int step);
	/* An LB control packet routed to a host port: consume it (the caller
	 * frees it and counts it consumed). */
	void (*control_rx)(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns,
			struct rtr_lcore_stats *st);
	/* DstToR: a packet from a fabric port, with deliver_flags, routed to
	 * host port `port`. RTR_LB_FORWARD or RTR_LB_TAKEN. */
	int (*deliver)(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t port,
			uint64_t now_ns, struct rtr_lcore_stats *st);
	/* Every packet about to be queued on out_port (routed, TTL and MACs
	 * rewritten; meta->in_port is RTR_PORT_NONE for frames the switch
	 * built). May rewrite the frame and change its length at the tail
	 * (never at the head). CAVER: DRE accounting and the ACK shim. */
	void (*post_route)(void *state, struct rte_mbuf *m, struct rtr_meta *meta,
			uint16_t out_port, uint64_t now_ns, struct rtr_lcore_stats *st);
	/* A packet that went through post_route was admitted to out_port's
	 * egress queue (not tail-dropped; m as queued, possibly trimmed, not
	 * sent yet). CAVER: DRE accounting of what the link will carry. */
	void (*queued)(void *state, const struct rte_mbuf *m, const struct rtr_meta *meta,
			uint16_t out_port);
	/* A packet this switch received on a host port departs toward the
	 * fabric (leaves its egress class queue) with LB fields the mode
	 * stamped (RTR_MF_LB_HDR). May rewrite bytes, not the length.
	 * ConWeave: its TX timestamps are departure times. */
	void (*depart)(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns,
			struct rtr_lcore_stats *st);
	/* Timers; called every loop while next_deadline() has passed (every
	 * loop when next_deadline is NULL), and every control poll. now_ns
	 * is the worker's horizon, clock->seen_ns (rtr_lb_clock.h), not the
	 * wall clock: a deadline passes only once the worker has taken
	 * every packet that arrived before it. It may be earlier than stamps
	 * the per-packet hooks took in the same loop (compare deadlines
	 * with <=, differences with rtr_lb_since). */
	void (*tick)(void *state, uint64_t now_ns, struct rtr_lcore_stats *st);
	uint64_t (*next_deadline)(const void *state);
	/* Release what is held for port (-1: everything). */
	unsigned int (*flush)(void *state, int port, uint64_t now_ns, struct rtr_lcore_stats *st);
	uint64_t (*held)(const void *state);
	/* The worker's flow table (per-port entries and limit counters are
	 * read from it), or NULL. */
	const struct rtr_ft *(*table)(const void *state);
	/* Per-flow state for telemetry. */
	unsigned int (*flows)(void *state, uint64_t now_ns, unsigned int max,
			void (*fn)(void *arg, const struct rtr_lb_flow_info *f), void *arg);
};

/* What one host port's reorder rings may count toward a mode's mbuf budget
 * (like an egress port's share of the pool: deeper rings need
 * switch.mbufs). */
#define RTR_LB_HOLD_PORT_MAX 4096

/* A holding mode's mbuf budget when its section sets no hold_budget: for
 * each host port what the mode can hold there (per_port), capped at
 * RTR_LB_HOLD_PORT_MAX. */
static inline uint64_t
rtr_lb_hold_per_host_port(const struct rtr_config *cfg, uint64_t per_port)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < cfg->n_ports; i++)
		if (cfg->ports[i].role == RTR_PORT_HOST)
			n += per_port < RTR_LB_HOLD_PORT_MAX ? per_port : RTR_LB_HOLD_PORT_MAX;
	return n;
}

/* ------------------------------------------------------------ the registry */

/* What a mode does on a switch whose switch.role is spine. */
enum rtr_lb_spine {
	/* Runs as on a ToR (ECMP; CAVER: DRE, ACK shims, source routes). */
	RTR_LB_SPINE_RUN = 0,
	/* A ToR-only mode (a path is the SrcToR's uplink): the spine routes
	 * by ECMP under the mode's name and never touches its fields, but
	 * still parses them (fabric_parse_flags), so trimming and the
	 * control class see them whole. */
	RTR_LB_SPINE_ECMP,
};

/* Where a mode writes the members of its telemetry view of one flow. */
struct rtr_lb_kv {
	void (*u64)(void *arg, const char *key, uint64_t v);
	void (*str)(void *arg, const char *key, const char *v);
	void *arg;
};

/* An ACK shim's wire format (rtr_lb_desc.ack_shim). */
struct rtr_lb_ack_shim {
	uint8_t len;   /* bytes after the AETH, counted by the IP and UDP lengths */
	uint8_t resv7; /* BTH Resv7 of a shimmed ACK */
	/* A plausible shim into shim[len]: addr, an IPv4 address of a host
	 * (network order) where the shim names one; the rest from the
	 * arbitrary bytes rnd[RTR_LB_ACK_SHIM_RND]. */
	void (*fill)(uint8_t *shim, const uint8_t addr[4], const uint8_t *rnd);
};
#define RTR_LB_ACK_SHIM_RND 5

/*
 * One LB mode as the rest of the switch sees it: everything above lib/lb
 * (app, pipelines, telemetry, config, the bench) learns about modes from
 * these descriptors only, never by name. A mode's id is its index in the
 * registry (lb_modes[] in rtr_lb_registry.c), the value of switch.lb (enum
 * rtr_lb_mode). Each mode defines its descriptor in its own folder.
 */
struct rtr_lb_desc {
	const char *name;    /* switch.lb / --lb / /rocetor/lb/set */
	const char *summary; /* one line: CLI help and docs */
	/* NULL: a reserved name this build does not implement (the config
	 * accepts it, the switch refuses to start with it). */
	const struct rtr_lb_ops *ops;
	enum rtr_lb_spine spine;
	/* mbufs this mode's state may hold at once on a switch with config
	 * cfg (reorder rings): part of the mempool budget, and the hold
	 * budget split among the workers. *key: the config key that set it
	 * explicitly, or NULL when derived. NULL: holds nothing. */
	uint64_t (*mbuf_budget)(const struct rtr_config *cfg, const char **key);
	/* Bytes of DPDK heap (hugepage) memory the mode's state takes on a
	 * switch with config cfg and n_workers workers, as its init and
	 * shared_create allocate them (flow table, reorder rings, windows,
	 * the shared tables): *per_worker for each worker (on the worker's
	 * socket), *shared once (on the main lcore's). Memory planning:
	 * rocetor's start-up line per socket, rocetor-info budget. NULL:
	 * nothing (ECMP). */
	void (*state_bytes)(const struct rtr_config *cfg, unsigned int n_workers,
			uint64_t *per_worker, uint64_t *shared);
	/* Telemetry /rocetor/lb/flows: the mode's members of one flow (the
	 * caller adds role, src, dst, sport, worker and idle_us). */
	void (*flow_view)(const struct rtr_lb_flow_info *f, const struct rtr_lb_kv *kv);
	/* The mode's config section, a top-level key named after the mode
	 * (lib/lb/<mode>/<mode>_config.c), or NULL when it has none. */
	const struct rtr_cfg_section *config;
	/* The mode's own LB counters: enum rtr_lb_counter values
	 * [counter_first, counter_first + n_counters) (per-mode views and
	 * docs); the core's (RTR_LBC_CORE_*) any stateful mode may count. */
	uint16_t counter_first;
	uint16_t n_counters;
	/*
	 * The mode's part of the host-port rules, which every switch applies
	 * whatever mode it runs (rtr_lb_host.h, doc/security.md): another
	 * switch of the fabric, or this one after a runtime LB switch, may
	 * run this mode. Both run on the rare path only (from a host, a RoCE
	 * frame with Resv7 nonzero; toward a host, one with byte 4 or Resv7
	 * nonzero). NULL: nothing of the kind.
	 */
	/* A parsed RoCE frame from a host port with Resv7 nonzero: one of
	 * this mode's control packets or shims, which a host never sends?
	 * RTR_DROP_HOST_LB_PACKET if so, else RTR_DROP_NONE. Pure. */
	enum rtr_drop_reason (*host_check)(
			const uint8_t *frame, uint32_t len, const struct rtr_meta *meta);
	/* A parsed RoCE frame from a fabric port about to be queued on a host
	 * port (after the running mode's own stage): remove this mode's
	 * fields still in it, meta updated, counted in c (RTR_LBC_*). Returns
	 * true when the frame is then its sender's, byte 4 included, so that
	 * no later mode's strip nor the byte 4 rule applies. */
	bool (*host_strip)(struct rte_mbuf *m, struct rtr_meta *meta, uint64_t *c);
	/* A shim the mode appends to RC ACKs after the AETH, or NULL: what
	 * a frame carrying one looks like, so that the LB fuzzer builds them
	 * (as every switch's host rules must handle them) without naming the
	 * mode. */
	const struct rtr_lb_ack_shim *ack_shim;
};

/* The registry's API (the modes, by id or name) is rtr_lb_registry.h: a
 * mode needs only the types above. */

#endif /* RTR_LB_H */
