import Foundation

/// An upper bound on the bytes a value takes in an encoded property list, cheap enough to keep up
/// to date on every write: it lets a store refuse, when a value is written, a value that would make
/// its file larger than the store can write and read back, rather than fail at every later save.
///
/// The bound assumes the worst the writers do for a file of at most `limit` bytes: in binary,
/// every object its own (Foundation's writer on Linux shares none, not even equal strings),
/// offsets and references as wide as such a file needs, non-ASCII text as UTF-16; in XML, one tab
/// of indentation per level, every `&`, `<` and `>` escaped, data in base64 lines of 60
/// characters each with its own indentation. Walking a value stops as soon as the bound passes
/// the limit, so even a value that a small binary file expands into billions of bytes (one
/// object referred to many times over) is measured in time proportional to the limit.
enum EncodedSizeBound {
  /// The bytes a file holding only an empty root dictionary may take.
  static func emptyFile(format: PropertyListFile.Format) -> Int {
    format == .xml ? 256 : 64
  }

  /// The most bytes one entry of a root dictionary adds to a file: its key and its value; or, if
  /// that is more than `limit`, some number above `limit`.
  ///
  /// - Parameters:
  ///   - key: The entry's key.
  ///   - value: The entry's value.
  ///   - format: The file's format (OpenStep is counted as XML).
  ///   - limit: The largest file, in bytes, of interest.
  /// - Returns: The bound, in bytes; some number above `limit` if the bound is more than that.
  static func entry(
    key: String, value: PropertyListValue, format: PropertyListFile.Format, limit: Int
  ) -> Int {
    var total = 0
    if format == .binary {
      let width = byteWidth(of: max(limit, 1))
      total += binaryText(key, width: width)
      binary(value, width: width, total: &total, limit: limit)
    } else {
      total += 8 + xmlText(key)
      xml(value, depth: 1, total: &total, limit: limit)
    }
    return total
  }

  /// The bytes an offset or reference takes in a binary file of at most `limit` bytes.
  private static func byteWidth(of limit: Int) -> Int {
    var width = 1
    while width < 8, limit >> (8 * width) != 0 { width += 1 }
    return width
  }

  // Binary: an object is a marker, a length beyond 14 (an integer object of its own), its
  // payload, its offset and one reference to it.
  private static func binaryObject(count: Int, width: Int) -> Int {
    let length = count < 15 ? 0 : count < 256 ? 2 : count < 65_536 ? 3 : count < 1 << 32 ? 5 : 9
    return 1 + length + 2 * width
  }

  private static func binaryText(_ text: String, width: Int) -> Int {
    let bytes = text.utf8.count
    if text.utf8.contains(where: { $0 >= 0x80 }) {
      let units = text.utf16.count
      return binaryObject(count: units, width: width) + 2 * units
    }
    return binaryObject(count: bytes, width: width) + bytes
  }

  private static func binary(
    _ value: PropertyListValue, width: Int, total: inout Int, limit: Int
  ) {
    guard total <= limit else { return }
    switch value {
    case .string(let text): total += binaryText(text, width: width)
    case .integer: total += binaryObject(count: 0, width: width) + 16
    case .real, .date: total += binaryObject(count: 0, width: width) + 8
    case .bool: total += binaryObject(count: 0, width: width)
    case .data(let bytes): total += binaryObject(count: bytes.count, width: width) + bytes.count
    case .array(let elements):
      total += binaryObject(count: elements.count, width: width)
      for element in elements {
        binary(element, width: width, total: &total, limit: limit)
        if total > limit { return }
      }
    case .dictionary(let entries):
      total += binaryObject(count: entries.count, width: width)
      for (key, entry) in entries {
        total += binaryText(key, width: width)
        binary(entry, width: width, total: &total, limit: limit)
        if total > limit { return }
      }
    }
  }

  // XML: text with its escapes; each element on its own line with its indentation.
  private static func xmlText(_ text: String) -> Int {
    var escapes = 0
    for byte in text.utf8
    where byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
      || byte == UInt8(ascii: "\r")
    {
      escapes += 1
    }
    return text.utf8.count + 4 * escapes
  }

  private static func xml(_ value: PropertyListValue, depth: Int, total: inout Int, limit: Int) {
    guard total <= limit else { return }
    let line = depth + 1  // indentation and line feed
    switch value {
    case .string(let text): total += line + 17 + xmlText(text)
    case .integer: total += line + 19 + 20
    case .real: total += line + 13 + 32
    case .date: total += line + 13 + 24
    case .bool: total += line + 8
    case .data(let bytes):
      let base64 = (bytes.count + 2) / 3 * 4
      total += line + 13 + base64 + (base64 / 60 + 1) * (depth + 2)
    case .array(let elements):
      total += 2 * line + 17
      for element in elements {
        xml(element, depth: depth + 1, total: &total, limit: limit)
        if total > limit { return }
      }
    case .dictionary(let entries):
      total += 2 * line + 13
      for (key, entry) in entries {
        total += depth + 2 + 11 + xmlText(key)
        xml(entry, depth: depth + 1, total: &total, limit: limit)
        if total > limit { return }
      }
    }
  }
}

