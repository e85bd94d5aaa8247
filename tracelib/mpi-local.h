/* mpi-local.h - which MPI functions are local: shared by the pass and the
 * tests (C11 or C++, no MPI header needed).
 *
 * A local function moves no data between ranks, completes no
 * communication and synchronises with nobody: queries (ranks, sizes,
 * times, attributes, names, errors), datatype, group, info, operator and
 * keyval management, topology queries.  The pass puts
 * __commhint_mpi_after (commhint-rt.h) after every call to an MPI function
 * that is not local, so that a call no wrapper recorded is recorded as an
 * untraced call, a fence for the analysis (docs/dependence.md).  Whatever
 * is missing here is therefore treated conservatively; a function listed
 * here by mistake would be unsafe, so only functions that are local by the
 * MPI standard belong here.  MPI_Pack and MPI_Unpack are not listed: they
 * copy between user buffers (a memcpy the analysis must see).
 */
#ifndef COMMHINT_MPI_LOCAL_H
#define COMMHINT_MPI_LOCAL_H

#include <string.h>

/* Prefixes of families that are local as a whole ("MPI_" and "PMPI_" are
 * stripped before matching). */
static const char *const cht_mpi_local_prefixes[] = {
    "Type_", "Group_", "Info_", "Errhandler_", "Keyval_", "Attr_", "Status_set_",
    "Aint_", "T_", "Session_get_", "Add_error_",
};

/* Single local functions (without the "MPI_" prefix), sorted. */
static const char *const cht_mpi_local_names[] = {
    "Alloc_mem", "Cart_coords", "Cart_get", "Cart_map", "Cart_rank", "Cart_shift",
    "Cartdim_get", "Comm_call_errhandler", "Comm_compare", "Comm_create_errhandler",
    "Comm_create_keyval", "Comm_delete_attr", "Comm_free_keyval", "Comm_get_attr",
    "Comm_get_errhandler", "Comm_get_info", "Comm_get_name", "Comm_group", "Comm_rank",
    "Comm_remote_group", "Comm_remote_size", "Comm_set_attr", "Comm_set_errhandler",
    "Comm_set_info", "Comm_set_name", "Comm_size",
    "Comm_test_inter", "Dims_create", "Dist_graph_neighbors", "Dist_graph_neighbors_count",
    "Error_class", "Error_string", "File_call_errhandler", "File_create_errhandler",
    "File_get_errhandler", "File_set_errhandler", "Finalized", "Free_mem", "Get_address",
    "Get_library_version", "Get_processor_name", "Get_version",
    "Graph_get", "Graph_map", "Graph_neighbors", "Graph_neighbors_count", "Graphdims_get",
    "Initialized", "Is_thread_main", "Op_commutative", "Op_create", "Op_create_c", "Op_free",
    "Pack_external_size", "Pack_size", "Pack_size_c", "Pcontrol", "Query_thread", "Register_datarep",
    "Topo_test", "Win_call_errhandler", "Win_create_errhandler",
    "Win_create_keyval", "Win_delete_attr", "Win_free_keyval", "Win_get_attr",
    "Win_get_errhandler", "Win_get_group", "Win_get_info", "Win_get_name", "Win_set_attr",
    "Win_set_errhandler", "Win_set_info", "Win_set_name", "Win_shared_query",
    "Win_shared_query_c", "Wtick", "Wtime",
};

/* Whether `name` is one of the n sorted `names`. */
static inline int cht_name_in(const char *const *names, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(names[mid], name);
        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Whether `name` (an "MPI_" or "PMPI_" function) is local. */
static inline int cht_mpi_is_local(const char *name)
{
    if (strncmp(name, "MPI_", 4) == 0)
        name += 4;
    else if (strncmp(name, "PMPI_", 5) == 0)
        name += 5;
    else
        return 0;
    for (size_t i = 0; i < sizeof cht_mpi_local_prefixes / sizeof *cht_mpi_local_prefixes; i++)
        if (strncmp(name, cht_mpi_local_prefixes[i], strlen(cht_mpi_local_prefixes[i])) == 0)
            return 1;
    return cht_name_in(cht_mpi_local_names, sizeof cht_mpi_local_names / sizeof *cht_mpi_local_names, name);
}

/* Whether `name` is an MPI function's (MPI_ or PMPI_): an untraced call
 * of any other name is a call into code built without the pass, or a
 * clock read. */
static inline int cht_is_mpi_name(const char *name)
{
    return strncmp(name, "MPI_", 4) == 0 || strncmp(name, "PMPI_", 5) == 0;
}

/* Functions that read a clock (C names, C++ mangled names, LLVM
 * intrinsics), sorted.  A program that reads a clock measures time: moving
 * an MPI call, or the wait of one, across the read changes what it
 * measures, and the trace holds no dependence that says so (the value read
 * depends on when the communication completed).  The pass records each
 * call of one like an untraced MPI call, by name (__commhint_mpi_after),
 * and the analysis takes it as a fence: no MPI call moves across it
 * (docs/dependence.md, "Clock reads"). */
static const char *const cht_clock_names[] = {
    "MPI_Wtime", "PMPI_Wtime",
    "_ZNSt3__16chrono12steady_clock3nowEv",          /* libc++ steady_clock::now() */
    "_ZNSt3__16chrono12system_clock3nowEv",          /* libc++ system_clock::now() */
    "_ZNSt6chrono3_V212steady_clock3nowEv",          /* libstdc++ steady_clock::now() */
    "_ZNSt6chrono3_V212system_clock3nowEv",          /* libstdc++ system_clock::now(),
                                                        high_resolution_clock::now() */
    "clock", "clock_gettime", "ftime", "gettimeofday", "llvm.readcyclecounter",
    "llvm.x86.rdtsc", "llvm.x86.rdtscp", "omp_get_wtime", "time", "timespec_get",
};

/* Whether `name` (a function's symbol) reads a clock. */
static inline int cht_is_clock(const char *name)
{
    return cht_name_in(cht_clock_names, sizeof cht_clock_names / sizeof *cht_clock_names, name);
}

#endif /* COMMHINT_MPI_LOCAL_H */
