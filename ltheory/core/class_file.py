"""Reading and writing class files in the ``ltheory.class/1`` JSON format (see DESIGN.md).

```json
{"format": "ltheory.class/1", "name": "thresholds-4",
 "domain": ["0", "1", "2", "3"],
 "hypotheses": ["0000", "0001", "0011", "0111", "1111"]}
```
``domain`` is a list of labels or an integer n (labels "0".."n-1"); hypothesis i is a string of
'0'/'1', character j its value on point j.  Duplicates are removed on load.  Every malformation
raises :class:`~ltheory.errors.ClassFileError` naming the field (and line) at fault.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import ClassFileError, InvalidInputError

FORMAT = "ltheory.class/1"


def class_from_json(doc: Any, *, source: str = "class file") -> HypothesisClass:
    """Validate a parsed ``ltheory.class/1`` document and build the class."""
    if not isinstance(doc, dict):
        raise ClassFileError(f"{source}: the top level must be a JSON object")
    fmt = doc.get("format")
    if fmt != FORMAT:
        raise ClassFileError(f"{source}: field 'format' must be {FORMAT!r}, got {fmt!r}")
    unknown = set(doc) - {"format", "name", "domain", "hypotheses", "description", "meta"}
    if unknown:
        raise ClassFileError(f"{source}: unknown field(s) {sorted(unknown)}; allowed: format, "
                             "name, domain, hypotheses, description, meta")
    name = doc.get("name")
    if name is not None and not isinstance(name, str):
        raise ClassFileError(f"{source}: field 'name' must be a string")
    if "domain" not in doc:
        raise ClassFileError(f"{source}: missing field 'domain' (a list of labels or an integer)")
    domain = doc["domain"]
    if isinstance(domain, bool) or not isinstance(domain, (int, list)):
        raise ClassFileError(f"{source}: field 'domain' must be a list of labels or an integer")
    if isinstance(domain, int) and domain < 0:
        raise ClassFileError(f"{source}: field 'domain' must be non-negative, got {domain}")
    if isinstance(domain, list):
        for i, lab in enumerate(domain):
            if not isinstance(lab, (str, int)) or isinstance(lab, bool):
                raise ClassFileError(f"{source}: domain[{i}] must be a string or integer label")
    n = domain if isinstance(domain, int) else len(domain)
    hyps = doc.get("hypotheses")
    if not isinstance(hyps, list):
        raise ClassFileError(f"{source}: field 'hypotheses' must be a list of 0/1 strings")
    if not hyps:
        raise ClassFileError(f"{source}: field 'hypotheses' is empty; a class file needs at "
                             "least one hypothesis")
    for i, h in enumerate(hyps):
        if not isinstance(h, str):
            raise ClassFileError(f"{source}: hypotheses[{i}] must be a string of 0/1, got "
                                 f"{type(h).__name__}")
        if len(h) != n:
            raise ClassFileError(f"{source}: hypotheses[{i}] has length {len(h)} but the domain "
                                 f"has {n} points")
        bad = h.strip("01")
        if bad:
            raise ClassFileError(f"{source}: hypotheses[{i}] contains {bad[0]!r}; only '0' and '1'"
                                 " are allowed")
    try:
        return HypothesisClass.from_strings(hyps, domain, name=name)
    except InvalidInputError as exc:
        raise ClassFileError(f"{source}: {exc}") from exc


def class_to_json(H: HypothesisClass, name: str | None = None) -> dict[str, Any]:
    """The ``ltheory.class/1`` document of a class."""
    doc: dict[str, Any] = {"format": FORMAT}
    nm = name if name is not None else H.name
    if nm:
        doc["name"] = nm
    dom = list(H.domain)
    doc["domain"] = H.domain_size if dom == [str(i) for i in range(len(dom))] else dom
    doc["hypotheses"] = H.to_strings()
    return doc


def load_class(path: str | os.PathLike[str]) -> HypothesisClass:
    """Load a class file; raises ClassFileError (with the line at fault for bad JSON)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ClassFileError(f"{p}: no such class file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ClassFileError(f"{p}: cannot read class file ({exc})") from exc
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ClassFileError(f"{p}: invalid JSON at line {exc.lineno}, column {exc.colno}: "
                             f"{exc.msg}") from exc
    H = class_from_json(doc, source=str(p))
    return H if H.name else H.with_name(p.stem)


def save_class(H: HypothesisClass, path: str | os.PathLike[str], name: str | None = None) -> None:
    """Write a class file (one hypothesis per line, for readable diffs).

    The format needs at least one hypothesis, so saving an empty class raises ClassFileError.
    """
    if not isinstance(H, HypothesisClass):
        raise InvalidInputError(f"save_class needs a HypothesisClass, got {type(H).__name__}")
    if len(H) == 0:
        raise ClassFileError(f"{path}: cannot save an empty class; the ltheory.class/1 format "
                             "needs at least one hypothesis")
    doc = class_to_json(H, name)
    lines = ["{", f'  "format": {json.dumps(doc["format"])},']
    if "name" in doc:
        lines.append(f'  "name": {json.dumps(doc["name"])},')
    lines.append(f'  "domain": {json.dumps(doc["domain"])},')
    hyps = doc["hypotheses"]
    lines.append('  "hypotheses": [' + ("" if hyps else "]"))
    for i, h in enumerate(hyps):
        lines.append(f'    "{h}"' + ("," if i + 1 < len(hyps) else ""))
    if hyps:
        lines.append("  ]")
    lines.append("}")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
