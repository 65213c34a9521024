// Found by the roundtrip fuzz target (libFuzzer, 2026-11-30): the printer left out the
// label of an empty entry block followed by another block, so the reparsed region lost a
// block ("custom form does not round-trip"). Fixed in compiler/src/asm/printer.rs
// (print_region); lit test: test/IR/roundtrip-empty-entry-block.mlir.

"x.region"() ({
^bb0:
 ^bbJJJJJJJJJJJJJJJJJJJJJJJJJJ2:
  // Oncreg -> ()
}) : () -> ()
