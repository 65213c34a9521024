//! Translation of POSIX extended regular expressions, as accepted by LLVM's
//! `Regex` (OpenBSD `regcomp` with `REG_EXTENDED | REG_NEWLINE`), into the
//! syntax of the `regex` crate (byte-oriented, Unicode off).
//!
//! The translation rejects what LLVM rejects (empty alternatives, doubled
//! repetition operators, bad bounds, unknown classes) and maps escapes the
//! POSIX way: `\d`, `\s`, `\n`, ... are the literal letters.

/// Escapes one byte so that it matches itself in a `(?-u)` byte regex.
pub fn escape_byte(out: &mut String, b: u8) {
    // `<` and `>` are not metacharacters, and escaped they are word boundaries in the
    // `regex` crate (since 1.10), so they stay bare.
    if b.is_ascii_alphanumeric() || matches!(b, b'_' | b' ' | b'<' | b'>') {
        out.push(b as char);
    } else if b.is_ascii_graphic() {
        out.push('\\');
        out.push(b as char);
    } else {
        out.push_str(&format!("\\x{:02x}", b));
    }
}

/// Escapes a byte string so that it matches itself literally.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        escape_byte(&mut s, b);
    }
    s
}

const CLASSES: &[&str] =
    &["alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit"];

/// Maximum bound in `{m,n}` (`RE_DUP_MAX`).
const DUP_MAX: u32 = 255;

struct Tr<'a> {
    s: &'a [u8],
    i: usize,
    out: String,
}

