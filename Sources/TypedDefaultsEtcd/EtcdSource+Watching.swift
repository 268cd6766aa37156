import Dispatch
import Foundation
import TypedDefaults
import TypedDefaultsLayers

// The source's state, the full read of the prefix, and the background watch with its
// reconnection: what happens between the fleet and the layer.

extension EtcdSource {
  /// Everything that changes, under one lock.
  struct State: Sendable {
    var values: [String: PropertyListValue] = [:]
    /// The keys whose last value couldn't be decoded, with why (each keeps its last good value).
    var problems: [String: SettingsError] = [:]
    var revision: Int64 = 0
    var status = Status.notStarted
    var lastError: SettingsError?
    var cacheProblem: SettingsError?
    var lastKnownGoodSavedAt: Date?
    /// The endpoint to try first.
    var endpointIndex = 0
    /// An authentication token per endpoint (a simple token is a member's own).
    var tokens: [Int: String] = [:]
    var reporter: LayerSourceReporter?
    var isWatching = false
    /// Changes whenever the watch starts or stops: a watch thread of an older one ends.
    var generation: UInt64 = 0
    /// Wakes the current watch thread from a backoff delay: a new one for each watch, so a
    /// stop's signal that no thread took can't cut a later watch's delays short.
    var wake = DispatchSemaphore(value: 0)
    /// Whether a save of the last known good file is scheduled and hasn't taken its snapshot.
    var saveScheduled = false
    /// The values the last known good file holds (last saved or loaded), `nil` if unknown: a
    /// save of the same values is skipped.
    var savedValues: [String: PropertyListValue]?
    /// Whether values were applied since the last save took its snapshot.
    var needsSave = false
    /// How many watch connections in a row reached the server and failed before they held.
    ///
    /// A connection reached the server when its full read answered; it held once a message or a
    /// silent wait came ``EtcdSource/healthyConnectionTime`` after its `created` message. A
    /// streak is a server that accepts and then fails each watch. From
    /// ``EtcdSource/loopingThreshold`` on, the source is looping.
    var loopStreak = 0

    /// Whether the watch is looping: its server answers, but no watch of it holds.
    var isLooping: Bool { loopStreak >= EtcdSource.loopingThreshold }

    /// The layer's contents: the values, and the problems to report.
    var contents: LayerContents {
      var problems = self.problems.sorted { $0.key < $1.key }.map(\.value)
      if let cacheProblem { problems.append(cacheProblem) }
      if let lastError, case .offline = status {
        let fallback =
          lastKnownGoodSavedAt.map {
            "; the layer holds the last known good values, saved \($0.formatted(.iso8601))"
          } ?? (values.isEmpty ? "; the layer is empty" : "; the layer keeps the values it had")
        problems.append(
          SettingsError(lastError.code, path: lastError.path, reason: lastError.reason + fallback))
      }
      return LayerContents(values: values, problems: problems)
    }
  }

  private var name: String { "EtcdSource(\(layer): '\(prefix)')" }

  private func gateway(_ index: Int) -> EtcdGateway {
    EtcdGateway(
      endpoint: endpoints[index], timeout: options.timeout,
      maximumResponseSize: options.maximumResponseSize)
  }

  private var prefixBytes: [UInt8] { Array(prefix.utf8) }

  /// The end of the prefix's range: the prefix with its last byte incremented (`\0` for all
  /// keys when the prefix is empty or all `0xFF`).
  private var rangeEnd: [UInt8] {
    var end = prefixBytes
    while let last = end.last {
      if last < 0xFF {
        end[end.count - 1] = last + 1
        return end
      }
      end.removeLast()
    }
    return [0]
  }

  /// The token for an endpoint, authenticating first if there are credentials and none is held.
  private func token(
    for index: Int, isCancelled: @escaping () -> Bool
  ) throws(EtcdGateway.Failure) -> String? {
    guard let credentials else { return nil }
    if let token = state.withLock({ $0.tokens[index] }) { return token }
    let token = try gateway(index).authenticate(
      user: credentials.user, password: credentials.password, isCancelled: isCancelled)
    state.withLock { $0.tokens[index] = token }
    return token
  }

