//! `morf-filecheck`: an implementation of LLVM FileCheck's semantics (as of
//! LLVM 22), usable as a library ([`check`]) and as a command-line drop-in
//! for `FileCheck` ([`main_with_args`], binary `morf-filecheck`).
//!
//! The goal is to never accept an input that LLVM's FileCheck rejects; see
//! the crate README for the supported feature set and known differences.
#![warn(missing_docs)]

mod cli;
pub mod diag;
pub mod directive;
pub mod ere;
pub mod matcher;
pub mod numeric;
pub mod pattern;

use std::fmt;

pub use cli::main_with_args;

use diag::Diags;
use directive::{read_check_file, ReadOpts};
use matcher::Matcher;
use numeric::parse_variable;
use pattern::{Context, PatOpts};

/// Options of one FileCheck run (the command-line flags).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--check-prefix`/`--check-prefixes`; empty means the default `CHECK`.
    pub check_prefixes: Vec<String>,
    /// `--comment-prefixes`; empty means the default `COM,RUN`.
    pub comment_prefixes: Vec<String>,
    /// `--implicit-check-not` patterns.
    pub implicit_check_not: Vec<String>,
    /// `--allow-empty`: accept an empty input.
    pub allow_empty: bool,
    /// `--allow-unused-prefixes`.
    pub allow_unused_prefixes: bool,
    /// `--strict-whitespace`: no horizontal-whitespace canonicalisation.
    pub strict_whitespace: bool,
    /// `--match-full-lines`.
    pub match_full_lines: bool,
    /// `--ignore-case`.
    pub ignore_case: bool,
    /// `--enable-var-scope`: forget local variables at each CHECK-LABEL.
    pub enable_var_scope: bool,
    /// `--allow-deprecated-dag-overlap`.
    pub allow_deprecated_dag_overlap: bool,
    /// `-D NAME=VALUE` definitions; a name starting with `#` (e.g.
    /// `#%x,N` or `#N`) defines a numeric variable from an expression.
    pub defines: Vec<(String, String)>,
}

impl Options {
    /// Options with the given check prefix and everything else default.
    pub fn with_prefix(prefix: &str) -> Options {
        Options { check_prefixes: vec![prefix.to_string()], ..Options::default() }
    }
}

/// A failed run: the exit code FileCheck would use (1 for a check failure,
/// 2 for an invalid check file, options or empty input) and the diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// 1 for check failures, 2 for usage/check-file errors.
    pub exit_code: i32,
    /// The full diagnostic text.
    pub message: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// Canonicalises a buffer like LLVM: drops the `\r` of `\r\n` and, unless
/// `strict`, folds runs of spaces and tabs into one space.
pub fn canonicalize(buf: &[u8], strict: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(buf.len());
    let mut i = 0;
    while i < buf.len() {
        let b = buf[i];
        if b == b'\r' && buf.get(i + 1) == Some(&b'\n') {
            i += 1;
            continue;
        }
        if strict || (b != b' ' && b != b'\t') {
            out.push(b);
            i += 1;
            continue;
        }
        out.push(b' ');
        while i + 1 < buf.len() && (buf[i + 1] == b' ' || buf[i + 1] == b'\t') {
            i += 1;
        }
        i += 1;
    }
    out
}

fn fail(code: i32, message: String) -> Result<(), Failure> {
    Err(Failure { exit_code: code, message })
}

fn validate_prefixes(opts: &Options) -> Result<(), String> {
    let mut seen = std::collections::HashSet::new();
    for (kind, list) in [("check", &opts.check_prefixes), ("comment", &opts.comment_prefixes)] {
        for p in list {
            if p.is_empty() {
                return Err(format!("error: supplied {kind} prefix must not be the empty string\n"));
            }
            if !p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
                return Err(format!(
                    "error: supplied {kind} prefix must start with a letter and contain only alphanumeric characters, hyphens, and underscores: '{p}'\n"
                ));
            }
            if !seen.insert(p.clone()) {
                return Err(format!(
                    "error: supplied {kind} prefix must be unique among check and comment prefixes: '{p}'\n"
                ));
            }
        }
    }
    Ok(())
}

fn define_vars(opts: &Options, ctx: &mut Context) -> Result<(), String> {
    for (name, value) in &opts.defines {
        let shown = format!("-D{name}={value}");
        if let Some(num) = name.strip_prefix('#') {
            let text = format!("{num}:{value}");
            let string_defined = ctx.string_defined.clone();
            let block = numeric::parse_block(&text, false, None, &mut ctx.nums, &|n| string_defined.contains(n))
                .map_err(|(_, m)| format!("command line: error: {m} in '{shown}'\n"))?;
            let (Some(def), Some(expr)) = (block.def, block.expr) else {
                return Err(format!("command line: error: invalid numeric variable definition '{shown}'\n"));
            };
            let v =
                expr.eval(&ctx.nums).map_err(|e| format!("command line: error: {} in '{shown}'\n", e.join(", ")))?;
            if let Some(var) = ctx.nums.get_mut(&def) {
                var.value = Some(v);
            }
        } else {
            match parse_variable(name) {
                Ok((n, false, "")) => {
                    if ctx.nums.contains_key(n) {
                        return Err(format!("command line: error: numeric variable with name '{n}' already exists\n"));
                    }
                    ctx.string_defined.insert(n.to_string());
                    ctx.strings.insert(n.to_string(), value.as_bytes().to_vec());
                }
                _ => return Err(format!("command line: error: invalid name in string variable definition '{name}'\n")),
            }
        }
    }
    Ok(())
}

/// Runs FileCheck: checks `input` against the directives in `check_text`.
/// The names are used in diagnostics only.
pub fn check(
    check_file_name: &str,
    check_text: &str,
    input_name: &str,
    input: &str,
    opts: &Options,
) -> Result<(), Failure> {
    check_bytes(check_file_name, check_text.as_bytes(), input_name, input.as_bytes(), opts)
}

/// Like [`check`], on raw bytes.
pub fn check_bytes(
    check_file_name: &str,
    check_text: &[u8],
    input_name: &str,
    input: &[u8],
    opts: &Options,
) -> Result<(), Failure> {
    let mut opts = opts.clone();
    let default_prefix = opts.check_prefixes.is_empty();
    if default_prefix {
        opts.check_prefixes.push("CHECK".into());
    }
    if opts.comment_prefixes.is_empty() {
        opts.comment_prefixes = vec!["COM".into(), "RUN".into()];
    }
    if let Err(m) = validate_prefixes(&opts) {
        return fail(2, m);
    }
    let mut ctx = Context::default();
    if let Err(m) = define_vars(&opts, &mut ctx) {
        return fail(2, m);
    }
    let mut diags = Diags::default();
    let check_src = diags.add(check_file_name, canonicalize(check_text, opts.strict_whitespace));
    let read = ReadOpts {
        check_prefixes: opts.check_prefixes.clone(),
        default_prefix,
        comment_prefixes: opts.comment_prefixes.clone(),
        implicit_check_not: opts.implicit_check_not.clone(),
        allow_unused_prefixes: opts.allow_unused_prefixes,
        pat: PatOpts {
            strict_whitespace: opts.strict_whitespace,
            match_full_lines: opts.match_full_lines,
            ignore_case: opts.ignore_case,
        },
    };
    let Some(checks) = read_check_file(&mut diags, check_src, &read, &mut ctx) else {
        return fail(2, diags.out);
    };
    if input.is_empty() && !opts.allow_empty {
        return fail(2, format!("FileCheck error: '{input_name}' is empty.\n"));
    }
    let input_src = diags.add(input_name, canonicalize(input, opts.strict_whitespace));
    let ok = Matcher {
        diags: &mut diags,
        input_src,
        ctx: &mut ctx,
        allow_dag_overlap: opts.allow_deprecated_dag_overlap,
        enable_var_scope: opts.enable_var_scope,
    }
    .check_input(&checks);
    if ok {
        Ok(())
    } else {
        fail(1, diags.out)
    }
}

/// Returns the `Input was:` dump FileCheck prints on failure (simplified:
/// numbered lines, without annotations).
pub fn dump_input(input_name: &str, check_name: &str, input: &[u8]) -> String {
    let mut s = format!("\nInput file: {input_name}\nCheck file: {check_name}\n\nInput was:\n<<<<<<\n");
    let text = String::from_utf8_lossy(input);
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    for (i, l) in lines.iter().enumerate() {
        s.push_str(&format!("{:>10}: {}\n", i + 1, l));
    }
    s.push_str(">>>>>>\n");
    s
}
