/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * ConWeave (Song et al., SIGCOMM'23), both halves, as ALGORITHMS.md 2 fixes
 * them: the SrcToR state machine (epochs, RTT_REQUEST, reply deadline,
 * TAIL/REROUTED, busy paths) and the DstToR one (modulo-4 epochs, RTT_REPLY,
 * NOTIFY, CLEAR, hold/flush of phase-1 packets in pausable rings, the T_resume
 * estimate from 16-bit SrcToR timestamps). One instance per worker; the busy
 * table is shared by the workers of a switch (a struct rtr_pm).
 *
 * No EAL I/O: time is a parameter, packets leave through the callbacks of
 * struct rtr_lb_io, so unit tests drive every transition on a virtual clock
 * with plain (calloc'd) mbufs. See doc/conweave.md.
 */
#ifndef RTR_CONWEAVE_H
#define RTR_CONWEAVE_H

#include <stdbool.h>
#include <stdint.h>

#include "rtr_lb.h"
#include "rtr_lb_flow.h"
#include "rtr_parse.h"
#include "rtr_route.h"

struct rtr_ft;
struct rtr_ft_limit;
struct rtr_pm;

struct rte_mbuf;

/* Resv7 layout (BTH byte 8, below AckReq), ALGORITHMS.md 2.1; cw_op and
 * its values are in rtr_parse.h. */
#define RTR_CW_B8(op, phase, epoch, ask, tail)                                            \
	((uint8_t)(((op)&3) << 5 | ((phase)&1) << 4 | ((epoch)&3) << 2 | ((ask)&1) << 1 | \
			((tail)&1)))
static inline unsigned int
rtr_cw_phase(uint8_t b8)
{
	return (b8 >> 4) & 1;
}
static inline unsigned int
rtr_cw_epoch(uint8_t b8)
{
	return (b8 >> 2) & 3;
}
static inline unsigned int
rtr_cw_ask(uint8_t b8)
{
	return (b8 >> 1) & 1;
}
static inline unsigned int
rtr_cw_tail(uint8_t b8)
{
	return b8 & 1;
}

/* The 16-bit ConWeave timestamp of a clock value: units of 1.024 us. */
static inline uint16_t
rtr_cw_ts(uint64_t ns)
{
	return (uint16_t)(ns >> 10);
}

/*
 * Per switch (rtr_lb_ops.shared_create): when each path of each uplink group
 * stops being busy toward each destination ToR (a NOTIFY is about one path
 * to one DstToR), a struct rtr_pm keyed by (group, destination masked to
 * conweave.dst_prefix_len / dst_prefix_len6, path). Unit tests of the state
 * machine may create their own rtr_pm keyed by (group, path) alone.
 */
void *rtr_cw_shared_create(
		const struct rtr_config *cfg, unsigned int n_groups, bool rte, int socket);
void rtr_cw_shared_free(void *shared);

/* Whether path of group g_idx is busy toward destination dst (16 bytes;
 * IPv4: the first 4) at now_ns. */
bool rtr_cw_path_busy(const struct rtr_pm *busy, unsigned int g_idx, const uint8_t *dst, bool v6,
		unsigned int path, uint64_t now_ns);

struct rtr_cw_params {
	uint64_t base_rtt_ns;
	uint64_t theta_reply_ns;
	uint64_t theta_path_busy_ns;
	uint64_t theta_inactive_ns;
	uint64_t resume_extra_ns;
	uint64_t resume_default_ns;
	uint64_t clear_timeout_ns;            /* SrcToR's wait for a CLEAR; 0: derived */
	uint32_t flow_entries;                /* this worker's flow table (both roles) */
	const struct rtr_ft_limit *ft_limits; /* per host port, read at create; NULL: none */
	uint32_t host_port_mask;              /* ports that get a pool of reorder rings */
	unsigned int n_rings;                 /* reorder rings per host port, at most 65535 */
	unsigned int ring_depth;              /* mbufs per ring */
	uint32_t hold_budget; /* mbufs this worker may hold in its rings; 0: no limit */
	uint32_t hash_seed;   /* the parser's flow-hash seed (reverse lookups) */
	uint64_t rng_seed;    /* path sampling */
	unsigned int worker;  /* for names */
	int socket_id;
	bool use_rte_malloc;   /* false: no EAL (unit tests) */
	struct rtr_pm *shared; /* the busy table (rtr_cw_shared_create), or NULL */
};

struct rtr_cw;

/* NULL on failure; EINVAL when n_rings > 65535 (a flow keeps its ring's
 * index in 16 bits, 0xffff meaning none). */
/*
 * io: deliver gets a packet for a host port, header removed and fields
 * zeroed, held = it comes out of a reorder ring (must not be tail-dropped
 * behind the threshold the ring already waited for); control gets the
 * control packets (RTT_REPLY, CLEAR, NOTIFY) to route and send.
 */
struct rtr_cw *rtr_cw_create(const struct rtr_cw_params *p, const struct rtr_lb_io *io);
/* Flush (rtr_cw_flush) first: free() of a state that holds packets frees them. */
void rtr_cw_free(void *state);

/* rtr_lb_ops.init: the parameters from the conweave section of in->cfg. */
void *rtr_cw_init(const struct rtr_lb_init *in);

/* Aging of idle flows (both roles): max(100 ms, 4 x theta_inactive). */
uint64_t rtr_cw_aging_ns(const struct rtr_cw_params *p);

/* The longest a DstToR holds a flow's packets (rtr_cw_bound_hold_ns). */
uint64_t rtr_cw_max_hold_ns(const struct rtr_cw_params *p);

/* How long a SrcToR flow waits in phase 1 for its CLEAR before it starts
 * a new epoch anyway (rtr_cw_bound_clear_ns). */
uint64_t rtr_cw_clear_timeout_ns(const struct rtr_cw_params *p);

/*
 * SrcToR: choose the path of a packet routed to uplink group g (index g_idx
 * in the route table) and, for a RoCE data packet of a flow with state,
 * stamp byte 4 and Resv7 and insert the 4-byte header (meta updated:
 * bth_b4, bth_b8, RTR_MF_LB_HDR). Everything else goes by ECMP. Returns
 * the path index, or -1 when no path of g is live. c: the worker's LB
 * counters in st->lb.
 */
int rtr_cw_pick(void *state, const struct rtr_group *g, unsigned int g_idx, struct rte_mbuf *m,
		struct rtr_meta *meta, uint64_t now_ns, struct rtr_lcore_stats *st);

/*
 * SrcToR: a packet rtr_cw_pick stamped departs (leaves the egress class
 * queue of its uplink) at now_ns: its TX timestamps become departure
 * times (doc/conweave.md, "Timestamps"). Called by the egress through
 * rtr_lb_ops.depart; other packets are left alone.
 */
void rtr_cw_depart(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns,
		struct rtr_lcore_stats *st);

/*
 * SrcToR: a REPLY or NOTIFY (cw_op 2/3) routed to one of this switch's host
 * ports. Updates the flow's state; the caller frees m (never forwarded).
 */
void rtr_cw_control_rx(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint64_t now_ns,
		struct rtr_lcore_stats *st);

#define RTR_CW_FORWARD RTR_LB_FORWARD /* m was stripped: the caller sends it to port */
/* m was taken: held in a reorder ring, or (a TAIL that flushes a ring)
 * already given to io.deliver ahead of it */
#define RTR_CW_HELD RTR_LB_TAKEN

/*
 * DstToR: a ConWeave DATA packet routed to host port `port`. Sends the
 * control packets it calls for through io.control, removes the header.
 */
int rtr_cw_deliver(void *state, struct rte_mbuf *m, struct rtr_meta *meta, uint16_t port,
		uint64_t now_ns, struct rtr_lcore_stats *st);

/* Timers: reorder deadlines that passed, and a step of flow aging. */
void rtr_cw_tick(void *state, uint64_t now_ns, struct rtr_lcore_stats *st);

/* Release, in order, what is held for host port `port` (it went down), or
 * with port -1 everything (shutdown); returns how many. */
unsigned int rtr_cw_flush(void *state, int port, uint64_t now_ns, struct rtr_lcore_stats *st);

/* Packets held in reorder rings now. */
uint64_t rtr_cw_held(const void *state);

/* The earliest pending reorder deadline, UINT64_MAX if none. */
uint64_t rtr_cw_next_deadline(const void *state);

/*
 * ConWeave's host_strip (rtr_lb_desc, rtr_lb_host.h), applied toward every
 * host whatever the mode: a ConWeave DATA packet from a fabric port (its
 * header parsed by its length signature: RTR_MF_LB_HDR, cw_op 1) that no
 * DstToR delivered loses its header, byte 4 and Resv7 (rtr_lb_hdr_strip;
 * counted in c[RTR_LBC_foreign_cw_stripped]) and returns true: the frame
 * is its sender's again. Anything else: false, untouched. The mode's
 * control packets (REPLY, NOTIFY) are consumed before (rtr_lb_ctrl_rx) and
 * refused from hosts by rtr_lb_ctrl_host_check, its host_check.
 */
bool rtr_cw_host_strip(struct rte_mbuf *m, struct rtr_meta *meta, uint64_t *c);

/* The mode: its ops and its registry entry. */
extern const struct rtr_lb_ops rtr_lb_conweave;
extern const struct rtr_lb_desc rtr_lb_conweave_desc;

#endif /* RTR_CONWEAVE_H */
