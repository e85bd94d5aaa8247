#!/usr/bin/env bash
# `commhint export --format=chrome` end to end (docs/export.md): jacobi,
# traced on 4 ranks, exported to the Chrome trace-event format.  The file is
# one JSON object in that format; it has one complete event per MPI call
# `commhint info` counts (per call name), a flow from every send to its
# receive, bound inside both calls, the Allreduce members grouped by
# instance, and one instant event per (hint, rank it holds on) of `commhint
# hints`, at the first call of the hint's call site on that rank.  --stable
# is reproducible, --rank keeps one rank, and bad input fails as documented.
source "$(dirname "$0")/lib.sh"

bin=$B/examples/O2/jacobi
if [ ! -x "$bin" ]; then
    not_ok "jacobi is built ($bin; run make examples)"
    exit 0
fi
dir=$WORK/jacobi.trace
trace_run "$dir" 4 "$bin"
expect_eq "jacobi: traced run on 4 ranks exits 0" "$?" 0

"$CH" info "$dir" --format=json >"$WORK/info.json" 2>"$WORK/info.err"
expect_eq "info --format=json exits 0" "$?" 0
"$CH" hints "$dir" --format=json >"$WORK/hints.json" 2>"$WORK/hints.err"
expect_eq "hints --format=json exits 0" "$?" 0

"$CH" export "$dir" --format=chrome -o "$WORK/trace.json" 2>"$WORK/export.err"
expect_eq "export --format=chrome -o FILE exits 0" "$?" 0
expect_match "export: the summary line goes to stderr" "$(cat "$WORK/export.err")" \
    "^exported [0-9]+ MPI calls, [0-9]+ messages and [0-9]+ hint markers from 4 ranks"

# The checks on the document, each printed as a TAP line.
python3 - "$WORK/trace.json" "$WORK/info.json" "$WORK/hints.json" <<'EOF'
import collections, json, os, sys

def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond and detail:
        for line in str(detail).splitlines()[:20]:
            print("# " + line)

try:
    doc = json.load(open(sys.argv[1]))
except ValueError as e:
    check("the export is valid JSON", False, e)
    sys.exit(0)
info = json.load(open(sys.argv[2]))
hints = json.load(open(sys.argv[3]))
check("the export is valid JSON", True)
check("JSON object format: traceEvents, displayTimeUnit ms, otherData",
      isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list)
      and doc.get("displayTimeUnit") == "ms" and isinstance(doc.get("otherData"), dict), list(doc))
ev = doc["traceEvents"]
num = (int, float)

bad = [e for e in ev if not isinstance(e.get("ph"), str) or not isinstance(e.get("pid"), int)
       or not isinstance(e.get("tid"), int)
       or (e["ph"] != "M" and not (isinstance(e.get("ts"), num) and e["ts"] >= 0))]
check("every event has ph, pid and tid, and every event but metadata a ts >= 0", not bad, bad[:3])
phases = collections.Counter(e["ph"] for e in ev)
check("only the phases X, s, f, i and M", set(phases) <= set("XsfiM"), phases)

# processes: one per world rank, named and sorted by rank
world = info["world_size"]
names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
sort = {e["pid"]: e["args"]["sort_index"] for e in ev if e["ph"] == "M" and e["name"] == "process_sort_index"}
rank_of = {pid: int(n.split()[1]) for pid, n in names.items()}
check("one process per world rank, named 'rank N'",
      sorted(rank_of.values()) == list(range(world)) and all(n == "rank %d" % r for n, r in
                                                             zip(names.values(), rank_of.values())), names)
check("process_sort_index is the rank", all(sort.get(p) == r for p, r in rank_of.items()), sort)
check("no event on a process without a name", all(e["pid"] in rank_of for e in ev))

# calls
X = [e for e in ev if e["ph"] == "X"]
check("X events have dur >= 0", all(isinstance(e.get("dur"), num) and e["dur"] >= 0 for e in X),
      [e for e in X if not (isinstance(e.get("dur"), num) and e["dur"] >= 0)][:3])
