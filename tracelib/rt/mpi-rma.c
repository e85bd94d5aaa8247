/* mpi-rma.c - wrappers of MPI one-sided communication (RMA): window
 * creation and freeing, the operations (Put, Get, the accumulates, their
 * request-based R forms, the MPI-4 large-count _c forms) and the
 * synchronisations (fence, locks, flushes, post-start-complete-wait, sync).
 *
 * The runtime keeps a window table: handle -> window id, the window's
 * communicator id and size, the world ranks of its group (target ranks are
 * ranks of that group) and a counter of the window's collective calls.  The
 * id agrees across the members: rank 0 of the communicator names it
 * (CHT_WIN_ID_BIT | (its world rank + 1) << 32 | windows it named so far)
 * and broadcasts it over the communicator right after the window was
 * created; window creation is collective over the communicator, so every
 * member takes part.  Ids never equal a communicator id (the top bit).
 *
 * How the fields of the MPI record are used is in trace-format.h (next to
 * CHT_WIN_ID_BIT); what each call reads and writes for the analysis is in
 * docs/dependence.md ("One-sided communication").  The memory a window
 * exposes is recorded at creation (rbuf, rbytes; for a shared window the
 * hull of every member's segment, which this rank can load and store
 * directly) and by Win_attach/Win_detach; the analysis keeps it.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpi-private.h"

/* ---- the window table ------------------------------------------------------- */

struct win_ent {
    MPI_Win handle;
    uint64_t id;      /* agreed window id */
    uint64_t comm;    /* its communicator's id */
    uint32_t size;    /* members */
    uint64_t ncoll;   /* its collective calls so far (creation = 1) */
    int32_t *world;   /* members' world ranks, NULL if unknown */
};

/* What a wrapper needs of a window. */
struct win_view {
    uint64_t id, comm, coll;
    uint32_t size;
    int32_t target; /* world rank of the target asked for, or a CHT_RANK_* */
};

static pthread_mutex_t win_lock = PTHREAD_MUTEX_INITIALIZER;
static struct win_ent *wins;
static size_t nwins, cwins;
static uint64_t wins_named; /* windows this process named as rank 0 */

/* Index of `win` in the table, or nwins.  Caller holds win_lock. */
static size_t win_find_locked(MPI_Win win)
{
    size_t i = 0;
    while (i < nwins && wins[i].handle != win)
        i++;
    return i;
}

/* Looks `win` up: its id (0 if unknown), communicator, size, the world rank
 * of `target` (a rank of its group, or MPI_PROC_NULL; -1: no target) and,
 * with `collective`, the next number of its collective calls. */
static void win_view(MPI_Win win, int target, int collective, struct win_view *v)
{
    *v = (struct win_view){0, CHT_COMM_UNKNOWN, 0, 0, CHT_RANK_NONE};
    pthread_mutex_lock(&win_lock);
    size_t i = win_find_locked(win);
    if (i < nwins) {
        struct win_ent *e = &wins[i];
        v->id = e->id;
        v->comm = e->comm;
        v->size = e->size;
        if (collective)
            v->coll = ++e->ncoll;
        if (target >= 0 && (uint32_t)target < e->size && e->world != NULL)
            v->target = e->world[target];
    }
    pthread_mutex_unlock(&win_lock);
    if (target == MPI_PROC_NULL)
        v->target = CHT_RANK_PROC_NULL;
    if (i >= nwins && win != MPI_WIN_NULL)
        rt_warn_once(MPI_WARN_CALL, "one-sided call on a window commhint did not see created: "
                     "recorded on an unknown window, a fence for the analysis: handle=0x%x",
                     (unsigned)win);
}

