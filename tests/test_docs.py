"""The manual: README.md is the page a newcomer reads first, and docs/ is the rest of it, built as
an MkDocs Material site (mkdocs.yml).

The site is built the way a reader would build it — ``mkdocs build --strict`` as a subprocess, into
a temporary folder — and any warning fails the test: a link to a missing page, an anchor no page
has, a page left out of the navigation. The README is held to its promise (at most 250 lines, the
two commands first), and every link in README.md and docs/*.md that points into the repository —
relative, or a GitHub address of this repository — must name a file that exists; the README's
anchors into the site must be anchors the site has. And the project's standard that the README
says why each dependency is there: every package pyproject.toml installs is named, in bold, in
its "Dependencies, and why" section. And each finding's ``helpUri`` (SARIF) is an anchor of the
built findings page, under the site's ``site_url``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
REPO_URL = "https://github.com/golden-lsp/golden-lsp/"
INSTALL_AND_CHECK = "pip install . && golden-lsp --check examples/"
TEST_SUITE = "pip install -e '.[test]' && python -m pytest"

_FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[ \t]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
_INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$", re.M)


def prose(text: str) -> str:
    """The text without fenced code blocks and code spans, where a link is only an example."""
    return _CODE_SPAN.sub("", _FENCE.sub("", text))


def links(path: Path) -> list[str]:
    text = prose(path.read_text(encoding="utf-8"))
    return _INLINE_LINK.findall(text) + _REFERENCE.findall(text)


def code_blocks(text: str) -> list[str]:
    return [m.group(0).split("\n", 1)[1].rsplit("\n", 1)[0].strip() for m in _FENCE.finditer(text)]


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def repo_target(page: Path, target: str) -> tuple[Path, str] | None:
    """The repository file (and anchor) a link names, or None for a link out of the repository."""
    if target.startswith(REPO_URL):
        parts = target[len(REPO_URL) :].split("/", 2)
        assert len(parts) == 3 and parts[0] in ("blob", "raw", "tree") and parts[1] == "main", target
        rest = parts[2]
        base = ROOT
    elif re.match(r"^[a-z][a-z0-9+.-]*:", target):
        return None  # another site, mailto:
    else:
        rest = target
        base = page.parent
    path, _, anchor = rest.partition("#")
    return (base / unquote(path)).resolve() if path else page, anchor


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs) -> None:
        self.ids.update(value for name, value in attrs if name == "id" and value)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
    except FileNotFoundError:  # pragma: no cover - no interpreter
        pytest.fail("cannot run mkdocs")
    if "No module named mkdocs" in done.stderr:
        pytest.fail("mkdocs is not installed: pip install -e '.[test]'")
    log = done.stdout + done.stderr
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{log}"
    warnings = [line for line in log.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert warnings == [], "\n".join(warnings)
    return out


def test_the_site_builds_strictly_with_every_page(site):
    built = {p.relative_to(site).as_posix() for p in site.rglob("index.html")}
    for page in PAGES:
        want = "index.html" if page.stem == "index" else f"{page.stem}/index.html"
        assert want in built, f"{page.name} was not built"
    assert (site / "report.png").is_file()  # docs/report.png, shown by report.md


def test_each_finding_links_to_its_section_of_the_published_findings_page(site):
    from golden_lsp.core.findings.diagnostics import DOCS_URL, FINDINGS

    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^site_url: (\S+)$", config, re.M).group(1) == DOCS_URL
    ids = _Ids()
    ids.feed((site / "findings" / "index.html").read_text(encoding="utf-8"))
    assert {f.anchor for f in FINDINGS.values()} <= ids.ids
    assert all(f.help_uri == f"{DOCS_URL}findings/#{f.anchor}" for f in FINDINGS.values())


def dependency_names() -> set[str]:
    """Every package pyproject.toml installs: the runtime's and each extra's (not golden-lsp's own)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = project["dependencies"] + [
        s for extra in project["optional-dependencies"].values() for s in extra
    ]
    names = {re.match(r"[A-Za-z0-9._-]+", spec).group(0).lower().replace("_", "-") for spec in specs}
    return names - {project["name"]}


