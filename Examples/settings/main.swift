// settings: reads and edits the stores TypedDefaults manages (UserDefaults suites, property-list
// files, layered store folders) in the manner of macOS `defaults`. See HelpText.swift, or run
// `settings --help`.

import Foundation
import TypedDefaults

/// Runs the command line, returning the exit status.
func run(_ arguments: [String]) -> Int32 {
  _ = Output.standardError
  // What the library recovers from (and reports rather than throws) is a warning, one line each.
  SettingsDiagnostics.handler = { diagnostic in
    Output.error("warning: \(diagnostic.message)")
  }
  guard let verb = arguments.first else {
    Output.error("missing verb; run 'settings --help' for the list")
    return Failure.usageStatus
  }
  if verb == "--help" || verb == "-h" {
    Output.write(HelpText.overview)
    return 0
  }
  guard let command = HelpText.command(named: verb) else {
    Output.error(HelpText.unknownVerb(verb).message)
    return Failure.usageStatus
  }
  var commandArguments = Arguments(
    verb: verb, synopsis: command.synopsis, arguments.dropFirst())
  if commandArguments.asksForHelp {
    Output.write(command.help + "\n")
    return 0
  }
  do {
    try command.run(&commandArguments)
    return 0
  } catch {
    Output.error(error.message)
    return error.status
  }
}

exit(run(Array(CommandLine.arguments.dropFirst())))
