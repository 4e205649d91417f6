"""The engine's English in the active language: a verdict's sentence and citation, a camera discrepancy.

The engine speaks English only and names things its own way ("Forest of Tronçais (T10)", "Red"). Its sentences
are matched against English templates (`SENTENCES`, msgids in the gettext context "engine"); what a template
leaves open is put into words on its own: a catalogue name with its id becomes the noun in the active language
(`Translator.territory/card/artefact`, without the id), a colour the player's name (the colour's name in a
field called `colour`), a fixed phrase (`PHRASES`, the engine's action kinds and dice tags, and the sections
of `engine.rulebook.Rule`) its translation, a list item by item, a part that is itself a sentence by its own
template, and anything else stays as it is (numbers, ids). Citations ("Make an Advance, p.11") name the
section as each edition does.

The templates are the engine's words, so they follow the engine: `tests/companion/test_i18n.py` plays games,
asks the referee about every option and a set of wrong moves, and fails on a sentence no template matches. At
run time such a sentence is shown as the engine said it in English, and as "Not allowed." in another language
(the facts listed beside a verdict still say what the game looks like).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from companion.i18n import Translator
from engine.colours import Colour

CONTEXT = "engine"

SENTENCES: tuple[str, ...] = (
    # engine.rules: refusals
    "The game is over: {names} won.",
    "{item} is not playing in this game.",
    "It is {who}'s turn, not {other}'s.",
    "Nothing is waiting for a {action} action now.",
    "After redistributing, make the advance (or decline it) before playing cards or crowns: they cannot be "
    "used between redistribution and the advance.",
    "{item} is not a card of the deck (C01..C18).",
    "{who} has no cards in hand.",
    "{card} is already in play in this battle, so {who} cannot hold it.",
    "{card} is face up in {who}'s discard pile, so it cannot be in their hand.",
    "{who} declared holding no conflict card and has drawn none since that could be {card}.",
    "{card} is not {what}.",
    "{item} is not an artefact (A01..A18).",
    "Nobody in this game holds {artefact}.",
    "A fracture card destroys another player's artefact, not your own.",
    "{artefact} is already destroyed.",
    "In this window a fracture card can only hit {artefacts}.",
    "A crown can be used only once during each of your turns.",
    "{who} holds no crown.",
    "{artefact} is destroyed until it is restored.",
    "{artefact} needs an affected player: name any player.",
    "{artefact} always affects its owner.",
    "{item} is listed twice in the redistribution.",
    "{item} is not a territory or your castle on this map.",
    "Knight counts cannot be negative: {item} -> {n}.",
    "{who} does not control {place}; redistribution only moves knights among your castle and your "
    "territories.",
    "{place} has no line of supply: its knights cannot be moved and no knights can be moved into it.",
    "{place} must keep at least one knight.",
    "{place} holds at most {n} knights, not {m}.",
    "A redistribution keeps the same number of knights: {n} before, {m} after.",
    "That layout needs {n} dice; each player has {m}.",
    "You have already redistributed and advanced this turn; a tactical advance card allows one more.",
    "You have already made your advance this turn; a tactical advance card allows one more.",
    "{place} belongs to nobody in this game: only territories and, with the castle siege rule, the players' "
    "castles can be advanced into.",
    "{item} is not a territory on this map.",
    "An advance moves at least one knight, not {n}.",
    "Castles cannot be conquered (only with the castle siege rule).",
    "You cannot advance into your own castle.",
    "You can advance into a castle with at most 6 knights, not {n}.",
    "You already control {place}; moving knights there is a redistribution, not an advance.",
    "{place} belongs to your teammate {who}.",
    "{place} is not next to your castle or to a territory of yours with a line of supply (lakes link the "
    "tiles around them).",
    "Advances start from the castle, which holds {n} knights, not {m}.",
    "All {n} of your dice are in use; the advancing knights would need another die.",
    "There is no advance to decline: you have not just redistributed.",
    "{who} is not still to decide in this fracture window (after {other}: {names}).",
    "{who} cannot play a fracture card on any artefact at stake here (no fracture card that could be in "
    "their hand, or only their own artefacts are at stake).",
    "{n} dice are needed for the {what}, got {m}.",
    "A die shows 1 to 6, not {n}.",
    "You hold a conflict card, so you must play one; only a player without one battles with a conflict "
    "value of 0.",
    "{who} holds {n} cards, and at most {m} of the cards not yet discarded are not conflict cards, so they "
    "must hold a conflict card.",
    "Each card can be played only once.",
    "{who} holds only {n} cards.",
    "In a table game the cards stay secret: confirm with an empty order.",
    "Put back exactly the cards looked at ({items}), got {others}.",
    "{card} is not in the discard pile from a previous turn; the Crown of Order takes a card discarded "
    "before this turn.",
    "{artefact} is not a face-up artefact of {who}.",
    "Leaving the card on top names no card.",
    "The top card is {card}, not {card2}.",
    "Name the card discarded from the top of the deck.",
    "{item} is not a card of the deck.",
    "{card} is in {who}'s discard pile or in play, so it cannot be on top of their deck.",
    "The game is waiting for {who} {what}, not for {other}.",
    "{who} must first answer: the game is waiting {what}.",
    "{who} does not hold {card}.",
    # engine: the referee's verdicts, accepted and refused (issue 25)
    "A call to arms cannot be played during a battle, only before or after your redistribution and "
    "advance.",
    "A call to arms cannot be played between your redistribution and your advance.",
    "A tactical advance cannot be played during a battle, only before or after your redistribution "
    "and advance.",
    "A tactical advance cannot be played between your redistribution and your advance.",
    "In a battle a fracture card is played only in its windows, just before the sceptres or the orbs "
    "apply.",
    "A fracture card cannot be played between your redistribution and your advance.",
    "Crowns cannot be used during a battle.",
    "Crowns cannot be used between your redistribution and your advance.",
    "Knights cannot be redistributed during a battle.",
    "You have just redistributed: make your advance, or decline it, first.",
    "The battle must be fought to its end first; then the attacking player's turn goes on.",
    "A redistribution comes before the advance, and this turn's advance is over: a tactical advance "
    "card allows one more redistribution and advance.",
    "This turn's advance is over (made or declined): a tactical advance card allows one more.",
    "Authority is declared only right after a draw that could have brought it.",
    "Nothing lets anyone discard a card now: the Crown of Fury, the Orbs of Cleansing and "
    "Preparation, and conquering ruins, an abbey or a fortress do.",
    "No card is taken at random now: the Sceptres of Influence and Defiance do that in a battle.",
    "No fracture window is open now.",
    "That is decided only when the {artefact} applies.",
    "The Sceptres of Fear and Vigour apply at step 3 of a battle, before the conflict cards.",
    "No dice are needed now: they are rolled for the arena, an ambush or mayhem.",
    "Conflict cards are played only in a battle, at step 4.",
    "Both conflict cards of this battle have been played: step 4 is over.",
    "Conflict cards come at step 4, after the sceptres.",
    "Support cards are played only in a battle, at step 5.",
    "{place} is mountains: nobody plays support cards in a battle over it.",
    "The support cards of this battle have been played: step 5 is over.",
    "Support cards come at step 5, once both conflict cards are revealed.",
    "{place} lies across {lake} from your castle, but a castle gives no advance across a lake: that "
    "takes a territory of yours on it.",
    "{who} plays call to arms: two more knights in their castle.",
    "{who} plays tactical advance: one more redistribution and advance this turn.",
    "{who} drew their authority card and plays it at once to draw two more.",
    "{who} did not draw their authority card.",
    "{who} keeps their cards.",
    "{who} discards {card}.",
    "{card} is taken at random from {who}'s hand.",
    "{who} announces the {artefact}: from the next player on, anyone may fracture it before it "
    "applies.",
    "{who} announces the {artefact} on {other}: from the next player on, anyone may fracture it "
    "before it applies.",
    "{who} plays a fracture card on {other}'s {artefact}: it is destroyed.",
    "{who} plays a fracture card on {other}'s {artefact}: it is destroyed and its ability negated.",
    "{who} plays a fracture card on {other}'s {artefact}: it is destroyed and does not apply in this "
    "battle.",
    "{who} plays no fracture card.",
    "Nobody else plays a fracture card in this window.",
    "Nobody plays a fracture card before {who}.",
    "{who} battles as though with their rival's number of knights ({artefact}).",
    "{who} keeps their own number of knights ({artefact}).",
    "{who} puts the cards back in the order they chose.",
    "{card} is shuffled back into {who}'s deck.",
    "{who} destroys {other}'s {artefact}.",
    "The top card of {who}'s deck stays on top.",
    "The top card of {who}'s deck is discarded.",
    "{who} rolls {values} for the {what}.",
    "{who} has no conflict card and battles as though with a conflict card of 0.",
    "{who} plays a conflict card face down.",
    "{who} plays no more support cards for now.",
    "{who} plays {cards}: +{n}.",
    "{who} redistributes once more (Crown of Vitality); no advance follows.",
    "{who} leaves their knights where they are; the advance comes next.",
    "{who} redistributes their knights, {n} before and after; the advance comes next.",
    "{who} advances {n} knight into {place}: it lies across {lake} from {place2}, and a lake links "
    "the territories around it.",
    "{who} advances {n} knights into {place}: it lies across {lake} from {place2}, and a lake links "
    "the territories around it.",
    "{who} advances {n} knight into {place}: it borders their castle.",
    "{who} advances {n} knights into {place}: it borders their castle.",
    "{who} advances {n} knight into {place}: it borders {place2}, theirs with a line of supply.",
    "{who} advances {n} knights into {place}: it borders {place2}, theirs with a line of supply.",
    "{who} makes no advance after the redistribution.",
    "{who} ends the turn: their artefacts destroyed on an earlier turn are restored, and {other} "
    "places three knights.",
    # engine.reconcile: what the camera sees against the game
    "camera: {seen} on {place}; game: {expected}",
    "camera: {seen} in {place}; game: {expected}",
    "camera: {seen} on {place}; game: {expected} ({why})",
    "camera: {seen} in {place}; game: {expected} ({why})",
    "camera: {n} {colour} knights on the table; game: {colour2} is not playing",
    "camera: {place} on the table; game: not part of this map",
    "camera: {place} next to {places}; game: next to {others} (a tile was moved?)",
    "camera: {artefact} face {side}; game: face {side2}",
    "{counts} knights",
    "{counts} knight",
    "{n} {colour}",
    "{moves}, and the table has not caught up: {fixes}",
    "the table has not caught up: {fixes}",
    "move {knights} from here to their castle: it retreats after the battle (page 12)",
    "move {knights} from here to their castle: they retreat after the battle (page 12)",
    "move {knights} there: it retreats after the battle (page 12)",
    "move {knights} there: they retreat after the battle (page 12)",
    "take {knights} off the map: it {why}",
    "take {knights} off the map: they {why}",
    "put {knights} there, {why}",
    "{n} {colour} knight",
    "{n} {colour} knights",
    "was lost to the {what}",
    "were lost to the {what}",
    "from the {what}",
    "{who} ended their turn (the next player placed their three knights)",
    "{who} played call to arms (two knights into their castle)",
    "{who} played tactical advance (one more redistribution and advance)",
    "{who} redistributed knights: {moves}",
    "{place} now {n}",
    "{who} advanced {n} knight into {place}",
    "{who} advanced {n} knights into {place}",
    "{moves}, and it died there on conquest ({what}, page 7)",
    "{moves}, and {n} died there on conquest ({what}, page 7)",
    "{moves}, and {knights} went into their castle ({what}, page 7)",
    # companion.calibrate: the dice colours measured on the castles (English, like the engine)
    "the camera cannot read the table yet ({why}): are the castles' stickers in view?",
    "no die on the {colour} castle ({castle})",
    "no castle in view: put the castles (with their stickers) where the camera sees them",
    "the die on the {colour} castle looks {colour2}: is it a {colour3} die?",
    "{colour} and {colour2} dice look too alike in this light ({n} apart): more light, or measure again",
    # citations: "Make an Advance, p.11", "Order of Battle §4, p.12", "Iconography, pp.6-7"
    "{section}, p.{page}",
    "{section}, pp.{page}",
    "{section} §{n}, p.{page}",
)

PHRASES: tuple[str, ...] = (
    # what the game waits for (engine.rules.ASKS)
    "to decide on a fracture card",
    "for a dice roll",
    "to decide on their sceptre",
    "for the random discard",
    "for conflict cards",
    "for support cards",
    "to decide on a discard",
    "to say whether authority was drawn",
    "for the Crown of Vitality redistribution",
    "to put the cards back",
    "to choose a card for the Crown of Order",
    "to choose the artefact to destroy",
    "to leave or discard the top card",
    "a conflict card",
    "a support card",
    "nobody",
    "none",
    "nothing",
    "no knights",
    "no map in view",
    " and ",
    # dice tags and causes of knights lost or gained (engine.reconcile)
    "arena",
    "ambush",
    "mayhem",
    "battle",
    "up",
    "down",
    "down (destroyed)",
    "lakes hold no knights",
    "it is not part of this game",
    "died conquering the marshlands (page 7)",
    "lost their line of supply and leave the map (cut-throat, page 14, R31)",
    "fell in the arena (page 7, R37)",
    "fell in the battle (order of battle, page 12)",
    "fell to the mayhem dice (page 14, R38)",
    "for conquering the village (page 7)",
    "for conquering the city (page 7)",
    "for conquering the shrine (page 7, R43)",
    "for the call to arms",
    "placed at the start of the turn (page 8)",
)

_FIELD = re.compile(r"\{(\w+)\}")
_NAMED = re.compile(r"(?P<name>.+) \((?P<id>[TCAKL]\d{1,2})\)")
_COLOURS = {c.value: c for c in Colour}


_CITATION = re.compile(r"(?P<section>.+?)(?: §\d+)?, pp?\.[\d-]+")


def citation_sections() -> tuple[str, ...]:
    """The rulebook sections the citations name ("Make an Advance"), declared by `engine.rulebook`."""
    from engine.rulebook import Rule

    found = (_CITATION.fullmatch(r.citation) for r in Rule)
    return tuple(sorted({m.group("section") for m in found if m is not None}))


def action_phrases() -> tuple[str, ...]:
    """The engine's action kinds as its sentences say them ("play support"): declared by the engine."""
    from engine.actions import ACTION_TYPES

    return tuple(sorted(t.replace("_", " ") for t in ACTION_TYPES))


