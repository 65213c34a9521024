//! The `FileCheck`-compatible command line (LLVM `cl` option conventions:
//! `-opt`, `--opt`, `--opt=value`, `--opt value`, `-DNAME=VALUE`).

use std::io::{Read, Write};

use crate::{check_bytes, dump_input, Options};

const USAGE: &str = "USAGE: morf-filecheck [options] <check-file>

A drop-in for LLVM FileCheck. Options:
  --input-file=<file>            input to check (default: stdin)
  --check-prefix=<p>             check prefix (repeatable)
  --check-prefixes=<a,b>         comma-separated check prefixes
  --comment-prefixes=<a,b>       comment prefixes (default COM,RUN)
  --implicit-check-not=<pat>     add an implicit CHECK-NOT (repeatable)
  --allow-empty                  allow an empty input
  --allow-unused-prefixes        allow prefixes with no directive
  --strict-whitespace            do not canonicalise horizontal whitespace
  --match-full-lines             patterns must match whole lines
  --ignore-case                  case-insensitive matching
  --enable-var-scope             clear local variables at CHECK-LABEL
  --allow-deprecated-dag-overlap allow overlapping CHECK-DAG matches
  --dump-input=<help|always|fail|never>
  -D<VAR>=<VALUE>, -D#<VAR>=<EXPR> define a pattern variable
  -v, -vv                        accepted and ignored
";

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Dump {
    Never,
    Fail,
    Always,
    Help,
}

fn usage_error(msg: &str) -> i32 {
    eprintln!("FileCheck: {msg}");
    1
}

fn parse_bool(name: &str, v: Option<&str>) -> Result<bool, String> {
    match v {
        None | Some("true" | "TRUE" | "True" | "1") => Ok(true),
        Some("false" | "FALSE" | "False" | "0") => Ok(false),
        Some(o) => Err(format!("for the --{name} option: '{o}' is invalid value for boolean argument! Try 0 or 1")),
    }
}

fn read_path(path: &str) -> std::io::Result<Vec<u8>> {
    if path == "-" {
        let mut v = Vec::new();
        std::io::stdin().read_to_end(&mut v)?;
        Ok(v)
    } else {
        std::fs::read(path)
    }
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "Permission denied".into(),
        _ => e.to_string(),
    }
}

