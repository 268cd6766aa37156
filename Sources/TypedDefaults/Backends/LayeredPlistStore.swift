import Foundation

/// A layered configuration store backed by property-list files: the HuConfigration seed's five
/// dictionaries as one ``SettingsBackend``.
///
/// A read looks through the layers in priority order and returns the first value found:
///
/// 1. ``Layer/runtime``: values set for this process only; never saved.
/// 2. ``Layer/persistent``: `data.plist`, read-write. Writes go here unless a layer is named, so a
///    value written by the app (or delivered by a server) beats the shipped configuration.
/// 3. ``Layer/delivered``: a read-only plist shipped with a deployment.
/// 4. ``Layer/bundled``: a read-only `Info.plist`, the lowest priority.
///
/// ```swift
/// let store = try LayeredPlistStore(
///   persistentFile: dataDirectory.appending(path: "data.plist"),
///   deliveredFile: deployment.appending(path: "JF-info.plist"),
///   bundledFile: Bundle.main.bundleURL.appending(path: "Contents/Info.plist")
/// )
/// try store.setValue("https://api.example.com", forKey: "serverURL")  // persistent layer
/// try store.setValue(true, forKey: "verboseLogging", in: .runtime)   // this run only
/// let source = store.layer(forKey: "serverURL")                      // .persistent
/// try store.saveIfNeeded()
/// ```
///
/// Writing `nil` (or ``removeValue(forKey:)``) removes the key from the layer written to, which may
/// reveal a value from a lower layer. Changes to the persistent layer stay in memory until
/// ``save()`` or ``saveIfNeeded()`` writes `data.plist`, atomically; a failed save throws and
/// leaves the store dirty, so a later save retries.
///
/// A missing file is an empty layer. A file that exists but can't be read, isn't a property list,
/// or whose root isn't a dictionary makes the initializer throw a ``SettingsError`` naming the
/// file and the cause.
///
/// ## Performance characteristics
///
/// The layers are merged in memory when the store opens and kept merged on every write, so a read
/// is one dictionary lookup under a lock, whichever layer the value comes from. Only ``save()``
/// does I/O.
///
/// Thread-safe: every method may be called from any thread; saves are serialized, and reads and
/// writes proceed while a save encodes and writes the file.
public final class LayeredPlistStore: SettingsBackend {
  /// A layer of the store, in priority order: a lower raw value wins.
  public enum Layer: Int, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// Values for this process only; highest priority; never saved.
    case runtime
    /// `data.plist`: read-write, saved by ``LayeredPlistStore/save()``.
    case persistent
    /// A read-only property list delivered with a deployment.
    case delivered
    /// A read-only bundled `Info.plist`; lowest priority.
    case bundled

    /// Whether the store accepts writes to this layer (``runtime`` and ``persistent``).
    public var isWritable: Bool { self == .runtime || self == .persistent }

    /// The layer's name: `runtime`, `persistent`, `delivered` or `bundled`.
    public var description: String {
      switch self {
      case .runtime: "runtime"
      case .persistent: "persistent"
      case .delivered: "delivered"
      case .bundled: "bundled"
      }
    }

    /// Orders layers by priority: `runtime < persistent < delivered < bundled`.
    ///
    /// - Parameters:
    ///   - lhs: A layer.
    ///   - rhs: Another layer.
    /// - Returns: Whether `lhs` has higher priority than `rhs`.
    public static func < (lhs: Layer, rhs: Layer) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  /// How the store reads and writes its files.
  public struct Options: Sendable, Hashable {
    /// The format `data.plist` is saved in; `nil` (the default) keeps the format the file had
    /// when it was opened, and uses XML for a new file.
    public var format: PropertyListFile.Format?
    /// The largest file, in bytes, the store reads; larger files are refused with
    /// ``SettingsError/Code/fileTooLarge``. 16 MiB by default.
    public var maximumFileSize: Int

    /// Creates options.
    ///
    /// - Parameters:
    ///   - format: The format to save `data.plist` in; `nil` keeps the file's own (XML if new).
    ///   - maximumFileSize: The largest file, in bytes, to read; 16 MiB by default.
    public init(
      format: PropertyListFile.Format? = nil,
      maximumFileSize: Int = PropertyListFile.defaultMaximumSize
    ) {
      self.format = format
      self.maximumFileSize = maximumFileSize
    }
  }

  private struct Entry {
    var value: PropertyListValue
    var layer: Layer
  }

  private struct State {
    /// One dictionary per layer, indexed by `Layer.rawValue`.
    var layers: [[String: PropertyListValue]]
    /// For every key present in any layer, the value of its highest-priority layer.
    var effective: [String: Entry]
    /// Counts changes to the persistent layer; `savedVersion` is the count last saved.
    var version: UInt64 = 0
    var savedVersion: UInt64 = 0

    mutating func write(_ value: PropertyListValue?, forKey key: String, in layer: Layer) {
      guard layers[layer.rawValue][key] != value else { return }
      layers[layer.rawValue][key] = value
      resolve(key)
      if layer == .persistent { version &+= 1 }
    }

