/* agg-sendrecv.c - aggregation of exchanges (tests/e2e/aggregate-more.sh,
 * docs/dependence.md "Exchanges"): consecutive MPI_Sendrecv calls with the
 * same destination and source can be one MPI_Sendrecv of packed buffers,
 * and consecutive MPI_Isend to one rank completed together one MPI_Isend.
 * Runs on an even number of ranks (2 or 4).
 *   HALO: a 1-D halo exchange of two fields u and v on a periodic ring,
 *     done with two MPI_Sendrecv per direction in a row: one group per
 *     direction (one group of four on 2 ranks, where left and right are
 *     the same rank);
 *   FACES: x faces then y faces exchanged in place with the partner rank
 *     (rank ^ 1) by two MPI_Sendrecv_replace: one group;
 *   FLOW: the second send's buffer is computed from what the first
 *     exchange received: no group;
 *   DEADLOCK: between two exchanges with the partner, even ranks receive
 *     on another communicator a message the partner sends only after its
 *     first exchange: merging the first exchange into the second would
 *     deadlock, so the group is dropped;
 *   RECVHALF: the same on even ranks, but the partner's first messages
 *     are a send and a receive: it sends the message of the first
 *     exchange's receive half, then the one even ranks wait for, and
 *     receives the first exchange's send half only after: delaying the
 *     send half is harmless, delaying the receive half deadlocks once the
 *     partner's send waits for its receive (large messages), so the group
 *     is dropped too;
 *   ISEND: two MPI_Isend to the right neighbour and two MPI_Irecv from the
 *     left, completed by one MPI_Waitall: the two sends are one group;
 *   ISEND-APART: two MPI_Isend to the right, each completed by its own
 *     MPI_Wait after both started: the first completion does not complete
 *     the second send, so no group.
 * Each section ends with a checksum that reads what it received, so that
 * no group runs from one section into the next. */
#include <mpi.h>
#include <stdio.h>

#define N 64
#define ITERS 4

static double u[N + 2], v[N + 2];         /* HALO: ghosts at 0 and N + 1 */
static double fx[N], fy[N];               /* FACES */
static double a[N], b[N], c[N], d[N];     /* FLOW */
static double p[N], q[N], p2[N], q2[N], w[N]; /* DEADLOCK, RECVHALF */
static double e1[N], e2[N], g1[N], g2[N];  /* ISEND, ISEND-APART: sent */
static double h1[N], h2[N], k1[N], k2[N];  /* received */

static double sum(const double *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

static double halo(int rank, int size, int it)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int i = 1; i <= N; i++) {
        u[i] = rank + i + it;
        v[i] = rank - i + it;
    }
    MPI_Sendrecv(&u[N], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE); /* HALO-UR */
    MPI_Sendrecv(&v[N], 1, MPI_DOUBLE, right, 2, &v[0], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE); /* HALO-VR */
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 3, &u[N + 1], 1, MPI_DOUBLE, right, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE); /* HALO-UL */
    MPI_Sendrecv(&v[1], 1, MPI_DOUBLE, left, 4, &v[N + 1], 1, MPI_DOUBLE, right, 4, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE); /* HALO-VL */
    return sum(u, N + 2) + sum(v, N + 2);
}

static double faces(int rank, int it)
{
    int partner = rank ^ 1;
    for (int i = 0; i < N; i++) {
        fx[i] = rank * i + it;
        fy[i] = rank + i * it;
    }
    MPI_Sendrecv_replace(fx, N, MPI_DOUBLE, partner, 5, partner, 5, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE); /* FACES-X */
    MPI_Sendrecv_replace(fy, N, MPI_DOUBLE, partner, 6, partner, 6, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE); /* FACES-Y */
    return sum(fx, N) + sum(fy, N);
}

static double flow(int rank, int size, int it)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int i = 0; i < N; i++)
        a[i] = rank + i + it;
    MPI_Sendrecv(a, N, MPI_DOUBLE, right, 7, b, N, MPI_DOUBLE, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE); /* FLOW-1 */
    for (int i = 0; i < N; i++)
        c[i] = 2 * b[i];
    MPI_Sendrecv(c, N, MPI_DOUBLE, right, 8, d, N, MPI_DOUBLE, left, 8, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE); /* FLOW-2 */
    return sum(d, N);
}

