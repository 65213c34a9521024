//! Memory: scalar and vector loads and stores through `!mgpu.ptr` (global or shared), atomic
//! read-modify-writes of global memory, asynchronous copies from global to shared memory,
//! static and dynamic shared memory, and the block barrier.
//!
//! Indexing is by element offset. A vector access of width `w` (2, 4 or 8 elements, at most
//! 16 bytes) must start at an offset that is a multiple of `w`; the simulator checks this and
//! the bounds of every access at run time.

use morf_ir::asm::parser::{OpParser, PResult, UnresolvedOperand};
use morf_ir::asm::printer::OpPrinter;
use morf_ir::builtin::op_error;
use morf_ir::opdef::{AnyType, Index, IntAttr, StrAttr};
use morf_ir::{define_op, Context, FloatKind, OpId, OperationState, Type, TypeData, Value};

use super::kernel::FuncOp;
use super::{
    expect_in_kernel, expect_operand, interpret_in_kernel_only, parse_attr_dict, parse_keyword_attr,
    parse_typed_nullary, print_attr_dict, print_typed_nullary, Ptr, Scalar, SharedPtr, UnitAttr, VResult,
};
use crate::types::{elem_bytes, ptr_parts, SHARED};

define_op! {
    /// Loads one element: `%v = mgpu.load %p[%i] : !mgpu.ptr<bf16>` (result: the element type).
    ///
    /// The unit attribute `nc` marks a read-only load (`ld.global.nc`), as in
    /// `%v = mgpu.load %p[%i] {nc} : !mgpu.ptr<bf16>`. The unit attribute `stream` marks a
    /// load of data the kernel reads once (`ld.global.cs`, cache streaming: its lines are
    /// the first the L1 and L2 caches evict, so a stream of them replaces itself instead of
    /// the caches' other lines); a hint, with no effect on the value loaded.
    pub struct LoadOp("mgpu.load") {
        summary: "loads one element through a pointer",
        operands: [ptr: Ptr, index: Index],
        results: [value: AnyType],
        optional_attrs: [nc: UnitAttr, stream: UnitAttr],
        verify: verify_load,
        format: (parse_load, print_load),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// Stores one element: `mgpu.store %v, %p[%i] : !mgpu.ptr<bf16>` (`value` of the element
    /// type).
    pub struct StoreOp("mgpu.store") {
        summary: "stores one element through a pointer",
        operands: [value: AnyType, ptr: Ptr, index: Index],
        verify: verify_store,
        format: (parse_store, print_store),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// Loads `w` consecutive elements (2, 4 or 8; at most 16 bytes), from an `index` that is a
    /// multiple of `w`, into `w` results of the element type:
    ///
    /// ```mlir
    /// %a, %b, %c, %d = mgpu.load_vec %p[%i] {nc} : !mgpu.ptr<f32> -> f32, f32, f32, f32
    /// ```
    ///
    /// `nc` and `stream` as for [`LoadOp`].
    pub struct LoadVecOp("mgpu.load_vec") {
        summary: "loads 2, 4 or 8 consecutive elements",
        operands: [ptr: Ptr, index: Index],
        variadic_results: values: AnyType,
        optional_attrs: [nc: UnitAttr, stream: UnitAttr],
        verify: verify_load_vec,
        format: (parse_load_vec, print_load_vec),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// Stores `w` consecutive elements (2, 4 or 8; at most 16 bytes) at an `index` that is a
    /// multiple of `w`:
    ///
    /// ```mlir
    /// mgpu.store_vec %a, %b, %p[%i] : !mgpu.ptr<bf16>
    /// ```
    ///
    /// The operands are the `w` values, then `ptr` and `index`: a leading variadic group, so
    /// the definition declares them all as `all_operands` and [`StoreVecOp::values`],
    /// [`StoreVecOp::ptr`] and [`StoreVecOp::index`] split them.
    pub struct StoreVecOp("mgpu.store_vec") {
        summary: "stores 2, 4 or 8 consecutive elements",
        variadic: all_operands: AnyType,
        verify: verify_store_vec,
        format: (parse_store_vec, print_store_vec),
        interpret: interpret_in_kernel_only,
    }
}

impl StoreVecOp {
    /// The stored values (all operands but the last two).
    pub fn values(self, ctx: &Context) -> &[Value] {
        let ops = ctx.operands(self.0);
        &ops[..ops.len().saturating_sub(2)]
    }

    /// The pointer (the second-to-last operand).
    pub fn ptr(self, ctx: &Context) -> Value {
        let ops = ctx.operands(self.0);
        ops[ops.len() - 2]
    }

    /// The element offset (the last operand).
    pub fn index(self, ctx: &Context) -> Value {
        let ops = ctx.operands(self.0);
        ops[ops.len() - 1]
    }
}

/// The kinds of `mgpu.atomic_rmw`.
pub const ATOMIC_KINDS: [&str; 3] = ["add", "max", "min"];

/// What `mgpu.atomic_rmw` stores: a function of the old element and the value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AtomicKind {
    /// `old + value`.
    Add,
    /// The larger of `old` and `value`; NaN if either is NaN (floats).
    Max,
    /// The smaller of `old` and `value`; NaN if either is NaN (floats).
    Min,
}

impl AtomicKind {
    /// The kind named `s` (one of [`ATOMIC_KINDS`]).
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "add" => Self::Add,
            "max" => Self::Max,
            "min" => Self::Min,
            _ => return None,
        })
    }

    /// The keyword (`add`, `max`, `min`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Add => "add",
            Self::Max => "max",
            Self::Min => "min",
        }
    }
}