/* World ranks of the group of `win` (n members), or NULL. */
static int32_t *win_members(MPI_Win win, int n)
{
    MPI_Group g, world_group;
    int *in = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *out = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int32_t *w = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    int ok = 0;
    if (in == NULL || out == NULL || w == NULL)
        goto out;
    for (int i = 0; i < n; i++)
        in[i] = i;
    if (PMPI_Win_get_group(win, &g) != MPI_SUCCESS)
        goto out;
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    ok = PMPI_Group_translate_ranks(g, n, in, world_group, out) == MPI_SUCCESS;
    PMPI_Group_free(&world_group);
    PMPI_Group_free(&g);
    for (int i = 0; ok && i < n; i++)
        w[i] = out[i] == MPI_UNDEFINED ? CHT_RANK_NONE : out[i];
out:
    free(in);
    free(out);
    if (!ok) {
        free(w);
        w = NULL;
    }
    return w;
}

/* Enters the window `win` just created over ev's communicator (collective
 * over it: one PMPI_Bcast of the id from its rank 0) and sets the record's
 * window id and collective number (1). */
static void win_register(struct mpi_ev *ev, MPI_Win win)
{
    uint64_t id = 0;
    if (ev->cv.rank == 0) {
        pthread_mutex_lock(&win_lock);
        id = CHT_WIN_ID_BIT | (uint64_t)(mpi_world_rank() + 1) << 32 |
             (++wins_named & 0xffffffffu);
        pthread_mutex_unlock(&win_lock);
    }
    PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, ev->comm);
    int32_t *world = win_members(win, ev->cv.size);
    pthread_mutex_lock(&win_lock);
    size_t i = win_find_locked(win);
    if (i == nwins && nwins == cwins) {
        size_t nc = cwins ? 2 * cwins : 8;
        struct win_ent *p = realloc(wins, nc * sizeof(*p));
        if (p != NULL) {
            wins = p;
            cwins = nc;
        }
    }
    int stored = i < cwins;
    if (stored) {
        if (i < nwins)
            free(wins[i].world); /* a stale entry for a reused handle */
        else
            nwins++;
        wins[i] = (struct win_ent){win, id, ev->cv.id, (uint32_t)(ev->cv.size > 0 ? ev->cv.size : 0),
                                   1, world};
    }
    pthread_mutex_unlock(&win_lock);
    if (!stored) {
        free(world);
        rt_warn_once(RT_WARN_TABLES, "cannot grow the window table: its calls are recorded on "
                     "an unknown window: reason=out of memory");
        return;
    }
    if (world == NULL)
        rt_warn_once(RT_WARN_TABLES, "cannot translate the group of a window: its targets are "
                     "recorded as unknown: size=%d", ev->cv.size);
    ev->rec.seq = id;
    ev->rec.rseq = 1;
}

/* Drops `win` from the table (after MPI_Win_free). */
static void win_forget(MPI_Win win)
{
    pthread_mutex_lock(&win_lock);
    size_t i = win_find_locked(win);
    if (i < nwins) {
        free(wins[i].world);
        wins[i] = wins[--nwins];
    }
    pthread_mutex_unlock(&win_lock);
}

/* ---- describing calls ----------------------------------------------------------- */

/* Starts the record of a call on `win`: the window's communicator, id,
 * the world rank of `target` (-1: none) and, for the window's collective
 * calls, their number.  The communicator handle is not used: the user may
 * have freed it since the window was created. */
static void rma_begin(struct mpi_ev *ev, enum cht_mpi_call call, MPI_Win win, int target,
                      int collective, int large, void *ra)
{
    struct win_view v;
    mpi_ev_begin(ev, call, MPI_COMM_NULL, ra);
    win_view(win, target, collective, &v);
    ev->rec.comm = v.comm;
    ev->rec.comm_size = v.size;
    ev->rec.seq = v.id;
    ev->rec.rseq = v.coll;
    if (target != -1)
        ev->rec.peer = v.target;
    if (target == MPI_PROC_NULL)
        ev->rec.flags |= CHT_MPIF_PROC_NULL;
    if (large)
        ev->rec.flags |= CHT_MPIF_LARGE_COUNT;
}

/* An origin buffer of an operation: `count` elements of `type` at buf, read
 * (side 0, sbuf) or written (side 1, rbuf), in use until the operation
 * completes (a held argument range).  `record` 0: only held (the compare
 * buffer of Compare_and_swap). */
