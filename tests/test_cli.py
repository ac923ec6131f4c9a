"""The command line, run as a subprocess: check/--check, formats, exit codes, config, build."""

from __future__ import annotations

import json
import os
import pty
import select
import shlex
import subprocess
import sys

import pytest
from core_support import FAQ, SAMPLE_DOCS, SAMPLE_LINES, loc, make_project, qline, write_docs, write_questions

from golden_lsp.core.findings.diagnostics import Range

BROKEN_LINE = qline("q9", [loc("faq.md", "Because offsets break  whenever")])  # two spaces: not found


def line_of(lines: list[str], id_: str) -> int:
    return next(i for i, line in enumerate(lines) if f'"id": "{id_}"' in line)


def one_line(text: str) -> bool:
    return text.endswith("\n") and text.count("\n") == 1


# --- check, --check and exit codes ----------------------------------------------------------


def test_check_clean_set_exits_0(project, cli):
    proc = cli(["check"], cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert (
        proc.stdout
        == "golden-lsp.toml:1:1: warning[too-few-records] 7 records: a golden set needs at least 50 "
        "to measure anything\n"
    )
    assert proc.stderr == "questions.jsonl: 7 records, 0 errors, 1 warning\n"


def test_check_alias_and_error_exit_1(project, cli):
    write_questions(project / "questions.jsonl", SAMPLE_LINES + [BROKEN_LINE])
    for args in (
        ["--check"],
        ["check"],
        ["--check", "questions.jsonl"],
        ["check", str(project / "questions.jsonl")],
    ):
        proc = cli(args, cwd=project)
        assert proc.returncode == 1, (args, proc.stderr)
        n = len(SAMPLE_LINES) + 1
        col = BROKEN_LINE.index('"Because') + 1
        assert (
            f"questions.jsonl:{n}:{col}: error[quote-not-found] quote not found in faq.md; the same words "
            "occur with different whitespace at 3:31" in proc.stdout
        )
        assert "1 error," in proc.stderr


def test_check_paths_may_be_folders_holding_a_config(tmp_path, cli):
    make_project(tmp_path / "a")
    make_project(tmp_path / "b", lines=SAMPLE_LINES + [BROKEN_LINE])
    proc = cli(["check", "a", "b"], cwd=tmp_path)
    assert proc.returncode == 1
    assert "a/questions.jsonl: 7 records, 0 errors" in proc.stderr
    assert "b/questions.jsonl: 8 records, 1 error," in proc.stderr
    assert cli(["check", "a"], cwd=tmp_path).returncode == 0


def test_format_json(project, cli):
    write_questions(
        project / "questions.jsonl", SAMPLE_LINES + [BROKEN_LINE, qline("q10", [loc("faq.md", "the")])]
    )
    proc = cli(["check", "--format", "json"], cwd=project)
    assert proc.returncode == 1
    items = json.loads(proc.stdout)
    for item in items:
        assert {
            "path",
            "line",
            "column",
            "end_line",
            "end_column",
            "severity",
            "code",
            "message",
            "related",
        } <= set(item)
    by_code = {i["code"]: i for i in items}
    nf = by_code["quote-not-found"]
    col = BROKEN_LINE.index('"Because') + 1
    assert (nf["path"], nf["line"], nf["column"], nf["end_line"], nf["end_column"], nf["severity"]) == (
        "questions.jsonl",
        len(SAMPLE_LINES) + 1,
        col,
        len(SAMPLE_LINES) + 1,
        col + len('"Because offsets break  whenever"'),
        "error",
    )
    assert nf["fix"] == {"replacement": "Because offsets break whenever"}
    (rel,) = nf["related"]
    assert (rel["path"], rel["line"], rel["column"]) == ("corpus/faq.md", 3, 31)
    amb = by_code["quote-ambiguous"]
    assert len(amb["related"]) == FAQ.count("the") and all(
        r["path"] == "corpus/faq.md" for r in amb["related"]
    )
    assert by_code["too-few-records"]["severity"] == "warning"
    assert proc.stderr == ""


def test_format_github(project, cli):
    write_questions(project / "questions.jsonl", SAMPLE_LINES + [BROKEN_LINE])
    proc = cli(["check", "--format", "github"], cwd=project)
    assert proc.returncode == 1
    out = proc.stdout.splitlines()
    n = len(SAMPLE_LINES) + 1
    col = BROKEN_LINE.index('"Because') + 1
    error = next(line for line in out if line.startswith("::error "))
    assert error.startswith(f"::error file=questions.jsonl,line={n},col={col},endLine={n},")
    assert ",title=quote-not-found::quote not found in faq.md" in error
    assert "::warning file=golden-lsp.toml,line=1,col=1," in proc.stdout  # the set's: on its config


def test_ranges_are_rendered_one_based():
    assert Range(0, 4, 2, 9).one_based() == Range(1, 5, 3, 10)


def test_github_format_escapes_properties(tmp_path, cli):
    root = make_project(tmp_path / "a,b:c")
    write_questions(root / "questions.jsonl", SAMPLE_LINES + [BROKEN_LINE])
    proc = cli(["check", "--format", "github", root / "questions.jsonl"], cwd=tmp_path)
    assert "::error file=a%2Cb%3Ac/questions.jsonl,line=" in proc.stdout


# --- exit 2: usage and configuration problems -----------------------------------------------


@pytest.mark.parametrize(
    "setup, args, reason",
    [
        (
            lambda p: (p / "golden-lsp.toml").write_text('corpus = "nope"\n'),
            ["check"],
            "corpus folder not found: nope\n",
        ),
        (lambda p: None, ["check", "--glob", "*.txt"], "no document in corpus matches '*.txt'"),
        (lambda p: (p / "questions.jsonl").unlink(), ["check"], "questions file not found"),
        (lambda p: None, ["check", "--questions", "missing.jsonl"], "questions file not found"),
        (lambda p: None, ["check", "missing.jsonl"], "no such file or folder"),
        (
            lambda p: (p / "qdir").mkdir(),
            ["check", "--questions", "qdir"],
            "questions file qdir is a folder, not a regular file",
        ),
        (lambda p: (p / "questions.jsonl").write_bytes(b'{"id": "\xff"}\n'), ["check"], "not valid UTF-8"),
        (
            lambda p: (p / "golden-lsp.toml").write_text('corpus = "corpus"\ncolour = "red"\n'),
            ["check"],
            "unknown key 'colour'",
        ),
        (
            lambda p: (p / "golden-lsp.toml").write_text('corpus = "corpus"\nhit_rule = "best"\n'),
            ["check"],
            "unknown hit rule",
        ),
        (lambda p: None, ["check", "--hit-rule", "coverage>=1.5"], "τ must be in"),
        (lambda p: None, ["build", "--hit-rule", "nearest"], "unknown hit rule"),
        (lambda p: None, ["check", "--max-chars", "0"], "max_chars"),
        (lambda p: (p / "golden-lsp.toml").unlink(), ["check"], "no corpus"),
        (lambda p: None, ["check", "--config", "other.toml"], "config file not found"),
        (lambda p: (p / "golden-lsp.toml").write_text("corpus = [\n"), ["check"], "invalid TOML"),
        (lambda p: None, ["check", "--glob", "/abs/*.md"], "invalid glob"),
        (lambda p: (p / "out").mkdir(), ["build", "--manifest", "out"], "the manifest out is a folder"),
        (
            lambda p: None,
            ["build", "--artifact", "questions.jsonl"],
            "refusing to build: the artifact questions.jsonl would overwrite the questions file",
        ),
        (
            lambda p: None,
            ["build", "--artifact", "x.json", "--manifest", "x.json"],
            "the manifest x.json would overwrite the artifact",
        ),
        (
            lambda p: None,
            ["build", "--artifact", "corpus/faq.md"],
            "would overwrite the corpus document faq.md",
        ),
        (
            lambda p: None,
            ["build", "--manifest", "golden-lsp.toml"],
            "would overwrite the config file golden-lsp.toml",
        ),
        (
            lambda p: (p / "pyproject.toml").write_text("[project]\nname = 'x'\n"),
            ["build", "--artifact", "pyproject.toml"],
            "would overwrite the config file pyproject.toml",
        ),
        (
            lambda p: (p / "golden-lsp.toml").write_text('corpus = "corpus"\nmanifest = "golden-lsp.toml"\n'),
            ["build"],
            "the manifest golden-lsp.toml would overwrite the config file golden-lsp.toml",
        ),
        (
            lambda p: (p / "tours.questions.jsonl").write_text(""),
            ["build", "--manifest", "tours.questions.jsonl"],
            "would overwrite the questions file tours.questions.jsonl",
        ),
        (
            lambda p: None,
            ["build", "--artifact", "corpus/golden.md"],
            "would overwrite the corpus (it matches '*.md'",
        ),
        (
            lambda p: None,
            ["build", "--glob", "**/*.md", "--manifest", "corpus/out/m.md"],
            "would overwrite the corpus (it matches '**/*.md'",
        ),
        (lambda p: None, ["--tcp", "foo"], "--tcp expects HOST:PORT"),
        (lambda p: None, ["serve", "--tcp", "localhost:http"], "not 'localhost:http'"),
        (lambda p: None, ["--tcp", "127.0.0.1:70000"], "a port from 1 to 65535"),
        (lambda p: None, ["--tcp", ":0"], "--tcp expects HOST:PORT"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_usage_errors_exit_2_with_one_line_reason(project, cli, setup, args, reason):
    setup(project)
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    proc = cli(args, cwd=project)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert one_line(proc.stderr) and proc.stderr.startswith("golden-lsp: ") and reason in proc.stderr, (
        proc.stderr
    )
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before  # nothing written


# --- configuration discovery ----------------------------------------------------------------


def test_config_found_walking_up_from_the_questions_file(tmp_path, cli):
    proj = tmp_path / "proj"
    write_docs(proj / "docs", SAMPLE_DOCS)
    write_questions(proj / "sets" / "deep" / "questions.jsonl", SAMPLE_LINES)
    (proj / "golden-lsp.toml").write_text(
        'corpus = "docs"\nquestions = "sets/deep/questions.jsonl"\n', encoding="utf-8"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = cli(["check", proj / "sets" / "deep" / "questions.jsonl"], cwd=elsewhere)
    assert proc.returncode == 0 and "7 records, 0 errors" in proc.stderr, proc.stderr
    # from the working directory when no path is given
    proc = cli(["check"], cwd=proj / "sets" / "deep")
    assert proc.returncode == 0 and "questions.jsonl: 7 records" in proc.stderr
    # and a questions file elsewhere is checked against the found config's corpus
    other = write_questions(proj / "sets" / "other.jsonl", [BROKEN_LINE])
    proc = cli(["check", other], cwd=elsewhere)
    assert proc.returncode == 1 and "error[quote-not-found]" in proc.stdout


def test_a_folder_without_a_config_means_its_own_questions_file(tmp_path, cli):
    root = make_project(tmp_path / "set", config=None)
    write_questions(tmp_path / "questions.jsonl", [BROKEN_LINE])  # in the working directory: not this set's
    proc = cli(["check", "set", "--corpus", root / "corpus"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr == "set/questions.jsonl: 7 records, 0 errors, 1 warning\n"


def test_bom_is_not_a_column_as_in_the_editor(project, cli):
    (project / "questions.jsonl").write_bytes(("\ufeff" + BROKEN_LINE + "\n").encode("utf-8"))
    proc = cli(["check"], cwd=project)
    col = BROKEN_LINE.index('"Because') + 1
    assert f"questions.jsonl:1:{col}: error[quote-not-found]" in proc.stdout, proc.stdout


def test_config_from_pyproject_tool_section(tmp_path, cli):
    proj = tmp_path / "pp"
    write_docs(proj / "docs", SAMPLE_DOCS)
    (proj / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.golden-lsp]\ncorpus = "docs"\nmax_chars = 700\n', encoding="utf-8"
    )
    (proj / "sub").mkdir()
    (proj / "sub" / "pyproject.toml").write_text('[project]\nname = "unrelated"\n', encoding="utf-8")
    write_questions(proj / "sub" / "questions.jsonl", SAMPLE_LINES)
    proc = cli(["build", "--questions", proj / "sub" / "questions.jsonl"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    m = json.loads((proj / "sub" / "golden-set.v1.manifest.json").read_text(encoding="utf-8"))
    assert m["max_chars"] == 700 and m["n_docs"] == 2


def test_every_key_overridable_by_a_flag(tmp_path, cli):
    proj = tmp_path / "proj"
    make_project(
        proj,
        config='corpus = "corpus"\nglob = "none/*.md"\nmax_chars = 500\nhit_rule = "span_containment"\n'
        'questions = "nope.jsonl"\nartifact = "cfg/a.jsonl"\nmanifest = "cfg/m.json"\n',
    )
    write_docs(tmp_path / "alt", {"sub/guide.md": SAMPLE_DOCS["guide.md"], "faq.md": FAQ})
    lines = [line.replace('"guide.md"', '"sub/guide.md"') for line in SAMPLE_LINES]
    write_questions(tmp_path / "q.jsonl", lines)
    proc = cli(
        [
            "build",
            "--config",
            proj / "golden-lsp.toml",
            "--corpus",
            "alt",
            "--glob",
            "**/*.md",
            "--questions",
            "q.jsonl",
            "--artifact",
            "out/a.jsonl",
            "--manifest",
            "out/m.json",
            "--max-chars",
            "1000",
            "--hit-rule",
            "coverage>=0.5",
        ],
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "wrote out/a.jsonl (7 records), out/m.json and out/a.passages.json" in proc.stderr
    assert not (proj / "cfg").exists()
    m = json.loads((tmp_path / "out" / "m.json").read_text(encoding="utf-8"))
    assert (m["max_chars"], m["build_hit_rule"], sorted(m["docs"])) == (
        1000,
        "coverage>=0.5",
        ["faq.md", "sub/guide.md"],
    )
    # the config's own values apply without flags (and its glob finds nothing here)
    proc = cli(["check", "--config", proj / "golden-lsp.toml"], cwd=tmp_path)
    assert proc.returncode == 2 and "no document" in proc.stderr


def test_config_paths_are_relative_to_the_config_file(tmp_path, cli):
    proj = make_project(
        tmp_path / "proj",
        config='corpus = "corpus"\nartifact = "derived/a.jsonl"\nmanifest = "derived/m.json"\n',
    )
    proc = cli(["build", "--config", proj / "golden-lsp.toml"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (proj / "derived" / "a.jsonl").is_file() and (proj / "derived" / "m.json").is_file()


# --- build ----------------------------------------------------------------------------------


def test_build_then_check_is_clean(project, cli):
    proc = cli(["build"], cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert (
        "wrote golden-set.v1.jsonl (7 records), golden-set.v1.manifest.json and golden-set.v1.passages.json"
        in proc.stderr
    )
    artifact = (project / "golden-set.v1.jsonl").read_text(encoding="utf-8")
    assert [json.loads(line)["query_id"] for line in artifact.splitlines()] == [f"q{i}" for i in range(1, 8)]
    m = json.loads((project / "golden-set.v1.manifest.json").read_text(encoding="utf-8"))
    assert m["corpus_commit"] == "unknown" and m["n_records"] == 7
    proc = cli(["check"], cwd=project)
    assert proc.returncode == 0 and "stale-" not in proc.stdout


def test_build_with_errors_writes_nothing_and_exits_1(project, cli):
    (project / "golden-set.v1.jsonl").write_text("previous\n", encoding="utf-8")
    write_questions(project / "questions.jsonl", SAMPLE_LINES + [BROKEN_LINE])
    proc = cli(["build"], cwd=project)
    assert proc.returncode == 1
    assert "error[quote-not-found]" in proc.stdout and "nothing written: 1 error\n" in proc.stderr
    assert (project / "golden-set.v1.jsonl").read_text(encoding="utf-8") == "previous\n"
    assert not (project / "golden-set.v1.manifest.json").exists()
    assert sorted(p.name for p in project.iterdir()) == [
        "corpus",
        "golden-lsp.toml",
        "golden-set.v1.jsonl",
        "questions.jsonl",
    ]


def test_build_into_a_folder_writes_nothing(project, cli):
    (project / "golden-set.v1.jsonl").write_text("previous\n", encoding="utf-8")
    (project / "m.json").mkdir()
    proc = cli(["build", "--manifest", "m.json"], cwd=project)
    assert proc.returncode == 2 and one_line(proc.stderr) and "m.json" in proc.stderr
    assert (project / "golden-set.v1.jsonl").read_text(encoding="utf-8") == "previous\n"
    assert not any(p.name.startswith(".") for p in project.iterdir())


def test_lone_surrogate_in_a_record_is_reported_not_a_crash(project, cli):
    bad = qline("q8", [loc("faq.md", "offsets break whenever")]).replace("What does", "What \\udc00 does")
    assert "\\udc00" in bad
    write_questions(project / "questions.jsonl", SAMPLE_LINES + [bad])
    proc = cli(["build"], cwd=project)
    assert proc.returncode == 1 and "error[invalid-json]" in proc.stdout and "Traceback" not in proc.stderr
    assert not (project / "golden-set.v1.jsonl").exists()


def test_non_utf8_corpus_file_refuses_the_build(project, cli):
    (project / "corpus" / "latin.md").write_bytes(b"# Titre\n\nCaf\xe9 cr\xe8me\n")
    proc = cli(["build"], cwd=project)
    assert proc.returncode == 1
    assert "corpus/latin.md:3:4: error[corpus-error] latin.md: not valid UTF-8 at byte 12" in proc.stdout
    assert not (project / "golden-set.v1.jsonl").exists()


def test_corpus_edit_after_build_reports_stale_files(project, cli):
    assert cli(["build"], cwd=project).returncode == 0
    faq = project / "corpus" / "faq.md"
    faq.write_text(FAQ.replace("reviews each change", "reviews every change"), encoding="utf-8")
    proc = cli(["check"], cwd=project)
    assert proc.returncode == 1
    q4 = line_of(SAMPLE_LINES, "q4")
    col = SAMPLE_LINES[q4].index('"q4"') + 1
    assert (
        f"questions.jsonl:{q4 + 1}:{col}: error[stale-artifact] artifact golden-set.v1.jsonl is stale: "
        "4 records differ from a fresh build (q4, q5, q6, q7)" in proc.stdout
    )
    assert (
        "error[stale-manifest] manifest golden-set.v1.manifest.json is stale (corpus_chars, corpus_digest, docs differ); "
        "run `golden-lsp build --config" in proc.stdout
    )
    # rebuilding fixes both
    assert cli(["build"], cwd=project).returncode == 0
    assert cli(["check"], cwd=project).returncode == 0


def test_version_and_help(cli, tmp_path):
    proc = cli(["--version"], cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("golden-lsp ")
    proc = cli(["check", "--help"], cwd=tmp_path)
    assert proc.returncode == 0 and "--format" in proc.stdout


def test_crlf_questions_file_has_the_columns_of_the_lf_one(project, cli):
    # end-of-line findings (a truncated record) must end at the visible end of the line, not
    # between \r and \n; the set-level findings sit on the config
    truncated = '{"id": "q8", "query": "cut short",'
    lines = [*SAMPLE_LINES, truncated]
    outputs = {}
    for name, end in (("lf", "\n"), ("crlf", "\r\n")):
        (project / "questions.jsonl").write_bytes(end.join(lines).encode("utf-8") + end.encode())
        proc = cli(["check", "--format", "json"], cwd=project)
        assert proc.returncode == 1, proc.stderr
        outputs[name] = json.loads(proc.stdout)
    assert outputs["crlf"] == outputs["lf"]
    bad = next(f for f in outputs["crlf"] if f["code"] == "invalid-json")
    assert (bad["line"], bad["column"], bad["end_column"]) == (
        len(lines),
        len(truncated) + 1,
        len(truncated) + 1,
    )
    top = next(f for f in outputs["crlf"] if f["code"] == "too-few-records")
    assert (top["path"], top["line"], top["column"], top["end_column"]) == ("golden-lsp.toml", 1, 1, 1)


def test_check_imports_no_command_it_does_not_run(tmp_path):
    """`check` (a pre-commit hook, every CI run) imports only its own command module: no numpy,
    DuckDB, chart library, LLM judge or SDK, whichever extras are installed."""
    code = (
        "import sys; from golden_lsp.cli import _parser; _parser('check'); "
        "print(sorted(m for m in ('numpy', 'duckdb', 'altair', 'bm25s', 'golden_lsp.cli.evaluate', 'golden_lsp.keep', "
        "'anthropic', 'openai') if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stdout + proc.stderr


# --- inputs that are not regular files --------------------------------------------------------


@pytest.mark.parametrize(
    "name, args, what",
    [
        ("questions.jsonl", ["check"], "questions file questions.jsonl is a FIFO"),
        ("questions.jsonl", ["build"], "questions file questions.jsonl is a FIFO"),
        ("golden-set.v1.jsonl", ["check"], "artifact golden-set.v1.jsonl is a FIFO"),
        ("golden-set.v1.manifest.json", ["check"], "manifest golden-set.v1.manifest.json is a FIFO"),
        ("golden-lsp.toml", ["check"], "golden-lsp.toml is a FIFO"),
        ("other.toml", ["check", "--config", "other.toml"], "other.toml is a FIFO"),
    ],
)
def test_a_fifo_input_is_a_located_error_not_a_hang(project, cli, name, args, what):
    """The subprocess timeout is the failure detector: reading a FIFO would block forever."""
    (project / name).unlink(missing_ok=True)
    os.mkfifo(project / name)
    proc = cli(args, cwd=project)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert one_line(proc.stderr) and what in proc.stderr and "not a regular file" in proc.stderr, proc.stderr


def test_a_device_as_questions_file_is_a_located_error(project, cli):
    proc = cli(["check", "--config", "golden-lsp.toml", "--questions", "/dev/zero"], cwd=project)
    assert proc.returncode == 2
    assert proc.stderr == "golden-lsp: questions file /dev/zero is a character device, not a regular file\n"


# --- first contact ----------------------------------------------------------------------------


def test_build_accepts_a_folder_like_check(tmp_path, cli):
    make_project(tmp_path / "proj")
    proc = cli(["build", "proj"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (
        proc.stderr
        == "golden-lsp: wrote proj/golden-set.v1.jsonl (7 records), proj/golden-set.v1.manifest.json and proj/golden-set.v1.passages.json\n"
    )
    assert cli(["check", "proj"], cwd=tmp_path).returncode == 0


def test_counts_are_singular_for_one(project, cli):
    write_questions(project / "questions.jsonl", SAMPLE_LINES[:2] + [BROKEN_LINE])
    proc = cli(["check"], cwd=project)
    assert proc.stderr == "questions.jsonl: 2 records, 1 error, 1 warning\n"


def test_stale_message_names_relative_paths_and_the_build_with_the_checks_overrides(project, cli):
    (project / "out dir").mkdir()
    overrides = ["--artifact", "out dir/a.jsonl", "--max-chars", "900"]
    assert cli(["build", *overrides], cwd=project).returncode == 0
    write_questions(
        project / "questions.jsonl", SAMPLE_LINES + [qline("q8", [loc("faq.md", "reviews each change")])]
    )
    proc = cli(["check", *overrides], cwd=project)
    assert proc.returncode == 1
    build = "golden-lsp build --config golden-lsp.toml --artifact 'out dir/a.jsonl' --max-chars 900"
    stale = [ln for ln in proc.stdout.splitlines() if "stale-" in ln]
    assert stale and all(ln.endswith(f"run `{build}`") for ln in stale), stale
    assert "artifact out dir/a.jsonl is stale" in proc.stdout and str(project) not in proc.stdout
    assert (
        cli(shlex.split(build)[1:], cwd=project).returncode == 0
    )  # the suggested command, as a shell splits it
    assert cli(["check", *overrides], cwd=project).returncode == 0


def test_an_output_whose_folder_is_a_file_is_a_clear_error(project, cli):
    (project / "out").write_text("a file\n", encoding="utf-8")
    proc = cli(["build", "--artifact", "out/a.jsonl"], cwd=project)
    assert proc.returncode == 2
    assert proc.stderr == "golden-lsp: cannot write out/a.jsonl: out is a file, not a folder\n"


def test_bare_golden_lsp_in_a_terminal_says_it_is_a_language_server(tmp_path):
    """stdin is a pty: one line on stderr saying what it waits for and how to check instead."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "golden_lsp"],
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    os.close(slave)
    try:
        ready, _, _ = select.select([proc.stderr], [], [], 60)  # the failure detector, not a timing
        assert ready, "nothing on stderr"
        line = proc.stderr.readline().decode("utf-8")
    finally:
        proc.kill()
        proc.wait(timeout=60)
        os.close(master)
    assert line.startswith(
        "golden-lsp: this is the language server, waiting for an editor to talk LSP on stdin"
    )
    assert "golden-lsp check" in line


def test_piped_golden_lsp_prints_nothing_before_speaking_lsp(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "golden_lsp"], input=b"", capture_output=True, cwd=tmp_path, timeout=60
    )
    assert b"this is the language server" not in proc.stderr
