"""Box setup's dice-colour calibration on synthetic camera frames (vision.synth): players put a die on their
castle under a warm lamp, one tap measures them, another saves; the camera's reader then tells the colours
apart in that light. A die of the wrong colour on a castle is caught: it and the colour it looks like are not
saved, the others are.

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
from companion.calibrate import ColourState, DieSample, load_calibration, samples_on_castles
from companion.i18n import Translator
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


def _frame(
    knights: Mapping[str, Mapping[Colour, int]], seed: int, tilt: float | None = None
) -> tuple[Any, Any]:
    from vision.synth import SceneSpec, render_scene

    spec = SceneSpec(
        tiles=dict(_board().tiles), knights=knights, temperature=0.9, layout_seed=1, tilt_deg=tilt
    )
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

    def __init__(self, knights: Mapping[str, Mapping[Colour, int]], tilt: float | None = None) -> None:
        self.image, truth = _frame(knights, 3, tilt)
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
    assert dict(p.calibration_rows())["red"] == "not-measured"
    p.measure()
    assert p.measuring and not camera.asked  # nothing measured on the UI thread
    ran.pop()()  # the worker
    clock.advance()
    assert not p.measuring and camera.asked[0]["K1"] is R
    rows = dict(p.calibration_rows())
    assert rows["red"] == rows["blue"] == rows["yellow"] == "measured" and rows["green"] == "not-on-map"
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


def test_the_colours_measured_well_are_saved_beside_a_refused_one(tmp_path: Path) -> None:
    camera = SyntheticCamera({"K1": {B: 3}, "K2": {B: 3}, "K3": {Y: 3}})  # a blue die on the red castle
    applied: list[dict[str, Any]] = []
    p = BoxSetupPresenter(CatalogueBox(tmp_path, sampler=camera, on_calibrated=applied.append))
    p.start_calibration()
    p.measure()
    rows = dict(p.calibration_rows())
    assert rows["red"] == rows["blue"] == "refused" and rows["yellow"] == "measured"
    assert p.can_save_calibration() and p.save_calibration()
    assert "not these" in p.status and "red" in p.status.lower()
    saved = json.loads((tmp_path / "calibration.json").read_text())
    assert saved["measured"] == ["yellow"] and list(applied[-1]["models"]) == ["yellow"]
    rows = dict(p.calibration_rows())
    assert rows["red"] == rows["blue"] == "refused" and rows["yellow"] == "saved"  # still said why
    assert not p.can_save_calibration()  # nothing more to save until measured again
    # measured again, right: red and blue join the saved yellow
    camera.__init__({"K1": {R: 3}, "K2": {B: 3}, "K3": {Y: 3}})
    p.measure()
    assert p.save_calibration() and p.status == "Dice colours saved: the camera uses them now."
    saved = json.loads((tmp_path / "calibration.json").read_text())
    assert set(saved["measured"]) == {"red", "blue", "yellow"}


def test_a_calibration_that_cannot_be_written_is_said_and_nothing_is_lost(tmp_path: Path) -> None:
    blocked = tmp_path / "data"
    blocked.write_text("a file where the data folder should be\n", encoding="utf-8")
    p = BoxSetupPresenter(CatalogueBox(blocked, sampler=SyntheticCamera({"K1": {R: 3}, "K2": {B: 3}})))
    p.start_calibration()
    p.measure()
    assert not p.save_calibration() and "data" in p.status
    assert set(p.calibration.measured) == {"red", "blue"} and p.can_save_calibration()  # try again later


def test_a_die_read_again_over_its_side_face_is_not_measured() -> None:
    import dataclasses

    camera = SyntheticCamera({"K1": {R: 1}, "K2": {B: 1}})
    knights = camera.result.knights
    die = next(d for d in knights.dice if d.location == "K1")
    height = die.box[3] - die.box[1]
    side = dataclasses.replace(
        die, box=(die.box[0], die.box[1] + height, die.box[2], die.box[3] + height), value=3, unsure=True
    )
    more = dataclasses.replace(knights, dice=(*knights.dice, side))
    twice = dataclasses.replace(camera.result, knights=more)
    once, _ = samples_on_castles(camera.image, camera.result, {"K1": R})
    found, _ = samples_on_castles(camera.image, twice, {"K1": R})
    assert found[R].state is ColourState.MEASURED and found[R].measurement is not None
    assert len(found[R].measurement["faces"]) == 1 and found[R].measurement == once[R].measurement


def test_a_die_read_twice_and_unsure_both_times_is_measured_by_its_top_face() -> None:
    """Both boxes unsure (a kind the networks never met): the one lower along the die's upright, over its side
    face in the shade, is left out, and what is measured is the top face alone."""
    import dataclasses

    camera = SyntheticCamera({"K1": {R: 1}, "K2": {B: 1}}, tilt=30.0)
    knights = camera.result.knights
    die = dataclasses.replace(next(d for d in knights.dice if d.location == "K1"), unsure=True)
    low = round(0.7 * (die.box[3] - die.box[1]))
    side = dataclasses.replace(die, box=(die.box[0], die.box[1] + low, die.box[2], die.box[3] + low), value=3)
    rest = tuple(d for d in knights.dice if d.location != "K1")
    alone = dataclasses.replace(camera.result, knights=dataclasses.replace(knights, dice=(*rest, die)))
    twice = dataclasses.replace(camera.result, knights=dataclasses.replace(knights, dice=(*rest, side, die)))
    once, _ = samples_on_castles(camera.image, alone, {"K1": R})
    found, _ = samples_on_castles(camera.image, twice, {"K1": R})
    assert found[R].measurement is not None and len(found[R].measurement["faces"]) == 1
    assert found[R].measurement == once[R].measurement


def test_a_castle_die_the_reader_did_not_report_is_measured_as_the_die_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Box setup asks for one die on each castle: where the reader reported none (a kind of die its networks
    never met can score under its floor on its own colour's print), the castle's likeliest die is measured,
    as a die the reader is unsure of; a bare castle still has no die."""
    import dataclasses

    import vision.knights

    camera = SyntheticCamera({"K1": {R: 1}, "K2": {B: 1}})  # nobody put a die on K3
    knights = camera.result.knights
    unreported = dataclasses.replace(knights, dice=tuple(d for d in knights.dice if d.location != "K1"))
    result = dataclasses.replace(camera.result, knights=unreported)
    castles = {"K1": R, "K2": B, "K3": Y}
    asked: list[str] = []
    expected = vision.knights.expected_die

    def spy(image: Any, polygons: Any, location: str, image_to_table: Any) -> list[Any]:
        asked.append(location)
        return expected(image, polygons, location, image_to_table)

    monkeypatch.setattr(vision.knights, "expected_die", spy)
    found, notes = samples_on_castles(camera.image, result, castles)
    assert sorted(asked) == ["K1", "K3"]  # only where the reader reported no die
    assert found[R].state is ColourState.MEASURED and found[B].state is ColourState.MEASURED
    assert found[Y].state is ColourState.NO_DIE and notes == ["no die on the yellow castle (K3)"]
    die = expected(camera.image, result.map.polygons, "K1", result.map.image_to_table)[0]
    assert die.unsure and die.where is not None
    truth = next(d for d in knights.dice if d.location == "K1")
    assert die.box[0] < (truth.box[0] + truth.box[2]) / 2 < die.box[2]  # the die that stands there
    asked.clear()
    under_a_hand = dataclasses.replace(result, occluded=frozenset({"K1"}))
    assert samples_on_castles(camera.image, under_a_hand, castles)[0][R].state is ColourState.NO_DIE
    assert asked == ["K3"]  # a knuckle over a castle is no die
    monkeypatch.setattr(vision.knights, "expected_die", lambda *_a: [])
    assert samples_on_castles(camera.image, result, castles)[0][R].state is ColourState.NO_DIE


