//! `lower-tensor-to-loop`: lowers functions of the `mtensor` dialect to explicit loop nests
//! of the `mloop` dialect over buffers, fusing every pointwise producer into its consumers.
//!
//! Every tensor value is treated as an *expression at an index*: to read element `idx` of a
//! value, the pass emits scalar code at the current point of a loop body. Arguments are
//! loaded (`mloop.load`); elementwise ops become the scalar op of the same function on the
//! operands' scalars, found through the elementwise interface (`mtensor.add` -> `mloop.add`,
//! ... `cmp`, `select`, `convert`; the unary and binary ops are generated from the function
//! lists, so every function has its lowering). Each result is rounded to the element type
//! exactly as the tensor interpreter rounds it;
//! splat constants become `mloop.constant`, other constants an `mloop.constant_buffer` at
//! the function entry plus a load; `broadcast`, `transpose`, `reshape`, `collapse_shape` and
//! `expand_shape` only rewrite the index (a dynamic operand dim of a broadcast reads
//! `min(i, size - 1)`, right whether its run-time size is 1 or the full size).
//!
//! Only two kinds of values get a buffer and a loop nest of their own (*roots*): results of
//! `mtensor.reduce`, and values the function returns (unless they are arguments or already
//! have a buffer). Everything else is recomputed inline in each nest that reads it: this
//! is pointwise fusion, so a chain of elementwise ops becomes one nest. Within a nest,
//! scalar code is emitted once per (value, index) and hoisted to the outermost loop body
//! where its operands are available (index arithmetic and constants go to the function
//! entry, loads of a row to the row loop), so shared subexpressions are computed once.
//!
//! - an elementwise root is `mloop.parallel` over its shape storing into an `mloop.alloc`;
//! - a reduce root is `mloop.parallel` over its kept dims (none for a full reduction)
//!   around an `mloop.reduce` over the reduced dims, which accumulates in f32 (f64 for f64
//!   inputs; see the option) starting from the identity (0 for sum and mean, 1 for prod,
//!   -inf for max, +inf for min); `mean` divides the sum by the element count; the result
//!   is converted to the element type and stored (index 0 in `keepdim` dims).
//!
//! Sizes are computed once at the function entry (`mloop.dim` of argument buffers,
//! `mloop.constant` for static dims, the `sizes` operands of broadcasts and reshapes), and
//! dynamic dims stay dynamic. Nests follow the program order of their roots; a buffer that
//! is not returned is freed (`mloop.dealloc`) after the last nest that reads it. The
//! signature changes in place: every tensor becomes an `!mloop.buffer` of the same shape
//! and element type (argument names and `arg_attrs` stay), and `func.return` returns
//! buffers.
//!
//! **IR expected:** `func.func`s whose body is one block of `mtensor` ops (and ops that do
//! not touch tensors). Calls with tensor operands or results are rejected with an error.
//! **IR produced:** `mloop` ops only. Legality is a `ConversionTarget` (`mtensor` illegal;
//! `mloop`, `func` and `builtin` legal): an `mtensor` op the lowering has no lowering for is
//! rejected before anything changes, and the pass ends with a check that no illegal op is
//! left (`failed to legalize operation 'mtensor.add': ...`, at the op). It runs on the op it
//! is given (a module or a function) and every function nested in it.
//!
//! **Options:** `accumulator-type` (`f32` or `f64`, default `f32`): the type that reductions
//! of f16, bf16 and f32 accumulate in (f64 inputs always accumulate in f64).
//!
//! **Example:**
//!
//! ```text
//! // before
//! func.func @f(%x: tensor<?x8xf32>, %w: tensor<8xf32>) -> tensor<?xf32> {
//!   %m = mtensor.dim %x, 0 : tensor<?x8xf32>
//!   %wb = mtensor.broadcast %w dims [1] sizes(%m) : tensor<8xf32> -> tensor<?x8xf32>
//!   %p = mtensor.mul %x, %wb : tensor<?x8xf32>
//!   %s = mtensor.reduce sum %p dims [1] : tensor<?x8xf32> -> tensor<?xf32>
//!   return %s : tensor<?xf32>
//! }
//! // after
//! func.func @f(%x: !mloop.buffer<?x8xf32>, %w: !mloop.buffer<8xf32>) -> !mloop.buffer<?xf32> {
//!   %c0 = mloop.constant 0 : index
//!   %m = mloop.dim %x, 0 : !mloop.buffer<?x8xf32>
//!   %c8 = mloop.constant 8 : index
//!   %c1 = mloop.constant 1 : index
//!   %zero = mloop.constant 0.0 : f32
//!   %s = mloop.alloc(%m) : !mloop.buffer<?xf32>
//!   mloop.parallel (%i) = (%c0) to (%m) step (%c1) {
//!     %acc = mloop.reduce sum (%j) = (%c0) to (%c8) step (%c1) init(%zero) : f32 {
//!       %a = mloop.load %x[%i, %j] : !mloop.buffer<?x8xf32>
//!       %b = mloop.load %w[%j] : !mloop.buffer<8xf32>
//!       %p = mloop.mul %a, %b : f32
//!       mloop.yield %p : f32
//!     }
//!     mloop.store %acc, %s[%i] : !mloop.buffer<?xf32>
//!     mloop.yield
//!   }
//!   return %s : !mloop.buffer<?xf32>
//! }
//! ```

use std::collections::{HashMap, HashSet};

use morf_ir::builtin::{func_type, op_error, FuncOp, ReturnOp};
use morf_ir::conversion::{failed_to_legalize, ConversionTarget};
use morf_ir::interfaces::{elementwise, BinaryFn, CmpPredicate, Elementwise, UnaryFn};
use morf_ir::interp::array::ReduceKind;
use morf_ir::pass::{Pass, PassInfo, PassOptionInfo, PassOptions, PassResult};
use morf_ir::{Attr, BlockId, Context, Diagnostic, Dim, FloatKind, Loc, OpId, OperationState, Type, TypeData, Value};
use morf_loop::ops as lp;
use morf_tensor::ops as tn;

/// The options of [`LowerTensorToLoop`].
#[derive(Clone, Debug)]
pub struct TensorToLoopOptions {
    /// The type reductions of f16, bf16 and f32 accumulate in (`accumulator-type`).
    pub accumulator_type: FloatKind,
}

impl Default for TensorToLoopOptions {
    fn default() -> Self {
        TensorToLoopOptions { accumulator_type: FloatKind::F32 }
    }
}

