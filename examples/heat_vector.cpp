// heat_vector.cpp - explicit 1-D heat equation in C++ (C++17): the fields
// are std::vector<double>, the largest change a template, the diagnostics
// a lambda over std::for_each, the arguments checked by exceptions.
//
// Usage: heat_vector [n=4096 [steps=100]]: n points split into blocks over
// the ranks (at least 2 each), a fixed temperature of 1 left of the first
// point and 0 right of the last.  Each step exchanges one ghost point with
// each neighbour (blocking MPI_Sendrecv), updates the block, reduces the
// largest change with a blocking MPI_Allreduce (max), then sums the heat
// and its first moment over the block (std::accumulate, std::for_each),
// which read neither the ghost points nor the reduced change; the change
// is first read at the end of the step.  commhint should report
// **overlap**: the MPI_Allreduce can run while the diagnostics are summed,
// and the exchange while the block's points away from its ends are
// updated; every line it names is the program's own, not the C++
// library's (std::accumulate, std::copy and std::vector's operator[] are
// attributed to the lines that call them).
// Output: `heat_vector: n=4096 steps=100 change=2.421391e-03
// heat=3.326978e+02 moment=9.298022e+02` on rank 0, the same for any
// number of ranks: every point is computed the same way, and the sums are
// added in rank order.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

// The largest |a[i] - b[i]| over the points 1..m.
template <typename T> T max_change(const std::vector<T> &a, const std::vector<T> &b, std::size_t m)
{
    T most = 0;
    for (std::size_t i = 1; i <= m; i++)
        most = std::max(most, std::abs(a[i] - b[i]));
    return most;
}

long argument(int argc, char **argv, int i, long dflt, long lo)
{
    if (argc <= i)
        return dflt;
    std::size_t used = 0;
    long v = 0;
    try {
        v = std::stol(argv[i], &used);
    } catch (const std::logic_error &) { // not a number, or out of range
        used = 0;
    }
    if (!used || used != std::string(argv[i]).size() || v < lo)
        throw std::invalid_argument(std::string("bad argument: ") + argv[i]);
    return v;
}

} // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n, steps;
    try {
        n = argument(argc, argv, 1, 4096, 2L * size);
        steps = argument(argc, argv, 2, 100, 1);
    } catch (const std::exception &e) {
        if (rank == 0)
            std::fprintf(stderr, "heat_vector: %s (usage: heat_vector [n [steps]])\n", e.what());
        MPI_Finalize();
        return 2;
    }
    // this rank's block: n / size points, the first n % size ranks one more
    const long first = rank * (n / size) + std::min<long>(rank, n % size);
    const std::size_t m = static_cast<std::size_t>(n / size + (rank < n % size ? 1 : 0));
    std::vector<double> u(m + 2, 0.0), next(m + 2, 0.0);
    const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    const double r = 0.25;
    if (rank == 0)
        u[0] = 1.0; // the fixed left end

    double change = 0, heat = 0, moment = 0;
    // std::for_each takes a copy: x starts at the block's first point each step
    auto add_moment = [&, x = static_cast<double>(first)](double v) mutable { moment += v * x++; };
    for (long s = 1; s <= steps; s++) {
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[m + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[m], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (rank == 0)
            u[0] = 1.0;
        for (std::size_t i = 1; i <= m; i++)
            next[i] = u[i] + r * (u[i - 1] - 2 * u[i] + u[i + 1]);
        double local = max_change(next, u, m), global = 0;
        std::copy(next.begin() + 1, next.begin() + 1 + static_cast<long>(m), u.begin() + 1);
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        heat += std::accumulate(u.begin() + 1, u.begin() + 1 + static_cast<long>(m), 0.0);
        std::for_each(u.begin() + 1, u.begin() + 1 + static_cast<long>(m), add_moment);
        change = global;
    }
    // the sums in rank order, so that the output does not depend on the
    // number of ranks' rounding
    double mine[2] = {heat, moment};
    std::vector<double> all(2 * static_cast<std::size_t>(size));
    MPI_Gather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double total = 0, first_moment = 0;
        for (int q = 0; q < size; q++) {
            total += all[2 * static_cast<std::size_t>(q)];
            first_moment += all[2 * static_cast<std::size_t>(q) + 1];
        }
        if (!(change > 0 && change < 1 && total > 0 && first_moment > 0)) {
            std::fprintf(stderr, "heat_vector: check failed: change=%g heat=%g moment=%g\n", change, total,
                         first_moment);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        std::printf("heat_vector: n=%ld steps=%ld change=%.6e heat=%.6e moment=%.6e\n", n, steps, change, total,
                    first_moment);
    }
    MPI_Finalize();
    return 0;
}
