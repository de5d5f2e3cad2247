import XCTest
@testable import VersionGate
@testable import VersionGateCore
@testable import VersionGateSystem

/// scripts/generate writes most lists into the code from declarations/; where
/// hand-written code spells one (a switch over associated values, closures per
/// key), it is held here to the lists DeclaredLists.generated.swift declares.
final class DeclaredListsTests: XCTestCase {
    func testResultFieldsWriteTheDeclaredKeysInOrder() {
        XCTAssertEqual(ResultFields.all.map(\.key), declaredResultKeys)
    }

    /// Every channel the code can put in a result's `channel` is declared,
    /// and every declared one is the code's: a question's (one of each
    /// case), the Flatpak remote's, or a "nothing newer" an update left
    /// (PackageKit's, snapd's). A question's channel is what its parts start with.
    func testTheChannelsAreTheDeclaredOnes() {
        let questions: [ChannelQuestion] = [.appStore(bundleID: "org.example.App", country: "us"),
                                            .snap(name: "example", architecture: "amd64"),
                                            .flathub(appID: "org.example.App"),
                                            .apt(package: "example", architecture: "amd64")]
        let nothingNewer = NothingNewerRecord.Channel.allCases.map { $0.answer(package: nil, served: "1").channel }
        let answered = Set(questions.map(\.channel) + [ChannelAnswer.flatpakRemote] + nothingNewer)
        XCTAssertEqual(Set(declaredChannels).count, declaredChannels.count, "a channel is declared twice")
        for channel in answered.subtracting(declaredChannels).sorted() {
            XCTFail("the code answers with channel \(channel), which declarations/channels.decl does not declare")
        }
        for channel in Set(declaredChannels).subtracting(answered).sorted() {
            XCTFail("declarations/channels.decl declares channel \(channel), which the code never answers with")
        }
        for question in questions {
            let parsed = ChannelQuestion(parts: [question.channel, "a", "b"]) ?? ChannelQuestion(parts: [question.channel, "a"])
            XCTAssertEqual(parsed?.channel, question.channel, "no question parses with channel \(question.channel)")
        }
    }

    func testTheDecidedEventCarriesResultFields() {
        XCTAssertFalse(ResultFields.decidedKeys.isEmpty)
        for key in ResultFields.decidedKeys {
            XCTAssertNotNil(ResultFields.byKey[key], key)
        }
    }
}
