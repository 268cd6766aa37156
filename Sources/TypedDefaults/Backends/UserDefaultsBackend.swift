import Dispatch
import Foundation

/// A backend over Foundation's `UserDefaults`: the standard defaults or a suite.
///
/// ```swift
/// let settings = PlayerSettings(backend: UserDefaultsBackend(suiteName: "com.example.player"))
/// ```
///
/// Values are stored as the native objects other code expects: a `[String]` setting is an array
/// of strings that `array(forKey:)` returns, a `Date` setting is a date. Reads use
/// `object(forKey:)` and convert in the library's own code, never through Foundation's typed
/// getters (`integer(forKey:)`, `bool(forKey:)`), which coerce differently on Linux and on Apple
/// platforms.
///
/// ## Sources
///
/// ``value(forKey:)`` sees everything `object(forKey:)` sees: the suite's own values, and also
/// `UserDefaults`' argument domain (launching with `-volume 0.5` makes `volume` read `0.5`),
/// the global domain on Apple platforms, and registration defaults from `register(defaults:)`.
/// ``dictionaryRepresentation()`` and ``keys`` list only the suite's own (persistent) domain.
///
/// ## Durability
///
/// On Apple platforms the system persists writes on its own. On Linux, swift-corelibs-foundation
/// writes nothing to disk until `synchronize()` is called, so this backend does it for you: a
/// write schedules a flush ``flushDelay`` seconds later (coalescing bursts of writes into one),
/// and any write not yet flushed is flushed when the process exits normally (by returning from
/// `main` or calling `exit()`). A process killed by a signal loses writes made since the last
/// flush; call ``synchronize()`` after writes that must survive that.
///
/// On Linux a suite lives in `$XDG_CONFIG_HOME/<suite>.plist` (default `~/.config`), and the
/// standard defaults in `<process name>.plist` there.
///
/// Thread-safe: `UserDefaults` is thread-safe, and the backend's own state is behind a lock.
public final class UserDefaultsBackend: SettingsBackend, @unchecked Sendable {
  // @unchecked Sendable: `UserDefaults` is documented thread-safe but swift-corelibs-foundation
  // does not mark it Sendable; every other stored property is immutable or behind a lock.

  /// The underlying `UserDefaults`.
  public let userDefaults: UserDefaults
  /// The suite's name, or `nil` for the standard defaults.
  public let suiteName: String?
  /// `UserDefaults(suite: <name>)` or `UserDefaults(standard)`, for diagnostics.
  public let name: String
  /// How long after a write the backend flushes it to disk on Linux, in seconds: 0.5 by default.
  /// Has no effect on Apple platforms, where the system persists writes itself.
  public let flushDelay: Double

  private let domainName: String
  private let flushScheduled = Locked(false)

  /// Creates a backend over a suite (a named `UserDefaults` domain), as
  /// `UserDefaults(suiteName:)` does.
  ///
  /// - Parameters:
  ///   - suiteName: The suite's name, typically a reverse-DNS identifier such as
  ///     `com.example.player`.
  ///   - flushDelay: Seconds between a write and its flush to disk on Linux; 0.5 by default.
  /// - Precondition: Foundation accepts the name. `UserDefaults(suiteName:)` refuses the global
  ///   domain's name and, on Apple platforms, the app's own bundle identifier.
  public convenience init(suiteName: String, flushDelay: Double = 0.5) {
    guard let defaults = UserDefaults(suiteName: suiteName) else {
      preconditionFailure("UserDefaults refuses the suite name '\(suiteName)'")
    }
    self.init(defaults, suiteName: suiteName, flushDelay: flushDelay)
  }

  /// Creates a backend over an existing `UserDefaults` instance.
  ///
  /// - Parameters:
  ///   - userDefaults: The instance to read and write; `.standard` by default.
  ///   - suiteName: The suite `userDefaults` was created with, or `nil` for the standard
  ///     defaults. It names the persistent domain that ``dictionaryRepresentation()`` lists.
  ///   - flushDelay: Seconds between a write and its flush to disk on Linux; 0.5 by default.
  public init(
    _ userDefaults: UserDefaults = .standard, suiteName: String? = nil, flushDelay: Double = 0.5
  ) {
    self.userDefaults = userDefaults
    self.suiteName = suiteName
    self.flushDelay = flushDelay
    self.domainName =
      suiteName ?? Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    self.name = suiteName.map { "UserDefaults(suite: \($0))" } ?? "UserDefaults(standard)"
  }

