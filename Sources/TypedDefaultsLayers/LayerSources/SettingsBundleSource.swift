import Foundation
import TypedDefaults

/// The ``LayeredPlistStore/Layer/settingsBundle`` layer: the `DefaultValue`s of an iOS
/// `Settings.bundle`, the defaults the Settings app shows before the user changes anything.
///
/// ```swift
/// let bundle = Bundle.main.url(forResource: "Settings", withExtension: "bundle")!
/// let store = try LayeredPlistStore(
///   persistentFile: dataFile,
///   layers: [.runtime, .persistent, .source(SettingsBundleSource(bundle: bundle))])
/// ```
///
/// The Settings app reads the defaults of a bundle but never registers them: an app reading
/// `UserDefaults` sees none of them until the user opens its settings, unless it registers them
/// itself. This source gives them to the store as a layer, so the values the app reads are those
/// the Settings app shows.
///
/// The rules:
///
/// - `Root.plist` is read (with the library's strict property-list reader: the bundle's bytes are
///   not trusted), and each item of its `PreferenceSpecifiers` array that has a `Key` and a
///   `DefaultValue` gives that key that value, typed as the file types it (a toggle's `<true/>`, a
///   slider's `<real>`, a text field's `<string>`; a toggle with a `TrueValue` and a `FalseValue`
///   gives its `DefaultValue` as written). This is every specifier that stores a value
///   (`PSToggleSwitchSpecifier`, `PSTextFieldSpecifier`, `PSMultiValueSpecifier`,
///   `PSSliderSpecifier`, `PSTitleValueSpecifier`, `PSRadioGroupSpecifier`); groups have no key,
///   and a specifier without a `DefaultValue` gives none.
/// - A `PSChildPaneSpecifier` is followed to `<File>.plist` in the same bundle, read at its place
///   in the list, and so on down. A child pane that is missing, can't be read, names a file
///   outside the bundle, or leads back to a pane being read (a cycle) is reported as a problem and
///   skipped; a pane reached twice by two ways is read once.
/// - A key defined twice keeps its first `DefaultValue`, in reading order (`Root.plist` before
///   its child panes): the one the user meets first. The second is reported as a problem.
/// - An item that isn't a dictionary, or whose `Key` isn't a string, is reported as a problem.
/// - A missing bundle, or a bundle without `Root.plist`, is an empty layer.
///
/// A bundle doesn't change while the app runs, so the source doesn't watch it.
///
/// Thread-safety: `Sendable`; ``read()`` keeps no state and may run on several threads at once.
public final class SettingsBundleSource: LayerSource, CustomStringConvertible {
  /// The `Settings.bundle` folder, as an absolute file URL.
  public let bundle: URL

  /// ``LayeredPlistStore/Layer/settingsBundle``.
  public var layer: LayeredPlistStore.Layer { .settingsBundle }

  /// Creates a source reading a `Settings.bundle`; nothing is read until ``read()``.
  ///
  /// - Parameter bundle: The `Settings.bundle` folder (a `file:` URL).
  public init(bundle: URL) {
    self.bundle = bundle.standardizedFileURL
  }

  /// ``RecordedLayerSource/settingsBundle(path:)`` with the bundle's absolute path.
  public var recordedSource: RecordedLayerSource? { .settingsBundle(path: bundle.path) }

  /// The source's bundle: `SettingsBundleSource(/…/Settings.bundle)`.
  public var description: String { "SettingsBundleSource(\(bundle.path))" }

  /// The deepest chain of child panes followed; a deeper one is reported as a problem.
  static let maximumDepth = 32

  /// Reads the defaults of `Root.plist` and of the child panes it leads to.
  ///
  /// - Returns: The `DefaultValue` of each key, and a problem for each pane or item left out
  ///   (a child pane missing, unreadable or in a cycle, an item that isn't a dictionary, a key
  ///   defined twice); empty if the bundle or its `Root.plist` doesn't exist.
  /// - Throws: ``SettingsError`` naming `Root.plist` when it can't be read
  ///   (``SettingsError/Code/fileNotReadable``, ``SettingsError/Code/fileTooLarge``,
  ///   ``SettingsError/Code/corruptFile``), or its root isn't a dictionary
  ///   (``SettingsError/Code/wrongRootType``).
  public func read() throws(SettingsError) -> LayerContents {
    var reading = Reading()
    guard let root = try PropertyListFile(url: url(ofPane: "Root")).readDictionary() else {
      return LayerContents(values: [:])
    }
    reading.visited.insert("Root")
    read(root, pane: "Root", path: ["Root"], into: &reading)
    return LayerContents(values: reading.values, problems: reading.problems)
  }

