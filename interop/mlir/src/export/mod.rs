//! Export: morf IR (any level) to upstream MLIR, built in memory through melior, verified by
//! MLIR's verifier and printed by MLIR's printer.
//!
//! One walk over the module translates op by op: `func` ops keep their dialect, `mtensor`
//! becomes `linalg`/`tensor`/`arith`/`math` on tensors ([`tensor`]), `mloop` becomes
//! `scf`/`memref`/`arith` ([`loops`]) and `mgpu` becomes `gpu`/`nvvm`/`llvm` ([`gpu`]).
//! The mapping tables are in docs/interop-mlir.md.

mod gpu;
mod loops;
mod scalar;
mod tensor;

use std::collections::HashMap;

use melior::ir::attribute::{StringAttribute, TypeAttribute};
use melior::ir::operation::OperationLike;
use melior::ir::r#type::FunctionType;
use melior::ir::{Location, Module, Type};
use melior::Context as MlirContext;
use mlir_sys::{MlirBlock, MlirOperation, MlirValue};
use morf_ir::builtin::op_error;
use morf_ir::{Context, Diagnostic, OpId, TypeData, Value};

use crate::bridge::{self, Mlir};

/// The result of a step of the export; a `String` error is turned into a diagnostic at the
/// op being exported.
pub(crate) type SResult<T> = Result<T, String>;

/// Exports `module` and returns MLIR's text of it (custom form), after MLIR's verifier
/// accepted it.
pub(crate) fn export_text(ctx: &Context, module: OpId) -> Result<String, Diagnostic> {
    let mlir = Mlir::new();
    let m = build_module(&mlir, ctx, module, &crate::PtxOptions::default())?;
    // morf's value names travel as name locations, printed as the SSA names.
    let flags = melior::ir::operation::OperationPrintingFlags::new();
    unsafe { mlir_sys::mlirOpPrintingFlagsPrintNameLocAsPrefix(flags.to_raw()) };
    m.as_operation()
        .to_string_with_flags(flags)
        .map_err(|e| op_error(ctx, module, format!("MLIR could not print the exported module: {e}")))
}

/// Builds the MLIR module for `module` in `mlir`'s context and verifies it; kernels get an
/// `#nvvm.target` for `target`.
pub(crate) fn build_module<'c>(
    mlir: &'c Mlir,
    ctx: &Context,
    module: OpId,
    target: &crate::PtxOptions,
) -> Result<Module<'c>, Diagnostic> {
    let cx = &mlir.cx;
    let loc = bridge::mlir_loc(cx, ctx, ctx.op_loc(module));
    let m = Module::new(loc);
    {
        let mut ex = Exporter::new(cx, ctx, module, target);
        let body = m.body().to_raw();
        ex.module_attrs(module, m.as_operation().to_raw())?;
        let region = ctx.regions(module)[0];
        for block in ctx.region_blocks(region) {
            for op in ctx.block_ops(block) {
                ex.top_level(op, body)?;
            }
        }
        if ex.gpu_module.is_some() {
            let name = melior::ir::Identifier::new(cx, "gpu.container_module");
            let unit = melior::ir::Attribute::unit(cx);
            unsafe {
                mlir_sys::mlirOperationSetAttributeByName(
                    m.as_operation().to_raw(),
                    mlir_sys::mlirIdentifierStr(name.to_raw()),
                    melior::ir::AttributeLike::to_raw(&unit),
                )
            };
        }
    }
    if !m.as_operation().verify() {
        return Err(op_error(
            ctx,
            module,
            format!("the exported MLIR module does not verify (an export bug):\n{}", mlir.diag_text()),
        ));
    }
    mlir.take_diags();
    Ok(m)
}

