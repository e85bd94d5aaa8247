#!/usr/bin/env bash
# Call paths (issue 18): MPI calls made through helpers get one hint per
# calling context, shown where the helper is called.  programs/callpath.c
# wraps one MPI_Sendrecv in each of three helpers - in the same file
# (exchange_here), in another file (programs/callpath-other.c,
# exchange_there) and always inlined (exchange_inline) - and calls each
# from two places: CP-*-FIRST has independent work after it (one overlap
# hint, its forward window holding CP-*-INDEP), CP-*-SECOND needs the
# result at once (no hint).  Built at -O0 and -O2, traced on 2 ranks.
# Checked on `hints --format=json`:
#   - the hint is shown at CP-*-FIRST, its stack goes from there down to
#     the helper's MPI_Sendrecv (CP-*-CALL, in the helper's function), and
#     CP-*-INDEP is its related line ("after");
#   - no hint is shown at CP-*-SECOND or at the helper's own line;
#   - --call-depth=0 brings back one hint per MPI call line (the helper's),
#     as before call paths; --helpers=-exchange_here keeps exchange_here's
#     hint on its own line and the others where they are; --helpers=
#     step_here moves it up to main's call of step_here;
#   - its fix starts an MPI_Isendrecv where the helper is called and waits
#     right before the loop that reads the result (CP-*-USE);
#   - the text shows the path ("MPI_Sendrecv in exchange_there"), SARIF
#     has it as related locations; --parallel on 2 processes prints the
#     same; tracing leaves the program's output unchanged; the runtime
#     records PATH records (dump) and none with COMMHINT_CALLPATH=0.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
SRC=$P/callpath.c
MPIEXEC=${MPIEXEC:-mpiexec}

mpicc -O2 -o "$WORK/plain" "$SRC" "$P/callpath-other.c" -I"$P"
plain=$("$MPIEXEC" -n 2 "$WORK/plain" 2>&1 | grep '^callpath:')

# hint_at WHAT JSON MARKER: "yes" if an overlap hint is shown at MARKER's
# line with the expected stack and related line, else why not.
stack_check() {
    python3 -c '
import json, os, sys
d = json.loads(sys.stdin.read())
src, first, call, callfile, func, indep, use = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], int(sys.argv[6]), int(sys.argv[7])
hs = [h for h in d["hints"] if h["kind"] == "overlap" and h["line"] == first and os.path.basename(h["file"]) == src]
if len(hs) != 1:
    print("%d overlap hints at line %d; hints at: %s" % (len(hs), first, ", ".join("%s:%d" % (os.path.basename(h["file"]), h["line"]) for h in d["hints"])))
    sys.exit()
h = hs[0]
st = h["stack"]
where = " -> ".join("%s:%d(%s)" % (os.path.basename(f["file"]), f["line"], f["function"]) for f in st)
if len(st) < 2 or st[0]["line"] != first or st[-1]["line"] != call or os.path.basename(st[-1]["file"]) != callfile or st[-1]["function"] != func:
    print("stack %s" % where)
elif not any(r["line"] == indep and r["role"] == "after" for r in h["related"]):
    print("line %d is not related (after): %s" % (indep, [(r["line"], r["role"]) for r in h["related"]]))
elif (h["fix"]["call"], h["fix"]["start"]["where"], h["fix"]["start"]["line"], h["fix"]["wait"]["where"],
      h["fix"]["wait"]["line"]) != ("MPI_Isendrecv", "at", first, "before", use):
    print("fix %s" % h["fix"])
else:
    print("yes")
' "$@"
}

# no_hint_at JSON FILE LINE: "yes" if no hint is shown at FILE:LINE.
no_hint_at() {
    python3 -c '
import json, os, sys
d = json.loads(sys.stdin.read())
hs = [h for h in d["hints"] if h["line"] == int(sys.argv[2]) and os.path.basename(h["file"]) == sys.argv[1]]
print("yes" if not hs else "%d hints (%s)" % (len(hs), hs[0]["message"]))
' "$@"
}