static void rma_buf(struct mpi_ev *ev, int side, const void *buf, MPI_Count count,
                    MPI_Datatype type, int record)
{
    struct mpi_type t;
    if (count <= 0)
        return;
    /* buf may be MPI_BOTTOM with a datatype of absolute addresses */
    mpi_type_describe(type, &t);
    uint64_t addr = (uint64_t)(uintptr_t)buf + (uint64_t)t.true_lb;
    int64_t bytes = mpi_type_span(&t, count);
    if (addr == 0 || bytes <= 0)
        return;
    if (record && !ev->counted) {
        ev->counted = 1;
        ev->rec.count = count > INT32_MAX ? INT32_MAX : (int32_t)count;
        ev->rec.datatype = t.size;
    }
    if (record && side == 0) {
        ev->rec.sbuf = addr;
        ev->rec.sbytes = (uint64_t)bytes;
    } else if (record) {
        ev->rec.rbuf = addr;
        ev->rec.rbytes = (uint64_t)bytes;
    }
    mpi_ev_arg(ev, (const void *)(uintptr_t)addr, (size_t)bytes, side, 1);
}

/* Enters the request an R-operation returned, if it succeeded. */
static void rma_request(struct mpi_ev *ev, MPI_Request *req)
{
    mpi_ev_arg(ev, req, sizeof(MPI_Request), 1, 0);
    if (ev->ret != MPI_SUCCESS)
        return;
    struct mpi_req r = {.comm = ev->rec.comm, .comm_handle = MPI_COMM_NULL, .handle = *req};
    ev->rec.request = mpi_req_add(*req, &r);
}

/* ---- window creation and freeing ------------------------------------------------ */

/* The memory every member of a shared window can load and store directly:
 * the hull of their segments (local queries). */
static void shared_hull(struct mpi_ev *ev, MPI_Win win)
{
    uint64_t lo = 0, hi = 0;
    for (int r = 0; r < ev->cv.size; r++) {
        MPI_Aint size = 0;
        int unit;
        void *base = NULL;
        if (PMPI_Win_shared_query(win, r, &size, &unit, &base) != MPI_SUCCESS || size <= 0 ||
            base == NULL)
            continue;
        uint64_t a = (uint64_t)(uintptr_t)base, b = a + (uint64_t)size;
        lo = hi == 0 || a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    ev->rec.rbuf = lo;
    ev->rec.rbytes = hi - lo;
}

/* After a creation call: the window's memory and id. */
static int win_created(struct mpi_ev *ev, MPI_Win *win, const void *base, MPI_Aint size,
                       int shared)
{
    if (ev->ret == MPI_SUCCESS) {
        ev->rec.rbuf = (uint64_t)(uintptr_t)base;
        ev->rec.rbytes = base != NULL && size > 0 ? (uint64_t)size : 0;
        if (shared)
            shared_hull(ev, *win);
        win_register(ev, *win);
    }
    return mpi_ev_end(ev);
}

#define WIN_CREATE(name, call, unit_t, large)                                                  \
    COMMHINT_EXPORT int name(void *base, MPI_Aint size, unit_t disp_unit, MPI_Info info,       \
                             MPI_Comm comm, MPI_Win *win)                                      \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        MPI_EV_BEGIN(&ev, call, comm);                                                         \
        ev.rec.flags |= (large) ? CHT_MPIF_LARGE_COUNT : 0;                                    \
        mpi_ev_arg(&ev, win, sizeof(MPI_Win), 1, 0);                                           \
        MPI_EV_CALL(&ev, P##name(base, size, disp_unit, info, comm, win));                     \
        return win_created(&ev, win, base, size, 0);                                           \
    }

WIN_CREATE(MPI_Win_create, CHT_MPI_WIN_CREATE, int, 0)
WIN_CREATE(MPI_Win_create_c, CHT_MPI_WIN_CREATE, MPI_Aint, 1)

#define WIN_ALLOCATE(name, call, unit_t, large, shared)                                        \
    COMMHINT_EXPORT int name(MPI_Aint size, unit_t disp_unit, MPI_Info info, MPI_Comm comm,    \
                             void *baseptr, MPI_Win *win)                                      \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        MPI_EV_BEGIN(&ev, call, comm);                                                         \
        ev.rec.flags |= (large) ? CHT_MPIF_LARGE_COUNT : 0;                                    \
        mpi_ev_arg(&ev, baseptr, sizeof(void *), 1, 0);                                        \
        mpi_ev_arg(&ev, win, sizeof(MPI_Win), 1, 0);                                           \
        MPI_EV_CALL(&ev, P##name(size, disp_unit, info, comm, baseptr, win));                  \
        return win_created(&ev, win, ev.ret == MPI_SUCCESS ? *(void **)baseptr : NULL, size,   \
                           shared);                                                            \
    }

WIN_ALLOCATE(MPI_Win_allocate, CHT_MPI_WIN_ALLOCATE, int, 0, 0)
WIN_ALLOCATE(MPI_Win_allocate_c, CHT_MPI_WIN_ALLOCATE, MPI_Aint, 1, 0)
WIN_ALLOCATE(MPI_Win_allocate_shared, CHT_MPI_WIN_ALLOCATE_SHARED, int, 0, 1)
WIN_ALLOCATE(MPI_Win_allocate_shared_c, CHT_MPI_WIN_ALLOCATE_SHARED, MPI_Aint, 1, 1)

COMMHINT_EXPORT int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_WIN_CREATE_DYNAMIC, comm);
    mpi_ev_arg(&ev, win, sizeof(MPI_Win), 1, 0);
    MPI_EV_CALL(&ev, PMPI_Win_create_dynamic(info, comm, win));
    return win_created(&ev, win, NULL, 0, 0);
}

