//! Runs the broken-input corpus in `test/IR/invalid/` through the core alone (parser and
//! verifier, no driver), so the core's diagnostics are checked even where `morf-opt` and
//! the lit runner are not built.
//!
//! For each file (and each `// -----` chunk when the RUN line splits), it checks that nothing
//! panics, that every broken chunk yields a diagnostic with a `file:line:col` location, and
//! it matches the annotations the lit run relies on:
//! - `--verify-diagnostics` files: every `// expected-error@+1 {{text}}` (also `note`,
//!   `warning`, `@-N`, `@above`, `@below`) is produced on its line and every produced
//!   diagnostic and note is expected, as `morf-opt --verify-diagnostics` does;
//! - FileCheck files: every `CHECK:`/`CHECK-NEXT:` pattern (with `{{.*}}` removed) occurs in
//!   the rendered output. Lines with other regex blocks are skipped (the lit run checks them).
//!
//! Files whose RUN line generates the input (no `%s` as the input of `morf-opt`) are only
//! exercised by the lit run.

use std::path::{Path, PathBuf};

use morf_ir::{parse_source, verify, Context, Diagnostic, Loc, Severity};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/IR/invalid")
}

struct Expect {
    line: u32,
    sev: Severity,
    text: String,
    matched: bool,
}

fn parse_expectations(chunk: &str, line_offset: u32) -> Vec<Expect> {
    let mut out = Vec::new();
    let lines: Vec<&str> = chunk.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        let Some(at) = l.find("expected-") else { continue };
        let rest = &l[at + "expected-".len()..];
        let (sev, rest) = if let Some(r) = rest.strip_prefix("error") {
            (Severity::Error, r)
        } else if let Some(r) = rest.strip_prefix("note") {
            (Severity::Note, r)
        } else if let Some(r) = rest.strip_prefix("warning") {
            (Severity::Warning, r)
        } else if let Some(r) = rest.strip_prefix("remark") {
            (Severity::Remark, r)
        } else {
            continue;
        };
        let this = line_offset + i as u32 + 1;
        let (line, rest) = if let Some(r) = rest.strip_prefix('@') {
            let end = r.find(' ').unwrap_or(r.len());
            let spec = &r[..end];
            let line = match spec {
                "above" => {
                    (0..i).rev().find(|&j| !lines[j].trim_start().starts_with("// expected-")).unwrap() as u32
                        + line_offset
                        + 1
                }
                "below" => {
                    (i + 1..lines.len()).find(|&j| !lines[j].trim_start().starts_with("// expected-")).unwrap() as u32
                        + line_offset
                        + 1
                }
                s => {
                    let n: i64 = s.parse().unwrap_or_else(|_| panic!("bad offset '{s}' in: {l}"));
                    (this as i64 + n) as u32
                }
            };
            (line, &r[end..])
        } else {
            (this, rest)
        };
        let open = rest.find("{{").unwrap_or_else(|| panic!("no '{{{{' in: {l}"));
        let close = rest.rfind("}}").unwrap_or_else(|| panic!("no '}}}}' in: {l}"));
        out.push(Expect { line, sev, text: rest[open + 2..close].to_string(), matched: false });
    }
    out
}

/// Parses and verifies one chunk; the diagnostic, if any.
fn run_chunk(ctx: &mut Context, name: &str, chunk: &str, line_offset: u32) -> Option<Diagnostic> {
    match parse_source(ctx, name, chunk, line_offset) {
        Err(d) => Some(d),
        Ok(m) => verify(ctx, m).err(),
    }
}

fn line_of(l: Loc) -> u32 {
    match l {
        Loc::File { line, .. } => line,
        Loc::Unknown => 0,
    }
}

