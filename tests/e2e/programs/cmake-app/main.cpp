// main.cpp - the executable of tests/e2e/programs/cmake-app: smoothing
// steps on a block of std::vector<double>, then a sum reduced with a
// blocking MPI_Allreduce that only the end of the step reads, while
// std::transform scales a second field (an overlap hint whose lines are
// all this file's).
#include "exchange.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const std::size_t m = 2048;
    std::vector<double> u(m + 2, 0.0), v(m + 2, 0.0), w(m, 1.0);
    const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    for (std::size_t i = 1; i <= m; i++)
        u[i] = static_cast<double>((static_cast<std::size_t>(rank) * m + i) % 17);
    double total = 0;
    for (int step = 0; step < 50; step++) {
        exchange_ghosts(u, left, right);
        for (std::size_t i = 1; i <= m; i++)
            v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3;
        std::copy(v.begin() + 1, v.end() - 1, u.begin() + 1);
        double local = std::accumulate(u.begin() + 1, u.end() - 1, 0.0), global = 0;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        std::transform(w.begin(), w.end(), w.begin(), [](double x) { return 0.5 * x + 1.0; });
        total += global + w[0];
    }
    if (rank == 0)
        std::printf("cmake_app: total=%.6e\n", total);
    MPI_Finalize();
    return 0;
}
