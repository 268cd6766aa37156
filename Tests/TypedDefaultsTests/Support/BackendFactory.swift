import Foundation
import Testing

@testable import TypedDefaults

/// A kind of backend the conformance tests run against, with a fresh, isolated instance per test.
struct BackendFactory: Sendable, CustomTestStringConvertible {
  /// A fresh backend plus whatever must stay alive (and is cleaned up when released).
  struct Instance {
    let backend: any SettingsBackend
    let resources: [AnyObject]
  }

  let name: String
  let make: @Sendable () throws -> Instance

  var testDescription: String { name }

  /// Runs `body` with a fresh backend, keeping the files and suites behind it alive until `body`
  /// returns, then cleaning them up.
  func withBackend<Result>(
    _ body: (any SettingsBackend) async throws -> Result
  ) async throws -> Result {
    let instance = try make()
    defer { withExtendedLifetime(instance.resources) {} }
    return try await body(instance.backend)
  }

  static let inMemory = BackendFactory(name: "InMemoryBackend") {
    Instance(backend: InMemoryBackend(), resources: [])
  }

  static let userDefaults = BackendFactory(name: "UserDefaultsBackend") {
    let suite = TemporarySuite()
    return Instance(backend: suite.backend, resources: [suite])
  }

  static let layeredPlistStore = BackendFactory(name: "LayeredPlistStore") {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: directory.file("data.plist"))
    return Instance(backend: store, resources: [directory])
  }

  /// Every backend of the library: each must pass the conformance suite.
  static let all: [BackendFactory] = [.inMemory, .userDefaults, .layeredPlistStore]
}
