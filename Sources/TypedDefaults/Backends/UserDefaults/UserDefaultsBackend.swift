import Dispatch
import Foundation

/// A backend over Foundation's `UserDefaults`: the standard defaults or a suite.
///
/// ```swift
/// let settings = PlayerSettings(backend: UserDefaultsBackend(suiteName: "com.example.player"))
/// ```
///
/// Values are stored as the native objects other code expects: a `[String]` setting is an array
/// of strings that `array(forKey:)` returns, a `Date` setting is a date. Values are converted in
/// the library's own code, never through Foundation's typed getters (`integer(forKey:)`,
/// `bool(forKey:)`), which coerce differently on Linux and on Apple platforms.
///
/// ## Sources, and what is stored
///
/// ``value(forKey:)`` sees what `object(forKey:)` sees, on every platform: `UserDefaults`'
/// argument domain first (launching with `-volume 0.5` makes `volume` read `0.5`), then the
/// suite's own values, then the registration domain (``register(defaults:)``, or other code's
/// `UserDefaults.register(defaults:)`), and the global domain on Apple platforms.
///
/// Only the suite's own (persistent) values are *stored*: ``storedValue(forKey:)``, and so
/// ``Setting/hasStoredValue`` and exports (``SettingsContainer/exportedValues(options:)``, and
/// an import of them into another store), count neither launch arguments nor registrations;
/// ``dictionaryRepresentation()`` and ``keys`` list only the suite's own domain. A registration
/// by other code sends no change event: Foundation tells no one of it (on Linux nothing could
/// see it short of polling); a setting reads it from its next read.
///
/// ## Durability on Apple platforms
///
/// The system persists writes on its own; ``synchronize()`` calls `UserDefaults.synchronize()`.
///
/// ## Durability and several processes on Linux
///
/// swift-corelibs-foundation rewrites a suite's file in place (a process killed in the middle
/// leaves it empty, and the next launch starts with no values), merges nothing between two
/// writers (two processes writing 1,200 keys lost 400 to 533), and can answer `nil` for a key a
/// thread just wrote. So on Linux this backend keeps the suite's values itself and saves the file
/// the way `LayeredPlistStore` saves `data.plist`; it never calls corelibs' `synchronize()`:
///
/// - **Saving.** A write is saved by a flush ``flushDelay`` seconds after the last of a burst of
///   writes, and at normal exit (returning from `main` or calling `exit()`); ``synchronize()``
///   and ``save()`` save at once. A save writes a temporary file, flushes it to disk and renames
///   it over the suite file, so a process killed at any moment leaves the previous or the new
///   complete file (checked by a test killing a saving process with SIGKILL at random moments,
///   100 times and more). ``setValues(_:)`` saves before it returns: an import is on disk whole
///   or not at all.
/// - **Several processes.** Saves take an advisory lock (`flock` on `<suite>.plist.lock`), re-read
///   the file if another process saved since this one last read it, and apply only this process's
///   changes: 2, 4 and 8 processes writing disjoint keys lose none. ``update(forKey:_:)`` changes
///   a value from the one on disk as one step (4 processes × 25 increments count 100).
///   Other processes' changes are taken in at every save and by ``reload()``.
/// - **Reads** answer from the backend's memory (a write is read back at once, by every thread),
///   after asking `UserDefaults` whether other code changed the key (see the next section);
///   with the owner's promise (``isWrittenOnlyThroughLibrary``), without asking.
/// - **Corrupt files.** A suite file that can't be read is moved aside to
///   `<suite>.plist.corrupt-<date>`, with the entries that can be read kept, and reported as a
///   ``SettingsDiagnostic``; a zero-byte file is an empty suite.
/// - **Format.** The file is a binary property list, which corelibs, `plutil` and `settings` read,
///   and which keeps dates to the fraction of a second; an XML file other programs wrote is read.
///
/// ## Sharing the suite with code that uses UserDefaults directly (Linux)
///
/// The same code behaves as on Apple platforms:
///
/// - Every write is also made to `UserDefaults`, so `UserDefaults(suiteName:)` in this process
///   reads it at once, and a new process (whatever it uses) reads it after the save.
/// - A raw `UserDefaults.set` or `removeObject(forKey:)` by other code in this process is seen
///   by the next read of the key: every read asks `object(forKey:)` and compares its answer with
///   what the backend last wrote or saw there. A difference costs one copy of the suite's
///   domain, which tells a raw write from a registration; a raw write is then taken in as this
///   process's own change (saved like any write, and reported to observers). A read costs what
///   `object(forKey:)` costs plus about a third (measured in Docs/Performance.md: 2.4 µs
///   against 1.7 µs); corelibs posts no notification that would allow less. Raw writes no read
///   has met are taken in by the next ``synchronize()`` or ``reload()``, and at exit. A raw
///   write of exactly the value registered for a key the suite doesn't store reads the same
///   either way, and counts as stored once taken in so. An app that makes no raw writes says so
///   with `writtenOnlyThroughLibrary: true` (``isWrittenOnlyThroughLibrary``), and reads then
///   cost what they cost on ``InMemoryBackend``.
/// - corelibs keeps the copy of the suite it loaded first (at the backend's creation at the
///   latest) and never refreshes it: other processes' changes are visible to raw `UserDefaults`
///   in this process only after a `UserDefaults.synchronize()`, as corelibs does. The backend
///   compares with that copy as it was, so it never takes a value of it, older than what another
///   process saved since, for this process's write.
/// - If other code calls `UserDefaults.synchronize()`, corelibs rewrites the file in place with
///   its view, which holds this backend's values; the backend's next save reads that file and
///   merges it, and saves it atomically again. Other processes' changes are visible to raw
///   `UserDefaults` in this process only after such a `synchronize()`, as corelibs does.
/// - Writing many distinct keys costs what corelibs takes to set them: every key a process
///   writes stays marked changed in corelibs for the process's life (the backend never lets
///   corelibs save, which would rewrite the file in place), and corelibs searches that list at
///   each new key, so the time grows with the square of the number of distinct keys written:
///   an import of 10,000 new keys takes 6 to 19 s (Docs/Performance.md), 24,000 keys written
///   one by one about 71 s. A suite of a few hundred keys doesn't notice.
///
/// A suite lives in `$XDG_CONFIG_HOME/<suite>.plist` (default `~/.config`), and the standard
/// defaults in `<process name>.plist` there; a save creates that folder, and any missing folder
/// above it, readable by its owner only (0700), as corelibs does.
///
/// Thread-safe: `UserDefaults` is thread-safe, and the backend's own state is behind locks.
public final class UserDefaultsBackend: SettingsBackend, @unchecked Sendable {
  // @unchecked Sendable: `UserDefaults` is documented thread-safe but swift-corelibs-foundation
  // does not mark it Sendable; every other stored property is immutable or behind a lock.

