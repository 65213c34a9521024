//! One check pattern: parsing of literal text, `{{regex}}`, `[[VAR:regex]]`,
//! `[[VAR]]` and numeric blocks, and matching it against a buffer.

use std::collections::{HashMap, HashSet};

use regex::bytes::Regex;

use crate::diag::Loc;
use crate::ere::{escape_bytes, translate};
use crate::numeric::{parse_block, parse_variable, Expr, Format, NumVars};

/// The kind of a directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    /// `CHECK:` (possibly with `-COUNT-n`).
    Plain,
    /// `CHECK-NEXT:`
    Next,
    /// `CHECK-SAME:`
    Same,
    /// `CHECK-NOT:` (and `--implicit-check-not`).
    Not,
    /// `CHECK-DAG:`
    Dag,
    /// `CHECK-LABEL:`
    Label,
    /// `CHECK-EMPTY:`
    Empty,
    /// The end-of-input pseudo check that flushes trailing NOT/DAG.
    Eof,
}

impl CheckKind {
    /// The directive suffix, e.g. `-NEXT`.
    pub fn suffix(self) -> &'static str {
        match self {
            CheckKind::Plain | CheckKind::Eof => "",
            CheckKind::Next => "-NEXT",
            CheckKind::Same => "-SAME",
            CheckKind::Not => "-NOT",
            CheckKind::Dag => "-DAG",
            CheckKind::Label => "-LABEL",
            CheckKind::Empty => "-EMPTY",
        }
    }
}

/// Options that affect how patterns are parsed and matched.
#[derive(Debug, Clone, Copy, Default)]
pub struct PatOpts {
    /// `--strict-whitespace`
    pub strict_whitespace: bool,
    /// `--match-full-lines`
    pub match_full_lines: bool,
    /// `--ignore-case`
    pub ignore_case: bool,
}

/// Variables visible to patterns.
#[derive(Debug, Default)]
pub struct Context {
    /// Values of string variables.
    pub strings: HashMap<String, Vec<u8>>,
    /// Names of string variables that have a definition somewhere (so far).
    pub string_defined: HashSet<String>,
    /// Numeric variables.
    pub nums: NumVars,
}

impl Context {
    /// Forgets the values of local (non-`$`) variables (`--enable-var-scope`).
    pub fn clear_locals(&mut self) {
        self.strings.retain(|k, _| k.starts_with('$'));
        for (k, v) in self.nums.iter_mut() {
            if !k.starts_with('$') {
                v.value = None;
            }
        }
    }
}

#[derive(Debug, Clone)]
enum Piece {
    Re(String),
    Str(String),
    Num(Expr, Format),
}

#[derive(Debug, Clone)]
struct Def {
    name: String,
    group: String,
    numeric: Option<Format>,
}

#[derive(Debug, Clone)]
enum Body {
    Eof,
    Empty,
    Re { pieces: Vec<Piece>, defs: Vec<Def>, cached: Option<Regex> },
}

/// A parsed pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// Directive kind.
    pub kind: CheckKind,
    /// Repeat count (`-COUNT-n`), 1 otherwise.
    pub count: usize,
    /// Where the pattern text starts (for diagnostics).
    pub loc: Loc,
    body: Body,
    flags: String,
    /// Whether the pattern defines or uses any variable.
    pub has_variable: bool,
}

/// A parse error at a location.
pub type ParseError = (Loc, String);

/// The outcome of matching that is not a plain "not found".
#[derive(Debug)]
pub struct MatchError(pub Vec<String>);

/// A successful match: start and length within the searched buffer.
#[derive(Debug, Clone, Copy)]
pub struct Found {
    /// Start offset.
    pub pos: usize,
    /// Length.
    pub len: usize,
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    hay.windows(needle.len()).position(|w| w == needle)
}

fn compile(flags: &str, body: &str) -> Result<Regex, String> {
    regex::bytes::RegexBuilder::new(&format!("{flags}{body}")).size_limit(1 << 26).build().map_err(|e| e.to_string())
}

