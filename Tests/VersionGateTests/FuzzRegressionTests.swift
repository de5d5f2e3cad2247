// The properties the fuzz targets assert, and the inputs fuzzing found.
//
// This one file is compiled twice: by the test target (the XCTest at the
// bottom), and by the fuzz harness, where Fuzz/Sources/FuzzProperties/
// FuzzProperties.swift is a symlink to it, built with VG_FUZZ_HARNESS. So a
// crash input replays here through exactly the checks that found it.
// Fuzz/README.md says how to run the fuzzers and turn a finding into a row.
#if !VG_FUZZ_HARNESS
import XCTest
#endif
import FoundationEssentials
import VersionGateC
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGateNetwork
@testable import VersionGatePlatform
@testable import VersionGateSystem

public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `a|b|c`: up to three versions; parser, both compare roads, vg_decide.
    case version
    /// `[current NUL] document`: GateDocument → GateSnapshot → Decision.
    case document
    /// A Firebase fetch response body: FirebaseFetchResponse → snapshot → decision.
    case firebase
    /// A URL from a config or a launcher: StoreURLPolicy, the store links
    /// and StoreResolver (the input is also tried as an app id).
    case url
    /// An iTunes Lookup response body: ChannelDocuments.appStoreTrackID → App Store links.
    case itunes
    /// Remote text: MessageSanitizer (and GoogleErrorBody.printable).
    case message
    /// `[trusted_keys NUL] signature file`: MinisignPublicKey, MinisignSignature, SignatureCheck.
    case signature
    /// An AppStream metainfo file: libexpat → AppStreamReleases → the installed version.
    case metainfo
    /// A `.zsync` control file: ZsyncControl, and the seed scan with the input as its seed;
    /// also the input cut in two as target and seed: plan and assembly rebuild the target.
    case zsync
    /// An AppImage's update information, and the input as an ELF file: ELFSection.
    case updinfo
    /// An administrator's policy file: PolicyLayer → AdministratorPolicy.
    case policy
    /// A channel's cache entry (ChannelEntry.decode), and the same bytes as a
    /// store's 200 body for each HTTP ChannelQuestion (ChannelEntry.answered).
    case channelentry
    /// snapd's answer: SnapdEnvelope for each status, and SnapdChange of a sync result.
    case snapd
    /// Remote Config's realtime stream, cut into chunks at every few bytes:
    /// RealtimeMessages, and the version numbers its messages carry.
    case realtime
}

/// Every property of `target` that `input` violates; empty when all hold.
func fuzzViolations(_ target: FuzzTarget, _ input: [UInt8]) -> [String] {
    var check = PropertyCheck()
    switch target {
    case .version: VersionProperties.check(input, &check)
    case .document: GateProperties.checkDocument(input, &check)
    case .firebase: GateProperties.checkFirebase(input, &check)
    case .url: URLProperties.check(String(decoding: input, as: UTF8.self), &check)
    case .itunes: URLProperties.checkLookup(input, &check)
    case .message: MessageProperties.check(String(decoding: input, as: UTF8.self), &check)
    case .signature: SignatureProperties.check(input, &check)
    case .metainfo: MetainfoProperties.check(input, &check)
    case .zsync: ZsyncProperties.check(input, &check)
    case .updinfo: UpdInfoProperties.check(input, &check)
    case .policy: PolicyProperties.check(input, &check)
    case .channelentry: ChannelEntryProperties.check(input, &check)
    case .snapd: SnapdProperties.check(input, &check)
    case .realtime: RealtimeProperties.check(input, &check)
    }
    return check.failures
}

#if VG_FUZZ_HARNESS
/// The body of every LLVMFuzzerTestOneInput: a violated property is a crash
/// libFuzzer reports (and saves the input of). Traps are fine here, in the
/// harness; never in Sources/.
public func fuzzOneInput(_ target: FuzzTarget, _ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let failures = fuzzViolations(target, input)
    if !failures.isEmpty {
        fatalError("VersionGate fuzz property violated (\(target.rawValue)):\n  " + failures.joined(separator: "\n  "))
    }
    return 0
}
#endif

struct PropertyCheck {
    private(set) var failures: [String] = []

    mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition, failures.count < 20 else { return }
        let text = message()
        if !failures.contains(text) { failures.append(text) }
    }
}

// MARK: - Helpers

/// Copies `bytes` into a malloc'd block of exactly their size (plus a NUL if
/// asked), so AddressSanitizer reports a read even one byte past the end.
/// The pointer is valid until `release`.
struct ExactBuffer {
    let pointer: UnsafeMutablePointer<UInt8>
    let count: Int

    init(_ bytes: [UInt8], nulTerminated: Bool = false) {
        count = bytes.count
        pointer = .allocate(capacity: bytes.count + (nulTerminated ? 1 : 0))
        pointer.initialize(from: bytes, count: bytes.count)
        if nulTerminated { pointer[bytes.count] = 0 }
    }

    var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: pointer, count: count) }
    var cString: UnsafePointer<CChar> { UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self) }
    func release() { pointer.deallocate() }
}

/// Quoted for a failure message: short, escapes visible.
func show(_ bytes: [UInt8]) -> String {
    let text = String(decoding: bytes.prefix(80), as: UTF8.self).debugDescription
    return bytes.count > 80 ? text + "…(\(bytes.count) bytes)" : text
}

func show(_ text: String) -> String { show(Array(text.utf8)) }

// MARK: - Versions (docs/design.md, "Versions"), with a reference model

/// The grammar of docs/design.md, "Versions", written a second way, on plain arrays (allocates freely; clarity
/// over speed): the independent opinion the parser is checked against.
enum ReferenceVersion {
    struct Parsed {
        /// Components without leading zeros ("0" becomes empty).
        let release: [[UInt8]]
        let pre: [[UInt8]]?
        /// What the caller wrote, without surrounding spaces/tabs/CR/LF.
        let trimmed: [UInt8]
    }

    static func parse(_ raw: [UInt8]) -> Parsed? {
        guard raw.count <= 256 else { return nil }  // raw text, before trimming
        let blanks: [UInt8] = [0x20, 0x09, 0x0D, 0x0A]
        var text = raw[...]
        while let first = text.first, blanks.contains(first) { text = text.dropFirst() }
        while let last = text.last, blanks.contains(last) { text = text.dropLast() }
        let trimmed = Array(text)
        if let first = text.first, first == UInt8(ascii: "v") || first == UInt8(ascii: "V") { text = text.dropFirst() }

        var main = text
        var build: ArraySlice<UInt8>?
        if let plus = text.firstIndex(of: UInt8(ascii: "+")) {
            main = text[..<plus]
            build = text[(plus + 1)...]
        }
        var release = main
        var pre: ArraySlice<UInt8>?
        if let hyphen = main.firstIndex(of: UInt8(ascii: "-")) {
            release = main[..<hyphen]
            pre = main[(hyphen + 1)...]
        }
        let components = release.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for component in components {
            guard !component.isEmpty, component.allSatisfy(isDigit), fitsInInt63(component) else { return nil }
        }
        var preIdentifiers: [[UInt8]]?
        if let pre {
            let identifiers = pre.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            for identifier in identifiers {
                guard !identifier.isEmpty, identifier.allSatisfy(isIdentifierByte) else { return nil }
                let numeric = identifier.allSatisfy(isDigit)
                if numeric, identifier.count > 1, identifier.first == UInt8(ascii: "0") { return nil }
            }
            preIdentifiers = identifiers.map { Array($0) }
        }
        if let build {
            for identifier in build.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
                guard !identifier.isEmpty, identifier.allSatisfy(isIdentifierByte) else { return nil }
            }
        }
        return Parsed(release: components.map { Array($0.drop { $0 == UInt8(ascii: "0") }) },
                      pre: preIdentifiers, trimmed: trimmed)
    }

    /// semver.org §11 on release and pre-release; -1, 0, 1.
    static func compare(_ a: Parsed, _ b: Parsed) -> Int {
        for k in 0..<max(a.release.count, b.release.count) {
            let x = k < a.release.count ? a.release[k] : []
            let y = k < b.release.count ? b.release[k] : []
            if x != y { return compareNumbers(x, y) }
        }
        switch (a.pre, b.pre) {
        case (nil, nil): return 0
        case (nil, _): return 1
        case (_, nil): return -1
        case let (x?, y?):
            for (p, q) in zip(x, y) where p != q {
                switch (p.allSatisfy(isDigit), q.allSatisfy(isDigit)) {
                case (true, true): return compareNumbers(p, q)
                case (true, false): return -1
                case (false, true): return 1
                case (false, false): return p.lexicographicallyPrecedes(q) ? -1 : 1
                }
            }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        }
    }

    /// The gate rule (docs/design.md) on reference versions: nil current, min or latest = invalid/absent.
    static func decide(current: Parsed?, min: Parsed?, latest: Parsed?) -> GateStatus {
        guard let current else { return .upToDate }
        if let min, compare(current, min) < 0 { return .mandatory }
        if let latest, compare(current, latest) < 0 { return .optional }
        return .upToDate
    }

    /// Digit strings without leading zeros.
    private static func compareNumbers(_ x: [UInt8], _ y: [UInt8]) -> Int {
        if x.count != y.count { return x.count < y.count ? -1 : 1 }
        if x == y { return 0 }
        return x.lexicographicallyPrecedes(y) ? -1 : 1
    }

    private static func fitsInInt63(_ digits: ArraySlice<UInt8>) -> Bool {
        let significant = Array(digits.drop { $0 == UInt8(ascii: "0") })
        let limit = Array("9223372036854775807".utf8)
        return compareNumbers(significant, limit) <= 0
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D
    }
}

/// Input `a|b|c` (at most three versions; a further `|` stays in the third).
/// With a few fixed anchors they form a set in which every compare must be
/// antisymmetric and transitive and agree with the reference model, on the
/// parser road, the C-string road and the C ABI.
enum VersionProperties {
    static let anchors: [[UInt8]] = ["0", "1.0.0-alpha.1", "1.0.0", "1.10"].map { Array($0.utf8) }

