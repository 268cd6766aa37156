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
    guard data.starts(with: magic) else { return nil }
    return data.withUnsafeBytes { buffer in
      Scanner(bytes: buffer)?.expandedValueCount(limit: limit)
    }
  }

  private static let magic = Data("bplist00".utf8)

  /// The scan over one file's bytes.
  private struct Scanner {
    let bytes: UnsafeRawBufferPointer
    let trailer: Int
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let top: Int
    let tableStart: Int

    init?(bytes: UnsafeRawBufferPointer) {
      guard bytes.count >= 40 else { return nil }
      self.bytes = bytes
      trailer = bytes.count - 32
      offsetSize = Int(bytes[trailer + 6])
      referenceSize = Int(bytes[trailer + 7])
      guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
        let objectCount = Self.integer(bytes, at: trailer + 8, size: 8),
        let top = Self.integer(bytes, at: trailer + 16, size: 8),
        let tableStart = Self.integer(bytes, at: trailer + 24, size: 8),
        objectCount > 0, top < objectCount, tableStart <= trailer,
        objectCount <= (trailer - tableStart) / offsetSize
      else { return nil }
      self.objectCount = objectCount
      self.top = top
      self.tableStart = tableStart
    }

    /// Where an object's references start and how many it has (for a dictionary, its values
    /// only: keys are strings, not values of their own); 0 references for a scalar; `nil` if the
    /// object is malformed.
    func references(of object: Int) -> (start: Int, count: Int)? {
      guard let start = Self.integer(bytes, at: tableStart + object * offsetSize, size: offsetSize),
        start < trailer
      else { return nil }
      let marker = bytes[start]
      let kind = marker >> 4
      guard kind == 0xA || kind == 0xB || kind == 0xC || kind == 0xD else { return (0, 0) }
      var count = Int(marker & 0x0F)
      var cursor = start + 1
      if count == 0x0F {
        // The count follows as an integer object: 0x1n, then 2^n bytes.
        guard cursor < trailer, bytes[cursor] >> 4 == 0x1 else { return nil }
        let size = 1 << Int(bytes[cursor] & 0x0F)
        guard size <= 8, let value = Self.integer(bytes, at: cursor + 1, size: size) else {
          return nil
        }
        count = value
        cursor += 1 + size
      }
      if kind == 0xD {
        guard count <= (trailer - cursor) / referenceSize else { return nil }
        cursor += count * referenceSize  // skip the keys
      }
      guard count >= 0, count <= (trailer - cursor) / referenceSize else { return nil }
      return (cursor, count)
    }

    func reference(at position: Int) -> Int? {
      guard let object = Self.integer(bytes, at: position, size: referenceSize),
        object < objectCount
      else { return nil }
      return object
    }

    /// Depth-first with an explicit stack (files nest 100,000 levels deep), memoizing each
    /// object's expanded size; an object met again while on the stack is a cycle.
    func expandedValueCount(limit: Int) -> Int? {
      // 0: not visited; -1: on the stack; n > 0: expanded size n.
      var sizes = [Int](repeating: 0, count: objectCount)
      var stack: [(object: Int, start: Int, count: Int, next: Int, total: Int)] = []
      guard let root = references(of: top) else { return nil }
      sizes[top] = -1
      stack.append((top, root.start, root.count, 0, 1))
      while !stack.isEmpty {
        let index = stack.count - 1
        if stack[index].next == stack[index].count {
          let finished = stack.removeLast()
          sizes[finished.object] = finished.total
          if stack.isEmpty { return finished.total }
          stack[stack.count - 1].total = min(
            stack[stack.count - 1].total + finished.total, limit + 1)
          if stack[stack.count - 1].total > limit { return limit + 1 }
          continue
        }
        guard let child = reference(at: stack[index].start + stack[index].next * referenceSize)
        else { return nil }
        stack[index].next += 1
        switch sizes[child] {
        case -1:
          return nil  // a cycle
        case 0:
          guard let found = references(of: child) else { return nil }
          if found.count == 0 {
            sizes[child] = 1
            stack[index].total += 1
          } else {
            sizes[child] = -1
            stack.append((child, found.start, found.count, 0, 1))
          }
        default:
          stack[index].total = min(stack[index].total + sizes[child], limit + 1)
        }
        if stack[index].total > limit { return limit + 1 }
      }
      return nil
    }

    /// A big-endian unsigned integer of `size` bytes at `offset`, if it fits in the file and in
    /// `Int`.
    @inline(__always)
    static func integer(_ bytes: UnsafeRawBufferPointer, at offset: Int, size: Int) -> Int? {
      guard offset >= 0, size <= 8, offset <= bytes.count - size else { return nil }
      switch size {
      case 1:
        return Int(bytes[offset])
      case 2:
        return Int(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
      case 4:
        return Int(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
      case 8:
        return Int(
          exactly: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
      default:
        var value: UInt64 = 0
        for index in offset..<(offset + size) {
          value = value << 8 | UInt64(bytes[index])
        }
        return Int(exactly: value)
      }
    }
  }
}
