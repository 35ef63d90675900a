/// Where something is written in a flow file: the file's path as it was given, a line and a column, both from 1
/// (columns count Unicode scalars, as the YAML parser does).
///
/// `Sendable`: a value.
public struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The file's path, as given to the loader.
    public var file: String
    /// The line, from 1.
    public var line: Int
    /// The column, from 1.
    public var column: Int

    /// `file:line:column`, as compilers write it.
    public var description: String { "\(file):\(line):\(column)" }

    /// `line:column`, for a message that points at another place of the same file.
    public var lineAndColumn: String { "\(line):\(column)" }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }

    /// The same place, `columns` further right.
    func advanced(by columns: Int) -> SourceLocation {
        SourceLocation(file: file, line: line, column: column + columns)
    }
}

/// A name written in a flow file (a step's, a flow's, a screen's), with where it is written.
///
/// `Sendable`: a value.
package struct Name: Hashable, Sendable, CustomStringConvertible {
    package var value: String
    package var location: SourceLocation

    package var description: String { value }
}
