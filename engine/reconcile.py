"""Reconciliation: turn a new stable camera reading into the action(s) that explain it, or discrepancies.

Pure: given the engine's state and a `TableReading`, compare knights per location. When they differ, search
the short sequences of legal actions the difference suggests (the turn ending and the next player's three
knights, a call to arms, a redistribution, an advance into an empty territory with its conquest abilities or
into a rival's territory starting a battle) and keep the shortest after which every location the camera saw
surely matches the game. Every step is checked by `engine.rules.check` and applied by `engine.rules.apply`,
so what comes back is legal in order; the app asks the players to confirm it (R81). A change that only an
illegal move explains is a discrepancy, with the rules' reason, never accepted silently (R83). Locations the
camera was unsure of are not evidence (R80). Cards, crowns and dice are never guessed from the camera: they
are declared in the app (R86).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import actions as A
from engine.catalogue import Ability, TileKind
from engine.colours import Colour
from engine.decisions import VitalityRedistribution
from engine.events import BattleEnded, Event, KnightsGained, KnightsLost, Retreated
from engine.reading import TableReading
from engine.rules import apply, check
from engine.state import GameState
from engine.verdict import Verdict

MAX_STEPS = 4  # e.g. end turn, call to arms, redistribute, advance (R82)
MAX_FRONTIER = 256
MAX_REFUSALS = 5  # refused explanations reported with a discrepancy
_NONE: Mapping[Colour, int] = {}


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """One location where the camera and the game disagree, said in plain words."""

    location: str
    seen: Mapping[Colour, int]
    expected: Mapping[Colour, int]
    sentence: str

    def to_json(self) -> dict[str, Any]:
        return {
            "location": self.location,
            "seen": {c.value: n for c, n in self.seen.items()},
            "expected": {c.value: n for c, n in self.expected.items()},
            "sentence": self.sentence,
        }


@dataclass(frozen=True, slots=True)
class Refusal:
    """An explanation of the change that the rules refuse: the action and the engine's verdict."""

    action: A.Action
    verdict: Verdict
    description: str = ""

    @property
    def sentence(self) -> str:
        what = self.description or describe_action(self.action)
        return f"{what}? The rules refuse it: {self.verdict.sentence} ({self.verdict.citation})"

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action.to_json(),
                "description": self.description or describe_action(self.action),
                "reason": self.verdict.reason.value,
                "sentence": self.verdict.sentence, "citation": self.verdict.citation}


@dataclass(frozen=True, slots=True)
class Reconciliation:
    """Either nothing changed, or `actions` (legal in order) explain the change, or `discrepancies` say what
    does not add up (with `refused` explanations the rules do not allow). Never both."""

    actions: tuple[A.Action, ...] = ()
    discrepancies: tuple[Discrepancy, ...] = ()
    refused: tuple[Refusal, ...] = ()
    unsure: tuple[str, ...] = field(default=())  # locations not used as evidence (R80)
    descriptions: tuple[str, ...] = ()  # one sentence per action, with place names

    def __post_init__(self) -> None:
        if self.actions and self.discrepancies:
            raise ValueError("a reconciliation has either actions or discrepancies, not both")

    @property
    def matches(self) -> bool:
        """The camera agrees with the game: nothing to confirm, nothing to fix."""
        return not self.actions and not self.discrepancies

    @property
    def status(self) -> str:
        if self.discrepancies:
            return "discrepancy"
        return "actions" if self.actions else "match"

    def sentences(self) -> list[str]:
        """What to show the players, one sentence a line."""
        if self.discrepancies:
            return [d.sentence for d in self.discrepancies] + [r.sentence for r in self.refused]
        if self.descriptions:
            return [d + "?" for d in self.descriptions]
        return [describe_action(a) + "?" for a in self.actions]

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "actions": [a.to_json() for a in self.actions],
            "sentences": self.sentences(),
            "discrepancies": [d.to_json() for d in self.discrepancies],
            "refused": [r.to_json() for r in self.refused],
            "unsure": list(self.unsure),
        }


# --- words ----------------------------------------------------------------------------------------

