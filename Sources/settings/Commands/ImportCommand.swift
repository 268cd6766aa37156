import Foundation
import TypedDefaults

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `import domain file`: merges a property-list file's dictionary into a domain.
enum ImportCommand: Command {
  static let verb = "import"
  static let synopsis = "import domain (file | -)"
  static let summary = "merge a plist file's (or stdin's) dictionary into a domain"
  static let help = """
    usage: settings import domain file
           settings import domain -

    Reads a property list (XML, binary or OpenStep) from the file, or from standard input with
    -, and writes each key of its top-level dictionary to the domain, replacing the values those
    keys had; other keys of the domain are kept. (`defaults import` replaces the whole domain;
    run `settings delete domain` first for that.) A file whose root isn't a dictionary is an
    error, and nothing is changed. Saved as `write` saves.

    Standard input, like a file, may hold at most 16 MiB (\(PropertyListFile.defaultMaximumSize)
    bytes); reading stops past that, and the import fails, naming <stdin>, with nothing changed.

    Where the app wrote its schema next to the store (see `settings write --help`), every value
    is checked first: if any doesn't fit its key's declaration, the import fails (exit status 1)
    naming each such key, its reason and help text, and nothing is changed.

    Examples:
      settings import com.example.app backup.plist
      settings export com.example.app - | settings import ./copy.plist -
    \(HelpText.domains)
    """

  static func run(_ arguments: inout Arguments) throws(Failure) {
    let domain = try arguments.domain()
    let source = try arguments.required("file (or - for standard input)")
    try arguments.finish()
    guard !source.isEmpty else {
      throw Failure.usage("import: the file path is empty; usage: settings \(synopsis)")
    }
    let entries = try read(source)
    if let schema = try domain.schema() {
      let problems = entries.sorted { $0.key < $1.key }.compactMap { key, value in
        SchemaCheck.problem(with: value, forKey: key, in: schema, suggestingFlags: false)
      }
      if !problems.isEmpty {
        let name = source == "-" ? standardInputName : source
        throw Failure(
          "Cannot import \(name): \(problems.joined(separator: "; ")); nothing was changed")
      }
    }
    let target = try domain.openForWriting()
    for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
      try target.setValue(value, forKey: key)
    }
    try target.save()
  }

  /// What standard input is called in messages.
  static let standardInputName = "<stdin>"

  /// The top-level dictionary of a file, or of standard input (`-`).
  private static func read(_ source: String) throws(Failure) -> [String: PropertyListValue] {
    try Failure.fromLibrary { () throws(SettingsError) -> [String: PropertyListValue] in
      guard source == "-" else {
        let file = PropertyListFile(url: URL(fileURLWithPath: source))
        guard let entries = try file.readDictionary() else {
          throw SettingsError(.fileNotReadable, path: file.url.path, reason: "No such file")
        }
        return entries
      }
      let data = try readStandardInput(limit: PropertyListFile.defaultMaximumSize)
      let root = try PlistBytes.decode(data, source: standardInputName)
      guard case .dictionary(let entries) = root else {
        throw SettingsError(
          .wrongRootType, path: standardInputName,
          reason: "The root is \(OldStylePlist.typeName(root, article: true)), not a dictionary")
      }
      return entries
    }
  }

  /// Reads standard input to its end, as a file is read: at most `limit` bytes, the limit a
  /// property-list file is held to.
  ///
  /// One byte more is read to tell a full-size input from a larger one, and a larger one is refused
  /// then, without reading the rest into memory.
  ///
  /// - Throws: ``SettingsError/Code/fileTooLarge`` past the limit,
  ///   ``SettingsError/Code/fileNotReadable`` if standard input can't be read; both name
  ///   `<stdin>`.
  private static func readStandardInput(limit: Int) throws(SettingsError) -> Data {
    var data = Data()
    let chunkSize = 64 * 1024
    var chunk = [UInt8](repeating: 0, count: chunkSize)
    while data.count <= limit {
      let wanted = min(chunkSize, limit + 1 - data.count)
      let count = chunk.withUnsafeMutableBytes { buffer in
        systemRead(STDIN_FILENO, buffer.baseAddress, wanted)
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw SettingsError(
          .fileNotReadable, path: standardInputName, reason: String(cString: strerror(errno)))
      }
      if count == 0 { return data }
      data.append(contentsOf: chunk[..<count])
    }
    throw SettingsError(
      .fileTooLarge, path: standardInputName,
      reason: "It is over the limit of \(limit) bytes")
  }
}

/// `read(2)`, under a name `ImportCommand`'s own `read` doesn't hide.
private func systemRead(
  _ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int
) -> Int {
  read(descriptor, buffer, count)
}
