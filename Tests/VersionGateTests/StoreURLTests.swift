import Foundation
import XCTest
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateWire
@testable import VersionGatePlatform
@testable import VersionGateSystem
@testable import VersionGateNetwork

/// The store URL (docs/design.md, "Where to update"): the policy against hostile URLs and app ids, the
/// URL building, the resolver's fallbacks, the iTunes lookup against the
/// loopback server, and opening with a fake `xdg-open`.
final class StoreURLTests: XCTestCase {
    private let policy = StoreURLPolicy.standard

    // MARK: - policy

    static let hostileURLs: [String] = [
        // schemes
        "javascript:alert(1)", "JAVASCRIPT:alert(1)", "JavaScript://flathub.org/%0Aalert(1)",
        "data:text/html;base64,PHNjcmlwdD4=", "file:///etc/passwd", "FILE:///etc/passwd", "vbscript:msgbox(1)",
        "http://flathub.org/apps/org.example.App", "HTTP://flathub.org/", "ftp://flathub.org/", "about:blank",
        "view-source:https://flathub.org/", "itms-services://?action=download-manifest&url=https://evil.example/",
        "flatpak+https://dl.flathub.org/repo/appstream/org.example.App.flatpakref",
        // user information, in clear and encoded
        "https://store@evil.example/", "https://flathub.org@evil.example/", "https://user:pw@flathub.org/apps/x",
        "https://flathub.org%40evil.example/", "https://store%40evil.example/", "https://%66lathub.org/",
        // IP literals in every form a URL parser reads as an address
        "https://127.0.0.1/", "https://2130706433/", "https://0x7f.1/", "https://0x7f000001/", "https://0177.0.0.1/",
        "https://127.1/", "https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://1.1.1.1./",
        // ports, empty or odd hosts, backslashes
        "https://flathub.org:443/apps/x", "https://flathub.org:/apps/x", "https://flathub.org:8080/",
        "https:///apps/x", "https://", "https:flathub.org/apps/x", "https://flathub.org\\@evil.example/",
        "https:\\\\flathub.org/apps/x",
        // hosts not allowed: other, look-alike, subdomain, trailing dot, IDN
        "https://evil.example/", "https://flathub.org.evil.example/", "https://www.flathub.org/apps/x",
        "https://flathub.org./apps/x", "https://xn--flthub-bta.org/", "https://evil.example#@flathub.org/",
        // characters
        "https://flathub.org/apps/a b", "https://flathub.org/apps/a\tb", "https://flathub.org/apps/a\nInjected: 1",
        "https://flathub.org/apps/a\rb", "https://flathub.org/apps/a\u{0}b", "https://flathub.org/apps/\u{202E}gpj.exe",
        "https://flathub.org/apps/\u{200F}x", "https://fl\u{E1}thub.org/", "https://flathub.org\u{FF0F}apps",
        "https://flathub.org/apps/\u{7F}", "https://flathub.org/apps/<script>", "https://flathub.org/apps/\"x\"",
        "https://flathub.org/apps/%zz", "https://flathub.org/apps/%0a", "https://flathub.org/apps/%7f",
        "https://flathub.org/apps/%", "https://flathub.org/" + String(repeating: "a", count: 2049 - 20),
        "", "   ", "-https://flathub.org/", "--help", ":", "//flathub.org/apps/x",
        // appstream: shapes
        "appstream:../..", "appstream:", "appstream://org.example.App", "appstream:org.example.App?alt=evil.App",
        "appstream:org/example", "appstream:1org.example", "appstream:org.example.App;rm", "appstream:org..example",
        "appstream:org.example.", "appstream:App", "appstream:org.ex%41mple",
        // snap: shapes
        "snap:Firefox", "snap://my_app", "snap://my--app", "snap://-app", "snap://app-", "snap://a", "snap://123",
        "snap://" + String(repeating: "a", count: 41), "snap://firefox/../../etc", "snap:///firefox", "snap://",
        "snap://firefox?channel=edge",
        // itms-apps: shapes
        "itms-apps://itunes.apple.com/app/id", "itms-apps://itunes.apple.com/app/id-1",
        "itms-apps://itunes.apple.com/app/id12x", "itms-apps://itunes.apple.com/app/id007",
        "itms-apps://itunes.apple.com/app/id0", "itms-apps://itunes.apple.com/app/id99999999999999999999",
        "itms-apps://evil.example/app/id1", "itms-apps://itunes.apple.com/lookup?bundleId=com/example",
        "itms-apps://itunes.apple.com/lookup?bundleId=com.example&redirect=evil",
        "itms-apps://itunes.apple.com/lookup?bundleId=", "itms-apps:itunes.apple.com/app/id1",
        "itms-apps://itunes.apple.com:443/app/id1", "itms-apps://u@itunes.apple.com/app/id1",
        "itms-apps://itunes.apple.com/app/id1/../../x",
    ]

    static let allowedURLs: [String] = [
        "https://flathub.org/apps/org.example.App", "HTTPS://FLATHUB.ORG/apps/org.example.App",
        "https://snapcraft.io/firefox", "https://apps.apple.com/us/app/example-launcher/id1500000001?uo=4",
        "https://itunes.apple.com/app/id1", "https://flathub.org", "https://flathub.org?x",
        "https://flathub.org/apps/a.b?x=1&y=%2F;z=$(id)'q'#frag",
        "https://flathub.org/" + String(repeating: "a", count: 2048 - 20),
        "appstream:org.example.App", "appstream:org.kde.discover.desktop", "appstream:_org.example.App-1",
        "AppStream:org.example.App",
        "snap://firefox", "snap:firefox", "snap://my-app2", "snap://ab", "snap://" + String(repeating: "a", count: 40),
        "itms-apps://itunes.apple.com/app/id284882215", "itms-apps://apps.apple.com/app/id1",
        "itms-apps://itunes.apple.com/lookup?bundleId=com.facebook.Facebook",
        "itms-apps://itunes.apple.com/lookup?bundleId=com.9gag.ios.mobile",
    ]

