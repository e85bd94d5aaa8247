#!/usr/bin/env bash
# Lost output is never a success (issue 19, item 6): every command that
# writes results on standard output, with that output going to /dev/full
# (a full disk), exits 1 with one message saying it could not write, and
# exits 0 when the output gets through.
source "$(dirname "$0")/lib.sh"

SRC=tests/e2e/programs/hints-basic.c
if ! build_prog "$SRC" "$WORK/prog" -O2 >"$WORK/build.log" 2>&1; then
    not_ok "output errors: builds with commhint cc" "$(cat "$WORK/build.log")"
    exit 0
fi
dir=$WORK/t.trace
trace_run "$dir" 2 "$WORK/prog"
[ -w /dev/full ] || { echo "ok # skip output errors: no /dev/full"; exit 0; }

while IFS='|' read -r label args; do
    # shellcheck disable=SC2086
    "$CH" $args >/dev/full 2>"$WORK/err"
    rc=$?
    expect_eq "$label to a full disk exits 1" "$rc" 1
    expect_match "$label to a full disk says so" "$(cat "$WORK/err")" \
        "^commhint: error: cannot write the [a-z]+: file=<stdout> reason=No space left on device$"
    expect_eq "$label to a full disk: one message" "$(wc -l <"$WORK/err")" 1
    # shellcheck disable=SC2086
    "$CH" $args >/dev/null 2>&1
    expect_eq "$label to /dev/null exits 0" "$?" 0
done <<EOF2
info|info $dir
info --format=json|info $dir --format=json
dump|dump $dir
dump --format=json|dump $dir --format=json --rank 1
hints|hints $dir
hints --format=sarif|hints $dir --format=sarif
export|export $dir --format=chrome
--help|--help
hints --help|hints --help
--version|--version
EOF2