impl TensorToLoopOptions {
    /// Reads the options from `key=value` text options.
    pub fn from_pass_options(o: &PassOptions) -> Result<Self, String> {
        let accumulator_type = match o.string("accumulator-type", "f32").as_str() {
            "f32" => FloatKind::F32,
            "f64" => FloatKind::F64,
            other => return Err(format!("option 'accumulator-type' expects f32 or f64, got '{other}'")),
        };
        Ok(TensorToLoopOptions { accumulator_type })
    }
}

/// The option table of `lower-tensor-to-loop`.
pub const OPTIONS: &[PassOptionInfo] = &[PassOptionInfo {
    key: "accumulator-type",
    help: "the type reductions of f16, bf16 and f32 accumulate in (f32 or f64)",
    default: "f32",
}];

/// The registry entry of `lower-tensor-to-loop`.
pub fn info() -> PassInfo {
    PassInfo {
        name: "lower-tensor-to-loop",
        description: "lower mtensor functions to fused mloop nests over buffers",
        options: OPTIONS,
        create: |o| Ok(Box::new(LowerTensorToLoop { options: TensorToLoopOptions::from_pass_options(o)? })),
    }
}

/// The `lower-tensor-to-loop` pass.
#[derive(Debug, Default)]
pub struct LowerTensorToLoop {
    /// Its options.
    pub options: TensorToLoopOptions,
}

impl Pass for LowerTensorToLoop {
    fn name(&self) -> &'static str {
        "lower-tensor-to-loop"
    }

    fn options_text(&self) -> String {
        format!("accumulator-type={}", self.options.accumulator_type.name())
    }

    fn run(&mut self, ctx: &mut Context, root: OpId) -> PassResult {
        let target = conversion_target();
        let ops = ctx.walk_collect(root);
        for &op in &ops {
            let tensor_op = is_tensor_op(&target, ctx, op);
            if tensor_op && !convertible(ctx, op) {
                return Err(failed_to_legalize(ctx, op, "lower-tensor-to-loop has no lowering for it"));
            }
            if !tensor_op && !ctx.isa::<ReturnOp>(op) && touches_tensors(ctx, op) {
                return Err(op_error(
                    ctx,
                    op,
                    "has tensor operands or results, which lower-tensor-to-loop cannot lower (only mtensor ops \
                     and func.return are supported)",
                ));
            }
        }
        let funcs: Vec<OpId> = ops.into_iter().filter(|o| ctx.isa::<FuncOp>(*o)).collect();
        for f in funcs {
            lower_function(ctx, &target, f, &self.options)?;
        }
        // Legality: no mtensor op may be left. Ops of other dialects that do not touch
        // tensors stay as they are (the check is partial: only illegal ops fail).
        for op in ctx.walk_collect(root) {
            if op != root && is_tensor_op(&target, ctx, op) {
                return Err(failed_to_legalize(ctx, op, "it is not legal for the target"));
            }
        }
        Ok(())
    }
}

/// What the lowering leaves: `mloop`, `func` and `builtin` ops, and no `mtensor` op.
fn conversion_target() -> ConversionTarget {
    let mut t = ConversionTarget::new();
    t.add_illegal_dialect("mtensor").add_legal_dialect("mloop").add_legal_dialect("func").add_legal_dialect("builtin");
    t
}

/// Whether `op` is one the lowering must remove (an `mtensor` op: illegal for `target`).
fn is_tensor_op(target: &ConversionTarget, ctx: &Context, op: OpId) -> bool {
    target.is_legal(ctx, op) == Some(false)
}

/// Whether the lowering converts tensor op `op`: every elementwise op (through the
/// elementwise interface), constants, reductions, `dim` and the shape ops.
fn convertible(ctx: &Context, op: OpId) -> bool {
    elementwise(ctx, op).is_some()
        || ctx.isa::<tn::ConstantOp>(op)
        || ctx.isa::<tn::ReduceOp>(op)
        || ctx.isa::<tn::DimOp>(op)
        || ctx.isa::<tn::BroadcastOp>(op)
        || ctx.isa::<tn::TransposeOp>(op)
        || ctx.isa::<tn::ReshapeOp>(op)
        || ctx.isa::<tn::CollapseShapeOp>(op)
        || ctx.isa::<tn::ExpandShapeOp>(op)
}

/// Generates [`unary_state`] from the list of unary functions, so that every [`UnaryFn`]
/// has its `mloop` op and a new entry cannot be missed.
macro_rules! define_unary_state {
    ($(($v:ident, $s:literal, $op:ident, $($rest:tt)*)),* $(,)?) => {
        /// The `mloop` op applying unary function `f` to `a`, giving a `ty`.
        fn unary_state(f: UnaryFn, loc: Loc, a: Value, ty: Type) -> OperationState {
            match f {
                $(UnaryFn::$v => lp::$op::state(loc, a, ty),)*
            }
        }
    };
}
morf_ir::for_each_unary_fn!(define_unary_state);

/// Generates [`binary_state`] from the list of binary functions (see [`unary_state`]).
macro_rules! define_binary_state {
    ($(($v:ident, $s:literal, $op:ident, $($rest:tt)*)),* $(,)?) => {
        /// The `mloop` op applying binary function `f` to `a` and `b`, giving a `ty`.
        fn binary_state(f: BinaryFn, loc: Loc, a: Value, b: Value, ty: Type) -> OperationState {
            match f {
                $(BinaryFn::$v => lp::$op::state(loc, a, b, ty),)*
            }
        }
    };
}
morf_ir::for_each_binary_fn!(define_binary_state);

fn touches_tensors(ctx: &Context, op: OpId) -> bool {
    ctx.operands(op).iter().chain(ctx.results(op)).any(|v| ctx.is_tensor(ctx.value_type(*v)))
}

/// The buffer type with the shape and element type of a tensor type (other types unchanged).
fn buffer_type(ctx: &mut Context, t: Type) -> Type {
    match ctx.tensor_parts(t) {
        Some((shape, elem)) => {
            let shape = shape.to_vec();
            morf_loop::buffer_type(ctx, &shape, elem)
        }
        None => t,
    }
}

