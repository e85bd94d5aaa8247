#!/usr/bin/env bash
# Aggregation that needs a buffer per message (docs/dependence.md, "Needs
# a buffer per message"): a program of ours (programs/agg-staging.c),
# instrumented at -O0 and -O2 and traced on 2 ranks, gets one aggregation
# flagged needs-buffer for the three faces packed into one staging buffer,
# naming the buffer's send and the pack that overwrites it; the two sends
# from distinct buffers keep their unflagged hint with the usual text; a
# second message computed from the first's reply gets none; both engines
# print the same hints.
# Overlap (the same section, and "Communication-computation overlap"): the
# first staged send's window ends at the next pack, so it has no plain
# hint, only the needs-buffer variant, whose window holds that pack; the
# first send from a distinct buffer has no variant (the next send of its
# channel ends its window) and its plain hint as before; the second has
# both (its buffer is rewritten at the next step), and they differ only
# by what the variant adds.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
src=$P/agg-staging.c
flat() { python3 tests/e2e/hints-flat.py; }
S1=$(line_of "$src" "/* ST-1 */"); S2=$(line_of "$src" "/* ST-2 */"); S3=$(line_of "$src" "/* ST-3 */")
P2=$(line_of "$src" "/* PACK-2 */")
D1=$(line_of "$src" "/* DB-1 */"); D2=$(line_of "$src" "/* DB-2 */")
F1=$(line_of "$src" "/* FL-1 */"); F2=$(line_of "$src" "/* FL-2 */")
W=$(line_of "$src" "w[i] = u[3][i] * 3")
# flags and message of the aggregation hint at line $2 in JSON $1
agg_at() {
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for h in d["hints"]:
    if h["kind"] == (sys.argv[3] if len(sys.argv) > 3 else "aggregate") and h["line"] == int(sys.argv[2]):
        nb = h.get("buffer"), h.get("overwritten_at")
        at = "%s:%d>%s:%d|" % (nb[0]["file"].split("/")[-1], nb[0]["line"], nb[1]["file"].split("/")[-1],
                               nb[1]["line"]) if nb[0] else ""
        print(at + (",".join(h["flags"]) or "-"), "|", h["message"])' "$@"
}
# flags and message of each overlap hint at line $2 in JSON $1 (as agg_at)
ov_at() { agg_at "$1" "$2" overlap; }
for O in -O0 -O2; do
    bin=$WORK/agg-staging$O
    check "agg-staging $O: builds" build_prog "$src" "$bin" "$O"
    d=$WORK/st$O
    trace_run "$d" 2 "$bin"
    expect_eq "agg-staging $O: traced run exits 0" "$?" 0
    "$CH" hints "$d" --format=json --stable >"$d.json" 2>"$d.hints.err"
    expect_eq "agg-staging $O: hints exit 0" "$?" 0
    h=$(flat <"$d.json")
    agg=$(printf '%s\n' "$h" | grep "^aggregate")
    expect_match "agg-staging $O: the staged faces are one group" "$agg" \
        "^aggregate MPI_Send [^ ]*:$S1 ranks=0,1 .*related=$S2:member,$S3:member\$"
    a=$(agg_at "$d.json" "$S1")
    expect_match "agg-staging $O: flagged needs-buffer, buffer and overwrite in JSON" "$a" \
        "^agg-staging\.c:$S1>agg-staging\.c:$P2\|needs-buffer,two-ranks \|"
    expect_match "agg-staging $O: names the buffer and the statement that overwrites it" "$a" \
        "can be sent as one message if each gets its own buffer \(needs a buffer per message: the send buffer at line $S1 is overwritten at agg-staging\.c:$P2; ranks 0-1, 8 groups\)\$"
    b=$(agg_at "$d.json" "$D1")
    expect_eq "agg-staging $O: distinct buffers: unflagged but for the 2-rank run, as before" "$b" \
        "two-ranks | 2 MPI_Send calls to the same rank at lines $D1-$D2 can be sent as one message (ranks 0-1, 8 groups)"
    expect_eq "agg-staging $O: two aggregation hints, none for the flow" "$(printf '%s\n' "$agg" | grep -c .)" 2
    expect_eq "agg-staging $O: no hint with the flow's sends" \
        "$(printf '%s\n' "$agg" | grep -c -E ":($F1|$F2)[ :]")" 0
    t=$("$CH" hints "$d" --stable 2>&1)
    expect_match "agg-staging $O: text says it needs a buffer per message" "$t" \
        "\[aggregate\] 3 MPI_Send calls to the same rank at lines $S1, $S2, $S3 can be sent as one message if each gets its own buffer \(needs a buffer per message"
    r=$("$CH" hints "$d" --format=json --stable --engine=reference 2>/dev/null)
    if [ "$r" = "$(cat "$d.json")" ]; then ok "agg-staging $O: both engines agree"
    else not_ok "agg-staging $O: both engines agree" "$(diff <(echo "$r") "$d.json" | head -20)"; fi
    s=$("$CH" hints "$d" --format=sarif --stable 2>&1)
    expect_match "agg-staging $O: SARIF carries the flag" "$s" "needs-buffer"

    o=$(ov_at "$d.json" "$S1")
    expect_eq "agg-staging $O: the first staged send overlaps the next pack only with a buffer per message" "$o" \
        "agg-staging.c:$S1>agg-staging.c:$P2|needs-buffer | MPI_Send can overlap with the computation at line $P2 if each message gets its own buffer (needs a buffer per message: the send buffer at line $S1 is overwritten at agg-staging.c:$P2; ranks 0-1)"
    expect_eq "agg-staging $O: distinct buffers: the plain overlap hint, no variant" "$(ov_at "$d.json" "$D1")" \
        "- | MPI_Send can overlap with the computation at line $W (ranks 0-1)"
    # the plain hint first, the variant second, whichever the replay ranks first
    o=$(ov_at "$d.json" "$D2" | LC_ALL=C sort)
    expect_eq "agg-staging $O: a buffer rewritten at the next step: the plain hint and the variant" \
        "$(printf '%s\n' "$o" | sed 's/ | .*//' | paste -sd' ')" "- agg-staging.c:$D2>agg-staging.c:$W|needs-buffer"
    plain=$(printf '%s\n' "$o" | sed -n 1p | sed 's/.* at lines \(.*\) (ranks.*/\1/')
    var=$(printf '%s\n' "$o" | sed -n 2p | sed 's/.* at lines \(.*\) if each .*/\1/')
    # the plain fix waits before the loop that rewrites the buffer (its
    # first line, W - 1, rewrites the other one), the variant after it
    expect_eq "agg-staging $O: the variant adds the loop that rewrites the buffer to the plain lines" \
        "$(printf '%s' "$var" | sed "s/, $((W - 1))-$W,/,/")" "$plain"
    if mpiexec -n 2 "$CH" hints --parallel "$d" --format=json --stable >"$d.par" 2>/dev/null; then
        expect_eq "agg-staging $O: --parallel gives the same hints" "$(cat "$d.par")" "$(cat "$d.json")"
    else
        not_ok "agg-staging $O: --parallel gives the same hints" "mpiexec -n 2 commhint hints --parallel failed"
    fi
done
