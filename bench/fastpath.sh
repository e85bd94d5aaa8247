#!/usr/bin/env bash
# bench/fastpath.sh - what the instrumentation costs where computation
# dominates: bench/stencil.c with STENCIL_ARGS (default 1,000,000 points
# per rank, 200 sweeps) on each of RANKS (default 1 and 2: no more ranks
# than the 2 cores, so that no rank waits for a core) ranks, built
#   plain     MPICH_CC=clang-16 mpicc -std=c11 -O2
#   commhint  commhint cc mpicc -O2 (inline fast path), tracing to disk
#   calls     the same built with COMMHINT_INLINE=0: a runtime call per event
#   no runs   the commhint build run with COMMHINT_RUNS=0: every record is
#             stored (no REPEAT records), so the inline comparison never
#             matches and every event is a call
# The four run alternately REPS times (default 5; the order is reversed
# every other round), and the medians are compared.  Per run: the wall time
# of `mpiexec` (start-up included) and the CPU time (user + system) of the
# program's processes, summed over the ranks, from bench/rusage.c preloaded
# into them (mpiexec's own processes are left out).  ns/event = (CPU -
# plain CPU) / events.  Trace bytes per access and per event come from
# `commhint info DIR --format=json` of the last round's traces.  Every run's figures
# are listed below the table.  A bigger size:
#   STENCIL_ARGS="4000000 200" bash bench/fastpath.sh
# Writes bench/results/fastpath.md (or OUT).
set -eu -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
CLANG=${CLANG:-clang-16}
REPS=${REPS:-5}
RANKS=${RANKS:-"1 2"}
STENCIL_ARGS=${STENCIL_ARGS:-"1000000 200"}
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

die() { echo "bench/fastpath.sh: $*" >&2; exit 1; }
[ -x "$CH" ] || die "no commhint at $CH (build it, or set B)"

"$CLANG" -std=c11 -O2 -shared -fPIC -o "$tmp/librusage.so" bench/rusage.c
MPICH_CC=$CLANG mpicc -std=c11 -O2 -o "$tmp/plain" bench/stencil.c
CLANG=$CLANG "$CH" cc mpicc -O2 -o "$tmp/commhint" bench/stencil.c
COMMHINT_INLINE=0 CLANG=$CLANG "$CH" cc mpicc -O2 -o "$tmp/calls" bench/stencil.c

BUILDS=(plain commhint calls noruns)
label() { case $1 in noruns) echo "no runs" ;; *) echo "$1" ;; esac; }