/// Why a tensor type cannot become a buffer (its element type is not one of the buffer's
/// element types), or `None`. Found by fuzzing: an `i32` tensor argument used to lower to an
/// `!mloop.buffer<i32>` that no later tool could read back.
fn unsupported_element(ctx: &Context, t: Type) -> Option<String> {
    let (_, elem) = ctx.tensor_parts(t)?;
    if morf_loop::types::is_buffer_element(ctx, elem) {
        return None;
    }
    Some(format!(
        "has type '{}', but lower-tensor-to-loop supports tensors of f16, bf16, f32, f64 or i1 elements only",
        ctx.type_to_string(t)
    ))
}

/// Lowers one function in place.
fn lower_function(ctx: &mut Context, target: &ConversionTarget, func: OpId, opts: &TensorToLoopOptions) -> PassResult {
    let Some(fty) = func_type(ctx, func) else { return Ok(()) };
    let Some((ins, outs)) = ctx.function_parts(fty).map(|(a, b)| (a.to_vec(), b.to_vec())) else { return Ok(()) };
    for (what, types) in [("argument", &ins), ("result", &outs)] {
        for (i, t) in types.iter().enumerate() {
            if let Some(msg) = unsupported_element(ctx, *t) {
                return Err(op_error(ctx, func, format!("{what} #{i} {msg}")));
            }
        }
    }
    let region = ctx.regions(func).first().copied();
    let entry = region.and_then(|r| ctx.entry_block(r));
    if let Some(entry) = entry {
        let ops: Vec<OpId> = ctx.block_ops(entry).collect();
        for op in ops {
            for (i, v) in ctx.results(op).iter().enumerate() {
                if let Some(msg) = unsupported_element(ctx, ctx.value_type(*v)) {
                    return Err(op_error(ctx, op, format!("result #{i} {msg}")));
                }
            }
        }
    }
    let new_ins: Vec<Type> = ins.iter().map(|t| buffer_type(ctx, *t)).collect();
    let new_outs: Vec<Type> = outs.iter().map(|t| buffer_type(ctx, *t)).collect();
    if let (Some(r), Some(entry)) = (region, entry) {
        if ctx.region_blocks(r).count() != 1 {
            return Err(op_error(ctx, func, "has more than one block, which lower-tensor-to-loop does not support"));
        }
        let has_tensor_ops = ctx.block_ops(entry).any(|o| is_tensor_op(target, ctx, o));
        if has_tensor_ops || ins != new_ins || outs != new_outs {
            Lowering::new(ctx, target, func, entry, opts)?.run()?;
        }
    }
    let nt = ctx.function_type(&new_ins, &new_outs);
    let a = ctx.type_attr(nt);
    ctx.set_attr(func, "function_type", a);
    Ok(())
}

/// Scalar ops are memoized by name, operands, attributes and result types.
type OpKey = (String, Vec<Value>, Vec<(String, Attr)>, Vec<Type>);

/// An insertion point of the nest being built: the function entry (level 0), the body of
/// the nest's outer loop (level 1; the function body itself for rank-0 nests), an inner
/// loop body (level 2).
struct Scope {
    block: BlockId,
    /// Insert before this op (or at the end of the block).
    before: Option<OpId>,
    ops: HashMap<OpKey, Value>,
    exprs: HashMap<(Value, Vec<Value>), Value>,
}

impl Scope {
    fn new(block: BlockId, before: Option<OpId>) -> Self {
        Scope { block, before, ops: HashMap::new(), exprs: HashMap::new() }
    }
}

struct Lowering<'a> {
    ctx: &'a mut Context,
    /// What the lowering leaves (its illegal ops are the tensor ops).
    target: &'a ConversionTarget,
    opts: &'a TensorToLoopOptions,
    entry: BlockId,
    ret: OpId,
    scopes: Vec<Scope>,
    /// The level at which each value created here (or a loop index) is defined.
    level: HashMap<Value, usize>,
    /// Values of index constants created here.
    index_consts: HashMap<Value, i64>,
    /// The buffer of each tensor value that has one (arguments and roots).
    buffers: HashMap<Value, Value>,
    /// The sizes of each tensor value, as index values at the function entry.
    dims: HashMap<Value, Vec<Value>>,
    /// Constant buffers of non-splat constants.
    const_buffers: HashMap<Value, Value>,
    /// Sizes known to be equal at run time (elementwise operands have one shape): a
    /// union-find forest over index values.
    same_size: HashMap<Value, Value>,
    /// Ops created at the function entry, in order (unused ones are erased at the end).
    entry_ops: Vec<OpId>,
    /// The nest that reads each buffer last (by nest number).
    last_read: HashMap<Value, usize>,
    /// The current nest number.
    nest: usize,
    /// The loc of the op being lowered.
    loc: Loc,
}

impl<'a> Lowering<'a> {
    fn new(
        ctx: &'a mut Context,
        target: &'a ConversionTarget,
        func: OpId,
        entry: BlockId,
        opts: &'a TensorToLoopOptions,
    ) -> Result<Self, Diagnostic> {
        let Some(ret) = ctx.block_last_op(entry).filter(|o| ctx.isa::<ReturnOp>(*o)) else {
            return Err(op_error(ctx, func, "body does not end with 'func.return'"));
        };
        let first = ctx.block_ops(entry).next();
        let scopes = vec![Scope::new(entry, first)];
        let mut buffers = HashMap::new();
        for a in ctx.block_args(entry).to_vec() {
            let t = ctx.value_type(a);
            if ctx.is_tensor(t) {
                let bt = buffer_type(ctx, t);
                ctx.set_value_type(a, bt);
                buffers.insert(a, a);
            }
        }
        Ok(Lowering {
            ctx,
            target,
            opts,
            entry,
            ret,
            scopes,
            level: HashMap::new(),
            index_consts: HashMap::new(),
            buffers,
            dims: HashMap::new(),
            const_buffers: HashMap::new(),
            last_read: HashMap::new(),
            same_size: HashMap::new(),
            entry_ops: Vec::new(),
            nest: 0,
            loc: Loc::Unknown,
        })
    }

