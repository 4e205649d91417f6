"""Setting up a game exactly as the rulebook's eight steps (Setting Up, p.3), with every choice explicit: the
map, the artefact deal, deck order and the first player come from the config or from its seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import codec
from engine.cards import draw
from engine.catalogue import ArtefactType, CardKind, Catalogue, load_default_catalogue
from engine.colours import Colour
from engine.errors import MapError, SetupError
from engine.gamedata import GameData
from engine.rulebook import RULINGS, Rule
from engine.state import ArtefactHolding, GameState, Knowledge, PlayerState
from engine.supply import refresh_control
from engine.turn import settle, start_turn
from engine.variants import Variant
from engine.work import Work

STARTING_KNIGHTS = 6  # setting up step 6
MAYHEM_EXTRA = 6  # mayhem (p.14)
OPENING_HAND = 5  # setting up step 7


@dataclass(frozen=True, slots=True)
class PlayerConfig:
    colour: Colour
    name: str = ""
    castle: str | None = None  # defaults to the castle of the player's colour on the board


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything needed to set up a game. `players` are in clockwise seating order."""

    players: tuple[PlayerConfig, ...]
    variant: Variant = field(default_factory=Variant)
    knowledge: Knowledge = Knowledge.FULL
    seed: int = 0
    board: Any = field(default=None, compare=False)  # engine.maps.Board; None: the default map from the seed
    catalogue: Catalogue | None = field(default=None, compare=False)
    adjacency: Mapping[str, tuple[str, ...]] | None = None  # instead of a board (tests, scenarios)
    first_player: Colour | None = None  # None: drawn from the seed (step 8)
    artefacts: Mapping[Colour, tuple[str, ...]] | None = None  # None: dealt from the seed (step 3)
    opening_authority: tuple[Colour, ...] = ()  # TABLE: who drew their authority card in step 7
    rulings: int = RULINGS  # the edition of docs/rulings.md the game follows (engine.rulebook.RULINGS)

    @property
    def colours(self) -> tuple[Colour, ...]:
        return tuple(p.colour for p in self.players)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "players": codec.encode(self.players),
            "variant": codec.encode(self.variant),
            "knowledge": self.knowledge.value,
            "seed": self.seed,
            "first_player": codec.encode(self.first_player),
            "artefacts": codec.encode(self.artefacts),
            "opening_authority": codec.encode(self.opening_authority),
            "rulings": self.rulings,
        }
        if self.adjacency is not None:
            out["adjacency"] = codec.encode(self.adjacency)
        if self.board is not None:
            out["board"] = self.board.to_json()
        if self.catalogue is not None and self.catalogue != load_default_catalogue():
            out["catalogue"] = self.catalogue.to_json()
        return out

    @staticmethod
    def from_json(obj: Any) -> GameConfig:
        """Raises ValueError (or CatalogueError / MapError) quoting what is wrong."""
        if not isinstance(obj, dict):
            raise ValueError(f"a game config is a JSON object, got {obj!r}")
        catalogue = None
        if "catalogue" in obj:
            catalogue = Catalogue.from_json(obj["catalogue"], "saved catalogue")
        board = None
        if obj.get("board") is not None:
            from engine.maps import Board

            board = Board.from_json(obj["board"], catalogue)
        return GameConfig(
            players=codec.decode(tuple[PlayerConfig, ...], obj.get("players"), "players"),
            variant=codec.decode(Variant, obj.get("variant", {}), "variant"),
            knowledge=codec.decode(Knowledge, obj.get("knowledge", "full"), "knowledge"),
            seed=codec.decode(int, obj.get("seed", 0), "seed"),
            board=board,
            catalogue=catalogue,
            adjacency=codec.decode(Mapping[str, tuple[str, ...]] | None, obj.get("adjacency"), "adjacency"),
            first_player=codec.decode(Colour | None, obj.get("first_player"), "first_player"),
            artefacts=codec.decode(
                Mapping[Colour, tuple[str, ...]] | None, obj.get("artefacts"), "artefacts"
            ),
            opening_authority=codec.decode(
                tuple[Colour, ...], obj.get("opening_authority", []), "opening_authority"
            ),
            # A config saved before editions were recorded follows the first one.
            rulings=codec.decode(int, obj.get("rulings", 1), "rulings"),
        )


