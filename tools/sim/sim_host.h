/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Simulated RDMA hosts (doc/simulator.md): RoCEv2 RC queue pairs that send
 * messages ("flows") as real RoCEv2 frames over sim_net, with go-back-N or
 * IRN loss recovery and DCQCN congestion control as in the NS-3 model the
 * ConWeave, SeqBalance and CAVER papers used.
 *
 * A flow is one message of size bytes from one host to another. It is split
 * into packets of at most mtu_payload bytes (the artifact's 1000), sent by
 * the source's NIC at the QP's DCQCN rate (line rate when DCQCN is off),
 * acknowledged by the receiver (an ACK per ack_every packets, a NACK on the
 * first out-of-order PSN under go-back-N, a SACK-style NACK under IRN), and
 * finished when the sender has the ACK of its last byte (as the artifact's
 * qp_finish). The done callback then gets the flow.
 *
 * SeqBalance's host Shaper: with qps_per_flow = N > 1 a flow is carried by N
 * QPs (each its own UDP source port and dest QP), its bytes split evenly,
 * and it finishes when the last of them does.
 */
#ifndef SIM_HOST_H
#define SIM_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_net.h"

enum sim_transport {
	SIM_TR_GBN = 0, /* lossless: go-back-N recovery, PFC on in the fabric */
	SIM_TR_IRN,     /* selective repeat, BDP-capped window, no PFC */
};

/* DCQCN reaction/notification point (the NS-3 model's names in comments). */
struct sim_dcqcn {
	bool enabled;
	double min_rate_gbps;         /* MIN_RATE */
	double rate_ai_gbps;          /* RATE_AI: additive increase */
	double rate_hai_gbps;         /* RATE_HAI: hyper increase */
	double g;                     /* EWMA_GAIN (alpha's gain) */
	uint64_t alpha_resume_ns;     /* ALPHA_RESUME_INTERVAL */
	uint64_t rate_decrease_ns;    /* RATE_DECREASE_INTERVAL: at most one cut per */
	uint64_t rp_timer_ns;         /* RP_TIMER: the rate-increase timer */
	uint64_t byte_counter;        /* BYTE_COUNTER: bytes per increase stage */
	uint32_t fast_recovery_times; /* FAST_RECOVERY_TIMES */
	bool clamp_target;            /* CLAMP_TARGET_RATE */
	uint64_t cnp_interval_ns;     /* NP: at most one CNP per QP per interval */
};

struct sim_host_cfg {
	enum sim_transport transport;
	uint32_t mtu_payload;      /* payload bytes per data packet (1000) */
	uint32_t ack_every;        /* an ACK per this many packets (1) */
	uint64_t rto_ns;           /* retransmission timeout (go-back-N) */
	uint64_t irn_rto_low_ns;   /* IRN: timeout with at most 3 packets in flight */
	uint64_t irn_rto_high_ns;  /* IRN: timeout with more */
	uint32_t irn_window_pkts;  /* IRN: packets in flight at most (BDP); 0: derived */
	uint64_t nack_interval_ns; /* go-back-N: a NACK for the same PSN again after */
	bool nack_is_cnp; /* a NACK also cuts the rate (the model's OOO NACK has CNP set) */
	struct sim_dcqcn dcqcn;
	uint32_t qps_per_flow; /* SeqBalance Shaper: QPs per message (1: off) */
	bool reps;             /* REPS-style: a fresh UDP source port per packet */
	uint8_t data_dscp;     /* RoCE data (26 in the papers' qos) */
	uint8_t ack_dscp;      /* ACK/NACK/CNP (48: the control class) */
	uint64_t seed;         /* REPS's source ports */
};

/* The defaults: the ConWeave artifact's run script (doc/simulator.md). */
void sim_host_cfg_default(struct sim_host_cfg *c, enum sim_transport tr);

struct sim_flow {
	uint64_t id;               /* 0, 1, 2... in start order */
	uint32_t src, dst;         /* host node indexes */
	uint32_t src_ip, dst_ip;   /* host byte order */
	uint16_t sport, dport;     /* UDP ports of its (first) QP */
	uint64_t size;             /* message bytes */
	uint64_t start_ns, end_ns; /* start; the last byte's ACK at the sender */
	uint64_t pkts_sent;        /* data packets sent, retransmissions included */
	uint64_t pkts_retx;        /* of which retransmissions */
	uint32_t n_qps;
};

typedef void (*sim_flow_done_fn)(void *arg, const struct sim_flow *f);

struct sim_host_stats {
	uint64_t flows_started, flows_done;
	uint64_t data_sent, data_retx, data_rcvd, data_ooo; /* data packets */
	uint64_t data_stale;   /* of data_rcvd: for a QP already finished */
	uint64_t data_trimmed; /* of data_rcvd: trimmed by a switch (taken as lost) */
	uint64_t acks_sent, nacks_sent, cnps_sent, cnps_rcvd;
	uint64_t ctl_rcvd;         /* ACK/NACK/CNP frames that reached their host */
	uint64_t ctl_while_paused; /* control frames sent while PFC paused the data class */
	uint64_t timeouts;
	uint64_t ce_rcvd; /* data packets that arrived CE-marked */
	uint64_t bytes_acked;
	uint64_t qp_slots; /* QP records allocated (the most alive at once, plus quarantine) */
};

struct sim_hosts;

/* Attach hosts to a network, after sim_net_init (they take net->host_rx
 * and net->host_tx; the classes PFC names come from each host's ToR
 * egress). NULL on failure. */
struct sim_hosts *sim_hosts_create(struct sim_net *net, const struct sim_host_cfg *c,
		sim_flow_done_fn done, void *arg);
void sim_hosts_free(struct sim_hosts *h);

/* Start a flow of size bytes from host node src to host node dst now
 * (net->sim.now_ns). Returns its id, or UINT64_MAX on failure. */
uint64_t sim_hosts_start(struct sim_hosts *h, uint32_t src, uint32_t dst, uint64_t size);

/* Flows started and not finished. */
uint64_t sim_hosts_active(const struct sim_hosts *h);

void sim_hosts_stats(const struct sim_hosts *h, struct sim_host_stats *out);

/* Tests and diagnostics: QP k (0..n_qps-1) of a flow not finished: its
 * number (BTH dest QP) and its DCQCN rate now. 0, or -1 if there is none.
 * O(QPs): not for a run's inner loop. */
int sim_hosts_flow_qp(struct sim_hosts *h, uint64_t flow_id, unsigned int k, uint32_t *qpn,
		double *rate_gbps);

/* The artifact's base RTT between two hosts (ns): over a shortest path of
 * links up, 2 x the links' delays + one payload-size packet's serialization
 * per link (8,320 across the 100G, 1 us leaf-spine; 4,160 under one ToR).
 * O(nodes). */
uint64_t sim_hosts_base_rtt_ns(
		const struct sim_topo *t, uint32_t src, uint32_t dst, uint32_t payload);

#endif /* SIM_HOST_H */
