//! Passes and the pass manager.
//!
//! - [`Pass`]: a named transformation of one op (its anchor), with options.
//! - [`PassRegistry`]: every pass by name, with its description and options, built from
//!   text options `name{key=value ...}`.
//! - [`pipeline`]: the textual pipeline syntax
//!   `builtin.module(func.func(canonicalize{max-iterations=8},cse),dce)`.
//! - [`PassManager`]: runs a pipeline with instrumentation: verification after each pass
//!   (on by default; a failure names the pass), IR printing before/after passes, and a
//!   timing report.
//! - [`hints`]: size hints (`M=576000,N=384`) given to a whole pipeline: every pass that
//!   declares a `size-hints` option gets them ([`apply_size_hints`]).

pub mod hints;
pub mod pipeline;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::asm::printer::{print_op, PrintOptions};
use crate::builtin::op_error;
use crate::context::{Context, OpId};
use crate::diag::Diagnostic;

pub use hints::{
    apply_pass_option, apply_size_hints, module_size_hints, HintsApplied, SizeHints, SIZE_HINTS_ATTR, SIZE_HINTS_OPTION,
};
pub use pipeline::{parse_pipeline, PipelineElement, PipelineText};

/// A pass failed; its diagnostic has the details.
pub type PassResult = Result<(), Diagnostic>;

/// A transformation of the IR under one op.
pub trait Pass {
    /// The pipeline name (`canonicalize`).
    fn name(&self) -> &'static str;
    /// The op kind the pass must run on, if restricted (`func.func`).
    fn anchor(&self) -> Option<&'static str> {
        None
    }
    /// Runs on `op` (and only on what is nested in it).
    fn run(&mut self, ctx: &mut Context, op: OpId) -> PassResult;
    /// The options as text, for `--dump-pass-pipeline` (`max-iterations=10`).
    fn options_text(&self) -> String {
        String::new()
    }
}

/// One option of a pass: key, help and the default as text.
#[derive(Clone, Debug)]
pub struct PassOptionInfo {
    /// kebab-case key.
    pub key: &'static str,
    /// One-line help.
    pub help: &'static str,
    /// The default value as text.
    pub default: &'static str,
}

/// Parsed `key=value` options of a pass.
#[derive(Clone, Debug, Default)]
pub struct PassOptions {
    entries: Vec<(String, String)>,
}

impl PassOptions {
    /// Parses `key=value key2=value2 flag` (the text inside `{}`).
    ///
    /// A value may be quoted with `"..."` or `'...'` (as in MLIR) to hold spaces, braces,
    /// commas or `=`: `dump-egraph="/tmp/a b.dot"`. The quotes are removed; there are no
    /// escapes inside them (see [`quote_option_value`]).
    pub fn parse(text: &str) -> Result<PassOptions, String> {
        let mut entries = Vec::new();
        for part in split_options(text)? {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            match part.split_once('=') {
                Some((k, v)) => entries.push((k.trim().to_string(), unquote(v.trim()).to_string())),
                None => entries.push((part.to_string(), "true".to_string())),
            }
        }
        Ok(PassOptions { entries })
    }

    /// Every `(key, value)` in the order written (a key given twice appears twice; [`Self::get`]
    /// answers the last).
    pub fn entries(&self) -> &[(String, String)] {
        &self.entries
    }

    /// The raw value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Fails on a key not in `known`.
    pub fn check_known(&self, pass: &str, known: &[PassOptionInfo]) -> Result<(), String> {
        for (k, _) in &self.entries {
            if !known.iter().any(|o| o.key == k) {
                let list: Vec<&str> = known.iter().map(|o| o.key).collect();
                return Err(if list.is_empty() {
                    format!("pass '{pass}' has no option '{k}'")
                } else {
                    format!("pass '{pass}' has no option '{k}' (options: {})", list.join(", "))
                });
            }
        }
        Ok(())
    }