COMMHINT_EXPORT int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    struct mpi_ev ev;
    rma_begin(&ev, CHT_MPI_WIN_ATTACH, win, -1, 0, 0, __builtin_return_address(0));
    ev.rec.rbuf = (uint64_t)(uintptr_t)base;
    ev.rec.rbytes = size > 0 ? (uint64_t)size : 0;
    MPI_EV_CALL(&ev, PMPI_Win_attach(win, base, size));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Win_detach(MPI_Win win, const void *base)
{
    struct mpi_ev ev;
    rma_begin(&ev, CHT_MPI_WIN_DETACH, win, -1, 0, 0, __builtin_return_address(0));
    ev.rec.rbuf = (uint64_t)(uintptr_t)base;
    MPI_EV_CALL(&ev, PMPI_Win_detach(win, base));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Win_free(MPI_Win *win)
{
    struct mpi_ev ev;
    MPI_Win w = *win;
    rma_begin(&ev, CHT_MPI_WIN_FREE, w, -1, 1, 0, __builtin_return_address(0));
    mpi_ev_arg(&ev, win, sizeof(MPI_Win), 1, 0);
    MPI_EV_CALL(&ev, PMPI_Win_free(win));
    if (ev.ret == MPI_SUCCESS)
        win_forget(w);
    return mpi_ev_end(&ev);
}

/* ---- operations ------------------------------------------------------------------- */

/* Put and Get (and Rput, Rget): origin read (side 0) or written (side 1). */
#define RMA_PUTGET(name, call, side, buf_t, count_t, large)                                    \
    COMMHINT_EXPORT int name(buf_t origin_addr, count_t origin_count,                          \
                             MPI_Datatype origin_datatype, int target_rank,                    \
                             MPI_Aint target_disp, count_t target_count,                       \
                             MPI_Datatype target_datatype, MPI_Win win)                        \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        rma_begin(&ev, call, win, target_rank, 0, large, __builtin_return_address(0));         \
        rma_buf(&ev, side, origin_addr, origin_count, origin_datatype, 1);                     \
        MPI_EV_CALL(&ev, P##name(origin_addr, origin_count, origin_datatype, target_rank,      \
                                 target_disp, target_count, target_datatype, win));            \
        return mpi_ev_end(&ev);                                                                \
    }

