/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * Fuzz targets "config_yaml" and "config_cfg" (FUZZ_CFG_FMT): the input is
 * a config file in that format, given to rtr_config_load_buf (the libyaml
 * or libconfig reader, then the validator). It must never crash, and must
 * either succeed or fail with -1 and a one-line, non-empty message naming
 * the file (DESIGN.md B2, B3). A config that loads is dumped as canonical
 * YAML (rtr_config_dump, what telemetry serves); that dump must load again
 * and dump to the same text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "rtr_config.h"

#ifndef FUZZ_CFG_FMT
#error "FUZZ_CFG_FMT must be \"yaml\" or \"cfg\""
#endif

#define DUMP_MAX (1u << 20)

static char dump1[DUMP_MAX], dump2[DUMP_MAX];

static void
check_error(int rc, const char *err, size_t errlen, const char *file)
{
	FZ_CHECK(rc == -1, "load returned %d", rc);
	FZ_CHECK(memchr(err, '\0', errlen) != NULL, "message not terminated");
	FZ_CHECK(err[0] != '\0', "bad config without a message");
	FZ_CHECK(strchr(err, '\n') == NULL, "message of more than one line: %s", err);
	FZ_CHECK(strncmp(err, file, strlen(file)) == 0, "message does not start with the file: %s",
			err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char file[] = "fuzz." FUZZ_CFG_FMT;
	struct rtr_config cfg, again;
	char err[512];
	int rc, n1, n2;

	if (size > 65536)
		return 0;
	memset(err, 'x', sizeof(err));
	rc = rtr_config_load_buf(
			file, FUZZ_CFG_FMT, (const char *)data, size, &cfg, err, sizeof(err));
	if (rc != 0) {
		check_error(rc, err, sizeof(err), file);
		rtr_config_free(&cfg);
		return 0;
	}
	n1 = rtr_config_dump(&cfg, dump1, sizeof(dump1));
	FZ_CHECK(n1 > 0);
	if ((unsigned int)n1 < sizeof(dump1)) {
		rc = rtr_config_load_buf(
				"dump.yaml", "yaml", dump1, (size_t)n1, &again, err, sizeof(err));
		FZ_CHECK(rc == 0, "the dump of a valid config does not load: %s\n%s", err, dump1);
		n2 = rtr_config_dump(&again, dump2, sizeof(dump2));
		FZ_CHECK(n1 == n2 && memcmp(dump1, dump2, (size_t)n1) == 0,
				"dump not stable:\n%s\n---\n%s", dump1, dump2);
		rtr_config_free(&again);
	}
	rtr_config_free(&cfg);
	return 0;
}
