#!/usr/bin/env bash
# bench/cost-check.sh - how well the static site costs split the time of a
# gap among its statements (docs/dependence.md, "Estimated time of
# computation events"): each example (and tests/e2e/programs/cost-share.c)
# built with `commhint cc -O2`, run on RANKS (default 2) ranks with
# COMMHINT_STMT_CLOCK=1, and compared by build/bench/cost-check with the
# even split and the weighted one.  The recording's own cost per event
# and per loop record comes from bench/cost-calib.c, a program of trivial
# statements, run the same way first.  Every program is built here with
# COMMHINT_EXIT_LOOPS=0: the records of loops recorded at their exits carry
# no stamp.  Writes bench/results/cost-check.md.
set -eu
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
RANKS=${RANKS:-2}
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CH=$B/bin/commhint
export COMMHINT_EXIT_LOOPS=0

stamped() { # dir program args...
    local d=$1; shift
    COMMHINT_STMT_CLOCK=1 "$CH" run -n "$RANKS" -o "$d" -- "$@" >/dev/null 2>&1
}

"$CH" cc mpicc -g -O2 -o "$tmp/calib" bench/cost-calib.c
stamped "$tmp/calib.trace" "$tmp/calib"
read -r O L < <("$B/bench/cost-check" --calibrate "$tmp/calib.trace")
"$CH" cc mpicc -g -O2 -o "$tmp/cost-share" tests/e2e/programs/cost-share.c -lm

{
echo "# Static costs against measured statement times"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $RANKS ranks, -O2; \`bench/cost-check.sh\`."
echo "Recording cost from bench/cost-calib.c: $O ticks per event, $L per loop record."
echo "Errors are of the split of each gap's measured time (docs/dependence.md)."
for p in jacobi gauss dft master_worker small_sends halo_staging cost-share; do
    bin=$tmp/cost-share
    [ "$p" = cost-share ] || "$CH" cc mpicc -g -O2 -o "$tmp/$p" "examples/$p.c" -lm
    [ "$p" = cost-share ] || bin=$tmp/$p
    rm -rf "$tmp/t"
    stamped "$tmp/t" "$bin"
    echo
    echo "## $p"
    echo
    "$B/bench/cost-check" "$tmp/t" "$O" "$L"
done
} | tee "$out/cost-check.md"
