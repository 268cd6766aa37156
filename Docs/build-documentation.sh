#!/usr/bin/env bash
# Builds the TypedDefaults DocC documentation offline, with the toolchain's own docc, and fails on
# any DocC warning (a broken symbol link, a missing article). No plugin, no network.
#
#   Docs/build-documentation.sh [output-folder]     (default: .build/documentation)
#
# Symbol graphs come from an ordinary `swift build` of the library; docc turns them and the
# catalog in Sources/TypedDefaults/Documentation.docc into a static website.
set -euo pipefail
cd "$(dirname "$0")/.."

output="${1:-.build/documentation}"
# A build folder of its own: the compiler writes symbol graphs only when it compiles, so they are
# kept beside the build that made them (an up-to-date build leaves them valid).
scratch=".build/documentation-build"
symbols="$scratch/symbol-graphs"
rm -rf "$output"
mkdir -p "$symbols"

swift build --target TypedDefaults --scratch-path "$scratch" \
  -Xswiftc -emit-symbol-graph \
  -Xswiftc -emit-symbol-graph-dir -Xswiftc "$symbols" \
  -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public

docc convert Sources/TypedDefaults/Documentation.docc \
  --additional-symbol-graph-dir "$symbols" \
  --fallback-display-name TypedDefaults \
  --fallback-bundle-identifier org.typeddefaults.TypedDefaults \
  --output-path "$output" \
  --transform-for-static-hosting \
  --warnings-as-errors

echo "Documentation built in $output (open $output/index.html through a web server)"
