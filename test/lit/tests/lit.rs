//! The lit suite: one libtest trial per `*.mlir` file under the repo's `test/`
//! (folders named `Inputs` are skipped), named by its path relative to `test/`,
//! so `cargo test -p morf-lit -- Dialect/Tensor` runs only those files.
//!
//! Environment: `MORF_FILECHECK` (path of LLVM's FileCheck to use instead of
//! morf-filecheck; enables the `llvm-filecheck` feature), `MORF_LIT_TIMEOUT`
//! (per-command timeout in seconds, default 120), `MORF_LIT_FEATURES` (extra
//! features, comma-separated).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use morf_lit::{Config, Features, TestCase};

fn main() {
    let args = Arguments::from_args();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repo = repo.canonicalize().unwrap_or(repo);
    let test_root = repo.join("test");
    // CARGO_TARGET_TMPDIR is <target>/tmp; put ours beside it.
    let target_tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let tmp_root = target_tmp.parent().unwrap_or(&target_tmp).join("lit-tmp");
    let bin_dir = tmp_root.join(format!(".bin-{}", std::process::id()));
    let filecheck = std::env::var_os("MORF_FILECHECK").filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(fc) = &filecheck {
        assert!(fc.is_file(), "MORF_FILECHECK={} is not a file", fc.display());
    }
    morf_lit::make_bin_dir(&bin_dir, Path::new(env!("CARGO_BIN_EXE_morf-lit-tools")), filecheck.as_deref())
        .unwrap_or_else(|e| panic!("cannot make {}: {e}", bin_dir.display()));

    let config = Arc::new(Config {
        test_root: test_root.clone(),
        tmp_root,
        bin_dir: bin_dir.clone(),
        timeout: morf_lit::timeout_from_env(),
        features: Features::from_env(),
    });
    let files = morf_lit::discover(&test_root).unwrap_or_else(|e| panic!("cannot list {}: {e}", test_root.display()));
    let trials = files
        .into_iter()
        .map(|path| {
            let config = Arc::clone(&config);
            let name = path.strip_prefix(&config.test_root).unwrap_or(&path).to_string_lossy().into_owned();
            Trial::ignorable_test(name, move || {
                let case = TestCase::load(&config, &path);
                if let Some(reason) = &case.skip {
                    return Ok(Completion::ignored_with(reason));
                }
                case.run(&config).map_err(Failed::from)?;
                Ok(Completion::Completed)
            })
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    let _ = std::fs::remove_dir_all(&bin_dir);
    conclusion.exit();
}
