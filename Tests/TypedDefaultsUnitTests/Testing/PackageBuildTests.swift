import Foundation
import Testing
import TypedDefaultsTestSupport

/// What keeps `swift build -c release` of the whole package working: SwiftPM builds every
/// non-test target there, the test support target included, and a release build of the library
/// is not compiled for testing, so an `@testable import` in a non-test target breaks it.
@Suite struct PackageBuildTests {
  @Test func noNonTestTargetUnderTestsUsesTestableImport() throws {
    let folders = ["Tests/TypedDefaultsTestSupport", "Tests/SettingsProbe"]
    var offenders: [String] = []
    for folder in folders {
      let root = TestPaths.projectRoot.appendingPathComponent(folder)
      let names = try FileManager.default.contentsOfDirectory(atPath: root.path)
      #expect(names.contains { $0.hasSuffix(".swift") }, "no Swift files found in \(folder)")
      for name in names.sorted() where name.hasSuffix(".swift") {
        let text = try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
        if text.split(separator: "\n").contains(where: { $0.hasPrefix("@testable import") }) {
          offenders.append("\(folder)/\(name)")
        }
      }
    }
    #expect(
      offenders == [],
      "these would break `swift build -c release`: use `package` access in the library instead")
  }
}