def _validate(config: GameConfig, catalogue: Catalogue) -> list[str]:
    problems: list[str] = []
    colours = config.colours
    n = len(colours)
    if not 2 <= n <= 6:
        problems.append(f"Medieval Mastery is for 2 to 6 players, got {n}")
    if not 1 <= config.rulings <= RULINGS:
        problems.append(f"rulings edition {config.rulings} is unknown (1..{RULINGS})")
    if len(set(colours)) != n:
        problems.append(f"each player needs their own colour, got {[c.value for c in colours]}")
    v = config.variant
    if v.allegiance:
        members = [c for team in v.allegiance for c in team]
        sizes = {len(team) for team in v.allegiance}
        if n not in (4, 6):
            problems.append(f"allegiance is only for 4 or 6 players (p.14), got {n}")
        if sorted(members, key=lambda c: c.value) != sorted(colours, key=lambda c: c.value):
            problems.append("allegiance teams must put every player in exactly one team")
        if len(sizes) != 1 or not sizes <= {2, 3} or len(v.allegiance) < 2:
            problems.append(
                f"allegiance needs equal teams of 2 or 3 players (p.14), got "
                f"{[[c.value for c in t] for t in v.allegiance]}"
            )
        if v.castle_siege:
            problems.append("allegiance cannot be played with castle siege (p.14)")
        if not problems:
            problems.extend(_seating_problems(colours, v.allegiance))
    if config.first_player is not None and config.first_player not in colours:
        problems.append(f"first player {config.first_player.value!r} is not playing")
    if config.opening_authority and config.knowledge is not Knowledge.TABLE:
        problems.append(
            "opening_authority is only for TABLE games (in FULL games the engine draws the cards)"
        )
    for c in config.opening_authority:
        if c not in colours:
            problems.append(f"opening_authority names {c.value!r}, who is not playing")
    if config.artefacts is not None:
        seen: set[str] = set()
        for colour in colours:
            deal = config.artefacts.get(colour)
            if deal is None:
                problems.append(f"no artefacts dealt to {colour.value}")
                continue
            types = []
            for a in deal:
                if a not in {x.id for x in catalogue.artefacts}:
                    problems.append(f"{colour.value}: unknown artefact {a!r}")
                    continue
                if a in seen:
                    problems.append(f"artefact {a!r} is dealt twice")
                seen.add(a)
                types.append(catalogue.artefact(a).type)
            if sorted(t.value for t in types) != sorted(t.value for t in ArtefactType) and len(types) == len(
                deal
            ):
                problems.append(
                    f"{colour.value} must hold one crown, one sceptre and one orb (step 3), got {list(deal)}"
                )
    return problems


def _seating_problems(colours: tuple[Colour, ...], teams: tuple[tuple[Colour, ...], ...]) -> list[str]:
    """Allegiance seating (p.14, R30): a team of two sits opposite each other; teams of three alternate, so
    every player sits between two rivals. `colours` is the clockwise seating."""
    n = len(colours)
    seat = {c: i for i, c in enumerate(colours)}
    problems: list[str] = []
    for team in teams:
        seats = sorted(seat[c] for c in team)
        names = " and ".join(c.value for c in team)
        if len(team) == 2 and seats[1] - seats[0] != n // 2:
            problems.append(
                f"teammates {names} must sit opposite each other (p.14); seat them {n // 2} places apart "
                "in the clockwise order"
            )
        elif len(team) == 3 and len({s % 2 for s in seats}) != 1:
            problems.append(
                f"teams of three alternate around the table (p.14): {names} must take every other seat"
            )
    return problems


def game_data(config: GameConfig) -> GameData:
    """The static game data for a config (the board built from the seed when none is given)."""
    catalogue = (
        config.catalogue
        or (config.board.catalogue if config.board is not None else None)
        or load_default_catalogue()
    )
    castles: dict[Colour, str] = {}
    for p in config.players:
        if p.castle is not None:
            castles[p.colour] = p.castle
        else:
            castles[p.colour] = catalogue.castle_of(p.colour).id
    if config.adjacency is not None:
        return GameData.build(catalogue, castles, config.adjacency)
    board = config.board
    if board is None:
        from engine.maps import default_board

        board = default_board(
            len(config.players), catalogue, random.Random(f"{config.seed}/map"), config.colours
        )
    return GameData.from_board(board, catalogue, castles)


