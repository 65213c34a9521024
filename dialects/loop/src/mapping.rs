//! The GPU mapping of loop nests (issue 10, docs/design/schedules-in-ir.md): the typed form of
//! the `mapping` attribute of `mloop.parallel` (and of the `mloop.reduce`s inside a mapped
//! nest), its parser from and printer to the generic `Attr` array/dictionary form, and its
//! verifier.
//!
//! ```mlir
//! mloop.parallel (%s, %w) = (%c0, %c0) to (%nsplit, %c8) step (%c1, %c1) {
//!   %r = mloop.reduce sum (%j) = (%c0) to (%n) step (%c1) init(%zero) : f32 {
//!     ...
//!   } attributes {mapping = [{level = "lane"}]}
//!   ...
//! } attributes {mapping = [{level = "grid", persistent = true}, {level = "warp", size = 8}],
//!     rows_in_flight = 2 : i64}
//! ```
//!
//! One entry per induction variable, outermost first. `level` is `grid` (CTAs), `warp` (warps
//! of a CTA), `lane` (lanes of a warp), `thread` (threads of a CTA) or `seq` (in order, by the
//! threads that own the enclosing point). Each iv is distributed *cyclically* over the units
//! of its level (`for x = unit; x < extent; x += units`), so any extent is legal; adjacent
//! ivs of one level are flattened (row-major) and distributed together. Optional keys:
//! `persistent = true` (grid only: a grid capped at a full wave, grid-stride), `size = n`
//! (the units the level spans: CTAs at most for `grid`, warps per CTA for `warp` (<= 32),
//! lanes for `lane` (<= 32), threads per CTA for `thread` (<= 1024)). The parallel may also
//! carry `vector = v` (a power of two up to 16) and `rows_in_flight = r` (>= 1).
//!
//! The invariant [`verify_parallel_mapping`] keeps (it runs in `mloop.parallel`'s verifier):
//! along every nesting path the levels go `grid` outside `warp` or `thread` (never both)
//! outside `lane`, with `lane` only inside a `warp`, each at most once (`seq` anywhere);
//! `grid` only in the top-level loop; a mapped loop only inside mapped `mloop.parallel`s and
//! `mloop.for`s below a mapped top-level parallel, never inside an `mloop.reduce`; a mapped
//! `mloop.reduce` (a collective: lane
//! partials combined by a warp or CTA reduction) all `lane`, all `thread` or all `seq`, with
//! `lane` directly inside a `warp` level (the warp runs it together) and `thread` where the
//! whole CTA runs it (no `warp`, `thread` or `lane` level outside).

use std::fmt;

use morf_ir::builtin::op_error;
use morf_ir::{Attr, AttrData, Context, Diagnostic, OpId};

use crate::ops::{ForOp, ParallelOp, ReduceOp};

/// The name of the mapping attribute.
pub const MAPPING_ATTR: &str = "mapping";
/// The name of the optional vector-width attribute of a mapped parallel.
pub const VECTOR_ATTR: &str = "vector";
/// The name of the optional rows-in-flight attribute of a mapped parallel.
pub const ROWS_IN_FLIGHT_ATTR: &str = "rows_in_flight";

/// A level of the GPU's thread hierarchy an induction variable is distributed over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// CTAs of the grid (`mgpu.block_id`).
    Grid,
    /// Warps of a CTA (`mgpu.warp_id`).
    Warp,
    /// Lanes of a warp (`mgpu.lane_id`).
    Lane,
    /// Threads of a CTA, flattened (`mgpu.thread_id`).
    Thread,
    /// In order, by the threads that own the enclosing point.
    Seq,
}

impl Level {
    /// Every level, in the order of the docs.
    pub const ALL: [Level; 5] = [Level::Grid, Level::Warp, Level::Lane, Level::Thread, Level::Seq];

    /// The name in the attribute.
    pub fn name(self) -> &'static str {
        match self {
            Level::Grid => "grid",
            Level::Warp => "warp",
            Level::Lane => "lane",
            Level::Thread => "thread",
            Level::Seq => "seq",
        }
    }

    /// The level named `s`.
    pub fn parse(s: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.name() == s)
    }

    /// The largest `size` of the level (units), if bounded.
    pub fn max_size(self) -> Option<u64> {
        match self {
            Level::Warp | Level::Lane => Some(32),
            Level::Thread => Some(1024),
            Level::Grid | Level::Seq => None,
        }
    }
}

/// The mapping of one induction variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DimMapping {
    /// Its level.
    pub level: Level,
    /// `grid` only: a persistent grid (capped at a full wave of the device, grid-stride).
    pub persistent: bool,
    /// The units of the level it spans, if given (else the lowering picks).
    pub size: Option<u64>,
}

impl DimMapping {
    /// An entry of `level` with no options.
    pub fn new(level: Level) -> Self {
        DimMapping { level, persistent: false, size: None }
    }

