/* replay-oracle.h - the serial timed replay of depgraph's dg_replay_run
 * before it was spread over processes, as an oracle for the tests. */
#ifndef COMMHINT_TEST_REPLAY_ORACLE_H
#define COMMHINT_TEST_REPLAY_ORACLE_H

#include "depgraph.h"

int oracle_replay_run(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                      const struct dg_replay_params *pp, const struct dg_change *ch, size_t nch,
                      struct dg_replay_rank *out);

#endif
