//! Diagnostics in the MLIR/clang layout:
//!
//! ```text
//! test/Dialect/Tensor/invalid.mlir:7:8: error: 'mtensor.add' op operand types must match
//!   %s = mtensor.add %a, %b : tensor<4xf32>
//!        ^
//! test/Dialect/Tensor/invalid.mlir:3:20: note: operand #1 defined here
//! ```
//!
//! A [`Diagnostic`] has a severity, a primary [`Loc`], a message and notes. The renderer is
//! hand-written because the exact text is part of the test contract: columns are 1-based,
//! and the caret line keeps the tabs before the column so that it lines up in any editor.

use std::fmt::Write as _;

use crate::context::{Context, Sym};
use crate::location::Loc;

/// How serious a diagnostic is.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Severity {
    /// The input is wrong; the tool exits with code 1.
    Error,
    /// Suspicious but accepted.
    Warning,
    /// Extra information attached to another diagnostic.
    Note,
    /// An informational message (for instance from an optimization pass).
    Remark,
}

impl Severity {
    /// The word printed for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        }
    }
}

/// A note attached to a diagnostic.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// Where it points.
    pub loc: Loc,
    /// Its text.
    pub message: String,
}

/// A diagnostic: severity, primary location, message and notes.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Severity.
    pub severity: Severity,
    /// The primary location.
    pub loc: Loc,
    /// The message: lowercase, no final period, code quoted with single quotes.
    pub message: String,
    /// Attached notes.
    pub notes: Vec<Note>,
}

impl Diagnostic {
    /// An error at `loc`.
    pub fn error(loc: Loc, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Error, loc, message: message.into(), notes: Vec::new() }
    }
    /// A warning at `loc`.
    pub fn warning(loc: Loc, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, loc, message: message.into(), notes: Vec::new() }
    }
    /// A remark at `loc`.
    pub fn remark(loc: Loc, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Remark, loc, message: message.into(), notes: Vec::new() }
    }
    /// Adds a note.
    pub fn with_note(mut self, loc: Loc, message: impl Into<String>) -> Self {
        self.notes.push(Note { loc, message: message.into() });
        self
    }
}

/// A source file known to the diagnostics renderer.
#[derive(Clone, Debug)]
struct SourceFile {
    name: Sym,
    text: String,
    line_starts: Vec<usize>,
}

/// The source files that diagnostics may point into, and the diagnostics emitted so far
/// that were not returned as errors (warnings, remarks, errors collected in verify mode).
#[derive(Default, Debug)]
pub struct DiagEngine {
    files: Vec<SourceFile>,
    /// Diagnostics emitted through [`Context::emit`].
    pub emitted: Vec<Diagnostic>,
}

impl Context {
    /// Registers the text of a source file, so that diagnostics can show its lines.
    pub fn add_source(&mut self, name: &str, text: &str) -> Sym {
        let s = self.sym(name);
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        self.diag.files.retain(|f| f.name != s);
        self.diag.files.push(SourceFile { name: s, text: text.to_string(), line_starts });
        s
    }

    /// Records a diagnostic that does not stop processing (a warning or a remark, or any
    /// diagnostic in verify mode).
    pub fn emit(&mut self, d: Diagnostic) {
        self.diag.emitted.push(d);
    }

    /// Takes the diagnostics recorded so far.
    pub fn take_emitted(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.diag.emitted)
    }

    /// `file:line:col` of a location, or `<unknown>`.
    pub fn loc_prefix(&self, loc: Loc) -> String {
        match loc {
            Loc::File { file, line, col } => format!("{}:{}:{}", self.str(file), line, col),
            Loc::Unknown => "<unknown>".to_string(),
        }
    }

    /// Renders one diagnostic with source lines and carets.
    pub fn render(&self, d: &Diagnostic) -> String {
        let mut out = String::new();
        self.render_one(&mut out, d.loc, d.severity, &d.message);
        for n in &d.notes {
            self.render_one(&mut out, n.loc, Severity::Note, &n.message);
        }
        out
    }

    fn render_one(&self, out: &mut String, loc: Loc, sev: Severity, msg: &str) {
        let _ = writeln!(out, "{}: {}: {}", self.loc_prefix(loc), sev.as_str(), msg);
        if let Loc::File { file, line, col } = loc {
            if let Some(f) = self.diag.files.iter().find(|f| f.name == file) {
                let l = line as usize;
                if l >= 1 && l <= f.line_starts.len() {
                    let start = f.line_starts[l - 1];
                    let end = f.text[start..].find('\n').map(|e| start + e).unwrap_or(f.text.len());
                    let text = f.text[start..end].trim_end_matches('\r');
                    // Keep the output printable whatever the input held.
                    let shown: String =
                        text.chars().map(|c| if c.is_control() && c != '\t' { '?' } else { c }).collect();
                    let _ = writeln!(out, "{shown}");
                    let mut caret = String::new();
                    for (i, c) in shown.chars().enumerate() {
                        if i + 1 >= col as usize {
                            break;
                        }
                        caret.push(if c == '\t' { '\t' } else { ' ' });
                    }
                    caret.push('^');
                    let _ = writeln!(out, "{caret}");
                }
            }
        }
    }
}
