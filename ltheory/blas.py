"""One BLAS thread for code whose matrix products are many and narrow.

OpenBLAS's extra threads spin while they wait for work, so where the products are small (the VC
search's cell counts, an audit's linear scores over a few dozen coordinates and its logistic
fit) they cost CPU and, on 2 cores, slow the other process down: halfspaces g = 8 under load,
8 ms per cell count with the default threads and 0.1 ms with one (``dims.vc``); Rappor at
2·10^7 runs with the default process pool, 22.3 s wall and 34.0 s CPU with the default threads,
17.7 s and 24.1 s with one (``privacy.auditing.executors``; forked pool workers inherit the
limit).  threadpoolctl does the limiting; its view of the loaded libraries is taken once per set
of imported modules (~1 ms), after which a limit costs ~10 µs.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])


@functools.lru_cache(maxsize=1)
def _controller(n_modules: int) -> Any:
    """threadpoolctl's view of the loaded thread pools, taken again when modules were imported
    since (a library loaded later, such as scipy's own OpenBLAS, is then limited too)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def single_blas_thread() -> Any:
    """A context manager limiting the BLAS libraries to one thread (restored on exit)."""
    return _controller(len(sys.modules)).limit(limits=1, user_api="blas")


def one_blas_thread(fn: _F) -> _F:
    """Run ``fn`` under `single_blas_thread`."""

    @functools.wraps(fn)
    def limited(*args: Any, **kwargs: Any) -> Any:
        with single_blas_thread():
            return fn(*args, **kwargs)

    return limited  # type: ignore[return-value]