    fn run(mut self) -> PassResult {
        let body: Vec<OpId> = self.ctx.block_ops(self.entry).collect();
        let returned: Vec<Value> = self.ctx.operands(self.ret).to_vec();
        // The values the results need; reduce results among them are roots.
        let mut needed: HashSet<Value> = HashSet::new();
        let mut stack: Vec<Value> = returned.clone();
        while let Some(v) = stack.pop() {
            if !needed.insert(v) {
                continue;
            }
            if let Some(d) = self.ctx.defining_op(v) {
                // Sizes come from the shapes, not from the values.
                if self.is_tensor_op(d) && !self.ctx.isa::<tn::DimOp>(d) {
                    stack.extend(self.ctx.operands(d).iter().copied());
                }
            }
        }
        // Sizes of every needed value, so that all equal sizes are known before any nest.
        for &op in &body {
            if self.is_tensor_op(op) {
                for v in self.ctx.results(op).to_vec() {
                    if needed.contains(&v) && self.ctx.is_tensor(self.ctx.value_type(v)) {
                        self.dims(v)?;
                    }
                }
            }
        }
        // Roots: needed reduce results and returned values, in program order. A reduce whose
        // only use is a chain of single-operand elementwise ops (`convert`, `neg`, ...)
        // ending in a returned value stores that value directly (epilogue fusion).
        let mut roots: Vec<(Value, Vec<OpId>, Value)> = Vec::new();
        let mut fused_targets: HashSet<Value> = HashSet::new();
        for &op in &body {
            if !self.is_tensor_op(op) || self.ctx.isa::<tn::DimOp>(op) {
                continue;
            }
            let v = self.ctx.result(op, 0);
            if !needed.contains(&v) || fused_targets.contains(&v) {
                continue;
            }
            if self.ctx.isa::<tn::ReduceOp>(op) {
                let (chain, target) = self.epilogue_chain(v, &returned);
                if !chain.is_empty() {
                    fused_targets.insert(target);
                }
                roots.push((v, chain, target));
            } else if returned.contains(&v) {
                roots.push((v, Vec::new(), v));
            }
        }
        // One nest per root.
        let mut nest_end: Vec<OpId> = Vec::new();
        let mut intermediate: Vec<Value> = Vec::new();
        let mut own_nest: HashMap<Value, usize> = HashMap::new();
        for (k, (v, chain, target)) in roots.iter().enumerate() {
            self.nest = k;
            let op = self.ctx.defining_op(*v).expect("roots are op results");
            self.loc = self.ctx.op_loc(op);
            let (buf, end) = if let Some(red) = self.ctx.dyn_cast::<tn::ReduceOp>(op) {
                self.reduce_nest(red, chain, *target)?
            } else {
                self.elementwise_nest(*v)?
            };
            self.buffers.insert(*target, buf);
            own_nest.insert(buf, k);
            if !returned.contains(target) {
                intermediate.push(buf);
            }
            nest_end.push(end);
        }
        // Free intermediate buffers after the nest that reads them last.
        for buf in intermediate {
            if let Some(&k) = self.last_read.get(&buf).or(own_nest.get(&buf)) {
                let d = self.ctx.create_op(lp::DeallocOp::state(self.loc, buf));
                self.ctx.insert_op_after(nest_end[k], d);
            }
        }
        // Return buffers (and entry-level sizes for returned indices).
        for (i, v) in returned.iter().enumerate() {
            if let Some(&b) = self.buffers.get(v) {
                self.ctx.set_operand(self.ret, i, b);
            } else if self.ctx.defining_op(*v).is_some_and(|d| self.ctx.isa::<tn::DimOp>(d)) {
                let iv = self.index_value(*v)?;
                self.ctx.set_operand(self.ret, i, iv);
            }
        }
        // Other users of `mtensor.dim` results read the entry-level size instead.
        for &op in &body {
            if let Some(dim) = self.ctx.dyn_cast::<tn::DimOp>(op) {
                let r = dim.result(self.ctx);
                if self.ctx.uses(r).iter().any(|u| !self.is_tensor_op(u.op)) {
                    let iv = self.index_value(r)?;
                    self.ctx.replace_all_uses_with(r, iv);
                }
            }
        }
        // Entry-level ops (all pure: sizes, constants) that no nest used.
        for &op in self.entry_ops.iter().rev() {
            if self.ctx.results(op).iter().all(|r| self.ctx.uses(*r).is_empty()) {
                self.ctx.erase_op(op);
            }
        }
        // Erase the tensor ops, users first.
        for &op in body.iter().rev() {
            if self.is_tensor_op(op) {
                if let Some(u) = self.ctx.results(op).iter().flat_map(|r| self.ctx.uses(*r)).next() {
                    let user = u.op;
                    return Err(op_error(self.ctx, user, "uses a tensor value that lower-tensor-to-loop cannot lower"));
                }
                self.ctx.erase_op(op);
            }
        }
        Ok(())
    }

    /// The chain of single-use, single-operand elementwise ops from reduce result `r` to a
    /// returned value, and that value (an empty chain and `r` when there is none).
    fn epilogue_chain(&self, r: Value, returned: &[Value]) -> (Vec<OpId>, Value) {
        let mut chain = Vec::new();
        let mut cur = r;
        while !returned.contains(&cur) {
            let uses = self.ctx.uses(cur);
            if uses.len() != 1 {
                return (Vec::new(), r);
            }
            let u = uses[0].op;
            let unary_or_convert = self.is_tensor_op(u)
                && matches!(elementwise(self.ctx, u), Some(Elementwise::Unary(_) | Elementwise::Convert));
            if !unary_or_convert {
                return (Vec::new(), r);
            }
            chain.push(u);
            cur = self.ctx.result(u, 0);
        }
        (chain, cur)
    }

    // ----- emission -----

    /// Whether `op` is a tensor op (one the lowering removes).
    fn is_tensor_op(&self, op: OpId) -> bool {
        is_tensor_op(self.target, self.ctx, op)
    }

    fn index_type(&mut self) -> Type {
        self.ctx.index_type()
    }

    fn elem(&self, v: Value) -> Type {
        self.ctx.element_type(self.ctx.value_type(v))
    }

    fn shape(&self, v: Value) -> Vec<Dim> {
        self.ctx.shape_of(self.ctx.value_type(v)).unwrap_or(&[]).to_vec()
    }

    /// Inserts `op` at the insertion point of scope `level`.
    fn place(&mut self, level: usize, op: OpId) {
        match self.scopes[level].before {
            Some(b) => self.ctx.insert_op_before(b, op),
            None => {
                let blk = self.scopes[level].block;
                self.ctx.append_op(blk, op)
            }
        }
    }

    /// Creates a side-effecting or region op at scope `level` (never memoized).
    fn emit_at(&mut self, level: usize, st: OperationState) -> OpId {
        let op = self.ctx.create_op(st);
        self.place(level, op);
        if level == 0 {
            self.entry_ops.push(op);
        }
        for r in self.ctx.results(op).to_vec() {
            self.level.insert(r, level);
        }
        op
    }

