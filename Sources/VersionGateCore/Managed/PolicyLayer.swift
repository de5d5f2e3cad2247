/// One policy file's keys (docs/design.md, "The administrator's policy"),
/// parsed from its bytes: all of it, or nothing with the reason. A key of
/// the wrong type refuses the whole file (the administrator meant
/// something; half of it would be a policy nobody wrote). An unknown key is
/// kept aside for `versiongate policy --check` (a newer policy on an older
/// library); a `managed_url` that is not https is dropped with a warning.
package struct PolicyLayer: Sendable, Equatable {
    package static let maxBytes = 64 << 10
    /// `managed_message` is cut here: a dialog's text, not a document.
    package static let maxMessageCharacters = 500

    package let file: String
    package var everyApp = AdministratorPolicy.Keys()
    package var apps: [String: AdministratorPolicy.Keys] = [:]
    /// Keys this library does not know, as `apps.ID.key` inside a section.
    package var unknownKeys: [String] = []
    /// Keys dropped, each with why (the rest of the file counts).
    package var dropped: [String] = []

    /// Why a file is ignored as a whole.
    package struct Refusal: Error, Sendable, Equatable {
        package let reason: String
        package init(_ reason: String) { self.reason = reason }
    }

    /// The layer `bytes` (the file at `file`) holds, or why it holds none.
    package static func parse(_ bytes: [UInt8], file: String) -> Result<PolicyLayer, Refusal> {
        guard bytes.count <= maxBytes else { return .failure(Refusal("larger than \(maxBytes) bytes")) }
        let value: JSONValue
        do { value = try JSONValue.decode(bytes) } catch { return .failure(notJSON(error)) }
        guard case .object(let members) = value else { return .failure(Refusal("not a JSON object")) }
        var layer = PolicyLayer(file: file)
        do throws(Refusal) {
            layer.everyApp = try layer.section(members, prefix: "", apps: true)
        } catch {
            return .failure(error)
        }
        return .success(layer)
    }

    private init(file: String) { self.file = file }

    /// Why the bytes do not parse, with where for a syntax error: "not valid
    /// JSON: expected ',' or '}', found '"' at line 3, column 5" (line and
    /// column 1-based, the column in bytes, as JSONReader counts them).
    private static func notJSON(_ error: GateDocumentError) -> Refusal {
        switch error {
        case .invalidJSON(let detail): Refusal("not valid JSON: \(detail)")
        case .notUTF8: Refusal("not valid JSON: not UTF-8 text")
        case .tooDeep(let limit): Refusal("not valid JSON: nested deeper than \(limit) levels")
        case .tooLarge, .notAnObject: Refusal("not valid JSON")
        }
    }

    private mutating func section(_ members: [String: JSONValue], prefix: String, apps allowed: Bool)
        throws(Refusal) -> AdministratorPolicy.Keys {
        var keys = AdministratorPolicy.Keys()
        for name in members.keys.sorted() {
            guard let value = members[name] else { continue }
            switch name {
            case "mandatory":
                guard case .string(let text) = value, let mode = AdministratorPolicy.Mandatory(rawValue: text) else {
                    throw Refusal("\"\(prefix)mandatory\" must be \"enforce\" or \"warn\"")
                }
                keys.mandatory = .init(value: mode, file: file)
            case "in_place_updates": keys.inPlaceUpdates = .init(value: try Self.boolean(value, prefix + name), file: file)
            case "optional_prompts": keys.optionalPrompts = .init(value: try Self.boolean(value, prefix + name), file: file)
            case "network": keys.network = .init(value: try Self.boolean(value, prefix + name), file: file)
            case "managed_message":
                let text = try Self.string(value, prefix + name)
                keys.managedMessage = .init(value: String(text.prefix(Self.maxMessageCharacters)), file: file)
            case "managed_url":
                let url = try Self.string(value, prefix + name)
                if StoreURLPolicy.anyHostHTTPSRefusal(url) == nil {
                    keys.managedURL = .init(value: url, file: file)
                } else {
                    dropped.append("\"\(prefix)managed_url\" must be an https URL; ignored")
                }
            case "source":
                let text = try Self.string(value, prefix + name)
                guard (try? SourceSpec.parse(text)) != nil else { throw Refusal("\"\(prefix)source\" is not a source") }
                keys.source = .init(value: text, file: file)
            case "apps" where allowed:
                guard case .object(let sections) = value else { throw Refusal("\"apps\" must be an object of objects") }
                for app in sections.keys.sorted() {
                    guard case .object(let section)? = sections[app] else {
                        throw Refusal("\"apps\" must be an object of objects")
                    }
                    // An app id is one line of text: it is printed as apps.ID.KEY.
                    guard !app.isEmpty, !app.unicodeScalars.contains(where: { ControlScalar($0) != nil }) else {
                        throw Refusal("\"apps\" names an empty app id or one with control characters")
                    }
                    apps[app] = try self.section(section, prefix: "apps.\(app).", apps: false)
                }
            default:
                unknownKeys.append(prefix + name)
            }
        }
        return keys
    }

    private static func boolean(_ value: JSONValue, _ name: String) throws(Refusal) -> Bool {
        guard case .bool(let flag) = value else { throw Refusal("\"\(name)\" must be a boolean") }
        return flag
    }

    private static func string(_ value: JSONValue, _ name: String) throws(Refusal) -> String {
        guard case .string(let text) = value else { throw Refusal("\"\(name)\" must be a string") }
        return text
    }
}