    static func check(_ input: [UInt8], _ check: inout PropertyCheck) {
        let parts = input.split(separator: UInt8(ascii: "|"), maxSplits: 2, omittingEmptySubsequences: false)
            .map { Array($0) }
        let texts = parts + anchors
        let fuzzed = parts.count  // texts[..<fuzzed] came from the input

        let buffers = texts.map { ExactBuffer($0) }
        defer { buffers.forEach { $0.release() } }
        let versions = buffers.map { Version(bytes: $0.buffer) }
        let references = texts.map(ReferenceVersion.parse)

        for i in texts.indices {
            check.expect((versions[i] != nil) == (references[i] != nil),
                         "validity of \(show(texts[i])): parser \(versions[i] != nil), reference \(references[i] != nil)")
            guard let version = versions[i], let reference = references[i] else { continue }
            check.expect(version.compare(to: version) == 0, "\(show(texts[i])) is not equal to itself")
            let trimmed = version.trimmedText
            check.expect(Array(trimmed.utf8) == reference.trimmed, "trimmedText of \(show(texts[i])) is \(show(trimmed))")
            let same = withVersion(trimmed) { $0.map { $0.compare(to: version) } }
            check.expect(same == 0, "trimmedText \(show(trimmed)) does not parse back to an equal version")
        }

        // The order: parser against the reference, antisymmetric, transitive.
        var order = [[Int?]](repeating: [Int?](repeating: nil, count: texts.count), count: texts.count)
        for i in texts.indices {
            for j in texts.indices {
                guard let a = versions[i], let b = versions[j] else { continue }
                let result = a.compare(to: b)
                order[i][j] = result
                check.expect([-1, 0, 1].contains(result), "compare returned \(result)")
                if let x = references[i], let y = references[j] {
                    let expected = ReferenceVersion.compare(x, y)
                    check.expect(result == expected,
                                 "compare(\(show(texts[i])), \(show(texts[j]))) = \(result), reference says \(expected)")
                }
            }
        }
        for i in texts.indices {
            for j in texts.indices {
                guard let ij = order[i][j], let ji = order[j][i] else { continue }
                check.expect(ij == -ji, "not antisymmetric: \(show(texts[i])) vs \(show(texts[j])): \(ij) and \(ji)")
                for k in texts.indices where i < fuzzed || j < fuzzed || k < fuzzed {
                    guard let jk = order[j][k], let ik = order[i][k] else { continue }
                    func names() -> String { "\(show(texts[i])), \(show(texts[j])), \(show(texts[k]))" }
                    if ij <= 0, jk <= 0 { check.expect(ik <= 0, "not transitive (≤): \(names()): \(ij) \(jk) \(ik)") }
                    if (ij < 0 && jk <= 0) || (ij <= 0 && jk < 0) {
                        check.expect(ik < 0, "not transitive (<): \(names()): \(ij) \(jk) \(ik)")
                    }
                    if ij == 0, jk == 0 { check.expect(ik == 0, "not transitive (=): \(names())") }
                }
            }
        }

        // C strings end at the first NUL: that prefix is what they mean.
        let cTexts = texts.map { Array($0.prefix { $0 != 0 }) }
        let cBuffers = cTexts.map { ExactBuffer($0, nulTerminated: true) }
        defer { cBuffers.forEach { $0.release() } }
        let cReferences = cTexts.map(ReferenceVersion.parse)
        for i in texts.indices {
            let scanned = Array(versionBytes(cString: cBuffers[i].cString))
            check.expect(scanned == Array(cTexts[i].prefix(Version.maxBytes + 1)),
                         "versionBytes(cString:) of \(show(cTexts[i])) read \(scanned.count) bytes")
        }
        for i in texts.indices {
            for j in texts.indices where i < fuzzed || j < fuzzed {
                let expected = cReferences[i].flatMap { x in cReferences[j].map { y in ReferenceVersion.compare(x, y) } }
                let road = Version.compare(cString: cBuffers[i].cString, cBuffers[j].cString)
                check.expect(road == expected, "C-string road: \(show(cTexts[i])) vs \(show(cTexts[j])) gave "
                             + "\(road.map(String.init) ?? "invalid"), reference \(expected.map(String.init) ?? "invalid")")
                var out: Int32 = 99
                let code = vg_version_compare(&out, cBuffers[i].cString, cBuffers[j].cString)
                if let expected {
                    check.expect(code == VG_OK.rawValue && Int(out) == expected,
                                 "vg_version_compare(\(show(cTexts[i])), \(show(cTexts[j]))) = \(code), \(out)")
                } else {
                    check.expect(code == VG_EVERSION.rawValue && out == 99,
                                 "vg_version_compare(\(show(cTexts[i])), \(show(cTexts[j]))) = \(code), \(out)")
                }
            }
        }

        // The gate, both roads: current, min, latest taken from the set.
        let triples = [(0, 1, 2), (1, 0, 2), (2, 1, 0), (0, fuzzed + 2, fuzzed + 3), (fuzzed + 2, 0, 0)]
        for (c, m, l) in triples where c < texts.count && m < texts.count && l < texts.count {
            func names() -> String { "current \(show(texts[c])), min \(show(texts[m])), latest \(show(texts[l]))" }
            let expected = ReferenceVersion.decide(current: references[c], min: references[m], latest: references[l])
            let status = Gate.decide(current: versions[c], minRequired: versions[m], latest: versions[l])
            check.expect(status == expected, "Gate.decide(\(names())) = \(status), reference \(expected)")
            let cExpected = ReferenceVersion.decide(current: cReferences[c], min: cReferences[m], latest: cReferences[l])
            let cResult = vg_decide(cBuffers[c].cString, cBuffers[m].cString, cBuffers[l].cString)
            check.expect(cResult == cStatus(cExpected), "vg_decide(\(names())) = \(cResult), reference \(cExpected)")
        }
    }
}

// MARK: - Documents and Firebase responses → snapshot → verdict (docs/design.md, "The gate rule", "Sources and the cache")

enum GateProperties {
    static let platforms = ["linux", "ios", "android"]
    /// Current versions every parsed config is checked with (the input may add one).
    static let currents: [[UInt8]] = ["0", "1.0.0", "1.0.39", "2.1.0", "2.4.1-rc.1", "v2.4.1", "9223372036854775807",
                                      "", " ", "garbage", "1.0b1", "2.0 (123)"].map { Array($0.utf8) }
    static let fetchURL = "https://firebaseremoteconfig.googleapis.com/v1/projects/p/namespaces/firebase:fetch?key=k"

    /// Input `current NUL document`, or just `document` (no NUL).
    static func checkDocument(_ input: [UInt8], _ check: inout PropertyCheck) {
        var current: [UInt8]?
        var document = input
        if let nul = input.firstIndex(of: 0) {
            current = Array(input[..<nul])
            document = Array(input[(nul + 1)...])
        }
        let textOK = !document.contains(0) && String(validating: document, as: UTF8.self) != nil
        // What the reader takes, the writer (cache and state files) gives back unchanged.
        if let value = try? JSONValue.decode(document) {
            let written = value.encoded()
            check.expect((try? JSONValue.decode(written)) == value,
                         "JSON written from a read value reads back differently: \(show(written))")
        }
        switch Result(catching: { () throws(GateDocumentError) in try GateDocument.parse(document) }) {
        case .success(let config):
            check.expect(textOK, "a document that is not UTF-8 (or has a NUL) was accepted")
            let object: Bool
            if case .object? = try? JSONValue.decode(document) { object = true } else { object = false }
            check.expect(object, "a document that is not a JSON object was accepted")
            checkConfig(config, extraCurrent: current, &check)
        case .failure(let error):
            if !textOK { check.expect(error == .notUTF8, "non-UTF-8 document rejected as \(error), not notUTF8") }
            checkOneLine(error.message, "GateDocumentError.message", &check)
        }
    }

    /// Input: the body of a 200 answer to a fetch (and of an error status).
    static func checkFirebase(_ input: [UInt8], _ check: inout PropertyCheck) {
        let decoded = try? JSONValue.decode(input)
        let members: [String: JSONValue]?
        if case .object(let object)? = decoded { members = object } else { members = nil }
        let state = members?["state"]
        let isError = members.map { $0.count == 1 && $0["error"] != nil } ?? false
        // What Tests/Fixtures/PROTOCOLS.md §1.5 says the answer is (as the SDKs read it).
        let expected: String
        switch (members == nil || isError, state) {
        case (true, _): expected = "failure"
        case (false, nil), (false, .null?), (false, .string("UPDATE")?):
            switch members?["entries"] {
            case nil, .null?, .object?: expected = "updated"
            default: expected = "failure"
            }
        case (false, .string("NO_CHANGE")?): expected = "notModified"
        case (false, .string("EMPTY_CONFIG")?), (false, .string("NO_TEMPLATE")?): expected = "empty"
        default: expected = "failure"
        }
        let response = HTTPResponse(status: 200, headers: [("etag", "\"e-1\"")], body: input, url: fetchURL)
        let outcome = Result(catching: { () throws(FetchFailure) in
            try FirebaseFetchResponse.outcome(response, source: "fuzz", requestURL: fetchURL, note: nil)
        })
        let kind: String
        switch outcome {
        case .success(.updated): kind = "updated"
        case .success(.notModified): kind = "notModified"
        case .success(.empty): kind = "empty"
        case .failure: kind = "failure"
        }
        check.expect(kind == expected, "a 200 with state \(String(describing: state)) gave \(kind), expected \(expected)")
        switch outcome {
        case .success(.updated(let config, let etag, _, _)):
            check.expect(etag == "\"e-1\"", "etag \(String(describing: etag))")
            var values: [String: String] = [:]
            var others: Set<String> = []
            if case .object(let entries)? = members?["entries"] {
                for (key, value) in entries {
                    if case .string(let text) = value { values[key] = text } else { others.insert(key) }
                }
            }
            check.expect(config.values == values && config.nonStringKeys == others, "entries read as \(config)")
            check.expect(config.templateVersion == FirebaseFetchResponse.templateVersion(members?["templateVersion"]),
                         "templateVersion \(String(describing: config.templateVersion))")
            check.expect((config.templateVersion ?? 0) >= 0, "negative templateVersion")
            checkConfig(config, extraCurrent: nil, &check)
        case .success(.notModified):
            break
        case .success(.empty(let templateVersion, _)):
            check.expect(templateVersion == FirebaseFetchResponse.templateVersion(members?["templateVersion"]),
                         "templateVersion \(String(describing: templateVersion))")
            check.expect((templateVersion ?? 0) >= 0, "negative templateVersion")
        case .failure(let failure):
            check.expect(failure.failure.code == VG_EHTTP.rawValue, "fetch failure code \(failure.failure.code)")
            check.expect(!failure.throttled, "a 200 was read as throttling")
            checkOneLine(failure.failure.message, "fetch failure message", &check)
        }

        // The same body with an error status: always a failure, whose message
        // quotes Google's error body cleanly.
        let statuses = [400, 403, 404, 429, 500, 503, 504]
        let status = statuses[input.count % statuses.count]
        let errorResponse = HTTPResponse(status: status, headers: [("retry-after", "30")], body: input, url: fetchURL)
        switch Result(catching: { () throws(FetchFailure) in
            try FirebaseFetchResponse.outcome(errorResponse, source: "fuzz", requestURL: fetchURL, note: nil)
        }) {
        case .success(let outcome):
            check.expect(false, "HTTP \(status) gave \(outcome)")
        case .failure(let failure):
            check.expect(failure.throttled == CachingHeaders.isThrottling(status), "HTTP \(status) throttled \(failure.throttled)")
            checkOneLine(failure.failure.message, "HTTP \(status) failure message", &check)
        }
    }

