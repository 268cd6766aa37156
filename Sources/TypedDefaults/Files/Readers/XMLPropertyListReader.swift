import Foundation

/// A strict reader of XML property lists: well-formed XML 1.0 holding the elements of Apple's
/// plist DTD, decoded straight into ``PropertyListValue``.
///
/// What it accepts, where CoreFoundation is lenient or wrong:
///
/// - Encodings: UTF-8 with or without a byte-order mark; UTF-16 and UTF-32 of either byte order
///   with one. An `encoding=` in the XML declaration must agree (UTF-8, UTF-16, UTF-32, or
///   US-ASCII for ASCII text); any other is refused, since the reader converts nothing else.
/// - The prolog: an optional XML declaration (first, if present), comments, processing
///   instructions and one DOCTYPE, skipped with its internal subset; entities declared there are
///   never defined, so a reference to one is an error (no entity expansion, no billion laughs).
/// - The root: `<plist>` (attributes ignored once well formed) holding exactly one value, or a
///   bare value element, as CoreFoundation and plistlib read. An empty `<plist/>` is refused, as
///   CoreFoundation refuses it (plistlib reads it as `None`, which no property list holds).
/// - Text: the five predefined entities and character references; CDATA; comments and
///   processing instructions anywhere, removed from text (`<key>a<!-- x -->b</key>` is `ab`);
///   CR LF and CR read as LF. Characters XML forbids are errors, raw or as references.
/// - Values: `<integer>` in decimal or `0x` hexadecimal, exactly `Int64.min ... UInt64.max`;
///   `<real>` in decimal, `nan` and `inf`/`infinity` with a sign, any case, bit-exact; `<date>`
///   `YYYY-MM-DDTHH:MM:SSZ` with an optional fraction (see ``PropertyListDate``); `<data>`
///   strict base64 with white space anywhere. White space around numbers and dates is ignored,
///   as both CoreFoundation and plistlib do. A key given twice keeps its last value.
///
/// Limits: containers nest at most ``PropertyListReaders/maximumDepth`` deep (the root is depth
/// 0) and a file holds at most ``PropertyListReaders/maximumValueCount`` values. The reader
/// keeps its own stack, so no input can overflow the call stack.
enum XMLPropertyListReader {
  /// Decodes an XML property list.
  ///
  /// - Parameters:
  ///   - data: The file's bytes: UTF-8 (with or without a byte-order mark), or UTF-16 or UTF-32
  ///     with a byte-order mark.
  ///   - path: What to call the bytes in errors.
  ///   - salvagingEntries: When the root is a dictionary, leave out an entry whose value can't be
  ///     read (reported in ``PropertyListReaders/Result/unreadableEntries``) rather than fail.
  ///     Errors in the XML itself (tags, attributes, references, encoding, truncation) still fail.
  /// - Returns: The root value, and the entries left out (always empty without
  ///   `salvagingEntries`).
  /// - Throws: ``SettingsError/Code/corruptFile`` naming the line and what was expected.
  static func read(
    _ data: Data, path: String, salvagingEntries: Bool = false
  ) throws(SettingsError) -> PropertyListReaders.Result {
    func corrupt(_ reason: String) -> SettingsError {
      SettingsError(.corruptFile, path: path, reason: reason)
    }
    guard !data.isEmpty else { throw corrupt("The file is empty") }
    let encoding: TextEncodings.Encoding
    let markLength: Int
    switch TextEncodings.detect(data) {
    case .success(let detected): (encoding, markLength) = detected
    case .failure(let refusal): throw corrupt(refusal.reason)
    }
    let outcome: Result<PropertyListReaders.Result, SettingsError>
    if case .utf8 = encoding {
      outcome = data.withUnsafeBytes { bytes in
        parse(bytes, start: markLength, encoding: encoding, path: path, salvaging: salvagingEntries)
      }
    } else {
      let transcoded: Result<[UInt8], TextEncodings.Refusal> = data.withUnsafeBytes { bytes in
        do throws(TextEncodings.Refusal) {
          return .success(
            try TextEncodings.transcodeToUTF8(
              UnsafeRawBufferPointer(rebasing: bytes[markLength...]), from: encoding))
        } catch {
          return .failure(error)
        }
      }
      switch transcoded {
      case .success(let utf8):
        outcome = utf8.withUnsafeBytes { bytes in
          parse(bytes, start: 0, encoding: encoding, path: path, salvaging: salvagingEntries)
        }
      case .failure(let refusal):
        throw corrupt(refusal.reason)
      }
    }
    return try outcome.get()
  }

