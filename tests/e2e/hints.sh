#!/usr/bin/env bash
# `commhint hints` end to end: the bundled examples and two test programs,
# instrumented at -O0 and -O2 and traced on real MPI runs, get the hints
# their structure promises (docs/dependence.md); a program that already
# overlaps its communication gets none; the streaming and the reference
# engines print the same hints; the JSON and SARIF outputs are well formed;
# filters and bad input behave.
source "$(dirname "$0")/lib.sh"

P=tests/e2e/programs
flat() { python3 tests/e2e/hints-flat.py; }

# hints_of DIR: one flat line per hint (streaming engine), or "ERROR ...".
hints_of() {
    "$CH" hints "$1" --format=json --stable 2>"$WORK/hints.err" | flat 2>&1 || echo "ERROR $(cat "$WORK/hints.err")"
}

# Same hints from both engines, as JSON documents.
same_engines() { # what dir
    local a b
    a=$("$CH" hints "$2" --format=json --stable 2>&1)
    b=$("$CH" hints "$2" --format=json --stable --engine=reference 2>&1)
    if [ "$a" = "$b" ]; then ok "$1"; else not_ok "$1" "$(diff <(echo "$a") <(echo "$b") | head -20)"; fi
}

# ---- test programs ---------------------------------------------------------
src=$P/hints-basic.c
A=$(line_of "$src" "/* AGG-A */"); Bl=$(line_of "$src" "/* AGG-B */"); C=$(line_of "$src" "/* AGG-C */")
R1=$(line_of "$src" "/* REUSE-1 */"); R2=$(line_of "$src" "/* REUSE-2 */")
RECV=$(line_of "$src" "/* OVL-RECV */"); INDEP=$(line_of "$src" "/* OVL-INDEP */"); USE=$(line_of "$src" "/* OVL-USE */")
for O in -O0 -O2; do
    bin=$WORK/hints-basic$O
    check "hints-basic $O: builds" build_prog "$src" "$bin" "$O"
    trace_run "$WORK/hb$O" 2 "$bin"
    expect_eq "hints-basic $O: traced run exits 0" "$?" 0
    h=$(hints_of "$WORK/hb$O")
    expect_match "hints-basic $O: the three sends of different arrays are one aggregate" "$h" \
        "^aggregate MPI_Send [^ ]*:($A|$Bl|$C|$R2) .*related=.*($Bl|$C):member.*($C|$R1|$R2):member"
    # with its buffer overwritten, a send is merged with the next only as a
    # needs-buffer variant (a buffer per message), never as a plain one
    got=$("$CH" hints "$WORK/hb$O" --format=json --stable 2>/dev/null | python3 -c '
import json, sys
r1, r2 = int(sys.argv[1]), int(sys.argv[2])
d = json.load(sys.stdin)
bad = [h["message"] for h in d["hints"] if h["kind"] == "aggregate"
       and {r1, r2} <= {h["line"]} | {r["line"] for r in h["related"]}
       and "needs-buffer" not in h["flags"]]
print("; ".join(bad) or "none")' "$R1" "$R2" 2>&1)
    expect_eq "hints-basic $O: a send whose buffer is overwritten is merged with the next only as needs-buffer" \
        "$got" none
    expect_match "hints-basic $O: the receive overlaps the computation that does not read it" "$h" \
        "^overlap MPI_Recv [^ ]*:$RECV ranks=1 .*related=(.*,)?$INDEP:after"
    expect_no_match "hints-basic $O: the computation that reads the message is not in its window" "$h" \
        "^overlap MPI_Recv [^ ]*:$RECV .*[=,]$USE:after"
    same_engines "hints-basic $O: streaming and reference engines agree" "$WORK/hb$O"
done

# dropped_of DIR: "<kind> <line>: <explain>" per dropped hint of the trace in DIR
dropped_of() {
    "$CH" hints "$1" --format=json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("\n".join(h["kind"] + " " + str(h["line"]) + ": " + (h.get("explain") or "") for h in d.get("dropped", [])))'
}

src=$P/deadlock.c
SX=$(line_of "$src" "/* SEND-X */"); RY=$(line_of "$src" "/* RECV-Y */")
RX=$(line_of "$src" "/* RECV-X */"); SY=$(line_of "$src" "/* SEND-Y */")
for O in -O0 -O2; do
    bin=$WORK/deadlock$O
    check "deadlock $O: builds" build_prog "$src" "$bin" "$O"
    trace_run "$WORK/dl$O" 2 "$bin"
    expect_eq "deadlock $O: traced run exits 0" "$?" 0
    h=$(hints_of "$WORK/dl$O")
    expect_no_match "deadlock $O: no aggregation hint that would deadlock" "$h" "^aggregate"
    why=$(dropped_of "$WORK/dl$O")
    expect_match "deadlock $O: the dropped hint names the chain of messages" "$why" \
        "^aggregate $SX: delaying the MPI_Send at deadlock.c:$SX \(rank 0 to rank 1\) past the MPI_Recv at deadlock.c:$RY would deadlock: rank 1 receives that message at deadlock.c:$RX, and only then sends, at deadlock.c:$SY, the message rank 0 waits for there"
    txt=$("$CH" hints "$WORK/dl$O" --explain 2>/dev/null)
    expect_match "deadlock $O: --explain prints the dropped hint and why" "$txt" "would deadlock: rank 1 receives that message"
done

src=$P/deadlock-symmetric.c
SA=$(line_of "$src" "/* SEND-A */"); RB=$(line_of "$src" "/* RECV-B */"); SC=$(line_of "$src" "/* SEND-C */")
for run in "-O0 2" "-O2 2" "-O2 4"; do
    set -- $run
    O=$1 np=$2 tag="deadlock-symmetric $1 on $2 ranks"
    bin=$WORK/dsym$O
    [ -x "$bin" ] || check "deadlock-symmetric $O: builds" build_prog "$src" "$bin" "$O"
    trace_run "$WORK/ds$O-$np" "$np" "$bin"
    expect_eq "$tag: traced run exits 0" "$?" 0
    h=$(hints_of "$WORK/ds$O-$np")
    expect_no_match "$tag: no aggregation that deadlocks once every rank applies it" "$h" "^aggregate"
    expect_match "$tag: the sends still overlap" "$h" "^overlap MPI_Send [^ ]*:$SA "
    why=$(dropped_of "$WORK/ds$O-$np")
    expect_match "$tag: the dropped hint names the wait cycle" "$why" \
        "^aggregate $SA: applied on every rank that has it, the change deadlocks: rank 0 waits in the MPI_Recv at deadlock-symmetric.c:$RB for the message rank 1 sends with the MPI_Send at deadlock-symmetric.c:$SA, which the change delays past its MPI_Recv at deadlock-symmetric.c:$RB; rank 1 waits in the MPI_Recv at deadlock-symmetric.c:$RB for the message rank 0 sends with the MPI_Send at deadlock-symmetric.c:$SA, which the change delays past its MPI_Recv at deadlock-symmetric.c:$RB\$"
    expect_match "$tag: --explain names both sends" "$("$CH" hints "$WORK/ds$O-$np" --explain 2>/dev/null)" \
        "dropped aggregate\] 2 MPI_Send calls to the same rank at lines $SA, $SC "
    same_engines "$tag: streaming and reference engines agree" "$WORK/ds$O-$np"
done

src=$P/well-written.c
for O in -O0 -O2; do
    bin=$WORK/well-written$O
    check "well-written $O: builds" build_prog "$src" "$bin" "$O"
    trace_run "$WORK/ww$O" "$NP" "$bin"
    expect_eq "well-written $O: traced run exits 0" "$?" 0
    out=$("$CH" hints "$WORK/ww$O" 2>"$WORK/ww.err")
    expect_eq "well-written $O: hints exits 0" "$?" 0
    expect_eq "well-written $O: a program that already overlaps gets no hint" "$out" ""
    expect_match "well-written $O: the summary says so on stderr" "$(cat "$WORK/ww.err")" "^0 hints"
done

# A trivial statement sharing a window (and its gap) with a loop of libm
# calls is worth what it costs, not the loop's time per event
# (docs/dependence.md, "Estimated time of computation events"): per
# execution, TRIVIAL must take less than a fifth of HEAVY, where the even
# split gives them the same; both engines give the same times.
src=$P/cost-share.c
RECV=$(line_of "$src" "/* OVL-RECV */"); TRIV=$(line_of "$src" "/* TRIVIAL */"); HEAVY=$(line_of "$src" "/* HEAVY */")
# per_exec DIR ENGINE: "<trivial ns> <heavy ns>" per execution in the receive's hint
per_exec() {
    "$CH" hints "$1" --format=json --engine="$2" 2>/dev/null | python3 -c '
import json, sys
recv, triv, heavy = map(int, sys.argv[1:4])
d = json.load(sys.stdin)
t = {}
for h in d["hints"]:
    if h["kind"] == "overlap" and h["line"] == recv:
        for r in h["related"]:
            if r["line"] in (triv, heavy) and r["executions"]:
                t[r["line"]] = r["time_ns"] / r["executions"]
print("%s %s" % (t.get(triv, "none"), t.get(heavy, "none")))' "$RECV" "$TRIV" "$HEAVY" 2>&1
}
for O in -O0 -O2; do
    bin=$WORK/cost-share$O
    check "cost-share $O: builds" build_prog "$src" "$bin" "$O"
    trace_run "$WORK/cs$O" 2 "$bin"
    expect_eq "cost-share $O: traced run exits 0" "$?" 0
    got=$(per_exec "$WORK/cs$O" streaming)
    expect_match "cost-share $O: the receive's window holds both statements" "$got" "^[0-9.]+ [0-9.]+$"
    small=$(echo "$got" | awk '{print ($1 * 5 < $2) ? "yes" : "no: " $0}')
    expect_eq "cost-share $O: one execution of the trivial statement is worth a small part of one of the heavy one" \
        "$small" yes
    expect_eq "cost-share $O: the reference engine gives the same times" "$(per_exec "$WORK/cs$O" reference)" "$got"
done

# ---- the examples ------------------------------------------------------------
J=examples/jacobi.c
JRECV_BOT=$(grep -n 'MPI_Recv(halo_bot' "$J" | cut -d: -f1 | paste -sd'|')
JSTENCIL=$(line_of "$J" "double v = 0.25")
S=examples/small_sends.c
D=examples/dft.c
M=examples/master_worker.c
G=examples/gauss.c
for O in O0 O2; do
    dir=$WORK/jacobi-$O
    trace_run "$dir" "$NP" "$B/examples/$O/jacobi"
    h=$(hints_of "$dir")
    expect_match "jacobi $O: the interior update overlaps the halo receive" "$h" \
        "^overlap MPI_Recv [^ ]*:($JRECV_BOT) .*related=(.*,)?$JSTENCIL:after"
    expect_no_match "jacobi $O: no aggregation across iterations of the halo exchange" "$h" "^aggregate"
    same_engines "jacobi $O: streaming and reference engines agree" "$dir"

    dir=$WORK/small_sends-$O
    trace_run "$dir" "$NP" "$B/examples/$O/small_sends"
    h=$(hints_of "$dir")
    expect_match "small_sends $O: the five sends to the right neighbour are one aggregate" "$h" \
        "^aggregate MPI_Send [^ ]*small_sends.c:[0-9]+ ranks=0,2 members=(49[0-9]|500) related=[0-9]+:member"
    expect_match "small_sends $O: and on the odd ranks too" "$h" \
        "^aggregate MPI_Send [^ ]*small_sends.c:[0-9]+ ranks=1,3 members=(49[0-9]|500) related=[0-9]+:member"
    same_engines "small_sends $O: streaming and reference engines agree" "$dir"

    dir=$WORK/dft-$O
    trace_run "$dir" "$NP" "$B/examples/$O/dft"
    h=$(hints_of "$dir")
    RE=$(grep -n 'MPI_Send(sr,' "$D" | head -1 | cut -d: -f1)
    expect_match "dft $O: the re and im parts to one rank are one aggregate" "$h" \
        "^aggregate MPI_Send [^ ]*dft.c:$RE .*related=$((RE + 1)):member"
    same_engines "dft $O: streaming and reference engines agree" "$dir"

    dir=$WORK/master_worker-$O
    trace_run "$dir" "$NP" "$B/examples/$O/master_worker"
    h=$(hints_of "$dir")
    PAR=$(line_of "$M" "MPI_Send(params, NPARAM"); TSK=$(line_of "$M" "MPI_Send(&tasks[")
    RES=$(line_of "$M" "MPI_Send(results, chunk"); PART=$(line_of "$M" "MPI_Send(&sums[0]")
    expect_match "master_worker $O: the parameters and the task slice to one worker are one aggregate" "$h" \
        "^aggregate MPI_Send [^ ]*master_worker.c:$PAR ranks=0 .*related=$TSK:member"
    expect_match "master_worker $O: the results and the partial sum to rank 0 are one aggregate" "$h" \
        "^aggregate MPI_Send [^ ]*master_worker.c:$RES ranks=1,2,3 .*related=$PART:member"
    same_engines "master_worker $O: streaming and reference engines agree" "$dir"

    dir=$WORK/gauss-$O
    trace_run "$dir" "$NP" "$B/examples/$O/gauss"
    h=$(hints_of "$dir")
    PIV=$(line_of "$G" "MPI_Send(&prow[k]"); ELIM=$(line_of "$G" "a[l * w + j] -= f * prow[j]")
    # each send's window ends at the next send of the loop over
    # destinations; the last one's runs on into the elimination, but the
    # fix waits for it right after that loop: the elimination is not
    # claimed (what the fix puts between the start and the wait is)
    expect_match "gauss $O: the pivot-row sends overlap the loop over destinations" "$h" \
        "^overlap MPI_Send [^ ]*gauss.c:$PIV ranks=0,1,2,3 .*related=$((PIV - 2)):after,$((PIV - 1)):after\$"
    expect_no_match "gauss $O: the elimination, after the fix's last wait, is not claimed" "$h" \
        "^overlap MPI_Send [^ ]*gauss.c:$PIV ranks=.*related=(.*,)?$ELIM:after"
    same_engines "gauss $O: streaming and reference engines agree" "$dir"
done

# ---- formats, filters, bad input ----------------------------------------------
dir=$WORK/small_sends-O2
n=$("$CH" hints "$dir" --format=json 2>/dev/null | flat | wc -l)
expect_match "json: every hint parses" "$n" "^[1-9][0-9]*$"
sarif=$("$CH" hints "$dir" --format=sarif 2>/dev/null)
got=$(python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["runs"][0]; print(d["version"], len(r["results"]), all("physicalLocation" in x["locations"][0] for x in r["results"]))' <<<"$sarif" 2>&1)
expect_eq "sarif: version 2.1.0, one result per hint, with locations" "$got" "2.1.0 $n True"
txt=$("$CH" hints "$dir" 2>/dev/null)
expect_match "text: compiler-style diagnostics" "$txt" "^examples/small_sends.c:[0-9]+:[0-9]+: note: \[aggregate\] "
expect_eq "text: one headline per hint" "$(grep -c ': note: \[' <<<"$txt")" "$n"
k=$("$CH" hints "$dir" --kind=aggregate --format=json 2>/dev/null | flat | cut -d' ' -f1 | sort -u)
expect_eq "--kind=aggregate keeps only aggregation hints" "$k" "aggregate"
expect_eq "--top=1 keeps one hint" "$("$CH" hints "$dir" --top=1 --format=json 2>/dev/null | flat | wc -l)" 1
# --rank and --min-saving, against the unfiltered hints: there must be
# some, and on this trace some hold on rank 1 and some do not (ranks 0,2)
"$CH" hints "$dir" --format=json --stable >"$WORK/all.json" 2>"$WORK/all.err"
expect_eq "unfiltered hints exit 0" "$?" 0
all=$(flat <"$WORK/all.json" 2>&1)
nall=$(grep -c . <<<"$all")
expect_match "unfiltered hints: there are some" "$all" "^(overlap|aggregate|collective) "
on_rank1() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^ranks=/) {
    n = split(substr($i, 7), r, ","); for (j = 1; j <= n; j++) if (r[j] == 1) { print; next } } }'; }
