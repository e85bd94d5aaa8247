/* fit-oracle.h - the serial fit of depgraph's dg_replay_fit before it was
 * spread over processes, as an oracle for the tests. */
#ifndef COMMHINT_TEST_FIT_ORACLE_H
#define COMMHINT_TEST_FIT_ORACLE_H

#include "depgraph.h"

int oracle_replay_fit(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                      struct dg_replay_params *pp);

#endif
