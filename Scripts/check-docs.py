#!/usr/bin/env python3
"""The documentation's Swift code compiles, and what it says it prints is what it prints.

    Scripts/check-docs.py              # every ```swift block of README.md and the DocC articles
    Scripts/check-docs.py README.md    # the blocks of the files named

Every ```swift block of README.md and of Sources/TypedDefaults/Documentation.docc (its
Extensions/ included) is compiled in a SwiftPM package generated under .build/doc-check, which
depends on this repository's products by path, as a user's package does: a block sees only what
its own `import` lines bring. The blocks of one file are one module, each block in a file and a
function of its own (so names don't clash between blocks); one `swift build` builds them all, and
the build folder is kept, so a second run rebuilds only what changed. A compiler error is reported
at the Markdown file and line of the code (through `#sourceLocation`); the check fails naming
each block that doesn't compile.

A block is compiled as a user would write it, with these rules:

- A block with no `import` line is an article's fragment: it gets `import Foundation` and
  `import TypedDefaults`. A block that imports something gets exactly its imports.
- An ellipsis standing for elided code (`{ … }`, `{ change in … }`) compiles as nothing.
- A block whose code must sit at file scope (an `extension`, a `protocol`, `public`
  declarations, Swift Testing's `@Test` and `@Suite`) is compiled at the top level of a module
  of its own; so is one marked `top-level`, and one that uses such a block.

A fragment that needs context says so in an HTML comment on the line before its fence (blank
lines between are allowed), which a reader of the rendered page doesn't see:

    <!-- doc-check: name Models -->            this block can be named by later ones
    <!-- doc-check: with Models -->            compile the named block(s) (comma-separated),
                                              then this one, in one scope
    <!-- doc-check: with Models
    let backup = URL(filePath: "/tmp/backup.plist")
    -->                                       lines after the first are hidden code placed
                                              before the block (after the named blocks)
    <!-- doc-check: run -->                    run the block too (see below)
    <!-- doc-check: top-level -->              compile at file scope, in a module of its own
    <!-- doc-check: manifest -->               a Package.swift fragment: the arguments of
                                              `Package(name:…)`, or one element of `targets:`
                                              when it starts with `.`; checked by
                                              `swift package dump-package`
    <!-- doc-check: skip (the reason) -->      not compiled; the reason is required

Directives combine with `;` (`<!-- doc-check: name Models; with Kinds -->`). A hidden line must
not start with `@`: DocC reads such a line as a directive, even inside a comment.

    <!-- doc-check: requires SwiftUI -->       compiled where the toolchain has the module,
                                              reported as skipped elsewhere

Output. A block is run (in a fresh temporary HOME, XDG folders and working folder, within 60
seconds) when it is marked `run` or holds a `// prints …` comment. Each `// prints TEXT` comment
must match a line of its output, in order (the line contains TEXT). A block marked `run` whose
fence is followed directly (blank lines only) by a block with no language or `text` must print
exactly that block. A block that is run must not throw.
"""
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build", "doc-check")
PRODUCTS = ["TypedDefaults", "TypedDefaultsLayers", "TypedDefaultsEtcd", "TypedDefaultsSchema",
            "TypedDefaultsTesting"]
DIRECTIVES = {"name", "with", "run", "top-level", "manifest", "skip", "requires"}
FILE_SCOPE = re.compile(r"^(extension |protocol |public |open |@Test\b|@Suite\b|@main\b)", re.M)
ELLIPSIS = re.compile(r"(?<=[\s{(])…(?=\s*[})\]])")
PRINTS = re.compile(r"//\s*prints\s+(.*?)\s*$")
IMPORT = re.compile(r"^\s*(?:@[\w()]+\s+)*import\s+(\w+)")
RUN_TIMEOUT = 60


class Problem(Exception):
    pass