impl Pattern {
    /// The end-of-file pseudo pattern.
    pub fn eof(loc: Loc) -> Pattern {
        Pattern { kind: CheckKind::Eof, count: 1, loc, body: Body::Eof, flags: String::new(), has_variable: false }
    }

    /// Parses `text` (the rest of the directive line, leading whitespace
    /// already skipped), located at `loc`.
    #[allow(clippy::too_many_arguments)]
    pub fn parse(
        text: &[u8],
        loc: Loc,
        kind: CheckKind,
        count: usize,
        literal: bool,
        prefix: &str,
        line: Option<usize>,
        opts: PatOpts,
        ctx: &mut Context,
    ) -> Result<Pattern, ParseError> {
        let at = |i: usize| Loc { src: loc.src, off: loc.off + i };
        let full_lines = opts.match_full_lines && kind != CheckKind::Not;
        let mut text = text;
        if !(opts.strict_whitespace && opts.match_full_lines) {
            while let Some((&b, rest)) = text.split_last() {
                if b == b' ' || b == b'\t' {
                    text = rest;
                } else {
                    break;
                }
            }
        }
        let mut flags = String::from("(?m-u)");
        if opts.ignore_case {
            flags = "(?mi-u)".into();
        }
        let mut pat = Pattern { kind, count, loc, body: Body::Empty, flags, has_variable: false };
        if text.is_empty() && kind != CheckKind::Empty {
            return Err((loc, format!("found empty check string with prefix '{prefix}:'")));
        }
        if !text.is_empty() && kind == CheckKind::Empty {
            return Err((loc, format!("found non-empty check string for empty check with prefix '{prefix}:'")));
        }
        if kind == CheckKind::Empty {
            return Ok(pat);
        }
        let simple = |pieces: Vec<Piece>| Body::Re { pieces, defs: vec![], cached: None };
        if literal || (!full_lines && find(text, b"{{").is_none() && find(text, b"[[").is_none()) {
            pat.body = simple(vec![Piece::Re(escape_bytes(text))]);
            pat.finish().map_err(|e| (loc, e))?;
            return Ok(pat);
        }
        let mut pieces = Vec::new();
        let mut defs: Vec<Def> = Vec::new();
        let mut num_defs_here: Vec<String> = Vec::new();
        if full_lines {
            pieces.push(Piece::Re(if opts.strict_whitespace { "^" } else { "^ *" }.into()));
        }
        let mut i = 0;
        while i < text.len() {
            let rest = &text[i..];
            if rest.starts_with(b"{{") {
                let Some(end) = find(rest, b"}}") else {
                    return Err((at(i), "found start of regex string with no end '}}'".into()));
                };
                let re = translate(&rest[2..end]).map_err(|e| (at(i + 2), format!("invalid regex: {e}")))?;
                compile("(?m-u)", &re).map_err(|e| (at(i + 2), format!("invalid regex: {e}")))?;
                pieces.push(Piece::Re(format!("(?:{re})")));
                i += end + 2;
                continue;
            }
            if rest.starts_with(b"[[") {
                let inner = &rest[2..];
                let end = var_end(inner).map_err(|(o, m)| (at(i + 2 + o), m))?;
                let Some(end) = end else {
                    return Err((at(i), "Invalid substitution block, no ]] found".into()));
                };
                let block = &inner[..end];
                let block_at = i + 2;
                i += 2 + end + 2;
                pat.has_variable = true;
                let (is_num, block, block_at) = match block.strip_prefix(b"#") {
                    Some(b) => (true, b, block_at + 1),
                    None => (false, block, block_at),
                };
                if !is_num {
                    let colon = block.iter().position(|&b| b == b':');
                    let name_part = &block[..colon.unwrap_or(block.len())];
                    if let Some(sp) = name_part.iter().position(|&b| b == b' ' || b == b'\t') {
                        return Err((at(block_at + sp), "unexpected whitespace".into()));
                    }
                    let s = String::from_utf8_lossy(block).into_owned();
                    let (name, pseudo, after) = parse_variable(&s).map_err(|m| (at(block_at), m))?;
                    if colon.is_some() {
                        let Some(re_text) = after.strip_prefix(':').filter(|_| !pseudo) else {
                            return Err((at(block_at), "invalid name in string variable definition".into()));
                        };
                        if ctx.nums.get(name).is_some_and(|v| v.format.is_some()) {
                            return Err((at(block_at), format!("numeric variable with name '{name}' already exists")));
                        }
                        let re_bytes = &block[block.len() - re_text.len()..];
                        let re = if re_bytes.is_empty() {
                            String::new()
                        } else {
                            let re_at = block_at + block.len() - re_text.len();
                            let re = translate(re_bytes).map_err(|e| (at(re_at), format!("invalid regex: {e}")))?;
                            compile("(?m-u)", &re).map_err(|e| (at(re_at), format!("invalid regex: {e}")))?;
                            re
                        };
                        let group = format!("d{}", defs.len());
                        pieces.push(Piece::Re(format!("(?P<{group}>{re})")));
                        defs.retain(|d| d.name != name);
                        defs.push(Def { name: name.to_string(), group, numeric: None });
                        ctx.string_defined.insert(name.to_string());
                        continue;
                    }
                    if !pseudo {
                        if !after.is_empty() {
                            return Err((at(block_at), "invalid name in string variable use".into()));
                        }
                        if defs.iter().any(|d| d.name == name && d.numeric.is_none()) {
                            return Err((
                                at(block_at),
                                "morf-filecheck does not support using a string variable in the directive that defines it".into(),
                            ));
                        }
                        pieces.push(Piece::Str(name.to_string()));
                        continue;
                    }
                    // Legacy @LINE expression: fall through as numeric.
                    let b = parse_block(&s, true, line, &mut ctx.nums, &|_| false)
                        .map_err(|(o, m)| (at(block_at + o), m))?;
                    let e = b.expr.expect("legacy @LINE always has an expression");
                    pieces.push(Piece::Num(e, b.format));
                    continue;
                }
                let s = String::from_utf8_lossy(block).into_owned();
                let string_defined = ctx.string_defined.clone();
                let b = parse_block(&s, false, line, &mut ctx.nums, &|n| string_defined.contains(n))
                    .map_err(|(o, m)| (at(block_at + o), m))?;
                if let Some(name) = &b.def {
                    let group = format!("d{}", defs.len());
                    let inner = match b.expr {
                        Some(e) => {
                            pieces.push(Piece::Re(format!("(?P<{group}>")));
                            pieces.push(Piece::Num(e, b.format));
                            pieces.push(Piece::Re(")".into()));
                            String::new()
                        }
                        None => format!("(?P<{group}>{})", b.format.wildcard()),
                    };
                    if !inner.is_empty() {
                        pieces.push(Piece::Re(inner));
                    }
                    defs.retain(|d| &d.name != name);
                    defs.push(Def { name: name.clone(), group, numeric: Some(b.format) });
                    num_defs_here.push(name.clone());
                } else if let Some(e) = b.expr {
                    pieces.push(Piece::Num(e, b.format));
                } else {
                    pieces.push(Piece::Re(format!("(?:{})", b.format.wildcard())));
                }
                continue;
            }
            let next = [find(&rest[1..], b"{{"), find(&rest[1..], b"[[")]
                .into_iter()
                .flatten()
                .min()
                .map_or(rest.len(), |p| p + 1);
            pieces.push(Piece::Re(escape_bytes(&rest[..next])));
            i += next;
        }
        if full_lines {
            pieces.push(Piece::Re(if opts.strict_whitespace { "$" } else { " *$" }.into()));
        }
        pat.body = Body::Re { pieces, defs, cached: None };
        pat.finish().map_err(|e| (loc, format!("invalid regex: {e}")))?;
        Ok(pat)
    }

