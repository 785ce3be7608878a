#![no_main]
//! Arbitrary bytes through the SSE decoder and the Anthropic/OpenAI wire decoders.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    crit_llm::fuzzing::decode_stream(data);
});