  /// Runs `body` with an endpoint's token, renewing it once if the server refuses it.
  private func withToken<Result>(
    at index: Int, isCancelled: @escaping () -> Bool,
    _ body: (String?) throws(EtcdGateway.Failure) -> Result
  ) throws(EtcdGateway.Failure) -> Result {
    do {
      return try body(try token(for: index, isCancelled: isCancelled))
    } catch .tokenRejected where credentials != nil {
      state.withLock { _ = $0.tokens.removeValue(forKey: index) }
      return try body(try token(for: index, isCancelled: isCancelled))
    }
  }

  /// The error a failure is, naming the endpoint (never a credential).
  private func settingsError(_ failure: EtcdGateway.Failure, at index: Int) -> SettingsError {
    let endpoint = Self.shown(endpoints[index])
    switch failure {
    case .authenticationFailed(let reason):
      return SettingsError(.fleetAuthenticationFailed, path: endpoint, reason: reason)
    case .tokenRejected(let reason):
      let hint =
        credentials == nil
        ? " (the cluster has authentication on: give the source credentials)"
        : " even after authenticating again"
      return SettingsError(.fleetAuthenticationFailed, path: endpoint, reason: reason + hint)
    default:
      return SettingsError(.fleetUnavailable, path: endpoint, reason: failure.reason)
    }
  }

  /// Reads the whole prefix from the first endpoint that answers (starting with the current
  /// one), makes it the endpoint to use, applies what it read (see
  /// ``applyAll(_:revision:from:appliedBefore:)``), reporting the keys that changed, and saves
  /// the last known good file.
  ///
  /// - Returns: `nil` on success, or the error naming the endpoints tried.
  ///
  /// - Parameter isCancelled: Ends the requests early.
  func fullRead(isCancelled: @escaping () -> Bool) -> SettingsError? {
    guard !endpoints.isEmpty else {
      let error = SettingsError(.fleetUnavailable, reason: "The source has no endpoint")
      state.withLock { state in
        state.lastError = error
        if state.status == .notStarted { state.status = .offline(lastKnownGoodSavedAt: nil) }
      }
      return error
    }
    let first = state.withLock { $0.endpointIndex }
    var failures: [SettingsError] = []
    for step in 0..<endpoints.count {
      let index = (first + step) % endpoints.count
      do {
        let appliedBefore = state.withLock { $0.revision }
        let (entries, revision) = try withToken(at: index, isCancelled: isCancelled) {
          token throws(EtcdGateway.Failure) in
          try gateway(index).range(
            key: prefixBytes, rangeEnd: rangeEnd, token: token, isCancelled: isCancelled)
        }
        state.withLock { $0.endpointIndex = index }
        applyAll(entries, revision: revision, from: index, appliedBefore: appliedBefore)
        return nil
      } catch .cancelled {
        return nil
      } catch {
        failures.append(settingsError(error, at: index))
      }
    }
    let error = Self.combined(failures)
    state.withLock { state in
      state.lastError = error
      state.status = .offline(lastKnownGoodSavedAt: state.lastKnownGoodSavedAt)
    }
    return error
  }

  /// Writes a key under the prefix to the first endpoint that answers.
  func put(_ bytes: [UInt8]?, forKey key: String) -> SettingsError? {
    let etcdKey = prefixBytes + Array(key.utf8)
    let first = state.withLock { $0.endpointIndex }
    var failures: [SettingsError] = []
    for step in 0..<endpoints.count {
      let index = (first + step) % endpoints.count
      do {
        _ = try withToken(at: index, isCancelled: { false }) { token throws(EtcdGateway.Failure) in
          try gateway(index).write(key: etcdKey, value: bytes, token: token, isCancelled: { false })
        }
        return nil
      } catch {
        failures.append(settingsError(error, at: index))
      }
    }
    return failures.isEmpty
      ? SettingsError(.fleetUnavailable, reason: "The source has no endpoint")
      : Self.combined(failures)
  }

  /// One error for the failures of a round: an authentication failure if there was one (that is
  /// what to fix), else every endpoint's cause.
  static func combined(_ failures: [SettingsError]) -> SettingsError {
    if let refused = failures.first(where: { $0.code == .fleetAuthenticationFailed }) {
      return refused
    }
    if failures.count == 1 { return failures[0] }
    return SettingsError(
      .fleetUnavailable,
      path: failures.compactMap(\.path).joined(separator: ", "),
      reason: "No endpoint answered: "
        + failures.map { "\($0.path ?? "?"): \($0.reason)" }.joined(separator: "; "))
  }