define_op! {
    /// Atomically replaces one element of global memory by `kind(old, value)` and returns the
    /// old element:
    ///
    /// ```mlir
    /// %old = mgpu.atomic_rmw add %v, %p[%i] : !mgpu.ptr<f32>    // kinds: add, max, min
    /// ```
    ///
    /// Elements are `f32`, `f64` or `index`; `value` and the result have the element type, and
    /// the result may be left unused (PTX emission then uses `red` instead of `atom`). Float
    /// `max`/`min` propagate NaN. The read-modify-write of one element is indivisible; the order
    /// of the threads' updates is unspecified, so float sums may differ in the last bits between
    /// runs on a GPU. `lower-loop-to-gpu` emits it only for an `mloop.accumulate` a schedule
    /// marked `{atomic}` (deterministic lowering stays the default).
    pub struct AtomicRmwOp("mgpu.atomic_rmw") {
        summary: "atomic read-modify-write of one global element",
        operands: [value: Scalar, ptr: Ptr, index: Index],
        results: [old: AnyType],
        attrs: [kind: StrAttr],
        verify: verify_atomic_rmw,
        format: (parse_atomic_rmw, print_atomic_rmw),
        interpret: interpret_in_kernel_only,
    }
}

impl AtomicRmwOp {
    /// The kind, if the `kind` attribute names one.
    pub fn atomic_kind(self, ctx: &Context) -> Option<AtomicKind> {
        self.kind(ctx).and_then(AtomicKind::from_name)
    }
}

define_op! {
    /// Static shared memory of `size` elements, one array per block:
    ///
    /// ```mlir
    /// %s = mgpu.shared_alloc {size = 256 : i64} : !mgpu.ptr<f32, 3>
    /// ```
    pub struct SharedAllocOp("mgpu.shared_alloc") {
        summary: "static shared memory, one array per block",
        results: [ptr: SharedPtr],
        attrs: [size: IntAttr],
        verify: verify_shared_alloc,
        format: (parse_typed_nullary, print_typed_nullary),
        interpret: interpret_in_kernel_only,
    }
}

impl SharedAllocOp {
    /// Bytes of one element of its array (1 where its type is not a pointer).
    pub fn elem_bytes(self, ctx: &Context) -> i64 {
        ptr_parts(ctx, ctx.value_type(ctx.result(self.0, 0))).map_or(1, |(e, _)| elem_bytes(ctx, e) as i64)
    }

