/* callpath-other.c - a helper around MPI_Sendrecv in a file of its own
 * (tests/e2e/callpath.sh, with callpath.c). */
#include <mpi.h>

#include "callpath-other.h"

void exchange_there(double *s, double *r, int n, int peer)
{
    MPI_Sendrecv(s, n, MPI_DOUBLE, peer, 2, r, n, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, /* CP-THERE-CALL */
                 MPI_STATUS_IGNORE);
}
