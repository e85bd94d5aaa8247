#!/usr/bin/env bash
# Which MPI functions of the installed MPI header (MPICH 4.0 here) the
# analysis sees, and how (docs/dependence.md, "MPI calls no wrapper
# records: fences"): every function is wrapped by the runtime (recorded with
# its buffers), local (tracelib/mpi-local.h: moves no data, synchronises
# with nobody), or recorded by the pass's hook as an untraced call, a
# fence.  The list comes from the header itself, so a new MPI version is
# covered as soon as it is installed.  Checked here:
#   - the local list names only functions the header has (a typo would
#     turn a local call into a fence: safe but wrong);
#   - no local function moves data or completes communication: none takes
#     a request, a message handle or a window's data buffer, and none is
#     named like a communication call;
#   - wrappers and the local list do not overlap;
#   - the runtime wraps every call that the point-to-point, completion and
#     blocking collective tables of docs/dependence.md name.
# It prints the three counts.
source "$(dirname "$0")/lib.sh"

protos=$WORK/protos.txt
echo '#include <mpi.h>' | mpicc -E -x c - 2>/dev/null | tr '\n' ' ' | sed 's/;/;\n/g' |
    grep -oE '\b(int|double|MPI_Aint|MPI_Fint|MPI_[A-Z][a-z]+) MPI_[A-Za-z0-9_]+\([^)]*\)' |
    sed -E 's/^[A-Za-z_]+ //' | sort -u >"$protos"
n=$(wc -l <"$protos")
if [ "$n" -gt 300 ]; then ok "the MPI header declares $n functions"; else
    not_ok "the MPI header declares functions" "found $n"; fi

# the local test of mpi-local.h, as the pass uses it
cat >"$WORK/islocal.c" <<'C'
#include <stdio.h>
#include "mpi-local.h"
int main(void)
{
    char name[256];
    while (scanf("%255s", name) == 1)
        printf("%s %d\n", name, cht_mpi_is_local(name));
    return 0;
}
C
check "the local test compiles" cc -std=c11 -Itracelib -o "$WORK/islocal" "$WORK/islocal.c"
sed -E 's/^(MPI_[A-Za-z0-9_]+)\(.*/\1/' "$protos" | "$WORK/islocal" >"$WORK/local.txt"
wrapped=$(nm -D --defined-only "$B/lib/libcommhint.so" | awk '$2 == "T" && $3 ~ /^MPI_/ {print $3}' | sort -u)

# names of calls that move data, synchronise or complete communication
COMM_NAMES='^MPI_(I?[SBR]?SEND|ISSEND|I?RECV|I?SENDRECV|I?SENDRECV_REPLACE|I?M?PROBE|I?MRECV|CANCEL|START|STARTALL|WAIT|TEST|WAITALL|WAITANY|WAITSOME|TESTALL|TESTANY|TESTSOME|R?PUT|R?GET|R?ACCUMULATE|R?GET_ACCUMULATE|FETCH_AND_OP|COMPARE_AND_SWAP|PACK|UNPACK|PREADY.*|PARRIVED|P?SEND_INIT|P?RECV_INIT)(_C|_INIT)?$|BCAST|REDUCE|GATHER|SCATTER|ALLTOALL|BARRIER|ALLREDUCE|SCAN|^MPI_WIN_(FENCE|LOCK|LOCK_ALL|UNLOCK|UNLOCK_ALL|FLUSH.*|POST|START|COMPLETE|WAIT|TEST|SYNC)$'
nw=0 nl=0 nu=0 bad_local="" both=""
while read -r f l; do
    if grep -qx "$f" <<<"$wrapped"; then
        nw=$((nw + 1))
        [ "$l" = 1 ] && both="$both $f"
    elif [ "$l" = 1 ]; then
        nl=$((nl + 1))
        proto=$(grep -E "^$f\(" "$protos")
        if grep -qE 'MPI_Request|MPI_Message|void \*origin|void \*result' <<<"$proto" ||
            grep -qiE "$COMM_NAMES" <<<"$f"; then
            bad_local="$bad_local $f"
        fi
    else
        nu=$((nu + 1))
    fi
done <"$WORK/local.txt"
expect_eq "no local function moves data or completes communication" "${bad_local:-none}" none
expect_eq "wrapped functions are not in the local list" "${both:-none}" none

# every name in the local list is a function of the header
missing=""
for name in $(sed -n '/cht_mpi_local_names\[\] = {/,/};/p' tracelib/mpi-local.h | grep -oE '"[A-Za-z0-9_]+"' | tr -d '"'); do
    grep -qE "^MPI_$name\(" "$protos" || missing="$missing $name"
done
expect_eq "every local name is declared by the header" "${missing:-none}" none

