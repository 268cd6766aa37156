// settings: reads and edits the stores TypedDefaults manages (UserDefaults suites, property-list
// files, layered store folders) in the manner of macOS `defaults`. See HelpText.swift, or run
// `settings --help`.

import Foundation
import TypedDefaults

/// Runs the command line, returning the exit status.
func run(_ arguments: [String]) -> Int32 {
  Output.reserveClosedStandardDescriptors()
  _ = Output.standardError
  // What the library recovers from (and reports rather than throws) is a warning, one line each.
  SettingsDiagnostics.handler = { diagnostic in
    Output.error("warning: \(diagnostic.message)")
  }
  do {
    try runVerb(arguments)
    return 0
  } catch {
    Output.error(error.message)
    return error.status
  }
}

/// Runs the verb the arguments start with.
///
/// `--help` and `-h` in its place are the verb `help`: `settings --help read` prints read's help,
/// and `settings --help extra` is an unknown verb.
func runVerb(_ arguments: [String]) throws(Failure) {
  guard let first = arguments.first else {
    throw Failure.usage("missing verb; run 'settings --help' for the list")
  }
  let verb = first == "--help" || first == "-h" ? HelpCommand.verb : first
  guard let command = HelpText.command(named: verb) else { throw HelpText.unknownVerb(verb) }
  var commandArguments = Arguments(verb: verb, synopsis: command.synopsis, arguments.dropFirst())
  if commandArguments.asksForHelp {
    return try Output.write(command.help + "\n")
  }
  try command.run(&commandArguments)
}

exit(run(Array(CommandLine.arguments.dropFirst())))