    func testHostileURLsAreRefusedWithAReason() {
        XCTAssertGreaterThanOrEqual(Self.hostileURLs.count, 40)
        for url in Self.hostileURLs {
            let why = policy.refusal(of: url)
            XCTAssertNotNil(why, "accepted: \(url.debugDescription)")
            XCTAssertFalse(why?.isEmpty ?? false, url.debugDescription)
        }
    }

    func testRefusalReasonsNameTheRule() {
        let rows: [(url: String, mentions: String)] = [
            ("javascript:alert(1)", "scheme javascript:"), ("JAVASCRIPT:alert(1)", "scheme javascript:"),
            ("http://flathub.org/", "scheme http:"), ("https://store@evil.example/", "user information"),
            ("https://store%40evil.example/", "percent-encoded host"), ("https://127.0.0.1/", "IP address"),
            ("https://2130706433/", "IP address"), ("https://0x7f.1/", "IP address"), ("https://[::1]/", "IP address"),
            ("https://flathub.org:443/", "port"), ("https:///x", "no host"), ("https://a\\b/", "backslash"),
            ("https://evil.example/", "host evil.example is not allowed"), ("https://a b/", "spaces"),
            ("https://flathub.org/\u{202E}", "non-ASCII"), ("", "1-2048 bytes"),
            ("appstream:../..", "appstream id"), ("snap://my--app", "--"), ("snap:Firefox", "a-z"),
        ]
        for row in rows {
            let why = policy.refusal(of: row.url) ?? "accepted"
            XCTAssertTrue(why.contains(row.mentions), "\(row.url.debugDescription): \(why)")
        }
    }

    func testAllowedURLsPassAndPassAgain() {
        for url in Self.allowedURLs {
            XCTAssertNil(policy.refusal(of: url), url)
            // Nothing is rewritten, so a second check sees the same string.
            XCTAssertNil(policy.refusal(of: String(url)), "not idempotent: \(url)")
        }
    }

    func testSchemesAndHostsAreTheLaunchersChoice() {
        let httpsOnly = StoreURLPolicy(allowedSchemes: ["https"], allowedHosts: ["flathub.org"])
        XCTAssertNotNil(httpsOnly.refusal(of: "appstream:org.example.App"))
        XCTAssertNotNil(httpsOnly.refusal(of: "https://snapcraft.io/x"))
        XCTAssertNil(httpsOnly.refusal(of: "https://flathub.org/apps/x"))
        // Subdomains only when listed; and an unsupported scheme can never be switched on.
        let withSub = StoreURLPolicy(allowedSchemes: ["https", "javascript", "file"], allowedHosts: ["www.flathub.org"])
        XCTAssertNil(withSub.refusal(of: "https://www.flathub.org/apps/x"))
        XCTAssertNotNil(withSub.refusal(of: "https://flathub.org/apps/x"))
        XCTAssertNotNil(withSub.refusal(of: "javascript:alert(1)"))
        XCTAssertNotNil(withSub.refusal(of: "file:///etc/passwd"))
        // The host list also applies to itms-apps.
        XCTAssertNotNil(StoreURLPolicy(allowedSchemes: ["itms-apps"], allowedHosts: [])
            .refusal(of: "itms-apps://itunes.apple.com/app/id1"))
    }

    func testOptionListsAreValidated() {
        XCTAssertEqual(StoreURLPolicy.parseSchemes("https, appstream ,SNAP,itms-apps:"),
                       ["https", "appstream", "snap", "itms-apps"])
        XCTAssertEqual(StoreURLPolicy.parseSchemes(""), [])
        XCTAssertEqual(StoreURLPolicy.parseHosts("flathub.org,Example.COM"), ["flathub.org", "example.com"])
        XCTAssertEqual(StoreURLPolicy.parseHosts("  "), [])
        for bad in ["https,javascript", "http", "file", "https,,snap", "https,", "data", "https;snap", "ht tps", "é"] {
            XCTAssertNil(StoreURLPolicy.parseSchemes(bad), bad)
        }
        for bad in ["127.0.0.1", "flathub.org:443", "[::1]", "a..b", "flathub.org.", ".flathub.org", "-a.org",
                    "user@host", "a/b", "host\u{0}", "fl\u{E1}thub.org", "a,,b", "2130706433", "0x7f.1",
                    String(repeating: "a", count: 64) + ".org"] {
            XCTAssertNil(StoreURLPolicy.parseHosts(bad), bad)
        }
        XCTAssertNil(StoreURLPolicy.parseList(Array(repeating: "a", count: 65).joined(separator: ",")))
    }

    // MARK: - app ids

