#!/usr/bin/env python3
"""Counts the source lines only Apple platforms compile: inside `#if canImport(Darwin)` (or an
`#elseif canImport(Darwin)`, or the `#else` of `#if !canImport(Darwin)`), `#if os(macOS)` and
the other Apple systems, and `#if canImport(Combine)` or `canImport(SwiftUI)`, at any depth.

Usage: Docs/count-apple-only-lines.py [FOLDER...]   (default: Sources/TypedDefaults)
Counts non-blank lines, directives excluded: all of them, and those that are not comments;
prints both per file and in total.
"""
import pathlib
import re
import sys

APPLE = re.compile(
    r"^canImport\((Darwin|Combine|SwiftUI)\)$|^os\((macOS|iOS|tvOS|watchOS|visionOS)\)$")
NOT_APPLE = re.compile(r"^!\s*canImport\(Darwin\)$")


def count(text):
    stack = []  # per open #if: [is this branch Apple-only, was the #if `!canImport(Darwin)`]
    lines = code = 0
    for line in text.splitlines():
        stripped = line.strip()
        directive = re.match(r"#(if|elseif|else|endif)\b\s*(.*)", stripped)
        if directive:
            kind, condition = directive.group(1), directive.group(2).strip()
            if kind == "if":
                stack.append([bool(APPLE.match(condition)), bool(NOT_APPLE.match(condition))])
            elif kind == "elseif":
                stack[-1][0] = bool(APPLE.match(condition))
                stack[-1][1] = False
            elif kind == "else":
                stack[-1][0] = stack[-1][1]
            else:
                stack.pop()
            continue
        if stripped and any(apple for apple, _ in stack):
            lines += 1
            code += not stripped.startswith("//")
    return lines, code


def main():
    folders = sys.argv[1:] or ["Sources/TypedDefaults"]
    total = total_code = 0
    print("lines  code")
    for folder in folders:
        for path in sorted(pathlib.Path(folder).rglob("*.swift")):
            lines, code = count(path.read_text())
            if lines:
                print(f"{lines:5} {code:5}  {path}")
            total += lines
            total_code += code
    print(f"{total:5} {total_code:5}  total")


if __name__ == "__main__":
    main()
