"""The subset and slice options of ``eval`` (``--split``, ``--where``, ``--sample``, ``--stratify``,
``--by``) and the opt-in guard on the test split: kept apart so the command's module stays about
scoring."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..core.goldenset.config import ConfigError

if TYPE_CHECKING:
    from ..core.goldenset.project import GoldenSet
    from ..evaluate.targets import Targets

#: the split that only release decisions may touch when the guard is on
TEST_SPLIT = "test"


def add_by_option(p: argparse.ArgumentParser) -> None:
    """``--by FIELD``: the slices ``eval`` breaks down by and ``report`` shows."""
    p.add_argument(
        "--by",
        action="append",
        default=[],
        metavar="FIELD",
        help="also break down by FIELD (tenant, source, meta.KEY, tags, ...; repeatable); hop, "
        "query_type, split and document always are",
    )


def add_subset_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--split", metavar="NAME", help="score only the records of this split")
    p.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="score only records whose FIELD has VALUE (hop, query_type, split, tags, document, "
        "tenant, source, meta.KEY, ...); repeatable, all must match",
    )
    p.add_argument(
        "--sample", type=int, metavar="N", help="score a seeded sample of N records (see --seed, --stratify)"
    )
    p.add_argument(
        "--stratify",
        action="append",
        default=[],
        metavar="FIELD",
        help="draw --sample in proportion to the groups of FIELD (repeatable)",
    )
    p.add_argument(
        "--protect-test",
        action="store_true",
        dest="protect_test",
        help=f"refuse --split {TEST_SPLIT} unless --release is given",
    )
    p.add_argument(
        "--release", action="store_true", help=f"a release decision: --split {TEST_SPLIT} is allowed"
    )


def subset_of(args: argparse.Namespace, golden: GoldenSet, tg: Targets) -> Targets:
    """The targets of the subset the options name (all of them when none is named)."""
    from ..evaluate.subsets import Subset, parse_where, select

    if args.protect_test and args.split == TEST_SPLIT and not args.release:
        raise ConfigError(
            f"--split {TEST_SPLIT}: the test split is kept for release decisions; add --release to score it"
        )
    if args.stratify and args.sample is None:
        raise ConfigError("--stratify needs --sample N")
    subset = Subset(args.split, parse_where(args.where), args.sample, args.seed, tuple(args.stratify))
    return select(tg, subset)
