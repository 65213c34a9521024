//! Memory planning: morf-run estimates what a run needs before it allocates anything and
//! refuses, with a clear error, a run over the limit (`--max-memory`, or the memory
//! available to the process: `MemAvailable` of `/proc/meminfo` and the cgroup limit).
//!
//! The estimate is an upper bound, not a measurement:
//! - the inputs, as the interpreter holds them (8 bytes per element, whatever the type);
//! - the interpreter's live values: the run-time shape of every tensor or buffer value of
//!   the function is inferred from the argument shapes ([`value_shapes`]), and the peak
//!   of the values alive at once is taken the way the interpreter frees them (a value
//!   dies after its last use; values inside a region count as live for its whole op),
//!   plus one largest value for the temporaries of the op being run;
//! - on the GPU, every device buffer of the host function at once ([`device_bytes`]):
//!   the executor pools freed buffers instead of returning them.
//!
//! A dynamic dimension whose size cannot be followed (an op this module does not know)
//! is bounded by the largest known sizes, so the estimate errs on the large side. Big
//! buffers are also allocated with `try_reserve`, so a misestimate is an error, not an
//! abort.

use std::collections::HashMap;

use morf_ir::{Context, Dim, OpId, Type, Value};

use crate::EngineError;

/// A memory limit and where it comes from (for messages).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    /// The limit in bytes.
    pub bytes: u64,
    /// Where it comes from, e.g. `--max-memory` or `available memory (MemAvailable)`.
    pub source: String,
}

/// Parses a size: a number of bytes, or a number with a unit `K`, `M`, `G` or `T`
/// (powers of 1024; `KB`, `KiB`, ... and lower case are accepted): `512M`, `4G`, `1.5G`.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let bad = || format!("bad size '{text}': expected bytes or a number with K, M, G or T (e.g. 512M, 4G)");
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit.strip_suffix("ib").or_else(|| unit.strip_suffix('b')).unwrap_or(&unit);
    let mult: u64 = match unit {
        "" => 1,
        "k" => 1 << 10,
        "m" => 1 << 20,
        "g" => 1 << 30,
        "t" => 1 << 40,
        _ => return Err(bad()),
    };
    if num.is_empty() {
        return Err(bad());
    }
    if let Ok(n) = num.parse::<u64>() {
        return n.checked_mul(mult).ok_or_else(bad);
    }
    let x: f64 = num.parse().map_err(|_| bad())?;
    let v = x * mult as f64;
    if !v.is_finite() || v >= u64::MAX as f64 {
        return Err(bad());
    }
    Ok(v as u64)
}

/// `bytes` for people: `7.5 GiB`, `100.0 MiB`, `512 bytes`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

/// `MemAvailable` of `/proc/meminfo` text, in bytes.
pub fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut it = line["MemAvailable:".len()..].split_whitespace();
    let n: u64 = it.next()?.parse().ok()?;
    match it.next() {
        Some("kB") | Some("KB") => n.checked_mul(1024),
        None => Some(n),
        _ => None,
    }
}

/// The memory this process may still use: the smaller of `MemAvailable` and the room
/// left under the cgroup v2 limit (`/sys/fs/cgroup/memory.max` minus
/// `memory.current`). `None` where neither can be read.
pub fn system_limit() -> Option<MemoryLimit> {
    let mut best: Option<MemoryLimit> = None;
    let mut offer = |bytes: u64, source: String| {
        if best.as_ref().is_none_or(|b| bytes < b.bytes) {
            best = Some(MemoryLimit { bytes, source });
        }
    };
    if let Some(n) = std::fs::read_to_string("/proc/meminfo").ok().as_deref().and_then(mem_available) {
        offer(n, "the available memory (MemAvailable in /proc/meminfo)".into());
    }
    let read = |p: &str| std::fs::read_to_string(p).ok().and_then(|s| s.trim().parse::<u64>().ok());
    if let Some(max) = read("/sys/fs/cgroup/memory.max") {
        let used = read("/sys/fs/cgroup/memory.current").unwrap_or(0);
        offer(max.saturating_sub(used), format!("the room left under the cgroup limit of {}", format_bytes(max)));
    }
    best
}

