//! The `morf-filecheck` binary: a drop-in for LLVM's `FileCheck`.

fn main() {
    std::process::exit(morf_filecheck::main_with_args(std::env::args().collect()));
}
