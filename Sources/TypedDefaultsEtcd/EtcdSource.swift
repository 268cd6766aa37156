import Dispatch
import Foundation
import TypedDefaults
import TypedDefaultsLayers

/// A read-only layer fed by etcd: the settings a fleet operator sets once for many servers or
/// devices, under one key prefix, applied live as they change and kept for an offline start.
///
/// ```swift
/// let fleet = EtcdSource(
///   endpoints: [URL(string: "http://10.0.0.5:2379")!, URL(string: "http://10.0.0.6:2379")!],
///   prefix: "/config/com.example.player/",
///   credentials: .init(user: "player", password: secret),
///   lastKnownGoodFile: folder.appending(path: "fleet.plist"))
/// let store = try LayeredPlistStore(
///   persistentFile: folder.appending(path: "data.plist"),
///   layers: [.runtime, .persistent, .source(fleet), .bundled(infoPlist)])
/// store.startWatching()
/// ```
///
/// **Reading.** As the store opens, the source reads every key under ``prefix`` (`/v3/kv/range`
/// with a `range_end`) from the first endpoint that answers. The setting's key is the etcd key
/// less the prefix: `/config/com.example.player/maxBitrate` is `maxBitrate`. While the store
/// watches, a background thread watches the prefix from the revision read (`/v3/watch`, a
/// streamed response) and reports each key whose value changed, once. Reads of the layer never
/// touch the network: they return what the source last applied.
///
/// **Values.** An etcd value is one of:
/// - UTF-8 text, read as the type a model declares for the key, with the rules of
///   ``PropertyListValue/init(parsing:as:)-(_,SettingValue.Type)`` (`42`, `0.5`, `true`,
///   `2026-12-03T10:00:00Z`, `(a, b)`, `{ key = value; }`), as environment variables are
///   (``LayerSource/valuesAreText``). `etcdctl put /config/app/maxBitrate 8000` sets an `Int`.
/// - A property list, XML (`<?xml`, `<plist`) or binary (`bplist00`), whose root is the value,
///   typed: for arrays, dictionaries, data and dates written by a tool (`plutil`).
///
/// JSON is not read as such (a JSON string is text). A value that is neither, or larger than
/// 1 MiB, keeps the key's last good value and is reported
/// (``SettingsError/Code/layerValueUnreadable``); a value the setting refuses (its type can't
/// read it, or its declaration doesn't accept it) is passed over by the store for the next
/// layer's, as at a start (``SettingsDiagnostic/Kind/layerValueRejected``).
///
/// **Failures.** The source never throws for the network: with no endpoint reachable it gives
/// the last values it applied, or the ``lastKnownGoodFile``'s, and reports why among the layer's
/// problems (a `layerSourceProblem` diagnostic carrying a ``SettingsError/Code/fleetUnavailable``
/// or ``SettingsError/Code/fleetAuthenticationFailed`` error; ``lastError``, ``status``). The
/// watch reconnects with a bounded exponential backoff with jitter (``Options/reconnectDelay``),
/// moving to the next endpoint on each failure. Each watch connection starts with a read of the
/// whole prefix from the endpoint it watches, which replaces the layer's content (reporting
/// exactly the keys that changed), and watches from the revision after it: no change made while
/// it was away is lost, and a cluster rebuilt meanwhile (whose revisions mean nothing in the old
/// history, higher or lower) is never mixed with the one the layer followed. A watch message
/// above ``Options/maximumResponseSize`` (a watcher that fell behind) is caught up the same way,
/// by a read in pages. A connection that fails before it held (an error after the server
/// accepted the watch, a compaction, a message never finished) waits for its backoff too, and
/// a server whose watches keep failing so is reported as offline, with ``lastError`` saying
/// why. Nothing a server sends is trusted: numbers are bounded, its error texts are never
/// quoted. See the "Fleet configuration" article, "Fleet source states". A watch silent for
/// ``Options/watchCheckInterval`` seconds checks that its endpoint still answers, so a frozen
/// member is left. A token the server no longer accepts (expired, or invalidated by a password
/// change) is renewed once per failure. Every response is bounded
/// (``Options/maximumResponseSize``) and every request timed (``Options/timeout``).
///
/// **Security.** Credentials are never shown: not in ``description``, `dump`, diagnostics or
/// errors, and not recorded beside `data.plist`. Endpoints are `http://` only: TLS (`https://`,
/// client certificates) is not supported yet, so run it on a trusted network or through a
/// local TLS proxy; an `https://` endpoint is reported as unavailable.
///
/// Thread-safety: `Sendable`; every member may be used from any thread.
public final class EtcdSource: LayerSource, CustomStringConvertible, CustomReflectable {
  /// A user name and password for etcd's authentication (`/v3/auth/authenticate`).
  ///
  /// The password is never shown: ``description`` and `dump` print the user name only.
  public struct Credentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The etcd user.
    public var user: String
    /// The user's password.
    public var password: String

