/* coll-repeat.c - repeated collectives that can or cannot be one call
 * (issue 16, item 1; tests/e2e/collectives-repeat.sh checks it by the
 * markers, written below without their comment delimiters).  Each pattern
 * is a run of consecutive collectives on MPI_COMM_WORLD; a barrier ends it.
 *   r1 MPI_Allreduce MPI_MIN, MPI_MAX, MPI_SUM of a long (R1-*): three
 *      operators, no one call: no hint;
 *   r2 MPI_Reduce MPI_SUM then MPI_MAX of a double (R2-*): no hint;
 *   r3 two MPI_Allreduce MPI_SUM of doubles (R3-*): one MPI_Allreduce;
 *   r4 MPI_Allreduce MPI_SUM of a long, then of a double (R4-*): one op,
 *      two types, no predefined datatype covers both: no hint;
 *   r5 MPI_Bcast of a count, then MPI_Bcast of that many doubles (R5-*):
 *      the second call's count is the first's result: no hint;
 *   r6 MPI_Bcast of 4 ints, then of 4 doubles, independent (R6-*): one
 *      MPI_Bcast with a derived datatype;
 *   r7 MPI_Bcast of 0 doubles, then of 0 ints (R7-*): nothing moves, no hint.
 * Run on 2 or 4 ranks.  Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;
static double sum;

static void r1(void)
{
    long v = rank + 1, lo, hi, tot;
    MPI_Allreduce(&v, &lo, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD); /* R1-A */
    MPI_Allreduce(&v, &hi, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD); /* R1-B */
    MPI_Allreduce(&v, &tot, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD); /* R1-C */
    sum += (double)(lo + hi + tot);
}

static void r2(void)
{
    double v = 0.5 * rank, s = 0, m = 0;
    MPI_Reduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); /* R2-A */
    MPI_Reduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD); /* R2-B */
    sum += s + m;
}

static void r3(void)
{
    double a = rank, b = 2.0 * rank, ga, gb;
    MPI_Allreduce(&a, &ga, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* R3-A */
    MPI_Allreduce(&b, &gb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* R3-B */
    sum += ga + gb;
}

static void r4(void)
{
    long a = rank, ga;
    double b = 0.25 * rank, gb;
    MPI_Allreduce(&a, &ga, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD); /* R4-A */
    MPI_Allreduce(&b, &gb, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* R4-B */
    sum += (double)ga + gb;
}

static void r5(void)
{
    int n = rank == 0 ? 8 : 0;
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD); /* R5-A */
    double *buf = calloc((size_t)n, sizeof *buf);
    if (rank == 0)
        for (int i = 0; i < n; i++)
            buf[i] = i;
    MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* R5-B */
    for (int i = 0; i < n; i++)
        sum += buf[i];
    free(buf);
}

static void r6(void)
{
    int ia[4];
    double da[4];
    for (int i = 0; i < 4; i++) {
        ia[i] = rank == 0 ? i : -1;
        da[i] = rank == 0 ? 0.5 * i : -1.0;
    }
    MPI_Bcast(ia, 4, MPI_INT, 0, MPI_COMM_WORLD); /* R6-A */
    MPI_Bcast(da, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* R6-B */
    for (int i = 0; i < 4; i++)
        sum += ia[i] + da[i];
}

static void r7(void)
{
    double d[1] = {0};
    int k[1] = {0};
    MPI_Bcast(d, 0, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* R7-A */
    MPI_Bcast(k, 0, MPI_INT, 0, MPI_COMM_WORLD); /* R7-B */
    sum += d[0] + k[0];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    void (*pattern[])(void) = {r1, r2, r3, r4, r5, r6, r7};
    for (int it = 0; it < 3; it++)
        for (size_t p = 0; p < sizeof pattern / sizeof *pattern; p++) {
            pattern[p]();
            MPI_Barrier(MPI_COMM_WORLD);
        }
    double total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll-repeat: sum=%.6e\n", total);
    MPI_Finalize();
    return 0;
}
