"""The camera panel: the live preview with what was read drawn on it, a status that says what the camera is
doing in words (and what to do about it), and a summary of the last reading: tiles, knights per player, and
the places it is unsure of, grouped by why, in words that say what the players can do about it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.i18n import N_, Translator
from companion.presenters.base import Presenter
from companion.services import ConfirmedMap, FeedStatus, MapConfirming, ReadingFeed, UiClock
from companion.status_text import say
from engine.colours import Colour
from engine.reading import Doubt

# What the players read for each doubt (`engine.reading.Doubt`), with what they can do about it; None: the
# camera did not say why.
DOUBT_WORDS: dict[Doubt | None, str] = {
    Doubt.HAND: N_("Under a hand: {places}"),
    Doubt.OUT_OF_VIEW: N_("Out of view: {places}"),
    Doubt.UNMEASURED: N_("Dice not measured yet (put one alone on its owner's castle): {places}"),
    Doubt.STRANGER: N_("A die unlike its castle's owner's: {places}"),
    Doubt.COLOUR: N_("Whose die it is, unclear: {places}"),
    Doubt.PIPS: N_("A die's pips, unclear: {places}"),
    Doubt.UNREAD: N_("Something not read as dice: {places}"),
    Doubt.NEVER_BARE: N_("Never seen empty, so a die may be missed: {places}"),
    Doubt.CHANGING: N_("Just changed, looking again: {places}"),
    None: N_("Unsure: {places}"),
}


@dataclass(frozen=True, slots=True)
class Unsure:
    """Places the camera does not vouch for, for one reason (None: it did not say why)."""

    why: Doubt | None
    places: tuple[str, ...]  # place names, sorted


@dataclass(frozen=True, slots=True)
class ReadSummary:
    """The last stable reading, counted."""

    tiles: int
    knights: tuple[tuple[Colour, int], ...]  # per player, in colour order
    unsure: tuple[Unsure, ...]  # most useful reason first (`Doubt`'s order), the unexplained last

    @property
    def total_knights(self) -> int:
        return sum(n for _c, n in self.knights)


class CameraPresenter(Presenter):
    """Owns the feed's lifecycle. Feed callbacks come on its worker thread and are posted to the UI thread."""

    def __init__(
        self,
        feed: ReadingFeed | None,
        clock: UiClock,
        on_reading: Callable[[Any], None] | None = None,
        tr: Translator | None = None,
    ) -> None:
        super().__init__()
        self.feed = feed
        self.clock = clock
        self.tr = tr or Translator()
        self.on_reading = on_reading
        self.status = FeedStatus.OFF if feed is None else feed.status
        self.status_text = "camera off" if feed is None else feed.status_text
        self.readings = 0
        self.last_reading: Any = None
        self.place_name: Callable[[str], str] = lambda loc: loc  # tile id -> name (set once a game is on)

    @property
    def enabled(self) -> bool:
        return self.feed is not None

    def start(self) -> None:
        if self.feed is None:
            return
        self.feed.start(self._reading_from_worker, self._status_from_worker)

    def stop(self) -> None:
        if self.feed is not None:
            self.feed.stop()

    def reconnect(self) -> None:
        if self.feed is None:
            return
        self.stop()
        self.status = FeedStatus.STARTING
        self.status_text = "reconnecting"
        self.changed()
        self.start()

    def confirm_map(self, game: ConfirmedMap) -> None:
        """The game's map, as the owner confirmed it (a game started or resumed), for the camera
        (`MapConfirming`)."""
        if isinstance(self.feed, MapConfirming):
            self.feed.confirm_map(game)

    def preview(self) -> Any:
        return None if self.feed is None else self.feed.latest_preview()

    # ------------------------------------------------------------------------------------------ words

    def headline(self) -> str:
        """What the camera is doing, in a sentence a player understands."""
        tr = self.tr
        s = self.status
        if s is FeedStatus.OFF:
            if self.feed is None:
                return tr("No camera: moves are entered by tapping.")
            return tr("The camera is off.")
        if s is FeedStatus.STARTING:
            return tr("Starting the camera...")
        if s is FeedStatus.LOST:
            return tr("The camera is lost: check its cable or connection, then tap Reconnect.")
        if s is FeedStatus.NO_MAP:
            return tr("No map in view: the tiles' stickers must be visible to the camera.")
        summary = self.summary()
        if summary is None:
            return tr("The camera is looking for the map...")
        return tr("Reading the table: {tiles} tiles and {knights} knights seen.").format(
            tiles=summary.tiles, knights=summary.total_knights
        )

    def detail(self) -> str:
        """The reader's own word on the last frame when it adds something ("half a board", "no signal")."""
        text = (self.status_text or "").strip()
        if text.lower() in ("", "ok", "running", "camera off", self.status.value):
            return ""
        return say(self.tr, text)

    def tone(self) -> str:
        """ "good" | "warn" | "bad" | "off", for the status light."""
        return {
            FeedStatus.RUNNING: "good",
            FeedStatus.STARTING: "warn",
            FeedStatus.NO_MAP: "warn",
            FeedStatus.LOST: "bad",
            FeedStatus.OFF: "off",
        }[self.status]

    def summary(self) -> ReadSummary | None:
        r = self.last_reading
        if r is None:
            return None
        per: dict[Colour, int] = {}
        for counts in dict(getattr(r, "knights", {}) or {}).values():
            for c, n in dict(counts).items():
                per[c] = per.get(c, 0) + int(n)
        knights = tuple((c, per[c]) for c in Colour if per.get(c))
        return ReadSummary(len(dict(getattr(r, "tiles", {}) or {})), knights, self._unsure(r))

    def unsure_lines(self, summary: ReadSummary) -> list[str]:
        """One line per reason the camera gave, with its places, for the players to read."""
        tr = self.tr
        return [tr(DOUBT_WORDS[u.why]).format(places=", ".join(u.places)) for u in summary.unsure]

    def _unsure(self, reading: Any) -> tuple[Unsure, ...]:
        doubts = dict(getattr(reading, "doubts", {}) or {})
        places: dict[Doubt | None, list[str]] = {}
        for loc in getattr(reading, "unsure", ()) or ():
            places.setdefault(doubts.get(loc), []).append(self.place_name(loc))
        order = [*Doubt, None]
        return tuple(Unsure(why, tuple(sorted(places[why]))) for why in order if why in places)

    # ------------------------------------------------------------------------------------- from the feed

    def _reading_from_worker(self, reading: Any) -> None:
        self.clock.schedule_once(lambda _dt: self._reading(reading), 0)

    def _status_from_worker(self, status: FeedStatus, text: str) -> None:
        self.clock.schedule_once(lambda _dt: self._status(status, text), 0)

    def _reading(self, reading: Any) -> None:
        self.readings += 1
        self.last_reading = reading
        if self.on_reading is not None:
            self.on_reading(reading)
        self.changed()

    def _status(self, status: FeedStatus, text: str) -> None:
        self.status = status
        self.status_text = text
        self.changed()
