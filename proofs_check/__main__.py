"""``python -m proofs_check [ID ...] [--quick] [--json] [--plot DIR] [--markdown FILE]``."""

from __future__ import annotations

import argparse
import json
import sys

from ltheory.errors import LtheoryError
from proofs_check import run_checks
from proofs_check.report import markdown, to_json, write_outputs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m proofs_check", description=__doc__)
    ap.add_argument("ids", nargs="*", help="check ids (or prefixes such as 'abms20')")
    ap.add_argument("--quick", action="store_true", help="fewer and smaller classes")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    ap.add_argument("--plot", metavar="DIR", help="write PNG plots into DIR")
    ap.add_argument("--markdown", metavar="FILE", help="also write the Markdown report")
    ap.add_argument("--list", action="store_true", help="print every numbered seed statement "
                    "with its status and exit")
    args = ap.parse_args(argv)
    if args.list:
        from proofs_check.coverage import listing
        from proofs_check.coverage import to_json as coverage_json

        print(json.dumps(coverage_json()) if args.json else listing())
        return 0
    try:
        results = run_checks(args.ids or None, quick=args.quick)
    except LtheoryError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    figures = write_outputs(results, args.plot, args.markdown)
    print(json.dumps(to_json(results)) if args.json else markdown(results, figures))
    return 1 if any(r.holds is False for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
