#!/usr/bin/env python3
"""Exit 0 when a PNG screenshot is not blank: at least 1% of its pixels differ from the most
common colour and there are at least 8 distinct colours. Standard library only (zlib)."""
import struct
import sys
import zlib
from collections import Counter


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, width, height, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise SystemExit(f"{path}: unexpected PNG format (depth {depth}, colour type {ctype})")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, out = zlib.decompress(idat), width * bpp, bytearray(width * bpp), []
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:  # every fourth row is enough to tell
            out.extend(bytes(line[x:x + 3]) for x in range(0, stride, bpp * 4))
        prev = line
    return out


px = pixels(sys.argv[1])
counts = Counter(px)
common = counts.most_common(1)[0][1]
other = 1 - common / len(px)
print(f"{sys.argv[1]}: {len(counts)} colours, {other:.1%} of pixels off the background")
sys.exit(0 if other >= 0.01 and len(counts) >= 8 else 1)
