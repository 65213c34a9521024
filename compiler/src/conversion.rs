//! The dialect conversion framework: a [`ConversionTarget`] that says which ops are legal,
//! conversion patterns that rewrite one illegal op (typed, through [`OpConversionPattern`]),
//! and a driver that applies them as a **partial** or **full** conversion, ending in a
//! located `failed to legalize` diagnostic at the first op it could not convert.
//!
//! The model follows MLIR's `DialectConversion`, simplified:
//!
//! - Legality is decided per op: by an explicit op entry (legal, illegal, or legal when a
//!   predicate holds), else by its dialect's entry, else it is *unknown*.
//! - The driver visits the ops under the root in pre-order (definitions before uses). An op
//!   that is not legal is offered to the patterns rooted at its kind, highest benefit first;
//!   a pattern receives the op's operands already **remapped** to the values that replaced
//!   them, builds new IR before the op through the [`ConversionRewriter`], and replaces or
//!   erases the op. Ops a pattern creates are legalized the same way.
//! - A replacement may change types (a tensor becomes a buffer): the old op stays in place
//!   until the end, when every remaining use of its results must be by another replaced op,
//!   or the types must match (then the use is rewired); otherwise the conversion fails at the
//!   user.
//! - **Full** conversion fails on an op that is illegal or unknown after patterns; **partial**
//!   conversion fails only on ops explicitly illegal, and leaves unknown ops as they are.
//!
//! There is no rollback: on failure the IR is left partly converted, and the pass that ran
//! the conversion fails (the pass manager then discards the module). Patterns that cannot
//! apply must return `Ok(false)` before changing anything.
//!
//! ```
//! use morf_ir::conversion::{apply_full_conversion, typed, ConversionRewriter, ConversionTarget, OpConversionPattern};
//! use morf_ir::opdef::{AnyType, Float, Op};
//! use morf_ir::{define_op, Context, Diagnostic, Value};
//!
//! define_op! {
//!     /// `%r = demo.double %a : f32`.
//!     pub struct DoubleOp("demo.double") {
//!         summary: "2 * a",
//!         operands: [input: Float],
//!         results: [output: AnyType],
//!     }
//! }
//! define_op! {
//!     /// `%r = demo.add %a, %b : f32`.
//!     pub struct AddOp("demo.add") {
//!         summary: "a + b",
//!         operands: [lhs: Float, rhs: Float],
//!         results: [output: AnyType],
//!     }
//! }
//!
//! struct DoubleToAdd;
//! impl OpConversionPattern for DoubleToAdd {
//!     type Op = DoubleOp;
//!     fn name(&self) -> &'static str { "DoubleToAdd" }
//!     fn match_and_rewrite(&self, op: DoubleOp, operands: &[Value], rw: &mut ConversionRewriter<'_>)
//!         -> Result<bool, Diagnostic> {
//!         let (loc, ty) = (rw.ctx().op_loc(op.id()), rw.ctx().value_type(op.output(rw.ctx())));
//!         let add = rw.create_before(op.id(), AddOp::state(loc, operands[0], operands[0], ty));
//!         let sum = rw.ctx().result(add, 0);
//!         rw.replace_op(op.id(), &[sum]);
//!         Ok(true)
//!     }
//! }
//!
//! let mut ctx = Context::new();
//! ctx.registry_mut().register_op(DoubleOp::info());
//! ctx.registry_mut().register_op(AddOp::info());
//! let src = "func.func @f(%a: f32) -> f32 {\n  %d = \"demo.double\"(%a) : (f32) -> f32\n  return %d : f32\n}";
//! let m = morf_ir::parse_source(&mut ctx, "f.mlir", src, 0).unwrap();
//! let mut target = ConversionTarget::new();
//! target.add_legal_dialect("func").add_legal_dialect("builtin").add_legal_op::<AddOp>().add_illegal_op::<DoubleOp>();
//! apply_full_conversion(&mut ctx, m, &target, &[typed(DoubleToAdd)]).unwrap();
//! let text = morf_ir::print_op(&ctx, m, &Default::default());
//! assert!(text.contains("demo.add") && !text.contains("demo.double"));
//! ```

use std::collections::{HashMap, HashSet};

use crate::attrs::Attr;
use crate::context::{BlockId, Context, OpId, OperationState, RegionId, Value};
use crate::diag::Diagnostic;
use crate::location::Loc;
use crate::opdef::Op;
use crate::registry::OpInfo;
use crate::rewrite::Uniquer;
use crate::types::Type;

/// Whether an op may remain after a conversion.
#[derive(Copy, Clone)]
pub enum Legality {
    /// It may remain.
    Legal,
    /// It must be converted.
    Illegal,
    /// It may remain when the predicate holds.
    Dynamic(fn(&Context, OpId) -> bool),
}

