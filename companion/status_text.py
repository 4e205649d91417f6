"""What the dice roller and the camera say about themselves, in the active language.

The roller's adapters (`companion.rolling`), the camera feeds (`companion.feeds`, `companion.feedproc`) and
the table reader under them (`vision`) report their state as English text. The panels show that text through
`say(tr, text)`: it is matched against the English templates here (`SENTENCES`, msgids in the gettext context
"status"), the template is translated and each open part is said the same way (a part that is itself one of
these sentences by its template, a list of notes item by item); what no template matches — a port, a device
id, an operating system's own error text — stays as it is.

The templates are the drivers' words: `tests/companion/test_i18n.py` makes the roller's and the feeds'
statuses and fails on one that no template matches.
"""

from __future__ import annotations

from companion.engine_text import compile_templates, fill
from companion.i18n import Translator

CONTEXT = "status"

SENTENCES: tuple[str, ...] = (
    # companion.rolling: the dice roller
    "no dice roller: rolls on screen",
    "demo without the roller: rolling on screen",
    "simulated roller unavailable ({error}); rolling on screen",
    "dice roller not available ({error}); rolling on screen",
    "simulated roller on {port}: closed",
    "dice roller on {port}: closed",
    "simulated roller on {port}: reconnecting",
    "dice roller on {port}: reconnecting",
    "simulated roller {device} on {port}, firmware {firmware}",
    "dice roller {device} on {port}, firmware {firmware}",
    "{status} ({notes})",
    "roll not taken: {error}",
    "rolled on screen: {error}",
    "closed",
    "device restarted ({why}): new session",
    # companion.feeds, companion.feedproc, the camera panel: the camera
    "camera off",
    "reconnecting",
    "starting the camera process",
    "the camera process stopped",
    "opening {name}",
    # vision.sources: the camera's worker
    "frame {n}",
    "frame {n} ({name})",
    "frame {n}: {error}",
    "{error}; gave up after {n} s",
    "{error}; retrying every {seconds} s",
    "{error}; reconnecting",
    "{error}; giving up after {n} bad frames",
    # vision.pipeline: what the table reader made of a frame
    "{n} tiles",
    "{n} of {m} tiles in view; out of view: {tiles}",
    "{reading} ({n} seen that the known map cannot place yet)",
    "no tile stickers found in the frame",
    "the frame is black or blank: is the camera covered?",
    "the picture is blurred (the camera or a hand moving, or out of focus): this frame is not read; "
    "{details}",
)

_LISTS = {"notes": "; "}  # fields that hold several sentences


def say(tr: Translator, text: str) -> str:
    """`text`, a roller's or camera's status, in `tr`'s language (as it is when no template fits)."""
    if tr.lang == "en":
        return text
    said = _say(tr, text, 0)
    return text if said is None else said


def _say(tr: Translator, text: str, depth: int) -> str | None:
    if depth > 4:
        return None
    for template, pattern, names in compile_templates(SENTENCES):
        m = pattern.fullmatch(text)
        if m is None:
            continue
        parts = {name: _part(tr, name, m.group(name), depth + 1) for name in names}
        return fill(tr.fitted(tr.p(CONTEXT, template), parts), parts)
    return None


def _part(tr: Translator, field: str, text: str, depth: int) -> str:
    sep = _LISTS.get(field)
    if sep is not None:
        return sep.join(_part(tr, "", item, depth) for item in text.split(sep))
    said = _say(tr, text, depth)
    return text if said is None else said


def is_status_sentence(text: str) -> bool:
    """Whether a template matches `text` (for the tests that every status the drivers make is translated)."""
    return any(p.fullmatch(text) for _t, p, _n in compile_templates(SENTENCES))
