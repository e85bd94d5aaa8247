/* rt-private.h - internal interface of the trace runtime (libcommhint).
 *
 * recorder.c owns per-thread buffers, chunk compression, the trace files and
 * process-level state (start, exit, fatal signals); mpi-*.c wrap MPI through
 * PMPI and build MPI records with the functions below.  Nothing here is
 * exported from the shared library: only COMMHINT_EXPORT symbols are.
 */
#ifndef COMMHINT_RT_PRIVATE_H
#define COMMHINT_RT_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "trace-format.h"

#define COMMHINT_EXPORT __attribute__((visibility("default")))
#define RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Monotonic clock in ns (CLOCK_MONOTONIC). */
uint64_t rt_now_ns(void);

/* Reserves `bytes` (a multiple of 8, at most 64 KiB) of contiguous space for
 * one or more records in the calling thread's buffer, flushing it first if
 * needed, so that the records land in one chunk.  Returns NULL when tracing
 * is off (disabled, failed, or not started); then the caller records nothing.
 * The caller fills the space and then calls rt_commit with the same size. */
void *rt_reserve(size_t bytes);
void rt_commit(size_t bytes);

/* The site that __commhint_mpi_site announced for this thread's next MPI
 * call, or CHT_NONE; reading it clears it. */
uint32_t rt_take_mpi_site(void);
/* Records the call to MPI function `name` whose site is pending as an
 * untraced call (CHT_MPI_UNTRACED + CHT_REC_CALLNAME), from t_enter to now;
 * ra is the return address into the caller (mpi-untraced.c). */
void rt_mpi_untraced(const char *name, uint64_t t_enter, void *ra);

/* Called by the MPI_Init/MPI_Init_thread wrapper after PMPI_Init succeeded,
 * with the world rank and size and the run id rank 0 generated and
 * broadcast: names the rank's stream file (renaming a stream started before
 * MPI_Init under a provisional name), rewrites its file header with the run
 * id, records modules and translation units, and on rank 0 writes the meta
 * file. */
void rt_mpi_initialized(int world_rank, int world_size, uint64_t run_id);

/* Called by the MPI_Finalize wrapper before PMPI_Finalize: flushes every
 * thread's buffer to disk (events after it are still recorded and flushed at
 * exit). */
void rt_mpi_finalizing(void);

/* Writes a CHT_REC_CLOCK record (aux: 0 at init, 1 at finalize); `host`
 * gives the init sample's host fields (NULL: none). */
struct rt_host {
    uint32_t cpus, node_ranks, host_id;
};
void rt_record_clock(uint32_t which, double wtime, const struct rt_host *host);

/* The calling thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID); 0 if the
 * clock cannot be read. */
uint64_t rt_cpu_ns(void);

/* Prints "commhint: <message>" once per process on stderr (later calls with
 * the same `key` are silent) and never fails. */
void rt_warn_once(int key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Frames of call path each MPI call records (COMMHINT_CALLPATH, default
 * CHT_PATH_DEFAULT, at most CHT_PATH_MAX; 0 = none). */
unsigned rt_callpath_depth(void);
/* The return addresses of the frames above the function an MPI wrapper
 * returns to (ret_addr, the wrapper's __builtin_return_address(0)), read
 * from the frame-pointer chain: at most max into out, innermost first;
 * returns their number (0 if the chain cannot be followed).  Must be
 * called from the runtime (whose functions keep frame pointers) below the
 * wrapper. */
unsigned rt_callpath(uint64_t ret_addr, uint64_t *out, unsigned max);

/* Warning keys for rt_warn_once. */
enum rt_warn_key {
    RT_WARN_WRITE = 0,   /* trace cannot be written: tracing stopped */
    RT_WARN_ABI,         /* a TU was built by another pass ABI version */
    RT_WARN_TABLES,      /* a runtime table (communicators, requests) is full */
    RT_WARN_MPI,         /* an MPI call the wrapper could not describe */
    RT_WARN_MPI_COMM,    /* a communicator the runtime did not see created */
    RT_WARN_MPI_REQUEST, /* a request the runtime did not see posted */
    RT_WARN_MPI_SIZE,    /* records too large for one reservation */
    RT_WARN_ENV,         /* a COMMHINT_* variable with a value it cannot take */
    RT_WARN_MAX = 16
};

#endif /* COMMHINT_RT_PRIVATE_H */
