#!/usr/bin/env bash
# `commhint export --format=otf2 -o DIR` end to end (docs/export.md, "OTF2"):
# every bundled example (the largest at smaller sizes: small_args in
# lib.sh), traced on 4 ranks, exported to an OTF2 archive
# that otf2-print reads without error, and read back with the otf2 Python
# module (python3-otf2): one location per rank, a region per MPI function
# and call site with its file and line, as many Enter events per MPI
# function as `commhint info` counts calls, as many send, receive, request
# and collective events as the calls have message ends, collectives and
# requests (from the calls of the chrome export), every send matched to a
# receive with the same tag and size, and one marker per (hint, rank it
# holds on) of `commhint hints`.  A program that splits MPI_COMM_WORLD
# gets its communicators with their members, and peers and roots as ranks
# in them.  Then an existing archive is replaced,
# --stable is reproducible, --rank keeps one rank, and bad input fails as
# documented.
#
# python3-otf2 is a module of Debian's python3 (/usr/bin/python3): a
# python3 earlier on PATH (pyenv's) does not have it.
source "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
if ! command -v otf2-print >/dev/null || ! $PY -c 'import otf2' 2>/dev/null; then
    not_ok "otf2-print and python3-otf2 are installed (make deps)"
    exit 0
fi

# check.py ARCHIVE INFO HINTS CHROME NAME: the archive against the other
# commands' output, a TAP line per check.
cat >"$WORK/check.py" <<'EOF'
import collections, json, os, sys
import otf2
import _otf2
import _otf2.Config
import ctypes

archive, info, hints, chrome, name = sys.argv[1:6]
info = json.load(open(info))
hints = json.load(open(hints))
calls = [e for e in json.load(open(chrome))["traceEvents"] if e["ph"] == "X"]

def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + name + ": " + what)
    if not cond and detail:
        for line in str(detail).splitlines()[:20]:
            print("# " + line)

world = info["world_size"]
ev = collections.defaultdict(list)  # location -> events
with otf2.reader.open(os.path.join(archive, "traces.otf2")) as trace:
    defs = trace.definitions
    locs = {l: int(l.name.split()[1]) for l in defs.locations}
    check("one location per rank, in a process location group under a system tree node",
          sorted(locs.values()) == list(range(world))
          and all(l.group.location_group_type == otf2.LocationGroupType.PROCESS
                  and l.group.system_tree_parent is not None for l in locs), [l.name for l in locs])
    # the call sites of the chrome export's calls: file:line:col
    sites = {(e["name"], e["args"]["location"].rsplit(":", 1)[0]) for e in calls}
    mpi_regions = {(r.name, "%s:%d" % (r.source_file, r.begin_line_number))
                   for r in defs.regions if r.paradigm == otf2.Paradigm.MPI}
    check("a region per MPI function and call site, with the site's file and line (%d)" % len(sites),
          mpi_regions == sites, "%r\n%r" % (sorted(mpi_regions)[:5], sorted(sites)[:5]))
    comms = {c: c for c in defs.comms}
    check("MPI_COMM_WORLD is defined with a group of every rank",
          any(c.name == "MPI_COMM_WORLD" and len(c.group.members) == world for c in comms))
    for loc, e in trace.events:
        ev[locs[loc]].append(e)

def n(t):
    return sum(1 for es in ev.values() for e in es if isinstance(e, t))

E = otf2.events
enters = collections.Counter(e.region.name for es in ev.values() for e in es
                             if isinstance(e, E.Enter) and e.region.paradigm == otf2.Paradigm.MPI)
check("as many Enter events per MPI function as commhint info counts calls",
      dict(enters) == info["mpi_calls"], "%r\n%r" % (dict(enters), info["mpi_calls"]))
balanced = all(sum(1 for e in es if isinstance(e, E.Enter)) == sum(1 for e in es if isinstance(e, E.Leave))
               for es in ev.values())
check("Enter and Leave balance on every location", balanced)
mono = all(all(a.time <= b.time for a, b in zip(es, es[1:])) for es in ev.values())
check("times never decrease on a location", mono)

# message ends of the calls, as the chrome export shows them
def ends(e, key):
    v = e["args"].get(key)
    vs = v if isinstance(v, list) else [] if v is None else [v]
    return sum(1 for p in vs if p >= 0)
