//! `--verify-diagnostics`: checking the diagnostics a run produced against `expected-*`
//! annotations in the input, as mlir-opt does.
//!
//! ```text
//! %0 = mtensor.add %a, %b : tensor<4xf32>  // expected-error {{operand types must match}}
//! // expected-error@+1 {{must be the last operation}}
//! // expected-note@-3 {{operand defined here}}
//! // expected-warning@above {{...}}     the closest line above without an annotation
//! // expected-remark@below {{...}}      the closest line below without an annotation
//! // expected-error@unknown {{...}}     a diagnostic without a location
//! ```
//!
//! A diagnostic matches an annotation with the same severity and line whose text is a
//! substring of its message. Errors, warnings and remarks that match no annotation are
//! reported as `unexpected error: ...`; annotations that no diagnostic matched are reported
//! as `expected error "..." was not produced`. Notes attached to a diagnostic are matched
//! against `expected-note` annotations when one fits; an unannotated note is not an error.

use crate::context::Context;
use crate::diag::{Diagnostic, Severity};
use crate::location::Loc;

/// Which line an annotation is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpectedLine {
    /// A 1-based line of the file.
    Line(u32),
    /// A diagnostic without a location (`@unknown`).
    Unknown,
}

/// One `expected-*` annotation.
#[derive(Clone, Debug, PartialEq)]
pub struct Expected {
    /// The severity it expects.
    pub severity: Severity,
    /// The line it expects the diagnostic on.
    pub line: ExpectedLine,
    /// The text the message must contain.
    pub message: String,
    /// Where the annotation is written (for "was not produced").
    pub loc: Loc,
    /// Whether a diagnostic matched it.
    pub matched: bool,
}

/// Reads the annotations of one chunk of `file`. `line_offset` is the number of lines
/// before the chunk in the file. Text that does not form an annotation is ignored.
pub fn parse_expectations(ctx: &mut Context, file: &str, text: &str, line_offset: u32) -> Vec<Expected> {
    let file = ctx.sym(file);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out: Vec<Expected> = Vec::new();
    let mut last_plain_line: Option<u32> = None;
    let mut pending_below: Vec<usize> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let line = line_offset + i as u32 + 1;
        let found = parse_line(l);
        if found.is_empty() {
            for idx in pending_below.drain(..) {
                out[idx].line = ExpectedLine::Line(line);
            }
            last_plain_line = Some(line);
            continue;
        }
        for (col, severity, designator, message) in found {
            let loc = Loc::File { file, line, col };
            let target = match designator {
                Designator::Here => Some(ExpectedLine::Line(line)),
                Designator::Offset(d) => {
                    let t = line as i64 + d;
                    Some(ExpectedLine::Line(if t < 1 { 0 } else { t as u32 }))
                }
                Designator::Above => Some(ExpectedLine::Line(last_plain_line.unwrap_or(0))),
                Designator::Below => None,
                Designator::Unknown => Some(ExpectedLine::Unknown),
            };
            if target.is_none() {
                pending_below.push(out.len());
            }
            out.push(Expected {
                severity,
                line: target.unwrap_or(ExpectedLine::Line(0)),
                message,
                loc,
                matched: false,
            });
        }
    }
    out
}

enum Designator {
    Here,
    Offset(i64),
    Above,
    Below,
    Unknown,
}

/// The annotations on one line: (1-based column, severity, designator, message).
fn parse_line(l: &str) -> Vec<(u32, Severity, Designator, String)> {
    let mut out = Vec::new();
    let mut search = 0;
    while let Some(rel) = l[search..].find("expected-") {
        let start = search + rel;
        search = start + "expected-".len();
        let mut rest = &l[search..];
        let sev = [
            ("error", Severity::Error),
            ("warning", Severity::Warning),
            ("remark", Severity::Remark),
            ("note", Severity::Note),
        ]
        .into_iter()
        .find(|(w, _)| rest.starts_with(w));
        let Some((word, severity)) = sev else { continue };
        rest = &rest[word.len()..];
        let mut designator = Designator::Here;
        if let Some(r) = rest.strip_prefix('@') {
            if let Some(r2) = r.strip_prefix("above") {
                designator = Designator::Above;
                rest = r2;
            } else if let Some(r2) = r.strip_prefix("below") {
                designator = Designator::Below;
                rest = r2;
            } else if let Some(r2) = r.strip_prefix("unknown") {
                designator = Designator::Unknown;
                rest = r2;
            } else if r.starts_with(['+', '-']) {
                let digits = r[1..].bytes().take_while(|b| b.is_ascii_digit()).count();
                let Ok(n) = r[1..1 + digits].parse::<i64>() else { continue };
                designator = Designator::Offset(if r.starts_with('-') { -n } else { n });
                rest = &r[1 + digits..];
            } else {
                continue;
            }
        }
        let rest = rest.trim_start();
        let Some(body) = rest.strip_prefix("{{") else { continue };
        let Some(end) = body.rfind("}}") else { continue };
        let col = l[..start].chars().count() as u32 + 1;
        out.push((col, severity, designator, body[..end].to_string()));
        search = l.len() - body.len() + end + 2;
        if search >= l.len() {
            break;
        }
    }
    out
}