/// An estimate of what a run needs, by part.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// `(what, bytes)` parts, e.g. `("inputs", 8000000000)`.
    pub parts: Vec<(String, u64)>,
}

impl MemoryEstimate {
    /// Adds a part.
    pub fn add(&mut self, what: impl Into<String>, bytes: u64) {
        self.parts.push((what.into(), bytes));
    }

    /// The sum of the parts.
    pub fn total(&self) -> u64 {
        self.parts.iter().fold(0u64, |a, (_, b)| a.saturating_add(*b))
    }

    /// An error when the total is over `limit`.
    pub fn check(&self, limit: &MemoryLimit) -> Result<(), EngineError> {
        let total = self.total();
        if total <= limit.bytes {
            return Ok(());
        }
        let parts: Vec<String> = self.parts.iter().map(|(w, b)| format!("{w} {}", format_bytes(*b))).collect();
        Err(EngineError::Other(format!(
            "this run needs about {} of memory ({}), more than the limit of {} ({}); use smaller sizes{}",
            format_bytes(total),
            parts.join(", "),
            format_bytes(limit.bytes),
            limit.source,
            if limit.source.contains("--max-memory") { " or raise --max-memory" } else { " or free memory" }
        )))
    }
}

/// The shape of a shaped type (tensor or buffer), `None` for scalars.
fn dims_of(ctx: &Context, t: Type) -> Option<Vec<Dim>> {
    ctx.shape_of(t).map(<[Dim]>::to_vec)
}

fn count(shape: &[usize]) -> u64 {
    shape.iter().fold(1u64, |a, &d| a.saturating_mul(d as u64))
}

/// Bytes of a value of `shape` whose elements take `elem_bytes` each.
fn bytes_of(shape: &[usize], elem_bytes: u64) -> u64 {
    count(shape).saturating_mul(elem_bytes)
}

/// The run-time shape of every shaped value of `func` (including values in nested
/// regions), inferred from `arg_shapes` (one per argument, empty for scalars). The
/// shapes are upper bounds where a size cannot be followed exactly.
pub fn value_shapes(ctx: &Context, func: OpId, arg_shapes: &[Vec<usize>]) -> HashMap<Value, Vec<usize>> {
    let mut shapes: HashMap<Value, Vec<usize>> = HashMap::new();
    let mut ints: HashMap<Value, i64> = HashMap::new();
    let Some(&region) = ctx.regions(func).first() else { return shapes };
    let Some(block) = ctx.entry_block(region) else { return shapes };
    for (a, s) in ctx.block_args(block).iter().zip(arg_shapes) {
        if dims_of(ctx, ctx.value_type(*a)).is_some() {
            shapes.insert(*a, s.clone());
        }
    }
    // Every size seen so far, largest first: the fallback bound of an unknown dim.
    let mut sizes: Vec<usize> = arg_shapes.iter().flatten().copied().collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let max_count = arg_shapes.iter().map(|s| count(s)).max().unwrap_or(1);
    let mut ops = Vec::new();
    for op in ctx.block_ops(block) {
        ctx.walk(op, &mut |o| ops.push(o));
    }
    for op in ops {
        let name = ctx.op_name(op);
        // Integer facts: constants and dims.
        if ctx.results(op).len() == 1 && ctx.is_int_or_index(ctx.value_type(ctx.result(op, 0))) {
            let r = ctx.result(op, 0);
            if name.ends_with(".dim") {
                let i = ctx.attr(op, "index").and_then(|a| ctx.attr_int(a));
                let s = ctx.operands(op).first().and_then(|v| shapes.get(v));
                if let (Some(i), Some(s)) = (i, s) {
                    if let Some(&n) = usize::try_from(i).ok().and_then(|i| s.get(i)) {
                        ints.insert(r, n as i64);
                    }
                }
            } else if let Some(v) = eval_int_op(ctx, op, &ints) {
                ints.insert(r, v);
            }
        }
        for &r in ctx.results(op) {
            let Some(dims) = dims_of(ctx, ctx.value_type(r)) else { continue };
            let shape = infer(ctx, op, &dims, &shapes, &ints, &sizes, max_count);
            shapes.insert(r, shape);
        }
    }
    shapes
}

