import Foundation

/// A backend with a registration domain: defaults that code reading the store directly sees
/// while nothing is stored, kept in memory for this process only, never saved.
///
/// ``UserDefaultsBackend`` is one (`UserDefaults.register(defaults:)`). A model's
/// ``SettingsContainer/registerDefaults()`` puts its defaults there. Registered defaults are not
/// stored values: ``SettingsBackend/storedValue(forKey:)`` doesn't return them, so
/// ``Setting/hasStoredValue``, snapshots and exports never count them.
public protocol RegistrationDomainBackend: SettingsBackend {
  /// Adds defaults to the backend's registration domain, replacing earlier registrations of the
  /// same keys, for this process only.
  ///
  /// - Parameter defaults: The values, by key.
  func register(defaults: [String: PropertyListValue])
}

extension UserDefaultsBackend: RegistrationDomainBackend {
  /// Registers defaults with `UserDefaults.register(defaults:)`, so that code reading
  /// `UserDefaults` directly (`object(forKey:)`, `bool(forKey:)`) gets them for keys with no
  /// stored value; replaces earlier registrations of the same keys.
  ///
  /// The registration domain is per process and never saved, as Foundation's is: another
  /// process (an app extension, a command-line tool) and the next launch don't see it until
  /// they register again, so never keep data there that must last (a value fetched from a
  /// server is a real value: store it). On Linux, Foundation's registration is process-wide:
  /// every suite of the process sees it.
  ///
  /// A registration sends no change event, here as in Foundation: a setting whose key it
  /// gives a new default reads it from its next read, and observers hear nothing.
  ///
  /// Registered values are read but never stored: ``value(forKey:)`` returns a key's registered
  /// value when the suite stores none, as `object(forKey:)` does, while
  /// ``storedValue(forKey:)`` never does, so ``Setting/hasStoredValue`` stays `false`, snapshots
  /// and exports leave them out, and ``dictionaryRepresentation()`` never lists them. The same
  /// holds for values other code registers directly with `UserDefaults.register(defaults:)`;
  /// such a registration sends no change event (Foundation tells no one of it), and on Linux
  /// it is read from the first read of its key after it, except by a backend created with the
  /// owner's promise (``isWrittenOnlyThroughLibrary``), which reads only what is registered
  /// here.
  ///
  /// - Parameter defaults: The values, by key.
  ///
  /// Thread-safe.
  public func register(defaults: [String: PropertyListValue]) {
    #if !canImport(Darwin)
      Self.registeredDefaults.withLock { $0.merge(defaults) { $1 } }
    #endif
    userDefaults.register(defaults: defaults.mapValues(FoundationBridge.object(from:)))
    #if !canImport(Darwin)
      // Foundation's registration is process-wide: the cells of every suite read it.
      for suite in Self.liveSharedSuites {
        suite.file.state.withLock { $0.registrationsChanged(defaults.keys) }
      }
    #endif
  }

  #if !canImport(Darwin)
    /// Every value registered through ``register(defaults:)`` in this process, by key: what
    /// `object(forKey:)` may answer for a key the suite doesn't store without that being a raw
    /// write (see `SuiteFile.lookUp(_:hasNoArgument:)`).
    static let registeredDefaults = Locked<[String: PropertyListValue]>([:])
  #endif
}
