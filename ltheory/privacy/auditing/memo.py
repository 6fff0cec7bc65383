"""A memo for one event selection: each (owner, batch) pair's derived array computed once.

Event selection scores many families on the same few batches (the selection split's halves),
and several families derive the same array from a batch: a cell encoder's cells
(``events.encoded``), a discrete block's pattern ids (``features.Block.pattern_ids``: the
naive-Bayes fit, the linear and the cell scores all read them).  Inside `selection_memo` the
first computation is kept, keyed by the identities of the owner and the batch (the entry holds
both, so an identity is never reused while its entry lives); the entries, and their memory,
are released when the outermost block ends.  Outside a block nothing is kept.  The store is
per thread."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["memoized", "selection_memo"]

_LOCAL = threading.local()


@contextlib.contextmanager
def selection_memo() -> Iterator[None]:
    """Within the block, `memoized` keeps what it computes (this thread's store)."""
    outer = getattr(_LOCAL, "memo", None)
    _LOCAL.memo = {} if outer is None else outer
    try:
        yield
    finally:
        _LOCAL.memo = outer


def memoized(tag: str, owner: Any, batch: Any, compute: Callable[[], Any]) -> Any:
    """``compute()``, from `selection_memo`'s store when active (keyed by ``tag`` and the
    identities of ``owner`` and ``batch``)."""
    memo = getattr(_LOCAL, "memo", None)
    if memo is None:
        return compute()
    key = (tag, id(owner), id(batch))
    hit = memo.get(key)
    if hit is not None and hit[0] is owner and hit[1] is batch:
        return hit[2]
    out = compute()
    memo[key] = (owner, batch, out)
    return out