def test_without_a_camera_the_box_setup_says_so(tmp_path: Path) -> None:
    p = BoxSetupPresenter(CatalogueBox(tmp_path))
    p.start_calibration()
    p.measure()
    assert "camera" in p.status and not p.calibration.measured


# -- real dice on a synthetic table ----------------------------------------------------------------------

REAL = Path(__file__).resolve().parents[1] / "data" / "real-dice"
LIBRARY = Path(__file__).resolve().parents[2] / "bench" / "realtable" / "data" / "faces.json"


def _real_faces(photo: str, kind: str) -> list[tuple[Any, tuple[int, int, int, int], Any]]:
    """Every die of `kind` in a real photograph: (image, box, the photo's white)."""
    import cv2

    from vision.calibration import sticker_white

    image = cv2.imread(str(REAL / photo), cv2.IMREAD_COLOR)
    label = json.loads((REAL / photo).with_suffix(".json").read_text())
    library = json.loads(LIBRARY.read_text())["dice"]
    mine = {d["index"] for d in library if d["photo"] == photo and d["kind"] == kind}
    white = sticker_white(image)
    return [(image, tuple(d["box"]), white) for i, d in enumerate(label["dice"]) if i in mine]


def _with_real_dice(image: Any, truth: Any, white: Any, faces: Mapping[Colour, list[Any]]) -> Any:
    """The frame with every rendered die's top face replaced by a real die's (the middle of its photo's box,
    its colours carried from its photo's light to the frame's by the two whites), dice of a colour in turn."""
    import cv2
    import numpy as np

    out = image.copy()
    used: dict[Colour, int] = {}
    for die in truth.dice:
        src, (x0, y0, x1, y1), src_white = faces[die.colour][used.get(die.colour, 0) % len(faces[die.colour])]
        used[die.colour] = used.get(die.colour, 0) + 1
        m = 0.1 * (x1 - x0)
        corners = np.float32([[x0 + m, y0 + m], [x1 - m, y0 + m], [x1 - m, y1 - m], [x0 + m, y1 - m]])
        gains = np.asarray(white, np.float32) / np.asarray(src_white, np.float32)
        lit = np.clip(src.astype(np.float32) * gains, 0, 255).astype(np.uint8)
        h, w = out.shape[:2]
        warp = cv2.getPerspectiveTransform(corners, np.float32(die.top_face))
        face = cv2.warpPerspective(lit, warp, (w, h), flags=cv2.INTER_AREA)
        mask = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, np.round(die.top_face).astype(np.int32), 255)
        out[mask > 0] = face[mask > 0]
    return out


