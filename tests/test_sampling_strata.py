"""``sample`` from several logs, stratified, as a subprocess on synthetic logs whose strata sizes are
known by construction: by a log field, by frequency (head, torso, tail, the tail over-sampled), by
topic clusters of the text, by two fields jointly; what each record keeps (source, request_id,
sampled_at, count, stratum, fields named), and redaction before counting."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from golden_lsp.practice.strata import frequency_bands


def write_log(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def records(proc) -> list[dict]:
    assert proc.returncode == 0, proc.stderr
    return [json.loads(x) for x in proc.stdout.splitlines()]


def test_strata_by_a_log_field_follow_the_traffic(cli, examples):
    rows = []
    for intent, distinct, times in (("billing", 30, 2), ("booking", 15, 2), ("weather", 10, 1)):
        for i in range(distinct):
            rows += [{"query": f"{intent} question number {i}", "intent": intent}] * times
    log = write_log(examples / "log.jsonl", rows)  # 60, 30 and 10 lines
    proc = cli(["sample", log, "--n", "20", "--by", "intent", "--seed", "4"], cwd=examples)
    got = records(proc)
    assert Counter(r["meta"]["stratum"] for r in got) == {
        "intent=billing": 12,
        "intent=booking": 6,
        "intent=weather": 2,
    }
    assert all(r["query"].startswith(r["meta"]["stratum"].split("=")[1]) for r in got)
    assert "intent=billing  log: 60 lines, 30 distinct · sample: 12 (12 wanted)" in proc.stderr
    assert "intent=weather  log: 10 lines, 10 distinct · sample: 2 (2 wanted)" in proc.stderr
    assert {r["meta"]["log_count"] for r in got if "weather" not in r["query"]} == {2}


def frequency_log() -> list[dict]:
    """100 lines: 2 queries × 25 (head: nothing is more frequent), 6 × 5 (torso: the head is 50 %
    of the traffic), 20 × 1 (tail: the queries more frequent make up 80 %)."""
    rows = []
    for band, distinct, times in (("head", 2, 25), ("torso", 6, 5), ("tail", 20, 1)):
        for i in range(distinct):
            rows += [{"query": f"{band} query {i}"}] * times
    return rows


def test_frequency_bands_by_construction():
    counts = [25] * 2 + [5] * 6 + [1] * 20
    assert Counter(frequency_bands(counts)) == {"head": 2, "torso": 6, "tail": 20}
    assert set(frequency_bands([1] * 9)) == {"head"}  # nothing rarer than anything else


@pytest.mark.parametrize(
    ("factor", "want"),
    [
        # weights 50 / 30 / 40 → 4.17 / 2.5 / 3.33 → 4 / 3 / 3; the head has 2 distinct queries,
        # its other 2 go to torso and tail by their weights 30 : 40 → 1 and 1
        ("2", {"head": 2, "torso": 4, "tail": 4}),
        # weights 50 / 30 / 20 → 5 / 3 / 2; the head's 3 left over → 1.8 : 1.2 → 2 and 1
        ("1", {"head": 2, "torso": 5, "tail": 3}),
    ],
)
def test_frequency_strata_over_sample_the_tail_by_the_factor(cli, examples, factor, want):
    log = write_log(examples / "log.jsonl", frequency_log())
    proc = cli(
        ["sample", log, "--n", "10", "--by", "frequency", "--tail-factor", factor, "--seed", "2"],
        cwd=examples,
    )
    got = records(proc)
    assert Counter(r["meta"]["stratum"].removeprefix("frequency=") for r in got) == want
    assert all(r["query"].startswith(r["meta"]["stratum"].removeprefix("frequency=")) for r in got)
    assert {r["meta"]["log_count"] for r in got if r["query"].startswith("head")} == {25}
    assert f"the tail's ×{factor}" in proc.stderr
    assert "frequency=head   log: 50 lines, 2 distinct · sample: 2" in proc.stderr


def test_two_fields_jointly_and_several_logs_each_kept_as_its_source(cli, examples):
    eu = [
        {"query": f"eu {i}", "tenant": "eu", "intent": "a" if i % 2 else "b", "request_id": f"e{i}"}
        for i in range(10)
    ]
    us = [
        {"query": f"us {i}", "tenant": "us", "intent": "a", "request_id": i, "channel": "app"}
        for i in range(10)
    ]
    log_eu = write_log(examples / "eu.jsonl", eu)
    log_us = write_log(examples / "us.jsonl", us)
    args = ["sample", log_eu, log_us, "--n", "10", "--by", "tenant,intent", "--keep", "channel,intent"]
    proc = cli(args + ["--seed", "1", "--sampled-at", "2026-03-01"], cwd=examples)
    got = records(proc)
    assert Counter(r["meta"]["stratum"] for r in got) == {
        "tenant=us · intent=a": 5,
        "tenant=eu · intent=a": 3,  # 5 lines each: 2.5 → ties to the first (largest, then by name)
        "tenant=eu · intent=b": 2,
    }
    for r in got:
        tenant = r["query"][:2]
        assert r["source"] == f"{tenant}.jsonl" and r["sampled_at"] == "2026-03-01"
        assert r["request_id"] == (f"e{r['query'][3:]}" if tenant == "eu" else r["query"][3:])
        assert ("channel" in r["meta"]) == (tenant == "us") and r["meta"]["intent"] in "ab"
    assert [r["id"] for r in got] == [f"ex{n:03d}" for n in range(74, 84)]
    # the records are a clean part of the set: metadata is never an unknown field
    questions = examples / "questions.jsonl"
    questions.write_text(questions.read_text(encoding="utf-8") + proc.stdout, encoding="utf-8")
    check = json.loads(cli(["check", "--format", "json"], cwd=examples).stdout)
    assert not [f for f in check if f["code"] in ("unknown-field", "wrong-type")]


def test_topic_clusters_of_the_text_recover_separate_vocabularies(cli, examples):
    vocab = {
        "refund": "refund charged twice card payment invoice",
        "storm": "storm forecast snow wind weather avalanche",
        "dog": "dog pets animals kennel allowed leash",
    }
    rows = []
    for name, words in vocab.items():
        w = words.split()
        for i in range(12):
            rows.append({"query": f"{w[i % 6]} {w[(i + 1) % 6]} {w[(i + 3) % 6]} question {name}{i}"})
    log = write_log(examples / "log.jsonl", rows)
    args = ["sample", log, "--n", "9", "--by", "topic", "--topics", "3", "--seed", "7"]
    got = records(cli(args, cwd=examples))
    by_stratum: dict[str, set[str]] = {}
    for r in got:
        by_stratum.setdefault(r["meta"]["stratum"], set()).add(r["query"].split()[-1].rstrip("0123456789"))
    assert len(by_stratum) == 3 and all(len(names) == 1 for names in by_stratum.values())
    assert sorted(len([r for r in got if r["meta"]["stratum"] == s]) for s in by_stratum) == [3, 3, 3]
    assert cli(args, cwd=examples).stdout == cli(args, cwd=examples).stdout
    # a log with a topic field is stratified by it, not clustered
    named = write_log(examples / "named.jsonl", [dict(r, topic="all") for r in rows])
    got = records(cli(["sample", named, "--n", "3", "--by", "topic", "--seed", "7"], cwd=examples))
    assert {r["meta"]["stratum"] for r in got} == {"topic=all"}


def test_redact_before_counting(cli, examples):
    rows = [
        {"query": f"refund for {name}@example.org please", "note": f"call +44 20 7946 095{i}"}
        for i, name in enumerate("abc")
    ]
    log = write_log(examples / "log.jsonl", rows)
    proc = cli(["sample", log, "--n", "5", "--redact", "--keep", "note", "--seed", "1"], cwd=examples)
    got = records(proc)
    assert [r["query"] for r in got] == ["refund for <EMAIL> please"]
    assert got[0]["meta"] == {"log_count": 3, "note": "call <PHONE>"}
    assert "redacted 6 identifiers" in proc.stderr
    plain = records(cli(["sample", log, "--n", "5", "--seed", "1"], cwd=examples))
    assert len(plain) == 3 and "@example.org" in plain[0]["query"]


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        (["--by", "intent", "--strategy", "hard-cases"], "hard-cases"),
        (["--tail-factor", "0"], "--tail-factor"),
        (["--sampled-at", "March 1"], "--sampled-at"),
    ],
)
def test_sample_flags_that_do_not_fit_exit_2(cli, examples, extra, reason):
    log = write_log(examples / "log.jsonl", [{"query": "a question"}])
    proc = cli(["sample", log, "--n", "1", *extra], cwd=examples)
    assert proc.returncode == 2 and reason in proc.stderr


def test_several_logs_then_the_sets_path_from_anywhere(cli, examples, tmp_path):
    one = write_log(tmp_path / "one.jsonl", [{"query": "is the hut open in may"}])
    two = write_log(tmp_path / "two.jsonl", [{"query": "can I bring my dog to the hut"}])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    got = records(cli(["sample", one, two, examples, "--n", "5", "--seed", "1"], cwd=elsewhere))
    assert [(r["query"], r["source"], r["id"]) for r in got] == [
        ("is the hut open in may", "one.jsonl", "ex074"),
        ("can I bring my dog to the hut", "two.jsonl", "ex075"),
    ]
