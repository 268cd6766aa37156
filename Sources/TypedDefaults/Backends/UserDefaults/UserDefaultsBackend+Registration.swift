import Foundation

/// A backend with a registration domain: defaults that code reading the store directly sees
/// while nothing is stored, kept in memory for this process only, never saved.
///
/// ``UserDefaultsBackend`` is one (`UserDefaults.register(defaults:)`). A model's
/// ``SettingsContainer/registerDefaults()`` puts its defaults there. Registered defaults are not
/// stored values: ``SettingsBackend/value(forKey:)`` doesn't return them, so
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
  /// Registered values are never stored values here: ``value(forKey:)`` returns `nil` for a key
  /// whose only value is the one registered through this method (by any backend of the
  /// process), so ``Setting/hasStoredValue`` stays `false` and the setting reads its declared
  /// default; ``dictionaryRepresentation()`` never lists them. Values other code registers
  /// directly with `UserDefaults.register(defaults:)` are not known to the library, and read as
  /// `object(forKey:)` returns them. On Apple platforms, where `object(forKey:)` doesn't say
  /// which domain answered, a stored value equal to the registered one also reads as `nil`
  /// through ``value(forKey:)`` (its setting reads the same value either way).
  ///
  /// - Parameter defaults: The values, by key.
  ///
  /// Thread-safe.
  public func register(defaults: [String: PropertyListValue]) {
    Self.registeredDefaults.withLock { $0.merge(defaults) { $1 } }
    userDefaults.register(defaults: defaults.mapValues(FoundationBridge.object(from:)))
  }

  /// Every value registered through ``register(defaults:)`` in this process, by key.
  static let registeredDefaults = Locked<[String: PropertyListValue]>([:])

  /// Whether `value` is what ``register(defaults:)`` registered for `key`.
  static func isRegistered(_ value: PropertyListValue, forKey key: String) -> Bool {
    registeredDefaults.withLock { !$0.isEmpty && $0[key] == value }
  }
}
