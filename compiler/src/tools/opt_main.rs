//! The `morf-opt` driver: read IR, verify it, run passes, verify, print.
//!
//! ```text
//! morf-opt [FILE|-] [-o FILE] [--pass-pipeline=TEXT | --<pass>[=OPTIONS] ... | --pipeline=NAME]
//!          [--size-hints=NAME=SIZE,...]
//!          [--split-input-file] [--verify-diagnostics] [--print-op-generic] [--mlir-print-debuginfo]
//!          [--allow-unregistered-dialect] [--print-ir-{before,after}-all] [--print-ir-{before,after}=PASS]
//!          [--print-ir-after-change] [--print-ir-after-failure] [--verify-each[=BOOL]] [--no-verify-each]
//!          [--timing] [--dump-pass-pipeline] [--list-passes] [--list-ops] [-v|-vv]
//!          [--emit=morf|mlir|ptx] [--ptx-version=V] [--ptx-target=SM] [--import=morf|mlir]
//! ```
//!
//! `--emit=ptx` prints PTX instead of the IR, through the emitter that the tool supplies in
//! [`OptConfig`] (the core cannot depend on `morf-passes`, where code generation lives).
//! `--emit=mlir` prints the module exported to upstream MLIR dialects and `--import=mlir`
//! reads upstream MLIR (a linalg-on-tensors subset) instead of morf's IR, through the
//! exporter and importer the tool supplies (`morf-mlir`, a build with MLIR); without them
//! either flag is an error before any input is read.
//!
//! Shorthand pass flags come from the [`PassRegistry`]: every registered pass `P` gives a
//! flag `--P` and `--P=OPTIONS`, where OPTIONS is the text that would go inside `P{...}`
//! (`--canonicalize='max-iterations=4 test-convergence'`). They run in command-line order on
//! the module. Such flags are taken out of the command line before the rest goes to clap.
//!
//! `--size-hints=M=576000,N=384` gives size hints to every pass of the pipeline that takes
//! them ([`crate::pass::hints`]); a pass option `size-hints=...` written in the pipeline
//! text wins. Without the flag, a module's `morf.size_hints = "M=..,N=.."` attribute gives
//! them for that module. Malformed hints are an error (the flag's before any input is read;
//! the attribute's at the module, with `file:line:col`). Hints on a pipeline with no pass
//! that takes them are a warning, and the run goes on.
//!
//! Exit codes: 0 on success, 1 on any error (including bad flags). Diagnostics go to stderr
//! with `file:line:col`, the source line and a caret; IR dumps and the timing report go to
//! stderr as well; the output IR goes to stdout or to `-o FILE`. `-o FILE` is replaced
//! atomically and only when the whole run succeeded, so a failed run leaves it as it was;
//! a write error (`> /dev/full`, a closed pipe) is an error with exit code 1. Nothing the
//! driver writes to stderr can panic, even when stderr is closed or full.

use std::ffi::OsString;
use std::io::Read;
use std::time::{Duration, Instant};

use crate::asm::{parse_source, print_op, PrintOptions};
use crate::context::{Context, OpId};
use crate::diag::{Diagnostic, Severity};
use crate::io::{eprint_lossy, write_atomic, write_stdout};
use crate::pass::{
    module_size_hints, parse_pipeline, HintsApplied, Instrumentation, PassManager, PassRegistry, PipelineElement,
    PipelineText, SizeHints, SIZE_HINTS_ATTR,
};
use crate::tools::split_input::{split_input, Chunk, SPLIT_MARKER};
use crate::tools::verify_diagnostics::{check_diagnostics, parse_expectations};

const TOOL: &str = "morf-opt";

/// The end of `--help`: what the flags above do not list.
const AFTER_HELP: &str = "Every registered pass is also a flag: --<pass>[=OPTIONS] (see --list-passes).";

