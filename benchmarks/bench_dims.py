"""Benchmarks of the exact dimension algorithms (issue: foundation).  Run by hand:

    python benchmarks/bench_dims.py            # everything, including the slow baseline (~1 min)
    python benchmarks/bench_dims.py --quick    # skip the frozenset baseline

Targets (from the issue):
  * Ldim of a seeded random class, 200 hypotheses on 20 points (p = 1/2): >= 100x faster than
    the plain memoised recursion over frozensets (measured here, in the same run), < 0.5 s;
  * VC of 1,024 random hypotheses on 60 points with a planted shattered set of size 9: exact in
    < 5 s (catalog family ``planted m=1024 n=60 d=9 p=0.5 seed=S``);
  * Ldim of intervals (with the empty set) on [n] for every n <= 64, generic algorithm; and of
    thresholds on [4096]: report the times;
  * threshold dimension of a random class of 120 hypotheses on 16 points: < 1 s.
Every result's witness is re-checked by ltheory.dims.certificates.verify.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time

import numpy as np

from ltheory import catalog
from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.certificates import verify
from ltheory.dims.littlestone import littlestone_dimension
from ltheory.dims.threshold import threshold_dimension
from ltheory.dims.vc import vc_dimension


def baseline_ldim(H: HypothesisClass) -> int:
    """The plain memoised recursion over frozensets of hypothesis indices (the baseline)."""
    M = H.matrix
    n = H.domain_size

    @functools.cache
    def ld(V: frozenset[int]) -> int:
        if len(V) <= 1:
            return len(V) - 1
        best = 0
        for x in range(n):
            ones = frozenset(h for h in V if M[h, x])
            zeros = V - ones
            if ones and zeros:
                best = max(best, 1 + min(ld(zeros), ld(ones)))
        return best

    return ld(frozenset(range(len(H))))


def timed(fn, *args, repeat: int = 1, **kw):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*args, **kw)
        times.append(time.perf_counter() - t)
    return out, statistics.median(times)


def bench_ldim_random(quick: bool) -> None:
    print("== Littlestone dimension, random class m=200 n=20 p=1/2")
    for seed in range(3):
        H = catalog.family("random", m=200, n=20, p=0.5, seed=seed)
        r, t = timed(littlestone_dimension, H, repeat=5)
        verify(H, r)
        line = f"  seed={seed}: Ldim={r.value} exact={r.exact} ours={t * 1e3:.2f} ms"
        if not quick and seed == 0:
            b, tb = timed(baseline_ldim, H)
            assert b == r.value, (b, r.value)
            line += f"  baseline(frozenset memo)={tb:.2f} s  speedup={tb / t:,.0f}x"
        print(line, flush=True)


def bench_vc_planted() -> None:
    print("== VC dimension, planted m=1024 n=60 d=9 p=1/2")
    times = []
    for seed in range(8):
        H = catalog.family("planted", m=1024, n=60, d=9, p=0.5, seed=seed)
        r, t = timed(vc_dimension, H)
        verify(H, r)
        times.append(t)
        planted = catalog.planted_points(1024, 60, 9, 0.5, seed)
        found = sorted(int(x) for x in r.witness)
        print(f"  seed={seed}: VC={r.value} exact={r.exact} {t:.2f} s nodes={r.stats['nodes']}"
              f" witness=planted:{found == planted}", flush=True)
    print(f"  median {statistics.median(times):.2f} s, max {max(times):.2f} s, "
          f"{sum(t < 5 for t in times)}/{len(times)} under 5 s")


def bench_ldim_intervals() -> None:
    print("== Littlestone dimension, intervals with the empty set on [n], n = 1..64")
    total, first, prev = 0.0, {}, None
    worst = (0.0, 0)
    for n in range(1, 65):
        H = catalog.family("intervals", n=n, empty=True)
        r, t = timed(littlestone_dimension, H)
        verify(H, r)
        total += t
        worst = max(worst, (t, n))
        if r.value != prev:
            first[r.value] = n
            prev = r.value
    print(f"  first n reaching each value: {first}")
    print(f"  total {total:.2f} s for all n <= 64; slowest n={worst[1]} ({worst[0]:.3f} s)")
    n = 4096  # above the catalog's limit for thresholds, so built here: h_t(x) = 1 iff x >= t
    H = HypothesisClass.from_matrix(np.arange(n)[None, :] >= np.arange(n + 1)[:, None])
    r, t = timed(littlestone_dimension, H)
    verify(H, r)
    print(f"== Littlestone dimension, thresholds on [4096]: Ldim={r.value} exact={r.exact} "
          f"{t:.2f} s (class built separately)")


def bench_tdim_random() -> None:
    print("== threshold dimension, random class m=120 n=16 p=1/2")
    times = []
    for seed in range(5):
        H = catalog.family("random", m=120, n=16, p=0.5, seed=seed)
        r, t = timed(threshold_dimension, H)
        verify(H, r)
        times.append(t)
        print(f"  seed={seed}: T={r.value} exact={r.exact} {t:.2f} s nodes={r.stats['nodes']}",
              flush=True)
    print(f"  median {statistics.median(times):.2f} s, max {max(times):.2f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the frozenset baseline")
    args = ap.parse_args(argv)
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}")
    bench_ldim_random(args.quick)
    bench_vc_planted()
    bench_ldim_intervals()
    bench_tdim_random()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
