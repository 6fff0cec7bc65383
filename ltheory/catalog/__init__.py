"""Named families of finite concept classes, with their known dimensions and citations.

A *family* is a parametrised construction of a finite [`HypothesisClass`][ltheory.HypothesisClass]
(thresholds on [n], conjunctions on {0,1}^n, halfspaces on a grid, ...).  The data of every
family -- its summary, what its domain points are and how they are labelled, its parameters
(type, default, range) and the values of its VC, Littlestone and threshold dimensions known from
the literature -- lives in ``ltheory/catalog/data/<family>.toml`` (shipped inside the package;
``catalog/`` at the top of the repository is that folder); the builders live in
`ltheory.catalog.builders`, one [`Family`][ltheory.catalog.Family] record each.

API::

    family("thresholds", n=64)                  -> HypothesisClass  (name "thresholds n=64")
    from_spec("conjunctions n=4 k=2 monotone=true")  # or a path to a class file
    families()                                  -> ["affine", "conjunctions", ...]
    describe("thresholds")                      -> FamilyInfo
    known_values("thresholds", n=64)            -> {"vc": KnownValue(1, ...), "ldim": ..., ...}
    register_family(build, toml_text)           # a family of your own (docs: How-to)

Known values are stored as formulas in the parameters (``ldim = "floor(log2(n + 1))"``) with an
optional condition (``when = "n >= 1"``) and are evaluated by a small whitelisting evaluator over
Python's `ast` (numbers, parameter names, ``+ - * / // % **``, comparisons, ``and or not``,
``min max floor ceil log2 comb``) -- never `eval`.  Keys are ``vc``, ``ldim``, ``tdim`` for
exact values and ``vc_lower``, ``ldim_upper``, ... for bounds.  Dimensions use these
definitions: VC = largest shattered set; Littlestone = depth of the deepest complete mistake tree
shattered (Littlestone 1988); threshold dimension T = largest k with points x_1..x_k and
hypotheses h_1..h_k, h_i(x_j) = 1 iff i <= j (Shelah 1978; Alon, Livni, Malliaris, Moran 2019).
The empty class has all dimensions -1; a class with one hypothesis has all dimensions 0.

Size limit: a family refuses to build a class whose 0/1 matrix would have more than
``MAX_CELLS`` = 2^22 cells (|H| x |X|), checked before building from the size formula where the
size is known in closed form, and while building otherwise; each family's TOML also bounds its
parameters (``max``) so that construction stays within a few seconds.  ``halfspaces`` has its own
limit of 2^25 cells ([`HALFSPACE_MAX_CELLS`][ltheory.catalog.HALFSPACE_MAX_CELLS]), checked while it
enumerates.

[`halfspace_dichotomies`][ltheory.catalog.halfspace_dichotomies] (``points``,
``method="combinatorial" | "lp"``) lists the halfspace
dichotomies of any integer point set, exactly (see `ltheory.catalog.halfspaces`).
"""

from ltheory.catalog.builders import (
    FAMILIES,
    HALFSPACE_MAX_CELLS,
    MAX_CELLS,
    Family,
    planted_points,
)
from ltheory.catalog.formulas import evaluate_formula
from ltheory.catalog.halfspaces import HALFSPACE_METHODS, halfspace_dichotomies
from ltheory.catalog.registry import (
    data_file,
    describe,
    families,
    family,
    from_spec,
    known_values,
    parse_spec,
    parse_value,
    register_family,
)
from ltheory.catalog.schema import (
    KNOWN_KEYS,
    FamilyInfo,
    KnownValue,
    KnownValueSpec,
    ParamInfo,
)

__all__ = [
    "FAMILIES",
    "HALFSPACE_MAX_CELLS",
    "HALFSPACE_METHODS",
    "KNOWN_KEYS",
    "MAX_CELLS",
    "Family",
    "FamilyInfo",
    "KnownValue",
    "KnownValueSpec",
    "ParamInfo",
    "data_file",
    "describe",
    "evaluate_formula",
    "families",
    "halfspace_dichotomies",
    "family",
    "from_spec",
    "known_values",
    "parse_spec",
    "parse_value",
    "planted_points",
    "register_family",
]
