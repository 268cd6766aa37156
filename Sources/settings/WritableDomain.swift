import Foundation
import TypedDefaults
import TypedDefaultsLayers

/// A domain opened for writing: what `write`, `delete` and `import` change, then save.
protocol WritableDomain {
  /// The values `read` shows (a layered store's merged view).
  var values: [String: PropertyListValue] { get }
  /// The value a write replaces and a delete removes: for a layered store, the persistent
  /// layer's.
  func ownValue(forKey key: String) -> PropertyListValue?
  /// Where a key's value comes from, if no write to this domain can remove it (a read-only
  /// layer); `nil` otherwise.
  func readOnlySource(ofKey key: String) -> String?
  /// The layer that forces a key's value (managed settings), so that no write or delete of it
  /// is possible, as `the managed layer (/etc/app/managed.plist)`; `nil` if none does.
  func forcingSource(ofKey key: String) -> String?
  /// Stores a value, or removes the key when `value` is `nil`.
  func setValue(_ value: PropertyListValue?, forKey key: String) throws(Failure)
  /// Stores a value computed from the key's current value (what `read` shows), as one step no
  /// other `settings` process can come between, and saves it.
  func update(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(Failure) -> PropertyListValue
  ) throws(Failure)
  /// Writes the changes to disk.
  func save() throws(Failure)
}

/// A property-list file or a layered store folder, through `LayeredPlistStore`: writes go to the
/// persistent layer and are saved with its locked, merging, atomic save, so several processes
/// writing one file at once lose nothing.
struct StoreDomain: WritableDomain {
  let store: LayeredPlistStore
  /// A layered store folder's files, to name them; `nil` for a property-list file.
  let files: Domain.LayeredFiles?

  var values: [String: PropertyListValue] { store.dictionaryRepresentation() }

  func ownValue(forKey key: String) -> PropertyListValue? {
    store.value(forKey: key, in: .persistent)
  }

  func readOnlySource(ofKey key: String) -> String? {
    guard ownValue(forKey: key) == nil, let layer = store.layer(forKey: key), !layer.isWritable
    else { return nil }
    return describe(layer)
  }

  func forcingSource(ofKey key: String) -> String? {
    guard store.isForced(forKey: key), let layer = store.explain(key).forcedBy else { return nil }
    return describe(layer)
  }

  /// A layer as messages name it: `the bundled layer (Info.plist)`.
  private func describe(_ layer: LayeredPlistStore.Layer) -> String {
    "the \(layer) layer (\(files?.label(of: layer) ?? "read-only"))"
  }

  func setValue(_ value: PropertyListValue?, forKey key: String) throws(Failure) {
    do {
      try withStandardErrorSilenced { () throws(SettingsError) in
        try store.setValue(value, forKey: key)
      }
    } catch {
      throw forcedFailure(error, key: key) ?? Failure(error)
    }
  }

  /// The message for a write the library refused because a managed layer forces the key
  /// (``SettingsError/Code/forcedValue``): it names the key and the layer's file; `nil` for any
  /// other error.
  private func forcedFailure(_ error: SettingsError, key: String) -> Failure? {
    guard error.code == .forcedValue, let source = forcingSource(ofKey: error.key ?? key) else {
      return nil
    }
    return Failure.forced(error.key ?? key, by: source, verb: "write")
  }

  func update(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(Failure) -> PropertyListValue
  ) throws(Failure) {
    // What a read-only layer below data.plist holds shows through when data.plist lacks the key.
    let below = store.layers.drop { $0 != .persistent }.dropFirst()
    let lower = below.lazy.compactMap { store.value(forKey: key, in: $0) }.first
    var failure: Failure?
    do {
      _ = try withStandardErrorSilenced { () throws(SettingsError) in
        try store.update(forKey: key) { current throws(SettingsError) in
          do throws(Failure) {
            return try transform(current ?? lower)
          } catch {
            failure = error
            throw SettingsError(.valueNotRepresentable, key: key, reason: error.message)
          }
        }
      }
    } catch {
      throw failure ?? forcedFailure(error, key: key) ?? Failure(error)
    }
  }

  func save() throws(Failure) {
    _ = try Failure.fromLibrary { () throws(SettingsError) in try store.saveIfNeeded() }
  }
}

/// A `UserDefaults` suite, through `UserDefaultsBackend`, flushed with `synchronize()`.
struct SuiteDomain: WritableDomain {
  let backend: UserDefaultsBackend

  /// The suite's own values: its persistent domain, never the argument domain (`UserDefaults`
  /// would read this process's `-key value` arguments as values) or registration defaults.
  var values: [String: PropertyListValue] { backend.dictionaryRepresentation() }

  func ownValue(forKey key: String) -> PropertyListValue? { values[key] }

  func readOnlySource(ofKey key: String) -> String? { nil }

  func forcingSource(ofKey key: String) -> String? { nil }

  func setValue(_ value: PropertyListValue?, forKey key: String) throws(Failure) {
    try Failure.fromLibrary { () throws(SettingsError) in try backend.setValue(value, forKey: key) }
  }

  func update(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(Failure) -> PropertyListValue
  ) throws(Failure) {
    // The suite lock is held: no other `settings` process can write between read and write.
    try setValue(try transform(values[key]), forKey: key)
  }

  func save() throws(Failure) {
    guard backend.synchronize() else {
      let file = backend.fileURL.map { " to '\($0.path)'" } ?? ""
      throw Failure("Cannot save the UserDefaults suite '\(backend.suiteName ?? "")'\(file)")
    }
  }
}
