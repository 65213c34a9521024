//! The CPU simulator: the interpreter semantics of `mgpu.launch`.
//!
//! A launch runs block by block (block ids `0..blocks`, in order). Within a block, all
//! `threads` threads run in lockstep, op by op, each with its own [`Machine`] (its SSA
//! values) and an activity mask:
//!
//! - `mgpu.if` runs its `then` region under the threads whose condition holds and its `else`
//!   region under the others;
//! - `mloop.for` runs while any active thread has iterations left; each thread has its own
//!   bounds and step (so its own trip count), and the body runs under the threads still
//!   iterating;
//! - every other op that is not an `mgpu` op (the `mloop` scalar ops) runs per active thread
//!   through its registered `interpret` hook, so scalar semantics (rounding to the result
//!   type) are the interpreter's own;
//! - `mgpu.barrier` reached with part of the block inactive is an error (CUDA requires
//!   barriers in uniform control flow); in lockstep a barrier reached by all threads needs
//!   no other work; likewise `mgpu.warp_barrier` reached by some but not all lanes of a warp
//!   (a block whose thread count is not a multiple of 32 has a last warp of fewer lanes);
//! - a cooperative kernel's top-level `mgpu.grid_barrier`s split its body into phases: each
//!   phase runs in every block before the next one starts, and a block keeps its threads'
//!   values and its shared memory between phases (what co-resident blocks waiting at the
//!   barrier see); a top-level `mgpu.grid_tail` splits it the same way, and the phases after
//!   it run only in blocks `0 .. min(ctas, grid)`, which take their block index as its rank
//!   (on the GPU the blocks that arrive last go on; the ops after it may not tell which,
//!   which its verifier checks);
//! - `mgpu.work_loop` runs, in each block, iteration `block_id` and then the iterations of
//!   the tickets it takes from the launch's counter; blocks run in order, so block 0 takes
//!   every ticket (one order a GPU may show). After the launch the tickets must number the
//!   loop's iterations, or none (no block ran it): otherwise the GPU's counter would not be
//!   back at 0;
//! - `mgpu.shuffle` reads the value of the same op in the source lane of the warp (lanes are
//!   `thread_id % 32`). A source lane outside the warp, beyond the block, or inactive gives
//!   the reading thread its own value: what `shfl.sync` does for out-of-range lanes, and
//!   what the undefined inactive-lane case does in practice. `idx` takes the lane modulo 32;
//! - `mgpu.warp_reduce` combines the values of the warp's active lanes in lane order (with
//!   `{width = W}`, of each aligned group of W lanes), rounding to the type after each step,
//!   and gives every active lane the result;
//! - shared memory is one array per block for each `mgpu.shared_alloc` op, and one per
//!   element type for `mgpu.dynamic_shared` (the launch's `shared` bytes divided by the
//!   element size). Float shared memory starts as NaN, so a read before any write shows;
//! - global memory is the host buffers themselves (a pointer argument points to the first
//!   element of its buffer, row-major); loads and stores are bounds-checked, vector accesses
//!   alignment-checked, and a violation is a diagnostic naming the op, the thread and the
//!   block;
//! - `mgpu.atomic_rmw` updates its element once per active thread, in thread order (blocks in
//!   block order), each thread reading the element left by the one before: one serialization
//!   of the hardware's unordered updates, so integer-valued float sums are exact and other
//!   float sums agree with a GPU up to the order of the additions. Atomics are global only,
//!   and the race detector below watches shared memory only, so they need no exemption;
//! - shared memory is checked for races ([`crate::races`]): an access of one thread to an
//!   element another thread wrote (or, for a write, read) with no barrier both took part in
//!   between them (a block barrier, a warp barrier of their warp, a cluster arrival, a grid
//!   barrier) is an error naming both threads, since in lockstep it would see a value a GPU
//!   may not show;
//! - `mgpu.copy_async` reads its source when it runs but writes shared memory only when an
//!   `mgpu.copy_async_wait` of the same thread retires its group (the latest moment the
//!   hardware may), so a read of the staged elements before the wait sees the old contents
//!   (NaN in fresh float shared memory) and a missing wait shows as a wrong result. Groups
//!   still in flight when a block ends are dropped.
//! - a kernel launched in clusters (`cluster = C` on its `mgpu.func`) runs a cluster's C
//!   blocks together, all their threads in one lockstep (a barrier, block or cluster, must be
//!   reached by all of them); each block keeps its own shared memory, warps and thread ids.
//!   `mgpu.cluster_store` writes the target block's copy of the shared array at once, and
//!   the cluster barriers, reached by every thread together, need no other work.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use morf_ir::builtin::op_error;
use morf_ir::interp::{Array, InterpResult, Machine, RtValue};
use morf_ir::{BlockId, Context, Diagnostic, OpId, Traits, Type, Value};

use crate::ops::{
    AtomicKind, AtomicRmwOp, BarrierOp, BlockDimOp, BlockIdOp, ClusterArriveOp, ClusterStoreOp, ClusterWaitOp,
    CopyAsyncCommitOp, CopyAsyncOp, CopyAsyncWaitOp, DynamicSharedOp, GridBarrierOp, GridDimOp, GridTailOp, IfOp,
    LaneIdOp, LaunchOp, LoadOp, LoadVecOp, ReduceKind, SharedAllocOp, ShuffleMode, ShuffleOp, StoreOp, StoreVecOp,
    ThreadIdOp, WarpBarrierOp, WarpIdOp, WarpReduceOp, WorkLoopOp,
};
use crate::races::{Race, Races};
use crate::types::{elem_bytes, ptr_parts};

/// Threads per warp.
pub const WARP: usize = 32;

/// The most threads per block.
pub const MAX_THREADS: i64 = 1024;

/// The most threads (blocks x threads per block) of a cooperative launch the simulator runs:
/// it keeps every block's state between grid barriers. An H200 holds 270336 threads at once,
/// so a real cooperative grid is far below it.
pub const MAX_COOPERATIVE_THREADS: u64 = 1 << 22;