#define RMA_RPUTGET(name, call, side, buf_t, count_t, large)                                   \
    COMMHINT_EXPORT int name(buf_t origin_addr, count_t origin_count,                          \
                             MPI_Datatype origin_datatype, int target_rank,                    \
                             MPI_Aint target_disp, count_t target_count,                       \
                             MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)  \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        rma_begin(&ev, call, win, target_rank, 0, large, __builtin_return_address(0));         \
        rma_buf(&ev, side, origin_addr, origin_count, origin_datatype, 1);                     \
        MPI_EV_CALL(&ev, P##name(origin_addr, origin_count, origin_datatype, target_rank,      \
                                 target_disp, target_count, target_datatype, win, request));   \
        rma_request(&ev, request);                                                             \
        return mpi_ev_end(&ev);                                                                \
    }

RMA_PUTGET(MPI_Put, CHT_MPI_PUT, 0, const void *, int, 0)
RMA_PUTGET(MPI_Put_c, CHT_MPI_PUT, 0, const void *, MPI_Count, 1)
RMA_PUTGET(MPI_Get, CHT_MPI_GET, 1, void *, int, 0)
RMA_PUTGET(MPI_Get_c, CHT_MPI_GET, 1, void *, MPI_Count, 1)
RMA_RPUTGET(MPI_Rput, CHT_MPI_RPUT, 0, const void *, int, 0)
RMA_RPUTGET(MPI_Rput_c, CHT_MPI_RPUT, 0, const void *, MPI_Count, 1)
RMA_RPUTGET(MPI_Rget, CHT_MPI_RGET, 1, void *, int, 0)
RMA_RPUTGET(MPI_Rget_c, CHT_MPI_RGET, 1, void *, MPI_Count, 1)

/* Accumulate and Raccumulate: origin read. */
#define RMA_ACC_ARGS(count_t)                                                                  \
    const void *origin_addr, count_t origin_count, MPI_Datatype origin_datatype,               \
        int target_rank, MPI_Aint target_disp, count_t target_count,                           \
        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win
#define RMA_ACC_CALL                                                                           \
    origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,        \
        target_datatype, op, win

#define RMA_ACC(name, call, count_t, large)                                                    \
    COMMHINT_EXPORT int name(RMA_ACC_ARGS(count_t))                                            \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        rma_begin(&ev, call, win, target_rank, 0, large, __builtin_return_address(0));         \
        mpi_ev_op(&ev, op);                                                                    \
        rma_buf(&ev, 0, origin_addr, origin_count, origin_datatype, 1);                        \
        MPI_EV_CALL(&ev, P##name(RMA_ACC_CALL));                                               \
        return mpi_ev_end(&ev);                                                                \
    }

#define RMA_RACC(name, call, count_t, large)                                                   \
    COMMHINT_EXPORT int name(RMA_ACC_ARGS(count_t), MPI_Request *request)                      \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        rma_begin(&ev, call, win, target_rank, 0, large, __builtin_return_address(0));         \
        mpi_ev_op(&ev, op);                                                                    \
        rma_buf(&ev, 0, origin_addr, origin_count, origin_datatype, 1);                        \
        MPI_EV_CALL(&ev, P##name(RMA_ACC_CALL, request));                                      \
        rma_request(&ev, request);                                                             \
        return mpi_ev_end(&ev);                                                                \
    }

RMA_ACC(MPI_Accumulate, CHT_MPI_ACCUMULATE, int, 0)
RMA_ACC(MPI_Accumulate_c, CHT_MPI_ACCUMULATE, MPI_Count, 1)
RMA_RACC(MPI_Raccumulate, CHT_MPI_RACCUMULATE, int, 0)
RMA_RACC(MPI_Raccumulate_c, CHT_MPI_RACCUMULATE, MPI_Count, 1)

/* Get_accumulate and Rget_accumulate: origin read (not with MPI_NO_OP, where
 * MPI ignores it), result written. */
#define RMA_GACC_ARGS(count_t)                                                                 \
    const void *origin_addr, count_t origin_count, MPI_Datatype origin_datatype,               \
        void *result_addr, count_t result_count, MPI_Datatype result_datatype,                 \
        int target_rank, MPI_Aint target_disp, count_t target_count,                           \
        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win