  /// What a read gathered so far.
  private struct Reading {
    var values: [String: PropertyListValue] = [:]
    /// Where each key's value came from, to name it when the key comes again.
    var origins: [String: String] = [:]
    var problems: [SettingsError] = []
    /// The panes read (or being read), by file name without `.plist`.
    var visited: Set<String> = []
  }

  private func url(ofPane pane: String) -> URL {
    bundle.appendingPathComponent(pane + ".plist")
  }

  /// Takes in the specifiers of one pane, following its child panes.
  ///
  /// - Parameters:
  ///   - contents: The pane's root dictionary.
  ///   - pane: Its file name without `.plist`.
  ///   - path: The panes from `Root` down to this one.
  ///   - reading: What the read gathered so far.
  private func read(
    _ contents: [String: PropertyListValue], pane: String, path: [String],
    into reading: inout Reading
  ) {
    let file = url(ofPane: pane).path
    guard let specifiers = contents["PreferenceSpecifiers"] else { return }
    guard case .array(let items) = specifiers else {
      reading.problems.append(
        SettingsError(
          .corruptFile, path: file,
          reason:
            "PreferenceSpecifiers is of kind \(specifiers.kind), not an array; the pane is skipped")
      )
      return
    }
    for (index, item) in items.enumerated() {
      guard case .dictionary(let specifier) = item else {
        reading.problems.append(
          SettingsError(
            .corruptFile, path: file,
            reason: "PreferenceSpecifiers item \(index) is of kind \(item.kind), not a dictionary"))
        continue
      }
      if specifier["Type"] == "PSChildPaneSpecifier" {
        readChildPane(specifier, index: index, from: pane, path: path, into: &reading)
        continue
      }
      guard let key = specifier["Key"] else { continue }  // a group, a child pane
      guard case .string(let name) = key else {
        reading.problems.append(
          SettingsError(
            .corruptFile, path: file,
            reason:
              "The Key of PreferenceSpecifiers item \(index) is of kind \(key.kind), not a string"))
        continue
      }
      guard let value = specifier["DefaultValue"] else { continue }
      if let first = reading.origins[name] {
        reading.problems.append(
          SettingsError(
            .corruptFile, path: file, key: name,
            reason:
              "The key is defined again (item \(index)); the first DefaultValue, in \(first).plist,"
              + " is kept"))
        continue
      }
      reading.values[name] = value
      reading.origins[name] = pane
    }
  }

  /// Follows a `PSChildPaneSpecifier` to its `File`, unless it is missing, outside the bundle, in
  /// a cycle or too deep.
  private func readChildPane(
    _ specifier: [String: PropertyListValue], index: Int, from pane: String, path: [String],
    into reading: inout Reading
  ) {
    let file = url(ofPane: pane).path
    guard case .string(let child)? = specifier["File"], !child.isEmpty else {
      reading.problems.append(
        SettingsError(
          .corruptFile, path: file,
          reason: "The PSChildPaneSpecifier item \(index) has no File string; it is skipped"))
      return
    }
    guard !child.contains("/"), !child.hasPrefix(".") else {
      reading.problems.append(
        SettingsError(
          .corruptFile, path: file,
          reason:
            "The child pane \"\(child)\" (item \(index)) names a file outside the bundle;"
            + " it is skipped"))
      return
    }
    if path.contains(child) {
      reading.problems.append(
        SettingsError(
          .corruptFile, path: file,
          reason:
            "The child pane \"\(child)\" (item \(index)) leads back to a pane being read ("
            + (path + [child]).joined(separator: " → ") + "); it is skipped"))
      return
    }
    guard reading.visited.insert(child).inserted else { return }  // read by another way
    guard path.count < Self.maximumDepth else {
      reading.problems.append(
        SettingsError(
          .corruptFile, path: file,
          reason:
            "The child pane \"\(child)\" (item \(index)) is deeper than \(Self.maximumDepth)"
            + " panes; it is skipped"))
      return
    }
    let childURL = url(ofPane: child)
    do {
      guard let contents = try PropertyListFile(url: childURL).readDictionary() else {
        reading.problems.append(
          SettingsError(
            .fileNotReadable, path: childURL.path,
            reason:
              "The child pane \"\(child)\" of \(pane).plist (item \(index)) doesn't exist;"
              + " it is skipped"))
        return
      }
      read(contents, pane: child, path: path + [child], into: &reading)
    } catch {
      reading.problems.append(error)
    }
  }
}
