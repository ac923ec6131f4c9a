"""The LLM judge's run: candidate passages for each selected record, one judgment each, proposals.

Good practice labels only plausible candidates: the top k passages retrieved for a query, each
judged by a strong LLM ("would a person answering this query want to read this passage?"). Done
blindly that makes the set the judge's opinion, so here the judge only *proposes*: a run writes
``proposals.jsonl`` (``proposals.py``) and never the questions file. Candidates are the corpus's
blocks ranked by BM25 (``assist.candidates``, as the editor's candidate passages) or what the
user's own retriever returned (a run file, read by ``evaluate.runs``). Every call is cached
(``cache.py``), ``--max-calls`` bounds a run (what is judged is kept; a re-run goes on from
there), and a dry run (``plan``) counts the calls and input tokens a run would spend. An answer
that is not the expected JSON is asked again once, then recorded as that candidate's error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field

from ..assist.candidates import CandidateIndex
from ..core.check.model import Analysis, RecordLine
from ..core.check.rules import short
from ..core.corpus.index import Corpus
from ..core.goldenset.config import ConfigError
from ..evaluate.chunkings import Chunking, corpus_chunking
from ..evaluate.runs import Run
from . import cache as judgment_cache
from .cache import JudgmentCache
from .prompt import Prompt, user_message
from .proposals import CONFIDENCES, Proposal, input_digest
from .providers import FatalProviderError, Provider, ProviderError, Request
from .untrusted import bound

DEFAULT_K = 10
#: how many characters make a token, for the dry run's estimate (English text, common tokenizers)
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Passage:
    """One candidate of one record: where it is, its text and its rank among the record's."""

    record: str
    query: str
    doc: str
    start: int
    end: int
    text: str
    chunk_ids: tuple[str, ...]
    rank: int

    def request(self) -> Request:
        return Request(self.record, self.query, self.text, self.doc, self.start, self.end)


@dataclass(frozen=True)
class Judgment:
    relevant: bool
    confidence: str
    reason: str
    primary: bool = False


_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


def parse_judgment(answer: str) -> Judgment | None:
    """The judgment in an answer: one JSON object ``{"relevant", "confidence", "reason"}`` (a code
    fence or words around it tolerated; the reason bounded, ``untrusted.bound``); None when there
    is none."""
    text = _FENCE.sub("", answer.strip())
    obj = None
    for candidate in (text, text[text.find("{") : text.rfind("}") + 1]):
        try:
            obj = json.loads(candidate)
            break
        except ValueError:
            continue
    if not isinstance(obj, dict):
        return None
    relevant, confidence, reason = obj.get("relevant"), obj.get("confidence"), obj.get("reason")
    if not isinstance(relevant, bool) or confidence not in CONFIDENCES or not isinstance(reason, str):
        return None
    return Judgment(relevant, confidence, bound(reason.strip()), obj.get("primary") is True)


# --- which records, which passages ------------------------------------------------------------


def select_records(analysis: Analysis, spec: str, audit: bool = False) -> list[RecordLine]:
    """The records a run judges: ``unlabelled`` (answerable, no locators), ``all``, or ``ID,ID,...``;
    for an audit, those of them with human labels (resolved spans, no judge's hand in them)."""
    first: dict[str, RecordLine] = {}
    for rec in analysis.records:
        r = rec.record
        if r is not None and r.id and r.query and r.query.strip():
            first.setdefault(r.id, rec)

    def human(rec: RecordLine) -> bool:
        r = rec.record
        assert r is not None
        return not r.unanswerable and not r.judge_proposed and any(x.span for x in rec.result.resolved)

    if spec in ("unlabelled", "all"):
        if audit and spec == "unlabelled":
            raise ConfigError("--audit judges records with human labels: use --records all or ID,ID,...")
        chosen = list(first.values())
        if spec == "unlabelled":
            chosen = [r for r in chosen if r.record and not r.record.locators and not r.record.unanswerable]
        return [r for r in chosen if human(r)] if audit else chosen
    ids = [i.strip() for i in spec.split(",") if i.strip()]
    unknown = [i for i in ids if i not in first]
    if unknown or not ids:
        named = ", ".join(unknown) if unknown else repr(spec)
        raise ConfigError(f"--records: no record with a query has id {named}")
    chosen = [first[i] for i in dict.fromkeys(ids)]
    if audit and (unlabelled := [i for i, r in zip(ids, chosen) if not human(r)]):
        raise ConfigError(
            f"--audit judges records with human labels; these have none: {', '.join(unlabelled)}"
        )
    return chosen


