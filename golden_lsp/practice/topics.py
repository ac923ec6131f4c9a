"""Topic clusters of a query log's text, for a log that names no topic of its own.

The guide asks a sample to "preserve query-length **and topic** distribution"; when the log has no
``topic`` (or ``intent``) field, the topics are found in the queries themselves. The method, stated
because it decides which stratum a query lands in: each distinct query is a TF-IDF vector over its
words (lower-cased runs of letters and digits, the picker's stop words left out, only words that
occur in two or more queries; idf = ln((1 + n) / (1 + df)) + 1, scikit-learn's smooth idf; each
vector scaled to length 1), and the vectors are clustered by spherical k-means — cosine similarity,
k-means++ seeding from ``numpy.random.default_rng(seed)``, at most 100 rounds, stopping when no query
changes cluster. A query with none of the shared words forms its own group, "(no shared words)".
Each cluster is named by its rank by size and the three words of largest weight in its centre. numpy (the eval and
search extras) is imported only when topics are asked for; the whole computation is a few sparse
array operations per round, so a log of 100,000 distinct queries clusters in seconds.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import TYPE_CHECKING

from ..core.quotepick import STOP_WORDS

if TYPE_CHECKING:
    import numpy as np

MAX_ROUNDS = 100
NO_WORDS = "(no shared words)"
_WORD = re.compile(r"[^\W_]+")


def _words(query: str) -> list[str]:
    return [w for w in _WORD.findall(query.lower()) if w not in STOP_WORDS and len(w) > 1]


def clusters(queries: list[str], k: int, seed: int | None) -> list[str]:
    """The name of each query's topic cluster (``k`` clusters at most)."""
    import numpy as np

    docs = [sorted(set(_words(q))) for q in queries]
    df = Counter(w for d in docs for w in d)
    vocab = {w: i for i, w in enumerate(sorted(w for w, n in df.items() if n >= 2))}
    n = len(queries)
    rows = [[vocab[w] for w in d if w in vocab] for d in docs]
    placed = [i for i, r in enumerate(rows) if r]
    names = [NO_WORDS] * n
    if not placed:
        return names
    terms = sorted(vocab, key=vocab.__getitem__)
    idf = np.array([math.log((1 + n) / (1 + df[w])) + 1 for w in terms])
    indptr = np.cumsum([0] + [len(rows[i]) for i in placed])
    indices = np.array([t for i in placed for t in rows[i]], dtype=np.int64)
    data = idf[indices]
    norms = np.sqrt(np.add.reduceat(data * data, indptr[:-1]))
    data = data / np.repeat(norms, np.diff(indptr))
    labels = _kmeans(indptr, indices, data, len(terms), min(k, len(placed)), seed)
    centres = _centres(indptr, indices, data, labels, labels.max() + 1, len(terms))
    named = [
        f"{i + 1}: " + ", ".join(terms[t] for t in np.argsort(-centre, kind="stable")[:3])
        for i, centre in enumerate(centres)
    ]
    for row, label in zip(placed, labels):
        names[row] = named[label]
    return names


def _similarities(indptr, indices, data, centres: np.ndarray) -> np.ndarray:
    """Cosine similarity of every (unit) query vector with every centre: queries × centres."""
    import numpy as np

    products = centres[:, indices] * data  # centres × non-zeros
    return np.add.reduceat(products, indptr[:-1], axis=1).T


def _centres(indptr, indices, data, labels, k: int, n_terms: int) -> np.ndarray:
    """The unit-length mean vector of each cluster (zero for an empty one)."""
    import numpy as np

    rows = np.repeat(labels, np.diff(indptr))
    sums = np.bincount(rows * n_terms + indices, weights=data, minlength=k * n_terms).reshape(k, n_terms)
    lengths = np.linalg.norm(sums, axis=1, keepdims=True)
    return np.divide(sums, lengths, out=np.zeros_like(sums), where=lengths > 0)


def _kmeans(indptr, indices, data, n_terms: int, k: int, seed: int | None):
    import numpy as np

    rng = np.random.default_rng(seed)
    n = len(indptr) - 1

    def one_hot(row: int) -> np.ndarray:
        centre = np.zeros(n_terms)
        centre[indices[indptr[row] : indptr[row + 1]]] = data[indptr[row] : indptr[row + 1]]
        return centre

    # k-means++: each next centre drawn with probability proportional to its distance² to the nearest
    centres = [one_hot(int(rng.integers(n)))]
    nearest = np.full(n, np.inf)
    for _ in range(1, k):
        # |x − c|² = 2 − 2 cos for unit vectors
        nearest = np.minimum(
            nearest, 2 - 2 * _similarities(indptr, indices, data, centres[-1][None, :])[:, 0]
        )
        weights = np.clip(nearest, 0, None)
        if weights.sum() <= 0:
            break
        centres.append(one_hot(int(rng.choice(n, p=weights / weights.sum()))))
    matrix = np.array(centres)
    labels = np.full(n, -1)
    for _ in range(MAX_ROUNDS):
        new = np.argmax(_similarities(indptr, indices, data, matrix), axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
        matrix = _centres(indptr, indices, data, labels, len(centres), n_terms)
    # numbered by size, largest first, so a name's place in the summary is stable
    order = np.argsort(-np.bincount(labels, minlength=len(centres)), kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[labels]