    mutating func resolve(_ key: String) {
      for layer in Layer.allCases {
        if let value = layers[layer.rawValue][key] {
          effective[key] = Entry(value: value, layer: layer)
          return
        }
      }
      effective[key] = nil
    }
  }

  /// The persistent layer's file, `data.plist`.
  public let persistentFile: PropertyListFile
  /// The delivered layer's file, if the store has one.
  public let deliveredFile: PropertyListFile?
  /// The bundled layer's file, if the store has one.
  public let bundledFile: PropertyListFile?
  /// The options the store was opened with.
  public let options: Options
  /// `LayeredPlistStore(<path of data.plist>)`, for diagnostics.
  public let name: String
  /// The layers whose file existed, and was read, when the store was opened. A first launch
  /// lacks ``Layer/persistent``; a delivered or bundled file that isn't where it was expected
  /// (a typo in a path) shows by its absence, since a missing file is otherwise an empty layer.
  public let layersLoadedFromDisk: Set<Layer>

  /// The format `data.plist` is saved in: the option, else the format the file had, else XML.
  public let persistentFormat: PropertyListFile.Format
  private let state: Locked<State>
  private let saveLock = NSLock()

  /// Opens a store, reading each file that exists.
  ///
  /// - Parameters:
  ///   - persistentFile: The read-write `data.plist`. Its folder must exist for ``save()`` to
  ///     succeed; the file itself is created by the first save.
  ///   - deliveredFile: A read-only property list shipped with a deployment, or `nil` for none.
  ///   - bundledFile: A read-only `Info.plist`, or `nil` for none.
  ///   - options: Save format and reading limits.
  /// - Throws: ``SettingsError`` naming the file and the cause if a file exists but can't be read
  ///   (``SettingsError/Code/fileNotReadable``, ``SettingsError/Code/fileTooLarge``), isn't a
  ///   property list (``SettingsError/Code/corruptFile``), or has a root that isn't a dictionary
  ///   (``SettingsError/Code/wrongRootType``). A missing file is an empty layer.
  ///   ``SettingsError/Code/fileNotWritable`` if `options` asks to save in the OpenStep format,
  ///   which can't be written.
  public init(
    persistentFile: URL,
    deliveredFile: URL? = nil,
    bundledFile: URL? = nil,
    options: Options = Options()
  ) throws(SettingsError) {
    if options.format == .openStep {
      throw SettingsError(
        .fileNotWritable,
        path: persistentFile.path,
        reason: "OpenStep property lists can be read but not written; save as xml or binary"
      )
    }
    let limit = options.maximumFileSize
    self.persistentFile = PropertyListFile(url: persistentFile, maximumSize: limit)
    self.deliveredFile = deliveredFile.map { PropertyListFile(url: $0, maximumSize: limit) }
    self.bundledFile = bundledFile.map { PropertyListFile(url: $0, maximumSize: limit) }
    self.options = options
    self.name = "LayeredPlistStore(\(persistentFile.path))"

    let persistent = try self.persistentFile.read()
    let delivered = try self.deliveredFile?.readDictionary()
    let bundled = try self.bundledFile?.readDictionary()
    var layers = Array(repeating: [String: PropertyListValue](), count: Layer.allCases.count)
    layers[Layer.persistent.rawValue] = try Self.dictionary(persistent, of: self.persistentFile)
    layers[Layer.delivered.rawValue] = delivered ?? [:]
    layers[Layer.bundled.rawValue] = bundled ?? [:]
    var loaded: Set<Layer> = []
    if persistent != nil { loaded.insert(.persistent) }
    if delivered != nil { loaded.insert(.delivered) }
    if bundled != nil { loaded.insert(.bundled) }
    self.layersLoadedFromDisk = loaded

    var effective: [String: Entry] = [:]
    for layer in Layer.allCases.reversed() {
      for (key, value) in layers[layer.rawValue] {
        effective[key] = Entry(value: value, layer: layer)
      }
    }
    let savedFormat = persistent?.format == .binary ? PropertyListFile.Format.binary : .xml
    self.persistentFormat = options.format ?? savedFormat
    self.state = Locked(State(layers: layers, effective: effective))
  }

  private static func dictionary(
    _ contents: PropertyListFile.Contents?,
    of file: PropertyListFile
  ) throws(SettingsError) -> [String: PropertyListValue] {
    guard let contents else { return [:] }
    guard case .dictionary(let entries) = contents.root else {
      throw SettingsError(
        .wrongRootType,
        path: file.url.path,
        reason: "The root is \(PropertyListFile.article(contents.root.kind)), not a dictionary"
      )
    }
    return entries
  }

  // MARK: - Reading

  /// Returns the value of the highest-priority layer that has the key.
  ///
  /// - Parameter key: The key to look up.
  /// - Returns: The value, or `nil` if no layer has the key.
  public func value(forKey key: String) -> PropertyListValue? {
    state.withLock { $0.effective[key]?.value }
  }

