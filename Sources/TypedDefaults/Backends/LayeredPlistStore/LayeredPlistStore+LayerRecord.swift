import Foundation

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

  /// The file in which a store records where its read-only layers' files are: `data.plist.layers`
  /// beside `data.plist` (the persistent file's name with `.layers` added).
  ///
  /// - Parameter persistentFile: The store's `data.plist`.
  /// - Returns: The record's location; nothing is read or created.
  public static func layerRecordFile(ofPersistentFile persistentFile: URL) -> URL {
    persistentFile.deletingLastPathComponent()
      .appendingPathComponent(persistentFile.lastPathComponent + ".layers")
  }

  /// Reads the record a store made of where its read-only layers' files are, so that a tool
  /// opening the store's folder (the `settings` tool) sees the layers the app sees.
  ///
  /// A store whose ``Options/recordsLayerFiles`` is on (the default) and that has a delivered or
  /// bundled file writes the record as it opens: an XML property list, `delivered` and
  /// `bundled` mapped to absolute paths. Safe to call from any thread.
  ///
  /// - Parameter persistentFile: The store's `data.plist`.
  /// - Returns: The files the store was last opened with, or `nil` if there is no record.
  /// - Throws: ``SettingsError`` naming the record if it exists but can't be read, isn't a
  ///   property list, or doesn't map `delivered` and `bundled` to paths.
  public static func recordedLayerFiles(
    ofPersistentFile persistentFile: URL
  ) throws(SettingsError) -> LayerFiles? {
    let record = PropertyListFile(url: layerRecordFile(ofPersistentFile: persistentFile))
    guard let entries = try record.readDictionary() else { return nil }
    var files = LayerFiles()
    for (key, value) in entries {
      guard case .string(let path) = value, path.hasPrefix("/"),
        key == "delivered" || key == "bundled"
      else {
        throw SettingsError(
          .corruptFile, path: record.url.path,
          reason: "'\(key)' is not 'delivered' or 'bundled' mapped to an absolute path")
      }
      if key == "delivered" {
        files.delivered = URL(fileURLWithPath: path)
      } else {
        files.bundled = URL(fileURLWithPath: path)
      }
    }
    return files
  }

  /// Writes the record of the store's read-only layer files (see
  /// ``recordedLayerFiles(ofPersistentFile:)``) if the store has such a file and the record
  /// differs; a failure is reported as a diagnostic, since the store works without it.
  func recordLayerFiles() {
    guard options.recordsLayerFiles, deliveredFile != nil || bundledFile != nil else { return }
    let folder = persistentFile.url.deletingLastPathComponent()
    // No folder, no store yet: its first save reports that.
    guard FileManager.default.fileExists(atPath: folder.path) else { return }
    var entries: [String: PropertyListValue] = [:]
    if let deliveredFile {
      entries["delivered"] = .string(deliveredFile.url.standardizedFileURL.path)
    }
    if let bundledFile { entries["bundled"] = .string(bundledFile.url.standardizedFileURL.path) }
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