static double deadlock(int rank, int it, MPI_Comm side)
{
    int partner = rank ^ 1;
    for (int i = 0; i < N; i++) {
        p[i] = rank + i + it;
        p2[i] = rank - i - it;
    }
    MPI_Sendrecv(p, N, MPI_DOUBLE, partner, 9, q, N, MPI_DOUBLE, partner, 9, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE); /* DL-1 */
    if (rank % 2 == 0) {
        MPI_Recv(w, N, MPI_DOUBLE, partner, 10, side, MPI_STATUS_IGNORE); /* DL-W */
    } else {
        for (int i = 0; i < N; i++)
            w[i] = q[i] + 1;
        MPI_Send(w, N, MPI_DOUBLE, partner, 10, side); /* DL-S */
    }
    MPI_Sendrecv(p2, N, MPI_DOUBLE, partner, 11, q2, N, MPI_DOUBLE, partner, 11, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE); /* DL-2 */
    return sum(q, N) + sum(q2, N) + sum(w, N);
}

static double recvhalf(int rank, int it, MPI_Comm side)
{
    int partner = rank ^ 1;
    for (int i = 0; i < N; i++) {
        p[i] = rank + i + it;
        p2[i] = rank - i - it;
    }
    if (rank % 2 == 0) {
        MPI_Sendrecv(p, N, MPI_DOUBLE, partner, 12, q, N, MPI_DOUBLE, partner, 13, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE); /* RH-1 */
        MPI_Recv(w, N, MPI_DOUBLE, partner, 14, side, MPI_STATUS_IGNORE); /* RH-W */
        MPI_Sendrecv(p2, N, MPI_DOUBLE, partner, 15, q2, N, MPI_DOUBLE, partner, 15, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE); /* RH-2 */
    } else {
        MPI_Send(p, N, MPI_DOUBLE, partner, 13, MPI_COMM_WORLD); /* RH-S */
        MPI_Send(p2, N, MPI_DOUBLE, partner, 14, side);
        MPI_Recv(q, N, MPI_DOUBLE, partner, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(p2, N, MPI_DOUBLE, partner, 15, q2, N, MPI_DOUBLE, partner, 15, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    return sum(q, N) + sum(q2, N) + sum(w, N);
}

static double isend(int rank, int size, int it)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Request req[4];
    for (int i = 0; i < N; i++) {
        e1[i] = rank + i + it;
        e2[i] = rank * i - it;
    }
    MPI_Irecv(h1, N, MPI_DOUBLE, left, 16, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(h2, N, MPI_DOUBLE, left, 17, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(e1, N, MPI_DOUBLE, right, 16, MPI_COMM_WORLD, &req[2]); /* IS-1 */
    MPI_Isend(e2, N, MPI_DOUBLE, right, 17, MPI_COMM_WORLD, &req[3]); /* IS-2 */
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    return sum(h1, N) + sum(h2, N);
}

static double isend_apart(int rank, int size, int it)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Request req[4];
    for (int i = 0; i < N; i++) {
        g1[i] = rank + i * it;
        g2[i] = rank - i * it;
    }
    MPI_Irecv(k1, N, MPI_DOUBLE, left, 18, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(k2, N, MPI_DOUBLE, left, 19, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(g1, N, MPI_DOUBLE, right, 18, MPI_COMM_WORLD, &req[2]); /* IA-1 */
    MPI_Isend(g2, N, MPI_DOUBLE, right, 19, MPI_COMM_WORLD, &req[3]); /* IA-2 */
    MPI_Wait(&req[2], MPI_STATUS_IGNORE);
    MPI_Wait(&req[3], MPI_STATUS_IGNORE);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    return sum(k1, N) + sum(k2, N);
}

int main(int argc, char **argv)
{
    int rank, size;
    double s = 0;
    MPI_Comm side;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2) {
        if (rank == 0)
            fprintf(stderr, "agg-sendrecv: run on an even number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &side);
    for (int it = 0; it < ITERS; it++) {
        s += halo(rank, size, it);
        s += faces(rank, it);
        s += flow(rank, size, it);
        s += deadlock(rank, it, side);
        s += recvhalf(rank, it, side);
        s += isend(rank, size, it);
        s += isend_apart(rank, size, it);
    }
    MPI_Comm_free(&side);
    if (rank == 0)
        printf("agg-sendrecv: %g\n", s);
    MPI_Finalize();
    return 0;
}
