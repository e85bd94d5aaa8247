#!/usr/bin/env bash
# bench/hb-queries.sh - the happens-before replay of the deadlock checks
# (depgraph/hb.c) at scale: bench/hb-queries.c makes ring-exchange logs of
# P ranks in memory and asks about two pairs per rank and step, as the
# checks do; each also spread over SPREAD threads standing for processes
# (default 2; SPREAD= for none: dg_hb_answer_dist, the --parallel stage's
# replay, checked against the serial answers).  Writes
# bench/results/hb-queries.md.
set -eu -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
out=bench/results/hb-queries.md
RUNS=${RUNS:-"64:1000 1024:2500 4096:250 4096:2500 16384:250"}
SPREAD=${SPREAD-2}
{
    echo "# The happens-before replay at scale"
    echo
    echo "bench/hb-queries.sh, $(date -u +%Y-%m-%d) on $(nproc) cores (load average: $(cut -d' ' -f1-3 /proc/loadavg))."
    echo "Ring logs made in memory (bench/hb-queries.c): per step two sends, two receives,"
    echo "an Allreduce every 10 steps (or an Iallreduce around the step); two queries per"
    echo "rank and step.  One run each; with a spread line, the same queries answered by"
    echo "the replay spread over threads standing for processes (hb-dist.c), matching included."
    echo
    echo '```'
    for run in $RUNS; do
        P=${run%%:*} S=${run##*:}
        "$B/bench/hb-queries" "$P" "$S" ${SPREAD:+--spread "$SPREAD"}
        "$B/bench/hb-queries" "$P" "$S" --nonblocking ${SPREAD:+--spread "$SPREAD"}
    done
    echo '```'
} > "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
