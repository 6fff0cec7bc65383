"""The ``audit`` command under malformed, extreme and hostile arguments (hypothesis): every
input ends with exit 0 or 1 and a report, or exit 2 and one line naming the fault — never a
traceback."""

from __future__ import annotations

import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ltheory.cli import audit

app = typer.Typer()
app.command(audit.NAME)(audit.command)


@app.callback()
def _root() -> None:
    """Keep `audit` as a sub-command."""


NAMES = ["randomized_response", "laplace", "svt1", "noisy_max", "histogram_wrong_scale",
         "exponential/thresholds-n8-eps1", "no-such-mechanism", "", "../../etc/passwd"]
NUMBERS = ["1", "0", "-1", "0.5", "nan", "inf", "-inf", "1e308", "1e-300", "abc", "", "2.5e3",
           "9" * 400, "0x10"]
JSON = ["0", "1", "[0, 1]", "[[0, 1], [1, 0]]", "{", "NaN", "[1, Infinity]", "9" * 5000,
        "[" * 3000 + "]" * 3000, '"text"', "null", "[[[0]]]", '{"a": 1}', "[1.5, -2]"]
OPTION = st.one_of(
    st.tuples(st.sampled_from(["--claimed-epsilon", "--claimed-delta", "--alpha", "--seed",
                               "--budget", "--n"]), st.sampled_from(NUMBERS)),
    st.tuples(st.sampled_from(["--d0", "--d1"]), st.sampled_from(JSON)),
    st.tuples(st.just("--param"), st.sampled_from(["epsilon=2", "scale=x", "bogus", "=",
                                                   "variant=9", "epsilon=nan"])),
    st.tuples(st.just("--method"), st.sampled_from(["auto", "pilot", "bogus"])),
    st.tuples(st.sampled_from(["--search", "--worst-case", "--json", "--broken", "--tradeoff"])),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(NAMES), st.sampled_from(["2000", "20000", "0", "-3", "1e9", "x"]),
       st.lists(OPTION, max_size=4))
def test_hostile_arguments_end_cleanly(name: str, runs: str, options: list[tuple]) -> None:
    args = ["audit", name, "--runs", runs, "--quiet", "--budget", "2"]
    for opt in options:
        args += list(opt)
    r = CliRunner().invoke(app, args)
    assert r.exit_code in (0, 1, 2), (args, r.output, r.exception)
    assert "Traceback" not in r.output, (args, r.output)
    if r.exception is not None:          # only typer's own exit, never an escaped exception
        assert isinstance(r.exception, SystemExit), (args, repr(r.exception))
    if r.exit_code == 2:
        assert r.output.strip(), args
