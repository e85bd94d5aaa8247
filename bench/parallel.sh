#!/usr/bin/env bash
# bench/parallel.sh - `commhint hints --parallel`: an 8-rank trace analysed
# by the serial command and by MPI jobs of 1 and 2 processes
# (`mpiexec -n P commhint hints --parallel`), wall time, median of RUNS
# alternating runs (default 3).  The trace comes from bench/stencil.c built
# with commhint and run on 8 ranks, EVENTS events long (default 4e7); the
# outputs of the serial and parallel runs must be identical.
# Writes bench/results/parallel.md.
set -eu
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
EVENTS=${EVENTS:-40000000}
RUNS=${RUNS:-3}
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

ser=(); p1=(); p2=()
for ((i = 0; i < RUNS; i++)); do
    ser+=("$(seconds "$CH" hints "$tmp/tr")")
    p2+=("$(seconds "$MPIEXEC" -n 2 "$CH" hints --parallel "$tmp/tr")")
    p1+=("$(seconds "$MPIEXEC" -n 1 "$CH" hints --parallel "$tmp/tr")")
done
ts=$(median "${ser[@]}"); t1=$(median "${p1[@]}"); t2=$(median "${p2[@]}")
fmt() { printf '%.2f' "$1"; }
list() { local s="" x; for x in "$@"; do s="$s${s:+, }$(fmt "$x")"; done; echo "$s"; }

{
echo "# Parallel analysis"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores. A trace of bench/stencil.c on $NRANKS ranks (-O2, $POINTS"
echo "points per rank, $sweeps sweeps): $events events, $mb MB. *serial* = \`commhint hints\`;"
echo "*P processes* = \`mpiexec -n P commhint hints --parallel\` (the same output, checked)."
echo "Wall time in seconds, median of $RUNS alternating runs (every run below the table)."
echo
echo "| events | trace MB | serial (s) | 1 process (s) | 2 processes (s) | speedup, 2 processes |"
echo "|---|---|---|---|---|---|"
printf '| %s | %s | %s | %s | %s | %.2f |\n' "$events" "$mb" "$(fmt "$ts")" "$(fmt "$t1")" "$(fmt "$t2")" \
    "$(echo "$ts / $t2" | bc -l)"
echo
echo "Runs: serial $(list "${ser[@]}"); 1 process $(list "${p1[@]}"); 2 processes $(list "${p2[@]}")."
} | tee "$out/parallel.md"