REAL_KINDS = {R: "red-white", B: "blue-swirl-red", Y: "gold-black"}


@pytest.fixture(scope="module")
def real_tables(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, list[tuple[Any, Any, Any]]]:
    """Swirled blue dice with red pips, translucent red dice and gold marbled dice (real photographs' faces
    on a synthetic table in a warm lamp's light) measured on their castles through the box setup, checked
    and saved; and two tables of those kinds' dice from another photo on the territories: (the saved
    calibration, [(frame, its truth, its sticker white)])."""
    from vision.calibration import sticker_white
    from vision.synth import SceneSpec, render_scene

    setup = {c: _real_faces("byler_IMG_20191208_111228.jpg", k) for c, k in REAL_KINDS.items()}
    play = {c: _real_faces("byler_IMG_20191208_112332.jpg", k) for c, k in REAL_KINDS.items()}

    class RealCamera(SyntheticCamera):
        def __init__(self) -> None:
            image, truth = _frame({"K1": {R: 13}, "K2": {B: 13}, "K3": {Y: 13}}, 3)
            white = sticker_white(image, [t.corners for t in truth.tags if not t.covered])
            self.image = _with_real_dice(image, truth, white, setup)
            self.result = _reader(truth).read(self.image, 0)
            self.asked = []

    folder = tmp_path_factory.mktemp("box")
    p = BoxSetupPresenter(CatalogueBox(folder, sampler=RealCamera()))
    p.start_calibration()
    p.measure()
    reports = {r.colour: r for r in p.calibration_reports()}
    assert {c: reports[c].state.value for c in REAL_KINDS} == dict.fromkeys(REAL_KINDS, "measured"), p.status
    assert all(reports[c].dice == 3 and reports[c].picture for c in REAL_KINDS)
    assert reports[Colour.GREEN].state.value == "not-on-map"  # a three-player map: no green castle
    assert p.save_calibration()
    cal = load_calibration(folder / "calibration.json")
    assert set(cal.colours) == set(REAL_KINDS)  # nobody's colours but the measured ones

    territories = sorted(t for t in _board().tiles.values() if t.startswith("T"))[:6]
    shown = [{R: 4}, {B: 5}, {Y: 3}, {B: 2}, {R: 6}, {Y: 5}]
    knights = dict(zip(territories, shown, strict=True))
    tables = []
    for seed in (21, 22):
        spec = SceneSpec(tiles=dict(_board().tiles), knights=knights, temperature=0.9, layout_seed=seed)
        image, truth = render_scene(spec, seed)
        white = sticker_white(image, [t.corners for t in truth.tags if not t.covered])
        tables.append((_with_real_dice(image, truth, white, play), truth, white))
    return cal, tables


def test_real_dice_measured_on_their_castles_are_named_on_another_table(real_tables: Any) -> None:
    """The box setup's calibration names the other tables' dice from their faces (`name_faces`, as the
    table reader is to): every die its player's or unsure, nearly all named."""
    cal, tables = real_tables
    dice, named, wrong = 0, 0, []
    for image, truth, white in tables:
        for die, m in zip(truth.dice, cal.name_faces(image, [d.box for d in truth.dice], white), strict=True):
            dice += 1
            named += m.accepted
            if m.accepted and m.colour is not die.colour:
                wrong.append((m.colour, die.colour))
    assert dice == 12 and not wrong
    assert named >= 10, named