  private static func parse(
    _ bytes: UnsafeRawBufferPointer, start: Int, encoding: TextEncodings.Encoding, path: String,
    salvaging: Bool
  ) -> Result<PropertyListReaders.Result, SettingsError> {
    var parser = Parser(
      scanner: XMLScanner(bytes: bytes, position: start), path: path, salvaging: salvaging,
      encoding: encoding)
    if case .utf8 = encoding, let bad = TextEncodings.firstInvalidUTF8(in: bytes) {
      let line = parser.scanner.line(at: bad)
      return .failure(
        SettingsError(
          .corruptFile, path: path,
          reason:
            "Line \(line): invalid UTF-8 (byte 0x\(String(bytes[bad], radix: 16, uppercase: true)) at offset \(bad))"
        ))
    }
    do throws(XMLFailure) {
      let root = try parser.document()
      return .success(PropertyListReaders.Result(root: root, unreadableEntries: parser.unreadable))
    } catch {
      return .failure(parser.settingsError(error))
    }
  }
}

// MARK: - The grammar

extension XMLPropertyListReader {
  /// The elements of a property list.
  fileprivate enum Element {
    case plist, dict, array, key, string, integer, real, date, data, `true`, `false`
  }

  /// An array or dictionary being read.
  fileprivate struct Frame {
    var isDictionary: Bool
    /// The element's name in the input (for skipping when salvaging).
    var name: Range<Int>
    var elements: [PropertyListValue] = []
    var entries: [String: PropertyListValue] = [:]
    /// A dictionary's key whose value comes next.
    var key: String?
  }

