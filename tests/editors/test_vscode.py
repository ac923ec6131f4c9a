"""Real VS Code (code-server) in headless Chromium: the packaged .vsix installed, the example folder
(with one ambiguous quote) opened; assertions from inside VS Code (a probe extension using the VS
Code API) and from the page (a rendered error squiggle); a screenshot saved in the test's output
folder.

The tools come from scripts/editor-deps.sh (Node 24 from PyPI, code-server, Debian chromium),
cached under ${GOLDEN_LSP_CACHE:-~/.cache/golden-lsp}.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from editor_support import (
    REPO,
    completed_as_wanted,
    completion_cases,
    editor_deps,
    free_port,
    isolated_env,
    run,
    subfolder_copy,
    venv_bin,
)

HERE = Path(__file__).resolve().parent
EXT_DIR = REPO / "editors" / "vscode"
PROBE_DIR = HERE / "vscode-probe"


def log(msg: str) -> None:
    print(f"[test_vscode {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def build_vsix(deps: dict, output_dir: Path) -> Path:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([deps["GOLDEN_LSP_NODE_BIN"], env.get("PATH", "")])
    env.update(npm_config_update_notifier="false", npm_config_fund="false", npm_config_audit="false")
    res = run(
        [deps["GOLDEN_LSP_NPM"], "ci", "--no-progress"],
        timeout=900,
        env=env,
        cwd=EXT_DIR,
        out=output_dir / "npm-ci.log",
    )
    assert res.returncode == 0, f"npm ci failed:\n{res.stdout[-4000:]}"
    res = run(
        [deps["GOLDEN_LSP_NPM"], "run", "package"],
        timeout=600,
        env=env,
        cwd=EXT_DIR,
        out=output_dir / "npm-package.log",
    )
    assert res.returncode == 0, f"npm run package failed:\n{res.stdout[-4000:]}"
    pkg = json.loads((EXT_DIR / "package.json").read_text())
    vsix = EXT_DIR / f"{pkg['name']}-{pkg['version']}.vsix"
    assert vsix.is_file(), f"{vsix} was not produced:\n{res.stdout[-2000:]}"
    return vsix


USER_SETTINGS = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.welcomePage.walkthroughs.openOnInstall": False,
    "workbench.enableExperiments": False,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "chat.disableAIFeatures": True,
    "chat.commandCenter.enabled": False,
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "extensions.ignoreRecommendations": True,
    "git.enabled": False,
    "editor.minimap.enabled": False,
    "editor.hover.delay": 100,
    "editor.wordWrap": "off",
    "window.commandCenter": False,
}


def kill_group(proc: subprocess.Popen, name: str) -> None:
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        log(f"{name} did not stop on SIGTERM: SIGKILL")
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(deps, vsix): the tools from scripts/editor-deps.sh and the .vsix from `npm ci && npm run package`."""
    logs = tmp_path_factory.mktemp("vsix-build")
    deps = editor_deps(logs)
    return deps, build_vsix(deps, logs)


def sha256(p: Path) -> str:
    import hashlib

    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_vsix_is_reproducible(built, tmp_path):
    """Packaging again from a copy with other mtimes and umask gives the same bytes."""
    deps, vsix = built
    copy = tmp_path / "vscode"
    shutil.copytree(EXT_DIR, copy, ignore=shutil.ignore_patterns("node_modules", "dist", "*.vsix"))
    (copy / "node_modules").symlink_to(EXT_DIR / "node_modules")
    for p in copy.rglob("*"):
        if p.is_file() and not p.is_symlink():
            os.utime(p, (1_000_000_000, 1_000_000_000))
            p.chmod(0o664)
    out = tmp_path / "again.vsix"
    env = dict(os.environ, PATH=os.pathsep.join([deps["GOLDEN_LSP_NODE_BIN"], os.environ.get("PATH", "")]))
    res = run(
        ["sh", "-c", f'umask 002 && "{deps["GOLDEN_LSP_NPM"]}" run package -- --out "{out}"'],
        timeout=600,
        env=env,
        cwd=copy,
    )
    assert res.returncode == 0, res.stdout[-3000:]
    assert sha256(out) == sha256(vsix), "the .vsix is not byte-for-byte reproducible"


