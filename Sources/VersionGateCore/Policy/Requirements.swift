/// What a version needs of the system it is offered to
/// (`latest_version_<platform>_requires`, `min_required_version_<platform>_requires`;
/// docs/design.md, "Requirements"): comma-separated clauses that must all
/// hold, e.g. `glibc>=2.35, kernel>=6.1, arch=x86_64|aarch64, os=debian|ubuntu,
/// os_version>=12`. Versions compare by the version grammar. Pure: the
/// system's values come in as `SystemFacts`.
package struct Requirements: Sendable, Equatable {
    package enum Fact: String, Sendable, CaseIterable {
        case glibc, kernel, arch, os
        case osVersion = "os_version"

        /// Facts compared as versions; the others are names.
        var isVersion: Bool { self == .glibc || self == .kernel || self == .osVersion }
    }

    package enum Test: Sendable, Equatable {
        /// `>=`, `>`, `<=`, `<`, `=`, `!=` against a valid version.
        case compare(String, version: String)
        /// `=` one of these names (`a|b`).
        case oneOf([String])
    }

    package struct Clause: Sendable, Equatable {
        package let fact: Fact
        package let test: Test
        /// As written (trimmed), for the reason.
        package let text: String
    }

    package let clauses: [Clause]

    /// A clause the system does not meet, and the system's value ("unknown"
    /// when it could not be read: an unknown system meets nothing). A class:
    /// every Decision carries one (nearly always nil), and a reference keeps
    /// the decision small to copy on the warm path.
    package final class Unmet: Sendable {
        package let clause: Clause
        package let actual: String
        init(clause: Clause, actual: String) { (self.clause, self.actual) = (clause, actual) }
    }

    private static let operators = [">=", "<=", "!=", ">", "<", "="]

    /// The clauses of `text`, and one problem per malformed clause (it is
    /// left out: a typo must not make a version unofferable everywhere).
    package static func parse(_ text: String) -> (requirements: Requirements, problems: [String]) {
        var clauses: [Clause] = []
        var problems: [String] = []
        for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
            let written = trimmedSpaces(piece)
            switch clause(written) {
            case .success(let clause): clauses.append(clause)
            case .failure(let why): problems.append("clause \"\(OneLine.text(written))\" \(why.message); ignored")
            }
        }
        return (Requirements(clauses: clauses), problems)
    }

    private static func clause(_ text: String) -> Result<Clause, GateFailure> {
        let bytes = Array(text.utf8)
        guard let nameEnd = bytes.firstIndex(where: { !(ASCII.isLowercaseLetter($0) || $0 == UInt8(ascii: "_")) }),
              nameEnd > 0 else {
            return .failure(.config(text.isEmpty ? "is empty" : "has no comparison"))
        }
        let name = String(decoding: bytes[..<nameEnd], as: UTF8.self)
        guard let fact = Fact(rawValue: name) else {
            return .failure(.config("names \(name), not one of \(Fact.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        let rest = Array(bytes[nameEnd...].drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
        guard let op = operators.first(where: { rest.starts(with: $0.utf8) }) else {
            return .failure(.config("has no comparison (>=, >, <=, <, =, !=)"))
        }
        let value = trimmedSpaces(Substring(decoding: rest[op.utf8.count...], as: UTF8.self))
        if fact.isVersion {
            guard Version.compare(value, value) != nil else {
                return .failure(.config("compares with \"\(OneLine.text(value))\", not a valid version"))
            }
            return .success(Clause(fact: fact, test: .compare(op, version: value), text: text))
        }
        let names = value.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard op == "=", names.allSatisfy(isName) else {
            return .failure(.config("needs \(fact.rawValue)=NAME or NAME|NAME (a-z, 0-9, _, -, .)"))
        }
        return .success(Clause(fact: fact, test: .oneOf(names), text: text))
    }

    private static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy {
            ASCII.isLowercaseLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
                || $0 == UInt8(ascii: ".")
        }
    }

    /// Spaces and tabs around; nothing else (a requirement is one line).
    private static func trimmedSpaces(_ text: Substring) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(text.drop(while: blank).reversed().drop(while: blank).reversed())
    }

    /// The first clause `facts` does not meet; nil when all hold.
    package func firstUnmet(_ facts: SystemFacts) -> Unmet? {
        for clause in clauses {
            switch (clause.test, clause.fact) {
            case (.compare(let op, let wanted), let fact):
                let actual = fact == .glibc ? facts.glibc : fact == .kernel ? facts.kernel : facts.osVersion
                guard let actual, let order = Version.compare(actual, wanted) else {
                    return Unmet(clause: clause, actual: "unknown")
                }
                let holds = switch op {
                case ">=": order >= 0
                case ">": order > 0
                case "<=": order <= 0
                case "<": order < 0
                case "=": order == 0
                default: order != 0
                }
                if !holds { return Unmet(clause: clause, actual: actual) }
            case (.oneOf(let names), .arch):
                guard let arch = facts.arch else { return Unmet(clause: clause, actual: "unknown") }
                if !names.contains(arch) { return Unmet(clause: clause, actual: arch) }
            case (.oneOf(let names), _):
                guard !facts.osIDs.isEmpty else { return Unmet(clause: clause, actual: "unknown") }
                if !facts.osIDs.contains(where: names.contains) {
                    return Unmet(clause: clause, actual: facts.osIDs.joined(separator: " "))
                }
            }
        }
        return nil
    }
}

/// This system's values for the requirement facts; nil (or empty) when
/// unknown. Read by the system layer (SystemFactsReader), only for a
/// snapshot that has requirements.
package struct SystemFacts: Sendable, Equatable {
    /// `gnu_get_libc_version()`, e.g. "2.36".
    package var glibc: String?
    /// The leading version of `uname -r` ("6.1.0" of "6.1.0-18-amd64").
    package var kernel: String?
    /// `uname -m`, e.g. "x86_64".
    package var arch: String?
    /// os-release's `ID`, then each of `ID_LIKE`.
    package var osIDs: [String]
    /// os-release's `VERSION_ID`.
    package var osVersion: String?

    package init(glibc: String? = nil, kernel: String? = nil, arch: String? = nil, osIDs: [String] = [],
                 osVersion: String? = nil) {
        (self.glibc, self.kernel, self.arch, self.osIDs, self.osVersion) = (glibc, kernel, arch, osIDs, osVersion)
    }

    /// The version a kernel release starts with: its leading digits and
    /// dots, without a trailing dot ("6.1.0-18-amd64" → "6.1.0").
    package static func kernelVersion(release: String) -> String? {
        let digits = release.utf8.prefix { ASCII.isDigit($0) || $0 == UInt8(ascii: ".") }
        var text = String(decoding: digits, as: UTF8.self)
        while text.hasSuffix(".") { text.removeLast() }
        return Version.compare(text, text) == nil ? nil : text
    }
}
