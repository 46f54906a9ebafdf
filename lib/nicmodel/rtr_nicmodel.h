/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * A model of one NIC port's TX side on a virtual clock, for tests and the
 * simulator (doc/egress.md "The NIC model (tests)"). Pure C, no EAL: frames
 * are opaque pointers whose length a callback gives (an mbuf's pkt_len in
 * the switch, a test's own struct in the unit test).
 *
 * A port has n_queues hardware TX queues, each a ring of ring_size
 * descriptors (one per frame). rtr_nicm_tx_burst() takes up to the free
 * descriptors, as rte_eth_tx_burst() does. One wire drains them at the link
 * rate, one frame at a time, each frame costing its length (padded to 60)
 * plus RTR_NICM_OVERHEAD bytes; the queues are served round-robin or by
 * strict priority (rte_tm's convention: 0 is the highest). A descriptor is
 * freed when its frame's last bit has left, after the completion delay, and
 * only when every descriptor of its completion batch has (ice/i40e's
 * tx_rs_thresh, mlx5's MLX5_TX_COMP_THRESH: doc/nic-facts.md "TX
 * completions and descriptor status").
 *
 *   tx_burst ─> [queue 0 ring] ─┐
 *   tx_burst ─> [queue 1 ring] ─┼─ scheduler (RR | strict) ─> wire ─> sent
 *               ...             │   skips queues paused by the peer
 *                                        └─> completion (batch, delay) frees
 *
 * Time: the caller's clock is in ns; inside, the model keeps picoseconds, so
 * that a frame's wire time is exact at every standard rate (8 bits at
 * 400G is 20 ps). Times given to the model must not go back.
 */
#ifndef RTR_NICMODEL_H
#define RTR_NICMODEL_H

#include <stdbool.h>
#include <stdint.h>

/* Preamble and SFD (8), inter-frame gap (12), FCS (4): the bytes a frame
 * costs on the wire beyond its length without FCS (an mbuf's pkt_len). */
#define RTR_NICM_OVERHEAD 24
/* A frame shorter than this (without FCS) is padded to it by the MAC. */
#define RTR_NICM_MIN_FRAME  60
#define RTR_NICM_MAX_QUEUES 16
/* A pause quantum is 512 bit times at the link rate (IEEE 802.3 Annex 31B). */
#define RTR_NICM_QUANTUM_BITS       512
#define RTR_NICM_ETHERTYPE_MAC_CTRL 0x8808

enum rtr_nicm_sched {
	RTR_NICM_RR = 0, /* round-robin over the queues with frames, one frame each */
	RTR_NICM_STRICT, /* lowest prio value first; round-robin among equals */
};

/* Which driver's convention rtr_nicm_desc_status() answers in. */
enum rtr_nicm_ds {
	/* ice, i40e: offset from the driver's tail (0: the slot the next
	 * frame goes to), rounded up to a multiple of the completion batch,
	 * DONE when that slot's descriptor says done (written back, or never
	 * used since the reset), else FULL. */
	RTR_NICM_DS_TAIL = 0,
	/* mlx5: offset from the oldest descriptor not yet completed: FULL
	 * when offset < descriptors in use, else DONE. */
	RTR_NICM_DS_USED,
};

/* Values of rte_eth_tx_descriptor_status() (lib/ethdev/rte_ethdev.h:6048-6050). */
#define RTR_NICM_DESC_FULL    0
#define RTR_NICM_DESC_DONE    1
#define RTR_NICM_DESC_UNAVAIL 2

/* What rtr_nicm_classify_rx() decides for a received frame. */
enum rtr_nicm_rx {
	RTR_NICM_RX_PASSED = 0, /* handed to the application */
	RTR_NICM_RX_CONSUMED,   /* a MAC control frame the MAC kept */
};

struct rtr_nicm_conf {
	uint32_t rate_mbps; /* link rate, Mbit/s (100000: 100G) */
	uint16_t n_queues;  /* 1..RTR_NICM_MAX_QUEUES */
	uint16_t ring_size; /* descriptors per queue, >= 1 */
	enum rtr_nicm_sched sched;
	uint8_t prio[RTR_NICM_MAX_QUEUES]; /* strict priority per queue, 0..7, 0 highest */
	/* The PFC priority (0..7) whose pause stops queue q: a class maps to
	 * every queue that names it. */
	uint8_t pfc_prio[RTR_NICM_MAX_QUEUES];
	/* Descriptors written back together (>= 1, divides ring_size): a
	 * batch is freed when its last descriptor's frame has left. 1: each
	 * on its own. A partly filled batch waits for more frames, as an
	 * ice/i40e ring whose RS descriptor is not yet written does. */
	uint16_t comp_batch;
	uint64_t comp_delay_ns; /* from the batch's last bit to the free */
	/* The MAC consumes received MAC control frames (0x8808: pause, PFC)
	 * as real NICs do; false: they pass up (virtual ports). */
	bool mac_consumes_ctrl;
	uint32_t (*frame_len)(void *frame); /* bytes without FCS */
	/* Added to RTR_NICM_OVERHEAD per frame (>= -RTR_NICM_OVERHEAD): 0
	 * for a real wire; the simulator's --wire-overhead B gives
	 * B - RTR_NICM_OVERHEAD. */
	int16_t overhead_adj;
	/* Frames shorter than RTR_NICM_MIN_FRAME cost their own length, not
	 * padded (the simulator's links by default: its hosts do not pad). */
	bool no_pad;
};

struct rtr_nicm_qstats {
	uint64_t accepted, accepted_bytes;
	uint64_t refused; /* frames tx_burst did not take (ring full) */
	uint64_t sent, sent_bytes;
	uint32_t desc_in_use;   /* written and not yet freed (completions lag) */
	uint32_t frames_queued; /* accepted, last bit not yet left */
	uint64_t bytes_queued;  /* their bytes (without overhead) */
	uint64_t max_wait_ps;   /* longest accept-to-last-bit of a frame */
};

struct rtr_nicm_stats {
	/* MAC control frames kept, MAC control frames passed up, every frame
	 * passed up (those included) */
	uint64_t rx_ctrl_consumed, rx_ctrl_passed, rx_passed;
	uint64_t pause_rx; /* pauses (incl. XON) applied by rtr_nicm_pause */
	uint64_t busy_ps;  /* time the wire carried a frame */
};

/* A frame whose last bit has left. */
struct rtr_nicm_sent {
	void *frame;
	uint16_t queue;
	uint64_t accept_ps, start_ps, end_ps;
};

struct rtr_nicm;

/* NULL on a bad conf (errno EINVAL) or no memory. */
struct rtr_nicm *rtr_nicm_create(const struct rtr_nicm_conf *conf);
void rtr_nicm_free(struct rtr_nicm *m);

/*
 * Take up to n frames on queue q at now_ns: as many as there are free
 * descriptors. Call rtr_nicm_advance(now_ns) first, so that the
 * completions up to now_ns have freed theirs. Returns how many it
 * took; the model holds those until rtr_nicm_advance() hands them back.
 * The shape of rte_eth_tx_burst(), so that struct rtr_egress_io's tx
 * callback can be this with the queue and the clock added.
 */
uint16_t rtr_nicm_tx_burst(
		struct rtr_nicm *m, uint16_t q, void **frames, uint16_t n, uint64_t now_ns);

/*
 * Run the wire and the completions up to now_ns; put the frames whose last
 * bit left by then in out (at most max, oldest first) and return how many.
 * When it returns max, call again: later departures were not processed.
 */
uint16_t rtr_nicm_advance(
		struct rtr_nicm *m, uint64_t now_ns, struct rtr_nicm_sent *out, uint16_t max);

/* Time in ns (rounded up) of the next departure, completion or end of a
 * pause that lets a frame go; UINT64_MAX when nothing is pending. */
uint64_t rtr_nicm_next_event_ns(const struct rtr_nicm *m);

/*
 * A pause received from the peer at at_ns (call rtr_nicm_advance(at_ns)
 * first, so that the frames that started before it are on the wire): prio_mask 0 is an 802.3x pause of the whole port, else PFC for
 * each priority of the mask. quanta 0 is an XON. A frame on the wire
 * finishes; paused queues send nothing until at_ns + quanta * 512 bit
 * times, the others go on.
 */
void rtr_nicm_pause(struct rtr_nicm *m, uint8_t prio_mask, uint16_t quanta, uint64_t at_ns);

/* rte_eth_tx_descriptor_status(queue q, offset) as driver convention ds
 * would answer; -EINVAL for a bad queue, or (DS_TAIL) offset >= ring_size. */
int rtr_nicm_desc_status(
		const struct rtr_nicm *m, uint16_t q, uint16_t offset, enum rtr_nicm_ds ds);

/* Whether the MAC keeps a received frame (len bytes without FCS) or passes
 * it up; counted in the port's stats. */
enum rtr_nicm_rx rtr_nicm_classify_rx(struct rtr_nicm *m, const uint8_t *frame, uint32_t len);

/* The frame on the wire as of the last rtr_nicm_advance() (started, its
 * last bit not yet left): true and *out filled (end_ps: when its last bit
 * leaves), false when the wire is idle. The simulator schedules the
 * frame's arrival at the peer from it when the frame starts, as a link
 * whose first bit is already on its way. */
bool rtr_nicm_on_wire(const struct rtr_nicm *m, struct rtr_nicm_sent *out);

/* Wire time in ps of a frame of len bytes (without FCS) at the model's rate. */
uint64_t rtr_nicm_frame_ps(const struct rtr_nicm *m, uint32_t len);

const struct rtr_nicm_qstats *rtr_nicm_qstats(const struct rtr_nicm *m, uint16_t q);
const struct rtr_nicm_stats *rtr_nicm_stats(const struct rtr_nicm *m);

#endif /* RTR_NICMODEL_H */
