#!/usr/bin/env python3
"""threads-check.py - checks the per-thread records of a traced run of
tests/e2e/programs/threads.c or openmp.c (used by tests/e2e/threads.sh).

    threads-check.py threads|openmp LABEL DUMPDIR NP K M LINES...
    threads-check.py same LABEL DUMPDIR_A DUMPDIR_B NP

DUMPDIR holds rank-R.json, the output of `commhint dump DIR --rank R
--format=json` (with addresses) for R = 0..NP-1.  LINES are name=line pairs
of the marked statements (mstore, sendrecv, allreduce, cstore, wstore for
threads.c; ostore, ofor for openmp.c).  For openmp, K is n and M is unused.
Prints one TAP line ("ok - ..." / "not ok - ...") per check, with "# "
details after a failure.  `same` checks that two dumps (--stable) of a
rank hold the same per-thread event streams, whatever writer index each
thread got and however the threads' chunks interleave in the file.
"""
import json
import re
import sys

ROW = 8192  # doubles per row of data[] in threads.c
NMPI, NCOMP, NWAIT = 3, 2, 3000
OMP_NT, OMP_ROW = 4, 2000
MPI_MARKERS = ("sendrecv", "allreduce")


def report(ok, what, *details):
    print(("ok - " if ok else "not ok - ") + what)
    if not ok:
        for d in details:
            for line in str(d).splitlines()[:20]:
                print("# " + line)
    return ok


def load(dumpdir, rank, lines=None):
    """The rank's events; with lines (a set of line numbers), only the MPI
    calls and the events at those lines (parsing JSON is what takes time)."""
    evs = []
    keep = None if lines is None else re.compile(r'"kind":"MPI_|"line":(%s),' % "|".join(map(str, lines)))
    with open("%s/rank-%d.json" % (dumpdir, rank)) as f:
        for line in f:
            if keep is None or keep.search(line):
                evs.append(json.loads(line))
    return evs


def threads_of(dumpdir, rank):
    """The writer thread indexes that appear in the rank's dump."""
    with open("%s/rank-%d.json" % (dumpdir, rank)) as f:
        return sorted(set(int(t) for t in re.findall(r'"thread":(\d+),', f.read())))


def by_thread(evs):
    th = {}
    for e in evs:
        th.setdefault(e["thread"], []).append(e)
    return th


def addr(e):
    """Address of the event's single written range, of 8 bytes (at -O0 the
    statement also reads locals whose address escapes)."""
    w = [r for r in e["ranges"] if r["access"] == "write"]
    return int(w[0]["addr"], 16) if len(w) == 1 and w[0]["len"] == 8 else None


def contiguous(evs):
    """None if the events write 8 bytes each at a, a+8, a+16, ... in order,
    else why not; returns (why, a)."""
    if not evs:
        return "no events", None
    base = addr(evs[0])
    for i, e in enumerate(evs):
        a = addr(e)
        if a is None:
            return "event %d (ev=%d) does not write 8 bytes once: %s" % (i, e["ev"], e["ranges"]), base
        if base is None or a != base + 8 * i:
            return "event %d (ev=%d) writes 0x%x, expected 0x%x" % (i, e["ev"], a, (base or 0) + 8 * i), base
    return None, base


def marked(evs, lines):
    """The thread's events at marked lines, as (name, event): MPI calls at
    the lines of MPI_MARKERS (which also have the computation of the call's
    arguments), computation events at the others."""
    inv = {v: k for k, v in lines.items()}
    out = []
    for e in evs:
        n = inv.get(e["line"])
        if n is None:
            continue
        if (e["kind"].startswith("MPI_") if n in MPI_MARKERS else e["kind"] == "comp"):
            out.append((n, e))
    return out


