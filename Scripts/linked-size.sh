#!/usr/bin/env bash
# Builds the smallest real app (one SettingsModel of two @Settings on UserDefaultsBackend, the
# README's first example) in release with the linker's dead-code removal (--gc-sections), and
# prints how much of TypedDefaults it links: bytes and symbols per module, and the heavy parts
# found in it. With --check, exits 1 when a part the app doesn't use is linked, or the library's
# code exceeds the budget (bytes, default 1,000,000, the 1.0 target: today 993,488; see Docs/Design.md's "Modules").
#
#   Scripts/linked-size.sh [--check] [--budget BYTES] [--keep DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
check=0
budget=1000000
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --budget) budget=$2; shift ;;
    --keep) keep=$2; shift ;;
    *) echo "usage: $0 [--check] [--budget BYTES] [--keep DIR]" >&2; exit 2 ;;
  esac
  shift
done

app=${keep:-$(mktemp -d)}
# A path dependency's package identity is its folder's name, lowercased.
identity=$(basename "$root" | tr '[:upper:]' '[:lower:]')
[ -n "$keep" ] || trap 'rm -rf "$app"' EXIT
mkdir -p "$app/Sources/TwoSettingsApp"
cat > "$app/Package.swift" <<PKG
// swift-tools-version:6.0
import PackageDescription
let package = Package(
  name: "TwoSettingsApp",
  dependencies: [.package(path: "$root")],
  targets: [
    .executableTarget(
      name: "TwoSettingsApp",
      dependencies: [.product(name: "TypedDefaults", package: "$identity")]
    )
  ],
  swiftLanguageModes: [.v6]
)
PKG
cat > "$app/Sources/TwoSettingsApp/main.swift" <<'SWIFT'
import TypedDefaults

final class AppSettings: SettingsModel, @unchecked Sendable {
  @Setting var launchCount = 0
  @Setting var userName = "Guest"
}

let settings = AppSettings(backend: UserDefaultsBackend(suiteName: "com.example.two-settings"))
settings.launchCount += 1
print(settings.userName, settings.launchCount)
SWIFT

swift build --package-path "$app" -c release -Xlinker --gc-sections >&2
binary="$app/.build/release/TwoSettingsApp"

# Every defined symbol with its size; a Swift symbol belongs to a module when its mangled name
# names the module (a length-prefixed identifier: 13TypedDefaults, 19TypedDefaultsLayers, …).
nm --size-sort -S --defined-only "$binary" > "$app/nm.txt"
python3 - "$app/nm.txt" "$check" "$budget" "$(stat -c %s "$binary")" <<'PY'
import re, sys
nm_file, check, budget, binary_bytes = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]), int(sys.argv[4])
module_pattern = re.compile(r"(\d+)(TypedDefaults\w*)")
modules, total_bytes, total_symbols, ours = {}, 0, 0, []
for line in open(nm_file):
    fields = line.split()
    if len(fields) != 4:
        continue
    size, name = int(fields[1], 16), fields[3]
    named = set()
    for match in module_pattern.finditer(name):
        length, word = int(match.group(1)), match.group(2)
        if length <= len(word):
            named.add(word[:length])
    if not named:
        continue
    ours.append(name)
    total_bytes += size
    total_symbols += 1
    # A symbol naming several of our modules (a specialization) counts for the first one named.
    first = min(named, key=lambda m: name.index(f"{len(m)}{m}"))
    entry = modules.setdefault(first, [0, 0])
    entry[0] += size
    entry[1] += 1
print(f"TwoSettingsApp: {binary_bytes:,} bytes in all")
print(f"TypedDefaults code linked: {total_bytes:,} bytes in {total_symbols:,} symbols")
for module, (size, count) in sorted(modules.items(), key=lambda item: -item[1][0]):
    print(f"  module {module}: {size:,} bytes in {count:,} symbols")
# Parts a two-setting app on UserDefaultsBackend doesn't use: none of them may be linked.
heavy = ["LayeredPlistStore", "LayerSource", "EnvironmentVariablesSource",
         "CommandLineArgumentsSource", "DirectorySource", "ManagedSettingsSource",
         "SettingsBundleSource", "PropertyListFileSource", "EtcdSource", "HTTPConnection",
         "EtcdGateway", "jsonSchema", "settingsBundle", "managedAppConfiguration",
         "markdownReference"]
linked = {part: sum(1 for name in ours if f"{len(part)}{part}" in name) for part in heavy}
unused = {part: count for part, count in linked.items() if count}
for part, count in unused.items():
    print(f"  linked and unused: {part} ({count} symbols)")
if not unused:
    print("  none of the layered store, its sources, the fleet layer or the schema exports is linked")
if check:
    if unused:
        sys.exit("error: the two-setting app links parts it doesn't use (above)")
    if total_bytes > budget:
        sys.exit(f"error: the two-setting app links {total_bytes:,} bytes of TypedDefaults, above the budget of {budget:,}")
PY
