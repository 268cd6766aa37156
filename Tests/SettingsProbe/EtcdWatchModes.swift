import Foundation
import TypedDefaults
import TypedDefaultsEtcd
import TypedDefaultsLayers

// The watching process of the fleet chaos test (EtcdFleetChaosProcessTests): an app whose store's
// fleet layer is an EtcdSource, recording what it sees while the test kills, wipes, rebuilds,
// compacts and pauses around it.
//
//   SettingsProbe etcd-watch <endpoint> <prefix> <data.plist path> <record file>
//     Opens a LayeredPlistStore over <data.plist path> with an EtcdSource watching <prefix> at
//     <endpoint> as its layer, starts watching, and runs until killed. Every 2 ms it looks at
//     the source and the store, and appends a line to <record file> (which must exist) when what
//     it sees changed:
//       <status>\t<revision>\t<the layer's values>\t<the store's values>\t<error>
//     <status> is `connected`, `offline` or `notStarted`; <revision> the status's revision
//     (`connected`) or the source's (otherwise); the values are `key=value` sorted by key and
//     joined by commas; <error> is `error` when `lastError` is set, else `-`. A line is written
//     only when the status read before and after the values is the same, so a `connected` line's
//     values are the layer's at that revision.

/// Runs the `etcd-watch` mode; returns `false` when `arguments` don't name it, and never
/// returns otherwise (the process runs until it is killed).
func runEtcdWatchMode(_ arguments: [String]) -> Bool {
  guard arguments.first == "etcd-watch" else { return false }
  guard arguments.count == 5, let endpoint = URL(string: arguments[1]),
    let record = FileHandle(forWritingAtPath: arguments[4])
  else { fail("usage: SettingsProbe etcd-watch <endpoint> <prefix> <data.plist> <record file>") }
  var options = EtcdSource.Options()
  options.timeout = 2
  options.reconnectDelay = 0.05...0.2
  let source = EtcdSource(endpoints: [endpoint], prefix: arguments[2], options: options)
  let store: LayeredPlistStore
  do {
    store = try LayeredPlistStore(
      persistentFile: URL(fileURLWithPath: arguments[3]),
      layers: [.runtime, .persistent, .source(source)],
      options: LayeredPlistStore.Options(savesAtExit: false))
  } catch {
    fail("\(error)")
  }
  store.startWatching()
  var last = ""
  while true {
    if let line = etcdWatchObservation(source, store), line != last {
      record.write(Data((line + "\n").utf8))
      last = line
    }
    usleep(2000)
  }
}

/// One line of the record: what `source` and `store` hold now, or `nil` when the source's status
/// changed while the values were read (the next look records it).
private func etcdWatchObservation(_ source: EtcdSource, _ store: LayeredPlistStore) -> String? {
  let before = source.status
  let revision = source.revision
  guard let layer = try? source.read().values else { return nil }
  let seen = store.dictionaryRepresentation()
  let failed = source.lastError != nil
  guard source.status == before else { return nil }
  let status: String
  var shown = revision
  switch before {
  case .connected(_, let connected):
    status = "connected"
    shown = connected
  case .offline: status = "offline"
  case .notStarted: status = "notStarted"
  }
  return [status, "\(shown)", etcdWatchText(layer), etcdWatchText(seen), failed ? "error" : "-"]
    .joined(separator: "\t")
}

/// `values` as `key=value` pairs sorted by key and joined by commas (a string's text, any other
/// value's description).
private func etcdWatchText(_ values: [String: PropertyListValue]) -> String {
  values.sorted { $0.key < $1.key }.map { key, value in
    if case .string(let text) = value { return "\(key)=\(text)" }
    return "\(key)=\(value)"
  }.joined(separator: ",")
}
