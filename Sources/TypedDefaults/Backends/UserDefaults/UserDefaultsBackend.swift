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

  /// The backend over `UserDefaults.standard`, the app's own domain.
  public static let standard = UserDefaultsBackend()

  /// Creates a backend over `UserDefaults.standard`, the app's own domain.
  ///
  /// - Parameter flushDelay: Seconds between a write and its flush to disk on Linux; 0.5 by
  ///   default.
  public convenience init(flushDelay: Double = 0.5) {
    self.init(.standard, suiteName: nil, flushDelay: flushDelay)
  }

  /// Creates a backend over a suite (a named `UserDefaults` domain), as
  /// `UserDefaults(suiteName:)` does.
  ///
  /// On Linux, a suite file that exists but is corrupt (CoreFoundation would silently treat the
  /// suite as empty, then overwrite the file at the next save) is first moved aside, to
  /// `<suite>.plist.corrupt-<date>` beside it, and reported as a ``SettingsDiagnostic``.
  ///
  /// - Parameters:
  ///   - suiteName: The suite's name, typically a reverse-DNS identifier such as
  ///     `com.example.player`.
  ///   - flushDelay: Seconds between a write and its flush to disk on Linux; 0.5 by default.
  /// - Precondition: The name is not empty and holds no `/` (on Linux it names a file), and
  ///   Foundation accepts it: `UserDefaults(suiteName:)` refuses the global domain's name and, on
  ///   Apple platforms, the app's own bundle identifier.
  public convenience init(suiteName: String, flushDelay: Double = 0.5) {
    precondition(
      !suiteName.isEmpty && !suiteName.contains("/"),
      "'\(suiteName)' is not a valid suite name: it must be non-empty and hold no '/'"
    )
    #if !canImport(Darwin)
      Self.setAsideCorruptFile(of: suiteName)
    #endif
    guard let defaults = UserDefaults(suiteName: suiteName) else {
      preconditionFailure("UserDefaults refuses the suite name '\(suiteName)'")
    }
    self.init(defaults, suiteName: suiteName, flushDelay: flushDelay)
  }

  /// Creates a backend over an existing `UserDefaults` instance.
  ///
  /// - Parameters:
  ///   - userDefaults: The instance to read and write.
  ///   - suiteName: The suite `userDefaults` was created with, or `nil` for the standard
  ///     defaults. It names the persistent domain that ``dictionaryRepresentation()`` lists, so
  ///     it must match.
  ///   - flushDelay: Seconds between a write and its flush to disk on Linux; 0.5 by default.
  public init(_ userDefaults: UserDefaults, suiteName: String?, flushDelay: Double = 0.5) {
    self.userDefaults = userDefaults
    self.suiteName = suiteName
    self.flushDelay = flushDelay
    self.domainName =
      suiteName ?? Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    self.name = suiteName.map { "UserDefaults(suite: \($0))" } ?? "UserDefaults(standard)"
  }

  /// The file swift-corelibs-foundation keeps the domain in on Linux:
  /// `$XDG_CONFIG_HOME/<domain>.plist`, or `$HOME/.config/<domain>.plist`. `nil` on Apple
  /// platforms, where the system manages preference files.
  public var fileURL: URL? {
    #if canImport(Darwin)
      nil
    #else
      Self.fileURL(ofDomain: domainName)
    #endif
  }

  #if !canImport(Darwin)
    /// Where corelibs keeps a domain's file: it honours an absolute `XDG_CONFIG_HOME`, else
    /// `$HOME/.config` (`$HOME`, not the password database, as corelibs does).
    static func fileURL(ofDomain domain: String) -> URL {
      let environment = ProcessInfo.processInfo.environment
      let configHome: URL
      if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
        configHome = URL(fileURLWithPath: xdg, isDirectory: true)
      } else {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        configHome = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".config")
      }
      return configHome.appendingPathComponent("\(domain).plist")
    }

    /// Moves a corrupt suite file aside before CoreFoundation can treat it as empty and overwrite
    /// it, and reports it.
    ///
    /// CoreFoundation rewrites suite files in place, so another process may be halfway through
    /// writing one: a file is judged corrupt only if it stays unreadable and unchanged over three
    /// more reads 100 ms apart (CoreFoundation itself retries three times).
    private static func setAsideCorruptFile(of suiteName: String) {
      let file = PropertyListFile(url: fileURL(ofDomain: suiteName))
      guard let problem = persistentReadProblem(file) else { return }
      let name = "UserDefaults(suite: \(suiteName))"
      let message: String
      do {
        let aside = try CorruptFiles.moveAside(file.url)
        message = "\(problem); moved it to '\(aside.path)' and started the suite empty"
      } catch {
        message = "\(problem); could not move it aside: \(error.reason)"
      }
      SettingsDiagnostics.report(
        SettingsDiagnostic(kind: .corruptFile, key: nil, backend: name, message: message))
    }

    /// The error a file keeps giving, unchanged, over three more reads 100 ms apart; `nil` if it
    /// reads, is missing, keeps changing (another process is writing it), or can't be read for
    /// another reason (left to Foundation).
    private static func persistentReadProblem(_ file: PropertyListFile) -> SettingsError? {
      do {
        _ = try CorruptFiles.readDictionary(file, retryInterval: 0.1)
        return nil
      } catch  where error.code == .corruptFile || error.code == .wrongRootType {
        return error
      } catch {
        return nil
      }
    }
  #endif

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
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` for a value nested too deeply or
  ///   holding too many values to be read back; on Linux also for what its XML file can't hold: a
  ///   string or key starting with U+FEFF or holding a control character XML forbids, a
  ///   non-finite date. Nothing is changed when this throws.
  public func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    if var value {
      try WriteValidation.check(value, key: key)
      #if !canImport(Darwin)
        value = try XMLPropertyListRules.normalized(value, key: key)
      #endif
      userDefaults.set(FoundationBridge.object(from: value), forKey: key)
    } else {
      userDefaults.removeObject(forKey: key)
    }
    scheduleFlush()
    reportChanges(forKeys: CollectionOfOne(key))
  }

  /// Stores several values at once, all or nothing: an import.
  ///
  /// Every value is checked and converted first. On Linux the batch is then written with a
  /// `synchronize()` every 500 keys: swift-corelibs-foundation slows down quadratically when many
  /// keys change between two synchronizations (10,000 keys take seconds), and this keeps an import
  /// linear. Elsewhere the values are set one by one.
  ///
  /// - Parameter values: The keys and values to store.
  /// - Throws: What ``setValue(_:forKey:)`` throws, for the first value that can't be stored;
  ///   nothing is stored then.
  public func setValues(_ values: [String: PropertyListValue]) throws(SettingsError) {
    var objects: [(String, Any)] = []
    objects.reserveCapacity(values.count)
    for (key, value) in values {
      try WriteValidation.check(value, key: key)
      #if canImport(Darwin)
        objects.append((key, FoundationBridge.object(from: value)))
      #else
        objects.append(
          (key, FoundationBridge.object(from: try XMLPropertyListRules.normalized(value, key: key)))
        )
      #endif
    }
    for (index, (key, object)) in objects.enumerated() {
      userDefaults.set(object, forKey: key)
      #if !canImport(Darwin)
        if index % 500 == 499 { _ = userDefaults.synchronize() }
      #endif
    }
    scheduleFlush()
    reportChanges(forKeys: values.keys)
  }

  /// Removes the key from the suite with `UserDefaults.removeObject(forKey:)`. A value for the
  /// key in the argument or registration domain stays visible.
  ///
  /// - Parameter key: The key to remove.
  public func removeValue(forKey key: String) {
    userDefaults.removeObject(forKey: key)
    scheduleFlush()
    reportChanges(forKeys: CollectionOfOne(key))
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

  /// Flushes on the library's own initiative (after a write, at exit), reporting a failure, since
  /// no caller is there to see the result.
  fileprivate func flushReportingFailure() {
    guard !synchronize() else { return }
    let location = fileURL.map { " to '\($0.path)'" } ?? ""
    SettingsDiagnostics.report(
      SettingsDiagnostic(
        kind: .saveFailed,
        key: nil,
        backend: name,
        message: "UserDefaults.synchronize() failed to write \(name)\(location); its changes stay "
          + "in memory until a later synchronize() succeeds"
      )
    )
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
        if flushScheduled.withLock({ $0 }) { flushReportingFailure() }
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
      backend.flushReportingFailure()
    }
  }
}
