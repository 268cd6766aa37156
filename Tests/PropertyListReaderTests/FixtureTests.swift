import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// Checks TypedDefaults against the real property lists in `../shared/fixtures/plists`
/// (``TestPaths/sharedFixtures``), described by its `SOURCES.json`, and against the independent
/// reading of them by Python's plistlib checked in as `Fixtures/plistlib-expectations.json`.
///
/// Outcomes Foundation (Swift 6.3.1, Linux) gives for the `invalid/` files that `SOURCES.json`
/// marks `swift_serialization: OK`, opened as the delivered layer (recorded when this suite was
/// written; ``invalidFileIsRefusedCleanlyOrRead(_:)`` accepts either a read or a typed error):
///
/// | File | Outcome |
/// |---|---|
/// | `cpython__invalid_binary_invalid_ascii` | wrongRootType (root is a string) |
/// | `cpython__invalid_binary_invalid_utf_16` | wrongRootType (root is a string) |
/// | `cpython__invalid_binary_invalid_datetime_infinity` | wrongRootType (root is a date) |
/// | `cpython__invalid_binary_invalid_datetime_nan` | wrongRootType (root is a date) |
/// | `cpython__invalid_binary_too_large_datetime_datetime_overflow` | wrongRootType (a date) |
/// | `dd-plist__github-issue73-3` (`bplistl`) | wrongRootType (an OpenStep string) |
/// | `go-plist__xml_bare_bplist_magic_only` (`bplist00`) | wrongRootType (an OpenStep string) |
/// | `go-plist__xml_data_invalid_base64` | wrongRootType (root is data) |
/// | `go-plist__bplist_dictionary_non_string_key` | corruptFile (a Bool key) |
/// | `libplist__fuzz_bplist-crashes_crash-39f1347115f8` | corruptFile (an integer key) |
/// | `swift-foundation__Test_82142612.bad` | corruptFile (a Data key) |
/// | `dd-plist__github-issue73-5` (`/*` NUL NUL `/`) | opens: an empty dictionary |
/// | `go-plist__text_truncated_block_comment` | opens: an empty dictionary |
/// | `dd-plist__github-issue88` (escape `\d`) | opens: `{Hello = World}` |
/// | `go-plist__xml_unusual_cases_s08` (text after `</plist>`) | opens: `{test = value}` |
/// | `go-plist__xml_unusual_cases_s09` (bad DOCTYPE) | opens: `{test = value}` |
/// | `go-plist__xml_unusual_cases_s11` (`<key Q=">">`) | opens: `test = apple`, `"\">test"` |
///
/// XML no longer goes to Foundation (``XMLPropertyListReader``): s08 and s09 are refused as
/// corrupt, s11 (well formed: `>` may appear in an attribute value) opens as `{test = libplist}`,
/// and `swift-foundation__xmlErrors_Fake_inline_DTD`, which Foundation refuses, opens.
///
/// Foundation reports 62 of the 64 corrupt binary files as "Unexpected character b at
/// line 1": its binary reader fails, and the OpenStep reader it falls back to reports the error.
@Suite(
  .enabled(
    if: TestPaths.hasSharedFixtures,
    """
    The shared plist fixtures (../shared/fixtures/plists/SOURCES.json, beside the project) are \
    absent: skipping the tests against real property-list files
    """
  )
)
struct FixtureTests {
  // MARK: - The corpus itself

