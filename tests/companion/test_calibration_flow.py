"""Box setup's dice-colour calibration on synthetic camera frames (vision.synth): players put a die on their
castle under a warm lamp, one tap measures them, another saves; the camera's reader then tells the colours
apart in that light. A die of the wrong colour on a castle is caught before anything is saved.

The table reader is vision's own (map, stickers' white, dice assigned to tiles, colours measured from the
pixels); only the dice FINDER is the renderer's ground truth, so these tests check the app's calibration flow
and not the dice finder (tested in tests/vision)."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from companion.box import CatalogueBox
from companion.calibrate import DieSample, load_calibration, samples_on_castles
from companion.presenters.boxsetup import BoxSetupPresenter
from companion.services import ManualClock
from engine.colours import Colour

pytest.importorskip("vision.pipeline")
pytest.importorskip("vision.synth")

R, B, Y = Colour.RED, Colour.BLUE, Colour.YELLOW


def _board() -> Any:
    from engine.catalogue import load_default_catalogue
    from engine.maps import default_board

    return default_board(3, load_default_catalogue(), random.Random(1))


def _frame(knights: Mapping[str, Mapping[Colour, int]], seed: int) -> tuple[Any, Any]:
    from vision.synth import SceneSpec, render_scene

    spec = SceneSpec(tiles=dict(_board().tiles), knights=knights, temperature=0.9, layout_seed=1)
    return render_scene(spec, seed)  # a warm lamp: far from the default references' light


def _reader(truth: Any, calibration: Any = None) -> Any:
    """vision's TableReader whose dice finder returns the rendered dice (whole-die boxes, as vision.dice)."""
    from types import SimpleNamespace

    from vision.pipeline import TableReader

    def find(image: Any, region: Any = None, calibration: Any = None, **_kw: Any) -> list[Any]:
        return [SimpleNamespace(box=d.box, value=d.value, confidence=1.0, unsure=False) for d in truth.dice]

    return TableReader(hold_frames=1, calibration=calibration, dice_reader=find)


class SyntheticCamera:
    """What `ProcessFeed.sample_dice` does in the camera process, on one synthetic frame."""

    def __init__(self, knights: Mapping[str, Mapping[Colour, int]]) -> None:
        self.image, truth = _frame(knights, 3)
        self.result = _reader(truth).read(self.image, 0)
        self.asked: list[dict[str, Colour]] = []

    def __call__(self, castles: Mapping[str, Colour]) -> tuple[dict[Colour, DieSample], list[str]]:
        self.asked.append(dict(castles))
        return samples_on_castles(self.image, self.result, castles)


def test_players_dice_are_measured_on_their_castles_saved_and_used(tmp_path: Path) -> None:
    camera = SyntheticCamera({"K1": {R: 3}, "K2": {B: 3}, "K3": {Y: 3}})
    applied: list[dict[str, Any]] = []
    box = CatalogueBox(tmp_path, sampler=camera, on_calibrated=applied.append)
    clock = ManualClock()
    ran: list[Any] = []
    p = BoxSetupPresenter(box, clock, runner=ran.append)
    p.start_calibration()
    assert p.calibrating and "castle" in p.instruction() and p.status == ""  # the instruction, said once
    assert not p.can_save_calibration()  # nothing measured yet: nothing to save
    assert dict(p.calibration_rows())["red"] == "default"
    p.measure()
    assert p.measuring and not camera.asked  # nothing measured on the UI thread
    ran.pop()()  # the worker
    clock.advance()
    assert not p.measuring and camera.asked[0]["K1"] is R
    rows = dict(p.calibration_rows())
    assert rows["red"] == rows["blue"] == rows["yellow"] == "measured" and rows["green"] == "default"
    assert "Red" in p.status and not p.calibration.problems and p.can_save_calibration()
    assert p.save_calibration() and "saved" in p.status
    saved = json.loads((tmp_path / "calibration.json").read_text())
    assert set(saved["measured"]) == {"red", "blue", "yellow"} and applied and applied[0]["references"]
    # The camera reader with these colours reads a new frame in the same light, dice elsewhere on the map.
    cal = load_calibration(tmp_path / "calibration.json")
    image, truth = _frame({"K1": {Y: 2}, "K2": {R: 2}}, 9)
    result = _reader(truth, cal).read(image, 0)
    assert result.knights is not None
    found = {(d.location, d.colour) for d in result.knights.dice if d.location in ("K1", "K2")}
    assert ("K1", Y) in found and ("K2", R) in found
    assert ("K1", R) not in found and ("K2", Y) not in found
    # A fresh start of the box setup shows the saved colours.
    again = BoxSetupPresenter(CatalogueBox(tmp_path))
    again.start_calibration()
    assert dict(again.calibration_rows())["blue"] == "saved"


def test_a_die_of_the_wrong_colour_on_a_castle_is_caught(tmp_path: Path) -> None:
    camera = SyntheticCamera({"K1": {B: 3}, "K2": {B: 3}})  # someone put a blue die on the red castle
    box = CatalogueBox(tmp_path, sampler=camera)
    p = BoxSetupPresenter(box)
    p.start_calibration()
    p.measure()
    assert p.calibration.problems and "red" in p.status
    assert not p.save_calibration() and not (tmp_path / "calibration.json").exists()


def test_without_a_camera_the_box_setup_says_so(tmp_path: Path) -> None:
    p = BoxSetupPresenter(CatalogueBox(tmp_path))
    p.start_calibration()
    p.measure()
    assert "camera" in p.status and not p.calibration.measured
