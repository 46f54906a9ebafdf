/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The control plane (rtr_control.c): punted frames, neighbour timers and
 * link state, on the main lcore or inside the only worker.
 */
#ifndef RTR_CONTROL_H
#define RTR_CONTROL_H

#include <stdint.h>

#include "rtr_switch.h"

/* One pass of the control plane: punted frames, neighbour timers, link
 * state. Returns how many frames it handled. Control lcore only. */
unsigned int rtr_control_poll(struct rtr_switch *sw, uint64_t now_tsc);

/* Control lcore: re-read link state of every port and update path liveness. */
void rtr_control_links(struct rtr_switch *sw);

/* Free every mbuf still in the control ring (at exit, after workers stop). */
unsigned int rtr_control_drain(struct rtr_switch *sw);

#endif /* RTR_CONTROL_H */
