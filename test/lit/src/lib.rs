//! morf-lit: a small LLVM-lit-style runner for morf's `.mlir` tests.
//!
//! Every `*.mlir` file under the repository's `test/` folder (except in
//! folders named `Inputs`) is a test. Its `RUN:` lines are shell commands run
//! with `bash -o pipefail -c`, with `morf-opt`, `morf-run`, `FileCheck` and
//! `not` first on `PATH`. See `test/lit/README.md` for the directives.
//!
//! The integration test `tests/lit.rs` turns each file into one libtest trial;
//! the binary `morf-lit-tools` is the multicall program behind the tool names.

pub mod exec;
pub mod not;
pub mod parse;

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

pub use parse::{Directives, ParseError, RunLine, Substitutions};

/// The names under which the multicall binary is put on `PATH`.
pub const TOOL_NAMES: [&str; 4] = ["morf-opt", "morf-run", "FileCheck", "not"];

/// The default per-command timeout, in seconds (override: `MORF_LIT_TIMEOUT`).
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;

/// The features that `REQUIRES:`, `UNSUPPORTED:` and `XFAIL:` can name.
#[derive(Debug, Default)]
pub struct Features {
    /// `llvm-filecheck`: LLVM's FileCheck is used instead of morf-filecheck.
    pub llvm_filecheck: bool,
    /// Extra features that hold (from `MORF_LIT_FEATURES`, comma-separated).
    pub extra: Vec<String>,
    numpy: OnceLock<bool>,
    cuda: OnceLock<bool>,
    ptxas: OnceLock<bool>,
}

impl Features {
    /// Features from the environment: `MORF_FILECHECK` and `MORF_LIT_FEATURES`.
    pub fn from_env() -> Self {
        Features {
            llvm_filecheck: std::env::var_os("MORF_FILECHECK").is_some_and(|v| !v.is_empty()),
            extra: std::env::var("MORF_LIT_FEATURES")
                .unwrap_or_default()
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            numpy: OnceLock::new(),
            cuda: OnceLock::new(),
            ptxas: OnceLock::new(),
        }
    }

    /// Whether feature `name` holds. `numpy` is checked (once) by asking
    /// python3 to import numpy and ml_dtypes; `mlir-opt` holds when upstream MLIR's
    /// `mlir-opt` is at `MORF_MLIR_OPT` or `/usr/lib/llvm-22/bin/mlir-opt` (Debian's
    /// `mlir-22-tools`); `mlir` holds when the tools are built with MLIR (morf-opt's cargo
    /// feature `mlir`: `--emit=mlir`, `--import=mlir`); `cuda` holds when the CUDA driver library (`libcuda.so.1`) is
    /// installed, as the tools' GPU paths check too; `ptxas` when a `ptxas` is found
    /// (`MORF_PTXAS`, the `nvidia-cuda-nvcc` wheel, `PATH`).
    pub fn has(&self, name: &str) -> bool {
        if self.extra.iter().any(|e| e == name) {
            return true;
        }
        match name {
            "llvm-filecheck" => self.llvm_filecheck,
            "numpy" => *self.numpy.get_or_init(|| {
                std::process::Command::new("python3")
                    .args(["-c", "import numpy, ml_dtypes"])
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .status()
                    .is_ok_and(|s| s.success())
            }),
            "mlir-opt" => mlir_opt_path().is_some(),
            "mlir" => morf_opt::mlir_available(),
            "cuda" => *self.cuda.get_or_init(cuda_driver_present),
            "ptxas" => *self.ptxas.get_or_init(morf_opt::ptxas_available),
            _ => false,
        }
    }
}

/// Whether the CUDA driver library is installed (the dynamic loader knows `libcuda.so.1`).
fn cuda_driver_present() -> bool {
    let known =
        ["/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1", "/usr/local/nvidia/lib64/libcuda.so.1"];
    if known.iter().any(|p| std::path::Path::new(p).exists()) {
        return true;
    }
    std::process::Command::new("ldconfig")
        .arg("-p")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("libcuda.so.1"))
}

/// Upstream `mlir-opt`, if installed: `MORF_MLIR_OPT`, else Debian's LLVM 22 path.
pub fn mlir_opt_path() -> Option<PathBuf> {
    let p = std::env::var_os("MORF_MLIR_OPT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/bin/mlir-opt"));
    p.is_file().then_some(p)
}

/// Where things are for a test run.
#[derive(Debug)]
pub struct Config {
    /// The folder whose `*.mlir` files are the tests (the repo's `test/`).
    pub test_root: PathBuf,
    /// The folder under which `%t` paths are made.
    pub tmp_root: PathBuf,
    /// The folder holding the tool links, put first on `PATH`.
    pub bin_dir: PathBuf,
    /// The per-command timeout.
    pub timeout: Duration,
    /// The available features.
    pub features: Features,
}

/// Reads the per-command timeout from `MORF_LIT_TIMEOUT` (seconds).
pub fn timeout_from_env() -> Duration {
    let secs = std::env::var("MORF_LIT_TIMEOUT")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&s| s > 0)
        .unwrap_or(DEFAULT_TIMEOUT_SECS);
    Duration::from_secs(secs)
}

/// Finds every `*.mlir` file under `root`, skipping folders named `Inputs`
/// and hidden folders; returns them sorted.
pub fn discover(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if entry.file_type()?.is_dir() {
                if name != "Inputs" && !name.starts_with('.') {
                    walk(&path, out)?;
                }
            } else if name.ends_with(".mlir") {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, &mut out)?;
    out.sort();
    Ok(out)
}