  /// The underlying `UserDefaults`.
  public let userDefaults: UserDefaults
  /// The suite's name, or `nil` for the standard defaults.
  public let suiteName: String?
  /// `UserDefaults(suite: <name>)` or `UserDefaults(standard)`, for diagnostics; on Linux with
  /// the file after a comma, `UserDefaults(standard, /home/me/.config/MyApp.plist)`.
  public let name: String
  /// How long after the last of a burst of writes the backend saves them on Linux, in seconds:
  /// 0.5 by default.
  ///
  /// Has no effect on Apple platforms, where the system persists writes itself.
  public let flushDelay: Double

  /// Whether the backend was created with the owner's promise that code in this process writes
  /// the suite only through the library (through a ``UserDefaultsBackend``, never with raw
  /// `UserDefaults` calls such as `set`, `removeObject(forKey:)` or `register(defaults:)`):
  /// `writtenOnlyThroughLibrary: true` at creation; `false` by default.
  ///
  /// On Linux, with the promise, reads no longer ask `UserDefaults` whether other code changed
  /// the key: a setting reads the suite's values from the backend's cells, with no lock for a
  /// `Bool`, integer or `Double`, as fast as on ``InMemoryBackend``. A raw write made anyway is
  /// taken in by the next ``synchronize()`` or ``reload()``, at exit, and when the last backend
  /// on the suite goes, and reported as a ``SettingsDiagnostic/Kind/rawUserDefaultsWrite``;
  /// debug builds also compare the suite with `UserDefaults` once a second, so that a broken
  /// promise is reported while the app runs. The promise holds for the suite while a backend
  /// that made it lives.
  /// Other processes' saved changes are taken in as without the promise (at every save, by
  /// ``reload()`` and by a watch).
  ///
  /// Without the promise, every read asks `object(forKey:)` first, so that a raw write in the
  /// process is read at once, as on Apple platforms (see "Sharing the suite" above).
  ///
  /// On Apple platforms the promise changes nothing: every read asks `UserDefaults`, which the
  /// system keeps current.
  public let isWrittenOnlyThroughLibrary: Bool

