import VersionGateC

/// Why an exchange produced no response. The message names the URL.
struct TransportError: Error, Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case timeout, tooLarge, tls, resolve, connect, protocolError, network
        case refusedURL, refusedRedirect, tooManyRedirects, forked, unavailable, internalError
    }
    let kind: Kind
    let message: String

    /// The vg_error a result reports for it.
    var code: Int32 {
        switch kind {
        case .timeout: return VG_ETIMEOUT.rawValue
        case .tooLarge: return VG_ETOOLARGE.rawValue
        case .tls: return VG_ETLS.rawValue
        case .resolve, .connect, .protocolError, .network, .unavailable: return VG_ENETWORK.rawValue
        case .refusedURL, .refusedRedirect, .tooManyRedirects: return VG_EPOLICY.rawValue
        case .forked: return VG_EFORK.rawValue
        case .internalError: return VG_EINTERNAL.rawValue
        }
    }

    var failure: GateFailure { GateFailure(code: code, message: message) }
}
