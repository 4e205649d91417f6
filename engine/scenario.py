"""Scenarios: a starting point and a list of actions for the referee (docs/scenarios.md).

A scenario document is JSON:

    {"format": "seneschal-scenario", "version": 1, "title": "...", "description": "...",
     "start": {"setup": {...}} | {"position": {...}} | {"state": <a seneschal-state document>},
     "actions": [{"type": "advance", "player": "red", "target": "T25", "knights": 6, "expect": {...}}, ...],
     "expect": {"scores": {"red": 3}, "winner": null}}

`setup` is a fresh game (players, variant, knowledge, seed, optional map, first player, artefacts); `position`
is an explicit mid-game position built on top of such a setup (knights per location, cards where known,
artefact states, whose turn and which step, and optionally a battle in progress, started by the advance that
began it); `state` is a complete engine state as `engine.save` writes it. Each action may carry an `expect`
(accepted or refused, a reason code, a battle's final scores) and the document a final `expect`, so a scenario
checks itself. Every problem with a document is reported at once in one `SaveError`.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from engine import actions as A
from engine.actions import Action
from engine.catalogue import ArtefactType, Catalogue, load_default_catalogue
from engine.colours import Colour
from engine.errors import ActionFormatError, CatalogueError, EngineError, MapError, ReadingError, SaveError
from engine.events import BattleResult, Event
from engine.hexgrid import Hex
from engine.maps import Board, parse_tiles
from engine.reading import TableReading
from engine.reconcile import Reconciliation, reconcile
from engine.rulebook import Rule
from engine.rules import apply, check
from engine.save import state_from_json, state_to_json
from engine.setup import GameConfig, PlayerConfig, new_game
from engine.state import ArtefactHolding, GameState, Knowledge, PlayerState, TurnStep
from engine.variants import Variant
from engine.verdict import ACCEPTED, Reason, Verdict, refuse

FORMAT = "seneschal-scenario"
VERSION = 1
_STEPS = {"prepare": TurnStep.PREPARE, "advance": TurnStep.ADVANCE, "follow_up": TurnStep.FOLLOW_UP}


def _is_int(x: object) -> TypeGuard[int]:
    return isinstance(x, int) and not isinstance(x, bool)


@dataclass(frozen=True, slots=True)
class Expectation:
    """What a scenario says should happen to one action or camera reading (None: not checked)."""

    accepted: bool | None = None
    reason: Reason | None = None
    battle: tuple[int, int, int] | None = None  # attacker score, defender score, margin
    status: str | None = None  # a camera reading: "match", "actions" or "discrepancy"

    def failures(self, verdict: Verdict | None, events: Sequence[Event],
                 reconciliation: Reconciliation | None = None) -> list[str]:
        out: list[str] = []
        if reconciliation is not None and self.status is not None and reconciliation.status != self.status:
            out.append(f"expected the reading to be {self.status!r}, got {reconciliation.status!r}: "
                       + "; ".join(reconciliation.sentences()))
        if verdict is None:
            verdict = ACCEPTED
        if self.accepted is not None and verdict.ok != self.accepted:
            out.append(f"expected {'accepted' if self.accepted else 'refused'}, got "
                       f"{'accepted' if verdict.ok else 'refused'}")
        if self.reason is not None and verdict.reason is not self.reason:
            out.append(f"expected reason {self.reason.value!r}, got {verdict.reason.value!r}")
        if self.battle is not None:
            result = battle_result(events)
            got = None if result is None else (result.attacker_score, result.defender_score, result.margin)
            if got != self.battle:
                out.append(f"expected battle result {list(self.battle)}, got {list(got) if got else None}")
        return out


@dataclass(frozen=True, slots=True)
class Step:
    """An action to check, or (when `reading` is set) a camera reading to reconcile; its explanation, if any,
    is applied as if the players confirmed it (R81)."""

    action: Action | None
    expect: Expectation | None = None
    reading: TableReading | None = None


@dataclass(frozen=True, slots=True)
class FinalExpectation:
    scores: Mapping[Colour, int] | None = None
    winner: tuple[Colour, ...] | None = None
    check_winner: bool = False

    def failures(self, state: GameState) -> list[str]:
        out: list[str] = []
        if self.scores is not None:
            for colour, want in self.scores.items():
                got = state.score(colour) if colour in state.players else None
                if got != want:
                    out.append(f"expected {colour.value} to score {want}, got {got}")
        if self.check_winner:
            got_w = tuple(sorted(state.winner, key=lambda c: c.value)) if state.winner else None
            want_w = tuple(sorted(self.winner, key=lambda c: c.value)) if self.winner else None
            if got_w != want_w:
                out.append(f"expected winner {_colours(want_w)}, got {_colours(got_w)}")
        return out


def _colours(cs: Sequence[Colour] | None) -> list[str] | None:
    return None if cs is None else [c.value for c in cs]


@dataclass(frozen=True, slots=True)
class Scenario:
    title: str
    description: str
    start: GameState
    steps: tuple[Step, ...]
    expect: FinalExpectation | None = None


@dataclass(frozen=True, slots=True)
class StepResult:
    index: int
    action: Action | None  # None for a camera reading
    verdict: Verdict  # for a reading: accepted when it matched or was explained
    events: tuple[Event, ...]
    state: GameState  # after the step (unchanged when refused)
    failures: tuple[str, ...] = ()
    reconciliation: Reconciliation | None = None


def battle_result(events: Sequence[Event]) -> BattleResult | None:
    for e in reversed(events):
        if isinstance(e, BattleResult):
            return e
    return None


# --- running ------------------------------------------------------------------------------------------------

def run(scenario: Scenario) -> Iterator[StepResult]:
    """Check each action against the state so far; accepted ones are applied, refused ones change nothing."""
    state = scenario.start
    recent: tuple[Event, ...] = ()  # what the game last did, which the table may not show yet (R85a)
    for i, step in enumerate(scenario.steps, 1):
        events: tuple[Event, ...] = ()
        if step.reading is not None:
            rec = reconcile(state, step.reading, recent)
            collected: list[Event] = []
            for action in rec.actions:
                state, produced = apply(state, action)
                collected.extend(produced)
            events = tuple(collected)
            disagree = "The camera and the game disagree: " + "; ".join(rec.sentences())
            verdict = refuse(Reason.NOT_APPLICABLE, disagree, Rule.R83) if rec.discrepancies else ACCEPTED
            failures = tuple(step.expect.failures(None, events, rec)) if step.expect is not None else ()
            if rec.actions or rec.matches:
                recent = events
            yield StepResult(i, None, verdict, events, state, failures, rec)
            continue
        assert step.action is not None
        verdict = check(state, step.action)
        if verdict.ok:
            state, events = apply(state, step.action)
            recent = events
        failures = tuple(step.expect.failures(verdict, events)) if step.expect is not None else ()
        yield StepResult(i, step.action, verdict, events, state, failures)


def step_line(result: StepResult) -> dict[str, Any]:
    """One JSON line of the referee's output for an action (or a camera reading)."""
    v = result.verdict
    line: dict[str, Any] = {"index": result.index}
    rec = result.reconciliation
    if rec is not None:
        line.update({"reading": True, "status": rec.status, "sentences": rec.sentences(),
                     "actions": [a.to_json() for a in rec.actions],
                     "discrepancies": [d.to_json() for d in rec.discrepancies],
                     "unsure": list(rec.unsure)})
    else:
        assert result.action is not None
        line.update({"action": result.action.to_json(), "accepted": v.ok, "reason": v.reason.value,
                     "sentence": v.sentence, "citation": v.citation})
    line["events"] = [e.to_json() for e in result.events]
    br = battle_result(result.events)
    if br is not None:
        line["battle"] = {"winner": br.winner.value, "loser": br.loser.value,
                          "attacker_score": br.attacker_score, "defender_score": br.defender_score,
                          "margin": br.margin}
    if result.failures:
        line["expectation_failed"] = list(result.failures)
    return line