class Block:
    def __init__(self, path, line, code, marker, marker_line, output):
        self.path = path            # relative to ROOT
        self.line = line            # the first line of code, 1-based
        self.code = code            # the lines of code, the fence's indentation removed
        self.marker_line = marker_line
        self.prelude = []           # hidden code from the marker
        self.output = output        # (line, lines) of a directly following output block, or None
        self.name = None
        self.uses = []
        self.run = False
        self.top_level = False
        self.manifest = False
        self.skip = None
        self.requires = []
        if marker is not None:
            self.parse(marker)
        self.prints = [(self.line + i, m.group(1)) for i, text in enumerate(self.code)
                       for m in [PRINTS.search(text)] if m]
        self.run = self.run or bool(self.prints)
        if not self.top_level and not self.manifest:
            self.top_level = bool(FILE_SCOPE.search("\n".join(self.code)))

    @property
    def where(self):
        return f"{self.path}:{self.line - 1}"

    def parse(self, marker):
        first, *rest = marker
        self.prelude = rest
        for number, text in enumerate(rest):
            if text.lstrip().startswith("@"):
                raise Problem(f"{self.path}:{self.marker_line + 1 + number}: a hidden line starts "
                              "with '@', which DocC reads as a directive: rephrase it")
        for directive in filter(None, (d.strip() for d in first.split(";"))):
            word, _, argument = directive.partition(" ")
            argument = argument.strip()
            if word not in DIRECTIVES:
                raise Problem(f"{self.path}:{self.marker_line}: unknown doc-check directive "
                              f"'{word}' (known: {', '.join(sorted(DIRECTIVES))})")
            if word == "name":
                self.name = argument
            elif word == "with":
                self.uses += [n.strip() for n in argument.split(",") if n.strip()]
            elif word == "run":
                self.run = True
            elif word == "top-level":
                self.top_level = True
            elif word == "manifest":
                self.manifest = True
            elif word == "requires":
                self.requires += [n.strip() for n in argument.split(",") if n.strip()]
            elif word == "skip":
                reason = re.fullmatch(r"\((.+)\)", argument)
                if not reason:
                    raise Problem(f"{self.path}:{self.marker_line}: a skip says why: "
                                  "<!-- doc-check: skip (the reason) -->")
                self.skip = reason.group(1)


def blocks_of(path):
    """The fenced blocks of a Markdown file: (language, first line of code, code lines)."""
    lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
    fences, index = [], 0
    while index < len(lines):
        opening = re.match(r"^(\s*)(```+|~~~+)\s*([\w+-]*)", lines[index])
        if not opening:
            index += 1
            continue
        indent, fence, language = opening.groups()
        start, index = index, index + 1
        while index < len(lines) and not (lines[index].strip().startswith(fence)
                                          and lines[index].strip().strip(fence[0]) == ""):
            index += 1
        code = [text[len(indent):] if text.startswith(indent) else text.lstrip()
                for text in lines[start + 1:index]]
        fences.append((language, start, index, code))
        index += 1
    return lines, fences


def marker_before(lines, fence_line):
    """The doc-check comment ending on the last non-blank line before a fence: (its text lines
    after `doc-check:`, its first line number) or (None, None)."""
    index = fence_line - 1
    while index >= 0 and not lines[index].strip():
        index -= 1
    if index < 0 or not lines[index].rstrip().endswith("-->"):
        return None, None
    end = index
    while index >= 0 and "<!--" not in lines[index]:
        index -= 1
    if index < 0 or "doc-check:" not in lines[index]:
        return None, None
    text = [lines[index].split("doc-check:", 1)[1]] + lines[index + 1:end + 1]
    text[-1] = text[-1].rstrip()[:-3]
    if len(text) > 1 and not text[-1].strip():
        text.pop()
    return [text[0].strip()] + text[1:], index + 1


def read_blocks(path):
    lines, fences = blocks_of(path)
    blocks = []
    for number, (language, start, end, code) in enumerate(fences):
        if language != "swift":
            continue
        marker, marker_line = marker_before(lines, start)
        output = None
        if number + 1 < len(fences):
            next_language, next_start, _, next_code = fences[number + 1]
            if next_language in ("", "text") and all(not t.strip() for t in lines[end + 1:next_start]):
                output = (next_start + 2, next_code)
        blocks.append(Block(path, start + 2, code, marker, marker_line, output))
    return blocks


def documentation_files(arguments):
    if arguments:
        return [os.path.relpath(os.path.abspath(a), ROOT) for a in arguments]
    catalog = "Sources/TypedDefaults/Documentation.docc"
    articles = sorted(glob.glob(os.path.join(ROOT, catalog, "**", "*.md"), recursive=True))
    return ["README.md"] + [os.path.relpath(a, ROOT) for a in articles]


