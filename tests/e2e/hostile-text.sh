#!/usr/bin/env bash
# Untrusted text never reaches the terminal raw (issue 19, item 7): a
# program whose source file name carries a terminal escape sequence (as a
# crafted trace could) is traced; the text of `hints` and `dump` and the
# messages on standard error show the escape character as \x1b, and no raw
# control character but newline and tab comes out.
source "$(dirname "$0")/lib.sh"

esc=$(printf '\033')
src="$WORK/bad${esc}[31mname.c"
cp tests/e2e/programs/hints-basic.c "$src"
if ! build_prog "$src" "$WORK/prog" -O2 >"$WORK/build.log" 2>&1; then
    not_ok "hostile text: builds with commhint cc" "$(cat "$WORK/build.log")"
    exit 0
fi
dir=$WORK/t.trace
trace_run "$dir" 2 "$WORK/prog"

raw() { LC_ALL=C grep -c "$(printf '[\001-\010\013-\037\177]')" "$1"; }
COMMHINT_MIN_SAVING=0 "$CH" hints "$dir" >"$WORK/hints.out" 2>"$WORK/hints.err"
expect_eq "hostile text: hints exits 0" "$?" 0
expect_eq "hostile text: the hints' text has no raw control character" "$(raw "$WORK/hints.out")" 0
expect_match "hostile text: the file name is shown escaped" "$(head -1 "$WORK/hints.out")" 'bad\\x1b\[31mname\.c:[0-9]+:[0-9]+: note: '
"$CH" dump "$dir" --rank 1 >"$WORK/dump.out" 2>"$WORK/dump.err"
expect_eq "hostile text: dump exits 0" "$?" 0
expect_eq "hostile text: dump's text has no raw control character" "$(raw "$WORK/dump.out")" 0
expect_match "hostile text: dump shows the name escaped" "$(grep -m1 'MPI_' "$WORK/dump.out")" 'bad\\x1b\[31mname\.c'
# a message naming a file of the trace: the rank file made unreadable
cp -r "$dir" "$WORK/esc${esc}[2J.trace"
rm "$WORK/esc${esc}[2J.trace/rank-00001.chtr"
mkfifo "$WORK/esc${esc}[2J.trace/rank-00001.chtr"
"$CH" hints "$WORK/esc${esc}[2J.trace" >/dev/null 2>"$WORK/warn.err"
expect_eq "hostile text: warnings have no raw control character" "$(raw "$WORK/warn.err")" 0
expect_match "hostile text: the warning names the path escaped" "$(cat "$WORK/warn.err")" 'esc\\x1b\[2J\.trace/rank-00001\.chtr'