  /// The setting key of an etcd key, or why it can't name one (the prefix itself, not UTF-8),
  /// keyed in the layer's problems by the etcd key as shown.
  private func settingKey(_ key: [UInt8]) -> Result<String, SettingsError> {
    let shown = etcdKey(key)
    guard key.starts(with: prefixBytes) else {
      return .failure(
        SettingsError(
          .layerValueUnreadable, path: shown, reason: "The key '\(shown)' isn't under '\(prefix)'"))
    }
    guard let name = validatedUTF8(key.dropFirst(prefixBytes.count)) else {
      return .failure(
        SettingsError(
          .layerValueUnreadable, path: shown,
          reason: "The key '\(shown)' can't name a setting: it isn't UTF-8 text; the layer "
            + "leaves it out"))
    }
    guard !name.isEmpty else {
      return .failure(
        SettingsError(
          .layerValueUnreadable, path: shown,
          reason: "The key '\(shown)' is the prefix itself, which names no setting (a key name "
            + "left out?); the layer leaves it out"))
    }
    return .success(name)
  }

  /// Where the problem of an etcd key that names no setting is kept among the layer's problems,
  /// apart from the settings' own keys.
  private func problemSlot(ofUnusableKey key: [UInt8]) -> String {
    "\u{0}" + etcdKey(key)
  }

  /// The etcd key as messages show it.
  private func etcdKey(_ key: [UInt8]) -> String {
    String(decoding: key, as: UTF8.self)
  }

  /// Replaces the values with a full read, reporting the keys that changed.
  ///
  /// The read replaces the whole layer (a key it doesn't hold is gone), unless a watch event or
  /// another read overtook it: a read at revision `R` is applied when `R` is at least the
  /// revision applied now, or below the one applied when the read was sent (`appliedBefore`).
  /// Below that, the server's history is not the one the layer followed (a linearizable read
  /// is never older than what was committed before it was sent): its data was replaced, and
  /// what it holds now is the truth. Between the two, what the layer holds is newer than the
  /// read, which is dropped.
  ///
  /// - Parameters:
  ///   - entries: The keys and values read.
  ///   - revision: The revision they were read at.
  ///   - index: The endpoint that answered.
  ///   - appliedBefore: The revision applied when the read was sent.
  private func applyAll(
    _ entries: [EtcdGateway.KeyValue], revision: Int64, from index: Int, appliedBefore: Int64
  ) {
    var values: [String: PropertyListValue] = [:]
    var problems: [String: SettingsError] = [:]
    let held = state.withLock { $0.values }
    for entry in entries {
      let key: String
      switch settingKey(entry.key) {
      case .success(let name): key = name
      case .failure(let problem):
        problems[problemSlot(ofUnusableKey: entry.key)] = problem
        continue
      }
      do {
        values[key] = try EtcdValueEncoding.decode(
          entry.value, key: key, origin: etcdKey(entry.key))
      } catch {
        problems[key] = error
        if let previous = held[key] { values[key] = previous }
      }
    }
    let changed = state.withLock { state -> (keys: [String]?, reporter: LayerSourceReporter?)? in
      // A read a watch event overtook holds older values: what the layer has is newer.
      guard revision >= state.revision || revision < appliedBefore else { return nil }
      let keys = Set(state.values.keys).union(values.keys).filter { state.values[$0] != values[$0] }
      let newProblems = Set(problems.keys).subtracting(state.problems.keys)
      state.values = values
      state.problems = problems
      state.revision = revision
      state.needsSave = true
      // A looping server's reads are applied, but it isn't followed: the status says so.
      if !state.isLooping {
        state.status = .connected(endpoint: endpoints[index], revision: revision)
        state.lastError = nil
      }
      state.endpointIndex = index
      state.cacheProblem = nil
      // A problem that names no setting is reported by a read of the whole layer.
      let reports = newProblems.contains { $0.hasPrefix("\u{0}") } ? nil : keys.sorted()
      return (reports, state.reporter)
    }
    guard let changed else { return }
    if let keys = changed.keys {
      if !keys.isEmpty { changed.reporter?.reportChanges(forKeys: keys) }
    } else {
      changed.reporter?.reportChanges()
    }
    // On the save queue, so saves take their snapshots in the order they write them.
    if cache != nil, savesLastKnownGood { saveQueue.sync { saveLastKnownGood() } }
  }

