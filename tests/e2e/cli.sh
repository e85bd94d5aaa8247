#!/usr/bin/env bash
# Command-line behaviour: --help for every command, exit 2 on bad usage,
# exit 1 with a one-sentence message on bad input, never a crash.
source "$(dirname "$0")/lib.sh"

expect_status() { # what expected-status regex-for-stderr cmd...
    local what=$1 want=$2 re=$3; shift 3
    local err rc
    err=$("$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -eq "$want" ] && printf '%s\n' "$err" | grep -qE -- "$re"; then
        ok "$what"
    else
        not_ok "$what" "command: $*" "status $rc (want $want)" "stderr: $err"
    fi
}

for c in cc run dump info hints export view; do
    check "commhint $c --help exits 0" "$CH" $c --help
done
check "commhint --help exits 0" "$CH" --help
expect_status "no command: usage, exit 2" 2 'usage: commhint' "$CH"
expect_status "unknown command: exit 2" 2 "unknown command 'frobnicate'" "$CH" frobnicate
expect_status "unknown option: exit 2" 2 "unknown option '--bogus'" "$CH" dump --bogus x
expect_status "bad --format lists the allowed values: exit 2" 2 "allowed: text, json" "$CH" dump --format=xml x
expect_status "info --format=yaml: exit 2" 2 "allowed: text, json" "$CH" info --format=yaml x
expect_status "dump without a directory: exit 2" 2 "missing the trace directory" "$CH" dump
expect_status "--rank needs a number: exit 2" 2 "--rank needs a rank number" "$CH" dump --rank abc x
expect_status "missing directory: exit 1 naming it" 1 "dir=$WORK/none" "$CH" dump "$WORK/none"
mkdir -p "$WORK/empty"
expect_status "a directory that is not a trace: exit 1" 1 "not a commhint trace directory" "$CH" info "$WORK/empty"
expect_status "a regular file as trace: exit 1" 1 "error: " "$CH" dump /etc/hostname
expect_status "run without -n: exit 2" 2 "missing -n" "$CH" run -- /bin/true
expect_status "run -n 0: exit 2" 2 "positive number of ranks" "$CH" run -n 0 -- /bin/true
expect_status "run without a program: exit 2" 2 "missing the program" "$CH" run -n 2
expect_status "run of a missing program: exit 1" 1 "cannot run the program: file=$WORK/nope" "$CH" run -n 2 -o "$WORK/tr" -- "$WORK/nope"
mkdir -p "$WORK/notrace" && touch "$WORK/notrace/precious.txt"
expect_status "run refuses to overwrite a non-trace directory" 1 "not a commhint trace" \
    "$CH" run -n 1 -o "$WORK/notrace" -- /bin/true
[ -f "$WORK/notrace/precious.txt" ] && ok "the non-trace directory is untouched" || not_ok "the non-trace directory is untouched"
expect_status "cc without a compiler: exit 2" 2 "missing the compiler" "$CH" cc
expect_status "cc with gcc: exit 1" 1 "needs clang 16" "$CH" cc gcc -c x.c
if command -v clang-14 >/dev/null; then
    expect_status "cc with clang-14 names the version mismatch" 1 "built for LLVM 16 but clang-14 is clang 14" \
        "$CH" cc clang-14 -c x.c
fi

# Bad command lines and bad trace-directory arguments, for every command that
# reads traces: exit 2 (usage) or 1 (error) with exactly one line on stderr
# that names the culprit.  The viewer parses its own arguments (gui.sh
# checks the directories it is given under xvfb-run).
one_line() { # what expected-status regex cmd...
    local what=$1 want=$2 re=$3; shift 3
    local err rc
    err=$(timeout 60 "$@" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -eq "$want" ] && [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] &&
        printf '%s\n' "$err" | grep -qE -- "$re"; then
        ok "$what"
    else
        not_ok "$what" "command: $*" "status $rc (want $want)" "stderr: $err"
    fi
}
T=tests/data/damaged/truncated # a readable trace
touch "$WORK/plainfile"
for c in info dump hints export view; do
    one_line "$c --bogus: exit 2 naming the option" 2 "^commhint $c: unknown option '--bogus'.*--help" "$CH" $c --bogus "$T"
    one_line "$c -Z: exit 2 naming the option" 2 "^commhint $c: unknown option '-Z'" "$CH" $c -Z "$T"
    one_line "$c DIR extra: exit 2 naming the extra argument" 2 "^commhint $c: unexpected argument 'extra'" "$CH" $c "$T" extra
done
for c in info dump hints export; do
    one_line "$c without a directory: exit 2" 2 "^commhint $c: missing the trace directory" "$CH" $c
    one_line "$c --format without a value: exit 2" 2 "^commhint $c: option '--format' needs a value" "$CH" $c --format
    one_line "$c on a missing directory: exit 1 naming it" 1 "^commhint: error: cannot open trace directory: dir=$WORK/none reason=No such file" "$CH" $c "$WORK/none"
    one_line "$c on a file where a directory is expected: exit 1" 1 "^commhint: error: not a commhint trace directory: dir=$WORK/plainfile reason=not a directory" "$CH" $c "$WORK/plainfile"
    one_line "$c on a directory that is not a trace: exit 1" 1 "^commhint: error: not a commhint trace directory: dir=$WORK/empty reason=no commhint.meta$" "$CH" $c "$WORK/empty"
done

# Unreadable input.  root reads through chmod 000, so as root the commands
# run as nobody (setpriv); without either, these checks are skipped.
AS=()
if [ "$(id -u)" -eq 0 ]; then
    if command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 &&
        setpriv --reuid=nobody --regid=nogroup --clear-groups "$CH" --help >/dev/null 2>&1; then
        AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
    else
        AS=(skip)
    fi
fi
if [ "${AS[0]:-}" = skip ]; then
    echo "ok - unreadable trace directories # SKIP running as root without setpriv or a usable nobody user"
else
    U=$(mktemp -d /tmp/commhint-unreadable.XXXXXX) # nobody must reach it
    chmod 755 "$U"
    for d in dir meta rank; do cp -r "$T" "$U/$d"; done
    chmod -R a+rX "$U"
    chmod 000 "$U/dir" "$U/meta/commhint.meta" "$U/rank/rank-00000.chtr"
    for c in info dump hints export; do
        one_line "$c on a directory it may not read: exit 1 naming it" 1 \
            "^commhint: error: cannot open trace directory: dir=$U/dir reason=Permission denied" "${AS[@]}" "$CH" $c "$U/dir"
        one_line "$c on an unreadable meta file: exit 1 naming it" 1 \
            "^commhint: error: cannot open trace file: file=$U/meta/commhint.meta offset=0 reason=Permission denied" \
            "${AS[@]}" "$CH" $c "$U/meta"
    done
    # an unreadable rank file is a damaged rank (docs/reliability.md)
    err=$("${AS[@]}" "$CH" info "$U/rank" 2>&1 >/dev/null); rc=$?
    expect_eq "info on an unreadable rank file: exit 1" "$rc" 1
    expect_match "info on an unreadable rank file: one error naming it" "$err" "^commhint: error: cannot open trace file: file=$U/rank/rank-00000.chtr offset=0 reason=Permission denied"
    err=$("${AS[@]}" "$CH" hints "$U/rank" 2>&1 >/dev/null); rc=$?
    expect_eq "hints on an unreadable rank file: exit 0 with the other rank" "$rc" 0
    expect_match "hints on an unreadable rank file: it is left out with a warning" "$err" "^commhint: warning: rank 0 could not be analysed and is left out: cannot open trace file: file=$U/rank/rank-00000.chtr offset=0 reason=Permission denied"
    chmod -R u+rwX "$U"
    rm -rf "$U"
fi

# commhint cc turns unrolling and vectorisation off whatever the user's
# optimisation level: its flags must come after the user's, since clang
# takes the last of -O<n> / -fvectorize / -fno-vectorize (an -O2 after
# -fno-vectorize turns it back on).  -### prints the driver's cc1 command
# (mpicc passes it through), where vectorisation shows as -vectorize-loops
# and -vectorize-slp and unrolling as -funroll-loops / -fno-unroll-loops.
# cc1_flags OUT: the loop-related flags of every cc1 command in OUT, one
# per line, in order.
cc1_flags() {
    printf '%s\n' "$1" | grep -F '"-cc1"' | tr ' ' '\n' | tr -d '"' |
        grep -E '^-(vectorize-loops|vectorize-slp|f(no-)?unroll-loops|O.*)$'
}
# expect_scalar_loops "what" -### output: each cc1 command keeps loops
# scalar (no vectoriser, unrolling off) and there is at least one.
expect_scalar_loops() {
    local what=$1 out=$2 f
    f=$(cc1_flags "$out")
    if [ "$(printf '%s\n' "$out" | grep -cF '"-cc1"')" -ge 1 ] &&
        ! printf '%s\n' "$f" | grep -qE '^-(vectorize-loops|vectorize-slp|funroll-loops)$' &&
        [ "$(printf '%s\n' "$f" | grep -E 'unroll-loops$' | tail -1)" = -fno-unroll-loops ]; then
        ok "$what"
    else
        not_ok "$what" "cc1 loop flags: $(printf '%s\n' "$f" | tr '\n' ' ')" "$(printf '%s\n' "$out" | grep -vF '"-cc1"' | head -5)"
    fi
}
printf 'void scale(double *__restrict a, const double *__restrict b, int n)\n{\n    for (int i = 0; i < n; i++)\n        a[i] = b[i] * 2.0;\n}\n' >"$WORK/loop.c"
printf 'int main(void) { return 0; }\n' >"$WORK/main.c"
for O in -O2 -O3 -Ofast -Os; do
    out=$(cd "$WORK" && "$CH" cc mpicc -### $O -c loop.c 2>&1)
    expect_scalar_loops "cc mpicc $O -c: no vectoriser, no unrolling in cc1" "$out"
done
out=$(cd "$WORK" && "$CH" cc mpicc -### -O2 -o app main.c loop.c 2>&1)
expect_scalar_loops "cc mpicc -O2 -o app (compile and link): loops stay scalar" "$out"
expect_eq "cc mpicc -O2 -o app: a cc1 command per source" "$(printf '%s\n' "$out" | grep -cF '"-cc1"')" 2
expect_match "cc mpicc -O2 -o app: links -lcommhint before -lmpich" "$out" '"-lcommhint".*"-lmpich"'
# With plain clang and the user's own MPI library (the help's
# `$(pkg-config --libs mpich)`), the runtime must come before it or the
# program calls MPICH's MPI_* directly and no MPI call is recorded.
out=$(cd "$WORK" && "$CH" cc "$CLANG" -### -O2 -o app main.c loop.c -lmpich -lm 2>&1)
expect_scalar_loops "cc $CLANG -O2 -o app ... -lmpich: loops stay scalar" "$out"
expect_match "cc $CLANG -O2 -o app ... -lmpich: links -lcommhint before the user's -lmpich" "$out" '"-lcommhint".*"-lmpich"'
out=$(cd "$WORK" && "$CH" cc mpicc -### -c loop.c -O3 -o loop.o 2>&1)
expect_scalar_loops "cc mpicc -c loop.c -O3 -o loop.o (options after the input, -o last): loops stay scalar" "$out"
out=$(cd "$WORK" && "$CH" cc mpicxx -### -O3 -x c++ -c loop.c 2>&1)
expect_scalar_loops "cc mpicxx -O3: loops stay scalar" "$out"
out=$(cd "$WORK" && "$CH" cc "$CLANG" -### -O2 -c -- loop.c 2>&1)
expect_scalar_loops "cc $CLANG -O2 -c -- loop.c: the flags go before '--'" "$out"
expect_no_match "cc $CLANG -O2 -c -- loop.c: nothing of commhint's is taken for an input" "$out" 'no such file'
# The user's own -funroll-loops / -fvectorize lose too (the trace's loops are
# the source's), with a warning naming them.
out=$(cd "$WORK" && "$CH" cc mpicc -### -O3 -funroll-loops -fvectorize -fslp-vectorize -c loop.c 2>&1)
expect_scalar_loops "cc mpicc -O3 -funroll-loops -fvectorize: loops stay scalar" "$out"
expect_match "cc mpicc -funroll-loops -fvectorize: a warning names the flags overridden" "$out" \
    '^commhint: warning: .*flags=-funroll-loops,-fvectorize,-fslp-vectorize .*COMMHINT_KEEP_LOOP_OPTS=1'
# The documented way to keep them: COMMHINT_KEEP_LOOP_OPTS=1 leaves the
# user's -O level and flags in charge.
out=$(cd "$WORK" && COMMHINT_KEEP_LOOP_OPTS=1 "$CH" cc mpicc -### -O2 -c loop.c 2>&1)
expect_match "COMMHINT_KEEP_LOOP_OPTS=1 cc mpicc -O2: the vectoriser stays on" "$(cc1_flags "$out")" '^-vectorize-loops$'
out=$(cd "$WORK" && COMMHINT_KEEP_LOOP_OPTS=1 "$CH" cc mpicc -### -O2 -funroll-loops -c loop.c 2>&1)
expect_match "COMMHINT_KEEP_LOOP_OPTS=1 cc mpicc -O2 -funroll-loops: unrolling stays on" "$(cc1_flags "$out")" '^-funroll-loops$'
expect_no_match "COMMHINT_KEEP_LOOP_OPTS=1: no warning" "$out" '^commhint: warning'
# What the code is: the loop compiled with the pass at -O2 and -O3 has no
# vector type, where the same build with COMMHINT_KEEP_LOOP_OPTS=1 has (so
# this check can see vectorisation on this machine).
for O in -O2 -O3; do
    if ir=$(cd "$WORK" && "$CH" cc mpicc $O -S -emit-llvm -o - loop.c 2>&1); then
        expect_no_match "cc mpicc $O: the loop is not vectorised (no vector type in the IR)" "$ir" '<[0-9]+ x (double|i64|ptr)>'
    else
        not_ok "cc mpicc $O -S -emit-llvm exits 0" "$ir"
    fi
    ir=$(cd "$WORK" && COMMHINT_KEEP_LOOP_OPTS=1 "$CH" cc mpicc $O -S -emit-llvm -o - loop.c 2>&1)
    expect_match "COMMHINT_KEEP_LOOP_OPTS=1 cc mpicc $O: the loop is vectorised" "$ir" 'fmul <[0-9]+ x double>'
done
