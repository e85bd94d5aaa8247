#!/usr/bin/env bash
# Faults while tracing (docs/reliability.md, "Faults while tracing"):
#  - the disk fills up: RLIMIT_FSIZE (ulimit -f; SIGXFSZ must not kill the
#    program) and a tiny tmpfs (ENOSPC); the trace directory on a read-only
#    file system.  The program prints its normal output and exits with its
#    normal status, each rank whose trace could not be written prints
#    exactly one warning naming its file, and what was written is readable:
#    `commhint info` exits 0 and reports exactly those ranks cut short;
#  - files are created with the user's umask (077 and 022);
#  - under strace, every file the trace library itself opens for writing,
#    creates, renames or removes is inside the trace directory, and all it
#    reads is /proc/self/cmdline and the link /proc/self/exe (besides its
#    environment variables).
# The mounts need root (CAP_SYS_ADMIN) and are skipped without it.
source "$(dirname "$0")/lib.sh"
PROG=$WORK/prog
T=120 # s, for each MPI run: a hang fails its check instead of the whole file
if ! out=$("$CH" cc mpicc -g -O1 -o "$PROG" tests/data/damaged/prog.c 2>&1); then
    not_ok "prog.c builds" "$out"
    exit 0
fi
ok "prog.c builds"
JAC=$B/examples/O2/jacobi
MNT=()
cleanup() {
    for m in "${MNT[@]}"; do umount "$m" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT

# full_disk WHAT DIR REASON [ulimit -f KiB]: jacobi traced into DIR fails to
# write (REASON); checks output, status, warnings and the trace left.
full_disk() {
    local what=$1 dir=$2 reason=$3 limit=${4:-unlimited} got want rc wrc warned cut ucx=()
    # under a file size limit, UCX must not use its shared-memory files:
    # System V shared memory is not a file (and tcp sometimes hangs at start)
    [ "$limit" = unlimited ] || ucx=(UCX_TLS=self,sysv)
    # 256 200: about 25 KB per rank stream (64 40 packs into 4 KB, which fits)
    want=$(COMMHINT_DISABLE=1 timeout $T mpiexec -n 2 "$JAC" 256 200 2>/dev/null)
    wrc=$?
    got=$(ulimit -f "$limit"; env "${ucx[@]}" COMMHINT_TRACE_DIR="$dir" COMMHINT_BUFFER_KB=64 \
        timeout $T mpiexec -n 2 "$JAC" 256 200 2>"$WORK/err")
    rc=$?
    expect_eq "$what: exit status $wrc as untraced (no SIGXFSZ death)" "$rc" "$wrc"
    expect_eq "$what: the program's normal output" "$got" "$want"
    expect_no_match "$what: nothing on stderr but commhint's warnings" "$(cat "$WORK/err")" '^[^c]|^c[^o]|^co[^m]'
    warned=$(grep -oE "file=$dir/rank-[0-9]+\.chtr reason=$reason$" "$WORK/err" | sort)
    [ -n "$warned" ] && ok "$what: a rank warned that its trace could not be written ($reason)" ||
        not_ok "$what: a rank warned that its trace could not be written ($reason)" "$(cat "$WORK/err")"
    expect_eq "$what: every warning is one sentence about one rank file, each file once" \
        "$(grep -c . "$WORK/err") $(printf '%s\n' "$warned" | sort -u | grep -c .)" \
        "$(printf '%s\n' "$warned" | grep -c .) $(printf '%s\n' "$warned" | grep -c .)"
    expect_match "$what: the warning says tracing stopped" "$(head -1 "$WORK/err")" '^commhint: cannot write trace, tracing stopped: file='
    info=$("$CH" info --format=json "$dir" 2>/dev/null)
    expect_eq "$what: commhint info reads what was written (exit 0)" "$?" 0
    cut=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print("\n".join("file=%s/rank-%05d.chtr reason=" % (sys.argv[1], r["rank"]) for r in d["ranks"] if r["status"] == "cut-short"))' "$dir" <<<"$info" 2>&1)
    expect_eq "$what: info reports cut short exactly the ranks that warned" "$cut" "$(printf '%s\n' "$warned" | sed 's/reason=.*/reason=/')"
    "$CH" hints "$dir" >/dev/null 2>&1
    expect_eq "$what: commhint hints analyses it (exit 0)" "$?" 0
}

# RLIMIT_FSIZE of 8 KiB: a chunk write crosses it (EFBIG, SIGXFSZ).
mkdir -p "$WORK/fsize"
full_disk "file size limit" "$WORK/fsize" "File too large" 8

# A 24 KiB tmpfs, and one mounted read-only (EROFS even for root).
mkdir -p "$WORK/tmpfs" "$WORK/rofs"
if mount -t tmpfs -o size=24k,mode=0755 tmpfs "$WORK/tmpfs" 2>/dev/null; then
    MNT+=("$WORK/tmpfs")
    full_disk "full tmpfs" "$WORK/tmpfs/t" "No space left on device"
else
    echo "ok - full tmpfs # SKIP cannot mount a tmpfs (needs root)"
fi
if mount -t tmpfs -o ro,size=64k tmpfs "$WORK/rofs" 2>/dev/null; then
    MNT+=("$WORK/rofs")
    want=$(COMMHINT_DISABLE=1 timeout $T mpiexec -n 2 "$PROG" 3 2>/dev/null)
    got=$(COMMHINT_TRACE_DIR=$WORK/rofs timeout $T mpiexec -n 2 "$PROG" 3 2>"$WORK/err")
    expect_eq "read-only file system: the program's exit status 3" "$?" 3
    expect_eq "read-only file system: the program's normal output" "$got" "$want"
    expect_eq "read-only file system: one warning per rank, each naming its file" \
        "$(grep -oE "^commhint: cannot write trace, tracing stopped: file=$WORK/rofs/rank-0000[01]\.chtr reason=Read-only file system$" "$WORK/err" | sort -u | wc -l) $(grep -c . "$WORK/err")" "2 2"
else
    echo "ok - read-only file system # SKIP cannot mount a tmpfs (needs root)"
fi

# The user's umask decides the modes of the directory and its files.
for um in 077 022; do
    dir=$WORK/umask$um/t
    (umask $um && COMMHINT_TRACE_DIR=$dir timeout $T mpiexec -n 2 "$PROG" >/dev/null 2>&1)
    case $um in 077) d=700 f=600 ;; 022) d=755 f=644 ;; esac
    expect_eq "umask $um: modes of the trace directory, its parent, meta and rank files" \
        "$(stat -c %a "$WORK/umask$um" "$dir" "$dir/commhint.meta" "$dir"/rank-*.chtr | tr '\n' ' ')" "$d $d $f $f $f "