/// The flags of `morf-opt`, except the shorthand pass flags.
#[derive(clap::Parser, Debug)]
#[command(
    name = "morf-opt",
    about = "Reads morf IR, runs passes on it and prints the result",
    after_help = AFTER_HELP
)]
struct Cli {
    /// Input file; `-` or nothing reads stdin.
    input: Option<String>,
    /// Output file (default: stdout).
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<String>,
    /// Print ops in generic form.
    #[arg(long = "print-op-generic", visible_aliases = ["print-generic", "mlir-print-op-generic"])]
    print_generic: bool,
    /// Print locations (`loc(...)`) after ops.
    #[arg(long = "mlir-print-debuginfo", visible_alias = "print-debuginfo")]
    debug_info: bool,
    /// Accept ops of unregistered dialects (in generic form).
    #[arg(long)]
    allow_unregistered_dialect: bool,
    /// Process each `// -----` chunk of the input on its own.
    #[arg(long)]
    split_input_file: bool,
    /// Check diagnostics against `expected-*` annotations in the input.
    #[arg(long)]
    verify_diagnostics: bool,
    /// A textual pass pipeline, such as `builtin.module(func.func(canonicalize,cse))`.
    #[arg(long, value_name = "PIPELINE")]
    pass_pipeline: Option<String>,
    /// Run a named pipeline (see --list-passes).
    #[arg(long, value_name = "NAME")]
    pipeline: Option<String>,
    /// Sizes of named dynamic dims, `M=576000,N=384`, for every pass of the pipeline that
    /// takes size hints (an explicit `size-hints` pass option wins). Without this flag, a
    /// `morf.size_hints` attribute on the module gives them.
    #[arg(long, value_name = "NAME=SIZE,...")]
    size_hints: Option<String>,
    /// Print the IR before every pass (to stderr).
    #[arg(long, visible_alias = "mlir-print-ir-before-all")]
    print_ir_before_all: bool,
    /// Print the IR after every pass (to stderr).
    #[arg(long, visible_alias = "mlir-print-ir-after-all")]
    print_ir_after_all: bool,
    /// Print the IR before the named passes (comma-separated; repeatable).
    #[arg(long, value_name = "PASS", visible_alias = "mlir-print-ir-before")]
    print_ir_before: Vec<String>,
    /// Print the IR after the named passes (comma-separated; repeatable).
    #[arg(long, value_name = "PASS", visible_alias = "mlir-print-ir-after")]
    print_ir_after: Vec<String>,
    /// Print the IR after a pass only when the pass changed it.
    #[arg(long, visible_alias = "mlir-print-ir-after-change")]
    print_ir_after_change: bool,
    /// Print the IR after a pass that failed.
    #[arg(long, visible_alias = "mlir-print-ir-after-failure")]
    print_ir_after_failure: bool,
    /// Verify the IR after every pass (default: true).
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    verify_each: Option<bool>,
    /// Do not verify the IR after every pass.
    #[arg(long)]
    no_verify_each: bool,
    /// Report the time spent parsing, in each pass and printing (to stderr).
    #[arg(long, visible_alias = "mlir-timing")]
    timing: bool,
    /// Print the pass pipeline to stderr before running it.
    #[arg(long, visible_alias = "mlir-dump-pass-pipeline")]
    dump_pass_pipeline: bool,
    /// List the registered passes and named pipelines, then exit.
    #[arg(long)]
    list_passes: bool,
    /// List the registered ops with their summaries, then exit.
    #[arg(long)]
    list_ops: bool,
    /// Print the reference of every registered dialect, op, pass and named pipeline as
    /// Markdown (generated from their definitions; docs/reference.md), then exit.
    #[arg(long)]
    reference_docs: bool,
    /// What to print: morf's IR (`morf`, the default), the module exported to upstream MLIR
    /// dialects and printed by MLIR (`mlir`; needs a build with MLIR) or PTX (`ptx`).
    #[arg(long, value_name = "FORMAT", default_value = "morf", value_parser = ["morf", "mlir", "ptx"])]
    emit: String,
    /// How to read the input: morf's IR (`morf`, the default) or upstream MLIR (`mlir`: a
    /// linalg-on-tensors subset imported to `mtensor`; needs a build with MLIR).
    #[arg(long, value_name = "FORMAT", default_value = "morf", value_parser = ["morf", "mlir"])]
    import: String,
    /// The PTX ISA version for --emit=ptx (default: the emitter's, 8.0).
    #[arg(long, value_name = "VERSION")]
    ptx_version: Option<String>,
    /// The PTX target for --emit=ptx (default: the emitter's, sm_90).
    #[arg(long, value_name = "SM")]
    ptx_target: Option<String>,
    /// More logging to stderr (-v: debug, -vv: trace); RUST_LOG overrides.
    #[arg(short = 'v', action = clap::ArgAction::Count)]
    verbose: u8,
}

/// An error that ends the run before any input is processed.
struct Fatal(String);

/// The error of `--emit=mlir` and `--import=mlir` in a tool without MLIR (`{flag}` is the flag).
const MLIR_MISSING: &str = "{flag} is not available: this build has no MLIR (rebuild morf-opt with the cargo \
     feature 'mlir' and LLVM/MLIR 22; see docs/interop-mlir.md)";

/// The `--ptx-*` flags, handed to the PTX emitter; `None` means the emitter's default.
#[derive(Clone, Debug, Default)]
pub struct PtxFlags {
    /// `--ptx-version`.
    pub version: Option<String>,
    /// `--ptx-target`.
    pub target: Option<String>,
}

/// Turns a verified module into PTX text (`--emit=ptx`).
pub type PtxEmitter = fn(&Context, OpId, &PtxFlags) -> Result<String, Diagnostic>;

/// Checks the `--ptx-*` flags before any input is read; the error ends the run.
pub type PtxFlagsCheck = fn(&PtxFlags) -> Result<(), String>;

/// Turns a verified module into upstream MLIR text (`--emit=mlir`).
pub type MlirExporter = fn(&Context, OpId) -> Result<String, Diagnostic>;

