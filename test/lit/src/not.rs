//! lit's `not`: runs a command and inverts its result.
//!
//! `not CMD...` exits 0 iff CMD exited with a non-zero code. A CMD killed by a
//! signal (a crash, e.g. a panic that aborts) makes plain `not` fail: our tools
//! must report errors, never crash. `not --crash CMD...` exits 0 iff CMD was
//! killed by a signal.

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::process::Command;

/// Runs `not` with the given command line (`argv[0]` first); returns its exit code.
pub fn main_with_args(args: Vec<OsString>) -> i32 {
    let mut rest = args.into_iter().skip(1).peekable();
    let crash = rest.peek().is_some_and(|a| a == "--crash");
    if crash {
        rest.next();
    }
    let Some(program) = rest.next() else {
        eprintln!("usage: not [--crash] COMMAND [ARGS...]");
        return 2;
    };
    let status = match Command::new(&program).args(rest).status() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("not: cannot run '{}': {e}", program.to_string_lossy());
            return 1;
        }
    };
    match (status.code(), status.signal()) {
        (Some(code), _) if crash => {
            eprintln!("not --crash: the command exited with code {code} instead of crashing");
            1
        }
        (Some(0), _) => {
            eprintln!("not: the command succeeded (exit code 0) but was expected to fail");
            1
        }
        (Some(_), _) => 0,
        (None, _) if crash => 0,
        (None, sig) => {
            eprintln!(
                "not: the command crashed (signal {}) instead of failing with an error",
                sig.map_or_else(|| "?".to_string(), |s| s.to_string())
            );
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn not(args: &[&str]) -> i32 {
        let mut v: Vec<OsString> = vec!["not".into()];
        v.extend(args.iter().map(OsString::from));
        main_with_args(v)
    }

    #[test]
    fn inverts_exit_codes() {
        assert_eq!(not(&["false"]), 0);
        assert_eq!(not(&["true"]), 1);
        assert_eq!(not(&["sh", "-c", "exit 7"]), 0);
    }

    #[test]
    fn crashes() {
        assert_eq!(not(&["sh", "-c", "kill -ABRT $$"]), 1);
        assert_eq!(not(&["--crash", "sh", "-c", "kill -ABRT $$"]), 0);
        assert_eq!(not(&["--crash", "false"]), 1);
    }

    #[test]
    fn usage_and_missing_program() {
        assert_eq!(not(&[]), 2);
        assert_eq!(not(&["/nonexistent/program"]), 1);
    }
}
