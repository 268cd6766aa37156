import Foundation
import TypedDefaults

/// A layered configuration store backed by property-list files: the HuConfigration seed's five
/// dictionaries as one ``SettingsBackend``, durable and safe to share between processes.
///
/// A read looks through the layers in priority order and returns the first value found:
///
/// 1. ``Layer/runtime``: values set for this process only; never saved.
/// 2. ``Layer/persistent``: `data.plist`, read-write. Writes go here unless a layer is named, so a
///    value written by the app (or delivered by a server) beats the shipped configuration.
/// 3. ``Layer/delivered``: a read-only plist shipped with a deployment.
/// 4. ``Layer/bundled``: a read-only `Info.plist`, the lowest priority.
///
/// A fifth kind of write, ``setValueForNextLaunch(_:forKey:)``, goes to `data.plist` when it is
/// saved but is not seen until the store is opened again.
///
/// ```swift
/// let store = try LayeredPlistStore(
///   persistentFile: try StandardLocation.data.directory(for: "MyApp").appending(path: "data.plist"),
///   deliveredFile: deployment.appending(path: "JF-info.plist"),
///   bundledFile: Bundle.main.bundleURL.appending(path: "Contents/Info.plist"),
///   options: .init(autosave: .debounced(seconds: 1))
/// )
/// try store.applyServerConfiguration(fetchedValues)                // beats delivered and bundled
/// try store.setValue(true, forKey: "verboseLogging", in: .runtime)   // this run only
/// print(store.explain("serverURL"))                                  // each layer's value
/// ```
///
/// Writing `nil` (or ``removeValue(forKey:)``) removes the key from the layer written to, which may
/// reveal a value from a lower layer.
///
/// ## Saving
///
/// Changes to `data.plist` stay in memory until it is saved: by ``save()`` or ``saveIfNeeded()``,
/// by the ``Options/autosave`` policy, and when the process exits normally (by returning from
/// `main` or calling `exit()`) unless ``Options/savesAtExit`` is off. Not covered: a process killed
/// by a signal (handle `SIGTERM` yourself and call ``saveIfNeeded()``), a crash, and on Apple
/// platforms an app suspended in the background and then terminated by the system: call
/// ``saveIfNeeded()`` when the app moves to the background (`scenePhase` becoming `.background`,
/// or `applicationDidEnterBackground(_:)`), as HuConfigration did, or use a debounced autosave.
/// A store released with unsaved changes saves them as it goes (unless ``Options/savesAtExit`` is
/// off), reporting a failure as a diagnostic.
///
/// Every save is atomic and durable: the file is written to a temporary file in the same folder,
/// flushed to disk and renamed over `data.plist`, so a crash leaves the old file or the new one;
/// temporary files a killed process left are removed when a store opens. A new file is binary
/// unless ``Options/format`` says otherwise, and is created readable and writable by its owner
/// only (0600); an existing file keeps its format, permissions and (where the process may) owner;
/// a symbolic link is kept, and the file it points to is replaced. A failed save
/// throws, leaves the file as it was, and keeps the changes in memory for a later save.
///
/// ## Several processes
///
/// Processes (a command-line tool and a daemon, two app extensions) can share one `data.plist`
/// without losing each other's writes. A save takes an advisory lock (`flock` on
/// `data.plist.lock` beside it), re-reads the file if another process changed it since, applies
/// only the keys this process changed (values and removals), and writes the result; it then sees
/// the other processes' values too. ``reload()`` picks up their changes without saving. Changes
/// are noticed by the file's identity (device, inode, size, modification and status change
/// times), so a file replaced by an atomic rename is noticed too; the store holds one read-only
/// descriptor on the version it last read or wrote, so that no later file can get its inode
/// number. If two processes change the same key, the last to save wins.
///
/// A store sees another process's saves when it reloads or saves, or as they happen when it
/// watches its files: ``Options/watchesFiles`` (off by default), or ``startWatching()``. A
/// watching store watches each file's folder (inotify on Linux, a dispatch source on Apple
/// platforms), reloads `data.plist` when it changes, reads a delivered or bundled file again
/// when it is replaced, and tells observers of exactly the keys whose effective value changed.
/// A watch that can't be set up is reported once as a diagnostic, and the store polls instead
/// until it can be. See <doc:ObservingChanges>.
///
/// ## Bad files
///
/// A missing or zero-byte file is an empty layer (``layersLoadedFromDisk`` tells which files were
/// found). Files are read by the library's own strict readers, never by a parser that can crash.
/// A corrupt or truncated `data.plist`, or one whose root isn't a dictionary, is never
/// overwritten: under the file lock, and only if it is still the version judged, the store moves
/// it aside to `data.plist.corrupt-<UTC date and time>` and reports it as a ``SettingsError`` in
/// ``recoveredProblems`` and as a ``SettingsDiagnostic``. Opening on it, the store carries on
/// with an empty persistent layer; finding it later (a reload, a save), the store keeps its
/// values and writes them back as a new `data.plist` at once. In a well-formed file, a top-level entry whose value can't be read (or written back)
/// costs only that entry: the original is moved aside, the rest is written back and loaded, and
/// each lost key is reported. A corrupt file that can't be moved aside (or is reached through a
/// symbolic link, which the store never renames) is left as it is, and saves throw rather than
/// write over it. A delivered or bundled file that can't be read makes the initializer throw,
/// since the store must not move files it doesn't own, unless
/// ``Options/opensDespiteUnreadableReadOnlyFiles`` asks to open with an empty layer and report
/// it; one with unreadable entries loads without them. See <doc:LayeredConfiguration> for every rule.
///
/// ## Performance characteristics
///
/// The layers are merged in memory when the store opens and kept merged on every write, so a read
/// is one dictionary lookup under a lock, whichever layer the value comes from. Only saving and
/// ``reload()`` do I/O; saving skips re-reading the file when no other process changed it.
///
/// Thread-safe: every method may be called from any thread; saves are serialized, and reads and
/// writes proceed while a save encodes and writes the file.
public final class LayeredPlistStore: SettingsBackend, CellBackend {
  /// The reserved key under which ``applyServerConfiguration(_:replacingPrevious:)`` records the
  /// keys the server delivered, as an array of strings in `data.plist`.
  public static let serverConfigurationKeysKey = "TypedDefaults.serverConfigurationKeys"

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
  /// The format `data.plist` is saved in: the option, else the format the file had (an OpenStep
  /// file is saved as binary), else binary for a new or empty file.
  public let persistentFormat: PropertyListFile.Format
  /// The store's layers, highest priority first: a read returns the value of the first that has
  /// the key.
  public let layers: [Layer]
  /// The layers whose file existed, and was read, when the store was opened.
  ///
  /// A first launch lacks ``Layer/persistent``; a delivered or bundled file that isn't where it was
  /// expected (a typo in a path) shows by its absence, since a missing file is otherwise an empty
  /// layer. A layer a source fills is here when its source was read and its file or folder
  /// wasn't missing (``LayerContents/isMissing``).
  public let layersLoadedFromDisk: Set<Layer>

