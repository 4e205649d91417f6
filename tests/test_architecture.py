"""docs/architecture.md: which package may import which. Parsed from the source, so a violation fails here."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = {"engine", "vision", "hardware", "companion", "firmware"}
MICROPYTHON_ONLY = {
    "machine", "micropython", "utime", "uos", "ustruct", "rp2", "network", "framebuf", "ujson", "uselect",
    "usys", "uasyncio",
}

# package -> (our packages it may import, third-party top-level modules it may import)
ALLOWED: dict[str, tuple[set[str], set[str] | None]] = {
    "engine": (set(), set()),
    "hardware": (set(), {"serial"}),
    "firmware": (set(), MICROPYTHON_ONLY),
    "vision": ({"engine"}, {"cv2", "numpy", "zxingcpp", "pyzbar", "PIL", "onnxruntime", "openvino"}),
    "companion": ({"engine", "vision", "hardware"}, None),  # None: any third-party module
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def _sources(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_import_boundaries(package: str) -> None:
    ours_allowed, third_party_allowed = ALLOWED[package]
    problems = []
    for path in _sources(package):
        for name in _imports(path):
            if name in TRAINING_ONLY and str(path.relative_to(ROOT)) in TRAINING_ONLY[name]:
                continue
            if name in OURS - {package} and name not in ours_allowed:
                problems.append(f"{path.relative_to(ROOT)} imports {name}")
            elif name in OURS or name in sys.stdlib_module_names or name == "__future__":
                continue
            elif third_party_allowed is not None and name not in third_party_allowed:
                problems.append(f"{path.relative_to(ROOT)} imports third-party {name}")
    assert not problems, "\n".join(problems)


# Training-only dependencies (the `train` extra) and the one module allowed to import them: nothing the
# product runs may need PyTorch.
TRAINING_ONLY = {"torch": {"vision/dice_model/train.py"}, "onnx": {"vision/dice_model/train.py"}}


def test_training_dependencies_stay_in_the_training_script() -> None:
    offenders = []
    for pkg in OURS:
        for path in _sources(pkg):
            rel = str(path.relative_to(ROOT))
            offenders += [f"{rel} imports {name}" for name in _imports(path) & set(TRAINING_ONLY)
                          if rel not in TRAINING_ONLY[name]]
    assert not offenders


def test_only_companion_imports_kivy() -> None:
    offenders = [str(p.relative_to(ROOT)) for pkg in OURS - {"companion"} for p in _sources(pkg)
                 if "kivy" in _imports(p)]
    assert not offenders


def test_vision_uses_engine_for_types_only() -> None:
    """vision may import engine's value types, never its rules (legal_actions, check, apply and the like)."""
    banned = {"engine.rules", "engine.reconcile", "engine.history", "engine.playout", "engine.scenario"}
    offenders = []
    for path in _sources("vision"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in banned:
                offenders.append(f"{path.relative_to(ROOT)}: from {node.module}")
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names if a.name in banned]
                offenders += [f"{path.relative_to(ROOT)}: import {name}" for name in names]
    assert not offenders
