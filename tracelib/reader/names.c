/* names.c - printable names of the enums of trace-format.h. */
#include <inttypes.h>
#include <stdio.h>

#include "reader-private.h"

const char *trace_mpi_call_name(int call)
{
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
    case CHT_MPI_INIT: return "MPI_Init";
    case CHT_MPI_INIT_THREAD: return "MPI_Init_thread";
    case CHT_MPI_FINALIZE: return "MPI_Finalize";
    case CHT_MPI_ABORT: return "MPI_Abort";
    case CHT_MPI_GET_COUNT: return "MPI_Get_count";
    case CHT_MPI_GET_ELEMENTS: return "MPI_Get_elements";
    case CHT_MPI_UNTRACED: return "MPI (untraced)";
    }
    return "MPI_?";
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
