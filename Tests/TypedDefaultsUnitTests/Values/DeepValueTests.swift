import Foundation
import Testing
import TypedDefaultsTestSupport

@testable import TypedDefaults

/// Whether ThreadSanitizer's runtime is loaded in this process (its entry point is defined).
#if canImport(Darwin)
  private let underThreadSanitizer =
    dlsym(UnsafeMutableRawPointer(bitPattern: -2), "__tsan_init") != nil
#else
  private let underThreadSanitizer = dlsym(nil, "__tsan_init") != nil
#endif

/// No value, however deep, crashes: the encoder and the decoder check their depth while
/// descending, and every walk of the deepest value a file can hold fits a small thread's stack
/// (512 KiB: a Dispatch worker on Linux, a secondary thread on Apple platforms).
///
/// Not under ThreadSanitizer: its instrumented frames are several times larger, so the stack
/// budgets these tests check (48 levels on the calling thread, 511 freed on a 512 KiB one) are
/// not the ones a program runs with.
@Suite(.disabled(if: underThreadSanitizer, "stack budgets differ under TSan"))
struct DeepValueTests {
  /// A linked list of nodes: its synthesized `Codable` nests one keyed container per node.
  final class Chain: Codable, SettingValue, @unchecked Sendable {  // Safe: built, then only read.
    var next: Chain?
    var number = 1

    init(next: Chain?) {
      self.next = next
    }

    static func make(length: Int) -> Chain {
      var head = Chain(next: nil)
      for _ in 1..<length { head = Chain(next: head) }
      return head
    }

    /// The number of nodes, counted without recursion.
    var length: Int {
      var count = 0
      var node: Chain? = self
      while let current = node {
        count += 1
        node = current.next
      }
      return count
    }

    /// Unlinks the nodes one by one, so that freeing a long chain doesn't recurse.
    static func tearDown(_ chain: Chain) {
      var node: Chain? = chain
      while let current = node {
        node = current.next
        current.next = nil
      }
    }
  }

  /// A type that wraps itself through a single-value container: one `encode(to:)` call per level
  /// and no container at all.
  final class Wrapper: Codable, @unchecked Sendable {  // Safe: built, then only read.
    var inner: Wrapper?

    init(inner: Wrapper?) {
      self.inner = inner
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      inner = (try? container.decode(Int.self)) == nil ? try container.decode(Wrapper.self) : nil
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      if let inner { try container.encode(inner) } else { try container.encode(0) }
    }

    /// Unlinks the wrappers one by one, so that freeing a long chain doesn't recurse.
    static func tearDown(_ wrapper: Wrapper) {
      var node: Wrapper? = wrapper
      while let current = node {
        node = current.inner
        current.inner = nil
      }
    }
  }

