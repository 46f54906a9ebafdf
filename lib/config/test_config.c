/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */
#include <stdio.h>
#include "rtr_config.h"
#include "rtr_test.h"
int
main(int argc, char **argv)
{
	static struct rtr_config cfg;
	static char dump[1 << 20];
	char err[512];
	int i;

	for (i = 1; i < argc; i++) {
		if (rtr_config_load(argv[i], &cfg, err, sizeof(err)) < 0) {
			printf("ERR: %s\n", err);
			continue;
		}
		rtr_config_dump(&cfg, dump, sizeof(dump));
		fputs(dump, stdout);
		rtr_config_free(&cfg);
	}
	CHECK(1, "x");
	return rtr_test_done("config");
}
