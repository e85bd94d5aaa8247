#!/usr/bin/env bash
# Run encoding (CHT_REC_REPEAT, and CHT_REC_PACK for the records no run
# takes): every bundled example at -O0 and -O2 on 4
# ranks (the largest at smaller sizes: small_args in lib.sh), traced with COMMHINT_RUNS=0 and with runs on, decodes to the same
# events (dump --stable) and the same hints.  On the regular Jacobi sweeps
# the trace with runs is several times smaller; on the others (short loops,
# many MPI calls, so zstd already finds the repetition) it is at most 10%
# larger (compressed sizes vary with where chunks end: the runtime's
# time-bound flusher is off here, COMMHINT_FLUSH_MS=0, so that chunks end
# where buffers fill, not where a loaded machine's clock says).  The analysis of the
# trace with runs, which hands them to the engine whole, gives the same JSON
# as with --expand-runs (every event on its own), times included.
source "$(dirname "$0")/lib.sh"
export COMMHINT_FLUSH_MS=0
# the ranks run with address randomisation off where setarch can, so that
# both traces of a program carry the same addresses and their sizes compare
# (with it, the dft example's streams vary by +-5% from run to run)
norand=()
setarch "$(uname -m)" -R true 2>/dev/null && norand=(setarch "$(uname -m)" -R)

# bytes of the rank streams of a trace directory
stream_bytes() { cat "$1"/rank-*.chtr | wc -c; }
# the trace's records before compression (commhint info)
record_bytes() { "$CH" info "$1" 2>/dev/null | sed -n 's/.*uncompressed records \([0-9]*\)).*/\1/p'; }

