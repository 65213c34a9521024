//! Reading a check file: finding prefixes and directives (LLVM's
//! `readCheckFile`), and building the list of check strings.

use std::collections::BTreeSet;

use crate::diag::{Diags, Kind, Loc, SourceId};
use crate::pattern::{CheckKind, Context, PatOpts, Pattern};

/// A positive check plus the CHECK-DAG/CHECK-NOT patterns preceding it.
#[derive(Debug, Clone)]
pub struct CheckString {
    /// The positive pattern (or the EOF pseudo pattern).
    pub pat: Pattern,
    /// The prefix that introduced it.
    pub prefix: String,
    /// DAG and NOT patterns to handle before it, with their prefixes.
    pub dag_not: Vec<(Pattern, String)>,
}

/// Settings needed to read a check file.
#[derive(Debug, Clone)]
pub struct ReadOpts {
    /// Check prefixes (non-empty).
    pub check_prefixes: Vec<String>,
    /// Whether `check_prefixes` was defaulted to `CHECK`.
    pub default_prefix: bool,
    /// Comment prefixes.
    pub comment_prefixes: Vec<String>,
    /// `--implicit-check-not` patterns.
    pub implicit_check_not: Vec<String>,
    /// `--allow-unused-prefixes`
    pub allow_unused_prefixes: bool,
    /// Pattern options.
    pub pat: PatOpts,
}

