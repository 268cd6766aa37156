import Foundation
import Testing
import TypedDefaultsTestSupport

/// The availability audit (Docs/Design.md, "Availability audit"), run on the sources.
///
/// A use of an API newer than the package's platforms outside its gate fails here, on Linux,
/// before an Apple compiler sees it. The self-tests show it flags each kind of ungated use and
/// lets each kind of gate through.
@Suite struct AvailabilityAuditTests {
  private let sources = TestPaths.projectRoot.appendingPathComponent("Sources")

  @Test func everyUseOfAnAPIAboveThePackagesPlatformsInTheSourcesIsInsideItsGate() throws {
    let report = try AvailabilityAudit.audit(folder: sources, relativeTo: TestPaths.projectRoot)
    #expect(
      report.findings.isEmpty,
      """
      Gate these uses (see Docs/Design.md, "Availability audit"):
      \(report.findings.map(\.description).joined(separator: "\n"))
      """)
    // Not vacuous: the audit met the gated uses the library is known to make, and the types it
    // gates itself.
    #expect((report.uses["Atomic"] ?? 0) >= 4)
    #expect((report.uses["atomicMemoryFence"] ?? 0) >= 2)
    #expect((report.uses["ObservationRegistrar"] ?? 0) >= 1)
    #expect((report.uses["Observable"] ?? 0) >= 2)
    #expect((report.uses["import Observation"] ?? 0) >= 1)
    #expect((report.uses["String(validating:as:)"] ?? 0) >= 1)
    #expect((report.uses["import Combine"] ?? 0) >= 1)
    for name in [
      "ScalarValueCell", "InstalledFlag", "SettingObservable", "KeyPathChoice", "TrackingInterest",
      "OverrideTracking", "SettingObservablePool",
    ] {
      #expect(report.gatedDeclarations[name] != nil, "\(name) is no longer gated")
      #expect((report.uses[name] ?? 0) >= 1, "no use of \(name) was checked")
    }
  }

  /// The test targets build for the package's platforms too (`swift test` on a Mac).
  @Test func everyUseOfAnAPIAboveThePackagesPlatformsInTheTestsIsInsideItsGate() throws {
    let report = try AvailabilityAudit.audit(
      folder: TestPaths.projectRoot.appendingPathComponent("Tests"),
      relativeTo: TestPaths.projectRoot, scope: .tests)
    #expect(
      report.findings.isEmpty,
      """
      Gate these uses (see Docs/Design.md, "Availability audit"):
      \(report.findings.map(\.description).joined(separator: "\n"))
      """)
    #expect((report.uses["withObservationTracking"] ?? 0) >= 30)
  }

  /// Design.md's "Availability audit" names every rule the audit applies.
  @Test func designMdNamesEveryRuleOfTheAudit() throws {
    let design = try String(
      contentsOf: TestPaths.projectRoot.appendingPathComponent("Docs/Design.md"), encoding: .utf8)
    let section = try #require(
      design.components(separatedBy: "### Availability audit").dropFirst().first?
        .components(separatedBy: "\n## ").first)
    for name in Set(AvailabilityAudit.rules.map(\.name)).sorted() {
      #expect(section.contains("`\(name)`"), "Design.md doesn't name `\(name)`")
    }
  }

  @Test func theAuditFlagsEachKindOfUseOutsideItsGate() {
    let sample = """
      import Synchronization
      import Observation
      import SwiftUI
      import Combine

      let counter = Atomic<Int>(0)

      @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
      final class NoVisionOS {
        let flag = Atomic<Bool>(false)
      }

      @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
      let gatedSibling = 1
      let after = Mutex<Int>(0)

      func f() {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
          _ = 1
        } else {
          atomicMemoryFence(ordering: .acquiring)
        }
        _ = String(validating: bytes, as: UTF8.self)
      }

      #if canImport(Observation)
        final class Tracked: Observable {
          let registrar = ObservationRegistrar()
        }
      #endif

      @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
      final class NotCompiledConditionally {
        let registrar = ObservationRegistrar()
      }

      @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
      final class Gated {}
      let leaked = Gated()
      let publisher: AnyPublisher<Int, Never>
      let observable = model is any Observable.Type
      """
    let findings = AvailabilityAudit.audit([("Sample.swift", sample)]).findings
    #expect(
      findings.map { "\($0.line) \($0.rule)" } == [
        "2 import Observation",
        "3 import SwiftUI",
        "4 import Combine",
        "6 Atomic",
        "10 Atomic",
        "15 Mutex",
        "21 atomicMemoryFence",
        "23 String(validating:as:)",
        "27 Observable",
        "28 ObservationRegistrar",
        "34 ObservationRegistrar",
        "39 Gated",
        "40 Combine",
        "41 Observable",
      ], "\(findings.map(\.description).joined(separator: "\n"))")
  }

  @Test func theAuditLetsEachKindOfGateThrough() {
    let sample = #"""
      #if canImport(Observation)
        import Observation
      #endif
      #if canImport(Combine)
        import Combine
        let publisher: AnyPublisher<Int, Never>
      #endif
      // A comment naming Atomic<Int> and Mutex<Int>, and "a string: Atomic<Int>".
      let text = "Mutex<Int> \(value) Atomic<Int>"
      let more = """
        Atomic<Int>(0)
        """

      @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
      // A comment between the attribute and the declaration.
      @usableFromInline
      final class Cell {
        let sequence = Atomic<UInt64>(0)

        func publish() {
          atomicMemoryFence(ordering: .releasing)
        }
      }

      func read() {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *),
          let cell
        {
          _ = Cell()
          _ = String(validating: bytes, as: UTF8.self)
        }
        guard #available(macOS 16.0, iOS 19.0, tvOS 19.0, watchOS 12.0, visionOS 3.0, *) else {
          return
        }
        _ = Mutex<Int>(0)
      }

      #if canImport(Observation)
        @available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, *)
        final class Tracked: Observable {
          let registrar = ObservationRegistrar()
        }
      #endif
      """#
    let report = AvailabilityAudit.audit([("Sample.swift", sample)])
    #expect(
      report.findings.isEmpty, "\(report.findings.map(\.description).joined(separator: "\n"))")
    #expect(report.uses["Atomic"] == 1)
    #expect(report.uses["Mutex"] == 1)
    #expect(report.uses["Cell"] == 1)
  }

  @Test func commentsAndStringLiteralsAreBlankedAndLinesKept() {
    let lines = AvailabilityAudit.codeLines(
      #"""
      let a = "x // y" // Atomic<Int>
      /* Mutex<Int>
         /* nested */ Atomic */ let b = #"raw \(not) "# + "\(call("Atomic<Int>"))"
      """#)
    #expect(lines.count == 3)
    #expect(lines[0].trimmingCharacters(in: .whitespaces) == "let a =")
    #expect(lines[1].trimmingCharacters(in: .whitespaces).isEmpty)
    #expect(!lines[2].contains("Atomic") && !lines[2].contains("not"))
    #expect(lines[2].contains("let b ="))
  }
}
