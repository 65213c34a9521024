//! The seed corpus: every `test/**/*.mlir` file split at `// -----` lines, every
//! `examples/*.mlir`, and `.npy` files made by the engine's npy writer plus a few hand-broken
//! headers. Also the token dictionary `fuzz/mlir.dict` (libFuzzer's format), which the
//! mutation loop shares with libFuzzer.

use std::path::{Path, PathBuf};

use morf_engine::npy::{write_npy, NpyDtype};

/// The repository root (two levels above this crate).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.mlir` file under `dir`, sorted, recursively.
fn mlir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            mlir_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "mlir") {
            out.push(p);
        }
    }
}

/// Splits `bytes` at lines that hold only `// -----` (as `--split-input-file` does); a
/// file that is not UTF-8 stays one seed.
fn split_chunks(bytes: Vec<u8>) -> Vec<Vec<u8>> {
    let Ok(text) = String::from_utf8(bytes.clone()) else { return vec![bytes] };
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in text.split_inclusive('\n') {
        if line.trim() == "// -----" {
            out.push(std::mem::take(&mut cur).into_bytes());
        } else {
            cur.push_str(line);
        }
    }
    out.push(cur.into_bytes());
    out.retain(|c| !c.iter().all(u8::is_ascii_whitespace));
    out
}

/// The MLIR seeds: each chunk of each `test/**/*.mlir` file, then each `examples/*.mlir`,
/// in a fixed order. Duplicates are dropped.
pub fn mlir_seeds() -> Vec<Vec<u8>> {
    let root = repo_root();
    let mut files = Vec::new();
    mlir_files(&root.join("test"), &mut files);
    mlir_files(&root.join("examples"), &mut files);
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for f in files {
        let Ok(bytes) = std::fs::read(&f) else { continue };
        for c in split_chunks(bytes) {
            if seen.insert(c.clone()) {
                seeds.push(c);
            }
        }
    }
    seeds
}