/// The value of a scalar integer op (`mloop.constant 64 : index`, `mloop.add`,
/// `mloop.div`, `mloop.min`, ...) whose operands are all known integers, computed by its
/// interpreter hook on a scratch machine; `None` for anything else.
fn eval_int_op(ctx: &Context, op: OpId, ints: &HashMap<Value, i64>) -> Option<i64> {
    if !ctx.regions(op).is_empty() || ctx.results(op).len() != 1 {
        return None;
    }
    let mut m = morf_ir::interp::Machine::new();
    for v in ctx.operands(op) {
        if !ctx.is_int_or_index(ctx.value_type(*v)) {
            return None;
        }
        m.set(*v, morf_ir::interp::RtValue::Int(*ints.get(v)?));
    }
    m.run_op(ctx, op).ok()?;
    m.get(ctx, ctx.result(op, 0)).ok()?.as_int()
}

/// The shape of a result of `op` with type dims `dims`.
fn infer(
    ctx: &Context,
    op: OpId,
    dims: &[Dim],
    shapes: &HashMap<Value, Vec<usize>>,
    ints: &HashMap<Value, i64>,
    sizes: &[usize],
    max_count: u64,
) -> Vec<usize> {
    let dynamic = dims.iter().filter(|d| matches!(d, Dim::Dynamic)).count();
    let fill = |vals: &mut dyn Iterator<Item = usize>| -> Vec<usize> {
        dims.iter()
            .map(|d| match d {
                Dim::Static(n) => *n as usize,
                Dim::Dynamic => vals.next().unwrap_or(0),
            })
            .collect()
    };
    if dynamic == 0 {
        return fill(&mut std::iter::empty());
    }
    // Sizes given as index operands (`mloop.alloc(%m, %n)`, `sizes(%m, %n)`).
    let known: Vec<usize> = ctx
        .operands(op)
        .iter()
        .filter(|v| ctx.is_int_or_index(ctx.value_type(**v)))
        .filter_map(|v| ints.get(v).map(|&n| n.max(0) as usize))
        .collect();
    let index_operands = ctx.operands(op).iter().filter(|v| ctx.is_int_or_index(ctx.value_type(**v))).count();
    if known.len() == dynamic && index_operands == dynamic {
        return fill(&mut known.into_iter());
    }
    // Operands of the same rank: the largest size per dim (element-wise ops, converts).
    let same: Vec<&Vec<usize>> =
        ctx.operands(op).iter().filter_map(|v| shapes.get(v)).filter(|s| s.len() == dims.len()).collect();
    if !same.is_empty() {
        return (0..dims.len())
            .map(|i| match dims[i] {
                Dim::Static(n) => n as usize,
                Dim::Dynamic => same.iter().map(|s| s[i]).max().unwrap_or(0),
            })
            .collect();
    }
    // A reduction or slice of a larger operand: its largest dims.
    let bigger: Option<&Vec<usize>> =
        ctx.operands(op).iter().filter_map(|v| shapes.get(v)).filter(|s| s.len() > dims.len()).max_by_key(|s| count(s));
    if let Some(b) = bigger {
        let mut largest = b.clone();
        largest.sort_unstable_by(|a, b| b.cmp(a));
        return fill(&mut largest.into_iter());
    }
    // Anything else: the largest sizes of the arguments, as long as the value is no
    // larger than the largest argument (`[M, M]` from sizes M > N would be far too much).
    let cap = sizes.first().map_or(1, |_| max_count);
    let mut total = 1u64;
    let mut it = sizes.iter().copied();
    dims.iter()
        .map(|d| match d {
            Dim::Static(n) => {
                total = total.saturating_mul(*n);
                *n as usize
            }
            Dim::Dynamic => {
                let want = it.next().unwrap_or(0) as u64;
                let room = (cap / total.max(1)).max(1);
                let n = want.min(room);
                total = total.saturating_mul(n);
                n as usize
            }
        })
        .collect()
}

