//! Using a tuning cache: the pipeline a compile runs when the cache has an entry for the
//! program, shape bucket and device ([`resolve`]), and the options an entry adds to a
//! pipeline ([`pipeline_with_options`]).

use std::collections::BTreeMap;

use morf_ir::pass::{parse_pipeline, PassOptions, PassRegistry, PipelineElement, PipelineText, SizeHints};
use morf_ir::{Context, OpId};

use super::cache::{DeviceKey, DeviceMatch, TuningCache, TuningEntry};
use super::key::{program_hash, shape_bucket};

/// What a compile runs after consulting a tuning cache.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolution {
    /// The cache has an entry: compile with `pipeline` (textual, the entry's options added)
    /// and `hints` (the bucket's, so every size of the bucket gets the same program).
    Tuned {
        /// The textual pipeline.
        pipeline: String,
        /// The bucket's size hints.
        hints: String,
        /// The entry used.
        entry: Box<TuningEntry>,
        /// A one-line account for logs and reports.
        note: String,
    },
    /// No entry: the pipeline runs as named and the cost model and heuristics decide.
    Untuned {
        /// Why, in one line.
        note: String,
    },
}

impl Resolution {
    /// The one-line account.
    pub fn note(&self) -> &str {
        match self {
            Resolution::Tuned { note, .. } | Resolution::Untuned { note } => note,
        }
    }
}

/// `pipeline` (a registered name or a textual pipeline) with `options` added to its passes:
/// each pass named in `options` gets those `key=value`s. For a registered pipeline they
/// replace the values its text sets (its text holds defaults, such as `gpu`'s
/// `fuse-mixed-reductions{partials=resident}`, and a tuned entry is a choice against them);
/// for a textual pipeline an option written in it wins (the user said what they want). A pass
/// named in `options` that the pipeline does not run is an error, as is text that does not
/// parse.
pub fn pipeline_with_options(
    reg: &PassRegistry,
    pipeline: &str,
    options: &BTreeMap<String, String>,
) -> Result<String, String> {
    let tuned_wins = reg.pipeline(pipeline).is_some();
    let mut text = parsed_pipeline(reg, pipeline)?;
    let mut used: Vec<&str> = Vec::new();
    let elements = match &mut text {
        PipelineText::Anchored { elements, .. } => elements,
        PipelineText::Bare(elements) => elements,
    };
    add_options(elements, options, tuned_wins, &mut used)?;
    if let Some(missing) = options.keys().find(|p| !used.contains(&p.as_str())) {
        return Err(format!("pipeline '{pipeline}' does not run pass '{missing}'"));
    }
    Ok(text.to_string())
}

/// A registered pipeline's text (by name), or `pipeline` itself as pipeline text, parsed.
fn parsed_pipeline(reg: &PassRegistry, pipeline: &str) -> Result<PipelineText, String> {
    let source = reg.pipeline(pipeline).map_or_else(|| pipeline.to_string(), |p| p.text.to_string());
    parse_pipeline(&source).map_err(|e| format!("pipeline '{pipeline}': {e}"))
}

/// The names of the passes a pipeline runs (a registered pipeline's name, or pipeline text),
/// nested ones included, in order: what the tuner's knobs may apply to. Parsed, so that a pass
/// written with options (`fuse-mixed-reductions{partials=resident}`, as the `gpu` pipeline has
/// it) counts.
pub fn pipeline_passes(reg: &PassRegistry, pipeline: &str) -> Result<Vec<String>, String> {
    let text = parsed_pipeline(reg, pipeline)?;
    fn walk(elements: &[PipelineElement], out: &mut Vec<String>) {
        for e in elements {
            match e {
                PipelineElement::Nested { elements, .. } => walk(elements, out),
                PipelineElement::Pass { name, .. } => out.push(name.clone()),
            }
        }
    }
    let mut out = Vec::new();
    match &text {
        PipelineText::Anchored { elements, .. } | PipelineText::Bare(elements) => walk(elements, &mut out),
    }
    Ok(out)
}

