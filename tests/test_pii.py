"""Personal data in records: ``core.pii`` on a corpus of positive and negative examples (every miss
and every false alarm counted), redaction to typed placeholders, ``query-pii`` at the exact
characters through JSON escapes, the config's region and severity, and nothing imported for a line
without a candidate."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from core_support import loc, make_project, qline

from golden_lsp.core.check.pii import find, redact
from golden_lsp.core.check.rules import string_columns

#: (text, the identifiers in it as (kind, text)) — what a user may type into a RAG system
POSITIVES = [
    ("mail me at jane.doe@example.org please", [("email", "jane.doe@example.org")]),
    ("J.Smith+rag@mail.co.uk asked twice", [("email", "J.Smith+rag@mail.co.uk")]),
    ("call +44 20 7946 0958 after six", [("phone", "+44 20 7946 0958")]),
    ("my number is +1 415-555-2671", [("phone", "+1 415-555-2671")]),
    ("ring +49 30 901820 about the refund", [("phone", "+49 30 901820")]),
    ("card 4111 1111 1111 1111 was charged", [("card", "4111 1111 1111 1111")]),
    ("why was 5500-0000-0000-0004 declined", [("card", "5500-0000-0000-0004")]),
    ("amex 378282246310005 refund", [("card", "378282246310005")]),
    ("IBAN GB82 WEST 1234 5698 7654 32 please", [("iban", "GB82 WEST 1234 5698 7654 32")]),
    ("transfer to DE89370400440532013000", [("iban", "DE89370400440532013000")]),
    ("my SSN 123-45-6789 is on file", [("ssn", "123-45-6789")]),
    ("server 203.0.113.7 refuses me", [("ip", "203.0.113.7")]),
    ("ipv6 2001:db8::8a2e:370:7334 blocked", [("ip", "2001:db8::8a2e:370:7334")]),
    (
        "I'm ann@corp.io, card 4012888888881881, from 198.51.100.23",
        [("email", "ann@corp.io"), ("card", "4012888888881881"), ("ip", "198.51.100.23")],
    ),
]
#: texts with numbers, @ and colons that are no personal data
NEGATIVES = [
    "What changed between version 1.2.3 and 2.0?",
    "Is the hut open from 12:30:45 to 18:00?",
    "In 2019 the hut had 1,234,567 visitors and 4,500 beds",
    "How much is a bed at €45.50 or $1,299.99?",
    "ISBN 978-0-306-40615-7 is the guide's",
    "card 4111 1111 1111 1112 has a wrong check digit",
    "GB82 WEST 1234 5698 7654 33 has wrong check digits",
    "Why does std::vector reallocate?",
    "What does $@ mean in a Makefile?",
    "@mention the warden in the chat",
    "Set max_chars = 1800 and k=50 at 95% confidence",
    "Order 20230415 shipped on 2023-04-15T10:00:00Z",
    "The MAC aa:bb:cc:dd:ee:ff of the router",
    "Chapter 3.4.5.6 of the manual",
    "Version 999.1.1.1 of the app",
    "SSN-like 000-12-3456 is never issued",
    "Scale 1:50000 maps for the tour",
    "Which route, 2,962 m or 3,798 m?",
    "Call the emergency number 112 or 144",
    "Train ICE 1234567 leaves at 7",
]


def _kinds(text: str, region: str | None = None) -> list[tuple[str, str]]:
    return [(f.kind, text[f.start : f.end]) for f in find(text, region)]


def test_positives_found_and_negatives_left_alone_with_false_alarms_counted():
    misses = [(text, want, _kinds(text)) for text, want in POSITIVES if _kinds(text) != want]
    false_alarms = [(text, _kinds(text)) for text in NEGATIVES if _kinds(text)]
    assert (len(misses), len(false_alarms)) == (0, 0), (misses, false_alarms)


def test_national_phone_numbers_need_the_region():
    text = "call (415) 555-2671 tomorrow"
    assert _kinds(text) == []
    assert _kinds(text, "US") == [("phone", "(415) 555-2671")]
    assert all(not _kinds(t, "US") for t in NEGATIVES)


def test_redaction_writes_typed_placeholders():
    text = "I'm ann@corp.io, card 4012888888881881, from 198.51.100.23"
    assert redact(text, find(text)) == "I'm <EMAIL>, card <CARD>, from <IP>"
    assert find(redact(text, find(text))) == []


def test_string_columns_map_decoded_characters_through_escapes():
    value = 'a\u00e9"\\\U0001f600b'
    token = json.dumps(value)  # ASCII escapes: \u00e9, \", \\, a surrogate pair
    columns = string_columns(token)
    assert len(columns) == len(value) + 1
    assert token[columns[value.index("b")]] == "b" and columns[-1] == len(token) - 1
    assert token[columns[1] : columns[2]] == "\\u00e9" and token[columns[4] : columns[5]] == "\\ud83d\\ude00"


def test_query_pii_at_the_exact_characters_and_the_config_makes_it_an_error(tmp_path, cli):
    query = "Caf\u00e9 booked by jane.doe@example.org: is the hut open?"
    line = json.dumps(
        json.loads(qline("p1", [loc("faq.md", "offsets break whenever")], query=query)), ensure_ascii=True
    )
    root = make_project(tmp_path / "p", lines=[line], config='corpus = "corpus"\n')
    proc = cli(["check", "--format", "json", root])
    found = [f for f in json.loads(proc.stdout) if f["code"] == "query-pii"]
    assert len(found) == 1 and found[0]["severity"] == "warning" and proc.returncode == 0
    start = found[0]["column"] - 1
    assert line[start : found[0]["end_column"] - 1] == "jane.doe@example.org"
    assert "jane" not in found[0]["message"] and "<EMAIL>" in found[0]["message"]
    (root / "golden-lsp.toml").write_text(
        'corpus = "corpus"\n[severity]\nquery-pii = "error"\n', encoding="utf-8"
    )
    strict = cli(["check", root])
    assert strict.returncode == 1 and "error[query-pii]" in strict.stdout


def test_pii_region_in_the_config(tmp_path, cli):
    line = qline(
        "p1", [loc("faq.md", "offsets break whenever")], query="Call me on (415) 555-2671 about the hut?"
    )
    root = make_project(tmp_path / "p", lines=[line], config='corpus = "corpus"\n')
    assert "query-pii" not in cli(["check", root]).stdout
    (root / "golden-lsp.toml").write_text('corpus = "corpus"\npii_region = "US"\n', encoding="utf-8")
    assert "warning[query-pii] the query holds a phone number" in cli(["check", root]).stdout
    (root / "golden-lsp.toml").write_text('corpus = "corpus"\npii_region = "usa"\n', encoding="utf-8")
    bad = cli(["check", root])
    assert bad.returncode == 2 and "pii_region" in bad.stderr


def test_no_library_is_imported_for_text_without_a_candidate():
    code = (
        "import sys; from golden_lsp.core.check.pii import find;"
        "find('What changed in version 1.2 in 2019: the hut @ the pass?', 'US');"
        "print(sorted(m for m in ('phonenumbers', 'stdnum') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("text", ["card 4111 1111 1111 1111", "call +44 20 7946 0958"])
def test_a_candidate_loads_the_library_that_checks_it(text):
    code = (
        f"import sys; from golden_lsp.core.check.pii import find; find({text!r});"
        "print(sorted(m for m in ('phonenumbers', 'stdnum') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ("['stdnum']" if "card" in text else "['phonenumbers']")
