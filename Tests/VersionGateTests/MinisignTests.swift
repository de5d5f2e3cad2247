import Foundation
import XCTest
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGatePlatform
@testable import VersionGateSystem

/// The minisign formats (issue #15), parsed strictly by the core, and the
/// check against real signatures (Tests/Fixtures/minisign, made by minisign
/// 0.11) with the system's libcrypto. Malformed input is refused, never a trap.
final class MinisignTests: XCTestCase {
    private let directory = TestFiles.fixtures.appendingPathComponent("minisign")

    private func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    private func publicKey() throws -> MinisignPublicKey {
        let lines = String(decoding: try bytes("key.pub"), as: UTF8.self).split(separator: "\n")
        return try XCTUnwrap(MinisignPublicKey.parse(lines[1]))
    }

    // MARK: base64

    func testStrictBase64() {
        let rows: [(String, [UInt8]?, String)] = [
            ("", [], "empty"),
            ("TWFu", Array("Man".utf8), "one group"),
            ("TWE=", Array("Ma".utf8), "one pad"),
            ("TQ==", Array("M".utf8), "two pads"),
            ("TWF=", nil, "non-zero dropped bits"),
            ("TW==", nil, "non-zero dropped bits, two pads"),
            ("TWE", nil, "missing padding"),
            ("TW=u", nil, "padding inside"),
            ("=TWE", nil, "padding first"),
            ("T===", nil, "three pads"),
            ("TWFu TWFu", nil, "a space"),
            ("TWFu\n", nil, "a newline"),
            ("TW-u", nil, "url-safe alphabet"),
            ("TWFuTWE=TWFu", nil, "padding in a middle group"),
        ]
        for (text, expected, rule) in rows {
            XCTAssertEqual(StrictBase64.decode(ArraySlice(text.utf8), maxBytes: 64), expected, rule)
        }
        XCTAssertNil(StrictBase64.decode(ArraySlice("TWFuTWFu".utf8), maxBytes: 5), "over maxBytes")
    }

    // MARK: public keys

    func testPublicKeys() throws {
        let key = try publicKey()
        XCTAssertEqual(key.keyIDText, "122FB2BF384031E3", "as minisign prints it in key.pub's comment")
        XCTAssertEqual(key.key.count, 32)
        let line = "RWTjMUA4v7IvErjIrTjTf82NRtw5Ge9cYiwubuG1ZD9KYxDuqijdz/t6"
        XCTAssertEqual(MinisignPublicKey.parseList(line + " , " + line)?.count, 2, "spaces around items")
        let refused: [(String, String)] = [
            ("", "empty"), (",", "empty items"), (line + ",", "trailing comma"), (line + " " + line, "no comma"),
            (String(line.dropLast(4)), "too short"), (line + "AAAA", "too long"),
            ("RUTjMUA4v7IvErjIrTjTf82NRtw5Ge9cYiwubuG1ZD9KYxDuqijdz/t6", "not Ed (ED is a signature's)"),
            ("untrusted comment: minisign public key 122FB2BF384031E3", "the comment line"),
        ]
        for (text, rule) in refused {
            XCTAssertNil(MinisignPublicKey.parseList(text), rule)
        }
    }

    // MARK: signature files

    func testParsesRealSignatures() throws {
        let prehashed = try MinisignSignature.parse(bytes("gate.json.minisig")).get()
        XCTAssertEqual(prehashed.algorithm, .prehashed)
        XCTAssertEqual(MinisignPublicKey.keyIDText(prehashed.keyID), "122FB2BF384031E3")
        XCTAssertEqual(prehashed.timestamp, 1_800_000_000)
        let legacy = try MinisignSignature.parse(bytes("gate.json.legacy.minisig")).get()
        XCTAssertEqual(legacy.algorithm, .legacy)
        XCTAssertEqual(legacy.timestamp, 1_700_000_000)
    }

