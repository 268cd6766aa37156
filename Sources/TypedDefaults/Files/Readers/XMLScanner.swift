import Foundation

/// Why XML could not be read, found by ``XMLScanner`` or ``XMLPropertyListReader``: what was
/// expected, where, and how much of the document is still sound.
struct XMLFailure: Error {
  /// What was expected and found, starting in lower case (`expected '</string>' but found …`);
  /// the reader prefixes the line.
  var reason: String
  /// The byte offset (in the UTF-8 text) the problem was found at.
  var position: Int
  /// Whether the XML is still well formed at this point and only a value is unreadable (a bad
  /// number, date or base64 text, a character XML forbids in text, an element no property list
  /// has), so that salvaging may skip the value and go on.
  var isValueLevel: Bool = false
  /// For a value-level failure: where skipping the rest of the value starts.
  var resume: Int = 0
  /// For a value-level failure: the names of the elements open at `resume` that the reader's own
  /// stack doesn't know of.
  var unclosed: [Range<Int>] = []
}

/// The bytes of an XML document in UTF-8 and a position in them: the tokens of XML 1.0
/// (white space, comments, processing instructions, CDATA sections, references, start and end
/// tags with their attributes, a DOCTYPE) read by byte comparisons, never by character.
///
/// Text is returned as a range of the input when it holds nothing to decode (the fast path),
/// and built in a reused scratch buffer otherwise (references, CDATA, comments, carriage
/// returns). Line numbers are counted only when a message needs one.
struct XMLScanner {
  /// The document: well-formed UTF-8 (checked before scanning).
  let bytes: UnsafeRawBufferPointer
  /// The offset of the next byte to read.
  var position: Int
  /// Decoded text, when ``Text/inScratch``.
  var scratch: [UInt8] = []
  /// The first character XML forbids that the last ``readText(collect:closing:)`` met, with its
  /// offset: a value-level problem, reported once the element is closed.
  var forbiddenCharacter: (reason: String, position: Int)?

  private var linesCountedTo = 0
  private var lineAtCounted = 1

  /// Creates a scanner.
  ///
  /// - Parameters:
  ///   - bytes: The document as UTF-8.
  ///   - position: Where to start (after a byte-order mark).
  init(bytes: UnsafeRawBufferPointer, position: Int) {
    self.bytes = bytes
    self.position = position
    scratch.reserveCapacity(256)
  }

  // MARK: - Bytes

  /// The byte at `offset`, or 0 past the end (0 is never valid XML, so it matches nothing).
  @inline(__always)
  func byte(at offset: Int) -> UInt8 {
    offset < bytes.count ? bytes[offset] : 0
  }

  /// Whether the bytes at `offset` are `literal`.
  @inline(__always)
  func matches(_ literal: StaticString, at offset: Int) -> Bool {
    let length = literal.utf8CodeUnitCount
    guard offset + length <= bytes.count else { return false }
    let pointer = literal.utf8Start
    for index in 0..<length where bytes[offset + index] != pointer[index] {
      return false
    }
    return true
  }

  /// Whether the bytes in `range` are `literal`.
  @inline(__always)
  func range(_ range: Range<Int>, is literal: StaticString) -> Bool {
    range.count == literal.utf8CodeUnitCount && matches(literal, at: range.lowerBound)
  }

  /// Whether two ranges hold the same bytes.
  func sameBytes(_ first: Range<Int>, _ second: Range<Int>) -> Bool {
    guard first.count == second.count else { return false }
    for index in 0..<first.count
    where bytes[first.lowerBound + index] != bytes[second.lowerBound + index] {
      return false
    }
    return true
  }

  /// The bytes in `range` as a string.
  func string(_ range: Range<Int>) -> String {
    String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }

  @inline(__always)
  static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D
  }

  @inline(__always)
  private static func isNameStart(_ byte: UInt8) -> Bool {
    // ASCII letters, '_', ':', and any non-ASCII byte (XML allows most non-ASCII letters).
    (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F || byte == 0x3A || byte >= 0x80
  }

  @inline(__always)
  private static func isNameByte(_ byte: UInt8) -> Bool {
    isNameStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
  }

  // MARK: - Lines and messages

  /// The 1-based line of `offset`: line feeds, carriage returns and CR LF pairs each end one.
  ///
  /// Counting resumes from the last offset asked about, so messages in file order cost one pass.
  mutating func line(at offset: Int) -> Int {
    let offset = min(offset, bytes.count)
    if offset < linesCountedTo {
      linesCountedTo = 0
      lineAtCounted = 1
    }
    var line = lineAtCounted
    var index = linesCountedTo
    while index < offset {
      let byte = bytes[index]
      if byte == 0x0A {
        line += 1
      } else if byte == 0x0D, self.byte(at: index + 1) != 0x0A {
        line += 1
      }
      index += 1
    }
    linesCountedTo = offset
    lineAtCounted = line
    return line
  }

  /// What is at `offset`, for a message: `'<dict>'`, `text 'abc'` or `the end of the file`.
  func found(at offset: Int) -> String {
    guard offset < bytes.count else { return "the end of the file" }
    var end = offset
    if bytes[offset] == 0x3C {
      while end < bytes.count, end - offset < 40, bytes[end] != 0x3E, bytes[end] != 0x0A,
        bytes[end] != 0x0D
      {
        end += 1
      }
      let closed = end < bytes.count && bytes[end] == 0x3E
      if closed { end += 1 }
      return "'\(string(offset..<end))\(closed ? "" : "…")'"
    }
    while end < bytes.count, end - offset < 30, bytes[end] != 0x3C, bytes[end] != 0x0A,
      bytes[end] != 0x0D
    {
      end += 1
    }
    let text = string(offset..<end)
    return text.isEmpty ? "a line break" : "text '\(text)'"
  }

  /// A failure at `offset`: "expected X but found …".
  func expected(_ what: String, at offset: Int) -> XMLFailure {
    XMLFailure(reason: "expected \(what) but found \(found(at: offset))", position: offset)
  }

  /// A value-level failure (see ``XMLFailure/isValueLevel``) resuming at the current position.
  func valueFailure(
    _ reason: String, at offset: Int, unclosed: [Range<Int>] = []
  ) -> XMLFailure {
    XMLFailure(
      reason: reason, position: offset, isValueLevel: true, resume: position, unclosed: unclosed)
  }

  /// The message for a character XML forbids at `offset`, or `nil` if it is allowed; the
  /// length of the character is 1 for a control and 3 for U+FFFE or U+FFFF.
  @inline(__always)
  func forbidden(at offset: Int) -> String? {
    let byte = bytes[offset]
    if byte < 0x20 {
      if byte == 0x09 || byte == 0x0A || byte == 0x0D { return nil }
      let hex = String(byte, radix: 16, uppercase: true)
      return "the control character U+\(hex.count == 1 ? "000" : "00")\(hex), which XML forbids"
    }
    if byte == 0xEF, self.byte(at: offset + 1) == 0xBF, self.byte(at: offset + 2) | 1 == 0xBF {
      let code = self.byte(at: offset + 2) == 0xBE ? "FFFE" : "FFFF"
      return "the character U+\(code), which XML forbids"
    }
    return nil
  }

  /// Throws if the character at `offset` is one XML forbids anywhere.
  @inline(__always)
  private func checkCharacter(at offset: Int) throws(XMLFailure) {
    if let problem = forbidden(at: offset) {
      throw XMLFailure(reason: problem, position: offset)
    }
  }

  // MARK: - Markup between elements

  /// Skips white space.
  @inline(__always)
  mutating func skipWhitespace() {
    while position < bytes.count, Self.isWhitespace(bytes[position]) { position += 1 }
  }

  /// Skips white space, comments and processing instructions, stopping at the next other
  /// markup (or the end); text there is a value-level failure.
  ///
  /// - Parameter context: What was expected, for the message about text.
  /// - Throws: A value-level ``XMLFailure`` for text before the next markup; an ``XMLFailure``
  ///   for a malformed comment or processing instruction.
  mutating func skipMisc(expecting context: @autoclosure () -> String) throws(XMLFailure) {
    while true {
      skipWhitespace()
      guard position < bytes.count else { return }
      if bytes[position] != 0x3C {
        let start = position
        throw valueFailure("expected \(context()) but found \(found(at: start))", at: start)
      }
      if matches("<!--", at: position) {
        try skipComment()
      } else if byte(at: position + 1) == 0x3F {  // "<?"
        try skipProcessingInstruction()
      } else {
        return
      }
    }
  }

  /// Skips a comment starting at the position (`<!--`): `--` may appear only in the `-->`
  /// that ends it.
  mutating func skipComment() throws(XMLFailure) {
    let start = position
    var index = position + 4
    while index < bytes.count {
      let byte = bytes[index]
      if byte == 0x2D, self.byte(at: index + 1) == 0x2D {
        guard self.byte(at: index + 2) == 0x3E else {
          if index + 2 >= bytes.count { break }
          throw XMLFailure(reason: "'--' inside a comment, which XML forbids", position: index)
        }
        position = index + 3
        return
      }
      if byte < 0x20 || byte == 0xEF { try checkCharacter(at: index) }
      index += 1
    }
    throw XMLFailure(
      reason: "expected '-->' to end the comment started on line \(lineOf(start)) but found "
        + "the end of the file", position: bytes.count)
  }

  /// The line of an offset, without remembering the count (for a message that names two).
  private func lineOf(_ offset: Int) -> Int {
    var copy = self
    return copy.line(at: offset)
  }

  /// Skips a processing instruction starting at the position (`<?target …?>`); the target `xml`
  /// (in any case) is the XML declaration, allowed only at the very start.
  mutating func skipProcessingInstruction() throws(XMLFailure) {
    let start = position
    var index = position + 2
    guard index < bytes.count, Self.isNameStart(bytes[index]) else {
      throw expected("a processing instruction's target after '<?'", at: index)
    }
    let nameStart = index
    while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
    if index - nameStart == 3, bytes[nameStart] | 0x20 == 0x78, bytes[nameStart + 1] | 0x20 == 0x6D,
      bytes[nameStart + 2] | 0x20 == 0x6C
    {
      throw XMLFailure(
        reason: "an XML declaration ('<?xml …?>') is allowed only at the very start of the file",
        position: start)
    }
    guard index < bytes.count else { throw expected("'?>'", at: index) }
    if !(Self.isWhitespace(bytes[index]) || matches("?>", at: index)) {
      throw expected("'?>' or white space after the target of '<?'", at: index)
    }
    while index < bytes.count {
      if bytes[index] == 0x3F, byte(at: index + 1) == 0x3E {
        position = index + 2
        return
      }
      try checkCharacter(at: index)
      index += 1
    }
    throw expected("'?>' to end the processing instruction", at: index)
  }

  /// Skips a DOCTYPE declaration starting at the position (`<!DOCTYPE`), its internal subset
  /// included.
  ///
  /// Nothing in it is used: an entity it declares stays undefined.
  mutating func skipDoctype() throws(XMLFailure) {
    var index = position + 9
    guard index < bytes.count, Self.isWhitespace(bytes[index]) else {
      throw expected("white space after '<!DOCTYPE'", at: index)
    }
    while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    guard index < bytes.count, Self.isNameStart(bytes[index]) else {
      throw expected("the root element's name in the DOCTYPE", at: index)
    }
    while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
    // The external identifier: names and quoted literals, up to '[' or '>'.
    while true {
      guard index < bytes.count else { throw expected("'>' to end the DOCTYPE", at: index) }
      let byte = bytes[index]
      if byte == 0x3E {
        position = index + 1
        return
      }
      if byte == 0x5B { break }
      if byte == 0x22 || byte == 0x27 {
        index = try skipQuoted(from: index)
      } else if Self.isWhitespace(byte) || Self.isNameByte(byte) {
        index += 1
      } else {
        throw expected("'>' or '[' in the DOCTYPE", at: index)
      }
    }
    // The internal subset: declarations, comments, processing instructions and parameter-entity
    // references, up to ']'.
    index += 1
    while true {
      while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
      guard index < bytes.count else {
        throw expected("']' to end the DOCTYPE's internal subset", at: index)
      }
      let byte = bytes[index]
      if byte == 0x5D {
        index += 1
        break
      }
      if matches("<!--", at: index) {
        position = index
        try skipComment()
        index = position
      } else if matches("<?", at: index) {
        position = index
        try skipProcessingInstruction()
        index = position
      } else if matches("<!", at: index), Self.isNameStart(self.byte(at: index + 2)) {
        index += 2
        while true {
          guard index < bytes.count else { throw expected("'>' to end the declaration", at: index) }
          let inner = bytes[index]
          if inner == 0x3E {
            index += 1
            break
          }
          if inner == 0x22 || inner == 0x27 {
            index = try skipQuoted(from: index)
          } else if inner == 0x3C {
            throw expected("'>' to end the declaration", at: index)
          } else {
            try checkCharacter(at: index)
            index += 1
          }
        }
      } else if byte == 0x25 {  // %name;
        index += 1
        let nameStart = index
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        guard index > nameStart, self.byte(at: index) == 0x3B else {
          throw expected("a parameter-entity reference '%name;'", at: nameStart - 1)
        }
        index += 1
      } else {
        throw expected("a declaration or ']' in the DOCTYPE's internal subset", at: index)
      }
    }
    while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    guard byte(at: index) == 0x3E else { throw expected("'>' to end the DOCTYPE", at: index) }
    position = index + 1
  }

  /// The offset after a quoted literal starting at `offset`.
  private func skipQuoted(from offset: Int) throws(XMLFailure) -> Int {
    let quote = bytes[offset]
    var index = offset + 1
    while index < bytes.count, bytes[index] != quote {
      try checkCharacter(at: index)
      index += 1
    }
    guard index < bytes.count else {
      throw XMLFailure(
        reason:
          "expected a closing \(quote == 0x22 ? "'\"'" : "\"'\"") but found the end of the file",
        position: index)
    }
    return index + 1
  }

  // MARK: - Tags

  /// A start tag (or an empty-element tag) that has been read.
  struct StartTag {
    /// Where the tag's `<` is.
    var start: Int
    /// The element's name.
    var name: Range<Int>
    /// Whether the tag ends in `/>`.
    var isEmpty: Bool
  }

  /// Reads a start tag at the position (`<` followed by a name): its name and attributes, which
  /// must be well formed (`name="value"` or `name='value'`, no `<` in a value, each name once)
  /// and are otherwise ignored.
  mutating func readStartTag() throws(XMLFailure) -> StartTag {
    let start = position
    var index = position + 1
    guard index < bytes.count, Self.isNameStart(bytes[index]) else {
      throw expected("an element", at: start)
    }
    let nameStart = index
    while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
    let name = nameStart..<index
    var attributes: [Range<Int>] = []
    var attributeSet: Set<[UInt8]> = []
    while true {
      let beforeSpace = index
      while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
      guard index < bytes.count else {
        throw expected("'>' to end the tag '<\(string(name))'", at: index)
      }
      let byte = bytes[index]
      if byte == 0x3E {
        position = index + 1
        return StartTag(start: start, name: name, isEmpty: false)
      }
      if byte == 0x2F {
        guard self.byte(at: index + 1) == 0x3E else {
          throw expected("'>' after '/' in the tag '<\(string(name))'", at: index + 1)
        }
        position = index + 2
        return StartTag(start: start, name: name, isEmpty: true)
      }
      guard index > beforeSpace, Self.isNameStart(byte) else {
        throw expected("an attribute name, '>' or '/>' in the tag '<\(string(name))'", at: index)
      }
      let attributeStart = index
      while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
      let attribute = attributeStart..<index
      while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
      guard self.byte(at: index) == 0x3D else {
        throw expected("'=' after the attribute '\(string(attribute))'", at: index)
      }
      index += 1
      while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
      let quote = self.byte(at: index)
      guard quote == 0x22 || quote == 0x27 else {
        throw expected("a quoted value for the attribute '\(string(attribute))'", at: index)
      }
      index += 1
      while true {
        guard index < bytes.count else {
          throw expected("the closing quote of the attribute '\(string(attribute))'", at: index)
        }
        let inner = bytes[index]
        if inner == quote { break }
        if inner == 0x3C {
          throw XMLFailure(
            reason: "'<' in the value of the attribute '\(string(attribute))', which XML forbids",
            position: index)
        }
        if inner == 0x26 {
          position = index
          try skipReference()
          index = position
          continue
        }
        if inner < 0x20 || inner == 0xEF { try checkCharacter(at: index) }
        index += 1
      }
      index += 1
      // Each attribute once (a set once there are many, so no tag costs quadratic time).
      var duplicate = false
      if attributes.count < 8 {
        duplicate = attributes.contains { sameBytes($0, attribute) }
        attributes.append(attribute)
        if attributes.count == 8 {
          for each in attributes { attributeSet.insert(Array(bytes[each])) }
        }
      } else {
        duplicate = !attributeSet.insert(Array(bytes[attribute])).inserted
      }
      if duplicate {
        throw XMLFailure(
          reason:
            "the attribute '\(string(attribute))' appears twice in the tag '<\(string(name))'",
          position: attributeStart)
      }
    }
  }

  /// Reads the end tag of the element `name` at the position (`</name>`, white space allowed
  /// before the `>`).
  mutating func readEndTag(of name: Range<Int>) throws(XMLFailure) {
    let start = position
    var index = position + 2
    let nameStart = index
    while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
    guard sameBytes(nameStart..<index, name) else {
      throw expected("'</\(string(name))>'", at: start)
    }
    while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    guard byte(at: index) == 0x3E else { throw expected("'</\(string(name))>'", at: start) }
    position = index + 1
  }

  // MARK: - Text

  /// Text that has been read: a range of the input, or the scratch buffer.
  struct Text {
    /// The bytes, when not ``inScratch``.
    var range: Range<Int>
    /// Whether the text is in ``XMLScanner/scratch`` (it needed decoding).
    var inScratch: Bool
  }

  /// What text ended at.
  enum TextEnd {
    /// An end tag (`</`), at the position.
    case endTag
    /// A start tag, at the position.
    case startTag
  }

  /// Reads character data up to the next tag: references are decoded, CDATA sections kept,
  /// comments and processing instructions removed, and CR LF and lone CR read as LF.
  ///
  /// A character XML forbids is recorded in ``forbiddenCharacter``; a malformed or undefined
  /// reference, `]]>` or the end of the file is an error.
  ///
  /// - Parameters:
  ///   - collect: Whether to keep the text (skipped content needs only checking).
  ///   - closing: The element the text is in, for the message at the end of the file.
  /// - Returns: The text (its decoded bytes are kept only with `collect`) and the kind of tag it
  ///   ended at.
  /// - Throws: ``XMLFailure`` for a malformed or undefined reference, `]]>`, markup that is not a
  ///   tag, a comment, a CDATA section or a processing instruction, a malformed one of those, or
  ///   the end of the file.
  mutating func readText(
    collect: Bool, closing: Range<Int>?
  ) throws(XMLFailure) -> (Text, TextEnd) {
    forbiddenCharacter = nil
    var start = position
    var index = position
    var inScratch = false
    let count = bytes.count
    while true {
      // The fast path: bytes that stand for themselves.
      while index < count {
        let byte = bytes[index]
        if byte >= 0x20 {
          if byte == 0x3C || byte == 0x26 || byte == 0x5D || byte == 0xEF { break }
        } else if byte != 0x0A && byte != 0x09 {
          break
        }
        index += 1
      }
      guard index < count else {
        let what = closing.map { "'</\(string($0))>'" } ?? "an end tag"
        throw expected(what, at: count)
      }
      let byte = bytes[index]
      switch byte {
      case 0x3C:
        let next = self.byte(at: index + 1)
        if next == 0x2F || (next != 0x21 && next != 0x3F) {
          position = index
          if inScratch {
            if collect { scratch.append(contentsOf: bytes[start..<index]) }
            return (
              Text(range: 0..<scratch.count, inScratch: true), next == 0x2F ? .endTag : .startTag
            )
          }
          return (Text(range: start..<index, inScratch: false), next == 0x2F ? .endTag : .startTag)
        }
        if !inScratch {
          inScratch = true
          scratch.removeAll(keepingCapacity: true)
        }
        if collect { scratch.append(contentsOf: bytes[start..<index]) }
        position = index
        if matches("<!--", at: index) {
          try skipComment()
        } else if matches("<![CDATA[", at: index) {
          try readCDATA(collect: collect)
        } else if next == 0x3F {
          try skipProcessingInstruction()
        } else {
          throw expected("text, a comment, CDATA or an end tag", at: index)
        }
        index = position
        start = index
      case 0x26:
        if !inScratch {
          inScratch = true
          scratch.removeAll(keepingCapacity: true)
        }
        if collect { scratch.append(contentsOf: bytes[start..<index]) }
        position = index
        let scalar = try skipReference()
        if collect { TextEncodings.appendUTF8(scalar, to: &scratch) }
        index = position
        start = index
      case 0x0D:
        if !inScratch {
          inScratch = true
          scratch.removeAll(keepingCapacity: true)
        }
        if collect {
          scratch.append(contentsOf: bytes[start..<index])
          scratch.append(0x0A)
        }
        index += self.byte(at: index + 1) == 0x0A ? 2 : 1
        start = index
      case 0x5D:
        if matches("]]>", at: index) {
          throw XMLFailure(reason: "']]>' in text, which XML forbids", position: index)
        }
        index += 1
      default:  // a control character, or 0xEF (U+FFFE and U+FFFF start with it)
        if let problem = forbidden(at: index), forbiddenCharacter == nil {
          forbiddenCharacter = (problem, index)
        }
        index += 1
      }
    }
  }

  /// Reads a CDATA section at the position into the scratch buffer, line ends normalised.
  private mutating func readCDATA(collect: Bool) throws(XMLFailure) {
    var index = position + 9
    var start = index
    while index < bytes.count {
      let byte = bytes[index]
      if byte == 0x5D, matches("]]>", at: index) {
        if collect { scratch.append(contentsOf: bytes[start..<index]) }
        position = index + 3
        return
      }
      if byte == 0x0D {
        if collect {
          scratch.append(contentsOf: bytes[start..<index])
          scratch.append(0x0A)
        }
        index += self.byte(at: index + 1) == 0x0A ? 2 : 1
        start = index
        continue
      }
      if byte < 0x20 || byte == 0xEF, let problem = forbidden(at: index), forbiddenCharacter == nil
      {
        forbiddenCharacter = (problem, index)
      }
      index += 1
    }
    throw expected("']]>' to end the CDATA section", at: index)
  }

  /// Reads a reference at the position (`&`): one of the five predefined entities or a
  /// character reference to a character XML allows.
  ///
  /// A reference to a character XML forbids is recorded in ``forbiddenCharacter`` (and read as
  /// U+FFFD).
  ///
  /// - Returns: The character referred to.
  @discardableResult
  mutating func skipReference() throws(XMLFailure) -> UInt32 {
    let start = position
    var index = position + 1
    if byte(at: index) == 0x23 {  // &#
      index += 1
      var radix: UInt32 = 10
      if byte(at: index) == 0x78 {
        radix = 16
        index += 1
      }
      let digitsStart = index
      // Any number of digits (leading zeros are allowed); a value past U+10FFFF is clamped to
      // one past it, which the check below refuses, so the arithmetic can't overflow.
      var value: UInt32 = 0
      while index < bytes.count {
        let byte = bytes[index]
        let digit: UInt32
        switch byte {
        case 0x30...0x39: digit = UInt32(byte - 0x30)
        case 0x61...0x66 where radix == 16: digit = UInt32(byte - 0x61 + 10)
        case 0x41...0x46 where radix == 16: digit = UInt32(byte - 0x41 + 10)
        default: digit = 99
        }
        if digit == 99 { break }
        value = min(value * radix + digit, 0x11_0000)
        index += 1
      }
      guard index > digitsStart, byte(at: index) == 0x3B else {
        throw expected("a character reference such as '&#38;' or '&#x26;'", at: start)
      }
      position = index + 1
      let allowed =
        value == 0x9 || value == 0xA || value == 0xD || (value >= 0x20 && value < 0xD800)
        || (value >= 0xE000 && value < 0xFFFE) || (value >= 0x10000 && value < 0x11_0000)
      if !allowed {
        if forbiddenCharacter == nil {
          let hex = String(value, radix: 16, uppercase: true)
          forbiddenCharacter = (
            "the reference '\(string(start..<position))' to U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex), "
              + "a character XML forbids", start
          )
        }
        return 0xFFFD
      }
      return value
    }
    let nameStart = index
    while index < bytes.count, Self.isNameByte(bytes[index]), index - nameStart < 64 { index += 1 }
    guard index > nameStart, byte(at: index) == 0x3B else {
      throw XMLFailure(
        reason: "'&' that does not start a reference (write '&amp;' for a literal '&')",
        position: start)
    }
    let name = nameStart..<index
    position = index + 1
    if range(name, is: "amp") { return 0x26 }
    if range(name, is: "lt") { return 0x3C }
    if range(name, is: "gt") { return 0x3E }
    if range(name, is: "quot") { return 0x22 }
    if range(name, is: "apos") { return 0x27 }
    throw XMLFailure(
      reason: "the entity '&\(string(name));' is not defined (only &amp; &lt; &gt; &quot; &apos; "
        + "and character references are)", position: start)
  }

  /// Skips the rest of the elements named in `open` (innermost last), content and all, checking
  /// only that they are well formed.
  mutating func skipElements(_ open: [Range<Int>]) throws(XMLFailure) {
    var open = open
    while let innermost = open.last {
      let (_, end) = try readText(collect: false, closing: innermost)
      if end == .endTag {
        try readEndTag(of: innermost)
        open.removeLast()
      } else {
        let tag = try readStartTag()
        if !tag.isEmpty { open.append(tag.name) }
      }
    }
    forbiddenCharacter = nil
  }
}
