//! Finding and running NVIDIA's assembler, `ptxas`, to check emitted PTX where no GPU is
//! present: the suite's assembler tests (every example, every committed tuning entry, the MLIR
//! interop path) find it with [`find_ptxas`], run it with [`assemble`] and read [`spills`].

use std::path::{Path, PathBuf};
use std::process::Command;

fn runs(cmd: &Path) -> bool {
    Command::new(cmd).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// `ptxas`: `$MORF_PTXAS` when set, else the one of the `nvidia-cuda-nvcc` wheel
/// (`python3 -m pip install nvidia-cuda-nvcc`: `nvidia/cu13/bin/ptxas`,
/// `nvidia/cuda_nvcc/bin/ptxas` or `nvidia/cu12/bin/ptxas`), else `ptxas` on `PATH`; `None`
/// when none runs.
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MORF_PTXAS").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    // `nvidia` is a namespace package (no `__file__`), so ask for its path.
    let out = Command::new("python3")
        .args(["-c", "import nvidia; print(list(nvidia.__path__)[0])"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    if let Some(o) = out {
        let dir = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
        for sub in ["cu13/bin/ptxas", "cuda_nvcc/bin/ptxas", "cu12/bin/ptxas"] {
            let p = dir.join(sub);
            if p.is_file() && runs(&p) {
                return Some(p);
            }
        }
    }
    let p = PathBuf::from("ptxas");
    runs(&p).then_some(p)
}

/// Assembles the PTX file `ptx` with `ptxas -arch=sm_90 -v` (the cubin beside it): whether
/// ptxas succeeded, and its output (stdout then stderr: the `-v` report or the errors).
pub fn assemble(ptxas: &Path, ptx: &Path) -> std::io::Result<(bool, String)> {
    let out =
        Command::new(ptxas).args(["-arch=sm_90", "-v", "-o"]).arg(ptx.with_extension("cubin")).arg(ptx).output()?;
    let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    Ok((out.status.success(), log))
}

/// Writes `ptx` to the file `path` and assembles it ([`assemble`]): ptxas' `-v` report, or
/// why there is none (the file not written, ptxas not run, or its errors).
pub fn assemble_text(ptxas: &Path, path: &Path, ptx: &str) -> Result<String, String> {
    std::fs::write(path, ptx).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    match assemble(ptxas, path) {
        Ok((true, log)) => Ok(log),
        Ok((false, log)) => Err(format!("{} failed:\n{log}", ptxas.display())),
        Err(e) => Err(format!("cannot run {}: {e}", ptxas.display())),
    }
}

/// The spill bytes per kernel in `ptxas -v` output: `(name, stores, loads)` for each
/// `Function properties for NAME` followed by its `bytes spill stores` line.
pub fn spills(log: &str) -> Vec<(String, u64, u64)> {
    let mut out = Vec::new();
    let mut current = None;
    for line in log.lines() {
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            current = Some(rest.trim().to_string());
        } else if line.contains("bytes spill stores") {
            let num = |key: &str| -> u64 {
                line.split(',')
                    .find(|part| part.contains(key))
                    .and_then(|part| part.split_whitespace().next())
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0)
            };
            if let Some(name) = current.take() {
                out.push((name, num("spill stores"), num("spill loads")));
            }
        }
    }
    out
}

/// The registers per kernel in `ptxas -v` output (or a verbose JIT log): `(name, registers)`
/// for each `Used N registers` line, named by the `Compiling entry function 'NAME'` or
/// `Function properties for NAME` line before it.
pub fn registers(log: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut current = None;
    for line in log.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            current = rest.split('\'').next().map(str::to_string);
        } else if let Some(rest) = line.split("Function properties for ").nth(1) {
            current = Some(rest.trim().to_string());
        } else if let Some(rest) = line.split("Used ").nth(1) {
            if let (Some(name), Some(n)) = (current.take(), rest.split_whitespace().next()) {
                out.push((name, n.parse().unwrap_or(0)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spill_lines_are_parsed() {
        let log = "ptxas info    : Function properties for k\n    0 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n\
                   ptxas info    : Function properties for k1\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
        assert_eq!(spills(log), [("k".to_string(), 8, 4), ("k1".to_string(), 0, 0)]);
    }

    #[test]
    fn register_lines_are_parsed_with_or_without_the_compiling_line() {
        let log = "ptxas info    : Compiling entry function 'k' for 'sm_90'\nptxas info    : Function properties for k\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
                   ptxas info    : Used 48 registers, used 0 barriers\n\
                   ptxas info    : Function properties for k1\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
                   ptxas info    : Used 80 registers\n";
        assert_eq!(registers(log), [("k".to_string(), 48), ("k1".to_string(), 80)]);
        assert!(spills("ptxas info    : Used 30 registers").is_empty());
    }
}