    /// Bytes of its array, `size` elements (none where `size` is missing or negative).
    pub fn bytes(self, ctx: &Context) -> i64 {
        self.size(ctx).unwrap_or(0).max(0).saturating_mul(self.elem_bytes(ctx))
    }
}

define_op! {
    /// The launch's dynamic shared memory (`shared` bytes), viewed as elements of the
    /// pointer's type: `%d = mgpu.dynamic_shared : !mgpu.ptr<f32, 3>`.
    pub struct DynamicSharedOp("mgpu.dynamic_shared") {
        summary: "the launch's dynamic shared memory",
        traits: [PURE],
        results: [ptr: SharedPtr],
        verify: expect_in_kernel,
        format: (parse_typed_nullary, print_typed_nullary),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// Waits until every thread of the block reaches it and makes their shared-memory writes
    /// visible (`bar.sync 0`): `mgpu.barrier`. It must be reached in uniform control flow.
    pub struct BarrierOp("mgpu.barrier") {
        summary: "block-wide barrier (bar.sync 0)",
        verify: expect_in_kernel,
        format: (parse_attr_dict, print_attr_dict),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// Waits until every thread of every block of the launch reaches it, and makes all their
    /// global-memory writes visible to each other: `mgpu.grid_barrier`. It stands directly in
    /// the body of a `cooperative` kernel (not inside an `mgpu.if` or a loop), so every
    /// thread reaches it exactly once, and splits the kernel into phases: a phase after it
    /// sees everything a phase before it wrote, in any block. A cooperative launch keeps all
    /// the blocks resident at once (the runtime caps the grid at what fits), which is what
    /// makes waiting for the other blocks safe. Loads after it of a buffer written in the
    /// kernel must not be `nc` (the read-only cache is not coherent within a kernel).
    pub struct GridBarrierOp("mgpu.grid_barrier") {
        summary: "grid-wide barrier of a cooperative kernel",
        verify: verify_grid_barrier,
        format: (parse_attr_dict, print_attr_dict),
        interpret: interpret_in_kernel_only,
    }
}

fn verify_grid_barrier(ctx: &Context, op: OpId) -> VResult {
    let parent = ctx.parent_op(op);
    let kernel = parent.and_then(|p| FuncOp::dyn_cast(ctx, p));
    match kernel {
        Some(f) if f.cooperative(ctx).is_some() => Ok(()),
        Some(_) => Err(op_error(ctx, op, "requires its 'mgpu.func' to be 'cooperative'")),
        None => Err(op_error(
            ctx,
            op,
            "must stand directly in the body of a cooperative 'mgpu.func' (not nested in a loop or an 'mgpu.if')",
        )),
    }
}

define_op! {
    /// The last `ctas` blocks of the launch to reach it go on past it; every other block
    /// returns there: `%rank, %count = mgpu.grid_tail {ctas = 132 : i64}`. Like
    /// `mgpu.grid_barrier` it stands directly in the body of its kernel (a `resident_grid`
    /// one) and splits it into phases; the blocks that go on wait until every block of the
    /// launch has arrived, and then see every global-memory write made before it, in any
    /// block. After it they are a grid of their own: `%count = min(ctas, grid)` blocks,
    /// ranked `%rank = 0 .. %count - 1` by arrival. Code after it must take its block index
    /// and grid size from these results (`mgpu.block_id` and `mgpu.grid_dim` still read the
    /// launch's), and must not depend on which launch block took which rank: the results are
    /// then the same whatever the arrival order. The blocks that return free their SMs, and
    /// the launch is a plain one: no cooperative launch, no wait for the blocks that return.
    /// Waiting is safe where the launch is resident but for at most `ctas` blocks: the
    /// runtime caps a `resident_grid` kernel's grid at the blocks the device holds at once.
    pub struct GridTailOp("mgpu.grid_tail") {
        summary: "the last blocks to arrive go on past it, as a grid of their own",
        results: [rank: Index, count: Index],
        attrs: [ctas: IntAttr],
        verify: verify_grid_tail,
        format: (parse_grid_tail, print_grid_tail),
        interpret: interpret_in_kernel_only,
    }
}

fn verify_grid_tail(ctx: &Context, op: OpId) -> VResult {
    let ctas = GridTailOp(op).ctas(ctx).expect("checked by the generated verifier");
    if ctas < 1 {
        return Err(op_error(ctx, op, format!("'ctas' must be at least 1, got {ctas}")));
    }
    let kernel = ctx.parent_op(op).and_then(|p| FuncOp::dyn_cast(ctx, p));
    match kernel {
        Some(f) if f.resident_grid(ctx).is_some() => verify_tail_uses(ctx, op),
        Some(_) => Err(op_error(ctx, op, "requires its 'mgpu.func' to be 'resident_grid'")),
        None => Err(op_error(
            ctx,
            op,
            "must stand directly in the body of a resident_grid 'mgpu.func' (not nested in a loop or an 'mgpu.if')",
        )),
    }
}

/// A block that goes on past `mgpu.grid_tail` may be any block of the launch: the ops after
/// it may use, of the values defined before it, only those that are the same in every block
/// (the kernel's parameters, and pure ops of them other than `mgpu.block_id` and
/// `mgpu.grid_dim`: constants, thread and lane ids, arithmetic).
fn verify_tail_uses(ctx: &Context, op: OpId) -> VResult {
    let Some(block) = ctx.op_parent_block(op) else { return Ok(()) };
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    let at = ops.iter().position(|&o| o == op).unwrap_or(0);
    let before: std::collections::HashSet<OpId> = ops[..at].iter().copied().collect();
    let mut memo: std::collections::HashMap<OpId, bool> = std::collections::HashMap::new();
    for &later in &ops[at + 1..] {
        let mut bad = None;
        ctx.walk(later, &mut |o| {
            for &v in ctx.operands(o) {
                if bad.is_none() && !same_in_every_block(ctx, v, &before, &mut memo) {
                    bad = Some(o);
                }
            }
        });
        if let Some(o) = bad {
            return Err(op_error(
                ctx,
                o,
                "uses a value from before 'mgpu.grid_tail' that may differ between blocks (the block that goes on may be any block of the launch)",
            )
            .with_note(ctx.op_loc(op), "the grid tail is here"));
        }
    }
    Ok(())
}

fn same_in_every_block(
    ctx: &Context,
    v: Value,
    before: &std::collections::HashSet<OpId>,
    memo: &mut std::collections::HashMap<OpId, bool>,
) -> bool {
    let Some(d) = ctx.defining_op(v) else { return true };
    if !before.contains(&d) {
        return true;
    }
    if let Some(&k) = memo.get(&d) {
        return k;
    }
    let pure = ctx.op_info(d).is_some_and(|i| i.has(morf_ir::registry::Traits::PURE));
    let ok = pure
        && ctx.regions(d).is_empty()
        && !ctx.isa::<super::BlockIdOp>(d)
        && !ctx.isa::<super::GridDimOp>(d)
        && ctx.operands(d).to_vec().into_iter().all(|x| same_in_every_block(ctx, x, before, memo));
    memo.insert(d, ok);
    ok
}

fn parse_grid_tail(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    p.parse_optional_attr_dict(st)?;
    let idx = p.ctx.index_type();
    st.result_types = vec![idx, idx];
    Ok(())
}

fn print_grid_tail(p: &mut OpPrinter<'_>, op: OpId) {
    p.print_optional_attr_dict(op, &[]);
}

define_op! {
    /// Starts copying `width` consecutive elements (4, 8 or 16 bytes) of global memory into
    /// shared memory without waiting for them (`cp.async`):
    ///
    /// ```mlir
    /// mgpu.copy_async %s[%i], %g[%j] {width = 8 : i64} : !mgpu.ptr<bf16, 3>, !mgpu.ptr<bf16>
    /// ```
    ///
    /// Both offsets are multiples of `width`. The copy belongs to the thread's open group,
    /// which `mgpu.copy_async_commit` closes; the shared elements hold the data only after an
    /// `mgpu.copy_async_wait` that covers the group, and only for the issuing thread (other
    /// threads also need a barrier). The global source must not change meanwhile. The unit
    /// attribute `stream` marks a copy of data read once: its lines go first from L2
    /// (`cp.async...L2::cache_hint` with an evict-first policy), as a streamed load's
    /// (`ld.global.cs`).
    pub struct CopyAsyncOp("mgpu.copy_async") {
        summary: "asynchronous copy of 4, 8 or 16 bytes from global to shared memory",
        operands: [dst: SharedPtr, dst_index: Index, src: Ptr, src_index: Index],
        attrs: [width: IntAttr],
        optional_attrs: [stream: UnitAttr],
        verify: verify_copy_async,
        format: (parse_copy_async, print_copy_async),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// Closes the thread's open group of `mgpu.copy_async` copies (`cp.async.commit_group`);
    /// a group may be empty: `mgpu.copy_async_commit`.
    pub struct CopyAsyncCommitOp("mgpu.copy_async_commit") {
        summary: "closes the thread's group of asynchronous copies",
        verify: expect_in_kernel,
        format: (parse_attr_dict, print_attr_dict),
        interpret: interpret_in_kernel_only,
    }
}

define_op! {
    /// Waits until at most `pending` of the thread's committed copy groups, the most recent,
    /// are still in flight (`cp.async.wait_group`): the older ones are then in shared memory.
    /// `mgpu.copy_async_wait {pending = 0 : i64}` waits for all of them.
    pub struct CopyAsyncWaitOp("mgpu.copy_async_wait") {
        summary: "waits for all but the newest `pending` groups of asynchronous copies",
        attrs: [pending: IntAttr],
        verify: verify_copy_async_wait,
        format: (parse_attr_dict, print_attr_dict),
        interpret: interpret_in_kernel_only,
    }
}

// ----- shared pieces -----

/// The element type of the `!mgpu.ptr` `p` (checked by the generated verifier).
fn elem_of(ctx: &Context, p: Value) -> Type {
    let t = ctx.value_type(p);
    ptr_parts(ctx, t).map_or(t, |(e, _)| e)
}

/// Checks that `v` (`what`) has the element type `elem` of the pointer.
fn expect_elem(ctx: &Context, op: OpId, v: Value, elem: Type, what: &str) -> VResult {
    let t = ctx.value_type(v);
    if t == elem {
        Ok(())
    } else {
        Err(op_error(
            ctx,
            op,
            format!(
                "{what} has type '{}', but the pointer's element type is '{}'",
                ctx.type_to_string(t),
                ctx.type_to_string(elem)
            ),
        ))
    }
}

/// Checks a vector width `w` for element type `elem`.
fn check_width(ctx: &Context, op: OpId, w: usize, elem: Type) -> VResult {
    if ![2, 4, 8].contains(&w) {
        return Err(op_error(ctx, op, format!("vector width must be 2, 4 or 8, got {w}")));
    }
    let bytes = w * elem_bytes(ctx, elem);
    if bytes > 16 {
        return Err(op_error(
            ctx,
            op,
            format!("a vector of {w} x '{}' is {bytes} bytes, more than 16", ctx.type_to_string(elem)),
        ));
    }
    Ok(())
}

/// Parses `%p[%i]`.
fn parse_access(p: &mut OpParser<'_>) -> PResult<(UnresolvedOperand, UnresolvedOperand)> {
    let ptr = p.parse_operand()?;
    let idx = parse_index(p)?;
    Ok((ptr, idx))
}

/// Parses `[%i]`.
fn parse_index(p: &mut OpParser<'_>) -> PResult<UnresolvedOperand> {
    p.expect_punct("[")?;
    let i = p.parse_operand()?;
    p.expect_punct("]")?;
    Ok(i)
}

/// Resolves a pointer and an index given the pointer type; returns them and the element type.
fn resolve_access(
    p: &mut OpParser<'_>,
    ptr: &UnresolvedOperand,
    idx: &UnresolvedOperand,
    pty: Type,
    loc: morf_ir::Loc,
) -> PResult<(Value, Value, Type)> {
    let Some((elem, _)) = ptr_parts(p.ctx, pty) else {
        return Err(p.error_at(loc, format!("expected a '!mgpu.ptr' type, got '{}'", p.ctx.type_to_string(pty))));
    };
    let pv = p.resolve_operand(ptr, pty)?;
    let it = p.ctx.index_type();
    let iv = p.resolve_operand(idx, it)?;
    Ok((pv, iv, elem))
}

/// Prints `%p[%i]`.
fn print_access(p: &mut OpPrinter<'_>, ptr: Value, idx: Value) {
    p.print_operand(ptr);
    p.write("[");
    p.print_operand(idx);
    p.write("]");
}

// ----- verifiers, parsers and printers -----

fn verify_load(ctx: &Context, op: OpId) -> VResult {
    let o = LoadOp(op);
    expect_elem(ctx, op, o.value(ctx), elem_of(ctx, o.ptr(ctx)), "result")
}

fn parse_load(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let (ptr, idx) = parse_access(p)?;
    p.parse_optional_attr_dict(st)?;
    let pty = p.parse_colon_type()?;
    let (pv, iv, elem) = resolve_access(p, &ptr, &idx, pty, loc)?;
    st.operands = vec![pv, iv];
    st.result_types = vec![elem];
    Ok(())
}

fn print_load(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    if ops.len() != 2 {
        return;
    }
    p.write(" ");
    print_access(p, ops[0], ops[1]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ops[0]));
}

fn verify_store(ctx: &Context, op: OpId) -> VResult {
    let o = StoreOp(op);
    expect_elem(ctx, op, o.value(ctx), elem_of(ctx, o.ptr(ctx)), "stored value")
}

fn parse_store(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let v = p.parse_operand()?;
    p.expect_punct(",")?;
    let (ptr, idx) = parse_access(p)?;
    p.parse_optional_attr_dict(st)?;
    let pty = p.parse_colon_type()?;
    let (pv, iv, elem) = resolve_access(p, &ptr, &idx, pty, loc)?;
    let vv = p.resolve_operand(&v, elem)?;
    st.operands = vec![vv, pv, iv];
    Ok(())
}

fn print_store(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    if ops.len() != 3 {
        return;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    p.write(", ");
    print_access(p, ops[1], ops[2]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ops[1]));
}

fn verify_load_vec(ctx: &Context, op: OpId) -> VResult {
    let o = LoadVecOp(op);
    let elem = elem_of(ctx, o.ptr(ctx));
    check_width(ctx, op, o.values(ctx).len(), elem)?;
    for (i, &r) in o.values(ctx).iter().enumerate() {
        expect_elem(ctx, op, r, elem, &format!("result #{i}"))?;
    }
    Ok(())
}

fn parse_load_vec(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let (ptr, idx) = parse_access(p)?;
    p.parse_optional_attr_dict(st)?;
    let pty = p.parse_colon_type()?;
    p.expect_punct("->")?;
    let tys = p.parse_type_list()?;
    let (pv, iv, _) = resolve_access(p, &ptr, &idx, pty, loc)?;
    st.operands = vec![pv, iv];
    st.result_types = tys;
    Ok(())
}

fn print_load_vec(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    if ops.len() != 2 {
        return;
    }
    p.write(" ");
    print_access(p, ops[0], ops[1]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ops[0]));
    p.write(" -> ");
    let tys: Vec<Type> = p.ctx.results(op).iter().map(|v| p.ctx.value_type(*v)).collect();
    p.print_types(&tys);
}

fn verify_store_vec(ctx: &Context, op: OpId) -> VResult {
    let n = ctx.operands(op).len();
    if n < 4 {
        return Err(op_error(ctx, op, format!("expects the values, a pointer and an index, but got {n} operands")));
    }
    expect_operand::<Ptr>(ctx, op, n - 2, "ptr")?;
    expect_operand::<Index>(ctx, op, n - 1, "index")?;
    let o = StoreVecOp(op);
    let elem = elem_of(ctx, o.ptr(ctx));
    check_width(ctx, op, o.values(ctx).len(), elem)?;
    for (i, &v) in o.values(ctx).iter().enumerate() {
        expect_elem(ctx, op, v, elem, &format!("stored value #{i}"))?;
    }
    Ok(())
}

fn parse_store_vec(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let mut vals = p.parse_operand_list()?;
    let Some(ptr) = vals.pop() else {
        return Err(p.error_at(loc, "expected values and a pointer"));
    };
    let idx = parse_index(p)?;
    p.parse_optional_attr_dict(st)?;
    let pty = p.parse_colon_type()?;
    let (pv, iv, elem) = resolve_access(p, &ptr, &idx, pty, loc)?;
    let tys = vec![elem; vals.len()];
    let mut operands = p.resolve_operands(&vals, &tys, loc)?;
    operands.push(pv);
    operands.push(iv);
    st.operands = operands;
    Ok(())
}

fn print_store_vec(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    if ops.len() < 2 {
        return;
    }
    let w = ops.len() - 2;
    p.write(" ");
    for &v in &ops[..w] {
        p.print_operand(v);
        p.write(", ");
    }
    print_access(p, ops[w], ops[w + 1]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ops[w]));
}