done

# What the trace library itself opens, creates, renames and removes: the
# syscalls whose innermost caller outside libc is libcommhint.so.
if ! command -v strace >/dev/null 2>&1; then
    echo "ok - the trace library writes only in its trace directory # SKIP strace is not installed (make deps)"
elif ! strace -k -qq -e trace=getpid -o /dev/null true 2>/dev/null; then
    echo "ok - the trace library writes only in its trace directory # SKIP this strace has no -k (stack traces)"
else
    dir=$WORK/st/t
    mkdir -p "$WORK/st"
    COMMHINT_TRACE_DIR=$dir timeout $T strace -ff -k -qq -o "$WORK/st/log" \
        -e trace=open,openat,openat2,creat,rename,renameat,renameat2,unlink,unlinkat,rmdir,mkdir,mkdirat,link,linkat,symlink,symlinkat,truncate,readlink,readlinkat,chmod,fchmodat,mknod,mknodat \
        mpiexec -n 2 "$PROG" >"$WORK/st/out" 2>&1
    expect_eq "under strace: the traced program runs as usual" "$?" 0
    python3 - "$WORK/st/log" "$dir" >"$WORK/st/report" 2>&1 <<'EOF'
import glob, re, sys
prefix, tdir = sys.argv[1], sys.argv[2]
WRITE = re.compile(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC")
READ_OK = {"/proc/self/cmdline", "/proc/self/exe"}  # argv, and the executable's path
ours = 0
for fn in glob.glob(prefix + ".*"):
    recs, cur = [], None
    for line in open(fn, errors="replace"):
        if line.startswith(" > "):
            if cur:
                cur[1].append(line)
        else:
            cur = [line.rstrip(), []]
            recs.append(cur)
    for call, frames in recs:
        inner = [f for f in frames if "/libc.so" not in f and "/ld-linux" not in f]
        if not inner or "libcommhint" not in inner[0]:
            continue
        ours += 1
        name = call.split("(")[0]
        paths = re.findall(r'"([^"]*)"', call)
        if name in ("readlink", "readlinkat"):
            paths = paths[:1]
        writes = name not in ("open", "openat", "openat2", "readlink", "readlinkat") or WRITE.search(call)
        for p in paths:
            inside = p == tdir or p.startswith(tdir + "/")
            if writes and not inside:
                print("writes outside the trace directory:", call)
            if not writes and not inside and p not in READ_OK:
                print("reads something else than its environment:", call)
        if writes:
            print("ok-write", name, *[p.replace(tdir, "DIR") for p in paths])
print("syscalls of the trace library:", ours)
EOF
    rep=$(cat "$WORK/st/report")
    expect_no_match "the trace library writes only inside its trace directory" "$rep" '^writes outside'
    expect_no_match "the trace library reads only /proc/self/cmdline and /proc/self/exe" "$rep" '^reads something else'
    expect_match "strace saw the library create both rank files (the check can fail)" "$rep" '^ok-write openat DIR/rank-00001.chtr'
    expect_match "strace saw the library rename the meta file into place" "$rep" '^ok-write rename DIR/\.commhint\.meta\.[0-9a-f]{16} DIR/commhint\.meta'
fi
