"""What one player may see of a game: `player_view(state, colour)`.

The rulebook hides hands and decks (p.3 step 7: "keep their hands concealed"; Draw and Look, p.15) and the
conflict cards until both are down (step 4). Everything else is public: the map, discard piles (R40), the
artefacts, the cards played in a battle once revealed.
"""

from __future__ import annotations

from dataclasses import replace

from engine.colours import Colour
from engine.decisions import InsightArrangement, ProsperityChoiceWindow
from engine.errors import EngineError
from engine.state import GameState, Knowledge


def player_view(state: GameState, colour: Colour) -> GameState:
    """The game as `colour` sees it: a state in which every other player's hand and every deck are unknown
    (their sizes stay), as in a TABLE game, while `colour`'s own hand is known; a rival's face-down conflict
    card is hidden until both are revealed, and the cards a crown let another player look at are hidden
    too. The deck order's seed is hidden with the decks.

    Use it to decide: `legal_actions(view)` lists `colour`'s own choices from their real hand. Apply the
    chosen action to the real state (a view has no decks to draw from). One choice rests on what others hold
    and so may be refused there: `PassFractureRound` naming a later player who could play a fracture card
    (R47); pass with `PassFracture`. Raises EngineError for a colour not playing.

    >>> import random
    >>> from engine import new_game, player_view, random_config
    >>> state = new_game(random_config(random.Random(7), 3))
    >>> me, rival = state.order[0], state.order[1]
    >>> view = player_view(state, me)
    >>> view.players[me].hand == state.players[me].hand, view.players[rival].hand
    (True, ())
    >>> view.players[rival].hand_size == state.players[rival].hand_size
    True
    """
    if colour not in state.players:
        raise EngineError(f"{colour.value!r} is not playing in this game")
    players = {}
    for c, p in state.players.items():
        own = c is colour and state.knowledge is Knowledge.FULL
        players[c] = replace(p, hand=p.hand if own else (), deck=())
    battle = state.battle
    if battle is not None and not battle.revealed:
        if battle.attacker is not colour:
            battle = replace(battle, attacker_conflict=None)
        if battle.defender is not colour:
            battle = replace(battle, defender_conflict=None)
    pending = tuple(
        replace(d, cards=()) if isinstance(d, InsightArrangement) and d.actor is not colour
        else replace(d, top=()) if isinstance(d, ProsperityChoiceWindow) and d.actor is not colour
        else d
        for d in state.pending
    )
    config = replace(state.config, seed=0, knowledge=Knowledge.TABLE)
    return replace(
        state, config=config, players=players, battle=battle, pending=pending, knowledge=Knowledge.TABLE
    )
