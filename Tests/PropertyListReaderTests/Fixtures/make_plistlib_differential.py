#!/usr/bin/env python3
"""Writes plistlib-differential.json: Python plistlib's reading of EVERY file in
../shared/fixtures/plists/valid/ and invalid/ (and of differential-inputs/), for
DifferentialTests, which compares it with the library's own readers and with Foundation's.
Checked in, so that the tests need no Python.

Run from the project root:  python3 Tests/PropertyListReaderTests/Fixtures/make_plistlib_differential.py

Unlike make_plistlib_expectations.py (which goes out of its way to get a value for every file
Foundation reads), this records plistlib exactly as it is: `plistlib.loads(data)` and nothing
else. Also the crafted files of differential-inputs/ (make_differential_inputs.py), as
"own/NAME". Per file ("valid/NAME", "invalid/NAME" or "own/NAME"):
  {"outcome": "OK", "value": <tagged>}   or   {"outcome": "FAIL", "error": "Type: message"}
The value uses the tagged encoding of make_plistlib_expectations.py ({"s": ...}, {"i": "n"},
{"r": "repr"}, {"b": ...}, {"d": seconds since 2001}, {"x": base64}, {"a": [...]}, {"o": {...}},
a UID as {"o": {"CF$UID": {"i": "n"}}}), plus tags for what plistlib returns that no property
list holds or that is too big to record: {"n": null} (None, for <plist></plist>), {"cycle": true}
(a container that contains itself, from a cyclic binary file) and {"too_many": true} (a value
that expands to more than 100,000 values, objects shared many times over), and, for a
container nested more than 100 levels deep, {"too_deep": true} in its place, and for a
dictionary with a key that is not a string, {"key_type": "<the key's Python type>"}.
"""
import base64
import datetime
import json
import os
import plistlib
import sys
import threading

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FIXTURES = os.path.normpath(os.path.join(ROOT, "..", "shared", "fixtures", "plists"))
OUTPUT = os.path.join(os.path.dirname(__file__), "plistlib-differential.json")
REFERENCE = datetime.datetime(2001, 1, 1)


class TooMany(Exception):
    """The value expands to more than BUDGET values (shared binary references)."""


BUDGET = 100_000
MAXIMUM_DEPTH = 100


def tag(value, path, budget):
    budget[0] -= 1
    if budget[0] < 0:
        raise TooMany()
    if value is None:
        return {"n": None}
    if isinstance(value, bool):
        return {"b": value}
    if isinstance(value, int):
        return {"i": str(value)}
    if isinstance(value, float):
        return {"r": repr(value)}
    if isinstance(value, str):
        return {"s": value}
    if isinstance(value, bytes):
        return {"x": base64.b64encode(value).decode("ascii")}
    if isinstance(value, datetime.datetime):
        return {"d": (value - REFERENCE).total_seconds()}
    if isinstance(value, plistlib.UID):
        return {"o": {"CF$UID": {"i": str(value.data)}}}
    if isinstance(value, (list, dict)):
        if len(path) >= MAXIMUM_DEPTH:
            return {"too_deep": True}
        if id(value) in path:
            return {"cycle": True}
        path.add(id(value))
        if isinstance(value, dict) and not all(isinstance(k, str) for k in value):
            path.discard(id(value))
            bad = next(k for k in value if not isinstance(k, str))
            return {"key_type": type(bad).__name__}
        if isinstance(value, list):
            result = {"a": [tag(v, path, budget) for v in value]}
        else:
            result = {"o": {k: tag(v, path, budget) for k, v in value.items()}}
        path.discard(id(value))
        return result
    raise TypeError(f"unexpected {type(value)}")


def record(path):
    data = open(path, "rb").read()
    try:
        value = plistlib.loads(data)
    except Exception as error:  # noqa: BLE001 - every failure is an outcome to record
        message = " ".join(str(error).split())[:200]
        return {"outcome": "FAIL", "error": f"{type(error).__name__}: {message}"}
    try:
        return {"outcome": "OK", "value": tag(value, set(), [BUDGET])}
    except TooMany:
        return {"outcome": "OK", "value": {"too_many": True}}


def main():
    sources = json.load(open(os.path.join(FIXTURES, "SOURCES.json")))
    files = {}
    for entry in sorted(sources, key=lambda e: (e["folder"], e["name"])):
        name = f'{entry["folder"]}/{entry["name"]}'
        files[name] = record(os.path.join(FIXTURES, name))
    own = os.path.join(os.path.dirname(__file__), "differential-inputs")
    for name in sorted(os.listdir(own)):
        files[f"own/{name}"] = record(os.path.join(own, name))
    version = sys.version.split()[0]
    text = json.dumps({"python": version, "files": files}, ensure_ascii=False, separators=(",", ":"),
                      sort_keys=True)
    with open(OUTPUT, "w", encoding="utf-8") as out:
        out.write(text + "\n")
    print(f"wrote {len(files)} readings (Python {version}) to {os.path.relpath(OUTPUT, ROOT)}",
          file=sys.stderr)


# 100,000 levels of nesting need a deep stack for plistlib's parser and for tag().
sys.setrecursionlimit(1_000_000)
threading.stack_size(1 << 29)
worker = threading.Thread(target=main)
worker.start()
worker.join()
