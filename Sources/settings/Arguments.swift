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
  /// - Returns: The argument.
  /// - Throws: A usage ``Failure`` naming `name` and the verb's synopsis when no argument is
  ///   left.
  mutating func required(_ name: String) throws(Failure) -> String {
    guard let argument = remaining.popFirst() else {
      throw Failure.usage("\(verb): missing \(name); usage: settings \(synopsis)")
    }
    return argument
  }

  /// Takes the next argument as a domain, which must be there, after any `--delivered FILE`,
  /// `--bundled FILE` and `--store layered|defaults` options before it.
  mutating func domain() throws(Failure) -> Domain {
    var options = Domain.LayerFileOptions()
    while let option = remaining.first, Self.domainOptions.contains(option) {
      remaining.removeFirst()
      guard let value = remaining.popFirst(), !value.isEmpty else {
        throw Failure.usage(
          "\(verb): \(option) needs \(option == "--store" ? "layered or defaults" : "a file path")")
      }
      switch option {
      case "--delivered": options.delivered = value
      case "--bundled": options.bundled = value
      default:
        guard let store = Domain.StoreChoice(rawValue: value) else {
          throw Failure.usage("\(verb): --store takes layered or defaults, not '\(value)'")
        }
        options.store = store
      }
    }
    return try Domain(required("domain"), verb: verb, layerFiles: options)
  }

  /// The options that say how to take the domain after them.
  static let domainOptions: Set<String> = ["--delivered", "--bundled", "--store"]

  /// Takes every remaining argument.
  mutating func rest() -> ArraySlice<String> {
    defer { remaining = [] }
    return remaining
  }

  /// Checks every argument was taken.
  func finish() throws(Failure) {
    if let extra = remaining.first, Self.domainOptions.contains(extra) {
      let value = extra == "--store" ? "layered|defaults" : "FILE"
      throw Failure.usage(
        "\(verb): \(extra) goes before the domain: settings \(verb) \(extra) \(value) domain …")
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
