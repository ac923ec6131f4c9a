"""The command line: ``check`` (the CI gate), ``build`` (write the artifact), ``serve``, and the
other uses of a set, one module each in this package.

A thin front end over the core: each command module turns flags into a call of a pure core
function and prints what it returns. Every module named in ``COMMANDS`` has ``register(sub)``,
which adds its subparser(s) with ``set_defaults(run=fn)``; ``fn(args)`` returns the exit code. Only
the module of the command being run is imported (all of them for ``--help``), so ``check`` in a
pre-commit hook never pays for numpy, DuckDB or a chart library, and a command whose extra is not
installed says which one instead of raising. Exit codes are a contract for CI: 0 no error, 1
findings with an error, 2 a usage or configuration problem, always with a one-line reason on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from .. import __version__
from ..core.goldenset.config import ConfigError
from ..core.io.shown import shown
from .common import USAGE_ERROR

#: command → the module of this package that registers it, in the order ``--help`` lists them
COMMANDS = {
    "check": "jobs",
    "build": "jobs",
    "init": "init",
    "stats": "stats",
    "agree": "agree",
    "sample": "sample",
    "assign": "assign",
    "adjudicate": "adjudicate",
    "export": "export",
    "import": "importer",
    "incidents": "incidents",
    "eval": "evaluate",
    "power": "power",
    "qrels": "qrels",
    "retrieve": "retrieve",
    "report": "report",
    "migrate": "migrate",
    "judge": "judge",
    "grade": "grade",
    "accept": "accept",
}
#: the extra a command module's imports come from, named when they are missing
EXTRAS = {"evaluate": "eval", "power": "eval", "qrels": "eval", "retrieve": "search", "report": "report"}
#: the extras (pyproject.toml) that install each library a command imports only when it runs
LIBRARY_EXTRAS = {
    "numpy": ("eval", "search"),
    "duckdb": ("eval",),
    "bm25s": ("search",),
    "altair": ("report",),
    "vl_convert": ("report",),
    "jinja2": ("report",),
}


def _flag(argv: Sequence[str], name: str) -> str | None:
    """The value of ``--name VALUE`` or ``--name=VALUE`` in ``argv`` (None: not given)."""
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg[len(name) + 1 :]
    return None


def needed_extras(command: str, argv: Sequence[str]) -> list[str]:
    """Every extra ``command`` needs with the flags ``argv`` gives it, in install order: the
    command's own, the eval extra for scoring a run, the search extra for BM25."""
    retriever = _flag(argv, "--retriever")
    scoring = _flag(argv, "--run") is not None or retriever is not None
    if command == "retrieve":
        retriever = retriever or "bm25"
    needs = {
        "eval": ["eval"],
        "qrels": ["eval"],
        "retrieve": [],
        "report": ["report", *(["eval"] if scoring else [])],
        "judge": ["eval"] if _flag(argv, "--run") is not None else ["search"],
        "grade": ["eval"] if _flag(argv, "--db") is not None else [],
    }.get(command, [])
    if retriever == "bm25":
        needs.append("search")
    return list(dict.fromkeys(needs))


def _installed(extra: str) -> bool:
    """Whether every library of ``extra`` that a command imports can be imported."""
    for library, extras in LIBRARY_EXTRAS.items():
        if extra in extras:
            try:
                if importlib.util.find_spec(library) is None:
                    return False
            except (ImportError, ValueError):
                return False
    return True


def missing_extra(command: str, exc: ImportError, argv: Sequence[str] = ()) -> str | None:
    """The one-line reason for a library of an extra that is not installed (None for any other
    import error), naming every extra the command needs with these flags that is missing — not one
    now and the next after it is installed: the command's own extra when it provides the library,
    else the first that does, and the others it needs."""
    module = COMMANDS.get(command, "")
    providers = LIBRARY_EXTRAS.get((exc.name or "").partition(".")[0])
    if providers is None:
        return None
    extra = EXTRAS[module] if EXTRAS.get(module) in providers else providers[0]
    wanted = needed_extras(command, argv)
    missing = [e for e in dict.fromkeys([*wanted, extra]) if e == extra or not _installed(e)]
    missing.sort(key=lambda e: wanted.index(e) if e in wanted else len(wanted))
    names = " and ".join(missing)
    return (
        f"{command} needs the {names} extra{'s' if len(missing) > 1 else ''}: "
        f"pip install 'golden-lsp[{','.join(missing)}]' ({exc})"
    )


def _parser(command: str | None = None, argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The parser for ``command`` (only its module imported), or for every command (``argv``: the
    whole command line, for naming the extras it needs)."""
    parser = argparse.ArgumentParser(
        prog="golden-lsp",
        description="Quote-anchored RAG golden sets: check, build, or serve the editor (no command: serve).",
    )
    parser.add_argument("--version", action="version", version=f"golden-lsp {__version__}")
    sub = parser.add_subparsers(dest="command")
    names = [COMMANDS[command]] if command in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for name in names:
        try:
            module = importlib.import_module(f".{name}", __package__)
        except ImportError as exc:
            if command not in COMMANDS:  # --help: list the commands that can run here
                continue
            extra = EXTRAS.get(name, "test")
            raise ConfigError(
                missing_extra(command, exc, argv)
                or f"{command} needs the {extra} extra: pip install 'golden-lsp[{extra}]' ({exc})"
            ) from None
        module.register(sub)
    serve = sub.add_parser("serve", help="run the language server (the default)")
    serve.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead, for debugging")
    return parser


def _tcp_address(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``:PORT`` for 127.0.0.1) as (host, port)."""
    host, sep, port = value.rpartition(":")
    if not sep or not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
        raise ConfigError(f"--tcp expects HOST:PORT with a port from 1 to 65535, not {value!r}")
    return host or "127.0.0.1", int(port)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--check" in argv:
        argv.remove("--check")
        argv.insert(0, "check")
    if not argv or argv[0] in ("--stdio", "--tcp"):
        argv.insert(0, "serve")
    try:
        parser = _parser(argv[0], argv)
    except ConfigError as exc:
        sys.stderr.write(f"golden-lsp: {shown(str(exc), lines=True)}\n")
        return USAGE_ERROR
    args = parser.parse_args(argv)
    if args.command == "serve":
        try:
            tcp = _tcp_address(args.tcp) if args.tcp is not None else None
        except ConfigError as exc:
            sys.stderr.write(f"golden-lsp: {shown(str(exc), lines=True)}\n")
            return USAGE_ERROR
        if tcp is None and sys.stdin.isatty():  # run by hand in a terminal: it would look hung
            sys.stderr.write(
                "golden-lsp: this is the language server, waiting for an editor to talk LSP on stdin "
                "(Ctrl-D quits); to check a golden set run `golden-lsp check [PATH]`\n"
            )
            sys.stderr.flush()
        from ..server import serve  # the protocol layer is imported only to serve

        return serve(tcp)
    try:
        return args.run(args)
    except ConfigError as exc:
        sys.stderr.write(f"golden-lsp: {shown(str(exc), lines=True)}\n")
        return USAGE_ERROR
    except ImportError as exc:  # a library of an extra, imported only now that the command runs
        reason = missing_extra(args.command, exc, argv)
        if reason is None:
            raise
        sys.stderr.write(f"golden-lsp: {reason}\n")
        return USAGE_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