enum Ty {
    None,
    Comment,
    Check(CheckKind, usize, bool),
    Misspelled,
    BadNot,
    BadCount,
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// Classifies the text after a prefix; returns the type and the offset just
/// past the directive (relative to `rest`).
fn check_type(rest: &[u8], is_comment: bool) -> (Ty, usize) {
    let (ty, off, misspelled) = check_type_inner(rest, is_comment);
    match ty {
        Ty::None | Ty::Comment => (ty, off),
        _ if misspelled => (Ty::Misspelled, off),
        _ => (ty, off),
    }
}

fn check_type_inner(rest: &[u8], is_comment: bool) -> (Ty, usize, bool) {
    if rest.is_empty() {
        return (Ty::None, 0, false);
    }
    if is_comment {
        return if rest[0] == b':' { (Ty::Comment, 1, false) } else { (Ty::None, 0, false) };
    }
    let modifiers = |i: usize, kind: CheckKind, count: usize, mis: bool| -> (Ty, usize, bool) {
        let r = &rest[i..];
        if r.first() == Some(&b':') {
            return (Ty::Check(kind, count, false), i + 1, mis);
        }
        if r.first() != Some(&b'{') {
            return (Ty::None, 0, mis);
        }
        let mut j = i + 1;
        let skip_ws = |j: &mut usize| {
            while *j < rest.len() && rest[*j].is_ascii_whitespace() {
                *j += 1;
            }
        };
        loop {
            skip_ws(&mut j);
            if rest[j..].starts_with(b"LITERAL") {
                j += 7;
            } else {
                return (Ty::None, 0, mis);
            }
            skip_ws(&mut j);
            if rest.get(j) == Some(&b',') {
                j += 1;
                continue;
            }
            break;
        }
        if rest[j..].starts_with(b"}:") {
            (Ty::Check(kind, count, true), j + 2, mis)
        } else {
            (Ty::None, 0, mis)
        }
    };
    if rest[0] == b':' || rest[0] == b'{' {
        return modifiers(0, CheckKind::Plain, 1, false);
    }
    let mis = match rest[0] {
        b'_' => true,
        b'-' => false,
        _ => return (Ty::None, 0, false),
    };
    let r = &rest[1..];
    if let Some(c) = r.strip_prefix(b"COUNT-") {
        let n = c.iter().take_while(|b| b.is_ascii_digit()).count();
        let at = 1 + 6 + n;
        let value: Option<u64> = std::str::from_utf8(&c[..n]).ok().and_then(|s| s.parse().ok());
        match value {
            Some(v) if v > 0 && v <= i32::MAX as u64 => {
                if !matches!(c.get(n), Some(b':') | Some(b'{')) {
                    return (Ty::BadCount, at, mis);
                }
                return modifiers(at, CheckKind::Plain, v as usize, mis);
            }
            _ => return (Ty::BadCount, at, mis),
        }
    }
    for bad in ["DAG-NOT:", "NOT-DAG:", "NEXT-NOT:", "NOT-NEXT:", "SAME-NOT:", "NOT-SAME:", "EMPTY-NOT:", "NOT-EMPTY:"]
    {
        if r.starts_with(bad.as_bytes()) {
            return (Ty::BadNot, 1, mis);
        }
    }
    for (name, kind) in [
        ("NEXT", CheckKind::Next),
        ("SAME", CheckKind::Same),
        ("NOT", CheckKind::Not),
        ("DAG", CheckKind::Dag),
        ("LABEL", CheckKind::Label),
        ("EMPTY", CheckKind::Empty),
    ] {
        if r.starts_with(name.as_bytes()) {
            return modifiers(1 + name.len(), kind, 1, mis);
        }
    }
    (Ty::None, 0, false)
}

fn find_from(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from > hay.len() {
        return None;
    }
    hay[from..].windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

/// Parses the check file in source `src`. On error, reports to `diags` and
/// returns `None`.
pub fn read_check_file(
    diags: &mut Diags,
    src: SourceId,
    opts: &ReadOpts,
    ctx: &mut Context,
) -> Option<Vec<CheckString>> {
    let mut implicit = Vec::new();
    for p in &opts.implicit_check_not {
        let head = "-implicit-check-not='";
        let id = diags.add("command line", format!("{head}{p}'").into_bytes());
        let loc = Loc { src: id, off: head.len() };
        let pat = Pattern::parse(p.as_bytes(), loc, CheckKind::Not, 1, false, "IMPLICIT-CHECK", None, opts.pat, ctx);
        match pat {
            Ok(pat) => implicit.push((pat, "IMPLICIT-CHECK".to_string())),
            Err((l, m)) => {
                diags.emit(l, Kind::Error, &m);
                return None;
            }
        }
    }
    let buf = diags.sources[src].text.clone();
    let mut prefixes: Vec<(String, bool)> = opts
        .check_prefixes
        .iter()
        .map(|p| (p.clone(), false))
        .chain(opts.comment_prefixes.iter().map(|p| (p.clone(), true)))
        .collect();
    prefixes.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    let mut not_found: BTreeSet<&str> = opts.check_prefixes.iter().map(String::as_str).collect();
    let distinct = not_found.len();
    let mut checks: Vec<CheckString> = Vec::new();
    let mut dag_not = implicit.clone();
    let mut pos = 0;
    loop {
        // Find the earliest (then longest) prefix occurrence.
        let mut best: Option<(usize, &str, bool)> = None;
        for (p, is_comment) in &prefixes {
            if let Some(at) = find_from(&buf, p.as_bytes(), pos) {
                if best.is_none_or(|(b, _, _)| at < b) {
                    best = Some((at, p, *is_comment));
                }
            }
        }
        let Some((at, prefix, is_comment)) = best else {
            break;
        };
        if at > 0 && is_word(buf[at - 1]) {
            pos = at + 1;
            continue;
        }
        let after_prefix = at + prefix.len();
        let (ty, off) = check_type(&buf[after_prefix..], is_comment);
        let directive_end = after_prefix + off;
        let loc = Loc { src, off: at };
        let (kind, count, literal) = match ty {
            Ty::None => {
                pos = at + 1;
                continue;
            }
            Ty::Misspelled => {
                let d = String::from_utf8_lossy(&buf[at..directive_end]).into_owned();
                diags.emit(loc, Kind::Error, &format!("misspelled directive '{d}'"));
                return None;
            }
            Ty::BadNot => {
                let l = Loc { src, off: directive_end };
                diags.emit(l, Kind::Error, &format!("unsupported -NOT combo on prefix '{prefix}'"));
                return None;
            }
            Ty::BadCount => {
                let l = Loc { src, off: directive_end };
                diags.emit(l, Kind::Error, &format!("invalid count in -COUNT specification on prefix '{prefix}'"));
                return None;
            }
            Ty::Comment => (CheckKind::Plain, 1, false),
            Ty::Check(k, c, l) => (k, c, l),
        };
        if !is_comment {
            not_found.remove(prefix);
        }
        let mut p = directive_end;
        if !(opts.pat.strict_whitespace && opts.pat.match_full_lines) {
            while p < buf.len() && (buf[p] == b' ' || buf[p] == b'\t') {
                p += 1;
            }
        }
        let eol = buf[p..].iter().position(|&b| b == b'\n' || b == b'\r').map_or(buf.len(), |e| p + e);
        pos = eol;
        if matches!(ty, Ty::Comment) {
            continue;
        }
        let line = buf[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        let pat_loc = Loc { src, off: p };
        let pat = match Pattern::parse(&buf[p..eol], pat_loc, kind, count, literal, prefix, Some(line), opts.pat, ctx) {
            Ok(pat) => pat,
            Err((l, m)) => {
                diags.emit(l, Kind::Error, &m);
                return None;
            }
        };
        if kind == CheckKind::Label && pat.has_variable {
            diags.emit(loc, Kind::Error, &format!("found '{prefix}-LABEL:' with variable definition or use"));
            return None;
        }
        if matches!(kind, CheckKind::Next | CheckKind::Same | CheckKind::Empty) && checks.is_empty() {
            let ty = &kind.suffix()[1..];
            diags.emit(loc, Kind::Error, &format!("found '{prefix}-{ty}' without previous '{prefix}: line"));
            return None;
        }
        if matches!(kind, CheckKind::Dag | CheckKind::Not) {
            dag_not.push((pat, prefix.to_string()));
            continue;
        }
        checks.push(CheckString {
            pat,
            prefix: prefix.to_string(),
            dag_not: std::mem::replace(&mut dag_not, implicit.clone()),
        });
    }
    let none_found = not_found.len() == distinct;
    let some_unused = !opts.allow_unused_prefixes && !not_found.is_empty();
    if (none_found || some_unused) && (implicit.is_empty() || !opts.default_prefix) {
        let list: Vec<String> = not_found.iter().map(|p| format!("'{p}:'")).collect();
        let es = if not_found.len() > 1 { "es" } else { "" };
        diags.plain(&format!("error: no check strings found with prefix{es} {}", list.join(", ")));
        return None;
    }
    if !dag_not.is_empty() {
        let first = opts.check_prefixes[0].clone();
        checks.push(CheckString { pat: Pattern::eof(Loc { src, off: buf.len() }), prefix: first, dag_not });
    }
    Some(checks)
}
