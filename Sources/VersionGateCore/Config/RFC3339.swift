/// RFC 3339 timestamps (`2027-03-01T00:00:00Z`, `2027-03-01T09:30:00.5+02:00`)
/// as Unix seconds. Strict: the full date-time form only, fields in range,
/// `T`/`t` or a space between date and time, `Z`/`z` or a ±hh:mm offset.
/// Leap seconds (:60) are read as :59. Pure, byte by byte.
package enum RFC3339 {
    package static func seconds(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.count <= 40 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for i in from..<(from + count) {
                guard i < b.count, ASCII.isDigit(b[i]) else { return nil }
                value = value * 10 + Int64(b[i] &- 0x30)
            }
            return value
        }
        guard let year = number(0, 4), b[4] == 0x2D, let month = number(5, 2), b[7] == 0x2D,
              let day = number(8, 2), [0x54, 0x74, 0x20].contains(b[10]),
              let hour = number(11, 2), b[13] == 0x3A, let minute = number(14, 2), b[16] == 0x3A,
              let second = number(17, 2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 60 else { return nil }
        var i = 19
        if b[i] == 0x2E {                       // fraction: digits, ignored
            i += 1
            let start = i
            while i < b.count, ASCII.isDigit(b[i]) { i += 1 }
            guard i > start else { return nil }
        }
        guard i < b.count else { return nil }
        var offset: Int64 = 0
        if b[i] == 0x5A || b[i] == 0x7A {
            i += 1
        } else if b[i] == 0x2B || b[i] == 0x2D {
            guard let oh = number(i + 1, 2), i + 3 < b.count, b[i + 3] == 0x3A, let om = number(i + 4, 2),
                  oh <= 23, om <= 59 else { return nil }
            offset = (oh * 60 + om) * 60 * (b[i] == 0x2B ? 1 : -1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offset
    }

    /// `seconds` (Unix) as `2027-03-01T00:00:00Z`.
    package static func text(_ seconds: Int64) -> String {
        let d = civil(seconds)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = String(d.year)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-\(two(d.month))-\(two(d.day))T"
            + "\(two(d.hour)):\(two(d.minute)):\(two(d.second))Z"
    }

    /// The calendar date and time of `seconds` (Unix) at UTC; add a zone's
    /// offset first for local time. Howard Hinnant's civil_from_days.
    package static func civil(_ seconds: Int64) -> (year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64,
                                                    second: Int64) {
        let clamped = min(max(seconds, -62_135_596_800), 253_402_300_799)   // years 1-9999
        let days = (clamped >= 0 ? clamped : clamped - 86_399) / 86_400
        let inDay = clamped - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day, inDay / 3600, inDay % 3600 / 60, inDay % 60)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard
    /// Hinnant's days_from_civil); years 0000-9999 keep it far from overflow.
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
