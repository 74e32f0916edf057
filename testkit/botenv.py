"""The environment a test or benchmark gives a real `python -m bot` process."""

from __future__ import annotations

import os
import tempfile

from testkit.paths import REPO_ROOT, SEED_CORPUS

# Settings the caller's environment must not leak into a bot under test.
_OURS_PREFIXES = ("TELEGRAM_", "WEBHOOK_")
_OURS = frozenset({
    "CORPUS", "LOG_LEVEL", "ADMIN_USER_IDS", "ALLOWED_CHAT_IDS", "DATA_DIR", "DATABASE_URL",
    "INDEX_CACHE_DIR", "RESULTS_PER_PAGE", "QUESTIONS_PER_MINUTE", "SEMANTIC", "CORPUS_NAME",
})  # fmt: skip


def bot_env(**overrides: str) -> dict[str, str]:
    """The environment without our settings, plus `overrides`; the repo importable.

    DATA_DIR is a fresh temporary directory unless given, so no run writes the repo's data/.
    SEMANTIC is off unless given: answers then do not depend on when embedding finishes.
    CORPUS is the seed corpus unless given (`CORPUS=""`: the bot's default, the bundled
    programme).
    """
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(_OURS_PREFIXES) and k not in _OURS
    }
    env["PYTHONPATH"] = str(REPO_ROOT)
    env["DATA_DIR"] = tempfile.mkdtemp(prefix="bot-data-")
    env["SEMANTIC"] = "off"
    env["CORPUS"] = str(SEED_CORPUS)
    env.update(overrides)
    return env
