import Foundation
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsSchema

/// What a domain argument names: a property-list file, a layered store folder, or a
/// `UserDefaults` suite.
///
/// - A **path** (it contains a `/`, ends in `.plist`, or is `.` or `..`) names an existing folder,
///   which is a layered store, or else a property-list file. As with `defaults`, the `.plist`
///   extension may be left out: `dir/name` means `dir/name.plist` unless `dir/name` exists. A
///   path ending in `/` names a folder, which must exist.
/// - **Any other name** is an app's identifier, such as `com.example.app` (not one that is only
///   whitespace, or starts with `-`, an option), and names the store the app keeps under it:
///   the `LayeredPlistStore` in `StandardLocation.data`'s folder for the name, if that folder
///   holds its `data.plist` or the store's record of its layers (`data.plist.layers`), or else
///   the `UserDefaults` suite of that name, if its file (or the schema an app wrote beside it)
///   exists, or else that folder if it
///   exists (with no store file yet). Both a store and a suite is
///   an error listing them; neither is a domain that doesn't exist, which a write can't create
///   without `--store layered` or `--store defaults` saying which. ``StoreChoice`` settles
///   either case.
struct Domain {
  /// The kind of store a domain is.
  enum Kind {
    /// A property-list file (XML, binary or OpenStep), read and written whole.
    case file(URL)
    /// A folder holding a layered store: `data.plist` (persistent, read-write), and the
    /// read-only layers the app's store recorded (files, folders, managed settings, environment
    /// variables), with the files `--delivered` or `--bundled` name in place of those layers', or
    /// else `JF-info.plist` and `Info.plist` in the folder if present.
    case layered(LayeredFiles)
    /// A `UserDefaults` suite.
    case suite(String)
    /// An app's identifier that names no store yet: neither the layered store's folder nor the
    /// suite's file exists. It reads as a missing domain; writing it needs ``StoreChoice``.
    case unresolved(layeredFolder: URL, suiteFile: URL)
  }

  /// Which store an app's identifier names, when the name alone can't tell: `--store layered`
  /// (the `LayeredPlistStore` in the standard data folder for the name) or `--store defaults`
  /// (the `UserDefaults` suite).
  enum StoreChoice: String, CaseIterable {
    case layered
    case defaults
  }

  /// A layered store folder's layers, as the tool opens them.
  struct LayeredFiles {
    /// The files' names inside the store folder, unless the store's record, `--delivered` or
    /// `--bundled` says otherwise.
    static let persistentName = "data.plist"
    static let deliveredName = "JF-info.plist"
    static let bundledName = "Info.plist"

    /// One layer of the store, highest first.
    struct StoreLayer {
      /// The layer, named as the app's store names it.
      let layer: LayeredPlistStore.Layer
      /// How the tool opens it, or `nil` if the tool can't (the app's command-line arguments, a
      /// source of the app's own): the layer is "not visible to the tool".
      let definition: LayeredPlistStore.LayerDefinition?
      /// How output names where its values come from: a file's name in the folder, or its path
      /// elsewhere; a folder's path; `$PREFIX_*` for environment variables; `-` for none.
      let label: String
      /// The property-list file the layer reads, checked before the store is opened.
      let file: URL?
    }

    let folder: URL
    let persistent: URL
    /// The layers, highest priority first: those the app's store recorded
    /// (`data.plist.layers`), else runtime, persistent, delivered and bundled, with
    /// `--delivered` and `--bundled` in place of those two.
    let layers: [StoreLayer]
    /// Whether the app's store recorded its layers in the folder.
    let isRecorded: Bool
    /// How output names `data.plist`.
    let persistentLabel = persistentName

