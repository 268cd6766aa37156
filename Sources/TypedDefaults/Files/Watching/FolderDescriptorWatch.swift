import Dispatch
import Foundation

/// The watch a ``FileWatcher`` arms on Apple platforms, as the three system calls it makes: the
/// folder opened for events only, a dispatch file-system source on the descriptor, and the
/// descriptor closed once the source is cancelled.
///
/// Everything around those calls is compiled and tested on every platform: what an event means
/// (``response(to:)``), what a failure to open says (``openFailureReason(folder:code:)``), and
/// the arming, counting, re-arming and closing in ``FileWatcher``, which takes the calls as a
/// value. Only ``system`` (in `FolderDescriptorWatch+Dispatch.swift`, Apple platforms) calls the
/// Apple API; tests on Linux arm a watcher with fake calls and fire its events by hand.
package struct FolderDescriptorWatch: Sendable {
  /// What controls a source ``makeSource`` made.
  struct Source: Sendable {
    /// Starts delivering events; called once, when the watcher has installed the watch.
    var resume: @Sendable () -> Void
    /// Stops delivering events; the source then calls its `cancelled` handler once, on its
    /// queue, which closes the descriptor.
    var cancel: @Sendable () -> Void
  }

  /// Opens the folder at a path for events only: the descriptor, or -1 with the reason in
  /// `errno`.
  var openFolder: @Sendable (_ path: String) -> Int32
  /// Makes a source of a descriptor's events, not yet resumed, that calls `events` on `queue`
  /// with each event it sees (of ``eventMask``), and `cancelled` on `queue` once after its
  /// `cancel`.
  var makeSource:
    @Sendable (
      _ descriptor: Int32, _ queue: DispatchQueue,
      _ events: @escaping @Sendable (DispatchSource.FileSystemEvent) -> Void,
      _ cancelled: @escaping @Sendable () -> Void
    ) -> Source
  /// Closes a descriptor ``openFolder`` returned.
  var closeDescriptor: @Sendable (_ descriptor: Int32) -> Void

  /// The events a source asks for: the folder's entries changed (`write`: one was created,
  /// removed, renamed or replaced), and the folder itself deleted, renamed, or its volume
  /// unmounted (`revoke`).
  static var eventMask: DispatchSource.FileSystemEvent { [.write, .delete, .rename, .revoke] }

  /// What a watcher does with an event of its folder.
  enum Response: Equatable, Sendable {
    /// The folder itself went away (deleted, renamed, its volume unmounted): disarm, report
    /// every file, and retry arming, so that a folder created again is watched again.
    case rearm
    /// An entry of the folder changed, and the event doesn't say which: compare the watched
    /// files' identities with those last seen.
    case compareFiles
  }

  /// What an event means for the watcher: ``Response/rearm`` if it says the folder itself went
  /// away (`delete`, `rename` or `revoke`, alone or with others), else
  /// ``Response/compareFiles``.
  ///
  /// - Parameter event: The event the source delivered.
  /// - Returns: What to do.
  static func response(to event: DispatchSource.FileSystemEvent) -> Response {
    event.isDisjoint(with: [.delete, .rename, .revoke]) ? .compareFiles : .rearm
  }

  /// The reason a watcher reports when its folder can't be opened.
  ///
  /// - Parameters:
  ///   - folder: The folder's path.
  ///   - code: The `errno` of the failed `open`.
  /// - Returns: "can't watch <folder>: the folder doesn't exist" for `ENOENT`, else the
  ///   system's description of `code`.
  static func openFailureReason(folder: String, code: Int32) -> String {
    let reason = code == ENOENT ? "the folder doesn't exist" : String(cString: strerror(code))
    return "can't watch \(folder): \(reason)"
  }
}