def _place(state: GameState, loc: str) -> str:
    cat = state.data.catalogue
    if loc in cat:
        name = cat.get(loc).name
        return f"in {name} ({loc})" if loc in state.data.castle_owner else f"on {name} ({loc})"
    return f"on {loc}"


def _counts(counts: Mapping[Colour, int]) -> str:
    items = [(c, n) for c, n in sorted(counts.items(), key=lambda kv: kv[0].value) if n > 0]
    if not items:
        return "no knights"
    parts = [f"{n} {c.value}" for c, n in items]
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    total = sum(n for _, n in items)
    return f"{text} knight{'s' if total != 1 else ''}"


def _game_counts(counts: Mapping[Colour, int]) -> str:
    items = [(c, n) for c, n in sorted(counts.items(), key=lambda kv: kv[0].value) if n > 0]
    if not items:
        return "none"
    return ", ".join(f"{n} {c.value}" for c, n in items)


def describe_action(action: A.Action, state: GameState | None = None) -> str:
    """A short sentence for an action the camera suggests; names places when the game is given."""
    who = action.player.value.capitalize()

    def name(loc: str) -> str:
        if state is not None and loc in state.data.catalogue:
            return f"{state.data.catalogue.get(loc).name} ({loc})"
        return loc

    if isinstance(action, A.EndTurn):
        return f"{who} ended their turn (the next player placed their three knights)"
    if isinstance(action, A.PlayCallToArms):
        return f"{who} played call to arms (two knights into their castle)"
    if isinstance(action, A.PlayTacticalAdvance):
        return f"{who} played tactical advance (one more redistribution and advance)"
    if isinstance(action, A.Redistribute):
        moves = ", ".join(f"{name(loc)} now {n}" for loc, n in action.layout)
        return f"{who} redistributed knights: {moves}"
    if isinstance(action, A.Advance):
        plural = "s" if action.knights != 1 else ""
        return f"{who} advanced {action.knights} knight{plural} into {name(action.target)}"
    return f"{who}: {action.TYPE.replace('_', ' ')}"


# --- the comparison -------------------------------------------------------------------------------

def _locations(state: GameState) -> list[str]:
    return [*state.data.territories, *state.data.castle_owner]


def _sure(state: GameState, reading: TableReading) -> tuple[list[str], list[str]]:
    """(sure, unsure) locations of this game. A location is unsure when the reading says so, or when the
    reading lists tiles but not this one (the camera did not see it at all) (R80)."""
    seen_tiles = set(reading.tiles.values())
    sure: list[str] = []
    unsure: list[str] = []
    for loc in _locations(state):
        if loc in reading.unsure or (seen_tiles and loc not in seen_tiles):
            unsure.append(loc)
        else:
            sure.append(loc)
    return sure, unsure


def _expected(state: GameState, loc: str) -> dict[Colour, int]:
    return {c: n for c, n in state.knights_at(loc).items() if n > 0}


def _differences(state: GameState, reading: TableReading, sure: list[str]
                 ) -> list[tuple[str, dict[Colour, int], dict[Colour, int]]]:
    out = []
    for loc in sure:
        seen = dict(reading.knights_at(loc))
        expected = _expected(state, loc)
        if seen != expected:
            out.append((loc, seen, expected))
    return out


# --- candidate explanations -----------------------------------------------------------------------

def _redistribution(state: GameState, me: Colour,
                    diffs: list[tuple[str, dict[Colour, int], dict[Colour, int]]]) -> A.Redistribute | None:
    """The redistribution putting the seen counts on `me`'s own territories (castle balances the total)."""
    my_castle = state.data.castle_of[me]
    layout: list[tuple[str, int]] = []
    moved = 0
    for loc, seen, expected in diffs:
        if loc == my_castle or expected.get(me, 0) == 0 or set(expected) != {me}:
            continue
        now = seen.get(me, 0)
        layout.append((loc, now))
        moved += expected[me] - now
    if not layout:
        return None
    if moved:
        layout.append((my_castle, state.players[me].castle + moved))
    return A.Redistribute(me, tuple(sorted(layout)))