    /// Creates a pure single-result op in the outermost scope where its operands are
    /// defined (at least `min_level`), once per scope.
    fn emit(&mut self, st: OperationState, min_level: usize) -> Value {
        let key: OpKey = (st.name.clone(), st.operands.clone(), st.attrs.clone(), st.result_types.clone());
        let lvl = st.operands.iter().map(|v| self.level.get(v).copied().unwrap_or(0)).fold(min_level, usize::max);
        let lvl = lvl.min(self.scopes.len() - 1);
        for s in self.scopes[..=lvl].iter().rev() {
            if let Some(&v) = s.ops.get(&key) {
                return v;
            }
        }
        let op = self.emit_at(lvl, st);
        let v = self.ctx.result(op, 0);
        self.scopes[lvl].ops.insert(key, v);
        v
    }

    fn index_const(&mut self, n: i64) -> Value {
        let it = self.index_type();
        let a = self.ctx.int_attr(n, it);
        let v = self.emit(lp::ConstantOp::state(self.loc, it, a), 0);
        self.index_consts.insert(v, n);
        v
    }

    fn float_const(&mut self, x: f64, ty: Type) -> Value {
        let a = if self.ctx.float_kind(ty).is_some() {
            self.ctx.float_attr(x, ty)
        } else if matches!(self.ctx.type_data(ty), TypeData::Integer(1)) {
            self.ctx.bool_attr(x != 0.0)
        } else {
            self.ctx.int_attr(x as i64, ty)
        };
        self.emit(lp::ConstantOp::state(self.loc, ty, a), 0)
    }

    /// Index arithmetic (`add sub mul div min`), folded when it is trivial.
    fn index_op(&mut self, f: BinaryFn, a: Value, b: Value) -> Value {
        let (ca, cb) = (self.index_consts.get(&a).copied(), self.index_consts.get(&b).copied());
        if let (Some(x), Some(y)) = (ca, cb) {
            let folded = match f {
                BinaryFn::Add => Some(x + y),
                BinaryFn::Sub => Some(x - y),
                BinaryFn::Mul => Some(x * y),
                BinaryFn::Div if y > 0 => Some(x.div_euclid(y)),
                BinaryFn::Min => Some(x.min(y)),
                _ => None,
            };
            if let Some(n) = folded {
                return self.index_const(n);
            }
        }
        match (f, ca, cb) {
            (BinaryFn::Add, Some(0), _) | (BinaryFn::Mul, Some(1), _) => return b,
            (BinaryFn::Add | BinaryFn::Sub, _, Some(0)) | (BinaryFn::Mul | BinaryFn::Div, _, Some(1)) => return a,
            (BinaryFn::Mul, Some(0), _) | (BinaryFn::Mul, _, Some(0)) => return self.index_const(0),
            _ => {}
        }
        if f == BinaryFn::Min && a == b {
            return a;
        }
        let it = self.index_type();
        self.emit(binary_state(f, self.loc, a, b, it), 0)
    }

    /// The index remainder `a rem b`, folded when it is trivial.
    fn index_rem(&mut self, a: Value, b: Value) -> Value {
        match (self.index_consts.get(&a).copied(), self.index_consts.get(&b).copied()) {
            (Some(x), Some(y)) if y > 0 => return self.index_const(x.rem_euclid(y)),
            (_, Some(1)) => return self.index_const(0),
            _ => {}
        }
        let it = self.index_type();
        self.emit(lp::RemOp::state(self.loc, a, b, it), 0)
    }

    fn alloc(&mut self, v: Value) -> Result<Value, Diagnostic> {
        let t = self.ctx.value_type(v);
        let bt = buffer_type(self.ctx, t);
        let dims = self.dims(v)?;
        let dynamic: Vec<Value> =
            self.shape(v).iter().zip(&dims).filter(|(d, _)| **d == Dim::Dynamic).map(|(_, s)| *s).collect();
        let op = self.ctx.create_op(lp::AllocOp::state(self.loc, &dynamic, bt));
        self.ctx.insert_op_before(self.ret, op);
        Ok(self.ctx.result(op, 0))
    }

    /// Creates `mloop.parallel` over `ubs` before the return; returns it and its body
    /// (ending with `mloop.yield`) and indices.
    fn parallel(&mut self, ubs: &[Value]) -> (OpId, BlockId, Vec<Value>) {
        let (c0, c1) = (self.index_const(0), self.index_const(1));
        let mut operands = vec![c0; ubs.len()];
        operands.extend_from_slice(ubs);
        operands.extend(std::iter::repeat_n(c1, ubs.len()));
        let it = self.index_type();
        let r = self.ctx.create_region();
        let body = self.ctx.create_block(r, &vec![it; ubs.len()]);
        let y = self.ctx.create_op(lp::YieldOp::state(self.loc, &[]));
        self.ctx.append_op(body, y);
        let op = self.ctx.create_op(lp::ParallelOp::state(self.loc, &operands).region(r));
        self.ctx.insert_op_before(self.ret, op);
        let ivs = self.ctx.block_args(body).to_vec();
        (op, body, ivs)
    }

    /// Opens the scope of a nest's outer level: the body of `par`, or the function body.
    fn open_outer(&mut self, body: Option<(BlockId, OpId)>) {
        let scope = match body {
            Some((b, _)) => Scope::new(b, self.ctx.block_last_op(b)),
            None => Scope::new(self.entry, Some(self.ret)),
        };
        self.scopes.truncate(1);
        self.scopes.push(scope);
    }

    fn store(&mut self, level: usize, val: Value, buf: Value, idx: &[Value]) -> OpId {
        self.emit_at(level, lp::StoreOp::state(self.loc, val, buf, idx))
    }

    /// The nest of a root that is not a reduction: returns its buffer and its last op in
    /// the function body.
    fn elementwise_nest(&mut self, v: Value) -> Result<(Value, OpId), Diagnostic> {
        let buf = self.alloc(v)?;
        let dims = self.dims(v)?;
        let (body, ivs) = if dims.is_empty() {
            (None, Vec::new())
        } else {
            let (op, body, ivs) = self.parallel(&dims);
            (Some((body, op)), ivs)
        };
        self.open_outer(body);
        for &iv in &ivs {
            self.level.insert(iv, 1);
        }
        let val = self.gen(v, &ivs)?;
        let st = self.store(1, val, buf, &ivs);
        self.scopes.truncate(1);
        Ok((buf, body.map(|(_, op)| op).unwrap_or(st)))
    }

