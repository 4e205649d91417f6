"""Referee: pick an action or a question and get the engine's verdict with its citation and the facts it rests
on; the rulebook's sections (our own summaries) browsable and searchable."""

from __future__ import annotations

from functools import partial

from kivy.utils import escape_markup

from companion.controls import button
from companion.presenters.referee import RefereePresenter
from companion.presenters.turn import GROUP_TITLES
from companion.screens.base import BaseScreen
from companion.services import OptionKind
from companion.theme import PALETTE


def _hex(rgba: tuple[float, ...]) -> str:
    return "".join(f"{int(c * 255):02x}" for c in rgba[:3])


class RefereeScreen(BaseScreen):
    def refresh(self) -> None:
        app = self.app_ref
        r: RefereePresenter | None = app.referee
        if r is None:
            return
        tr = self.tr
        if self.changed_key("topics", (tuple((o.key, o.enabled) for o in r.topics[:40]), app.lang)):
            topics = self.ids.topics
            topics.clear_widgets()
            for o in r.topics[:40]:
                title = GROUP_TITLES.get(o.kind)
                label = f"{tr(title)}: {o.label}" if title and o.kind is not OptionKind.END_STEP else o.label
                topics.add_widget(
                    button(
                        label,
                        partial(r.ask, o),
                        role="quiet" if o.enabled else "normal",
                        greyed=not o.enabled,
                    )
                )
        v = r.verdict
        if v is None:
            self.ids.verdict.text = tr("Tap an action or a question to get the ruling.")
            self.ids.verdict_box.edge = [0, 0, 0, 0]
        else:
            facts = "\n".join(f"- {escape_markup(f)}" for f in v.facts)
            colour = _hex(PALETTE.good if v.ok else PALETTE.warn)
            head = tr("Allowed.") if v.ok else tr("Not allowed.")
            self.ids.verdict.text = (
                f"[b][color={colour}]{head}[/color][/b] {escape_markup(v.sentence)}\n"
                f"[i]{escape_markup(v.citation)}[/i]\n{facts}"
            )
            self.ids.verdict_box.edge = list(PALETTE.good if v.ok else PALETTE.warn)
        shown = r.section if r.section is not None else r.cited_section()
        sections = r.sections()
        if self.changed_key("sections", (tuple(s.key for s in sections), shown, app.lang)):
            box = self.ids.sections
            box.clear_widgets()
            for s in sections:
                box.add_widget(
                    button(
                        f"{tr(s.title)} · {r.page(s)}",
                        partial(r.open_section, s),
                        role="chosen" if s == shown else "quiet",
                    )
                )
        self.ids.section_text.text = (
            f"[b]{escape_markup(tr(shown.title))}[/b] ({r.page(shown)})\n{escape_markup(tr(shown.summary))}"
            if shown is not None
            else ""
        )
