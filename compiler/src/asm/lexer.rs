//! The lexer of the MLIR-syntax text format.
//!
//! It works on a byte position in the source, so that the parser can also scan the few
//! constructs that are not token-based (the `4x?xf32` dimension lists of shaped types).
//! Every malformed token becomes a [`LexError`]; nothing here panics on any input.

/// The kind of a token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// End of input.
    Eof,
    /// A bare identifier: `mtensor.add`, `f32`, `dense`, `x`.
    Ident(String),
    /// `%name` or `%name#3` (with the result number).
    ValueId(String, Option<u32>),
    /// `^label`.
    CaretId(String),
    /// `@name` or `@"name"`.
    AtId(String),
    /// `!dialect.type`.
    BangId(String),
    /// `#alias`.
    HashId(String),
    /// An integer literal (decimal or `0x` hex), without sign, as written.
    Int(String),
    /// A float literal, as written.
    Float(String),
    /// A string literal, unescaped.
    Str(String),
    /// Punctuation: one of `( ) { } [ ] < > , : = ? * + -` or `->`.
    Punct(&'static str),
}

impl Tok {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Eof => "end of file".into(),
            Tok::Ident(s) => format!("'{s}'"),
            Tok::ValueId(s, None) => format!("'%{s}'"),
            Tok::ValueId(s, Some(n)) => format!("'%{s}#{n}'"),
            Tok::CaretId(s) => format!("'^{s}'"),
            Tok::AtId(s) => format!("'@{s}'"),
            Tok::BangId(s) => format!("'!{s}'"),
            Tok::HashId(s) => format!("'#{s}'"),
            Tok::Int(s) | Tok::Float(s) => format!("'{s}'"),
            Tok::Str(_) => "string".into(),
            Tok::Punct(p) => format!("'{p}'"),
        }
    }
}

/// A lexing failure at a byte offset.
#[derive(Clone, Debug)]
pub struct LexError {
    /// Byte offset of the problem.
    pub pos: usize,
    /// What is wrong.
    pub message: String,
}

/// A token and the byte range it covers.
#[derive(Clone, Debug)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Start offset.
    pub start: usize,
    /// End offset (exclusive).
    pub end: usize,
}

fn is_id_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_id_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

fn is_suffix_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

/// Skips whitespace and `//` comments from `pos`; returns the new position.
pub fn skip_trivia(src: &[u8], mut pos: usize) -> usize {
    loop {
        while pos < src.len() && matches!(src[pos], b' ' | b'\t' | b'\n' | b'\r') {
            pos += 1;
        }
        if pos + 1 < src.len() && src[pos] == b'/' && src[pos + 1] == b'/' {
            while pos < src.len() && src[pos] != b'\n' {
                pos += 1;
            }
            continue;
        }
        return pos;
    }
}

