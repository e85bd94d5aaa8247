/* names.c - printable names of the enums of trace-format.h. */
#include <inttypes.h>
#include <stdio.h>

#include "mpi-local.h"
#include "reader-private.h"

static const char *const call_names[CHT_MPI_CALL_MAX + 1] = {
    [CHT_MPI_UNKNOWN] = "MPI_?",
    [CHT_MPI_SEND] = "MPI_Send",
    [CHT_MPI_SSEND] = "MPI_Ssend",
    [CHT_MPI_BSEND] = "MPI_Bsend",
    [CHT_MPI_RSEND] = "MPI_Rsend",
    [CHT_MPI_RECV] = "MPI_Recv",
    [CHT_MPI_ISEND] = "MPI_Isend",
    [CHT_MPI_ISSEND] = "MPI_Issend",
    [CHT_MPI_IBSEND] = "MPI_Ibsend",
    [CHT_MPI_IRSEND] = "MPI_Irsend",
    [CHT_MPI_IRECV] = "MPI_Irecv",
    [CHT_MPI_SENDRECV] = "MPI_Sendrecv",
    [CHT_MPI_SENDRECV_REPLACE] = "MPI_Sendrecv_replace",
    [CHT_MPI_PROBE] = "MPI_Probe",
    [CHT_MPI_IPROBE] = "MPI_Iprobe",
    [CHT_MPI_WAIT] = "MPI_Wait",
    [CHT_MPI_WAITALL] = "MPI_Waitall",
    [CHT_MPI_WAITANY] = "MPI_Waitany",
    [CHT_MPI_WAITSOME] = "MPI_Waitsome",
    [CHT_MPI_TEST] = "MPI_Test",
    [CHT_MPI_TESTALL] = "MPI_Testall",
    [CHT_MPI_TESTANY] = "MPI_Testany",
    [CHT_MPI_TESTSOME] = "MPI_Testsome",
    [CHT_MPI_REQUEST_FREE] = "MPI_Request_free",
    [CHT_MPI_CANCEL] = "MPI_Cancel",
    [CHT_MPI_BARRIER] = "MPI_Barrier",
    [CHT_MPI_BCAST] = "MPI_Bcast",
    [CHT_MPI_REDUCE] = "MPI_Reduce",
    [CHT_MPI_ALLREDUCE] = "MPI_Allreduce",
    [CHT_MPI_GATHER] = "MPI_Gather",
    [CHT_MPI_GATHERV] = "MPI_Gatherv",
    [CHT_MPI_SCATTER] = "MPI_Scatter",
    [CHT_MPI_SCATTERV] = "MPI_Scatterv",
    [CHT_MPI_ALLGATHER] = "MPI_Allgather",
    [CHT_MPI_ALLGATHERV] = "MPI_Allgatherv",
    [CHT_MPI_ALLTOALL] = "MPI_Alltoall",
    [CHT_MPI_ALLTOALLV] = "MPI_Alltoallv",
    [CHT_MPI_REDUCE_SCATTER] = "MPI_Reduce_scatter",
    [CHT_MPI_REDUCE_SCATTER_BLOCK] = "MPI_Reduce_scatter_block",
    [CHT_MPI_SCAN] = "MPI_Scan",
    [CHT_MPI_EXSCAN] = "MPI_Exscan",
    [CHT_MPI_COMM_DUP] = "MPI_Comm_dup",
    [CHT_MPI_COMM_SPLIT] = "MPI_Comm_split",
    [CHT_MPI_COMM_CREATE] = "MPI_Comm_create",
    [CHT_MPI_COMM_FREE] = "MPI_Comm_free",
    [CHT_MPI_CART_CREATE] = "MPI_Cart_create",
    [CHT_MPI_CART_SUB] = "MPI_Cart_sub",
    [CHT_MPI_COMM_SPLIT_TYPE] = "MPI_Comm_split_type",
    [CHT_MPI_INTERCOMM_CREATE] = "MPI_Intercomm_create",
    [CHT_MPI_GRAPH_CREATE] = "MPI_Graph_create",
    [CHT_MPI_DIST_GRAPH_CREATE] = "MPI_Dist_graph_create",
    [CHT_MPI_DIST_GRAPH_CREATE_ADJACENT] = "MPI_Dist_graph_create_adjacent",
    [CHT_MPI_INIT] = "MPI_Init",
    [CHT_MPI_INIT_THREAD] = "MPI_Init_thread",
    [CHT_MPI_FINALIZE] = "MPI_Finalize",
    [CHT_MPI_ABORT] = "MPI_Abort",
    [CHT_MPI_GET_COUNT] = "MPI_Get_count",
    [CHT_MPI_GET_ELEMENTS] = "MPI_Get_elements",
    [CHT_MPI_PACK] = "MPI_Pack",
    [CHT_MPI_UNPACK] = "MPI_Unpack",
    [CHT_MPI_PACK_EXTERNAL] = "MPI_Pack_external",
    [CHT_MPI_UNPACK_EXTERNAL] = "MPI_Unpack_external",
    [CHT_MPI_REDUCE_LOCAL] = "MPI_Reduce_local",
    [CHT_MPI_REQUEST_GET_STATUS] = "MPI_Request_get_status",
    [CHT_MPI_TEST_CANCELLED] = "MPI_Test_cancelled",
    [CHT_MPI_UNTRACED] = "MPI (untraced)",
    [CHT_MPI_CLOCK] = "clock read",
    [CHT_MPI_EXTERN] = "uninstrumented call",
    [CHT_MPI_SEND_INIT] = "MPI_Send_init",
    [CHT_MPI_SSEND_INIT] = "MPI_Ssend_init",
    [CHT_MPI_BSEND_INIT] = "MPI_Bsend_init",
    [CHT_MPI_RSEND_INIT] = "MPI_Rsend_init",
    [CHT_MPI_RECV_INIT] = "MPI_Recv_init",
    [CHT_MPI_START] = "MPI_Start",
    [CHT_MPI_STARTALL] = "MPI_Startall",
    [CHT_MPI_PSEND_INIT] = "MPI_Psend_init",
    [CHT_MPI_PRECV_INIT] = "MPI_Precv_init",
    [CHT_MPI_PREADY] = "MPI_Pready",
    [CHT_MPI_PREADY_RANGE] = "MPI_Pready_range",
    [CHT_MPI_PREADY_LIST] = "MPI_Pready_list",
    [CHT_MPI_PARRIVED] = "MPI_Parrived",
    [CHT_MPI_MPROBE] = "MPI_Mprobe",
    [CHT_MPI_IMPROBE] = "MPI_Improbe",
    [CHT_MPI_MRECV] = "MPI_Mrecv",
    [CHT_MPI_IMRECV] = "MPI_Imrecv",
    [CHT_MPI_ISENDRECV] = "MPI_Isendrecv",
    [CHT_MPI_ISENDRECV_REPLACE] = "MPI_Isendrecv_replace",
    [CHT_MPI_ALLTOALLW] = "MPI_Alltoallw",
    [CHT_MPI_IBARRIER] = "MPI_Ibarrier",
    [CHT_MPI_IBCAST] = "MPI_Ibcast",
    [CHT_MPI_IREDUCE] = "MPI_Ireduce",
    [CHT_MPI_IALLREDUCE] = "MPI_Iallreduce",
    [CHT_MPI_IGATHER] = "MPI_Igather",
    [CHT_MPI_IGATHERV] = "MPI_Igatherv",
    [CHT_MPI_ISCATTER] = "MPI_Iscatter",
    [CHT_MPI_ISCATTERV] = "MPI_Iscatterv",
    [CHT_MPI_IALLGATHER] = "MPI_Iallgather",
    [CHT_MPI_IALLGATHERV] = "MPI_Iallgatherv",
    [CHT_MPI_IALLTOALL] = "MPI_Ialltoall",
    [CHT_MPI_IALLTOALLV] = "MPI_Ialltoallv",
    [CHT_MPI_IALLTOALLW] = "MPI_Ialltoallw",
    [CHT_MPI_IREDUCE_SCATTER] = "MPI_Ireduce_scatter",
    [CHT_MPI_IREDUCE_SCATTER_BLOCK] = "MPI_Ireduce_scatter_block",
    [CHT_MPI_ISCAN] = "MPI_Iscan",
    [CHT_MPI_IEXSCAN] = "MPI_Iexscan",
    [CHT_MPI_BARRIER_INIT] = "MPI_Barrier_init",
    [CHT_MPI_BCAST_INIT] = "MPI_Bcast_init",
    [CHT_MPI_REDUCE_INIT] = "MPI_Reduce_init",
    [CHT_MPI_ALLREDUCE_INIT] = "MPI_Allreduce_init",
    [CHT_MPI_GATHER_INIT] = "MPI_Gather_init",
    [CHT_MPI_GATHERV_INIT] = "MPI_Gatherv_init",
    [CHT_MPI_SCATTER_INIT] = "MPI_Scatter_init",
    [CHT_MPI_SCATTERV_INIT] = "MPI_Scatterv_init",
    [CHT_MPI_ALLGATHER_INIT] = "MPI_Allgather_init",
    [CHT_MPI_ALLGATHERV_INIT] = "MPI_Allgatherv_init",
    [CHT_MPI_ALLTOALL_INIT] = "MPI_Alltoall_init",
    [CHT_MPI_ALLTOALLV_INIT] = "MPI_Alltoallv_init",
    [CHT_MPI_ALLTOALLW_INIT] = "MPI_Alltoallw_init",
    [CHT_MPI_REDUCE_SCATTER_INIT] = "MPI_Reduce_scatter_init",
    [CHT_MPI_REDUCE_SCATTER_BLOCK_INIT] = "MPI_Reduce_scatter_block_init",
    [CHT_MPI_SCAN_INIT] = "MPI_Scan_init",
    [CHT_MPI_EXSCAN_INIT] = "MPI_Exscan_init",
    [CHT_MPI_NEIGHBOR_ALLGATHER] = "MPI_Neighbor_allgather",
    [CHT_MPI_NEIGHBOR_ALLGATHERV] = "MPI_Neighbor_allgatherv",
    [CHT_MPI_NEIGHBOR_ALLTOALL] = "MPI_Neighbor_alltoall",
    [CHT_MPI_NEIGHBOR_ALLTOALLV] = "MPI_Neighbor_alltoallv",
    [CHT_MPI_NEIGHBOR_ALLTOALLW] = "MPI_Neighbor_alltoallw",
    [CHT_MPI_INEIGHBOR_ALLGATHER] = "MPI_Ineighbor_allgather",
    [CHT_MPI_INEIGHBOR_ALLGATHERV] = "MPI_Ineighbor_allgatherv",
    [CHT_MPI_INEIGHBOR_ALLTOALL] = "MPI_Ineighbor_alltoall",
    [CHT_MPI_INEIGHBOR_ALLTOALLV] = "MPI_Ineighbor_alltoallv",
    [CHT_MPI_INEIGHBOR_ALLTOALLW] = "MPI_Ineighbor_alltoallw",
    [CHT_MPI_NEIGHBOR_ALLGATHER_INIT] = "MPI_Neighbor_allgather_init",
    [CHT_MPI_NEIGHBOR_ALLGATHERV_INIT] = "MPI_Neighbor_allgatherv_init",
    [CHT_MPI_NEIGHBOR_ALLTOALL_INIT] = "MPI_Neighbor_alltoall_init",
    [CHT_MPI_NEIGHBOR_ALLTOALLV_INIT] = "MPI_Neighbor_alltoallv_init",
    [CHT_MPI_NEIGHBOR_ALLTOALLW_INIT] = "MPI_Neighbor_alltoallw_init",
    [CHT_MPI_WIN_CREATE] = "MPI_Win_create",
    [CHT_MPI_WIN_ALLOCATE] = "MPI_Win_allocate",
    [CHT_MPI_WIN_ALLOCATE_SHARED] = "MPI_Win_allocate_shared",
    [CHT_MPI_WIN_CREATE_DYNAMIC] = "MPI_Win_create_dynamic",
    [CHT_MPI_WIN_ATTACH] = "MPI_Win_attach",
    [CHT_MPI_WIN_DETACH] = "MPI_Win_detach",
    [CHT_MPI_WIN_FREE] = "MPI_Win_free",
    [CHT_MPI_PUT] = "MPI_Put",
    [CHT_MPI_GET] = "MPI_Get",
    [CHT_MPI_ACCUMULATE] = "MPI_Accumulate",
    [CHT_MPI_GET_ACCUMULATE] = "MPI_Get_accumulate",
    [CHT_MPI_FETCH_AND_OP] = "MPI_Fetch_and_op",
    [CHT_MPI_COMPARE_AND_SWAP] = "MPI_Compare_and_swap",
    [CHT_MPI_RPUT] = "MPI_Rput",
    [CHT_MPI_RGET] = "MPI_Rget",
    [CHT_MPI_RACCUMULATE] = "MPI_Raccumulate",
    [CHT_MPI_RGET_ACCUMULATE] = "MPI_Rget_accumulate",
    [CHT_MPI_WIN_FENCE] = "MPI_Win_fence",
    [CHT_MPI_WIN_LOCK] = "MPI_Win_lock",
    [CHT_MPI_WIN_UNLOCK] = "MPI_Win_unlock",
    [CHT_MPI_WIN_LOCK_ALL] = "MPI_Win_lock_all",
    [CHT_MPI_WIN_UNLOCK_ALL] = "MPI_Win_unlock_all",
    [CHT_MPI_WIN_FLUSH] = "MPI_Win_flush",
    [CHT_MPI_WIN_FLUSH_ALL] = "MPI_Win_flush_all",
    [CHT_MPI_WIN_FLUSH_LOCAL] = "MPI_Win_flush_local",
    [CHT_MPI_WIN_FLUSH_LOCAL_ALL] = "MPI_Win_flush_local_all",
    [CHT_MPI_WIN_POST] = "MPI_Win_post",
    [CHT_MPI_WIN_START] = "MPI_Win_start",
    [CHT_MPI_WIN_COMPLETE] = "MPI_Win_complete",
    [CHT_MPI_WIN_WAIT] = "MPI_Win_wait",
    [CHT_MPI_WIN_TEST] = "MPI_Win_test",
    [CHT_MPI_WIN_SYNC] = "MPI_Win_sync",
};

const char *trace_mpi_call_name(int call)
{
    const char *n = call >= 0 && call <= CHT_MPI_CALL_MAX ? call_names[call] : NULL;
    return n ? n : "MPI_?";
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

int trace_event_call(const struct trace_event *ev)
{
    if (!ev || !ev->mpi)
        return CHT_MPI_UNKNOWN;
    int call = ev->mpi->h.aux;
    if (ev->mpi->flags & CHT_MPIF_STARTED)
        return trace_mpi_call_started(call);
    if (call == CHT_MPI_CLOCK) /* never written */
        return CHT_MPI_UNKNOWN;
    if (call == CHT_MPI_EXTERN) /* never written */
        return CHT_MPI_UNKNOWN;
    if (call == CHT_MPI_UNTRACED && ev->call_name && cht_is_clock(ev->call_name))
        return CHT_MPI_CLOCK;
    if (call == CHT_MPI_UNTRACED && ev->call_name && !cht_is_mpi_name(ev->call_name))
        return CHT_MPI_EXTERN;
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
    case CHT_OP_NO_OP: return "MPI_NO_OP";
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
