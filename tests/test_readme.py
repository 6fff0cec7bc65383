"""The README's Python examples run as written (documentation that cannot silently rot)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_docs import blocks, check_output, output_spec

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def _shown_outputs() -> list[tuple[str, dict] | None]:
    """Per python block, the ``<!-- output -->`` block shown after it (tests/test_docs.py's
    convention), or None."""
    fenced = blocks(README)
    spec = output_spec(README)
    out: list[tuple[str, dict] | None] = []
    for i, (lang, _, _) in enumerate(fenced):
        if lang != "python":
            continue
        nxt = next((j for j in range(i + 1, len(fenced)) if fenced[j][0] == "python"
                    or j in spec), None)
        out.append((fenced[nxt][2], spec[nxt]) if nxt is not None and nxt in spec else None)
    return out


SHOWN = _shown_outputs()


def test_readme_first_block_is_the_two_setup_commands() -> None:
    first = re.search(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)
    assert first is not None
    lines = [ln for ln in first.group(1).splitlines() if ln.strip()]
    assert lines == ["pip install -e '.[test]' && ltheory demo", "python -m pytest"]
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert all(line in ci for line in lines)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs(index: int, tmp_path: Path) -> None:
    path = tmp_path / f"readme_block_{index}.py"
    path.write_text(BLOCKS[index], encoding="utf-8")
    # a property test, or a test taking fixtures (ltheory's pytest plugin): let pytest run it,
    # on this checkout's ltheory
    if "@given" in BLOCKS[index] or re.search(r"^def test_\w+\(\w", BLOCKS[index], flags=re.M):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(README.parent), *filter(None, [os.environ.get("PYTHONPATH")])])}
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "-p", "ltheory.testing.pytest_plugin", str(path)],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path,
                              env=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    else:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            runpy.run_path(str(path), run_name="__readme__")
        shown = SHOWN[index]
        if shown is None:
            assert not printed.getvalue(), (f"README python block {index} printed\n"
                                            f"{printed.getvalue()}\nbut no <!-- output --> block "
                                            "shows it")
        else:
            check_output(f"README python block {index}", shown[0], printed.getvalue(),
                         **shown[1])


def test_readme_output_blocks_follow_python_blocks() -> None:
    assert len(SHOWN) == len(BLOCKS)
    assert sum(s is not None for s in SHOWN) >= 2