/// Reads upstream MLIR into a new module of the context (`--import=mlir`): the file name of
/// diagnostics, the text, and the line offset of a `--split-input-file` chunk.
pub type MlirImporter = fn(&mut Context, &str, &str, u32) -> Result<OpId, Diagnostic>;

/// A named pipeline replaced for one input module ([`PipelineHook`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ModulePipeline {
    /// The textual pipeline to run instead of the named one.
    pub pipeline: String,
    /// The size hints to give it (instead of the flag's or the module's).
    pub hints: String,
}

/// What a [`PipelineHook`] answers: a replacement (or `None` to run the pipeline as named),
/// and a note for stderr (or `None`).
pub type PipelineChoice = (Option<ModulePipeline>, Option<String>);

/// Chooses, for each input module, what `--pipeline NAME` runs on it: called with the
/// context, the module, the pipeline's name and the size hints in force (the flag's, else the
/// module's attribute). morf-opt's `--tuning-cache` is one: a tuned schedule replaces the
/// named pipeline by one with the tuned pass options.
#[derive(Clone)]
pub struct PipelineHook(
    #[allow(clippy::type_complexity)]
    pub  std::sync::Arc<dyn Fn(&Context, OpId, &str, Option<&str>) -> Result<PipelineChoice, String> + Send + Sync>,
);

impl std::fmt::Debug for PipelineHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PipelineHook")
    }
}

/// What a tool adds to the driver beyond dialects and passes.
#[derive(Clone, Debug, Default)]
pub struct OptConfig {
    /// The emitter behind `--emit=ptx`; without one that flag is an error.
    pub ptx_emitter: Option<PtxEmitter>,
    /// The check of `--ptx-version` and `--ptx-target`, run whenever either is given.
    pub ptx_check: Option<PtxFlagsCheck>,
    /// Replaces `--pipeline NAME` per input module ([`PipelineHook`]).
    pub pipeline_hook: Option<PipelineHook>,
    /// The exporter behind `--emit=mlir`; without one that flag is an error.
    pub mlir_exporter: Option<MlirExporter>,
    /// The importer behind `--import=mlir`; without one that flag is an error.
    pub mlir_importer: Option<MlirImporter>,
    /// Flags the tool takes out of the command line before the driver sees it (one line
    /// each, `  --flag  what it does`), listed at the end of `--help`.
    pub extra_help: Option<String>,
}

/// Runs `morf-opt` with `args` (`argv[0]` first). `setup` registers dialects into each fresh
/// context; `passes` lists the passes. Returns the exit code.
pub fn opt_main(args: Vec<OsString>, setup: &dyn Fn(&mut Context), passes: &PassRegistry) -> i32 {
    opt_main_with(args, setup, passes, &OptConfig::default())
}

/// [`opt_main`] with the extras of `config` (such as the `--emit=ptx` emitter).
pub fn opt_main_with(
    args: Vec<OsString>,
    setup: &dyn Fn(&mut Context),
    passes: &PassRegistry,
    config: &OptConfig,
) -> i32 {
    match run(args, setup, passes, config) {
        Ok(code) => code,
        Err(Fatal(msg)) => {
            eprint_lossy(&format!("{TOOL}: error: {msg}"));
            1
        }
    }
}

/// Writes `text` to stderr unless it is empty; a closed or full stderr is ignored.
fn eprint_text(text: &str) {
    if !text.is_empty() {
        eprint_lossy(text);
    }
}

/// Writes `text` to stdout; an error (a closed pipe, a full disk) ends the run.
fn print_stdout(text: &str) -> Result<(), Fatal> {
    write_stdout(text.as_bytes()).map_err(|e| Fatal(format!("cannot write output: {}", io_message(&e))))
}

