"""Deeper cuts of a chosen event: rarer events of its own family, certified beside it.

Every family the audit ranks (``events``) is a chain of nested events — the thresholds of one
score in one direction, the prefixes of one likelihood-ratio order — scored on the selection
split.  Where the log-ratio keeps *growing* towards the rare end of the chain, the best event
at the certification size holds a few hundred selection runs or fewer, and its ratio is read
there with a standard error about as large as the growth itself.  The shrinkage that guards
the ranking against the winner's curse then chooses a position further up the chain: SVT3 at
2·10^6 runs (DP-Sniper's pair 1¹⁰ vs 0⁵2⁵) has its best released-value cut at ~430 pooled
selection runs, worth 0.94 of the whole-budget ceiling, and a plateau at ~5,000 runs worth
0.64; the 98% bounds choose 1,000–5,000 runs, 0.74 on average.

So when the first event is a threshold (of the output, a coordinate, a released value, a
fitted score), it is certified together with up to two nested events of its own family,
holding about `SHARES` of its pooled selection runs (each the position of fewest runs that
still holds that share, and at least `MIN_RUNS`), and the audit reports the best of them at
the Bonferroni level of all the events it certifies.  A deeper cut is taken only when its
selection log-ratio is at least the chosen event's, ``ln((ka + ½)/(kb + ½))``: the data show
no fall towards the rare end (a saturating ratio — Laplace beyond its shift — passes about
half the time, and then pays the Bonferroni step for nothing).  Everything is decided on the
selection split before any certification run, so the bound stays sound.  Cell families are
left alone (``events._with_deeper``): the lean cells are ordered by likelihood ratio on the
very counts that score them, so every shorter prefix reads a higher ratio and the condition
passes by construction.

Simulated from exact cell probabilities (``benchmarks/bench_cut_choice_limit.py``: an oracle
hands over the family, the headline's nine handed pairs per budget, 24 draws each; mean ratio
to the whole-budget ceiling, the chosen cut alone at α against the chosen cut and its deeper
cuts at α/k), at the audit's 98% ranking and at one standard error:

* SVT3: 0.742 → 0.858 and 0.794 → 0.817 at 2·10^6 runs; 0.788 → 0.898 and 0.841 → 0.877 at
  2·10^7;
* SVT6 (its patterns' order): 0.743 → 0.903 and 0.858 → 0.921; 0.812 → 0.893 and
  0.875 → 0.915;
* NoisyHist1 (a saturating ratio, the control): 0.990 → 0.982 and 0.915 → 0.902; 0.988 →
  0.985 and 0.891 → 0.877.

Without the log-ratio condition (12 draws at 2·10^6, 98%): SVT3 0.869, SVT6 0.904,
NoisyHist1 0.979.  ``SHARES = ()`` turns the deeper cuts off.

On vector outputs, a first event with no deeper cut of its own — a discrete coordinate's cut
such as SVT3's ⊤ at a query (``output[5] ≥ 1``, one position of a three-position family), a
pattern cell, a fallback — takes them from another threshold family instead, one with a
position whose event holds exactly its runs on the selection split (the released value of that
query): that family's deeper positions, from up to ``events.REFINE_FAMILIES`` such families
(both cut directions of the released value: their selection ratios rarely tell which end
grows), under the same rule and the same Bonferroni level; so does a certified runner-up
(``events._refined``; ``events.REFINE = False`` turns it off). SVT3's handed audits at 2·10^6
runs: seed 7 0.129 → 0.183, seed 2024 0.119 → 0.206 (ceiling 0.196), the row 0.754 → 0.834; at
4·10^5 runs over 200 seeds it applies to 72, whose mean bound goes 0.0514 → 0.0564
(``benchmarks/bench_refined_exceedance.py``, which also checks every certified threshold event
against its exact log-ratio).
"""

from __future__ import annotations

import numpy as np

__all__ = ["MIN_RUNS", "SHARES", "deeper_positions"]

#: The pooled selection runs of the deeper cuts, as shares of the chosen event's.
SHARES = (0.35, 0.12)
#: The fewest pooled selection runs a deeper cut may hold.
MIN_RUNS = 20


def deeper_positions(ca: np.ndarray, cb: np.ndarray, i: int) -> list[int]:
    """Positions of a nested family (selection counts ``ca`` on the favoured side, ``cb`` on the
    other, monotone along the chain) to certify beside position ``i``: for each share of
    `SHARES`, the position of fewest pooled runs ``ca + cb`` still holding that share of
    position i's and at least `MIN_RUNS`, when its log-ratio ``ln((ca + ½)/(cb + ½))`` is at
    least position i's; distinct, without i.

    Examples:
        >>> ca = np.array([300, 200, 120, 60, 20, 5])
        >>> cb = np.array([200, 120, 60, 25, 5, 1])
        >>> deeper_positions(ca, cb, 0)
        [2, 3]
        >>> deeper_positions(cb, ca, 0)     # the ratio falls towards the rare end
        []
    """
    ca = np.asarray(ca, dtype=float)
    cb = np.asarray(cb, dtype=float)
    if not 0 <= i < len(ca):
        raise IndexError(f"position {i} outside a family of {len(ca)}")
    pooled = ca + cb
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log((ca + 0.5) / (cb + 0.5))
    out: list[int] = []
    for share in SHARES:
        ok = (pooled >= max(share * pooled[i], MIN_RUNS)) & (pooled < pooled[i]) \
            & (ratio >= ratio[i])
        if not ok.any():
            continue
        j = int(np.flatnonzero(ok)[np.argmin(pooled[ok])])
        if j not in out:
            out.append(j)
    return out
