//! Parsing of lit directives (`RUN:`, `REQUIRES:`, `UNSUPPORTED:`, `XFAIL:`)
//! out of a test file, the `%` substitutions of RUN lines, and the feature
//! expressions of `REQUIRES:`-style directives.

use std::fmt;
use std::path::Path;

/// One command of a test: a `RUN:` line, with its `\` continuations joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLine {
    /// 1-based line number of the first `RUN:` line of the command.
    pub line: usize,
    /// The command as written, before substitution.
    pub command: String,
}

/// The directives of one test file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Directives {
    /// The commands, in file order.
    pub run: Vec<RunLine>,
    /// Each `REQUIRES:` item (comma-separated); all must hold.
    pub requires: Vec<String>,
    /// Each `UNSUPPORTED:` item; the test is skipped if any holds.
    pub unsupported: Vec<String>,
    /// Each `XFAIL:` item; the test is expected to fail if any holds (`*` always holds).
    pub xfail: Vec<String>,
}

/// An error in a test file's directives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number the error is on (0 if it concerns the whole file).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for ParseError {}

const KEYWORDS: [&str; 4] = ["RUN:", "REQUIRES:", "UNSUPPORTED:", "XFAIL:"];

/// Finds a directive on `line`: the keyword must come after nothing but a
/// comment leader (whitespace and punctuation such as `//`, `#`, `;`), so that
/// e.g. `// CHECK: RUN:` is not a RUN line. Returns the keyword and the rest.
fn find_directive(line: &str) -> Option<(&'static str, &str)> {
    let start = line.char_indices().find(|&(_, c)| c.is_alphanumeric() || c == '_').map(|(i, _)| i)?;
    let rest = &line[start..];
    KEYWORDS.iter().find(|k| rest.starts_with(**k)).map(|k| (*k, &rest[k.len()..]))
}

fn split_list(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

/// Parses the directives of a test file's text.
///
/// A `RUN:` line ending in `\` continues on the next `RUN:` line (joined with
/// a space). A file without any RUN line is an error.
pub fn parse_directives(text: &str) -> Result<Directives, ParseError> {
    let mut d = Directives::default();
    // A RUN command still being continued: (first line, text so far).
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let lineno = i + 1;
        let Some((kw, rest)) = find_directive(raw) else {
            if let Some((start, _)) = pending {
                return Err(ParseError {
                    line: lineno,
                    message: format!("the RUN line at line {start} ends in '\\' but this line is not a RUN line"),
                });
            }
            continue;
        };
        if kw != "RUN:" {
            if let Some((start, _)) = pending {
                return Err(ParseError {
                    line: lineno,
                    message: format!("the RUN line at line {start} ends in '\\' but this line is not a RUN line"),
                });
            }
        }
        match kw {
            "RUN:" => {
                let body = rest.trim();
                let (body, continues) = match body.strip_suffix('\\') {
                    Some(b) => (b.trim_end(), true),
                    None => (body, false),
                };
                let (start, mut cmd) = pending.take().unwrap_or((lineno, String::new()));
                if !cmd.is_empty() && !body.is_empty() {
                    cmd.push(' ');
                }
                cmd.push_str(body);
                if continues {
                    pending = Some((start, cmd));
                } else if cmd.is_empty() {
                    return Err(ParseError { line: start, message: "empty RUN line".into() });
                } else {
                    d.run.push(RunLine { line: start, command: cmd });
                }
            }
            "REQUIRES:" => d.requires.extend(split_list(rest)),
            "UNSUPPORTED:" => d.unsupported.extend(split_list(rest)),
            "XFAIL:" => d.xfail.extend(split_list(rest)),
            _ => unreachable!(),
        }
    }
    if let Some((start, _)) = pending {
        return Err(ParseError {
            line: start,
            message: "the last RUN line ends in '\\' (a continuation with nothing after it)".into(),
        });
    }
    if d.run.is_empty() {
        return Err(ParseError {
            line: 0,
            message: "no RUN line in the test file (every .mlir file under test/ is a test; \
                      put shared inputs in a folder named Inputs)"
                .into(),
        });
    }
    Ok(d)
}

/// The values that `%` substitutions expand to for one test file.
#[derive(Debug, Clone)]
pub struct Substitutions {
    /// `%s`: the absolute path of the test file.
    pub source: String,
    /// `%S` and `%p`: the directory of the test file.
    pub source_dir: String,
    /// `%t`: a temporary path unique to this test file.
    pub temp: String,
    /// `%T`: the directory `%t` is in.
    pub temp_dir: String,
}

impl Substitutions {
    /// The substitutions for test file `source` with temporary path `temp`.
    pub fn new(source: &Path, temp: &Path) -> Self {
        let dir = |p: &Path| p.parent().map(|d| d.display().to_string()).unwrap_or_default();
        Substitutions {
            source: source.display().to_string(),
            source_dir: dir(source),
            temp: temp.display().to_string(),
            temp_dir: dir(temp),
        }
    }