for f in MPI_Send MPI_Ssend MPI_Bsend MPI_Rsend MPI_Recv MPI_Isend MPI_Issend MPI_Ibsend MPI_Irsend \
    MPI_Irecv MPI_Sendrecv MPI_Sendrecv_replace MPI_Probe MPI_Iprobe MPI_Wait MPI_Waitall \
    MPI_Waitany MPI_Waitsome MPI_Test MPI_Testall MPI_Testany MPI_Testsome MPI_Request_free \
    MPI_Barrier MPI_Bcast MPI_Reduce MPI_Allreduce MPI_Gather MPI_Gatherv MPI_Scatter \
    MPI_Scatterv MPI_Allgather MPI_Allgatherv MPI_Alltoall MPI_Alltoallv MPI_Reduce_scatter \
    MPI_Reduce_scatter_block MPI_Scan MPI_Exscan MPI_Get_count MPI_Get_elements MPI_Init \
    MPI_Init_thread MPI_Finalize MPI_Abort MPI_Comm_dup MPI_Comm_split MPI_Comm_free; do
    grep -qx "$f" <<<"$wrapped" || missing_w="${missing_w:-} $f"
done
expect_eq "the runtime wraps the calls of the dependence tables" "${missing_w:-none}" none

# one-sided communication: every window, operation and synchronisation
# function of the header (and its _c form) is wrapped; only the window
# queries and attribute/name/info/group/error-handler calls are local
rma=$(sed -E 's/^(MPI_[A-Za-z0-9_]+)\(.*/\1/' "$protos" |
    grep -E '^MPI_(Win_[a-z_]+|R?put(_c)?|R?get(_c)?|R?(get_)?accumulate(_c)?|Fetch_and_op|Compare_and_swap)$' -i |
    grep -viE '^MPI_Get_(count|elements|address|library_version|processor_name|version)')
missing_rma=""
for f in $rma; do
    grep -qx "$f" <<<"$wrapped" || grep -qx "$f 1" "$WORK/local.txt" || missing_rma="$missing_rma $f"
done
expect_eq "every one-sided function is wrapped or local" "${missing_rma:-none}" none
nrma=$(grep -cxF -f <(printf '%s\n' $rma) <<<"$wrapped")
if [ "$nrma" -ge 43 ]; then ok "the runtime wraps the one-sided calls ($nrma)"; else
    not_ok "the runtime wraps the one-sided calls" "wrapped $nrma of: $rma"; fi
# Every function that moves data (between ranks, or between memory and a
# packing buffer), completes communication or synchronises on a window has a
# wrapper: recorded with its buffers and matching information, not left to
# the hook as a fence.  Its large-count (_c), nonblocking (I), persistent
# (_init) and neighbourhood forms included.  What stays a fence, by design:
# MPI-IO (MPI_File_*: memory to file, documented in docs/dependence.md),
# communicator, group, port and session management, generalized requests.
DATA_MOVING='^MPI_(I?[SBR]?SEND|ISSEND|I?RECV|I?SENDRECV|I?SENDRECV_REPLACE|I?M?PROBE|I?MRECV|CANCEL|START|STARTALL|PREADY|PREADY_RANGE|PREADY_LIST|PARRIVED|[PSBR]?SEND_INIT|P?RECV_INIT|WAIT|WAITALL|WAITANY|WAITSOME|TEST|TESTALL|TESTANY|TESTSOME|REQUEST_FREE|REQUEST_GET_STATUS|TEST_CANCELLED|GET_COUNT|GET_ELEMENTS|GET_ELEMENTS_X|R?PUT|R?GET|R?ACCUMULATE|R?GET_ACCUMULATE|FETCH_AND_OP|COMPARE_AND_SWAP|(UN)?PACK|(UN)?PACK_EXTERNAL|WIN_(CREATE|ALLOCATE|ALLOCATE_SHARED|CREATE_DYNAMIC|ATTACH|DETACH|FREE|FENCE|LOCK|LOCK_ALL|UNLOCK|UNLOCK_ALL|FLUSH|FLUSH_ALL|FLUSH_LOCAL|FLUSH_LOCAL_ALL|POST|START|COMPLETE|WAIT|TEST|SYNC))(_C)?$|BARRIER|BCAST|REDUCE|GATHER|SCATTER|ALLTOALL|SCAN'
nd=0 unwrapped=""
for f in $(sed -E 's/^(MPI_[A-Za-z0-9_]+)\(.*/\1/' "$protos"); do
    grep -qiE "$DATA_MOVING" <<<"$f" || continue
    nd=$((nd + 1))
    grep -qx "$f" <<<"$wrapped" || unwrapped="$unwrapped $f"
done
if [ "$nd" -gt 250 ]; then ok "the header declares $nd data-moving functions"; else
    not_ok "the header declares data-moving functions" "found $nd"; fi
expect_eq "every data-moving function has a wrapper" "${unwrapped:-none}" none
echo "# of $n MPI functions: $nw wrapped, $nl local, $nu recorded as untraced fences by the hook; $nd move data"