/// Runs the command line `args` (including the program name) and returns the
/// exit code: 0 success, 1 check failure (or bad option syntax, as LLVM), 2
/// invalid check file, input or option values.
pub fn main_with_args(args: Vec<String>) -> i32 {
    let mut opts = Options::default();
    let mut positional = Vec::new();
    let mut input_file = "-".to_string();
    let mut dumps = Vec::new();
    let mut defines = Vec::new();
    let mut it = args.into_iter().skip(1);
    let mut only_positional = false;
    while let Some(arg) = it.next() {
        if only_positional || arg == "-" || !arg.starts_with('-') {
            positional.push(arg);
            continue;
        }
        if arg == "--" {
            only_positional = true;
            continue;
        }
        let body = arg.strip_prefix("--").unwrap_or(&arg[1..]);
        if let Some(d) = body.strip_prefix('D') {
            let v = if d.is_empty() {
                match it.next() {
                    Some(v) => v,
                    None => return usage_error("for the -D option: requires a value!"),
                }
            } else {
                d.to_string()
            };
            defines.push(v);
            continue;
        }
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let takes_value = matches!(
            name,
            "check-prefix"
                | "check-prefixes"
                | "comment-prefixes"
                | "implicit-check-not"
                | "input-file"
                | "dump-input"
                | "dump-input-filter"
                | "dump-input-context"
        );
        if takes_value {
            let v = match inline {
                Some(v) => v,
                None => match it.next() {
                    Some(v) => v,
                    None => return usage_error(&format!("for the --{name} option: requires a value!")),
                },
            };
            match name {
                "check-prefix" => opts.check_prefixes.push(v),
                "check-prefixes" => opts.check_prefixes.extend(v.split(',').map(String::from)),
                "comment-prefixes" => opts.comment_prefixes.extend(v.split(',').map(String::from)),
                "implicit-check-not" => opts.implicit_check_not.push(v),
                "input-file" => input_file = v,
                "dump-input" => {
                    for d in v.split(',') {
                        dumps.push(match d {
                            "never" => Dump::Never,
                            "fail" => Dump::Fail,
                            "always" => Dump::Always,
                            "help" => Dump::Help,
                            _ => {
                                return usage_error(&format!(
                                    "for the --dump-input option: Cannot find option named '{d}'!"
                                ))
                            }
                        });
                    }
                }
                _ => {}
            }
            continue;
        }
        let flag = match name {
            "h" | "help" | "help-hidden" => {
                print!("{USAGE}");
                return 0;
            }
            "allow-empty" => &mut opts.allow_empty,
            "allow-unused-prefixes" => &mut opts.allow_unused_prefixes,
            "strict-whitespace" => &mut opts.strict_whitespace,
            "match-full-lines" => &mut opts.match_full_lines,
            "ignore-case" => &mut opts.ignore_case,
            "enable-var-scope" => &mut opts.enable_var_scope,
            "allow-deprecated-dag-overlap" => &mut opts.allow_deprecated_dag_overlap,
            "v" | "vv" | "color" => {
                if let Err(m) = parse_bool(name, inline.as_deref()) {
                    return usage_error(&m);
                }
                continue;
            }
            _ => return usage_error(&format!("Unknown command line argument '{arg}'.")),
        };
        match parse_bool(name, inline.as_deref()) {
            Ok(b) => *flag = b,
            Err(m) => return usage_error(&m),
        }
    }
    let dump = dumps.iter().copied().max().unwrap_or(Dump::Fail);
    if dump == Dump::Help {
        println!("The input dump (--dump-input) shows the numbered input lines.");
        return 0;
    }
    if positional.len() > 1 {
        return usage_error("Too many positional arguments specified!");
    }
    let Some(check_path) = positional.pop() else {
        eprintln!("<check-file> not specified");
        return 2;
    };
    let mut bad = false;
    for d in defines {
        match d.find('=') {
            None => {
                eprintln!("Missing equal sign in command-line definition '-D{d}'");
                bad = true;
            }
            Some(0) => {
                eprintln!("Missing variable name in command-line definition '-D{d}'");
                bad = true;
            }
            Some(i) => opts.defines.push((d[..i].to_string(), d[i + 1..].to_string())),
        }
    }
    if bad {
        return 2;
    }
    let check_text = match read_path(&check_path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("Could not open check file '{check_path}': {}", io_message(&e));
            return 2;
        }
    };
    let input_name = if input_file == "-" { "<stdin>".to_string() } else { input_file.clone() };
    let check_name = if check_path == "-" { "<stdin>" } else { &check_path };
    // Validate the check file before reading the input, as LLVM does.
    let pre = check_bytes(check_name, &check_text, &input_name, b"\n", &Options { allow_empty: true, ..opts.clone() });
    if let Err(f) = &pre {
        if f.exit_code == 2 {
            eprint!("{}", f.message);
            return 2;
        }
    }
    let input = match read_path(&input_file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("Could not open input file '{input_name}': {}", io_message(&e));
            return 2;
        }
    };
    let result = check_bytes(check_name, &check_text, &input_name, &input, &opts);
    let code = match &result {
        Ok(()) => 0,
        Err(f) => f.exit_code,
    };
    let mut err = std::io::stderr().lock();
    if let Err(f) = &result {
        let _ = err.write_all(f.message.as_bytes());
    }
    if dump == Dump::Always || (code == 1 && dump == Dump::Fail) {
        let canon = crate::canonicalize(&input, opts.strict_whitespace);
        let _ = err.write_all(dump_input(&input_name, check_name, &canon).as_bytes());
    }
    code
}