/// `io::Error` text without the `(os error N)` suffix, as in
/// `could not open input file 'x': No such file or directory`.
fn io_message(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// The rendered error for input that is not UTF-8, at the first bad byte.
fn invalid_utf8_diagnostic(file_name: &str, bytes: &[u8], valid_up_to: usize) -> String {
    let prefix = std::str::from_utf8(&bytes[..valid_up_to]).unwrap_or("");
    let line = prefix.matches('\n').count() as u32 + 1;
    let col = prefix.rsplit('\n').next().unwrap_or("").chars().count() as u32 + 1;
    let mut ctx = Context::new();
    ctx.add_source(file_name, &String::from_utf8_lossy(bytes));
    let file = ctx.sym(file_name);
    let byte = bytes.get(valid_up_to).copied().unwrap_or(0);
    ctx.render(&Diagnostic::error(
        crate::location::Loc::File { file, line, col },
        format!("invalid UTF-8 in source (byte 0x{byte:02x})"),
    ))
}

/// Splits argv into shorthand pass flags (`--cse`, `--canonicalize=max-iterations=4`), in
/// order, and the rest (for clap).
fn take_pass_flags(args: Vec<String>, passes: &PassRegistry) -> (Vec<String>, Vec<PipelineElement>) {
    let mut rest = Vec::new();
    let mut flags = Vec::new();
    let mut after_dashdash = false;
    for (i, a) in args.into_iter().enumerate() {
        if i > 0 && !after_dashdash {
            if a == "--" {
                after_dashdash = true;
            } else if let Some(body) = a.strip_prefix("--") {
                let (name, options) = body.split_once('=').unwrap_or((body, ""));
                if passes.get(name).is_some() {
                    flags.push(PipelineElement::Pass { name: name.to_string(), options: options.to_string() });
                    continue;
                }
            }
        }
        rest.push(a);
    }
    (rest, flags)
}

fn init_logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let filter = match std::env::var("RUST_LOG") {
        Ok(s) if !s.is_empty() => EnvFilter::new(s),
        _ => EnvFilter::new(match verbose {
            0 => "warn",
            1 => "debug",
            _ => "trace",
        }),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // A failed write to stderr must not turn into a panic in the subscriber.
        .log_internal_errors(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .with_target(false)
        .try_init();
}

fn split_names(v: &[String], passes: &PassRegistry, flag: &str) -> Result<Vec<String>, Fatal> {
    let mut out = Vec::new();
    for s in v {
        for n in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if passes.get(n).is_none() {
                return Err(Fatal(format!("--{flag}: '{n}' does not refer to a registered pass")));
            }
            out.push(n.to_string());
        }
    }
    Ok(out)
}

/// One piece of the command line's pipeline (`--pipeline`, `--pass-pipeline`, the pass
/// flags), parsed, with the prefix of its errors.
struct PipelinePiece {
    prefix: Option<String>,
    text: PipelineText,
}

/// The pieces of the command line's pipeline, in the order they run.
fn pipeline_pieces(
    cli: &Cli,
    shorthand: Vec<PipelineElement>,
    passes: &PassRegistry,
) -> Result<Vec<PipelinePiece>, Fatal> {
    let mut pieces = Vec::new();
    if cli.pass_pipeline.is_some() && !shorthand.is_empty() {
        return Err(Fatal("--pass-pipeline cannot be combined with pass flags such as --cse".into()));
    }
    if let Some(name) = &cli.pipeline {
        let Some(p) = passes.pipeline(name) else {
            let names: Vec<&str> = passes.pipelines().map(|p| p.name).collect();
            return Err(Fatal(if names.is_empty() {
                format!("unknown pipeline '{name}' (no named pipelines are registered)")
            } else {
                format!("unknown pipeline '{name}' (available: {})", names.join(", "))
            }));
        };
        let text = parse_pipeline(p.text).map_err(|e| Fatal(format!("pipeline '{name}': {e}")))?;
        pieces.push(PipelinePiece { prefix: Some(format!("pipeline '{name}'")), text });
    }
    if let Some(t) = &cli.pass_pipeline {
        let text = parse_pipeline(t).map_err(|e| Fatal(format!("invalid pass pipeline '{t}': {e}")))?;
        pieces.push(PipelinePiece { prefix: Some(format!("invalid pass pipeline '{t}'")), text });
    }
    if !shorthand.is_empty() {
        pieces.push(PipelinePiece { prefix: None, text: PipelineText::Bare(shorthand) });
    }
    Ok(pieces)
}

/// Builds the passes of `pieces` into `pm`, giving `hints` to every pass that takes them.
fn add_pieces(
    pm: &mut PassManager,
    pieces: &[PipelinePiece],
    passes: &PassRegistry,
    hints: Option<&SizeHints>,
) -> Result<HintsApplied, String> {
    let mut all = HintsApplied::default();
    for piece in pieces {
        let done = pm.add_pipeline_with_hints(passes, &piece.text, hints).map_err(|e| match &piece.prefix {
            Some(p) => format!("{p}: {e}"),
            None => e,
        })?;
        all.given += done.given;
        all.explicit += done.explicit;
    }
    Ok(all)
}

/// The `--size-hints` flag, parsed.
fn flag_size_hints(cli: &Cli) -> Result<Option<SizeHints>, Fatal> {
    cli.size_hints
        .as_deref()
        .map(|t| SizeHints::parse(t).map_err(|e| Fatal(format!("invalid --size-hints '{t}': {e}"))))
        .transpose()
}

fn build_pass_manager(cli: &Cli, pieces: &[PipelinePiece], passes: &PassRegistry) -> Result<PassManager, Fatal> {
    let hints = flag_size_hints(cli)?;
    build_pass_manager_with(cli, pieces, passes, hints.as_ref())
}

/// [`build_pass_manager`] with `hints` instead of the flag's.
fn build_pass_manager_with(
    cli: &Cli,
    pieces: &[PipelinePiece],
    passes: &PassRegistry,
    hints: Option<&SizeHints>,
) -> Result<PassManager, Fatal> {
    let verify_each = !cli.no_verify_each && cli.verify_each.unwrap_or(true);
    let instr = Instrumentation {
        verify_each,
        print_before_all: cli.print_ir_before_all,
        print_after_all: cli.print_ir_after_all,
        print_before: split_names(&cli.print_ir_before, passes, "print-ir-before")?,
        print_after: split_names(&cli.print_ir_after, passes, "print-ir-after")?,
        print_after_change: cli.print_ir_after_change,
        print_after_failure: cli.print_ir_after_failure,
        print_generic: cli.print_generic,
        timing: cli.timing,
    };
    let mut pm = PassManager::new(instr);
    let done = add_pieces(&mut pm, pieces, passes, hints).map_err(Fatal)?;
    if hints.is_some() && !done.any_taker() {
        let takers = passes.size_hinted_passes();
        eprint_lossy(&format!(
            "{TOOL}: warning: --size-hints: no pass of the pipeline takes size hints, so they change nothing{}",
            if takers.is_empty() { String::new() } else { format!(" (passes that do: {})", takers.join(", ")) }
        ));
    }
    Ok(pm)
}

/// The passes to run on `module` when the [`PipelineHook`] replaces `--pipeline NAME` for
/// it: the tuned pipeline in place of the named one (the other pieces as they are), with the
/// hook's hints. Prints the hook's note. `Ok(None)` when nothing is replaced.
fn hooked_nodes(
    cli: &Cli,
    ctx: &Context,
    module: OpId,
    pieces: &[PipelinePiece],
    passes: &PassRegistry,
    config: &OptConfig,
) -> Result<Option<PassManager>, Diagnostic> {
    let (Some(name), Some(hook)) = (&cli.pipeline, &config.pipeline_hook) else { return Ok(None) };
    let at_module = |e: String| crate::builtin::op_error(ctx, module, e);
    let hints = match &cli.size_hints {
        Some(h) => Some(h.clone()),
        None => module_size_hints(ctx, module)?.map(|h| h.to_string()),
    };
    let (choice, note) = (hook.0)(ctx, module, name, hints.as_deref()).map_err(at_module)?;
    if let Some(n) = note {
        eprint_lossy(&format!("{TOOL}: note: {n}"));
    }
    let Some(choice) = choice else { return Ok(None) };
    let text = parse_pipeline(&choice.pipeline).map_err(|e| at_module(format!("tuned pipeline: {e}")))?;
    let hints = SizeHints::parse(&choice.hints).map_err(|e| at_module(format!("tuned size hints: {e}")))?;
    let mut own = vec![PipelinePiece { prefix: Some(format!("tuned pipeline '{name}'")), text }];
    // The named pipeline is the first piece; the others run after it, as given.
    own.extend(pieces.iter().skip(1).map(|p| PipelinePiece { prefix: p.prefix.clone(), text: p.text.clone() }));
    let pm = build_pass_manager_with(cli, &own, passes, Some(&hints)).map_err(|Fatal(m)| at_module(m))?;
    if cli.dump_pass_pipeline {
        eprint_lossy(&format!("{} (tuned)", pm.pipeline_text()));
    }
    Ok(Some(pm))
}

/// The passes to run on `module` when the command line gives no `--size-hints` and the
/// module has a `morf.size_hints` attribute: the pipeline rebuilt with those hints.
/// `Ok(None)` when the pipeline as built applies (a flag, no attribute, no passes).
fn module_hinted_nodes(
    cli: &Cli,
    ctx: &Context,
    module: OpId,
    pieces: &[PipelinePiece],
    passes: &PassRegistry,
) -> Result<Option<PassManager>, Diagnostic> {
    if cli.size_hints.is_some() || pieces.is_empty() {
        return Ok(None);
    }
    let Some(hints) = module_size_hints(ctx, module)? else { return Ok(None) };
    let mut pm = PassManager::new(Instrumentation::default());
    add_pieces(&mut pm, pieces, passes, Some(&hints)).map_err(|e| crate::builtin::op_error(ctx, module, e))?;
    Ok(Some(pm))
}

fn run(
    args: Vec<OsString>,
    setup: &dyn Fn(&mut Context),
    passes: &PassRegistry,
    config: &OptConfig,
) -> Result<i32, Fatal> {
    let mut sargs = Vec::with_capacity(args.len());
    for a in args {
        match a.into_string() {
            Ok(s) => sargs.push(s),
            Err(a) => return Err(Fatal(format!("argument {a:?} is not valid UTF-8"))),
        }
    }
    if sargs.is_empty() {
        sargs.push(TOOL.to_string());
    }
    let (rest, shorthand) = take_pass_flags(sargs, passes);
    let mut command = <Cli as clap::CommandFactory>::command();
    if let Some(extra) = &config.extra_help {
        command = command.after_help(format!("Tool flags:\n{extra}\n\n{AFTER_HELP}"));
    }
    let parsed = command.try_get_matches_from(rest).and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m));
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => {
            return Ok(match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    print_stdout(&e.render().to_string())?;
                    0
                }
                _ => {
                    eprint_text(&e.render().to_string());
                    1
                }
            });
        }
    };
    init_logging(cli.verbose);

    if cli.list_passes {
        print_stdout(&passes.list_text())?;
        return Ok(0);
    }
    if cli.reference_docs {
        let mut ctx = Context::new();
        setup(&mut ctx);
        print_stdout(&reference_docs(&ctx, passes))?;
        return Ok(0);
    }
    if cli.list_ops {
        let mut ctx = Context::new();
        setup(&mut ctx);
        let mut s = String::from("Registered ops:\n");
        for op in ctx.registry().ops() {
            s.push_str(&format!("  {:<30} {}\n", op.name, op.summary));
        }
        print_stdout(&s)?;
        return Ok(0);
    }

    let ptx = match (cli.emit.as_str(), config.ptx_emitter) {
        ("ptx", None) => return Err(Fatal("--emit=ptx is not available in this tool".into())),
        ("ptx", Some(e)) => Some((e, PtxFlags { version: cli.ptx_version.clone(), target: cli.ptx_target.clone() })),
        _ => None,
    };
    let mlir_export = match (cli.emit.as_str(), config.mlir_exporter) {
        ("mlir", None) => return Err(Fatal(MLIR_MISSING.replace("{flag}", "--emit=mlir"))),
        ("mlir", Some(e)) => Some(e),
        _ => None,
    };
    let mlir_import = match (cli.import.as_str(), config.mlir_importer) {
        ("mlir", None) => return Err(Fatal(MLIR_MISSING.replace("{flag}", "--import=mlir"))),
        ("mlir", Some(i)) => Some(i),
        _ => None,
    };
    if cli.ptx_version.is_some() || cli.ptx_target.is_some() {
        let flags = PtxFlags { version: cli.ptx_version.clone(), target: cli.ptx_target.clone() };
        if let Some(check) = config.ptx_check {
            check(&flags).map_err(Fatal)?;
        }
    }

    let pieces = pipeline_pieces(&cli, shorthand, passes)?;
    let mut pm = build_pass_manager(&cli, &pieces, passes)?;
    if cli.dump_pass_pipeline {
        eprint_lossy(&pm.pipeline_text());
    }

    // Input.
    let (file_name, bytes) = match cli.input.as_deref() {
        None | Some("-") => {
            let mut b = Vec::new();
            std::io::stdin()
                .read_to_end(&mut b)
                .map_err(|e| Fatal(format!("could not read standard input: {}", io_message(&e))))?;
            ("<stdin>".to_string(), b)
        }
        Some(path) => match std::fs::read(path) {
            Ok(b) => (path.to_string(), b),
            Err(e) => return Err(Fatal(format!("could not open input file '{path}': {}", io_message(&e)))),
        },
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            eprint_text(&invalid_utf8_diagnostic(&file_name, e.as_bytes(), e.utf8_error().valid_up_to()));
            return Ok(1);
        }
    };

    let chunks: Vec<Chunk<'_>> =
        if cli.split_input_file { split_input(&text) } else { vec![Chunk { text: &text, line_offset: 0 }] };
    let print_opts = PrintOptions { generic: cli.print_generic, debug_info: cli.debug_info };
    let mut outputs = Vec::with_capacity(chunks.len());
    let mut failed = false;
    let mut parse_time = Duration::ZERO;
    let mut output_time = Duration::ZERO;
    for chunk in &chunks {
        let mut ctx = Context::new();
        setup(&mut ctx);
        ctx.registry_mut().allow_unregistered = cli.allow_unregistered_dialect;
        ctx.add_source(&file_name, &text);

        let t0 = Instant::now();
        let parsed = match mlir_import {
            Some(import) => import(&mut ctx, &file_name, chunk.text, chunk.line_offset),
            None => parse_source(&mut ctx, &file_name, chunk.text, chunk.line_offset),
        };
        parse_time += t0.elapsed();
        let mut result: Result<OpId, Diagnostic> =
            parsed.and_then(|m| crate::verify::verify(&ctx, m).map(|_| m)).and_then(|m| {
                if pm.nodes.is_empty() {
                    return Ok(m);
                }
                // The module's own `morf.size_hints` (when no --size-hints is given): the
                // same passes, rebuilt with its hints, for this module only.
                let own = match hooked_nodes(&cli, &ctx, m, &pieces, passes, config)? {
                    Some(tuned) => Some((tuned, false)),
                    None => module_hinted_nodes(&cli, &ctx, m, &pieces, passes)?.map(|o| (o, true)),
                };
                let saved = own.map(|(own, by_attr)| {
                    if cli.dump_pass_pipeline && by_attr {
                        eprint_lossy(&format!("{} (with the module's {SIZE_HINTS_ATTR})", own.pipeline_text()));
                    }
                    std::mem::replace(&mut pm.nodes, own.nodes)
                });
                let r = pm.run(&mut ctx, m).map(|_| m);
                if let Some(nodes) = saved {
                    pm.nodes = nodes;
                }
                r
            });
        if !pm.dumps.is_empty() {
            eprint_text(&std::mem::take(&mut pm.dumps));
        }
        let mut emitted = None;
        if let (Ok(m), Some((emit, flags))) = (&result, &ptx) {
            match emit(&ctx, *m, flags) {
                Ok(text) => emitted = Some(text),
                Err(d) => result = Err(d),
            }
        }
        if let (Ok(m), Some(export)) = (&result, mlir_export) {
            match export(&ctx, *m) {
                Ok(text) => emitted = Some(text),
                Err(d) => result = Err(d),
            }
        }
        let mut diags = ctx.take_emitted();
        let module = match result {
            Ok(m) => Some(m),
            Err(d) => {
                diags.push(d);
                None
            }
        };

        if cli.verify_diagnostics {
            let (mut expected, mut problems) = parse_expectations(&mut ctx, &file_name, chunk.text, chunk.line_offset);
            problems.extend(check_diagnostics(&ctx, &file_name, &mut expected, &diags));
            for p in &problems {
                eprint_text(&ctx.render(p));
            }
            failed |= !problems.is_empty();
        } else {
            for d in &diags {
                eprint_text(&ctx.render(d));
            }
            let chunk_failed = module.is_none() || diags.iter().any(|d| d.severity == Severity::Error);
            failed |= chunk_failed;
            if chunk_failed {
                outputs.push(String::new());
                continue;
            }
        }
        let t1 = Instant::now();
        outputs.push(match emitted {
            Some(text) => text,
            None => module.map(|m| print_op(&ctx, m, &print_opts)).unwrap_or_default(),
        });
        output_time += t1.elapsed();
    }

    let t1 = Instant::now();
    let out = outputs.join(&format!("{SPLIT_MARKER}\n"));
    let written = match &cli.output {
        // An output file is replaced only by the result of a run that fully succeeded, and
        // atomically: a failed run leaves it as it was (`morf-opt bad.mlir -o bad.mlir`).
        Some(path) if path != "-" && failed => Ok(()),
        Some(path) if path != "-" => write_atomic(std::path::Path::new(path), out.as_bytes())
            .map_err(|e| Fatal(format!("could not open output file '{path}': {}", io_message(&e)))),
        // A closed pipe (`morf-opt x | head`) or a full disk is an error, not lost output.
        _ => print_stdout(&out),
    };
    output_time += t1.elapsed();
    written?;

    if cli.timing {
        let mut all = vec![("Parser".to_string(), parse_time)];
        all.extend(std::mem::take(&mut pm.times));
        all.push(("Output".to_string(), output_time));
        eprint_text(&pm.timing_report(&all));
    }
    Ok(if failed { 1 } else { 0 })
}

