"""The version of ltheory: the one place it is written.

``pyproject.toml`` reads it at build time (``[tool.setuptools.dynamic]``, parsed without importing
the package), ``ltheory.__version__`` and ``ltheory --version`` import it, and the documentation
site's footer shows it (``docs/_hooks/release.py``).  Bump it here, and give CHANGELOG.md the
release's section.
"""

__version__ = "0.1.0"
