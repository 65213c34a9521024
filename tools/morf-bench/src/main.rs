fn main() {
    std::process::exit(morf_bench::main_with_args(std::env::args_os().collect()));
}
