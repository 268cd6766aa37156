import Foundation

/// Dates as the `settings write -date` flag and text layers take them (ISO 8601, `defaults`'
/// own `2026-11-30 15:32:33 +0000`, a day), in the proleptic Gregorian calendar, computed
/// directly: no locale, calendar service or time-zone database is involved, so a text reads the
/// same on every platform.
enum TextDate {
  /// Parses a date in any of the forms `-date` accepts.
  ///
  /// The forms:
  ///
  /// - `defaults`' own output: `2026-11-30 15:32:33 +0000` (any `±HHMM` offset);
  /// - ISO 8601: `2026-11-30T15:32:33Z`, `2026-11-30T15:32:33.250+01:00`, `…T15:32` (UTC when no
  ///   offset is given);
  /// - a day: `2026-11-30` (midnight UTC).
  ///
  /// - Returns: The date, or `nil` if the text is none of these.
  static func parse(_ text: String) -> Date? {
    var scanner = Scanner(Array(text.utf8))
    guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2),
      scanner.take("-"), let day = scanner.digits(2),
      (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
    else { return nil }
    var seconds = Double(days(fromYear: year, month: month, day: day)) * 86_400
    if scanner.isAtEnd { return Date(timeIntervalSince1970: seconds) }

    guard scanner.take("T") || scanner.take(" "), let hour = scanner.digits(2), hour < 24,
      scanner.take(":"), let minute = scanner.digits(2), minute < 60
    else { return nil }
    var second = 0.0
    if scanner.take(":") {
      guard let whole = scanner.digits(2), whole < 60 else { return nil }
      second = Double(whole)
      if scanner.take(".") || scanner.take(",") {
        guard let fraction = scanner.fraction() else { return nil }
        second += fraction
      }
    }
    seconds += Double(hour * 3600 + minute * 60) + second
    _ = scanner.take(" ")
    if scanner.isAtEnd || scanner.take("Z") {
      return scanner.isAtEnd ? Date(timeIntervalSince1970: seconds) : nil
    }
    let sign: Double
    if scanner.take("+") {
      sign = 1
    } else if scanner.take("-") {
      sign = -1
    } else {
      return nil
    }
    guard let offsetHours = scanner.digits(2), offsetHours < 24 else { return nil }
    _ = scanner.take(":")
    guard let offsetMinutes = scanner.digits(2), offsetMinutes < 60, scanner.isAtEnd else {
      return nil
    }
    return Date(
      timeIntervalSince1970: seconds - sign * Double(offsetHours * 3600 + offsetMinutes * 60))
  }

  // MARK: - The proleptic Gregorian calendar (Howard Hinnant's algorithms)

  /// Days from 1970-01-01 to the given day.
  private static func days(fromYear year: Int, month: Int, day: Int) -> Int64 {
    let y = Int64(month <= 2 ? year - 1 : year)
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = Int64((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1)
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  private static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// A cursor over ASCII text.
  private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    mutating func take(_ character: Character) -> Bool {
      guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else {
        return false
      }
      index += 1
      return true
    }

    /// Exactly `count` decimal digits.
    mutating func digits(_ count: Int) -> Int? {
      guard index + count <= bytes.count else { return nil }
      var value = 0
      for byte in bytes[index..<index + count] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      index += count
      return value
    }

    /// One or more digits after a decimal point, as a fraction.
    mutating func fraction() -> Double? {
      var text = "0."
      while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
        text.append(Character(Unicode.Scalar(bytes[index])))
        index += 1
      }
      return text.count > 2 ? Double(text) : nil
    }
  }
}
