import Foundation

/// Dates as `defaults` prints them (`2026-11-30 15:32:33 +0000`, always UTC), in the proleptic
/// Gregorian calendar, computed directly: no locale, calendar service or time-zone database is
/// involved, and every date reads back as it was printed (by `-date`, which the library's
/// `PropertyListValue(parsing:as:)` reads).
enum CivilDate {
  /// `yyyy-MM-dd HH:mm:ss +0000` in UTC, seconds rounded down, as `defaults read` prints a date.
  static func format(_ date: Date) -> String {
    let since1970 = date.timeIntervalSince1970
    guard since1970.isFinite, abs(since1970) < 1e15 else { return "\(since1970)" }
    let seconds = Int64(since1970.rounded(.down))
    let (days, secondOfDay) = seconds.floorDividedBy(86_400)
    let (year, month, day) = civil(fromDays: days)
    let yearText = year < 0 ? "-" + pad(-year, 4) : pad(year, 4)
    return "\(yearText)-\(pad(month, 2))-\(pad(day, 2)) \(pad(secondOfDay / 3600, 2)):"
      + "\(pad(secondOfDay % 3600 / 60, 2)):\(pad(secondOfDay % 60, 2)) +0000"
  }

  // MARK: - The proleptic Gregorian calendar (Howard Hinnant's algorithms)

  /// The day (year, month, day) `days` after 1970-01-01.
  private static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
    let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
    let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    return (year, month, day)
  }

  private static func pad<T: BinaryInteger>(_ value: T, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
}

extension Int64 {
  /// The quotient rounded down, and the non-negative remainder.
  fileprivate func floorDividedBy(_ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
    let remainder = ((self % divisor) + divisor) % divisor
    return ((self - remainder) / divisor, remainder)
  }
}
