/* recorder.c - the recorder core of libcommhint: process state read from the
 * environment, per-thread record buffers and the hot-path entry points the
 * pass calls (commhint-rt.h), translation unit registration, the space the
 * MPI wrappers reserve (rt-private.h), and the ends of a process: thread
 * exit, MPI_Finalize, exit and fatal signals.
 *
 * Hot path: a record is written into the calling thread's buffer (found
 * through one initial-exec TLS pointer) and only then is the buffer position
 * advanced, so that a flush from another thread or from a signal handler
 * sees complete records only.  Nothing on the hot path allocates, locks or
 * makes a system call unless the buffer is full.  See recorder-private.h for
 * the locking rules.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "commhint-rt.h"
#include "recorder-private.h"

struct rt_global rt_g = {
    .rank = -1,
    .stream = {.fd = -1},
};

/* Global ids handed out so far: ids at or above are ignored by the hot path
 * (CHT_NONE included). */
static uint32_t rt_site_limit, rt_loop_limit;

enum rt_tls_state {
    RT_TLS_NORMAL = 0, /* no buffer yet, or a registered one */
    RT_TLS_BUSY,       /* registering: events from inside registration are dropped */
    RT_TLS_DEAD        /* thread exiting, or registration failed: record nothing */
};

static __thread struct rt_thread *tls_thr;
static __thread uint32_t tls_mpi_site = CHT_NONE;
static __thread uint64_t tls_mpi_site_t; /* when it was set */
/* set while __commhint_loop_affine makes a loop's records: made at the
 * loop's exit, they carry no time stamp (COMMHINT_STMT_CLOCK) */
static __thread int tls_unstamped;
static __thread int tls_state;

static pthread_once_t rt_once = PTHREAD_ONCE_INIT;
static int rt_inited; /* rt_init_once ran */
static pthread_key_t rt_key;
static unsigned rt_warned; /* one bit per warning key */

static const int rt_fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};
static struct sigaction rt_old_act[NSIG];
static int rt_handlers_on;

static void rt_thread_exit(void *arg);
static void run_close_own(void);

/* ---- small helpers ---------------------------------------------------------- */

uint64_t rt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The stamp of a validation run (COMMHINT_STMT_CLOCK): the low 32 bits of
 * the time-stamp counter, which costs a few ns where clock_gettime costs
 * tens (a statement takes a few), read after the instructions before it
 * have completed (lfence), so that a long-latency statement is not timed
 * as part of the next one; CLOCK_MONOTONIC ns where there is no counter.
 * Only differences of consecutive stamps mean something. */
static inline uint32_t rt_stamp(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_lfence();
    return (uint32_t)__builtin_ia32_rdtsc();
#else
    return (uint32_t)rt_now_ns();
#endif
}

void rt_warn_once(int key, const char *fmt, ...)
{
    int saved = errno;
    unsigned bit = 1u << ((unsigned)key & 31);
    char buf[1024];
    va_list ap;
    int n;

    if (__atomic_fetch_or(&rt_warned, bit, __ATOMIC_RELAXED) & bit)
        goto out;
    n = snprintf(buf, sizeof(buf), "commhint: ");
    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(buf) - 2)
        n = (int)sizeof(buf) - 2;
    while (n > 0 && buf[n - 1] == '\n')
        n--;
    buf[n++] = '\n';
    for (const char *p = buf; n > 0;) {
        ssize_t w = write(STDERR_FILENO, p, (size_t)n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        p += w;
        n -= (int)w;
    }
out:
    errno = saved;
}

void rt_lock(int *lock)
{
    for (int spins = 0; __atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE); spins++) {
        while (__atomic_load_n(lock, __ATOMIC_RELAXED)) {
            if (++spins > 100)
                sched_yield();
        }
    }
}

int rt_lock_bounded(int *lock)
{
    uint64_t deadline = 0;
    while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE)) {
        uint64_t now = rt_now_ns();
        if (!deadline)
            deadline = now + 1000000000u;
        else if (now > deadline)
            return RT_ERR_BUSY;
        sched_yield();
    }
    return RT_OK;
}

void rt_unlock(int *lock)
{
    __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

void rt_block_signals(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, old);
}

