/* exit-fault.c - a fault inside a loop recorded at its exit
 * (tests/e2e/exit-loops.sh): every rank fills an array whose end runs into
 * a page it may not write, so the store of iteration 3000 faults.  The
 * fatal-signal handler writes the records of the 3000 iterations done, as
 * the build with every iteration recorded has them.  Usage: exit-fault. */
#include <mpi.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static void fill(double *a, long n, double v)
{
    for (long i = 0; i < n; i++)
        a[i] = v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long page = sysconf(_SC_PAGESIZE), len = 8 * page;
    char *m = mmap(NULL, (size_t)(len + page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED || mprotect(m + len, (size_t)page, PROT_NONE) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    double *a = (double *)(m + len) - 3000;
    fill(a, 100, 1.0); /* a loop that ends */
    MPI_Barrier(MPI_COMM_WORLD);
    fill(a, 5000, 2.0); /* faults at a[3000] */
    printf("exit-fault: not reached\n");
    MPI_Finalize();
    return 0;
}
