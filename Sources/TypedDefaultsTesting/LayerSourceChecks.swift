import Foundation
import TypedDefaults
import TypedDefaultsLayers

/// The checks ``LayerSourceConformance`` runs, one rule of the ``LayerSource`` contract each.
enum LayerSourceChecks {
  typealias Check = LayerSourceConformance.Check
  typealias Context = LayerSourceConformance.Context

  static let all: [Check] = [
    readGivesTheValuesTheSourceHolds, theLayerIsNamedAndIsNotOneOfTheStoresOwn,
    concurrentReadsEachSeeOneWholeVersion, aChangeIsReportedToTheReporter,
    aStoreLayersTheSourceInItsOrder, explainNamesTheSourcesLayer,
    writesToTheSourcesKeysAreRefusedIfAndOnlyIfItIsForced,
    aReportedChangeDeliversOneEventPerKeyWhoseValueChanged,
    removingAKeyFromTheSourceLetsThePersistentValueShow,
  ]

  /// Values of every kind (or, for a source of text, strings of every shape).
  static func samples(_ context: Context) throws -> [String: PropertyListValue] {
    if try context.valuesAreText() {
      return [
        "integer": "42", "real": "0.25", "bool": "true", "string": "ünïcödé ✓ \"quoted\"",
        "url": "https://example.com/a?b=c", "lines": "first\nsecond",
      ]
    }
    return [
      "integer": 42, "real": 0.25, "bool": true, "string": "ünïcödé ✓ \"quoted\"",
      "date": .date(Date(timeIntervalSince1970: 1_700_000_000)), "data": .data(Data([0, 1, 255])),
      "array": [1, "two"], "dictionary": ["nested": [true]], "empty": "",
    ]
  }

  static let readGivesTheValuesTheSourceHolds = Check(
    name: "readGivesTheValuesTheSourceHolds", needsChange: false
  ) { context in
    let samples = try samples(context)
    let contents = try context.makeSource(samples).read()
    for key in Set(samples.keys).union(contents.values.keys).sorted()
    where samples[key] != contents.values[key] {
      context.fail(
        "read() gave \(describe(contents.values[key])) for '\(key)', not \(describe(samples[key]))")
    }
    context.expect(
      contents.problems.isEmpty,
      "read() reported problems reading good values: \(contents.problems)")
    let empty = try context.makeSource([:]).read()
    context.expect(
      empty.values.isEmpty, "a source made with no values read \(empty.values.count) values")
    if try context.valuesAreText() {
      for (key, value) in contents.values.sorted(by: { $0.key < $1.key }) {
        guard case .string = value else {
          context.fail("a source of text gave \(describe(value)) for '\(key)', not a string")
          continue
        }
      }
    }
  }

  static let theLayerIsNamedAndIsNotOneOfTheStoresOwn = Check(
    name: "theLayerIsNamedAndIsNotOneOfTheStoresOwn", needsChange: false
  ) { context in
    let source = try context.makeSource([:])
    let layer = source.layer
    context.expect(!layer.name.isEmpty, "the layer's name is empty")
    context.expect(
      layer != .runtime && layer != .persistent,
      "the source names its layer '\(layer)', one of the store's own writable layers")
    context.expect(!layer.isWritable, "the source's layer '\(layer)' says it is writable")
    context.expect(
      source.layer == layer && source.isForced == source.isForced,
      "the source's layer changed between two reads of the property")
  }

