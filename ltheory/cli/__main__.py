"""``python -m ltheory.cli``: the same as the ``ltheory`` command."""

from ltheory.cli import main

main()