/// What may remain after a conversion: op kinds and dialects marked legal, illegal or
/// legal under a condition. An op kind's entry wins over its dialect's.
#[derive(Clone, Default)]
pub struct ConversionTarget {
    ops: HashMap<&'static str, (&'static OpInfo, Legality)>,
    dialects: HashMap<String, Legality>,
}

impl ConversionTarget {
    /// A target with no entries: every op is unknown.
    pub fn new() -> Self {
        Self::default()
    }
    /// Marks op kind `T` legal.
    pub fn add_legal_op<T: Op>(&mut self) -> &mut Self {
        self.set_op(T::info(), Legality::Legal)
    }
    /// Marks op kind `T` illegal.
    pub fn add_illegal_op<T: Op>(&mut self) -> &mut Self {
        self.set_op(T::info(), Legality::Illegal)
    }
    /// Marks op kind `T` legal when `f` holds for the op.
    pub fn add_dynamically_legal_op<T: Op>(&mut self, f: fn(&Context, OpId) -> bool) -> &mut Self {
        self.set_op(T::info(), Legality::Dynamic(f))
    }
    /// Sets the legality of an op kind given by its [`OpInfo`].
    pub fn set_op(&mut self, info: &'static OpInfo, l: Legality) -> &mut Self {
        self.ops.insert(info.name, (info, l));
        self
    }
    /// Marks every op of dialect `name` legal.
    pub fn add_legal_dialect(&mut self, name: &str) -> &mut Self {
        self.dialects.insert(name.to_string(), Legality::Legal);
        self
    }
    /// Marks every op of dialect `name` illegal.
    pub fn add_illegal_dialect(&mut self, name: &str) -> &mut Self {
        self.dialects.insert(name.to_string(), Legality::Illegal);
        self
    }
    /// Marks the ops of dialect `name` legal when `f` holds.
    pub fn add_dynamically_legal_dialect(&mut self, name: &str, f: fn(&Context, OpId) -> bool) -> &mut Self {
        self.dialects.insert(name.to_string(), Legality::Dynamic(f));
        self
    }

    /// `Some(true)` legal, `Some(false)` illegal, `None` unknown.
    pub fn is_legal(&self, ctx: &Context, op: OpId) -> Option<bool> {
        let name = ctx.op_name(op);
        let entry = match self.ops.get(name) {
            Some((info, l)) if ctx.op_is(op, info) => Some(*l),
            _ => self.dialects.get(name.split('.').next().unwrap_or("")).copied(),
        };
        match entry? {
            Legality::Legal => Some(true),
            Legality::Illegal => Some(false),
            Legality::Dynamic(f) => Some(f(ctx, op)),
        }
    }

    /// Checks that every op under `root` (not `root` itself) is legal, as a full conversion
    /// would leave it: the first illegal or unknown op is a `failed to legalize` diagnostic
    /// at that op. Useful for lowerings that are not pattern-driven.
    pub fn check_legal(&self, ctx: &Context, root: OpId) -> Result<(), Diagnostic> {
        for op in ctx.walk_collect(root) {
            if op != root && self.is_legal(ctx, op) != Some(true) {
                return Err(failed_to_legalize(ctx, op, "it is not legal for the target"));
            }
        }
        Ok(())
    }
}

/// `failed to legalize operation 'x.y'` at the op, with why.
pub fn failed_to_legalize(ctx: &Context, op: OpId, why: &str) -> Diagnostic {
    Diagnostic::error(ctx.op_loc(op), format!("failed to legalize operation '{}': {why}", ctx.op_name(op)))
}

/// A rewrite of one illegal op into legal IR.
pub trait ConversionPattern {
    /// A debug name.
    fn name(&self) -> &'static str;
    /// The op kind it converts (`None`: any op).
    fn root(&self) -> Option<&'static OpInfo>;
    /// Higher benefits are tried first.
    fn benefit(&self) -> u16 {
        1
    }
    /// Converts `op`, whose operands, remapped to their replacements, are `operands`.
    /// `Ok(false)`: does not apply (nothing changed). `Err`: a located diagnostic.
    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rw: &mut ConversionRewriter<'_>,
    ) -> Result<bool, Diagnostic>;
}

/// A conversion pattern of one typed op kind; wrap it with [`typed`].
pub trait OpConversionPattern {
    /// The op kind it converts.
    type Op: Op;
    /// A debug name.
    fn name(&self) -> &'static str;
    /// Higher benefits are tried first.
    fn benefit(&self) -> u16 {
        1
    }
    /// Converts `op`; see [`ConversionPattern::match_and_rewrite`].
    fn match_and_rewrite(
        &self,
        op: Self::Op,
        operands: &[Value],
        rw: &mut ConversionRewriter<'_>,
    ) -> Result<bool, Diagnostic>;
}

