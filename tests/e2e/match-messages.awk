# match-messages.awk - from `commhint dump --format=json` lines of all ranks,
# prints one line "src dst tag seq" per message as seen by its sender
# (-v side=send) or by its receiver (-v side=recv), for cross-rank matching.
function num(line, key,    m) {
    if (match(line, "\"" key "\":-?[0-9]+")) {
        m = substr(line, RSTART, RLENGTH)
        sub(/.*:/, "", m)
        return m
    }
    return ""
}
{
    kind = $0; sub(/.*"kind":"/, "", kind); sub(/".*/, "", kind)
    if (side == "send" && kind ~ /^MPI_([A-Za-z]*[Ss]end|Sendrecv|Sendrecv_replace)$/ && num($0, "peer") >= 0)
        print num($0, "rank"), num($0, "peer"), num($0, "tag"), num($0, "seq")
    if (side == "recv" && kind ~ /^MPI_(Recv|Sendrecv|Sendrecv_replace)$/)
        print num($0, "st_source"), num($0, "rank"), num($0, "st_tag"), num($0, "rseq")
    if (side == "recv") {
        rest = $0
        while (match(rest, /\{"request":[0-9]+,"recv":true,"st_source":-?[0-9]+,"st_tag":-?[0-9]+,"st_bytes":[0-9]+,"rseq":[0-9]+\}/)) {
            c = substr(rest, RSTART, RLENGTH)
            rest = substr(rest, RSTART + RLENGTH)
            print num(c, "st_source"), num($0, "rank"), num(c, "st_tag"), num(c, "rseq")
        }
    }
}
