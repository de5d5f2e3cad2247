/// Why an exchange produced no response. The message names the URL.
package struct TransportError: Error, Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case timeout, tooLarge, tls, resolve, connect, protocolError, network
        case refusedURL, refusedRedirect, tooManyRedirects, unavailable, internalError
    }
    package let kind: Kind
    package let message: String

    package init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// A failure carried across the helper's pipe, as a transport error
    /// again: whose `failure` is the same failure.
    package init(_ failure: GateFailure) {
        let kinds: [GateFailure.Kind: Kind] = [.timeout: .timeout, .tooLarge: .tooLarge, .tls: .tls, .network: .network,
                                               .policy: .refusedURL]
        self.init(kind: kinds[failure.kind] ?? .internalError, message: failure.message)
    }

    /// The failure a result reports for it.
    package var failure: GateFailure {
        switch kind {
        case .timeout: GateFailure(.timeout, message)
        case .tooLarge: GateFailure(.tooLarge, message)
        case .tls: GateFailure(.tls, message)
        case .resolve, .connect, .protocolError, .network, .unavailable: GateFailure(.network, message)
        case .refusedURL, .refusedRedirect, .tooManyRedirects: GateFailure(.policy, message)
        case .internalError: GateFailure(.internalError, message)
        }
    }
}
