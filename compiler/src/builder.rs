//! [`Builder`]: make IR from Rust without text. It holds an insertion point (the end of a
//! block) and offers typed helpers for the builtin ops; dialects add their own helpers as
//! functions taking a `&mut Builder`.

use crate::context::{BlockId, Context, OpId, OperationState, Value};
use crate::location::Loc;
use crate::types::Type;

/// An insertion point plus constructors.
pub struct Builder<'a> {
    /// The IR being built.
    pub ctx: &'a mut Context,
    module: OpId,
    block: BlockId,
    /// The location given to new ops.
    pub loc: Loc,
}

impl<'a> Builder<'a> {
    /// Creates an empty `builtin.module` and a builder inserting into its body.
    pub fn new_module(ctx: &'a mut Context) -> Self {
        let r = ctx.create_region();
        let block = ctx.create_block(r, &[]);
        let module = ctx.create_op(OperationState::new("builtin.module", Loc::Unknown).region(r));
        Builder { ctx, module, block, loc: Loc::Unknown }
    }

    /// The module being built.
    pub fn module(&self) -> OpId {
        self.module
    }

    /// Moves the insertion point to the end of `block`.
    pub fn set_insertion_point(&mut self, block: BlockId) {
        self.block = block;
    }

    /// The block new ops go into.
    pub fn insertion_block(&self) -> BlockId {
        self.block
    }

    /// Creates an op from `state` at the insertion point.
    pub fn insert(&mut self, state: OperationState) -> OpId {
        let op = self.ctx.create_op(state);
        self.ctx.append_op(self.block, op);
        op
    }

    /// Creates an op named `name` with operands, result types and attributes; returns it.
    pub fn op(
        &mut self,
        name: &str,
        operands: &[Value],
        results: &[Type],
        attrs: &[(&str, crate::attrs::Attr)],
    ) -> OpId {
        let mut st = OperationState::new(name, self.loc).operands(operands).results(results);
        for (k, v) in attrs {
            st = st.attr(k, *v);
        }
        self.insert(st)
    }

    /// Creates `func.func @name(inputs) -> results` with an empty body, moves the insertion
    /// point into the body, and returns the function and its arguments.
    pub fn func(&mut self, name: &str, inputs: &[Type], results: &[Type]) -> (OpId, Vec<Value>) {
        let fty = self.ctx.function_type(inputs, results);
        let r = self.ctx.create_region();
        let body = self.ctx.create_block(r, inputs);
        let (n, t) = (self.ctx.str_attr(name), self.ctx.type_attr(fty));
        let st = OperationState::new("func.func", self.loc).attr("sym_name", n).attr("function_type", t).region(r);
        let f = self.insert(st);
        self.block = body;
        let args = self.ctx.block_args(body).to_vec();
        (f, args)
    }

    /// Appends `func.return values` to the body of `func` and moves the insertion point
    /// back to the module.
    pub fn ret(&mut self, func: OpId, values: &[Value]) {
        let body = self.ctx.entry_block(self.ctx.regions(func)[0]).expect("function body");
        self.block = body;
        self.insert(OperationState::new("func.return", self.loc).operands(values));
        let mr = self.ctx.regions(self.module)[0];
        self.block = self.ctx.entry_block(mr).expect("module body");
    }
}