    func testAppIDs() {
        let component: [(String, Bool)] = [
            ("org.example.App", true), ("com.example.Launcher", true), ("_org.example.App_2", true),
            ("org.kde.discover.desktop", true), ("io.github.a-b.c-d", true), ("a.b", true),
            (String(repeating: "a", count: 127) + "." + String(repeating: "b", count: 127), true),
            ("App", false), ("", false), ("org example.App", false), ("org/example/App", false),
            ("org.ex\u{E4}mple.App", false), ("../..", false), (".org.example", false), ("org..example", false),
            ("org.example.", false), ("1org.example.App", false), ("org.1example.App", false),
            ("-org.example", false), ("org.example.App\n", false), ("org.example.App%2F", false),
            ("org.example.App?x=1", false), ("org.example.App\u{202E}", false), ("org.example.\u{0661}", false),
            (String(repeating: "a", count: 128) + "." + String(repeating: "b", count: 127), false),
        ]
        for (id, valid) in component { XCTAssertEqual(AppID.componentIDRefusal(id) == nil, valid, id.debugDescription) }

        let bundle: [(String, Bool)] = [
            ("com.example.launcher", true), ("com.facebook.Facebook", true), ("com.9gag.ios.mobile", true),
            ("com.example.my-app", true), ("com.example app", false), ("com/example", false),
            ("com.ex\u{E4}mple", false), ("com..example", false), ("com.example.", false), ("-com.example", false),
            ("com.example?x", false), ("com.example&country=de", false), ("launcher", false), ("", false),
        ]
        for (id, valid) in bundle { XCTAssertEqual(AppID.bundleIDRefusal(id) == nil, valid, id.debugDescription) }

        let snaps: [(String, Bool)] = [
            ("firefox", true), ("my-app2", true), ("ab", true), ("2048-game", true),
            (String(repeating: "a", count: 40), true), ("Firefox", false), ("my_app", false), ("my--app", false),
            ("-app", false), ("app-", false), ("a", false), ("123", false), ("", false), ("fire fox", false),
            (String(repeating: "a", count: 41), false), ("fire\u{FF46}ox", false), ("firefox/..", false),
        ]
        for (name, valid) in snaps { XCTAssertEqual(AppID.snapNameRefusal(name) == nil, valid, name.debugDescription) }
    }

    func testPercentEncodingKeepsOnlyUnreserved() {
        XCTAssertEqual(PercentEncoding.encoded("AZaz09-._~"), "AZaz09-._~")
        XCTAssertEqual(PercentEncoding.encoded("a b/c?d&e=f#g%h@i:j"), "a%20b%2Fc%3Fd%26e%3Df%23g%25h%40i%3Aj")
        XCTAssertEqual(PercentEncoding.encoded("é\u{0}\n"), "%C3%A9%00%0A")
    }

    // MARK: - store links

    func testStoreLinks() throws {
        XCTAssertEqual(try StoreKind.flathub.links(appID: "org.example.App").get(),
                       StoreLinks(primary: "appstream:org.example.App", webFallback: "https://flathub.org/apps/org.example.App"))
        XCTAssertEqual(try StoreKind.snap.links(appID: "firefox").get(),
                       StoreLinks(primary: "snap://firefox", webFallback: "https://snapcraft.io/firefox"))
        XCTAssertEqual(try StoreKind.appstore.links(appID: "com.example.launcher", trackID: 1500000001).get(),
                       StoreLinks(primary: "itms-apps://itunes.apple.com/app/id1500000001",
                                  webFallback: "https://apps.apple.com/app/id1500000001"))
        XCTAssertEqual(try StoreKind.appstore.links(appID: "com.example.launcher").get(),
                       StoreLinks(primary: "itms-apps://itunes.apple.com/lookup?bundleId=com.example.launcher", webFallback: nil))
        for kind in StoreKind.allCases where kind != .url {
            for id in ["", "a b", "../..", "x\u{202E}y", "org.example.App/../x", "Firefox.App?x"] {
                XCTAssertThrowsError(try kind.links(appID: id).get(), "\(kind) \(id.debugDescription)")
            }
            // Everything built passes the standard policy.
            let good = kind == .snap ? "firefox" : "org.example.App"
            let links = try kind.links(appID: good, trackID: 42).get()
            XCTAssertNil(policy.refusal(of: links.primary), links.primary)
            XCTAssertNil(links.webFallback.flatMap(policy.refusal), links.webFallback ?? "")
        }
        XCTAssertThrowsError(try StoreKind.url.links(appID: "org.example.App").get())
        XCTAssertEqual(StoreKind(rawValue: "flathub"), .flathub)
        XCTAssertNil(StoreKind(rawValue: "Flathub"))
    }

    // MARK: - resolver

    /// Inside Flatpak or Snap the portal opens any URI, so https goes first.
    func testSandboxPutsHTTPSFirst() {
        func resolve(_ sandbox: Sandbox.Kind?, _ store: StoreKind, _ id: String, config: String? = nil,
                     fallback: String? = nil) -> StoreResolution {
            StoreResolver(sandbox: sandbox).resolve(store: store, appID: id, country: "us", configURL: config,
                                                    fallbackURL: fallback, policy: .standard, configKey: "update_url_linux")
        }
        let rows: [(name: String, got: StoreResolution, url: String?, web: String?)] = [
            ("outside: appstream first", resolve(nil, .flathub, "org.example.App"), "appstream:org.example.App",
             "https://flathub.org/apps/org.example.App"),
            ("flatpak: web page first", resolve(.flatpak, .flathub, "org.example.App"),
             "https://flathub.org/apps/org.example.App", nil),
            ("snap: web page first", resolve(.snap, .snap, "firefox"), "https://snapcraft.io/firefox", nil),
            ("flatpak: an https config URL stays first", resolve(.flatpak, .flathub, "org.example.App",
                                                                 config: "https://flathub.org/apps/org.other.App"),
             "https://flathub.org/apps/org.other.App", "https://flathub.org/apps/org.example.App"),
            ("flatpak: an appstream config URL yields to the web page", resolve(.flatpak, .flathub, "org.example.App",
                                                                               config: "appstream:org.other.App"),
             "https://flathub.org/apps/org.example.App", nil),
            ("snap: url store, https fallback_url before appstream config",
             resolve(.snap, .url, "x", config: "appstream:org.other.App", fallback: "https://flathub.org/"),
             "https://flathub.org/", nil),
        ]
        for row in rows {
            XCTAssertEqual(row.got.url, row.url, row.name)
            XCTAssertEqual(row.got.webFallback, row.web, row.name)
        }
        XCTAssertTrue(rows[1].got.note?.contains("inside flatpak: https pages first") == true, rows[1].got.note ?? "")
        XCTAssertNil(rows[0].got.note)
    }

