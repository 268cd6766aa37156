import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A property-list file on disk: read it or write it whole, with typed errors that name the path
/// and the cause.
///
/// This is the FilePersistence seed's `saveMutableDictionary:toFile:` /
/// `loadMutableDictionaryFromFile:` done so that nothing fails silently: a missing file reads as
/// `nil`, and every other failure throws a ``SettingsError`` saying which file and why.
///
/// ```swift
/// let file = PropertyListFile(url: documents.appending(path: "mdic.plist"))
/// try file.write(["key1": "v1", "key2": "v2"])
/// let values = try file.readDictionary()  // ["key1": "v1", "key2": "v2"]
/// ```
///
/// Reading accepts XML, binary and OpenStep (old-style) files: binary and XML through the
/// library's own strict readers, which decode straight into ``PropertyListValue`` and never crash
/// on hostile input, OpenStep through `PropertyListSerialization`; writing produces XML or
/// binary. Writes replace the file atomically and durably (see ``write(_:format:)``): readers see
/// the old file or the new one, never a mix.
///
/// `PropertyListFile` is a value; reading and writing from several threads is safe, though two
/// concurrent writes to one file leave whichever finished last.
public struct PropertyListFile: Sendable, Hashable, CustomStringConvertible {
  /// An on-disk property-list format.
  public enum Format: String, Sendable, Hashable, CustomStringConvertible {
    /// XML (`<?xml …?><plist>`): readable and diffable by people; dates keep whole seconds.
    case xml
    /// Binary (`bplist00`): smaller and faster to read and write; dates keep full precision.
    case binary
    /// Old-style OpenStep text (`{ key = value; }`): read-only; cannot be written.
    case openStep

    /// The format's name: `xml`, `binary` or `openStep`.
    public var description: String { rawValue }
  }

  /// The result of reading a file: its root value and the format it was stored in.
  public struct Contents: Sendable, Hashable {
    /// The file's root value.
    public var root: PropertyListValue
    /// The format the file was stored in.
    public var format: Format

    /// Creates file contents.
    ///
    /// - Parameters:
    ///   - root: The root value.
    ///   - format: The on-disk format.
    public init(root: PropertyListValue, format: Format) {
      self.root = root
      self.format = format
    }
  }

  /// The largest file read by default: 16 MiB (16,777,216 bytes).
  ///
  /// Settings files are far smaller; a larger one is refused rather than read into memory.
  public static let defaultMaximumSize = 16 * 1024 * 1024

  /// The file's location.
  public let url: URL
  /// The largest file, in bytes, that ``read()`` accepts.
  public var maximumSize: Int

  /// Creates a reference to a property-list file.
  ///
  /// Nothing is read or created until you call ``read()`` or ``write(_:format:)``.
  ///
  /// - Parameters:
  ///   - url: The file's location (a `file:` URL).
  ///   - maximumSize: The largest file, in bytes, that ``read()`` accepts; 16 MiB by default.
  public init(url: URL, maximumSize: Int = PropertyListFile.defaultMaximumSize) {
    self.url = url
    self.maximumSize = maximumSize
  }

  /// The file's path.
  public var description: String { url.path }

  // MARK: - Reading

  /// Reads the whole file.
  ///
  /// - Returns: The root value and format, or `nil` if no file exists at ``url``.
  /// - Throws: ``SettingsError`` with code ``SettingsError/Code/fileNotReadable`` (a directory in
  ///   the file's place, no permission, an I/O error), ``SettingsError/Code/fileTooLarge`` (more
  ///   than ``maximumSize`` bytes) or ``SettingsError/Code/corruptFile`` (not a property list, or
  ///   one holding a value that is not a property-list type).
  public func read() throws(SettingsError) -> Contents? {
    guard let data = try readData() else { return nil }
    return try Self.decode(data, path: url.path)
  }

  /// Reads the file as a dictionary, as a settings layer requires.
  ///
  /// - Returns: The file's root dictionary, or `nil` if no file exists at ``url``.
  /// - Throws: What ``read()`` throws, and ``SettingsError/Code/wrongRootType`` if the root is not
  ///   a dictionary.
  public func readDictionary() throws(SettingsError) -> [String: PropertyListValue]? {
    try read().map { contents throws(SettingsError) in try dictionary(in: contents) }
  }

