import TypedDefaults

/// Where the values of one read-only layer of a ``LayeredPlistStore`` come from: managed
/// settings, environment variables, command-line arguments, a folder of mounted files, a
/// `Settings.bundle`, or a source of your own.
///
/// A store built with a source (``LayeredPlistStore/init(persistentFile:layers:options:)``)
/// reads it once as it opens, layers its values by the store's order, names its ``layer`` in
/// ``LayeredPlistStore/explain(_:)``, and reads it again whenever the source reports a change
/// through the ``LayerSourceReporter`` the store gives it. Write one of your own like this:
///
/// ```swift
/// final class FeatureFlagsSource: LayerSource {
///   let layer: LayeredPlistStore.Layer = "flags"
///   private let flags = Mutex<[String: PropertyListValue]>([:])
///   private let reporter = Mutex<LayerSourceReporter?>(nil)
///
///   func read() throws(SettingsError) -> LayerContents {
///     LayerContents(values: flags.withLock { $0 })
///   }
///   func startWatching(reportingTo reporter: LayerSourceReporter) {
///     self.reporter.withLock { $0 = reporter }
///   }
///   func stopWatching() { reporter.withLock { $0 = nil } }
///
///   func apply(_ new: [String: PropertyListValue]) {   // called by your fetcher
///     flags.withLock { $0 = new }
///     reporter.withLock { $0 }?.reportChanges(forKeys: new.keys)
///   }
/// }
/// ```
///
/// The store validates what a source gives before applying it: once a model bound to the
/// store declared a key, a new value of the key that its type can't read is refused, the layer
/// keeps the key's last value, and a ``SettingsDiagnostic`` names the key, the layer and the
/// value. `TypedDefaultsTesting`'s `LayerSourceConformance` checks a source against the
/// contract every built-in source passes.
///
/// Thread-safety: a source is `Sendable`; the store calls ``read()`` from any thread (never
/// while holding one of its locks) and may call it again before an earlier call returns.
public protocol LayerSource: AnyObject, Sendable {
  /// The layer this source fills, whose name ``LayeredPlistStore/explain(_:)``,
  /// ``LayeredPlistStore/layer(forKey:)`` and `settings explain` show.
  var layer: LayeredPlistStore.Layer { get }

  /// Whether the source's values are enforced, as an administrator's managed settings are: a
  /// key the layer holds can't be written through the store (``LayeredPlistStore/isForced(forKey:)``,
  /// ``SettingsError/Code/forcedValue``); `false` by default.
  var isForced: Bool { get }

  /// Whether every value of the layer is a secret (a Kubernetes Secret mount): shown as
  /// `<secret>` wherever a value declared `secret: true` is; `false` by default.
  var holdsSecrets: Bool { get }

  /// Whether the source's values are text to be read as the type a model declares for the key
  /// (environment variables, arguments, mounted files), rather than typed property-list values;
  /// `false` by default.
  ///
  /// A text value is a ``PropertyListValue/string(_:)``. Once a model bound to the store declares
  /// the key, the store parses it into the declared type with the rules of the `settings write`
  /// type flags (``PropertyListValue/init(parsing:as:)-(_,SettingValue.Type)``). A text that
  /// doesn't parse is reported as a diagnostic (``SettingsDiagnostic/Kind/layerValueRejected``)
  /// and never shadows the layers below: the layer keeps the key's last value read as the type,
  /// or leaves the key out, so the value saved in `data.plist` (or the setting's default) shows
  /// through.
  var valuesAreText: Bool { get }

  /// Reads the source's current values.
  ///
  /// - Returns: The values by key, and the entries that couldn't be read (each reported by the
  ///   store as a diagnostic and kept in ``LayeredPlistStore/recoveredProblems``).
  /// - Throws: ``SettingsError`` naming the source's file or origin and the cause when nothing
  ///   can be read (an unreadable file, refused permissions). At open, the store's initializer
  ///   rethrows it, unless ``LayeredPlistStore/Options/opensDespiteUnreadableReadOnlyFiles`` asks
  ///   to open with an empty layer; later, the layer keeps the values it had, the error is a
  ///   diagnostic (once while its reason stays the same), and the store reads the source again,
  ///   every 50 ms at first, backing off to once a second, until a read succeeds.
  func read() throws(SettingsError) -> LayerContents

