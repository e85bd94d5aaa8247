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
# directory (TMPDIR) is skipped with a message.  Each command runs REPS
# times (default 3; REPS_BIG, default 1, on traces of more than 10^8
# events), alternating (read, hints, expanded, reference, read, ...); rates
# come from the median wall times and, in the last columns, from the median
# CPU times (user + system, GNU time: less disturbed than wall time when
# other work shares the cores); peak memory is the largest of GNU time's
# maximum resident sets.  Writes bench/results/analysis.md.
# With perf (PROFILE=0 turns it off), one more `commhint hints` of the
# longest trace up to PROFILE_MAX events (default 1e8) runs under
# `perf record` (user-space CPU samples), and the functions with at least
# 0.5% of the samples go to bench/results/analysis-profile.md.
set -eu -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
EVENTS=${EVENTS:-"1000000 10000000 100000000"}
REF_MAX=${REF_MAX:-20000000}   # run the reference engine up to this length
REPS=${REPS:-3}
REPS_BIG=${REPS_BIG:-1}
PROFILE=${PROFILE:-1}
PROFILE_MAX=${PROFILE_MAX:-100000000}
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CLANG=${CLANG:-clang-16} "$CH" cc mpicc -g -O2 -o "$tmp/stencil" bench/stencil.c

# measure CMD...: prints "seconds max_rss_kb cpu_seconds" (wall time from
# date: GNU time's has only 10 ms resolution, too coarse for the short
# traces; CPU time = user + system, 10 ms resolution)
measure() {
    local t0 t1
    t0=$(date +%s.%N)
    /usr/bin/time -f '%M %U %S' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || {
        echo "bench/analysis.sh: command failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    read -r m u sy <"$tmp/time"
    echo "$(echo "$t1 - $t0" | bc -l) $m $(echo "$u + $sy" | bc -l)"
}
rate() { if [ "$(echo "$2 > 0" | bc -l)" = 1 ]; then echo "$1 / $2 / 1000000" | bc -l | xargs printf '%.1f'; else echo "-"; fi; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -1; }
if [ "$PROFILE" = 1 ] && ! perf record -q -o "$tmp/probe.data" -e cpu-clock:u -- true >/dev/null 2>&1; then
    echo "bench/analysis.sh: perf record does not work here: no profile" >&2
    PROFILE=0
fi
load0=$(cut -d' ' -f1-3 /proc/loadavg)

{
echo "# Analysis speed and memory"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, one analysis thread; load average before the runs: $load0."
echo "Traces of bench/stencil.c on"
echo "2 ranks (-O2). *read* = \`commhint info --expand-runs\` (decompress and decode every event, runs"
echo "expanded); *hints* = \`commhint hints\` (streaming engine, runs handed over whole);"
echo "*expanded* = \`hints --expand-runs\` (the same engine event by event);"
echo "*reference* = \`--engine=reference\`."
echo "Rates are million events per second of wall time, and in the last three columns of CPU time"
echo "(user + system), medians of $REPS alternating runs of each command ($REPS_BIG above 10^8 events);"
echo "memory is the peak resident set (the largest of the runs)."
echo
echo "| events | trace MB | read Mev/s | read MB | hints Mev/s | hints MB | hints/read time | expanded Mev/s | expanded/hints time | reference Mev/s | reference MB | read Mev/CPU-s | hints Mev/CPU-s | expanded Mev/CPU-s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
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
    rts=() rms=() rcs=() hts=() hms=() hcs=() xts=() xcs=() fts=() fms=()
    reps=$REPS; [ "$events" -le 100000000 ] || reps=$REPS_BIG
    for ((i = 0; i < reps; i++)); do
        read -r t m c <<<"$(measure "$CH" info "$tmp/tr" --expand-runs)"; rts+=("$t"); rms+=("$m"); rcs+=("$c")
        read -r t m c <<<"$(measure "$CH" hints "$tmp/tr")"; hts+=("$t"); hms+=("$m"); hcs+=("$c")
        read -r t m c <<<"$(measure "$CH" hints "$tmp/tr" --expand-runs)"; xts+=("$t"); xcs+=("$c")
        if [ "$events" -le "$REF_MAX" ]; then
            read -r t m c <<<"$(measure "$CH" hints "$tmp/tr" --engine=reference)"; fts+=("$t"); fms+=("$m")
        fi
    done
    rt=$(median "${rts[@]}"); rm=$(maxof "${rms[@]}"); ht=$(median "${hts[@]}"); hm=$(maxof "${hms[@]}")
    xt=$(median "${xts[@]}")
    rc=$(median "${rcs[@]}"); hc=$(median "${hcs[@]}"); xc=$(median "${xcs[@]}")
    ref="-"; refm="-"
    if [ ${#fts[@]} -gt 0 ]; then
        ft=$(median "${fts[@]}"); fm=$(maxof "${fms[@]}")
        ref=$(rate "$events" "$ft"); refm=$((fm / 1024))
    fi
    if [ "$PROFILE" = 1 ] && [ "$events" -le "$PROFILE_MAX" ]; then
        perf record -q -o "$tmp/perf.data" -e cpu-clock:u -- "$CH" hints "$tmp/tr" >/dev/null 2>"$tmp/err" ||
            { cat "$tmp/err" >&2; echo "bench/analysis.sh: perf record failed" >&2; exit 1; }
        perf report -i "$tmp/perf.data" --stdio --no-children --sort symbol --percent-limit 0.5 2>/dev/null |
            awk '/^ *[0-9.]+%/ { p = $1; $1 = ""; $2 = ""; sub(/^ +/, ""); sub(/ +- +-$/, ""); printf "| %s | %s |\n", p, $0 }' >"$tmp/profile"
        echo "$events" >"$tmp/profiled"
    fi
    printf '| %s | %s | %s | %d | %s | %d | %.2f | %s | %.2f | %s | %s | %s | %s | %s |\n' "$events" "$mb" \
        "$(rate "$events" "$rt")" $((rm / 1024)) "$(rate "$events" "$ht")" $((hm / 1024)) \
        "$(echo "$ht / $rt" | bc -l)" "$(rate "$events" "$xt")" "$(echo "$xt / $ht" | bc -l)" \
        "$ref" "$refm" "$(rate "$events" "$rc")" "$(rate "$events" "$hc")" "$(rate "$events" "$xc")"
done
if [ -n "$skipped" ]; then
    echo
    echo "Skipped for lack of disk space in $tmp:$skipped events."
fi
echo
echo "Load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$out/analysis.md"
if [ -f "$tmp/profiled" ]; then
    profiled=$(cat "$tmp/profiled")
    {
    echo "# Where \`commhint hints\` spends its time"
    echo
    echo "$(date -u +%Y-%m-%d), $(nproc) cores. \`perf record -e cpu-clock:u\` of one \`commhint hints\` of the"
    echo "$profiled-event trace of bench/analysis.sh (bench/stencil.c, 2 ranks, -O2): user-space CPU samples"
    echo "by function (self time, inlined functions counted in their caller), functions with at least 0.5%."
    echo
    echo "| samples | function |"
    echo "|---|---|"
    cat "$tmp/profile"
    } | tee "$out/analysis-profile.md"
fi