def bm25_passages(corpus: Corpus, records: Iterable[RecordLine], k: int) -> list[Passage]:
    """The top ``k`` blocks by BM25 for each record's query (the editor's candidate passages)."""
    index, chunks = CandidateIndex(), corpus_chunking(corpus)
    out = []
    for rec in records:
        r = rec.record
        assert r is not None and r.id is not None and r.query is not None
        for rank, c in enumerate(index.rank(corpus, r.query, k), 1):
            ids = tuple(x.chunk_id for x in chunks.overlapping(c.doc_id, c.start, c.end))
            text = corpus.docs[c.doc_id].text[c.start : c.end]
            out.append(Passage(r.id, r.query, c.doc_id, c.start, c.end, text, ids, rank))
    return out


def run_passages(
    corpus: Corpus, run: Run, chunking: Chunking | None, records: Iterable[RecordLine], k: int
) -> tuple[list[Passage], list[str], set[str]]:
    """The top ``k`` chunks the run returned for each record, with the records the run leaves out
    and the chunk IDs it names that are no chunk of the chunking (skipped)."""
    chunking = chunking or corpus_chunking(corpus)
    out, missing, unknown = [], [], set()
    for rec in records:
        r = rec.record
        assert r is not None and r.id is not None and r.query is not None
        if r.id not in run.rankings:
            missing.append(r.id)
            continue
        rank = 0
        for cid in run.rankings[r.id]:
            chunk = chunking.by_id.get(cid)
            if chunk is None:
                unknown.add(cid)
                continue
            rank += 1
            if rank > k:
                break
            text = corpus.docs[chunk.doc_id].text[chunk.start : chunk.end]
            out.append(Passage(r.id, r.query, chunk.doc_id, chunk.start, chunk.end, text, (cid,), rank))
    return out, missing, unknown


# --- the run ----------------------------------------------------------------------------------


def cache_key(provider: Provider, prompt: Prompt, p: Passage) -> str:
    return judgment_cache.key(provider.name, provider.model, prompt.digest, p.query, p.text)


def plan(
    passages: list[Passage], prompt: Prompt, provider_name: str, model: str, cache: JudgmentCache
) -> list[Passage]:
    """What a run would do: the passages it would call the judge for (those not cached), in order."""
    return [
        p
        for p in passages
        if cache.get(judgment_cache.key(provider_name, model, prompt.digest, p.query, p.text)) is None
    ]