    func testSandboxDetection() throws {
        let files = POSIXFiles()
        let none = "/nonexistent/.flatpak-info"
        func detect(_ variables: [String: String], info: String = none) -> Sandbox {
            Sandbox.detect(CheckEnvironment(variables: variables), files: files, flatpakInfo: info)
        }
        XCTAssertEqual(detect([:]), Sandbox())
        XCTAssertEqual(detect(["FLATPAK_ID": "", "SNAP": "", "SNAP_NAME": "", "APPIMAGE": ""]), Sandbox())
        XCTAssertEqual(detect(["FLATPAK_ID": "org.x.Y"]), Sandbox(kind: .flatpak), "FLATPAK_ID alone: no portal app")
        XCTAssertEqual(detect(["SNAP": "/snap/x/1", "SNAP_INSTANCE_NAME": "x_beta", "SNAP_NAME": "x"]),
                       Sandbox(kind: .snap, snapName: "x"))
        XCTAssertEqual(detect(["SNAP_NAME": "y"]).snapName, "y")
        XCTAssertEqual(detect(["APPIMAGE": "/home/u/Demo.AppImage"]).appImage, "/home/u/Demo.AppImage")
        XCTAssertNil(detect(["APPIMAGE": "Demo.AppImage"]).appImage, "a relative $APPIMAGE is nobody's")
        let dir = try makeTemporaryDirectory(self)
        let info = try writeFile(dir, ".flatpak-info", "[Application]\n")
        XCTAssertEqual(detect([:], info: info), Sandbox(kind: .flatpak, isFlatpakApp: true))
    }

    func testResolverRules() {
        let resolver = StoreResolver(sandbox: nil)
        let key = "update_url_linux"
        func resolve(_ store: StoreKind, _ id: String?, config: String?, fallback: String?,
                     policy: StoreURLPolicy = .standard) -> StoreResolution {
            resolver.resolve(store: store, appID: id, country: "us", configURL: config, fallbackURL: fallback,
                             policy: policy, configKey: key)
        }
        let flathubWeb = "https://flathub.org/apps/org.example.App"
        let rows: [(name: String, got: StoreResolution, url: String?, web: String?, note: [String])] = [
            ("url: config allowed", resolve(.url, nil, config: "https://flathub.org/apps/x", fallback: "https://snapcraft.io/y"),
             "https://flathub.org/apps/x", nil, []),
            ("url: config refused, fallback", resolve(.url, nil, config: "https://u@flathub.org/", fallback: "https://snapcraft.io/y"),
             "https://snapcraft.io/y", nil, ["update_url_linux refused: user information", "using \"https://snapcraft.io/y\""]),
            ("url: both refused", resolve(.url, nil, config: "javascript:x", fallback: "file:///etc/passwd"),
             nil, nil, ["update_url_linux refused: scheme javascript:", "fallback_url refused: scheme file:"]),
            ("url: nothing configured", resolve(.url, "org.example.App", config: nil, fallback: nil), nil, nil, []),
            ("url: empty config", resolve(.url, nil, config: "", fallback: nil), nil, nil, []),
            ("flathub: own URL", resolve(.flathub, "org.example.App", config: nil, fallback: nil),
             "appstream:org.example.App", flathubWeb, []),
            ("flathub: config wins", resolve(.flathub, "org.example.App", config: "https://flathub.org/apps/org.other.App", fallback: nil),
             "https://flathub.org/apps/org.other.App", flathubWeb, []),
            ("flathub: config refused", resolve(.flathub, "org.example.App", config: "https://store@evil.example/", fallback: nil),
             "appstream:org.example.App", flathubWeb,
             ["update_url_linux refused: user information", "using \"appstream:org.example.App\""]),
            ("flathub: config = web page", resolve(.flathub, "org.example.App", config: flathubWeb, fallback: nil),
             flathubWeb, nil, []),
            ("flathub: bad app id", resolve(.flathub, "org example", config: nil, fallback: nil), nil, nil, ["app_id"]),
            ("flathub: bad app id, fallback_url", resolve(.flathub, "../..", config: nil, fallback: "https://flathub.org/"),
             "https://flathub.org/", nil, ["app_id", "using \"https://flathub.org/\""]),
            ("flathub: no app id", resolve(.flathub, nil, config: nil, fallback: nil), nil, nil, ["app_id is not set"]),
            ("flathub: appstream not allowed", resolve(.flathub, "org.example.App", config: nil, fallback: nil,
                                                       policy: StoreURLPolicy(allowedSchemes: ["https"], allowedHosts: ["flathub.org"])),
             flathubWeb, nil, ["flathub URL refused: scheme appstream:", "using"]),
            ("flathub: nothing allowed", resolve(.flathub, "org.example.App", config: nil, fallback: nil,
                                                 policy: StoreURLPolicy(allowedSchemes: [], allowedHosts: [])),
             nil, nil, ["flathub URL refused", "flathub web page refused", "no store URL"]),
            ("snap", resolve(.snap, "firefox", config: nil, fallback: nil), "snap://firefox", "https://snapcraft.io/firefox", []),
            ("snap: bad name", resolve(.snap, "Firefox", config: nil, fallback: nil), nil, nil, ["app_id"]),
            ("appstore: no lookup", resolve(.appstore, "com.example.launcher", config: nil, fallback: nil),
             "itms-apps://itunes.apple.com/lookup?bundleId=com.example.launcher", nil, ["no iTunes lookup"]),
        ]
        for row in rows {
            XCTAssertEqual(row.got.url, row.url, row.name)
            XCTAssertEqual(row.got.webFallback, row.web, row.name)
            XCTAssertEqual(row.got.configRefusal != nil, row.note.first?.hasPrefix("update_url_linux refused") == true,
                           "\(row.name): \(row.got.configRefusal ?? "no config refusal")")
            if row.note.isEmpty {
                XCTAssertNil(row.got.note, row.name)
            } else {
                for part in row.note {
                    XCTAssertTrue(row.got.note?.contains(part) == true, "\(row.name): \(row.got.note ?? "no note")")
                }
            }
        }
    }

