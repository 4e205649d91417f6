"""Minimal SSD1306 OLED driver over I2C (board only: needs MicroPython's framebuf).

Just what TextDisplay needs (fill, text, show) for the common 128x32 / 128x64 modules at address 0x3C. Kept
in the firmware rather than depending on micropython-lib, so the board needs nothing but these files.
"""

import framebuf

_INIT = (
    0xAE,  # display off
    0x20, 0x00,  # horizontal addressing
    0x40,  # start line 0
    0xA1,  # segment remap (column 127 = SEG0)
    0xC8,  # COM scan direction remapped
    0xD3, 0x00,  # display offset 0
    0xD5, 0x80,  # clock divide
    0xD9, 0xF1,  # pre-charge (internal charge pump)
    0xDB, 0x30,  # VCOM deselect level
    0x81, 0xFF,  # contrast
    0xA4,  # follow RAM
    0xA6,  # not inverted
    0x8D, 0x14,  # charge pump on
    0xAF,  # display on
)


class SSD1306:
    def __init__(self, i2c, width=128, height=32, addr=0x3C):
        self.i2c = i2c
        self.addr = addr
        self.width = width
        self.height = height
        self.pages = height // 8
        self.buffer = bytearray(self.pages * width)
        self.fb = framebuf.FrameBuffer(self.buffer, width, height, framebuf.MONO_VLSB)
        self._cmd(0xA8)  # multiplex ratio
        self._cmd(height - 1)
        self._cmd(0xDA)  # COM pins: sequential for 32 rows, alternative for 64
        self._cmd(0x02 if height == 32 else 0x12)
        for c in _INIT:
            self._cmd(c)
        self.fill(0)
        self.show()

    def _cmd(self, c):
        self.i2c.writeto(self.addr, bytes((0x80, c)))

    def fill(self, c):
        self.fb.fill(c)

    def text(self, s, x, y, c=1):
        self.fb.text(s, x, y, c)

    def show(self):
        for c in (0x21, 0, self.width - 1, 0x22, 0, self.pages - 1):
            self._cmd(c)
        self.i2c.writevto(self.addr, (b"\x40", self.buffer))
