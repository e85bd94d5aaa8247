#!/usr/bin/env bash
# bench/analysis.sh - speed and memory of `commhint hints` on traces of
# growing length, beside reading and decompressing the same trace alone
# (`commhint info` walks every event through the same cursor) and beside
# the reference engine where it finishes in reasonable time.
#
# The traces come from bench/stencil.c (a 1-D stencil with a halo exchange)
# built with commhint and run on 2 ranks; EVENTS lists the target lengths
# (default 1e6 1e7 1e8).  10^9 events is opt-in, as it takes several
# minutes to generate and about 2 GB of disk:
#   EVENTS="1000000 10000000 100000000 1000000000" bash bench/analysis.sh
# A length whose trace would not fit in the free space of the temporary
# directory (TMPDIR) is skipped with a message.  Peak memory is GNU time's
# maximum resident set.  Writes bench/results/analysis.md.
set -eu -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
EVENTS=${EVENTS:-"1000000 10000000 100000000"}
REF_MAX=${REF_MAX:-20000000}   # run the reference engine up to this length
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CLANG=${CLANG:-clang-16} "$CH" cc mpicc -g -O2 -o "$tmp/stencil" bench/stencil.c

# measure CMD...: prints "seconds max_rss_kb" (wall time from date: GNU
# time's has only 10 ms resolution, too coarse for the short traces)
measure() {
    local t0 t1
    t0=$(date +%s.%N)
    /usr/bin/time -f '%M' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || {
        echo "bench/analysis.sh: command failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    echo "$(echo "$t1 - $t0" | bc -l) $(cat "$tmp/time")"
}
rate() { echo "$1 / $2 / 1000000" | bc -l | xargs printf '%.1f'; }

{
echo "# Analysis speed and memory"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, one analysis thread. Traces of bench/stencil.c on"
echo "2 ranks (-O2). *read* = \`commhint info\` (decompress and decode every event, runs"
echo "expanded); *hints* = \`commhint hints\` (streaming engine, runs handed over whole);"
echo "*expanded* = \`hints --expand-runs\` (the same engine event by event);"
echo "*reference* = \`--engine=reference\`."
echo "Rates are million events per second of wall time; memory is the peak resident set."
echo
echo "| events | trace MB | read Mev/s | read MB | hints Mev/s | hints MB | hints/read time | expanded Mev/s | expanded/hints time | reference Mev/s | reference MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
# events of one sweep of n points (on both ranks), from two short runs
n=100000
count() {
    rm -rf "$tmp/tr"
    "$CH" run -n 2 -o "$tmp/tr" -- "$tmp/stencil" "$n" "$1" >/dev/null
    "$CH" info "$tmp/tr" --format=json | grep -o '"events":[0-9]*' | head -1 | cut -d: -f2
}
e2=$(count 2); e4=$(count 4)
per_sweep=$(( (e4 - e2) / 2 ))
# disk bytes per event of the short trace (an over-estimate: its site
# tables and first chunks weigh more than in a long trace)
bpe=$(echo "$(du -sb "$tmp/tr" | cut -f1) / $e4" | bc -l)
skipped=""
for ev in $EVENTS; do
    need=$(echo "$ev * $bpe * 1.25 / 1048576 + 100" | bc)   # MB, with a margin
    avail=$(( $(df -Pk "$tmp" | awk 'NR == 2 { print $4 }') / 1024 ))
    if [ "$need" -gt "$avail" ]; then
        echo "bench/analysis.sh: skipping $ev events: the trace needs about $need MB, $avail MB free in $tmp" >&2
        skipped="$skipped $ev"
        continue
    fi
    sweeps=$(( ev / per_sweep ))
    [ "$sweeps" -ge 1 ] || sweeps=1
    rm -rf "$tmp/tr"
    "$CH" run -n 2 -o "$tmp/tr" -- "$tmp/stencil" "$n" "$sweeps" >/dev/null
    events=$("$CH" info "$tmp/tr" --format=json | grep -o '"events":[0-9]*' | head -1 | cut -d: -f2)
    mb=$(du -sm "$tmp/tr" | cut -f1)
    read -r rt rm <<<"$(measure "$CH" info "$tmp/tr")"
    read -r ht hm <<<"$(measure "$CH" hints "$tmp/tr")"
    read -r xt xm <<<"$(measure "$CH" hints "$tmp/tr" --expand-runs)"
    ref="-"; refm="-"
    if [ "$events" -le "$REF_MAX" ]; then
        read -r ft fm <<<"$(measure "$CH" hints "$tmp/tr" --engine=reference)"
        ref=$(rate "$events" "$ft"); refm=$((fm / 1024))
    fi
    printf '| %s | %s | %s | %d | %s | %d | %.2f | %s | %.2f | %s | %s |\n' "$events" "$mb" \
        "$(rate "$events" "$rt")" $((rm / 1024)) "$(rate "$events" "$ht")" $((hm / 1024)) \
        "$(echo "$ht / $rt" | bc -l)" "$(rate "$events" "$xt")" "$(echo "$xt / $ht" | bc -l)" \
        "$ref" "$refm"
done
if [ -n "$skipped" ]; then
    echo
    echo "Skipped for lack of disk space in $tmp:$skipped events."
fi
} | tee "$out/analysis.md"