    /// What any parsed config must give: consistent keys, a faithful cache
    /// round trip, and for every platform a snapshot whose thresholds,
    /// message and URL obey docs/design.md, "The gate rule", "Where to update", "Messages", and verdicts that agree with
    /// the reference gate and the operator's controls — in particular never
    /// MANDATORY unless the current version is valid and either below a
    /// valid minimum already in effect, or equal to a valid blocked version.
    static func checkConfig(_ config: GateConfig, extraCurrent: [UInt8]?, _ check: inout PropertyCheck) {
        check.expect(Set(config.values.keys).isDisjoint(with: config.nonStringKeys),
                     "keys both usable and unusable: \(Set(config.values.keys).intersection(config.nonStringKeys))")

        let cached = CachedConfig(key: "fuzz", fetchedAt: 1, etag: nil, maxAgeSeconds: nil, empty: false, config: config)
        let reread = CachedConfig.decode(cached.encoded(), key: "fuzz")
        check.expect(reread == cached, "the cache file does not read back the same config: \(show(cached.encoded()))")

        let currentTexts = currents + (extraCurrent.map { [$0] } ?? [])
        let currentBuffers = currentTexts.map { ExactBuffer($0) }
        defer { currentBuffers.forEach { $0.release() } }
        let currentReferences = currentTexts.map(ReferenceVersion.parse)

        for platform in platforms {
            let snapshot = GateSnapshot(config: config, platform: platform, documentName: "fuzz")
            var expectProblem = false

            func threshold(_ key: String, _ text: CText?) -> ReferenceVersion.Parsed? {
                checkCText(text, key, &check)
                if config.nonStringKeys.contains(key) {
                    expectProblem = true
                    check.expect(text == nil, "\(key) is not a string yet gave \(show(text?.string ?? ""))")
                    return nil
                }
                guard let raw = config.values[key], !raw.isEmpty else {
                    check.expect(text == nil, "\(key) is absent yet gave \(show(text?.string ?? ""))")
                    return nil
                }
                let reference = ReferenceVersion.parse(Array(raw.utf8))
                if reference == nil { expectProblem = true }
                check.expect(text.map { Array($0.string.utf8) } == reference?.trimmed,
                             "\(key) \(show(raw)) gave \(text.map { show($0.string) } ?? "nil")")
                return reference
            }
            let min = threshold(GateConfig.minRequiredKey(platform: platform), snapshot.minRequired)
            let latest = threshold(GateConfig.latestKey(platform: platform), snapshot.latest)
            let blocked = referenceBlocked(config.values[GateConfig.blockedVersionsKey(platform: platform)],
                                           expectProblem: &expectProblem)
            if let raw = config.values[GateConfig.minEffectiveAtKey(platform: platform)], !raw.isEmpty,
               snapshot.minEffectiveAt == nil { expectProblem = true }
            let minClauses = referenceClauses(config.values[GateConfig.minRequiresKey(platform: platform)])
            let latestClauses = referenceClauses(config.values[GateConfig.latestRequiresKey(platform: platform)])
            if minClauses.contains(false) || latestClauses.contains(false) { expectProblem = true }
            // The Decision below knows no system facts, so any valid clause is unmet.
            let latestUnmet = latestClauses.contains(true)
            if let raw = config.values[GateConfig.rolloutPercentKey(platform: platform)], !raw.isEmpty {
                let percent = Int64(decimal: ASCII.trimmingBlanks(raw))
                if percent.map({ !(0...100).contains($0) }) ?? true { expectProblem = true }
            }
            // The strict key: "true" or "false" (blanks trimmed; empty is false);
            // anything else is a problem and counts as true (never softens a block).
            let strictKey = GateConfig.strictMinimumKey(platform: platform)
            let strictRaw = config.values[strictKey].map { String(ASCII.trimmingBlanks($0)) }
            let strictNotString = config.nonStringKeys.contains(strictKey)
            let strictKnown = strictRaw == nil || strictRaw == "" || strictRaw == "true" || strictRaw == "false"
            if strictNotString || !strictKnown { expectProblem = true }
            check.expect(snapshot.strictMinimum == (strictNotString || !strictKnown || strictRaw == "true"),
                         "\(strictKey) \(strictRaw.map(show) ?? "nil") gave strict \(snapshot.strictMinimum)")

            checkCText(snapshot.updateMessage, "update_message", &check)
            if let message = snapshot.updateMessage?.string {
                MessageProperties.checkSanitized(message, &check)
            }
            let urlKey = GateConfig.updateURLKey(platform: platform)
            let rawURL = config.values[urlKey].flatMap { $0.isEmpty ? nil : $0 }
            check.expect(snapshot.updateURLText == rawURL, "\(urlKey) \(rawURL.map(show) ?? "nil") became "
                         + "\(snapshot.updateURLText.map(show) ?? "nil")")
            URLProperties.checkResolution(configURL: snapshot.updateURLText, appID: nil, &check)
            check.expect((snapshot.problem != nil) == expectProblem,
                         "\(platform): problem \(snapshot.problem.map(show) ?? "nil"), expected one: \(expectProblem)")
            if let problem = snapshot.problem { checkOneLine(problem, "snapshot problem", &check) }

            for (k, buffer) in currentBuffers.enumerated() {
                // At the Unix epoch, with no installation id: a minimum with a
                // later effective time only warns, a staged OPTIONAL is not shown.
                let verdict = Decision(current: buffer.buffer, snapshot: snapshot)
                let reference = currentReferences[k]
                let isBlocked = reference.map { current in blocked.contains { ReferenceVersion.compare(current, $0) == 0 } } ?? false
                var expected = ReferenceVersion.decide(current: reference, min: min, latest: latest)
                if isBlocked {
                    expected = .mandatory
                } else if expected == .mandatory, let at = snapshot.minEffectiveAt, 0 < at {
                    expected = .optional
                } else if expected == .optional, latestUnmet {
                    expected = .upToDate
                } else if expected == .optional, snapshot.rolloutPercent < 100 {
                    expected = .upToDate
                }
                func names() -> String {
                    "\(platform): current \(show(currentTexts[k])), min \(show(snapshot.minRequired?.string ?? "-")), "
                        + "latest \(show(snapshot.latest?.string ?? "-"))"
                }
                if verdict.status == .mandatory {
                    var below = false
                    if let reference, let min { below = ReferenceVersion.compare(reference, min) < 0 }
                    check.expect(below || isBlocked,
                                 "MANDATORY without a valid current version below a valid minimum or blocked: \(names())")
                }
                check.expect(verdict.status == expected, "verdict \(verdict.status), reference \(expected): \(names())")
                check.expect(verdict.currentText.map { Array($0.utf8) } == reference?.trimmed,
                             "currentText \(verdict.currentText.map(show) ?? "nil") for \(show(currentTexts[k]))")
                if reference == nil {
                    check.expect(verdict.failure?.code == VG_EVERSION.rawValue, "invalid current without VG_EVERSION: \(names())")
                }
                if let failure = verdict.failure { checkOneLine(failure.message, "verdict failure", &check) }
                // The rule is the one the reference took, and its reason one line.
                let rule: GateRule = reference == nil ? .failOpen : isBlocked ? .blocked
                    : verdict.status == .mandatory ? .belowMinimum
                    : verdict.status == .optional ? (expected == .optional && ReferenceVersion.decide(
                        current: reference, min: min, latest: latest) == .mandatory ? .gracePeriod : .belowLatest)
                    : ReferenceVersion.decide(current: reference, min: min, latest: latest) == .upToDate ? .upToDate
                    : latestUnmet ? .requirementsUnmet : .outsideRollout
                check.expect(verdict.rule == rule, "rule \(verdict.rule), reference \(rule): \(names())")
                checkOneLine(verdict.reason, "reason", &check)
            }
        }
    }

    /// Whether each clause of a `_requires` value is well formed, by the
    /// grammar of docs/design.md, "Requirements", written out here apart
    /// from Requirements.parse; none for an absent or blank value. A
    /// malformed clause must be reported.
    static func referenceClauses(_ raw: String?) -> [Bool] {
        guard let raw, !ASCII.trimmingBlanks(raw).isEmpty else { return [] }
        return raw.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map(referenceClauseValid)
    }

