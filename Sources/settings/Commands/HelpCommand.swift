/// `help [verb]`: the tool's help, or a verb's.
enum HelpCommand: Command {
  static let verb = "help"
  static let synopsis = "help [verb]"
  static let summary = "print this help, or a verb's (also: settings <verb> --help)"
  static let help = """
    usage: settings help [verb]

    Prints the list of verbs and how domains are named, or the full help of one verb (the same
    as settings <verb> --help). settings --help and settings -h are this verb: settings --help
    read prints read's help, and anything else after them is a usage error (exit status 64),
    like an unknown verb.
    """

  static func run(_ arguments: inout Arguments) throws(Failure) {
    guard let name = arguments.next() else { return try Output.write(HelpText.overview) }
    try arguments.finish()
    guard let command = HelpText.command(named: name) else { throw HelpText.unknownVerb(name) }
    try Output.write(command.help + "\n")
  }
}
