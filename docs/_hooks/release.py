"""The release's facts on the documentation site, read from their one source when it is built.

* the version, written only in ``ltheory/_version.py`` (parsed, not imported, so the site shows
  this checkout's version whatever ltheory is installed), in every page's footer;
* the changelog: ``docs/changelog.md`` is a stub that this hook fills with the top-level
  ``CHANGELOG.md``, so the file kept in the repository is the page.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CHANGELOG_PAGE = "changelog.md"


def version() -> str:
    """``__version__`` of ``ltheory/_version.py``."""
    tree = ast.parse((ROOT / "ltheory" / "_version.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets):
            return str(ast.literal_eval(node.value))
    raise ValueError("ltheory/_version.py sets no __version__")


def changelog() -> str:
    return (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def on_config(config: Any, **kwargs: Any) -> Any:
    config["copyright"] = f"ltheory {version()} · MIT License"
    return config


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if page.file.src_uri == CHANGELOG_PAGE:
        return changelog()
    return markdown
