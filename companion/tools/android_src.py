"""Assemble the folder buildozer packages for Android: `build/android-src/` with `main.py` at its root
(buildozer starts the app from `main.py` in `source.dir`) and the packages the tablet needs.

    python -m companion.tools.android_src        # then: cd companion && buildozer android debug
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "build" / "android-src"
PACKAGES = ("companion", "engine", "vision", "hardware")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "tools", "buildozer.spec", ".buildozer", "bin")

MAIN = '''"""Seneschal on Android: the real-table app with the tablet's camera.

Written by companion.tools.android_src; do not edit.
"""

from companion.demo import main_app

if __name__ == "__main__":
    raise SystemExit(main_app(["--camera", "0"]))
'''


def main(argv: list[str] | None = None) -> int:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    for pkg in PACKAGES:
        shutil.copytree(ROOT / pkg, OUT / pkg, ignore=IGNORE)
    (OUT / "main.py").write_text(MAIN, encoding="utf-8")
    print(f"wrote {OUT} ({', '.join(PACKAGES)} + main.py)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
