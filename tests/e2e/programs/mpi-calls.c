/*
 * mpi-calls.c - an MPI program for exactly 4 ranks that makes every MPI call
 * commhint wraps at least once, with known buffers, counts and tags, so that
 * the end-to-end tests can check the MPI records of its trace fact by fact.
 * Each call of interest carries a marker comment "FACT:<name> " (note the
 * space after the name) at the end of its line; the tests find the line by
 * grepping for the marker.
 *
 * Phases are separated by barriers on MPI_COMM_WORLD so that messages of one
 * phase cannot be confused with another's.  Channels (communicator, sender,
 * receiver, tag) are never reused unless said, so every send and receive
 * below has channel sequence number 1 except the second tag-7 message.
 *
 * Usage: mpi-calls [--init-thread] [--abort]
 *   --init-thread  starts MPI with MPI_Init_thread instead of MPI_Init
 *   --abort        ends with MPI_Abort(MPI_COMM_WORLD, 3) instead of
 *                  MPI_Finalize (the job then exits with an error)
 * Each rank prints one line "mpi-calls: rank R ... ok" (or "BAD ...").
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* gcc takes MPICH's MPI_STATUSES_IGNORE, (MPI_Status *)1, for an array of
 * size 0 and warns; passing it is the point of some calls below. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

static int rank, bad;
static double d100[100], d4s[4], d4r[4], vec[40], v8[8];
static int i10[10], i5[5], i6[6], i3[3], i50s[50], i50r[50], i8[8], i2[2], i4[4];
static int one, one_r, replace[4], some[2];

/* Records a failed check; the summary line then says BAD. */
static void expect(int cond, const char *what)
{
    if (!cond) {
        bad = 1;
        fprintf(stderr, "mpi-calls: rank %d: check failed: %s\n", rank, what);
    }
}

static void p2p_basics(void)
{
    MPI_Status st;
    MPI_Request req;
    if (rank == 0) {
        for (int i = 0; i < 100; i++)
            d100[i] = i;
        for (int i = 0; i < 10; i++)
            i10[i] = 10 + i;
        MPI_Send(d100, 100, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD); /* FACT:send */
        MPI_Ssend(i10, 10, MPI_INT, 1, 7, MPI_COMM_WORLD); /* FACT:ssend */
    } else if (rank == 1) {
        MPI_Recv(d100, 100, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* FACT:recv */
        MPI_Recv(i10, 10, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st); /* FACT:recv_any */
        expect(st.MPI_SOURCE == 0 && d100[99] == 99 && i10[9] == 19, "tag 7 messages");
    } else if (rank == 2) {
        for (int i = 0; i < 5; i++)
            i5[i] = 5 + i;
        MPI_Bsend(i5, 5, MPI_INT, 3, 3, MPI_COMM_WORLD); /* FACT:bsend */
    } else {
        MPI_Recv(i5, 5, MPI_INT, 2, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* FACT:recv_anytag */
        expect(st.MPI_TAG == 3 && i5[4] == 9, "bsend message");
        MPI_Irecv(i6, 6, MPI_INT, 2, 4, MPI_COMM_WORLD, &req); /* FACT:irecv_rsend */
    }
    MPI_Barrier(MPI_COMM_WORLD); /* FACT:barrier_a */
    if (rank == 2) {
        for (int i = 0; i < 6; i++)
            i6[i] = 60 + i;
        MPI_Rsend(i6, 6, MPI_INT, 3, 4, MPI_COMM_WORLD); /* FACT:rsend */
    } else if (rank == 3) {
        MPI_Wait(&req, &st); /* FACT:wait_rsend */
        expect(st.MPI_SOURCE == 2 && i6[5] == 65, "rsend message");
    }
}

static void probes(void)
{
    MPI_Status st;
    int flag = 0;
    if (rank == 1) {
        int v[3] = {1, 2, 3};
        MPI_Send(v, 3, MPI_INT, 0, 11, MPI_COMM_WORLD); /* FACT:send_probed */
    } else if (rank == 0) {
        MPI_Probe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &st); /* FACT:probe */
        expect(st.MPI_SOURCE == 1, "probe source");
        MPI_Iprobe(1, 11, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE); /* FACT:iprobe_found */
        expect(flag, "iprobe finds the probed message");
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &st); /* FACT:iprobe_none */
        expect(!flag, "nothing has tag 99");
        MPI_Recv(i3, 3, MPI_INT, 1, 11, MPI_COMM_WORLD, &st); /* FACT:recv_probed */
        expect(i3[2] == 3, "probed message");
    }
}