check("X events: cat mpi, an MPI call name, a location and a comm",
      all(e.get("cat") == "mpi" and e["name"].startswith("MPI_") and "location" in e["args"]
          and "comm" in e["args"] for e in X), X[:2])
want = sum(info["mpi_calls"].values())
check("as many X events as MPI calls in commhint info (%d)" % want, len(X) == want, len(X))
got = collections.Counter(e["name"] for e in X)
check("the same calls per name as commhint info", dict(got) == info["mpi_calls"],
      "%r\n%r" % (dict(got), info["mpi_calls"]))
per_rank = collections.Counter(rank_of[e["pid"]] for e in X)
check("the same calls per rank as commhint info",
      all(per_rank[r["rank"]] == r["mpi_events"] for r in info["ranks"]), per_rank)
check("times are relative to the earliest call", X and min(e["ts"] for e in X) == 0,
      min(e["ts"] for e in X) if X else None)
overl = []
for pid in rank_of:
    xs = sorted((e["ts"], e["ts"] + e["dur"]) for e in X if e["pid"] == pid)
    overl += [(pid, a, b) for a, b in zip(xs, xs[1:]) if b[0] < a[1] - 1e-3]
check("the calls of a rank do not overlap", not overl, overl[:3])
sends = [e for e in X if e["name"] == "MPI_Send"]
check("sends and receives carry peer, tag and bytes",
      all({"peer", "tag", "bytes"} <= set(e["args"]) for e in X if e["name"] in ("MPI_Send", "MPI_Recv")))

# messages
S = [e for e in ev if e["ph"] == "s"]
F = [e for e in ev if e["ph"] == "f"]
sid = collections.Counter(e["id"] for e in S)
fid = collections.Counter(e["id"] for e in F)
check("flow ids are unique", all(n == 1 for n in sid.values()) and all(n == 1 for n in fid.values()))
check("every flow start has a finish with the same id, and the reverse", set(sid) == set(fid),
      set(sid) ^ set(fid))
check("flows: name and cat 'message', finishes bind to the enclosing slice",
      all(e.get("name") == "message" and e.get("cat") == "message" for e in S + F)
      and all(e.get("bp") == "e" for e in F))
check("one message per MPI_Send (all matched in jacobi)", len(S) == len(sends), (len(S), len(sends)))

def enclosing(e):
    return [x for x in X if x["pid"] == e["pid"] and x["ts"] <= e["ts"] <= x["ts"] + x["dur"]]
bs = [e for e in S if [x["name"] for x in enclosing(e)] != ["MPI_Send"]]
check("every flow starts inside its MPI_Send", not bs, bs[:3])
bf = [e for e in F if [x["name"] for x in enclosing(e)] != ["MPI_Recv"]]
check("every flow ends inside an MPI_Recv", not bf, bf[:3])
fin = {e["id"]: e for e in F}
wrong = []
for s in S:
    snd, rcv = enclosing(s)[0], enclosing(fin[s["id"]])[0]
    if (rank_of[rcv["pid"]] != snd["args"]["peer"] or rank_of[snd["pid"]] != rcv["args"]["peer"]
            or snd["args"]["tag"] != rcv["args"]["tag"]):
        wrong.append((snd, rcv))
check("every flow joins a send to a receive from that rank with its tag", not wrong, wrong[:2])

# collectives
A = [e for e in X if e["name"] == "MPI_Allreduce"]
inst = collections.defaultdict(list)
for e in A:
    inst[e["args"].get("instance")].append(rank_of[e["pid"]])
check("Allreduce calls are grouped by instance, one call per rank each",
      A and None not in inst and all(sorted(v) == list(range(world)) for v in inst.values())
      and len(inst) * world == len(A), dict(inst))

