"""Texts that test an embedder's tokenizer and engine: scripts, spacing, markup, empty."""

from __future__ import annotations

TEXTS = [
    "Protecting released model weights against unauthorised merging.",
    "多模态大模型能看懂癫痫发作的视频吗",
    "如何防止別人未經授權合併我發布的模型",
    "Équations aux dérivées partielles — résolution numérique",
    "Обучение с подкреплением без модели среды",
    "拡散モデルによる画像生成の高速化",
    "  leading spaces,   runs   of spaces and a trailing one ",
    "tabs\tand\nnewlines, emoji 🤖, ligature ﬁ, full-width ＡＢＣ, a literal ▁ mark",
    "$\\mathcal{O}(n \\log n)$ regret for $k$-armed bandits",
    "",
]