    /// Pre-compiles the regex when it needs no substitution.
    fn finish(&mut self) -> Result<(), String> {
        let flags = self.flags.clone();
        if let Body::Re { pieces, cached, .. } = &mut self.body {
            if pieces.iter().all(|p| matches!(p, Piece::Re(_))) {
                let s: String = pieces
                    .iter()
                    .map(|p| match p {
                        Piece::Re(r) => r.as_str(),
                        _ => "",
                    })
                    .collect();
                *cached = Some(compile(&flags, &s)?);
            }
        }
        Ok(())
    }

    /// Describes the substitutions this pattern would make now, as
    /// `with "X" equal to "v"` notes.
    pub fn substitution_notes(&self, ctx: &Context) -> Vec<String> {
        let mut out = Vec::new();
        if let Body::Re { pieces, .. } = &self.body {
            for p in pieces {
                match p {
                    Piece::Str(n) => {
                        if let Some(v) = ctx.strings.get(n) {
                            out.push(format!("with \"{n}\" equal to \"{}\"", String::from_utf8_lossy(v)));
                        }
                    }
                    Piece::Num(e, f) => {
                        if let Ok(v) = e.eval(&ctx.nums) {
                            if let Ok(s) = f.render(v) {
                                out.push(format!("with numeric expression equal to \"{s}\""));
                            }
                        }
                    }
                    Piece::Re(_) => {}
                }
            }
        }
        out
    }

