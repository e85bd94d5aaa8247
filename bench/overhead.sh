#!/usr/bin/env bash
# bench/overhead.sh - run-time ratio of the Jacobi example built with
# commhint (pass + runtime, tracing to disk) to the same program built plain,
# both at -O2, on RANKS (default 1, 2 and 4; 4 ranks oversubscribe a 2-core
# machine) ranks and two problem sizes.  Runs alternate
# (plain, traced, plain, ...) and the median of REPS runs of each is taken,
# so both see the same machine load.  Writes bench/results/overhead.md.
set -eu
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
REPS=${REPS:-5}
RANKS=${RANKS:-"1 2 4"}
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MPICH_CC=${CLANG:-clang-16} mpicc -std=c11 -O2 -o "$tmp/plain" examples/jacobi.c -lm
traced=$B/examples/O2/jacobi

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc -l; }

{
echo "# Tracing overhead: Jacobi example, -O2"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores; load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Wall time of \`mpiexec\` (start-up included), median of $REPS alternating runs; traced = built with"
echo "\`commhint cc -g -O2\` (make examples) and writing its trace to disk."
echo
echo "| ranks | grid, sweeps | plain (s) | traced (s) | ratio | trace bytes per access |"
echo "|---|---|---|---|---|---|"
for np in $RANKS; do
    for args in "64 50" "256 200"; do
        : >"$tmp/p"; : >"$tmp/t"
        for _ in $(seq "$REPS"); do
            secs mpiexec -n $np "$tmp/plain" $args >>"$tmp/p"
            rm -rf "$tmp/tr"
            COMMHINT_TRACE_DIR=$tmp/tr secs mpiexec -n $np "$traced" $args >>"$tmp/t"
        done
        p=$(median <"$tmp/p"); t=$(median <"$tmp/t")
        bpa=$("$B/bin/commhint" info "$tmp/tr" --format=json | grep -o '"bytes_per_access":[0-9.]*' | cut -d: -f2)
        printf '| %d | %s | %.3f | %.3f | %.2f | %s |\n' $np "$args" "$p" "$t" "$(echo "$t / $p" | bc -l)" "$bpa"
    done
done
echo
echo "Load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$out/overhead.md"
