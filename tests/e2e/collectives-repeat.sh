#!/usr/bin/env bash
# Repeated collectives merged only when one call can replace them (issue
# 16, item 1): programs/coll-repeat.c, built at -O0 and -O2, traced on 4 and
# 2 ranks.  Per pattern, the collective hints whose call lines are the
# pattern's:
#   r1 MIN, MAX, SUM Allreduce of a long       none (three operators)
#   r2 SUM then MAX Reduce of a double         none
#   r3 two SUM Allreduce of doubles            one: "one MPI_Allreduce of their concatenated buffers"
#   r4 SUM Allreduce of a long, then a double  none (no one datatype)
#   r5 Bcast of a count, Bcast of that many    none (the count is the first call's result)
#   r6 Bcast of ints, then of doubles          one: "with a derived datatype"
#   r7 two Bcast of 0 elements                 none (nothing moves)
# Before the fix r1, r2, r4 and r7 each got a merge hint.  `--explain`
# says why each of r1, r2, r4, r5 and r7 is not one call.  Also: the traced
# run prints what the untraced one prints, and the JSON is the same with
# `--parallel 2` (the record's operator and datatype travel in the packed
# logs) and with the reference engine.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
src=$P/coll-repeat.c

# merges JSON MARKER-PREFIX: the collective hints at the lines of the
# pattern's markers, as "n: message" (n hints), or "0"
merges() {
    local lines
    lines=$(grep -n -F "/* $2-" "$src" | cut -d: -f1 | tr '\n' ',')
    python3 -c '
import json, os, sys
lines = {int(x) for x in sys.argv[1].split(",") if x}
d = json.loads(sys.stdin.read())
hs = [h for h in d["hints"] if h["kind"] == "collective" and h["line"] in lines
      and os.path.basename(h["file"]) == "coll-repeat.c"]
print("%d%s" % (len(hs), "".join(": " + h["message"] for h in hs)))' "$lines" <<<"$1" 2>&1
}

for O in -O0 -O2; do
    bin=$WORK/coll-repeat$O
    check "coll-repeat $O: builds" build_prog "$src" "$bin" "$O"
    check "coll-repeat $O: builds without the pass" mpicc -g "$O" -o "$bin-plain" "$src"
    for np in 4 2; do
        dir=$WORK/coll-repeat$O-$np.trace
        want=$(timeout 60 mpiexec -n "$np" "$bin-plain" 2>&1)
        trace_run "$dir" "$np" "$bin"
        expect_eq "coll-repeat $O $np ranks: traced run exits 0" "$?" 0
        expect_eq "coll-repeat $O $np ranks: tracing leaves the output unchanged" \
            "$(grep '^coll-repeat:' "$dir.out")" "$want"
        js=$("$CH" hints "$dir" --format=json 2>"$WORK/hints.err")
        expect_eq "coll-repeat $O $np ranks: hints exits 0" "$?" 0
        for p in R1 R2 R4 R5 R7; do
            expect_eq "coll-repeat $O $np ranks: no merge hint for ${p,,}" "$(merges "$js" "$p")" 0
        done
        expect_match "coll-repeat $O $np ranks: r3, two SUM reductions of doubles, are one call" \
            "$(merges "$js" R3)" "^1: the 2 MPI_Allreduce calls at lines [0-9]+, [0-9]+ can be one MPI_Allreduce of their concatenated buffers "
        expect_match "coll-repeat $O $np ranks: r6, broadcasts of ints and doubles, need a derived datatype" \
            "$(merges "$js" R6)" "^1: the 2 MPI_Bcast calls at lines [0-9]+, [0-9]+ can be one MPI_Bcast with a derived datatype "
        ex=$("$CH" hints "$dir" --explain 2>&1)
        l() { line_of "$src" "/* $1 */"; }
        expect_match "coll-repeat $O $np ranks: --explain: r1's operators" "$ex" \
            "different reduction operators \(MPI_MIN at coll-repeat.c:$(l R1-A), MPI_MAX at coll-repeat.c:$(l R1-B)\)"
        expect_match "coll-repeat $O $np ranks: --explain: r2's operators" "$ex" \
            "different reduction operators \(MPI_SUM at coll-repeat.c:$(l R2-A), MPI_MAX at coll-repeat.c:$(l R2-B)\)"
        expect_match "coll-repeat $O $np ranks: --explain: r4's datatypes" "$ex" \
            "different or derived datatypes \(coll-repeat.c:$(l R4-A), coll-repeat.c:$(l R4-B)\)"
        expect_match "coll-repeat $O $np ranks: --explain: r5's count comes from the first call" "$ex" \
            "(what the call at coll-repeat.c:$(l R5-B) sends is written after|the result of the call at coll-repeat.c:$(l R5-A) is used)"
        expect_match "coll-repeat $O $np ranks: --explain: r7 moves nothing" "$ex" \
            "a call moves nothing \(count 0\) at coll-repeat.c:$(l R7-A) or coll-repeat.c:$(l R7-B)"
        a=$("$CH" hints "$dir" --format=json --stable 2>&1)
        b=$("$CH" hints "$dir" --format=json --stable --engine=reference 2>&1)
        if [ "$a" = "$b" ]; then ok "coll-repeat $O $np ranks: streaming and reference engines agree"; else
            not_ok "coll-repeat $O $np ranks: streaming and reference engines agree" "$(diff <(echo "$a") <(echo "$b") | head -20)"; fi
        c=$(timeout 120 mpiexec -n 2 "$CH" hints --parallel "$dir" --format=json --stable 2>&1)
        if [ "$a" = "$c" ]; then ok "coll-repeat $O $np ranks: --parallel 2 gives the same hints"; else
            not_ok "coll-repeat $O $np ranks: --parallel 2 gives the same hints" "$(diff <(echo "$a") <(echo "$c") | head -20)"; fi
    done
done