    func testConfigRefusalIsReportedOnItsOwn() {
        let resolver = StoreResolver(sandbox: nil)
        let refused = resolver.resolve(store: .flathub, appID: "org.example.App", country: "us",
                                       configURL: "https://u@flathub.org/", fallbackURL: "javascript:x", policy: policy)
        XCTAssertEqual(refused.configRefusal, "user information is not allowed")
        XCTAssertEqual(refused.url, "appstream:org.example.App")
        // Only the config URL counts: a refused fallback_url is the launcher's business.
        let fallbackOnly = resolver.resolve(store: .url, appID: nil, country: "us", configURL: nil,
                                            fallbackURL: "javascript:x", policy: policy)
        XCTAssertNil(fallbackOnly.configRefusal)
        XCTAssertNil(fallbackOnly.url)
    }

    func testTheResolverNeverReturnsARefusedURL() {
        let resolver = StoreResolver(sandbox: nil)
        let ids = ["org.example.App", "firefox", "com.example.launcher", "../..", "a b", "Firefox", "x\u{202E}"]
        for store in StoreKind.allCases {
            for hostile in Self.hostileURLs {
                for id in ids {
                    let got = resolver.resolve(store: store, appID: id, country: "us", configURL: hostile,
                                               fallbackURL: hostile, policy: policy)
                    if let url = got.url { XCTAssertNil(policy.refusal(of: url), "\(store) \(hostile.debugDescription) → \(url)") }
                    if let web = got.webFallback { XCTAssertNil(policy.refusal(of: web), web) }
                    if !hostile.isEmpty {   // "" means "not set", not a refusal
                        XCTAssertNotNil(got.note, "\(store) \(hostile.debugDescription): refusal not reported")
                    }
                }
            }
        }
    }

    // MARK: - iTunes lookup: parsing (no network)