  @Test("SOURCES.json, the fixture folders and plistlib-expectations.json agree")
  func corpusIsConsistent() throws {
    let catalog = try Catalog.load()
    let manager = FileManager.default
    for folder in ["valid", "invalid"] {
      let onDisk = try manager.contentsOfDirectory(
        atPath: TestPaths.sharedFixtures.appendingPathComponent(folder).path)
      let listed = catalog.entries.filter { $0.folder == folder }.map(\.name)
      #expect(Set(onDisk) == Set(listed), "\(folder)/ and SOURCES.json list different files")
      #expect(!listed.isEmpty, "SOURCES.json lists no \(folder)/ file")
    }
    #expect(
      Set(catalog.entries.map(\.name)).count == catalog.entries.count,
      "SOURCES.json names a file twice")
    let readable = catalog.entries.filter { $0.folder == "valid" && $0.serializationOK }
    #expect(Set(catalog.expectations.keys) == Set(readable.map(\.name)))
    for (name, expectation) in catalog.expectations {
      #expect(
        (expectation.root == "dictionary") == (expectation.values != nil),
        "\(name): a dictionary root needs values, and only a dictionary root has them")
    }
    #expect(!Catalog.dictionaryRootFiles.isEmpty)
    #expect(!Catalog.otherRootFiles.isEmpty)
    #expect(!Catalog.unreadableValidFiles.isEmpty)
  }

  // MARK: - 1. Dictionary roots load as layers, equal to plistlib's reading

  @Test(
    "A valid dictionary-root file loads as the bundled and the delivered layer",
    arguments: Catalog.dictionaryRootFiles)
  func dictionaryRootLoadsAsLayer(_ name: String) throws {
    let url = Catalog.url(of: name)
    let expected = try #require(Catalog.shared?.expectations[name]?.values)
    let temporary = try TemporaryDirectory()
    for layer in [LayeredPlistStore.Layer.bundled, .delivered] {
      let persistent = temporary.file("data-\(layer).plist")
      let store = try openStore(with: url, as: layer, persistentFile: persistent)
      let context = "\(name) (\(layer) layer)"

      let layerValues = store.dictionaryRepresentation(of: layer)
      record(differences(.dictionary(layerValues), .dictionary(expected), at: ""), in: context)
      for other in [LayeredPlistStore.Layer.runtime, .persistent, .delivered, .bundled]
      where other != layer {
        #expect(store.dictionaryRepresentation(of: other).isEmpty, "\(context): \(other) layer")
      }
      #expect(Set(store.dictionaryRepresentation().keys) == Set(expected.keys), "\(context)")

      var lookups: [String] = []
      for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
        let path = keyPath("", key)
        guard let found = store.value(forKey: key) else {
          lookups.append("\(path): value(forKey:) returned nil")
          continue
        }
        lookups += differences(found, value, at: path)
        if store.layer(forKey: key) != layer {
          lookups.append("\(path): layer(forKey:) is not \(layer)")
        }
      }
      record(lookups, in: "\(context), value(forKey:)")
      #expect(
        !FileManager.default.fileExists(atPath: persistent.path),
        "\(context): opening the store created data.plist")
    }
  }

  // MARK: - 2. Other roots are refused with wrongRootType

  @Test(
    "A valid file whose root is not a dictionary is refused with wrongRootType",
    arguments: Catalog.otherRootFiles)
  func otherRootIsRefused(_ name: String) throws {
    let url = Catalog.url(of: name)
    let root = try #require(Catalog.shared?.expectations[name]?.root)
    #expect(try PropertyListFile(url: url).read()?.root.kind.rawValue == root, "\(name)")

    let temporary = try TemporaryDirectory()
    for layer in [LayeredPlistStore.Layer.delivered, .bundled] {
      let error = try #require(throws: SettingsError.self, "\(name) as the \(layer) layer") {
        _ = try openStore(with: url, as: layer, persistentFile: temporary.file("data.plist"))
      }
      #expect(error.code == .wrongRootType, "\(name) (\(layer)): \(error)")
      #expect(error.path == url.path, "\(name) (\(layer))")
      #expect(error.reason.contains(root), "\(name) (\(layer)): \(error.reason)")
      #expect(error.description.contains(root), "\(name) (\(layer)): \(error)")
    }
  }

  // MARK: - 3. Valid files Foundation cannot read are refused with corruptFile

  @Test(
    "A valid file in a format Foundation cannot read (libplist JSON) is refused as corrupt",
    arguments: Catalog.unreadableValidFiles)
  func unreadableValidFileIsCorrupt(_ name: String) throws {
    let url = Catalog.url(of: name)
    let temporary = try TemporaryDirectory()
    for layer in [LayeredPlistStore.Layer.delivered, .bundled] {
      let error = try #require(throws: SettingsError.self, "\(name) as the \(layer) layer") {
        _ = try openStore(with: url, as: layer, persistentFile: temporary.file("data.plist"))
      }
      #expect(error.code == .corruptFile, "\(name) (\(layer)): \(error)")
      #expect(error.path == url.path, "\(name) (\(layer))")
      #expect(!error.reason.isEmpty, "\(name) (\(layer))")
      #expect(error.description.contains(url.path), "\(name) (\(layer)): \(error)")
    }
  }

  // MARK: - 4. Invalid files: a typed error or a read, never a crash

  @Test(
    "An invalid file as the delivered layer is refused with a typed error, or read",
    arguments: Catalog.invalidFiles)
  func invalidFileIsRefusedCleanlyOrRead(_ name: String) throws {
    let url = Catalog.url(of: name)
    let entry = try #require(Catalog.shared?.entry(name))
    let temporary = try TemporaryDirectory()
    do throws(SettingsError) {
      let store = try LayeredPlistStore(
        persistentFile: temporary.file("data.plist"), deliveredFile: url)
      // CoreFoundation is lenient with some of these (see the table above the suite); an empty
      // file is an empty layer; a file with unreadable entries opens without them, reported.
      // The one file Foundation refuses that our reader opens whole is well-formed XML (a
      // DOCTYPE with an internal subset, which Foundation can't parse), read by plistlib too.
      let isEmpty = (try? Data(contentsOf: url))?.isEmpty == true
      let wellFormedXML = ["swift-foundation__xmlErrors_Fake_inline_DTD.plist"]
      #expect(
        entry.serializationOK || isEmpty || !store.recoveredProblems.isEmpty
          || wellFormedXML.contains(name),
        """
        \(name): Foundation refuses this file, yet the store opened it: \
        \(store.dictionaryRepresentation(of: .delivered))
        """)
    } catch {
      let allowed: [SettingsError.Code] = [.corruptFile, .wrongRootType, .fileNotReadable]
      #expect(allowed.contains(error.code), "\(name): \(error)")
      #expect(error.path == url.path, "\(name): \(error)")
      #expect(
        !error.reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(name)")
      if !entry.serializationOK {
        #expect(error.code == .corruptFile, "\(name): \(error)")
      }
    }
  }

  // MARK: - 6. Every loading path: a value or a typed error, never a crash or a lost byte

  @Test(
    "Every fixture as data.plist, as the bundled layer and through PropertyListFile",
    arguments: Catalog.allFiles)
  func everyLoadingPathEndsInAValueOrATypedError(_ name: String) throws {
    let original = try Data(contentsOf: Catalog.url(of: name))
    let read: Result<PropertyListFile.Contents?, SettingsError> = Result {
      () throws(SettingsError) in try PropertyListFile(url: Catalog.url(of: name)).read()
    }
    if case .failure(let error) = read {
      #expect(error.code == .corruptFile || error.code == .fileTooLarge, "\(name): \(error)")
    }

    // As data.plist: the store opens; what it can't use is reported and kept aside whole.
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try original.write(to: file)
    let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    let asides = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
      .filter { $0.hasPrefix("data.plist.corrupt-") }
    if store.recoveredProblems.isEmpty {
      #expect(asides.isEmpty, "\(name)")
      if case .success(let contents?) = read, case .dictionary(let entries) = contents.root {
        let saving = PersistedPropertyListFile.savingFormat(option: nil, file: contents.format)
        let expected = try entries.mapValues { value in
          try PersistedPropertyListFile.storable(
            value, forKey: "", format: saving, isWrite: false)
        }
        #expect(store.dictionaryRepresentation(of: .persistent) == expected, "\(name)")
      } else {
        #expect(original.isEmpty, "\(name): not a dictionary, yet nothing was reported")
      }
    } else {
      #expect(asides.count == 1, "\(name): \(asides)")
      if let aside = asides.first {
        #expect(try Data(contentsOf: directory.file(aside)) == original, "\(name)")
      }
    }

    // As the bundled layer: it loads, or the initializer throws a typed error naming the file.
    do throws(SettingsError) {
      _ = try LayeredPlistStore(
        persistentFile: directory.file("other.plist"), bundledFile: Catalog.url(of: name),
        options: .init(savesAtExit: false))
    } catch {
      let allowed: [SettingsError.Code] = [.corruptFile, .wrongRootType, .fileTooLarge]
      #expect(allowed.contains(error.code), "\(name): \(error)")
      #expect(error.path == Catalog.url(of: name).path, "\(name)")
    }
    #expect(try Data(contentsOf: Catalog.url(of: name)) == original)
  }

  @Test(
    "Every fixture through the tool's read and import: a result or an error, never a crash",
    arguments: Catalog.allFiles)
  func everyFixtureThroughTheToolEndsInAResultOrAnError(_ name: String) throws {
    let directory = try TemporaryDirectory()
    do {
      let path = Catalog.url(of: name).path
      let read = try runProduct("settings", ["read", path])
      #expect([0, 1].contains(read.status), "read \(name): status \(read.status)")
      #expect(read.status == 0 || !read.standardError.isEmpty, "read \(name)")
      let target = directory.file("\(name).imported.plist").path
      let imported = try runProduct("settings", ["import", target, path])
      #expect([0, 1].contains(imported.status), "import \(name): status \(imported.status)")
      #expect(imported.status == 0 || !imported.standardError.isEmpty, "import \(name)")
    }
  }

  // MARK: - 5. PropertyListFile round trip

  @Test(
    "A valid dictionary-root file survives PropertyListFile write and read",
    arguments: Catalog.dictionaryRootFiles, [PropertyListFile.Format.xml, .binary])
  func roundTrip(_ name: String, format: PropertyListFile.Format) throws {
    let entry = try #require(Catalog.shared?.entry(name))
    let original = try #require(try PropertyListFile(url: Catalog.url(of: name)).read())
    #expect(original.format.rawValue == entry.libraryFormatName, "\(name): read format")

    let temporary = try TemporaryDirectory()
    let copy = PropertyListFile(url: temporary.file("copy.plist"))
    try copy.write(original.root, format: format)
    let reread = try #require(try copy.read(), "\(name): the written \(format) file is missing")
    #expect(reread.format == format, "\(name): written as \(format), read back as \(reread.format)")

    // XML keeps whole seconds only; see `xmlDatesKeepTheWholeSecondAtOrBefore()`.
    let expected = format == .xml ? flooringDates(original.root) : original.root
    record(differences(reread.root, expected, at: ""), in: "\(name) (\(format) round trip)")
  }

  /// The rule `roundTrip` applies to XML dates, checked directly: Foundation writes an XML date as
  /// the whole second at or before it (floor), not the one nearer zero.
  ///
  /// Before 2001 (and before 1970) that moves a date with a fraction of a second earlier: −0.5 s becomes −1 s.
  @Test("XML dates keep the whole second at or before the date (floor, not toward zero)")
  func xmlDatesKeepTheWholeSecondAtOrBefore() throws {
    let samples: [(written: Double, read: Double)] = [
      (0.5, 0),
      (1.75, 1),
      (-0.5, -1),
      (-1.25, -2),
      (-978_307_200.25, -978_307_201),  // 1969-12-31T23:59:59.75Z
      (-978_307_199.5, -978_307_200),  // 1970-01-01T00:00:00.5Z
      (-4_131_907_199.3, -4_131_907_200),  // 1870-01-25T00:00:00.7Z
      (1_000_000_000_000.5, 1_000_000_000_000),  // year 33689
    ]
    let temporary = try TemporaryDirectory()
    let file = PropertyListFile(url: temporary.file("dates.plist"))
    let entries = samples.enumerated().map { index, sample in
      ("d\(index)", PropertyListValue.date(Date(timeIntervalSinceReferenceDate: sample.written)))
    }
    try file.write(.dictionary(Dictionary(uniqueKeysWithValues: entries)), format: .xml)
    let read = try #require(try file.readDictionary())
    for (index, sample) in samples.enumerated() {
      #expect(
        read["d\(index)"] == .date(Date(timeIntervalSinceReferenceDate: sample.read)),
        "\(sample.written) s")
    }
  }
}

