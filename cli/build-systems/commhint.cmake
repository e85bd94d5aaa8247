# commhint.cmake - CMake toolchain file: every C and C++ file of the
# project is compiled and linked with `commhint cc` through the MPI
# wrappers (mpicc, mpicxx), so the program is instrumented and linked with
# the trace runtime without changing its CMakeLists.txt:
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/commhint/commhint.cmake -B build
#
# (<prefix> is where commhint is installed, or commhint's own build
# directory.)  The MPI wrappers already compile and link MPI, so
# find_package(MPI) finds it through them.  Set COMMHINT_MPICC or
# COMMHINT_MPICXX (cache or environment) to use other wrapper names.
get_filename_component(_commhint_prefix "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
if(NOT EXISTS "${_commhint_prefix}/bin/commhint")
  message(FATAL_ERROR "commhint.cmake: commhint is not installed next to this file: "
                      "expected=${_commhint_prefix}/bin/commhint")
endif()
set(CMAKE_C_COMPILER "${_commhint_prefix}/bin/commhint-mpicc")
set(CMAKE_CXX_COMPILER "${_commhint_prefix}/bin/commhint-mpicxx")
