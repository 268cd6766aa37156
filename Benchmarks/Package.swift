// swift-tools-version:6.0
//
// The TypedDefaults benchmarks: a release-mode executable that measures the library against raw
// baselines in the same run and prints the ratios. A package of its own, so that building the
// library stays fast. Run from the project root:
//
//   swift run -c release --package-path Benchmarks TypedDefaultsBenchmarks [--quick] [--json PATH]

import PackageDescription

let package = Package(
  name: "TypedDefaultsBenchmarks",
  // Synchronization.Mutex, the baseline the issue names, needs macOS 15 on Apple platforms.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  dependencies: [.package(name: "TypedDefaults", path: "..")],
  targets: [
    .executableTarget(
      name: "TypedDefaultsBenchmarks",
      dependencies: [
        .product(name: "TypedDefaults", package: "TypedDefaults"),
        .product(name: "TypedDefaultsLayers", package: "TypedDefaults"),
        .product(name: "TypedDefaultsEtcd", package: "TypedDefaults"),
        "AllocationCounter",
      ]
    ),
    // Counts heap allocations (on Linux, by replacing malloc and its relatives), for the
    // allocations-per-operation figures; C, because Swift can't define `malloc`.
    .target(name: "AllocationCounter"),
  ],
  swiftLanguageModes: [.v6]
)
