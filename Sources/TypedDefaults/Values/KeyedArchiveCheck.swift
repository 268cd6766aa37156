import Foundation

/// Checks stored bytes before they reach `NSKeyedUnarchiver`: a keyed archive is a binary
/// property list, and Foundation's unarchiver must only ever see one that the library's own
/// reader has read and whose every class is one the setting declared.
///
/// On Linux, swift-corelibs-foundation stops the process (`fatalError`) when a secure unarchiver
/// meets an object of a class its caller didn't allow (measured with Swift 6.3.1), and Apple's
/// raises an Objective-C exception for some malformed archives, which Swift can't catch. So
/// nothing is handed over that could make either do so:
///
/// - the bytes must be a binary property list our ``BinaryPropertyListReader`` reads (it refuses
///   cycles, sets, bad offsets and values past its limits);
/// - `PropertyListSerialization`, which the unarchiver reads them with, must read the same
///   value: a dictionary that holds a key twice keeps its first value in CoreFoundation and its
///   last in our reader, so an object whose `$class` appears twice was checked with one class
///   reference and decoded with the other. On Linux, a `$class` that refers to a string makes the
///   unarchiver force-unwrap `nil` while it words its error, which stops the process with
///   SIGILL (measured with Swift 6.3.1);
/// - the root must be a keyed archive: `$archiver` `NSKeyedArchiver`, `$objects` starting with
///   `$null`, `$top.root` a reference into `$objects`;
/// - every reference (`CF$UID`) anywhere must point into `$objects`;
/// - every object's `$class` must point at a class description (`$classname`, `$classes`) whose
///   name, and every name in its `$classhints`, is one of the allowed classes;
/// - an object that has a class may be referred to only as the root, unless more classes than
///   the root's are allowed;
/// - on Linux, no cycle of objects and no chain of nested objects longer than ``maximumNesting``
///   (the longest chain from the root, shared objects counted along every chain that reaches them).
///
/// On Linux this check stands in for secure coding, which `Archived` turns off there: with it on,
/// corelibs stops the process wherever an `init(coder:)`'s `decodeObject(of:forKey:)` meets an
/// allowed object of a class that call didn't name, and an archive may put one anywhere.
enum KeyedArchiveCheck {
  /// Why `data` can't be handed to `NSKeyedUnarchiver` for `allowedClassNames`, or `nil` if it
  /// can.
  ///
  /// - Parameters:
  ///   - data: The stored bytes.
  ///   - allowedClassNames: `NSStringFromClass` of each class the archive may contain; the
  ///     first is the root's.
  /// - Returns: A one-line reason, or `nil`.
  static func problem(in data: Data, allowedClassNames: [String]) -> String? {
    guard data.starts(with: Array("bplist00".utf8)) else {
      return "not a keyed archive (a keyed archive is a binary property list)"
    }
    let ours: PropertyListValue
    do {
      ours = try BinaryPropertyListReader.read(data, path: "archive").root
    } catch {
      return "not a readable binary property list: \(error.reason)"
    }
    // What the unarchiver will see: it reads the bytes with `PropertyListSerialization`, which
    // our reader has just found safe to parse. The two must agree: where they don't (a
    // dictionary holding a key twice, whose first value CoreFoundation keeps and our reader
    // doesn't), checking our reading would check an archive the unarchiver never decodes.
    let root: PropertyListValue
    do {
      root = try FoundationBridge.value(
        from: PropertyListSerialization.propertyList(from: data, format: nil))
    } catch {
      return "not a property list Foundation reads"
    }
    guard root == ours else {
      return "Foundation reads the archive differently from the bytes' plain reading "
        + "(a dictionary holding a key twice?)"
    }
    guard case .dictionary(let archive) = root,
      archive["$archiver"] == .string("NSKeyedArchiver"),
      case .array(let objects)? = archive["$objects"], objects.first == .string("$null"),
      case .dictionary(let top)? = archive["$top"], let rootIndex = uid(top["root"])
    else { return "not a keyed archive ($archiver, $objects or $top.root missing)" }
    guard objects.indices.contains(rootIndex), rootIndex != 0 else {
      return "the archive's root refers to no object"
    }
    let allowed = Set(allowedClassNames)
    var classBearing: Set<Int> = []
    var references: [Int] = []
    // The objects each object refers to (its class description left out).
    var edges = [[Int]](repeating: [], count: objects.count)
    for (index, object) in objects.enumerated() {
      let start = references.count
      defer { edges[index] = Array(references[start...]) }
      guard case .dictionary(let fields) = object else {
        collectReferences(in: object, into: &references)
        continue
      }
      for (key, value) in fields {
        if key == "$class" {
          guard let classIndex = uid(value), objects.indices.contains(classIndex),
            case .dictionary(let description) = objects[classIndex],
            case .string(let name)? = description["$classname"],
            case .array? = description["$classes"]
          else { return "object \(index) has no valid class description" }
          guard allowed.contains(name) else {
            return "the archive holds an object of class \(name), which the setting does not allow"
          }
          // The unarchiver falls back to these when it can't find `$classname`'s class.
          if let hints = description["$classhints"] {
            guard case .array(let names) = hints,
              names.allSatisfy({ $0.stringValue.map(allowed.contains) ?? false })
            else { return "object \(index) has class hints the setting does not allow" }
          }
          classBearing.insert(index)
        } else {
          collectReferences(in: value, into: &references)
        }
      }
    }
    for reference in references where !objects.indices.contains(reference) {
      return "a reference points past the archive's \(objects.count) objects"
    }
    guard classBearing.contains(rootIndex) else { return "the archive's root has no class" }
    if allowed.count == 1 {
      if classBearing.count > 1 || references.contains(rootIndex) {
        return "the archive holds objects nested where the setting allows only its root class"
      }
    }
    #if !canImport(Darwin)
      if let problem = cycleOrDepthProblem(from: rootIndex, edges: edges) { return problem }
    #endif
    return nil
  }

