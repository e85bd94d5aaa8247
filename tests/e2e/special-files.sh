#!/usr/bin/env bash
# Special files never hang a reader (issue 19, item 5), and are refused the
# same way at every path (item 8): a FIFO at commhint.meta makes info,
# dump, hints and export fail at once with "not a regular file"; a FIFO or
# a directory at a rank file's name leaves that rank out with the same
# reason; a --preload trace whose recorded binary is now a FIFO is dumped
# without symbols instead of blocking.  Every command runs under a 30 s
# timeout: a hang fails the check.
source "$(dirname "$0")/lib.sh"

SRC=tests/e2e/programs/hints-basic.c
if ! build_prog "$SRC" "$WORK/prog" -O2 >"$WORK/build.log" 2>&1; then
    not_ok "special files: builds with commhint cc" "$(cat "$WORK/build.log")"
    exit 0
fi
dir=$WORK/t.trace
trace_run "$dir" 2 "$WORK/prog"

# a FIFO at the meta file
fifo=$WORK/fifo.trace
cp -r "$dir" "$fifo"
rm "$fifo/commhint.meta"
mkfifo "$fifo/commhint.meta"
for cmd in "info" "dump" "hints" "export --format=chrome"; do
    # shellcheck disable=SC2086
    out=$(timeout 30 "$CH" $cmd "$fifo" 2>&1 >/dev/null); rc=$?
    expect_eq "FIFO at commhint.meta: $cmd fails at once" "$rc" 1
    expect_match "FIFO at commhint.meta: $cmd says it is not a regular file" "$out" \
        "commhint.meta offset=0 reason=not a regular file"
done

# a FIFO, then a directory, at a rank file
for kind in fifo dir; do
    r=$WORK/rank-$kind.trace
    cp -r "$dir" "$r"
    rm "$r/rank-00001.chtr"
    if [ $kind = fifo ]; then mkfifo "$r/rank-00001.chtr"; else mkdir "$r/rank-00001.chtr"; fi
    out=$(timeout 30 "$CH" hints "$r" 2>&1 >/dev/null); rc=$?
    expect_eq "$kind at a rank file: hints goes on with the other rank" "$rc" 0
    expect_match "$kind at a rank file: the rank is left out as not a regular file" "$out" \
        "rank-00001.chtr offset=0 reason=not a regular file"
    out=$(timeout 30 "$CH" dump "$r" --rank 1 2>&1 >/dev/null); rc=$?
    expect_eq "$kind at a rank file: dump of that rank fails at once" "$rc" 1
    expect_match "$kind at a rank file: dump says why" "$out" "not a regular file"
done

# a --preload trace whose binary is now a FIFO
mpicc -O2 -g -o "$WORK/plain" "$SRC"
pre=$WORK/pre.trace
"$CH" run --preload -n 2 -o "$pre" -- "$WORK/plain" >/dev/null 2>&1
rm "$WORK/plain"
mkfifo "$WORK/plain"
timeout 30 "$CH" dump "$pre" --rank 0 >"$WORK/dump.out" 2>"$WORK/dump.err"; rc=$?
expect_eq "FIFO at the recorded binary: dump does not block" "$([ $rc = 124 ] && echo blocked || echo done)" done
expect_eq "FIFO at the recorded binary: dump prints the events" "$([ -s "$WORK/dump.out" ] && echo yes || echo no)" yes
