import Foundation

extension FileWatcher {
  /// Where a change to the file at `url` can show: the file's name in its folder, and, when it
  /// is a symbolic link, each link of the chain in its own folder, plus the first component of a
  /// relative link's destination when that is a folder beside the link (Kubernetes mounts a
  /// ConfigMap as `name -> ..data/name` and updates it by renaming a new `..data` link over the
  /// old one).
  ///
  /// The chain is followed as it is when watching starts (``AtomicFile/symbolicLinkChain(of:)``).
  ///
  /// - Parameter url: The file.
  /// - Returns: Each folder to watch with a name in it, the file's own first.
  package static func watchPoints(of url: URL) -> [(folder: URL, name: String)] {
    var points: [(folder: URL, name: String)] = []
    // The chain's 33rd path, reached after 32 links, is not watched.
    for (current, destination) in AtomicFile.symbolicLinkChain(of: url).prefix(32) {
      let folder = current.deletingLastPathComponent()
      points.append((folder, current.lastPathComponent))
      if let destination, !destination.hasPrefix("/"),
        let first = destination.split(separator: "/").first,
        first != ".", first != "..", destination.contains("/")
      {
        points.append((folder, String(first)))
      }
    }
    return points
  }
}