def _candidates(state: GameState, reading: TableReading, sure: list[str]) -> Iterator[A.Action]:
    """Actions the difference suggests, most specific first. Each is checked before it is tried."""
    if state.winner is not None or state.battle is not None:
        return
    diffs = _differences(state, reading, sure)
    flips = _artefact_flips(state, reading)
    if not diffs and not flips:
        return
    if state.pending:
        head = state.pending[0]
        # Crown of Vitality: the engine waits for one more redistribution, which the camera can see.
        if isinstance(head, VitalityRedistribution):
            vitality = _redistribution(state, head.actor, diffs)
            if vitality is not None:
                yield vitality
        return  # anything else is a declared decision (cards, dice, fracture): never guessed (R86)
    me = state.current
    data = state.data
    my_castle = data.castle_of[me]
    order = state.order
    nxt = order[(order.index(me) + 1) % len(order)]
    delta: dict[Colour, int] = {}
    for _loc, seen, expected in diffs:
        for c in set(seen) | set(expected):
            delta[c] = delta.get(c, 0) + seen.get(c, 0) - expected.get(c, 0)
    mine_changed = any(seen.get(me, 0) != expected.get(me, 0) for _, seen, expected in diffs)
    # The turn ended: outside a battle only the player whose turn it is moves knights, so a change in the next
    # player's knights (starting with the three placed in their castle) means the turn passed (R84).
    # An artefact of the current player seen face up again: restored at the end of the turn (p.13).
    restored = any(up and aid in _restorable(state, me) for aid, up in flips)
    if (delta.get(nxt, 0) or restored
            or any(seen.get(nxt, 0) != expected.get(nxt, 0) for _, seen, expected in diffs)):
        yield A.EndTurn(me)
    # Call to arms: two more knights of the current player than the game has, or one when the reserve had a
    # single die's room left (R22, R84). The result is compared exactly, so a looser trigger costs nothing.
    if delta.get(me, 0) >= 1:
        yield A.PlayCallToArms(me)
    # Tactical advance: the turn's advance is spent, yet the current player's knights moved again (R84).
    if state.manoeuvres <= 0 and mine_changed:
        yield A.PlayTacticalAdvance(me)
    if not state.in_advance:
        redistribution = _redistribution(state, me, diffs)
        if redistribution is not None:
            yield redistribution
    # Advance: the current player's knights appeared where they were not (conquest abilities adjust the
    # count).
    for loc, seen, expected in diffs:
        n = seen.get(me, 0)
        if n <= 0 or expected.get(me, 0) > 0 or loc == my_castle:
            continue
        spec = data.territories.get(loc)
        tries = [n]
        if spec is not None and Ability.LOSE_KNIGHT in spec.abilities and not expected:
            tries.insert(0, n + 1)  # marshlands: the conqueror loses one knight there (R85)
        for k in tries:
            yield A.Advance(me, loc, k)
    # An advance whose knights all vanish at once: a castle's last knights into empty marshlands, where the
    # only one left dies on conquest (p.7), so the camera sees the castle emptied and nothing arrive (R85).
    castle_seen = dict(reading.knights_at(my_castle)).get(me, 0) if my_castle in sure else None
    left = state.players[me].castle - castle_seen if castle_seen is not None else 0
    if left == 1:
        for loc, spec in data.territories.items():
            if (Ability.LOSE_KNIGHT in spec.abilities and loc in sure and not _expected(state, loc)
                    and not reading.knights_at(loc)):
                yield A.Advance(me, loc, 1)


def _mismatch(state: GameState, reading: TableReading, sure: list[str]) -> int:
    return len(_differences(state, reading, sure)) + len(_artefact_flips(state, reading))


def _artefact_flips(state: GameState, reading: TableReading) -> list[tuple[str, bool]]:
    """(artefact id, seen face up) for every artefact the camera sees differently from the game (R87)."""
    out: list[tuple[str, bool]] = []
    if not reading.artefacts:
        return out
    for p in state.players.values():
        for h in p.artefacts:
            up = reading.artefacts.get(h.id)
            if up is not None and up != h.face_up:
                out.append((h.id, up))
    return out


