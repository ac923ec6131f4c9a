"""Seeded generator of realistic golden sets: the hard case the speed table is measured on.

A synthetic set of ASCII paragraphs, each quoted once, measures the easy case: Python stores
ASCII text at one byte a character, every quote resolves, and no finding is ever converted. A
real set is Markdown written by people — headings, nested lists, tables, code fences, accents
and emoji (so Python stores the documents at 4 bytes a character) — with one very large
document, a CRLF file, and a few per cent of labels that do not resolve. This module makes such
a set, deterministically from a seed, at any size:

- documents of headings (three levels), paragraphs on one long line each, nested lists, tables
  and fenced code, over a vocabulary with accents and emoji; one document is 20 % of the corpus,
  one is 2 MB (or 4 %) and quoted by 4 % of the records, one is written with CRLF line ends;
- boilerplate sentences repeated through every document, so ~1 % of the quotes (taken from
  them) are ambiguous with many occurrences (hundreds of related locations in all);
- ~1 % of the quotes with a letter changed (not found), the rest unique phrases of 5–9 words
  from paragraphs, list items and table rows; ~3 % multi-hop records with two locators.

The second tier (``generate_many``, ``--docs N``) is what a company wiki or a support site looks
like: tens of thousands of small documents (2–20 KB each, the same text) in folders of 500 read
with the glob ``**/*.md``, 1 % ambiguous and 1 % missing quotes, 5 % multi-hop records, each
locator in a document drawn at random (so most documents are unlabelled, as in a real wiki).

    python benchmarks/corpora.py OUT_DIR --mb 5 --questions 2000 [--seed 14]
    python benchmarks/corpora.py OUT_DIR --mb 500 --docs 45000 --questions 10000
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

SIZES = {"0.3": (0.3, 300), "5": (5.0, 2000), "50": (50.0, 10_000)}
#: the tier of many small documents: (megabytes, documents, questions)
MANY = {"many": (500.0, 45_000, 10_000), "huge": (5000.0, 450_000, 10_000)}
#: documents per folder of the many-documents tier
PER_FOLDER = 500

_SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "sa",
    "to",
    "vi",
    "zé",
    "dü",
    "gra",
    "fjö",
    "ñu",
    "ça",
    "pl",
    "øst",
    "ber",
    "an",
    "el",
    "is",
    "or",
    "um",
    "tr",
    "qué",
    "hä",
]
_EMOJI = ["🙂", "🚀", "📎", "🧭", "🍮", "✅"]
BOILERPLATE = [
    "See the table below for the details that apply here",
    "Ask the on-call engineer before you change this setting",
    "This section is reviewed every quarter by the owners",
    "Numbers are rounded to two decimal places throughout",
]


class _Writer:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.vocab = sorted(
            {"".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3))) for _ in range(6000)}
        )
        #: (doc, quote) of every unique phrase written: the quotes records are drawn from
        self.phrases: list[tuple[str, str]] = []

    def words(self, n: int) -> list[str]:
        rng, vocab = self.rng, self.vocab
        out = [rng.choice(vocab) for _ in range(n)]
        if rng.random() < 0.3:
            out[rng.randrange(n)] += rng.choice(_EMOJI)
        return out

    def sentence_line(self, doc: str, n: int) -> str:
        """One line of text; a phrase of it becomes a candidate quote."""
        words = self.words(n)
        k = self.rng.randint(5, 9)
        i = self.rng.randrange(1, max(2, n - k))  # never the capitalised first word
        self.phrases.append((doc, " ".join(words[i : i + k])))
        text = " ".join(words)
        if self.rng.random() < 0.15:
            text += ". " + self.rng.choice(BOILERPLATE) + "."
        return text[0].upper() + text[1:] + "."

    def section(self, doc: str, budget: int) -> str:
        rng = self.rng
        parts: list[str] = []
        size = 0
        while size < budget:
            kind = rng.random()
            if kind < 0.55:
                block = self.sentence_line(doc, rng.randint(25, 70)) + "\n\n"
            elif kind < 0.75:
                items = []
                for _ in range(rng.randint(2, 6)):
                    items.append(f"- {self.sentence_line(doc, rng.randint(8, 20))}\n")
                    for _ in range(rng.choice((0, 0, 1, 2))):
                        items.append(f"  - {self.sentence_line(doc, rng.randint(6, 14))}\n")
                block = "".join(items) + "\n"
            elif kind < 0.9:
                rows = ["| name | value | note |\n", "|---|---|---|\n"]
                for _ in range(rng.randint(2, 8)):
                    rows.append(
                        f"| {' '.join(self.words(2))} | {rng.randint(1, 9999)} | "
                        f"{self.sentence_line(doc, rng.randint(6, 12))} |\n"
                    )
                block = "".join(rows) + "\n"
            else:
                code = "".join(
                    f"    {' '.join(self.words(rng.randint(2, 6)))} = {rng.randint(0, 99)}\n"
                    for _ in range(rng.randint(2, 8))
                )
                block = f"```python\n# {' '.join(self.words(3))}\n{code}```\n\n"
            parts.append(block)
            size += len(block)
        return "".join(parts)

    def document(self, doc: str, chars: int, sections: tuple[int, int] = (1500, 9000)) -> str:
        """About ``chars`` characters (more by up to a section) in sections of ``sections`` characters."""
        rng = self.rng
        parts = [f"# {' '.join(self.words(3)).title()}\n\n"]
        size = 0
        while size < chars:
            level = rng.choice((2, 2, 3, 3, 3))
            body = self.section(doc, rng.randint(*sections))
            parts.append(f"{'#' * level} {' '.join(self.words(rng.randint(2, 5)))}\n\n{body}")
            size += len(parts[-1])
        return "".join(parts)


def generate(out: Path, megabytes: float, n_questions: int, seed: int = 14) -> Path:
    """Write ``out/corpus/*.md``, ``out/questions.jsonl`` and ``out/golden-lsp.toml``; returns
    the questions file. The same arguments always write the same bytes."""
    rng = random.Random(seed)
    writer = _Writer(rng)
    total = int(megabytes * 1_000_000)
    large = total // 5
    quoted = min(2_000_000, total // 25)
    sizes = {"large.md": large, "quoted.md": quoted, "crlf.md": max(total // 60, 2000)}
    rest = total - sum(sizes.values())
    n_small = max(3, min(60, rest // 600_000))
    for i in range(n_small):
        sizes[f"chapter-{i:02}.md"] = rest // n_small
    corpus = out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for name, chars in sizes.items():
        # sizes are budgets in characters; a character of this vocabulary is 1–4 bytes of UTF-8
        text = writer.document(name, int(chars * 0.93))
        if name == "crlf.md":
            text = text.replace("\n", "\r\n")
        (corpus / name).write_bytes(text.encode("utf-8"))
    (out / "golden-lsp.toml").write_text('corpus = "corpus"\n', encoding="utf-8")
    questions = out / "questions.jsonl"
    by_doc: dict[str, list[str]] = {}
    for doc, phrase in writer.phrases:
        by_doc.setdefault(doc, []).append(phrase)
    n_quoted = min(400 * n_questions // 10_000 or 8, len(by_doc["quoted.md"]))
    pool = [p for p in writer.phrases if p[0] != "quoted.md"]
    picks = [("quoted.md", q) for q in rng.sample(by_doc["quoted.md"], n_quoted)]
    picks += rng.sample(pool, n_questions - n_quoted)
    rng.shuffle(picks)
    with questions.open("w", encoding="utf-8", newline="\n") as f:
        f.write("// generated by benchmarks/corpora.py: a realistic golden set, not a real one\n")
        for i, (doc, quote) in enumerate(picks):
            roll = rng.random()
            if roll < 0.01:  # ambiguous: a boilerplate sentence occurs many times in every document
                quote = rng.choice(BOILERPLATE)
            elif roll < 0.02:  # not found: one letter changed
                j = rng.randrange(len(quote))
                quote = quote[:j] + ("x" if quote[j] != "x" else "y") + quote[j + 1 :]
            locators = [{"doc": doc, "quote": quote}]
            hop = "single"
            if rng.random() < 0.03:
                other = rng.choice(pool)
                locators.append({"doc": other[0], "quote": other[1]})
                hop = "multi"
            record = {
                "id": f"q{i:05}",
                "query": f"What does the corpus say about {' '.join(writer.words(4))}?",
                "expected_answer": f"It says that {quote}, as the passage explains.",
                "locators": locators,
                "hop": hop,
                "tags": rng.sample(["table", "list", "para", "code"], 1),
            }
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    return questions


def _record(i: int, writer: _Writer, locators: list[dict]) -> str:
    quote = locators[0]["quote"]
    return json.dumps(
        {
            "id": f"q{i:05}",
            "query": f"What does the corpus say about {' '.join(writer.words(4))}?",
            "expected_answer": f"It says that {quote}, as the passage explains.",
            "locators": locators,
            "hop": "multi" if len(locators) > 1 else "single",
            "tags": writer.rng.sample(["table", "list", "para", "code"], 1),
        },
        ensure_ascii=False,
    )


def generate_many(out: Path, megabytes: float, n_docs: int, n_questions: int, seed: int = 14) -> Path:
    """The many-small-documents tier (see the module's docstring): ``n_docs`` documents of 2–20 KB
    summing to about ``megabytes``, in folders of ``PER_FOLDER``, and ``n_questions`` records;
    the same arguments always write the same bytes. Returns the questions file."""
    rng = random.Random(seed)
    writer = _Writer(rng)
    mean = megabytes * 1_000_000 / n_docs
    low, high = max(500, int(mean * 2 / 11)), int(mean * 20 / 11)  # 2–20 KB around 11 KB
    names = [f"space-{i // PER_FOLDER:03}/page-{i:05}.md" for i in range(n_docs)]
    # each locator's document first (drawn with replacement: most documents stay unlabelled)
    n_multi = n_questions * 5 // 100
    wanted = [rng.randrange(n_docs) for _ in range(n_questions + n_multi)]
    need: dict[int, int] = {}
    for d in wanted:
        need[d] = need.get(d, 0) + 1
    picked: dict[int, list[str]] = {}
    for i, name in enumerate(names):
        path = out / "corpus" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        writer.phrases.clear()
        # a character of this vocabulary is 1–4 bytes of UTF-8 (1.2 on average)
        chars = int(rng.randint(low, high) / 1.2)
        text = writer.document(name, chars - 600, (300, min(3000, chars // 2)))
        path.write_bytes(text.encode("utf-8"))
        if i in need:
            picked[i] = [q for _, q in rng.sample(writer.phrases, min(need[i], len(writer.phrases)))]
    (out / "golden-lsp.toml").write_text('corpus = "corpus"\nglob = "**/*.md"\n', encoding="utf-8")
    questions = out / "questions.jsonl"
    locators = [{"doc": names[d], "quote": picked[d].pop()} for d in wanted]
    firsts, seconds = locators[:n_questions], locators[n_questions:]
    multi = set(rng.sample(range(n_questions), n_multi))
    with questions.open("w", encoding="utf-8", newline="\n") as f:
        f.write("// generated by benchmarks/corpora.py: a realistic golden set, not a real one\n")
        for i, first in enumerate(firsts):
            roll = rng.random()
            if roll < 0.01:  # ambiguous: a boilerplate sentence occurs many times in a document
                first = {**first, "quote": rng.choice(BOILERPLATE)}
            elif roll < 0.02:  # not found: one letter changed
                q = first["quote"]
                j = rng.randrange(len(q))
                first = {**first, "quote": q[:j] + ("x" if q[j] != "x" else "y") + q[j + 1 :]}
            f.write(_record(i, writer, [first, seconds.pop()] if i in multi else [first]) + "\n")
    return questions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--mb", type=float, default=5.0)
    parser.add_argument("--questions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--docs", type=int, help="the many-small-documents tier: this many documents")
    args = parser.parse_args()
    if args.docs:
        print(generate_many(args.out, args.mb, args.docs, args.questions, args.seed))
    else:
        print(generate(args.out, args.mb, args.questions, args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