def test_vsix_manifest_has_the_registry_fields(built):
    """What the Marketplace and Open VSX read: publisher, repository, license, icon, categories,
    engines and a changelog, in the packaged manifest and in the bundled package.json."""
    import xml.etree.ElementTree as ET
    import zipfile

    _, vsix = built
    pkg = json.loads((EXT_DIR / "package.json").read_text(encoding="utf-8"))
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        packaged = json.loads(z.read("extension/package.json"))
        manifest = ET.fromstring(z.read("extension.vsixmanifest"))
        icon = z.read("extension/" + pkg["icon"])
        changelog = z.read("extension/changelog.md").decode("utf-8")
        bundle = z.read("extension/dist/extension.js").decode("utf-8")
    ns = {"v": "http://schemas.microsoft.com/developer/vsx-schema/2011"}
    meta = manifest.find("v:Metadata", ns)
    identity = meta.find("v:Identity", ns)
    assert identity.get("Publisher") == pkg["publisher"] == packaged["publisher"] and pkg["publisher"]
    assert identity.get("Id") == pkg["name"] and identity.get("Version") == pkg["version"]
    props = {p.get("Id"): p.get("Value") for p in meta.find("v:Properties", ns)}
    assert props["Microsoft.VisualStudio.Code.Engine"] == pkg["engines"]["vscode"]
    assert props["Microsoft.VisualStudio.Services.Links.Source"] == pkg["repository"]["url"]
    assert meta.find("v:Categories", ns).text.split(",") == pkg["categories"]
    assert set(pkg["categories"]) <= {"Linters", "Programming Languages", "Formatters", "Other"}
    assert meta.find("v:License", ns).text in names and packaged["license"] == "MIT"
    assert meta.find("v:Icon", ns).text == "extension/" + pkg["icon"]
    assert icon.startswith(b"\x89PNG\r\n\x1a\n") and int.from_bytes(icon[16:20], "big") >= 128
    assets = {a.get("Type") for a in manifest.find("v:Assets", ns)}
    assert "Microsoft.VisualStudio.Services.Content.Changelog" in assets
    assert f"## {pkg['version']}" in changelog
    assert "ms-python.python" in bundle  # @vscode/python-extension is bundled, not required at run time


