#if !canImport(Darwin)
  import Dispatch
  import Foundation

  /// The persistence of a `UserDefaults` suite on Linux, owned by ``UserDefaultsBackend``: the
  /// suite's values in memory, its file read and saved by the persistence engine
  /// (``PersistedPropertyListFile``: atomic replace, `flock` on `<suite>.plist.lock`, merge by
  /// file identity, recovery), and the process's `UserDefaults` kept in step without ever calling
  /// corelibs' `synchronize()` (which rewrites the file in place). See "UserDefaultsBackend on
  /// Linux" in Docs/Design.md.
  ///
  /// Locks: `state` guards the values; `mirrorLock` orders the writes into `UserDefaults` (taken
  /// while `state` is held, released after the writes, so they reach `UserDefaults` in the order
  /// the values changed without blocking reads); the engine's save lock
  /// (``PersistedPropertyListFile/exclusively(_:)``) serializes saves within the process. Lock
  /// order: the save lock, `state`, `mirrorLock`. No lock but the save lock is held across I/O.
  // @unchecked Sendable: `mirror` is only accessed while `mirrorLock` is held; `UserDefaults` is
  // thread-safe; everything else is immutable or a `Locked`.
  final class SuiteFile: @unchecked Sendable {
    /// What a save or read changes, under `state`.
    struct State {
      /// The suite's persistent domain as this process sees it.
      var values: [String: PropertyListValue]
      /// Keys changed here and not yet saved, with the number of their latest change.
      var unsaved = PersistedPropertyListFile.UnsavedChanges()
      /// The size rule every file the library saves follows (``EncodedSizeBudget``).
      var sizeBudget: EncodedSizeBudget
      /// The argument domain (``SuiteFile/arguments``), which a cell's value gives first.
      let arguments: [String: PropertyListValue]
      /// The cells of the keys that settings of a backend with the owner's promise are bound to.
      ///
      /// One per key such a setting (``UserDefaultsBackend/isWrittenOnlyThroughLibrary``) was
      /// bound to, holding the value ``UserDefaultsBackend/value(forKey:)`` reads
      /// (``readValue(forKey:)``); empty while no such setting was bound. Never removed, as in
      /// every backend with cells.
      var cells: [String: ValueCell] = [:]

      /// Sets a key's value (`nil`: removed), keeping the size bounds and the key's cell up to
      /// date.
      mutating func store(_ value: PropertyListValue?, forKey key: String) {
        values[key] = value
        sizeBudget.valueChanged(forKey: key, to: value)
        if !cells.isEmpty { updateCell(forKey: key) }
      }

      /// Puts ``readValue(forKey:)`` in the key's cell, if it has one: out of line, as every
      /// change of the suite stores through ``store(_:forKey:)`` (an app linking the backend
      /// would link one copy of a cell's update per caller).
      @inline(never)
      func updateCell(forKey key: String) {
        guard let cell = cells[key] else { return }
        let value = readValue(forKey: key)
        if cell.value != value { cell.value = value }
      }

      /// What a read of the key finds with no raw `UserDefaults` write to look for: the launch
      /// argument, else the suite's value, else the value registered through
      /// ``UserDefaultsBackend/register(defaults:)``.
      func readValue(forKey key: String) -> PropertyListValue? {
        if !arguments.isEmpty, let argument = arguments[key] { return argument }
        if let value = values[key] { return value }
        return UserDefaultsBackend.registeredDefaults.withLock { $0[key] }
      }

      /// The key's cell, created holding ``readValue(forKey:)`` if the key has none yet.
      mutating func cell(forKey key: String) -> ValueCell {
        if let cell = cells[key] { return cell }
        let cell = ValueCell.make(readValue(forKey: key))
        cells[key] = cell
        return cell
      }

      /// Brings the cells of keys whose registered value changed up to date.
      func registrationsChanged(_ keys: some Sequence<String>) {
        guard !cells.isEmpty else { return }
        for key in keys { updateCell(forKey: key) }
      }

      /// Takes in values another process saved (or a raw `UserDefaults` write), except for keys
      /// changed here and not saved; returns the keys whose values changed.
      mutating func adopt(_ contents: [String: PropertyListValue]) -> [String: PropertyListValue?] {
        var changed: [String: PropertyListValue?] = [:]
        for key in Set(contents.keys).union(values.keys)
        where !unsaved.contains(key) && values[key] != contents[key] {
          store(contents[key], forKey: key)
          changed[key] = .some(contents[key])
        }
        return changed
      }
    }

    /// What this backend knows `UserDefaults` holds for the suite, under `mirrorLock`.
    struct Mirror {
      /// What corelibs' persistent domain holds per key: what it held when the suite was opened
      /// (its copy, loaded once, which corelibs never refreshes), then each value the backend
      /// wrote there or found there.
      ///
      /// A key whose value in corelibs differs is a raw write.
      var known: [String: PropertyListValue]
      /// For keys with no persistent value, what `object(forKey:)` was last seen to answer from
      /// corelibs' registration domain: values other code registered directly with
      /// `register(defaults:)`, which are not stored values.
      var registered: [String: PropertyListValue] = [:]
      /// Keys this backend wrote into `UserDefaults`: corelibs holds them as changed, so a later
      /// `synchronize()` by other code writes them; values taken in from other processes for
      /// them are written too, so that such a rewrite writes current values.
      var pushed: Set<String> = []
      /// The number of each key's latest write into `UserDefaults`.
      var pushNumber: [String: UInt64] = [:]
      var pushCount: UInt64 = 0
    }

    let file: PropertyListFile
    let userDefaults: UserDefaults
    let domainName: String
    /// The name `persistentDomain(forName:)` answers the domain under (the suite's name, or for
    /// the standard defaults `UserDefaultsBackend.standardPersistentDomainName`).
    let persistentDomainName: String
    /// The argument domain (`-key value` launch arguments), which overrides the suite's values,
    /// read once, as corelibs does.
    let arguments: [String: PropertyListValue]
    let name: String
    let flushDelay: Double
    let state: Locked<State>
    private let mirrorLock = NSLock()
    private var mirror: Mirror
    /// Called with the keys whose values changed when other processes' or raw `UserDefaults`
    /// changes are taken in.
    let changesTakenIn: @Sendable (Set<String>) -> Void

    /// The engine that reads, recovers and saves the suite's file.
    let persisted: PersistedPropertyListFile

    /// The owner's promise on the suite (``UserDefaultsBackend/isWrittenOnlyThroughLibrary``):
    /// how many live backends on it made it, the raw writes found since that are not reported
    /// yet, and in debug builds the timer that samples the suite for them.
    private struct Promise {
      var makers = 0
      var unreported: Set<String> = []
      #if DEBUG
        var sampling: (any DispatchSourceTimer)?
      #endif
    }
    private let promise = Locked(Promise())

    init(
      userDefaults: UserDefaults, domainName: String, persistentDomainName: String, name: String,
      flushDelay: Double, changesTakenIn: @escaping @Sendable (Set<String>) -> Void
    ) {
      self.userDefaults = userDefaults
      self.domainName = domainName
      self.persistentDomainName = persistentDomainName
      var arguments: [String: PropertyListValue] = [:]
      for (key, object) in userDefaults.volatileDomain(forName: UserDefaults.argumentDomain) {
        if let value = try? FoundationBridge.value(from: object) { arguments[key] = value }
      }
      self.arguments = arguments
      self.name = name
      self.flushDelay = flushDelay
      self.changesTakenIn = changesTakenIn
      self.file = PropertyListFile(url: UserDefaultsBackend.fileURL(ofDomain: domainName))
      self.persisted = PersistedPropertyListFile(file: file, rules: .init(format: .binary))
      let (leftovers, opened) = persisted.open()
      // Unreadable for a reason other than its contents (permissions, a missing folder): start
      // empty with no known version, so a save re-reads the file and never writes over it; that
      // save's failure is reported.
      let initial = (try? opened.get()) ?? PersistedPropertyListFile.Read()
      let budget = EncodedSizeBudget(
        format: .binary, limit: file.maximumSize, bounds: initial.sizeBounds)
      state = Locked(
        State(values: initial.entries, sizeBudget: budget, arguments: arguments))
      // corelibs loads the suite at its first use and keeps that copy: what the copy holds (the
      // file as it was then, maybe older than what other processes saved since, and what this
      // process wrote into it) is no one's new write, and taking it for one saved old values
      // over newer ones. Loaded now at the latest, so that what other code writes through
      // `UserDefaults` from now on is told apart.
      mirror = Mirror(
        known: Self.persistentDomain(of: userDefaults, named: persistentDomainName))
      for recovery in leftovers + (initial.recovery.map { [$0] } ?? []) {
        recovery.report(backend: name)
      }
    }

    #if DEBUG
      deinit {
        promise.withLock { $0.sampling }?.cancel()
      }
    #endif

    // MARK: - The owner's promise

    /// Records that a backend on the suite was created with the owner's promise: from now on a
    /// raw write found is reported as a ``SettingsDiagnostic/Kind/rawUserDefaultsWrite``; in debug
    /// builds the suite is also compared with `UserDefaults` once a second (one copy of its
    /// domain), so that a raw write is reported, and taken in, even when nothing synchronizes.
    func notePromise() {
      let isFirst = promise.withLock { promise in
        promise.makers += 1
        return promise.makers == 1
      }
      #if DEBUG
        if isFirst { sampleForRawWrites(every: 1) }
      #else
        _ = isFirst
      #endif
    }

    /// Records that a backend that made the promise is gone: once none is left, raw writes are
    /// no longer reported, and a debug build's sampling stops.
    func withdrawPromise() {
      #if DEBUG
        // The sampling is taken under the same lock as the count, so that a promise made again
        // meanwhile keeps its own.
        let sampling = promise.withLock { promise -> (any DispatchSourceTimer)? in
          promise.makers -= 1
          guard promise.makers == 0 else { return nil }
          promise.unreported = []
          return promise.sampling.take()
        }
        sampling?.cancel()
      #else
        promise.withLock { promise in
          promise.makers -= 1
          if promise.makers == 0 { promise.unreported = [] }
        }
      #endif
    }

    #if DEBUG
      /// Compares the suite with `UserDefaults` every `interval` seconds from now on, replacing
      /// the comparisons scheduled before (``checkPromise()``); debug builds only.
      func sampleForRawWrites(every interval: Double) {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.setEventHandler { [weak self] in self?.checkPromise() }
        timer.schedule(
          deadline: .now() + interval, repeating: interval,
          leeway: .nanoseconds(Int(interval * 100_000_000)))
        let replaced = promise.withLock { promise in
          defer { promise.sampling = timer }
          return promise.sampling
        }
        replaced?.cancel()
        timer.resume()
      }

      /// Stops the comparisons ``sampleForRawWrites(every:)`` scheduled: for a test that must
      /// find a raw write itself.
      func stopSamplingForRawWrites() {
        promise.withLock { $0.sampling.take() }?.cancel()
      }

      /// Takes in raw `UserDefaults` writes and reports them as broken promises.
      ///
      /// What the debug build's sampling does. Called holding no lock.
      func checkPromise() {
        let changed = takeInUserDefaultsWrites()
        reportBrokenPromises()
        if !changed.isEmpty {
          scheduleFlush()
          changesTakenIn(changed)
        }
      }
    #endif

    /// Reports the raw writes found since the last report, if the suite was promised to be
    /// written only through the library.
    ///
    /// Called holding no lock: a diagnostics handler may use the suite.
    func reportBrokenPromises() {
      let keys = promise.withLock { promise -> [String] in
        defer { promise.unreported = [] }
        return promise.unreported.sorted()
      }
      for key in keys {
        SettingsDiagnostics.report(
          SettingsDiagnostic(
            kind: .rawUserDefaultsWrite, key: key, backend: name,
            message: """
              '\(key)' was changed by a raw UserDefaults call (set, removeObject(forKey:)), \
              though the suite's backend was created with writtenOnlyThroughLibrary: true: \
              settings read the new value only once it is taken in (by synchronize(), \
              reload(), the save at exit, or in a debug build within a second). Write it \
              through the backend, or create the backend without the promise.
              """))
      }
    }

    // MARK: - Reading and writing

    var values: [String: PropertyListValue] { state.withLock { $0.values } }

    /// The key's cell (see ``State/cells``).
    func cell(forKey key: String) -> ValueCell { state.withLock { $0.cell(forKey: key) } }

    /// What ``UserDefaultsBackend/value(forKey:)`` answers for a backend created with the
    /// owner's promise: the launch argument, the suite's value or the registered one, with no
    /// look at `UserDefaults`.
    func readValue(forKey key: String) -> PropertyListValue? {
      state.withLock { $0.readValue(forKey: key) }
    }

    /// What ``UserDefaultsBackend/storedValue(forKey:)`` answers for a backend created with the
    /// owner's promise.
    func storedValue(forKey key: String) -> PropertyListValue? {
      state.withLock { $0.values[key] }
    }

    /// What the suite holds for a key (its stored value), and else what corelibs' registration
    /// domain answers for it, after taking in a raw `UserDefaults` write or removal of the key
    /// made since the backend last looked (see "Sharing the suite" in ``UserDefaultsBackend``):
    /// what `object(forKey:)` answers is compared with what the backend knows corelibs holds,
    /// and only a difference costs more than that one lookup.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - hasNoArgument: Whether the caller found no launch argument for the key, which spares
    ///     looking for one again.
    /// - Returns: The suite's value for the key, or else (`stored` is `nil`) the registered one.
    func lookUp(
      _ key: String, hasNoArgument: Bool = false
    ) -> (stored: PropertyListValue?, registered: PropertyListValue?) {
      let seen = corelibsValue(forKey: key)
      let found = state.withLock {
        state -> (stored: PropertyListValue?, registered: PropertyListValue?)? in
        mirrorLock.lock()
        defer { mirrorLock.unlock() }
        guard isExpected(seen, forKey: key, hasNoArgument: hasNoArgument) else { return nil }
        return answer(forKey: key, seen: seen, in: state)
      }
      if let found { return found }
      return lookUpAfterARawChange(key)
    }

    /// ``lookUp(_:hasNoArgument:)``'s answer once `seen` is as expected; `mirrorLock` is held.
    private func answer(
      forKey key: String, seen: PropertyListValue?, in state: State
    ) -> (stored: PropertyListValue?, registered: PropertyListValue?) {
      if let stored = state.values[key] { return (stored, nil) }
      // With no persistent value in corelibs, what it answered came from its registration
      // domain; with one (a value another process since removed), the registration last seen.
      if mirror.known[key] == nil, arguments[key] == nil { return (nil, seen) }
      return (
        nil,
        mirror.registered[key] ?? UserDefaultsBackend.registeredDefaults.withLock { $0[key] }
      )
    }

    /// What `object(forKey:)` answers for the key (the argument domain, then the persistent
    /// domain, then the registration domain), converted; `nil` for something that isn't a
    /// property list.
    private func corelibsValue(forKey key: String) -> PropertyListValue? {
      guard let object = userDefaults.object(forKey: key) else { return nil }
      return try? FoundationBridge.value(from: object)
    }

    /// Whether `object(forKey:)` answering `seen` is what the backend knows of: the launch
    /// argument, else the persistent value it knows, or with none, nothing or a registered
    /// value.
    ///
    /// `mirrorLock` is held; `hasNoArgument` as in ``lookUp(_:hasNoArgument:)``.
    private func isExpected(
      _ seen: PropertyListValue?, forKey key: String, hasNoArgument: Bool = false
    ) -> Bool {
      // A launch argument hides the persistent value: a raw write under it is taken in by the
      // next comparison of the whole domain.
      if !hasNoArgument, !arguments.isEmpty, let argument = arguments[key] {
        return Self.same(seen, argument)
      }
      if let known = mirror.known[key] { return Self.same(seen, known) }
      guard let seen else { return true }
      if let registered = mirror.registered[key], Self.same(seen, registered) { return true }
      return UserDefaultsBackend.registeredDefaults.withLock { $0[key] }
        .map { Self.same(seen, $0) } ?? false
    }

    /// The slow path of ``lookUp(_:hasNoArgument:)``: `object(forKey:)` answered something
    /// unexpected.
    private func lookUpAfterARawChange(
      _ key: String
    ) -> (stored: PropertyListValue?, registered: PropertyListValue?) {
      // Looked at again with the backend's own writes into UserDefaults held off: one of them
      // may have come between the first look and the comparison.
      mirrorLock.lock()
      let expected = isExpected(corelibsValue(forKey: key), forKey: key)
      mirrorLock.unlock()
      if !expected {
        // Other code changed the suite, or registered a value: the persistent domain says which.
        let changed = takeInUserDefaultsWrites()
        reportBrokenPromises()
        mirrorLock.lock()
        if mirror.known[key] == nil, arguments[key] == nil {
          mirror.registered[key] = corelibsValue(forKey: key)
        }
        mirrorLock.unlock()
        if !changed.isEmpty {
          scheduleFlush()
          // Published off the reading thread: the reader may hold locks an observer needs.
          DispatchQueue.global().async { [changesTakenIn] in changesTakenIn(changed) }
        }
      }
      return state.withLock { state in
        mirrorLock.lock()
        defer { mirrorLock.unlock() }
        return answer(forKey: key, seen: corelibsValue(forKey: key), in: state)
      }
    }

    /// The suite's persistent domain as corelibs holds it in this process, converted (values
    /// that aren't property lists left out): a copy of the whole domain.
    static func persistentDomain(
      of userDefaults: UserDefaults, named name: String
    ) -> [String: PropertyListValue] {
      let domain = userDefaults.persistentDomain(forName: name) ?? [:]
      var current: [String: PropertyListValue] = [:]
      current.reserveCapacity(domain.count)
      for (key, object) in domain {
        if let value = try? FoundationBridge.value(from: object) { current[key] = value }
      }
      return current
    }

    /// Stores checked values (`nil`: removed) and writes them into `UserDefaults`.
    ///
    /// - Throws: ``SettingsError/Code/fileTooLarge`` if the file could no longer be saved with
    ///   them; nothing is changed then.
    func write(_ writes: [String: PropertyListValue?]) throws(SettingsError) {
      let objects = writes.mapValues { $0.map(FoundationBridge.object(from:)) }
      try changingValues(markPushed: true) { state throws(SettingsError) in
        try checkSize(of: writes.map { ($0.key, $0.value) }, in: &state)
        for (key, value) in writes {
          state.store(value, forKey: key)
          state.unsaved.mark(key)
        }
        return ((), { _ in writes.map { ($0.key, $0.value, objects[$0.key] ?? nil) } })
      }
    }

    /// Stores checked values in memory only, for an import that writes them into `UserDefaults`
    /// after its save (``pushCurrentValues(of:)``), so that the save comes first.
    ///
    /// - Throws: ``SettingsError/Code/fileTooLarge``, as ``write(_:)`` does.
    func writeWithoutPushing(_ writes: [String: PropertyListValue]) throws(SettingsError) {
      try state.withLock { state throws(SettingsError) in
        try checkSize(of: writes.map { ($0.key, Optional($0.value)) }, in: &state)
        for (key, value) in writes {
          state.store(value, forKey: key)
          state.unsaved.mark(key)
        }
      }
    }

    /// Throws if the file holding the suite's values with `writes` applied could be over its
    /// limit (the rule every file the library saves follows); `state`'s lock is held.
    private func checkSize(
      of writes: [(key: String, value: PropertyListValue?)], in state: inout State
    ) throws(SettingsError) {
      if !state.sizeBudget.isMeasured { state.sizeBudget.measure(state.values) }
      try state.sizeBudget.check(after: writes, path: file.url.path)
    }

    /// Throws if a file holding exactly `contents` could be over the limit: for an update.
    private func checkSize(
      ofContents contents: [String: PropertyListValue], changed: Set<String>
    ) throws(SettingsError) {
      try state.withLock { $0.sizeBudget }.check(
        contents: contents, changed: changed, path: file.url.path)
    }

    /// Writes values into `UserDefaults`, with `mirrorLock` held.
    private func pushLocked(_ pushes: [Push], markPushed: Bool) {
      for (key, value, object) in pushes {
        if let object {
          userDefaults.set(object, forKey: key)
        } else {
          userDefaults.removeObject(forKey: key)
        }
        mirror.known[key] = value
        mirror.pushCount &+= 1
        mirror.pushNumber[key] = mirror.pushCount
        if markPushed { mirror.pushed.insert(key) }
      }
    }

    /// Writes the current values of `keys` into `UserDefaults` (after an import's save).
    func pushCurrentValues(of keys: some Collection<String>) {
      changingValues(markPushed: true) { state in
        let pushes = keys.map { key in
          let value = state.values[key]
          return (key, value, value.map(FoundationBridge.object(from:)))
        }
        return ((), { _ in pushes })
      }
    }

    /// A write into `UserDefaults`: the key, its value (`nil`: removed) and that value as an
    /// object.
    private typealias Push = (String, PropertyListValue?, Any?)

    /// Changes the state under its lock, then writes into `UserDefaults` what `body` returns to
    /// write: `mirrorLock` is taken before `state`'s lock is released, so that the writes reach
    /// `UserDefaults` in the order the values changed, and released once they are done, without
    /// blocking reads meanwhile.
    ///
    /// Both locks are taken and released here, and only here.
    ///
    /// - Parameters:
    ///   - markPushed: Whether the keys written are recorded as written by the backend
    ///     (``Mirror/pushed``).
    ///   - body: Changes the state; returns its result and, given the mirror (under
    ///     `mirrorLock`), the writes to make.
    /// - Returns: The result `body` returns.
    /// - Throws: What `body` throws; nothing is written then.
    private func changingValues<Result, Failure: Error>(
      markPushed: Bool,
      _ body: (inout State) throws(Failure) -> (Result, (Mirror) -> [Push])
    ) throws(Failure) -> Result {
      let (result, pushes) = try state.withLock { state throws(Failure) in
        let (result, pushes) = try body(&state)
        mirrorLock.lock()
        return (result, pushes(mirror))
      }
      pushLocked(pushes, markPushed: markPushed)
      mirrorLock.unlock()
      return result
    }

    /// The writes into `UserDefaults` of values taken in from other processes: those of keys
    /// this backend wrote there (see ``Mirror/pushed``); `mirrorLock` is held.
    private static func pushes(
      forAdopted changed: [String: PropertyListValue?], in mirror: Mirror
    ) -> [Push] {
      changed.compactMap { key, value in
        mirror.pushed.contains(key) ? (key, value, value.map(FoundationBridge.object(from:))) : nil
      }
    }

    var hasUnsavedChanges: Bool { state.withLock { !$0.unsaved.isEmpty } }

    /// Whether corelibs holds `left` and `right` as one value: the same stored value (NaN is
    /// NaN, ``PropertyListValue/isIdentical(to:)``), except that an integer and a real of the
    /// same number are one, as CoreFoundation compares numbers: a `set` of `45.0` over `45` is a
    /// no-op that leaves `45`, which is no raw write.
    static func same(_ left: PropertyListValue?, _ right: PropertyListValue?) -> Bool {
      switch (left, right) {
      case (nil, nil): true
      case (let left?, let right?): same(left, right)
      default: false
      }
    }

    private static func same(_ left: PropertyListValue, _ right: PropertyListValue) -> Bool {
      switch (left, right) {
      case (.integer(let integer), .real(let real)), (.real(let real), .integer(let integer)):
        integer.int64Value.flatMap { Double(exactly: $0) } == real
          || integer.uint64Value.flatMap { Double(exactly: $0) } == real
      case (.array(let left), .array(let right)):
        left.count == right.count && zip(left, right).allSatisfy { same($0, $1) }
      case (.dictionary(let left), .dictionary(let right)):
        left.count == right.count
          && left.allSatisfy { key, value in right[key].map { same(value, $0) } ?? false }
      default:
        left.isIdentical(to: right)
      }
    }

    // MARK: - Raw UserDefaults writes

    /// Takes in what other code in the process wrote into the suite with raw `UserDefaults`
    /// calls since this backend last looked: keys whose value in the persistent domain differs
    /// from the one this backend last wrote there or saw there become local, unsaved changes.
    ///
    /// - Returns: The keys whose values changed.
    @discardableResult
    func takeInUserDefaultsWrites() -> Set<String> {
      mirrorLock.lock()
      let before = mirror.pushCount
      mirrorLock.unlock()
      let current = Self.persistentDomain(of: userDefaults, named: persistentDomainName)
      let changed = state.withLock { state -> Set<String> in
        mirrorLock.lock()
        defer { mirrorLock.unlock() }
        var changed: Set<String> = []
        for key in Set(current.keys).union(mirror.known.keys)
        where !Self.same(mirror.known[key], current[key]) {
          // A key this backend wrote while the domain was being copied: the copy is older.
          if let number = mirror.pushNumber[key], number > before { continue }
          mirror.known[key] = current[key]
          if current[key] != nil { mirror.registered[key] = nil }
          guard !Self.same(state.values[key], current[key]) else { continue }
          state.store(current[key], forKey: key)
          state.unsaved.mark(key)
          changed.insert(key)
        }
        return changed
      }
      if !changed.isEmpty {
        promise.withLock { promise in
          if promise.makers > 0 { promise.unreported.formUnion(changed) }
        }
      }
      return changed
    }

    // MARK: - Saving

    /// Saves the file if it has unsaved changes, else takes in other processes' saved changes.
    ///
    /// - Parameter takingInUserDefaults: Whether raw `UserDefaults` writes are taken in first.
    /// - Throws: ``SettingsError`` if the save fails (the changes then stay in memory) or, with
    ///   nothing to save, if the file can't be read again.
    func synchronize(takingInUserDefaults: Bool) throws(SettingsError) {
      try underSaveLock { () throws(SettingsError) in
        var changed = takingInUserDefaults ? takeInUserDefaultsWrites() : []
        if hasUnsavedChanges {
          changed.formUnion(try saveLocked(updating: { _ in [] }))
        } else {
          changed.formUnion(try reloadLocked())
        }
        return changed
      }
    }

    /// Runs `body` within the engine's ``PersistedPropertyListFile/exclusively(_:)``, then, with
    /// no lock held, reports the corrupt files it recovered from and the keys it returns as
    /// changed: a diagnostics handler or an observer may save, synchronize or update the suite.
    private func underSaveLock(
      _ body: () throws(SettingsError) -> Set<String>
    ) throws(SettingsError) {
      let (changed, recoveries) = try persisted.exclusively(body)
      for recovery in recoveries { recovery.report(backend: name) }
      reportBrokenPromises()
      if !changed.isEmpty { changesTakenIn(changed) }
    }

    /// Saves what is unsaved, or else takes in other processes' saved changes and writes
    /// nothing (see ``UserDefaultsBackend/save()``).
    func save() throws(SettingsError) { try synchronize(takingInUserDefaults: false) }

    /// See ``UserDefaultsBackend/update(forKey:_:)``.
    func update(
      forKey key: String,
      _ transform: (PropertyListValue?) throws(SettingsError) -> PropertyListValue?
    ) throws(SettingsError) -> PropertyListValue? {
      var stored: PropertyListValue?
      try underSaveLock { () throws(SettingsError) in
        var changed = try saveLocked(updating: { contents throws(SettingsError) in
          stored = try transform(contents[key])
          if let value = stored { try UserDefaultsBackend.checkStorable(value, forKey: key) }
          contents[key] = stored
          try checkSize(ofContents: contents, changed: [key])
          return [key]
        })
        changed.insert(key)
        return changed
      }
      return stored
    }

    /// See ``UserDefaultsBackend/updateValues(_:)``: ``update(forKey:_:)`` for any number of keys.
    func updateValues<Result>(
      _ transform: (inout [String: PropertyListValue]) throws(SettingsError) -> Result
    ) throws(SettingsError) -> Result {
      var result: Result?
      try underSaveLock { () throws(SettingsError) in
        var updatedKeys: [String] = []
        var changed = try saveLocked(
          updating: { contents throws(SettingsError) in
            var updated = contents
            result = try transform(&updated)
            for key in Set(contents.keys).union(updated.keys)
            where contents[key] != updated[key] {
              if let value = updated[key] {
                try UserDefaultsBackend.checkStorable(value, forKey: key)
              }
              updatedKeys.append(key)
            }
            try checkSize(ofContents: updated, changed: Set(updatedKeys))
            contents = updated
            return updatedKeys
          })
        changed.formUnion(updatedKeys)
        // Put what the update saw into `UserDefaults` too, and follow these keys from now on: a
        // key left as corelibs loads it later (lazily, from a newer file) would look like a raw
        // write at the next take-in, which would save that older value over other processes'.
        pushCurrentValues(of: changed)
        return changed
      }
      guard let result else { preconditionFailure("saveLocked(updating:) calls its closure") }
      return result
    }

    /// Re-reads the file if another process replaced or changed it, and takes in its values for
    /// keys not changed here; returns the keys whose values changed.
    ///
    /// Within the engine's ``PersistedPropertyListFile/exclusively(_:)``.
    func reloadLocked() throws(SettingsError) -> Set<String> {
      // What the file held as this process last read or wrote it, written back over a corrupt
      // file at once rather than leaving none until the next save (as the layered store does).
      let entries = try persisted.reloadLocked(held: {
        state.withLock { state in state.values.filter { !state.unsaved.contains($0.key) } }
      })
      guard let entries else { return [] }
      return changingValues(markPushed: false) { state in
        let changed = state.adopt(entries)
        return (Set(changed.keys), { Self.pushes(forAdopted: changed, in: $0) })
      }
    }

    /// Re-reads the file if another process changed it, without looking for raw `UserDefaults`
    /// writes (a file watch's event).
    func reloadFile() throws(SettingsError) {
      try underSaveLock { () throws(SettingsError) in try reloadLocked() }
    }

    func reload() throws(SettingsError) {
      try underSaveLock { () throws(SettingsError) in
        takeInUserDefaultsWrites().union(try reloadLocked())
      }
    }

    /// Saves under the file lock, merging with the file if another process changed it, after
    /// `update` changes the merged contents and returns the keys it changed; returns the keys
    /// whose values changed by the merge.
    ///
    /// Within the engine's ``PersistedPropertyListFile/exclusively(_:)``.
    private func saveLocked(
      updating update: (inout [String: PropertyListValue]) throws(SettingsError) -> [String]
    ) throws(SettingsError) -> Set<String> {
      let pending = state.withLock { state in
        state.unsaved.pending(contents: state.values) { state.values[$0] }
      }
      // As corelibs does, an empty suite has no file (`defaults delete` leaves none); in a fresh
      // home `~/.config` may not exist yet, and is created.
      let outcome = try persisted.saveLocked(
        pending, format: .binary, removesEmptyFile: true, createsFolder: true, updating: update)
      return changingValues(markPushed: false) { state in
        var changed: [String: PropertyListValue?] = [:]
        for key in state.unsaved.settle(after: outcome, of: pending) {
          let value = outcome.othersContents?[key]
          if state.values[key] != value {
            state.store(value, forKey: key)
            changed[key] = .some(value)
          }
        }
        if let others = outcome.othersContents {
          changed.merge(state.adopt(others)) { $1 }
        }
        return (
          Set(changed.keys),
          { mirror in
            var pushes = Self.pushes(forAdopted: changed, in: mirror)
            let pushed = Set(pushes.map(\.0))
            for key in outcome.updatedKeys where !pushed.contains(key) {
              if let value = changed[key] {
                pushes.append((key, value, value.map(FoundationBridge.object(from:))))
              }
            }
            return pushes
          }
        )
      }
    }

    // MARK: - Flushing

    /// Saves on the backend's own initiative (debounced flush, exit), reporting a failure.
    func flushReportingFailure(takingInUserDefaults: Bool) {
      do {
        try synchronize(takingInUserDefaults: takingInUserDefaults)
      } catch {
        SettingsDiagnostics.reportSaveFailure(error, backend: name)
      }
    }

    /// Schedules a save `flushDelay` seconds after the last of a burst of writes.
    func scheduleFlush() {
      persisted.scheduleDebouncedSave(interval: flushDelay) {
        { [weak self] in
          guard let self, self.hasUnsavedChanges else { return }
          self.flushReportingFailure(takingInUserDefaults: false)
        }
      }
    }
  }
#endif