  let state: Locked<State>
  /// The engine that reads, recovers and saves `data.plist`.
  package let persisted: PersistedPropertyListFile
  @usableFromInline package let cellsIdentity = CellsIdentity()
  /// The store's observers.
  package let observers = ObserverRegistry()
  let problems = Locked<[SettingsError]>([])
  /// The watches of the store's folders, while it watches its files (see ``startWatching()``).
  package let watchers = Locked<[FileWatcher]>([])
  /// The reading again of `data.plist` after a change while the store watches, retried while it
  /// fails (see ``startWatching()``).
  let watchReload = Locked<RetriedReload?>(nil)
  /// What the models bound to the store declared about their keys (see ``LearnsDeclaredKeys``).
  let declaredKeys = Locked<[String: DeclaredKey]>([:])
  /// The store's read-only layers that a source fills, in the store's order.
  let sourceSlots: [SourceSlot]
  /// The layers whose source ``LayerSource/isForced``, in the store's order.
  let forcedLayers: [Layer]
  /// The layers whose source ``LayerSource/holdsSecrets``.
  let secretLayers: Set<Layer>

  /// Opens a store, reading each file that exists: the layers
  /// `[.runtime, .persistent, .delivered(deliveredFile), .bundled(bundledFile)]` (see
  /// ``init(persistentFile:layers:options:)``).
  ///
  /// - Parameters:
  ///   - persistentFile: The read-write `data.plist`. Neither it nor its folder need exist: the
  ///     store reads no values then, and its first save creates the folder (readable by its owner
  ///     only, with any missing folder above it) and the file. A folder that goes away after the
  ///     file existed is not made again (the save fails).
  ///   - deliveredFile: A read-only property list shipped with a deployment, or `nil` for none.
  ///   - bundledFile: A read-only `Info.plist`, or `nil` for none.
  ///   - options: Format, reading limits, autosave and key normalization.
  /// - Throws: ``SettingsError`` naming the file and the cause if the delivered or bundled file
  ///   exists but can't be read (unless ``Options/opensDespiteUnreadableReadOnlyFiles`` is on) (``SettingsError/Code/fileNotReadable``,
  ///   ``SettingsError/Code/fileTooLarge``), isn't a property list
  ///   (``SettingsError/Code/corruptFile``), or has a root that isn't a dictionary
  ///   (``SettingsError/Code/wrongRootType``); if `data.plist` can't be read for a reason other
  ///   than its contents (it is corrupt: see "Bad files" above), or is corrupt and
  ///   ``Options/movesCorruptFileAside`` is off; or
  ///   ``SettingsError/Code/fileNotWritable`` if `options` asks to save in the OpenStep format,
  ///   which can't be written.
  public convenience init(
    persistentFile: URL,
    deliveredFile: URL? = nil,
    bundledFile: URL? = nil,
    options: Options = Options()
  ) throws(SettingsError) {
    try self.init(
      persistentFile: persistentFile,
      layers: [
        .runtime, .persistent,
        deliveredFile.map(LayerDefinition.delivered) ?? LayerDefinition(kind: .absent(.delivered)),
        bundledFile.map(LayerDefinition.bundled) ?? LayerDefinition(kind: .absent(.bundled)),
      ],
      options: options)
  }

