"""The documentation site's settings that a release depends on (mkdocs.yml, docs/_hooks/release.py):
no web fonts fetched at view time, shell prompts left out of the copy button, the version and the
changelog read from their one source."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


class _Loader(yaml.SafeLoader):
    """mkdocs.yml with its ``!!python/name:`` tags (none today) read as plain strings."""


_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
CONFIG = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)


def _release_hook():
    spec = importlib.util.spec_from_file_location("docs_release",
                                                  ROOT / "docs" / "_hooks" / "release.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_no_web_fonts() -> None:
    """Material loads Google Fonts unless ``theme.font`` is false: blank text offline."""
    assert CONFIG["theme"]["font"] is False
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "googleapis" not in text and "gstatic" not in text


def test_copy_button_leaves_prompts_out() -> None:
    css_name = "stylesheets/extra.css"
    assert css_name in CONFIG["extra_css"]
    css = (ROOT / "docs" / css_name).read_text(encoding="utf-8")
    assert re.search(r"code\[data-md-copying\] \.gp[^{]*\{\s*display:\s*none", css)
    assert "content.code.copy" in CONFIG["theme"]["features"]


def test_version_and_changelog_come_from_their_one_source() -> None:
    from ltheory._version import __version__

    hook = _release_hook()
    assert hook.version() == __version__
    assert "docs/_hooks/release.py" in CONFIG["hooks"]
    config = hook.on_config({"copyright": None})
    assert __version__ in config["copyright"]

    class Page:
        class file:  # noqa: N801 - the attribute MkDocs pages have
            src_uri = "changelog.md"

    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert hook.on_page_markdown("stub", Page) == changelog
    # the page in the repository is a stub: the text lives in CHANGELOG.md only
    stub = (ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")
    assert "## " not in stub and len(stub) < 300
    assert any(entry == {"Changelog": "changelog.md"} for entry in CONFIG["nav"])


def test_changelog_has_an_unreleased_section_and_this_version() -> None:
    from ltheory._version import __version__

    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings[0] == "Unreleased"
    assert any(h.split()[0] == __version__ for h in headings[1:]), headings
