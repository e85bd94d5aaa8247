/* names.c - printable names of the enums of trace-format.h. */
#include <inttypes.h>
#include <stdio.h>

#include "reader-private.h"

/* The calls of MPI-3 and MPI-4 collectives, neighbourhood collectives and
 * one-sided communication (ids 150 and up), or NULL. */
static const char *call_name_high(int call)
{
    switch (call) {
    case CHT_MPI_ALLTOALLW: return "MPI_Alltoallw";
    case CHT_MPI_IBARRIER: return "MPI_Ibarrier";
    case CHT_MPI_IBCAST: return "MPI_Ibcast";
    case CHT_MPI_IREDUCE: return "MPI_Ireduce";
    case CHT_MPI_IALLREDUCE: return "MPI_Iallreduce";
    case CHT_MPI_IGATHER: return "MPI_Igather";
    case CHT_MPI_IGATHERV: return "MPI_Igatherv";
    case CHT_MPI_ISCATTER: return "MPI_Iscatter";
    case CHT_MPI_ISCATTERV: return "MPI_Iscatterv";
    case CHT_MPI_IALLGATHER: return "MPI_Iallgather";
    case CHT_MPI_IALLGATHERV: return "MPI_Iallgatherv";
    case CHT_MPI_IALLTOALL: return "MPI_Ialltoall";
    case CHT_MPI_IALLTOALLV: return "MPI_Ialltoallv";
    case CHT_MPI_IALLTOALLW: return "MPI_Ialltoallw";
    case CHT_MPI_IREDUCE_SCATTER: return "MPI_Ireduce_scatter";
    case CHT_MPI_IREDUCE_SCATTER_BLOCK: return "MPI_Ireduce_scatter_block";
    case CHT_MPI_ISCAN: return "MPI_Iscan";
    case CHT_MPI_IEXSCAN: return "MPI_Iexscan";
    case CHT_MPI_BARRIER_INIT: return "MPI_Barrier_init";
    case CHT_MPI_BCAST_INIT: return "MPI_Bcast_init";
    case CHT_MPI_REDUCE_INIT: return "MPI_Reduce_init";
    case CHT_MPI_ALLREDUCE_INIT: return "MPI_Allreduce_init";
    case CHT_MPI_GATHER_INIT: return "MPI_Gather_init";
    case CHT_MPI_GATHERV_INIT: return "MPI_Gatherv_init";
    case CHT_MPI_SCATTER_INIT: return "MPI_Scatter_init";
    case CHT_MPI_SCATTERV_INIT: return "MPI_Scatterv_init";
    case CHT_MPI_ALLGATHER_INIT: return "MPI_Allgather_init";
    case CHT_MPI_ALLGATHERV_INIT: return "MPI_Allgatherv_init";
    case CHT_MPI_ALLTOALL_INIT: return "MPI_Alltoall_init";
    case CHT_MPI_ALLTOALLV_INIT: return "MPI_Alltoallv_init";
    case CHT_MPI_ALLTOALLW_INIT: return "MPI_Alltoallw_init";
    case CHT_MPI_REDUCE_SCATTER_INIT: return "MPI_Reduce_scatter_init";
    case CHT_MPI_REDUCE_SCATTER_BLOCK_INIT: return "MPI_Reduce_scatter_block_init";
    case CHT_MPI_SCAN_INIT: return "MPI_Scan_init";
    case CHT_MPI_EXSCAN_INIT: return "MPI_Exscan_init";
    case CHT_MPI_NEIGHBOR_ALLGATHER: return "MPI_Neighbor_allgather";
    case CHT_MPI_NEIGHBOR_ALLGATHERV: return "MPI_Neighbor_allgatherv";
    case CHT_MPI_NEIGHBOR_ALLTOALL: return "MPI_Neighbor_alltoall";
    case CHT_MPI_NEIGHBOR_ALLTOALLV: return "MPI_Neighbor_alltoallv";
    case CHT_MPI_NEIGHBOR_ALLTOALLW: return "MPI_Neighbor_alltoallw";
    case CHT_MPI_INEIGHBOR_ALLGATHER: return "MPI_Ineighbor_allgather";
    case CHT_MPI_INEIGHBOR_ALLGATHERV: return "MPI_Ineighbor_allgatherv";
    case CHT_MPI_INEIGHBOR_ALLTOALL: return "MPI_Ineighbor_alltoall";
    case CHT_MPI_INEIGHBOR_ALLTOALLV: return "MPI_Ineighbor_alltoallv";
    case CHT_MPI_INEIGHBOR_ALLTOALLW: return "MPI_Ineighbor_alltoallw";
    case CHT_MPI_NEIGHBOR_ALLGATHER_INIT: return "MPI_Neighbor_allgather_init";
    case CHT_MPI_NEIGHBOR_ALLGATHERV_INIT: return "MPI_Neighbor_allgatherv_init";
    case CHT_MPI_NEIGHBOR_ALLTOALL_INIT: return "MPI_Neighbor_alltoall_init";
    case CHT_MPI_NEIGHBOR_ALLTOALLV_INIT: return "MPI_Neighbor_alltoallv_init";
    case CHT_MPI_NEIGHBOR_ALLTOALLW_INIT: return "MPI_Neighbor_alltoallw_init";
    case CHT_MPI_WIN_CREATE: return "MPI_Win_create";
    case CHT_MPI_WIN_ALLOCATE: return "MPI_Win_allocate";
    case CHT_MPI_WIN_ALLOCATE_SHARED: return "MPI_Win_allocate_shared";
    case CHT_MPI_WIN_CREATE_DYNAMIC: return "MPI_Win_create_dynamic";
    case CHT_MPI_WIN_ATTACH: return "MPI_Win_attach";
    case CHT_MPI_WIN_DETACH: return "MPI_Win_detach";
    case CHT_MPI_WIN_FREE: return "MPI_Win_free";
    case CHT_MPI_PUT: return "MPI_Put";
    case CHT_MPI_GET: return "MPI_Get";
    case CHT_MPI_ACCUMULATE: return "MPI_Accumulate";
    case CHT_MPI_GET_ACCUMULATE: return "MPI_Get_accumulate";
    case CHT_MPI_FETCH_AND_OP: return "MPI_Fetch_and_op";
    case CHT_MPI_COMPARE_AND_SWAP: return "MPI_Compare_and_swap";
    case CHT_MPI_RPUT: return "MPI_Rput";
    case CHT_MPI_RGET: return "MPI_Rget";
    case CHT_MPI_RACCUMULATE: return "MPI_Raccumulate";
    case CHT_MPI_RGET_ACCUMULATE: return "MPI_Rget_accumulate";
    case CHT_MPI_WIN_FENCE: return "MPI_Win_fence";
    case CHT_MPI_WIN_LOCK: return "MPI_Win_lock";
    case CHT_MPI_WIN_UNLOCK: return "MPI_Win_unlock";
    case CHT_MPI_WIN_LOCK_ALL: return "MPI_Win_lock_all";
    case CHT_MPI_WIN_UNLOCK_ALL: return "MPI_Win_unlock_all";
    case CHT_MPI_WIN_FLUSH: return "MPI_Win_flush";
    case CHT_MPI_WIN_FLUSH_ALL: return "MPI_Win_flush_all";
    case CHT_MPI_WIN_FLUSH_LOCAL: return "MPI_Win_flush_local";
    case CHT_MPI_WIN_FLUSH_LOCAL_ALL: return "MPI_Win_flush_local_all";
    case CHT_MPI_WIN_POST: return "MPI_Win_post";
    case CHT_MPI_WIN_START: return "MPI_Win_start";
    case CHT_MPI_WIN_COMPLETE: return "MPI_Win_complete";
    case CHT_MPI_WIN_WAIT: return "MPI_Win_wait";
    case CHT_MPI_WIN_TEST: return "MPI_Win_test";
    case CHT_MPI_WIN_SYNC: return "MPI_Win_sync";
    }
    return NULL;
}

