"""scripts/setup (which ./scripts/demo and ./scripts/test run first) installs only when its inputs changed,
and says so; checked in a copy of the tree with stand-ins for dpkg, apt and pip that record their calls."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(path: Path, body: str) -> None:
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of what setup reads, a .venv whose python only logs, and a dpkg that has everything."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup", tmp_path / "scripts" / "setup")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    bin_ = tmp_path / ".venv" / "bin"
    bin_.mkdir(parents=True)
    _tool(bin_ / "python", f'echo "pip $*" >> "{tmp_path}/calls"\n')
    _tool(bin_ / "seneschal", "exit 0\n")
    tools = tmp_path / "tools"
    tools.mkdir()
    _tool(tools / "dpkg-query", "echo -n 'install ok installed'\n")
    _tool(tools / "apt-get", f'echo "apt $*" >> "{tmp_path}/calls"\n')
    return tmp_path


def _setup(tree: Path, *args: str) -> tuple[list[str], str]:
    calls = tree / "calls"
    calls.unlink(missing_ok=True)
    env = dict(os.environ, PATH=f"{tree / 'tools'}:{os.environ['PATH']}")
    out = subprocess.run(
        ["bash", str(tree / "scripts" / "setup"), *args], env=env, capture_output=True, text=True, check=True
    )
    return (calls.read_text().splitlines() if calls.exists() else []), out.stdout


def test_setup_installs_once_then_starts_at_once(tree: Path) -> None:
    calls, said = _setup(tree)
    assert calls == ['pip -m pip install -q -e .'] and "installing Seneschal" in said
    assert _setup(tree) == ([], "")  # nothing changed: nothing to do, nothing said


def test_a_changed_pyproject_installs_again(tree: Path) -> None:
    _setup(tree)
    with (tree / "pyproject.toml").open("a") as f:
        f.write("\n# a new dependency would go here\n")
    calls, _ = _setup(tree)
    assert calls == ["pip -m pip install -q -e ."]


def test_test_tools_are_installed_once_and_cover_the_demo(tree: Path) -> None:
    assert _setup(tree, "--test")[0] == ["pip -m pip install -q -e .[test]"]
    assert _setup(tree)[0] == []  # the demo needs less than what is installed
    assert _setup(tree, "--test")[0] == []


def test_missing_system_packages_are_installed_and_named(tree: Path) -> None:
    _tool(tree / "tools" / "dpkg-query", "exit 1\n")  # nothing installed
    _tool(tree / "tools" / "sudo", '"$@"\n')
    calls, said = _setup(tree)
    assert any(c.startswith("apt install") and "libzbar0" in c for c in calls)
    assert "installing system packages: libzbar0" in said