def test_the_table_reader_names_real_dice_by_their_calibrated_kind(real_tables: Any) -> None:
    """The same through the table reader (`vision.pipeline.TableReader`, `vision.knights`)."""
    cal, tables = real_tables
    named, wrong = 0, []
    for image, truth, _white in tables:
        result = _reader(truth, cal).read(image, 0)
        assert result.knights is not None
        colour_of = {tuple(d.box): d.colour for d in truth.dice}
        for die in result.knights.dice:
            if die.colour is not None:
                named += 1
                if die.colour is not colour_of[tuple(die.box)]:
                    wrong.append((die.location, die.colour, colour_of[tuple(die.box)]))
    assert not wrong
    assert named >= 10, named


def test_every_castle_on_the_map_is_measured_or_said_why_not(tmp_path: Path) -> None:
    """A castle with no die, a castle out of the camera's view, a colour nobody measured: each said, none
    silently left to a default."""
    from types import SimpleNamespace

    camera = SyntheticCamera({"K1": {R: 3}, "K2": {B: 3}})  # nobody put a die on K3 (yellow)
    box = CatalogueBox(tmp_path, sampler=camera)
    p = BoxSetupPresenter(box)
    p.start_calibration()
    p.measure()
    rows = dict(p.calibration_rows())
    assert rows["red"] == rows["blue"] == "measured" and rows["yellow"] == "no-die", rows
    # a three-player map: the other castles are not on the map the camera reads (not laid out, or too far)
    assert rows["green"] == rows["white"] == rows["black"] == "not-on-map"
    said = {r.colour: r.sentences for r in p.calibration_reports()}
    assert said[Y] == ("no die on the yellow castle",)
    assert said[Colour.GREEN] == ("the green castle is not on the map the camera reads",)
    # K2 wholly out of view: said so
    knights = camera.result.knights
    partial = SimpleNamespace(
        knights=SimpleNamespace(dice=knights.dice, seen=knights.seen - {"K2"}),
        map=camera.result.map,
        white=camera.result.white,
    )
    found, notes = samples_on_castles(camera.image, partial, {"K1": R, "K2": B, "K3": Y})
    assert found[B].state.value == "not-in-view" and found[R].state.value == "measured"
    assert notes == ["the blue castle (K2) is not in the camera's view", "no die on the yellow castle (K3)"]


def test_a_castle_the_camera_cannot_find_is_said_and_loses_nothing(tmp_path: Path) -> None:
    """A castle not on the map the camera reads (a steep stand's far castle, whose stickers no frame decodes)
    shows as not found, not as a colour silently left unmeasured; a later tap without it keeps what an
    earlier tap measured, and a colour saved before stays saved."""
    from types import SimpleNamespace

    camera = SyntheticCamera({"K1": {R: 3}, "K2": {B: 3}, "K3": {Y: 3}})
    view = camera.result.map
    knights = camera.result.knights
    far = SimpleNamespace(  # K3's sticker not read: the tile is not on the map, its dice on no location
        knights=SimpleNamespace(
            dice=[d for d in knights.dice if d.location != "K3"], seen=knights.seen - {"K3"}
        ),
        map=SimpleNamespace(
            tiles={h: t for h, t in view.tiles.items() if t != "K3"}, tag_quads=view.tag_quads
        ),
        white=camera.result.white,
    )
    found, notes = samples_on_castles(camera.image, far, {"K1": R, "K2": B, "K3": Y})
    assert found[Y].state is ColourState.NOT_ON_MAP and found[R].state is ColourState.MEASURED
    assert notes == []  # no sentence: players who lay out only their own castles would hear it every tap
    nothing = SimpleNamespace(knights=SimpleNamespace(dice=[], seen=frozenset()), map=None, white=None)
    assert samples_on_castles(camera.image, nothing, {"K1": R})[1] == [
        "no castle in view: put the castles (with their stickers) where the camera sees them"
    ]

    box = CatalogueBox(tmp_path, sampler=camera)
    box.calibrator.add(samples_on_castles(camera.image, camera.result, {"K3": Y})[0])
    box.calibrator.add(found)  # the next tap: yellow's castle put away
    rows = {r.colour: r.state for r in box.calibrator.reports()}
    assert rows[Y] is ColourState.MEASURED and rows[R] is ColourState.MEASURED
    box.calibrator.save()
    box.calibrator.add(dict.fromkeys((Y, Colour.GREEN), DieSample(ColourState.NOT_ON_MAP)))
    rows = {r.colour: r.state for r in box.calibrator.reports()}
    assert rows[Y] is ColourState.SAVED and rows[Colour.GREEN] is ColourState.NOT_ON_MAP
    assert BoxSetupPresenter.state_word("not-on-map") == "castle not found"


