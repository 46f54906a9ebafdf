/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rtr_config.h"
#include "cfg_switch.h"
#include "cfg_tree.h"

const char *const rtr_pfc_mode_names[RTR_PFC_MODES] = {
		[RTR_PFC_OFF] = "off",
		[RTR_PFC_SOFTWARE] = "software",
		[RTR_PFC_NIC] = "nic",
		[RTR_PFC_PAUSE] = "pause",
		[RTR_PFC_EXTERNAL] = "external",
};

void
rtr_config_free(struct rtr_config *cfg)
{
	if (cfg == NULL)
		return;
	free(cfg->routes);
	cfg->routes = NULL;
	cfg->n_routes = 0;
}

static const char *
format_of(const char *fmt)
{
	if (fmt == NULL)
		return NULL;
	if (strcmp(fmt, "yaml") == 0 || strcmp(fmt, "yml") == 0)
		return "yaml";
	if (strcmp(fmt, "cfg") == 0 || strcmp(fmt, "conf") == 0)
		return "cfg";
	return NULL;
}

int
rtr_config_load_buf(const char *name, const char *fmt, const char *buf, size_t len,
		struct rtr_config *cfg, char *err, size_t errlen)
{
	static const struct cfg_path syntax = {NULL, "syntax", 0};
	struct cfg_err e = {name != NULL ? name : "(config)", err, errlen};
	struct cfg_node *root = NULL;
	const char *nul, *f;
	char *text = NULL;
	int line, rc = -1;
	size_t i;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (cfg == NULL || (buf == NULL && len > 0)) {
		cfg_error(&e, 0, NULL, "invalid arguments");
		return -1;
	}
	memset(cfg, 0, sizeof(*cfg));
	f = format_of(fmt);
	if (f == NULL) {
		cfg_error(&e, 0, NULL, "unknown config format \"%s\" (yaml or cfg)",
				fmt != NULL ? fmt : "(null)");
		return -1;
	}
	snprintf(cfg->path, sizeof(cfg->path), "%s", e.file);

	/* Both parsers want C strings; a NUL inside would silently cut the file. */
	nul = len > 0 ? memchr(buf, '\0', len) : NULL;
	if (nul != NULL) {
		line = 1;
		for (i = 0; buf + i < nul; i++)
			if (buf[i] == '\n')
				line++;
		cfg_error(&e, line, &syntax, "NUL byte in the file");
		goto out;
	}
	text = malloc(len + 1);
	if (text == NULL) {
		cfg_error(&e, 0, NULL, "out of memory");
		goto out;
	}
	if (len > 0)
		memcpy(text, buf, len);
	text[len] = '\0';

	if (strcmp(f, "yaml") == 0)
		root = cfg_yaml_read(text, len, &e);
	else
		root = cfg_libconfig_read(text, len, &e);
	if (root == NULL)
		goto out;
	rc = cfg_validate(root, cfg, &e);
out:
	cfg_node_free(root);
	free(text);
	if (rc < 0) {
		/* Leave nothing half-filled behind, only the name. */
		rtr_config_free(cfg);
		memset(cfg, 0, sizeof(*cfg));
		snprintf(cfg->path, sizeof(cfg->path), "%s", e.file);
	}
	return rc;
}

static const char *
format_from_path(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (dot == NULL || strchr(dot, '/') != NULL)
		return NULL;
	dot++;
	if (strcasecmp(dot, "yaml") == 0 || strcasecmp(dot, "yml") == 0)
		return "yaml";
	if (strcasecmp(dot, "cfg") == 0 || strcasecmp(dot, "conf") == 0)
		return "cfg";
	return NULL;
}

int
rtr_config_load(const char *path, struct rtr_config *cfg, char *err, size_t errlen)
{
	struct cfg_err e = {path != NULL ? path : "(null)", err, errlen};
	char *buf = NULL, *nbuf;
	size_t len = 0, cap = 0, n;
	const char *fmt;
	FILE *fp;
	int rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (cfg != NULL)
		memset(cfg, 0, sizeof(*cfg));
	if (path == NULL || cfg == NULL)
		return cfg_error(&e, 0, NULL, "invalid arguments");
	fmt = format_from_path(path);
	if (fmt == NULL)
		return cfg_error(&e, 0, NULL,
				"unknown config format (use .yaml, .yml, .cfg or .conf)");
	fp = fopen(path, "r");
	if (fp == NULL)
		return cfg_error(&e, 0, NULL, "cannot open: %s", strerror(errno));
	for (;;) {
		if (len == cap) {
			if (cap >= CFG_MAX_FILE) {
				fclose(fp);
				free(buf);
				return cfg_error(&e, 0, NULL, "file larger than %u MB",
						CFG_MAX_FILE >> 20);
			}
			cap = cap == 0 ? 16384 : cap * 2;
			nbuf = realloc(buf, cap);
			if (nbuf == NULL) {
				fclose(fp);
				free(buf);
				return cfg_error(&e, 0, NULL, "out of memory");
			}
			buf = nbuf;
		}
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(fp)) {
		/* fopen succeeds on a directory; reading it fails with EISDIR. */
		rc = errno;
		fclose(fp);
		free(buf);
		return cfg_error(&e, 0, NULL, "cannot read: %s", strerror(rc));
	}
	fclose(fp);
	rc = rtr_config_load_buf(path, fmt, buf, len, cfg, err, errlen);
	free(buf);
	return rc;
}

int
rtr_config_dump(const struct rtr_config *cfg, char *buf, size_t len)
{
	struct cfg_buf b = {buf, len, 0};

	if (buf != NULL && len > 0)
		buf[0] = '\0';
	cfg_dump(cfg, &b);
	return (int)b.pos;
}
