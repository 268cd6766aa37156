/// A verb's arguments, taken from the front one at a time, parsed by hand.
struct Arguments {
  /// The verb they belong to, for messages.
  let verb: String
  /// The arguments not taken yet.
  private(set) var remaining: ArraySlice<String>
  private let synopsis: String

  /// - Parameters:
  ///   - verb: The verb, for messages.
  ///   - synopsis: The verb's usage line, such as `read [domain [key]]`, for messages.
  ///   - arguments: The arguments after the verb.
  init(verb: String, synopsis: String, _ arguments: ArraySlice<String>) {
    self.verb = verb
    self.synopsis = synopsis
    remaining = arguments
  }

  /// Whether every argument was taken.
  var isEmpty: Bool { remaining.isEmpty }

  /// Whether the first two arguments ask for help (`--help`, `-h`): where a domain or a key
  /// would be, so `settings write dom key -string --help` still writes `--help`.
  var asksForHelp: Bool {
    remaining.prefix(2).contains { $0 == "--help" || $0 == "-h" }
  }

  /// Takes the next argument, if any.
  mutating func next() -> String? {
    remaining.popFirst()
  }

  /// Takes the next argument, which must be there.
  ///
  /// - Parameter name: What it is, for the message when it's missing: `key`.
  mutating func required(_ name: String) throws(Failure) -> String {
    guard let argument = remaining.popFirst() else {
      throw Failure.usage("\(verb): missing \(name); usage: settings \(synopsis)")
    }
    return argument
  }

  /// Takes the next argument as a domain, which must be there, after any `--delivered FILE`
  /// and `--bundled FILE` options before it.
  mutating func domain() throws(Failure) -> Domain {
    var layerFiles = Domain.LayerFileOptions()
    while let option = remaining.first, Self.layerFileOptions.contains(option) {
      remaining.removeFirst()
      guard let path = remaining.popFirst(), !path.isEmpty else {
        throw Failure.usage("\(verb): \(option) needs a file path")
      }
      if option == "--delivered" { layerFiles.delivered = path } else { layerFiles.bundled = path }
    }
    return try Domain(required("domain"), verb: verb, layerFiles: layerFiles)
  }

  /// The options that place a layered store's read-only files.
  static let layerFileOptions: Set<String> = ["--delivered", "--bundled"]

  /// Takes every remaining argument.
  mutating func rest() -> ArraySlice<String> {
    defer { remaining = [] }
    return remaining
  }

  /// Checks every argument was taken.
  func finish() throws(Failure) {
    if let extra = remaining.first, Self.layerFileOptions.contains(extra) {
      throw Failure.usage(
        "\(verb): \(extra) goes before the domain: settings \(verb) \(extra) FILE domain …")
    }
    if let extra = remaining.first {
      throw Failure.usage(
        "\(verb): unexpected argument '\(extra)'; usage: settings \(synopsis)")
    }
  }
}

/// A verb of the tool: its usage and help, and what it does.
protocol Command: Sendable {
  /// The verb, as typed: `read`.
  static var verb: String { get }
  /// The usage line after `settings`: `read [domain [key]]`.
  static var synopsis: String { get }
  /// What it does, in a few words, for `settings --help`.
  static var summary: String { get }
  /// The full help `settings <verb> --help` prints.
  static var help: String { get }

  /// Runs the verb.
  static func run(_ arguments: inout Arguments) throws(Failure)
}