#define RMA_GACC_CALL                                                                          \
    origin_addr, origin_count, origin_datatype, result_addr, result_count, result_datatype,    \
        target_rank, target_disp, target_count, target_datatype, op, win
#define RMA_GACC_DESCRIBE(call, count_t, large)                                                \
    rma_begin(&ev, call, win, target_rank, 0, large, __builtin_return_address(0));             \
    mpi_ev_op(&ev, op);                                                                        \
    if (op != MPI_NO_OP)                                                                       \
        rma_buf(&ev, 0, origin_addr, origin_count, origin_datatype, 1);                        \
    rma_buf(&ev, 1, result_addr, result_count, result_datatype, 1)

#define RMA_GACC(name, call, count_t, large)                                                   \
    COMMHINT_EXPORT int name(RMA_GACC_ARGS(count_t))                                           \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        RMA_GACC_DESCRIBE(call, count_t, large);                                               \
        MPI_EV_CALL(&ev, P##name(RMA_GACC_CALL));                                              \
        return mpi_ev_end(&ev);                                                                \
    }

#define RMA_RGACC(name, call, count_t, large)                                                  \
    COMMHINT_EXPORT int name(RMA_GACC_ARGS(count_t), MPI_Request *request)                     \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        RMA_GACC_DESCRIBE(call, count_t, large);                                               \
        MPI_EV_CALL(&ev, P##name(RMA_GACC_CALL, request));                                     \
        rma_request(&ev, request);                                                             \
        return mpi_ev_end(&ev);                                                                \
    }

RMA_GACC(MPI_Get_accumulate, CHT_MPI_GET_ACCUMULATE, int, 0)
RMA_GACC(MPI_Get_accumulate_c, CHT_MPI_GET_ACCUMULATE, MPI_Count, 1)
RMA_RGACC(MPI_Rget_accumulate, CHT_MPI_RGET_ACCUMULATE, int, 0)
RMA_RGACC(MPI_Rget_accumulate_c, CHT_MPI_RGET_ACCUMULATE, MPI_Count, 1)

COMMHINT_EXPORT int MPI_Fetch_and_op(const void *origin_addr, void *result_addr,
                                     MPI_Datatype datatype, int target_rank,
                                     MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    struct mpi_ev ev;
    rma_begin(&ev, CHT_MPI_FETCH_AND_OP, win, target_rank, 0, 0, __builtin_return_address(0));
    mpi_ev_op(&ev, op);
    if (op != MPI_NO_OP)
        rma_buf(&ev, 0, origin_addr, 1, datatype, 1);
    rma_buf(&ev, 1, result_addr, 1, datatype, 1);
    MPI_EV_CALL(&ev, PMPI_Fetch_and_op(origin_addr, result_addr, datatype, target_rank,
                                       target_disp, op, win));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                                         void *result_addr, MPI_Datatype datatype,
                                         int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    struct mpi_ev ev;
    rma_begin(&ev, CHT_MPI_COMPARE_AND_SWAP, win, target_rank, 0, 0,
              __builtin_return_address(0));
    rma_buf(&ev, 0, origin_addr, 1, datatype, 1);
    rma_buf(&ev, 0, compare_addr, 1, datatype, 0);
    rma_buf(&ev, 1, result_addr, 1, datatype, 1);
    MPI_EV_CALL(&ev, PMPI_Compare_and_swap(origin_addr, compare_addr, result_addr, datatype,
                                           target_rank, target_disp, win));
    return mpi_ev_end(&ev);
}

/* ---- synchronisation ------------------------------------------------------------- */

