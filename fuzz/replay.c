/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The main() of a fuzz target in builds without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every file named on the command line and
 * on every file of every directory named (in name order, dot files skipped).
 * meson registers it as the unit test fuzz-regress-<target> over the seed
 * and regression corpora, so every build replays what the fuzzers found.
 * Each input sits right before an inaccessible page, so an over-read
 * faults even without ASan. A finding aborts; an empty corpus fails too
 * (a path that went missing must not turn the test into a no-op).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

/* Targets that need one-time set-up define it; the others get this one. */
__attribute__((weak)) int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/*
 * The input's bytes end exactly where an inaccessible page begins, so that
 * a read past the end faults here too, without a sanitizer (electric-fence
 * style). Returns the copy; *map and *maplen are what to munmap.
 */
static const uint8_t *
guarded_copy(const uint8_t *src, size_t n, void **map, size_t *maplen)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t body = (n + pg - 1) / pg * pg;
	uint8_t *p;

	*maplen = body + pg;
	p = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || mprotect(p + body, pg, PROT_NONE) != 0) {
		perror("replay: mmap");
		exit(1);
	}
	*map = p;
	memcpy(p + body - n, src, n);
	return p + body - n;
}

static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	const uint8_t *in;
	uint8_t *buf;
	size_t maplen;
	void *map;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
			fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		if (f != NULL)
			fclose(f);
		return -1;
	}
	buf = malloc((size_t)n + 1);
	if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	if (getenv("RTR_FUZZ_VERBOSE") != NULL)
		fprintf(stderr, "replay: %s (%ld bytes)\n", path, n);
	in = guarded_copy(buf, (size_t)n, &map, &maplen);
	free(buf);
	LLVMFuzzerTestOneInput(in, (size_t)n);
	munmap(map, maplen);
	return 0;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
run_dir(const char *dir, unsigned int *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int rc = 0;

	if (d == NULL) {
		fprintf(stderr, "replay: cannot open %s\n", dir);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*names));

			if (nn == NULL)
				abort();
			names = nn;
		}
		names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (names[n] == NULL)
			abort();
		sprintf(names[n], "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		struct stat st;

		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			if (run_file(names[i]) != 0)
				rc = -1;
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	unsigned int count = 0;
	int rc = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s does not exist\n", argv[i]);
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &count) != 0)
				rc = 1;
		} else if (run_file(argv[i]) == 0) {
			count++;
		} else {
			rc = 1;
		}
	}
	printf("%s: replayed %u inputs\n", argv[0], count);
	if (count == 0) {
		fprintf(stderr, "replay: no inputs\n");
		return 1;
	}
	return rc;
}