const char *trace_mpi_call_name(int call)
{
    if (call >= CHT_MPI_ALLTOALLW) {
        const char *n = call_name_high(call);
        return n ? n : "MPI_?";
    }
    switch (call) {
    case CHT_MPI_UNKNOWN: return "MPI_?";
    case CHT_MPI_SEND: return "MPI_Send";
    case CHT_MPI_SSEND: return "MPI_Ssend";
    case CHT_MPI_BSEND: return "MPI_Bsend";
    case CHT_MPI_RSEND: return "MPI_Rsend";
    case CHT_MPI_RECV: return "MPI_Recv";
    case CHT_MPI_ISEND: return "MPI_Isend";
    case CHT_MPI_ISSEND: return "MPI_Issend";
    case CHT_MPI_IBSEND: return "MPI_Ibsend";
    case CHT_MPI_IRSEND: return "MPI_Irsend";
    case CHT_MPI_IRECV: return "MPI_Irecv";
    case CHT_MPI_SENDRECV: return "MPI_Sendrecv";
    case CHT_MPI_SENDRECV_REPLACE: return "MPI_Sendrecv_replace";
    case CHT_MPI_PROBE: return "MPI_Probe";
    case CHT_MPI_IPROBE: return "MPI_Iprobe";
    case CHT_MPI_WAIT: return "MPI_Wait";
    case CHT_MPI_WAITALL: return "MPI_Waitall";
    case CHT_MPI_WAITANY: return "MPI_Waitany";
    case CHT_MPI_WAITSOME: return "MPI_Waitsome";
    case CHT_MPI_TEST: return "MPI_Test";
    case CHT_MPI_TESTALL: return "MPI_Testall";
    case CHT_MPI_TESTANY: return "MPI_Testany";
    case CHT_MPI_TESTSOME: return "MPI_Testsome";
    case CHT_MPI_REQUEST_FREE: return "MPI_Request_free";
    case CHT_MPI_CANCEL: return "MPI_Cancel";
    case CHT_MPI_BARRIER: return "MPI_Barrier";
    case CHT_MPI_BCAST: return "MPI_Bcast";
    case CHT_MPI_REDUCE: return "MPI_Reduce";
    case CHT_MPI_ALLREDUCE: return "MPI_Allreduce";
    case CHT_MPI_GATHER: return "MPI_Gather";
    case CHT_MPI_GATHERV: return "MPI_Gatherv";
    case CHT_MPI_SCATTER: return "MPI_Scatter";
    case CHT_MPI_SCATTERV: return "MPI_Scatterv";
    case CHT_MPI_ALLGATHER: return "MPI_Allgather";
    case CHT_MPI_ALLGATHERV: return "MPI_Allgatherv";
    case CHT_MPI_ALLTOALL: return "MPI_Alltoall";
    case CHT_MPI_ALLTOALLV: return "MPI_Alltoallv";
    case CHT_MPI_REDUCE_SCATTER: return "MPI_Reduce_scatter";
    case CHT_MPI_REDUCE_SCATTER_BLOCK: return "MPI_Reduce_scatter_block";
    case CHT_MPI_SCAN: return "MPI_Scan";
    case CHT_MPI_EXSCAN: return "MPI_Exscan";
    case CHT_MPI_COMM_DUP: return "MPI_Comm_dup";
    case CHT_MPI_COMM_SPLIT: return "MPI_Comm_split";
    case CHT_MPI_COMM_CREATE: return "MPI_Comm_create";
    case CHT_MPI_COMM_FREE: return "MPI_Comm_free";
    case CHT_MPI_CART_CREATE: return "MPI_Cart_create";
    case CHT_MPI_CART_SUB: return "MPI_Cart_sub";
    case CHT_MPI_COMM_SPLIT_TYPE: return "MPI_Comm_split_type";
    case CHT_MPI_INTERCOMM_CREATE: return "MPI_Intercomm_create";
    case CHT_MPI_GRAPH_CREATE: return "MPI_Graph_create";
    case CHT_MPI_DIST_GRAPH_CREATE: return "MPI_Dist_graph_create";
    case CHT_MPI_DIST_GRAPH_CREATE_ADJACENT: return "MPI_Dist_graph_create_adjacent";
    case CHT_MPI_INIT: return "MPI_Init";
    case CHT_MPI_INIT_THREAD: return "MPI_Init_thread";
    case CHT_MPI_FINALIZE: return "MPI_Finalize";
    case CHT_MPI_ABORT: return "MPI_Abort";
    case CHT_MPI_GET_COUNT: return "MPI_Get_count";
    case CHT_MPI_GET_ELEMENTS: return "MPI_Get_elements";
    case CHT_MPI_UNTRACED: return "MPI (untraced)";
    case CHT_MPI_SEND_INIT: return "MPI_Send_init";
    case CHT_MPI_SSEND_INIT: return "MPI_Ssend_init";
    case CHT_MPI_BSEND_INIT: return "MPI_Bsend_init";
    case CHT_MPI_RSEND_INIT: return "MPI_Rsend_init";
    case CHT_MPI_RECV_INIT: return "MPI_Recv_init";
    case CHT_MPI_START: return "MPI_Start";
    case CHT_MPI_STARTALL: return "MPI_Startall";
    case CHT_MPI_PSEND_INIT: return "MPI_Psend_init";
    case CHT_MPI_PRECV_INIT: return "MPI_Precv_init";
    case CHT_MPI_PREADY: return "MPI_Pready";
    case CHT_MPI_PREADY_RANGE: return "MPI_Pready_range";
    case CHT_MPI_PREADY_LIST: return "MPI_Pready_list";
    case CHT_MPI_PARRIVED: return "MPI_Parrived";
    case CHT_MPI_MPROBE: return "MPI_Mprobe";
    case CHT_MPI_IMPROBE: return "MPI_Improbe";
    case CHT_MPI_MRECV: return "MPI_Mrecv";
    case CHT_MPI_IMRECV: return "MPI_Imrecv";
    case CHT_MPI_ISENDRECV: return "MPI_Isendrecv";
    case CHT_MPI_ISENDRECV_REPLACE: return "MPI_Isendrecv_replace";
    }
    return "MPI_?";
}