def test_readme_says_why_each_dependency_is_there():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("\n## Dependencies, and why") :]
    section = section[: section.find("\n## ", 1)].lower().replace("_", "-")
    unexplained = sorted(n for n in dependency_names() if not re.search(rf"\*\*{re.escape(n)}\*\*", section))
    assert unexplained == [], f"README.md's Dependencies section does not name {unexplained}"


def test_readme_is_short():
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert n <= 250, f"README.md has {n} lines; the manual's detail belongs in docs/"


def test_readme_starts_with_the_two_commands():
    text = README.read_text(encoding="utf-8")
    first, second = code_blocks(text)[:2]
    assert first == INSTALL_AND_CHECK
    assert second == TEST_SUITE
    # what the second costs, and how to skip the slow part, said right after it
    fences = list(_FENCE.finditer(text))
    after = text[fences[1].end() : text.index("\n## ")]
    assert re.search(r"~14\s+minutes", after)
    assert "code-server" in after and "Chromium" in after and "scripts/editor-deps.sh" in after
    assert "`python -m pytest --ignore=tests/editors`" in after
    assert (ROOT / "scripts" / "editor-deps.sh").is_file() and (ROOT / "tests" / "editors").is_dir()


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_links_into_the_repository_name_files_that_exist(page):
    missing = []
    for target in links(page):
        found = repo_target(page, target)
        if found is not None and not found[0].exists():
            missing.append(target)
    assert missing == [], f"{page.relative_to(ROOT)} links to files that do not exist: {missing}"


def test_readme_anchors_exist(site):
    text = README.read_text(encoding="utf-8")
    own = {github_slug(h) for h in re.findall(r"^#{1,6} (.+)$", prose(text), re.M)}
    bad = []
    for target in links(README):
        found = repo_target(README, target)
        if found is None or not found[1]:
            continue
        path, anchor = found
        if path == README:
            ok = anchor in own
        elif path.parent == DOCS and path.suffix == ".md":
            html = site / ("index.html" if path.stem == "index" else f"{path.stem}/index.html")
            ids = _Ids()
            ids.feed(html.read_text(encoding="utf-8"))
            ok = anchor in ids.ids
        else:
            continue
        if not ok:
            bad.append(target)
    assert bad == [], f"README.md links to anchors that do not exist: {bad}"


def test_the_link_checker_sees_broken_links(tmp_path):
    """The checks above would pass on a checker that finds no links: it must find these."""
    page = tmp_path / "page.md"
    page.write_text(
        "See [a](missing.md), ![b](img/none.png), [c][ref], [d](https://example.org/x.md),\n"
        f"[e]({REPO_URL}blob/main/no/such/file.py) and `[f](in-code.md)`.\n\n"
        "```md\n[g](in-a-fence.md)\n```\n\n[ref]: other.md#part\n",
        encoding="utf-8",
    )
    found = links(page)
    assert sorted(found) == sorted(
        [
            "missing.md",
            "img/none.png",
            "https://example.org/x.md",
            f"{REPO_URL}blob/main/no/such/file.py",
            "other.md#part",
        ]
    )
    resolved = [repo_target(page, t) for t in found]
    assert [r for r in resolved if r is None] == [None]  # only example.org leaves the repository
    assert all(not r[0].exists() for r in resolved if r is not None)
    assert github_slug("Install for CI, pre-commit and editors") == "install-for-ci-pre-commit-and-editors"


def test_the_annotation_guidelines_page_is_the_one_source_text():
    """docs/guidelines.md is the text ``init`` writes, the hover shows and the judge's prompt quotes
    (regenerate it from ``golden_lsp.core.labels.guidelines.PAGE`` when that changes)."""
    from golden_lsp.core.labels.guidelines import PAGE

    assert (DOCS / "guidelines.md").read_text(encoding="utf-8") == PAGE