/// The state of one export: the MLIR context, the morf IR, and the values translated so far.
pub(crate) struct Exporter<'c, 'm> {
    /// The MLIR context.
    pub cx: &'c MlirContext,
    /// The morf IR being exported.
    pub m: &'m Context,
    /// morf value -> MLIR value.
    pub values: HashMap<Value, MlirValue>,
    /// Index constants per block: (block, value) -> the constant.
    consts: HashMap<(usize, i64), MlirValue>,
    /// `tensor.dim`/`memref.dim` per block: (block, shaped value, dim) -> the size.
    dims: HashMap<(usize, usize, usize), MlirValue>,
    /// The `gpu.module` kernels go into (created with the first kernel).
    pub gpu_module: Option<MlirBlock>,
    /// The module's body.
    pub module_body: Option<MlirBlock>,
    /// Counter for fresh symbol names (globals).
    pub next_symbol: usize,
    /// A diagnostic of a nested op, carried out of a step that returns a `String` error.
    nested: Option<Diagnostic>,
    /// The morf module being exported.
    pub morf_module: OpId,
    /// The kernel being exported (names its globals).
    pub kernel_name: String,
    /// Whether the dynamic shared memory global is declared.
    pub dynamic_shared: bool,
    /// The grid barrier counters declared.
    pub grid_counters: Vec<String>,
    /// The NVVM target's chip (`sm_90`).
    pub sm: String,
    /// The PTX ISA version as NVVM target features want it (`80` for 8.0).
    pub ptx_features: String,
}

impl<'c, 'm> Exporter<'c, 'm> {
    fn new(cx: &'c MlirContext, m: &'m Context, module: OpId, target: &crate::PtxOptions) -> Self {
        Exporter {
            cx,
            m,
            values: HashMap::new(),
            consts: HashMap::new(),
            dims: HashMap::new(),
            gpu_module: None,
            module_body: None,
            next_symbol: 0,
            nested: None,
            morf_module: module,
            kernel_name: String::new(),
            dynamic_shared: false,
            grid_counters: Vec::new(),
            sm: target.target.clone(),
            ptx_features: target.version.replace('.', ""),
        }
    }

