"""The camera panel: live preview with the reading drawn on it, status and reconnect."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from companion.presenters.base import Presenter
from companion.services import FeedStatus, MapConfirming, ReadingFeed, UiClock


class CameraPresenter(Presenter):
    """Owns the feed's lifecycle. Feed callbacks come on its worker thread and are posted to the UI thread."""

    def __init__(
        self, feed: ReadingFeed | None, clock: UiClock, on_reading: Callable[[Any], None] | None = None
    ) -> None:
        super().__init__()
        self.feed = feed
        self.clock = clock
        self.on_reading = on_reading
        self.status = FeedStatus.OFF if feed is None else feed.status
        self.status_text = "camera off" if feed is None else feed.status_text
        self.readings = 0

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
        self.stop()
        self.status = FeedStatus.STARTING
        self.status_text = "reconnecting"
        self.changed()
        self.start()

    def confirm_map(self, tiles: Mapping[tuple[int, int], str]) -> None:
        """The game's map, as the owner confirmed it (a game started or resumed): the camera keeps it."""
        if isinstance(self.feed, MapConfirming):
            self.feed.confirm_map(tiles)

    def preview(self) -> Any:
        return None if self.feed is None else self.feed.latest_preview()

    def _reading_from_worker(self, reading: Any) -> None:
        self.clock.schedule_once(lambda _dt: self._reading(reading), 0)

    def _status_from_worker(self, status: FeedStatus, text: str) -> None:
        self.clock.schedule_once(lambda _dt: self._status(status, text), 0)

    def _reading(self, reading: Any) -> None:
        self.readings += 1
        if self.on_reading is not None:
            self.on_reading(reading)
        self.changed()

    def _status(self, status: FeedStatus, text: str) -> None:
        self.status = status
        self.status_text = text
        self.changed()
