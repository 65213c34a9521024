#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| morf_fuzz_targets::pass_pipeline(data));
