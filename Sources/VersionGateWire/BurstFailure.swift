import VersionGateCore

/// The failure of the last fetch of a source, kept in the state directory
/// for the checks of the same login burst that waited for it: they tell it
/// instead of sending a second request. The helper writes it, the host
/// reads it (RemoteSource.fetch); removed by the next fetch that succeeds.
package struct BurstFailure {
    package let kind: GateFailure.Kind
    package let message: String
    /// The failed check's wall clock, Unix seconds.
    package let at: Int64

    package init(_ failure: GateFailure, at: Int64) {
        (kind, message, self.at) = (failure.kind, failure.message, at)
    }

    package func encoded() -> [UInt8] {
        JSONValue.object(["kind": .string(kind.rawValue), "message": .string(message), "at": .string(String(at))]).encoded()
    }

    /// nil unless well-formed and no older than `since`.
    package static func decode(_ bytes: [UInt8], since: Int64) -> BurstFailure? {
        guard let value = try? JSONValue.decode(bytes), case .string(let name)? = value["kind"],
              let kind = GateFailure.Kind(rawValue: name),
              case .string(let message)? = value["message"], case .string(let text)? = value["at"],
              let at = Int64(decimal: text), at >= since else { return nil }
        return BurstFailure(GateFailure(kind, message), at: at)
    }
}