def module_name(path):
    return "Doc_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])


def swift_lines(block):
    """The block's code, with `#sourceLocation` so the compiler reports the Markdown lines."""
    code = [ELLIPSIS.sub("", text) for text in block.code]
    return [f'#sourceLocation(file: "{block.path}", line: {block.line})'] + code


def assemble(block, named):
    """(imports, code lines) of a block: the blocks it uses (each once), its hidden prelude, then
    itself."""
    order, seen = [], set()

    def visit(b, chain):
        for name in b.uses:
            if name not in named:
                raise Problem(f"{b.path}:{b.marker_line}: 'with {name}': no earlier block of "
                              f"{b.path} is named '{name}'")
            if name in chain:
                raise Problem(f"{b.path}:{b.marker_line}: 'with {name}' makes a cycle")
            used = named[name]
            if id(used) not in seen:
                seen.add(id(used))
                visit(used, chain + [name])
                order.append(("block", used))
        if b.prelude:
            order.append(("prelude", b))

    visit(block, [])
    order.append(("block", block))
    imports, body = [], []
    previous = None
    for kind, b in order:
        if kind == "prelude":
            first, source = b.marker_line + 1, b.prelude
        else:
            first, source = b.line, [ELLIPSIS.sub("", text) for text in b.code]
        if previous == ("prelude", b):
            # A block right after its own hidden code: blank lines up to its first line rather
            # than a `#sourceLocation`, so the hidden code can open an expression the block ends
            # (`let step: SettingsMigration =`, then the block's `.transformValue(…) { … }`).
            body += [""] * (first - (b.marker_line + 1 + len(b.prelude)))
        else:
            body.append(f'#sourceLocation(file: "{b.path}", line: {first})')
        previous = (kind, b)
        for number, text in enumerate(source):
            if IMPORT.match(text):
                # Imports go first in the file, each where the Markdown has it.
                imports += [f'#sourceLocation(file: "{b.path}", line: {first + number})', text.strip()]
                body.append("")  # keeps the line numbers
            else:
                body.append(text)
    imports = imports + ["#sourceLocation()"] if imports else ["import Foundation", "import TypedDefaults"]
    used = [b for kind, b in order if kind == "block" and b is not block]
    return imports, body + ["#sourceLocation()"], used


def imported_products(imports):
    return [p for p in PRODUCTS if any(re.search(rf"\bimport {p}\b", i) for i in imports)]


def generate(blocks, package_name):
    """Writes the package; returns (targets: name -> products, runs: block -> (module, arg))."""
    if os.path.exists(os.path.join(WORK, "Sources")):
        shutil.rmtree(os.path.join(WORK, "Sources"))
    targets, runs = {}, {}
    by_file = {}
    for block in blocks:
        by_file.setdefault(block.path, []).append(block)
    for path, file_blocks in by_file.items():
        named, module = {}, module_name(path)
        dispatch = []
        for block in file_blocks:
            if block.name:
                if block.name in named:
                    raise Problem(f"{path}:{block.marker_line}: a second block named "
                                  f"'{block.name}'")
                named[block.name] = block
            if block.skip is not None or block.manifest:
                continue
            imports, body, used = assemble(block, named)
            function = f"block_{block.line:04d}"
            # Code that must sit at file scope stays there in the blocks that use it.
            block.top_level = block.top_level or any(b.top_level for b in used)
            if block.top_level:
                own = f"{module}_{block.line:04d}"
                folder = os.path.join(WORK, "Sources", own)
                os.makedirs(folder, exist_ok=True)
                write(os.path.join(folder, "main.swift"), imports + [""] + body)
                targets[own] = imported_products(imports)
                runs[block] = (own, None)
            else:
                folder = os.path.join(WORK, "Sources", module)
                os.makedirs(folder, exist_ok=True)
                text = imports + ["", f"func {function}() async throws {{"] + body + ["}"]
                write(os.path.join(folder, f"Block{block.line:04d}.swift"), text)
                targets[module] = sorted(set(targets.get(module, [])) | set(imported_products(imports)),
                                         key=PRODUCTS.index)
                dispatch.append(function)
                runs[block] = (module, function)
        if dispatch:
            cases = [f'case "{f}": try await {f}()' for f in dispatch]
            write(os.path.join(WORK, "Sources", module, "main.swift"),
                  ["// Runs the block named by the first argument.",
                   "switch CommandLine.arguments.dropFirst().first {"] + cases +
                  ['default: fatalError("no such block")', "}"])
    manifest = [
        "// swift-tools-version:6.0",
        "// Generated by Scripts/check-docs.py: the documentation's code blocks, one module per",
        "// Markdown file (and one per block that must sit at file scope).",
        "import PackageDescription",
        "",
        "let package = Package(",
        '  name: "DocCheck",',
        '  platforms: [.macOS(.v14), .iOS(.v17)],  // the Observation-based examples (`@Bindable`)',
        f'  dependencies: [.package(path: "{ROOT}")],',
        "  targets: [",
    ]
    for target, products in sorted(targets.items()):
        dependencies = ", ".join(f'.product(name: "{p}", package: "{package_name}")'
                                 for p in products)
        manifest.append(f'    .executableTarget(name: "{target}", dependencies: [{dependencies}]),')
    manifest += ["  ],", "  swiftLanguageModes: [.v6]", ")"]
    write(os.path.join(WORK, "Package.swift"), manifest)
    return targets, runs


