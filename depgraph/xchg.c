/* xchg.c - how the processes of a distributed cross-rank stage exchange
 * (depgraph.h, struct dg_xchg): one process, where nothing travels, and K
 * threads of one process, which the tests use to run the distributed
 * algorithms with 2 .. 8 "processes" against the serial answer without MPI.
 * The MPI implementation is the `--parallel` driver's
 * (search/parallel/driver.c). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "depgraph.h"

bool dg_bytes_put(struct dg_bytes *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q)
            return false;
        b->p = q;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, p, n);
    b->len += n;
    return true;
}

void dg_bytes_free(struct dg_bytes *b)
{
    free(b->p);
    *b = (struct dg_bytes){0};
}

struct dg_bytes *dg_bytes_per_proc(int K)
{
    return calloc(K > 0 ? (size_t)K : 1, sizeof(struct dg_bytes));
}

void dg_bytes_per_proc_free(struct dg_bytes *b, int K)
{
    for (int q = 0; b && q < K; q++)
        dg_bytes_free(&b[q]);
    free(b);
}

int dg_xchg_agree(const struct dg_xchg *x, int rc)
{
    int64_t v = rc < 0 ? rc : 0;
    int xrc = x->allreduce(x->ctx, &v, 1, DG_XCHG_MIN);
    if (xrc < 0)
        return xrc;
    return (int)v;
}

int dg_xchg_allgather(const struct dg_xchg *x, int status, const void *mine, size_t len, struct dg_bytes *all)
{
    int K = x->nprocs;
    *all = (struct dg_bytes){0};
    struct dg_bytes *out = dg_bytes_per_proc(K), *in = dg_bytes_per_proc(K);
    int rc = out && in ? status : TRACE_ERR_NOMEM;
    for (int q = 0; rc >= 0 && q < K; q++)
        if (len && !dg_bytes_put(&out[q], mine, len))
            rc = TRACE_ERR_NOMEM;
    if ((rc = dg_xchg_agree(x, rc)) >= 0)
        rc = x->alltoall(x->ctx, 0, out, in);
    if (rc >= 0) {
        for (int q = 0; rc >= 0 && q < K; q++)
            if (in[q].len && !dg_bytes_put(all, in[q].p, in[q].len))
                rc = TRACE_ERR_NOMEM;
        rc = dg_xchg_agree(x, rc);
    }
    if (rc < 0)
        dg_bytes_free(all);
    dg_bytes_per_proc_free(out, K);
    dg_bytes_per_proc_free(in, K);
    return rc < 0 ? rc : 0;
}

static void combine(int64_t *acc, const int64_t *v, int n, enum dg_xchg_op op)
{
    for (int i = 0; i < n; i++)
        switch (op) {
        case DG_XCHG_SUM: acc[i] += v[i]; break;
        case DG_XCHG_MIN: acc[i] = v[i] < acc[i] ? v[i] : acc[i]; break;
        case DG_XCHG_MAX: acc[i] = v[i] > acc[i] ? v[i] : acc[i]; break;
        }
}

/* ---- one process ---------------------------------------------------------------------- */

static int serial_alltoall(void *ctx, int status, struct dg_bytes *out, struct dg_bytes *in)
{
    (void)ctx;
    if (status < 0) {
        dg_bytes_free(&out[0]);
        in[0] = (struct dg_bytes){0};
        return status;
    }
    in[0] = out[0];
    out[0] = (struct dg_bytes){0};
    return in[0].len > 0;
}

static int serial_allreduce(void *ctx, int64_t *v, int n, enum dg_xchg_op op)
{
    (void)ctx;
    (void)v;
    (void)n;
    (void)op;
    return 0;
}

const struct dg_xchg *dg_xchg_serial(void)
{
    static const struct dg_xchg x = {1, 0, NULL, serial_alltoall, serial_allreduce, false};
    return &x;
}

/* ---- K threads ------------------------------------------------------------------------- */

/* Mailboxes box[from * K + to], filled between two barriers and emptied
 * between the next two; the reductions go through red[proc][n]. */
struct group {
    int K;
    pthread_barrier_t bar;
    pthread_mutex_t lock; /* the gate: the threads start fn once all exist */
    pthread_cond_t cond;
    int go;               /* 0 wait, 1 run, -1 give up (a thread could not start) */
    struct dg_bytes *box;
    int *status;       /* [K]: each thread's own status for the step */
    int64_t **red;     /* [K]: each thread's values */
};

