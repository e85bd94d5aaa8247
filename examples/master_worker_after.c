/*
 * master_worker_after.c - examples/master_worker.c after applying
 * commhint's collective hints (docs/case-studies.md).  Same computation,
 * same output for the same arguments.
 *
 * What commhint said about master_worker.c (traced at -O2 on 4 ranks):
 * the four hand-written loops of MPI_Send/MPI_Recv are an MPI_Bcast (the
 * parameter block), an MPI_Scatter (the task table), an MPI_Gather (the
 * results) and an MPI_Reduce (the partial sums); and the two sends to one
 * worker (and the two back to rank 0) can travel as one message.  What
 * changed: the four loops are the four collectives.  The aggregation hints
 * go away with them (there are no point-to-point messages left to merge).
 *
 * Not applied: the overlap hints on rank 0's sends and receives (its own
 * share of the work could run while the workers' results arrive).  With
 * the collectives that needs MPI_Ibcast/MPI_Iscatter/MPI_Igather, which
 * commhint does not trace, so the result could not be checked with it.
 *
 * The partial sums are now added by MPI_Reduce, in MPICH's order instead of
 * rank order; they are only compared with the gathered total (to 1e-12),
 * which is still summed in task order, so the output does not change.
 *
 * Usage: master_worker_after [tasks [rounds]]   defaults: tasks=96 rounds=10
 *        tasks must be divisible by the number of ranks.
 */
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG_PARAMS = 1, TAG_TASKS = 2, TAG_RESULTS = 3, TAG_PARTIAL = 4 };
enum { NCOEF = 5, NPARAM = 8, SIMPSON_INTERVALS = 4 };

/*
 * Stops the job on a bad configuration that every rank detects: rank 0
 * prints the message and aborts, the others wait in a barrier so that they
 * cannot end the job before the message is out.
 */
static void die_config(int rank, const char *fmt, ...)
{
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fputs("master_worker_after: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Returns argv[idx] as an integer in [min, 10000000], or def if it is absent. */
static int arg_int(int argc, char **argv, int idx, int def, int min, int rank)
{
    if (argc <= idx)
        return def;
    char *end;
    long v = strtol(argv[idx], &end, 10);
    if (*end != '\0' || v < min || v > 10000000)
        die_config(rank, "bad argument: position=%d value=%s min=%d max=%d", idx, argv[idx], min,
                   10000000);
    return (int)v;
}

/* params: c0..c4, domain start, domain end, Simpson intervals per task. */
static double poly(const double *params, double x)
{
    double y = 0.0;
    for (int k = NCOEF - 1; k >= 0; k--)
        y = y * x + params[k];
    return y;
}

static double simpson(const double *params, double lo, double hi)
{
    int m = (int)params[7];
    double h = (hi - lo) / m, s = poly(params, lo) + poly(params, hi);
    for (int i = 1; i < m; i++)
        s += (i % 2 ? 4.0 : 2.0) * poly(params, lo + i * h);
    return s * h / 3.0;
}

static double exact(const double *params, double lo, double hi)
{
    double s = 0.0;
    for (int k = 0; k < NCOEF; k++)
        s += params[k] * (pow(hi, k + 1) - pow(lo, k + 1)) / (k + 1);
    return s;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int ntasks = arg_int(argc, argv, 1, 96, 1, rank);
    int rounds = arg_int(argc, argv, 2, 10, 1, rank);
    if (ntasks % size != 0)
        die_config(rank, "tasks must be divisible by the ranks: tasks=%d ranks=%d", ntasks, size);
    int chunk = ntasks / size;

    double *params = malloc(NPARAM * sizeof *params);
    double *tasks = malloc(2 * (size_t)ntasks * sizeof *tasks);   /* [lo, hi] pairs */
    double *results = malloc((size_t)ntasks * sizeof *results);   /* slice q: rank q */
    double *sums = malloc(2 * sizeof *sums);   /* my partial sum, the reduced one */
    if (!params || !tasks || !results || !sums) {
        fprintf(stderr, "master_worker_after: out of memory: rank=%d tasks=%d\n", rank, ntasks);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    double grand_total = 0.0, max_error = 0.0;
    for (int r = 0; r < rounds; r++) {
        if (rank == 0) {
            /* Master: build and hand out this round's parameters and tasks. */
            for (int k = 0; k < NCOEF; k++)
                params[k] = (1 + (r + 2 * k) % 5) * (k % 2 ? -0.5 : 1.0) / (k + 1);
            params[5] = 0.0;
            params[6] = 2.0;
            params[7] = SIMPSON_INTERVALS;
            double width = (params[6] - params[5]) / ntasks;
            for (int t = 0; t < ntasks; t++) {
                tasks[2 * t] = params[5] + t * width;
                tasks[2 * t + 1] = params[5] + (t + 1) * width;
            }
        }
        MPI_Bcast(params, NPARAM, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        /* Rank 0's slice is already at the start of its table. */
        MPI_Scatter(tasks, 2 * chunk, MPI_DOUBLE, rank == 0 ? MPI_IN_PLACE : tasks, 2 * chunk,
                    MPI_DOUBLE, 0, MPI_COMM_WORLD);

        /* Every rank: its own slice (rank 0's slice is at the start). */
        sums[0] = 0.0;
        for (int t = 0; t < chunk; t++) {
            results[t] = simpson(params, tasks[2 * t], tasks[2 * t + 1]);
            sums[0] += results[t];
        }

        /* Rank 0's results are already in the first slice. */
        MPI_Gather(rank == 0 ? MPI_IN_PLACE : results, chunk, MPI_DOUBLE, results, chunk, MPI_DOUBLE,
                   0, MPI_COMM_WORLD);
        MPI_Reduce(&sums[0], &sums[1], 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            double acc = sums[1];
            /* Fixed task order, so the total does not depend on the ranks. */
            double total = 0.0;
            for (int t = 0; t < ntasks; t++)
                total += results[t];
            double want = exact(params, params[5], params[6]);
            if (fabs(acc - total) > 1e-12 * (1.0 + fabs(total)) ||
                fabs(total - want) > 1e-6 * (1.0 + fabs(want))) {
                fprintf(stderr, "master_worker_after: wrong total: round=%d total=%.17g reduced=%.17g "
                                "exact=%.17g\n", r, total, acc, want);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            grand_total += total;
            max_error = fmax(max_error, fabs(total - want));
        }
    }

    if (rank == 0)
        printf("master_worker: tasks=%d rounds=%d total=%.6e max_error=%.6e OK\n", ntasks, rounds,
               grand_total, max_error);

    free(params);
    free(tasks);
    free(results);
    free(sums);
    MPI_Finalize();
    return 0;
}
