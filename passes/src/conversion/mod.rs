//! Conversions between dialects: `lower-tensor-to-loop` (`mtensor` to `mloop`).

pub mod tensor_to_loop;