// MARK: - Corpus

/// One file in `SOURCES.json`.
private struct SourceEntry: Decodable, Sendable {
  var name: String
  /// `valid` or `invalid`.
  var folder: String
  /// `xml`, `binary`, `openstep`, `json` or `unknown`.
  var format: String
  /// Reader name to its result: `OK`, `FAIL` and so on.
  var results: [String: String]

  /// Whether `PropertyListSerialization` read the file when the corpus was verified.
  var serializationOK: Bool { results["swift_serialization"] == "OK" }

  /// The name of the ``PropertyListFile/Format`` Foundation reports for the file.
  var libraryFormatName: String { format == "openstep" ? "openStep" : format }
}

/// One file's entry in `plistlib-expectations.json`.
private struct FileExpectation: Decodable, Sendable {
  /// The root's kind in full: `dictionary`, `array`, `string` and so on.
  var root: String
  /// How the expectation was produced.
  var source: String
  /// The top-level entries, for a dictionary root.
  var values: [String: Expected]?
}

/// A value as `make_plistlib_expectations.py` encodes it: a one-key object tagged with its kind.
private indirect enum Expected: Decodable, Sendable {
  case string(String)
  /// Decimal text; may exceed `Int64.max`.
  case integer(String)
  /// Python's `repr` of a float: `1.5`, `1e+16`, `inf`, `-inf`, `nan`.
  case real(String)
  case bool(Bool)
  /// Seconds since 2001-01-01T00:00:00Z, rounded to microseconds by Python.
  case date(Double)
  /// Base64.
  case data(String)
  case array([Expected])
  case dictionary([String: Expected])

  private enum Tag: String, CodingKey {
    case s, i, r, b, d, x, a, o
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Tag.self)
    guard container.allKeys.count == 1, let tag = container.allKeys.first else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: decoder.codingPath, debugDescription: "Expected one kind tag"))
    }
    switch tag {
    case .s: self = .string(try container.decode(String.self, forKey: tag))
    case .i: self = .integer(try container.decode(String.self, forKey: tag))
    case .r: self = .real(try container.decode(String.self, forKey: tag))
    case .b: self = .bool(try container.decode(Bool.self, forKey: tag))
    case .d: self = .date(try container.decode(Double.self, forKey: tag))
    case .x: self = .data(try container.decode(String.self, forKey: tag))
    case .a: self = .array(try container.decode([Expected].self, forKey: tag))
    case .o: self = .dictionary(try container.decode([String: Expected].self, forKey: tag))
    }
  }

  var kindName: String {
    switch self {
    case .string: "string"
    case .integer: "integer"
    case .real: "real"
    case .bool: "bool"
    case .date: "date"
    case .data: "data"
    case .array: "array"
    case .dictionary: "dictionary"
    }
  }
}

