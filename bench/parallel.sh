#!/usr/bin/env bash
# bench/parallel.sh - `commhint hints --parallel`: an 8-rank trace analysed
# by the serial command and by MPI jobs of P processes
# (`mpiexec -n P commhint hints --parallel`) for each P in PROCS (default
# 1 2 3 4 8; more than 2 oversubscribes a 2-core machine); wall time,
# median of RUNS alternating runs (default 3; the order is reversed every
# other round).  The trace comes from bench/stencil.c built with commhint
# and run on 8 ranks, EVENTS events long (default 4e7); the outputs of the
# serial and 2-process runs must be identical.
# Writes bench/results/parallel.md.
set -eu -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
EVENTS=${EVENTS:-40000000}
RUNS=${RUNS:-3}
PROCS=${PROCS:-"1 2 3 4 8"}
NRANKS=8
POINTS=250000
MPIEXEC=${MPIEXEC:-mpiexec}
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CLANG=${CLANG:-clang-16} "$CH" cc mpicc -g -O2 -o "$tmp/stencil" bench/stencil.c

events_of() { "$CH" info "$1" --format=json | grep -o '"events":[0-9]*' | head -1 | cut -d: -f2; }
trace() { # sweeps
    rm -rf "$tmp/tr"
    "$CH" run -n "$NRANKS" -o "$tmp/tr" -- "$tmp/stencil" "$POINTS" "$1" >/dev/null
}
# events of one sweep, from two short runs
trace 2; e2=$(events_of "$tmp/tr")
trace 4; e4=$(events_of "$tmp/tr")
sweeps=$(( EVENTS * 2 / (e4 - e2) ))
[ "$sweeps" -ge 1 ] || sweeps=1
trace "$sweeps"
events=$(events_of "$tmp/tr")
mb=$(du -sm "$tmp/tr" | cut -f1)

# The same output, or the figures mean nothing.
"$CH" hints "$tmp/tr" --format=json --stable >"$tmp/serial.json" 2>/dev/null
"$MPIEXEC" -n 2 "$CH" hints --parallel "$tmp/tr" --format=json --stable >"$tmp/par.json" 2>/dev/null
cmp -s "$tmp/serial.json" "$tmp/par.json" || {
    echo "bench/parallel.sh: the parallel output differs from the serial one" >&2
    diff "$tmp/serial.json" "$tmp/par.json" | head >&2
    exit 1
}

# seconds CMD...: wall time of one run
seconds() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>"$tmp/err" || { echo "bench/parallel.sh: command failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

load0=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A T=()
confs=(serial $PROCS)
for ((i = 0; i < RUNS; i++)); do
    order=("${confs[@]}")
    if ((i % 2 == 1)); then
        order=(); for ((j = ${#confs[@]} - 1; j >= 0; j--)); do order+=("${confs[j]}"); done
    fi
    for c in "${order[@]}"; do
        if [ "$c" = serial ]; then
            x=$(seconds "$CH" hints "$tmp/tr")
        else
            x=$(seconds "$MPIEXEC" -n "$c" "$CH" hints --parallel "$tmp/tr")
        fi
        T[$c]="${T[$c]:-} $x"
    done
done
fmt() { printf '%.2f' "$1"; }
list() { local s="" x; for x in "$@"; do s="$s${s:+, }$(fmt "$x")"; done; echo "$s"; }
name() { case $1 in serial) echo "serial" ;; 1) echo "1 process" ;; *) echo "$1 processes" ;; esac; }

{
echo "# Parallel analysis"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores; load average before the runs: $load0. A trace of bench/stencil.c"
echo "on $NRANKS ranks (-O2, $POINTS points per rank, $sweeps sweeps): $events events, $mb MB."
echo "*serial* = \`commhint hints\`; *P processes* = \`mpiexec -n P commhint hints --parallel\` (the same"
echo "output as serial, checked with P = 2). Wall time in seconds (start-up included), median of $RUNS"
echo "alternating runs; *speedup* = serial median / this median."
echo
echo "| analysis | wall (s) | speedup | every run (s) |"
echo "|---|---|---|---|"
# shellcheck disable=SC2086
ts=$(median ${T[serial]})
for c in "${confs[@]}"; do
    # shellcheck disable=SC2086
    m=$(median ${T[$c]})
    # shellcheck disable=SC2086
    printf '| %s | %s | %.2f | %s |\n' "$(name "$c")" "$(fmt "$m")" "$(echo "$ts / $m" | bc -l)" "$(list ${T[$c]})"
done
echo
echo "Load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$out/parallel.md"
