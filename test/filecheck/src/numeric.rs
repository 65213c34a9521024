//! Numeric substitution blocks: `[[#%x,VAR:]]`, `[[#VAR+1]]`, `[[#@LINE]]`,
//! `[[#add(A,B)]]`, and the legacy `[[@LINE+N]]` form.

use std::collections::HashMap;

/// The kind of a matching format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FmtKind {
    /// `%u`
    Unsigned,
    /// `%d`
    Signed,
    /// `%x`
    HexLower,
    /// `%X`
    HexUpper,
}

/// A numeric matching format (`%u`, `%.3x`, `%#X`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    /// Base and signedness.
    pub kind: FmtKind,
    /// Minimum number of digits.
    pub precision: usize,
    /// Whether hex values carry a `0x` prefix.
    pub alt: bool,
}

impl Default for Format {
    fn default() -> Self {
        Format { kind: FmtKind::Unsigned, precision: 0, alt: false }
    }
}

impl Format {
    fn spec(&self) -> String {
        let c = match self.kind {
            FmtKind::Unsigned => 'u',
            FmtKind::Signed => 'd',
            FmtKind::HexLower => 'x',
            FmtKind::HexUpper => 'X',
        };
        let alt = if self.alt { "#" } else { "" };
        if self.precision > 0 {
            format!("%{alt}.{}{c}", self.precision)
        } else {
            format!("%{alt}{c}")
        }
    }

    /// The regex (in `regex` crate syntax) matching any value in this format.
    pub fn wildcard(&self) -> String {
        let prefix = if self.alt { "0x" } else { "" };
        let p = self.precision;
        match (self.kind, p) {
            (FmtKind::Unsigned, 0) => "[0-9]+".into(),
            (FmtKind::Unsigned, _) => format!("(?:[1-9][0-9]*)?[0-9]{{{p}}}"),
            (FmtKind::Signed, 0) => "-?[0-9]+".into(),
            (FmtKind::Signed, _) => format!("-?(?:[1-9][0-9]*)?[0-9]{{{p}}}"),
            (FmtKind::HexUpper, 0) => format!("{prefix}[0-9A-F]+"),
            (FmtKind::HexUpper, _) => format!("{prefix}(?:[1-9A-F][0-9A-F]*)?[0-9A-F]{{{p}}}"),
            (FmtKind::HexLower, 0) => format!("{prefix}[0-9a-f]+"),
            (FmtKind::HexLower, _) => format!("{prefix}(?:[1-9a-f][0-9a-f]*)?[0-9a-f]{{{p}}}"),
        }
    }

    /// Formats `v`, or fails if the format cannot represent it.
    pub fn render(&self, v: i128) -> Result<String, String> {
        if v < 0 && self.kind != FmtKind::Signed {
            return Err(format!("unable to represent numeric value '{v}' in format {}", self.spec()));
        }
        let abs = v.unsigned_abs();
        let digits = match self.kind {
            FmtKind::Unsigned | FmtKind::Signed => abs.to_string(),
            FmtKind::HexLower => format!("{abs:x}"),
            FmtKind::HexUpper => format!("{abs:X}"),
        };
        let pad = "0".repeat(self.precision.saturating_sub(digits.len()));
        let sign = if v < 0 { "-" } else { "" };
        let prefix = if self.alt { "0x" } else { "" };
        Ok(format!("{sign}{prefix}{pad}{digits}"))
    }

    /// Parses text matched by [`Format::wildcard`].
    pub fn parse_value(&self, s: &str) -> Result<i128, String> {
        let err = || format!("unable to represent numeric value '{s}'");
        let (neg, body) = match s.strip_prefix('-') {
            Some(b) if self.kind == FmtKind::Signed => (true, b),
            _ => (false, s),
        };
        let (radix, body) = match self.kind {
            FmtKind::Unsigned | FmtKind::Signed => (10, body),
            _ => (16, body.strip_prefix("0x").filter(|_| self.alt).unwrap_or(body)),
        };
        let v = u64::from_str_radix(body, radix).map_err(|_| err())?;
        let v = i128::from(v);
        Ok(if neg { -v } else { v })
    }
}

/// A numeric expression.
#[derive(Debug, Clone)]
pub enum Expr {
    /// A literal (including a resolved `@LINE`).
    Lit(i128),
    /// A use of a numeric variable.
    Var(String),
    /// `a + b` or `a - b`.
    Bin(char, Box<Expr>, Box<Expr>),
    /// A call to `add`, `sub`, `mul`, `div`, `max` or `min`.
    Call(String, Box<Expr>, Box<Expr>),
}