    private static func referenceClauseValid(_ piece: ArraySlice<UInt8>) -> Bool {
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
            ArraySlice(bytes.drop(while: blank).reversed().drop(while: blank).reversed())
        }
        let text = trimmed(piece)
        let name = text.prefix { (0x61...0x7A).contains($0) || $0 == UInt8(ascii: "_") }
        let versionFacts = ["glibc", "kernel", "os_version"], nameFacts = ["arch", "os"]
        let fact = String(decoding: name, as: UTF8.self)
        guard versionFacts.contains(fact) || nameFacts.contains(fact) else { return false }
        let rest = text.dropFirst(name.count).drop(while: blank)
        guard let op = [">=", "<=", "!=", ">", "<", "="].first(where: { rest.starts(with: $0.utf8) }) else { return false }
        let value = trimmed(rest.dropFirst(op.utf8.count))
        if versionFacts.contains(fact) { return ReferenceVersion.parse(Array(value)) != nil }
        let allowed: (UInt8) -> Bool = {
            (0x61...0x7A).contains($0) || ReferenceVersion.isDigit($0) || [0x5F, 0x2D, 0x2E].contains($0)
        }
        return op == "=" && value.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false)
            .allSatisfy { !$0.isEmpty && $0.allSatisfy(allowed) }
    }

    /// The valid entries of a blocked_versions list by the reference parser;
    /// an invalid one (an empty one included) must be reported.
    static func referenceBlocked(_ raw: String?, expectProblem: inout Bool) -> [ReferenceVersion.Parsed] {
        guard let raw, !ASCII.trimmingBlanks(raw).isEmpty else { return [] }
        var valid: [ReferenceVersion.Parsed] = []
        for entry in raw.split(separator: ",", omittingEmptySubsequences: false) {
            if let parsed = ReferenceVersion.parse(Array(ASCII.trimmingBlanks(entry).utf8)) {
                valid.append(parsed)
            } else {
                expectProblem = true
            }
        }
        return valid
    }

    /// A C string handed to callers must hold its whole string: an inner NUL
    /// would cut it, and CText.bytes would read past the copy.
    static func checkCText(_ text: CText?, _ what: String, _ check: inout PropertyCheck) {
        guard let text else { return }
        check.expect(!text.string.utf8.contains(0), "\(what) holds a NUL: \(show(text.string))")
        check.expect(text.cString != nil, "\(what) has no C string")
    }

    /// An error text quoting input (a server's answer, a config value) meant
    /// for one line of a log or dialog: no control characters (so no line
    /// break, ESC or BEL), no line or paragraph separators (U+2028/2029) and
    /// no bidi controls, as GoogleErrorBody.printable and Verdict's
    /// printable() promise.
    static func checkOneLine(_ message: String, _ what: @autoclosure () -> String, _ check: inout PropertyCheck) {
        let bad = message.unicodeScalars.first { scalar in
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
        check.expect(bad == nil, "\(what()) contains U+\(String(bad?.value ?? 0, radix: 16)): \(show(message))")
    }
}

// MARK: - Store URLs (docs/design.md, "Where to update")

enum URLProperties {
    /// The default, and two a launcher might set (options allowed_url_schemes
    /// / allowed_url_hosts), so that "allowed" is not only the defaults.
    static let policies: [StoreURLPolicy] = [
        .standard,
        StoreURLPolicy(allowedSchemes: ["https"], allowedHosts: ["example.org", "a-b.example"]),
        StoreURLPolicy(allowedSchemes: StoreURLPolicy.supportedSchemes, allowedHosts: []),
    ]
    static let bundleID = "com.example.Launcher"

    /// The input as a URL under every policy, as the config's URL and the
    /// launcher's fallback in the resolver, and as an app id for every store.
    static func check(_ text: String, _ check: inout PropertyCheck) {
        for policy in policies {
            if let why = policy.refusal(of: text) {
                GateProperties.checkOneLine(why, "URL refusal", &check)
            } else {
                checkAccepted(text, policy, &check)
            }
        }
        checkResolution(configURL: text, appID: nil, &check)
        checkResolution(configURL: nil, appID: text, &check)
        for store in StoreKind.allCases {
            if case .success(let links) = store.links(appID: text) {
                checkOwnLinks(links, "\(store) links for app id \(show(text))", &check)
            }
        }
    }

    /// Input: an iTunes Lookup body. A trackId read from it is 1...maxTrackID,
    /// is the first result's (for our bundle id), and makes links the
    /// standard policy accepts.
    static func checkLookup(_ body: [UInt8], _ check: inout PropertyCheck) {
        for bundleID in [bundleID, bundleID.uppercased()] {
            switch ChannelDocuments.appStoreTrackID(body, bundleID: bundleID) {
            case .failure(let refusal):
                GateProperties.checkOneLine(refusal.reason, "lookup refusal", &check)
            case .success(let id):
                check.expect((1...ChannelDocuments.maxTrackID).contains(id), "trackId \(id) out of range")
                var expected: Double?
                var named: JSONValue?
                if case .array(let results)? = (try? JSONValue.decode(body))?["results"], let first = results.first,
                   case .number(let number)? = first["trackId"] {
                    expected = number
                    named = first["bundleId"]
                }
                check.expect(expected == Double(id), "trackId \(id) is not the first result's (\(String(describing: expected)))")
                if case .string(let name)? = named {
                    check.expect(name.lowercased() == bundleID.lowercased(), "trackId \(id) taken from a result for \(show(name))")
                }
                switch StoreKind.appstore.links(appID: bundleID, trackID: id) {
                case .success(let links): checkOwnLinks(links, "App Store links for trackId \(id)", &check)
                case .failure(let refusal): check.expect(false, "no App Store links for trackId \(id): \(refusal.reason)")
                }
            }
        }
    }

    /// An accepted URL passes again, and holds what the URL policy promises (docs/design.md, "The trust model"):
    /// only allowed schemes and hosts, never javascript:, file:, data:,
    /// user information, ports, spaces or control characters. Checked on
    /// its own, and where FoundationEssentials' URL parser reads the URL,
    /// through it too (a second opinion on where the host ends).
    static func checkAccepted(_ url: String, _ policy: StoreURLPolicy, _ check: inout PropertyCheck) {
        check.expect(policy.refusal(of: url) == nil, "accepted URL \(show(url)) is refused the second time")
        let bytes = Array(url.utf8)
        check.expect((1...TransportURL.maxBytes).contains(bytes.count), "accepted URL of \(bytes.count) bytes")
        check.expect(bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") },
                     "accepted URL with a space, control, backslash or non-ASCII byte: \(show(url))")
        let lower = url.lowercased()
        let scheme = String(lower.prefix { $0 != ":" })
        check.expect(policy.allowedSchemes.contains(scheme) && StoreURLPolicy.supportedSchemes.contains(scheme),
                     "accepted scheme \(show(scheme)) not allowed: \(show(url))")
        for banned in ["javascript:", "file:", "data:", "http:"] {
            check.expect(!lower.hasPrefix(banned), "accepted a \(banned) URL: \(show(url))")
        }
        guard scheme == "https" || scheme == "itms-apps" else {
            // appstream:<id>, snap:<name>, snap://<name>: an id and nothing more.
            var rest = lower.dropFirst(scheme.count + 1)
            if scheme == "snap", rest.hasPrefix("//") { rest = rest.dropFirst(2) }
            check.expect(!rest.isEmpty && !rest.contains(where: { "/?#@%:;&=".contains($0) }),
                         "accepted \(scheme): URL that is more than an id: \(show(url))")
            return
        }
        let afterScheme = lower.dropFirst(scheme.count + 1)
        check.expect(afterScheme.hasPrefix("//"), "accepted \(scheme) URL without //host: \(show(url))")
        let authority = String(afterScheme.dropFirst(2).prefix { !"/?#".contains($0) })
        check.expect(policy.allowedHosts.contains(authority), "accepted host \(show(authority)) not allowed: \(show(url))")
        if let parsed = URL(string: url) {
            check.expect(parsed.scheme?.lowercased() == scheme, "URL(string:) scheme \(String(describing: parsed.scheme)) for \(show(url))")
            check.expect(parsed.user == nil && parsed.password == nil, "URL(string:) finds user information in \(show(url))")
            check.expect(parsed.port == nil, "URL(string:) finds a port in \(show(url))")
            let host = parsed.host(percentEncoded: true)?.lowercased()
            check.expect(host == authority, "URL(string:) host \(host.map(show) ?? "nil"), policy saw \(show(authority)) in \(show(url))")
        }
    }

    /// A store's own links for a valid id are usable under the default policy
    /// (else the resolver would silently skip the store).
    static func checkOwnLinks(_ links: StoreLinks, _ what: @autoclosure () -> String, _ check: inout PropertyCheck) {
        for url in [links.primary] + (links.webFallback.map { [$0] } ?? []) {
            let why = StoreURLPolicy.standard.refusal(of: url)
            check.expect(why == nil, "\(what()): \(show(url)) is refused: \(why ?? "")")
            if why == nil { checkAccepted(url, .standard, &check) }
        }
        if let web = links.webFallback { check.expect(web.hasPrefix("https://"), "\(what()): web page \(show(web)) is not https") }
    }

    /// Whatever the config's URL or the app id, the resolver returns only
    /// URLs the policy accepts, an https web page that differs from the URL,
    /// and reports a refused config URL (with a one-line note).
    static func checkResolution(configURL: String?, appID: String?, _ check: inout PropertyCheck) {
        let resolver = StoreResolver(lookup: nil, sandbox: nil)
        let fallback = "https://flathub.org/apps/org.example.Fallback"
        // The config URL is the first candidate whatever the store; an app id
        // matters only to the stores with links of their own.
        let cases: [(StoreURLPolicy, StoreKind)] = appID == nil
            ? policies.flatMap { policy in [(policy, StoreKind.url), (policy, .flathub)] }
            : [StoreKind.flathub, .snap, .appstore].map { (StoreURLPolicy.standard, $0) }
        for (policy, store) in cases {
            do {
                let resolution = resolver.resolve(store: store, appID: appID ?? "org.example.App", country: "us",
                                                  configURL: configURL, fallbackURL: fallback, policy: policy,
                                                  configKey: "update_url_linux")
                func what() -> String { "resolve(\(store), config \(configURL.map(show) ?? "nil"), app \(appID.map(show) ?? "-"))" }
                if let url = resolution.url {
                    check.expect(policy.refusal(of: url) == nil, "\(what()) returned refused \(show(url))")
                    if policy.refusal(of: url) == nil { checkAccepted(url, policy, &check) }
                } else {
                    check.expect(policy.refusal(of: fallback) != nil, "\(what()) returned nothing though the fallback passes")
                }
                if let web = resolution.webFallback {
                    check.expect(policy.refusal(of: web) == nil && web.hasPrefix("https://") && web != resolution.url,
                                 "\(what()) web fallback \(show(web))")
                }
                if let configURL, !configURL.isEmpty {
                    let refused = policy.refusal(of: configURL)
                    check.expect(resolution.configRefusal == refused, "\(what()) configRefusal \(String(describing: resolution.configRefusal)), policy says \(String(describing: refused))")
                    if refused == nil { check.expect(resolution.url == configURL, "\(what()) did not use the accepted config URL") }
                } else {
                    check.expect(resolution.configRefusal == nil, "\(what()) refused an absent config URL")
                }
                if let note = resolution.note { GateProperties.checkOneLine(note, "\(what()) note", &check) }
            }
        }
    }
}

