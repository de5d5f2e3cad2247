import VersionGateCore
import Glibc

/// errno, read without the Glibc overlay's `errno` getter: that getter links
/// in the overlay's whole object and, through it, ~100 libm functions the
/// loader must bind at every start (BENCHMARKS.md, cold process).
package var systemErrno: Int32 { __errno_location().pointee }
