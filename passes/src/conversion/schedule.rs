//! Launch schedules of `lower-loop-to-gpu`: how one top-level loop nest is spread over CTAs,
//! warps and threads, chosen by one heuristic ([`choose_schedule`]) over a [`Device`]
//! description and overridable through pass options.

use std::fmt;

use morf_ir::{Attr, AttrData, Context};

use crate::fusion::device::Device;

/// How a nest is mapped onto the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mapping {
    /// One thread per point of the parallel domain (flattened, innermost dim fastest, so
    /// consecutive threads touch consecutive elements), grid-stride loop. Pointwise nests,
    /// short column reductions and every nest of another shape.
    ThreadPerPoint,
    /// A row reduction (reduced dims innermost): `threads_per_row` threads (a warp, or the
    /// whole CTA for long rows) per output point, lane partials combined by
    /// `mgpu.warp_reduce` (and shared memory across warps).
    RowReduction,
    /// A reduction to rank 0: one CTA, block reduction, the epilogue by thread 0.
    BlockReduction,
    /// The row-fused kernel: a persistent grid of CTAs looping over splits.
    RowFused,
    /// A final (split) reduction `parallel(j) { reduce over s of W[s, j]; epilogue }`: CTAs
    /// of 32 columns x `rows_per_cta` warps; lane = column, warp `w` combines splits
    /// `w, w + R, ...` in order, the warps' partials are combined in shared memory in warp
    /// order, warp 0 runs the epilogue.
    FinalReduction,
    /// The first launch of a split-K column reduction (`parallel(j) { reduce(i) }` with the
    /// reduced dims outermost): a thread per (row block of `split_rows` rows, column),
    /// consecutive threads on consecutive columns, partials into an f32 workspace
    /// `[blocks, N]`; a [`Mapping::FinalReduction`] launch reduces it.
    SplitPartial,
    /// A pointwise nest holding partial accumulations `accumulate v, W[flat(r) div S, c...]`
    /// (the fusion pass's `partial`, `r` the leading reduced ivs, `c` the kept ones): a
    /// thread per (split `s`, kept point `c`), consecutive threads on consecutive kept points,
    /// which walks the split's `S` rows in order (in blocks, each summed into a fresh partial
    /// so no f32 chain grows with `S`) running the body and owns `W[s, c]`.
    PartialPointwise,
    /// One thread runs the whole nest (nests with `accumulate` the other mappings cannot
    /// prove race-free, top-level `mloop.for`).
    Sequential,
}

/// Where the per-column partials of a row-fused kernel live while a split is processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialStore {
    /// No partials.
    None,
    /// One f32 row per warp in dynamic shared memory, combined in warp order at the end of
    /// the split (several rows in flight per CTA).
    Shared,
    /// Directly in the workspace row `W[s, :]`, owned by the CTA (one row in flight per CTA:
    /// each column is updated by one thread, in row order).
    Global,
}

/// A launch schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// The mapping.
    pub mapping: Mapping,
    /// Threads per CTA.
    pub threads: u32,
    /// Threads that share one row (32: a warp per row; `threads`: a CTA per row).
    pub threads_per_row: u32,
    /// Rows a CTA works on at once (`threads / threads_per_row`).
    pub rows_per_cta: u32,
    /// Elements per vector access (16 bytes of the widest element). For
    /// [`Mapping::ThreadPerPoint`] and [`Mapping::SplitPartial`] the consecutive columns a
    /// thread takes (their vector forms; 1: one point a thread, the scalar form); the
    /// register-resident row kernels take theirs from [`FastShape::vector`]; recorded only for
    /// the other mappings.
    pub vector: u32,
    /// Rows in flight per warp (1: loads of the next row are not issued early).
    pub rows_in_flight_per_warp: u32,
    /// Rows each row group (warp or CTA) keeps in flight through shared memory: asynchronous
    /// copies of its next rows into a ring of this many row slots (0: none, rows go straight
    /// to registers). Only the fast path of a row-fused kernel; the ring follows the shared partials, if any.
    pub staged_rows: u32,
    /// The most CTAs launched (the persistent grid); the grid is
    /// `max(1, min(work / per-CTA work, max_grid))`.
    pub max_grid: u64,
    /// Where partials live.
    pub partials: PartialStore,
    /// The register-resident fast path of a row-fused kernel (static or hinted N), if taken.
    pub fast: Option<FastShape>,
    /// Rows per block of a split-K column reduction ([`Mapping::SplitPartial`]; 0 otherwise):
    /// the least, which the host raises at run time until the blocks fit one wave of the
    /// partial kernel's resident threads, unless the pass option `split-rows=N` fixes it.
    pub split_rows: u64,
    /// CTAs per row of a register-resident CTA-per-row kernel ([`FastShape`]), launched as
    /// one thread-block cluster (1: none). The row's columns are split over the cluster's
    /// `cluster x threads` threads, and each row reduction is combined across the cluster
    /// through distributed shared memory.
    pub cluster: u32,
    /// The kernel's loads of its full-rank read-only tensors are marked `stream` (cache
    /// streaming, `ld.global.cs`: their lines are the first the caches evict). Where the
    /// kernel reads each element of them once and writes no tensor of their rank (a pure
    /// reduction), its stream then recycles a few L2 lines instead of evicting the cache's
    /// other lines, which costs a write-back where those are dirty (after a fill or the
    /// producer's stores). See [`NestShape::streams_inputs`] for the heuristic's rule.
    pub stream_loads: bool,
    /// Why the heuristic declined what would have hidden more memory latency (a second row
    /// in flight, staged rows), for `--schedule-report`.
    pub notes: Notes,
}

/// The heuristic's reasons for a schedule ([`Schedule::notes`]): explanations, not part of
/// the schedule (any two compare equal, and the `morf.schedule` attribute does not hold them).
#[derive(Clone, Debug, Default)]
pub struct Notes(pub Vec<String>);

impl PartialEq for Notes {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// The register-resident ("persistent") form of a row-fused kernel: each of the row's
/// `threads_per_row` threads owns `chunks x vector` columns of the row,
/// `j = (k * threads_per_row + t) * vector + e`, held in registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastShape {
    /// Elements per vector access (16 bytes of the widest vectorized element, halved while
    /// it does not divide N).
    pub vector: u32,
    /// Chunks per thread, `ceil(N / (threads_per_row x vector))`, unrolled.
    pub chunks: u32,
    /// The N the kernel is specialized for (a run-time guard falls back otherwise).
    pub cols: u64,
    /// The row is loaded again after each row reduction instead of held in registers across
    /// it (from the staging ring when rows are staged, else from global memory, where the
    /// first pass left it in L2), and `[j]` vectors are loaded per row instead of hoisted:
    /// a thread holds its partials and one pass's loads. For rows whose register-resident
    /// form does not fit the registers a thread may hold ([`reload_regs`]).
    pub reload: bool,
    /// The column partials accumulate in shared memory instead of registers, each thread
    /// its own columns. With `reload`, for a CTA per row (global partials): in the launch's
    /// dynamic shared memory (one f32 per partial and column, before any staging ring), for
    /// rows whose partials alone do not fit beside a pass's loads ([`shared_accs_bytes`]).
    /// Without it, for a warp (or a group of lanes) per row with shared partials: in the
    /// row slot's own partial rows, where the split's flush combines them anyway, so the
    /// accumulators take no registers (a thread then holds only its rows); for a CTA per row
    /// that holds its row (`reload=false shared-accs=true`): in the launch's dynamic shared
    /// memory as with `reload`.
    pub shared_accs: bool,
    /// The widenings of the row's 16-bit loads are redone after each row reduction's
    /// barrier for this kernel, as the pass-wide `remat-converts` does for every kernel: the
    /// loads stay packed across it (half the registers). The heuristic sets it where it stages
    /// a heavy row's next row instead of holding it in registers, so that the row and the
    /// ring's addresses fit the register bound of the CTAs it keeps (rmsnorm_bwd at 32768 x
    /// 768 spilled 8 bytes at two CTAs of 256 without it).
    pub remat_converts: bool,
    /// The row body is emitted chunk by chunk of a thread's columns instead of op by op for
    /// this kernel, as the pass-wide `chunk-major` does for every kernel (shorter live
    /// ranges). Set with [`FastShape::remat_converts`] where the heuristic stages a heavy row
    /// (gelu_bwd_bias at 200000 x 896, a partial last chunk: 72 bytes spilled at two CTAs of
    /// 256 without it, 124 registers and none with it).
    pub chunk_major: bool,
    /// Rows a thread takes at once where a row is one vector of a thread's (a thread per row:
    /// N x bytes <= 8, or an odd row, `vector = N`): `packed_rows` consecutive rows, contiguous
    /// in memory, loaded and stored as one access of each row input split into aligned pieces
    /// of up to 16 bytes (0 or 1: one row; option `packed-rows`, a tuner knob;
    /// [`packed_rows_for`]). The rows are then computed one by one as before.
    pub packed_rows: u32,
    /// Packed rows are loaded and stored by the warp together (with `packed_rows >= 2`): the
    /// warp's 32 groups are one contiguous span of each row buffer, which its lanes access in
    /// consecutive pieces of up to 16 bytes (each access of the warp one run of 128-512
    /// bytes), handed to the lanes that own them through shared memory between two
    /// `mgpu.warp_barrier`s ([`transpose_bytes`]). Without it each thread accesses its own
    /// group, a group apart from the next lane's (option `warp-transpose`, a tuner knob).
    pub warp_transpose: bool,
}

/// Dynamic shared memory of warp-transposed packed rows ([`FastShape::warp_transpose`]) for
/// CTAs of `threads` threads whose groups are `group` bytes of the widest row buffer: one
/// warp's span (32 groups) a warp, reused buffer by buffer.
pub fn transpose_bytes(threads: u32, group: u64) -> u64 {
    (threads as u64 * group).next_multiple_of(16)
}

/// The rows a thread of schedule `s` with `rows_in_flight` rows in flight packs into one
/// access when `asked` (the `packed-rows` option: a power of two is taken; 0: the default
/// below), or why none: a thread per row of the register-resident form whose row is its one vector
/// (`chunks = 1`, `vector = N`), the row held (not the reload form), nothing loaded ahead (no
/// staged rows, one row in flight), and, by default, a row of the widest row input (`bytes`
/// an element) that is not a multiple of 16 bytes. By default R is the fewest rows whose
/// bytes are a multiple of 16 (8 rows of 2 bytes, 4 of 4, 2 of 8), or half as many, at least
/// two, where the row's bytes are not a power of two (4 rows of 6 bytes, 2 of 12, 2 of 24:
/// 8-byte pieces); asked, R is the power of two asked (more rows a thread in flight: 8 rows of
/// 4 bytes, 2 of 16); either way fewer where R rows would be over [`PACKED_MAX_BYTES`]. The
/// group's access is split into the widest aligned pieces ([`vector_pieces`]).
pub fn packed_rows_for(bytes: u32, s: &Schedule, rows_in_flight: u32, asked: u32) -> Result<u32, String> {
    let f = s.fast.ok_or("no register-resident row form")?;
    if s.threads_per_row != 1 {
        return Err(format!("a row has {} threads; packed rows need a thread per row", s.threads_per_row));
    }
    if f.chunks != 1 || f.vector as u64 != f.cols {
        return Err(format!(
            "a thread's row is {} vector(s) of {}, not one vector of N = {}",
            f.chunks, f.vector, f.cols
        ));
    }
    if f.reload || s.staged_rows > 1 || rows_in_flight > 1 || s.cluster > 1 {
        return Err("the row is reloaded, staged or loaded ahead".into());
    }
    let row = (f.cols * bytes.clamp(1, 8) as u64).max(1);
    // Asked (a power of two taken), as many as asked; by default (0) default_packed_rows of a
    // kernel that writes its rows; either at most as many as PACKED_MAX_BYTES holds (one,
    // refused below, where even one row is over it).
    let room = pow2_floor((PACKED_MAX_BYTES / row) as u32);
    let want = if asked == 0 { default_packed_rows(row, false) as u32 } else { pow2_floor(asked) };
    let r = want.min(room);
    if r < 2 {
        return Err(if want < 2 {
            format!("a row is {row} bytes, a multiple of 16: one access a row already")
        } else {
            format!("a row is {row} bytes: two are over the {PACKED_MAX_BYTES} bytes a thread loads at once")
        });
    }
    Ok(r)
}

/// The largest power of two `<= x` (1 for 0): a `vector` option or schedule entry as a
/// vector width, rows a thread packs, lanes a column.
pub fn pow2_floor(x: u32) -> u32 {
    1 << (31 - x.max(1).leading_zeros())
}

/// Bytes of the shared accumulators of a reload-form CTA per row with `partials` partials
/// over `cols` columns ([`FastShape::shared_accs`]), rounded up to 16.
pub fn shared_accs_bytes(partials: u32, cols: u64) -> u64 {
    (partials as u64 * cols * 4).next_multiple_of(16)
}

/// Shared memory a CTA's accumulators may take ([`FastShape::shared_accs`]): the most an SM
/// has (228 KiB on the H200) less 64 KiB for L1 and a staged row.
const SHARED_ACCS_BUDGET: u64 = 160 * 1024;

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} threads={} threads-per-row={} rows-per-cta={} vector={} grid<={} partials={:?}",
            self.mapping,
            self.threads,
            self.threads_per_row,
            self.rows_per_cta,
            self.vector,
            self.max_grid,
            self.partials
        )?;
        if self.split_rows > 0 {
            write!(f, " split-rows={}", self.split_rows)?;
        }
        if self.rows_in_flight_per_warp > 1 {
            write!(f, " rows-in-flight={}", self.rows_in_flight_per_warp)?;
        }
        if self.staged_rows > 0 {
            write!(f, " staged-rows={}", self.staged_rows)?;
        }
        if self.cluster > 1 {
            write!(f, " cluster={}", self.cluster)?;
        }
        if self.stream_loads {
            write!(f, " stream-loads")?;
        }
        if let Some(fast) = self.fast {
            write!(f, " fast: N={} vector={} chunks={}", fast.cols, fast.vector, fast.chunks)?;
            if fast.reload {
                write!(f, " reload")?;
            }
            if fast.shared_accs {
                write!(f, " shared-accs")?;
            }
            if fast.remat_converts {
                write!(f, " remat-converts")?;
            }
            if fast.chunk_major {
                write!(f, " chunk-major")?;
            }
            if fast.packed_rows > 1 {
                write!(f, " packed-rows={}", fast.packed_rows)?;
            }
            if fast.warp_transpose {
                write!(f, " warp-transpose")?;
            }
        }
        Ok(())
    }
}

/// The name of the nest attribute that carries a schedule (`gpu-choose-schedule` writes it,
/// `lower-loop-to-gpu` honours it).
pub const SCHEDULE_ATTR: &str = "morf.schedule";

impl Mapping {
    /// Every mapping, in declaration order.
    pub const ALL: [Mapping; 8] = [
        Mapping::ThreadPerPoint,
        Mapping::RowReduction,
        Mapping::BlockReduction,
        Mapping::RowFused,
        Mapping::FinalReduction,
        Mapping::SplitPartial,
        Mapping::PartialPointwise,
        Mapping::Sequential,
    ];

    /// Its name in a `morf.schedule` attribute.
    pub fn name(self) -> &'static str {
        match self {
            Mapping::ThreadPerPoint => "thread_per_point",
            Mapping::RowReduction => "row_reduction",
            Mapping::BlockReduction => "block_reduction",
            Mapping::RowFused => "row_fused",
            Mapping::FinalReduction => "final_reduction",
            Mapping::SplitPartial => "split_partial",
            Mapping::PartialPointwise => "partial_pointwise",
            Mapping::Sequential => "sequential",
        }
    }

    /// The mapping of a name.
    pub fn from_name(s: &str) -> Option<Mapping> {
        Mapping::ALL.into_iter().find(|m| m.name() == s)
    }
}

impl PartialStore {
    /// Its name in a `morf.schedule` attribute.
    pub fn name(self) -> &'static str {
        match self {
            PartialStore::None => "none",
            PartialStore::Shared => "shared",
            PartialStore::Global => "global",
        }
    }
}

impl Schedule {
    /// The schedule as a `morf.schedule` dictionary attribute. A split-K column reduction
    /// carries the schedule of its second (final) launch as the entry `final`.
    pub fn to_attr(&self, ctx: &mut Context, final_launch: Option<&Schedule>) -> Attr {
        let mut e = Vec::new();
        let int = |ctx: &mut Context, e: &mut Vec<(morf_ir::Sym, Attr)>, k: &str, v: u64| {
            let (k, v) = (ctx.sym(k), ctx.i64_attr(v as i64));
            e.push((k, v));
        };
        int(ctx, &mut e, "threads", self.threads as u64);
        int(ctx, &mut e, "threads_per_row", self.threads_per_row as u64);
        int(ctx, &mut e, "rows_per_cta", self.rows_per_cta as u64);
        int(ctx, &mut e, "vector", self.vector as u64);
        int(ctx, &mut e, "rows_in_flight_per_warp", self.rows_in_flight_per_warp as u64);
        int(ctx, &mut e, "max_grid", self.max_grid);
        if self.split_rows > 0 {
            int(ctx, &mut e, "split_rows", self.split_rows);
        }
        if self.staged_rows > 0 {
            int(ctx, &mut e, "staged_rows", self.staged_rows as u64);
        }
        if self.cluster > 1 {
            int(ctx, &mut e, "cluster", self.cluster as u64);
        }
        if self.stream_loads {
            int(ctx, &mut e, "stream_loads", 1);
        }
        if let Some(f) = self.fast {
            let mut fe = Vec::new();
            int(ctx, &mut fe, "cols", f.cols);
            int(ctx, &mut fe, "chunks", f.chunks as u64);
            int(ctx, &mut fe, "vector", f.vector as u64);
            if f.reload {
                int(ctx, &mut fe, "reload", 1);
            }
            if f.shared_accs {
                int(ctx, &mut fe, "shared_accs", 1);
            }
            if f.remat_converts {
                int(ctx, &mut fe, "remat_converts", 1);
            }
            if f.chunk_major {
                int(ctx, &mut fe, "chunk_major", 1);
            }
            if f.packed_rows > 1 {
                int(ctx, &mut fe, "packed_rows", f.packed_rows as u64);
            }
            if f.warp_transpose {
                int(ctx, &mut fe, "warp_transpose", 1);
            }
            let (k, v) = (ctx.sym("fast"), ctx.dict_attr(fe));
            e.push((k, v));
        }
        let (k, v) = (ctx.sym("mapping"), ctx.str_attr(self.mapping.name()));
        e.push((k, v));
        let (k, v) = (ctx.sym("partials"), ctx.str_attr(self.partials.name()));
        e.push((k, v));
        if let Some(f) = final_launch {
            let (k, v) = (ctx.sym("final"), f.to_attr(ctx, None));
            e.push((k, v));
        }
        ctx.dict_attr(e)
    }