non1=$(on_rank1 <<<"$all" | grep -c .)
if [ "$non1" -gt 0 ] && [ "$non1" -lt "$nall" ]; then ok "unfiltered hints: some hold on rank 1, some do not"; else
    not_ok "unfiltered hints: some hold on rank 1, some do not" "$non1 of $nall hold on rank 1:" "$all"; fi
"$CH" hints "$dir" --rank=1 --format=json --stable >"$WORK/r1.json" 2>"$WORK/r1.err"
expect_eq "--rank=1 exits 0" "$?" 0
r1=$(flat <"$WORK/r1.json" 2>&1)
expect_match "--rank=1 keeps at least one hint" "$r1" "^(overlap|aggregate|collective) "
expect_eq "--rank=1: every kept hint holds on rank 1" "$(on_rank1 <<<"$r1")" "$r1"
expect_eq "--rank=1 keeps exactly the unfiltered hints that hold on rank 1" "$(sort <<<"$r1")" "$(on_rank1 <<<"$all" | sort)"
expect_match "--rank=1: the summary counts the others as filtered out" "$(cat "$WORK/r1.err")" \
    "^$non1 hints? \($((nall - non1)) filtered out\)"
"$CH" hints "$dir" --min-saving=3600s >"$WORK/ms.out" 2>"$WORK/ms.err"
expect_eq "--min-saving=3600s exits 0" "$?" 0
expect_eq "--min-saving=3600s drops every hint" "$(cat "$WORK/ms.out")" ""
expect_match "--min-saving=3600s: the summary counts every hint as filtered out, for saving too little" \
    "$(cat "$WORK/ms.err")" "^0 hints \($nall filtered out, $nall of them saving too little: --all\)"

