/// A channel's cached answer (docs/design.md, "Asking the channel"): what
/// it serves, when that was last confirmed, the validators the store sent,
/// and how long to leave it alone. The host reads it and decides; the
/// helper that asked writes the next one (`answered`, `failed`), keeping
/// the last known answer through a failure.
package struct ChannelEntry: Sendable, Equatable {
    package static let format = 1
    /// Far above a real entry, far below a hostile file; with the field
    /// limits below, every entry `encoded()` makes fits (Fuzz: channelentry).
    package static let maxBytes = 16 << 10
    /// A key is the host's (endpoint, app, architecture), a version a store's.
    package static let maxKeyBytes = 2048, maxServedBytes = 256, maxProblemCharacters = 300

    /// The question's cache key, and the machine's architecture: an entry
    /// for another question or machine is not this one's.
    package var key: String
    package var architecture: String
    /// The version text the channel serves; nil while none is known.
    package var served: String?
    /// When `served` was fetched or revalidated (Unix seconds).
    package var confirmedAt: Int64?
    /// The App Store lookup's trackId, from the same response.
    package var trackID: Int64?
    package var etag: String?
    package var lastModified: String?
    /// No request before `backoff.until`: Retry-After, or a failure's backoff.
    package var backoff: Backoff?
    /// The last attempt's failure, for the reason.
    package var problem: String?

    package init(key: String, architecture: String) {
        (self.key, self.architecture) = (key, architecture)
    }

    /// Its age at `now`; nil with no answer, or one from the future.
    package func age(at now: Int64) -> Int64? {
        guard served != nil, let confirmedAt, now >= confirmedAt else { return nil }
        return now - confirmedAt
    }

    /// Seconds left to leave the store alone; nil when a request may go.
    package func backoffSeconds(at now: Int64) -> Int64? { backoff?.remainingSeconds(at: now) }

    // MARK: What an exchange makes of it (the helper's side)

    /// After a response: a 200 with a version replaces the answer; a 304
    /// confirms it; anything else is a failure (Retry-After honoured on 429
    /// and 503, capped at 24 h).
    package func answered(status: Int, body: [UInt8], etag: String?, lastModified: String?, retryAfterSeconds: Int?,
                          question: ChannelQuestion, now: Int64, random: inout some RandomNumberGenerator) -> ChannelEntry {
        switch status {
        case 200:
            switch question.version(from: body) {
            case .failure(let refusal): return failed(refusal.reason, retryAfterSeconds: nil, now: now, random: &random)
            case .success(let version):
                guard version.utf8.count <= Self.maxServedBytes else {
                    return failed("it serves a version over \(Self.maxServedBytes) bytes", retryAfterSeconds: nil, now: now,
                                  random: &random)
                }
                var next = ChannelEntry(key: key, architecture: architecture)
                (next.served, next.confirmedAt, next.trackID) = (version, now, question.trackID(from: body) ?? trackID)
                (next.etag, next.lastModified) = (etag, lastModified)
                return next
            }
        case 304 where served != nil:
            var next = self
            (next.confirmedAt, next.backoff, next.problem) = (now, nil, nil)
            if let etag { next.etag = etag }
            if let lastModified { next.lastModified = lastModified }
            return next
        default:
            let why = status == 404 ? "HTTP 404 (not in the store)" : "HTTP \(status)"
            return failed(why, retryAfterSeconds: status == 429 || status == 503 ? retryAfterSeconds : nil,
                          now: now, random: &random)
        }
    }

    /// After a failure: the answer kept, the next request pushed back (with
    /// jitter, doubling, or as Retry-After says when longer).
    package func failed(_ reason: String, retryAfterSeconds: Int?, now: Int64,
                        random: inout some RandomNumberGenerator) -> ChannelEntry {
        var next = self
        next.backoff = Backoff.after(backoff, now: now, retryAfterSeconds: retryAfterSeconds, random: &random)
        next.problem = OneLine.text(reason, max: Self.maxProblemCharacters)
        return next
    }

    // MARK: The file

    package func encoded() -> [UInt8] {
        var fields: [String: JSONValue] = ["format": .number(Double(Self.format)), "key": .string(key),
                                           "architecture": .string(architecture)]
        if let served { fields["served"] = .string(served) }
        if let confirmedAt { fields["confirmed_at"] = .string(String(confirmedAt)) }
        if let trackID { fields["track_id"] = .string(String(trackID)) }
        if let etag { fields["etag"] = .string(etag) }
        if let lastModified { fields["last_modified"] = .string(lastModified) }
        if let backoff {
            fields["retry_at"] = .string(String(backoff.until))
            fields["failures"] = .string(String(backoff.failures))
        }
        if let problem { fields["problem"] = .string(problem) }
        return JSONValue.object(fields).encoded()
    }

    /// The entry in `bytes` for `key` on `architecture`; nil when the bytes
    /// are not one whole entry of this format, question and machine.
    package static func decode(_ bytes: [UInt8], key: String, architecture: String) -> ChannelEntry? {
        guard bytes.count <= maxBytes, let value = try? JSONValue.decode(bytes),
              case .number(Double(format))? = value["format"], case .string(key)? = value["key"],
              case .string(architecture)? = value["architecture"] else { return nil }
        var entry = ChannelEntry(key: key, architecture: architecture)
        func text(_ name: String) -> String?? {
            switch value[name] {
            case nil: .some(nil)
            case .string(let text)?: .some(text)
            default: .none
            }
        }
        func number(_ name: String) -> Int64?? {
            switch text(name) {
            case .some(nil): .some(nil)
            case .some(let text?): Int64(decimal: text).map { .some($0) } ?? .none
            case .none: .none
            }
        }
        guard let served = text("served"), let confirmedAt = number("confirmed_at"), let trackID = number("track_id"),
              let etag = text("etag"), let lastModified = text("last_modified"), let retryAt = number("retry_at"),
              let failures = number("failures"), let problem = text("problem"),
              (served == nil) == (confirmedAt == nil), (retryAt == nil) == (failures == nil) else { return nil }
        if let trackID, !(1...ChannelDocuments.maxTrackID).contains(trackID) { return nil }
        guard key.utf8.count <= maxKeyBytes, !key.unicodeScalars.contains(where: { ControlScalar($0) != nil }),
              (served?.utf8.count ?? 0) <= maxServedBytes,
              problem.map({ $0 == OneLine.text($0, max: maxProblemCharacters) }) ?? true,
              [etag, lastModified].allSatisfy({ $0.map { CachingHeaders.etag($0) == $0 } ?? true }) else { return nil }
        if let failures, !(1...32).contains(failures) { return nil }
        (entry.served, entry.confirmedAt, entry.trackID) = (served, confirmedAt, trackID)
        (entry.etag, entry.lastModified, entry.problem) = (etag, lastModified, problem)
        if let retryAt, let failures { entry.backoff = Backoff(until: retryAt, failures: Int(failures)) }
        return entry
    }
}
