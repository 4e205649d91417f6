"""End of game: the winner, every player's victory-point curve over the turns, saved to the score history."""

from __future__ import annotations

from companion.presenters.base import Presenter
from companion.services import GameSession, PlayerRecord, Storage
from engine.colours import Colour


class EndGamePresenter(Presenter):
    def __init__(self, session: GameSession, storage: Storage, game_id: int) -> None:
        super().__init__()
        self.session = session
        self.storage = storage
        self.game_id = game_id
        self.saved = False

    def winners(self) -> list[str]:
        snap = self.session.snapshot()
        return [snap.player(c).name for c in snap.winner]

    def curves(self) -> dict[Colour, list[int]]:
        return {c: list(v) for c, v in self.session.score_curve().items()}

    def chart_bounds(self) -> tuple[int, int]:
        """(turns, max points) so that every curve and the target line fit."""
        curves = self.curves()
        turns = max((len(v) for v in curves.values()), default=1)
        top = max([self.session.snapshot().target, *(max(v, default=0) for v in curves.values())])
        return max(1, turns), max(1, top)

    def save(self) -> list[PlayerRecord]:
        """Record the result once (idempotent) and return the updated score history."""
        if not self.saved:
            snap = self.session.snapshot()
            self.storage.finish(
                self.game_id,
                {p.colour.value: p.score for p in snap.players},
                {p.colour.value: p.name for p in snap.players},
                [c.value for c in snap.winner],
            )
            self.saved = True
            self.changed()
        return self.storage.score_history()