/// State of one numeric variable.
#[derive(Debug, Clone)]
pub struct NumVar {
    /// Current value, if defined.
    pub value: Option<i128>,
    /// Implicit format from its definition (none if only used so far).
    pub format: Option<Format>,
    /// Check-file line of its first definition.
    pub def_line: Option<usize>,
}

/// Numeric variables, by name.
pub type NumVars = HashMap<String, NumVar>;

impl Expr {
    /// Evaluates the expression; `Err` lists undefined variables or an
    /// arithmetic error.
    pub fn eval(&self, vars: &NumVars) -> Result<i128, Vec<String>> {
        match self {
            Expr::Lit(v) => Ok(*v),
            Expr::Var(n) => vars.get(n).and_then(|v| v.value).ok_or_else(|| vec![format!("undefined variable: {n}")]),
            Expr::Bin(op, a, b) => {
                let name = if *op == '+' { "add" } else { "sub" };
                apply(name, a, b, vars)
            }
            Expr::Call(name, a, b) => apply(name, a, b, vars),
        }
    }

    fn implicit_format(&self, vars: &NumVars) -> Result<Option<(String, Format)>, String> {
        match self {
            Expr::Lit(_) => Ok(None),
            Expr::Var(n) => Ok(vars.get(n).and_then(|v| v.format).map(|f| (n.clone(), f))),
            Expr::Bin(_, a, b) | Expr::Call(_, a, b) => {
                let fa = a.implicit_format(vars)?;
                let fb = b.implicit_format(vars)?;
                match (fa, fb) {
                    (Some((na, a)), Some((nb, b))) if a != b => Err(format!(
                        "implicit format conflict between '{na}' ({}) and '{nb}' ({}), need an explicit format specifier",
                        a.spec(),
                        b.spec()
                    )),
                    (Some(x), _) | (None, Some(x)) => Ok(Some(x)),
                    (None, None) => Ok(None),
                }
            }
        }
    }
}

fn apply(name: &str, a: &Expr, b: &Expr, vars: &NumVars) -> Result<i128, Vec<String>> {
    let (x, y) = match (a.eval(vars), b.eval(vars)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(mut e1), Err(e2)) => {
            e1.extend(e2);
            return Err(e1);
        }
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let r = match name {
        "add" => x.checked_add(y),
        "sub" => x.checked_sub(y),
        "mul" => x.checked_mul(y),
        "div" => {
            if y == 0 {
                return Err(vec!["division by zero".into()]);
            }
            x.checked_div(y)
        }
        "max" => Some(x.max(y)),
        _ => Some(x.min(y)),
    };
    r.filter(|v| (i128::from(i64::MIN)..=i128::from(u64::MAX)).contains(v)).ok_or_else(|| vec!["overflow error".into()])
}

/// Result of parsing a numeric substitution block.
#[derive(Debug)]
pub struct Block {
    /// The expression to substitute, if any.
    pub expr: Option<Expr>,
    /// The format used to match or print.
    pub format: Format,
    /// The variable defined by the block, if any.
    pub def: Option<String>,
}

/// Where an operand may appear.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Allowed {
    LineVar,
    LegacyLiteral,
    Any,
}

const SPACE: &[char] = &[' ', '\t'];

/// A parse error: an offset into the block text and a message.
pub type PErr = (usize, String);

struct P<'a> {
    full: &'a str,
    s: &'a str,
    line: Option<usize>,
    legacy: bool,
}