/// The Markdown reference of `--reference-docs`: per dialect, a table of its ops (summary,
/// traits, and which hooks the definition provides), then the passes with their options and
/// the named pipelines, all read from the registries.
/// One op's declared signature as a line of the reference:
/// `(lhs: a float tensor, rhs: ...) -> (result: ...) {kind: a string, axis?: an integer} [body]`.
fn signature_text(g: &crate::registry::OpSignature) -> String {
    let list = |fixed: &[(&str, &str)], variadic: Option<(&str, &str)>| {
        let mut v: Vec<String> = fixed.iter().map(|(n, d)| format!("{n}: {d}")).collect();
        if let Some((n, d)) = variadic {
            v.push(format!("{n}...: {d}"));
        }
        v.join(", ")
    };
    let mut s = format!("({})", list(g.operands, g.variadic));
    let results = list(g.results, g.variadic_results);
    if !results.is_empty() {
        s.push_str(&format!(" -> ({results})"));
    }
    let attrs: Vec<String> = g
        .attrs
        .iter()
        .map(|(n, d)| format!("{n}: {d}"))
        .chain(g.optional_attrs.iter().map(|(n, d)| format!("{n}?: {d}")))
        .collect();
    if !attrs.is_empty() {
        s.push_str(&format!(" {{{}}}", attrs.join(", ")));
    }
    if !g.regions.is_empty() {
        s.push_str(&format!(" [{}]", g.regions.join(", ")));
    }
    s
}

