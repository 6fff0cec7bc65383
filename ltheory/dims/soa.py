"""The Standard Optimal Algorithm (SOA) of Littlestone (1988), as an online learner.

In each round the learner sees a point x, predicts ŷ, then sees the true label y.  SOA keeps the
version space V (hypotheses of H consistent with the rounds so far) and predicts

    ŷ = argmax_b Ldim(V_x^b),   V_x^b = {h in V : h(x) = b}

(ties go to 1).  On a sequence realisable by H it makes at most Ldim(H) mistakes, since every
mistake lowers Ldim(V) by at least one (Littlestone 1988, Thm. 3; Ben-David, Pál,
Shalev-Shwartz 2009, Alg. 1).  The Littlestone dimensions are computed exactly by the shared
branch-and-bound solver of `ltheory.dims.littlestone`, whose memo persists across rounds.
"""

from __future__ import annotations

from typing import Any

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.dims.littlestone import LittlestoneSolver
from ltheory.errors import InvalidInputError


class StandardOptimalAlgorithm:
    """Online learner for a finite class H with the optimal mistake bound Ldim(H).

    Examples:
        >>> H = HypothesisClass.from_strings(["000", "001", "011", "111"])
        >>> soa = StandardOptimalAlgorithm(H)
        >>> soa.predict(1), soa.update(1, 0), soa.mistakes     # predicted 1, the label was 0
        (1, None, 1)

    ``realizable`` turns False when the labels seen contradict every hypothesis; from then on
    the version space is empty, SOA predicts 0, and the mistake bound no longer applies.
    """

    def __init__(self, H: HypothesisClass) -> None:
        if not isinstance(H, HypothesisClass):
            raise InvalidInputError(f"SOA needs a HypothesisClass, got {type(H).__name__}")
        self.H = H
        self._solver = LittlestoneSolver(H)
        self.version_space_bits = self._solver.full
        self.mistakes = 0
        self.rounds = 0
        self.realizable = len(H) > 0

    def _split(self, x: Any) -> tuple[int, int, int]:
        i = self.H.point_index(x)
        V = self.version_space_bits
        ones = self._solver.cols[i] & V
        return i, ones, V ^ ones

    def predict(self, x: Any) -> int:
        """The label SOA predicts for point x (an index or a label)."""
        _, ones, zeros = self._split(x)
        if not ones:
            return 0
        if not zeros:
            return 1
        return 1 if self._solver.ldim(ones) >= self._solver.ldim(zeros) else 0

    def update(self, x: Any, y: int) -> None:
        """Reveal the true label y of x: count a mistake if SOA's prediction differs, and
        restrict the version space to the hypotheses with h(x) = y."""
        if y not in (0, 1):
            raise InvalidInputError(f"labels must be 0 or 1, got {y!r}")
        if self.predict(x) != y:
            self.mistakes += 1
        _, ones, zeros = self._split(x)
        self.version_space_bits = ones if y else zeros
        self.rounds += 1
        if not self.version_space_bits:
            self.realizable = False

    def run(self, sequence: Any) -> int:
        """Play a whole sequence of (x, y) rounds; return the number of mistakes made on it."""
        before = self.mistakes
        for x, y in sequence:
            self.update(x, y)
        return self.mistakes - before

    def version_space(self) -> HypothesisClass:
        """The hypotheses still consistent with every round seen."""
        V = self.version_space_bits
        return self.H.subclass([j for j in range(len(self.H)) if V >> j & 1])

    def current_ldim(self) -> int:
        """Ldim of the current version space (-1 once it is empty)."""
        return self._solver.ldim(self.version_space_bits)
