/* candidates-oracle.h - the collective search's candidates by their
 * definition, over every log at once, written apart from candidates.c:
 * an oracle for the tests. */
#ifndef COMMHINT_TEST_CANDIDATES_ORACLE_H
#define COMMHINT_TEST_CANDIDATES_ORACLE_H

#include "depgraph.h"

/* mk[r][pos] non-zero for the candidates (mk[r]: logs[r]->n entries,
 * zeroed by the caller, for every r with a log); returns 0. */
int oracle_coll_candidates(const struct dg_mpilog *const *logs, int P, const struct dg_match *m, uint8_t **mk);

#endif