  /// The longest chain of nested objects (the root included) the unarchiver is given: it decodes
  /// nested objects recursively, on the caller's stack.
  static let maximumNesting = 256

  /// On Linux, refuses objects that refer to each other in a cycle reachable from the root (corelibs
  /// caches an object only once its `init(coder:)` returns, so a cycle recurses until the stack
  /// overflows) and chains of nested objects longer than ``maximumNesting``.
  ///
  /// An iterative depth-first walk, so hostile archives can't exhaust this check's stack either.
  ///
  /// The chain measured is the longest one from the root, not the walk's own path: objects may be
  /// shared, and the unarchiver may first reach a shared object through a longer chain than the
  /// walk did (it follows the order `init(coder:)` decodes keys in, the walk the dictionary's).
  /// Measuring the walk's path let an archive of 200-object chains, each shared object reached
  /// early by the walk and last by the unarchiver, nest 10,000 deep and overflow the stack.
  private static func cycleOrDepthProblem(from root: Int, edges: [[Int]]) -> String? {
    // 0: not seen; 1: on the current path; 2: done.
    var state = [UInt8](repeating: 0, count: edges.count)
    // For each done object, the longest chain of objects that starts with it.
    var longest = [Int](repeating: 0, count: edges.count)
    var path: [(node: Int, next: Int)] = [(root, 0)]
    state[root] = 1
    while let (node, next) = path.last {
      guard next < edges[node].count else {
        // The path down to this object, then the longest chain below it: a chain the unarchiver
        // can be made to follow.
        longest[node] = 1 + (edges[node].lazy.map { $0 == 0 ? 0 : longest[$0] }.max() ?? 0)
        guard path.count - 1 + longest[node] <= maximumNesting else {
          return "objects are nested more than \(maximumNesting) deep"
        }
        state[node] = 2
        path.removeLast()
        continue
      }
      path[path.count - 1].next += 1
      let child = edges[node][next]
      guard child != 0 else { continue }  // `$null`
      switch state[child] {
      case 1: return "objects \(node) and \(child) refer to each other in a cycle"
      case 2: continue
      default:
        guard path.count < maximumNesting else {
          return "objects are nested more than \(maximumNesting) deep"
        }
        state[child] = 1
        path.append((child, 0))
      }
    }
    return nil
  }

  /// The index a keyed-archiver reference (`["CF$UID": n]`) holds.
  private static func uid(_ value: PropertyListValue?) -> Int? {
    guard case .dictionary(let entry)? = value, entry.count == 1,
      case .integer(let index)? = entry["CF$UID"]
    else { return nil }
    return Int(exactly: index.int64Value ?? -1).flatMap { $0 >= 0 ? $0 : nil }
  }

  private static func collectReferences(in value: PropertyListValue, into references: inout [Int]) {
    if let index = uid(value) {
      references.append(index)
      return
    }
    switch value {
    case .array(let elements):
      for element in elements { collectReferences(in: element, into: &references) }
    case .dictionary(let entries):
      for entry in entries.values { collectReferences(in: entry, into: &references) }
    default:
      break
    }
  }
}