/// The SMs the simulator answers `mgpu.resident_blocks` with (an H200's): with the kernel's
/// `min_ctas_per_sm`, the CTAs of one wave on that device.
pub const SIM_SMS: i64 = 132;

/// The most shared memory per block, static and dynamic together, in bytes (227 KiB, as on
/// sm_90).
pub const MAX_SHARED_BYTES: i64 = 227 * 1024;

/// Runs the `mgpu.launch` op `op` with the host values of `host`.
pub fn run_launch(host: &mut Machine, ctx: &Context, op: OpId) -> InterpResult<()> {
    let launch = LaunchOp::dyn_cast(ctx, op).ok_or_else(|| op_error(ctx, op, "is not an 'mgpu.launch'"))?;
    let name = launch.kernel(ctx).ok_or_else(|| op_error(ctx, op, "requires a 'kernel' symbol"))?;
    let f =
        launch.callee(ctx).ok_or_else(|| op_error(ctx, op, format!("'{name}' does not reference an 'mgpu.func'")))?;
    if ctx.operands(op).len() < 3 {
        return Err(op_error(ctx, op, "expects blocks, threads and shared operands"));
    }
    let blocks = host.int(ctx, op, launch.blocks(ctx))?;
    let threads = host.int(ctx, op, launch.threads(ctx))?;
    let shared = host.int(ctx, op, launch.shared(ctx))?;
    if blocks < 0 {
        return Err(op_error(ctx, op, format!("blocks must be non-negative, got {blocks}")));
    }
    let bound = f.max_threads(ctx).unwrap_or(MAX_THREADS).min(MAX_THREADS);
    if threads < 1 || threads > bound {
        return Err(op_error(ctx, op, format!("threads must be in 1..={bound} for '@{name}', got {threads}")));
    }
    if !(0..=MAX_SHARED_BYTES).contains(&shared) {
        return Err(op_error(ctx, op, format!("shared must be in 0..={MAX_SHARED_BYTES} bytes, got {shared}")));
    }
    // A GPU refuses a launch whose static and dynamic shared memory together pass the block's.
    let statics = f.static_shared_bytes(ctx);
    if statics.saturating_add(shared) > MAX_SHARED_BYTES {
        return Err(op_error(
            ctx,
            op,
            format!(
                "'@{name}' declares {statics} bytes of static shared memory and the launch asks {shared} dynamic: over the {MAX_SHARED_BYTES} bytes a block may have"
            ),
        ));
    }
    let params = f.params(ctx);
    let body =
        ctx.entry_block(f.body(ctx)).ok_or_else(|| op_error(ctx, op, format!("kernel '@{name}' has no body")))?;
    let formals = ctx.block_args(body);
    let actuals = launch.args(ctx);
    if formals.len() != actuals.len() || params.len() != formals.len() {
        return Err(op_error(ctx, op, format!("argument count does not match '@{name}'")));
    }
    let mut args = Vec::with_capacity(formals.len());
    for (i, (&a, &p)) in actuals.iter().zip(&params).enumerate() {
        let v = host.get(ctx, a)?.clone();
        let ok = matches!(
            (&v, ptr_parts(ctx, p)),
            (RtValue::Buffer { .. }, Some(_)) | (RtValue::Int(_) | RtValue::Float(_), None)
        );
        if !ok {
            return Err(op_error(ctx, op, format!("argument #{i} does not fit parameter #{i} of '@{name}'")));
        }
        args.push(v);
    }
    let cluster = f.cluster(ctx).unwrap_or(1).max(1);
    if blocks % cluster != 0 {
        return Err(op_error(
            ctx,
            op,
            format!("blocks must be a multiple of '@{name}''s cluster of {cluster} CTAs, got {blocks}"),
        ));
    }
    let nb = threads as usize;
    let cl = cluster as usize;
    // Every thread of a cluster's blocks (one block without clusters).
    let n = nb * cl;
    let mut sim = Sim {
        ctx,
        launch: op,
        block: 0,
        grid: blocks,
        nthreads: nb,
        cluster: cl,
        shared_bytes: shared,
        threads: (0..n).map(|_| Machine::new()).collect(),
        shared: HashMap::new(),
        dynamic: HashMap::new(),
        steps: 0,
        max_steps: host.max_steps.saturating_sub(host.steps),
        copies: (0..n).map(|_| AsyncCopies::default()).collect(),
        races: Races::new(nb, cl),
        tickets: 0,
        work: None,
    };
    for m in &mut sim.threads {
        for (&a, v) in formals.iter().zip(&args) {
            m.set(a, v.clone());
        }
    }
    let mask = vec![true; n];
    // The phases of a cooperative kernel: the body's ops between its grid barriers. Each
    // phase runs in every block (in block order) before the next starts; a block keeps its
    // threads' values, shared memory and copies in flight from one phase to the next.
    // After an `mgpu.grid_tail` only the first `min(ctas, grid)` blocks go on, as ranks 0, 1,
    // ... of a grid of that many (the GPU's ranks follow arrival; the ops after it may not
    // tell, which its verifier checks).
    let ops: Vec<OpId> = ctx.block_ops(body).collect();
    let is_sep = |o: &OpId| ctx.isa::<GridBarrierOp>(*o) || ctx.isa::<GridTailOp>(*o);
    let seps: Vec<OpId> = ops.iter().copied().filter(is_sep).collect();
    let phases: Vec<&[OpId]> = ops.split(is_sep).collect();
    if phases.len() > 1 && (blocks as u64).saturating_mul(n as u64) > MAX_COOPERATIVE_THREADS {
        return Err(op_error(
            ctx,
            op,
            format!(
                "a cooperative launch of {blocks} blocks of {n} threads is more than the simulator keeps between \
                 grid barriers ({MAX_COOPERATIVE_THREADS} threads; a GPU holds far fewer blocks at once)"
            ),
        ));
    }
    let units = blocks / cluster;
    let mut saved: Vec<Option<BlockState>> = (0..units).map(|_| None).collect();
    // The blocks still running, and the tail's results each thread of them sets.
    let mut going_on = units;
    for (k, phase) in phases.iter().enumerate() {
        let last = k + 1 == phases.len();
        let tail = k.checked_sub(1).and_then(|i| ctx.dyn_cast::<GridTailOp>(seps[i]));
        if let Some(t) = tail {
            going_on = going_on.min(t.ctas(ctx).unwrap_or(1).max(1));
        }
        for b in 0..going_on {
            sim.block = b * cluster;
            match saved[b as usize].take() {
                Some(st) => sim.restore(st),
                None => {
                    if sim.threads.is_empty() {
                        // The previous block's machines were saved for the next phase.
                        sim.threads = (0..n).map(|_| Machine::new()).collect();
                        for m in &mut sim.threads {
                            for (&a, v) in formals.iter().zip(&args) {
                                m.set(a, v.clone());
                            }
                        }
                        sim.copies = (0..n).map(|_| AsyncCopies::default()).collect();
                    }
                    sim.shared.clear();
                    sim.dynamic.clear();
                    sim.copies.iter_mut().for_each(|c| *c = AsyncCopies::default());
                }
            }
            if let Some(t) = tail {
                for m in &mut sim.threads {
                    m.set(t.rank(ctx), RtValue::Int(b));
                    m.set(t.count(ctx), RtValue::Int(going_on));
                }
            }
            // Every access before the block's grid barrier is ordered before every one after.
            sim.races = Races::new(nb, cl);
            let r = sim.run_ops(phase, &mask);
            host.steps = host.steps.saturating_add(sim.steps);
            sim.steps = 0;
            sim.max_steps = host.max_steps.saturating_sub(host.steps);
            r?;
            if !last {
                saved[b as usize] = Some(sim.save());
            }
        }
    }
    check_tickets(ctx, &sim)
}

