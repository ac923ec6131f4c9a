"""What the newer commands write, under hostile values and interrupted writes (subprocesses):
an import writes no record its source did not have, Chroma CSV keeps a CR inside its field and
reads fields of any length, JSON output holds no character a line splitter breaks at, the
report and the exports are written atomically, and what a killed run left is cleaned up."""

from __future__ import annotations

import csv
import json
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from core_support import SAMPLE_DOCS, SAMPLE_LINES, cli_env, loc, make_project, qline

from golden_lsp.core.io.files import TEMP_INFIX

ODD = "Why\r does\u2028 a query\x85 break lines?"


def odd_project(root: Path) -> Path:
    """The sample set with one query holding a CR, a U+2028 and a U+0085."""
    lines = [*SAMPLE_LINES, qline("q8", [loc("faq.md", "offsets break whenever")], query=ODD)]
    return make_project(root, lines=lines)


def records(text: str) -> list[dict]:
    """The records of a questions file, reading it as an editor does (\\n, \\r\\n, \\r end lines)."""
    out = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line.strip() and not line.startswith("//"):
            out.append(json.loads(line))
    return out


# --- import: comments stay comments -----------------------------------------------------------


@pytest.mark.parametrize("breaker", ["\n", "\r", "\u2028"], ids=["LF", "CR", "U+2028"])
def test_an_import_writes_no_record_its_source_did_not_have(cli, project, tmp_path, breaker):
    evil = (
        "x" + breaker + json.dumps({"id": "evil", "query": "planted?", "expected_answer": "", "locators": []})
    )
    source = tmp_path / "dataset.json"
    source.write_text(
        json.dumps({"samples": [{"id": "s1", "query": "Which hut?", "relevant_chunk_ids": [evil]}]}),
        encoding="utf-8",
    )
    out = tmp_path / "imported.jsonl"
    proc = cli(["import", source, "--from", "dataset", "--out", out], cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "imported 1 sample to" in proc.stderr
    text = out.read_text(encoding="utf-8")
    assert [r["id"] for r in records(text)] == ["s1"]
    assert len(text.splitlines()) == text.count("\n") == 3  # header, the unanchored chunk, the record
    assert json.loads(text.splitlines()[1].removeprefix("// unanchored: chunk ")) == evil


def test_an_imported_file_named_with_a_line_break_keeps_its_header_one_line(cli, project, tmp_path):
    source = tmp_path / 'a\n{"id": "evil"}\n.jsonl'
    source.write_text(json.dumps({"user_input": "Which hut?", "reference_contexts": []}) + "\n")
    out = tmp_path / "imported.jsonl"
    proc = cli(["import", source, "--from", "ragas", "--out", out], cwd=project)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert len(records(text)) == 1 and len(text.splitlines()) == 2
    assert json.dumps(source.name) in text.splitlines()[0]


# --- Chroma CSV ---------------------------------------------------------------------------------


def test_chroma_csv_keeps_a_carriage_return_inside_its_field(cli, tmp_path):
    project = odd_project(tmp_path / "odd")
    out = tmp_path / "chroma.csv"
    proc = cli(["export", "--format", "chroma", "--out", out], cwd=project)
    assert proc.returncode == 0, proc.stderr
    with out.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert ODD in [r[0] for r in rows[1:]]  # a raw CR would have ended its row for csv
    back = tmp_path / "back.jsonl"
    proc = cli(["import", out, "--from", "chroma", "--out", back], cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert ODD in [r["query"] for r in records(back.read_text(encoding="utf-8"))]
    assert f"imported {len(rows) - 1} samples" in proc.stderr


def test_chroma_fields_over_the_csv_limit_import(cli, tmp_path):
    words = " ".join(f"w{i}" for i in range(30_000))  # one paragraph of ~200,000 characters
    docs = {**SAMPLE_DOCS, "long.md": f"# Long\n\n{words}.\n"}
    lines = [*SAMPLE_LINES, qline("q8", [loc("long.md", "w0 w1 w2 w3")])]
    project = make_project(tmp_path / "long", docs=docs, lines=lines)
    out, back = tmp_path / "chroma.csv", tmp_path / "back.jsonl"
    assert cli(["export", "--format", "chroma", "--out", out], cwd=project).returncode == 0
    assert max(len(line) for line in out.read_text(encoding="utf-8").splitlines()) > 131_072
    proc = cli(["import", out, "--from", "chroma", "--out", back], cwd=project)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    imported = [r for r in records(back.read_text(encoding="utf-8")) if r["locators"]]
    quotes = [loc["quote"] for r in imported for loc in r["locators"] if loc["doc"] == "long.md"]
    assert quotes and quotes[0].startswith("w0 ")  # the picker's phrase at the context's start


# --- JSON output: no line separators --------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["ragas", "dataset", "deepeval"])  # ranx holds no query text
def test_json_exports_escape_the_characters_line_splitters_break_at(cli, tmp_path, fmt):
    project = odd_project(tmp_path / "odd")
    out = tmp_path / f"out.{fmt}"
    proc = cli(["export", "--format", fmt, "--out", out], cwd=project)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert not {"\u2028", "\x85", "\r"} & set(text)
    assert text.splitlines() == text.split("\n")[:-1]  # every reader sees the same lines
    queries = {
        "ragas": lambda: [json.loads(line)["user_input"] for line in text.splitlines()],
        "dataset": lambda: [s["query"] for s in json.loads(text)["samples"]],
        "deepeval": lambda: [r["input"] for r in json.loads(text)],
    }[fmt]()
    assert ODD in queries


def test_sampled_records_escape_them_too(cli, project, tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"query": ODD.replace("\r", "")}, ensure_ascii=False) + "\n", encoding="utf-8")
    proc = cli(["sample", log, "--n", "1", "--seed", "1"], cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [proc.stdout.rstrip("\n")]
    assert json.loads(proc.stdout)["query"] == ODD.replace("\r", "")


# --- atomic writes, and what a killed write leaves -------------------------------------------------


def limited_cli(args: list, cwd: Path, max_bytes: int, die: bool) -> subprocess.CompletedProcess:
    """The CLI with files limited to ``max_bytes``: a write past it kills the process (SIGXFSZ, as
    a kill mid-write), or, with ``die`` False, fails with EFBIG (as a full disk). Python ignores
    SIGXFSZ from its start: the signal's default action is put back before the command runs."""
    code = (
        "import signal, sys; from golden_lsp.cli import main; "
        f"signal.signal(signal.SIGXFSZ, signal.{'SIG_DFL' if die else 'SIG_IGN'}); sys.exit(main(sys.argv[1:]))"
    )

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        cwd=cwd,
        env=cli_env(cwd),
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=300,
    )


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if TEMP_INFIX in p.name)


