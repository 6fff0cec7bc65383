"""The command-line reference (docs/reference/cli.md) is generated from the parser and complete.

The page's markers are replaced by ``docs/_hooks/cli_reference.py`` when the site is built;
these tests check that every argument and option of every command (and of ``ltheory`` itself)
appears in what the hook renders, with its help text, and that every one has a help text.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
import typer
import typer.main

from ltheory.cli import COMMAND_MODULES, build_app

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "reference" / "cli.md"


def _hook():
    spec = importlib.util.spec_from_file_location("docs_cli_reference",
                                                  ROOT / "docs" / "_hooks" / "cli_reference.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


HOOK = _hook()
GROUP = typer.main.get_command(build_app())
COMMANDS = sorted(GROUP.commands)


def _section(rendered: str, name: str) -> str:
    """The part of the rendered page about ``ltheory NAME`` (up to the next command)."""
    title = f"ltheory {name}".rstrip()
    m = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^### |\Z)", rendered,
                  flags=re.M | re.S)
    assert m is not None, f"no section for ltheory {name}"
    return m.group(1)


@pytest.fixture(scope="module")
def rendered() -> str:
    return HOOK.render(PAGE.read_text(encoding="utf-8"))


def test_every_command_is_documented(rendered: str) -> None:
    assert {n.replace("_", "-") for n in COMMAND_MODULES} == set(COMMANDS)
    synopsis = HOOK.synopsis()
    for name in COMMANDS:
        assert f"\nltheory {name} " in synopsis, name
        _section(rendered, name)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_option_and_argument_appears_with_its_help(rendered: str, name: str) -> None:
    cmd = GROUP.commands[name]
    section = _section(rendered, name)
    usage = HOOK._usage(name, cmd)
    assert f"```text\n{usage}\n```" in section
    for p in cmd.params:
        if p.param_type_name == "argument":
            shown = HOOK._argument_name(p)
            assert f"`{shown}`" in section, (name, shown)
            assert shown.removesuffix("...") in usage, (name, shown)
        else:
            for opt in [*p.opts, *p.secondary_opts]:
                assert re.search(rf"`[^`]*{re.escape(opt)}\b[^`]*`", section), (name, opt)
        help_text = HOOK._escape(" ".join((p.help or "").split()))
        assert help_text and help_text in section, (name, p.name)


def test_the_options_the_synopsis_used_to_leave_out_are_there(rendered: str) -> None:
    audit = _section(rendered, "audit")
    for opt in ("-p, --param", "--d0", "--d1", "--alpha", "--tradeoff", "--broken", "--n ",
                "--budget", "--method", "--seed", "--arithmetic", "--claim "):
        assert f"`{opt}" in audit, opt
    assert "`--list`" in _section(rendered, "check")
    assert "`--version`" in _section(rendered, "")  # the group's own section: "### ltheory"


def test_every_parameter_has_a_help_text() -> None:
    missing = [(name, p.name) for name in COMMANDS for p in GROUP.commands[name].params
               if not (p.help or "").strip()]
    missing += [("ltheory", p.name) for p in GROUP.params if not (p.help or "").strip()]
    assert not missing, f"parameters without a help text: {missing}"
    for name in COMMANDS:
        assert (GROUP.commands[name].help or "").strip(), f"ltheory {name} has no description"


def test_defaults_are_shown(rendered: str) -> None:
    assert "`--alpha <float>` (default `0.05`)" in _section(rendered, "audit")
    assert "(default `many-run`)" in _section(rendered, "audit-scores")
    assert "`--runs N` (required)" in _section(rendered, "audit")


def test_the_page_keeps_its_markers_and_the_hook_is_registered() -> None:
    text = PAGE.read_text(encoding="utf-8")
    for marker in (HOOK.SYNOPSIS, HOOK.REFERENCE):
        assert text.count(marker) == 1, marker
    assert "docs/_hooks/cli_reference.py" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="exactly once"):
        HOOK.render(text.replace(HOOK.REFERENCE, ""))
    # no hand-written copy of the option lists left on the page
    assert "[--only vc,ldim,tdim]" not in text
