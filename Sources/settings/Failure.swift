import Foundation
import TypedDefaults
import TypedDefaultsLayers

/// Why a command stopped: reported as one line, `settings: <message>`, on standard error, with a
/// non-zero exit status.
struct Failure: Error {
  /// Exit status of a command that went wrong (a missing key, a file that can't be read).
  static let failureStatus: Int32 = 1
  /// Exit status of a command line that can't be understood (`EX_USAGE`).
  static let usageStatus: Int32 = 64

  /// The message (``Output/error(_:)`` puts it on one line).
  let message: String
  /// The process's exit status.
  let status: Int32

  /// A failure of the command itself.
  init(_ message: String) {
    self.init(message, status: Self.failureStatus)
  }

  /// A library error: its description names the file or key and the cause.
  init(_ error: SettingsError) {
    self.init(error.description)
  }

  private init(_ message: String, status: Int32) {
    self.message = message
    self.status = status
  }

  /// A command line that can't be understood.
  static func usage(_ message: String) -> Failure {
    Failure(message, status: usageStatus)
  }

  /// `defaults`' message for a key a domain doesn't hold.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - domain: The domain, as typed.
  ///   - invisibleLayers: The layers of a store folder the tool can't open, which the message
  ///     names, since the app may find the key there.
  /// - Returns: The failure.
  static func missingKey(
    _ key: String, in domain: Domain, invisibleLayers: [LayeredPlistStore.Layer] = []
  ) -> Failure {
    let unseen =
      invisibleLayers.isEmpty
      ? ""
      : " in the layers the tool can see (not visible to it: "
        + invisibleLayers.map(\.name).joined(separator: ", ") + ")"
    return Failure("The domain/default pair of (\(domain.name), \(key)) does not exist" + unseen)
  }

  /// A write or delete of a key a managed layer forces: nothing was changed.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - source: The forcing layer, as `the managed layer (/etc/app/managed.plist)`.
  ///   - verb: `write` or `delete`.
  /// - Returns: The failure, naming the key and the layer.
  static func forced(_ key: String, by source: String, verb: String) -> Failure {
    Failure(
      "Cannot \(verb) '\(key)': its value is forced by \(source), which can't be overridden; "
        + "nothing was changed")
  }

  /// `defaults`' message for a domain that doesn't exist; for a store folder, what's missing;
  /// for a suite named like a file or folder here, how to name that instead.
  static func missingDomain(_ domain: Domain) -> Failure {
    switch domain.kind {
    case .layered(let files):
      let readOnly = files.layers.filter { $0.file != nil }.map(\.label)
      let others = readOnly.isEmpty ? "" : ", and no " + readOnly.joined(separator: " or ")
      return Failure(
        "Domain \(domain.name) does not exist (there is no \(files.persistentLabel) in the "
          + "folder\(others))")
    case .suite(let suite):
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: suite, isDirectory: &isDirectory) else {
        return Failure("Domain \(domain.name) does not exist")
      }
      let what = isDirectory.boolValue ? "a folder" : "a file"
      return Failure(
        "Domain \(domain.name) does not exist (a suite name; for \(what) named \(suite) here, "
          + "write ./\(suite))")
    case .file:
      return Failure("Domain \(domain.name) does not exist")
    case .unresolved(let folder, let suiteFile):
      return Failure(
        "Domain \(domain.name) does not exist (neither a LayeredPlistStore in \(folder.path) nor a "
          + "UserDefaults suite \(suiteFile.path))")
    }
  }

  /// Runs a library call, turning its ``SettingsError`` into a ``Failure``.
  ///
  /// CoreFoundation's own logging of parse errors is silenced meanwhile (see
  /// ``withStandardErrorSilenced(_:)``): the error is reported anyway, as one line.
  static func fromLibrary<Result>(
    _ body: () throws(SettingsError) -> Result
  ) throws(Failure) -> Result {
    do {
      return try withStandardErrorSilenced(body)
    } catch {
      throw Failure(error)
    }
  }
}
