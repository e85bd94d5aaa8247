#!/usr/bin/env bash
# CMake projects (issue 21): tests/e2e/programs/cmake-app, a C++ library and
# executable that find MPI with find_package, configured with commhint's
# toolchain file (share/commhint/commhint.cmake) and, separately, with the
# wrapper commhint-mpicxx as CMAKE_CXX_COMPILER: both builds are
# instrumented, print what the plain build prints, and are hinted with
# lines of the project's own files only.
source "$(dirname "$0")/lib.sh"

if ! command -v cmake >/dev/null; then
    not_ok "cmake is installed (make deps installs it)"
    exit 0
fi
app=tests/e2e/programs/cmake-app
cmake_build() { # DIR ARGS...: configure and build, output in DIR.log
    local dir=$1; shift
    cmake -S "$app" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir.log" 2>&1 &&
        cmake --build "$dir" >>"$dir.log" 2>&1
}
if ! cmake_build "$WORK/plain" -DCMAKE_CXX_COMPILER=mpicxx; then
    not_ok "plain CMake build" "$(tail -20 "$WORK/plain.log")"
    exit 0
fi
want=$(mpiexec -n 2 "$WORK/plain/cmake_app" 2>&1)
expect_match "the plain build runs" "$want" '^cmake_app: total='

for how in toolchain wrapper; do
    case $how in
        toolchain) args=(-DCMAKE_TOOLCHAIN_FILE="$B/share/commhint/commhint.cmake") ;;
        wrapper) args=(-DCMAKE_CXX_COMPILER="$B/bin/commhint-mpicxx") ;;
    esac
    dir=$WORK/$how
    if ! CLANG=$CLANG cmake_build "$dir" "${args[@]}"; then
        not_ok "$how: CMake configures and builds" "$(tail -30 "$dir.log")"
        continue
    fi
    ok "$how: CMake configures and builds"
    expect_match "$how: find_package(MPI) finds MPI through the wrapper" "$(cat "$dir.log")" \
        'Found MPI_CXX: .*/commhint-mpicxx'
    nm "$dir/cmake_app" | grep -q ' U __commhint_ev' && ok "$how: the program is instrumented" ||
        not_ok "$how: the program is instrumented" "$(nm "$dir/cmake_app" | grep -c commhint) commhint symbols"
    trace_run "$dir.trace" 2 "$dir/cmake_app"
    expect_eq "$how: traced run exits 0" "$?" 0
    expect_eq "$how: output identical to the plain build" "$(sed '$d' "$dir.trace.out")" "$want"
    expect_match "$how: the library's MPI calls are recorded" "$("$CH" info "$dir.trace" --format=json)" \
        '"MPI_Sendrecv":200,"MPI_Allreduce":100'
    all=$("$CH" hints "$dir.trace" --all --verbose 2>/dev/null)
    expect_match "$how: the MPI_Allreduce overlap hint" "$all" \
        "(^|/)$app/main\.cpp:33:[0-9]+: note: \[overlap\] MPI_Allreduce can overlap with the computation at line 34 "
    expect_match "$how: the library's MPI_Sendrecv overlaps with main's loop" "$all" \
        "(^|/)$app/exchange\.cpp:[0-9]+:[0-9]+: note: \[overlap\] MPI_Sendrecv can overlap with the computation at main\.cpp:30 "
    other=$(grep ': note: ' <<<"$all" | grep -Ev "^([^:]*/)?$app/(main|exchange)\.cpp:" | head -3)
    expect_eq "$how: every hint and related line is the project's" "$other" ""
done
