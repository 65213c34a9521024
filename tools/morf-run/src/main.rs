fn main() {
    std::process::exit(morf_run::main_with_args(std::env::args_os().collect()));
}
