#!/usr/bin/env bash
# bench/tracing.sh - tracing overhead and trace size on every example and on
# a larger stencil.  Each program is built four ways at -O2:
#   plain     MPICH_CC=clang-16 mpicc -std=c11 -O2
#   commhint  commhint cc mpicc -O2 (pass + runtime), run tracing to disk
#   calls     the same with COMMHINT_INLINE=0: no inline fast path, every
#             event is a call into the runtime (what the fast path saves)
#   tsan      MPICH_CC=clang-16 mpicc -std=c11 -O2 -g -fsanitize=thread, the
#             usual yardstick for compiler-inserted access instrumentation
# and they run alternately (plain, calls, commhint, tsan, plain, ...) REPS
# times (default 3); the medians are compared.  The examples run with their
# default arguments on NP ranks (default 4), bench/stencil.c with
# STENCIL_ARGS (default 1,000,000 points per rank, 200 sweeps) on 1, 2 and
# NP ranks (2 ranks: as many as the 2 cores of the machines we measure on,
# where NP = 4 oversubscribes them).  Trace bytes per
# access and per event come from `commhint info DIR --format=json`.
# Writes bench/results/tracing.md.
set -eu -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
CLANG=${CLANG:-clang-16}
REPS=${REPS:-3}
NP=${NP:-4}
STENCIL_ARGS=${STENCIL_ARGS:-"1000000 200"}
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ThreadSanitizer: MPICH is not instrumented, so races inside it are not
# ours; keep going whatever TSan reports (it should report nothing here:
# the examples are single-threaded), and count its warnings in a log.
printf '%s\n' 'race:libmpich' 'race:libmpi' >"$tmp/tsan.supp"
export TSAN_OPTIONS="report_signal_unsafe=0 halt_on_error=0 exitcode=0 suppressions=$tmp/tsan.supp log_path=$tmp/tsan-log"

build() { # name source extra-libs...
    local name=$1 src=$2; shift 2
    MPICH_CC=$CLANG mpicc -std=c11 -O2 -o "$tmp/$name.plain" "$src" "$@"
    CLANG=$CLANG "$CH" cc mpicc -O2 -o "$tmp/$name.ch" "$src" "$@"
    COMMHINT_INLINE=0 CLANG=$CLANG "$CH" cc mpicc -O2 -o "$tmp/$name.calls" "$src" "$@"
    MPICH_CC=$CLANG mpicc -std=c11 -O2 -g -fsanitize=thread -o "$tmp/$name.tsan" "$src" "$@"
}

# Some kernels map memory where TSan's fixed shadow layout does not expect
# it ("FATAL: ThreadSanitizer: unexpected memory mapping"); running without
# address-space randomisation (setarch -R) avoids that.  Find what works.
build stencil bench/stencil.c
TSAN_PREFIX=()
if ! mpiexec -n 1 "$tmp/stencil.tsan" 100 2 >/dev/null 2>"$tmp/probe.err"; then
    if setarch "$(uname -m)" -R mpiexec -n 1 "$tmp/stencil.tsan" 100 2 >/dev/null 2>&1; then
        TSAN_PREFIX=(setarch "$(uname -m)" -R)
    else
        echo "bench/tracing.sh: programs built with -fsanitize=thread do not run here, even under setarch -R:" >&2
        cat "$tmp/probe.err" >&2
        TSAN_PREFIX=(false)
    fi
fi
tsan_how=${TSAN_PREFIX[*]:-"as is"}

# seconds CMD...: wall time of one run (fails the script if the run fails)
seconds() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>"$tmp/err" || { echo "bench/tracing.sh: command failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
json() { grep -o "\"$1\":[0-9.]*" "$tmp/info.json" | head -1 | cut -d: -f2; }
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }

row() { # name ranks args...
    local name=$1 np=$2; shift 2
    local p=() c=() k=() t=() i x tm tsan label=${*:-(defaults)}
    for ((i = 0; i < REPS; i++)); do
        x=$(seconds mpiexec -n "$np" "$tmp/$name.plain" "$@"); p+=("$x")
        rm -rf "$tmp/tr"
        x=$(COMMHINT_TRACE_DIR=$tmp/tr seconds mpiexec -n "$np" "$tmp/$name.calls" "$@"); k+=("$x")
        rm -rf "$tmp/tr"
        x=$(COMMHINT_TRACE_DIR=$tmp/tr seconds mpiexec -n "$np" "$tmp/$name.ch" "$@"); c+=("$x")
        if [ "$tsan_how" != false ]; then
            x=$(seconds "${TSAN_PREFIX[@]}" mpiexec -n "$np" "$tmp/$name.tsan" "$@"); t+=("$x")
        fi
    done
    "$CH" info "$tmp/tr" --format=json >"$tmp/info.json"
    local pm cm km; pm=$(median "${p[@]}"); cm=$(median "${c[@]}"); km=$(median "${k[@]}")
    if [ ${#t[@]} -gt 0 ]; then
        tm=$(median "${t[@]}"); tsan=$(printf '%.3f | %s' "$tm" "$(ratio "$tm" "$pm")")
    else
        tsan="- | -"
    fi
    printf '| %s %s | %d | %s | %.3f | %.3f | %s | %.3f | %s | %s | %s | %s |\n' "$name" "$label" "$np" \
        "$(json events)" "$pm" "$cm" "$(ratio "$cm" "$pm")" "$km" "$(ratio "$km" "$pm")" "$tsan" \
        "$(json bytes_per_access)" "$(json bytes_per_event)"
}

{
echo "# Tracing overhead and trace size"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $CLANG, MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p'); load average before the runs:"
echo "$(cut -d' ' -f1-3 /proc/loadavg) (anything above 0 is other work on the machine)."
echo "Wall time of \`mpiexec -n RANKS prog args\` (start-up included), median of $REPS alternating runs."
echo "*plain* = \`mpicc -O2\`; *commhint* = \`commhint cc mpicc -O2\`, tracing to disk; *calls* = the same"
echo "built with \`COMMHINT_INLINE=0\` (no inline fast path: a runtime call per event);"
echo "*tsan* = \`mpicc -O2 -g -fsanitize=thread\` (run $tsan_how). *events* = traced statement"
echo "executions and MPI calls, all ranks; *B/access*, *B/event* = trace bytes on disk per traced"
echo "memory access and per event. **With $NP ranks on $(nproc) cores, MPICH's busy-polling waits dominate"
echo "the short runs: their ratios say little about the instrumentation; the 1-rank stencil, where"
echo "computation dominates, shows its real cost.**"
echo
echo "| program, args | ranks | events | plain (s) | commhint (s) | commhint/plain | calls (s) | calls/plain | tsan (s) | tsan/plain | B/access | B/event |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for src in examples/*.c; do
    name=$(basename "$src" .c)
    build "$name" "$src" -lm
    row "$name" "$NP"
done
# shellcheck disable=SC2086
row stencil 1 $STENCIL_ARGS
if [ "$NP" -ne 2 ]; then
    # shellcheck disable=SC2086
    row stencil 2 $STENCIL_ARGS
fi
# shellcheck disable=SC2086
row stencil "$NP" $STENCIL_ARGS
echo
nw=$(cat "$tmp"/tsan-log* 2>/dev/null | grep -c 'WARNING: ThreadSanitizer' || true)
echo "ThreadSanitizer warnings in all tsan runs: $nw. Reference sizes: a raw drmemtrace record is"
echo "8 bytes per access; OTF2 spends about 24 bytes per enter/leave pair; the original tool's traces"
echo "were about 58 bytes per event. Load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$out/tracing.md"