/// After a launch, `mgpu.work_loop`'s tickets: `0 .. ub` in all when every block ran the loop
/// (the last one sets the GPU's counter back to 0), none when no block did. Anything else is
/// an error: the GPU's counter would not be back at 0 for the next launch.
fn check_tickets(ctx: &Context, sim: &Sim<'_>) -> InterpResult<()> {
    match sim.work {
        Some((w, ub)) if sim.tickets != ub.max(0) => Err(op_error(
            ctx,
            w,
            format!(
                "took {} tickets in this launch, not {ub} (one per iteration): some blocks of the launch did not run it, \
                 and on a GPU its counter would not be back at 0 for the next launch",
                sim.tickets
            ),
        )),
        _ => Ok(()),
    }
}

/// What a block (a cluster's blocks) of a cooperative kernel keeps between phases.
struct BlockState {
    threads: Vec<Machine>,
    shared: HashMap<(usize, OpId), RtValue>,
    dynamic: HashMap<(usize, Type), RtValue>,
    copies: Vec<AsyncCopies>,
}

/// The state of one block (of one cluster's blocks) of a launch.
struct Sim<'c> {
    ctx: &'c Context,
    launch: OpId,
    /// The (first) block running.
    block: i64,
    grid: i64,
    /// Threads per block.
    nthreads: usize,
    /// Blocks run together: the kernel's cluster (1 without).
    cluster: usize,
    shared_bytes: i64,
    /// One machine (SSA values) per thread of the block(s): thread `g` is thread
    /// `g % nthreads` of block `block + g / nthreads`.
    threads: Vec<Machine>,
    /// The arrays of `mgpu.shared_alloc`, by block rank and op.
    shared: HashMap<(usize, OpId), RtValue>,
    /// The dynamic shared memory, by block rank and element type.
    dynamic: HashMap<(usize, Type), RtValue>,
    /// Thread-ops executed in the current block (added to the host's fuel after it).
    steps: u64,
    /// The host machine's fuel left when the block started: a launch counts every op of
    /// every thread against the host's `max_steps`.
    max_steps: u64,
    /// Each thread's asynchronous copies not yet in shared memory.
    copies: Vec<AsyncCopies>,
    /// The shared-memory race detector of the block running, in this phase.
    races: Races,
    /// The tickets `mgpu.work_loop` handed out in this launch.
    tickets: i64,
    /// The launch's `mgpu.work_loop` and its iterations, once a block has run it.
    work: Option<(OpId, i64)>,
}

/// One `mgpu.copy_async` in flight: the values it read and where they go.
struct PendingCopy {
    dst: Rc<RefCell<Array>>,
    at: usize,
    vals: Vec<f64>,
}

/// A thread's asynchronous copies: the committed groups, oldest first, and the open one.
#[derive(Default)]
struct AsyncCopies {
    groups: std::collections::VecDeque<Vec<PendingCopy>>,
    open: Vec<PendingCopy>,
}

/// Which threads are active.
type Mask = [bool];

fn any(mask: &Mask) -> bool {
    mask.iter().any(|x| *x)
}

/// The active threads of `mask`, in order.
fn actives(mask: &Mask) -> impl Iterator<Item = usize> + '_ {
    mask.iter().enumerate().filter(|(_, a)| **a).map(|(t, _)| t)
}

impl<'c> Sim<'c> {
    /// `(thread t, block b)` of the simulator's thread `g`.
    fn at(&self, g: usize) -> String {
        format!("(thread {}, block {})", g % self.nthreads, self.block + (g / self.nthreads) as i64)
    }

    /// The rank in its cluster of the block of thread `g` (0 without clusters).
    fn rank(&self, g: usize) -> usize {
        g / self.nthreads
    }

    /// An error at `op` for thread `t`, with a note at the launch.
    fn err(&self, op: OpId, t: usize, msg: impl AsRef<str>) -> Diagnostic {
        op_error(self.ctx, op, format!("{} {}", msg.as_ref(), self.at(t))).with_note(
            self.ctx.op_loc(self.launch),
            format!("in the kernel launched here ({} blocks of {} threads)", self.grid, self.nthreads),
        )
    }

    /// Adds the thread and block to a diagnostic from an op's own hook.
    fn wrap(&self, d: Diagnostic, t: usize) -> Diagnostic {
        d.with_note(
            self.ctx.op_loc(self.launch),
            format!(
                "in thread {} of block {} of the kernel launched here",
                t % self.nthreads,
                self.block + (t / self.nthreads) as i64
            ),
        )
    }

