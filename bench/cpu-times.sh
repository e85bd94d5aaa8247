#!/usr/bin/env bash
# bench/cpu-times.sh - what recording the thread's CPU time around every MPI
# call costs (CHT_REC_CPU, docs/prediction.md "Ranks that share CPUs"):
# the small_sends example (ten small messages per rank and step), built
# with commhint at -O2 and traced with COMMHINT_CPU_TIMES=0 and =1,
# alternating, REPS runs each (median), on RANKS ranks (default 2, one per
# core, where the runtime would not record them, and 4, oversubscribed on
# a 2-core machine, where it does by default).  The time is the trace's
# duration (`commhint info`: the longest rank, first to last MPI call).
# Writes bench/results/cpu-times.md.
set -eu
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
REPS=${REPS:-7}
RANKS=${RANKS:-"2 4"}
ARGS=${ARGS:-"4096 4000"}
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$B/examples/O2/small_sends
[ -x "$bin" ] || { echo "bench/cpu-times.sh: no $bin (make examples)" >&2; exit 1; }

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# span CPU_TIMES NP: one traced run's duration in seconds
span() {
    rm -rf "$tmp/tr"
    # shellcheck disable=SC2086
    COMMHINT_CPU_TIMES=$1 "$CH" run -n "$2" -o "$tmp/tr" -- "$bin" $ARGS >/dev/null 2>&1
    "$CH" info "$tmp/tr" --format=json | jq .duration_s
}

{
echo "# Cost of the CPU times of MPI calls"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores; load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "small_sends $ARGS, traced (commhint cc -g -O2), the trace's duration (longest rank, first to"
echo "last MPI call), median of $REPS alternating runs each."
echo
echo "| ranks | MPI calls per rank | without (s) | with (s) | ratio | per call (us) |"
echo "|---|---|---|---|---|---|"
for np in $RANKS; do
    : >"$tmp/a"; : >"$tmp/b"
    for i in $(seq "$REPS"); do
        if [ $((i % 2)) = 1 ]; then span 0 "$np" >>"$tmp/a"; span 1 "$np" >>"$tmp/b"
        else span 1 "$np" >>"$tmp/b"; span 0 "$np" >>"$tmp/a"; fi
    done
    calls=$("$CH" info "$tmp/tr" --format=json | jq '.mpi_events / .world_size | floor')
    a=$(median <"$tmp/a"); b=$(median <"$tmp/b")
    printf '| %s | %s | %.3f | %.3f | %.3f | %.2f |\n' "$np" "$calls" "$a" "$b" \
        "$(echo "$b / $a" | bc -l)" "$(echo "($b - $a) * 1000000 / $calls" | bc -l)"
done
} | tee "$out/cpu-times.md"
