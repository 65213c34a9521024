//! Source locations. Every op carries one; diagnostics point at them.

use crate::context::Sym;

/// A source location: `file:line:col` (1-based), a name, or unknown.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Loc {
    /// No location is known.
    #[default]
    Unknown,
    /// A position in a file.
    File {
        /// The file name as given on the command line (`-` is `<stdin>`).
        file: Sym,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        col: u32,
    },
}

impl Loc {
    /// Whether the location is known.
    pub fn is_known(&self) -> bool {
        !matches!(self, Loc::Unknown)
    }
}