    fn get(&self, t: usize, v: Value) -> InterpResult<&RtValue> {
        self.threads[t].get(self.ctx, v).map_err(|d| self.wrap(d, t))
    }

    fn int(&self, op: OpId, t: usize, v: Value) -> InterpResult<i64> {
        self.get(t, v)?.as_int().ok_or_else(|| self.err(op, t, "expected an integer operand"))
    }

    /// Takes the block's state out (the next block starts from scratch or from its own).
    fn save(&mut self) -> BlockState {
        BlockState {
            threads: std::mem::take(&mut self.threads),
            shared: std::mem::take(&mut self.shared),
            dynamic: std::mem::take(&mut self.dynamic),
            copies: std::mem::take(&mut self.copies),
        }
    }

    /// Puts a block's saved state back.
    fn restore(&mut self, st: BlockState) {
        self.threads = st.threads;
        self.shared = st.shared;
        self.dynamic = st.dynamic;
        self.copies = st.copies;
    }

    /// Runs the top-level ops `ops` of a kernel body (one phase) under `mask`, stopping at a
    /// terminator.
    fn run_ops(&mut self, ops: &[OpId], mask: &Mask) -> InterpResult<()> {
        for &op in ops {
            if !self.step(op, mask)? {
                break;
            }
        }
        Ok(())
    }

    /// Charges `op` to the fuel and runs it unless it is a terminator; returns whether it ran
    /// (fuel: one step per op and active thread, terminators included, so that an empty loop
    /// body counts too).
    fn step(&mut self, op: OpId, mask: &Mask) -> InterpResult<bool> {
        let ctx = self.ctx;
        self.steps += actives(mask).count().max(1) as u64;
        if self.steps > self.max_steps {
            return Err(op_error(ctx, op, "interpreter: step limit exceeded (in a simulated kernel)"));
        }
        if ctx.op_info(op).is_some_and(|i| i.has(Traits::TERMINATOR)) {
            return Ok(false);
        }
        self.run_op(op, mask)?;
        Ok(true)
    }

    /// Runs the ops of `b` under `mask` up to its terminator, which it returns unexecuted.
    fn run_block(&mut self, b: BlockId, mask: &Mask) -> InterpResult<Option<OpId>> {
        let ctx = self.ctx;
        for op in ctx.block_ops(b) {
            if !self.step(op, mask)? {
                return Ok(Some(op));
            }
        }
        Ok(None)
    }

    /// Sets result 0 of `op` for each active thread to `f(t)`.
    fn set_each(&mut self, op: OpId, mask: &Mask, f: impl Fn(usize) -> RtValue) {
        let r = self.ctx.result(op, 0);
        for (t, m) in self.threads.iter_mut().enumerate() {
            if mask[t] {
                m.set(r, f(t));
            }
        }
    }

    /// The values of the operands of terminator `term` in thread `t`.
    fn yielded(&self, term: Option<OpId>, t: usize) -> InterpResult<Vec<RtValue>> {
        match term {
            Some(y) => self.ctx.operands(y).iter().map(|v| self.get(t, *v).cloned()).collect(),
            None => Ok(Vec::new()),
        }
    }

    /// Sets result 0 of `op` to `v` in each active thread.
    fn set_all(&mut self, op: OpId, mask: &Mask, v: i64) {
        self.set_each(op, mask, |_| RtValue::Int(v))
    }

