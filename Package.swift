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
  products: [
    .library(name: "TypedDefaults", targets: ["TypedDefaults"]),
    // For a user's test target: the backend conformance suite and test isolation.
    .library(name: "TypedDefaultsTesting", targets: ["TypedDefaultsTesting"]),
    // `settings`: a `defaults`-style command-line tool for the stores the library manages.
    .executable(name: "settings", targets: ["settings"]),
  ],
  targets: [
    .target(
      name: "TypedDefaults",
      swiftSettings: strictSettings
    ),

    // Imports Swift Testing, which ships with the toolchain: link it into test targets only.
    .target(
      name: "TypedDefaultsTesting",
      dependencies: ["TypedDefaults"],
      swiftSettings: strictSettings
    ),

    // The shipped `settings` tool (Sources/settings).
    .executableTarget(
      name: "settings",
      dependencies: ["TypedDefaults"],
      swiftSettings: strictSettings
    ),

    // MARK: Examples: each one a scenario from the seed systems (see Examples/README.md).
    .executableTarget(
      name: "LayeredConfigDemo",
      dependencies: ["TypedDefaults"],
      path: "Examples/LayeredConfigDemo",
      swiftSettings: strictSettings
    ),
    .executableTarget(
      name: "UserDefaultsModelDemo",
      dependencies: ["TypedDefaults"],
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
      dependencies: ["TypedDefaults", "PlayerKit"],
      path: "Examples/HostAppDemo",
      swiftSettings: strictSettings
    ),

    // MARK: Tests
    // A small helper executable the tests launch as a second process (cross-process persistence).
    // The tests also run the examples; depending on them makes `swift test` build them.
    .executableTarget(
      name: "SettingsProbe",
      dependencies: ["TypedDefaults", "TypedDefaultsTesting"],
      path: "Tests/SettingsProbe",
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "TypedDefaultsTests",
      dependencies: [
        "TypedDefaults", "TypedDefaultsTesting", "SettingsProbe", "LayeredConfigDemo",
        "UserDefaultsModelDemo", "settings", "HostAppDemo",
      ],
      // Read through #filePath, so a test can name the file it compares against.
      exclude: ["Fixtures"],
      swiftSettings: strictSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
