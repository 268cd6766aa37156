import Foundation
import Testing
import TypedDefaults
import TypedDefaultsSchema

// MARK: - Locations

/// Paths the tests read: the project's own folders and the shared plist fixtures.
package enum TestPaths {
  /// The package root (the folder holding Package.swift).
  package static let projectRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // TypedDefaultsTestSupport
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()

  /// `../shared/fixtures/plists`, beside the project: present in CI, possibly absent in a user's
  /// own clone (the tests that need it are then skipped, saying so).
  package static let sharedFixtures =
    projectRoot
    .deletingLastPathComponent()
    .appendingPathComponent("shared/fixtures/plists")

  package static var hasSharedFixtures: Bool {
    FileManager.default.fileExists(
      atPath: sharedFixtures.appendingPathComponent("SOURCES.json").path)
  }

  /// The checked-in fixtures, in the reader tests' target (Tests/PropertyListReaderTests/Fixtures):
  /// the differential corpus and expectations, and the `settings` tool's expected outputs.
  package static let ownFixtures = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("PropertyListReaderTests/Fixtures")

  /// The folder holding the built products (the test bundle and the executables beside it).
  package static var productsDirectory: URL {
    var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    while url.path != "/" {
      url = url.deletingLastPathComponent()
      if FileManager.default.fileExists(atPath: url.appendingPathComponent("SettingsProbe").path) {
        return url
      }
    }
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
  }
}

// MARK: - Temporary state

