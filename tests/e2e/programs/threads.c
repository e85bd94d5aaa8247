/*
 * threads.c - an MPI_THREAD_MULTIPLE program whose threads' work is known
 * exactly, for tests/e2e/threads.sh.  Statements of interest carry a marker
 * comment FACT:<name> at the end of their line (named here without the
 * colon so that grepping finds only the line itself):
 *
 *   threads [k=40 [m=25]]
 *
 * On every rank the main thread calls MPI_Init_thread(MPI_THREAD_MULTIPLE),
 * duplicates MPI_COMM_WORLD once per MPI thread, then starts NMPI = 3 "MPI
 * threads" (t = 1..3) and NCOMP = 2 "compute threads" (t = 4, 5), joins
 * them, checks the results and calls one MPI_Allreduce.
 *
 *  - mstore    MPI thread t, round k (0..k-1): m*t events, each writing the
 *              8 bytes of data[t][k*m*t + j], j = 0..m*t-1 (so over the
 *              rounds, data[t][0], data[t][1], ... in order);
 *  - sendrecv  then one MPI_Sendrecv of 2 ints to rank r+1, tag t, from rank
 *              r-1, tag t, on MPI_COMM_WORLD (k per MPI thread);
 *  - allreduce after the rounds, one MPI_Allreduce (sum of 1 int) on the
 *              thread's own duplicate of MPI_COMM_WORLD;
 *  - cstore    compute thread t: 1000*t events, each writing data[t][i],
 *              i = 0, 1, ... in order (no MPI call);
 *  - wstore    one more thread (t = 6, started last, never joined) makes
 *              NWAIT = 3000 events writing data[6][i], i = 0, 1, ... in
 *              order, then waits in pause() inside its loop until the
 *              process exits: its last records are still an open run (a
 *              REPEAT in the making) when the process exits, as in a pool
 *              thread waiting for work.
 *
 * Threads never share a communicator for collectives and use their own tag
 * for point-to-point, as MPI_THREAD_MULTIPLE requires for a deterministic
 * matching.  Rank 0 prints "threads: ranks=P k=K m=M OK" when every
 * received message and the reductions are right; any wrong value aborts.
 */
#include <mpi.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef __clang__
#define SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable) unroll(disable)")
#else
#define SCALAR_LOOP
#endif

#define NMPI 3
#define NCOMP 2
#define ROW 8192
#define WAITER (1 + NMPI + NCOMP)
#define NWAIT 3000

double data[WAITER + 1][ROW];
static sem_t waiting;
static int rank, size, rounds = 40, per = 25;
static MPI_Comm comms[1 + NMPI];
static int bad[1 + NMPI + NCOMP];

static void *mpi_thread(void *arg)
{
    int t = (int)(long)arg, n = per * t, sum = 0;
    int out[2], in[2];
    for (int k = 0; k < rounds; k++) {
        double *row = &data[t][k * n];
        SCALAR_LOOP
        for (int j = 0; j < n; j++)
            row[j] = (double)(k + j + t); /* FACT:mstore */
        out[0] = rank;
        out[1] = 1000 * t + k;
        MPI_Sendrecv(out, 2, MPI_INT, (rank + 1) % size, t, /* FACT:sendrecv */
                     in, 2, MPI_INT, (rank + size - 1) % size, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in[0] != (rank + size - 1) % size || in[1] != 1000 * t + k)
            bad[t] = 1;
    }
    MPI_Allreduce(&t, &sum, 1, MPI_INT, MPI_SUM, comms[t]); /* FACT:allreduce */
    if (sum != t * size)
        bad[t] = 1;
    return NULL;
}

static void *compute_thread(void *arg)
{
    int t = (int)(long)arg;
    double *row = data[t];
    SCALAR_LOOP
    for (int i = 0; i < 1000 * t; i++)
        row[i] = (double)(i * t); /* FACT:cstore */
    return NULL;
}

static void *waiter_thread(void *arg)
{
    double *row = data[WAITER];
    (void)arg;
    SCALAR_LOOP
    for (int i = 0; i < ROW; i++) {
        row[i] = (double)i; /* FACT:wstore */
        if (i == NWAIT - 1) {
            sem_post(&waiting);
            pause(); /* until the process exits (or a signal: later records are not checked) */
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[WAITER + 1];
    int provided, nbad = 0, all = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "threads: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        rounds = atoi(argv[1]);
    if (argc > 2)
        per = atoi(argv[2]);
    if (rounds < 1 || per < 1 || rounds * per * NMPI > ROW) {
        if (rank == 0)
            fprintf(stderr, "usage: threads [k [m]] with k*m*%d <= %d\n", NMPI, ROW);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int t = 1; t <= NMPI; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    for (int t = 1; t <= NMPI + NCOMP; t++)
        if (pthread_create(&th[t], NULL, t <= NMPI ? mpi_thread : compute_thread, (void *)(long)t) != 0) {
            fprintf(stderr, "threads: pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    for (int t = 1; t <= NMPI + NCOMP; t++)
        pthread_join(th[t], NULL);
    for (int t = 1; t <= NMPI + NCOMP; t++) {
        int n = t <= NMPI ? rounds * per * t : 1000 * t;
        for (int i = 0; i < n; i++) {
            int k = t <= NMPI ? i / (per * t) : 0, j = t <= NMPI ? i % (per * t) : i;
            double want = t <= NMPI ? (double)(k + j + t) : (double)(i * t);
            if (data[t][i] != want)
                bad[t] = 1;
        }
        nbad += bad[t];
    }
    for (int t = 1; t <= NMPI; t++)
        MPI_Comm_free(&comms[t]);
    sem_init(&waiting, 0, 0);
    if (pthread_create(&th[WAITER], NULL, waiter_thread, NULL) != 0 || pthread_detach(th[WAITER]) != 0) {
        fprintf(stderr, "threads: pthread_create failed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    while (sem_wait(&waiting) != 0)
        ;
    MPI_Allreduce(&nbad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (all) {
        if (rank == 0)
            fprintf(stderr, "threads: %d wrong results\n", all);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("threads: ranks=%d k=%d m=%d OK\n", size, rounds, per);
    MPI_Finalize();
    return 0;
}