    func testTrackIDParsing() {
        func body(_ results: String) -> [UInt8] { Array("\n\n\n{\n \"resultCount\":1,\n \"results\": [\n\(results)]\n}\n\n\n".utf8) }
        let id = "com.example.launcher"
        let rows: [(name: String, body: [UInt8], trackID: Int64?)] = [
            ("whole number", body(#"{"trackId":1500000001, "bundleId":"com.example.launcher"}"#), 1500000001),
            ("bundle id case", body(#"{"trackId":7, "bundleId":"COM.Example.Launcher"}"#), 7),
            ("no bundle id field", body(#"{"trackId":7}"#), 7),
            ("long decimals elsewhere", body(#"{"averageUserRating":4.13506999999999980133225108147598803043365478515625, "price":0.00, "trackId":284882215}"#), 284882215),
            ("first result wins", body(#"{"trackId":1}, {"trackId":2}"#), 1),
            ("empty", Array("\n\n\n{\n \"resultCount\":0,\n \"results\": []\n}\n\n\n".utf8), nil),
            ("negative", body(#"{"trackId":-5}"#), nil), ("zero", body(#"{"trackId":0}"#), nil),
            ("fraction", body(#"{"trackId":1.5}"#), nil), ("huge", body(#"{"trackId":1e30}"#), nil),
            ("over the cap", body(#"{"trackId":9007199254740993}"#), nil),
            ("string", body(#"{"trackId":"1500000001"}"#), nil), ("null", body(#"{"trackId":null}"#), nil),
            ("missing", body(#"{"bundleId":"com.example.launcher"}"#), nil),
            ("other app", body(#"{"trackId":1, "bundleId":"com.evil.app"}"#), nil),
            ("results not an array", Array(#"{"results":{}}"#.utf8), nil),
            ("result not an object", body("42"), nil),
            ("HTML", Array("<html><body>503</body></html>".utf8), nil), ("empty body", [], nil),
            ("binary", [0xFF, 0x00, 0x7B], nil), ("truncated", Array(body(#"{"trackId":1500"#).prefix(40)), nil),
        ]
        for row in rows {
            let got = try? ChannelDocuments.appStoreTrackID(row.body, bundleID: id).get()
            XCTAssertEqual(got, row.trackID, row.name)
        }
        XCTAssertEqual(StoreKind.countryCode("US"), "us")
        XCTAssertEqual(StoreKind.countryCode("de"), "de")
        for bad in ["", "u", "usa", "u1", "\u{0}s", "\u{C4}s", "u s"] { XCTAssertNil(StoreKind.countryCode(bad), bad) }
    }

    func testBadInputsMakeNoRequest() throws {
        let door = CountingDoor()
        let system = System(environment: CheckEnvironment(variables: [:], cacheHome: try makeTemporaryDirectory(self).path,
                                                          stateHome: nil), helper: door)
        let asker = ChannelAsker(options: ClientOptions(), system: system)
        for (bundle, country) in [("com.example launcher", "us"), ("com/x", "us"), ("com.example.launcher", "usa"),
                                  ("com.example.launcher", "\u{C4}s"), ("", "us")] {
            let answer = asker.appStoreTrackID(bundleID: bundle, country: country, deadline: Deadline(afterMilliseconds: 1000),
                                               log: nil)
            XCTAssertNil(answer.trackID)
            XCTAssertNotNil(answer.reason)
        }
        XCTAssertEqual(door.count, 0)
        // A store URL that cannot be used anyway is not looked up either.
        let resolver = StoreResolver(lookup: { asker.appStoreTrackID(bundleID: $0, country: $1,
                                                                      deadline: Deadline(afterMilliseconds: 1000), log: nil) },
                                     sandbox: nil)
        let got = resolver.resolve(store: .appstore, appID: "com.example.launcher", country: "us", configURL: nil,
                                   fallbackURL: nil, policy: StoreURLPolicy(allowedSchemes: ["https"], allowedHosts: ["flathub.org"]))
        XCTAssertNil(got.url)
        XCTAssertEqual(door.count, 0)
    }

    // MARK: - iTunes lookup against the loopback server

    private static var fixtures: URL {
        TestFiles.fixtures
    }

    private func fixtureTrackID(_ name: String) throws -> Int64 {
        let text = try String(contentsOf: Self.fixtures.appendingPathComponent("itunes/\(name)"), encoding: .utf8)
        let range = try XCTUnwrap(text.range(of: #""trackId":[0-9]+"#, options: .regularExpression))
        return try XCTUnwrap(Int64(text[range].dropFirst(#""trackId":"#.count)))
    }

    /// The store link's lookup as a client makes it: the App Store channel's
    /// entry in `cacheHome`, asked by the helper's code served in this
    /// process (libcurl here: swift test does not build the helper).
    private func lookup(_ server: LoopbackServer, cacheHome: String) throws -> StoreResolver.TrackIDLookup {
        var options = ClientOptions()
        try options.set("itunes_endpoint", server.url("/"))
        let system = System(environment: CheckEnvironment(variables: [:], cacheHome: cacheHome, stateHome: nil),
                            helper: InProcessHelper())
        let asker = ChannelAsker(options: options, system: system)
        return { asker.appStoreTrackID(bundleID: $0, country: $1, deadline: Deadline(afterMilliseconds: 3000), log: nil) }
    }

    private func lookupRequests(_ server: LoopbackServer) throws -> [String] {
        try server.requests().compactMap { $0["path"] as? String }.filter { $0.hasPrefix("/lookup") }
    }

    func testLookupAgainstTheFixtures() throws {
        let server = try LoopbackServer(self)
        let cacheHome = try makeTemporaryDirectory(self).path
        let resolver = StoreResolver(lookup: try lookup(server, cacheHome: cacheHome), sandbox: nil)
        let us = try fixtureTrackID("lookup_found_example_launcher_us_raw.txt")
        let de = try fixtureTrackID("lookup_found_example_launcher_de_stale_raw.txt")
        let fallback = "itms-apps://itunes.apple.com/lookup?bundleId=com.example.launcher"
        let rows: [(country: String, url: String, web: String?, note: String?)] = [
            ("US", "itms-apps://itunes.apple.com/app/id\(us)", "https://apps.apple.com/app/id\(us)", nil),
            ("de", "itms-apps://itunes.apple.com/app/id\(de)", "https://apps.apple.com/app/id\(de)", nil),
            ("fr", fallback, nil, "no app with this bundle id"),   // not sold there: Apple's empty 200
        ]
        for row in rows {
            let got = resolver.resolve(store: .appstore, appID: "com.example.launcher", country: row.country,
                                       configURL: nil, fallbackURL: nil, policy: policy)
            XCTAssertEqual(got.url, row.url, row.country)
            XCTAssertEqual(got.webFallback, row.web, row.country)
            if let note = row.note { XCTAssertTrue(got.note?.contains(note) == true, got.note ?? "no note") }
            else { XCTAssertNil(got.note, row.country) }
        }
        XCTAssertEqual(try lookupRequests(server), [
            "/lookup?bundleId=com.example.launcher&country=us", "/lookup?bundleId=com.example.launcher&country=de",
            "/lookup?bundleId=com.example.launcher&country=fr",
        ])
        // The real Facebook capture (long decimals, text/javascript) parses too.
        let facebook = try lookup(server, cacheHome: cacheHome)("com.facebook.Facebook", "us")
        XCTAssertEqual(facebook.trackID, try fixtureTrackID("lookup_found_facebook_raw.txt"))
    }

    /// Each failure falls back to the lookup-form link and says why. (The
    /// deadline of a slow store is the real helper's: test_deadlines.py.)
    func testLookupFailuresFallBack() throws {
        let server = try LoopbackServer(self)
        let rows: [(id: String, mentions: String)] = [
            ("com.example.error5xx", "HTTP 503"),
            ("com.example.garbage", "no results array"),
            ("com.example.unknown", "no app"),
        ]
        for row in rows {
            let resolver = StoreResolver(lookup: try lookup(server, cacheHome: try makeTemporaryDirectory(self).path),
                                         sandbox: nil)
            let got = resolver.resolve(store: .appstore, appID: row.id, country: "us", configURL: nil,
                                       fallbackURL: nil, policy: policy)
            XCTAssertEqual(got.url, "itms-apps://itunes.apple.com/lookup?bundleId=\(row.id)", row.id)
            XCTAssertNil(got.webFallback, row.id)
            XCTAssertTrue(got.note?.contains(row.mentions) == true, "\(row.id): \(got.note ?? "no note")")
        }
    }

    func testResolvedTrackIDIsCachedAndFailuresBackOff() throws {
        let server = try LoopbackServer(self)
        let dir = try makeTemporaryDirectory(self)
        let expected = try fixtureTrackID("lookup_found_example_launcher_us_raw.txt")

        XCTAssertEqual(try lookup(server, cacheHome: dir.path)("com.example.launcher", "us").trackID, expected)
        XCTAssertEqual(try lookup(server, cacheHome: dir.path)("com.example.launcher", "US").trackID, expected)
        let resolved = StoreResolver(lookup: try lookup(server, cacheHome: dir.path), sandbox: nil)
            .resolve(store: .appstore, appID: "com.example.launcher", country: "us", configURL: nil, fallbackURL: nil, policy: policy)
        XCTAssertEqual(resolved.url, "itms-apps://itunes.apple.com/app/id\(expected)")
        XCTAssertEqual(try lookupRequests(server).count, 1, "the cached trackId was fetched again")

        // Per country; a failure is remembered with its backoff: not asked again until it ends.
        _ = try lookup(server, cacheHome: dir.path)("com.example.launcher", "de")
        let failed = try lookup(server, cacheHome: dir.path)("com.example.error5xx", "us")
        let again = try lookup(server, cacheHome: dir.path)("com.example.error5xx", "us")
        XCTAssertEqual(try lookupRequests(server).count, 3)
        XCTAssertTrue(failed.reason?.contains("HTTP 503") == true, failed.reason ?? "no reason")
        XCTAssertTrue(again.reason?.contains("not asked for") == true, again.reason ?? "no reason")

        // A corrupt or foreign cache entry is ignored and replaced.
        let cache = dir.appendingPathComponent("versiongate")
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasPrefix("channel-") }
        var usEntry: (file: String, key: String, architecture: String)?
        for file in entries {
            let value = try JSONValue.decode(Array(try Data(contentsOf: cache.appendingPathComponent(file))))
            if case .string(let key)? = value["key"], key.contains("com.example.launcher us"),
               case .string(let architecture)? = value["architecture"] {
                usEntry = (file, key, architecture)
            }
        }
        let entry = try XCTUnwrap(usEntry, "\(entries)")
        let now = System.realTimeSeconds()
        func written(_ trackID: String) -> String {
            #"{"format":1,"key":"\#(entry.key)","architecture":"\#(entry.architecture)","served":"1.0","confirmed_at":"\#(now)","track_id":\#(trackID)}"#
        }
        let junks = ["{not json", "", written(#""-5""#), written(#""+5""#), written("5"),
                     written(#""5""#).replacingOccurrences(of: #""format":1"#, with: #""format":2"#),
                     written(#""5""#).replacingOccurrences(of: entry.key, with: "other")]
        for (index, junk) in junks.enumerated() {
            try writeFile(cache, entry.file, junk)
            XCTAssertEqual(try lookup(server, cacheHome: dir.path)("com.example.launcher", "us").trackID, expected, junk)
            XCTAssertEqual(try lookupRequests(server).count, 4 + index, junk)
            XCTAssertEqual(try lookup(server, cacheHome: dir.path)("com.example.launcher", "us").trackID, expected, junk)
            XCTAssertEqual(try lookupRequests(server).count, 4 + index, "asked again: \(junk)")
        }
        // Control: the same entry with a good id is trusted (so the junk above was refused for its content).
        try writeFile(cache, entry.file, written(#""5""#))
        XCTAssertEqual(try lookup(server, cacheHome: dir.path)("com.example.launcher", "us").trackID, 5)
        XCTAssertEqual(try lookupRequests(server).count, 3 + junks.count)
    }

    // MARK: - opening with a fake xdg-open

    /// A directory holding an `xdg-open` that appends one line per call to
    /// `log`: `argc=<n> [<arg1>] … sid=<session> pid=<pid> in=<stdin> out=<stdout> leak=<yes|no>`,
    /// then `body` runs (e.g. `exit 3`). PATH starts with it until the test ends.
    private func fakeXDGOpen(_ body: String, leakCheckFD: Int32 = -1) throws -> URL {
        let dir = try makeTemporaryDirectory(self)
        let log = dir.appendingPathComponent("argv.log").path
        let script = """
            #!/bin/sh
            line="argc=$#"
            for a in "$@"; do line="$line [$a]"; done
            sid=$(cut -d' ' -f6 /proc/$$/stat)
            leak=no
            if [ -e /proc/$$/fd/\(leakCheckFD) ]; then leak=yes; fi
            printf '%s sid=%s pid=%s in=%s out=%s err=%s leak=%s\\n' "$line" "$sid" "$$" "$(readlink /proc/$$/fd/0)" \
                "$(readlink /proc/$$/fd/1)" "$(readlink /proc/$$/fd/2)" "$leak" >> '\(log)'
            \(body)
            """
        let path = try writeFile(dir, "xdg-open", script)
        XCTAssertEqual(chmod(path, 0o755), 0)
        let oldPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        setenv("PATH", dir.path + ":" + oldPath, 1)
        addTeardownBlock { setenv("PATH", oldPath, 1) }
        return URL(fileURLWithPath: log)
    }

    private func calls(_ log: URL) -> [String] {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    func testOpenPassesTheURLAsOneArgumentWithoutAShell() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)   // inheritable on purpose: the child must not get it
        defer { close(fds[0]); close(fds[1]) }
        let log = try fakeXDGOpen("exit 0", leakCheckFD: fds[1])
        let marker = log.deletingLastPathComponent().appendingPathComponent("pwned").path
        let url = "https://flathub.org/apps/a.b?x=1;touch$IFS\(marker.replacingOccurrences(of: "/", with: "%2F"))&y=$(touch%20\(marker.replacingOccurrences(of: "/", with: "%2F")))&q='a'`"
        // a backquote is refused; without it the URL is allowed
        XCTAssertNotNil(policy.refusal(of: url))
        let allowed = String(url.dropLast())
        XCTAssertNil(policy.refusal(of: allowed))

        let result = URLOpener.open(allowed, policy: policy, webFallback: nil, timeoutMs: 3000, processes: POSIXProcesses())
        XCTAssertEqual(result.outcome, .opened, result.message)
        XCTAssertEqual(result.url, allowed)
        XCTAssertEqual(result.exitStatus, 0)
        let lines = calls(log)
        XCTAssertEqual(lines.count, 1, "\(lines)")
        let line = lines.first ?? ""
        XCTAssertTrue(line.hasPrefix("argc=1 [\(allowed)] "), line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "a shell ran the URL")
        // New session (sid = its own pid), stdio on /dev/null, our pipe not inherited.
        let fields = Dictionary(line.split(separator: " ").compactMap { part -> (String, String)? in
            let kv = part.split(separator: "=", maxSplits: 1)
            return kv.count == 2 ? (String(kv[0]), String(kv[1])) : nil
        }, uniquingKeysWith: { _, last in last })
        XCTAssertEqual(fields["sid"], fields["pid"], line)
        XCTAssertEqual(fields["in"], "/dev/null", line)
        XCTAssertEqual(fields["out"], "/dev/null", line)
        XCTAssertEqual(fields["err"], "/dev/null", line)
        XCTAssertEqual(fields["leak"], "no", line)
    }

    func testNoHandlerFallsBackToTheWebPage() throws {
        for status in [3, 4] {
            let log = try fakeXDGOpen(#"case "$1" in https:*) exit 0;; *) exit \#(status);; esac"#)
            let result = URLOpener.open("appstream:org.example.App", policy: policy,
                                        webFallback: "https://flathub.org/apps/org.example.App", timeoutMs: 3000,
                                        processes: POSIXProcesses())
            XCTAssertEqual(result.outcome, .opened, result.message)
            XCTAssertEqual(result.url, "https://flathub.org/apps/org.example.App")
            let lines = calls(log)
            XCTAssertEqual(lines.count, 2, "\(lines)")
            XCTAssertTrue(lines.first?.hasPrefix("argc=1 [appstream:org.example.App] ") == true, "\(lines)")
            XCTAssertTrue(lines.last?.hasPrefix("argc=1 [https://flathub.org/apps/org.example.App] ") == true, "\(lines)")
            XCTAssertTrue(result.message.contains("status \(status)"), result.message)
        }
    }

    func testFallbackOnlyWhenItHelps() throws {
        // Other failures, an https primary, a refused or missing fallback: no second call.
        let rows: [(body: String, url: String, web: String?, calls: Int, status: Int32?)] = [
            ("exit 2", "snap://firefox", "https://snapcraft.io/firefox", 1, 2),
            ("exit 4", "https://flathub.org/apps/x", "https://snapcraft.io/firefox", 1, 4),
            ("exit 3", "snap://firefox", nil, 1, 3),
            ("exit 3", "snap://firefox", "javascript:alert(1)", 1, 3),
            ("exit 3", "snap://firefox", "snap:other", 1, 3),
            ("exit 4", "appstream:org.example.App", "https://flathub.org/apps/org.example.App", 2, 4),  // both fail
        ]
        for row in rows {
            let log = try fakeXDGOpen(row.body)
            let result = URLOpener.open(row.url, policy: policy, webFallback: row.web, timeoutMs: 3000,
                                        processes: POSIXProcesses())
            XCTAssertEqual(result.outcome, .failed, row.body + " " + row.url)
            XCTAssertEqual(result.exitStatus, row.status, row.body + " " + row.url)
            XCTAssertEqual(calls(log).count, row.calls, row.body + " " + row.url)
        }
    }

    func testRefusedURLsSpawnNothing() throws {
        let log = try fakeXDGOpen("exit 0")
        for url in Self.hostileURLs + ["-https://flathub.org/", "--version"] {
            let result = URLOpener.open(url, policy: policy, webFallback: "https://flathub.org/apps/a.b", timeoutMs: 3000,
                                        processes: POSIXProcesses())
            XCTAssertEqual(result.outcome, .refused, url.debugDescription)
        }
        XCTAssertEqual(calls(log), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: log.path))
    }

    func testOpenNeverHangsAndReportsAMissingProgram() throws {
        // Still running at the deadline: reported as launched, on time.
        let log = try fakeXDGOpen("sleep 5")
        let start = Deadline.nowNanoseconds()
        let result = URLOpener.open("snap://firefox", policy: policy, webFallback: nil, timeoutMs: 300, processes: POSIXProcesses())
        let ms = Double(Deadline.nowNanoseconds() - start) / 1e6
        XCTAssertEqual(result.outcome, .launched, result.message)
        XCTAssertLessThanOrEqual(ms, 300 * 1.1 + 50)
        XCTAssertEqual(calls(log).count, 1)

        // No xdg-open anywhere on PATH.
        let empty = try makeTemporaryDirectory(self)
        let oldPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        setenv("PATH", empty.path, 1)
        defer { setenv("PATH", oldPath, 1) }
        let missing = URLOpener.open("snap://firefox", policy: policy, webFallback: nil, timeoutMs: 1000, processes: POSIXProcesses())
        XCTAssertEqual(missing.outcome, .failed)
        XCTAssertNil(missing.exitStatus)
        XCTAssertTrue(missing.message.contains("not found"), missing.message)
    }
}

/// A helper's door that must not be used: counts calls, answers a failure.
private final class CountingDoor: HelperDoor, @unchecked Sendable {
    private let lock = NSLock()
    private var calls = 0
    var count: Int { lock.withLock { calls } }
    var unavailable: GateFailure? { nil }

    func call(_ request: HelperRequest, until deadline: Deadline?, handingOn lock: FileLock?, passingStdio: Bool,
              onInterim: (HelperAnswer.Interim) -> Bool) -> Result<HelperReply, GateFailure> {
        self.lock.withLock { calls += 1 }
        return .success(HelperReply(.failed(GateFailure(.network, "no request may be made"))))
    }

    func ask(_ request: HelperRequest, until deadline: Deadline, handingOn lock: FileLock?)
        -> Result<HelperReply, GateFailure> {
        call(request, until: deadline, handingOn: lock, passingStdio: false) { _ in true }
    }

    func endWatch(_ descriptor: Int32) {}
    var hostID: Int32 { 1 }

    func watch(_ request: HelperRequest) -> Result<Int32, GateFailure> {
        self.lock.withLock { calls += 1 }
        return .failure(GateFailure(.network, "no watch may be started"))
    }

    func start(_ request: HelperRequest, handingOn lock: FileLock?) -> Result<Int32, GateFailure> {
        self.lock.withLock { calls += 1 }
        return .success(0)
    }
}
