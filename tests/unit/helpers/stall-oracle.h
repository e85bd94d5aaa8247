/* stall-oracle.h - the serial replay of depgraph's dg_stall_check before it
 * was spread over processes, as an oracle for the tests. */
#ifndef COMMHINT_TEST_STALL_ORACLE_H
#define COMMHINT_TEST_STALL_ORACLE_H

#include "depgraph.h"

int oracle_stall_check(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                       const struct dg_move *const *moves, const uint32_t *nmoves, struct dg_stall_wait *blocked,
                       bool *stalled);

#endif
