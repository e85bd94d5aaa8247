/* mpi-env.c - wrappers of MPI_Init, MPI_Init_thread, MPI_Finalize and
 * MPI_Abort: they tell the recorder when MPI starts and ends.
 *
 * After PMPI_Init, rank 0 draws a 64-bit run id and broadcasts it on
 * MPI_COMM_WORLD so that every file of the run carries the same id; the
 * recorder then names the rank's stream (rt_mpi_initialized) and a clock
 * sample relates the ranks' clocks and says which host the rank is on, how
 * many ranks the launcher put there and how many CPUs it may use: on an
 * oversubscribed host the calls also record their thread CPU time
 * (COMMHINT_CPU_TIMES=1 asks for it everywhere, =0 nowhere).  Finalize and Abort flush the trace before
 * handing over to MPI, which may end the process.
 */
#include <sched.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "mpi-private.h"

/* A random run id: getrandom, or the clocks and pid mixed if it fails. */
static uint64_t new_run_id(void)
{
    uint64_t id = 0;
    if (getrandom(&id, sizeof(id), GRND_NONBLOCK) == (ssize_t)sizeof(id) && id != 0)
        return id;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    id = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    id ^= rt_now_ns() * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 32;
    id ^= id >> 31; /* splitmix64 finaliser */
    id *= 0xbf58476d1ce4e5b9ull;
    return id ^ (id >> 29);
}

/* The rank's host: its CPUs, the ranks the launcher put on it, and a hash
 * of its name.  No MPI call: one would change the MPI library's state (its
 * communicator and tag counters), which a program can see. */
static struct rt_host host_of(void)
{
    struct rt_host h = {0, 0, 0};
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        h.cpus = (uint32_t)CPU_COUNT(&set);
    static const char *const vars[] = {"MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", "PMIX_LOCAL_SIZE",
                                       "PMI_LOCAL_SIZE", "MV2_COMM_WORLD_LOCAL_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0] && !h.node_ranks; i++) {
        const char *v = getenv(vars[i]);
        char *end;
        unsigned long n = v && *v ? strtoul(v, &end, 10) : 0;
        if (v && *v && !*end && n > 0 && n < (1ul << 24))
            h.node_ranks = (uint32_t)n;
    }
    char name[256];
    if (gethostname(name, sizeof name) == 0) {
        name[sizeof name - 1] = '\0';
        uint32_t x = 2166136261u;
        for (const char *p = name; *p; p++)
            x = (x ^ (uint8_t)*p) * 16777619u;
        h.host_id = x ? x : 1;
    }
    return h;
}

/* Common end of Init and Init_thread: once MPI is up, agree on the run id,
 * start the rank's stream, set up the tables and write the clock sample and
 * the call's record.  The call ends for the program when this returns, so
 * its exit time is taken last: the recorder's setup (rank 0 alone writes
 * the meta file) is time in MPI_Init, never computation of one rank. */
static int end_init(struct mpi_ev *ev)
{
    int rank = 0, size = 0;
    uint64_t run_id = 0;
    if (ev->ret != MPI_SUCCESS)
        return mpi_ev_end(ev);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        run_id = new_run_id();
    PMPI_Bcast(&run_id, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    mpi_tables_init(rank, size);
    struct rt_host host = host_of();
    const char *force = getenv("COMMHINT_CPU_TIMES");
    mpi_cpu_times = force && *force ? *force == '1' : host.cpus && host.node_ranks > host.cpus;
    rt_mpi_initialized(rank, size, run_id);
    rt_record_clock(0, PMPI_Wtime(), &host);
    ev->rec.t_exit = rt_now_ns();
    ev->rec.comm = CHT_COMM_WORLD;
    ev->rec.comm_size = (uint32_t)size;
    return mpi_ev_end(ev);
}

COMMHINT_EXPORT int MPI_Init(int *argc, char ***argv)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_INIT, MPI_COMM_NULL);
    MPI_EV_CALL(&ev, PMPI_Init(argc, argv));
    return end_init(&ev);
}

COMMHINT_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_INIT_THREAD, MPI_COMM_NULL);
    MPI_EV_CALL(&ev, PMPI_Init_thread(argc, argv, required, provided));
    return end_init(&ev);
}

/* Records a call that ends MPI before making it: t_enter = t_exit = now,
 * because the trace must be on disk before PMPI can end the process. */
static void record_final(struct mpi_ev *ev)
{
    ev->rec.t_enter = ev->rec.t_exit = rt_now_ns();
    mpi_ev_end(ev);
    rt_mpi_finalizing();
}

COMMHINT_EXPORT int MPI_Finalize(void)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_FINALIZE, MPI_COMM_WORLD);
    rt_record_clock(1, PMPI_Wtime(), NULL);
    record_final(&ev);
    return PMPI_Finalize();
}

COMMHINT_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_ABORT, comm);
    record_final(&ev);
    return PMPI_Abort(comm, errorcode);
}
