"""Real Emacs (Debian emacs-nox 28 with elpa-eglot, elpa-lsp-mode and elpa-company), in batch, with exactly the
snippets editors/README.md gives: the example questions file (one quote made ambiguous) opens in
the questions mode, the client starts golden-lsp, flymake shows the quote-ambiguous diagnostic and
a hover on a resolved quote names its chapter; through eglot, with markdown-mode and without it
(eglot then declares plain-text hovers only, and gets no Markdown), and through lsp-mode. Through
eglot also: no related information (eglot 1.9 declares it unsupported) and the "Lengthen" quick
fix, applied, writing a unique quote on one line; and no golden-lsp/status, which neither client
asks for."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from editor_support import (
    REPO,
    SUBDOC,
    TYPED_RECORD,
    completed_as_wanted,
    completion_cases,
    editor_deps,
    isolated_env,
    run,
    subfolder_copy,
    unavailable,
    venv_bin,
)

HERE = Path(__file__).resolve().parent
README = REPO / "editors" / "README.md"
SNIPPETS = {
    "eglot": [";; golden-lsp: a mode for questions files", ";; golden-lsp with eglot"],
    "lsp-mode": [";; golden-lsp: a mode for questions files", ";; golden-lsp with lsp-mode"],
}


def readme_elisp(marker: str) -> str:
    """The ```elisp block of editors/README.md whose first line is ``marker``."""
    blocks = re.findall(r"```elisp\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    found = [b for b in blocks if b.startswith(marker)]
    assert len(found) == 1, f"editors/README.md has {len(found)} elisp blocks starting {marker!r}"
    return found[0]


def find_emacs(output_dir: Path) -> str:
    emacs = shutil.which("emacs")
    if emacs is None:  # scripts/editor-deps.sh installs it (Debian emacs-nox, elpa-eglot, elpa-lsp-mode)
        emacs = editor_deps(output_dir).get("GOLDEN_LSP_EMACS") or shutil.which("emacs")
    if emacs is None:
        unavailable("emacs not found (scripts/editor-deps.sh installs emacs-nox, elpa-eglot, elpa-lsp-mode)")
    return emacs


def emacs_package(name: str, output_dir: Path) -> None:
    """Skip (or fail) when the Debian package of an Emacs package is not installed, after
    scripts/editor-deps.sh had the chance to install it."""

    def found() -> bool:
        return any(Path("/usr/share/emacs/site-lisp/elpa").glob(f"{name}-*"))

    if not found():
        editor_deps(output_dir)
    if not found():
        unavailable(f"the Debian package elpa-{name} is not installed (scripts/editor-deps.sh installs it)")


def run_emacs(
    script: str, client: str, questions: Path, tmp_path: Path, output_dir: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess, dict, str]:
    """Real Emacs in batch with the README's snippets for ``client``, running ``script`` (in this
    folder) on ``questions``; the process, the result it wrote and a context for assertion messages."""
    emacs = find_emacs(output_dir)
    emacs_package(client, output_dir)
    snippet = tmp_path / "golden-lsp.el"
    snippet.write_text("\n".join(readme_elisp(m) for m in SNIPPETS[client]), encoding="utf-8")
    out = output_dir / "result.json"
    full = isolated_env(
        tmp_path / "state",
        {
            "GOLDEN_CLIENT": client,
            "GOLDEN_SNIPPET": str(snippet),
            "GOLDEN_QUESTIONS": str(questions),
            "GOLDEN_OUT": str(out),
            "GOLDEN_TIMEOUT": "30",
            **env,
        },
    )
    proc = run(
        [emacs, "--batch", "-Q", "-l", HERE / script],
        timeout=180,
        env=full,
        cwd=questions.parent,
        out=output_dir / "emacs-output.txt",
    )
    assert out.is_file(), f"emacs wrote no result (exit {proc.returncode}); output:\n{proc.stdout[-4000:]}"
    res = json.loads(out.read_text(encoding="utf-8"))
    ctx = (
        f"emacs exit {proc.returncode}\noutput:\n{proc.stdout[-4000:]}\nresult:\n{json.dumps(res, indent=2)}"
    )
    return proc, res, ctx


