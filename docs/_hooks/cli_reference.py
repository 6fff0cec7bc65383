"""The command-line reference, generated from the ``ltheory`` parser when the site is built.

``docs/reference/cli.md`` holds hand-written prose (SPEC, exit codes, examples, budgets) and two
markers that this MkDocs hook replaces: ``<!-- cli:synopsis -->`` by one usage line per command,
``<!-- cli:reference -->`` by every command with every argument and option, its help text,
default and whether it is required or repeatable -- all read from the typer application
(:func:`ltheory.cli.build_app`), so the page cannot drift from ``ltheory COMMAND --help``.
``tests/test_cli_reference.py`` checks that every option of every command appears.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

SYNOPSIS = "<!-- cli:synopsis -->"
REFERENCE = "<!-- cli:reference -->"
PAGE = "reference/cli.md"


def _command() -> Any:
    """The ``ltheory`` group as typer builds it (click's command objects), from this checkout:
    a reference of another installed ltheory's parser would be wrong without a sign."""
    import typer.main

    import ltheory.cli
    from ltheory.cli import build_app

    where = Path(ltheory.cli.__file__).resolve()
    if not where.is_relative_to(ROOT):
        raise RuntimeError(f"the CLI reference would describe {where}, not this checkout's "
                           f"parser: build the site with PYTHONPATH=. or an editable install")
    return typer.main.get_command(build_app())


def on_config(config: Any, **kwargs: Any) -> Any:
    """This checkout first on the path, so the pages' generated parts come from it."""
    if "ltheory" not in sys.modules and str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return config


def _escape(text: str) -> str:
    """Help text as Markdown that shows it literally (no emphasis from ``*``/``_``, no HTML)."""
    text = re.sub(r"([\\`*_\[\]])", r"\\\1", text)
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _is_argument(p: Any) -> bool:
    return p.param_type_name == "argument"


def _argument_name(p: Any) -> str:
    name = p.metavar or p.name.upper()
    if p.nargs == -1 and not name.endswith("..."):
        name += "..."
    return name


def _usage(name: str, cmd: Any) -> str:
    """``ltheory NAME [OPTIONS] ARGS``, with the required options spelt out."""
    parts = [f"ltheory {name}"]
    options = [p for p in cmd.params if not _is_argument(p) and not p.hidden]
    for p in options:
        if p.required:
            parts.append(f"{p.opts[0]} {p.metavar or p.name.upper()}")
    parts.append("[OPTIONS]")                          # --help at least
    for p in cmd.params:
        if _is_argument(p):
            arg = _argument_name(p)
            parts.append(arg if p.required else f"[{arg}]")
    return " ".join(parts)


def _default(p: Any) -> str | None:
    if getattr(p, "is_flag", False) or p.required:
        return None
    d = p.default
    if d is None or d == () or d == []:
        return None
    return str(d)


def _param_item(p: Any, ctx: Any) -> str:
    if _is_argument(p):
        shown = _argument_name(p)
    else:
        shown = p.get_help_record(ctx)[0]      # what --help shows: "-p, --param KEY=VALUE"
    notes = []
    if p.required:
        notes.append("required")
    if getattr(p, "multiple", False) or (_is_argument(p) and p.nargs == -1):
        notes.append("repeatable")
    default = _default(p)
    if default is not None:
        notes.append(f"default `{default}`")
    head = f"`{shown}`" + (f" ({', '.join(notes)})" if notes else "")
    help_text = " ".join((p.help or "").split())
    return f"- {head}: {_escape(help_text)}" if help_text else f"- {head}"


def commands() -> list[tuple[str, Any]]:
    """(name, command) of every visible ``ltheory`` command, in ``ltheory --help`` order."""
    group = _command()
    return [(n, c) for n, c in group.commands.items() if not c.hidden]


def synopsis() -> str:
    """One usage line per command, in a ``text`` block."""
    lines = ["ltheory --version"] + [_usage(n, c) for n, c in commands()]
    return "```text\n" + "\n".join(lines) + "\n```"


def reference(level: int = 3) -> str:
    """Every command with its description, usage, arguments and options, as Markdown."""
    import typer

    group = _command()
    root = typer.Context(group, info_name="ltheory")
    hashes = "#" * level
    out = []
    top = [p for p in group.params if not p.hidden]
    out.append(f"{hashes} ltheory\n")
    out.append("```text\nltheory [--version] [--help] COMMAND ...\n```\n")
    out.extend(_param_item(p, root) for p in top)
    out.append("- `--help`: print the command's help and exit (every command takes it).\n")
    for name, cmd in commands():
        ctx = typer.Context(cmd, info_name=name, parent=root)
        out.append(f"{hashes} ltheory {name}\n")
        out.append("\n\n".join(_escape(" ".join(par.split()))
                               for par in (cmd.help or "").strip().split("\n\n")) + "\n")
        out.append(f"```text\n{_usage(name, cmd)}\n```\n")
        args = [p for p in cmd.params if _is_argument(p) and not p.hidden]
        opts = [p for p in cmd.params if not _is_argument(p) and not p.hidden]
        if args:
            out.append("Arguments:\n")
            out.extend(_param_item(p, ctx) for p in args)
            out.append("")
        if opts:
            out.append("Options:\n")
            out.extend(_param_item(p, ctx) for p in opts)
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def render(markdown: str) -> str:
    """The page with its markers replaced (each must be there: a lost marker fails the build)."""
    for marker in (SYNOPSIS, REFERENCE):
        if markdown.count(marker) != 1:
            raise ValueError(f"{PAGE} must hold the line {marker} exactly once")
    return markdown.replace(SYNOPSIS, synopsis()).replace(REFERENCE, reference())


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if page.file.src_uri == PAGE:
        return render(markdown)
    return markdown