    /// The same entry spanning `size` units.
    pub fn with_size(self, size: u64) -> Self {
        DimMapping { size: Some(size), ..self }
    }
}

/// The `mapping` attribute: one [`DimMapping`] per induction variable, outermost first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// The entries.
    pub dims: Vec<DimMapping>,
}

impl Mapping {
    /// The mapping of `op` (`None` without a `mapping` attribute; `Some(Err)` for a malformed
    /// one).
    pub fn of(ctx: &Context, op: OpId) -> Option<Result<Mapping, String>> {
        ctx.attr(op, MAPPING_ATTR).map(|a| Mapping::from_attr(ctx, a))
    }

    /// Reads the attribute form (an array of dictionaries).
    pub fn from_attr(ctx: &Context, a: Attr) -> Result<Mapping, String> {
        let items =
            ctx.attr_array(a).ok_or("'mapping' must be an array of dictionaries, one per induction variable")?;
        let mut dims = Vec::with_capacity(items.len());
        for (k, &item) in items.iter().enumerate() {
            let AttrData::Dict(entries) = ctx.attr_data(item) else {
                return Err(format!("'mapping' entry #{k} must be a dictionary"));
            };
            let mut level = None;
            let mut persistent = None;
            let mut size = None;
            for &(key, v) in entries {
                match ctx.str(key) {
                    "level" => {
                        let s =
                            ctx.attr_str(v).ok_or_else(|| format!("'mapping' entry #{k}: 'level' must be a string"))?;
                        level = Some(Level::parse(s).ok_or_else(|| {
                            format!("'mapping' entry #{k}: unknown level '{s}'; expected one of grid, warp, lane, thread, seq")
                        })?);
                    }
                    "persistent" => {
                        persistent = Some(
                            ctx.attr_bool(v)
                                .ok_or_else(|| format!("'mapping' entry #{k}: 'persistent' must be true or false"))?,
                        );
                    }
                    "size" => {
                        let n = ctx
                            .attr_int(v)
                            .filter(|n| *n >= 1)
                            .ok_or_else(|| format!("'mapping' entry #{k}: 'size' must be a positive integer"))?;
                        size = Some(n as u64);
                    }
                    other => {
                        return Err(format!(
                            "'mapping' entry #{k}: unknown key '{other}'; expected level, persistent or size"
                        ))
                    }
                }
            }
            let level = level.ok_or_else(|| format!("'mapping' entry #{k} has no 'level'"))?;
            if persistent.is_some() && level != Level::Grid {
                return Err(format!("'mapping' entry #{k}: 'persistent' applies to level 'grid' only"));
            }
            if let (Some(n), Some(max)) = (size, level.max_size()) {
                if n > max {
                    return Err(format!(
                        "'mapping' entry #{k}: a '{}' level spans at most {max} {}, got size {n}",
                        level.name(),
                        units(level)
                    ));
                }
            }
            if size.is_some() && level == Level::Seq {
                return Err(format!("'mapping' entry #{k}: level 'seq' takes no 'size'"));
            }
            dims.push(DimMapping { level, persistent: persistent.unwrap_or(false), size });
        }
        Ok(Mapping { dims })
    }

    /// The attribute form.
    pub fn to_attr(&self, ctx: &mut Context) -> Attr {
        let items = self
            .dims
            .iter()
            .map(|d| {
                let mut e = Vec::new();
                let k = ctx.sym("level");
                let v = ctx.str_attr(d.level.name());
                e.push((k, v));
                if d.persistent {
                    let k = ctx.sym("persistent");
                    let v = ctx.bool_attr(true);
                    e.push((k, v));
                }
                if let Some(n) = d.size {
                    let k = ctx.sym("size");
                    let v = ctx.i64_attr(n as i64);
                    e.push((k, v));
                }
                ctx.dict_attr(e)
            })
            .collect();
        ctx.array_attr(items)
    }

    /// Runs of adjacent entries of one level other than `seq` (flattened and distributed
    /// together), as `(first entry, first iv, end)`; the run takes the options (`persistent`,
    /// `size`) of its first entry. Each `seq` entry is a run of its own.
    pub fn groups(&self) -> Vec<(DimMapping, usize, usize)> {
        let mut out: Vec<(DimMapping, usize, usize)> = Vec::new();
        for (k, d) in self.dims.iter().enumerate() {
            match out.last_mut() {
                Some((g, _, end)) if *end == k && g.level == d.level && d.level != Level::Seq => *end = k + 1,
                _ => out.push((*d, k, k + 1)),
            }
        }
        out
    }

    /// Whether some entry has `level`.
    pub fn has(&self, level: Level) -> bool {
        self.dims.iter().any(|d| d.level == level)
    }
}