/// Lexes one token starting at `pos` (after trivia).
pub fn lex(src: &str, pos: usize) -> Result<Token, LexError> {
    let b = src.as_bytes();
    let start = skip_trivia(b, pos);
    let err = |p: usize, m: &str| Err(LexError { pos: p, message: m.to_string() });
    if start >= b.len() {
        return Ok(Token { tok: Tok::Eof, start, end: start });
    }
    let c = b[start];
    let mut p = start + 1;
    let tok = match c {
        b'(' => Tok::Punct("("),
        b')' => Tok::Punct(")"),
        b'{' => Tok::Punct("{"),
        b'}' => Tok::Punct("}"),
        b'[' => Tok::Punct("["),
        b']' => Tok::Punct("]"),
        b'<' => Tok::Punct("<"),
        b'>' => Tok::Punct(">"),
        b',' => Tok::Punct(","),
        b':' => Tok::Punct(":"),
        b'=' => Tok::Punct("="),
        b'?' => Tok::Punct("?"),
        b'*' => Tok::Punct("*"),
        b'+' => Tok::Punct("+"),
        b'-' => {
            if p < b.len() && b[p] == b'>' {
                p += 1;
                Tok::Punct("->")
            } else {
                Tok::Punct("-")
            }
        }
        b'"' => {
            let (s, np) = lex_string(src, start)?;
            p = np;
            Tok::Str(s)
        }
        b'%' | b'^' | b'@' | b'!' | b'#' => {
            if c == b'@' && p < b.len() && b[p] == b'"' {
                let (s, np) = lex_string(src, p)?;
                p = np;
                Tok::AtId(s)
            } else {
                let s0 = p;
                if p < b.len() && b[p].is_ascii_digit() {
                    while p < b.len() && b[p].is_ascii_digit() {
                        p += 1;
                    }
                } else if p < b.len() && (is_id_start(b[p]) || matches!(b[p], b'$' | b'.' | b'-')) {
                    while p < b.len() && is_suffix_char(b[p]) {
                        p += 1;
                    }
                } else {
                    let what = match c {
                        b'%' => "invalid SSA name",
                        b'^' => "invalid block name",
                        b'@' => "invalid symbol reference",
                        b'!' => "invalid type identifier",
                        _ => "invalid attribute alias",
                    };
                    return err(start, what);
                }
                let name = src[s0..p].to_string();
                match c {
                    b'%' => {
                        let mut num = None;
                        if p + 1 < b.len() && b[p] == b'#' && b[p + 1].is_ascii_digit() {
                            let n0 = p + 1;
                            p = n0;
                            while p < b.len() && b[p].is_ascii_digit() {
                                p += 1;
                            }
                            match src[n0..p].parse::<u32>() {
                                Ok(n) => num = Some(n),
                                Err(_) => return err(n0, "result number is too large"),
                            }
                        }
                        Tok::ValueId(name, num)
                    }
                    b'^' => Tok::CaretId(name),
                    b'@' => Tok::AtId(name),
                    b'!' => Tok::BangId(name),
                    _ => Tok::HashId(name),
                }
            }
        }
        c if c.is_ascii_digit() => {
            p = start;
            if c == b'0' && p + 1 < b.len() && b[p + 1] == b'x' && p + 2 < b.len() && b[p + 2].is_ascii_hexdigit() {
                p += 2;
                while p < b.len() && b[p].is_ascii_hexdigit() {
                    p += 1;
                }
                Tok::Int(src[start..p].to_string())
            } else {
                while p < b.len() && b[p].is_ascii_digit() {
                    p += 1;
                }
                let mut is_float = false;
                if p < b.len() && b[p] == b'.' {
                    is_float = true;
                    p += 1;
                    while p < b.len() && b[p].is_ascii_digit() {
                        p += 1;
                    }
                    if p < b.len() && (b[p] == b'e' || b[p] == b'E') {
                        let mut q = p + 1;
                        if q < b.len() && (b[q] == b'+' || b[q] == b'-') {
                            q += 1;
                        }
                        if q < b.len() && b[q].is_ascii_digit() {
                            while q < b.len() && b[q].is_ascii_digit() {
                                q += 1;
                            }
                            p = q;
                        }
                    }
                }
                if is_float {
                    Tok::Float(src[start..p].to_string())
                } else {
                    Tok::Int(src[start..p].to_string())
                }
            }
        }
        c if is_id_start(c) => {
            while p < b.len() && is_id_char(b[p]) {
                p += 1;
            }
            Tok::Ident(src[start..p].to_string())
        }
        _ => {
            let ch = src[start..].chars().next().unwrap_or('?');
            return Err(LexError { pos: start, message: format!("unexpected character '{}'", ch.escape_debug()) });
        }
    };
    Ok(Token { tok, start, end: p })
}

/// Lexes a string literal starting at the opening quote; returns it unescaped and the
/// position after the closing quote.
fn lex_string(src: &str, start: usize) -> Result<(String, usize), LexError> {
    let b = src.as_bytes();
    let mut p = start + 1;
    let mut out: Vec<u8> = Vec::new();
    loop {
        if p >= b.len() || b[p] == b'\n' {
            return Err(LexError { pos: start, message: "expected '\"' in string literal".into() });
        }
        match b[p] {
            b'"' => {
                p += 1;
                break;
            }
            b'\\' => {
                let n = b.get(p + 1).copied();
                match n {
                    Some(b'"') => out.push(b'"'),
                    Some(b'\\') => out.push(b'\\'),
                    Some(b'n') => out.push(b'\n'),
                    Some(b't') => out.push(b'\t'),
                    Some(h) if h.is_ascii_hexdigit() && b.get(p + 2).is_some_and(|x| x.is_ascii_hexdigit()) => {
                        let v = u8::from_str_radix(&src[p + 1..p + 3], 16).unwrap_or(0);
                        out.push(v);
                        p += 1;
                    }
                    _ => return Err(LexError { pos: p, message: "unknown escape in string literal".into() }),
                }
                p += 2;
            }
            c => {
                out.push(c);
                p += 1;
            }
        }
    }
    Ok((String::from_utf8_lossy(&out).into_owned(), p))
}