    fn run_op(&mut self, op: OpId, mask: &Mask) -> InterpResult<()> {
        let ctx = self.ctx;
        let nb = self.nthreads;
        if ctx.isa::<ThreadIdOp>(op) {
            self.set_each(op, mask, |t| RtValue::Int((t % nb) as i64));
        } else if ctx.isa::<BlockIdOp>(op) {
            let b0 = self.block;
            self.set_each(op, mask, |t| RtValue::Int(b0 + (t / nb) as i64));
        } else if ctx.isa::<BlockDimOp>(op) {
            self.set_all(op, mask, self.nthreads as i64);
        } else if ctx.isa::<GridDimOp>(op) {
            self.set_all(op, mask, self.grid);
        } else if ctx.isa::<LaneIdOp>(op) {
            self.set_each(op, mask, |t| RtValue::Int((t % nb % WARP) as i64));
        } else if ctx.isa::<WarpIdOp>(op) {
            self.set_each(op, mask, |t| RtValue::Int((t % nb / WARP) as i64));
        } else if let Some(l) = ctx.dyn_cast::<LoadOp>(op) {
            self.load(op, mask, l.ptr(ctx), l.index(ctx), &[l.value(ctx)])?;
        } else if let Some(l) = ctx.dyn_cast::<LoadVecOp>(op) {
            self.load(op, mask, l.ptr(ctx), l.index(ctx), l.values(ctx))?;
        } else if let Some(s) = ctx.dyn_cast::<StoreOp>(op) {
            self.store(op, mask, &[s.value(ctx)], s.ptr(ctx), s.index(ctx))?;
        } else if let Some(s) = ctx.dyn_cast::<StoreVecOp>(op) {
            self.store(op, mask, s.values(ctx), s.ptr(ctx), s.index(ctx))?;
        } else if let Some(a) = ctx.dyn_cast::<AtomicRmwOp>(op) {
            self.atomic_rmw(a, mask)?;
        } else if let Some(c) = ctx.dyn_cast::<CopyAsyncOp>(op) {
            self.copy_async(c, mask)?;
        } else if ctx.isa::<CopyAsyncCommitOp>(op) {
            for t in actives(mask) {
                let open = std::mem::take(&mut self.copies[t].open);
                self.copies[t].groups.push_back(open);
            }
        } else if let Some(w) = ctx.dyn_cast::<CopyAsyncWaitOp>(op) {
            let keep = w.pending(ctx).unwrap_or(0).max(0) as usize;
            for t in actives(mask) {
                while self.copies[t].groups.len() > keep {
                    for c in self.copies[t].groups.pop_front().unwrap_or_default() {
                        let len = c.dst.borrow().data.len();
                        let r = self.races.write(t, self.rank(t), Rc::as_ptr(&c.dst) as usize, len, c.at, c.vals.len());
                        r.map_err(|race| self.race(op, t, "lands (an asynchronous copy) on", c.at, race))?;
                        c.dst.borrow_mut().data[c.at..c.at + c.vals.len()].copy_from_slice(&c.vals);
                    }
                }
            }
        } else if ctx.isa::<SharedAllocOp>(op) || ctx.isa::<DynamicSharedOp>(op) {
            let r = ctx.result(op, 0);
            for t in actives(mask) {
                let v = self.shared_of(op, self.rank(t));
                self.threads[t].set(r, v);
            }
        } else if let Some(c) = ctx.dyn_cast::<ClusterStoreOp>(op) {
            self.cluster_store(c, mask)?;
        } else if ctx.isa::<ClusterArriveOp>(op) || ctx.isa::<ClusterWaitOp>(op) {
            // All the cluster's threads run in lockstep: reached by all, it waits for nothing.
            // The arrival releases what each thread did before it (the race detector's sync).
            if ctx.isa::<ClusterArriveOp>(op) {
                self.races.cluster_arrive();
            }
            if let Some(t) = mask.iter().position(|a| !*a) {
                let active = mask.iter().filter(|a| **a).count();
                return Err(self.err(
                    op,
                    t,
                    format!(
                        "reached by only {active} of the cluster's {} threads (divergent cluster barrier)",
                        mask.len()
                    ),
                ));
            }
        } else if ctx.isa::<BarrierOp>(op) {
            if let Some(t) = mask.iter().position(|a| !*a) {
                let active = mask.iter().filter(|a| **a).count();
                return Err(self.err(
                    op,
                    t,
                    format!(
                        "reached by only {active} of {} threads of the block (divergent barrier; thread {t} is \
                         inactive)",
                        self.nthreads
                    ),
                ));
            }
            for r in 0..self.cluster.max(1) {
                self.races.block_barrier(r);
            }
        } else if ctx.isa::<WarpBarrierOp>(op) {
            // Lockstep again, but each warp with any lane here must have all of them here.
            for (w, lanes) in mask.chunks(WARP).enumerate() {
                if lanes.iter().any(|a| *a) {
                    self.races.warp_barrier(w * WARP);
                    if let Some(l) = lanes.iter().position(|a| !*a) {
                        let t = w * WARP + l;
                        let active = lanes.iter().filter(|a| **a).count();
                        return Err(self.err(
                            op,
                            t,
                            format!(
                                "reached by only {active} of the 32 lanes of warp {w} (divergent warp barrier; thread {t} \
                                 is inactive)"
                            ),
                        ));
                    }
                }
            }
        } else if ctx.isa::<GridBarrierOp>(op) || ctx.isa::<GridTailOp>(op) {
            // The launch splits the body at its top-level grid barriers and tails; one met
            // here is nested.
            let t = mask.iter().position(|a| *a).unwrap_or(0);
            return Err(self.err(op, t, "must stand directly in the kernel's body (the verifier says so)"));
        } else if let Some(s) = ctx.dyn_cast::<ShuffleOp>(op) {
            self.shuffle(s, mask)?;
        } else if let Some(w) = ctx.dyn_cast::<WarpReduceOp>(op) {
            self.warp_reduce(w, mask)?;
        } else if let Some(i) = ctx.dyn_cast::<IfOp>(op) {
            self.run_if(i, mask)?;
        } else if ctx.isa::<morf_loop::ops::ForOp>(op) {
            self.run_for(op, mask)?;
        } else if let Some(w) = ctx.dyn_cast::<WorkLoopOp>(op) {
            self.run_work_loop(w, mask)?;
        } else {
            if !ctx.regions(op).is_empty() {
                let t = mask.iter().position(|a| *a).unwrap_or(0);
                return Err(self.err(op, t, "is not supported inside a kernel by the simulator"));
            }
            for t in actives(mask) {
                let r = self.threads[t].run_op(ctx, op);
                if let Err(d) = r {
                    return Err(self.wrap(d, t));
                }
            }
        }
        Ok(())
    }

    /// Block `rank`'s array of the shared memory op `op` (`mgpu.shared_alloc` or
    /// `mgpu.dynamic_shared`), made at its first use.
    fn shared_of(&mut self, op: OpId, rank: usize) -> RtValue {
        let ctx = self.ctx;
        if let Some(a) = ctx.dyn_cast::<SharedAllocOp>(op) {
            if let Some(v) = self.shared.get(&(rank, op)) {
                return v.clone();
            }
            let n = a.size(ctx).unwrap_or(0).max(0) as usize;
            let v = self.new_shared(op, n);
            self.shared.insert((rank, op), v.clone());
            v
        } else {
            let ty = ctx.value_type(ctx.result(op, 0));
            if let Some(v) = self.dynamic.get(&(rank, ty)) {
                return v.clone();
            }
            let elem = ptr_parts(ctx, ty).map(|p| p.0).unwrap_or(ty);
            let n = self.shared_bytes as usize / elem_bytes(ctx, elem);
            let v = self.new_shared(op, n);
            self.dynamic.insert((rank, ty), v.clone());
            v
        }
    }

