//! Writes the seed corpus of every fuzz target into `DIR/<target>/` (default `fuzz/corpus`),
//! the layout `cargo fuzz run <target>` reads. `fuzz/seed.sh` runs it.

fn main() {
    let dir = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| morf_fuzz_targets::corpus::repo_root().join("fuzz/corpus"));
    match morf_fuzz_targets::corpus::write_corpus(&dir) {
        Ok(n) => println!("wrote {n} seed files under {}", dir.display()),
        Err(e) => {
            eprintln!("morf-fuzz-corpus: error: {}: {e}", dir.display());
            std::process::exit(1);
        }
    }
}