  /// Reads the file as an array.
  ///
  /// - Returns: The file's root array, or `nil` if no file exists at ``url``.
  /// - Throws: What ``read()`` throws, and ``SettingsError/Code/wrongRootType`` if the root is not
  ///   an array.
  public func readArray() throws(SettingsError) -> [PropertyListValue]? {
    guard let contents = try read() else { return nil }
    guard case .array(let elements) = contents.root else {
      throw wrongRoot(contents.root, expected: "an array")
    }
    return elements
  }

  /// The root dictionary of contents read from this file, for a caller that needs the format
  /// too (``read()``) and would otherwise read the file twice.
  ///
  /// - Parameter contents: What ``read()`` returned.
  /// - Returns: The root dictionary.
  /// - Throws: ``SettingsError/Code/wrongRootType`` naming the file if the root isn't one.
  public func dictionary(in contents: Contents) throws(SettingsError) -> [String: PropertyListValue]
  {
    guard case .dictionary(let entries) = contents.root else {
      throw wrongRoot(contents.root, expected: "a dictionary")
    }
    return entries
  }

  private func wrongRoot(_ root: PropertyListValue, expected: String) -> SettingsError {
    SettingsError(
      .wrongRootType, path: url.path,
      reason: "The root is \(Self.article(root.kind)), not \(expected)")
  }

  /// The file's bytes, or `nil` if there is no file; refuses what ``read()`` refuses before
  /// looking at the contents.
  package func readData() throws(SettingsError) -> Data? {
    try readVersion()?.data
  }

