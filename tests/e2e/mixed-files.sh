#!/usr/bin/env bash
# Mixed-up files are damage, not data: a chunk copied from another rank's
# file (file_id in every chunk, trace format 7), chunks out of order (seq),
# a rank file from a run of another size (world_size against the meta file).
# Each is reported as damaged with where and why; the rank is left out of
# the analysis with a warning, never analysed with the wrong records.
source "$(dirname "$0")/lib.sh"
X=tests/e2e/chunks.py
COMMHINT_BUFFER_KB=64 trace_run "$WORK/t" 2 "$B/examples/O2/jacobi"
expect_eq "jacobi traced with small buffers" "$?" 0
n0=$(python3 $X count "$WORK/t/rank-00000.chtr")
n1=$(python3 $X count "$WORK/t/rank-00001.chtr")
[ "$n0" -ge 4 ] && [ "$n1" -ge 4 ]
expect_eq "both ranks wrote several chunks ($n0, $n1)" "$?" 0

# damaged DIR WHAT PATTERN: info and hints on DIR report rank 1 damaged
damaged() {
    local dir=$1 what=$2 pat=$3 info st
    info=$("$CH" info "$dir" 2>&1)
    st=$?
    expect_eq "$what: info exits 1 (damage)" "$st" 1
    expect_match "$what: info reports rank 1 damaged" "$info" "^ +1 .* damaged$"
    expect_match "$what: info says where and why" "$info" "^rank 1 damaged: $pat"
    "$CH" hints "$dir" >/dev/null 2>"$WORK/h.err"
    expect_match "$what: hints leaves rank 1 out with a warning" "$(cat "$WORK/h.err")" \
        "warning: rank 1 could not be analysed and is left out: $pat"
}

cp -r "$WORK/t" "$WORK/copy"
python3 $X copy "$WORK/t/rank-00000.chtr" "$WORK/t/rank-00001.chtr" "$WORK/copy/rank-00001.chtr" 2
damaged "$WORK/copy" "rank 0's chunk 2 in rank 1's file" \
    "bad chunk header: file=.*rank-00001.chtr offset=[0-9]+ reason=the chunk belongs to another file"

cp -r "$WORK/t" "$WORK/swap"
python3 $X swap "$WORK/t/rank-00001.chtr" "$WORK/swap/rank-00001.chtr" 1
damaged "$WORK/swap" "chunks 1 and 2 exchanged" "bad chunk header: .* reason=seq=2 but 1 expected"

cp -r "$WORK/t" "$WORK/world"
python3 $X world "$WORK/t/rank-00001.chtr" "$WORK/world/rank-00001.chtr" 4
damaged "$WORK/world" "a rank file of a 4-rank run" \
    "stream was written by a run of another size: .* world_size=4 meta world_size=2"

# the untouched trace reads clean
"$CH" info "$WORK/t" >/dev/null 2>&1
expect_eq "the original trace: info exits 0" "$?" 0