    /// Creates credentials.
    ///
    /// - Parameters:
    ///   - user: The etcd user.
    ///   - password: The user's password.
    public init(user: String, password: String) {
      self.user = user
      self.password = password
    }

    /// `user 'name'`: the password is left out.
    public var description: String { "user '\(user)'" }

    /// The user name only, as `dump` shows it.
    public var customMirror: Mirror {
      Mirror(self, children: ["user": user, "password": SecretRedaction.placeholder])
    }
  }

  /// How the source talks to its endpoints.
  public struct Options: Sendable, Hashable {
    /// Seconds to connect, and for each wait for an answer (a read as a whole may take three
    /// times this); 3 by default.
    public var timeout: Double = 3
    /// The largest response accepted, in bytes; 8 MiB by default.
    ///
    /// This bounds each page of a read (a page above it is asked again with fewer keys), the
    /// keys and values of a whole read at one and a half times it, and each watch message: a
    /// larger message makes the source read the whole prefix instead; a larger read is refused
    /// as unavailable, so the layer keeps what it has.
    public var maximumResponseSize = 8 * 1024 * 1024
    /// The shortest and longest delay between reconnection rounds, in seconds; 0.1 to 5 by default.
    ///
    /// The delay doubles after each round in which no endpoint answered, up to the
    /// upper bound, and each is drawn between half of it and all of it (jitter), so a fleet
    /// doesn't reconnect in step.
    public var reconnectDelay: ClosedRange<Double> = 0.1...5
    /// Seconds a watch may stay silent before the source checks that its endpoint still
    /// answers; 10 by default.
    ///
    /// A watch of keys that don't change says nothing, and neither does a member that froze or
    /// a network that dropped the route with the connection left open. After this long without
    /// a message, the source makes one small request (a count of one key) on another
    /// connection; if that doesn't answer within ``timeout``, it leaves the endpoint for the
    /// next. Checked at the end of a wait of ``timeout`` seconds, so a check happens at most
    /// `watchCheckInterval + timeout` seconds after the last message.
    public var watchCheckInterval: Double = 10

    /// Options with the default values.
    public init() {}
  }

  /// What the source is doing.
  public enum Status: Sendable, Hashable, CustomStringConvertible {
    /// It has read nothing yet.
    case notStarted
    /// Its values are the fleet's, as of `revision`, from `endpoint`.
    case connected(endpoint: URL, revision: Int64)
    /// It reaches no endpoint: its values are those it last applied, or the last known good
    /// file's (saved at `lastKnownGoodSavedAt`, `nil` if it had none).
    ///
    /// Also while its server answers but the watch keeps failing before it holds (looping):
    /// the values are those of the server's last full read, not followed; ``lastError`` says
    /// why.
    case offline(lastKnownGoodSavedAt: Date?)

    /// `connected to http://… at revision 12`, `offline: last known good values of …`.
    public var description: String {
      switch self {
      case .notStarted: "not started"
      case .connected(let endpoint, let revision):
        "connected to \(EtcdSource.shown(endpoint)) at revision \(revision)"
      case .offline(let savedAt?):
        "offline: the last known good values, saved \(savedAt.formatted(.iso8601))"
      case .offline(nil): "offline: no values yet"
      }
    }
  }

  /// The etcd endpoints, tried in order.
  public let endpoints: [URL]
  /// The key prefix whose keys the layer holds, such as `/config/com.example.player/`.
  public let prefix: String
  /// The layer the source fills; `fleet` by default.
  public let layer: LayeredPlistStore.Layer
  /// Where the last content applied is kept for an offline start, or `nil` for nowhere.
  public let lastKnownGoodFile: URL?
  /// How the source talks to its endpoints.
  public let options: Options
  /// The credentials, if any.
  let credentials: Credentials?

  /// `true`: values are text read as the declared type (see the type's discussion).
  public var valuesAreText: Bool { true }

  let state = Locked(State())
  /// Serializes the first read, so concurrent first reads make one round of requests.
  let firstRead = NSLock()
  let cache: EtcdLastKnownGood?
  /// Whether the source writes its last known good file; not when a tool opened it from the
  /// app's record, since the file is the app's.
  let savesLastKnownGood: Bool
  /// Where the last known good file is saved after watch messages, one save at a time.
  let saveQueue = DispatchQueue(label: "TypedDefaults.EtcdSource.lastKnownGood")

  /// Creates a source for the keys under a prefix; connects to nothing until the store reads it.
  ///
  /// - Parameters:
  ///   - endpoints: The cluster's client URLs (`http://host:2379`), tried in order; a path in
  ///     them is kept as the gateway's root (for a gateway behind a proxy).
  ///   - prefix: The key prefix (`/config/com.example.player/`); a setting's key is an etcd key
  ///     less this prefix.
  ///   - credentials: A user and password when the cluster has authentication on; `nil` by
  ///     default.
  ///   - layer: The layer's name; `fleet` by default.
  ///   - lastKnownGoodFile: Where to keep the last content applied (a property list, mode 0600),
  ///     for an offline start: put it beside `data.plist`; `nil` (the default) keeps nothing.
  ///   - options: Timeouts, limits and backoff.
  public convenience init(
    endpoints: [URL],
    prefix: String,
    credentials: Credentials? = nil,
    layer: LayeredPlistStore.Layer = "fleet",
    lastKnownGoodFile: URL? = nil,
    options: Options = Options()
  ) {
    self.init(
      endpoints: endpoints, prefix: prefix, credentials: credentials, layer: layer,
      lastKnownGoodFile: lastKnownGoodFile, options: options, savesLastKnownGood: true)
  }

  /// Creates a source, saving its last known good file or only reading it (the `settings` tool
  /// reads the app's and never writes it).
  package init(
    endpoints: [URL], prefix: String, credentials: Credentials?, layer: LayeredPlistStore.Layer,
    lastKnownGoodFile: URL?, options: Options, savesLastKnownGood: Bool
  ) {
    self.savesLastKnownGood = savesLastKnownGood
    self.endpoints = endpoints
    self.prefix = prefix
    self.credentials = credentials
    self.layer = layer
    self.lastKnownGoodFile = lastKnownGoodFile
    self.options = options
    cache = lastKnownGoodFile.map { EtcdLastKnownGood(url: $0, prefix: prefix) }
    saveQueue.setSpecific(key: Self.saveQueueKey, value: true)
    if cache != nil, savesLastKnownGood {
      // A normal exit saves what the watch applied in its last 100 ms.
      ExitHandlers.register(self) { [weak self] in self?.flushLastKnownGood() }
    }
  }

  deinit {
    ExitHandlers.unregister(self)
    stopWatching()
  }

  /// What the source is doing now.
  public var status: Status { state.withLock { $0.status } }

  /// Why the source last failed to reach the fleet (``SettingsError/Code/fleetUnavailable``,
  /// ``SettingsError/Code/fleetAuthenticationFailed``), or `nil` once it has reached it since.
  ///
  /// While the server answers but its watches keep failing (looping), the error says so, and
  /// stays until a watch holds.
  public var lastError: SettingsError? { state.withLock { $0.lastError } }

  /// `offline: the last known good values, saved …` or `offline: no values yet` while the
  /// source reaches no endpoint, which ``LayeredPlistStore/explain(_:)`` shows on the layer's
  /// line; `nil` while connected.
  public var condition: String? {
    let status = self.status
    guard case .offline = status else { return nil }
    return status.description
  }

  /// The etcd revision of the values applied, or 0 before any.
  public var revision: Int64 { state.withLock { $0.revision } }

  /// `EtcdSource(fleet: '/config/app/' at http://127.0.0.1:2379, user 'app')`: the layer, prefix,
  /// endpoints (without any user information in them) and the user, never the password.
  public var description: String {
    let shownEndpoints = endpoints.map(Self.shown).joined(separator: ", ")
    let user = credentials.map { ", \($0)" } ?? ""
    return "EtcdSource(\(layer): '\(prefix)' at \(shownEndpoints)\(user))"
  }

  /// The source as `dump` shows it: no password.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "layer": layer, "prefix": prefix, "endpoints": endpoints.map(Self.shown),
        "user": credentials?.user as Any, "lastKnownGoodFile": lastKnownGoodFile as Any,
      ])
  }

  /// An endpoint as messages show it: without user information (`http://user:pw@host`).
  static func shown(_ endpoint: URL) -> String {
    guard endpoint.user != nil || endpoint.password != nil,
      var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
    else { return endpoint.absoluteString }
    components.user = nil
    components.password = nil
    return components.string ?? "<endpoint>"
  }

  // MARK: - Reading

  /// The layer's values: those last applied; on the first call, read from the fleet (or, when no
  /// endpoint answers, from the last known good file) first.
  ///
  /// - Returns: The values by setting key, and the problems: keys whose value can't be decoded
  ///   (each keeping its last good value), and why the fleet couldn't be reached, if it
  ///   couldn't.
  /// - Throws: Never for the network; only ``SettingsError`` for a last known good file that
  ///   can't be read when no endpoint answers (a corrupt one is kept aside, and reported among the
  ///   problems instead).
  public func read() throws(SettingsError) -> LayerContents {
    firstRead.lock()
    let started = state.withLock { $0.status != .notStarted }
    if !started { readFirst() }
    firstRead.unlock()
    return state.withLock { $0.contents }
  }

  /// Reads every key under the prefix from the fleet now, applies what changed (reporting the
  /// changed keys to the store), and saves the last known good file.
  ///
  /// Runs its requests on a background thread.
  ///
  /// - Throws: ``SettingsError/Code/fleetUnavailable`` naming the endpoints tried and why each
  ///   failed, or ``SettingsError/Code/fleetAuthenticationFailed`` naming the endpoint that
  ///   refused the credentials; the layer keeps its values then.
  public func refresh() async throws(SettingsError) {
    let outcome: SettingsError? = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(
          returning: self.fullRead(isCancelled: { false }))
      }
    }
    if let outcome { throw outcome }
  }

  /// Sets a key for the whole fleet: writes it under ``prefix`` on the cluster, where every
  /// source watching the prefix (this one included, while its store watches) applies it.
  ///
  /// An operator's call, for tools and tests: an app's own writes go to its store. A string is
  /// written as its UTF-8 text (read as each declared type, so `"8000"` sets an `Int`); any
  /// other value as a binary property list, read back exactly.
  ///
  /// Runs its request on a background thread.
  ///
  /// - Parameters:
  ///   - value: The value, or `nil` to delete the key.
  ///   - key: The setting's key (the etcd key less the prefix).
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` for a value a property list can't
  ///   hold; ``SettingsError/Code/fleetUnavailable`` or
  ///   ``SettingsError/Code/fleetAuthenticationFailed`` naming the endpoint when no endpoint
  ///   took the write.
  public func write(_ value: PropertyListValue?, forKey key: String) async throws(SettingsError) {
    let bytes: [UInt8]?
    switch value {
    case .string(let text)?: bytes = Array(text.utf8)
    case let value?: bytes = Array(try PropertyListFile.encode(value, format: .binary))
    case nil: bytes = nil
    }
    let outcome: SettingsError? = await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        continuation.resume(returning: self.put(bytes, forKey: key))
      }
    }
    if let outcome { throw outcome }
  }

  /// The first read: the fleet's values, or the last known good file's.
  private func readFirst() {
    if fullRead(isCancelled: { false }) == nil { return }
    var cached: EtcdLastKnownGood.Snapshot?
    var cacheProblem: SettingsError?
    if let cache {
      do {
        cached = try cache.load()
      } catch {
        cacheProblem = error
      }
    }
    state.withLock { state in
      if let cached {
        state.values = cached.values
        // The file's number is as untrusted as a server's.
        state.revision = min(max(0, cached.revision), EtcdGateway.largestRevision)
        state.lastKnownGoodSavedAt = cached.savedAt
        state.savedValues = cached.values
      }
      state.cacheProblem = cacheProblem
      state.status = .offline(lastKnownGoodSavedAt: cached?.savedAt)
    }
  }

  // MARK: - Watching

  /// Starts the background watch of the prefix; does nothing while already watching.
  ///
  /// - Parameter reporter: Where to report the keys whose values changed.
  public func startWatching(reportingTo reporter: LayerSourceReporter) {
    let generation = state.withLock { state -> UInt64? in
      state.reporter = reporter
      guard !state.isWatching else { return nil }
      state.isWatching = true
      state.generation &+= 1
      state.wake = DispatchSemaphore(value: 0)
      return state.generation
    }
    guard let generation else { return }
    let thread = Thread { [self] in watchLoop(generation: generation) }
    thread.name = "TypedDefaults.EtcdSource"
    thread.start()
  }

  /// Stops the background watch: its connection closes within 100 ms, and the last known good
  /// file is saved with what the watch applied before this returns.
  public func stopWatching() {
    let wake = state.withLock { state -> DispatchSemaphore? in
      guard state.isWatching else { return nil }
      state.isWatching = false
      state.generation &+= 1
      state.reporter = nil
      return state.wake
    }
    wake?.signal()
    flushLastKnownGood()
  }

  /// ``RecordedLayerSource/etcd(endpoints:prefix:user:lastKnownGoodFile:)``: the endpoints
  /// (without user information), the prefix, the user and the last known good file's absolute
  /// path; never the password.
  public var recordedSource: RecordedLayerSource? {
    .etcd(
      endpoints: endpoints.map(Self.shown), prefix: prefix, user: credentials?.user,
      lastKnownGoodFile: lastKnownGoodFile?.standardizedFileURL.path)
  }

  /// The environment variable a tool reading a recorded etcd source (the `settings` tool) takes
  /// the user's password from: `TYPEDDEFAULTS_ETCD_PASSWORD`.
  public static let passwordVariable = "TYPEDDEFAULTS_ETCD_PASSWORD"
}
