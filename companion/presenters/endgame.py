"""End of game: the winner, every player's victory-point curve over the turns, saved to the score history."""

from __future__ import annotations

from companion.i18n import Translator
from companion.presenters.base import Presenter
from companion.services import GameSession, PlayerRecord, Storage
from engine.colours import Colour


class EndGamePresenter(Presenter):
    def __init__(
        self, session: GameSession, storage: Storage, game_id: int, tr: Translator | None = None
    ) -> None:
        super().__init__()
        self.session = session
        self.storage = storage
        self.game_id = game_id
        self.tr = tr or Translator()
        self.saved = False

    def headline(self) -> str:
        names = self.winners()
        if not names:
            return self.tr("The game is over")
        return self.tr("Winner: {names}").format(names=", ".join(names))

    def ranking(self) -> list[tuple[int, Colour, str, int]]:
        """(place, colour, name, points), best first; equal points share a place."""
        snap = self.session.snapshot()
        players = sorted(snap.players, key=lambda p: -p.score)
        out: list[tuple[int, Colour, str, int]] = []
        for i, p in enumerate(players):
            place = out[-1][0] if out and out[-1][3] == p.score else i + 1
            out.append((place, p.colour, p.name, p.score))
        return out

    def record_text(self, rec: PlayerRecord) -> str:
        """One player's history in words ("1 game" but "2 games")."""
        tr = self.tr
        games = tr("1 game") if rec.games == 1 else tr("{n} games").format(n=rec.games)
        wins = tr("1 win") if rec.wins == 1 else tr("{n} wins").format(n=rec.wins)
        return tr("{games}, {wins}, {avg:.1f} points on average").format(
            games=games, wins=wins, avg=rec.average_points
        )

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
        return self.history()

    def history(self) -> list[PlayerRecord]:
        """The score history with players called by their colour named in the active language, one record
        per name shown (a "Blue" of English games and a "Blauw" of Dutch ones are the same player)."""
        merged: dict[str, PlayerRecord] = {}
        for rec in self.storage.score_history():
            name = self.tr.player_name(rec.name)
            had = merged.get(name, PlayerRecord(name, 0, 0, 0.0))
            games = had.games + rec.games
            points = had.average_points * had.games + rec.average_points * rec.games
            merged[name] = PlayerRecord(name, games, had.wins + rec.wins, points / games)
        return sorted(merged.values(), key=lambda r: (-r.wins, -r.average_points, r.name))
