import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Bad input never crashes, hangs or loses data; and nothing is written that can't be read back.
@Suite struct InputLimitsTests {
  /// `[[[…[0]…]]]`, nested `levels` deep.
  private func nested(_ levels: Int) -> PropertyListValue {
    var value: PropertyListValue = 0
    for _ in 0..<levels { value = [value] }
    return value
  }

  // MARK: - What every backend refuses to write

  @Test(arguments: BackendFactory.all)
  func aValueNestedToTheLimitIsReadBackAndOneLevelMoreIsRefused(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withInstance { instance in
      let deepest = nested(FoundationBridge.maximumDepth - 1)
      try instance.backend.setValue(deepest, forKey: "deep")
      #expect(try instance.reload().value(forKey: "deep") == deepest)

      let error = #expect(throws: SettingsError.self) {
        try instance.backend.setValue(nested(FoundationBridge.maximumDepth), forKey: "deeper")
      }
      #expect(error?.code == .valueNotRepresentable)
      #expect(error?.key == "deeper")
      #expect(instance.backend.value(forKey: "deeper") == nil)
    }
  }

  @Test func aValueHoldingMoreValuesThanCanBeReadBackIsRefused() {
    let huge = PropertyListValue.array(
      Array(repeating: 0, count: FoundationBridge.maximumValueCount))
    let error = #expect(throws: SettingsError.self) {
      try InMemoryBackend().setValue(huge, forKey: "huge")
    }
    #expect(error?.reason.contains("more than 1000000 values") == true)
  }

  @Test(arguments: BackendFactory.all)
  func aNonFiniteDateIsRefusedByEveryBackendAsNoFileCouldHoldIt(
    _ factory: BackendFactory
  )
    async throws
  {
    try await factory.withInstance { instance in
      try instance.backend.setValue(5, forKey: "keep")
      for seconds in [Double.nan, .infinity, -.infinity] {
        let date = PropertyListValue.date(Date(timeIntervalSinceReferenceDate: seconds))
        let error = #expect(throws: SettingsError.self) {
          try instance.backend.setValue(.array([1, date]), forKey: "when")
        }
        #expect(error?.code == .valueNotRepresentable)
        #expect(error?.key == "when")
        #expect(
          error?.reason
            == "A date is not finite (\(seconds) s), which no property-list file can hold")
      }
      #expect(instance.backend.value(forKey: "when") == nil)
      #expect(try instance.reload().value(forKey: "keep") == 5)
    }
  }

  @Test func aReadStopsAtTheFirstUnreadableEntryPastTheLimitAndTheFileIsCorruptAsAWhole() throws {
    let limit = PropertyListReaders.maximumUnreadableEntries
    func file(bad: Int) -> Data {
      xmlPropertyList(
        "<dict><key>good</key><true/>"
          + (0..<bad).map { "<key>k\($0)</key><integer>x</integer>\n" }.joined() + "</dict>")
    }
    let salvaged = try PropertyListFile.decode(file(bad: limit), path: "a", salvagingEntries: true)
    #expect(salvaged.root == ["good": true])
    #expect(salvaged.unreadableEntries.count == limit)
    let error = #expect(throws: SettingsError.self) {
      try PropertyListFile.decode(file(bad: limit + 5), path: "a", salvagingEntries: true)
    }
    #expect(error?.code == .corruptFile)
    // The line of the first entry past the limit: reading stopped there.
    #expect(
      error?.reason == "Line \(4 + limit): " + PropertyListReaders.tooManyUnreadableEntries)
  }

  @Test func inMemoryBackendRefusesWhatEveryFileBackedBackendRefusesByTheSameCheck() throws {
    var deep = PropertyListValue.integer(1)
    for _ in 0..<FoundationBridge.maximumDepth { deep = .array([deep]) }
    let refused: [PropertyListValue] = [
      deep,
      .array(Array(repeating: 0, count: FoundationBridge.maximumValueCount)),
      .dictionary(["at": .date(Date(timeIntervalSinceReferenceDate: .nan))]),
    ]
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), options: .init(savesAtExit: false))
    let memory = InMemoryBackend()
    for value in refused {
      let fromFile = #expect(throws: SettingsError.self) { try store.setValue(value, forKey: "k") }
      let fromMemory = #expect(throws: SettingsError.self) {
        try memory.setValue(value, forKey: "k")
      }
      #expect(fromMemory?.code == .valueNotRepresentable)
      #expect(fromMemory?.reason == fromFile?.reason)
      // Every way in: several values at once, and an update.
      #expect(throws: SettingsError.self) { try memory.setValues(["ok": 1, "k": value]) }
      #expect(throws: SettingsError.self) { try memory.updateValues { $0["k"] = value } }
    }
    #expect(memory.dictionaryRepresentation() == [:])
  }

  @Test(arguments: BackendFactory.all)
  func aControlCharacterXMLCantHoldIsRefusedThere(_ factory: BackendFactory) async throws {
    try await factory.withInstance { instance in
      let text: PropertyListValue = "bell\u{7}"
      if factory.refusesXMLForbiddenCharacters {
        let error = #expect(throws: SettingsError.self) {
          try instance.backend.setValue(text, forKey: "text")
        }
        #expect(error?.reason.contains("U+0007") == true)
      } else {
        try instance.backend.setValue(text, forKey: "text")
        #expect(try instance.reload().value(forKey: "text") == text)
      }
      // The key itself is checked too.
      if factory.refusesXMLForbiddenCharacters {
        #expect(throws: SettingsError.self) {
          try instance.backend.setValue("fine", forKey: "key\u{1}")
        }
      }
      // Tab, line feed and carriage return are fine everywhere.
      try instance.backend.setValue("a\tb\nc\rd", forKey: "whitespace")
      #expect(try instance.reload().value(forKey: "whitespace") == "a\tb\nc\rd")
    }
  }

  // MARK: - Files

  @Test func aFileOverTheSizeLimitIsNeverWritten() throws {
    let directory = try TemporaryDirectory()
    let file = PropertyListFile(url: directory.file("data.plist"), maximumSize: 1024)
    try file.write(["small": 1])
    let error = #expect(throws: SettingsError.self) {
      try file.write(["big": .data(Data(count: 2048))])
    }
    #expect(error?.code == .fileTooLarge)
    #expect(try file.readDictionary() == ["small": 1])
  }

  @Test func aWriteThatWouldExceedTheStoresReadingLimitIsRefusedAndChangesNothing() throws {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), options: .init(maximumFileSize: 4096))
    let error = #expect(throws: SettingsError.self) {
      try store.setValue(.data(Data(count: 8192)), forKey: "blob")
    }
    #expect(error?.code == .fileTooLarge)
    #expect(error?.key == "blob")
    #expect(!store.hasUnsavedChanges)
  }

  @Test func theLargestSizeLimitDoesNotOverflow() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("data.plist")
    try PropertyListFile(url: url).write(["a": 1])
    #expect(try PropertyListFile(url: url, maximumSize: .max).readDictionary() == ["a": 1])
  }

  @Test func aNamedPipeInPlaceOfAFileIsRefusedWithoutBlocking() throws {
    let directory = try TemporaryDirectory()
    let fifo = directory.file("data.plist")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    let error = #expect(throws: SettingsError.self) {
      try LayeredPlistStore(persistentFile: fifo)
    }
    #expect(error?.code == .fileNotReadable)
    #expect(error?.reason == "It is not a regular file")
  }

  @Test func aBareBinaryHeaderIsACorruptBinaryFileNotAString() throws {
    let directory = try TemporaryDirectory()
    let url = directory.file("JF-info.plist")
    try Data("bplist00".utf8).write(to: url)
    let error = #expect(throws: SettingsError.self) {
      try LayeredPlistStore(persistentFile: directory.file("data.plist"), deliveredFile: url)
    }
    #expect(error?.code == .corruptFile)
    #expect(
      error?.reason
        == "The file is 8 bytes long, too short for a binary property list: it needs at least 40 "
        + "(an 8-byte header and a 32-byte trailer)")
  }

  /// The first save creates a missing folder; one that went away after it says so.
  @Test func aSaveIntoAFolderThatWentAwaySaysTheFolderIsMissing() throws {
    let directory = try TemporaryDirectory()
    let store = try LayeredPlistStore(persistentFile: directory.file("nope/data.plist"))
    try store.setValue(1, forKey: "a")
    try store.save()
    try FileManager.default.removeItem(at: directory.file("nope"))
    try store.setValue(2, forKey: "a")
    let error = #expect(throws: SettingsError.self) { try store.save() }
    #expect(error?.reason == "The folder '\(directory.file("nope").path)' does not exist")
  }

  @Test func theOpenStepFormatIsRefusedWhenTheStoreOpensNotAtEverySave() throws {
    let directory = try TemporaryDirectory()
    let error = #expect(throws: SettingsError.self) {
      try LayeredPlistStore(
        persistentFile: directory.file("data.plist"), options: .init(format: .openStep))
    }
    #expect(error?.code == .fileNotWritable)
  }

  /// A binary property list of `levels` arrays, each holding the next one twice: a few hundred
  /// bytes that describe 2^levels values.
  private func sharedReferenceBomb(levels: Int) -> Data {
    var objects: [[UInt8]] = []
    for level in 0..<levels {
      let next = UInt8(level + 1)
      objects.append([0xA2, next, next])  // an array of two references to the next object
    }
    objects.append([0x10, 0x00])  // the integer 0
    var data = Array("bplist00".utf8)
    var offsets: [UInt16] = []
    for object in objects {
      offsets.append(UInt16(data.count))
      data += object
    }
    let offsetTable = data.count
    for offset in offsets { data += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
    data += [0, 0, 0, 0, 0, 0]  // unused
    data += [2, 1]  // offset size, object reference size
    func be64(_ value: Int) -> [UInt8] {
      (0..<8).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) }
    }
    data += be64(objects.count) + be64(0) + be64(offsetTable)
    return Data(data)
  }

  @Test func aFewBytesOfSharedReferencesAreRefusedInsteadOfExpanded() throws {
    let directory = try TemporaryDirectory()
    let bomb = directory.file("bomb.plist")
    try sharedReferenceBomb(levels: 40).write(to: bomb)
    let small = directory.file("small.plist")
    try sharedReferenceBomb(levels: 3).write(to: small)
    #expect(
      try PropertyListFile(url: small).read()?.root == [[[0, 0], [0, 0]], [[0, 0], [0, 0]]])

    let clock = ContinuousClock()
    let start = clock.now
    let error = #expect(throws: SettingsError.self) { try PropertyListFile(url: bomb).read() }
    #expect(error?.code == .corruptFile)
    #expect(
      error?.reason == "It expands to more than 1000000 values: objects referred to many times over"
    )
    // Not a timing assertion: a generous bound that only an exponential expansion would break.
    #expect(clock.now - start < .seconds(60))
  }

  // MARK: - UserDefaults on Linux

  #if !canImport(Darwin)
    @Test func aCorruptSuiteFileIsMovedAsideNotOverwritten() throws {
      let suite = "TypedDefaultsTests.corrupt.\(UUID().uuidString)"
      let file = UserDefaultsBackend.fileURL(ofDomain: suite)
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      let garbage = Data("<?xml version=\"1.0\"?><plist><dict><key>a</key>".utf8)
      try garbage.write(to: file)
      defer {
        let folder = file.deletingLastPathComponent()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where name.hasPrefix(suite) {
          try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
      }

      let (backend, diagnostics) = collectingDiagnostics { UserDefaultsBackend(suiteName: suite) }
      #expect(diagnostics.map(\.kind) == [.corruptFile])
      let message = diagnostics.first?.message ?? ""
      #expect(message.contains("moved it to '\(file.path).corrupt-"))
      let asideName = try #require(
        try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
          .first { $0.hasPrefix("\(suite).plist.corrupt-") })
      let aside = file.deletingLastPathComponent().appendingPathComponent(asideName)
      #expect(try Data(contentsOf: aside) == garbage)

      try backend.setValue(1, forKey: "fresh")
      #expect(backend.synchronize())
      #expect(try PropertyListFile(url: file).readDictionary() == ["fresh": 1])
      #expect(try Data(contentsOf: aside) == garbage)
    }

    @Test func aFlushThatFailsIsReportedNotSilent() throws {
      let directory = try TemporaryDirectory()
      let notAFolder = directory.file("a-file")
      try Data("x".utf8).write(to: notAFolder)
      let run = try runProduct(
        "SettingsProbe", ["userdefaults", "TypedDefaultsTests.unwritable", "set", "k", "int:1"],
        environment: ["XDG_CONFIG_HOME": notAFolder.appendingPathComponent("config").path])
      #expect(
        run.standardError.contains("TypedDefaults: saveFailed:")
          && run.standardError.contains("TypedDefaultsTests.unwritable.plist"),
        "\(run.standardError)")
    }
  #endif
}
