/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * A mode's entry for the LB fuzz target (fuzz/fuzz_lb.c, doc/fuzzing.md):
 * what the harness cannot know without naming the mode. Each stateful mode
 * has one in its folder (fuzz_<mode>.c, listed in lb_fuzz by its
 * meson.build); fuzz/meson.build links it into fuzz_lb_<mode>, whose
 * corpora are fuzz/seeds/lb_<mode> and fuzz/regress/lb_<mode>. Not part of
 * the switch.
 */
#ifndef RTR_LB_FUZZ_H
#define RTR_LB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "rtr_config.h"
#include "rtr_lb.h"

struct rtr_lb_fuzz {
	unsigned int mode; /* the registry id (enum rtr_lb_mode) */
	/*
	 * The mode's config section (YAML, one line ending in a newline, or
	 * empty) for the input's parameter byte p, into buf: values chosen
	 * so that the interesting limits (full tables, overflowing rings,
	 * short deadlines) are reached by short inputs.
	 */
	const char *(*config)(uint8_t p, char *buf, size_t n);
	/* The per-switch state of one ToR, or NULL: the ops' shared_create
	 * (cfg, 1 group, no EAL). */
	void *(*shared_create)(const struct rtr_config *cfg);
};

/* The entry linked into this fuzz target. */
extern const struct rtr_lb_fuzz rtr_lb_fuzz_entry;

#endif /* RTR_LB_FUZZ_H */