def _restorable(state: GameState, colour: Colour) -> set[str]:
    """Artefacts of `colour` that the end of their turn restores: destroyed on an earlier turn (p.13)."""
    return {h.id for h in state.players[colour].artefacts
            if h.destroyed_on is not None and h.destroyed_on < state.turn}


_Near = tuple[tuple[A.Action, ...], list[Discrepancy]]


def _search(state: GameState, reading: TableReading, sure: list[str]
            ) -> tuple[tuple[A.Action, ...] | None, list[Refusal], _Near | None]:
    """Breadth-first over short action sequences; the first full explanation at the least depth wins (R82).

    Also returns the first `near` explanation: a legal sequence after which the only differences are knights
    the rules added or removed that the table has not caught up with (R85a)."""
    frontier: list[tuple[GameState, tuple[A.Action, ...], tuple[Event, ...]]] = [(state, (), ())]
    refused: list[Refusal] = []
    seen_refused: set[A.Action] = set()
    near: _Near | None = None
    for _depth in range(MAX_STEPS):
        nxt: list[tuple[GameState, tuple[A.Action, ...], tuple[Event, ...]]] = []
        for s, path, path_events in frontier:
            for action in _candidates(s, reading, sure):
                verdict = check(s, action)
                if not verdict.ok:
                    if len(refused) < MAX_REFUSALS and action not in seen_refused:
                        seen_refused.add(action)
                        before = "".join(describe_action(a, None) + ", then " for a in path)
                        refused.append(Refusal(action, verdict, before + describe_action(action, s)))
                    continue
                after, events = apply(s, action)
                if _mismatch(after, reading, sure) == 0:
                    return (*path, action), [], None
                events = (*path_events, *events)
                if near is None:
                    left = _catch_up(after, reading, sure, events, path=(*path, action), before=state)
                    if left is not None:
                        near = ((*path, action), left)
                # No pruning on "closer to the camera": a turn end can first add a difference (the three
                # knights placed) that the next player's advance then removes. Candidates are few, so the
                # frontier stays small; the cap only guards against a pathological reading.
                nxt.append((after, (*path, action), events))
        frontier = nxt[:MAX_FRONTIER]
        if not frontier:
            break
    return None, refused, near


# --- knights the rules added or removed -----------------------------------------------------------

_LOST_WHY = {
    "marshlands": "died conquering the marshlands (page 7)",
    "cut-throat": "lost their line of supply and leave the map (cut-throat, page 14, R31)",
    "arena": "fell in the arena (page 7, R37)",
    "battle": "fell in the battle (order of battle, page 12)",
    "mayhem": "fell to the mayhem dice (page 14, R38)",
}
_GAINED_WHY = {
    "village": "for conquering the village (page 7)",
    "city": "for conquering the city (page 7)",
    "shrine": "for conquering the shrine (page 7, R43)",
    "call to arms": "for the call to arms",
    "place knights": "placed at the start of the turn (page 8)",
}


def _knights(n: int, colour: Colour) -> str:
    return f"{n} {colour.value} knight{'s' if n != 1 else ''}"


def _adjustments(state: GameState, events: Iterable[Event]
                 ) -> dict[tuple[str, Colour], list[tuple[int, str]]]:
    """(location, colour) -> [(knights the camera shows more than the game while the table lags, cause)]:
    positive for knights the rules removed from there, negative for knights the rules put there."""
    out: dict[tuple[str, Colour], list[tuple[int, str]]] = {}
    retreats: list[Retreated] = []
    for e in events:
        if isinstance(e, KnightsLost) and e.count:
            out.setdefault((e.location, e.player), []).append((e.count, e.cause))
        elif isinstance(e, KnightsGained) and e.count:
            out.setdefault((e.location, e.player), []).append((-e.count, e.cause))
        elif isinstance(e, Retreated) and e.count:
            retreats.append(e)  # from the disputed place, named when the battle ends
        elif isinstance(e, BattleEnded):
            for r in retreats:
                castle = state.data.castle_of.get(r.player)
                if castle is not None:
                    out.setdefault((e.territory, r.player), []).append((r.count, "retreat"))
                    out.setdefault((castle, r.player), []).append((-r.count, "retreat"))
            retreats = []
    return out


