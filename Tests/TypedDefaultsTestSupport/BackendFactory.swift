import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers

/// A kind of backend the conformance tests run against, with a fresh, isolated instance per test.
package struct BackendFactory: Sendable, CustomTestStringConvertible {
  /// A fresh backend plus whatever must stay alive (and is cleaned up when released).
  package struct Instance {
    package let backend: any SettingsBackend
    package let resources: [AnyObject]
    /// Makes what was written durable and reads it back the way the next launch would: a new
    /// store on the saved file, or a second process reading the UserDefaults suite.
    package let reload: () throws -> any SettingsBackend
  }

  package let name: String
  /// Whether values end up in an XML property list, which keeps dates to whole seconds.
  package let storesXML: Bool
  /// Whether strings and keys holding a control character XML forbids are refused: by the XML
  /// stores, and by `UserDefaultsBackend` on Linux, whose binary file corelibs rewrites as XML
  /// when other code calls `UserDefaults.synchronize()`.
  package var refusesXMLForbiddenCharacters: Bool { storesXML || refusesControlCharacters }
  package var refusesControlCharacters = false
  package let make: @Sendable () throws -> Instance

  package var testDescription: String { name }

  /// Runs `body` with a fresh backend, keeping the files and suites behind it alive until `body`
  /// returns, then cleaning them up.
  package func withBackend<Result>(
    _ body: (any SettingsBackend) async throws -> Result
  ) async throws -> Result {
    try await withInstance { try await body($0.backend) }
  }

  /// Runs `body` with a fresh instance (backend and reload), cleaning up after it.
  package func withInstance<Result>(
    _ body: (Instance) async throws -> Result
  ) async throws -> Result {
    var instance: Instance? = try make()
    // Release the backend before the folder or suite behind it, so that a store saving its
    // unsaved changes as it goes still finds its folder.
    let resources = instance?.resources ?? []
    defer { withExtendedLifetime(resources) {} }
    defer { instance = nil }
    guard let current = instance else { preconditionFailure("make() returned an instance") }
    return try await body(current)
  }

  package static let inMemory = BackendFactory(name: "InMemoryBackend", storesXML: false) {
    let backend = InMemoryBackend()
    return Instance(backend: backend, resources: [], reload: { backend })
  }

  /// On Linux the backend saves the suite file itself, as a binary property list.
  package static let userDefaults = userDefaults(writtenOnlyThroughLibrary: false)

  /// A backend created with the owner's promise: on Linux, settings read through its cells.
  package static let promisedUserDefaults = userDefaults(writtenOnlyThroughLibrary: true)

  private static func userDefaults(writtenOnlyThroughLibrary: Bool) -> BackendFactory {
    BackendFactory(
      name: writtenOnlyThroughLibrary
        ? "UserDefaultsBackend (written only through the library)" : "UserDefaultsBackend",
      storesXML: false,
      refusesControlCharacters: { () -> Bool in
        #if canImport(Darwin)
          false
        #else
          true
        #endif
      }()
    ) {
      let suite = TemporarySuite(writtenOnlyThroughLibrary: writtenOnlyThroughLibrary)
      return Instance(backend: suite.backend, resources: [suite]) {
        // Flush, then let a second process read the suite from disk.
        suite.backend.synchronize()
        let dump = try runProductData("SettingsProbe", ["userdefaults", suite.name, "dump"])
        guard dump.status == 0 else {
          throw SettingsError(
            .fileNotReadable, reason: String(decoding: dump.standardError, as: UTF8.self))
        }
        let contents = try PropertyListFile.decode(
          dump.standardOutput, path: "SettingsProbe output")
        return InMemoryBackend(contents.root.dictionaryValue ?? [:], name: "second process")
      }
    }
  }

  /// A store on a new `data.plist`, in its default format: binary.
  package static let layeredPlistStore = BackendFactory(name: "LayeredPlistStore", storesXML: false)
  {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file)
    return Instance(backend: store, resources: [directory]) {
      try store.save()
      return try LayeredPlistStore(persistentFile: file)
    }
  }

  /// A store that asks for XML.
  package static let xmlLayeredPlistStore = BackendFactory(
    name: "LayeredPlistStore (XML)",
    storesXML: true
  ) {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file, options: .init(format: .xml))
    return Instance(backend: store, resources: [directory]) {
      try store.save()
      return try LayeredPlistStore(persistentFile: file)
    }
  }

  /// Every backend of the library: each must pass the conformance suite.
  package static let all: [BackendFactory] = [
    .inMemory, .userDefaults, .promisedUserDefaults, .layeredPlistStore, .xmlLayeredPlistStore,
  ]

  /// The prefix of the scoped views below.
  package static let scopePrefix = "com.example.sdk."

  /// A view of `base`'s backend scoped to ``scopePrefix``, over a base that also holds a key of
  /// its own outside the prefix, which the view must never show or touch.
  package static func scopedView(of base: BackendFactory) -> BackendFactory {
    BackendFactory(
      name: "\(base.name), scoped", storesXML: base.storesXML,
      refusesControlCharacters: base.refusesControlCharacters
    ) {
      let instance = try base.make()
      try instance.backend.setValue("the host's", forKey: "host.volume")
      return Instance(
        backend: instance.backend.scoped(to: scopePrefix), resources: instance.resources,
        reload: { try instance.reload().scoped(to: scopePrefix) })
    }
  }

  /// Every backend, and a scoped view of each: the conformance suite runs on both.
  package static let allWithScopedViews: [BackendFactory] = all + all.map(scopedView(of:))
}
