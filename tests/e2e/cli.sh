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
