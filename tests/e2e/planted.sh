#!/usr/bin/env bash
# Trace files cannot be hijacked (issue 19, item 1): a traced run under
# plain mpiexec with COMMHINT_TRACE_DIR pointing at a directory where
# someone planted links at the names the runtime writes - symbolic links
# to a victim file at the rank files and the meta file, a hard link at
# another rank file - leaves the victim untouched, replaces the links by
# the trace's own files and gives a readable trace; a trace directory that
# belongs to another user is refused (one warning, nothing written, the
# program's output unchanged).  Before the runtime created its files with
# O_NOFOLLOW|O_EXCL after removing the name, the victim was overwritten.
source "$(dirname "$0")/lib.sh"

MPIEXEC=${MPIEXEC:-mpiexec}
SRC=tests/e2e/programs/hints-basic.c
if ! build_prog "$SRC" "$WORK/prog" -O2 >"$WORK/build.log" 2>&1; then
    not_ok "planted: builds with commhint cc" "$(cat "$WORK/build.log")"
    exit 0
fi
want=$("$MPIEXEC" -n 2 "$WORK/prog" 2>/dev/null)

victim=$WORK/victim.txt
printf 'precious\n' >"$victim"
dir=$WORK/shared
mkdir "$dir"
ln -s "$victim" "$dir/rank-00000.chtr"
ln -s "$victim" "$dir/commhint.meta"
ln "$victim" "$dir/rank-00001.chtr"
got=$(COMMHINT_TRACE_DIR=$dir "$MPIEXEC" -n 2 "$WORK/prog" 2>"$WORK/err")
expect_eq "planted: the program's output is unchanged" "$got" "$want"
expect_eq "planted: the victim of the links is untouched" "$(cat "$victim")" "precious"
for f in rank-00000.chtr rank-00001.chtr commhint.meta; do
    if [ -f "$dir/$f" ] && [ ! -L "$dir/$f" ] && ! [ "$dir/$f" -ef "$victim" ]; then
        ok "planted: $f is the trace's own file now"
    else
        not_ok "planted: $f is the trace's own file now" "$(ls -l "$dir")"
    fi
done
info=$("$CH" info "$dir" --format=json 2>&1)
expect_eq "planted: the trace has both ranks complete" "$(grep -o '"status":"complete"' <<<"$info" | wc -l)" 2
expect_eq "planted: no warning" "$(cat "$WORK/err")" ""
expect_eq "planted: no temporary file is left" "$(find "$dir" -name '.commhint.meta.*' | wc -l)" 0

# a trace directory that belongs to someone else
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    foreign=$WORK/foreign
    mkdir "$foreign"
    chown nobody "$foreign"
    got=$(COMMHINT_TRACE_DIR=$foreign "$MPIEXEC" -n 2 "$WORK/prog" 2>"$WORK/err")
    expect_eq "foreign directory: the program's output is unchanged" "$got" "$want"
    expect_match "foreign directory: refused with one clear warning" "$(cat "$WORK/err")" \
        "cannot write trace, tracing stopped: file=$foreign reason=the trace directory belongs to another user"
    expect_eq "foreign directory: nothing is written in it" "$(find "$foreign" -mindepth 1 | wc -l)" 0
else
    echo "ok # skip foreign directory: needs root to make a directory of another user"
fi