def write(path, lines):
    text = "\n".join(lines) + "\n"
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path, "w") as file:
        file.write(text)


def check_manifest(block, package_name):
    """A Package.swift fragment, loaded by `swift package dump-package`: None or the errors."""
    folder = tempfile.mkdtemp(prefix="doc-check-manifest-")
    try:
        code = [ELLIPSIS.sub("", text) for text in block.code]
        statements = [t.strip() for t in code if t.strip() and not t.strip().startswith("//")]
        opening = ['let package = Package(name: "Doc",']
        if statements and statements[0].startswith("."):
            # One element of the targets list, in a package that has what it names.
            opening += ['dependencies: [.package(path: "../TypedDefaults")],',
                        'targets: [.target(name: "MyApp"),']
        # `#sourceLocation` can't stand inside the argument list: it goes before the opening,
        # numbered so that the fragment's lines are the Markdown's.
        location = f'#sourceLocation(file: "{block.path}", line: {block.line - len(opening)})'
        closing = ["])" if len(opening) > 1 else ")"]
        write(os.path.join(folder, "Package.swift"),
              ["// swift-tools-version:6.0", "import PackageDescription", location] + opening
              + code + closing)
        run = subprocess.run(["swift", "package", "--package-path", folder, "dump-package"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            errors = [line for line in (run.stdout + run.stderr).splitlines()
                      if re.search(r"\.md:\d+:\d+: error:", line)]
            return "\n".join(errors) or (run.stdout + run.stderr).strip()
        return None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def expected_output_problems(block, output):
    problems = []
    lines = output.rstrip("\n").split("\n") if output.strip() else []
    if block.output is not None and not block.prints:
        first, expected = block.output
        want = "\n".join(t.rstrip() for t in expected).rstrip()
        got = "\n".join(t.rstrip() for t in lines).rstrip()
        if want != got:
            problems.append(f"{block.path}:{first}: the output shown isn't what the block at "
                            f"line {block.line - 1} prints; it prints:\n{got}")
    position = 0
    for line, text in block.prints:
        found = next((i for i in range(position, len(lines)) if text in lines[i]), None)
        if found is None:
            problems.append(f"{block.path}:{line}: '// prints {text}' is not in the output "
                            f"(the output, from the last match on):\n" + "\n".join(lines[position:]))
            break
        position = found + 1
    return problems


def run_block(binary_folder, module, function):
    home = tempfile.mkdtemp(prefix="doc-check-run-")
    try:
        environment = dict(os.environ, HOME=home, TMPDIR=home,
                           XDG_CONFIG_HOME=os.path.join(home, "config"),
                           XDG_DATA_HOME=os.path.join(home, "data"),
                           XDG_CACHE_HOME=os.path.join(home, "cache"))
        command = [os.path.join(binary_folder, module)] + ([function] if function else [])
        try:
            run = subprocess.run(command, capture_output=True, text=True, cwd=home,
                                 env=environment, timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            return None, f"it didn't end within {RUN_TIMEOUT} s"
        if run.returncode != 0:
            return run.stdout, f"it exited with status {run.returncode}:\n{run.stdout}{run.stderr}"
        return run.stdout, None
    finally:
        shutil.rmtree(home, ignore_errors=True)


def importable(module):
    """Whether this toolchain has a module (SwiftUI and Combine exist on Apple platforms only)."""
    run = subprocess.run(["swiftc", "-typecheck", "-"], input=f"import {module}\n",
                         capture_output=True, text=True)
    return run.returncode == 0


def main():
    started = time.monotonic()
    arguments = [a for a in sys.argv[1:] if not a.startswith("-")]
    try:
        blocks = [b for path in documentation_files(arguments) for b in read_blocks(path)]
        available = {m: importable(m) for m in {m for b in blocks for m in b.requires}}
        for block in blocks:
            missing = [m for m in block.requires if not available[m]]
            if missing and block.skip is None:
                block.skip = f"needs {', '.join(missing)}, which this toolchain doesn't have"
        package_name = os.path.basename(ROOT).lower()
        os.makedirs(WORK, exist_ok=True)
        targets, runs = generate(blocks, package_name)
    except Problem as problem:
        sys.exit(f"error: {problem}")

    failures = []
    manifests = [b for b in blocks if b.manifest and b.skip is None]
    with concurrent.futures.ThreadPoolExecutor() as pool:
        manifest_results = pool.map(lambda b: (b, check_manifest(b, package_name)), manifests)
        build = subprocess.run(["swift", "build", "--package-path", WORK], capture_output=True,
                               text=True)
        if build.returncode != 0:
            # `swift build` stops at the first module that fails: build each one on its own to
            # report every block that fails, not only the first one's.
            logs = [build.stdout + build.stderr]
            for target in sorted(targets):
                one = subprocess.run(["swift", "build", "--package-path", WORK, "--target", target],
                                     capture_output=True, text=True)
                logs.append(one.stdout + one.stderr)
            build = subprocess.CompletedProcess(build.args, 1, "\n".join(logs), "")
        for block, error in manifest_results:
            if error:
                failures.append((block, error))

    compiled = [b for b in blocks if b.skip is None and not b.manifest]
    if build.returncode != 0:
        log = build.stdout + build.stderr
        located = re.findall(r"^(\S+\.md):(\d+):(?:\d+:)? error: .*$", log, re.M)
        errors = [line for line in log.splitlines() if re.search(r":\d+:(\d+:)? (error|note):", line)]
        print("\n".join(dict.fromkeys(errors)) if errors else log)
        if not located:
            failures.append((None, "the build failed (above), at no line of the documentation"))
        for path, line in located:
            owner = next((b for b in compiled if b.path == path
                          and (b.marker_line or b.line) <= int(line) <= b.line + len(b.code)), None)
            failures.append((owner, None))
    else:
        binaries = subprocess.run(["swift", "build", "--package-path", WORK, "--show-bin-path"],
                                  capture_output=True, text=True).stdout.strip()
        to_run = [b for b in compiled if b.run]
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            results = pool.map(lambda b: (b, run_block(binaries, *runs[b])), to_run)
            for block, (output, error) in results:
                if error:
                    failures.append((block, f"{block.where}: the block was run, and {error}"))
                    continue
                for problem in expected_output_problems(block, output):
                    failures.append((block, problem))

    skipped = [b for b in blocks if b.skip is not None]
    ran = sum(1 for b in compiled if b.run)
    seconds = time.monotonic() - started
    summary = (f"{len(compiled)} blocks compiled in {len(targets)} modules, {len(manifests)} "
               f"manifest fragments loaded, {ran} run and their output checked, {len(skipped)} "
               f"skipped ({seconds:.0f} s)")
    for block in skipped:
        print(f"skipped: {block.where}: {block.skip}")
    if failures:
        print()
        for _, message in failures:
            if message:
                print(message)
        failed = sorted({b.where for b, _ in failures if b is not None},
                        key=lambda w: (w.split(":")[0], int(w.split(":")[1])))
        print(f"\nerror: {len(failed)} documentation blocks fail: " + ", ".join(failed))
        print(summary)
        sys.exit(1)
    print(summary + ": the documentation's code compiles, and prints what it says")


main()
