/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The control lcore's run control: when to stop (a signal, --duration,
 * --exit-on-idle) and the two-step exit of the run state (stop RX, then
 * stop for good once every worker stopped and no LB switch is under way),
 * periodic stats, and the loop of a main lcore that does not forward.
 */

#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "control.h"
#include "fpm.h"
#include "tap.h"
#include "stats_doc.h"

volatile sig_atomic_t rtr_signal;

static bool
all_workers_stopped(const struct rtr_switch *sw)
{
	for (unsigned int i = 0; i < sw->n_workers; i++)
		if (!atomic_load_explicit(&sw->workers[i]->stopped, memory_order_acquire))
			return false;
	return true;
}

/* How often the control lcore reads the ports' imissed (software PFC), and
 * how long an RX overflow holds XOFF toward the port (refreshed while
 * imissed keeps rising). */
#define RTR_IMISSED_POLL_US 1000
#define RTR_IMISSED_HOLD_NS (2 * RTR_IMISSED_POLL_US * 1000ull)

/* Software PFC: an RX ring that overflowed (imissed rose) is a lossless
 * buffer over its limit the class queues never saw: XOFF its sender
 * (doc/egress.md "PFC"). */
static void
imissed_poll(struct rtr_app *app, uint64_t now_tsc)
{
	struct rtr_switch *sw = &app->sw;
	bool first = app->last_imissed_tsc == 0; /* a baseline, not a rise */

	app->last_imissed_tsc = now_tsc;
	for (unsigned int i = 0; i < app->cfg.n_ports; i++) {
		uint16_t port = app->cfg.ports[i].port;
		struct rte_eth_stats st;

		if (rte_eth_stats_get(port, &st) != 0)
			continue;
		if (st.imissed > app->last_imissed[port] && !first)
			rtr_egress_rx_overflow(sw->egress, port, rtr_tsc_to_ns(sw, now_tsc),
					RTR_IMISSED_HOLD_NS);
		app->last_imissed[port] = st.imissed;
	}
}

/* Control lcore, every control poll: exit conditions and periodic stats. */
void
rtr_app_main_tick(struct rtr_switch *sw, uint64_t now_tsc)
{
	struct rtr_app *app = sw->main_arg;
	int state = atomic_load(&sw->run_state);

	if (state == RTR_RUN) {
		const char *why = NULL;

		if (rtr_signal)
			why = rtr_signal == SIGINT ? "SIGINT" : "SIGTERM";
		else if (app->duration_s > 0 &&
				now_tsc - app->start_tsc > (uint64_t)(app->duration_s * sw->tsc_hz))
			why = "--duration reached";
		if (why == NULL && app->exit_on_idle_ms) {
			uint64_t last = 0;

			for (unsigned int i = 0; i < sw->n_workers; i++)
				last = RTE_MAX(last, sw->workers[i]->last_rx_tsc);
			if (now_tsc > last &&
					now_tsc - last > app->exit_on_idle_ms * sw->tsc_hz / 1000)
				why = "--exit-on-idle: no packet received";
		}
		if (why != NULL) {
			printf("rocetor: stopping (%s)\n", why);
			atomic_store(&sw->run_state, RTR_STOP_RX);
		}
	} else if (state == RTR_STOP_RX && all_workers_stopped(sw) &&
			!atomic_load(&sw->lb_switching)) {
		/* Nobody polls ports any more; what the control plane still has
		 * to answer was answered in this poll, so the rings can close. */
		atomic_store(&sw->run_state, RTR_STOP_FINAL);
	}
	if (app->cfg.qos.pfc.mode == RTR_PFC_SOFTWARE &&
			now_tsc - app->last_imissed_tsc >
					RTR_IMISSED_POLL_US * sw->tsc_hz / 1000000)
		imissed_poll(app, now_tsc);
	/* zebra's routes (app/fpm.c): here, on the control lcore, the routes'
	 * one writer. */
	if (app->fpm != NULL)
		rtr_fpm_poll(app->fpm, now_tsc / (sw->tsc_hz / 1000));
	rtr_tap_poll(app); /* what the kernel sends out of the ports */
	if (app->stats_interval_s > 0 &&
			now_tsc - app->last_stats_tsc >
					(uint64_t)(app->stats_interval_s * sw->tsc_hz)) {
		app->last_stats_tsc = now_tsc;
		rtr_app_write_stats(app, stdout);
	}
}

void
rtr_app_control_loop(struct rtr_app *app)
{
	struct rtr_switch *sw = &app->sw;
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 200 * 1000};

	while (atomic_load(&sw->run_state) != RTR_STOP_FINAL) {
		if (rtr_control_poll(sw, rte_rdtsc()) == 0)
			nanosleep(&ts, NULL);
	}
	/* Last answers to anything punted before the workers stopped. */
	rtr_control_poll(sw, rte_rdtsc());
}
