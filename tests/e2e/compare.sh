#!/usr/bin/env bash
# `commhint compare BEFORE AFTER` end to end (docs/compare.md), beside the
# case studies' before/after pairs (e2e/case-studies): a trace compared
# with itself (every hint remains, every call site pairs with itself,
# nothing to predict), two sizes of one program (files paired by path, no
# pairing by order), --stable, --plain-time, --map, -o, and bad input.
source "$(dirname "$0")/lib.sh"

J=$B/examples/O2/jacobi JA=$B/examples/O2/jacobi_after
if [ ! -x "$J" ] || [ ! -x "$JA" ]; then
    not_ok "jacobi and jacobi_after are built (run make examples)"
    exit 0
fi
trace_run "$WORK/small" "$NP" "$J" 64 20 5
expect_eq "jacobi 64x20: traced run exits 0" "$?" 0
trace_run "$WORK/large" "$NP" "$J" 96 30 5
expect_eq "jacobi 96x30: traced run exits 0" "$?" 0
trace_run "$WORK/after" "$NP" "$JA" 64 20 5
expect_eq "jacobi_after 64x20: traced run exits 0" "$?" 0

# ---- a trace against itself ---------------------------------------------------------------
"$CH" compare "$WORK/small" "$WORK/small" --format=json >"$WORK/self.json" 2>"$WORK/self.err"
expect_eq "self: exits 0" "$?" 0
"$CH" hints "$WORK/small" --format=json >"$WORK/small.hints.json" 2>/dev/null
python3 - "$WORK/self.json" "$WORK/small.hints.json" <<'EOF'
import json, sys
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + "self: " + what)
    if not cond and detail:
        for line in str(detail).splitlines()[:12]:
            print("# " + line)
c, h = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
check("the trace has hints to compare", len(h["hints"]) > 0)
check("every hint remains, none is gone or new",
      (c["gone"], c["new"], c["remain"]) == (0, 0, len(h["hints"])), (c["gone"], c["new"], c["remain"]))
check("each remaining hint is at its own place",
      all(x["before"]["file"] == x["after"]["file"] and x["before"]["line"] == x["after"]["line"]
          and x["before"]["call"] == x["after"]["call"] for x in c["hints"]))
sites = c["sites"]
check("every call site pairs with itself, by its tags or alone",
      sites and all(s["before"] and s["after"] and s["before"]["line"] == s["after"]["line"]
                    and s["before"]["call"] == s["after"]["call"] and not s["by_order"] for s in sites),
      "\n".join(str(s) for s in sites if not (s["before"] and s["after"]))[:2000])
check("the same time in MPI at every site", all(s["before"]["time_ns"] == s["after"]["time_ns"] for s in sites))
check("no change of the run", c["run_change"] == 0)
check("nothing to predict", c["prediction"] is None)
check("the one file paired by its path", [f["paired_by"] for f in c["files"]] == ["path"], c["files"])
EOF
expect_match "self: the summary" "$(cat "$WORK/self.err")" '^0 hints gone, [0-9]+ remains?, 0 new; run \+0\.0% \(traced runs\)$'

# ---- two sizes of one program ----------------------------------------------------------------
"$CH" compare "$WORK/small" "$WORK/large" --format=json >"$WORK/sizes.json" 2>/dev/null
expect_eq "sizes: exits 0" "$?" 0
python3 - "$WORK/sizes.json" <<'EOF'
import json, sys
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + "sizes: " + what)
    if not cond and detail:
        for line in str(detail).splitlines()[:12]:
            print("# " + line)
c = json.load(open(sys.argv[1]))
sites = c["sites"]
check("every call site pairs with the same line", all(s["before"] and s["after"]
      and s["before"]["line"] == s["after"]["line"] for s in sites),
      "\n".join(str(s) for s in sites)[:2000])
check("the larger run makes more calls", c["after"]["mpi_calls"] > c["before"]["mpi_calls"])
# not "the larger run takes longer": two runs of a few ms each order by noise on a loaded machine
check("both runs have a time, and their MPI time (summed over ranks) fits in it",
      all(0 < c[k]["mpi_ns"] <= c[k]["run_ns"] * c[k]["world_size"] for k in ("before", "after")),
      str({k: (c[k]["run_ns"], c[k]["mpi_ns"]) for k in ("before", "after")}))
check("no hint is new at a line without one before", all(h["status"] != "new" or h["by_order"] is False for h in c["hints"]))
EOF

# ---- text, --stable, -o -----------------------------------------------------------------------
txt=$("$CH" compare "$WORK/small" "$WORK/after" 2>/dev/null)
expect_eq "text: exits 0" "$?" 0
expect_match "text: names the files it paired" "$txt" \
    '^file: +[^ ]*jacobi\.c -> [^ ]*jacobi_after\.c \(the one file with MPI calls left on each side\)$'
expect_match "text: the run's change" "$txt" '^run: +[0-9.]+ [mun]?s -> [0-9.]+ [mun]?s \([-+][0-9.]+%\)$'
expect_eq "text: every hint is a compiler-style note" \
    "$(grep -E ': note: (gone|remains|new): ' <<<"$txt" | grep -cvE '^[^ :]+\.c:[0-9]+:[0-9]+: note: (gone|remains|new): \[(overlap|aggregate|collective)\] ')" 0