    /// An unsigned integer option.
    pub fn usize(&self, key: &str, default: usize) -> Result<usize, String> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("option '{key}' expects an unsigned integer, got '{v}'")),
        }
    }

    /// A float option.
    pub fn f64(&self, key: &str, default: f64) -> Result<f64, String> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("option '{key}' expects a number, got '{v}'")),
        }
    }

    /// A boolean option (`key`, `key=true`, `key=false`, `key=1`, `key=0`).
    pub fn bool(&self, key: &str, default: bool) -> Result<bool, String> {
        match self.get(key) {
            None => Ok(default),
            Some("true" | "1") => Ok(true),
            Some("false" | "0") => Ok(false),
            Some(v) => Err(format!("option '{key}' expects true or false, got '{v}'")),
        }
    }

    /// A string option.
    pub fn string(&self, key: &str, default: &str) -> String {
        self.get(key).unwrap_or(default).to_string()
    }

    /// A list of named sizes, `M=576000,N=384` (the `size-hints` of the passes that
    /// specialize for sizes); empty when absent. Sizes are unsigned integers.
    pub fn named_sizes(&self, key: &str) -> Result<std::collections::BTreeMap<String, u64>, String> {
        let mut out = std::collections::BTreeMap::new();
        for item in self.get(key).unwrap_or("").split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let bad = || format!("option '{key}' expects NAME=SIZE items, got '{item}'");
            let (k, v) = item.split_once('=').ok_or_else(bad)?;
            let v = v.trim().parse::<u64>().map_err(|_| bad())?;
            out.insert(k.trim().to_string(), v);
        }
        Ok(out)
    }
}

/// Splits option text on spaces outside brackets and quotes (`"..."` or `'...'`).
fn split_options(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match c {
            _ if quote == Some(c) => {
                quote = None;
                cur.push(c)
            }
            _ if quote.is_some() => cur.push(c),
            '"' | '\'' => {
                quote = Some(c);
                cur.push(c)
            }
            '{' | '[' | '(' => {
                depth += 1;
                cur.push(c)
            }
            '}' | ']' | ')' => {
                depth -= 1;
                cur.push(c)
            }
            ' ' | '\t' | '\n' | '\r' if depth == 0 => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if let Some(q) = quote {
        return Err(format!("unterminated {q} in pass options '{text}'"));
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    Ok(out)
}

/// `v` without its enclosing quotes, if it is quoted.
fn unquote(v: &str) -> &str {
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return &v[1..v.len() - 1];
        }
    }
    v
}

/// `s` with its control characters escaped (`\n`), for messages.
fn escape_controls(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { c.escape_debug().to_string() } else { c.to_string() }).collect()
}

/// Writes `value` so that [`PassOptions::parse`] reads it back unchanged as the value of
/// one `key=value` option: as it is when it is a plain word, otherwise in `"..."` (or
/// `'...'` when it contains `"`). Fails on a value that no quoting can carry: one with both
/// kinds of quote, or with a control character such as a newline.
pub fn quote_option_value(value: &str) -> Result<String, String> {
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(format!(
            "'{}' cannot be a pass option value: it contains the control character '{}'",
            escape_controls(value),
            c.escape_debug()
        ));
    }
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | ':' | '@' | '%' | '~'));
    if plain {
        return Ok(value.to_string());
    }
    if !value.contains('"') {
        Ok(format!("\"{value}\""))
    } else if !value.contains('\'') {
        Ok(format!("'{value}'"))
    } else {
        Err(format!("'{value}' cannot be a pass option value: it contains both ' and \""))
    }
}

/// Creates a pass from its options.
pub type PassCtor = fn(&PassOptions) -> Result<Box<dyn Pass>, String>;

/// A registered pass.
#[derive(Clone)]
pub struct PassInfo {
    /// Pipeline name.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// Its options.
    pub options: &'static [PassOptionInfo],
    /// Constructor.
    pub create: PassCtor,
}

/// A named pipeline (`--pipeline=fuse`): a description and its pipeline text.
#[derive(Clone)]
pub struct NamedPipeline {
    /// Name.
    pub name: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// The pipeline text it expands to.
    pub text: &'static str,
}

/// Every pass and named pipeline known to a tool.
#[derive(Default, Clone)]
pub struct PassRegistry {
    passes: BTreeMap<&'static str, PassInfo>,
    pipelines: BTreeMap<&'static str, NamedPipeline>,
}