struct member {
    struct group *g;
    struct dg_xchg x;
    int (*fn)(const struct dg_xchg *x, void *arg);
    void *arg;
    int rc;
};

static int threads_alltoall(void *ctx, int status, struct dg_bytes *out, struct dg_bytes *in)
{
    struct member *m = ctx;
    struct group *g = m->g;
    int K = g->K, me = m->x.proc, rc = 0;
    bool any = false;
    g->status[me] = status < 0 ? status : 0;
    for (int q = 0; q < K; q++) {
        if (status < 0)
            dg_bytes_free(&out[q]);
        g->box[me * K + q] = out[q];
        out[q] = (struct dg_bytes){0};
    }
    pthread_barrier_wait(&g->bar);
    for (int q = 0; q < K; q++) {
        if (g->status[q] < rc)
            rc = g->status[q];
        for (int t = 0; t < K; t++)
            any |= g->box[q * K + t].len > 0;
    }
    pthread_barrier_wait(&g->bar);
    for (int q = 0; q < K; q++) {
        in[q] = g->box[q * K + me];
        g->box[q * K + me] = (struct dg_bytes){0};
        if (rc < 0)
            dg_bytes_free(&in[q]);
    }
    pthread_barrier_wait(&g->bar);
    return rc < 0 ? rc : any;
}

static int threads_allreduce(void *ctx, int64_t *v, int n, enum dg_xchg_op op)
{
    struct member *m = ctx;
    struct group *g = m->g;
    int me = m->x.proc, rc = 0;
    int64_t *mine = malloc((n > 0 ? (size_t)n : 1) * sizeof *mine);
    g->status[me] = mine ? 0 : TRACE_ERR_NOMEM;
    if (mine)
        memcpy(mine, v, (size_t)n * sizeof *v);
    g->red[me] = mine;
    pthread_barrier_wait(&g->bar);
    for (int q = 0; q < g->K; q++)
        if (g->status[q] < 0)
            rc = TRACE_ERR_NOMEM;
    if (!rc) {
        memcpy(v, g->red[0], (size_t)n * sizeof *v);
        for (int q = 1; q < g->K; q++)
            combine(v, g->red[q], n, op);
    }
    pthread_barrier_wait(&g->bar);
    free(mine);
    return rc;
}

static void *member_main(void *arg)
{
    struct member *m = arg;
    struct group *g = m->g;
    pthread_mutex_lock(&g->lock);
    while (!g->go)
        pthread_cond_wait(&g->cond, &g->lock);
    int go = g->go;
    pthread_mutex_unlock(&g->lock);
    m->rc = go > 0 ? m->fn(&m->x, m->arg) : TRACE_ERR_NOMEM;
    return NULL;
}

int dg_xchg_threads(int K, int (*fn)(const struct dg_xchg *x, void *arg), void *const *args)
{
    if (K < 1 || !fn)
        return TRACE_ERR_ARG;
    struct group g = {.K = K, .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct member *mem = calloc((size_t)K, sizeof *mem);
    pthread_t *th = calloc((size_t)K, sizeof *th);
    g.box = calloc((size_t)K * (size_t)K, sizeof *g.box);
    g.status = calloc((size_t)K, sizeof *g.status);
    g.red = calloc((size_t)K, sizeof *g.red);
    int rc = TRACE_ERR_NOMEM;
    if (!mem || !th || !g.box || !g.status || !g.red || pthread_barrier_init(&g.bar, NULL, (unsigned)K))
        goto out;
    int started = 0;
    for (int i = 0; i < K; i++) {
        mem[i] = (struct member){&g, {K, i, &mem[i], threads_alltoall, threads_allreduce, false}, fn, args ? args[i] : NULL, 0};
        if (pthread_create(&th[i], NULL, member_main, &mem[i]))
            break;
        started++;
    }
    /* fn runs only if every thread exists: the barrier counts K */
    pthread_mutex_lock(&g.lock);
    g.go = started == K ? 1 : -1;
    pthread_cond_broadcast(&g.cond);
    pthread_mutex_unlock(&g.lock);
    rc = started == K ? 0 : TRACE_ERR_NOMEM;
    for (int i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        if (mem[i].rc < rc)
            rc = mem[i].rc;
    }
    pthread_barrier_destroy(&g.bar);
out:
    if (g.box)
        for (int i = 0; i < K * K; i++)
            dg_bytes_free(&g.box[i]);
    free(g.box);
    free(g.status);
    free(g.red);
    free(th);
    free(mem);
    return rc;
}
