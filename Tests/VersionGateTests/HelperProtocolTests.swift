import Foundation
import XCTest
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGateSystem
@testable import VersionGateNetwork

/// The helper's typed protocol (docs/design.md, "The helper's protocol"):
/// every request survives its wire form, a malformed one is refused, and a
/// fetch's entry is stamped with the host's clocks, not the helper's.
final class HelperProtocolTests: XCTestCase {
    private func roundTrip(_ request: HelperRequest) throws -> HelperRequest {
        let bytes = request.message().encoded()
        let message = try XCTUnwrap(HelperMessage.decode(bytes))
        return try HelperRequest.decode(message).get()
    }

    func testEveryRequestSurvivesItsWireForm() throws {
        var fetchLimits = TransportLimits()
        (fetchLimits.timeoutMs, fetchLimits.caFile) = (2500, "/ca.pem")
        var fetch = HelperRequest.ConfigFetch(
            mode: .refresh, remote: .document(url: "https://example.org/g.json", trustedKeys: "RWQ,RWR"),
            previous: .init(etag: "\"v1\"", templateVersion: 7, signatureTimestamp: 1_700_000_000,
                            identity: FileIdentity(device: 1, inode: 2, size: 3, modifiedSeconds: 4, modifiedNanoseconds: 5,
                                                   changedSeconds: 6, changedNanoseconds: 7)),
            backoff: Array(#"{"until":"1800000100","failures":"2"}"#.utf8), appVersion: "1.0", languageCode: "pt-BR",
            limits: fetchLimits, now: 1_800_000_000,
            boot: BootInstant(bootID: "0f1e2d3c-aaaa-bbbb-cccc-000000000000", seconds: 4242),
            deadlineNanoseconds: 99, cacheHome: "/c", stateHome: "/s")
        (fetch.timeZone, fetch.platformVersion, fetch.countryCode) = ("Europe/Berlin", "6.8.0", "DE")
        (fetch.environment, fetch.log) = (["HTTPS_PROXY": "http://p:1"], .debug)
        guard case .fetch(let back) = try roundTrip(.fetch(fetch)) else { return XCTFail("not a fetch") }
        XCTAssertEqual(back, fetch)
        var firebase = HelperRequest.ConfigFetch(
            mode: .background, remote: .firebase(.init(projectID: "p", apiKey: "AIza", appID: "1:2:web:3", packageName: nil,
                                                       endpoint: "https://rc.example", installationsEndpoint: "https://fis.example")),
            previous: .init(etag: nil, templateVersion: nil, signatureTimestamp: nil, identity: nil), backoff: nil,
            appVersion: nil, languageCode: "en", limits: TransportLimits(), now: 1, boot: nil, deadlineNanoseconds: 2,
            cacheHome: nil, stateHome: nil)
        guard case .fetch(let firebaseBack) = try roundTrip(.fetch(firebase)) else { return XCTFail("not a fetch") }
        XCTAssertEqual(firebaseBack, firebase)
        firebase.previous = nil
        guard case .fetch(let noPrevious) = try roundTrip(.fetch(firebase)) else { return XCTFail("not a fetch") }
        XCTAssertNil(noPrevious.previous)

        var limits = TransportLimits()
        limits.timeoutMs = 1234
        limits.caFile = "/ca.pem"
        let update = HelperRequest.Update(kind: .appImage(path: "/home/u/Apps/Demo.AppImage"), maxSeconds: 60,
                                          limits: limits, gitHubAPI: "https://ghe.example/api/v3", trustedKeys: "RWQ,RWR")
        guard case .update(let updateBack) = try roundTrip(.update(update)) else { return XCTFail("not an update") }
        XCTAssertEqual(updateBack, update)
        guard case .update(let flatpak) = try roundTrip(.update(HelperRequest.Update(
            kind: .flatpak, maxSeconds: 3600, limits: TransportLimits(), gitHubAPI: "https://api.github.com", trustedKeys: nil)))
        else { return XCTFail("not an update") }
        XCTAssertEqual(flatpak.kind, .flatpak)
        XCTAssertNil(flatpak.trustedKeys)
        guard case .update(let package) = try roundTrip(.update(HelperRequest.Update(
            kind: .package(name: "vgdemo"), maxSeconds: 3600, limits: TransportLimits(), gitHubAPI: "https://api.github.com",
            trustedKeys: nil)))
        else { return XCTFail("not an update") }
        XCTAssertEqual(package.kind, .package(name: "vgdemo"))

        var previous = ChannelEntry(key: "https://flathub.org flathub org.example.App amd64", architecture: "amd64")
        (previous.served, previous.confirmedAt, previous.etag) = ("1.0.2", 1_800_000_000, "\"v1\"")
        let ask = HelperRequest.ChannelAsk(
            question: .snap(name: "demo", architecture: "arm64"),
            request: HTTPRequest(url: "https://api.snapcraft.io/v2/snaps/info/demo?fields=version",
                                 headers: [("Snap-Device-Series", "16"), ("If-None-Match", "\"v1\"")]),
            limits: limits, previous: previous, now: 1_800_000_100, cacheHome: "/home/u/.cache", fileName: "channel-1.json")
        guard case .channel(let askBack) = try roundTrip(.channel(ask)) else { return XCTFail("not a channel question") }
        XCTAssertEqual(askBack.question, ask.question)
        XCTAssertEqual(askBack.request.url, ask.request.url)
        XCTAssertEqual(askBack.request.headers.map { "\($0.name): \($0.value)" },
                       ["Snap-Device-Series: 16", "If-None-Match: \"v1\""])
        XCTAssertEqual(askBack.limits, limits)
        XCTAssertEqual(askBack.previous, previous)
        XCTAssertEqual([askBack.cacheHome, askBack.fileName], ["/home/u/.cache", "channel-1.json"])
        XCTAssertEqual(askBack.now, 1_800_000_100)
        for question: ChannelQuestion in [.appStore(bundleID: "a.b", country: "de"), .flathub(appID: "org.x.Y"),
                                          .apt(package: "demo", architecture: "riscv64")] {
            XCTAssertEqual(ChannelQuestion(parts: question.parts), question)
        }
    }

    func testTheExchangeAndRestartRequestsSurviveTheirWireForm() throws {
        var limits = TransportLimits()
        (limits.timeoutMs, limits.maxBodyBytes, limits.caFile) = (900, 4096, "/ca.pem")
        limits.proxy = try ProxyRules.Setting(parsing: "http://127.0.0.1:3128")
        let request = HTTPRequest(url: "https://itunes.apple.com/lookup?bundleId=a.b", body: [0, 1, 0xff],
                                  headers: [("Accept", "application/json")], credentialsStayWithOrigin: true)
        let previous = ChannelEntry(key: "k", architecture: "amd64")
        let ask = HelperRequest.ChannelAsk(question: .appStore(bundleID: "a.b", country: "de"), request: request,
                                           limits: limits, previous: previous, now: 5, cacheHome: "/c", fileName: "f")
        guard case .channel(let askBack) = try roundTrip(.channel(ask)) else { return XCTFail("not a channel's") }
        let (back, limitsBack) = (askBack.request, askBack.limits)
        XCTAssertEqual([back.url], [request.url])
        XCTAssertEqual(back.body, [0, 1, 0xff])
        XCTAssertEqual(back.headers.map { $0.name + ": " + $0.value }, ["Accept: application/json"])
        XCTAssertTrue(back.credentialsStayWithOrigin)
        XCTAssertEqual(limitsBack, limits)

        let restart = HelperRequest.Restart(directory: "/home/u", wait: true, arguments: ["demo", "--flag", ""])
        guard case .restart(let restartBack) = try roundTrip(.restart(restart)) else { return XCTFail("not a restart") }
        XCTAssertEqual(restartBack, restart)
    }

    private func answerRoundTrip(_ answer: HelperAnswer) throws -> HelperAnswer {
        try XCTUnwrap(HelperAnswer.decode(try XCTUnwrap(HelperMessage.decode(answer.message().encoded()))))
    }

    func testEveryAnswerSurvivesItsWireForm() throws {
        let identity = FileIdentity(device: 2049, inode: 77, size: 512, modifiedSeconds: 1_800_000_000,
                                    modifiedNanoseconds: 5, changedSeconds: 1_800_000_001, changedNanoseconds: 6)
        guard case .fetched(let origin, let note, let entry, let identityBack) = try answerRoundTrip(
            .fetched(origin: .freshFetch, note: "no auth token", entry: Array(#"{"format":1}"#.utf8), identity: identity))
        else { return XCTFail("not fetched") }
        XCTAssertEqual(origin, .freshFetch)
        XCTAssertEqual(note, "no auth token")
        XCTAssertEqual(entry, Array(#"{"format":1}"#.utf8))
        XCTAssertEqual(identityBack, identity)

        guard case .learned(let learned) = try answerRoundTrip(.learned(entry: Array("{}".utf8))) else { return XCTFail("not learned") }
        XCTAssertEqual(learned, Array("{}".utf8))

        for outcome in UpdateOutcome.allCases {
            guard case .updated(let back, let message) = try answerRoundTrip(.updated(outcome, message: "why")) else {
                return XCTFail("not updated")
            }
            XCTAssertEqual([back.name, message], [outcome.name, "why"])
        }
        guard case .restarted(let status) = try answerRoundTrip(.restarted(status: 3)) else { return XCTFail("not restarted") }
        XCTAssertEqual(status, 3)
        guard case .restarted(nil) = try answerRoundTrip(.restarted(status: nil)) else { return XCTFail("a status appeared") }

        for kind in GateFailure.Kind.allCases {
            guard case .failed(let failure) = try answerRoundTrip(.failed(GateFailure(kind, "m"))) else { return XCTFail("not failed") }
            XCTAssertEqual(failure, GateFailure(kind, "m"))
        }
        for interim: HelperAnswer.Interim in [.progress(UpdateProgress(op: 1, count: 2, percent: 50)), .log(.warning, "a b")] {
            let record = try XCTUnwrap(HelperMessage.decode(interim.record.encoded())?.records.first)
            XCTAssertEqual(HelperAnswer.Interim(record), interim)
        }
    }

    /// A failure crosses by its code's stable name (the C ABI's), not by the
    /// Swift case's spelling: renaming a case must not change the wire.
    func testAFailureCrossesByItsCodesName() throws {
        let message = HelperAnswer.failed(GateFailure(.installedVersion, "x")).message()
        XCTAssertEqual(message.value("kind"), "EINSTALLED")
        var foreign = HelperMessage()
        foreign.add("outcome", "failed")
        foreign.add("kind", "installedVersion")
        guard case .failed(let failure)? = HelperAnswer.decode(foreign) else { return XCTFail("not decoded") }
        XCTAssertEqual(failure.kind, .internalError, "a Swift case name is not a wire name")
    }

    func testMalformedChannelQuestionsAreRefused() throws {
        let entry = String(decoding: ChannelEntry(key: "k", architecture: "amd64").encoded(), as: UTF8.self)
        let whole: [(String, String)] = [
            ("protocol", HelperRequest.protocolVersion), ("mode", "channel"), ("question", "flathub"), ("question", "x"),
            ("url", "https://flathub.org/api/v2/appstream/x"), ("timeout_ms", "30000"), ("max_body_bytes", "1048576"),
            ("proxy", "auto"),
            ("key", "k"), ("architecture", "amd64"), ("previous", entry), ("now", "1"), ("cache_home", "/c"), ("file", "f"),
        ]
        func decoded(_ records: [(String, String)]) -> Bool {
            var message = HelperMessage()
            for (name, value) in records { message.add(name, value) }
            if case .success = HelperRequest.decode(message) { return true }
            return false
        }
        XCTAssertTrue(decoded(whole))
        for index in whole.indices.dropFirst(2) {
            XCTAssertFalse(decoded(whole.enumerated().filter { $0.offset != index }.map(\.element)), "without \(whole[index].0)")
        }
        XCTAssertFalse(decoded(whole.map { $0.0 == "architecture" ? ($0.0, "arm64") : $0 }), "an entry of another machine")
        XCTAssertFalse(decoded(whole.map { $0.0 == "question" && $0.1 == "flathub" ? ($0.0, "snap") : $0 }))
    }

    func testMalformedRequestsAreRefused() throws {
        let fetch: [(String, String)] = [
            ("protocol", HelperRequest.protocolVersion), ("mode", "fetch"), ("remote", "document"), ("url", "https://x/g.json"),
            ("language", "en"), ("timeout_ms", "3000"), ("max_body_bytes", "1048576"), ("proxy", "auto"), ("now", "1"),
            ("deadline_ns", "1"),
        ]
        var whole = HelperMessage()
        for (name, value) in fetch { whole.add(name, value) }
        guard case .success(.fetch) = HelperRequest.decode(whole) else { return XCTFail("the well-formed fetch is refused") }
        let rows: [[(String, String)]] = [
            fetch + [("boot", "x id")],
            fetch + [("boot", "12")],
            fetch + [("previous", "1"), ("template_version", "-1")],
            fetch + [("previous", "1"), ("identity", "1 2 3")],
            fetch.filter { $0.0 != "language" },
            fetch.map { $0.0 == "remote" ? ($0.0, "ftp") : $0 },
            [("protocol", HelperRequest.protocolVersion), ("mode", "update"), ("kind", "appimage")],
            [("protocol", HelperRequest.protocolVersion), ("mode", "update"), ("kind", "snap")],
            [("protocol", HelperRequest.protocolVersion), ("mode", "update"), ("kind", "package")],
            [("protocol", "3"), ("mode", "update"), ("kind", "flatpak")],
        ]
        for records in rows {
            var message = HelperMessage()
            for (name, value) in records { message.add(name, value) }
            if case .success(let request) = HelperRequest.decode(message) { XCTFail("\(records): accepted \(request)") }
        }
    }

    /// The helper reads its own boot clock a moment after the host; stamped
    /// with that, a fresh entry could lie a second ahead of the host's
    /// reading and have no age there (config_age_s null after a fetch).
    func testAFetchIsStampedWithTheHostsBootInstant() throws {
        let server = try LoopbackServer(self)
        let home = try makeTemporaryDirectory(self)
        let body = try JSONSerialization.data(withJSONObject: [
            "name": "stamp", "body": #"{"min_required_version_linux": "1.0"}"#])
        _ = try CurlTransport().send(HTTPRequest(url: server.url("/__document"), body: Array(body)), limits: TransportLimits())
        let hostBoot = try XCTUnwrap(BootInstant.now()).withSeconds(7)
        let fetch = HelperRequest.ConfigFetch(
            mode: .fetchFirst, remote: .document(url: server.url("/doc/stamp"), trustedKeys: nil), previous: nil,
            backoff: nil, appVersion: "1.0", languageCode: "en", limits: TransportLimits(), now: 1_800_000_000,
            boot: hostBoot, deadlineNanoseconds: Deadline(afterMilliseconds: 5000).nanoseconds,
            cacheHome: home.path + "/cache", stateHome: home.path + "/state")
        let answer = ConfigService.fetch(fetch) { _ in true }
        guard case .fetched(_, _, let entry, _) = answer else { return XCTFail("\(answer)") }
        let cached = try XCTUnwrap(CachedConfig.decode(entry, key: "document:" + server.url("/doc/stamp")))
        XCTAssertEqual(cached.fetchedAtBoot, hostBoot)
        XCTAssertEqual(cached.fetchedAt, 1_800_000_000)
    }
}

private extension BootInstant {
    func withSeconds(_ seconds: Int64) -> BootInstant { BootInstant(bootID: bootID, seconds: seconds) }
}
