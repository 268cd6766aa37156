import Foundation
import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension LayeredPlistStore {
  /// Where a store's read-only layers' files are, as the store records them beside its
  /// `data.plist` (see ``recordedLayerFiles(ofPersistentFile:)``).
  public struct LayerFiles: Sendable, Hashable {
    /// The delivered layer's file, or `nil` for none.
    public var delivered: URL?
    /// The bundled layer's file, or `nil` for none.
    public var bundled: URL?

    /// Creates a record of read-only layer files.
    ///
    /// - Parameters:
    ///   - delivered: The delivered layer's file (`JF-info.plist`), or `nil` for none.
    ///   - bundled: The bundled layer's file (`Info.plist`), or `nil` for none.
    public init(delivered: URL? = nil, bundled: URL? = nil) {
      self.delivered = delivered
      self.bundled = bundled
    }
  }

  /// The file in which a store records its layers and where their sources are: `data.plist.layers`
  /// beside `data.plist` (the persistent file's name with `.layers` added).
  ///
  /// - Parameter persistentFile: The store's `data.plist`.
  /// - Returns: The record's location; nothing is read or created.
  public static func layerRecordFile(ofPersistentFile persistentFile: URL) -> URL {
    persistentFile.deletingLastPathComponent()
      .appendingPathComponent(persistentFile.lastPathComponent + ".layers")
  }

  /// One layer of a store as the store records it beside its `data.plist`: its name, and how a
  /// tool can open its source again.
  ///
  /// Thread-safety: a value type, `Sendable`.
  package struct RecordedLayer: Sendable, Hashable {
    /// The layer.
    package var layer: Layer
    /// How to open its source again, or `nil` for ``Layer/runtime``, ``Layer/persistent``, a
    /// layer without a source, and a source that can't be recorded.
    package var source: RecordedLayerSource?

    /// Creates a record of a layer.
    ///
    /// - Parameters:
    ///   - layer: The layer.
    ///   - source: How to open its source again, or `nil` for none.
    package init(layer: Layer, source: RecordedLayerSource? = nil) {
      self.layer = layer
      self.source = source
    }
  }

  /// Reads the record a store made of its layers, in its order, so that a tool opening the
  /// store's folder (the `settings` tool) reads the layers the app reads.
  ///
  /// A store whose ``Options/recordsLayerFiles`` is on (the default) and that has a layer whose
  /// source can be recorded (``LayerSource/recordedSource``) writes the record as it opens (if
  /// its folder exists; else at the first save, which creates the folder): an
  /// XML property list, `layers` mapped to an array holding, for each layer highest first, a
  /// dictionary of its `name` and, for a recorded source, its `source`. A record in the earlier
  /// format, `delivered` and `bundled` mapped to absolute paths, reads as the four layers the
  /// store then had. Safe to call from any thread.
  ///
  /// - Parameter persistentFile: The store's `data.plist`.
  /// - Returns: The layers the store was last opened with, highest first, or `nil` if there is
  ///   no record.
  /// - Throws: ``SettingsError`` naming the record if it exists but can't be read, isn't a
  ///   property list, or isn't a record of layers (``SettingsError/Code/corruptFile``: a layer
  ///   without a name or listed twice, no ``Layer/runtime`` or ``Layer/persistent`` layer, a
  ///   source of a kind this version can't open, such as one a later version recorded, or with
  ///   a field missing or malformed); the error's reason names the layer and what is wrong.
  package static func recordedLayers(
    ofPersistentFile persistentFile: URL
  ) throws(SettingsError) -> [RecordedLayer]? {
    let record = PropertyListFile(url: layerRecordFile(ofPersistentFile: persistentFile))
    guard let entries = try record.readDictionary() else { return nil }
    func corrupt(_ reason: String) -> SettingsError {
      SettingsError(.corruptFile, path: record.url.path, reason: reason)
    }
    guard let recorded = entries["layers"] else {
      // The earlier format: {delivered, bundled} mapped to absolute paths.
      var files: [Layer: String] = [:]
      for (key, value) in entries {
        guard case .string(let path) = value, path.hasPrefix("/"),
          key == "delivered" || key == "bundled"
        else {
          throw corrupt("'\(key)' is not 'delivered' or 'bundled' mapped to an absolute path")
        }
        files[Layer(key)] = path
      }
      return [Layer.runtime, .persistent, .delivered, .bundled].map { layer in
        RecordedLayer(layer: layer, source: files[layer].map { .propertyListFile(path: $0) })
      }
    }
    guard entries.count == 1, case .array(let list) = recorded else {
      throw corrupt("'layers' is not an array of layers, or is not alone")
    }
    var layers: [RecordedLayer] = []
    for (position, item) in list.enumerated() {
      guard case .dictionary(let fields) = item, case .string(let name)? = fields["name"],
        !name.isEmpty
      else {
        throw corrupt("layer \(position + 1) has no name")
      }
      var layer = RecordedLayer(layer: Layer(name))
      if let source = fields["source"] {
        do {
          layer.source = try RecordedLayerSource(recorded: source)
        } catch {
          throw corrupt("the source of the '\(name)' layer \(error.reason)")
        }
      }
      guard !layers.contains(where: { $0.layer == layer.layer }) else {
        throw corrupt("the '\(name)' layer is listed twice")
      }
      layers.append(layer)
    }
    // A store has both of its own layers: a record without them wasn't written by one.
    for own in [Layer.runtime, .persistent] where !layers.contains(where: { $0.layer == own }) {
      throw corrupt("it has no '\(own)' layer")
    }
    return layers
  }

  /// Reads where the read-only layers' files of the record a store made are (see
  /// ``recordedLayers(ofPersistentFile:)``): the property-list files of its ``Layer/delivered``
  /// and ``Layer/bundled`` layers.
  ///
  /// Safe to call from any thread.
  ///
  /// - Parameter persistentFile: The store's `data.plist`.
  /// - Returns: The files the store was last opened with, or `nil` if there is no record.
  /// - Throws: What ``recordedLayers(ofPersistentFile:)`` throws.
  public static func recordedLayerFiles(
    ofPersistentFile persistentFile: URL
  ) throws(SettingsError) -> LayerFiles? {
    guard let layers = try recordedLayers(ofPersistentFile: persistentFile) else { return nil }
    func file(of layer: Layer) -> URL? {
      guard case .propertyListFile(let path)? = layers.first(where: { $0.layer == layer })?.source
      else { return nil }
      return URL(fileURLWithPath: path)
    }
    return LayerFiles(delivered: file(of: .delivered), bundled: file(of: .bundled))
  }

  /// Writes the record of the store's layers (see ``recordedLayers(ofPersistentFile:)``) if a
  /// layer's source can be recorded and the record differs; in a folder the process can't write
  /// nothing is written or reported; another failure is reported as a diagnostic, since the
  /// store works without it.
  func recordLayerFiles() {
    guard options.recordsLayerFiles,
      sourceSlots.contains(where: { $0.source.recordedSource != nil })
    else { return }
    let folder = persistentFile.url.deletingLastPathComponent()
    // No folder, no store yet: its first save reports that.
    guard FileManager.default.fileExists(atPath: folder.path) else { return }
    // A folder this process can't write (a read-only service's, issue 37): the record is
    // bookkeeping for tools, not the app's data, so it is skipped quietly rather than reported
    // as a failed save at every start. A tool opening the folder then finds the layers of an
    // earlier record, or none.
    guard access(folder.path, W_OK) == 0 else { return }
    let sources = Dictionary(
      uniqueKeysWithValues: sourceSlots.map { ($0.layer, $0.source.recordedSource) })
    let list = layers.map { layer -> PropertyListValue in
      var fields: [String: PropertyListValue] = ["name": .string(layer.name)]
      if case .some(.some(let source)) = sources[layer] { fields["source"] = source.recorded }
      return .dictionary(fields)
    }
    let entries: [String: PropertyListValue] = ["layers": .array(list)]
    let record = PropertyListFile(url: Self.layerRecordFile(ofPersistentFile: persistentFile.url))
    if (try? record.readDictionary()) == entries { return }
    do {
      try record.write(.dictionary(entries), format: .xml)
    } catch {
      SettingsDiagnostics.report(
        SettingsDiagnostic(
          kind: .saveFailed, key: nil, backend: name,
          message: "\(error); tools opening the store's folder won't find its read-only layers"))
    }
  }
}