for o in -O0 -O2; do
    exe=$WORK/cp$o
    dir=$WORK/cp$o.trace
    if ! build_prog "$SRC" "$exe" "$o" "$P/callpath-other.c" -I"$P" >"$WORK/build.log" 2>&1; then
        not_ok "callpath $o: builds with commhint cc" "$(cat "$WORK/build.log")"
        continue
    fi
    trace_run "$dir" 2 "$exe"
    expect_eq "callpath $o: tracing leaves the output unchanged" "$(grep '^callpath:' "$dir.out")" "$plain"
    js=$("$CH" hints --format=json "$dir" 2>/dev/null)
    for x in HERE:callpath.c:exchange_here THERE:callpath-other.c:exchange_there INL:callpath.c:exchange_inline; do
        IFS=: read -r tag callfile func <<<"$x"
        first=$(line_of "$SRC" "/* CP-$tag-FIRST */")
        second=$(line_of "$SRC" "/* CP-$tag-SECOND */")
        indep=$(line_of "$SRC" "/* CP-$tag-INDEP */")
        use=$(line_of "$SRC" "/* CP-$tag-USE */")
        call=$(line_of "$P/$callfile" "/* CP-$tag-CALL */")
        got=$(stack_check callpath.c "$first" "$call" "$callfile" "$func" "$indep" "$use" <<<"$js")
        if [ "$got" = yes ]; then ok "callpath $o: $func: one hint at its first call, with the path down to the MPI call and its fix"
        else not_ok "callpath $o: $func: one hint at its first call, with the path down to the MPI call and its fix" "$got"; fi
        got=$(no_hint_at callpath.c "$second" <<<"$js")
        expect_eq "callpath $o: $func: no hint at its second call" "$got" yes
        got=$(no_hint_at "$callfile" "$call" <<<"$js")
        expect_eq "callpath $o: $func: no hint on the helper's own line" "$got" yes
    done

    # without call paths: the helper's line, as before
    js0=$("$CH" hints --format=json --call-depth=0 "$dir" 2>/dev/null)
    got=$(no_hint_at callpath.c "$(line_of "$SRC" "/* CP-HERE-CALL */")" <<<"$js0")
    expect_match "callpath $o: --call-depth=0 shows the hint on the helper's line" "$got" \
        "^1 hints \(MPI_Sendrecv can overlap with the computation at line $(line_of "$SRC" "/* CP-HERE-INDEP */") "
    got=$(no_hint_at callpath.c "$(line_of "$SRC" "/* CP-HERE-FIRST */")" <<<"$js0")
    expect_eq "callpath $o: --call-depth=0 shows none at the helper's call" "$got" yes

    # --helpers=-NAME: never look through NAME
    jsh=$("$CH" hints --format=json --helpers=-exchange_here "$dir" 2>/dev/null)
    got=$(no_hint_at callpath.c "$(line_of "$SRC" "/* CP-HERE-CALL */")" <<<"$jsh")
    expect_match "callpath $o: --helpers=-exchange_here keeps its hint on its own line" "$got" "^1 hints"
    got=$(no_hint_at callpath.c "$(line_of "$SRC" "/* CP-THERE-FIRST */")" <<<"$jsh")
    expect_match "callpath $o: --helpers=-exchange_here leaves exchange_there's hint at its call" "$got" "^1 hints"
    # --helpers=NAME: look through NAME too: the hint goes up to main's call of step_here
    jsh=$("$CH" hints --format=json --helpers=step_here "$dir" 2>/dev/null)
    got=$(no_hint_at callpath.c "$(line_of "$SRC" "/* CP-STEP-HERE */")" <<<"$jsh")
    expect_match "callpath $o: --helpers=step_here shows exchange_here's hint at main's call of step_here" "$got" "^1 hints"
    got=$(no_hint_at callpath.c "$(line_of "$SRC" "/* CP-HERE-FIRST */")" <<<"$jsh")
    expect_eq "callpath $o: --helpers=step_here: none left inside step_here" "$got" yes
done

# helper-tail.c: two exchanges in a row through a helper that reads the
# status after its MPI_Sendrecv; only the first call's tail lies between
# them, so starting the second "right after the first" changes nothing
HT=$P/helper-tail.c
for o in -O0 -O2; do
    traced_as_plain helper-tail "$HT" ht "$o" || continue
    js=$("$CH" hints --all --format=json "$WORK/ht$o.trace" 2>/dev/null)
    expect_match "helper-tail $o: hints ran" "$js" '"hints":'
    expect_eq "helper-tail $o: no hint at the second exchange" \
        "$(no_hint_at helper-tail.c "$(line_of "$HT" "/* HT-SECOND */")" <<<"$js")" yes
done

# wait_before_call JSON: the overlap hints whose fix waits at or before
# the line the hint is shown at, in the same function and iteration: a
# wait before the call is made ("none" if there is no such hint)
wait_before_call() {
    python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
bad = ["%s:%d %s (%s)" % (h["file"].rsplit("/", 1)[-1], h["line"], h["call"], h["fix"]["text"]) for h in d["hints"]
       if h["kind"] == "overlap" and h["fix"]["wait"]["where"] == "before" and not h["fix"]["wait"]["other_iteration"]
       and h["fix"]["wait"]["file"] == h["file"] and h["fix"]["wait"]["function"] == h["function"]
       and h["fix"]["wait"]["line"] <= h["line"]]
print("; ".join(bad) if bad else "none")
'
}