def _shape(field: str) -> str:
    """What a field can hold: counts are numbers, a colour one word, players colours; anything else text."""
    if field in ("n", "m"):
        return r"-?\d+"
    if field == "page":
        return r"[\d-]+"
    if field.startswith("colour"):
        return r"\w+"
    if field in ("who", "other"):  # players, as the engine names them: a colour, or a list of colours
        return r"\w+(?:(?:, | and )\w+)*"
    return ".+?"


def _compiled() -> tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...]:
    return compile_templates(SENTENCES)


@functools.lru_cache(maxsize=4)
def compile_templates(templates: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...]:
    """(template, the pattern that reads its fields, the fields' names), the most specific first."""
    out = []
    for template in templates:
        names = tuple(_FIELD.findall(template))
        pattern = ""
        for literal, field in zip(_FIELD.split(template)[::2], [*names, None], strict=True):
            pattern += re.escape(literal) + (f"(?P<{field}>{_shape(field)})" if field else "")
        out.append((template, re.compile(pattern), names))
    # The most specific first: more fixed words, then fewer open parts.
    out.sort(key=lambda t: (-len(_FIELD.sub("", t[0])), len(t[2])))
    return tuple(out)


def fill(template: str, parts: dict[str, str]) -> str:
    """`template` with each field that `parts` names filled in (any other left as it is)."""
    return _FIELD.sub(lambda f: parts.get(f.group(1), f.group(0)), template)