extension RecordedLayerSource {
  /// The kinds of source a record can hold, as it names them.
  static let recordedKinds = [
    "propertyListFile", "directory", "environment", "managed", "settingsBundle", "etcd",
  ]

  /// The source as a record holds it: a dictionary of its `kind` and its fields.
  ///
  /// An environment source made without keys has no `keys`, a managed file trusted to root
  /// alone no `trustedOwner`, so that such records read as they did before these fields existed.
  var recorded: PropertyListValue {
    switch self {
    case .propertyListFile(let path):
      return ["kind": "propertyListFile", "path": .string(path)]
    case .directory(let path, let holdsSecrets):
      return ["kind": "directory", "path": .string(path), "holdsSecrets": .bool(holdsSecrets)]
    case .environment(let prefix, let keys):
      var fields: [String: PropertyListValue] = ["kind": "environment", "prefix": .string(prefix)]
      if let keys { fields["keys"] = .array(keys.map(PropertyListValue.string)) }
      return .dictionary(fields)
    case .managed(let path, let trustedOwner):
      var fields: [String: PropertyListValue] = ["kind": "managed", "path": .string(path)]
      if trustedOwner != 0 { fields["trustedOwner"] = .integer(.init(Int64(trustedOwner))) }
      return .dictionary(fields)
    case .settingsBundle(let path):
      return ["kind": "settingsBundle", "path": .string(path)]
    case .etcd(let endpoints, let prefix, let user, let lastKnownGoodFile):
      var fields: [String: PropertyListValue] = [
        "kind": "etcd", "endpoints": .array(endpoints.map(PropertyListValue.string)),
        "prefix": .string(prefix),
      ]
      if let user { fields["user"] = .string(user) }
      if let lastKnownGoodFile { fields["lastKnownGoodFile"] = .string(lastKnownGoodFile) }
      return .dictionary(fields)
    }
  }

