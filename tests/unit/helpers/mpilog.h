/* mpilog.h - MPI logs made by hand for the unit tests of the cross-rank
 * stage. */
#ifndef COMMHINT_TEST_MPILOG_H
#define COMMHINT_TEST_MPILOG_H

#include "depgraph.h"

/* A new record at the end of g, zeroed but for index (its position),
 * peer and tag (-1) and site (CHT_NONE); aborts on out-of-memory. */
struct dg_msgrec *mpilog_push(struct dg_mpilog *g);

#endif
