//! placeholder: the morf-opt driver (the lead fills this in).

/// Runs morf-opt with the given command line (argv[0] first) and returns the process exit code.
pub fn main_with_args(args: Vec<std::ffi::OsString>) -> i32 {
    let _ = args;
    eprintln!("morf-opt: not implemented yet");
    1
}
