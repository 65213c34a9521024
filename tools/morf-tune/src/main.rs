fn main() {
    std::process::exit(morf_tune::main_with_args(std::env::args_os().collect()));
}
