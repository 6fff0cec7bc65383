"""Reading and writing class files in the ``ltheory.class/1`` JSON format (the
[class file format][class-file-format]).

```json
{"format": "ltheory.class/1", "name": "thresholds-4",
 "domain": ["0", "1", "2", "3"],
 "hypotheses": ["0000", "0001", "0011", "0111", "1111"]}
```
``domain`` is a list of labels or an integer n (labels "0".."n-1"); hypothesis i is a string of
'0'/'1', character j its value on point j.  Duplicates are removed on load.  Every malformation
raises [`ClassFileError`][ltheory.ClassFileError] naming the field (and line) at fault.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from ltheory.core.hypothesis_class import HypothesisClass
from ltheory.errors import BudgetExceededError, ClassFileError, InvalidInputError
from ltheory.validation import check_memory

FORMAT = "ltheory.class/1"


#: bytes.translate table: '0' -> 0, '1' -> 1, every other byte -> 255 (the 0/1 matrix and its
#: check in one pass over the characters)
_TO_BITS = bytes(0 if b == ord("0") else 1 if b == ord("1") else 255 for b in range(256))


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
    # The characters are checked and converted in one pass over all the rows (bytes.translate),
    # not row by row: the per-row str.strip took 1.7 s on a 200 MB file (issue 40).
    try:
        buf = "".join(hyps).encode("ascii")
    except UnicodeEncodeError:
        buf = None
    bits = None if buf is None else buf.translate(_TO_BITS)  # '0' -> 0, '1' -> 1, else 255
    del buf
    if bits is None or bits.find(b"\xff") >= 0:
        for i, h in enumerate(hyps):
            bad = h.strip("01")
            if bad:
                raise ClassFileError(f"{source}: hypotheses[{i}] contains {bad[0]!r}; only '0' "
                                     "and '1' are allowed")
    assert bits is not None  # a non-ASCII character was reported above
    mat = np.frombuffer(bits, dtype=np.uint8).reshape(len(hyps), n)  # no copy (read-only)
    try:
        return HypothesisClass(mat, domain, name=name, _trusted=True)
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


#: Largest class file read (bytes), checked before reading: 10^4 hypotheses on 10^4 points
#: take ~100 MB.
MAX_FILE_BYTES = 256 * 1024 * 1024

#: Peak memory of loading a class file, per byte of the file (measured on the 200 MB file of
#: thresholds on 14,142 points: 1.0 GB peak RSS, ~5 bytes a byte: the bytes read, the decoded
#: text, the parsed strings, one joined copy and the 0/1 matrix), checked against the memory
#: available before reading ([`ltheory.validation.check_memory`][ltheory.validation.check_memory]).
LOAD_BYTES_PER_FILE_BYTE = 6

#: Deepest nesting of JSON arrays/objects accepted (a class file needs 2; ``meta`` may nest a
#: little more), checked before decoding: deeper documents made the decoder raise RecursionError.
MAX_DEPTH = 64

#: Longest integer literal accepted (digits); longer ones are refused before conversion (Python
#: refuses beyond 4,300 digits with a ValueError, and a domain size needs far fewer).
MAX_INT_DIGITS = 30


def _as_path(path: Any, what: str) -> Path:
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise ClassFileError(f"{what} needs a file path (a string or os.PathLike), got "
                             f"{type(path).__name__} {path!r}"[:200])
    try:
        p = Path(path)
    except (TypeError, ValueError) as exc:
        raise ClassFileError(f"{what}: not a usable path {path!r} ({exc})"[:200]) from None
    if not str(p) or "\x00" in str(p):
        raise ClassFileError(f"{what}: not a usable path {str(path)!r}"[:200])
    return p


#: every byte but the quote and the brackets (deleted by ``bytes.translate`` in json_depth)
_NOT_STRUCTURAL = bytes(sorted(set(range(256)) - set(b'"[]{}')))


def json_depth(data: bytes) -> int:
    """The deepest nesting of arrays and objects in a JSON text, brackets inside strings not
    counted; linear and vectorised (numpy), so it can run before the decoder.

    Only the quotes and brackets are looked at (the others are deleted by ``bytes.translate``
    first): a 200 MB class file (thresholds on 14,142 points) took 11.8 s and 3.2 GB with int64
    running sums over every byte, ~0.1 s now (issue 40)."""
    clean = data
    if b"\\" in clean:
        clean = clean.replace(b"\\\\", b"")  # escaped backslashes, then escaped quotes
    if b'\\"' in clean:
        clean = clean.replace(b'\\"', b"")
    c = np.frombuffer(clean.translate(None, _NOT_STRUCTURAL), dtype=np.uint8)
    if not len(c):
        return 0
    in_string = (np.cumsum(c == ord('"')) % 2).astype(bool)
    step = np.zeros(len(c), dtype=np.int64)
    step[(c == ord("[")) | (c == ord("{"))] = 1
    step[(c == ord("]")) | (c == ord("}"))] = -1
    step[in_string] = 0
    return int(np.cumsum(step).max(initial=0))


class _TooLong(Exception):
    pass


def _parse_int(s: str) -> int:
    if len(s.lstrip("-")) > MAX_INT_DIGITS:
        raise _TooLong(s)
    return int(s)


def _refuse_constant(s: str) -> Any:
    raise json.JSONDecodeError(f"{s} is not JSON", s, 0)


def parse_class_text(data: bytes, source: str = "class file") -> HypothesisClass:
    """Decode and validate the bytes of a class file, bounded before decoding: nesting depth
    (`MAX_DEPTH`), integer literals (`MAX_INT_DIGITS`); NaN and Infinity refused."""
    depth = json_depth(data)
    if depth > MAX_DEPTH:
        raise ClassFileError(f"{source}: JSON nested {depth} levels deep; at most {MAX_DEPTH} "
                             "are accepted (a class file needs 2)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ClassFileError(f"{source}: cannot read class file: not UTF-8 text ({exc.reason} at "
                             f"byte {exc.start})"
                             ) from None
    try:
        doc = json.loads(text, parse_int=_parse_int, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise ClassFileError(f"{source}: invalid JSON at line {exc.lineno}, column {exc.colno}: "
                             f"{exc.msg}") from None
    except _TooLong as exc:
        raise ClassFileError(f"{source}: an integer of {len(str(exc))} digits; at most "
                             f"{MAX_INT_DIGITS} are accepted") from None
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise ClassFileError(f"{source}: JSON nested too deeply") from None
    return class_from_json(doc, source=source)


def load_class(path: str | os.PathLike[str]) -> HypothesisClass:
    """Load a class file (the [class file format][class-file-format], ``ltheory.class/1``).

    The file's size (`MAX_FILE_BYTES`, 256 MiB) is checked before it is read, its nesting
    depth and integer literals before it is decoded (`parse_class_text`).  Duplicate
    hypotheses are removed on load.

    Args:
        path: The path of the JSON class file.

    Returns:
        The [`HypothesisClass`][ltheory.HypothesisClass], named as in the file.

    Raises:
        ClassFileError: For a file that cannot be read or is not a valid class file, naming
            the line (for bad JSON) or the field at fault.

    Examples:
        >>> import json, tempfile, pathlib
        >>> from ltheory import load_class
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.json"
        >>> _ = path.write_text(json.dumps({"format": "ltheory.class/1", "name": "thr",
        ...     "domain": 3, "hypotheses": ["000", "001", "011", "111", "011"]}))
        >>> load_class(path)
        <HypothesisClass 'thr': 4 hypotheses on 3 points>
    """
    p = _as_path(path, "load_class")
    try:
        size = p.stat().st_size
        if p.is_dir():
            raise ClassFileError(f"{p}: cannot read class file: it is a directory")
        if size > MAX_FILE_BYTES:
            raise ClassFileError(f"{p}: {size:,} bytes; class files of at most "
                                 f"{MAX_FILE_BYTES:,} bytes are read")
        try:
            check_memory(LOAD_BYTES_PER_FILE_BYTE * size, f"{p}: loading this class file")
        except BudgetExceededError as exc:
            raise ClassFileError(str(exc)) from None
        with p.open("rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)  # a special file may report size 0
    except FileNotFoundError:
        raise ClassFileError(f"{p}: no such class file") from None
    except OSError as exc:
        raise ClassFileError(f"{p}: cannot read class file ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ClassFileError(f"{p}: more than {MAX_FILE_BYTES:,} bytes; larger class files are "
                             "not read")
    H = parse_class_text(data, str(p))
    return H if H.name else H.with_name(p.stem)


def save_class(H: HypothesisClass, path: str | os.PathLike[str], name: str | None = None) -> None:
    """Write a class file (one hypothesis per line, for readable diffs).

    The format needs at least one hypothesis, so saving an empty class raises ClassFileError.
    """
    if not isinstance(H, HypothesisClass):
        raise InvalidInputError(f"save_class needs a HypothesisClass, got {type(H).__name__}")
    if name is not None and not isinstance(name, str):
        raise InvalidInputError(f"save_class: name must be a string or None, got "
                                f"{type(name).__name__}")
    path = _as_path(path, "save_class")
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
    try:
        Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    except OSError as exc:
        raise ClassFileError(f"{path}: cannot write class file ({exc.strerror or exc})"
                             ) from None
