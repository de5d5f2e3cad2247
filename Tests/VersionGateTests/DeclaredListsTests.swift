import XCTest
@testable import VersionGate
@testable import VersionGateCore

/// scripts/generate writes most lists into the code from declarations/; where
/// hand-written code spells one (a switch over associated values, closures per
/// key), it is held here to the lists DeclaredLists.generated.swift declares.
final class DeclaredListsTests: XCTestCase {
    func testResultFieldsWriteTheDeclaredKeysInOrder() {
        XCTAssertEqual(ResultFields.all.map(\.key), declaredResultKeys)
    }

    /// Every declared channel but the Flatpak remote is a question's, and
    /// every question (one of each case) names a declared channel.
    func testTheChannelsAreTheDeclaredOnes() {
        let questions: [ChannelQuestion] = [.appStore(bundleID: "org.example.App", country: "us"),
                                            .snap(name: "example", architecture: "amd64"),
                                            .flathub(appID: "org.example.App"),
                                            .apt(package: "example", architecture: "amd64")]
        XCTAssertEqual(questions.map(\.channel) + [ChannelAnswer.flatpakRemote], declaredChannels)
        for channel in declaredChannels where channel != ChannelAnswer.flatpakRemote {
            let parsed = ChannelQuestion(parts: [channel, "a", "b"]) ?? ChannelQuestion(parts: [channel, "a"])
            XCTAssertEqual(parsed?.channel, channel, "no question asks the declared channel \(channel)")
        }
    }

    func testTheDecidedEventCarriesResultFields() {
        XCTAssertFalse(ResultFields.decidedKeys.isEmpty)
        for key in ResultFields.decidedKeys {
            XCTAssertNotNil(ResultFields.byKey[key], key)
        }
    }
}