  /// Returns the value one layer holds for a key, whether or not a higher layer overrides it.
  ///
  /// - Parameters:
  ///   - key: The key to look up.
  ///   - layer: The layer to read.
  /// - Returns: The layer's value, or `nil` if the layer lacks the key.
  public func value(forKey key: String, in layer: Layer) -> PropertyListValue? {
    state.withLock { $0.layers[layer.rawValue][key] }
  }

  /// Returns the layer a key's current value comes from.
  ///
  /// - Parameter key: The key to look up.
  /// - Returns: The highest-priority layer holding the key, or `nil` if none does.
  public func layer(forKey key: String) -> Layer? {
    state.withLock { $0.effective[key]?.layer }
  }

  /// Returns every key any layer holds, with the value a read returns for it.
  ///
  /// - Returns: The merged view of all layers.
  public func dictionaryRepresentation() -> [String: PropertyListValue] {
    state.withLock { $0.effective.mapValues(\.value) }
  }

  /// Returns the keys and values of one layer.
  ///
  /// - Parameter layer: The layer to read.
  /// - Returns: The layer's own dictionary.
  public func dictionaryRepresentation(of layer: Layer) -> [String: PropertyListValue] {
    state.withLock { $0.layers[layer.rawValue] }
  }

  // MARK: - Writing

  /// Stores a value in the persistent layer, or removes the key from it when `value` is `nil`.
  ///
  /// A value in the runtime layer still wins over the written one until it is removed. When
  /// `data.plist` is saved as XML, the value is stored as the file will give it back: dates
  /// rounded down to whole seconds, `-0.0` as `0.0`; so it reads the same before and after a
  /// relaunch.
  ///
  /// - Parameters:
  ///   - value: The value to store, or `nil` to remove the key.
  ///   - key: The key to write.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` for a value nested too deeply or
  ///   holding too many values to be read back, and, when `data.plist` is saved as XML, for what
  ///   XML can't hold: a string or key starting with U+FEFF or holding a control character XML
  ///   forbids, a non-finite date. Nothing is changed when this throws.
  public func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    try write(value, forKey: key, in: .persistent)
  }

  /// Stores a value in a writable layer, or removes the key from it when `value` is `nil`.
  ///
  /// - Parameters:
  ///   - value: The value to store, or `nil` to remove the key.
  ///   - key: The key to write.
  ///   - layer: ``Layer/runtime`` (this process only) or ``Layer/persistent`` (saved).
  /// - Throws: ``SettingsError/Code/readOnlyLayer`` for ``Layer/delivered`` or ``Layer/bundled``;
  ///   for the persistent layer, what ``setValue(_:forKey:)`` throws.
  public func setValue(
    _ value: PropertyListValue?,
    forKey key: String,
    in layer: Layer
  ) throws(SettingsError) {
    guard layer.isWritable else {
      throw SettingsError(
        .readOnlyLayer,
        key: key,
        reason: "The \(layer) layer is read-only; write to the runtime or persistent layer"
      )
    }
    try write(value, forKey: key, in: layer)
  }

  /// Removes a key from the persistent layer, which may reveal a value from the delivered or
  /// bundled layer. Removing a missing key does nothing.
  ///
  /// - Parameter key: The key to remove.
  public func removeValue(forKey key: String) {
    state.withLock { $0.write(nil, forKey: key, in: .persistent) }
  }

  private func write(
    _ value: PropertyListValue?,
    forKey key: String,
    in layer: Layer
  ) throws(SettingsError) {
    // The format is fixed when the store opens, so it can be read without the lock.
    var value = value
    if let stored = value {
      try WriteValidation.check(stored, key: key)
      if layer == .persistent, persistentFormat == .xml {
        value = try XMLPropertyListRules.normalized(stored, key: key)
      }
    }
    state.withLock { $0.write(value, forKey: key, in: layer) }
  }

  // MARK: - Saving

  /// Whether the persistent layer has changes that are not yet saved.
  public var hasUnsavedChanges: Bool {
    state.withLock { $0.version != $0.savedVersion }
  }

  /// Writes the persistent layer to `data.plist`, atomically, whether or not it changed.
  ///
  /// Reads and writes may continue on other threads while the file is written; changes made
  /// during the save stay unsaved.
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the path and the cause (missing or
  ///   read-only folder, full disk). The file is left as it was, and the changes stay in memory
  ///   with ``hasUnsavedChanges`` true, so a later save can succeed.
  public func save() throws(SettingsError) {
    saveLock.lock()
    defer { saveLock.unlock() }
    let (values, version) = state.withLock {
      ($0.layers[Layer.persistent.rawValue], $0.version)
    }
    try persistentFile.write(.dictionary(values), format: persistentFormat)
    state.withLock { $0.savedVersion = max($0.savedVersion, version) }
  }

  /// Writes `data.plist` if the persistent layer changed since it was opened or last saved.
  ///
  /// - Returns: Whether a save happened.
  /// - Throws: What ``save()`` throws.
  @discardableResult
  public func saveIfNeeded() throws(SettingsError) -> Bool {
    guard hasUnsavedChanges else { return false }
    try save()
    return true
  }
}
