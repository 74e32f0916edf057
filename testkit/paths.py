"""Where the repository's test data lives, for tests in any folder and for benchmarks."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
TEST_DATA = REPO_ROOT / "tests" / "data"
"""Corpus files written the way each source writes them."""
SEED_CORPUS = REPO_ROOT / "corpus" / "seeds"
"""The repository's seed corpus: 57 ICML 2026 abstracts, the tests' everyday corpus (the bot's
default is the bundled programme, `bot.config.DEFAULT_CORPUS`)."""
