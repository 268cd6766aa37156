// swift-tools-version:6.0
//
// TypedDefaults: typed, discoverable, safe settings for Swift, on every platform Swift runs on.
// No package dependencies: only the toolchain (stdlib, Foundation, Dispatch, Swift Testing).

import PackageDescription

let strictSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
  name: "TypedDefaults",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
  // Products by capability: an app links what it uses (README, "Adding it to a package";
  // Docs/Design.md, "Modules"). Each library's public API is recorded in API/<module>.txt and
  // checked by CI.
  products: [
    // @Setting, models, values, observation, InMemoryBackend and UserDefaultsBackend.
    .library(name: "TypedDefaults", targets: ["TypedDefaults"]),
    // LayeredPlistStore and its layer sources (files, environment, arguments, mounted folders,
    // managed settings, Settings.bundle defaults).
    .library(name: "TypedDefaultsLayers", targets: ["TypedDefaultsLayers"]),
    // EtcdSource: a fleet's settings from etcd, as a layer of a LayeredPlistStore.
    .library(name: "TypedDefaultsEtcd", targets: ["TypedDefaultsEtcd"]),
    // A model's schema exported: JSON Schema, Settings.bundle, managed app configuration,
    // Markdown, and the schema file the settings tool checks writes against.
    .library(name: "TypedDefaultsSchema", targets: ["TypedDefaultsSchema"]),
    // For a user's test target: the backend conformance suite and test isolation.
    .library(name: "TypedDefaultsTesting", targets: ["TypedDefaultsTesting"]),
    // `settings`: a `defaults`-style command-line tool for the stores the library manages.
    .executable(name: "settings", targets: ["settings"]),
  ],
  targets: [
    .target(
      name: "TypedDefaults",
      resources: [.copy("PrivacyInfo.xcprivacy")],
      swiftSettings: strictSettings
    ),
    .target(
      name: "TypedDefaultsLayers",
      dependencies: ["TypedDefaults"],
      resources: [.copy("PrivacyInfo.xcprivacy")],
      swiftSettings: strictSettings
    ),
    .target(
      name: "TypedDefaultsEtcd",
      dependencies: ["TypedDefaults", "TypedDefaultsLayers"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "TypedDefaultsSchema",
      dependencies: ["TypedDefaults"],
      swiftSettings: strictSettings
    ),

    // Imports Swift Testing, which ships with the toolchain: link it into test targets only.
    .target(
      name: "TypedDefaultsTesting",
      dependencies: ["TypedDefaults", "TypedDefaultsLayers"],
      swiftSettings: strictSettings
    ),

    // The shipped `settings` tool (Sources/settings).
    .executableTarget(
      name: "settings",
      dependencies: [
        "TypedDefaults", "TypedDefaultsLayers", "TypedDefaultsEtcd", "TypedDefaultsSchema",
      ],
      swiftSettings: strictSettings
    ),

    // MARK: Examples: each one a scenario from the seed systems (see Examples/README.md).
    .executableTarget(
      name: "LayeredConfigDemo",
      dependencies: ["TypedDefaults", "TypedDefaultsLayers", "TypedDefaultsSchema"],
      path: "Examples/LayeredConfigDemo",
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "DeploymentDemo",
      dependencies: ["TypedDefaults", "TypedDefaultsLayers", "TypedDefaultsSchema"],
      path: "Examples/DeploymentDemo",
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "ServiceDemo",
      dependencies: ["TypedDefaults", "TypedDefaultsLayers"],
      path: "Examples/ServiceDemo",
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "FleetDemo",
      dependencies: [
        "TypedDefaults", "TypedDefaultsLayers", "TypedDefaultsEtcd", "TypedDefaultsSchema",
      ],
      path: "Examples/FleetDemo",
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "UserDefaultsModelDemo",
      dependencies: ["TypedDefaults", "TypedDefaultsSchema"],
      path: "Examples/UserDefaultsModelDemo",
      swiftSettings: strictSettings
    ),
    // A library shipping its own settings (PlayerKit) and an app embedding it (HostAppDemo).
    .target(
      name: "PlayerKit",
      dependencies: ["TypedDefaults"],
      path: "Examples/PlayerKit",
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "HostAppDemo",
      dependencies: ["TypedDefaults", "PlayerKit", "TypedDefaultsLayers", "TypedDefaultsSchema"],
      path: "Examples/HostAppDemo",
      swiftSettings: strictSettings
    ),

    // MARK: Tests (run one target: `swift test --filter TypedDefaultsUnitTests`)
    // A small helper executable the tests launch as a second process (cross-process persistence,
    // kills in the middle of a save, watching).
    .executableTarget(
      name: "SettingsProbe",
      dependencies: [
        "TypedDefaults", "TypedDefaultsLayers", "TypedDefaultsEtcd", "TypedDefaultsSchema",
        "TypedDefaultsTesting",
      ],
      path: "Tests/SettingsProbe",
      swiftSettings: strictSettings
    ),
    // The test targets' shared helpers (temporary folders and suites, child processes, backend
    // factories, fuzz inputs, the campaign tags): not a product. It imports Swift Testing and sees
    // the library through `package` access only (no `@testable import`), so `swift build -c release`
    // of the whole package builds it too.
    .target(
      name: "TypedDefaultsTestSupport",
      dependencies: [
        "TypedDefaults", "TypedDefaultsLayers", "TypedDefaultsEtcd", "TypedDefaultsSchema",
        "TypedDefaultsTesting",
      ],
      path: "Tests/TypedDefaultsTestSupport",
      swiftSettings: strictSettings
    ),
    // Unit tests of the library, one folder per area (Values/, Models/, Backends/, Files/,
    // Observation/ …). Where an area's promise spans processes (several writers, a kill in the
    // middle of a save, a watch), its tests start SettingsProbe or `settings` as a second process.
    .testTarget(
      name: "TypedDefaultsUnitTests",
      dependencies: [
        "TypedDefaults", "TypedDefaultsLayers", "TypedDefaultsEtcd", "TypedDefaultsSchema",
        "TypedDefaultsTesting", "TypedDefaultsTestSupport", "SettingsProbe", "settings",
      ],
      swiftSettings: strictSettings
    ),
    // End to end: the executables a user runs, run as a user runs them, their output checked
    // exactly: the shipped `settings` tool and the examples. Depending on them makes `swift test`
    // build them.
    .testTarget(
      name: "TypedDefaultsEndToEndTests",
      dependencies: [
        "TypedDefaults", "TypedDefaultsLayers", "TypedDefaultsEtcd", "TypedDefaultsSchema",
        "TypedDefaultsTestSupport", "settings", "LayeredConfigDemo",
        "DeploymentDemo", "UserDefaultsModelDemo", "HostAppDemo", "FleetDemo",
      ],
      swiftSettings: strictSettings
    ),
    // The property-list readers against their corpora: the fixtures, the differential comparison
    // with Foundation and plistlib, fuzzing, hostile and foreign files, input limits.
    .testTarget(
      name: "PropertyListReaderTests",
      dependencies: [
        "TypedDefaults", "TypedDefaultsLayers", "TypedDefaultsTestSupport", "SettingsProbe",
        "settings",
      ],
      // Read through #filePath (TestPaths.ownFixtures), so a test can name the file it compares
      // against.
      exclude: ["Fixtures"],
      swiftSettings: strictSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
