//! Runs the standalone example end to end (see [`morf_standalone::run_example`]) and
//! prints `ok` when the simulator agrees with the interpreter.

fn main() {
    match morf_standalone::run_example(64) {
        Ok((ptx, diff)) if diff <= 1e-6 => {
            let kernels = ptx.matches(".entry").count();
            println!("{kernels} kernel(s), max |sim - interp| = {diff:e}");
            println!("ok");
        }
        Ok((_, diff)) => {
            eprintln!("error: the simulator differs from the interpreter by {diff:e}");
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