    /// The MLIR location of a morf op.
    pub fn loc(&self, op: OpId) -> Location<'c> {
        bridge::mlir_loc(self.cx, self.m, self.m.op_loc(op))
    }

    /// The MLIR value of a morf value (an error when it was not exported: a use before its
    /// definition, which a verified morf module does not have).
    pub fn val(&self, v: Value) -> SResult<MlirValue> {
        self.values.get(&v).copied().ok_or_else(|| "uses a value that was not exported".to_string())
    }

    /// The MLIR values of morf values.
    pub fn vals(&self, vs: &[Value]) -> SResult<Vec<MlirValue>> {
        vs.iter().map(|v| self.val(*v)).collect()
    }

    /// Records the MLIR value of a morf value.
    pub fn bind(&mut self, v: Value, to: MlirValue) {
        self.values.insert(v, to);
    }

    /// Parses an attribute.
    pub fn attr(&self, text: &str) -> SResult<melior::ir::Attribute<'c>> {
        bridge::parse_attr(self.cx, text)
    }

    /// Appends an op (see [`bridge::append_op`]).
    #[allow(clippy::too_many_arguments)]
    pub fn op(
        &self,
        block: MlirBlock,
        name: &str,
        loc: Location<'c>,
        operands: &[MlirValue],
        results: &[Type<'c>],
        attrs: &[(&str, melior::ir::Attribute<'c>)],
        regions: usize,
    ) -> SResult<MlirOperation> {
        bridge::append_op(self.cx, block, name, loc, operands, results, attrs, regions)
    }

    /// Appends a one-result op without regions and returns its result.
    pub fn op1(
        &self,
        block: MlirBlock,
        name: &str,
        loc: Location<'c>,
        operands: &[MlirValue],
        result: Type<'c>,
        attrs: &[(&str, melior::ir::Attribute<'c>)],
    ) -> SResult<MlirValue> {
        let op = self.op(block, name, loc, operands, &[result], attrs, 0)?;
        Ok(bridge::result(op, 0))
    }

    /// `arith.constant <v> : index` in `block` (one per block and value).
    pub fn index_const(&mut self, block: MlirBlock, v: i64) -> SResult<MlirValue> {
        let key = (block.ptr as usize, v);
        if let Some(c) = self.consts.get(&key) {
            return Ok(*c);
        }
        let idx = Type::index(self.cx);
        let a = self.attr(&format!("{v} : index"))?;
        let c = self.op1(block, "arith.constant", Location::unknown(self.cx), &[], idx, &[("value", a)])?;
        self.consts.insert(key, c);
        Ok(c)
    }

    /// The size of dim `d` of a tensor or memref value: `tensor.dim` or `memref.dim`, one per
    /// block, value and dim.
    pub fn dim(&mut self, block: MlirBlock, v: MlirValue, d: usize, memref: bool) -> SResult<MlirValue> {
        let key = (block.ptr as usize, v.ptr as usize, d);
        if let Some(s) = self.dims.get(&key) {
            return Ok(*s);
        }
        let c = self.index_const(block, d as i64)?;
        let name = if memref { "memref.dim" } else { "tensor.dim" };
        let idx = Type::index(self.cx);
        let s = self.op1(block, name, Location::unknown(self.cx), &[v, c], idx, &[])?;
        self.dims.insert(key, s);
        Ok(s)
    }

    /// The MLIR type of a morf type: builtin types as they are, `!mloop.buffer<...>` as a
    /// `memref`, `!mgpu.ptr<T[, 3]>` as `!llvm.ptr<1>` (global) or `!llvm.ptr<3>` (shared).
    pub fn ty(&self, t: morf_ir::Type) -> SResult<Type<'c>> {
        match self.m.type_data(t) {
            TypeData::Function { inputs, results } => {
                let i = inputs.iter().map(|t| self.ty(*t)).collect::<SResult<Vec<_>>>()?;
                let r = results.iter().map(|t| self.ty(*t)).collect::<SResult<Vec<_>>>()?;
                Ok(FunctionType::new(self.cx, &i, &r).into())
            }
            TypeData::Dialect { name, shape, elem: Some(e), .. } if name == "mloop.buffer" => {
                let dims: String = shape.iter().map(|d| format!("{}x", self.m.dim_to_string(*d))).collect();
                bridge::parse_type(self.cx, &format!("memref<{dims}{}>", self.m.type_to_string(*e)))
            }
            TypeData::Dialect { name, .. } if name == "mgpu.ptr" => {
                let space = morf_gpu::ptr_parts(self.m, t).map(|(_, s)| s).unwrap_or(0);
                bridge::parse_type(self.cx, &format!("!llvm.ptr<{}>", if space == 3 { 3 } else { 1 }))
            }
            _ => bridge::parse_type(self.cx, &self.m.type_to_string(t)),
        }
    }

    /// An error at `op`, prefixed with its name.
    pub fn err(&self, op: OpId, msg: impl AsRef<str>) -> Diagnostic {
        op_error(self.m, op, msg)
    }

    /// Carries the diagnostic of a nested op (a loop body) through a `String` error.
    pub fn nest(&mut self, r: Result<(), Diagnostic>) -> SResult<()> {
        r.map_err(|d| {
            let msg = d.message.clone();
            self.nested = Some(d);
            msg
        })
    }

    /// The diagnostic of a failed step at `op`: a nested op's own, or `msg` at `op`.
    pub fn fail(&mut self, op: OpId, msg: String) -> Diagnostic {
        self.nested.take().unwrap_or_else(|| self.err(op, msg))
    }

    /// Copies the module's attributes (such as `morf.size_hints`) that MLIR can read.
    fn module_attrs(&mut self, module: OpId, mop: MlirOperation) -> Result<(), Diagnostic> {
        for (k, v) in self.m.attrs(module) {
            let name = self.m.str(*k);
            if name == "sym_name" {
                continue;
            }
            let a = self.attr(&self.m.attr_to_string(*v)).map_err(|e| self.err(module, e))?;
            let name = melior::ir::attribute::StringAttribute::new(self.cx, name);
            unsafe {
                mlir_sys::mlirOperationSetAttributeByName(
                    mop,
                    mlir_sys::mlirStringAttrGetValue(melior::ir::AttributeLike::to_raw(&name)),
                    melior::ir::AttributeLike::to_raw(&a),
                )
            };
        }
        Ok(())
    }

    /// Exports one op of the module's body.
    fn top_level(&mut self, op: OpId, body: MlirBlock) -> Result<(), Diagnostic> {
        self.module_body = Some(body);
        match self.m.op_name(op) {
            "func.func" => self.func(op, body),
            "mgpu.func" => self.kernel(op, body),
            _ => Err(self.err(op, "cannot be exported to MLIR at module level (expected 'func.func' or 'mgpu.func')")),
        }
    }

    /// `func.func` with its signature, argument attributes and body.
    fn func(&mut self, op: OpId, parent: MlirBlock) -> Result<(), Diagnostic> {
        let m = self.m;
        let e = |msg: String| op_error(m, op, msg);
        let name = morf_ir::builtin::symbol_name(m, op).ok_or_else(|| e("has no 'sym_name'".into()))?;
        let fty = morf_ir::builtin::func_type(m, op).ok_or_else(|| e("has no 'function_type'".into()))?;
        let mty = self.ty(fty).map_err(e)?;
        let mut attrs = vec![
            ("sym_name", StringAttribute::new(self.cx, name).into()),
            ("function_type", TypeAttribute::new(mty).into()),
        ];
        for extra in ["arg_attrs", "res_attrs", "sym_visibility"] {
            if let Some(a) = m.attr(op, extra) {
                attrs.push((extra, self.attr(&m.attr_to_string(a)).map_err(e)?));
            }
        }
        let loc = self.loc(op);
        let f = self.op(parent, "func.func", loc, &[], &[], &attrs, 1).map_err(e)?;
        let region = m.regions(op)[0];
        let Some(entry) = m.entry_block(region) else {
            return Ok(()); // a declaration
        };
        let (ins, _) = m.function_parts(fty).ok_or_else(|| e("has a non-function type".into()))?;
        let arg_tys = ins.iter().map(|t| self.ty(*t)).collect::<SResult<Vec<_>>>().map_err(e)?;
        let block = bridge::add_block(f, 0, &arg_tys, loc);
        for (i, a) in m.block_args(entry).iter().enumerate() {
            let arg = bridge::block_arg(block, i);
            self.bind(*a, arg);
            self.name_value(*a, arg);
        }
        self.block(entry, block)
    }

    /// Exports the ops of a morf block into an MLIR block.
    pub fn block(&mut self, from: morf_ir::BlockId, to: MlirBlock) -> Result<(), Diagnostic> {
        let ops: Vec<OpId> = self.m.block_ops(from).collect();
        for op in ops {
            self.op_any(op, to)?;
        }
        Ok(())
    }

    /// Exports one op of a function body, by dialect, and names its results as morf does.
    fn op_any(&mut self, op: OpId, block: MlirBlock) -> Result<(), Diagnostic> {
        let name = self.m.op_name(op);
        match name {
            "func.return" => {
                let vs = self.vals(self.m.operands(op));
                vs.and_then(|vs| self.op(block, "func.return", self.loc(op), &vs, &[], &[], 0).map(|_| ()))
                    .map_err(|e| self.err(op, e))?
            }
            "func.call" => self.call(op, block).map_err(|e| self.err(op, e))?,
            _ if name.starts_with("mtensor.") => self.tensor_op(op, block)?,
            _ if name.starts_with("mloop.") => self.loop_op(op, block)?,
            _ if name.starts_with("mgpu.") => self.gpu_op(op, block)?,
            _ => return Err(self.err(op, "cannot be exported to MLIR (no mapping for this op)")),
        }
        if self.m.results(op).len() == 1 {
            let r = self.m.result(op, 0);
            if let Some(mv) = self.values.get(&r).copied() {
                self.name_value(r, mv);
            }
        }
        Ok(())
    }

    /// Gives MLIR value `to` the name of morf value `v` (if it has one) as a name location:
    /// on a block argument, or on the op defining `to` when it has one result and no name yet.
    pub fn name_value(&self, v: Value, to: MlirValue) {
        let Some(name) = self.m.value(v).name else { return };
        let name = self.m.str(name);
        unsafe {
            let id = mlir_sys::mlirIdentifierGet(
                self.cx.to_raw(),
                mlir_sys::MlirStringRef { data: name.as_ptr() as *const _, length: name.len() },
            );
            if mlir_sys::mlirValueIsABlockArgument(to) {
                let child = mlir_sys::mlirValueGetLocation(to);
                let loc = mlir_sys::mlirLocationNameGet(self.cx.to_raw(), mlir_sys::mlirIdentifierStr(id), child);
                mlir_sys::mlirBlockArgumentSetLocation(to, loc);
            } else if mlir_sys::mlirValueIsAOpResult(to) {
                let owner = mlir_sys::mlirOpResultGetOwner(to);
                let child = mlir_sys::mlirOperationGetLocation(owner);
                if mlir_sys::mlirOperationGetNumResults(owner) != 1 || mlir_sys::mlirLocationIsAName(child) {
                    return;
                }
                let loc = mlir_sys::mlirLocationNameGet(self.cx.to_raw(), mlir_sys::mlirIdentifierStr(id), child);
                mlir_sys::mlirOperationSetLocation(owner, loc);
            }
        }
    }

    /// A call of a number the runtime that runs the exported module provides (upstream MLIR has
    /// no op for it): a new `func.func private @{prefix}_N(index...) -> index` at module level
    /// carrying `attr`, then `func.call` of it with `args` (index values) in `b`. Returns the
    /// call's result.
    pub fn call_runtime_hook(
        &mut self,
        b: MlirBlock,
        loc: Location<'c>,
        prefix: &str,
        args: &[MlirValue],
        attr: (&str, melior::ir::Attribute<'c>),
    ) -> SResult<MlirValue> {
        let sym = format!("{prefix}_{}", self.next_symbol);
        self.next_symbol += 1;
        let module = self.module_body.ok_or("is outside a module")?;
        let params = vec!["index"; args.len()].join(", ");
        let fty = bridge::parse_type(self.cx, &format!("({params}) -> index"))?;
        let attrs = [
            ("sym_name", StringAttribute::new(self.cx, &sym).into()),
            ("function_type", TypeAttribute::new(fty).into()),
            ("sym_visibility", self.attr("\"private\"")?),
            attr,
        ];
        self.op(module, "func.func", loc, &[], &[], &attrs, 1)?;
        let callee = self.attr(&format!("@{sym}"))?;
        self.op1(b, "func.call", loc, args, Type::index(self.cx), &[("callee", callee)])
    }

    /// `func.call`.
    fn call(&mut self, op: OpId, block: MlirBlock) -> SResult<()> {
        let callee = self.m.attr(op, "callee").ok_or("has no 'callee'")?;
        let a = self.attr(&self.m.attr_to_string(callee))?;
        let args = self.vals(self.m.operands(op))?;
        let results: Vec<morf_ir::Type> = self.m.results(op).iter().map(|r| self.m.value_type(*r)).collect();
        let tys = results.iter().map(|t| self.ty(*t)).collect::<SResult<Vec<_>>>()?;
        let c = self.op(block, "func.call", self.loc(op), &args, &tys, &[("callee", a)], 0)?;
        for (i, r) in self.m.results(op).to_vec().into_iter().enumerate() {
            self.bind(r, bridge::result(c, i));
        }
        Ok(())
    }

    /// Binds the single result of morf op `op` to `v`.
    pub fn bind_result(&mut self, op: OpId, v: MlirValue) {
        let r = self.m.result(op, 0);
        self.bind(r, v);
    }
}