    /// `mgpu.cluster_store`: each active thread stores into the target block's copy of the
    /// shared array its pointer comes from.
    fn cluster_store(&mut self, c: ClusterStoreOp, mask: &Mask) -> InterpResult<()> {
        let ctx = self.ctx;
        let op = c.id();
        let p = c.ptr(ctx);
        let def = ctx.defining_op(p).filter(|&d| ctx.isa::<SharedAllocOp>(d) || ctx.isa::<DynamicSharedOp>(d));
        let Some(def) = def else {
            let t = mask.iter().position(|a| *a).unwrap_or(0);
            return Err(self.err(
                op,
                t,
                "needs its pointer straight from an 'mgpu.shared_alloc' or 'mgpu.dynamic_shared' (the simulator)",
            ));
        };
        let kind = ctx.float_kind(ctx.value_type(c.value(ctx)));
        for t in actives(mask) {
            let rank = self.int(op, t, c.rank(ctx))?;
            if !(0..self.cluster as i64).contains(&rank) {
                return Err(self.err(op, t, format!("rank {rank} is outside the cluster of {} CTAs", self.cluster)));
            }
            let RtValue::Buffer { data, .. } = self.shared_of(def, rank as usize) else {
                return Err(self.err(op, t, "expected a shared array"));
            };
            let off = self.int(op, t, c.index(ctx))?;
            let x = match self.get(t, c.value(ctx))? {
                RtValue::Float(f) => kind.map_or(*f, |k| k.round(*f)),
                RtValue::Int(n) => *n as f64,
                _ => return Err(self.err(op, t, "expected a scalar value to store")),
            };
            let mut a = data.borrow_mut();
            let o = self.check_access(op, t, p, off, 1, a.data.len())?;
            let r = self.races.write(t, rank as usize, Rc::as_ptr(&data) as usize, a.data.len(), o, 1);
            r.map_err(|race| self.race(op, t, "writes (into another block)", o, race))?;
            a.data[o] = x;
        }
        Ok(())
    }

    /// A fresh shared array of `n` elements of the type of `op`'s result.
    fn new_shared(&self, op: OpId, n: usize) -> RtValue {
        let ctx = self.ctx;
        let ty = ctx.value_type(ctx.result(op, 0));
        let elem = ptr_parts(ctx, ty).map(|p| p.0).unwrap_or(ty);
        let init = if ctx.is_float(elem) { f64::NAN } else { 0.0 };
        RtValue::Buffer { elem, data: Rc::new(RefCell::new(Array::new(vec![n], vec![init; n]))) }
    }

    /// The memory that pointer operand `p` of `op` points to, in thread `t`.
    fn memory(&self, op: OpId, t: usize, p: Value) -> InterpResult<(Type, Rc<RefCell<Array>>)> {
        match self.get(t, p)? {
            RtValue::Buffer { elem, data } => Ok((*elem, data.clone())),
            _ => Err(self.err(op, t, "expected a pointer operand")),
        }
    }

    /// Checks the access of `w` elements at `off` in memory of `len` elements.
    fn check_access(&self, op: OpId, t: usize, p: Value, off: i64, w: usize, len: usize) -> InterpResult<usize> {
        let what = if self.is_shared(p) { "shared" } else { "global" };
        if w > 1 && off.rem_euclid(w as i64) != 0 {
            return Err(self.err(
                op,
                t,
                format!("misaligned vector access: element offset {off} is not a multiple of the width {w}"),
            ));
        }
        if off < 0 || (off as u64).saturating_add(w as u64) > len as u64 {
            let range = if w == 1 { format!("{off}") } else { format!("{off}..{}", off.saturating_add(w as i64)) };
            return Err(self.err(
                op,
                t,
                format!("out-of-bounds access: element offset {range} of {what} memory of {len} elements"),
            ));
        }
        Ok(off as usize)
    }

    /// Loads `results.len()` elements through `p` at `i`.
    fn load(&mut self, op: OpId, mask: &Mask, p: Value, i: Value, results: &[Value]) -> InterpResult<()> {
        let ctx = self.ctx;
        let w = results.len();
        let shared = self.is_shared(p);
        for t in actives(mask) {
            let (elem, data) = self.memory(op, t, p)?;
            let off = self.int(op, t, i)?;
            let (vals, o, len): (Vec<f64>, usize, usize) = {
                let a = data.borrow();
                let o = self.check_access(op, t, p, off, w, a.data.len())?;
                (a.data[o..o + w].to_vec(), o, a.data.len())
            };
            if shared {
                let r = self.races.read(t, self.rank(t), Rc::as_ptr(&data) as usize, len, o, w);
                r.map_err(|race| self.race(op, t, "reads", o, race))?;
            }
            let float = ctx.is_float(elem);
            for (&r, x) in results.iter().zip(vals) {
                let v = if float { RtValue::Float(x) } else { RtValue::Int(x as i64) };
                self.threads[t].set(r, v);
            }
        }
        Ok(())
    }

    /// `mgpu.copy_async`: each active thread reads its source now (bounds- and
    /// alignment-checked, as the shared destination) and queues the write in its open group.
    fn copy_async(&mut self, c: CopyAsyncOp, mask: &Mask) -> InterpResult<()> {
        let ctx = self.ctx;
        let op = c.id();
        let w = c.width(ctx).unwrap_or(0).max(1) as usize;
        for t in actives(mask) {
            let (_, src) = self.memory(op, t, c.src(ctx))?;
            let (_, dst) = self.memory(op, t, c.dst(ctx))?;
            let (so, dof) = (self.int(op, t, c.src_index(ctx))?, self.int(op, t, c.dst_index(ctx))?);
            let vals = {
                let a = src.borrow();
                let o = self.check_access(op, t, c.src(ctx), so, w, a.data.len())?;
                a.data[o..o + w].to_vec()
            };
            let len = dst.borrow().data.len();
            let at = self.check_access(op, t, c.dst(ctx), dof, w, len)?;
            self.copies[t].open.push(PendingCopy { dst, at, vals });
        }
        Ok(())
    }

    /// Stores `vals` through `p` at `i`.
    fn store(&mut self, op: OpId, mask: &Mask, vals: &[Value], p: Value, i: Value) -> InterpResult<()> {
        let ctx = self.ctx;
        let w = vals.len();
        let shared = self.is_shared(p);
        for t in actives(mask) {
            let (elem, data) = self.memory(op, t, p)?;
            let off = self.int(op, t, i)?;
            let kind = ctx.float_kind(elem);
            let mut xs = Vec::with_capacity(w);
            for &v in vals {
                let x = match self.get(t, v)? {
                    RtValue::Float(f) => kind.map_or(*f, |k| k.round(*f)),
                    RtValue::Int(n) => *n as f64,
                    _ => return Err(self.err(op, t, "expected a scalar value to store")),
                };
                xs.push(x);
            }
            let mut a = data.borrow_mut();
            let o = self.check_access(op, t, p, off, w, a.data.len())?;
            if shared {
                let r = self.races.write(t, self.rank(t), Rc::as_ptr(&data) as usize, a.data.len(), o, w);
                r.map_err(|race| self.race(op, t, "writes", o, race))?;
            }
            a.data[o..o + w].copy_from_slice(&xs);
        }
        Ok(())
    }

