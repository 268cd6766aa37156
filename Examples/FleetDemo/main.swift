// FleetDemo: one setting changed for a whole fleet at once. Starts a local etcd (or uses one at
// --endpoint), runs three processes of a small service, each with a LayeredPlistStore whose fleet
// layer watches one etcd prefix, and sets `maxBitrate` for the fleet with one write: all three
// see the change, each as one change event, and the demo prints how long each took.
//
//   swift run FleetDemo                       # starts /usr/bin/etcd (apt-get install etcd-server)
//   swift run FleetDemo --endpoint http://127.0.0.1:2379

import Foundation
import TypedDefaults
import TypedDefaultsEtcd
import TypedDefaultsLayers
import TypedDefaultsSchema

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The service's settings: the fleet sets them, a user's data.plist could override them.
struct FleetServiceSettings: SettingsGroup {
  @Setting(in: 1..., help: "The highest bitrate a stream may use, in kbit/s.") var maxBitrate = 1000
  @Setting(help: "What the service says to a new client.") var greeting = "hello"
}

/// The prefix every service of the demo watches.
let prefix = "/config/com.example.fleetdemo/"
/// How long the whole demo may take, in seconds.
let demoTimeout = 60.0

struct DemoError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

// MARK: - The service (a child process)

/// Prints a line at once (unbuffered: the parent reads it through a pipe).
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// One service: opens its store, prints its settings, and prints each change until its
/// `maxBitrate` is `target`.
func runService(number: Int, endpoint: URL, folder: URL, target: Int) throws {
  let fleet = EtcdSource(
    endpoints: [endpoint], prefix: prefix,
    lastKnownGoodFile: folder.appending(path: "fleet.plist"))
  let store = try LayeredPlistStore(
    persistentFile: folder.appending(path: "data.plist"),
    layers: [.runtime, .persistent, .source(fleet)],
    options: .init(savesAtExit: false))
  let settings = FleetServiceSettings(backend: store)
  let done = DispatchSemaphore(value: 0)
  let token = store.observeAllKeys { change in
    let value = change.newValue.map { "\($0)" } ?? "(removed)"
    say("service \(number): \(change.key) changed to \(value)")
    if settings.maxBitrate == target { done.signal() }
  }
  store.startWatching()
  say("service \(number) ready: maxBitrate = \(settings.maxBitrate), \(fleet.status)")
  let finished = done.wait(timeout: .now() + demoTimeout) == .success
  token.cancel()
  store.stopWatching()
  guard finished else { throw DemoError("service \(number) never saw maxBitrate = \(target)") }
}

// MARK: - The operator (the parent process)

/// A local etcd on free loopback ports, in a temporary folder.
final class LocalEtcd {
  let process = Process()
  let folder: URL
  let endpoint: URL