  #if !canImport(Darwin)
    /// The identity of the cells a backend with the owner's promise reads (see
    /// ``CellBackend/cellsIdentity``); Linux only, where the backend keeps cells.
    @usableFromInline package let cellsIdentity = CellsIdentity()
  #endif

  /// The reads and writes of Apple platforms, where the system owns the suite's file: one call
  /// into `userDefaults` each (on Linux, where the backend keeps the suite itself, only tests use
  /// it).
  let direct: DirectAccess

  /// The watch ``startWatching()`` set up, if any.
  let watch = Locked<ExternalWatch?>(nil)

  /// What the backends on this domain in the process share: observers, and on Linux values.
  let shared: SharedSuite

  #if !canImport(Darwin)
    /// The suite's values and file, shared with every backend on the suite in the process.
    let suite: SuiteFile
  #endif

  /// The backend over `UserDefaults.standard`, the app's own domain.
  public static let standard = UserDefaultsBackend()

  /// Creates a backend over `UserDefaults.standard`, the app's own domain.
  ///
  /// - Parameters:
  ///   - flushDelay: Seconds between the last of a burst of writes and their save on Linux; 0.5
  ///     by default.
  ///   - writtenOnlyThroughLibrary: The promise that code in this process changes the domain
  ///     only through a ``UserDefaultsBackend``, which lets reads skip asking `UserDefaults`
  ///     (see ``isWrittenOnlyThroughLibrary``); `false` by default.
  public convenience init(flushDelay: Double = 0.5, writtenOnlyThroughLibrary: Bool = false) {
    self.init(
      .standard, suiteName: nil, flushDelay: flushDelay,
      writtenOnlyThroughLibrary: writtenOnlyThroughLibrary)
  }