impl fmt::Display for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[")?;
        for (k, d) in self.dims.iter().enumerate() {
            if k > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{{level = \"{}\"", d.level.name())?;
            if d.persistent {
                write!(f, ", persistent = true")?;
            }
            if let Some(n) = d.size {
                write!(f, ", size = {n}")?;
            }
            write!(f, "}}")?;
        }
        write!(f, "]")
    }
}

fn units(level: Level) -> &'static str {
    match level {
        Level::Grid => "CTAs",
        Level::Warp => "warps",
        Level::Lane => "lanes",
        Level::Thread => "threads",
        Level::Seq => "iterations",
    }
}

/// The levels entered at a point of a mapped nest: which hardware units share the point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapContext {
    /// Inside a `grid` level.
    pub grid: bool,
    /// The CTA-level level entered, `Warp` or `Thread`.
    pub cta: Option<Level>,
    /// Inside a `lane` level.
    pub lane: bool,
}

impl MapContext {
    /// The context inside a group of level `level` entered here (`top_level`: in the
    /// top-level loop of the nest); an error message when the nesting is illegal.
    pub fn enter(self, level: Level, top_level: bool) -> Result<MapContext, String> {
        let mut c = self;
        match level {
            Level::Grid => {
                if !top_level {
                    return Err("level 'grid' is only allowed in the top-level loop of a nest".into());
                }
                if c.lane {
                    return Err("level 'grid' cannot be nested inside level 'lane'".into());
                }
                if let Some(outer) = c.cta {
                    return Err(format!("level 'grid' cannot be nested inside level '{}'", outer.name()));
                }
                if c.grid {
                    return Err("level 'grid' cannot be nested inside level 'grid'".into());
                }
                c.grid = true;
            }
            Level::Warp | Level::Thread => {
                if c.lane {
                    return Err(format!("level '{}' cannot be nested inside level 'lane'", level.name()));
                }
                if let Some(outer) = c.cta {
                    return Err(format!("level '{}' cannot be nested inside level '{}'", level.name(), outer.name()));
                }
                c.cta = Some(level);
            }
            Level::Lane => {
                if c.lane {
                    return Err("level 'lane' cannot be nested inside level 'lane'".into());
                }
                if c.cta != Some(Level::Warp) {
                    return Err("level 'lane' must be nested inside a 'warp' level".into());
                }
                c.lane = true;
            }
            Level::Seq => {}
        }
        Ok(c)
    }

    /// Whether a reduction of `level` (`lane`: a warp reduction; `thread`: a CTA reduction)
    /// may run here: every thread that takes part reaches it together.
    pub fn reduce_ok(self, level: Level) -> Result<(), String> {
        match level {
            Level::Seq => Ok(()),
            Level::Lane if self.cta == Some(Level::Warp) && !self.lane => Ok(()),
            Level::Lane => Err("a 'lane' reduction must be directly inside a 'warp' level".into()),
            Level::Thread if self.cta.is_none() && !self.lane => Ok(()),
            Level::Thread => {
                Err("a 'thread' reduction must run on a whole CTA (no 'warp', 'thread' or 'lane' level outside it)"
                    .into())
            }
            Level::Grid | Level::Warp => {
                Err(format!("an 'mloop.reduce' can be mapped to 'lane', 'thread' or 'seq', not '{}'", level.name()))
            }
        }
    }
}

/// The loop ops enclosing `op`, outermost first (up to the first op that is not an `mloop`
/// loop).
fn loop_ancestors(ctx: &Context, op: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    let mut cur = ctx.parent_op(op);
    while let Some(p) = cur {
        if !(ctx.isa::<ParallelOp>(p) || ctx.isa::<ForOp>(p) || ctx.isa::<ReduceOp>(p)) {
            break;
        }
        out.push(p);
        cur = ctx.parent_op(p);
    }
    out.reverse();
    out
}

/// The induction-variable count of a parallel or reduce (its first region's block arguments).
fn iv_count(ctx: &Context, op: OpId) -> Option<usize> {
    let r = *ctx.regions(op).first()?;
    Some(ctx.block_args(ctx.entry_block(r)?).len())
}