    /// Reads a `morf.schedule` attribute written by [`Schedule::to_attr`] (or by hand): the
    /// schedule and, for `split_partial`, the final launch's. Every field but `fast`,
    /// `split_rows` and `final` is required; the error says what is wrong.
    pub fn from_attr(ctx: &Context, a: Attr) -> Result<(Schedule, Option<Schedule>), String> {
        let AttrData::Dict(entries) = ctx.attr_data(a) else {
            return Err("'morf.schedule' must be a dictionary attribute".into());
        };
        let get = |k: &str| entries.iter().find(|(n, _)| ctx.str(*n) == k).map(|(_, v)| *v);
        for (n, _) in entries {
            let n = ctx.str(*n);
            if !matches!(
                n,
                "mapping"
                    | "threads"
                    | "threads_per_row"
                    | "rows_per_cta"
                    | "vector"
                    | "rows_in_flight_per_warp"
                    | "max_grid"
                    | "partials"
                    | "fast"
                    | "split_rows"
                    | "staged_rows"
                    | "cluster"
                    | "stream_loads"
                    | "final"
            ) {
                return Err(format!("'morf.schedule' has an unknown entry '{n}'"));
            }
        }
        let int = |k: &str, lo: u64, hi: u64| -> Result<u64, String> {
            let v = get(k).ok_or_else(|| format!("'morf.schedule' lacks the entry '{k}'"))?;
            let v = ctx.attr_int(v).ok_or_else(|| format!("'morf.schedule' entry '{k}' must be an integer"))?;
            if v < lo as i64 || v > hi as i64 {
                return Err(format!("'morf.schedule' entry '{k}' must be in [{lo}, {hi}], got {v}"));
            }
            Ok(v as u64)
        };
        let string = |k: &str| -> Result<&str, String> {
            let v = get(k).ok_or_else(|| format!("'morf.schedule' lacks the entry '{k}'"))?;
            ctx.attr_str(v).ok_or_else(|| format!("'morf.schedule' entry '{k}' must be a string"))
        };
        let m = string("mapping")?;
        let mapping = Mapping::from_name(m).ok_or_else(|| {
            let names: Vec<&str> = Mapping::ALL.iter().map(|m| m.name()).collect();
            format!("'morf.schedule' has an unknown mapping \"{m}\" (one of: {})", names.join(", "))
        })?;
        let threads = int("threads", 32, 1024)? as u32;
        if !threads.is_multiple_of(32) {
            return Err(format!("'morf.schedule' entry 'threads' must be a multiple of 32, got {threads}"));
        }
        let threads_per_row = int("threads_per_row", 1, 1024)? as u32;
        if mapping == Mapping::FinalReduction {
            if !is_final_lanes(threads_per_row) {
                return Err(format!(
                    "'morf.schedule' entry 'threads_per_row' of a \"final_reduction\" (lanes a row segment) must be \
                     1, 2, 4, 8, 16 or 32, got {threads_per_row}"
                ));
            }
        } else if mapping == Mapping::RowFused {
            if threads_per_row > threads
                || !(threads_per_row == threads || (threads_per_row <= 32 && threads_per_row.is_power_of_two()))
            {
                return Err(format!(
                    "'morf.schedule' entry 'threads_per_row' of a \"row_fused\" must be 1, 2, 4, 8, 16, 32 or \
                     'threads' ({threads}), got {threads_per_row}"
                ));
            }
        } else if threads_per_row > threads
            || !(threads_per_row == 1 || threads_per_row == 32 || threads_per_row == threads)
        {
            return Err(format!(
                "'morf.schedule' entry 'threads_per_row' must be 1, 32 or 'threads' ({threads}), got {threads_per_row}"
            ));
        }
        let rows_per_cta = int("rows_per_cta", 1, 1024)? as u32;
        if rows_per_cta as u64 * threads_per_row as u64 > threads as u64 {
            return Err(format!(
                "'morf.schedule': rows_per_cta x threads_per_row ({rows_per_cta} x {threads_per_row}) exceeds \
                 threads ({threads})"
            ));
        }
        let vector = int("vector", 1, 16)? as u32;
        if !vector.is_power_of_two() {
            return Err(format!("'morf.schedule' entry 'vector' must be a power of two, got {vector}"));
        }
        let rows_in_flight_per_warp = int("rows_in_flight_per_warp", 1, 64)? as u32;
        let max_grid = int("max_grid", 1, i64::MAX as u64)?;
        let partials = match string("partials")? {
            "none" => PartialStore::None,
            "shared" => PartialStore::Shared,
            "global" => PartialStore::Global,
            p => {
                return Err(format!(
                    "'morf.schedule' entry 'partials' must be \"none\", \"shared\" or \"global\", got \"{p}\""
                ))
            }
        };
        if mapping != Mapping::RowFused && partials != PartialStore::None {
            return Err(format!("'morf.schedule': partials = \"{}\" needs mapping \"row_fused\"", partials.name()));
        }
        let split_rows = if mapping == Mapping::SplitPartial {
            int("split_rows", 1, i64::MAX as u64)?
        } else if get("split_rows").is_some() {
            return Err("'morf.schedule' entry 'split_rows' needs mapping \"split_partial\"".into());
        } else {
            0
        };
        let fast = match get("fast") {
            None => None,
            Some(_) if mapping != Mapping::RowFused => {
                return Err("'morf.schedule' entry 'fast' needs mapping \"row_fused\"".into());
            }
            Some(f) => {
                let AttrData::Dict(fe) = ctx.attr_data(f) else {
                    return Err("'morf.schedule' entry 'fast' must be a dictionary {cols, chunks, vector}".into());
                };
                let fint = |k: &str| -> Result<u64, String> {
                    fe.iter()
                        .find(|(n, _)| ctx.str(*n) == k)
                        .and_then(|(_, v)| ctx.attr_int(*v))
                        .filter(|v| *v >= 1)
                        .map(|v| v as u64)
                        .ok_or_else(|| format!("'morf.schedule' entry 'fast' needs a positive integer '{k}'"))
                };
                for (n, _) in fe {
                    if !matches!(
                        ctx.str(*n),
                        "cols"
                            | "chunks"
                            | "vector"
                            | "reload"
                            | "shared_accs"
                            | "remat_converts"
                            | "chunk_major"
                            | "packed_rows"
                            | "warp_transpose"
                    ) {
                        return Err(format!("'morf.schedule' entry 'fast' has an unknown entry '{}'", ctx.str(*n)));
                    }
                }
                let flag = |k: &str| -> Result<bool, String> {
                    match fe.iter().find(|(n, _)| ctx.str(*n) == k) {
                        None => Ok(false),
                        Some((_, v)) => match ctx.attr_int(*v) {
                            Some(0) => Ok(false),
                            Some(1) => Ok(true),
                            _ => Err(format!("'morf.schedule' entry 'fast' has a '{k}' that is not 0 or 1")),
                        },
                    }
                };
                let (reload, shared_accs) = (flag("reload")?, flag("shared_accs")?);
                let cta = reload && threads_per_row == threads && partials == PartialStore::Global;
                let rows = !reload && threads_per_row <= 32 && partials == PartialStore::Shared;
                if shared_accs && !(cta || rows) {
                    return Err("'morf.schedule' entry 'fast' has 'shared_accs' without either 'reload', a CTA per row and partials = \"global\", or a warp per row and partials = \"shared\"".into());
                }
                let packed_rows = match fe.iter().find(|(n, _)| ctx.str(*n) == "packed_rows") {
                    None => 0,
                    Some(_) => {
                        let r = fint("packed_rows")?;
                        if !(r.is_power_of_two() && r <= 8) || threads_per_row != 1 || reload {
                            return Err("'morf.schedule' entry 'fast' has a 'packed_rows' that is not 1, 2, 4 or 8 on a thread per row that holds its row".into());
                        }
                        r as u32
                    }
                };
                let warp_transpose = flag("warp_transpose")?;
                if warp_transpose && (packed_rows < 2 || !threads.is_multiple_of(32)) {
                    return Err("'morf.schedule' entry 'fast' has 'warp_transpose' without 'packed_rows' of 2 or more and whole warps".into());
                }
                Some(FastShape {
                    cols: fint("cols")?,
                    chunks: fint("chunks")? as u32,
                    vector: fint("vector")? as u32,
                    reload,
                    shared_accs,
                    remat_converts: flag("remat_converts")?,
                    chunk_major: flag("chunk_major")?,
                    packed_rows,
                    warp_transpose,
                })
            }
        };
        let staged_rows = match get("staged_rows") {
            None => 0,
            Some(_) if fast.is_none() => {
                return Err("'morf.schedule' entry 'staged_rows' needs a \"fast\" row_fused schedule".into());
            }
            Some(_) => int("staged_rows", 2, MAX_STAGED_ROWS as u64)? as u32,
        };
        let cluster = match get("cluster") {
            None => 1,
            Some(_) if fast.is_none() || threads_per_row != threads || partials == PartialStore::Shared => {
                return Err(
                    "'morf.schedule' entry 'cluster' needs a \"fast\" row_fused schedule with a CTA per row".into()
                );
            }
            Some(_) => int("cluster", 1, morf_gpu::ops::cluster::MAX_CLUSTER as u64)? as u32,
        };
        let stream_loads = match get("stream_loads").map(|v| ctx.attr_int(v)) {
            None => false,
            Some(Some(0)) => false,
            Some(Some(1)) => true,
            Some(_) => return Err("'morf.schedule' entry 'stream_loads' must be 0 or 1".into()),
        };
        let final_launch = match get("final") {
            None if mapping == Mapping::SplitPartial => {
                return Err("'morf.schedule' of a \"split_partial\" mapping lacks the entry 'final'".into());
            }
            None => None,
            Some(_) if mapping != Mapping::SplitPartial => {
                return Err("'morf.schedule' entry 'final' needs mapping \"split_partial\"".into());
            }
            Some(f) => {
                let (fs, _) = Schedule::from_attr(ctx, f).map_err(|e| format!("in entry 'final': {e}"))?;
                if fs.mapping != Mapping::FinalReduction {
                    return Err("'morf.schedule' entry 'final' must have mapping \"final_reduction\"".into());
                }
                Some(fs)
            }
        };
        if let Some(f) = fast {
            check_fast_cover(&f, threads_per_row, cluster)?;
        }
        let s = Schedule {
            mapping,
            threads,
            threads_per_row,
            rows_per_cta,
            vector,
            rows_in_flight_per_warp,
            staged_rows,
            max_grid,
            partials,
            fast,
            split_rows,
            cluster,
            stream_loads,
            notes: Notes::default(),
        };
        Ok((s, final_launch))
    }
}

/// Checks that the register-resident form `f` of a row of `threads_per_row` threads (a CTA
/// each of `cluster`) covers the row: `chunks x threads x vector >= cols` with no chunk wholly
/// past it, and a vector of 1, 2, 4 or 8 elements, or a thread's whole row (`vector = cols`
/// with a thread per row and one chunk). A `fast` entry that covers a third of a row would
/// leave the rest of it unread (silently wrong results).
fn check_fast_cover(f: &FastShape, threads_per_row: u32, cluster: u32) -> Result<(), String> {
    let whole_row = f.vector as u64 == f.cols && threads_per_row == 1 && f.chunks == 1;
    if !(matches!(f.vector, 1 | 2 | 4 | 8) || whole_row) {
        return Err(format!(
            "'morf.schedule' entry 'fast' has a 'vector' of {} that is not 1, 2, 4 or 8, nor a thread's whole row (vector = cols = N with threads_per_row = 1 and one chunk)",
            f.vector
        ));
    }
    let step = threads_per_row as u64 * cluster.max(1) as u64 * f.vector as u64;
    let covered = f.chunks as u64 * step;
    if covered < f.cols || (f.chunks as u64 - 1) * step >= f.cols {
        return Err(format!(
            "'morf.schedule' entry 'fast': chunks x threads of a row x vector = {} x {} x {} = {covered} columns do not cover cols = {} with every chunk inside the row",
            f.chunks,
            threads_per_row as u64 * cluster.max(1) as u64,
            f.vector,
            f.cols
        ));
    }
    Ok(())
}

/// Whether a schedule of mapping `chosen` can lower a nest the lowering classifies as
/// `natural`: the same mapping; `sequential` (one thread runs any nest); or
/// `thread_per_point` for a parallel nest without `accumulate` (row, column and final
/// reductions run their reduces sequentially per point).
pub fn mapping_applies(chosen: Mapping, natural: Mapping) -> bool {
    chosen == natural
        || chosen == Mapping::Sequential
        || (chosen == Mapping::ThreadPerPoint
            && matches!(natural, Mapping::RowReduction | Mapping::FinalReduction | Mapping::SplitPartial))
}

impl Mapping {
    /// Whether the mapping is a poor one for a nest that reduces (`sequential`: one thread
    /// runs the nest; `thread_per_point`: one thread per output point walks its reduction,
    /// uncoalesced). The schedule report explains these ([`Fallback`]).
    pub fn is_poor(self) -> bool {
        matches!(self, Mapping::Sequential | Mapping::ThreadPerPoint)
    }
}

/// Why a nest got a poorer mapping than a better one it could have had: the condition of
/// the classification in `lower-loop-to-gpu` that rejected the better mapping. Collected
/// where the lowering decides, printed by the schedule report (`report`,
/// `morf-opt --schedule-report`) as `note: fallback: ...`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    /// A top-level `mloop.for`: one thread runs it.
    TopLevelFor,
    /// A rank-0 reduce that is not a flat float `sum`/`max`/`min` without `accumulate`.
    Rank0ReduceShape,
    /// `accumulate`s that neither the row-fused nor the partial-pointwise form can prove
    /// race-free.
    AccumulateNotProvable,
    /// A `row-fused` nest that accumulates without a positive `split` in its `morf.kernel`
    /// attribute (without accumulates no split is needed: a row kernel).
    RowFusedNoSplit,
    /// A `row-fused` nest that is not a 1-D parallel from 0 step 1.
    RowFusedDomain,
    /// A `row-fused` body with other than flat float sum/max/min reduces and at most one flat
    /// 1-D inner parallel (with bounds from outside).
    RowFusedBody,
    /// A `row-fused` `accumulate` not of the form `W[i div S, j]` in the inner parallel.
    RowFusedAccumulate,
    /// The body holds a region op other than a flat reduce (a row reduction needs reduces
    /// directly in the parallel).
    NestedRegion,
    /// A reduce that is not a float `sum`, `max` or `min`.
    ReduceKind,
    /// No reduce loads its last dim by a reduce iv, or a load's last index is a parallel iv.
    RowsNotInnermost,
    /// A column reduction the split-K form cannot take (reduce bounds from inside the nest,
    /// mixed accumulator types, or a short reduction).
    ColumnNotSplittable,
    /// The nest's `morf.schedule` attribute asks for this mapping; the heuristic would take
    /// the one given.
    AttributeOverride(Mapping),
}

impl fmt::Display for Fallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fallback::TopLevelFor => write!(f, "top-level mloop.for (no parallel loop to map)"),
            Fallback::Rank0ReduceShape => {
                write!(f, "rank-0 reduce is not a flat float sum/max/min without accumulate (no block reduction)")
            }
            Fallback::AccumulateNotProvable => write!(
                f,
                "accumulate the other mappings cannot prove race-free (neither row-fused W[i div S, j] nor \
                 partial W[flat(r) div S, c...])"
            ),
            Fallback::RowFusedNoSplit => {
                write!(
                    f,
                    "row-fused nest accumulates without a positive 'split' in its morf.kernel attribute (no row_fused)"
                )
            }
            Fallback::RowFusedDomain => write!(f, "row-fused nest is not a 1-D parallel from 0 step 1 (no row_fused)"),
            Fallback::RowFusedBody => write!(
                f,
                "row-fused body holds more than flat float sum/max/min reduces and one flat 1-D inner parallel \
                 (no row_fused)"
            ),
            Fallback::RowFusedAccumulate => {
                write!(f, "row-fused accumulate is not W[i div S, j] in the inner parallel (no row_fused)")
            }
            Fallback::NestedRegion => write!(
                f,
                "not a plain row reduction: the body holds a region op other than a flat reduce (an inner \
                 parallel or loop) (no row_reduction)"
            ),
            Fallback::ReduceKind => write!(f, "a reduce is not a float sum/max/min (no row or column reduction)"),
            Fallback::RowsNotInnermost => write!(
                f,
                "rows of the nest are not innermost: no reduce loads its last dim by a reduce iv, or a load's last \
                 index is a parallel iv (no row_reduction)"
            ),
            Fallback::ColumnNotSplittable => write!(
                f,
                "column reduction the split-K form cannot take (reduce bounds from inside the nest, mixed \
                 accumulator types, or a short reduction)"
            ),
            Fallback::AttributeOverride(m) => {
                write!(f, "the nest's morf.schedule attribute asks for it (the heuristic maps it as \"{}\")", m.name())
            }
        }
    }
}

impl Schedule {
    /// Dynamic shared memory of the staged rows: `staged_rows` slots per row group, each a
    /// row of every row input ([`staged_row_bytes`]); 0 without staging.
    pub fn staged_bytes(&self, shape: &NestShape) -> u64 {
        match self.fast {
            Some(_) if self.staged_rows > 0 => {
                self.staged_rows as u64 * self.rows_per_cta as u64 * staged_row_bytes(shape, self.cta_cols())
            }
            _ => 0,
        }
    }

    /// Dynamic shared memory of warp-transposed packed rows ([`transpose_bytes`]); 0 without
    /// them.
    pub fn transpose_shared_bytes(&self, shape: &NestShape) -> u64 {
        match self.fast {
            Some(f) if f.warp_transpose && f.packed_rows >= 2 => {
                transpose_bytes(self.threads, f.packed_rows as u64 * f.cols * shape.fast_bytes.clamp(1, 8) as u64)
            }
            _ => 0,
        }
    }

    /// Dynamic shared memory of a row-fused launch of this schedule (at least 1): its shared
    /// partials (an f32 row of each partial for each of the CTA's row slots) and after them
    /// the staging ring (or the warps' transposed spans), or its shared accumulators and the
    /// ring, or the ring alone.
    pub fn row_fused_shared_bytes(&self, shape: &NestShape) -> u64 {
        let partials = shape.partials as u64 * self.rows_per_cta as u64 * shape.cols.unwrap_or(1024) * 4;
        let after = self.staged_bytes(shape) + self.transpose_shared_bytes(shape);
        let bytes = match (self.partials, self.fast) {
            (PartialStore::Shared, _) => partials.next_multiple_of(16) + after,
            (_, Some(f)) if f.shared_accs => self.shared_accs_bytes(shape) + after,
            _ => after,
        };
        bytes.max(1)
    }

    /// Dynamic shared memory of the shared accumulators ([`FastShape::shared_accs`]), which
    /// come before any staging ring; 0 without them.
    pub fn shared_accs_bytes(&self, shape: &NestShape) -> u64 {
        if self.accs_in_dynamic_shared() {
            shared_accs_bytes(shape.partials, self.cta_cols())
        } else {
            0
        }
    }

    /// Whether the fast form's shared accumulators come first in the launch's dynamic shared
    /// memory: a CTA per row's, reloaded or held row. A warp per row's are its shared
    /// partials' rows instead.
    pub fn accs_in_dynamic_shared(&self) -> bool {
        matches!(self.fast, Some(f) if f.shared_accs && (f.reload || self.threads_per_row > 32))
    }

    /// The columns of a row one CTA of the register-resident form holds: all of them, or its
    /// share of a cluster's (`chunks x threads_per_row x vector` at most); 0 without that
    /// form.
    pub fn cta_cols(&self) -> u64 {
        match self.fast {
            Some(f) if self.cluster > 1 => {
                (f.chunks as u64 * self.threads_per_row as u64 * f.vector as u64).min(f.cols)
            }
            Some(f) => f.cols,
            None => 0,
        }
    }

    /// The columns of a row one thread of the register-resident form holds ([`Self::cta_cols`]
    /// over the row's threads); 0 without that form.
    pub fn thread_cols(&self) -> u64 {
        self.cta_cols().div_ceil(self.threads_per_row.max(1) as u64)
    }

    /// The one-line summary of the schedule report: the mapping and its main numbers.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "{} threads={} threads_per_row={} rows_per_cta={} grid<={} vector={} partials={}",
            self.mapping.name(),
            self.threads,
            self.threads_per_row,
            self.rows_per_cta,
            self.max_grid,
            self.vector,
            self.partials.name()
        );
        if self.split_rows > 0 {
            out.push_str(&format!(" split_rows={}", self.split_rows));
        }
        if self.rows_in_flight_per_warp > 1 {
            out.push_str(&format!(" rows_in_flight={}", self.rows_in_flight_per_warp));
        }
        if self.staged_rows > 0 {
            out.push_str(&format!(" staged_rows={}", self.staged_rows));
        }
        if self.cluster > 1 {
            out.push_str(&format!(" cluster={}", self.cluster));
        }
        if self.stream_loads {
            out.push_str(" stream_loads");
        }
        match self.fast {
            Some(f) => out.push_str(&format!(
                " fast=yes(N={} vector={} chunks={}{}{}{}{}{}{})",
                f.cols,
                f.vector,
                f.chunks,
                if f.reload { " reload" } else { "" },
                if f.shared_accs { " shared-accs" } else { "" },
                if f.remat_converts { " remat-converts" } else { "" },
                if f.chunk_major { " chunk-major" } else { "" },
                if f.packed_rows > 1 { format!(" packed-rows={}", f.packed_rows) } else { String::new() },
                if f.warp_transpose { " warp-transpose" } else { "" }
            )),
            None => out.push_str(" fast=no"),
        }
        out
    }
}

/// What the heuristic knows about a nest.
#[derive(Clone, Debug, Default)]
pub struct NestShape {
    /// Rows (the outer parallel extent), known or hinted.
    pub rows: Option<u64>,
    /// Columns (the row length), known or hinted.
    pub cols: Option<u64>,
    /// Bytes of the widest element read or written per point.
    pub elem_bytes: u32,
    /// Workspaces accumulated (row-fused).
    pub partials: u32,
    /// Whether every workspace is f32 and indexed `[i div S, j]` (shared partials possible).
    pub shared_ok: bool,
    /// Row-fused: bytes of the widest element the register-resident fast path would access
    /// with vectors (0: the nest has no fast path).
    pub fast_bytes: u32,
    /// Row-fused: the 2-D buffers a row loads at `[i, j]` (each thread holds its columns of
    /// them), and the 1-D vectors hoisted into registers once per CTA.
    pub row_inputs: u32,
    /// See `row_inputs`.
    pub hoisted: u32,
    /// Row-fused: the reductions over each row (0 where the row kernel only maps points and
    /// accumulates column partials, or where the caller does not count them).
    pub row_reductions: u32,
    /// Row-fused: estimated instructions per point of a row (`fusion::work_of_op` summed
    /// over the ops of the loops inside the row; 0 where unknown).
    pub work_per_point: u32,
    /// The nest loads read-only buffers of the largest rank it loads (its full-rank
    /// tensors) and stores into no buffer of that rank: what it writes is reductions (and
    /// partials, which it accumulates). The heuristic then streams those loads
    /// ([`Schedule::stream_loads`]). Measured on the H200 (twenty-fourth session, timed as
    /// `triton.testing.do_bench` times, after a 256 MB fill): the read-only programs at 65536
    /// x 1024 bf16 ran 43.3 -> 39.5 us (a row sum), 48.1 -> 44.1 (colmax_rowsum), 50.5 ->
    /// 46.4 (row_col_stats); where the kernel also writes a tensor of that rank, streaming
    /// its loads lost 0-11% (RMSNorm backward 107.7 -> 110.8 us at 65536 x 1024, 205 -> 229
    /// at 16384 x 8192) or changed nothing (gelu_bwd_bias, softmax_fwd_colsum).
    pub streams_inputs: bool,
    /// The nest loads full-rank tensors and stores into no buffer of that rank: it only
    /// reduces its rows (and accumulates partials). The lane and packing rules of a short
    /// row take this, not [`NestShape::streams_inputs`]: a reduction-only kernel whose input
    /// another kernel of the function also loads is not streamed (that kernel may find it in
    /// L2) but loads its rows as any reduction-only row does. Before the thirty-eighth
    /// session the rules read `streams_inputs`, and LayerNorm backward's standalone split-K
    /// partial of db at 65536 x 200 ran a warp a row (25 of 32 lanes busy) where the fusion
    /// model priced 8 lanes (docs/perf.md, thirty-eighth session).
    pub reduces_only: bool,
    /// With [`NestShape::streams_inputs`]: some streamed tensor is loaded by more than one
    /// load of the nest (a second pass over the row). The heuristic then streams only a
    /// register-resident row that holds the row (or stages it through shared memory), so
    /// that no second pass reloads from global memory what the first one marked evict-first.
    pub rereads_inputs: bool,
}

/// Instructions a thread issues for its part of a row ([`NestShape::work_per_point`] times
/// its columns) from which computing a row takes about as long as fetching one, so that
/// loading the next row meanwhile pays more than a second CTA per SM. On the H200 at 65536 x
/// 1024 (32 columns a thread), two rows in flight against one: tanh_bwd_bias (31 a point:
/// 992) 180 -> 108 us, softmax_fwd_colsum (48: 1536) 86.5 -> 80.3 (both under ptxas' own
/// 128-register allocation, two CTAs of 256), gelu_bwd_bias (51: 1632) 207 -> 178 (177
/// registers, one CTA); the other way row_col_stats (18: 576) 53 -> 69, layernorm_fwd (20:
/// 640) 77.5 -> 94.8, and layernorm_bwd at 576000 x 384 (56 a point, 12 columns: 672) 438 ->
/// 608. Where that second row in registers would cost a warp per row CTAs a SM, the heuristic
/// stages it through shared memory instead (twenty-third session: gelu_bwd_bias 149 -> 115 us
/// against two rows in registers).
pub const HEAVY_ROW_ISSUE: u64 = 900;

