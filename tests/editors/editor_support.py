"""Helpers for the real-editor tests (Neovim, VS Code via code-server).

A missing tool skips a test, unless GOLDEN_LSP_REQUIRE_EDITORS is set (CI sets it): then it fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
DEPS_SCRIPT = REPO / "scripts" / "editor-deps.sh"
CACHE = Path(os.environ.get("GOLDEN_LSP_CACHE") or Path.home() / ".cache" / "golden-lsp")


def require_editors() -> bool:
    return os.environ.get("GOLDEN_LSP_REQUIRE_EDITORS", "").strip() not in ("", "0", "false", "no")


def unavailable(reason: str) -> None:
    """Skip (locally) or fail (GOLDEN_LSP_REQUIRE_EDITORS set) because a tool is missing."""
    if require_editors():
        pytest.fail(f"{reason} (GOLDEN_LSP_REQUIRE_EDITORS is set, so this is a failure)", pytrace=False)
    pytest.skip(reason)


def venv_bin() -> Path:
    return Path(sys.executable).parent


def server_command() -> list[str]:
    return [sys.executable, "-m", "golden_lsp"]


def _canonical(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    return unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))


def utf16_col(line: str, index: int) -> int:
    return len(line[:index].encode("utf-16-le")) // 2


def _records(lines: list[str]):
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s.startswith(("//", "#")):
            continue
        try:
            rec = json.loads(s)
        except ValueError:
            continue
        if isinstance(rec, dict) and isinstance(rec.get("locators"), list) and rec["locators"]:
            yield i, rec


def _pick_word(text: str) -> str | None:
    """A short string (one word of 5+ letters) that occurs 2..5 times in text, on no line twice
    in a way that would span lines; deterministic."""
    counts = Counter(re.findall(r"[A-Za-z]{5,}", text))
    best = None
    for word, _ in counts.most_common():
        n = text.count(word)  # substring occurrences, as a quote matcher would see them
        if 2 <= n <= 5:
            key = (n, text.index(word))
            if best is None or key < best[0]:
                best = (key, word)
    return best[1] if best else None


def make_ambiguous_copy(dest: Path) -> dict:
    """Copy examples/ to dest and make one quote ambiguous.

    Returns {folder, questions, word, doc, ambiguous_line, hover_line, hover_col, hover_quote}.
    Lines are 0-based; hover_col (UTF-16 code units; also hover_col_utf8/_utf32) points into a
    valid quote.
    """
    if not (EXAMPLES / "questions.jsonl").is_file() or not (EXAMPLES / "golden-lsp.toml").is_file():
        pytest.fail(
            f"the example folder {EXAMPLES} is missing questions.jsonl or golden-lsp.toml", pytrace=False
        )
    folder = dest / "examples"
    shutil.copytree(
        EXAMPLES,
        folder,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    qpath = folder / "questions.jsonl"
    raw = qpath.read_text(encoding="utf-8")
    lines = raw.split("\n")
    corpus_dir = folder / "corpus"
    chosen = None
    for i, rec in _records(lines):
        loc = rec["locators"][0]
        doc = loc.get("doc")
        if not isinstance(doc, str) or not (corpus_dir / doc).is_file():
            continue
        word = _pick_word(_canonical((corpus_dir / doc).read_text(encoding="utf-8")))
        if word:
            chosen = (i, rec, word, doc)
            break
    if chosen is None:
        pytest.fail(
            "could not find a word that occurs several times in a chapter of examples/corpus", pytrace=False
        )
    amb_line, rec, word, doc = chosen
    rec["locators"][0]["quote"] = word
    rec["locators"][0].pop("exact", None)
    lines[amb_line] = json.dumps(rec, ensure_ascii=False)

    hover = None
    for i, rec2 in _records(lines):
        if i == amb_line:
            continue
        quote = rec2["locators"][0].get("quote")
        if not isinstance(quote, str) or len(quote) < 4:
            continue
        encoded = json.dumps(quote, ensure_ascii=False)
        idx = lines[i].find(encoded)
        if idx < 0:
            continue
        hover = (i, idx + 1 + min(3, len(quote) - 1), quote, rec2["locators"][0].get("doc"))
        break
    if hover is None:
        pytest.fail("no valid quote found to hover in examples/questions.jsonl", pytrace=False)
    qpath.write_text("\n".join(lines), encoding="utf-8")
    return {
        "folder": folder,
        "questions": qpath,
        "word": word,
        "doc": doc,
        "ambiguous_line": amb_line,
        "hover_line": hover[0],
        # the hover column in each LSP position encoding
        "hover_col": utf16_col(lines[hover[0]], hover[1]),
        "hover_col_utf8": len(lines[hover[0]][: hover[1]].encode("utf-8")),
        "hover_col_utf32": hover[1],
        "hover_quote": hover[2],
        "hover_doc": hover[3],
    }


def isolated_env(base: Path, extra: dict | None = None) -> dict:
    """Environment with HOME/XDG/TMPDIR inside base; the venv's bin first on PATH."""
    env = dict(os.environ)
    for name in ("home", "config", "data", "state", "cache", "runtime", "tmp"):
        (base / name).mkdir(parents=True, exist_ok=True)
    (base / "runtime").chmod(0o700)
    env.update(
        HOME=str(base / "home"),
        XDG_CONFIG_HOME=str(base / "config"),
        XDG_DATA_HOME=str(base / "data"),
        XDG_STATE_HOME=str(base / "state"),
        XDG_CACHE_HOME=str(base / "cache"),
        XDG_RUNTIME_DIR=str(base / "runtime"),
        TMPDIR=str(base / "tmp"),
        PATH=os.pathsep.join([str(venv_bin()), env.get("PATH", "")]),
        PYTHONUNBUFFERED="1",
    )
    for var in (
        "VSCODE_IPC_HOOK_CLI",
        "VSCODE_PID",
        "VSCODE_CWD",
        "NVIM",
        "NVIM_LISTEN_ADDRESS",
        "VIMINIT",
        "MYVIMRC",
    ):
        env.pop(var, None)
    if extra:
        env.update(extra)
    return env


