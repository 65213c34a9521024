//! Records the commit the engine is built from, for the reports that carry figures
//! (`morf_engine::BUILD_COMMIT`): `git rev-parse --short=12 HEAD`, with `-dirty` when the
//! workspace's sources differ from it, `unknown` outside a git checkout. Rerun when the
//! sources or the checkout's HEAD change, so a binary built from uncommitted sources says so.

use std::path::Path;
use std::process::Command;

/// The workspace directories and files whose edits make a build differ from its commit.
const SOURCES: &[&str] = &["compiler", "dialects", "passes", "runtime", "tools", "Cargo.toml", "Cargo.lock"];

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(root).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // Only paths that exist: cargo reruns a build script whose watched path is missing on
    // every build (outside a checkout, or where `.git` is a file).
    for f in SOURCES.iter().chain(&[".git/HEAD", ".git/index", ".git/logs/HEAD"]) {
        let path = root.join(f);
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    let commit = match git(&root, &["rev-parse", "--short=12", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            let mut args = vec!["status", "--porcelain", "--untracked-files=no", "--"];
            args.extend(SOURCES);
            match git(&root, &args) {
                Some(s) if s.is_empty() => c,
                _ => format!("{c}-dirty"),
            }
        }
        _ => "unknown".to_string(),
    };
    println!("cargo:rustc-env=MORF_BUILD_COMMIT={commit}");
}
