import Foundation
import Testing
@_spi(Testing) import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The layered store as an app's configuration system: next-launch writes, server configuration,
/// key normalization, autosave, file safety, and several processes on one `data.plist`.
@Suite(.tags(.durability)) struct LayeredPlistStoreLifecycleTests {
  private func permissions(_ url: URL) throws -> Int {
    try #require(
      FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
  }

  // MARK: - Next-launch writes

  @Test func aNextLaunchWriteIsInvisibleNowSavedAndSeenWhenTheStoreOpensAgain() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file)
    try store.setValue("current", forKey: "theme")
    try store.setValue("kept", forKey: "gone")
    try store.setValueForNextLaunch("next", forKey: "theme")
    try store.setValueForNextLaunch(nil, forKey: "gone")
    #expect(store.value(forKey: "theme") == "current")
    #expect(store.value(forKey: "gone") == "kept")
    #expect(store.explain("theme").nextLaunchChange == .set("next"))
    #expect(store.explain("gone").nextLaunchChange == .remove)
    #expect(store.hasUnsavedChanges)

    try store.save()
    #expect(store.value(forKey: "theme") == "current")  // still not visible in this run
    #expect(try PropertyListFile(url: file).readDictionary() == ["theme": "next"])
    try store.save()  // a second save keeps writing the next-launch values
    #expect(try PropertyListFile(url: file).readDictionary() == ["theme": "next"])

    let nextLaunch = try LayeredPlistStore(persistentFile: file)
    #expect(nextLaunch.value(forKey: "theme") == "next")
    #expect(nextLaunch.value(forKey: "gone") == nil)
  }

  @Test func aLaterWriteReplacesAPendingNextLaunchWrite() throws {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: directory.file("data.plist"))
    try store.setValueForNextLaunch("next", forKey: "theme")
    try store.setValue("now", forKey: "theme")
    #expect(store.value(forKey: "theme") == "now")
    #expect(store.explain("theme").nextLaunchChange == nil)
    try store.save()
    #expect(
      try LayeredPlistStore(persistentFile: directory.file("data.plist")).value(forKey: "theme")
        == "now")
  }

  // MARK: - Server configuration

  @Test func serverConfigurationBeatsShippedFilesAndCanReplaceThePreviousSet() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let bundled = directory.file("Info.plist")
    try PropertyListFile(url: bundled).write(["timeout": 30, "banner": "shipped"])
    let first = try LayeredPlistStore(persistentFile: file, bundledFile: bundled)
    try first.setValue("mine", forKey: "userChoice")
    try first.applyServerConfiguration(["timeout": 10, "banner": "sale", "experiment": true])
    #expect(first.value(forKey: "timeout") == 10)
    #expect(first.layer(forKey: "banner") == .persistent)
    try first.save()

    // Next launch: the server sends a smaller set.
    let second = try LayeredPlistStore(persistentFile: file, bundledFile: bundled)
    try second.applyServerConfiguration(["timeout": 20], replacingPrevious: true)
    #expect(second.value(forKey: "timeout") == 20)
    #expect(second.value(forKey: "banner") == "shipped")  // the server's value is gone
    #expect(second.value(forKey: "experiment") == nil)
    #expect(second.value(forKey: "userChoice") == "mine")  // not the server's: untouched
    #expect(second.value(forKey: LayeredPlistStore.serverConfigurationKeysKey) == ["timeout"])

    // Without replacing, earlier server values stay.
    try second.applyServerConfiguration(["banner": "new"])
    #expect(second.value(forKey: "timeout") == 20)
    #expect(
      second.value(forKey: LayeredPlistStore.serverConfigurationKeysKey) == ["banner", "timeout"])
  }

  @Test func aServerConfigurationWithOneBadValueChangesNothing() throws {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: directory.file("data.plist"))
    #expect(throws: SettingsError.self) {
      // Nested deeper than a file can be read back: refused by every format.
      var deep: PropertyListValue = 0
      for _ in 0..<600 { deep = [deep] }
      try store.applyServerConfiguration(["good": 1, "bad": deep])
    }
    #expect(store.dictionaryRepresentation().isEmpty)
    #expect(!store.hasUnsavedChanges)
  }

  // MARK: - Key normalization

  @Test(arguments: [true, false])
  func keyNormalizationAppliesToReadsWritesAndFilesWhenOn(_ normalizes: Bool) throws {
    let directory = try TemporaryDirectory()
    let bundled = directory.file("Info.plist")
    try PropertyListFile(url: bundled).write(["feature_x": true, "max-retries": 3])
    let options = LayeredPlistStore.Options(
      keyNormalization: normalizes ? .underscoresToHyphens : nil)
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), bundledFile: bundled, options: options)
    if normalizes {
      #expect(store.value(forKey: "feature_x") == true)
      #expect(store.value(forKey: "feature-x") == true)
      #expect(store.value(forKey: "max_retries") == 3)
      try store.setValue(5, forKey: "max_retries")
      #expect(store.value(forKey: "max-retries") == 5)
      #expect(store.dictionaryRepresentation(of: .persistent) == ["max-retries": 5])
      #expect(store.explain("feature_x").key == "feature-x")
    } else {
      #expect(store.value(forKey: "feature_x") == true)
      #expect(store.value(forKey: "feature-x") == nil)
      #expect(store.value(forKey: "max_retries") == nil)
      try store.setValue(5, forKey: "max_retries")
      #expect(store.value(forKey: "max-retries") == 3)
    }
  }

  // MARK: - Autosave

  @Test func afterEveryWriteSavesEachChangeBeforeReturning() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(
      persistentFile: file, options: .init(autosave: .afterEveryWrite))
    try store.setValue(1, forKey: "a")
    #expect(store.saveCount == 1)
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 1])
    try store.setValue(1, forKey: "a")  // no change, no save
    try store.setValue("x", forKey: "b", in: .runtime)  // runtime values are never saved
    #expect(store.saveCount == 1)
    store.removeValue(forKey: "a")
    #expect(store.saveCount == 2)
    #expect(try PropertyListFile(url: file).readDictionary() == [:])
  }

  @Test func aDebouncedAutosaveTurnsABurstOfWritesIntoOneFileWrite() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(
      persistentFile: file, options: .init(autosave: .debounced(seconds: 0.2)))
    for index in 0..<1000 {
      try store.setValue(.integer(.init(Int64(index))), forKey: "key\(index % 100)")
    }
    await eventually("the debounced save has run") { !store.hasUnsavedChanges }
    #expect(store.saveCount == 1)
    let saved = try #require(try PropertyListFile(url: file).readDictionary())
    #expect(saved.count == 100)
    #expect(saved["key99"] == 999)
  }

  @Test func unsavedChangesAreSavedWhenTheProcessExits() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let run = try runProduct(
      "SettingsProbe", ["layered", file.path, "set-nosave", "k", "string:at exit"])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(try PropertyListFile(url: file).readDictionary() == ["k": "at exit"])
  }

  // MARK: - File safety

  @Test func aNewFileIsReadableByItsOwnerOnlyAndAnExistingFileKeepsItsMode() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file)
    try store.setValue(1, forKey: "a")
    try store.save()
    #expect(try permissions(file) == 0o600)

    try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file.path)
    try store.setValue(2, forKey: "a")
    try store.save()
    #expect(try permissions(file) == 0o640)
  }

  @Test func aFileWithNoWritePermissionIsNotReplaced() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try PropertyListFile(url: file).write(["a": 1])
    try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: file.path)
    let before = try Data(contentsOf: file)
    let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    try store.setValue(2, forKey: "a")
    let error = try #require(throws: SettingsError.self) { try store.save() }
    #expect(error.code == .fileNotWritable)
    #expect(
      error.description
        == "Cannot write the property list at '\(file.path)': It is read-only (permission "
        + "denied); change its permissions to write it")
    #expect(try Data(contentsOf: file) == before)
    #expect(try permissions(file) == 0o444)
    #expect(store.hasUnsavedChanges)

    // Made writable again, the retry succeeds.
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 2])
  }

  @Test func aDeviceOrAFIFOIsNeverReplacedByAFile() throws {
    let directory = try TemporaryDirectory()
    let fifo = directory.file("fifo.plist")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let error = try #require(throws: SettingsError.self) {
      try PropertyListFile(url: fifo).write(["a": 1])
    }
    #expect(error.code == .fileNotWritable)
    #expect(error.reason == "It is not a regular file (a device or a FIFO)")
    let type = try FileManager.default.attributesOfItem(atPath: fifo.path)[.type]
    #expect(type as? FileAttributeType != .typeRegular)
    let device = try #require(
      throws: SettingsError.self,
      performing: { try PropertyListFile(url: URL(fileURLWithPath: "/dev/null")).write(["a": 1]) })
    #expect(device.code == .fileNotWritable)
    #expect(
      try FileManager.default.attributesOfItem(atPath: "/dev/null")[.type] as? FileAttributeType
        == .typeCharacterSpecial)
  }

  @Test func xmlThatWouldBeMalformedIsNeverWritten() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("out.plist")
    let error = try #require(throws: SettingsError.self) {
      try PropertyListFile(url: file).write(["ctl": "\u{1}z"], format: .xml)
    }
    #expect(error.code == .valueNotRepresentable)
    #expect(
      error.reason
        == #"A string at ["ctl"] holds the control character U+0001, which XML can't hold"#)
    #expect(!FileManager.default.fileExists(atPath: file.path))
    #expect(throws: SettingsError.self) {
      try PropertyListFile.encode(["k\u{2}": "v"], format: .xml)
    }
    // Binary holds any string; a fractional date is written as XML keeps it.
    try PropertyListFile(url: file).write(["ctl": "\u{1}z"], format: .binary)
    #expect(try PropertyListFile(url: file).readDictionary() == ["ctl": "\u{1}z"])
    _ = try PropertyListFile.encode(
      ["d": .date(Date(timeIntervalSinceReferenceDate: 0.5))], format: .xml)
  }

  @Test func aSymbolicLinkIsKeptAndTheFileItPointsToIsReplaced() throws {
    let directory = try TemporaryDirectory()
    let real = directory.file("real.plist")
    let link = directory.file("data.plist")
    try PropertyListFile(url: real).write(["a": 1])
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.plist")
    let store = try LayeredPlistStore(persistentFile: link)
    #expect(store.value(forKey: "a") == 1)
    try store.setValue(2, forKey: "a")
    try store.save()
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.plist")
    #expect(try PropertyListFile(url: real).readDictionary() == ["a": 2])

    // A link to a file that doesn't exist yet: the file is created where the link points.
    let dangling = directory.file("dangling.plist")
    try FileManager.default.createSymbolicLink(
      atPath: dangling.path, withDestinationPath: "later.plist")
    let fresh = try LayeredPlistStore(persistentFile: dangling)
    try fresh.setValue(3, forKey: "b")
    try fresh.save()
    #expect(try PropertyListFile(url: directory.file("later.plist")).readDictionary() == ["b": 3])
    #expect(
      try FileManager.default.destinationOfSymbolicLink(atPath: dangling.path) == "later.plist")
  }

  @Test(arguments: [
    (Data("<?xml version=\"1.0\"?><plist><dict><key>a</key>".utf8), SettingsError.Code.corruptFile),
    (Data("bplist00garbage".utf8), .corruptFile),
    (Data("<plist><array><string>x</string></array></plist>".utf8), .wrongRootType),
  ])
  func aCorruptDataPlistIsMovedAsideReportedAndNeverOverwritten(
    _ bytes: Data,
    _ code: SettingsError.Code
  ) throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try bytes.write(to: file)
    let (store, diagnostics) = try collectingDiagnostics {
      try LayeredPlistStore(persistentFile: file)
    }
    #expect(store.recoveredProblems.map(\.code) == [code])
    #expect(store.recoveredProblems.first?.path == file.path)
    #expect(diagnostics.map(\.kind) == [.corruptFile])
    #expect(store.dictionaryRepresentation().isEmpty)
    #expect(!store.layersLoadedFromDisk.contains(.persistent))

    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    let aside = try #require(names.first { $0.hasPrefix("data.plist.corrupt-") })
    #expect(
      aside.range(of: #"^data\.plist\.corrupt-\d{8}T\d{6}Z$"#, options: .regularExpression) != nil)
    #expect(try Data(contentsOf: directory.file(aside)) == bytes)

    try store.setValue("fresh", forKey: "a")
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": "fresh"])
    #expect(try Data(contentsOf: directory.file(aside)) == bytes)
  }

  @Test func aCorruptFileFoundWhenSavingIsMovedAsideAndTheSaveWritesEveryValueTheStoreHad() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file)
    try store.setValue(1, forKey: "a")
    try store.save()
    try Data("garbage written by something else".utf8).write(to: file)
    try store.setValue(2, forKey: "b")
    let (_, diagnostics) = try collectingDiagnostics { try store.save() }
    #expect(diagnostics.map(\.kind) == [.corruptFile])
    #expect(diagnostics.first?.message.contains("kept the values the store had") == true)
    #expect(store.recoveredProblems.count == 1)
    // The saved `a` is neither dropped from the file nor from the store.
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 1, "b": 2])
    #expect(store.dictionaryRepresentation() == ["a": 1, "b": 2])
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    #expect(names.contains { $0.hasPrefix("data.plist.corrupt-") })
  }

  /// Each problem is one entry of `recoveredProblems`.
  ///
  /// It listed 3 entries for 2 problems: a partly readable file's summary and each of its entries
  /// left out.
  @Test func recoveredProblemsListsEachProblemOnce() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try xmlPropertyList(
      """
      <dict><key>good</key><integer>1</integer>\
      <key>bad</key><integer>one</integer>\
      <key>worse</key><real>two</real></dict>
      """
    ).write(to: file)
    let delivered = directory.file("JF-info.plist")
    try xmlPropertyList(
      "<dict><key>shipped</key><date>never</date><key>fine</key><true/></dict>"
    ).write(to: delivered)
    let (store, diagnostics) = try collectingDiagnostics {
      try LayeredPlistStore(
        persistentFile: file, deliveredFile: delivered, options: .init(savesAtExit: false))
    }
    // Two entries of data.plist and one of the delivered file: three problems, three entries.
    #expect(store.recoveredProblems.map(\.key) == ["bad", "worse", "shipped"])
    #expect(store.recoveredProblems.map(\.code) == [.corruptFile, .corruptFile, .corruptFile])
    #expect(diagnostics.count == 2)
    #expect(store.value(forKey: "good") == 1)
    #expect(store.value(forKey: "fine") == true)
  }

  @Test func aFileJudgedCorruptWhenAStoreOpensIsParsedOnce() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try Data("<plist><dict><key>a</key>".utf8).write(to: file)
    let parses = Locked(0)
    let store = try CorruptFiles.$parseCounter.withValue(parses) {
      try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    }
    #expect(store.recoveredProblems.map(\.code) == [.corruptFile])
    #expect(parses.withLock { $0 } == 1)
  }

  @Test func aCorruptFileFoundByAReloadIsMovedAsideAndReplacedAtOnceByTheValuesTheStoreHad() throws
  {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    try store.setValues(["a": 1, "b": "two"])
    try store.save()
    try store.setValue(3, forKey: "unsaved")
    let garbage = Data("garbage written by an editor".utf8)
    try garbage.write(to: file)
    let (reloaded, diagnostics) = try collectingDiagnostics { try store.reload() }
    #expect(!reloaded)
    #expect(store.dictionaryRepresentation() == ["a": 1, "b": "two", "unsaved": 3])
    // The file holds the values as last saved at once, not the unsaved change, which stays so.
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 1, "b": "two"])
    #expect(store.hasUnsavedChanges)
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    let aside = try #require(names.first { $0.hasPrefix("data.plist.corrupt-") })
    #expect(try Data(contentsOf: directory.file(aside)) == garbage)
    #expect(diagnostics.map(\.kind) == [.corruptFile])
    let message = try #require(diagnostics.first?.message)
    #expect(message.contains("kept the values the store had, written back as a new file"))
    #expect(!message.contains("without its values"))
    try store.save()
    #expect(
      try PropertyListFile(url: file).readDictionary() == ["a": 1, "b": "two", "unsaved": 3])
  }

  @Test func aFolderReplacedByAFileMakesTheSaveFailAndARetryWorks() throws {
    let directory = try TemporaryDirectory()
    let folder = directory.file("folder")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    let file = folder.appendingPathComponent("data.plist")
    let store = try LayeredPlistStore(persistentFile: file)
    try store.setValue(1, forKey: "a")
    try FileManager.default.removeItem(at: folder)
    try Data().write(to: folder)
    let error = #expect(throws: SettingsError.self) { try store.save() }
    #expect(error?.code == .fileNotWritable)
    #expect(error?.reason == "'\(folder.path)' is not a folder")
    #expect(store.hasUnsavedChanges)

    try FileManager.default.removeItem(at: folder)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 1])
  }

  // MARK: - Several processes

  @Test func twoStoresOnOneFileLoseNoneOfEachOthersWrites() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let first = try LayeredPlistStore(persistentFile: file)
    let second = try LayeredPlistStore(persistentFile: file)
    try first.setValue("A", forKey: "a")
    try first.setValue("shared-first", forKey: "shared")
    try first.save()
    try second.setValue("B", forKey: "b")
    try second.save()  // merges: keeps a, adds b, and takes in first's values
    #expect(second.value(forKey: "a") == "A")
    first.removeValue(forKey: "shared")
    try first.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": "A", "b": "B"])
  }

  @Test func reloadPicksUpAnotherProcesssSaveButKeepsUnsavedLocalChanges() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let mine = try LayeredPlistStore(persistentFile: file)
    try mine.setValue("mine, unsaved", forKey: "local")
    #expect(try mine.reload() == false)  // nothing on disk yet

    let run = try runProduct("SettingsProbe", ["layered", file.path, "set", "remote", "int:7"])
    #expect(run.status == 0, "\(run.standardError)")
    #expect(try mine.reload() == true)
    #expect(mine.value(forKey: "remote") == 7)
    #expect(mine.value(forKey: "local") == "mine, unsaved")
    #expect(try mine.reload() == false)  // unchanged since

    // A file replaced by an atomic rename is noticed too.
    let replacement = directory.file("replacement.plist")
    try PropertyListFile(url: replacement).write(["remote": 8])
    #expect(rename(replacement.path, file.path) == 0)
    #expect(try mine.reload() == true)
    #expect(mine.value(forKey: "remote") == 8)
  }

  @Test func updateChangesTheValueInTheFileAsOneStepAcrossProcesses() throws {
    // A read-then-write from each process would lose increments; update loses none.
    #expect(try Self.countedByTwoProbes(["increment", "count", "50"]) == ["count": 100])
  }

  /// `settings.$count.update { $0 += 1 }` in two processes at once: the file's lock is held from
  /// the read to the save, so none of the 2,000 increments is lost (`+=` and `save()` lost half).
  @Test func aSettingUpdateCountsExactlyAcrossTwoProcesses() throws {
    #expect(
      try Self.countedByTwoProbes(["setting-increment", "count", "1000"]) == ["count": 2000])
  }

  /// The value a read shows comes from the delivered layer while `data.plist` holds none: an
  /// update starts from it, as `+=` would, and writes the file; the delivered file is untouched.
  @Test func anUpdateStartsFromADeliveredValueTheFileDoesNotHold() throws {
    let directory = try TemporaryDirectory()
    let delivered = directory.file("delivered.plist")
    try PropertyListFile(url: delivered).write(["count": 10, "tags": ["a"]])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), deliveredFile: delivered,
      options: .init(savesAtExit: false))
    let count = Setting("count", default: 0, backend: store)
    let tags = Setting("tags", default: [String](), backend: store)
    try count.update { $0 += 1 }
    try tags.update { $0.append("b") }
    #expect(count.wrappedValue == 11)
    #expect(tags.wrappedValue == ["a", "b"])
    #expect(
      try PropertyListFile(url: directory.file("data.plist")).readDictionary()
        == ["count": 11, "tags": ["a", "b"]])
    #expect(try PropertyListFile(url: delivered).readDictionary() == ["count": 10, "tags": ["a"]])
  }

  /// Runs two SettingsProbe processes at once on one new `data.plist` with `arguments`, and
  /// returns what the file holds once both succeeded.
  static func countedByTwoProbes(_ arguments: [String]) throws -> [String: PropertyListValue]? {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist").path
    let processes = try (0..<2).map { _ in
      let process = Process()
      process.executableURL = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe")
      process.arguments = ["layered", file] + arguments
      try process.run()
      return process
    }
    for process in processes {
      let processEnding = process.waitForExit()
      #expect(processEnding.status == 0)
    }
    return try PropertyListFile(url: URL(fileURLWithPath: file)).readDictionary()
  }

  @Test func updateSeesAnotherProcesssSaveAndItsOwnUnsavedChanges() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let mine = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    let other = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    try other.setValue(["a"], forKey: "list")
    try other.save()
    try mine.setValue("unsaved", forKey: "mine")

    var seen: PropertyListValue?
    let stored = try mine.update(forKey: "list") { current in
      seen = current
      return .array((current?.arrayValue ?? []) + ["b"])
    }
    #expect(seen == ["a"])
    #expect(stored == ["a", "b"])
    #expect(mine.value(forKey: "list") == ["a", "b"])
    #expect(!mine.hasUnsavedChanges)
    #expect(
      try PropertyListFile(url: file).readDictionary() == ["list": ["a", "b"], "mine": "unsaved"])

    // A transform that throws changes nothing, in memory or on disk.
    try mine.setValue("pending", forKey: "mine")
    let refusal = SettingsError(.valueNotRepresentable, key: "list", reason: "no")
    #expect(throws: SettingsError.self) {
      try mine.update(forKey: "list") { _ throws(SettingsError) in throw refusal }
    }
    #expect(mine.value(forKey: "list") == ["a", "b"])
    #expect(mine.hasUnsavedChanges)
    #expect(try PropertyListFile(url: file).readDictionary()?["mine"] == "unsaved")

    // nil removes the key; an update replaces a next-launch change of the key.
    try mine.setValueForNextLaunch("later", forKey: "theme")
    try mine.update(forKey: "theme") { _ in "now" }
    #expect(mine.value(forKey: "theme") == "now")
    #expect(mine.explain("theme").nextLaunchChange == nil)
    try mine.update(forKey: "list") { _ in nil }
    #expect(mine.value(forKey: "list") == nil)
    #expect(
      try PropertyListFile(url: file).readDictionary() == ["mine": "pending", "theme": "now"])
  }

  /// Starts a process rewriting `file` in place until the returned closure kills it.
  private func rewritingInPlace(_ file: URL, idleMicroseconds: Int) throws -> () -> Void {
    let writer = Process()
    writer.executableURL = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe")
    writer.arguments = ["layered", file.path, "rewrite-in-place", "\(idleMicroseconds)"]
    let output = Pipe()
    writer.standardOutput = output
    try writer.run()
    // Blocks until the writer has started rewriting.
    #expect(output.fileHandleForReading.availableData == Data("started\n".utf8))
    return {
      // SIGKILL, which the child cannot block: under the test runner it ignored SIGTERM.
      kill(writer.processIdentifier, SIGKILL)
      _ = writer.waitForExit()
    }
  }

  private func twoHundredKeys() -> [String: PropertyListValue] {
    Dictionary(
      uniqueKeysWithValues: (0..<200).map { ("key.\($0)", PropertyListValue.string("value \($0)")) }
    )
  }

  @Test func aFileBeingRewrittenInPlaceIsReadWhenCompleteNotMovedAside() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let contents = twoHundredKeys()
    try PropertyListFile(url: file).write(.dictionary(contents))
    let stop = try rewritingInPlace(file, idleMicroseconds: 10_000)
    defer { stop() }
    for _ in 0..<40 {
      let (store, diagnostics) = try collectingDiagnostics {
        try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
      }
      #expect(diagnostics.isEmpty)
      #expect(store.recoveredProblems.isEmpty)
      #expect(store.dictionaryRepresentation() == contents)
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    #expect(!names.contains { $0.contains("corrupt") })
  }

  @Test func aFileRewrittenInPlaceWithoutPauseIsNeverMovedAside() throws {
    // Complete only for an instant between rewrites: an open reads it whole or gives up after
    // a second with fileNotReadable; it never judges a file that keeps changing corrupt.
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let contents = twoHundredKeys()
    try PropertyListFile(url: file).write(.dictionary(contents))
    let stop = try rewritingInPlace(file, idleMicroseconds: 0)
    defer { stop() }
    for _ in 0..<3 {
      do {
        let (store, diagnostics) = try collectingDiagnostics {
          try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
        }
        #expect(diagnostics.isEmpty)
        #expect(store.dictionaryRepresentation() == contents)
      } catch let error as SettingsError {
        #expect(error.code == .fileNotReadable)
      }
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    #expect(!names.contains { $0.contains("corrupt") })
  }

  @Test func withoutMovingAsideACorruptFileIsReportedByThrowingAndLeftInPlace() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let bytes = Data("<plist><dict><key>a</key>".utf8)
    try bytes.write(to: file)
    let options = LayeredPlistStore.Options(savesAtExit: false, movesCorruptFileAside: false)
    let opening = try #require(throws: SettingsError.self) {
      try LayeredPlistStore(persistentFile: file, options: options)
    }
    #expect(opening.code == .corruptFile)
    #expect(opening.path == file.path)

    // Found corrupt by a save or a reload: thrown, and the file stays as it is.
    try PropertyListFile(url: file).write(["a": 1])
    let store = try LayeredPlistStore(persistentFile: file, options: options)
    try store.setValue(2, forKey: "a")
    try bytes.write(to: file)
    #expect(throws: SettingsError.self) { try store.save() }
    #expect(throws: SettingsError.self) { try store.reload() }
    #expect(throws: SettingsError.self) { try store.update(forKey: "a") { _ in 3 } }
    #expect(try Data(contentsOf: file) == bytes)
    #expect(store.hasUnsavedChanges)
    #expect(store.recoveredProblems.isEmpty)
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
    #expect(!names.contains { $0.contains("corrupt") })
  }

  @Test func twoProcessesWritingConcurrentlyLoseNothing() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist").path
    let processes = try ["left", "right"].map { prefix in
      let process = Process()
      process.executableURL = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe")
      process.arguments = ["layered", file, "write-keys", prefix, "40"]
      try process.run()
      return process
    }
    for process in processes {
      let processEnding = process.waitForExit()
      #expect(processEnding.status == 0)
    }
    let saved = try #require(try PropertyListFile(url: URL(fileURLWithPath: file)).readDictionary())
    #expect(saved.count == 80)
    for prefix in ["left", "right"] {
      for index in 0..<40 {
        #expect(saved["\(prefix).\(index)"] == .integer(.init(Int64(index))))
      }
    }
  }

  /// Kills a process with SIGKILL while it saves in a loop, at a different point each time: the
  /// file must always parse and hold one complete saved state.
  @Test func aProcessKilledWhileSavingAlwaysLeavesACompleteFile() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    for round in 0..<25 {
      let process = Process()
      process.executableURL = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe")
      process.arguments = ["layered", file.path, "save-loop"]
      let output = Pipe()
      process.standardOutput = output
      try process.run()
      // Kill after a different number of completed saves each round, so the kill lands at a
      // different point of a save.
      var saves = 0
      var buffer = Data()
      while saves <= round % 7 {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        buffer.append(chunk)
        saves = buffer.split(separator: UInt8(ascii: "\n")).count
      }
      kill(process.processIdentifier, SIGKILL)
      let processEnding = process.waitForExit()
      #expect(processEnding.signalled)

      let saved = try #require(try PropertyListFile(url: file).readDictionary(), "round \(round)")
      let counter = try #require(saved["counter"]?.intValue, "round \(round)")
      #expect(
        saved["payload"] == .string(String(repeating: "\(counter) ", count: 500)), "round \(round)")
      // No temporary file is left in a state that matters: only data.plist is read.
    }
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
      .filter { $0 != "data.plist" && $0 != "data.plist.lock" }
    // A kill between creating and renaming the temporary file can leave one behind; never more
    // than one per kill, and never in place of data.plist.
    #expect(leftovers.allSatisfy { $0.hasPrefix(".data.plist.") && $0.hasSuffix(".tmp") })
  }

  // MARK: - Standard locations

  @Test func standardLocationsFollowXDGAndTheirDefaults() throws {
    let environment = [
      "HOME": "/home/ann", "XDG_CONFIG_HOME": "/etc/ann", "XDG_CACHE_HOME": "relative",
    ]
    #if !canImport(Darwin)
      #expect(
        StandardLocation.data.baseDirectory(environment: environment).path
          == "/home/ann/.local/share")
      #expect(
        StandardLocation.configuration.baseDirectory(environment: environment).path == "/etc/ann")
      // A relative path is ignored, as the XDG specification says.
      #expect(
        StandardLocation.cache.baseDirectory(environment: environment).path == "/home/ann/.cache")
    #endif

    let directory = try TemporaryDirectory()
    let xdg = ["XDG_DATA_HOME": directory.url.path, "HOME": directory.url.path]
    let found = try StandardLocation.data.directory(for: "com.example.player", environment: xdg)
    #if !canImport(Darwin)
      #expect(found.path == directory.file("com.example.player").path)
    #endif
    // Found, not created: the store's first save creates it (StandardLocationTests).
    #expect(!FileManager.default.fileExists(atPath: found.path))
  }

  @Test func anUnusableStandardFolderIsAnErrorNamingIt() throws {
    #if !canImport(Darwin)
      let directory = try TemporaryDirectory()
      let blocked = directory.file("com.example.blocked")
      try Data().write(to: blocked)
      let environment = ["XDG_DATA_HOME": directory.url.path]
      let error = #expect(throws: SettingsError.self) {
        try StandardLocation.data.directory(for: "com.example.blocked", environment: environment)
      }
      #expect(error?.code == .directoryNotUsable)
      #expect(error?.path == blocked.path)
      #expect(throws: SettingsError.self) {
        try StandardLocation.data.directory(for: "../escape", environment: environment)
      }
    #endif
  }

  // MARK: - Provenance

  @Test func explainShowsEachLayersValueAndTheWinner() throws {
    let directory = try TemporaryDirectory()
    let bundled = directory.file("Info.plist")
    try PropertyListFile(url: bundled).write(["ServerURL": "https://api.example.com"])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), bundledFile: bundled)
    try store.setValue("https://api-v2.example.com", forKey: "ServerURL")
    let provenance = store.explain("ServerURL")
    #expect(provenance.source == .persistent)
    #expect(provenance.value == "https://api-v2.example.com")
    #expect(
      provenance.description == """
        ServerURL
          runtime     -
          persistent  https://api-v2.example.com   <- wins
          delivered   (no file)
          bundled     https://api.example.com
        """)
    #expect(provenance.layersWithoutFile == [.delivered])
  }

  @Test func explainTellsALayerWithoutItsKeyFromALayerWithoutAFile() throws {
    let directory = try TemporaryDirectory()
    let delivered = directory.file("JF-info.plist")
    try PropertyListFile(url: delivered).write(["Other": "x"])
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), deliveredFile: delivered,
      bundledFile: directory.file("missing/Info.plist"))
    #expect(
      store.explain("ServerURL").description == """
        ServerURL
          runtime     -
          persistent  -
          delivered   -
          bundled     (no file)
        """)
  }
}