  /// Starts reporting changes of the source's values to `reporter`; the store calls it when it
  /// starts watching (``LayeredPlistStore/startWatching()``, ``LayeredPlistStore/Options/watchesFiles``).
  ///
  /// One source may be layered by several stores (an app's and its extension's): they share its
  /// watch, so the source is asked to start once, when the first of them starts watching, with
  /// one reporter that tells each of them, and to stop when the last of them stops. A source
  /// keeps only the latest reporter it was given.
  ///
  /// Does nothing by default: a source whose values can't change (arguments) needn't implement
  /// it.
  ///
  /// - Parameter reporter: Where to report changes, from any thread, holding no lock of the source.
  func startWatching(reportingTo reporter: LayerSourceReporter)

  /// Stops reporting changes; called when the last store watching the source stops watching or
  /// is released.
  ///
  /// Does nothing by default.
  func stopWatching()

  /// How a tool that opens the store's folder (the `settings` tool) can open this source again, as
  /// the store records it beside `data.plist`, or `nil` (the default) if it can't.
  var recordedSource: RecordedLayerSource? { get }

  /// A short note on a condition of the source that someone reading its values should know,
  /// which ``LayeredPlistStore/explain(_:)`` shows on the layer's line: `offline: the last known
  /// good values, saved 2026-12-03T07:40:00Z` for a fleet source that can't reach its servers.
  /// `nil` (the default) when there is nothing to say.
  var condition: String? { get }
}

extension LayerSource {
  /// `false`: a layer's values are not enforced unless the source says so.
  public var isForced: Bool { false }
  /// `false`: a layer's values are not secret unless the source says so.
  public var holdsSecrets: Bool { false }
  /// `false`: a source gives typed property-list values unless it says so.
  public var valuesAreText: Bool { false }
  /// Does nothing: the source reports no changes.
  ///
  /// - Parameter reporter: Unused.
  public func startWatching(reportingTo reporter: LayerSourceReporter) {}
  /// Does nothing.
  public func stopWatching() {}
  /// `nil`: a tool can't open this source again.
  public var recordedSource: RecordedLayerSource? { nil }
  /// `nil`: nothing to say.
  public var condition: String? { nil }
}

/// What a ``LayerSource`` read: its values by key, and the entries it had to leave out.
///
/// Thread-safety: a value type, `Sendable`.
public struct LayerContents: Sendable, Hashable {
  /// The values by key, as the source names them (the store applies its key normalization).
  public var values: [String: PropertyListValue]
  /// The entries that couldn't be read, each naming its key (and file, if any) and the cause.
  public var problems: [SettingsError]
  /// Whether the source's file or folder doesn't exist (a mistyped path, a volume not mounted):
  /// the layer is empty, and ``LayeredPlistStore/explain(_:)`` shows it as `(no file)`; `false`
  /// by default.
  public var isMissing = false
  /// Whether the values are secrets, read from a source whose ``LayerSource/holdsSecrets``.
  ///
  /// Printing the contents (``description``, `dump`) shows `<secret>` for each value; `false`
  /// by default. ``values`` themselves are the real values.
  public var holdsSecrets = false

  /// Creates the contents of a layer.
  ///
  /// - Parameters:
  ///   - values: The values by key.
  ///   - problems: The entries left out, each a ``SettingsError`` naming the key and the cause;
  ///     none by default.
  public init(values: [String: PropertyListValue], problems: [SettingsError] = []) {
    self.values = values
    self.problems = problems
  }
}

extension LayerContents: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// `LayerContents(key: value, …)` in key order, each value `<secret>` when the contents
  /// ``holdsSecrets``, followed by the number of problems if any and `missing` for a missing
  /// file or folder.
  public var description: String {
    var parts = values.sorted { $0.key < $1.key }.map { key, value in
      "\(key): \(holdsSecrets ? SecretRedaction.placeholder : String(describing: value))"
    }
    if !problems.isEmpty {
      parts.append("\(problems.count) problem\(problems.count == 1 ? "" : "s")")
    }
    if isMissing { parts.append("missing") }
    return "LayerContents(\(parts.joined(separator: ", ")))"
  }

  /// The same as ``description``.
  public var debugDescription: String { description }

  /// The contents as `dump` shows them: the values redacted when they are secrets.
  public var customMirror: Mirror {
    let shownValues: Any =
      holdsSecrets ? values.mapValues { _ in SecretRedaction.placeholder } : values
    return Mirror(
      self,
      children: [
        "values": shownValues, "problems": problems, "isMissing": isMissing,
        "holdsSecrets": holdsSecrets,
      ], displayStyle: .struct)
  }
}