    func testMalformedSignatureFiles() throws {
        let valid = String(decoding: try bytes("gate.json.minisig"), as: UTF8.self)
        let lines = valid.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func joined(_ parts: [String]) -> String { parts.joined(separator: "\n") }
        let rows: [(String, String)] = [
            ("", "empty"),
            (joined(Array(lines[0..<3])), "3 lines"),
            (joined(Array(lines[0..<4]) + ["extra", ""]), "5 lines"),
            (joined(["comment: x"] + lines[1...]), "no untrusted comment prefix"),
            (joined([lines[0], lines[1] + " "] + lines[2...]), "a space after the base64"),
            (joined([lines[0], String(lines[1].dropLast(4))] + lines[2...]), "signature too short"),
            (joined([lines[0], "RXg" + lines[1].dropFirst(3)] + lines[2...]), "unknown algorithm"),
            (joined(Array(lines[0..<2]) + ["trusted: " + lines[2]] + lines[3...]), "no trusted comment prefix"),
            (joined(Array(lines[0..<3]) + [String(lines[3].dropLast(4)), ""]), "global signature too short"),
            ("\n" + valid, "a leading empty line"),
            (valid + "\n", "a trailing empty line"),
            (joined(["untrusted comment: " + String(repeating: "x", count: 1025)] + lines[1...]), "comment over 1024"),
            (joined(Array(lines[0..<2]) + ["trusted comment: " + String(repeating: "x", count: 8193)] + lines[3...]),
             "trusted comment over 8192"),
            (String(repeating: "x", count: MinisignSignature.maxFileBytes + 1), "over the file cap"),
        ]
        for (text, rule) in rows {
            if case .success = MinisignSignature.parse(Array(text.utf8)) { XCTFail("accepted: \(rule)") }
        }
        XCTAssertNoThrow(try MinisignSignature.parse(Array(valid.replacingOccurrences(of: "\n", with: "\r\n").utf8)).get(),
                         "CRLF line ends")
        XCTAssertNoThrow(try MinisignSignature.parse(Array(valid.dropLast().utf8)).get(), "no final newline")
    }

    /// Every truncation of a real signature is refused (but the two that
    /// only lose the final newline), and no single-byte change traps.
    func testEveryTruncationAndByteChangeIsHandled() throws {
        let valid = try bytes("gate.json.minisig")
        for length in 0..<valid.count - 1 {
            if case .success = MinisignSignature.parse(Array(valid.prefix(length))) {
                XCTFail("a truncation to \(length) bytes parsed")
            }
        }
        for index in valid.indices {
            for replacement: UInt8 in [0, 0x0a, 0x3d, 0xff] {
                var changed = valid
                changed[index] = replacement
                _ = MinisignSignature.parse(changed)
            }
        }
    }

    func testTimestampField() {
        func stamp(_ comment: String) -> Int64? {
            let text = "untrusted comment: u\n" + "RUTjMUA4v7IvEgO9i8VwPBN+bDXEWOFUPytoQIipGi/kB3HPjCijF2ok7cON9ui8pBP3mES/eQoA509JHQTHFi+jkhkq2Ka6ugw=\n"
                + "trusted comment: \(comment)\n" + String(repeating: "A", count: 86) + "==\n"
            return try? MinisignSignature.parse(Array(text.utf8)).get().timestamp
        }
        XCTAssertEqual(stamp("timestamp:123\tfile:gate.json"), 123)
        XCTAssertEqual(stamp("file:gate.json\ttimestamp:7"), 7, "any field")
        XCTAssertEqual(stamp("timestamp:1764600000 file:gate.json"), 1_764_600_000, "a space separates too")
        XCTAssertEqual(stamp("release 1.0.41 timestamp:9 by ci"), 9, "in the middle, after a blank")
        XCTAssertNil(stamp("mytimestamp:9"), "only at the start of a field")
        XCTAssertNil(stamp("timestamp:12x file:gate.json"), "trailing garbage is no timestamp")
        XCTAssertNil(stamp("timestamp:12a\tfile:x"), "not decimal")
        XCTAssertNil(stamp("timestamp:-5"), "signed")
        XCTAssertNil(stamp("released 2026"), "none")
        XCTAssertNil(stamp("timestamp:99999999999999999999"), "over Int64")
    }

    // MARK: the check, with the system's libcrypto

    func testChecksRealSignaturesWithLibcrypto() throws {
        let check = SignatureCheck(keys: [try publicKey()])
        let crypto = LibcryptoSignatureCrypto()
        let document = try bytes("gate.json")
        for name in ["gate.json.minisig", "gate.json.legacy.minisig"] {
            let verified = check.verify(document, signatureFile: try bytes(name), document: "gate.json",
                                        signatureName: name, crypto: crypto)
            XCTAssertEqual(try verified.get().keyID, try publicKey().keyID, name)
        }
        var changed = document
        changed[changed.count - 3] ^= 1
        let refused = check.verify(changed, signatureFile: try bytes("gate.json.minisig"), document: "gate.json",
                                   signatureName: "gate.json.minisig", crypto: crypto)
        guard case .failure(let failure) = refused else { return XCTFail("a changed document verified") }
        XCTAssertEqual(failure.kind, .signature)
        XCTAssertTrue(failure.message.hasPrefix("document does not match its signature"), failure.message)
    }