/// The most estimated registers ([`row_regs`]) of a row kernel with two rows in flight
/// (above it ptxas spilled: layernorm_bwd_f32 at 254 estimated).
const ROWS_AHEAD_MAX_REGS: u64 = 232;

/// Bytes of a row each lane of a short register-resident row should load where the kernel
/// only reduces one row input ([`NestShape::reduces_only`], one row input): fewer lanes a
/// row (at most four vectors a lane) until each loads this many. Measured on the H200
/// (twenty-fourth session, untuned, bf16): row_col_stats at 1000000 x 256 331 -> 151 us with
/// 8 lanes a row (64 bytes) instead of 32 (16), 131072 x 256 51.8 -> 30.7, 576000 x 384 191.8
/// -> 170.3 with 16 lanes (48 bytes); colmax_rowsum 192.4 -> 156.8, 30.9 -> 27.3, 170.0 ->
/// 167.0. The backward norms (two row inputs, dx written) gain or lose a few percent either
/// way with fewer lanes, so they keep theirs.
const SHORT_ROW_LANE_BYTES: u64 = 64;

/// The most bytes of each row input a lane of a short register-resident row loads where the
/// row's vectors are 8 bytes (N a multiple of half the 16-byte vector but not of all of it,
/// such as N = 100 in bf16): the row takes the fewest lanes, a power of two, that keeps each
/// lane's share at or under this. A lane of 8-byte loads keeps half a 16-byte lane's bytes in
/// flight, and a warp per row of N = 100 left 7 of its 32 lanes idle. Measured on an H100
/// (thirty-sixth session, backward norms in bf16, checked; the lanes before -> the lanes
/// now): RMSNorm at 262144 x 100 84.3 -> 70.2 us (32 -> 8 lanes), 728177 x 36 95.1 -> 70.5
/// (16 -> 4), 436906 x 60 78.4 -> 68.7 (16 -> 4); LayerNorm 87.3 -> 72.2, 101.4 -> 79.8,
/// 87.2 -> 70.8. At N = 300 (75 vectors) the rule keeps 32 lanes (24 bytes a lane): 16 lanes
/// (40 bytes) measured 74.9 -> 68.4 us for RMSNorm and the same for LayerNorm, and 8 lanes
/// leave the register-resident form. Rows of 2- and 4-byte vectors (N odd or twice odd in bf16)
/// keep their lanes: they are not measured (odd short rows mostly take a thread each,
/// [`thread_row`]).
const NARROW_ROW_LANE_BYTES: u64 = 32;

/// The most rows a row group stages through shared memory ([`Schedule::staged_rows`]).
pub const MAX_STAGED_ROWS: u32 = 8;

/// Bytes of staged rows the heuristic keeps in flight per SM (the copy kernel's bytes in
/// flight at the floor are about 40 KB per SM on the H200; the margin covers the rows
/// being computed).
const STAGED_BYTES_PER_SM: u64 = 128 * 1024;

/// Bytes of one staged row of every row input (each at the widest element, a bound on the
/// shared memory the lowering allocates: each input's slot rounded up to 16 bytes).
pub fn staged_row_bytes(shape: &NestShape, cols: u64) -> u64 {
    shape.row_inputs as u64 * (cols * shape.fast_bytes.max(1) as u64).next_multiple_of(16)
}

/// Elements per vector access of the register-resident form of a row of `n` columns: 16
/// bytes of the widest element (or the `vector` option), at most 8, halved until it divides `n`.
/// A thread's whole row instead (`n`, not a power of two) where [`thread_row`] applies and
/// the row takes a thread (`tpr` 1, or not yet chosen: `None`).
fn fast_vector(o: &Overrides, shape: &NestShape, n: u64, tpr: Option<u32>) -> u32 {
    let widest = (16 / shape.fast_bytes.clamp(1, 16)).max(1);
    let mut v = if o.vector > 0 { o.vector } else { widest }.min(8);
    while v > 1 && !n.is_multiple_of(v as u64) {
        v /= 2;
    }
    if tpr.is_none_or(|t| t == 1) && thread_row(o, shape, n, v) {
        return n as u32;
    }
    v
}

/// The most bytes (of the widest row input) of a short row that a thread takes whole where its
/// lanes' vectors would be under 16 bytes (`thread_row`).
pub const THREAD_ROW_MAX_BYTES: u64 = 64;

/// Whether a short row of `n` columns takes a thread, its whole row one access of `n`
/// elements (split into the widest aligned pieces: [`vector_pieces`]), instead of a group of
/// lanes of `v`-element vectors: where the power of two `v` that divides `n` leaves
/// accesses under 16 bytes (N = 3, 6 or 12 in bf16: 2, 4 or 8 bytes, three active lanes of
/// four), the row is at most [`THREAD_ROW_MAX_BYTES`], and the default group of packed rows
/// ([`default_packed_rows`]) at most [`THREAD_ROW_MAX_GROUP`] bytes. Not where the `vector`
/// or `threads-per-row` option (other than 1) is given.
///
/// A group is loaded in pieces, each a load of its own, a group apart from the next thread's:
/// a warp's load touches a sector a thread, and the group's bytes bound what a warp's loads
/// cover. Measured on an H100 (thirty-first session, RMSNorm backward, against the lanes):
/// groups of 24-48 bytes at 70-82% of the floor (N = 3, 5, 6, 12: 1.2-3.8x faster than the
/// lanes); groups of 80 bytes (8 rows of N = 5, 4 of N = 10) at 45-51%, under the lanes'
/// 50% at N = 10; 8 rows of N = 7 (112 bytes) 184.0 us against the lanes' 137.9.
///
/// Where the warp accesses its 32 groups in consecutive pieces instead
/// ([`FastShape::warp_transpose`]: by default where a group is at least
/// [`TRANSPOSE_MIN_PIECES`] pieces, or asked with `warp-transpose=true`), the group may be
/// up to [`PACKED_MAX_BYTES`]: 4 rows of N = 7 (56 bytes, seven 8-byte pieces), 2 of N = 14
/// or 20, and 2 of the odd N = 17 to 31 (their default 4 rows would be over it; a warp per row
/// with 17 of its lanes on 2-byte loads before: RMSNorm backward at 2097152 x 17, 32% of the
/// floor on an H100).
fn thread_row(o: &Overrides, shape: &NestShape, n: u64, v: u32) -> bool {
    let b = shape.fast_bytes.clamp(1, 8) as u64;
    let row = n * b;
    // The rows `packed_rows_for` takes: the default, fewer where they would be over
    // PACKED_MAX_BYTES (2 rows of N = 17 to 31 in bf16, whose default 4 are over it).
    let room = pow2_floor((PACKED_MAX_BYTES / row.max(1)) as u32) as u64;
    let rows = default_packed_rows(row, false).min(room.max(2));
    let transposed = match o.warp_transpose {
        Some(t) => t,
        None => transposed_by_default(rows * n, b as u32),
    };
    let group = if transposed { PACKED_MAX_BYTES } else { THREAD_ROW_MAX_GROUP };
    o.vector == 0
        && o.threads_per_row <= 1
        && (v as u64) < n
        && v as u64 * b < 16
        && row <= THREAD_ROW_MAX_BYTES
        && rows * row <= group
}

/// The fewest aligned pieces a thread's group of packed rows must be for the heuristic to
/// have its warp load it as the warp's span instead ([`FastShape::warp_transpose`]).
/// Measured on an H100 (thirty-second session, RMSNorm backward unless said, the thread's own
/// pieces -> the warp's span): 7 pieces (4 rows of N = 7, 2 of N = 14) 137.9 -> 79.2 us and
/// 102.8 -> 84.3, LayerNorm forward at N = 7 145.3 -> 64.8, row_col_stats 62.1 -> 44.1; 5
/// pieces (4 rows of N = 5, 2 of N = 20) 68.7 -> 60.3 and 77.3 -> 59.4; 3 pieces lost or
/// tied (4 rows of N = 3 73.1 -> 78.5, LayerNorm 85.6 -> 91.0, 2 of N = 6 68.4 -> 73.8, 2 of N
/// = 12 64.7 -> 65.9; 8 rows of N = 3 76.2 -> 72.9); 2 pieces lost (8 rows of N = 2 56.6 ->
/// 58.4).
pub const TRANSPOSE_MIN_PIECES: usize = 4;

/// Whether the heuristic transposes groups of `elems` elements of `elem_bytes` each (at a
/// multiple of `elems`): where they are at least [`TRANSPOSE_MIN_PIECES`] aligned pieces.
pub fn transposed_by_default(elems: u64, elem_bytes: u32) -> bool {
    vector_pieces(elems as usize, elem_bytes, elems as usize).len() >= TRANSPOSE_MIN_PIECES
}

/// The most bytes of a default group of packed rows for which a short row takes a thread
/// (`thread_row`).
pub const THREAD_ROW_MAX_GROUP: u64 = 48;

/// The rows a thread packs by default where its row is `row` bytes (of the widest row input;
/// [`packed_rows_for`]) and whether the kernel only reduces its rows (`reduces_only`,
/// [`NestShape::reduces_only`]): the fewest
/// whose bytes are a multiple of 16 (8 rows of 2 bytes, 4 of 4, 2 of 8, 1 of 16 or more), or
/// half as many, at least two, where the row's bytes are not a power of two (4 rows of 6 bytes,
/// 2 of 12, 2 of 24, 4 of 10: 8-byte pieces), except that a kernel that only reduces its rows
/// keeps the fewest where they are at most [`THREAD_ROW_MAX_GROUP`] bytes. Measured on an
/// H100 (thirty-first session, 16-byte pieces against 8): RMSNorm backward at 8388608 x 3
/// 77.8 -> 74.45 us, 4194304 x 6 70.3 -> 69.6, 4194304 x 5 94.0 -> 67.9; LayerNorm backward
/// 90.0 -> 87.6 and 79.8 -> 76.0; f32 RMSNorm at 4194304 x 3 74.1 -> 70.3; at N = 12, one row
/// (24 bytes) against two, 69.8 against 69.35; row_col_stats (reduction only) at 8388608 x 3
/// 51.75 against 55.45 with the half group, at 4194304 x 5 (80 bytes) 38.9 against 38.0.
pub fn default_packed_rows(row: u64, reduces_only: bool) -> u64 {
    let whole = 16 >> row.max(1).trailing_zeros().min(4);
    if row.is_power_of_two() || reduces_only && whole * row <= THREAD_ROW_MAX_GROUP {
        whole
    } else {
        (whole / 2).max(2)
    }
}

/// The most bytes of each row input a thread loads for one group of packed rows
/// ([`packed_rows_for`]).
pub const PACKED_MAX_BYTES: u64 = 128;

/// The pieces of an access of `count` elements of `elem_bytes` each whose first element's
/// index is a multiple of `align` elements, as `(first, len)` in order: each piece is a
/// power of two of elements (1, 2, 4 or 8), at most 16 bytes, at an index that is a
/// multiple of its length (what `mgpu.load_vec` and `mgpu.store_vec` take), the widest
/// that fit from where the last one ended.
pub fn vector_pieces(count: usize, elem_bytes: u32, align: usize) -> Vec<(usize, usize)> {
    let most = (16 / elem_bytes.clamp(1, 16) as usize).clamp(1, 8);
    // The largest power of two dividing `align` (any index where `align` is 0).
    let base = if align == 0 { most } else { 1 << align.trailing_zeros().min(3) };
    let mut out = Vec::new();
    let mut e = 0;
    while e < count {
        let mut w = most.min(base.max(1));
        // The piece starts at `align * k + e`: a multiple of `w` where `e` is.
        while w > 1 && (!e.is_multiple_of(w) || e + w > count) {
            w /= 2;
        }
        out.push((e, w));
        e += w;
    }
    out
}

/// The report's note where a warp per row (`chunks` vectors of `v` elements a lane over a row
/// of `n`) leaves an eighth or more of its lane slots idle and 16 or 8 lanes a row would
/// leave a smaller share idle within the 32 columns a lane holds: N = 384 in bf16 is 48
/// vectors, two chunks of 32 lanes with the second half idle, or three full chunks of 16
/// lanes (on the H200, LayerNorm backward at 576000 x 384 ran 364 us with a warp a row and 350
/// with 16 lanes, shared accumulators and two rows staged; RMSNorm 387 -> 327 with 16 lanes
/// and interleaved splits). The heuristic keeps the warp (16 lanes hold twice the columns a
/// thread: more registers, fewer CTAs), so the note names the knob.
fn idle_lanes_note(n: u64, v: u64, chunks: u64) -> Option<String> {
    let vecs = n.div_ceil(v.max(1));
    let idle = chunks * 32 - vecs.min(chunks * 32);
    if idle * 8 < chunks * 32 {
        return None;
    }
    // Idle share of lanes `l`: (ceil(vecs / l) x l - vecs) / (ceil(vecs / l) x l).
    let idle_of = |l: u64| {
        let slots = vecs.div_ceil(l) * l;
        ((slots - vecs) as f64 / slots as f64, vecs.div_ceil(l))
    };
    let share32 = idle as f64 / (chunks * 32) as f64;
    let (l, (share, c)) = [16u64, 8]
        .into_iter()
        .map(|l| (l, idle_of(l)))
        .filter(|(_, (sh, c))| *sh < share32 && c * v <= 2 * FAST_COLS)
        .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0))?;
    Some(format!(
        "a warp a row leaves {idle} of its {chunks} x 32 vector slots idle (N = {n}: {vecs} vectors of {v}); {l} lanes a row take {c} chunks with {:.0}% idle (threads-per-row={l}, a tuner knob: twice the columns a thread)",
        share * 100.0
    ))
}

/// Registers a thread of a register-resident row kernel needs besides its columns.
pub const REG_BASE: u64 = 30;

/// The registers a thread of a register-resident row kernel with `per_thread` columns
/// needs: [`REG_BASE`] and a register per column of each row input, hoisted vector and
/// partial (measured within 1-25% of ptxas on the examples at N = 1024), plus, with two
/// rows in flight, the next row of each input (`elem_bytes` wide, packed into 32-bit
/// registers).
pub fn row_regs(shape: &NestShape, per_thread: u64, rows_in_flight: u32) -> u64 {
    let held = shape.row_inputs as u64 + shape.hoisted as u64 + shape.partials as u64;
    let ahead = if rows_in_flight >= 2 {
        (per_thread * shape.row_inputs as u64 * shape.fast_bytes.clamp(1, 4) as u64).div_ceil(4)
    } else {
        0
    };
    REG_BASE + per_thread * held + ahead
}

/// The registers a thread of a register-resident row kernel in the reload form
/// ([`FastShape::reload`]) with `per_thread` columns needs: [`REG_BASE`], a register per
/// column of each partial, and one pass's loads of the row inputs (`fast_bytes` wide, packed
/// into 32-bit registers). Neither the row nor a hoisted vector is held across a reduction.
pub fn reload_regs(shape: &NestShape, per_thread: u64) -> u64 {
    REG_BASE + per_thread * shape.partials as u64 + reload_loads(shape, per_thread)
}

/// [`row_regs`] with the partials in shared memory (a warp per row's
/// [`FastShape::shared_accs`]): its rows, hoisted vectors and rows in flight.
pub fn held_accs_regs(shape: &NestShape, per_thread: u64, rows_in_flight: u32) -> u64 {
    row_regs(shape, per_thread, rows_in_flight) - per_thread * shape.partials as u64
}

/// [`reload_regs`] with the partials in shared memory ([`FastShape::shared_accs`]): only
/// [`REG_BASE`] and a pass's loads.
pub fn shared_accs_regs(shape: &NestShape, per_thread: u64) -> u64 {
    REG_BASE + reload_loads(shape, per_thread)
}

/// Registers of one pass's loads of the row inputs, `fast_bytes` wide, packed in 32 bits.
fn reload_loads(shape: &NestShape, per_thread: u64) -> u64 {
    (per_thread * shape.row_inputs as u64 * shape.fast_bytes.clamp(1, 4) as u64).div_ceil(4)
}

/// The registers estimated for a thread of the register-resident row schedule `s` with
/// `per_thread` columns: [`reload_regs`] in the reload form, else [`row_regs`] with its rows
/// in flight.
///
/// A thread per row with `packed` rows holds each row input's columns `packed` times over, but
/// its hoisted vectors and partials once: its rows share their columns ([`packed_regs`]).
pub fn fast_regs(shape: &NestShape, per_thread: u64, s: &Schedule) -> u64 {
    match s.fast.map_or(1, |f| f.packed_rows.max(1)) as u64 {
        1 => form_regs(shape, per_thread, s.fast, s.rows_in_flight_per_warp),
        packed => packed_regs(shape, per_thread, packed),
    }
}

/// The registers of a thread per row with `packed` rows of `cols` columns ([`row_regs`]'s
/// count, packed rows having one row in flight and no reload): [`REG_BASE`], `packed` rows of
/// each row input, the hoisted vectors and partials once (the rows share their columns), and
/// [`PACKED_ROW_SCALARS`] a row.
pub fn packed_regs(shape: &NestShape, cols: u64, packed: u64) -> u64 {
    REG_BASE
        + cols * packed * shape.row_inputs as u64
        + cols * (shape.hoisted as u64 + shape.partials as u64)
        + packed * PACKED_ROW_SCALARS
}

/// Registers a packed row holds besides its columns (its row's scalars: reductions, the row's
/// broadcast values, its address): without them the estimate planned a CTA too many for rows
/// of one or two columns, 8 rows a thread, and ptxas spilled 4-8 bytes (gelu_bwd_bias and
/// rmsnorm_bwd_f32 at N = 2; `every_example_assembles_without_spills`).
pub const PACKED_ROW_SCALARS: u64 = 4;

/// The share of [`packed_regs`] ptxas needs for packed 16-bit rows when capped (their loads
/// stay two columns a register until converted): measured on the norms' backward kernels in
/// bf16 (thirty-fifth session, sm_90, cap 128 for two CTAs of 256; estimates without the row
/// scalars): 132 estimated, 121 used (RMSNorm, N = 17); 149, 127 (LayerNorm, 17); 150, 128
/// (RMSNorm, 20); over it, 170 spilled 226 bytes (LayerNorm, 20) and 216 spilled 632 (RMSNorm,
/// 31).
pub const PACKED_16BIT_REG_SHARE: (u64, u64) = (85, 100);

/// The registers estimated for a thread of the fast form `fast` with `per_thread` columns and
/// `rows_in_flight` rows held ([`fast_regs`] of a schedule, or of one row in flight).
fn form_regs(shape: &NestShape, per_thread: u64, fast: Option<FastShape>, rows_in_flight: u32) -> u64 {
    match fast {
        Some(f) if f.shared_accs && f.reload => shared_accs_regs(shape, per_thread),
        Some(f) if f.reload => reload_regs(shape, per_thread),
        Some(f) if f.shared_accs => held_accs_regs(shape, per_thread, rows_in_flight),
        _ => row_regs(shape, per_thread, rows_in_flight),
    }
}

/// The registers the heuristic counts for a row kernel with two rows in flight whose estimate
/// ([`row_regs`]) is `regs`: 40% more, the most the estimate has run under ptxas' count.
fn rows_ahead_margin(regs: u64) -> u64 {
    regs * 7 / 5
}

/// The registers ptxas may give a thread of a CTA of `threads` threads bounded to `ctas` CTAs
/// a SM (`.minnctapersm`): the SM's registers shared out, at most 255, in units of 8.
pub fn register_cap(device: &Device, ctas: u64, threads: u64) -> u64 {
    (device.registers_per_sm as u64 / (ctas.max(1) * threads.max(1))).min(255) / 8 * 8
}

/// CTAs of `threads` threads with `regs` registers each that an SM of `device` holds
/// (registers allocated in units of 8 per thread; at least 1).
pub fn resident_ctas(device: &Device, threads: u64, regs: u64) -> u64 {
    let regs = regs.clamp(16, 255).div_ceil(8) * 8;
    let by_regs = device.registers_per_sm as u64 / (regs * threads.max(1));
    (THREADS_PER_SM / threads.max(1)).min(by_regs).max(1)
}

/// The CTAs per SM a CTA-per-row schedule with rows in registers is planned for (`None` for
/// any other schedule), for ptxas' `.minnctapersm`: the CTAs its register estimate
/// ([`row_regs`]) leaves resident. Without a bound ptxas may cap the registers lower and spill
/// (colmax_rowsum at 16384 x 8192, 256 threads: 64 registers and 16 bytes of spills).
///
/// The estimate runs up to a third under ptxas' count (layernorm_bwd_f32 at N = 3000, 110
/// estimated, spilled 148 bytes under a cap of 112; rmsnorm_bwd at 576000 x 384, ptxas takes
/// 110 unbounded and spilled 44 bytes under three CTAs' cap of 80). Until the forty-seventh
/// session the plan kept a quarter margin for that (one CTA fewer past two where the cap sat
/// within a quarter of the estimate; `min-ctas=margin` still does); now the plan is the
/// estimate's, marked `min_ctas_planned`, and spill relief lowers it by a CTA where the
/// assembler spills under it (`target::ptx::relief`, on every load of the execution engine).
/// Timed on an H100 at 14 of the 119 example shapes it re-plans (forty-seventh
/// session, docs/perf.md): RMSNorm backward 65536 x 200 50.8 -> 40.3 us, 131072 x 256 94.7
/// -> 79.9, log-softmax backward 131072 x 256 165.9 -> 147.7, the rest within 3%.
///
/// A warp-per-row schedule with two rows in flight is planned for the CTAs the heuristic
/// counted with its margin (the heavy rows of [`HEAVY_ROW_ISSUE`] give CTAs up for it): left
/// alone ptxas capped tanh_bwd_bias and softmax_fwd_colsum at 65536 x 1024 at 128 registers,
/// two CTAs of 256, and spilled 4 and 8 bytes.
///
/// A cooperative kernel (`cooperative`: the row kernel with its final reduction behind a grid
/// barrier, whose grid the runtime caps at the CTAs resident) is planned for the CTAs its
/// estimate leaves resident with one row in flight too: left alone ptxas capped
/// rmsnorm_bwd_f32's at 576000 x 384 at 80 registers (three CTAs) and spilled 8 bytes.
pub fn planned_ctas_per_sm(device: &Device, shape: &NestShape, s: &Schedule, cooperative: bool) -> Option<u64> {
    planned_ctas_per_sm_with(device, shape, s, cooperative, false)
}

