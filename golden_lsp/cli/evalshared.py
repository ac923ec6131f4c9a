"""What ``eval``, ``qrels`` and ``retrieve`` share: the chunking option, the targets, safe outputs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.goldenset.project import GoldenSet
from ..evaluate.chunkings import load_chunking
from .common import golden_set, write_files

if TYPE_CHECKING:
    from ..evaluate.targets import Targets


def add_chunks_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--chunks",
        type=Path,
        metavar="CHUNKS.jsonl",
        help="score your own chunking: one {chunk_id, doc_id, char_start, char_end} or "
        "{chunk_id, doc_id, text} per line (default: the corpus's md-struct-v1 chunks)",
    )


def load_targets(args: argparse.Namespace) -> tuple[GoldenSet, Targets]:
    from ..evaluate.evaluation import targets  # numpy: the eval extra

    golden = golden_set(args, args.path)
    chunking = load_chunking(args.chunks, golden.corpus) if args.chunks is not None else None
    return golden, targets(golden, chunking)


def write_output(out: Path, text: str, golden: GoldenSet, *inputs: Path | None) -> None:
    """Write ``out`` atomically, refusing any path that is one of the command's inputs."""
    golden.refuse_outputs({"output": out}, {p: "input" for p in inputs if p is not None})
    write_files({out: text}, "write")