def check_threads(label, dumpdir, np_, k, m, lines):
    sends = {}  # (rank, tag) -> [(seq, rseq)]
    comms = {}  # tag -> set of comm ids of its Allreduce
    for r in range(np_):
        th = by_thread(load(dumpdir, r, lines.values()))
        pre = "%s: rank %d" % (label, r)
        seen = threads_of(dumpdir, r)
        report(seen == list(range(2 + NMPI + NCOMP)), "%s: %d threads wrote events" % (pre, 2 + NMPI + NCOMP),
               "threads seen: %s" % seen)
        main = th.get(0, [])
        calls = sorted(e["kind"] for e in main if e["kind"].startswith("MPI_"))
        want = sorted(["MPI_Init_thread"] + ["MPI_Comm_dup"] * NMPI + ["MPI_Comm_free"] * NMPI +
                      ["MPI_Allreduce", "MPI_Finalize"])
        report(calls == want, "%s: thread 0 (main) made exactly its %d MPI calls" % (pre, len(want)),
               "got: %s" % calls)
        report(not marked(main, lines), "%s: thread 0 has no events of the other threads' statements" % pre,
               marked(main, lines)[:3])
        roles = {}
        for idx, tevs in sorted(th.items()):
            if idx == 0:
                continue
            mk = marked(tevs, lines)
            names = sorted(set(n for n, _ in mk))
            mpi = [e for e in tevs if e["kind"].startswith("MPI_")]
            if names == ["allreduce", "mstore", "sendrecv"]:
                tags = set(e["tag"] for e in mpi if e["kind"] == "MPI_Sendrecv")
                t = tags.pop() if len(tags) == 1 else None
            elif names == ["cstore"] and not mpi:
                t = len(mk) // 1000  # 1000*t events
            elif names == ["wstore"] and not mpi:
                t = 1 + NMPI + NCOMP
            else:
                t = None
            if not report(t is not None and t not in roles,
                          "%s: writer thread %d has the events of exactly one program thread" % (pre, idx),
                          "marked statements: %s" % names, "MPI calls: %s" % [e["kind"] for e in mpi][:10]):
                continue
            roles[t] = (idx, tevs, mk, mpi)
        report(sorted(roles) == list(range(1, 2 + NMPI + NCOMP)),
               "%s: every program thread t=1..%d has its own writer thread" % (pre, 1 + NMPI + NCOMP),
               "found: %s" % sorted(roles))
        bases = {}
        for t, (idx, tevs, mk, mpi) in sorted(roles.items()):
            tp = "%s thread t=%d (writer %d)" % (pre, t, idx)
            if t <= NMPI:
                n = m * t
                seq = [name for name, _ in mk]
                want = (["mstore"] * n + ["sendrecv"]) * k + ["allreduce"]
                if not report(seq == want, "%s: its %d stores and %d MPI_Sendrecv alternate in program order, "
                              "then its MPI_Allreduce" % (tp, k * n, k),
                              "first difference at %s" % next((i for i, (a, b) in enumerate(zip(seq, want)) if a != b),
                                                               min(len(seq), len(want))),
                              "lengths: got %d, expected %d" % (len(seq), len(want))):
                    continue
                stores = [e for name, e in mk if name == "mstore"]
                why, bases[t] = contiguous(stores)
                report(why is None, "%s: the stores write data[%d][0..%d] in order" % (tp, t, k * n - 1), why)
                iters = [[it["iter"] for it in e["iter"]] for e in stores]
                want_it = [[i // n + 1, i % n + 1] for i in range(k * n)]
                report(iters == want_it, "%s: the stores carry iteration vectors (1,1)..(%d,%d) of the thread's "
                       "own loops" % (tp, k, n), "first: %s" % iters[:3])
                sr = [e for name, e in mk if name == "sendrecv"]
                good = all(e["peer"] == (r + 1) % np_ and e["rpeer"] == (r + np_ - 1) % np_ and e["tag"] == t and
                           e["rtag"] == t and e["st_source"] == (r + np_ - 1) % np_ and e["st_tag"] == t and
                           e["sbytes"] == 8 and e["st_bytes"] == 8 and e["comm"] == 0 for e in sr)
                report(good, "%s: each MPI_Sendrecv sends to rank %d and receives from rank %d with tag %d" %
                       (tp, (r + 1) % np_, (r + np_ - 1) % np_, t), sr[0] if sr else "none")
                report([e["seq"] for e in sr] == list(range(1, k + 1)) and
                       [e["rseq"] for e in sr] == list(range(1, k + 1)),
                       "%s: channel sequence numbers 1..%d in order, sending and receiving" % (tp, k),
                       "seq: %s" % [e["seq"] for e in sr][:10], "rseq: %s" % [e["rseq"] for e in sr][:10])
                sends[(r, t)] = [(e["seq"], e["rseq"]) for e in sr]
                ar = [e for name, e in mk if name == "allreduce"]
                report(len(ar) == 1 and ar[0]["comm"] != 0 and ar[0]["seq"] == 1,
                       "%s: its MPI_Allreduce is the first collective of its own communicator" % tp, ar)
                comms.setdefault(t, set()).update(e["comm"] for e in ar)
                report(len(mpi) == k + 1, "%s: exactly %d MPI calls" % (tp, k + 1),
                       "got: %s" % [e["kind"] for e in mpi][:10])
            else:
                name = "cstore" if t <= NMPI + NCOMP else "wstore"
                n = 1000 * t if name == "cstore" else NWAIT
                stores = [e for nm, e in mk if nm == name]
                report(len(stores) == n, "%s: exactly %d stores" % (tp, n), "got %d" % len(stores))
                why, bases[t] = contiguous(stores)
                report(why is None, "%s: the stores write data[%d][0..%d] in order" % (tp, t, n - 1), why)
                iters = [[it["iter"] for it in e["iter"]] for e in stores]
                report(iters == [[i + 1] for i in range(n)],
                       "%s: the stores carry iterations 1..%d of the thread's loop" % (tp, n), "first: %s" % iters[:3])
        if len(bases) == 1 + NMPI + NCOMP and all(b is not None for b in bases.values()):
            off = {t: bases[t] - bases[1] for t in bases}
            report(all(off[t] == (t - 1) * ROW * 8 for t in off),
                   "%s: thread t writes row t of data[] (row bases 8*%d bytes apart)" % (pre, ROW),
                   "offsets from row 1: %s" % off)
    # across ranks: rank r's sends with tag t are received by rank r+1 in order
    good, why = True, []
    for (r, t), lst in sorted(sends.items()):
        peer = sends.get(((r + 1) % np_, t))
        if peer is None or [s for s, _ in lst] != [rs for _, rs in peer]:
            good = False
            why.append("rank %d tag %d: seq %s vs rank %d rseq %s" %
                       (r, t, [s for s, _ in lst][:5], (r + 1) % np_, [rs for _, rs in peer or []][:5]))
    report(good and len(sends) == np_ * NMPI, "%s: every thread's sends match the receives of the same "
           "thread on the next rank (channel sequence numbers)" % label, *why)
    report(all(len(c) == 1 for c in comms.values()) and len(set().union(*comms.values())) == NMPI,
           "%s: thread t's MPI_Allreduce is on the same communicator on every rank, one per thread" % label,
           "comm ids: %s" % comms)


def check_openmp(label, dumpdir, np_, n, lines):
    for r in range(np_):
        th = by_thread(load(dumpdir, r, lines.values()))
        pre = "%s: rank %d" % (label, r)
        seen = threads_of(dumpdir, r)
        report(seen == list(range(OMP_NT)), "%s: %d threads wrote events" % (pre, OMP_NT), "threads seen: %s" % seen)
        calls = [e["kind"] for e in th.get(0, []) if e["kind"].startswith("MPI_")]
        report(calls == ["MPI_Init_thread", "MPI_Allreduce", "MPI_Allreduce", "MPI_Finalize"],
               "%s: thread 0 made the 4 MPI calls in program order" % pre, calls)
        others = [e["kind"] for i in th if i for e in th[i] if e["kind"].startswith("MPI_")]
        report(not others, "%s: the other threads made no MPI call" % pre, others[:5])
        tids, base0, vbase = {}, None, None
        for idx, tevs in sorted(th.items()):
            mk = marked(tevs, lines)
            ost = [e for nm, e in mk if nm == "ostore"]
            ofo = [e for nm, e in mk if nm == "ofor"]
            tid = len(ost) // 500 - 1
            tp = "%s writer thread %d" % (pre, idx)
            if not report(len(ost) == 500 * (tid + 1) and 0 <= tid < OMP_NT and tid not in tids,
                          "%s: 500*(t+1) stores of one OpenMP thread t" % tp, "got %d" % len(ost)):
                continue
            tids[tid] = idx
            seq = [nm for nm, _ in mk]
            report(seq == ["ostore"] * len(ost) + ["ofor"] * (n // OMP_NT),
                   "%s (t=%d): its stores of the first region, then its %d of the parallel loop" % (tp, tid, n // OMP_NT),
                   "got %d + %d events" % (len(ost), len(ofo)))
            why, b = contiguous(ost)
            report(why is None, "%s (t=%d): writes data[%d][0..%d] in order" % (tp, tid, tid, len(ost) - 1), why)
            why, vb = contiguous(ofo)
            report(why is None, "%s (t=%d): writes its static block of v[] in order" % (tp, tid), why)
            if b is not None and vb is not None:
                tids[tid] = (idx, b, vb)
        if len(tids) == OMP_NT and all(isinstance(v, tuple) for v in tids.values()):
            b0, v0 = tids[0][1], tids[0][2]
            report(all(tids[t][1] - b0 == t * OMP_ROW * 8 for t in tids) and
                   all(tids[t][2] - v0 == t * (n // OMP_NT) * 8 for t in tids),
                   "%s: OpenMP thread t writes row t of data[] and block t of v[]" % pre,
                   {t: (hex(tids[t][1] - b0), hex(tids[t][2] - v0)) for t in tids})
        else:
            report(False, "%s: every OpenMP thread 0..%d found" % (pre, OMP_NT - 1), "found: %s" % sorted(tids))


def check_same(label, dir_a, dir_b, np_):
    """Each rank's threads recorded the same streams in both dumps (--stable,
    so without addresses), whatever index each writer thread got."""
    field = re.compile(r'"ev":\d+,"thread":(\d+),')
    for r in range(np_):
        streams = []
        for d in (dir_a, dir_b):
            th = {}
            with open("%s/rank-%d.json" % (d, r)) as f:
                for line in f:
                    m = field.search(line)
                    th.setdefault(m.group(1) if m else None, []).append(field.sub("", line, 1))
            streams.append((sorted("".join(v) for v in th.values()), {i: len(v) for i, v in th.items()}))
        report(streams[0][0] == streams[1][0], "%s: rank %d: every thread's events are the same" % (label, r),
               "events per writer thread: %s vs %s" % (streams[0][1], streams[1][1]))


def main():
    if sys.argv[1] == "same":
        check_same(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
        return
    what, label, dumpdir, np_, k, m = sys.argv[1:7]
    lines = dict((a.split("=")[0], int(a.split("=")[1])) for a in sys.argv[7:])
    if what == "threads":
        check_threads(label, dumpdir, int(np_), int(k), int(m), lines)
    else:
        check_openmp(label, dumpdir, int(np_), int(k), lines)


if __name__ == "__main__":
    main()
