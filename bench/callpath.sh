#!/usr/bin/env bash
# bench/callpath.sh - what recording the call path of every MPI call costs
# (CHT_REC_PATH, docs/trace-format.md "Call paths"): bench/callpath.c makes
# CALLS small MPI_Sendrecv calls per rank (default 1,000,000) through two
# helpers, on 2 ranks (one per core), built with commhint at -O2 and traced
# with COMMHINT_CALLPATH=0 (no path) and the default (6 frames),
# alternating, REPS runs each (median).  Times: the whole traced run (from
# the launch to the last rank's exit, what a user waits for) and the
# trace's duration (`commhint info`: first to last MPI call).  Also the
# trace's size on disk and the analysis time of `commhint hints`.
# Writes bench/results/callpath.md.
set -eu
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
REPS=${REPS:-7}
CALLS=${CALLS:-1000000}
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$CH" cc mpicc -g -O2 -o "$tmp/callpath" bench/callpath.c

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# run DEPTH: one traced run; appends "wall span bytes" to $tmp/DEPTH
run() {
    rm -rf "$tmp/tr$1"
    local t0 t1
    t0=$(date +%s.%N)
    COMMHINT_CALLPATH=$1 "$CH" run -n 2 -o "$tmp/tr$1" -- "$tmp/callpath" "$CALLS" >/dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$(echo "$t1 - $t0" | bc -l) $("$CH" info "$tmp/tr$1" --format=json | jq .duration_s) $(du -sb "$tmp/tr$1" | cut -f1)" >>"$tmp/r$1"
}

: >"$tmp/r0"; : >"$tmp/r6"
for i in $(seq "$REPS"); do
    if [ $((i % 2)) = 1 ]; then run 0; run 6; else run 6; run 0; fi
done
col() { cut -d' ' -f"$2" <"$tmp/r$1" | median; }
ana() {
    local t0 t1
    t0=$(date +%s.%N)
    "$CH" hints "$tmp/tr$1" >/dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}
a0=$(ana 0); a6=$(ana 6)
{
echo "# Cost of call paths"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores; load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "bench/callpath.c with $CALLS MPI_Sendrecv calls per rank through two helpers, 2 ranks,"
echo "traced (commhint cc -g -O2); median of $REPS alternating runs each."
echo
echo "| | no path (COMMHINT_CALLPATH=0) | 6 frames (default) | ratio |"
echo "|---|---|---|---|"
w0=$(col 0 1); w6=$(col 6 1); s0=$(col 0 2); s6=$(col 6 2); b0=$(col 0 3); b6=$(col 6 3)
printf '| traced run, launch to exit (s) | %.3f | %.3f | %.3f |\n' "$w0" "$w6" "$(echo "$w6 / $w0" | bc -l)"
printf '| first to last MPI call (s) | %.3f | %.3f | %.3f |\n' "$s0" "$s6" "$(echo "$s6 / $s0" | bc -l)"
printf '| per call (us) | %.3f | %.3f | %+.3f |\n' "$(echo "$s0 * 1000000 / $CALLS" | bc -l)" \
    "$(echo "$s6 * 1000000 / $CALLS" | bc -l)" "$(echo "($s6 - $s0) * 1000000 / $CALLS" | bc -l)"
printf '| trace on disk (MB) | %.1f | %.1f | %.3f |\n' "$(echo "$b0 / 1000000" | bc -l)" \
    "$(echo "$b6 / 1000000" | bc -l)" "$(echo "$b6 / $b0" | bc -l)"
printf '| commhint hints (s, one run) | %.2f | %.2f | %.3f |\n' "$a0" "$a6" "$(echo "$a6 / $a0" | bc -l)"
} | tee "$out/callpath.md"