    /// Whether pointer `p` points to shared memory.
    fn is_shared(&self, p: Value) -> bool {
        ptr_parts(self.ctx, self.ctx.value_type(p)).is_some_and(|x| x.1 == crate::types::SHARED)
    }

    /// The error of a shared-memory race at `op`: thread `t` `does` element `at` after
    /// `race`'s unordered access.
    fn race(&self, op: OpId, t: usize, does: &str, at: usize, race: Race) -> Diagnostic {
        let who = match race.other {
            Some(o) => format!("thread {} of block {}", o % self.nthreads, self.block + (o / self.nthreads) as i64),
            None => "threads of several warps".to_string(),
        };
        self.err(
            op,
            t,
            format!(
                "shared-memory race: {does} element {at} that {who} {} with no barrier between them (a warp barrier orders the lanes of one warp, a block barrier the block's threads)",
                race.did
            ),
        )
    }

    /// `mgpu.atomic_rmw`: one indivisible update per active thread, in thread order; each
    /// thread's result is the element it found.
    fn atomic_rmw(&mut self, a: AtomicRmwOp, mask: &Mask) -> InterpResult<()> {
        let ctx = self.ctx;
        let op = a.id();
        let (v, p, i, r) = (a.value(ctx), a.ptr(ctx), a.index(ctx), a.old(ctx));
        let Some(kind) = a.atomic_kind(ctx) else {
            let k = a.kind(ctx).unwrap_or_default();
            let t = mask.iter().position(|a| *a).unwrap_or(0);
            return Err(self.err(op, t, format!("unknown atomic kind '{k}'")));
        };
        for t in actives(mask) {
            let (elem, data) = self.memory(op, t, p)?;
            let off = self.int(op, t, i)?;
            let x = self.get(t, v)?.clone();
            let mut mem = data.borrow_mut();
            let o = self.check_access(op, t, p, off, 1, mem.data.len())?;
            let cur = mem.data[o];
            let (old, new) = match (x, ctx.float_kind(elem)) {
                (RtValue::Float(x), Some(fk)) => {
                    let x = fk.round(x);
                    let c = match kind {
                        AtomicKind::Add => cur + x,
                        AtomicKind::Max | AtomicKind::Min if cur.is_nan() || x.is_nan() => f64::NAN,
                        AtomicKind::Max => cur.max(x),
                        AtomicKind::Min => cur.min(x),
                    };
                    (RtValue::Float(cur), fk.round(c))
                }
                (RtValue::Int(x), None) => {
                    let c = cur as i64;
                    let n = match kind {
                        AtomicKind::Add => {
                            c.checked_add(x).ok_or_else(|| self.err(op, t, "integer overflow in the atomic add"))?
                        }
                        AtomicKind::Max => c.max(x),
                        AtomicKind::Min => c.min(x),
                    };
                    (RtValue::Int(c), n as f64)
                }
                _ => return Err(self.err(op, t, "expected a value of the pointer's element type")),
            };
            mem.data[o] = new;
            drop(mem);
            self.threads[t].set(r, old);
        }
        Ok(())
    }

    fn shuffle(&mut self, s: ShuffleOp, mask: &Mask) -> InterpResult<()> {
        let ctx = self.ctx;
        let op = s.id();
        let (v, off) = (s.value(ctx), s.offset(ctx));
        let mode = s.shuffle_mode(ctx);
        let (n, nb) = (self.threads.len(), self.nthreads);
        let mut vals: Vec<Option<RtValue>> = vec![None; n];
        for t in actives(mask) {
            vals[t] = Some(self.get(t, v)?.clone());
        }
        let r = s.result(ctx);
        for t in actives(mask) {
            let o = self.int(op, t, off)?;
            let lane = (t % nb % WARP) as i64;
            let base = t - t % nb % WARP;
            // The block's end: a lane past it is outside the warp.
            let end = (t / nb + 1) * nb;
            let src = match mode {
                Some(ShuffleMode::Xor) => lane ^ o,
                Some(ShuffleMode::Down) => lane.saturating_add(o),
                Some(ShuffleMode::Up) => lane.saturating_sub(o),
                Some(ShuffleMode::Idx) => o.rem_euclid(WARP as i64),
                None => {
                    let m = s.mode(ctx).unwrap_or_default();
                    return Err(self.err(op, t, format!("unknown shuffle mode '{m}'")));
                }
            };
            let from =
                if (0..WARP as i64).contains(&src) && base + (src as usize) < end { base + src as usize } else { t };
            let x = match vals.get(from) {
                Some(Some(x)) => x.clone(),
                _ => vals[t].clone().expect("active thread has a value"),
            };
            self.threads[t].set(r, x);
        }
        Ok(())
    }