/// Wraps a typed pattern as a [`ConversionPattern`].
pub fn typed<P: OpConversionPattern + 'static>(p: P) -> Box<dyn ConversionPattern> {
    Box::new(Typed(p))
}

struct Typed<P>(P);

impl<P: OpConversionPattern> ConversionPattern for Typed<P> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn root(&self) -> Option<&'static OpInfo> {
        Some(P::Op::info())
    }
    fn benefit(&self) -> u16 {
        self.0.benefit()
    }
    fn match_and_rewrite(
        &self,
        op: OpId,
        operands: &[Value],
        rw: &mut ConversionRewriter<'_>,
    ) -> Result<bool, Diagnostic> {
        match P::Op::dyn_cast(rw.ctx(), op) {
            Some(t) => self.0.match_and_rewrite(t, operands, rw),
            None => Ok(false),
        }
    }
}

/// How patterns change IR during a conversion; it records replacements so later patterns
/// see remapped operands.
pub struct ConversionRewriter<'a> {
    ctx: &'a mut Context,
    mapping: HashMap<Value, Value>,
    /// Replaced or erased ops, in order; erased at the end.
    dead: Vec<OpId>,
    dead_set: HashSet<OpId>,
    /// Ops created since the driver last looked.
    created: Vec<OpId>,
}

impl<'a> ConversionRewriter<'a> {
    fn new(ctx: &'a mut Context) -> Self {
        ConversionRewriter { ctx, mapping: HashMap::new(), dead: Vec::new(), dead_set: HashSet::new(), created: vec![] }
    }

    /// The IR, to read.
    pub fn ctx(&self) -> &Context {
        self.ctx
    }

    /// What `v` was replaced by (following chains), or `v`.
    pub fn remapped(&self, mut v: Value) -> Value {
        while let Some(n) = self.mapping.get(&v) {
            v = *n;
        }
        v
    }

    /// Creates an op from `state` right before `anchor`.
    pub fn create_before(&mut self, anchor: OpId, state: OperationState) -> OpId {
        let op = self.ctx.create_op(state);
        self.ctx.insert_op_before(anchor, op);
        self.created.push(op);
        op
    }

    /// Creates a detached op (to append to a block built with [`Self::create_block`]).
    pub fn create(&mut self, state: OperationState) -> OpId {
        let op = self.ctx.create_op(state);
        self.created.push(op);
        op
    }

    /// Appends the detached op `op` to `block`.
    pub fn append(&mut self, block: BlockId, op: OpId) {
        self.ctx.append_op(block, op);
    }

    /// A new empty region (to pass to an op's state).
    pub fn create_region(&mut self) -> RegionId {
        self.ctx.create_region()
    }

    /// A new block at the end of `region`, with arguments of `types`.
    pub fn create_block(&mut self, region: RegionId, types: &[Type]) -> BlockId {
        self.ctx.create_block(region, types)
    }

    /// Sets attribute `name` of an op this conversion created.
    pub fn set_attr(&mut self, op: OpId, name: &str, a: Attr) {
        self.ctx.set_attr(op, name, a);
    }

    /// Type and attribute constructors.
    pub fn uniquer(&mut self) -> Uniquer<'_> {
        Uniquer::new(self.ctx)
    }

    /// Replaces the results of `op` by `values` (types may differ) and marks `op` dead.
    pub fn replace_op(&mut self, op: OpId, values: &[Value]) {
        let results = self.ctx.results(op).to_vec();
        assert_eq!(results.len(), values.len(), "replace_op: result count mismatch");
        for (r, v) in results.into_iter().zip(values) {
            if r != *v {
                self.mapping.insert(r, *v);
            }
        }
        self.erase_op(op);
    }

    /// Marks `op` dead; it is erased at the end, when its results must be unused.
    pub fn erase_op(&mut self, op: OpId) {
        if self.dead_set.insert(op) {
            self.dead.push(op);
        }
    }

    /// The location of `op`.
    pub fn loc(&self, op: OpId) -> Loc {
        self.ctx.op_loc(op)
    }
}

/// Which ops a conversion must leave legal.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ConversionMode {
    /// Only explicitly illegal ops must be converted.
    Partial,
    /// Every op must end legal.
    Full,
}

/// What a conversion did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConversionStats {
    /// Pattern applications.
    pub rewrites: usize,
    /// Ops erased at the end.
    pub erased: usize,
}

