//! Entry points for the fuzz targets in `fuzz/` (not a stable API): arbitrary bytes
//! through the SSE decoder and both wire decoders must never panic.

use crate::sse::SseDecoder;
use crate::transport::WireDecoder;

/// Feeds `data` in chunks of a size taken from its first byte.
pub fn decode_stream(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(first % 32) + 1;
    let mut sse = SseDecoder::new();
    let mut anthropic = crate::anthropic::fuzz_decoder();
    let mut openai = crate::openai::fuzz_decoder();
    let mut events = Vec::new();
    for piece in rest.chunks(chunk) {
        events.extend(sse.push(piece));
    }
    events.extend(sse.finish());
    for ev in events {
        let _ = anthropic.event(ev.clone());
        let _ = openai.event(ev);
    }
    let _ = anthropic.finish();
    let _ = openai.finish();
}

#[cfg(test)]
mod tests {
    #[test]
    fn sample_inputs_do_not_panic() {
        for input in [
            &b""[..],
            b"\x03event: content_block_stop\ndata: {\"index\":9}\n\n",
            b"\x01event: content_block_delta\ndata: {\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n",
            b"\x07data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":18446744073709551615}]}}]}\n\ndata: [DONE]\n\n",
            b"\x00event: message_delta\ndata: {\"usage\":{\"output_tokens\":-1}}\r\r",
            b"\x05data: \xff\xfe\n\n",
        ] {
            super::decode_stream(input);
        }
    }
}