/// [`planned_ctas_per_sm`], without the quarter margin (the default) or with it (`margin`,
/// `lower-loop-to-gpu{min-ctas=margin}`, a tuner knob): one CTA fewer past two where the cap
/// would sit within a quarter of the estimate (RMSNorm backward's row kernel at 65536 x 200
/// estimates 58 registers: 3 CTAs with the margin, 4 without, whose cap of 64 held it
/// without a spill).
pub fn planned_ctas_per_sm_with(
    device: &Device,
    shape: &NestShape,
    s: &Schedule,
    cooperative: bool,
    margin: bool,
) -> Option<u64> {
    s.fast?;
    let t = s.threads as u64;
    let per_thread = s.thread_cols();
    // The launch's shared memory (shared partials or accumulators, the staging ring) bounds
    // the CTAs an SM holds too: a bound on the registers for CTAs that cannot be resident
    // would only make ptxas spill (layernorm_bwd at 4096 x 16384: 128 KiB of accumulators,
    // capped at 64 registers for two CTAs, spilled 388 bytes; at 65536 x 1024 with a warp per
    // row, shared accumulators and two rows staged, 64 KiB a CTA, capped at 128 registers
    // for two, spilled 40).
    let by_smem = (device.shared_mem_per_sm / s.row_fused_shared_bytes(shape)).max(1);
    if s.threads_per_row <= 32 && s.rows_in_flight_per_warp >= 2 {
        return Some(resident_ctas(device, t, rows_ahead_margin(form_regs(shape, per_thread, s.fast, 2))).min(by_smem));
    }
    if s.threads_per_row <= 32 && !cooperative {
        return None;
    }
    let mut regs = fast_regs(shape, per_thread, s);
    if s.fast.is_some_and(|f| f.packed_rows > 1) && shape.fast_bytes == 2 {
        regs = regs * PACKED_16BIT_REG_SHARE.0 / PACKED_16BIT_REG_SHARE.1;
    }
    let ctas = resident_ctas(device, t, regs).min(by_smem);
    let cap = |k: u64| device.registers_per_sm as u64 / (k * t).max(1);
    Some(if margin && ctas > 2 && cap(ctas) < regs + regs / 4 { ctas - 1 } else { ctas })
}

/// Overrides from pass options (0 = let the heuristic choose).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    /// `threads`.
    pub threads: u32,
    /// `threads-per-row`.
    pub threads_per_row: u32,
    /// `vector`.
    pub vector: u32,
    /// `rows-per-cta`.
    pub rows_per_cta: u32,
    /// `grid`: the most CTAs.
    pub grid: u64,
    /// `fast=0`: never take the register-resident row-fused fast path.
    pub no_fast: bool,
    /// `split-rows`: rows per block of a split-K column reduction.
    pub split_rows: u32,
    /// `rows-in-flight`: rows a warp of a register-resident row-fused kernel has loaded at
    /// once (1 or 2; 0: heuristic).
    pub rows_in_flight: u32,
    /// `staged-rows`: rows a row group keeps in flight through shared memory (1: none;
    /// 2..=[`MAX_STAGED_ROWS`]; 0: heuristic).
    pub staged_rows: u32,
    /// `reload`: `Some(true)` takes the reload form of a register-resident row kernel
    /// ([`FastShape::reload`]) wherever the fast path applies, `Some(false)` never; `None`:
    /// the heuristic, which takes it for a CTA per row whose row does not fit the registers.
    pub reload: Option<bool>,
    /// `shared-accs`: `Some(true)` keeps the column partials in shared memory
    /// ([`FastShape::shared_accs`]): a CTA per row's (implies the reload form), or a warp per
    /// row's with shared partials (in its partial rows); `Some(false)` never; `None`: the
    /// heuristic, where a CTA per row's partials do not fit the registers beside a pass.
    pub shared_accs: Option<bool>,
    /// `cluster`: CTAs per row of a register-resident CTA-per-row kernel, one thread-block
    /// cluster ([`Schedule::cluster`]; 1: none; 0: the heuristic).
    pub cluster: u32,
    /// `stream-loads`: `Some(true)` streams the kernel's loads of its full-rank read-only
    /// tensors ([`Schedule::stream_loads`]), `Some(false)` never; `None`: the heuristic
    /// ([`NestShape::streams_inputs`]).
    pub stream_loads: Option<bool>,
    /// `packed-rows`: the most rows a thread per row packs into one vector access
    /// ([`FastShape::packed_rows`]; 0 or 1: none).
    pub packed_rows: u32,
    /// `warp-transpose`: `Some(true)` has each warp load and store its packed rows together
    /// through shared memory ([`FastShape::warp_transpose`]) wherever rows are packed, and
    /// lets a short row whose group is over [`THREAD_ROW_MAX_GROUP`] bytes take a thread
    /// (`thread_row`); `Some(false)` never; `None`: the heuristic, which takes it where a
    /// group is at least [`TRANSPOSE_MIN_PIECES`] pieces ([`transposed_by_default`]).
    pub warp_transpose: Option<bool>,
    /// `Some(true)` lowers every pointwise nest with partials that has one in the flat
    /// partials form (`flat_partials.rs`: a CTA of N x c threads over consecutive 16-byte
    /// vectors of its rows, each thread's columns fixed, combined in shared memory) instead of
    /// the row form; `Some(false)` never; `None`: the heuristic (rows that are not whole
    /// vectors, or shorter than [`FLAT_PARTIALS_ROW_BYTES`], but not short unaligned rows of at
    /// most [`THREAD_ROW_MAX_BYTES`], which the row form gives a thread each).
    pub flat_partials: Option<bool>,
    /// `vectors-in-flight`: 16-byte vectors of each input a thread of the flat partials form
    /// loads at once before computing them (1, 2 or 4; 0: the heuristic,
    /// [`FLAT_VECTORS_IN_FLIGHT`]).
    pub vectors_in_flight: u32,
    /// `flat-warps`: a flat partials CTA of whole warps ([`flat_warp_threads`]) instead of
    /// [`flat_threads`], so that the final reduction after it may join its grid (its warp
    /// shuffles need every lane of a warp); `None` (the default) and `Some(true)`: whole
    /// warps where they fit, `Some(false)`: [`flat_threads`] ([`flat_cta_threads`]).
    pub flat_warps: Option<bool>,
}

/// Vectors of each input a thread of the flat partials form has in flight by default
/// (`vectors-in-flight`).
pub const FLAT_VECTORS_IN_FLIGHT: u32 = 2;

/// Rows under this many bytes (of the widest float accessed along them) take the flat
/// partials form by default: the row form leaves lanes of a warp per row idle there
/// (measured on an H100, docs/perf.md, thirty-fifth session: flat partials 1.17x faster at
/// rows of 768 bytes, 1.02x slower at 1024).
pub const FLAT_PARTIALS_ROW_BYTES: u64 = 1024;

/// Registers a thread of the flat partials form is planned for, by vectors in flight (1, 2,
/// 4). Left alone ptxas took 40-48 (tanh_bwd_bias, gelu_bwd_bias) with one vector and 48-56
/// with two (the loop emitted chunk by chunk), but 115 for a CTA of 384 threads (bounded to
/// one a SM by default). Measured on an H100 with two in flight (gelu_bwd_bias, thirty-fifth
/// session, docs/perf.md): four CTAs of 256 a SM (64 registers) 91.8 us at 1048576 x 32
/// against 95.6 with three and 101.7 with five; two of 384 135.6 at 131072 x 384 against
/// 139.2 unbounded and 142.1 with three; five of 200 99.2 at 327680 x 100, four 98.4.
pub const FLAT_REGISTERS: [u64; 3] = [48, 64, 96];

/// The registers a thread of the flat partials form with `in_flight` vectors (1, 2, 4) is
/// planned for: its entry of [`FLAT_REGISTERS`].
pub fn flat_registers(in_flight: usize) -> u64 {
    FLAT_REGISTERS[in_flight.trailing_zeros().min(2) as usize]
}

/// The CTAs of `threads` threads per SM the flat partials form with `in_flight` vectors is
/// planned for (its `.minnctapersm`): those [`flat_registers`] leave resident.
pub fn flat_planned_ctas(device: &Device, threads: u64, in_flight: usize) -> u64 {
    resident_ctas(device, threads, flat_registers(in_flight))
}

/// Threads of a flat partials CTA over rows of `n` columns: `n x max(1, 256 div n)`.
pub fn flat_threads(n: u64) -> u64 {
    n.max(1) * (256 / n.max(1)).max(1)
}

/// Threads of a flat partials CTA of whole warps over rows of `n` columns (`flat-warps=true`):
/// `L = lcm(n, 32)` times `max(1, flat_threads(n) div L)`, the multiple of `L` nearest under
/// [`flat_threads`] (`L` itself where that is over it: 800 at N = 100 or 200, 224 at N = 7);
/// `None` where `L` is over 1024 threads.
pub fn flat_warp_threads(n: u64) -> Option<u64> {
    let n = n.max(1);
    // lcm(n, 32) = n * 32 / gcd(n, 32), and gcd(n, 32) is the power of two dividing n, at most 32.
    let l = (n >> n.trailing_zeros().min(5)) * 32;
    (l <= 1024).then(|| l * (flat_threads(n) / l).max(1))
}

/// Threads of a flat partials CTA over rows of `n` columns whose `accumulates` partials
/// take `v` f32 a thread of static shared memory: whole warps ([`flat_warp_threads`]) where
/// those threads and their partials fit (48 KiB), unless `flat_warps` is `Some(false)`;
/// [`flat_threads`] otherwise. Whole warps by default since the forty-fourth session (H100,
/// docs/perf.md, its call 7: gelu_bwd_bias 1-6% faster at N = 40, 48, 72, 80 and 200,
/// tanh_bwd_bias 4% at 262144 x 100, the final joining the grid instead of a launch).
pub fn flat_cta_threads(n: u64, v: u64, accumulates: u64, flat_warps: Option<bool>) -> u64 {
    if flat_warps == Some(false) {
        return flat_threads(n);
    }
    flat_warp_threads(n).filter(|t| accumulates * t * v * 4 <= 48 * 1024).unwrap_or_else(|| flat_threads(n))
}

/// Whether a pointwise nest with partials over rows of `n` columns of `bytes`-byte floats
/// takes the flat partials form by default (`flat-partials=auto`): not over rows the row
/// form gives a thread each (short rows that are not whole 16-byte vectors, at most
/// [`THREAD_ROW_MAX_BYTES`]: packed and warp-transposed, it measured 1.2-1.6x faster at N =
/// 3, 7 and 17), nor over aligned rows of [`FLAT_PARTIALS_ROW_BYTES`] or more (a warp's lanes
/// all busy: 1.02x at N = 512 in bf16); between them, where the row form leaves lanes idle,
/// flat partials measured 1.2-1.6x faster (N = 32-384; docs/perf.md, thirty-fourth and
/// thirty-fifth sessions). The lowering also needs `n <= 1024` and a vector of two or more
/// elements dividing the split.
pub fn flat_partials_by_default(n: u64, bytes: u64) -> bool {
    let row = n * bytes;
    let thread_rows = !row.is_multiple_of(16) && row <= THREAD_ROW_MAX_BYTES;
    let long_aligned = row.is_multiple_of(16) && row >= FLAT_PARTIALS_ROW_BYTES;
    (1..=1024).contains(&n) && !thread_rows && !long_aligned
}

/// Columns of a row one CTA of a register-resident row kernel holds before the heuristic
/// splits the row over a cluster ([`Schedule::cluster`]): a thread's registers bound its
/// columns, whatever their type. Measured on the H200 (2026-12-02, docs/perf.md): at
/// N = 16384 one CTA (the reload form) beats a cluster of 2 in bf16 (RMSNorm backward 128.0
/// against 198.7 us at 4096 rows) and in f32 (233.9 against 259.2; f32 N = 12288: 105.2
/// against 123.7); at bf16 N = 32768 a cluster of 2 beats one CTA (576.9 against 1762.5 us at
/// 8192 rows, whose shared accumulators spilled) and clusters of 4 (1120.1) and 8 (732.3).
const CTA_ROW_COLS: u64 = 16384;

/// Static shared memory a row kernel declares for its block reductions' slots, at most (32
/// values a warp of each reduced type and width, two halves where slots alternate).
const BLOCK_SLOTS_BYTES: u64 = 2048;

/// The dynamic shared memory (partials, accumulators, a staging ring) a CTA of row kernel `s`
/// may ask for: what the device allows one CTA, static and dynamic together
/// ([`Device::shared_mem_per_cta`]), less the static memory its kernel may declare besides:
/// the block reductions' slots and the tiles of a final reduction merged into its grid (one
/// 16-byte vector a thread for each column partial). A launch over the allowance fails
/// (RMSNorm f32 at 65536 x 1024 with `staged-rows=4`: 229392 dynamic and 4096 static bytes).
fn cta_dynamic_room(device: &Device, shape: &NestShape, s: &Schedule) -> u64 {
    let statics = BLOCK_SLOTS_BYTES + shape.partials as u64 * s.threads.max(256) as u64 * 16;
    device.shared_mem_per_cta.saturating_sub(statics)
}

/// Budget of shared memory one CTA of a row-fused kernel may use for partials, so that
/// at least two CTAs fit on an SM next to the L1 cache.
const SHARED_BUDGET: u64 = 96 * 1024;
/// Columns per thread the register-resident row-fused path aims at (twice that at most).
const FAST_COLS: u64 = 16;
/// Threads an SM holds at most (sm_90).
const THREADS_PER_SM: u64 = 2048;

/// Lanes that combine each column of a split's shared partials at its end (the flush of a
/// row kernel with `threads` threads a CTA and `slots` row slots, each a partial row of
/// `cols` columns; `None`: not known when compiled): 1, the serial form (a thread a column
/// walks every slot), unless there are at least [`FLUSH_LANES_MIN_SLOTS`] slots (a thread per
/// row) and at least twice as many threads as columns; then the largest power of two up to
/// a warp and `threads / cols`. Measured on an H100 (docs/perf.md, thirtieth session): at
/// 256 slots, 8388608 rows of N = 2, LayerNorm backward 72.8 -> 71.6 us, RMSNorm 58.6 ->
/// 58.2, colmax_rowsum 34.8 -> 33.8; at N = 4 RMSNorm 53.3 -> 52.6. With fewer slots it
/// did not pay: 128 slots (LayerNorm at 1000000 x 16, 16 lanes) 51.1 -> 51.6, 32 slots
/// (row_col_stats at 1000000 x 64) 60.5 -> 61.6.
pub fn flush_lanes(threads: u32, slots: u32, cols: Option<u64>) -> u32 {
    let Some(n) = cols.filter(|&n| n >= 1) else { return 1 };
    if (slots as u64) < FLUSH_LANES_MIN_SLOTS {
        return 1;
    }
    pow2_floor((threads as u64 / n).min(32) as u32)
}

/// Row slots from which a split's flush combines a column with a group of lanes
/// ([`flush_lanes`]).
pub const FLUSH_LANES_MIN_SLOTS: u64 = 256;

/// Columns per CTA of a final reduction over `cols` columns on `sms` SMs: 32 (a warp's
/// 128-byte row segment) where that gives a CTA per SM, else 16, else 8 (one 32-byte sector
/// of f32 per row; a warp then loads 4 rows at once). Its CTAs read the partials with loads of
/// the same size whatever the width, so more, narrower tiles draw more of the bandwidth: at
/// 1024 columns 128 CTAs instead of 32. Unknown `cols`: 32.
pub fn final_tile_cols(cols: Option<u64>, sms: u64) -> u32 {
    match cols {
        Some(n) => [32u32, 16].into_iter().find(|&w| n.div_ceil(w as u64) >= sms).unwrap_or(8),
        None => 32,
    }
}

/// Whether `lanes` can be a final reduction's lanes a row segment (its `threads_per_row`): a
/// power of two up to a warp.
pub fn is_final_lanes(lanes: u32) -> bool {
    matches!(lanes, 1 | 2 | 4 | 8 | 16 | 32)
}

/// Lanes a row segment (`threads_per_row`, 32 down to 2) of a final reduction's vector form,
/// `v` columns a lane, for `cols` columns and `rows` partial rows in CTAs of `threads`, over
/// a grid of `grid` CTAs. Each lane's row group walks the partial rows `trip` rows a round trip,
/// then the tile's columns combine the groups' partials from shared memory one by one: the
/// narrower the segment, the more groups (fewer load round trips, a longer combine) and the
/// more tiles (more of them a CTA where they outnumber the grid). Picks the fewest cycles by
/// `tiles a CTA x (round trips x FINAL_LOAD_CYCLES + groups x FINAL_COMBINE_CYCLES +
/// FINAL_TILE_CYCLES)` (the widest on a tie) among tiles no wider than the CTA. Unknown sizes:
/// 1024 columns, 256 rows.
pub fn final_vec_lanes(cols: Option<u64>, rows: Option<u64>, threads: u32, v: u32, trip: u32, grid: u64) -> u32 {
    let (n, r, t) = (cols.unwrap_or(1024).max(1), rows.unwrap_or(256).max(1), threads.max(32) as u64);
    let cost = |c: u64| {
        let tiles = n.div_ceil(c * v.max(1) as u64);
        let groups = t / c;
        let trips = r.div_ceil(groups * trip.max(1) as u64);
        tiles.div_ceil(grid.max(1)) * (trips * FINAL_LOAD_CYCLES + groups * FINAL_COMBINE_CYCLES + FINAL_TILE_CYCLES)
    };
    // A tile no wider than the CTA: one column a combining thread.
    let fits = |c: &u64| c * v.max(1) as u64 <= t;
    [32u64, 16, 8, 4, 2].into_iter().filter(fits).min_by_key(|&c| (cost(c), std::cmp::Reverse(c))).unwrap_or(2) as u32
}

/// A final reduction's load round trip to L2 under load, in cycles ([`final_vec_lanes`]).
const FINAL_LOAD_CYCLES: u64 = 800;
/// One group's partial combined from shared memory ([`final_vec_lanes`]).
const FINAL_COMBINE_CYCLES: u64 = 16;
/// A tile's barriers and epilogue ([`final_vec_lanes`]).
const FINAL_TILE_CYCLES: u64 = 200;

/// Estimated instructions a point ([`NestShape::work_per_point`]) from which a split-K
/// partial's blocks may be as short as 16 rows instead of 32 ([`split_rows`]): a thread that
/// works on each element gains more from twice the threads than a sum or a max of a load,
/// for which the partials' own bytes (8 a column a block, written and read again) weigh more.
/// H100, forty-sixth session, the unfused programs at 16 rows against 32 (the partial and its
/// final, us): RMSNorm backward's dw at 65536 x 200 (8 instructions a point) 25.7 + 6.2 ->
/// 19.9 + 7.3, LayerNorm backward's at 100003 x 100 (11) 19.1 + 7.6 -> 16.6 + 9.2,
/// softmax_fwd_colsum's column sum at 65536 x 200 (21) 24.5 + 6.3 -> 20.9 + 7.3; but
/// LayerNorm's db (2) 10.2 + 7.2 -> 13.0 + 9.6 and colmax_rowsum's column max at 65536 x 200
/// (2) 13.5 + 6.7 -> 14.5 + 7.2.
pub const SPLIT_HEAVY_WORK: u32 = 4;

/// Rows per block of a split-K column reduction ([`Schedule::split_rows`]) whose partial
/// launch has CTAs of `threads` threads, each thread taking `vector` columns of a block (1:
/// one column); 256 when the row count is unknown.
///
/// One column a thread: 512, 256 or 128 rows, the largest that still gives >= 2 x SMs CTAs
/// (`ceil(M / rows) x ceil(N / threads)`). A vector of columns a thread (the vector form):
/// 512 down to 32 rows, or 16 for a body of [`SPLIT_HEAVY_WORK`] or more instructions a
/// point, the largest that gives >= 3 x SMs CTAs (`ceil(ceil(M / rows) x
/// ceil(N / vector) / threads)`): a thread has one row of 16-byte loads in flight, and the
/// SM needs about three CTAs of 256 of them to reach the copy bandwidth (H200, RMSNorm
/// backward's dw at 65536 x 1024: 128 rows, 256 CTAs, 73.6% of its byte floor; 64 rows, 512
/// CTAs, 89.4%; at 576000 x 384: 256 rows, 422 CTAs, 97.4%; 64 rows 93.5%, the workspace
/// growing). The host raises the rows at run time until the blocks fit one wave
/// (`column_reductions.rs`).
pub fn split_rows(shape: &NestShape, threads: u32, vector: u32, sms: u64) -> u64 {
    let Some(m) = shape.rows else { return 256 };
    let (cols, t) = (shape.cols.unwrap_or(1024).max(1), threads.max(1) as u64);
    match vector {
        0 | 1 => {
            let ctas = |r: u64| m.div_ceil(r) * cols.div_ceil(t);
            [512, 256, 128].into_iter().find(|&r| ctas(r) >= 2 * sms).unwrap_or(128)
        }
        v => {
            let ctas = |r: u64| (m.div_ceil(r) * cols.div_ceil(v as u64)).div_ceil(t);
            let least = if shape.work_per_point >= SPLIT_HEAVY_WORK { 16 } else { 32 };
            [512, 256, 128, 64, 32, 16]
                .into_iter()
                .filter(|&r| r >= least)
                .find(|&r| ctas(r) >= 3 * sms)
                .unwrap_or(least)
        }
    }
}

