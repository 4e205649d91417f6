"""Referee: pick an action or a dispute topic and get the engine's verdict in one sentence, the rule's section
and page, and the facts of the game it rests on. The rulebook summaries are browsable and searchable."""

from __future__ import annotations

from companion.i18n import Translator
from companion.presenters.base import Presenter
from companion.rulebook import SECTIONS, Section, search
from companion.services import GameSession, Option, VerdictView


class RefereePresenter(Presenter):
    def __init__(self, session: GameSession, tr: Translator | None = None) -> None:
        super().__init__()
        self.session = session
        self.tr = tr or Translator()
        self.topics: list[Option] = []
        self.selected: Option | None = None
        self.verdict: VerdictView | None = None
        self.query = ""
        self.section: Section | None = None
        self.reload()

    def reload(self) -> None:
        self.topics = self.session.referee_topics()
        self.changed()

    def ask(self, topic: Option) -> VerdictView:
        """The verdict is recomputed now (the state may have moved since the list was built)."""
        self.selected = topic
        self.verdict = self.session.check(topic.action) if topic.action is not None else topic.verdict
        self.changed()
        return self.verdict

    def sections(self) -> list[Section]:
        return search(self.query, self.tr) if self.query else list(SECTIONS)

    def set_query(self, query: str) -> None:
        self.query = query
        self.changed()

    def open_section(self, section: Section | None) -> None:
        self.section = section
        self.changed()

    def cited_section(self) -> Section | None:
        """The summary for the verdict's citation (by page number: "p. 11", "s. 11" in each edition's
        words), so one tap shows the rule."""
        if self.verdict is None:
            return None
        import re

        numbers = re.findall(r"\b(\d{1,2})\b", self.verdict.citation)
        if not numbers:
            return None
        page = int(numbers[-1])  # "Battle §3, p. 11": the page comes last
        words = self.verdict.citation.lower()
        best = [s for s in SECTIONS if s.page == page]
        for s in best:
            if s.title.lower() in words or self.tr(s.title).lower() in words:
                return s
        return best[0] if best else None

    def page(self, section: Section) -> str:
        """ "p. 11" in the active language's way of citing a page."""
        return self.tr("p. {n}").format(n=section.page)