def run(cmd, *, timeout, env=None, cwd=None, out: Path | None = None) -> subprocess.CompletedProcess:
    """Run a command in its own session; kill the whole group on timeout."""
    proc = subprocess.Popen(
        [str(c) for c in cmd],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, _ = proc.communicate(timeout=10)
        if out:
            out.write_text(stdout or "")
        pytest.fail(f"timed out after {timeout}s: {' '.join(map(str, cmd))}\n{(stdout or '')[-3000:]}")
    if out:
        out.write_text(stdout or "")
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, "")


def editor_deps(output_dir: Path) -> dict:
    """Run scripts/editor-deps.sh (fast when cached) and read the env file it writes."""
    env_file = CACHE / "editor-env.sh"
    if shutil.which("bash") is None:
        unavailable("bash is missing")
    res = run(
        ["bash", DEPS_SCRIPT],
        timeout=2400,
        env=dict(os.environ, PYTHON=os.environ.get("PYTHON", sys.executable)),
        out=output_dir / "editor-deps.log",
    )
    if res.returncode != 0 or not env_file.is_file():
        unavailable(f"scripts/editor-deps.sh failed (exit {res.returncode}):\n{res.stdout[-3000:]}")
    deps = {}
    for line in env_file.read_text().splitlines():
        if line.startswith("export ") and "=" in line:
            k, v = line[len("export ") :].split("=", 1)
            deps[k] = v.strip().strip('"')
    for key in ("GOLDEN_LSP_NODE", "GOLDEN_LSP_NPM", "GOLDEN_LSP_CODE_SERVER", "GOLDEN_LSP_CHROMIUM"):
        if not deps.get(key) or not Path(deps[key]).exists():
            unavailable(f"{key} missing after scripts/editor-deps.sh")
    return deps


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_nvim_script(
    nvim: str, script: Path, file: Path, *, env: dict, cwd: Path, output_dir: Path, timeout: int = 240
) -> tuple[subprocess.CompletedProcess, dict, str]:
    """Run a headless Neovim test script (tests/editors/nvim_init.lua loads the plugin) on ``file``;
    returns the process, the JSON result the script wrote to GOLDEN_OUT, and a context string
    for assertion messages."""
    cmd = [
        nvim,
        "--headless",
        "-i",
        "NONE",
        "-n",
        "-u",
        str(Path(__file__).parent / "nvim_init.lua"),
        "-c",
        f"luafile {script}",
        str(file),
    ]
    proc = run(cmd, timeout=timeout, env=env, cwd=cwd, out=output_dir / "nvim-output.txt")
    out = Path(env["GOLDEN_OUT"])
    assert out.is_file(), f"nvim wrote no result (exit {proc.returncode}); output:\n{proc.stdout}"
    res = json.loads(out.read_text())
    return (
        proc,
        res,
        f"nvim exit {proc.returncode}\noutput:\n{proc.stdout}\nresult:\n{json.dumps(res, indent=2)}",
    )


