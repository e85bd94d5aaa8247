/* mpi-local.c - wrappers of local calls that read what another MPI call
 * wrote: MPI_Get_count and MPI_Get_elements (and their MPI_Count forms)
 * read a status a receive filled and write a count; MPI_Test_cancelled
 * reads a status and writes a flag.  They are recorded so
 * that the analysis sees those reads and writes (docs/dependence.md); they
 * move no data between ranks.
 */
#include "mpi-private.h"

#define LOCAL_STATUS_CALL(name, call, ctype)                                              \
    COMMHINT_EXPORT int name(const MPI_Status *status, MPI_Datatype datatype, ctype *count) \
    {                                                                                     \
        struct mpi_ev ev;                                                                 \
        MPI_EV_BEGIN(&ev, call, MPI_COMM_NULL);                                           \
        mpi_ev_arg(&ev, status, sizeof(MPI_Status), 0, 0);                                \
        mpi_ev_arg(&ev, count, sizeof(ctype), 1, 0);                                      \
        MPI_EV_CALL(&ev, P##name(status, datatype, count));                               \
        return mpi_ev_end(&ev);                                                           \
    }

LOCAL_STATUS_CALL(MPI_Get_count, CHT_MPI_GET_COUNT, int)
LOCAL_STATUS_CALL(MPI_Get_count_c, CHT_MPI_GET_COUNT, MPI_Count)
LOCAL_STATUS_CALL(MPI_Get_elements, CHT_MPI_GET_ELEMENTS, int)
LOCAL_STATUS_CALL(MPI_Get_elements_c, CHT_MPI_GET_ELEMENTS, MPI_Count)
LOCAL_STATUS_CALL(MPI_Get_elements_x, CHT_MPI_GET_ELEMENTS, MPI_Count)

/* MPI_Test_cancelled reads a status a completion filled and writes a flag. */
COMMHINT_EXPORT int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_TEST_CANCELLED, MPI_COMM_NULL);
    mpi_ev_arg(&ev, status, sizeof(MPI_Status), 0, 0);
    mpi_ev_arg(&ev, flag, sizeof(int), 1, 0);
    MPI_EV_CALL(&ev, PMPI_Test_cancelled(status, flag));
    return mpi_ev_end(&ev);
}