  /// Creates a backend over a suite (a named `UserDefaults` domain), as
  /// `UserDefaults(suiteName:)` does.
  ///
  /// On Linux the suite's file is read at once; a file that exists but is corrupt is moved aside,
  /// to `<suite>.plist.corrupt-<date>` beside it, with the entries that can be read kept, and
  /// reported as a ``SettingsDiagnostic``.
  ///
  /// - Parameters:
  ///   - suiteName: The suite's name, typically a reverse-DNS identifier such as
  ///     `com.example.player`.
  ///   - flushDelay: Seconds between the last of a burst of writes and their save on Linux; 0.5
  ///     by default.
  ///   - writtenOnlyThroughLibrary: The promise that code in this process changes the suite
  ///     only through a ``UserDefaultsBackend``, which lets reads skip asking `UserDefaults`
  ///     (see ``isWrittenOnlyThroughLibrary``); `false` by default.
  /// - Precondition: The name is a valid suite name: not empty, and holding no `/` and no control
  ///   character (Unicode's category Cc, a newline or a tab among them), since on Linux it names
  ///   a file; it is refused, not escaped, on every platform. And Foundation must accept it:
  ///   `UserDefaults(suiteName:)` refuses the global domain's name and, on Apple platforms, the
  ///   app's own bundle identifier. An invalid name stops the program with a message saying why,
  ///   in every build configuration: a suite name is the program's own, as a key is. Where
  ///   `UserDefaults(suiteName:)` would return `nil` for a name that comes from outside (an
  ///   argument, a configuration file), ask ``suiteNameProblem(_:)`` first.
  public convenience init(
    suiteName: String, flushDelay: Double = 0.5, writtenOnlyThroughLibrary: Bool = false
  ) {
    Self.checkSuiteName(suiteName)
    guard let defaults = UserDefaults(suiteName: suiteName) else {
      Self.refuse(suiteName, because: Self.foundationRefusal)
    }
    self.init(
      defaults, suiteName: suiteName, flushDelay: flushDelay,
      writtenOnlyThroughLibrary: writtenOnlyThroughLibrary)
  }

  /// Creates a backend over an existing `UserDefaults` instance.
  ///
  /// Every backend on one suite in a process shares one state: its observers, and on Linux,
  /// where the backend keeps the suite's file itself, its values and file, so that each backend
  /// reads what any of them wrote and observers registered on one hear of writes through
  /// another. The first backend's `userDefaults` and `flushDelay` are the ones used while any
  /// backend on the suite lives.
  ///
  /// - Parameters:
  ///   - userDefaults: The instance to read and write.
  ///   - suiteName: The suite `userDefaults` was created with, or `nil` for the standard
  ///     defaults. It names the persistent domain that ``dictionaryRepresentation()`` lists, so
  ///     it must match.
  ///   - flushDelay: Seconds between the last of a burst of writes and their save on Linux; 0.5
  ///     by default.
  ///   - writtenOnlyThroughLibrary: The promise that code in this process changes the suite
  ///     only through a ``UserDefaultsBackend``, which lets reads skip asking `UserDefaults`
  ///     (see ``isWrittenOnlyThroughLibrary``); `false` by default.
  /// - Precondition: A suite name is a valid one (see
  ///   ``init(suiteName:flushDelay:writtenOnlyThroughLibrary:)``).
  public init(
    _ userDefaults: UserDefaults, suiteName: String?, flushDelay: Double = 0.5,
    writtenOnlyThroughLibrary: Bool = false
  ) {
    if let suiteName { Self.checkSuiteName(suiteName) }
    self.userDefaults = userDefaults
    self.suiteName = suiteName
    self.flushDelay = flushDelay
    self.isWrittenOnlyThroughLibrary = writtenOnlyThroughLibrary
    let domainName =
      suiteName ?? Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    let domain = suiteName.map { "suite: \($0)" } ?? "standard"
    #if canImport(Darwin)
      let name = "UserDefaults(\(domain))"
    #else
      // The file too, as a file store's name has it: what a message names is then found.
      let name = "UserDefaults(\(domain), \(Self.fileURL(ofDomain: domainName).path))"
    #endif
    self.name = name
    #if canImport(Darwin)
      let sharingKey = domainName
      let persistentDomainName = domainName
    #else
      let persistentDomainName = suiteName ?? Self.standardPersistentDomainName
      let sharingKey = domainName + "\u{0}" + Self.fileURL(ofDomain: domainName).path
    #endif
    direct = DirectAccess(
      userDefaults: userDefaults, domainName: persistentDomainName, backendName: name)
    let shared = Self.sharedSuite(forKey: sharingKey) {
      SharedSuite(
        userDefaults: userDefaults, domainName: domainName,
        persistentDomainName: persistentDomainName, name: name,
        flushDelay: flushDelay)
    }
    self.shared = shared
    #if !canImport(Darwin)
      suite = shared.file
      if writtenOnlyThroughLibrary { suite.notePromise() }
      shared.members.add(self)
      ExitHandlers.register(self) { [weak suite = self.suite] in
        suite?.flushReportingFailure(takingInUserDefaults: true)
      }
    #endif
  }

