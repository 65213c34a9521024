//! The `!mloop.buffer` type: a memref-like buffer with static or dynamic dims and an
//! element type among f16, bf16, f32, f64 and i1.
//!
//! The core parses and prints it generically (`!mloop.buffer<?x384xbf16>`, rank 0
//! `!mloop.buffer<f32>`) as a shaped [`TypeData::Dialect`]; this module checks its
//! parameters and gives typed accessors.

use morf_ir::{Context, Dim, Type, TypeData};

/// The full name of the buffer type.
pub const BUFFER: &str = "mloop.buffer";

/// Checks the parameters of a `!mloop.buffer` type (registered with the core).
pub fn verify_buffer_type(ctx: &Context, t: &TypeData) -> Result<(), String> {
    let TypeData::Dialect { shape: _, elem, params, .. } = t else {
        return Err("'!mloop.buffer' must be a dialect type".into());
    };
    if !params.is_empty() {
        return Err("'!mloop.buffer' takes only dims and an element type, as in '!mloop.buffer<?x4xf32>'".into());
    }
    let Some(e) = elem else {
        return Err("'!mloop.buffer' requires an element type, as in '!mloop.buffer<?x4xf32>'".into());
    };
    if is_buffer_element(ctx, *e) {
        Ok(())
    } else {
        Err(format!("'!mloop.buffer' element type must be f16, bf16, f32, f64 or i1, got '{}'", ctx.type_to_string(*e)))
    }
}

/// Whether `t` may be the element type of a buffer.
pub fn is_buffer_element(ctx: &Context, t: Type) -> bool {
    matches!(ctx.type_data(t), TypeData::Float(_) | TypeData::Integer(1))
}

/// The buffer type with dims `shape` and element type `elem`.
pub fn buffer_type(ctx: &mut Context, shape: &[Dim], elem: Type) -> Type {
    ctx.intern_type(TypeData::Dialect {
        name: BUFFER.into(),
        shape: shape.to_vec(),
        elem: Some(elem),
        params: Vec::new(),
    })
}

/// Whether `t` is a `!mloop.buffer` type.
pub fn is_buffer(ctx: &Context, t: Type) -> bool {
    buffer_parts(ctx, t).is_some()
}

/// Dims and element type of a `!mloop.buffer` type.
pub fn buffer_parts(ctx: &Context, t: Type) -> Option<(&[Dim], Type)> {
    match ctx.type_data(t) {
        TypeData::Dialect { name, shape, elem: Some(e), .. } if name == BUFFER => Some((shape, *e)),
        _ => None,
    }
}
