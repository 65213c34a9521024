//! The reference interpreter framework: a [`Machine`] holds the run-time value of each SSA
//! value and executes ops through the `interpret` hook of their [`crate::registry::OpInfo`].
//! Dialects give the semantics; this module gives values, function calls and region
//! execution.
//!
//! Numerics contract: values are computed in f64 and rounded to their result type when
//! stored, as a kernel storing that type would (see [`crate::numerics::FloatKind::round`]).

pub mod array;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

pub use array::{Array, ReduceKind};

use crate::builtin::op_error;
use crate::context::{BlockId, Context, OpId, RegionId, Value};
use crate::diag::Diagnostic;
use crate::types::{Dim, Type};

/// Result of an interpreter step.
pub type InterpResult<T> = Result<T, Diagnostic>;

/// The most elements one tensor or buffer may hold in the interpreter (2^31).
pub const MAX_ELEMENTS: usize = 1 << 31;

thread_local! {
    static ELEMENT_LIMIT: std::cell::Cell<usize> = const { std::cell::Cell::new(MAX_ELEMENTS) };
}

/// Sets the most elements one tensor or buffer may hold in interpreters running on this
/// thread (clamped to [`MAX_ELEMENTS`], the default); returns the previous limit. Fuzzers
/// and tests lower it so that a program that asks for a huge tensor fails fast with the
/// "too large" diagnostic instead of allocating gigabytes.
pub fn set_element_limit(n: usize) -> usize {
    ELEMENT_LIMIT.with(|l| l.replace(n.min(MAX_ELEMENTS)))
}

/// The element limit of this thread (see [`set_element_limit`]).
pub fn element_limit() -> usize {
    ELEMENT_LIMIT.with(|l| l.get())
}

/// A run-time value.
#[derive(Clone, Debug)]
pub enum RtValue {
    /// A tensor: its element type and its elements (already rounded to that type).
    Tensor {
        /// Element type.
        elem: Type,
        /// Elements and shape.
        array: Rc<Array>,
    },
    /// An integer or index scalar.
    Int(i64),
    /// A float scalar, rounded to its type.
    Float(f64),
    /// A mutable buffer (memory of the loop and GPU levels).
    Buffer {
        /// Element type.
        elem: Type,
        /// Elements and shape, shared by every handle to the buffer.
        data: Rc<RefCell<Array>>,
    },
}

impl RtValue {
    /// The tensor's array, if a tensor.
    pub fn as_tensor(&self) -> Option<&Array> {
        match self {
            RtValue::Tensor { array, .. } => Some(array),
            _ => None,
        }
    }
    /// The integer, if an integer or index scalar.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            RtValue::Int(i) => Some(*i),
            _ => None,
        }
    }
    /// The float, if a float scalar.
    pub fn as_float(&self) -> Option<f64> {
        match self {
            RtValue::Float(f) => Some(*f),
            _ => None,
        }
    }
}

/// The interpreter state.
pub struct Machine {
    env: HashMap<Value, RtValue>,
    /// Per block: after op i, the values of this block whose last use it was (cached).
    dead_after: HashMap<BlockId, Rc<Vec<Vec<Value>>>>,
    yielded: Option<Vec<RtValue>>,
    call_depth: usize,
    /// Ops executed so far (a fuel counter that stops runaway programs).
    pub steps: u64,
    /// The most ops one run may execute.
    pub max_steps: u64,
}

impl Default for Machine {
    fn default() -> Self {
        Self::new()
    }
}

impl Machine {
    /// A fresh machine.
    pub fn new() -> Self {
        Machine {
            env: HashMap::new(),
            dead_after: HashMap::new(),
            yielded: None,
            call_depth: 0,
            steps: 0,
            max_steps: u64::MAX,
        }
    }

    /// The value bound to `v`.
    pub fn get(&self, ctx: &Context, v: Value) -> InterpResult<&RtValue> {
        self.env
            .get(&v)
            .ok_or_else(|| Diagnostic::error(ctx.value(v).loc, "interpreter: value used before it was computed"))
    }

    /// Binds `v`.
    pub fn set(&mut self, v: Value, x: RtValue) {
        self.env.insert(v, x);
    }

    /// Called by terminators (`func.return`, loop yields): hands values to the region's
    /// caller.
    pub fn yield_values(&mut self, vals: Vec<RtValue>) {
        self.yielded = Some(vals);
    }

    /// Runs the ops of `block` with `args` bound to its arguments; returns what its
    /// terminator yielded (empty if none).
    pub fn run_block(&mut self, ctx: &Context, block: BlockId, args: Vec<RtValue>) -> InterpResult<Vec<RtValue>> {
        for (a, v) in ctx.block_args(block).iter().zip(args) {
            self.env.insert(*a, v);
        }
        let dead = match self.dead_after.get(&block) {
            Some(d) => d.clone(),
            None => {
                let d = Rc::new(last_uses(ctx, block));
                self.dead_after.insert(block, d.clone());
                d
            }
        };
        for (i, op) in ctx.block_ops(block).enumerate() {
            self.run_op(ctx, op)?;
            // Free what no later op needs, so big programs keep only live tensors.
            for v in &dead[i] {
                self.env.remove(v);
            }
            if let Some(v) = self.yielded.take() {
                return Ok(v);
            }
        }
        Ok(Vec::new())
    }

