"""Looking at screenshots in the tests: a PNG decoder on the standard library, and a
check that a picture is not blank."""

import struct
import zlib
from pathlib import Path


def png_pixels(path):
    """Decode an 8-bit RGB/RGBA non-interlaced PNG with the standard library."""
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and interlace == 0 and colour in (2, 6)
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def sample(path, step=3):
    """(distinct colours, share of pixels that are not white or near-white page background)
    over every ``step``-th pixel of every ``step``-th row."""
    width, _height, bpp, rows = png_pixels(path)
    colours, ink, seen = set(), 0, 0
    for row in rows[::step]:
        for x in range(0, width * bpp, bpp * step):
            px = bytes(row[x:x + 3])
            colours.add(px)
            seen += 1
            if min(px) < 0xf0:
                ink += 1
    return colours, ink / max(seen, 1)