def final_line(state: GameState, failures: Sequence[str] = ()) -> dict[str, Any]:
    line: dict[str, Any] = {
        "final": True,
        "scores": {c.value: state.score(c) for c in state.order},
        "winner": _colours(state.winner),
        "turn": state.turn,
        "current": state.current.value,
        "step": state.step.value,
    }
    if failures:
        line["expectation_failed"] = list(failures)
    return line


# --- loading ------------------------------------------------------------------------------------------------

def load_scenario(source: str | Path | Mapping[str, Any]) -> Scenario:
    """Read and validate a scenario (a path or a parsed document); raises SaveError listing every problem."""
    if isinstance(source, str | Path):
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise SaveError(f"cannot read scenario {str(path)!r}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise SaveError(f"scenario {str(path)!r} is not UTF-8 text: {exc}") from None
        try:
            obj: Any = json.loads(text)
        except json.JSONDecodeError as exc:
            hint = " (the file looks truncated)" if looks_truncated(text) else ""
            raise SaveError(f"scenario {str(path)!r} is not valid JSON: {exc.msg} at line {exc.lineno} "
                            f"column {exc.colno}{hint}") from None
    else:
        obj = source
    return parse_scenario(obj)


def looks_truncated(text: str) -> bool:
    """Whether JSON text stops inside a string or with brackets still open (a cut-off file)."""
    depth = 0
    in_string = False
    escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
    return in_string or depth > 0


def parse_scenario(obj: Any) -> Scenario:
    if not isinstance(obj, Mapping):
        raise SaveError(f"a scenario is a JSON object, got {type(obj).__name__}")
    problems: list[str] = []
    if obj.get("format") != FORMAT:
        problems.append(f"'format' must be {FORMAT!r}, got {obj.get('format')!r}")
    version = obj.get("version")
    if not _is_int(version) or version < 1:
        problems.append(f"'version' must be a positive integer, got {version!r}")
    elif version > VERSION:
        problems.append(f"scenario version {version} is newer than this program understands ({VERSION})")
    for key in sorted(set(obj) - {"format", "version", "title", "description", "start", "actions", "expect"}):
        problems.append(f"unknown top-level key {key!r}")
    title = obj.get("title", "")
    description = obj.get("description", "")
    if not isinstance(title, str) or not isinstance(description, str):
        problems.append("'title' and 'description' must be strings")
        title, description = str(title), str(description)
    steps = _parse_steps(obj.get("actions"), problems)
    final = _parse_final(obj.get("expect"), problems)
    if problems:  # report document-level problems before trying to build a game from it
        raise SaveError("scenario is malformed:\n  - " + "\n  - ".join(problems))
    start = _parse_start(obj.get("start"))
    return Scenario(title, description, start, tuple(steps), final)


def _parse_steps(raw: Any, problems: list[str]) -> list[Step]:
    steps: list[Step] = []
    if not isinstance(raw, list):
        problems.append(f"'actions' must be a list of actions, got {type(raw).__name__}")
        return steps
    for i, item in enumerate(raw, 1):
        if not isinstance(item, dict):
            problems.append(f"action {i}: must be an object with a 'type', got {item!r}")
            continue
        if "reading" in item:
            for key in sorted(set(item) - {"reading", "expect"}):
                problems.append(f"action {i}: a camera reading step takes 'reading' and 'expect', not "
                                f"{key!r}")
            try:
                reading = TableReading.from_json(item["reading"])
            except ReadingError as exc:
                problems.append(f"action {i}: {exc}")
                continue
            expect = _parse_expectation(item["expect"], f"action {i}", problems) if "expect" in item else None
            steps.append(Step(None, expect, reading))
            continue
        body = {k: v for k, v in item.items() if k != "expect"}
        try:
            action = Action.from_json(body)
        except ActionFormatError as exc:
            problems.append(f"action {i}: {exc}")
            continue
        expect = None
        if "expect" in item:
            expect = _parse_expectation(item["expect"], f"action {i}", problems)
        steps.append(Step(action, expect))
    return steps


def _parse_expectation(raw: Any, where: str, problems: list[str]) -> Expectation | None:
    if not isinstance(raw, dict):
        problems.append(f"{where}: 'expect' must be an object, got {raw!r}")
        return None
    for key in sorted(set(raw) - {"accepted", "reason", "battle", "status"}):
        problems.append(f"{where}: unknown expectation {key!r}")
    status = raw.get("status")
    if status is not None and status not in ("match", "actions", "discrepancy"):
        problems.append(f"{where}: 'status' must be 'match', 'actions' or 'discrepancy', got {status!r}")
        status = None
    accepted = raw.get("accepted")
    if accepted is not None and not isinstance(accepted, bool):
        problems.append(f"{where}: 'accepted' must be true or false, got {accepted!r}")
        accepted = None
    reason = None
    if raw.get("reason") is not None:
        try:
            reason = Reason(raw["reason"])
        except ValueError:
            problems.append(f"{where}: unknown reason code {raw['reason']!r}")
    battle = None
    if raw.get("battle") is not None:
        b = raw["battle"]
        keys = ("attacker_score", "defender_score", "margin")
        if isinstance(b, dict) and all(_is_int(b.get(k)) for k in keys):
            battle = (b["attacker_score"], b["defender_score"], b["margin"])
        else:
            problems.append(f"{where}: 'battle' must give attacker_score, defender_score and margin, got "
                            f"{b!r}")
    return Expectation(accepted, reason, battle, status)


def _parse_final(raw: Any, problems: list[str]) -> FinalExpectation | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        problems.append(f"'expect' must be an object, got {raw!r}")
        return None
    for key in sorted(set(raw) - {"scores", "winner"}):
        problems.append(f"final expectation: unknown key {key!r}")
    scores: dict[Colour, int] | None = None
    if "scores" in raw:
        scores = {}
        if not isinstance(raw["scores"], dict):
            problems.append(f"final expectation: 'scores' must map colours to points, got {raw['scores']!r}")
        else:
            for name, n in raw["scores"].items():
                colour = _colour(name, "final expectation", problems)
                if colour is not None and _is_int(n):
                    scores[colour] = n
                elif colour is not None:
                    problems.append(f"final expectation: score of {name} must be an integer, got {n!r}")
    winner: tuple[Colour, ...] | None = None
    if raw.get("winner") is not None:
        w = raw["winner"]
        names = [w] if isinstance(w, str) else w
        if not isinstance(names, list):
            problems.append("final expectation: 'winner' must be a colour, a list of colours or null, got "
                            f"{w!r}")
        else:
            found = [_colour(n, "final expectation", problems) for n in names]
            winner = tuple(c for c in found if c is not None)
    return FinalExpectation(scores, winner, "winner" in raw)


def _colour(name: Any, where: str, problems: list[str]) -> Colour | None:
    try:
        return Colour(name)
    except ValueError:
        problems.append(f"{where}: unknown colour {name!r} (one of: {', '.join(c.value for c in Colour)})")
        return None


def _parse_start(raw: Any) -> GameState:
    if not isinstance(raw, dict) or len(raw) != 1 or next(iter(raw)) not in ("setup", "position", "state"):
        raise SaveError("'start' must be one of {\"setup\": ...}, {\"position\": ...} or {\"state\": ...}, "
                        f"got {json.dumps(raw)[:200] if raw is not None else 'nothing'}")
    kind, body = next(iter(raw.items()))
    if kind == "state":
        return state_from_json(body)
    if not isinstance(body, dict):
        raise SaveError(f"start.{kind} must be an object, got {body!r}")
    problems: list[str] = []
    config = _parse_config(body, kind, problems)
    if problems or config is None:
        raise SaveError(f"start.{kind} is malformed:\n  - " + "\n  - ".join(problems))
    try:
        state = new_game(config)
    except (EngineError, ValueError) as exc:
        raise SaveError(f"start.{kind}: cannot set up the game: {exc}") from None
    if kind == "setup":
        return state
    return _build_position(state, body)


_SETUP_KEYS = {"players", "variant", "knowledge", "seed", "map", "first_player", "artefacts", "catalogue",
               "opening_authority"}
_POSITION_KEYS = {"knights", "cards", "turn", "battle"}


def _parse_config(body: Mapping[str, Any], kind: str, problems: list[str]) -> GameConfig | None:
    allowed = _SETUP_KEYS | (_POSITION_KEYS if kind == "position" else set())
    for key in sorted(set(body) - allowed):
        problems.append(f"unknown key {key!r} (allowed: {', '.join(sorted(allowed))})")
    raw_players = body.get("players")
    players: list[PlayerConfig] = []
    if not isinstance(raw_players, list) or not raw_players:
        problems.append(f"'players' must be a list of colours (clockwise), got {raw_players!r}")
    else:
        for p in raw_players:
            if isinstance(p, str):
                colour = _colour(p, "players", problems)
                if colour is not None:
                    players.append(PlayerConfig(colour, colour.value))
            elif isinstance(p, dict) and "colour" in p:
                colour = _colour(p["colour"], "players", problems)
                name = p.get("name", "")
                if colour is not None:
                    players.append(PlayerConfig(colour, str(name) if name else colour.value))
            else:
                problems.append(f"players: each player is a colour or {{\"colour\": ..., \"name\": ...}}, "
                                f"got {p!r}")
    catalogue: Catalogue | None = None
    if body.get("catalogue") is not None:
        try:
            from engine.catalogue import load_box_catalogue

            catalogue = load_box_catalogue(body["catalogue"])
        except CatalogueError as exc:
            problems.extend(f"catalogue: {p}" for p in exc.problems)
    cat = catalogue or load_default_catalogue()
    variant = Variant()
    if body.get("variant") is not None:
        v = body["variant"]
        if not isinstance(v, dict):
            problems.append(f"'variant' must be an object, got {v!r}")
        else:
            for key in sorted(set(v) - {"allegiance", "castle_siege", "cut_throat", "skirmish", "mayhem"}):
                problems.append(f"variant: unknown optional rule {key!r}")
            flags: dict[str, bool] = {}
            for key in ("castle_siege", "cut_throat", "skirmish", "mayhem"):
                val = v.get(key, False)
                if not isinstance(val, bool):
                    problems.append(f"variant: {key} must be true or false, got {val!r}")
                else:
                    flags[key] = val
            teams: list[tuple[Colour, ...]] = []
            raw_teams = v.get("allegiance", [])
            if not isinstance(raw_teams, list) or not all(isinstance(t, list) for t in raw_teams):
                problems.append("variant: allegiance must be a list of teams (lists of colours), got "
                                f"{raw_teams!r}")
            else:
                for team in raw_teams:
                    teams.append(tuple(c for c in (_colour(n, "allegiance", problems) for n in team)
                                       if c is not None))
            variant = Variant(tuple(teams), **flags)
    knowledge = Knowledge.FULL
    if body.get("knowledge") is not None:
        try:
            knowledge = Knowledge(body["knowledge"])
        except ValueError:
            problems.append(f"'knowledge' must be 'full' or 'table', got {body['knowledge']!r}")
    seed = body.get("seed", 0)
    if not _is_int(seed):
        problems.append(f"'seed' must be an integer, got {seed!r}")
        seed = 0
    board = None
    if body.get("map") is not None:
        tiles = parse_tiles(body["map"], problems)
        if tiles:
            try:
                board = Board.from_layout(tiles, cat)
            except MapError as exc:
                problems.extend(f"map: {p}" for p in exc.problems)
    first = None
    if body.get("first_player") is not None:
        first = _colour(body["first_player"], "first_player", problems)
    if kind == "position" and isinstance(body.get("turn"), dict) and body["turn"].get("player") is not None:
        first = _colour(body["turn"]["player"], "turn", problems) or first
    artefacts: dict[Colour, tuple[str, ...]] | None = None
    raw_art = body.get("artefacts")
    if raw_art is not None:
        artefacts = {}
        if not isinstance(raw_art, dict):
            problems.append(f"'artefacts' must map colours to their artefacts, got {raw_art!r}")
        else:
            for name, held in raw_art.items():
                colour = _colour(name, "artefacts", problems)
                ids = list(held) if isinstance(held, list | dict) else None
                if ids is None or not all(isinstance(x, str) for x in ids):
                    problems.append(f"artefacts of {name}: a list of artefact ids (or id -> 'up'/'down'), "
                                    f"got {held!r}")
                    continue
                if colour is not None:
                    artefacts[colour] = _artefact_order(ids, cat)
    authority: tuple[Colour, ...] = ()
    if body.get("opening_authority"):
        raw_auth = body["opening_authority"]
        if isinstance(raw_auth, list):
            authority = tuple(c for c in (_colour(n, "opening_authority", problems) for n in raw_auth) if c)
        else:
            problems.append(f"'opening_authority' must be a list of colours, got {raw_auth!r}")
    if problems:
        return None
    return GameConfig(players=tuple(players), variant=variant, knowledge=knowledge, seed=seed, board=board,
                      catalogue=catalogue, first_player=first, artefacts=artefacts,
                      opening_authority=authority)


def _artefact_order(ids: Sequence[str], cat: Catalogue) -> tuple[str, ...]:
    """Crown, sceptre, orb order (as dealt in set-up step 3); unknown ids are left for setup to report."""
    rank = {ArtefactType.CROWN: 0, ArtefactType.SCEPTRE: 1, ArtefactType.ORB: 2}

    def key(a: str) -> int:
        try:
            return rank[cat.artefact(a).type]
        except KeyError:
            return 3

    return tuple(sorted(ids, key=key))


# --- explicit positions ---------------------------------------------------------------------------

def _build_position(base: GameState, body: Mapping[str, Any]) -> GameState:
    """Lay an explicit position over a fresh game: knights, cards, artefact states, turn, then a battle."""
    problems: list[str] = []
    data = base.data
    cat = data.catalogue
    colours = set(base.order)
    castle: dict[Colour, int] = {c: base.players[c].castle for c in base.order}
    occupants: dict[str, tuple[Colour, int]] = dict(base.occupants)
    raw_knights = body.get("knights")
    if raw_knights is not None:
        if not isinstance(raw_knights, dict):
            problems.append(f"'knights' must map locations to {{colour: count}}, got {raw_knights!r}")
        else:
            occupants = {}
            castle = dict.fromkeys(base.order, 0)
            for loc, counts in raw_knights.items():
                if not isinstance(counts, dict):
                    problems.append(f"knights at {loc}: must map colours to counts, got {counts!r}")
                    continue
                parsed: dict[Colour, int] = {}
                for name, n in counts.items():
                    colour = _colour(name, f"knights at {loc}", problems)
                    if colour is None:
                        continue
                    if colour not in colours:
                        problems.append(f"knights at {loc}: {colour.value} is not playing")
                    elif not _is_int(n) or n < 0:
                        problems.append(f"knights at {loc}: {name} count must be a whole number >= 0, got "
                                        f"{n!r}")
                    elif n:
                        parsed[colour] = n
                owner = data.castle_owner.get(loc)
                if owner is not None:
                    for colour, n in parsed.items():
                        if colour is not owner:
                            problems.append(f"knights at {loc}: only {owner.value} keeps knights in "
                                            f"{cat.castle(loc).name}, not {colour.value}")
                        else:
                            castle[owner] = n
                elif loc in data.territories:
                    if len(parsed) > 1:
                        problems.append(f"knights at {loc}: one player at a time holds a territory outside a "
                                        f"battle, got {sorted(c.value for c in parsed)}")
                    elif parsed:
                        (colour, n), = parsed.items()
                        occupants[loc] = (colour, n)
                else:
                    board = base.config.board
                    on_map = board is not None and loc in board
                    what = "a lake holds no knights" if on_map else "not a territory or castle on this map"
                    problems.append(f"knights at {loc!r}: {what}")
    players = dict(base.players)
    for colour in base.order:
        players[colour] = dataclasses.replace(players[colour], castle=castle[colour])
    _apply_cards(base, body.get("cards"), players, problems)
    turn, current, manoeuvres, in_advance, crown_used = base.turn, base.current, base.manoeuvres, False, False
    raw_turn = body.get("turn")
    if raw_turn is not None:
        if not isinstance(raw_turn, dict):
            problems.append(f"'turn' must be an object, got {raw_turn!r}")
        else:
            for key in sorted(set(raw_turn) - {"player", "number", "step", "crown_used", "manoeuvres"}):
                problems.append(f"turn: unknown key {key!r}")
            if raw_turn.get("player") is not None:
                current = _colour(raw_turn["player"], "turn", problems) or current
                if current not in colours:
                    problems.append(f"turn: {current.value} is not playing")
            number = raw_turn.get("number", turn)
            if not _is_int(number) or number < 1:
                problems.append(f"turn: 'number' must be a whole number >= 1, got {number!r}")
            else:
                turn = number
            step = raw_turn.get("step", "prepare")
            if not isinstance(step, str) or step not in _STEPS:
                problems.append(f"turn: 'step' must be one of {sorted(_STEPS)}, got {step!r}")
            else:
                in_advance = step == "advance"
                wanted = raw_turn.get("manoeuvres", 1)
                manoeuvres = 0 if step == "follow_up" else max(1, wanted if _is_int(wanted) else 1)
            crown = raw_turn.get("crown_used", False)
            if not isinstance(crown, bool):
                problems.append(f"turn: 'crown_used' must be true or false, got {crown!r}")
            else:
                crown_used = crown
    _apply_artefact_states(body.get("artefacts"), players, turn, problems)
    if problems:
        raise SaveError("start.position is malformed:\n  - " + "\n  - ".join(problems))
    state = dataclasses.replace(base, players=players, occupants=occupants, turn=turn, current=current,
                                manoeuvres=manoeuvres, in_advance=in_advance, crown_used=crown_used,
                                battle=None, pending=(), winner=None)
    # Round-trip through the engine's own state format: it validates the position and recomputes supply.
    state = state_from_json(state_to_json(state))
    if body.get("battle") is not None:
        state = _start_battle(state, body["battle"])
    return state


def _card_list(raw: Any, where: str, cat: Catalogue, problems: list[str]) -> list[str] | None:
    if not isinstance(raw, list) or not all(isinstance(c, str) for c in raw):
        problems.append(f"{where} must be a list of deck card ids (C01..C18), got {raw!r}")
        return None
    bad = [c for c in raw if c not in {x.id for x in cat.cards}]
    if bad:
        problems.append(f"{where}: unknown card ids {bad}")
        return None
    return list(raw)


def _apply_cards(base: GameState, raw: Any, players: dict[Colour, PlayerState], problems: list[str]) -> None:
    """FULL games: hand/deck/discard lists (the deck completed from the seed). TABLE: sizes, discards."""
    if raw is None:
        return
    if not isinstance(raw, dict):
        problems.append(f"'cards' must map colours to their cards, got {raw!r}")
        return
    cat = base.data.catalogue
    deck_ids = list(base.data.deck)
    full = base.knowledge is Knowledge.FULL
    for name, spec in raw.items():
        colour = _colour(name, "cards", problems)
        if colour is None:
            continue
        if colour not in players:
            problems.append(f"cards: {colour.value} is not playing")
            continue
        where = f"cards of {colour.value}"
        if not isinstance(spec, dict):
            problems.append(f"{where}: must be an object with hand/deck/discard, got {spec!r}")
            continue
        for key in sorted(set(spec) - {"hand", "deck", "discard", "hand_size", "deck_size"}):
            problems.append(f"{where}: unknown key {key!r}")
        discard = _card_list(spec.get("discard", []), f"{where}: discard", cat, problems) or []
        # Cards discarded in a position count as discarded on an earlier turn (R-ruling in docs/scenarios.md).
        discard_pairs = tuple((c, 0) for c in discard)
        p = players[colour]
        if full:
            hand = _card_list(spec.get("hand", list(p.hand)), f"{where}: hand", cat, problems)
            if hand is None:
                continue
            used = hand + discard
            if "deck" in spec:
                deck = _card_list(spec["deck"], f"{where}: deck", cat, problems)
                if deck is None:
                    continue
            else:
                rest = [c for c in deck_ids if c not in used]
                random.Random(f"{base.config.seed}/{colour.value}/scenario-deck").shuffle(rest)
                deck = rest
            allcards = hand + deck + discard
            dupes = sorted({c for c in allcards if allcards.count(c) > 1})
            if dupes:
                problems.append(f"{where}: cards {dupes} appear more than once across hand, deck and discard")
                continue
            if len(allcards) > len(deck_ids):
                problems.append(f"{where}: {len(allcards)} cards, but a deck has {len(deck_ids)}")
                continue
            players[colour] = dataclasses.replace(p, hand=tuple(hand), hand_size=len(hand), deck=tuple(deck),
                                                  deck_size=len(deck), discard=discard_pairs)
        else:
            if "hand" in spec or "deck" in spec:
                problems.append(f"{where}: a table game does not know hands or decks; give hand_size, "
                                "deck_size and discard")
                continue
            hand_size = spec.get("hand_size", p.hand_size)
            deck_size = spec.get("deck_size", len(deck_ids) - hand_size - len(discard)
                                 if _is_int(hand_size) else 0)
            if not _is_int(hand_size) or not _is_int(deck_size) or hand_size < 0 or deck_size < 0:
                problems.append(f"{where}: hand_size and deck_size must be whole numbers >= 0")
                continue
            if hand_size + deck_size + len(discard) > len(deck_ids):
                problems.append(f"{where}: {hand_size} in hand, {deck_size} in the deck and {len(discard)} "
                                f"discarded is more than the {len(deck_ids)} cards of a deck")
                continue
            players[colour] = dataclasses.replace(p, hand=(), hand_size=hand_size, deck=(),
                                                  deck_size=deck_size, discard=discard_pairs)


def _apply_artefact_states(raw: Any, players: dict[Colour, PlayerState], turn: int,
                           problems: list[str]) -> None:
    """`{"red": {"A01": "up", "A08": "down"}}`: down = destroyed on an earlier turn, down_this_turn = during
    the current one (so not restored at the end of it, page 13)."""
    if not isinstance(raw, dict):
        return
    for name, held in raw.items():
        if not isinstance(held, dict):
            continue
        try:
            colour = Colour(name)
        except ValueError:
            continue  # already reported while reading the config
        if colour not in players:
            continue
        p = players[colour]
        holdings = list(p.artefacts)
        for aid, state in held.items():
            index = next((i for i, h in enumerate(holdings) if h.id == aid), None)
            if index is None:
                continue
            if state == "up":
                holdings[index] = ArtefactHolding(aid)
            elif state == "down":
                holdings[index] = ArtefactHolding(aid, max(0, turn - 1))
            elif state == "down_this_turn":
                holdings[index] = ArtefactHolding(aid, turn)
            else:
                problems.append(f"artefacts of {name}: {aid} must be 'up', 'down' or 'down_this_turn', "
                                f"got {state!r}")
        players[colour] = dataclasses.replace(p, artefacts=tuple(holdings))


def _start_battle(state: GameState, raw: Any) -> GameState:
    """A battle in progress starts from the advance that began it (order of battle step 1)."""
    if not isinstance(raw, dict):
        raise SaveError(f"start.position.battle must be an object, got {raw!r}")
    problems: list[str] = []
    for key in sorted(set(raw) - {"territory", "attacker", "knights"}):
        problems.append(f"battle: unknown key {key!r}")
    attacker = _colour(raw.get("attacker"), "battle", problems)
    territory = raw.get("territory")
    knights = raw.get("knights")
    if not isinstance(territory, str):
        problems.append(f"battle: 'territory' must be a territory id, got {territory!r}")
    if not _is_int(knights) or knights <= 0:
        problems.append("battle: 'knights' (the attacker's knights in the territory) must be >= 1, got "
                        f"{knights!r}")
    if problems or attacker is None or not isinstance(territory, str) or not _is_int(knights):
        raise SaveError("start.position.battle is malformed:\n  - " + "\n  - ".join(problems))
    if attacker is not state.current:
        raise SaveError(f"start.position.battle: the attacker ({attacker.value}) must be the player whose "
                        f"turn it is ({state.current.value})")
    # The advancing knights come from the castle: add them there and let the engine make the advance.
    p = state.players[attacker]
    players = dict(state.players)
    players[attacker] = dataclasses.replace(p, castle=p.castle + knights)
    ready = dataclasses.replace(state, players=players, in_advance=False, manoeuvres=max(1, state.manoeuvres))
    ready = state_from_json(state_to_json(ready))
    action = A.Advance(attacker, territory, knights)
    verdict = check(ready, action)
    if not verdict.ok:
        raise SaveError(f"start.position.battle: the advance that starts it is refused: {verdict.sentence} "
                        f"({verdict.citation})")
    after, _events = apply(ready, action)
    if after.battle is None:
        raise SaveError(f"start.position.battle: {territory} is not held by another player, so advancing "
                        "into it starts no battle")
    return after


def hexes(tiles: Mapping[Hex, str]) -> list[list[Any]]:
    """A map as scenario JSON: [[q, r, id], ...]."""
    return [[h.q, h.r, t] for h, t in sorted(tiles.items())]
