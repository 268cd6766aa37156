import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// `print(store)` showed `TypedDefaults.LayeredPlistStore` (issue 35 item 9): each backend
/// describes itself by its type and where its values are, and never shows a value.
@Suite struct BackendDescriptionTests {
  @Test func printingALayeredStoreShowsItsTypeAndFilePath() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    try store.setValue("hidden", forKey: "token")
    #expect("\(store)" == "LayeredPlistStore(\(file.path))")
    // `debugPrint` and `dump` agree, and show no value.
    #expect(String(reflecting: store) == "LayeredPlistStore(\(file.path))")
    var dumped = ""
    dump(store, to: &dumped)
    #expect(!dumped.contains("hidden"))
    #expect(dumped.contains(file.path))
  }

  @Test func printingAUserDefaultsBackendShowsItsSuiteAndFile() throws {
    let suite = TemporarySuite()
    let backend = suite.backend
    #if canImport(Darwin)
      #expect("\(backend)" == "UserDefaultsBackend(suite: \(suite.name))")
    #else
      let file = try #require(backend.fileURL).path
      #expect("\(backend)" == "UserDefaultsBackend(suite: \(suite.name), file: \(file))")
    #endif
    #expect(String(reflecting: backend) == "\(backend)")
  }

  @Test func printingAnInMemoryBackendShowsItsTypeAndAnyNameGiven() {
    #expect("\(InMemoryBackend(["token": "hidden"]))" == "InMemoryBackend")
    #expect("\(InMemoryBackend(name: "Previews"))" == "InMemoryBackend(name: \"Previews\")")
    let scoped = InMemoryBackend(name: "Previews").scoped(to: "kit.")
    #expect("\(scoped)" == "InMemoryBackend(name: \"Previews\") scoped to 'kit.'")
  }
}
