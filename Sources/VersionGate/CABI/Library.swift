import VersionGateC

@_cdecl("vg_library_version")
public func vg_library_version() -> UnsafePointer<CChar> {
    return cString("0.1.0")
}

/// A static string's bytes as a C string: no allocation, never freed.
func cString(_ s: StaticString) -> UnsafePointer<CChar> {
    return UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}
