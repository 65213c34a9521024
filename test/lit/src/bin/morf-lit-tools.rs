//! The multicall binary behind the lit tool names: it is `morf-opt`,
//! `morf-run`, `FileCheck` or `not` depending on the basename it is called by
//! (the runner puts symlinks with those names first on `PATH`).
//!
//! Called by its own name, the first argument names the tool instead:
//! `morf-lit-tools FileCheck check.mlir < input`.
//!
//! A panic in a tool aborts the process (killed by SIGABRT), so that `not`
//! and the runner see it as a crash, never as an ordinary error exit.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

fn dispatch(mut args: Vec<OsString>) -> i32 {
    let name = args
        .first()
        .and_then(|a| Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.as_str() {
        "morf-opt" => morf_opt::main_with_args(args),
        "morf-run" => morf_run::main_with_args(args),
        "FileCheck" => {
            morf_filecheck::main_with_args(args.into_iter().map(|a| a.to_string_lossy().into_owned()).collect())
        }
        "not" => morf_lit::not::main_with_args(args),
        _ if args.len() >= 2 && morf_lit::TOOL_NAMES.iter().any(|t| args[1].to_str() == Some(t)) => {
            args.remove(0);
            dispatch(args)
        }
        _ => {
            eprintln!(
                "morf-lit-tools: called as '{name}'; call it as one of {:?} (by a link of \
                 that name, or as its first argument)",
                morf_lit::TOOL_NAMES
            );
            2
        }
    }
}

fn main() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        let _ = std::io::stdout().flush();
        std::process::abort();
    }));
    let code = dispatch(std::env::args_os().collect());
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    std::process::exit(code);
}