# wait-in-call.c: a send two calls deep, shown at main's calls of step,
# whose buffer the same call of step receives into a little later (graph500's
# acks in aml_poll_intra, shown at main's warm-up run_bfs): no place at
# main's level lies between them, so no hint may wait "right before" the
# line of step's call (the wrong hint: "call it where it is (line N), and
# MPI_Wait for it right before line N")
WIC=$P/wait-in-call.c
for o in -O0 -O2; do
    traced_as_plain wait-in-call "$WIC" wic "$o" || continue
    for eng in streaming reference; do
        js=$("$CH" hints --all --engine=$eng --format=json "$WORK/wic$o.trace" 2>/dev/null)
        expect_match "wait-in-call $o $eng: hints ran" "$js" '"hints":'
        expect_eq "wait-in-call $o $eng: no hint waits before the call it is shown at" \
            "$(wait_before_call <<<"$js")" none
        got=$(python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print(sum(1 for h in d["hints"] if h["call"] == "MPI_Send" and h["line"] == int(sys.argv[1])))' \
            "$(line_of "$WIC" "/* WIC-LOOP */")" <<<"$js")
        expect_eq "wait-in-call $o $eng: no send hint at step's call in the loop" "$got" 0
    done
done
for t in cp-O0 cp-O2 ht-O0 ht-O2; do
    expect_eq "callpath $t: no hint waits before the call it is shown at" \
        "$(wait_before_call <<<"$("$CH" hints --all --format=json "$WORK/$t.trace" 2>/dev/null)")" none
done

dir=$WORK/cp-O2.trace
txt=$("$CH" hints "$dir" 2>/dev/null)
expect_match "callpath: the text shows the path down to the call" "$txt" \
    "callpath-other\.c:$(line_of "$P/callpath-other.c" "/* CP-THERE-CALL */"):[0-9]+: note:   MPI_Sendrecv in exchange_there$"
sarif=$("$CH" hints --format=sarif "$dir" 2>/dev/null)
got=$(python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
texts = [l["message"]["text"] for r in d["runs"][0]["results"] for l in r.get("relatedLocations", [])]
print("yes" if "MPI_Sendrecv in exchange_there" in texts else texts)
' <<<"$sarif" 2>&1)
expect_eq "callpath: SARIF has the path as related locations" "$got" yes
serial=$("$CH" hints --stable --format=json "$dir" 2>/dev/null)
par=$("$MPIEXEC" -n 2 "$CH" hints --parallel --stable --format=json "$dir" 2>/dev/null)
expect_eq "callpath: --parallel on 2 processes gives the serial hints" "$par" "$serial"
out=$("$CH" hints --call-depth=x "$dir" 2>&1); rc=$?
expect_eq "callpath: --call-depth=x is a usage error" "$rc" 2
expect_match "callpath: --call-depth=x says why" "$out" "--call-depth needs a number of frames"

# the records: PATH follows the MPI records, none with COMMHINT_CALLPATH=0
npath=$("$CH" dump "$dir" 2>/dev/null | grep -c "path=")
[ "$npath" -gt 100 ] && ok "callpath: dump shows the call paths ($npath)" || not_ok "callpath: dump shows the call paths" "$npath lines with path="
COMMHINT_CALLPATH=0 "$CH" run -n 2 -o "$WORK/nopath.trace" -- "$WORK/cp-O2" >/dev/null 2>&1
npath=$("$CH" dump "$WORK/nopath.trace" 2>/dev/null | grep -c "path=")
expect_eq "callpath: COMMHINT_CALLPATH=0 records no path" "$npath" 0
got=$(no_hint_at callpath.c "$(line_of "$SRC" "/* CP-HERE-CALL */")" <<<"$("$CH" hints --format=json "$WORK/nopath.trace" 2>/dev/null)")
expect_match "callpath: without recorded paths an out-of-line helper's hint stays on its line" "$got" "^1 hints"

# the viewer: the wrapped call's hint selected shows its call, the path
# down to the helper's MPI call and the fix's wait in the source
if xvfb_start 2>"$WORK/xvfb.err"; then
    rank1=$("$CH" hints --format=json "$WORK/cp-O2.trace" 2>/dev/null | python3 -c '
import json, sys
hs = json.load(sys.stdin)["hints"]
print(next(i + 1 for i, h in enumerate(hs) if h["line"] == int(sys.argv[1])))' "$(line_of "$SRC" "/* CP-HERE-FIRST */")")
    out=$(timeout 120 "$CH" view "$WORK/cp-O2.trace" --select-hint "$rank1" --screenshot "$WORK/cp.png" 2>&1)
    expect_match "callpath viewer: the hint is selected at the helper's call" "$out" \
        "^mark kind=call line=$(line_of "$SRC" "/* CP-HERE-FIRST */") "
    expect_match "callpath viewer: the fix's wait is marked before the loop that reads the result" "$out" \
        "^mark kind=fix role=wait line=$(line_of "$SRC" "/* CP-HERE-USE */") "
    expect_match "callpath viewer: the window's line is marked as the text names it" "$out" \
        "^mark kind=related role=after line=$(line_of "$SRC" "/* CP-HERE-INDEP */") "
    xvfb_stop
else
    not_ok "callpath viewer: a private Xvfb starts" "$(cat "$WORK/xvfb.err")"
fi
