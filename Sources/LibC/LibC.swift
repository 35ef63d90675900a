// The platform's C library, chosen in one place: the files that call POSIX (stat, mkdir, flock, getrlimit, …) import
// this module instead of repeating the choice. Re-exported, so that its importers see the C library's names.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif
