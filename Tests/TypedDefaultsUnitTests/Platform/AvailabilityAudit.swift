import Foundation

/// The availability audit of Docs/Design.md ("Availability audit"), as a check that runs on
/// Linux: every use of an API whose minimum OS is above the package's declared platforms must be
/// inside its gate, which only the Apple compilers would otherwise check.
///
/// It reads the sources as swift-format leaves them (the lint step enforces it): comments and
/// string literals are blanked first, and what encloses a line is found by indentation, which in
/// formatted code follows the braces and the `#if` blocks. A line's context is the line, the
/// attributes above it, every enclosing header (a declaration with its attributes, an `if` or
/// `guard`, an `#if` or `#elseif`) and the `guard #available` statements before it in its scope.
/// A rule's use is gated when its context holds an `@available` or `#available` whose version
/// for each of macOS, iOS, tvOS, watchOS and visionOS is at least the rule's (a platform a gate
/// doesn't name counts as the package's floor), and, for a rule that needs a module only some
/// systems have, an `#if canImport(Module)` (or `#elseif`).
struct AvailabilityAudit {
  /// A version, as `major.minor`.
  struct Version: Comparable, CustomStringConvertible {
    var major: Int
    var minor: Int

    init(_ major: Int, _ minor: Int = 0) {
      self.major = major
      self.minor = minor
    }

    /// Parses `15`, `15.0` or `15.4.1` (the patch is ignored).
    init?(parsing text: Substring) {
      let parts = text.split(separator: ".").map { Int($0) }
      guard let major = parts.first ?? nil else { return nil }
      self.init(major, parts.count > 1 ? (parts[1] ?? 0) : 0)
    }