def _fix(colour: Colour, items: list[tuple[int, str]]) -> str:
    """What the table must do to catch up, and why, e.g. 'take 1 red knight off the map: it died ...'."""
    parts = []
    for n, cause in items:
        if cause == "retreat":
            where = "from here to their castle" if n > 0 else "there"
            parts.append(f"move {_knights(abs(n), colour)} {where}: "
                         f"{'it retreats' if abs(n) == 1 else 'they retreat'} after the battle (page 12)")
        elif n > 0:
            why = _LOST_WHY.get(cause, f"{'was' if n == 1 else 'were'} lost to the {cause}")
            parts.append(f"take {_knights(n, colour)} off the map: {'it' if n == 1 else 'they'} {why}")
        else:
            why = _GAINED_WHY.get(cause, f"from the {cause}")
            parts.append(f"put {_knights(-n, colour)} there, {why}")
    return "; ".join(parts)


def _catch_up(state: GameState, reading: TableReading, sure: list[str], events: Sequence[Event], *,
              path: tuple[A.Action, ...] = (), before: GameState | None = None) -> list[Discrepancy] | None:
    """When every difference between the camera and `state` is knights that `events` added or removed and
    the table still shows as before, one discrepancy per location saying what to take off or put on the
    map and why (R85a); otherwise None."""
    if _artefact_flips(state, reading):
        return None
    diffs = _differences(state, reading, sure)
    if not diffs:
        return None
    adjust = _adjustments(state, events)
    out: list[Discrepancy] = []
    what = "; ".join(describe_action(a, before) for a in path) + ", and " if path else ""
    for loc, seen, expected in diffs:
        fixes = []
        for c in sorted(set(seen) | set(expected), key=lambda c: c.value):
            items = adjust.get((loc, c), [])
            if seen.get(c, 0) - expected.get(c, 0) != sum(n for n, _ in items):
                return None
            if items and seen.get(c, 0) != expected.get(c, 0):
                if path and any(cause == "place knights" for _, cause in items):
                    return None  # the knights placed are the evidence of a turn end (R84), not a lag
                fixes.append(_fix(c, items))
        sentence = (f"camera: {_counts(seen)} {_place(state, loc)}; game: {_game_counts(expected)} "
                    f"({what}the table has not caught up: {'; '.join(fixes)})")
        out.append(Discrepancy(loc, seen, expected, sentence))
    return out


def reconcile(state: GameState, reading: TableReading, recent: Sequence[Event] = ()) -> Reconciliation:
    """Explain a new stable reading against the game, or say where they disagree (R80-R89).

    `recent`: the events of the action(s) the game applied since the table last matched (the app's last
    declared action, e.g. a battle). Knights those events removed or placed that the table still shows as
    before are reported as what to take off or put on the map, and why (R85a)."""
    sure, unsure = _sure(state, reading)
    extra: list[Discrepancy] = []
    in_game = set(_locations(state))
    cat = state.data.catalogue
    # Knights the camera sees where the game can have none: a lake, a tile not in this game (R88).
    for loc, counts in reading.knights.items():
        if loc in in_game or loc in reading.unsure or not counts:
            continue
        where = _place(state, loc)
        lake = cat.tile_kind(loc) is TileKind.LAKE
        why = "lakes hold no knights" if lake else "it is not part of this game"
        extra.append(Discrepancy(loc, dict(counts), {}, f"camera: {_counts(counts)} {where}; game: none "
                                 f"({why})"))
    for colour in {c for counts in reading.knights.values() for c in counts} - set(state.order):
        extra.append(Discrepancy("", {colour: reading.total(colour)}, {},
                                 f"camera: {reading.total(colour)} {colour.value} knights on the table; "
                                 "game: "
                                 f"{colour.value} is not playing"))
    extra.extend(_map_discrepancies(state, reading))
    diffs = _differences(state, reading, sure)
    flips = _artefact_flips(state, reading)
    if not diffs and not flips and not extra:
        return Reconciliation(unsure=tuple(unsure))
    refused: list[Refusal] = []
    if not extra:
        # Artefacts are part of the goal: a turn end restores them, so they are compared after the move.
        found, refused, near = _search(state, reading, sure)
        if found is not None:
            return Reconciliation(actions=found, unsure=tuple(unsure),
                                  descriptions=_describe_path(state, found))
        # The table lags behind the rules: what the game just did (`recent`) first, then a legal move.
        lag = _catch_up(state, reading, sure, recent) if recent else None
        if lag is None and near is not None:
            lag = near[1]
        if lag is not None:
            return Reconciliation(discrepancies=tuple(lag), unsure=tuple(unsure))
    discrepancies = [Discrepancy(loc, seen, expected,
                                 f"camera: {_counts(seen)} {_place(state, loc)}; "
                                 f"game: {_game_counts(expected)}")
                     for loc, seen, expected in diffs]
    extra.extend(_artefact_discrepancies(state, reading))
    return Reconciliation(discrepancies=tuple(discrepancies + extra), refused=tuple(refused),
                          unsure=tuple(unsure))


