"""companion/buildozer.spec stays true to what the app imports and reads (docs/android.md): a requirement for
every third-party module the shipped packages import, none for what they do not, lazy imports for what
python-for-android cannot build, and every kind of data file packaged."""

from __future__ import annotations

import ast
import configparser
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "companion" / "buildozer.spec"
SHIPPED = ("companion", "engine", "vision", "hardware")  # what companion.tools.android_src copies
# Never imported by the app: the Android assembler and the dice networks' training tools.
NOT_SHIPPED_CODE = (ROOT / "companion" / "tools", ROOT / "vision" / "dice_model")
NOT_READ = ("README.md", "buildozer.spec")
OURS = {"companion", "engine", "vision", "hardware", "firmware", "__future__"}

# module imported → the python-for-android requirement that provides it
REQUIREMENT = {
    "kivy": "kivy",
    "cv2": "opencv",
    "numpy": "numpy",
    "PIL": "pillow",
    "serial": "pyserial",
    "platformdirs": "platformdirs",
    "sqlite3": "sqlite3",  # standard library, but p4a's python3 has it only with its recipe
}
# modules with no python-for-android recipe: the app must run without them (docs/android.md says how)
NO_RECIPE = {"zxingcpp", "pyzbar", "openvino", "onnxruntime"}
BUILD_ONLY = {"python3"}
LOADERS = ("import_module", "_importer")  # calls that import the module named by their first argument


def _modules() -> Iterator[tuple[Path, str, bool]]:
    """(file, top-level module, imported at module level) for every import in the shipped code, including
    `importlib.import_module("x")` and the like with a literal name."""
    for pkg in SHIPPED:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            if any(path.is_relative_to(skip) for skip in NOT_SHIPPED_CODE):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            top_level = {id(n) for n in tree.body}
            for node in ast.walk(tree):
                names: list[str] = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                elif (
                    isinstance(node, ast.Call)
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                    and getattr(node.func, "attr", getattr(node.func, "id", "")) in LOADERS
                ):
                    names = [node.args[0].value]
                for name in names:
                    yield path, name.split(".")[0], id(node) in top_level


def _third_party() -> dict[str, list[tuple[Path, bool]]]:
    found: dict[str, list[tuple[Path, bool]]] = {}
    for path, module, top in _modules():
        if module in OURS or (module in sys.stdlib_module_names and module not in REQUIREMENT):
            continue
        found.setdefault(module, []).append((path, top))
    return found


def _spec() -> configparser.SectionProxy:
    parser = configparser.ConfigParser()
    parser.read(SPEC, encoding="utf-8")
    return parser["app"]


def _requirements() -> dict[str, str]:
    out = {}
    for item in _spec()["requirements"].split(","):
        name, _, version = item.strip().partition("==")
        out[name.lower()] = version
    return out


def test_every_imported_module_is_a_requirement_or_known_to_be_missing() -> None:
    imported = _third_party()
    unknown = sorted(set(imported) - set(REQUIREMENT) - NO_RECIPE)
    assert not unknown, f"imported but neither in the spec's requirements nor in docs/android.md: {unknown}"
    needed = {REQUIREMENT[m] for m in imported if m in REQUIREMENT}
    required = set(_requirements())
    assert needed <= required, f"missing from buildozer.spec requirements: {sorted(needed - required)}"
    unused = required - needed - BUILD_ONLY
    assert not unused, f"required but imported nowhere: {sorted(unused)}"


def test_what_android_cannot_build_is_imported_only_when_used() -> None:
    """A module-level import of a library with no recipe would stop the app from starting on Android."""
    eager = [f"{p.relative_to(ROOT)} imports {m}" for m, uses in _third_party().items() if m in NO_RECIPE
             for p, top in uses if top]
    assert not eager


def test_the_pinned_kivy_is_the_one_the_app_is_built_against() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    version = _requirements()["kivy"]
    assert version.startswith("2.3.") and '"kivy[base]>=2.3,<2.4"' in pyproject


def test_every_kind_of_data_file_is_packaged() -> None:
    spec = _spec()
    exts = {e.strip() for e in spec["source.include_exts"].split(",")}
    patterns = {p.strip() for p in spec.get("source.include_patterns", "").split(",") if p.strip()}
    missing = []
    for pkg in SHIPPED:
        for path in (ROOT / pkg).rglob("*"):
            if not path.is_file() or "__pycache__" in path.parts or path.name in NOT_READ:
                continue
            if any(path.is_relative_to(skip) for skip in NOT_SHIPPED_CODE):
                continue
            rel = path.relative_to(ROOT).as_posix()
            if path.suffix.lstrip(".") not in exts and rel not in patterns:
                missing.append(rel)
    assert not missing, f"files the app may read that the APK would leave out: {missing}"
