"""/session: a session of the programme, paged; its buttons check it is still that session."""

from __future__ import annotations

from bot import render
from bot.answers.questions import Answer
from bot.i18n import Translator
from bot.planner import Programme


def session(programme: Programme, query: str, *, t: Translator, typed: bool = False) -> Answer:
    """The session `query` names, a choice when several, examples when none (`typed`: console)."""
    if not programme:
        return Answer(render.no_programme_doc(t=t))
    found = {id(match) for match in programme.find(query)}
    positions = [(at, s) for at, s in enumerate(programme.sessions) if id(s) in found]
    if not positions:
        return Answer(render.unknown_session_doc(query, programme, t=t))
    if len(positions) > 1:
        return Answer(render.session_choice_doc(query, positions, t=t))
    return session_page(programme, positions[0][0], offset=0, t=t, typed=typed)


def session_page(
    programme: Programme, position: int, *, offset: int, t: Translator, typed: bool = False
) -> Answer:
    """The page at `offset` of the session at `position` (its last page when past its end)."""
    chosen = programme.sessions[position]
    size = render.SESSION_PAGE
    offset = max(0, min(offset, (len(chosen.entries) - 1) // size * size))
    doc = render.session_doc(chosen, position, offset=offset, typed=typed, t=t)
    turn = None
    if typed and len(chosen.entries) > size:

        def turn(way: int) -> Answer:
            return session_page(programme, position, offset=offset + way * size, t=t, typed=True)

    return Answer(doc, turn=turn)


def session_turn(
    programme: Programme, action: render.SessionPage, *, t: Translator
) -> Answer | None:
    """The page a session button asks for; None when that session is no longer there."""
    sessions = programme.sessions
    if not 0 <= action.position < len(sessions):
        return None
    if render.session_ref(sessions[action.position]) != action.check:
        return None
    return session_page(programme, action.position, offset=action.offset, t=t)