expect_match "text: the gone hints of the exchange" "$txt" \
    '^[^ ]*jacobi\.c:[0-9]+:[0-9]+: note: gone: \[overlap\] MPI_Recv .*gone with its call: the second run has no call like it in'
"$CH" compare "$WORK/small" "$WORK/after" --stable --format=json >"$WORK/st1.json" 2>/dev/null
"$CH" compare "$WORK/small" "$WORK/after" --stable --format=json >"$WORK/st2.json" 2>/dev/null
same_file "--stable: the same output twice" "$WORK/st1.json" "$WORK/st2.json"
expect_no_match "--stable: no times" "$(cat "$WORK/st1.json")" '_ns"|run_change|prediction'
"$CH" compare "$WORK/small" "$WORK/after" --stable --format=json -o "$WORK/st3.json" 2>/dev/null
same_file "-o FILE: what standard output gets" "$WORK/st1.json" "$WORK/st3.json"

# ---- --plain-time: the change measured on the plain runs --------------------------------------
pt=$("$CH" compare "$WORK/small" "$WORK/after" --plain-time=2s,1500ms --format=json 2>"$WORK/pt.err")
expect_eq "--plain-time: exits 0" "$?" 0
expect_eq "--plain-time: the change is the plain runs'" \
    "$(python3 -c 'import json,sys; c=json.loads(sys.argv[1]); print(c["before"]["run_ns"], c["after"]["run_ns"], round(c["run_change"], 4))' "$pt")" \
    "2000000000 1500000000 -0.25"
expect_match "--plain-time: the summary says so" "$(cat "$WORK/pt.err")" 'run -25\.0% \(plain runs\)'

# ---- --map ---------------------------------------------------------------------------------------
mp=$("$CH" compare "$WORK/small" "$WORK/after" --map=jacobi.c=jacobi_after.c --format=json 2>/dev/null)
expect_eq "--map: exits 0" "$?" 0
expect_eq "--map: pairs the files it names" \
    "$(python3 -c 'import json,sys; print(" ".join(f["paired_by"] for f in json.loads(sys.argv[1])["files"]))' "$mp")" map
err=$("$CH" compare "$WORK/small" "$WORK/after" --map=nosuch.c=jacobi_after.c 2>&1 >/dev/null)
expect_eq "--map of a file of no call site: exits 1" "$?" 1
expect_match "--map of a file of no call site: one sentence" "$err" \
    '^commhint: error: --map names a file that is at no call site of the first run: map=nosuch\.c=jacobi_after\.c$'
err=$("$CH" compare "$WORK/small" "$WORK/after" --map=jacobi.c 2>&1 >/dev/null)
expect_eq "--map without =: exits 1" "$?" 1
expect_match "--map without =: says what it needs" "$err" '^commhint: error: --map needs FILE=FILE pairs: map=jacobi\.c$'

# ---- bad input ---------------------------------------------------------------------------------
"$CH" compare "$WORK/small" >/dev/null 2>"$WORK/u1.err"
expect_eq "one trace: usage error (exit 2)" "$?" 2
expect_match "one trace: says two are needed" "$(cat "$WORK/u1.err")" 'needs two trace directories, BEFORE and AFTER \(1 given\)'
"$CH" compare "$WORK/small" "$WORK/small" "$WORK/small" >/dev/null 2>&1
expect_eq "three traces: usage error (exit 2)" "$?" 2
"$CH" compare "$WORK/small" "$WORK/small" --format=xml >/dev/null 2>&1
expect_eq "--format=xml: usage error (exit 2)" "$?" 2
"$CH" compare "$WORK/small" "$WORK/small" --plain-time=1s >/dev/null 2>"$WORK/u2.err"
expect_eq "--plain-time with one time: usage error (exit 2)" "$?" 2
expect_match "--plain-time with one time: says what it needs" "$(cat "$WORK/u2.err")" 'needs two times such as 1.2s,0.9s'
mkdir -p "$WORK/empty"
"$CH" compare "$WORK/small" "$WORK/empty" >/dev/null 2>"$WORK/e1.err"
expect_eq "AFTER is not a trace: exits 1" "$?" 1
expect_match "AFTER is not a trace: one sentence naming it" "$(cat "$WORK/e1.err")" '^commhint: error: AFTER: '
expect_eq "AFTER is not a trace: one line" "$(wc -l <"$WORK/e1.err")" 1
"$CH" compare "$WORK/nosuch" "$WORK/small" >/dev/null 2>"$WORK/e2.err"
expect_eq "BEFORE does not exist: exits 1" "$?" 1
expect_match "BEFORE does not exist: names it" "$(cat "$WORK/e2.err")" '^commhint: error: BEFORE: '
"$CH" compare "$WORK/small" "$WORK/small" -o "$WORK/nosuch/out.txt" >/dev/null 2>"$WORK/e3.err"
expect_eq "-o into a missing directory: exits 1" "$?" 1
expect_match "-o into a missing directory: names the file" "$(cat "$WORK/e3.err")" \
    '^commhint: error: cannot write the comparison: file=.*/nosuch/out\.txt reason='