  /// Opens a store on `data.plist` with the layers given, highest priority first.
  ///
  /// Each source is read as the store opens (``LayerSource/read()``), its keys normalized by
  /// ``Options/keyNormalization``; the entries it couldn't read are kept in
  /// ``recoveredProblems`` and reported as diagnostics. ``standardLayers(managed:arguments:environment:directories:deliveredFile:settingsBundle:bundledFile:)``
  /// gives every kind of layer its default position; pass your own list to order them otherwise.
  ///
  /// ```swift
  /// let store = try LayeredPlistStore(
  ///   persistentFile: dataPlist,
  ///   layers: [.runtime, .source(environment), .persistent, .delivered(deployment)])
  /// ```
  ///
  /// A list without ``LayerDefinition/persistent`` or ``LayerDefinition/runtime`` once each, or
  /// with two layers of the same name, is a programming mistake that stops the program.
  ///
  /// - Parameters:
  ///   - persistentFile: The read-write `data.plist`.
  ///   - layers: The layers, highest priority first; must hold ``LayerDefinition/persistent``
  ///     and ``LayerDefinition/runtime`` once each, and no two layers of the same name.
  ///   - options: Format, reading limits, autosave and key normalization.
  /// - Throws: What ``init(persistentFile:deliveredFile:bundledFile:options:)`` throws, and what a
  ///   source's ``LayerSource/read()`` throws as the store opens (unless
  ///   ``Options/opensDespiteUnreadableReadOnlyFiles`` is on: the layer is then empty, and the
  ///   error recorded in ``recoveredProblems`` and reported).
  public init(
    persistentFile: URL,
    layers: [LayerDefinition],
    options: Options = Options()
  ) throws(SettingsError) {
    let definitions = layers
    let order = definitions.map(\.layer)
    Self.checkLayers(order)
    if options.format == .openStep {
      throw SettingsError(
        .fileNotWritable,
        path: persistentFile.path,
        reason: "OpenStep property lists can be read but not written; save as xml or binary"
      )
    }
    let limit = options.maximumFileSize
    var slots: [SourceSlot] = []
    for (index, definition) in definitions.enumerated() {
      switch definition.kind {
      case .runtime, .persistent, .absent:
        continue
      case .file(let url, let layer):
        let source = PropertyListFileSource(file: url, layer: layer, maximumSize: limit)
        slots.append(SourceSlot(index: index, source: source))
      case .source(let source):
        slots.append(SourceSlot(index: index, source: source))
      }
    }
    self.sourceSlots = slots
    func file(of layer: Layer) -> PropertyListFile? {
      (slots.first { $0.source.layer == layer }?.source as? PropertyListFileSource)?.file
    }
    self.persistentFile = PropertyListFile(url: persistentFile, maximumSize: limit)
    self.deliveredFile = file(of: .delivered)
    self.bundledFile = file(of: .bundled)
    self.options = options
    self.name = "LayeredPlistStore(\(persistentFile.path))"
    self.layers = order
    self.forcedLayers = slots.filter(\.source.isForced).map { $0.source.layer }
    self.secretLayers = Set(slots.filter(\.source.holdsSecrets).map { $0.source.layer })

    var loaded: Set<Layer> = []
    var values = Array(repeating: [String: PropertyListValue](), count: order.count)
    let name = self.name
    self.persisted = PersistedPropertyListFile(
      file: self.persistentFile,
      rules: .init(
        format: options.format, keyNormalization: options.keyNormalization?.normalize,
        movesCorruptFileAside: options.movesCorruptFileAside))
    let (leftovers, opened) = persisted.open(reportingClashesAs: name)
    let read: PersistedPropertyListFile.Read
    do {
      read = try opened.get()
    } catch {
      // A folder StandardLocation chose that this user can't read (a service started as
      // nobody with root's HOME): the error says which variables choose it.
      guard error.code == .fileNotReadable,
        let choice = StandardLocation.choice(
          ofFolder: persistentFile.deletingLastPathComponent())
      else { throw error }
      throw SettingsError(error.code, path: error.path, reason: error.reason + choice.advice)
    }
    values[order.firstIndex(of: .persistent)!] = read.entries
    if read.version != nil || !read.entries.isEmpty { loaded.insert(.persistent) }
    var unreadableShippedEntries: [SettingsError] = []
    var unreadableShippedFiles: [SettingsError] = []
    var given: [Int: [String: PropertyListValue]] = [:]
    for slot in slots {
      let contents: LayerContents
      do {
        contents = try slot.source.read()
      } catch  where options.opensDespiteUnreadableReadOnlyFiles {
        unreadableShippedFiles.append(error)
        given[slot.index] = [:]
        slot.problems.withLock { $0 = [error] }
        continue
      }
      let entries = PersistedPropertyListFile.normalizingKeys(
        of: contents.values, by: options.keyNormalization?.normalize, layer: "\(slot.layer)",
        store: name)
      values[slot.index] = entries
      given[slot.index] = entries
      // A change's description, which knows no store, redacts what a secret layer gives.
      if slot.holdsSecrets { SecretRedaction.noteSecret(entries.keys) }
      unreadableShippedEntries += contents.problems
      slot.problems.withLock { $0 = contents.problems }
      slot.names.withLock { $0 = Array(contents.values.keys) }
      if !contents.isMissing { loaded.insert(slot.layer) }
    }
    self.layersLoadedFromDisk = loaded
    self.persistentFormat = PersistedPropertyListFile.savingFormat(
      option: options.format, file: read.format)
    var state = State(
      order: order, layers: values, fileFormat: persistentFormat,
      sizeLimit: options.maximumFileSize, sizeBounds: read.sizeBounds)
    state.forcedIndices = slots.filter(\.source.isForced).map(\.index)
    state.given = given
    self.state = Locked(state)

    if let recovery = read.recovery {
      // Entries that could be read but weren't written back yet: the next save writes them.
      if case .success = recovery.setAside, !recovery.rewroteSalvagedEntries {
        self.state.withLock { state in
          for key in read.entries.keys { state.unsaved.mark(key) }
        }
      }
      record(recovery)
    }
    for leftover in leftovers { record(leftover) }
    for problem in unreadableShippedEntries { record(unreadableShippedEntry: problem) }
    for problem in unreadableShippedFiles { record(unreadableShippedFile: problem) }
    recordLayerFiles()
    if options.savesAtExit {
      ExitHandlers.register(self) { [weak self] in self?.saveReportingFailure() }
    }
    if options.watchesFiles { startWatching() }
  }