  /// Why a name can't name a suite, or `nil` if it can: what
  /// ``init(suiteName:flushDelay:writtenOnlyThroughLibrary:)`` would stop the program for, as
  /// `UserDefaults(suiteName:)` returns `nil`.
  ///
  /// A name is refused when it is empty, holds a `/` or a control character (Unicode's category
  /// Cc: U+0000–U+001F, U+007F–U+009F, a newline or a tab among them), or when
  /// `UserDefaults(suiteName:)` refuses it (the global domain's name, and on Apple platforms the
  /// app's own bundle identifier).
  ///
  /// On Linux a suite is the file `<name>.plist` (corelibs' own rule, kept so that both name one
  /// file): a `/` would put it in another folder, and a control character in a file name is a
  /// hazard to every tool that lists or quotes it. The rule is the same on every platform, so
  /// that a name works wherever the code runs. Names are refused, not escaped: an escaped name
  /// would name another file than `UserDefaults(suiteName:)` writes.
  ///
  /// ```swift
  /// let name = "com.example.player"  // from an argument or a configuration file
  /// if let problem = UserDefaultsBackend.suiteNameProblem(name) {
  ///   print("Can't use the suite '\(name)': \(problem)")
  /// } else {
  ///   let backend = UserDefaultsBackend(suiteName: name)
  ///   print(backend.name)
  /// }
  /// ```
  ///
  /// - Parameter name: A suite name.
  /// - Returns: The reason, as `it holds a control character (U+000A)`, or `nil`.
  public static func suiteNameProblem(_ name: String) -> String? {
    if let problem = fileNameProblem(name) { return problem }
    return UserDefaults(suiteName: name) == nil ? foundationRefusal : nil
  }

  /// Why Foundation's `UserDefaults(suiteName:)` returns `nil`.
  private static let foundationRefusal =
    "UserDefaults refuses it (the global domain's name, or the app's own bundle identifier)"

  /// The part of ``suiteNameProblem(_:)`` that the name alone decides: empty, a `/`, a control
  /// character.
  package static func fileNameProblem(_ name: String) -> String? {
    if name.isEmpty { return "it is empty" }
    if name.contains("/") { return "it holds '/'" }
    let isControl = { (scalar: Unicode.Scalar) in scalar.properties.generalCategory == .control }
    if let control = name.unicodeScalars.first(where: isControl) {
      let code = String(control.value, radix: 16, uppercase: true)
      let padded = String(repeating: "0", count: 4 - code.count) + code
      return "it holds a control character (U+\(padded))"
    }
    return nil
  }

  /// Stops the program, saying why, if a name can't name a suite: a programming mistake.
  private static func checkSuiteName(_ name: String) {
    if let problem = fileNameProblem(name) { refuse(name, because: problem) }
  }

  /// Stops the program with the reason a suite name is refused; `fatalError`, not
  /// `preconditionFailure`, so that a release build says why too.
  private static func refuse(_ name: String, because problem: String) -> Never {
    fatalError(
      "'\(name.debugDescription.dropFirst().dropLast())' is not a valid suite name: \(problem)")
  }

  deinit {
    stopWatching()
    #if !canImport(Darwin)
      ExitHandlers.unregister(self)
      // Raw writes too, as the exit handler takes them in: the last backend on a suite, freed
      // before exit, would otherwise leave them unsaved for good (no save is due for them).
      let rawWrites = suite.takeInUserDefaultsWrites()
      if suite.hasUnsavedChanges { suite.flushReportingFailure(takingInUserDefaults: false) }
      suite.reportBrokenPromises()
      if !rawWrites.isEmpty { suite.changesTakenIn(rawWrites) }
      if isWrittenOnlyThroughLibrary { suite.withdrawPromise() }
    #endif
  }