# the default threshold: 1% of the run (lib.sh sets COMMHINT_MIN_SAVING=0)
"$CH" hints "$dir" --format=json >"$WORK/model.json" 2>/dev/null
expect_eq "the JSON has the replay model" "$(jq -r '.model.replayed' "$WORK/model.json")" true
expect_eq "every overlap and aggregation hint is predicted" \
    "$(jq '[.hints[] | select(.kind != "collective") | select(.predicted != true or .predicted_saving_ns == null)]
           | length' "$WORK/model.json")" 0
expect_eq "a predicted hint is ranked by its predicted saving" \
    "$(jq '[.hints[] | select(.predicted and .saving_ns != .predicted_saving_ns)] | length' "$WORK/model.json")" 0
expect_eq "hints are in the order of their predicted saving" \
    "$(jq -c '[.hints[].saving_ns]' "$WORK/model.json")" "$(jq -c '[.hints[].saving_ns] | sort | reverse' "$WORK/model.json")"
expect_eq "the POP efficiencies multiply" \
    "$(jq '.pop | (.parallel_efficiency - .load_balance * .communication_efficiency) | fabs < 0.001' "$WORK/model.json")" true
run=$(jq .model.measured_ns "$WORK/model.json")
below=$(jq --argjson run "$run" '[.hints[] | select(.saving_ns < $run / 100)] | length' "$WORK/model.json")
kept=$((nall - below))
env -u COMMHINT_MIN_SAVING "$CH" hints "$dir" --format=json --stable >"$WORK/def.json" 2>"$WORK/def.err"
expect_eq "by default, the hints saving at least 1% of the run" "$(flat <"$WORK/def.json" | grep -c .)" "$kept"
if [ "$below" -gt 0 ]; then
    expect_match "by default, the summary says how many save too little" "$(cat "$WORK/def.err")" \
        "^$kept hints? \($below filtered out, $below of them saving too little: --all\)"