  /// Reads a source as a record holds it (``recorded``).
  ///
  /// - Throws: Why it isn't one, as a phrase completing "the source of the layer …": its kind
  ///   is unknown (a record written by a later version), or a field is missing or malformed.
  init(recorded: PropertyListValue) throws(RecordProblem) {
    guard case .dictionary(let fields) = recorded, case .string(let kind)? = fields["kind"]
    else { throw RecordProblem("has no kind") }
    func path() throws(RecordProblem) -> String {
      guard case .string(let path)? = fields["path"], path.hasPrefix("/") else {
        throw RecordProblem("(\(kind)) has no absolute 'path'")
      }
      return path
    }
    switch kind {
    case "propertyListFile":
      self = .propertyListFile(path: try path())
    case "directory":
      guard case .bool(let holdsSecrets)? = fields["holdsSecrets"] else {
        throw RecordProblem("(directory) has no boolean 'holdsSecrets'")
      }
      self = .directory(path: try path(), holdsSecrets: holdsSecrets)
    case "environment":
      guard case .string(let prefix)? = fields["prefix"] else {
        throw RecordProblem("(environment) has no 'prefix'")
      }
      var keys: [String]?
      if let recordedKeys = fields["keys"] {
        guard case .array(let list) = recordedKeys else {
          throw RecordProblem("(environment) has 'keys' that are not an array of strings")
        }
        keys = []
        for item in list {
          guard case .string(let key) = item else {
            throw RecordProblem("(environment) has 'keys' that are not an array of strings")
          }
          keys?.append(key)
        }
      }
      self = .environment(prefix: prefix, keys: keys)
    case "managed":
      var owner: UInt32 = 0
      if let recordedOwner = fields["trustedOwner"] {
        guard case .integer(let number) = recordedOwner,
          let uid = number.int64Value.flatMap({ UInt32(exactly: $0) })
        else {
          throw RecordProblem("(managed) has a 'trustedOwner' that is not a user id")
        }
        owner = uid
      }
      self = .managed(path: try path(), trustedOwner: owner)
    case "settingsBundle":
      self = .settingsBundle(path: try path())
    case "etcd":
      guard case .array(let list)? = fields["endpoints"], !list.isEmpty else {
        throw RecordProblem("(etcd) has no 'endpoints' array")
      }
      var endpoints: [String] = []
      for item in list {
        guard case .string(let endpoint) = item else {
          throw RecordProblem("(etcd) has 'endpoints' that are not an array of strings")
        }
        endpoints.append(endpoint)
      }
      guard case .string(let prefix)? = fields["prefix"] else {
        throw RecordProblem("(etcd) has no 'prefix'")
      }
      var user: String?
      if let recordedUser = fields["user"] {
        guard case .string(let name) = recordedUser else {
          throw RecordProblem("(etcd) has a 'user' that is not a string")
        }
        user = name
      }
      var file: String?
      if let recordedFile = fields["lastKnownGoodFile"] {
        guard case .string(let path) = recordedFile, path.hasPrefix("/") else {
          throw RecordProblem("(etcd) has a 'lastKnownGoodFile' that is not an absolute path")
        }
        file = path
      }
      self = .etcd(endpoints: endpoints, prefix: prefix, user: user, lastKnownGoodFile: file)
    default:
      throw RecordProblem(
        "has the kind '\(kind)', which this version of TypedDefaults can't open (it opens "
          + Self.recordedKinds.map { "'\($0)'" }.joined(separator: ", ") + ")")
    }
  }

  /// Why a recorded source can't be read.
  struct RecordProblem: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
  }
}