/// Makes `bin_dir` (anew) with links named [`TOOL_NAMES`] to `tools_exe`,
/// except `FileCheck`, which links to `filecheck` when given.
pub fn make_bin_dir(bin_dir: &Path, tools_exe: &Path, filecheck: Option<&Path>) -> std::io::Result<()> {
    if bin_dir.exists() {
        std::fs::remove_dir_all(bin_dir)?;
    }
    std::fs::create_dir_all(bin_dir)?;
    for name in TOOL_NAMES {
        let target = match (name, filecheck) {
            ("FileCheck", Some(fc)) => fc,
            _ => tools_exe,
        };
        std::os::unix::fs::symlink(target, bin_dir.join(name))?;
    }
    Ok(())
}

/// A test file, parsed and ready to run or skip.
#[derive(Debug)]
pub struct TestCase {
    /// The path relative to the test root, with `/` separators (the trial name).
    pub name: String,
    /// The absolute path of the file.
    pub path: PathBuf,
    /// The directives, or why they could not be read.
    pub directives: Result<Directives, String>,
    /// Why the test is skipped, if it is.
    pub skip: Option<String>,
    /// Whether the test is expected to fail.
    pub xfail: bool,
}

impl TestCase {
    /// Reads and parses test file `path`, deciding skip and XFAIL with `features`.
    pub fn load(config: &Config, path: &Path) -> TestCase {
        let name = path
            .strip_prefix(&config.test_root)
            .unwrap_or(path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        // Read bytes: a test may hold invalid UTF-8 on purpose (binary-garbage inputs); its
        // directives are ASCII, so a lossy decode finds them all the same.
        let directives = std::fs::read(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))
            .and_then(|bytes| parse::parse_directives(&String::from_utf8_lossy(&bytes)).map_err(|e| e.to_string()));
        let mut case = TestCase { name, path: path.to_path_buf(), directives, skip: None, xfail: false };
        let has = |f: &str| config.features.has(f);
        let d = match &case.directives {
            Ok(d) => d.clone(),
            Err(_) => return case,
        };
        let eval = |e: &str| parse::eval_feature_expr(e, &has);
        for req in &d.requires {
            match eval(req) {
                Ok(true) => {}
                Ok(false) => {
                    case.skip = Some(format!("REQUIRES: {req} (not available)"));
                    return case;
                }
                Err(e) => {
                    case.directives = Err(e);
                    return case;
                }
            }
        }
        for uns in &d.unsupported {
            match eval(uns) {
                Ok(false) => {}
                Ok(true) => {
                    case.skip = Some(format!("UNSUPPORTED: {uns}"));
                    return case;
                }
                Err(e) => {
                    case.directives = Err(e);
                    return case;
                }
            }
        }
        for x in &d.xfail {
            match eval(x) {
                Ok(v) => case.xfail |= v,
                Err(e) => {
                    case.directives = Err(e);
                    return case;
                }
            }
        }
        case
    }

    /// The `%t` path of this test: `<tmp_root>/<name>.tmp`.
    pub fn temp_path(&self, config: &Config) -> PathBuf {
        config.tmp_root.join(format!("{}.tmp", self.name))
    }

    /// Runs the test's RUN lines in order, stopping at the first failure.
    /// `Err` holds a report naming the file, the failing line (after
    /// substitution), how it ended and its output.
    pub fn run(&self, config: &Config) -> Result<(), String> {
        let d = self.directives.as_ref().map_err(|e| format!("{}: {e}", self.path.display()))?;
        let temp = self.temp_path(config);
        let temp_dir = temp.parent().expect("a temp path has a parent");
        std::fs::create_dir_all(temp_dir).map_err(|e| format!("cannot create {}: {e}", temp_dir.display()))?;
        if temp.is_dir() {
            let _ = std::fs::remove_dir_all(&temp);
        } else {
            let _ = std::fs::remove_file(&temp);
        }
        let subst = Substitutions::new(&self.path, &temp);
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let mut path_var = OsString::from(&config.bin_dir);
        if let Some(p) = std::env::var_os("PATH") {
            path_var.push(":");
            path_var.push(p);
        }
        for (i, run) in d.run.iter().enumerate() {
            let cmd = subst.apply(&run.command);
            let output = exec::run_shell(&cmd, dir, &path_var, config.timeout)
                .map_err(|e| format!("{}: cannot run bash: {e}", self.path.display()))?;
            let timed_out = matches!(output.outcome, exec::Outcome::TimedOut(_));
            if output.outcome.success() {
                continue;
            }
            if self.xfail && !timed_out {
                return Ok(());
            }
            let mut msg = String::new();
            let _ = writeln!(msg, "{}", self.path.display());
            let _ = writeln!(
                msg,
                "RUN line {} (command {} of {}) failed: {}",
                run.line,
                i + 1,
                d.run.len(),
                output.outcome.describe()
            );
            let _ = writeln!(msg, "  $ {cmd}");
            for (label, text) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
                if !text.is_empty() {
                    let _ = writeln!(msg, "--- {label} ---\n{}", clip(text));
                }
            }
            if !config.features.llvm_filecheck {
                let _ =
                    writeln!(msg, "(to compare with LLVM's FileCheck: MORF_FILECHECK=/usr/lib/llvm-22/bin/FileCheck)");
            }
            return Err(msg);
        }
        if self.xfail {
            return Err(format!(
                "{}\nunexpectedly passed (XPASS): the test is marked XFAIL but every RUN line succeeded",
                self.path.display()
            ));
        }
        Ok(())
    }
}

/// Cuts text longer than 64 KiB to its start and end.
fn clip(text: &str) -> String {
    const MAX: usize = 64 * 1024;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut head = MAX / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - MAX / 2;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}\n[... {} bytes cut ...]\n{}", &text[..head], tail - head, &text[tail..])
}