/// The heuristic, in one place.
///
/// * **Threads per CTA:** 256 (8 warps): 8 CTAs fill an SM (64 warps, full occupancy) when a
///   thread needs at most 32 registers; heavier kernels still keep 2-4 CTAs resident.
/// * **Vector width:** 16 bytes per access (`bf16 x 8`, `f32 x 4`): H200 reaches copy
///   bandwidth only with 16-byte loads; bytes in flight per SM = threads x 16 B x rows in
///   flight must cover latency x bandwidth / SMs (~ 4.27e12 x 600e-9 / 132 = 19 KiB); 2048
///   threads x 16 B = 32 KiB.
/// * **Pointwise / thread-per-point:** grid = min(work / threads, SMs x 2048 / threads) CTAs,
///   grid-stride: one full wave, no tail wave. The lowering sets `vector` to the columns a
///   thread takes in the nest's vector form (1 without one) and divides the work by it.
/// * **Row reduction:** a warp per row while a row is short (N <= 1024: 32 lanes x 8
///   elements x 4 chunks), else the whole CTA per row (the block reduction costs two
///   barriers per row, amortized over >= 1024 elements).
/// * **Row-fused:** with the register-resident fast path (N static or hinted), a warp per
///   row while a lane holds at most 32 columns (N <= 1024; ptxas: 96-255 registers, no
///   spills, for the examples at N=1024), else a CTA per row with ~16 columns per thread;
///   looped rows: a warp per row for N <= 2048. A warp's reductions are shuffles and its
///   row needs no barrier, so a CTA has 8 rows in flight where a CTA per row has one
///   (measured on the H200 at N=1024, docs/perf.md). With a warp per row the CTA's
///   warps hold one f32 partial row each in shared memory (`partials x warps x N x 4` bytes,
///   at most 96 KiB so two CTAs fit per SM), combined in warp order at the end of a split
///   (deterministic); when that does not fit (or the workspace is not f32 `[i div S, j]`)
///   one CTA per row accumulates straight into its own workspace row. The persistent grid
///   is `min(splits, SMs x CTAs per SM)`; CTAs per SM is bounded by threads
///   (2048 / threads) and by shared memory (228 KiB / the CTA's partials).
/// * **Final reduction:** R warps per CTA, from the split count (`rows`): 32 warps from 1024
///   splits, 16 from 256 (and when unknown), else 8; `threads` overrides. Here a CTA owns a
///   tile of `threads_per_row` columns ([`final_tile_cols`]: 32, 16 or 8, the widest that
///   still gives a CTA per SM; `threads-per-row` overrides), each warp `32 / threads_per_row`
///   rows of it per load: the scalar form. Where the final has a vector form the lowering
///   sets `vector` and re-picks `threads_per_row` as the lanes of a segment of `vector`
///   columns each ([`final_vec_lanes`]), `rows_per_cta` = threads / lanes row groups.
/// * **Split-K column reduction (partial launch):** row blocks of 512, 256 or 128 rows, the
///   largest that still gives >= 2 x SMs CTAs (`ceil(M / rows) x ceil(N / threads)`); 256
///   when M is unknown; `split-rows` overrides ([`split_rows`]; the lowering recounts the
///   CTAs with the vector form's columns a thread, `ceil(ceil(M / rows) x ceil(N / vector) /
///   threads)`).
/// * **Rank-0 reduction:** one CTA of 1024 threads.
pub fn choose_schedule(mapping: Mapping, shape: &NestShape, device: &Device, o: &Overrides) -> Schedule {
    let pick = |over: u32, default: u32| if over > 0 { over } else { default };
    let elem = shape.elem_bytes.clamp(1, 16);
    let vector = pick(o.vector, (16 / elem).max(1));
    let sms = device.sms.max(1) as u64;
    let mut s = Schedule {
        mapping,
        threads: pick(o.threads, 256),
        threads_per_row: 1,
        rows_per_cta: 1,
        vector,
        rows_in_flight_per_warp: 1,
        staged_rows: 0,
        max_grid: 0,
        partials: PartialStore::None,
        fast: None,
        split_rows: 0,
        cluster: 1,
        // (A final reduction reads partials its row kernel has just written: they are in L2.)
        stream_loads: o.stream_loads.unwrap_or(shape.streams_inputs && mapping != Mapping::FinalReduction),
        notes: Notes::default(),
    };
    // CTAs of whole warps.
    s.threads = s.threads.div_ceil(32).clamp(1, 32) * 32;
    let full_wave = |threads: u32| sms * (THREADS_PER_SM / threads as u64).max(1);
    match mapping {
        Mapping::ThreadPerPoint | Mapping::PartialPointwise => {
            s.max_grid = full_wave(s.threads);
        }
        Mapping::RowReduction => {
            let long = shape.cols.is_some_and(|n| n > 1024);
            s.threads_per_row = pick(o.threads_per_row, if long { s.threads } else { 32 });
            s.threads_per_row = if s.threads_per_row >= s.threads { s.threads } else { 32 };
            s.rows_per_cta = s.threads / s.threads_per_row;
            s.max_grid = full_wave(s.threads);
        }
        Mapping::BlockReduction => {
            s.threads = pick(o.threads, 1024).div_ceil(32).clamp(1, 32) * 32;
            s.threads_per_row = s.threads;
            s.max_grid = 1;
        }
        Mapping::RowFused => {
            let (mut rows_ahead_note, mut staging_note): (Option<String>, Option<String>) = (None, None);
            let cols = shape.cols.unwrap_or(1024);
            // The fast path needs N (static or hinted) and a nest it can take.
            let fast_n = shape.cols.filter(|_| shape.fast_bytes > 0 && !o.no_fast && shape.cols != Some(0));
            let long = match fast_n {
                // Register-resident rows: a warp holds up to 32 columns per lane (its
                // reductions are shuffles, no barrier; measured on the H200 at N=1024 against
                // a CTA per row: rmsnorm_fwd 76 vs 107 us, layernorm_fwd 81 vs 162 us,
                // row_col_stats 79 vs 196 us, the backward norms equal or better).
                Some(n) => n > 32 * 2 * FAST_COLS,
                None => cols > 2048,
            };
            // A cluster of CTAs per row (`cluster`): each CTA is sized for its share of the row.
            // The heuristic takes the fewest CTAs (a power of two) whose share of a row input
            // is at most CTA_ROW_COLS columns, for rows with a row reduction, and for rows
            // without one that stream through the registers (pointwise work beside column
            // partials: at N = 32768 one CTA of 1024 spilled 8 bytes where each CTA of a
            // cluster of 2 takes the 16384 columns one CTA streams without a spill).
            let streamed_row = shape.row_reductions == 0 && shape.row_inputs > 0;
            let auto = match fast_n {
                Some(n) if long && (shape.row_reductions > 0 || streamed_row) && o.threads_per_row == 0 => {
                    let mut c = 1u32;
                    while n.div_ceil(c as u64) > CTA_ROW_COLS && (c as i64) < morf_gpu::ops::cluster::MAX_CLUSTER {
                        c *= 2;
                    }
                    c
                }
                _ => 1,
            };
            let mut cl = if o.cluster > 1 && long && fast_n.is_some() {
                o.cluster.min(morf_gpu::ops::cluster::MAX_CLUSTER as u32)
            } else if o.cluster == 0 {
                auto
            } else {
                1
            };
            if o.cluster == 0 && cl > 1 {
                s.notes.0.push(format!(
                    "a cluster of {cl} CTAs per row: a row of {} columns is over the {CTA_ROW_COLS} one CTA holds well",
                    fast_n.unwrap_or(0)
                ));
            }
            if o.cluster > 1 && cl == 1 {
                s.notes.0.push(format!(
                    "cluster={} not taken: a cluster per row needs a register-resident row (N known) of more than {} columns",
                    o.cluster,
                    32 * 2 * FAST_COLS
                ));
            }
            if let (Some(n), true, 0, 0) = (fast_n.map(|n| n.div_ceil(cl as u64)), long, o.threads, o.threads_per_row) {
                // A CTA per row with ~16 columns per thread (at least 4 warps), and past 8
                // warps up to 32 columns per thread instead of more warps: a smaller CTA waits
                // on fewer warps at each block reduction's barrier and shares the SM with
                // another CTA that computes meanwhile (measured on the H200 at 16384 x 8192,
                // 512 -> 256 threads: softmax_fwd_colsum 237.6 -> 189.1 us, row_col_stats
                // 107.8 -> 97.7, layernorm_bwd 228.9 -> 230.2, rmsnorm_bwd 219.2 -> 222.2,
                // layernorm_fwd 149.8 -> 153.8).
                // Rows without a reduction have no barrier to wait on (gelu_bwd_bias measured
                // 317 -> 382 us with 256 threads), and each of the two CTAs must still stage
                // two rows through shared memory (f32 rows of two inputs at N = 8192 would
                // stage none).
                let warps = |cols: u64| (n.div_ceil(cols) as u32).div_ceil(32);
                s.threads = warps(FAST_COLS).clamp(4, 32) * 32;
                let two_ctas_stage = 2 * 2 * staged_row_bytes(shape, n) <= STAGED_BYTES_PER_SM;
                if s.threads > 256 && shape.row_reductions > 0 && two_ctas_stage {
                    s.threads = warps(2 * FAST_COLS).clamp(8, 32) * 32;
                }
            }
            // A short register-resident row (16 vectors or fewer) takes a group of lanes, a
            // power of two, not a whole warp: a warp then holds 32 / lanes rows, and its
            // reductions are shuffles within each group (`mgpu.warp_reduce {width}`). A warp
            // per row would leave most lanes idle (N = 2: 31 of 32).
            let short = fast_n.filter(|_| !long).map(|n| {
                let v = fast_vector(o, shape, n, None) as u64;
                let vectors = n.div_ceil(v);
                let mut lanes = vectors.next_power_of_two().min(32);
                // A pure reduction of one row input (streamed: it writes no row) whose lanes
                // would load under SHORT_ROW_LANE_BYTES of a row each takes fewer lanes, at
                // most four vectors a lane: its loads are all the bytes it keeps in flight.
                let vbytes = v * shape.fast_bytes.max(1) as u64;
                // Bytes of a row input each of `l` lanes loads.
                let lane_bytes = |l: u64| vectors.div_ceil(l) * vbytes;
                let before = lanes;
                if shape.reduces_only && shape.row_inputs == 1 && o.threads_per_row == 0 {
                    while lanes > 1 && lane_bytes(lanes) < SHORT_ROW_LANE_BYTES && vectors.div_ceil(lanes / 2) <= 4 {
                        lanes /= 2;
                    }
                }
                if lanes < before {
                    s.notes.0.push(format!(
                        "{lanes} lanes a row, not {before}: a reduction-only row of {n} columns and one input loads {} bytes a lane (a lane of {before} loads {})",
                        lane_bytes(lanes),
                        lane_bytes(before)
                    ));
                }
                // A row of 8-byte vectors (N not a multiple of the 16-byte vector) takes fewer
                // lanes while each still loads at most NARROW_ROW_LANE_BYTES of every row input.
                let before = lanes;
                if (8..16).contains(&vbytes) && o.threads_per_row == 0 {
                    while lanes > 1 && lane_bytes(lanes / 2) <= NARROW_ROW_LANE_BYTES {
                        lanes /= 2;
                    }
                }
                if lanes < before {
                    s.notes.0.push(format!(
                        "{lanes} lanes a row, not {before}: a row of {n} columns in {vbytes}-byte vectors loads {} bytes of each row input a lane (a lane of {before} loads {})",
                        lane_bytes(lanes),
                        lane_bytes(before)
                    ));
                }
                lanes as u32
            });
            s.threads_per_row = pick(o.threads_per_row, if long { s.threads } else { short.unwrap_or(32) });
            let asked = s.threads_per_row;
            s.threads_per_row = if s.threads_per_row >= s.threads {
                s.threads
            } else if s.threads_per_row < 32 && s.threads_per_row.is_power_of_two() {
                s.threads_per_row
            } else {
                32
            };
            if o.threads_per_row > 0 && s.threads_per_row != asked {
                s.notes.0.push(format!(
                    "threads-per-row={asked} taken as {}: a row takes a power of two of lanes under 32, a warp, or the CTA of {} threads",
                    s.threads_per_row, s.threads
                ));
            }
            s.rows_per_cta = s.threads / s.threads_per_row;
            if o.rows_per_cta > 0 && s.threads_per_row == 32 {
                s.rows_per_cta = o.rows_per_cta.min(s.threads / 32).max(1);
                s.threads = s.rows_per_cta * 32;
            }
            let smem = shape.partials as u64 * s.rows_per_cta as u64 * cols * 4;
            s.partials = if shape.partials == 0 {
                PartialStore::None
            } else if s.rows_per_cta > 1 && shape.shared_ok && smem <= SHARED_BUDGET {
                PartialStore::Shared
            } else {
                // One row in flight: each column is owned by one thread of the CTA.
                s.threads_per_row = s.threads;
                s.rows_per_cta = 1;
                PartialStore::Global
            };
            if cl > 1 && s.threads_per_row != s.threads {
                s.notes.0.push(format!(
                    "cluster={cl} not taken: a cluster per row needs a CTA per row, not {} threads a row",
                    s.threads_per_row
                ));
                cl = 1;
            }
            s.cluster = cl;
            // The heuristic took register partials within an eighth of the bound over shared
            // accumulators that leave no room for a ring (below): the ring is staged anyway.
            let mut ring_over_accs = false;
            // A heavy warp-per-row kernel stages its next row instead of holding it in
            // registers (below, where the rows in flight are chosen).
            let mut stage_heavy = false;
            if let Some(n_full) = fast_n {
                let v = fast_vector(o, shape, n_full, Some(s.threads_per_row));
                // The CTA's share of the row (all of it without a cluster).
                let n = n_full.div_ceil(cl as u64);
                let chunks = n.div_ceil(s.threads_per_row as u64 * v as u64);
                if s.threads_per_row == 32 && o.threads_per_row == 0 && cl == 1 {
                    if let Some(note) = idle_lanes_note(n, v as u64, chunks) {
                        s.notes.0.push(note);
                    }
                }
                // At most 32 columns per thread (registers), unrolled, and a row that fits the
                // registers a thread of the CTA may hold (else ptxas spills: layernorm_bwd at
                // N = 16384, 190 estimated against 128 at 512 threads, spilled 284 bytes); the
                // looped form holds one step of the row instead.
                let per_thread = n.div_ceil(s.threads_per_row.max(1) as u64);
                // The registers a thread of a CTA of `t` may hold.
                let bound_of = |t: u32| (device.registers_per_sm as u64 / t.max(1) as u64).min(255);
                let bound = bound_of(s.threads);
                let regs = row_regs(shape, per_thread, 1);
                let fits = chunks * v as u64 <= 2 * FAST_COLS;
                // The reload form where holding the row does not fit: a CTA per row with a
                // row reduction (the heuristic's CTA size may grow to 32 columns a thread for
                // it), or wherever the option asks.
                // Each candidate is a CTA size and whether its partials live in shared memory.
                let cta_row = s.threads_per_row > 32;
                let accs_ok = cta_row && shape.partials > 0 && shape.row_inputs > 0;
                let mut tight_note = None;
                // The reload form's CTA sizes: the CTA of 32 columns a thread first (fewer warps
                // wait at each block reduction), then the CTA chosen; the first is skipped where
                // the CTA size is asked for or its columns do not fit the unrolled form.
                let mut sizes = vec![s.threads];
                if cta_row && o.threads == 0 && o.threads_per_row == 0 {
                    sizes.insert(0, ((n.div_ceil(2 * FAST_COLS) as u32).div_ceil(32).clamp(1, 32)) * 32);
                }
                let fits_at = |t: u32| n.div_ceil(t as u64 * v as u64) * v as u64 <= 2 * FAST_COLS;
                // A forced reload form (`reload=true`, or `shared-accs=true` without
                // `reload=false`) takes the first size that fits, as the heuristic's would
                // (LayerNorm backward at 4096 x 16384 with `reload=true shared-accs=false
                // staged-rows=3`: 185 us at the 1024 threads chosen for holding the row, 145
                // at 512).
                let forced_size = || sizes.iter().copied().find(|&t| fits_at(t));
                let reload: Option<(u32, bool)> = if o.reload == Some(false) {
                    None
                } else if o.shared_accs == Some(true) {
                    forced_size().filter(|_| accs_ok).map(|t| (t, true))
                } else if o.reload == Some(true) {
                    forced_size().map(|t| (t, false))
                } else if fits && regs <= bound {
                    None
                } else if cta_row && shape.row_reductions == 0 && shape.row_inputs > 0 {
                    // A row without a row reduction (pointwise work beside column partials)
                    // that its CTA cannot hold streams through the registers in the reload
                    // form, at the size `reload=true` takes: the looped form it replaces ran
                    // 3.0-5.0x slower (H200, fortieth session: gelu_bwd_bias at 4096 x 16384
                    // 351.3 -> 114.9 us, 16384 x 16384 2066.9 -> 416.6, 2048 x 32768 523.5 ->
                    // 131.1 with 8 bytes spilled; tanh_bwd_bias alike; the looped form's
                    // vectors at 256 threads 666-2885 us).
                    let chosen = forced_size().map(|t| (t, false));
                    if let Some((t, _)) = chosen {
                        let need = reload_regs(shape, n.div_ceil(t as u64));
                        if need > bound_of(t) {
                            tight_note = Some(format!(
                                "the streamed row needs ~{need} of the {} registers a thread of {t} may hold: ptxas may spill",
                                bound_of(t)
                            ));
                        }
                    }
                    chosen
                } else if cta_row && shape.row_reductions > 0 && shape.row_inputs > 0 {
                    // The sizes above; partials in registers, then in shared memory (where
                    // they fit its budget); one whose estimate is within an eighth of its
                    // bound only when none has that margin (ptxas counts up to a third more
                    // than the estimate: layernorm_bwd at 4096 x 16384, 126 estimated, 400
                    // bytes spilled under 128).
                    let mut cands: Vec<(u32, bool)> = sizes.iter().map(|&t| (t, false)).collect();
                    if accs_ok && o.shared_accs != Some(false) {
                        cands.extend(sizes.iter().map(|&t| (t, true)));
                    }
                    let slack = |(t, sh): (u32, bool)| {
                        let per = n.div_ceil(t as u64);
                        let ok = fits_at(t) && (!sh || shared_accs_bytes(shape.partials, n) <= SHARED_ACCS_BUDGET);
                        let need = if sh { shared_accs_regs(shape, per) } else { reload_regs(shape, per) };
                        ok.then(|| bound_of(t) as i64 - need as i64)
                    };
                    let with_margin =
                        cands.iter().copied().find(|&c| slack(c).is_some_and(|sl| sl * 8 >= bound_of(c.0) as i64));
                    // Shared accumulators that leave no room for two staged rows reload every
                    // row from L2; a CTA (not a cluster: 8390 against 7439 us at 100000 x
                    // 32768, 164 bytes spilled) with its partials in registers within the
                    // bound but not its margin, reloading from a ring, is faster even where
                    // ptxas spills a little (LayerNorm backward at 4096 x 16384 on the H200:
                    // 166 us with shared accumulators; two rows staged, 72 bytes spilled, 156;
                    // three, none spilled, 144).
                    // (Only where the staging below takes a ring: two rows fit what it keeps in
                    // flight for one CTA a SM, and neither `staged-rows=1` nor `rows-in-flight`
                    // is asked.)
                    let two_rows = 2 * staged_row_bytes(shape, n);
                    let accs_bytes = shared_accs_bytes(shape.partials, n);
                    let accs_leave_no_ring = device.shared_mem_per_sm.saturating_sub(accs_bytes) < two_rows
                        && two_rows <= STAGED_BYTES_PER_SM.min(device.shared_mem_per_sm);
                    let tight_regs = cands.iter().copied().find(|&c| !c.1 && slack(c).is_some_and(|sl| sl >= 0));
                    let with_margin = match (with_margin, tight_regs) {
                        (Some((_, true)), Some((t, _)))
                            if cl == 1 && accs_leave_no_ring && o.staged_rows != 1 && o.rows_in_flight == 0 =>
                        {
                            ring_over_accs = true;
                            tight_note = Some(format!(
                                "partials in registers (~{} of the {} registers a thread of {t} may hold: ptxas may spill), not in shared memory: its {accs_bytes} bytes would leave no room for two staged rows, and the row would come again from L2",
                                reload_regs(shape, n.div_ceil(t as u64)),
                                bound_of(t),
                            ));
                            Some((t, false))
                        }
                        _ => with_margin,
                    };
                    let chosen =
                        with_margin.or_else(|| cands.iter().copied().find(|&c| slack(c).is_some_and(|sl| sl >= 0)));
                    if let (None, Some((t, _))) = (with_margin, chosen) {
                        // Taken without the margin: said, since ptxas may spill there (the
                        // looped form it replaces is slower still: docs/perf.md, twelfth session).
                        tight_note = Some(format!(
                            "reload form within an eighth of the {} registers a thread of {t} may hold: ptxas may spill",
                            bound_of(t)
                        ));
                    }
                    chosen
                } else {
                    None
                };
                // A CTA per row that holds its row while its partials accumulate in shared
                // memory, when asked (`reload=false shared-accs=true`): the registers the
                // partials took are free for more CTAs a SM.
                let cta_held = o.shared_accs == Some(true) && o.reload == Some(false) && accs_ok;
                let held_regs = if cta_held { held_accs_regs(shape, per_thread, 1) } else { regs };
                let asked_threads = s.threads;
                if let Some((t, shared_accs)) = reload {
                    if t != s.threads {
                        s.threads = t;
                        s.threads_per_row = t;
                        s.rows_per_cta = 1;
                    }
                    let per = n.div_ceil(s.threads_per_row.max(1) as u64);
                    let chunks = n.div_ceil(s.threads_per_row as u64 * v as u64);
                    s.fast = Some(FastShape {
                        vector: v,
                        chunks: chunks as u32,
                        cols: n_full,
                        reload: true,
                        shared_accs,
                        remat_converts: false,
                        chunk_major: false,
                        packed_rows: 0,
                        warp_transpose: false,
                    });
                    if o.reload.is_none() && o.shared_accs.is_none() {
                        let how = if shared_accs {
                            format!(
                                "reloading {per} columns a thread of {} with the partials in shared memory ({} bytes) needs ~{}",
                                s.threads,
                                shared_accs_bytes(shape.partials, n),
                                shared_accs_regs(shape, per)
                            )
                        } else {
                            format!(
                                "{} {per} columns a thread of {} needs ~{}",
                                if shape.row_reductions == 0 { "streaming" } else { "reloading" },
                                s.threads,
                                reload_regs(shape, per)
                            )
                        };
                        let what = if shape.row_reductions == 0 {
                            "row streamed through the registers in steps (reload form, no row reduction)"
                        } else {
                            "row loaded again after each row reduction (reload)"
                        };
                        s.notes.0.push(format!(
                            "{what}: holding {per_thread} columns a thread needs ~{regs} registers, over the {bound} a thread of {asked_threads} may hold; {how}"
                        ));
                        s.notes.0.extend(tight_note.take());
                    }
                } else if fits && held_regs <= bound {
                    // A warp per row's partials in its shared partial rows when asked, a CTA
                    // per row's in its dynamic shared memory.
                    let held_accs = cta_held
                        || o.shared_accs == Some(true)
                            && !cta_row
                            && s.partials == PartialStore::Shared
                            && shape.partials > 0;
                    if o.shared_accs == Some(true) && o.reload == Some(false) && cta_row && !cta_held {
                        s.notes.0.push(
                            "shared-accs not taken: a CTA per row keeps column partials in shared memory only where it has partials of row inputs".into(),
                        );
                    }
                    if o.shared_accs == Some(true) && !cta_row && !held_accs && shape.partials > 0 {
                        s.notes.0.push(
                            "shared-accs not taken: a warp per row keeps column partials in shared memory only with shared partials (several rows in flight per CTA)".into(),
                        );
                    }
                    s.fast = Some(FastShape {
                        vector: v,
                        chunks: chunks as u32,
                        cols: n_full,
                        reload: false,
                        shared_accs: held_accs,
                        remat_converts: false,
                        chunk_major: false,
                        packed_rows: 0,
                        warp_transpose: false,
                    });
                } else if fits {
                    // Also for a forced CTA size (threads=512 at N = 1024: 331 us against 110
                    // with 256, silent before).
                    s.notes.0.push(format!(
                        "row kept in a loop, not in registers: ~{regs} registers estimated for {per_thread} columns a thread, over the {bound} a thread of {} may hold",
                        s.threads
                    ));
                } else if chunks * v as u64 > 2 * FAST_COLS && o.threads_per_row > 0 {
                    // A forced row width the register-resident form cannot hold: said, not
                    // silent (threads-per-row=8 at N = 384 measured 1639 against 343 us).
                    s.notes.0.push(format!(
                        "row kept in a loop, not in registers: threads-per-row={} gives {} columns a thread, over the {} the register-resident form holds",
                        s.threads_per_row,
                        chunks * v as u64,
                        2 * FAST_COLS
                    ));
                }
            }
            if let Some(f) = s.fast {
                // A warp (or a CTA, for a CTA per row) loads its next row while it computes
                // the current one, where the registers that takes leave as many CTAs per SM
                // (measured on the H200 at 65536 x 1024, a warp per row: softmax_fwd_colsum
                // 138 -> 123 us, rmsnorm_bwd 127 -> 116, layernorm_bwd 139 -> 125;
                // row_col_stats, which lost a CTA per SM, 54 -> 70).
                let per_thread = s.thread_cols();
                let t = s.threads as u64;
                // The estimate runs up to a third under ptxas' count (layernorm_bwd at N=384:
                // 90 against 120; with two rows 150, which lost a CTA and measured 519 -> 751
                // us at 576000 x 384), and ptxas spills rather than lose a CTA: a margin.
                let two_regs = form_regs(shape, per_thread, Some(f), 2);
                let margin = rows_ahead_margin(two_regs);
                let one = resident_ctas(device, t, form_regs(shape, per_thread, Some(f), 1));
                let two = resident_ctas(device, t, margin);
                // A thread gets at most 255 registers, and a CTA of more than 256 threads
                // at most `registers / t` each; ptxas spills past either bound (layernorm_bwd
                // at 16384 x 8192, a CTA of 512 per row, 48 bytes; rmsnorm_bwd at 65536 x
                // 1024, 190 estimated, 255 and 16 bytes once its index arithmetic shrank):
                // the same margin under both.
                let per_thread_max = (device.registers_per_sm as u64 / t.max(1)).min(255);
                let fits = margin <= per_thread_max;
                // A heavy row (HEAVY_ROW_ISSUE) may give up CTAs for it, down to 8 warps per SM.
                let heavy = shape.work_per_point as u64 * per_thread >= HEAVY_ROW_ISSUE && two * t >= 256;
                // A lane per row of a reduction-only kernel of one input whose row is under
                // one 16-byte vector (no fewer lanes to take): its next row too. Measured on the
                // H200, bf16 (twenty-fourth session, call 9, against rows-in-flight=1):
                // row_col_stats 51.2 -> 38.6 us at 8388608 x 2, 34.8 -> 28.6 at 4194304 x 4;
                // colmax_rowsum 43.1 -> 28.8, 27.9 -> 22.6; reduce3d 43.4 -> 29.1 at 4096 x 2048
                // x 2. At N = 8 (16 bytes) 34.0 -> 33.6 and 21.5 -> 22.8, so not there; with
                // several lanes a row (N >= 256) a second row lost 15-30% (call 8).
                let lane_bytes = per_thread * shape.fast_bytes.max(1) as u64;
                let short_lane =
                    shape.reduces_only && shape.row_inputs == 1 && s.threads_per_row == 1 && lane_bytes < 16;
                let auto = if shape.row_inputs > 0
                    && (two >= one || heavy || short_lane)
                    && two_regs <= ROWS_AHEAD_MAX_REGS
                    && fits
                {
                    2
                } else {
                    1
                };
                if short_lane && auto == 2 && o.rows_in_flight == 0 && !f.reload {
                    s.notes.0.push(format!(
                        "two rows in flight: a lane per row of a reduction-only kernel loads {lane_bytes} bytes of a row"
                    ));
                }
                let auto = if f.reload { 1 } else { auto };
                // A warp per row whose heavy row would give CTAs up for its next row in
                // registers stages that row through shared memory instead (a ring of two rows,
                // filled by asynchronous copies) and keeps the CTAs of one row in registers,
                // where the ring fits beside the shared partials on those CTAs. Measured on the
                // H200 against the binary before the rule (twenty-third session, untuned,
                // morf-bench, calls 4-5): gelu_bwd_bias 149.1 -> 115.4 us at 65536 x 1024,
                // 415.2 -> 318.5 at 262144 x 768, 63.5 -> 50.2 at 32768 x 768, 135.1 -> 117.0
                // at 65536 x 960; softmax_fwd_colsum 88.9 -> 80.8; tanh_bwd_bias 117.6 ->
                // 110.4; rmsnorm_bwd 329.3 -> 314.2 at 262144 x 768; two_norms_shared_weight
                // 100.2 -> 95.5 at 32768 x 768. One loss: gelu_bwd_bias at 200000 x 896, 364 ->
                // 433 (two CTAs a SM at 124 registers; one CTA, `min-ctas=1`, 335).
                // The launch's shared memory with that ring after its shared partials, as the
                // lowering sizes it.
                let staged = Schedule { staged_rows: 2, notes: Notes::default(), ..s.clone() };
                let ring = staged.staged_bytes(shape);
                let staged_cta = staged.row_fused_shared_bytes(shape);
                if auto == 2
                    && two < one
                    && s.threads_per_row == 32
                    && o.rows_in_flight == 0
                    && o.staged_rows == 0
                    && one * staged_cta <= device.shared_mem_per_sm
                    && staged_cta <= cta_dynamic_room(device, shape, &staged)
                {
                    stage_heavy = true;
                    // Its loads held packed across the row reductions and its body emitted chunk
                    // by chunk, so that the row and the ring's addresses fit the bound of those
                    // CTAs (FastShape::remat_converts, FastShape::chunk_major).
                    if let Some(f) = s.fast.as_mut() {
                        f.remat_converts = true;
                        f.chunk_major = true;
                    }
                    s.notes.0.push(format!(
                        "the next row staged through shared memory (two rows, {ring} bytes a CTA), not held in registers: two rows in registers need ~{two_regs} ({margin} with the margin), {two} CTA(s) per SM instead of {one}"
                    ));
                }
                let auto = if stage_heavy { 1 } else { auto };
                s.rows_in_flight_per_warp = if f.reload { 1 } else { pick(o.rows_in_flight, auto).clamp(1, 2) };
                if f.reload && o.rows_in_flight >= 2 {
                    // Asked for, not given: said (LayerNorm backward at 4096 x 16384 compiled
                    // to the same kernel with and without it, silently, before the twentieth
                    // session).
                    s.notes.0.push(
                        "rows-in-flight not taken: the reload form holds one pass's loads of one row at a time".into(),
                    );
                }
                rows_ahead_note = if shape.row_inputs == 0
                    || o.rows_in_flight > 0
                    || auto == 2
                    || f.reload
                    || stage_heavy
                {
                    None
                } else if two_regs > ROWS_AHEAD_MAX_REGS {
                    Some(format!("one row in flight: two need ~{two_regs} registers, over {ROWS_AHEAD_MAX_REGS}"))
                } else if !fits {
                    Some(format!(
                        "one row in flight: two need ~{two_regs} registers ({margin} with the margin), over the {per_thread_max} a thread of {t} may hold"
                    ))
                } else {
                    Some(format!(
                        "one row in flight: two need ~{two_regs} registers ({margin} with the margin), {two} CTA(s) per SM instead of {one}, and a thread's ~{} instructions a row are under the {HEAVY_ROW_ISSUE} that would pay for that",
                        shape.work_per_point as u64 * per_thread
                    ))
                };
            }
            if let (Some(f), true) = (s.fast, shape.row_inputs > 0) {
                // A CTA per row holds one row (the registers of its columns), so it keeps
                // more of them in flight through shared memory: a ring of row slots filled by
                // asynchronous copies, as many as keep STAGED_BYTES_PER_SM in flight on the
                // CTAs an SM holds. A warp per row stages only when asked (`staged-rows`; its
                // ring sits after the shared partials, if any).
                let row = staged_row_bytes(shape, s.cta_cols()) * s.rows_per_cta as u64;
                let auto = if s.threads_per_row > 32 && o.rows_in_flight == 0 {
                    let per_thread = s.thread_cols();
                    let regs = form_regs(shape, per_thread, Some(f), 1);
                    // Shared accumulators take their room first (and bound the CTAs per SM).
                    let accs = s.shared_accs_bytes(shape);
                    let by_smem = device.shared_mem_per_sm.checked_div(accs).map_or(u64::MAX, |c| c.max(1));
                    let cap = resident_ctas(device, s.threads as u64, regs).min(by_smem);
                    let room = (device.shared_mem_per_sm / cap.max(1))
                        .min(cta_dynamic_room(device, shape, &s))
                        .saturating_sub(accs);
                    // Partials taken into registers for a ring (`ring_over_accs`): as many rows
                    // as the SM's shared memory holds, up to three (LayerNorm backward at 4096 x
                    // 16384 on the H200: two rows 156 us, 72 bytes spilled; three 144, none).
                    let r = if ring_over_accs {
                        (room / row.max(1)).min(3)
                    } else {
                        STAGED_BYTES_PER_SM / (cap * row).max(1)
                    };
                    // The ring's addresses cost registers: not where the estimate is within an
                    // eighth of the CTA's bound. (A quarter until the index arithmetic took
                    // immediates: layernorm_bwd at 16384 x 8192, 110 estimated, spilled with
                    // four rows staged then, and now takes 121 registers of 128 staged and
                    // 128 without; two rows staged measured 287 -> 224 us.)
                    let bound = device.registers_per_sm as u64 / s.threads.max(1) as u64;
                    if r < 2 {
                        staging_note = Some(format!(
                            "no rows staged: a row group's row is {row} bytes, under two of them per CTA on {cap} CTA(s) per SM fit the {STAGED_BYTES_PER_SM} bytes in flight"
                        ));
                        0
                    } else if room / row.max(1) < 2 {
                        staging_note = Some(format!(
                            "no rows staged: two rows of {row} bytes do not fit the {room} bytes of shared memory the {accs} bytes of shared accumulators leave a CTA"
                        ));
                        0
                    } else if regs * 9 / 8 > bound && !ring_over_accs {
                        let how = if regs > bound { "over" } else { "within an eighth of" };
                        staging_note = Some(format!(
                            "no rows staged: ~{regs} registers estimated, {how} the {bound} a thread of {} may hold",
                            s.threads
                        ));
                        0
                    } else {
                        r.min(room / row.max(1)).min(MAX_STAGED_ROWS as u64) as u32
                    }
                } else if stage_heavy {
                    2
                } else {
                    0
                };
                s.staged_rows = match o.staged_rows {
                    0 => auto,
                    1 => 0,
                    // A forced ring never asks for more shared memory than a CTA may have
                    // besides the shared partials and the kernel's static memory.
                    n => {
                        let partials =
                            if s.partials == PartialStore::Shared { smem } else { s.shared_accs_bytes(shape) };
                        let room =
                            device.shared_mem_per_sm.min(cta_dynamic_room(device, shape, &s)).saturating_sub(partials);
                        let fit = (room / row.max(1)) as u32;
                        let taken = n.min(MAX_STAGED_ROWS).min(fit);
                        if taken < n.min(MAX_STAGED_ROWS) {
                            let what = if taken >= 2 { format!("taken as {taken}") } else { "not taken".into() };
                            s.notes.0.push(format!(
                                "staged-rows={n} {what}: a slot of the ring (a row of each row group) is {row} bytes, and {room} bytes of shared memory are left a CTA beside its {partials} bytes of partials and its static memory"
                            ));
                        }
                        taken
                    }
                };
                if s.staged_rows < 2 {
                    s.staged_rows = 0;
                }
                if s.staged_rows > 0 {
                    if s.rows_in_flight_per_warp > 1 && o.rows_in_flight >= 2 {
                        s.notes.0.push(format!(
                            "rows-in-flight not taken: the {} staged rows keep the rows ahead in shared memory instead",
                            s.staged_rows
                        ));
                    }
                    s.rows_in_flight_per_warp = 1;
                }
            }
            // Where nothing is loaded ahead of the row being computed, the report says why.
            if s.staged_rows == 0 && s.rows_in_flight_per_warp == 1 {
                s.notes.0.extend(rows_ahead_note.take());
                s.notes.0.extend(staging_note.take());
            }
            let smem = s.row_fused_shared_bytes(shape);
            // Not capped by the register estimate: measured on the H200 (2026-12-02), a grid of
            // the CTAs it leaves resident lost where ptxas fits more (tanh_bwd_bias at 65536 x
            // 1024, 132 CTAs: 112 -> 135 us; rmsnorm_bwd at 576000 x 384, 396: 403 -> 469).
            let per_sm = (THREADS_PER_SM / s.threads as u64).min(device.shared_mem_per_sm / smem).max(1);
            // A ring forced by `staged-rows` that costs CTAs per SM is said: measured on the
            // H200 at 576000 x 384, LayerNorm backward with 16 lanes a row ran 350 us with two
            // rows staged (two CTAs per SM) and 430 with four (one); RMSNorm f32 640 -> 692.
            if o.staged_rows >= 2 && s.staged_rows > 0 {
                let ring = s.staged_bytes(shape);
                let without = (THREADS_PER_SM / s.threads as u64)
                    .min(device.shared_mem_per_sm / smem.saturating_sub(ring).max(1))
                    .max(1);
                if per_sm < without {
                    s.notes.0.push(format!(
                        "staged-rows={}: the ring's {ring} bytes of shared memory leave room for {per_sm} CTA(s) of {} threads per SM, against {without} without it",
                        s.staged_rows, s.threads
                    ));
                }
            }
            s.max_grid = sms * per_sm;
            // Packed rows taken, as (rows in flight, rows a thread packs).
            let packed = if o.packed_rows >= 2 {
                // Asked for, packed rows replace the heuristic's second row in flight (they
                // put more bytes in flight with one load).
                let rif = if o.rows_in_flight == 2 { s.rows_in_flight_per_warp } else { 1 };
                match packed_rows_for(shape.fast_bytes, &s, rif, o.packed_rows) {
                    Ok(r) => Some((rif, r)),
                    Err(why) => {
                        s.notes.0.push(format!("packed-rows not taken: {why}"));
                        None
                    }
                }
            } else if o.packed_rows == 0 {
                // A row of a few bytes a thread is a small access each. Where the kernel also
                // writes rows of that size (dx), packed rows take their place by default: on
                // the H200 (twenty-seventh session, 8388608 rows) RMSNorm backward ran 59.8 ->
                // 44.7 us at N = 2 and 77.8 -> 70.7 at N = 4, LayerNorm backward 68.3 -> 55.2,
                // softmax_bwd_colsum 68.2 -> 60.5. A kernel that only reduces its rows and
                // took its second row in flight keeps it: row_col_stats 37.7 against 38.4
                // packed.
                // A thread's row bytes (of the widest row input).
                let row = s.fast.map_or(0, |f| f.cols * shape.fast_bytes.clamp(1, 8) as u64);
                // The 16-byte group of a reduction-only kernel was measured where it streams
                // its rows; one whose input a later kernel reads again (not streamed) packs
                // the half group: the gpu-unfused LayerNorm backward at 8388608 x 3 ran 526.1
                // us with 8 rows against 501.9 with 4 (thirty-eighth session, H100).
                let default = default_packed_rows(row, shape.reduces_only && shape.streams_inputs) as u32;
                match (packed_rows_for(shape.fast_bytes, &s, 1, default), s.fast) {
                    (Ok(r), Some(f)) => {
                        // A row that is not one aligned access (a thread's row of N = 3
                        // bf16 is three 2-byte loads) is packed in a streaming kernel too.
                        let pieces = vector_pieces(f.cols as usize, shape.fast_bytes, f.cols as usize).len();
                        // A reduction-only kernel that took its second row in flight keeps it
                        // (one of several row inputs takes no second row: it packs).
                        let second = shape.reduces_only && s.rows_in_flight_per_warp >= 2;
                        let by_default = (!second || pieces > 1) && o.rows_in_flight != 2;
                        // The group's 16-byte accesses of the widest row input.
                        let group = r as u64 * row;
                        let elems = r as usize * f.cols as usize;
                        let with = match vector_pieces(elems, shape.fast_bytes, elems).len() {
                            1 => "with one 16-byte access".to_string(),
                            k => format!("with {k} accesses ({group} bytes)"),
                        };
                        s.notes.0.push(if by_default {
                            format!("packed rows: a thread's row is {row} bytes a row input, so it loads and stores {r} rows {with} (packed-rows=1 keeps one row a thread)")
                        } else {
                            format!("a thread's row is {row} bytes a row input; packed-rows={r} (a tuner knob) would load {r} rows {with}")
                        });
                        by_default.then_some((1, r))
                    }
                    _ => None,
                }
            } else {
                None
            };
            if let Some((rif, r)) = packed {
                s.rows_in_flight_per_warp = rif;
                if let Some(f) = s.fast.as_mut() {
                    f.packed_rows = r;
                }
                // Packed rows read each row input once, in one pass: their loads stream
                // (evict-first), which leaves the L2's other lines in place. Measured at
                // 8388608 x 2 (thirtieth session): RMSNorm backward 57.0 -> 56.0 us and
                // LayerNorm 70.2 -> 69.1 on an H100 (two rounds), 44.2 -> 43.7 and 54.0 ->
                // 53.5 on the H200; softmax_bwd_colsum unchanged (78.3, 78.4).
                if o.stream_loads.is_none() && !s.stream_loads {
                    s.stream_loads = true;
                    s.notes.0.push(
                        "packed rows read each row once: their loads stream (evict-first; stream-loads=false keeps them cached)"
                            .into(),
                    );
                }
                // Asked, where a group is more than one 16-byte access of the widest row input
                // (a group of 16 bytes or less is the warp's run already); by default where it
                // is at least TRANSPOSE_MIN_PIECES pieces.
                let b = shape.fast_bytes.clamp(1, 8);
                let elems = s.fast.map_or(0, |f| r as u64 * f.cols);
                let group = elems * b as u64;
                let pieces = vector_pieces(elems as usize, b, elems as usize).len();
                let take = match o.warp_transpose {
                    Some(t) => t && group > 16,
                    None => pieces >= TRANSPOSE_MIN_PIECES,
                };
                if take && s.threads.is_multiple_of(32) {
                    if o.warp_transpose.is_none() {
                        s.notes.0.push(format!(
                            "warp-transposed packed rows: a thread's group is {pieces} pieces ({group} bytes), so its warp loads and stores the 32 groups as one span through shared memory (warp-transpose=false keeps each thread's own pieces)"
                        ));
                    }
                    if let Some(f) = s.fast.as_mut() {
                        f.warp_transpose = true;
                    }
                    // Its shared memory may leave fewer CTAs an SM.
                    let smem = s.row_fused_shared_bytes(shape);
                    let per_sm = (THREADS_PER_SM / s.threads as u64).min(device.shared_mem_per_sm / smem).max(1);
                    s.max_grid = s.max_grid.min(sms * per_sm);
                }
            }
            if o.warp_transpose == Some(true) && !s.fast.is_some_and(|f| f.warp_transpose) {
                s.notes.0.push("warp-transpose not taken: no packed rows of more than 16 bytes (a thread per short row that packs two or more)".into());
            }
            // A short odd row left on lanes of small vectors because its group of packed rows
            // would be over THREAD_ROW_MAX_GROUP: a known gap (45-50% of the floor), said.
            if let Some(f) = s.fast.filter(|f| s.threads_per_row > 1 && (f.vector as u64) < f.cols) {
                let lifted = Overrides { warp_transpose: Some(true), ..o.clone() };
                if !thread_row(o, shape, f.cols, f.vector) && thread_row(&lifted, shape, f.cols, f.vector) {
                    let row = f.cols * shape.fast_bytes.clamp(1, 8) as u64;
                    let group = default_packed_rows(row, false) * row;
                    s.notes.0.push(format!(
                        "{} lanes a row of {} bytes, {}-byte accesses a lane: a thread per row would pack {group}-byte groups, over the {THREAD_ROW_MAX_GROUP} bytes a thread's own pieces measured well up to (8 rows of N = 7 bf16, 112 bytes: 35% of the floor against its lanes' 47%, H100), and of too few pieces for its warp to load them as one span by default; warp-transpose=true (a tuner knob) does",
                        s.threads_per_row,
                        row,
                        f.vector as u64 * shape.fast_bytes.clamp(1, 8) as u64
                    ));
                }
            }
            // The heuristic's cluster is sized as one CTA would be for its share (here CTAs of
            // 512, one a SM), and each row waits at the cluster's exchange with little else on
            // the SM to run: a known gap, said with what the tuner reaches (docs/perf.md,
            // twenty-second session: 6.6-14.2% less time at N = 32768 in morf-bench). Rows
            // without a row reduction exchange nothing.
            if o.cluster == 0 && s.cluster > 1 && shape.row_reductions > 0 {
                s.notes.0.push(format!(
                    "the cluster's CTAs of {} threads wait at each row's exchange; the tuner's cluster recipes (CTAs of 256 holding their share of the row, two or three a SM: docs/tuning.md) measured 7-14% faster at N = 32768 on the H200",
                    s.threads
                ));
            }
        }
        Mapping::FinalReduction => {
            let warps = if o.threads > 0 {
                s.threads / 32
            } else {
                match shape.rows {
                    Some(n) if n >= 1024 => 32,
                    Some(n) if n >= 256 => 16,
                    Some(_) => 8,
                    None => 16,
                }
            };
            s.threads = warps * 32;
            s.threads_per_row = match o.threads_per_row {
                w @ (8 | 16 | 32) => w,
                _ => final_tile_cols(shape.cols, sms),
            };
            s.rows_per_cta = s.threads / s.threads_per_row;
            s.max_grid = full_wave(s.threads);
        }
        Mapping::SplitPartial => {
            s.split_rows = if o.split_rows > 0 { o.split_rows as u64 } else { split_rows(shape, s.threads, 1, sms) };
            s.max_grid = full_wave(s.threads);
        }
        Mapping::Sequential => {
            s.threads = 32;
            s.max_grid = 1;
        }
    }
    if o.grid > 0 && mapping != Mapping::Sequential {
        s.max_grid = o.grid;
    }
    // A streamed tensor loaded twice: streamed only where the second pass reads registers or
    // the staging ring, not global memory.
    let second_pass_from_global = !s.fast.is_some_and(|f| !f.reload || s.staged_rows > 0);
    if o.stream_loads.is_none() && s.stream_loads && shape.rereads_inputs && second_pass_from_global {
        s.stream_loads = false;
        s.notes.0.push(
            "stream-loads not taken: a second pass over the row would load again from global memory what the first marked evict-first"
                .into(),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_fused_schedules_of_the_benchmark_shapes() {
        let d = Device::h200();
        let o = Overrides::default();
        let shape = |n: u64, partials: u32| NestShape {
            rows: Some(576000),
            cols: Some(n),
            elem_bytes: 2,
            partials,
            shared_ok: true,
            fast_bytes: 0,
            ..NestShape::default()
        };
        let s = choose_schedule(Mapping::RowFused, &shape(384, 1), &d, &o);
        assert_eq!((s.threads_per_row, s.rows_per_cta, s.partials), (32, 8, PartialStore::Shared));
        assert_eq!(s.vector, 8);
        let s = choose_schedule(Mapping::RowFused, &shape(8192, 1), &d, &o);
        assert_eq!((s.threads_per_row, s.rows_per_cta, s.partials), (256, 1, PartialStore::Global));
        let s = choose_schedule(Mapping::RowReduction, &shape(100, 0), &d, &o);
        assert_eq!(s.threads_per_row, 32);
        let s = choose_schedule(Mapping::RowFused, &shape(384, 1), &d, &Overrides { grid: 3, ..o });
        assert_eq!(s.max_grid, 3);
    }

    #[test]
    fn flat_warp_threads_are_whole_warps_and_multiples_of_n() {
        // lcm(N, 32) times the multiples of it under N x max(1, 256 div N), at least one.
        assert_eq!(flat_warp_threads(100), Some(800));
        assert_eq!(flat_warp_threads(200), Some(800));
        assert_eq!(flat_warp_threads(7), Some(224));
        assert_eq!(flat_warp_threads(48), Some(192));
        assert_eq!(flat_warp_threads(64), Some(256));
        assert_eq!(flat_warp_threads(384), Some(384));
        assert_eq!(flat_warp_threads(1), Some(256));
        // lcm(33, 32) = 1056 does not fit a CTA.
        assert_eq!(flat_warp_threads(33), None);
        for n in 1..=1024 {
            if let Some(t) = flat_warp_threads(n) {
                assert!(t % 32 == 0 && t % n == 0 && t <= 1024, "N = {n}: {t}");
            }
        }
    }

    #[test]
    fn flush_lanes_only_for_a_thread_per_short_row() {
        // 256 slots (a thread per row): up to a warp, and no more than threads / N.
        assert_eq!(flush_lanes(256, 256, Some(2)), 32);
        assert_eq!(flush_lanes(256, 256, Some(16)), 16);
        assert_eq!(flush_lanes(256, 256, Some(24)), 8);
        assert_eq!(flush_lanes(512, 512, Some(1)), 32);
        // As many columns as threads, or more: one thread a column.
        assert_eq!(flush_lanes(256, 256, Some(200)), 1);
        assert_eq!(flush_lanes(256, 256, Some(1024)), 1);
        // Fewer slots (several lanes a row, a warp per row), or N unknown: the serial form.
        assert_eq!(flush_lanes(256, 128, Some(16)), 1);
        assert_eq!(flush_lanes(256, 8, Some(2)), 1);
        assert_eq!(flush_lanes(256, 256, None), 1);
        assert_eq!(flush_lanes(256, 256, Some(0)), 1);
    }

    /// The row kernel of a backward norm over 8388608 rows of `cols` elements of `bytes`: two
    /// row inputs, a hoisted vector, a row reduction and a column partial.
    fn short_rows(cols: u64, bytes: u32) -> NestShape {
        NestShape {
            rows: Some(8388608),
            cols: Some(cols),
            elem_bytes: bytes,
            partials: 1,
            shared_ok: true,
            fast_bytes: bytes,
            row_inputs: 2,
            hoisted: 1,
            row_reductions: 1,
            ..NestShape::default()
        }
    }

    #[test]
    fn packed_rows_where_a_row_is_one_short_vector() {
        let d = Device::h200();
        let shape = short_rows;
        let packed = |cols: u64, bytes: u32, asked: u32| {
            let o = Overrides { packed_rows: asked, ..Overrides::default() };
            let s = choose_schedule(Mapping::RowFused, &shape(cols, bytes), &d, &o);
            (s.fast.map_or(0, |f| f.packed_rows), s.rows_in_flight_per_warp, s.notes.0)
        };
        // By default where the kernel writes its rows (it does not stream them), not where it
        // only reduces them; `packed-rows=1` keeps one row a thread; asked, as many rows as
        // asked, up to PACKED_MAX_BYTES a row input.
        assert_eq!(packed(2, 2, 0).0, 4);
        assert!(packed(2, 2, 0).2.iter().any(|n| n.starts_with("packed rows: ")));
        // A reduction-only kernel of one row input takes its second row in flight instead;
        // one of two row inputs takes no second row, so it packs.
        let reduce_only = NestShape { streams_inputs: true, reduces_only: true, row_inputs: 1, ..shape(2, 2) };
        let s = choose_schedule(Mapping::RowFused, &reduce_only, &d, &Overrides::default());
        assert_eq!((s.fast.map_or(0, |f| f.packed_rows), s.rows_in_flight_per_warp), (0, 2));
        assert!(s.notes.0.iter().any(|n| n.contains("packed-rows=4 (a tuner knob)")), "{:?}", s.notes.0);
        let two_inputs = NestShape { reduces_only: true, ..shape(2, 2) };
        let s = choose_schedule(Mapping::RowFused, &two_inputs, &d, &Overrides::default());
        assert_eq!((s.fast.map_or(0, |f| f.packed_rows), s.rows_in_flight_per_warp), (4, 1));
        assert_eq!(packed(2, 2, 1).0, 0);
        assert_eq!(packed(2, 2, 8).0, 8);
        assert_eq!(packed(2, 2, 2).0, 2);
        assert_eq!(packed(2, 4, 8).0, 8);
        assert_eq!(packed(1, 2, 8).0, 8);
        assert_eq!(packed(4, 2, 8).0, 8);
        // One row in flight with them.
        assert_eq!(packed(2, 2, 4).1, 1);
        // Rows of 16 bytes are packed only when asked (two rows: 32 bytes in two pieces); a
        // row of several threads is not, and the note says so.
        assert_eq!(packed(8, 2, 0).0, 0);
        assert_eq!(packed(8, 2, 4).0, 4);
        let (r, _, notes) = packed(64, 4, 2);
        assert_eq!(r, 0);
        assert!(notes.iter().any(|n| n.starts_with("packed-rows not taken: a row")), "{notes:?}");
        let (r, _, notes) = packed(1024, 2, 4);
        assert_eq!(r, 0);
        assert!(notes.iter().any(|n| n.contains("packed rows need a thread per row")), "{notes:?}");
    }

    #[test]
    fn vector_pieces_of_aligned_accesses() {
        // One access where the count is a vector of at most 16 bytes.
        assert_eq!(vector_pieces(8, 2, 8), vec![(0, 8)]);
        assert_eq!(vector_pieces(4, 4, 4), vec![(0, 4)]);
        assert_eq!(vector_pieces(1, 4, 1), vec![(0, 1)]);
        // 8 rows of N = 3 bf16 at a multiple of 24 elements (48 bytes): three of 16 bytes.
        assert_eq!(vector_pieces(24, 2, 24), vec![(0, 8), (8, 8), (16, 8)]);
        // One row of N = 3 bf16 at a multiple of 3: scalars; N = 6 at a multiple of 6: pairs;
        // N = 12 at a multiple of 12: four-element vectors.
        assert_eq!(vector_pieces(3, 2, 3), vec![(0, 1), (1, 1), (2, 1)]);
        assert_eq!(vector_pieces(6, 2, 6), vec![(0, 2), (2, 2), (4, 2)]);
        assert_eq!(vector_pieces(12, 2, 12), vec![(0, 4), (4, 4), (8, 4)]);
        // 8 f32 of a group's scalars: two of 16 bytes; 12 f32 at a multiple of 4: three.
        assert_eq!(vector_pieces(8, 4, 8), vec![(0, 4), (4, 4)]);
        assert_eq!(vector_pieces(12, 4, 4), vec![(0, 4), (4, 4), (8, 4)]);
        // A count that is not a multiple of the widest piece ends in narrower ones.
        assert_eq!(vector_pieces(7, 2, 8), vec![(0, 4), (4, 2), (6, 1)]);
        // Every piece is a power of two at a multiple of its length, and they tile the access.
        for count in 1..40usize {
            for bytes in [2u32, 4, 8] {
                for align in 1..20usize {
                    let p = vector_pieces(count, bytes, align);
                    let mut next = 0;
                    for &(e, w) in &p {
                        assert_eq!(e, next);
                        // At `k * align + e` for any k: a multiple of `w`.
                        assert!(w.is_power_of_two() && w as u32 * bytes <= 16);
                        assert!(e.is_multiple_of(w) && align.is_multiple_of(w));
                        next = e + w;
                    }
                    assert_eq!(next, count);
                }
            }
        }
    }

    #[test]
    fn a_thread_per_odd_short_row_with_multi_vector_packed_rows() {
        let d = Device::h200();
        let shape = short_rows;
        let form = |cols: u64, bytes: u32| {
            let s = choose_schedule(Mapping::RowFused, &shape(cols, bytes), &d, &Overrides::default());
            let f = s.fast.expect("fast form");
            (s.threads_per_row, f.vector, f.packed_rows)
        };
        // bf16: N = 3, 5, 6, 10, 12 take a thread, whole rows, by default in groups of 24-48
        // bytes (4 rows of N = 3, 4 of 5, 2 of 6, 2 of 10, 2 of 12); N = 7 and 14 (groups of 56
        // bytes) and 20 (80) too, their groups of 5-7 pieces warp-transposed.
        assert_eq!(form(3, 2), (1, 3, 4));
        assert_eq!(form(5, 2), (1, 5, 4));
        assert_eq!(form(6, 2), (1, 6, 2));
        assert_eq!(form(10, 2), (1, 10, 2));
        assert_eq!(form(12, 2), (1, 12, 2));
        assert_eq!(form(7, 2), (1, 7, 4));
        assert_eq!(form(14, 2), (1, 14, 2));
        assert_eq!(form(20, 2), (1, 20, 2));
        // Powers of two keep their forms: N = 2 packs 4 rows of one vector; N = 8, 16 and 24
        // already load 16 bytes a lane.
        assert_eq!(form(2, 2), (1, 2, 4));
        assert_eq!(form(8, 2), (1, 8, 0));
        assert_eq!(form(24, 2), (4, 8, 0));
        // f32: N = 3, 5 and 6 (12, 20 and 24 bytes) take a thread, 2 rows a group.
        assert_eq!(form(3, 4), (1, 3, 2));
        assert_eq!(form(5, 4), (1, 5, 2));
        assert_eq!(form(6, 4), (1, 6, 2));
        // f32 N = 7 (28 bytes): 2 rows, seven 8-byte pieces, transposed.
        assert_eq!(form(7, 4), (1, 7, 2));
        // The default group: the fewest rows of a multiple of 16 bytes, halved for odd rows.
        assert_eq!(
            [2, 4, 8, 16, 6, 10, 12, 14, 24].map(|r| default_packed_rows(r, false)),
            [8, 4, 2, 1, 4, 4, 2, 4, 2]
        );
        // A reduction-only kernel keeps the 16-byte group up to 48 bytes.
        assert_eq!([2, 6, 10, 12, 24].map(|r| default_packed_rows(r, true)), [8, 8, 4, 4, 2]);
        // The `vector` or `threads-per-row` option keeps the lanes.
        let o = Overrides { threads_per_row: 4, ..Overrides::default() };
        let s = choose_schedule(Mapping::RowFused, &shape(3, 2), &d, &o);
        assert_eq!((s.threads_per_row, s.fast.map(|f| f.vector)), (4, Some(1)));
        // A reduction-only kernel packs an odd row too (one row would be three 2-byte loads).
        let reduce_only = NestShape { streams_inputs: true, reduces_only: true, ..shape(3, 2) };
        let s = choose_schedule(Mapping::RowFused, &reduce_only, &d, &Overrides::default());
        assert_eq!(s.fast.map(|f| f.packed_rows), Some(8));
        // Asked: as many rows as asked, up to PACKED_MAX_BYTES a row input (16 rows of 6
        // bytes would be 96, but the option takes at most 8).
        for (asked, want) in [(2, 2), (8, 8)] {
            let o = Overrides { packed_rows: asked, ..Overrides::default() };
            let s = choose_schedule(Mapping::RowFused, &shape(3, 2), &d, &o);
            assert_eq!(s.fast.map(|f| f.packed_rows), Some(want));
        }
        let o = Overrides { packed_rows: 8, ..Overrides::default() };
        let s = choose_schedule(Mapping::RowFused, &shape(12, 2), &d, &o);
        assert_eq!(s.fast.map(|f| f.packed_rows), Some(4));
    }

    #[test]
    fn warp_transposed_packed_rows_where_asked_and_a_group_is_over_16_bytes() {
        let d = Device::h200();
        let form = |cols: u64, bytes: u32, wt: Option<bool>, packed: u32| {
            let o = Overrides { warp_transpose: wt, packed_rows: packed, ..Overrides::default() };
            let s = choose_schedule(Mapping::RowFused, &short_rows(cols, bytes), &d, &o);
            let f = s.fast.expect("fast form");
            (s.threads_per_row, f.packed_rows, f.warp_transpose, s.row_fused_shared_bytes(&short_rows(cols, bytes)), s)
        };
        // By default where a group is at least TRANSPOSE_MIN_PIECES pieces: 4 rows of N = 7
        // (seven 8-byte pieces), 4 of N = 5 (five), 2 of N = 14 and 20; not 4 rows of N = 3
        // (three) or 2 of N = 12 (three 16-byte pieces).
        for (cols, rows, wt) in
            [(7, 4, true), (5, 4, true), (14, 2, true), (20, 2, true), (3, 4, false), (12, 2, false)]
        {
            let (tpr, r, t, _, s) = form(cols, 2, None, 0);
            assert_eq!((tpr, r, t), (1, rows, wt), "N = {cols}");
            assert_eq!(s.notes.0.iter().any(|n| n.starts_with("warp-transposed packed rows")), wt, "{:?}", s.notes.0);
        }
        // Refused: never; N = 7 then keeps its lanes.
        assert!(!form(5, 2, Some(false), 0).2);
        assert_eq!(form(7, 2, Some(false), 0).0, 8, "N = 7 keeps its lanes");
        assert!(transposed_by_default(28, 2) && transposed_by_default(20, 2) && !transposed_by_default(12, 2));
        // Asked: N = 3 (4 rows, 24 bytes), and N = 7 and 14 (56 bytes) and 20 (80) take a
        // thread, their default groups transposed.
        for (cols, rows) in [(3, 4), (7, 4), (14, 2), (20, 2)] {
            let (tpr, r, wt, _, _) = form(cols, 2, Some(true), 0);
            assert_eq!((tpr, r, wt), (1, rows, true), "N = {cols}");
        }
        // Its shared memory: a warp's 32 groups a warp, after the shared partials (a CTA of 256
        // threads, 4 rows of 14 bytes: 14336 bytes; partials 256 x 7 x 4).
        let (.., bytes, s) = form(7, 2, Some(true), 0);
        assert_eq!(bytes, 256 * 7 * 4 + 14336);
        assert_eq!(s.transpose_shared_bytes(&short_rows(7, 2)), transpose_bytes(256, 56));
        // A group of 16 bytes is the warp's run already: 4 rows of N = 2 are not transposed,
        // 8 rows are; a row of several vectors has no packed rows to transpose.
        let (_, r, wt, _, s) = form(2, 2, Some(true), 0);
        assert_eq!((r, wt), (4, false));
        assert!(s.notes.0.iter().any(|n| n.starts_with("warp-transpose not taken")), "{:?}", s.notes.0);
        assert!(form(2, 2, Some(true), 8).2);
        let (tpr, r, wt, _, s) = form(1024, 2, Some(true), 0);
        assert_eq!((tpr > 1, r, wt), (true, 0, false));
        assert!(s.notes.0.iter().any(|n| n.starts_with("warp-transpose not taken")), "{:?}", s.notes.0);
    }

    #[test]
    fn rows_in_flight_when_the_registers_keep_the_occupancy() {
        let d = Device::h200();
        let o = Overrides::default();
        let shape_n = |cols: u64, row_inputs: u32, hoisted: u32, partials: u32| NestShape {
            rows: Some(65536),
            cols: Some(cols),
            elem_bytes: 2,
            partials,
            shared_ok: true,
            fast_bytes: 2,
            row_inputs,
            hoisted,
            row_reductions: 1,
            work_per_point: 0,
            streams_inputs: false,
            reduces_only: false,
            rereads_inputs: false,
        };
        let shape = |row_inputs: u32, hoisted: u32, partials: u32| shape_n(1024, row_inputs, hoisted, partials);
        let rif = |sh: &NestShape, o: &Overrides| choose_schedule(Mapping::RowFused, sh, &d, o).rows_in_flight_per_warp;
        // rmsnorm_bwd (x, dy; w; dw): 158 -> 190 registers, one CTA of 256 per SM either way,
        // but 190 is within the margin of a thread's 255 (ptxas spilled): one row.
        assert_eq!(row_regs(&shape(2, 1, 1), 32, 1), 158);
        assert_eq!(row_regs(&shape(2, 1, 1), 32, 2), 190);
        assert_eq!(rif(&shape(2, 1, 1), &o), 1);
        // layernorm_bwd (x, dy; w; dw, db) at N = 768: 24 columns a thread, 150 -> 174
        // registers, one CTA per SM either way and under the margin: two rows.
        assert_eq!(row_regs(&shape_n(768, 2, 1, 2), 24, 1), 150);
        assert_eq!(row_regs(&shape_n(768, 2, 1, 2), 24, 2), 174);
        assert_eq!(rif(&shape_n(768, 2, 1, 2), &o), 2);
        // row_col_stats (x; two column partials): 126 -> 142 registers loses a CTA per SM.
        assert_eq!(rif(&shape(1, 0, 2), &o), 1);
        // A heavy row (tanh_bwd_bias: x, dy; one column partial; ~31 instructions a point)
        // would give up the second CTA for its next row in registers: it stages that row
        // through shared memory instead (a ring of two), its loads packed and its body chunk
        // by chunk; asked for, two rows in registers. A light one (18, row_col_stats) does
        // neither.
        let heavy = |work: u32| NestShape { work_per_point: work, row_reductions: 0, ..shape(2, 0, 1) };
        let staged = choose_schedule(Mapping::RowFused, &heavy(31), &d, &o);
        assert_eq!((staged.rows_in_flight_per_warp, staged.staged_rows), (1, 2));
        let f = staged.fast.expect("register-resident");
        assert!(f.remat_converts && f.chunk_major);
        assert!(
            staged.notes.0.iter().any(|n| n.contains("next row staged through shared memory")),
            "{:?}",
            staged.notes
        );
        assert_eq!(rif(&heavy(31), &Overrides { rows_in_flight: 2, ..o.clone() }), 2);
        let light = choose_schedule(Mapping::RowFused, &heavy(HEAVY_ROW_ISSUE as u32 / 32 - 1), &d, &o);
        assert_eq!((light.staged_rows, light.fast.map(|f| f.remat_converts)), (0, Some(false)));
        assert_eq!(rif(&heavy(HEAVY_ROW_ISSUE as u32 / 32 - 1), &o), 1);
        assert_eq!(rif(&NestShape { work_per_point: 18, ..shape(1, 0, 2) }, &o), 1);
        // Nothing to load ahead, and the override either way.
        assert_eq!(rif(&shape(0, 1, 1), &o), 1);
        assert_eq!(rif(&shape(1, 0, 2), &Overrides { rows_in_flight: 2, ..o.clone() }), 2);
        assert_eq!(rif(&shape(2, 1, 1), &Overrides { rows_in_flight: 1, ..o.clone() }), 1);
        assert_eq!(resident_ctas(&d, 256, 126), 2);
        assert_eq!(resident_ctas(&d, 256, 142), 1);
    }

    #[test]
    fn idle_lanes_of_a_warp_per_row() {
        // bf16 N = 384: 48 vectors of 8, two chunks of 32 lanes with 16 idle; 16 lanes: 3 full.
        let n = idle_lanes_note(384, 8, 2).expect("idle half chunk");
        assert!(n.contains("16 of its 2 x 32") && n.contains("16 lanes a row take 3 chunks with 0% idle"), "{n}");
        // N = 320: 16 lanes leave 17% idle against 37% for the warp.
        assert!(idle_lanes_note(320, 8, 2).expect("idle").contains("3 chunks with 17% idle"));
        // Every lane busy (N = 1024), few idle (N = 1000: 3 of 128), or no narrower group
        // within 32 columns a lane (N = 640: 16 lanes would take 5 chunks of 8).
        assert_eq!(idle_lanes_note(1024, 8, 4), None);
        assert_eq!(idle_lanes_note(1000, 8, 4), None);
        assert_eq!(idle_lanes_note(640, 8, 3), None);
    }

    #[test]
    fn planned_ctas_of_cta_rows() {
        let d = Device::h200();
        let o = Overrides::default();
        let shape = |cols: u64, bytes: u32, row_inputs: u32, hoisted: u32, partials: u32| NestShape {
            rows: Some(16384),
            cols: Some(cols),
            elem_bytes: bytes,
            partials,
            shared_ok: true,
            fast_bytes: bytes,
            row_inputs,
            hoisted,
            row_reductions: 1,
            work_per_point: 0,
            streams_inputs: false,
            reduces_only: false,
            rereads_inputs: false,
        };
        let planned =
            |sh: &NestShape| planned_ctas_per_sm(&d, sh, &choose_schedule(Mapping::RowFused, sh, &d, &o), false);
        // colmax_rowsum at N = 8192 (x; one partial): 256 threads, 94 estimated, two CTAs.
        assert_eq!(planned(&shape(8192, 2, 1, 0, 1)), Some(2));
        // layernorm_bwd_f32 at N = 3000 (x, dy; w; dw, db): 192 threads, 110 estimated; three
        // cap at 113, within a quarter of it: the plan takes three (spill relief lowers it if
        // the assembler spills there), the margin two.
        assert_eq!(resident_ctas(&d, 192, 110), 3);
        let sh = shape(3000, 4, 2, 1, 2);
        assert_eq!(planned(&sh), Some(3));
        let s = choose_schedule(Mapping::RowFused, &sh, &d, &o);
        assert_eq!(planned_ctas_per_sm_with(&d, &sh, &s, false, true), Some(2));
        // A warp per row with one row in flight is not planned (a heavy row's, staged, neither);
        // with two (asked for; a heavy row: x, dy; one partial; 31 instructions a point), the
        // one CTA the heuristic counted.
        assert_eq!(planned(&shape(1024, 2, 1, 0, 1)), None);
        let heavy = NestShape { work_per_point: 31, row_reductions: 0, ..shape(1024, 2, 2, 0, 1) };
        assert_eq!(planned(&heavy), None);
        let two = Overrides { rows_in_flight: 2, ..o.clone() };
        let s2 = choose_schedule(Mapping::RowFused, &heavy, &d, &two);
        assert_eq!(s2.rows_in_flight_per_warp, 2);
        assert_eq!(planned_ctas_per_sm(&d, &heavy, &s2, false), Some(1));
    }

    #[test]
    fn reload_and_shared_accumulators_for_long_rows() {
        let d = Device::h200();
        let o = Overrides::default();
        // The backward norms in bf16 (x, dy; w; dw, and db for LayerNorm), a CTA per row.
        let norm = |cols: u64, partials: u32| NestShape {
            rows: Some(4096),
            cols: Some(cols),
            elem_bytes: 4,
            partials,
            shared_ok: true,
            fast_bytes: 2,
            row_inputs: 2,
            hoisted: 1,
            row_reductions: 1,
            work_per_point: 0,
            streams_inputs: false,
            reduces_only: false,
            rereads_inputs: false,
        };
        let form = |sh: &NestShape, o: &Overrides| {
            let s = choose_schedule(Mapping::RowFused, sh, &d, o);
            (s.threads, s.fast.map(|f| (f.chunks, f.reload, f.shared_accs)), s.staged_rows, s.rows_in_flight_per_warp)
        };
        // RMSNorm at N = 16384: holding 16 columns a thread of 1024 needs ~94 registers, over
        // 64; reloading 32 columns a thread of 512 needs ~94, within 128 with its margin, and
        // two rows are staged.
        assert_eq!(row_regs(&norm(16384, 1), 16, 1), 94);
        assert_eq!(reload_regs(&norm(16384, 1), 32), 94);
        assert_eq!(form(&norm(16384, 1), &o), (512, Some((4, true, false)), 2, 1));
        // LayerNorm's two partials: ~126 of 128 reloaded (no margin). In shared memory they
        // would take 128 KiB, no room left for two staged rows, so they stay in registers and
        // three rows are staged (a ring over shared accumulators); without a ring
        // (`staged-rows=1`) they accumulate in shared memory.
        assert_eq!(reload_regs(&norm(16384, 2), 32), 126);
        assert_eq!(shared_accs_regs(&norm(16384, 2), 32), 62);
        assert_eq!(shared_accs_bytes(2, 16384), 131072);
        assert_eq!(form(&norm(16384, 2), &o), (512, Some((4, true, false)), 3, 1));
        let s = choose_schedule(Mapping::RowFused, &norm(16384, 2), &d, &o);
        assert_eq!(planned_ctas_per_sm(&d, &norm(16384, 2), &s, true), Some(1));
        let no_ring = Overrides { staged_rows: 1, ..o.clone() };
        assert_eq!(form(&norm(16384, 2), &no_ring), (512, Some((4, true, true)), 0, 1));
        let s = choose_schedule(Mapping::RowFused, &norm(16384, 2), &d, &no_ring);
        assert_eq!(planned_ctas_per_sm(&d, &norm(16384, 2), &s, true), Some(1));
        // Asking for rows in flight keeps the shared accumulators (no ring would be staged).
        let rif = Overrides { rows_in_flight: 2, ..o.clone() };
        assert_eq!(form(&norm(16384, 2), &rif).1, Some((4, true, true)));
        // Where holding fits (N = 8192: 32 columns a thread of 256), the row is held; the
        // options force or forbid the forms.
        assert_eq!(form(&norm(8192, 1), &o).1, Some((4, false, false)));
        assert_eq!(form(&norm(8192, 1), &Overrides { reload: Some(true), ..o.clone() }).1, Some((4, true, false)));
        assert_eq!(form(&norm(8192, 2), &Overrides { shared_accs: Some(true), ..o.clone() }).1, Some((4, true, true)));
        assert_eq!(form(&norm(16384, 1), &Overrides { reload: Some(false), ..o.clone() }).1, None);
        // A CTA per row that holds its row with its partials in shared memory when asked for
        // both: no reload, the accumulators' bytes in its launch, their registers free.
        let held = Overrides { shared_accs: Some(true), reload: Some(false), ..o.clone() };
        assert_eq!(form(&norm(4096, 2), &held).1, Some((2, false, true)));
        let s = choose_schedule(Mapping::RowFused, &norm(4096, 2), &d, &held);
        assert_eq!(s.shared_accs_bytes(&norm(4096, 2)), shared_accs_bytes(2, 4096));
        let per = s.thread_cols();
        assert_eq!(fast_regs(&norm(4096, 2), per, &s), row_regs(&norm(4096, 2), per, 1) - 2 * per);
        // A warp per row (shared partials) holds its row and keeps its accumulators in its
        // shared partial rows when asked: no reload, fewer registers.
        let sh = Overrides { shared_accs: Some(true), ..o.clone() };
        assert_eq!(form(&norm(384, 1), &sh).1, Some((2, false, true)));
        let s = choose_schedule(Mapping::RowFused, &norm(384, 1), &d, &sh);
        assert_eq!(s.partials, PartialStore::Shared);
        assert_eq!(fast_regs(&norm(384, 1), 12, &s), row_regs(&norm(384, 1), 12, s.rows_in_flight_per_warp) - 12);
        assert_eq!(s.shared_accs_bytes(&norm(384, 1)), 0);
        // Two partials at N = 32768 in one CTA are over the shared budget: the looped form
        // stays (`cluster=1`); the heuristic takes a cluster of 2, each CTA a row of 16384.
        let one = Overrides { cluster: 1, ..o.clone() };
        assert_eq!(form(&norm(32768, 2), &one).1, None);
        let s = choose_schedule(Mapping::RowFused, &norm(32768, 2), &d, &o);
        assert_eq!(
            (s.cluster, s.cta_cols(), s.fast.map(|f| (f.cols, f.chunks, f.reload, f.shared_accs))),
            (2, 16384, Some((32768, 4, true, true)))
        );
        // Up to 16384 columns stay in one CTA; a row of 65536 takes 4.
        assert_eq!(choose_schedule(Mapping::RowFused, &norm(16384, 2), &d, &o).cluster, 1);
        assert_eq!(choose_schedule(Mapping::RowFused, &norm(65536, 1), &d, &o).cluster, 4);
        // A row without a row reduction (a bias gradient: x, dy; one column partial) that its
        // CTA cannot hold streams in the reload form at the size `reload=true` takes: 32
        // columns a thread of 512 at N = 16384 (held: 16 of 1024, ~78 registers over 64); at
        // N = 32768 a cluster of 2 CTAs each streams its 16384 columns so (one CTA of 1024,
        // asked with `cluster=1`, is said to be tight); at N = 12288 a CTA of 768 holds it.
        let bias = |cols: u64| NestShape { row_reductions: 0, hoisted: 0, ..norm(cols, 1) };
        assert_eq!(form(&bias(16384), &o), (512, Some((4, true, false)), 2, 1));
        assert_eq!(form(&bias(16384), &o), form(&bias(16384), &Overrides { reload: Some(true), ..o.clone() }));
        let s = choose_schedule(Mapping::RowFused, &bias(32768), &d, &o);
        assert_eq!((s.threads, s.cluster, s.fast.map(|f| (f.chunks, f.reload))), (512, 2, Some((4, true))));
        assert!(!s.notes.0.iter().any(|n| n.contains("exchange")), "nothing to exchange: {:?}", s.notes.0);
        let s = choose_schedule(Mapping::RowFused, &bias(32768), &d, &Overrides { cluster: 1, ..o.clone() });
        assert_eq!((s.threads, s.cluster, s.fast.map(|f| (f.chunks, f.reload))), (1024, 1, Some((4, true))));
        assert!(s.notes.0.iter().any(|n| n.contains("ptxas may spill")), "{:?}", s.notes.0);
        assert!(s.notes.0.iter().any(|n| n.starts_with("row streamed through the registers")), "{:?}", s.notes.0);
        assert_eq!(form(&bias(12288), &o).1.map(|f| f.1), Some(false));
        // Asked not to reload, it keeps the looped form.
        assert_eq!(form(&bias(16384), &Overrides { reload: Some(false), ..o.clone() }).1, None);
    }

    #[test]
    fn fast_row_fused_schedules() {
        let d = Device::h200();
        let o = Overrides::default();
        let shape = |n: u64, bytes: u32, partials: u32| NestShape {
            rows: Some(576000),
            cols: Some(n),
            elem_bytes: 4,
            partials,
            shared_ok: true,
            fast_bytes: bytes,
            ..NestShape::default()
        };
        let fast = |s: &Schedule| s.fast.map(|f| (s.threads, s.threads_per_row, f.vector, f.chunks));
        let s = choose_schedule(Mapping::RowFused, &shape(384, 2, 1), &d, &o);
        assert_eq!(fast(&s), Some((256, 32, 8, 2)));
        assert_eq!(s.partials, PartialStore::Shared);
        assert_eq!(fast(&choose_schedule(Mapping::RowFused, &shape(384, 4, 2), &d, &o)), Some((256, 32, 4, 3)));
        // N = 100 in bf16: 25 vectors of 8 bytes, 8 lanes of four (NARROW_ROW_LANE_BYTES), not a
        // warp of one.
        assert_eq!(fast(&choose_schedule(Mapping::RowFused, &shape(100, 2, 1), &d, &o)), Some((256, 8, 4, 4)));
        // Short rows take a group of lanes (the next power of two of their vectors), several
        // rows a warp: N = 1, one lane per row; N = 64 in bf16, 8 vectors, 8 lanes.
        assert_eq!(fast(&choose_schedule(Mapping::RowFused, &shape(1, 2, 1), &d, &o)), Some((256, 1, 1, 1)));
        let s64 = choose_schedule(Mapping::RowFused, &shape(64, 2, 1), &d, &o);
        assert_eq!((fast(&s64), s64.rows_per_cta), (Some((256, 8, 8, 1)), 32));
        let forced = Overrides { threads_per_row: 16, ..o.clone() };
        assert_eq!(fast(&choose_schedule(Mapping::RowFused, &shape(384, 2, 1), &d, &forced)), Some((256, 16, 8, 3)));
        // A warp per row up to 32 columns per lane; a CTA per row above.
        assert_eq!(fast(&choose_schedule(Mapping::RowFused, &shape(1024, 2, 1), &d, &o)), Some((256, 32, 8, 4)));
        assert_eq!(fast(&choose_schedule(Mapping::RowFused, &shape(2048, 2, 1), &d, &o)), Some((128, 128, 8, 2)));
        assert_eq!(fast(&choose_schedule(Mapping::RowFused, &shape(8192, 2, 2), &d, &o)), Some((512, 512, 8, 2)));
        // Too many columns per thread: the looped path only.
        assert_eq!(fast(&choose_schedule(Mapping::RowFused, &shape(65536, 2, 1), &d, &o)), None);
        let off = Overrides { no_fast: true, ..o.clone() };
        assert_eq!(fast(&choose_schedule(Mapping::RowFused, &shape(384, 2, 1), &d, &off)), None);
        assert_eq!(fast(&choose_schedule(Mapping::RowFused, &shape(384, 0, 1), &d, &o)), None);
    }

    #[test]
    fn split_reduction_schedules() {
        let d = Device::h200();
        let o = Overrides::default();
        let shape =
            |rows: Option<u64>, cols: u64| NestShape { rows, cols: Some(cols), elem_bytes: 4, ..NestShape::default() };
        let s = choose_schedule(Mapping::SplitPartial, &shape(Some(576000), 384), &d, &o);
        assert_eq!((s.split_rows, s.threads), (512, 256));
        assert_eq!(choose_schedule(Mapping::SplitPartial, &shape(Some(7), 100), &d, &o).split_rows, 128);
        assert_eq!(choose_schedule(Mapping::SplitPartial, &shape(None, 100), &d, &o).split_rows, 256);
        let so = Overrides { split_rows: 3, ..o.clone() };
        assert_eq!(choose_schedule(Mapping::SplitPartial, &shape(None, 100), &d, &so).split_rows, 3);
        // 384 columns: tiles of 8 (48 CTAs; 32 would give 12), a warp loads 4 rows at once.
        let f = choose_schedule(Mapping::FinalReduction, &shape(Some(4500), 384), &d, &o);
        assert_eq!((f.threads, f.threads_per_row, f.rows_per_cta), (1024, 8, 128));
        assert_eq!(choose_schedule(Mapping::FinalReduction, &shape(Some(5), 384), &d, &o).threads, 256);
        let t = Overrides { threads: 64, ..o.clone() };
        assert_eq!(choose_schedule(Mapping::FinalReduction, &shape(Some(4500), 384), &d, &t).rows_per_cta, 8);
        let w = Overrides { threads_per_row: 32, ..o.clone() };
        assert_eq!(choose_schedule(Mapping::FinalReduction, &shape(Some(4500), 384), &d, &w).threads_per_row, 32);
        // The widest tile that still gives a CTA per SM.
        assert_eq!(final_tile_cols(Some(8192), 132), 32);
        assert_eq!(final_tile_cols(Some(4096), 132), 16);
        assert_eq!(final_tile_cols(Some(1024), 132), 8);
        assert_eq!(final_tile_cols(None, 132), 32);
        // The vector form's lanes: few columns and many partial rows take narrow segments
        // (more row groups, fewer round trips); many columns and few rows take wider ones.
        assert_eq!(final_vec_lanes(Some(384), Some(528), 256, 4, 4, 924), 4);
        assert_eq!(final_vec_lanes(Some(8192), Some(132), 256, 4, 4, 132), 16);
        assert_eq!(final_vec_lanes(Some(1024), Some(1), 256, 4, 4, 132), 32);
        // Tiles no wider than the CTA: 64 threads of vectors of 4 take at most 16 lanes.
        assert!(final_vec_lanes(Some(1 << 20), Some(2), 64, 4, 4, 1) <= 16);
    }

    #[test]
    fn schedule_attributes_round_trip() {
        let d = Device::h200();
        let o = Overrides::default();
        let mut ctx = Context::new();
        let shape = |n: u64, bytes: u32| NestShape {
            rows: Some(4096),
            cols: Some(n),
            elem_bytes: 2,
            partials: 1,
            shared_ok: true,
            fast_bytes: bytes,
            ..NestShape::default()
        };
        let split = choose_schedule(Mapping::SplitPartial, &shape(384, 0), &d, &o);
        let fin = choose_schedule(Mapping::FinalReduction, &shape(384, 0), &d, &o);
        let a = split.to_attr(&mut ctx, Some(&fin));
        assert_eq!(Schedule::from_attr(&ctx, a), Ok((split, Some(fin))));
        for m in Mapping::ALL.into_iter().filter(|m| *m != Mapping::SplitPartial) {
            let s = choose_schedule(m, &shape(384, 2), &d, &o);
            let a = s.to_attr(&mut ctx, None);
            assert_eq!(Schedule::from_attr(&ctx, a), Ok((s, None)), "{m:?}");
        }
        assert!(choose_schedule(Mapping::RowFused, &shape(384, 2), &d, &o).fast.is_some());
        let bad = ctx.str_attr("row_reduction");
        assert!(Schedule::from_attr(&ctx, bad).unwrap_err().contains("dictionary"));
        assert!(mapping_applies(Mapping::Sequential, Mapping::RowFused));
        assert!(!mapping_applies(Mapping::RowReduction, Mapping::ThreadPerPoint));
    }

    #[test]
    fn streamed_loads_of_pure_reductions() {
        let d = Device::h200();
        let o = Overrides::default();
        // A bf16 row-and-column statistics kernel at 65536 x 1024 (one row input, shared
        // partials): streamed where the nest writes only reductions.
        let stats = |cols: u64, streams: bool, rereads: bool| NestShape {
            rows: Some(65536),
            cols: Some(cols),
            elem_bytes: 4,
            partials: 2,
            shared_ok: true,
            fast_bytes: 2,
            row_inputs: 1,
            hoisted: 0,
            row_reductions: 2,
            work_per_point: 18,
            streams_inputs: streams,
            reduces_only: streams,
            rereads_inputs: rereads,
        };
        let streamed = |sh: &NestShape, m: Mapping, o: &Overrides| choose_schedule(m, sh, &d, o).stream_loads;
        assert!(streamed(&stats(1024, true, false), Mapping::RowFused, &o));
        assert!(!streamed(&stats(1024, false, false), Mapping::RowFused, &o));
        // Loaded twice: a register-resident row holds it (streamed); a looped row (no N) or a
        // reload from global memory would fetch it again (not streamed, and the report says why).
        assert!(streamed(&stats(1024, true, true), Mapping::RowFused, &o));
        let looped = NestShape { cols: None, ..stats(1024, true, true) };
        let s = choose_schedule(Mapping::RowFused, &looped, &d, &o);
        assert!(!s.stream_loads && s.notes.0.iter().any(|n| n.starts_with("stream-loads not taken")));
        let reload = Overrides { reload: Some(true), staged_rows: 1, ..o.clone() };
        assert!(!streamed(&stats(1024, true, true), Mapping::RowFused, &reload));
        // A final reduction's partials are never streamed by the heuristic; the option decides
        // either way.
        assert!(!streamed(&stats(1024, true, false), Mapping::FinalReduction, &o));
        let on = Overrides { stream_loads: Some(true), ..o.clone() };
        let off = Overrides { stream_loads: Some(false), ..o.clone() };
        assert!(streamed(&stats(1024, false, false), Mapping::ThreadPerPoint, &on));
        assert!(streamed(&looped, Mapping::RowFused, &on));
        assert!(!streamed(&stats(1024, true, false), Mapping::RowFused, &off));
        // The schedule attribute carries it: written only when set, 0 or 1 when read.
        let mut ctx = Context::new();
        let s = choose_schedule(Mapping::RowFused, &stats(1024, true, false), &d, &o);
        let a = s.to_attr(&mut ctx, None);
        assert_eq!(Schedule::from_attr(&ctx, a).unwrap().0, s);
        assert!(s.to_string().contains(" stream-loads") && s.summary().contains(" stream_loads"));
        // A short reduction-only row of one input takes fewer lanes (SHORT_ROW_LANE_BYTES):
        // 8 lanes at N = 256 (four vectors, 64 bytes a lane), 16 at N = 384 (three); a row that
        // is written, has two inputs, or whose lanes are asked keeps a warp.
        let lanes = |sh: &NestShape, o: &Overrides| choose_schedule(Mapping::RowFused, sh, &d, o).threads_per_row;
        assert_eq!(lanes(&stats(256, true, false), &o), 8);
        assert_eq!(lanes(&stats(384, true, false), &o), 16);
        assert_eq!(lanes(&stats(1024, true, false), &o), 32);
        assert_eq!(lanes(&stats(256, false, false), &o), 32);
        assert_eq!(lanes(&NestShape { row_inputs: 2, ..stats(256, true, false) }, &o), 32);
        assert_eq!(lanes(&stats(256, true, false), &Overrides { threads_per_row: 32, ..o.clone() }), 32);
        // A lane per row under 16 bytes (N = 2, 4 in bf16) takes two rows in flight; N = 8 and
        // a written row do not.
        let rif = |sh: &NestShape| choose_schedule(Mapping::RowFused, sh, &d, &o).rows_in_flight_per_warp;
        assert_eq!(rif(&stats(2, true, false)), 2);
        assert_eq!(rif(&stats(4, true, false)), 2);
        assert_eq!(rif(&stats(8, true, false)), 1);
        assert_eq!(rif(&stats(2, false, false)), 1);
    }
}