/// The `.npy` seeds: arrays of every dtype and a few shapes written by the engine's npy writer
/// (through a temporary file), then hand-broken headers.
pub fn npy_seeds() -> Vec<Vec<u8>> {
    let dir = std::env::temp_dir().join(format!("morf-fuzz-npy-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let mut seeds = Vec::new();
    let shapes: [&[usize]; 5] = [&[], &[3], &[2, 3], &[0, 4], &[1, 2, 2]];
    for (i, dtype) in NpyDtype::ALL.into_iter().enumerate() {
        for (j, shape) in shapes.iter().enumerate() {
            if (i + j) % 2 == 1 && !shape.is_empty() {
                continue; // every dtype, every shape, not every pair
            }
            let n: usize = shape.iter().product();
            let data: Vec<f64> = (0..n).map(|k| (k % 2) as f64).collect();
            let p = dir.join(format!("s{i}_{j}.npy"));
            if write_npy(&p, shape, dtype, &data).is_ok() {
                if let Ok(b) = std::fs::read(&p) {
                    seeds.push(b);
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let header = |h: &str, data: &[u8]| {
        let mut v = b"\x93NUMPY\x01\x00".to_vec();
        let mut h = h.to_string();
        while (10 + h.len() + 1) & 63 != 0 {
            h.push(' ');
        }
        h.push('\n');
        v.extend_from_slice(&(h.len() as u16).to_le_bytes());
        v.extend_from_slice(h.as_bytes());
        v.extend_from_slice(data);
        v
    };
    for (h, data) in [
        ("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", &[0u8; 16][..]),
        ("{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", &[0u8; 8][..]),
        ("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", &[][..]),
        ("{'descr': '<c8', 'fortran_order': False, 'shape': (), }", &[0u8; 8][..]),
        ("{'descr': '<f4', 'shape': (2,), }", &[0u8; 8][..]),
        ("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", &[0u8; 8][..]),
        ("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", &[][..]),
        ("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", &[0u8; 5][..]),
    ] {
        seeds.push(header(h, data));
    }
    seeds.push(b"\x93NUMPY\x02\x00\xff\xff\xff\xff{".to_vec());
    seeds.push(b"\x93NUMPY\x01\x00\x00\x00".to_vec());
    seeds.push(b"\x93NUMPY".to_vec());
    seeds
}

/// The pass flags of the `morf-opt` RUN lines of `text` as pipeline texts: each
/// `--pass-pipeline=...` as it is, and each line's shorthand pass flags (`--cse`,
/// `--loop-split='dim=1 size=4'`) as `builtin.module(cse,loop-split{dim=1 size=4})`.
fn run_line_pipelines(text: &str) -> Vec<String> {
    // The registry's pass names, so a new pass's RUN lines seed the corpus without an edit here.
    let mut reg = morf_ir::pass::PassRegistry::default();
    morf_passes::register_all(&mut reg);
    let passes: Vec<&str> = reg.passes().map(|p| p.name).collect();
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.contains("RUN:") && l.contains("morf-opt")) {
        let mut shorthand = Vec::new();
        let mut rest = line;
        while let Some(i) = rest.find("--") {
            rest = &rest[i + 2..];
            let name_end = rest.find(|c: char| c == '=' || c.is_whitespace()).unwrap_or(rest.len());
            let (name, after) = rest.split_at(name_end);
            let value = after.strip_prefix('=').map(|v| {
                let (q, body) = match v.chars().next() {
                    Some(c @ ('\'' | '"')) => (Some(c), &v[1..]),
                    _ => (None, v),
                };
                let end = match q {
                    Some(q) => body.find(q).unwrap_or(body.len()),
                    None => body.find(char::is_whitespace).unwrap_or(body.len()),
                };
                body[..end].to_string()
            });
            if name == "pass-pipeline" {
                out.extend(value);
            } else if passes.contains(&name) {
                shorthand.push(match value {
                    Some(v) => format!("{name}{{{v}}}"),
                    None => name.to_string(),
                });
            }
        }
        if !shorthand.is_empty() {
            out.push(format!("builtin.module({})", shorthand.join(",")));
        }
    }
    out
}

/// The seeds of the `pass_pipeline` target: each pipeline of a test file's RUN lines
/// before each chunk of that file, then the named pipelines' passes one by one before
/// every example.
pub fn pass_pipeline_seeds() -> Vec<Vec<u8>> {
    let root = repo_root();
    let mut files = Vec::new();
    mlir_files(&root.join("test"), &mut files);
    let mut seeds = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        let pipelines = run_line_pipelines(&text);
        for p in &pipelines {
            for c in split_chunks(text.clone().into_bytes()) {
                let mut s = format!("{p}\n").into_bytes();
                s.extend(c);
                seeds.push(s);
            }
        }
    }
    let mut examples = Vec::new();
    mlir_files(&root.join("examples"), &mut examples);
    for p in [
        "builtin.module(lower-tensor-to-loop)",
        "builtin.module(lower-tensor-to-loop,loop-split{size=4})",
        "builtin.module(lower-tensor-to-loop,loop-partial-accumulate{split-size=3})",
        "builtin.module(lower-tensor-to-loop,loop-interchange{perm=1,0},cse,dce)",
        "builtin.module(lower-tensor-to-loop,canonicalize,lower-loop-to-gpu{threads=64 vector=2})",
        "builtin.module(func.func(canonicalize,cse),dce)",
    ] {
        for e in &examples {
            let Ok(text) = std::fs::read_to_string(e) else { continue };
            seeds.push(format!("{p}\n{text}").into_bytes());
        }
    }
    seeds
}

/// The seeds of target `name` (one of [`crate::TARGETS`]).
pub fn seeds_for(name: &str) -> Vec<Vec<u8>> {
    match name {
        "npy" => npy_seeds(),
        "pass_pipeline" => pass_pipeline_seeds(),
        _ => mlir_seeds(),
    }
}

/// The path of the token dictionary, `fuzz/mlir.dict`.
pub fn dict_path() -> PathBuf {
    repo_root().join("fuzz/mlir.dict")
}

/// Parses a libFuzzer dictionary: one `"token"` (optionally `name="token"`) per line,
/// `#` comments, `\\`, `\"` and `\xNN` escapes.
pub fn parse_dict(text: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(start) = line.find('"') else { continue };
        let Some(end) = line.rfind('"').filter(|&e| e > start) else { continue };
        let body = &line.as_bytes()[start + 1..end];
        let mut tok = Vec::new();
        let mut i = 0;
        while i < body.len() {
            if body[i] == b'\\' && i + 1 < body.len() {
                if body[i + 1] == b'x' && i + 3 < body.len() {
                    if let Ok(b) = u8::from_str_radix(&line[start + 1 + i + 2..start + 1 + i + 4], 16) {
                        tok.push(b);
                        i += 4;
                        continue;
                    }
                }
                tok.push(body[i + 1]);
                i += 2;
            } else {
                tok.push(body[i]);
                i += 1;
            }
        }
        if !tok.is_empty() {
            out.push(tok);
        }
    }
    out
}

/// The tokens of `fuzz/mlir.dict` (empty if the file is missing).
pub fn dictionary() -> Vec<Vec<u8>> {
    std::fs::read_to_string(dict_path()).map(|t| parse_dict(&t)).unwrap_or_default()
}

/// Writes the seeds of every target into `dir/<target>/seed-<n>` (cargo-fuzz's corpus
/// layout, `fuzz/corpus/<target>`); returns how many files were written.
pub fn write_corpus(dir: &Path) -> std::io::Result<usize> {
    let mlir = mlir_seeds();
    let mut n = 0;
    for t in crate::TARGETS {
        let d = dir.join(t);
        std::fs::create_dir_all(&d)?;
        let own;
        let seeds = match t {
            "npy" | "pass_pipeline" => {
                own = seeds_for(t);
                &own
            }
            _ => &mlir,
        };
        for (i, s) in seeds.iter().enumerate() {
            std::fs::write(d.join(format!("seed-{i:04}")), s)?;
            n += 1;
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionary_escapes() {
        let d = parse_dict("# c\n\"a\\\"b\"\nkw=\"\\x41\\\\\"\n\n");
        assert_eq!(d, vec![b"a\"b".to_vec(), b"A\\".to_vec()]);
    }

    #[test]
    fn run_lines_give_pipelines() {
        let t = "// RUN: morf-opt %s --lower-tensor-to-loop --loop-split='dim=1 size=4' | FileCheck %s\n\
                 // RUN: morf-opt %s --pass-pipeline='builtin.module(cse)' --split-input-file\n";
        assert_eq!(
            run_line_pipelines(t),
            vec!["builtin.module(lower-tensor-to-loop,loop-split{dim=1 size=4})", "builtin.module(cse)"]
        );
    }

    #[test]
    fn chunks_split_at_markers() {
        let c = split_chunks(b"a\n// -----\nb\n  // -----\n\n".to_vec());
        assert_eq!(c, vec![b"a\n".to_vec(), b"b\n".to_vec()]);
    }
}
