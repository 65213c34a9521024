//! The MLIR-syntax text format: lexer, parser and printer.

pub mod formats;
pub mod lexer;
pub mod parser;
pub mod printer;

pub use parser::{decode_source, parse_attr_str, parse_source, parse_type_str, OpParser, PResult, UnresolvedOperand};
pub use printer::{print_op, OpPrinter, PrintOptions};