def code_server_session(
    request,
    deps,
    vsix,
    folder: Path,
    settings: dict,
    probe: dict,
    output_dir: Path,
    quick: bool = False,
    venv_on_path: bool = True,
):
    """Install the .vsix and the probe into a fresh code-server, open folder in headless Chromium,
    run the probe (config `probe`, paths filled in here) in step with the CDP driver; without
    ``venv_on_path`` the extension host's PATH lacks this Python's environment (a login shell's).
    Returns (probe_out, facts_file, driver, cs_log, shot)."""
    # unix socket paths (code-server IPC, Chromium's singleton) must stay short: not under tmp_path
    state = Path(tempfile.mkdtemp(prefix="glvs-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(state, ignore_errors=True))
    user_data = state / "user-data"
    ext_dir = state / "extensions"
    (user_data / "User").mkdir(parents=True)
    ext_dir.mkdir(parents=True)
    (user_data / "User" / "settings.json").write_text(json.dumps({**USER_SETTINGS, **settings}, indent=2))
    # code-server is a remote: machine-scoped settings (goldenLsp.server.path) are read from here
    (user_data / "Machine").mkdir(parents=True)
    (user_data / "Machine" / "settings.json").write_text(json.dumps(settings, indent=2))
    env = isolated_env(state / "e")
    if not venv_on_path:
        env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if Path(p) != venv_bin())
    env["PATH"] = os.pathsep.join([deps["GOLDEN_LSP_NODE_BIN"], env["PATH"]])
    code_server = deps["GOLDEN_LSP_CODE_SERVER"]
    common = ["--user-data-dir", user_data, "--extensions-dir", ext_dir]

    res = run(
        [code_server, *common, "--install-extension", vsix],
        timeout=180,
        env=env,
        out=output_dir / "install.log",
    )
    assert res.returncode == 0, f"installing the vsix failed:\n{res.stdout[-3000:]}"
    # the test-only probe extension, packaged with the same vsce (a copied folder is not picked up)
    probe_src = state / "probe-src"
    shutil.copytree(PROBE_DIR, probe_src)
    probe_vsix = state / "golden-lsp-probe.vsix"
    res = run(
        [
            deps["GOLDEN_LSP_NODE"],
            EXT_DIR / "node_modules" / "@vscode" / "vsce" / "vsce",
            "package",
            "--no-dependencies",
            "--allow-missing-repository",
            "--skip-license",
            "--out",
            probe_vsix,
        ],
        timeout=180,
        cwd=probe_src,
        env=dict(os.environ, PATH=os.pathsep.join([deps["GOLDEN_LSP_NODE_BIN"], os.environ.get("PATH", "")])),
    )
    assert res.returncode == 0, f"packaging the probe failed:\n{res.stdout[-3000:]}"
    res = run([code_server, *common, "--install-extension", probe_vsix], timeout=180, env=env)
    assert res.returncode == 0, f"installing the probe failed:\n{res.stdout[-3000:]}"
    res = run([code_server, *common, "--list-extensions", "--show-versions"], timeout=120, env=env)
    log(f"extensions: {res.stdout.strip()}")
    assert "golden-lsp.golden-lsp@" in res.stdout and "golden-lsp-test.golden-lsp-probe@" in res.stdout, (
        res.stdout
    )

    probe = {
        "out": str(output_dir / "probe-result.json"),
        "phase1": str(state / "phase1.json"),
        "go": str(state / "go"),
        "questions": "questions.jsonl",
        "timeoutMs": 60000,
        **probe,
    }
    probe_cfg = state / "probe.json"
    probe_cfg.write_text(json.dumps(probe))
    env["GOLDEN_LSP_PROBE_CONFIG"] = str(probe_cfg)

    port = free_port()
    cs_log = output_dir / "code-server.log"
    cs = subprocess.Popen(
        [
            code_server,
            *map(str, common),
            "--auth",
            "none",
            "--bind-addr",
            f"127.0.0.1:{port}",
            "--disable-telemetry",
            "--disable-update-check",
            "--disable-workspace-trust",
            "--disable-getting-started-override",
            str(folder),
        ],
        env=env,
        cwd=folder,
        stdin=subprocess.DEVNULL,
        stdout=cs_log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    log(f"code-server pid {cs.pid} on port {port}")
    driver = None
    facts_file = output_dir / "dom-facts.json"
    shot = output_dir / "vscode.png"
    try:
        deadline = time.monotonic() + 90
        while True:
            if cs.poll() is not None:
                pytest.fail(f"code-server exited ({cs.returncode}):\n{cs_log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"code-server did not answer /healthz within 90 s:\n{cs_log.read_text()[-3000:]}")
            time.sleep(0.5)
        log("code-server is up")
        cdp = {
            "url": f"http://127.0.0.1:{port}/?folder={folder}",
            "chromium": deps["GOLDEN_LSP_CHROMIUM"],
            "cdpPort": free_port(),
            "profile": str(state / "chromium-profile"),
            "chromeLog": str(output_dir / "chromium.log"),
            "phase1": probe["phase1"],
            "go": probe["go"],
            "result": probe["out"],
            "shot": str(shot),
            "shotAfter": str(output_dir / "vscode-after.png"),
            "facts": str(facts_file),
            "maxSecs": 120,
            "quick": quick,
        }
        cdp_cfg = state / "cdp.json"
        cdp_cfg.write_text(json.dumps(cdp))
        driver = run(
            [deps["GOLDEN_LSP_NODE"], HERE / "cdp_driver.mjs", cdp_cfg],
            timeout=330,
            env=env,
            out=output_dir / "cdp-driver.log",
        )
    finally:
        kill_group(cs, "code-server")
        log(f"code-server stopped ({cs.returncode})")
    return Path(probe["out"]), facts_file, driver, cs_log, shot


def test_vscode_extension_in_code_server(request, built, ambiguous_copy, golden_server, output_dir):
    deps, vsix = built
    shutil.copy2(vsix, output_dir / vsix.name)
    # code-server's extension host gets the login shell's PATH, not ours: point the extension at
    # this Python (server discovery step 2: the selected interpreter's `python -m golden_lsp`)
    settings = {"python.defaultInterpreterPath": sys.executable, "goldenLsp.trace.server": "messages"}
    chapter = ambiguous_copy["folder"] / "corpus" / "01-planning-a-hut-tour.md"
    chapter_text = chapter.read_text(encoding="utf-8")
    # words that repeat elsewhere in the chapter ("at about" is on three list items)
    repeated = "at about"
    anchor_line = next(
        i for i, s in enumerate(chapter_text.split("\n")) if s.startswith("2. Ascent, at about")
    )
    col = chapter_text.split("\n")[anchor_line].index(repeated)
    probe = {
        "hover": {"line": ambiguous_copy["hover_line"], "character": ambiguous_copy["hover_col"]},
        "ambiguousLine": ambiguous_copy["ambiguous_line"],
        "chapter": "corpus/01-planning-a-hut-tour.md",
        "anchor": {"line": anchor_line, "start": col, "end": col + len(repeated)},
    }
    probe_out, facts_file, driver, cs_log, shot = code_server_session(
        request, deps, vsix, ambiguous_copy["folder"], settings, probe, output_dir
    )
    ctx = (
        f"\ncdp driver (exit {driver.returncode if driver else None}):\n{(driver.stdout if driver else '')[-4000:]}"
        f"\nprobe log:\n{_read(Path(str(probe_out) + '.log'))[-4000:]}"
        f"\ncode-server log:\n{_read(cs_log)[-3000:]}"
    )
    assert probe_out.is_file(), "the probe extension wrote no result" + ctx
    result = json.loads(probe_out.read_text())
    facts = json.loads(facts_file.read_text()) if facts_file.is_file() else {}
    ctx = (
        f"\nprobe result:\n{json.dumps(result, indent=2)[:6000]}\nDOM facts:\n{json.dumps(facts, indent=2)[:4000]}"
        + ctx
    )

    # from inside VS Code
    assert result.get("extensionActive") is True, ctx
    assert result.get("languageId") == "golden-questions", ctx
    assert result.get("serverCommand") == [sys.executable, "-m", "golden_lsp"], ctx
    amb = result.get("ambiguous") or {}
    assert amb.get("code") == "quote-ambiguous" and amb.get("source") == "golden-lsp", ctx
    assert amb.get("line") == ambiguous_copy["ambiguous_line"], ctx
    assert result.get("hover") and ambiguous_copy["hover_doc"] in result["hover"], ctx
    titles = [a["title"] for a in result.get("codeActions") or []]
    assert any(t.startswith("Lengthen to the occurrence at ") for t in titles), ctx
    assert result.get("lineAfter") != result.get("lineBefore"), ctx
    assert result.get("cleared") is True, ctx
    assert result.get("ok") is True, ctx
    assert (result.get("status") or {}).get("records", 0) > 0, ctx
    assert "record" in (result.get("statusBarText") or ""), ctx
    check = result.get("check") or {}
    assert check.get("records", 0) > 0, ctx
    assert (result.get("build") or {}).get("ok") is True, ctx
    assert (result.get("statusAfter") or {}).get("errors") == 0, ctx
    assert "no problems" in (result.get("statusBarTextAfter") or ""), ctx
    for cmd in ("goldenLsp.build", "goldenLsp.check", "goldenLsp.restart"):
        assert cmd in (result.get("commands") or []), ctx
    # authoring: an inlay hint after a quote, a code lens over a labelled block of the chapter
    hints = result.get("inlayHints") or []
    assert any(h["label"].startswith("→ ") and " · " in h["label"] for h in hints), ctx
    lenses = [lens["title"] or "" for lens in result.get("codeLenses") or []]
    assert any(t.startswith("labelled by ex") for t in lenses), ctx
    # anchor here on words repeated elsewhere: a longer unique quote around them, on words
    [new] = [
        a for a in result.get("anchorActions") or [] if a["title"] == "New golden question anchored here"
    ]
    assert new["disabled"] is None and len(new["newTexts"]) == 1, ctx
    quote = json.loads(new["newTexts"][0].strip())["locators"][0]["quote"]
    assert repeated in quote and chapter_text.count(quote) == 1 and "\n" not in quote, ctx
    assert quote[0].isalnum() and quote[-1].isalnum(), ctx

    # from the page
    assert driver is not None and driver.returncode == 0, ctx
    before = facts.get("before") or {}
    assert before.get("squiggles", 0) > 0, ctx
    assert "golden:" in (before.get("statusbar") or ""), ctx
    after = facts.get("after") or {}
    assert after.get("squiggles", 1) == 0, ctx
    assert "golden: " in (after.get("statusbar") or "") and "no problems" in after["statusbar"], ctx
    assert any(t.startswith("labelled by ex") for t in after.get("codeLenses") or []), ctx  # rendered
    assert shot.is_file() and shot.stat().st_size > 20_000, ctx
    log(f"screenshot: {shot}")
    workflow = output_dir / "vscode-after.png"
    assert workflow.is_file() and workflow.stat().st_size > 20_000, ctx
    if os.environ.get("GOLDEN_LSP_UPDATE_SCREENSHOT"):
        shutil.copy2(shot, EXT_DIR / "images" / "screenshot.png")
        shutil.copy2(workflow, EXT_DIR / "images" / "workflow.png")


def rendered_hints(raw: str, drawn: str) -> list[str]:
    """The texts VS Code drew into a line: what the drawn line has that the buffer line has not."""
    import difflib

    ops = difflib.SequenceMatcher(None, raw, drawn, autojunk=False).get_opcodes()
    assert all(op in ("equal", "insert") for op, *_ in ops), (raw, drawn)
    return [drawn[j1:j2].strip() for op, _, _, j1, j2 in ops if op == "insert" and drawn[j1:j2].strip()]


def test_vscode_draws_every_inlay_hint_of_a_multi_hop_record(
    request, built, tmp_path, golden_server, output_dir
):
    """With VS Code's default settings (editor.inlayHints.maximumLength 43, counted per line), every
    locator of a multi-hop record shows its hint, and what is drawn of each carries its essential
    part: where the quote lands (the line in its chapter), or why it does not."""
    deps, vsix = built
    folder = tmp_path / "examples"
    shutil.copytree(REPO / "examples", folder, ignore=shutil.ignore_patterns("__pycache__"))
    questions = folder / "questions.jsonl"
    lines = questions.read_text(encoding="utf-8").split("\n")
    multi = [
        i for i, line in enumerate(lines) if line.startswith("{") and len(json.loads(line)["locators"]) > 1
    ]
    assert any(len(json.loads(lines[i])["locators"]) > 2 for i in multi)  # a three-hop record too
    # one broken locator among them: its hint says why, drawn beside the resolved ones
    broken = multi[0]
    rec = json.loads(lines[broken])
    rec["locators"][1]["quote"] = "no such words anywhere"
    lines[broken] = json.dumps(rec, ensure_ascii=False)
    questions.write_text("\n".join(lines), encoding="utf-8")
    settings = {"python.defaultInterpreterPath": sys.executable}
    probe_out, facts_file, driver, cs_log, _shot = code_server_session(
        request, deps, vsix, folder, settings, {"inlayLines": multi}, output_dir, quick=True
    )
    result, facts, ctx = outcome(probe_out, facts_file, cs_log)
    assert result.get("ok") is True and driver is not None and driver.returncode == 0, ctx
    assert result.get("maximumLength") == 43, ctx  # VS Code's default, not a test setting
    drawn_lines = (facts.get("before") or {}).get("viewLines") or []
    artifact = {
        r["query_id"]: r
        for r in map(json.loads, (folder / "golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines())
    }
    for i in multi:
        rec = json.loads(lines[i])
        sent = sorted((h for h in result["inlayHints"] if h["line"] == i), key=lambda h: h["character"])
        assert len(sent) == len(rec["locators"]), ctx  # the server sends one hint per locator
        drawn = next((d for d in drawn_lines if f'"id": "{rec["id"]}"' in d), None)
        assert drawn is not None, f"line {i} ({rec['id']}) is not drawn" + ctx
        shown = rendered_hints(lines[i], drawn)
        assert len(shown) == len(sent), f"{rec['id']}: drawn {shown}, sent {[h['label'] for h in sent]}" + ctx
        for hint, text in zip(sent, shown, strict=True):
            assert hint["label"].startswith(text.rstrip("…")), (hint, text)
            m = re.match(r"→ line (\d+)", text)
            assert m or text.startswith("✗ not found"), (hint, text)
        for loc, text in zip(rec["locators"], shown, strict=True):
            if loc["quote"] == "no such words anywhere":
                assert text.startswith("✗ not found"), (loc, text)
            else:
                chapter = (folder / "corpus" / loc["doc"]).read_text(encoding="utf-8")
                at = chapter.index(loc["quote"])
                span = next(
                    sp
                    for sp in artifact[rec["id"]]["answer_spans"]
                    if sp["doc_id"] == loc["doc"] and sp["char_start"] <= at < sp["char_end"]
                )
                line = chapter[: span["char_start"]].count("\n") + 1  # where the span starts
                assert re.match(rf"→ line {line}\b", text), (loc, text, line)


def outcome(probe_out: Path, facts_file: Path, cs_log: Path) -> tuple[dict, dict, str]:
    """What the probe and the page saw in a session, and a context for assertion messages."""
    result = json.loads(probe_out.read_text()) if probe_out.is_file() else {}
    facts = json.loads(facts_file.read_text()) if facts_file.is_file() else {}
    ctx = (
        f"\nprobe result:\n{json.dumps(result, indent=2)[:8000]}\nDOM facts:\n{json.dumps(facts, indent=2)[:8000]}"
        f"\nprobe log:\n{_read(Path(str(probe_out) + '.log'))[-3000:]}\ncode-server log:\n{_read(cs_log)[-2000:]}"
    )
    return result, facts, ctx


def _read(p: Path) -> str:
    try:
        return p.read_text(errors="replace")
    except OSError:
        return ""


def test_vscode_says_when_it_cannot_find_the_server(request, built, tmp_path, output_dir):
    """No server anywhere: a notification says so and the status bar shows it; once
    goldenLsp.server.path names the server, it starts and the notification goes."""
    deps, vsix = built
    folder = tmp_path / "no-server"
    folder.mkdir()
    shutil.copy2(REPO / "examples" / "questions.jsonl", folder / "questions.jsonl")
    settings = {"goldenLsp.server.path": str(tmp_path / "missing" / "golden-lsp")}
    server = venv_bin() / "golden-lsp"
    probe_out, facts_file, _driver, cs_log, _shot = code_server_session(
        request,
        deps,
        vsix,
        folder,
        settings,
        {"expectNoServer": True, "fixServerPath": str(server)},
        output_dir,
        venv_on_path=False,
    )
    result, facts, ctx = outcome(probe_out, facts_file, cs_log)
    assert result.get("ok") is True, ctx
    assert result.get("serverCommand") is None, ctx
    assert "no server" in (result.get("statusBarText") or ""), ctx
    notes = " ".join((facts.get("before") or {}).get("notifications") or [])
    assert "golden-lsp" in notes and "goldenLsp.server.path" in notes and "no executable" in notes, ctx
    # the path set: the server runs, and neither the notification nor the status bar says otherwise
    assert result.get("serverCommandAfter") == [str(server)], ctx
    assert (
        "golden" in result.get("statusBarTextAfter", "") and "no server" not in result["statusBarTextAfter"]
    ), ctx
    after = " ".join((facts.get("after") or {}).get("notifications") or [])
    assert "no executable" not in after, ctx


def test_vscode_finds_the_workspace_venv_and_completes(request, built, tmp_path, output_dir):
    """With no setting, no interpreter and no golden-lsp on the extension host's PATH, the server
    of the workspace's .venv runs; completion chosen in the editor (the suggest widget, accepted)
    leaves the record wanted: a doc in a subfolder inside a string the editor closed, a quote after
    words typed, a multi-word quote at the end of a quote and in its middle."""
    deps, vsix = built
    folder = subfolder_copy(tmp_path)
    (folder / ".venv").symlink_to(Path(sys.prefix))  # this test's environment, as the project's
    questions = folder / "questions.jsonl"
    cases = completion_cases(folder)
    line = len(questions.read_text(encoding="utf-8").split("\n")) - 2
    probe_out, facts_file, driver, cs_log, _shot = code_server_session(
        request,
        deps,
        vsix,
        folder,
        {},
        {"completions": {"line": line, "cases": cases}},
        output_dir,
        quick=True,
        venv_on_path=False,
    )
    result, _facts, ctx = outcome(probe_out, facts_file, cs_log)
    assert result.get("ok") is True and driver is not None and driver.returncode == 0, ctx
    assert result.get("serverCommand") == [str(folder / ".venv" / "bin" / "python"), "-m", "golden_lsp"], ctx
    rounds = result.get("completions") or []
    assert len(rounds) == len(cases), ctx
    for case, r in zip(cases, rounds, strict=True):
        wrong = completed_as_wanted(case, r["lineAfter"], r.get("chosen"))
        assert wrong is None, f"{case['line']}: {wrong}" + ctx