impl Tr<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    /// Parses alternatives until `stop` (or the end).
    fn ere(&mut self, stop: Option<u8>) -> Result<(), String> {
        loop {
            let start = self.i;
            while let Some(c) = self.peek() {
                if c == b'|' || Some(c) == stop {
                    break;
                }
                self.exp()?;
            }
            if self.i == start {
                return Err("empty (sub)expression".into());
            }
            if self.peek() == Some(b'|') {
                self.i += 1;
                self.out.push('|');
                continue;
            }
            return Ok(());
        }
    }

    /// Parses one atom plus an optional repetition.
    fn exp(&mut self) -> Result<(), String> {
        let c = self.peek().expect("caller checked");
        self.i += 1;
        let mut was_caret = false;
        match c {
            b'(' => {
                if self.peek().is_none() {
                    return Err("parentheses not balanced".into());
                }
                self.out.push_str("(?:");
                if self.peek() != Some(b')') {
                    self.ere(Some(b')'))?;
                }
                if self.peek() != Some(b')') {
                    return Err("parentheses not balanced".into());
                }
                self.i += 1;
                self.out.push(')');
            }
            b')' => return Err("parentheses not balanced".into()),
            b'^' => {
                self.out.push('^');
                was_caret = true;
            }
            b'$' => self.out.push('$'),
            b'|' => return Err("empty (sub)expression".into()),
            b'*' | b'+' | b'?' => return Err("repetition-operator operand invalid".into()),
            b'.' => self.out.push('.'),
            b'[' => self.bracket()?,
            b'\\' => {
                let Some(n) = self.peek() else {
                    return Err("trailing backslash (\\)".into());
                };
                self.i += 1;
                if (b'1'..=b'9').contains(&n) {
                    return Err("back-references are not supported by morf-filecheck".into());
                }
                escape_byte(&mut self.out, n);
            }
            b'{' => {
                if self.peek().is_some_and(|d| d.is_ascii_digit()) {
                    return Err("repetition-operator operand invalid".into());
                }
                self.out.push_str("\\{");
            }
            _ => escape_byte(&mut self.out, c),
        }
        let Some(c) = self.peek() else {
            return Ok(());
        };
        let is_bound = |t: &Self| t.peek() == Some(b'{') && t.s.get(t.i + 1).is_some_and(|d| d.is_ascii_digit());
        if !(c == b'*' || c == b'+' || c == b'?' || is_bound(self)) {
            return Ok(());
        }
        if was_caret {
            return Err("repetition-operator operand invalid".into());
        }
        self.i += 1;
        match c {
            b'*' | b'+' | b'?' => self.out.push(c as char),
            _ => {
                let lo = self.number()?;
                let mut hi = Some(lo);
                if self.peek() == Some(b',') {
                    self.i += 1;
                    hi = if self.peek().is_some_and(|d| d.is_ascii_digit()) { Some(self.number()?) } else { None };
                }
                if let Some(h) = hi {
                    if lo > h {
                        return Err("invalid repetition count(s)".into());
                    }
                }
                if self.peek() != Some(b'}') {
                    return Err("braces not balanced".into());
                }
                self.i += 1;
                match hi {
                    Some(h) if h == lo => self.out.push_str(&format!("{{{lo}}}")),
                    Some(h) => self.out.push_str(&format!("{{{lo},{h}}}")),
                    None => self.out.push_str(&format!("{{{lo},}}")),
                }
            }
        }
        if let Some(c) = self.peek() {
            if c == b'*' || c == b'+' || c == b'?' || is_bound(self) {
                return Err("repetition-operator operand invalid".into());
            }
        }
        Ok(())
    }

    fn number(&mut self) -> Result<u32, String> {
        let mut n: u32 = 0;
        while let Some(d) = self.peek().filter(u8::is_ascii_digit) {
            n = n.saturating_mul(10).saturating_add(u32::from(d - b'0'));
            self.i += 1;
        }
        if n > DUP_MAX {
            return Err("invalid repetition count(s)".into());
        }
        Ok(n)
    }

    fn bracket(&mut self) -> Result<(), String> {
        let rest = &self.s[self.i..];
        if rest.starts_with(b"[:<:]]") {
            self.i += 6;
            self.out.push_str("\\b{start}");
            return Ok(());
        }
        if rest.starts_with(b"[:>:]]") {
            self.i += 6;
            self.out.push_str("\\b{end}");
            return Ok(());
        }
        let mut cls = String::from("[");
        let negated = self.peek() == Some(b'^');
        if negated {
            self.i += 1;
            cls.push('^');
        }
        let mut first = true;
        loop {
            let Some(c) = self.peek() else {
                return Err("brackets ([ ]) not balanced".into());
            };
            if c == b']' && !first {
                self.i += 1;
                break;
            }
            first = false;
            // Start of a range or single element.
            let lo = self.bracket_elem(&mut cls)?;
            let Some(lo) = lo else { continue };
            if self.peek() == Some(b'-') && self.s.get(self.i + 1).is_some_and(|&n| n != b']') {
                self.i += 1;
                let mut scratch = String::new();
                let Some(hi) = self.bracket_elem(&mut scratch)? else {
                    return Err("invalid character range".into());
                };
                if lo > hi {
                    return Err("invalid character range".into());
                }
                cls.push_str(&format!("\\x{:02x}-\\x{:02x}", lo, hi));
            } else {
                cls.push_str(&format!("\\x{:02x}", lo));
            }
        }
        if negated {
            cls.push_str("\\n");
        }
        cls.push(']');
        self.out.push_str(&cls);
        Ok(())
    }

    /// Parses one bracket element; returns the byte for a plain character (so
    /// that it may start a range) or `None` for a class, which it emits.
    fn bracket_elem(&mut self, cls: &mut String) -> Result<Option<u8>, String> {
        let rest = &self.s[self.i..];
        if rest.starts_with(b"[:") {
            let end = find(&rest[2..], b":]").ok_or("brackets ([ ]) not balanced")?;
            let name = std::str::from_utf8(&rest[2..2 + end]).unwrap_or("");
            if !CLASSES.contains(&name) {
                return Err("invalid character class".into());
            }
            cls.push_str(&format!("[:{name}:]"));
            self.i += 2 + end + 2;
            return Ok(None);
        }
        if rest.starts_with(b"[=") || rest.starts_with(b"[.") {
            let close = if rest[1] == b'=' { b"=]" } else { b".]" };
            let end = find(&rest[2..], close).ok_or("brackets ([ ]) not balanced")?;
            if end != 1 {
                return Err("invalid collating element".into());
            }
            let b = rest[2];
            self.i += 2 + end + 2;
            return Ok(Some(b));
        }
        self.i += 1;
        Ok(Some(rest[0]))
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Translates an LLVM/POSIX ERE into `regex` crate syntax, or returns the
/// error message LLVM would print after `invalid regex: `.
pub fn translate(ere: &[u8]) -> Result<String, String> {
    let mut t = Tr { s: ere, i: 0, out: String::new() };
    t.ere(None)?;
    if t.i != ere.len() {
        return Err("parentheses not balanced".into());
    }
    Ok(t.out)
}

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn basics() {
        assert_eq!(translate(b"a|b").unwrap(), "a|b");
        assert!(translate(b"a||b").is_err());
        assert!(translate(b"").is_err());
        assert!(translate(b"a**").is_err());
        assert_eq!(translate(b"\\d").unwrap(), "d");
        assert_eq!(translate(b"a{").unwrap(), "a\\{");
        assert_eq!(translate(b"()").unwrap(), "(?:)");
        assert!(translate(b"(|a)").is_err());
        assert!(translate(b"[[:foo:]]").is_err());
        assert!(translate(b"a{300}").is_err());
        assert_eq!(translate(b"[^x]").unwrap(), "[^\\x78\\n]");
    }
}