def input_tokens(prompt: Prompt, passages: list[Passage]) -> int:
    """An estimate of the input tokens the calls for ``passages`` send (``CHARS_PER_TOKEN``)."""
    chars = sum(len(prompt.system) + len(user_message(p.query, p.text)) for p in passages)
    return -(-chars // CHARS_PER_TOKEN)


@dataclass
class Outcome:
    """What a run did: each passage's judgment or error (absent: not judged, the budget ran out)."""

    passages: list[Passage]
    judged: dict[int, Judgment | str] = field(default_factory=dict)
    calls: int = 0
    cached: int = 0
    remaining: int = 0
    #: why the run stopped early, when the judge cannot be called any more
    fatal: str | None = None

    def errors(self) -> dict[int, str]:
        return {i: j for i, j in self.judged.items() if isinstance(j, str)}


def _judge_one(provider: Provider, prompt: Prompt, p: Passage) -> Judgment | str:
    """One candidate judged: asked again once when the answer is not the expected JSON."""
    answer = ""
    for _ in range(2):
        try:
            answer = provider.ask(prompt, p.request())
        except FatalProviderError:
            raise
        except ProviderError as exc:
            return str(exc)
        found = parse_judgment(answer)
        if found is not None:
            return found
    return f"the answer is not the expected JSON (asked twice): {short(answer.strip(), 120)!r}"


def run(
    provider: Provider,
    prompt: Prompt,
    passages: list[Passage],
    cache: JudgmentCache,
    max_calls: int | None = None,
    concurrency: int = 1,
) -> Outcome:
    """Judge every passage not cached (the first ``max_calls`` of them), caching each judgment."""
    out = Outcome(passages)
    todo = []
    for i, p in enumerate(passages):
        stored = cache.get(cache_key(provider, prompt, p))
        judgment = _stored(stored) if stored is not None else None
        if judgment is not None:
            out.judged[i] = judgment
            out.cached += 1
        else:
            todo.append(i)
    if max_calls is not None:
        todo, out.remaining = todo[:max_calls], max(0, len(todo) - max_calls)

    def one(i: int) -> None:
        result = _judge_one(provider, prompt, passages[i])
        out.judged[i] = result
        if isinstance(result, Judgment):
            cache.put(cache_key(provider, prompt, passages[i]), asdict(result))

    workers = max(1, concurrency) if provider.concurrent else 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(one, i) for i in todo]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        failed = next((exc for f in done if (exc := f.exception()) is not None), None)
        if failed is not None:
            pool.shutdown(cancel_futures=True)  # the calls under way finish; no other starts
            if not isinstance(failed, FatalProviderError):
                raise failed
            out.fatal = str(failed)
    out.calls = sum(1 for i in todo if i in out.judged)
    out.remaining += len(todo) - out.calls
    return out


def _stored(judgment: dict) -> Judgment | None:
    try:
        found = Judgment(**judgment)
    except TypeError:
        return None
    ok = (
        isinstance(found.relevant, bool) and found.confidence in CONFIDENCES and isinstance(found.reason, str)
    )
    # a judgment cached before reasons were bounded is bounded on its way out
    return Judgment(found.relevant, found.confidence, bound(found.reason), found.primary) if ok else None


# --- proposals --------------------------------------------------------------------------------


def proposals(outcome: Outcome, provider: Provider, prompt: Prompt) -> list[Proposal]:
    """A proposal for every passage judged (or failed), in the run's order; the lines of a record
    whose every candidate was judged not relevant carry ``unanswerable``."""
    by_record: dict[str, list[int]] = {}
    for i, p in enumerate(outcome.passages):
        by_record.setdefault(p.record, []).append(i)
    unanswerable = {
        rid
        for rid, idx in by_record.items()
        if all(isinstance(j := outcome.judged.get(i), Judgment) and not j.relevant for i in idx)
    }
    out = []
    for i, p in enumerate(outcome.passages):
        j = outcome.judged.get(i)
        if j is None:
            continue
        ok = j if isinstance(j, Judgment) else None
        out.append(
            Proposal(
                p.record,
                p.doc,
                p.start,
                p.end,
                p.chunk_ids,
                p.rank,
                relevant=ok.relevant if ok else None,
                confidence=ok.confidence if ok else None,
                reason=ok.reason if ok else None,
                provider=provider.name,
                model=provider.model,
                prompt=prompt.name,
                prompt_digest=prompt.digest,
                input_sha256=input_digest(p.query, p.text),
                primary=ok.primary if ok else False,
                unanswerable=p.record in unanswerable,
                error=j if isinstance(j, str) else None,
            )
        )
    return out


def merged(old: list[Proposal], new: list[Proposal], judged: set[str], order: list[str]) -> list[Proposal]:
    """The proposals file after a run: the lines of the records this run judged replaced by its
    own, the others kept; records in the questions file's order, then any it no longer holds."""
    rank = {rid: n for n, rid in enumerate(order)}
    kept = [p for p in old if p.id not in judged] + new
    return sorted(kept, key=lambda p: rank.get(p.id, len(rank)))
