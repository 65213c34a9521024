//! Stable content hashes: the same bytes give the same hash in every process and build, so a
//! hash written by one tool (a tuning cache's program key, the lowering stamp in emitted PTX)
//! can be checked by another.

use crate::{print_op, Context, OpId, PrintOptions};

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The hash of `op` as 16 hex digits: FNV-1a of its generic form without locations, so
/// formatting, comments and file names do not change it while any change to an op, a type or
/// an attribute does.
pub fn op_hash(ctx: &Context, op: OpId) -> String {
    let text = print_op(ctx, op, &PrintOptions { generic: true, debug_info: false });
    format!("{:016x}", fnv1a(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_known_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