  /// Stops the program if a list of layers lacks ``Layer/runtime`` or ``Layer/persistent``, or
  /// names a layer twice: a programming mistake.
  private static func checkLayers(_ order: [Layer]) {
    for own in [Layer.runtime, .persistent] {
      let count = order.count(where: { $0 == own })
      precondition(
        count == 1,
        "A LayeredPlistStore's layers must hold .\(own) exactly once; \(order) holds it \(count) "
          + "times")
    }
    var seen = Set<Layer>()
    for layer in order where !seen.insert(layer).inserted {
      preconditionFailure(
        "A LayeredPlistStore's layers must have different names; '\(layer)' is named twice in "
          + "\(order)")
    }
  }

  deinit {
    stopWatching()
    ExitHandlers.unregister(self)
    if options.savesAtExit { saveReportingFailure() }
  }

  /// Problems found in the store's files that it recovered from, oldest first, one entry per
  /// problem: a corrupt `data.plist` moved aside when the store opened, or found by a later save
  /// or ``reload()`` (for a partly readable one, each entry left out, naming its key); entries of
  /// a delivered or bundled file left out; and a delivered or bundled file opened as an empty
  /// layer (``Options/opensDespiteUnreadableReadOnlyFiles``).
  public var recoveredProblems: [SettingsError] {
    problems.withLock { $0 }
  }

