//! placeholder: the morf-run driver (the lead fills this in).

pub mod npy;

/// Runs morf-run with the given command line (argv[0] first) and returns the process exit code.
pub fn main_with_args(args: Vec<std::ffi::OsString>) -> i32 {
    let _ = args;
    eprintln!("morf-run: not implemented yet");
    1
}
