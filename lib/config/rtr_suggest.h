/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * "Did you mean ...?": the known name closest to a misspelt one, for the
 * config's unknown keys and enum values and for --lb. Plain edit distance
 * (insert, delete, substitute, swap two neighbours), no allocation.
 */
#ifndef RTR_SUGGEST_H
#define RTR_SUGGEST_H

#include <stddef.h>

/* Names longer than this are compared by their first RTR_SUGGEST_MAX_LEN
 * characters only; config keys and mode names are far shorter. */
#define RTR_SUGGEST_MAX_LEN 63

/* The edit distance between a and b: insertions, deletions, substitutions
 * and transpositions of two adjacent characters each cost 1 (optimal string
 * alignment). Case-sensitive, byte-wise. */
unsigned int rtr_edit_distance(const char *a, const char *b);

/* The candidate nearest to word, or NULL when none is near enough to be a
 * likely typo: the distance must be at most max(2, strlen(word) / 3) and
 * less than strlen(word) (a short word sharing nothing is no typo). An
 * exact match is not a suggestion (NULL). Ties go to the earlier
 * candidate. cands holds n names, or is NULL-terminated when n is 0;
 * NULL entries are skipped. */
const char *rtr_suggest(const char *word, const char *const *cands, size_t n);

#endif /* RTR_SUGGEST_H */