impl PassRegistry {
    /// Registers a pass.
    pub fn register(&mut self, info: PassInfo) {
        self.passes.insert(info.name, info);
    }
    /// Registers a named pipeline.
    pub fn register_pipeline(&mut self, p: NamedPipeline) {
        self.pipelines.insert(p.name, p);
    }
    /// The pass named `name`.
    pub fn get(&self, name: &str) -> Option<&PassInfo> {
        self.passes.get(name)
    }
    /// The named pipeline `name`.
    pub fn pipeline(&self, name: &str) -> Option<&NamedPipeline> {
        self.pipelines.get(name)
    }
    /// All passes, sorted by name.
    pub fn passes(&self) -> impl Iterator<Item = &PassInfo> {
        self.passes.values()
    }
    /// All named pipelines, sorted by name.
    pub fn pipelines(&self) -> impl Iterator<Item = &NamedPipeline> {
        self.pipelines.values()
    }
    /// The passes of pipeline `text` that take size hints, in pipeline order, each once
    /// (none when the text does not parse).
    pub fn pipeline_size_hinted_passes(&self, text: &str) -> Vec<String> {
        fn walk(reg: &PassRegistry, elems: &[PipelineElement], out: &mut Vec<String>) {
            for e in elems {
                match e {
                    PipelineElement::Pass { name, .. } => {
                        if reg.takes_size_hints(name) && !out.contains(name) {
                            out.push(name.clone());
                        }
                    }
                    PipelineElement::Nested { elements, .. } => walk(reg, elements, out),
                }
            }
        }
        let mut out = Vec::new();
        match parse_pipeline(text) {
            Ok(PipelineText::Anchored { elements, .. } | PipelineText::Bare(elements)) => {
                walk(self, &elements, &mut out)
            }
            Err(_) => {}
        }
        out
    }
    /// Builds a pass from its name and option text.
    pub fn create(&self, name: &str, options: &str) -> Result<Box<dyn Pass>, String> {
        let info = self.passes.get(name).ok_or_else(|| format!("'{name}' does not refer to a registered pass"))?;
        let opts = PassOptions::parse(options)?;
        opts.check_known(name, info.options)?;
        (info.create)(&opts).map_err(|e| format!("pass '{name}': {e}"))
    }
    /// The `--list-passes` text.
    pub fn list_text(&self) -> String {
        let mut s = String::from("Available passes:\n");
        for p in self.passes.values() {
            s.push_str(&format!("  --{:<28} {}\n", p.name, p.description));
            for o in p.options {
                s.push_str(&format!("      {:<26} {} (default: {})\n", o.key, o.help, o.default));
            }
        }
        if !self.pipelines.is_empty() {
            s.push_str("Named pipelines (--pipeline=NAME):\n");
            for p in self.pipelines.values() {
                s.push_str(&format!("  {:<30} {}\n      = {}\n", p.name, p.description, p.text));
                let takers = self.pipeline_size_hinted_passes(p.text);
                if !takers.is_empty() {
                    s.push_str(&format!("      --size-hints go to: {}\n", takers.join(", ")));
                }
            }
        }
        s
    }
}

/// Instrumentation settings of a [`PassManager`].
#[derive(Clone, Debug, Default)]
pub struct Instrumentation {
    /// Verify after every pass (on by default in tools).
    pub verify_each: bool,
    /// Print the IR before every pass.
    pub print_before_all: bool,
    /// Print the IR after every pass.
    pub print_after_all: bool,
    /// Print the IR before these passes.
    pub print_before: Vec<String>,
    /// Print the IR after these passes.
    pub print_after: Vec<String>,
    /// Print the IR after a pass only if it changed.
    pub print_after_change: bool,
    /// Print the IR after a pass that failed.
    pub print_after_failure: bool,
    /// Print ops in generic form in dumps.
    pub print_generic: bool,
    /// Collect per-pass times.
    pub timing: bool,
}

/// A tree of passes: passes to run on one op, or nested managers for ops inside it.
pub enum PmNode {
    /// A pass to run on the current op.
    Pass(Box<dyn Pass>),
    /// Run the inner nodes on every op named `anchor` directly inside the current op.
    Nested {
        /// The op name.
        anchor: String,
        /// What to run on each.
        nodes: Vec<PmNode>,
    },
}

/// Runs a pipeline of passes with instrumentation.
pub struct PassManager {
    /// The op name of the root (`builtin.module`).
    pub anchor: String,
    /// The passes.
    pub nodes: Vec<PmNode>,
    /// Instrumentation.
    pub instr: Instrumentation,
    /// IR dumps written so far (the driver sends them to stderr).
    pub dumps: String,
    /// Time per pass name, in run order.
    pub times: Vec<(String, Duration)>,
}

impl PassManager {
    /// An empty manager anchored on `builtin.module`.
    pub fn new(instr: Instrumentation) -> Self {
        PassManager {
            anchor: "builtin.module".into(),
            nodes: Vec::new(),
            instr,
            dumps: String::new(),
            times: Vec::new(),
        }
    }

    /// Builds the manager from parsed pipeline text.
    pub fn add_pipeline(&mut self, reg: &PassRegistry, text: &PipelineText) -> Result<(), String> {
        let (anchor, elems) = match text {
            PipelineText::Anchored { anchor, elements } => (Some(anchor.clone()), elements),
            PipelineText::Bare(elements) => (None, elements),
        };
        if let Some(a) = anchor {
            if a != self.anchor {
                return Err(format!("pipeline anchored on '{a}' cannot run on '{}'", self.anchor));
            }
        }
        let nodes = build_nodes(reg, elems)?;
        self.nodes.extend(nodes);
        Ok(())
    }

