"""Configuration: discovery, paths relative to the config file, validation, overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from golden_lsp.core.goldenset.config import Config, ConfigError, config_for, find_config, load_config


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_find_config_walks_up_from_the_questions_file(tmp_path):
    cfg = write(tmp_path / "proj" / "golden-lsp.toml", 'corpus = "docs"\n')
    questions = write(tmp_path / "proj" / "sets" / "deep" / "questions.jsonl", "")
    assert find_config(questions) == cfg.resolve()
    assert find_config(questions.parent) == cfg.resolve()
    assert find_config(tmp_path) is None


def test_nearest_config_wins(tmp_path):
    write(tmp_path / "golden-lsp.toml", 'corpus = "outer"\n')
    inner = write(tmp_path / "a" / "golden-lsp.toml", 'corpus = "inner"\n')
    (tmp_path / "a" / "b").mkdir()
    assert find_config(tmp_path / "a" / "b") == inner.resolve()
    assert load_config(find_config(tmp_path / "a" / "b")).corpus == (tmp_path / "a" / "inner").resolve()


def test_pyproject_tool_section_is_found_and_others_skipped(tmp_path):
    pp = write(tmp_path / "pyproject.toml", '[tool.golden-lsp]\ncorpus = "docs"\nmax_chars = 900\n')
    write(tmp_path / "sub" / "pyproject.toml", '[project]\nname = "unrelated"\n')
    found = find_config(tmp_path / "sub")
    assert found == pp.resolve()
    cfg = load_config(found)
    assert cfg.corpus == (tmp_path / "docs").resolve() and cfg.max_chars == 900
    assert cfg.explicit == {"corpus", "max_chars"}


def test_golden_lsp_toml_beats_pyproject_in_the_same_folder(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.golden-lsp]\ncorpus = "a"\n')
    cfg = write(tmp_path / "golden-lsp.toml", 'corpus = "b"\n')
    assert find_config(tmp_path) == cfg.resolve()


def test_paths_are_relative_to_the_config_file(tmp_path, monkeypatch):
    cfg_path = write(
        tmp_path / "proj" / "golden-lsp.toml",
        'corpus = "../shared/docs"\nquestions = "sets/q.jsonl"\nartifact = "out/a.jsonl"\n'
        'manifest = "out/m.json"\nglob = "**/*.md"\nhit_rule = "coverage>=0.5"\n',
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    cfg = load_config(cfg_path)
    proj = (tmp_path / "proj").resolve()
    assert cfg.corpus == (tmp_path / "shared" / "docs").resolve()
    assert cfg.questions_path() == proj / "sets" / "q.jsonl"
    assert cfg.artifact_path() == proj / "out" / "a.jsonl"
    assert cfg.manifest_path() == proj / "out" / "m.json"
    assert (cfg.glob, cfg.hit_rule, cfg.max_chars) == ("**/*.md", "coverage>=0.5", 1800)
    assert cfg.source == cfg_path.resolve()


def test_default_derived_paths_sit_beside_the_questions_file(tmp_path):
    cfg = load_config(write(tmp_path / "golden-lsp.toml", 'corpus = "c"\nquestions = "sets/q.jsonl"\n'))
    assert cfg.questions_path() == (tmp_path / "sets" / "q.jsonl").resolve()
    assert cfg.artifact_path() == (tmp_path / "sets" / "golden-set.v1.jsonl").resolve()
    assert cfg.manifest_path() == (tmp_path / "sets" / "golden-set.v1.manifest.json").resolve()
    assert (
        load_config(write(tmp_path / "x" / "golden-lsp.toml", 'corpus = "c"\n')).questions_path()
        == (tmp_path / "x" / "questions.jsonl").resolve()
    )


@pytest.mark.parametrize(
    "toml, message",
    [
        ('colour = "red"\n', "unknown key 'colour'"),
        ("max_chars = 0\n", "max_chars"),
        ('max_chars = "1800"\n', "max_chars"),
        ("max_chars = true\n", "max_chars"),
        ('hit_rule = "best"\n', "unknown hit rule"),
        ('hit_rule = "coverage>=1.5"\n', "τ must be in"),
        ("corpus = 3\n", "'corpus' must be a non-empty string"),
        ('glob = ""\n', "'glob' must be a non-empty string"),
        ("corpus = \n", "invalid TOML"),
    ],
)
def test_bad_config_values(tmp_path, toml, message):
    path = write(tmp_path / "golden-lsp.toml", toml)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        load_config(path)


def test_bad_key_in_pyproject_section(tmp_path):
    path = write(tmp_path / "pyproject.toml", '[tool.golden-lsp]\ncorpuss = "docs"\n')
    with pytest.raises(ConfigError, match="unknown key 'corpuss'"):
        load_config(path)


def test_every_key_can_be_overridden(tmp_path):
    cfg = load_config(
        write(
            tmp_path / "proj" / "golden-lsp.toml",
            'corpus = "c"\nquestions = "q.jsonl"\nartifact = "a.jsonl"\nmanifest = "m.json"\n'
            'glob = "*.md"\nmax_chars = 500\nhit_rule = "span_containment"\n',
        )
    )
    base = tmp_path / "cwd"
    over = cfg.with_overrides(
        {
            "corpus": Path("c2"),
            "questions": Path("q2.jsonl"),
            "artifact": Path("/abs/a2.jsonl"),
            "manifest": Path("m2.json"),
            "glob": "**/*.md",
            "max_chars": 1000,
            "hit_rule": "any_overlap",
        },
        base,
    )
    assert over.corpus == (base / "c2").resolve()
    assert over.questions == (base / "q2.jsonl").resolve()
    assert over.artifact == Path("/abs/a2.jsonl")
    assert over.manifest == (base / "m2.json").resolve()
    assert (over.glob, over.max_chars, over.hit_rule) == ("**/*.md", 1000, "any_overlap")
    # None means "not given": the config value stays
    same = cfg.with_overrides({"max_chars": None, "hit_rule": None}, base)
    assert (same.max_chars, same.hit_rule) == (500, "span_containment")
    with pytest.raises(ConfigError, match="override"):
        cfg.with_overrides({"hit_rule": "nope"}, base)
    with pytest.raises(ConfigError, match="unknown key"):
        cfg.with_overrides({"colour": "red"}, base)


def test_config_for_explicit_found_and_default(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        config_for(None, tmp_path / "missing.toml")
    explicit = write(tmp_path / "other.toml", 'corpus = "c"\n')
    assert config_for(tmp_path / "nowhere", explicit).source == explicit.resolve()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert config_for(empty) == Config()
    with pytest.raises(ConfigError, match="no corpus"):
        Config().corpus_path()