/// Converts the ops under `root` so that every op ends legal for `target`.
pub fn apply_full_conversion(
    ctx: &mut Context,
    root: OpId,
    target: &ConversionTarget,
    patterns: &[Box<dyn ConversionPattern>],
) -> Result<ConversionStats, Diagnostic> {
    apply_conversion(ctx, root, target, patterns, ConversionMode::Full)
}

/// Converts the ops under `root` that `target` marks illegal; unknown ops stay.
pub fn apply_partial_conversion(
    ctx: &mut Context,
    root: OpId,
    target: &ConversionTarget,
    patterns: &[Box<dyn ConversionPattern>],
) -> Result<ConversionStats, Diagnostic> {
    apply_conversion(ctx, root, target, patterns, ConversionMode::Partial)
}

/// The conversion driver; see the [module docs](self).
pub fn apply_conversion(
    ctx: &mut Context,
    root: OpId,
    target: &ConversionTarget,
    patterns: &[Box<dyn ConversionPattern>],
    mode: ConversionMode,
) -> Result<ConversionStats, Diagnostic> {
    let mut order: Vec<usize> = (0..patterns.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(patterns[i].benefit()));
    let mut stats = ConversionStats::default();
    let mut rw = ConversionRewriter::new(ctx);
    let mut worklist: Vec<OpId> = rw.ctx.walk_collect(root);
    worklist.retain(|o| *o != root);
    worklist.reverse();
    while let Some(op) = worklist.pop() {
        if !rw.ctx.op_exists(op) || rw.dead_set.contains(&op) || rw.dead_set.iter().any(|d| rw.ctx.is_ancestor(*d, op))
        {
            continue;
        }
        let legal = target.is_legal(rw.ctx, op);
        if legal == Some(true) {
            continue;
        }
        let operands: Vec<Value> = rw.ctx.operands(op).iter().map(|v| rw.remapped(*v)).collect();
        let mut applied = false;
        for &i in &order {
            let p = &patterns[i];
            if p.root().is_some_and(|r| !rw.ctx.op_is(op, r)) {
                continue;
            }
            if p.match_and_rewrite(op, &operands, &mut rw)? {
                tracing::trace!(pattern = p.name(), "converted");
                stats.rewrites += 1;
                applied = true;
                break;
            }
        }
        // Newly created ops (and their nested ops) are legalized next, in order.
        let created = std::mem::take(&mut rw.created);
        for c in created.into_iter().rev() {
            if rw.ctx.op_exists(c) {
                let mut nested = rw.ctx.walk_collect(c);
                nested.reverse();
                worklist.extend(nested);
            }
        }
        if applied {
            continue;
        }
        let must = match mode {
            ConversionMode::Full => true,
            ConversionMode::Partial => legal == Some(false),
        };
        if must {
            return Err(failed_to_legalize(rw.ctx, op, "no conversion pattern applies"));
        }
    }
    finish(&mut rw, &mut stats)?;
    Ok(stats)
}

/// Rewires the remaining uses of replaced values and erases the dead ops.
fn finish(rw: &mut ConversionRewriter<'_>, stats: &mut ConversionStats) -> Result<(), Diagnostic> {
    let dead = rw.dead.clone();
    for op in &dead {
        for r in rw.ctx.results(*op).to_vec() {
            let new = rw.remapped(r);
            for u in rw.ctx.uses(r).to_vec() {
                if rw.dead_set.contains(&u.op) || rw.dead_set.iter().any(|d| rw.ctx.is_ancestor(*d, u.op)) {
                    continue;
                }
                if new == r || rw.ctx.value_type(new) != rw.ctx.value_type(r) {
                    return Err(failed_to_legalize(
                        rw.ctx,
                        *op,
                        &format!("its result is still used by '{}', which was not converted", rw.ctx.op_name(u.op)),
                    ));
                }
                rw.ctx.set_operand(u.op, u.index, new);
            }
        }
    }
    // Erase users before the values they use: repeat over what is left until nothing moves.
    let mut left: Vec<OpId> = dead.into_iter().rev().collect();
    while !left.is_empty() {
        let before = left.len();
        let mut keep = Vec::new();
        for op in left {
            if !rw.ctx.op_exists(op) {
                continue;
            }
            if rw.ctx.results(op).iter().all(|r| rw.ctx.uses(*r).is_empty()) {
                rw.ctx.erase_op(op);
                stats.erased += 1;
            } else {
                keep.push(op);
            }
        }
        if keep.len() == before {
            let op = keep[0];
            return Err(failed_to_legalize(rw.ctx, op, "its results are still used after the conversion"));
        }
        left = keep;
    }
    Ok(())
}