// MARK: - Messages (docs/design.md, "Messages")

enum MessageProperties {
    static func check(_ text: String, _ check: inout PropertyCheck) {
        let result = MessageSanitizer.sanitize(text)
        if let result { checkSanitized(result, &check) }

        // What should come out, computed another way: the allowed scalars,
        // trimmed, then the longest run of whole Characters within 1024 bytes,
        // trimmed again.
        let allowed = String(String.UnicodeScalarView(text.unicodeScalars.filter(isAllowed)))
        let kept = trimmed(allowed)
        var expected = ""
        var length = 0
        for character in kept {
            length += character.utf8.count
            if length > MessageSanitizer.maxBytes { break }
            expected.append(character)
        }
        expected = trimmed(expected)
        check.expect(result == (expected.isEmpty ? nil : expected),
                     "sanitize(\(show(text))) = \(result.map(show) ?? "nil"), expected \(show(expected))")
        if kept.utf8.count <= MessageSanitizer.maxBytes {
            check.expect(result == (kept.isEmpty ? nil : kept), "a short message lost more than its controls: \(show(text))")
        }

        // GoogleErrorBody.printable: server text for one line of an error.
        for max in [1, 64] {
            let line = OneLine.text(text, max: max)
            GateProperties.checkOneLine(line, "OneLine.text", &check)
            check.expect(line.count <= max + 1, "OneLine.text(max: \(max)) gave \(line.count) characters")
        }
    }

    /// The rules of docs/design.md, "Messages" on a sanitized message, and idempotence.
    static func checkSanitized(_ message: String, _ check: inout PropertyCheck) {
        let bytes = Array(message.utf8)
        check.expect(!bytes.isEmpty, "sanitized message is empty (should be nil)")
        check.expect(bytes.count <= MessageSanitizer.maxBytes, "sanitized message of \(bytes.count) bytes")
        check.expect(String(validating: bytes, as: UTF8.self) == message, "sanitized message is not valid UTF-8")
        for scalar in message.unicodeScalars where !isAllowed(scalar) {
            check.expect(false, "sanitized message keeps U+\(String(scalar.value, radix: 16)): \(show(message))")
        }
        let scalars = message.unicodeScalars
        check.expect(scalars.first.map { !$0.properties.isWhitespace } ?? true
                     && scalars.last.map { !$0.properties.isWhitespace } ?? true,
                     "sanitized message not trimmed: \(show(message))")
        let again = MessageSanitizer.sanitize(message)
        check.expect(again == message, "sanitize is not idempotent: \(show(message)) → \(again.map(show) ?? "nil")")
    }

    /// docs/design.md, "Messages": no control characters but "\n", no bidi overrides/embeddings/isolates.
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A: true
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: false
        default: true
        }
    }

    private static func trimmed(_ text: String) -> String {
        var scalars = Array(text.unicodeScalars)
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}

// MARK: - Signatures (minisign: bytes from the document's host)

/// The seeded pairs (Fuzz/README.md, "Seeds": made with minisign 0.11,
/// the secret keys deleted): the only signatures of `document` that exist.
/// The installed version read from any bytes: the parse fails with an
/// error naming the file, or yields the greatest stable release, which is
/// a valid version no other stable release exceeds; the same bytes give
/// the same answer twice.
enum MetainfoProperties {
    static func check(_ input: [UInt8], _ check: inout PropertyCheck) {
        let name = "fuzz.metainfo.xml"
        let first = AppStreamReader.parse(input, .metainfo, name: name)
        let second = AppStreamReader.parse(input, .metainfo, name: name)
        switch (first, second) {
        case (.failure(let failure), .failure(let again)):
            check.expect(failure == again, "two parses of the same bytes fail differently")
            check.expect(failure.kind == .installedVersion, "failure kind \(failure.kind)")
            check.expect(failure.message.hasPrefix(name), "the failure does not name the file: \(failure.message)")
        case (.success(let releases), .success(let again)):
            check.expect(releases.releases == again.releases, "two parses of the same bytes differ")
            check.expect(releases.shapeProblem == nil, "parsed although \(releases.shapeProblem ?? "")")
            let stable = releases.releases.filter { $0.type == nil || $0.type == "stable" }
                .filter { Version.compare($0.version, $0.version) != nil }
            guard let installed = releases.installed else {
                check.expect(stable.isEmpty, "no installed version although \(stable.count) stable releases are valid")
                return
            }
            check.expect(Version.compare(installed, installed) != nil, "installed \(installed) is not a valid version")
            for release in stable {
                check.expect((Version.compare(installed, release.version) ?? -1) >= 0,
                             "installed \(installed) is below the stable release \(release.version)")
            }
            check.expect(stable.contains { Version.compare($0.version, installed) == 0 },
                         "installed \(installed) is none of the stable releases")
        default:
            check.expect(false, "two parses of the same bytes disagree on success")
        }
    }
}

enum SignatureProperties {
    static let document = Array(#"{"linux":{"min_version":"2.0.0","latest_version":"2.1.0"}}"#.utf8) + [0x0A]
    static let key = "RWRSL0TWf/Q6nH2XGDuWjCjeZ+UWCvNINrw/yget9kMrkNGyhi0nlQgy"
    static let otherKey = "RWSRzIfhlNgh9J5f2e6S044Z/if9xlSobKo+q0+GxhAASpvmj2pVKCaA"
    /// (signing key, signature file): prehashed and legacy by `key`, prehashed by `otherKey`.
    static let valid: [(key: String, file: String)] = [
        (key, """
        untrusted comment: signature from minisign secret key
        RURSL0TWf/Q6nIn35XP+VUf0EzqztwCCpYtY7TJt4w4B6efEeCw1VaHfF+nJx2vvUHdGI4cXkHazLoQuUbAM9y2AjUjPRHmNOwM=
        trusted comment: timestamp:1800000000\tfile:gate.json\thashed
        SB5YrNM7Rv0sX+LoM91BAF2Ow4KWXid3pvrwmAw1F9ympeYZNCdtdrA+IxaRlFek8l9TmP3LdMNKyP1/1PDdAQ==

        """),
        (key, """
        untrusted comment: signature from minisign secret key
        RWRSL0TWf/Q6nFt5i13eUkfl/Wi0Ww9bfbc5PqrPFoo9HhrZXQioH4yD4hEA2btdMZBIaARuglB20JlMVYjBc0yzQGE1fqThvAc=
        trusted comment: timestamp:1700000000\tfile:gate.json
        syUg38XcxjNDRpiAQTtmvHnWAz2JgTPvHmxpg+eqvHIbP0hvH2oW2Z13eZEeI+4UvTiyX9CVBNVELhNfMwARBg==

        """),
        (otherKey, """
        untrusted comment: signature from minisign secret key
        RUSRzIfhlNgh9BfE9d9omzLpE/NP6KNf01ntXzifxIxm1yJra+62QP7QjG3nR5F0k+4eNyed3A5n775zuVsar08sc9WVWysd5wo=
        trusted comment: timestamp:1800000000\tfile:gate.json
        RTLTWjb6f3q8pr7PwLuq+c1OmVJQVKVMNQ21pf/EshWUV7PAUTTZCwv0QGJPIy0YrKfytL4kMDMvasdS6XyuBA==

        """),
    ]
    /// Parsed once; a seed that stopped parsing is a failure of every input.
    static let validParsed: [(key: MinisignPublicKey?, signature: MinisignSignature?)] = valid.map {
        (MinisignPublicKey.parse(Substring($0.key)),
         try? MinisignSignature.parse(Array($0.file.utf8)).get())
    }

    static func check(_ input: [UInt8], _ check: inout PropertyCheck) {
        for (index, pair) in validParsed.enumerated() {
            check.expect(pair.key != nil && pair.signature != nil, "seeded pair \(index) does not parse")
        }
        let keyPart: [UInt8]?
        let file: [UInt8]
        if let nul = input.firstIndex(of: 0) {
            keyPart = Array(input[..<nul])
            file = Array(input[(nul + 1)...])
        } else {
            keyPart = nil
            file = input
        }
        var keys = [MinisignPublicKey.parse(Substring(key))!]
        if let keyPart {
            let text = String(decoding: keyPart, as: UTF8.self)
            checkKey(keyPart, &check)
            if let list = MinisignPublicKey.parseList(text) {
                for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                    let trimmed = String(item).trimmingBlanks
                    check.expect(MinisignPublicKey.parse(Substring(trimmed)) != nil,
                                 "parseList(\(show(text))) accepted the item \(show(trimmed))")
                }
                keys += list
            }
        }
        let parsed = checkSignatureFile(file, &check)

        // Trusted exactly when it is a seeded signature and its key is trusted:
        // anything else would be a forgery (or a check that lets one through).
        let verdict = SignatureCheck(keys: keys).verify(document, signatureFile: file, document: "gate.json",
                                                        signatureName: "gate.json.minisig",
                                                        crypto: LibcryptoSignatureCrypto())
        // The key id is a label that neither signature covers: a seeded
        // signature relabelled, under a trusted key of the same material and
        // the same new label, is still that key's signature (found by fuzzing:
        // Fuzz/Regressions/signature/relabelled-key-id).
        let genuine = parsed.flatMap { signature in
            validParsed.contains { pair in
                guard let seeded = pair.signature, let seededKey = pair.key else { return false }
                return seeded.algorithm == signature.algorithm && seeded.signature == signature.signature
                    && seeded.trustedComment == signature.trustedComment
                    && seeded.globalSignature == signature.globalSignature
                    && keys.contains { $0.key == seededKey.key && $0.keyID == signature.keyID }
            } ? signature : nil
        }
        switch verdict {
        case .success(let trusted):
            check.expect(genuine != nil, "trusted a signature that is not a seeded one: \(show(file))")
            if let genuine {
                check.expect(trusted == DocumentSignature(keyID: genuine.keyID, timestamp: genuine.timestamp),
                             "trusted as \(trusted), the signature says key \(genuine.keyID) at \(String(describing: genuine.timestamp))")
            }
        case .failure(let failure):
            check.expect(genuine == nil, "refused a seeded signature with a trusted key: \(failure.message)")
            check.expect(failure.kind == .signature, "refused as \(failure.kind), not .signature")
            GateProperties.checkOneLine(failure.message, "signature refusal", &check)
        }
    }

