//! The MLIR side of the bridge: an MLIR context with every upstream dialect, its diagnostics
//! collected instead of printed, conversions between MLIR and morf locations, and the few raw
//! C-API calls that melior's borrow-checked handles make awkward when IR is built op by op.
//!
//! IR is built through raw handles ([`MlirBlock`], [`MlirValue`], [`MlirOperation`]): an
//! exporter keeps maps from morf values to MLIR values while it appends ops to blocks that
//! already sit in their regions, which melior's lifetimes (a value borrows its block) do not
//! express. Every raw handle comes from the module being built and lives as long as it does.

use std::cell::RefCell;
use std::rc::Rc;

use melior::dialect::DialectRegistry;
use melior::ir::attribute::Attribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationBuilder;
use melior::ir::{Block, BlockRef, Identifier, Location, Region, Type, Value};
use melior::Context as MlirContext;
use mlir_sys::{MlirBlock, MlirOperation, MlirValue};
use morf_ir::{Context, Diagnostic, Loc, Severity};

/// One diagnostic MLIR reported: its message, severity and first file position.
#[derive(Clone, Debug)]
pub(crate) struct MlirDiag {
    /// The message, without the location.
    pub message: String,
    /// Error, warning, remark or note.
    pub severity: Severity,
    /// `(line, col)`, 1-based, when the location has a file position.
    pub pos: Option<(u32, u32)>,
}

/// An MLIR context with every upstream dialect (and their extensions) loaded, and the
/// diagnostics it reported since the last [`Mlir::take_diags`].
pub(crate) struct Mlir {
    /// The context.
    pub cx: MlirContext,
    diags: Rc<RefCell<Vec<MlirDiag>>>,
}

impl Mlir {
    /// A fresh context: all dialects registered and loaded, no threads, diagnostics collected.
    pub fn new() -> Self {
        let registry = DialectRegistry::new();
        melior::utility::register_all_dialects(&registry);
        let cx = MlirContext::new_with_registry(&registry, false);
        cx.load_all_available_dialects();
        let diags = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&diags);
        cx.attach_diagnostic_handler(move |d| {
            let severity = match d.severity() {
                melior::diagnostic::DiagnosticSeverity::Error => Severity::Error,
                melior::diagnostic::DiagnosticSeverity::Warning => Severity::Warning,
                _ => Severity::Remark,
            };
            let mut message = d.to_string();
            for i in 0..d.note_count() {
                if let Ok(n) = d.note(i) {
                    message.push_str(&format!("\n  note: {n}"));
                }
            }
            sink.borrow_mut().push(MlirDiag { message, severity, pos: file_pos(d.location()) });
            true
        });
        Mlir { cx, diags }
    }

    /// The diagnostics reported since the last call.
    pub fn take_diags(&self) -> Vec<MlirDiag> {
        std::mem::take(&mut self.diags.borrow_mut())
    }

    /// The collected diagnostics as one text, one per line (for errors that are not the
    /// user's: an export that MLIR's verifier rejects).
    pub fn diag_text(&self) -> String {
        let d = self.take_diags();
        if d.is_empty() {
            return "(MLIR gave no diagnostic)".into();
        }
        d.iter()
            .map(|d| match d.pos {
                Some((l, c)) => format!("{l}:{c}: {}", d.message),
                None => d.message.clone(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The first file position of an MLIR location (looking into fused, named and call-site
/// locations), 1-based.
pub(crate) fn file_pos(loc: Location<'_>) -> Option<(u32, u32)> {
    if loc.is_file_line_col_range() {
        let line = loc.file_line_col_range_start_line();
        let col = loc.file_line_col_range_start_column();
        return (line > 0).then_some((line as u32, col.max(1) as u32));
    }
    if loc.is_fused() {
        return (0..loc.fused_num_locations()).find_map(|i| file_pos(loc.fused_location(i)));
    }
    if loc.is_name() {
        return file_pos(loc.name_child_location());
    }
    if loc.is_call_site() {
        return file_pos(loc.call_site_callee());
    }
    None
}

/// A morf location in `file` for an MLIR location (`line_offset` added to its line).
pub(crate) fn morf_loc(ctx: &mut Context, file: &str, line_offset: u32, loc: Location<'_>) -> Loc {
    match file_pos(loc) {
        Some((line, col)) => Loc::File { file: ctx.sym(file), line: line + line_offset, col },
        None => Loc::Unknown,
    }
}

/// An MLIR location for a morf location.
pub(crate) fn mlir_loc<'c>(cx: &'c MlirContext, ctx: &Context, loc: Loc) -> Location<'c> {
    match loc {
        Loc::File { file, line, col } => Location::new(cx, ctx.str(file), line as usize, col as usize),
        Loc::Unknown => Location::unknown(cx),
    }
}

/// A morf diagnostic for an MLIR one, in `file`.
pub(crate) fn morf_diag(ctx: &mut Context, file: &str, line_offset: u32, d: &MlirDiag) -> Diagnostic {
    let loc = match d.pos {
        Some((line, col)) => Loc::File { file: ctx.sym(file), line: line + line_offset, col },
        None => Loc::Unknown,
    };
    let mut out = Diagnostic::error(loc, d.message.clone());
    out.severity = d.severity;
    out
}

/// Parses an attribute from its text (the syntax morf and MLIR share).
pub(crate) fn parse_attr<'c>(cx: &'c MlirContext, text: &str) -> Result<Attribute<'c>, String> {
    Attribute::parse(cx, text).ok_or_else(|| format!("MLIR cannot parse the attribute '{text}'"))
}

/// Parses a type from its text.
pub(crate) fn parse_type<'c>(cx: &'c MlirContext, text: &str) -> Result<Type<'c>, String> {
    Type::parse(cx, text).ok_or_else(|| format!("MLIR cannot parse the type '{text}'"))
}

