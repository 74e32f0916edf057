"""Paper vectors cached on disk per model, keyed by the sha256 of each embedded text.

A restart or a reload embeds only the papers it has not seen: embedding a paper costs far
more than reading its vector back.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import numpy as np

from bot.search.storage.cache_file import CacheMiss, read_state, write_state

logger = logging.getLogger(__name__)

VECTOR_FORMAT = 1
"""What a vector cache file holds (text digests and unit vectors per model): bump when that
changes. The index cache's FORMAT_VERSION is not part of it, so a new index format keeps the
vectors."""
_DIGEST_BYTES = 32


def text_digest(text: str) -> bytes:
    """The cache key of one embedded text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class VectorCache:
    """Vectors of one model on disk, looked up by the digest of the embedded text."""

    def __init__(self, directory: str | Path, model: str) -> None:
        """The cache file of `model` under `directory` (read lazily, written atomically)."""
        self.model = model
        slug = hashlib.sha256(model.encode()).hexdigest()[:16]
        self.path = Path(directory) / f"vectors-{slug}.vec"
        self._key = f"vectors;{model}"
        self._vectors: dict[bytes, np.ndarray] = {}

    def load(self) -> int:
        """Read the file; a missing, foreign or damaged one counts as empty. Returns its size."""
        try:
            state = read_state(self.path, key=self._key, analyzer=self.model, version=VECTOR_FORMAT)
            digests = np.asarray(state["digests"], dtype=np.uint8)
            vectors = np.asarray(state["vectors"], dtype=np.float32)
            if digests.ndim != 2 or digests.shape[1] != _DIGEST_BYTES:
                raise CacheMiss("bad digests")
            if vectors.ndim != 2 or len(vectors) != len(digests):
                raise CacheMiss("bad vectors")
        except CacheMiss as error:
            if self.path.exists():
                logger.warning("vector cache %s not used (%s); re-embedding", self.path, error)
            self._vectors = {}
            return 0
        except KeyError as error:
            logger.warning("vector cache %s lacks %s; re-embedding", self.path, error)
            self._vectors = {}
            return 0
        self._vectors = {d.tobytes(): v for d, v in zip(digests, vectors, strict=True)}
        return len(self._vectors)

    def get(self, digest: bytes) -> np.ndarray | None:
        """The cached vector of a text digest, if any."""
        return self._vectors.get(digest)

    def put(self, digest: bytes, vector: np.ndarray) -> None:
        """Remember a vector (in memory until `save`)."""
        self._vectors[digest] = np.asarray(vector, dtype=np.float32)

    def save(self) -> None:
        """Write all vectors atomically; a failure is logged, never raised (it is a cache)."""
        if not self._vectors:
            return
        digests = np.frombuffer(b"".join(self._vectors), dtype=np.uint8).reshape(-1, _DIGEST_BYTES)
        state = {
            "model": self.model,
            "digests": digests,
            "vectors": np.stack(list(self._vectors.values())),
        }
        try:
            write_state(
                self.path, key=self._key, analyzer=self.model, state=state, version=VECTOR_FORMAT
            )
        except OSError as error:
            logger.warning("vector cache %s not written: %s", self.path, error)
