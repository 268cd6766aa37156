#!/usr/bin/env python3
"""The public API of each library product, from the compiler, as a readable text file per module.

    Scripts/public-api.py           # writes API/<Module>.txt for every library product
    Scripts/public-api.py --check   # exits 1, with the differences, if the API isn't the recorded one

The compiler's symbol graph (`swift package dump-symbol-graph`, public symbols, no synthesized
members) is normalized to one line per declaration: its path, then its declaration as a user reads
it, sorted; then the protocols each public type conforms to. An API change is a reviewed diff of
these files: CI runs `--check` (.ci/run), and the change's author runs this script and commits
the new record with the change.
"""
import difflib
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = ["TypedDefaults", "TypedDefaultsLayers", "TypedDefaultsEtcd", "TypedDefaultsSchema",
           "TypedDefaultsTesting"]
RECORD = os.path.join(ROOT, "API")


def symbol_graph_folder(scratch):
    command = ["swift", "package", "--package-path", ROOT]
    if scratch:
        command += ["--scratch-path", scratch]
    command += ["dump-symbol-graph", "--skip-synthesized-members", "--minimum-access-level",
                "public"]
    # It builds what it must, then writes a graph per module; it exits non-zero when a module it
    # has no build of (the test bundles, unless the tests were built) can't be dumped, which
    # doesn't concern the products: those must each have a graph, checked below.
    run = subprocess.run(command, capture_output=True, text=True)
    match = re.search(r"Files written to (\S+)", run.stdout)
    missing = [m for m in MODULES
               if not match or not os.path.exists(os.path.join(match.group(1), f"{m}.symbols.json"))]
    if missing:
        sys.exit("error: swift package dump-symbol-graph made no symbol graph of "
                 + ", ".join(missing) + ":\n" + run.stdout + run.stderr)
    return match.group(1)


def declaration(symbol):
    text = "".join(fragment["spelling"] for fragment in symbol.get("declarationFragments", []))
    text = re.sub(r"\s+", " ", text).strip()
    # The constraints of the extension that declares it (`where Value: Comparable`), which the
    # declaration itself doesn't show.
    constraints = symbol.get("swiftExtension", {}).get("constraints", [])
    if constraints:
        words = {"conformance": ":", "superclass": ":", "sameType": " =="}
        text += " (in an extension where " + ", ".join(
            f"{c['lhs']}{words.get(c['kind'], ' ' + c['kind'])} {c['rhs']}" for c in constraints) + ")"
    return text


def lines_of(folder, module):
    lines, conformances = [], []
    names = {}
    files = [name for name in os.listdir(folder)
             if name == f"{module}.symbols.json" or name.startswith(f"{module}@")]
    graphs = [json.load(open(os.path.join(folder, name))) for name in sorted(files)]
    for graph in graphs:
        for symbol in graph["symbols"]:
            names[symbol["identifier"]["precise"]] = ".".join(symbol["pathComponents"])
    for graph in graphs:
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            path = ".".join(symbol["pathComponents"])
            lines.append(f"{path}: {declaration(symbol)}")
        for relation in graph.get("relationships", []):
            if relation["kind"] != "conformsTo":
                continue
            source = names.get(relation["source"])
            if source is None:
                continue
            target = names.get(relation["target"]) or relation.get("targetFallback") or relation["target"]
            conformances.append(f"{source}: conforms to {target}")
    header = [f"# The public API of {module}, recorded by Scripts/public-api.py: one line per",
              "# declaration (its path, then the declaration), then each type's conformances.",
              "# CI fails when the API differs from this file; a change to it is reviewed.", ""]
    return header + sorted(set(lines)) + [""] + sorted(set(conformances))


def main():
    check = "--check" in sys.argv
    scratch = None
    if "--scratch-path" in sys.argv:
        scratch = sys.argv[sys.argv.index("--scratch-path") + 1]
    folder = symbol_graph_folder(scratch)
    os.makedirs(RECORD, exist_ok=True)
    failed = False
    for module in MODULES:
        text = "\n".join(lines_of(folder, module)) + "\n"
        path = os.path.join(RECORD, f"{module}.txt")
        declarations = sum(1 for line in text.splitlines() if line and not line.startswith("#")
                           and ": conforms to " not in line)
        if check:
            recorded = open(path).read() if os.path.exists(path) else ""
            if recorded != text:
                failed = True
                sys.stdout.writelines(difflib.unified_diff(
                    recorded.splitlines(True), text.splitlines(True),
                    f"API/{module}.txt (recorded)", f"API/{module}.txt (built)"))
            else:
                print(f"{module}: {declarations} public declarations, as recorded")
        else:
            with open(path, "w") as file:
                file.write(text)
            print(f"{module}: {declarations} public declarations, written to API/{module}.txt")
    if failed:
        sys.exit("error: the public API differs from the record in API/ (above). If the change is "
                 "meant, run Scripts/public-api.py and commit API/ with it")


main()