int trace_mpi_call_base(int call)
{
    switch (call) {
    case CHT_MPI_ISEND: case CHT_MPI_SEND_INIT: case CHT_MPI_PSEND_INIT: return CHT_MPI_SEND;
    case CHT_MPI_ISSEND: case CHT_MPI_SSEND_INIT: return CHT_MPI_SSEND;
    case CHT_MPI_IBSEND: case CHT_MPI_BSEND_INIT: return CHT_MPI_BSEND;
    case CHT_MPI_IRSEND: case CHT_MPI_RSEND_INIT: return CHT_MPI_RSEND;
    case CHT_MPI_IRECV: case CHT_MPI_RECV_INIT: case CHT_MPI_PRECV_INIT: case CHT_MPI_MRECV:
    case CHT_MPI_IMRECV: return CHT_MPI_RECV;
    case CHT_MPI_IPROBE: case CHT_MPI_MPROBE: case CHT_MPI_IMPROBE: return CHT_MPI_PROBE;
    case CHT_MPI_ISENDRECV: return CHT_MPI_SENDRECV;
    case CHT_MPI_ISENDRECV_REPLACE: return CHT_MPI_SENDRECV_REPLACE;
    case CHT_MPI_IALLTOALLW: case CHT_MPI_ALLTOALLW_INIT: return CHT_MPI_ALLTOALLW;
    default: break;
    }
    if (call >= CHT_MPI_IBARRIER && call <= CHT_MPI_IEXSCAN) /* same order as Barrier.. */
        return call == CHT_MPI_IALLTOALLW ? CHT_MPI_ALLTOALLW
               : call < CHT_MPI_IALLTOALLW ? CHT_MPI_BARRIER + (call - CHT_MPI_IBARRIER)
                                           : CHT_MPI_BARRIER + (call - CHT_MPI_IBARRIER) - 1;
    if (call >= CHT_MPI_BARRIER_INIT && call <= CHT_MPI_EXSCAN_INIT)
        return call < CHT_MPI_ALLTOALLW_INIT ? CHT_MPI_BARRIER + (call - CHT_MPI_BARRIER_INIT)
                                             : CHT_MPI_BARRIER + (call - CHT_MPI_BARRIER_INIT) - 1;
    if (call >= CHT_MPI_INEIGHBOR_ALLGATHER && call <= CHT_MPI_NEIGHBOR_ALLTOALLW_INIT)
        return CHT_MPI_NEIGHBOR_ALLGATHER + (call - CHT_MPI_NEIGHBOR_ALLGATHER) % 5;
    return call;
}