/// `SOURCES.json` and `plistlib-expectations.json`, read once.
private struct Catalog: Sendable {
  var entries: [SourceEntry]
  var expectations: [String: FileExpectation]

  /// The catalog, or `nil` when the shared fixtures are absent (every argument list is then
  /// empty; the suite is skipped) or unreadable (``FixtureTests/corpusIsConsistent()`` fails).
  static let shared: Catalog? = TestPaths.hasSharedFixtures ? try? load() : nil

  static func load() throws -> Catalog {
    let decoder = JSONDecoder()
    let sources = try Data(
      contentsOf: TestPaths.sharedFixtures.appendingPathComponent("SOURCES.json"))
    let expectations = try Data(
      contentsOf: TestPaths.ownFixtures.appendingPathComponent("plistlib-expectations.json"))
    return Catalog(
      entries: try decoder.decode([SourceEntry].self, from: sources),
      expectations: try decoder.decode(ExpectationsFile.self, from: expectations).files)
  }

  private struct ExpectationsFile: Decodable {
    var files: [String: FileExpectation]
  }

  func entry(_ name: String) -> SourceEntry? {
    entries.first { $0.name == name }
  }

  static func url(of name: String) -> URL {
    let folder = shared?.entry(name)?.folder ?? "valid"
    return TestPaths.sharedFixtures.appendingPathComponent(folder).appendingPathComponent(name)
  }