/// Appends a new op to `block`: operands, result types, attributes (name, value) and
/// `regions` empty regions (fill them with [`add_block`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn append_op<'c>(
    cx: &'c MlirContext,
    block: MlirBlock,
    name: &str,
    loc: Location<'c>,
    operands: &[MlirValue],
    results: &[Type<'c>],
    attrs: &[(&str, Attribute<'c>)],
    regions: usize,
) -> Result<MlirOperation, String> {
    let operands: Vec<Value<'c, '_>> = operands.iter().map(|v| unsafe { Value::from_raw(*v) }).collect();
    let attrs: Vec<(Identifier<'c>, Attribute<'c>)> = attrs.iter().map(|(k, v)| (Identifier::new(cx, k), *v)).collect();
    let op = OperationBuilder::new(name, loc)
        .add_operands(&operands)
        .add_results(results)
        .add_attributes(&attrs)
        .add_regions_vec((0..regions).map(|_| Region::new()).collect())
        .build()
        .map_err(|e| format!("cannot build '{name}': {e}"))?;
    let block = unsafe { BlockRef::from_raw(block) };
    Ok(block.append_operation(op).to_raw())
}

/// Result `i` of `op`.
pub(crate) fn result(op: MlirOperation, i: usize) -> MlirValue {
    unsafe { mlir_sys::mlirOperationGetResult(op, i as isize) }
}

/// Appends a block with arguments of `types` (all at `loc`) to region `region` of `op`.
pub(crate) fn add_block<'c>(op: MlirOperation, region: usize, types: &[Type<'c>], loc: Location<'c>) -> MlirBlock {
    let args: Vec<(Type<'c>, Location<'c>)> = types.iter().map(|t| (*t, loc)).collect();
    let block = Block::new(&args);
    unsafe {
        let r = mlir_sys::mlirOperationGetRegion(op, region as isize);
        let raw = block.into_raw();
        mlir_sys::mlirRegionAppendOwnedBlock(r, raw);
        raw
    }
}

/// Argument `i` of `block`.
pub(crate) fn block_arg(block: MlirBlock, i: usize) -> MlirValue {
    unsafe { mlir_sys::mlirBlockGetArgument(block, i as isize) }
}

/// The type of a value.
pub(crate) fn value_type<'c>(v: MlirValue) -> Type<'c> {
    unsafe { Type::from_raw(mlir_sys::mlirValueGetType(v)) }
}