  static let concurrentReadsEachSeeOneWholeVersion = Check(
    name: "concurrentReadsEachSeeOneWholeVersion", needsChange: true
  ) { context in
    let first: [String: PropertyListValue] = [
      "a": try context.value(1, text: "1"), "b": try context.value(1, text: "1"),
    ]
    let second: [String: PropertyListValue] = [
      "a": try context.value(2, text: "2"), "c": try context.value(2, text: "2"),
    ]
    let source = try context.makeSource(first)
    let torn = Locked<[String: PropertyListValue]?>(nil)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<50 {
            let values = try source.read().values
            if values != first && values != second { torn.withLock { $0 = $0 ?? values } }
          }
        }
      }
      for round in 0..<20 {
        try await context.change(source, to: round.isMultiple(of: 2) ? second : first)
      }
      try await group.waitForAll()
    }
    if let values = torn.withLock({ $0 }) {
      context.fail(
        "a read during changes gave \(describe(.dictionary(values))), neither version written")
    }
  }

  static let aChangeIsReportedToTheReporter = Check(
    name: "aChangeIsReportedToTheReporter", needsChange: true
  ) { context in
    let source = try context.makeSource(["a": try context.value(1, text: "1")])
    let reports = Locked<[[String]?]>([])
    source.startWatching(
      reportingTo: LayerSourceReporter { keys in reports.withLock { $0.append(keys) } })
    defer { source.stopWatching() }
    let new = try context.value(2, text: "2")
    try await context.change(source, to: ["a": new, "b": new])
    await context.wait(until: "the source reports that 'a' and 'b' may have changed") {
      let reported = reports.withLock { $0 }
      return reported.contains { $0 == nil }
        || (reported.contains { $0?.contains("a") == true }
          && reported.contains { $0?.contains("b") == true })
    }
    let read = try source.read().values
    context.expect(
      read == ["a": new, "b": new], "after the change, read() gave \(describe(.dictionary(read)))")
  }

  static let aStoreLayersTheSourceInItsOrder = Check(
    name: "aStoreLayersTheSourceInItsOrder", needsChange: false
  ) { context in
    let values: [String: PropertyListValue] = [
      "alpha": try context.value("source", text: "source"),
      "beta": try context.value("source", text: "source"),
    ]
    let source = try context.makeSource(values)
    let store = try context.store(
      layers: [.runtime, .persistent, .source(source)], persistent: ["beta": "persistent"])
    let layer = source.layer
    context.expect(
      store.layers == [.runtime, .persistent, layer],
      "the store's layers are \(store.layers), not [runtime, persistent, \(layer)]")
    context.expect(
      store.value(forKey: "alpha") == values["alpha"],
      "the store reads \(describe(store.value(forKey: "alpha"))) for a key only the source holds")
    context.expect(
      store.layer(forKey: "alpha") == layer,
      "the store says 'alpha' comes from \(store.layer(forKey: "alpha").map { "\($0)" } ?? "nil")")
    context.expect(
      store.value(forKey: "beta") == "persistent",
      "the source's value of 'beta' beats the persistent layer above it")
    context.expect(
      store.dictionaryRepresentation(of: layer) == values,
      "the store's \(layer) layer holds \(describe(.dictionary(store.dictionaryRepresentation(of: layer))))"
    )
  }

  static let explainNamesTheSourcesLayer = Check(
    name: "explainNamesTheSourcesLayer", needsChange: false
  ) { context in
    let secret = "conformance-value-7f3a"
    let source = try context.makeSource(["alpha": .string(secret)])
    let store = try context.store(layers: [.runtime, .persistent, .source(source)])
    let layer = source.layer
    let explained = store.explain("alpha")
    context.expect(
      explained.source == layer,
      "explain says 'alpha' comes from \(explained.source.map { "\($0)" } ?? "nil"), not \(layer)")
    context.expect(
      explained.values[layer] == .string(secret),
      "explain gives \(describe(explained.values[layer])) as the \(layer) layer's value")
    let description = explained.description
    context.expect(
      description.contains(layer.name),
      "explain's description doesn't name the layer: \(description)")
    if source.holdsSecrets {
      context.expect(
        description.contains("<secret>") && !description.contains(secret),
        "explain's description of a secret layer's value shows it: \(description)")
    } else {
      context.expect(
        description.contains(secret), "explain's description doesn't show the value: \(description)"
      )
    }
  }

  static let writesToTheSourcesKeysAreRefusedIfAndOnlyIfItIsForced = Check(
    name: "writesToTheSourcesKeysAreRefusedIfAndOnlyIfItIsForced", needsChange: false
  ) { context in
    let value = try context.value("source", text: "source")
    let source = try context.makeSource(["alpha": value])
    let store = try context.store(layers: [.runtime, .persistent, .source(source)])
    let forcedValue = SettingsError.Code.forcedValue
    for layer in [LayeredPlistStore.Layer.runtime, .persistent] {
      do throws(SettingsError) {
        try store.setValue("written", forKey: "alpha", in: layer)
        context.expect(
          !source.isForced, "a write of the forced key 'alpha' to the \(layer) layer was accepted")
        context.expect(
          source.isForced || store.value(forKey: "alpha") == "written",
          "after a write to the \(layer) layer, 'alpha' reads \(describe(store.value(forKey: "alpha")))"
        )
      } catch {
        context.expect(
          source.isForced,
          "a write of 'alpha' to the \(layer) layer threw \(error), though not forced")
        context.expect(
          error.code == forcedValue,
          "a write of the forced key 'alpha' threw \(error.code), not forcedValue")
      }
      try? store.setValue(nil, forKey: "alpha", in: layer)
    }
    if source.isForced {
      context.expect(
        store.value(forKey: "alpha") == value,
        "after refused writes, 'alpha' reads \(describe(store.value(forKey: "alpha")))")
    }
    do {
      try store.setValue("written", forKey: "not.in.the.source")
    } catch {
      context.fail("a write of a key the source doesn't hold threw \(error)")
    }
  }

  static let aReportedChangeDeliversOneEventPerKeyWhoseValueChanged = Check(
    name: "aReportedChangeDeliversOneEventPerKeyWhoseValueChanged", needsChange: true
  ) { context in
    let one = try context.value(1, text: "1")
    let two = try context.value(2, text: "2")
    let three = try context.value(3, text: "3")
    let twenty = try context.value(20, text: "20")
    let four = try context.value(4, text: "4")
    let source = try context.makeSource(["alpha": one, "beta": two, "gamma": three])
    let store = try context.store(layers: [.runtime, .persistent, .source(source)], watching: true)
    let events = Locked<[SettingsChange]>([])
    let token = store.observe(keys: ["alpha", "beta", "gamma", "delta", "sentinel"]) { change in
      events.withLock { $0.append(change) }
    }
    defer { token.cancel() }
    try await context.change(source, to: ["alpha": one, "beta": twenty, "delta": four])
    // The value of 'sentinel' shows that the store has taken in both changes: any event of
    // the first change would have come before it.
    try await context.change(
      source, to: ["alpha": one, "beta": twenty, "delta": four, "sentinel": one])
    let arrived = await context.wait(until: "the store delivers the changed keys") {
      events.withLock { events in
        events.contains { $0.key == "sentinel" }
          && Set(events.map(\.key)).isSuperset(of: ["beta", "gamma", "delta"])
      }
    }
    guard arrived else { return }
    let seen = events.withLock { $0 }.filter { $0.key != "sentinel" }
      .sorted { $0.key < $1.key }
    let expected = [
      SettingsChange(key: "beta", newValue: twenty), SettingsChange(key: "delta", newValue: four),
      SettingsChange(key: "gamma", newValue: nil),
    ]
    context.expect(
      seen == expected,
      "the store delivered \(seen), not one event each for beta, delta and gamma (and none for alpha)"
    )
  }

  static let removingAKeyFromTheSourceLetsThePersistentValueShow = Check(
    name: "removingAKeyFromTheSourceLetsThePersistentValueShow", needsChange: true
  ) { context in
    let value = try context.value("source", text: "source")
    let source = try context.makeSource(["alpha": value, "beta": value])
    let store = try context.store(
      layers: [.runtime, .source(source), .persistent], persistent: ["alpha": "persistent"],
      watching: true)
    context.expect(
      store.value(forKey: "alpha") == value,
      "the source above the persistent layer doesn't win: 'alpha' reads \(describe(store.value(forKey: "alpha")))"
    )
    let events = Locked<[SettingsChange]>([])
    let token = store.observe(key: "alpha") { change in events.withLock { $0.append(change) } }
    defer { token.cancel() }
    try await context.change(source, to: ["beta": value])
    let shown = await context.wait(until: "'alpha' reads the persistent layer's value") {
      store.value(forKey: "alpha") == "persistent"
        && !events.withLock { $0 }.isEmpty
    }
    guard shown else { return }
    let seen = events.withLock { $0 }
    context.expect(
      seen == [SettingsChange(key: "alpha", newValue: "persistent")],
      "an observer of 'alpha' saw \(seen), not one change to the persistent value")
    context.expect(
      store.layer(forKey: "alpha") == .persistent,
      "'alpha' comes from \(store.layer(forKey: "alpha").map { "\($0)" } ?? "nil"), not persistent")
  }

  /// A value for a message, cut short: never print a huge value.
  static func describe(_ value: PropertyListValue?) -> String {
    guard let value else { return "nil" }
    let text = "\(value)"
    return text.count > 120 ? String(text.prefix(117)) + "..." : text
  }
}
