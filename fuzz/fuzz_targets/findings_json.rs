#![no_main]

use crit_core::contract::{self, Contract, ParseContext};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let r = contract::into_result("fuzz", Contract::FindingsJson, text, &ParseContext::new("fuzz"));
        assert!(r.parse_error.is_none() || !r.passed);
    }
});
