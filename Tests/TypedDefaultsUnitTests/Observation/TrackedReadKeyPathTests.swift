#if canImport(Observation)
  import Foundation
  import Observation
  import Testing
  import TypedDefaultsTestSupport

  @testable import TypedDefaults

  /// The settings the tests below track.
  private struct TrackedSettings: SettingsGroup {
    @Setting var volume = 0
    @Setting var title = ""
  }

  /// A setting's accesses name its probe's key path until it is first read inside tracking, then
  /// a stored member's, which Observation hashes faster (``SettingObservable``): trackers of
  /// either kind, and one that read the setting under both, are told of each change once.
  @Suite struct TrackedReadKeyPathTests {
    /// The observable behind a setting of a model.
    private func observable(of setting: Setting<Int>) throws -> SettingObservable {
      let pointer = try #require(setting.storage.observablePointer)
      return Unmanaged<SettingObservable>.fromOpaque(pointer).takeUnretainedValue()
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test func accessesNameTheMemberOnceTrackingHasStarted() throws {
      let settings = TrackedSettings(backend: InMemoryBackend())
      let observable = try observable(of: settings.$volume)
      _ = settings.volume
      #expect(!observable.accessesNameMember)
      let first = Received<Int>()
      _ = withObservationTracking {
        settings.volume
      } onChange: {
        first.append(1)
      }
      #expect(observable.accessesNameMember)
      // A tracker started before the switch (it named the probe) and one after (the member).
      let second = Received<Int>()
      _ = withObservationTracking {
        settings.volume
      } onChange: {
        second.append(2)
      }
      settings.volume = 5
      #expect(first.all == [1])
      #expect(second.all == [2])
      // Tracking again after the change: told of the next one.
      let third = Received<Int>()
      _ = withObservationTracking {
        settings.volume + settings.title.count
      } onChange: {
        third.append(3)
      }
      settings.volume = 6
      #expect(third.all == [3])
      settings.volume = 7
      #expect(third.all == [3])
    }

    /// The first tracked read switches the setting's accesses in the middle of the tracker's
    /// closure: the tracker named both key paths, and hears of the change once.
    @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
    @Test func aTrackerThatReadTheSettingUnderBothKeyPathsIsToldOnce() throws {
      let settings = TrackedSettings(backend: InMemoryBackend())
      let calls = Received<Int>()
      _ = withObservationTracking {
        settings.volume + settings.volume
      } onChange: {
        calls.append(1)
      }
      settings.volume = 1
      settings.volume = 2
      #expect(calls.all == [1])
    }
  }
#endif
