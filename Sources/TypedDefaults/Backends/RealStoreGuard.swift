import Foundation

/// The guard that makes a write to a real store an error in a test process: the mechanism behind
/// `SettingsTesting.refuseWritesToRealStores()` of the `TypedDefaultsTesting` product.
///
/// A real store is one whose file is outside the temporary folders (`$TMPDIR`, `/tmp`,
/// `/var/tmp`, Foundation's `temporaryDirectory`): a `LayeredPlistStore` whose `data.plist` is
/// elsewhere, and a `UserDefaultsBackend` (on Apple platforms, where the system keeps its file,
/// always). Every kind of write is checked: a value set, a key removed, a batch, a save. Off
/// until turned on, and never turned off. Off (every process but a test's), it costs one relaxed
/// atomic load per write and takes no lock; on, each write also resolves the file's path and the
/// temporary folders' (a few `realpath` calls: a test process's cost only).
package enum RealStoreGuard {
  /// A refusal handler, in a struct (a bare function held in `Locked` is re-wrapped on each
  /// access; see `Locked`).
  private struct Handler {
    /// Told of each refused write (Swift Testing's `Issue.record`, so the test fails even when
    /// the write came through a property setter, which can't throw).
    var onRefusal: (@Sendable (String) -> Void)?
  }

  /// The handler, set once by ``turnOn(onRefusal:)`` before the flag is.
  private static let handler = Locked(Handler())

  /// Whether the guard is on: an ``InstalledFlag`` (`nil` only on systems without `Atomic`).
  private static let flag: (any AnyObject & Sendable)? = {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
      return InstalledFlag()
    }
    return nil
  }()

  /// The flag on systems without `Atomic` (macOS 13 and 14, iOS 16 and 17 and their
  /// contemporaries).
  // nonisolated(unsafe): written once, from false to true, when a test process turns the guard
  // on (before its tests run); a write racing with that is one the guard didn't yet cover, as with
  // the atomic flag. Used only where `Atomic` is unavailable; the sanitizer runs on Linux, which
  // uses the atomic flag.
  private nonisolated(unsafe) static var legacyIsOn = false

  /// Turns the guard on for the rest of the process.
  ///
  /// - Parameter onRefusal: Called with the message of each refused write, on the writing
  ///   thread.
  package static func turnOn(onRefusal: @escaping @Sendable (String) -> Void) {
    handler.withLock { $0.onRefusal = onRefusal }
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
      unsafeDowncast(flag.unsafelyUnwrapped, to: InstalledFlag.self).set()
    } else {
      legacyIsOn = true
    }
  }

  /// Whether the guard is on: one relaxed atomic load.
  package static var isOn: Bool {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
      return unsafeDowncast(flag.unsafelyUnwrapped, to: InstalledFlag.self).isSet
    }
    return legacyIsOn
  }

  /// Refuses a write to `backend`, whose file is `file` (`nil`: one the system keeps), if the
  /// guard is on and the file is a real one.
  ///
  /// Off, it costs one relaxed atomic load: `file` is evaluated only when the guard is on.
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the file and saying why.
  @inline(__always)
  package static func check(
    writingTo file: @autoclosure () -> URL?, of backend: String
  ) throws(SettingsError) {
    guard isOn else { return }
    try refuse(writingTo: file(), of: backend)
  }

  /// The rest of ``check(writingTo:of:)``, with the guard on.
  private static func refuse(writingTo file: URL?, of backend: String) throws(SettingsError) {
    guard let onRefusal = refusal(writingTo: file) else { return }
    let path = file?.path ?? backend
    let error = SettingsError(
      .fileNotWritable, path: path,
      reason: "A test wrote to a real store (\(backend)), which holds this user's own settings; "
        + "run the test with .isolatedSettings, or open the store on a temporary folder")
    onRefusal(error.description)
    throw error
  }

  /// Whether to refuse a write that can't throw (a removal) to `backend`, whose file is `file`:
  /// if so, the refusal is told to the handler and reported as a
  /// ``SettingsDiagnostic/Kind/writeFailed`` diagnostic, and the caller changes nothing.
  package static func refuses(
    removing key: String, from file: @autoclosure () -> URL?, of backend: String
  ) -> Bool {
    guard isOn else { return false }
    do {
      try check(writingTo: file(), of: backend)
      return false
    } catch {
      SettingsDiagnostics.report(
        SettingsDiagnostic(
          kind: .writeFailed, key: key, backend: backend,
          message: "\(error.description); nothing was removed"))
      return true
    }
  }

  /// The refusal handler, if a write to `file` is to be refused.
  private static func refusal(writingTo file: URL?) -> (@Sendable (String) -> Void)? {
    guard isOn else { return nil }
    if let file, isTemporary(file) { return nil }
    let onRefusal: (@Sendable (String) -> Void)? = handler.withLock { $0.onRefusal }
    return onRefusal ?? { _ in }
  }

  /// Whether a file is inside one of the temporary folders.
  package static func isTemporary(_ file: URL) -> Bool {
    let path = file.standardizedFileURL.resolvingSymlinksInPath().path
    let folders = [
      FileManager.default.temporaryDirectory.path, NSTemporaryDirectory(), "/tmp", "/var/tmp",
      ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp",
    ]
    return folders.contains { folder in
      let folder = URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path
      return path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }
  }
}