  private static func names(where predicate: (SourceEntry) -> Bool) -> [String] {
    (shared?.entries ?? []).filter(predicate).map(\.name).sorted()
  }

  /// valid/ files Foundation reads whose root is a dictionary (plistlib's reading of a UID root is
  /// the dictionary `{"CF$UID": n}`, as TypedDefaults reads it).
  static let dictionaryRootFiles = names { entry in
    entry.folder == "valid" && entry.serializationOK
      && shared?.expectations[entry.name]?.root == "dictionary"
  }

  /// valid/ files Foundation reads whose root is not a dictionary.
  static let otherRootFiles = names { entry in
    entry.folder == "valid" && entry.serializationOK
      && shared?.expectations[entry.name].map { $0.root != "dictionary" } == true
  }

  /// valid/ files Foundation cannot read.
  static let unreadableValidFiles = names { $0.folder == "valid" && !$0.serializationOK }

  /// Every invalid/ file.
  static let invalidFiles = names { $0.folder == "invalid" }
  static let allFiles = names { _ in true }
}

// MARK: - Opening stores

/// Opens a store whose only file-backed layer besides the (absent) persistent file is `file`.
private func openStore(
  with file: URL,
  as layer: LayeredPlistStore.Layer,
  persistentFile: URL
) throws(SettingsError) -> LayeredPlistStore {
  switch layer {
  case .delivered:
    try LayeredPlistStore(persistentFile: persistentFile, deliveredFile: file)
  case .bundled:
    try LayeredPlistStore(persistentFile: persistentFile, bundledFile: file)
  case .persistent:
    try LayeredPlistStore(persistentFile: file)
  default:
    preconditionFailure("The \(layer) layer has no file")
  }
}