SENDS = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Sendrecv", "MPI_Sendrecv_replace"}
ISENDS = {"MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend"}
COLLS = {"MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather", "MPI_Gatherv",
         "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv",
         "MPI_Alltoallw", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan"}
# (a Sendrecv one of whose halves has MPI_PROC_NULL shows the other half
# as peer, tag and bytes: the ends of Sendrecv calls are counted together)
want_ends = sum(ends(e, "peer") + ends(e, "source") for e in calls if e["name"] not in COLLS)
want_isend = sum(ends(e, "peer") for e in calls if e["name"] in ISENDS)
# (an Irecv from MPI_PROC_NULL has no request: the receive ends of
# Wait/Test calls are those of the Irecvs that moved a message)
want_irecv = sum(ends(e, "peer") for e in calls if e["name"].startswith(("MPI_Wait", "MPI_Test")))
want_coll = sum(v for k, v in info["mpi_calls"].items() if k in COLLS)
got = (n(E.MpiSend) + n(E.MpiIsend) + n(E.MpiRecv) + n(E.MpiIrecv), n(E.MpiIsend), n(E.MpiIsendComplete),
       n(E.MpiIrecvRequest), n(E.MpiIrecv), n(E.MpiCollectiveBegin), n(E.MpiCollectiveEnd))
want = (want_ends, want_isend, want_isend, want_irecv, want_irecv, want_coll, want_coll)
check("message events %d (MpiIsend %d, each completed), MpiIrecvRequest %d (each completed by an MpiIrecv), "
      "collective begin/end %d: as the calls have" % (want[0], want[1], want[3], want[5]), got == want,
      "got  %r\nwant %r" % (got, want))

# requests: each MpiIsend/MpiIrecvRequest completed once, later, on its location
bad = []
for r, es in ev.items():
    open_ = {}
    for e in es:
        if isinstance(e, (E.MpiIsend, E.MpiIrecvRequest)):
            open_[e.request_id] = type(e)
        elif isinstance(e, (E.MpiIsendComplete, E.MpiIrecv)):
            want_t = E.MpiIsend if isinstance(e, E.MpiIsendComplete) else E.MpiIrecvRequest
            if open_.pop(e.request_id, None) is not want_t:
                bad.append((r, type(e).__name__, e.request_id))
    bad += [(r, "never completed", k) for k in open_]
check("every request is started and completed once, in that order", not bad, bad[:5])

# messages: sends and receives matched in order per (comm, sender, receiver, tag)
def world_rank(comm, k):
    return k if comm.name == "MPI_COMM_WORLD" else int(comm.group.members[k].name.split()[1]) \
        if hasattr(comm.group.members[k], "name") else int(comm.group.members[k])
chan = collections.defaultdict(list)
for r, es in ev.items():
    for e in es:
        if isinstance(e, (E.MpiSend, E.MpiIsend)):
            chan[(e.communicator.name, r, world_rank(e.communicator, e.receiver), e.msg_tag)].append(e.msg_length)
recv = collections.defaultdict(list)
for r, es in ev.items():
    for e in es:
        if isinstance(e, (E.MpiRecv, E.MpiIrecv)):
            recv[(e.communicator.name, world_rank(e.communicator, e.sender), r, e.msg_tag)].append(e.msg_length)
check("every send has its receive with the same tag and size, in order (%d messages)"
      % sum(len(v) for v in chan.values()), chan == recv,
      sorted(set(chan) ^ set(recv))[:5] or [(k, chan[k], recv[k]) for k in chan if chan[k] != recv[k]][:3])

# markers, read through libotf2: python3-otf2 3.0.2's marker callback
# wrapper drops the time and duration arguments (and so fails), and its
# Reader_RegisterMarkerCallbacks and Reader_ReadAllMarkers have wrong
# ctypes, so the callbacks are set here
def read_markers(anchor):
    lib = _otf2.Config.conf.lib
    defs_m, marks = {}, []
    DEF = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_char_p,
                           ctypes.c_uint8)
    MARK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint32,
                            ctypes.c_uint8, ctypes.c_uint64, ctypes.c_char_p)
    def on_def(user, ref, group, category, severity):
        defs_m[ref] = (group.decode(), category.decode(), severity)
        return 0
    def on_mark(user, time, duration, ref, scope, scope_ref, text):
        marks.append((ref, scope, scope_ref, text.decode(), time, duration))
        return 0
    fdef, fmark = DEF(on_def), MARK(on_mark)
    rd = _otf2.Reader_Open(anchor)
    mr = _otf2.Reader_GetMarkerReader(rd)
    lib.OTF2_MarkerReaderCallbacks_New.restype = ctypes.c_void_p
    cb = ctypes.c_void_p(lib.OTF2_MarkerReaderCallbacks_New())
    lib.OTF2_MarkerReaderCallbacks_SetDefMarkerCallback(cb, fdef)
    lib.OTF2_MarkerReaderCallbacks_SetMarkerCallback(cb, fmark)
    lib.OTF2_MarkerReader_SetCallbacks(mr, cb, None)
    n = ctypes.c_uint64()
    rc = lib.OTF2_MarkerReader_ReadMarkers(mr, ctypes.c_uint64(1 << 62), ctypes.byref(n))
    lib.OTF2_MarkerReaderCallbacks_Delete(cb)
    _otf2.Reader_Close(rd)
    return rc, defs_m, marks