def _describe_path(state: GameState, path: tuple[A.Action, ...]) -> tuple[str, ...]:
    out: list[str] = []
    s = state
    for action in path:
        words = describe_action(action, s)
        s, events = apply(s, action)
        if isinstance(action, A.Advance):
            # What the camera sees differs from the knights moved: say why (R85).
            for e in events:
                if isinstance(e, KnightsLost) and e.location == action.target and e.player is action.player:
                    words += (f", and {'it' if action.knights == 1 else str(e.count)} died there on conquest "
                              f"({e.cause}, page 7)")
                elif isinstance(e, KnightsGained) and e.player is action.player and e.count:
                    words += f", and {_knights(e.count, e.player)} went into their castle ({e.cause}, page 7)"
        out.append(words)
    return tuple(out)


def _map_discrepancies(state: GameState, reading: TableReading) -> list[Discrepancy]:
    """Tiles the camera sees in another arrangement than the game's map (R89). Compared by which seen tiles
    touch which, so the camera's own origin and rotation of the hex grid do not matter."""
    board = state.config.board
    if board is None or not reading.tiles:
        return []
    cat = state.data.catalogue
    seen = {tid: h for h, tid in reading.tiles.items()}
    out: list[Discrepancy] = []

    def name(tid: str) -> str:
        return f"{cat.get(tid).name} ({tid})" if tid in cat else tid

    for tid in sorted(seen):
        if tid not in board:
            out.append(Discrepancy(tid, {}, {}, f"camera: {name(tid)} on the table; game: not part of this "
                                                "map"))
    common = sorted(t for t in seen if t in board)
    for tid in common:
        camera = {u for u in common if u != tid and seen[u].is_adjacent(seen[tid])}
        game = set(board.adjacent(tid)) & set(common)
        if camera != game:
            cam = ", ".join(sorted(camera)) or "nothing"
            out.append(Discrepancy(tid, {}, {}, f"camera: {name(tid)} next to {cam}; game: next to "
                                   f"{', '.join(sorted(game)) or 'nothing'} (a tile was moved?)"))
    return out


def _artefact_discrepancies(state: GameState, reading: TableReading) -> list[Discrepancy]:
    out: list[Discrepancy] = []
    cat = state.data.catalogue
    holdings = {h.id: h for p in state.players.values() for h in p.artefacts}
    for aid, up in reading.artefacts.items():
        holding = holdings.get(aid)
        if holding is None or holding.face_up == up:
            continue
        name = cat.artefact(aid).name if aid in cat else aid
        seen = "up" if up else "down"
        game = "up" if holding.face_up else "down (destroyed)"
        out.append(Discrepancy(aid, {}, {}, f"camera: {name} ({aid}) face {seen}; game: face {game}"))
    return out