class EngineText:
    """`sentence(text)` and `citation(text)` in `tr`'s language. `noun(id)` names a catalogue item in the
    active language (the describer's), `player(colour)` names a player."""

    def __init__(
        self, tr: Translator, noun: Callable[[str], str | None], player: Callable[[Colour], str]
    ) -> None:
        self.tr = tr
        self.noun = noun
        self.player = player

    def sentence(self, text: str, fallback: str = "") -> str:
        """The engine's sentence in the active language; `fallback` (or the English) when no template fits."""
        said = self._sentence(text, 0)
        if said is not None:
            return said
        return text if self.tr.lang == "en" or not fallback else fallback

    def citation(self, text: str) -> str:
        said = self._sentence(text, 0)
        return said if said is not None else text

    def _sentence(self, text: str, depth: int) -> str | None:
        if depth > 4:
            return None
        phrase = self.tr.p(CONTEXT, text)
        if phrase != text or text in PHRASES:
            return phrase
        for template, pattern, names in _compiled():
            m = pattern.fullmatch(text)
            if m is None:
                continue
            parts = {name: self._part(name, m.group(name), depth + 1) for name in names}
            return fill(self.tr.fitted(self.tr.p(CONTEXT, template), parts), parts)
        return None

    def _part(self, field: str, text: str, depth: int) -> str:
        named = _NAMED.fullmatch(text)
        if named is not None:
            return self.noun(named.group("id")) or named.group("name")
        noun = self.noun(text)  # an id ("T10") or an English name ("Crown of Order")
        if noun is not None:
            return noun
        colour = _COLOURS.get(text.lower())
        if colour is not None:
            return self.tr.colour(colour).lower() if field.startswith("colour") else self.player(colour)
        said = self._sentence(text, depth)
        if said is not None:
            return said
        for sep in ("; ", ", ", " and "):
            if sep in text:
                items = [self._part(field, item, depth) for item in text.split(sep)]
                joiner = self.tr.p(CONTEXT, " and ") if sep == " and " else sep
                return joiner.join(items)
        return text
