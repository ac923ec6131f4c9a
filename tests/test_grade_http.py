"""``golden-lsp grade --oracle`` with the ``anthropic`` and ``openai`` providers as both generator and
grader, through their official SDKs against a local HTTP server on 127.0.0.1 (pytest-httpserver)
speaking each wire format: the requests (model, system prompt, the user message's tagged blocks),
the generated answer carried to the grader, the faithfulness file written; nothing leaves the
machine."""

from __future__ import annotations

import json
import os

import pytest
from core_support import loc, make_project, qline, run_cli
from test_judge_http import KEY, PROVIDERS
from werkzeug import Request, Response

from golden_lsp.keep.grade import GENERATOR_SYSTEM, GRADER, SYSTEM, generate_message, grade_message

DOC = "# Huts\n\nThe Rifugio Alto serves dinner at seven.\n"
QUERY = "When is dinner served at the Rifugio Alto?"
EXPECTED = "At seven."
ANSWER = "Dinner is served at seven."


@pytest.fixture(scope="session")
def httpserver_listen_address():
    return ("127.0.0.1", 0)


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_the_oracle_test_through_the_official_sdks(provider, tmp_path, httpserver):
    path, reply, key_var, url_var, suffix = PROVIDERS[provider]
    root = make_project(
        tmp_path / "hut",
        {"huts.md": DOC},
        [qline("h1", [loc("huts.md", "serves dinner at seven")], QUERY, EXPECTED)],
    )
    seen: list[dict] = []

    def answer(request: Request) -> Response:
        body = json.loads(request.get_data())
        seen.append(body)
        messages = body["messages"]
        system = body["system"] if provider == "anthropic" else messages[0]["content"]
        text = ANSWER if system == GENERATOR_SYSTEM else json.dumps({"grade": "correct", "reason": "Seven."})
        return Response(json.dumps(reply(text)), content_type="application/json")

    httpserver.expect_request(path, method="POST").respond_with_handler(answer)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update({key_var: KEY, url_var: httpserver.url_for("/").rstrip("/") + suffix})
    out = tmp_path / "faithfulness.json"
    args = ["grade", root, "--oracle", "--provider", provider, "--model", f"{provider}-grader"]
    args += ["--generator-provider", provider, "--generator-model", f"{provider}-writer"]
    proc = run_cli([*args, "--faithfulness-out", out, "--format", "json"], root.parent, env)
    assert proc.returncode == 0, proc.stderr
    generate, grade = seen
    assert (generate["model"], grade["model"]) == (f"{provider}-writer", f"{provider}-grader")
    users = [b["messages"][-1]["content"] for b in seen]
    assert users == [
        generate_message(QUERY, [DOC[DOC.index("The") :]]),
        grade_message(QUERY, EXPECTED, ANSWER),
    ]
    system = grade["system"] if provider == "anthropic" else grade["messages"][0]["content"]
    assert system == SYSTEM
    f = json.loads(out.read_text())["faithfulness"]
    assert (f["value"], f["n"], f["judge_model"], f["prompt_digest"]) == (
        1.0,
        1,
        f"{provider}-grader",
        GRADER.digest,
    )
