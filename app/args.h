/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/* rocetor's own command line, after the EAL options and -- (DESIGN.md B2). */
#ifndef RTR_APP_ARGS_H
#define RTR_APP_ARGS_H

#include "rtr_app.h"

/* Print the options (also the EAL's usage hook: -h anywhere). */
void rtr_args_usage(const char *prog);
/* Fill app's command-line fields. Returns 0, or -1 with a message on
 * stderr (exit status 2). -h prints the usage and exits 0. */
int rtr_args_parse(struct rtr_app *app, int argc, char **argv);

#endif /* RTR_APP_ARGS_H */
