#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| morf_fuzz_targets::pipeline_fuse(data));
