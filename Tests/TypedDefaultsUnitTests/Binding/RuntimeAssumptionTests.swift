import Foundation
import Observation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

// What the read path and binding assume of the Swift runtime and of Swift Observation, pinned so
// that a toolchain that changes one fails here, saying what broke and what to do, rather than
// somewhere far away (swift-argument-parser's MirrorTests and SendableTests habit).

private enum PinnedQuality: String, SettingValue {
  case auto, high
}

private struct PinnedWindow: Codable, SettingValue, Equatable {
  var width = 0
}

private final class PinnedSettings: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting.
  @Setting var volume = 1
  @Setting var name = "x"
}

/// A bare `Observable` whose key path takes a `Hashable` argument, as `SettingObservable`'s does:
/// it counts how often Observation hashes the argument.
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
private final class HashCountingSubject: Observable, @unchecked Sendable {
  // @unchecked Sendable: `registrar` is Sendable, `hashes` is behind its lock.
  let registrar = ObservationRegistrar()
  let hashes = Locked(0)

  struct Argument: Hashable, @unchecked Sendable {
    // @unchecked Sendable: the subject is only used to count, behind its lock.
    let subject: HashCountingSubject

    static func == (lhs: Argument, rhs: Argument) -> Bool { lhs.subject === rhs.subject }

    func hash(into hasher: inout Hasher) {
      hasher.combine(ObjectIdentifier(subject))
      subject.hashes.withLock { $0 += 1 }
    }
  }

  subscript(argument argument: Argument) -> Int { 0 }
}

@Suite struct RuntimeAssumptionTests {
  // MARK: - A Setting begins with one reference to its storage

  private func expectOneReference<Value: SettingValue>(
    _ setting: Setting<Value>, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let why =
      "Setting<\(Value.self)> no longer begins with its one owning reference to its storage, "
      + "followed by the same address unretained: SettingsReflection.bind loads an "
      + "Unmanaged<UntypedSettingStorage> at each setting's field offset "
      + "(Binding/SettingsReflection.swift), which now reads the wrong bytes. Keep `storage` the "
      + "wrapper's first stored property, or bind through MirrorDiscovery instead"
    #expect(
      MemoryLayout<Setting<Value>>.size == 2 * MemoryLayout<UnsafeRawPointer>.size, "\(why)",
      sourceLocation: sourceLocation)
    #expect(
      MemoryLayout<Setting<Value>>.alignment == MemoryLayout<UnsafeRawPointer>.alignment,
      "\(why)", sourceLocation: sourceLocation)
    let (first, second) = withUnsafeBytes(of: setting) {
      (
        $0.load(as: Unmanaged<UntypedSettingStorage>.self).takeUnretainedValue(),
        $0.load(
          fromByteOffset: MemoryLayout<UnsafeRawPointer>.size,
          as: Unmanaged<UntypedSettingStorage>.self
        ).takeUnretainedValue()
      )
    }
    #expect(first === setting.storage, "\(why)", sourceLocation: sourceLocation)
    #expect(second === setting.storage, "\(why)", sourceLocation: sourceLocation)
  }

  @Test func aSettingOfEveryKindOfValueBeginsWithOneReferenceToItsStorage() {
    expectOneReference(Setting(wrappedValue: 1))
    expectOneReference(Setting(wrappedValue: 0.5))
    expectOneReference(Setting(wrappedValue: true))
    expectOneReference(Setting(wrappedValue: "x"))
    expectOneReference(Setting<Int?>())
    expectOneReference(Setting(wrappedValue: Date(timeIntervalSince1970: 0)))
    expectOneReference(Setting(wrappedValue: Data()))
    expectOneReference(Setting(wrappedValue: ["a"]))
    expectOneReference(Setting(wrappedValue: ["a": 1]))
    expectOneReference(Setting(wrappedValue: PinnedQuality.auto))
    expectOneReference(Setting(wrappedValue: PinnedWindow()))
    expectOneReference(Setting(default: { 3 }))
    expectOneReference(Setting(wrappedValue: 1, "own", backend: InMemoryBackend()))
  }

  // MARK: - Swift Observation hashes the key path inside the access

  /// The runtime behaviour the library's Swift Observation hook rests on, pinned without the
  /// library: while tracking, `ObservationRegistrar.access` hashes the key path it is given
  /// (it keeps the accessed key paths in a set) before it returns; outside tracking it doesn't.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  @Test func observationHashesAnAccessedKeyPathInsideTheAccessAndOnlyWhileTracking() {
    let subject = HashCountingSubject()
    let keyPath = \HashCountingSubject[argument: HashCountingSubject.Argument(subject: subject)]
    subject.registrar.access(subject, keyPath: keyPath)
    #expect(subject.hashes.withLock { $0 } == 0)
    let hashedInside = Locked(0)
    withObservationTracking {
      subject.registrar.access(subject, keyPath: keyPath)
      hashedInside.withLock { $0 = subject.hashes.withLock { $0 } }
    } onChange: {
    }
    #expect(
      hashedInside.withLock { $0 } > 0,
      """
      This toolchain's Swift Observation no longer hashes a key path inside \
      ObservationRegistrar.access while tracking. TypedDefaults starts observing a setting's key \
      when its key path is hashed (SwiftObservation/TrackingProbe.swift → \
      TrackingInterest.trackingStarted()), so SwiftUI views and withObservationTracking stop \
      being told of changes, and TrackingInterest's unowned(unsafe) binding may be reached after \
      its model is gone. Register the backend observer another way before shipping with this \
      toolchain (Docs/Design.md, "Swift Observation without the macro", lists the candidates \
      and their costs)
      """)
  }

  /// The same through the library: a setting read inside `withObservationTracking`, then
  /// written, calls `onChange` once, whoever writes.
  @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
  @Test func aSettingReadInsideTrackingAndThenWrittenCallsOnChange() throws {
    let backend = InMemoryBackend()
    let settings = PinnedSettings(backend: backend)
    let fired = Locked(0)
    _ = withObservationTracking {
      settings.volume
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    settings.name = "other key"
    #expect(fired.withLock { $0 } == 0)
    try backend.setValue(5, forKey: "volume")
    #expect(
      fired.withLock { $0 } == 1,
      """
      A write of a setting read inside withObservationTracking did not call onChange: the Swift \
      Observation hook (TrackingProbe.hash(into:) → TrackingInterest.trackingStarted()) did not \
      register the backend observer, so SwiftUI views of settings stop updating. If \
      observationHashesAnAccessedKeyPathInsideTheAccessAndOnlyWhileTracking fails too, the \
      toolchain changed (see its message); otherwise the hook is broken in the library
      """)
  }
}