  /// The file swift-corelibs-foundation keeps the domain in on Linux:
  /// `$XDG_CONFIG_HOME/<domain>.plist`, or `$HOME/.config/<domain>.plist`.
  ///
  /// `nil` on Apple platforms, where the system manages preference files.
  public var fileURL: URL? {
    #if canImport(Darwin)
      nil
    #else
      suite.file.url
    #endif
  }

  #if !canImport(Darwin)
    /// The name under which corelibs' `persistentDomain(forName:)` answers with the standard
    /// defaults as `UserDefaults.standard` holds them: CoreFoundation's name for the current
    /// application.
    ///
    /// Not the process name: under that name corelibs keeps a second, separate copy of the same
    /// file, which never sees writes through `UserDefaults.standard` (and answers `[:]` until
    /// something saves the file).
    static let standardPersistentDomainName = "kCFPreferencesCurrentApplication"

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
  #endif

  /// Checks a value can be stored, and on Linux that the suite file can hold it also if corelibs
  /// rewrites it as XML (when other code calls `UserDefaults.synchronize()`).
  static func checkStorable(_ value: PropertyListValue, forKey key: String) throws(SettingsError) {
    #if canImport(Darwin)
      try WriteValidation.check(value, key: key)
    #else
      _ = try PersistedPropertyListFile.storable(value, forKey: key, format: .binary)
      try XMLPropertyListRules.checkCharacters(value, key: key)
    #endif
  }

  // MARK: - Reading and writing

  /// Returns the key's value as `object(forKey:)` finds it: on Linux the argument domain first,
  /// then the suite's values from the backend's memory (after taking in a raw `UserDefaults`
  /// write of the key, see "Sharing the suite" above), then the registration domain; on Apple
  /// platforms what `object(forKey:)` returns.
  ///
  /// Converted either way.
  ///
  /// - Parameter key: The key to look up.
  /// - Returns: The value, or `nil` if no domain has the key, or if its value is not a
  ///   property-list value (something another library stored); the latter is reported as a
  ///   ``SettingsDiagnostic`` on Apple platforms (corelibs holds property lists only).
  public func value(forKey key: String) -> PropertyListValue? {
    #if !canImport(Darwin)
      if isWrittenOnlyThroughLibrary { return suite.readValue(forKey: key) }
      if !suite.arguments.isEmpty, let value = suite.arguments[key] { return value }
      let found = suite.lookUp(key, hasNoArgument: true)
      return found.stored ?? found.registered
    #else
      return direct.value(forKey: key)
    #endif
  }

  /// Returns the suite's own value for the key: its persistent domain's, without the argument
  /// domain (launch arguments) and the registration domain, which ``value(forKey:)`` also reads.
  ///
  /// What ``Setting/hasStoredValue``, snapshots and exports count as stored.
  ///
  /// On Linux a lookup in the backend's memory after the same check for raw `UserDefaults`
  /// writes as ``value(forKey:)``; on Apple platforms a copy of the persistent domain
  /// (`persistentDomain(forName:)`), so keep it off hot paths there.
  ///
  /// - Parameter key: The key to look up.
  /// - Returns: The stored value, or `nil` if the suite stores none (or something that is not a
  ///   property list).
  public func storedValue(forKey key: String) -> PropertyListValue? {
    #if !canImport(Darwin)
      if isWrittenOnlyThroughLibrary { return suite.storedValue(forKey: key) }
      return suite.lookUp(key).stored
    #else
      return direct.storedValue(forKey: key)
    #endif
  }