/// The one rule for the size of every file the library saves (a layered store's `data.plist`, a
/// `UserDefaultsBackend` suite file on Linux): a write is refused when it is made if the file
/// holding it could be larger than the file's limit, so that no value is accepted that no later
/// save could write (which would fail every save of the file from then on).
///
/// Keeps an upper bound per key (``EncodedSizeBound``), computed once at the first check (or
/// given by the file's read) and kept up to date as values change, so a check costs the written
/// values only. Not thread-safe: it lives in its store's locked state.
package struct EncodedSizeBudget {
  /// The format the file is saved in.
  let format: PropertyListFile.Format
  /// The largest file the store writes and reads, in bytes.
  let limit: Int
  /// Each key's bound; `nil` until known.
  private var bounds: [String: Int]?
  /// The sum of ``bounds`` and the empty file's bound.
  private var total = 0

  /// - Parameters:
  ///   - format: The format the file is saved in.
  ///   - limit: The largest file, in bytes.
  ///   - bounds: Each key's bound if already computed (by the file's read), else `nil`.
  package init(format: PropertyListFile.Format, limit: Int, bounds: [String: Int]? = nil) {
    self.format = format
    self.limit = limit
    if let bounds {
      self.bounds = bounds
      total = bounds.values.reduce(EncodedSizeBound.emptyFile(format: format), +)
    }
  }

  private func bound(_ key: String, _ value: PropertyListValue) -> Int {
    EncodedSizeBound.entry(key: key, value: value, format: format, limit: limit)
  }

  /// Whether the bounds are known; if not, ``measure(_:)`` must be called before a check.
  package var isMeasured: Bool { bounds != nil }

  /// Computes the bounds of the file's contents as the store wants them.
  package mutating func measure(_ contents: [String: PropertyListValue]) {
    var computed: [String: Int] = [:]
    for (key, value) in contents { computed[key] = bound(key, value) }
    self = EncodedSizeBudget(format: format, limit: limit, bounds: computed)
  }

  /// Throws if the file holding its contents with `writes` applied (`nil`: removed) could be
  /// larger than the limit.
  ///
  /// ``isMeasured`` must be `true`.
  ///
  /// - Parameters:
  ///   - writes: The keys and values about to be stored.
  ///   - path: The file, for the error.
  /// - Throws: ``SettingsError/Code/fileTooLarge`` naming the file and the key whose value makes
  ///   it too large (of several, the largest).
  package func check(
    after writes: some Sequence<(key: String, value: PropertyListValue?)>,
    path: @autoclosure () -> String
  ) throws(SettingsError) {
    precondition(isMeasured, "EncodedSizeBudget.check(after:path:) before measure(_:)")
    var after = total
    var largest: (key: String, size: Int)?
    for (key, value) in writes {
      after -= bounds?[key] ?? 0
      guard let value else { continue }
      let size = bound(key, value)
      after += size
      if size > largest?.size ?? -1 { largest = (key, size) }
    }
    guard after > limit else { return }
    throw tooLarge(after, key: largest?.key, path: path())
  }

  /// Throws if a file holding exactly `contents` could be larger than the limit: for an update
  /// that computes the whole contents under the file lock.
  ///
  /// - Parameters:
  ///   - contents: The file's contents.
  ///   - changed: The keys the caller changed, the largest of which the error names.
  ///   - path: The file, for the error.
  /// - Throws: ``SettingsError/Code/fileTooLarge``, as ``check(after:path:)`` does.
  func check(
    contents: [String: PropertyListValue], changed: Set<String>, path: String
  ) throws(SettingsError) {
    var total = EncodedSizeBound.emptyFile(format: format)
    var largest: (key: String, size: Int)?
    for (key, value) in contents {
      let size = bound(key, value)
      total += size
      if changed.contains(key), size > largest?.size ?? -1 { largest = (key, size) }
    }
    guard total > limit else { return }
    throw tooLarge(total, key: largest?.key, path: path)
  }

  private func tooLarge(_ size: Int, key: String?, path: String) -> SettingsError {
    SettingsError(
      .fileTooLarge, path: path, key: key,
      reason: "Storing " + (key.map { "the value of '\($0)'" } ?? "these values")
        + " could make the file \(size) bytes, over the limit of \(limit) that the store "
        + "writes and reads back; nothing was changed")
  }

  /// Brings the bounds up to date after the file's value for `key` changed to `value`.
  package mutating func valueChanged(forKey key: String, to value: PropertyListValue?) {
    guard bounds != nil else { return }
    total -= bounds?[key] ?? 0
    if let value {
      let size = bound(key, value)
      bounds?[key] = size
      total += size
    } else {
      bounds?[key] = nil
    }
  }
}
