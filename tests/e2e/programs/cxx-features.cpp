// cxx-features.cpp - C++ that commhint must trace and hint like C
// (tests/e2e/cxx.sh): a class template holding std::vector buffers that go
// to MPI calls, lambdas given to std::transform and std::sort (whose
// helpers recurse, so not all of them can be inlined), an exception thrown
// through instrumented frames and caught in the loop that makes MPI calls,
// and a std::accumulate after an MPI_Allreduce whose result it does not read
// (an overlap hint whose lines are all this file's).
// Prints one line on rank 0: the sums, the sorted keys' checksum and how
// many exceptions were caught.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <vector>

template <typename T> class Field {
  public:
    explicit Field(std::size_t n) : v_(n) {}
    T *data() { return v_.data(); }
    std::size_t size() const { return v_.size(); }
    std::vector<T> &values() { return v_; }
    void scale(T f)
    {
        std::transform(v_.begin(), v_.end(), v_.begin(), [f](T x) { return x * f; });
    }

  private:
    std::vector<T> v_;
};

// Throws on the steps a check rejects: the catch is in main's loop.
static double checked(double x, long step)
{
    if (step % 7 == 3)
        throw std::runtime_error("step rejected");
    return x + 1.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const std::size_t n = 1024;
    Field<double> mine(n), theirs(n);
    std::vector<long> keys(n);
    const int peer = rank ^ 1;
    long caught = 0;
    double total = 0, sum = 0;
    for (long step = 0; step < 20; step++) {
        for (std::size_t i = 0; i < n; i++)
            mine.values()[i] = static_cast<double>((rank + 1) * (i % 13) + step);
        mine.scale(0.5);
        if (peer < size)
            MPI_Sendrecv(mine.data(), static_cast<int>(n), MPI_DOUBLE, peer, 0, theirs.data(), static_cast<int>(n),
                         MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        try {
            sum = checked(theirs.values()[step], step);
        } catch (const std::runtime_error &) {
            caught++;
        }
        double local = sum, global = 0;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (std::size_t i = 0; i < n; i++)
            keys[i] = static_cast<long>((i * 7919 + static_cast<std::size_t>(step)) % n);
        std::sort(keys.begin(), keys.end(), [](long a, long b) { return a > b; });
        double acc = std::accumulate(theirs.values().begin(), theirs.values().end(), 0.0);
        total += global + acc + static_cast<double>(keys[0]);
    }
    if (rank == 0)
        std::printf("cxx-features: total=%.3f caught=%ld\n", total, caught);
    MPI_Finalize();
    return 0;
}