  /// Stores a value, or removes the key when `value` is `nil`, in `UserDefaults` too; on Linux
  /// the backend's memory holds it at once, and a save follows ``flushDelay`` seconds later.
  ///
  /// - Parameters:
  ///   - value: The value to store, or `nil` to remove the key.
  ///   - key: The key to write.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` for a value nested too deeply,
  ///   holding too many values to be read back, or holding a non-finite date (the check every
  ///   backend makes); on Linux also for a string or key holding a control character XML forbids
  ///   (corelibs rewrites the file as XML when other code calls `UserDefaults.synchronize()`); on
  ///   Linux ``SettingsError/Code/fileTooLarge``, naming the key, if the suite file holding the
  ///   value could be over its limit (16 MiB, the rule of every file the library saves), so that
  ///   no value is accepted that no save could write. Nothing is changed when this throws.
  public func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    if let value { try Self.checkStorable(value, forKey: key) }
    try RealStoreGuard.check(writingTo: fileURL, of: name)
    try observers.recordingWrite(CollectionOfOne(key), of: self) { () throws(SettingsError) in
      #if canImport(Darwin)
        direct.set(value, forKey: key)
      #else
        try suite.write([key: value])
        suite.scheduleFlush()
      #endif
    }
  }

  /// Stores several values at once, all or nothing: an import.
  ///
  /// Every value is checked first. On Linux the batch is then saved before this returns, in one
  /// atomic save (a process killed meanwhile leaves the file as it was before or after), and
  /// written into `UserDefaults` after the save (see "Sharing the suite" above for the cost). If
  /// the save fails, the values stay in memory, the failure is reported as a
  /// ``SettingsDiagnostic``, and the next save writes them. Elsewhere the values are set one by
  /// one.
  ///
  /// - Parameter values: The keys and values to store.
  /// - Throws: What ``setValue(_:forKey:)`` throws, for the first value that can't be stored;
  ///   nothing is stored then.
  public func setValues(_ values: [String: PropertyListValue]) throws(SettingsError) {
    for (key, value) in values { try Self.checkStorable(value, forKey: key) }
    try RealStoreGuard.check(writingTo: fileURL, of: name)
    try observers.recordingWrite(values.keys, of: self) { () throws(SettingsError) in
      #if canImport(Darwin)
        direct.set(values)
      #else
        try suite.writeWithoutPushing(values)
        suite.flushReportingFailure(takingInUserDefaults: false)
        suite.pushCurrentValues(of: values.keys)
      #endif
    }
  }

  /// Removes the key from the suite (and from `UserDefaults`' suite domain).
  ///
  /// A value for the key in the argument or registration domain stays visible.
  ///
  /// - Parameter key: The key to remove.
  public func removeValue(forKey key: String) {
    if RealStoreGuard.refuses(removing: key, from: fileURL, of: name) { return }
    observers.recordingWrite(CollectionOfOne(key), of: self) {
      #if canImport(Darwin)
        direct.set(nil, forKey: key)
      #else
        // A removal only makes the file smaller: the size check can't refuse it.
        try? suite.write([key: nil])
        suite.scheduleFlush()
      #endif
    }
  }

  /// Returns the suite's own values: its persistent domain, without the argument, global and
  /// registration domains.
  ///
  /// On Linux, the backend's values (raw `UserDefaults` writes are listed once taken in, see
  /// "Sharing the suite" above).
  ///
  /// - Returns: The suite's keys and values; values that are not property lists are left out.
  public func dictionaryRepresentation() -> [String: PropertyListValue] {
    #if !canImport(Darwin)
      return suite.values
    #else
      return direct.dictionaryRepresentation()
    #endif
  }

  // MARK: - Durability

  /// Whether the suite has changes this process hasn't saved (Linux); always `false` on Apple
  /// platforms, where the system saves.
  public var hasUnsavedChanges: Bool {
    #if canImport(Darwin)
      false
    #else
      suite.hasUnsavedChanges
    #endif
  }

  /// Saves now and takes in what others changed; on Apple platforms calls
  /// `UserDefaults.synchronize()`.
  ///
  /// On Linux: takes in raw `UserDefaults` writes of other code in this process, then saves if
  /// anything is unsaved (merging other processes' saved changes, under the suite's file lock)
  /// or else re-reads the file if another process changed it. A failure is reported as a
  /// ``SettingsDiagnostic`` too, and the changes stay in memory for the next save. Blocks for
  /// the save (about a millisecond for a small suite; mostly `fsync`).
  ///
  /// - Returns: `true` on success, `false` if the file could not be read or written.
  @discardableResult
  public func synchronize() -> Bool {
    #if canImport(Darwin)
      return direct.synchronize()
    #else
      do {
        try suite.synchronize(takingInUserDefaults: true)
        return true
      } catch {
        SettingsDiagnostics.reportSaveFailure(error, backend: name)
        return false
      }
    #endif
  }

  /// Saves the suite file now (Linux), merging other processes' saved changes under the file
  /// lock, as the debounced flush does; on Apple platforms calls `UserDefaults.synchronize()`.
  ///
  /// With nothing unsaved (``hasUnsavedChanges`` false) nothing is written: the save takes in
  /// other processes' saved changes, as ``reload()`` does, and the file keeps its inode and
  /// modification time. Unlike ``synchronize()`` it does not look for raw `UserDefaults` writes
  /// (which costs a copy of the whole domain), and it throws.
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the path and the cause (missing or
  ///   read-only folder, full disk, a lock that can't be taken, a corrupt file that could not be
  ///   moved aside); ``SettingsError/Code/fileNotReadable`` if another process left a file that
  ///   can't be read; with nothing unsaved, what ``reload()`` throws. The file is left as it was
  ///   and the changes stay in memory.
  public func save() throws(SettingsError) {
    #if canImport(Darwin)
      _ = direct.synchronize()
    #else
      try suite.save()
    #endif
  }

  /// Takes in what others changed without saving (Linux): raw `UserDefaults` writes of other
  /// code in this process (as unsaved changes of this process), and other processes' saved
  /// changes for keys this process hasn't changed since its last save.
  ///
  /// On Apple platforms calls `UserDefaults.synchronize()`.
  ///
  /// - Throws: ``SettingsError/Code/fileNotReadable`` if the file can't be read for a reason
  ///   other than its contents (a corrupt file is moved aside and reported instead).
  public func reload() throws(SettingsError) {
    #if canImport(Darwin)
      _ = direct.synchronize()
    #else
      try suite.reload()
    #endif
  }

  /// Changes a key's value from the value the suite file holds now, and saves, as one step that
  /// no other process's save can come between (Linux): for a counter or a list several
  /// processes append to.
  ///
  /// Under the suite's file lock: re-reads the file if another process changed it, calls
  /// `transform` with the key's value there (with this process's unsaved changes applied),
  /// stores the result and saves everything. On Apple platforms it reads, transforms and writes
  /// with no lock between processes: one step within the process (no write of the suite made
  /// through the library comes between), but another process's write made in between is lost.
  ///
  /// ```swift
  /// try backend.update(forKey: "launchCount") { .integer(.init(($0?.intValue ?? 0) + 1)) }
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key to change.
  ///   - transform: Given the key's current value (`nil` if none), returns the new value, or
  ///     `nil` to remove the key. Called once, holding the file lock: keep it short, and don't
  ///     use the backend inside it. What it throws is rethrown and nothing is changed.
  /// - Returns: The value stored, or `nil` if the key was removed.
  /// - Throws: What `transform` throws; what ``setValue(_:forKey:)`` throws for its result; what
  ///   ``save()`` throws. Nothing changes when this throws.
  @discardableResult
  public func update(
    forKey key: String,
    _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
  ) throws(SettingsError) -> PropertyListValue? {
    try RealStoreGuard.check(writingTo: fileURL, of: name)
    #if canImport(Darwin)
      return try updateWithoutFileLock(forKey: key, transform)
    #else
      var value: PropertyListValue?
      try observers.recordingWrite(CollectionOfOne(key), of: self) { () throws(SettingsError) in
        value = try suite.update(forKey: key, transform)
      }
      return value
    #endif
  }
}