    fn warp_reduce(&mut self, w: WarpReduceOp, mask: &Mask) -> InterpResult<()> {
        let ctx = self.ctx;
        let op = w.id();
        let (v, r) = (w.value(ctx), w.result(ctx));
        let Some(kind) = w.reduce_kind(ctx) else {
            let k = w.kind(ctx).unwrap_or_default();
            let t = mask.iter().position(|a| *a).unwrap_or(0);
            return Err(self.err(op, t, format!("unknown combiner '{k}'")));
        };
        let fk = ctx.float_kind(ctx.value_type(r));
        let (n, nb) = (self.threads.len(), self.nthreads);
        let width = w.width(ctx).unwrap_or(WARP as u32) as usize;
        let bases = (0..n).step_by(nb).flat_map(|b0| (b0..b0 + nb).step_by(width).map(move |b| (b, b0 + nb)));
        for (base, end) in bases {
            let lanes: Vec<usize> = (base..(base + width).min(end)).filter(|t| mask[*t]).collect();
            let Some(&first) = lanes.first() else {
                continue;
            };
            let mut acc = self.get(first, v)?.clone();
            for &t in &lanes[1..] {
                let x = self.get(t, v)?;
                acc = match (&acc, x) {
                    (RtValue::Float(a), RtValue::Float(b)) => {
                        let c = match kind {
                            ReduceKind::Sum => a + b,
                            ReduceKind::Max | ReduceKind::Min if a.is_nan() || b.is_nan() => f64::NAN,
                            ReduceKind::Max => a.max(*b),
                            ReduceKind::Min => a.min(*b),
                        };
                        RtValue::Float(fk.map_or(c, |k| k.round(c)))
                    }
                    (RtValue::Int(a), RtValue::Int(b)) => RtValue::Int(match kind {
                        ReduceKind::Sum => {
                            a.checked_add(*b).ok_or_else(|| self.err(op, t, "integer overflow in the sum"))?
                        }
                        ReduceKind::Max => *a.max(b),
                        ReduceKind::Min => *a.min(b),
                    }),
                    _ => return Err(self.err(op, t, "expected a scalar value")),
                };
            }
            for &t in &lanes {
                self.threads[t].set(r, acc.clone());
            }
        }
        Ok(())
    }

    fn run_if(&mut self, i: IfOp, mask: &Mask) -> InterpResult<()> {
        let ctx = self.ctx;
        let op = i.id();
        let c = i.condition(ctx);
        let n = self.threads.len();
        let mut then_mask = vec![false; n];
        let mut else_mask = vec![false; n];
        for t in actives(mask) {
            if self.int(op, t, c)? != 0 {
                then_mask[t] = true;
            } else {
                else_mask[t] = true;
            }
        }
        let results = i.results(ctx);
        for (region, m) in [(i.then_region(ctx), then_mask), (i.else_region(ctx), else_mask)] {
            if !any(&m) {
                continue;
            }
            let Some(b) = ctx.entry_block(region) else {
                continue;
            };
            let term = self.run_block(b, &m)?;
            for t in actives(&m) {
                let vals = self.yielded(term, t)?;
                for (&r, v) in results.iter().zip(vals) {
                    self.threads[t].set(r, v);
                }
            }
        }
        Ok(())
    }

    fn run_for(&mut self, op: OpId, mask: &Mask) -> InterpResult<()> {
        let ctx = self.ctx;
        let ops = ctx.operands(op);
        let b = ctx
            .regions(op)
            .first()
            .and_then(|r| ctx.entry_block(*r))
            .ok_or_else(|| op_error(ctx, op, "expects a body block"))?;
        let args = ctx.block_args(b);
        let n = self.threads.len();
        let mut iv = vec![0i64; n];
        let mut ub = vec![0i64; n];
        let mut step = vec![1i64; n];
        let mut iters: Vec<Vec<RtValue>> = vec![Vec::new(); n];
        for t in actives(mask) {
            iv[t] = self.int(op, t, ops[0])?;
            ub[t] = self.int(op, t, ops[1])?;
            step[t] = self.int(op, t, ops[2])?;
            if step[t] <= 0 {
                return Err(self.err(op, t, format!("step must be positive, got {}", step[t])));
            }
            iters[t] = ops[3..].iter().map(|v| self.get(t, *v).cloned()).collect::<Result<_, _>>()?;
        }
        let mut active = vec![false; n];
        loop {
            for t in 0..n {
                active[t] = mask[t] && iv[t] < ub[t];
            }
            if !any(&active) {
                break;
            }
            for t in actives(&active) {
                let m = &mut self.threads[t];
                m.set(args[0], RtValue::Int(iv[t]));
                for (&a, v) in args[1..].iter().zip(&iters[t]) {
                    m.set(a, v.clone());
                }
            }
            let term = self.run_block(b, &active)?;
            for t in actives(&active) {
                let ys = self.yielded(term, t)?;
                if ys.len() != iters[t].len() {
                    return Err(self.err(op, t, "the body yielded the wrong number of values"));
                }
                iters[t] = ys;
                iv[t] = iv[t].saturating_add(step[t]);
            }
        }
        let results = ctx.results(op);
        for t in actives(mask) {
            for (&r, v) in results.iter().zip(std::mem::take(&mut iters[t])) {
                self.threads[t].set(r, v);
            }
        }
        Ok(())
    }

    /// `mgpu.work_loop`: the block (all its threads) runs iteration `block_id`, then takes
    /// tickets from the launch's counter until `grid + ticket` is past the last iteration.
    /// Blocks run one after another here, so block 0 takes every ticket before the others
    /// start: one of the GPU's orders. Each ticket is a block barrier (its shared word).
    fn run_work_loop(&mut self, w: WorkLoopOp, mask: &Mask) -> InterpResult<()> {
        let ctx = self.ctx;
        let op = w.0;
        if let Some(t) = mask.iter().position(|a| !*a) {
            return Err(self.err(op, t, "reached by only part of the block (every thread runs the work loop)"));
        }
        let b = ctx.entry_block(w.body(ctx)).ok_or_else(|| op_error(ctx, op, "expects a body block"))?;
        let iv = ctx.block_args(b)[0];
        let ub = self.int(op, 0, w.upper_bound(ctx))?;
        for t in 1..self.threads.len() {
            let u = self.int(op, t, w.upper_bound(ctx))?;
            if u != ub {
                return Err(self.err(op, t, format!("has upper bound {u} in this thread but {ub} in thread 0")));
            }
        }
        if let Some((_, u)) = self.work.filter(|&(_, u)| u != ub) {
            return Err(self.err(op, 0, format!("has upper bound {ub} in this block but {u} in an earlier one")));
        }
        self.work = Some((op, ub));
        let mut i = self.block;
        while i < ub {
            for t in 0..self.threads.len() {
                self.threads[t].set(iv, RtValue::Int(i));
            }
            self.run_block(b, mask)?;
            for r in 0..self.cluster.max(1) {
                self.races.block_barrier(r);
            }
            i = self.grid.saturating_add(self.tickets);
            self.tickets += 1;
        }
        Ok(())
    }
}
