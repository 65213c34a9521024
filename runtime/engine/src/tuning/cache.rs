//! The tuning cache: a JSON file of the schedules `morf-tune` measured fastest, keyed by
//! program, pipeline, shape bucket and device ([`TuningCache`]); read by `morf-opt`,
//! `morf-run` and `morf-bench` (`--tuning-cache FILE`), written atomically by `morf-tune`.

use std::collections::BTreeMap;
use std::path::Path;

use morf_ir::pass::{PassOptions, PassRegistry};
use serde::{Deserialize, Serialize};

use crate::EngineError;

/// The version of the cache format this build reads and writes.
pub const CACHE_VERSION: u32 = 1;

/// The cache committed with morf: the H200's tuned schedules (`morf-tune` on the H200;
/// docs/perf.md says with which command). Used by default on a GPU whose name and SM count
/// match an entry.
pub const BUILTIN_CACHE: &str = include_str!("h200.json");

/// The device a tuning entry was measured on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceKey {
    /// The device's name, as the driver gives it (`NVIDIA H200`).
    pub name: String,
    /// Its streaming multiprocessors.
    pub sms: u32,
    /// The driver's CUDA version (`13000`), empty where unknown (a lookup without a GPU).
    #[serde(default)]
    pub driver: String,
}

impl DeviceKey {
    /// The device `morf-opt` and the simulator compile for when none is named: the H200
    /// (the default `Device` of the cost model), any driver.
    pub fn default_target() -> DeviceKey {
        DeviceKey { name: "NVIDIA H200".into(), sms: 132, driver: String::new() }
    }

    /// The key of `gpu`: its name, SM count and driver version, as the driver reports them.
    pub fn of(gpu: &morf_runtime::Gpu) -> Result<DeviceKey, morf_runtime::RuntimeError> {
        Ok(DeviceKey { name: gpu.device_name()?, sms: gpu.sm_count()?, driver: gpu.driver_version()?.to_string() })
    }

    /// Parses `NAME[:SMS]` (`NVIDIA H200:132`; without `:SMS`, 132).
    pub fn parse(text: &str) -> Result<DeviceKey, String> {
        let (name, sms) = match text.rsplit_once(':') {
            Some((n, s)) => (n, s.trim().parse::<u32>().map_err(|_| format!("bad SM count in device '{text}'"))?),
            None => (text, 132),
        };
        if name.trim().is_empty() {
            return Err(format!("empty device name in '{text}'"));
        }
        Ok(DeviceKey { name: name.trim().to_string(), sms, driver: String::new() })
    }
}

impl std::fmt::Display for DeviceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} SMs", self.name, self.sms)?;
        if !self.driver.is_empty() {
            write!(f, ", driver {}", self.driver)?;
        }
        write!(f, ")")
    }
}

/// What the tuner measured for an entry (for reports and the cost model's calibration; not
/// part of the key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// The sizes measured (`M=576000,N=384`).
    pub sizes: String,
    /// Median time of the winner, in microseconds.
    pub median_us: f64,
    /// Median time of the untuned schedule (the cost model's and heuristics' choice).
    pub default_us: f64,
    /// The byte floor at the copy bandwidth of the same run.
    pub floor_us: f64,
    /// The copy kernel's bandwidth in the same run, TB/s.
    pub copy_tb_per_s: f64,
    /// Configurations tried, and how many of them compiled to distinct PTX and were timed.
    pub tried: usize,
    /// Distinct programs timed.
    pub timed: usize,
    /// Timed calls behind each median.
    pub runs: usize,
    /// Whether the winner's outputs were checked against the fp64 interpreter (and passed).
    pub checked: bool,
}

/// One tuned schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuningEntry {
    /// [`super::program_hash`] of the tensor-level module.
    pub program: String,
    /// The function tuned.
    pub function: String,
    /// The named pipeline tuned (`gpu`, `gpu-unfused`).
    pub pipeline: String,
    /// The shape bucket ([`super::ShapeBucket::key`]).
    pub bucket: String,
    /// The device measured.
    pub device: DeviceKey,
    /// Pass options by pass name (`"lower-loop-to-gpu": "rows-in-flight=2 min-ctas=none"`),
    /// added to the pipeline's passes of that name. Empty: the untuned schedule won.
    pub options: BTreeMap<String, String>,
    /// What the tuner measured.
    #[serde(default)]
    pub evidence: Option<Evidence>,
}

impl TuningEntry {
    /// Whether `self` and `other` have the same key (program, function, pipeline, bucket,
    /// device with its driver).
    pub fn same_key(&self, other: &TuningEntry) -> bool {
        self.program == other.program
            && self.function == other.function
            && self.pipeline == other.pipeline
            && self.bucket == other.bucket
            && self.device == other.device
    }