    /// Expands `%s`, `%S`, `%p`, `%t`, `%T` and `%%` in `command`, in one
    /// left-to-right pass (so `%%s` is a literal `%s`). Any other `%` is kept.
    pub fn apply(&self, command: &str) -> String {
        let mut out = String::with_capacity(command.len());
        let mut chars = command.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let rep = match chars.peek() {
                Some('s') => Some(self.source.as_str()),
                Some('S') | Some('p') => Some(self.source_dir.as_str()),
                Some('t') => Some(self.temp.as_str()),
                Some('T') => Some(self.temp_dir.as_str()),
                Some('%') => Some("%"),
                _ => None,
            };
            match rep {
                Some(r) => {
                    out.push_str(r);
                    chars.next();
                }
                None => out.push('%'),
            }
        }
        out
    }
}

/// Evaluates one feature expression of a `REQUIRES:`/`UNSUPPORTED:`/`XFAIL:`
/// item: `a || b && !c` (`&&` binds tighter; no parentheses), where `*` is
/// always true and other names are asked of `has`.
pub fn eval_feature_expr(expr: &str, has: &dyn Fn(&str) -> bool) -> Result<bool, String> {
    if expr.contains('(') || expr.contains(')') {
        return Err(format!("parentheses are not supported in feature expression '{expr}'"));
    }
    let mut any = false;
    for alt in expr.split("||") {
        let mut all = true;
        for atom in alt.split("&&") {
            let atom = atom.trim();
            let (neg, name) = match atom.strip_prefix('!') {
                Some(n) => (true, n.trim()),
                None => (false, atom),
            };
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || "-_.+*".contains(c)) {
                return Err(format!("bad feature name '{name}' in '{expr}'"));
            }
            let v = name == "*" || has(name);
            all &= v != neg;
        }
        any |= all;
    }
    Ok(any)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_lines_and_continuations() {
        let text = "// RUN: morf-opt %s \\\n//   RUN:   | FileCheck %s\n\
                    // CHECK: RUN: not a directive\n# RUN: echo two\n";
        let d = parse_directives(text).unwrap();
        assert_eq!(
            d.run,
            vec![
                RunLine { line: 1, command: "morf-opt %s | FileCheck %s".into() },
                RunLine { line: 4, command: "echo two".into() },
            ]
        );
    }

    #[test]
    fn dangling_continuation_is_an_error() {
        let e = parse_directives("// RUN: echo \\\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = parse_directives("// RUN: echo \\\n// CHECK: x\n").unwrap_err();
        assert_eq!(e.line, 2);
    }

    #[test]
    fn no_run_line_is_an_error() {
        let e = parse_directives("// CHECK: hello\n").unwrap_err();
        assert!(e.message.contains("no RUN line"), "{e}");
    }

    #[test]
    fn requires_unsupported_xfail() {
        let text = "// REQUIRES: numpy, cuda\n// REQUIRES: llvm-filecheck\n\
                    // UNSUPPORTED: foo\n// XFAIL: *\n// RUN: true\n";
        let d = parse_directives(text).unwrap();
        assert_eq!(d.requires, vec!["numpy", "cuda", "llvm-filecheck"]);
        assert_eq!(d.unsupported, vec!["foo"]);
        assert_eq!(d.xfail, vec!["*"]);
    }

    #[test]
    fn feature_expressions() {
        let has = |f: &str| f == "numpy";
        assert!(eval_feature_expr("numpy", &has).unwrap());
        assert!(!eval_feature_expr("cuda", &has).unwrap());
        assert!(eval_feature_expr("!cuda", &has).unwrap());
        assert!(eval_feature_expr("cuda || numpy", &has).unwrap());
        assert!(!eval_feature_expr("cuda && numpy", &has).unwrap());
        assert!(eval_feature_expr("*", &has).unwrap());
        assert!(eval_feature_expr("(numpy)", &has).is_err());
    }

    #[test]
    fn substitutions() {
        let s = Substitutions::new(
            Path::new("/repo/test/Dialect/a.mlir"),
            Path::new("/repo/target/lit-tmp/Dialect/a.mlir.tmp"),
        );
        assert_eq!(
            s.apply("morf-opt %s -o %t.out && ls %S %p %T | grep 100%% %%s %x"),
            "morf-opt /repo/test/Dialect/a.mlir -o /repo/target/lit-tmp/Dialect/a.mlir.tmp.out \
             && ls /repo/test/Dialect /repo/test/Dialect /repo/target/lit-tmp/Dialect \
             | grep 100% %s %x"
        );
    }
}