/* Every rank sends to its right neighbour and receives from its left. */
static void ring(void)
{
    int right = (rank + 1) % 4, left = (rank + 3) % 4;
    MPI_Request reqs[2];
    for (int i = 0; i < 50; i++)
        i50s[i] = rank * 100 + i;
    MPI_Irecv(i50r, 50, MPI_INT, left, 20, MPI_COMM_WORLD, &reqs[0]); /* FACT:ring_irecv */
    MPI_Isend(i50s, 50, MPI_INT, right, 20, MPI_COMM_WORLD, &reqs[1]); /* FACT:ring_isend */
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE); /* FACT:waitall */
    expect(i50r[49] == left * 100 + 49, "ring message");
    for (int i = 0; i < 4; i++)
        d4s[i] = rank + i / 10.0;
    MPI_Sendrecv(d4s, 4, MPI_DOUBLE, right, 50, d4r, 4, MPI_DOUBLE, left, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* FACT:sendrecv */
    expect(d4r[0] == left, "sendrecv");
    for (int i = 0; i < 4; i++)
        replace[i] = rank;
    MPI_Sendrecv_replace(replace, 4, MPI_INT, left, 51, right, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* FACT:sendrecv_replace */
    expect(replace[3] == right, "sendrecv_replace");
}

static void nonblocking(void)
{
    MPI_Request req, reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st, sts[2];
    int flag = 0, idx = -1, n = 0, done = 0, idxs[2];
    if (rank == 0) {
        for (int i = 0; i < 8; i++)
            i8[i] = 80 + i;
        MPI_Issend(i8, 8, MPI_INT, 2, 21, MPI_COMM_WORLD, &req); /* FACT:issend */
        MPI_Wait(&req, MPI_STATUS_IGNORE); /* FACT:wait_issend */
    } else if (rank == 2) {
        MPI_Irecv(i8, 8, MPI_INT, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &reqs[1]); /* FACT:irecv_any */
        MPI_Waitany(2, reqs, &idx, &st); /* FACT:waitany */
        expect(idx == 1 && st.MPI_SOURCE == 0 && i8[7] == 87, "waitany");
    } else if (rank == 1) {
        MPI_Irecv(i2, 2, MPI_INT, 3, 30, MPI_COMM_WORLD, &req); /* FACT:irecv_test */
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE); /* FACT:test_none */
        expect(!flag, "rank 3 sends only after the barrier");
    }
    MPI_Barrier(MPI_COMM_WORLD); /* FACT:barrier_d */
    if (rank == 3) {
        int v[2] = {31, 32};
        MPI_Ibsend(v, 2, MPI_INT, 1, 30, MPI_COMM_WORLD, &req); /* FACT:ibsend */
        MPI_Wait(&req, &st); /* FACT:wait_ibsend */
    } else if (rank == 1) {
        do
            MPI_Test(&req, &flag, &st); /* FACT:test_loop */
        while (!flag);
        expect(st.MPI_SOURCE == 3 && i2[1] == 32, "test loop");
    }

    /* Ready sends, the remaining Test/Wait flavours and Request_free. */
    if (rank == 1)
        MPI_Irecv(i4, 4, MPI_INT, 0, 40, MPI_COMM_WORLD, &req); /* FACT:irecv_irsend */
    if (rank == 2) {
        MPI_Irecv(&some[0], 1, MPI_INT, 3, 90, MPI_COMM_WORLD, &reqs[0]); /* FACT:irecv_some90 */
        MPI_Irecv(&some[1], 1, MPI_INT, 3, 91, MPI_COMM_WORLD, &reqs[1]); /* FACT:irecv_some91 */
    }
    MPI_Barrier(MPI_COMM_WORLD); /* FACT:barrier_e */
    if (rank == 0) {
        for (int i = 0; i < 4; i++)
            i4[i] = 40 + i;
        MPI_Irsend(i4, 4, MPI_INT, 1, 40, MPI_COMM_WORLD, &req); /* FACT:irsend */
        do
            MPI_Testall(1, &req, &flag, MPI_STATUSES_IGNORE); /* FACT:testall */
        while (!flag);
        one = 600;
        MPI_Isend(&one, 1, MPI_INT, 1, 60, MPI_COMM_WORLD, &req); /* FACT:isend_free */
        MPI_Request_free(&req); /* FACT:request_free */
    } else if (rank == 1) {
        do
            MPI_Testany(1, &req, &idx, &flag, &st); /* FACT:testany */
        while (!flag);
        expect(idx == 0 && i4[3] == 43, "testany");
        MPI_Recv(&one_r, 1, MPI_INT, 0, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* FACT:recv_freed */
        expect(one_r == 600, "message of the freed request");
    } else if (rank == 2) {
        while (done < 2) {
            MPI_Waitsome(2, reqs, &n, idxs, sts); /* FACT:waitsome */
            done += n;
        }
        expect(some[0] == 90 && some[1] == 91, "waitsome");
    } else {
        int v[2] = {90, 91};
        MPI_Isend(&v[0], 1, MPI_INT, 2, 90, MPI_COMM_WORLD, &reqs[0]); /* FACT:isend_some90 */
        MPI_Isend(&v[1], 1, MPI_INT, 2, 91, MPI_COMM_WORLD, &reqs[1]); /* FACT:isend_some91 */
        while (done < 2) {
            MPI_Testsome(2, reqs, &n, idxs, MPI_STATUSES_IGNORE); /* FACT:testsome */
            done += n;
        }
    }
}

/* One element of a vector type: 4 blocks of 2 doubles, stride 5 doubles,
 * so 64 bytes of data spread over (3 * 5 + 2) * 8 = 136 bytes. */
static void derived(void)
{
    MPI_Datatype vt;
    MPI_Type_vector(4, 2, 5, MPI_DOUBLE, &vt);
    MPI_Type_commit(&vt);
    if (rank == 2) {
        for (int i = 0; i < 40; i++)
            vec[i] = i;
        MPI_Send(vec, 1, vt, 0, 70, MPI_COMM_WORLD); /* FACT:send_vector */
    } else if (rank == 0) {
        MPI_Recv(v8, 8, MPI_DOUBLE, 2, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* FACT:recv_vector */
        expect(v8[2] == 5 && v8[7] == 16, "vector");
    }
    MPI_Type_free(&vt);
}

static void collectives(void)
{
    int b10[10], mx[3], g2[2], g8[8], gv[13], sc3[3], sc12[12], svin[10], sv[4];
    int ag[4], agv[6], agvin[2], a2s[8], a2r[8], avs[10], avr[16], rs_in[6], rs_out[2];
    int rsb_in[8], rsb_out[2], scan_in = rank + 1, scan_out = 0, exscan_out = 0;
    double r5[5], r5out[5], agd;
    int scounts[4] = {4, 3, 2, 1}, sdispls[4] = {6, 3, 1, 0};
    int gcounts[4] = {1, 2, 3, 4}, gdispls[4] = {0, 2, 5, 9};
    int agcounts[4] = {1, 1, 2, 2}, agdispls[4] = {0, 1, 2, 4};
    int avscounts[4], avsdispls[4], avrcounts[4], avrdispls[4];
    int rscounts[4] = {1, 2, 1, 2};

    for (int i = 0; i < 10; i++)
        b10[i] = rank == 1 ? 100 + i : 0;
    MPI_Bcast(b10, 10, MPI_INT, 1, MPI_COMM_WORLD); /* FACT:bcast */
    expect(b10[9] == 109, "bcast");

    for (int i = 0; i < 5; i++)
        r5[i] = rank + i;
    MPI_Reduce(r5, r5out, 5, MPI_DOUBLE, MPI_SUM, 2, MPI_COMM_WORLD); /* FACT:reduce */
    expect(rank != 2 || r5out[4] == 22, "reduce");

    for (int i = 0; i < 3; i++)
        mx[i] = rank * 10 + i;
    MPI_Allreduce(MPI_IN_PLACE, mx, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD); /* FACT:allreduce_inplace */
    expect(mx[2] == 32, "allreduce");

    g2[0] = g2[1] = rank;
    MPI_Gather(g2, 2, MPI_INT, g8, 2, MPI_INT, 0, MPI_COMM_WORLD); /* FACT:gather */
    expect(rank != 0 || g8[7] == 3, "gather");

    for (int i = 0; i < 4; i++)
        sv[i] = rank;
    memset(gv, 0, sizeof(gv));
    MPI_Gatherv(sv, rank + 1, MPI_INT, gv, gcounts, gdispls, MPI_INT, 3, MPI_COMM_WORLD); /* FACT:gatherv */
    expect(rank != 3 || (gv[9] == 3 && gv[5] == 2), "gatherv");

    for (int i = 0; i < 12; i++)
        sc12[i] = i;
    MPI_Scatter(sc12, 3, MPI_INT, sc3, 3, MPI_INT, 1, MPI_COMM_WORLD); /* FACT:scatter */
    expect(sc3[0] == rank * 3, "scatter");

    for (int i = 0; i < 10; i++)
        svin[i] = i;
    memset(sv, 0, sizeof(sv));
    MPI_Scatterv(svin, scounts, sdispls, MPI_INT, sv, 4 - rank, MPI_INT, 0, MPI_COMM_WORLD); /* FACT:scatterv */
    expect(sv[0] == sdispls[rank], "scatterv");

    agd = rank;
    double agout[4];
    MPI_Allgather(&agd, 1, MPI_DOUBLE, agout, 1, MPI_DOUBLE, MPI_COMM_WORLD); /* FACT:allgather */
    expect(agout[3] == 3, "allgather");
    (void)ag;

    agvin[0] = agvin[1] = rank;
    MPI_Allgatherv(agvin, agcounts[rank], MPI_INT, agv, agcounts, agdispls, MPI_INT, MPI_COMM_WORLD); /* FACT:allgatherv */
    expect(agv[5] == 3, "allgatherv");

    for (int i = 0; i < 8; i++)
        a2s[i] = rank * 10 + i / 2;
    MPI_Alltoall(a2s, 2, MPI_INT, a2r, 2, MPI_INT, MPI_COMM_WORLD); /* FACT:alltoall */
    expect(a2r[7] == 30 + rank, "alltoall");

    /* Rank r sends j + 1 ints to rank j and receives r + 1 ints from each. */
    for (int j = 0, off = 0; j < 4; off += j + 1, j++) {
        avscounts[j] = j + 1;
        avsdispls[j] = off;
        avrcounts[j] = rank + 1;
        avrdispls[j] = j * (rank + 1);
    }
    for (int i = 0; i < 10; i++)
        avs[i] = rank;
    MPI_Alltoallv(avs, avscounts, avsdispls, MPI_INT, avr, avrcounts, avrdispls, MPI_INT, MPI_COMM_WORLD); /* FACT:alltoallv */
    expect(avr[4 * (rank + 1) - 1] == 3, "alltoallv");

    for (int i = 0; i < 6; i++)
        rs_in[i] = i;
    MPI_Reduce_scatter(rs_in, rs_out, rscounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* FACT:reduce_scatter */
    expect(rs_out[0] == 4 * (rank == 0 ? 0 : rank == 1 ? 1 : rank == 2 ? 3 : 4), "reduce_scatter");

    for (int i = 0; i < 8; i++)
        rsb_in[i] = 1;
    MPI_Reduce_scatter_block(rsb_in, rsb_out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* FACT:reduce_scatter_block */
    expect(rsb_out[1] == 4, "reduce_scatter_block");

    MPI_Scan(&scan_in, &scan_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* FACT:scan */
    expect(scan_out == (rank + 1) * (rank + 2) / 2, "scan");
    MPI_Exscan(&scan_in, &exscan_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* FACT:exscan */
    expect(rank == 0 || exscan_out == rank * (rank + 1) / 2, "exscan");
}

static void communicators(void)
{
    MPI_Comm dup, split, created, cart, row, shared;
    MPI_Group world_group, three;
    int ranks3[3] = {0, 1, 2}, dims[2] = {2, 2}, periods[2] = {1, 1}, remain[2] = {0, 1};
    int x = rank, sum = 0, tok = -1, root_val;

    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* FACT:comm_dup */
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup); /* FACT:allreduce_dup */
    expect(sum == 6, "allreduce on the duplicate");

    /* color 0 = world {0, 2}, color 1 = world {1, 3}; key -rank reverses the
     * order, so world 2 and world 3 are rank 0 of their halves. */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split); /* FACT:comm_split */
    int srank;
    MPI_Comm_rank(split, &srank);
    if (srank == 0)
        MPI_Send(&x, 1, MPI_INT, 1, 80, split); /* FACT:send_split */
    else
        MPI_Recv(&tok, 1, MPI_INT, 0, 80, split, MPI_STATUS_IGNORE); /* FACT:recv_split */
    expect(srank == 0 || tok == rank + 2, "split message");
    root_val = srank == 0 ? 1000 + rank : 0;
    MPI_Bcast(&root_val, 1, MPI_INT, 0, split); /* FACT:bcast_split */
    expect(root_val == 1000 + (rank % 2 == 0 ? 2 : 3), "split bcast");

    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 3, ranks3, &three);
    MPI_Comm_create(MPI_COMM_WORLD, three, &created); /* FACT:comm_create */
    expect((rank == 3) == (created == MPI_COMM_NULL), "comm_create membership");

    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart); /* FACT:cart_create */
    MPI_Cart_sub(cart, remain, &row); /* FACT:cart_sub */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared); /* FACT:split_type */

    MPI_Comm_free(&shared); /* FACT:free_shared */
    MPI_Comm_free(&row); /* FACT:free_row */
    MPI_Comm_free(&cart); /* FACT:free_cart */
    if (created != MPI_COMM_NULL)
        MPI_Comm_free(&created); /* FACT:free_created */
    MPI_Comm_free(&split); /* FACT:free_split */
    MPI_Comm_free(&dup); /* FACT:free_dup */
    MPI_Group_free(&three);
    MPI_Group_free(&world_group);
}

int main(int argc, char **argv)
{
    int thread = 0, abort_at_end = 0, provided, size;
    static char bsend_buf[1 << 16];
    void *detached;
    int detached_size;
    for (int i = 1; i < argc; i++) {
        thread |= strcmp(argv[i], "--init-thread") == 0;
        abort_at_end |= strcmp(argv[i], "--abort") == 0;
    }
    if (thread)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided); /* FACT:init_thread */
    else
        MPI_Init(&argc, &argv); /* FACT:init */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "mpi-calls: needs exactly 4 ranks, got %d\n", size);
        MPI_Finalize();
        return 2;
    }
    MPI_Buffer_attach(bsend_buf, sizeof(bsend_buf));

    p2p_basics();
    MPI_Barrier(MPI_COMM_WORLD); /* FACT:barrier_b */
    probes();
    ring();
    nonblocking();
    derived();
    collectives();
    communicators();

    MPI_Buffer_detach(&detached, &detached_size);
    printf("mpi-calls: rank %d %s\n", rank, bad ? "BAD" : "ok");
    fflush(stdout);
    if (abort_at_end && rank == 0) {
        MPI_Abort(MPI_COMM_WORLD, 3); /* FACT:abort */
        return 3;
    }
    MPI_Finalize(); /* FACT:finalize */
    return 0;
}