fn reference_docs(ctx: &Context, passes: &PassRegistry) -> String {
    use crate::registry::Traits;
    let cell = |t: &str| t.replace('|', "\\|");
    let mut s = String::from(
        "# Reference: dialects, ops and passes\n\n\
         Generated by `morf-opt --reference-docs` from the op and pass definitions (the registries); \
         `test/Docs/reference.mlir` checks that this page is current. Hooks: **F** custom form, \
         **V** verifier, **Fo** folder, **C** canonicalization patterns, **I** interpreter hook (an \
         `mgpu` op inside a kernel runs on the simulator; its hook reports an error elsewhere), \
         **E** elementwise function.\n",
    );
    let mut dialects: Vec<_> = ctx.registry().dialects().collect();
    dialects.sort_by_key(|d| d.name);
    let traits: [(Traits, &str); 12] = [
        (Traits::PURE, "pure"),
        (Traits::ELEMENTWISE, "elementwise"),
        (Traits::SAME_OPERANDS_AND_RESULT_TYPE, "same operand and result type"),
        (Traits::SAME_OPERANDS_AND_RESULT_SHAPE, "same operand and result shape"),
        (Traits::COMMUTATIVE, "commutative"),
        (Traits::CONSTANT_LIKE, "constant-like"),
        (Traits::TERMINATOR, "terminator"),
        (Traits::NO_TERMINATOR, "no terminator"),
        (Traits::SINGLE_BLOCK, "single block"),
        (Traits::ISOLATED_FROM_ABOVE, "isolated from above"),
        (Traits::SYMBOL, "symbol"),
        (Traits::SYMBOL_TABLE, "symbol table"),
    ];
    for d in dialects {
        s.push_str(&format!("\n## `{}`: {}\n\n", d.name, cell(d.summary)));
        s.push_str("| op | summary | signature | traits | hooks |\n| --- | --- | --- | --- | --- |\n");
        let mut ops: Vec<_> = ctx.registry().ops().filter(|o| o.name.split('.').next() == Some(d.name)).collect();
        ops.sort_by_key(|o| o.name);
        for o in ops {
            let t: Vec<&str> = traits.iter().filter(|(t, _)| o.has(*t)).map(|(_, n)| *n).collect();
            let hooks: Vec<&str> = [
                (o.parse.is_some(), "F"),
                (o.verify.is_some(), "V"),
                (o.fold.is_some(), "Fo"),
                (o.patterns.is_some(), "C"),
                (o.interpret.is_some(), "I"),
                (o.elementwise.is_some(), "E"),
            ]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
            s.push_str(&format!(
                "| `{}` | {} | {} | {} | {} |\n",
                o.name,
                cell(o.summary),
                o.signature.map(|g| cell(&signature_text(g))).unwrap_or_default(),
                t.join(", "),
                hooks.join(" ")
            ));
        }
    }
    s.push_str(
        "\nSignatures: operands `(name: constraint, ...)`, `-> results`, `{attributes}` (`?` optional), \
         `[regions]`; `...` marks a variadic group. Ops defined without `define_op!` have none.\n",
    );
    s.push_str("\n## Passes\n");
    let mut ps: Vec<_> = passes.passes().collect();
    ps.sort_by_key(|p| p.name);
    for p in ps {
        s.push_str(&format!("\n### `{}`\n\n{}\n", p.name, p.description));
        if !p.options.is_empty() {
            s.push_str("\n| option | default | meaning |\n| --- | --- | --- |\n");
            for o in p.options {
                s.push_str(&format!("| `{}` | `{}` | {} |\n", o.key, cell(o.default), cell(o.help)));
            }
        }
    }
    s.push_str("\n## Named pipelines\n\n| name | description | passes |\n| --- | --- | --- |\n");
    let mut pl: Vec<_> = passes.pipelines().collect();
    pl.sort_by_key(|p| p.name);
    for p in pl {
        s.push_str(&format!("| `{}` | {} | `{}` |\n", p.name, cell(p.description), p.text));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_flags_are_taken_in_order() {
        let mut reg = PassRegistry::default();
        reg.register(crate::pass::PassInfo {
            name: "cse",
            description: "",
            options: &[],
            create: |_| Err("unused".into()),
        });
        let args: Vec<String> =
            ["morf-opt", "--cse=a=1 b", "x.mlir", "--cses", "--", "--cse"].iter().map(|s| s.to_string()).collect();
        let (rest, flags) = take_pass_flags(args, &reg);
        assert_eq!(rest, ["morf-opt", "x.mlir", "--cses", "--", "--cse"]);
        assert_eq!(flags, [PipelineElement::Pass { name: "cse".into(), options: "a=1 b".into() }]);
    }

    #[test]
    fn invalid_utf8_points_at_the_byte() {
        let bytes = b"ok\n  x = \"\xc3\xa9\xff\"\n";
        let valid = bytes.iter().position(|&b| b == 0xff).unwrap();
        let text = invalid_utf8_diagnostic("f.mlir", bytes, valid);
        assert!(text.starts_with("f.mlir:2:9: error: invalid UTF-8 in source (byte 0xff)\n"), "{text}");
    }

    #[test]
    fn io_messages_drop_the_os_error() {
        let e = std::fs::read("/definitely/not/here").unwrap_err();
        assert_eq!(io_message(&e), "No such file or directory");
    }
}
