import Foundation

extension UserDefaultsBackend {
  /// The backend's reads and writes where the system owns the suite's file (Apple platforms):
  /// each is one call into `UserDefaults`, its values converted by ``FoundationBridge``.
  ///
  /// Compiled on every platform and tested on Linux against swift-corelibs-foundation's
  /// `UserDefaults`, which has the same calls, so what only Apple platforms run is the choice of
  /// this path in ``UserDefaultsBackend``'s methods (one line each). On Linux the backend keeps
  /// the suite itself (`SuiteFile`) and uses none of this. Thread-safe, as `UserDefaults` is.
  struct DirectAccess: @unchecked Sendable {
    // @unchecked Sendable: `UserDefaults` is documented thread-safe (swift-corelibs-foundation
    // doesn't mark it Sendable); the other properties are immutable strings.

    /// The instance read and written.
    let userDefaults: UserDefaults
    /// The name `persistentDomain(forName:)` answers the suite's own values under.
    let domainName: String
    /// The backend's name, for diagnostics.
    let backendName: String

    /// What `object(forKey:)` answers (arguments, the suite, the global domain, registrations),
    /// converted.
    ///
    /// - Parameter key: The key to look up.
    /// - Returns: The value, or `nil` if no domain has the key or its value isn't a property list
    ///   (reported as a ``SettingsDiagnostic`` of kind ``SettingsDiagnostic/Kind/typeMismatch``).
    func value(forKey key: String) -> PropertyListValue? {
      userDefaults.object(forKey: key).flatMap { converted($0, forKey: key) }
    }

    /// The suite's own value for the key: its persistent domain's.
    ///
    /// - Parameter key: The key to look up.
    /// - Returns: The value, or `nil` if the suite stores none or what it stores isn't a
    ///   property list.
    func storedValue(forKey key: String) -> PropertyListValue? {
      userDefaults.persistentDomain(forName: domainName)?[key]
        .flatMap { try? FoundationBridge.value(from: $0) }
    }

    /// Sets the key's value, or removes the key when `value` is `nil`.
    ///
    /// - Parameters:
    ///   - value: The value, already checked storable.
    ///   - key: The key to write.
    func set(_ value: PropertyListValue?, forKey key: String) {
      if let value {
        userDefaults.set(FoundationBridge.object(from: value), forKey: key)
      } else {
        userDefaults.removeObject(forKey: key)
      }
    }

    /// Sets several values, one by one.
    ///
    /// - Parameter values: The values, already checked storable, by key.
    func set(_ values: [String: PropertyListValue]) {
      for (key, value) in values { set(value, forKey: key) }
    }

    /// The suite's own values (its persistent domain), converted; values that are not property
    /// lists are left out.
    func dictionaryRepresentation() -> [String: PropertyListValue] {
      var result: [String: PropertyListValue] = [:]
      for (key, object) in userDefaults.persistentDomain(forName: domainName) ?? [:] {
        if let value = try? FoundationBridge.value(from: object) { result[key] = value }
      }
      return result
    }

    /// `UserDefaults.synchronize()`: on Apple platforms, waits for the system's pending writes
    /// and reads what other processes changed.
    ///
    /// - Returns: What `synchronize()` returns.
    func synchronize() -> Bool {
      userDefaults.synchronize()
    }

    /// An object read from `UserDefaults`, converted; `nil`, and a diagnostic, if it isn't a
    /// property list (something another library stored).
    ///
    /// - Parameters:
    ///   - object: What `object(forKey:)` returned.
    ///   - key: Its key, for the diagnostic.
    /// - Returns: The value, or `nil`.
    func converted(_ object: Any, forKey key: String) -> PropertyListValue? {
      do {
        return try FoundationBridge.value(from: object)
      } catch {
        SettingsDiagnostics.report(
          SettingsDiagnostic(
            kind: .typeMismatch, key: key, backend: backendName,
            message:
              "'\(key)' in \(backendName) holds something that is not a property list: "
              + error.reason))
        return nil
      }
    }
  }

  /// ``update(forKey:_:)`` where no lock is shared with other processes (Apple platforms, where
  /// the system owns the file): reads the key, transforms it, writes the result.
  ///
  /// One step within the process: it runs as one write through the library, holding the
  /// observers' ordering lock, which on Apple platforms every write of the suite made through the
  /// library holds (`SharedSuite.observers` serializes writes there), so none comes between the
  /// read and the write. Not across processes: another process's write made in between is lost,
  /// as is a raw `UserDefaults.set` of this process.
  ///
  /// - Parameters:
  ///   - key: The key to change.
  ///   - transform: Given the key's value (`nil` if none), returns the new value, or `nil` to
  ///     remove the key.
  /// - Returns: The value stored, or `nil` if the key was removed.
  /// - Throws: What `transform` throws, or what ``setValue(_:forKey:)`` throws for its result.
  func updateWithoutFileLock(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
  ) throws(SettingsError) -> PropertyListValue? {
    var value: PropertyListValue?
    try observers.recordingWrite(CollectionOfOne(key), of: self) { () throws(SettingsError) in
      value = try transform(self.value(forKey: key))
      try setValue(value, forKey: key)
    }
    return value
  }
}