  /// The number of times this store has written `data.plist`.
  ///
  /// For the project's tests and benchmarks (`@_spi(Testing) import TypedDefaultsLayers`): not
  /// part of the public API.
  @_spi(Testing) public var saveCount: Int {
    state.withLock { $0.saveCount }
  }

  // MARK: - Keys

  /// The key as the store uses it: normalized, if the store normalizes keys.
  ///
  /// - Parameter key: A key as given.
  /// - Returns: The key after ``Options/keyNormalization``.
  public func normalizedKey(_ key: String) -> String {
    options.keyNormalization?.normalize(key) ?? key
  }

  // MARK: - Reading

  /// Returns the value of the highest-priority layer that has the key.
  ///
  /// - Parameter key: The key to look up (normalized first, if the store normalizes keys).
  /// - Returns: The value, or `nil` if no layer has the key.
  public func value(forKey key: String) -> PropertyListValue? {
    let key = normalizedKey(key)
    return state.withLock { $0.effective[key]?.value }
  }

  @usableFromInline
  package func cell(forKey key: String) -> ValueCell {
    let key = normalizedKey(key)
    return state.withLock { $0.cell(forKey: key) }
  }

  @usableFromInline
  package func value(in cell: ValueCell) -> PropertyListValue? {
    state.withLock { _ in cell.value }
  }

  @usableFromInline
  package func conversion(in cell: ValueCell) -> AnyObject? {
    state.withLock { _ in cell.conversion }
  }