fn line_of(ctx: &Context, file: &str, loc: Loc) -> ExpectedLine {
    match loc {
        Loc::File { file: f, line, .. } if ctx.str(f) == file => ExpectedLine::Line(line),
        _ => ExpectedLine::Unknown,
    }
}

fn try_match(expected: &mut [Expected], severity: Severity, line: ExpectedLine, message: &str) -> bool {
    for e in expected.iter_mut() {
        if !e.matched && e.severity == severity && e.line == line && message.contains(&e.message) {
            e.matched = true;
            return true;
        }
    }
    false
}

/// Matches `diags` against `expected` and returns the problems: one error per unexpected
/// diagnostic and per annotation left unmatched. Empty means the check passed.
pub fn check_diagnostics(
    ctx: &Context,
    file: &str,
    expected: &mut [Expected],
    diags: &[Diagnostic],
) -> Vec<Diagnostic> {
    let mut problems = Vec::new();
    for d in diags {
        let line = line_of(ctx, file, d.loc);
        let ok = try_match(expected, d.severity, line, &d.message);
        if !ok && d.severity != Severity::Note {
            problems.push(Diagnostic::error(d.loc, format!("unexpected {}: {}", d.severity.as_str(), d.message)));
        }
        for n in &d.notes {
            let nl = line_of(ctx, file, n.loc);
            try_match(expected, Severity::Note, nl, &n.message);
        }
    }
    for e in expected.iter().filter(|e| !e.matched) {
        problems.push(Diagnostic::error(
            e.loc,
            format!("expected {} \"{}\" was not produced", e.severity.as_str(), e.message),
        ));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ctx: &mut Context, line: u32) -> Loc {
        Loc::File { file: ctx.sym("t.mlir"), line, col: 3 }
    }

    #[test]
    fn parses_designators() {
        let mut ctx = Context::new();
        let text = "a\n// expected-error@+1 {{one}}\nb // expected-warning {{two}}\n// expected-note@above {{three}}\n\
                    // expected-remark@below {{four}}\n// expected-error@below {{five}}\nc\n// expected-error@-6 {{six}}\n\
                    // expected-error@unknown {{seven}}\n// expected-error nothing\n";
        let e = parse_expectations(&mut ctx, "t.mlir", text, 10);
        let got: Vec<(Severity, ExpectedLine, &str)> =
            e.iter().map(|x| (x.severity, x.line, x.message.as_str())).collect();
        use ExpectedLine::*;
        assert_eq!(
            got,
            vec![
                (Severity::Error, Line(13), "one"),
                (Severity::Warning, Line(13), "two"),
                (Severity::Note, Line(11), "three"),
                (Severity::Remark, Line(17), "four"),
                (Severity::Error, Line(17), "five"),
                (Severity::Error, Line(12), "six"),
                (Severity::Error, Unknown, "seven"),
            ]
        );
        assert_eq!(e[0].loc, Loc::File { file: ctx.sym("t.mlir"), line: 12, col: 4 });
    }

    #[test]
    fn matches_by_line_severity_and_substring() {
        let mut ctx = Context::new();
        let text = "x\n// expected-error@-1 {{types must match}}\n// expected-note@-2 {{defined here}}\n";
        let mut e = parse_expectations(&mut ctx, "t.mlir", text, 0);
        let l1 = at(&mut ctx, 1);
        let d =
            Diagnostic::error(l1, "'mtensor.add' op operand types must match").with_note(l1, "operand defined here");
        assert!(check_diagnostics(&ctx, "t.mlir", &mut e, &[d]).is_empty());
    }

    #[test]
    fn reports_unexpected_and_missing() {
        let mut ctx = Context::new();
        let text = "x\n// expected-error@-1 {{something else}}\n";
        let mut e = parse_expectations(&mut ctx, "t.mlir", text, 0);
        let l1 = at(&mut ctx, 1);
        let warn = Diagnostic::warning(l1, "something else");
        let err = Diagnostic::error(l1, "bad op");
        let p = check_diagnostics(&ctx, "t.mlir", &mut e, &[warn, err]);
        let msgs: Vec<&str> = p.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "unexpected warning: something else",
                "unexpected error: bad op",
                "expected error \"something else\" was not produced"
            ]
        );
        // An unannotated note is fine.
        let mut none = Vec::new();
        let d = Diagnostic::warning(Loc::Unknown, "w").with_note(l1, "n");
        assert_eq!(check_diagnostics(&ctx, "t.mlir", &mut none, &[d]).len(), 1);
    }
}
