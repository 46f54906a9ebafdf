/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * The nearest known name to a misspelt one (rtr_suggest.h). Three rows of
 * the usual dynamic-programming table on the stack: the previous two rows
 * are what an adjacent swap needs.
 */
#include <string.h>

#include "rtr_suggest.h"

static unsigned int
min3(unsigned int a, unsigned int b, unsigned int c)
{
	unsigned int m = a < b ? a : b;

	return m < c ? m : c;
}

unsigned int
rtr_edit_distance(const char *a, const char *b)
{
	unsigned int rows[3][RTR_SUGGEST_MAX_LEN + 1];
	unsigned int *prev2 = rows[0], *prev = rows[1], *cur = rows[2], *t;
	size_t la = strnlen(a, RTR_SUGGEST_MAX_LEN), lb = strnlen(b, RTR_SUGGEST_MAX_LEN);
	size_t i, j;

	for (j = 0; j <= lb; j++)
		prev[j] = (unsigned int)j;
	for (i = 1; i <= la; i++) {
		cur[0] = (unsigned int)i;
		for (j = 1; j <= lb; j++) {
			unsigned int cost = a[i - 1] == b[j - 1] ? 0 : 1;

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
					prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

const char *
rtr_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t len = strnlen(word, RTR_SUGGEST_MAX_LEN);
	unsigned int limit = len / 3 > 2 ? (unsigned int)(len / 3) : 2;
	unsigned int best_d = limit + 1, d;
	const char *best = NULL;
	size_t i;

	if (len == 0)
		return NULL;
	for (i = 0; n == 0 ? cands[i] != NULL : i < n; i++) {
		if (cands[i] == NULL)
			continue;
		if (strcmp(cands[i], word) == 0)
			return NULL;
		d = rtr_edit_distance(word, cands[i]);
		if (d < best_d && d < len) {
			best_d = d;
			best = cands[i];
		}
	}
	return best;
}
