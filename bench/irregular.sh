#!/usr/bin/env bash
# bench/irregular.sh - what tracing and analysis cost on irregular,
# memory-bound code, beside the regular stencil (docs/performance.md,
# "Irregular codes"; issue 20's goals in the last table).
#
# Three programs, each built plain (`mpicc -O2`) and with commhint
# (`commhint cc mpicc -g -O2`), run on RANKS (default 2, one per core)
# ranks:
#   spmv       bench/spmv.c: power iteration, CSR matrix with random columns
#   particles  bench/particles.c: cell lists, Lennard-Jones forces
#   stencil    bench/stencil.c: the regular 1-D stencil of bench/analysis.sh
# Tracing: the seconds each program reports for its main loop (the slowest
# rank's, from a barrier before it: start-up and the final flush left out)
# and the wall time of the whole `mpiexec` run, median of REPS (default 3)
# alternating runs (plain, traced, plain, ...); bytes per traced access on
# disk and before compression (`commhint info`).  In the same alternation:
# the commhint build with COMMHINT_DISABLE=1 (every event a call that
# records nothing), with COMMHINT_PACK=0 (the encoding before packs),
# with COMMHINT_QUEUE=0 (no inline queue: each record a call) and with
# COMMHINT_ROWS=0 (no ROWS records: loop nests' rows coded record by
# record, as before trace format 10), and the program built with COMMHINT_EXIT_LOOPS=0 (every loop records each
# iteration, none at its exits).
# spmv is also built as its own least tracer (bench/spmv.c, -DSPMV_FLOOR:
# each row's length and each x[col[j]] address, nothing else, into a 1 MiB
# buffer) and run in the same alternation: its buffer dropped when full
# (store), written (write) and compressed by zstd at level 1 and written
# (zstd): the physical cost of recording the information the trace must
# hold, against which the traced run is set.
# Analysis of the last traced run: `commhint hints` on one process and with
# `--parallel 2` (wall and CPU time, peak memory, median of REPS), and
# `commhint hints` on the last COMMHINT_PACK=0 trace.
# SCALE (default 1) multiplies every problem size: SCALE=10 measures how
# cost grows with 10 times the work.  Writes bench/results/irregular.md
# (irregular-xSCALE.md for SCALE other than 1).
set -eu -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
REPS=${REPS:-3}
RANKS=${RANKS:-2}
SCALE=${SCALE:-1}
out=bench/results
mkdir -p "$out"
name=irregular
[ "$SCALE" = 1 ] || name=irregular-x$SCALE
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# program, source, arguments (sizes scaled)
progs=(spmv particles stencil)
declare -A src=([spmv]=bench/spmv.c [particles]=bench/particles.c [stencil]=bench/stencil.c)
declare -A args=(
    [spmv]="$((200000 * SCALE)) 8 20"
    [particles]="$((10000 * SCALE)) 5"
    [stencil]="$((1000000 * SCALE)) 20"
)
MPICH_CC=${CLANG:-clang-16} mpicc -std=c11 -O2 -DSPMV_FLOOR -o "$tmp/spmv-floor" bench/spmv.c -lzstd -lm
for p in "${progs[@]}"; do
    MPICH_CC=${CLANG:-clang-16} mpicc -std=c11 -O2 -o "$tmp/$p-plain" "${src[$p]}" -lm
    CLANG=${CLANG:-clang-16} "$CH" cc mpicc -std=c11 -g -O2 -o "$tmp/$p-traced" "${src[$p]}" -lm
    COMMHINT_EXIT_LOOPS=0 CLANG=${CLANG:-clang-16} "$CH" cc mpicc -std=c11 -g -O2 -o "$tmp/$p-perit" "${src[$p]}" -lm
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -1; }
div() { echo "$1 / $2" | bc -l | xargs printf "%.${3:-2}f"; }
# run OUT CMD...: the program's own seconds and the wall time of CMD
run() {
    local o=$1 t0 t1 s
    shift
    t0=$(date +%s.%N)
    "$@" >"$o" 2>"$tmp/err" || { echo "bench/irregular.sh: failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    s=$(grep -o 'seconds=[0-9.]*' "$o" | cut -d= -f2)
    echo "$s $(echo "$t1 - $t0" | bc -l)"
}
# measure CMD...: wall seconds, peak resident KB, CPU seconds (user + system)
measure() {
    local t0 t1 m u sy
    t0=$(date +%s.%N)
    /usr/bin/time -f '%M %U %S' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || {
        echo "bench/irregular.sh: failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    read -r m u sy <"$tmp/time"
    echo "$(echo "$t1 - $t0" | bc -l) $m $(echo "$u + $sy" | bc -l)"
}
jnum() { grep -o "\"$1\":[0-9.]*" | head -1 | cut -d: -f2; }

load0=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A R
declare -A F=([store]="" [write]="" [zstd]="")
floor_bytes=0
for p in "${progs[@]}"; do
    ps=() pw=() ts=() tw=() ds=() os=() us=() es=() rs=() ls=()
    for ((i = 0; i < REPS; i++)); do
        read -r s w <<<"$(run "$tmp/out" mpiexec -n "$RANKS" "$tmp/$p-plain" ${args[$p]})"
        ps+=("$s"); pw+=("$w")
        if [ "$p" = spmv ]; then
            for m in store write zstd; do
                read -r s w <<<"$(SPMV_FLOOR=$m SPMV_FLOOR_DIR=$tmp run "$tmp/out" mpiexec -n "$RANKS" "$tmp/spmv-floor" ${args[$p]})"
                F[$m]+=" $s"
            done
            floor_bytes=$(grep -o 'floor_bytes=[0-9]*' "$tmp/out" | cut -d= -f2 | paste -sd+ | bc)
            rm -f "$tmp"/floor-*.bin
        fi
        # the instrumented build recording nothing: what the calls alone cost
        read -r s w <<<"$(COMMHINT_DISABLE=1 run "$tmp/out" mpiexec -n "$RANKS" "$tmp/$p-traced" ${args[$p]})"
        ds+=("$s")
        # the encoding before packs (trace format 8: records as they are, runs with columns)
        rm -rf "$tmp/$p-p0.trace"
        read -r s w <<<"$(COMMHINT_PACK=0 run "$tmp/out" "$CH" run -n "$RANKS" -o "$tmp/$p-p0.trace" -- "$tmp/$p-traced" ${args[$p]})"
        os+=("$s")
        # records that no run takes each a call into the runtime, as before the queue
        rm -rf "$tmp/$p-q0.trace"
        read -r s w <<<"$(COMMHINT_QUEUE=0 run "$tmp/out" "$CH" run -n "$RANKS" -o "$tmp/$p-q0.trace" -- "$tmp/$p-traced" ${args[$p]})"
        us+=("$s")
        rm -rf "$tmp/$p-q0.trace"
        # loop nests' rows coded record by record, as before trace format 10's ROWS
        rm -rf "$tmp/$p-r0.trace"
        read -r s w <<<"$(COMMHINT_ROWS=0 run "$tmp/out" "$CH" run -n "$RANKS" -o "$tmp/$p-r0.trace" -- "$tmp/$p-traced" ${args[$p]})"
        rs+=("$s")
        rm -rf "$tmp/$p-r0.trace"
        # every loop recording each iteration, as before loops recorded at their exits
        rm -rf "$tmp/$p-e0.trace"
        read -r s w <<<"$(run "$tmp/out" "$CH" run -n "$RANKS" -o "$tmp/$p-e0.trace" -- "$tmp/$p-perit" ${args[$p]})"
        es+=("$s")
        rm -rf "$tmp/$p-e0.trace"
        # zstd's level 1 for every chunk, as before the faster level for chunks that hardly compress
        rm -rf "$tmp/$p-l1.trace"
        read -r s w <<<"$(COMMHINT_ZSTD_LEVEL=1 run "$tmp/out" "$CH" run -n "$RANKS" -o "$tmp/$p-l1.trace" -- "$tmp/$p-traced" ${args[$p]})"
        ls+=("$s")
        l1disk=$("$CH" info "$tmp/$p-l1.trace" --format=json | jnum bytes_on_disk)
        rm -rf "$tmp/$p-l1.trace"
        rm -rf "$tmp/$p.trace"
        read -r s w <<<"$(run "$tmp/out" "$CH" run -n "$RANKS" -o "$tmp/$p.trace" -- "$tmp/$p-traced" ${args[$p]})"
        ts+=("$s"); tw+=("$w")
    done
    info=$("$CH" info "$tmp/$p.trace" --format=json)
    acc=$(jnum accesses <<<"$info"); ev=$(jnum events <<<"$info")
    disk=$(jnum bytes_on_disk <<<"$info"); raw=$(jnum bytes_raw <<<"$info")
    hs=() hm=() hc=() qs=() qc=() zs=()
    for ((i = 0; i < REPS; i++)); do
        read -r t m c <<<"$(measure "$CH" hints "$tmp/$p.trace")"; hs+=("$t"); hm+=("$m"); hc+=("$c")
        read -r t m c <<<"$(measure mpiexec -n 2 "$CH" hints --parallel "$tmp/$p.trace")"; qs+=("$t"); qc+=("$c")
        read -r t m c <<<"$(measure "$CH" hints "$tmp/$p-p0.trace")"; zs+=("$t")
    done
    R[$p]="$(median "${ps[@]}") $(median "${ts[@]}") $(median "${pw[@]}") $(median "${tw[@]}") $acc $ev $disk $raw"
    R[$p]+=" $(median "${hs[@]}") $(maxof "${hm[@]}") $(median "${hc[@]}") $(median "${qs[@]}") $(median "${qc[@]}")"
    R[$p]+=" $(median "${ds[@]}") $(median "${os[@]}") $(median "${zs[@]}") $(median "${us[@]}") $(median "${es[@]}")"
    R[$p]+=" $(median "${rs[@]}") $(median "${ls[@]}") $l1disk"
done

# fields P: program P's figures (R[P]) into the variables the tables print
fields() {
    read -r pl tl pw tw acc ev disk raw hs hm hc qs qc dl ol zs ul el rl l1 l1disk <<<"${R[$1]}"
}

{
echo "# Tracing and analysis on irregular code"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $RANKS ranks; load average before the runs: $load0."
echo "Medians of $REPS alternating runs. *loop* = the seconds the program reports for its main loop"
echo "(slowest rank, start-up and final flush left out); *run* = wall time of the whole \`mpiexec\`."
echo "Problem sizes: spmv ${args[spmv]} (rows per rank, nonzeros per row, iterations), particles"
echo "${args[particles]} (particles per rank, steps), stencil ${args[stencil]} (points per rank, sweeps)."
echo
echo "| program | plain loop s | traced loop s | loop ratio | plain run s | traced run s | run ratio | accesses | raw B/access | disk B/access | disk MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for p in "${progs[@]}"; do
    fields "$p"
    printf '| %s | %.3f | %.3f | %s | %.3f | %.3f | %s | %s | %s | %s | %s |\n' "$p" "$pl" "$tl" "$(div "$tl" "$pl" 1)" \
        "$pw" "$tw" "$(div "$tw" "$pw" 1)" "$acc" "$(div "$raw" "$acc" 3)" "$(div "$disk" "$acc" 3)" "$(div "$disk" 1048576 1)"
done
echo
echo "In the same alternation: the commhint build run with \`COMMHINT_DISABLE=1\` (every event is a call into"
echo "the runtime that returns at once: where no run absorbs events inline, as in spmv, what the"
echo "instrumentation costs before anything is recorded), with \`COMMHINT_PACK=0\` (the encoding of"
echo "trace format 8: records as they are, runs with columns), with \`COMMHINT_QUEUE=0\` (each record"
echo "that no run takes a call into the runtime instead of an inline append to the thread's queue),"
echo "with \`COMMHINT_ROWS=0\` (the rows of loop nests coded record by record, as before trace"
echo "format 10), and the program built with \`COMMHINT_EXIT_LOOPS=0\` (*per-iteration*: every loop"
echo "records each iteration, none at its exits)."
echo
echo "| program | plain loop s | \`COMMHINT_DISABLE=1\` loop s | ratio | \`COMMHINT_PACK=0\` loop s | ratio | \`COMMHINT_QUEUE=0\` loop s | ratio | per-iteration loop s | ratio | \`COMMHINT_ROWS=0\` loop s | ratio | traced loop s | ratio | traced / \`PACK=0\` | traced / \`QUEUE=0\` | traced / per-iteration | traced / \`ROWS=0\` |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for p in "${progs[@]}"; do
    fields "$p"
    printf '| %s | %.3f | %.3f | %s | %.3f | %s | %.3f | %s | %.3f | %s | %.3f | %s | %.3f | %s | %s | %s | %s | %s |\n' "$p" "$pl" "$dl" \
        "$(div "$dl" "$pl" 1)" "$ol" "$(div "$ol" "$pl" 1)" "$ul" "$(div "$ul" "$pl" 1)" "$el" "$(div "$el" "$pl" 1)" \
        "$rl" "$(div "$rl" "$pl" 1)" "$tl" "$(div "$tl" "$pl" 1)" "$(div "$tl" "$ol" 2)" "$(div "$tl" "$ul" 2)" \
        "$(div "$tl" "$el" 2)" "$(div "$tl" "$rl" 2)"
done
echo
fields spmv
fs=$(median ${F[store]}); fw=$(median ${F[write]}); fz=$(median ${F[zstd]})
echo "spmv's floor: the program built as its own least tracer (bench/spmv.c, \`-DSPMV_FLOOR\`), recording"
echo "only what the trace must hold (each row's length, each \`x[col[j]]\` address as a 32-bit difference)"
echo "into a 1 MiB buffer, in the same alternation: the buffer dropped when full (*store*), written"
echo "(*write*), compressed by zstd at level 1 (the runtime's level) and written (*zstd*)."
echo
echo "| plain loop s | store s | ratio | write s | ratio | zstd s | ratio | zstd B/access | traced loop s | ratio | traced / floor | traced disk B/access |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
printf '| %.3f | %.3f | %s | %.3f | %s | %.3f | %s | %s | %.3f | %s | %s | %s |\n' "$pl" "$fs" "$(div "$fs" "$pl" 1)" \
    "$fw" "$(div "$fw" "$pl" 1)" "$fz" "$(div "$fz" "$pl" 1)" "$(div "$floor_bytes" "$acc" 3)" "$tl" \
    "$(div "$tl" "$pl" 1)" "$(div "$tl" "$fz" 2)" "$(div "$disk" "$acc" 3)"
echo
echo "The runtime compresses a thread's chunks at zstd level 1 (\`COMMHINT_ZSTD_LEVEL\`), but when one"
echo "shrinks by less than a quarter (spmv's random column differences), its next 15 at a level close to a"
echo "copy (--fast=100), then one at level 1 again. In the same alternation, the traced build with"
echo "\`COMMHINT_ZSTD_LEVEL=1\` (level 1 for every chunk, as before):"
echo
echo "| program | traced loop s | ratio | disk B/access | \`COMMHINT_ZSTD_LEVEL=1\` loop s | ratio | disk B/access | traced / level 1 |"
echo "|---|---|---|---|---|---|---|---|"
for p in "${progs[@]}"; do
    fields "$p"
    printf '| %s | %.3f | %s | %s | %.3f | %s | %s | %s |\n' "$p" "$tl" "$(div "$tl" "$pl" 1)" "$(div "$disk" "$acc" 3)" \
        "$l1" "$(div "$l1" "$pl" 1)" "$(div "$l1disk" "$acc" 3)" "$(div "$tl" "$l1" 2)"
done
echo
echo "Analysis of the last traced run: \`commhint hints\` on one process, and \`mpiexec -n 2 commhint hints"
echo "--parallel\` (its CPU time is the launcher's and both processes'); peak memory of the one process;"
echo "and \`commhint hints\` on the run traced with \`COMMHINT_PACK=0\` (the same events)."
echo
echo "| program | events | hints s | hints CPU s | M accesses/s | M events/s | peak MB | --parallel 2 s | speed-up | --parallel 2 CPU s | hints s, \`PACK=0\` trace |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for p in "${progs[@]}"; do
    fields "$p"
    printf '| %s | %s | %.2f | %.2f | %s | %s | %d | %.2f | %s | %.2f | %.2f |\n' "$p" "$ev" "$hs" "$hc" \
        "$(div "$acc" "$(echo "$hs * 1000000" | bc -l)" 1)" "$(div "$ev" "$(echo "$hs * 1000000" | bc -l)" 1)" \
        $((hm / 1024)) "$qs" "$(div "$hs" "$qs")" "$qc" "$zs"
done
echo
echo "Issue 20's goals, from the rows above:"
echo
echo "| goal | measured | met |"
echo "|---|---|---|"
fields spmv
r=$(div "$tl" "$pl" 1); b=$(div "$disk" "$acc" 3); a=$(div "$acc" "$(echo "$hs * 1000000" | bc -l)" 1); q=$(div "$hs" "$qs")
yes() { [ "$(echo "$1" | bc -l)" = 1 ] && echo yes || echo no; }
echo "| spmv tracing at most 10x the plain loop | ${r}x | $(yes "$r <= 10") |"
echo "| spmv at most 1.5 bytes per access on disk | $b | $(yes "$b <= 1.5") |"
echo "| spmv hints at least 30 M accesses/s | $a | $(yes "$a >= 30") |"
echo "| spmv --parallel 2 at least 1.7x one process | ${q}x | $(yes "$q >= 1.7") |"
fields stencil
r=$(div "$tl" "$pl" 1)
echo "| stencil tracing at most 2x the plain loop | ${r}x | $(yes "$r <= 2") |"
echo
echo "Load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$out/$name.md"