# hints
I = [e for e in ev if e["ph"] == "i"]
check("instant events are process-scoped", all(e.get("s") == "p" for e in I))
want = collections.Counter()
for h in hints["hints"]:
    for r in h["ranks"]:
        want[("[%s] %s %s:%d" % (h["kind"], h["call"], os.path.basename(h["file"]), h["line"]), r)] += 1
got = collections.Counter((e["name"], rank_of[e["pid"]]) for e in I)
check("one instant event per (hint, rank it holds on) of commhint hints (%d)" % sum(want.values()),
      want and got == want, "%r\n%r" % (sorted(got), sorted(want)))
check("instant events carry the message, the saving and the severity",
      all({"message", "saving_ns", "severity", "location"} <= set(e["args"]) for e in I))
late = []
for e in I:
    h = [h for h in hints["hints"] if h["message"] == e["args"]["message"]][0]
    suffix = "%s:%d:%d" % (os.path.basename(h["file"]), h["line"], h["column"])
    calls = [x["ts"] for x in X if x["pid"] == e["pid"] and x["name"] == h["call"]
             and x["args"]["location"].endswith(suffix)]
    if not calls or e["ts"] != min(calls):
        late.append((e["name"], e["ts"], min(calls) if calls else None))
check("each instant is at the first call of its call site on its rank", not late, late[:3])
od = doc["otherData"]
check("otherData counts what was exported",
      od.get("mpi_calls") == len(X) and od.get("messages") == len(S) and od.get("hint_markers") == len(I)
      and od.get("calls_not_exported") == 0 and od.get("hint_markers_unlocated") == 0, od)
EOF

# ---- options ------------------------------------------------------------------
a=$("$CH" export "$dir" --stable 2>/dev/null)
b=$("$CH" export "$dir" --format=chrome --stable -o - 2>/dev/null)
expect_eq "--stable twice gives the same output (and --format=chrome is the default, -o - is stdout)" \
    "$(md5sum <<<"$a")" "$(md5sum <<<"$b")"
expect_match "--stable: logical times (the first call of rank 0 at 0, 0.5 us long)" "$a" \
    '^\{"ph":"X","pid":1,"tid":1,"name":"MPI_Init","cat":"mpi","ts":0\.000,"dur":0\.500,'
expect_no_match "--stable: no savings or absolute paths" "$a" '"saving_ns"|"location":"/'

one=$("$CH" export "$dir" --rank=1 2>/dev/null | python3 -c '
import json, sys
ev = json.load(sys.stdin)["traceEvents"]
print(sorted({e["pid"] for e in ev}), sorted({e["ph"] for e in ev}))')
expect_eq "--rank=1: only rank 1 (pid 2), no arrows to other ranks" "$one" "[2] ['M', 'X', 'i']"

"$CH" export "$dir" --format=json >/dev/null 2>"$WORK/err"
expect_eq "a wrong --format exits 2" "$?" 2
expect_match "a wrong --format lists the allowed ones" "$(cat "$WORK/err")" "unknown --format 'json'; allowed: chrome"
"$CH" export "$WORK/no-such.trace" --format=chrome >/dev/null 2>"$WORK/err"
expect_eq "a missing directory exits 1" "$?" 1
expect_match "a missing directory says so" "$(cat "$WORK/err")" "^commhint: error: .*no-such.trace"
"$CH" export "$dir" -o /dev/full 2>"$WORK/err"
expect_eq "a write error exits 1" "$?" 1
expect_match "a write error says so" "$(cat "$WORK/err")" "^commhint: error: cannot write the export: file=/dev/full"
"$CH" export "$dir" --rank=4 >/dev/null 2>"$WORK/err"
expect_eq "--rank past the world size exits 1" "$?" 1
"$CH" export >/dev/null 2>&1
expect_eq "no directory exits 2" "$?" 2
out=$("$CH" export --help)
expect_eq "--help exits 0" "$?" 0
expect_match "--help describes --format" "$out" "--format=FMT"
expect_match "commhint --help lists export" "$("$CH" --help)" "^  export "