    /// The nest of an `mtensor.reduce`, storing `target`: its result, or the end of an
    /// epilogue `chain` of single-operand elementwise ops applied to it.
    fn reduce_nest(&mut self, red: tn::ReduceOp, chain: &[OpId], target: Value) -> Result<(Value, OpId), Diagnostic> {
        let op = red.id();
        let input = red.input(self.ctx);
        let result = red.result(self.ctx);
        let kind = red.kind(self.ctx).unwrap_or(ReduceKind::Sum);
        let rdims: Vec<usize> = red.dims(self.ctx).unwrap_or_default().into_iter().map(|d| d as usize).collect();
        let keepdim = red.keepdim(self.ctx).is_some();
        let in_elem = self.elem(input);
        let out_elem = self.elem(result);
        let acc_ty = match self.ctx.float_kind(in_elem) {
            Some(FloatKind::F64) => self.ctx.f64_type(),
            _ => self.ctx.float_type(self.opts.accumulator_type),
        };
        let xd = self.dims(input)?;
        let rank = xd.len();
        let kept: Vec<usize> = (0..rank).filter(|d| !rdims.contains(d)).collect();
        let identity = match kind {
            ReduceKind::Prod => 1.0,
            ReduceKind::Max => f64::NEG_INFINITY,
            ReduceKind::Min => f64::INFINITY,
            ReduceKind::Sum | ReduceKind::Mean => 0.0,
        };
        let init = self.float_const(identity, acc_ty);
        let count = if kind == ReduceKind::Mean {
            let mut n = self.index_const(1);
            for &d in &rdims {
                n = self.index_op(BinaryFn::Mul, n, xd[d]);
            }
            Some(self.emit(lp::ConvertOp::state(self.loc, n, acc_ty), 0))
        } else {
            None
        };
        let buf = self.alloc(target)?;
        let kept_ubs: Vec<Value> = kept.iter().map(|&d| xd[d]).collect();
        let (outer, kept_ivs) = if kept.is_empty() {
            (None, Vec::new())
        } else {
            let (pop, body, ivs) = self.parallel(&kept_ubs);
            (Some((body, pop)), ivs)
        };
        self.open_outer(outer);
        for &iv in &kept_ivs {
            self.level.insert(iv, 1);
        }
        // The reduction over the reduced dims.
        let (c0, c1) = (self.index_const(0), self.index_const(1));
        let mut operands = vec![c0; rdims.len()];
        operands.extend(rdims.iter().map(|&d| xd[d]));
        operands.extend(std::iter::repeat_n(c1, rdims.len()));
        operands.push(init);
        let it = self.index_type();
        let r = self.ctx.create_region();
        let rbody = self.ctx.create_block(r, &vec![it; rdims.len()]);
        let red_ivs = self.ctx.block_args(rbody).to_vec();
        let kname = if kind == ReduceKind::Mean { ReduceKind::Sum.name() } else { kind.name() };
        let ka = self.ctx.str_attr(kname);
        let red = self.emit_at(1, lp::ReduceOp::state(self.loc, &operands, acc_ty, ka).region(r));
        let saved = self.scopes[1].before;
        self.scopes[1].before = Some(red);
        self.scopes.push(Scope::new(rbody, None));
        for &iv in &red_ivs {
            self.level.insert(iv, 2);
        }
        let mut full = Vec::with_capacity(rank);
        let (mut ki, mut ri) = (kept_ivs.iter(), red_ivs.iter());
        for d in 0..rank {
            let next = if rdims.contains(&d) { ri.next() } else { ki.next() };
            full.push(*next.expect("one index per dim"));
        }
        let mut val = self.gen(input, &full)?;
        if in_elem != acc_ty {
            val = self.emit(lp::ConvertOp::state(self.loc, val, acc_ty), 0);
        }
        let y = self.ctx.create_op(lp::YieldOp::state(self.loc, &[val]));
        self.ctx.append_op(rbody, y);
        self.scopes.pop();
        self.scopes[1].before = saved;
        // Epilogue: mean, conversion, store.
        let mut res = self.ctx.result(red, 0);
        if let Some(n) = count {
            res = self.emit(lp::DivOp::state(self.loc, res, n, acc_ty), 1);
        }
        if out_elem != acc_ty {
            res = self.emit(lp::ConvertOp::state(self.loc, res, out_elem), 1);
        }
        for &u in chain {
            let (from, to) = (self.elem(self.ctx.operand(u, 0)), self.elem(self.ctx.result(u, 0)));
            self.loc = self.ctx.op_loc(u);
            match elementwise(self.ctx, u) {
                Some(Elementwise::Unary(f)) => res = self.emit(unary_state(f, self.loc, res, to), 1),
                _ if from != to => res = self.emit(lp::ConvertOp::state(self.loc, res, to), 1),
                _ => {}
            }
        }
        self.loc = self.ctx.op_loc(op);
        let mut idx = Vec::new();
        let mut ki = kept_ivs.iter();
        for d in 0..rank {
            if !rdims.contains(&d) {
                idx.push(*ki.next().expect("one index per kept dim"));
            } else if keepdim {
                idx.push(c0);
            }
        }
        let st = self.store(1, res, buf, &idx);
        self.scopes.truncate(1);
        Ok((buf, outer.map(|(_, op)| op).unwrap_or(st)))
    }

    // ----- sizes -----

    /// The index value an `index` operand of a tensor op stands for, at the function entry.
    fn index_value(&mut self, v: Value) -> Result<Value, Diagnostic> {
        match self.ctx.defining_op(v) {
            None => Ok(v),
            Some(d) if self.ctx.isa::<tn::DimOp>(d) => {
                let dim = tn::DimOp(d);
                let i = dim.index(self.ctx).unwrap_or(0) as usize;
                let dims = self.dims(dim.source(self.ctx))?;
                dims.get(i).copied().ok_or_else(|| op_error(self.ctx, d, "dim index is out of range"))
            }
            Some(d) => Err(op_error(
                self.ctx,
                d,
                "defines a size that lower-tensor-to-loop cannot compute at the function entry (sizes must come from \
                 'mtensor.dim' or function arguments)",
            )),
        }
    }