  /// Applies one watch message's events, reporting the keys whose value changed.
  private func apply(_ message: EtcdGateway.WatchMessage, from index: Int) {
    guard !message.events.isEmpty else { return }
    var decoded: [(key: String, value: Result<PropertyListValue?, SettingsError>)] = []
    var unusable: [(slot: String, problem: SettingsError?)] = []
    var lastRevision: Int64 = 0
    for event in message.events {
      lastRevision = max(lastRevision, event.revision)
      let key: String
      switch settingKey(event.key) {
      case .success(let name): key = name
      case .failure(let problem):
        // Reported while the key exists; forgotten once it is deleted.
        unusable.append((problemSlot(ofUnusableKey: event.key), event.value == nil ? nil : problem))
        continue
      }
      guard let bytes = event.value else {
        decoded.append((key, .success(nil)))
        continue
      }
      decoded.append(
        (
          key,
          Result { () throws(SettingsError) in
            try EtcdValueEncoding.decode(bytes, key: key, origin: etcdKey(event.key))
          }.map { Optional($0) }
        ))
    }
    let changed = state.withLock { state -> (keys: [String]?, reporter: LayerSourceReporter?) in
      // In the order of the events (revision order), each key once.
      var keys: [String] = []
      for (key, value) in decoded {
        switch value {
        case .success(let value):
          state.problems.removeValue(forKey: key)
          if state.values[key] != value {
            state.values[key] = value
            if !keys.contains(key) { keys.append(key) }
          }
        case .failure(let error):
          // The last good value stays; the problem is reported with the layer's contents.
          state.problems[key] = error
          if !keys.contains(key) { keys.append(key) }
        }
      }
      var reportsAll = false
      for (slot, problem) in unusable {
        if let problem {
          reportsAll = reportsAll || state.problems[slot] == nil
          state.problems[slot] = problem
        } else {
          state.problems.removeValue(forKey: slot)
        }
      }
      state.revision = max(state.revision, lastRevision)
      state.needsSave = true
      if !state.isLooping {
        state.status = .connected(endpoint: endpoints[index], revision: state.revision)
      }
      return (reportsAll ? nil : keys, state.reporter)
    }
    if let keys = changed.keys {
      if !keys.isEmpty { changed.reporter?.reportChanges(forKeys: keys) }
    } else {
      changed.reporter?.reportChanges()
    }
    scheduleLastKnownGoodSave()
  }

  /// Saves the last known good file within 100 ms, off the watch thread, so the next watch
  /// message isn't held up by a save's `fsync`: changes that arrive while a save is scheduled
  /// are saved by it (it takes its snapshot when it runs), so a burst of changes costs one save.
  private func scheduleLastKnownGoodSave() {
    guard cache != nil, savesLastKnownGood else { return }
    let schedules = state.withLock { state in
      defer { state.saveScheduled = true }
      return !state.saveScheduled
    }
    guard schedules else { return }
    saveQueue.asyncAfter(deadline: .now() + Self.lastKnownGoodSaveDelay) { [self] in
      savePending()
    }
  }

  /// Makes the save that is scheduled now, if one is (on the save queue).
  private func savePending() {
    let due = state.withLock { state in
      defer { state.saveScheduled = false }
      return state.saveScheduled
    }
    if due { saveLastKnownGood() }
  }

  /// Saves the last known good file now if values were applied since the last save took its
  /// snapshot, waiting for the save and for any save under way (a scheduled one, a full read's).
  ///
  /// What the layer applied is on disk when this returns; a save scheduled is made now, and
  /// the scheduled one then finds nothing to do. Called as the watch stops, as the source goes,
  /// and at the process's normal exit; from the save queue itself (the source released by its
  /// last scheduled save), it saves directly rather than wait for itself. It always passes
  /// through the save queue, even with nothing to save: a save that has taken its snapshot
  /// leaves nothing needed or scheduled, yet its file isn't written until it ends (returning at
  /// once then left the file a change behind).
  func flushLastKnownGood() {
    guard cache != nil, savesLastKnownGood else { return }
    let flush = { [self] in
      let due = state.withLock { state in
        defer { state.saveScheduled = false }
        return state.needsSave || state.saveScheduled
      }
      if due { saveLastKnownGood() }
    }
    if DispatchQueue.getSpecific(key: Self.saveQueueKey) == true {
      flush()
    } else {
      saveQueue.sync(execute: flush)
    }
  }