  @usableFromInline
  package func setConversion(
    _ conversion: AnyObject,
    in cell: ValueCell,
    ifValueIs source: PropertyListValue
  ) {
    state.withLock { _ in
      if cell.value == source { cell.conversion = conversion }
    }
  }

  @usableFromInline
  package func setValue(
    _ value: PropertyListValue?,
    in cell: ValueCell,
    forKey key: String
  ) throws(SettingsError) {
    try setValue(value, forKey: key)
  }

  /// Returns the value one layer holds for a key, whether or not a higher layer overrides it.
  ///
  /// - Parameters:
  ///   - key: The key to look up.
  ///   - layer: The layer to read.
  /// - Returns: The layer's value, or `nil` if the layer lacks the key.
  public func value(forKey key: String, in layer: Layer) -> PropertyListValue? {
    let key = normalizedKey(key)
    return state.withLock { state in state.index(of: layer).flatMap { state.layers[$0][key] } }
  }

  /// Returns the layer a key's current value comes from.
  ///
  /// A value the setting bound to the key can't read (a string where a model declared a
  /// `Double`) is not where its value comes from: the setting reads its default, and this
  /// returns `nil`, as ``explain(_:)``'s ``Provenance/source`` does.
  ///
  /// - Parameter key: The key to look up.
  /// - Returns: The highest-priority layer holding the key, or `nil` if none does or a model bound
  ///   to the store declared a type that can't read its value.
  public func layer(forKey key: String) -> Layer? {
    let key = normalizedKey(key)
    guard let winner = state.withLock({ $0.effective[key] }) else { return nil }
    if let declared = declaredKey(key), !declared.reads(winner.value) { return nil }
    return winner.layer
  }

  /// Explains a key's value: what each layer holds, which wins, and any change pending for the
  /// next launch.
  ///
  /// What models bound to the store declared about the key shows too: the description of a key
  /// a model declared `secret: true` shows `<secret>` for every value, and a winning value the
  /// declared type can't read is marked as read as the default (``Provenance/source`` is then
  /// `nil`). A key no model declared is shown as stored.
  ///
  /// - Parameter key: The key to explain.
  /// - Returns: The key's provenance; its `description` is a readable table.
  public func explain(_ key: String) -> Provenance {
    let key = normalizedKey(key)
    let declared = declaredKey(key)
    var conditions: [Layer: String] = [:]
    for slot in sourceSlots {
      if let condition = slot.source.condition { conditions[slot.layer] = condition }
    }
    return state.withLock { state in
      var values: [Layer: PropertyListValue] = [:]
      for (index, layer) in state.order.enumerated() {
        if let value = state.layers[index][key] { values[layer] = value }
      }
      var passedOver: [Layer: PropertyListValue] = [:]
      var passedOverBecause: [Layer: String] = [:]
      for slot in sourceSlots {
        guard let refused = state.refused[slot.index]?[key] else { continue }
        passedOver[slot.layer] = refused
        // Why, by the one rule that passed it over (the words of its diagnostic).
        if let declared, case .refused(let problem) = judge(refused, in: slot, declared: declared) {
          passedOverBecause[slot.layer] = problem
        }
      }
      let change = state.nextLaunch[key].map { pending -> Provenance.NextLaunchChange in
        pending.map(Provenance.NextLaunchChange.set) ?? .remove
      }
      return Provenance(
        key: key, layers: state.order, values: values, nextLaunchChange: change,
        layersWithoutFile: Set(state.order.filter { !$0.isWritable })
          .subtracting(layersLoadedFromDisk),
        secretLayers: secretLayers, forcedLayers: forcedLayers, layerConditions: conditions,
        passedOver: passedOver, passedOverBecause: passedOverBecause, declared: declared)
    }
  }

  /// What a model bound to the store declared about a (normalized) key, if one did.
  func declaredKey(_ key: String) -> DeclaredKey? {
    declaredKeys.withLock { $0[key] }
  }

  /// Whether a model bound to the store declared a key, as a file spells it, secret.
  func isDeclaredSecret(_ key: String) -> Bool {
    declaredKey(normalizedKey(key))?.isSecret ?? false
  }