    /// The sizes of tensor value `v`, as index values at the function entry.
    fn dims(&mut self, v: Value) -> Result<Vec<Value>, Diagnostic> {
        if let Some(d) = self.dims.get(&v) {
            return Ok(d.clone());
        }
        let shape = self.shape(v);
        let def = self.ctx.defining_op(v);
        // Where the dynamic dims come from.
        let derived: Option<Vec<Value>> = match def {
            _ if shape.iter().all(|d| *d != Dim::Dynamic) => None,
            None => None,
            Some(op) => Some(self.derived_dims(op, &shape)?),
        };
        let mut out = Vec::with_capacity(shape.len());
        for (i, d) in shape.iter().enumerate() {
            let s = match (d, &derived) {
                (Dim::Static(n), _) => self.index_const(*n as i64),
                (Dim::Dynamic, Some(dd)) => dd[i],
                (Dim::Dynamic, None) => {
                    let Some(&buf) = self.buffers.get(&v) else {
                        return Err(Diagnostic::error(
                            self.ctx.value(v).loc,
                            "lower-tensor-to-loop cannot size this value",
                        ));
                    };
                    let it = self.index_type();
                    let a = self.ctx.i64_attr(i as i64);
                    self.emit(lp::DimOp::state(self.loc, buf, it, a), 0)
                }
            };
            out.push(s);
        }
        self.dims.insert(v, out.clone());
        Ok(out)
    }

    /// The sizes of the result of tensor op `op`, of shape `shape`, from its operands' sizes
    /// and its size operands.
    fn derived_dims(&mut self, op: OpId, shape: &[Dim]) -> Result<Vec<Value>, Diagnostic> {
        if elementwise(self.ctx, op).is_some() {
            // Every operand has the result's shape.
            let operands = self.ctx.operands(op).to_vec();
            let first = self.dims(operands[0])?;
            for &o in &operands[1..] {
                let d = self.dims(o)?;
                for (a, b) in first.iter().zip(d) {
                    self.union(*a, b);
                }
            }
            return Ok(first);
        }
        if let Some(t) = self.ctx.dyn_cast::<tn::TransposeOp>(op) {
            let perm = t.perm(self.ctx).unwrap_or_default();
            let d = self.dims(t.input(self.ctx))?;
            return Ok(perm.iter().map(|&p| d[p as usize]).collect());
        }
        if let Some(r) = self.ctx.dyn_cast::<tn::ReduceOp>(op) {
            let rd = r.dims(self.ctx).unwrap_or_default();
            let keep = r.keepdim(self.ctx).is_some();
            let d = self.dims(r.input(self.ctx))?;
            let one = self.index_const(1);
            let mut out = Vec::new();
            for (i, s) in d.into_iter().enumerate() {
                if !rd.contains(&(i as i64)) {
                    out.push(s);
                } else if keep {
                    out.push(one);
                }
            }
            return Ok(out);
        }
        if let Some(c) = self.ctx.dyn_cast::<tn::CollapseShapeOp>(op) {
            let groups = groups(c.reassociation(self.ctx));
            let d = self.dims(c.input(self.ctx))?;
            let mut out = Vec::new();
            for g in groups {
                let mut p = self.index_const(1);
                for i in g {
                    p = self.index_op(BinaryFn::Mul, p, d[i]);
                }
                out.push(p);
            }
            return Ok(out);
        }
        // Broadcast, reshape and expand_shape: one size operand per dynamic result dim.
        let sizes = if let Some(b) = self.ctx.dyn_cast::<tn::BroadcastOp>(op) {
            b.sizes(self.ctx).to_vec()
        } else if let Some(r) = self.ctx.dyn_cast::<tn::ReshapeOp>(op) {
            r.sizes(self.ctx).to_vec()
        } else if let Some(e) = self.ctx.dyn_cast::<tn::ExpandShapeOp>(op) {
            e.sizes(self.ctx).to_vec()
        } else {
            return Err(failed_to_legalize(self.ctx, op, "lower-tensor-to-loop cannot size its result"));
        };
        let mut sizes = sizes.into_iter();
        let mut out = Vec::new();
        for d in shape {
            match d {
                Dim::Static(n) => out.push(self.index_const(*n as i64)),
                Dim::Dynamic => {
                    let s = sizes.next().ok_or_else(|| op_error(self.ctx, op, "has too few size operands"))?;
                    out.push(self.index_value(s)?);
                }
            }
        }
        Ok(out)
    }

    fn find(&self, mut v: Value) -> Value {
        while let Some(&p) = self.same_size.get(&v) {
            v = p;
        }
        v
    }

