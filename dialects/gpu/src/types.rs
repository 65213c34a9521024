//! The `!mgpu.ptr` type: a pointer to global memory (`!mgpu.ptr<bf16>`) or to shared memory
//! (`!mgpu.ptr<f32, 3>`, address space 3), indexed by element offset.
//!
//! The core parses and prints it generically as a [`TypeData::Dialect`] with no dims, an
//! element type and either no parameters or the one parameter `3 : i64`.

use morf_ir::{Context, Type, TypeData};

/// The full name of the pointer type.
pub const PTR: &str = "mgpu.ptr";

/// The address space of shared memory.
pub const SHARED: i64 = 3;

/// Checks the parameters of a `!mgpu.ptr` type (registered with the core).
pub fn verify_ptr_type(ctx: &Context, t: &TypeData) -> Result<(), String> {
    let TypeData::Dialect { shape, elem, params, .. } = t else {
        return Err("'!mgpu.ptr' must be a dialect type".into());
    };
    if !shape.is_empty() {
        return Err("'!mgpu.ptr' takes no dims, as in '!mgpu.ptr<f32>' or '!mgpu.ptr<f32, 3>'".into());
    }
    let Some(e) = elem else {
        return Err("'!mgpu.ptr' requires an element type, as in '!mgpu.ptr<f32>'".into());
    };
    if !is_ptr_element(ctx, *e) {
        return Err(format!(
            "'!mgpu.ptr' element type must be a float, integer or index type, got '{}'",
            ctx.type_to_string(*e)
        ));
    }
    match params.as_slice() {
        [] => Ok(()),
        [a] if ctx.attr_int(*a) == Some(SHARED) => Ok(()),
        _ => Err("'!mgpu.ptr' takes at most one parameter, the address space 3 (shared memory)".into()),
    }
}

/// Whether `t` may be the element type of a pointer.
pub fn is_ptr_element(ctx: &Context, t: Type) -> bool {
    matches!(ctx.type_data(t), TypeData::Float(_) | TypeData::Integer(_) | TypeData::Index)
}

/// The pointer type to `elem` in global memory, or in shared memory when `shared`.
pub fn ptr_type(ctx: &mut Context, elem: Type, shared: bool) -> Type {
    let params = if shared {
        let i64t = ctx.i64_type();
        vec![ctx.int_attr(SHARED, i64t)]
    } else {
        Vec::new()
    };
    ctx.intern_type(TypeData::Dialect { name: PTR.into(), shape: Vec::new(), elem: Some(elem), params })
}

/// Element type and address space (0 global, 3 shared) of a `!mgpu.ptr` type.
pub fn ptr_parts(ctx: &Context, t: Type) -> Option<(Type, i64)> {
    match ctx.type_data(t) {
        TypeData::Dialect { name, elem: Some(e), params, .. } if name == PTR => {
            Some((*e, params.first().and_then(|a| ctx.attr_int(*a)).unwrap_or(0)))
        }
        _ => None,
    }
}

/// Whether `t` is a `!mgpu.ptr` type.
pub fn is_ptr(ctx: &Context, t: Type) -> bool {
    ptr_parts(ctx, t).is_some()
}

/// The size in bytes of an element of type `t` (`i1` counts as one byte, `index` as eight).
pub fn elem_bytes(ctx: &Context, t: Type) -> usize {
    match ctx.type_data(t) {
        TypeData::Float(k) => k.bits() as usize / 8,
        TypeData::Integer(w) => (*w as usize).div_ceil(8).max(1),
        _ => 8,
    }
}