  /// Returns every key any layer holds, with the value a read returns for it.
  ///
  /// - Returns: The merged view of all layers.
  public func dictionaryRepresentation() -> [String: PropertyListValue] {
    state.withLock { $0.effective.mapValues(\.value) }
  }

  /// Returns the keys and values of one layer, as this run sees it.
  ///
  /// - Parameter layer: The layer to read.
  /// - Returns: The layer's own dictionary.
  public func dictionaryRepresentation(of layer: Layer) -> [String: PropertyListValue] {
    state.withLock { state in state.index(of: layer).map { state.layers[$0] } ?? [:] }
  }

  // MARK: - Writing

  /// Stores a value in the persistent layer, or removes the key from it when `value` is `nil`.
  ///
  /// A value in the runtime layer still wins over the written one until it is removed. A pending
  /// next-launch change of the same key is replaced: the later write wins. When `data.plist` is
  /// saved as XML, the value is stored as the file will give it back (dates rounded down to whole
  /// seconds, `-0.0` as `0.0`), so it reads the same before and after a relaunch.
  ///
  /// - Parameters:
  ///   - value: The value to store, or `nil` to remove the key.
  ///   - key: The key to write.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` for a value nested too deeply,
  ///   holding too many values to be read back, or holding a non-finite date (the check every
  ///   backend makes), and, when `data.plist` is saved as XML, for what XML can't hold: a string
  ///   or key starting with U+FEFF or holding a control character XML forbids;
  ///   ``SettingsError/Code/forcedValue`` for a key a forced layer holds (``isForced(forKey:)``).
  ///   Nothing is changed when this throws.
  public func setValue(_ value: PropertyListValue?, forKey key: String) throws(SettingsError) {
    let key = normalizedKey(key)
    let value = try storable(value, forKey: key, in: .persistent)
    try RealStoreGuard.check(writingTo: persistentFile.url, of: name)
    let changed = try changingState { state throws(SettingsError) in
      try state.checkNotForced(CollectionOfOne(key))
      // One write, no array; the path (a new string) only for an error.
      try state.checkFileSize(
        after: CollectionOfOne((key: key, value: value)), path: persistentFile.url.path)
      return state.writePersistent(value, forKey: key)
    }
    if changed { fileDidChange() }
  }

  /// Stores a value in a writable layer, or removes the key from it when `value` is `nil`.
  ///
  /// - Parameters:
  ///   - value: The value to store, or `nil` to remove the key.
  ///   - key: The key to write.
  ///   - layer: ``Layer/runtime`` (this process only) or ``Layer/persistent`` (saved).
  /// - Throws: ``SettingsError/Code/readOnlyLayer`` for any other layer (``Layer/delivered``,
  ///   ``Layer/bundled``, a source's); otherwise what ``setValue(_:forKey:)`` throws.
  public func setValue(
    _ value: PropertyListValue?,
    forKey key: String,
    in layer: Layer
  ) throws(SettingsError) {
    switch layer {
    case .persistent:
      try setValue(value, forKey: key)
    case .runtime:
      let key = normalizedKey(key)
      let value = try storable(value, forKey: key, in: .runtime)
      try changingState { state throws(SettingsError) in
        try state.checkNotForced(CollectionOfOne(key))
        state.writeRuntime(value, forKey: key)
      }
    default:
      throw SettingsError(
        .readOnlyLayer,
        key: key,
        reason: "The \(layer) layer is read-only; write to the runtime or persistent layer"
      )
    }
  }

