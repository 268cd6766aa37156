import Foundation
import Testing
import TypedDefaults

/// A backend written the way a user of the library would: a locked dictionary, with no
/// observation support of its own.
// @unchecked Sendable: `values` is only accessed while `lock` is held.
package final class PlainBackend: SettingsBackend, @unchecked Sendable {
  private let lock = NSLock()
  private var values: [String: PropertyListValue] = [:]

  package init() {}

  package var name: String { "PlainBackend" }

  package func value(forKey key: String) -> PropertyListValue? {
    lock.lock()
    defer { lock.unlock() }
    return values[key]
  }

  package func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    lock.lock()
    values[key] = value
    lock.unlock()
  }

  package func removeValue(forKey key: String) {
    lock.lock()
    values[key] = nil
    lock.unlock()
  }

  package func dictionaryRepresentation() -> [String: PropertyListValue] {
    lock.lock()
    defer { lock.unlock() }
    return values
  }
}

extension BackendFactory {
  /// A backend that knows nothing of observation, as users write them.
  package static let userWritten = BackendFactory(name: "user-written backend", storesXML: false) {
    let backend = PlainBackend()
    return Instance(backend: backend, resources: [], reload: { backend })
  }

  /// Every backend the observation suite runs against: the library's, and a user-written one.
  package static let observable: [BackendFactory] = all + [.userWritten]

  /// Every backend the observation suite runs against, and a scoped view of each.
  package static let observableWithScopedViews: [BackendFactory] =
    observable + observable.map(scopedView(of:))
}

/// Collects what an observer receives, thread-safely.
package final class Received<Element: Sendable>: Sendable {
  private let elements = Locked<[Element]>([])

  package init() {}

  package var all: [Element] { elements.withLock { $0 } }
  package var count: Int { elements.withLock { $0.count } }
  package var last: Element? { elements.withLock { $0.last } }

  package func append(_ element: Element) {
    elements.withLock { $0.append(element) }
  }
}

/// Polls `condition` every 2 ms for up to 10 seconds, for work another thread or process does;
/// records `message` as a failure and returns `false` if it never holds.
@discardableResult
package func eventually(
  _ message: @autoclosure () -> String,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ condition: () -> Bool
) async -> Bool {
  for _ in 0..<5000 {
    if condition() { return true }
    try? await Task.sleep(nanoseconds: 2_000_000)
  }
  Issue.record("timed out after 10 s waiting until \(message())", sourceLocation: sourceLocation)
  return false
}

/// A model on any backend, for the typed and Observation tests.
// @unchecked Sendable: its stored properties are `@Setting`s (see SettingsModel).
package final class ObservedSettings: SettingsModel, @unchecked Sendable {
  @Setting package var volume = 1
  @Setting("other") package var other = 0
  @Setting("com.example.flag") package var flag = false
}

/// Three observers of `volume`, of the three kinds: the setting's typed observer, an observer
/// of its key in the backend, and an observer of every key (filtered to `volume`).
package struct VolumeObservers {
  package let typed = Received<Int>()
  package let raw = Received<Int?>()
  package let everyKey = Received<Int?>()
  package let tokens: [ObservationToken]

  package init(of settings: ObservedSettings, on backend: any SettingsBackend) {
    let (typed, raw, everyKey) = (self.typed, self.raw, self.everyKey)
    tokens = [
      settings.$volume.observe { typed.append($0) },
      backend.observe(key: "volume") { raw.append($0.newValue?.intValue) },
      backend.observeAllKeys { change in
        if change.key == "volume" { everyKey.append(change.newValue?.intValue) }
      },
    ]
  }

  /// Cancels the three observations.
  package func cancel() { for token in tokens { token.cancel() } }
}

/// A struct of settings, for the Observation tests.
package struct ObservedGroup: SettingsGroup {
  @Setting package var volume = 1

  package init() {}
}