void rt_restore_signals(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

void *rt_mem_alloc(size_t bytes)
{
    void *p;
    if (bytes == 0)
        return NULL;
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void rt_mem_free(void *p, size_t bytes)
{
    if (p && bytes)
        munmap(p, bytes);
}

uint32_t rt_thread_index_peek(void)
{
    return tls_thr ? tls_thr->index : 0;
}

/* ---- start: the environment -------------------------------------------------- */

/* The number in environment variable name into *n: 1, 0 if it is not a
 * number, -1 if unset or empty (*v: its text). */
static int env_number(const char *name, const char **v, long *n)
{
    char *end;

    *v = getenv(name);
    if (!*v || !**v)
        return -1;
    errno = 0;
    *n = strtol(*v, &end, 10);
    return errno || *end ? 0 : 1;
}

static long env_long(const char *name, long dflt)
{
    const char *v;
    long n;

    return env_number(name, &v, &n) > 0 ? n : dflt;
}

/* A numeric setting from the environment, dflt if unset; a value that is
 * not a number, or out of [lo, hi], gets one warning saying what is used
 * instead. */
static long env_setting(const char *name, long dflt, long lo, long hi)
{
    const char *v;
    long n;
    int got = env_number(name, &v, &n);

    if (got < 0)
        return dflt;
    if (!got) {
        rt_warn_once(RT_WARN_ENV, "%s is not a number: the default is used: value=%s default=%ld", name, v, dflt);
        return dflt;
    }
    if (n < lo || n > hi) {
        long used = n < lo ? lo : hi;
        rt_warn_once(RT_WARN_ENV, "%s is out of range: %ld is used: value=%ld min=%ld max=%ld", name, used, n, lo,
                     hi);
        return used;
    }
    return n;
}

static int env_rank(const char *const *names)
{
    for (; *names; names++) {
        long n = env_long(*names, -1);
        if (n >= 0 && n <= INT32_MAX)
            return (int)n;
    }
    return -1;
}

/* Makes dir absolute against the current directory. */
static int absolute_dir(const char *dir, char *out, size_t cap)
{
    char cwd[PATH_MAX];
    if (dir[0] == '/' || !getcwd(cwd, sizeof(cwd)))
        return snprintf(out, cap, "%s", dir) < (int)cap ? 0 : -1;
    return snprintf(out, cap, "%s/%s", cwd, dir) < (int)cap ? 0 : -1;
}

static void rt_on_signal(int sig, siginfo_t *si, void *uc);

static void install_signal_handlers(void)
{
    for (size_t i = 0; i < sizeof(rt_fatal_signals) / sizeof(rt_fatal_signals[0]); i++) {
        int sig = rt_fatal_signals[i];
        struct sigaction sa, old;
        if (sigaction(sig, NULL, &old) < 0 || old.sa_handler == SIG_IGN)
            continue; /* an ignored signal stays ignored */
        rt_old_act[sig] = old;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = rt_on_signal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
        sigfillset(&sa.sa_mask);
        sigaction(sig, &sa, NULL);
    }
    rt_handlers_on = 1;
}

/* ---- processes started by a traced process ------------------------------------ */

/* A traced process names itself in RT_OWNER_VAR ("<pid> <rank> <trace
 * directory>", the rank as the launcher's variables gave it, -1 if none)
 * when it starts recording.  A process started from it (system(), popen(),
 * a fork and exec) inherits the variable together with the launcher's rank
 * variables and the trace directory: it would take the rank's file.  Such
 * a process records nothing, unless it was given a trace directory of its
 * own.  A process whose rank variables differ from the owner's was started
 * by a launcher of its own (a traced driver running mpiexec): it is no
 * such child.  (A fork without exec is caught by rt_atfork_child.) */
#define RT_OWNER_VAR "COMMHINT_TRACE_OWNER"

/* 0: not started by a traced process; 1: started by one, with a trace
 * directory of its own (the rank variables are its parent's); 2: started by
 * one that records into the same directory. */
static int traced_parent(int my_rank)
{
    const char *v = getenv(RT_OWNER_VAR);
    char *end, *end2;
    long pid, rank;

    if (!v || !*v)
        return 0;
    errno = 0;
    pid = strtol(v, &end, 10);
    if (errno || end == v || *end != ' ' || pid == (long)getpid())
        return 0;
    rank = strtol(end + 1, &end2, 10);
    if (errno || end2 == end + 1 || *end2 != ' ' || rank != my_rank)
        return 0;
    return strcmp(end2 + 1, rt_g.dir) == 0 ? 2 : 1;
}

/* When the process starts recording, outside any lock (setenv allocates). */
static void name_owner(void)
{
    static char text[PATH_MAX + 32];

    snprintf(text, sizeof(text), "%d %d %s", (int)getpid(), rt_g.env_rank, rt_g.dir);
    (void)setenv(RT_OWNER_VAR, text, 1);
}

/* A forked child must not write into its parent's files. */
static void rt_atfork_child(void)
{
    __atomic_fetch_or(&rt_g.off, RT_OFF_DISABLED, __ATOMIC_RELEASE);
    __commhint_fast.qend = NULL; /* events are calls, which return */
    rt_flusher_forget();
}

static void rt_init_once(void)
{
    static const char *const rank_vars[] = {"PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", NULL};
    static const char *const size_vars[] = {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", NULL};
    const char *v = getenv("COMMHINT_DISABLE");
    char name[PATH_MAX];
    long kb, level;
    void *mem;
    int child;

    rt_inited = 1;
    if (v && *v && strcmp(v, "0") != 0) {
        rt_g.off |= RT_OFF_DISABLED;
        return;
    }
    kb = env_setting("COMMHINT_BUFFER_KB", RT_BUFFER_KB_DEFAULT, (long)RT_BUFFER_KB_MIN, (long)RT_BUFFER_KB_MAX);
    rt_g.buf_cap = (size_t)kb << 10;
    level = env_setting("COMMHINT_ZSTD_LEVEL", RT_ZSTD_LEVEL_DEFAULT, RT_ZSTD_LEVEL_MIN, RT_ZSTD_LEVEL_MAX);
    rt_g.zstd_level = (int)level;
    v = getenv("COMMHINT_ZSTD_LEVEL");
    rt_g.zstd_adapt = !v || !*v;
    rt_g.cctx_size = ZSTD_estimateCCtxSize(rt_g.zstd_level);
    if (rt_g.zstd_adapt && ZSTD_estimateCCtxSize(RT_ZSTD_FAST_LEVEL) > rt_g.cctx_size)
        rt_g.cctx_size = ZSTD_estimateCCtxSize(RT_ZSTD_FAST_LEVEL);
    rt_g.runs = env_long("COMMHINT_RUNS", 1) != 0;
    rt_g.pack = env_long("COMMHINT_PACK", rt_g.runs) != 0;
    /* with packs, runs with columns take more time than they save: an
     * irregular address costs its difference in a pack too, and such runs
     * are short (docs/performance.md, "Irregular codes") */
    rt_g.cols = env_long("COMMHINT_COLUMNS", !rt_g.pack) != 0;
    /* a loop's run (affine_make) needs no search: columns unless
     * turned off */
    rt_g.loop_cols = env_long("COMMHINT_COLUMNS", 1) != 0;
    rt_g.queue = env_long("COMMHINT_QUEUE", 1) != 0;
    rt_g.rows = env_long("COMMHINT_ROWS", 1) != 0;
    rt_g.run_min = env_setting("COMMHINT_RUN_MIN", RT_RUN_MIN_PACK, 1, 1 << 20);
    rt_g.stamp = env_long("COMMHINT_STMT_CLOCK", 0) != 0;
    rt_g.flush_ms = env_setting("COMMHINT_FLUSH_MS", RT_FLUSH_MS_DEFAULT, 0, RT_FLUSH_MS_MAX);

    v = getenv("COMMHINT_TRACE_DIR");
    if (!v || !*v) {
        snprintf(name, sizeof(name), "commhint-%s.trace", program_invocation_short_name);
        v = name;
    }
    if (absolute_dir(v, rt_g.dir, sizeof(rt_g.dir) - 32) < 0) {
        rt_warn_once(RT_WARN_WRITE, "cannot write trace, tracing stopped: file=%s reason=%s", v,
                     "path too long");
        rt_g.off |= RT_OFF_FAILED;
        return;
    }
    rt_g.env_rank = env_rank(rank_vars);
    child = traced_parent(rt_g.env_rank);
    if (child == 2) {
        /* the rank's variables came with the environment: recording would
         * replace the parent's rank file (and meta file) */
        rt_g.off |= RT_OFF_DISABLED;
        return;
    }
    snprintf(rt_g.pending_path, sizeof(rt_g.pending_path), "%s/pending-%d.chtr", rt_g.dir, (int)getpid());
    /* a child's inherited rank variables are its parent's: it is a process
     * of its own until MPI_Init says otherwise */
    rt_g.rank = child ? -1 : rt_g.env_rank;
    rt_g.world_size = child ? 0 : env_rank(size_vars);
    if (rt_g.world_size < 0)
        rt_g.world_size = 0;
    if (rt_g.rank >= 0)
        snprintf(rt_g.rank_path[0], PATH_MAX, "%s/" CHT_RANK_FILE_FMT, rt_g.dir, rt_g.rank);

    mem = rt_mem_alloc(rt_g.cctx_size);
    rt_g.mcctx = mem ? rt_cctx_init(mem) : NULL;
    if (!rt_g.mcctx || pthread_key_create(&rt_key, rt_thread_exit) != 0) {
        rt_warn_once(RT_WARN_THREAD, "cannot start tracing: reason=out of memory");
        rt_g.off |= RT_OFF_FAILED;
        return;
    }
    pthread_atfork(NULL, NULL, rt_atfork_child);
    install_signal_handlers();
}

int rt_init(void)
{
    pthread_once(&rt_once, rt_init_once);
    return (__atomic_load_n(&rt_g.off, __ATOMIC_ACQUIRE) & RT_OFF_DISABLED) ? RT_ERR_OFF : RT_OK;
}

/* ---- thread buffers ---------------------------------------------------------- */

#define ALIGN64(n) (((n) + 63) & ~(size_t)63)

/* A new node with its buffer, output buffer, compression context and
 * alternate signal stack in one mapping, pushed on the list. */
static struct rt_thread *thread_new(void)
{
    size_t out_cap = rt_out_bound(rt_g.buf_cap);
    size_t size = ALIGN64(sizeof(struct rt_thread)) + ALIGN64(rt_g.buf_cap) + ALIGN64(out_cap) +
                  ALIGN64(rt_g.cctx_size) + RT_ALTSTACK_SIZE;
    unsigned char *mem = rt_mem_alloc(size), *p;
    struct rt_thread *t;

    if (!mem)
        return NULL;
    t = (struct rt_thread *)mem;
    p = mem + ALIGN64(sizeof(*t));
    t->data = p;
    t->cap = rt_g.buf_cap;
    p += ALIGN64(rt_g.buf_cap);
    t->out = p;
    t->out_cap = out_cap;
    p += ALIGN64(out_cap);
    t->cctx = rt_cctx_init(p);
    t->zlevel = rt_g.zstd_level;
    p += ALIGN64(rt_g.cctx_size);
    t->altstack = p;
    t->mem = mem;
    t->mem_size = size;
    if (!t->cctx) {
        rt_mem_free(mem, size);
        return NULL;
    }
    t->state = RT_THREAD_ACTIVE;
    t->next = __atomic_load_n(&rt_g.threads, __ATOMIC_ACQUIRE);
    while (!__atomic_compare_exchange_n(&rt_g.threads, &t->next, t, 1, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
        ;
    return t;
}

/* Takes over the node of a thread that exited. */
static struct rt_thread *thread_reuse(void)
{
    for (struct rt_thread *t = __atomic_load_n(&rt_g.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
        if (__atomic_load_n(&t->state, __ATOMIC_RELAXED) != RT_THREAD_FREE)
            continue;
        rt_lock(&t->lock);
        if (t->state == RT_THREAD_FREE) {
            t->state = RT_THREAD_ACTIVE;
            t->flushed = 0;
            __atomic_store_n(&t->pos, 0, __ATOMIC_RELEASE);
            rt_unlock(&t->lock);
            return t;
        }
        rt_unlock(&t->lock);
    }
    return NULL;
}

/* Gives the calling thread a buffer: the first event of a thread. */
static struct rt_thread *rt_thread_register(void)
{
    struct rt_thread *t;
    sigset_t old;

    if (tls_state != RT_TLS_NORMAL)
        return NULL;
    if (rt_init() < 0 || rt_is_off()) {
        /* COMMHINT_DISABLE: this thread's events return at the first test
         * from now on (it costs what the instrumentation alone costs) */
        if (__atomic_load_n(&rt_g.off, __ATOMIC_ACQUIRE) & RT_OFF_DISABLED)
            tls_state = RT_TLS_DEAD;
        return NULL;
    }
    tls_state = RT_TLS_BUSY;
    rt_block_signals(&old);
    t = thread_reuse();
    if (!t)
        t = thread_new();
    if (!t) {
        rt_restore_signals(&old);
        tls_state = RT_TLS_DEAD;
        rt_warn_once(RT_WARN_THREAD, "cannot trace a thread: reason=cannot allocate its buffer");
        return NULL;
    }
    rt_lock(&t->lock);
    t->index = __atomic_fetch_add(&rt_g.nthreads, 1, __ATOMIC_RELAXED);
    t->altstack_on = 0;
    t->tid = pthread_self();
    __atomic_store_n(&t->exit_state, RT_EXIT_NONE, __ATOMIC_RELAXED);
    if (rt_handlers_on) {
        stack_t cur;
        if (sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE)) {
            stack_t ss = {.ss_sp = t->altstack, .ss_size = RT_ALTSTACK_SIZE, .ss_flags = 0};
            t->altstack_on = sigaltstack(&ss, NULL) == 0;
        }
    }
    memset(&t->run, 0, offsetof(struct rt_run, off));
    t->run.stamp = (uint32_t)__atomic_load_n(&rt_g.stamp, __ATOMIC_RELAXED);
    /* a stamping thread takes the runs' path (run_record), which writes
     * its records one by one: the fast path stays as it is */
    t->run.search = (uint32_t)__atomic_load_n(&rt_g.runs, __ATOMIC_RELAXED) && !t->run.stamp;
    t->run.cols = (uint32_t)__atomic_load_n(&rt_g.cols, __ATOMIC_RELAXED);
    t->run.lcols = (uint32_t)__atomic_load_n(&rt_g.loop_cols, __ATOMIC_RELAXED);
    t->pack.on = (uint32_t)__atomic_load_n(&rt_g.pack, __ATOMIC_RELAXED) && !t->run.stamp;
    t->pack.len = t->pack.count = t->pack.busy = 0;
    t->pack.fresh = 1; /* a reused node's table is another thread's */
    t->run.packing = t->pack.on;
    t->run.min = (uint32_t)rt_g.run_min;
    t->run.on = t->run.search | t->pack.on | t->run.stamp;
    t->queue.busy = 0;
    t->queue.head = t->queue.words;
    t->queue.fast = &__commhint_fast;
    __commhint_fast.qpos = t->queue.words;
    __commhint_fast.qend = NULL; /* until the thread's next call (queue_arm) */
    memset(&t->rows, 0, offsetof(struct rt_rows, nb));
    /* rows of loop nests take the queued records, and their loops' columns */
    t->rows.on = (uint32_t)__atomic_load_n(&rt_g.rows, __ATOMIC_RELAXED) && t->pack.on && t->run.lcols &&
                 (uint32_t)__atomic_load_n(&rt_g.queue, __ATOMIC_RELAXED) && !t->run.stamp;
    /* last: close_other_runs reads the owner's qpos through `fast` once
     * `on` is set (a reused node's `fast` was another thread's) */
    __atomic_store_n(&t->queue.on,
                     (uint32_t)__atomic_load_n(&rt_g.queue, __ATOMIC_RELAXED) && t->run.on && !t->run.stamp,
                     __ATOMIC_RELEASE);
    rt_unlock(&t->lock);
    pthread_setspecific(rt_key, t);
    if (!__atomic_load_n(&rt_g.started, __ATOMIC_ACQUIRE)) {
        /* the process is running: prepare the metadata the first chunk (or a
         * signal handler) will need, and call later TUs late */
        int first = 0;
        rt_lock(&rt_g.meta_lock);
        if (!rt_g.started) {
            (void)rt_snapshot_rebuild();
            __atomic_store_n(&rt_g.started, 1, __ATOMIC_RELEASE);
            first = 1;
        }
        rt_unlock(&rt_g.meta_lock);
        /* still busy: an instrumented allocator that setenv calls is not traced */
        if (first)
            name_owner();
    }
    rt_restore_signals(&old);
    tls_thr = t;
    tls_state = RT_TLS_NORMAL;
    return t;
}

/* Writes the records of t in [flushed, end) (RT_POS values) as one chunk,
 * or drops them when tracing is off (force: also after RT_OFF_FINISHED, for
 * rt_finish).  Lock of t held, signals blocked. */
static int flush_locked(struct rt_thread *t, uint64_t end, int in_signal, int force)
{
    uint32_t from = RT_POS_BYTES(t->flushed);
    size_t stored = 0;
    int off, e;

    if (RT_POS_BYTES(end) <= from)
        return RT_OK;
    off = __atomic_load_n(&rt_g.off, __ATOMIC_ACQUIRE);
    if ((off & (RT_OFF_DISABLED | RT_OFF_FAILED)) || ((off & RT_OFF_FINISHED) && !force) ||
        __atomic_load_n(&t->exit_state, __ATOMIC_RELAXED) == RT_EXIT_CUT) {
        t->flushed = end;
        return RT_ERR_OFF;
    }
    e = rt_stream_ensure(in_signal);
    if (e >= 0)
        e = rt_emit_chunk(&rt_g.stream, t->cctx, t->data + from, RT_POS_BYTES(end) - from,
                          RT_POS_RECS(end) - RT_POS_RECS(t->flushed), t->out, t->out_cap, t->index, &stored);
    if (e >= 0)
        rt_zstd_pick(t, RT_POS_BYTES(end) - from, stored);
    t->flushed = end;
    t->nflush++;
    return e < 0 ? e : RT_OK;
}

/* The owner's flush of a full buffer: afterwards the buffer is empty. */
static void flush_own(struct rt_thread *t)
{
    sigset_t old;
    rt_block_signals(&old);
    rt_lock(&t->lock);
    (void)flush_locked(t, t->pos, 0, 0);
    t->flushed = 0;
    __atomic_store_n(&t->pos, 0, __ATOMIC_RELEASE);
    rt_unlock(&t->lock);
    rt_restore_signals(&old);
}

/* Flushes the complete records of every buffer (signals blocked by the
 * caller).  Only advances `flushed`: owners keep writing where they were. */
static int flush_all(int in_signal, int force, int aged)
{
    int ret = RT_OK;
    for (struct rt_thread *t = __atomic_load_n(&rt_g.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
        if (__atomic_load_n(&t->state, __ATOMIC_RELAXED) != RT_THREAD_ACTIVE)
            continue;
        if (in_signal) {
            if (rt_lock_bounded(&t->lock) < 0) {
                ret = RT_ERR_BUSY;
                continue;
            }
        } else {
            rt_lock(&t->lock);
        }
        if (t->state == RT_THREAD_ACTIVE && (!aged || t->nflush == t->aged_mark)) {
            int e = flush_locked(t, __atomic_load_n(&t->pos, __ATOMIC_ACQUIRE), in_signal, force);
            if (e < 0 && ret == RT_OK)
                ret = e;
        }
        t->aged_mark = t->nflush;
        rt_unlock(&t->lock);
    }
    return ret;
}

int rt_flush_complete(void)
{
    int saved = errno, e;
    sigset_t old;

    rt_block_signals(&old);
    e = flush_all(0, 0, 1);
    rt_restore_signals(&old);
    errno = saved;
    return e;
}

int rt_flush_all(void)
{
    int saved = errno, e;
    sigset_t old;

    if (!rt_inited)
        return RT_ERR_OFF;
    run_close_own();
    rt_block_signals(&old);
    e = flush_all(0, 0, 0);
    rt_restore_signals(&old);
    errno = saved;
    return e;
}

/* pthread key destructor: the thread is exiting. */
static void rt_thread_exit(void *arg)
{
    struct rt_thread *t = arg;
    int saved = errno;
    sigset_t old;

    run_close_own();
    __commhint_fast.qend = NULL; /* the node may go to another thread */
    __atomic_store_n(&t->queue.on, 0, __ATOMIC_RELEASE);
    rt_block_signals(&old);
    rt_lock(&t->lock);
    (void)flush_locked(t, t->pos, 0, 0);
    t->flushed = 0;
    __atomic_store_n(&t->pos, 0, __ATOMIC_RELEASE);
    if (t->altstack_on) {
        stack_t ss = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
        sigaltstack(&ss, NULL);
        t->altstack_on = 0;
    }
    __atomic_store_n(&t->state, RT_THREAD_FREE, __ATOMIC_RELEASE);
    rt_unlock(&t->lock);
    rt_restore_signals(&old);
    tls_thr = NULL;
    tls_state = RT_TLS_DEAD; /* events from later TLS destructors are dropped */
    errno = saved;
}

/* ---- the hot path -------------------------------------------------------------- */

static void run_write(struct rt_thread *t, int in_signal, int going_on);

/* Room for `bytes` in the caller's buffer after a flush, or NULL. */
static __attribute__((noinline, cold)) unsigned char *space_slow(size_t bytes)
{
    struct rt_thread *t = tls_thr;
    int saved;

    if (!t && tls_state == RT_TLS_DEAD)
        return NULL;
    saved = errno;
    if (!t && !(t = rt_thread_register())) {
        errno = saved;
        return NULL;
    }
    if (t->run.period)
        run_write(t, 0, 0); /* a flush ends a run: its REPEAT goes first */
    if (RT_POS_BYTES(t->pos) + bytes > t->cap)
        flush_own(t);
    errno = saved;
    return RT_POS_BYTES(t->pos) + bytes <= t->cap ? t->data + RT_POS_BYTES(t->pos) : NULL;
}

static inline unsigned char *space(size_t bytes)
{
    struct rt_thread *t = tls_thr;
    if (RT_LIKELY(t != NULL)) {
        uint32_t pos = RT_POS_BYTES(t->pos);
        if (RT_LIKELY(pos + bytes <= t->cap))
            return t->data + pos;
    }
    return space_slow(bytes);
}

/* Publishes nrec records of `bytes` written at the position `space`
 * returned. */
static inline void advance_n(size_t bytes, uint32_t nrec)
{
    struct rt_thread *t = tls_thr;
    __atomic_store_n(&t->pos, t->pos + RT_POS(bytes, nrec), __ATOMIC_RELEASE);
}

/* Publishes one record. */
static inline void advance(size_t bytes)
{
    advance_n(bytes, 1);
}

static inline int site_ok(uint32_t site)
{
    return RT_LIKELY(site < __atomic_load_n(&rt_site_limit, __ATOMIC_RELAXED));
}

/* ---- runs: CHT_REC_REPEAT ------------------------------------------------------ */

/* The expected next records of the calling thread's run, read and updated
 * without a call by the code the pass inlines (commhint-rt.h). */
COMMHINT_EXPORT __thread struct commhint_rt_fast __commhint_fast;

_Static_assert(COMMHINT_RT_FAST_SLOTS == CHT_REPEAT_PERIOD_MAX, "one fast slot per position of a period");
_Static_assert(COMMHINT_RT_FAST_ADDRS <= CHT_REPEAT_MAX_ADDRS, "the fast path compares a prefix");

/* The history record `back` (1 = the latest) positions ago. */
static inline struct rt_run_ent *run_ent(struct rt_run *r, uint32_t back)
{
    return &r->hist[(r->head - back) & (RT_RUN_HIST - 1)];
}

static inline __attribute__((always_inline)) void run_push(struct rt_run *r, uint64_t key, uint32_t n,
                                                           const uint64_t *a)
{
    struct rt_run_ent *e = &r->hist[r->head];
    e->key = key;
    e->n = n;
    for (uint32_t i = 0; i < n; i++)
        e->a[i] = a[i];
    r->head = (r->head + 1) & (RT_RUN_HIST - 1);
    if (r->nhist < RT_RUN_HIST)
        r->nhist++;
}

/* Records the open run of the calling thread stands for so far (0 if none). */
static inline uint32_t run_count(const struct rt_run *r)
{
    return r->period ? CHT_REPEAT_COUNT_MAX - __atomic_load_n(&__commhint_fast.left, __ATOMIC_RELAXED) : 0;
}

/* Expected address i (any of CHT_REPEAT_MAX_ADDRS) of position pos. */
static inline uint64_t *run_next(struct rt_run *r, uint32_t pos, uint32_t i)
{
    return i < COMMHINT_RT_FAST_ADDRS ? &__commhint_fast.slot[pos].next[i]
                                      : &r->next_hi[pos][i - COMMHINT_RT_FAST_ADDRS];
}

/* Column entries the first count records of a run take (every record at
 * position j takes nirr[j]; a run starts at position 0). */
static uint32_t run_col_used(const struct rt_run *r, uint32_t period, uint32_t count)
{
    uint32_t m = 0;
    for (uint32_t j = 0; j < period; j++)
        m += r->nirr[j] * (count / period + (j < count % period));
    return m;
}

/* While a run lasts its records are not pushed into the history: when it
 * ends, its last RT_RUN_HIST records are rebuilt from the expected
 * addresses (irregular ones from their latest values, back through the
 * column) and pushed, oldest first, so the history is what a reader's is
 * after expanding the REPEAT. */
static void run_replay(struct rt_run *r, uint32_t period, uint32_t count)
{
    uint32_t m = count < RT_RUN_HIST ? count : RT_RUN_HIST, phase = __commhint_fast.phase;
    static __thread uint64_t irr[RT_RUN_HIST][CHT_REPEAT_MAX_ADDRS];
    uint64_t cur[CHT_REPEAT_PERIOD_MAX][CHT_REPEAT_MAX_ADDRS];
    uint32_t at = run_col_used(r, period, count);

    /* irregular addresses, newest first: record k's are the latest values
     * of its position, which its own entries then take back */
    for (uint32_t j = 0; j < period; j++) /* the positions in use only (once per run) */
        for (uint32_t i = 0; i < r->n[j]; i++)
            cur[j][i] = r->last[j][i];
    for (uint32_t k = 1; k <= m; k++) {
        uint32_t pos = (phase + period * RT_RUN_HIST - k) % period, e;
        if (!r->irr[pos])
            continue;
        at -= r->nirr[pos];
        e = at;
        for (uint32_t i = 0; i < r->n[pos]; i++)
            if (r->irr[pos] >> i & 1) {
                irr[k - 1][i] = cur[pos][i];
                cur[pos][i] -= (uint64_t)(int64_t)r->col[e++];
            }
    }
    for (uint32_t k = m; k >= 1; k--) {
        uint32_t pos = (phase + period * RT_RUN_HIST - k) % period;
        uint64_t back = (k - 1) / period + 1, a[CHT_REPEAT_MAX_ADDRS];
        for (uint32_t i = 0; i < r->n[pos]; i++)
            a[i] = r->irr[pos] >> i & 1 ? irr[k - 1][i]
                                        : *run_next(r, pos, i) - back * (uint64_t)r->stride[r->off[pos] + i];
        run_push(r, r->key[pos], r->n[pos], a);
    }
}

/* A search for a period that found none, or a run that ended before it
 * saved anything: after 64 of them in a row the searches come rarer
 * (run_take), up to RT_RUN_SKIP_MAX records apart.  A run that lasted a
 * whole period counts as a success.  (From 16 failures on, or with only
 * runs of two periods counting, the trace of the dft example on 4 ranks
 * was 3-12% larger: runs of its short loops started late.) */
static inline void run_failed(struct rt_run *r)
{
    uint32_t most = r->packing ? RT_RUN_SKIP_MAX_PACK : RT_RUN_SKIP_MAX;
    r->fails++;
    r->skip = r->fails / 64 < most ? r->fails / 64 : most;
}

/* What is left in the calling thread's buffer for size bytes, or NULL. */
static unsigned char *buffer_room(struct rt_thread *t, size_t size)
{
    return RT_POS_BYTES(t->pos) + size <= t->cap ? t->data + RT_POS_BYTES(t->pos) : NULL;
}

static unsigned char *spill_space(struct rt_thread *t, size_t size, int locked);

/* Room for a record that ends a run or a pack: in a signal handler
 * (in_signal 1, or RT_IN_SIGNAL_LOCKED with the thread's lock held) what is
 * left in the buffer, else the buffer written out first (spill_space: a
 * flush there must not allocate; a run's column is up to 48 KB). */
static unsigned char *run_space(struct rt_thread *t, size_t size, int in_signal)
{
    if (in_signal)
        return spill_space(t, size, in_signal == RT_IN_SIGNAL_LOCKED);
    return space(size);
}

/* ---- packs: CHT_REC_PACK ------------------------------------------------------- */

static inline uint32_t pack_slot(uint64_t key)
{
    return (uint32_t)((key * CHT_PACK_HASH) >> 56);
}

/* Writes the open pack of t (the calling thread's) as a PACK record, or its
 * one record as itself when that is smaller.  In a signal handler only
 * into what is left of the buffer (the pack is dropped if it does not fit)
 * and only if no record is being added or the pack written (busy). */
static void pack_close(struct rt_thread *t, int in_signal)
{
    struct rt_pack *k = &t->pack;
    uint32_t len, count, reset;
    size_t size;
    unsigned char *p;

    if (!k->len || (in_signal && k->busy))
        return;
    k->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    len = k->len; /* a handler may have written it before busy was set */
    count = k->count;
    reset = k->reset;
    k->len = k->count = 0;
    k->epoch++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (!len)
        goto out;
    size = (sizeof(struct cht_rec_pack) + len + 7) & ~(size_t)7;
    if ((p = run_space(t, size, in_signal))) {
        struct cht_rec_pack *x = (struct cht_rec_pack *)p;
        x->h.type = CHT_REC_PACK;
        x->h.aux = reset ? CHT_PACK_RESET : 0;
        x->h.size = (uint32_t)size;
        x->count = count;
        x->nbytes = len;
        memcpy(x + 1, k->code, len);
        memset((unsigned char *)(x + 1) + len, 0, size - sizeof(*x) - len);
        advance(size);
    } else {
        k->fresh = 1; /* lost: the next pack cannot go on from its table */
    }
out:
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    k->busy = 0;
}

/* ---- rows of a loop nest: CHT_REC_ROWS (rows.c) --------------------------------- */

/* Writes the open ROWS record of t (the calling thread's).  In a signal
 * handler only into what is left of the buffer (the rows are lost if it
 * does not fit) and only if no row is being added (busy).  The thread's
 * history did not see the rows' records: it empties (a reader's holds
 * more, never less).  Records with few rows count as failures: after
 * RT_ROWS_FAILS in a row, rows_take rests. */
static void rows_close(struct rt_thread *t, int in_signal)
{
    struct rt_rows *w = &t->rows;
    uint32_t rows;
    size_t size;
    unsigned char *p;

    if (!w->rows || (in_signal && w->busy))
        return;
    w->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    rows = w->rows;
    if (rows) {
        size = rt_rows_size(w);
        if ((p = run_space(t, size, in_signal))) {
            rt_rows_write(w, p);
            advance(size);
        }
        t->run.nhist = 0;
    }
    w->rows = w->len = 0;
    w->epoch++;
    if (!in_signal && rows >= RT_ROWS_MIN) {
        w->fails = 0;
    } else if (!in_signal && rows && ++w->fails >= RT_ROWS_FAILS) {
        w->fails = 0;
        w->rest = RT_ROWS_REST;
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    w->busy = 0;
}

/* Codes the record (key, n addresses a) into the open pack of t, opening
 * one if none is.  0 if a signal handler closed the pack meanwhile (the
 * record is then lost, and the history emptied, as when a run is ended
 * there).  The code bytes before `len` never change while a record is
 * coded, so a handler may write the pack at any instruction but the two
 * stores that publish the record (busy). */
static inline __attribute__((always_inline)) int pack_add(struct rt_thread *t, uint64_t key, uint32_t n,
                                                          const uint64_t *a)
{
    struct rt_pack *k = &t->pack;
    struct rt_pack_ent *e;
    unsigned char *o, *q;
    uint32_t tag = 0, s, epoch;

    if (RT_UNLIKELY(k->len + RT_PACK_REC_MAX > RT_PACK_BYTES || k->count == CHT_PACK_COUNT_MAX))
        pack_close(t, 0);
    epoch = k->epoch;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (!k->len) {
        /* a new pack goes on with the table of the one before, unless the
         * thread is new or a record was dropped after changing it */
        k->reset = k->fresh;
        if (k->fresh) {
            k->gen++;
            k->prev = CHT_PACK_SLOTS;
            k->fresh = 0;
        }
    }
    o = k->code + k->len;
    q = o + 1;
    if (k->prev < CHT_PACK_SLOTS && k->tab[k->prev].next == key) {
        tag = 1;
    } else {
        *q++ = (unsigned char)((key >> 16) & 0x7f) | ((key & 0xffff) == CHT_REC_LOOP ? 0x80 : 0);
        q = rt_varint(q, key >> 32);
    }
    if (k->prev < CHT_PACK_SLOTS)
        k->tab[k->prev].next = key;
    s = pack_slot(key);
    e = &k->tab[s];
    if (e->gen != k->gen || e->key != key) {
        e->gen = k->gen;
        e->key = key;
        e->next = 0;
        memset(e->last, 0, sizeof e->last);
        memset(e->d, 0, sizeof e->d);
    }
    for (uint32_t i = 0; i < n; i++) {
        if (i < 7 && a[i] == e->last[i] + (uint64_t)e->d[i]) {
            tag |= 2u << i;
        } else {
            int64_t d = (int64_t)(a[i] - e->last[i]);
            q = rt_varint(q, rt_zigzag(d));
            e->d[i] = d;
        }
        e->last[i] = a[i];
    }
    *o = (unsigned char)tag;
    k->prev = s;
    /* the record counts from here on; a handler that closed the pack while
     * it was being coded (its bytes are past what the handler wrote) has it
     * dropped, one that comes now leaves the pack alone */
    k->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (RT_UNLIKELY(k->epoch != epoch)) {
        t->run.nhist = 0;
        k->fresh = 1;
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        k->busy = 0;
        return 0;
    }
    k->len = (uint32_t)(q - k->code);
    k->count++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    k->busy = 0;
    return 1;
}

/* Ends the run of t (the calling thread's): writes its REPEAT record, or
 * the records themselves when they take no more room (a short run of a long
 * period), or codes them into the open pack (a run too short to count that
 * a record of the stream ends: going_on).  The records enter the history.  The fast path stops first: a
 * signal handler ending the run while inlined code was absorbing a record
 * leaves every key 0, so that record (lost, at most one) cannot revive it. */
static __attribute__((noinline, cold)) void run_write(struct rt_thread *t, int in_signal, int going_on)
{
    struct rt_run *r = &t->run;
    struct commhint_rt_fast *f = &__commhint_fast;
    uint32_t was = r->busy, period, count, ncol;
    int in_pack;
    size_t rep, lit = 0;
    unsigned char *p;

    r->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    period = r->period;
    count = run_count(r);
    for (uint32_t j = 0; j < COMMHINT_RT_FAST_SLOTS; j++)
        f->slot[j].key = 0;
    f->left = 0;
    r->period = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    /* A run too short to count, ended by a record that goes on with the
     * stream (going_on: run_take), with packs: its records go on in the
     * open pack, which a REPEAT or records written as they are would end
     * (spmv: a run of a loop's iter record beside an indirect access ends
     * at the next record, once per row).  Otherwise the records before the
     * run first. */
    in_pack = going_on && !in_signal && t->pack.on && r->packing && period && count && count < r->min;
    if (t->pack.len && !in_pack)
        pack_close(t, in_signal);
    if (!period || !count)
        goto out;
    if (!r->loop) { /* a loop's run (loop_run_open) leaves the search's pace alone */
        if (count >= (r->packing ? r->min : period))
            r->fails = 0;
        else
            run_failed(r);
    }
    /* In a signal handler the history may be half updated: always REPEAT,
     * and empty the history instead of rebuilding it.  If the program goes
     * on, the next run needs 2P new records first, and those the writer and
     * a reader push alike (the reader's history holds more, never less). */
    if (in_signal || (r->loop && !in_pack))
        r->nhist = 0; /* a loop's run: its next needs one iteration in the history, which it pushes */
    else
        run_replay(r, period, count);
    if (in_pack) {
        for (uint32_t k = count; k >= 1; k--) {
            const struct rt_run_ent *e = run_ent(r, k);
            (void)pack_add(t, e->key, e->n, e->a);
        }
        goto out;
    }
    ncol = run_col_used(r, period, count);
    rep = ncol ? (sizeof(struct cht_rec_repeat_col) + 8 * (size_t)r->nstrides + 4 * (size_t)ncol + 7) & ~(size_t)7
               : sizeof(struct cht_rec_repeat) + 8 * (size_t)r->nstrides;
    if (count <= r->nhist) {
        for (uint32_t k = 1; k <= count; k++)
            lit += sizeof(struct cht_rec_comp) + 8 * (size_t)run_ent(r, k)->n;
    }
    if (!in_signal && count <= r->nhist && lit <= rep) {
        for (uint32_t k = count; k >= 1; k--) {
            const struct rt_run_ent *e = run_ent(r, k);
            size_t size = sizeof(struct cht_rec_comp) + 8 * (size_t)e->n;
            struct cht_rec_comp *c;
            if (!(p = run_space(t, size, in_signal)))
                goto out;
            c = (struct cht_rec_comp *)p;
            c->h.type = (uint16_t)e->key;
            c->h.aux = (uint16_t)(e->key >> 16);
            c->h.size = (uint32_t)size;
            c->site = (uint32_t)(e->key >> 32);
            c->reserved = 0;
            memcpy(c + 1, e->a, 8 * (size_t)e->n);
            advance(size);
        }
        goto out;
    }
    if (ncol && (p = run_space(t, rep, in_signal))) {
        struct cht_rec_repeat_col *x = (struct cht_rec_repeat_col *)p;
        unsigned char *q = (unsigned char *)(x + 1) + 8 * (size_t)r->nstrides;
        x->h.type = CHT_REC_REPEAT_COL;
        x->h.aux = (uint16_t)period;
        x->h.size = (uint32_t)rep;
        x->count = count;
        x->nstrides = r->nstrides;
        x->ncol = ncol;
        x->reserved = 0;
        memcpy(x + 1, r->stride, 8 * (size_t)r->nstrides);
        memcpy(q, r->col, 4 * (size_t)ncol);
        memset(q + 4 * (size_t)ncol, 0, rep - (size_t)(q + 4 * (size_t)ncol - p));
        advance(rep);
    } else if (!ncol && (p = run_space(t, rep, in_signal))) {
        struct cht_rec_repeat *x = (struct cht_rec_repeat *)p;
        x->h.type = CHT_REC_REPEAT;
        x->h.aux = (uint16_t)period;
        x->h.size = (uint32_t)rep;
        x->count = count;
        x->nstrides = r->nstrides;
        memcpy(x + 1, r->stride, 8 * (size_t)r->nstrides);
        advance(rep);
    }
out:
    f->phase = 0;
    r->loop = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    r->busy = was;
}

/* Whether an address is irregular over the last three steps of its
 * position: three different differences, the latest fitting a column
 * entry.  (A strided address that jumped once, at the end of a row, has
 * two equal differences among three: it starts a strided run instead.) */
static inline int irregular3(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    int64_t d1 = (int64_t)(a - b), d2 = (int64_t)(b - c), d3 = (int64_t)(c - d);
    return d1 != d2 && d2 != d3 && d1 != d3 && d1 >= INT32_MIN && d1 <= INT32_MAX;
}

/* Fills the run's positions from the last period of the history (the
 * period before it fixing the strides; with cols, the two before that
 * telling irregular addresses apart, or for position 0 the new record a)
 * and the fast slots with the records expected next (the new record is
 * the first of them). */
static void run_begin(struct rt_run *r, uint32_t per, int cols, const uint64_t *a)
{
    struct commhint_rt_fast *f = &__commhint_fast;
    uint32_t i, j, s;
    /* count 0 before the run is visible to a signal handler */
    f->left = CHT_REPEAT_COUNT_MAX;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    for (s = 0, j = 0; j < per; j++) {
        const struct rt_run_ent *x = run_ent(r, per - j), *y = run_ent(r, 2 * per - j);
        /* other positions are told apart over four periods where the
         * history holds them (else taken as strided: if one is not, the run
         * ends at it and starts again with it as position 0) */
        int four = cols && 4 * per <= r->nhist;
        const struct rt_run_ent *z = four ? run_ent(r, 3 * per - j) : NULL, *w = four ? run_ent(r, 4 * per - j) : NULL;
        struct commhint_rt_slot *sl = &f->slot[j];
        r->off[j] = s;
        r->n[j] = x->n;
        r->key[j] = x->key;
        r->irr[j] = r->nirr[j] = r->same[j] = 0;
        for (i = 0; i < x->n; i++) {
            int64_t d = (int64_t)(x->a[i] - y->a[i]);
            /* position 0 is the new record's: run_start told its addresses apart */
            if (cols && (j == 0 ? a[i] - x->a[i] != (uint64_t)d : four && irregular3(x->a[i], y->a[i], z->a[i], w->a[i]))) {
                r->irr[j] |= 1u << i;
                r->nirr[j]++;
                r->last[j][i] = x->a[i];
                r->prevd[j][i] = (int64_t)(x->a[i] - y->a[i]);
                d = CHT_REPEAT_IRREGULAR;
            } else {
                *run_next(r, j, i) = x->a[i] + (uint64_t)d;
            }
            r->stride[s++] = d;
            if (i < COMMHINT_RT_FAST_ADDRS)
                sl->stride[i] = d;
        }
        /* key 0: the inline path leaves a position with a column to run_take */
        sl->key = r->irr[j] ? 0 : x->key;
    }
    r->nstrides = s;
    r->ncol = 0;
    f->period = per;
    f->phase = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    r->loop = 0;
    r->period = per;
}

/* Starts a run of the smallest period P whose last 2P history records have
 * the same shapes position by position and that the new record continues
 * with the stride its position showed; the strides are those of the last
 * period.  Failing that, with columns on, a run of the smallest period
 * whose last 2P records have the same keys, the new record's addresses
 * each continuing their stride or not (then irregular, if the difference
 * fits a column entry), the other positions' addresses told apart by
 * run_begin.  An address taken as irregular that turns out strided ends
 * the run soon (run_take_col), so that a strided run takes over.  1 if a
 * run started. */
/* Whether the last 2*per history records and the new record (key, n
 * addresses a) show period per: the same keys position by position, and
 * each of a's addresses continuing its stride (2) or, some of them, moving
 * by another difference a column entry holds (1); 0 if not. */
static int period_fits(struct rt_run *r, uint32_t per, uint64_t key, uint32_t n, const uint64_t *a)
{
    const struct rt_run_ent *e1 = run_ent(r, per), *e2 = run_ent(r, 2 * per);
    int fit = 2;
    if (e1->key != key || e2->key != key)
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t d = (int64_t)(a[i] - e1->a[i]);
        if (a[i] - e1->a[i] == e1->a[i] - e2->a[i])
            continue;
        if (d < INT32_MIN || d > INT32_MAX)
            return 0;
        fit = 1;
    }
    for (uint32_t j = 1; j < per; j++)
        if (run_ent(r, per - j)->key != run_ent(r, 2 * per - j)->key)
            return 0;
    return fit;
}

/* Strided first: with columns on, the smallest period that fits only with
 * irregular addresses is taken when no period up to twice it fits strided
 * (the new record is position 0: its own history tells its addresses
 * apart). */
static __attribute__((noinline)) int run_start(struct rt_run *r, uint64_t key, uint32_t n, const uint64_t *a)
{
    uint32_t col = 0;
    /* a strided period more than twice the irregular one found is not
     * looked for (the search is most of the cost of short loops) */
    for (uint32_t per = 1; 2 * per <= r->nhist && (!col || per <= 2 * col); per++) {
        int fit = period_fits(r, per, key, n, a);
        if (fit == 2) {
            run_begin(r, per, 0, a);
            return 1;
        }
        if (fit == 1 && !col && r->cols)
            col = per;
    }
    if (!col)
        return 0;
    run_begin(r, col, 1, a);
    return 1;
}

/* A record at a position with irregular addresses (run_take): its other
 * addresses must be the expected ones; each irregular one goes into the
 * column as its difference from the position's latest (the entries first,
 * the count last, so that a signal handler writes only whole records). */
static inline int run_take_col(struct rt_run *r, uint32_t pos, uint64_t key, uint32_t n, const uint64_t *a)
{
    struct commhint_rt_fast *f = &__commhint_fast;
    uint32_t i, at = run_col_used(r, r->period, run_count(r));
    int same = 1;
    if (r->key[pos] != key || !f->left || at + r->nirr[pos] > RT_RUN_COL_MAX)
        return 0;
    for (i = 0; i < n; i++) {
        if (r->irr[pos] >> i & 1) {
            int64_t d = (int64_t)(a[i] - r->last[pos][i]);
            if (d < INT32_MIN || d > INT32_MAX)
                return 0;
            same &= d == r->prevd[pos][i];
        } else if (a[i] != *run_next(r, pos, i)) {
            return 0;
        }
    }
    /* every irregular address moved as it did the last two times: strided
     * after all (a row that jumped once), better as a REPEAT */
    if (same && r->same[pos] >= 1)
        return 0;
    r->same[pos] = same ? r->same[pos] + 1 : 0;
    for (i = 0; i < n; i++) {
        if (r->irr[pos] >> i & 1) {
            r->prevd[pos][i] = (int64_t)(a[i] - r->last[pos][i]);
            r->col[at++] = (int32_t)r->prevd[pos][i];
            r->last[pos][i] = a[i];
        } else {
            *run_next(r, pos, i) = a[i] + (uint64_t)r->stride[r->off[pos] + i];
        }
    }
    f->phase = pos + 1 == r->period ? 0 : pos + 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    f->left--;
    return 1;
}

/* 1 if the record (key, n addresses a) continues the thread's run, or
 * starts one, and so needs no writing.  The same steps as the inlined fast
 * path, for every address. */
static inline __attribute__((always_inline)) int run_take(struct rt_thread *t, uint64_t key, uint32_t n,
                                                          const uint64_t *a)
{
    struct rt_run *r = &t->run;
    struct commhint_rt_fast *f = &__commhint_fast;
    /* A stream whose records start no run, or only runs that end at once
     * (addresses without a stride: indirect accesses), is searched for a
     * period less and less often, down to once every RT_RUN_SKIP_MAX + 1
     * records: the search costs more than writing the record.  A run
     * starts at most that many records late. */
    if (!r->period && (r->skip || !r->search)) {
        r->skip -= r->skip != 0;
        return 0;
    }
    for (int tries = 0; tries < 2; tries++) {
        uint32_t i, pos;
        if (!r->period) {
            if (r->nhist < 2)
                return 0;
            if (!run_start(r, key, n, a)) {
                run_failed(r);
                return 0;
            }
        }
        pos = f->phase;
        if (RT_UNLIKELY(r->irr[pos])) {
            if (run_take_col(r, pos, key, n, a))
                return 1;
        } else if (f->slot[pos].key == key && f->left) {
            for (i = 0; i < n; i++)
                if (a[i] != *run_next(r, pos, i))
                    break;
            if (i == n) {
                for (i = 0; i < n; i++)
                    *run_next(r, pos, i) = a[i] + (uint64_t)r->stride[r->off[pos] + i];
                f->phase = pos + 1 == r->period ? 0 : pos + 1;
                __atomic_signal_fence(__ATOMIC_SEQ_CST);
                f->left--;
                return 1;
            }
        }
        run_write(t, 0, 1);
    }
    return 0;
}

/* A COMP (n <= CHT_REPEAT_MAX_ADDRS) or LOOP record of a thread that encodes
 * runs: absorbed by the run, or written and remembered. */
static __attribute__((noinline)) void run_record(struct rt_thread *t, uint16_t type, uint16_t aux, uint32_t id,
                                                 uint32_t n, const uint64_t *a)
{
    uint64_t key = RT_RUN_KEY(type, aux, id);
    size_t size = sizeof(struct cht_rec_comp) + 8 * (size_t)n;
    struct cht_rec_comp *c;

    /* A validation run (COMMHINT_STMT_CLOCK) stamps each computation
     * record (rt_stamp), in the field
     * that is otherwise 0, and encodes no runs (docs/dependence.md,
     * "Estimated time of computation events"). */
    if (RT_UNLIKELY(t->run.stamp)) {
        if ((c = (void *)space(size))) {
            c->h.type = type;
            c->h.aux = aux;
            c->h.size = (uint32_t)size;
            c->site = id;
            c->reserved = type == CHT_REC_COMP && !tls_unstamped ? rt_stamp() : 0;
            memcpy(c + 1, a, 8 * (size_t)n);
            advance(size);
        }
        return;
    }
    /* A signal may come at any instruction here: a REPEAT needs only the
     * period, the strides (fixed while a run lasts) and the count (one
     * store), so the handler can always end the run; at most the record
     * being added is lost, as without runs. */
    if (run_take(t, key, n, a))
        return;
    if (t->pack.on) {
        if (pack_add(t, key, n, a))
            run_push(&t->run, key, n, a);
        return;
    }
    if ((c = (void *)space(size))) {
        c->h.type = type;
        c->h.aux = aux;
        c->h.size = (uint32_t)size;
        c->site = id;
        c->reserved = 0;
        memcpy(c + 1, a, 8 * (size_t)n);
        advance(size);
        run_push(&t->run, key, n, a);
    }
}

/* The common case of run_record, inlined with n a constant: no run is open
 * and this record is not one the search looks at (the search is off, or
 * rests after runs that did not pay), so it goes straight into the pack.
 * 1 if it did. */
static inline __attribute__((always_inline)) int pack_fast(struct rt_thread *t, uint64_t key, uint32_t n,
                                                           const uint64_t *a)
{
    struct rt_run *r = &t->run;
    if (!t->pack.on || r->period || (r->search && !r->skip))
        return 0;
    r->skip -= r->skip != 0;
    if (pack_add(t, key, n, a))
        run_push(r, key, n, a);
    return 1;
}

/* ---- records as they are ------------------------------------------------------ */

static inline __attribute__((always_inline)) void
comp_fill(unsigned char *p, uint32_t site, uint32_t n, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
    struct cht_rec_comp *r = (struct cht_rec_comp *)p;
    uint64_t *a = (uint64_t *)(r + 1);
    r->h.type = CHT_REC_COMP;
    r->h.aux = (uint16_t)n;
    r->h.size = (uint32_t)(sizeof(*r) + 8 * n);
    r->site = site;
    r->reserved = 0;
    a[0] = a0;
    if (n > 1)
        a[1] = a1;
    if (n > 2)
        a[2] = a2;
    if (n > 3)
        a[3] = a3;
}

static inline __attribute__((always_inline)) void loop_fill(unsigned char *p, uint32_t loop, uint16_t kind)
{
    struct cht_rec_loop *r = (struct cht_rec_loop *)p;
    r->h.type = CHT_REC_LOOP;
    r->h.aux = kind;
    r->h.size = sizeof(*r);
    r->loop = loop;
    r->reserved = 0;
}

/* The addresses of a LOOP record for run_record: none, but memcpy wants a
 * valid pointer even for 0 bytes (UBSan's nonnull check). */
static const uint64_t rt_no_addrs[1];

/* ---- the queue (commhint-rt.h) ------------------------------------------------ */

/* Records the inlined code queued that are not coded yet. */
static inline int queue_pending(struct rt_thread *t)
{
    return __atomic_load_n(&t->queue.on, __ATOMIC_ACQUIRE) &&
           __atomic_load_n(&t->queue.fast->qpos, __ATOMIC_RELAXED) != __atomic_load_n(&t->queue.head, __ATOMIC_RELAXED);
}

/* Lets the inlined code of the calling thread queue records, except while
 * a run is open (a record the run does not take must be a call, which
 * ends it) or tracing is off.  While the search for runs looks at every
 * record (runs paid off lately) only a few: a run found late leaves the
 * records the queue holds to the calls instead of the inlined code. */
static inline void queue_arm(struct rt_thread *t)
{
    struct rt_queue *q = &t->queue;
    uint64_t *end = q->words + RT_QUEUE_WORDS, *pos = __commhint_fast.qpos;
    if (!q->on)
        return;
    if (t->run.period || rt_is_off())
        end = NULL;
    else if (t->run.search && !t->run.skip && !t->rows.rows && end - pos > RT_QUEUE_SEARCH_WORDS)
        end = pos + RT_QUEUE_SEARCH_WORDS;
    __commhint_fast.qend = end;
}

/* The addresses of a queued record with this key, or -1 if the pass queues
 * no such record (a program's signal handler ran instrumented code in the
 * middle of an append: the queue is then dropped from there on). */
static inline int queue_n(uint64_t key)
{
    uint32_t type = (uint32_t)(key & 0xffff), aux = (uint32_t)(key >> 16) & 0xffff;
    if (type == CHT_REC_COMP)
        return aux >= 1 && aux <= COMMHINT_RT_FAST_ADDRS ? (int)aux : -1;
    if (type == CHT_REC_LOOP)
        return aux == CHT_LOOP_ENTER || aux == CHT_LOOP_ITER || aux == CHT_LOOP_EXIT ? 0 : -1;
    return -1;
}

/* Whether the site or loop a queued record names is one the runtime takes
 * (the call would have dropped the record otherwise). */
static inline int queue_id_ok(uint64_t key)
{
    uint32_t id = (uint32_t)(key >> 32);
    return (key & 0xffff) == CHT_REC_COMP ? site_ok(id) : id < __atomic_load_n(&rt_loop_limit, __ATOMIC_RELAXED);
}

/* One queued record, coded as the call would have (n a constant). */
static inline __attribute__((always_inline)) void queue_code(struct rt_thread *t, uint64_t key, uint32_t n,
                                                             const uint64_t *a)
{
    if (!pack_fast(t, key, n, a))
        run_record(t, (uint16_t)key, (uint16_t)(key >> 16), (uint32_t)(key >> 32), n, a);
}

/* Codes the calling thread's queued records, in order; the queue is empty
 * afterwards.  The inlined code does not queue meanwhile (instrumented code
 * in a signal handler makes calls). */
static __attribute__((noinline)) void queue_drain(struct rt_thread *t)
{
    struct rt_queue *q = &t->queue;
    struct commhint_rt_fast *f = &__commhint_fast;
    uint64_t *p;

    if (q->busy)
        return;
    q->busy = 1;
    f->qend = NULL;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    while ((p = __atomic_load_n(&q->head, __ATOMIC_RELAXED)) < f->qpos) {
        uint64_t key = p[0];
        int n = queue_n(key);
        if (RT_UNLIKELY(n < 0 || p + 1 + n > f->qpos))
            break;
        /* past it before it is coded: a handler writes the rest as it is */
        __atomic_store_n(&q->head, p + 1 + n, __ATOMIC_RELAXED);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        if (RT_UNLIKELY(!queue_id_ok(key)))
            continue;
        switch (n) {
        case 0:
            queue_code(t, key, 0, rt_no_addrs);
            break;
        case 1:
            queue_code(t, key, 1, p + 1);
            break;
        case 2:
            queue_code(t, key, 2, p + 1);
            break;
        case 3:
            queue_code(t, key, 3, p + 1);
            break;
        default:
            queue_code(t, key, 4, p + 1);
            break;
        }
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    f->qpos = q->words;
    q->head = q->words;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    q->busy = 0;
    queue_arm(t);
}

/* Codes the calling thread's queued records, if it has any, after its
 * open ROWS record (anything the thread records but a row ends it). */
static inline void queue_flush(struct rt_thread *t)
{
    if (RT_UNLIKELY(t->rows.rows))
        rows_close(t, 0);
    if (RT_UNLIKELY(__commhint_fast.qpos != t->queue.head) && t->queue.on)
        queue_drain(t);
}

/* A record of the calling thread that the inlined code did not take: the
 * queued records first, then this one (coded as a queued one is), then the
 * inlined code may queue again. */
static inline __attribute__((always_inline)) void queue_after(struct rt_thread *t, uint64_t key, uint32_t n,
                                                              const uint64_t *a)
{
    queue_flush(t);
    queue_code(t, key, n, a);
    queue_arm(t);
}

/* Room for `size` bytes in a signal handler: the buffer written out first
 * if it is too full (under its lock, unless the caller holds it). */
static unsigned char *spill_space(struct rt_thread *t, size_t size, int locked)
{
    unsigned char *p = buffer_room(t, size);
    if (p || (!locked && rt_lock_bounded(&t->lock) < 0))
        return p;
    (void)flush_locked(t, t->pos, 1, 0);
    t->flushed = 0;
    __atomic_store_n(&t->pos, 0, __ATOMIC_RELEASE);
    if (!locked)
        rt_unlock(&t->lock);
    return buffer_room(t, size);
}

/* In a signal handler, after the run or pack it ended: writes the queued
 * records not coded yet as they are.  Neither the history nor the pack
 * table saw them: the history empties and the next pack starts afresh, as
 * a reader's then do too. */
static void queue_spill(struct rt_thread *t, int locked)
{
    struct rt_queue *q = &t->queue;
    uint64_t *p, *end = __atomic_load_n(&__commhint_fast.qpos, __ATOMIC_RELAXED);
    int any = 0;

    if (!q->on)
        return;
    __commhint_fast.qend = NULL;
    for (p = q->head; p < end;) {
        uint64_t key = p[0];
        int n = queue_n(key);
        size_t size = n ? sizeof(struct cht_rec_comp) + 8 * (size_t)n : sizeof(struct cht_rec_loop);
        unsigned char *o;
        if (n < 0 || p + 1 + n > end)
            break;
        if (queue_id_ok(key)) {
            if (!(o = spill_space(t, size, locked)))
                break;
            if (n)
                comp_fill(o, (uint32_t)(key >> 32), (uint32_t)n, p[1], n > 1 ? p[2] : 0, n > 2 ? p[3] : 0,
                          n > 3 ? p[4] : 0);
            else
                loop_fill(o, (uint32_t)(key >> 32), (uint16_t)(key >> 16));
            advance(size);
            any = 1;
        }
        p += 1 + n;
    }
    q->head = end;
    if (any) {
        t->run.nhist = 0;
        t->pack.fresh = 1;
    }
}

/* ---- loops recorded at their exits (commhint-rt.h) -------------------------- */

static int affine_load(const struct commhint_rt_loop_frame *fr, uint64_t it, struct rt_affine *x)
{
    const uint64_t *desc = fr->desc;
    uint32_t nsites = (uint32_t)(desc[0] >> 32), j, i;

    if (nsites >= CHT_REPEAT_PERIOD_MAX)
        return 0;
    x->per = nsites + 1;
    x->na = x->nirr = 0;
    x->key[0] = RT_RUN_KEY(CHT_REC_LOOP, CHT_LOOP_ITER, fr->loop_base + (uint32_t)desc[0]);
    x->n[0] = x->off[0] = 0;
    for (j = 1; j < x->per; j++) {
        x->n[j] = (uint32_t)(desc[j] >> 32);
        if (x->n[j] < 1 || x->n[j] > COMMHINT_RT_FAST_ADDRS)
            return 0;
        x->key[j] = RT_RUN_KEY(CHT_REC_COMP, x->n[j], fr->site_base + (uint32_t)desc[j]);
        x->off[j] = x->na;
        x->na += x->n[j];
    }
    for (i = 0; i < x->na; i++) {
        x->step[i] = (int64_t)desc[x->per + i];
        if (x->step[i] == COMMHINT_RT_IRREGULAR) {
            if (x->nirr == COMMHINT_RT_LOOP_IRR || !fr->irr)
                return 0;
            x->irr[x->nirr++] = i;
            x->step[i] = 0;
        }
        x->a[i] = fr->starts[i] + it * (uint64_t)x->step[i];
    }
    return 1;
}

/* The irregular addresses of iteration it (in the frame's buffer). */
static inline void affine_irr(const struct commhint_rt_loop_frame *fr, struct rt_affine *x, uint64_t it)
{
    const volatile uint64_t *b;
    if (!x->nirr) /* then the frame has no buffer */
        return;
    b = fr->irr + (it % COMMHINT_RT_LOOP_BUF) * x->nirr;
    for (uint32_t k = 0; k < x->nirr; k++)
        x->a[x->irr[k]] = b[k];
}

/* In a signal handler, after the queued records: the records of the
 * iterations done of the loops recorded at their exits that the thread is
 * running (an outer frame is one a handler's own loop interrupted: it comes
 * first), each loop's first iteration as it is and the others as REPEAT
 * records of its period and steps.  The loop, if the program goes on, makes
 * only the records of the iterations after them. */
static void loops_spill(struct rt_thread *t, int locked)
{
    struct commhint_rt_loop_frame *chain[16], *fr;
    struct rt_affine x;
    uint32_t depth = 0, j, i;

    for (fr = __commhint_fast.loop; fr && depth < 16; fr = fr->prev)
        chain[depth++] = fr;
    while (depth--) {
        uint64_t done, left, it;
        unsigned char *o;
        size_t size;
        fr = chain[depth];
        done = *(volatile uint64_t *)&fr->done;
        if (done <= fr->made || !affine_load(fr, fr->made, &x) || !queue_id_ok(x.key[0]))
            continue;
        for (j = 1; j < x.per && queue_id_ok(x.key[j]); j++)
            ;
        if (j < x.per)
            continue;
        if (x.nirr && done - fr->made > COMMHINT_RT_LOOP_BUF)
            continue; /* not a frame the pass fills */
        /* with irregular addresses every iteration as it is (at most a
         * buffer's worth), else the first */
        for (it = fr->made; it < (x.nirr ? done : fr->made + 1); it++) {
            if (x.nirr)
                affine_irr(fr, &x, it);
            for (j = 0; j < x.per; j++) {
                size = j ? sizeof(struct cht_rec_comp) + 8 * (size_t)x.n[j] : sizeof(struct cht_rec_loop);
                if (!(o = spill_space(t, size, locked)))
                    return;
                if (j) {
                    const uint64_t *a = x.a + x.off[j];
                    comp_fill(o, (uint32_t)(x.key[j] >> 32), x.n[j], a[0], x.n[j] > 1 ? a[1] : 0,
                              x.n[j] > 2 ? a[2] : 0, x.n[j] > 3 ? a[3] : 0);
                } else {
                    loop_fill(o, (uint32_t)(x.key[0] >> 32), CHT_LOOP_ITER);
                }
                advance(size);
            }
            for (i = 0; i < x.na; i++)
                x.a[i] += (uint64_t)x.step[i];
        }
        for (left = x.nirr ? 0 : (done - fr->made - 1) * x.per; left;) {
            uint32_t count = left > CHT_REPEAT_COUNT_MAX ? CHT_REPEAT_COUNT_MAX : (uint32_t)left;
            struct cht_rec_repeat *r;
            size = sizeof(*r) + 8 * (size_t)x.na;
            if (!(o = spill_space(t, size, locked)))
                return;
            r = (struct cht_rec_repeat *)o;
            r->h.type = CHT_REC_REPEAT;
            r->h.aux = (uint16_t)x.per;
            r->h.size = (uint32_t)size;
            r->count = count;
            r->nstrides = x.na;
            for (i = 0; i < x.na; i++)
                memcpy(o + sizeof(*r) + 8 * i, &x.step[i], 8);
            advance(size);
            left -= count;
        }
        fr->made = done;
        t->run.nhist = 0;
        t->pack.fresh = 1;
    }
}

/* Whether the calling thread runs a loop recorded at its exit with
 * iterations whose records are not made. */
static int loops_pending(void)
{
    for (struct commhint_rt_loop_frame *fr = __commhint_fast.loop; fr; fr = fr->prev)
        if (*(volatile uint64_t *)&fr->done > fr->made)
            return 1;
    return 0;
}

/* Any record other than a repeatable one ends the calling thread's run. */
static inline void run_break(void)
{
    struct rt_thread *t = tls_thr;
    if (t)
        queue_flush(t);
    if (t && RT_UNLIKELY(t->run.period))
        run_write(t, 0, 0);
    else if (t && t->pack.len)
        pack_close(t, 0);
}

static void run_close_own(void)
{
    run_break();
}

/* The fast path: where a record of `size` bytes goes in the calling
 * thread's buffer, or NULL (then the caller tail-calls its slow variant, so
 * that the fast path needs no stack frame). */
static inline __attribute__((always_inline)) unsigned char *fast_space(size_t size)
{
    struct rt_thread *t = tls_thr;
    if (RT_LIKELY(t != NULL) && RT_LIKELY(RT_POS_BYTES(t->pos) + size <= t->cap))
        return t->data + RT_POS_BYTES(t->pos);
    return NULL;
}

static __attribute__((noinline, cold)) void comp_slow(uint32_t site, uint32_t n, uint64_t a0, uint64_t a1,
                                                      uint64_t a2, uint64_t a3)
{
    size_t size = sizeof(struct cht_rec_comp) + 8 * n;
    unsigned char *p = space_slow(size);
    if (!p)
        return;
    comp_fill(p, site, n, a0, a1, a2, a3);
    if (RT_UNLIKELY(rt_g.stamp) && !tls_unstamped) /* the thread's first record: it had no run state yet */
        ((struct cht_rec_comp *)p)->reserved = rt_stamp();
    advance(size);
}

/* COMP record with n (1 to 4, a constant) addresses. */
#define EV(n, a0, a1, a2, a3)                                                                                \
    do {                                                                                                     \
        const size_t size_ = sizeof(struct cht_rec_comp) + 8 * (n);                                          \
        unsigned char *p_;                                                                                   \
        struct rt_thread *t_ = tls_thr;                                                                      \
        if (!site_ok(site))                                                                                  \
            return;                                                                                          \
        if (RT_LIKELY(t_ != NULL) && t_->run.on) {                                                           \
            const uint64_t a_[4] = {(a0), (a1), (a2), (a3)};                                                 \
            queue_after(t_, RT_RUN_KEY(CHT_REC_COMP, (n), site), (n), a_);                                   \
            return;                                                                                          \
        }                                                                                                    \
        if (RT_LIKELY((p_ = fast_space(size_)) != NULL)) {                                                   \
            comp_fill(p_, site, (n), (a0), (a1), (a2), (a3));                                                \
            advance(size_);                                                                                  \
            return;                                                                                          \
        }                                                                                                    \
        comp_slow(site, (n), (a0), (a1), (a2), (a3));                                                        \
    } while (0)

COMMHINT_EXPORT void __commhint_ev1(uint32_t site, const void *a0)
{
    EV(1, (uintptr_t)a0, 0, 0, 0);
}

COMMHINT_EXPORT void __commhint_ev2(uint32_t site, const void *a0, const void *a1)
{
    EV(2, (uintptr_t)a0, (uintptr_t)a1, 0, 0);
}

COMMHINT_EXPORT void __commhint_ev3(uint32_t site, const void *a0, const void *a1, const void *a2)
{
    EV(3, (uintptr_t)a0, (uintptr_t)a1, (uintptr_t)a2, 0);
}

COMMHINT_EXPORT void __commhint_ev4(uint32_t site, const void *a0, const void *a1, const void *a2,
                                    const void *a3)
{
    EV(4, (uintptr_t)a0, (uintptr_t)a1, (uintptr_t)a2, (uintptr_t)a3);
}

/* Most addresses one COMP record carries: it must fit rt_reserve's limit. */
#define RT_EVN_MAX ((RT_RESERVE_MAX - sizeof(struct cht_rec_comp)) / 8)

COMMHINT_EXPORT void __commhint_evn(uint32_t site, uint32_t n, const void *const *addrs)
{
    size_t size = sizeof(struct cht_rec_comp) + 8 * (size_t)n;
    struct cht_rec_comp *r;
    struct rt_thread *t = tls_thr;
    uint64_t *a;

    if (!site_ok(site) || RT_UNLIKELY(n > RT_EVN_MAX))
        return;
    if (t && t->run.on) {
        if (n <= CHT_REPEAT_MAX_ADDRS && !t->run.stamp) {
            uint64_t b[CHT_REPEAT_MAX_ADDRS];
            for (uint32_t i = 0; i < n; i++)
                b[i] = (uintptr_t)addrs[i];
            queue_flush(t);
            run_record(t, CHT_REC_COMP, (uint16_t)n, site, n, b);
            queue_arm(t);
            return;
        }
        run_break();
        t->run.nhist = 0; /* a record too large to repeat empties the history */
    }
    if (RT_UNLIKELY(!(r = (void *)space(size))))
        return;
    r->h.type = CHT_REC_COMP;
    r->h.aux = (uint16_t)n;
    r->h.size = (uint32_t)size;
    r->site = site;
    r->reserved = (t ? t->run.stamp : rt_g.stamp) ? rt_stamp() : 0;
    a = (uint64_t *)(r + 1);
    for (uint32_t i = 0; i < n; i++)
        a[i] = (uintptr_t)addrs[i];
    advance(size);
}

/* RANGES record: n = 1 (memset: written dst) or 2 (memcpy: read src,
 * written dst). */
static inline __attribute__((always_inline)) void ranges_fill(unsigned char *p, uint32_t site, uint32_t n,
                                                              uint64_t dst, uint64_t src, uint64_t len)
{
    struct cht_rec_ranges *r = (struct cht_rec_ranges *)p;
    struct cht_range *g = (struct cht_range *)(r + 1);
    r->h.type = CHT_REC_RANGES;
    r->h.aux = (uint16_t)n;
    r->h.size = (uint32_t)(sizeof(*r) + n * sizeof(*g));
    r->site = site;
    /* a validation run stamps these too; a memcpy costs more than the test */
    r->reserved = RT_UNLIKELY(rt_g.stamp) ? rt_stamp() : 0;
    len &= CHT_RANGE_LEN_MASK;
    if (n == 2) {
        g[0].addr = src;
        g[0].len = len;
        g++;
    }
    g[0].addr = dst;
    g[0].len = len | CHT_RANGE_WRITE;
}

static __attribute__((noinline, cold)) void ranges_slow(uint32_t site, uint32_t n, uint64_t dst, uint64_t src,
                                                        uint64_t len)
{
    size_t size = sizeof(struct cht_rec_ranges) + n * sizeof(struct cht_range);
    unsigned char *p = space_slow(size);
    if (!p)
        return;
    ranges_fill(p, site, n, dst, src, len);
    advance(size);
}

#define RANGES(n, dst, src, len)                                                                             \
    do {                                                                                                     \
        const size_t size_ = sizeof(struct cht_rec_ranges) + (n) * sizeof(struct cht_range);                 \
        unsigned char *p_;                                                                                   \
        if (!site_ok(site))                                                                                  \
            return;                                                                                          \
        run_break();                                                                                         \
        if (RT_LIKELY((p_ = fast_space(size_)) != NULL)) {                                                   \
            ranges_fill(p_, site, (n), (dst), (src), (len));                                                 \
            advance(size_);                                                                                  \
            return;                                                                                          \
        }                                                                                                    \
        ranges_slow(site, (n), (dst), (src), (len));                                                         \
    } while (0)

COMMHINT_EXPORT void __commhint_memcpy(uint32_t site, const void *dst, const void *src, uint64_t n)
{
    RANGES(2, (uintptr_t)dst, (uintptr_t)src, n);
}

COMMHINT_EXPORT void __commhint_memset(uint32_t site, const void *dst, uint64_t n)
{
    RANGES(1, (uintptr_t)dst, 0, n);
}

COMMHINT_EXPORT void __commhint_alloc(uint32_t site, const void *p, uint64_t n)
{
    if (!p || !n)
        return;
    RANGES(1, (uintptr_t)p, 0, n);
}

COMMHINT_EXPORT void __commhint_free(uint32_t site, const void *p)
{
    uint64_t n;
    if (!p)
        return;
    /* the block as the allocator has it: at least what was asked for */
    n = malloc_usable_size((void *)p);
    if (!n)
        return;
    RANGES(1, (uintptr_t)p, 0, n);
}

static __attribute__((noinline, cold)) void loop_slow(uint32_t loop, uint16_t kind)
{
    unsigned char *p = space_slow(sizeof(struct cht_rec_loop));
    if (!p)
        return;
    loop_fill(p, loop, kind);
    advance(sizeof(struct cht_rec_loop));
}

static inline __attribute__((always_inline)) void loop_record(uint32_t loop, uint16_t kind)
{
    unsigned char *p;
    struct rt_thread *t = tls_thr;
    if (RT_UNLIKELY(loop >= __atomic_load_n(&rt_loop_limit, __ATOMIC_RELAXED)))
        return;
    if (RT_LIKELY(t != NULL) && t->run.on) {
        queue_after(t, RT_RUN_KEY(CHT_REC_LOOP, kind, loop), 0, rt_no_addrs);
        return;
    }
    if (RT_LIKELY((p = fast_space(sizeof(struct cht_rec_loop))) != NULL)) {
        loop_fill(p, loop, kind);
        advance(sizeof(struct cht_rec_loop));
        return;
    }
    loop_slow(loop, kind);
}

COMMHINT_EXPORT void __commhint_loop_enter(uint32_t loop)
{
    loop_record(loop, CHT_LOOP_ENTER);
}

COMMHINT_EXPORT void __commhint_loop_iter(uint32_t loop)
{
    loop_record(loop, CHT_LOOP_ITER);
}

COMMHINT_EXPORT void __commhint_loop_exit(uint32_t loop)
{
    loop_record(loop, CHT_LOOP_EXIT);
}

/* One record of a loop recorded at its exit, for a thread whose records
 * take no run and no queue (not registered yet, or runs and packs off):
 * the call the pass's code would have made. */
static void affine_call(uint64_t key, uint32_t n, const uint64_t *a)
{
    if ((key & 0xffff) == CHT_REC_LOOP) {
        loop_record((uint32_t)(key >> 32), CHT_LOOP_ITER);
        return;
    }
    switch (n) {
    case 1:
        __commhint_ev1((uint32_t)(key >> 32), (const void *)(uintptr_t)a[0]);
        break;
    case 2:
        __commhint_ev2((uint32_t)(key >> 32), (const void *)(uintptr_t)a[0], (const void *)(uintptr_t)a[1]);
        break;
    case 3:
        __commhint_ev3((uint32_t)(key >> 32), (const void *)(uintptr_t)a[0], (const void *)(uintptr_t)a[1],
                       (const void *)(uintptr_t)a[2]);
        break;
    default:
        __commhint_ev4((uint32_t)(key >> 32), (const void *)(uintptr_t)a[0], (const void *)(uintptr_t)a[1],
                       (const void *)(uintptr_t)a[2], (const void *)(uintptr_t)a[3]);
        break;
    }
}

/* Whether address idx of a loop's iteration is irregular. */
static inline int affine_is_irr(const struct rt_affine *x, uint32_t idx)
{
    for (uint32_t k = 0; k < x->nirr; k++)
        if (x->irr[k] == idx)
            return 1;
    return 0;
}

/* Whether the calling thread's open run is one of the loop's period at
 * its first position, expecting iteration `it` (x->a: its affine
 * addresses), its irregular addresses in the column: a run loop_run_take
 * opened that the loop goes on with. */
static int loop_run_goes_on(const struct rt_run *r, const struct rt_affine *x)
{
    const struct commhint_rt_fast *f = &__commhint_fast;
    if (r->period != x->per || f->phase != 0 || f->left < x->per)
        return 0;
    for (uint32_t j = 0; j < x->per; j++) {
        if (r->key[j] != x->key[j] || r->n[j] != x->n[j])
            return 0;
        for (uint32_t i = 0; i < x->n[j]; i++) {
            uint32_t idx = x->off[j] + i;
            int irr = affine_is_irr(x, idx);
            if (irr != (int)(r->irr[j] >> i & 1) ||
                (!irr && *run_next((struct rt_run *)r, j, i) != x->a[idx]))
                return 0;
        }
    }
    return 1;
}

/* Opens a run of the loop's period from its structure, no search needed:
 * the history's last period must be the records of the iteration before
 * `it` (x->a: iteration it's affine addresses); its irregular addresses
 * come from the column.  0 if the history is not that. */
static int loop_run_open(struct rt_run *r, const struct rt_affine *x)
{
    struct commhint_rt_fast *f = &__commhint_fast;
    uint32_t j, i, s;

    if (r->period || r->nhist < x->per)
        return 0;
    for (j = 0; j < x->per; j++) {
        const struct rt_run_ent *e = run_ent(r, x->per - j);
        if (e->key != x->key[j] || e->n != x->n[j])
            return 0;
        for (i = 0; i < x->n[j]; i++) {
            uint32_t idx = x->off[j] + i;
            if (!affine_is_irr(x, idx) && e->a[i] + (uint64_t)x->step[idx] != x->a[idx])
                return 0;
        }
    }
    /* as run_begin: count 0 before the run is visible to a signal handler */
    f->left = CHT_REPEAT_COUNT_MAX;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    for (s = 0, j = 0; j < x->per; j++) {
        const struct rt_run_ent *e = run_ent(r, x->per - j);
        struct commhint_rt_slot *sl = &f->slot[j];
        r->off[j] = s;
        r->n[j] = x->n[j];
        r->key[j] = x->key[j];
        r->irr[j] = r->nirr[j] = r->same[j] = 0;
        for (i = 0; i < x->n[j]; i++) {
            uint32_t idx = x->off[j] + i;
            int64_t d = x->step[idx];
            if (affine_is_irr(x, idx)) {
                r->irr[j] |= 1u << i;
                r->nirr[j]++;
                r->last[j][i] = e->a[i];
                r->prevd[j][i] = 0;
                d = CHT_REPEAT_IRREGULAR;
            } else {
                *run_next(r, j, i) = x->a[idx];
            }
            r->stride[s++] = d;
            if (i < COMMHINT_RT_FAST_ADDRS)
                sl->stride[i] = d;
        }
        sl->key = r->irr[j] ? 0 : x->key[j];
    }
    r->nstrides = s;
    r->ncol = 0;
    r->loop = 1;
    f->period = x->per;
    f->phase = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    r->period = x->per;
    return 1;
}

/* Iterations it.. (before end) that the open run of the loop takes at once:
 * their irregular addresses go into the column as differences (each
 * iteration whole, while they fit 32 bits and the column has room), the
 * affine expectations move, the count last (a signal handler writes the
 * run with the iterations counted).  The number taken.  *strided is set
 * when it stopped at the third iteration in a row whose irregular
 * addresses all moved as in the one before (x[idx[i]] with idx strided
 * after all: a strided REPEAT or the pack holds them in less). */
static uint64_t loop_run_take(struct rt_run *r, const struct commhint_rt_loop_frame *fr, struct rt_affine *x,
                              uint64_t it, uint64_t end, int *strided)
{
    struct commhint_rt_fast *f = &__commhint_fast;
    uint32_t at = run_col_used(r, x->per, run_count(r)), pos[COMMHINT_RT_LOOP_IRR], ai[COMMHINT_RT_LOOP_IRR];
    uint64_t k, most = f->left / x->per;
    uint32_t j, i, q, nsame = 0;

    for (q = 0; q < x->nirr; q++) {
        for (j = 1; j + 1 < x->per && x->off[j + 1] <= x->irr[q]; j++)
            ;
        pos[q] = j;
        ai[q] = x->irr[q] - x->off[j];
    }
    if (!x->nirr) /* affine only: every iteration left, as many as the count allows */
        k = end - it < most ? end - it : most;
    else
        k = 0;
    for (; x->nirr && it + k < end && k < most && at + x->nirr <= RT_RUN_COL_MAX; k++) {
        int64_t d[COMMHINT_RT_LOOP_IRR];
        uint32_t same = 1;
        affine_irr(fr, x, it + k);
        for (q = 0; q < x->nirr; q++) {
            d[q] = (int64_t)(x->a[x->irr[q]] - r->last[pos[q]][ai[q]]);
            if (d[q] < INT32_MIN || d[q] > INT32_MAX)
                break;
            same &= d[q] == r->prevd[pos[q]][ai[q]];
        }
        if (q < x->nirr)
            break;
        if (same && nsame >= 1 && (*strided = 1))
            break;
        nsame = same ? nsame + 1 : 0;
        for (q = 0; q < x->nirr; q++) {
            r->col[at++] = (int32_t)d[q];
            r->prevd[pos[q]][ai[q]] = d[q];
            r->last[pos[q]][ai[q]] = x->a[x->irr[q]];
        }
    }
    if (!k)
        return 0;
    for (j = 0; j < x->per; j++)
        for (i = 0; i < x->n[j]; i++)
            if (!(r->irr[j] >> i & 1))
                *run_next(r, j, i) += k * (uint64_t)x->step[x->off[j] + i];
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    f->left -= (uint32_t)(k * x->per);
    return k;
}

/* The records of iterations it..end-1 of a loop recorded at its exit (the
 * buffer holds their irregular addresses).  A thread whose records go
 * through the queue (the inlined code queues or calls, and a call codes
 * the queued records first) has them coded here directly, in order, as
 * the queue's would be: no append, no call per record.  With runs on (and
 * no stamps), from the second iteration on a run of the loop's period
 * takes them (its irregular addresses in a column, CHT_REC_REPEAT_COL,
 * unless COMMHINT_COLUMNS=0): opened from the loop's structure, with no
 * search, and taken whole iterations at a time; what it cannot take (the
 * run's count reached, a difference past 32 bits, a full column) is coded
 * as the queue's would be, which ends it. */
static void affine_make(const struct commhint_rt_loop_frame *fr, struct rt_affine *x, uint64_t it, uint64_t end)
{
    struct rt_thread *t = tls_thr;
    int direct = t && t->run.on, runs = direct && t->run.search && !t->run.stamp && (t->run.lcols || !x->nirr);
    uint32_t j, i;

    if (direct)
        queue_flush(t);
    while (it < end) {
        /* a run opened only if it takes enough records to count (else its
         * records would be coded into the pack after all) */
        if (runs && (loop_run_goes_on(&t->run, x) ||
                     ((end - it) * x->per >= (t->run.packing ? t->run.min : 2 * x->per) &&
                      loop_run_open(&t->run, x)))) {
            int strided = 0;
            uint64_t k = loop_run_take(&t->run, fr, x, it, end, &strided);
            /* closed if opened for nothing, or strided after all: then
             * the rest go as the queue's records (the search finds the
             * strided run) */
            if (strided || (!k && !run_count(&t->run)))
                run_write(t, 0, 1);
            runs = !strided;
            for (i = 0; i < x->na; i++)
                x->a[i] += k * (uint64_t)x->step[i];
            if ((it += k) == end)
                break;
        }
        affine_irr(fr, x, it);
        for (j = 0; j < x->per; j++) {
            if (!direct)
                affine_call(x->key[j], x->n[j], x->a + x->off[j]);
            else if (RT_LIKELY(queue_id_ok(x->key[j])))
                queue_code(t, x->key[j], x->n[j], j ? x->a + x->off[j] : rt_no_addrs);
        }
        for (i = 0; i < x->na; i++)
            x->a[i] += (uint64_t)x->step[i];
        it++;
    }
    if (direct)
        queue_arm(t);
}

/* After a row took the queued records: the queue starts again. */
static void rows_taken(struct rt_thread *t)
{
    struct rt_queue *q = &t->queue;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __commhint_fast.qpos = q->words;
    q->head = q->words;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    queue_arm(t);
}

/* The loop x (iterations 0..trips-1, all in the frame's buffer) as a row
 * of the calling thread's open ROWS record, after the records queued since
 * the row before (the outer loop's), or as the first row of a new one
 * (the queued records coded as usual first).  1 if taken. */
static int rows_take(struct rt_thread *t, const struct commhint_rt_loop_frame *fr, const struct rt_affine *x,
                     uint64_t trips)
{
    struct rt_rows *w = &t->rows;
    struct rt_queue *q = &t->queue;
    struct commhint_rt_fast *f = &__commhint_fast;
    struct rt_rows_between b;
    uint64_t *p, *end;

    if (!w->on || !x->nirr || trips > COMMHINT_RT_LOOP_BUF || q->busy || w->busy)
        return 0;
    if (!w->rows) {
        if (w->rest) {
            w->rest--;
            return 0;
        }
        goto open;
    }
    b.nb = b.nab = 0;
    end = f->qpos;
    for (p = q->head; p < end;) {
        uint64_t key = p[0];
        int n = queue_n(key);
        /* a record the call would have dropped, or half appended: as usual */
        if (n < 0 || p + 1 + n > end || b.nb == CHT_REPEAT_PERIOD_MAX || !queue_id_ok(key))
            goto close;
        b.key[b.nb] = key;
        b.n[b.nb++] = (uint32_t)n;
        for (int i = 0; i < n; i++)
            b.a[b.nab++] = p[1 + i];
        p += 1 + n;
    }
    if (rt_rows_add(w, x, fr, trips, &b, &q->head, end) > 0)
        goto taken;
close:
    rows_close(t, 0);
open:
    queue_flush(t);
    if (t->run.period)
        run_write(t, 0, 0);
    if (t->pack.len)
        pack_close(t, 0); /* its records come before the rows */
    b.nb = b.nab = 0;
    if (rt_rows_add(w, x, fr, trips, &b, &q->head, q->head) <= 0)
        return 0;
taken:
    rows_taken(t);
    return 1;
}

COMMHINT_EXPORT void __commhint_loop_flush(struct commhint_rt_loop_frame *fr)
{
    struct rt_affine x;
    uint64_t done = *(volatile uint64_t *)&fr->done;

    /* unlinked meanwhile: a fatal signal loses the rest of the buffer
     * (not records twice) */
    __commhint_fast.loop = fr->prev;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (done > fr->made && affine_load(fr, fr->made, &x) && x.nirr) {
        tls_unstamped = 1;
        affine_make(fr, &x, fr->made, done);
        tls_unstamped = 0;
    }
    fr->made = done;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __commhint_fast.loop = fr;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

COMMHINT_EXPORT void __commhint_loop_affine(struct commhint_rt_loop_frame *fr, uint64_t trips)
{
    struct rt_affine x;
    uint64_t it = fr->made;

    __commhint_fast.loop = fr->prev;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    /* a row of the open ROWS record like the ones before it: no need to
     * read the frame's descriptor */
    if (it == 0 && tls_thr && tls_thr->rows.rows >= 3 && !tls_thr->queue.busy &&
        rt_rows_next(&tls_thr->rows, fr, trips, &tls_thr->queue.head, __commhint_fast.qpos)) {
        rows_taken(tls_thr);
        return;
    }
    if (!affine_load(fr, it, &x))
        return;
    tls_unstamped = 1;
    if (trips > it && (!x.nirr || trips - it <= COMMHINT_RT_LOOP_BUF) &&
        !(it == 0 && tls_thr && rows_take(tls_thr, fr, &x, trips)))
        affine_make(fr, &x, it, trips);
    tls_unstamped = 0;
}

COMMHINT_EXPORT void __commhint_mpi_site(uint32_t site)
{
    struct rt_thread *t = tls_thr;
    /* the records before the call are coded before it starts: its time
     * does not take theirs */
    if (t)
        queue_flush(t);
    tls_mpi_site = site_ok(site) ? site : CHT_NONE;
    tls_mpi_site_t = rt_now_ns();
}

COMMHINT_EXPORT void __commhint_mpi_after(uint32_t site, const char *name)
{
    /* a wrapper took the site: the call was recorded */
    if (tls_mpi_site == CHT_NONE || tls_mpi_site != site)
        return;
    rt_mpi_untraced(name, tls_mpi_site_t, __builtin_return_address(0));
    tls_mpi_site = CHT_NONE;
}

COMMHINT_EXPORT void __commhint_extern_call(uint32_t site, const void *callee, const char *name)
{
    if (rt_code_has(callee) || rt_is_off())
        return;
    int saved = errno;
    struct rt_thread *t = tls_thr;
    char buf[CHT_CALLNAME_MAX + 1];
    Dl_info di;
    /* the records before the call are coded before it (those of its
     * callbacks, a qsort comparator, come after) */
    if (t)
        queue_flush(t);
    if (!name) { /* through a function pointer: its symbol, if it has one */
        name = "(function pointer)";
        if (callee && dladdr(callee, &di) && di.dli_sname && di.dli_saddr == callee) {
            snprintf(buf, sizeof buf, "%s", di.dli_sname);
            name = buf;
        }
    }
    uint32_t pending = tls_mpi_site;
    uint64_t pending_t = tls_mpi_site_t;
    tls_mpi_site = site_ok(site) ? site : CHT_NONE;
    rt_mpi_untraced(name, rt_now_ns(), __builtin_return_address(0));
    tls_mpi_site = pending;
    tls_mpi_site_t = pending_t;
    errno = saved;
}

COMMHINT_EXPORT void __commhint_register_code(const void *const *fns, uint32_t n)
{
    int saved = errno;
    if (rt_code_add(fns, n) < 0)
        rt_warn_once(RT_WARN_CODE, "out of memory for the set of instrumented functions: their calls are fences");
    errno = saved;
}

uint32_t rt_take_mpi_site(void)
{
    uint32_t s = tls_mpi_site;
    tls_mpi_site = CHT_NONE;
    return s;
}

/* ---- space for the MPI wrappers ------------------------------------------------ */

void *rt_reserve(size_t bytes)
{
    unsigned char *p;
    if (bytes == 0 || bytes > RT_RESERVE_MAX || (bytes & 7) || rt_is_off())
        return NULL;
    run_break();
    p = space(bytes);
    return p && !rt_is_off() ? p : NULL;
}

void rt_commit(size_t bytes)
{
    struct rt_thread *t = tls_thr;
    const unsigned char *p;
    uint32_t nrec = 0;

    if (!t)
        return;
    /* the caller may have written several records: count them */
    p = t->data + RT_POS_BYTES(t->pos);
    for (size_t off = 0; off + sizeof(struct cht_rec) <= bytes;) {
        struct cht_rec h;
        memcpy(&h, p + off, sizeof(h));
        nrec++;
        if (h.size < sizeof(h))
            break;
        off += h.size;
    }
    advance_n(bytes, nrec);
}

uint64_t rt_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void rt_record_clock(uint32_t which, double wtime, const struct rt_host *host)
{
    struct cht_rec_clock r = {
        .h = {.type = CHT_REC_CLOCK, .aux = (uint16_t)which, .size = sizeof(r)},
        .mono_ns = rt_now_ns(),
        .wtime = wtime,
    };
    if (host) {
        r.cpus = host->cpus;
        r.node_ranks = host->node_ranks;
        r.host_id = host->host_id;
    }
    struct timespec ts;
    void *p;

    clock_gettime(CLOCK_REALTIME, &ts);
    r.real_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    if (!(p = rt_reserve(sizeof(r))))
        return;
    memcpy(p, &r, sizeof(r));
    rt_commit(sizeof(r));
}

/* ---- translation units ----------------------------------------------------------- */

/* NULL if the blob is a well-formed site table, else why not. */
static const char *blob_problem(const void *blob, uint32_t blob_size)
{
    struct cht_tu_header h;

    if (!blob)
        return "no site table";
    if (blob_size < sizeof(h))
        return "site table smaller than its header";
    memcpy(&h, blob, sizeof(h));
    if (h.magic != CHT_TU_MAGIC)
        return "bad site table magic";
    if (h.version != CHT_TU_VERSION)
        return "unknown site table version";
    if (h.header_size < sizeof(h) || h.header_size > blob_size)
        return "bad site table header size";
    if (h.total_size != blob_size)
        return "site table total_size differs from its size";
    if ((uint64_t)h.sites_off + (uint64_t)h.nsites * sizeof(struct cht_site) > blob_size ||
        (uint64_t)h.loops_off + (uint64_t)h.nloops * sizeof(struct cht_loop) > blob_size ||
        (uint64_t)h.access_off + (uint64_t)h.naccess * sizeof(struct cht_access) > blob_size ||
        (uint64_t)h.strings_off + h.strings_size > blob_size)
        return "site table section past its end";
    if (blob_size > CHT_CHUNK_MAX_RAW - sizeof(struct cht_rec_site_table) - 8)
        return "site table too large";
    return NULL;
}

/* Hands out count ids from *next; COMMHINT_RT_BAD_BASE if they would run
 * out (ids stay below it, see commhint-rt.h). */
static uint32_t take_ids(uint32_t *next, uint32_t count)
{
    uint32_t base = __atomic_load_n(next, __ATOMIC_RELAXED);
    do {
        if ((uint64_t)base + count >= COMMHINT_RT_BAD_BASE)
            return COMMHINT_RT_BAD_BASE;
    } while (!__atomic_compare_exchange_n(next, &base, base + count, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return base;
}

COMMHINT_EXPORT void __commhint_register_tu(uint32_t abi_version, const void *blob, uint32_t blob_size,
                                            uint32_t *site_base, uint32_t *loop_base)
{
    int saved = errno;
    const char *why;
    struct cht_tu_header h;
    struct rt_tu *tu;
    uint32_t sb = COMMHINT_RT_BAD_BASE, lb = COMMHINT_RT_BAD_BASE;
    sigset_t old;

    (void)rt_init();
    if (abi_version != COMMHINT_RT_ABI_VERSION) {
        rt_warn_once(RT_WARN_ABI, "ignoring code built for another runtime ABI: abi=%u expected=%u",
                     abi_version, COMMHINT_RT_ABI_VERSION);
        goto out;
    }
    if ((why = blob_problem(blob, blob_size))) {
        rt_warn_once(RT_WARN_BLOB, "ignoring a translation unit: reason=%s", why);
        goto out;
    }
    memcpy(&h, blob, sizeof(h));

    rt_block_signals(&old);
    rt_lock(&rt_g.meta_lock);
    if (rt_g.ntu >= RT_MAX_TUS || (sb = take_ids(&rt_site_limit, h.nsites)) == COMMHINT_RT_BAD_BASE ||
        (lb = take_ids(&rt_loop_limit, h.nloops)) == COMMHINT_RT_BAD_BASE) {
        /* site ids already taken stay unused */
        rt_unlock(&rt_g.meta_lock);
        rt_restore_signals(&old);
        rt_warn_once(RT_WARN_TUFULL, "ignoring a translation unit: reason=too many sites or units");
        sb = lb = COMMHINT_RT_BAD_BASE;
        goto out;
    }
    tu = &rt_g.tus[rt_g.ntu];
    tu->blob = blob;
    tu->blob_size = blob_size;
    tu->site_base = sb;
    tu->nsites = h.nsites;
    tu->loop_base = lb;
    tu->nloops = h.nloops;
    tu->tu_key = h.tu_key;
    tu->late = __atomic_load_n(&rt_g.started, __ATOMIC_ACQUIRE);
    __atomic_store_n(&rt_g.ntu, rt_g.ntu + 1, __ATOMIC_RELEASE);
    if (!rt_is_off()) {
        if (__atomic_load_n(&rt_g.stream_state, __ATOMIC_ACQUIRE) == RT_STREAM_OPEN)
            (void)rt_stream_add_tus(); /* dlopen'ed code: TU + its table in the stream */
        else if (tu->late)
            (void)rt_snapshot_rebuild(); /* the first chunk will carry it */
    }
    rt_unlock(&rt_g.meta_lock);
    rt_restore_signals(&old);
out:
    *site_base = sb;
    *loop_base = lb;
    errno = saved;
}

/* ---- MPI_Init, MPI_Finalize ------------------------------------------------------ */

void rt_mpi_initialized(int world_rank, int world_size, uint64_t run_id)
{
    int saved = errno, opened, next;
    sigset_t old;

    if (rt_init() < 0 || rt_is_off())
        goto out;
    rt_block_signals(&old);
    rt_lock(&rt_g.meta_lock);
    next = 1 - __atomic_load_n(&rt_g.rank_path_cur, __ATOMIC_RELAXED);
    snprintf(rt_g.rank_path[next], PATH_MAX, "%s/" CHT_RANK_FILE_FMT, rt_g.dir, world_rank);
    __atomic_store_n(&rt_g.rank_path_cur, next, __ATOMIC_RELEASE);
    rt_g.rank = world_rank;
    rt_g.world_size = world_size;
    rt_g.run_id = run_id;
    rt_g.mpi_initialized = 1;
    rt_unlock(&rt_g.meta_lock);

    opened = rt_stream_ensure(0);
    if (opened >= 0) {
        rt_lock(&rt_g.meta_lock);
        (void)rt_stream_rename(rt_g.rank_path[next], 0);
        if (opened == 0) {
            /* started before MPI_Init: add what was loaded since */
            (void)rt_stream_add_modules();
            (void)rt_stream_add_tus();
        }
        rt_unlock(&rt_g.meta_lock);
        (void)rt_stream_write_header();
    }
    rt_restore_signals(&old);
    if (world_rank == 0)
        (void)rt_meta_file_write();
    rt_flusher_start();
out:
    errno = saved;
}

void rt_mpi_finalizing(void)
{
    int saved = errno;
    sigset_t old;

    if (!rt_inited || rt_is_off())
        return;
    rt_flusher_stop();
    run_close_own();
    rt_block_signals(&old);
    (void)flush_all(0, 0, 0);
    (void)rt_stream_write_header();
    rt_restore_signals(&old);
    errno = saved;
}

/* ---- the end of the process ------------------------------------------------------ */

/* A thread that is still alive at exit (a detached thread, a pool worker
 * waiting for work, an OpenMP worker) may be in the middle of a run: its
 * records are then only in its run state, which only the thread itself can
 * end.  rt_finish asks it with this signal (chosen far from SIGRTMIN, which
 * programs and libraries take first) and waits at most RT_EXIT_WAIT_NS for
 * all the answers. */
#define RT_SIG_EXIT (SIGRTMAX - 3)
#define RT_EXIT_WAIT_NS 1000000000u /* a loaded machine may take long to schedule them */

/* In the thread rt_finish asked (si_value names its node): ends its run as
 * the fatal-signal handler does, in a buffer emptied first so that the
 * REPEAT record fits, and flushes it.  The run state may have been half
 * updated where the signal came, so what the thread records afterwards is
 * dropped (RT_EXIT_CUT); it would be anyway once rt_finish has flushed. */
static void rt_on_exit_signal(int sig, siginfo_t *si, void *uc)
{
    struct rt_thread *t = tls_thr;
    int saved = errno, answer = RT_EXIT_ANSWERED;
    (void)sig;
    (void)uc;

    if (!t || !si || si->si_code != SI_QUEUE || si->si_pid != getpid() || si->si_value.sival_ptr != t ||
        __atomic_load_n(&t->exit_state, __ATOMIC_ACQUIRE) != RT_EXIT_ASKED)
        goto out;
    if (rt_lock_bounded(&t->lock) < 0)
        goto answer;
    if (t->state == RT_THREAD_ACTIVE &&
        ((run_count(&t->run) && !t->run.busy) || (t->pack.len && !t->pack.busy) ||
         (t->rows.rows && !t->rows.busy) ||
         ((queue_pending(t) || loops_pending()) && !t->run.busy && !t->pack.busy))) {
        (void)flush_locked(t, t->pos, 1, 0);
        t->flushed = 0;
        __atomic_store_n(&t->pos, 0, __ATOMIC_RELEASE);
        rows_close(t, RT_IN_SIGNAL_LOCKED);
        if (run_count(&t->run) && !t->run.busy)
            run_write(t, RT_IN_SIGNAL_LOCKED, 0);
        else
            pack_close(t, RT_IN_SIGNAL_LOCKED);
        queue_spill(t, 1);
        loops_spill(t, 1);
        (void)flush_locked(t, t->pos, 1, 0);
        answer = RT_EXIT_CUT;
    }
    __atomic_store_n(&t->exit_state, answer, __ATOMIC_RELEASE);
    rt_unlock(&t->lock);
    goto out;
answer:
    __atomic_store_n(&t->exit_state, answer, __ATOMIC_RELEASE);
out:
    errno = saved;
}

/* Has every other thread whose run is open end it (rt_on_exit_signal), so
 * that no records are left behind in run state at exit.  Does nothing when
 * no run is open or when the program has its own use of RT_SIG_EXIT.  The
 * handler stays installed: an answer that comes late must not kill the
 * process (the default action of a real-time signal). */
static void close_other_runs(void)
{
    struct rt_thread *self = tls_thr, *t;
    struct sigaction sa, old;
    uint64_t deadline;
    sigset_t blocked;
    int asked = 0;

    for (t = __atomic_load_n(&rt_g.threads, __ATOMIC_ACQUIRE); t; t = t->next)
        if (t != self && __atomic_load_n(&t->state, __ATOMIC_RELAXED) == RT_THREAD_ACTIVE &&
            (__atomic_load_n(&t->run.period, __ATOMIC_RELAXED) || __atomic_load_n(&t->pack.len, __ATOMIC_RELAXED) ||
             __atomic_load_n(&t->rows.rows, __ATOMIC_RELAXED) ||
             __atomic_load_n(&t->queue.on, __ATOMIC_ACQUIRE))) /* its qpos is read under its lock below */
            break;
    if (!t || sigaction(RT_SIG_EXIT, NULL, &old) < 0)
        return;
    if ((old.sa_flags & SA_SIGINFO) ? old.sa_sigaction != rt_on_exit_signal : old.sa_handler != SIG_DFL)
        return;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = rt_on_exit_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigfillset(&sa.sa_mask);
    if (sigaction(RT_SIG_EXIT, &sa, NULL) < 0)
        return;
    for (t = __atomic_load_n(&rt_g.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
        if (t == self)
            continue;
        /* under its lock the thread cannot finish exiting: its id stays valid */
        rt_block_signals(&blocked);
        rt_lock(&t->lock);
        if (t->state == RT_THREAD_ACTIVE &&
            (__atomic_load_n(&t->run.period, __ATOMIC_RELAXED) || __atomic_load_n(&t->pack.len, __ATOMIC_RELAXED) ||
             __atomic_load_n(&t->rows.rows, __ATOMIC_RELAXED) ||
             queue_pending(t))) {
            __atomic_store_n(&t->exit_state, RT_EXIT_ASKED, __ATOMIC_RELEASE);
            if (pthread_sigqueue(t->tid, RT_SIG_EXIT, (union sigval){.sival_ptr = t}) == 0)
                asked++;
            else
                __atomic_store_n(&t->exit_state, RT_EXIT_NONE, __ATOMIC_RELEASE);
        }
        rt_unlock(&t->lock);
        rt_restore_signals(&blocked);
    }
    deadline = rt_now_ns() + RT_EXIT_WAIT_NS;
    while (asked && rt_now_ns() < deadline) {
        struct timespec ts = {0, 100000};
        asked = 0;
        for (t = __atomic_load_n(&rt_g.threads, __ATOMIC_ACQUIRE); t; t = t->next)
            if (__atomic_load_n(&t->exit_state, __ATOMIC_ACQUIRE) == RT_EXIT_ASKED &&
                __atomic_load_n(&t->state, __ATOMIC_RELAXED) == RT_THREAD_ACTIVE)
                asked++;
        if (asked)
            nanosleep(&ts, NULL);
    }
}

void rt_finish(int exit_status)
{
    int saved = errno, meta = 0;
    sigset_t old;

    if (!rt_inited || (__atomic_load_n(&rt_g.off, __ATOMIC_ACQUIRE) & RT_OFF_DISABLED) ||
        __atomic_exchange_n(&rt_g.finishing, 1, __ATOMIC_ACQ_REL))
        goto out;
    rt_flusher_stop();
    run_close_own();
    close_other_runs();
    rt_block_signals(&old);
    /* from here on only this flush writes: other threads' chunks stay before END */
    __atomic_fetch_or(&rt_g.off, RT_OFF_FINISHED, __ATOMIC_ACQ_REL);
    (void)flush_all(0, 1, 0);
    if (__atomic_load_n(&rt_g.stream_state, __ATOMIC_ACQUIRE) == RT_STREAM_OPEN &&
        !(__atomic_load_n(&rt_g.off, __ATOMIC_ACQUIRE) & RT_OFF_FAILED)) {
        rt_lock(&rt_g.meta_lock);
        if (!rt_g.mpi_initialized && rt_g.rank < 0) {
            /* never an MPI process: the provisional stream is rank 0 of 1 */
            snprintf(rt_g.rank_path[1], PATH_MAX, "%s/" CHT_RANK_FILE_FMT, rt_g.dir, 0);
            if (rt_stream_rename(rt_g.rank_path[1], 1) == RT_OK) {
                rt_g.rank = 0;
                rt_g.world_size = 1;
            } else {
                rt_warn_once(RT_WARN_EXIT, "trace kept under a provisional name: file=%s", rt_g.stream.path);
            }
        }
        if (rt_g.world_size == 0 && rt_g.rank == 0)
            rt_g.world_size = 1;
        (void)rt_stream_write_end(exit_status, rt_thread_index_peek());
        rt_unlock(&rt_g.meta_lock);
        (void)rt_stream_write_header();
        meta = 1;
    }
    rt_restore_signals(&old);
    if (meta) {
        if (rt_g.meta_written) {
            if (__atomic_load_n(&rt_g.ntu, __ATOMIC_ACQUIRE) > rt_g.meta_ntu)
                (void)rt_meta_file_write(); /* TUs were registered after it */
        } else if (!rt_g.mpi_initialized && rt_g.rank <= 0) {
            (void)rt_meta_file_write();
        }
    }
out:
    errno = saved;
}

__attribute__((destructor)) static void rt_at_exit(void)
{
    rt_finish(-1);
}

/* ---- fatal signals ------------------------------------------------------------------ */

/* Flushes what is complete, without CHT_REC_END (the reader must see the
 * trace cut short), then lets the signal do what it would have done. */
static void rt_on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    struct sigaction *prev = &rt_old_act[sig];

    if (!(__atomic_load_n(&rt_g.off, __ATOMIC_ACQUIRE) & (RT_OFF_DISABLED | RT_OFF_FINISHED))) {
        struct rt_thread *t = tls_thr;
        /* if the signal's default action follows (it kills), this thread
         * closes the trace (the first thread to get such a signal); a
         * program's own handler may go on: then nothing is closed */
        int none = 0, me = (int)syscall(SYS_gettid);
        int closing = prev->sa_handler == SIG_DFL &&
                       __atomic_compare_exchange_n(&rt_g.dying, &none, me, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        /* this thread's run, unless the signal came while run_write was
         * ending it */
        if (t)
            rows_close(t, 1);
        if (t && run_count(&t->run) && !t->run.busy)
            run_write(t, 1, 0);
        else if (t)
            pack_close(t, 1);
        /* then its queued records; a drain the signal interrupted goes on
         * with them if the program does */
        if (t && (!t->queue.busy || prev->sa_handler == SIG_DFL)) {
            queue_spill(t, 0);
            loops_spill(t, 0);
        }
        (void)flush_all(1, 0, 0);
        (void)rt_stream_write_header();
        /* chunks other threads are writing end before the signal kills
         * the process (a write cut by it leaves a chunk cut short), then
         * no other chunk starts; at most about a second each time, then
         * the signal goes on regardless */
        for (int pass = 0; closing && pass < 2; pass++) {
            struct timespec ms = {0, 1000000};
            for (int i = 0; i < 1000 && __atomic_load_n(&rt_g.writing, __ATOMIC_SEQ_CST) > rt_writing_own(); i++)
                nanosleep(&ms, NULL);
            __atomic_store_n(&rt_g.closed, 1, __ATOMIC_SEQ_CST);
        }
    }
    if (prev->sa_handler == SIG_IGN) {
        errno = saved;
        return;
    }
    if (prev->sa_handler != SIG_DFL) {
        /* the program's handler came first: chain to it */
        if (prev->sa_flags & SA_RESETHAND) {
            struct sigaction dfl;
            memset(&dfl, 0, sizeof(dfl));
            dfl.sa_handler = SIG_DFL;
            sigaction(sig, &dfl, NULL);
        }
        errno = saved;
        if (prev->sa_flags & SA_SIGINFO)
            prev->sa_sigaction(sig, si, uc);
        else
            prev->sa_handler(sig);
        return;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    /* a fault raised by the kernel recurs when we return; anything else is
     * sent again and delivered when the handler's mask is lifted */
    if (!(si && si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL)))
        raise(sig);
    errno = saved;
}
