"""One exception family for ltheory: everything raised at the boundary derives from LtheoryError."""

from __future__ import annotations


class LtheoryError(Exception):
    """Base class of every error ltheory raises on purpose (bad input, budgets)."""


class InvalidInputError(LtheoryError, ValueError):
    """The caller passed something malformed; the message says what and what is accepted."""


class ClassFileError(InvalidInputError):
    """A class file (format ``ltheory.class/1``) is malformed."""


class UnknownFamilyError(InvalidInputError):
    """A catalog family name or one of its parameters is unknown or out of range."""


class BudgetExceededError(LtheoryError):
    """A computation ran out of its time or size budget before it could prove anything useful."""


class SymmetryUnavailable(LtheoryError):
    """A symmetry step (a nauty call) could not run within its budget, or failed on a graph too
    large for it; the exact engines catch it and search without symmetry (always sound)."""


class CertificateError(LtheoryError):
    """A witness does not certify the claimed value; the message says which check failed."""


class UnrealizableSampleWarning(UserWarning):
    """A realizable-case learner was given a sample that no hypothesis of its class labels
    exactly: its accuracy guarantee does not apply (it still runs, and its privacy holds)."""