fn verify_shared_alloc(ctx: &Context, op: OpId) -> VResult {
    expect_in_kernel(ctx, op)?;
    let n = match SharedAllocOp(op).size(ctx) {
        Some(n) if n >= 1 => n,
        _ => return Err(op_error(ctx, op, "requires a positive integer attribute 'size' (in elements)")),
    };
    // A block's static shared memory is at most 48 KiB (CUDA; more needs dynamic shared memory).
    let elem = SharedAllocOp(op).elem_bytes(ctx);
    match n.checked_mul(elem) {
        Some(bytes) if bytes <= MAX_STATIC_SHARED_BYTES => Ok(()),
        _ => Err(op_error(
            ctx,
            op,
            format!(
                "'size' = {n} elements of {elem} bytes exceeds the {MAX_STATIC_SHARED_BYTES} bytes of static shared memory a block may have"
            ),
        )),
    }
}

/// The most static shared memory (`mgpu.shared_alloc`) of a block, in bytes: 48 KiB.
pub const MAX_STATIC_SHARED_BYTES: i64 = 48 * 1024;

fn verify_atomic_rmw(ctx: &Context, op: OpId) -> VResult {
    expect_in_kernel(ctx, op)?;
    let o = AtomicRmwOp(op);
    if o.atomic_kind(ctx).is_none() {
        let k = o.kind(ctx).unwrap_or_default();
        return Err(op_error(ctx, op, format!("unknown atomic kind '{k}'; expected one of add, max, min")));
    }
    let pty = ctx.value_type(o.ptr(ctx));
    if matches!(ptr_parts(ctx, pty), Some((_, SHARED))) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "requires a global pointer, got '{}' (shared-memory atomics are not supported)",
                ctx.type_to_string(pty)
            ),
        ));
    }
    let elem = elem_of(ctx, o.ptr(ctx));
    if !matches!(ctx.type_data(elem), TypeData::Index | TypeData::Float(FloatKind::F32 | FloatKind::F64)) {
        return Err(op_error(
            ctx,
            op,
            format!("atomic elements must be 'f32', 'f64' or 'index', got '{}'", ctx.type_to_string(elem)),
        ));
    }
    expect_elem(ctx, op, o.value(ctx), elem, "value")?;
    expect_elem(ctx, op, o.old(ctx), elem, "result")
}

