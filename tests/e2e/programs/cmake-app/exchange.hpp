// exchange.hpp - ghost cells of a 1-D block of std::vector<double>.
#pragma once
#include <vector>

// Sends the block's end cells to its neighbours and receives their ghosts
// (blocking); left or right is MPI_PROC_NULL at the ends.
void exchange_ghosts(std::vector<double> &u, int left, int right);