#: a chapter in a subfolder of the corpus (doc ids with a slash, as a documentation site has them)
SUBDOC = "user-guide/deploying-your-docs.md"
SUBCHAPTER = (
    "# Deploying your docs\n\nYou can deploy your documentation to any static host 🎉 once the site "
    'is built.\n\nThe build writes every page into the "site" folder for the host to serve.\n'
)
#: a record being typed, up to its first locator's doc value
TYPED_RECORD = (
    '{"id": "ex900", "query": "Where does the build put the pages?", "expected_answer": '
    '"Into the site folder, for the host to serve.", "locators": [{"doc": '
)


def subfolder_copy(dest: Path) -> Path:
    """A copy of examples/ whose corpus also has a chapter in a subfolder (the glob reads
    subfolders), and a blank last line in its questions file to type a record on."""
    folder = dest / "examples"
    shutil.copytree(EXAMPLES, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "corpus" / SUBDOC).parent.mkdir()
    (folder / "corpus" / SUBDOC).write_text(SUBCHAPTER, encoding="utf-8")
    config = folder / "golden-lsp.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('glob = "*.md"', 'glob = "**/*.md"'))
    questions = folder / "questions.jsonl"
    questions.write_text(questions.read_text(encoding="utf-8").rstrip("\n") + "\n\n", encoding="utf-8")
    return folder


def completion_cases(folder: Path, multi_word: bool = True) -> list[dict]:
    """What a person completes while typing a record: each case a ``line`` with ``|`` at the
    cursor, the item to ``pick`` ("first": the sole or selected one; "multiword": the first
    multi-word one after the first), the ``item`` that must be chosen (``None``: any of ``offered``)
    and the locator the line must have afterwards (``want``, ``{}`` standing for the chosen item):
    a doc in a subfolder in a string the editor closed (one candidate), a quote after words typed
    (one candidate), and, with ``multi_word``, a quote from the menu at the end of the string and
    in its middle (the text after the cursor stays)."""
    from golden_lsp.assist.continuations import continuations

    typed = "The build writes every"
    [(sole, _)] = continuations(SUBCHAPTER, typed)
    chapter = "01-planning-a-hut-tour.md"
    offered = [q for q, _ in continuations((folder / "corpus" / chapter).read_text(encoding="utf-8"), "Book")]
    assert len(offered) > 1 and any(" " in q for q in offered[1:]), offered
    cases = [
        {
            "line": TYPED_RECORD + '"user-guide/dep|"}]}',
            "pick": "first",
            "item": SUBDOC,
            "want": {"doc": "{}"},
        },
        {
            "line": TYPED_RECORD + f'"{SUBDOC}", "quote": "{typed}|"}}]}}',
            "pick": "first",
            "item": sole,
            "want": {"doc": SUBDOC, "quote": "{}"},
        },
    ]
    if multi_word:
        for after in ("", " xyz"):
            cases.append(
                {
                    "line": TYPED_RECORD + f'"{chapter}", "quote": "Book|{after}"}}]}}',
                    "pick": "multiword",
                    "item": None,
                    "offered": offered,
                    "want": {"doc": chapter, "quote": "{}" + after},
                }
            )
    return cases


def completed_as_wanted(case: dict, line_after: str, chosen: str | None) -> str | None:
    """Why ``line_after`` is not the record ``case`` wants (``None`` when it is)."""
    item = case["item"] or chosen
    if case["item"] is None and (chosen not in case["offered"] or " " not in chosen):
        return f"chose {chosen!r}, not a multi-word item of {case['offered']}"
    try:
        got = json.loads(line_after)
    except ValueError as exc:
        return f"not JSON ({exc}): {line_after}"
    want = json.loads(TYPED_RECORD + '""}]}')
    want["locators"][0] = {k: v.format(item) for k, v in case["want"].items()}
    return None if got == want else f"{line_after}\n  wanted {json.dumps(want, ensure_ascii=False)}"