for src in examples/*.c; do
    ex=$(basename "$src" .c)
    for O in O0 O2; do
        bin=$B/examples/$O/$ex
        [ -x "$bin" ] || { not_ok "$ex $O: instrumented binary exists" "$bin"; continue; }
        # same base name: hints name the trace by it
        mkdir -p "$WORK/off" "$WORK/on"
        off=$WORK/off/$ex-$O
        on=$WORK/on/$ex-$O
        read -r -a args <<<"$(small_args "$ex")"
        COMMHINT_RUNS=0 trace_run "$off" "$NP" "${norand[@]}" "$bin" "${args[@]}"
        expect_eq "$ex $O: traced run with COMMHINT_RUNS=0 exits 0" "$?" 0
        COMMHINT_RUNS=1 trace_run "$on" "$NP" "${norand[@]}" "$bin" "${args[@]}"
        expect_eq "$ex $O: traced run with runs exits 0" "$?" 0
        "$CH" dump "$off" --stable --loops >"$off.dump" 2>"$off.derr"
        expect_eq "$ex $O: dump without runs exits 0" "$?" 0
        "$CH" dump "$on" --stable --loops >"$on.dump" 2>"$on.derr"
        expect_eq "$ex $O: dump with runs exits 0" "$?" 0
        if cmp -s "$off.dump" "$on.dump"; then
            ok "$ex $O: dump --stable identical with and without runs ($(wc -l <"$on.dump") lines)"
        else
            not_ok "$ex $O: dump --stable identical with and without runs" "$(diff "$off.dump" "$on.dump" | head -10)"
        fi
        # a few GB each on the larger examples: not kept for the next ones
        rm -f "$off.dump" "$on.dump"
        "$CH" hints "$off" --format=json --stable >"$off.hints" 2>/dev/null
        "$CH" hints "$on" --format=json --stable >"$on.hints" 2>/dev/null
        same_file "$ex $O: hints --format=json --stable identical with and without runs" "$off.hints" "$on.hints"
        # the engine on whole runs against the same trace event by event:
        # identical to the last nanosecond
        "$CH" hints "$on" --format=json >"$on.whole" 2>/dev/null
        "$CH" hints "$on" --format=json --expand-runs >"$on.expanded" 2>/dev/null
        if [ -s "$on.whole" ] && cmp -s "$on.whole" "$on.expanded"; then
            ok "$ex $O: hints --format=json on whole runs identical to --expand-runs"
        else
            not_ok "$ex $O: hints --format=json on whole runs identical to --expand-runs" "$(diff "$on.whole" "$on.expanded" | head -10)"
        fi
        a=$(stream_bytes "$off"); b=$(stream_bytes "$on")
        echo "# $ex $O: rank streams $a bytes without runs, $b bytes with runs"
        if [ "$ex" = jacobi ]; then
            if [ $((b * 4)) -lt "$a" ]; then ok "$ex $O: trace with runs is at least 4x smaller ($b vs $a bytes)"
            else not_ok "$ex $O: trace with runs is at least 4x smaller" "without: $a bytes" "with: $b bytes"; fi
        elif [ $((b * 10)) -le $((a * 11)) ]; then ok "$ex $O: trace with runs is at most 10% larger ($b vs $a bytes)"
        else not_ok "$ex $O: trace with runs is at most 10% larger" "without: $a bytes" "with: $b bytes"; fi
    done
done

# Columns (CHT_REC_REPEAT_COL) and packs (CHT_REC_PACK): indirect accesses
# through a random neighbour list (programs/gather.c) on 2 ranks, traced
# three ways: strided runs only and every other record as is
# (COMMHINT_PACK=0 COMMHINT_COLUMNS=0), runs with columns
# (COMMHINT_PACK=0 COMMHINT_COLUMNS=1), and the default (strided runs, the
# other records packed).  All three decode to the same events and hints.
# The records with columns are at least 1.5x fewer bytes than the strided
# ones before compression (1.83x at -O0 on 2026-12-01: what the encoding
# saves, the same on every machine).  On disk, zstd's gain on the strided
# records depends on where the arrays lie in memory (the addresses their
# runs hold): with address randomisation two runs at -O0 gave 1.28x and
# 1.08x, and setarch -R fixes a layout that differs between machines and
# kernels (1.32x at -O0 where this was written, 1.157x on 2026-12-01's).
# So the trace with columns is at least 1.25x smaller on disk at -O2 (1.29x
# and 1.38x) and no larger at -O0.  The packed one is at least 1.5x smaller
# than the strided one (2.61x at -O0, 4.16x at -O2) and no larger than the
# one with columns (1.97x and 3.21x smaller).
src=tests/e2e/programs/gather.c
for O in -O0 -O2; do
    bin=$WORK/gather$O
    check "gather $O: builds" build_prog "$src" "$bin" "$O"
    mkdir -p "$WORK/nocol" "$WORK/col" "$WORK/packed"
    off=$WORK/nocol/gather$O
    on=$WORK/col/gather$O
    pk=$WORK/packed/gather$O
    COMMHINT_PACK=0 COMMHINT_COLUMNS=0 trace_run "$off" 2 "${norand[@]}" "$bin" 6000 5
    expect_eq "gather $O: traced run with strided runs only exits 0" "$?" 0
    COMMHINT_PACK=0 COMMHINT_COLUMNS=1 trace_run "$on" 2 "${norand[@]}" "$bin" 6000 5
    expect_eq "gather $O: traced run with columns exits 0" "$?" 0
    trace_run "$pk" 2 "${norand[@]}" "$bin" 6000 5
    expect_eq "gather $O: traced run with packs exits 0" "$?" 0
    expect_eq "gather $O: the program prints the same" "$(grep '^gather:' "$on.out")" "$(grep '^gather:' "$off.out")"
    expect_eq "gather $O: the program prints the same with packs" "$(grep '^gather:' "$pk.out")" "$(grep '^gather:' "$off.out")"
    "$CH" dump "$off" --stable --loops >"$off.dump" 2>/dev/null
    for t in "$on" "$pk"; do
        what=columns; [ "$t" = "$pk" ] && what=packs
        "$CH" dump "$t" --stable --loops >"$t.dump" 2>/dev/null
        if [ -s "$t.dump" ] && cmp -s "$off.dump" "$t.dump"; then
            ok "gather $O: dump --stable identical with strided runs only and with $what ($(wc -l <"$t.dump") lines)"
        else
            not_ok "gather $O: dump --stable identical with strided runs only and with $what" "$(diff "$off.dump" "$t.dump" | head -10)"
        fi
        rm -f "$t.dump"
    done
    rm -f "$off.dump"
    "$CH" hints "$off" --format=json --stable --all >"$off.hints" 2>/dev/null
    for t in "$on" "$pk"; do
        what=columns; [ "$t" = "$pk" ] && what=packs
        "$CH" hints "$t" --format=json --stable --all >"$t.hints" 2>/dev/null
        if [ -s "$t.hints" ] && cmp -s "$off.hints" "$t.hints"; then
            ok "gather $O: hints --format=json --stable identical with strided runs only and with $what"
        else
            not_ok "gather $O: hints identical with strided runs only and with $what" "$(diff "$off.hints" "$t.hints" | head -10)"
        fi
    done
    a=$(stream_bytes "$off"); b=$(stream_bytes "$on"); c=$(stream_bytes "$pk")
    echo "# gather $O: rank streams $a bytes with strided runs only, $b bytes with columns, $c bytes with packs"
    ua=$(record_bytes "$off"); ub=$(record_bytes "$on")
    echo "# gather $O: records before compression: $ua bytes with strided runs only, $ub bytes with columns"
    if [ -n "$ua" ] && [ -n "$ub" ] && [ $((ub * 3)) -le $((ua * 2)) ]; then
        ok "gather $O: the records with columns are at least 1.5x fewer bytes before compression ($ub vs $ua)"
    else
        not_ok "gather $O: the records with columns are at least 1.5x fewer bytes before compression" "without: $ua" "with: $ub"
    fi
    # on disk, at least a/b >= num/den: 1.25 at -O2, 1 at -O0 (above)
    num=5 den=4 at="at least 1.25x smaller"; [ "$O" = -O0 ] && num=1 den=1 at="no larger"
    if [ $((b * num)) -le $((a * den)) ]; then ok "gather $O: the trace with columns is $at on disk ($b vs $a bytes)"
    else not_ok "gather $O: the trace with columns is $at on disk" "without: $a bytes" "with: $b bytes"; fi
    if [ $((c * 3)) -le $((a * 2)) ] && [ "$c" -le "$b" ]; then
        ok "gather $O: the packed trace is at least 1.5x smaller than the strided one and no larger than with columns ($c vs $a and $b bytes)"
    else
        not_ok "gather $O: the packed trace is at least 1.5x smaller than the strided one and no larger than with columns" "strided: $a bytes" "columns: $b bytes" "packs: $c bytes"
    fi
done
