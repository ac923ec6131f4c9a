"""``golden-lsp judge [PATH]``: an LLM judge proposes labels (``proposals.jsonl``), or is audited
against the human ones (``--audit``: ``audit.json``), with the cost controls (``golden_lsp.keep``).

Exit codes: 0 every candidate judged (or the budget reached), 1 some candidates could not be
judged (named on stderr, recorded in the proposals), 2 a usage problem or a judge that cannot be
called (a missing key or SDK, a refused key, an unknown model, a judge program that died).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.check.rules import short
from ..core.corpus.search import SearchUnavailable
from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.goldenset.project import GoldenSet
from ..core.io.files import display
from ..core.io.jsontext import dumps
from ..core.io.shown import shown
from ..evaluate.evalspec import RUN_FORMATS
from ..keep import judge as jd
from ..keep.audit import audit, write_audit
from ..keep.cache import JudgmentCache
from ..keep.prompt import Prompt, load_prompt
from ..keep.proposals import CONFIDENCES, by_record, read_proposals, write_proposals
from ..keep.providers import PROVIDERS, TIMEOUT, judge_model, make_provider
from .common import USAGE_ERROR, add_set_options, golden_set, progress
from .evalshared import add_chunks_option


def _positive(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, not {value!r}")
    return int(value)


def _count(value: str) -> int:
    if not value.isdigit():
        raise argparse.ArgumentTypeError(f"expected a number of calls (0 or more), not {value!r}")
    return int(value)


def add_timeout_option(p: argparse.ArgumentParser) -> None:
    """``--timeout SECONDS``: the most one model call may take (the judge's and the grader's)."""
    p.add_argument(
        "--timeout",
        type=_seconds,
        metavar="SECONDS",
        help=f"the most one call may take, retries included (or [judge] timeout; default {TIMEOUT:g})",
    )


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, not {value!r}")
    return seconds


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "judge", help="an LLM judge proposes labels for candidate passages (proposals.jsonl), or --audit it"
    )
    p.add_argument("path", nargs="?", type=Path, help="questions file or folder holding a config")
    p.add_argument(
        "--records",
        metavar="unlabelled|all|ID,...",
        help="records to judge (default: unlabelled, the answerable ones with no locators; --audit: all)",
    )
    p.add_argument("--k", type=_positive, default=jd.DEFAULT_K, help="candidates per record (default 10)")
    p.add_argument(
        "--run", type=Path, dest="run_file", metavar="RUN", help="judge this run's chunks (as eval)"
    )
    p.add_argument("--run-format", choices=RUN_FORMATS, help="the run's format (default: detected)")
    add_chunks_option(p)
    p.add_argument("--provider", choices=PROVIDERS, help="the judge (or [judge] provider)")
    p.add_argument("--model", help="the model (required for anthropic and openai, or [judge] model)")
    p.add_argument("--command", help="the command provider's program: JSON lines in, JSON lines out")
    p.add_argument("--prompt", type=Path, metavar="FILE", help="a system prompt replacing the default")
    p.add_argument(
        "--concurrency", type=_positive, default=4, help="parallel calls of the HTTP providers (default 4)"
    )
    add_timeout_option(p)
    p.add_argument("--dry-run", action="store_true", help="count the calls and input tokens; call nothing")
    p.add_argument("--max-calls", type=_count, metavar="N", help="stop after N calls (the rest next time)")
    p.add_argument("--audit", action="store_true", help="measure the judge against the human labels")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_set_options(p)
    p.set_defaults(run=_judge)


def _passages(args: argparse.Namespace, golden: GoldenSet, records: list) -> tuple[list[jd.Passage], str]:
    """The candidates of the records and where they came from (BM25 or the run)."""
    if args.run_file is None:
        try:
            return jd.bm25_passages(golden.corpus, records, args.k), f"BM25 top {args.k} blocks"
        except SearchUnavailable as exc:
            raise ConfigError(str(exc)) from None
    from ..evaluate.chunkings import load_chunking
    from ..evaluate.runs import read_run

    try:
        run = read_run(args.run_file, args.run_format)
    except ImportError:
        raise ConfigError("reading a TREC run needs the eval extra: pip install 'golden-lsp[eval]'") from None
    chunking = load_chunking(args.chunks, golden.corpus) if args.chunks is not None else None
    passages, missing, unknown = jd.run_passages(golden.corpus, run, chunking, records, args.k)
    if missing:
        sys.stderr.write(
            f"golden-lsp: {plural(len(missing), 'record')} not in the run: {', '.join(missing)}\n"
        )
    if unknown:
        sys.stderr.write(
            f"golden-lsp: {plural(len(unknown), 'chunk ID')} of the run are no chunk of "
            f"{(chunking or jd.corpus_chunking(golden.corpus)).name} (skipped), e.g. {sorted(unknown)[0]}\n"
        )
    return passages, f"top {args.k} of run {display(args.run_file)}"


def _judge(args: argparse.Namespace) -> int:
    golden = golden_set(args, args.path)
    conf = golden.config.judge
    name = args.provider or conf.get("provider") or ("command" if args.command else None)
    model, command = args.model or conf.get("model"), args.command or conf.get("command")
    chosen = name is not None and (bool(model) if name != "command" else bool(command))
    # a dry run lists the calls even before a judge is chosen (none of them is then cached)
    model_name = judge_model(name, model, command) if chosen or not args.dry_run else None
    prompt_file = args.prompt or conf.get("prompt")
    prompt = load_prompt(prompt_file)
    analysis = golden.analyze()
    spec = args.records or ("all" if args.audit else "unlabelled")
    records = {
        r.record.id: r for r in jd.select_records(analysis, spec, args.audit) if r.record and r.record.id
    }
    out = golden.config.audit_path() if args.audit else golden.config.proposals_path()
    inputs = {args.run_file: "run", args.chunks: "chunk file", prompt_file: "prompt"}
    golden.refuse_outputs(
        {"audit" if args.audit else "proposals": out}, {p: w for p, w in inputs.items() if p}
    )
    passages, source = _passages(args, golden, list(records.values()))
    head = {"records": len(records), "candidates": len(passages), "source": source}
    ident = {"provider": name, "model": model_name, "prompt": prompt.name, "prompt_digest": prompt.digest}
    if args.dry_run:
        calls = (
            jd.plan(passages, prompt, name, model_name, JudgmentCache())
            if name is not None and model_name is not None
            else passages
        )
        return _dry_run(args, golden, calls, prompt, {**head, **ident})
    existing = [] if args.audit else read_proposals(out)  # a broken file stops the run before a call
    timeout = args.timeout or conf.get("timeout") or TIMEOUT
    provider = make_provider(name, model, command, timeout)
    try:
        with progress(f"judging {plural(len(passages), 'candidate')}"):
            outcome = jd.run(provider, prompt, passages, JudgmentCache(), args.max_calls, args.concurrency)
    finally:
        provider.close()
    if args.audit:
        result = {**head, **audit(outcome, records, golden.hit_rule, provider, prompt)}
        write_audit(out, result)
        text = _audit_text(result, golden, out)
    else:
        new = jd.proposals(outcome, provider, prompt)
        judged = {p.id for p in new} | (records.keys() - {p.record for p in passages})
        order = [r.record.id for r in analysis.records if r.record is not None and r.record.id]
        write_proposals(out, jd.merged(existing, new, judged, order))
        result = _summary(outcome, new, out, {**head, **ident})
        text = _text(result)
    sys.stdout.write(dumps(result, indent=2) + "\n" if args.format == "json" else shown(text, lines=True))
    return _tell(args, outcome, out)


def _tell(args: argparse.Namespace, outcome: jd.Outcome, out: Path) -> int:
    """What stopped the run or failed, on stderr, and the exit code."""
    done = f"{plural(outcome.calls, 'call')} made, {outcome.remaining} remain"
    if outcome.fatal is not None:
        sys.stderr.write(
            f"golden-lsp: the judge cannot be called: {outcome.fatal} ({done}; kept in {display(out)})\n"
        )
        return USAGE_ERROR
    if outcome.remaining:
        sys.stderr.write(
            f"golden-lsp: --max-calls {args.max_calls}: {done}; run again to go on (judgments are cached)\n"
        )
    errors = outcome.errors()
    if errors:
        ids = sorted({outcome.passages[i].record for i in errors})
        sys.stderr.write(
            f"golden-lsp: {plural(len(errors), 'candidate')} could not be judged (recorded with the error in "
            f"{display(out)}; run again to retry them), in {plural(len(ids), 'record')}: {', '.join(ids)}\n"
        )
        return 1
    return 0


def _dry_run(
    args: argparse.Namespace,
    golden: GoldenSet,
    planned: list[jd.Passage],
    prompt: Prompt,
    head: dict[str, Any],
) -> int:
    calls = planned if args.max_calls is None else planned[: args.max_calls]
    result = {
        **head,
        "calls": len(calls),
        "cached": head["candidates"] - len(planned),
        "remaining": len(planned) - len(calls),
        "input_tokens_estimate": jd.input_tokens(prompt, calls),
        "planned": [
            {"id": p.record, "doc": p.doc, "char_start": p.start, "char_end": p.end, "rank": p.rank}
            for p in calls
        ],
    }
    if args.format == "json":
        sys.stdout.write(dumps(result, indent=2) + "\n")
        return 0
    judge = (
        f"to {head['provider']} {head['model']}"
        if head["model"] is not None
        else "(no judge chosen yet: --provider and --model say which, and which calls are cached)"
    )
    out = [
        f"dry run: {plural(len(calls), 'call')} {judge} ({result['cached']} of "
        f"{head['candidates']} candidates cached, {result['remaining']} left past --max-calls), "
        f"≈ {result['input_tokens_estimate']:,} input tokens (≈ {jd.CHARS_PER_TOKEN} characters a token); "
        f"prompt {head['prompt']} {head['prompt_digest'][:19]}…; {head['records']} records, {head['source']}; "
        "nothing was called"
    ]
    for p in calls:
        line = golden.corpus.docs[p.doc].positions.raw_position(p.start)[0] + 1
        out.append(f"  {p.record}  #{p.rank}  {p.doc}:{line}  {short(' '.join(p.text.split()), 60)}")
    sys.stdout.write("".join(shown(line) + "\n" for line in out))
    return 0


def _summary(outcome: jd.Outcome, new: list, out: Path, head: dict[str, Any]) -> dict[str, Any]:
    grouped = by_record(new)
    errors = outcome.errors()
    return {
        **head,
        "calls": outcome.calls,
        "cached": outcome.cached,
        "remaining": outcome.remaining,
        "proposals": len(new),
        "relevant": {c: sum(p.relevant is True and p.confidence == c for p in new) for c in CONFIDENCES},
        "not_relevant": sum(p.relevant is False for p in new),
        "errors": len(errors),
        "error_records": sorted({outcome.passages[i].record for i in errors}),
        "unanswerable": [rid for rid, ps in grouped.items() if ps[0].unanswerable],
        "proposals_file": str(out),
    }


def _text(s: dict[str, Any]) -> str:
    relevant = sum(s["relevant"].values())
    levels = ", ".join(f"{n} {c}" for c, n in s["relevant"].items() if n)
    lines = [
        f"judged {plural(s['records'], 'record')} with {s['provider']} {s['model']}: {s['candidates']} "
        f"candidates ({s['source']}) — {plural(s['calls'], 'call')}, {s['cached']} cached, "
        f"{s['remaining']} not judged yet",
        f"proposals: {s['proposals']} written to {display(s['proposals_file'])} — {relevant} relevant"
        + (f" ({levels})" if levels else "")
        + f", {s['not_relevant']} not relevant, {plural(s['errors'], 'error')}",
    ]
    if s["unanswerable"]:
        lines.append(
            f"proposed unanswerable (every candidate judged not relevant): {', '.join(s['unanswerable'])}"
        )
    lines.append("review them in the editor, or accept in bulk: golden-lsp accept --confidence high")
    return "\n".join(lines) + "\n"


def _ratio(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _audit_text(r: dict[str, Any], golden: GoldenSet, out: Path) -> str:
    ci = r["kappa_ci95"]
    interval = f", 95% CI [{ci[0]:.3f}, {ci[1]:.3f}] (bootstrap over records)" if ci else ""
    lines = [
        f"judge {r['provider']} {r['model']} against the human labels: Cohen's kappa {_ratio(r['kappa'])} "
        f"({r['band']}: > 0.7 good, 0.5–0.7 acceptable, < 0.5 revise the guidelines){interval}",
        f"  over N = {r['n_items']} (record, candidate) items: {r['n_records']} records × {r['source']}; "
        f"human-relevant when the passage bears one of the record's spans under hit rule {r['hit_rule']}, "
        "judge-relevant when relevant at high or medium confidence",
        f"  precision {_ratio(r['precision'])} (N = {r['judge_relevant']} judge-relevant), "
        f"recall {_ratio(r['recall'])} (N = {r['human_relevant']} human-relevant)",
        "by confidence (items, of which human-relevant):",
    ]
    for c, by in r["by_confidence"].items():
        yes, no = by["relevant"], by["not_relevant"]
        lines.append(
            f"  {c:<6}  judged relevant {yes['n']} ({yes['human_relevant']})  ·  "
            f"judged not relevant {no['n']} ({no['human_relevant']})"
        )
    bad = [it for it in r["items"] if it["human"] != it["judge"]]
    lines.append(f"disagreements: {len(bad)} of {r['n_items']} items" + (":" if bad else ""))
    for it in bad:
        line = golden.corpus.docs[it["doc"]].positions.raw_position(it["char_start"])[0] + 1
        who = "human relevant, judge not" if it["human"] else "judge relevant, human not"
        lines.append(
            f"  {it['id']}  {it['doc']}:{line}  {who} ({'relevant' if it['relevant'] else 'not relevant'}, "
            f"{it['confidence']}): {it['reason']}"
        )
    if r["n_errors"] or r["not_judged"]:
        lines.append(f"left out: {r['n_errors']} candidates that failed, {r['not_judged']} not judged yet")
    lines.append(f"wrote {display(out)}")
    return "".join(shown(line) + "\n" for line in lines)