  init() throws {
    let executable =
      ProcessInfo.processInfo.environment["TYPEDDEFAULTS_ETCD"]
      ?? ["/usr/bin/etcd", "/usr/local/bin/etcd"].first {
        FileManager.default.isExecutableFile(atPath: $0)
      }
    guard let executable else {
      throw DemoError(
        "etcd is not installed: apt-get install etcd-server, or pass --endpoint URL of a running one"
      )
    }
    folder = FileManager.default.temporaryDirectory.appending(path: "FleetDemo-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let client = try Self.freePort()
    let peer = try Self.freePort()
    endpoint = URL(string: "http://127.0.0.1:\(client)")!
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = [
      "--name", "fleetdemo", "--data-dir", folder.appending(path: "data").path,
      "--listen-client-urls", endpoint.absoluteString,
      "--advertise-client-urls", endpoint.absoluteString,
      "--listen-peer-urls", "http://127.0.0.1:\(peer)",
      "--initial-advertise-peer-urls", "http://127.0.0.1:\(peer)",
      "--initial-cluster", "fleetdemo=http://127.0.0.1:\(peer)",
    ]
    let log = folder.appending(path: "etcd.log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let handle = try FileHandle(forWritingTo: log)
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
  }

  func stop() {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(at: folder)
  }

  /// A TCP port nothing listens on now.
  static func freePort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
      }
    }
    guard bound else { throw DemoError("cannot find a free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

/// A child process of this executable, its output lines collected.
final class Service: @unchecked Sendable {
  // @unchecked Sendable: `lines` is only touched while `lock` is held; the rest is immutable.
  let number: Int
  let process = Process()
  private let lock = NSLock()
  private var lines: [String] = []

  init(number: Int, endpoint: URL, folder: URL, target: Int) throws {
    self.number = number
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = [
      "--service", "\(number)", "--endpoint", endpoint.absoluteString, "--folder", folder.path,
      "--target", "\(target)",
    ]
    let pipe = Pipe()
    process.standardOutput = pipe
    pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
      let data = handle.availableData
      guard let self, !data.isEmpty else { return }
      let text = String(decoding: data, as: UTF8.self)
      lock.lock()
      lines += text.split(separator: "\n").map(String.init)
      lock.unlock()
    }
    try process.run()
  }

  var output: [String] {
    lock.lock()
    defer { lock.unlock() }
    return lines
  }

  /// Waits (bounded) until a line satisfies `condition`; returns when it did, or `nil`.
  func waitForLine(timeout: Double, _ condition: (String) -> Bool) -> Date? {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if output.contains(where: condition) { return Date() }
      usleep(1000)
    }
    return nil
  }
}

/// Writes the fleet's first value; returns why it failed, if it did.
func firstWrite(_ fleet: EtcdSource) async -> SettingsError? {
  do {
    try await fleet.write("4000", forKey: "maxBitrate")
    return nil
  } catch {
    return error
  }
}

func runOperator(endpoint givenEndpoint: URL?) async throws {
  let etcd = givenEndpoint == nil ? try LocalEtcd() : nil
  defer { etcd?.stop() }
  let endpoint = givenEndpoint ?? etcd!.endpoint
  print("fleet: etcd at \(endpoint.absoluteString), prefix \(prefix)")

  // The operator's handle on the fleet: the same source type, used to write.
  let fleet = EtcdSource(endpoints: [endpoint], prefix: prefix)
  let deadline = Date().addingTimeInterval(15)
  while let failure = await firstWrite(fleet) {
    guard Date() < deadline else { throw failure }
    try await Task.sleep(nanoseconds: 50_000_000)  // etcd is starting
  }
  try await fleet.write("hello from the fleet", forKey: "greeting")

  let scratch = FileManager.default.temporaryDirectory.appending(path: "FleetDemo-\(UUID())")
  defer { try? FileManager.default.removeItem(at: scratch) }
  let target = 8000
  var services: [Service] = []
  for number in 1...3 {
    let folder = scratch.appending(path: "service\(number)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    services.append(try Service(number: number, endpoint: endpoint, folder: folder, target: target))
  }
  defer {
    for service in services where service.process.isRunning { service.process.terminate() }
  }
  for service in services {
    guard service.waitForLine(timeout: 20, { $0.contains("ready") }) != nil else {
      throw DemoError("service \(service.number) didn't start: \(service.output)")
    }
  }
  for service in services { print(service.output.first { $0.contains("ready") } ?? "") }

  print("fleet: one write sets maxBitrate = \(target) for every service")
  let start = Date()
  try await fleet.write(.string("\(target)"), forKey: "maxBitrate")
  for service in services {
    guard
      let seen = service.waitForLine(
        timeout: 20, { $0.contains("maxBitrate changed to \(target)") })
    else {
      throw DemoError("service \(service.number) never saw the change: \(service.output)")
    }
    let line = service.output.first { $0.contains("maxBitrate changed to \(target)") } ?? ""
    print("\(line)   (seen within \(Int(seen.timeIntervalSince(start) * 1000)) ms)")
  }
  for service in services {
    service.process.waitUntilExit()
    guard service.process.terminationStatus == 0 else {
      throw DemoError("service \(service.number) exited with \(service.process.terminationStatus)")
    }
  }
  print("fleet: all 3 services changed with one write")
}

// MARK: - Arguments

func value(after flag: String) -> String? {
  let arguments = CommandLine.arguments
  guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
  return arguments[index + 1]
}

do {
  if CommandLine.arguments.contains("--help") {
    print(
      "usage: FleetDemo [--endpoint URL] [--schema]   (without --endpoint, starts a local etcd; "
        + "--schema prints the service settings' JSON Schema)")
    exit(0)
  }
  if CommandLine.arguments.contains("--schema") {
    let schema = FleetServiceSettings(backend: InMemoryBackend()).schema
    print(String(decoding: schema.jsonSchema(), as: UTF8.self))
    exit(0)
  }
  let endpoint = value(after: "--endpoint").flatMap(URL.init(string:))
  if let number = value(after: "--service").flatMap(Int.init), let endpoint,
    let folder = value(after: "--folder"), let target = value(after: "--target").flatMap(Int.init)
  {
    try runService(
      number: number, endpoint: endpoint, folder: URL(fileURLWithPath: folder), target: target)
  } else {
    try await runOperator(endpoint: endpoint)
  }
} catch {
  FileHandle.standardError.write(Data("FleetDemo: \(error)\n".utf8))
  exit(1)
}