    /// The crypto library failing is a refusal that says so, not a pass.
    func testUnusableCryptoRefuses() throws {
        struct Broken: SignatureCrypto {
            func blake2b512(_ bytes: [UInt8]) throws(GateFailure) -> [UInt8] {
                throw GateFailure(.signature, "cannot load libcrypto: test")
            }
            func verifyEd25519(key: [UInt8], message: [UInt8], signature: [UInt8]) throws(GateFailure) -> Bool {
                throw GateFailure(.signature, "cannot load libcrypto: test")
            }
        }
        let result = SignatureCheck(keys: [try publicKey()]).verify(
            try bytes("gate.json"), signatureFile: try bytes("gate.json.legacy.minisig"), document: "gate.json",
            signatureName: "gate.json.legacy.minisig", crypto: Broken())
        guard case .failure(let failure) = result else { return XCTFail("verified without crypto") }
        XCTAssertEqual(failure.message, "cannot verify gate.json.legacy.minisig: cannot load libcrypto: test; "
                       + "gate.json is not trusted")
    }

    func testRollbackRuleAndSignatureLocation() {
        let signed = DocumentSignature(keyID: [], timestamp: 100)
        XCTAssertEqual(try RollbackRule.admit(signed, seen: [], document: "d").get(), 100)
        XCTAssertEqual(try RollbackRule.admit(signed, seen: [nil, 100], document: "d").get(), 100, "the same release again")
        XCTAssertEqual(try RollbackRule.admit(signed, seen: [99, nil], document: "d").get(), 100)
        guard case .failure(let refused) = RollbackRule.admit(signed, seen: [50, 101], document: "d") else {
            return XCTFail("older than the newest seen, admitted")
        }
        XCTAssertEqual(refused.message, "rollback refused: d is signed at timestamp 100, older than the trusted "
                       + "timestamp 101 already seen")
        let unstamped = DocumentSignature(keyID: [], timestamp: nil)
        XCTAssertNil(try RollbackRule.admit(unstamped, seen: [nil], document: "d").get(), "nothing to remember")
        XCTAssertThrowsError(try RollbackRule.admit(unstamped, seen: [1], document: "d").get(),
                             "no timestamp counts as the oldest")
        XCTAssertEqual(SignatureCheck.signatureLocation(of: "/etc/app/gate.json"), "/etc/app/gate.json.minisig")
        XCTAssertEqual(SignatureCheck.signatureLocation(of: "https://cdn.example/gate.json?v=2#x"),
                       "https://cdn.example/gate.json.minisig?v=2#x")
    }

    func testTheRollbackStepRemembersTheNewestAcrossInstances() throws {
        let directory = PrivateDirectory(base: try makeTemporaryDirectory(self).path, files: POSIXFiles())
        let signed = { DocumentSignature(keyID: [], timestamp: $0) }
        XCTAssertNoThrow(try SignedTimestamps(directory).admit(signed(200), for: "k", document: "d").get())
        XCTAssertNoThrow(try SignedTimestamps(directory).admit(signed(150), for: "other", document: "d").get(),
                         "per key")
        XCTAssertThrowsError(try SignedTimestamps(directory).admit(signed(150), for: "k", document: "d").get(),
                             "the stored 200 is remembered by a new instance")
        XCTAssertThrowsError(try SignedTimestamps(directory).admit(signed(250), for: "k", alsoSeen: 300,
                                                                   document: "d").get(), "the source's own")
        XCTAssertEqual(SignedTimestamps(directory).newest(for: "k"), 200, "a refused one is not remembered")
        XCTAssertNoThrow(try SignedTimestamps(nil).admit(signed(1), for: "k", document: "d").get(),
                         "no state directory: nothing seen")
    }

    func testCachedConfigKeepsTheSignature() throws {
        var config = GateConfig(values: ["latest_version_linux": "1.0"])
        config.signature = DocumentSignature(keyID: try publicKey().keyID, timestamp: 1_800_000_000)
        let entry = CachedConfig(key: "document:https://x/g.json", fetchedAt: 5, etag: nil, maxAgeSeconds: nil,
                                 empty: false, config: config)
        XCTAssertEqual(CachedConfig.decode(entry.encoded(), key: entry.key), entry)
    }
}
