import Foundation

/// The text of an XML property-list `<date>`: `YYYY-MM-DDTHH:MM:SSZ`, in UTC, with an optional
/// fraction of a second (`2014-02-23T09:21:06.034Z`, as JavaScript plist writers produce).
///
/// Years may have more than four digits and a minus sign (astronomical numbering, `0000` is 1 BC),
/// as CoreFoundation writes dates outside 0001–9999.
///
/// Only real calendar dates are accepted (month 1–12, a day that exists in that month of that
/// year of the proleptic Gregorian calendar, hour 0–23, minute and second 0–59); CoreFoundation
/// on Linux turns `2024-01-32` into 1 February, this refuses it. plistlib's shorter forms
/// (`2024-01-01Z`) are refused too: CoreFoundation refuses them and no Apple writer produces them.
///
/// The instant is exact: whole seconds come from integer civil-date arithmetic, and the seconds
/// since 2001-01-01T00:00:00Z are the correctly rounded `Double` of the decimal
/// `whole.fraction`.
enum PropertyListDate {
  /// The seconds since 2001-01-01T00:00:00Z of 1970-01-01T00:00:00Z, negated.
  private static let unixEpochToReference: Int64 = 978_307_200

  /// Parses date text.
  ///
  /// - Parameter text: The element's text, without surrounding white space.
  /// - Returns: The date, or `nil` if the text is not a date in the format above or names a
  ///   day, hour, minute or second that doesn't exist.
  static func parse(_ text: UnsafeRawBufferPointer) -> Date? {
    // [-]YYYY-MM-DDTHH:MM:SS then (.d+)? then Z. CoreFoundation writes years past 9999 with
    // more digits and years before 1 as astronomical years with a sign (0000 is 1 BC).
    var yearEnd = text.first == 0x2D ? 1 : 0
    while yearEnd < text.count, text[yearEnd] >= 0x30, text[yearEnd] <= 0x39 { yearEnd += 1 }
    let yearDigits = yearEnd - (text.first == 0x2D ? 1 : 0)
    // At most 11 digits, so the seconds can't overflow. A year before 1 BC may have fewer than
    // four digits: CoreFoundation writes year -1 as `-001`.
    let fewestDigits = text.first == 0x2D ? 1 : 4
    guard yearDigits >= fewestDigits, yearDigits <= 11, text.count >= yearEnd + 16 else {
      return nil
    }
    func digits(_ start: Int, _ length: Int) -> Int64? {
      var value: Int64 = 0
      for index in start..<start + length {
        let byte = text[index]
        guard byte >= 0x30 && byte <= 0x39 else { return nil }
        value = value * 10 + Int64(byte - 0x30)
      }
      return value
    }
    func byte(_ offset: Int, is character: Unicode.Scalar) -> Bool {
      text[yearEnd + offset] == UInt8(ascii: character)
    }
    let base = yearEnd
    guard let magnitude = digits(yearEnd - yearDigits, yearDigits), byte(0, is: "-"),
      let month = digits(base + 1, 2), byte(3, is: "-"), let day = digits(base + 4, 2),
      byte(6, is: "T"), let hour = digits(base + 7, 2), byte(9, is: ":"),
      let minute = digits(base + 10, 2), byte(12, is: ":"), let second = digits(base + 13, 2),
      text[text.count - 1] == UInt8(ascii: "Z")
    else { return nil }
    let year = text.first == 0x2D ? -magnitude : magnitude
    // The fraction, between the seconds and the Z.
    var fraction: UnsafeRawBufferPointer.SubSequence = text[(base + 15)..<(text.count - 1)]
    if !fraction.isEmpty {
      guard fraction.first == UInt8(ascii: "."), fraction.count >= 2 else { return nil }
      fraction = fraction.dropFirst()
      guard fraction.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
      // Trailing zeros change nothing.
      while fraction.last == 0x30 { fraction = fraction.dropLast() }
    }
    guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
      hour < 24, minute < 60, second < 60
    else { return nil }

    let days = daysFromUnixEpoch(year: year, month: month, day: day)
    let whole = days * 86_400 + hour * 3600 + minute * 60 + second - unixEpochToReference
    if fraction.isEmpty { return Date(timeIntervalSinceReferenceDate: Double(whole)) }
    let decimal: String
    if whole >= 0 {
      decimal = "\(whole)." + String(decoding: fraction, as: UTF8.self)
    } else {
      // whole + 0.f is negative: -((-whole - 1) + (1 - 0.f)), and 1 - 0.f has the digits
      // 9 - d for each digit but the last (not zero), which is 10 - d.
      var complement = fraction.map { 0x39 - $0 + 0x30 }
      complement[complement.count - 1] += 1
      decimal = "-\(-whole - 1)." + String(decoding: complement, as: UTF8.self)
    }
    guard let seconds = Double(decimal) else { return nil }
    return Date(timeIntervalSinceReferenceDate: seconds)
  }

  /// Whether `year` is a leap year of the Gregorian calendar.
  static func isLeapYear(_ year: Int64) -> Bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
  }

  /// The number of days in `month` (1–12) of `year`.
  static func daysIn(month: Int64, year: Int64) -> Int64 {
    switch month {
    case 2: isLeapYear(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days from 1970-01-01 to the given date of the proleptic Gregorian calendar (Howard
  /// Hinnant's `days_from_civil`).
  static func daysFromUnixEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}