  /// Runs `body` on a thread with a 512 KiB stack and returns its result.
  static func onSmallStack<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Result {
    let result = Locked<Result?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      result.withLock { $0 = body() }
      done.signal()
    }
    thread.stackSize = 512 << 10
    thread.start()
    done.wait()
    return result.withLock { $0 }!
  }

  /// Runs `body` on a thread with a 64 MiB stack: where a test builds and frees a value too deep
  /// for Swift to free on a small stack (releasing nested enums recurses once per level).
  static func onLargeStack(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      body()
      done.signal()
    }
    thread.stackSize = 64 << 20
    thread.start()
    done.wait()
  }

  /// Why `value` can't be encoded on a small stack, or `nil` if it can.
  static func encodingFailure(of value: some Encodable & Sendable) -> String? {
    onSmallStack { () -> String? in
      do {
        _ = try PropertyListValueEncoder().encode(value)
        return nil
      } catch {
        return "\(error)"
      }
    }
  }

  /// Values too deep for Swift to free on a small stack (nested enums are released recursively,
  /// and a sanitizer's frames are large): a test keeps them here, and ``freeOnLargeStack(_:)``
  /// releases them on a large one.
  typealias Graveyard = Locked<[PropertyListValue]>

  static func freeOnLargeStack(_ graveyard: Graveyard) {
    onLargeStack { graveyard.withLock { $0.removeAll() } }
  }

  /// An array nested `depth` levels, built without recursion.
  static func nestedArrays(depth: Int) -> PropertyListValue {
    var value = PropertyListValue.array([])
    for _ in 1..<depth { value = .array([value]) }
    return value
  }

  @Test func aCodableValue100000LevelsDeepIsRefusedNotACrash() {
    let chain = Chain.make(length: 100_000)
    defer { Chain.tearDown(chain) }
    let failure = Self.encodingFailure(of: chain)
    #expect(failure?.contains("nested more than 512 levels deep") == true, "\(failure ?? "nil")")
  }

  @Test func aValueWrappingItself100000TimesIsRefusedNotACrash() {
    var wrapper = Wrapper(inner: nil)
    for _ in 0..<100_000 { wrapper = Wrapper(inner: wrapper) }
    let value = wrapper
    defer { Wrapper.tearDown(value) }
    let failure = Self.encodingFailure(of: value)
    #expect(failure?.contains("coding calls more than 2048") == true, "\(failure ?? "nil")")
  }

  @Test func aCodableValueAtTheLimitRoundTripsOnASmallStack() throws {
    // 511 nodes: the last node's dictionary is the 511th container, as deep as a setting's value
    // may nest under a file's root dictionary.
    let chain = Chain.make(length: 511)
    defer { Chain.tearDown(chain) }
    let graveyard = Graveyard([])
    defer { Self.freeOnLargeStack(graveyard) }
    let lengths = Self.onSmallStack { () -> [Int] in
      guard let encoded = try? PropertyListValueEncoder().encode(chain),
        let decoded = try? PropertyListValueDecoder().decode(Chain.self, from: encoded)
      else { return [] }
      defer { Chain.tearDown(decoded) }
      graveyard.withLock { $0.append(encoded) }
      var depth = 0
      var value: PropertyListValue? = encoded
      while case .dictionary(let entries)? = value {
        depth += 1
        value = entries["next"]
      }
      return [depth, decoded.length]
    }
    #expect(lengths == [511, 511])
  }

  @Test func aSettingRefusesAValueTooDeepToStoreAndKeepsItsValue() {
    final class Model: SettingsModel, @unchecked Sendable {
      @Setting var chain = Chain(next: nil)
    }
    let model = Model(backend: InMemoryBackend())
    let deep = Chain.make(length: 600)
    defer { Chain.tearDown(deep) }
    let outcome = Self.onSmallStack { () -> String in
      do {
        try model.$chain.set(deep)
        return "stored"
      } catch {
        return (error as? SettingsError)?.code == .valueNotRepresentable ? "refused" : "\(error)"
      }
    }
    #expect(outcome == "refused")
    #expect(model.$chain.storedValue == nil)
  }

  @Test func aHandBuiltValueTooDeepToDecodeThrowsNotACrash() {
    // Swift frees nested enums recursively: the value is built and freed on a large stack.
    let deep = Locked<PropertyListValue?>(nil)
    Self.onLargeStack { deep.withLock { $0 = Self.nestedArrays(depth: 3_000) } }
    defer { Self.onLargeStack { deep.withLock { $0 = nil } } }
    let failure = Self.onSmallStack { () -> String? in
      guard let value = deep.withLock({ $0 }) else { return "no value" }
      do {
        let decoded = try PropertyListValueDecoder().decode(Wrapper.self, from: value)
        Wrapper.tearDown(decoded)
        return nil
      } catch {
        return "\(error)"
      }
    }
    #expect(failure?.contains("coding calls more than 2048") == true, "\(failure ?? "nil")")
  }

  @Test func aHandBuiltValue100000LevelsDeepIsRefusedByEveryWriteNotACrash() throws {
    let deep = Locked<PropertyListValue?>(nil)
    Self.onLargeStack { deep.withLock { $0 = Self.nestedArrays(depth: 100_000) } }
    defer { Self.onLargeStack { deep.withLock { $0 = nil } } }
    let results = Self.onSmallStack { () -> [String] in
      guard let value = deep.withLock({ $0 }) else { return [] }
      var results: [String] = []
      do {
        try InMemoryBackend().setValue(value, forKey: "deep")
        results.append("stored")
      } catch {
        results.append((error as? SettingsError)?.reason ?? "\(error)")
      }
      do {
        _ = try PropertyListFile.encode(.dictionary(["deep": value]), format: .binary)
        results.append("encoded")
      } catch {
        results.append((error as? SettingsError)?.reason ?? "\(error)")
      }
      let description = value.description
      results.append(
        description.hasSuffix("(...)" + String(repeating: ")", count: 512))
          ? "described" : description.suffix(20) + "")
      return results
    }
    #expect(
      results == [
        "It is nested more than 511 levels deep, deeper than can be read back",
        "It is nested more than 512 levels deep, deeper than can be read back",
        "described",
      ])
  }

  @Test func equalValuesHashTheSameWhateverTheirDictionaryOrder() {
    var forward: [String: PropertyListValue] = [:]
    var backward: [String: PropertyListValue] = [:]
    for index in 0..<100 { forward["k\(index)"] = .array([.integer(.init(Int64(index)))]) }
    for index in (0..<100).reversed() {
      backward["k\(index)"] = .array([.integer(.init(Int64(index)))])
    }
    let a = PropertyListValue.dictionary(forward)
    let b = PropertyListValue.dictionary(backward)
    #expect(a == b)
    #expect(a.hashValue == b.hashValue)
    #expect(Set([a, b, .real(0), .real(-0.0), .integer(0), .bool(false)]).count == 4)
    #expect(PropertyListValue.real(.nan) != .real(.nan))
  }

  @Test func theDeepestStorableValueIsWalkedOnASmallStack() throws {
    // 511 arrays: the deepest value a setting can hold.
    let graveyard = Graveyard([])
    defer { Self.freeOnLargeStack(graveyard) }
    Self.onLargeStack { graveyard.withLock { $0 = [Self.nestedArrays(depth: 511)] } }
    let directory = try TemporaryDirectory()
    let file = directory.file("deep.plist")
    let backend = InMemoryBackend()
    defer { Self.onLargeStack { backend.removeValue(forKey: "deep") } }
    let results = Self.onSmallStack { () -> [String] in
      // The graveyard holds the value until the end: no release here is the last.
      let value = graveyard.withLock { $0[0] }
      var results: [String] = []
      do {
        try backend.setValue(value, forKey: "deep")
        results.append(backend.value(forKey: "deep") == value ? "stored" : "changed")
      } catch {
        results.append("\(error)")
      }
      results.append(value.description.count > 1_000 ? "described" : "short")
      let twin = Self.nestedArrays(depth: 511)
      graveyard.withLock { $0.append(twin) }
      results.append(value.hashValue == twin.hashValue && value == twin ? "hashed" : "differs")
      do {
        try PropertyListFile(url: file).write(.dictionary(["deep": value]), format: .xml)
        let read = try PropertyListFile(url: file).readDictionary()
        if let read { graveyard.withLock { $0.append(.dictionary(read)) } }
        results.append(read?["deep"] == value ? "round trip" : "changed")
      } catch {
        results.append("\(error)")
      }
      do {
        try backend.setValue(.array([value]), forKey: "deeper")
        results.append("stored too deep")
      } catch {
        results.append((error as? SettingsError)?.reason ?? "\(error)")
      }
      return results
    }
    #expect(
      results == [
        "stored", "described", "hashed", "round trip",
        "It is nested more than 511 levels deep, deeper than can be read back",
      ])
  }
}
