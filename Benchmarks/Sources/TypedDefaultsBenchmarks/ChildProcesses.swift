import Foundation
import TypedDefaults
import TypedDefaultsLayers

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Measurements that need a process of their own: peak memory, and `UserDefaults` imports (which
/// must not inherit the state earlier measurements left in CoreFoundation's caches).
///
/// The benchmark runs itself with `--child <task> <argument>`; the child prints one number.
enum ChildProcesses {
  static let flag = "--child"

  /// Runs in the child: does the task and prints its result.
  static func run(task: String, argument: String) throws {
    switch task {
    case "memory-idle":
      // Load the same libraries, on a tiny property list.
      consume(
        try PropertyListSerialization.propertyList(from: Data("{}".utf8), options: [], format: nil))
      print(peakResidentKilobytes())
    case "memory-raw":
      let url = URL(fileURLWithPath: argument)
      consume(
        try PropertyListSerialization.propertyList(
          from: Data(contentsOf: url), options: [], format: nil))
      print(peakResidentKilobytes())
    case "memory-store":
      let url = URL(fileURLWithPath: argument)
      consume(try LayeredPlistStore(persistentFile: url, options: .init(savesAtExit: false)))
      print(peakResidentKilobytes())
    case "import-ours":
      let (values, suite) = importValues(argument)
      let backend = UserDefaultsBackend(suiteName: suite)
      let start = DispatchTime.now().uptimeNanoseconds
      try backend.setValues(values)
      precondition(backend.synchronize())
      print(DispatchTime.now().uptimeNanoseconds - start)
      removeSuite(backend)
    case "import-raw":
      let (imported, suite) = importValues(argument)
      let values = imported.mapValues { $0.stringValue ?? "" }
      guard let defaults = UserDefaults(suiteName: suite) else { fatalError("suite refused") }
      let start = DispatchTime.now().uptimeNanoseconds
      for (key, value) in values { defaults.set(value, forKey: key) }
      precondition(defaults.synchronize())
      print(DispatchTime.now().uptimeNanoseconds - start)
      removeSuite(UserDefaultsBackend(defaults, suiteName: suite))
    case CrossProcessLatency.task:
      try CrossProcessLatency.runChild(path: argument)
    case FleetLatency.oursTask:
      try FleetLatency.runOursWatcher(argument)
    case FleetLatency.rawTask:
      try FleetLatency.runRawWatcher(argument)
    default:
      fatalError("unknown child task \(task)")
    }
  }

  /// Runs a child task and returns the number it printed.
  static func measure(_ task: String, _ argument: String) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    process.arguments = [flag, task, argument]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    guard process.terminationStatus == 0, let value = Double(text) else {
      throw CocoaError(
        .featureUnsupported,
        userInfo: [NSLocalizedDescriptionKey: "child \(task) failed: '\(text)'"])
    }
    return value
  }

  /// The values to import and the suite, from an import task's argument, `<keys>:<suite>`.
  static func importValues(_ argument: String) -> ([String: PropertyListValue], suite: String) {
    guard let colon = argument.firstIndex(of: ":"), let keys = Int(argument[..<colon]) else {
      fatalError("an import task's argument is <keys>:<suite>, not '\(argument)'")
    }
    let values = Dictionary(
      uniqueKeysWithValues: (0..<keys).map {
        ("imported.\($0)", PropertyListValue.string("value \($0)"))
      })
    return (values, String(argument[argument.index(after: colon)...]))
  }

  static func removeSuite(_ backend: UserDefaultsBackend) {
    if backend.isWrittenOnlyThroughLibrary {
      // Through the backend, as promised: a raw removal would be reported as a broken promise.
      for key in backend.keys { backend.removeValue(forKey: key) }
    } else if let suite = backend.suiteName {
      backend.userDefaults.removePersistentDomain(forName: suite)
    }
    backend.synchronize()
    if let file = backend.fileURL { try? FileManager.default.removeItem(at: file) }
  }

  /// The process's peak resident size in kilobytes.
  static func peakResidentKilobytes() -> Int {
    #if canImport(Darwin)
      var usage = rusage()
      getrusage(RUSAGE_SELF, &usage)
      return Int(usage.ru_maxrss) / 1024  // bytes on Apple platforms
    #else
      // Not getrusage: on Linux its ru_maxrss survives exec, so a child reports the parent's peak.
      // VmHWM is this address space's own high-water mark, in kB.
      let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
      let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
      return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    #endif
  }

  // MARK: - Figures

  static func peakMemory(repeats: Int) throws -> Figure {
    let folder = try ScratchFolder()
    defer { folder.remove() }
    let file = folder.file("data.plist")
    try PropertyListFile(url: file).write(.dictionary(tenThousandValues()), format: .binary)
    func peak(_ task: String) throws -> Double {
      median(try (0..<repeats).map { _ in try measure(task, file.path) })
    }
    let idle = try peak("memory-idle")
    let raw = try peak("memory-raw") - idle
    let store = try peak("memory-store") - idle
    return Figure(
      name: "peak memory opening a 10,000-key store (kB above an idle process)", ours: store,
      baseline: raw, target: 1.5, unit: "kB")
  }

  /// Importing `keys` new keys into a `UserDefaultsBackend` and saving, against setting them one
  /// by one on `UserDefaults` and synchronizing, each in a fresh process.
  static func userDefaultsImport(keys: Int, repeats: Int) throws -> Figure {
    let pid = ProcessInfo.processInfo.processIdentifier
    var ours: [Double] = []
    var raw: [Double] = []
    for round in 0..<repeats {
      ours.append(
        try measure("import-ours", "\(keys):TypedDefaultsBenchmarks.import.ours.\(pid).\(round)"))
      raw.append(
        try measure("import-raw", "\(keys):TypedDefaultsBenchmarks.import.raw.\(pid).\(round)"))
    }
    return Figure(
      name: "import of \(keyCount(keys)) new keys into UserDefaultsBackend, then saved",
      ours: median(ours),
      baseline: median(raw), target: 0.3, unit: "ns")
  }
}