  /// Marks the save queue, so that a flush can tell it runs on it.
  static let saveQueueKey = DispatchSpecificKey<Bool>()

  /// How long a change waits for others to share its save of the last known good file, in
  /// seconds.
  static let lastKnownGoodSaveDelay = 0.1

  /// Saves what the layer holds to the last known good file now, unless the file holds these
  /// values already (a read that changed nothing, or a revision moved by keys of other
  /// prefixes, doesn't rewrite and `fsync` it); a failure is a diagnostic (the next change
  /// tries again).
  private func saveLastKnownGood() {
    guard let cache, savesLastKnownGood else { return }
    let snapshot = state.withLock { state -> EtcdLastKnownGood.Snapshot? in
      state.needsSave = false
      guard state.values != state.savedValues else { return nil }
      return EtcdLastKnownGood.Snapshot(
        values: state.values, revision: state.revision, savedAt: Date())
    }
    guard let snapshot else { return }
    do {
      try cache.save(snapshot)
      state.withLock { state in
        state.lastKnownGoodSavedAt = snapshot.savedAt
        state.savedValues = snapshot.values
      }
    } catch {
      SettingsDiagnostics.report(
        SettingsDiagnostic(
          kind: .saveFailed, key: nil, backend: name,
          message: "\(error); the layer's values stay in memory, and the next change saves again"))
    }
  }

  /// How many watch connections in a row may reach the server and fail early before the source
  /// reports it as looping (``Status/offline(lastKnownGoodSavedAt:)``, with ``lastError``
  /// saying why).
  static let loopingThreshold = 3

  /// How long a watch connection must last to count as holding, in seconds.
  ///
  /// The longest reconnection delay, at least 0.1 s (so that a `created` message alone never
  /// counts). A connection that ends sooner is a failure however it ended (an error after a
  /// `created` message, a compaction, a replaced history, a message above the limit), so the
  /// next one waits for its backoff.
  var healthyConnectionTime: Double { max(options.reconnectDelay.upperBound, 0.1) }