  // MARK: - Reading and writing

  /// Returns the value `UserDefaults.object(forKey:)` returns for the key, converted.
  ///
  /// - Parameter key: The key to look up.
  /// - Returns: The value, or `nil` if no domain has the key, or if its value is not a
  ///   property-list value (something another library stored); the latter is reported as a
  ///   ``SettingsDiagnostic``.
  public func value(forKey key: String) -> PropertyListValue? {
    guard let object = userDefaults.object(forKey: key) else { return nil }
    do {
      return try FoundationBridge.value(from: object)
    } catch {
      SettingsDiagnostics.report(
        SettingsDiagnostic(
          kind: .typeMismatch,
          key: key,
          backend: name,
          message:
            "'\(key)' in \(name) holds something that is not a property list: \(error.reason)"
        )
      )
      return nil
    }
  }

  /// Stores a value with `UserDefaults.set(_:forKey:)`, or removes the key with
  /// `removeObject(forKey:)` when `value` is `nil`, then schedules a flush to disk (Linux).
  ///
  /// On Linux, where swift-corelibs-foundation keeps suites as XML property lists, the value is
  /// stored as the file will give it back after a relaunch: dates rounded down to whole seconds
  /// and `-0.0` as `0.0`; so it reads the same now and after a relaunch.
  ///
  /// - Parameters:
  ///   - value: The value to store, or `nil` to remove the key.
  ///   - key: The key to write.
  /// - Throws: On Linux, ``SettingsError/Code/valueNotRepresentable`` for a string or key that
  ///   starts with U+FEFF (a byte-order mark), which the XML file would drop.
  public func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    if var value {
      #if !canImport(Darwin)
        value = try XMLPropertyListRules.normalized(value, key: key)
      #endif
      userDefaults.set(FoundationBridge.object(from: value), forKey: key)
    } else {
      userDefaults.removeObject(forKey: key)
    }
    scheduleFlush()
  }

  /// Removes the key from the suite with `UserDefaults.removeObject(forKey:)`. A value for the
  /// key in the argument or registration domain stays visible.
  ///
  /// - Parameter key: The key to remove.
  public func removeValue(forKey key: String) {
    userDefaults.removeObject(forKey: key)
    scheduleFlush()
  }

  /// Returns the suite's own values: its persistent domain, without the argument, global and
  /// registration domains.
  ///
  /// - Returns: The suite's keys and values; values that are not property lists are left out.
  public func dictionaryRepresentation() -> [String: PropertyListValue] {
    let domain = userDefaults.persistentDomain(forName: domainName) ?? [:]
    var result: [String: PropertyListValue] = [:]
    for (key, object) in domain {
      if let value = try? FoundationBridge.value(from: object) { result[key] = value }
    }
    return result
  }

  // MARK: - Durability

  /// Writes pending changes to disk now and reads changes other processes saved, with
  /// `UserDefaults.synchronize()`.
  ///
  /// - Returns: What `UserDefaults.synchronize()` returns: `true` on success.
  @discardableResult
  public func synchronize() -> Bool {
    flushScheduled.withLock { $0 = false }
    PendingFlushes.remove(self)
    return userDefaults.synchronize()
  }

  private func scheduleFlush() {
    #if !canImport(Darwin)
      let alreadyScheduled = flushScheduled.withLock { scheduled in
        defer { scheduled = true }
        return scheduled
      }
      guard !alreadyScheduled else { return }
      PendingFlushes.add(self)
      DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + flushDelay) { [self] in
        if flushScheduled.withLock({ $0 }) { _ = synchronize() }
      }
    #endif
  }
}

/// The backends with writes not yet flushed, flushed at normal process exit.
private enum PendingFlushes {
  private static let backends = Locked<[ObjectIdentifier: UserDefaultsBackend]>([:])
  private static let exitHandlerInstalled: Bool = {
    atexit { PendingFlushes.flushAll() }
    return true
  }()

  static func add(_ backend: UserDefaultsBackend) {
    _ = exitHandlerInstalled
    backends.withLock { $0[ObjectIdentifier(backend)] = backend }
  }

  static func remove(_ backend: UserDefaultsBackend) {
    _ = backends.withLock { $0.removeValue(forKey: ObjectIdentifier(backend)) }
  }

  static func flushAll() {
    let pending = backends.withLock { Array($0.values) }
    for backend in pending {
      backend.synchronize()
    }
  }
}
