"""The practice fields and findings in the editor, over real JSON-RPC: the same findings and
severities as ``golden-lsp check`` under the set's ``[severity]``, and the fields on hover and in
the outline."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import change_doc, latest_publications, open_doc, published, uri_of
from lsprotocol import types
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient


def edited(line: str, **fields) -> str:
    rec = json.loads(line)
    rec.update(fields)
    return json.dumps(rec, ensure_ascii=False)


async def test_practice_findings_and_severities_match_the_cli(client: LanguageClient, golden_dir: Path):
    config = golden_dir / "golden-lsp.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + '\n[severity]\nno-locators = "info"\ndoc-unlabelled = "off"\n',
        encoding="utf-8",
    )
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    uri = open_doc(client, q, text)
    await published(client, uri)
    lines = text.split("\n")
    recs = {json.loads(x)["id"]: i for i, x in enumerate(lines) if x.startswith("{")}
    dev = json.loads(lines[recs["ex021"]])
    lines[recs["ex073"]] = edited(lines[recs["ex073"]], query_type="factoid")  # the only "unanswerable"
    lines[recs["ex002"]] = edited(lines[recs["ex002"]], locators=[])
    lines[recs["ex003"]] = edited(lines[recs["ex003"]], query=dev["query"], split="test")
    multi = json.loads(lines[recs["ex065"]])
    for locator in multi["locators"][:2]:
        locator["primary"] = True
    lines[recs["ex065"]] = json.dumps(multi, ensure_ascii=False)
    text = "\n".join(lines)
    change_doc(client, uri, 2, text)
    pub = await published(client, uri, lambda p: p.version == 2)
    by_code = {d.code: d for d in pub.diagnostics}
    assert {"unknown-query-type", "no-locators", "split-leak", "multiple-primary"} <= by_code.keys()
    # the set's finding sits on the config, at the key it is about
    on_config = await published(client, uri_of(config), lambda p: p.diagnostics)
    [missing] = [d for d in on_config.diagnostics if d.code == "query-type-missing"]
    assert missing.range.start.line == next(
        i
        for i, line in enumerate(config.read_text(encoding="utf-8").split("\n"))
        if "required_query_types" in line
    )
    assert by_code["no-locators"].severity == types.DiagnosticSeverity.Information
    assert by_code["unknown-query-type"].severity == types.DiagnosticSeverity.Error
    assert by_code["split-leak"].severity == types.DiagnosticSeverity.Warning
    assert by_code["split-leak"].range.start.line == recs["ex021"]
    assert "doc-unlabelled" not in by_code and "hop-mismatch" not in by_code
    # the CLI, on the same text, reports the very same findings with the same severities
    q.write_text(text, encoding="utf-8")
    cli = subprocess.run(
        [sys.executable, "-m", "golden_lsp", "check", "--format", "json", str(q)],
        capture_output=True,
        text=True,
        cwd=golden_dir,
    )
    lsp_severity = {
        types.DiagnosticSeverity.Error: "error",
        types.DiagnosticSeverity.Warning: "warning",
        types.DiagnosticSeverity.Information: "info",
    }
    cli_findings = sorted(
        (f["path"], f["code"], f["line"] - 1, f["severity"], f["message"])
        for f in json.loads(cli.stdout)
        if not f["code"].startswith("stale-")
    )
    lsp_findings = sorted(
        (
            Path(to_fs_path(p.uri)).relative_to(golden_dir).as_posix(),
            d.code,
            d.range.start.line,
            lsp_severity[d.severity],
            d.message,
        )
        for p in latest_publications(client).values()
        for d in p.diagnostics
        if not d.code.startswith("stale-")
    )
    assert lsp_findings == cli_findings


async def test_hover_and_outline_show_the_practice_fields(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    uri = open_doc(client, q, text)
    await published(client, uri)
    lines = text.split("\n")
    n = next(i for i, x in enumerate(lines) if x.startswith('{"id": "ex021"'))
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(n, lines[n].index('"ex021"') + 2))
    )
    assert "split: dev" in hover.contents.value and "annotator: mara" in hover.contents.value
    assert "query type: factual" not in hover.contents.value  # ex021 has no query_type
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    details = {s.name.split(" — ")[0]: s.detail for s in symbols}
    assert details["ex073"] == "single · 0 locators · query type: unanswerable · split: test · unanswerable"
    assert details["ex022"] == "single · 1 locator · query type: factual · split: dev · annotator: mara"
    m = next(i for i, x in enumerate(lines) if x.startswith('{"id": "ex065"'))
    col = lines[m].index('"quote": ') + len('"quote": ') + 2
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(m, col))
    )
    assert "**primary span**" in hover.contents.value


async def test_completion_offers_the_practice_values(client: LanguageClient, golden_dir: Path):
    from test_authoring import complete

    config = golden_dir / "golden-lsp.toml"
    text = config.read_text(encoding="utf-8").replace(
        "required_query_types",
        'query_types = ["factual", '
        '"why", "multi-hop", "unanswerable", "conceptual", '
        '"comparison", "procedural"]\nrequired_query_types',
    )
    config.write_text(text, encoding="utf-8")
    items = await complete(client, golden_dir, '{"id": "ex999", "query_type": "')
    assert [i.label for i in items] == [
        "factual",
        "why",
        "multi-hop",
        "unanswerable",
        "conceptual",
        "comparison",
        "procedural",
    ]
    assert items[1].text_edit.new_text == 'why"'
    items = await complete(client, golden_dir, '{"id": "ex999", "unanswerable": ')
    assert [(i.label, i.text_edit.new_text) for i in items] == [("true", "true"), ("false", "false")]
    items = await complete(client, golden_dir, '{"id": "ex999", "locators": [{"doc": "a.md", "primary": ')
    assert [i.label for i in items] == ["true", "false"]


async def test_hover_on_the_id_shows_the_records_metadata_escaped_and_bounded(
    client: LanguageClient, golden_dir: Path
):
    q = golden_dir / "questions.jsonl"
    lines = q.read_text(encoding="utf-8").split("\n")
    n = next(i for i, x in enumerate(lines) if x.startswith('{"id": "ex021"'))
    meta = {f"k{i}": i for i in range(30)}
    lines[n] = edited(
        lines[n],
        tenant="acme",
        request_id="req-1",
        notes="two\nlines ``` fence",
        meta={"region": "eu", **meta},
    )
    lines[n] = edited(lines[n], source="x" * 500, sampled_at="2026-03-01")
    uri = open_doc(client, q, "\n".join(lines))
    pub = await published(client, uri)
    assert not [d for d in pub.diagnostics if d.range.start.line == n and d.code == "unknown-field"]
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(n, lines[n].index('"ex021"') + 2))
    )
    text = hover.contents.value
    assert "**metadata**" in text
    for line in (
        "tenant: acme",
        "request_id: req-1",
        "notes: two\\nlines ``` fence",
        "sampled_at: 2026-03-01",
    ):
        assert f"\n{line}\n" in text
    assert f"source: {'x' * 200}…\n" in text  # cut at 200 characters
    assert "meta.region: eu\n" in text and "… 16 more" in text  # 20 lines at most
    assert "````text" in text  # a fence longer than any backticks in the values


async def test_hover_on_primary_unanswerable_and_empty_locators_shows_the_annotation_guidelines(
    client: LanguageClient, golden_dir: Path
):
    from golden_lsp.core.labels.guidelines import PAGE, RULES
    from golden_lsp.keep.prompt import SYSTEM

    q = golden_dir / "questions.jsonl"
    lines = q.read_text(encoding="utf-8").split("\n")
    recs = {json.loads(x)["id"]: i for i, x in enumerate(lines) if x.startswith("{")}
    multi = json.loads(lines[recs["ex065"]])
    multi["locators"][0]["primary"] = True
    lines[recs["ex065"]] = json.dumps(multi, ensure_ascii=False)
    lines[recs["ex002"]] = edited(lines[recs["ex002"]], locators=[])
    uri = open_doc(client, q, "\n".join(lines))
    await published(client, uri)

    async def hover_at(n: int, needle: str, offset: int = 2) -> str | None:
        position = types.Position(n, lines[n].index(needle) + offset)
        found = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), position)
        )
        return found.contents.value if found is not None else None

    on_primary = await hover_at(recs["ex065"], '"primary"')
    on_unanswerable = await hover_at(recs["ex073"], '"unanswerable": true')
    on_empty = await hover_at(recs["ex002"], '"locators": []', len('"locators": ['))
    on_key = await hover_at(recs["ex002"], '"locators"')
    assert [on_primary, on_unanswerable, on_empty, on_key] == [PAGE] * 4
    assert "When uncertain, err toward NOT RELEVANT" in PAGE and RULES in SYSTEM  # the judge's text
    # elsewhere on the line it is not shown: the quote's own hover, and a non-empty locators key
    on_quote = await hover_at(recs["ex065"], '"quote": ', len('"quote": ') + 2)
    assert on_quote is not None and "When uncertain" not in on_quote
    assert await hover_at(recs["ex065"], '"locators"') is None