# one NP BUILD [info]: runs the build once on NP ranks; prints "wall_s cpu_s";
# with "info", keeps `commhint info` of its trace
one() {
    local np=$1 b=$2 info=${3:-} prog t0 t1 cpu
    prog=$tmp/$b; [ "$b" != noruns ] || prog=$tmp/commhint
    rm -rf "$tmp/tr"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    if [ "$b" = noruns ]; then
        COMMHINT_RUNS=0 COMMHINT_TRACE_DIR=$tmp/tr mpiexec -n "$np" \
            env LD_PRELOAD="$tmp/librusage.so" "$prog" $STENCIL_ARGS >/dev/null 2>"$tmp/err"
    else
        COMMHINT_TRACE_DIR=$tmp/tr mpiexec -n "$np" \
            env LD_PRELOAD="$tmp/librusage.so" "$prog" $STENCIL_ARGS >/dev/null 2>"$tmp/err"
    fi || { cat "$tmp/err" >&2; die "command failed: $b on $np ranks"; }
    t1=$(date +%s.%N)
    cpu=$(awk -F'[ =]' '/^rusage: / { for (i = 1; i < NF; i++) if ($i == "user_ns" || $i == "sys_ns") s += $(i + 1); n++ }
        END { if (n == 0) exit 1; printf "%.4f", s / 1e9 }' "$tmp/err") ||
        die "no rusage lines from $b on $np ranks"
    [ "$(grep -c '^rusage: ' "$tmp/err")" -eq "$np" ] || die "expected $np rusage lines from $b, got: $(cat "$tmp/err")"
    if [ "$b" != plain ] && [ -n "$info" ]; then
        "$CH" info "$tmp/tr" --format=json >"$tmp/info-$b.json"
    fi
    echo "$(echo "$t1 - $t0" | bc -l) $cpu"
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
minof() { printf '%s\n' "$@" | sort -g | head -1; }
json() { grep -o "\"$2\":[0-9.]*" "$tmp/info-$1.json" | head -1 | cut -d: -f2; }
list() { local s="" x; for x in "$@"; do s="$s${s:+, }$(printf '%.3f' "$x")"; done; echo "$s"; }

{
echo "# The stencil's tracing cost: fast path, calls, runs"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $CLANG, MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p'); load average before the runs:"
echo "$(cut -d' ' -f1-3 /proc/loadavg) (anything above 0 is other work on the machine)."
echo "bench/stencil.c, arguments $STENCIL_ARGS (points per rank, sweeps). *plain* = \`mpicc -O2\`;"
echo "*commhint* = \`commhint cc mpicc -O2\` (inline fast path), tracing to disk; *calls* = the same built"
echo "with \`COMMHINT_INLINE=0\`; *no runs* = the commhint build run with \`COMMHINT_RUNS=0\`."
echo "*wall* = wall time of \`mpiexec\`, start-up included; *CPU* = user + system time of the program's"
echo "processes, summed over the ranks (bench/rusage.c), start-up included; medians of $REPS alternating"
echo "runs; *best* = the same ratio of the fastest runs (on a loaded machine the runs least disturbed by"
echo "other work). *ns/event* = (CPU - plain CPU) / events, medians. *trace bytes*: on disk, all ranks,"
echo "with the metadata; *B/access*, *B/event*: trace bytes per traced memory access and per event."
echo
echo "| ranks | build | events | wall (s) | wall / plain | best wall / plain | CPU (s) | CPU / plain | best CPU / plain | ns/event (CPU) | trace bytes | B/access | B/event |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
runs_lines=()
for np in $RANKS; do
    declare -A W=() C=()
    for ((i = 0; i < REPS; i++)); do
        order=("${BUILDS[@]}")
        if ((i % 2 == 1)); then order=(noruns calls commhint plain); fi
        for b in "${order[@]}"; do
            info=; ((i < REPS - 1)) || info=info
            read -r w c <<<"$(one "$np" "$b" "$info")"
            W[$b]="${W[$b]:-} $w"; C[$b]="${C[$b]:-} $c"
        done
    done
    # the lists are space-separated numbers: split on purpose
    # shellcheck disable=SC2086
    {
        pw=$(median ${W[plain]}); pc=$(median ${C[plain]})
        bw=$(minof ${W[plain]}); bc=$(minof ${C[plain]})
    }
    ev=$(json commhint events)
    [ "$(json noruns events)" = "$ev" ] || die "events differ with COMMHINT_RUNS=0: $(json noruns events) against $ev"
    for b in "${BUILDS[@]}"; do
        # shellcheck disable=SC2086
        {
            w=$(median ${W[$b]}); c=$(median ${C[$b]})
            mw=$(minof ${W[$b]}); mc=$(minof ${C[$b]})
        }
        if [ "$b" = plain ]; then
            printf '| %d | %s | - | %.3f | 1.00 | 1.00 | %.3f | 1.00 | 1.00 | - | - | - | - |\n' "$np" "$b" "$w" "$c"
        else
            printf '| %d | %s | %s | %.3f | %.2f | %.2f | %.3f | %.2f | %.2f | %.2f | %s | %.3g | %.3g |\n' "$np" "$(label "$b")" "$ev" \
                "$w" "$(echo "$w / $pw" | bc -l)" "$(echo "$mw / $bw" | bc -l)" \
                "$c" "$(echo "$c / $pc" | bc -l)" "$(echo "$mc / $bc" | bc -l)" \
                "$(echo "($c - $pc) * 1000000000 / $ev" | bc -l)" "$(json "$b" bytes_on_disk)" \
                "$(echo "$(json "$b" bytes_on_disk) / $(json "$b" accesses)" | bc -l)" \
                "$(echo "$(json "$b" bytes_on_disk) / $ev" | bc -l)"
        fi
        # shellcheck disable=SC2086
        runs_lines+=("- $np rank(s), $(label "$b"): wall $(list ${W[$b]}); CPU $(list ${C[$b]}).")
    done
    unset W C
done
echo
echo "Every run, in seconds, round by round:"
echo
printf '%s\n' "${runs_lines[@]}"
echo
echo "Load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "${OUT:-$out/fastpath.md}"