rc, defs_m, marks = read_markers(os.path.join(archive, "traces.otf2"))
check("libotf2 reads the markers", rc == 0, rc)
want = collections.Counter()
for h in hints["hints"]:
    for r in h["ranks"]:
        want[("[%s] %s %s:%d" % (h["kind"], h["call"], os.path.basename(h["file"]), h["line"]), r)] += 1
got = collections.Counter((m[3].split(": ", 1)[0], m[2]) for m in marks)
check("one marker per (hint, rank it holds on) of commhint hints (%d), scoped to its location"
      % sum(want.values()), got == want and all(m[1] == _otf2.MARKER_SCOPE_LOCATION.value for m in marks),
      "%r\n%r" % (sorted(got)[:5], sorted(want)[:5]))
check("markers are defined (group commhint, category by kind and severity)",
      all(m[0] in defs_m and defs_m[m[0]][0] == "commhint" and
          defs_m[m[0]][1].split()[0] in ("overlap", "aggregate", "collective") for m in marks), defs_m)
enter_times = {(r, e.time) for r, es in ev.items() for e in es if isinstance(e, E.Enter)}
check("each marker is at the entry of a call on its location",
      all((m[2], m[4]) in enter_times for m in marks), [m for m in marks if (m[2], m[4]) not in enter_times][:2])
EOF

