"""The real `GameSession`: the engine behind the app's boundary, with every applied action stored first.

Legality is never decided here: options come from `engine.rules.legal_actions`, greyed options are ordinary
candidate actions the engine refuses (`engine.rules.check` gives sentence and citation), and camera readings
go through `engine.reconcile`. This module only translates engine values into the app's views and words.

Resume (R90): a game is stored as its engine config plus every applied action; reopening replays the actions
through `engine.rules.apply` (chance is an input, so the replay is exact) and compares each resulting state to
the one stored beside the action when the engine can serialise states.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from companion.describe import Describer
from companion.errors import StorageError
from companion.i18n import Translator
from companion.presenters.newgame import MapSource, NewGameConfig
from companion.services import (
    ArtefactView,
    BattleOutcome,
    BattleView,
    Discrepancy,
    EventLine,
    Option,
    OptionKind,
    PlayerView,
    Proposal,
    RefusedError,
    Storage,
    TableSnapshot,
    TileView,
    VerdictView,
)
from engine import actions as A
from engine import events as ev
from engine import rules
from engine.battle import STEP_OF as BATTLE_STEP_OF
from engine.colours import Colour
from engine.decisions import (
    ConflictCards,
    Decision,
    DicePurpose,
    DiceRoll,
    FractureMoment,
    FractureWindow,
    RandomDiscard,
    SceptreChoice,
    SupportTurns,
)
from engine.reconcile import reconcile
from engine.state import Battle, GameState, TurnStep
from engine.turn import STEPS_OF

# The order of battle's step (p.12) a battle is at while it waits for a decision.
_STEP_WAITING: dict[type[Decision], int] = {
    ConflictCards: 4,
    SupportTurns: 5,
    SceptreChoice: 3,
    RandomDiscard: 3,
}
_DICE_STEP = {DicePurpose.ARENA: 1, DicePurpose.AMBUSH: 4, DicePurpose.MAYHEM: 6}
_FRACTURE_STEP = {FractureMoment.SCEPTRES: 3, FractureMoment.ORBS: 7}


def _waiting_step(head: Decision, stage: int) -> int:
    if isinstance(head, DiceRoll):
        return _DICE_STEP.get(head.purpose, stage)
    if isinstance(head, FractureWindow):
        return _FRACTURE_STEP.get(head.moment, stage)
    return _STEP_WAITING.get(type(head), stage)


def _has(events: tuple[ev.Event, ...], kind: type[ev.Event]) -> bool:
    return any(isinstance(e, kind) for e in events)


MAX_OPTIONS_PER_KIND = 60
# Moves the camera sees (knights moved on the table); with a camera they come through it, so the table
# matched the game right after each one (R91). The rest (cards, crowns, fractures, battle choices, dice) are
# tapped, and knights those remove or add lag on the table until the players catch up.
CAMERA_MOVES: frozenset[type[A.Action]] = frozenset({A.Advance, A.Redistribute, A.EndTurn, A.PlayCallToArms})


class EngineSession:
    """One game: engine states (index i = after i actions), the actions, their words, and the store."""

    def __init__(
        self,
        initial: GameState,
        storage: Storage,
        game_id: int,
        tr: Translator | None = None,
        board: Any = None,
    ) -> None:
        self.storage = storage
        self.game_id = game_id
        self.tr = tr or Translator()
        self.board = board if board is not None else getattr(initial.config, "board", None)
        self.states: list[GameState] = [initial]
        self.actions: list[A.Action] = []
        self.events: list[tuple[ev.Event, ...]] = []  # the engine's events of each action
        self.lines: list[EventLine] = []
        self.matched_at = 0  # actions applied when the camera last saw the table match the game
        self._explained: tuple[int, tuple[A.Action, ...]] | None = None  # a camera proposal not yet applied
        self._cache: dict[str, tuple[Any, Any]] = {}
        self.describe = Describer(
            initial.data,
            {p.colour: (p.name or p.colour.value.capitalize()) for p in initial.config.players},
            self.tr,
        )

    # ------------------------------------------------------------------------------------ construction

    @classmethod
    def create(
        cls,
        config: NewGameConfig,
        storage: Storage,
        tr: Translator | None = None,
        *,
        catalogue: Any = None,
        board: Any = None,
        knowledge: str = "table",
        artefacts: Mapping[Colour, tuple[str, ...]] | None = None,
    ) -> EngineSession:
        from engine.catalogue import load_default_catalogue
        from engine.maps import default_board
        from engine.setup import GameConfig, PlayerConfig, Variant, new_game
        from engine.state import Knowledge

        cat = catalogue or load_default_catalogue()
        n = len(config.players)
        if board is None:
            if config.map_source is MapSource.CAMERA:
                raise ValueError("read the map from the camera first (no board given)")
            board = default_board(n, cat, random.Random(f"{config.seed}/map"))
        variant = Variant(
            allegiance=tuple(config.teams) if "allegiance" in config.variants else (),
            castle_siege="castle_siege" in config.variants,
            cut_throat="cut_throat" in config.variants,
            skirmish="skirmish" in config.variants,
            mayhem="mayhem" in config.variants,
        )
        engine_config = GameConfig(
            players=tuple(PlayerConfig(p.colour, p.name) for p in config.players),
            variant=variant,
            knowledge=Knowledge(knowledge),
            seed=config.seed,
            board=board,
            catalogue=cat,
            first_player=config.first,
            artefacts=artefacts,
        )
        state = new_game(engine_config)
        doc = {"app": config.to_json(), "engine": engine_config.to_json()}
        game_id = storage.create_game(doc, _state_json(state))
        return cls(state, storage, game_id, tr, board)

    @classmethod
    def resume(cls, storage: Storage, game_id: int, tr: Translator | None = None) -> EngineSession:
        from engine.actions import Action
        from engine.save import same_state
        from engine.setup import GameConfig, new_game

        saved = storage.load(game_id)
        engine_config = GameConfig.from_json(saved.config["engine"])
        session = cls(new_game(engine_config), storage, game_id, tr, engine_config.board)
        for rec in saved.records:
            action = Action.from_json(dict(rec.action))
            state, _events = rules.apply(session.states[-1], action)
            stored = rec.state
            if stored and not same_state(state, stored):
                raise StorageError(
                    f"game {game_id}: move #{rec.seq + 1} replays to a different state than the "
                    "one saved (was the engine updated?)"
                )
            session.states.append(state)
            session.actions.append(action)
            session.events.append(tuple(_events))
            session.lines.append(EventLine(rec.seq, rec.words, getattr(action, "player", None), state.turn))
        # The table last matched after the last camera-visible move (R91); what was tapped since may lag.
        seen = [i + 1 for i, a in enumerate(session.actions) if type(a) in CAMERA_MOVES]
        session.matched_at = seen[-1] if seen else 0
        return session

    # ------------------------------------------------------------------------------------------- state

    @property
    def state(self) -> GameState:
        return self.states[-1]

    def snapshot(self) -> TableSnapshot:
        s = self.state
        data = s.data
        tiles: list[TileView] = []
        board = self.board
        hexes: Mapping[Any, str] = board.tiles if board is not None else {}
        battle = s.battle
        for h, tid in hexes.items():
            knights = dict(s.knights_at(tid)) if (tid in data.territories or tid in data.castle_owner) else {}
            if tid in data.territories:
                spec = data.territories[tid]
                ctrl = s.controller(tid)
                tiles.append(
                    TileView(
                        tid,
                        self.describe.place(tid),
                        h.q,
                        h.r,
                        "territory",
                        spec.value,
                        data.capacity.get(tid, spec.capacity),
                        spec.kind.value,
                        ctrl,
                        knights,
                        supplied=ctrl is None or s.has_supply(ctrl, tid),
                        in_dispute=battle is not None and battle.territory == tid,
                    )
                )
            elif tid in data.castle_owner:
                owner = data.castle_owner[tid]
                tiles.append(
                    TileView(
                        tid, data.catalogue.castle(tid).name, h.q, h.r, "castle", owner=owner, knights=knights
                    )
                )
            elif tid in data.catalogue:
                kind = "lake" if tid.startswith("L") else "territory"
                name = data.catalogue.get(tid).name
                if kind == "lake":
                    tiles.append(TileView(tid, name, h.q, h.r, "lake"))
        players = []
        team_of = {c: i for i, team in enumerate(s.config.variant.allegiance) for c in team}
        for c in s.order:
            p = s.players[c]
            arts = []
            for a in p.artefacts:
                art = data.artefacts.get(a.id)
                arts.append(
                    ArtefactView(
                        a.id,
                        self.describe.artefact(a.id),
                        art.type.value if art else "crown",
                        a.face_up,
                        a.destroyed_on == s.turn,
                    )
                )
            players.append(
                PlayerView(
                    c,
                    self.describe.name(c),
                    s.score(c),
                    p.castle,
                    max(0, data.dice_per_player - s.dice_in_use(c)),
                    p.hand_size,
                    tuple(arts),
                    team_of.get(c),
                )
            )
        return TableSnapshot(
            tiles=tuple(tiles),
            players=tuple(players),
            current=s.current,
            step=self._step(s),
            turn=s.turn,
            target=self._target(s),
            battle=self._battle(s),
            winner=tuple(s.winner or ()),
            index=len(self.actions),
            hands_in_app=getattr(s.config.knowledge, "value", "") == "full",
            last_battle=self._last_battle(),
        )

    def _last_battle(self) -> BattleOutcome | None:
        """The battle the last action ended, from its events (None when the last action ended none)."""
        n = len(self.actions)
        if not n or not _has(self.events[-1], ev.BattleEnded):
            return None
        cached = self._cache.get("last_battle")
        if cached is not None and cached[0] == n:
            return cached[1]  # type: ignore[no-any-return]
        start = next((i for i in range(n - 1, -1, -1) if _has(self.events[i], ev.BattleStarted)), 0)
        outcome = self._outcome([e for evs in self.events[start:] for e in evs], n)
        self._cache["last_battle"] = (n, outcome)
        return outcome

    def _outcome(self, events: list[ev.Event], index: int) -> BattleOutcome | None:
        started = next((e for e in events if isinstance(e, ev.BattleStarted)), None)
        ended = next((e for e in reversed(events) if isinstance(e, ev.BattleEnded)), None)
        if ended is None or started is None:
            return None
        territory, attacker, defender = ended.territory, started.attacker, started.defender
        result = next((e for e in reversed(events) if isinstance(e, ev.BattleResult)), None)
        reveal = next((e for e in reversed(events) if isinstance(e, ev.ConflictRevealed)), None)
        lost: dict[Colour, int] = {}
        retreated: dict[Colour, int] = {}
        for e in events:
            if isinstance(e, ev.KnightsLost) and e.location == territory:
                lost[e.player] = lost.get(e.player, 0) + e.count
            elif isinstance(e, ev.Retreated):
                retreated[e.player] = retreated.get(e.player, 0) + e.count
        d = self.describe
        return BattleOutcome(
            territory,
            d.place(territory),
            attacker,
            defender,
            ended.winner,
            result.attacker_score if result is not None else 0,
            result.defender_score if result is not None else 0,
            result.margin if result is not None else 0,
            d.card(reveal.attacker_card) if reveal is not None else "",
            d.card(reveal.defender_card) if reveal is not None else "",
            tuple(lost.items()),
            tuple(retreated.items()),
            any(isinstance(e, ev.Conquered) and e.territory == territory for e in events),
            index,
        )

    def _step(self, s: GameState) -> int:
        """The number of the turn's step (p.8) the game is at: the first of the window it is in."""
        if s.step is TurnStep.PREPARE and s.crown_used:
            return 4
        steps = STEPS_OF[s.step]
        return steps[0].number if steps else 9

    @staticmethod
    def _stage(b: Battle | None) -> int:
        """The number of the order of battle's step (p.12) a battle is at (0: no battle)."""
        return 0 if b is None else BATTLE_STEP_OF[b.stage].number

    def _target(self, s: Any) -> int:
        v = s.config.variant
        if v.allegiance:
            return int(v.team_target(len(v.allegiance[0])))
        return int(v.target)

    def _battle(self, s: Any) -> BattleView | None:
        b = s.battle
        if b is None:
            return None
        a, d = s.combat_scores()
        spec = s.data.territories.get(b.territory)
        name = self.describe.place(b.territory)
        notes = []
        if spec is not None:
            kind = spec.kind.value
            if kind == "grasslands":
                notes.append(self.tr("Grasslands: attacker +1"))
            elif kind in ("fort", "city", "fortress"):
                notes.append(self.tr("{name}: defender +1").format(name=self.tr.kind(kind)))
            elif kind == "arena":
                notes.append(self.tr("Arena: both roll a die"))
        blocked = spec is not None and spec.kind.value == "mountains"
        result = ""
        if b.winner is not None:
            result = self.tr("{name} wins by {n}").format(name=self.describe.name(b.winner), n=b.margin)
        stage = self._stage(b)
        head = s.pending[0] if s.pending else None
        if head is not None:  # what the battle waits for says where it is better than the next stage
            stage = _waiting_step(head, stage)

        def card(played: bool, card_id: str | None, value: int) -> str:
            if not played:
                return "?"
            if not b.revealed:
                return self.tr("hidden")
            return f"{self.describe.card(card_id)} = {value}" if card_id else f"{self.tr('no card')} = 0"

        return BattleView(
            b.territory,
            name,
            b.attacker,
            b.defender,
            a,
            d,
            stage,
            tuple(s.actors()),
            blocked,
            tuple(notes),
            result,
            card(b.attacker_played, b.attacker_conflict, b.attacker_conflict_value),
            card(b.defender_played, b.defender_conflict, b.defender_conflict_value),
        )

    # ----------------------------------------------------------------------------------------- options

    def options(self) -> list[Option]:
        """Cached per position: several presenters ask after every move."""
        key = ("options", len(self.actions), id(self.state), self.tr.lang)
        if self._cache.get("options", (None,))[0] != key:
            self._cache["options"] = (key, self._options_now())
        return list(self._cache["options"][1])

    def _options_now(self) -> list[Option]:
        s = self.state
        if s.winner is not None:
            return []
        legal = list(rules.legal_actions(s).capped(MAX_OPTIONS_PER_KIND))  # lazy: 6**n dice alone
        out: list[Option] = []
        per_kind: dict[type[A.Action], int] = {}
        seen_labels: set[tuple[type[A.Action], Colour, str]] = set()
        for a in legal:
            if isinstance(a, A.RollDice):  # dice are an input: one ROLL option below, filled by the roller
                continue
            opt = self._option(a, True, None)
            key = (type(a), a.player, opt.label)
            if key in seen_labels:  # identical cards (two "+1 support") are one button
                continue
            seen_labels.add(key)
            per_kind[type(a)] = per_kind.get(type(a), 0) + 1
            if per_kind[type(a)] <= MAX_OPTIONS_PER_KIND:
                out.append(opt)
        head = s.pending[0] if s.pending else None
        if isinstance(head, DiceRoll):
            what = self.tr(head.purpose.value)
            out.append(
                Option(
                    "roll",
                    (
                        self.tr("Roll a die for the {what}").format(what=what)
                        if head.n == 1
                        else self.tr("Roll {n} dice for {what}").format(n=head.n, what=what)
                    ),
                    OptionKind.ROLL,
                    head.actor,
                    True,
                    VerdictView(True, ""),
                    None,
                    step=self._stage(s.battle),
                    value=head.n,
                )
            )
        legal_types = {type(a) for a in legal}
        advance_targets = {a.target for a in legal if isinstance(a, A.Advance)}
        for cand in self._candidates(s):
            if type(cand) in legal_types and not (
                isinstance(cand, A.Advance) and cand.target not in advance_targets
            ):
                continue
            v = rules.check(s, cand)
            if not v.ok:
                out.append(self._option(cand, False, v))
        return out

    def _candidates(self, s: GameState, always: bool = False) -> list[A.Action]:
        """The usual things a player might try now, so the engine can say why each one is refused. During a
        battle or a pending decision only the referee asks (`always`)."""
        if (s.battle is not None or s.pending) and not always:
            return []
        me = s.current
        cands: list[A.Action] = [
            A.PlayCallToArms(me),
            A.PlayTacticalAdvance(me),
            A.UseCrown(me),
            A.SkipAdvance(me),
            A.EndTurn(me),
        ]
        castle = max(1, s.players[me].castle)
        for tid in s.data.territories:
            if s.controller(tid) is not me:
                cands.append(A.Advance(me, tid, min(castle, s.data.capacity.get(tid, 6))))
        return cands

    def _option(self, a: A.Action, enabled: bool, verdict: Any) -> Option:
        kind = OptionKind(rules.MOVE_OF[type(a)].kind_of(a).value)  # declared with the move (`Move.kind`)
        target = getattr(a, "target", None)
        if isinstance(target, str) and kind is OptionKind.ADVANCE:
            tgt: str | None = target
        elif kind is OptionKind.FRACTURE:
            tgt = target
        else:
            tgt = None
        value = getattr(a, "knights", None)
        if kind is OptionKind.CONFLICT:
            value = self.describe.card_value(getattr(a, "card", None))
        # The facts behind a refusal are worked out when someone asks (`check`), not for every greyed button.
        v = VerdictView(True, self.tr("Allowed.")) if enabled else self._verdict_view(verdict)
        step = self._stage(self.state.battle) if self.state.battle else self._step(self.state)
        return Option(
            key=repr(a),
            label=self.describe.option(a),
            kind=kind,
            actor=a.player,
            enabled=enabled,
            verdict=v,
            action=a,
            step=step,
            value=value,
            target=tgt,
            target_name=self.describe.place(tgt)
            if kind is OptionKind.ADVANCE and tgt
            else (self.describe.artefact(tgt) if tgt else ""),
        )

    def facts(self, a: A.Action) -> tuple[str, ...]:
        """The state facts a verdict rests on, in words."""
        s = self.state
        d = self.describe
        out = [self.tr("{name}'s turn, turn {n}").format(name=d.name(s.current), n=s.turn)]
        me = a.player
        out.append(
            self.tr("{name} has {n} knights in the castle").format(name=d.name(me), n=s.players[me].castle)
        )
        target = getattr(a, "target", None)
        if isinstance(target, str) and target in s.data.territories:
            ctrl = s.controller(target)
            k = sum(s.knights_at(target).values())
            holder = d.name(ctrl) if ctrl is not None else self.tr("nobody")
            out.append(
                self.tr("{place}: held by {who} with {n} knights (capacity {cap})").format(
                    place=d.place(target), who=holder, n=k, cap=s.data.capacity.get(target, 6)
                )
            )
            near = [t for t in s.data.reach.get(target, frozenset()) if s.controller(t) is me]
            if near:
                sup = [t for t in near if s.has_supply(me, t)]
                out.append(
                    self.tr("{name}'s territories next to it: {tiles}; with supply: {sup}").format(
                        name=d.name(me),
                        tiles=", ".join(d.place(t) for t in near),
                        sup=", ".join(d.place(t) for t in sup) or self.tr("none"),
                    )
                )
            elif s.data.castle_of.get(me) in s.data.reach.get(
                target, frozenset()
            ) or target in s.data.reach.get(s.data.castle_of.get(me, ""), frozenset()):
                out.append(self.tr("It borders {name}'s castle").format(name=d.name(me)))
            else:
                out.append(self.tr("{name} holds nothing next to it").format(name=d.name(me)))
        if s.crown_used:
            out.append(self.tr("The crown was already used this turn"))
        return tuple(out)

    def check(self, action: A.Action) -> VerdictView:
        v = rules.check(self.state, action)
        return self._verdict_view(v, self.facts(action))

    def _verdict_view(self, v: Any, facts: tuple[str, ...] = ()) -> VerdictView:
        """The engine's verdict in the active language (its English sentence and citation translated)."""
        words = self.describe.engine
        fallback = self.tr("Allowed.") if v.ok else self.tr("Not allowed.")
        sentence = words.sentence(str(v.sentence), fallback)
        return VerdictView(bool(v.ok), sentence, words.citation(str(v.citation)), v.reason.value, facts)

    def redistribution(self, counts: Mapping[str, int]) -> Any:
        from engine.actions import Redistribute

        s = self.state
        me = s.actors()[0] if s.actors() else s.current
        changed = tuple(
            sorted((loc, int(n)) for loc, n in counts.items() if s.knights_at(loc).get(me, 0) != n)
        )
        return Redistribute(me, changed)

    def complete(self, option: Option, values: tuple[int, ...], source: str) -> Any:
        from engine.actions import RollDice
        from engine.state import DiceSource

        kind = source.split(maxsplit=1)[0].split("#", maxsplit=1)[0].lower()
        src = {
            "device": DiceSource.DEVICE,
            "screen": DiceSource.SCREEN,
            "typed": DiceSource.TYPED,
            "camera": DiceSource.CAMERA,
        }.get(kind, DiceSource.SIMULATION)
        who = option.actor if option.actor is not None else self.state.current
        return RollDice(who, tuple(values), src)

    # --------------------------------------------------------------------------------------- applying

    def apply(self, action: A.Action) -> list[EventLine]:
        s = self.state
        v = rules.check(s, action)
        if not v.ok:
            raise RefusedError(self._verdict_view(v, self.facts(action)))
        new_state, events = rules.apply(s, action)
        words = self.describe.action(action, events, s)
        seq = len(self.actions)
        # Durable first: the screen never shows a move the database does not have (R90).
        self.storage.append(self.game_id, seq, action.to_json(), words, _state_json(new_state))
        self.states.append(new_state)
        self.actions.append(action)
        self.events.append(tuple(events))
        expl = self._explained
        if expl is not None:
            start, path = expl
            done = tuple(self.actions[start:])
            if done == path:  # the camera's proposal is in: the table matches the game again
                self.matched_at = len(self.actions)
                self._explained = None
            elif done != path[: len(done)]:
                self._explained = None
        line = EventLine(seq, words, action.player, new_state.turn)
        self.lines.append(line)
        return [line]

    def history(self) -> list[EventLine]:
        return list(self.lines)

    def undo(self) -> None:
        if self.actions:
            self.rewind_to(len(self.actions) - 1)

    def rewind_to(self, index: int) -> None:
        """Keep the first `index` actions."""
        index = max(0, min(index, len(self.actions)))
        self.storage.truncate(self.game_id, index)
        del self.states[index + 1 :]
        del self.actions[index:]
        del self.events[index:]
        del self.lines[index:]
        self.matched_at = min(self.matched_at, index)
        self._explained = None

    # ----------------------------------------------------------------------------------------- referee

    def referee_topics(self) -> list[Option]:
        """Everything possible now, and the usual questions ("may I use my crown now?") with the engine's
        answer, refused ones first: those are what people argue about."""
        opts = self.options()
        have = {o.key for o in opts}
        s = self.state
        if s.winner is None and (s.battle is not None or s.pending):
            for cand in self._candidates(s, always=True):
                if repr(cand) in have:
                    continue
                v = rules.check(s, cand)
                opts.append(self._option(cand, bool(v.ok), None if v.ok else v))
        opts.sort(key=lambda o: (o.enabled, o.kind is OptionKind.ADVANCE, o.kind.value))
        return opts

    # ------------------------------------------------------------------------------------------ camera

    def recent_events(self, upto: int | None = None) -> tuple[ev.Event, ...]:
        """The events of the actions applied since the camera last saw the table match the game: knights
        these removed or placed may still stand (or be missing) on the table."""
        n = len(self.actions) if upto is None else upto
        return tuple(e for evs in self.events[self.matched_at : n] for e in evs)

    def propose(self, reading: Any) -> Proposal:
        """Runs on a worker thread (the table presenter's runner): reads the lists once, writes two marks."""
        states = self.states
        n = len(states) - 1
        state = states[n]
        rec = reconcile(state, reading, recent=self.recent_events(n))
        frame = int(getattr(reading, "frame_index", 0))
        discs = tuple(
            Discrepancy(d.location, dict(d.seen), dict(d.expected), self.describe.engine.sentence(d.sentence))
            for d in getattr(rec, "discrepancies", ()) or ()
        )
        if discs:
            return Proposal(discrepancies=discs, frame_index=frame)
        actions = tuple(getattr(rec, "actions", ()) or ())
        if not actions:
            self.matched_at = n
            return Proposal(frame_index=frame)
        self._explained = (n, actions)
        opts = tuple(self._option(a, True, None) for a in actions)
        return Proposal(options=opts, frame_index=frame)

    def score_curve(self) -> dict[Colour, list[int]]:
        """Scores at the end of every turn (and now)."""
        curve: dict[Colour, list[int]] = {c: [0] for c in self.states[0].order}
        prev = self.states[0]
        for st in self.states[1:]:
            if st.turn != prev.turn:
                for c, points in curve.items():
                    points.append(prev.score(c))
            prev = st
        for c, points in curve.items():
            points.append(prev.score(c))
        return curve


def _state_json(state: Any) -> dict[str, Any]:
    """The state as JSON when the engine can save it (engine.save); {} when it cannot yet."""
    try:
        return dict(state.to_json())
    except (ImportError, AttributeError, NotImplementedError):
        return {}


class EngineFactory:
    """The app's `GameFactory`: new games from the new-game screen, and resumed games from the database."""

    def __init__(
        self,
        storage: Storage,
        tr: Translator | None = None,
        knowledge: str = "table",
        catalogue: Any = None,
        board_provider: Any = None,
    ) -> None:
        self.storage = storage
        self.tr = tr or Translator()
        self.knowledge = knowledge
        self.catalogue = catalogue
        self.board_provider = board_provider  # () -> Board read by the camera, for MapSource.CAMERA

    def new_session(self, config: NewGameConfig, board: Any = None) -> EngineSession:
        if board is None and config.map_source is MapSource.CAMERA and self.board_provider is not None:
            board = self.board_provider()
        return EngineSession.create(
            config, self.storage, self.tr, catalogue=self.catalogue, board=board, knowledge=self.knowledge
        )

    def resume(self, game_id: int) -> EngineSession:
        return EngineSession.resume(self.storage, game_id, self.tr)