int trace_mpi_call_started(int call)
{
    switch (call) {
    case CHT_MPI_SEND_INIT: case CHT_MPI_PSEND_INIT: return CHT_MPI_ISEND;
    case CHT_MPI_SSEND_INIT: return CHT_MPI_ISSEND;
    case CHT_MPI_BSEND_INIT: return CHT_MPI_IBSEND;
    case CHT_MPI_RSEND_INIT: return CHT_MPI_IRSEND;
    case CHT_MPI_RECV_INIT: case CHT_MPI_PRECV_INIT: return CHT_MPI_IRECV;
    default: break;
    }
    if (call >= CHT_MPI_BARRIER_INIT && call <= CHT_MPI_EXSCAN_INIT) /* same order */
        return CHT_MPI_IBARRIER + (call - CHT_MPI_BARRIER_INIT);
    if (call >= CHT_MPI_NEIGHBOR_ALLGATHER_INIT && call <= CHT_MPI_NEIGHBOR_ALLTOALLW_INIT)
        return CHT_MPI_INEIGHBOR_ALLGATHER + (call - CHT_MPI_NEIGHBOR_ALLGATHER_INIT);
    return call;
}

const char *trace_mpi_call_label(int call, uint32_t flags, char *buf, size_t n)
{
    const char *name = trace_mpi_call_name(call);
    if (flags & CHT_MPIF_STARTED)
        snprintf(buf, n, "MPI_Start(%s%s)", name, flags & CHT_MPIF_LARGE_COUNT ? "_c" : "");
    else if (flags & CHT_MPIF_LARGE_COUNT)
        snprintf(buf, n, "%s_c", name);
    else
        snprintf(buf, n, "%s", name);
    return buf;
}