    /// Searches `buf`; on success records variable definitions in `ctx`.
    pub fn find_in(&self, buf: &[u8], ctx: &mut Context) -> Result<Option<Found>, MatchError> {
        let (pieces, defs, cached) = match &self.body {
            Body::Eof => return Ok(Some(Found { pos: buf.len(), len: 0 })),
            Body::Empty => {
                let re = Regex::new(r"(?m-u)\n$").expect("valid");
                return Ok(re.find(buf).map(|m| Found { pos: m.start() + 1, len: 0 }));
            }
            Body::Re { pieces, defs, cached } => (pieces, defs, cached),
        };
        let owned;
        let re = match cached {
            Some(r) => r,
            None => {
                let mut s = String::new();
                let mut errs = Vec::new();
                for p in pieces {
                    match p {
                        Piece::Re(r) => s.push_str(r),
                        Piece::Str(n) => match ctx.strings.get(n) {
                            Some(v) => s.push_str(&escape_bytes(v)),
                            None => errs.push(format!("undefined variable: {n}")),
                        },
                        Piece::Num(e, f) => match e.eval(&ctx.nums) {
                            Ok(v) => match f.render(v) {
                                Ok(t) => s.push_str(&escape_bytes(t.as_bytes())),
                                Err(m) => errs.push(m),
                            },
                            Err(m) => errs.extend(m),
                        },
                    }
                }
                if !errs.is_empty() {
                    return Err(MatchError(errs));
                }
                owned = compile(&self.flags, &s).map_err(|e| MatchError(vec![e]))?;
                &owned
            }
        };
        let Some(caps) = re.captures(buf) else {
            return Ok(None);
        };
        let m = caps.get(0).expect("group 0");
        for d in defs {
            let text = caps.name(&d.group).map_or(&[][..], |g| g.as_bytes());
            match d.numeric {
                None => {
                    ctx.strings.insert(d.name.clone(), text.to_vec());
                }
                Some(f) => {
                    let v = f.parse_value(&String::from_utf8_lossy(text)).map_err(|e| MatchError(vec![e]))?;
                    if let Some(var) = ctx.nums.get_mut(&d.name) {
                        var.value = Some(v);
                    }
                }
            }
        }
        Ok(Some(Found { pos: m.start(), len: m.len() }))
    }
}

/// Finds the `]]` closing a substitution block, skipping nested `[...]` and
/// backslash escapes (LLVM's `FindRegexVarEnd`).
fn var_end(s: &[u8]) -> Result<Option<usize>, (usize, String)> {
    let mut i = 0;
    let mut depth = 0usize;
    while i < s.len() {
        if s[i..].starts_with(b"]]") && depth == 0 {
            return Ok(Some(i));
        }
        if s[i] == b'\\' {
            i += 2;
            continue;
        }
        match s[i] {
            b'[' => depth += 1,
            b']' => {
                if depth == 0 {
                    return Err((i, "missing closing \"]\" for regex variable".into()));
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(None)
}
