"""Fair six-sided dice from a source of uniformly random bytes, by rejection sampling.

A byte is uniform on 0..255. 256 is not a multiple of 6, so `byte % 6` would favour 1..4 (43 bytes each
against 42). Bytes 252..255 are rejected and 0..251 (= 6 * 42) map to a face by `byte // 42`: every face gets
exactly 42 byte values.
"""

ACCEPT_BELOW = 252  # 6 * 42
PER_FACE = 42


def face_of(byte):
    """The face (1..6) for one random byte, or 0 if the byte must be rejected."""
    if byte >= ACCEPT_BELOW:
        return 0
    return byte // PER_FACE + 1


class Dice:
    """Rolls dice from `source(n) -> bytes` (os.urandom on the board; a seeded generator in tests).

    Draws exactly as many bytes as dice still needed, so a rejected byte costs one more draw.
    """

    def __init__(self, source):
        self._source = source
        self.rejected = 0

    def _draw(self, n):
        data = self._source(n)
        if len(data) != n:
            raise OSError(f"random source returned {len(data)} of {n} bytes")
        return data

    def roll(self, n):
        """A list of n faces, each uniform on 1..6."""
        out = []
        while len(out) < n:
            for b in self._draw(n - len(out)):
                face = face_of(b)
                if face:
                    out.append(face)
                else:
                    self.rejected += 1
        return out

    def u16(self):
        hi, lo = self._draw(2)
        return (hi << 8) | lo

    def u32(self):
        a, b, c, d = self._draw(4)
        return (a << 24) | (b << 16) | (c << 8) | d
