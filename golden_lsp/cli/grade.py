"""``golden-lsp grade [PATH]``: answers graded against the expected answers by a judge, the grader
audited against people's grades (``--human``), and the oracle-context test (``--oracle``) that
measures faithfulness (``golden_lsp.keep.grade``).

Exit codes: 0 every answer graded (or the budget reached), 1 some answers could not be graded or
generated (named on stderr), 2 a usage problem or a judge that cannot be called.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.io.files import display, write_atomically
from ..core.io.jsontext import dumps
from ..core.io.shown import shown
from ..evaluate.evalspec import RUN_FORMATS
from ..keep import grade as gr
from ..keep.cache import JudgmentCache
from ..keep.providers import PROVIDERS, TIMEOUT, Request, judge_model, make_provider
from .common import USAGE_ERROR, add_set_options, golden_set, progress
from .evalshared import add_chunks_option
from .judge import _count, _positive, add_timeout_option


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "grade", help="grade answers against the expected answers with a judge; audit it; the oracle test"
    )
    p.add_argument("path", nargs="?", type=Path, help="questions file or folder holding a config")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--answers", type=Path, metavar="FILE", help='answers to grade: JSONL of {"id", "answer"}'
    )
    src.add_argument(
        "--oracle", action="store_true", help="answer each record from its answer-bearing chunks, then grade"
    )
    src.add_argument(
        "--from-run",
        type=Path,
        metavar="RUN",
        help="answer each record from the top --k chunks of this run (the gap to --oracle), then grade",
    )
    p.add_argument(
        "--k", type=_positive, default=5, help="--from-run: chunks of context per record (default 5)"
    )
    p.add_argument("--run-format", choices=RUN_FORMATS, help="the run's format (default: detected)")
    add_chunks_option(p)
    p.add_argument("--provider", choices=PROVIDERS, help="the grader (or [judge] provider)")
    p.add_argument("--model", help="the grader's model (or [judge] model)")
    p.add_argument("--command", help="the grader's program (command provider): JSON lines in and out")
    p.add_argument("--prompt", type=Path, metavar="FILE", help="a system prompt replacing the grader's")
    p.add_argument("--generator-provider", choices=PROVIDERS, help="the oracle test's generator")
    p.add_argument("--generator-model", help="the generator's model")
    p.add_argument("--generator-command", help="the generator's program (command provider)")
    p.add_argument("--generator-prompt", type=Path, metavar="FILE", help="a system prompt for the generator")
    p.add_argument(
        "--human", type=Path, metavar="FILE", help='people\'s grades, JSONL of {"id", "grade"}: audit'
    )
    p.add_argument("--db", type=Path, metavar="FILE", help="append the grades to this DuckDB results file")
    p.add_argument(
        "--faithfulness-out", type=Path, metavar="FILE", help="--oracle: write the faithfulness file here"
    )
    add_timeout_option(p)
    p.add_argument("--dry-run", action="store_true", help="count the calls and input tokens; call nothing")
    p.add_argument("--max-calls", type=_count, metavar="N", help="stop after N calls (the rest next time)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_set_options(p)
    p.set_defaults(run=_grade)


def _chosen(
    name: str | None, model: str | None, command: str | None
) -> tuple[str, str | None, str | None, str]:
    name = name or ("command" if command else None)
    return name, model, command, judge_model(name, model, command)  # type: ignore[return-value]


def _contexts(args: argparse.Namespace, golden: Any, records: dict) -> tuple[dict[str, list[str]], str]:
    """Each record's context for the generator: its answer-bearing chunks (``--oracle``) or the
    top ``--k`` chunks of ``--from-run``; and what it is."""
    if args.oracle:
        out = {rid: gr.oracle_chunks(golden.corpus, rec) for rid, rec in records.items()}
        return out, f"answer-bearing chunks under {golden.hit_rule}"
    from ..evaluate.chunkings import load_chunking
    from ..evaluate.runs import read_run
    from ..keep.judge import run_passages

    try:
        run = read_run(args.from_run, args.run_format)
    except ImportError:
        raise ConfigError("reading a TREC run needs the eval extra: pip install 'golden-lsp[eval]'") from None
    chunking = load_chunking(args.chunks, golden.corpus) if args.chunks is not None else None
    passages, missing, _ = run_passages(golden.corpus, run, chunking, list(records.values()), args.k)
    if missing:
        sys.stderr.write(
            f"golden-lsp: {plural(len(missing), 'record')} not in the run: {shown(', '.join(missing[:10]))}\n"
        )
    contexts: dict[str, list[str]] = {}
    for p in passages:
        contexts.setdefault(p.record, []).append(p.text)
    return contexts, f"top {args.k} chunks of run {display(args.from_run)}"


def _timeout(args: argparse.Namespace, golden: Any) -> float:
    return args.timeout or golden.config.judge.get("timeout") or TIMEOUT


def _write_json(path: Path, value: dict[str, Any]) -> None:
    try:
        write_atomically({path: dumps(value, indent=2) + "\n"})
    except OSError as exc:
        raise ConfigError(f"cannot write {display(path)}: {exc.strerror or exc}") from None


def _generate(
    args: argparse.Namespace, golden: Any, records: dict, head: dict[str, Any], cache: JudgmentCache
) -> gr.Asked | int:
    """The oracle test's (or ``--from-run``'s) answers: each record answered by the generator from
    its context alone (``head`` gets what was asked of whom); an exit status instead on a dry run or
    when the generator cannot be called."""
    gen = _chosen(args.generator_provider, args.generator_model, args.generator_command)
    gen_prompt = gr.load_system(args.generator_prompt, gr.GENERATOR)
    requests = []
    no_context = []
    contexts, source = _contexts(args, golden, records)
    for rid, rec in records.items():
        chunks = contexts.get(rid, [])
        if not chunks:
            no_context.append(rid)
            continue
        assert rec.record is not None and rec.record.query
        requests.append(
            Request(rid, rec.record.query, "", "", 0, 0, gr.generate_message(rec.record.query, chunks))
        )
    head.update(
        {
            "answers": "oracle" if args.oracle else f"top {args.k} of run {display(args.from_run)}",
            "generator": {
                "provider": gen[0],
                "model": gen[3],
                "prompt": gen_prompt.name,
                "prompt_digest": gen_prompt.digest,
                "context": f"{source} ({plural(len(requests), 'record')})",
            },
            "no_context": no_context,
        }
    )
    if args.dry_run:
        planned = gr.plan(requests, gen_prompt, gen[0], gen[3], cache)
        return _dry(
            args,
            head,
            {"generator_calls": len(planned), "generator_tokens": gr.input_tokens(gen_prompt, planned)},
        )
    provider = make_provider(*gen[:3], _timeout(args, golden))
    try:
        with progress(f"generating {plural(len(requests), 'answer')}"):
            generated = gr.ask_all(provider, gen_prompt, requests, gr.parse_generated, cache, args.max_calls)
    finally:
        provider.close()
    if generated.fatal is not None:
        sys.stderr.write(f"golden-lsp: the generator cannot be called: {generated.fatal}\n")
        return USAGE_ERROR
    return generated


def _refuse_overwrites(args: argparse.Namespace, golden: Any) -> None:
    """A ConfigError before any call when an output would replace an input of the set or of this run."""
    if args.faithfulness_out is not None and not args.oracle:
        raise ConfigError("--faithfulness-out is the oracle test's result: give it with --oracle")
    outputs = {"faithfulness file": args.faithfulness_out} if args.faithfulness_out else {}
    if args.human is not None:
        outputs["grader audit"] = golden.config.grade_audit_path()
    inputs = {args.answers: "answers", args.human: "grades", args.prompt: "prompt", args.from_run: "run"}
    inputs.update({args.generator_prompt: "generator prompt", args.chunks: "chunk file"})
    golden.refuse_outputs(outputs, {p: w for p, w in inputs.items() if p})


def _outcome(args: argparse.Namespace, result: dict[str, Any], asked: gr.Asked) -> int:
    """The exit status, with what was not done said on stderr."""
    if asked.fatal is not None:
        sys.stderr.write(f"golden-lsp: the grader cannot be called: {asked.fatal}\n")
        return USAGE_ERROR
    if result["remaining"]:
        sys.stderr.write(
            f"golden-lsp: --max-calls {args.max_calls}: {result['remaining']} not done; run again\n"
        )
    if result["errors"]:
        sys.stderr.write(
            f"golden-lsp: {plural(len(result['errors']), 'answer')} failed: {shown(', '.join(result['errors']))}\n"
        )
        return 1
    return 0


def _grade(args: argparse.Namespace) -> int:
    golden = golden_set(args, args.path)
    conf = golden.config.judge
    grader = _chosen(
        args.provider or conf.get("provider"),
        args.model or conf.get("model"),
        args.command or conf.get("command"),
    )
    prompt = gr.load_system(args.prompt, gr.GRADER)
    records = gr.gradable(golden.analyze().records)
    human = gr.read_jsonl(args.human, "grade", gr.GRADES) if args.human is not None else None
    _refuse_overwrites(args, golden)
    cache = JudgmentCache()
    head: dict[str, Any] = {
        "provider": grader[0],
        "model": grader[3],
        "prompt": prompt.name,
        "prompt_digest": prompt.digest,
        "interval": f"Wilson score, {gr.LEVEL:.0%}",
        "partially": "strict: counted incorrect; lenient: counted correct",
    }
    spent, generated = 0, None
    if args.oracle or args.from_run is not None:
        got = _generate(args, golden, records, head, cache)
        if isinstance(got, int):
            return got
        generated, spent, answers = got, got.calls, dict(got.results)
    else:
        answers = gr.read_jsonl(args.answers, "answer")
        head["answers"] = display(args.answers)
    graded, unanswered, unknown = gr.items(records, answers)
    if unknown:
        sys.stderr.write(
            f"golden-lsp: {plural(len(unknown), 'answer')} name no gradable record (skipped): {shown(', '.join(unknown[:10]))}\n"
        )
    requests = [it.request() for it in graded]
    if args.dry_run:
        planned = gr.plan(requests, prompt, grader[0], grader[3], cache)
        return _dry(
            args, head, {"grader_calls": len(planned), "grader_tokens": gr.input_tokens(prompt, planned)}
        )
    provider = make_provider(*grader[:3], _timeout(args, golden))
    try:
        with progress(f"grading {plural(len(requests), 'answer')}"):
            asked = gr.ask_all(provider, prompt, requests, gr.parse_grade, cache, args.max_calls, spent)
    finally:
        provider.close()
    result: dict[str, Any] = {
        **head,
        "n_records": len(records),
        "n_answers": len(graded),
        "not_answered": unanswered,
        "calls": asked.calls + spent,
        "cached": asked.cached + (generated.cached if generated else 0),
        "remaining": asked.remaining + (generated.remaining if generated else 0),
        "errors": {**(generated.errors if generated else {}), **asked.errors},
        **gr.summary(graded, asked),
    }
    if args.oracle:
        result["faithfulness"] = _faithfulness(result)
        if args.faithfulness_out is not None:
            _write_json(args.faithfulness_out, {"faithfulness": result["faithfulness"]})
    if human is not None:
        result["audit"] = gr.audit(
            human, asked.results, {k: head[k] for k in ("provider", "model", "prompt", "prompt_digest")}
        )
        _write_json(golden.config.grade_audit_path(), result["audit"])
    result["grades"] = gr.rows(graded, asked)
    if args.db is not None:
        from ..evaluate.resultsdb import store_grades

        ident = {k: str(head[k]) for k in ("answers", "provider", "model", "prompt", "prompt_digest")}
        result["grade_run"] = store_grades(args.db, result["grades"], ident)
    sys.stdout.write(dumps(result, indent=2) + "\n" if args.format == "json" else _text(result))
    return _outcome(args, result, asked)


def _faithfulness(result: dict[str, Any]) -> dict[str, Any]:
    strict = result["overall"]["strict"]
    return {
        "value": strict["value"],
        "n": strict["n"],
        "low": strict["low"],
        "high": strict["high"],
        "level": gr.LEVEL,
        "method": "oracle-context test: answers from the answer-bearing chunks only, graded strict "
        "(only correct counts), Wilson score interval",
        "judge_provider": result["provider"],
        "judge_model": result["model"],
        "prompt": result["prompt"],
        "prompt_digest": result["prompt_digest"],
        "generator": result["generator"],
        "lenient": result["overall"]["lenient"]["value"],
    }


def _dry(args: argparse.Namespace, head: dict[str, Any], calls: dict[str, int]) -> int:
    result = {**head, **calls, "max_calls": args.max_calls}
    if args.format == "json":
        sys.stdout.write(dumps(result, indent=2) + "\n")
        return 0
    said = ", ".join(f"{k.replace('_', ' ')}: {v:,}" for k, v in calls.items())
    more = " (grader calls follow once the answers are generated)" if "generator_calls" in calls else ""
    sys.stdout.write(
        f"dry run: {said}{more}; grader {head['provider']} {head['model']}, prompt "
        f"{head['prompt']} {head['prompt_digest'][:19]}…; nothing was called\n"
    )
    return 0


def _pct(p: dict[str, Any]) -> str:
    if p["value"] is None:
        return "n/a (N = 0)"
    return f"{p['value']:.3f} [{p['low']:.3f}, {p['high']:.3f}] ({p['k']}/{p['n']})"


def _text(r: dict[str, Any]) -> str:
    o = r["overall"]
    lines = [
        f"graded {plural(o['n'], 'answer')} ({r['answers']}) with {r['provider']} {r['model']}, prompt "
        f"{r['prompt']} {r['prompt_digest']}: {o['counts']['correct']} correct, "
        f"{o['counts']['partially']} partially, {o['counts']['incorrect']} incorrect",
        f"accuracy, strict (partially counts incorrect): {_pct(o['strict'])}",
        f"accuracy, lenient (partially counts correct): {_pct(o['lenient'])}",
        f"intervals: {r['interval']}; {plural(r['calls'], 'call')}, {r['cached']} cached, {r['remaining']} not done",
    ]
    for name, values in r["by_slice"].items():
        for v, a in values.items():
            lines.append(
                f"  {shown(name)}={shown(v)}: strict {_pct(a['strict'])}, lenient {_pct(a['lenient'])}"
            )
    if "faithfulness" in r:
        lines.append(
            f"faithfulness (oracle context, generator {r['generator']['provider']} {r['generator']['model']}): "
            f"{_pct(r['overall']['strict'])}"
        )
    if "audit" in r:
        a = r["audit"]
        kappa = "undefined" if a["kappa"] is None else f"{a['kappa']:.3f}"
        lines.append(
            f"grader audit over {a['n_items']} answers: kappa of correct {kappa} ({a['band']}), "
            f"precision {_pct(a['precision'])}, recall {_pct(a['recall'])}, "
            f"{plural(len(a['disagreements']), 'disagreement')}"
        )
        for d in a["disagreements"]:
            lines.append(
                f"  {shown(d['id'])}: people {d['human']}, grader {d['grader']} — {shown(d['reason'])}"
            )
    return "\n".join(lines) + "\n"
