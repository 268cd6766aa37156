// SettingsProbe legit-binding <case>   (declares and creates models the way users do, several
//   times each; prints "ok <case>" and exits 0. A case stopped by the bind-once check
//   (SettingsValidation+BindingOnce.swift) would exit with a fatal error: a false positive)
//
// Cases: class-group-default, struct-model-copies, nested-three-deep, group-init-backend-nested,
//   group-init-backend-two-deep, subclass-chain, testing-scope, generic-model, concurrent,
//   readme-examples, group-on-view

import Foundation
import TypedDefaults
import TypedDefaultsTesting

private struct LegitLevel3: SettingsGroup {
  @Setting var depth3 = 3
}

private struct LegitLevel2: SettingsGroup {
  @Setting var depth2 = 2
  var level3 = LegitLevel3()
}

private struct LegitLevel1: SettingsGroup {
  @Setting var depth1 = 1
  var level2 = LegitLevel2()
}

private struct LegitPlaybackGroup: SettingsGroup {
  @Setting var volume = 0.5
  @Setting("autoplay", default: true) var autoplay: Bool
}

/// A class model whose group property has a default value.
private final class ClassWithGroupDefault: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting or a group of them.
  @Setting var theme = "light"
  var playback = LegitPlaybackGroup()
  let level1 = LegitLevel1()
}

/// A struct model with nested groups.
private struct StructModel: SettingsGroup {
  static let keyPrefix = "com.example.struct."
  @Setting var name = "n"
  var playback = LegitPlaybackGroup()
  var level1 = LegitLevel1()
}

/// A model creating a group with init(backend:) and nesting it (the documented legitimate case).
private final class CreatesItsGroup: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a group of @Settings, set in init.
  let playback: LegitPlaybackGroup
  var level1: LegitLevel1

  override init(backend: any SettingsBackend) {
    playback = LegitPlaybackGroup(backend: backend)
    var level1 = LegitLevel1()
    level1.level2 = LegitLevel2(backend: backend)
    self.level1 = level1
    super.init(backend: backend)
  }
}

/// A group created with init(backend:) whose nested group is two deep, nested in a model.
private final class CreatesADeepGroup: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a group of @Settings, set in init.
  let level1: LegitLevel1

  override init(backend: any SettingsBackend) {
    level1 = LegitLevel1(backend: backend)
    super.init(backend: backend)
  }
}

private class ChainBase: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting or a group of them.
  @Setting var base = 0
  var playback = LegitPlaybackGroup()
}

private class ChainMiddle: ChainBase, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting or a group of them.
  @Setting var middle = 1
  let level1: LegitLevel1

  override init(backend: any SettingsBackend) {
    level1 = LegitLevel1(backend: backend)
    super.init(backend: backend)
  }
}

private final class ChainLeaf: ChainMiddle, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting or a group of them.
  @Setting var leaf = 2
  var level3 = LegitLevel3()
}

private class GenericModel<Tag>: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting or a group of them.
  @Setting var count = 0
  var playback = LegitPlaybackGroup()
}

// The README's and the DocC root's model declarations.
private final class VideoPlayerSettings: SettingsModel, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a @Setting.
  @Setting var allowsCellularPlayback = false
  @Setting("volume", default: 0.8) var volume: Double

  static let shared = VideoPlayerSettings(backend: InMemoryBackend(name: "shared"))
}

private struct PlayerGroup: SettingsGroup {
  @Setting var allowsCellularPlayback = false
  @Setting("volume", default: 0.8) var volume: Double

  static let shared = PlayerGroup(backend: InMemoryBackend(name: "shared group"))
}

/// Runs a `legit-binding` mode; `false` for other arguments.
func runLegitBindingMode(_ arguments: [String]) -> Bool {
  guard arguments.first == "legit-binding", arguments.count == 2 else { return false }
  let backend = InMemoryBackend(name: "legit")
  switch arguments[1] {
  case "class-group-default":
    var models: [ClassWithGroupDefault] = []
    for index in 0..<5 {
      let model = ClassWithGroupDefault(
        backend: index.isMultiple(of: 2) ? backend : InMemoryBackend())
      model.playback.volume = Double(index)
      model.level1.level2.level3.depth3 = index
      models.append(model)
    }
    print(models.map(\.playback.volume), models.map(\.level1.level2.level3.depth3))
  case "struct-model-copies":
    let first = StructModel(backend: backend)
    let copy = first
    copy.playback.volume = 0.9
    var second = StructModel(backend: backend)
    second = StructModel(backend: InMemoryBackend())
    let third = StructModel(backend: backend)
    print(first.playback.volume, second.playback.volume, third.playback.volume)
  case "nested-three-deep":
    for _ in 0..<3 {
      let group = LegitLevel1(backend: backend)
      group.level2.level3.depth3 += 1
      print(group.level2.level3.depth3, group.level2.level3.$depth3.key)
    }
  case "group-init-backend-nested":
    for _ in 0..<3 {
      let model = CreatesItsGroup(backend: backend)
      model.playback.volume += 0.1
      print(model.playback.$volume.key, model.level1.level2.$depth2.key)
    }
  case "group-init-backend-two-deep":
    for _ in 0..<3 {
      let model = CreatesADeepGroup(backend: backend)
      print(model.level1.level2.level3.$depth3.key)
    }
  case "subclass-chain":
    for _ in 0..<3 {
      print(ChainLeaf(backend: backend).allSettings.map(\.key))
      print(ChainMiddle(backend: backend).allSettings.count, ChainBase(backend: backend).base)
    }
  case "testing-scope":
    let outside = ClassWithGroupDefault(backend: backend)
    SettingsTesting.withBackend {
      let inside = ClassWithGroupDefault(backend: backend)
      inside.playback.volume = 0.1
      _ = CreatesItsGroup(backend: backend)
      _ = VideoPlayerSettings.shared.volume
      _ = PlayerGroup.shared.volume
    }
    let after = ClassWithGroupDefault(backend: backend)
    print(outside.playback.volume, after.playback.volume)
  case "generic-model":
    for _ in 0..<3 {
      print(GenericModel<Int>(backend: backend).allSettings.map(\.key))
      print(GenericModel<String>(backend: backend).playback.volume)
    }
  case "concurrent":
    DispatchQueue.concurrentPerform(iterations: 64) { index in
      let model = ClassWithGroupDefault(backend: backend)
      model.playback.volume = Double(index)
      _ = CreatesItsGroup(backend: backend).playback.volume
      _ = StructModel(backend: backend).level1.level2.level3.depth3
    }
  case "readme-examples":
    VideoPlayerSettings.shared.volume = 0.5
    PlayerGroup.shared.volume = 0.5
    let copy = PlayerGroup.shared
    print(copy.volume, VideoPlayerSettings.shared.volume)
  case "group-on-view":
    let view = backend.scoped(to: "com.example.")
    for _ in 0..<3 {
      let model = CreatesItsGroup(backend: view)
      print(model.playback.$volume.key, ClassWithGroupDefault(backend: view).playback.volume)
    }
  default:
    fail("unknown legit-binding case '\(arguments[1])'")
  }
  print("ok \(arguments[1])")
  return true
}