def new_game(config: GameConfig) -> GameState:
    """A new game after the eight set-up steps, at the start of the first player's first turn (their three
    knights already placed). Raises SetupError (or MapError) listing every problem with the config."""
    catalogue = (
        config.catalogue
        or (config.board.catalogue if config.board is not None else None)
        or load_default_catalogue()
    )
    problems = _validate(config, catalogue)
    if problems:
        raise SetupError(problems)
    try:
        data = game_data(config)
    except KeyError as exc:
        raise SetupError([str(exc.args[0]) if exc.args else str(exc)]) from None
    except MapError:
        raise
    colours = config.colours
    seed = config.seed
    # Step 3: deal one artefact of each type to each player.
    if config.artefacts is not None:
        deals = {c: tuple(config.artefacts[c]) for c in colours}
    else:
        rng = random.Random(f"{seed}/artefacts")
        piles = {t: [a.id for a in catalogue.artefacts_of_type(t)] for t in ArtefactType}
        for pile in piles.values():
            rng.shuffle(pile)
        deals = {c: tuple(piles[t][i] for t in ArtefactType) for i, c in enumerate(colours)}
    # Step 6: starting knights split evenly between the castle and its adjacent homelands.
    occupants: dict[str, tuple[Colour, int]] = {}
    castle_knights: dict[Colour, int] = {}
    for c in colours:
        homes = [h for h in data.homelands_of[c] if h not in occupants]
        share = STARTING_KNIGHTS // (len(homes) + 1)
        for h in homes:
            occupants[h] = (c, share)
        castle_knights[c] = STARTING_KNIGHTS - share * len(homes)
        if config.variant.mayhem:
            castle_knights[c] += MAYHEM_EXTRA
    # Step 5: shuffled decks (FULL) or just their sizes (TABLE).
    players: dict[Colour, PlayerState] = {}
    full = config.knowledge is Knowledge.FULL
    for c in colours:
        deck = list(data.deck)
        if full:
            random.Random(f"{seed}/{c.value}/deck").shuffle(deck)
        players[c] = PlayerState(
            colour=c,
            castle=castle_knights[c],
            hand=(),
            hand_size=0,
            deck=tuple(deck) if full else (),
            deck_size=len(deck),
            discard=(),
            artefacts=tuple(ArtefactHolding(a) for a in deals[c]),
            shuffles=0,
        )
    first = config.first_player
    if first is None:
        first = random.Random(f"{seed}/first").choice(colours)  # step 8
    state = GameState(
        data=data,
        config=config,
        order=colours,
        players=players,
        occupants=occupants,
        turn=0,
        current=first,
        manoeuvres=0,
        crown_used=False,
        in_advance=False,
        battle=None,
        pending=(),
        winner=None,
        supply={},
        knowledge=config.knowledge,
    )
    w = Work(state)
    # Step 7: five cards each; authority drawn is played at once to draw two more.
    for c in colours:
        if full:
            draw(w, c, OPENING_HAND, "opening hand", Rule.OPENING_HAND)
        else:
            p = w.players[c]
            if c in config.opening_authority:
                authority = data.card_of_kind[CardKind.AUTHORITY]
                w.set_player(
                    c,
                    hand_size=OPENING_HAND + 1,
                    deck_size=p.deck_size - OPENING_HAND - 2,
                    discard=((authority, 0),),
                )
            else:
                w.set_player(c, hand_size=OPENING_HAND, deck_size=p.deck_size - OPENING_HAND)
    w.staged = []
    w.control_dirty = set(state.order)
    start_turn(w, first)
    settle(w)
    w.events = []
    return w.freeze()