// MARK: - Comparing

/// Records one issue per difference, naming the file (`context`) and the key path.
private func record(
  _ differences: [String],
  in context: String,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  let limit = 20
  for difference in differences.prefix(limit) {
    Issue.record("\(context): \(difference)", sourceLocation: sourceLocation)
  }
  if differences.count > limit {
    Issue.record(
      "\(context): \(differences.count - limit) more differences", sourceLocation: sourceLocation)
  }
}

/// `path` extended by a dictionary key: `["CFBundleURLTypes"][0]["CFBundleURLName"]`.
private func keyPath(_ path: String, _ key: String) -> String {
  "\(path)[\(key.debugDescription)]"
}

private func shown(_ path: String) -> String {
  path.isEmpty ? "the root" : path
}

private func brief(_ value: PropertyListValue) -> String {
  let text = "\(value.kind) \(value)"
  return text.count > 120 ? text.prefix(120) + "…" : text
}

/// Whether two reals are the same: bit for bit, except that any NaN equals any NaN.
private func sameReal(_ lhs: Double, _ rhs: Double) -> Bool {
  lhs.bitPattern == rhs.bitPattern || (lhs.isNaN && rhs.isNaN)
}

private func parseInteger(_ text: String) -> PropertyListValue.Integer? {
  if let signed = Int64(text) { return PropertyListValue.Integer(exactly: signed) }
  if let unsigned = UInt64(text) { return PropertyListValue.Integer(exactly: unsigned) }
  return nil
}

private func parseReal(_ text: String) -> Double? {
  switch text {
  case "inf": .infinity
  case "-inf": -.infinity
  case "nan": .nan
  default: Double(text)
  }
}

