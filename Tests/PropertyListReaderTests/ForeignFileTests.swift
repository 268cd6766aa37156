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

/// A Codable setting type, stored as a dictionary.
private struct RoundTripPoint: Codable, SettingValue, Equatable {
  var x: Int
  var y: Double
  var label: String
  var when: Date
}

/// The thirteen ways foreign files and faults broke "bad input never crashes and never loses
/// data", each pinned by a test named after the behaviour that now holds.
@Suite(.tags(.regression)) struct ForeignFileTests {
  // MARK: - Helpers

  /// A binary property list whose root array holds a set (marker 0xC), which no property-list
  /// type uses: CoreFoundation on Linux dies with SIGSEGV on it.
  static let arrayHoldingASet: Data = {
    var bytes: [UInt8] = Array("bplist00".utf8)
    bytes += [0xA1, 0x01]  // object 0 at 8: an array of one reference, to object 1
    bytes += [0xC1, 0x02]  // object 1 at 10: a set of one reference, to object 2
    bytes += [0x10, 0x01]  // object 2 at 12: the integer 1
    bytes += [0x08, 0x0A, 0x0C]  // the offset table, at 14
    bytes += [0, 0, 0, 0, 0, 0, 1, 1]  // unused, sort version, offset and reference sizes
    bytes += [0, 0, 0, 0, 0, 0, 0, 3]  // three objects
    bytes += [0, 0, 0, 0, 0, 0, 0, 0]  // the top object
    bytes += [0, 0, 0, 0, 0, 0, 0, 14]  // where the offset table starts
    return Data(bytes)
  }()

  private func xml(_ body: String) -> Data { xmlPropertyList(body) }

  private func files(in directory: TemporaryDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
  }

  // MARK: - 1 to 5: reading foreign files

  @Test func aSetInABinaryFileIsRefusedWithATypedErrorNotACrash() throws {
    let error = #expect(throws: SettingsError.self) {
      _ = try PropertyListFile.decode(Self.arrayHoldingASet, path: "set.plist")
    }
    #expect(error?.code == .corruptFile)
    #expect(error?.path == "set.plist")
    #expect(error?.reason.contains("set") == true, "\(error?.reason ?? "")")

    // As data.plist, the store opens, keeps the bytes aside and starts empty, every launch.
    let directory = try TemporaryDirectory()
    try Self.arrayHoldingASet.write(to: directory.file("data.plist"))
    let store = try LayeredPlistStore(persistentFile: directory.file("data.plist"))
    #expect(store.dictionaryRepresentation().isEmpty)
    #expect(store.recoveredProblems.map(\.code) == [.corruptFile])
    let aside = try files(in: directory).filter { $0.hasPrefix("data.plist.corrupt-") }
    #expect(aside.count == 1)
    #expect(try Data(contentsOf: directory.file(aside[0])) == Self.arrayHoldingASet)
    // As a delivered file, a typed error, and the file untouched.
    let delivered = directory.file("JF-info.plist")
    try Self.arrayHoldingASet.write(to: delivered)
    let deliveredError = #expect(throws: SettingsError.self) {
      _ = try LayeredPlistStore(
        persistentFile: directory.file("data.plist"), deliveredFile: delivered)
    }
    #expect(deliveredError?.code == .corruptFile)
    #expect(try Data(contentsOf: delivered) == Self.arrayHoldingASet)
  }

  @Test(arguments: [
    "<plist Q=\">\n<dict/>\n</plist>",
    "<plist version=\"1.0\">\n<array><string =\">apple</string></array>\n</plist>",
  ])
  func malformedAttributeSyntaxIsRefused(_ text: String) throws {
    let error = #expect(throws: SettingsError.self) {
      _ = try PropertyListFile.decode(Data(text.utf8), path: "bad.plist")
    }
    #expect(error?.code == .corruptFile)
    #expect(error?.reason.hasPrefix("Line ") == true, "\(error?.reason ?? "")")
  }

  @Test func aCommentInsideAKeyIsReadAsTheKeyWithoutIt() throws {
    let data = xml("<dict><key><!-- note --></key><string>empty key</string></dict>")
    #expect(try PropertyListFile.decode(data).root == ["": "empty key"])
    // As a delivered file, the store opens.
    let directory = try TemporaryDirectory()
    try data.write(to: directory.file("JF-info.plist"))
    let store = try LayeredPlistStore(
      persistentFile: directory.file("data.plist"), deliveredFile: directory.file("JF-info.plist"))
    #expect(store.value(forKey: "") == "empty key")
  }

  @Test func anImpossibleDateIsRefusedAndCostsOnlyItsOwnEntry() throws {
    let bad = xml("<dict><key>when</key><date>2024-01-32T20:43:14Z</date></dict>")
    let error = #expect(throws: SettingsError.self) { _ = try PropertyListFile.decode(bad) }
    #expect(error?.reason.contains("2024-01-32") == true, "\(error?.reason ?? "")")

    // In data.plist, the other entries survive; the original is kept aside.
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let original = xml(
      "<dict><key>when</key><date>2024-01-32T20:43:14Z</date><key>kept</key><integer>7</integer></dict>"
    )
    try original.write(to: file)
    let (store, diagnostics) = try collectingDiagnostics {
      try LayeredPlistStore(persistentFile: file)
    }
    #expect(store.dictionaryRepresentation() == ["kept": 7])
    #expect(store.recoveredProblems.compactMap(\.key) == ["when"])
    #expect(diagnostics.contains { $0.kind == .corruptFile && $0.message.contains("'when'") })
    let aside = try files(in: directory).filter { $0.hasPrefix("data.plist.corrupt-") }
    #expect(aside.count == 1)
    #expect(try Data(contentsOf: directory.file(aside[0])) == original)
    // The readable entries were written back at once, so the next launch has them too.
    #expect(try PropertyListFile(url: file).readDictionary() == ["kept": 7])
    #expect(try LayeredPlistStore(persistentFile: file).recoveredProblems.isEmpty)
  }

  @Test func aForeignDateWithFractionalSecondsIsReadExactly() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try xml(
      "<dict><key>stamp</key><date>2014-02-23T09:21:06.034Z</date><key>n</key><integer>1</integer></dict>"
    ).write(to: file)
    let whole = try #require(
      ISO8601DateFormatter().date(from: "2014-02-23T09:21:06Z")?.timeIntervalSinceReferenceDate)
    let exact = try #require(Double("\(Int(whole)).034"))
    #expect(
      try PropertyListFile(url: file).readDictionary()?["stamp"]
        == .date(Date(timeIntervalSinceReferenceDate: exact)))
    // The store keeps the file's values; an XML store holds what its next save will write,
    // which keeps whole seconds, so the value reads the same after a relaunch.
    let store = try LayeredPlistStore(persistentFile: file)
    #expect(store.recoveredProblems.isEmpty)
    #expect(store.persistentFormat == .xml)
    #expect(store.value(forKey: "stamp") == .date(Date(timeIntervalSinceReferenceDate: whole)))
    #expect(store.value(forKey: "n") == 1)
    // A store that saves binary keeps it exactly.
    let binary = try LayeredPlistStore(persistentFile: file, options: .init(format: .binary))
    #expect(binary.value(forKey: "stamp") == .date(Date(timeIntervalSinceReferenceDate: exact)))
  }

  // MARK: - 6: a value that could never be saved

  @Test func aValueTooLargeToSaveIsRefusedWhenWrittenAndOtherChangesStillSave() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file)
    // 9 MB of text with one non-ASCII character: a binary file holds it as UTF-16, 18 MB.
    let huge = String(repeating: "a", count: 9_000_000) + "é"
    let error = #expect(throws: SettingsError.self) {
      try store.setValue(.string(huge), forKey: "huge")
    }
    #expect(error?.code == .fileTooLarge)
    #expect(error?.key == "huge")
    let wasStored = store.value(forKey: "huge") != nil
    #expect(!wasStored)
    try store.setValue("small", forKey: "other")
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["other": "small"])

    // Through a setting, the refusal is a diagnostic and the setting keeps its value.
    struct Texts: SettingsGroup { @Setting var huge = "default" }
    let texts = Texts(backend: store)
    let (_, diagnostics) = collectingDiagnostics { texts.huge = huge }
    let keptDefault = texts.huge == "default"
    #expect(keptDefault)
    #expect(diagnostics.contains { $0.key == "huge" })

    // Many values that together would be too large: the one that tips it over is refused.
    let small = try LayeredPlistStore(
      persistentFile: directory.file("small.plist"), options: .init(maximumFileSize: 4096))
    for index in 0..<100 {
      do {
        try small.setValue(.data(Data(count: 100)), forKey: "k\(index)")
      } catch {
        #expect(error.code == .fileTooLarge)
        #expect(index > 10)
        break
      }
    }
    try small.save()
  }

  // MARK: - 7 and 8: recovery that never loses a saved key

  @Test func processesStartingOnOneCorruptFileNeverMoveAsideAGoodOne() throws {
    for round in 0..<5 {
      let directory = try TemporaryDirectory()
      let file = directory.file("data.plist")
      try Data("not a property list <".utf8).write(to: file)
      let processes = try (0..<4).map { index in
        let process = Process()
        process.executableURL = TestPaths.productsDirectory.appendingPathComponent("SettingsProbe")
        process.arguments = ["layered", file.path, "write-keys", "p\(index)", "20"]
        try process.run()
        return process
      }
      for process in processes {
        let processEnding = process.waitForExit()
        #expect(processEnding.status == 0, "round \(round)")
      }
      let saved = try #require(try PropertyListFile(url: file).readDictionary())
      #expect(saved.count == 80, "round \(round): \(saved.count) of 80 keys")
      // Exactly the corrupt original was kept aside, once.
      let aside = try files(in: directory).filter { $0.hasPrefix("data.plist.corrupt-") }
      #expect(aside.count == 1, "round \(round): \(aside)")
    }
  }

  @Test func aCorruptFileIsMovedAsideEvenWhenItsNameIsLongOrTheAsideNameIsTaken() throws {
    let directory = try TemporaryDirectory()
    let long = directory.file(String(repeating: "n", count: 240) + ".plist")
    let bytes = Data("corrupt <".utf8)
    try bytes.write(to: long)
    let store = try LayeredPlistStore(persistentFile: long)
    #expect(store.recoveredProblems.map(\.code) == [.corruptFile])
    #expect(!FileManager.default.fileExists(atPath: long.path))
    let kept = try files(in: directory).filter { $0.contains(".corrupt-") }
    #expect(kept.count == 1)
    #expect(try Data(contentsOf: directory.file(kept[0])) == bytes)

    // A dangling link planted at the predictable name is neither followed nor replaced.
    let file = directory.file("data.plist")
    try bytes.write(to: file)
    let stamp = Date().formatted(
      Date.ISO8601FormatStyle(
        dateSeparator: .omitted, dateTimeSeparator: .standard, timeSeparator: .omitted,
        timeZone: .gmt))
    let planted = directory.file("data.plist.corrupt-\(stamp)")
    let outside = try TemporaryDirectory()
    try FileManager.default.createSymbolicLink(
      atPath: planted.path, withDestinationPath: outside.file("target").path)
    let second = try LayeredPlistStore(persistentFile: file)
    #expect(second.recoveredProblems.count == 1)
    #expect(try files(in: outside).isEmpty)
    #expect(CorruptFiles.isSymbolicLink(planted))
    let moved = try files(in: directory).filter {
      $0.hasPrefix("data.plist.corrupt-") && $0 != planted.lastPathComponent
    }
    #expect(moved.count == 1)
    #expect(try Data(contentsOf: directory.file(moved.first ?? "")) == bytes)
  }

  @Test func aCorruptFileThatCantBeMovedAsideIsNeverOverwritten() throws {
    // data.plist is a link (the user's choice) to a file that isn't a property list: the store
    // never renames or replaces a file reached through a link.
    let directory = try TemporaryDirectory()
    let outside = try TemporaryDirectory()
    let target = outside.file("notes.txt")
    let bytes = Data("my notes, not a plist <".utf8)
    try bytes.write(to: target)
    let file = directory.file("data.plist")
    try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: target.path)
    let store = try LayeredPlistStore(persistentFile: file)
    #expect(store.recoveredProblems.map(\.code) == [.corruptFile])
    try store.setValue(1, forKey: "a")
    let error = #expect(throws: SettingsError.self) { try store.save() }
    #expect(error?.code == .fileNotWritable)
    #expect(error?.path == file.path)
    #expect(store.hasUnsavedChanges)
    #expect(try Data(contentsOf: target) == bytes)
    #expect(try files(in: outside) == ["notes.txt"])
    // Once the user fixes the file, the same store saves.
    try FileManager.default.removeItem(at: target)
    try store.save()
    #expect(try PropertyListFile(url: target).readDictionary() == ["a": 1])
    #expect(CorruptFiles.isSymbolicLink(file))
  }

  // MARK: - 9: a file read but never written back

  @Test func aControlCharacterInAnXMLFileCostsOnlyItsEntryAndSavesWorkAgain() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try xml("<dict><key>bell</key><string>ring\u{7}</string><key>ok</key><true/></dict>").write(
      to: file)
    let store = try LayeredPlistStore(persistentFile: file)
    #expect(store.dictionaryRepresentation() == ["ok": true])
    #expect(store.recoveredProblems.compactMap(\.key) == ["bell"])
    #expect(store.persistentFormat == .xml)
    try store.setValue(2, forKey: "n")
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["ok": true, "n": 2])
  }

  @Test func anOpenStepFileWithANullInAKeyIsKeptInAFormatThatHoldsIt() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try Data("{ \"a\\000b\" = 1; plain = 2; }".utf8).write(to: file)
    let store = try LayeredPlistStore(persistentFile: file)
    #expect(store.recoveredProblems.isEmpty)
    #expect(store.persistentFormat == .binary)
    #expect(store.value(forKey: "a\u{0}b") == "1")
    try store.setValue(3, forKey: "n")
    try store.save()
    #expect(
      try PropertyListFile(url: file).readDictionary() == ["a\u{0}b": "1", "plain": "2", "n": 3])
  }

  // MARK: - 10 to 12: temporary files, owners, links

  @Test func staleTemporaryFilesOfDeadProcessesAreRemovedWhenAStoreOpens() throws {
    let directory = try TemporaryDirectory()
    let finished = Process()
    finished.executableURL = URL(fileURLWithPath: "/bin/true")
    try finished.run()
    _ = finished.waitForExit()
    let dead = finished.processIdentifier
    let stale = ".data.plist.\(dead).12345.tmp"
    let live = ".data.plist.1.777.tmp"  // process 1 always exists
    let other = ".other.plist.\(dead).1.tmp"
    for name in [stale, live, other] { try Data("x".utf8).write(to: directory.file(name)) }
    _ = try LayeredPlistStore(persistentFile: directory.file("data.plist"))
    // Removed under the file's lock, whose file is made for it.
    #expect(try files(in: directory) == [live, other, "data.plist.lock"].sorted())
  }

  @Test(.enabled(if: geteuid() == 0, "changing owners needs root"))
  func aSaveByRootKeepsTheFilesOwner() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try PropertyListFile(url: file).write(["a": 1], format: .binary)
    let user = [FileAttributeKey.ownerAccountID: 4242, .groupOwnerAccountID: 4343]
    try FileManager.default.setAttributes(user, ofItemAtPath: file.path)
    try FileManager.default.setAttributes(user, ofItemAtPath: directory.url.path)
    let store = try LayeredPlistStore(persistentFile: file)
    try store.setValue(2, forKey: "a")
    try store.save()
    for path in [file.path, file.path + ".lock"] {
      let attributes = try FileManager.default.attributesOfItem(atPath: path)
      #expect(attributes[.ownerAccountID] as? Int == 4242, "\(path)")
      #expect(attributes[.groupOwnerAccountID] as? Int == 4343, "\(path)")
    }
    // A new file in the user's folder is the user's too.
    let fresh = try LayeredPlistStore(persistentFile: directory.file("new.plist"))
    try fresh.setValue(1, forKey: "b")
    try fresh.save()
    let attributes = try FileManager.default.attributesOfItem(
      atPath: directory.file("new.plist").path)
    #expect(attributes[.ownerAccountID] as? Int == 4242)
  }

  @Test(arguments: [200, 240, 255])
  func aStoreOnAFileWithALongNameSavesAndCleansUp(_ length: Int) throws {
    let directory = try TemporaryDirectory()
    let name = String(repeating: "é", count: (length - 6) / 2) + ".plist"
    let file = directory.file(name)
    let store = try LayeredPlistStore(persistentFile: file)
    try store.setValue(1, forKey: "a")
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 1])
    // A temporary file a killed process left, with the shortened name, is recognised as stale.
    let stale = AtomicFile.temporaryPrefix(for: file) + "999999999.1.tmp"
    try Data("x".utf8).write(to: directory.file(stale))
    _ = try LayeredPlistStore(persistentFile: file)
    #expect(!FileManager.default.fileExists(atPath: directory.file(stale).path))
  }

  @Test func aLockFileThatIsALinkIsNeverFollowed() throws {
    let directory = try TemporaryDirectory()
    let outside = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try FileManager.default.createSymbolicLink(
      atPath: file.path + ".lock", withDestinationPath: outside.file("created-here").path)
    let store = try LayeredPlistStore(persistentFile: file)
    try store.setValue(1, forKey: "a")
    let error = #expect(throws: SettingsError.self) { try store.save() }
    #expect(error?.code == .fileNotWritable)
    #expect(error?.reason.contains(file.path + ".lock") == true, "\(error?.reason ?? "")")
    #expect(try files(in: outside).isEmpty)
    #expect(store.hasUnsavedChanges)
  }

  // MARK: - 13: the tool, and messages

  @Test func readingOneKeyWithTheToolEscapesTerminalControlSequences() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("a.plist")
    try PropertyListFile(url: file).write(["k": "red\u{1B}[31m\tand\nmore"], format: .binary)
    let run = try runProduct("settings", ["read", file.path, "k"])
    #expect(run.status == 0)
    #expect(run.standardOutput == "red\\u{1B}[31m\tand\nmore\n")
  }

  @Test(.enabled(if: geteuid() == 0, "mounting a read-only file system needs root"))
  func aTemporaryFileThatCantBeCreatedIsNamedInTheError() throws {
    let directory = try TemporaryDirectory()
    let mount = directory.file("ro")
    try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
    let mounted = Process()
    mounted.executableURL = URL(fileURLWithPath: "/bin/mount")
    mounted.arguments = ["-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", mount.path]
    try mounted.run()
    let mountedEnding = mounted.waitForExit()
    guard mountedEnding.status == 0 else {
      // Not allowed here (a container without mount rights): nothing to check.
      return
    }
    defer {
      let unmount = Process()
      unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
      unmount.arguments = [mount.path]
      try? unmount.run()
      _ = unmount.waitForExit()
    }
    let error = #expect(throws: SettingsError.self) {
      try PropertyListFile(url: mount.appendingPathComponent("data.plist")).write(["a": 1])
    }
    #expect(error?.code == .fileNotWritable)
    #expect(
      error?.reason.contains(mount.path + "/.data.plist.") == true, "\(error?.reason ?? "")")
    #expect(error?.reason.contains("Read-only file system") == true, "\(error?.reason ?? "")")
  }

  @Test func aLockFileIsMadeBesideALinkedDataPlistInTheStoresFolderNeverBesideItsTarget() throws {
    let directory = try TemporaryDirectory()
    let outside = try TemporaryDirectory()
    let target = outside.file("dotfiles-settings.plist")
    try PropertyListFile(url: target).write(["a": 1], format: .binary)
    let file = directory.file("data.plist")
    try FileManager.default.createSymbolicLink(atPath: file.path, withDestinationPath: target.path)
    let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    try store.setValue(2, forKey: "a")
    try store.save()
    try store.update(forKey: "b") { _ in 3 }
    #expect(try PropertyListFile(url: target).readDictionary() == ["a": 2, "b": 3])
    #expect(CorruptFiles.isSymbolicLink(file))
    #expect(try files(in: outside) == ["dotfiles-settings.plist"])
    #expect(try files(in: directory) == ["data.plist", "data.plist.lock"])
  }

  // MARK: - Empty files and values that read back

  @Test func aWhitespaceOnlyDataPlistIsCorruptAndMovedAsideUnlikeAZeroByteOne() throws {
    for bytes in [" \n\t\r\n  ", "\n/* only a comment */\n// and another\n"].map({ Data($0.utf8) })
      + [Data([0xFF, 0xFE, 0x20, 0x00, 0x0A, 0x00])]
    {
      let directory = try TemporaryDirectory()
      let file = directory.file("data.plist")
      try bytes.write(to: file)
      let error = #expect(throws: SettingsError.self) { try PropertyListFile(url: file).read() }
      #expect(error?.code == .corruptFile)
      let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
      #expect(store.recoveredProblems.map(\.code) == [.corruptFile])
      #expect(
        store.recoveredProblems.first?.reason
          == "It holds only white space or comments, which is not a property list")
      let names = try files(in: directory)
      #expect(names.count == 2 && names.contains("data.plist.lock"), "\(names)")
      #expect(names.contains { $0.hasPrefix("data.plist.corrupt-") })
    }
  }

  @Test func aZeroByteDataPlistIsAnEmptyLayerNotACorruptFile() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try Data().write(to: file)
    let store = try LayeredPlistStore(persistentFile: file)
    #expect(store.recoveredProblems.isEmpty)
    #expect(store.layersLoadedFromDisk.contains(.persistent))
    #expect(try files(in: directory) == ["data.plist"])
    try store.setValue(1, forKey: "a")
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["a": 1])
    #expect(store.persistentFormat == .binary)
  }

  @Test(arguments: BackendFactory.all)
  func whateverAWriteAcceptsAReadReturnsEqual(_ factory: BackendFactory) async throws {
    try await factory.withInstance { instance in
      var checked = 0
      func check<Value: SettingValue & Equatable>(_ values: [Value]) throws {
        for value in values {
          let key = "v\(checked)"
          checked += 1
          guard let stored = try? value.propertyListValue() else { continue }
          do {
            try instance.backend.setValue(stored, forKey: key)
          } catch {
            continue  // refused at write: fine, as long as what is accepted reads back
          }
          let read = instance.backend.value(forKey: key).flatMap(Value.init(propertyListValue:))
          if factory.storesXML, let date = value as? Date {
            // XML's rule, for stores that choose it: whole seconds, kept from the write on.
            let whole = Date(
              timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.rounded(.down))
            #expect(read as? Date == whole, "\(date) in XML")
          } else {
            #expect(read == value, "\(Value.self) \(value) stored as \(stored)")
          }
        }
      }
      try check([true, false])
      try check([Int.min, -1, 0, 1, Int.max])
      try check([Int8.min, Int8.max])
      try check([UInt8.max])
      try check([UInt64.max, 0])
      try check([0.0, -0.0, 1.5, Double.greatestFiniteMagnitude, .infinity, -.infinity])
      try check([Float(1.1), .leastNonzeroMagnitude])
      try check(["", "text", "tab\tnew\nline", "bell\u{7}", "\u{FEFF}bom", "日本語 🎬"])
      try check([
        Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 1.25),
      ])
      try check([Data(), Data([0, 1, 255])])
      try check(
        [
          URL(string: "https://example.com/a?b=c#d"), URL(string: "www.example.com"),
          URL(string: "relative/path"), URL(string: "?query=1"), URL(fileURLWithPath: "/tmp/x"),
          URL(string: "mailto:someone@example.com"),
        ].compactMap { $0 })
      try check([["a", "b"], []])
      try check([["k": 1], [:]])
      try check([Quality.high, .low])
      try check([Switch.on, .off])
      try check([Int16.min, Int16.max])
      try check([Int32.min, Int32.max])
      try check([UInt.max, 0] as [UInt])
      try check([UInt16.max] as [UInt16])
      try check([UInt32.max] as [UInt32])
      try check([nil, 0, -7] as [Int?])
      try check([[1.5, -0.0], []] as [[Double]])
      try check([["a": 1], [:]] as [[String: Int]])
      try check([
        RoundTripPoint(
          x: 1, y: -0.0, label: "a\u{7}", when: Date(timeIntervalSinceReferenceDate: 0.5))
      ])
      let reloaded = try instance.reload()
      for index in 0..<checked {
        #expect(
          reloaded.value(forKey: "v\(index)") == instance.backend.value(forKey: "v\(index)"),
          "v\(index) after a reload")
      }
    }
  }

  // MARK: - Found by trying to break the above

  /// A binary property list of the given objects (each its marker and payload, references
  /// `referenceSize` bytes wide), the first one the root; offsets are two bytes wide.
  private static func binaryPlist(_ objects: [[UInt8]], referenceSize: UInt8 = 1) -> Data {
    var bytes: [UInt8] = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects {
      offsets.append(bytes.count)
      bytes += object
    }
    let tableStart = bytes.count
    for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
    bytes += [0, 0, 0, 0, 0, 0, 2, referenceSize]
    for value in [objects.count, 0, tableStart] {
      bytes += (0..<8).reversed().map { UInt8((value >> ($0 * 8)) & 0xFF) }
    }
    return Data(bytes)
  }

  /// A marker with a count, extended past 14 as the format does.
  private static func marker(_ kind: UInt8, count: Int) -> [UInt8] {
    count < 15
      ? [kind << 4 | UInt8(count)]
      : [kind << 4 | 0xF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
  }

  @Test func aCharacterReferenceOfManyDigitsIsReadOrRefusedNeverACrash() throws {
    for reference in ["&#x100000000;", "&#xFFFFFFFFFFFFFFFFFFFF;", "&#99999999999999999999;"] {
      let error = #expect(throws: SettingsError.self) {
        _ = try PropertyListFile.decode(xml("<string>\(reference)</string>"))
      }
      #expect(error?.code == .corruptFile, "\(reference)")
    }
    // Leading zeros are allowed by XML.
    #expect(
      try PropertyListFile.decode(xml("<string>&#0000000065;&#x000041;</string>")).root == "AA")
  }

  @Test func aDateBeforeYearOneSavedAsXMLReadsBack() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let store = try LayeredPlistStore(persistentFile: file, options: .init(format: .xml))
    let dates = [-63_145_526_401.0, -63_145_526_400.0 - 86_400 * 365 * 50, -63_114_076_800.0]
    for (index, seconds) in dates.enumerated() {
      try store.setValue(.date(Date(timeIntervalSinceReferenceDate: seconds)), forKey: "d\(index)")
    }
    try store.save()
    let reopened = try LayeredPlistStore(persistentFile: file)
    #expect(reopened.recoveredProblems.isEmpty)
    #expect(reopened.dictionaryRepresentation() == store.dictionaryRepresentation())
  }

  @Test func anXMLFileAfterMuchWhiteSpaceIsReadByOurReaderNotFoundations() throws {
    let padding = String(repeating: "\n", count: 200)
    let malformed = Data((padding + "<plist Q=\"><dict/></plist>").utf8)
    let error = #expect(throws: SettingsError.self) { _ = try PropertyListFile.decode(malformed) }
    #expect(error?.reason.hasPrefix("Line ") == true, "\(error?.reason ?? "")")
    let impossible = Data(
      (padding + "<plist><dict><key>d</key><date>2024-02-30T00:00:00Z</date></dict></plist>").utf8)
    #expect(throws: SettingsError.self) { _ = try PropertyListFile.decode(impossible) }
    let good = Data((padding + "<plist><date>2014-02-23T09:21:06.5Z</date></plist>").utf8)
    let contents = try PropertyListFile.decode(good)
    #expect(contents.format == .xml)
    #expect(
      contents.root.dateValue?.timeIntervalSinceReferenceDate.truncatingRemainder(dividingBy: 1)
        == 0.5)
  }

  @Test func anEntryThatExpandsPastTheSizeLimitCostsOnlyItselfAndWritesStayPossible() throws {
    // {bomb: 1000 references to one array of 900 references to one 200-character string, k: v}
    let text = Array(repeating: UInt8(ascii: "x"), count: 200)
    let bomb = Self.binaryPlist([
      Self.marker(0xD, count: 2) + [1, 2, 3, 4],  // 0: the root: keys 1 and 2, values 3 and 4
      Self.marker(0x5, count: 4) + Array("bomb".utf8),  // 1
      Self.marker(0x5, count: 1) + Array("k".utf8),  // 2
      Self.marker(0xA, count: 1000) + Array(repeating: 5, count: 1000),  // 3: the outer array
      Self.marker(0x5, count: 1) + Array("v".utf8),  // 4
      Self.marker(0xA, count: 900) + Array(repeating: 6, count: 900),  // 5: the inner array
      Self.marker(0x5, count: 200) + text,  // 6: the string
    ])
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    try bomb.write(to: file)
    let clock = ContinuousClock()
    let start = clock.now
    let store = try LayeredPlistStore(
      persistentFile: file, options: .init(maximumFileSize: 1 << 20))
    #expect(store.dictionaryRepresentation() == ["k": "v"])
    #expect(store.recoveredProblems.compactMap(\.key) == ["bomb"])
    try store.setValue("w", forKey: "k")
    try store.save()
    #expect(try PropertyListFile(url: file).readDictionary() == ["k": "w"])
    #expect(clock.now - start < .seconds(30), "bounded by the size limit, not the expansion")
  }

  @Test func aFewKilobytesThatExpandToGigabytesOfTextAreRefused() throws {
    // 1,000 references to one array of 900 references to one 2,000-character string: 1.8 GB.
    let bomb = Self.binaryPlist([
      Self.marker(0xA, count: 1000) + Array(repeating: 1, count: 1000),
      Self.marker(0xA, count: 900) + Array(repeating: 2, count: 900),
      Self.marker(0x5, count: 2000) + Array(repeating: UInt8(ascii: "x"), count: 2000),
    ])
    let error = #expect(throws: SettingsError.self) { _ = try PropertyListFile.decode(bomb) }
    #expect(error?.reason.contains("bytes of text and data") == true, "\(error?.reason ?? "")")
  }

  @Test func aFileNestedToTheLimitDecodesOnASmallThreadStack() throws {
    // 511 arrays, each holding the next, the last one empty: the deepest nesting allowed.
    var objects: [[UInt8]] = []
    for index in 0..<510 {
      objects.append([0xA1, UInt8((index + 1) >> 8), UInt8((index + 1) & 0xFF)])
    }
    objects.append([0xA0])
    let data = Self.binaryPlist(objects, referenceSize: 2)
    let depth = Locked<Int?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      var value = try? PropertyListFile.decode(data).root
      var levels = 0
      while case .array(let elements)? = value {
        levels += 1
        value = elements.first
      }
      depth.withLock { $0 = levels }
      done.signal()
    }
    thread.stackSize = 512 << 10  // a secondary thread's stack on Apple platforms
    thread.start()
    done.wait()
    #expect(depth.withLock { $0 } == 511)
  }

  @Test(.enabled(if: geteuid() == 0, "changing owners needs root"))
  func salvagingAFileKeepsItsModeAndOwner() throws {
    let directory = try TemporaryDirectory()
    let file = directory.file("data.plist")
    let original = xml(
      "<dict><key>bad</key><date>2024-01-32T00:00:00Z</date><key>ok</key><integer>1</integer></dict>"
    )
    try original.write(to: file)
    try FileManager.default.setAttributes(
      [.ownerAccountID: 1234, .groupOwnerAccountID: 2345, .posixPermissions: 0o644],
      ofItemAtPath: file.path)
    let store = try LayeredPlistStore(persistentFile: file)
    #expect(store.dictionaryRepresentation() == ["ok": 1])
    let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
    #expect(attributes[.ownerAccountID] as? Int == 1234)
    #expect(attributes[.groupOwnerAccountID] as? Int == 2345)
    #expect(attributes[.posixPermissions] as? Int == 0o644)
    let aside = try files(in: directory).filter { $0.hasPrefix("data.plist.corrupt-") }
    #expect(aside.count == 1)
    #expect(try Data(contentsOf: directory.file(aside.first ?? "")) == original)
  }

  @Test(.enabled(if: geteuid() == 0, "mounting a file system needs root"))
  func aCorruptFileOnAReadOnlyFileSystemOpensWithoutItAndSavesRefuse() throws {
    let directory = try TemporaryDirectory()
    let mount = directory.file("ro")
    try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
    func run(_ arguments: [String]) throws -> Int32 {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/mount")
      process.arguments = arguments
      try process.run()
      let processEnding = process.waitForExit()
      return processEnding.status
    }
    guard try run(["-t", "tmpfs", "-o", "size=64k", "tmpfs", mount.path]) == 0 else { return }
    defer {
      let unmount = Process()
      unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
      unmount.arguments = [mount.path]
      try? unmount.run()
      _ = unmount.waitForExit()
    }
    let file = mount.appendingPathComponent("data.plist")
    let corrupt = Data("<plist><dict><key>a</key>".utf8)
    try corrupt.write(to: file)
    #expect(try run(["-o", "remount,ro", mount.path]) == 0)
    let store = try LayeredPlistStore(persistentFile: file, options: .init(savesAtExit: false))
    #expect(store.recoveredProblems.map(\.code) == [.corruptFile])
    try store.setValue(1, forKey: "a")
    let error = #expect(throws: SettingsError.self) { try store.save() }
    #expect(error?.code == .fileNotWritable)
    #expect(try Data(contentsOf: file) == corrupt)
  }

  @Test func diagnosticsAndTheToolEscapeControlAndBidirectionalCharacters() throws {
    #expect(
      TerminalText.escaping("a\u{1B}[31m\u{7}b\u{202E}c\u{2066}d\ne")
        == "a\\u{1B}[31m\\u{7}b\\u{202E}c\\u{2066}d\\u{A}e")
    #expect(TerminalText.escaping("l1\nl2\tx", keepingLinesAndTabs: true) == "l1\nl2\tx")
    let directory = try TemporaryDirectory()
    let file = directory.file("a.plist")
    try PropertyListFile(url: file).write(["k": "safe\u{202E}txt.exe"], format: .binary)
    let run = try runProduct("settings", ["read", file.path, "k"])
    #expect(run.standardOutput == "safe\\u{202E}txt.exe\n")
  }
}