def validate_state(state: GameState) -> list[str]:
    """Problems with a hand-made state: unknown places, bad counts, players not in the game."""
    problems: list[str] = []
    data = state.data
    if set(state.players) != set(state.order):
        problems.append("players and seating order name different colours")
    for t, (c, n) in state.occupants.items():
        if t not in data.territories:
            problems.append(f"knights on {t!r}, which is not a territory on this map")
        elif n <= 0:
            problems.append(f"{t}: knight count must be positive, got {n}")
        elif n > data.capacity[t]:
            problems.append(f"{t}: {n} knights is over its capacity of {data.capacity[t]}")
        if c not in state.players:
            problems.append(f"{t}: {c.value} is not playing")
    for c, p in state.players.items():
        if p.castle < 0 or p.hand_size < 0 or p.deck_size < 0:
            problems.append(f"{c.value}: counts cannot be negative")
        if p.conflict_bound is not None and not 0 <= p.conflict_bound < max(1, p.hand_size):
            problems.append(f"{c.value}: conflict_bound {p.conflict_bound} must be 0..hand size - 1 (R46)")
        if state.dice_in_use(c) > data.dice_per_player:
            problems.append(
                f"{c.value}: knights need {state.dice_in_use(c)} dice, more than {data.dice_per_player}"
            )
        for a in p.artefacts:
            if a.id not in data.artefacts:
                problems.append(f"{c.value}: unknown artefact {a.id!r}")
        for card in (*p.hand, *p.deck, *(x for x, _ in p.discard)):
            if card not in data.cards:
                problems.append(f"{c.value}: unknown card {card!r}")
    if state.current not in state.players:
        problems.append(f"current player {state.current.value} is not playing")
    return problems


def position(
    config: GameConfig,
    *,
    occupants: Mapping[str, tuple[Colour, int]] | None = None,
    castles: Mapping[Colour, int] | None = None,
    hands: Mapping[Colour, tuple[str, ...]] | None = None,
    decks: Mapping[Colour, tuple[str, ...]] | None = None,
    discards: Mapping[Colour, tuple[str, ...]] | None = None,
    hand_sizes: Mapping[Colour, int] | None = None,
    destroyed: Mapping[str, int] | None = None,
    current: Colour | None = None,
    turn: int = 1,
) -> GameState:
    """An explicit mid-game position at the start of `current`'s turn (after placing knights), for scenarios
    and tests. Unlisted parts come from `new_game(config)`. In FULL mode a player's deck defaults to the
    cards not in their hand or discard pile, in deck-list order. Raises SetupError when the position is
    impossible."""
    from dataclasses import replace

    base = new_game(config)
    players = dict(base.players)
    full = config.knowledge is Knowledge.FULL
    for c in base.order:
        p = players[c]
        hand = tuple(hands[c]) if hands is not None and c in hands else p.hand
        discard = (
            tuple((card, 0) for card in discards[c]) if discards is not None and c in discards else p.discard
        )
        if full:
            if decks is not None and c in decks:
                deck = tuple(decks[c])
            elif (hands is not None and c in hands) or (discards is not None and c in discards):
                used = set(hand) | {x for x, _ in discard}
                deck = tuple(x for x in base.data.deck if x not in used)
            else:
                deck = p.deck
            p = replace(p, hand=hand, hand_size=len(hand), deck=deck, deck_size=len(deck), discard=discard)
        else:
            size = hand_sizes[c] if hand_sizes is not None and c in hand_sizes else p.hand_size
            deck_size = len(base.data.deck) - size - len(discard)
            p = replace(p, hand=(), hand_size=size, deck=(), deck_size=deck_size, discard=discard)
        if castles is not None and c in castles:
            p = replace(p, castle=castles[c])
        if destroyed is not None:
            p = replace(p, artefacts=tuple(ArtefactHolding(a.id, destroyed.get(a.id)) for a in p.artefacts))
        players[c] = p
    state = replace(
        base,
        players=players,
        occupants=dict(occupants) if occupants is not None else base.occupants,
        current=current or base.current,
        turn=turn,
        manoeuvres=1,
        crown_used=False,
        in_advance=False,
        battle=None,
        pending=(),
        winner=None,
        supply={},
    )
    problems = validate_state(state)
    if full:
        for c, p in state.players.items():
            cards = [*p.hand, *p.deck, *(x for x, _ in p.discard)]
            if sorted(cards) != sorted(state.data.deck):
                problems.append(f"{c.value}: hand, deck and discard must hold the 18 cards once each")
    if problems:
        raise SetupError(problems)
    w = Work(state)
    w.control_dirty = set(state.order)
    refresh_control(w)
    w.events = []
    return w.freeze()


__all__ = ["GameConfig", "PlayerConfig", "Variant", "game_data", "new_game", "position", "validate_state"]
