"""The editor's report where another local user could have been first: the server writes the
page into a folder of the temp folder that only its user can enter, never through a link planted
there, and refuses (saying why, writing nothing) a folder that is a link, another user's, or open
to others. Over a raw pipe, with the server's TMPDIR a folder of the test."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from pygls.uris import to_fs_path
from raw_lsp import RawServer
from test_robust_protocol import open_questions

PRECIOUS = "the author's own file\n"


def report(raw: RawServer, uri: str) -> dict:
    reply = raw.call("workspace/executeCommand", {"command": "golden-lsp.report", "arguments": [uri]})
    assert "error" not in reply, reply
    return reply["result"]


def plant_link(page: Path, victim: Path) -> None:
    page.unlink(missing_ok=True)
    page.symlink_to(victim)


def open_to_others(top: Path, page: Path, victim: Path) -> str:
    top.chmod(0o777)  # as a folder another user made first would be
    plant_link(page, victim)
    return "is open to other users (mode 0777, not 0700)"


def another_users(top: Path, page: Path, victim: Path) -> str:
    os.chown(top, 4242, 4242)
    plant_link(page, victim)
    return "belongs to another user (uid 4242"


def a_link(top: Path, page: Path, victim: Path) -> str:
    theirs = top.with_name("theirs")
    shutil.copytree(top, theirs, symlinks=True)
    plant_link(theirs / page.parent.name / page.name, victim)
    shutil.rmtree(top)
    top.symlink_to(theirs)
    return "is a symbolic link, not a folder"


@pytest.fixture
def raw(golden_dir: Path, tmp_path: Path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    server = RawServer(golden_dir, env={"TMPDIR": str(tmp)})
    server.initialize(golden_dir)
    yield server
    server.call("shutdown")
    server.notify("exit")
    server.close()


def test_a_link_planted_at_the_report_is_replaced_not_followed(
    raw: RawServer, golden_dir: Path, tmp_path: Path
):
    uri = open_questions(raw, golden_dir)
    first = report(raw, uri)
    assert first["ok"] is True, first
    page = Path(to_fs_path(first["uri"]))
    assert page.is_relative_to(tmp_path / "tmp")
    for folder in (page.parent, page.parent.parent):
        assert folder.stat().st_mode & 0o777 == 0o700 and folder.stat().st_uid == os.getuid()
    victim = tmp_path / "victim.txt"
    victim.write_text(PRECIOUS)
    plant_link(page, victim)

    again = report(raw, uri)
    assert again == first
    assert victim.read_text() == PRECIOUS
    assert not page.is_symlink() and "Coverage of the corpus" in page.read_text(encoding="utf-8")


@pytest.mark.parametrize("plant", [open_to_others, another_users, a_link])
def test_a_report_folder_others_could_write_into_is_refused(
    raw: RawServer, golden_dir: Path, tmp_path: Path, plant
):
    if plant is another_users and os.getuid() != 0:
        pytest.skip("giving a folder to another user needs root")
    uri = open_questions(raw, golden_dir)
    first = report(raw, uri)
    assert first["ok"] is True, first
    page = Path(to_fs_path(first["uri"]))
    victim = tmp_path / "victim.txt"
    victim.write_text(PRECIOUS)
    says = plant(page.parent.parent, page, victim)

    refused = report(raw, uri)
    assert refused["ok"] is False and says in refused["message"], refused
    assert "cannot write the report: the folder" in refused["message"]
    assert victim.read_text() == PRECIOUS
    shown = raw.wait_for(lambda m: m.get("method") == "window/showMessage")
    assert says in shown["params"]["message"] and shown["params"]["type"] == 1
    assert "Traceback" not in raw.stderr