  /// The file's bytes and the version they are from, held open (see ``FileVersion``), or `nil`
  /// if there is no file: the file is opened, then its identity taken through the descriptor,
  /// then read through it, so the identity is always the one of the bytes read.
  ///
  /// Refuses what ``read()`` refuses before looking at the contents.
  func readVersion() throws(SettingsError) -> (data: Data, version: FileVersion)? {
    // Checked before opening: opening a device can have effects (and a FIFO's open waits).
    switch POSIX.kind(ofFileAt: url.path) {
    case .missing:
      return nil  // also a symbolic link to nothing
    case .regular(let size):
      // Refused before reading: a huge file is never loaded into memory.
      if size > Int64(clamping: maximumSize) { throw tooLarge() }
    case .directory:
      throw SettingsError(.fileNotReadable, path: url.path, reason: "It is a directory")
    case .other:
      // A FIFO would block the reader forever; a device is no settings file.
      throw SettingsError(.fileNotReadable, path: url.path, reason: "It is not a regular file")
    case .unreachable(let reason):
      throw SettingsError(.fileNotReadable, path: url.path, reason: reason)
    }
    let version: FileVersion
    let info: stat
    switch FileVersion.open(url.path) {
    case .missing:
      // Gone between the check and the open (another process replaced it): as if missing.
      return nil
    case .failed(let reason):
      throw SettingsError(.fileNotReadable, path: url.path, reason: reason)
    case .opened(let opened, let status):
      (version, info) = (opened, status)
    }
    // Replaced between the check and the open by something else than a regular file.
    switch info.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw SettingsError(.fileNotReadable, path: url.path, reason: "It is a directory")
    default:
      throw SettingsError(.fileNotReadable, path: url.path, reason: "It is not a regular file")
    }
    if Int64(info.st_size) > Int64(clamping: maximumSize) { throw tooLarge() }
    guard let data = version.read(sizeHint: Int(info.st_size), limit: maximumSize) else {
      throw SettingsError(.fileNotReadable, path: url.path, reason: POSIX.lastError)
    }
    // The file may have grown between the check and the read.
    guard data.count <= maximumSize else { throw tooLarge() }
    return (data, version)
  }

  private func tooLarge() -> SettingsError {
    SettingsError(
      .fileTooLarge, path: url.path, reason: "It is over the limit of \(maximumSize) bytes")
  }

  /// Decodes property-list bytes held in memory (standard input, a download) with the same
  /// reader and the same defences as ``read()``.
  ///
  /// - Parameters:
  ///   - data: The bytes: an XML, binary or OpenStep property list.
  ///   - path: What to call the bytes in errors (``SettingsError/path``), such as `<stdin>`.
  /// - Returns: The root value and the format.
  /// - Throws: ``SettingsError/Code/corruptFile`` if the bytes are not a property list, or hold a
  ///   value that is not a property-list type or more values than can be read.
  public static func decode(_ data: Data, path: String = "<data>") throws(SettingsError) -> Contents
  {
    let contents = try decode(data, path: path, salvagingEntries: false)
    return Contents(root: contents.root, format: contents.format)
  }

  /// Decodes property-list bytes, routing each format to its reader: binary and XML to the
  /// library's own strict readers, OpenStep text to Foundation.
  ///
  /// - Parameters:
  ///   - data: The bytes.
  ///   - path: What to call the bytes in errors.
  ///   - salvagingEntries: Leave out an entry of a root dictionary whose value can't be read,
  ///     reporting it in `unreadableEntries`, rather than refuse the whole file.
  /// - Returns: The root value, the format the bytes are in, and the entries left out (always
  ///   empty without `salvagingEntries`).
  /// - Throws: ``SettingsError/Code/corruptFile`` naming where and why.
  package static func decode(
    _ data: Data, path: String, salvagingEntries: Bool
  ) throws(SettingsError) -> (
    root: PropertyListValue, format: Format, unreadableEntries: [SettingsError]
  ) {
    switch Format.detect(data) {
    case .binary:
      let result = try BinaryPropertyListReader.read(
        data, path: path, salvagingEntries: salvagingEntries)
      return (result.root, .binary, result.unreadableEntries)
    case .xml:
      let result = try XMLPropertyListReader.read(
        data, path: path, salvagingEntries: salvagingEntries)
      return (result.root, .xml, result.unreadableEntries)
    case .openStep:
      let result = try FoundationPropertyListReader.read(data, path: path)
      return (result.root, result.format, [])
    }
  }

  // MARK: - Writing

  /// Replaces the file with `root`, atomically and durably: the new contents go to a temporary
  /// file in the same folder, which is flushed to disk and renamed over the old file, then the
  /// folder is flushed.
  ///
  /// A crash at any moment leaves the old file or the new one, complete.
  ///
  /// A new file is created readable and writable by its owner only (mode 0600); an existing file
  /// keeps its permissions. If ``url`` is a symbolic link, the file it points to is replaced and
  /// the link is kept (not replaced by a regular file).
  ///
  /// Never writes a file that ``read()`` or another property-list reader would refuse: one over
  /// ``maximumSize`` bytes, one holding values nested too deeply or too many of them, or
  /// malformed XML. Never replaces a file this user may not write, or anything but a regular
  /// file.
  ///
  /// - Parameters:
  ///   - root: The value to store; usually a dictionary.
  ///   - format: ``Format/xml`` (the default, a file people read and edit) or ``Format/binary``.
  ///     The stores choose for themselves: `LayeredPlistStore` keeps a file's own format and
  ///     writes a new `data.plist` as binary (`LayeredPlistStore.Options.format`), as a
  ///     `UserDefaults` suite on Linux is; this default is only for files written directly.
  /// - Throws: ``SettingsError`` with code ``SettingsError/Code/fileNotWritable`` if the folder
  ///   doesn't exist or isn't writable, the file is read-only for this user or is not a regular
  ///   file, the disk is full, or `format` is ``Format/openStep``;
  ///   ``SettingsError/Code/fileTooLarge`` if the encoded file would be over ``maximumSize``;
  ///   ``SettingsError/Code/valueNotRepresentable`` for what ``encode(_:format:path:)`` refuses.
  ///   The file is unchanged when this throws.
  public func write(_ root: PropertyListValue, format: Format = .xml) throws(SettingsError) {
    _ = try writeReturningVersion(root, format: format)
  }

  /// Writes the file as ``write(_:format:)`` does, and returns the version written, held open
  /// (see ``FileVersion``); `nil` if it couldn't be held, which callers treat as an unknown
  /// version.
  ///
  /// - Throws: What ``write(_:format:)`` throws.
  func writeReturningVersion(
    _ root: PropertyListValue, format: Format
  ) throws(SettingsError) -> FileVersion? {
    let data = try Self.encode(root, format: format, path: url.path)
    guard data.count <= maximumSize else {
      throw SettingsError(
        .fileTooLarge,
        path: url.path,
        reason:
          "It would be \(data.count) bytes, over the limit of \(maximumSize) that reading accepts"
      )
    }
    return try AtomicFile.replace(url, with: data)
  }

  /// Encodes a value as property-list bytes, as ``write(_:format:)`` does before writing them.
  ///
  /// - Parameters:
  ///   - root: The value to encode.
  ///   - format: ``Format/xml`` or ``Format/binary``.
  ///   - path: What to call the bytes in errors (``SettingsError/path``).
  /// - Returns: The encoded bytes.
  /// - Throws: ``SettingsError/Code/valueNotRepresentable`` if `root` is nested too deeply or
  ///   holds too many values to be read back, or can't be encoded; for XML, if a string or key
  ///   holds a character XML can't (a control character other than tab, line feed and carriage
  ///   return) or starts with U+FEFF, or a date is not finite;
  ///   ``SettingsError/Code/fileNotWritable`` for ``Format/openStep``, which can't be written.
  public static func encode(
    _ root: PropertyListValue,
    format: Format,
    path: String = "<data>"
  ) throws(SettingsError) -> Data {
    if let problem = WriteValidation.problem(inRoot: root) {
      throw SettingsError(.valueNotRepresentable, path: path, reason: problem.reason)
    }
    if format == .xml, let problem = XMLPropertyListRules.problem(inRoot: root) {
      throw SettingsError(.valueNotRepresentable, path: path, reason: problem)
    }
    let nativeFormat: PropertyListSerialization.PropertyListFormat
    switch format {
    case .xml: nativeFormat = .xml
    case .binary: nativeFormat = .binary
    case .openStep:
      throw SettingsError(
        .fileNotWritable,
        path: path,
        reason: "OpenStep property lists can be read but not written; use xml or binary"
      )
    }
    // The bridge and Foundation's writer recurse once per level.
    let encoded = root.withStackForItsDepth {
      Result {
        try PropertyListSerialization.data(
          fromPropertyList: FoundationBridge.object(from: root), format: nativeFormat, options: 0)
      }
    }
    switch encoded {
    case .success(let data):
      return format == .xml ? escapingCarriageReturns(data) : data
    case .failure(let error):
      throw SettingsError(.valueNotRepresentable, path: path, reason: Self.describe(error))
    }
  }

  // MARK: - Helpers

  /// XML with each carriage return written as `&#13;`.
  ///
  /// Foundation writes a carriage return in a string raw, and XML readers
  /// (``XMLPropertyListReader``, plistlib) must read a raw one as a line feed; the reference keeps
  /// it. Foundation's own line breaks are line feeds, so every carriage return in its output is in
  /// a string or key (and 0x0D is never part of a longer UTF-8 sequence).
  private static func escapingCarriageReturns(_ data: Data) -> Data {
    guard data.contains(0x0D) else { return data }
    var escaped = Data(capacity: data.count + 64)
    for byte in data {
      if byte == 0x0D {
        escaped.append(contentsOf: Array("&#13;".utf8))
      } else {
        escaped.append(byte)
      }
    }
    return escaped
  }

  /// The most specific human-readable cause Foundation offers for an error.
  package static func describe(_ error: any Error) -> String {
    let nsError = error as NSError
    if let debug = nsError.userInfo[NSDebugDescriptionErrorKey] as? String, !debug.isEmpty {
      return debug
    }
    if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError {
      return "\(nsError.localizedDescription) (\(underlying.localizedDescription))"
    }
    return nsError.localizedDescription
  }
}
