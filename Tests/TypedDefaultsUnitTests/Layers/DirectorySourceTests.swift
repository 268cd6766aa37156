import Foundation
import Testing
import TypedDefaults
import TypedDefaultsLayers
import TypedDefaultsSchema
import TypedDefaultsTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `DirectorySource` (issue #19): a folder of one file per key, as Kubernetes mounts a ConfigMap
/// or a Secret, read as one snapshot and watched through its `..data` swaps.
@Suite struct DirectorySourceTests {
  /// A folder `config` in a fresh temporary folder, with these files.
  func folder(
    _ files: [String: Data], in temporary: TemporaryDirectory
  ) throws -> URL {
    let folder = temporary.file("config")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (name, bytes) in files {
      try bytes.write(to: folder.appendingPathComponent(name))
    }
    return folder
  }

  /// Version `n` of a mount where every key carries `n`, each file written a different way; the
  /// key `even` exists in even versions only.
  static func payload(_ n: Int) -> [String: String] {
    var payload = ["a": "\(n)\n", "b": "\(n)", "c": "\(n)\r\n"]
    if n.isMultiple(of: 2) { payload["even"] = "\(n)" }
    return payload
  }

  /// What reading version `n` gives.
  static func values(_ n: Int) -> [String: PropertyListValue] {
    payload(n).mapValues { _ in .string("\(n)") }
  }

  /// The version a read saw, if it is one whole version; `nil` for a mix or anything else.
  static func version(of contents: LayerContents) -> Int? {
    guard case .string(let text)? = contents.values["a"], let n = Int(text),
      contents.values == values(n), contents.problems.isEmpty
    else { return nil }
    return n
  }

  // MARK: - Reading rules

  @Test func eachFileIsAKeyAndItsTextWithoutOneTrailingNewlineTheValue() throws {
    let temporary = try TemporaryDirectory()
    let files: [String: String] = [
      "plain": "value", "newline": "value\n", "crlf": "value\r\n", "two": "value\n\n",
      "empty": "", "justNewline": "\n", "spaces": " value \n", "unicode": "grüße ✓\n",
      "lines": "line 1\nline 2\n", "carriageReturn": "value\r", "com.example.dotted": "x",
    ]
    let source = DirectorySource(
      directory: try folder(files.mapValues { Data($0.utf8) }, in: temporary), layer: "config")
    let contents = try source.read()
    #expect(
      contents.values == [
        "plain": "value", "newline": "value", "crlf": "value", "two": "value\n", "empty": "",
        "justNewline": "", "spaces": " value ", "unicode": "grüße ✓", "lines": "line 1\nline 2",
        "carriageReturn": "value\r", "com.example.dotted": "x",
      ])
    #expect(contents.problems.isEmpty)
    #expect(source.valuesAreText)
    #expect(!source.isForced)
    #expect(source.layer == "config")
  }

  @Test func bytesThatArentUTF8OrHoldANULByteAreDataKeptExactly() throws {
    let temporary = try TemporaryDirectory()
    let keystore = Data([0x30, 0x82, 0x01, 0x0A, 0x02, 0x00, 0xFF, 0x0A])
    let latin1 = Data([0x63, 0x61, 0x66, 0xE9, 0x0A])  // "café\n" in ISO 8859-1
    let nul = Data("a\u{0}b\n".utf8)
    let source = DirectorySource(
      directory: try folder(
        ["keystore.p12": keystore, "latin1": latin1, "nul": nul], in: temporary),
      layer: "secrets", holdsSecrets: true)
    let contents = try source.read()
    #expect(
      contents.values == [
        "keystore.p12": .data(keystore), "latin1": .data(latin1), "nul": .data(nul),
      ])
  }

  @Test func hiddenNamesAndFoldersAreSkipped() throws {
    let temporary = try TemporaryDirectory()
    let root = try folder(
      ["key": Data("v".utf8), ".hidden": Data("h".utf8), "..data_tmp": Data("t".utf8)],
      in: temporary)
    let sub = root.appendingPathComponent("sub")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    try Data("nested".utf8).write(to: sub.appendingPathComponent("nested"))
    let hiddenFolder = root.appendingPathComponent("..2026_12_02_08_05_00.1")
    try FileManager.default.createDirectory(at: hiddenFolder, withIntermediateDirectories: true)
    try Data("old".utf8).write(to: hiddenFolder.appendingPathComponent("key"))
    let contents = try DirectorySource(directory: root, layer: "config").read()
    #expect(contents.values == ["key": "v"])
    #expect(contents.problems.isEmpty)
  }

  @Test func aMissingFolderIsAnEmptyLayer() throws {
    let temporary = try TemporaryDirectory()
    let contents = try DirectorySource(directory: temporary.file("not-mounted"), layer: "config")
      .read()
    #expect(contents == LayerContents(values: [:]))
  }

  @Test func aFileInThePlaceOfTheFolderThrowsNamingIt() throws {
    let temporary = try TemporaryDirectory()
    let file = temporary.file("config")
    try Data("x".utf8).write(to: file)
    #expect(throws: SettingsError(.fileNotReadable, path: file.path, reason: "It is not a folder"))
    {
      try DirectorySource(directory: file, layer: "config").read()
    }
  }

  @Test(.enabled(if: geteuid() != 0, "root lists any folder"))
  func aFolderThatCantBeListedThrowsNamingIt() throws {
    let temporary = try TemporaryDirectory()
    let root = try folder(["key": Data("v".utf8)], in: temporary)
    try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: root.path)
    defer {
      try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root.path)
    }
    let error = #expect(throws: SettingsError.self) {
      try DirectorySource(directory: root, layer: "config").read()
    }
    #expect(error?.code == .fileNotReadable)
    #expect(error?.path == root.path)
  }

  @Test func aFileOverTheLimitIsAProblemNamingItAndTheOthersAreStillRead() throws {
    let temporary = try TemporaryDirectory()
    let root = try folder(
      ["small": Data("1234\n".utf8), "large": Data("123456".utf8)], in: temporary)
    let contents = try DirectorySource(directory: root, layer: "config", maximumFileSize: 5).read()
    #expect(contents.values == ["small": "1234"])
    #expect(
      contents.problems == [
        SettingsError(
          .fileTooLarge, path: root.appendingPathComponent("large").path, key: "large",
          reason: "It is over the limit of 5 bytes")
      ])
    #expect(DirectorySource.defaultMaximumFileSize == 1_048_576)
  }

  @Test func aFIFOIsAProblemAndIsNeverOpened() throws {
    let temporary = try TemporaryDirectory()
    let root = try folder(["key": Data("v".utf8)], in: temporary)
    let fifo = root.appendingPathComponent("fifo")
    try #require(mkfifo(fifo.path, 0o644) == 0)
    let contents = try DirectorySource(directory: root, layer: "config").read()
    #expect(contents.values == ["key": "v"])
    #expect(
      contents.problems == [
        SettingsError(
          .fileNotReadable, path: fifo.path, key: "fifo", reason: "It is not a regular file")
      ])
  }

  @Test(.enabled(if: geteuid() != 0, "root reads any file"))
  func aFileThatCantBeReadIsAProblemAndTheOthersAreStillRead() throws {
    let temporary = try TemporaryDirectory()
    let root = try folder(["key": Data("v".utf8), "locked": Data("l".utf8)], in: temporary)
    let locked = root.appendingPathComponent("locked")
    try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked.path)
    let contents = try DirectorySource(directory: root, layer: "config").read()
    #expect(contents.values == ["key": "v"])
    #expect(contents.problems.map(\.key) == ["locked"])
    #expect(contents.problems.map(\.path) == [locked.path])
    #expect(contents.problems.map(\.code) == [.fileNotReadable])
  }

  @Test func aSymbolicLinkIsFollowedOnlyInsideTheFolder() throws {
    let temporary = try TemporaryDirectory()
    let outside = temporary.file("outside.txt")
    try Data("outside secret".utf8).write(to: outside)
    let root = try folder(["real": Data("real\n".utf8)], in: temporary)
    let sub = root.appendingPathComponent("sub")
    try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
    try Data("nested".utf8).write(to: sub.appendingPathComponent("file"))
    let links = [
      "inside": "real", "intoSubfolder": "sub/file", "relativeOut": "../outside.txt",
      "absoluteOut": outside.path, "dangling": "nothing", "loop": "loop", "toFolder": "sub",
    ]
    for (name, destination) in links {
      try FileManager.default.createSymbolicLink(
        atPath: root.appendingPathComponent(name).path, withDestinationPath: destination)
    }
    let contents = try DirectorySource(directory: root, layer: "secrets", holdsSecrets: true)
      .read()
    #expect(contents.values == ["real": "real", "inside": "real", "intoSubfolder": "nested"])
    #expect(contents.problems.map(\.key) == ["absoluteOut", "loop", "relativeOut"])
    let resolvedOutside = try #require(realpath(outside.path, nil))
    defer { free(resolvedOutside) }
    #expect(
      contents.problems.first
        == SettingsError(
          .fileNotReadable, path: root.appendingPathComponent("absoluteOut").path,
          key: "absoluteOut",
          reason:
            "It is a symbolic link to \(String(cString: resolvedOutside)), outside the folder;"
            + " it is not followed"))
    #expect(contents.problems.allSatisfy { !"\($0)".contains("outside secret") })
  }

  @Test func theFolderItselfMayBeASymbolicLink() throws {
    let temporary = try TemporaryDirectory()
    let root = try folder(["key": Data("v".utf8)], in: temporary)
    let link = temporary.file("current")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: root)
    #expect(try DirectorySource(directory: link, layer: "config").read().values == ["key": "v"])
  }

  // MARK: - Kubernetes' layout

  @Test func aKubernetesMountIsReadThroughDataWithoutItsOwnEntries() throws {
    let temporary = try TemporaryDirectory()
    let mount = try KubernetesMount(at: temporary.file("config"), Self.payload(2))
    let names = try FileManager.default.contentsOfDirectory(atPath: mount.directory.path)
    #expect(names.contains("..data") && names.contains("even"))
    let contents = try DirectorySource(directory: mount.directory, layer: "config").read()
    #expect(contents == LayerContents(values: Self.values(2)))
  }

  @Test(arguments: [
    KubernetesMount.Step.createVisibleLinks, .linkDataTemporary, .renameOverData, .removeOldLinks,
    .removeOldFolder,
  ])
  func aSwapStoppedAtAnyStepReadsAsTheOldVersionOrTheNewOneWhole(
    stop: KubernetesMount.Step
  ) throws {
    // 1 → 2 adds the key `even`, 2 → 3 removes it.
    for from in [1, 2] {
      let temporary = try TemporaryDirectory()
      let mount = try KubernetesMount(at: temporary.file("config"), Self.payload(from))
      try mount.write(Self.payload(from + 1), stoppingBefore: stop)
      let expected = stop <= .renameOverData ? from : from + 1
      let contents = try DirectorySource(directory: mount.directory, layer: "config").read()
      #expect(contents == LayerContents(values: Self.values(expected)), "\(from) → \(stop)")
    }
  }

  @Test func aDataLinkLeadingOutsideTheFolderThrowsAndIsNeverFollowed() throws {
    let temporary = try TemporaryDirectory()
    let elsewhere = try folder(["password": Data("redirected".utf8)], in: temporary)
    let root = temporary.file("secrets")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("..data").path, withDestinationPath: elsewhere.path)
    try FileManager.default.createSymbolicLink(
      atPath: root.appendingPathComponent("password").path,
      withDestinationPath: "..data/password")
    let error = #expect(throws: SettingsError.self) {
      try DirectorySource(directory: root, layer: "secrets", holdsSecrets: true).read()
    }
    #expect(error?.code == .fileNotReadable)
    #expect(error?.path == root.appendingPathComponent("..data").path)
    #expect(error?.reason.hasSuffix("outside the folder; it is not followed") == true)
  }

  // MARK: - Watching

  /// What one read during a storm of swaps gave.
  enum StormRead: Equatable {
    /// One whole version.
    case whole(Int)
    /// A refusal the source is allowed under a storm: every one of its attempts overlapped a swap
    /// (a reader starved by a loaded machine), or the process ran out of descriptors (a parallel
    /// run under `ulimit -n 1024`). The store keeps its values and reads again at the next report.
    case refused
    /// Anything else: values of several versions, or a problem a storm doesn't explain.
    case wrong(String)

    init(_ read: () throws(SettingsError) -> LayerContents) {
      let contents: LayerContents
      do { contents = try read() } catch {
        self = Self.isAllowed(error) ? .refused : .wrong("threw: \(error)")
        return
      }
      if let version = DirectorySourceTests.version(of: contents) {
        self = .whole(version)
      } else if !contents.problems.isEmpty, contents.problems.allSatisfy(Self.isAllowed) {
        self = .refused
      } else {
        self = .wrong("read: \(contents.values), problems: \(contents.problems)")
      }
    }

    static func isAllowed(_ error: SettingsError) -> Bool {
      error.reason.hasPrefix("It was replaced during each of")
        || error.reason.contains("Too many open files")
    }

    var version: Int? {
      if case .whole(let version) = self { version } else { nil }
    }
  }

  @Test func aHundredSwapsWhileWatchingAreEachReadWholeAndTheLastWins() async throws {
    let temporary = try TemporaryDirectory()
    let mount = try KubernetesMount(at: temporary.file("config"), Self.payload(0))
    let source = DirectorySource(directory: mount.directory, layer: "config")
    // The store's part: read again on each report (on the watch's queue), keep what was read.
    let reported = Received<StormRead>()
    let reporter = LayerSourceReporter { _ in reported.append(StormRead(source.read)) }
    source.startWatching(reportingTo: reporter)
    defer { source.stopWatching() }
    // Another reader, reading as fast as it can while the mount is swapped: on a thread of its
    // own, not the test pool's (whose two threads on a 2-core machine it would halve, spinning).
    let stop = Locked(false)
    let seen = Locked<[StormRead]>([])
    let readerDone = DispatchSemaphore(value: 0)
    Thread {
      while !stop.withLock({ $0 }) {
        let read = StormRead(source.read)
        seen.withLock { $0.append(read) }
      }
      readerDone.signal()
    }.start()
    // The swaps race the reader only once it runs (the watch reports each at once).
    await eventually("the reader reads") { seen.withLock { !$0.isEmpty } }
    for n in 1...100 { try mount.write(Self.payload(n)) }
    let sawLast = await eventually("a report's read sees version 100") {
      reported.last == .whole(100)
    }
    stop.withLock { $0 = true }
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        readerDone.wait()
        continuation.resume()
      }
    }
    let concurrent = seen.withLock { $0 }
    guard sawLast else { return }

    // Every read was one whole version or an honest refusal, never a mix; the versions read
    // never went back.
    for reads in [reported.all, concurrent] {
      #expect(reads.filter { if case .wrong = $0 { true } else { false } } == [])
      let versions = reads.compactMap(\.version)
      #expect(versions.allSatisfy { (0...100).contains($0) })
      #expect(versions == versions.sorted())
    }
    #expect(concurrent.contains { $0.version != nil })
    #expect(try Self.version(of: source.read()) == 100)
  }

  @Test func watchingAPlainFolderReportsAFileWrittenAndAFolderMountedLater() async throws {
    let temporary = try TemporaryDirectory()
    let root = temporary.file("config")
    let source = DirectorySource(directory: root, layer: "config")
    let reads = Received<[String: PropertyListValue]>()
    let reportedKeys = Received<[String]?>()
    let reporter = LayerSourceReporter { keys in
      reportedKeys.append(keys)
      reads.append((try? source.read().values) ?? [:])
    }
    // The missing folder's watch fails (a diagnostic, on the watch's queue) and polls.
    _ = collectingDiagnostics { source.startWatching(reportingTo: reporter) }
    defer { source.stopWatching() }

    // The folder mounted later: polled, then watched.
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    try Data("1\n".utf8).write(to: root.appendingPathComponent("key"))
    await eventually("the mounted folder's file is reported") { reads.last == ["key": "1"] }
    try Data("2\n".utf8).write(to: root.appendingPathComponent("key"))
    await eventually("the rewritten file is reported") { reads.last == ["key": "2"] }
    try FileManager.default.removeItem(at: root.appendingPathComponent("key"))
    await eventually("the removed file is reported") { reads.last == [:] }
    // Any key may have changed: the store reads the whole folder again.
    #expect(reportedKeys.all.allSatisfy { $0 == nil })
  }

  // MARK: - Secrets and records

  @Test func aSecretMountsValuesNeverAppearInTheSourcesDescriptionOrDump() throws {
    let temporary = try TemporaryDirectory()
    let secret = "hunter2-\(UUID().uuidString)"
    let mount = try KubernetesMount(
      at: temporary.file("secrets"), ["password": secret + "\n", "token": secret])
    let source = DirectorySource(directory: mount.directory, layer: "secrets", holdsSecrets: true)
    #expect(try source.read().values == ["password": .string(secret), "token": .string(secret)])
    source.startWatching(reportingTo: LayerSourceReporter { _ in })
    defer { source.stopWatching() }

    var dumped = ""
    dump(source, to: &dumped)
    for shown in [String(describing: source), String(reflecting: source), dumped] {
      #expect(!shown.contains(secret))
      #expect(shown.contains(mount.directory.path))
    }
    #expect(source.holdsSecrets)
    #expect(String(describing: source).contains("secret values"))
    // An oversized secret's problem names the file, not its contents.
    let limited = DirectorySource(
      directory: mount.directory, layer: "secrets", holdsSecrets: true, maximumFileSize: 4)
    let problems = try limited.read().problems
    #expect(problems.map(\.key) == ["password", "token"])
    #expect(problems.allSatisfy { !"\($0)".contains(secret) })
  }

  @Test func theRecordedSourceIsTheFoldersAbsolutePathAndWhetherItHoldsSecrets() throws {
    let temporary = try TemporaryDirectory()
    let folder = temporary.url.appendingPathComponent("a/../secrets")
    let source = DirectorySource(directory: folder, layer: "secrets", holdsSecrets: true)
    #expect(
      source.recordedSource
        == .directory(path: temporary.file("secrets").standardizedFileURL.path, holdsSecrets: true))
    #expect(
      DirectorySource(directory: folder, layer: "config").recordedSource
        == .directory(path: temporary.file("secrets").standardizedFileURL.path, holdsSecrets: false)
    )
  }
}