fn parse_atomic_rmw(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    parse_keyword_attr(p, st, "kind", "atomic kind (add, max or min)")?;
    let loc = p.loc();
    let v = p.parse_operand()?;
    p.expect_punct(",")?;
    let (ptr, idx) = parse_access(p)?;
    p.parse_optional_attr_dict(st)?;
    let pty = p.parse_colon_type()?;
    let (pv, iv, elem) = resolve_access(p, &ptr, &idx, pty, loc)?;
    let vv = p.resolve_operand(&v, elem)?;
    st.operands = vec![vv, pv, iv];
    st.result_types = vec![elem];
    Ok(())
}

fn print_atomic_rmw(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    if ops.len() != 3 {
        return;
    }
    let kw = p.ctx.attr(op, "kind").and_then(|a| p.ctx.attr_str(a)).unwrap_or("?").to_string();
    p.write(" ");
    p.write(&kw);
    p.write(" ");
    p.print_operand(ops[0]);
    p.write(", ");
    print_access(p, ops[1], ops[2]);
    p.print_optional_attr_dict(op, &["kind"]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ops[1]));
}

fn verify_copy_async(ctx: &Context, op: OpId) -> VResult {
    expect_in_kernel(ctx, op)?;
    let o = CopyAsyncOp(op);
    let src_ty = ctx.value_type(o.src(ctx));
    if matches!(ptr_parts(ctx, src_ty), Some((_, SHARED))) {
        return Err(op_error(
            ctx,
            op,
            format!("the source must be a global pointer, got '{}'", ctx.type_to_string(src_ty)),
        ));
    }
    let elem = elem_of(ctx, o.dst(ctx));
    let src_elem = elem_of(ctx, o.src(ctx));
    if elem != src_elem {
        return Err(op_error(
            ctx,
            op,
            format!(
                "copies '{}' elements into '{}' elements; the element types must match",
                ctx.type_to_string(src_elem),
                ctx.type_to_string(elem)
            ),
        ));
    }
    let w = o.width(ctx).unwrap_or(0);
    let bytes = w.max(0) as usize * elem_bytes(ctx, elem);
    if w < 1 || ![4, 8, 16].contains(&bytes) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "'width' = {w} elements of '{}' is {bytes} bytes; a copy is 4, 8 or 16 bytes",
                ctx.type_to_string(elem)
            ),
        ));
    }
    Ok(())
}