  /// Stores several values in the persistent layer at once, all or nothing.
  ///
  /// - Parameter values: The keys and values to store.
  /// - Throws: What ``setValue(_:forKey:)`` throws, for the first value that can't be stored;
  ///   nothing is stored then.
  public func setValues(_ values: [String: PropertyListValue]) throws(SettingsError) {
    var storable: [(String, PropertyListValue?)] = []
    storable.reserveCapacity(values.count)
    for (key, value) in values {
      let key = normalizedKey(key)
      storable.append((key, try self.storable(value, forKey: key, in: .persistent)))
    }
    try RealStoreGuard.check(writingTo: persistentFile.url, of: name)
    let changed = try changingState { state throws(SettingsError) in
      try state.checkNotForced(storable.lazy.map(\.0))
      try state.checkFileSize(
        after: storable.map { ($0.0, $0.1) },
        path: persistentFile.url.path)
      return storable.reduce(false) { changed, entry in
        state.writePersistent(entry.1, forKey: entry.0) || changed
      }
    }
    if changed { fileDidChange() }
  }

  /// Removes a key from the persistent layer, which may reveal a value from the delivered or
  /// bundled layer.
  ///
  /// Removing a missing key does nothing. A key a forced layer holds
  /// (``isForced(forKey:)``) isn't removed: this does nothing but report a
  /// ``SettingsDiagnostic/Kind/writeFailed`` diagnostic, as it can't throw.
  ///
  /// - Parameter key: The key to remove.
  public func removeValue(forKey key: String) {
    let key = normalizedKey(key)
    if RealStoreGuard.refuses(removing: key, from: persistentFile.url, of: name) { return }
    let (changed, forcedBy) = changingState { state -> (Bool, Layer?) in
      if let layer = state.forcingLayer(ofKey: key) { return (false, layer) }
      return (state.writePersistent(nil, forKey: key), nil)
    }
    if let forcedBy {
      SettingsDiagnostics.report(
        SettingsDiagnostic(
          kind: .writeFailed, key: key, backend: name,
          message: "\(Self.forcedError(key: key, layer: forcedBy)); nothing was removed"))
    }
    if changed { fileDidChange() }
  }

  /// Writes a value to `data.plist` for the next launch: this run keeps seeing the current value;
  /// the next save writes the new one, and a store opened on the file afterwards sees it.
  ///
  /// `nil` removes the key at the next launch.
  ///
  /// A later ``setValue(_:forKey:)`` of the same key replaces the pending change.
  ///
  /// - Parameters:
  ///   - value: The value for the next launch, or `nil` to remove the key then.
  ///   - key: The key to write.
  /// - Throws: What ``setValue(_:forKey:)`` throws.
  public func setValueForNextLaunch(
    _ value: PropertyListValue?,
    forKey key: String
  ) throws(SettingsError) {
    let key = normalizedKey(key)
    try RealStoreGuard.check(writingTo: persistentFile.url, of: name)
    let value = try storable(value, forKey: key, in: .persistent)
    try state.withLock { state throws(SettingsError) in
      try state.checkNotForced(CollectionOfOne(key))
      // One write, no array; the path (a new string) only for an error.
      try state.checkFileSize(
        after: CollectionOfOne((key: key, value: value)), path: persistentFile.url.path)
      state.writeNextLaunch(value, forKey: key)
    }
    fileDidChange()
  }

  /// Checks a value can be stored in a layer and returns it as it will be stored (XML rules for a
  /// persistent layer saved as XML; no non-finite date in one saved as binary, which the binary
  /// reader refuses).
  func storable(
    _ value: PropertyListValue?,
    forKey key: String,
    in layer: Layer
  ) throws(SettingsError) -> PropertyListValue? {
    guard let value else { return nil }
    return try PersistedPropertyListFile.storable(
      value, forKey: key, format: layer == .persistent ? persistentFormat : .binary)
  }

  /// A delivered or bundled layer's entries with the store's key normalization applied (see
  /// ``PersistedPropertyListFile/normalizingKeys(of:by:layer:store:)``).
  func normalizingKeys(
    of entries: [String: PropertyListValue], layer: Layer
  ) -> [String: PropertyListValue] {
    PersistedPropertyListFile.normalizingKeys(
      of: entries, by: options.keyNormalization?.normalize, layer: "\(layer)", store: name)
  }
}
