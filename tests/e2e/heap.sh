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
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
SRC=$P/heap-blocks.c
MPIEXEC=${MPIEXEC:-mpiexec}
mpicc -O2 -o "$WORK/plain" "$SRC"
plain=$("$MPIEXEC" -n 2 "$WORK/plain" 2>&1 | grep '^heap-blocks:')

L() { line_of "$SRC" "/* $1 */"; }
for o in -O0 -O2; do
    exe=$WORK/hb$o
    dir=$WORK/hb$o.trace
    if ! build_prog "$SRC" "$exe" "$o" >"$WORK/build.log" 2>&1; then
        not_ok "heap $o: builds with commhint cc" "$(cat "$WORK/build.log")"
        continue
    fi
    trace_run "$dir" 2 "$exe"
    expect_eq "heap $o: tracing leaves the output unchanged" "$(grep '^heap-blocks:' "$dir.out")" "$plain"
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
