import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A ConfigMap or Secret volume as the kubelet lays it out and updates it (Kubernetes'
/// `AtomicWriter`, pkg/volume/util/atomic_writer.go): the payload in a timestamped folder
/// `..2026_12_02_08_05_00.<random>`, a link `..data` to it, and a link `key -> ..data/key` per key.
///
/// ``write(_:stoppingBefore:)`` replaces the payload with the writer's steps, in its order:
/// (5) a new timestamped folder, (6) the payload written into it, (7) a link for each new key,
/// (8) a link `..data_tmp` to the new folder, (9) `..data_tmp` renamed over `..data`, (10) the
/// links of removed keys removed, (11) the old timestamped folder removed.
final class KubernetesMount {
  /// The writer's steps, to stop a write partway (as a crash or a reader's bad timing would).
  enum Step: Int, Comparable {
    case createVisibleLinks = 7
    case linkDataTemporary = 8
    case renameOverData = 9
    case removeOldLinks = 10
    case removeOldFolder = 11

    static func < (lhs: Step, rhs: Step) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  /// The volume's folder (the container's mount point).
  let directory: URL
  private var keys: Set<String> = []
  private var versionFolder: String?
  private var counter = 0

  /// Creates the volume's folder and writes the first payload.
  init(at directory: URL, _ payload: [String: String]) throws {
    self.directory = directory
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try write(payload)
  }

  /// Replaces the payload as the kubelet does, stopping before `stop` if given.
  func write(_ payload: [String: String], stoppingBefore stop: Step? = nil) throws {
    try write(payload.mapValues { Data($0.utf8) }, stoppingBefore: stop)
  }

  /// Replaces the payload (exact bytes) as the kubelet does, stopping before `stop` if given.
  func write(_ payload: [String: Data], stoppingBefore stop: Step? = nil) throws {
    let fileManager = FileManager.default
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    func reached(_ step: Step) -> Bool { stop.map { step < $0 } ?? true }

    // (5) `os.MkdirTemp(targetDir, time.Now().UTC().Format("..2006_01_02_15_04_05."))`.
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy_MM_dd_HH_mm_ss."
    counter += 1
    let folder = "..\(formatter.string(from: Date()))\(UInt32.random(in: 0...UInt32.max))\(counter)"
    try fileManager.createDirectory(atPath: path(folder), withIntermediateDirectories: false)
    // (6) The payload, each file written whole (mode 0644, as `defaultMode` gives).
    for (key, bytes) in payload {
      guard fileManager.createFile(atPath: path(folder) + "/" + key, contents: bytes) else {
        throw CocoaError(.fileWriteUnknown)
      }
    }
    // (7) A link for each key that has none yet.
    guard reached(.createVisibleLinks) else { return }
    for key in payload.keys where !keys.contains(key) {
      try fileManager.createSymbolicLink(atPath: path(key), withDestinationPath: "..data/" + key)
    }
    // (8) `..data_tmp -> ..<timestamp>`.
    guard reached(.linkDataTemporary) else { return }
    try fileManager.createSymbolicLink(atPath: path("..data_tmp"), withDestinationPath: folder)
    // (9) The atomic swap.
    guard reached(.renameOverData) else { return }
    guard rename(path("..data_tmp"), path("..data")) == 0 else {
      throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    let previousKeys = keys
    let previousFolder = versionFolder
    keys = Set(payload.keys)
    versionFolder = folder
    // (10) The links of keys no longer in the payload.
    guard reached(.removeOldLinks) else { return }
    for key in previousKeys.subtracting(payload.keys) {
      try fileManager.removeItem(atPath: path(key))
    }
    // (11) The old version.
    guard reached(.removeOldFolder) else { return }
    if let previousFolder { try fileManager.removeItem(atPath: path(previousFolder)) }
  }
}