    /// Builds the manager from parsed pipeline text, giving `hints` (if any) to every pass
    /// of it that takes size hints ([`apply_size_hints`]; an explicit `size-hints` option
    /// wins). Returns what the hints reached.
    pub fn add_pipeline_with_hints(
        &mut self,
        reg: &PassRegistry,
        text: &PipelineText,
        hints: Option<&SizeHints>,
    ) -> Result<HintsApplied, String> {
        match hints {
            None => self.add_pipeline(reg, text).map(|_| HintsApplied::default()),
            Some(h) => {
                let mut text = text.clone();
                let done = apply_size_hints(&mut text, reg, h);
                self.add_pipeline(reg, &text)?;
                Ok(done)
            }
        }
    }

    /// The pipeline as text (`--dump-pass-pipeline`).
    pub fn pipeline_text(&self) -> String {
        format!("{}({})", self.anchor, nodes_text(&self.nodes))
    }

    /// Runs every pass on `root`.
    pub fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        if ctx.op_name(root) != self.anchor {
            return Err(op_error(ctx, root, format!("cannot run a pipeline anchored on '{}'", self.anchor)));
        }
        let mut nodes = std::mem::take(&mut self.nodes);
        let r = self.run_nodes(ctx, root, &mut nodes);
        self.nodes = nodes;
        r
    }

    fn run_nodes(&mut self, ctx: &mut Context, op: OpId, nodes: &mut [PmNode]) -> PassResult {
        for node in nodes.iter_mut() {
            match node {
                PmNode::Pass(p) => self.run_pass(ctx, op, p.as_mut())?,
                PmNode::Nested { anchor, nodes } => {
                    let mut targets = Vec::new();
                    for &r in ctx.regions(op) {
                        for b in ctx.region_blocks(r) {
                            for o in ctx.block_ops(b) {
                                if ctx.op_name(o) == anchor {
                                    targets.push(o);
                                }
                            }
                        }
                    }
                    for t in targets {
                        self.run_nodes(ctx, t, nodes)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn dump(&mut self, ctx: &Context, op: OpId, header: String) {
        let opts = PrintOptions { generic: self.instr.print_generic, debug_info: false };
        self.dumps.push_str(&header);
        self.dumps.push('\n');
        self.dumps.push_str(&print_op(ctx, op, &opts));
        self.dumps.push('\n');
    }

    fn run_pass(&mut self, ctx: &mut Context, op: OpId, pass: &mut dyn Pass) -> PassResult {
        let name = pass.name();
        if let Some(a) = pass.anchor() {
            if ctx.op_name(op) != a {
                return Err(op_error(
                    ctx,
                    op,
                    format!("pass '{name}' must run on '{a}'; nest it, as in builtin.module({a}({name}))"),
                ));
            }
        }
        let header = |when: &str| format!("// -----// IR Dump {when} {name} //----- //");
        if self.instr.print_before_all || self.instr.print_before.iter().any(|p| p == name) {
            self.dump(ctx, op, header("Before"));
        }
        let before_text = if self.instr.print_after_change {
            Some(print_op(ctx, op, &PrintOptions { generic: true, debug_info: false }))
        } else {
            None
        };
        let _span = tracing::debug_span!("pass", name).entered();
        // `RUST_LOG=morf=debug`: each pass's op counts and time (the walk only when asked).
        let count_ops = tracing::enabled!(tracing::Level::DEBUG);
        let ops_before = if count_ops { count_nested_ops(ctx, op) } else { 0 };
        let start = Instant::now();
        // A panic is a bug in the pass, never the user's fault; report it as an internal
        // error instead of crashing (last resort: the IR may be half rewritten).
        let loc = ctx.op_loc(op);
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pass.run(ctx, op))).unwrap_or_else(|payload| {
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "panic".to_string());
                Err(Diagnostic::error(loc, format!("internal compiler error in pass '{name}': {msg}")))
            });
        if result.as_ref().is_err_and(|d| d.message.starts_with("internal compiler error")) {
            return result;
        }
        let elapsed = start.elapsed();
        if count_ops && result.is_ok() {
            let ops_after = count_nested_ops(ctx, op);
            tracing::debug!(ops_before, ops_after, time_us = elapsed.as_micros() as u64, "pass done");
        }
        if self.instr.timing {
            match self.times.iter_mut().find(|(n, _)| n == name) {
                Some(slot) => slot.1 += elapsed,
                None => self.times.push((name.to_string(), elapsed)),
            }
        }
        if let Err(e) = result {
            if self.instr.print_after_failure {
                self.dump(ctx, op, header("After Failed"));
            }
            return Err(e);
        }
        let mut verify_error = None;
        if self.instr.verify_each {
            if let Err(d) = crate::verify::verify(ctx, op) {
                verify_error =
                    Some(d.with_note(ctx.op_loc(op), format!("the IR failed to verify after pass '{name}'")));
            }
        }
        let after = self.instr.print_after_all || self.instr.print_after.iter().any(|p| p == name);
        if let Some(before) = before_text {
            let now = print_op(ctx, op, &PrintOptions { generic: true, debug_info: false });
            if now != before {
                self.dump(ctx, op, header("After"));
            }
        } else if after {
            self.dump(ctx, op, header("After"));
        }
        match verify_error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The `--timing` report.
    pub fn timing_report(&self, extra: &[(String, Duration)]) -> String {
        let all: Vec<&(String, Duration)> = extra.iter().chain(self.times.iter()).collect();
        let total: Duration = all.iter().map(|(_, d)| *d).sum();
        let mut s = String::new();
        s.push_str("===-------------------------------------------------------------------------===\n");
        s.push_str("                         ... Execution time report ...\n");
        s.push_str("===-------------------------------------------------------------------------===\n");
        s.push_str(&format!("  Total Execution Time: {:.4} seconds\n\n", total.as_secs_f64()));
        s.push_str("  ----Wall Time----  ----Name----\n");
        for (n, d) in &all {
            let pct = if total.as_secs_f64() > 0.0 { 100.0 * d.as_secs_f64() / total.as_secs_f64() } else { 0.0 };
            s.push_str(&format!("    {:.4} ({:5.1}%)  {}\n", d.as_secs_f64(), pct, n));
        }
        s.push_str(&format!("    {:.4} (100.0%)  Total\n", total.as_secs_f64()));
        s
    }
}

fn build_nodes(reg: &PassRegistry, elems: &[PipelineElement]) -> Result<Vec<PmNode>, String> {
    let mut nodes = Vec::new();
    for e in elems {
        match e {
            PipelineElement::Pass { name, options } => nodes.push(PmNode::Pass(reg.create(name, options)?)),
            PipelineElement::Nested { anchor, elements } => {
                if anchor.starts_with("builtin.module") || anchor == "func.func" || anchor.contains('.') {
                    nodes.push(PmNode::Nested { anchor: anchor.clone(), nodes: build_nodes(reg, elements)? });
                } else {
                    return Err(format!("'{anchor}' is not an op name to nest a pipeline on"));
                }
            }
        }
    }
    Ok(nodes)
}

fn nodes_text(nodes: &[PmNode]) -> String {
    let parts: Vec<String> = nodes
        .iter()
        .map(|n| match n {
            PmNode::Pass(p) => {
                let o = p.options_text();
                if o.is_empty() {
                    p.name().to_string()
                } else {
                    format!("{}{{{}}}", p.name(), o)
                }
            }
            PmNode::Nested { anchor, nodes } => format!("{anchor}({})", nodes_text(nodes)),
        })
        .collect();
    parts.join(",")
}

/// The ops nested in `op` (itself included), for the per-pass debug log.
fn count_nested_ops(ctx: &Context, op: OpId) -> usize {
    let mut n = 0;
    ctx.walk(op, &mut |_| n += 1);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_values_keep_spaces_and_lose_quotes() {
        let o = PassOptions::parse("dump-egraph=\"/tmp/a b.dot\" report name='x \"y\"' n=3").unwrap();
        assert_eq!(o.get("dump-egraph"), Some("/tmp/a b.dot"));
        assert_eq!(o.get("report"), Some("true"));
        assert_eq!(o.get("name"), Some("x \"y\""));
        assert_eq!(o.get("n"), Some("3"));
        assert!(PassOptions::parse("a=\"open").is_err());
    }

    #[test]
    fn quoting_round_trips() {
        for v in ["/tmp/eg.dot", "/tmp/a b.dot", "a{b}=c,d", "say \"hi\"", "it's", "x=1 y=2", ""] {
            let q = quote_option_value(v).unwrap();
            let o = PassOptions::parse(&format!("k={q} other")).unwrap();
            assert_eq!(o.get("k"), Some(v), "{q}");
            assert_eq!(o.get("other"), Some("true"));
        }
        assert_eq!(quote_option_value("/tmp/eg.dot").unwrap(), "/tmp/eg.dot");
        assert!(quote_option_value("a'b\"c").is_err());
        assert!(quote_option_value("a\nb").is_err());
    }
}