  /// The watch thread: reads the whole prefix and watches from the revision after it, on one
  /// endpoint, reconnecting with backoff and moving between endpoints, until the watch stops.
  ///
  /// The resume rule: every watch connection starts with a full read of the prefix from the
  /// endpoint it watches, which replaces the layer's content, so a server whose history was
  /// replaced (a rebuilt cluster, at a higher or a lower revision) is never mixed with the one
  /// the layer followed, and a watcher that fell behind (a catch-up above the response limit)
  /// catches up by the read rather than by the watch. See Docs/Design.md, "Fleet source states".
  func watchLoop(generation: UInt64) {
    let isCancelled: @Sendable () -> Bool = { [weak self] in
      self?.state.withLock { $0.generation != generation } ?? true
    }
    let wake = state.withLock { $0.wake }
    var failedRounds = 0
    var failuresInRound: [SettingsError] = []
    while !isCancelled() {
      var reachedServer = false
      var createdAt: Date?
      var held = false
      var index = state.withLock { $0.endpointIndex }
      do {
        // Connecting: the whole prefix, from the first endpoint that answers.
        if let error = fullRead(isCancelled: isCancelled) {
          if isCancelled() { return }
          throw error
        }
        reachedServer = true
        failedRounds = 0
        failuresInRound = []
        index = state.withLock { $0.endpointIndex }
        let from = min(state.withLock { $0.revision }, EtcdGateway.largestRevision) + 1
        // Held once a message or a silent wait comes that long after `created`: a server that
        // drips a message that never ends doesn't hold.
        let healthy = { [self] in
          guard !held, let createdAt,
            Date().timeIntervalSince(createdAt) >= healthyConnectionTime
          else { return }
          held = true
          markHolding(at: index)
        }
        try withToken(at: index, isCancelled: isCancelled) { token throws(EtcdGateway.Failure) in
          let gateway = gateway(index)
          try gateway.watch(
            key: prefixBytes, rangeEnd: rangeEnd, startRevision: from, token: token,
            checkInterval: options.watchCheckInterval,
            check: { () throws(EtcdGateway.Failure) in
              try gateway.check(key: prefixBytes, token: token, isCancelled: isCancelled)
            },
            isCancelled: isCancelled,
            waited: healthy
          ) { message in
            if message.created {
              createdAt = createdAt ?? Date()
              state.withLock { state in
                guard !state.isLooping else { return }
                state.lastError = nil
                state.status = .connected(endpoint: endpoints[index], revision: state.revision)
              }
            }
            apply(message, from: index)
            healthy()
          }
        }
      } catch let error as EtcdGateway.Failure {
        if case .cancelled = error { return }
        failuresInRound.append(settingsError(error, at: index))
      } catch let error as SettingsError {
        // A full read that reached no endpoint: a whole round failed.
        failuresInRound = Array(repeating: error, count: max(1, endpoints.count))
      } catch {}
      if isCancelled() { return }
      let lastError = Self.combined(failuresInRound)
      if reachedServer {
        // The server answered, and its watch ended: unless it held, that's a failure too, and
        // the next connection waits for its backoff (never a tight loop of full reads).
        let streak = state.withLock { state -> Int in
          state.loopStreak = held ? 0 : state.loopStreak + 1
          state.endpointIndex = (index + 1) % max(1, endpoints.count)
          return state.loopStreak
        }
        failuresInRound = []
        guard streak > 0 else { continue }
        if streak >= Self.loopingThreshold { reportLooping(at: index, streak: streak, lastError) }
        _ = wake.wait(
          timeout: .now() + Self.backoff(round: streak - 1, within: options.reconnectDelay))
        continue
      }
      // The next endpoint; after a round in which none answered, the source is offline, and
      // waits before the next round.
      let roundFailed = failuresInRound.count >= endpoints.count
      state.withLock { state in
        state.endpointIndex = (index + 1) % max(1, endpoints.count)
        if roundFailed {
          state.lastError = lastError
          state.status = .offline(lastKnownGoodSavedAt: state.lastKnownGoodSavedAt)
        }
      }
      if roundFailed {
        let delay = Self.backoff(round: failedRounds, within: options.reconnectDelay)
        failedRounds += 1
        failuresInRound = []
        if failedRounds == 1 {
          SettingsDiagnostics.report(
            SettingsDiagnostic(
              kind: .layerSourceProblem, key: nil, backend: name,
              message: "\(lastError); keeping the layer's values and reconnecting"))
        }
        _ = wake.wait(timeout: .now() + delay)
      }
    }
  }

  /// The watch at `index` has held for ``healthyConnectionTime``: the source is connected, and
  /// a streak of failed connections ends.
  private func markHolding(at index: Int) {
    state.withLock { state in
      guard state.loopStreak > 0 else { return }
      state.loopStreak = 0
      state.lastError = nil
      state.status = .connected(endpoint: endpoints[index], revision: state.revision)
    }
  }

  /// Reports a looping server: offline in ``status`` (it isn't followed), why in ``lastError``,
  /// and a diagnostic as the streak reaches ``loopingThreshold``.
  private func reportLooping(at index: Int, streak: Int, _ cause: SettingsError) {
    let error = SettingsError(
      .fleetUnavailable, path: Self.shown(endpoints[index]),
      reason: "The server answers, but \(streak) watch connections in a row failed before they "
        + "held for \(HTTPConnection.seconds(healthyConnectionTime)) (the last: \(cause.reason)); "
        + "the layer holds the values of its last full read and reconnects with backoff")
    state.withLock { state in
      state.lastError = error
      state.status = .offline(lastKnownGoodSavedAt: state.lastKnownGoodSavedAt)
    }
    if streak == Self.loopingThreshold {
      SettingsDiagnostics.report(
        SettingsDiagnostic(kind: .layerSourceProblem, key: nil, backend: name, message: "\(error)"))
    }
  }

  /// The delay before reconnection round `round` (0 for the first), in seconds: the lower bound
  /// doubled `round` times, at most the upper bound, times a random factor between 0.5 and 1.
  static func backoff(round: Int, within bounds: ClosedRange<Double>) -> Double {
    let doubled = bounds.lowerBound * pow(2, Double(min(round, 30)))
    let capped = min(bounds.upperBound, max(bounds.lowerBound, doubled))
    return capped * Double.random(in: 0.5...1)
  }
}