fn add_options<'a>(
    elements: &mut [PipelineElement],
    options: &'a BTreeMap<String, String>,
    tuned_wins: bool,
    used: &mut Vec<&'a str>,
) -> Result<(), String> {
    for e in elements {
        match e {
            PipelineElement::Nested { elements, .. } => add_options(elements, options, tuned_wins, used)?,
            PipelineElement::Pass { name, options: text } => {
                let Some((key, extra)) = options.get_key_value(name.as_str()) else { continue };
                used.push(key);
                let have = PassOptions::parse(text).map_err(|m| format!("pass '{name}': {m}"))?;
                let add = PassOptions::parse(extra).map_err(|m| format!("tuned options of '{name}': {m}"))?;
                let mut parts: Vec<String> = Vec::new();
                for (k, v) in have.entries() {
                    if !(tuned_wins && add.get(k).is_some()) {
                        parts.push(format!("{k}={}", morf_ir::pass::quote_option_value(v)?));
                    }
                }
                for (k, v) in add.entries() {
                    if tuned_wins || have.get(k).is_none() {
                        parts.push(format!("{k}={}", morf_ir::pass::quote_option_value(v)?));
                    }
                }
                *text = parts.join(" ");
            }
        }
    }
    Ok(())
}

/// The program a lookup is for: function `func` of `module` in `ctx`.
#[derive(Clone, Copy)]
pub struct ProgramRef<'a> {
    /// The context.
    pub ctx: &'a Context,
    /// The tensor-level module (its hash is the key).
    pub module: OpId,
    /// The function.
    pub func: OpId,
}