/// Parses the name of a variable at the front of `s`: returns
/// `(name, is_pseudo, rest)`.
pub fn parse_variable(s: &str) -> Result<(&str, bool, &str), String> {
    let b = s.as_bytes();
    if b.is_empty() {
        return Err("empty variable name".into());
    }
    let pseudo = b[0] == b'@';
    let mut i = usize::from(b[0] == b'$' || pseudo);
    if i == b.len() {
        return Err("empty variable name".into());
    }
    if !(b[i].is_ascii_alphabetic() || b[i] == b'_') {
        return Err("invalid variable name".into());
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    Ok((&s[..i], pseudo, &s[i..]))
}

impl P<'_> {
    fn off(&self) -> usize {
        self.full.len() - self.s.len()
    }
    fn err<T>(&self, msg: impl Into<String>) -> Result<T, PErr> {
        Err((self.off(), msg.into()))
    }
    fn ltrim(&mut self) {
        self.s = self.s.trim_start_matches(SPACE);
    }

    fn operand(&mut self, ao: Allowed, maybe_constraint: bool, vars: &mut NumVars) -> Result<Expr, PErr> {
        if self.s.starts_with('(') {
            if ao != Allowed::Any {
                return self.err("parenthesized expression not permitted here");
            }
            self.s = &self.s[1..];
            self.ltrim();
            if self.s.is_empty() {
                return self.err("missing operand in expression");
            }
            let mut e = self.operand(Allowed::Any, false, vars)?;
            self.ltrim();
            while !self.s.is_empty() && !self.s.starts_with(')') {
                e = self.binop(e, vars)?;
                self.ltrim();
            }
            if !self.s.starts_with(')') {
                return self.err("missing ')' at end of nested expression");
            }
            self.s = &self.s[1..];
            return Ok(e);
        }
        if ao == Allowed::LineVar || ao == Allowed::Any {
            match parse_variable(self.s) {
                Ok((name, pseudo, rest)) => {
                    if rest.trim_start_matches(SPACE).starts_with('(') {
                        if ao != Allowed::Any {
                            return self.err("unexpected function call");
                        }
                        self.s = rest.trim_start_matches(SPACE);
                        return self.call(name, vars);
                    }
                    let at = self.off();
                    self.s = rest;
                    return self.var_use(name, pseudo, at, vars);
                }
                Err(e) if ao == Allowed::LineVar => return self.err(e),
                Err(_) => {}
            }
        }
        let save = self.s;
        let neg = self.s.starts_with('-');
        let body = if neg { &self.s[1..] } else { self.s };
        let (radix, digits_start) =
            if ao != Allowed::LegacyLiteral && (body.starts_with("0x") || body.starts_with("0X")) {
                (16, &body[2..])
            } else {
                (10, body)
            };
        let n = digits_start.bytes().take_while(|c| (*c as char).is_digit(radix)).count();
        if n > 0 {
            if let Ok(v) = u64::from_str_radix(&digits_start[..n], radix) {
                self.s = &digits_start[n..];
                let v = i128::from(v);
                return Ok(Expr::Lit(if neg { -v } else { v }));
            }
        }
        self.s = save;
        let what =
            if maybe_constraint { "invalid matching constraint or operand format" } else { "invalid operand format" };
        self.err(what)
    }

    fn var_use(&mut self, name: &str, pseudo: bool, at: usize, vars: &mut NumVars) -> Result<Expr, PErr> {
        if pseudo {
            if name != "@LINE" {
                return Err((at, format!("invalid pseudo numeric variable '{name}'")));
            }
            return match self.line {
                Some(l) => Ok(Expr::Lit(l as i128)),
                None => Err((at, "@LINE is not available here".into())),
            };
        }
        let v = vars.entry(name.to_string()).or_insert(NumVar { value: None, format: None, def_line: None });
        if v.def_line.is_some() && v.def_line == self.line {
            return Err((at, format!("numeric variable '{name}' defined earlier in the same CHECK directive")));
        }
        Ok(Expr::Var(name.to_string()))
    }

    fn call(&mut self, name: &str, vars: &mut NumVars) -> Result<Expr, PErr> {
        let at = self.off();
        self.s = &self.s[1..];
        let mut args = Vec::new();
        self.ltrim();
        if !self.s.starts_with(')') {
            loop {
                self.ltrim();
                let mut e = self.operand(Allowed::Any, false, vars)?;
                self.ltrim();
                while !self.s.is_empty() && !self.s.starts_with(')') && !self.s.starts_with(',') {
                    e = self.binop(e, vars)?;
                    self.ltrim();
                }
                args.push(e);
                if self.s.starts_with(',') {
                    self.s = &self.s[1..];
                    continue;
                }
                break;
            }
        }
        if !self.s.starts_with(')') {
            return self.err("missing ')' at end of call expression");
        }
        self.s = &self.s[1..];
        if !["add", "sub", "mul", "div", "max", "min"].contains(&name) {
            return Err((at, format!("call to undefined function '{name}'")));
        }
        if args.len() != 2 {
            return Err((at, format!("function '{name}' takes 2 arguments but {} given", args.len())));
        }
        let b = args.pop().expect("two");
        let a = args.pop().expect("two");
        Ok(Expr::Call(name.to_string(), Box::new(a), Box::new(b)))
    }

    fn binop(&mut self, left: Expr, vars: &mut NumVars) -> Result<Expr, PErr> {
        self.ltrim();
        if self.s.is_empty() {
            return Ok(left);
        }
        let op = self.s.chars().next().expect("non-empty");
        if op != '+' && op != '-' {
            return self.err(format!("unsupported operation '{op}'"));
        }
        self.s = &self.s[op.len_utf8()..];
        self.ltrim();
        if self.s.is_empty() {
            return self.err("missing operand in expression");
        }
        let ao = if self.legacy { Allowed::LegacyLiteral } else { Allowed::Any };
        let right = self.operand(ao, false, vars)?;
        self.ltrim();
        Ok(Expr::Bin(op, Box::new(left), Box::new(right)))
    }
}

