import Foundation

/// A look at a binary property list's object graph before Foundation parses it.
///
/// In a binary property list one array or dictionary can be referred to from many places, so a
/// few hundred bytes can describe billions of values (each array holding the next one twice, 40
/// levels deep). `PropertyListSerialization` expands every reference, taking minutes and gigabytes
/// on such a file, before the library could refuse it. This scan reads only the offset table and
/// the container headers, computes how many values the file expands to, and stops at a budget,
/// in time proportional to the file's size. It validates nothing else: a file it can't make sense
/// of is left to Foundation, which reports it.
enum BinaryPropertyListScan {
  /// The number of values the file expands to, capped at `limit + 1`; `nil` if the file isn't a
  /// binary property list this scan understands (Foundation will say why) or has a cycle (which
  /// Foundation refuses).
  static func expandedValueCount(of data: Data, limit: Int) -> Int? {
    let bytes = [UInt8](data)
    guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else { return nil }
    let trailer = bytes.count - 32
    let offsetSize = Int(bytes[trailer + 6])
    let referenceSize = Int(bytes[trailer + 7])
    guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
      let objectCount = integer(bytes, at: trailer + 8, size: 8),
      let top = integer(bytes, at: trailer + 16, size: 8),
      let tableStart = integer(bytes, at: trailer + 24, size: 8),
      objectCount > 0, top < objectCount, tableStart <= trailer,
      objectCount <= (trailer - tableStart) / offsetSize
    else { return nil }

    func offset(of object: Int) -> Int? {
      integer(bytes, at: tableStart + object * offsetSize, size: offsetSize)
    }

    /// The objects a container refers to (for a dictionary, its values only: keys are strings,
    /// not values of their own); `[]` for a scalar; `nil` if malformed.
    func children(of object: Int) -> [Int]? {
      guard let start = offset(of: object), start < trailer else { return nil }
      let marker = bytes[start]
      let kind = marker >> 4
      guard kind == 0xA || kind == 0xB || kind == 0xC || kind == 0xD else { return [] }
      var count = Int(marker & 0x0F)
      var cursor = start + 1
      if count == 0x0F {
        // The count follows as an integer object: 0x1n, then 2^n bytes.
        guard cursor < trailer, bytes[cursor] >> 4 == 0x1 else { return nil }
        let size = 1 << Int(bytes[cursor] & 0x0F)
        guard size <= 8, let value = integer(bytes, at: cursor + 1, size: size) else { return nil }
        count = value
        cursor += 1 + size
      }
      if kind == 0xD { cursor += count * referenceSize }  // skip the keys
      guard count >= 0, count <= (trailer - cursor) / referenceSize else { return nil }
      var references: [Int] = []
      references.reserveCapacity(count)
      for index in 0..<count {
        guard
          let reference = integer(bytes, at: cursor + index * referenceSize, size: referenceSize),
          reference < objectCount
        else { return nil }
        references.append(reference)
      }
      return references
    }

    // Depth-first with an explicit stack (files nest 100,000 levels deep), memoizing each
    // object's expanded size; an object met again while on the stack is a cycle.
    enum State { case unvisited, inProgress, done(Int) }
    var states = [State](repeating: .unvisited, count: objectCount)
    var stack: [(object: Int, children: [Int], next: Int, total: Int)] = []
    func push(_ object: Int) -> Bool {
      guard let found = children(of: object) else { return false }
      states[object] = .inProgress
      stack.append((object, found, 0, 1))
      return true
    }
    guard push(top) else { return nil }
    while var frame = stack.popLast() {
      if frame.next == frame.children.count {
        states[frame.object] = .done(frame.total)
        if var parent = stack.popLast() {
          parent.total = min(parent.total + frame.total, limit + 1)
          stack.append(parent)
          continue
        }
        return frame.total
      }
      let child = frame.children[frame.next]
      frame.next += 1
      switch states[child] {
      case .done(let size):
        frame.total = min(frame.total + size, limit + 1)
        stack.append(frame)
      case .inProgress:
        return nil
      case .unvisited:
        stack.append(frame)
        guard push(child) else { return nil }
      }
      if frame.total > limit { return limit + 1 }
    }
    return nil
  }

  /// A big-endian unsigned integer of `size` bytes at `offset`, if it fits in the file and in `Int`.
  private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
    guard offset >= 0, size <= 8, offset <= bytes.count - size else { return nil }
    var value: UInt64 = 0
    for index in offset..<(offset + size) {
      value = value << 8 | UInt64(bytes[index])
    }
    return Int(exactly: value)
  }
}