    /// Runs the entry block of `region`.
    pub fn run_region(&mut self, ctx: &Context, region: RegionId, args: Vec<RtValue>) -> InterpResult<Vec<RtValue>> {
        match ctx.entry_block(region) {
            Some(b) => self.run_block(ctx, b, args),
            None => Ok(Vec::new()),
        }
    }

    /// Executes one op.
    pub fn run_op(&mut self, ctx: &Context, op: OpId) -> InterpResult<()> {
        self.steps += 1;
        if self.steps > self.max_steps {
            return Err(op_error(ctx, op, "interpreter: step limit exceeded"));
        }
        let f = ctx
            .op_info(op)
            .and_then(|i| i.interpret)
            .ok_or_else(|| op_error(ctx, op, "has no interpreter semantics"))?;
        f(self, ctx, op)
    }

    /// Calls function `func` with `args`; returns its results.
    pub fn call(&mut self, ctx: &Context, func: OpId, args: Vec<RtValue>) -> InterpResult<Vec<RtValue>> {
        if self.call_depth > 64 {
            return Err(op_error(ctx, func, "interpreter: call depth limit (64) exceeded"));
        }
        let r = ctx.regions(func)[0];
        if ctx.entry_block(r).is_none() {
            return Err(op_error(ctx, func, "cannot run a function declaration (it has no body)"));
        }
        self.call_depth += 1;
        let out = self.run_region(ctx, r, args);
        self.call_depth -= 1;
        out
    }

    /// Binds each result of `op` (helper for dialects).
    pub fn set_results(&mut self, ctx: &Context, op: OpId, vals: Vec<RtValue>) {
        for (r, v) in ctx.results(op).iter().zip(vals) {
            self.env.insert(*r, v);
        }
    }

    /// The tensor bound to `v`, or an error naming `op`.
    pub fn tensor(&self, ctx: &Context, op: OpId, v: Value) -> InterpResult<Rc<Array>> {
        match self.get(ctx, v)? {
            RtValue::Tensor { array, .. } => Ok(array.clone()),
            _ => Err(op_error(ctx, op, "interpreter: expected a tensor operand")),
        }
    }

    /// The integer bound to `v`, or an error naming `op`.
    pub fn int(&self, ctx: &Context, op: OpId, v: Value) -> InterpResult<i64> {
        self.get(ctx, v)?.as_int().ok_or_else(|| op_error(ctx, op, "interpreter: expected an integer operand"))
    }
}

/// For each op of `block` (by position), the values defined in the block (arguments and
/// results) whose last use is that op or something nested in it. Unused results die at
/// their defining op. The order within an op's list is unspecified.
pub fn last_uses(ctx: &Context, block: BlockId) -> Vec<Vec<Value>> {
    let ops: Vec<OpId> = ctx.block_ops(block).collect();
    let index: HashMap<OpId, usize> = ops.iter().enumerate().map(|(i, o)| (*o, i)).collect();
    let mut last: HashMap<Value, usize> = HashMap::new();
    let mut defined: Vec<(Value, usize)> = ctx.block_args(block).iter().map(|a| (*a, 0)).collect();
    for (i, &op) in ops.iter().enumerate() {
        for &r in ctx.results(op) {
            defined.push((r, i));
        }
    }
    for (v, def_at) in &defined {
        let mut at = *def_at;
        for u in ctx.uses(*v) {
            // Attribute the use to the ancestor of the user that lives in this block.
            let mut cur = Some(u.op);
            while let Some(c) = cur {
                if let Some(&i) = index.get(&c) {
                    at = at.max(i);
                    break;
                }
                cur = ctx.parent_op(c);
            }
        }
        last.insert(*v, at);
    }
    let mut out = vec![Vec::new(); ops.len()];
    for (v, i) in last {
        if i < out.len() {
            out[i].push(v);
        }
    }
    out
}

/// Checks that run-time shape `shape` fits the static dims of type `ty`.
pub fn check_shape(ctx: &Context, op: OpId, ty: Type, shape: &[usize]) -> InterpResult<()> {
    let dims = ctx.shape_of(ty).unwrap_or(&[]);
    let ok = dims.len() == shape.len()
        && dims.iter().zip(shape).all(|(d, s)| match d {
            Dim::Static(n) => *n as usize == *s,
            Dim::Dynamic => true,
        });
    if ok {
        Ok(())
    } else {
        Err(op_error(
            ctx,
            op,
            format!("run-time shape [{}] does not match type '{}'", join(shape), ctx.type_to_string(ty)),
        ))
    }
}

/// Element count of a shape, or an error when it exceeds the element limit
/// ([`MAX_ELEMENTS`] unless [`set_element_limit`] lowered it).
pub fn checked_elements(ctx: &Context, op: OpId, shape: &[usize]) -> InterpResult<usize> {
    let limit = element_limit();
    let mut n: usize = 1;
    for &s in shape {
        n = n
            .checked_mul(s)
            .filter(|&n| n <= limit)
            .ok_or_else(|| op_error(ctx, op, format!("interpreter: tensor of shape [{}] is too large", join(shape))))?;
    }
    Ok(n)
}

fn join(v: &[usize]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

/// Runs function `func` on `args` and returns its results.
pub fn run_function(ctx: &Context, func: OpId, args: Vec<RtValue>) -> InterpResult<Vec<RtValue>> {
    let mut m = Machine::new();
    m.call(ctx, func, args)
}
