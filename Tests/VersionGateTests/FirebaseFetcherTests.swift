import Foundation
import XCTest
import VersionGateC
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGatePlatform
@testable import VersionGateSystem
@testable import VersionGateNetwork

/// FirebaseFetcher and the Installations client against the loopback
/// server's Remote Config and FIS routes (Tests/Server/firebase_routes.py):
/// what goes on the wire, and what each answer becomes.
final class FirebaseFetcherTests: XCTestCase {
    private let project = "vg-test"
    private let appID = "1:123456789012:web:0a1b2c3d4e5f60718293a4"
    private let now: Int64 = 1_750_000_000
    private let week: Int64 = 604_800

    // MARK: - The first fetch, reuse, If-None-Match

    func testFirstFetchRegistersTheInstallationThenFetchesWithItsToken() throws {
        let server = try LoopbackServer(self)
        let state = try stateDirectory()
        let outcome = try fetcher(server).fetch(context(state))

        guard case .updated(let config, let etag, let maxAge, let note) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(config.values["min_required_version_linux"], "2.1.0")
        XCTAssertEqual(config.values["latest_version_linux"], "2.4.1")
        XCTAssertEqual(config.templateVersion, 42)
        XCTAssertNil(maxAge)
        XCTAssertNil(note)
        let serverState = try control(server)
        XCTAssertEqual(etag, serverState["etag"] as? String)

        let requests = try server.requests()
        XCTAssertEqual(requests.map(path), ["/v1/projects/vg-test/installations",
                                            "/v1/projects/vg-test/namespaces/firebase:fetch?key=test-api-key"])
        guard requests.count == 2 else { return }
        let create = requests[0], fetch = requests[1]
        XCTAssertEqual(header(create, "x-goog-api-key"), "test-api-key")
        XCTAssertEqual(header(create, "content-type"), "application/json")
        let createBody = try json(create)
        let fid = try XCTUnwrap(createBody["fid"] as? String)
        XCTAssertTrue(isFID(fid), fid)
        XCTAssertEqual(createBody["authVersion"] as? String, "FIS_v2")
        XCTAssertEqual(createBody["appId"] as? String, appID)
        XCTAssertEqual(createBody["sdkVersion"] as? String, FirebaseFetcher.sdkVersion)

        let token = try XCTUnwrap(((serverState["fis"] as? [String: Any])?["tokens"] as? [String])?.first)
        XCTAssertEqual(fetch["method"] as? String, "POST")
        XCTAssertEqual(header(fetch, "x-goog-firebase-installations-auth"), token)
        XCTAssertEqual(header(fetch, "content-type"), "application/json")
        XCTAssertEqual(header(fetch, "accept"), "application/json")
        XCTAssertNil(header(fetch, "if-none-match"))
        let body = try json(fetch)
        XCTAssertEqual(Set(body.keys), ["appInstanceId", "appInstanceIdToken", "appId", "appVersion", "packageName",
                                        "languageCode", "countryCode", "platformVersion", "timeZone", "sdkVersion"])
        XCTAssertEqual(body["appInstanceId"] as? String, fid)
        XCTAssertEqual(body["appInstanceIdToken"] as? String, token)
        XCTAssertEqual(body["appId"] as? String, appID)
        XCTAssertEqual(body["appVersion"] as? String, "2.3.0")
        XCTAssertEqual(body["packageName"] as? String, "com.example.launcher")
        XCTAssertEqual(body["languageCode"] as? String, "de-DE")
        XCTAssertEqual(body["countryCode"] as? String, "DE")
        XCTAssertEqual(body["platformVersion"] as? String, "6.8.0")
        XCTAssertEqual(body["timeZone"] as? String, "Europe/Berlin")
        // The release as VERSION writes it (scripts/generate copies it into the fetcher).
        let release = try String(contentsOf: TestFiles.tests.deletingLastPathComponent().appendingPathComponent("VERSION"),
                                 encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(body["sdkVersion"] as? String, "versiongate-" + release)

        let saved = try XCTUnwrap(installation(state))
        XCTAssertEqual(saved.fid, fid)
        XCTAssertEqual(saved.authToken, token)
        XCTAssertEqual(saved.authTokenExpiry, now + week)
        let refresh = ((serverState["fis"] as? [String: Any])?["installations"] as? [String: String])?[fid]
        XCTAssertEqual(saved.refreshToken, refresh)
    }

    func testASecondFetcherOnTheSameStateReusesTheInstallationAndToken() throws {
        let server = try LoopbackServer(self)
        let state = try stateDirectory()
        _ = try fetcher(server).fetch(context(state))
        let first = try server.requests()
        try clearLog(server)

        let outcome = try fetcher(server).fetch(context(state, now: now + 3600))
        guard case .updated = outcome else { return XCTFail("\(outcome)") }
        let second = try server.requests()
        XCTAssertEqual(second.map(path), ["/v1/projects/vg-test/namespaces/firebase:fetch?key=test-api-key"])
        XCTAssertEqual(header(second[0], "x-goog-firebase-installations-auth"),
                       header(first[1], "x-goog-firebase-installations-auth"))
        XCTAssertEqual(try json(second[0])["appInstanceId"] as? String, try json(first[0])["fid"] as? String)
    }

    func testIfNoneMatchIsSentWithThePreviousETagAndNoChangeMeansNotModified() throws {
        let server = try LoopbackServer(self)
        let state = try stateDirectory()
        guard case .updated(_, let etag?, _, _) = try fetcher(server).fetch(context(state)) else {
            return XCTFail("first fetch: no ETag")
        }
        try clearLog(server)
        let again = try fetcher(server).fetch(context(state, etag: etag))
        guard case .notModified(nil, nil) = again else { return XCTFail("\(again)") }
        XCTAssertEqual(header(try server.requests()[0], "if-none-match"), etag)

        // A new template: a new ETag and version, whatever the client had.
        try control(server, #"{"template": {"entries": {"latest_version_linux": "2.5.0"}}}"#)
        let changed = try fetcher(server).fetch(context(state, etag: etag))
        guard case .updated(let config, let newETag, _, _) = changed else { return XCTFail("\(changed)") }
        XCTAssertEqual(config.values, ["latest_version_linux": "2.5.0"])
        XCTAssertEqual(config.templateVersion, 43)
        XCTAssertNotEqual(newETag, etag)
    }

    // MARK: - Every answer

    private enum Expected {
        case updated(values: [String: String], nonString: Set<String>, version: Int64?, etag: Bool)
        case notModified
        case empty(version: Int64?)
        case failure(String)
    }

    func testEveryStateFixtureAndOddBodyGivesItsOutcome() throws {
        let update = ["latest_version_linux": "2.4.1", "min_required_version_linux": "2.1.0",
                      "update_message": "Version 2.4.1 fixes a crash when launching games from the library. Please update."]
        var full = update
        full["latest_version_ios"] = "2.4.0"
        full["min_required_version_ios"] = "2.0.0"
        full["feature_flag_json"] = #"{"beta":true,"channels":["stable","beta"]}"#
        full["key_emoji"] = "🇺🇳"
        let rows: [(step: String, expected: Expected)] = [
            (#"{"body_fixture": "firebase_fetch/response_200_update.json"}"#,
             .updated(values: update, nonString: [], version: 42, etag: true)),
            (#"{"body_fixture": "firebase_fetch/response_200_update_full.json"}"#,
             .updated(values: full, nonString: [], version: 42, etag: true)),
            (#"{"body_fixture": "firebase_fetch/response_200_no_change.json"}"#, .notModified),
            (#"{"body_fixture": "firebase_fetch/response_200_empty_config.json"}"#, .empty(version: 43)),
            (#"{"body_fixture": "firebase_fetch/response_200_no_template.json"}"#, .empty(version: nil)),
            (#"{"body_fixture": "firebase_fetch/response_200_instance_state_unspecified.json"}"#,
             .failure("state INSTANCE_STATE_UNSPECIFIED")),
            (#"{"body_fixture": "firebase_fetch/response_200_no_state_legacy.json", "etag": null}"#,
             .updated(values: ["latest_version_linux": "2.4.1", "min_required_version_linux": "2.1.0",
                               "update_message": "Please update."], nonString: [], version: nil, etag: false)),
            (#"{"body": {"state": "UPDATE", "templateVersion": 44, "entries": {"a": "1", "b": 2, "c": null, "d": ["x"]}}}"#,
             .updated(values: ["a": "1"], nonString: ["b", "c", "d"], version: 44, etag: true)),
            (#"{"body": {"state": "UPDATE", "templateVersion": "007", "entries": {}}}"#,
             .updated(values: [:], nonString: [], version: 7, etag: true)),
            (#"{"body": {"state": "UPDATE", "templateVersion": "+1"}}"#,
             .updated(values: [:], nonString: [], version: nil, etag: true)),
            (#"{"body": {"state": "UPDATE", "templateVersion": "-3"}}"#,
             .updated(values: [:], nonString: [], version: nil, etag: true)),
            (#"{"body": {"state": "UPDATE", "templateVersion": 1.5}}"#,
             .updated(values: [:], nonString: [], version: nil, etag: true)),
            (#"{"body": {"state": "UPDATE", "templateVersion": "99999999999999999999"}}"#,
             .updated(values: [:], nonString: [], version: nil, etag: true)),
            (#"{"body": {"state": "EMPTY_CONFIG", "templateVersion": 45}}"#, .empty(version: 45)),
            (#"{"status": 304}"#, .notModified),
            (#"{"body": "{\"entries\": {"}"#, .failure("the fetch response is not valid JSON")),
            (#"{"body": "<html>hello</html>", "content_type": "text/html"}"#, .failure("is not valid JSON")),
            (#"{"body": [1, 2]}"#, .failure("the fetch response is not a JSON object")),
            (#"{"body": {"state": "SOMETHING_NEW"}}"#, .failure(#"unknown state "SOMETHING_NEW""#)),
            (#"{"body": {"state": 3}}"#, .failure("the state is not a string")),
            (#"{"body": {"state": "UPDATE", "entries": ["x"]}}"#, .failure("entries is not a JSON object")),
            (#"{"body": {"error": {"code": 400, "message": "Bad thing", "status": "INVALID_ARGUMENT"}}}"#,
             .failure("HTTP 200 with an error INVALID_ARGUMENT: Bad thing")),
            (#"{"status": 204, "body": ""}"#, .failure("firebase://vg-test: HTTP 204")),
        ]
        let server = try LoopbackServer(self)
        let state = try stateDirectory()
        try control(server, "{\"next\": [\(rows.map(\.step).joined(separator: ","))]}")
        let serverETag = try control(server)["etag"] as? String
        for (step, expected) in rows {
            let result = outcome(fetcher(server), context(state))
            switch (expected, result) {
            case (.updated(let values, let nonString, let version, let hasETag), .success(.updated(let config, let etag, nil, nil))):
                XCTAssertEqual(config.values, values, step)
                XCTAssertEqual(config.nonStringKeys, nonString, step)
                XCTAssertEqual(config.templateVersion, version, step)
                XCTAssertEqual(etag, hasETag ? serverETag : nil, step)
            case (.notModified, .success(.notModified(nil, nil))):
                break
            case (.empty(let version), .success(.empty(let templateVersion, nil))):
                XCTAssertEqual(templateVersion, version, step)
            case (.failure(let text), .failure(let failure)):
                XCTAssertEqual(failure.failure.code, VG_EHTTP.rawValue, step)
                XCTAssertTrue(failure.failure.message.hasPrefix("firebase://vg-test: "), failure.failure.message)
                XCTAssertTrue(failure.failure.message.contains(text), "\(step): \(failure.failure.message)")
                XCTAssertFalse(failure.throttled, step)
                XCTAssertNil(failure.retryAfterSeconds, step)
            default:
                XCTFail("\(step): expected \(expected), got \(result)")
            }
        }
        XCTAssertEqual(try control(server)["pending"] as? Int, 0)
    }

    func testErrorStatusesCarryGooglesMessageAndThrottleOnlyWhereTheSDKsDo() throws {
        let rows: [(step: String, status: Int, throttled: Bool, message: String)] = [
            (#"{"status": 400, "body_fixture": "errors/rc_400_api_key_invalid.json"}"#, 400, false,
             "HTTP 400 INVALID_ARGUMENT: API key not valid. Please pass a valid API key. [API_KEY_INVALID]"),
            (#"{"status": 403, "body_fixture": "errors/rc_403_permission_denied.json"}"#, 403, false,
             "HTTP 403 PERMISSION_DENIED: Requests to this API firebaseremoteconfig.googleapis.com method "
                + "google.firebase.remoteconfig.v1.RemoteConfigService.FetchRemoteConfig are blocked."),
            (#"{"status": 403, "body_fixture": "errors/rc_403_unregistered_caller.json"}"#, 403, false,
             "HTTP 403 PERMISSION_DENIED: Method doesn't allow unregistered callers"),
            (#"{"status": 429, "body_fixture": "errors/rc_429_resource_exhausted.json", "headers": {"Retry-After": "120"}}"#,
             429, true, "HTTP 429 RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Fetch requests'"),
            (#"{"status": 500, "body_fixture": "errors/rc_500_internal.json"}"#, 500, true,
             "HTTP 500 INTERNAL: Internal error encountered."),
            (#"{"status": 503, "body_fixture": "errors/rc_503_unavailable.json", "headers": {"Retry-After": "30"}}"#,
             503, true, "HTTP 503 UNAVAILABLE: The service is currently unavailable."),
            (#"{"status": 504}"#, 504, true, "HTTP 504 DEADLINE_EXCEEDED: loopback error"),
            (#"{"status": 502}"#, 502, false, "HTTP 502"),
            (#"{"status": 401}"#, 401, false, "HTTP 401 UNAUTHENTICATED: loopback error"),
            (#"{"status": 404, "body": {"error": {"message": "line\nbreak\u202e"}}}"#, 404, false,
             "HTTP 404: line break "),
        ]
        let server = try LoopbackServer(self)
        let state = try stateDirectory()
        try control(server, "{\"next\": [\(rows.map(\.step).joined(separator: ","))]}")
        for row in rows {
            let result = outcome(fetcher(server), context(state))
            guard case .failure(let failure) = result else {
                XCTFail("HTTP \(row.status): \(result)")
                continue
            }
            XCTAssertEqual(failure.failure.code, VG_EHTTP.rawValue, row.message)
            XCTAssertTrue(failure.failure.message.hasPrefix("firebase://vg-test: " + row.message),
                          "\(row.status): \(failure.failure.message)")
            XCTAssertEqual(failure.throttled, row.throttled, "\(row.status)")
            XCTAssertNil(failure.retryAfterSeconds, "\(row.status): Retry-After honoured over plain http")
        }
    }

    func testRetryAfterIsHonouredOnlyOverHTTPS() throws {
        let pki = try TestPKI.shared()
        let server = try LoopbackServer(self, tls: (pki.path("server.pem"), pki.path("server.key")))
        let state = try stateDirectory()
        let rows: [(retryAfter: String?, expected: Int?)] = [
            ("120", 120), ("0", 0), ("-5", nil), ("+5", nil), ("1.5", nil), ("", nil),
            ("Wed, 21 Oct 2015 07:28:00 GMT", nil), ("99999999999999999999", nil), (nil, nil),
        ]
        let steps = rows.map { row in
            row.retryAfter.map { #"{"status": 429, "headers": {"Retry-After": "\#($0)"}}"# } ?? #"{"status": 503}"#
        }
        try control(server, "{\"next\": [\(steps.joined(separator: ","))]}", caFile: pki.path("ca.pem"))
        for row in rows {
            let result = outcome(fetcher(server), context(state, caFile: pki.path("ca.pem")))
            guard case .failure(let failure) = result else {
                XCTFail("\(row): \(result)")
                continue
            }
            XCTAssertTrue(failure.throttled, failure.failure.message)
            XCTAssertEqual(failure.retryAfterSeconds, row.expected, "Retry-After \(row.retryAfter ?? "absent")")
        }
    }

    func testTheServerRefusesAWrongKeyAndTheFetcherAnUnusableOne() throws {
        let server = try LoopbackServer(self)
        let result = outcome(fetcher(server, key: "wrong-key"), context(try stateDirectory()))
        guard case .failure(let failure) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(failure.failure.code, VG_EHTTP.rawValue)
        XCTAssertTrue(failure.failure.message.contains("HTTP 400 INVALID_ARGUMENT: API key not valid"),
                      failure.failure.message)
        XCTAssertFalse(failure.throttled)

        try clearLog(server)
        for key in ["", "key with spaces", "key\r\nX-Injected: 1"] {
            let refused = outcome(fetcher(server, key: key), context(try stateDirectory()))
            guard case .failure(let failure) = refused else { return XCTFail("\(key): \(refused)") }
            XCTAssertEqual(failure.failure.code, VG_ECONFIG.rawValue, key)
        }
        XCTAssertEqual(try server.requests().count, 0, "an unusable key must not reach the network")
    }

    // MARK: - Installations

    func testInstallationsFailingStillFetchesWithTheFIDAndNoToken() throws {
        let server = try LoopbackServer(self)
        let state = try stateDirectory()
        try control(server, #"{"fis": {"fail": true, "status": 500}}"#)
        let outcome = try fetcher(server).fetch(context(state))
        guard case .updated(let config, _, _, let note?) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(config.templateVersion, 42)
        XCTAssertTrue(note.hasPrefix("Firebase Installations failed: registration: HTTP 500 INTERNAL"), note)
        XCTAssertTrue(note.hasSuffix("fetched without an auth token, so percent conditions do not match"), note)

        let requests = try server.requests()
        XCTAssertEqual(requests.map(path), ["/v1/projects/vg-test/installations", "/v1/projects/vg-test/installations",
                                            "/v1/projects/vg-test/namespaces/firebase:fetch?key=test-api-key"],
                       "a 5xx is retried once, then the fetch goes ahead")
        guard requests.count == 3 else { return }
        let fid = try XCTUnwrap(try json(requests[0])["fid"] as? String)
        XCTAssertEqual(try json(requests[1])["fid"] as? String, fid)
        XCTAssertNil(header(requests[2], "x-goog-firebase-installations-auth"))
        XCTAssertEqual(try json(requests[2])["appInstanceId"] as? String, fid)
        XCTAssertEqual(try json(requests[2])["appInstanceIdToken"] as? String, "")
        XCTAssertEqual(try installation(state), FirebaseInstallation(fid: fid), "the FID is kept for the next try")

        // Installations back: the same FID is registered, the token used.
        try control(server, #"{"fis": {"fail": false}}"#)
        try clearLog(server)
        guard case .updated(_, _, _, nil) = try fetcher(server).fetch(context(state)) else { return XCTFail("note left") }
        let retried = try server.requests()
        XCTAssertEqual(retried.count, 2)
        XCTAssertEqual(try json(retried[0])["fid"] as? String, fid)
        XCTAssertNotNil(header(retried[1], "x-goog-firebase-installations-auth"))
    }

    func testSlowInstallationsLeaveTheFetchTimeWithinTheDeadline() throws {
        let server = try LoopbackServer(self)
        try control(server, #"{"fis": {"delay_ms": 5000}}"#)
        let start = Deadline.nowNanoseconds()
        let outcome = try fetcher(server).fetch(context(try stateDirectory(), deadlineMs: 3000))
        let elapsed = Double(Deadline.nowNanoseconds() - start) / 1e6
        guard case .updated(_, _, _, let note?) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertTrue(note.contains("Firebase Installations failed: registration:") && note.contains("timed out"), note)
        XCTAssertLessThan(elapsed, 3300)
        XCTAssertGreaterThan(elapsed, 1300, "FIS gets half the deadline")
    }

    func testATokenExpiringWithinAnHourIsRenewedWithTheRefreshToken() throws {
        let server = try LoopbackServer(self)
        let state = try stateDirectory()
        _ = try fetcher(server).fetch(context(state))
        let registered = try XCTUnwrap(try installation(state))

        // Two hours left: used as it is.
        try clearLog(server)
        _ = try fetcher(server).fetch(context(state, now: now + week - 7200))
        XCTAssertEqual(try server.requests().map(path).count, 1)

        // Half an hour left: renewed first.
        try clearLog(server)
        let later = now + week - 1800
        guard case .updated(_, _, _, nil) = try fetcher(server).fetch(context(state, now: later)) else {
            return XCTFail("renewal failed")
        }
        let requests = try server.requests()
        XCTAssertEqual(requests.map(path), ["/v1/projects/vg-test/installations/\(registered.fid)/authTokens:generate",
                                            "/v1/projects/vg-test/namespaces/firebase:fetch?key=test-api-key"])
        guard requests.count == 2 else { return }
        XCTAssertEqual(header(requests[0], "authorization"), "FIS_v2 \(registered.refreshToken ?? "?")")
        XCTAssertEqual(header(requests[0], "x-goog-api-key"), "test-api-key")
        let installationBody = try json(requests[0])["installation"] as? [String: Any]
        XCTAssertEqual(installationBody?["appId"] as? String, appID)
        XCTAssertEqual(installationBody?["sdkVersion"] as? String, FirebaseFetcher.sdkVersion)

        let renewed = try XCTUnwrap(try installation(state))
        XCTAssertEqual(renewed.fid, registered.fid)
        XCTAssertEqual(renewed.refreshToken, registered.refreshToken)
        XCTAssertNotEqual(renewed.authToken, registered.authToken)
        XCTAssertEqual(renewed.authTokenExpiry, later + week)
        XCTAssertEqual(header(requests[1], "x-goog-firebase-installations-auth"), renewed.authToken)
    }

    func testAnInstallationTheServerForgotIsRegisteredAgainUnderANewFID() throws {
        for gone in ["404: deleted on the server", "401: refresh token refused"] {
            let server = try LoopbackServer(self)
            let state = try stateDirectory()
            _ = try fetcher(server).fetch(context(state))
            var old = try XCTUnwrap(try installation(state))
            if gone.hasPrefix("404") {
                try control(server, #"{"fis": {"forget": true}}"#)
            } else {
                old.refreshToken = "2_not-the-one"
                XCTAssertTrue(state.write(installationFile, old.encoded()))
            }
            try clearLog(server)
            let outcome = try fetcher(server).fetch(context(state, now: now + week))
            guard case .updated(_, _, _, nil) = outcome else { return XCTFail("\(gone): \(outcome)") }
            let requests = try server.requests()
            XCTAssertEqual(requests.map(path), ["/v1/projects/vg-test/installations/\(old.fid)/authTokens:generate",
                                                "/v1/projects/vg-test/installations",
                                                "/v1/projects/vg-test/namespaces/firebase:fetch?key=test-api-key"], gone)
            guard requests.count == 3 else { continue }
            let newFID = try XCTUnwrap(try json(requests[1])["fid"] as? String)
            XCTAssertNotEqual(newFID, old.fid, gone)
            XCTAssertTrue(isFID(newFID))
            XCTAssertEqual(try json(requests[2])["appInstanceId"] as? String, newFID, gone)
            XCTAssertEqual(try installation(state)?.fid, newFID, gone)
        }
    }

    func testAFIDAssignedByTheServerIsAdopted() throws {
        let server = try LoopbackServer(self)
        let state = try stateDirectory()
        try control(server, #"{"fis": {"assign_fid": "dAssignedByServer0000_"}}"#)
        _ = try fetcher(server).fetch(context(state))
        let requests = try server.requests()
        XCTAssertEqual(try json(requests[1])["appInstanceId"] as? String, "dAssignedByServer0000_")
        XCTAssertEqual(try installation(state)?.fid, "dAssignedByServer0000_")
    }

    func testACorruptInstallationFileIsReplaced() throws {
        let validFID = "cAAAAAAAAAAAAAAAAAAAAA"
        let corrupt = [
            "", "garbage", "[]", #"{"fid": 5}"#, #"{"fid": "bad fid!"}"#, #"{"refreshToken": "2_x"}"#,
            #"{"fid": "\#(validFID)", "refreshToken": "a b"}"#, #"{"fid": "\#(validFID)", "authToken": 7}"#,
            #"{"fid": "\#(validFID)", "authTokenExpiry": "soon"}"#, #"{"fid": "\#(validFID)", "authTokenExpiry": 1.5}"#,
            "{\"fid\": \"\(validFID)\"", String(repeating: " ", count: 20_000),
        ]
        let server = try LoopbackServer(self)
        for text in corrupt {
            let state = try stateDirectory()
            XCTAssertTrue(state.write(installationFile, Array(text.utf8)))
            try clearLog(server)
            guard case .updated(_, _, _, nil) = try fetcher(server).fetch(context(state)) else {
                return XCTFail("\(text.prefix(40)): fetch failed")
            }
            let requests = try server.requests()
            XCTAssertEqual(requests.count, 2, String(text.prefix(40)))
            let fid = try json(requests[0])["fid"] as? String
            XCTAssertTrue(fid.map(isFID) ?? false, "\(text.prefix(40)): \(fid ?? "no fid")")
            XCTAssertNotEqual(fid, validFID)
            let replaced = try XCTUnwrap(try installation(state), String(text.prefix(40)))
            XCTAssertEqual(replaced.fid, fid)
            XCTAssertNotNil(replaced.refreshToken)
        }
    }

    func testWithoutAStateDirectoryTheFetchUsesAOneTimeFIDAndSaysSo() throws {
        let server = try LoopbackServer(self)
        var fids: [String] = []
        for _ in 0..<2 {
            guard case .updated(_, _, _, let note?) = try fetcher(server).fetch(context(nil)) else {
                return XCTFail("no note")
            }
            XCTAssertTrue(note.contains("no state directory") && note.contains("percent conditions do not match"), note)
        }
        for request in try server.requests() {
            XCTAssertEqual(path(request), "/v1/projects/vg-test/namespaces/firebase:fetch?key=test-api-key")
            XCTAssertNil(header(request, "x-goog-firebase-installations-auth"))
            let body = try json(request)
            XCTAssertEqual(body["appInstanceIdToken"] as? String, "")
            fids.append(body["appInstanceId"] as? String ?? "")
        }
        XCTAssertEqual(fids.count, 2)
        XCTAssertTrue(fids.allSatisfy(isFID), "\(fids)")
    }

    // MARK: - Pieces

    func testTransportFailuresKeepTheirCodeAndDoNotRepeatTheKey() throws {
        let fetcher = FirebaseFetcher(projectID: project, apiKey: "AIzaSecretish-123", appID: appID, packageName: nil,
                                      endpoint: "http://127.0.0.1:1/", installationsEndpoint: "http://127.0.0.1:1")
        let result = outcome(fetcher, context(nil))
        guard case .failure(let failure) = result else { return XCTFail("\(result)") }
        XCTAssertEqual(failure.failure.code, VG_ENETWORK.rawValue, failure.failure.message)
        XCTAssertFalse(failure.failure.message.contains("AIzaSecretish"), failure.failure.message)
        XCTAssertTrue(failure.failure.message.contains("firebase:fetch?key=…"), failure.failure.message)
        XCTAssertFalse(failure.throttled)
    }

    func testNamesURLsAndFIDs() {
        let a = FirebaseFetcher(projectID: "p", apiKey: "k", appID: "1:2:web:3", packageName: nil)
        XCTAssertEqual(a.name, "firebase://p")
        XCTAssertEqual(a.fetchURL, "https://firebaseremoteconfig.googleapis.com/v1/projects/p/namespaces/firebase:fetch?key=k")
        XCTAssertEqual(a.cacheKey, FirebaseFetcher(projectID: "p", apiKey: "other", appID: "1:2:web:3", packageName: nil).cacheKey)
        for other in [FirebaseFetcher(projectID: "q", apiKey: "k", appID: "1:2:web:3", packageName: nil),
                      FirebaseFetcher(projectID: "p", apiKey: "k", appID: "1:2:web:4", packageName: nil),
                      FirebaseFetcher(projectID: "p", apiKey: "k", appID: "1:2:web:3", packageName: "x"),
                      FirebaseFetcher(projectID: "p", apiKey: "k", appID: "1:2:web:3", packageName: nil, endpoint: "https://e")] {
            XCTAssertNotEqual(a.cacheKey, other.cacheKey)
        }
        let odd = FirebaseFetcher(projectID: "p q", apiKey: "a b/c+d~é&x=1", appID: "1", packageName: nil,
                                  endpoint: "http://127.0.0.1:9//")
        XCTAssertEqual(odd.fetchURL, "http://127.0.0.1:9/v1/projects/p%20q/namespaces/firebase:fetch?key=a%20b%2Fc%2Bd~%C3%A9%26x%3D1")

        var fids = Set<String>()
        var firsts = Set<Character>()
        for _ in 0..<2000 {
            let fid = FirebaseInstallation.newFID()
            XCTAssertTrue(isFID(fid), fid)
            fids.insert(fid)
            firsts.insert(fid.first ?? "?")
        }
        XCTAssertEqual(fids.count, 2000)
        XCTAssertEqual(firsts, ["c", "d", "e", "f"])

        XCTAssertEqual(FirebaseInstallation.fileName(projectID: "p", appID: "a"),
                       FirebaseInstallation.fileName(projectID: "p", appID: "a"))
        XCTAssertNotEqual(FirebaseInstallation.fileName(projectID: "p", appID: "a"),
                          FirebaseInstallation.fileName(projectID: "p", appID: "b"))
        let full = FirebaseInstallation(fid: "cAAAAAAAAAAAAAAAAAAAAA", refreshToken: "2_r", authToken: "t.t",
                                        authTokenExpiry: 1_750_604_800)
        XCTAssertEqual(FirebaseInstallation.decode(full.encoded()), full)
        XCTAssertEqual(FirebaseFetchResponse.templateVersion(.string("9223372036854775807")), Int64.max)
        XCTAssertNil(FirebaseFetchResponse.templateVersion(.string("9223372036854775808")))
        XCTAssertNil(FirebaseFetchResponse.templateVersion(.number(-1)))
        XCTAssertNil(FirebaseFetchResponse.templateVersion(.number(1e300)))
    }

    // MARK: - Helpers

    private var installationFile: String { FirebaseInstallation.fileName(projectID: project, appID: appID) }

    private func fetcher(_ server: LoopbackServer, key: String = "test-api-key") -> FirebaseFetcher {
        FirebaseFetcher(projectID: project, apiKey: key, appID: appID, packageName: "com.example.launcher",
                        endpoint: server.url(""), installationsEndpoint: server.url("/"))
    }

    private func context(_ state: PrivateDirectory?, etag: String? = nil, now: Int64? = nil, deadlineMs: Int = 3000,
                         caFile: String? = nil) -> FetchContext {
        var limits = TransportLimits()
        limits.caFile = caFile
        return FetchContext(previousETag: etag, appVersion: "2.3.0", languageCode: "de-DE", transport: CurlTransport(),
                            limits: limits, deadline: Deadline(afterMilliseconds: deadlineMs), state: state,
                            now: now ?? self.now,
                            device: DeviceFacts(timeZone: "Europe/Berlin", platformVersion: "6.8.0", countryCode: "DE"))
    }

    private func outcome(_ fetcher: FirebaseFetcher, _ context: FetchContext) -> Result<FetchOutcome, FetchFailure> {
        do { return .success(try fetcher.fetch(context)) } catch { return .failure(error) }
    }

    private func stateDirectory() throws -> PrivateDirectory {
        try XCTUnwrap(PrivateDirectory(base: try makeTemporaryDirectory(self).path, files: POSIXFiles()))
    }

    private func installation(_ state: PrivateDirectory) throws -> FirebaseInstallation? {
        state.read(installationFile, maxBytes: 1 << 16).flatMap(FirebaseInstallation.decode)
    }

    /// POSTs `command` to the server's /__firebase (GET when nil); its state.
    @discardableResult
    private func control(_ server: LoopbackServer, _ command: String? = nil, caFile: String? = nil) throws -> [String: Any] {
        var limits = TransportLimits()
        limits.caFile = caFile
        let response = try CurlTransport().send(HTTPRequest(url: server.url("/__firebase"), body: command.map { Array($0.utf8) }),
                                                limits: limits)
        XCTAssertEqual(response.status, 200, String(decoding: response.body, as: UTF8.self))
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    private func clearLog(_ server: LoopbackServer) throws {
        let response = try CurlTransport().send(HTTPRequest(url: server.url("/__reset"), body: []), limits: TransportLimits())
        XCTAssertEqual(response.status, 204)
    }

    private func path(_ request: [String: Any]) -> String { request["path"] as? String ?? "" }

    private func header(_ request: [String: Any], _ name: String) -> String? {
        (request["headers"] as? [String: String])?[name]
    }

    private func json(_ request: [String: Any]) throws -> [String: Any] {
        let text = request["body"] as? String ?? ""
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// ^[cdef][A-Za-z0-9_-]{21}$
    private func isFID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 22 && "cdef".utf8.contains(bytes[0]) && bytes.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