/// For each op of `block` (by position), the values defined by earlier or this op of the
/// block whose last use is that op (or an op nested in it): what an interpreter may drop
/// after running it. Block arguments are left out (the caller may hold them).
pub fn dead_after(ctx: &Context, block: morf_ir::BlockId) -> Vec<Vec<Value>> {
    let args = ctx.block_args(block);
    let mut out = morf_ir::interp::last_uses(ctx, block);
    for dead in &mut out {
        dead.retain(|v| !args.contains(v));
    }
    out
}

/// The peak bytes of the values the interpreter holds while running `func` on arguments
/// of `arg_shapes`, 8 bytes per element (the interpreter computes in f64). The arguments
/// count as live for the whole run.
pub fn interpreter_peak(ctx: &Context, func: OpId, arg_shapes: &[Vec<usize>]) -> u64 {
    let shapes = value_shapes(ctx, func, arg_shapes);
    let size = |v: &Value| shapes.get(v).map(|s| bytes_of(s, 8)).unwrap_or(0);
    let Some(&region) = ctx.regions(func).first() else { return 0 };
    let Some(block) = ctx.entry_block(region) else { return 0 };
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    let args: u64 = ctx.block_args(block).iter().map(size).fold(0, u64::saturating_add);
    let mut def: HashMap<Value, usize> = HashMap::new();
    for (i, &op) in ops.iter().enumerate() {
        for r in ctx.results(op) {
            def.insert(*r, i);
        }
    }
    // (bytes, defined at, last used at) of each value defined by a top-level op.
    let mut intervals: Vec<(u64, usize, usize)> = Vec::new();
    for (last, dead) in dead_after(ctx, block).into_iter().enumerate() {
        for v in dead {
            intervals.push((size(&v), def.get(&v).copied().unwrap_or(last), last));
        }
    }
    let mut nested = vec![0u64; ops.len()];
    let mut largest = intervals.iter().map(|t| t.0).max().unwrap_or(0);
    for (i, &op) in ops.iter().enumerate() {
        for &r in ctx.regions(op) {
            let mut inner = 0u64;
            for b in ctx.region_blocks(r) {
                for a in ctx.block_args(b) {
                    inner = inner.saturating_add(size(a));
                }
                for o in ctx.block_ops(b) {
                    ctx.walk(o, &mut |n| {
                        for v in ctx.results(n) {
                            inner = inner.saturating_add(size(v));
                            largest = largest.max(size(v));
                        }
                    });
                }
            }
            nested[i] = nested[i].saturating_add(inner);
        }
    }
    let mut peak = args;
    for (i, n) in nested.iter().enumerate() {
        let live: u64 =
            intervals.iter().filter(|(_, d, l)| *d <= i && i <= *l).map(|(b, _, _)| *b).fold(0, u64::saturating_add);
        peak = peak.max(args.saturating_add(live).saturating_add(*n));
    }
    peak.saturating_add(largest)
}