fn parse_copy_async(p: &mut OpParser<'_>, st: &mut OperationState) -> PResult<()> {
    let loc = p.loc();
    let (dst, di) = parse_access(p)?;
    p.expect_punct(",")?;
    let (src, si) = parse_access(p)?;
    p.parse_optional_attr_dict(st)?;
    let dty = p.parse_colon_type()?;
    p.expect_punct(",")?;
    let sty = p.parse_type()?;
    let (dv, div, _) = resolve_access(p, &dst, &di, dty, loc)?;
    let (sv, siv, _) = resolve_access(p, &src, &si, sty, loc)?;
    st.operands = vec![dv, div, sv, siv];
    Ok(())
}

fn print_copy_async(p: &mut OpPrinter<'_>, op: OpId) {
    let ops = p.ctx.operands(op).to_vec();
    if ops.len() != 4 {
        return;
    }
    p.write(" ");
    print_access(p, ops[0], ops[1]);
    p.write(", ");
    print_access(p, ops[2], ops[3]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(p.ctx.value_type(ops[0]));
    p.write(", ");
    p.print_type(p.ctx.value_type(ops[2]));
}

fn verify_copy_async_wait(ctx: &Context, op: OpId) -> VResult {
    expect_in_kernel(ctx, op)?;
    match CopyAsyncWaitOp(op).pending(ctx) {
        Some(n) if (0..=7).contains(&n) => Ok(()),
        other => Err(op_error(
            ctx,
            op,
            format!(
                "requires an integer attribute 'pending' in 0..=7, got {}",
                other.map_or("none".into(), |n| n.to_string())
            ),
        )),
    }
}
