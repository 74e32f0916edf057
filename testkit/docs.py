"""The user and operator documentation as one text: README.md, then docs/*.md by name."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def documentation() -> str:
    """README.md and every page under docs/, joined by blank lines."""
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    return "\n\n".join(page.read_text(encoding="utf-8") for page in pages)