COMMANDS = {
    "report": lambda out: ["report", "--out", out],
    "export": lambda out: ["export", "--format", "deepeval", "--out", out],
    "import": lambda out: ["import", "src.jsonl", "--from", "ragas", "--out", out],
}


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="RLIMIT_FSIZE")
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_write_killed_half_way_keeps_the_old_file_and_is_cleaned_up(cli, tmp_path, command):
    if command == "report":
        pytest.importorskip("vl_convert")
    project = make_project(tmp_path / "proj")
    exported = cli(["export", "--format", "ragas", "--out", project / "src.jsonl"], cwd=project)
    assert exported.returncode == 0, exported.stderr
    out = tmp_path / "out" / "result"
    out.parent.mkdir()
    first = cli(COMMANDS[command](out), cwd=project)
    assert first.returncode == 0, first.stderr
    old = out.read_bytes()
    out.write_bytes(old + b"\n")  # what the next run would replace
    old = out.read_bytes()
    half = len(old) // 2

    full = limited_cli(COMMANDS[command](out), project, half, die=False)  # a full disk
    assert full.returncode == 2 and "cannot write" in full.stderr and "Traceback" not in full.stderr, (
        full.stderr
    )
    assert out.read_bytes() == old and leftovers(out.parent) == []

    killed = limited_cli(COMMANDS[command](out), project, half, die=True)  # killed mid-write
    assert killed.returncode == -signal.SIGXFSZ, killed.stderr
    assert out.read_bytes() == old
    [left] = leftovers(out.parent)

    again = cli(COMMANDS[command](out), cwd=project)
    assert again.returncode == 0, again.stderr
    assert f"removed the temporary of an interrupted {command}" in again.stderr and left in again.stderr
    assert leftovers(out.parent) == [] and out.read_bytes() != old


# --- cost -----------------------------------------------------------------------------------------


def peak_mb(args: list, cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    """The CLI's peak resident memory (VmHWM), read by the process itself as it ends, and the
    process (its output)."""
    code = (
        "import sys; from golden_lsp.cli import main; code = main(sys.argv[1:]); "
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]; "
        "sys.stderr.write('HWM ' + hwm.split()[1] + '\\n'); sys.exit(code)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        cwd=cwd,
        env=cli_env(cwd),
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return int(proc.stderr.rsplit("HWM ", 1)[1]) / 1024, proc


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_a_large_single_line_import_costs_a_few_times_its_size(cli, project, tmp_path):
    exported = tmp_path / "one.jsonl"
    assert cli(["export", "--format", "ragas", "--out", exported], cwd=project).returncode == 0
    samples = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    big, small = tmp_path / "big.json", tmp_path / "small.json"
    small.write_text(json.dumps(samples))
    with big.open("w") as f:  # one line of ~20 MB: a JSON array of samples, as json.dump writes it
        json.dump(samples * (20_000_000 // len(json.dumps(samples))), f)
    size = big.stat().st_size / 2**20
    base, _ = peak_mb(["import", small, "--from", "ragas", "--out", tmp_path / "s.jsonl"], project)
    peak, _ = peak_mb(["import", big, "--from", "ragas", "--out", tmp_path / "b.jsonl"], project)
    assert peak - base < 5 * size, f"{peak - base:.0f} MB over the base for {size:.0f} MB"


def test_sampling_reads_the_set_numbering_once(monkeypatch):
    from golden_lsp.core.labels import ids
    from golden_lsp.practice import sampling

    pattern, matched = ids._NUMBERED, []

    class Counting:
        def match(self, text: str):
            matched.append(text)
            return pattern.match(text)

    monkeypatch.setattr(ids, "_NUMBERED", Counting())
    used = [f"q{i:04d}" for i in range(1, 2001)]
    picked = [sampling.LoggedQuery(f"query {i}", line=i) for i in range(1, 1001)]
    out = sampling.skeletons(picked, used)
    assert [r["id"] for r in out] == [f"q{i:04d}" for i in range(2001, 3001)]
    assert len(matched) <= len(used) + len(picked)  # not len(used) per new id