fn check_file(path: &Path) -> Result<(), String> {
    let rel = format!("IR/invalid/{}", path.file_name().unwrap().to_string_lossy());
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(2000)]).into_owned();
    let run: Vec<&str> = head.lines().filter_map(|l| l.split_once("RUN:").map(|x| x.1)).collect();
    if run.is_empty() {
        return Err(format!("{rel}: no RUN line"));
    }
    let run = run.join(" ");
    if !run.contains("%s") || run.contains("python3") {
        return Ok(());
    }
    let allow = run.contains("--allow-unregistered-dialect");
    let split = run.contains("--split-input-file");
    let verify_mode = run.contains("--verify-diagnostics");
    let name = path.to_string_lossy().into_owned();
    let text = match morf_ir::asm::decode_source(&mut Context::new(), &name, &bytes) {
        Ok(t) => t,
        Err(d) => {
            // The driver stops at undecodable input; the file's CHECK lines pin that.
            let mut ctx = Context::new();
            ctx.add_source(&name, &String::from_utf8_lossy(&bytes));
            let out = ctx.render(&d);
            return check_filecheck(&rel, &head, &out);
        }
    };
    let mut chunks: Vec<(String, u32)> = Vec::new();
    if split {
        let mut cur = String::new();
        let mut start = 0u32;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if l.trim_end() == "// -----" {
                chunks.push((std::mem::take(&mut cur), start));
                start = i as u32 + 1;
                cur.clear();
            } else {
                cur.push_str(l);
            }
        }
        chunks.push((cur, start));
    } else {
        chunks.push((text.clone(), 0));
    }
    let mut rendered = String::new();
    let mut problems = Vec::new();
    for (ci, (chunk, off)) in chunks.iter().enumerate() {
        let mut ctx = Context::new();
        ctx.registry_mut().allow_unregistered = allow;
        ctx.add_source(&name, &text);
        let d = {
            let (chunk, off) = (chunk.clone(), *off);
            let name = name.clone();
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_chunk(&mut ctx, &name, &chunk, off)))
                .map_err(|_| format!("{rel}: chunk {ci} panicked"))?
        };
        if let Some(d) = &d {
            if !d.loc.is_known() {
                problems.push(format!("{rel}: chunk {ci}: diagnostic without location: {}", d.message));
            }
            rendered.push_str(&ctx.render(d));
        }
        if verify_mode {
            let mut exp = parse_expectations(chunk, *off);
            let produced: Vec<(Loc, Severity, String)> = d
                .iter()
                .flat_map(|d| {
                    std::iter::once((d.loc, d.severity, d.message.clone()))
                        .chain(d.notes.iter().map(|n| (n.loc, Severity::Note, n.message.clone())))
                })
                .collect();
            for (loc, sev, msg) in produced {
                let hit = exp
                    .iter_mut()
                    .find(|e| !e.matched && e.line == line_of(loc) && e.sev == sev && msg.contains(&e.text));
                match hit {
                    Some(e) => e.matched = true,
                    None => problems.push(format!(
                        "{rel}: unexpected {} at line {}: {msg}\n{}",
                        sev.as_str(),
                        line_of(loc),
                        d.as_ref().map(|d| ctx.render(d)).unwrap_or_default()
                    )),
                }
            }
            for e in exp.iter().filter(|e| !e.matched) {
                problems.push(format!(
                    "{rel}: expected {} {{{{{}}}}} at line {} not produced",
                    e.sev.as_str(),
                    e.text,
                    e.line
                ));
            }
        } else if d.is_none() {
            problems.push(format!("{rel}: chunk {ci} was accepted"));
        }
    }
    if !verify_mode {
        if let Err(e) = check_filecheck(&rel, &text, &rendered) {
            problems.push(e);
        }
    }
    if std::env::var_os("MORF_SHOW_DIAGS").is_some() {
        eprintln!("==== {rel}\n{rendered}");
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn check_filecheck(rel: &str, text: &str, out: &str) -> Result<(), String> {
    let mut problems = Vec::new();
    for l in text.lines() {
        let Some((_, pat)) = l.split_once("CHECK:").or_else(|| l.split_once("CHECK-NEXT:")) else { continue };
        let pat = pat.trim_start_matches(' ').replace("{{.*}}", "");
        if pat.contains("{{") || pat.contains("[[") {
            continue;
        }
        if !out.contains(pat.trim_end()) {
            problems.push(format!("{rel}: CHECK pattern '{pat}' not in output:\n{out}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

#[test]
fn invalid_corpus() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("test/IR/invalid exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    assert!(files.len() >= 40, "the corpus has {} files", files.len());
    let only = std::env::var("MORF_CORPUS_FILTER").ok();
    let mut failures = Vec::new();
    for f in &files {
        if only.as_deref().is_some_and(|o| !f.to_string_lossy().contains(o)) {
            continue;
        }
        if let Err(e) = check_file(f) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{} problem(s):\n{}", failures.len(), failures.join("\n\n"));
}

/// The inputs that the `deep-*.mlir` files generate in their RUN lines, checked here too.
#[test]
fn generated_deep_inputs_are_errors() {
    let n = 500;
    let regions = "\"x.op\"() ({\n".repeat(n) + "\"x.op\"() : () -> ()\n" + &"}) : () -> ()\n".repeat(n);
    let cases = [
        format!("\"x.op\"() {{a = {}}} : () -> ()", "[".repeat(100_000)),
        regions,
        format!("\"x.op\"() : {})", "(".repeat(50_000)),
        format!("\"x.op\"() {{a = dense<{}> : tensor<f32>}} : () -> ()", "[".repeat(20_000)),
    ];
    for src in cases {
        let mut ctx = Context::new();
        ctx.registry_mut().allow_unregistered = true;
        let e = parse_source(&mut ctx, "deep.mlir", &src, 0).unwrap_err();
        let r = ctx.render(&e);
        assert!(r.starts_with("deep.mlir:") && r.contains("error: nesting is too deep (more than 128 levels)"), "{r}");
    }
}

/// Nesting just under the limit parses, verifies and prints.
#[test]
fn nesting_under_the_limit_is_fine() {
    let n = 60;
    let src = "\"x.op\"() ({\n".repeat(n) + "\"x.op\"() : () -> ()\n" + &"}) : () -> ()\n".repeat(n);
    let mut ctx = Context::new();
    ctx.registry_mut().allow_unregistered = true;
    let m = parse_source(&mut ctx, "deep.mlir", &src, 0).unwrap_or_else(|e| panic!("{}", ctx.render(&e)));
    verify(&ctx, m).unwrap();
    let text = morf_ir::print_op(&ctx, m, &Default::default());
    assert_eq!(text.matches("\"x.op\"").count(), n + 1);
}

/// A large input (many copies of one op) parses in about linear time.
#[test]
fn large_input_is_linear() {
    let line = "%0 = \"x.op\"() {a = [1, 2, 3], s = \"text\"} : () -> tensor<4x8xf32>\n";
    let mut src = String::from("func.func @f() {\n");
    for i in 0..100_000 {
        src.push_str(&line.replace("%0", &format!("%v{i}")));
    }
    src.push_str("  func.return\n}\n");
    let mut ctx = Context::new();
    ctx.registry_mut().allow_unregistered = true;
    let t = std::time::Instant::now();
    let m = parse_source(&mut ctx, "big.mlir", &src, 0).unwrap_or_else(|e| panic!("{}", ctx.render(&e)));
    verify(&ctx, m).unwrap();
    // Generous: a debug build parses this (~7 MB) in well under a second on one core.
    assert!(t.elapsed().as_secs() < 20, "took {:?}", t.elapsed());
}