/// Looks `func` of `module` up in `cache` for `pipeline` on `device` with size `hints`
/// (`M=576000,N=384`): the program's hash, the bucket of the hints and the device pick the
/// entry ([`TuningCache::lookup`]). Only a registered pipeline name is tuned (a textual
/// pipeline already says what it wants), and only with hints (the bucket needs sizes).
pub fn resolve(
    cache: &TuningCache,
    reg: &PassRegistry,
    prog: ProgramRef<'_>,
    pipeline: &str,
    hints: Option<&str>,
    device: &DeviceKey,
) -> Result<Resolution, String> {
    let ProgramRef { ctx, module, func } = prog;
    let fname = morf_ir::builtin::symbol_name(ctx, func).unwrap_or("?").to_string();
    if reg.pipeline(pipeline).is_none() {
        return Ok(Resolution::Untuned {
            note: format!("@{fname}: untuned (the textual pipeline is used as written)"),
        });
    }
    let Some(hints) = hints else {
        return Ok(Resolution::Untuned {
            note: format!("@{fname}: untuned (no sizes to pick a shape bucket: give size hints)"),
        });
    };
    let parsed = SizeHints::parse(hints).map_err(|e| format!("size hints '{hints}': {e}"))?;
    let sizes: Vec<(String, u64)> = parsed.entries().to_vec();
    let bucket = shape_bucket(ctx, func, &sizes);
    let program = program_hash(ctx, module);
    let Some((entry, how)) = cache.lookup(&program, &fname, pipeline, &bucket.key, device) else {
        return Ok(Resolution::Untuned {
            note: format!(
                "@{fname}: no tuning entry for program {program}, pipeline '{pipeline}', bucket {} on {device}: the cost model decides",
                bucket.key
            ),
        });
    };
    let text = pipeline_with_options(reg, pipeline, &entry.options)?;
    let driver = match how {
        DeviceMatch::Exact => String::new(),
        DeviceMatch::OtherDriver => format!(" (measured under driver {}, not this one)", entry.device.driver),
    };
    let note = format!(
        "@{fname}: tuned schedule for bucket {} on {}{driver}: {}",
        bucket.key,
        entry.device.name,
        entry.options_text()
    );
    Ok(Resolution::Tuned { pipeline: text, hints: bucket.hints, entry: Box::new(entry.clone()), note })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bind::{load_module, new_context, select_function};
    use crate::compile::pass_registry;

    #[test]
    fn options_join_the_named_pipeline() {
        let reg = pass_registry();
        let o: BTreeMap<String, String> =
            [("lower-loop-to-gpu".to_string(), "threads=512 min-ctas=none".to_string())].into();
        let t = pipeline_with_options(&reg, "gpu", &o).unwrap();
        assert!(t.contains("lower-loop-to-gpu{threads=512 min-ctas=none}"), "{t}");
        // An option written in the pipeline wins.
        let t = pipeline_with_options(&reg, "builtin.module(lower-loop-to-gpu{threads=64})", &o).unwrap();
        assert_eq!(t, "builtin.module(lower-loop-to-gpu{threads=64 min-ctas=none})");
        let bad: BTreeMap<String, String> = [("cse".to_string(), "x=1".to_string())].into();
        assert!(pipeline_with_options(&reg, "builtin.module(canonicalize)", &bad).unwrap_err().contains("'cse'"));
    }

    #[test]
    fn pipeline_passes_counts_passes_with_options() {
        let reg = pass_registry();
        let gpu = pipeline_passes(&reg, "gpu").unwrap();
        // The `gpu` pipeline writes `fuse-mixed-reductions{partials=resident}`: still a pass
        // the tuner's split knobs apply to.
        assert!(gpu.iter().any(|p| p == "fuse-mixed-reductions"), "{gpu:?}");
        assert!(gpu.iter().any(|p| p == "lower-loop-to-gpu"), "{gpu:?}");
        assert!(!pipeline_passes(&reg, "gpu-unfused").unwrap().iter().any(|p| p == "fuse-mixed-reductions"));
        let nested = pipeline_passes(&reg, "builtin.module(func.func(cse),lower-loop-to-gpu{threads=64})").unwrap();
        assert_eq!(nested, ["cse", "lower-loop-to-gpu"]);
        assert!(pipeline_passes(&reg, "builtin.module(cse").is_err());
    }

    #[test]
    fn resolve_finds_the_bucket_entry() {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rmsnorm_bwd.mlir")).unwrap();
        let mut ctx = new_context(false);
        let m = load_module(&mut ctx, "r.mlir", &text).unwrap();
        let f = select_function(&ctx, m, None, "r.mlir").unwrap();
        let reg = pass_registry();
        let dev = DeviceKey::default_target();
        let mut cache = TuningCache::default();
        let r =
            resolve(&cache, &reg, ProgramRef { ctx: &ctx, module: m, func: f }, "gpu", Some("M=576000,N=384"), &dev)
                .unwrap();
        assert!(matches!(&r, Resolution::Untuned { note } if note.contains("bucket M~2^19,N=384")), "{r:?}");
        cache.insert(TuningEntry {
            program: program_hash(&ctx, m),
            function: "rmsnorm_bwd".into(),
            pipeline: "gpu".into(),
            bucket: "M~2^19,N=384".into(),
            device: DeviceKey { driver: "13000".into(), ..dev.clone() },
            options: [("lower-loop-to-gpu".to_string(), "rows-in-flight=2".to_string())].into(),
            evidence: None,
        });
        for m_size in [524288, 576000, 1048575] {
            let h = format!("M={m_size},N=384");
            match resolve(&cache, &reg, ProgramRef { ctx: &ctx, module: m, func: f }, "gpu", Some(&h), &dev).unwrap() {
                Resolution::Tuned { pipeline, hints, .. } => {
                    assert!(pipeline.contains("lower-loop-to-gpu{rows-in-flight=2}"), "{pipeline}");
                    assert_eq!(hints, "M=524288,N=384");
                }
                r => panic!("{r:?}"),
            }
        }
        let r =
            resolve(&cache, &reg, ProgramRef { ctx: &ctx, module: m, func: f }, "gpu", Some("M=2000000,N=384"), &dev)
                .unwrap();
        assert!(matches!(r, Resolution::Untuned { .. }));
        let r = resolve(
            &cache,
            &reg,
            ProgramRef { ctx: &ctx, module: m, func: f },
            "gpu-unfused",
            Some("M=576000,N=384"),
            &dev,
        )
        .unwrap();
        assert!(matches!(r, Resolution::Untuned { .. }));
        let r = resolve(&cache, &reg, ProgramRef { ctx: &ctx, module: m, func: f }, "gpu", None, &dev).unwrap();
        assert!(r.note().contains("no sizes"));
    }
}
