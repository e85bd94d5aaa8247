/* extern-calls-lib.c - built WITHOUT the pass by tests/e2e/extern-calls.sh
 * (plain mpicc -c): a library routine that reads the buffer it is handed,
 * which the trace cannot see, like a BLAS routine or a file of a library
 * built apart. */
double lib_sum(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}