    fn union(&mut self, a: Value, b: Value) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.same_size.insert(rb, ra);
        }
    }

    /// `idx` over `dims` as one row-major position.
    fn linearize(&mut self, idx: &[Value], dims: &[Value]) -> Value {
        let mut acc = match idx.first() {
            Some(&i) => i,
            None => return self.index_const(0),
        };
        for k in 1..idx.len() {
            let m = self.index_op(BinaryFn::Mul, acc, dims[k]);
            acc = self.index_op(BinaryFn::Add, m, idx[k]);
        }
        acc
    }

    /// A row-major position as one index per dim of `dims`.
    fn delinearize(&mut self, mut flat: Value, dims: &[Value]) -> Vec<Value> {
        let mut out = vec![flat; dims.len()];
        for k in (1..dims.len()).rev() {
            out[k] = self.index_rem(flat, dims[k]);
            flat = self.index_op(BinaryFn::Div, flat, dims[k]);
        }
        if !dims.is_empty() {
            out[0] = flat;
        }
        out
    }

    // ----- values at an index -----

    fn load(&mut self, buf: Value, idx: &[Value], elem: Type) -> Value {
        self.last_read.insert(buf, self.nest);
        self.emit(lp::LoadOp::state(self.loc, buf, idx, elem), 1)
    }

    /// Emits the scalar element `idx` of tensor value `v`.
    fn gen(&mut self, v: Value, idx: &[Value]) -> Result<Value, Diagnostic> {
        let key = (v, idx.to_vec());
        for s in self.scopes.iter().rev() {
            if let Some(&r) = s.exprs.get(&key) {
                return Ok(r);
            }
        }
        let r = self.gen_uncached(v, idx)?;
        self.scopes.last_mut().expect("a nest scope").exprs.insert(key, r);
        Ok(r)
    }

    fn gen_uncached(&mut self, v: Value, idx: &[Value]) -> Result<Value, Diagnostic> {
        let elem = self.elem(v);
        if let Some(&buf) = self.buffers.get(&v) {
            return Ok(self.load(buf, idx, elem));
        }
        let Some(op) = self.ctx.defining_op(v) else {
            return Err(Diagnostic::error(self.ctx.value(v).loc, "lower-tensor-to-loop cannot lower this value"));
        };
        let saved_loc = self.loc;
        self.loc = self.ctx.op_loc(op);
        let r = self.gen_op(op, v, idx, elem);
        self.loc = saved_loc;
        r
    }

    fn gen_op(&mut self, op: OpId, v: Value, idx: &[Value], elem: Type) -> Result<Value, Diagnostic> {
        if let Some(ew) = elementwise(self.ctx, op) {
            return self.gen_elementwise(op, ew, idx, elem);
        }
        if let Some(c) = self.ctx.dyn_cast::<tn::ConstantOp>(op) {
            let a = c.value(self.ctx).ok_or_else(|| op_error(self.ctx, op, "has no 'value'"))?;
            if let Some(x) = self.ctx.dense_splat_value(a) {
                return Ok(self.float_const(x, elem));
            }
            let buf = match self.const_buffers.get(&v) {
                Some(&b) => b,
                None => {
                    let t = self.ctx.value_type(v);
                    let bt = buffer_type(self.ctx, t);
                    let c = self.emit_at(0, lp::ConstantBufferOp::state(self.loc, bt, a));
                    let b = self.ctx.result(c, 0);
                    self.const_buffers.insert(v, b);
                    b
                }
            };
            return Ok(self.load(buf, idx, elem));
        }
        if let Some(b) = self.ctx.dyn_cast::<tn::BroadcastOp>(op) {
            let input = b.input(self.ctx);
            let map = b.dims(self.ctx).unwrap_or_default();
            let in_shape = self.shape(input);
            let in_dims = self.dims(input)?;
            let out_dims = self.dims(v)?;
            let mut oidx = Vec::with_capacity(map.len());
            for (i, &d) in map.iter().enumerate() {
                let d = d as usize;
                let x = match in_shape[i] {
                    Dim::Static(1) => self.index_const(0),
                    Dim::Static(_) => idx[d],
                    Dim::Dynamic if self.find(in_dims[i]) == self.find(out_dims[d]) => idx[d],
                    Dim::Dynamic => {
                        let one = self.index_const(1);
                        let last = self.index_op(BinaryFn::Sub, in_dims[i], one);
                        self.index_op(BinaryFn::Min, idx[d], last)
                    }
                };
                oidx.push(x);
            }
            return self.gen(input, &oidx);
        }
        if let Some(t) = self.ctx.dyn_cast::<tn::TransposeOp>(op) {
            let perm = t.perm(self.ctx).unwrap_or_default();
            let mut oidx = idx.to_vec();
            for (i, &p) in perm.iter().enumerate() {
                oidx[p as usize] = idx[i];
            }
            return self.gen(t.input(self.ctx), &oidx);
        }
        if let Some(r) = self.ctx.dyn_cast::<tn::ReshapeOp>(op) {
            let input = r.input(self.ctx);
            let out_dims = self.dims(v)?;
            let in_dims = self.dims(input)?;
            let flat = self.linearize(idx, &out_dims);
            let oidx = self.delinearize(flat, &in_dims);
            return self.gen(input, &oidx);
        }
        if let Some(c) = self.ctx.dyn_cast::<tn::CollapseShapeOp>(op) {
            let input = c.input(self.ctx);
            let in_dims = self.dims(input)?;
            let groups = groups(c.reassociation(self.ctx));
            let mut oidx = Vec::with_capacity(in_dims.len());
            if groups.is_empty() {
                let z = self.index_const(0);
                oidx = vec![z; in_dims.len()];
            }
            for (g, dims) in groups.iter().enumerate() {
                let gd: Vec<Value> = dims.iter().map(|&d| in_dims[d]).collect();
                oidx.extend(self.delinearize(idx[g], &gd));
            }
            return self.gen(input, &oidx);
        }
        if let Some(e) = self.ctx.dyn_cast::<tn::ExpandShapeOp>(op) {
            let out_dims = self.dims(v)?;
            let groups = groups(e.reassociation(self.ctx));
            let mut oidx = Vec::with_capacity(groups.len());
            for dims in &groups {
                let gi: Vec<Value> = dims.iter().map(|&d| idx[d]).collect();
                let gd: Vec<Value> = dims.iter().map(|&d| out_dims[d]).collect();
                oidx.push(self.linearize(&gi, &gd));
            }
            return self.gen(e.input(self.ctx), &oidx);
        }
        Err(failed_to_legalize(self.ctx, op, "lower-tensor-to-loop has no lowering for it"))
    }

    /// The scalar code of elementwise op `op` (function `ew`) at `idx`: the `mloop` op of
    /// the same function on the operands' scalars.
    fn gen_elementwise(&mut self, op: OpId, ew: Elementwise, idx: &[Value], elem: Type) -> Result<Value, Diagnostic> {
        let operands = self.ctx.operands(op).to_vec();
        let mut xs = Vec::with_capacity(operands.len());
        for &o in &operands {
            xs.push(self.gen(o, idx)?);
        }
        let arity = |n: usize| -> Result<(), Diagnostic> {
            if xs.len() == n {
                Ok(())
            } else {
                Err(op_error(self.ctx, op, format!("expects {n} operands, got {}", xs.len())))
            }
        };
        let st = match ew {
            Elementwise::Unary(f) => {
                arity(1)?;
                unary_state(f, self.loc, xs[0], elem)
            }
            Elementwise::Binary(f) => {
                arity(2)?;
                binary_state(f, self.loc, xs[0], xs[1], elem)
            }
            Elementwise::Cmp(p) => {
                arity(2)?;
                let pa = self.ctx.str_attr(CmpPredicate::name(p));
                lp::CmpOp::state(self.loc, xs[0], xs[1], elem, pa)
            }
            Elementwise::Select => {
                arity(3)?;
                lp::SelectOp::state(self.loc, xs[0], xs[1], xs[2], elem)
            }
            Elementwise::Convert => {
                arity(1)?;
                if self.elem(operands[0]) == elem {
                    return Ok(xs[0]);
                }
                lp::ConvertOp::state(self.loc, xs[0], elem)
            }
        };
        Ok(self.emit(st, 0))
    }
}

/// The reassociation groups of a `collapse_shape` or `expand_shape` (none when absent).
fn groups(g: Option<Vec<Vec<i64>>>) -> Vec<Vec<usize>> {
    g.unwrap_or_default().into_iter().map(|g| g.into_iter().map(|x| x as usize).collect()).collect()
}