/// A fresh temporary folder, removed when the value is deinitialized.
package final class TemporaryDirectory: Sendable {
  package let url: URL

  package init() throws {
    _ = Self.ignoringSavesIntoRemovedFolders
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("TypedDefaultsTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  package func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  /// A store saves unsaved changes when it is released; a test's store released after the test's
  /// temporary folder is gone can't, and would report it on standard error.
  ///
  /// Those reports are dropped; every other diagnostic still goes to standard error (tests that
  /// check diagnostics install their own handler for the task).
  private static let ignoringSavesIntoRemovedFolders: Void = {
    SettingsDiagnostics.handler = { diagnostic in
      let path = FileManager.default.temporaryDirectory.appendingPathComponent(
        "TypedDefaultsTests-"
      ).path
      if diagnostic.kind == .saveFailed, diagnostic.message.contains(path) { return }
      SettingsDiagnostics.standardErrorHandler(diagnostic)
    }
  }()

  deinit {
    try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
    try? FileManager.default.removeItem(at: url)
  }
}

/// A `UserDefaults` suite with a unique name, whose values and file are removed when the value is
/// deinitialized.
package final class TemporarySuite: Sendable {
  package let name = "TypedDefaultsTests.\(UUID().uuidString)"
  /// A backend on the suite; the suite is cleaned up through it, so no flush it scheduled can
  /// write the values back after the cleanup.
  package let backend: UserDefaultsBackend

  /// - Parameter writtenOnlyThroughLibrary: Whether the backend is created with the owner's
  ///   promise (`UserDefaultsBackend.isWrittenOnlyThroughLibrary`).
  package init(writtenOnlyThroughLibrary: Bool = false) {
    backend = UserDefaultsBackend(
      suiteName: name, writtenOnlyThroughLibrary: writtenOnlyThroughLibrary)
  }

  /// Where swift-corelibs-foundation keeps this suite's file for this process (it honours
  /// `$XDG_CONFIG_HOME`, then `$HOME/.config`).
  package var fileURL: URL {
    let environment = ProcessInfo.processInfo.environment
    let config =
      environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
      ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(
        ".config")
    return config.appendingPathComponent("\(name).plist")
  }

  deinit {
    // Not `removePersistentDomain(forName:)`: corelibs then writes every changed suite of the
    // process in place, as XML, which would rewrite the suites of tests running beside this one.
    for key in backend.keys { backend.removeValue(forKey: key) }
    backend.synchronize()
    try? FileManager.default.removeItem(at: fileURL)
    try? FileManager.default.removeItem(atPath: fileURL.path + ".lock")
  }
}

// MARK: - Diagnostics

/// Collects the diagnostics reported while `body` runs on the current task.
package func collectingDiagnostics<Result>(
  _ body: () throws -> Result
) rethrows -> (result: Result, diagnostics: [SettingsDiagnostic]) {
  let collected = Locked<[SettingsDiagnostic]>([])
  let result = try SettingsDiagnostics.withHandler(
    { diagnostic in
      collected.withLock { $0.append(diagnostic) }
    }, operation: body)
  return (result, collected.withLock { $0 })
}

// MARK: - Processes

/// The output of a finished process.
package struct ProcessResult: Sendable {
  package var status: Int32
  package var standardOutput: String
  package var standardError: String

  package init(status: Int32, standardOutput: String, standardError: String) {
    self.status = status
    self.standardOutput = standardOutput
    self.standardError = standardError
  }
}

/// Runs a built executable of this package to completion.
///
/// - Parameters:
///   - name: The product's name in the build's products folder.
///   - arguments: Its arguments, without the program's name.
///   - environment: Variables set for it on top of this process's environment.
///   - standardInput: A file to give the process as its standard input; by default it
///     inherits this process's.
/// - Returns: Its exit status, and its standard output and standard error decoded as UTF-8.
/// - Throws: What opening `standardInput` or starting the process throws.
package func runProduct(
  _ name: String,
  _ arguments: [String],
  environment: [String: String] = [:],
  standardInput: URL? = nil
) throws -> ProcessResult {
  let result = try runProductData(
    name, arguments, environment: environment, standardInput: standardInput)
  return ProcessResult(
    status: result.status,
    standardOutput: String(decoding: result.standardOutput, as: UTF8.self),
    standardError: String(decoding: result.standardError, as: UTF8.self)
  )
}

/// Runs a built executable of this package to completion, returning its raw output.
package func runProductData(
  _ name: String,
  _ arguments: [String],
  environment: [String: String] = [:],
  standardInput: URL? = nil
) throws -> (status: Int32, standardOutput: Data, standardError: Data) {
  try runExecutable(
    TestPaths.productsDirectory.appendingPathComponent(name), arguments,
    environment: environment, standardInput: standardInput)
}

/// Runs a program to completion, returning its raw output.
package func runExecutable(
  _ executable: URL,
  _ arguments: [String],
  environment: [String: String] = [:],
  standardInput: URL? = nil
) throws -> (status: Int32, standardOutput: Data, standardError: Data) {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  // No crash backtracer: a child that stops on purpose (a programmer-error probe) would start
  // `swift-backtrace`, which inherits the pipes and, under ThreadSanitizer, never exits, so the
  // read below never ended (a CI step hung for 20 minutes). The fatal error message still shows.
  process.environment = ProcessInfo.processInfo.environment
    .merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
    .merging(environment) { $1 }
  if let standardInput {
    process.standardInput = try FileHandle(forReadingFrom: standardInput)
  }
  let output = Pipe()
  let error = Pipe()
  process.standardOutput = output
  process.standardError = error
  try process.run()
  // Drain both pipes before waiting (standard error on another thread), so a full pipe can't
  // block the child.
  let errorData = Locked(Data())
  let drained = DispatchGroup()
  drained.enter()
  DispatchQueue.global().async {
    let data = error.fileHandleForReading.readDataToEndOfFile()
    errorData.withLock { $0 = data }
    drained.leave()
  }
  let outputData = output.fileHandleForReading.readDataToEndOfFile()
  drained.wait()
  let processEnding = process.waitForExit()
  return (processEnding.status, outputData, errorData.withLock { $0 })
}

// MARK: - Property lists

/// An XML property list, with the declaration and DOCTYPE Foundation writes, around `body`.
package func xmlPropertyList(_ body: String) -> Data {
  Data(
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    \(body)
    </plist>

    """.utf8)
}