const char *trace_mpi_op_name(int op)
{
    switch (op) {
    case CHT_OP_NONE: return "none";
    case CHT_OP_SUM: return "MPI_SUM";
    case CHT_OP_PROD: return "MPI_PROD";
    case CHT_OP_MAX: return "MPI_MAX";
    case CHT_OP_MIN: return "MPI_MIN";
    case CHT_OP_LAND: return "MPI_LAND";
    case CHT_OP_BAND: return "MPI_BAND";
    case CHT_OP_LOR: return "MPI_LOR";
    case CHT_OP_BOR: return "MPI_BOR";
    case CHT_OP_LXOR: return "MPI_LXOR";
    case CHT_OP_BXOR: return "MPI_BXOR";
    case CHT_OP_MAXLOC: return "MPI_MAXLOC";
    case CHT_OP_MINLOC: return "MPI_MINLOC";
    case CHT_OP_REPLACE: return "MPI_REPLACE";
    case CHT_OP_USER: return "user op";
    }
    return "MPI_OP_?";
}

const char *trace_site_op_name(int op)
{
    switch (op) {
    case CHT_SOP_NONE: return "none";
    case CHT_SOP_COPY: return "copy";
    case CHT_SOP_ADD: return "add";
    case CHT_SOP_SUB: return "sub";
    case CHT_SOP_MUL: return "mul";
    case CHT_SOP_DIV: return "div";
    case CHT_SOP_FADD: return "fadd";
    case CHT_SOP_FSUB: return "fsub";
    case CHT_SOP_FMUL: return "fmul";
    case CHT_SOP_FDIV: return "fdiv";
    case CHT_SOP_MIN: return "min";
    case CHT_SOP_MAX: return "max";
    case CHT_SOP_FMIN: return "fmin";
    case CHT_SOP_FMAX: return "fmax";
    case CHT_SOP_AND: return "and";
    case CHT_SOP_OR: return "or";
    case CHT_SOP_XOR: return "xor";
    case CHT_SOP_OTHER: return "other";
    }
    return "?";
}

const char *trace_site_kind_name(int kind)
{
    switch (kind) {
    case CHT_SITE_COMP: return "comp";
    case CHT_SITE_MEMCPY: return "memcpy";
    case CHT_SITE_MEMSET: return "memset";
    case CHT_SITE_CALL: return "call";
    }
    return "?";
}

const char *trace_comm_name(uint64_t id, char *buf, size_t n)
{
    if (id == CHT_COMM_WORLD)
        return "world";
    if (id == CHT_COMM_SELF)
        return "self";
    if (id == CHT_COMM_UNKNOWN)
        return "unknown";
    snprintf(buf, n, "0x%" PRIx64, id);
    return buf;
}
