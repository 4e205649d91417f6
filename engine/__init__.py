"""Seneschal's rules engine for Medieval Mastery: pure Python, standard library only.

A game is immutable `GameState`s and the actions between them (docs/engine-api.md):

- `new_game(GameConfig(...))` sets a game up; `legal_actions(state)` is a lazy view of every legal action
  (`action in legal_actions(state)` is `check(state, action).ok`); `check(state, action)` gives a `Verdict`
  (reason, one sentence, the rule that decided it); `apply(state, action)` the next state and its events.
- Chance is an input: `is_chance(state)`, `chance_outcomes(state)` with probabilities, `sample_chance`.
- `player_view(state, colour)`: what one player may see. `state.actors()`: who may act now.
- `History` (undo, rewind, save/load), `random_playout` for simulations, `redistributions(state)`.
- Maps and components: `Hex`, `Board`, `default_board`, `load_default_catalogue`, `load_box_catalogue`.
  The camera: `TableReading` and `reconcile`.

>>> import random
>>> from engine import EndTurn, apply, check, legal_actions, new_game, random_config
>>> state = new_game(random_config(random.Random(1), players=4))
>>> verdict = check(state, EndTurn(state.current))
>>> verdict.ok, verdict.citation
(True, 'Restore Artefacts, p.13')
>>> after, events = apply(state, EndTurn(state.current))
>>> after.current is state.order[(state.order.index(state.current) + 1) % 4]
True
"""

from engine import speed
from engine.actions import (
    ACTION_TYPES,
    Action,
    Advance,
    ArrangeTop,
    DeclareAuthority,
    DestroyArtefact,
    DiscardCard,
    DiscardRandom,
    EndTurn,
    Equalise,
    PassFracture,
    PassFractureRound,
    PlayCallToArms,
    PlayConflict,
    PlayFracture,
    PlaySupport,
    PlayTacticalAdvance,
    ProsperityChoice,
    Redistribute,
    ReturnCard,
    RollDice,
    SkipAdvance,
    UseCrown,
)
from engine.catalogue import load_box_catalogue, load_default_catalogue
from engine.colours import Colour
from engine.decisions import (
    DECISION_TYPES,
    AuthorityDraw,
    ConflictCards,
    CorruptionTarget,
    CrownEffect,
    Decision,
    DicePurpose,
    DiceRoll,
    FractureMoment,
    FractureWindow,
    InsightArrangement,
    Need,
    OptionalDiscard,
    OrderReturn,
    ProsperityChoiceWindow,
    RandomDiscard,
    SceptreChoice,
    SupportTurns,
    VitalityRedistribution,
)
from engine.errors import EngineError, IllegalActionError, SaveError, SetupError
from engine.events import EVENT_TYPES, Event
from engine.hexgrid import Hex
from engine.history import History
from engine.maps import Board, default_board
from engine.playout import play_on, random_config, random_playout
from engine.reading import Doubt, TableReading
from engine.reconcile import reconcile
from engine.rulebook import Rule
from engine.rules import (
    LegalActions,
    apply,
    chance_outcomes,
    check,
    is_chance,
    legal_actions,
    redistributions,
    sample_chance,
)
from engine.setup import GameConfig, PlayerConfig, new_game, position
from engine.state import ArtefactHolding, Battle, DiceSource, GameState, Knowledge, PlayerState, TurnStep
from engine.variants import Variant
from engine.verdict import Reason, Verdict
from engine.view import player_view

# Records built on every action get a faster constructor (engine/speed.py; off: SENESCHAL_ENGINE_SPEED=0).
speed.install([*ACTION_TYPES.values(), *EVENT_TYPES.values(), *DECISION_TYPES.values(), ArtefactHolding,
               PlayerState, Battle, GameState])

__all__ = [
    "Action",
    "Advance",
    "ArrangeTop",
    "AuthorityDraw",
    "Battle",
    "Board",
    "Colour",
    "ConflictCards",
    "CorruptionTarget",
    "CrownEffect",
    "Decision",
    "DeclareAuthority",
    "DestroyArtefact",
    "DicePurpose",
    "DiceRoll",
    "DiceSource",
    "DiscardCard",
    "DiscardRandom",
    "Doubt",
    "EndTurn",
    "EngineError",
    "Equalise",
    "Event",
    "FractureMoment",
    "FractureWindow",
    "GameConfig",
    "GameState",
    "Hex",
    "History",
    "IllegalActionError",
    "InsightArrangement",
    "Knowledge",
    "LegalActions",
    "Need",
    "OptionalDiscard",
    "OrderReturn",
    "PassFracture",
    "PassFractureRound",
    "PlayCallToArms",
    "PlayConflict",
    "PlayFracture",
    "PlaySupport",
    "PlayTacticalAdvance",
    "PlayerConfig",
    "ProsperityChoice",
    "ProsperityChoiceWindow",
    "RandomDiscard",
    "Reason",
    "Redistribute",
    "ReturnCard",
    "RollDice",
    "Rule",
    "SaveError",
    "SceptreChoice",
    "SetupError",
    "SkipAdvance",
    "SupportTurns",
    "TableReading",
    "TurnStep",
    "UseCrown",
    "Variant",
    "Verdict",
    "VitalityRedistribution",
    "apply",
    "chance_outcomes",
    "check",
    "default_board",
    "is_chance",
    "legal_actions",
    "load_box_catalogue",
    "load_default_catalogue",
    "new_game",
    "play_on",
    "player_view",
    "position",
    "random_config",
    "random_playout",
    "reconcile",
    "redistributions",
    "sample_chance",
]
