import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsTestSupport

/// A `DirectorySource` layered by a watching `LayeredPlistStore` (issue #19): each Kubernetes
/// `..data` swap gives observers one event per key whose value changed, and none for the others.
@Suite struct DirectorySourceStoreTests {
  @Test func eachSwapGivesOneEventPerChangedKeyAndNoneForTheUnchangedOnes() async throws {
    let temporary = try TemporaryDirectory()
    let mount = try KubernetesMount(
      at: temporary.file("config"), ["changing": "0\n", "steady": "same\n", "removed": "gone"])
    let source = DirectorySource(directory: mount.directory, layer: "config")
    let store = try LayeredPlistStore(
      persistentFile: temporary.file("data.plist"),
      layers: [.runtime, .persistent, .source(source)],
      options: .init(savesAtExit: false, watchesFiles: true))
    #expect(store.value(forKey: "changing") == "0")
    #expect(store.value(forKey: "steady") == "same")
    #expect(store.layer(forKey: "steady") == "config")
    let received = Received<SettingsChange>()
    let token = store.observeAllKeys { received.append($0) }
    defer { token.cancel() }

    // The first swap removes a key and adds one; the others change one key each.
    try mount.write(["changing": "1\n", "steady": "same\n", "added": "new\n"])
    await eventually("the store sees the first swap") {
      store.value(forKey: "changing") == "1" && store.value(forKey: "added") == "new"
        && store.value(forKey: "removed") == nil && received.count == 3
    }
    #expect(
      Set(received.all.map { "\($0.key)=\($0.newValue.map { "\($0)" } ?? "nil")" })
        == ["changing=1", "added=new", "removed=nil"])
    for n in 2...20 {
      try mount.write(["changing": "\(n)\n", "steady": "same\n", "added": "new\n"])
      await eventually("the store sees swap \(n)") {
        store.value(forKey: "changing") == .string("\(n)") && received.count == n + 2
      }
    }
    // One event per changed key per swap, in order; none for `steady` nor repeated ones.
    let changing = received.all.filter { $0.key == "changing" }.map(\.newValue)
    #expect(changing == (1...20).map { .string("\($0)") })
    #expect(received.all.allSatisfy { $0.key != "steady" })
    #expect(received.count == 22)
    #expect(store.value(forKey: "steady") == "same")
  }
}