    static func < (lhs: Version, rhs: Version) -> Bool {
      (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    var description: String { "\(major).\(minor)" }
  }

  /// The platforms a gate must cover, in Package.swift's order.
  static let platforms = ["macOS", "iOS", "tvOS", "watchOS", "visionOS"]
  /// The package's declared platforms (Package.swift): a version at or below these needs no gate.
  static let floor: [String: Version] = [
    "macOS": Version(13), "iOS": Version(16), "tvOS": Version(16), "watchOS": Version(9),
    "visionOS": Version(1),
  ]

  /// What a use needs: minimum versions, and a module that must be importable.
  struct Requirement: Sendable, CustomStringConvertible {
    /// The minimum version per platform; platforms not named need only the floor.
    var versions: [String: Version]
    /// The module the use needs `#if canImport(…)` for, if any.
    var module: String?
    /// Other `#if` conditions that imply the module (`os(Linux)` for Glibc).
    var orWhen: [String] = []

    var description: String {
      let listed = AvailabilityAudit.platforms.compactMap { platform in
        versions[platform].map { "\(platform) \($0)" }
      }
      let gate = listed.isEmpty ? "" : "@available/#available(\(listed.joined(separator: ", ")), *)"
      let condition = module.map { "#if canImport(\($0))" }
      return [condition, gate.isEmpty ? nil : gate].compactMap { $0 }.joined(separator: " and ")
    }
  }

  /// One kind of use: a pattern on a line of code, and what it needs.
  struct Rule: @unchecked Sendable {
    // @unchecked Sendable: the regex is immutable once made and only matched against.
    /// What the rule is about, as Design.md's audit names it.
    var name: String
    /// Text every match holds, checked first (matching a regex is slow).
    var literal: String
    var pattern: Regex<AnyRegexOutput>
    var requirement: Requirement?
    /// Whether any use is an error, gated or not (a module the library must never import).
    var forbidden = false

    init(
      _ name: String, _ literal: String, _ pattern: String, _ requirement: Requirement?,
      forbidden: Bool = false
    ) {
      self.name = name
      self.literal = literal
      // The patterns are the test's own literals: a bad one is a bug in the test.
      // Simple word boundaries: Unicode's would read `Pool.take` as one word.
      self.pattern = try! Regex(pattern).wordBoundaryKind(.simple)
      self.requirement = requirement
      self.forbidden = forbidden
    }
  }

  /// A use outside its gate.
  struct Finding: Equatable, CustomStringConvertible {
    var file: String
    /// 1-based.
    var line: Int
    var rule: String
    var code: String

    var description: String { "\(file):\(line): \(rule) outside its gate: \(code)" }
  }

  static let synchronization = Requirement(versions: [
    "macOS": Version(15), "iOS": Version(18), "tvOS": Version(18), "watchOS": Version(11),
    "visionOS": Version(2),
  ])
  static let observation = Requirement(
    versions: [
      "macOS": Version(14), "iOS": Version(17), "tvOS": Version(17), "watchOS": Version(10),
      "visionOS": Version(1),
    ], module: "Observation")
  static let swift62Runtime = Requirement(versions: [
    "macOS": Version(26), "iOS": Version(26), "tvOS": Version(26), "watchOS": Version(26),
    "visionOS": Version(26),
  ])
  static let combine = Requirement(versions: [:], module: "Combine")
  static let swift59Runtime = Requirement(versions: [
    "macOS": Version(14), "iOS": Version(17), "tvOS": Version(17), "watchOS": Version(10),
    "visionOS": Version(1),
  ])

  /// The APIs above the package's platforms that the library uses or could easily start to use,
  /// with their gates (from the standard library's, Synchronization's and Observation's
  /// interfaces: `@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)`
  /// and so on), and the modules the library may import only where they exist or never.
  static let rules: [Rule] = [
    Rule("Atomic", "Atomic", #"\bAtomic\s*[<(]"#, synchronization),
    Rule("Mutex", "Mutex", #"\bMutex\s*[<(]"#, synchronization),
    Rule(
      "AtomicLazyReference", "AtomicLazyReference", #"\bAtomicLazyReference\b"#, synchronization),
    Rule("atomicMemoryFence", "atomicMemoryFence", #"\batomicMemoryFence\s*\("#, synchronization),
    Rule("WordPair", "WordPair", #"\bWordPair\b"#, synchronization),
    Rule(
      "String(validating:as:)", "validating", #"String(\.init)?\s*\(\s*validating\s*:"#,
      synchronization),
    Rule("Int128", "Int128", #"\bU?Int128\b"#, synchronization),
    Rule("ObservationRegistrar", "ObservationRegistrar", #"\bObservationRegistrar\b"#, observation),
    Rule(
      "withObservationTracking", "withObservationTracking", #"\bwithObservationTracking\b"#,
      observation),
    Rule(
      "Observable", "Observable",
      #"[:,]\s*Observable\b|\b(any|some)\s+Observable\b|\bObservable\s*\.\s*(Type|Protocol)\b"#,
      observation),
    Rule(
      "Observations", "Observations", #"\bObservations\s*[({<]"#,
      Requirement(versions: swift62Runtime.versions, module: "Observation")),
    Rule("InlineArray", "InlineArray", #"\bInlineArray\b"#, swift62Runtime),
    Rule("Span", "Span", #"\b(Raw|Mutable|MutableRaw|UTF8)?Span\b"#, swift62Runtime),
    Rule("Task.immediate", "immediate", #"\bTask\s*\.\s*immediate"#, swift62Runtime),
    Rule(
      "DiscardingTaskGroup", "DiscardingTaskGroup", #"\b(with)?(Throwing)?DiscardingTaskGroup\b"#,
      swift59Runtime),
    Rule(
      "import Observation", "import", #"^\s*import\s+Observation\b"#,
      Requirement(versions: [:], module: "Observation")),
    Rule(
      "import Combine", "import", #"^\s*import\s+Combine\b"#,
      Requirement(versions: [:], module: "Combine")),
    Rule("Combine", "AnyPublisher", #"\bAnyPublisher\b"#, combine),
    Rule("Combine", "Subject", #"\b(PassthroughSubject|CurrentValueSubject)\b"#, combine),
    Rule("Combine", "AnyCancellable", #"\bAnyCancellable\b"#, combine),
    Rule("Combine", "Subscribers", #"\bSubscribers\b"#, combine),
    Rule("Combine", "Publisher", #"[:,]\s*Publisher\b"#, combine),
    Rule(
      "import SwiftUI", "import", #"^\s*import\s+(SwiftUI|UIKit|AppKit|WatchKit)\b"#, nil,
      forbidden: true),
    Rule(
      "import Darwin", "import", #"^\s*import\s+Darwin\b"#,
      Requirement(
        versions: [:], module: "Darwin",
        orWhen: ["os(macOS)", "os(iOS)", "os(tvOS)", "os(watchOS)", "os(visionOS)"])),
    Rule(
      "import Glibc", "import", #"^\s*import\s+Glibc\b"#,
      Requirement(versions: [:], module: "Glibc", orWhen: ["os(Linux)"])),
  ]

  /// What is audited: the library (every rule), or test targets, which may import SwiftUI where
  /// it exists and import Observation, which every toolchain they build with has.
  enum Scope {
    case library
    case tests
  }

  /// The rules for a scope.
  static func rules(for scope: Scope) -> [Rule] {
    switch scope {
    case .library:
      return rules
    case .tests:
      return rules.compactMap { rule in
        switch rule.name {
        case "import Observation": return nil
        case "import SwiftUI":
          return Rule(
            rule.name, "import", #"^\s*import\s+SwiftUI\b"#,
            Requirement(versions: [:], module: "SwiftUI"))
        default:
          // Observation's version gates still hold; its module needs no `#if` here.
          var rule = rule
          if rule.requirement?.module == "Observation" { rule.requirement?.module = nil }
          return rule
        }
      }
    }
  }

  /// What an audit found, and how much it looked at.
  struct Report {
    var findings: [Finding] = []
    /// The number of uses each rule matched, gated or not.
    var uses: [String: Int] = [:]
    /// The library's own declarations gated above the floor, by name, and their requirement.
    var gatedDeclarations: [String: Requirement] = [:]
  }

  // MARK: - Auditing

  /// Audits every `.swift` file under `folder`.
  ///
  /// - Parameters:
  ///   - folder: The folder to read (recursively).
  ///   - root: The folder file names are reported relative to.
  ///   - scope: Which rules apply.
  /// - Returns: The findings and counts.
  /// - Throws: What reading a file throws.
  static func audit(
    folder: URL, relativeTo root: URL, scope: Scope = .library
  ) throws -> Report {
    var files: [(name: String, text: String)] = []
    let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
    while let url = enumerator?.nextObject() as? URL {
      guard url.pathExtension == "swift" else { continue }
      let name = String(
        url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
      files.append((name, try String(contentsOf: url, encoding: .utf8)))
    }
    return audit(files.sorted { $0.name < $1.name }, scope: scope)
  }

  /// Audits source texts: first collects the declarations they gate above the floor, then checks
  /// every use of those and of ``rules``.
  ///
  /// - Parameters:
  ///   - files: Each file's name (for findings) and text.
  ///   - scope: Which rules apply.
  /// - Returns: The findings and counts.
  static func audit(_ files: [(name: String, text: String)], scope: Scope = .library) -> Report {
    var report = Report()
    let blanked = files.map { (name: $0.name, lines: codeLines($0.text)) }
    for file in blanked {
      report.gatedDeclarations.merge(gatedDeclarations(in: file.lines)) { $1 }
    }
    var rules = Self.rules(for: scope)
    for (name, requirement) in report.gatedDeclarations.sorted(by: { $0.key < $1.key }) {
      rules.append(Rule(name, name, #"\b\#(name)\b"#, requirement))
    }
    for file in blanked {
      for (index, line) in file.lines.enumerated() {
        for rule in rules
        where (rule.literal.isEmpty || line.contains(rule.literal)) && line.contains(rule.pattern) {
          if report.gatedDeclarations[rule.name] != nil, isDeclaration(of: rule.name, line) {
            continue
          }
          report.uses[rule.name, default: 0] += 1
          let gated =
            !rule.forbidden
            && rule.requirement.map { satisfies(context(of: index, in: file.lines), $0) } ?? true
          if !gated {
            report.findings.append(
              Finding(
                file: file.name, line: index + 1, rule: rule.name,
                code: line.trimmingCharacters(in: .whitespaces)))
          }
        }
      }
    }
    return report
  }

  // MARK: - Reading the code

  /// The text's lines with comments and the contents of string literals replaced by spaces
  /// (interpolations included), so that only code is matched.
  static func codeLines(_ text: String) -> [String] {
    enum Mode {
      case code(parens: Int)
      case string(multiline: Bool, hashes: Int)
    }
    let scalars = Array(text.unicodeScalars)
    var output = String.UnicodeScalarView()
    var modes: [Mode] = [.code(parens: 0)]
    var index = 0
    func at(_ offset: Int) -> Unicode.Scalar? {
      index + offset < scalars.count ? scalars[index + offset] : nil
    }
    func blank(_ count: Int) {
      for offset in 0..<count where index + offset < scalars.count {
        output.append(scalars[index + offset] == "\n" ? "\n" : " ")
      }
      index += count
    }
    func keep(_ count: Int) {
      for offset in 0..<count where index + offset < scalars.count {
        output.append(scalars[index + offset])
      }
      index += count
    }
    func hashes(from start: Int) -> Int {
      var count = 0
      while start + count < scalars.count, scalars[start + count] == "#" { count += 1 }
      return count
    }
    while index < scalars.count {
      switch modes[modes.count - 1] {
      case .code(let parens):
        let scalar = scalars[index]
        if scalar == "/", at(1) == "/" {
          while index < scalars.count, scalars[index] != "\n" { blank(1) }
        } else if scalar == "/", at(1) == "*" {
          var depth = 0
          repeat {
            if at(0) == "/", at(1) == "*" {
              depth += 1
              blank(2)
            } else if at(0) == "*", at(1) == "/" {
              depth -= 1
              blank(2)
            } else {
              blank(1)
            }
          } while depth > 0 && index < scalars.count
        } else if scalar == "#" || scalar == "\"" {
          let count = scalar == "#" ? hashes(from: index) : 0
          guard at(count) == "\"" else {
            keep(1)
            continue
          }
          let multiline = at(count + 1) == "\"" && at(count + 2) == "\""
          blank(count + (multiline ? 3 : 1))
          modes.append(.string(multiline: multiline, hashes: count))
        } else if scalar == "(" {
          modes[modes.count - 1] = .code(parens: parens + 1)
          keep(1)
        } else if scalar == ")", modes.count > 1 {
          if parens == 0 {
            modes.removeLast()  // the end of an interpolation
            blank(1)
          } else {
            modes[modes.count - 1] = .code(parens: parens - 1)
            keep(1)
          }
        } else if scalar == ")" {
          modes[modes.count - 1] = .code(parens: max(parens - 1, 0))
          keep(1)
        } else {
          keep(1)
        }
      case .string(let multiline, let count):
        let scalar = scalars[index]
        if scalar == "\\", hashes(from: index + 1) == count {
          if at(count + 1) == "(" {
            blank(count + 2)
            modes.append(.code(parens: 0))
          } else {
            blank(count + 2)
          }
        } else if scalar == "\"",
          !multiline || (at(1) == "\"" && at(2) == "\""),
          hashes(from: index + (multiline ? 3 : 1)) == count
        {
          blank((multiline ? 3 : 1) + count)
          modes.removeLast()
        } else {
          blank(1)
        }
      }
    }
    return String(output).components(separatedBy: "\n")
  }

  /// The line's indentation, or `nil` for a blank line.
  static func indentation(_ line: String) -> Int? {
    let spaces = line.prefix { $0 == " " }.count
    return spaces == line.count ? nil : spaces
  }

  /// The line, the attributes above it, every enclosing header (with its attributes and the
  /// lines it spans), and the `guard #available` statements before it in each scope.
  static func context(of index: Int, in lines: [String]) -> [String] {
    func trimmed(_ line: Int) -> String { lines[line].trimmingCharacters(in: .whitespaces) }
    guard var current = indentation(lines[index]) else { return [] }
    var context = [trimmed(index)]
    context += attributes(above: index, at: current, in: lines)
    var line = index - 1
    while line >= 0 {
      guard let level = indentation(lines[line]) else {
        line -= 1
        continue
      }
      if level == current, trimmed(line).hasPrefix("guard #available") {
        context.append(trimmed(line))
      }
      guard level < current else {
        line -= 1
        continue
      }
      // An enclosing header: the line, the lines it continues (a lone `{`, or a closing
      // parenthesis, continues the header above it), and its attributes.
      var top = line
      context.append(trimmed(top))
      while ["{", ")", "]", "->", "where "].contains(where: trimmed(top).hasPrefix) {
        var next = top - 1
        while next >= 0, indentation(lines[next]).map({ $0 > level }) ?? true {
          if indentation(lines[next]) != nil { context.append(trimmed(next)) }
          next -= 1
        }
        guard next >= 0 else { break }
        top = next
        context.append(trimmed(top))
      }
      context += attributes(above: top, at: level, in: lines)
      current = level
      line = top - 1
    }
    return context
  }

  /// The attribute lines (`@…`) just above a line, at its indentation, blank lines (and so
  /// comments) between them skipped.
  static func attributes(above index: Int, at level: Int, in lines: [String]) -> [String] {
    var found: [String] = []
    var line = index - 1
    while line >= 0 {
      let text = lines[line].trimmingCharacters(in: .whitespaces)
      if text.isEmpty {
        line -= 1
        continue
      }
      guard indentation(lines[line]) == level, text.hasPrefix("@") else { break }
      found.append(text)
      line -= 1
    }
    return found
  }

  /// Whether a context holds the requirement's gates.
  static func satisfies(_ context: [String], _ requirement: Requirement) -> Bool {
    if let module = requirement.module {
      let conditions = ["canImport(\(module))"] + requirement.orWhen
      let compiled = context.contains { line in
        (line.hasPrefix("#if ") || line.hasPrefix("#elseif "))
          && conditions.contains { line.contains($0) && !line.contains("!" + $0) }
      }
      guard compiled else { return false }
    }
    let needed = requirement.versions.filter { platform, version in
      floor[platform].map { version > $0 } ?? true
    }
    guard !needed.isEmpty else { return true }
    return context.contains { line in
      availabilitySpecs(in: line).contains { spec in
        needed.allSatisfy { platform, version in (spec[platform] ?? floor[platform]!) >= version }
      }
    }
  }

  /// The platform versions of each `@available(…)` and `#available(…)` on a line; a spec with
  /// no platform version (`@available(*, unavailable)`) gives an empty dictionary.
  static func availabilitySpecs(in line: String) -> [[String: Version]] {
    var specs: [[String: Version]] = []
    var rest = Substring(line)
    while let start = rest.firstRange(of: "available(") {
      let marker = rest.index(before: start.lowerBound)
      let isAttribute = start.lowerBound > rest.startIndex && "@#".contains(rest[marker])
      let arguments = rest[start.upperBound...].prefix { $0 != ")" }
      rest = rest[arguments.endIndex...]
      guard isAttribute else { continue }
      var spec: [String: Version] = [:]
      for item in arguments.split(separator: ",") {
        let words = item.split(separator: " ")
        if words.count == 2, platforms.contains(String(words[0])),
          let version = Version(parsing: words[1])
        {
          spec[String(words[0])] = version
        }
      }
      specs.append(spec)
    }
    return specs
  }

  /// The library's own types declared with an `@available` above the floor: their uses need
  /// the same gate. (Types only: a gated member's name may be any other member's too.)
  static func gatedDeclarations(in lines: [String]) -> [String: Requirement] {
    var found: [String: Requirement] = [:]
    for (index, line) in lines.enumerated() {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard trimmed.hasPrefix("@available("),
        let spec = availabilitySpecs(in: trimmed).first,
        spec.contains(where: { platform, version in version > floor[platform]! })
      else { continue }
      var next = index + 1
      while next < lines.count {
        let text = lines[next].trimmingCharacters(in: .whitespaces)
        guard text.isEmpty || text.hasPrefix("@") else { break }
        next += 1
      }
      guard next < lines.count, let match = lines[next].firstMatch(of: typeDeclaration),
        let name = match.output[1].substring
      else { continue }
      found[String(name)] = Requirement(versions: spec)
    }
    return found
  }

  /// A line declaring a type, its name captured.
  nonisolated(unsafe) static let typeDeclaration = try! Regex(
    #"^\s*(?:(?:public|package|internal|private|fileprivate|open|final|indirect)\s+)*(?:class|struct|enum|protocol|actor|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)"#
  ).wordBoundaryKind(.simple)

  /// Whether the line declares the type `name` (so isn't a use of it).
  static func isDeclaration(of name: String, _ line: String) -> Bool {
    guard let match = line.firstMatch(of: typeDeclaration), let declared = match.output[1].substring
    else { return false }
    return declared == name
  }
}