fi
env -u COMMHINT_MIN_SAVING "$CH" hints "$dir" --all --format=json --stable >"$WORK/all2.json" 2>/dev/null
expect_eq "--all keeps every hint" "$(flat <"$WORK/all2.json" | grep -c .)" "$nall"
COMMHINT_MIN_SAVING=1000% "$CH" hints "$dir" >/dev/null 2>"$WORK/env.err"
expect_eq "COMMHINT_MIN_SAVING=1000% is a usage error" "$?" 2
expect_match "COMMHINT_MIN_SAVING=1000% is named" "$(cat "$WORK/env.err")" "COMMHINT_MIN_SAVING"
"$CH" hints "$dir" --min-saving=100% >"$WORK/ms.out" 2>/dev/null
expect_eq "--min-saving=100% drops every hint" "$(cat "$WORK/ms.out")" ""

# predictions depend on the trace only: the same twice, and from either engine
preds() { jq -c '[.hints[] | [.kind, .line, .flags, .predicted_saving_ns]] | sort, .model.all_ns, .pop' "$1"; }
"$CH" hints "$dir" --format=json >"$WORK/model2.json" 2>/dev/null
"$CH" hints "$dir" --engine=reference --format=json >"$WORK/model3.json" 2>/dev/null
expect_eq "the same trace analysed twice gives the same predictions" "$(preds "$WORK/model2.json")" \
    "$(preds "$WORK/model.json")"