def test_the_measurement_picture_reaches_the_presenter_and_a_refusal_says_why(tmp_path: Path) -> None:
    camera = SyntheticCamera({"K1": {B: 3}, "K2": {B: 3}})  # the blue die on the red castle too
    p = BoxSetupPresenter(CatalogueBox(tmp_path, sampler=camera))
    p.start_calibration()
    p.measure()
    reports = {r.colour: r for r in p.calibration_reports()}
    assert reports[R].state.value == reports[B].state.value == "refused"
    assert reports[R].doubts == ("like-other",)
    assert "red and blue dice look too alike" in reports[R].sentences[0]
    import cv2
    import numpy as np

    picture = cv2.imdecode(np.frombuffer(reports[R].picture or b"", np.uint8), cv2.IMREAD_COLOR)
    assert picture is not None and picture.shape[0] > 100


@pytest.mark.parametrize("lang", ["nl", "sv"])
def test_every_colour_state_is_said_in_the_screen_s_language(lang: str) -> None:
    """The dice-colour step's word for each colour's state, translated (it showed 'not measured' in Dutch)."""
    tr = Translator(lang)
    for state in ColourState:
        word = BoxSetupPresenter.state_word(state.value)
        assert tr(word) != word, (lang, state)


def test_a_new_game_says_whose_dice_the_camera_never_measured(tmp_path: Path) -> None:
    from companion.presenters.newgame import NewGamePresenter

    camera = SyntheticCamera({"K1": {R: 3}, "K2": {B: 3}})
    box = CatalogueBox(tmp_path, sampler=camera)
    # red, blue and yellow play
    game = NewGamePresenter(random.Random(1), Translator("en"), unmeasured=box.unmeasured)
    game.recheck_camera()
    assert "Red, Blue, Yellow." in game.camera_note and "Box setup" in game.camera_note
    assert "on their own castle" in game.camera_note  # until then (vision.owncastle)
    p = BoxSetupPresenter(box)
    p.start_calibration()
    p.measure()
    assert p.save_calibration()
    game.recheck_camera()  # the app does so each time the screen is shown
    assert "dice: Yellow." in game.camera_note
    game.cycle_colour(Y)  # yellow's player takes the next free castle: still never measured
    assert "Yellow" not in game.camera_note and game.players[2].colour.value in game.camera_note.lower()
    game.remove_player(game.players[2].colour)
    assert game.camera_note == ""  # red and blue were measured: the camera names their dice
    dutch = NewGamePresenter(random.Random(1), Translator("nl"), unmeasured=box.unmeasured)
    dutch.recheck_camera()
    assert "camera" in dutch.camera_note and "Geel" in dutch.camera_note and "Yellow" not in dutch.camera_note
    assert "eigen kasteel" in dutch.camera_note
    (tmp_path / "calibration.json").write_text("{not json", encoding="utf-8")  # a damaged file names nobody
    game.recheck_camera()
    assert "Red, Blue." in game.camera_note
    no_camera = CatalogueBox(tmp_path)
    nothing = NewGamePresenter(random.Random(1), Translator("en"), unmeasured=no_camera.unmeasured)
    nothing.recheck_camera()
    assert nothing.camera_note == ""  # no camera: nothing would ask about the dice


def test_a_new_game_watched_by_a_camera_asks_for_the_map_before_the_knights() -> None:
    """The camera learns each location's bare look from frames before the knights stand on the map (Setting
    Up, p. 3: the map is step 2, the knights step 6): the new game screen says so, in the screen's language,
    and says nothing when no camera watches."""
    from companion.presenters.newgame import NewGamePresenter

    watched = NewGamePresenter(random.Random(1), Translator("en"), watched=True)
    assert "map" in watched.camera_tip and "before any knight" in watched.camera_tip
    for lang, word in (("nl", "ridder"), ("sv", "riddare")):
        tip = NewGamePresenter(random.Random(1), Translator(lang), watched=True).camera_tip
        assert word in tip and tip != watched.camera_tip, lang
    assert NewGamePresenter(random.Random(1), Translator("en")).camera_tip == ""
