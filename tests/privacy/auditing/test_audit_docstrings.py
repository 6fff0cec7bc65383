"""Every example in the auditor's docstrings runs and gives what it shows."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ltheory.privacy.auditing as auditing

MODULES = sorted(m.name for m in pkgutil.iter_modules(auditing.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name: str) -> None:
    mod = importlib.import_module(f"ltheory.privacy.auditing.{name}")
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_the_entry_points_have_examples() -> None:
    from ltheory.privacy.auditing import core, search
    assert ">>>" in (core.__doc__ or "") and ">>>" in (search.audit_search.__doc__ or "")
