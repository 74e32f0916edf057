"""While papers embed: the notice of when semantic answers will be ready (printed or logged)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.i18n import Translator
from bot.render import eta_text

if TYPE_CHECKING:
    from bot.loading import Readiness


def pending_notice(readiness: Readiness, *, t: Translator) -> str:
    """How many papers still need embedding, about how long it takes and why; "" when ready."""
    if readiness.ready or readiness.missing <= 0:
        return ""
    if readiness.seconds is None or readiness.rate is None:
        return t.ngettext("notice.pending_unknown", readiness.missing)
    how = t.gettext(
        "notice.rate_measured" if readiness.measured else "notice.rate_last",
        rate=_rate(readiness.rate),
    )
    eta = eta_text(readiness.seconds, t=t)
    return t.ngettext("notice.pending", readiness.missing, eta=eta, how=how)


def _rate(papers_per_second: float) -> str:
    """2.7, 12, 0.35: an estimate has two significant digits."""
    return f"{papers_per_second:.2g}" if papers_per_second < 10 else f"{papers_per_second:.0f}"
