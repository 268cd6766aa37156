import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A ConfigMap or Secret volume, laid out and updated as the kubelet does: the files in a
/// version folder (`..v1`), a link `..data` to it, and a link `key -> ..data/key` per key.
///
/// An update writes a new version folder, links `..data_tmp` to it and renames that link over
/// `..data` (the one atomic step a reader sees), then removes the links of keys that went and the
/// old folder. The kubelet names its folders after the time (`..2026_12_02_18_05_00.1234`); the
/// demo counts, so that its runs are alike.
struct KubernetesMount {
  /// The mount point.
  let directory: URL
  /// The keys of the version `..data` points to.
  private var keys: Set<String> = []
  /// The number of the version `..data` points to.
  private var version = 0

  /// Creates the mount point, replacing whatever an earlier run left there, with a first version.
  init(at directory: URL, _ payload: [String: String]) throws {
    self.directory = directory
    try? FileManager.default.removeItem(at: directory)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try update(to: payload)
  }

  /// Replaces the payload as the kubelet does: readers see the old version or the new one, never
  /// a mix.
  mutating func update(to payload: [String: String]) throws {
    let fileManager = FileManager.default
    func path(_ name: String) -> String { directory.appending(path: name).path }
    let folder = "..v\(version + 1)"
    try fileManager.createDirectory(atPath: path(folder), withIntermediateDirectories: false)
    for (key, text) in payload {
      try Data(text.utf8).write(to: directory.appending(path: folder + "/" + key))
    }
    for key in payload.keys where !keys.contains(key) {
      try fileManager.createSymbolicLink(atPath: path(key), withDestinationPath: "..data/" + key)
    }
    try fileManager.createSymbolicLink(atPath: path("..data_tmp"), withDestinationPath: folder)
    guard rename(path("..data_tmp"), path("..data")) == 0 else {
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    for key in keys.subtracting(payload.keys) { try fileManager.removeItem(atPath: path(key)) }
    if version > 0 { try fileManager.removeItem(atPath: path("..v\(version)")) }
    keys = Set(payload.keys)
    version += 1
  }
}