for src in examples/*.c examples/*.cpp; do
    ex=$(basename "${src%.c}" .cpp)
    bin=$B/examples/O2/$ex
    [ -x "$bin" ] || { not_ok "$ex: instrumented binary exists" "$bin (make examples)"; continue; }
    dir=$WORK/$ex.trace
    read -r -a args <<<"$(small_args "$ex")"
    trace_run "$dir" "$NP" "$bin" "${args[@]}" || { not_ok "$ex: traced run exits 0" "$(tail -5 "$dir.err")"; continue; }
    "$CH" info "$dir" --format=json >"$WORK/info.json" 2>/dev/null &&
        "$CH" hints "$dir" --format=json >"$WORK/hints.json" 2>/dev/null &&
        "$CH" export "$dir" -o "$WORK/chrome.json" 2>/dev/null ||
        { not_ok "$ex: info, hints and the chrome export exit 0"; continue; }
    out=$WORK/$ex.otf2
    "$CH" export "$dir" --format=otf2 -o "$out" 2>"$WORK/export.err"
    expect_eq "$ex: export --format=otf2 -o DIR exits 0" "$?" 0
    expect_match "$ex: the summary line goes to stderr" "$(cat "$WORK/export.err")" \
        "^exported [0-9]+ MPI calls, [0-9]+ messages and [0-9]+ hint markers from 4 ranks"
    otf2-print "$out/traces.otf2" >"$WORK/print.out" 2>"$WORK/print.err"
    rc=$?
    [ $rc = 0 ] && [ ! -s "$WORK/print.err" ] && ok "$ex: otf2-print reads the archive without error" ||
        not_ok "$ex: otf2-print reads the archive without error" "exit $rc" "$(head -5 "$WORK/print.err")"
    $PY "$WORK/check.py" "$out" "$WORK/info.json" "$WORK/hints.json" "$WORK/chrome.json" "$ex" 2>&1 |
        sed 's/^Traceback/not ok - '"$ex"': check.py ran to its end\n# Traceback/'
    [ "$ex" = jacobi ] || rm -rf "$out" "$dir"
done

# ---- communicators: a split in two halves ordered backwards, MPI_COMM_SELF,
# an Irecv from MPI_PROC_NULL (no message, no request)
cat >"$WORK/split.c" <<'EOF2'
#include <mpi.h>
int main(int argc, char **argv)
{
    int rank, size, x = 0, y = 0, hr;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    MPI_Comm_rank(half, &hr);
    if (hr == 0)
        MPI_Send(&rank, 1, MPI_INT, 1, 7, half);
    else if (hr == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 7, half, MPI_STATUS_IGNORE);
    MPI_Bcast(&x, 1, MPI_INT, 1, half);
    MPI_Request r;
    MPI_Irecv(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
EOF2
if build_prog "$WORK/split.c" "$WORK/split" -O2 >"$WORK/split.build" 2>&1 && trace_run "$WORK/split.trace" 4 "$WORK/split"; then
    dir=$WORK/split.trace
    "$CH" info "$dir" --format=json >"$WORK/info.json" 2>/dev/null
    "$CH" hints "$dir" --format=json >"$WORK/hints.json" 2>/dev/null
    "$CH" export "$dir" -o "$WORK/chrome.json" 2>/dev/null
    "$CH" export "$dir" --format=otf2 -o "$WORK/split.otf2" 2>/dev/null
    expect_eq "split: export --format=otf2 exits 0" "$?" 0
    $PY "$WORK/check.py" "$WORK/split.otf2" "$WORK/info.json" "$WORK/hints.json" "$WORK/chrome.json" split 2>&1 |
        grep -v "a region per MPI function" | sed 's/^Traceback/not ok - split: check.py ran to its end\n# Traceback/'
    got=$($PY - "$WORK/split.otf2/traces.otf2" <<'EOF2'
import sys, otf2
with otf2.reader.open(sys.argv[1]) as t:
    for c in sorted(t.definitions.comms, key=lambda c: c.name):
        m = [getattr(x, "name", x) for x in c.group.members]
        print(c.name.split()[0] if c.name.startswith("0x") else c.name, str(c.group.group_type).split(".")[-1],
              c.parent.name if c.parent else "-", m if c.name.startswith("0x") else len(m))
EOF2
)
    expect_eq "split: communicators with their members in communicator rank order" "$(sed 's/0x[0-9a-f]*/ID/' <<<"$got")" \
"ID COMM_GROUP MPI_COMM_WORLD ['rank 2', 'rank 0']
ID COMM_GROUP MPI_COMM_WORLD ['rank 3', 'rank 1']
MPI_COMM_SELF COMM_SELF - 0
MPI_COMM_WORLD COMM_GROUP - 4"
    printed=$(otf2-print "$WORK/split.otf2/traces.otf2")
    # world rank 2 is rank 0 of its half, world rank 0 its rank 1
    expect_match "split: a send's receiver is its rank in the communicator" "$printed" \
        '^MPI_SEND +2 +[0-9]+ +Receiver: 1 \("rank 0"'
    expect_match "split: a receive's sender is its rank in the communicator" "$printed" \
        '^MPI_RECV +0 +[0-9]+ +Sender: 0 \("rank 2"'
    expect_match "split: a collective's root is its rank in the communicator" "$printed" \
        '^MPI_COLLECTIVE_END +2 +[0-9]+ +Operation: BCAST, .*Root: 1 \("rank 0"'
    expect_no_match "split: no request for an Irecv from MPI_PROC_NULL" "$printed" "MPI_IRECV"
else
    not_ok "split: built and traced" "$(tail -5 "$WORK/split.build" "$WORK/split.trace.err" 2>/dev/null)"
fi

# ---- the output directory and the options (on jacobi) --------------------------------
dir=$WORK/jacobi.trace
out=$WORK/jacobi.otf2
"$CH" export "$dir" --format=otf2 -o "$out" 2>"$WORK/err"
expect_eq "an archive of commhint export is replaced" "$?" 0
expect_eq "the replaced archive has only the archive's files" "$(ls "$out" | tr '\n' ' ')" \
    "traces traces.def traces.marker traces.otf2 "
