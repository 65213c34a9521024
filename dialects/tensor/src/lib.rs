//! The `mtensor` dialect (being written).
