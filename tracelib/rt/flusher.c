/* flusher.c - the time bound on records held in memory.  A rank killed by
 * SIGKILL (what mpiexec does to the other ranks when one calls MPI_Abort or
 * dies) runs no handler: whatever is still in its thread buffers is gone.
 * From MPI_Init to MPI_Finalize a background thread therefore looks at
 * every buffer each COMMHINT_FLUSH_MS milliseconds (default
 * RT_FLUSH_MS_DEFAULT, 500; 0: no flusher) and writes the complete records
 * of those that wrote no chunk since its previous look, so that no record
 * stays in memory for more than two periods and a killed rank loses at
 * most that much.  A buffer that fills up within a period is written by its
 * owner as before, in full chunks that compress better.  The period is a
 * trade: each chunk the flusher cuts compresses on its own (on the jacobi
 * example, 4 ranks, a 1 s run: 49 KB of rank streams without it, 54 KB at
 * 500 ms, 87 KB at 250 ms, 100 KB at 100 ms).  The thread calls
 * nothing of MPI, blocks every signal (the program's signals go to its own
 * threads) and takes the buffers' locks like any other flusher.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "recorder-private.h"

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* CLOCK_MONOTONIC */
    pthread_t tid;
    int running; /* under mu */
    int stop;    /* under mu */
} fl = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void *flusher_main(void *arg)
{
    uint64_t period = (uint64_t)rt_g.flush_ms * 1000000u;
    struct timespec next;
    (void)arg;

    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&fl.mu);
    while (!fl.stop) {
        uint64_t ns = (uint64_t)next.tv_nsec + period;
        next.tv_sec += (time_t)(ns / 1000000000u);
        next.tv_nsec = (long)(ns % 1000000000u);
        while (!fl.stop && pthread_cond_timedwait(&fl.cv, &fl.mu, &next) != ETIMEDOUT)
            ;
        if (fl.stop)
            break;
        pthread_mutex_unlock(&fl.mu);
        (void)rt_flush_complete();
        pthread_mutex_lock(&fl.mu);
        /* a round that took longer than the period starts the next from now */
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
            next = now;
    }
    pthread_mutex_unlock(&fl.mu);
    return NULL;
}

void rt_flusher_start(void)
{
    pthread_condattr_t ca;
    pthread_attr_t attr;
    sigset_t old;
    int e;

    if (rt_g.flush_ms <= 0 || rt_is_off())
        return;
    pthread_mutex_lock(&fl.mu);
    if (fl.running) {
        pthread_mutex_unlock(&fl.mu);
        return;
    }
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&fl.cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256u << 10); /* zstd's compression needs little stack */
    fl.stop = 0;
    /* the new thread starts with every signal blocked */
    rt_block_signals(&old);
    e = pthread_create(&fl.tid, &attr, flusher_main, NULL);
    rt_restore_signals(&old);
    pthread_attr_destroy(&attr);
    if (e == 0)
        fl.running = 1;
    else
        rt_warn_once(RT_WARN_THREAD, "records are written only when a buffer fills: cannot start the flusher: "
                                     "reason=cannot create a thread");
    pthread_mutex_unlock(&fl.mu);
}

void rt_flusher_stop(void)
{
    pthread_t tid;

    pthread_mutex_lock(&fl.mu);
    if (!fl.running) {
        pthread_mutex_unlock(&fl.mu);
        return;
    }
    fl.stop = 1;
    fl.running = 0;
    tid = fl.tid;
    pthread_cond_signal(&fl.cv);
    pthread_mutex_unlock(&fl.mu);
    pthread_join(tid, NULL);
}

/* A forked child has no flusher: only the forking thread goes on in it. */
void rt_flusher_forget(void)
{
    fl.running = 0;
    fl.stop = 0;
    pthread_mutex_init(&fl.mu, NULL);
}
