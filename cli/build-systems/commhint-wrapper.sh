#!/bin/sh
# commhint-WRAPPER - `commhint cc WRAPPER ARGS...` as one command, for build
# systems that take a compiler's path: CMake's CMAKE_C_COMPILER and
# CMAKE_CXX_COMPILER (or the toolchain file share/commhint/commhint.cmake),
# autotools' CC and CXX, a Makefile's CC.  Installed next to `commhint`
# as commhint-mpicc, commhint-mpicxx, commhint-clang and commhint-clang++;
# the compiler it runs is this file's name after "commhint-".
self=$(readlink -f "$0") || exit 1
case ${0##*/} in
    commhint-clang) compiler=${CLANG:-clang-16} ;;
    commhint-clang++) compiler=${CLANGXX:-clang++-16} ;;
    commhint-*) compiler=${0##*/commhint-} ;;
    *) echo "commhint wrapper: cannot tell the compiler from the name: name=${0##*/}" >&2; exit 2 ;;
esac
exec "${self%/*}/commhint" cc "$compiler" "$@"
