/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The LB stage as the app runs it. Everything about a mode comes from its
 * registry descriptor (lib/lb/rtr_lb.h): its name, whether it is built,
 * how it behaves on a spine; its states are made and freed through its
 * ops. The runtime switch hands the new states to the workers through the
 * pipeline (rtr_pipeline_lb_switch) and frees the old ones there.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_lcore.h>

#include "lb.h"
#include "rtr_egress.h"
#include "rtr_lb_registry.h"

int
rtr_app_lb_select(struct rtr_app *app)
{
	char modes[256];
	int mode;

	if (app->lb_override != NULL) {
		mode = rtr_lb_mode_find(app->lb_override);
		if (mode < 0) {
			const char *near = rtr_lb_mode_suggest(app->lb_override);

			fprintf(stderr, "rocetor: --lb: unknown mode \"%s\"%s%s%s (%s)\n",
					app->lb_override, near != NULL ? ", did you mean " : "",
					near != NULL ? near : "", near != NULL ? "?" : "",
					rtr_lb_mode_list(modes, sizeof(modes), ", ", false));
			return -1;
		}
		app->cfg.sw.lb = (enum rtr_lb_mode)mode;
	}
	app->sw.lb = rtr_app_lb_ops(app, app->cfg.sw.lb);
	if (app->sw.lb == NULL) {
		fprintf(stderr,
				"%s: switch.lb: mode \"%s\" is not available in this build yet "
				"(available: %s)\n",
				app->lb_override ? "--lb" : app->cfg.path,
				rtr_lb_mode_at(app->cfg.sw.lb)->name,
				rtr_lb_mode_list(modes, sizeof(modes), ", ", true));
		return -1;
	}
	return 0;
}

const struct rtr_lb_ops *
rtr_app_lb_ops(struct rtr_app *app, enum rtr_lb_mode mode)
{
	return rtr_lb_mode_ops((unsigned int)mode, app->cfg.sw.role == RTR_ROLE_SPINE);
}

void
rtr_app_lb_destroy(const struct rtr_lb_ops *ops, void *shared, void **states, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (states[i] != NULL && ops->fini != NULL)
			ops->fini(states[i]);
	if (shared != NULL && ops->shared_free != NULL)
		ops->shared_free(shared);
}

/* rtr_lb_init.queue_bytes: the worker's egress queues of a port. Through
 * the worker, since at start-up the LB state is made before the egress
 * (whose departure hook depends on the mode). */
static uint32_t
worker_queue_bytes(const void *arg, uint16_t port)
{
	const struct rtr_worker *w = arg;

	return w->eg != NULL ? rtr_egress_queue_bytes(w->eg, port) : 0;
}

/* From the config: a mode whose section is absent gets the defaults the
 * validator filled in. */
int
rtr_app_lb_create(struct rtr_app *app, const struct rtr_lb_ops *ops, void **shared, void **states)
{
	struct rtr_switch *sw = &app->sw;
	const struct rtr_config *cfg = &app->cfg;

	*shared = NULL;
	memset(states, 0, sizeof(states[0]) * sw->n_workers);
	if (ops->shared_create != NULL) {
		*shared = ops->shared_create(cfg, sw->route->n_groups, true, (int)rte_socket_id());
		if (*shared == NULL) {
			fprintf(stderr, "rocetor: LB mode %s: cannot allocate its shared state\n",
					ops->name);
			return -ENOMEM;
		}
	}
	for (unsigned int i = 0; i < sw->n_workers; i++) {
		struct rtr_lb_init in = {
				.cfg = cfg,
				.worker = i,
				.n_workers = sw->n_workers,
				.socket = (int)rte_lcore_to_socket_id(sw->workers[i]->lcore_id),
				.n_groups = sw->route->n_groups,
				.hash_seed = sw->hash_seed,
				.hold_budget = app->hold_budget,
				.use_rte_malloc = true,
				.shared = *shared,
				.link_down = &sw->link_down_mask,
				.clock = &sw->workers[i]->clock,
				.queue_bytes = worker_queue_bytes,
				.queue_arg = sw->workers[i],
		};

		for (unsigned int p = 0; p < cfg->n_ports; p++)
			if (cfg->ports[p].role == RTR_PORT_HOST)
				in.host_port_mask |= 1u << cfg->ports[p].port;
		rtr_worker_lb_io(sw->workers[i], &in.io);
		states[i] = ops->init(&in);
		if (states[i] == NULL) {
			/* The mode's state is sized by its config section. */
			fprintf(stderr,
					"rocetor: LB mode %s: cannot initialise worker %u (out of "
					"memory for its flow table and state: see "
					"%s.flow_table_size "
					"and the other sizes of its config section)\n",
					ops->name, i, ops->name);
			rtr_app_lb_destroy(ops, *shared, states, i);
			*shared = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

int64_t
rtr_app_lb_switch(struct rtr_app *app, enum rtr_lb_mode mode, char *err, size_t len)
{
	struct rtr_switch *sw = &app->sw;
	const struct rtr_lb_ops *ops, *old;
	void *states[RTR_MAX_LCORES], *shared;
	int64_t released;

	ops = rtr_app_lb_ops(app, mode);
	if (ops == NULL) {
		const struct rtr_lb_desc *d = rtr_lb_mode_at((unsigned int)mode);

		snprintf(err, len, "LB mode %s is not available in this build",
				d != NULL ? d->name : "?");
		return -ENOTSUP;
	}
	pthread_mutex_lock(&app->switch_lock);
	old = sw->lb;
	if (old->mode == mode) {
		pthread_mutex_unlock(&app->switch_lock);
		return 0;
	}
	/* Set before the run state is read: the exit sequence reads them in
	 * the other order (main_tick), so one of the two sees the other. */
	atomic_store(&sw->lb_switching, 1);
	if (atomic_load(&sw->run_state) != RTR_RUN) {
		atomic_store(&sw->lb_switching, 0);
		pthread_mutex_unlock(&app->switch_lock);
		snprintf(err, len, "the switch is not running (starting or stopping)");
		return -EBUSY;
	}
	if (rtr_app_lb_create(app, ops, &shared, states) < 0) {
		atomic_store(&sw->lb_switching, 0);
		pthread_mutex_unlock(&app->switch_lock);
		snprintf(err, len, "cannot allocate the state of LB mode %s", ops->name);
		return -ENOMEM;
	}
	released = rtr_pipeline_lb_switch(sw, ops, shared, states);
	if (released < 0) {
		rtr_app_lb_destroy(ops, shared, states, sw->n_workers);
		snprintf(err, len, "out of memory");
	} else {
		printf("rocetor: LB mode switched from %s to %s at runtime (%" PRId64
		       " held packets released by %s)\n",
				old->name, ops->name, released, old->name);
		fflush(stdout);
	}
	atomic_store(&sw->lb_switching, 0);
	pthread_mutex_unlock(&app->switch_lock);
	return released;
}
