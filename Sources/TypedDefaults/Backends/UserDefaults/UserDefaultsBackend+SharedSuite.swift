import Foundation

extension UserDefaultsBackend {
  /// What every ``UserDefaultsBackend`` on one domain shares within a process: its observers,
  /// so that a write through one instance reaches the observers of all; and on Linux, the
  /// suite's values and file (``SuiteFile``), so that every instance reads what any of them
  /// wrote and one of them saves it.
  ///
  /// Made by the first backend on a domain, and kept while some backend on it lives; the first
  /// backend's `UserDefaults` instance and flush delay are the ones used.
  final class SharedSuite: Sendable {
    #if canImport(Darwin)
      /// The observers; every write made through the library holds their ordering lock, so that
      /// an update (``UserDefaultsBackend/updateWithoutFileLock(forKey:_:)``) is one step within
      /// the process: no other write of the suite made through the library comes between its
      /// read and its write.
      let observers = ObserverRegistry(serializesWrites: true)
    #else
      /// The observers (an update is one step under the suite file's lock, see `SuiteFile`).
      let observers = ObserverRegistry()
    #endif
    #if !canImport(Darwin)
      let file: SuiteFile
      /// The backends on the domain, through which changes taken in are published.
      let members: Members
    #endif

    /// Creates what the backends on a domain share, for the first backend on it.
    ///
    /// - Parameters:
    ///   - userDefaults: The first backend's `UserDefaults` instance, which every backend on the
    ///     domain then uses.
    ///   - domainName: The domain's name, which names its file on Linux.
    ///   - persistentDomainName: The name `UserDefaults.persistentDomain(forName:)` answers the
    ///     domain under (on Linux, see `UserDefaultsBackend.standardPersistentDomainName`).
    ///   - name: The backend's name, for diagnostics.
    ///   - flushDelay: Seconds between the last of a burst of writes and their save on Linux.
    init(
      userDefaults: UserDefaults, domainName: String, persistentDomainName: String, name: String,
      flushDelay: Double
    ) {
      #if !canImport(Darwin)
        let members = Members()
        self.members = members
        file = SuiteFile(
          userDefaults: userDefaults, domainName: domainName,
          persistentDomainName: persistentDomainName, name: name, flushDelay: flushDelay,
          changesTakenIn: { keys in members.publish(keys) })
      #endif
    }
  }

  #if !canImport(Darwin)
    /// The live backends of a shared suite, held weakly.
    final class Members: Sendable {
      // @unchecked Sendable: the reference is weak and only read or written under the lock.
      private final class Member: @unchecked Sendable {
        weak var backend: UserDefaultsBackend?
        init(_ backend: UserDefaultsBackend) { self.backend = backend }
      }
      private let members = Locked<[Member]>([])

      func add(_ backend: UserDefaultsBackend) {
        members.withLock { members in
          members.removeAll { $0.backend == nil }
          members.append(Member(backend))
        }
      }

      /// Tells the suite's observers that `keys` changed, through any live backend (they all
      /// read the same values and share the observers).
      ///
      /// Called holding no lock.
      func publish(_ keys: Set<String>) {
        let backend = members.withLock { members in members.lazy.compactMap(\.backend).first }
        backend?.reportChanges(forKeys: keys)
      }
    }
  #endif

  /// The shared suites by domain (on Linux, by domain and file), held weakly.
  private static let sharedSuites = Locked<[String: WeakSharedSuite]>([:])

  // @unchecked Sendable: the reference is weak and only read or written under `sharedSuites`'s
  // lock.
  private final class WeakSharedSuite: @unchecked Sendable {
    weak var suite: SharedSuite?
    init(_ suite: SharedSuite) { self.suite = suite }
  }

  #if !canImport(Darwin)
    /// The suites of the process that some backend still uses.
    static var liveSharedSuites: [SharedSuite] {
      sharedSuites.withLock { table in table.values.compactMap(\.suite) }
    }
  #endif

  /// The suite shared by the backends on `domainName`, made with `make` if none is alive.
  static func sharedSuite(forKey key: String, make: () -> SharedSuite) -> SharedSuite {
    sharedSuites.withLock { table in
      if let suite = table[key]?.suite { return suite }
      if table.count >= 64 { table = table.filter { $0.value.suite != nil } }
      let suite = make()
      table[key] = WeakSharedSuite(suite)
      return suite
    }
  }
}