COMMHINT_EXPORT int MPI_Win_fence(int assert, MPI_Win win)
{
    struct mpi_ev ev;
    rma_begin(&ev, CHT_MPI_WIN_FENCE, win, -1, 1, 0, __builtin_return_address(0));
    MPI_EV_CALL(&ev, PMPI_Win_fence(assert, win));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    struct mpi_ev ev;
    rma_begin(&ev, CHT_MPI_WIN_LOCK, win, rank, 0, 0, __builtin_return_address(0));
    ev.rec.tag = lock_type == MPI_LOCK_EXCLUSIVE ? CHT_LOCK_EXCLUSIVE : CHT_LOCK_SHARED;
    MPI_EV_CALL(&ev, PMPI_Win_lock(lock_type, rank, assert, win));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Win_lock_all(int assert, MPI_Win win)
{
    struct mpi_ev ev;
    rma_begin(&ev, CHT_MPI_WIN_LOCK_ALL, win, -1, 0, 0, __builtin_return_address(0));
    ev.rec.tag = CHT_LOCK_SHARED;
    MPI_EV_CALL(&ev, PMPI_Win_lock_all(assert, win));
    return mpi_ev_end(&ev);
}

/* Calls with a target rank and the window: Win_unlock, Win_flush(_local). */
#define RMA_TARGET_SYNC(name, call)                                                            \
    COMMHINT_EXPORT int name(int rank, MPI_Win win)                                            \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        rma_begin(&ev, call, win, rank, 0, 0, __builtin_return_address(0));                   \
        MPI_EV_CALL(&ev, P##name(rank, win));                                                  \
        return mpi_ev_end(&ev);                                                                \
    }

RMA_TARGET_SYNC(MPI_Win_unlock, CHT_MPI_WIN_UNLOCK)
RMA_TARGET_SYNC(MPI_Win_flush, CHT_MPI_WIN_FLUSH)
RMA_TARGET_SYNC(MPI_Win_flush_local, CHT_MPI_WIN_FLUSH_LOCAL)

/* Calls with the window alone. */
#define RMA_WIN_SYNC(name, call)                                                               \
    COMMHINT_EXPORT int name(MPI_Win win)                                                      \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        rma_begin(&ev, call, win, -1, 0, 0, __builtin_return_address(0));                     \
        MPI_EV_CALL(&ev, P##name(win));                                                        \
        return mpi_ev_end(&ev);                                                                \
    }

RMA_WIN_SYNC(MPI_Win_unlock_all, CHT_MPI_WIN_UNLOCK_ALL)
RMA_WIN_SYNC(MPI_Win_flush_all, CHT_MPI_WIN_FLUSH_ALL)
RMA_WIN_SYNC(MPI_Win_flush_local_all, CHT_MPI_WIN_FLUSH_LOCAL_ALL)
RMA_WIN_SYNC(MPI_Win_complete, CHT_MPI_WIN_COMPLETE)
RMA_WIN_SYNC(MPI_Win_wait, CHT_MPI_WIN_WAIT)
RMA_WIN_SYNC(MPI_Win_sync, CHT_MPI_WIN_SYNC)

/* Post and start: the group is not recorded (the analysis takes both as
 * synchronisations of the whole window). */
#define RMA_GROUP_SYNC(name, call)                                                             \
    COMMHINT_EXPORT int name(MPI_Group group, int assert, MPI_Win win)                         \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        rma_begin(&ev, call, win, -1, 0, 0, __builtin_return_address(0));                     \
        MPI_EV_CALL(&ev, P##name(group, assert, win));                                         \
        return mpi_ev_end(&ev);                                                                \
    }

RMA_GROUP_SYNC(MPI_Win_post, CHT_MPI_WIN_POST)
RMA_GROUP_SYNC(MPI_Win_start, CHT_MPI_WIN_START)

COMMHINT_EXPORT int MPI_Win_test(MPI_Win win, int *flag)
{
    struct mpi_ev ev;
    rma_begin(&ev, CHT_MPI_WIN_TEST, win, -1, 0, 0, __builtin_return_address(0));
    mpi_ev_arg(&ev, flag, sizeof(int), 1, 0);
    MPI_EV_CALL(&ev, PMPI_Win_test(win, flag));
    if (ev.ret == MPI_SUCCESS && !*flag)
        ev.rec.flags |= CHT_MPIF_NOT_FOUND;
    return mpi_ev_end(&ev);
}