/// The device bytes of the host function `func` of a GPU-level module: its buffer
/// arguments and every buffer it allocates, all at once; `elem_bytes` gives the device
/// storage size of an element type.
pub fn device_bytes(ctx: &Context, func: OpId, arg_shapes: &[Vec<usize>], elem_bytes: &dyn Fn(Type) -> u64) -> u64 {
    let shapes = value_shapes(ctx, func, arg_shapes);
    let Some(&region) = ctx.regions(func).first() else { return 0 };
    let Some(block) = ctx.entry_block(region) else { return 0 };
    let mut total = 0u64;
    let mut add = |v: &Value| {
        if let Some(s) = shapes.get(v) {
            let e = elem_bytes(ctx.element_type(ctx.value_type(*v)));
            total = total.saturating_add(bytes_of(s, e));
        }
    };
    ctx.block_args(block).iter().for_each(&mut add);
    for op in ctx.block_ops(block) {
        let name = ctx.op_name(op);
        if name == morf_loop::ops::AllocOp::NAME || name == morf_loop::ops::ConstantBufferOp::NAME {
            ctx.results(op).iter().for_each(&mut add);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_size("100mb"), Ok(100 << 20));
        assert_eq!(parse_size("1234"), Ok(1234));
        assert_eq!(parse_size("1.5K"), Ok(1536));
        for bad in ["", "M", "-1G", "4X", "1e9", "99999999999999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(format_bytes(100 << 20), "100.0 MiB");
        assert_eq!(format_bytes(12), "12 bytes");
        assert_eq!(format_bytes(8_000_000_000), "7.5 GiB");
    }

    #[test]
    fn meminfo() {
        let text = "MemTotal:       32000000 kB\nMemFree:  100 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(mem_available(text), Some(2 << 20));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn over_the_limit_names_estimate_and_limit() {
        let mut e = MemoryEstimate::default();
        e.add("inputs", 8_000_000_000);
        e.add("interpreter values", 1 << 30);
        let limit = MemoryLimit { bytes: 100 << 20, source: "--max-memory".into() };
        let m = e.check(&limit).unwrap_err().to_string();
        assert!(m.contains("about 8.5 GiB") && m.contains("inputs 7.5 GiB") && m.contains("100.0 MiB"), "{m}");
        assert!(m.contains("--max-memory"), "{m}");
        assert!(e.check(&MemoryLimit { bytes: u64::MAX, source: String::new() }).is_ok());
    }

    #[test]
    fn sizes_computed_by_scalar_ops_are_followed() {
        let text = r#"
func.func @h(%x: !mloop.buffer<?x?xf32> {morf.dims = ["M", "N"]}) -> !mloop.buffer<?x?xf32> {
  %m = mloop.dim %x, 0 : !mloop.buffer<?x?xf32>
  %n = mloop.dim %x, 1 : !mloop.buffer<?x?xf32>
  %c63 = mloop.constant 63 : index
  %c64 = mloop.constant 64 : index
  %a = mloop.add %m, %c63 : index
  %b = mloop.div %a, %c64 : index
  %w = mloop.alloc(%b, %n) : !mloop.buffer<?x?xf32>
  func.return %w : !mloop.buffer<?x?xf32>
}
"#;
        let mut ctx = crate::new_context(false);
        let module = crate::load_module(&mut ctx, "h.mlir", text).unwrap();
        let func = crate::select_function(&ctx, module, None, "h.mlir").unwrap();
        let shapes = value_shapes(&ctx, func, &[vec![1_000_003, 384]]);
        assert!(shapes.values().any(|s| *s == vec![15_626, 384]), "{shapes:?}");
        // Device bytes: the argument and the workspace, 4 bytes each.
        let bytes = device_bytes(&ctx, func, &[vec![1_000_003, 384]], &|_| 4);
        assert_eq!(bytes, (1_000_003 + 15_626) * 384 * 4);
    }

    #[test]
    fn estimates_follow_shapes_and_liveness() {
        let text = r#"
func.func @f(%x: tensor<?x?xf32> {morf.dims = ["M", "N"]}, %w: tensor<?xf32> {morf.dims = ["N"]}) -> tensor<?xf32> {
  %m = mtensor.dim %x, 0 : tensor<?x?xf32>
  %n = mtensor.dim %x, 1 : tensor<?x?xf32>
  %wb = mtensor.broadcast %w dims [1] sizes(%m, %n) : tensor<?xf32> -> tensor<?x?xf32>
  %p = mtensor.mul %x, %wb : tensor<?x?xf32>
  %s = mtensor.reduce sum %p dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  func.return %s : tensor<?xf32>
}
"#;
        let mut ctx = crate::new_context(false);
        let module = crate::load_module(&mut ctx, "t.mlir", text).unwrap();
        let func = crate::select_function(&ctx, module, None, "t.mlir").unwrap();
        let shapes = value_shapes(&ctx, func, &[vec![100, 10], vec![10]]);
        let mut got: Vec<Vec<usize>> = shapes.values().cloned().collect();
        got.sort();
        assert!(got.contains(&vec![100, 10]) && got.contains(&vec![10]), "{got:?}");
        let peak = interpreter_peak(&ctx, func, &[vec![100, 10], vec![10]]);
        // Arguments (1010 elements), %wb and %p alive together (2000), the largest value
        // again for temporaries (1000): 4010 elements of 8 bytes, at most.
        assert!((8 * 3010..=8 * 4010).contains(&peak), "{peak}");
    }
}
