import Foundation
import Testing
import TypedDefaultsLayers
import TypedDefaultsTestSupport

@testable import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// How a store knows whether another process saved its file since it last read or wrote it: the
/// version it knows is held open (``FileVersion``), so the inode number it compares can't be
/// given to another file.
///
/// Saves replace the file by a rename, which freed the old inode; a later save's new file then got
/// the same number, and with the same size and timestamps within the clock's granularity it looked
/// unchanged, so a save skipped reading the other process's changes and wrote over them (lost keys,
/// doubled increments in a four-process migration).
@Suite struct LayeredPlistStoreFileVersionTests {
  private static let quiet = LayeredPlistStore.Options(savesAtExit: false)

  /// Replaces the file at `url` as another process's save could, at worst: removes it, then
  /// creates a new file with `bytes` (the freed inode number is free for it) and gives it the
  /// modification time `like` had.
  ///
  /// Returns the new file's identity.
  private static func replaceReusingTheFreedInode(
    _ url: URL, with bytes: Data, modificationTimeOf like: FileIdentity
  ) throws -> FileIdentity {
    #expect(unlink(url.path) == 0)
    let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    #expect(bytes.withUnsafeBytes { POSIX.writeAll(descriptor, $0) })
    let time = timespec(
      tv_sec: Int(like.modificationSeconds), tv_nsec: Int(like.modificationNanoseconds))
    let times = [time, time]
    #expect(futimens(descriptor, times) == 0)
    return try #require(POSIX.identity(ofFileAt: url.path))
  }

  /// A binary property list `["value": value]`, required to be the size of `original` (the same
  /// dictionary with a value of the same length).
  private static func sameSizeFile(as original: Data, value: String) throws -> Data {
    let bytes = try PropertyListFile.encode(.dictionary(["value": .string(value)]), format: .binary)
    try #require(bytes.count == original.count)
    return bytes
  }

  @Test func aHeldVersionsInodeNumberIsNeverGivenToAFileMadeAfterItIsReplaced() throws {
    let folder = try TemporaryDirectory()
    let url = folder.file("data.plist")
    let version = try #require(try AtomicFile.replace(url, with: Data("first".utf8)))
    for _ in 0..<32 {
      // Without the descriptor held, ext4 gives the freed number to the very next file.
      let replaced = try Self.replaceReusingTheFreedInode(
        url, with: Data("other".utf8), modificationTimeOf: version.identity)
      try #require(replaced.inode != version.identity.inode)
      #expect(replaced.size == version.identity.size)
      #expect(replaced.modificationSeconds == version.identity.modificationSeconds)
      #expect(!version.isCurrent(atPath: url.path))
    }
  }

  @Test func aSaveReadsAReplacementWithTheSameSizeAndModificationTimeFirst() throws {
    let folder = try TemporaryDirectory()
    let url = folder.file("data.plist")
    let store = try LayeredPlistStore(
      persistentFile: url, options: .init(format: .binary, savesAtExit: false))
    try store.setValue("aaaa", forKey: "value")
    try store.save()
    let written = try #require(store.persisted.heldVersion?.identity)
    let original = try Data(contentsOf: url)
    let replaced = try Self.replaceReusingTheFreedInode(
      url, with: try Self.sameSizeFile(as: original, value: "bbbb"),
      modificationTimeOf: written)
    #expect(replaced.inode != written.inode)
    #expect(replaced.size == written.size)

    try store.setValue("mine", forKey: "own")
    try store.save()
    #expect(store.value(forKey: "value") == .string("bbbb"))
    #expect(
      try PropertyListFile(url: url).readDictionary()
        == ["value": .string("bbbb"), "own": .string("mine")])
  }

  @Test func anUpdateStartsFromAReplacementWithTheSameSizeAndModificationTime() throws {
    let folder = try TemporaryDirectory()
    let url = folder.file("data.plist")
    let store = try LayeredPlistStore(
      persistentFile: url, options: .init(format: .binary, savesAtExit: false))
    try store.setValue("1000", forKey: "value")
    try store.save()
    let written = try #require(store.persisted.heldVersion?.identity)
    _ = try Self.replaceReusingTheFreedInode(
      url, with: try Self.sameSizeFile(as: try Data(contentsOf: url), value: "2000"),
      modificationTimeOf: written)

    try store.updateValues { values in
      values["value"] = .string(values["value"] == .string("2000") ? "2001" : "wrong")
    }
    #expect(try PropertyListFile(url: url).readDictionary() == ["value": .string("2001")])
  }

  #if os(Linux)
    /// The descriptors this process holds open on `url` (listed in `/proc/self/fd`), counting
    /// those on replaced versions (`<path> (deleted)`).
    private static func openDescriptors(on url: URL) throws -> Int {
      let folder = "/proc/self/fd"
      let names = try FileManager.default.contentsOfDirectory(atPath: folder)
      return names.filter { name in
        let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\(name)")
        return link == url.path || link == url.path + " (deleted)"
      }.count
    }

    @Test func aStoreHoldsOneDescriptorOnItsFileAndClosesItWhenReleased() throws {
      let folder = try TemporaryDirectory()
      let url = folder.file("data.plist")
      try PropertyListFile(url: url).write(["value": 0], format: .binary)
      do {
        let store = try LayeredPlistStore(persistentFile: url, options: Self.quiet)
        #expect(try Self.openDescriptors(on: url) == 1)
        for count in 1...20 {
          try store.setValue(.integer(.init(Int64(count))), forKey: "value")
          try store.save()
          // Another store's save, which the next save and reload read.
          let other = try LayeredPlistStore(persistentFile: url, options: Self.quiet)
          try other.setValue(.integer(.init(Int64(count))), forKey: "other")
          try other.save()
        }
        try store.reload()
        #expect(store.value(forKey: "other") == .integer(20))
        #expect(try Self.openDescriptors(on: url) == 1)
      }
      #expect(try Self.openDescriptors(on: url) == 0)
    }

    @Test func aSuiteSaveReadsAReplacementWithTheSameSizeAndModificationTimeFirst() throws {
      let suite = TemporarySuite()
      try suite.backend.setValue("aaaa", forKey: "value")
      try suite.backend.save()
      let url = suite.fileURL
      let written = try #require(POSIX.identity(ofFileAt: url.path))
      let replaced = try Self.replaceReusingTheFreedInode(
        url, with: try Self.sameSizeFile(as: try Data(contentsOf: url), value: "bbbb"),
        modificationTimeOf: written)
      #expect(replaced.inode != written.inode)

      try suite.backend.setValue("mine", forKey: "own")
      try suite.backend.save()
      #expect(suite.backend.value(forKey: "value") == .string("bbbb"))
      #expect(
        try UserDefaultsSharingTests.saved(url)
          == ["value": .string("bbbb"), "own": .string("mine")])
    }
  #endif
}

extension PersistedPropertyListFile {
  /// The version of the file last read or written, held open (see ``version``), read under the
  /// save lock: for tests.
  var heldVersion: FileVersion? {
    saveLock.lock()
    defer { saveLock.unlock() }
    return version
  }
}
