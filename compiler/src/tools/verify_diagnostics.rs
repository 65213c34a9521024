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
/// before the chunk in the file.
///
/// Returns the annotations and the errors for malformed ones (an unknown `expected-foo`, an
/// unknown or overflowing `@` designator, a line outside the chunk, a missing `{{` or `}}`),
/// each located at its annotation. A malformed annotation is never silently skipped.
pub fn parse_expectations(
    ctx: &mut Context,
    file: &str,
    text: &str,
    line_offset: u32,
) -> (Vec<Expected>, Vec<Diagnostic>) {
    let file = ctx.sym(file);
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.len() > 1 && lines.last() == Some(&"") {
        // The final newline does not start another line.
        lines.pop();
    }
    let first_line = i64::from(line_offset) + 1;
    let last_line = i64::from(line_offset) + lines.len() as i64;
    let mut out: Vec<Expected> = Vec::new();
    let mut errors = Vec::new();
    let mut last_plain_line: Option<u32> = None;
    let mut pending_below: Vec<usize> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let line = line_offset.saturating_add(i as u32).saturating_add(1);
        let found = parse_line(l);
        if found.is_empty() {
            for idx in pending_below.drain(..) {
                out[idx].line = ExpectedLine::Line(line);
            }
            last_plain_line = Some(line);
            continue;
        }
        for item in found {
            let (col, severity, designator, message) = match item {
                Ok(a) => a,
                Err((col, msg)) => {
                    errors.push(Diagnostic::error(Loc::File { file, line, col }, msg));
                    continue;
                }
            };
            let loc = Loc::File { file, line, col };
            let kind = format!("expected-{}", severity.as_str());
            let target = match designator {
                Designator::Here => Some(ExpectedLine::Line(line)),
                Designator::Offset(text, d) => {
                    let t = i64::from(line) + d;
                    if t < first_line || t > last_line {
                        let msg = if t < first_line {
                            format!("'{kind}@{text}' refers to line {t}, before the first line")
                        } else {
                            format!("'{kind}@{text}' refers to line {t}, past the last line")
                        };
                        errors.push(Diagnostic::error(loc, msg));
                        continue;
                    }
                    Some(ExpectedLine::Line(t as u32))
                }
                Designator::Above => match last_plain_line {
                    Some(l) => Some(ExpectedLine::Line(l)),
                    None => {
                        errors.push(Diagnostic::error(loc, format!("'{kind}@above' has no line above it to refer to")));
                        continue;
                    }
                },
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
    // `@below` annotations with no line below them.
    for idx in pending_below.into_iter().rev() {
        let e = out.remove(idx);
        errors.push(Diagnostic::error(
            e.loc,
            format!("'expected-{}@below' has no line below it to refer to", e.severity.as_str()),
        ));
    }
    errors.sort_by_key(|d| match d.loc {
        Loc::File { line, col, .. } => (line, col),
        Loc::Unknown => (0, 0),
    });
    (out, errors)
}

enum Designator {
    Here,
    /// `@+N` or `@-N`: the text after `@` and the offset.
    Offset(String, i64),
    Above,
    Below,
    Unknown,
}

/// One annotation: (1-based column, severity, designator, message).
type Annotation = (u32, Severity, Designator, String);

/// The annotations on one line; a malformed one is `Err((column, message))`.
fn parse_line(l: &str) -> Vec<Result<Annotation, (u32, String)>> {
    let mut out = Vec::new();
    let mut search = 0;
    while let Some(rel) = l[search..].find("expected-") {
        let start = search + rel;
        search = start + "expected-".len();
        // Part of a longer word (`unexpected-error`): not an annotation.
        if l[..start].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-') {
            continue;
        }
        let col = l[..start].chars().count() as u32 + 1;
        let rest = &l[search..];
        let word_len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-')).unwrap_or(rest.len());
        let word = &rest[..word_len];
        let severity = match word {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            "remark" => Severity::Remark,
            "note" => Severity::Note,
            _ => {
                out.push(Err((
                    col,
                    format!(
                        "unknown annotation 'expected-{word}' (expected 'expected-error', 'expected-warning', \
                         'expected-remark' or 'expected-note')"
                    ),
                )));
                continue;
            }
        };
        let kind = format!("expected-{word}");
        let mut rest = &rest[word_len..];
        let mut designator = Designator::Here;
        if let Some(r) = rest.strip_prefix('@') {
            let d_len = r.find(|c: char| c.is_whitespace() || c == '{').unwrap_or(r.len());
            let d = &r[..d_len];
            rest = &r[d_len..];
            designator = match d {
                "above" => Designator::Above,
                "below" => Designator::Below,
                "unknown" => Designator::Unknown,
                _ if (d.starts_with('+') || d.starts_with('-'))
                    && d.len() > 1
                    && d[1..].bytes().all(|b| b.is_ascii_digit()) =>
                {
                    match d[1..].parse::<i64>() {
                        Ok(n) if n <= i64::from(u32::MAX) => {
                            Designator::Offset(d.to_string(), if d.starts_with('-') { -n } else { n })
                        }
                        _ => {
                            out.push(Err((col, format!("line offset '{d}' in '{kind}@{d}' is too large"))));
                            continue;
                        }
                    }
                }
                _ => {
                    out.push(Err((
                        col,
                        format!(
                            "unknown location '@{d}' in '{kind}' (expected '@+N', '@-N', '@above', '@below' or \
                             '@unknown')"
                        ),
                    )));
                    continue;
                }
            };
        }
        let rest = rest.trim_start();
        let Some(body) = rest.strip_prefix("{{") else {
            out.push(Err((col, format!("expected '{{{{' to start the message of '{kind}'"))));
            continue;
        };
        let Some(end) = body.rfind("}}") else {
            out.push(Err((col, format!("expected '}}}}' to end the message of '{kind}'"))));
            break;
        };
        out.push(Ok((col, severity, designator, body[..end].to_string())));
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
                    // expected-error@unknown {{seven}}\n";
        let (e, errors) = parse_expectations(&mut ctx, "t.mlir", text, 10);
        assert!(errors.is_empty(), "{errors:?}");
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
        let mut e = parse_expectations(&mut ctx, "t.mlir", text, 0).0;
        let l1 = at(&mut ctx, 1);
        let d =
            Diagnostic::error(l1, "'mtensor.add' op operand types must match").with_note(l1, "operand defined here");
        assert!(check_diagnostics(&ctx, "t.mlir", &mut e, &[d]).is_empty());
    }

    #[test]
    fn reports_unexpected_and_missing() {
        let mut ctx = Context::new();
        let text = "x\n// expected-error@-1 {{something else}}\n";
        let mut e = parse_expectations(&mut ctx, "t.mlir", text, 0).0;
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

    #[test]
    fn malformed_annotations_are_errors() {
        let mut ctx = Context::new();
        let text = "x\n// expected-error@+99999999999999999999 {{a}}\n// expected-error {{unterminated\n\
                    // expected-error@-5 {{before}}\n// expected-error@+9 {{after}}\n// expected-error@left {{b}}\n\
                    // expected-foo {{c}}\n// expected-error no braces\n// expected-error-re {{d}}\n\
                    unexpected-error is prose\n// expected-note@below {{e}}";
        let (e, errors) = parse_expectations(&mut ctx, "t.mlir", text, 0);
        assert!(e.is_empty(), "{e:?}");
        let got: Vec<(u32, &str)> = errors
            .iter()
            .map(|d| match d.loc {
                Loc::File { line, .. } => (line, d.message.as_str()),
                Loc::Unknown => (0, d.message.as_str()),
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (2, "line offset '+99999999999999999999' in 'expected-error@+99999999999999999999' is too large"),
                (3, "expected '}}' to end the message of 'expected-error'"),
                (4, "'expected-error@-5' refers to line -1, before the first line"),
                (5, "'expected-error@+9' refers to line 14, past the last line"),
                (
                    6,
                    "unknown location '@left' in 'expected-error' (expected '@+N', '@-N', '@above', '@below' or \
                     '@unknown')"
                ),
                (
                    7,
                    "unknown annotation 'expected-foo' (expected 'expected-error', 'expected-warning', \
                     'expected-remark' or 'expected-note')"
                ),
                (8, "expected '{{' to start the message of 'expected-error'"),
                (
                    9,
                    "unknown annotation 'expected-error-re' (expected 'expected-error', 'expected-warning', \
                     'expected-remark' or 'expected-note')"
                ),
                (11, "'expected-note@below' has no line below it to refer to"),
            ]
        );
    }
}