  fileprivate struct Parser {
    var scanner: XMLScanner
    let path: String
    let salvaging: Bool
    let encoding: TextEncodings.Encoding
    var unreadable: [SettingsError] = []
    var budget = PropertyListReaders.maximumValueCount

    init(scanner: XMLScanner, path: String, salvaging: Bool, encoding: TextEncodings.Encoding) {
      self.scanner = scanner
      self.path = path
      self.salvaging = salvaging
      self.encoding = encoding
    }

    mutating func settingsError(_ failure: XMLFailure, key: String? = nil) -> SettingsError {
      let line = scanner.line(at: failure.position)
      return SettingsError(
        .corruptFile, path: path, key: key, reason: "Line \(line): \(failure.reason)")
    }

    func element(_ name: Range<Int>) -> Element? {
      let scanner = self.scanner
      switch name.count {
      case 3:
        if scanner.range(name, is: "key") { return .key }
      case 4:
        if scanner.range(name, is: "dict") { return .dict }
        if scanner.range(name, is: "real") { return .real }
        if scanner.range(name, is: "date") { return .date }
        if scanner.range(name, is: "data") { return .data }
        if scanner.range(name, is: "true") { return .true }
      case 5:
        if scanner.range(name, is: "array") { return .array }
        if scanner.range(name, is: "plist") { return .plist }
        if scanner.range(name, is: "false") { return .false }
      case 6:
        if scanner.range(name, is: "string") { return .string }
      case 7:
        if scanner.range(name, is: "integer") { return .integer }
      default:
        break
      }
      return nil
    }

    // MARK: Document

    mutating func document() throws(XMLFailure) -> PropertyListValue {
      if scanner.matches("<?xml", at: scanner.position),
        XMLScanner.isWhitespace(scanner.byte(at: scanner.position + 5))
      {
        try declaration()
      }
      var sawDoctype = false
      var rootTag: XMLScanner.StartTag
      while true {
        try misc(expecting: "'<plist>'")
        guard scanner.position < scanner.bytes.count else {
          throw scanner.expected("'<plist>'", at: scanner.position)
        }
        if scanner.matches("<!DOCTYPE", at: scanner.position) {
          guard !sawDoctype else {
            throw XMLFailure(reason: "a second DOCTYPE", position: scanner.position)
          }
          sawDoctype = true
          try scanner.skipDoctype()
          continue
        }
        if scanner.byte(at: scanner.position + 1) == 0x2F {
          throw scanner.expected("'<plist>'", at: scanner.position)
        }
        rootTag = try scanner.readStartTag()
        break
      }
      let root: PropertyListValue
      if element(rootTag.name) == .plist {
        guard !rootTag.isEmpty else {
          throw XMLFailure(
            reason: "expected a value inside '<plist>' but found '<plist/>'",
            position: rootTag.start)
        }
        try misc(expecting: "a value")
        if scanner.matches("</", at: scanner.position) {
          throw scanner.expected("a value inside '<plist>'", at: scanner.position)
        }
        guard scanner.position < scanner.bytes.count else {
          throw scanner.expected("a value inside '<plist>'", at: scanner.position)
        }
        let valueTag = try scanner.readStartTag()
        root = try value(valueTag)
        try misc(expecting: "'</plist>'")
        guard scanner.matches("</", at: scanner.position) else {
          throw scanner.expected("'</plist>'", at: scanner.position)
        }
        try scanner.readEndTag(of: rootTag.name)
      } else {
        root = try value(rootTag)
      }
      try misc(expecting: "nothing more after the root element")
      guard scanner.position == scanner.bytes.count else {
        throw scanner.expected("nothing more after the root element", at: scanner.position)
      }
      return root
    }

    /// Skips what may come between elements, as a well-formedness failure.
    mutating func misc(expecting what: @autoclosure () -> String) throws(XMLFailure) {
      do throws(XMLFailure) {
        try scanner.skipMisc(expecting: what())
      } catch {
        var failure = error
        failure.isValueLevel = false
        throw failure
      }
    }

    /// Reads the XML declaration at the start: version, then optional encoding and standalone.
    mutating func declaration() throws(XMLFailure) {
      let start = scanner.position
      scanner.position += 5
      var pseudoAttributes: [(name: String, value: String, position: Int)] = []
      while true {
        let beforeSpace = scanner.position
        scanner.skipWhitespace()
        if scanner.matches("?>", at: scanner.position) {
          scanner.position += 2
          break
        }
        let nameStart = scanner.position
        guard scanner.position > beforeSpace else {
          throw scanner.expected("white space or '?>' in the XML declaration", at: nameStart)
        }
        while scanner.position < scanner.bytes.count,
          scanner.bytes[scanner.position] | 0x20 >= 0x61,
          scanner.bytes[scanner.position] | 0x20 <= 0x7A
        {
          scanner.position += 1
        }
        let name = scanner.string(nameStart..<scanner.position)
        guard !name.isEmpty else {
          throw scanner.expected("'version', 'encoding', 'standalone' or '?>'", at: nameStart)
        }
        scanner.skipWhitespace()
        guard scanner.byte(at: scanner.position) == 0x3D else {
          throw scanner.expected("'=' after '\(name)' in the XML declaration", at: scanner.position)
        }
        scanner.position += 1
        scanner.skipWhitespace()
        let quote = scanner.byte(at: scanner.position)
        guard quote == 0x22 || quote == 0x27 else {
          throw scanner.expected("a quoted value for '\(name)'", at: scanner.position)
        }
        let valueStart = scanner.position + 1
        var valueEnd = valueStart
        while valueEnd < scanner.bytes.count, scanner.bytes[valueEnd] != quote,
          scanner.bytes[valueEnd] != 0x3C, scanner.bytes[valueEnd] >= 0x20
        {
          valueEnd += 1
        }
        guard scanner.byte(at: valueEnd) == quote else {
          throw scanner.expected("the closing quote of '\(name)'", at: valueEnd)
        }
        pseudoAttributes.append((name, scanner.string(valueStart..<valueEnd), nameStart))
        scanner.position = valueEnd + 1
      }
      // version="1.x", then encoding, then standalone, each at most once.
      let names = pseudoAttributes.map(\.name)
      let allowedOrders = [
        ["version"], ["version", "encoding"], ["version", "standalone"],
        ["version", "encoding", "standalone"],
      ]
      guard allowedOrders.contains(names) else {
        throw XMLFailure(
          reason: "expected 'version', then optionally 'encoding' and 'standalone', in the XML "
            + "declaration but found \(names.map { "'\($0)'" }.joined(separator: ", "))",
          position: start)
      }
      for attribute in pseudoAttributes {
        switch attribute.name {
        case "version":
          let value = attribute.value.utf8
          guard value.count >= 3, value.starts(with: "1.".utf8),
            value.dropFirst(2).allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
          else {
            throw XMLFailure(
              reason: "expected the XML version '1.0' but found '\(attribute.value)'",
              position: attribute.position)
          }
        case "encoding":
          try checkDeclaredEncoding(attribute.value, at: attribute.position)
        default:
          guard attribute.value == "yes" || attribute.value == "no" else {
            throw XMLFailure(
              reason: "expected standalone 'yes' or 'no' but found '\(attribute.value)'",
              position: attribute.position)
          }
        }
      }
    }

    func checkDeclaredEncoding(_ name: String, at position: Int) throws(XMLFailure) {
      if encoding.isNamed(name) { return }
      let upper = name.uppercased()
      if case .utf8 = encoding, upper == "US-ASCII" || upper == "ASCII" {
        let bytes = scanner.bytes
        if let index = bytes.firstIndex(where: { $0 >= 0x80 }) {
          throw XMLFailure(
            reason: "the XML declaration says US-ASCII but the file holds non-ASCII text",
            position: index)
        }
        return
      }
      let known = [
        "UTF-8", "UTF8", "UTF-16", "UTF-16LE", "UTF-16BE", "UTF-32", "UTF-32LE", "UTF-32BE",
      ]
      if known.contains(upper) {
        let what: String
        if case .utf8(let mark) = encoding {
          what = mark ? "UTF-8 (its byte-order mark says so)" : "UTF-8 (it has no byte-order mark)"
        } else {
          what = "\(encoding) (its byte-order mark says so)"
        }
        throw XMLFailure(
          reason: "the XML declaration says the encoding is '\(name)' but the file is \(what)",
          position: position)
      }
      throw XMLFailure(
        reason: "the encoding '\(name)' is not supported: expected UTF-8, UTF-16 or UTF-32",
        position: position)
    }

    // MARK: Values

    /// Reads the value whose start tag is `first`, with an explicit stack of open containers.
    mutating func value(_ first: XMLScanner.StartTag) throws(XMLFailure) -> PropertyListValue {
      var frames: [Frame] = []
      var pending: XMLScanner.StartTag? = first
      while true {
        do throws(XMLFailure) {
          let tag: XMLScanner.StartTag
          if let next = pending {
            tag = next
            pending = nil
          } else {
            // Inside a container: the next element, or the container's end.
            let top = frames.count - 1
            try scanner.skipMisc(
              expecting: frames[top].isDictionary
                ? (frames[top].key == nil ? "'<key>' or '</dict>'" : "a value") : "a value")
            guard scanner.position < scanner.bytes.count else {
              throw scanner.expected(
                "'</\(scanner.string(frames[top].name))>'", at: scanner.position)
            }
            if scanner.byte(at: scanner.position + 1) == 0x2F {
              if let key = frames[top].key {
                throw scanner.valueFailure(
                  "expected a value for the key '\(key)' but found \(scanner.found(at: scanner.position))",
                  at: scanner.position)
              }
              try scanner.readEndTag(of: frames[top].name)
              let frame = frames.removeLast()
              let value: PropertyListValue =
                frame.isDictionary ? .dictionary(frame.entries) : .array(frame.elements)
              if frames.isEmpty { return value }
              attach(value, to: &frames)
              continue
            }
            tag = try scanner.readStartTag()
          }
          if let value = try element(tag, frames: &frames) {
            if frames.isEmpty { return value }
            attach(value, to: &frames)
          }
        } catch {
          // Salvaging: an entry of the root dictionary whose value can't be read is skipped
          // (checking only that its XML is well formed) and reported.
          let failure = error
          guard failure.isValueLevel, salvaging, let first = frames.first, first.isDictionary,
            let key = first.key
          else { throw failure }
          guard unreadable.count < PropertyListReaders.maximumUnreadableEntries else {
            throw XMLFailure(
              reason: PropertyListReaders.tooManyUnreadableEntries, position: failure.position)
          }
          let unclosed = frames.dropFirst().map(\.name) + failure.unclosed
          frames.removeSubrange(1...)
          frames[0].key = nil
          unreadable.append(settingsError(failure, key: key))
          scanner.position = failure.resume
          try scanner.skipElements(unclosed)
        }
      }
    }

    @inline(__always)
    func attach(_ value: PropertyListValue, to frames: inout [Frame]) {
      let top = frames.count - 1
      if frames[top].isDictionary {
        if let key = frames[top].key {
          frames[top].entries[key] = value
          frames[top].key = nil
        }
      } else {
        frames[top].elements.append(value)
      }
    }

    @inline(__always)
    mutating func count(at position: Int) throws(XMLFailure) {
      budget -= 1
      if budget < 0 {
        throw XMLFailure(
          reason: "more than \(PropertyListReaders.maximumValueCount) values", position: position)
      }
    }

    /// Handles one start tag: a key or scalar is read whole and returned (a key as `nil`, stored
    /// in its dictionary); a container is opened (`nil`) unless it is empty.
    mutating func element(
      _ tag: XMLScanner.StartTag, frames: inout [Frame]
    ) throws(XMLFailure) -> PropertyListValue? {
      let kind = element(tag.name)
      // Built only for a failure: no allocation per element.
      var unclosed: [Range<Int>] { tag.isEmpty ? [] : [tag.name] }
      if let top = frames.indices.last, frames[top].isDictionary, frames[top].key == nil {
        guard kind == .key else {
          throw scanner.valueFailure(
            "expected '<key>' or '</dict>' but found \(scanner.found(at: tag.start))",
            at: tag.start, unclosed: unclosed)
        }
        frames[top].key = try text(of: tag, isKey: true)
        return nil
      }
      guard let kind, kind != .key, kind != .plist else {
        let what = kind == nil ? "an element no property list has" : "a misplaced one"
        var failure = scanner.valueFailure(
          "expected a value but found \(scanner.found(at: tag.start)), \(what)", at: tag.start,
          unclosed: unclosed)
        if kind == .key, frames.count == 1 {
          // Two keys in a row in the root dictionary: salvaging leaves out the first and reads
          // the second as the next entry's key.
          failure.resume = tag.start
          failure.unclosed = []
        }
        throw failure
      }
      try count(at: tag.start)
      switch kind {
      case .array, .dict:
        guard frames.count < PropertyListReaders.maximumDepth else {
          throw scanner.valueFailure(
            "nesting deeper than \(PropertyListReaders.maximumDepth) levels", at: tag.start,
            unclosed: unclosed)
        }
        let isDictionary = kind == .dict
        if tag.isEmpty { return isDictionary ? .dictionary([:]) : .array([]) }
        frames.append(Frame(isDictionary: isDictionary, name: tag.name))
        return nil
      case .string:
        return .string(try text(of: tag, isKey: false))
      case .true, .false:
        if !tag.isEmpty {
          let (content, _) = try scanner.readText(collect: false, closing: tag.name)
          if content.inScratch || !content.range.isEmpty
            || scanner.byte(at: scanner.position + 1) != 0x2F
          {
            throw scanner.valueFailure(
              "expected '</\(scanner.string(tag.name))>' but found \(scanner.found(at: content.range.lowerBound))",
              at: content.range.lowerBound, unclosed: unclosed)
          }
          try scanner.readEndTag(of: tag.name)
        }
        return .bool(kind == .true)
      default:
        return try scalar(kind, tag: tag)
      }
    }

    /// The text of a `<key>` or `<string>` element, through its end tag.
    mutating func text(of tag: XMLScanner.StartTag, isKey: Bool) throws(XMLFailure) -> String {
      if tag.isEmpty { return "" }
      let (content, end) = try scanner.readText(collect: true, closing: tag.name)
      guard end == .endTag else {
        throw scanner.valueFailure(
          "expected '</\(scanner.string(tag.name))>' but found \(scanner.found(at: scanner.position))",
          at: scanner.position, unclosed: [tag.name])
      }
      let string =
        content.inScratch
        ? String(decoding: scanner.scratch, as: UTF8.self) : scanner.string(content.range)
      try scanner.readEndTag(of: tag.name)
      if let (problem, position) = scanner.forbiddenCharacter {
        scanner.forbiddenCharacter = nil
        // Value-level; a key of the root dictionary itself names no entry to leave out, so it
        // is never salvaged.
        throw scanner.valueFailure(
          "the \(isKey ? "key" : "string") holds \(problem)", at: position)
      }
      return string
    }

    /// Reads an `<integer>`, `<real>`, `<date>` or `<data>` element through its end tag.
    mutating func scalar(
      _ kind: Element, tag: XMLScanner.StartTag
    ) throws(XMLFailure) -> PropertyListValue {
      let name = scanner.string(tag.name)
      var content = XMLScanner.Text(range: scanner.position..<scanner.position, inScratch: false)
      var textStart = scanner.position
      if !tag.isEmpty {
        textStart = scanner.position
        let (text, end) = try scanner.readText(collect: true, closing: tag.name)
        guard end == .endTag else {
          throw scanner.valueFailure(
            "expected '</\(name)>' but found \(scanner.found(at: scanner.position))",
            at: scanner.position, unclosed: [tag.name])
        }
        content = text
        try scanner.readEndTag(of: tag.name)
        if let (problem, position) = scanner.forbiddenCharacter {
          scanner.forbiddenCharacter = nil
          throw scanner.valueFailure("the <\(name)> holds \(problem)", at: position)
        }
      }
      let parsed: PropertyListValue? =
        if content.inScratch {
          scanner.scratch.withUnsafeBytes { Self.convert(kind, $0) }
        } else {
          Self.convert(kind, UnsafeRawBufferPointer(rebasing: scanner.bytes[content.range]))
        }
      if let parsed { return parsed }
      let text: String =
        content.inScratch
        ? String(decoding: scanner.scratch, as: UTF8.self) : scanner.string(content.range)
      let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
      let expected: String
      switch kind {
      case .integer:
        expected =
          "an integer from \(Int64.min) to \(UInt64.max) (decimal, or hexadecimal after '0x')"
      case .real: expected = "a real number"
      case .date: expected = "a date 'YYYY-MM-DDTHH:MM:SSZ' that exists"
      default: expected = "base64 data"
      }
      throw scanner.valueFailure(
        "expected \(expected) in <\(name)> but found '\(shown)'", at: textStart)
    }

    static func convert(_ kind: Element, _ text: UnsafeRawBufferPointer) -> PropertyListValue? {
      switch kind {
      case .data:
        return PropertyListScalars.base64(text).map { .data(Data($0)) }
      default:
        let trimmed = PropertyListScalars.trimmed(text)
        switch kind {
        case .integer: return PropertyListScalars.integer(trimmed).map(PropertyListValue.integer)
        case .real: return PropertyListScalars.real(trimmed).map(PropertyListValue.real)
        default: return PropertyListDate.parse(trimmed).map(PropertyListValue.date)
        }
      }
    }
  }
}