    /// The layers of the store in `folder`: those the store recorded (`data.plist.layers`,
    /// written by the app's store as it opens), each opened as the app opens it, else the
    /// standard files in the folder; a read-only file `options` names replaces the delivered or
    /// bundled layer's.
    ///
    /// - Throws: The library's error for a record that can't be read.
    init(folder: URL, options: LayerFileOptions) throws(Failure) {
      self.folder = folder
      persistent = folder.appendingPathComponent(Self.persistentName)
      let persistent = persistent
      let recorded = try Failure.fromLibrary { () throws(SettingsError) in
        try LayeredPlistStore.recordedLayers(ofPersistentFile: persistent)
      }
      isRecorded = recorded != nil
      var layers: [StoreLayer]
      if let recorded {
        layers = recorded.map(Self.storeLayer)
      } else {
        layers = [
          StoreLayer(layer: .runtime, definition: .runtime, label: "-", file: nil),
          StoreLayer(
            layer: .persistent, definition: .persistent, label: Self.persistentName, file: nil),
        ]
        for (layer, name) in [
          (LayeredPlistStore.Layer.delivered, Self.deliveredName), (.bundled, Self.bundledName),
        ] {
          let file = folder.appendingPathComponent(name)
          layers.append(
            StoreLayer(
              layer: layer, definition: Self.definition(layer, file), label: name, file: file))
        }
      }
      for (layer, option) in [
        (LayeredPlistStore.Layer.delivered, options.delivered), (.bundled, options.bundled),
      ] {
        guard let option else { continue }
        let file = URL(fileURLWithPath: option)
        let replacement = StoreLayer(
          layer: layer, definition: Self.definition(layer, file), label: option, file: file)
        if let index = layers.firstIndex(where: { $0.layer == layer }) {
          layers[index] = replacement
        } else {
          // Where the standard order puts it: delivered above settingsBundle and bundled,
          // bundled last.
          let below: [LayeredPlistStore.Layer] =
            layer == .delivered ? [.settingsBundle, .bundled] : []
          let index = layers.firstIndex { below.contains($0.layer) } ?? layers.endIndex
          layers.insert(replacement, at: index)
        }
      }
      self.layers = layers
    }

    private static func definition(
      _ layer: LayeredPlistStore.Layer, _ file: URL
    ) -> LayeredPlistStore.LayerDefinition {
      layer == .delivered ? .delivered(file) : .bundled(file)
    }

    /// A recorded layer as the tool opens it and names it.
    private static func storeLayer(_ recorded: LayeredPlistStore.RecordedLayer) -> StoreLayer {
      let definition = LayeredPlistStore.LayerDefinition(recorded: recorded)
      let label: String
      var file: URL?
      switch recorded.source {
      case .propertyListFile(let path)?:
        label = path
        file = URL(fileURLWithPath: path)
      case .directory(let path, _)?, .managed(let path, _)?, .settingsBundle(let path)?:
        label = path
      case .environment(let prefix, _)?:
        label = "$\(prefix)*"
      case .etcd(let endpoints, let prefix, _, _)?:
        label = "etcd \(endpoints.first ?? "?")\(prefix)"
      case nil:
        label = recorded.layer == .persistent ? persistentName : "-"
      }
      return StoreLayer(layer: recorded.layer, definition: definition, label: label, file: file)
    }

    /// The layers the tool opens, in order.
    var definitions: [LayeredPlistStore.LayerDefinition] { layers.compactMap(\.definition) }

    /// The property-list files of the persistent and read-only file layers, checked before the
    /// store is opened.
    var files: [URL] { [persistent] + layers.compactMap(\.file) }

    /// The layers the tool can't open, by name: `arguments`.
    var invisibleLayers: [LayeredPlistStore.Layer] {
      layers.filter { $0.definition == nil }.map(\.layer)
    }

    /// The label of a layer (see ``StoreLayer/label``).
    func label(of layer: LayeredPlistStore.Layer) -> String {
      layers.first { $0.layer == layer }?.label ?? "-"
    }

    /// Whether the folder holds a store: its `data.plist`, or the record a store opened there
    /// made of its layers.
    static func holdsStore(_ folder: URL) -> Bool {
      let persistent = folder.appendingPathComponent(persistentName)
      return [persistent, LayeredPlistStore.layerRecordFile(ofPersistentFile: persistent)]
        .contains { FileManager.default.fileExists(atPath: $0.path) }
    }
  }