@pytest.mark.parametrize("variant", ["eglot", "eglot-plain", "lsp-mode"])
def test_emacs_readme_snippets_diagnostic_and_hover(variant, tmp_path, ambiguous_copy, output_dir):
    client = variant.removesuffix("-plain")
    if not (venv_bin() / "golden-lsp").exists():
        pytest.fail(
            "the golden-lsp command is not installed next to this Python (pip install -e .)", pytrace=False
        )
    proc, res, ctx = run_emacs(
        "emacs_test.el",
        client,
        ambiguous_copy["questions"],
        tmp_path,
        output_dir,
        {
            "GOLDEN_AMBIGUOUS_LINE": str(ambiguous_copy["ambiguous_line"] + 1),
            "GOLDEN_HOVER_LINE": str(ambiguous_copy["hover_line"] + 1),
            "GOLDEN_HOVER_COL": str(ambiguous_copy["hover_col_utf32"]),
            **({"GOLDEN_NO_MARKDOWN": "1"} if variant.endswith("-plain") else {}),
        },
    )
    assert res.get("major-mode") == "golden-questions-mode", ctx
    assert res.get("connected") is True, ctx
    assert "golden-lsp" in " ".join(res.get("server-command") or []), ctx
    assert res.get("diagnostic-arrived") is True and res.get("flymake-mode") is True, ctx
    assert any(f"in {ambiguous_copy['doc']}" in d for d in res["diagnostics"]), ctx
    assert res.get("hover-arrived") is True and ambiguous_copy["hover_doc"] in res["hover"], ctx
    assert "Unknown notification" not in proc.stdout, ctx  # lsp-mode: no status is sent to it
    assert res.get("ok") is True and proc.returncode == 0, ctx
    if variant == "eglot-plain":  # plain text declared: no Markdown markup shows in the hover
        assert "**" not in res["hover"] and "`" not in res["hover"], ctx
    if client == "eglot":
        assert res.get("related-information") is False, ctx
        assert any(t.startswith("Lengthen to the occurrence at ") for t in res["code-actions"]), ctx
        quote = json.loads(res["lengthened-line"])["locators"][0]["quote"]
        corpus = (ambiguous_copy["folder"] / "corpus" / ambiguous_copy["doc"]).read_text(encoding="utf-8")
        assert ambiguous_copy["word"] in quote and "\n" not in quote and corpus.count(quote) == 1, ctx


@pytest.mark.parametrize(
    "client, ui",
    [
        ("eglot", "capf"),  # Emacs's own completion-at-point (C-M-i): the sole candidates
        ("eglot", "company"),
        ("lsp-mode", "company"),  # lsp-mode applies an edit from company (editors/README.md)
    ],
)
def test_emacs_completion_leaves_the_record_wanted(client, ui, tmp_path, output_dir):
    """A record typed with the README's snippets: a doc in a subfolder inside a string the editor
    closed and a quote after words typed (sole candidates), and through company a multi-word quote
    from the menu at the end of a quote and in its middle; each line is the record wanted."""
    if ui == "company":
        emacs_package("company", output_dir)
    folder = subfolder_copy(tmp_path)
    questions = folder / "questions.jsonl"
    cases = completion_cases(folder, multi_word=ui == "company")
    proc, res, ctx = run_emacs(
        "emacs_completion_test.el",
        client,
        questions,
        tmp_path,
        output_dir,
        {
            "GOLDEN_COMPLETE_LINE": str(len(questions.read_text(encoding="utf-8").split("\n")) - 1),
            "GOLDEN_COMPLETE_CASES": json.dumps(cases),
            "GOLDEN_COMPLETE_UI": ui,
        },
    )
    assert res.get("ok") is True and proc.returncode == 0, ctx
    assert len(res["rounds"]) == len(cases), ctx
    for case, r in zip(cases, res["rounds"], strict=True):
        wrong = completed_as_wanted(case, r["line_after"], r.get("chosen"))
        assert wrong is None, f"{case['line']}: {wrong}\n{ctx}"


@pytest.mark.parametrize("client", ["eglot", "lsp-mode"])
def test_emacs_positions_after_a_character_outside_the_bmp(client, tmp_path, output_dir):
    """A record whose query holds an emoji (two UTF-16 units, one character in Emacs): the
    quote-not-found diagnostic starts exactly at the quote, and an edit after the emoji (a
    deleted character, sent as an incremental change) lands where Emacs made it — through eglot
    (which counts UTF-16) and lsp-mode (which counts characters and offers no encoding: the server
    counts code points for it)."""
    folder = subfolder_copy(tmp_path)
    questions = folder / "questions.jsonl"
    record = json.loads(TYPED_RECORD + json.dumps(SUBDOC) + "}]}")
    record["query"] = "Where 🎉 does the build put the pages?"
    record["locators"][0]["quote"] = "Xdeploy your documentation to any static host"
    text = questions.read_text(encoding="utf-8").rstrip("\n")
    questions.write_text(text + "\n" + json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    proc, res, ctx = run_emacs(
        "emacs_positions_test.el",
        client,
        questions,
        tmp_path,
        output_dir,
        {"GOLDEN_EMOJI_LINE": str(len(text.split("\n")) + 1)},
    )
    assert res.get("ok") is True and proc.returncode == 0, ctx
    assert res["diagnostic-column"] == res["quote-column"], ctx
    assert res["diagnostic-text"] == json.dumps(record["locators"][0]["quote"]), ctx
    assert res.get("cleared") is True, ctx