/// The differences between what TypedDefaults read and plistlib's reading, each naming its path.
private func differences(
  _ actual: PropertyListValue,
  _ expected: Expected,
  at path: String
) -> [String] {
  let here = shown(path)
  switch (expected, actual) {
  case (.string(let want), .string(let got)):
    return got == want ? [] : ["\(here): expected \(want.debugDescription), found \(brief(actual))"]
  case (.integer(let text), .integer(let got)):
    guard let want = parseInteger(text) else {
      return ["\(here): the expected integer \(text) is outside Int64.min ... UInt64.max"]
    }
    return got == want ? [] : ["\(here): expected integer \(text), found \(brief(actual))"]
  case (.real(let text), .real(let got)):
    guard let want = parseReal(text) else { return ["\(here): unparseable real \(text)"] }
    return sameReal(got, want) ? [] : ["\(here): expected real \(text), found \(brief(actual))"]
  case (.bool(let want), .bool(let got)):
    return got == want ? [] : ["\(here): expected \(want), found \(brief(actual))"]
  case (.date(let want), .date(let got)):
    let seconds = got.timeIntervalSinceReferenceDate
    return abs(seconds - want) <= 0.001
      ? [] : ["\(here): expected a date \(want) s after 2001, found \(seconds) s"]
  case (.data(let base64), .data(let got)):
    guard let want = Data(base64Encoded: base64) else { return ["\(here): bad base64"] }
    return got == want ? [] : ["\(here): expected \(want.count) bytes, found \(brief(actual))"]
  case (.array(let want), .array(let got)):
    return arrayDifferences(got, want, at: path, compare: differences)
  case (.dictionary(let want), .dictionary(let got)):
    return dictionaryDifferences(got, want, at: path, compare: differences)
  default:
    return ["\(here): expected kind \(expected.kindName), found \(brief(actual))"]
  }
}

/// The differences between a value read back from a written file and the value written, each
/// naming its path.
///
/// Reals must match bit for bit (any NaN matches any NaN); dates exactly.
private func differences(
  _ actual: PropertyListValue,
  _ expected: PropertyListValue,
  at path: String
) -> [String] {
  let here = shown(path)
  switch (expected, actual) {
  case (.real(let want), .real(let got)):
    return sameReal(got, want) ? [] : ["\(here): expected real \(want), found real \(got)"]
  case (.date(let want), .date(let got)):
    return got == want
      ? []
      : [
        "\(here): expected a date \(want.timeIntervalSinceReferenceDate) s after 2001, "
          + "found \(got.timeIntervalSinceReferenceDate) s"
      ]
  case (.array(let want), .array(let got)):
    return arrayDifferences(got, want, at: path, compare: differences)
  case (.dictionary(let want), .dictionary(let got)):
    return dictionaryDifferences(got, want, at: path, compare: differences)
  default:
    return actual == expected
      ? [] : ["\(here): expected \(brief(expected)), found \(brief(actual))"]
  }
}

private func arrayDifferences<Value>(
  _ actual: [PropertyListValue],
  _ expected: [Value],
  at path: String,
  compare: (PropertyListValue, Value, String) -> [String]
) -> [String] {
  guard actual.count == expected.count else {
    return ["\(shown(path)): expected \(expected.count) elements, found \(actual.count)"]
  }
  return zip(actual, expected).enumerated().flatMap { index, pair in
    compare(pair.0, pair.1, "\(path)[\(index)]")
  }
}

private func dictionaryDifferences<Value>(
  _ actual: [String: PropertyListValue],
  _ expected: [String: Value],
  at path: String,
  compare: (PropertyListValue, Value, String) -> [String]
) -> [String] {
  var result: [String] = []
  for key in expected.keys.sorted() {
    let child = keyPath(path, key)
    if let found = actual[key], let want = expected[key] {
      result += compare(found, want, child)
    } else {
      result.append("\(child): missing")
    }
  }
  for key in actual.keys.sorted() where expected[key] == nil {
    result.append("\(keyPath(path, key)): unexpected key, holding \(brief(actual[key]!))")
  }
  return result
}

/// `value` with every date moved to the whole second at or before it, as an XML file keeps it.
private func flooringDates(_ value: PropertyListValue) -> PropertyListValue {
  switch value {
  case .date(let date):
    .date(Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.rounded(.down)))
  case .array(let elements):
    .array(elements.map(flooringDates))
  case .dictionary(let entries):
    .dictionary(entries.mapValues(flooringDates))
  default:
    value
  }
}
