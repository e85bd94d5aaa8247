#!/usr/bin/env python3
"""chunks.py - rearranges the chunks of rank stream files, for the tests of
mixed-up files (tests/e2e/mixed-files.sh).

  chunks.py count FILE                 number of chunks
  chunks.py copy FROM TO OUT J         TO with its chunk J replaced by FROM's chunk J
  chunks.py swap FILE OUT J            FILE with chunks J and J+1 exchanged
  chunks.py world FILE OUT N           FILE with the header's world_size set to N
"""
import struct
import sys


def chunks(b):
    off = struct.unpack_from('<H', b, 12)[0]
    out = []
    while off + 32 <= len(b):
        hs, stored = struct.unpack_from('<H', b, off + 4)[0], struct.unpack_from('<I', b, off + 8)[0]
        out.append((off, hs + stored))
        off += hs + stored
    return out


def main(argv):
    mode = argv[1]
    if mode == 'count':
        print(len(chunks(open(argv[2], 'rb').read())))
        return
    if mode == 'copy':
        a, b = open(argv[2], 'rb').read(), open(argv[3], 'rb').read()
        j = int(argv[5])
        (o, n), (oa, na) = chunks(b)[j], chunks(a)[j]
        out, path = b[:o] + a[oa:oa + na] + b[o + n:], argv[4]
    elif mode == 'swap':
        b = open(argv[2], 'rb').read()
        j = int(argv[4])
        c = chunks(b)
        (o1, n1), (o2, n2) = c[j], c[j + 1]
        out, path = b[:o1] + b[o2:o2 + n2] + b[o1:o1 + n1] + b[o2 + n2:], argv[3]
    elif mode == 'world':
        b = bytearray(open(argv[2], 'rb').read())
        struct.pack_into('<i', b, 36, int(argv[4]))
        out, path = bytes(b), argv[3]
    else:
        sys.exit('chunks.py: unknown mode ' + mode)
    open(path, 'wb').write(out)


main(sys.argv)