/// The context at the start of the body of a mapped parallel `op` (its ancestors' levels and
/// its own); an error at `op` when its mapping or its place is illegal. `None` when `op` is not
/// mapped.
fn parallel_context(ctx: &Context, op: OpId) -> Result<Option<MapContext>, Diagnostic> {
    let Some(m) = Mapping::of(ctx, op) else { return Ok(None) };
    let m = m.map_err(|e| op_error(ctx, op, e))?;
    let n = iv_count(ctx, op).unwrap_or(0);
    if m.dims.len() != n {
        return Err(op_error(
            ctx,
            op,
            format!("'mapping' has {} entries, but the loop has {n} induction variables", m.dims.len()),
        ));
    }
    let ancestors = loop_ancestors(ctx, op);
    let mut c = MapContext::default();
    for (k, &a) in ancestors.iter().enumerate() {
        if ctx.isa::<ReduceOp>(a) {
            return Err(op_error(ctx, op, "is mapped but nested inside an 'mloop.reduce'")
                .with_note(ctx.op_loc(a), "the reduce"));
        }
        if ctx.isa::<ParallelOp>(a) {
            match Mapping::of(ctx, a) {
                None => {
                    return Err(op_error(ctx, op, "is mapped but its enclosing 'mloop.parallel' is not")
                        .with_note(ctx.op_loc(a), "the unmapped loop"))
                }
                // The ancestor's own verifier reports its errors.
                Some(Err(_)) => return Ok(Some(c)),
                Some(Ok(am)) => {
                    for (g, _, _) in am.groups() {
                        match c.enter(g.level, k == 0) {
                            Ok(next) => c = next,
                            Err(_) => return Ok(Some(c)),
                        }
                    }
                }
            }
        } else if k == 0 {
            return Err(op_error(ctx, op, "is mapped but the outermost loop around it ('mloop.for') is not")
                .with_note(ctx.op_loc(a), "the unmapped loop"));
        }
    }
    let top_level = ancestors.is_empty();
    for (g, first, _) in m.groups() {
        c = c
            .enter(g.level, top_level)
            .map_err(|e| op_error(ctx, op, format!("invalid 'mapping': induction variable #{first}: {e}")))?;
    }
    Ok(Some(c))
}

/// The verifier of the mapping attributes of `mloop.parallel` `op` (called from its
/// verifier): its own `mapping` (well formed, one entry per iv, legal nesting under its
/// mapped ancestors), its `vector` and `rows_in_flight`, and the `mapping`s of the
/// `mloop.reduce`s whose nearest enclosing parallel it is. Errors are located at the op
/// whose attribute is wrong.
pub fn verify_parallel_mapping(ctx: &Context, op: OpId) -> Result<(), Diagnostic> {
    if let Some(a) = ctx.attr(op, VECTOR_ATTR) {
        match ctx.attr_int(a) {
            Some(v) if (1..=16).contains(&v) && (v as u64).is_power_of_two() => {}
            _ => return Err(op_error(ctx, op, "'vector' must be a power of two from 1 to 16")),
        }
    }
    if let Some(a) = ctx.attr(op, ROWS_IN_FLIGHT_ATTR) {
        if ctx.attr_int(a).is_none_or(|r| r < 1) {
            return Err(op_error(ctx, op, "'rows_in_flight' must be a positive integer"));
        }
    }
    let c = parallel_context(ctx, op)?;
    let Some(r) = ctx.regions(op).first().copied() else { return Ok(()) };
    let Some(body) = ctx.entry_block(r) else { return Ok(()) };
    check_reduces(ctx, body, c, op)
}

/// Checks the mapped reduces of `block` (not inside nested parallels, which check their own)
/// in context `c` (`None`: the enclosing parallel `par` is unmapped).
fn check_reduces(ctx: &Context, block: morf_ir::BlockId, c: Option<MapContext>, par: OpId) -> Result<(), Diagnostic> {
    for o in ctx.block_ops(block).collect::<Vec<_>>() {
        if ctx.isa::<ParallelOp>(o) {
            continue;
        }
        if ctx.isa::<ReduceOp>(o) {
            if let Some(m) = Mapping::of(ctx, o) {
                let m = m.map_err(|e| op_error(ctx, o, e))?;
                let n = iv_count(ctx, o).unwrap_or(0);
                if m.dims.len() != n {
                    return Err(op_error(
                        ctx,
                        o,
                        format!("'mapping' has {} entries, but the loop has {n} induction variables", m.dims.len()),
                    ));
                }
                let Some(here) = c else {
                    return Err(op_error(ctx, o, "is mapped but its enclosing 'mloop.parallel' is not")
                        .with_note(ctx.op_loc(par), "the unmapped loop"));
                };
                let level = m.dims.first().map_or(Level::Seq, |d| d.level);
                if m.dims.iter().any(|d| d.level != level) {
                    return Err(op_error(
                        ctx,
                        o,
                        "invalid 'mapping': every induction variable of a reduce has one level",
                    ));
                }
                here.reduce_ok(level).map_err(|e| op_error(ctx, o, format!("invalid 'mapping': {e}")))?;
                if level != Level::Seq && loop_ancestors(ctx, o).iter().any(|&a| ctx.isa::<ReduceOp>(a)) {
                    return Err(op_error(ctx, o, "is mapped but nested inside an 'mloop.reduce'"));
                }
            }
        }
        for r in ctx.regions(o).to_vec() {
            if let Some(b) = ctx.entry_block(r) {
                check_reduces(ctx, b, c, par)?;
            }
        }
    }
    Ok(())
}
