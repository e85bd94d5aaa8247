/* rma-exchange.c - one-sided communication (tests/e2e/mpi-rma.sh checks it
 * by the markers).  Every pattern starts with a blocking call (the
 * candidate, *-CALL) and an INDEP loop the call does not touch, which can
 * overlap it; then one-sided calls, and a statement that must stay where it
 * is (the window memory or an origin buffer it touches is in use by MPI):
 *   r1 FENCE     rank 0 sends to rank 1 (RMA-FENCE-CALL), INDEP, then both
 *                ranks Put between two MPI_Win_fence and read the window
 *                (RMA-FENCE-READ): never "can run before the wait" of the send;
 *   r2 ORIGIN    rank 1 receives (RMA-ORIGIN-CALL), INDEP, then Puts from
 *                an origin buffer and writes it before the closing fence
 *                (RMA-ORIGIN-WRITE): never listed either;
 *   r3 PASSIVE   rank 0 Win_lock / Put / Win_unlock on rank 1's window; rank
 *                1 receives (RMA-PASSIVE-CALL), INDEP, then MPI_Barrier, then
 *                reads its window (RMA-PASSIVE-READ): the target made no
 *                one-sided call, yet the read must not move above the barrier;
 *   r4 REQUEST   rank 0 sends (RMA-RGET-CALL), INDEP, then MPI_Rget into a
 *                result buffer, MPI_Wait, and reads it (RMA-RGET-READ).
 * Then every other one-sided call once (allocate, accumulates, atomics,
 * lock_all and flushes, the R forms, post-start-complete-wait, shared and
 * dynamic windows, the _c forms), for `commhint dump` and `info`.  Run on 2 ranks; prints one
 * checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#define N 64

static int rank, size;
static double msg[N], win_mem[N], origin[N], result[N];
static double wa[N], wb[N], wc[N], wd[N];
static double sum;

static void fill(double *p, int n, double v)
{
    for (int i = 0; i < n; i++)
        p[i] = v + i;
}

/* r1 */
static void fence_exchange(MPI_Win win)
{
    if (rank == 0) {
        fill(msg, N, 1.0);
        MPI_Send(msg, N, MPI_DOUBLE, 1, 31, MPI_COMM_WORLD); /* RMA-FENCE-CALL */
        for (int i = 0; i < N; i++)
            wa[i] = 0.5 * wa[i] + 1.0; /* RMA-FENCE-INDEP */
    } else {
        MPI_Recv(msg, N, MPI_DOUBLE, 0, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum += msg[2];
    }
    fill(origin, N, 10.0 + rank);
    MPI_Win_fence(0, win);
    MPI_Put(origin, N, MPI_DOUBLE, 1 - rank, 0, N, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    sum += win_mem[3]; /* RMA-FENCE-READ */
}

/* r2 */
static void origin_reuse(MPI_Win win)
{
    if (rank == 0) {
        fill(msg, N, 2.0);
        MPI_Send(msg, N, MPI_DOUBLE, 1, 32, MPI_COMM_WORLD);
    } else {
        MPI_Recv(msg, N, MPI_DOUBLE, 0, 32, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RMA-ORIGIN-CALL */
        for (int i = 0; i < N; i++)
            wb[i] = 0.5 * wb[i] + 2.0; /* RMA-ORIGIN-INDEP */
    }
    MPI_Win_fence(0, win);
    MPI_Put(origin, 4, MPI_DOUBLE, 1 - rank, 8, 4, MPI_DOUBLE, win);
    origin[40] = 7.0 + rank; /* RMA-ORIGIN-WRITE */
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    sum += win_mem[9] + origin[40];
}

/* r3 */
static void passive_target(MPI_Win win)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        fill(origin, N, 20.0);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(origin, N, MPI_DOUBLE, 1, 0, N, MPI_DOUBLE, win);
        MPI_Win_unlock(1, win);
        fill(msg, N, 3.0);
        MPI_Send(msg, N, MPI_DOUBLE, 1, 33, MPI_COMM_WORLD);
    } else {
        MPI_Recv(msg, N, MPI_DOUBLE, 0, 33, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RMA-PASSIVE-CALL */
        for (int i = 0; i < N; i++)
            wc[i] = 0.5 * wc[i] + 3.0; /* RMA-PASSIVE-INDEP */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        sum += win_mem[5] + msg[1]; /* RMA-PASSIVE-READ */
}

/* r4 */
static void request_get(MPI_Win win)
{
    MPI_Request rq;
    if (rank == 0) {
        fill(msg, N, 4.0);
        MPI_Send(msg, N, MPI_DOUBLE, 1, 34, MPI_COMM_WORLD); /* RMA-RGET-CALL */
        for (int i = 0; i < N; i++)
            wd[i] = 0.5 * wd[i] + 4.0; /* RMA-RGET-INDEP */
    } else {
        MPI_Recv(msg, N, MPI_DOUBLE, 0, 34, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Win_lock_all(0, win);
    MPI_Rget(result, N, MPI_DOUBLE, 1 - rank, 0, N, MPI_DOUBLE, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    sum += result[6]; /* RMA-RGET-READ */
    MPI_Win_unlock_all(win);
}

/* every other call once */
static void the_rest(void)
{
    double *mem, one = 1.0, fetched = 0.0, cmp = 0.0, old = 0.0, acc[4] = {1, 2, 3, 4};
    long long ticket = 1, cmpll = 0, got = 0;
    MPI_Win aw, dw, sw;
    MPI_Request rr[3];
    MPI_Aint ssize;
    int sunit;
    double *sh, *peer_base;
    MPI_Group world_group, peer_group;
    int peer = 1 - rank, flag = 0;
    static double dyn[8];

    MPI_Win_allocate(8 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &aw);
    for (int i = 0; i < 8; i++)
        mem[i] = rank;
    MPI_Win_fence(0, aw);
    MPI_Accumulate(acc, 4, MPI_DOUBLE, peer, 0, 4, MPI_DOUBLE, MPI_SUM, aw);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, aw);
    MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, aw);
    MPI_Get_accumulate(&one, 1, MPI_DOUBLE, &fetched, 1, MPI_DOUBLE, peer, 4, 1, MPI_DOUBLE,
                       MPI_SUM, aw);
    MPI_Fetch_and_op(&one, &old, MPI_DOUBLE, peer, 5, MPI_SUM, aw);
    MPI_Compare_and_swap(&ticket, &cmpll, &got, MPI_LONG_LONG, peer, 6, aw);
    MPI_Win_flush(peer, aw);
    MPI_Put_c(&one, 1, MPI_DOUBLE, peer, 7, 1, MPI_DOUBLE, aw);
    MPI_Win_flush_local(peer, aw);
    MPI_Win_unlock(peer, aw);
    MPI_Barrier(MPI_COMM_WORLD);
    sum += mem[0] + mem[4] + fetched + old;

    /* post-start-complete-wait */
    MPI_Win_get_group(aw, &world_group);
    MPI_Group_incl(world_group, 1, &peer, &peer_group);
    MPI_Win_post(peer_group, 0, aw);
    MPI_Win_start(peer_group, 0, aw);
    MPI_Get(result, 2, MPI_DOUBLE, peer, 0, 2, MPI_DOUBLE, aw);
    MPI_Win_complete(aw);
    MPI_Win_wait(aw);
    MPI_Win_post(peer_group, 0, aw);
    MPI_Win_start(peer_group, 0, aw);
    MPI_Win_complete(aw);
    while (!flag)
        MPI_Win_test(aw, &flag);
    MPI_Group_free(&peer_group);
    MPI_Group_free(&world_group);
    sum += result[0] + result[1];

    MPI_Win_lock_all(0, aw);
    MPI_Rput(&one, 1, MPI_DOUBLE, peer, 7, 1, MPI_DOUBLE, aw, &rr[0]);
    MPI_Raccumulate(&one, 1, MPI_DOUBLE, peer, 0, 1, MPI_DOUBLE, MPI_SUM, aw, &rr[1]);
    MPI_Rget_accumulate(NULL, 0, MPI_DOUBLE, &fetched, 1, MPI_DOUBLE, peer, 1, 1, MPI_DOUBLE,
                        MPI_NO_OP, aw, &rr[2]);
    MPI_Waitall(3, rr, MPI_STATUSES_IGNORE);
    MPI_Win_flush_all(aw);
    MPI_Win_flush_local_all(aw);
    MPI_Win_sync(aw);
    MPI_Win_unlock_all(aw);
    MPI_Win_free(&aw);
    sum += fetched;

    /* a shared window: the peer's segment is loaded directly */
    MPI_Win_allocate_shared(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &sh, &sw);
    MPI_Win_lock_all(0, sw);
    sh[0] = rank + 0.5;
    MPI_Win_sync(sw);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(sw);
    MPI_Win_shared_query(sw, peer, &ssize, &sunit, &peer_base);
    sum += peer_base[0];
    MPI_Win_unlock_all(sw);
    MPI_Win_free(&sw);

    /* a dynamic window and the large-count forms */
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw);
    MPI_Win_attach(dw, dyn, sizeof dyn);
    dyn[0] = rank + 0.25;
    MPI_Win_detach(dw, dyn);
    MPI_Win_free(&dw);
    MPI_Win_create_c(dyn, sizeof dyn, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &dw);
    MPI_Win_fence(0, dw);
    MPI_Get_c(result, 2, MPI_DOUBLE, peer, 0, 2, MPI_DOUBLE, dw);
    MPI_Win_fence(0, dw);
    MPI_Win_free(&dw);
    sum += result[0] + (double)ticket + cmp;
}

int main(int argc, char **argv)
{
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "rma-exchange: run on 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    MPI_Win_create(win_mem, sizeof win_mem, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    fence_exchange(win);
    origin_reuse(win);
    passive_target(win);
    request_get(win);
    MPI_Win_free(&win);
    the_rest();
    double total = 0.0;
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        total += wa[i] + wb[i] + wc[i] + wd[i];
    if (rank == 0)
        printf("rma-exchange: sum=%.6e\n", total);
    MPI_Finalize();
    return 0;
}
