#!/usr/bin/env bash
# Heap blocks (CHT_SITEF_HEAP): malloc, calloc, realloc and free are writes
# of the whole block, so no MPI call on a block moves across its allocation
# or its free (a fix applied literally never waits after the buffer was
# freed, nor starts a receive before its buffer exists).
# programs/heap-blocks.c at -O0 and -O2 on 2 ranks, from `hints --all
# --format=json`:
#   - the send's overlap hint keeps HB-SEND-INDEP before its wait and not
#     HB-SEND-LATE (after the free; its needs-buffer variant, whose copy
#     outlives the free, may); its fix waits right before the free or
#     earlier;
#   - no hint moves HB-RECV-EARLY after the receive (the allocation sits
#     between them), and the receive's fix never starts before its
#     allocation;
#   - dump shows the allocations and frees as `heap` events, and the
#     output is the same with and without tracing.
# programs/heap-vector.cpp, the same for C++: operator delete frees a
# local std::vector's storage at the closing brace of the function that
# sent it (HV-SEND-END) and a new[] block at a delete[] (HV-ARR-FREE); no
# plain hint waits past either or lists the work after them (before C++'s
# new and delete were recorded, miniFE's make_local_matrix was told to
# wait for its send of a local vector after the function had returned).
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
SRC=$P/heap-blocks.c

L() { line_of "$SRC" "/* $1 */"; }
for o in -O0 -O2; do
    traced_as_plain heap-blocks "$SRC" hb "$o" || continue
    dir=$WORK/hb$o.trace
    js=$("$CH" hints --all --format=json "$dir" 2>/dev/null)
    related "heap $o: the send's independent work runs before its wait" "$js" "$SRC" "$(L HB-SEND)" \
        "$(L HB-SEND-INDEP)" after
    # the plain hint (a needs-buffer variant keeps a copy of its own alive
    # past the free, and may list it)
    got=$(python3 -c '
import json, os, sys
d = json.loads(sys.stdin.read())
send, late = int(sys.argv[1]), int(sys.argv[2])
hs = [h for h in d["hints"] if h["kind"] == "overlap" and h["line"] == send and "needs-buffer" not in h["flags"]]
print("no plain hint at the send" if not hs else
      "yes" if all(r["line"] != late for h in hs for r in h["related"]) else "line %d is listed" % late)' \
        "$(L HB-SEND)" "$(L HB-SEND-LATE)" <<<"$js" 2>&1)
    expect_eq "heap $o: the work after the free is not before the send's wait" "$got" yes
    related "heap $o: the work before the receive's allocation does not move after it" "$js" "$SRC" 0 \
        "$(L HB-RECV-EARLY)" none
    got=$(python3 -c '
import json, os, sys
d = json.loads(sys.stdin.read())
send, free, recv, alloc = (int(a) for a in sys.argv[1:5])
bad = []
for h in d["hints"]:
    if h["kind"] != "overlap" or os.path.basename(h["file"]) != "heap-blocks.c":
        continue
    s, w = h["fix"]["start"], h["fix"]["wait"]
    if h["line"] == send and (w["where"] == "after" and w["line"] >= free or w["line"] > free):
        bad.append("the send is waited for %s line %d, past the free at %d" % (w["where"], w["line"], free))
    if h["line"] == recv and s["where"] != "at" and (s["line"] < alloc or s["line"] == alloc and s["where"] == "before"):
        bad.append("the receive starts %s line %d, before its allocation at %d" % (s["where"], s["line"], alloc))
print("; ".join(bad) or "yes")' "$(L HB-SEND)" "$(L HB-SEND-FREE)" "$(L HB-RECV)" "$(L HB-RECV-ALLOC)" <<<"$js" 2>&1)
    expect_eq "heap $o: no fix waits past the free or starts before the allocation" "$got" yes
    n=$("$CH" dump "$dir" --rank 0 2>/dev/null | grep -c "heap-blocks.c:$(L HB-SEND-FREE):[0-9]*: heap ")
    expect_eq "heap $o: dump shows each free as a heap event" "$n" 20
done

SRC=$P/heap-vector.cpp
for o in -O0 -O2; do
    traced_as_plain heap-vector "$SRC" hv "$o" mpicxx || continue
    dir=$WORK/hv$o.trace
    js=$("$CH" hints --all --format=json "$dir" 2>/dev/null)
    related "heap C++ $o: the send's independent work runs before its wait" "$js" "$SRC" "$(L HV-SEND)" \
        "$(L HV-SEND-INDEP)" after
    related "heap C++ $o: the new[] block's send: its independent work runs before its wait" "$js" "$SRC" \
        "$(L HV-ARR-SEND)" "$(L HV-ARR-INDEP)" after
    got=$(python3 -c '
import json, os, sys
d = json.loads(sys.stdin.read())
bad = []
for send, end, late in ((int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])),
                        (int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))):
    hs = [h for h in d["hints"] if h["kind"] == "overlap" and h["line"] == send and "needs-buffer" not in h["flags"]]
    if not hs:
        bad.append("no plain hint at line %d" % send)
    for h in hs:
        w = h["fix"]["wait"]
        if w["where"] == "after" and w["line"] >= end or w["line"] > end or w["function"] != h["function"]:
            bad.append("the send at %d is waited for %s line %d (%s), past the free at %d" % (send, w["where"], w["line"], w["function"], end))
        if any(r["line"] == late for r in h["related"]):
            bad.append("line %d, after the free, is listed for the send at %d" % (late, send))
print("; ".join(bad) or "yes")' "$(L HV-SEND)" "$(L HV-SEND-END)" "$(L HV-SEND-LATE)" \
        "$(L HV-ARR-SEND)" "$(L HV-ARR-FREE)" "$(L HV-ARR-LATE)" <<<"$js" 2>&1)
    expect_eq "heap C++ $o: no plain hint waits past the delete or lists the work after it" "$got" yes
    for m in HV-SEND-END HV-ARR-FREE; do
        n=$("$CH" dump "$dir" --rank 0 2>/dev/null | grep -c "heap-vector.cpp:$(L $m):[0-9]*: heap ")
        expect_eq "heap C++ $o: dump shows each operator delete at $m as a heap event" "$n" 20
    done
    got=$(python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
o = [h["overwritten_at"] for h in d["hints"] if "needs-buffer" in h["flags"] and h["line"] == int(sys.argv[1])]
print("yes" if o and all(x["frees"] and x["line"] == int(sys.argv[2]) for x in o) else o)' \
        "$(L HV-SEND)" "$(L HV-SEND-END)" <<<"$js" 2>&1)
    expect_eq "heap C++ $o: the needs-buffer variant says the vector is freed at its closing brace" "$got" yes
    expect_match "heap C++ $o: its text says freed, not overwritten" "$("$CH" hints --all "$dir" 2>/dev/null)" \
        "the send buffer at line $(L HV-SEND) is freed at heap-vector\.cpp:$(L HV-SEND-END);"
done
