fn main() {
    std::process::exit(morf_opt::main_with_args(std::env::args_os().collect()));
}
