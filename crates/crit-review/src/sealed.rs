//! Cache entries that reveal nothing to whoever reads the cache directory:
//! the body is XORed with a SHA-256 keystream (counter mode) and tagged with
//! HMAC-SHA-256, under a key derived from the cached text itself (a prompt, a
//! hunk of code), so only someone who already has that text can open it. An
//! entry that does not open (corrupt, foreign, another version) is a miss.

use sha2::{Digest, Sha256};

fn keystream_xor(data: &mut [u8], k: &[u8; 32]) {
    for (i, chunk) in data.chunks_mut(32).enumerate() {
        let mut h = Sha256::new();
        h.update(k);
        h.update((i as u64).to_le_bytes());
        let block = h.finalize();
        for (b, s) in chunk.iter_mut().zip(block.iter()) {
            *b ^= s;
        }
    }
}

fn hmac(k: &[u8; 32], msg: &[u8]) -> [u8; 32] {
    let mut ipad = [0x36u8; 64];
    let mut opad = [0x5cu8; 64];
    for (i, b) in k.iter().enumerate() {
        ipad[i] ^= b;
        opad[i] ^= b;
    }
    let inner = Sha256::new()
        .chain_update(ipad)
        .chain_update(msg)
        .finalize();
    let mut out = [0u8; 32];
    out.copy_from_slice(
        &Sha256::new()
            .chain_update(opad)
            .chain_update(inner)
            .finalize(),
    );
    out
}

/// `plain` sealed under `k`, behind `magic` (the format and its version).
pub(crate) fn seal(magic: &[u8], plain: &[u8], k: &[u8; 32]) -> Vec<u8> {
    let mut body = plain.to_vec();
    keystream_xor(&mut body, k);
    let tag = hmac(k, &body);
    let mut out = Vec::with_capacity(magic.len() + 32 + body.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&tag);
    out.extend_from_slice(&body);
    out
}

/// The plain text of `sealed`, when it carries `magic` and opens under `k`.
pub(crate) fn open(magic: &[u8], sealed: &[u8], k: &[u8; 32]) -> Option<Vec<u8>> {
    let rest = sealed.strip_prefix(magic)?;
    if rest.len() < 32 {
        return None;
    }
    let (tag, body) = rest.split_at(32);
    // Not constant time: the tag only tells a corrupt or foreign file from a good one.
    if hmac(k, body) != tag {
        return None;
    }
    let mut plain = body.to_vec();
    keystream_xor(&mut plain, k);
    Some(plain)
}