    /// The options as one line, `pass{opts} pass{opts}` (`untuned` when empty).
    pub fn options_text(&self) -> String {
        if self.options.is_empty() {
            return "the untuned schedule".into();
        }
        self.options.iter().map(|(p, o)| format!("{p}{{{o}}}")).collect::<Vec<_>>().join(" ")
    }
}

/// A tuning cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuningCache {
    /// [`CACHE_VERSION`].
    pub version: u32,
    /// The entries, sorted by key when saved.
    pub entries: Vec<TuningEntry>,
}

impl Default for TuningCache {
    fn default() -> Self {
        TuningCache { version: CACHE_VERSION, entries: Vec::new() }
    }
}

/// How well an entry's device matched the lookup's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceMatch {
    /// Name, SMs and driver (or the lookup names no driver).
    Exact,
    /// Name and SMs; measured under another driver.
    OtherDriver,
}

/// 1-based line and column of byte `offset` of `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(before.len(), |i| before.len() - i - 1) + 1;
    (line, col)
}

impl TuningCache {
    /// The cache committed with morf ([`BUILTIN_CACHE`]), parsed once per process.
    pub fn builtin_ref() -> &'static TuningCache {
        static BUILTIN: std::sync::OnceLock<TuningCache> = std::sync::OnceLock::new();
        BUILTIN.get_or_init(|| {
            TuningCache::parse("<builtin tuning cache>", BUILTIN_CACHE, None).expect("the committed cache is valid")
        })
    }

    /// A copy of the committed cache ([`TuningCache::builtin_ref`]).
    pub fn builtin() -> TuningCache {
        TuningCache::builtin_ref().clone()
    }

    /// Reads and checks the cache file at `path` ([`TuningCache::parse`]).
    pub fn load(path: &Path, reg: &PassRegistry) -> Result<TuningCache, EngineError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| EngineError::Other(format!("cannot read tuning cache {name}: {e}")))?;
        TuningCache::parse(&name, &text, Some(reg))
    }

    /// Parses cache `text` (`name` for diagnostics, `NAME:LINE:COL: error: ...`). With `reg`,
    /// every entry's options must name passes of `reg` and options those passes have.
    pub fn parse(name: &str, text: &str, reg: Option<&PassRegistry>) -> Result<TuningCache, EngineError> {
        let cache: TuningCache = serde_json::from_str(text).map_err(|e| {
            EngineError::Diagnostic(format!(
                "{name}:{}:{}: error: invalid tuning cache: {e}",
                e.line().max(1),
                e.column().max(1)
            ))
        })?;
        // Where entry `i` starts in the text, for the errors below (the i-th `"program"` key).
        let at = |i: usize, needle: &str| {
            let start = text.match_indices("\"program\"").nth(i).map_or(0, |(o, _)| o);
            let o = text[start..].find(needle).map_or(start, |o| start + o);
            let (l, c) = line_col(text, o);
            format!("{name}:{l}:{c}")
        };
        if cache.version != CACHE_VERSION {
            let (l, c) = line_col(text, text.find("\"version\"").unwrap_or(0));
            return Err(EngineError::Diagnostic(format!(
                "{name}:{l}:{c}: error: tuning cache version {} is not supported (this build reads version {CACHE_VERSION})",
                cache.version
            )));
        }
        for (i, e) in cache.entries.iter().enumerate() {
            if e.program.len() != 16 || !e.program.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(EngineError::Diagnostic(format!(
                    "{}: error: entry {i}: 'program' must be 16 hex digits, got '{}'",
                    at(i, "\"program\""),
                    e.program
                )));
            }
            for (pass, opts) in &e.options {
                let parsed = PassOptions::parse(opts).map_err(|m| {
                    EngineError::Diagnostic(format!("{}: error: entry {i}: options of '{pass}': {m}", at(i, pass)))
                })?;
                if let Some(reg) = reg {
                    let Some(info) = reg.get(pass) else {
                        return Err(EngineError::Diagnostic(format!(
                            "{}: error: entry {i}: no pass named '{pass}' is registered",
                            at(i, &format!("\"{pass}\""))
                        )));
                    };
                    parsed.check_known(pass, info.options).map_err(|m| {
                        EngineError::Diagnostic(format!("{}: error: entry {i}: options of '{pass}': {m}", at(i, pass)))
                    })?;
                }
            }
        }
        Ok(cache)
    }

    /// The entry for `program`/`function` under `pipeline` in `bucket` on `device`: one
    /// measured on the same device name and SM count, preferring the same driver
    /// ([`DeviceMatch`]).
    pub fn lookup(
        &self,
        program: &str,
        function: &str,
        pipeline: &str,
        bucket: &str,
        device: &DeviceKey,
    ) -> Option<(&TuningEntry, DeviceMatch)> {
        let candidates = self.entries.iter().filter(|e| {
            e.program == program
                && e.function == function
                && e.pipeline == pipeline
                && e.bucket == bucket
                && e.device.name == device.name
                && e.device.sms == device.sms
        });
        let mut other = None;
        for e in candidates {
            if device.driver.is_empty() || e.device.driver == device.driver {
                return Some((e, DeviceMatch::Exact));
            }
            other.get_or_insert(e);
        }
        other.map(|e| (e, DeviceMatch::OtherDriver))
    }

    /// Adds `entry`, replacing one with the same key.
    pub fn insert(&mut self, entry: TuningEntry) {
        self.entries.retain(|e| !e.same_key(&entry));
        self.entries.push(entry);
    }

    /// The cache as pretty JSON, entries sorted by key (stable diffs).
    pub fn to_json(&self) -> String {
        let mut sorted = self.clone();
        sorted.entries.sort_by(|a, b| {
            (&a.function, &a.pipeline, &a.bucket, &a.program, &a.device.name, a.device.sms, &a.device.driver).cmp(&(
                &b.function,
                &b.pipeline,
                &b.bucket,
                &b.program,
                &b.device.name,
                b.device.sms,
                &b.device.driver,
            ))
        });
        let mut s = serde_json::to_string_pretty(&sorted).expect("a cache serializes");
        s.push('\n');
        s
    }

    /// Writes the cache to `path` atomically: a temporary file in the same folder, then a
    /// rename, so a failed write leaves the old file as it was.
    pub fn save(&self, path: &Path) -> Result<(), EngineError> {
        crate::tuning::write_atomically(path, self.to_json().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(driver: &str, opts: &[(&str, &str)]) -> TuningEntry {
        TuningEntry {
            program: "0123456789abcdef".into(),
            function: "f".into(),
            pipeline: "gpu".into(),
            bucket: "M~2^19,N=384".into(),
            device: DeviceKey { name: "NVIDIA H200".into(), sms: 132, driver: driver.into() },
            options: opts.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            evidence: None,
        }
    }

    fn reg() -> PassRegistry {
        crate::compile::pass_registry()
    }

    #[test]
    fn round_trip_insert_and_lookup() {
        let mut c = TuningCache::default();
        c.insert(entry("12080", &[("lower-loop-to-gpu", "threads=512")]));
        c.insert(entry("13000", &[("lower-loop-to-gpu", "rows-in-flight=2")]));
        c.insert(entry("13000", &[("lower-loop-to-gpu", "rows-in-flight=1")])); // replaces
        assert_eq!(c.entries.len(), 2);
        let back = TuningCache::parse("c.json", &c.to_json(), Some(&reg())).unwrap();
        assert_eq!(back, {
            let mut s = c.clone();
            s.entries.sort_by(|a, b| a.device.driver.cmp(&b.device.driver));
            s
        });
        let dev = |d: &str| DeviceKey { name: "NVIDIA H200".into(), sms: 132, driver: d.into() };
        let (e, m) = c.lookup("0123456789abcdef", "f", "gpu", "M~2^19,N=384", &dev("13000")).unwrap();
        assert_eq!((e.options["lower-loop-to-gpu"].as_str(), m), ("rows-in-flight=1", DeviceMatch::Exact));
        let (_, m) = c.lookup("0123456789abcdef", "f", "gpu", "M~2^19,N=384", &dev("99999")).unwrap();
        assert_eq!(m, DeviceMatch::OtherDriver);
        let (_, m) = c.lookup("0123456789abcdef", "f", "gpu", "M~2^19,N=384", &dev("")).unwrap();
        assert_eq!(m, DeviceMatch::Exact);
        assert!(c.lookup("0123456789abcdef", "f", "gpu", "M~2^20,N=384", &dev("13000")).is_none());
        assert!(c.lookup("0123456789abcdef", "f", "gpu-unfused", "M~2^19,N=384", &dev("13000")).is_none());
        let other = DeviceKey { name: "NVIDIA H100".into(), sms: 132, driver: String::new() };
        assert!(c.lookup("0123456789abcdef", "f", "gpu", "M~2^19,N=384", &other).is_none());
    }

    #[test]
    fn bad_files_are_located_errors() {
        let err = |t: &str| TuningCache::parse("c.json", t, Some(&reg())).unwrap_err().to_string();
        assert!(err("{\"version\": 1,\n \"entries\": [}").starts_with("c.json:2:14: error: invalid tuning cache"));
        assert!(err("").starts_with("c.json:1:1: error: invalid tuning cache"), "{}", err(""));
        assert!(err("{\"version\": 7, \"entries\": []}").starts_with("c.json:1:2: error: tuning cache version 7"));
        assert!(err("{\"version\": 1, \"entries\": [], \"x\": 1}").contains("unknown field `x`"));
        let mut c = TuningCache::default();
        c.insert(entry("", &[("no-such-pass", "a=1")]));
        let e = err(&c.to_json());
        assert!(e.contains("no pass named 'no-such-pass'") && e.starts_with("c.json:"), "{e}");
        let line = e.split(':').nth(1).unwrap().parse::<usize>().unwrap();
        assert!(c.to_json().lines().nth(line - 1).unwrap().contains("no-such-pass"), "{e}");
        let mut c = TuningCache::default();
        c.insert(entry("", &[("lower-loop-to-gpu", "thread=5")]));
        assert!(err(&c.to_json()).contains("options of 'lower-loop-to-gpu'"), "{}", err(&c.to_json()));
        let mut c = TuningCache::default();
        c.insert(TuningEntry { program: "xyz".into(), ..entry("", &[]) });
        assert!(err(&c.to_json()).contains("'program' must be 16 hex digits"));
    }

    #[test]
    fn builtin_cache_is_valid() {
        let c = TuningCache::builtin();
        assert_eq!(c.version, CACHE_VERSION);
        TuningCache::parse("h200.json", BUILTIN_CACHE, Some(&reg())).unwrap();
    }

    /// The committed cache was measured on the programs of `examples/` as they are: a change to
    /// an example, or to the printer the program hash reads, must come with a new sweep
    /// (tools/morf-tune/scripts/h200.sh), or the H200 silently loses its tuned schedules.
    #[test]
    fn builtin_cache_matches_the_examples() {
        let c = TuningCache::builtin();
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/");
        // The backward norms' table rows (and, since the twenty-second session, clusters per row at
        // 8192 x 32768; the 100000 x 32768 entries are unchecked: the host's fp64 reference is
        // too slow there; and 4096 x 16384: LayerNorm's since the twenty-first session, RMSNorm's
        // since the fortieth).
        let norm_rows: &[&str] =
            &["M~2^19,N=384", "M~2^16,N=1024", "M~2^15,N=4096", "M~2^14,N=8192", "M~2^13,N=32768", "M~2^12,N=16384"];
        let rows = [
            ("rmsnorm_bwd", norm_rows),
            ("layernorm_bwd", norm_rows),
            ("rmsnorm_bwd_f32", &["M~2^19,N=384"][..]),
            ("layernorm_bwd_f32", &["M~2^19,N=384"][..]),
            // The examples tuned at 65536 x 1024 (3-D: 64 x 1024 x 1024) in the tenth session.
            // (gelu_bwd_bias, tanh_bwd_bias and softmax_fwd_colsum there were removed in the
            // twenty-third: the heuristic's staged heavy rows measured faster untuned than their
            // entries, which were tuned for the form before.)
            // Re-tuned in the twenty-fourth session with streamed loads, which also tuned
            // softmax_fwd_colsum again and the read-only pair at 1000000 x 256.
            ("colmax_rowsum", &["M~2^16,N=1024", "M~2^19,N=256"][..]),
            ("row_col_stats", &["M~2^16,N=1024", "M~2^19,N=256"][..]),
            ("reduce3d", &["B~2^6,M~2^10,N=1024"][..]),
            ("softmax_fwd_colsum", &["M~2^16,N=1024"][..]),
        ];
        let h200 = DeviceKey::default_target();
        for (file, buckets) in rows {
            let text = std::fs::read_to_string(format!("{root}{file}.mlir")).unwrap();
            let mut ctx = crate::bind::new_context(false);
            let m = crate::bind::load_module(&mut ctx, file, &text).unwrap();
            let f = crate::bind::select_function(&ctx, m, None, file).unwrap();
            let fname = morf_ir::builtin::symbol_name(&ctx, f).unwrap().to_string();
            let hash = crate::tuning::program_hash(&ctx, m);
            for b in buckets {
                let (e, _) =
                    c.lookup(&hash, &fname, "gpu", b, &h200).unwrap_or_else(|| panic!("no entry for {file} {b}"));
                let ev = e.evidence.as_ref().expect("the sweep records its evidence");
                assert!(ev.checked && ev.median_us <= ev.default_us, "{file} {b}: {ev:?}");
            }
        }
    }

    #[test]
    fn device_keys() {
        assert_eq!(DeviceKey::parse("NVIDIA H200").unwrap(), DeviceKey::default_target());
        assert_eq!(DeviceKey::parse("NVIDIA A100:108").unwrap().sms, 108);
        assert!(DeviceKey::parse("x:y").is_err() && DeviceKey::parse(":5").is_err());
    }
}
