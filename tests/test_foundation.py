"""Issue 2: each package imports and the third-party library it stands on really works on this machine."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import ARTIFACTS


@pytest.mark.parametrize("package", ["engine", "vision", "hardware", "companion", "firmware"])
def test_package_imports(package: str) -> None:
    assert importlib.import_module(package).__name__ == package


def _qr_image(text: str, scale: int = 8) -> np.ndarray:
    import cv2

    encoder = cv2.QRCodeEncoder.create()
    modules = encoder.encode(text)
    big = cv2.resize(modules, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
    return cv2.copyMakeBorder(big, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)


def test_opencv_decodes_a_qr_code_made_in_the_test() -> None:
    import cv2

    text, _points, _straight = cv2.QRCodeDetector().detectAndDecode(_qr_image("MM1:T07"))
    assert text == "MM1:T07"


def test_pyzbar_finds_libzbar_and_decodes() -> None:
    from pyzbar import pyzbar

    found = pyzbar.decode(_qr_image("MM1:L2"))
    assert [symbol.data.decode() for symbol in found] == ["MM1:L2"]


def test_zxing_cpp_decodes() -> None:
    import zxingcpp

    found = zxingcpp.read_barcodes(_qr_image("MM1:K3"))
    assert [code.text for code in found] == ["MM1:K3"]


def test_pyserial_round_trips_bytes_over_loop() -> None:
    import serial

    port = serial.serial_for_url("loop://", timeout=1)
    try:
        port.write(b"\x00\x01hello\xff")
        assert port.read(8) == b"\x00\x01hello\xff"
    finally:
        port.close()


def test_kivy_renders_a_widget_offscreen_to_a_png() -> None:
    assert os.environ["SDL_VIDEODRIVER"] == "offscreen"
    from kivy.base import EventLoop
    from kivy.core.window import Window
    from kivy.uix.button import Button

    EventLoop.ensure_window()
    assert Window is not None, "Kivy opened no window: Mesa's EGL/GL libraries missing?"
    button = Button(text="Seneschal", font_size=48, size_hint=(None, None), size=(400, 120))
    Window.add_widget(button)
    try:
        for _ in range(3):  # let the kv rules lay the text texture onto the canvas
            EventLoop.idle()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        out = ARTIFACTS / "foundation-button.png"
        button.export_to_png(str(out))
    finally:
        Window.remove_widget(button)
    import cv2

    pixels = cv2.imread(str(out))
    assert pixels is not None and pixels.shape[:2] == (120, 400)
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 10, "rendered PNG has no text on it"


def test_micropython_interpreter_is_installed() -> None:
    import shutil
    import subprocess
    import sys

    binary = shutil.which("micropython") or str(Path(sys.executable).parent / "micropython")
    result = subprocess.run([binary, "-c", "import struct; print(struct.pack('>H', 513))"],
                            capture_output=True, text=True, timeout=30, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "b'\\x02\\x01'"