expect_eq "the reference engine gives the same predictions" "$(preds "$WORK/model3.json")" "$(preds "$WORK/model.json")"

# --predict: the hints named, applied together; --pop: the efficiencies
lines=$(jq -r '[.hints[] | select(.kind == "overlap") | "overlap:\(.line)"] | unique | join(",")' "$WORK/model.json")
"$CH" hints "$dir" --predict="$lines" --format=json >"$WORK/pred.json" 2>"$WORK/pred.err"
expect_eq "--predict exits 0" "$?" 0
expect_eq "--predict applies every overlap hint named" "$(jq .model.applied "$WORK/pred.json")" \
    "$(jq '[.hints[] | select(.kind == "overlap")] | length' "$WORK/model.json")"
expect_eq "--predict of every overlap hint is the kind's own prediction" \
    "$(jq '.model.applied_ns == .model.overlap_ns' "$WORK/pred.json")" true
expect_match "--predict: the summary says what they save together" "$(cat "$WORK/pred.err")" \
    "named by --predict, applied together: predicted saving"
"$CH" hints "$dir" --pop >/dev/null 2>"$WORK/pop.err"
expect_match "--pop prints the efficiencies" "$(cat "$WORK/pop.err")" "^ +load balance +[0-9.]+%"
"$CH" hints "$dir" --predict=overlap:1,bogus:2 --format=json >"$WORK/pred.json" 2>/dev/null
expect_eq "--predict of lines without hints applies nothing" "$(jq .model.applied "$WORK/pred.json")" 0

# a program whose communication is already right: nothing by default, and
# nothing worth 1% of the run when every hint is shown
src=$P/already-right.c
bin=$WORK/already-right
check "already-right: builds" build_prog "$src" "$bin" -O2
trace_run "$WORK/ar" "$NP" "$bin"
expect_eq "already-right: traced run exits 0" "$?" 0
out=$(env -u COMMHINT_MIN_SAVING "$CH" hints "$WORK/ar" 2>"$WORK/ar.err")
expect_eq "already-right: no hint by default" "$out" ""
"$CH" hints "$WORK/ar" --all --format=json >"$WORK/ar.json" 2>/dev/null
expect_eq "already-right: with --all, no hint is predicted to save 1% of the run" \
    "$(jq '.model.measured_ns as $run | [.hints[] | select(.saving_ns >= $run / 100)] | length' "$WORK/ar.json")" 0