/// Parses the text of a numeric block (after `#`, or a legacy `@LINE`
/// expression). `line` is the check-file line (None for `-D`).
/// `string_vars` tells whether a name is a defined string variable.
pub fn parse_block(
    text: &str,
    legacy: bool,
    line: Option<usize>,
    vars: &mut NumVars,
    is_string_var: &dyn Fn(&str) -> bool,
) -> Result<Block, PErr> {
    let mut p = P { full: text, s: text, line, legacy };
    let mut explicit = None;
    if let Some(comma) = text.find(',') {
        if comma < text.find('(').unwrap_or(usize::MAX) {
            let fmt = text[..comma].trim_matches(SPACE);
            let fmt_off = text.len() - text.trim_start_matches(SPACE).len();
            let bad = || Err((fmt_off, "invalid matching format specification in expression".to_string()));
            let Some(mut f) = fmt.strip_prefix('%') else {
                return bad();
            };
            let alt = f.starts_with('#');
            if alt {
                f = &f[1..];
            }
            let mut precision = 0;
            if let Some(r) = f.strip_prefix('.') {
                let n = r.bytes().take_while(u8::is_ascii_digit).count();
                precision =
                    r[..n].parse().map_err(|_| (fmt_off, "invalid precision in format specifier".to_string()))?;
                f = &r[n..];
            }
            if let Some(c) = f.chars().next() {
                let kind = match c {
                    'u' => FmtKind::Unsigned,
                    'd' => FmtKind::Signed,
                    'x' => FmtKind::HexLower,
                    'X' => FmtKind::HexUpper,
                    _ => {
                        return Err((fmt_off, "invalid format specifier in expression".into()));
                    }
                };
                explicit = Some(Format { kind, precision, alt });
                f = &f[c.len_utf8()..];
            }
            let is_hex = matches!(explicit.map(|f| f.kind), Some(FmtKind::HexLower | FmtKind::HexUpper));
            if alt && !is_hex {
                return Err((fmt_off, "alternate form only supported for hex values".into()));
            }
            if !f.trim_start_matches(SPACE).is_empty() {
                return bad();
            }
            p.s = &text[comma + 1..];
        }
    }
    let mut def_text = None;
    if let Some(colon) = p.s.find(':') {
        let start = p.off();
        def_text = Some((start, &p.s[..colon]));
        p.s = &p.s[colon + 1..];
    }
    p.ltrim();
    let constraint = if let Some(r) = p.s.strip_prefix("==") {
        p.s = r;
        true
    } else {
        false
    };
    p.ltrim();
    let mut expr = None;
    if p.s.is_empty() {
        if constraint {
            return p.err("empty numeric expression should not have a constraint");
        }
    } else {
        p.s = p.s.trim_end_matches(SPACE);
        let ao = if legacy { Allowed::LineVar } else { Allowed::Any };
        let mut e = p.operand(ao, !constraint, vars)?;
        while !p.s.is_empty() {
            e = p.binop(e, vars)?;
            if legacy && !p.s.is_empty() {
                return p.err(format!("unexpected characters at end of expression '{}'", p.s));
            }
        }
        expr = Some(e);
    }
    let implicit = match &expr {
        Some(e) => e.implicit_format(vars).map_err(|m| (0, m))?,
        None => None,
    };
    let format = explicit.or(implicit.map(|(_, f)| f)).unwrap_or_default();
    let mut def = None;
    if let Some((start, d)) = def_text {
        let lead = d.len() - d.trim_start_matches(SPACE).len();
        let d = d.trim_start_matches(SPACE);
        let at = start + lead;
        let (name, pseudo, rest) = parse_variable(d).map_err(|m| (at, m))?;
        if pseudo {
            return Err((at, "definition of pseudo numeric variable unsupported".into()));
        }
        if is_string_var(name) {
            return Err((at, format!("string variable with name '{name}' already exists")));
        }
        if !rest.trim_start_matches(SPACE).is_empty() {
            return Err((at + name.len(), "unexpected characters after numeric variable name".into()));
        }
        match vars.get_mut(name) {
            Some(v) if v.format.is_some() => {
                if v.format != Some(format) {
                    return Err((at, "format different from previous variable definition".into()));
                }
            }
            Some(v) => {
                v.format = Some(format);
                v.def_line = line;
            }
            None => {
                vars.insert(name.to_string(), NumVar { value: None, format: Some(format), def_line: line });
            }
        }
        def = Some(name.to_string());
    }
    Ok(Block { expr, format, def })
}
