//! Source buffers and LLVM-style diagnostic rendering
//! (`file:line:col: error: message`, the source line, and a caret).

use std::fmt::Write;

/// A named buffer that diagnostics can point into.
#[derive(Debug, Clone)]
pub struct Source {
    /// The name printed in diagnostics (a path, `<stdin>`, or `command line`).
    pub name: String,
    /// The (canonicalised) contents of the buffer.
    pub text: Vec<u8>,
}

/// Which buffer a location refers to.
pub type SourceId = usize;

/// A location: a buffer and a byte offset into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loc {
    /// The buffer.
    pub src: SourceId,
    /// Byte offset into the buffer.
    pub off: usize,
}

/// The severity of one diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An error.
    Error,
    /// A note attached to a previous error.
    Note,
}

/// A set of buffers plus the diagnostic text accumulated so far.
#[derive(Debug, Default)]
pub struct Diags {
    /// All buffers, indexed by [`SourceId`].
    pub sources: Vec<Source>,
    /// The rendered diagnostics.
    pub out: String,
}

impl Diags {
    /// Adds a buffer and returns its id.
    pub fn add(&mut self, name: &str, text: Vec<u8>) -> SourceId {
        self.sources.push(Source { name: name.to_string(), text });
        self.sources.len() - 1
    }

    /// Returns the 1-based line number of `loc`.
    pub fn line_of(&self, loc: Loc) -> usize {
        let text = &self.sources[loc.src].text;
        let off = loc.off.min(text.len());
        text[..off].iter().filter(|&&b| b == b'\n').count() + 1
    }

    /// Renders one diagnostic at `loc`.
    pub fn emit(&mut self, loc: Loc, kind: Kind, msg: &str) {
        let src = &self.sources[loc.src];
        let text = &src.text;
        let off = loc.off.min(text.len());
        let start = text[..off].iter().rposition(|&b| b == b'\n' || b == b'\r').map_or(0, |p| p + 1);
        let end = text[off..].iter().position(|&b| b == b'\n' || b == b'\r').map_or(text.len(), |p| off + p);
        let line = text[..off].iter().filter(|&&b| b == b'\n').count() + 1;
        let col = off - start + 1;
        let kind = match kind {
            Kind::Error => "error",
            Kind::Note => "note",
        };
        let _ = writeln!(self.out, "{}:{}:{}: {}: {}", src.name, line, col, kind, msg);
        let line_text = String::from_utf8_lossy(&text[start..end]);
        let _ = writeln!(self.out, "{}", line_text);
        let caret: String = text[start..off].iter().map(|&b| if b == b'\t' { '\t' } else { ' ' }).collect();
        let _ = writeln!(self.out, "{}^", caret);
    }

    /// Appends a diagnostic without a location.
    pub fn plain(&mut self, msg: &str) {
        self.out.push_str(msg);
        if !msg.ends_with('\n') {
            self.out.push('\n');
        }
    }
}