# a merge that delays the next stage of a pipeline is predicted to cost,
# not to save (examples/pipeline.c: rank 0's sends per block)
"$CH" run -n 2 -o "$WORK/pipe" -- "$B/examples/O2/pipeline" >/dev/null 2>&1
"$CH" hints "$WORK/pipe" --all --format=json >"$WORK/pipe.json" 2>/dev/null
expect_eq "pipeline: the merged sends are predicted to save nothing" \
    "$(jq '[.hints[] | select(.kind == "aggregate") | .predicted_saving_ns] | unique' -c "$WORK/pipe.json")" "[0]"
expect_match "pipeline: and the message says the run gets slower" \
    "$(jq -r '.hints[] | select(.kind == "aggregate") | .message' "$WORK/pipe.json")" "predicted to make the run .* slower"
# the receiver sweeps block b before it receives block b+1: the one
# receive goes where the first block is received, each part copied out
# where its receive is (not "at the receive of the last of them")
recv=$(grep -n 'MPI_Recv(' examples/pipeline.c | head -1 | cut -d: -f1)
expect_eq "pipeline: the merged message is received where the first block is" \
    "$(jq -c '[.hints[] | select(.kind == "aggregate") | .fix | .receive_at.line, .last_receive_at.line]' "$WORK/pipe.json")" \
    "[$recv,$recv]"
expect_match "pipeline: and the fix says so" \
    "$(jq -r '.hints[] | select(.kind == "aggregate") | .fix.text' "$WORK/pipe.json")" \
    "one receive at line $recv \\(where the first of them is received now\\) into a buffer of its own, and copies each part out where its receive is now$"

# a wait in a function the call's path does not go through (heat_helpers'
# diffuse, called for T and for C) goes before its next call, not into it
"$CH" run -n 2 -o "$WORK/heat" -- "$B/examples/O2/heat_helpers" >/dev/null 2>&1
hw=$("$CH" hints "$WORK/heat" --all --format=json 2>/dev/null |
    jq -r '.hints[] | select(.kind == "overlap" and .fix.wait.function == "diffuse") | "\(.fix.wait.off_path) \(.fix.text)"')
expect_match "heat_helpers: a wait needed in diffuse is found" "$hw" "^true "
expect_eq "heat_helpers: and goes right before diffuse's next call, the request staying in main" \
    "$(grep -cv ' and MPI_Wait for it right before the next call of diffuse, whose loop at line [0-9]* must wait for it$' <<<"$hw")" 0
# on 4 ranks the inner rows of diffuse's loop can run before the wait too:
# waiting before the call of diffuse would overlap none of them, so the
# wait goes into diffuse (which gets the request) and its loop is split
"$CH" run -n 4 -o "$WORK/heat4" -- "$B/examples/O2/heat_helpers" >/dev/null 2>&1
DL=$(grep -n 'for (int i = 1; i <= nloc; i++)' examples/heat_helpers.c | head -1 | cut -d: -f1)
h4=$("$CH" hints "$WORK/heat4" --all --format=json 2>/dev/null |
    jq -r '.hints[] | select(.kind == "overlap" and .fix.wait.function == "diffuse") |
        "\(.fix.wait.split_loop) \([.related[] | select(.role == "after" and .line > '"$DL"' and .line < '"$DL"' + 12)] | length) \(.fix.text)"')
expect_match "heat_helpers (4 ranks): diffuse's inner rows can run before a wait" "$h4" "^true [1-9]"
expect_eq "heat_helpers (4 ranks): each such wait goes into diffuse, before its loop, which is split" \
    "$(grep -E '^[a-z]+ [1-9]' <<<"$h4" | grep -cv "^true [0-9]* .* and MPI_Wait for it in diffuse, right before its loop at line $DL (diffuse runs for other callers too: pass it the request, MPI_REQUEST_NULL from them); some of the computation that can run before the wait is inside the loop at line $DL: split it, running before the wait the part that does not need the data ([0-9]* of [0-9]* executions)\$")" 0
# on 2 ranks every message goes to the other rank: heat_helpers' Sendrecv
# to up and to down merge here, and the hint says why it may not hold on more
expect_eq "heat_helpers: the 2-rank aggregation carries the two-ranks flag" \
    "$("$CH" hints "$WORK/heat" --all --format=json 2>/dev/null |
        jq -c '[.hints[] | select(.kind == "aggregate") | (.flags | index("two-ranks") != null)] | unique')" "[true]"