    /// One key line, or a trusted_keys list: a key parses only from canonical
    /// base64 of "Ed" + 40 bytes, and no shorter prefix of a key is one.
    static func checkKey(_ line: [UInt8], _ check: inout PropertyCheck) {
        guard let key = MinisignPublicKey.parse(Substring(String(decoding: line, as: UTF8.self))) else { return }
        check.expect(referenceBase64(Array("Ed".utf8) + key.keyID + key.key) == line,
                     "key \(show(line)) is not the canonical base64 of its fields")
        for end in 0..<line.count where MinisignPublicKey.parse(Substring(String(decoding: line[..<end], as: UTF8.self))) != nil {
            check.expect(false, "the \(end)-byte prefix of key \(show(line)) parses too")
        }
    }

    /// The file's parse, checked against the format; nil when it is refused.
    static func checkSignatureFile(_ file: [UInt8], _ check: inout PropertyCheck) -> MinisignSignature? {
        guard case .success(let signature) = MinisignSignature.parse(file) else { return nil }
        // Four lines, LF or CRLF, the last LF optional: read the other way round.
        var lines = file.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? Array(line.dropLast()) : Array(line)
        }
        if lines.last == [] { lines.removeLast() }
        guard lines.count == 4 else {
            check.expect(false, "parsed a file of \(lines.count) lines: \(show(file))")
            return signature
        }
        let tag: [UInt8] = signature.algorithm == .prehashed ? Array("ED".utf8) : Array("Ed".utf8)
        check.expect(lines[0].starts(with: Array("untrusted comment: ".utf8)) && lines[0].count <= 19 + 1024,
                     "line 1 \(show(lines[0])) accepted")
        check.expect(referenceBase64(tag + signature.keyID + signature.signature) == lines[1],
                     "line 2 \(show(lines[1])) is not the canonical base64 of its fields")
        check.expect(lines[2] == Array("trusted comment: ".utf8) + signature.trustedComment
                     && signature.trustedComment.count <= 8192, "line 3 \(show(lines[2])) is not its trusted comment")
        check.expect(referenceBase64(signature.globalSignature) == lines[3],
                     "line 4 \(show(lines[3])) is not the canonical base64 of the global signature")
        // Truncated in transit: every prefix is refused or reads the same
        // (only a dropped final LF or CR can do that).
        for end in 0..<file.count {
            if case .success(let shorter) = MinisignSignature.parse(Array(file[..<end])) {
                check.expect(shorter == signature, "the \(end)-byte prefix of \(show(file)) parses differently")
            }
        }
        return signature
    }

    /// RFC 4648 base64 with padding, written the obvious way.
    static func referenceBase64(_ bytes: [UInt8]) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)]) + [0, 0]
            let group = UInt32(chunk[0]) << 16 | UInt32(chunk[1]) << 8 | UInt32(chunk[2])
            let kept = min(3, bytes.count - index) + 1
            for sextet in 0..<4 {
                out.append(sextet < kept ? alphabet[Int(group >> UInt32(18 - 6 * sextet) & 63)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return out
    }
}

private extension String {
    /// Without leading and trailing spaces (parseList's rule).
    var trimmingBlanks: String {
        var scalars = Array(unicodeScalars)
        while scalars.first == " " { scalars.removeFirst() }
        while scalars.last == " " { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}

// MARK: - AppImage updates by zsync (docs/design.md, "Updating an AppImage by zsync")

enum ZsyncProperties {
    static func check(_ input: [UInt8], _ check: inout PropertyCheck) {
        checkControl(input, &check)
        checkRebuild(input, &check)
    }

    private static func checkControl(_ input: [UInt8], _ check: inout PropertyCheck) {
        let control: ZsyncControl
        do throws(ZsyncControlError) {
            control = try ZsyncControl(parsing: input)
        } catch {
            check.expect(!error.message.unicodeScalars.contains { ControlScalar($0) != nil }, "message not one line: \(show(error.message))")
            return
        }
        let size = UInt64(control.blockSize)
        check.expect(control.blockSize.nonzeroBitCount == 1 && ZsyncControl.blockSizes.contains(control.blockSize),
                     "block size \(control.blockSize)")
        check.expect(control.length >= 1 && control.length <= ZsyncControl.maxLength, "length \(control.length)")
        check.expect(UInt64(control.blockCount) == (control.length + size - 1) / size,
                     "\(control.blockCount) blocks for \(control.length) bytes of \(size)")
        check.expect(control.checksums.count == control.blockCount * control.checksumBytes, "checksum bytes")
        check.expect(control.rsums.allSatisfy { $0 & ~control.rsumMask == 0 }, "an rsum wider than \(control.rsumBytes) bytes")
        check.expect((1...2).contains(control.seqMatches) && (1...4).contains(control.rsumBytes)
                     && (3...16).contains(control.checksumBytes), "hash lengths")
        check.expect(control.sha1.count == 20 && !control.urls.isEmpty, "SHA-1 or URLs")
        check.expect((try? ZsyncControl(parsing: control.serialized())) == control, "the serialization parses back different")
        // The scan over the input itself: every block it claims is there.
        guard control.blockSize <= 4096 else { return }
        let plan = ZsyncMatcher.plan(control, seed: input)
        checkPlan(plan, control, seed: input, &check)
    }

    /// A plan is sound: each copied block's padded seed bytes have the
    /// block's sums, and the fetched ranges are ascending, apart, in bounds
    /// and exactly the blocks not copied.
    private static func checkPlan(_ plan: ZsyncPlan, _ control: ZsyncControl, seed: [UInt8], _ check: inout PropertyCheck) {
        check.expect(plan.blockCount == control.blockCount, "plan of \(plan.blockCount) blocks")
        var fetchedBytes: UInt64 = 0
        for block in 0..<plan.blockCount {
            guard let offset = plan.seedOffset(ofBlock: block) else {
                fetchedBytes += UInt64(plan.range(ofBlock: block).count)
                continue
            }
            check.expect(offset < UInt64(seed.count), "block \(block) copied from \(offset), past the seed")
            guard offset < UInt64(seed.count) else { continue }
            var bytes = Array(seed[Int(offset)..<min(Int(offset) + control.blockSize, seed.count)])
            bytes += [UInt8](repeating: 0, count: control.blockSize - bytes.count)
            check.expect(ZsyncRollingChecksum(bytes).value & control.rsumMask == control.rsums[block]
                         && MD4.digest(bytes).hasPrefix(control.checksums, at: block * control.checksumBytes, count: control.checksumBytes),
                         "block \(block) copied from \(offset) does not have its sums")
        }
        let ranges = plan.fetchRanges
        for (a, b) in zip(ranges, ranges.dropFirst()) { check.expect(a.upperBound < b.lowerBound, "ranges \(a), \(b) not apart") }
        check.expect(ranges.allSatisfy { !$0.isEmpty && $0.upperBound <= control.length }, "a range out of bounds")
        check.expect(ranges.reduce(0) { $0 + UInt64($1.count) } == fetchedBytes, "ranges cover other than the fetched blocks")
    }

    /// The input as `target NUL seed` (no NUL: seed = target reversed): a
    /// control made for the target with widths from its first byte; the
    /// plan and assembly must rebuild the target exactly.
    private static func checkRebuild(_ input: [UInt8], _ check: inout PropertyCheck) {
        guard let first = input.first else { return }
        let body = input.dropFirst()
        let target: [UInt8], seed: [UInt8]
        if let nul = body.firstIndex(of: 0) {
            target = Array(body[..<nul])
            seed = Array(body[(nul + 1)...])
        } else {
            target = Array(body)
            seed = target.reversed()
        }
        guard !target.isEmpty else { return }
        let blockSize = 64 << Int(first & 3)
        let seq = 1 + Int(first >> 2 & 1), rsumBytes = 1 + Int(first >> 3 & 3), checksumBytes = [3, 4, 8, 16][Int(first >> 5 & 3)]
        var header = "zsync: 0.6.2\nBlocksize: \(blockSize)\nLength: \(target.count)\nHash-Lengths: \(seq),\(rsumBytes),\(checksumBytes)\n"
        let hex = Array("0123456789abcdef".utf8)
        header += "URL: t\nSHA-1: " + String(decoding: SHA1.digest(target).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }, as: UTF8.self) + "\n\n"
        var bytes = Array(header.utf8)
        for start in stride(from: 0, to: target.count, by: blockSize) {
            var block = Array(target[start..<min(start + blockSize, target.count)])
            block += [UInt8](repeating: 0, count: blockSize - block.count)
            let rsum = ZsyncRollingChecksum(block).value
            for k in (0..<rsumBytes).reversed() { bytes.append(UInt8(truncatingIfNeeded: rsum >> UInt32(k * 8))) }
            bytes += MD4.digest(block).bytes.prefix(checksumBytes)
        }
        guard let control = try? ZsyncControl(parsing: bytes) else {
            check.expect(false, "the control made for a \(target.count)-byte target does not parse")
            return
        }
        let plan = ZsyncMatcher.plan(control, seed: seed)
        checkPlan(plan, control, seed: seed, &check)
        var output: [UInt8] = []
        do throws(ZsyncUpdateError) {
            try ZsyncAssembler.assemble(control, plan: plan, readSeed: { offset, count in
                Array(seed[Int(offset)..<(Int(offset) + count)])
            }, fetched: { range in
                Array(target[Int(range.lowerBound)..<Int(range.upperBound)])
            }, write: { output += $0; return true })
            check.expect(output == target, "the assembled file differs from the target")
        } catch {
            // Identical windows with weak short checksums can match wrongly
            // only if MD4 collides too: never with these inputs.
            check.expect(false, "assembly failed: \(error.message)")
        }
    }
}

enum UpdInfoProperties {
    static func check(_ input: [UInt8], _ check: inout PropertyCheck) {
        do throws(AppImageUpdateInformationError) {
            let information = try AppImageUpdateInformation(parsing: input)
            let text = input.prefix { $0 != 0 }
            let written: String
            switch information {
            case .zsync(let url): written = "zsync|" + url
            case .gitHubReleases(let user, let repository, let tag, let glob):
                written = ["gh-releases-zsync", user, repository, tag, glob].joined(separator: "|")
            }
            check.expect(Array(written.utf8) == Array(text), "parsed \(information), not the text \(show(Array(text)))")
            check.expect(input.count <= 1024 && !text.contains { $0 < 0x20 || $0 == 0x7F }, "accepted \(show(input))")
        } catch {
            check.expect(!error.message.unicodeScalars.contains { ControlScalar($0) != nil }, "message not one line: \(show(error.message))")
        }
        // The input as a file: reads stay inside it, a found section too.
        for claimed in [UInt64(input.count), UInt64(input.count) + 4096] {
            var outside = false
            var reads = 0
            let read: (UInt64, Int) -> [UInt8]? = { offset, count in
                reads += 1
                guard count >= 0, offset <= claimed, UInt64(count) <= claimed - offset else {
                    outside = true
                    return nil
                }
                guard offset <= UInt64(input.count), count <= input.count - Int(offset) else { return nil }
                return Array(input[Int(offset)..<(Int(offset) + count)])
            }
            for name in [".upd_info", ".shstrtab"] {
                if let section = try? ELFSection.find(name, fileSize: claimed, read: read) {
                    check.expect(section.offset <= claimed && section.size <= claimed - section.offset,
                                 "\(name) at \(section.offset)+\(section.size) outside a \(claimed)-byte file")
                }
            }
            do throws(AppImageUpdateInformationError) {
                _ = try AppImageUpdateInformation.read(fileSize: claimed, read)
            } catch {
                check.expect(!error.message.unicodeScalars.contains { ControlScalar($0) != nil }, "message not one line: \(show(error.message))")
            }
            check.expect(!outside, "a read outside the \(claimed)-byte file")
            // Each find: identification, header, section table, name table; then the section.
            check.expect(reads <= 3 * 4 + 1, "\(reads) reads")
        }
    }
}

// MARK: - The administrator's policy (docs/design.md, "The administrator's policy")

/// A policy file from any bytes: all of it or nothing, within 64 KiB; what
/// a layer keeps is the file's (a message cut, a link https or dropped),
/// AdministratorPolicy applies an app's own keys over the top level, and
/// `versiongate policy` prints each as one line.
enum PolicyProperties {
    static let file = "/etc/versiongate/policy.d/50-fuzz.json"

    static func check(_ input: [UInt8], _ check: inout PropertyCheck) {
        let parsed = PolicyLayer.parse(input, file: file)
        check.expect(parsed == PolicyLayer.parse(input, file: file), "two parses of the same bytes differ")
        if input.count > PolicyLayer.maxBytes {
            if case .success = parsed { check.expect(false, "accepted \(input.count) bytes, over \(PolicyLayer.maxBytes)") }
        } else if case .success = PolicyLayer.parse(input + [UInt8](repeating: 0x20, count: PolicyLayer.maxBytes + 1 - input.count),
                                                    file: file) {
            check.expect(false, "accepted \(PolicyLayer.maxBytes + 1) bytes (the input and blanks)")
        }
        guard case .success(let layer) = parsed else { return }
        // Blanks up to the limit: the same JSON, the same layer.
        check.expect(PolicyLayer.parse(input + [UInt8](repeating: 0x20, count: PolicyLayer.maxBytes - input.count), file: file)
                     == parsed, "\(PolicyLayer.maxBytes) bytes (the input and blanks) parse differently")
        check.expect(layer.file == file, "the layer names \(show(layer.file))")
        guard case .object(let members)? = try? JSONValue.decode(input) else {
            check.expect(false, "parsed, but not a JSON object")
            return
        }
        checkSection(layer.everyApp, members, prefix: "", layer, &check)
        for (app, keys) in layer.apps {
            guard case .object(let section)? = members["apps"]?[app] else {
                check.expect(false, "apps.\(show(app)): no such section in the file")
                continue
            }
            checkSection(keys, section, prefix: "apps.\(app).", layer, &check)
        }

        var policy = AdministratorPolicy()
        policy.add(layer)
        check.expect(policy.files == [file] && policy.isManaged, "files \(policy.files)")
        check.expect(policy.keys(appID: nil) == layer.everyApp, "keys(appID: nil) are not the top level's")
        let top = settings(layer.everyApp)
        for (app, own) in layer.apps {
            check.expect(settings(policy.keys(appID: app)) == top.merging(settings(own)) { _, its in its },
                         "apps.\(show(app)): not its own keys over the top level's")
        }
        let lines = policy.lines
        check.expect(lines.count == top.count + layer.apps.values.reduce(0) { $0 + settings($1).count },
                     "\(lines.count) lines")
        for line in lines {
            check.expect(!line.value.utf8.contains(0x0A) && !line.value.utf8.contains(0x0D),
                         "a value across lines: \(show(line.key)) = \(show(line.value))")
            check.expect(line.file == file, "\(show(line.key)) from \(show(line.file))")
        }
    }

    /// One section's keys against its JSON members: every setting from the
    /// file, the message the text's first 500 characters, the link an https
    /// URL (ASCII case-insensitive) the policy accepts, as written, or dropped.
    private static func checkSection(_ keys: AdministratorPolicy.Keys, _ members: [String: JSONValue], prefix: String,
                                     _ layer: PolicyLayer, _ check: inout PropertyCheck) {
        for (name, held) in settings(keys) { check.expect(held.file == file, "\(prefix)\(name) from \(show(held.file))") }
        if case .string(let text)? = members["managed_message"] {
            let message = keys.managedMessage?.value ?? ""
            check.expect(message.count <= PolicyLayer.maxMessageCharacters, "\(prefix)managed_message of \(message.count) characters")
            check.expect(Array(text.utf8).starts(with: Array(message.utf8)) && (text.count > PolicyLayer.maxMessageCharacters
                         || message == text), "\(prefix)managed_message \(show(message)) is not the start of \(show(text))")
        } else {
            check.expect(keys.managedMessage == nil, "\(prefix)managed_message not in the file")
        }
        if case .string(let text)? = members["managed_url"] {
            if let url = keys.managedURL?.value {
                check.expect(url == text, "\(prefix)managed_url \(show(url)), not \(show(text))")
                check.expect(StoreURLPolicy.anyHostHTTPSRefusal(url) == nil, "\(prefix)managed_url \(show(url)) kept though refused")
                check.expect(Array(url.utf8.prefix(8)).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 } == Array("https://".utf8),
                             "\(prefix)managed_url \(show(url)) is not https")
            } else {
                check.expect(StoreURLPolicy.anyHostHTTPSRefusal(text) != nil, "\(prefix)managed_url \(show(text)) dropped though accepted")
                check.expect(layer.dropped.contains("\"\(prefix)managed_url\" must be an https URL; ignored"),
                             "\(prefix)managed_url dropped without a word")
            }
        } else {
            check.expect(keys.managedURL == nil, "\(prefix)managed_url not in the file")
        }
    }

    /// One key's value and file.
    private struct Held: Equatable {
        let value: String
        let file: String
    }

    /// The keys set, by name, spelt out here (not through `lines`, which is checked).
    private static func settings(_ keys: AdministratorPolicy.Keys) -> [String: Held] {
        var held: [String: Held] = [:]
        if let s = keys.mandatory { held["mandatory"] = Held(value: s.value.rawValue, file: s.file) }
        if let s = keys.inPlaceUpdates { held["in_place_updates"] = Held(value: "\(s.value)", file: s.file) }
        if let s = keys.optionalPrompts { held["optional_prompts"] = Held(value: "\(s.value)", file: s.file) }
        if let s = keys.managedMessage { held["managed_message"] = Held(value: s.value, file: s.file) }
        if let s = keys.managedURL { held["managed_url"] = Held(value: s.value, file: s.file) }
        if let s = keys.network { held["network"] = Held(value: "\(s.value)", file: s.file) }
        if let s = keys.source { held["source"] = Held(value: s.value, file: s.file) }
        return held
    }
}

// MARK: - A channel's cached answer (docs/design.md, "Asking the channel")

/// SplitMix64: a reproducible generator, so that a finding replays with
/// the same jitter (seeded from the input).
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476C_E5E9_CFB9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The input as a cache file (for the question and machine it names, and
/// for "k" on amd64): a decoded entry is whole and encodes to itself. As a
/// store's 200 body for each HTTP question: the entry keeps its question
/// and machine, and either serves the body's version, confirmed now, or
/// keeps the last answer and backs off into the future (never refusing a
/// version of at most Version.maxBytes); what the helper writes then, the
/// host reads back. Failures (other statuses, and the
/// input as a failure's reason): the answer kept, a backoff of at most 24 h.
enum ChannelEntryProperties {
    static let now: Int64 = 1_800_000_000
    static let questions: [ChannelQuestion] = [.appStore(bundleID: "a.b", country: "us"), .snap(name: "x", architecture: "amd64"),
                                               .flathub(appID: "a.b")]

    /// Nothing known yet; and an answer, validators and a backoff that is over.
    static let fresh = ChannelEntry(key: "k", architecture: "amd64")
    static var known: ChannelEntry {
        var entry = fresh
        (entry.served, entry.confirmedAt, entry.trackID) = ("1.0.24", now - 86_400, 1_500_000_001)
        (entry.etag, entry.lastModified) = ("\"old\"", "Fri, 04 Dec 2026 10:00:00 GMT")
        (entry.backoff, entry.problem) = (Backoff(until: now - 60, failures: 3), "HTTP 503")
        return entry
    }

    static func check(_ input: [UInt8], _ check: inout PropertyCheck) {
        var random = SplitMix64(state: input.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 })
        let decoded = checkDecode(input, &check)
        for previous in [fresh, known] + decoded {
            for question in questions {
                checkBody(previous, question, input, written: previous == fresh || previous == known, &random, &check)
            }
        }
        // The first 8 bytes as a Retry-After (negative, huge and zero too).
        let retryAfter = input.prefix(8).reduce(0) { $0 << 8 | Int($1) }
        for previous in [fresh, known] {
            for status in [304, 404, 429, 500, 503] {
                let next = previous.answered(status: status, body: input, etag: nil, lastModified: nil, retryAfterSeconds: retryAfter,
                                             question: questions[0], now: now, random: &random)
                let honoured = status == 429 || status == 503 ? retryAfter : nil
                checkFailure(previous, next, retryAfter: status == 304 && previous.served != nil ? nil : honoured,
                             confirmed: status == 304 && previous.served != nil, "HTTP \(status)", &check)
            }
            let reason = String(decoding: input.prefix(256), as: UTF8.self)
            let next = previous.failed(reason, retryAfterSeconds: retryAfter, now: now, random: &random)
            checkFailure(previous, next, retryAfter: retryAfter, confirmed: false, "failed", &check)
            check.expect(next.problem != nil, "failed: no problem")
        }
    }

    /// As a cache file: nil, or a whole entry of the question and machine
    /// asked, that encodes to bytes which decode to it.
    private static func checkDecode(_ input: [UInt8], _ check: inout PropertyCheck) -> [ChannelEntry] {
        var names = [(key: "k", architecture: "amd64")]
        if let value = try? JSONValue.decode(input), case .string(let key)? = value["key"],
           case .string(let architecture)? = value["architecture"], key != "k" || architecture != "amd64" {
            names.append((key, architecture))
        }
        var entries: [ChannelEntry] = []
        for (key, architecture) in names {
            guard let entry = ChannelEntry.decode(input, key: key, architecture: architecture) else { continue }
            entries.append(entry)
            let said = "entry for \(show(key)) on \(show(architecture))"
            check.expect(input.count <= ChannelEntry.maxBytes, "\(said): decoded from \(input.count) bytes")
            check.expect(entry.key == key && entry.architecture == architecture, "\(said): decoded as another question or machine")
            check.expect(ChannelEntry.decode(input, key: key + "x", architecture: architecture) == nil
                         && ChannelEntry.decode(input, key: key, architecture: architecture + "x") == nil,
                         "\(said): decoded for another question or machine too")
            check.expect((entry.served == nil) == (entry.confirmedAt == nil),
                         "\(said): served \(String(describing: entry.served)), confirmed at \(String(describing: entry.confirmedAt))")
            if let id = entry.trackID { check.expect((1...ChannelDocuments.maxTrackID).contains(id), "\(said): trackID \(id)") }
            if let backoff = entry.backoff { check.expect((1...32).contains(backoff.failures), "\(said): \(backoff.failures) failures") }
            let encoded = entry.encoded()
            check.expect(ChannelEntry.decode(encoded, key: key, architecture: architecture) == entry,
                         "\(said): encodes to \(encoded.count) bytes that do not decode to it: \(show(encoded))")
        }
        return entries
    }

    /// The input as a 200's body for `question`.
    private static func checkBody(_ previous: ChannelEntry, _ question: ChannelQuestion, _ body: [UInt8], written: Bool,
                                  _ random: inout SplitMix64, _ check: inout PropertyCheck) {
        let next = previous.answered(status: 200, body: body, etag: "\"e\"", lastModified: "Sat, 05 Dec 2026 10:00:00 GMT",
                                     retryAfterSeconds: nil, question: question, now: now, random: &random)
        let said = "200 from \(question.channel)"
        check.expect(next.key == previous.key && next.architecture == previous.architecture, "\(said): another question or machine")
        let version = try? question.version(from: body).get()
        if let backoff = next.backoff {
            // Refused: a body with no version, or one no version is (longer than the grammar allows).
            check.expect((version?.utf8.count ?? Int.max) > Version.maxBytes, "\(said): \(show(version ?? "")) refused")
            check.expect(backoff.until > now, "\(said): backoff until \(backoff.until), not after \(now)")
            check.expect(next.served == previous.served && next.confirmedAt == previous.confirmedAt
                         && next.trackID == previous.trackID && next.etag == previous.etag, "\(said): the last answer lost")
            check.expect(next.problem != nil, "\(said): a backoff without a problem")
        } else {
            check.expect(next.served != nil && next.served == version, "\(said): served \(show(next.served ?? "nil")), "
                         + "the body says \(show(version ?? "nil"))")
            check.expect(next.confirmedAt == now && next.problem == nil, "\(said): not confirmed now")
            check.expect(next.trackID == (question.trackID(from: body) ?? previous.trackID), "\(said): trackID \(String(describing: next.trackID))")
            check.expect(next.etag == "\"e\"" && next.lastModified == "Sat, 05 Dec 2026 10:00:00 GMT", "\(said): validators not kept")
        }
        // What the helper writes (ChannelService), the host reads (ChannelAsker).
        if written {
            let encoded = next.encoded()
            check.expect(ChannelEntry.decode(encoded, key: next.key, architecture: next.architecture) == next,
                         "\(said): the entry written (\(encoded.count) bytes) does not read back: \(show(encoded))")
        }
    }

    /// After a failure: the answer kept, the next request 1 s to 24 h away
    /// (Retry-After's wait at least, up to 24 h). A 304 with an answer confirms it.
    private static func checkFailure(_ previous: ChannelEntry, _ next: ChannelEntry, retryAfter: Int?, confirmed: Bool,
                                     _ said: String, _ check: inout PropertyCheck) {
        check.expect(next.key == previous.key && next.architecture == previous.architecture, "\(said): another question or machine")
        check.expect(next.served == previous.served && next.trackID == previous.trackID, "\(said): the last answer lost")
        if confirmed {
            check.expect(next.confirmedAt == now && next.backoff == nil && next.problem == nil, "\(said): not confirmed now")
            return
        }
        check.expect(next.confirmedAt == previous.confirmedAt, "\(said): confirmed at \(String(describing: next.confirmedAt))")
        guard let backoff = next.backoff else { return check.expect(false, "\(said): no backoff") }
        let wait = backoff.until - now
        check.expect(wait > 0 && wait <= Backoff.maxRetryAfterSeconds, "\(said): backoff of \(wait) s")
        check.expect(wait >= min(Int64(max(retryAfter ?? 0, 0)), Backoff.maxRetryAfterSeconds), "\(said): Retry-After \(retryAfter ?? 0) not honoured")
        check.expect(backoff.failures == min((previous.backoff?.failures ?? 0) + 1, 32), "\(said): \(backoff.failures) failures")
    }
}

// MARK: - The regression test

#if !VG_FUZZ_HARNESS
/// Every input fuzzing turned up (a file in Fuzz/Regressions/<target>/,
/// named for what it found), and every seed in Fuzz/Seeds/<target>/, must
/// satisfy all the properties of its target. An input whose bug comes back
/// fails: that is the point.
final class FuzzRegressionTests: XCTestCase {
    /// The ten inputs fuzzing found so far (each failed before its fix),
    /// and two written for channelentry's properties (each failed before
    /// 271f744 bounded what an entry holds), and snapd's error envelope with
    /// an empty message (it failed before SnapdEnvelope said the status
    /// instead); fewer means the folder went missing.
    func testRegressionFiles() throws {
        try replay("Regressions", atLeast: 0, inAll: 13)
    }

    /// The seeds hold the properties too (so a failing fuzz run means a new
    /// input, and the reference models agree with the test tables).
    func testSeeds() throws {
        try replay("Seeds", atLeast: 5, inAll: 100)
    }

    private func replay(_ folder: String, atLeast minimum: Int, inAll: Int) throws {
        var replayed = 0
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/\(folder)").standardized
        for target in FuzzTarget.allCases {
            let directory = root.appendingPathComponent(target.rawValue)
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
                .filter { !$0.hasPrefix(".") }.sorted()
            XCTAssertGreaterThanOrEqual(names.count, minimum, "\(directory.path)")
            for name in names {
                let data = try XCTUnwrap(FileManager.default.contents(atPath: directory.appendingPathComponent(name).path))
                XCTAssertEqual(fuzzViolations(target, Array(data)), [], "\(folder)/\(target.rawValue)/\(name)")
                replayed += 1
            }
        }
        XCTAssertGreaterThanOrEqual(replayed, inAll, "Fuzz/\(folder) holds fewer inputs than committed")
    }
}
#endif

/// Remote Config's realtime stream (docs/design.md, "Watching a source"):
/// the same messages whatever the chunks (cut at every `step` bytes, for a
/// few steps), each one JSON object; the pending bytes bounded; a version
/// number read only from a decimal string or a whole number.
enum RealtimeProperties {
    static func check(_ input: [UInt8], _ check: inout PropertyCheck) {
        var whole = RealtimeMessages()
        let expected = input.withUnsafeBytes { whole.add($0) }
        for message in expected {
            guard case .object = message else {
                check.expect(false, "a message that is not an object")
                continue
            }
            if let version = RealtimeStream.number(message["latestTemplateVersionNumber"]) {
                check.expect(version >= 0, "a negative template version \(version)")
            }
        }
        for step in [1, 2, 7, 64] where input.count <= RealtimeMessages.maxPendingBytes {
            var cut = RealtimeMessages()
            var got: [JSONValue] = []
            for start in stride(from: 0, to: input.count, by: step) {
                got += Array(input[start..<min(start + step, input.count)]).withUnsafeBytes { cut.add($0) }
            }
            check.expect(got == expected, "cut every \(step) bytes: \(got.count) messages, not \(expected.count)")
        }
    }
}

/// snapd's answers (docs/design.md, "Updating a snap"): an envelope decodes
/// for any status or not at all; an async change's id is 1-64 letters or
/// digits (it goes into the next request's path); a change's progress is
/// 0-100, done never past total, and Done succeeds only when ready.
enum SnapdProperties {
    static func check(_ input: [UInt8], _ check: inout PropertyCheck) {
        for status in [200, 202, 400, 401, 403, 404, 409, 500] {
            switch SnapdEnvelope.decode(status: status, body: input) {
            case .async(let change)?:
                check.expect((1...64).contains(change.utf8.count)
                             && change.utf8.allSatisfy({ ASCII.isDigit($0) || ASCII.isLetter($0) }),
                             "an async change id \(change.debugDescription) that is not 1-64 letters or digits")
            case .error(let got, _, let message)?:
                check.expect(got == status, "an error envelope's status \(got) is not the HTTP status \(status)")
                check.expect(!message.isEmpty, "an error envelope with no message")
            case .sync(let result)?:
                guard let change = SnapdChange(result) else { continue }
                check.expect((0...100).contains(change.percent), "a change \(change.percent) % done")
                check.expect(change.done >= 0 && change.done <= change.total, "done \(change.done) of \(change.total)")
                check.expect(!change.succeeded || change.ready, "succeeded before it was ready")
            case nil: break
            }
        }
    }
}
