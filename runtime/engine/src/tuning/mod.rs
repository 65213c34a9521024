//! Autotuning: the schedule space the tuner searches ([`space`]), the measurement on the GPU
//! ([`tuner`]), the persistent cache of winners keyed by program, shape bucket and device
//! ([`cache`], [`key`]), and how a compile uses it ([`apply`]). `morf-tune` drives the
//! tuner; `morf-opt`, `morf-run` and `morf-bench` read caches with `--tuning-cache FILE`
//! (docs/tuning.md).

pub mod apply;
pub mod cache;
pub mod key;
pub mod space;
pub mod tuner;

pub use apply::{pipeline_with_options, resolve, ProgramRef, Resolution};
pub use cache::{DeviceKey, DeviceMatch, Evidence, TuningCache, TuningEntry, BUILTIN_CACHE, CACHE_VERSION};
pub use key::{exact_dims, program_hash, shape_bucket, ShapeBucket};
pub use space::{coordinate_descent, knobs, recipes, Config, Knob, Outcome, Recipe, Search, Trial};
pub use tuner::{tune, ShapeTuning, TuneConfig, TuneProgress, TuneReport};

use std::path::Path;

use crate::EngineError;

/// Writes `bytes` to `path` through a temporary file and a rename
/// ([`morf_ir::io::write_atomic`]); the error names the path.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), EngineError> {
    morf_ir::io::write_atomic(path, bytes)
        .map_err(|e| EngineError::Other(format!("cannot write {}: {e}", path.display())))
}

/// Which tuning cache a compile consults.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum TuningSource {
    /// The cache committed with morf ([`BUILTIN_CACHE`]); on a GPU only (its entries are
    /// measurements of real devices).
    #[default]
    Builtin,
    /// None: the cost model and heuristics decide.
    Off,
    /// A cache given by the user (`--tuning-cache FILE`), also used for the simulator (with
    /// the H200 as the device) and by `morf-opt`.
    Cache(std::sync::Arc<TuningCache>),
}

impl TuningSource {
    /// The source a `--tuning-cache` value names: `builtin`, `none`, or a file (read and
    /// checked now).
    pub fn from_flag(value: &str) -> Result<TuningSource, EngineError> {
        match value {
            "builtin" => Ok(TuningSource::Builtin),
            "none" => Ok(TuningSource::Off),
            path => {
                let reg = crate::compile::pass_registry();
                Ok(TuningSource::Cache(std::sync::Arc::new(TuningCache::load(Path::new(path), &reg)?)))
            }
        }
    }

    /// The cache to consult for a compile on a GPU (`on_gpu`) or for the simulator.
    pub fn cache(&self, on_gpu: bool) -> Option<&TuningCache> {
        match self {
            TuningSource::Builtin if on_gpu => Some(TuningCache::builtin_ref()),
            TuningSource::Builtin | TuningSource::Off => None,
            TuningSource::Cache(c) => Some(c),
        }
    }
}

/// The pipeline and size hints a compile of `prog` runs with `pipeline` and
/// `hints` on `device`, after consulting `source` ([`resolve`]): the tuned ones when the cache
/// has an entry, else the given ones. Also returns the account of the choice (`None` when no
/// cache was consulted).
pub fn pipeline_for_compile(
    source: &TuningSource,
    on_gpu: bool,
    prog: ProgramRef<'_>,
    pipeline: &str,
    hints: Option<&str>,
    device: &DeviceKey,
) -> Result<(String, Option<String>, Option<String>), EngineError> {
    pipeline_for_compile_with(source, on_gpu, prog, pipeline, hints, device, &crate::compile::pass_registry())
}

/// [`pipeline_for_compile`] with the pipelines of `reg` (an embedder's registry).
pub fn pipeline_for_compile_with(
    source: &TuningSource,
    on_gpu: bool,
    prog: ProgramRef<'_>,
    pipeline: &str,
    hints: Option<&str>,
    device: &DeviceKey,
    reg: &morf_ir::pass::PassRegistry,
) -> Result<(String, Option<String>, Option<String>), EngineError> {
    let Some(cache) = source.cache(on_gpu) else { return Ok((pipeline.to_string(), hints.map(str::to_string), None)) };
    match resolve(cache, reg, prog, pipeline, hints, device).map_err(EngineError::Other)? {
        Resolution::Tuned { pipeline, hints, note, .. } => Ok((pipeline, Some(hints), Some(note))),
        Resolution::Untuned { note } => Ok((pipeline.to_string(), hints.map(str::to_string), Some(note))),
    }
}