"$CH" export "$dir" --format=otf2 --stable -o "$WORK/s1" 2>/dev/null
"$CH" export "$dir" --format=otf2 --stable -o "$WORK/s2" 2>/dev/null
# (but for the anchor file's trace id, which libotf2 draws at random)
expect_eq "--stable twice gives the same definitions, events and markers" \
    "$(diff -r -x traces.otf2 "$WORK/s1" "$WORK/s2" >/dev/null && cmp -s <(otf2-print -G "$WORK/s1/traces.otf2") \
        <(otf2-print -G "$WORK/s2/traces.otf2") && echo same)" same
first=$(otf2-print "$WORK/s1/traces.otf2" 2>&1 | awk '$1 == "ENTER" && $2 == 0 {print $3; exit}')
expect_eq "--stable: logical times (rank 0 enters at 0)" "$first" 0
"$CH" export "$dir" --format=otf2 --rank=1 -o "$WORK/r1" 2>/dev/null
expect_eq "--rank=1: events on location 1 only" \
    "$(otf2-print "$WORK/r1/traces.otf2" | awk '$1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ {print $2}' | sort -u)" 1

"$CH" export "$dir" --format=otf2 >/dev/null 2>"$WORK/err"
expect_eq "otf2 without -o exits 2" "$?" 2
expect_match "otf2 without -o says -o DIR is required" "$(cat "$WORK/err")" "otf2 writes a directory: -o DIR is required"
"$CH" export "$dir" --format=otf2 -o - >/dev/null 2>&1
expect_eq "otf2 with -o - exits 2" "$?" 2
: >"$WORK/file"
"$CH" export "$dir" --format=otf2 -o "$WORK/file" 2>"$WORK/err"
expect_eq "otf2 -o on a file exits 1" "$?" 1
expect_match "otf2 -o on a file says so" "$(cat "$WORK/err")" \
    "^commhint: error: the OTF2 output must be a directory, and this is not one: dir=.*/file$"
mkdir -p "$WORK/other" && echo keep >"$WORK/other/notes.txt"
"$CH" export "$dir" --format=otf2 -o "$WORK/other" 2>"$WORK/err"
expect_eq "otf2 -o on a non-empty directory that is not an archive exits 1" "$?" 1
expect_match "otf2 -o on a non-empty directory says so" "$(cat "$WORK/err")" \
    "^commhint: error: refusing to write into a directory that is not empty and not an OTF2 archive of commhint export: dir="
expect_eq "otf2 -o on a non-empty directory leaves it as it was" "$(ls "$WORK/other")" notes.txt
mkdir -p "$WORK/foreign/traces" && cp "$out/traces.def" "$WORK/foreign/" && echo x >"$WORK/foreign/traces.otf2"
"$CH" export "$dir" --format=otf2 -o "$WORK/foreign" 2>"$WORK/err"
expect_eq "otf2 -o on an archive not written by commhint export exits 1" "$?" 1
"$CH" export "$WORK/jacobi.trace.out" --format=otf2 -o "$WORK/x" 2>"$WORK/err"
expect_eq "a non-trace input exits 1" "$?" 1
expect_match "a non-trace input says so in one line" "$(cat "$WORK/err")" "^commhint: error: "
expect_eq "a non-trace input writes no archive" "$(ls "$WORK/x" 2>/dev/null)" ""
"$CH" export "$WORK/no-such.trace" --format=otf2 -o "$WORK/y" 2>"$WORK/err"
expect_eq "a missing trace exits 1" "$?" 1
"$CH" export "$dir" --format=otf2 -o "$WORK/no/such/dir" 2>"$WORK/err"
expect_eq "-o in a missing directory exits 1" "$?" 1
expect_match "-o in a missing directory says so" "$(cat "$WORK/err")" \
    "^commhint: error: cannot create the OTF2 archive's directory: dir=.*reason="
# a write error: files limited to 2 KiB (SIGXFSZ ignored, so write fails)
(ulimit -f 4; trap '' XFSZ; "$CH" export "$dir" --format=otf2 -o "$WORK/big" 2>"$WORK/err")
expect_eq "a write error exits 1" "$?" 1
expect_match "a write error says so" "$(cat "$WORK/err")" \
    "^commhint: error: cannot write the OTF2 archive: dir=.*/big reason=File is too large"
expect_match "--help describes otf2" "$("$CH" export --help)" "otf2: an OTF2 archive"
