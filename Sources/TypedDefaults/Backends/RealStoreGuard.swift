import Foundation

/// The guard that makes a write to a real store an error in a test process: the mechanism behind
/// `SettingsTesting.refuseWritesToRealStores()` of the `TypedDefaultsTesting` product.
///
/// A real store is one whose file is outside the temporary folders (`$TMPDIR`, `/tmp`,
/// `/var/tmp`, Foundation's `temporaryDirectory`): a `LayeredPlistStore` whose `data.plist` is
/// elsewhere, and a `UserDefaultsBackend` (on Apple platforms, where the system keeps its file,
/// always). Off until turned on, and never turned off. Off, it costs one uncontended lock per
/// write to a file-backed backend; on, each such write also resolves the file's path and the
/// temporary folders' (a few `realpath` calls: a test process's cost only).
package enum RealStoreGuard {
  private struct State {
    var isOn = false
    /// Told of each refused write (Swift Testing's `Issue.record`, so the test fails even when
    /// the write came through a property setter, which can't throw).
    var onRefusal: (@Sendable (String) -> Void)?
  }

  private static let state = Locked(State())

  /// Turns the guard on for the rest of the process.
  ///
  /// - Parameter onRefusal: Called with the message of each refused write, on the writing
  ///   thread.
  package static func turnOn(onRefusal: @escaping @Sendable (String) -> Void) {
    state.withLock { state in
      state.isOn = true
      state.onRefusal = onRefusal
    }
  }

  /// Whether the guard is on.
  package static var isOn: Bool { state.withLock { $0.isOn } }

  /// Refuses a write to `backend`, whose file is `file` (`nil`: one the system keeps), if the
  /// guard is on and the file is a real one.
  ///
  /// - Throws: ``SettingsError/Code/fileNotWritable`` naming the file and saying why.
  package static func check(writingTo file: URL?, of backend: String) throws(SettingsError) {
    guard let onRefusal = refusal(writingTo: file) else { return }
    let path = file?.path ?? backend
    let error = SettingsError(
      .fileNotWritable, path: path,
      reason: "A test wrote to a real store (\(backend)), which holds this user's own settings; "
        + "run the test with .isolatedSettings, or open the store on a temporary folder")
    onRefusal(error.description)
    throw error
  }

  /// The refusal handler, if a write to `file` is to be refused.
  private static func refusal(writingTo file: URL?) -> (@Sendable (String) -> Void)? {
    let (isOn, onRefusal) = state.withLock { ($0.isOn, $0.onRefusal) }
    guard isOn else { return nil }
    if let file, isTemporary(file) { return nil }
    return onRefusal ?? { _ in }
  }

  /// Whether a file is inside one of the temporary folders.
  static func isTemporary(_ file: URL) -> Bool {
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
