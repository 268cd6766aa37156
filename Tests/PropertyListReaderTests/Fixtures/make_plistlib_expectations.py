#!/usr/bin/env python3
"""Writes plistlib-expectations.json: the top-level values of every readable file in
../shared/fixtures/plists/valid/, as read by Python's plistlib, an independent property-list
reader. FixtureTests compares what TypedDefaults reads against it.

Run from the project root:  python3 Tests/PropertyListReaderTests/Fixtures/make_plistlib_expectations.py

Files plistlib cannot read directly get their expectation another way, recorded in "source":
  - UTF-32 XML: transcoded to UTF-8 first (expat has no UTF-32);
  - OpenStep text and binary files with non-ASCII bytes in ASCII strings: converted to XML with
    the toolchain's plutil (CoreFoundation's parser), then read by plistlib;
  - a date before year 1, beyond Python's datetime: the 8-byte float read from the binary file.
Files that CoreFoundation itself cannot read (SOURCES.json: swift_serialization FAIL) are left
out: TypedDefaults must reject them with a typed error.

Encoding: every value is a one-key object tagged with its kind: {"s": string}, {"i": "n"} (an
integer as decimal text, so 64-bit values survive JSON), {"r": "repr"} (a real), {"b": bool},
{"d": seconds since 2001-01-01T00:00:00Z} (a date), {"x": base64} (data), {"a": [...]} (an
array), {"o": {...}} (a dictionary). "root" names the root's kind in full (dictionary, array,
string...). A keyed-archiver UID is the dictionary {"CF$UID": {"i": "n"}}, as TypedDefaults
documents.
"""
import base64
import datetime
import json
import os
import plistlib
import re
import struct
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FIXTURES = os.path.normpath(os.path.join(ROOT, "..", "shared", "fixtures", "plists"))
OUTPUT = os.path.join(os.path.dirname(__file__), "plistlib-expectations.json")
REFERENCE = datetime.datetime(2001, 1, 1)


class SecondsSinceReference(float):
    """A date too far from the present for datetime, kept as seconds since 2001."""


class RootOnly(str):
    """The kind of a root whose contents plistlib cannot read."""


KIND_NAMES = {"s": "string", "i": "integer", "r": "real", "b": "bool", "d": "date", "x": "data",
              "a": "array", "o": "dictionary"}


def kind(value):
    return str(value) if isinstance(value, RootOnly) else KIND_NAMES[next(iter(tag(value)))]


def tag(value):
    if isinstance(value, SecondsSinceReference):
        return {"d": float(value)}
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
    if isinstance(value, list):
        return {"a": [tag(v) for v in value]}
    if isinstance(value, dict):
        return {"o": {k: tag(v) for k, v in value.items()}}
    raise TypeError(f"unexpected {type(value)}")


def read(path, name):
    data = open(path, "rb").read()
    try:
        return plistlib.loads(data), "plistlib"
    except Exception:
        pass
    if data.startswith(b"\x00\x00\xfe\xff") or data.startswith(b"\xff\xfe\x00\x00"):
        text = data.decode("utf-32")
        text = re.sub(r'encoding="[^"]*"', 'encoding="UTF-8"', text, count=1)
        return plistlib.loads(text.encode("utf-8")), "plistlib (transcoded from UTF-32)"
    if data.startswith(b"bplist00") and name == "biplist__small_date.plist":
        # {"MyDate": <date>}: the date object (marker 0x33) holds a big-endian double.
        offset = data.index(b"\x33", 8 + 1 + 2 + 7)
        (seconds,) = struct.unpack(">d", data[offset + 1 : offset + 9])
        return {"MyDate": SecondsSinceReference(seconds)}, "raw binary date"
    xml = subprocess.run(
        ["plutil", "-convert", "xml1", "-o", "-", path], check=True, capture_output=True
    ).stdout
    try:
        return plistlib.loads(xml), "plutil -convert xml1, then plistlib"
    except Exception:
        # XML 1.0 cannot hold some characters CF writes (NUL in a string); keep the root's kind,
        # which is all the tests need of a file whose root is not a dictionary.
        root = re.search(rb"<plist[^>]*>\s*<(\w+)", xml).group(1).decode()
        assert root in ("array", "string"), root
        return RootOnly(root), "root element of plutil -convert xml1"


def main():
    sources = json.load(open(os.path.join(FIXTURES, "SOURCES.json")))
    readable = {
        e["name"]
        for e in sources
        if e["folder"] == "valid" and e["results"].get("swift_serialization") == "OK"
    }
    files = {}
    for name in sorted(readable):
        value, source = read(os.path.join(FIXTURES, "valid", name), name)
        entry = {"source": source, "root": kind(value)}
        if isinstance(value, (dict, plistlib.UID)):
            entry["values"] = tag(value)["o"]
        files[name] = entry
    with open(OUTPUT, "w", encoding="utf-8") as out:
        json.dump({"files": files}, out, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        out.write("\n")
    print(f"wrote {len(files)} expectations to {os.path.relpath(OUTPUT, ROOT)}", file=sys.stderr)


main()
