"""The battle wizard: the 9-step order of battle with both combat scores live. It prompts only the players the
engine says can act; rolls come from the roller (worker thread, posted back through the UI clock), the screen
or typed physical dice; when the battle ends it sums up what happened.

Conflict cards (R94): with real cards (a TABLE game, the default) the players follow the table's ritual —
both lay a card face down, reveal them together, then enter both values here. When the app holds the cards,
each player chooses on the tablet in turn, behind a pass-the-tablet cover, and both are applied together."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from companion.errors import RollNotTakenError
from companion.i18n import Translator
from companion.presenters.base import Presenter
from companion.services import (
    BattleOutcome,
    BattleView,
    EventLine,
    GameSession,
    Option,
    OptionKind,
    RefusedError,
    Roller,
    RollResult,
    UiClock,
    VerdictView,
)
from engine.colours import Colour

BATTLE_STAGES: tuple[str, ...] = (
    "Territory abilities",
    "Draw up to five",
    "Sceptres",
    "Conflict cards",
    "Support cards",
    "Result",
    "Orbs",
    "Losses and retreat",
    "Conquest abilities",
)


# Options that show a player's hand when the app holds the cards: they are chosen behind a cover.
PRIVATE_KINDS = frozenset({OptionKind.CONFLICT, OptionKind.SUPPORT, OptionKind.ABILITY})


@dataclass(frozen=True, slots=True)
class StageItem:
    number: int
    title: str
    state: str  # "done" | "current" | "todo"


class Ritual(Enum):
    """The conflict cards of a game with real cards, step by step as at the table."""

    LAY = "lay"  # both lay a conflict card face down
    ENTER = "enter"  # revealed: enter what both show


@dataclass(frozen=True, slots=True)
class BattleSummary:
    """What the battle came to, in words, shown until the next move or "back to the table"."""

    headline: str
    attacker: tuple[Colour, str, int]  # (colour, name, final combat score)
    defender: tuple[Colour, str, int]
    winner: Colour | None
    lines: tuple[str, ...]  # cards, knights lost, retreat, conquest
    index: int  # actions applied when it ended


class BattlePresenter(Presenter):
    def __init__(
        self,
        session: GameSession,
        roller: Roller,
        clock: UiClock,
        tr: Translator | None = None,
        *,
        on_applied: Callable[[list[EventLine]], None] | None = None,
        threaded_rolls: bool = True,
    ) -> None:
        super().__init__()
        self.session = session
        self.roller = roller
        self.clock = clock
        self.tr = tr or Translator()
        self.on_applied = on_applied
        self.threaded_rolls = threaded_rolls
        self.explanation: VerdictView | None = None
        self.hidden: dict[Colour, Option] = {}  # conflict cards chosen face-down, not yet revealed
        self.revealed: dict[Colour, Option] = {}
        self.last_roll: RollResult | None = None
        self.rolling = False
        self.roll_problem = ""  # the last roll failed: shown with "roll again" / "roll on the tablet"
        self.battle: BattleView | None = None
        self.hands_in_app = False
        self.summary: BattleSummary | None = None
        self.cards_down = False  # table ritual: both conflict cards lie face down, ready to reveal
        self.picked: dict[Colour, Option] = {}  # table ritual: what each revealed card is
        self._shown_to: Colour | None = None  # whose hand the tablet shows (cards held by the app)
        self.on_roll: Callable[[RollResult, Option], None] | None = None  # every roll, for the dice panel
        self._options: list[Option] = []
        self.reload()

    # ------------------------------------------------------------------------------------------ views

    def reload(self) -> None:
        snap = self.session.snapshot()
        self.battle = snap.battle
        self.hands_in_app = snap.hands_in_app
        if self.battle is None:
            self._options = []
            self.hidden.clear()
            self._shown_to = None
            if snap.last_battle is not None:
                self.summary = self._summary(snap.last_battle)
        else:
            self._options = self.session.options()
            self.summary = None
            if self.battle.stage != 4 or not self.conflict_waiting():
                self.hidden.clear()
                self.cards_down = False
                self.picked.clear()
        self.changed()

    def _summary(self, o: BattleOutcome) -> BattleSummary:
        names = {p.colour: p.name for p in self.session.snapshot().players}
        tr = self.tr
        a, d = names.get(o.attacker, "-"), names.get(o.defender, "-")
        if o.winner is None:
            headline = tr("The battle for {territory} ended without a winner").format(
                territory=o.territory_name
            )
        else:
            headline = tr("{name} wins the battle for {territory}").format(
                name=names.get(o.winner, "-"), territory=o.territory_name
            )
        lines: list[str] = []
        if o.attacker_card or o.defender_card:
            lines.append(
                tr("Conflict cards: {a} {acard} · {d} {dcard}").format(
                    a=a, acard=o.attacker_card or "-", d=d, dcard=o.defender_card or "-"
                )
            )
        for colour, n in o.lost:
            who = names.get(colour, "-")
            lines.append(
                tr("{name} loses 1 knight").format(name=who)
                if n == 1
                else tr("{name} loses {n} knights").format(name=who, n=n)
            )
        for colour, n in o.retreated:
            who = names.get(colour, "-")
            if n == 1:
                lines.append(tr("{name} retreats 1 knight to the castle").format(name=who))
            elif n > 1:
                lines.append(tr("{name} retreats {n} knights to the castle").format(name=who, n=n))
        if o.winner is not None:
            who = names.get(o.winner, "-")
            lines.append(
                tr("{name} conquers {territory}").format(name=who, territory=o.territory_name)
                if o.conquered
                else tr("{name} holds {territory}").format(name=who, territory=o.territory_name)
            )
        return BattleSummary(
            headline,
            (o.attacker, a, o.attacker_score),
            (o.defender, d, o.defender_score),
            o.winner,
            tuple(lines),
            o.index,
        )

    def dismiss_summary(self) -> None:
        self.summary = None
        self.changed()

    @property
    def active(self) -> bool:
        return self.battle is not None

    def stages(self) -> list[StageItem]:
        stage = self.battle.stage if self.battle else 0
        return [
            StageItem(i, self.tr(t), "done" if i < stage else "current" if i == stage else "todo")
            for i, t in enumerate(BATTLE_STAGES, start=1)
        ]

    def prompted(self) -> Colour | None:
        """The one player asked now (windows go player by player in rulebook order, as the engine says)."""
        if self.battle is None or not self.battle.waiting_for:
            return None
        if self.battle.stage == 4:
            for c in self.battle.waiting_for:
                if c not in self.hidden:
                    return c
            return None
        return self.battle.waiting_for[0]

    def options_for_prompted(self) -> list[Option]:
        who = self.prompted()
        if who is None:
            return [o for o in self._options if o.actor is None]
        mine = [o for o in self._options if o.actor is who]
        # "Nobody else plays a fracture card" first: in most windows that one tap closes it.
        return sorted(mine, key=lambda o: o.kind is not OptionKind.PASS_ALL)

    # ------------------------------------------------------------------- conflict cards: the table's ritual

    def conflict_waiting(self) -> bool:
        """Conflict cards are to be played now."""
        return any(o.kind is OptionKind.CONFLICT for o in self._options)

    def ritual(self) -> Ritual | None:
        """With real cards: where the ritual stands (None when no conflict cards are due, or the app holds
        the cards)."""
        if self.hands_in_app or self.battle is None or not self.conflict_waiting():
            return None
        return Ritual.ENTER if self.cards_down else Ritual.LAY

    def lay_cards(self) -> None:
        """Both conflict cards lie face down on the table: reveal them, then enter what they show."""
        self.cards_down = True
        self.explanation = None
        self.changed()

    def conflict_choices(self) -> list[tuple[Colour, list[Option]]]:
        """Per player who still plays a conflict card (attacker first): the cards they may have played."""
        b = self.battle
        if b is None:
            return []
        order = sorted(b.waiting_for, key=lambda c: 0 if c is b.attacker else 1)
        out = []
        for c in order:
            cards = [o for o in self._options if o.kind is OptionKind.CONFLICT and o.actor is c]
            if cards:
                out.append((c, cards))
        return out

    def pick(self, option: Option) -> None:
        """What a revealed card shows (tap again to change it)."""
        if option.actor is None:
            return
        if self.picked.get(option.actor) == option:
            del self.picked[option.actor]
        else:
            self.picked[option.actor] = option
        self.explanation = None
        self.changed()

    def can_enter(self) -> bool:
        return bool(self.picked) and all(c in self.picked for c, _cards in self.conflict_choices())

    def enter_cards(self) -> list[EventLine]:
        """Both revealed cards into the game, attacker first (the engine takes them in that order)."""
        if not self.can_enter():
            self.explanation = VerdictView(False, self.tr("Enter the card each player revealed."), "")
            self.changed()
            return []
        chosen = [self.picked[c] for c, _cards in self.conflict_choices()]
        self.revealed = {o.actor: o for o in chosen if o.actor is not None}
        self.picked.clear()
        self.cards_down = False
        return self._apply(chosen)

    # ---------------------------------------------------------------- cards held by the app: the cover

    def cover_for(self) -> Colour | None:
        """When the app holds the cards and the prompted player's choices show their hand: the player to hand
        the tablet to, before anything of theirs is shown. None: nothing to hide."""
        if not self.hands_in_app or self.summary is not None:
            return None
        who = self.prompted()
        if who is None or who is self._shown_to:
            return None
        private = any(o.kind in PRIVATE_KINDS for o in self.options_for_prompted())
        return who if private else None

    def uncover(self) -> None:
        """The player the tablet was passed to looks at their choices."""
        self._shown_to = self.prompted()
        self.changed()

    def conflict_status(self) -> list[tuple[Colour, str]]:
        """Per battling player, in words: no conflict card yet, one lying face down (chosen here, or already
        with the engine), or the revealed card."""
        b = self.battle
        if b is None:
            return []
        out = []
        for c, engine_side in ((b.attacker, b.attacker_card), (b.defender, b.defender_card)):
            if engine_side == "hidden" or (engine_side == "?" and c in self.hidden):
                out.append((c, self.tr("card face down")))
            elif engine_side == "?":
                out.append((c, self.tr("no conflict card yet")))
            else:
                out.append((c, engine_side))
        return out

    # ----------------------------------------------------------------------------------------- input

    def tap(self, option: Option) -> list[EventLine]:
        if not option.enabled:
            self.explanation = option.verdict
            self.changed()
            return []
        self.explanation = None
        if option.kind is OptionKind.CONFLICT and option.actor is not None:
            if not self.hands_in_app:
                self.pick(option)
                return []
            return self._choose_conflict(option.actor, option)
        if option.kind is OptionKind.ROLL:
            self.roll(option)
            return []
        return self._apply([option])

    def _choose_conflict(self, who: Colour, option: Option) -> list[EventLine]:
        self.hidden[who] = option
        assert self.battle is not None
        waiting = [c for c in self.battle.waiting_for if c not in self.hidden]
        if waiting:
            self._shown_to = None  # covered again until the next player has the tablet
            self.changed()  # the next player enters theirs; nothing shown
            return []
        # Everyone has chosen: reveal together (attacker first, as the engine expects them in that order).
        chosen = sorted(self.hidden.items(), key=lambda kv: 0 if kv[0] is self.battle.attacker else 1)  # type: ignore[union-attr]
        self.revealed = dict(chosen)
        self.hidden.clear()
        return self._apply([o for _c, o in chosen])

    def take_back_conflict(self, who: Colour) -> None:
        """A player changes their mind before the reveal."""
        self.hidden.pop(who, None)
        self.changed()

    def roll(self, option: Option) -> None:
        """Roll with the roller off the UI thread; the result is applied back on the UI thread. When the
        roller may have rolled dice the app never received, nothing is rolled in its place: the players are
        told to roll again (`RollNotTakenError`). Any other failure is shown too, with the way on (roll
        again, roll on the tablet, or type the dice)."""
        n = max(1, option.value or 1)
        self.rolling = True
        self.roll_problem = ""
        self.changed()

        def work() -> None:
            try:
                result = self.roller.roll(n)
            except RollNotTakenError:
                again = self.tr(RollNotTakenError.SENTENCE)
                self.clock.schedule_once(lambda _dt: self._roll_failed(again), 0)
                return
            except Exception as exc:  # a broken roller never ends the battle, and never rolls silently
                text = self.tr("The dice roller failed ({error}): roll again, or roll on the tablet.").format(
                    error=str(exc) or type(exc).__name__
                )
                self.clock.schedule_once(lambda _dt: self._roll_failed(text), 0)
                return
            self.clock.schedule_once(lambda _dt: self._rolled(option, result), 0)

        if self.threaded_rolls:
            threading.Thread(target=work, name="battle-roll", daemon=True).start()
        else:
            work()

    def _roll_failed(self, text: str) -> None:
        self.rolling = False
        self.roll_problem = text
        self.explanation = VerdictView(False, text, "")
        self.changed()

    def screen_roll(self, option: Option) -> list[EventLine]:
        """The players chose to roll on the tablet (the roller is away or failing)."""
        if not option.enabled or option.kind is not OptionKind.ROLL or self.rolling:
            return []
        return self._rolled(option, _screen_roll(max(1, option.value or 1)))

    def pending_roll(self) -> Option | None:
        """The roll the battle waits for now, if any."""
        if self.battle is None or self.rolling:
            return None
        return next((o for o in self._options if o.kind is OptionKind.ROLL and o.enabled), None)

    def button_roll(self, result: RollResult) -> bool:
        """A roll made with the roller's own button (posted to the UI thread): it is THE roll when the battle
        waits for exactly that many dice; otherwise it stays in the dice panel and the players are told."""
        want = self.pending_roll()
        if want is None:
            return False
        n = max(1, want.value or 1)
        if len(result.values) != n:
            text = self.tr("The roller's button rolled {got} dice; this roll needs {n}: roll again.").format(
                got=len(result.values), n=n
            )
            self.explanation = VerdictView(False, text, "")
            self.changed()
            return False
        self._rolled(want, result)
        return True

    def enter_roll(self, option: Option, values: tuple[int, ...]) -> list[EventLine]:
        """Physical dice typed in by the players."""
        if not values or any(v < 1 or v > 6 for v in values):
            self.explanation = VerdictView(False, self.tr("A die shows 1 to 6."), "")
            self.changed()
            return []
        return self._rolled(option, RollResult(values, "typed"))

    def _rolled(self, option: Option, result: RollResult) -> list[EventLine]:
        self.rolling = False
        self.roll_problem = ""
        self.explanation = None
        self.last_roll = result
        if self.on_roll is not None:
            self.on_roll(result, option)
        action = self.session.complete(option, result.values, result.source)
        return self._apply_actions([action])

    def _apply(self, options: list[Option]) -> list[EventLine]:
        return self._apply_actions([o.action for o in options])

    def _apply_actions(self, actions: list[object]) -> list[EventLine]:
        events: list[EventLine] = []
        try:
            for a in actions:
                events.extend(self.session.apply(a))
        except RefusedError as exc:
            self.explanation = exc.verdict
        self.reload()
        if self.battle is None or self.battle.stage < 4:
            self.revealed = {}  # the cards stay shown as reference until the battle ends
        if self.on_applied is not None and events:
            self.on_applied(events)
        return events


def _screen_roll(n: int) -> RollResult:
    import secrets

    return RollResult(tuple(secrets.randbelow(6) + 1 for _ in range(n)), "screen")