  /// How the domain argument is to be taken, from the options before it: where a layered
  /// store's read-only files are, when neither the store's record nor the folder tells (an
  /// app's `Info.plist` lives in its bundle): `settings explain --bundled /opt/app/Info.plist
  /// ./store Key`; and which store an app's identifier names (`--store layered|defaults`).
  struct LayerFileOptions {
    var delivered: String?
    var bundled: String?
    var store: StoreChoice?

    var namesLayerFiles: Bool { delivered != nil || bundled != nil }
  }

  /// The domain as the user typed it, for messages.
  let name: String
  /// What it names.
  let kind: Kind

  /// Resolves a domain argument.
  ///
  /// - Parameters:
  ///   - argument: The domain as typed.
  ///   - verb: The verb, for messages.
  ///   - layerFiles: Where a layered store's read-only files are, if not in its folder.
  /// - Throws: A usage ``Failure`` for an empty name, one that is only whitespace or holds a
  ///   control character (`UserDefaultsBackend.fileNameProblem(_:)`), an option in
  ///   the domain's place (`defaults`' `-g`, `-app`, `-currentHost`, which `settings` doesn't
  ///   have), or `--delivered`/`--bundled` given for a domain that isn't a store folder; a
  ///   ``Failure`` for a folder path (ending in `/`) where there is no folder, or
  ///   `--delivered`/`--bundled` naming no file.
  init(
    _ argument: String, verb: String, layerFiles: LayerFileOptions = .init()
  ) throws(Failure) {
    guard !argument.isEmpty else { throw Failure.usage("\(verb): the domain name is empty") }
    if argument.allSatisfy(\.isWhitespace) {
      throw Failure.usage("\(verb): the domain name '\(argument)' is only whitespace")
    }
    if argument.hasPrefix("-") {
      throw Failure.usage(
        "\(verb): unknown option '\(argument)'; a domain is a suite name, a .plist file or a "
          + "store folder (see 'settings --help')")
    }
    // A name (not a path) names a suite's file or an app's store folder: never one holding a
    // control character, as UserDefaultsBackend refuses it.
    if !Self.looksLikePath(argument), let problem = UserDefaultsBackend.fileNameProblem(argument) {
      throw Failure.usage("\(verb): the domain name '\(argument)' is not a valid name: \(problem)")
    }
    if argument.hasSuffix("/") {
      // A folder, by its final '/': never a file named after it, created by a write.
      var isDirectory: ObjCBool = false
      let path = URL(fileURLWithPath: argument).path  // without the final '/'
      if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
        throw Failure("there is no folder at \(argument); create it to start a store there")
      }
      if !isDirectory.boolValue {
        throw Failure("there is no folder at \(argument): it is a file (name it without the '/')")
      }
    }
    name = argument
    kind = try Self.kind(of: argument, verb: verb, options: layerFiles)
    guard layerFiles.namesLayerFiles else { return }
    guard case .layered = kind else {
      throw Failure.usage(
        "\(verb): --delivered and --bundled apply to a layered store, and \(argument) "
          + "is not one (a folder is named by a path, such as ./store, or an app's identifier "
          + "with --store layered)")
    }
    for (option, path) in [
      ("--delivered", layerFiles.delivered), ("--bundled", layerFiles.bundled),
    ] {
      guard let path else { continue }
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else {
        throw Failure("\(verb): \(option): there is no file at \(path)")
      }
    }
  }

  /// Whether a name is a path rather than a suite name: it contains a `/`, ends in `.plist`, or
  /// is `.` or `..`.
  static func looksLikePath(_ argument: String) -> Bool {
    argument.contains("/") || argument.hasSuffix(".plist") || argument == "." || argument == ".."
  }

  /// Whether `name`, typed as a domain, names the suite `name`: not a path, not an option, not
  /// empty or only whitespace, and a valid suite name (no control character).
  ///
  /// `domains` lists only the suites this holds for.
  static func isSuiteName(_ name: String) -> Bool {
    !name.allSatisfy(\.isWhitespace) && !name.hasPrefix("-") && !looksLikePath(name)
      && UserDefaultsBackend.fileNameProblem(name) == nil
  }

  private static func kind(
    of argument: String, verb: String, options: LayerFileOptions
  ) throws(Failure) -> Kind {
    guard looksLikePath(argument) else {
      return try kind(ofIdentifier: argument, verb: verb, options: options)
    }
    if options.store != nil {
      throw Failure.usage(
        "\(verb): --store applies to an app's identifier, and \(argument) is a path, which names "
          + "its store itself")
    }
    let url = URL(fileURLWithPath: argument)
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
      return isDirectory.boolValue
        ? .layered(try LayeredFiles(folder: url, options: options)) : .file(url)
    }
    // `defaults` accepts a path without its `.plist` extension.
    if !argument.hasSuffix(".plist"), !argument.hasSuffix("/"),
      !FileManager.default.isSymbolicLink(url)
    {
      return .file(URL(fileURLWithPath: argument + ".plist"))
    }
    return .file(url)
  }

  /// What an app's identifier names: see the type's documentation.
  private static func kind(
    ofIdentifier name: String, verb: String, options: LayerFileOptions
  ) throws(Failure) -> Kind {
    let folder = layeredStoresDirectory.appendingPathComponent(name, isDirectory: true)
    let suite = suiteFile(name)
    switch options.store {
    case .layered?:
      return .layered(try LayeredFiles(folder: folder, options: options))
    case .defaults?:
      return .suite(name)
    case nil:
      break
    }
    let isLayered = LayeredFiles.holdsStore(folder)
    // The app's schema beside the suite's file names the suite too: the app wrote it before its
    // first save.
    let isSuite = [suite, SettingsSchema.fileURL(nextTo: suite)].contains {
      FileManager.default.fileExists(atPath: $0.path)
    }
    switch (isLayered, isSuite) {
    case (true, true):
      throw Failure.usage(
        "\(verb): \(name) names two stores: the LayeredPlistStore in \(folder.path) and the "
          + "UserDefaults suite \(suite.path); say which with --store layered or --store "
          + "defaults before the name, or name the folder or file by its path")
    case (true, false):
      return .layered(try LayeredFiles(folder: folder, options: options))
    case (false, true):
      return .suite(name)
    case (false, false):
      // The app's data folder with no store file (made by this tool's `--store layered`, or left
      // empty), which counts as the app's store.
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory),
        isDirectory.boolValue
      {
        return .layered(try LayeredFiles(folder: folder, options: options))
      }
      return .unresolved(layeredFolder: folder, suiteFile: suite)
    }
  }

  /// The folder an app's `LayeredPlistStore` folders are in, one per app identifier:
  /// `StandardLocation.data` (on Linux `$XDG_DATA_HOME`, else `$HOME/.local/share`; on Apple
  /// platforms Application Support).
  static var layeredStoresDirectory: URL {
    StandardLocation.data.baseDirectory()
  }

  /// The folder `UserDefaults` keeps suites in: on Linux `$XDG_CONFIG_HOME`, else
  /// `$HOME/.config` (`$HOME` honoured); on Apple platforms `~/Library/Preferences`.
  static var suitesDirectory: URL {
    #if canImport(Darwin)
      FileManager.default.homeDirectoryForCurrentUser.appending(path: "Library/Preferences")
    #else
      StandardLocation.configuration.baseDirectory()
    #endif
  }

  /// The file a suite is kept in: `<suites directory>/<name>.plist`.
  static func suiteFile(_ suite: String) -> URL {
    suitesDirectory.appendingPathComponent("\(suite).plist")
  }
}

extension FileManager {
  /// Whether a symbolic link (dangling or not) is at `url`.
  fileprivate func isSymbolicLink(_ url: URL) -> Bool {
    (try? attributesOfItem(atPath: url.path)[.type] as? FileAttributeType) == .typeSymbolicLink
  }
}
