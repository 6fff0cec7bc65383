"""``python -m proofs_check [ID ...] [--quick] [--json] [--plot DIR] [--markdown FILE]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ltheory.errors import LtheoryError
from proofs_check import run_checks
from proofs_check.report import markdown, plot_files, to_json


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m proofs_check", description=__doc__)
    ap.add_argument("ids", nargs="*", help="check ids (or prefixes such as 'abms20')")
    ap.add_argument("--quick", action="store_true", help="fewer and smaller classes")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    ap.add_argument("--plot", metavar="DIR", help="write PNG plots into DIR")
    ap.add_argument("--markdown", metavar="FILE", help="also write the Markdown report")
    args = ap.parse_args(argv)
    try:
        results = run_checks(args.ids or None, quick=args.quick)
    except LtheoryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    figures = plot_files(results, args.plot) if args.plot else {}
    if args.markdown:  # plot links relative to the report's folder
        with open(args.markdown, "w", encoding="utf-8") as fh:
            fh.write(markdown(results, figures, base=Path(args.markdown).resolve().parent))
    print(json.dumps(to_json(results)) if args.json else markdown(results, figures))
    return 1 if any(r.holds is False for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
