import VersionGateCore
import VersionGateWire
import VersionGatePlatform
/// The Firebase Installations (FIS) REST calls, as firebase-js-sdk makes
/// them (Tests/Fixtures/PROTOCOLS.md §1.4): register the FID once, renew the auth token
/// when less than an hour is left. Never fatal to the fetch: whatever fails,
/// Remote Config is still asked, with the FID and without a token.
package struct FirebaseInstallations: Sendable {
    package let projectID: String
    package let apiKey: String
    package let appID: String
    package let endpoint: String

    /// What the fetch sends, and why it has no token when it has none.
    package struct Resolved: Sendable {
        package let fid: String
        package let token: String?
        package let note: String?
    }

    /// firebase-js-sdk TOKEN_EXPIRATION_BUFFER.
    package static let renewalMarginSeconds: Int64 = 3600
    /// A token said to live longer than this is renewed after it anyway.
    package static let maxTokenLifetimeSeconds: Int64 = 30 * 86_400

    package func resolve(_ context: FetchContext) -> Resolved {
        guard let store = context.state else {
            // Without persistence a registration per run would create an
            // installation per run; the C++ desktop SDK's way instead.
            return Resolved(fid: FirebaseInstallation.newFID(), token: nil,
                            note: "no state directory: fetched with a one-time installation id and no auth token, "
                                + "so percent conditions do not match")
        }
        let file = FirebaseInstallation.fileName(projectID: projectID, appID: appID)
        let save = { (installation: FirebaseInstallation) in _ = store.write(file, installation.encoded(), durable: true) }
        var installation: FirebaseInstallation
        if let stored = store.read(file, maxBytes: FirebaseInstallation.maxFileBytes).flatMap(FirebaseInstallation.decode) {
            installation = stored
        } else {
            // Saved before any request, so the FID is stable even if registration fails.
            installation = FirebaseInstallation(fid: FirebaseInstallation.newFID())
            save(installation)
        }
        // At most half of what is left, so a slow FIS leaves time for the fetch.
        let budget = Deadline(afterMilliseconds: context.deadline.remainingMilliseconds / 2)
        do {
            try ensureToken(&installation, context, budget, save: save)
            return Resolved(fid: installation.fid, token: installation.authToken, note: nil)
        } catch {
            if let token = installation.authToken, let expiry = installation.authTokenExpiry, expiry > context.now {
                return Resolved(fid: installation.fid, token: token,
                                note: "Firebase Installations failed: \(error.message); fetched with the previous auth token")
            }
            return Resolved(fid: installation.fid, token: nil,
                            note: "Firebase Installations failed: \(error.message); fetched without an auth token, "
                                + "so percent conditions do not match")
        }
    }

    /// Leaves `installation` registered with a token that is good for more
    /// than the margin, saving each step; on a throw it holds what was reached.
    private func ensureToken(_ installation: inout FirebaseInstallation, _ context: FetchContext, _ budget: Deadline,
                             save: (FirebaseInstallation) -> Void) throws(InstallationsError) {
        guard let refreshToken = installation.refreshToken else {
            installation = try register(installation.fid, context, budget)
            save(installation)
            return
        }
        if installation.authToken != nil, let expiry = installation.authTokenExpiry {
            let (left, overflow) = expiry.subtractingReportingOverflow(context.now)
            if !overflow, left > Self.renewalMarginSeconds, left <= Self.maxTokenLifetimeSeconds { return }
        }
        do throws(InstallationsError) {
            let (token, expiry) = try generateToken(installation.fid, refreshToken, context, budget)
            installation.authToken = token
            installation.authTokenExpiry = expiry
            save(installation)
        } catch {
            // 401/404: the server deleted the installation. Start over with a
            // new FID, as firebase-js-sdk does; once.
            guard error.status == 401 || error.status == 404 else { throw error }
            installation = FirebaseInstallation(fid: FirebaseInstallation.newFID())
            save(installation)
            installation = try register(installation.fid, context, budget)
            save(installation)
        }
    }

    private func register(_ fid: String, _ context: FetchContext, _ budget: Deadline)
        throws(InstallationsError) -> FirebaseInstallation {
        let url = ASCII.withoutTrailingSlashes(endpoint) + "/v1/projects/\(PercentEncoding.encoded(projectID))/installations"
        let body = JSONValue.object(["fid": .string(fid), "authVersion": .string("FIS_v2"), "appId": .string(appID),
                                     "sdkVersion": .string(FirebaseFetcher.sdkVersion)])
        let reply = try post("registration", url, body, [], context, budget)
        // The server may assign another FID (firebase-js-sdk: responseValue.fid || fid).
        var assigned = fid
        switch reply["fid"] {
        case nil, .null?, .string("")?: break
        case .string(let serverFID)? where FirebaseInstallation.isValidFID(serverFID): assigned = serverFID
        default: throw InstallationsError("registration: the reply has an invalid fid")
        }
        guard case .string(let refreshToken)? = reply["refreshToken"], FirebaseInstallation.isHeaderToken(refreshToken) else {
            throw InstallationsError("registration: the reply has no valid refreshToken")
        }
        let (token, expiry) = try authToken(reply["authToken"], "registration", now: context.now)
        return FirebaseInstallation(fid: assigned, refreshToken: refreshToken, authToken: token, authTokenExpiry: expiry)
    }

    private func generateToken(_ fid: String, _ refreshToken: String, _ context: FetchContext, _ budget: Deadline)
        throws(InstallationsError) -> (token: String, expiry: Int64) {
        let url = ASCII.withoutTrailingSlashes(endpoint) + "/v1/projects/\(PercentEncoding.encoded(projectID))"
            + "/installations/\(fid)/authTokens:generate"
        let body = JSONValue.object(["installation": .object(["sdkVersion": .string(FirebaseFetcher.sdkVersion),
                                                              "appId": .string(appID)])])
        let reply = try post("token renewal", url, body, [(name: "Authorization", value: "FIS_v2 \(refreshToken)")],
                             context, budget)
        return try authToken(reply, "token renewal", now: context.now)
    }

    /// {"token", "expiresIn": "604800s"} → the token and its expiry. An
    /// unreadable lifetime makes the token good for this fetch only.
    private func authToken(_ value: JSONValue?, _ step: String, now: Int64) throws(InstallationsError)
        -> (token: String, expiry: Int64) {
        guard case .string(let token)? = value?["token"], FirebaseInstallation.isHeaderToken(token) else {
            throw InstallationsError("\(step): the reply has no valid auth token")
        }
        var lifetime: Int64 = 0
        if case .string(let text)? = value?["expiresIn"], text.hasSuffix("s") {
            // Duration JSON: "<seconds>[.<fraction>]s"; the fraction is dropped.
            let whole = text.dropLast().prefix { $0 != "." }
            lifetime = min(Int64(decimal: String(whole)) ?? 0, Self.maxTokenLifetimeSeconds)
        }
        let (expiry, overflow) = now.addingReportingOverflow(lifetime)
        return (token, overflow ? now : expiry)
    }

    /// One FIS call: JSON in, a JSON object out; a 5xx is retried once, as
    /// the SDKs do. Bounded by the fetch's limits and the FIS budget.
    private func post(_ step: String, _ url: String, _ body: JSONValue, _ extraHeaders: [(name: String, value: String)],
                      _ context: FetchContext, _ budget: Deadline) throws(InstallationsError) -> JSONValue {
        let request = HTTPRequest(url: url, body: body.encoded(),
                                  headers: [(name: "Content-Type", value: "application/json"),
                                            (name: "Accept", value: "application/json"),
                                            (name: "x-goog-api-key", value: apiKey)] + extraHeaders,
                                  credentialsStayWithOrigin: true)
        var attempts = 0
        while true {
            attempts += 1
            var limits = context.requestLimits
            limits.timeoutMs = min(limits.timeoutMs, budget.remainingMilliseconds)
            let response: HTTPResponse
            do {
                response = try context.transport.send(request, limits: limits)
            } catch {
                throw InstallationsError("\(step): \(error.message)")
            }
            if (500...599).contains(response.status), attempts == 1, budget.remainingMilliseconds > 0 { continue }
            guard (200...299).contains(response.status) else {
                throw InstallationsError("\(step): HTTP \(response.status)\(GoogleErrorBody.detail(response.body))",
                                         status: response.status)
            }
            guard let reply = try? JSONValue.decode(response.body), case .object = reply else {
                throw InstallationsError("\(step): the reply is not a JSON object")
            }
            return reply
        }
    }
}

package struct InstallationsError: Error {
    package let message: String
    /// The HTTP status when the service answered with an error.
    package let status: Int?

    package init(_ message: String, status: Int? = nil) {
        self.message = message
        self.status = status
    }
}
