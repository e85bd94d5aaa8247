/* cxx-namespace.cpp - an MPI call made in a function template of a C++
 * namespace, called from two places (tests/e2e/cxx.sh checks the hints by
 * the markers in the comments).
 *
 * app::max_then_sum<double> reduces its input with MPI_Allreduce
 * (NS-CALL), does work that does not touch the result (NS-INDEP) and then
 * sums the result (NS-USE).  main calls it at NS-FIRST and NS-SECOND, so
 * its hints are shown there, with the path down to the call.  Clang puts
 * the function's debug information inside the namespace's: the path names
 * it max_then_sum<double>, never by its mangled symbol, and the edit, all
 * inside the helper, starts the MPI_Iallreduce at NS-CALL and waits for it
 * before the NS-USE loop (no request travels between functions).
 * Run on 2 ranks.  Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <cstdio>
#include <vector>

namespace app {

constexpr int N = 8192;
constexpr int K = 64;

template <typename T>
__attribute__((noinline)) T max_then_sum(const std::vector<T> &in, std::vector<T> &res, std::vector<T> &w)
{
    MPI_Allreduce(in.data(), res.data(), K, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); /* NS-CALL */
    for (int i = 0; i < N; i++)
        w[i] = w[i] * 0.5 + i; /* NS-INDEP */
    T s = 0;
    for (int i = 0; i < K; i++) /* NS-USE */
        s += res[i];
    return s;
}

} // namespace app

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::vector<double> a(app::K), b(app::K), r(app::K), w(app::N), w2(app::N);
    double t = 0;
    for (int step = 0; step < 10; step++) {
        for (int i = 0; i < app::K; i++) {
            a[i] = rank + i + step;
            b[i] = rank * i - step;
        }
        t += app::max_then_sum(a, r, w); /* NS-FIRST */
        t += app::max_then_sum(b, r, w2); /* NS-SECOND */
    }
    if (rank == 0)
        std::printf("cxx-namespace: %.3f %.3f %.3f\n", t, w[5], w2[7]);
    MPI_Finalize();
    return 0;
}