# a round's first receive depends on the sum of the round before, taken
# at the end of that round's receive loop: it starts right after that
# whole loop (not "in the iteration before" of the loop of receives, which
# has none before a round's first receive), with the next round's tag; the
# reduce's fix has the root pass what its sum starts from
src=tests/e2e/programs/round-sum.c
RL=$(line_of "$src" "/* ROUNDS */"); QL=$(line_of "$src" "/* RECEIVES */"); RV=$(line_of "$src" "/* RECV */")
for O in -O0 -O2; do
    check "round-sum $O: builds" build_prog "$src" "$WORK/round-sum$O" "$O"
    trace_run "$WORK/rs$O" 4 "$WORK/round-sum$O"
    "$CH" hints "$WORK/rs$O" --all --format=json >"$WORK/rs$O.json" 2>/dev/null
    expect_match "round-sum $O: the reduce's root passes what its sum starts from" \
        "$(jq -r '.hints[] | select(.kind == "collective") | .fix.text' "$WORK/rs$O.json")" \
        "MPI_Reduce in place of, on the root, the loop at line $QL .*at the root the value its accumulator holds before the first receive"
    # the receives it holds on are the loop's first ones only: the others
    # read the sum the loop added up before them
    expect_no_match "round-sum $O: the receives after a round's first are not started early" \
        "$(jq -r ".hints[] | select(.kind == \"overlap\" and .line == $RV) | .fix.text" "$WORK/rs$O.json")" \
        "start each there"
    # at -O2 the receive's arguments come from the block of line 41 (a
    # register dependence the pass records), which bounds its window there
    [ "$O" = -O2 ] && continue
    expect_eq "round-sum $O: the first receive of a round starts after the last round's receive loop" \
        "$(jq -c "[.hints[] | select(.kind == \"overlap\" and .line == $RV) | .fix.start |
            [.where, .loop, .line, .other_iteration, .outer_loop.line, (.next_call_differs | index(\"tag\") != null)]] | unique" \
            "$WORK/rs$O.json")" "[[\"after\",true,$QL,true,$RL,true]]"
    expect_match "round-sum $O: and the fix says so" \
        "$(jq -r ".hints[] | select(.kind == \"overlap\" and .line == $RV) | .fix.text" "$WORK/rs$O.json")" \
        "start the MPI_Recv as MPI_Irecv right after the loop at line $QL in the iteration before \\(the first one right before the loop at line $RL, none in its last iteration\\) with the next call's arguments \\(([^)]*; )?the tags of its messages change from one call to the next\\)"
done

# a block whose length comes first, in a message of its own: merged, the
# one receive cannot be sized from the length it brings (the fix says to
# take the largest count, or to probe)
src=tests/e2e/programs/sized-parts.c
SL=$(line_of "$src" "/* SEND-LEN */"); RL=$(line_of "$src" "/* RECV-LEN */"); RB=$(line_of "$src" "/* RECV-BLOCK */")
for O in -O0 -O2; do
    check "sized-parts $O: builds" build_prog "$src" "$WORK/sized-parts$O" "$O"
    trace_run "$WORK/sp$O" 4 "$WORK/sized-parts$O"
    "$CH" hints "$WORK/sp$O" --all --format=json >"$WORK/sp$O.json" 2>/dev/null
    expect_eq "sized-parts $O: the block's receive takes its count from the length's" \
        "$(jq -c "[.hints[] | select(.kind == \"aggregate\" and .line == $SL) | .fix.receive_arg |
            [.from.line, .used_at.line]]" "$WORK/sp$O.json")" "[[$RL,$RB]]"
    expect_match "sized-parts $O: and the fix says to size the one receive otherwise" \
        "$(jq -r ".hints[] | select(.kind == \"aggregate\" and .line == $SL) | .fix.text" "$WORK/sp$O.json")" \
        "the receive at line $RB takes its count or its buffer from what the one at line $RL receives.*MPI_Probe"
done
# where the later receive does not depend on the earlier one (small_sends),
# the fix has no such clause
expect_eq "small_sends: no receive takes its count from an earlier part" \
    "$("$CH" hints "$WORK/small_sends-O2" --all --format=json 2>/dev/null |
        jq -c '[.hints[] | select(.kind == "aggregate") | .fix.receive_arg | select(. != null)] | length')" 0

# a receive under `if (rank > 0)`, after work that needs no rank: the
# pass records what MPI_Comm_rank writes, so the receive starts after it,
# not before (LLNL's mpi_array started its receive above MPI_Comm_rank)
src=tests/e2e/programs/query-outputs.c
QR=$(line_of "$src" "/* RANK */"); QG=$(line_of "$src" "/* GUARDED-RECV */")
for O in -O0 -O2; do
    check "query-outputs $O: builds" build_prog "$src" "$WORK/query-outputs$O" "$O"
    trace_run "$WORK/qo$O" 4 "$WORK/query-outputs$O"
    "$CH" hints "$WORK/qo$O" --all --format=json >"$WORK/qo$O.json" 2>/dev/null
    expect_eq "query-outputs $O: the guarded receive starts right after MPI_Comm_rank" \
        "$(jq -c "[.hints[] | select(.kind == \"overlap\" and .line == $QG) | .fix.start | [.where, .line]]" \
            "$WORK/qo$O.json")" "[[\"after\",$QR]]"
    expect_eq "query-outputs $O: no start above the rank" \
        "$(jq -c "[.hints[] | select(.kind == \"overlap\") | .fix.start | select(.where != \"at\" and .line < $QR)] |
            length" "$WORK/qo$O.json")" 0
done

# tags and peers kept in locals set right before the call: no start moves
# above them unseen (the fix says the trace cannot show where they are
# set), and a collective made nonblocking on one side names the other
# side's call
src=tests/e2e/programs/args-locals.c
PS=$(grep -n 'peer = 0;' "$src" | head -1 | cut -d: -f1); WR=$((PS + 1))
RR=$(line_of "$src" "/* REDUCE-ROOT */"); RW=$(line_of "$src" "/* REDUCE-WORKER */")
for O in -O0 -O2; do
    check "args-locals $O: builds" build_prog "$src" "$WORK/args-locals$O" "$O"
    trace_run "$WORK/al$O" 4 "$WORK/args-locals$O"
    "$CH" hints "$WORK/al$O" --all --format=json >"$WORK/al$O.json" 2>/dev/null
    # the worker's calls after `peer = 0;`: a start above that line in the
    # same iteration must come with the caveat
    expect_eq "args-locals $O: no worker call starts above its tag and peer unseen" \
        "$(jq -c "[.hints[] | select(.kind == \"overlap\" and .line > $PS and .line < $RW) | .fix |
            select(.start.where != \"at\" and .start.other_iteration == false and .start.line < $PS and
                   .args_unseen == false)] | length" "$WORK/al$O.json")" 0
    # started right after `if (rank == 0)`, the worker's result send goes
    # inside the branch that leads to it (the line after the if is the
    # master's branch)
    IF=$(line_of "$src" "if (rank == 0) {"); RS=$(line_of "$src" "/* RESULT-SEND */")
    expect_eq "args-locals $O: a start after the master/worker if is inside the call's branch" \
        "$(jq -c "[.hints[] | select(.kind == \"overlap\" and .line == $RS and .fix.start.line == $IF) |
            .fix.start.branch] | unique" "$WORK/al$O.json")" "[true]"
    expect_match "args-locals $O: the root's MPI_Reduce made nonblocking names the workers' call" \
        "$(jq -r ".hints[] | select(.kind == \"overlap\" and (.line == $RR or .line == $RW)) | .fix.text" "$WORK/al$O.json")" \
        "the other members of this MPI_Reduce make it at line ($RR|$RW): make those MPI_Ireduce too"
done
for O in -O0 -O2; do
    expect_eq "args-locals $O: the worker's receive started early says its tag and peer are unseen" \
        "$(jq -c "[.hints[] | select(.kind == \"overlap\" and .line == $WR) | .fix.args_unseen] | unique" \
            "$WORK/al$O.json")" "[true]"
done

# checks that end the program (exit) decide nothing for the code after
# them: the Allreduce after them is not conditional, nor are the loops
# that can overlap it, and the fix keeps no condition
build_prog tests/e2e/programs/exit-checks.c "$WORK/exit-checks" -O2
"$CH" run -n 2 -o "$WORK/exit-checks.trace" -- "$WORK/exit-checks" >/dev/null 2>&1
ec=$("$CH" hints "$WORK/exit-checks.trace" --format=json 2>/dev/null |
    jq -c '[.hints[] | select(.kind == "overlap" and .call == "MPI_Allreduce") |
        {flags, fix: .fix.conditional, related: ([.related[] | select(.conditional)] | length)}]')
expect_eq "exit-checks: the Allreduce after the checks is not conditional, nor what overlaps it" "$ec" \
    '[{"flags":[],"fix":false,"related":0}]'

"$CH" hints "$WORK/nonexistent" >/dev/null 2>"$WORK/err"
rc=$?
expect_eq "a missing directory exits 1" "$rc" 1
expect_match "a missing directory is named in the message" "$(cat "$WORK/err")" "nonexistent"
"$CH" hints "$dir" --format=xml >/dev/null 2>"$WORK/err"
expect_eq "an unknown format exits 2" "$?" 2
expect_match "an unknown format lists the allowed ones" "$(cat "$WORK/err")" "text.*json.*sarif"
"$CH" hints "$dir" --min-saving=fast >/dev/null 2>"$WORK/err"
expect_eq "a bad --min-saving exits 2" "$?" 2
