/* mpi-untraced.c - a call to an MPI function that no wrapper recorded.
 *
 * The pass puts __commhint_mpi_after(site, name) after every call to an MPI
 * function that is not local (tracelib/mpi-local.h).  When the call went
 * through a wrapper, the wrapper took the pending site and nothing happens
 * here; otherwise (one-sided calls, nonblocking collectives, persistent
 * requests, ... anything commhint does not wrap yet, and PMPI_ calls made
 * directly) the call is recorded here by name as CHT_MPI_UNTRACED, which
 * the analysis takes as a fence: nothing moves across it, since what it
 * reads and writes is unknown (docs/dependence.md).  `commhint info`
 * counts these calls by name.
 */
#include <string.h>

#include "mpi-private.h"

void rt_mpi_untraced(const char *name, uint64_t t_enter, void *ra)
{
    struct mpi_ev ev;
    size_t len = name ? strnlen(name, CHT_CALLNAME_MAX) : 0;
    size_t extra = mpi_pad8(sizeof(struct cht_rec_callname) + len + 1);
    mpi_ev_begin(&ev, CHT_MPI_UNTRACED, MPI_COMM_NULL, ra);
    ev.rec.comm = CHT_COMM_UNKNOWN;
    ev.rec.t_enter = t_enter;
    ev.rec.t_exit = rt_now_ns();
    ev.ret = MPI_SUCCESS;
    size_t args = mpi_ev_args_size(&ev);
    char *p = mpi_ev_reserve(&ev, args + extra);
    if (p == NULL)
        return;
    struct cht_rec_callname *c = (struct cht_rec_callname *)mpi_ev_args_write(&ev, p);
    p = (char *)c;
    memset(p, 0, extra);
    c->h = (struct cht_rec){CHT_REC_CALLNAME, (uint16_t)len, (uint32_t)extra};
    if (len)
        memcpy(c + 1, name, len);
    rt_commit(sizeof(struct cht_rec_mpi) + args + extra);
}
